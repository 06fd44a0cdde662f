"""Fused vs composed eager paths of ``ftrans.nn`` on the digits CNN's shapes.

    OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/bench_nn_fused.py [--repeat 30]

For each operation, ``ftrans.value_and_grad`` of ``sum(f(*args) * w)`` (forward +
backward, float32, batch 64 of 1x8x8 images as in ``examples/digits_cnn.py``) is timed
with the fused kernels (the default) and inside ``ftrans.nn.fused_kernels(False)`` (the
same functions' compositions of primitives).  Prints the median and best CPU time
(``time.process_time``) of each and the ratio composed / fused.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import ftrans
import ftrans.nn as fnn
import ftrans.numpy as fnp

R = np.random.default_rng(0)
F32 = np.float32


def _arr(*shape):
    return R.standard_normal(shape).astype(F32)


LABELS = R.integers(0, 10, 64)
WORKLOADS = {
    "conv 1->16 (64,1,8,8)": (lambda x, w: fnn.conv(x, w, padding=1), (_arr(64, 1, 8, 8),
                                                                       _arr(16, 1, 3, 3))),
    "conv 16->32 (64,16,4,4)": (lambda x, w: fnn.conv(x, w, padding=1),
                                (_arr(64, 16, 4, 4), _arr(32, 16, 3, 3))),
    "max_pool 2 (64,16,8,8)": (lambda x: fnn.max_pool(x, 2), (_arr(64, 16, 8, 8),)),
    "max_pool 2 (64,32,4,4)": (lambda x: fnn.max_pool(x, 2), (_arr(64, 32, 4, 4),)),
    "batch_norm (64,16,8,8)": (lambda x, w, b: fnn.batch_norm(x, None, None, w, b,
                                                              training=True)[0],
                               (_arr(64, 16, 8, 8), _arr(16), _arr(16))),
    "batch_norm (64,32,4,4)": (lambda x, w, b: fnn.batch_norm(x, None, None, w, b,
                                                              training=True)[0],
                               (_arr(64, 32, 4, 4), _arr(32), _arr(32))),
    "cross_entropy (64,10)": (lambda x: fnn.cross_entropy(x, LABELS), (_arr(64, 10),)),
    "relu (64,16,8,8)": (fnn.relu, (_arr(64, 16, 8, 8),)),
    "log_softmax (64,10)": (fnn.log_softmax, (_arr(64, 10),)),
}


def _median_best(fn, repeat):
    fn()
    fn()
    ts = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        ts.append(time.process_time() - t)
    return float(np.median(ts)), float(np.min(ts))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=30)
    a = ap.parse_args()
    print(f"{'workload':28s} {'fused med/best (us)':>22s} {'composed med/best (us)':>24s} "
          f"{'ratio':>6s}")
    for name, (f, args) in WORKLOADS.items():
        w = R.standard_normal(np.shape(f(*args))).astype(F32)
        vg = ftrans.value_and_grad(lambda *a: fnp.sum(f(*a) * w), argnums=tuple(range(len(args))))
        fused = _median_best(lambda: vg(*args), a.repeat)
        with fnn.fused_kernels(False):
            comp = _median_best(lambda: vg(*args), a.repeat)
        print(f"{name:28s} {fused[0] * 1e6:10.0f} /{fused[1] * 1e6:9.0f} "
              f"{comp[0] * 1e6:12.0f} /{comp[1] * 1e6:9.0f} {comp[0] / fused[0]:6.2f}")


if __name__ == "__main__":
    main()
