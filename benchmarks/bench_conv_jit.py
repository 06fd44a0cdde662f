"""A small CNN's loss and gradient under ``jit`` against the eager path: x (8, 3, 16, 16),
w (8, 3, 3, 3), a SAME convolution, ReLU, a 2x2 stride-2 max-pool, a sum (float32 and
float64).  Prints the median ms of each and the graph breaks of the compiled program.

    python benchmarks/bench_conv_jit.py
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ftrans  # noqa: E402
import ftrans.numpy as fnp  # noqa: E402
from ftrans import lax  # noqa: E402
from ftrans.compiler import graph_breaks  # noqa: E402
from timing import bench  # noqa: E402


def loss(w, x):
    y = lax.conv_general_dilated(x, w, (1, 1), "SAME")
    y = fnp.maximum(y, 0.0)
    p = lax.reduce_window(y, "max", (1, 1, 2, 2), (1, 1, 2, 2))
    return fnp.sum(p * p)


def main():
    rng = np.random.default_rng(0)
    for dt in (np.float32, np.float64):
        x = rng.standard_normal((8, 3, 16, 16)).astype(dt)
        w = rng.standard_normal((8, 3, 3, 3)).astype(dt)
        vg = ftrans.value_and_grad(loss, argnums=(0, 1))
        jf, jvg = ftrans.jit(loss), ftrans.jit(vg)
        print(dt.__name__, "breaks fwd:", graph_breaks(ftrans.make_ir(loss)(w, x)),
              "grad:", graph_breaks(ftrans.make_ir(vg)(w, x)))
        res = bench({"eager fwd": lambda: loss(w, x), "jit fwd": lambda: jf(w, x),
                     "eager fwd+grad": lambda: vg(w, x), "jit fwd+grad": lambda: jvg(w, x)},
                    repeats=15, budget=4.0)
        for label, (med, iqr, *_rest) in res.items():
            print(f"  {dt.__name__:8s} {label:15s} {med * 1e3:8.3f} ms  (iqr {iqr:.0%})")


if __name__ == "__main__":
    main()
