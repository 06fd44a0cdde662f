"""Composite nodes (``compat/autograd/_composite.py``): one graph node per torch operation
that is a composition of primitives, its backward ``ftrans.vjp`` of the composition
(staged once per shape/dtype), and residual nodes for ``custom_vjp`` functions."""
import numpy as np
import pytest

import ftrans
import ftrans.compat as torch
import ftrans.numpy as fnp
from ftrans.compat import _opbase
from ftrans.compat.autograd import _composite as C
from ftrans.compat.autograd import forward_ad as fwAD
from ftrans.testing import numerical_jvp


def _central(f, x, eps=1e-6):
    """The gradient of the scalar NumPy function ``f`` at ``x``, one central difference
    per element (``ftrans.testing.numerical_jvp``)."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = 1.0
        g[i] = numerical_jvp(lambda a: f(a), (x,), [e], eps)
    return g


def test_composite_backward_is_staged_once_per_shape_and_matches_differences():
    rng = np.random.default_rng(0)
    x0 = rng.normal(size=(3, 4))
    C._STAGED.clear()
    grads = []
    for _ in range(3):
        x = torch.tensor(x0, requires_grad=True)
        torch.logsumexp(x, 1).pow(2).sum().backward()
        grads.append(x.grad.numpy())
    n = len(C._STAGED)
    assert n == 2      # the forward and the backward program, staged once for 3 calls
    assert all(np.array_equal(g, grads[0]) for g in grads)

    def f(a):
        m = a.max(axis=1, keepdims=True)
        lse = (m + np.log(np.exp(a - m).sum(axis=1, keepdims=True)))[:, 0]
        return (lse ** 2).sum()
    np.testing.assert_allclose(grads[0], _central(f, x0), rtol=1e-6, atol=1e-8)
    # another shape: other programs
    x = torch.tensor(rng.normal(size=(2, 5)), requires_grad=True)
    torch.logsumexp(x, 1).sum().backward()
    assert len(C._STAGED) == n + 2


def test_composite_node_names_and_create_graph_second_derivative():
    x0 = np.array([[0.3, -1.2, 2.0], [1.0, 0.5, -0.5]])
    x = torch.tensor(x0, requires_grad=True)
    y = torch.logsumexp(x, 1)
    assert type(y.grad_fn).__name__ == "LogsumexpBackward0"
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    (h,) = torch.autograd.grad((g * g).sum(), x)

    def ref(a):
        gg = ftrans.grad(lambda b: fnp.sum(fnp.log(fnp.sum(fnp.exp(b), axis=1))))(a)
        return fnp.sum(gg * gg)
    np.testing.assert_allclose(h.numpy(), ftrans.grad(ref)(x0), rtol=1e-10, atol=1e-12)


def test_composite_forward_ad_is_the_jvp_of_the_composition():
    x0 = np.array([0.2, -0.7, 1.5])
    v0 = np.array([1.0, 2.0, -1.0])
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.tensor(x0), torch.tensor(v0))
        t = fwAD.unpack_dual(torch.softmax(d, 0)).tangent.numpy()
    y = np.exp(x0) / np.exp(x0).sum()
    expected = y * v0 - y * (y @ v0)   # J v for softmax: diag(y) v - y y^T v
    np.testing.assert_allclose(t, expected, rtol=1e-12)


def test_linear_composite_saves_no_values_and_allows_inplace_after():
    # sum(dim) is linear: its node keeps only shape and dtype, so writing to the operand
    # afterwards is allowed (as in PyTorch) and the gradient is still ones
    a = torch.tensor(np.ones((2, 3)), requires_grad=True)
    h = a * 2
    s = h.sum(dim=1)
    h.mul_(3)
    s.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.full((2, 3), 2.0))


def test_nonlinear_composite_saves_its_operand_and_detects_inplace_writes():
    a = torch.tensor(np.array([0.5, 1.5]), requires_grad=True)
    h = a * 1.0
    s = torch.sigmoid(h)
    h.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        s.sum().backward()


# a custom_vjp function with counters: the residual node must call fwd once in the forward
# and bwd once in the backward, never recompute
_calls = {"fwd": 0, "bwd": 0}


@ftrans.custom_vjp
def _scaled_exp(x):
    return fnp.exp(x) * 2.0


def _se_fwd(x):
    _calls["fwd"] += 1
    y = fnp.exp(x) * 2.0
    return y, (y,)


def _se_bwd(res, g):
    _calls["bwd"] += 1
    return (g * res[0],)


_scaled_exp.defvjp(_se_fwd, _se_bwd)
_ScaledExp = C.residual_class("ScaledExpBackward0", ("self",), edge_idx=(0,))


def _scaled_exp_op(x):
    return _opbase._custom(_ScaledExp, _scaled_exp, [x], [x._data])[0]


def test_residual_node_runs_fwd_once_and_bwd_once():
    x0 = np.array([0.1, -0.4, 0.9])
    x = torch.tensor(x0, requires_grad=True)
    _calls.update(fwd=0, bwd=0)
    y = _scaled_exp_op(x)
    assert type(y.grad_fn).__name__ == "ScaledExpBackward0"
    assert len(y.grad_fn.next_functions) == 1
    y.sum().backward()
    assert _calls == {"fwd": 1, "bwd": 1}
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(x0), rtol=1e-14)
    # no grad needed: the plain function, no residuals
    _calls.update(fwd=0, bwd=0)
    out = _scaled_exp_op(torch.tensor(x0))
    assert _calls == {"fwd": 0, "bwd": 0}
    np.testing.assert_allclose(out.numpy(), 2 * np.exp(x0))


def test_residual_node_create_graph_recomputes_differentiably():
    x0 = np.array([0.1, -0.4, 0.9])
    x = torch.tensor(x0, requires_grad=True)
    y = _scaled_exp_op(x)
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), 2 * np.exp(x0), rtol=1e-12)
