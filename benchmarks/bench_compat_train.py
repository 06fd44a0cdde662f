"""A training step of W2's MLP through ``ftrans.compat`` + ``optim.Adam``, against PyTorch
eager, in one process.

    PYTHONPATH=. python benchmarks/bench_compat_train.py            # ~20 s
    PYTHONPATH=. python benchmarks/bench_compat_train.py --quick    # a smoke run

The step (``benchmarks/run.py``'s W2 model): a 784-512-512-10 tanh MLP, batch 256,
float32, the mean softmax cross-entropy of one-hot labels written as
``-(Y * log_softmax(logits, 1)).sum() / B``, then ``zero_grad()``, ``backward()`` and
``Adam(lr=1e-3).step()``.  The same function runs with ``T = ftrans.compat`` and
``T = torch`` on plain tensors (the ``nn.Module`` version of this step is the ``compat.nn``
benchmark's).  Rows: compat with the default Adam (``ftrans.optim.adam``'s fused one-pass
kernel), compat with ``Adam(fused=False)`` (its composition of ``ftrans.numpy``
operations), and PyTorch eager (its CPU default, the single-tensor Adam).

Before timing, one step from the same parameters must give the same loss and updated
parameters in both libraries (max relative difference printed; float32).  Each row is
warmed up, then timed in blocks that alternate between the rows (a short pause, untimed
calls, then single-step samples); the figure is the median step time, the ratio is
compat / PyTorch, and the ratio of the fastest samples is printed too (on a shared,
loaded machine it is the steadier of the two).  Thread counts are the libraries'
defaults (``--torch-threads`` changes PyTorch's) and are printed.  Target (issue 11): compat <= 1.5x PyTorch per step.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import ftrans.compat as fc  # noqa: E402

try:
    import torch
except Exception:  # pragma: no cover - depends on the environment
    torch = None

SIZES = (784, 512, 512, 10)
BATCH = 256


def data():
    rng = np.random.default_rng(1)
    params = []
    for din, dout in zip(SIZES[:-1], SIZES[1:]):
        params.append((rng.standard_normal((din, dout)) / np.sqrt(din)).astype(np.float32))
        params.append((0.1 * rng.standard_normal(dout)).astype(np.float32))
    X = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    Y = np.zeros((BATCH, SIZES[-1]), np.float32)
    Y[np.arange(BATCH), rng.integers(0, SIZES[-1], BATCH)] = 1.0
    return params, X, Y


def make_step(T, params, X, Y, **adam):
    """(step function returning the loss, parameter tensors) for module ``T``."""
    ps = [T.tensor(p.copy(), requires_grad=True) for p in params]
    x, y = T.tensor(X), T.tensor(Y)
    opt = T.optim.Adam(ps, lr=1e-3, **adam)

    def step():
        opt.zero_grad()
        h = x
        for i in range(0, len(ps) - 2, 2):
            h = T.tanh(h @ ps[i] + ps[i + 1])
        logits = h @ ps[-2] + ps[-1]
        loss = -(y * T.log_softmax(logits, 1)).sum() / BATCH
        loss.backward()
        opt.step()
        return loss
    return step, ps


def check(params, X, Y):
    """One step in each library from the same start: max relative differences."""
    out = {}
    ref_step, ref_ps = make_step(torch, params, X, Y)
    ref_loss = ref_step().item()
    for name, kw in (("compat", {}), ("compat fused=False", {"fused": False})):
        step, ps = make_step(fc, params, X, Y, **kw)
        loss = step().item()
        err = max(np.abs(p.detach().numpy() - q.detach().numpy()).max()
                  / np.abs(q.detach().numpy()).max() for p, q in zip(ps, ref_ps))
        out[name] = (abs(loss - ref_loss) / abs(ref_loss), err)
    return out


def timed(rows, blocks, per_block, pause):
    samples = {k: [] for k in rows}
    for _ in range(blocks):
        for name, fn in rows.items():
            time.sleep(pause)
            for _ in range(2):
                fn()
            gc.collect()
            for _ in range(per_block):
                t = time.perf_counter()
                fn()
                samples[name].append(time.perf_counter() - t)
    return samples


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smoke run: few samples")
    ap.add_argument("--blocks", type=int, default=6)
    ap.add_argument("--per-block", type=int, default=10)
    ap.add_argument("--torch-threads", type=int, default=None,
                    help="torch.set_num_threads(N) (default: PyTorch's own default)")
    args = ap.parse_args(argv)
    if torch is None:
        print("PyTorch is not installed: nothing to compare against")
        return 0
    blocks, per_block = (2, 3) if args.quick else (args.blocks, args.per_block)
    if args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    params, X, Y = data()
    print(f"torch {torch.__version__} ({torch.get_num_threads()} threads), numpy "
          f"{np.__version__}, compat Adam: ftrans.optim's fused kernel by default")
    for name, (lerr, perr) in check(params, X, Y).items():
        print(f"check {name:20s}: loss rel. diff {lerr:.1e}, parameters after one step "
              f"max rel. diff {perr:.1e} (float32)")
    rows = {"compat (Adam)": make_step(fc, params, X, Y)[0],
            "compat (Adam fused=False)": make_step(fc, params, X, Y, fused=False)[0],
            "torch eager (Adam)": make_step(torch, params, X, Y)[0]}
    for fn in rows.values():   # warm-up: numba kernels compiled or loaded, BLAS threads up
        for _ in range(3):
            fn()
    s = timed(rows, blocks, per_block, 0.1)
    ref_med = np.median(s["torch eager (Adam)"])
    ref_min = np.min(s["torch eager (Adam)"])
    print(f"\nW2 MLP training step (784-512-512-10 tanh, batch {BATCH}, float32, Adam), "
          f"{blocks} blocks x {per_block} steps per row")
    print(f"{'':28s}{'median':>10s}{'min':>10s}{'ratio':>8s}{'ratio(min)':>12s}")
    for name, v in s.items():
        med, mn = np.median(v), np.min(v)
        print(f"{name:28s}{med * 1e3:8.2f}ms{mn * 1e3:8.2f}ms{med / ref_med:8.2f}"
              f"{mn / ref_min:12.2f}")
    r = np.median(s["compat (Adam)"]) / ref_med
    print(f"\ntarget compat <= 1.5x torch per step: {r:.2f}x -> "
          f"{'met' if r <= 1.5 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
