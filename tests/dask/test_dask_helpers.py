"""ftrans.dask.value_and_grad / grad: per-chunk value and gradient, tree reduction."""
import numpy as np
import pytest

import ftrans
import ftrans.dask
import ftrans.numpy as fnp

da = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")


def _data(n=1000, d=3, chunks=100, seed=0):
    rng = np.random.default_rng(seed)
    Xn = rng.standard_normal((n, d))
    sn = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    return Xn, sn, da.from_array(Xn, chunks=(chunks, d)), da.from_array(sn, chunks=chunks)


def loss(w, X, s):
    return fnp.sum(fnp.logaddexp(0.0, -s * (X @ w)))


def _ref(w, Xn, sn):
    """Independent NumPy reference: sum softplus(-s x.w) and X^T (-s sigmoid(-s x.w))."""
    z = -sn * (Xn @ w)
    return np.sum(np.logaddexp(0.0, z)), Xn.T @ (-sn / (1.0 + np.exp(-z)))


def test_value_and_grad_on_the_cluster_equals_numpy(client):
    Xn, sn, X, s = _data()
    w = np.array([0.3, -0.2, 0.5])
    v, g = ftrans.dask.value_and_grad(loss)(w, X, s)
    assert isinstance(g, np.ndarray) and g.shape == w.shape and g.dtype == w.dtype
    v_ref, g_ref = _ref(w, Xn, sn)
    np.testing.assert_allclose(v, v_ref, rtol=1e-13)
    np.testing.assert_allclose(g, g_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ftrans.dask.grad(loss)(w, X, s), g, rtol=0, atol=0)


def test_one_task_per_chunk_and_a_tree_reduction():
    _, _, X, s = _data(n=1000, chunks=50)  # 20 chunks
    w = np.zeros(3)
    out = ftrans.dask.value_and_grad(loss, split_every=4, compute=False)(w, X, s)
    graph = dict(out.__dask_graph__())
    chunk_tasks = [k for k in graph if str(k).startswith("_chunk_value_and_grad")]
    reduce_tasks = [k for k in graph if str(k).startswith("_sum_parts")]
    assert len(chunk_tasks) == 20
    assert len(reduce_tasks) == 5 + 2 + 1  # 20 -> 5 -> 2 -> 1


def test_pytree_parameters_argnums_and_misaligned_chunks():
    Xn, sn, _, _ = _data(n=600)
    X = da.from_array(Xn, chunks=(150, 1))  # rechunked to one column chunk
    s = da.from_array(sn, chunks=200)       # aligned to X's row chunks
    params = {"w": np.array([0.1, 0.2, -0.3]), "b": np.array(0.05)}

    def f(p, X, s, scale):
        return scale * fnp.sum(fnp.logaddexp(0.0, -s * (X @ p["w"] + p["b"])))

    v, (gp, gscale) = ftrans.dask.value_and_grad(f, argnums=(0, 3))(params, X, s, 2.0)
    v_ref, (gp_ref, gscale_ref) = ftrans.value_and_grad(f, argnums=(0, 3))(params, Xn, sn,
                                                                           2.0)
    np.testing.assert_allclose(v, v_ref, rtol=1e-13)
    for k in ("w", "b"):
        np.testing.assert_allclose(gp[k], gp_ref[k], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gscale, gscale_ref, rtol=1e-12)


def test_delayed_result_is_lazy():
    from dask.callbacks import Callback
    _, _, X, s = _data()
    starts = []
    with dask.config.set(scheduler="sync"), Callback(start=lambda dsk: starts.append(1)):
        out = ftrans.dask.value_and_grad(loss, compute=False)(np.zeros(3), X, s)
        assert not starts
        v, g = out.compute()
        assert len(starts) == 1


def test_errors():
    Xn, sn, X, s = _data()
    w = np.zeros(3)
    with pytest.raises(TypeError, match="no argument is a dask.array.Array"):
        ftrans.dask.value_and_grad(loss)(w, Xn, sn)
    with pytest.raises(TypeError, match="argument 1 is differentiated but holds a Dask"):
        ftrans.dask.value_and_grad(loss, argnums=1)(w, X, s)
    with pytest.raises(TypeError, match="same number of rows"):
        ftrans.dask.value_and_grad(loss)(w, X, s[:500])
    with pytest.raises(ValueError, match="split_every must be at least 2"):
        ftrans.dask.value_and_grad(loss, split_every=1)
