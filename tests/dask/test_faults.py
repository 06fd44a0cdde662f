"""Faults on a Dask cluster: a worker killed in the middle of a gradient evaluation,
and a worker memory limit below the data size.  Dask recomputes or spills; the
gradient is still exactly right.

The one module of the suite with worker processes (LocalCluster(processes=True)).
"""
import os
import signal
import time

import numpy as np
import pytest

import ftrans
import ftrans.dask
import ftrans.numpy as fnp

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

N, D, CHUNK = 40_000, 8, 5_000


def _slow_chunk_loss(w, X, s):
    """softplus(-s x.w) summed over a chunk, after a pause: the chunk tasks are still
    running when the test kills a worker."""
    time.sleep(0.1)
    return fnp.sum(fnp.logaddexp(0.0, -s * (X @ w)))


def _chunk_loss(w, X, s):
    return fnp.sum(fnp.logaddexp(0.0, -s * (X @ w)))


def _data(seed=0):
    rng = da.random.default_rng(seed)
    X = rng.standard_normal((N, D), chunks=(CHUNK, D))
    s = da.where(rng.random(N, chunks=CHUNK) < 0.5, 1.0, -1.0)
    return X, s


def _numpy_grad(w, X, s):
    """Independent reference: d/dw sum softplus(-s x.w) = X^T (-s sigmoid(-s x.w))."""
    z = -s * (X @ w)
    return np.sum(np.logaddexp(0.0, z)), X.T @ (-s * 0.5 * (1.0 + np.tanh(0.5 * z)))


@pytest.fixture(scope="module")
def process_client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", memory_limit="2GiB") as cluster, \
            distributed.Client(cluster) as c:
        yield c


def test_worker_killed_mid_gradient_is_rescheduled_and_exact(process_client):
    client = process_client
    X, s = _data()
    w = np.linspace(-0.4, 0.4, D)
    vg = ftrans.dask.value_and_grad(_slow_chunk_loss, compute=False)
    # the same computation without a fault (also warms the workers' imports)
    v0, g0 = client.compute(vg(w, X, s)).result()
    pids = client.run(os.getpid)
    fut = client.compute(vg(w, X, s))
    deadline = time.monotonic() + 30
    victim = None
    while victim is None and time.monotonic() < deadline:
        busy = {addr: tasks for addr, tasks in client.processing().items() if tasks}
        if len(busy) == 2:  # both workers are in the middle of chunk tasks
            victim = next(iter(busy))
        else:
            time.sleep(0.02)
    assert victim is not None, "the chunk tasks never started"
    assert not fut.done()
    os.kill(pids[victim], signal.SIGKILL)
    v, g = fut.result(timeout=60)
    # the worker really died (its nanny started a new process under a new address)
    assert victim not in client.scheduler_info()["workers"]
    # bitwise the fault-free result: the reduction tree fixes the order of the sums
    assert float(v) == float(v0)
    np.testing.assert_array_equal(g, g0)
    Xn, sn = client.compute([X, s], sync=True)
    v_ref, g_ref = _numpy_grad(w, Xn, sn)
    np.testing.assert_allclose(g, g_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(v, v_ref, rtol=1e-13)


def test_memory_limit_spills_chunks_instead_of_failing(tmp_path):
    """One worker whose managed-memory target is far below the persisted data: the
    chunks go to disk (the worker's spill buffer), the gradient still comes out."""
    import dask
    X, s = _data(seed=1)
    nbytes = X.nbytes + s.nbytes  # 2.9 MB
    w = np.full(D, 0.1)
    # spill to disk above 60% of the limit in managed memory (the data's own bytes);
    # the process-wide monitors (spill/pause/terminate on RSS) are off: with
    # processes=False the RSS is the test runner's, not the worker's
    with dask.config.set({"distributed.worker.memory.target": 0.6,
                          "distributed.worker.memory.spill": False,
                          "distributed.worker.memory.pause": False,
                          "distributed.worker.memory.terminate": False}):
        with distributed.LocalCluster(
                n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
                memory_limit="1MiB", local_directory=str(tmp_path)) as cluster, \
                distributed.Client(cluster) as client:
            worker = next(iter(cluster.workers.values()))
            data = worker.data  # the worker's SpillBuffer: .fast in memory, .slow on disk
            Xp, sp = client.persist([X, s])
            distributed.wait([Xp, sp])
            assert nbytes > worker.memory_manager.memory_limit
            assert len(data.slow) > 0, "nothing was spilled to disk"
            assert len(data.fast) < len(data), "every chunk stayed in memory"
            v, g = ftrans.dask.value_and_grad(_chunk_loss)(w, Xp, sp)
            Xn, sn = client.compute([Xp, sp], sync=True)
    v_ref, g_ref = _numpy_grad(w, Xn, sn)
    np.testing.assert_allclose(g, g_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(v, v_ref, rtol=1e-13)


def _slow_per_row(w, X, s):
    """softplus(-s x.w) per row, after a pause (the chunk tasks are running when the
    test kills a worker)."""
    time.sleep(0.05)
    return fnp.logaddexp(0.0, -s * (X @ w))


def test_worker_killed_mid_fit_gives_the_fault_free_fit(process_client):
    """ftrans.dask.minimize with a worker killed during an evaluation in the middle of
    the fit: the persisted chunks and the cluster-side kernel it held are recomputed,
    and the fit is bitwise the fault-free one."""
    import threading
    client = process_client
    X, s = _data(seed=2)
    obj = ftrans.dask.Objective(_slow_per_row, X, s, penalty=ftrans.dask.l2(1e-2))
    opts = {"maxiter": 6}
    ref = ftrans.dask.minimize(obj, np.zeros(D), options=opts, progress=False)
    pids = client.run(os.getpid)
    killed = []

    def killer():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            busy = [a for a, t in client.processing().items() if t]
            if obj.evaluations >= ref.nfev + 3 and len(busy) == 2:
                os.kill(pids[busy[0]], signal.SIGKILL)
                killed.append(busy[0])
                return
            time.sleep(0.01)
    t = threading.Thread(target=killer)
    t.start()
    res = ftrans.dask.minimize(obj, np.zeros(D), options=opts, progress=False)
    t.join()
    assert killed, "no evaluation was in flight on both workers"
    assert killed[0] not in client.scheduler_info()["workers"]
    np.testing.assert_array_equal(res.x, ref.x)
    assert res.fun == ref.fun and res.nfev == ref.nfev
