"""ftrans.dask.Objective and minimize: values, gradients and Hessian-vector products
against NumPy formulas written by hand, the reductions, the refused mistakes, and fits
against scikit-learn."""
import numpy as np
import pytest

import ftrans
import ftrans.dask
import ftrans.numpy as fnp

da = pytest.importorskip("dask.array")
pytest.importorskip("scipy")

CHUNKS = (37, 100, 13, 50)          # unequal row blocks
N, D = sum(CHUNKS), 4


def _data(seed=0):
    rng = np.random.default_rng(seed)
    Xn = rng.standard_normal((N, D))
    sn = np.where(rng.random(N) < 0.5, 1.0, -1.0)
    wn = rng.uniform(0.2, 3.0, N)
    return Xn, sn, wn


def per_row(p, X, s):
    """softplus(-s (x.w + b)), one loss per row."""
    return fnp.logaddexp(0.0, -s * (X @ p["w"] + p["b"]))


def _sig(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _ref(p, Xn, sn, wts, reduction, lam):
    """By hand: value, gradient (w, b) and the Hessian of the weighted logistic loss."""
    wts = np.ones(len(sn)) if wts is None else wts
    z = -sn * (Xn @ p["w"] + p["b"])
    norm = wts.sum() if reduction == "mean" else 1.0
    v = np.sum(wts * np.logaddexp(0.0, z)) / norm + 0.5 * lam * p["w"] @ p["w"]
    r = wts * (-sn) * _sig(z) / norm
    A = np.hstack([Xn, np.ones((len(sn), 1))])          # [w, b] together
    H = A.T @ (A * (wts * _sig(z) * _sig(-z) / norm)[:, None])
    H[:D, :D] += lam * np.eye(D)
    return v, {"w": Xn.T @ r + lam * p["w"], "b": np.sum(r)}, H


P = {"w": np.array([0.3, -0.2, 0.5, 0.1]), "b": np.array(-0.15)}


@pytest.mark.parametrize("reduction", ["sum", "mean"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("lam", [0.0, 0.7])
def test_value_grad_hvp_against_numpy(client, reduction, weighted, lam):
    Xn, sn, wn = _data()
    X = da.from_array(Xn, chunks=(CHUNKS, D))
    s = da.from_array(sn, chunks=50)                      # other row chunks: aligned to X's
    w = da.from_array(wn, chunks=N) if weighted else None
    pen = ftrans.dask.l2(lam, select=lambda p: p["w"]) if lam else None
    obj = ftrans.dask.Objective(per_row, X, s, w, reduction=reduction, penalty=pen)
    assert obj.n_chunks == 4 and obj.rows[1] == (37, 137)
    v, g = obj.value_and_grad(P)
    v_ref, g_ref, H = _ref(P, Xn, sn, wn if weighted else None, reduction, lam)
    assert isinstance(v, float) and isinstance(g["w"], np.ndarray)
    np.testing.assert_allclose(v, v_ref, rtol=1e-12)
    for k in ("w", "b"):
        np.testing.assert_allclose(g[k], g_ref[k], rtol=1e-12, atol=1e-12 * abs(v_ref))
    assert obj.value(P) == v and obj.evaluations == 1    # value and grad share an evaluation
    t = {"w": np.array([1.0, -2.0, 0.5, 0.0]), "b": np.array(0.3)}
    hv = obj.hvp(P, t)
    hv_ref = H @ np.append(t["w"], t["b"])
    np.testing.assert_allclose(np.append(hv["w"], hv["b"]), hv_ref, rtol=1e-11,
                               atol=1e-12 * np.abs(hv_ref).max())


def test_per_chunk_form_and_flat_parameters(client):
    Xn, sn, wn = _data(1)
    X = da.from_array(Xn, chunks=(CHUNKS, D))

    def chunk_sum(w, X, s, wt):
        return fnp.sum(wt * fnp.logaddexp(0.0, -s * (X @ w)))
    obj = ftrans.dask.Objective(chunk_sum, X, sn, wn, per="chunk", reduction="mean")
    w0 = P["w"]
    v, g = obj.value_and_grad(w0)
    v_ref, g_ref, _ = _ref({"w": w0, "b": 0.0}, Xn, sn, wn, "mean", 0.0)
    np.testing.assert_allclose(v, v_ref, rtol=1e-12)
    np.testing.assert_allclose(g, g_ref["w"], rtol=1e-12, atol=1e-14)
    # large parameters: one parameter key shared by the tasks, a reduction tree
    obj.inline_bytes = obj.gather_bytes = 0
    obj.split_every = 3
    obj._cache = None
    v3, g3 = obj.value_and_grad(w0)
    assert obj.evaluations == 2
    np.testing.assert_allclose(v3, v_ref, rtol=1e-12)
    np.testing.assert_allclose(g3, g_ref["w"], rtol=1e-12, atol=1e-14)
    # a per-chunk loss evaluated first at a flat vector (SciPy's side): the additivity
    # check runs before any pytree was seen (it read an unset layout: AttributeError)
    fresh = ftrans.dask.Objective(chunk_sum, X, sn, wn, per="chunk", reduction="mean")
    v4, g4 = fresh.flat_value_and_grad(w0)
    np.testing.assert_allclose(v4, v_ref, rtol=1e-12)
    np.testing.assert_allclose(g4, g_ref["w"], rtol=1e-12, atol=1e-14)
    # no targets: loss(params, X_b)
    sq = ftrans.dask.Objective(lambda w, X: (X @ w) ** 2, X, reduction="sum")
    v, g = sq.value_and_grad(w0)
    np.testing.assert_allclose(v, np.sum((Xn @ w0) ** 2), rtol=1e-13)
    np.testing.assert_allclose(g, 2 * Xn.T @ (Xn @ w0), rtol=1e-12)


def test_mean_instead_of_sum_is_refused(client):
    Xn, sn, _ = _data(2)
    X = da.from_array(Xn, chunks=(CHUNKS, D))
    # per-chunk form: a mean is detected at the first evaluation
    mean_loss = lambda w, X, s: fnp.mean(fnp.logaddexp(0.0, -s * (X @ w)))  # noqa: E731
    obj = ftrans.dask.Objective(mean_loss, X, sn, per="chunk")
    for _ in range(2):  # refused again: a caught error does not switch the check off
        with pytest.raises(ValueError, match="not a sum over the rows.*looks like a mean"):
            obj.value_and_grad(P["w"])
    # a penalty inside the per-chunk loss would be counted once per chunk
    inside = lambda w, X, s: fnp.sum(fnp.logaddexp(0.0, -s * (X @ w))) + fnp.sum(w * w)  # noqa: E731,E501
    with pytest.raises(ValueError, match="not a sum over the rows.*penalty="):
        ftrans.dask.Objective(inside, X, sn, per="chunk").value(P["w"])
    # per-example form: a reduced (scalar) loss names its chunk
    obj = ftrans.dask.Objective(mean_loss, X, sn)
    with pytest.raises(ValueError, match=r"shape \(\) on chunk \d \(rows \d+:\d+\); "
                                         r"expected one loss per row, shape \(\d+,\)"):
        obj.value_and_grad(P["w"])
    with pytest.raises(ValueError, match=r"per-chunk loss returned shape \(16,\) on chunk 0 \(rows 0:16\)"):
        ftrans.dask.Objective(lambda w, X, s: X @ w, X, sn, per="chunk").grad(P["w"])
    with pytest.raises(TypeError, match=r"dtype bool on chunk \d \(rows \d+:\d+\)"):
        ftrans.dask.Objective(lambda w, X, s: X @ w > 0, X, sn).value(P["w"])


def test_bad_construction(client):
    Xn, sn, wn = _data()
    X = da.from_array(Xn, chunks=(CHUNKS, D))
    with pytest.raises(TypeError, match="dask.array.Array"):
        ftrans.dask.Objective(per_row, Xn, sn)
    with pytest.raises(ValueError, match="expected 200 rows"):
        ftrans.dask.Objective(per_row, X, sn[:-1])
    with pytest.raises(ValueError, match="reduction must be one of"):
        ftrans.dask.Objective(per_row, X, sn, reduction="avg")
    with pytest.raises(ValueError, match="gauss-newton' needs model="):
        ftrans.dask.Objective(per_row, X, sn, hessian="gauss-newton")
    with pytest.raises(ValueError, match="non-negative"):
        ftrans.dask.Objective(per_row, X, sn, -wn)
    with pytest.raises(ValueError, match="uses no gradient"):
        ftrans.dask.minimize(ftrans.dask.Objective(per_row, X, sn), P, method="Nelder-Mead")


def test_gauss_newton_and_exact_hvp_of_a_nonlinear_model(client):
    """model tanh(X w), squared loss: Gauss-Newton = J^T J v (by hand); the exact product
    against central differences of the gradient."""
    Xn, _, _ = _data(3)
    yn = np.sin(Xn[:, 0])
    X = da.from_array(Xn, chunks=(CHUNKS, D))
    model = lambda w, X: fnp.tanh(X @ w)                 # noqa: E731
    sq = lambda z, y: 0.5 * (z - y) ** 2                 # noqa: E731
    w0, v = np.array([0.4, -0.3, 0.2, 0.8]), np.array([1.0, 0.5, -1.0, 0.25])
    gn = ftrans.dask.Objective(sq, X, yn, model=model, reduction="sum")
    J = (1 - np.tanh(Xn @ w0) ** 2)[:, None] * Xn
    np.testing.assert_allclose(gn.hvp(w0, v), J.T @ (J @ v), rtol=1e-12)
    ex = ftrans.dask.Objective(sq, X, yn, model=model, reduction="sum", hessian="exact")
    h = 1e-5
    fd = (ex.grad(w0 + h * v) - ex.grad(w0 - h * v)) / (2 * h)
    hv = ex.hvp(w0, v)
    np.testing.assert_allclose(hv, fd, rtol=1e-7, atol=1e-7 * np.abs(fd).max())
    assert np.abs(hv - gn.hvp(w0, v)).max() > 1e-3      # the two products differ here


def _example_data(n=4000, d=5, seed=0):
    """The example's data (examples/dask_logistic_regression.py's make_data), in memory."""
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                        "dask_logistic_regression.py")
    spec = importlib.util.spec_from_file_location("dask_lr_example", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    X, s, _ = mod.make_data(n, d, 1000, seed)
    return X, s


@pytest.mark.parametrize("method", ["L-BFGS-B", "Newton-CG"])
def test_minimize_reaches_scikit_learns_solution(client, method, capsys):
    sklearn = pytest.importorskip("sklearn.linear_model")
    X, s = _example_data()
    Xn, sn = client.compute([X, s], sync=True)
    C = 0.5
    ref = sklearn.LogisticRegression(C=C, tol=1e-12, max_iter=10_000).fit(Xn, sn)
    # scikit-learn: C * sum(loss) + |w|^2 / 2, intercept not penalized
    obj = ftrans.dask.Objective(per_row, X, s, penalty=ftrans.dask.l2(
        1.0 / (C * len(sn)), select=lambda p: p["w"]))
    p0 = {"w": np.zeros(Xn.shape[1]), "b": np.array(0.0)}
    res = ftrans.dask.minimize(obj, p0, method=method, tol=1e-12, progress=0.0)
    assert res.success, res.message
    np.testing.assert_allclose(res.params["w"], ref.coef_[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(res.params["b"], ref.intercept_[0], rtol=1e-5, atol=1e-6)
    err = capsys.readouterr().err
    assert "ftrans.dask.minimize: eval    1" in err and "|grad|" in err
    assert f"{res.nfev} evaluations" in err
    if method == "Newton-CG":
        assert res.nhev > 0 and "hvp" in err
    res2 = ftrans.dask.minimize(obj, p0, method=method, tol=1e-12, progress=False)
    assert capsys.readouterr().err == ""
    np.testing.assert_array_equal(res2.x, res.x)


def test_penalties_against_numpy_and_check_grads():
    from ftrans.testing import check_grads
    p = {"w": np.array([1.5, -0.2, 0.0, 3e-4]), "b": np.array(-2.0)}
    l2 = ftrans.dask.l2(0.3, select=lambda p: p["w"])
    sl1 = ftrans.dask.smooth_l1(0.7, eps=1e-3)
    np.testing.assert_allclose(l2(p), 0.15 * np.sum(p["w"] ** 2), rtol=1e-15)
    flat = np.append(p["w"], p["b"])
    np.testing.assert_allclose(sl1(p), 0.7 * np.sum(np.sqrt(flat ** 2 + 1e-6) - 1e-3),
                               rtol=1e-14)
    # smooth L1 is within strength * eps of the L1 norm per entry
    assert abs(sl1(p) - 0.7 * np.abs(flat).sum()) <= 0.7 * 1e-3 * flat.size
    for pen in (l2, sl1):
        check_grads(pen, (p,), order=2, modes=("fwd", "rev"))
        np.testing.assert_allclose(ftrans.jit(pen)(p), pen(p), rtol=1e-15)
    with pytest.raises(ValueError, match="strength must be >= 0"):
        ftrans.dask.l2(-1.0)
    with pytest.raises(ValueError, match="eps must be > 0"):
        ftrans.dask.smooth_l1(1.0, eps=0.0)
