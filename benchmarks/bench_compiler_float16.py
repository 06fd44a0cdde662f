"""float16 under ``jit``: the compiled loop computes in float32 and rounds each result to
float16 (F16C), and the segment takes float32 copies of its float16 inputs and returns
float16 copies (numba has no float16 on the CPU).  Prints the median time (ms) of one
program under ``jit`` in float16 and float32 and eagerly in both, and the time of the
boundary's three copies alone.

Run: ``PYTHONPATH=. python benchmarks/bench_compiler_float16.py``
"""
import time

import numpy as np

import ftrans
import ftrans.numpy as fnp


def f(x, y):
    return (x * y + 0.5) * y - fnp.sqrt(fnp.abs(x)) + fnp.log1p(fnp.abs(y))


def median_ms(fn, *args, n=15):
    fn(*args)
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        fn(*args)
        ts.append(time.perf_counter() - t)
    return 1e3 * float(np.median(ts))


def main():
    rng = np.random.default_rng(0)
    jf = ftrans.jit(f)
    for n in (10_000, 1_000_000, 4_000_000):
        x32 = rng.standard_normal(n).astype(np.float32)
        y32 = rng.standard_normal(n).astype(np.float32)
        x16, y16 = x32.astype(np.float16), y32.astype(np.float16)
        copies = median_ms(lambda a, b: (a.astype(np.float32), b.astype(np.float32),
                                         a.astype(np.float32).astype(np.float16)), x16, y16)
        print(f"n={n:>8}: jit f16 {median_ms(jf, x16, y16):8.3f}  jit f32 "
              f"{median_ms(jf, x32, y32):8.3f}  eager f16 {median_ms(f, x16, y16):8.3f}  "
              f"eager f32 {median_ms(f, x32, y32):8.3f}  (boundary copies {copies:7.3f})")


if __name__ == "__main__":
    main()
