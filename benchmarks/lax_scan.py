"""An RNN recurrence (200 steps, 32 units) as a Python loop, as ``ftrans.lax.scan`` and as
``ftrans.jit`` of the scan: forward, and ``grad`` (a reverse scan over stacked residuals).

    python benchmarks/lax_scan.py

Prints the best of 5 runs in milliseconds (after one warm-up call: staging and, with the
numba compiler, compilation are not timed).
"""
import time

import numpy as np

import ftrans
import ftrans.numpy as fnp
from ftrans import lax

rng = np.random.default_rng(0)
W = rng.normal(size=(32, 32)) * 0.1
XS = rng.normal(size=(200, 32))


def step(h, x):
    return fnp.tanh(W @ h + x), None


def f_scan(h0):
    return fnp.sum(lax.scan(step, h0, XS)[0])


def f_loop(h0):
    h = h0
    for x in XS:
        h = step(h, x)[0]
    return fnp.sum(h)


def best_ms(f, *args, n=5):
    f(*args)
    best = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        f(*args)
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def main():
    h0 = np.zeros(32)
    g_loop, g_scan = ftrans.grad(f_loop), ftrans.grad(f_scan)
    np.testing.assert_allclose(g_loop(h0), g_scan(h0), rtol=1e-12)
    print(f"{'':8}{'python loop':>14}{'lax.scan':>12}{'jit':>12}")
    print(f"{'forward':8}{best_ms(f_loop, h0):12.2f}ms{best_ms(f_scan, h0):10.2f}ms"
          f"{best_ms(ftrans.jit(f_scan), h0):10.2f}ms")
    print(f"{'grad':8}{best_ms(g_loop, h0):12.2f}ms{best_ms(g_scan, h0):10.2f}ms"
          f"{best_ms(ftrans.jit(g_scan), h0):10.2f}ms")


if __name__ == "__main__":
    main()
