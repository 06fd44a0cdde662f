"""Errors of the functional API: type, message and the transform state afterwards."""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import grad, value_and_grad, vjp, jvp, jacfwd, jacrev, hessian
from ftrans.core import current_trace, EVAL


@pytest.fixture(autouse=True)
def _trace_is_restored():
    """Every error leaves the thread with no active transform."""
    yield
    assert current_trace() is EVAL


# ---------------------------------------------------------------------------------
# grad: outputs and inputs
# ---------------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [
    lambda x: x * 2.0,                       # shape (3,)
    lambda x: fnp.reshape(fnp.sum(x), (1,)),  # shape (1,): not a scalar either
    lambda x: (fnp.sum(x), fnp.sum(x)),       # a pytree
    lambda x: [fnp.sum(x)],                   # a one-leaf pytree
    lambda x: {"loss": fnp.sum(x)},
], ids=["vector", "shape1", "tuple", "list", "dict"])
def test_grad_of_non_scalar_output_mentions_jacrev_and_vjp(fn):
    for transform in (grad, value_and_grad):
        with pytest.raises(TypeError) as info:
            transform(fn)(np.ones(3))
        msg = str(info.value)
        assert "jacrev" in msg and "vjp" in msg, msg


@pytest.mark.parametrize("x", [np.array([1, 2]), 3, np.array(True), np.int32(4)],
                         ids=["int_array", "python_int", "bool", "np_int32"])
def test_grad_wrt_integer_input(x):
    f = lambda v: fnp.sum(v * 1.5)                                              # noqa: E731
    with pytest.raises(TypeError) as info:
        grad(f)(x)
    msg = str(info.value)
    assert "allow_int" in msg and str(np.asarray(x).dtype) in msg, msg
    g = grad(f, allow_int=True)(x)
    assert g.dtype == ftrans.float0 and g.shape == np.shape(x)


def test_grad_wrt_integer_leaf_of_pytree():
    with pytest.raises(TypeError, match="allow_int"):
        grad(lambda p: p[0] * 2.0)((1.0, np.array([1, 2])))


def test_grad_integer_input_not_differentiated_is_fine():
    assert grad(lambda x, n: x * n)(2.0, 3) == 3.0


@pytest.mark.parametrize("transform", ["grad", "value_and_grad", "vjp", "jvp", "jacfwd",
                                       "jacrev", "hessian"])
@pytest.mark.parametrize("ret", ["scalar", "triple", "single"])
def test_has_aux_without_a_pair(transform, ret):
    out = {
        "scalar": lambda x: fnp.sum(x),
        "triple": lambda x: (fnp.sum(x), 1, 2),
        "single": lambda x: (fnp.sum(x),),
    }[ret]
    x = np.ones(2)
    call = {
        "grad": lambda: grad(out, has_aux=True)(x),
        "value_and_grad": lambda: value_and_grad(out, has_aux=True)(x),
        "vjp": lambda: vjp(out, x, has_aux=True),
        "jvp": lambda: jvp(out, (x,), (x,), has_aux=True),
        "jacfwd": lambda: jacfwd(out, has_aux=True)(x),
        "jacrev": lambda: jacrev(out, has_aux=True)(x),
        "hessian": lambda: hessian(out, has_aux=True)(x),
    }[transform]
    with pytest.raises(TypeError, match="pair"):
        call()


def test_grad_of_complex_output_without_holomorphic():
    with pytest.raises(TypeError, match="holomorphic"):
        grad(lambda z: z * z)(1.0 + 1.0j)
    with pytest.raises(TypeError, match="holomorphic"):
        grad(lambda x: x * 1j)(2.0)  # real input, complex output


def test_holomorphic_with_real_input():
    with pytest.raises(TypeError, match="complex"):
        grad(lambda x: x * x, holomorphic=True)(2.0)
    with pytest.raises(TypeError, match="complex"):
        grad(lambda x: fnp.sum(x * x), holomorphic=True)(np.ones(2, np.float32))
    for jac in (jacfwd, jacrev):
        with pytest.raises(TypeError, match="complex"):
            jac(lambda x: x * x, holomorphic=True)(np.ones(2))


def test_holomorphic_with_real_output():
    with pytest.raises(TypeError, match="complex"):
        grad(lambda z: fnp.real(z), holomorphic=True)(1.0 + 1.0j)


def test_jacobians_of_complex_input_without_holomorphic():
    for jac in (jacfwd, jacrev):
        with pytest.raises(TypeError, match="holomorphic"):
            jac(lambda z: z * z)(np.array([1.0 + 1.0j]))


def test_jacobians_of_integer_input():
    for jac in (jacfwd, jacrev):
        with pytest.raises(TypeError):
            jac(lambda x: x * 2.0)(np.array([1, 2]))


# ---------------------------------------------------------------------------------
# argnums
# ---------------------------------------------------------------------------------

@pytest.mark.parametrize("argnums", [1, -2, (0, 1), (0, 5)])
@pytest.mark.parametrize("transform", [grad, value_and_grad, jacfwd, jacrev, hessian])
def test_argnums_out_of_range(transform, argnums):
    with pytest.raises(ValueError, match="argnums"):
        transform(lambda x: fnp.sum(x), argnums=argnums)(np.ones(2))


def test_argnums_bad_type_and_duplicates():
    with pytest.raises(TypeError, match="argnums"):
        grad(lambda x: x, argnums=1.0)(1.0)
    with pytest.raises(TypeError, match="argnums"):
        grad(lambda x: x, argnums="0")(1.0)
    with pytest.raises(ValueError, match="argnums"):
        grad(lambda x, y: x * y, argnums=(0, -2))(1.0, 2.0)


# ---------------------------------------------------------------------------------
# jvp arguments
# ---------------------------------------------------------------------------------

def test_jvp_structure_mismatch():
    f = lambda x, y: x * y                                                     # noqa: E731
    with pytest.raises(ValueError, match="structure"):
        jvp(f, (1.0, 2.0), (1.0,))
    with pytest.raises(ValueError, match="structure"):
        jvp(lambda p: p["a"], ({"a": 1.0},), ({"b": 1.0},))
    with pytest.raises(ValueError, match="structure"):
        jvp(lambda p: p[0], ((1.0, 2.0),), ([1.0, 2.0],))


def test_jvp_shape_mismatch_names_both_shapes():
    with pytest.raises(ValueError) as info:
        jvp(lambda x: x, (np.ones((2, 3)),), (np.ones((3, 2)),))
    msg = str(info.value)
    assert "(2, 3)" in msg and "(3, 2)" in msg, msg
    with pytest.raises(ValueError) as info:
        jvp(lambda x: x, (np.ones(4),), (np.ones(()),))
    msg = str(info.value)
    assert "(4,)" in msg and "()" in msg, msg


def test_jvp_dtype_mismatch():
    with pytest.raises(TypeError) as info:
        jvp(lambda x: x, (np.ones(2),), (np.ones(2, np.float32),))
    msg = str(info.value)
    assert "float64" in msg and "float32" in msg, msg
    with pytest.raises(TypeError):
        jvp(lambda x: x, (np.ones(2),), (np.ones(2, np.complex128),))
    with pytest.raises(TypeError):  # integer primal needs float0 / None
        jvp(lambda x: x * 1.0, (np.array([1, 2]),), (np.ones(2),))


def test_jvp_primals_must_be_a_sequence():
    with pytest.raises(TypeError, match="tuple"):
        jvp(lambda x: x, np.ones(2), np.ones(2))


def test_vjp_fn_wrong_cotangent():
    out, pullback = vjp(lambda x: x * 2.0, np.ones(3))
    with pytest.raises(ValueError) as info:
        pullback(np.ones(2))
    assert "(2,)" in str(info.value) and "(3,)" in str(info.value)
    with pytest.raises(ValueError, match="structure"):
        pullback((np.ones(3),))


def test_non_array_argument():
    with pytest.raises(TypeError, match="str"):
        grad(lambda x: x)("abc")
    with pytest.raises(TypeError):
        jvp(lambda x: x, ("abc",), ("abc",))


def test_non_array_output_leaf():
    with pytest.raises(TypeError):
        jvp(lambda x: "abc", (1.0,), (1.0,))
    with pytest.raises(TypeError):
        vjp(lambda x: object(), 1.0)


# ---------------------------------------------------------------------------------
# escaped tracers
# ---------------------------------------------------------------------------------

def _leak(transform_name):
    box = []

    def f(x):
        box.append(x)
        return fnp.sum(x * x)
    x = np.array([1.0, 2.0])
    if transform_name == "grad":
        grad(f)(x)
    elif transform_name == "value_and_grad":
        value_and_grad(f)(x)
    elif transform_name == "vjp":
        vjp(f, x)
    elif transform_name == "jvp":
        jvp(f, (x,), (x,))
    return box[0]


@pytest.mark.parametrize("name,expected", [("grad", "grad"), ("value_and_grad", "grad"),
                                           ("vjp", "vjp"), ("jvp", "jvp")])
@pytest.mark.parametrize("use", ["fnp.sin", "operator", "method", "inside_other_grad",
                                 "as_jvp_input", "returned_from_grad"])
def test_escaped_tracer(name, expected, use):
    leaked = _leak(name)
    with pytest.raises(ftrans.EscapedTracerError) as info:
        if use == "fnp.sin":
            fnp.sin(leaked)
        elif use == "operator":
            leaked + 1.0
        elif use == "method":
            leaked.sum()
        elif use == "inside_other_grad":
            grad(lambda y: fnp.sum(y * leaked))(np.ones(2))
        elif use == "as_jvp_input":
            jvp(lambda y: y, (leaked,), (np.ones(2),))
        elif use == "returned_from_grad":
            grad(lambda y: y * 2.0 + leaked[0])(1.0)
    msg = str(info.value)
    assert repr(expected) in msg, msg
    assert "escaped" in msg.lower()


def test_escaped_tracer_conversions():
    leaked = _leak("grad")
    for conv in (float, np.asarray, bool):
        with pytest.raises(ftrans.EscapedTracerError, match="'grad'"):
            conv(leaked)


def test_escaped_tracer_is_runtime_error():
    assert issubclass(ftrans.EscapedTracerError, RuntimeError)


def test_escaped_tracer_from_inner_transform_used_in_outer():
    """A tracer of an inner grad stored and used by the (still running) outer grad
    after the inner one returned."""
    box = []

    def inner(y):
        box.append(y)
        return y * y

    def outer(x):
        g = grad(inner)(x)
        return g + box[0]  # box[0] belongs to the finished inner grad

    with pytest.raises(ftrans.EscapedTracerError, match="'grad'"):
        grad(outer)(1.0)


# ---------------------------------------------------------------------------------
# conversions of live tracers to NumPy / Python
# ---------------------------------------------------------------------------------

CONVERSIONS = {
    "np.asarray": lambda t: np.asarray(t),
    "np.array": lambda t: np.array(t),
    "float": lambda t: float(t),
    "int": lambda t: int(t),
    "complex": lambda t: complex(t),
    "if": lambda t: 1.0 if t else 0.0,
    "bool_of_array": lambda t: bool(t),
    "index": lambda t: [1, 2, 3][t],
}


@pytest.mark.parametrize("name", sorted(CONVERSIONS))
@pytest.mark.parametrize("transform", ["grad", "jvp", "vjp"])
def test_tracer_conversion_error(name, transform):
    conv = CONVERSIONS[name]

    def f(x):
        conv(x)
        return x
    x = 1.0
    with pytest.raises(TypeError) as info:
        if transform == "grad":
            grad(f)(x)
        elif transform == "jvp":
            jvp(f, (x,), (1.0,))
        else:
            vjp(f, x)
    assert isinstance(info.value, ftrans.TracerArrayConversionError)
    msg = str(info.value)
    assert "ftrans.numpy" in msg, msg
    assert repr(transform) in msg, msg


def test_tracer_conversion_error_is_type_error():
    assert issubclass(ftrans.TracerArrayConversionError, TypeError)


def test_numpy_ufunc_without_fnp_equivalent_raises():
    """A ufunc fnp does not map (here one made by np.frompyfunc) names ftrans.numpy; the
    in-place ufunc.at names the functional replacement (.at[...])."""
    pyfunc = np.frompyfunc(lambda a: a, 1, 1)
    with pytest.raises(TypeError) as info:
        grad(lambda x: pyfunc(x))(1.0)
    assert "ftrans.numpy" in str(info.value)
    with pytest.raises(TypeError, match=r"x.at\[indices\].add"):
        grad(lambda x: np.add.at(x, [0], 1.0))(np.ones(3))


def test_error_inside_transform_restores_trace_and_later_calls_work():
    def bad(x):
        raise KeyError("boom")
    for transform in (lambda f: grad(f)(1.0), lambda f: jvp(f, (1.0,), (1.0,)),
                      lambda f: vjp(f, 1.0), lambda f: jacfwd(f)(np.ones(2)),
                      lambda f: jacrev(f)(np.ones(2))):
        with pytest.raises(KeyError):
            transform(bad)
        assert current_trace() is EVAL
    assert grad(lambda x: x * x)(3.0) == 6.0


def test_grad_of_integer_or_boolean_output():
    with pytest.raises(TypeError, match="floating"):
        grad(lambda v: fnp.argmax(v))(np.array([1.0, 3.0]))
    with pytest.raises(TypeError):
        grad(lambda v: fnp.sum(v) > 0)(np.array([1.0, 3.0]))


def test_jvp_none_tangent_for_float_primal():
    with pytest.raises(TypeError, match="None"):
        jvp(lambda v: v, (np.ones(2),), (None,))


_LEAKED = None


def test_escaped_tracer_through_a_global_variable():
    def f(x):
        global _LEAKED
        _LEAKED = x
        return x * x
    assert grad(f)(3.0) == 6.0
    with pytest.raises(ftrans.EscapedTracerError) as info:
        _LEAKED * 2.0
    assert "'grad'" in str(info.value) and "global" in str(info.value)
