"""JAX's spellings of ftrans's transforms (issue 25, items 5 and 7): decorator factories
(``@jit(static_argnames=...)``, ``@grad(argnums=1)``, ``@vmap(in_axes=...)``,
``@checkpoint(policy=...)``), ``jit(f).lower/trace`` and ``make_jaxpr``,
``custom_jvp.defjvps``, and checkpoint policies with the residual memory they save."""
import functools

import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans.ad_checkpoint import checkpoint_name, saved_residuals
from ftrans.testing import check_grads

cp = ftrans.checkpoint_policies
rng = np.random.default_rng(0)


@pytest.fixture(scope="module")
def jax(jax_x64):
    return jax_x64


# ---------------------------------------------------------------------------------
# item 5: decorator factories
# ---------------------------------------------------------------------------------
def test_jit_factory_as_jax(jax):
    import jax.numpy as jnp

    @ftrans.jit(static_argnames=("n",))
    def f(x, n):
        return fnp.sum(x ** n)

    @jax.jit(static_argnames=("n",))  # JAX's jit is a decorator factory too
    def fj(x, n):
        return jnp.sum(x ** n)
    x = rng.normal(size=3)
    np.testing.assert_allclose(f(x, n=3), fj(x, n=3))
    np.testing.assert_allclose(f(x, 2), fj(x, 2))
    assert f._trace_count() == 2
    g = functools.partial(ftrans.jit, static_argnums=1)(lambda x, n: x * n)
    np.testing.assert_allclose(g(x, 4), 4 * x)


def test_grad_vmap_checkpoint_factories_match_jax_partials(jax):
    import jax.numpy as jnp
    x, y = rng.normal(size=3), rng.normal(size=3)

    @ftrans.grad(argnums=1)
    def g(a, b):
        return fnp.sum(fnp.sin(a) * b ** 2)
    gj = functools.partial(jax.grad, argnums=1)(lambda a, b: jnp.sum(jnp.sin(a) * b ** 2))
    np.testing.assert_allclose(g(x, y), gj(x, y))

    @ftrans.value_and_grad(argnums=(0, 1))
    def vg(a, b):
        return fnp.sum(a * b)
    v, (ga, gb) = vg(x, y)
    np.testing.assert_allclose(ga, y)
    np.testing.assert_allclose(gb, x)

    @ftrans.vmap(in_axes=(0, None))
    def h(a, b):
        return fnp.dot(a, b)
    m = rng.normal(size=(4, 3))
    hj = functools.partial(jax.vmap, in_axes=(0, None))(jnp.dot)
    np.testing.assert_allclose(h(m, y), hj(m, y))

    @ftrans.checkpoint(policy=cp.dots_saveable)
    def c(w, a):
        return fnp.tanh(w @ a)
    w = rng.normal(size=(3, 3))
    cj = functools.partial(jax.checkpoint, policy=jax.checkpoint_policies.dots_saveable)(
        lambda w, a: jnp.tanh(w @ a))
    np.testing.assert_allclose(ftrans.grad(lambda w: fnp.sum(c(w, x)))(w),
                               jax.grad(lambda w: jnp.sum(cj(w, x)))(w))


def test_factory_made_functions_under_every_transform():
    @ftrans.jit(static_argnames="k")
    def f(x, k=2):
        return fnp.sum(fnp.sin(x) ** k)

    @ftrans.checkpoint(static_argnums=1)
    def c(x, k):
        return fnp.sum(fnp.sin(x) ** k)
    x = rng.normal(size=4)
    want = 2 * np.sin(x) * np.cos(x)
    for fun in (f, lambda x: c(x, 2)):
        np.testing.assert_allclose(ftrans.grad(fun)(x), want)
        np.testing.assert_allclose(ftrans.jit(ftrans.grad(fun))(x), want)
        np.testing.assert_allclose(ftrans.vmap(ftrans.grad(fun))(np.stack([x, x])),
                                   np.stack([want, want]))
        np.testing.assert_allclose(ftrans.jvp(fun, (x,), (np.ones(4),))[1], want.sum())
        check_grads(fun, (x,), order=2, modes=("fwd", "rev"))
    with pytest.raises(TypeError, match="callable"):
        ftrans.jit(None)


# ---------------------------------------------------------------------------------
# item 5: lower / trace / make_jaxpr
# ---------------------------------------------------------------------------------
def test_lower_trace_compile(jax):
    import jax.numpy as jnp

    def f(x, n):
        return {"s": fnp.sum(fnp.sin(x) ** n), "x": x * 2.0}
    jf = ftrans.jit(f, static_argnums=1)
    x = rng.normal(size=(2, 3))
    traced = jf.trace(x, 3)
    text = traced.lower().as_text()
    assert "sin" in text and "integer_pow[n=3]" in text and "reduce_sum" in text
    assert str(traced.jaxpr) == text
    jt = jax.jit(lambda x, n: {"s": jnp.sum(jnp.sin(x) ** n), "x": x * 2.0},
                 static_argnums=1).trace(x, 3)
    got = {k: (tuple(v.shape), np.dtype(v.dtype)) for k, v in traced.out_info.items()}
    want = {k: (tuple(v.shape), np.dtype(v.dtype)) for k, v in jt.out_info.items()}
    assert got == want
    compiled = jf.lower(x, 3).compile()
    y = rng.normal(size=(2, 3))
    out = compiled(y)  # static arguments are not passed again, as in JAX
    np.testing.assert_allclose(out["s"], np.sum(np.sin(y) ** 3))
    np.testing.assert_allclose(out["x"], 2 * y)
    assert compiled.as_text() == text
    with pytest.raises(TypeError, match="lowered for"):
        compiled(np.ones(3))


def test_make_jaxpr(jax):
    import jax.numpy as jnp
    ir = ftrans.make_jaxpr(lambda x, n: fnp.cos(x) * n, static_argnums=1)(np.ones(3), 2.0)
    text = str(ir)
    assert "cos" in text and "mul" in text
    assert len(ir.in_vars) == 1  # the static argument is not an input
    assert str(ir) == str(ftrans.make_ir(lambda x, n: fnp.cos(x) * n, static_argnums=1)(
        np.ones(3), 2.0))
    ir, shapes = ftrans.make_jaxpr(lambda x: (x.sum(), x[:2]), return_shape=True)(np.ones(4))
    _, jshapes = jax.make_jaxpr(lambda x: (jnp.sum(x), x[:2]), return_shape=True)(np.ones(4))
    assert [(s.shape, np.dtype(s.dtype)) for s in shapes] == \
        [(s.shape, np.dtype(s.dtype)) for s in jshapes]


# ---------------------------------------------------------------------------------
# item 7: custom_jvp.defjvps
# ---------------------------------------------------------------------------------
def _f_defjvps(cjvp, np_):
    @cjvp
    def f(x, y):
        return np_.sin(x) * y
    f.defjvps(lambda x_dot, ans, x, y: np_.cos(x) * x_dot * y,
              lambda y_dot, ans, x, y: np_.sin(x) * y_dot)
    return f


def test_defjvps_vs_jax(jax):
    import jax.numpy as jnp
    f = _f_defjvps(ftrans.custom_jvp, fnp)
    fj = _f_defjvps(jax.custom_jvp, jnp)
    x, y = rng.normal(size=3), rng.normal(size=3)
    for argnums in (0, 1, (0, 1)):
        got = ftrans.grad(lambda a, b: fnp.sum(f(a, b)), argnums)(x, y)
        want = jax.grad(lambda a, b: jnp.sum(fj(a, b)), argnums)(x, y)
        np.testing.assert_allclose(got, want)
    check_grads(f, (x, y), order=2, modes=("fwd", "rev"))
    np.testing.assert_allclose(ftrans.jit(f)(x, y), np.sin(x) * y)
    np.testing.assert_allclose(ftrans.vmap(ftrans.grad(lambda a, b: f(a, b)))(x, y),
                               np.cos(x) * y)


def test_defjvps_none_and_errors(jax):
    @ftrans.custom_jvp
    def g(x, y):
        return x * y
    g.defjvps(None, lambda y_dot, ans, x, y: 10.0 * y_dot)  # deliberately not x * y_dot
    x, y = np.array(2.0), np.array(3.0)
    assert float(ftrans.grad(g, 0)(x, y)) == 0.0  # no rule: no tangent from x
    assert float(ftrans.grad(g, 1)(x, y)) == 10.0

    @functools.partial(ftrans.custom_jvp, nondiff_argnums=(0,))
    def h(n, x):
        return x * n
    with pytest.raises(TypeError, match="nondiff_argnums"):
        h.defjvps(lambda t, ans, n, x: t * n)

    @functools.partial(jax.custom_jvp, nondiff_argnums=(0,))
    def hj(n, x):
        return x * n
    with pytest.raises(TypeError):
        hj.defjvps(lambda t, ans, n, x: t * n)
    g.defjvps(None)
    with pytest.raises(TypeError, match="one per argument"):
        ftrans.grad(g)(x, y)


# ---------------------------------------------------------------------------------
# item 7: checkpoint policies and the memory they save
# ---------------------------------------------------------------------------------
D, B, L = 8, 4, 3
WS = [rng.normal(size=(D, D)) / 3 for _ in range(L)]
XB = rng.normal(size=(D, B))


def _mlp(ws, x):
    for i, w in enumerate(ws):
        x = checkpoint_name(fnp.tanh(w @ x), f"h{i}")
    return fnp.sum(x ** 2)


def _bytes(f, *args):
    return sum(int(np.prod(a.shape)) * np.dtype(a.dtype).itemsize
               for a, _ in saved_residuals(f, *args))


# residual bytes, counted by hand from the shapes (float64 = 8 bytes):
# inputs: L weights D*D and x D*B; an activation is D*B
_INPUTS = 8 * (L * D * D + D * B)
_ACT = 8 * D * B
POLICIES = {
    "none": (None, _INPUTS),
    "nothing_saveable": (cp.nothing_saveable, _INPUTS),
    "dots_saveable": (cp.dots_saveable, _INPUTS + L * _ACT),          # the L products
    "save_only_h0": (cp.save_only_these_names("h0"), _INPUTS + _ACT),  # one named value
    "save_h0_h2": (cp.save_only_these_names("h0", "h2"), _INPUTS + 2 * _ACT),
    # everything: the L products, the L tanh outputs and x_L ** 2's input is tanh's
    "everything_saveable": (cp.everything_saveable, _INPUTS + (2 * L + 1) * _ACT),
}


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_policy_residual_bytes_and_gradients(name, monkeypatch):
    monkeypatch.setenv("FTRANS_COMPILER", "reference")  # the staged programs, uncompiled
    policy, want_bytes = POLICIES[name]
    f = ftrans.checkpoint(_mlp, policy=policy)
    assert _bytes(f, WS, XB) == want_bytes
    want = ftrans.grad(_mlp)(WS, XB)
    for got in (ftrans.grad(f)(WS, XB), ftrans.jit(ftrans.grad(f))(WS, XB)):
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-12)


def test_policy_memory_ordering_and_plain_reverse_mode():
    plain = _bytes(_mlp, WS, XB)  # no checkpoint: every intermediate is kept
    sizes = {k: _bytes(ftrans.checkpoint(_mlp, policy=p), WS, XB) for k, (p, _) in
             POLICIES.items()}
    assert sizes["nothing_saveable"] < sizes["save_only_h0"] < sizes["dots_saveable"] \
        < sizes["everything_saveable"] == plain


@pytest.mark.parametrize("policy", [cp.dots_saveable, cp.save_only_these_names("h1")])
def test_policy_higher_order_and_vmap(policy):
    f = ftrans.checkpoint(_mlp, policy=policy)
    x = XB[:, :2]
    check_grads(lambda w0: f([w0] + WS[1:], x), (WS[0],), order=2, modes=("fwd", "rev"))
    xs = np.stack([x, 2 * x])
    got = ftrans.vmap(ftrans.grad(f, 1), in_axes=(None, 0))(WS, xs)
    for k in range(2):
        np.testing.assert_allclose(got[k], ftrans.grad(_mlp, 1)(WS, xs[k]), rtol=1e-12)


@pytest.mark.parametrize("name", ["nothing_saveable", "dots_saveable", "save_h0_h2"])
def test_policy_residual_bytes_equal_jax(name, jax):
    """JAX keeps the same residuals (arguments, dot products, named values) for these
    policies: the byte counts are equal."""
    import jax.numpy as jnp
    from jax.ad_checkpoint import checkpoint_name as jname
    try:
        from jax._src.ad_checkpoint import saved_residuals as jax_saved_residuals
    except ImportError:
        pytest.skip("this JAX version has no saved_residuals")

    def mlp_j(ws, x):
        for i, w in enumerate(ws):
            x = jname(jnp.tanh(w @ x), f"h{i}")
        return jnp.sum(x ** 2)
    jpol = {"nothing_saveable": jax.checkpoint_policies.nothing_saveable,
            "dots_saveable": jax.checkpoint_policies.dots_saveable,
            "save_h0_h2": jax.checkpoint_policies.save_only_these_names("h0", "h2")}[name]
    res = jax_saved_residuals(jax.checkpoint(mlp_j, policy=jpol), WS, XB)
    want = sum(int(np.prod(a.shape)) * np.dtype(a.dtype).itemsize for a, _ in res)
    assert _bytes(ftrans.checkpoint(_mlp, policy=POLICIES[name][0]), WS, XB) == want
