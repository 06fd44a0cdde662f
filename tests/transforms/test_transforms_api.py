"""The public functional API contract (DESIGN.md, "Public functional API").

Expected values are analytic (derived by hand) or come from NumPy.
"""
import collections

import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import grad, value_and_grad, vjp, jvp, jacfwd, jacrev, hessian

tree_flatten = ftrans.tree_util.tree_flatten
tree_structure = ftrans.tree_util.tree_structure
register_pytree_node = ftrans.tree_util.register_pytree_node


def _assert_plain_array(x, dtype=None):
    """A result leaf must be a numpy.ndarray (never a tracer, never a NumPy scalar)."""
    assert type(x) is np.ndarray, f"expected numpy.ndarray, got {type(x).__name__}"
    if dtype is not None:
        assert x.dtype == np.dtype(dtype), f"dtype {x.dtype}, expected {dtype}"


def _assert_all_plain(tree, dtype=None):
    leaves = tree_flatten(tree)[0]
    assert leaves
    for leaf in leaves:
        _assert_plain_array(leaf, dtype)


Point = collections.namedtuple("Point", ["x", "y"])


class Params:
    """A user container registered as a pytree node."""

    def __init__(self, w, b):
        self.w = w
        self.b = b


register_pytree_node(Params, lambda p: ((p.w, p.b), None), lambda _, c: Params(*c))


# ---------------------------------------------------------------------------------
# argnums
# ---------------------------------------------------------------------------------

def f3(x, y, z):
    return x * y ** 2 + fnp.sin(z)


def test_argnums_int_default_zero():
    assert grad(f3)(2.0, 3.0, 0.5) == 9.0                  # d/dx = y**2
    assert grad(f3, argnums=1)(2.0, 3.0, 0.5) == 12.0      # d/dy = 2xy
    np.testing.assert_allclose(grad(f3, argnums=2)(2.0, 3.0, 0.5), np.cos(0.5), rtol=1e-15)


def test_argnums_negative():
    np.testing.assert_allclose(grad(f3, argnums=-1)(2.0, 3.0, 0.5), np.cos(0.5), rtol=1e-15)
    assert grad(f3, argnums=-2)(2.0, 3.0, 0.5) == 12.0
    assert grad(f3, argnums=-3)(2.0, 3.0, 0.5) == 9.0


def test_argnums_tuple_returns_tuple_in_argnums_order():
    g = grad(f3, argnums=(1, 0))(2.0, 3.0, 0.5)
    assert isinstance(g, tuple) and len(g) == 2
    assert g[0] == 12.0 and g[1] == 9.0
    g = grad(f3, argnums=(0,))(2.0, 3.0, 0.5)
    assert isinstance(g, tuple) and len(g) == 1 and g[0] == 9.0
    g = grad(f3, argnums=(0, -1))(2.0, 3.0, 0.5)
    np.testing.assert_allclose(g, (9.0, np.cos(0.5)), rtol=1e-15)


def test_argnums_for_value_and_grad_and_jacobians():
    v, g = value_and_grad(f3, argnums=(0, 2))(2.0, 3.0, 0.5)
    np.testing.assert_allclose(v, 18.0 + np.sin(0.5), rtol=1e-15)
    np.testing.assert_allclose(g, (9.0, np.cos(0.5)), rtol=1e-15)

    def h(a, b):
        return a * b
    a, b = np.array([1.0, 2.0]), np.array([3.0, -4.0])
    for jac in (jacfwd, jacrev):
        ja, jb = jac(h, argnums=(0, 1))(a, b)
        np.testing.assert_array_equal(ja, np.diag(b))
        np.testing.assert_array_equal(jb, np.diag(a))
        np.testing.assert_array_equal(jac(h, argnums=-1)(a, b), np.diag(a))


def test_non_differentiated_arguments_may_be_anything():
    """Arguments not in argnums are passed through untouched (strings, ints, callables)."""
    def f(x, n, name, fn):
        assert isinstance(name, str) and isinstance(n, int)
        return fn(x) * n
    assert grad(f)(2.0, 3, "abc", lambda t: t * t) == 12.0


# ---------------------------------------------------------------------------------
# has_aux
# ---------------------------------------------------------------------------------

def _with_aux(x):
    y = fnp.sum(x ** 2)
    return y, {"sq": x ** 2, "n": 7, "label": "hi"}


X3 = np.array([1.0, -2.0, 0.5])


def _check_aux(aux):
    np.testing.assert_array_equal(aux["sq"], X3 ** 2)
    _assert_plain_array(aux["sq"], np.float64)     # concrete, not a tracer
    assert aux["n"] == 7 and aux["label"] == "hi"


def test_has_aux_grad():
    g, aux = grad(_with_aux, has_aux=True)(X3)
    np.testing.assert_array_equal(g, 2 * X3)
    _check_aux(aux)


def test_has_aux_value_and_grad():
    (v, aux), g = value_and_grad(_with_aux, has_aux=True)(X3)
    assert v == np.sum(X3 ** 2)
    np.testing.assert_array_equal(g, 2 * X3)
    _check_aux(aux)


def test_has_aux_vjp():
    out, pullback, aux = vjp(_with_aux, X3, has_aux=True)
    assert out == np.sum(X3 ** 2)
    (ct,) = pullback(np.float64(2.0))
    np.testing.assert_array_equal(ct, 4 * X3)
    _check_aux(aux)


def test_has_aux_jvp():
    out, t, aux = jvp(_with_aux, (X3,), (np.ones(3),), has_aux=True)
    assert out == np.sum(X3 ** 2)
    assert t == np.sum(2 * X3)
    _check_aux(aux)


@pytest.mark.parametrize("jac", [jacfwd, jacrev])
def test_has_aux_jacobians(jac):
    def f(x):
        return x ** 2, fnp.sum(x)
    J, aux = jac(f, has_aux=True)(X3)
    np.testing.assert_array_equal(J, np.diag(2 * X3))
    assert aux == np.sum(X3)
    _assert_plain_array(aux)


def test_has_aux_hessian():
    def f(x):
        return fnp.sum(x ** 3), x[0]
    H, aux = hessian(f, has_aux=True)(X3)
    np.testing.assert_array_equal(H, np.diag(6 * X3))
    assert aux == X3[0]


# ---------------------------------------------------------------------------------
# pytrees in and out
# ---------------------------------------------------------------------------------

def test_grad_of_tuple_list_dict_none_input():
    def f(p):
        (a, b), d = p
        return fnp.sum(a * b[0]) + d["k"] ** 2 + fnp.sum(d["z"]) * 0.5
    a = np.array([1.0, 2.0])
    p = ((a, [np.array([3.0, 4.0])]), {"k": 1.5, "z": np.ones(3), "none": None})
    g = grad(f)(p)
    assert tree_structure(g) == tree_structure(p)
    (ga, gb), gd = g
    np.testing.assert_array_equal(ga, [3.0, 4.0])
    np.testing.assert_array_equal(gb[0], a)
    assert gd["k"] == 3.0 and gd["none"] is None
    np.testing.assert_array_equal(gd["z"], 0.5 * np.ones(3))
    _assert_all_plain(g, np.float64)
    assert isinstance(gb, list) and isinstance(gd, dict)


def test_grad_of_namedtuple_and_registered_class():
    def f(pt, prm):
        return pt.x * pt.y + fnp.sum(prm.w * prm.b)
    pt = Point(2.0, np.array(3.0))
    prm = Params(np.array([1.0, 2.0]), np.array([5.0, -1.0]))
    gpt, gprm = grad(f, argnums=(0, 1))(pt, prm)
    assert type(gpt) is Point and type(gprm) is Params
    assert gpt.x == 3.0 and gpt.y == 2.0
    np.testing.assert_array_equal(gprm.w, prm.b)
    np.testing.assert_array_equal(gprm.b, prm.w)
    _assert_all_plain((gpt, gprm), np.float64)


def test_pytree_outputs_of_vjp_and_jvp():
    def f(p):
        return {"s": fnp.sin(p.x), "pair": (p.x * p.y, [p.y ** 2]), "nothing": None}
    p = Point(np.array([0.3, 0.7]), np.array([2.0, -1.0]))
    out, t = jvp(f, (p,), (Point(np.ones(2), np.zeros(2)),))
    assert tree_structure(out) == tree_structure(t) == tree_structure(f(p))
    np.testing.assert_allclose(t["s"], np.cos(p.x), rtol=1e-15)
    np.testing.assert_array_equal(t["pair"][0], p.y)
    np.testing.assert_array_equal(t["pair"][1][0], np.zeros(2))
    assert t["nothing"] is None
    _assert_all_plain((out, t), np.float64)

    out2, pullback = vjp(f, p)
    ct = {"s": np.array([1.0, 2.0]), "pair": (np.array([1.0, 1.0]), [np.array([0.5, 0.5])]),
          "nothing": None}
    (gp,) = pullback(ct)
    assert type(gp) is Point
    np.testing.assert_allclose(gp.x, np.cos(p.x) * [1.0, 2.0] + p.y, rtol=1e-15)
    np.testing.assert_allclose(gp.y, p.x + 0.5 * 2 * p.y, rtol=1e-15)
    _assert_all_plain(gp, np.float64)


def test_vjp_of_multiple_primals_returns_one_cotangent_per_primal():
    out, pullback = vjp(lambda a, b: a * b, np.array([1.0, 2.0]), 3.0)
    ga, gb = pullback(np.array([1.0, 1.0]))
    np.testing.assert_array_equal(ga, [3.0, 3.0])
    assert gb == 3.0 and gb.shape == ()
    _assert_plain_array(ga, np.float64)
    _assert_plain_array(gb, np.float64)


def test_vjp_fn_callable_many_times():
    x = np.array([0.1, 0.2, 0.3])
    out, pullback = vjp(lambda v: fnp.exp(v) * 2.0, x)
    for k in range(4):
        ct = np.arange(3.0) + k
        (g,) = pullback(ct)
        np.testing.assert_allclose(g, 2 * np.exp(x) * ct, rtol=1e-15)
    # repeated calls do not accumulate state
    np.testing.assert_allclose(pullback(np.ones(3))[0], 2 * np.exp(x), rtol=1e-15)
    np.testing.assert_allclose(pullback(np.ones(3))[0], 2 * np.exp(x), rtol=1e-15)


# ---------------------------------------------------------------------------------
# result types and dtypes
# ---------------------------------------------------------------------------------

def test_results_are_plain_ndarrays_never_scalars_or_tracers():
    f = lambda x: fnp.sum(fnp.tanh(x))                                          # noqa: E731
    x = np.array([0.5, -0.5])
    _assert_plain_array(grad(f)(x))
    v, g = value_and_grad(f)(x)
    _assert_plain_array(v)
    _assert_plain_array(g)
    _assert_plain_array(grad(lambda s: s * s)(3.0))                   # 0-d, not np.float64
    _assert_plain_array(value_and_grad(lambda s: s * s)(3.0)[0])
    out, t = jvp(lambda s: s * s, (3.0,), (1.0,))
    _assert_plain_array(out)
    _assert_plain_array(t)
    out, pullback = vjp(lambda s: s * s, 3.0)
    _assert_plain_array(out)
    _assert_plain_array(pullback(np.float64(1.0))[0])
    for jac in (jacfwd, jacrev, hessian):
        _assert_plain_array(jac(f)(x))
    _assert_plain_array(jacfwd(lambda s: s * s)(3.0))
    _assert_plain_array(jacrev(lambda s: s * s)(3.0))


def test_constant_output_gives_zero_arrays_not_symbolic_zeros():
    g = grad(lambda x: 3.0)(np.array([1.0, 2.0]))
    _assert_plain_array(g, np.float64)
    np.testing.assert_array_equal(g, [0.0, 0.0])
    out, t = jvp(lambda x: np.ones(2), (1.0,), (1.0,))
    _assert_plain_array(t)
    np.testing.assert_array_equal(t, [0.0, 0.0])
    out, pullback = vjp(lambda x, y: x * 2.0, np.ones(2, np.float32), np.ones(3))
    gx, gy = pullback(np.ones(2, np.float32))
    _assert_plain_array(gy, np.float64)
    np.testing.assert_array_equal(gy, np.zeros(3))
    _assert_plain_array(gx, np.float32)
    # a partly unused pytree input
    g = grad(lambda p: p[0] * 2.0)((1.0, np.ones(2)))
    _assert_plain_array(g[1], np.float64)
    np.testing.assert_array_equal(g[1], [0.0, 0.0])


FLOAT32_FUNCS = {
    "poly": lambda x: fnp.sum(x ** 3 * 0.5 - 2.0 * x + 1),
    "transcendental": lambda x: fnp.sum(fnp.exp(fnp.sin(x)) + fnp.log1p(x * x) + fnp.sqrt(x * x + 1)),
    "mean_var": lambda x: fnp.mean(x) + fnp.var(x) + fnp.std(x),
    "division": lambda x: fnp.sum(1.0 / (1.0 + x * x)),
    "matmul": lambda x: fnp.sum(fnp.tanh(x.reshape(2, 2) @ x.reshape(2, 2))),
    "max_min": lambda x: fnp.max(x) - fnp.min(x * 2.0),
    "log2_log10": lambda x: fnp.sum(fnp.log2(x * x + 1) + fnp.log10(x * x + 2)),
    "indexing": lambda x: x[0] * x[1:].sum() + x[::2].mean(),
    "python_float_pow": lambda x: fnp.sum(fnp.abs(x) ** 1.5),
    "where_clip": lambda x: fnp.sum(fnp.where(x > 0, x, 0.1 * x) + fnp.clip(x, -0.5, 0.5)),
    "prod": lambda x: fnp.prod(x + 2.0),
    "arctan2": lambda x: fnp.sum(fnp.arctan2(x, 2.0)),
}


@pytest.mark.parametrize("name", sorted(FLOAT32_FUNCS))
def test_float32_stays_float32(name):
    f = FLOAT32_FUNCS[name]
    x = np.array([0.25, -1.5, 0.75, 2.0], np.float32)
    v, g = value_and_grad(f)(x)
    _assert_plain_array(v, np.float32)
    _assert_plain_array(g, np.float32)
    out, t = jvp(f, (x,), (np.ones(4, np.float32),))
    _assert_plain_array(out, np.float32)
    _assert_plain_array(t, np.float32)
    np.testing.assert_allclose(t, np.sum(g), rtol=1e-4)
    H = hessian(f)(x)
    _assert_plain_array(H, np.float32)
    # value agrees with the float64 computation to float32 precision
    v64, g64 = value_and_grad(f)(x.astype(np.float64))
    np.testing.assert_allclose(v, v64, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(g, g64, rtol=1e-4, atol=1e-5)


def test_float32_jacobians_and_vjp():
    x = np.array([0.5, 1.5], np.float32)
    f = lambda v: fnp.sin(v) * 3.0                                              # noqa: E731
    for jac in (jacfwd, jacrev):
        J = jac(f)(x)
        _assert_plain_array(J, np.float32)
        np.testing.assert_allclose(J, np.diag(3 * np.cos(x)), rtol=1e-6)
    out, pullback = vjp(f, x)
    _assert_plain_array(out, np.float32)
    _assert_plain_array(pullback(np.ones(2, np.float32))[0], np.float32)


def test_gradient_dtype_equals_each_primal_dtype():
    """Mixed precision inputs: each gradient has the dtype of its own primal."""
    f = lambda a, b: fnp.sum(a * b)                                             # noqa: E731
    a = np.array([1.0, 2.0], np.float32)
    b = np.array([3.0, 4.0], np.float64)
    ga, gb = grad(f, argnums=(0, 1))(a, b)
    _assert_plain_array(ga, np.float32)
    _assert_plain_array(gb, np.float64)
    np.testing.assert_array_equal(ga, b.astype(np.float32))
    np.testing.assert_array_equal(gb, a.astype(np.float64))


def test_allow_int_gives_float0_zeros():
    def f(x, n, mask):
        return fnp.sum(x * n) + fnp.sum(fnp.where(mask, x, 0.0))
    x = np.array([1.0, 2.0, 3.0])
    n = np.array([2, 3, 4])
    mask = np.array([True, False, True])
    gx, gn, gm = grad(f, argnums=(0, 1, 2), allow_int=True)(x, n, mask)
    np.testing.assert_array_equal(gx, n + mask)
    for g, p in ((gn, n), (gm, mask)):
        _assert_plain_array(g, ftrans.float0)
        assert g.shape == p.shape
    # a Python int scalar too
    g = grad(lambda x, k: x * k, argnums=1, allow_int=True)(2.0, 3)
    assert g.dtype == ftrans.float0 and g.shape == ()


def test_vjp_integer_primal_gets_float0():
    out, pullback = vjp(lambda x, k: x * k, np.array([1.0, 2.0]), np.array([3, 4]))
    gx, gk = pullback(np.ones(2))
    np.testing.assert_array_equal(gx, [3.0, 4.0])
    assert gk.dtype == ftrans.float0 and gk.shape == (2,)


def test_jvp_integer_primal_takes_float0_or_none_tangent():
    f = lambda x, k: x * k                                                     # noqa: E731
    x, k = np.array([1.0, 2.0]), np.array([3, 4])
    _, t1 = jvp(f, (x, k), (np.ones(2), np.zeros(2, ftrans.float0)))
    _, t2 = jvp(f, (x, k), (np.ones(2), None))
    np.testing.assert_array_equal(t1, [3.0, 4.0])
    np.testing.assert_array_equal(t2, [3.0, 4.0])


def test_python_scalar_inputs():
    g = grad(lambda x: x ** 3)(2.0)
    _assert_plain_array(g, np.float64)
    assert g == 12.0
    out, t = jvp(lambda x, y: x * y, (2.0, 5.0), (1.0, 0.0))
    assert out == 10.0 and t == 5.0
    _assert_plain_array(out, np.float64)
    out, pullback = vjp(lambda x: x * 4.0, 1.5)
    assert out == 6.0 and pullback(np.float64(1.0))[0] == 4.0
    # NumPy scalars are accepted too, and keep their dtype
    g = grad(lambda x: x * x)(np.float32(3.0))
    _assert_plain_array(g, np.float32)
    assert g == 6.0
    # complex Python scalar with holomorphic=True
    g = grad(lambda z: z * z, holomorphic=True)(1.0 + 2.0j)
    _assert_plain_array(g, np.complex128)
    assert g == 2.0 + 4.0j


def test_kwargs_passed_through_and_not_differentiated():
    def f(x, y, *, scale, offset=0.0):
        return scale * x * y + offset
    assert grad(f)(2.0, 3.0, scale=5.0) == 15.0
    assert grad(f, argnums=1)(2.0, 3.0, scale=5.0, offset=1.0) == 10.0
    v, g = value_and_grad(f)(2.0, 3.0, scale=0.5, offset=1.0)
    assert v == 4.0 and g == 1.5
    J = jacfwd(f)(np.array([1.0, 2.0]), 3.0, scale=2.0)
    np.testing.assert_array_equal(J, np.diag([6.0, 6.0]))
    J = jacrev(f)(np.array([1.0, 2.0]), 3.0, scale=2.0)
    np.testing.assert_array_equal(J, np.diag([6.0, 6.0]))


def test_grad_preserves_input_shape():
    for shape in [(), (1,), (3,), (2, 3), (2, 1, 3), (0,), (2, 0)]:
        x = np.ones(shape)
        g = grad(lambda v: fnp.sum(v * v))(x)
        _assert_plain_array(g, np.float64)
        assert g.shape == shape
        np.testing.assert_array_equal(g, 2 * x)


def test_inputs_not_mutated():
    x = np.array([1.0, 2.0, 3.0])
    x_copy = x.copy()
    grad(lambda v: fnp.sum(v ** 2))(x)
    jvp(lambda v: v * 2, (x,), (x,))
    vjp(lambda v: v * 2, x)[1](x)
    jacfwd(lambda v: v * 2)(x)
    jacrev(lambda v: v * 2)(x)
    np.testing.assert_array_equal(x, x_copy)


def test_function_returning_input_unchanged():
    """Identity functions: out is the input value, tangent/cotangent pass through."""
    x = np.array([1.0, 2.0])
    out, t = jvp(lambda v: v, (x,), (np.array([3.0, 4.0]),))
    np.testing.assert_array_equal(out, x)
    np.testing.assert_array_equal(t, [3.0, 4.0])
    out, pullback = vjp(lambda v: (v, v), x)
    (g,) = pullback((np.ones(2), np.array([2.0, 3.0])))  # contributions add up
    np.testing.assert_array_equal(g, [3.0, 4.0])
    np.testing.assert_array_equal(jacrev(lambda v: v)(x), np.eye(2))
    np.testing.assert_array_equal(jacfwd(lambda v: v)(x), np.eye(2))


def test_public_names():
    for name in ["grad", "value_and_grad", "vjp", "jvp", "jacfwd", "jacrev", "jacobian",
                 "hessian", "stop_gradient", "tree_util", "float0", "EscapedTracerError",
                 "TracerArrayConversionError", "numpy", "testing"]:
        assert hasattr(ftrans, name), name
    assert ftrans.jacobian is ftrans.jacrev
    assert callable(ftrans.testing.check_grads)
    for name in ["tree_flatten", "tree_unflatten", "tree_map", "register_pytree_node"]:
        assert callable(getattr(ftrans.tree_util, name))


def test_non_differentiated_python_scalar_stays_weak():
    """A Python float passed as a non-differentiated argument keeps NumPy's weak-scalar
    promotion: float32 array * 0.5 is float32 with and without the transform."""
    f = lambda x, c: fnp.sum(x * c)                                             # noqa: E731
    x = np.array([1.0, 2.0], np.float32)
    assert f(x, 0.5).dtype == np.float32
    v, g = value_and_grad(f)(x, 0.5)
    _assert_plain_array(v, np.float32)
    _assert_plain_array(g, np.float32)
    for jac in (jacfwd, jacrev):
        J = jac(lambda x, c: x * c)(x, 0.5)
        _assert_plain_array(J, np.float32)


@pytest.mark.parametrize("jac", [jacfwd, jacrev])
def test_jacobian_non_differentiated_arguments_may_be_anything(jac):
    def f(x, name, fn):
        assert name == "abc"
        return fn(x)
    J = jac(f)(np.array([1.0, 2.0]), "abc", lambda t: t * 3.0)
    np.testing.assert_array_equal(J, 3.0 * np.eye(2))


def test_vjp_cotangent_of_another_dtype_raises():
    """A float64 cotangent for a float32 output raises, as in JAX (issue 18); cast to the
    output's dtype, and the input cotangent stays float32."""
    x = np.array([1.0, 2.0], np.float32)
    out, pullback = vjp(lambda v: v * 3.0, x)
    with pytest.raises(ValueError, match="float32"):
        pullback(np.ones(2))  # float64 cotangent
    (g,) = pullback(np.ones(2, np.float32))
    _assert_plain_array(g, np.float32)
    np.testing.assert_array_equal(g, [3.0, 3.0])


def test_jvp_python_scalar_tangent_takes_primal_dtype():
    x = np.array(2.0, np.float32)
    out, t = jvp(lambda v: v * v, (x,), (1.0,))
    _assert_plain_array(t, np.float32)
    assert t == 4.0


def test_integer_outputs_get_float0_tangents_and_accept_float0_cotangents():
    x = np.array([1.0, 3.0, 2.0])
    f = lambda v: (fnp.argmax(v), v * 2.0)                                      # noqa: E731
    (i, y), (ti, ty) = jvp(f, (x,), (np.ones(3),))
    assert i == 1 and ti.dtype == ftrans.float0 and ti.shape == ()
    np.testing.assert_array_equal(ty, [2.0, 2.0, 2.0])
    out, pullback = vjp(f, x)
    (g,) = pullback((np.zeros((), ftrans.float0), np.ones(3)))
    np.testing.assert_array_equal(g, [2.0, 2.0, 2.0])


def test_gradient_has_primal_dtype_when_output_dtype_differs():
    """Output float32 from a float64 input (and the reverse): grad has the input dtype."""
    g = grad(lambda v: fnp.sum(v * 2.0).astype(np.float32))(np.array([1.0, 2.0]))
    _assert_plain_array(g, np.float64)
    np.testing.assert_array_equal(g, [2.0, 2.0])
    g = grad(lambda v: fnp.sum(v.astype(np.float64) ** 2))(np.array([1.0, 2.0], np.float32))
    _assert_plain_array(g, np.float32)
    np.testing.assert_array_equal(g, [2.0, 4.0])
