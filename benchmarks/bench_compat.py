"""Overhead of the compat layer (``import ftrans.compat as torch``) against PyTorch eager:
per-operation (forward + backward chains, custom ``autograd.Function``s, forward-mode AD)
and per call of ``autograd.functional`` and ``gradcheck``.

    PYTHONPATH=. python benchmarks/bench_compat.py                         # all workloads
    PYTHONPATH=. python benchmarks/bench_compat.py --workloads fn jac      # a subset
    PYTHONPATH=. python benchmarks/bench_compat.py --quick                 # a smoke run

Workloads (``--workloads`` names; a name may give several rows).  All float64.  W1c, sin50
and fn: a 16-vector leaf ``x``, then ``y.sum().backward()``, result ``x.grad``:

W1c        the W1 chain through ``Tensor`` and ``.backward()``: ``y = x``, then 25 times
           ``y = tanh(sin(y) * 0.9 + y * 0.1)`` -- 100 operations, 126 with the sum and
           the backward's leaf.  Target: compat <= 2.0x PyTorch eager per operation.
sin50      a chain of 50 ``sin``.
fn         custom ``autograd.Function``s: 25 times ``y = Exp.apply(y)`` (the reference's
           ``Exp``: saves its output) then ``y, s = SinSign.apply(y)`` (two outputs: ``sin``
           and a float ``sign`` marked non-differentiable; saves its input) -- 50
           applications, each one graph node.
jac        ``autograd.functional.jacobian(f, x)``, ``f = x -> tanh(W @ x + b)``, ``W``
           (64, 64), ``x`` a 64-vector, ``vectorize=False`` (row ``jac``: 64 backward
           passes) and ``vectorize=True`` (row ``jac-vec``: one batched backward); and
           ``hessian(g, x, vectorize=True)`` of ``g = x -> sum(tanh(A @ x)**2) + sum(x**4)``,
           ``A`` (16, 16), ``x`` a 16-vector (row ``hess-vec``).  Result: the matrix.
gradcheck  ``autograd.gradcheck(f, (x,))``, ``f = x -> (x.sin() * x).sum(dim=0)``, ``x``
           (8, 8) requiring grad, ``fast_mode=False`` (row ``gradcheck``) and ``True``
           (row ``gradcheck-fast``); other options at their defaults.  Result: True.
fwad       forward-mode AD (``autograd.forward_ad``) through the W1c chain: in a
           ``dual_level``, ``make_dual(tensor(x), tensor(v))``, the 100 operations, then
           ``unpack_dual(y).tangent`` (the JVP).

Both libraries run the same code on the same module-like object; constants (``W``, ``b``,
``A``, gradcheck's ``x``, the Function classes) are made once per library, outside the
timing.  Before timing, the script checks that the results agree (arrays: relative error
below 1e-12, same shape and dtype; gradcheck: both True).  Each implementation is warmed
up, then timed in blocks (a short pause, some untimed calls, then samples of back-to-back
calls lasting at least 10 ms each), the blocks of the two libraries alternating; the
figure is the median over the samples ("ratio"), and the ratio of the fastest samples is
printed too (on a shared, loaded machine it is the steadier of the two).  PyTorch runs
with one intra-op thread (the arrays are tiny).
"""
from __future__ import annotations

import argparse
import gc
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from timing import _sample  # noqa: E402  (benchmarks/)

import ftrans.compat as fc  # noqa: E402

try:
    import torch
    torch.set_num_threads(1)
except Exception:  # pragma: no cover - depends on the environment
    torch = None

N_OPS = {"W1c": 100, "sin50": 50}


def w1(T, x0):
    x = T.tensor(x0, requires_grad=True)
    y = x
    for _ in range(25):
        y = T.tanh(T.sin(y) * 0.9 + y * 0.1)
    y.sum().backward()
    return x.grad


def sin50(T, x0):
    x = T.tensor(x0, requires_grad=True)
    y = x
    for _ in range(50):
        y = T.sin(y)
    y.sum().backward()
    return x.grad


def _functions(T):
    """(Exp, SinSign): the custom ``autograd.Function``s of workload ``fn``, for library T."""

    class Exp(T.autograd.Function):
        # the example of the torch.autograd reference ("Function")
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            result, = ctx.saved_tensors
            return grad_output * result

    class SinSign(T.autograd.Function):
        # two outputs, the second (a float tensor) marked non-differentiable
        @staticmethod
        def forward(ctx, x):
            s = x.sign()
            ctx.save_for_backward(x)
            ctx.mark_non_differentiable(s)
            return x.sin(), s

        @staticmethod
        def backward(ctx, grad_y, grad_s):
            x, = ctx.saved_tensors
            return grad_y * x.cos()

    return Exp, SinSign


def make_fn(T, x0):
    Exp, SinSign = _functions(T)

    def run():
        x = T.tensor(x0, requires_grad=True)
        y = x
        for _ in range(25):
            y = Exp.apply(y)
            y, _s = SinSign.apply(y)
        y.sum().backward()
        return x.grad
    return run


def make_jac(T, vectorize):
    rng = np.random.default_rng(1)
    W = T.tensor(rng.standard_normal((64, 64)) / 8)
    b = T.tensor(rng.standard_normal(64) / 10)
    x = T.tensor(rng.standard_normal(64))
    f = lambda x: T.tanh(W @ x + b)  # noqa: E731
    return lambda: T.autograd.functional.jacobian(f, x, vectorize=vectorize)


def make_hess(T):
    rng = np.random.default_rng(2)
    A = T.tensor(rng.standard_normal((16, 16)) / 4)
    x = T.tensor(rng.standard_normal(16))
    g = lambda x: (T.tanh(A @ x) ** 2).sum() + (x ** 4).sum()  # noqa: E731
    return lambda: T.autograd.functional.hessian(g, x, vectorize=True)


def make_gradcheck(T, fast_mode):
    x = T.tensor(np.random.default_rng(3).standard_normal((8, 8)), requires_grad=True)
    f = lambda x: (x.sin() * x).sum(dim=0)  # noqa: E731
    return lambda: T.autograd.gradcheck(f, (x,), fast_mode=fast_mode)


def make_fwad(T, x0):
    fw = T.autograd.forward_ad
    v0 = np.random.default_rng(4).standard_normal(x0.shape)

    def run():
        with fw.dual_level():
            y = fw.make_dual(T.tensor(x0), T.tensor(v0))
            for _ in range(25):
                y = T.tanh(T.sin(y) * 0.9 + y * 0.1)
            return fw.unpack_dual(y).tangent
    return run


# --workloads name -> rows (row label, operations or None, make(T, x0) -> a callable)
WORKLOADS = {
    "W1c": [("W1c", N_OPS["W1c"], lambda T, x0: lambda: w1(T, x0))],
    "sin50": [("sin50", N_OPS["sin50"], lambda T, x0: lambda: sin50(T, x0))],
    "fn": [("fn", 50, make_fn)],
    "jac": [("jac", None, lambda T, x0: make_jac(T, False)),
            ("jac-vec", None, lambda T, x0: make_jac(T, True)),
            ("hess-vec", None, lambda T, x0: make_hess(T))],
    "gradcheck": [("gradcheck", None, lambda T, x0: make_gradcheck(T, False)),
                  ("gradcheck-fast", None, lambda T, x0: make_gradcheck(T, True))],
    "fwad": [("fwad", 100, make_fwad)],
}


def _as_np(r):
    """A result as a NumPy array (a bool stays a bool)."""
    if isinstance(r, (bool, np.bool_)):
        return bool(r)
    return np.asarray(r.detach().numpy())


def check_equal(label, r_t, r_c):
    """Raise AssertionError unless compat's result ``r_c`` equals torch's ``r_t``."""
    a, b = _as_np(r_t), _as_np(r_c)
    if isinstance(a, bool) or isinstance(b, bool):
        assert a is True and b is True, f"{label}: results differ (torch {a}, compat {b})"
        return
    assert a.shape == b.shape and a.dtype == b.dtype, \
        f"{label}: torch gives {a.shape} {a.dtype}, compat {b.shape} {b.dtype}"
    err = np.max(np.abs(a - b)) / max(np.max(np.abs(a)), np.finfo(a.dtype).tiny)
    assert err < 1e-12, f"{label}: results differ (relative error {err:.2e})"


def bench(impls, samples_per_block, blocks, min_sample=0.01):
    """{label: (median, minimum)} seconds per call of each callable in ``impls``."""
    numbers = {}
    for label, fn in impls.items():
        n, t0 = 0, time.perf_counter()
        while n < 20 or time.perf_counter() - t0 < 0.3:
            fn()
            n += 1
        numbers[label] = max(1, math.ceil(min_sample / ((time.perf_counter() - t0) / n)))
    samples = {label: [] for label in impls}
    gc.collect()
    gc.freeze()
    try:
        for _ in range(blocks):
            for label, fn in impls.items():
                time.sleep(0.1)
                for _ in range(20):
                    fn()
                for _ in range(samples_per_block):
                    samples[label].append(_sample(fn, numbers[label]))
    finally:
        gc.unfreeze()
    return {label: (float(np.median(s)), float(np.min(s))) for label, s in samples.items()}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer samples (a smoke run)")
    p.add_argument("--workloads", nargs="+", choices=list(WORKLOADS), default=list(WORKLOADS),
                   metavar="NAME", help=f"workloads to run, of {', '.join(WORKLOADS)} "
                   "(default: all)")
    args = p.parse_args(argv)
    x0 = np.random.default_rng(0).standard_normal(16)
    spb, blocks = (2, 2) if args.quick else (5, 6)
    print(f"numpy {np.__version__}, torch {torch.__version__ if torch else 'n/a'}")
    print(f"{'workload':14s} {'ops':>4s} {'compat us':>10s} {'us/op':>7s} {'torch us':>9s} "
          f"{'us/op':>7s} {'ratio':>6s} {'ratio of best samples':>22s}")
    for name in args.workloads:
        for label, n, make in WORKLOADS[name]:
            impls = {"compat": make(fc, x0)}
            if torch is not None:
                impls["torch"] = make(torch, x0)
                check_equal(label, impls["torch"](), impls["compat"]())
            res = bench(impls, spb, blocks)
            c = res["compat"][0] * 1e6
            per = (lambda us: f"{us / n:7.2f}") if n else (lambda us: f"{'-':>7s}")
            line = f"{label:14s} {n or '-':>4} {c:10.1f} {per(c)}"
            if "torch" in res:
                t = res["torch"][0] * 1e6
                best = res["compat"][1] / res["torch"][1]
                line += f" {t:9.1f} {per(t)} {c / t:6.2f} {best:22.2f}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
