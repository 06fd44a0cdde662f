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


# ---------------------------------------------------------------------------------
# item 2: custom_vjp / custom_jvp rules are checked and named
# ---------------------------------------------------------------------------------
def _custom_vjp_with(fwd, bwd):
    @ftrans.custom_vjp
    def scale(x):
        return 2.0 * x
    scale.defvjp(fwd, bwd)
    return scale


def _fwd(x):
    return 2.0 * x, None


def test_custom_vjp_bwd_of_a_broadcastable_wrong_shape_raises():
    def bwd_rows(res, g):
        return (fnp.ones((2, 3)) * g,)  # (2, 3) for a (3,) input: was summed to fit
    f = _custom_vjp_with(_fwd, bwd_rows)
    with pytest.raises(ValueError) as info:
        grad(lambda x: fnp.sum(f(x)))(X)
    msg = str(info.value)
    assert "bwd_rows" in msg and "(2, 3)" in msg and "(3,)" in msg and "scale" in msg, msg


def test_custom_vjp_bwd_shape_error_names_the_positional_argument():
    def bwd_pow(n, res, g):
        return (fnp.ones((2, 3)) * g * n,)
    power = ftrans.custom_vjp(lambda n, x: x ** n, nondiff_argnums=(0,))
    power.defvjp(lambda n, x: (x ** n, x), bwd_pow)
    with pytest.raises(ValueError, match=r"'bwd_pow'.*argument 1 of shape \(3,\).*\(2, 3\)"):
        grad(lambda x: fnp.sum(power(2, x)))(X)


def test_custom_vjp_bwd_must_return_one_entry_per_input():
    def bwd_bare(res, g):
        return 2.0 * g  # not a tuple
    f = _custom_vjp_with(_fwd, bwd_bare)
    with pytest.raises(TypeError, match=r"bwd rule 'bwd_bare' of 'scale'.*tuple.*\(g,\)"):
        grad(lambda x: fnp.sum(f(x)))(X)

    def bwd_two(res, g):
        return (2.0 * g, 2.0 * g)
    f = _custom_vjp_with(_fwd, bwd_two)
    with pytest.raises(TypeError, match=r"bwd rule 'bwd_two' of 'scale'.*length 2"):
        grad(lambda x: fnp.sum(f(x)))(X)


def test_custom_vjp_fwd_not_returning_a_pair_raises_naming_it():
    def fwd_triple(x):
        return 2.0 * x, x, x
    f = _custom_vjp_with(fwd_triple, lambda res, g: (2.0 * g,))
    with pytest.raises(TypeError, match=r"fwd rule 'fwd_triple' of 'scale'.*pair.*length 3"):
        grad(lambda x: fnp.sum(f(x)))(X)

    def fwd_bare(x):
        return 2.0 * x
    f = _custom_vjp_with(fwd_bare, lambda res, g: (2.0 * g,))
    with pytest.raises(TypeError, match=r"fwd rule 'fwd_bare' of 'scale'.*pair"):
        vjp(f, np.ones(2))


def test_custom_vjp_with_right_shapes_still_works_under_vmap_and_pytrees():
    @ftrans.custom_vjp
    def f(p):
        return p["w"] * p["b"]

    def bwd(res, g):
        lead = tuple(range(g.ndim - 1))  # the axes "b" was broadcast along
        return ({"w": g * res["b"], "b": fnp.sum(g * res["w"], axis=lead)},)
    f.defvjp(lambda p: (f(p), p), bwd)
    p = {"w": np.arange(6.0).reshape(2, 3), "b": np.array([1.0, 2.0, 3.0])}
    g = grad(lambda p: fnp.sum(f(p)))(p)
    np.testing.assert_allclose(g["w"], np.broadcast_to(p["b"], (2, 3)))
    np.testing.assert_allclose(g["b"], p["w"].sum(0))
    # per-example gradients: the check sees each example's shapes
    per = ftrans.vmap(grad(lambda w: fnp.sum(f({"w": w, "b": p["b"]}))))(p["w"])
    np.testing.assert_allclose(per, np.broadcast_to(p["b"], (2, 3)))

    def bad(res, g):  # keepdims: a (1, 3) cotangent for the (3,) input "b"
        return ({"w": g * res["b"], "b": fnp.sum(g * res["w"], axis=0, keepdims=True)},)
    f.defvjp(lambda p: (f(p), p), bad)
    with pytest.raises(ValueError, match=r"argument 0 \(leaf 0\) of shape \(3,\).*\(1, 3\)"):
        grad(lambda p: fnp.sum(f(p)))(p)


def _custom_jvp_with(rule):
    @ftrans.custom_jvp
    def cube(x):
        return x ** 3
    cube.defjvp(rule)
    return cube


def test_custom_jvp_rule_of_another_dtype_raises_naming_the_rule():
    def jvp_f32(primals, tangents):
        (x,), (t,) = primals, tangents
        return cube_plain(x), (3.0 * x ** 2 * t).astype(np.float32)
    f = _custom_jvp_with(jvp_f32)
    for transform in (lambda: ftrans.jvp(f, (X,), (np.ones(3),)),
                      lambda: grad(lambda x: fnp.sum(f(x)))(X),
                      lambda: jacfwd(f)(X)):
        with pytest.raises(TypeError) as info:
            transform()
        msg = str(info.value)
        assert "jvp_f32" in msg and "cube" in msg and "float32" in msg and "float64" in msg, msg


def test_custom_jvp_rule_of_another_shape_raises_naming_the_rule():
    def jvp_rows(primals, tangents):
        (x,), (t,) = primals, tangents
        return cube_plain(x), fnp.ones((2, 3)) * t
    f = _custom_jvp_with(jvp_rows)
    with pytest.raises(TypeError, match=r"'jvp_rows' of 'cube'.*\(3,\).*\(2, 3\)"):
        ftrans.jvp(f, (X,), (np.ones(3),))


def test_custom_jvp_rule_python_float_tangent_for_a_float32_output_is_cast():
    def jvp_const(primals, tangents):
        (x,), _ = primals, tangents
        return cube_plain(x), 5.0  # a weak Python float for a 0-d float32 output
    f = _custom_jvp_with(jvp_const)
    out, t = ftrans.jvp(f, (np.float32(2.0),), (np.float32(1.0),))
    assert t == 5.0 and t.dtype == np.float32

    def jvp_int(primals, tangents):
        (x,), _ = primals, tangents
        return cube_plain(x), 5  # a Python int is not a tangent of a float output
    f = _custom_jvp_with(jvp_int)
    with pytest.raises(TypeError, match="'jvp_int'.*int64"):
        ftrans.jvp(f, (np.float32(2.0),), (np.float32(1.0),))


def cube_plain(x):
    return x ** 3


# ---------------------------------------------------------------------------------
# item 12: .item() under jit, the concatenate shape error
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("stage", [ftrans.jit, ftrans.make_ir])
@pytest.mark.parametrize("method", ["item", "tolist"])
def test_item_of_a_staged_value_raises_concretization_error(stage, method):
    def f(v):
        return getattr(fnp.sum(v), method)()
    with pytest.raises(ftrans.ConcretizationError) as info:
        stage(f)(X)
    msg = str(info.value)
    assert f".{method}()" in msg and "static_argnums" in msg and "disable_jit" in msg, msg


def test_item_of_a_grad_tracer_raises_a_conversion_type_error():
    with pytest.raises(TypeError, match=r"\.item\(\) needs a concrete value.*'grad'"):
        grad(lambda v: fnp.sum(v).item())(X)


@pytest.mark.parametrize("wrap", [lambda f: f, ftrans.jit], ids=["eager", "jit"])
def test_concatenate_shape_error_names_the_op_the_shapes_and_the_axis(wrap):
    f = wrap(lambda a, b: fnp.concatenate([a, b], axis=0))
    with pytest.raises(ValueError, match=r"concatenate.*axis=0.*\(2, 3\).*\(2, 4\)"):
        f(np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(ValueError, match=r"concatenate.*\(2, 3\).*\(3,\)"):
        f(np.ones((2, 3)), np.ones(3))


# ---------------------------------------------------------------------------------
# item 7: Jacobians of functions from complex inputs to real outputs (PyTorch's rows)
# ---------------------------------------------------------------------------------
Z = np.array([1 + 2j, 3 - 1j])


def _two_real_outputs(z):
    return fnp.stack([fnp.sum(fnp.abs(z) ** 2), fnp.sum(fnp.real(z) * fnp.imag(z))])


def _two_real_outputs_expected(z):
    # rows d f/dx + i d f/dy: |z|^2 -> 2x + 2iy = 2z;  x*y -> y + ix
    return np.stack([2 * z, z.imag + 1j * z.real])


@pytest.mark.parametrize("jac", [jacrev, jacfwd])
def test_jacobian_of_complex_to_real_is_grad_per_output(jac):
    assert jac(lambda z: fnp.abs(z) ** 2)(np.array(1 + 2j)) == 2 + 4j
    J = jac(_two_real_outputs)(Z)
    assert J.shape == (2, 2) and J.dtype == np.complex128
    np.testing.assert_allclose(J, _two_real_outputs_expected(Z), rtol=1e-12)
    # each row is what ftrans.grad returns for that output
    for k in range(2):
        np.testing.assert_allclose(J[k], grad(lambda z: _two_real_outputs(z)[k])(Z))


@pytest.mark.parametrize("jac", [jacrev, jacfwd])
def test_jacobian_of_complex_and_real_inputs_keeps_each_dtype(jac):
    def g(z, x):
        return fnp.sum(fnp.abs(z) ** 2 * x)
    for cdt, rdt in ((np.complex128, np.float64), (np.complex64, np.float32)):
        z, x = Z.astype(cdt), np.array([1.0, 2.0], rdt)
        jz, jx = jac(g, argnums=(0, 1))(z, x)
        assert jz.dtype == cdt and jx.dtype == rdt
        np.testing.assert_allclose(jz, 2 * z * x, rtol=1e-6)
        np.testing.assert_allclose(jx, np.abs(z) ** 2, rtol=1e-6)


def test_jacfwd_equals_jacrev_for_complex_to_real():
    f = lambda z: fnp.sin(fnp.real(z)) * fnp.exp(fnp.imag(z[::-1])) + fnp.abs(z) ** 3  # noqa: E731
    np.testing.assert_allclose(jacfwd(f)(Z), jacrev(f)(Z), rtol=1e-12)


def test_jacobian_of_complex_to_real_matches_torch():
    torch = pytest.importorskip("torch")
    got = jacrev(_two_real_outputs)(Z)
    expected = torch.autograd.functional.jacobian(
        lambda z: torch.stack([(z.abs() ** 2).sum(), (z.real * z.imag).sum()]),
        torch.tensor(Z)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    np.testing.assert_allclose(jacfwd(_two_real_outputs)(Z), expected, rtol=1e-12)


@pytest.mark.parametrize("jac", [jacrev, jacfwd])
def test_jacobian_of_complex_to_complex_without_holomorphic_still_raises(jac):
    with pytest.raises(TypeError, match=r"real-valued outputs.*holomorphic=True.*vjp"):
        jac(lambda z: z * z)(Z)
    np.testing.assert_allclose(jac(lambda z: z * z, holomorphic=True)(Z), np.diag(2 * Z))
