"""A small CNN's loss and gradient under ``jit`` against the eager path: x (8, 3, 16, 16),
w (8, 3, 3, 3), a SAME convolution, ReLU, a 2x2 stride-2 max-pool, a sum (float32 and
float64).  Prints the median ms of each and the graph breaks of the compiled program;
"jit (breaks)" is the same program compiled with the convolution and the windowed
reductions graph-breaking to their impls (their lowering entries removed while it
compiles: the compiler before ftrans.compiler._numba_conv), timed in the same run.

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
from ftrans.primitives import conv, window  # noqa: E402

_PRIMS = (conv.conv_general_dilated_p, window.reduce_window_sum_p,
          window.reduce_window_max_p, window.reduce_window_argmax_p)


def compiled_with_breaks(f, *args):
    """``jit(f)`` compiled (on ``args``) with the convolution and the windowed reductions
    graph-breaking."""
    jf = ftrans.jit(lambda *a: f(*a))
    saved = [p.lowering for p in _PRIMS]
    try:
        for p in _PRIMS:
            p.lowering = None
        jf(*args)
    finally:
        for p, low in zip(_PRIMS, saved):
            p.lowering = low
    return jf


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
        bf, bvg = compiled_with_breaks(loss, w, x), compiled_with_breaks(vg, w, x)
        print(dt.__name__, "breaks fwd:", graph_breaks(ftrans.make_ir(loss)(w, x)),
              "grad:", graph_breaks(ftrans.make_ir(vg)(w, x)))
        for a, b in ((jf(w, x), loss(w, x)), (jvg(w, x)[1][0], vg(w, x)[1][0])):
            np.testing.assert_allclose(a, b, rtol=1e-4)
        res = bench({"eager fwd": lambda: loss(w, x), "jit (breaks) fwd": lambda: bf(w, x),
                     "jit fwd": lambda: jf(w, x), "eager fwd+grad": lambda: vg(w, x),
                     "jit (breaks) fwd+grad": lambda: bvg(w, x),
                     "jit fwd+grad": lambda: jvg(w, x)},
                    repeats=15, budget=4.0)
        for label, (med, iqr, *_rest) in res.items():
            print(f"  {dt.__name__:8s} {label:22s} {med * 1e3:8.3f} ms  (iqr {iqr:.0%})")


if __name__ == "__main__":
    main()
