"""Issue 18, the functional API at its boundaries: bad input raises (JAX's exception type,
a message naming the function, the expected and the given), never a silent wrong number.

Items: 1 (vjp_fn cotangent checks), 2 (custom_vjp/custom_jvp rule checks), 3 (argnums,
static_argnums, stop_gradient), 7 (Jacobians of complex-to-real functions), 12 (.item()
under jit, the concatenate shape error).
"""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import vjp, grad, value_and_grad, jacfwd, jacrev
from ftrans.core import current_trace, EVAL


@pytest.fixture(autouse=True)
def _trace_is_restored():
    """Every error leaves the thread with no active transform."""
    yield
    assert current_trace() is EVAL


X = np.array([1.0, 2.0, 3.0])


# ---------------------------------------------------------------------------------
# item 1: vjp_fn checks each cotangent against its output
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("ct, given", [
    (1j * np.ones(3), "complex128"),
    (np.ones(3, np.int64), "int64"),
    (np.ones(3, np.float32), "float32"),
], ids=["complex_for_real", "int_for_float64", "float32_for_float64"])
def test_vjp_fn_rejects_a_cotangent_of_another_dtype(ct, given):
    _, vjp_fn = vjp(lambda v: v * 2.0, X)
    with pytest.raises(ValueError) as info:
        vjp_fn(ct)
    msg = str(info.value)
    assert "vjp" in msg and given in msg and "float64" in msg and "(3,)" in msg, msg


def test_vjp_fn_rejects_a_wrong_shape_naming_both_shapes_and_the_dtype():
    _, vjp_fn = vjp(lambda v: v * 2.0, X)
    with pytest.raises(ValueError, match=r"vjp.*\(1, 3\).*float64.*\(3,\).*float64"):
        vjp_fn(np.ones((1, 3)))


def test_vjp_fn_of_a_complex_output_takes_a_complex_cotangent_only():
    z = np.array(1 + 2j)
    _, vjp_fn = vjp(lambda v: v * 3.0, z)
    (g,) = vjp_fn(1.0 + 0j)  # a weak Python complex
    assert g == 3.0 and g.dtype == np.complex128
    for ct in (np.ones(()), 1.0):
        with pytest.raises(ValueError, match="complex128"):
            vjp_fn(ct)


def test_vjp_fn_checks_every_leaf_of_a_pytree_output():
    _, vjp_fn = vjp(lambda v: {"a": v * 2.0, "b": fnp.sum(v).astype(np.float32)}, X)
    # right: (3,) float64 and a weak Python float for the 0-d float32 leaf
    (g,) = vjp_fn({"a": np.ones(3), "b": 1.0})
    np.testing.assert_allclose(g, [3.0, 3.0, 3.0])
    assert g.dtype == np.float64
    with pytest.raises(ValueError, match="leaf 1.*float64.*float32"):
        vjp_fn({"a": np.ones(3), "b": np.float64(1.0)})


def test_vjp_fn_takes_a_python_float_for_a_0d_real_output_but_not_an_int():
    for dt in (np.float64, np.float32):
        _, vjp_fn = vjp(lambda v: fnp.sum(v * v), X.astype(dt))
        (g,) = vjp_fn(2.0)
        np.testing.assert_allclose(g, 4.0 * X)
        assert g.dtype == dt
    with pytest.raises(ValueError, match="Python float"):
        vjp_fn(1)
    # grad and value_and_grad seed their own cotangent: float32 and holomorphic still work
    g = grad(lambda v: fnp.sum(v * v))(X.astype(np.float32))
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, 2 * X)
    z = np.array([1 + 1j, 2 - 1j])
    np.testing.assert_allclose(grad(lambda v: fnp.sum(v ** 2), holomorphic=True)(z), 2 * z)
    _, g = value_and_grad(lambda v: fnp.sum(v ** 3))(X.astype(np.float32))
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, 3 * X ** 2, rtol=1e-6)


def test_vjp_fn_with_matching_cotangent_under_jit():
    _, vjp_fn = vjp(lambda v: v * 2.0, X.astype(np.float32))
    (g,) = ftrans.jit(vjp_fn)(np.ones(3, np.float32))
    np.testing.assert_allclose(g, [2.0, 2.0, 2.0])
    with pytest.raises(ValueError, match="float32"):
        ftrans.jit(vjp_fn)(np.ones(3))


# ---------------------------------------------------------------------------------
# item 3: empty argnums, static_argnums out of range, stop_gradient of a non-array
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("transform", [grad, value_and_grad, jacfwd, jacrev, ftrans.hessian])
def test_empty_argnums_raises(transform):
    with pytest.raises(ValueError, match=r"argnums must be non-empty.*argnums=0"):
        transform(lambda x: fnp.sum(x ** 2), argnums=())(X)


@pytest.mark.parametrize("transform", [ftrans.jit, ftrans.make_ir])
@pytest.mark.parametrize("static", [3, -3, (0, 2)])
def test_static_argnums_out_of_range_raises(transform, static):
    def f(a, b):
        return a + b
    # as JAX: already when the function is wrapped (its signature is known)
    with pytest.raises(ValueError, match=r"static_argnums.*only 2 positional argument"):
        transform(f, static_argnums=static)
    with pytest.raises(ValueError, match="static_argnums"):
        transform(f, static_argnums=static)(1.0, 2.0)


def test_static_argnames_not_a_parameter_raises():
    with pytest.raises(ValueError, match=r"static_argnames.*'c'.*\['a', 'b'\]"):
        ftrans.jit(lambda a, b: a + b, static_argnames="c")
    # JAX: a function taking *args (**kwargs) may get more arguments than it names
    assert ftrans.jit(lambda a, **kw: a * kw["c"], static_argnames="c")(2.0, c=3) == 6.0
    f = ftrans.jit(lambda a, *rest: a * len(rest), static_argnums=2)
    assert f(2.0, 1.0, 3) == 4.0
    # and a valid index still works
    g = ftrans.jit(lambda a, n: a * n, static_argnums=-1)
    assert g(2.0, 3) == 6.0


@pytest.mark.parametrize("bad", ["ab", object(), {"x": X, "name": "w"}],
                         ids=["str", "object", "dict_with_str"])
def test_stop_gradient_of_a_non_array_raises(bad):
    with pytest.raises(TypeError, match="stop_gradient.*not a valid array type"):
        ftrans.stop_gradient(bad)


def test_stop_gradient_of_a_pytree_stops_each_leaf():
    def f(x):
        s = ftrans.stop_gradient({"a": x, "b": [x * 2.0]})
        return fnp.sum(x * s["a"] + s["b"][0])
    np.testing.assert_allclose(grad(f)(X), X)
    assert ftrans.stop_gradient((1.0, None)) == (1.0, None)
