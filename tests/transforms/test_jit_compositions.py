"""``jit`` composed with every transform, in both orders.

References are closed-form derivatives (checked by finite differences where they are
not textbook) or the eager transform of the same function (itself checked against
finite differences in tests/primitives and tests/transforms).  The derivative checks
also verify, by recording what ``compile_ir`` receives, that the *transformed* program
(forward and backward) is what runs compiled under an outer transform.

Random compositions (hypothesis, few derandomized examples: each one stages and
compiles new programs) compare jit(f), grad(jit(f)) and vmap(jit(f)) with the eager
versions.
"""
from __future__ import annotations

import sys

import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import grad, jvp, vjp, vmap, jacfwd, jacrev, hessian, linearize, jit
from ftrans.testing import check_grads

JIT_MODULE = sys.modules["ftrans.transforms._jit_run"]


def _x(*shape, seed=0, dtype=np.float64):
    return np.asarray(np.random.default_rng(seed).uniform(-1, 1, shape), dtype)


def f_sc(x):
    """A scalar function of a vector: sum(sin(x) * x) + sum(tanh(x))**2 / 2."""
    return fnp.sum(fnp.sin(x) * x) + 0.5 * fnp.sum(fnp.tanh(x)) ** 2


def f_sc_grad(x):
    t = np.tanh(x)
    return np.sin(x) + x * np.cos(x) + np.sum(t) * (1 - t ** 2)


def f_sc_hess(x):
    t = np.tanh(x)
    dt = 1 - t ** 2
    return (np.diag(2 * np.cos(x) - x * np.sin(x) + np.sum(t) * (-2 * t * dt))
            + np.outer(dt, dt))


@pytest.fixture
def compiled(monkeypatch):
    """Records the programs handed to compile_ir (the equations' primitive names)."""
    seen, ids = [], set()
    real = JIT_MODULE.compile_ir

    def recording(ir, backend="cpu"):
        if id(ir) not in ids:
            ids.add(id(ir))
            seen.append([e.prim.name for e in ir.eqns])
        return real(ir, backend)
    monkeypatch.setattr(JIT_MODULE, "compile_ir", recording)
    return seen


# ---------------------------------------------------------------------------------
# the pairs named in the issue
# ---------------------------------------------------------------------------------
def test_jit_of_grad():
    x = _x(5)
    np.testing.assert_allclose(jit(grad(f_sc))(x), f_sc_grad(x), rtol=1e-13)


def test_grad_of_jit_runs_forward_and_backward_compiled(compiled):
    x = _x(5)
    jf = jit(f_sc)
    np.testing.assert_allclose(grad(jf)(x), f_sc_grad(x), rtol=1e-13)
    # a forward program (sin, and cos for the backward pass) and a backward program
    # (the cotangent products), each compiled; nothing ran eagerly outside them
    fwd = [p for p in compiled if "sin" in p]
    bwd = [p for p in compiled if "sin" not in p and "cos" not in p and "tanh" not in p]
    assert fwd and bwd and "cos" in fwd[0] and "mul" in bwd[0]
    n = len(compiled)
    grad(jf)(x + 1.0)
    assert len(compiled) == n and jf._trace_count() == 1  # no new program


def test_value_and_grad_of_jit_and_grad_wrt_pytrees():
    def loss(params, x):
        return fnp.sum(fnp.tanh(x @ params["w"] + params["b"]) ** 2)
    params = {"w": _x(3, 2), "b": _x(2, seed=1)}
    x = _x(4, 3, seed=2)
    v, g = ftrans.value_and_grad(jit(loss))(params, x)
    v0, g0 = ftrans.value_and_grad(loss)(params, x)
    np.testing.assert_allclose(v, v0, rtol=1e-14)
    for k in params:
        np.testing.assert_allclose(g[k], g0[k], rtol=1e-13)
    gx = grad(jit(loss), argnums=1)(params, x)
    np.testing.assert_allclose(gx, grad(loss, argnums=1)(params, x), rtol=1e-13)


def test_vmap_of_jit(compiled):
    xs = _x(4, 5)
    out = vmap(jit(f_sc))(xs)
    np.testing.assert_allclose(out, [f_sc(x) for x in xs], rtol=1e-13)
    assert any(p[:1] == ["sin"] and "reduce_sum" in p for p in compiled)  # batched program
    # unbatched and batched arguments mixed, in_axes on the last axis
    g = jit(lambda a, b: fnp.sin(a) * b)
    a, b = _x(3, 4), _x(3, seed=1)
    np.testing.assert_allclose(vmap(g, in_axes=(1, None))(a, b), np.sin(a.T) * b, rtol=1e-14)


def test_jit_of_vmap_of_grad():
    xs = _x(4, 5)
    out = jit(vmap(grad(f_sc)))(xs)
    np.testing.assert_allclose(out, np.stack([f_sc_grad(x) for x in xs]), rtol=1e-13)


def test_vmap_of_grad_of_jit():
    xs = _x(4, 5)
    out = vmap(grad(jit(f_sc)))(xs)
    np.testing.assert_allclose(out, np.stack([f_sc_grad(x) for x in xs]), rtol=1e-13)


def test_hessian_of_jit(compiled):
    x = _x(4)
    np.testing.assert_allclose(hessian(jit(f_sc))(x), f_sc_hess(x), rtol=1e-12, atol=1e-13)
    assert len(compiled) >= 2


def test_jit_of_hessian():
    x = _x(4)
    np.testing.assert_allclose(jit(hessian(f_sc))(x), f_sc_hess(x), rtol=1e-12, atol=1e-13)


def test_jacrev_and_jacfwd_of_jit():
    def f(x):
        return fnp.sin(x) * fnp.sum(x ** 2)
    x = _x(3)
    want = np.diag(np.cos(x)) * np.sum(x ** 2) + np.outer(np.sin(x), 2 * x)
    np.testing.assert_allclose(jacrev(jit(f))(x), want, rtol=1e-13)
    np.testing.assert_allclose(jacfwd(jit(f))(x), want, rtol=1e-13)
    np.testing.assert_allclose(jit(jacrev(f))(x), want, rtol=1e-13)
    np.testing.assert_allclose(jit(jacfwd(f))(x), want, rtol=1e-13)


def test_jvp_vjp_linearize_of_jit_with_several_outputs():
    def f(x, y):
        return {"a": fnp.sin(x) * y, "b": fnp.sum(x * x)}
    jf = jit(f)
    x, y = _x(3), _x(3, seed=1)
    tx, ty = _x(3, seed=2), _x(3, seed=3)
    out, t = jvp(jf, (x, y), (tx, ty))
    out0, t0 = jvp(f, (x, y), (tx, ty))
    for k in ("a", "b"):
        np.testing.assert_allclose(out[k], out0[k], rtol=1e-14)
        np.testing.assert_allclose(t[k], t0[k], rtol=1e-13)
    np.testing.assert_allclose(t["a"], np.cos(x) * tx * y + np.sin(x) * ty, rtol=1e-13)
    out, pull = vjp(jf, x, y)
    ct = {"a": _x(3, seed=4), "b": np.array(0.7)}
    gx, gy = pull(ct)
    np.testing.assert_allclose(gx, ct["a"] * np.cos(x) * y + 0.7 * 2 * x, rtol=1e-13)
    np.testing.assert_allclose(gy, ct["a"] * np.sin(x), rtol=1e-13)


def test_linearize_of_jit():
    jf = jit(lambda x: fnp.sin(x) * x)
    x, t = _x(3), _x(3, seed=1)
    out, lin = linearize(jf, x)
    assert type(out) is np.ndarray  # the value, not a tracer of linearize's tape
    np.testing.assert_allclose(out, np.sin(x) * x, rtol=1e-15)
    np.testing.assert_allclose(lin(t), (np.cos(x) * x + np.sin(x)) * t, rtol=1e-13)


def test_grad_of_grad_of_jit_and_jit_of_grad_of_jit():
    f = lambda x: fnp.sin(x) * x ** 3
    x = np.array(0.7)
    want = -np.sin(x) * x ** 3 + 6 * np.cos(x) * x ** 2 + 6 * x * np.sin(x)
    np.testing.assert_allclose(grad(grad(jit(f)))(x), want, rtol=1e-13)
    np.testing.assert_allclose(jit(grad(jit(grad(jit(f)))))(x), want, rtol=1e-13)


def test_check_grads_through_jit_order_3():
    check_grads(jit(lambda x, y: fnp.tanh(x * y) / (1.0 + y * y)), (_x(3), _x(3, seed=1)),
                order=3, modes=("fwd", "rev"))


def test_integer_inputs_and_outputs_through_grad_of_jit():
    def f(x, n, idx):
        return fnp.sum(x[idx] ** n), idx * 2
    jf = jit(f)
    x, n, idx = _x(4), np.array(3), np.array([0, 2, 2])
    g, aux = grad(lambda x: jf(x, n, idx)[0]), jf(x, n, idx)[1]
    want = np.zeros(4)
    np.add.at(want, idx, 3 * x[idx] ** 2)
    np.testing.assert_allclose(g(x), want, rtol=1e-13)
    np.testing.assert_array_equal(aux, idx * 2)
    gi = grad(lambda x, n: jf(x, n, idx)[0], argnums=(0, 1), allow_int=True)(x, n)
    assert gi[1].dtype == ftrans.float0
    _, t = jvp(lambda x: jf(x, n, idx), (x,), (np.ones(4),))
    assert t[1].dtype == ftrans.float0


def test_grad_through_unused_and_constant_outputs():
    jf = jit(lambda x, y: (fnp.sum(x * 2.0), y * 0.0 + 1.0, np.ones(2)))
    x, y = _x(3), _x(3)
    np.testing.assert_allclose(grad(lambda x: jf(x, y)[0])(x), 2 * np.ones(3))
    np.testing.assert_allclose(grad(lambda y: fnp.sum(jf(x, y)[1]))(y), np.zeros(3))
    _, t = jvp(lambda y: jf(x, y)[2], (y,), (np.ones(3),))
    np.testing.assert_array_equal(t, np.zeros(2))


# ---------------------------------------------------------------------------------
# higher-order primitives inside jit
# ---------------------------------------------------------------------------------
@ftrans.custom_vjp
def clip_grad(x):
    return x


clip_grad.defvjp(lambda x: (x, None), lambda res, g: (fnp.clip(g, -0.5, 0.5),))


@ftrans.custom_jvp
def softplus(x):
    return fnp.log1p(fnp.exp(x))


@softplus.defjvp
def _softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return softplus(x), t * 2.0 / (1 + fnp.exp(-x))  # deliberately twice the true rule


def test_jit_of_custom_vjp():
    f = lambda x: fnp.sum(clip_grad(x) * 3.0)
    x = _x(4)
    np.testing.assert_allclose(jit(f)(x), 3 * x.sum(), rtol=1e-14)
    np.testing.assert_allclose(grad(jit(f))(x), np.full(4, 0.5))   # bwd's clip applies
    np.testing.assert_allclose(jit(grad(f))(x), np.full(4, 0.5))


def test_jit_of_custom_jvp():
    f = lambda x: fnp.sum(softplus(x))
    x = _x(4)
    np.testing.assert_allclose(jit(f)(x), np.sum(np.log1p(np.exp(x))), rtol=1e-14)
    want = 2.0 / (1 + np.exp(-x))  # the user's rule, not the true derivative
    np.testing.assert_allclose(grad(jit(f))(x), want, rtol=1e-14)
    np.testing.assert_allclose(jit(grad(f))(x), want, rtol=1e-14)
    np.testing.assert_allclose(jvp(jit(f), (x,), (np.ones(4),))[1], want.sum(), rtol=1e-14)


def test_jit_of_checkpoint(compiled):
    layer = ftrans.checkpoint(lambda w, h: fnp.tanh(w * h))

    def f(w, x):
        for _ in range(3):
            x = layer(w, x)
        return fnp.sum(x)
    w, x = _x(3), _x(3, seed=1)
    np.testing.assert_allclose(jit(f)(w, x), f(w, x), rtol=1e-14)
    assert [p.count("checkpoint") for p in compiled] == [3]  # staged as 3 equations
    del compiled[:]
    np.testing.assert_allclose(grad(jit(f))(w, x), grad(f)(w, x), rtol=1e-13)
    # the forward program returns the layers' inputs only; the backward program
    # recomputes each layer's tanh
    fwd, bwd = compiled
    assert fwd.count("tanh") == 3 and bwd.count("tanh") == 3 and "reduce_sum" in fwd
    np.testing.assert_allclose(jit(grad(f))(w, x), grad(f)(w, x), rtol=1e-13)


def test_jit_inside_jit_under_transforms():
    inner = jit(lambda x: fnp.sin(x) * 2.0)
    outer = jit(lambda x: fnp.sum(inner(x) * inner(x * 3.0)))
    x = _x(4)
    want = 2 * np.cos(x) * 2 * np.sin(3 * x) + 2 * np.sin(x) * 2 * np.cos(3 * x) * 3
    np.testing.assert_allclose(grad(outer)(x), want, rtol=1e-13)
    np.testing.assert_allclose(jit(grad(outer))(x), want, rtol=1e-13)
    np.testing.assert_allclose(vmap(grad(outer))(np.stack([x, x])), [want, want], rtol=1e-13)


# ---------------------------------------------------------------------------------
# closures over values of enclosing transforms (lifted inputs), perturbation confusion
# ---------------------------------------------------------------------------------
def test_grad_of_a_jit_closing_over_the_differentiated_value():
    x = _x(3)

    def g(y):
        return fnp.sum(jit(lambda x: x * y ** 2)(x))
    np.testing.assert_allclose(grad(g)(1.5), 2 * 1.5 * x.sum(), rtol=1e-14)
    # a jitted function created once and closing over a tracer is staged on every call
    # (the closed-over value is new each time) and never cached
    holder = {}

    def h(y):
        holder["f"] = holder.get("f") or jit(lambda x: x * holder["y"])
        holder["y"] = y
        return fnp.sum(holder["f"](x))
    for y0 in (1.0, 2.0):
        np.testing.assert_allclose(grad(h)(y0), x.sum(), rtol=1e-14)
    assert holder["f"]._cache_size() == 0 and holder["f"]._trace_count() == 2


def test_vmap_of_a_jit_closing_over_a_batched_value():
    ys = _x(4, 3)
    x = _x(3, seed=1)
    out = vmap(lambda y: jit(lambda x: fnp.sin(x) * y)(x))(ys)
    np.testing.assert_allclose(out, np.sin(x) * ys, rtol=1e-14)


@pytest.mark.parametrize("outer,inner", [(o, i) for o in ("grad", "jvp", "jacrev")
                                         for i in ("grad", "jvp", "jacfwd")])
def test_no_perturbation_confusion_through_jit(outer, inner):
    ops = {
        "grad": lambda g, p: grad(g)(p),
        "jvp": lambda g, p: jvp(g, (p,), (np.array(1.0),))[1],
        "jacrev": lambda g, p: jacrev(g)(p),
        "jacfwd": lambda g, p: jacfwd(g)(p),
    }
    # d/dx [x * d/dy (x + y)] = 1; a confused implementation returns 2
    f = lambda x: x * jit(lambda x: ops[inner](lambda y: x + y, np.array(1.0)))(x)
    assert float(ops[outer](f, np.array(2.0))) == pytest.approx(1.0)
    f2 = lambda x: x * ops[inner](jit(lambda y: x + y), np.array(1.0))
    assert float(ops[outer](jit(f2), np.array(2.0))) == pytest.approx(1.0)


# ---------------------------------------------------------------------------------
# float32 stays float32 through every composition
# ---------------------------------------------------------------------------------
def test_float32_is_preserved():
    x = _x(4, dtype=np.float32)
    jf = jit(f_sc)
    for out in (jf(x), grad(jf)(x), jit(grad(f_sc))(x), vmap(jf)(np.stack([x, x])),
                hessian(jf)(x), jit(hessian(f_sc))(x)):
        assert out.dtype == np.float32


# ---------------------------------------------------------------------------------
# random compositions (hypothesis)
# ---------------------------------------------------------------------------------
hypothesis = pytest.importorskip("hypothesis", reason="property tests need hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402

UNARY = [fnp.sin, fnp.tanh, lambda a: fnp.exp(fnp.sin(a)), lambda a: fnp.log1p(a * a),
         lambda a: -a, lambda a: a * 0.5 + 1.0,
         lambda a: fnp.sum(a, axis=-1, keepdims=True) * a]
BINARY = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a / (1.0 + b * b),
          lambda a, b: a @ b.T @ a / 4.0]


@st.composite
def programs(draw):
    steps = draw(st.lists(st.tuples(st.booleans(), st.integers(0, 6), st.integers(0, 3),
                                    st.integers(0, 10)), min_size=1, max_size=5))

    def f(x, y):
        vals = [x, y]
        for unary, i, j, k in steps:
            a = vals[k % len(vals)]
            if unary:
                vals.append(UNARY[i](a))
            else:
                vals.append(BINARY[j](a, vals[(k + 1) % len(vals)]))
        return fnp.sum(vals[-1] * vals[-1]) + fnp.sum(vals[-2])
    return f


@settings(max_examples=8, derandomize=True, deadline=None)
@given(programs())
def test_random_compositions(f):
    x, y = _x(2, 3), _x(2, 3, seed=1)
    np.testing.assert_allclose(jit(f)(x, y), f(x, y), rtol=1e-12)
    g, g0 = grad(jit(f), argnums=(0, 1))(x, y), grad(f, argnums=(0, 1))(x, y)
    for a, b in zip(g, g0):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)
    xs = np.stack([x, x * 0.5, -x])
    np.testing.assert_allclose(vmap(jit(f), in_axes=(0, None))(xs, y),
                               [f(xi, y) for xi in xs], rtol=1e-12)
    np.testing.assert_allclose(jit(vmap(grad(f), in_axes=(0, None)))(xs, y),
                               [grad(f)(xi, y) for xi in xs], rtol=1e-11, atol=1e-12)
