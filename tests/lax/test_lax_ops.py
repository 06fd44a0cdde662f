"""``ftrans.lax``'s elementwise and structural operations against ``jax.lax`` (values,
dtype/shape errors), with second-order gradient checks and ``jit == eager``."""
import numpy as np
import pytest

import ftrans
from ftrans import lax
from ftrans.testing import check_grads

rng = np.random.default_rng(0)
X = rng.uniform(0.3, 2.0, (3, 4))
Y = rng.uniform(0.3, 2.0, (3, 4))
V = rng.normal(size=4)


@pytest.fixture(scope="module")
def jlax(jax_x64):
    return jax_x64.lax


UNARY = ["neg", "exp", "log", "sin", "cos", "tanh", "sqrt", "rsqrt", "abs", "sign", "erf"]
BINARY = ["add", "sub", "mul", "div", "max", "min", "pow"]

# name -> (ftrans call, args); the same call is made on jax.lax
STRUCTURAL = {
    "dot_mm": (lambda m, a, b: m.dot(a, b.T), (X, Y)),
    "dot_mv": (lambda m, a, b: m.dot(a, b), (X, V)),
    "dot_general": (lambda m, a, b: m.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))),
                    (rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 4, 5)))),
    "broadcast_in_dim": (lambda m, a: m.broadcast_in_dim(a, (2, 4, 3), (1,)), (V,)),
    "broadcast_in_dim1": (lambda m, a: m.broadcast_in_dim(a, (3, 4, 2), (0, 1)),
                          (X[:, :1],)),
    "reshape": (lambda m, a: m.reshape(a, (2, 6)), (X,)),
    "reshape_dims": (lambda m, a: m.reshape(a, (2, 6), dimensions=(1, 0)), (X,)),
    "transpose": (lambda m, a: m.transpose(a, (1, 0)), (X,)),
    "slice": (lambda m, a: m.slice(a, (0, 1), (3, 4), (2, 2)), (X,)),
    "concatenate": (lambda m, a, b: m.concatenate([a, b, a], 1), (X, Y)),
    "pad": (lambda m, a, v: m.pad(a, v, [(1, -1, 2), (-2, 3, 1)]), (X, np.float64(0.7))),
    "pad_crop": (lambda m, a, v: m.pad(a, v, [(0, 0, 0), (-1, -2, 0)]), (X, np.float64(0.))),
    "reduce_sum": (lambda m, a: m.reduce_sum(a, (1,)), (X,)),
    "reduce_max": (lambda m, a: m.reduce_max(a, (0,)), (X,)),
    "reduce_min": (lambda m, a: m.reduce_min(a, (0, 1)), (X,)),
    "reduce_prod": (lambda m, a: m.reduce_prod(a, (1,)), (X,)),
    "integer_pow": (lambda m, a: m.integer_pow(a, 3), (X,)),
    "integer_pow_neg": (lambda m, a: m.integer_pow(a, -2), (X,)),
    "clamp": (lambda m, a, b: m.clamp(0.5, a, b), (X, 1.5 * np.ones_like(X))),
    "select_n": (lambda m, a, b: m.select_n(a > 1.0, a, b), (X, Y)),
    "select_n3": (lambda m, a, b: m.select_n(np.arange(12).reshape(3, 4) % 3, a, b, a * b),
                  (X, Y)),
    "stop_gradient": (lambda m, a: m.mul(m.stop_gradient(a), a), (X,)),
    "convert": (lambda m, a: m.convert_element_type(a, np.float32), (X,)),
}
NONDIFF = {"convert", "stop_gradient"}  # stop_gradient: not its finite differences


def _assert_same(got, want, rtol=1e-12):
    want = np.asarray(want)
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-13)


@pytest.mark.parametrize("name", UNARY)
def test_unary_vs_jax_grads_jit(name, jlax):
    f = getattr(lax, name)
    x = X - 0.9 if name in ("neg", "abs", "sign", "sin", "cos", "tanh", "erf") else X
    _assert_same(f(x), getattr(jlax, name)(x))
    _assert_same(ftrans.jit(f)(x), f(x))
    if name != "sign":
        check_grads(f, (x,), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("name", BINARY)
def test_binary_vs_jax_grads_jit(name, jlax):
    f = getattr(lax, name)
    _assert_same(f(X, Y), getattr(jlax, name)(X, Y))
    _assert_same(f(X, Y[:1]), getattr(jlax, name)(X, Y[:1]))  # size-1 axes broadcast
    _assert_same(ftrans.jit(f)(X, Y), f(X, Y))
    check_grads(f, (X, Y), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("name", sorted(STRUCTURAL))
def test_structural_vs_jax_grads_jit(name, jlax):
    call, args = STRUCTURAL[name]
    f = lambda *a: call(lax, *a)  # noqa: E731
    want = call(jlax, *args)
    _assert_same(f(*args), want)
    _assert_same(ftrans.jit(f)(*args), want)
    if name not in NONDIFF:
        check_grads(f, args, order=2, modes=("fwd", "rev"))


def test_integer_and_rounding_semantics(jlax):
    a, b = np.array([-7, 7, -6, 5]), np.array([2, -2, 4, 5])
    _assert_same(lax.div(a, b), jlax.div(a, b))  # toward zero, not floored
    _assert_same(lax.div(a.astype(np.uint8) % 8, np.uint8(3) * np.ones(4, np.uint8)),
                 jlax.div(a.astype(np.uint8) % 8, np.uint8(3) * np.ones(4, np.uint8)))
    r = np.array([0.5, 1.5, -2.5, 2.4999999999999996, -0.49999999999999994, 3.7])
    _assert_same(lax.round(r), jlax.round(r))
    _assert_same(lax.round(r, lax.RoundingMethod.TO_NEAREST_EVEN),
                 jlax.round(r, jlax.RoundingMethod.TO_NEAREST_EVEN))
    _assert_same(lax.floor(r), jlax.floor(r))
    _assert_same(lax.ceil(r), jlax.ceil(r))
    _assert_same(lax.convert_element_type(r, np.int32), jlax.convert_element_type(r, np.int32))
    _assert_same(lax.sign(a), jlax.sign(a))
    _assert_same(lax.abs(np.array([-1 + 1j])), jlax.abs(np.array([-1 + 1j])))
    assert float(ftrans.grad(lambda x: lax.round(x))(1.3)) == 0.0


def test_stop_gradient_pytree_derivative():
    g = ftrans.grad(lambda x: lax.reduce_sum(lax.mul(lax.stop_gradient({"a": x})["a"], x),
                                             (0, 1)))(X)
    np.testing.assert_array_equal(g, X)  # d/dx of sg(x) * x is sg(x)


def test_clamp_tie_gradients_as_jax(jlax):
    import jax
    for x in (0.0, 1.0, 0.5, -1.0, 2.0):
        for argnum in (0, 1, 2):
            args = (0.0, x, 1.0)
            want = jax.grad(jlax.clamp, argnum)(*args)
            got = ftrans.grad(lax.clamp, argnum)(*args)
            assert float(got) == float(want), (x, argnum)


@pytest.mark.parametrize("call", [
    lambda m: m.add(np.ones(3), np.ones(3, np.float32)),
    lambda m: m.add(np.ones(3), 2),
    lambda m: m.mul(np.ones(3, np.int32), 2),
    lambda m: m.add(np.ones((2, 3)), np.ones(3)),
    lambda m: m.exp(np.ones(3, np.int64)),
    lambda m: m.floor(np.ones(3, np.int64)),
    lambda m: m.pow(2.0, np.ones(2, np.float32)),
    lambda m: m.integer_pow(np.array([2]), -1),
    lambda m: m.concatenate([np.ones(2), np.ones(3, np.float32)], 0),
    lambda m: m.select_n(np.array([0, 1]), np.zeros(3), np.ones(3)),
    lambda m: m.clamp(np.zeros(2), np.ones(3), 1.0),
    lambda m: m.transpose(np.ones((2, 3)), (0, 0)),
])
def test_type_errors_as_jax(call, jlax):
    with pytest.raises(TypeError):
        call(jlax)
    with pytest.raises(TypeError):
        call(lax)


def test_dot_rank_error_and_pad_config():
    with pytest.raises(ValueError, match="dot_general"):
        lax.dot(np.ones((2, 3)), np.ones((3, 4, 5)))
    with pytest.raises(ValueError, match="padding_config"):
        lax.pad(np.ones(3), 0.0, [(0, 0, -1)])


def test_lax_ops_under_vmap():
    xs = rng.normal(size=(5, 3))
    got = ftrans.vmap(lambda x: lax.pad(lax.tanh(x), 0.0, [(1, 0, 1)]))(xs)
    want = np.stack([lax.pad(lax.tanh(x), 0.0, [(1, 0, 1)]) for x in xs])
    np.testing.assert_allclose(got, want)
    got = ftrans.vmap(lambda x: lax.clamp(-0.5, x, 0.5))(xs)
    np.testing.assert_allclose(got, np.clip(xs, -0.5, 0.5))
