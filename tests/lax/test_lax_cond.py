"""ftrans.lax.cond / switch: values against Python branches, derivatives against finite
differences (order 2, both modes, float64 and float32), batching against a Python loop,
closure lifting, and the errors for mismatched branches."""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import lax
from ftrans.testing import check_grads

DTYPES = [np.float64, np.float32]


def _branches():
    return (lambda x, y: fnp.sin(x) * y, lambda x, y: x / (1.5 + fnp.cos(y)))


def _py(pred, x, y):
    t, f = _branches()
    return t(x, y) if pred else f(x, y)


@pytest.mark.parametrize("pred", [True, False, np.bool_(True), 0, 3, -0.5, np.float32(0.0)])
def test_cond_matches_python_branch(pred):
    x, y = np.linspace(-1, 1, 5), np.linspace(0.2, 2, 5)
    out = lax.cond(pred, *_branches(), x, y)
    np.testing.assert_allclose(out, _py(bool(pred), x, y), rtol=1e-15)
    assert type(out) is np.ndarray and out.dtype == np.float64


@pytest.mark.parametrize("index,want", [(-3, 0), (0, 0), (1, 1), (2, 2), (9, 2),
                                        (np.int32(1), 1), (np.array(5, np.int64), 2)])
def test_switch_clamps_the_index_as_jax(index, want):
    fs = [lambda x: x + 1.0, lambda x: x * 10.0, lambda x: -x]
    x = np.arange(3.0)
    np.testing.assert_array_equal(lax.switch(index, fs, x), fs[want](x))


def test_switch_with_a_traced_index_under_grad_and_vmap():
    fs = [lambda x: fnp.sin(x), lambda x: x ** 3, lambda x: fnp.exp(-x)]

    def f(x, i):
        return fnp.sum(lax.switch(i, fs, x))
    x = np.linspace(0.1, 1.0, 4)
    for i, d in enumerate([np.cos(x), 3 * x ** 2, -np.exp(-x)]):
        np.testing.assert_allclose(ftrans.grad(f)(x, i), d, rtol=1e-13)
    idx = np.array([2, -1, 1, 7, 0])  # clamped per example
    xs = np.linspace(0.2, 1.2, 5)
    got = ftrans.vmap(lambda x, i: lax.switch(i, fs, x))(xs, idx)
    want = [fs[min(max(i, 0), 2)](x) for x, i in zip(xs, idx)]
    np.testing.assert_allclose(got, want, rtol=1e-14)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("pred", [True, False])
def test_cond_check_grads(dtype, pred):
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, 4).astype(dtype)
    y = rng.uniform(0.5, 1.5, 4).astype(dtype)
    check_grads(lambda x, y: lax.cond(pred, *_branches(), x, y), (x, y), order=2,
                modes=("fwd", "rev"))
    out = lax.cond(pred, *_branches(), x, y)
    assert out.dtype == dtype
    g = ftrans.grad(lambda x: fnp.sum(lax.cond(pred, *_branches(), x, y)))(x)
    assert g.dtype == dtype


def test_cond_complex_check_grads():
    rng = np.random.default_rng(1)
    x = (rng.normal(size=3) + 1j * rng.normal(size=3)) * 0.5
    check_grads(lambda x: lax.cond(True, lambda z: fnp.sin(z) * z, lambda z: z, x), (x,),
                order=2)


def test_cond_on_a_traced_predicate_inside_grad():
    # the predicate depends on the differentiated value: piecewise function
    def f(x):
        return lax.cond(x > 0.0, lambda x: x ** 2, lambda x: fnp.sin(x), x)
    for x0, d in ((0.7, 1.4), (-0.4, np.cos(-0.4))):
        assert ftrans.grad(f)(x0) == pytest.approx(d, rel=1e-14)
        check_grads(f, (x0,), order=2)


def test_closed_over_values_are_lifted_and_differentiated():
    # w is closed over by the branches; grad wrt w goes through the primitive's operands
    def f(w, x):
        return fnp.sum(lax.cond(True, lambda: fnp.tanh(w * x), lambda: w + x))
    w, x = 0.3, np.linspace(-1, 1, 4)
    np.testing.assert_allclose(ftrans.grad(f)(w, x), np.sum(x * (1 - np.tanh(w * x) ** 2)),
                               rtol=1e-14)
    check_grads(f, (w, x), order=2)
    # a branch returning the closed-over value itself
    g = ftrans.grad(lambda w: lax.cond(False, lambda: w * 2.0, lambda: w))(1.5)
    assert g == 1.0


def test_pytrees_in_and_out():
    def t(d, s):
        return {"a": d["u"] * s, "b": (d["v"], d["u"] + d["v"])}

    def f(d, s):
        return {"a": d["v"] - s, "b": (d["u"], d["u"] * d["v"])}
    d = {"u": np.arange(3.0), "v": np.ones(3)}
    for p in (True, False):
        out = lax.cond(p, t, f, d, 2.0)
        want = (t if p else f)(d, 2.0)
        assert set(out) == {"a", "b"} and isinstance(out["b"], tuple)
        for a, b in zip(ftrans.tree_util.tree_leaves(out), ftrans.tree_util.tree_leaves(want)):
            np.testing.assert_allclose(a, b)
    check_grads(lambda d: lax.cond(False, t, f, d, 2.0), (d,), order=1)


def test_python_scalar_output_adopts_the_other_branch_dtype():
    x = np.ones(2, np.float32)
    out = lax.cond(False, lambda x: fnp.sum(x), lambda x: 0.0, x)
    assert out.dtype == np.float32 and out == 0
    g = ftrans.grad(lambda x: lax.cond(True, lambda x: fnp.sum(x * x), lambda x: 1.0, x))(x)
    np.testing.assert_array_equal(g, 2 * x)
    assert g.dtype == np.float32


def test_integer_outputs_have_no_tangent():
    def f(x):
        k, y = lax.cond(True, lambda x: (np.int64(1), x * 2.0), lambda x: (np.int64(0), x), x)
        return y * k
    x = np.arange(3.0)
    out, t = ftrans.jvp(f, (x,), (np.ones(3),))
    np.testing.assert_array_equal(t, 2 * np.ones(3))
    np.testing.assert_array_equal(ftrans.grad(lambda x: fnp.sum(f(x)))(x), 2 * np.ones(3))


# ---------------------------------------------------------------------------------
# batching
# ---------------------------------------------------------------------------------
def test_vmap_with_unbatched_predicate():
    xs = np.linspace(-1, 1, 6).reshape(3, 2)
    y = np.array([0.5, 2.0])
    for p in (True, False):
        got = ftrans.vmap(lambda x: lax.cond(p, *_branches(), x, y))(xs)
        np.testing.assert_allclose(got, [_py(p, x, y) for x in xs], rtol=1e-15)
    # batched along another axis, output axis moved
    got = ftrans.vmap(lambda x: lax.cond(True, *_branches(), x, y), in_axes=1, out_axes=1)(
        xs.T.copy())
    np.testing.assert_allclose(got, np.stack([_py(True, x, y) for x in xs], 1), rtol=1e-15)


def test_vmap_with_batched_predicate_selects_per_example():
    def f(x):
        return lax.cond(x > 0, lambda x: fnp.sin(x), lambda x: x * x, x)
    xs = np.linspace(-1, 1, 7)
    np.testing.assert_allclose(ftrans.vmap(f)(xs),
                               [np.sin(x) if x > 0 else x * x for x in xs], rtol=1e-15)
    # per-example gradients through the batched predicate
    np.testing.assert_allclose(ftrans.vmap(ftrans.grad(f))(xs),
                               [np.cos(x) if x > 0 else 2 * x for x in xs], rtol=1e-14)
    # gradient of a vmapped cond (grad of vmap)
    np.testing.assert_allclose(ftrans.grad(lambda xs: fnp.sum(ftrans.vmap(f)(xs)))(xs),
                               [np.cos(x) if x > 0 else 2 * x for x in xs], rtol=1e-14)


def test_nested_vmap_with_batched_predicates():
    def f(x, s):
        return lax.cond(x * s > 0, lambda a: a + s, lambda a: a - 1.0, x)
    xs, ss = np.linspace(-1, 1, 5), np.array([-1.0, 2.0, 0.5])
    got = ftrans.vmap(ftrans.vmap(f, in_axes=(0, None)), in_axes=(None, 0))(xs, ss)
    want = [[x + s if x * s > 0 else x - 1 for x in xs] for s in ss]
    np.testing.assert_allclose(got, want, rtol=1e-15)


def test_jacobians_and_hessian():
    f = lambda x: lax.cond(fnp.sum(x) > 0, lambda x: fnp.sin(x) * x[0], lambda x: x, x)
    x = np.array([0.3, 0.5, -0.1])
    jf, jr = ftrans.jacfwd(f)(x), ftrans.jacrev(f)(x)
    want = np.diag(np.cos(x) * x[0])
    want[:, 0] += np.sin(x)
    np.testing.assert_allclose(jf, want, rtol=1e-14)
    np.testing.assert_allclose(jr, want, rtol=1e-14)
    h = ftrans.hessian(lambda x: fnp.sum(f(x)))(x)
    np.testing.assert_allclose(h, ftrans.hessian(lambda x: fnp.sum(fnp.sin(x) * x[0]))(x),
                               rtol=1e-14)


# ---------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------
def test_mismatched_branch_outputs_raise_type_error():
    x = np.ones(3)
    with pytest.raises(TypeError, match="same pytree structure.*true_fun"):
        lax.cond(True, lambda x: (x, x), lambda x: x, x)
    with pytest.raises(TypeError, match=r"identical shapes and dtypes.*float32\[3\] in "
                                        r"false_fun but float64\[3\] in true_fun"):
        lax.cond(True, lambda x: x, lambda x: x.astype(np.float32), x)
    with pytest.raises(TypeError, match=r"float64\[\] in false_fun but float64\[3\] in "
                                        r"true_fun.*Make the shapes agree"):
        lax.cond(True, lambda x: x, lambda x: fnp.sum(x), x)
    with pytest.raises(TypeError, match="branch 2"):
        lax.switch(0, [lambda x: x, lambda x: x, lambda x: x[:2]], x)


def test_bad_predicates_and_indices():
    with pytest.raises(TypeError, match=r"scalar \(shape \(\)\).*fnp.where"):
        lax.cond(np.array([True, False]), lambda: 1.0, lambda: 2.0)
    with pytest.raises(TypeError, match="integer scalar"):
        lax.switch(1.0, [lambda: 1.0], )
    with pytest.raises(TypeError, match="non-empty sequence of callables"):
        lax.switch(0, [])
    with pytest.raises(TypeError, match="callables"):
        lax.cond(True, 1.0, lambda: 1.0)


def test_reverse_mode_runs_the_taken_branch_forward_once():
    # forward cond: outputs and residuals; backward cond: cotangents from the residuals
    # only (the branch's forward part is not recomputed)
    def loss(x):
        return fnp.sum(lax.cond(fnp.sum(x) > 0, lambda x: fnp.sin(fnp.exp(x)),
                                lambda x: x * x, x))
    x = np.array([0.3, -0.1, 0.5])
    ir = ftrans.make_ir(ftrans.grad(loss))(x)
    fwd, bwd = [e for e in ir.eqns if e.prim.name == "cond"]
    names = lambda e: {q.prim.name for b in e.params["branches"] for q in b.eqns}
    assert {"sin", "exp"} <= names(fwd)
    assert not names(bwd) & {"sin", "exp"}
    np.testing.assert_allclose(ftrans.grad(loss)(x), np.cos(np.exp(x)) * np.exp(x), rtol=1e-14)
    # both branches' residual slots exist; the untaken branch's are zeros
    np.testing.assert_allclose(ftrans.grad(loss)(-x), -2 * x, rtol=1e-14)
    out, f_lin = ftrans.linearize(lambda x: lax.cond(True, fnp.sin, fnp.cos, x), x)
    np.testing.assert_allclose(f_lin(np.ones(3)), np.cos(x), rtol=1e-14)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index", [0, 1, 2])
def test_switch_check_grads(dtype, index):
    fs = [lambda x, y: fnp.sin(x) * y, lambda x, y: fnp.exp(x - y), lambda x, y: x * x / y]
    rng = np.random.default_rng(index)
    x = rng.uniform(-1, 1, 3).astype(dtype)
    y = rng.uniform(0.5, 1.5, 3).astype(dtype)
    check_grads(lambda x, y: lax.switch(index, fs, x, y), (x, y), order=2,
                modes=("fwd", "rev"))
