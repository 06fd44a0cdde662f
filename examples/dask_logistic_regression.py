"""L2-regularized logistic regression on a Dask cluster, every loss and gradient by ftrans.

The data set is generated chunk by chunk on the workers (``dask.array.random``) and is
never held in one place: with the defaults (40 million rows x 20 features, 6.4 GB of
float64) it is persisted across the workers' memory (2 workers x 6 GiB
``memory_limit`` on a 24 GiB, 2-core machine), once; no evaluation regenerates it.

The whole fit is the library's::

    obj = ftrans.dask.Objective(per_row, X, s, reduction="mean",
                                penalty=ftrans.dask.l2(lam, select=lambda p: p["w"]))
    res = ftrans.dask.minimize(obj, {"w": np.zeros(d), "b": np.array(0.0)})

    loss(w, b) = 1/N sum_i softplus(-s_i (x_i.w + b)) + lam/2 |w|^2,   s_i = +-1

``per_row`` returns the loss of every row of a chunk; the Objective averages them over
all the rows (each evaluation one Dask graph, one task per chunk), and ``minimize`` runs
``scipy.optimize.minimize(method="L-BFGS-B")`` with the gradient, printing its progress
(``--quiet`` for none).

Prints the time per gradient, the fitted accuracy on the whole data set, and checks
the cluster's gradient against a NumPy computation on a subsample (exit status 1 if
they differ by more than float64 rounding).

    python examples/dask_logistic_regression.py                    # full size
    python examples/dask_logistic_regression.py --rows 200000 --chunk-rows 50000 \\
        --memory-limit 1GiB --maxiter 15 --quiet                   # CI size, seconds
    python examples/dask_logistic_regression.py --scheduler-address tcp://host:8786

On a real cluster (dask-jobqueue, Kubernetes, ``dask scheduler`` + ``dask worker``)
pass the scheduler's address: the script and the workers need ftrans installed, and
the workers generate their chunks themselves (see ``docs/guide/dask.md``).
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=40_000_000, help="rows N (default 4e7)")
    p.add_argument("--features", type=int, default=20, help="features d (default 20)")
    p.add_argument("--chunk-rows", type=int, default=1_000_000,
                   help="rows per chunk (default 1e6: 160 MB per chunk of X)")
    p.add_argument("--workers", type=int, default=2, help="LocalCluster workers (default 2)")
    p.add_argument("--threads-per-worker", type=int, default=1)
    p.add_argument("--memory-limit", default="6GiB",
                   help="LocalCluster memory_limit per worker (default 6GiB)")
    p.add_argument("--threads", action="store_true",
                   help="LocalCluster workers as threads of this process (processes=False; "
                        "--memory-limit is then ignored: in-process workers would measure "
                        "the memory of the whole process, not their own)")
    p.add_argument("--scheduler-address", default=None,
                   help="connect to this Dask scheduler instead of starting a LocalCluster")
    p.add_argument("--lam", type=float, default=1e-3, help="L2 weight (default 1e-3)")
    p.add_argument("--maxiter", type=int, default=30, help="L-BFGS-B iterations (default 30)")
    p.add_argument("--check-rows", type=int, default=20_000,
                   help="subsample for the NumPy gradient check (default 2e4)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--quiet", "--no-progress", action="store_true",
                   help="no progress lines during the fit")
    return p.parse_args(argv)


def make_data(n, d, chunk_rows, seed):
    """Lazy ``(X, s)``: X standard normal, labels ``s = sign(X w_true + noise)``, all
    generated on the workers from per-chunk random streams."""
    import dask.array as da
    rng = da.random.default_rng(seed)
    X = rng.standard_normal((n, d), chunks=(chunk_rows, d))
    w_true = np.random.default_rng(seed + 1).standard_normal(d) / np.sqrt(d) * 3.0
    noise = rng.logistic(size=n, chunks=chunk_rows)
    s = da.where(X @ w_true + noise > 0, 1.0, -1.0)
    return X, s, w_true


def per_row(p, X, s):
    """The loss of each row: softplus(-s (x.w + b)) = log(1 + exp(-s (x.w + b)))."""
    import ftrans.numpy as fnp
    return fnp.logaddexp(0.0, -s * (X @ p["w"] + p["b"]))


def objective(X, s, lam, client=None):
    """The mean loss over the rows plus lam/2 |w|^2 (the intercept is not penalized)."""
    import ftrans.dask
    return ftrans.dask.Objective(per_row, X, s, reduction="mean", client=client,
                                 penalty=ftrans.dask.l2(lam, select=lambda p: p["w"]))


def numpy_loss_grad(beta, X, s, n, lam):
    """The objective and its gradient by hand in NumPy (the reference), beta = [w, b]:
    d/dz softplus(-s z) = -s sigmoid(-s z)."""
    w, b = beta[:-1], beta[-1]
    z = -s * (X @ w + b)
    loss = np.sum(np.logaddexp(0.0, z)) / n + 0.5 * lam * w @ w
    r = -s * 0.5 * (1.0 + np.tanh(0.5 * z)) / n  # sigmoid(z), stable
    return loss, np.append(X.T @ r + lam * w, r.sum())


def main(argv=None):
    args = parse_args(argv)
    import dask
    import distributed
    import ftrans.dask

    if args.scheduler_address:
        client = distributed.Client(args.scheduler_address)
        cluster = None
    else:
        cluster = distributed.LocalCluster(
            n_workers=args.workers, threads_per_worker=args.threads_per_worker,
            # threads share this process: a per-worker limit would compare the whole
            # process's memory with it and pause the workers once the process is large
            memory_limit=0 if args.threads else args.memory_limit,
            processes=not args.threads,
            dashboard_address=":0")
        client = distributed.Client(cluster)
    try:
        info = client.scheduler_info()
        workers = info["workers"]
        limits = [w.get("memory_limit", 0) for w in workers.values()]
        X, s, w_true = make_data(args.rows, args.features, args.chunk_rows, args.seed)
        nbytes = X.nbytes + s.nbytes
        print(f"cluster: {len(workers)} workers, memory_limit "
              f"{dask.utils.format_bytes(min(limits)) if limits else '?'} each")
        print(f"data: {args.rows:,} rows x {args.features} features, "
              f"{dask.utils.format_bytes(nbytes)} in {X.numblocks[0]} chunks, generated on "
              f"the workers and persisted there; larger than one worker's memory_limit: "
              f"{bool(limits) and min(limits) > 0 and nbytes > min(limits)}")
        t0 = time.perf_counter()
        obj = objective(X, s, args.lam, client)  # persists X and s on the workers, once
        print(f"persisted in {time.perf_counter() - t0:.1f} s: {obj.n_chunks} chunks")

        # 1. the cluster's gradient against NumPy on a subsample
        m = min(args.check_rows, args.rows)
        rng = np.random.default_rng(args.seed + 2)
        p0 = {"w": rng.standard_normal(args.features) * 0.1, "b": np.array(0.1)}
        Xs, ss = X[:m], s[:m]
        v_c, g_c = objective(Xs, ss, args.lam, client).value_and_grad(p0)
        g_c = np.append(g_c["w"], g_c["b"])
        Xn, sn = client.compute([Xs, ss], sync=True)
        ref_loss, ref_grad = numpy_loss_grad(np.append(p0["w"], p0["b"]), Xn, sn, m,
                                             args.lam)
        err = np.max(np.abs(g_c - ref_grad)) / max(np.max(np.abs(ref_grad)), 1e-300)
        loss_err = abs(v_c - ref_loss) / abs(ref_loss)
        ok = err < 1e-10 and loss_err < 1e-12
        print(f"gradient check on {m:,} rows against NumPy: max relative error "
              f"{err:.2e} (loss {loss_err:.2e}): {'OK' if ok else 'WRONG'}")
        if not ok:
            return 1

        # 2. the fit: every loss and gradient by ftrans on the cluster
        res = ftrans.dask.minimize(obj, {"w": np.zeros(args.features), "b": np.array(0.0)},
                                   method="L-BFGS-B", options={"maxiter": args.maxiter},
                                   progress=not args.quiet)
        print(f"L-BFGS-B: {res.message} after {res.nit} iterations, {res.nfev} evaluations "
              f"in {res.seconds:.1f} s")
        per = obj.seconds / obj.evaluations
        print(f"time per gradient: {per:.3f} s ({args.rows / per / 1e6:.1f} M rows/s)")

        # 3. accuracy on the whole data set, on the cluster
        w, b = res.params["w"], float(res.params["b"])
        acc, acc_true = client.compute([((X @ w + b > 0) == (s > 0)).mean(),
                                        ((X @ w_true > 0) == (s > 0)).mean()], sync=True)
        print(f"fitted accuracy: {float(acc):.4f} (the generating weights: "
              f"{float(acc_true):.4f})")
        cos = w @ w_true / np.linalg.norm(w) / np.linalg.norm(w_true)
        print(f"cosine(fitted w, generating w) = {cos:.4f}, intercept {b:.4f}")
        return 0
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


if __name__ == "__main__":
    sys.exit(main())
