"""``custom_jvp`` and ``custom_vjp`` under every transform.

The rules are shown to be *used* with deliberately "wrong" derivatives (a custom
derivative that differs from the true one shows up in the result: the rule was
called, not bypassed); the classic numerically safe examples (softplus, the norm at
0) show a rule avoiding NaN; rules receive materialized zeros, never a symbolic Zero.

ftrans differs from JAX on purpose in one place: forward mode through a
``custom_vjp`` function differentiates the function's own forward computation, so
``jvp``/``jacfwd``/``hessian`` work (JAX raises; checked against JAX when installed).
"""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import (custom_jvp, custom_vjp, grad, jvp, vjp, vmap, jacfwd, jacrev, hessian,
                    value_and_grad)

RNG = np.random.default_rng(99)
X = np.array([0.3, -1.2, 2.0])
T = np.array([1.0, 0.5, -2.0])


def _same(got, want, rtol=1e-12, atol=1e-13):
    assert type(got) is np.ndarray, type(got)
    assert got.shape == np.shape(want), (got.shape, np.shape(want))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


# ---------------------------------------------------------------------------------
# custom_jvp: a deliberately wrong rule (2 cos x instead of cos x) shows up everywhere
# ---------------------------------------------------------------------------------
jvp_calls = []


@custom_jvp
def wsin(x):
    return fnp.sin(x)


@wsin.defjvp
def _wsin_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    jvp_calls.append(np.shape(x))
    return wsin(x), 2.0 * fnp.cos(x) * t


def test_custom_jvp_value_is_the_function():
    _same(wsin(X), np.sin(X))


def test_custom_jvp_rule_used_by_jvp_and_grad():
    y, t = jvp(wsin, (X,), (T,))
    _same(y, np.sin(X))
    _same(t, 2 * np.cos(X) * T)
    _same(grad(lambda x: fnp.sum(wsin(x)))(X), 2 * np.cos(X))
    out, pull = vjp(wsin, X)
    _same(pull(T)[0], 2 * np.cos(X) * T)
    v, g = value_and_grad(lambda x: fnp.sum(wsin(x) ** 2))(X)
    _same(g, 2 * np.sin(X) * 2 * np.cos(X))


@pytest.mark.parametrize("jac", [jacfwd, jacrev])
def test_custom_jvp_rule_used_by_jacobians(jac):
    _same(jac(wsin)(X), np.diag(2 * np.cos(X)))


def test_custom_jvp_second_order_differentiates_the_rule():
    # the rule 2 cos(x) t is itself differentiated: d2 = -2 sin(x)
    _same(hessian(lambda x: fnp.sum(wsin(x)))(X), np.diag(-2 * np.sin(X)))
    _same(jacfwd(jacrev(wsin))(X), np.einsum("ij,jk->ijk", np.eye(3), np.diag(-2 * np.sin(X))))
    _same(jacrev(jacfwd(wsin))(X), np.einsum("ij,jk->ijk", np.eye(3), np.diag(-2 * np.sin(X))))
    g2 = grad(grad(lambda x: wsin(x)))(np.array(0.7))
    _same(g2, np.array(-2 * np.sin(0.7)))


def test_custom_jvp_under_vmap_and_compositions():
    Xs = RNG.standard_normal((4, 3))
    _same(vmap(wsin)(Xs), np.sin(Xs))
    _same(vmap(grad(lambda x: fnp.sum(wsin(x))))(Xs), 2 * np.cos(Xs))
    _same(grad(lambda X: fnp.sum(vmap(wsin)(X)))(Xs), 2 * np.cos(Xs))
    _same(vmap(jacrev(wsin))(Xs), np.stack([np.diag(2 * np.cos(r)) for r in Xs]))
    _same(vmap(lambda x, t: jvp(wsin, (x,), (t,))[1])(Xs, Xs), 2 * np.cos(Xs) * Xs)
    _same(vmap(hessian(lambda x: fnp.sum(wsin(x))))(Xs),
          np.stack([np.diag(-2 * np.sin(r)) for r in Xs]))


def test_custom_jvp_rule_is_vectorized_not_looped():
    Xs = RNG.standard_normal((6, 3))
    jvp_calls.clear()
    vmap(grad(lambda x: fnp.sum(wsin(x))))(Xs)
    assert len(jvp_calls) == 1  # one call on the whole batch
    jvp_calls.clear()
    jacfwd(wsin)(X)             # 3 basis tangents pushed in one batched call
    assert len(jvp_calls) == 1


# ---------------------------------------------------------------------------------
# custom_jvp: numerically safe rules
# ---------------------------------------------------------------------------------
def _naive_softplus(x):
    return fnp.log(1.0 + fnp.exp(x))


@custom_jvp
def softplus(x):
    return fnp.log(1.0 + fnp.exp(x))


@softplus.defjvp
def _softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return softplus(x), t / (1.0 + fnp.exp(-x))


@pytest.mark.parametrize("dtype,big", [(np.float32, 100.0), (np.float64, 1000.0)])
def test_softplus_rule_avoids_nan(dtype, big):
    x = np.array([big, 1.0, -3.0], dtype)
    with np.errstate(all="ignore"):
        naive = grad(lambda v: fnp.sum(_naive_softplus(v)))(x)
        safe = grad(lambda v: fnp.sum(softplus(v)))(x)
        _, t = jvp(softplus, (x,), (np.ones(3, dtype),))
    assert np.isnan(naive[0])  # inf / inf without the rule
    assert safe.dtype == dtype
    want = 1 / (1 + np.exp(-x.astype(np.float64)))
    np.testing.assert_allclose(safe, want, rtol=1e-6)
    np.testing.assert_allclose(t, want, rtol=1e-6)


@custom_jvp
def safe_norm(x):
    return fnp.sqrt(fnp.sum(x * x))


@safe_norm.defjvp
def _safe_norm_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    n = safe_norm(x)
    denom = fnp.where(n == 0.0, 1.0, n)
    return n, fnp.sum(x * t) / denom


def test_safe_norm_gradient_at_zero():
    with np.errstate(all="ignore"):
        naive = grad(lambda v: fnp.sqrt(fnp.sum(v * v)))(np.zeros(3))
    assert np.all(np.isnan(naive))
    _same(grad(safe_norm)(np.zeros(3)), np.zeros(3))
    _same(grad(safe_norm)(X), X / np.linalg.norm(X))
    _same(vmap(grad(safe_norm))(np.stack([np.zeros(3), X])),
          np.stack([np.zeros(3), X / np.linalg.norm(X)]))


# ---------------------------------------------------------------------------------
# custom_jvp: nondiff_argnums, pytrees, materialized zeros, integer inputs
# ---------------------------------------------------------------------------------
def test_custom_jvp_nondiff_argnums_callable_and_int():
    seen = []

    def apply(fn, n, x):
        return fn(x) ** n

    app = custom_jvp(apply, nondiff_argnums=(0, 1))

    @app.defjvp
    def app_jvp(fn, n, primals, tangents):
        (x,), (t,) = primals, tangents
        seen.append((fn, n))
        y = fn(x)
        return y ** n, 10.0 * n * y ** (n - 1) * fnp.cos(x) * t  # 10x: the rule is used

    _same(app(fnp.sin, 3, X), np.sin(X) ** 3)
    g = grad(lambda x: fnp.sum(app(fnp.sin, 3, x)))(X)
    _same(g, 30.0 * np.sin(X) ** 2 * np.cos(X))
    assert seen[-1] == (fnp.sin, 3)
    gv = vmap(grad(lambda x: fnp.sum(app(fnp.sin, 2, x))))(np.stack([X, -X]))
    _same(gv, 20.0 * np.sin(np.stack([X, -X])) * np.cos(np.stack([X, -X])))


def test_custom_jvp_nondiff_argnum_in_the_middle():
    def scaled(x, k, y):
        return x * k + y
    f = custom_jvp(scaled, nondiff_argnums=(1,))

    @f.defjvp
    def f_jvp(k, primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        return x * k + y, tx * (k + 1.0) + ty * 5.0

    gx, gy = grad(lambda x, y: fnp.sum(f(x, 2.0, y)), argnums=(0, 1))(X, T)
    _same(gx, np.full(3, 3.0))
    _same(gy, np.full(3, 5.0))


def test_custom_jvp_pytree_arguments_and_outputs():
    @custom_jvp
    def f(p):
        return {"s": fnp.sin(p["a"]) * p["b"], "c": (p["a"] * 0.0 + 1.0,)}

    @f.defjvp
    def f_jvp(primals, tangents):
        (p,), (t,) = primals, tangents
        out = f(p)
        return out, {"s": fnp.cos(p["a"]) * p["b"] * t["a"] + fnp.sin(p["a"]) * t["b"],
                     "c": (t["a"] * 0.0,)}

    p = {"a": X, "b": T}
    out, tan = jvp(f, (p,), ({"a": np.ones(3), "b": np.zeros(3)},))
    _same(out["s"], np.sin(X) * T)
    _same(tan["s"], np.cos(X) * T)
    g = grad(lambda p: fnp.sum(f(p)["s"]))(p)
    assert set(g) == {"a", "b"}
    _same(g["a"], np.cos(X) * T)
    _same(g["b"], np.sin(X))
    J = jacrev(lambda p: f(p)["s"])(p)
    _same(J["a"], np.diag(np.cos(X) * T))
    _same(J["b"], np.diag(np.sin(X)))


def test_custom_jvp_rule_sees_materialized_zero_tangents():
    seen = []

    @custom_jvp
    def f(x, y):
        return x * y

    @f.defjvp
    def f_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        seen.append(ty)
        return x * y, tx * y + x * ty  # would fail on a symbolic Zero object

    y = np.array([1.0, 2.0, 3.0])
    _, t = jvp(lambda x: f(x, y), (X,), (T,))  # y has no tangent
    _same(t, T * y)
    ty = seen[-1]
    assert type(ty) is np.ndarray and ty.shape == (3,) and ty.dtype == np.float64
    assert not np.any(ty)
    # and under reverse mode / jacfwd the rule works too
    _same(grad(lambda x: fnp.sum(f(x, y)))(X), y)
    _same(jacfwd(lambda x: f(x, y))(X), np.diag(y))


def test_custom_jvp_integer_argument_gets_float0_zero_tangent():
    seen = []

    @custom_jvp
    def f(x, n):
        return x * n

    @f.defjvp
    def f_jvp(primals, tangents):
        (x, n), (tx, tn) = primals, tangents
        seen.append(tn)
        return x * n, tx * n

    n = np.array([1, 2, 3])
    _same(grad(lambda x: fnp.sum(f(x, n)))(X), n.astype(float))
    _, t = jvp(lambda x: f(x, n), (X,), (T,))
    _same(t, T * n)
    tn = seen[-1]
    assert isinstance(tn, np.ndarray) and tn.dtype == ftrans.float0 and tn.shape == (3,)


# ---------------------------------------------------------------------------------
# custom_vjp
# ---------------------------------------------------------------------------------
calls = {"fun": 0, "fwd": 0, "bwd": 0}


def _vsin(x):
    calls["fun"] += 1
    return fnp.sin(x)


def _vsin_fwd(x):
    calls["fwd"] += 1
    return fnp.sin(x), fnp.cos(x)    # residual: cos(x), computed in the forward pass


def _vsin_bwd(cos_x, g):
    calls["bwd"] += 1
    return (100.0 * g * cos_x,)     # deliberately 100x the true derivative


vsin = custom_vjp(_vsin)
vsin.defvjp(_vsin_fwd, _vsin_bwd)


@pytest.fixture
def count():
    for k in calls:
        calls[k] = 0
    return calls


def test_custom_vjp_reverse_mode_uses_bwd(count):
    _same(vsin(X), np.sin(X))
    g = grad(lambda x: fnp.sum(vsin(x)))(X)
    _same(g, 100 * np.cos(X))
    assert count["fwd"] == 1 and count["bwd"] == 1
    out, pull = vjp(vsin, X)
    _same(out, np.sin(X))
    _same(pull(T)[0], 100 * np.cos(X) * T)
    _same(jacrev(vsin)(X), np.diag(100 * np.cos(X)))


def test_custom_vjp_bwd_uses_saved_residuals_not_fun(count):
    grad(lambda x: fnp.sum(vsin(x)))(X)
    assert count == {"fun": 0, "fwd": 1, "bwd": 1}


def test_custom_vjp_forward_mode_differentiates_the_function(count):
    # jvp/jacfwd see sin itself: the true derivative, not bwd's 100x
    y, t = jvp(vsin, (X,), (T,))
    _same(y, np.sin(X))
    _same(t, np.cos(X) * T)
    _same(jacfwd(vsin)(X), np.diag(np.cos(X)))
    assert count["bwd"] == 0


def test_custom_vjp_hessian_and_jacfwd_of_jacrev_work():
    # hessian = jacfwd(jacrev): the reverse part is bwd (100 g cos x), whose forward-mode
    # derivative is -100 sin x
    _same(hessian(lambda x: fnp.sum(vsin(x)))(X), np.diag(-100 * np.sin(X)))
    _same(jacfwd(jacrev(vsin))(X), np.einsum("ij,jk->ijk", np.eye(3),
                                             np.diag(-100 * np.sin(X))))
    # reverse over reverse differentiates bwd too
    _same(grad(grad(lambda x: vsin(x)))(np.array(0.4)), np.array(-100 * np.sin(0.4)))


def _exact_csin():
    f = custom_vjp(lambda x: fnp.sin(x))
    f.defvjp(lambda x: (fnp.sin(x), x), lambda x, g: (g * fnp.cos(x),))
    return f


def test_custom_vjp_hessian_of_a_correct_rule_is_the_true_hessian():
    csin = _exact_csin()
    loss = lambda x: fnp.sum(csin(x) * x)  # noqa: E731
    H = hessian(loss)(X)
    _same(H, np.diag(2 * np.cos(X) - X * np.sin(X)))
    _same(jacfwd(grad(loss))(X), H)


def test_jax_rejects_forward_mode_through_custom_vjp():
    """JAX raises for jvp/jacfwd applied to a custom_vjp function; ftrans differentiates
    the function itself there.  Both agree on hessian (= jacfwd(jacrev)), where the
    forward pass differentiates bwd -- checked with the deliberately wrong 100x rule."""
    jax = pytest.importorskip("jax", reason="JAX not installed: the comparison needs it")
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)

    @jax.custom_vjp
    def jsin(x):
        return jnp.sin(x)
    jsin.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda c, g: (100.0 * g * c,))
    xj = jnp.asarray(X)
    np.testing.assert_allclose(jax.grad(lambda x: jnp.sum(jsin(x)))(xj), 100 * np.cos(X))
    with pytest.raises(TypeError, match="custom_vjp"):
        jax.jacfwd(jsin)(xj)
    with pytest.raises(TypeError, match="custom_vjp"):
        jax.jvp(jsin, (xj,), (jnp.asarray(T),))
    # ftrans: forward mode works and gives the derivative of the function itself
    _same(jacfwd(vsin)(X), np.diag(np.cos(X)))
    _same(jvp(vsin, (X,), (T,))[1], np.cos(X) * T)
    # ... and hessian agrees with JAX's
    Hj = np.asarray(jax.hessian(lambda x: jnp.sum(jsin(x)))(xj))
    _same(hessian(lambda x: fnp.sum(vsin(x)))(X), Hj)
    csin = _exact_csin()
    _same(hessian(lambda x: fnp.sum(csin(x)))(X), np.diag(-np.sin(X)))


def test_custom_vjp_under_vmap_and_compositions(count):
    Xs = RNG.standard_normal((5, 3))
    _same(vmap(vsin)(Xs), np.sin(Xs))
    count["bwd"] = 0
    _same(vmap(grad(lambda x: fnp.sum(vsin(x))))(Xs), 100 * np.cos(Xs))
    assert count["bwd"] == 1  # vectorized: one batched bwd, not a loop
    _same(grad(lambda X: fnp.sum(vmap(vsin)(X)))(Xs), 100 * np.cos(Xs))
    _same(vmap(jacrev(vsin))(Xs), np.stack([np.diag(100 * np.cos(r)) for r in Xs]))
    _same(vmap(lambda x, t: jvp(vsin, (x,), (t,))[1])(Xs, Xs), np.cos(Xs) * Xs)
    _same(vmap(hessian(lambda x: fnp.sum(vsin(x))))(Xs),
          np.stack([np.diag(-100 * np.sin(r)) for r in Xs]))
    # only one argument batched
    f = lambda x, y: fnp.sum(vsin(x) * y)  # noqa: E731
    gy = vmap(grad(f), in_axes=(None, 0))(X, Xs)
    _same(gy, 100 * np.cos(X) * Xs)


def test_custom_vjp_jacrev_is_vectorized(count):
    count["bwd"] = 0
    jacrev(vsin)(X)
    assert count["bwd"] == 1


def test_custom_vjp_bwd_none_gives_zero_gradient():
    @custom_vjp
    def f(x, y):
        return x * y

    f.defvjp(lambda x, y: (x * y, (x, y)), lambda res, g: (g * res[1], None))
    gx, gy = grad(lambda x, y: fnp.sum(f(x, y)), argnums=(0, 1))(X, T)
    _same(gx, T)
    _same(gy, np.zeros(3))
    assert gy.dtype == np.float64


def test_custom_vjp_nondiff_argnums():
    def power(n, x):
        return x ** n
    f = custom_vjp(power, nondiff_argnums=(0,))
    seen = []

    def fwd(n, x):
        return x ** n, x

    def bwd(n, x, g):
        seen.append(n)
        return (g * n * x ** (n - 1),)
    f.defvjp(fwd, bwd)
    _same(f(3, X), X ** 3)
    _same(grad(lambda x: fnp.sum(f(3, x)))(X), 3 * X ** 2)
    assert seen == [3]
    _same(vmap(grad(lambda x: fnp.sum(f(2, x))))(np.stack([X, T])), 2 * np.stack([X, T]))
    _same(jacfwd(lambda x: f(3, x))(X), np.diag(3 * X ** 2))


def test_custom_vjp_bwd_sees_materialized_zero_cotangents():
    seen = []

    @custom_vjp
    def two(x):
        return fnp.sin(x), fnp.cos(x)

    def bwd(x, cts):
        seen.append(cts)
        gs, gc = cts
        return (gs * fnp.cos(x) - gc * fnp.sin(x),)
    two.defvjp(lambda x: (two(x), x), bwd)

    g = grad(lambda x: fnp.sum(two(x)[0]))(X)  # the cos output is unused
    _same(g, np.cos(X))
    gs, gc = seen[-1]
    assert type(gc) is np.ndarray and gc.shape == (3,) and gc.dtype == np.float64
    assert not np.any(gc)
    assert type(gs) is np.ndarray and np.all(gs == 1.0)


def test_custom_vjp_pytree_arguments():
    @custom_vjp
    def f(p):
        return p["a"] * p["b"]

    def bwd(res, g):
        return ({"a": g * res["b"] * 2.0, "b": g * res["a"]},)
    f.defvjp(lambda p: (f(p), p), bwd)
    g = grad(lambda p: fnp.sum(f(p)))({"a": X, "b": T})
    _same(g["a"], 2 * T)
    _same(g["b"], X)


def test_custom_vjp_bwd_broadcast_cotangent_raises():
    """As JAX (issue 18): a bwd cotangent of another shape than its input -- here (3,)
    for the (1,) argument s -- raises instead of being summed to fit."""
    @custom_vjp
    def f(x, s):
        return x * s

    f.defvjp(lambda x, s: (x * s, (x, s)), lambda res, g: (g * res[1], g * res[0]))
    with pytest.raises(ValueError, match=r"argument 1 of shape \(1,\).*shape \(3,\)"):
        grad(lambda s: fnp.sum(f(X, s)))(np.array([2.0]))


# ---------------------------------------------------------------------------------
# closures over traced values of enclosing transforms
# ---------------------------------------------------------------------------------
def _closing_custom_jvp(w):
    @custom_jvp
    def f(h):
        return fnp.sin(h * w)

    @f.defjvp
    def f_jvp(primals, tangents):
        return f(primals[0]), fnp.cos(primals[0] * w) * w * tangents[0]
    return f


def _closing_custom_vjp(w):
    f = custom_vjp(lambda h: fnp.sin(h * w))
    f.defvjp(lambda h: (fnp.sin(h * w), h), lambda h, g: (g * fnp.cos(h * w) * w,))
    return f


@pytest.mark.parametrize("make", [_closing_custom_jvp, _closing_custom_vjp])
def test_closure_over_differentiated_value_is_an_error_not_a_wrong_number(make):
    # JAX raises UnexpectedTracerError here too (the rule cannot see the closed-over
    # perturbation); ftrans must not silently drop it
    with pytest.raises(ftrans.EscapedTracerError, match="argument"):
        grad(lambda w: fnp.sum(make(w)(X)))(np.array(0.7))
    f = lambda w: fnp.sum(make(w)(X))  # noqa: E731
    if make is _closing_custom_jvp:
        with pytest.raises(ftrans.EscapedTracerError, match="argument"):
            jvp(f, (np.array(0.7),), (np.array(1.0),))
    else:
        # forward mode through custom_vjp differentiates fun itself, closed-over values
        # included: the right number (d/dw sum(sin(X w)) = sum(cos(X w) X))
        t = jvp(f, (np.array(0.7),), (np.array(1.0),))[1]
        np.testing.assert_allclose(t, np.sum(np.cos(X * 0.7) * X), rtol=1e-13)


@pytest.mark.parametrize("make", [_closing_custom_jvp, _closing_custom_vjp])
def test_closure_over_vmapped_value(make):
    ws = np.array([0.7, 0.2])
    got = vmap(lambda w: fnp.sum(make(w)(X)))(ws)
    np.testing.assert_allclose(got, [np.sum(np.sin(X * w)) for w in ws], rtol=1e-13)


# ---------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------
def test_custom_jvp_called_before_defjvp():
    @custom_jvp
    def f(x):
        return x
    with pytest.raises(TypeError, match="defjvp"):
        f(X)


def test_custom_jvp_rule_with_wrong_tangent_shape():
    @custom_jvp
    def f(x):
        return x * 2.0

    @f.defjvp
    def f_jvp(primals, tangents):
        return primals[0] * 2.0, fnp.sum(tangents[0])
    with pytest.raises(TypeError, match="custom_jvp"):
        jvp(f, (X,), (T,))


def test_custom_vjp_called_before_defvjp():
    @custom_vjp
    def f(x):
        return x
    with pytest.raises(TypeError, match="defvjp"):
        f(X)


@pytest.mark.parametrize("bad", [lambda res, g: (g, g), lambda res, g: (),
                                 lambda res, g: g])
def test_custom_vjp_bwd_returning_wrong_number_of_cotangents(bad):
    @custom_vjp
    def f(x):
        return fnp.sin(x)
    f.defvjp(lambda x: (fnp.sin(x), x), bad)
    with pytest.raises(TypeError, match="bwd"):
        grad(lambda x: fnp.sum(f(x)))(X)


def test_custom_vjp_bwd_returning_wrong_shape():
    @custom_vjp
    def f(x):
        return fnp.sin(x)
    f.defvjp(lambda x: (fnp.sin(x), x), lambda res, g: (fnp.ones(4),))
    with pytest.raises(ValueError, match="shape"):
        grad(lambda x: fnp.sum(f(x)))(X)
