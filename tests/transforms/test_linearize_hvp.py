"""``linearize`` (evaluate once, replay the linear map) and ``hvp`` (forward-over-reverse).

* ``linearize``: values against analytic derivatives; the returned ``jvp_fn`` does not
  re-run the primal computation -- neither the Python function nor a primitive's impl
  (``sin``'s impl is wrapped with a counter: the tangent of ``sin`` needs ``cos(x)``,
  computed once at linearization, never ``sin`` again); pytrees, several primals,
  integer primals, argument checking; jvp_fn under vmap/grad/jacfwd.
* ``hvp``: equals ``hessian @ v`` and the analytic product, on pytrees and several
  arguments; on n = 2000 (a dense Hessian would be 32 MB) the traced memory peak stays
  a few vectors (tracemalloc), i.e. the Hessian is never formed.
"""
import gc
import tracemalloc

import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import linearize, hvp, hessian, jvp, grad, vmap, jacfwd
from ftrans.primitives import elementwise as E

RNG = np.random.default_rng(31)
X = np.array([0.3, -1.2, 2.0])
Y = np.array([2.0, -1.0, 0.5])


@pytest.fixture
def impl_counts():
    """Count calls of the impls of sin, cos and mul; restore them afterwards."""
    counts = {}
    saved = {}
    for name in ("sin", "cos", "mul"):
        p = getattr(E, f"{name}_p")
        saved[name] = p.impl
        counts[name] = 0

        def wrapper(*args, _orig=p.impl, _name=name, **params):
            counts[_name] += 1
            return _orig(*args, **params)
        p.impl = wrapper
    try:
        yield counts
    finally:
        for name, impl in saved.items():
            getattr(E, f"{name}_p").impl = impl


# ---------------------------------------------------------------------------------
# linearize
# ---------------------------------------------------------------------------------
def test_linearize_values():
    out, fn = linearize(lambda x: fnp.sin(x) * x, X)
    np.testing.assert_allclose(out, np.sin(X) * X, rtol=1e-15)
    d = np.cos(X) * X + np.sin(X)
    for t in (np.ones(3), RNG.standard_normal(3), np.zeros(3)):
        tout = fn(t)
        assert type(tout) is np.ndarray and tout.dtype == np.float64
        np.testing.assert_allclose(tout, d * t, rtol=1e-13)


def test_linearize_does_not_rerun_the_function_or_sin(impl_counts):
    calls = []

    def f(x, y):
        calls.append(1)
        return {"s": fnp.sin(x) * y, "t": fnp.sum(x * x)}

    out, fn = linearize(f, X, Y)
    assert len(calls) == 1
    assert impl_counts["sin"] == 1 and impl_counts["cos"] == 1  # sin(x) and its cos(x)
    np.testing.assert_allclose(out["s"], np.sin(X) * Y, rtol=1e-15)
    for k in impl_counts:
        impl_counts[k] = 0
    for _ in range(3):
        tx, ty = RNG.standard_normal(3), RNG.standard_normal(3)
        r = fn(tx, ty)
        np.testing.assert_allclose(r["s"], np.cos(X) * Y * tx + np.sin(X) * ty, rtol=1e-13)
        np.testing.assert_allclose(r["t"], np.sum(2 * X * tx), rtol=1e-13)
    assert len(calls) == 1                               # the Python function: not again
    assert impl_counts["sin"] == 0 and impl_counts["cos"] == 0  # nor the primal ops
    assert impl_counts["mul"] > 0                        # only the linear ops replayed


def test_jvp_does_recompute_for_contrast(impl_counts):
    # the same tangent by jvp runs sin each time: what linearize saves
    for _ in range(3):
        jvp(lambda x: fnp.sin(x) * Y, (X,), (np.ones(3),))
    assert impl_counts["sin"] == 3


def test_linearize_pytree_and_multiple_primals():
    p = {"a": X, "b": (Y, np.array(0.5))}

    def f(p, s):
        return p["a"] * p["b"][0] * s + p["b"][1] ** 2, fnp.sum(fnp.exp(p["a"]))

    out, fn = linearize(f, p, np.array(3.0))
    tp = {"a": np.ones(3), "b": (np.zeros(3), np.array(1.0))}
    t1, t2 = fn(tp, np.array(0.5))
    np.testing.assert_allclose(t1, Y * 3.0 + X * Y * 0.5 + 2 * 0.5, rtol=1e-13)
    np.testing.assert_allclose(t2, np.sum(np.exp(X)), rtol=1e-13)


def test_linearize_output_independent_of_input_and_constant_outputs():
    out, fn = linearize(lambda x: (fnp.ones(2) * 3.0, x * 2.0), X)
    c, t = fn(np.ones(3))
    np.testing.assert_array_equal(c, np.zeros(2))
    np.testing.assert_array_equal(t, 2 * np.ones(3))


def test_linearize_integer_primal():
    n = np.array([1, 2, 3])
    out, fn = linearize(lambda x, n: x * n, X, n)
    np.testing.assert_allclose(out, X * n)
    np.testing.assert_allclose(fn(np.ones(3), np.zeros(3, ftrans.float0)), n.astype(float))
    np.testing.assert_allclose(fn(np.ones(3), None), n.astype(float))  # as jvp accepts


def test_linearize_jvp_fn_checks_tangents():
    _, fn = linearize(lambda x, y: x * y, X, Y)
    with pytest.raises(ValueError, match="structure"):
        fn(np.ones(3))
    with pytest.raises(ValueError, match="shape"):
        fn(np.ones(4), np.ones(3))
    with pytest.raises(TypeError, match="dtype"):
        fn(np.ones(3, np.float32), np.ones(3))


def test_linearize_jvp_fn_is_transformable():
    _, fn = linearize(lambda x: fnp.tanh(x) * x[::-1], X)
    J = np.diag((1 - np.tanh(X) ** 2) * X[::-1]) + np.diag(np.tanh(X))[:, ::-1]
    np.testing.assert_allclose(vmap(fn)(np.eye(3)), J.T, rtol=1e-13)   # rows: J e_i
    np.testing.assert_allclose(jacfwd(fn)(np.zeros(3)), J, rtol=1e-13)
    u = RNG.standard_normal(3)
    np.testing.assert_allclose(grad(lambda t: fnp.sum(fn(t) * u))(np.zeros(3)), J.T @ u,
                               rtol=1e-13)


def test_linearize_float32_stays_float32():
    x = X.astype(np.float32)
    out, fn = linearize(lambda v: fnp.sin(v) * 2.0, x)
    assert out.dtype == np.float32
    assert fn(np.ones(3, np.float32)).dtype == np.float32


def test_linearize_inside_vmap_and_of_grad():
    Xs = RNG.standard_normal((4, 3))
    T = RNG.standard_normal((4, 3))
    got = vmap(lambda x, t: linearize(lambda v: fnp.sin(v) * v, x)[1](t))(Xs, T)
    np.testing.assert_allclose(got, (np.cos(Xs) * Xs + np.sin(Xs)) * T, rtol=1e-13)
    # linearizing the gradient gives Hessian-vector products
    _, hv = linearize(grad(lambda v: fnp.sum(fnp.sin(v) * v)), X)
    np.testing.assert_allclose(hv(Y), (2 * np.cos(X) - X * np.sin(X)) * Y, rtol=1e-13)


# ---------------------------------------------------------------------------------
# hvp
# ---------------------------------------------------------------------------------
def _quartic(x):  # sum(sin(x) * x) + (sum x)^2
    return fnp.sum(fnp.sin(x) * x) + fnp.sum(x) ** 2


def _quartic_grad(x):
    return np.cos(x) * x + np.sin(x) + 2 * np.sum(x)


def _quartic_hv(x, v):
    return (2 * np.cos(x) - x * np.sin(x)) * v + 2 * np.sum(v)


def test_hvp_equals_hessian_times_v():
    v = RNG.standard_normal(3)
    g, hv = hvp(_quartic, (X,), (v,))
    assert isinstance(g, tuple) and isinstance(hv, tuple) and len(g) == len(hv) == 1
    np.testing.assert_allclose(g[0], _quartic_grad(X), rtol=1e-13)
    np.testing.assert_allclose(hv[0], _quartic_hv(X, v), rtol=1e-13)
    np.testing.assert_allclose(hv[0], hessian(_quartic)(X) @ v, rtol=1e-13)


def test_hvp_several_arguments_and_pytrees():
    def f(p, s):
        return fnp.sum(p["w"] ** 2 * s) + fnp.sum(fnp.exp(p["b"])) * s

    p = {"w": RNG.standard_normal((2, 3)), "b": RNG.standard_normal(3)}
    s = np.array(1.5)
    tp = {"w": RNG.standard_normal((2, 3)), "b": RNG.standard_normal(3)}
    ts = np.array(-0.5)
    (gp, gs), (hp, hs) = hvp(f, (p, s), (tp, ts))
    np.testing.assert_allclose(gp["w"], 2 * p["w"] * s, rtol=1e-13)
    np.testing.assert_allclose(gs, np.sum(p["w"] ** 2) + np.sum(np.exp(p["b"])), rtol=1e-13)
    # H t, block by block
    np.testing.assert_allclose(hp["w"], 2 * tp["w"] * s + 2 * p["w"] * ts, rtol=1e-13)
    np.testing.assert_allclose(hp["b"], np.exp(p["b"]) * tp["b"] * s + np.exp(p["b"]) * ts,
                               rtol=1e-13)
    np.testing.assert_allclose(hs, np.sum(2 * p["w"] * tp["w"]) + np.sum(np.exp(p["b"]) * tp["b"]),
                               rtol=1e-13)


def test_hvp_argument_errors():
    with pytest.raises(TypeError, match="tuple"):
        hvp(_quartic, X, (X,))
    with pytest.raises(ValueError):
        hvp(_quartic, (X,), (np.ones(4),))


def test_hvp_large_does_not_form_the_hessian():
    n = 2000  # a dense Hessian: 32 MB; one vector: 16 kB
    x = np.linspace(-2, 2, n)
    v = np.cos(np.arange(n))
    hvp(_quartic, (x[:5],), (v[:5],))  # warm-up (lazy imports, kernel compilation)
    gc.collect()
    tracing = tracemalloc.is_tracing()
    if not tracing:
        tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        g, hv = hvp(_quartic, (x,), (v,))
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        if not tracing:
            tracemalloc.stop()
    np.testing.assert_allclose(hv[0], _quartic_hv(x, v), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g[0], _quartic_grad(x), rtol=1e-12, atol=1e-12)
    assert peak < 100 * n * 8, f"hvp peak {peak / 1e6:.1f} MB: is the Hessian being formed?"


def test_linearize_through_custom_vjp_and_checkpoint():
    # their reverse mode saves residuals other than their inputs; the linearize tape
    # keeps the inputs, so it can replay them
    @ftrans.custom_vjp
    def f(x):
        return fnp.sin(x) * x

    f.defvjp(lambda x: (f(x), x), lambda x, ct: (ct * (fnp.cos(x) * x + fnp.sin(x)),))
    g = ftrans.checkpoint(lambda x: fnp.tanh(x) ** 2)
    x = np.linspace(-1.0, 1.0, 4)
    t = np.array([0.5, -1.0, 2.0, 0.25])
    _, lin_f = linearize(f, x)
    _, lin_g = linearize(g, x)
    np.testing.assert_allclose(lin_f(t), (np.cos(x) * x + np.sin(x)) * t, rtol=1e-13)
    th = np.tanh(x)
    np.testing.assert_allclose(lin_g(t), 2 * th * (1 - th ** 2) * t, rtol=1e-13)
