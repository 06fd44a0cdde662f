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
* **ftrans.dask.Objective**: the library's objective (per-example losses, the data
  persisted once, one low-level graph per evaluation on the persisted blocks, the
  parameters sent once, the chunk function a cluster-side future);
* **dask-ml**: one evaluation of ``dask_ml.linear_model.LogisticRegression(solver=
  "lbfgs")``'s objective (``dask_glm``'s ``compute_loss_grad``: the ``Logistic`` family's
  loss and gradient with the parameters scattered, one ``dask.compute``), when dask-ml is
  installed (the ``ref`` extra); skipped with the reason otherwise;

each Dask variant on a ``distributed.LocalCluster(processes=True)`` with 1 and 2
workers of one thread (``--workers``).  The data are generated on the workers
(``dask.array.random``) and persisted in their memory, so the timings are gradient
evaluations only; ``--generate`` regenerates the chunks inside every evaluation
instead (data larger than the cluster's memory; the timings then include the random
number generation, the same for every variant).

Prints, per N, the median time per gradient of each implementation (``--repeats``
evaluations after one warm-up), rows per second, the 2-worker / 1-worker scaling, and
for the per-chunk variants the fixed per-call cost: the wall time of a call minus the
busiest worker's compute time in it (from the scheduler's task stream), median.

Then, on the last worker count, the time per *fit* of the L2-regularized logistic
regression with an intercept (dask-ml's problem: summed loss + ``|beta|^2 / (2 C)``,
C = 1, intercept penalized; L-BFGS-B, ``pgtol`` 1e-4, 100 iterations at most):
``scipy.optimize.minimize`` on the NumPy formula in one process,
``ftrans.dask.minimize`` on an ``Objective``, and ``dask_ml.linear_model.
LogisticRegression(solver="lbfgs")``; median of ``--fit-repeats`` fits, with the number of
evaluations and the largest difference of the coefficients from the NumPy fit.
Every Dask result is checked against ftrans on NumPy (or against the chunk variant
when NumPy does not fit) to float64 rounding.

    PYTHONPATH=. python benchmarks/bench_dask.py                   # ~5 minutes
    PYTHONPATH=. python benchmarks/bench_dask.py --workers 2 --skip graph hand
    PYTHONPATH=. python benchmarks/bench_dask.py --tiny           # the fixed cost alone
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


def per_row(w, X, s):
    import ftrans.numpy as fnp
    return fnp.logaddexp(0.0, -s * (X @ w))


def per_row_intercept(p, X, y01):
    """dask-ml's problem: labels in {0, 1}, an intercept p["b"]."""
    import ftrans.numpy as fnp
    z = X @ p["w"] + p["b"]
    return fnp.logaddexp(0.0, z) - y01 * z


def numpy_fit_value_and_grad(beta, X, y01, lam):
    """By hand: sum softplus(z) - y z + lam/2 |beta|^2, z = X w + b (beta = [w, b])."""
    z = X @ beta[:-1] + beta[-1]
    r = 0.5 * (1.0 + np.tanh(0.5 * z)) - y01
    g = np.append(X.T @ r, r.sum()) + lam * beta
    return np.sum(np.logaddexp(0.0, z) - y01 * z) + 0.5 * lam * beta @ beta, g


def _dask_ml():
    """(dask_glm's Logistic family and algorithms, dask-ml's LogisticRegression) or the
    reason they are not there."""
    try:
        from dask_glm import algorithms
        from dask_glm.families import Logistic
        from dask_ml.linear_model import LogisticRegression
    except ImportError as e:
        return None, f"dask-ml not importable ({e}); pip install dask-ml (the ref extra)"
    return (Logistic, algorithms, LogisticRegression), None


def _overhead(client, fn, repeats, prefixes):
    """Median over calls of (wall time - the busiest worker's compute time in the call)."""
    import distributed
    fn()
    out = []
    for _ in range(repeats):
        with distributed.get_task_stream(client) as ts:
            t0 = time.perf_counter()
            fn()
            wall = time.perf_counter() - t0
        busy = {}
        for rec in ts.data:
            if any(str(rec["key"]).strip("('").startswith(p) for p in prefixes):
                for ss in rec["startstops"]:
                    if ss["action"] == "compute":
                        busy[rec["worker"]] = busy.get(rec["worker"], 0.0) + \
                            ss["stop"] - ss["start"]
        out.append(wall - max(busy.values(), default=0.0))
    return statistics.median(out)


def _tiny(args):
    """The fixed cost alone: 4 chunks of 2,500 rows (microseconds of work per task) on 2
    workers, against Dask's own round trip (one trivial task)."""
    import distributed
    import ftrans.dask

    def t(f):
        f()
        ts = []
        for _ in range(args.repeats * 3):
            t0 = time.perf_counter()
            f()
            ts.append(time.perf_counter() - t0)
        return statistics.median(ts)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        X, s = client.persist(list(_data(10_000, args.features, 2_500)))
        w = np.linspace(-0.5, 0.5, args.features)
        obj = ftrans.dask.Objective(per_row, X, s, reduction="sum", client=client)
        vg = ftrans.dask.value_and_grad(chunk_loss, compute=False)
        print("\n=== fixed cost per call: 10,000 rows in 4 chunks, 2 workers (median)")
        print(f"{'Dask round trip (one trivial task)':40s}"
              f"{_fmt(t(lambda: client.submit(abs, -1.0, pure=False).result()))}")
        print(f"{'ftrans.dask.value_and_grad (delayed)':40s}"
              f"{_fmt(t(lambda: client.compute(vg(w, X, s)).result()))}")
        print(f"{'ftrans.dask Objective':40s}"
              f"{_fmt(t(lambda: obj._run('value_and_grad', w)))}")


def _fmt(t):
    return f"{t * 1e3:9.1f} ms" if t < 10 else f"{t:9.2f} s "


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=float, nargs="+", default=[1e6, 4e6])
    p.add_argument("--features", type=int, default=20)
    p.add_argument("--chunk-rows", type=int, default=500_000)
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--fit-repeats", type=int, default=3)
    p.add_argument("--skip", nargs="*", default=[],
                   choices=["graph", "hand", "chunks", "fit", "dask-ml"],
                   help="leave out variants: graph (op by op), hand (Dask by hand), chunks "
                        "(ftrans.dask.value_and_grad), fit (the per-fit table), dask-ml")
    p.add_argument("--tiny", action="store_true",
                   help="only the fixed cost per call on tiny data (seconds)")
    p.add_argument("--generate", action="store_true",
                   help="regenerate the data in every evaluation (no persist)")
    p.add_argument("--numpy-max-bytes", type=float, default=4e9)
    args = p.parse_args(argv)

    import dask
    import dask.array as da
    import distributed
    import scipy.optimize
    import ftrans
    import ftrans.dask

    dml, why = _dask_ml() if "dask-ml" not in args.skip else (None, "--skip dask-ml")
    print(f"python {platform.python_version()}, numpy {np.__version__}, dask "
          f"{dask.__version__}, distributed {distributed.__version__}, "
          f"{os.cpu_count()} CPUs; d = {args.features}, chunks of {args.chunk_rows:,} rows, "
          f"data {'regenerated per evaluation' if args.generate else 'persisted'}")
    if dml is None:
        print(f"dask-ml comparison skipped: {why}")
    else:
        import dask_ml
        print(f"dask-ml {dask_ml.__version__} (LogisticRegression(solver='lbfgs'), "
              f"dask_glm's Logistic family)")
    if args.tiny:
        return _tiny(args)
    d = args.features
    w = np.linspace(-0.5, 0.5, d)
    results = {}
    for n in (int(r) for r in args.rows):
        print(f"\n=== N = {n:,} rows ({n * d * 8 / 1e9:.2f} GB of float64)")
        rows, overhead, fits = {}, {}, {}
        ref = None
        if n * d * 8 <= args.numpy_max_bytes:
            Xn, sn = dask.compute(*_data(n, d, args.chunk_rows))  # the workers' data
            rows["NumPy (1 process)"] = {1: _median_time(
                lambda: numpy_value_and_grad(w, Xn, sn), args.repeats)}
            vg = ftrans.value_and_grad(chunk_loss)
            rows["ftrans (1 process)"] = {1: _median_time(lambda: vg(w, Xn, sn),
                                                          args.repeats)}
            ref = rows["ftrans (1 process)"][1][1]
            if "fit" not in args.skip:
                y01 = (sn + 1) / 2
                beta0 = np.zeros(d + 1)
                fit = lambda: scipy.optimize.minimize(  # noqa: E731
                    numpy_fit_value_and_grad, beta0, args=(Xn, y01, 1.0), jac=True,
                    method="L-BFGS-B", options={"maxiter": 100, "gtol": 1e-4})
                fits["NumPy + SciPy (1 process)"] = _median_time(fit, args.fit_repeats)
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
                obj = ftrans.dask.Objective(per_row, X, s, reduction="sum", client=client)

                def objective_eval():
                    obj._cache = None  # a new evaluation every time (SciPy never repeats x)
                    return obj.flat_value_and_grad(w)
                variants = {
                    "ftrans.dask Objective": objective_eval,
                    "ftrans.dask chunks": lambda: client.compute(vg_chunks(w, X, s)).result(),
                    "ftrans graph": lambda: client.compute(
                        dask.delayed(tuple)(list(vg_graph(w, X, s)))).result(),
                    "Dask by hand": lambda: client.compute(
                        dask.delayed(tuple)(list(dask_by_hand(w, X, s)))).result(),
                }
                for name, flag in (("ftrans.dask chunks", "chunks"), ("ftrans graph", "graph"),
                                   ("Dask by hand", "hand")):
                    if flag in args.skip:
                        del variants[name]
                if dml is not None:
                    Logistic, algorithms, LogisticRegression = dml
                    X1 = da.concatenate([X, da.ones((n, 1), chunks=(X.chunks[0], 1))],
                                        axis=1)
                    y01 = (s + 1) / 2
                    X1, y01 = client.persist([X1, y01])
                    distributed.wait([X1, y01])
                    w1 = np.append(w, 0.0)
                    keep = []  # the same beta scatters to the same key: keep them alive

                    def dml_eval():
                        # dask_glm.algorithms.lbfgs's compute_loss_grad, as dask-ml runs it
                        with dask.config.set(fuse_ave_width=0):
                            b = algorithms.scatter_array(w1, client)
                            keep.append(b)
                            v, g = dask.compute(Logistic.pointwise_loss(b, X1, y01),
                                                Logistic.pointwise_gradient(b, X1, y01))
                        return v, g
                    variants["dask-ml (one lbfgs evaluation)"] = dml_eval
                for name, fn in variants.items():
                    rows.setdefault(name, {})[nw] = _median_time(fn, args.repeats)
                obj._cache = None
                overhead.setdefault("ftrans.dask Objective", {})[nw] = _overhead(
                    client, lambda: obj._run("value_and_grad", w), args.repeats,
                    ("ftrans-chunk",))
                if "chunks" not in args.skip:
                    overhead.setdefault("ftrans.dask chunks", {})[nw] = _overhead(
                        client, lambda: client.compute(vg_chunks(w, X, s)).result(),
                        args.repeats, ("_chunk_value_and_grad",))
                if "fit" in args.skip or nw != args.workers[-1]:
                    continue
                y01 = (s + 1) / 2
                fobj = ftrans.dask.Objective(per_row_intercept, X, y01, reduction="sum",
                                             penalty=ftrans.dask.l2(1.0), client=client)
                p0 = {"w": np.zeros(d), "b": np.array(0.0)}
                fits[f"ftrans.dask.minimize ({nw} workers)"] = _median_time(
                    lambda: ftrans.dask.minimize(fobj, p0, options={"maxiter": 100,
                                                                    "gtol": 1e-4},
                                                 progress=False), args.fit_repeats)
                if dml is not None:
                    fits[f"dask-ml lbfgs ({nw} workers)"] = _median_time(
                        lambda: LogisticRegression(solver="lbfgs", C=1.0).fit(X, y01),
                        args.fit_repeats)
        # correctness: every result against ftrans on NumPy (or the chunk variant)
        base = ref if ref is not None else rows["ftrans.dask Objective"][args.workers[0]][1]
        for name, per in rows.items():
            for nw, (t, out) in per.items():
                if name.startswith("dask-ml"):
                    continue  # dask-ml's loss is another function (y in {0, 1}, intercept)
                v, g = out
                np.testing.assert_allclose(float(v), float(base[0]), rtol=1e-11)
                np.testing.assert_allclose(np.asarray(g), np.asarray(base[1]), rtol=1e-10,
                                           atol=1e-9 * max(1.0, np.abs(base[1]).max()))
        cols = args.workers if 1 in args.workers else [1] + args.workers
        head = "".join(f"{f'{nw} worker' + ('s' if nw > 1 else ''):>14s}"
                       if nw in args.workers else f"{'1 process':>14s}" for nw in cols)
        print(f"{'time per gradient':30s}{head}   rows/s (best)   scaling {args.workers[-1]}/"
              f"{args.workers[0]}")
        for name, per in rows.items():
            cells = "".join(f"{_fmt(per[nw][0]):>14s}" if nw in per else f"{'':>14s}"
                            for nw in cols)
            best = min(t for t, _ in per.values())
            sc = ""
            if args.workers[0] in per and args.workers[-1] in per and len(args.workers) > 1:
                sc = f"{per[args.workers[0]][0] / per[args.workers[-1]][0]:.2f}x"
            print(f"{name:30s}{cells}   {n / best / 1e6:8.1f} M      {sc:>8s}")
        head = "".join(f"{f'{nw} worker' + ('s' if nw > 1 else ''):>14s}"
                       for nw in args.workers)
        print(f"{'fixed cost per call':30s}{head}   (wall - busiest worker's compute)")
        for name, per in overhead.items():
            cells = "".join(f"{_fmt(per[nw]):>14s}" if nw in per else f"{'':>14s}"
                            for nw in args.workers)
            print(f"{name:30s}{cells}")
        if fits:
            bx = fits.get("NumPy + SciPy (1 process)", (None, None))[1]
            print(f"{'time per fit (median)':30s}{'time':>14s}{'evals':>8s}"
                  f"{'max |coef - NumPy|':>22s}")
            for name, (t, res) in fits.items():
                if hasattr(res, "coef_"):
                    coef, nfev = np.append(res.coef_.ravel(), res.intercept_), "?"
                elif "params" in res:
                    coef, nfev = np.append(res.params["w"], res.params["b"]), res.nfev
                else:
                    coef, nfev = np.asarray(res.x), res.nfev
                diff = "" if bx is None else f"{np.abs(coef - bx.x).max():.1e}"
                print(f"{name:30s}{_fmt(t):>14s}{nfev!s:>8s}{diff:>22s}")
        results[n] = {k: {nw: t for nw, (t, _) in v.items()} for k, v in rows.items()}
        results[n]["overhead"] = overhead
        results[n]["fits"] = {k: t for k, (t, _) in fits.items()}
    return results


if __name__ == "__main__":
    main()
