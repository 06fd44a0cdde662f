"""Differential tests against PyTorch (CPU): gradients of a real scalar loss, including
complex inputs (PyTorch's convention, which ftrans follows: grad = dL/dx + i dL/dy),
ties, zeros and repeated indices, and a few second derivatives.

The loss of an output y is ``L = Re(sum(conj(w) * y))`` for a fixed random w, so the
gradient is the VJP of w.  These tests complement, never replace, the
finite-difference checks of ``test_primitives.py``.
"""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed: differential tests "
                                            "against it are skipped")

import ftrans  # noqa: E402
import ftrans.primitives as P  # noqa: E402

RNG_SEED = 7


def _rand(rng, shape, dtype, lo=-2.0, hi=2.0):
    x = rng.uniform(lo, hi, shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.uniform(lo, hi, shape)
    return np.asarray(x, dtype)


def _ft_loss(fn, w):
    def loss(*args):
        y = fn(*args)
        axes = tuple(range(len(y.shape)))
        if y.dtype.kind == "c":
            return P.reduce_sum(P.real(P.mul(P.conj(w), y)), axes)
        return P.reduce_sum(P.mul(w, y), axes)
    return loss


def _torch_grads(fn, args, w):
    ts = [torch.tensor(a, requires_grad=True) for a in args]
    y = fn(*ts)
    wt = torch.tensor(w)
    loss = (wt.conj() * y).real.sum() if y.is_complex() else (wt * y).sum()
    loss.backward()
    return [t.grad.resolve_conj().numpy() for t in ts], y.detach().resolve_conj().numpy()


def _compare(ft_fn, torch_fn, args, rng, rtol=None):
    args = [np.asarray(a) for a in args]
    y = np.asarray(ft_fn(*args))
    w = _rand(rng, y.shape, y.dtype)
    want, y_t = _torch_grads(torch_fn, args, w)
    low = min(np.finfo(a.dtype).resolution for a in args)
    rtol = rtol or (1e-4 if low >= 1e-6 else 1e-10)
    np.testing.assert_allclose(y, y_t, rtol=rtol, atol=rtol)
    got = ftrans.grad(_ft_loss(ft_fn, w), argnums=tuple(range(len(args))))(*args)
    for g, t, a in zip(got, want, args):
        assert g.dtype == a.dtype, f"gradient dtype {g.dtype} for a {a.dtype} input"
        np.testing.assert_allclose(g, t, rtol=rtol, atol=rtol)


UNARY = [
    ("exp", P.exp, torch.exp, (-2, 2)),
    ("log", P.log, torch.log, (0.3, 2)),
    ("sin", P.sin, torch.sin, (-2, 2)),
    ("tanh", P.tanh, torch.tanh, (-0.7, 0.7)),
    ("sqrt", P.sqrt, torch.sqrt, (0.3, 2)),
    ("arcsin", P.arcsin, torch.asin, (-0.6, 0.6)),
    ("abs", P.abs, torch.abs, (-2, 2)),
    ("conj", P.conj, torch.conj, (-2, 2)),
    ("real", P.real, torch.real, (-2, 2)),
    ("imag", P.imag, torch.imag, (-2, 2)),
]


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
@pytest.mark.parametrize("name,op,top,dom", UNARY, ids=[u[0] for u in UNARY])
def test_unary_vs_torch(name, op, top, dom, dtype):
    if name == "imag" and dtype != "complex128":
        pytest.skip("torch.imag is not defined for real tensors")
    rng = np.random.default_rng(RNG_SEED)
    _compare(op, top, [_rand(rng, (3, 4), dtype, *dom)], rng)


def test_sign_complex_vs_torch_sgn():
    rng = np.random.default_rng(RNG_SEED)
    z = _rand(rng, (3, 4), np.complex128)
    z[0, 0] = 0  # sgn'(0) = 0 in both
    _compare(P.sign, torch.sgn, [z], rng)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("name", ["mul", "div", "pow"])
def test_binary_vs_torch(name, dtype):
    rng = np.random.default_rng(RNG_SEED)
    x = _rand(rng, (3, 1), dtype, 0.5, 2.0)
    y = _rand(rng, (4,), dtype, 0.5, 2.0)  # broadcast against each other
    top = {"mul": torch.mul, "div": torch.div, "pow": torch.pow}[name]
    _compare(getattr(P, name), top, [x, y], rng)


def test_arctan2_logaddexp_vs_torch():
    rng = np.random.default_rng(RNG_SEED)
    y, x = _rand(rng, (3, 4), np.float64, 0.3, 2.0), _rand(rng, (3, 4), np.float64)
    _compare(P.arctan2, torch.atan2, [y, x], rng)
    _compare(P.logaddexp, torch.logaddexp, [x, y], rng)


def test_maximum_minimum_with_ties_vs_torch():
    rng = np.random.default_rng(RNG_SEED)
    x = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]])
    y = np.array([[1.0, 0.0, 5.0], [0.5, -1.0, 2.0]])  # three ties
    _compare(P.maximum, torch.maximum, [x, y], rng)
    _compare(P.minimum, torch.minimum, [x, y], rng)


def test_reduce_max_min_ties_vs_torch_amax():
    rng = np.random.default_rng(RNG_SEED)
    x = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0], [-1.0, 5.0, 4.0, 5.0]])
    _compare(lambda v: P.reduce_max(v, (1,)), lambda v: torch.amax(v, dim=1), [x], rng)
    _compare(lambda v: P.reduce_min(v, (0,)), lambda v: torch.amin(v, dim=0), [x], rng)
    _compare(lambda v: P.reduce_max(v, (0, 1)), lambda v: torch.amax(v, dim=(0, 1)), [x], rng)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_reduce_prod_with_zeros_vs_torch(dtype):
    rng = np.random.default_rng(RNG_SEED)
    x = _rand(rng, (4, 5), dtype, 0.5, 1.5)
    x[1, 2] = 0            # one zero in row 1
    x[2, 0] = x[2, 3] = 0  # two zeros in row 2
    _compare(lambda v: P.reduce_prod(v, (1,)), lambda v: torch.prod(v, dim=1), [x], rng)


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_dot_general_vs_torch(dtype):
    rng = np.random.default_rng(RNG_SEED)
    a, b = _rand(rng, (2, 3, 4), dtype), _rand(rng, (2, 4, 5), dtype)
    _compare(lambda l, r: P.dot_general(l, r, (((2,), (1,)), ((0,), (0,)))), torch.matmul,
             [a, b], rng)
    a, b = _rand(rng, (4, 2, 3), dtype), _rand(rng, (3, 5, 4), dtype)
    _compare(lambda l, r: P.dot_general(l, r, (((0, 2), (2, 0)), ((), ()))),
             lambda l, r: torch.einsum("iaj,jbi->ab", l, r), [a, b], rng)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gather_scatter_vs_torch(dtype):
    rng = np.random.default_rng(RNG_SEED)
    x = _rand(rng, (5, 3), dtype)
    idx = np.array([0, 2, 0, 4, -1])
    _compare(lambda v: P.gather(v, idx), lambda v: v[torch.tensor(idx)], [x], rng)
    cols = np.array([[0, 2], [1, 1]])
    _compare(lambda v: P.gather(v, (slice(1, 3), cols)),
             lambda v: v[1:3][:, torch.tensor(cols)], [x], rng)
    u = _rand(rng, (4, 3), dtype)
    rows = np.array([1, 1, 3, 0])
    _compare(lambda v: P.scatter_add(v, rows, (5, 3)),
             lambda v: torch.zeros(5, 3, dtype=v.dtype).index_add(0, torch.tensor(rows), v),
             [u], rng)


def test_second_derivatives_vs_torch():
    """Hessians (reverse-over-reverse in ftrans.hessian = jacfwd(jacrev)) against
    torch.autograd.functional.hessian, including prod at zeros."""
    from torch.autograd.functional import hessian as t_hessian
    rng = np.random.default_rng(RNG_SEED)
    cases = [
        (lambda v: P.reduce_prod(v, (0,)), lambda v: torch.prod(v), np.array([2.0, 0.0, 3.0])),
        (lambda v: P.reduce_prod(v, (0,)), lambda v: torch.prod(v),
         np.array([2.0, 0.0, 3.0, 0.0])),
        (lambda v: P.reduce_sum(P.mul(P.sin(v), P.exp(v)), (0,)),
         lambda v: (torch.sin(v) * torch.exp(v)).sum(), rng.uniform(-1, 1, 4)),
        (lambda v: P.reduce_sum(P.pow(v, P.gather(v, np.array([1, 2, 0]))), (0,)),
         lambda v: torch.pow(v, v[torch.tensor([1, 2, 0])]).sum(), rng.uniform(0.5, 2, 3)),
        (lambda v: P.reduce_sum(P.div(P.tanh(v), P.add(P.mul(v, v), 1.0)), (0,)),
         lambda v: (torch.tanh(v) / (v * v + 1)).sum(), rng.uniform(-1, 1, 4)),
    ]
    for f, tf, x in cases:
        want = t_hessian(tf, torch.tensor(x)).numpy()
        np.testing.assert_allclose(ftrans.hessian(f)(x), want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_conv_general_dilated_vs_torch(dtype):
    rng = np.random.default_rng(RNG_SEED)
    tf = torch.nn.functional
    x, w = _rand(rng, (2, 4, 7, 6), dtype), _rand(rng, (6, 2, 3, 2), dtype)
    _compare(lambda l, r: P.conv_general_dilated(l, r, (2, 1), ((1, 1), (0, 0)),
                                                 rhs_dilation=(1, 2), feature_group_count=2),
             lambda l, r: tf.conv2d(l, r, stride=(2, 1), padding=(1, 0), dilation=(1, 2),
                                    groups=2), [x, w], rng)
    # lhs_dilation is the transposed convolution (flipped, in/out-exchanged kernel)
    x, w = _rand(rng, (1, 3, 4), dtype), _rand(rng, (3, 2, 3), dtype)
    _compare(lambda l, r: P.conv_general_dilated(
                 l, P.gather(P.transpose(r, (1, 0, 2)), (slice(None), slice(None),
                                                         slice(None, None, -1))),
                 (1,), ((1, 2),), lhs_dilation=(2,)),
             lambda l, r: tf.conv_transpose1d(l, r, stride=2, padding=1, output_padding=1),
             [x, w], rng)


def test_reduce_window_max_ties_vs_torch_max_pool():
    rng = np.random.default_rng(RNG_SEED)
    x = np.round(rng.uniform(-2, 2, (2, 3, 6, 7)))       # many ties
    _compare(lambda v: P.reduce_window_max(v, (1, 1, 3, 3), (1, 1, 2, 2),
                                           ((0, 0), (0, 0), (1, 1), (1, 1))),
             lambda v: torch.nn.functional.max_pool2d(v, 3, 2, 1), [x], rng)
    _compare(lambda v: P.reduce_window_sum(v, (1, 1, 2, 3), (1, 1, 1, 2)),
             lambda v: torch.nn.functional.avg_pool2d(v, (2, 3), (1, 2)) * 6, [x], rng)
