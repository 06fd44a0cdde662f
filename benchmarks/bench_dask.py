"""Logistic-regression gradient on N rows with Dask: ftrans against NumPy and Dask by hand.

For each N (``--rows``, default 1e6 and 4e6; the issue's range 1e6..1e8 with
``--rows 1e6 1e7 1e8 --generate``) and d features (``--features``, default 20), times
the value and gradient of

    L(w) = sum_i softplus(-s_i x_i.w),   grad = X^T (-s * sigmoid(-s X w))

computed by

* **NumPy (1 process)**: the formula by hand on in-memory arrays (only where X fits:
  ``--numpy-max-bytes``, default 4 GB);
* **ftrans (1 process)**: ``ftrans.value_and_grad`` on the same NumPy arrays;
* **ftrans.dask chunks**: ``ftrans.dask.value_and_grad`` -- one task per chunk running
  ftrans on the worker, tree reduction;
* **ftrans graph**: ``ftrans.value_and_grad`` on the Dask arrays, op by op (a lazy
  graph of a few tasks per primitive per chunk);
* **Dask by hand**: the formula written with ``dask.array`` (what a Dask user writes);
* **dask_glm** ``families.Logistic`` value and gradient, when ``dask_glm`` is importable;

each Dask variant on a ``distributed.LocalCluster(processes=True)`` with 1 and 2
workers of one thread (``--workers``).  The data are generated on the workers
(``dask.array.random``) and persisted in their memory, so the timings are gradient
evaluations only; ``--generate`` regenerates the chunks inside every evaluation
instead (data larger than the cluster's memory; the timings then include the random
number generation, the same for every variant).

Prints, per N, the median time per gradient of each implementation (``--repeats``
evaluations after one warm-up), rows per second, and the 2-worker / 1-worker scaling.
Every Dask result is checked against ftrans on NumPy (or against the chunk variant
when NumPy does not fit) to float64 rounding.

    PYTHONPATH=. python benchmarks/bench_dask.py                   # ~2-4 minutes
    PYTHONPATH=. python benchmarks/bench_dask.py --rows 1e6 1e7 1e8 --generate

Timings depend on the machine's load; on a shared machine compare columns of one run.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def chunk_loss(w, X, s):
    import ftrans.numpy as fnp
    return fnp.sum(fnp.logaddexp(0.0, -s * (X @ w)))


def numpy_value_and_grad(w, X, s):
    z = -s * (X @ w)
    return np.sum(np.logaddexp(0.0, z)), X.T @ (-s * (0.5 * (1.0 + np.tanh(0.5 * z))))


def dask_by_hand(w, X, s):
    import dask.array as da
    z = -s * (X @ w)
    return da.logaddexp(0.0, z).sum(), X.T @ (-s * (0.5 * (1.0 + da.tanh(0.5 * z))))


def _data(n, d, chunk_rows):
    """Lazy X (standard normal) and labels s = +-1, generated chunk by chunk."""
    import dask.array as da
    rng = da.random.default_rng(0)
    X = rng.standard_normal((n, d), chunks=(chunk_rows, d))
    s = da.where(rng.random(n, chunks=chunk_rows) < 0.5, 1.0, -1.0)
    return X, s


def _median_time(fn, repeats):
    fn()  # warm-up (imports, numba compilation, scheduler state)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def _fmt(t):
    return f"{t * 1e3:9.1f} ms" if t < 10 else f"{t:9.2f} s "


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=float, nargs="+", default=[1e6, 4e6])
    p.add_argument("--features", type=int, default=20)
    p.add_argument("--chunk-rows", type=int, default=500_000)
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--generate", action="store_true",
                   help="regenerate the data in every evaluation (no persist)")
    p.add_argument("--numpy-max-bytes", type=float, default=4e9)
    args = p.parse_args(argv)

    import dask
    import dask.array as da
    import distributed
    import ftrans
    import ftrans.dask

    try:
        from dask_glm.families import Logistic
    except ImportError:
        Logistic = None

    print(f"python {platform.python_version()}, numpy {np.__version__}, dask "
          f"{dask.__version__}, distributed {distributed.__version__}, "
          f"{os.cpu_count()} CPUs; d = {args.features}, chunks of {args.chunk_rows:,} rows, "
          f"data {'regenerated per evaluation' if args.generate else 'persisted'}; "
          f"dask_glm {'found' if Logistic else 'not installed'}")
    d = args.features
    w = np.linspace(-0.5, 0.5, d)
    results = {}
    for n in (int(r) for r in args.rows):
        print(f"\n=== N = {n:,} rows ({n * d * 8 / 1e9:.2f} GB of float64)")
        rows = {}
        ref = None
        if n * d * 8 <= args.numpy_max_bytes:
            Xn, sn = dask.compute(*_data(n, d, args.chunk_rows))  # the workers' data
            rows["NumPy (1 process)"] = {1: _median_time(
                lambda: numpy_value_and_grad(w, Xn, sn), args.repeats)}
            vg = ftrans.value_and_grad(chunk_loss)
            rows["ftrans (1 process)"] = {1: _median_time(lambda: vg(w, Xn, sn),
                                                          args.repeats)}
            ref = rows["ftrans (1 process)"][1][1]
            del Xn, sn
        for nw in args.workers:
            with distributed.LocalCluster(n_workers=nw, threads_per_worker=1,
                                          processes=True, dashboard_address=":0") as cluster, \
                    distributed.Client(cluster) as client:
                X, s = _data(n, d, args.chunk_rows)
                if not args.generate:
                    X, s = client.persist([X, s])
                    distributed.wait([X, s])
                vg_chunks = ftrans.dask.value_and_grad(chunk_loss, compute=False)
                vg_graph = ftrans.value_and_grad(chunk_loss)
                variants = {
                    "ftrans.dask chunks": lambda: client.compute(vg_chunks(w, X, s)).result(),
                    "ftrans graph": lambda: client.compute(
                        dask.delayed(tuple)(list(vg_graph(w, X, s)))).result(),
                    "Dask by hand": lambda: client.compute(
                        dask.delayed(tuple)(list(dask_by_hand(w, X, s)))).result(),
                }
                if Logistic is not None:
                    def glm():
                        y = (s + 1) / 2
                        return client.compute(dask.delayed(tuple)(
                            [Logistic.pointwise_loss(w, X, y),
                             Logistic.pointwise_gradient(w, X, y)])).result()
                    variants["dask_glm Logistic"] = glm
                for name, fn in variants.items():
                    rows.setdefault(name, {})[nw] = _median_time(fn, args.repeats)
        # correctness: every result against ftrans on NumPy (or the chunk variant)
        base = ref if ref is not None else rows["ftrans.dask chunks"][args.workers[0]][1]
        for name, per in rows.items():
            for nw, (t, out) in per.items():
                if name.startswith("dask_glm"):
                    continue  # dask_glm's loss is scaled differently (y in {0, 1})
                v, g = out
                np.testing.assert_allclose(float(v), float(base[0]), rtol=1e-11)
                np.testing.assert_allclose(np.asarray(g), np.asarray(base[1]), rtol=1e-10,
                                           atol=1e-9 * max(1.0, np.abs(base[1]).max()))
        head = "".join(f"{f'{nw} worker' + ('s' if nw > 1 else ''):>14s}"
                       for nw in args.workers)
        print(f"{'implementation':22s}{head}   rows/s (best)   scaling {args.workers[-1]}/"
              f"{args.workers[0]}")
        for name, per in rows.items():
            cells = "".join(f"{_fmt(per[nw][0]):>14s}" if nw in per else f"{'':>14s}"
                            for nw in args.workers)
            best = min(t for t, _ in per.values())
            sc = ""
            if args.workers[0] in per and args.workers[-1] in per and len(args.workers) > 1:
                sc = f"{per[args.workers[0]][0] / per[args.workers[-1]][0]:.2f}x"
            print(f"{name:22s}{cells}   {n / best / 1e6:8.1f} M      {sc:>8s}")
        results[n] = {k: {nw: t for nw, (t, _) in v.items()} for k, v in rows.items()}
    return results


if __name__ == "__main__":
    main()
