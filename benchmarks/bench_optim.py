"""``ftrans.optim``'s eager update: the fused kernel (its impl for concrete float NumPy
leaves) against the composition of ``ftrans.numpy`` operations (``fused=False``).

    PYTHONPATH=. python benchmarks/bench_optim.py            # ~1 min
    PYTHONPATH=. python benchmarks/bench_optim.py --quick    # a smoke run

Parameter sets: W2's MLP (784-512-512-10, six float32 leaves, 670k elements) and a
small one (ten float64 leaves of 100 elements).  Rows per optimizer: ``update`` with the
kernel, ``update`` composed, and ``update(..., inplace=True)`` with the kernel (what
``compat.optim`` calls).  Each row is warmed up, then timed in blocks alternating
between the rows; the figure is the median time of one update of the whole pytree.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from ftrans import optim  # noqa: E402

CASES = [("sgd", dict(learning_rate=0.01, momentum=0.9)),
         ("adam", dict(learning_rate=1e-3)),
         ("adamw", dict(learning_rate=1e-3, amsgrad=True)),
         ("rmsprop", dict(learning_rate=1e-2, centered=True, momentum=0.5)),
         ("adagrad", dict(learning_rate=1e-2))]


def param_sets():
    rng = np.random.default_rng(0)
    sizes = (784, 512, 512, 10)
    mlp = {}
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        mlp[f"w{i}"] = rng.standard_normal((a, b)).astype(np.float32)
        mlp[f"b{i}"] = rng.standard_normal(b).astype(np.float32)
    small = [rng.standard_normal(100) for _ in range(10)]
    return {"W2 MLP f32 (670k)": mlp, "10 x 100 f64": small}


def rows_for(name, kw, params):
    grads = {k: v * 0.1 for k, v in params.items()} if isinstance(params, dict) \
        else [v * 0.1 for v in params]
    fused = getattr(optim, name)(fused=True, **kw)
    composed = getattr(optim, name)(fused=False, **kw)
    s1, s2 = fused.init(params), composed.init(params)
    p3 = {k: v.copy() for k, v in params.items()} if isinstance(params, dict) \
        else [v.copy() for v in params]
    s3 = fused.init(p3)
    return {"fused": lambda: fused.update(grads, s1, params),
            "composed": lambda: composed.update(grads, s2, params),
            "fused inplace": lambda: fused.update(grads, s3, p3, inplace=True)}


def timed(rows, blocks, per_block):
    samples = {k: [] for k in rows}
    for _ in range(blocks):
        for name, fn in rows.items():
            fn()
            gc.collect()
            for _ in range(per_block):
                t = time.perf_counter()
                fn()
                samples[name].append(time.perf_counter() - t)
    return {k: float(np.median(v)) for k, v in samples.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    blocks, per_block = (2, 3) if args.quick else (5, 10)
    print(f"numpy {np.__version__}; median time of one update of the whole pytree")
    print(f"{'':34s}{'fused':>10s}{'composed':>10s}{'speed-up':>10s}{'inplace':>10s}")
    for label, params in param_sets().items():
        for name, kw in CASES:
            rows = rows_for(name, kw, params)
            for fn in rows.values():
                fn()
            m = timed(rows, blocks, per_block)
            unit, f = ("ms", 1e3) if m["composed"] > 1e-3 else ("us", 1e6)
            print(f"{label + ' ' + name:34s}{m['fused'] * f:8.1f}{unit}"
                  f"{m['composed'] * f:8.1f}{unit}{m['composed'] / m['fused']:9.2f}x"
                  f"{m['fused inplace'] * f:8.1f}{unit}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
