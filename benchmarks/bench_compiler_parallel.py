"""Where does a fused compiled loop gain from numba's thread pool?

    PYTHONPATH=. python benchmarks/bench_compiler_parallel.py

Compiles the gradient of W5's function (``sum(sin(x) * exp(-x*x))``: one fused loop with
sin, cos, exp and six multiplications per element) twice, once with every loop serial and
once with every loop a ``prange``, and prints the median time of each over sizes 2**12 ..
2**22, with the CPU share other processes used meanwhile.  The crossover sets
``ftrans.compiler._numba.PARALLEL_MIN_SIZE``.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import ftrans  # noqa: E402
import ftrans.numpy as fnp  # noqa: E402
from ftrans.core.ir import stage, dce  # noqa: E402
from ftrans.compiler import _numba  # noqa: E402
from ftrans.compiler._plan import plan  # noqa: E402


def _fn(ir, parallel_min):
    seg = plan(dce(ir), _numba.lowerable)[0]
    src = _numba.generate(seg, "f", parallel_min=parallel_min)[0]
    return getattr(_numba.load(_numba.module_source([src])), "f"), seg


def _median(f, n):
    ts = []
    for _ in range(max(5, int(0.3 / max(n, 1e-9)))):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return float(np.median(ts))


def main():
    g = ftrans.grad(lambda x: fnp.sum(fnp.sin(x) * fnp.exp(-x * x)))
    print(f"{'n':>9} {'serial':>10} {'prange':>10} {'prange/serial':>14}  others' CPU")
    for k in range(12, 23):
        n = 2 ** k
        x = np.random.default_rng(0).uniform(-3, 3, n)
        ir, _ = stage(g, [x])
        fs, seg = _fn(ir, 1 << 62)
        fp, _ = _fn(ir, 0)
        args = [x if v.aval.shape else np.float64(1.0) for v in seg.inputs]
        fs(*args)
        fp(*args)
        from benchmarks.run import _cpu_snapshot, _busy_others
        a = _cpu_snapshot()
        ts = _median(lambda: fs(*args), n * 1e-8)
        tp = _median(lambda: fp(*args), n * 1e-8)
        busy = _busy_others(a, _cpu_snapshot())
        print(f"{n:>9} {ts * 1e3:9.3f}ms {tp * 1e3:9.3f}ms {tp / ts:13.2f}x  "
              f"{'?' if busy is None else format(busy * 100, '.0f') + '%'}")


if __name__ == "__main__":
    main()
