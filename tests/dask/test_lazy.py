"""ftrans's transforms on chunked Dask arrays build lazy graphs; computing them gives
the NumPy results (to float64 rounding)."""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp

da = pytest.importorskip("dask.array")

RTOL = 1e-12


def _data(n=600, d=4, chunks=150, seed=0):
    rng = np.random.default_rng(seed)
    Xn = rng.standard_normal((n, d))
    yn = (rng.random(n) < 0.5).astype(np.float64)
    return Xn, yn, da.from_array(Xn, chunks=(chunks, d)), da.from_array(yn, chunks=chunks)


def logistic_loss(w, X, y):
    z = X @ w
    return fnp.sum(fnp.logaddexp(0.0, z) - y * z) + 0.5 * fnp.sum(w * w)


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=RTOL, atol=1e-12)


def test_value_and_grad_is_lazy_and_exact(computes):
    Xn, yn, X, y = _data()
    w = np.linspace(-0.5, 0.5, 4)
    v, g = ftrans.value_and_grad(logistic_loss)(w, X, y)
    assert computes.count == 0, "value_and_grad computed the graph"
    assert isinstance(v, da.Array) and isinstance(g, da.Array)
    assert g.shape == w.shape and g.dtype == w.dtype
    v_ref, g_ref = ftrans.value_and_grad(logistic_loss)(w, Xn, yn)
    # independent NumPy reference of the gradient: X^T (sigmoid(Xw) - y) + w
    p = 1.0 / (1.0 + np.exp(-(Xn @ w)))
    _close(g_ref, Xn.T @ (p - yn) + w)
    vc, gc = v.compute(), g.compute()
    assert computes.count == 2
    assert isinstance(gc, np.ndarray)
    _close(vc, v_ref)
    _close(gc, g_ref)


def test_grad_wrt_dask_argument_is_a_dask_array(computes):
    Xn, yn, X, y = _data()
    w = np.full(4, 0.1)
    gX = ftrans.grad(logistic_loss, argnums=1)(w, X, y)
    assert computes.count == 0
    assert isinstance(gX, da.Array) and gX.shape == X.shape
    assert gX.chunks[0] == X.chunks[0], "the gradient keeps the input's row chunks"
    _close(gX.compute(), ftrans.grad(logistic_loss, argnums=1)(w, Xn, yn))


def test_vjp_jvp_hvp_are_lazy(computes):
    Xn, yn, X, y = _data()
    w = np.array([0.3, -0.2, 0.1, 0.05])
    t = np.array([1.0, 0.5, -1.0, 2.0])
    f = lambda X: fnp.tanh(X * 2.0) @ w  # noqa: E731
    out, vjp_fn = ftrans.vjp(f, X)
    (ct,) = vjp_fn(da.ones(X.shape[0], chunks=150))
    o2, tan = ftrans.jvp(lambda w: logistic_loss(w, X, y), (w,), (t,))
    (g,), (hv,) = ftrans.hvp(lambda w: logistic_loss(w, X, y), (w,), (t,))
    assert computes.count == 0
    for a in (out, ct, o2, tan, g, hv):
        assert isinstance(a, da.Array)
    out_r, vjp_r = ftrans.vjp(f, Xn)
    _close(out.compute(), out_r)
    _close(ct.compute(), vjp_r(np.ones(Xn.shape[0]))[0])
    o2_r, tan_r = ftrans.jvp(lambda w: logistic_loss(w, Xn, yn), (w,), (t,))
    _close(o2.compute(), o2_r)
    _close(tan.compute(), tan_r)
    (g_r,), (hv_r,) = ftrans.hvp(lambda w: logistic_loss(w, Xn, yn), (w,), (t,))
    _close(g.compute(), g_r)
    _close(hv.compute(), hv_r)
    # independent reference: H t = X^T diag(p(1-p)) X t + t
    p = 1.0 / (1.0 + np.exp(-(Xn @ w)))
    _close(hv_r, Xn.T @ (p * (1 - p) * (Xn @ t)) + t)


def test_vmap_over_parameters_is_lazy(computes):
    Xn, yn, X, y = _data()
    W = np.random.default_rng(1).standard_normal((3, 4)) * 0.2
    per = ftrans.vmap(ftrans.grad(logistic_loss), in_axes=(0, None, None))(W, X, y)
    assert computes.count == 0
    assert isinstance(per, da.Array) and per.shape == (3, 4)
    ref = np.stack([ftrans.grad(logistic_loss)(w, Xn, yn) for w in W])
    _close(per.compute(), ref)


def test_elementwise_chunks_run_the_cpu_kernels(computes):
    Xn, _, X, _ = _data(n=400, chunks=100)
    ops = [fnp.sin, fnp.exp, fnp.tanh, fnp.sqrt, fnp.abs, lambda a: a * 2.0 + 1.0]
    for op in ops:
        r = op(fnp.abs(X) + 0.5)
        assert isinstance(r, da.Array) and r.chunks == X.chunks
    assert computes.count == 0
    for op in ops:
        _close(op(fnp.abs(X) + 0.5).compute(), op(np.abs(Xn) + 0.5))


def test_grad_on_distributed_cluster(client):
    Xn, yn, X, y = _data(n=2000, chunks=250)
    w = np.linspace(-1, 1, 4)
    g = ftrans.grad(logistic_loss)(w, X, y)
    gc = client.compute(g).result()
    _close(gc, ftrans.grad(logistic_loss)(w, Xn, yn))


def test_batched_linalg_is_lazy_per_batch_chunk(computes):
    rng = np.random.default_rng(3)
    an = rng.standard_normal((6, 3, 3))
    an = an @ np.swapaxes(an, -1, -2) + 3 * np.eye(3)
    a = da.from_array(an, chunks=(2, 3, 3))
    f = lambda a: fnp.sum(fnp.linalg.eigh(a)[0] ** 2) + fnp.sum(fnp.linalg.slogdet(a)[1])  # noqa: E731
    v, g = ftrans.value_and_grad(f)(a)
    assert computes.count == 0
    assert isinstance(g, da.Array) and g.chunks[0] == (2, 2, 2)
    v_ref, g_ref = ftrans.value_and_grad(f)(an)
    _close(v.compute(), v_ref)
    _close(g.compute(), g_ref)
    # independent reference along symmetric directions E (eigh reads one triangle):
    # d/dt f(A + tE) = <2A + A^-1, E>
    e = rng.standard_normal((6, 3, 3))
    e = e + np.swapaxes(e, -1, -2)
    _close(np.sum(g_ref * e), np.sum((2 * an + np.linalg.inv(an)) * e))


def test_jacobians_and_hessian_are_lazy(computes):
    Xn, yn, X, y = _data(n=400, chunks=100)
    w = np.array([0.2, -0.1, 0.3, 0.05])
    f = lambda w, X: fnp.tanh(X @ w)  # noqa: E731
    J1 = ftrans.jacfwd(f)(w, X)
    J2 = ftrans.jacrev(f)(w, X)
    H = ftrans.hessian(logistic_loss)(w, X, y)
    assert computes.count == 0
    assert all(isinstance(a, da.Array) for a in (J1, J2, H))
    jn = ftrans.jacfwd(f)(w, Xn)
    # independent reference: d tanh(Xw)/dw = diag(1 - tanh^2) X
    _close(jn, (1 - np.tanh(Xn @ w) ** 2)[:, None] * Xn)
    _close(J1.compute(), jn)
    _close(J2.compute(), jn)
    p = 1.0 / (1.0 + np.exp(-(Xn @ w)))
    _close(H.compute(), Xn.T @ ((p * (1 - p))[:, None] * Xn) + np.eye(4))


def test_per_example_gradients_over_the_chunked_axis(computes):
    Xn, yn, X, y = _data(n=400, chunks=100)
    w = np.array([0.2, -0.1, 0.3, 0.05])
    f = lambda w, x, y: fnp.logaddexp(0.0, fnp.dot(x, w)) - y * fnp.dot(x, w)  # noqa: E731
    pe = ftrans.vmap(ftrans.grad(f), in_axes=(None, 0, 0))(w, X, y)
    assert computes.count == 0
    assert isinstance(pe, da.Array) and pe.chunks == X.chunks
    # independent reference: (sigmoid(x.w) - y) x per row
    p = 1.0 / (1.0 + np.exp(-(Xn @ w)))
    _close(pe.compute(), (p - yn)[:, None] * Xn)
