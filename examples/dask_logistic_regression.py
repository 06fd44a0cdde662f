"""L2-regularized logistic regression on a Dask cluster, every loss and gradient by ftrans.

The data set is generated chunk by chunk on the workers (``dask.array.random``) and is
never held in one place: with the defaults (40 million rows x 20 features, 6.4 GB of
float64) it is larger than one worker's ``memory_limit`` (2 workers x 4 GiB on a 24 GiB,
2-core machine).  Nothing is persisted: each loss evaluation regenerates the chunks
from the seed, so memory stays at a few chunks per worker.

The fit is ``scipy.optimize.minimize(method="L-BFGS-B", jac=True)``; each call of the
objective runs ``ftrans.dask.value_and_grad`` (one task per chunk computing the
chunk's loss and gradient with ftrans, then a tree reduction) on the cluster, or with
``--mode graph`` ``ftrans.value_and_grad`` directly on the Dask arrays (a lazy graph
of one task per primitive per chunk).

    loss(w) = 1/N sum_i softplus(-s_i x_i.w) + lam/2 |w|^2,   s_i = +-1

Prints the time per gradient, the fitted accuracy on the whole data set, and checks
the cluster's gradient against a NumPy computation on a subsample (exit status 1 if
they differ by more than float64 rounding).

    python examples/dask_logistic_regression.py                    # full size
    python examples/dask_logistic_regression.py --rows 200000 --chunk-rows 50000 \\
        --memory-limit 1GiB --maxiter 15                         # CI size, seconds
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
    p.add_argument("--memory-limit", default="4GiB",
                   help="LocalCluster memory_limit per worker (default 4GiB)")
    p.add_argument("--threads", action="store_true",
                   help="LocalCluster workers as threads of this process (processes=False; "
                        "--memory-limit is then ignored: in-process workers would measure "
                        "the memory of the whole process, not their own)")
    p.add_argument("--scheduler-address", default=None,
                   help="connect to this Dask scheduler instead of starting a LocalCluster")
    p.add_argument("--mode", choices=("chunks", "graph"), default="chunks",
                   help="chunks: ftrans.dask.value_and_grad (per-chunk tasks, default); "
                        "graph: ftrans.value_and_grad on the Dask arrays (op by op)")
    p.add_argument("--lam", type=float, default=1e-3, help="L2 weight (default 1e-3)")
    p.add_argument("--maxiter", type=int, default=30, help="L-BFGS-B iterations (default 30)")
    p.add_argument("--check-rows", type=int, default=20_000,
                   help="subsample for the NumPy gradient check (default 2e4)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-progress", action="store_true", help="no Dask progress bars")
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


def chunk_loss(w, X, s):
    """Sum over the rows of one chunk of softplus(-s x.w) = log(1 + exp(-s x.w))."""
    import ftrans.numpy as fnp
    return fnp.sum(fnp.logaddexp(0.0, -s * (X @ w)))


def numpy_loss_grad(w, X, s, n, lam):
    """The objective and its gradient by hand in NumPy (the reference):
    d/dw softplus(-s z) = -s sigmoid(-s z) x."""
    z = -s * (X @ w)
    loss = np.sum(np.logaddexp(0.0, z)) / n + 0.5 * lam * w @ w
    sig = 0.5 * (1.0 + np.tanh(0.5 * z))  # sigmoid(z), stable
    grad = X.T @ (-s * sig) / n + lam * w
    return loss, grad


class Objective:
    """``w -> (loss, grad)`` for scipy, evaluated on the cluster; records timings."""

    def __init__(self, client, X, s, lam, mode, progress):
        import ftrans
        import ftrans.dask
        self.client, self.X, self.s, self.lam = client, X, s, lam
        self.n = X.shape[0]
        self.mode, self.progress = mode, progress
        self.times = []
        if mode == "chunks":
            self._vg = ftrans.dask.value_and_grad(chunk_loss, compute=False)
        else:
            self._vg = ftrans.value_and_grad(chunk_loss)

    def raw(self, w, X=None, s=None):
        """Sum of the loss and its gradient over the rows of (X, s), on the cluster."""
        import dask
        X = self.X if X is None else X
        s = self.s if s is None else s
        if self.mode == "chunks":
            fut = self.client.compute(self._vg(w, X, s))
        else:
            v, g = self._vg(w, X, s)  # lazy Dask arrays
            fut = self.client.compute(dask.delayed(tuple)([v, g]))
        if self.progress:
            from distributed import progress
            progress(fut)
            print(file=sys.stderr)
        v, g = fut.result()
        return float(v), np.asarray(g)

    def __call__(self, w):
        t0 = time.perf_counter()
        v, g = self.raw(w)
        self.times.append(time.perf_counter() - t0)
        self.progress = False  # one bar (the first evaluation) is enough
        loss = v / self.n + 0.5 * self.lam * float(w @ w)
        grad = g / self.n + self.lam * w
        print(f"  eval {len(self.times):3d}: loss {loss:.10f}  |grad| "
              f"{np.linalg.norm(grad):.3e}  {self.times[-1]:.2f} s", flush=True)
        return loss, grad


def main(argv=None):
    args = parse_args(argv)
    import dask
    import distributed
    from scipy.optimize import minimize

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
              f"the workers; larger than one worker's memory_limit: "
              f"{bool(limits) and nbytes > min(limits)}")
        obj = Objective(client, X, s, args.lam, args.mode, not args.no_progress)

        # 1. the cluster's gradient against NumPy on a subsample
        m = min(args.check_rows, args.rows)
        w0 = np.random.default_rng(args.seed + 2).standard_normal(args.features) * 0.1
        Xs, ss = X[:m], s[:m]
        v_c, g_c = obj.raw(w0, Xs, ss)
        Xn, sn = dask.compute(Xs, ss)
        ref_loss, ref_grad = numpy_loss_grad(w0, Xn, sn, m, 0.0)
        err = np.max(np.abs(g_c / m - ref_grad)) / max(np.max(np.abs(ref_grad)), 1e-300)
        loss_err = abs(v_c / m - ref_loss) / abs(ref_loss)
        ok = err < 1e-10 and loss_err < 1e-12
        print(f"gradient check on {m:,} rows against NumPy: max relative error "
              f"{err:.2e} (loss {loss_err:.2e}): {'OK' if ok else 'WRONG'}")
        if not ok:
            return 1

        # 2. the fit
        print(f"L-BFGS-B, every loss and gradient by ftrans ({args.mode} mode) on the "
              "cluster:")
        t0 = time.perf_counter()
        res = minimize(obj, np.zeros(args.features), jac=True, method="L-BFGS-B",
                       options={"maxiter": args.maxiter})
        wall = time.perf_counter() - t0
        times = np.array(obj.times)
        print(f"{res.message} after {res.nit} iterations, {len(times)} evaluations in "
              f"{wall:.1f} s")
        print(f"time per gradient: median {np.median(times):.2f} s, min {times.min():.2f} s "
              f"({args.rows / np.median(times) / 1e6:.1f} M rows/s)")

        # 3. accuracy on the whole data set, on the cluster
        acc = client.compute(((X @ res.x > 0) == (s > 0)).mean()).result()
        acc_true = client.compute(((X @ w_true > 0) == (s > 0)).mean()).result()
        print(f"fitted accuracy: {float(acc):.4f} (the generating weights: "
              f"{float(acc_true):.4f})")
        cos = res.x @ w_true / np.linalg.norm(res.x) / np.linalg.norm(w_true)
        print(f"cosine(fitted w, generating w) = {cos:.4f}")
        return 0
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


if __name__ == "__main__":
    sys.exit(main())
