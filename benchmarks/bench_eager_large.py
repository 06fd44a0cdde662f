"""Eager W5 (gradient of sum(sin(x)*exp(-x*x)), 4*2**20 float64) by kernel configuration.

    PYTHONPATH=. python benchmarks/bench_eager_large.py [--rounds 7] [--n 4194304] [--ops]

Runs, in one process and interleaved round by round (a shared machine's drifts spread
over all columns; a 0.2 s pause before each block, as in benchmarks/run.py), the eager ``ftrans.grad`` under each configuration of
``ftrans.kernels``: the output-buffer pool (``kernels/_buffers.py``) on or off, and the
helper threads of the numba kernels (``cpu.NUMBA_PARALLEL_MIN_SIZE``, ``_split``) on or off; plus PyTorch eager (its
default threads, the reference of issue 21's target, and one thread).  Prints the median over rounds
of each configuration's median call time.  ``--ops`` also times each kernel call of one
gradient (its inputs recorded from a real call) and the same torch operation.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import ftrans  # noqa: E402
import ftrans.numpy as fnp  # noqa: E402
from ftrans.kernels import _buffers, cpu  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None  # type: ignore[assignment]

COOLDOWN = 0.2  # s of sleep before each block: spinning worker threads of the last one stop
_POOL = _buffers.POOL_MIN_BYTES
_PAR = cpu.NUMBA_PARALLEL_MIN_SIZE
_VJP_POOLED = {k: v for k, v in cpu.NUMBA_VJP.items() if k[0] in ("exp", "log")}


def configure(pool: bool, parallel: bool) -> None:
    """Switch the buffer pool (and the numba vjp exp/log entries that rely on it) and
    the numba thread pool on or off."""
    big = 1 << 62
    _buffers.POOL_MIN_BYTES = cpu._POOL_MIN_BYTES = _POOL if pool else big
    for k, v in _VJP_POOLED.items():
        cpu.NUMBA_VJP[k] = v if pool else big
    cpu.NUMBA_PARALLEL_MIN_SIZE = _PAR if parallel else big
    _buffers.clear()


def f(x: Any) -> Any:
    return fnp.sum(fnp.sin(x) * fnp.exp(-x * x))


def time_calls(fn: Callable[[], Any], k: int) -> float:
    ts = []
    for _ in range(k):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return float(np.median(ts))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--calls", type=int, default=5, help="timed calls per round")
    ap.add_argument("--n", type=int, default=4 * 2**20)
    ap.add_argument("--ops", action="store_true", help="also time each kernel call")
    ap.add_argument("--threshold", action="store_true",
                    help="only time numba kernels serial vs in helper threads by size")
    args = ap.parse_args()
    if args.threshold:
        time_threshold(args.rounds)
        return
    x = np.random.default_rng(5).uniform(-3, 3, args.n)
    g = ftrans.grad(f)
    columns: dict[str, tuple[Callable[[], None], Callable[[], Any]]] = {}
    for pool in (False, True):
        for par in (False, True):
            def ftrans_setup(pool: bool = pool, par: bool = par) -> None:
                configure(pool, par)
            columns[f"pool {'on ' if pool else 'off'} threads {'on ' if par else 'off'}"] = (
                ftrans_setup, lambda: g(x))
    if torch is not None:
        def torch_grad() -> np.ndarray:
            xt = torch.from_numpy(x).requires_grad_()
            loss = torch.sum(torch.sin(xt) * torch.exp(-xt * xt))
            return torch.autograd.grad(loss, xt)[0].numpy()
        nt = torch.get_num_threads()
        for t in sorted({1, nt}):  # (the default last: leaves torch as it found it)
            def torch_setup(t: int = t) -> None:
                configure(True, True)
                torch.set_num_threads(t)
            columns[f"PyTorch eager ({t} thread{'s' * (t > 1)})"] = (torch_setup, torch_grad)
    ref = columns["pool off threads off"][1]()
    for name, (setup, fn) in columns.items():
        setup()
        err = np.max(np.abs(fn() - ref)) / np.max(np.abs(ref))  # (as benchmarks/run.py)
        assert err <= 1e-12, (name, err)
    samples: dict[str, list[float]] = {name: [] for name in columns}
    for _ in range(args.rounds):
        for name, (setup, fn) in columns.items():
            setup()
            time.sleep(COOLDOWN)
            fn()
            fn()  # (refills the pool)
            samples[name].append(time_calls(fn, args.calls))
    print(f"eager W5, n={args.n:,} float64: median over {args.rounds} rounds of the median of "
          f"{args.calls} calls (ms); min round")
    for name, s in samples.items():
        print(f"  {name:34s} {np.median(s) * 1e3:8.2f}  {np.min(s) * 1e3:8.2f}")
    configure(True, True)
    if args.ops:
        time_ops(x, args.rounds)


def time_ops(x: np.ndarray, rounds: int) -> None:
    """Each kernel call of one eager gradient (pool on, threads on) beside torch's op."""
    calls = []
    wrapped = {}
    for name in ("unary", "binary", "unary_vjp", "sincos", "reduce_sum"):
        orig = getattr(cpu, name)
        wrapped[name] = orig

        def rec(*a: Any, _o: Any = orig, _n: str = name) -> Any:
            calls.append((_n, a))
            return _o(*a)
        setattr(cpu, name, rec)
    ftrans.grad(f)(x)
    for name, orig in wrapped.items():
        setattr(cpu, name, orig)
    xt = torch.from_numpy(x) if torch is not None else None
    torch_ops = {"sincos": lambda: (torch.sin(xt), torch.cos(xt)),
                 "neg": lambda: -xt, "exp": lambda: torch.exp(xt), "mul": lambda: xt * xt,
                 "add": lambda: xt + xt, "reduce_sum": lambda: torch.sum(xt)}
    print("one gradient's kernel calls (ms, median of rounds; torch: the same op on x)")
    for name, a in calls:
        label = name if name in ("sincos", "reduce_sum") else f"{name} {a[0]}"
        fn = (lambda _f=wrapped[name], _a=a: _f(*_a))
        t = [time_calls(fn, 5) for _ in range(rounds)]
        op = name if name in ("sincos", "reduce_sum") else a[0]
        tt = ""
        if xt is not None and op in torch_ops and name != "unary_vjp":
            tt = f"  torch {np.median([time_calls(torch_ops[op], 5) for _ in range(rounds)]) * 1e3:7.2f}"
        kinds = " ".join(f"{v.dtype}{'b' if not any(v.strides) else ''}"
                         for v in a if isinstance(v, np.ndarray))
        print(f"  {label:18s} {kinds:32s} {np.median(t) * 1e3:7.2f}{tt}")


def time_threshold(rounds: int) -> None:
    """Serial vs shared-with-helpers (``_split``) numba kernels around
    ``NUMBA_PARALLEL_MIN_SIZE``: sincos (compute-bound), rem, and a fused vjp (tanh)."""
    print(f"numba kernels, serial vs helper threads (ms, median of {rounds} rounds of 5 "
          f"calls); NUMBA_PARALLEL_MIN_SIZE = {_PAR:,}")
    for n in (2**17, 2**18, 2**19, 2**20, 2**22):
        x = np.random.default_rng(0).uniform(0.1, 3, n)
        ops = {"sincos": lambda: cpu.sincos(x), "rem": lambda: cpu.binary("rem", x, 0.3),
               "vjp tanh": lambda: cpu.unary_vjp("tanh", x, x)}
        line = []
        for name, fn in ops.items():
            t = {}
            for par in (False, True):
                configure(True, par)
                cpu.NUMBA_PARALLEL_MIN_SIZE = 0 if par else 1 << 62
                fn()
                t[par] = np.median([time_calls(fn, 5) for _ in range(rounds)]) * 1e3
            line.append(f"{name} {t[False]:7.3f} / {t[True]:7.3f}")
        print(f"  n={n:>9,}  " + "   ".join(line))
    configure(True, True)


if __name__ == "__main__":
    main()
