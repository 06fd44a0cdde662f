"""ftrans.nn activations and the softmax family: finite-difference gradients (order 2,
both modes), jit == eager, vmap == loop, fused == composed, and values/VJPs against
torch.nn.functional."""
import numpy as np
import pytest

import ftrans
import ftrans.nn as fnn
import ftrans.numpy as fnp
import ftrans.scipy.special as fss
from ftrans.testing import check_grads

from nn_helpers import (away, check_fused_matches_composed, check_jit, check_vmap,
                        compare_torch, needs_torch, rng, torch)

X = away(rng(0).standard_normal((3, 4)) * 2, points=(0.0, -1.0, 1.0))

# name, ftrans function of x, torch function of x (None: no torch counterpart)
CASES = [
    ("relu", fnn.relu, lambda x: torch.nn.functional.relu(x)),
    ("relu6", lambda x: fnn.relu6(x * 4), lambda x: torch.nn.functional.relu6(x * 4)),
    ("hard_tanh", fnn.hard_tanh, lambda x: torch.nn.functional.hardtanh(x)),
    ("hard_tanh_range", lambda x: fnn.hard_tanh(x, -2.0, 0.5),
     lambda x: torch.nn.functional.hardtanh(x, -2.0, 0.5)),
    ("gelu", fnn.gelu, lambda x: torch.nn.functional.gelu(x)),
    ("gelu_tanh", lambda x: fnn.gelu(x, approximate="tanh"),
     lambda x: torch.nn.functional.gelu(x, approximate="tanh")),
    ("silu", fnn.silu, lambda x: torch.nn.functional.silu(x)),
    ("elu", lambda x: fnn.elu(x, 0.7), lambda x: torch.nn.functional.elu(x, 0.7)),
    ("leaky_relu", lambda x: fnn.leaky_relu(x, 0.2),
     lambda x: torch.nn.functional.leaky_relu(x, 0.2)),
    ("sigmoid", fnn.sigmoid, lambda x: torch.sigmoid(x)),
    ("log_sigmoid", fnn.log_sigmoid, lambda x: torch.nn.functional.logsigmoid(x)),
    ("softplus", lambda x: fnn.softplus(x, beta=2.0, threshold=3.0),
     lambda x: torch.nn.functional.softplus(x, beta=2.0, threshold=3.0)),
    ("softmax", fnn.softmax, lambda x: torch.softmax(x, -1)),
    ("softmax_axis0", lambda x: fnn.softmax(x, axis=0), lambda x: torch.softmax(x, 0)),
    ("log_softmax", fnn.log_softmax, lambda x: torch.log_softmax(x, -1)),
    ("log_softmax_axis0", lambda x: fnn.log_softmax(x, axis=0),
     lambda x: torch.log_softmax(x, 0)),
    ("logsumexp", lambda x: fnn.logsumexp(x, axis=1), lambda x: torch.logsumexp(x, 1)),
    ("logsumexp_keep", lambda x: fnn.logsumexp(x, axis=0, keepdims=True),
     lambda x: torch.logsumexp(x, 0, keepdim=True)),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("name,f,tf", CASES, ids=IDS)
def test_grads(name, f, tf):
    check_grads(f, (X,), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("name,f,tf", CASES, ids=IDS)
def test_jit_and_vmap(name, f, tf):
    check_jit(f, (X,))
    check_vmap(f, X[:, None, :].repeat(2, 1) * np.array([1.0, -0.5])[:, None])


@needs_torch
@pytest.mark.parametrize("name,f,tf", CASES, ids=IDS)
def test_against_torch(name, f, tf):
    compare_torch(f, tf, (X,), (0,))


@needs_torch
@pytest.mark.parametrize("name,f,tf", CASES, ids=IDS)
def test_float32(name, f, tf):
    x = X.astype(np.float32)
    out = f(x)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, tf(torch.tensor(x)).numpy(), rtol=2e-6, atol=2e-6)
    assert ftrans.grad(lambda x: fnp.sum(f(x)))(x).dtype == np.float32


@pytest.mark.parametrize("f", [fnn.relu, fnn.softmax, fnn.log_softmax,
                               lambda x: fnn.softmax(x, axis=(0, 1))],
                         ids=["relu", "softmax", "log_softmax", "softmax_all"])
def test_fused_matches_composed(f):
    check_fused_matches_composed(f, (X,))
    check_fused_matches_composed(f, (X.astype(np.float32)[::-1].copy(),))


def test_custom_vjp_attributes_callable_on_numpy():
    sm = fnn.FUSED["softmax"]
    y, res = sm.fwd((1,), X)
    np.testing.assert_allclose(y, fnn.softmax(X))
    np.testing.assert_allclose(sm.fun((1,), X), y)
    g = rng(3).standard_normal(X.shape)
    dx, = sm.bwd((1,), res, g)
    np.testing.assert_allclose(dx, ftrans.vjp(fnn.softmax, X)[1](g)[0], rtol=1e-12)
    r = fnn.FUSED["relu"]
    y, res = r.fwd(X)
    np.testing.assert_array_equal(r.bwd(res, g)[0], np.where(X > 0, g, 0))


def test_relu_derivative_at_zero_is_zero_and_hessian():
    x = np.array([-1.0, 0.0, 2.0])
    np.testing.assert_array_equal(ftrans.grad(lambda x: fnp.sum(fnn.relu(x)))(x), [0, 0, 1])
    h = ftrans.hessian(lambda x: fnp.sum(fnn.log_softmax(x) ** 2))(x)
    assert h.shape == (3, 3) and np.allclose(h, h.T)


def test_softmax_extremes():
    x = np.array([[1000.0, 0.0, -np.inf], [-np.inf, -np.inf, 0.0]])
    np.testing.assert_allclose(fnn.softmax(x), [[1, 0, 0], [0, 0, 1]], atol=1e-300)
    g = ftrans.grad(lambda x: fnp.sum(fnn.log_softmax(x)[:, 0]))(x)
    assert np.all(np.isfinite(g))
    assert fnn.softmax(np.zeros((0, 3))).shape == (0, 3)


def test_one_hot():
    got = fnn.one_hot(np.array([[0, 2], [3, -1]]), 3)
    want = np.array([[[1, 0, 0], [0, 0, 1]], [[0, 0, 0], [0, 0, 0]]], np.float64)
    np.testing.assert_array_equal(got, want)
    assert fnn.one_hot(np.array([1]), 2, dtype=np.float32).dtype == np.float32
    np.testing.assert_array_equal(fnn.one_hot(np.array([1, 0]), 2, axis=0), [[0, 1], [1, 0]])
    np.testing.assert_array_equal(ftrans.jit(lambda l: fnn.one_hot(l, 3))(np.array([2, 0])),
                                  [[0, 0, 1], [1, 0, 0]])
    with pytest.raises(TypeError, match="integers"):
        fnn.one_hot(np.array([0.5]), 2)
    with pytest.raises(ValueError, match="num_classes"):
        fnn.one_hot(np.array([0]), -1)


def test_scipy_special_calls_nn():
    x = rng(1).standard_normal((2, 3))
    np.testing.assert_allclose(fss.softmax(x), np.exp(x) / np.exp(x).sum())
    np.testing.assert_allclose(fss.softmax(x, axis=1), fnn.softmax(x, axis=1))
    np.testing.assert_allclose(fss.log_softmax(x, axis=0), fnn.log_softmax(x, axis=0))
    np.testing.assert_allclose(fss.logsumexp(x, 1, np.ones(3) * 2, True),
                               np.log(2 * np.exp(x).sum(1, keepdims=True)))
    assert fss.softmax.__module__ == "ftrans.scipy.special"


def test_bad_inputs():
    with pytest.raises(ValueError, match="approximate"):
        fnn.gelu(X, approximate="erf")
    with pytest.raises(ValueError, match="min_val"):
        fnn.hard_tanh(X, 1.0, -1.0)
    with pytest.raises(TypeError, match="real"):
        fnn.relu(np.array([1j]))
    with pytest.raises(np.exceptions.AxisError):
        fnn.softmax(X, axis=2)


def test_integer_input_becomes_float64():
    assert fnn.relu(np.array([-1, 2])).dtype == np.float64
    np.testing.assert_allclose(fnn.sigmoid([0]), [0.5])
