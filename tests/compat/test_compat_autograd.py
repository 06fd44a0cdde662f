"""Autograd behaviour written from PyTorch's documentation (runs without PyTorch).

Covers the examples of the ``torch.autograd`` reference (grad modes, ``is_leaf``,
``register_hook``), ``backward``/``grad`` and their arguments, freed buffers, hooks and
their order, ``retain_grad``, ``detach``, ``create_graph``, inference mode, and that the
compat layer's gradients are those of the functional API (one set of rules) and of
central differences.
"""
from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import ftrans
import ftrans.compat as torch
import ftrans.numpy as fnp
from test_compat_ops_diff import OPS, A


# ----------------------------------------------------------------- reference examples
def test_no_grad_example():
    x = torch.tensor([1.0], requires_grad=True)
    with torch.no_grad():
        y = x * 2
    assert y.requires_grad is False

    @torch.no_grad()
    def doubler(x):
        return x * 2
    assert doubler(x).requires_grad is False

    @torch.no_grad
    def doubler2(x):
        return x * 2
    assert doubler2(x).requires_grad is False


def test_enable_grad_example():
    x = torch.tensor([1.0], requires_grad=True)
    with torch.no_grad():
        with torch.enable_grad():
            y = x * 2
    assert y.requires_grad is True
    y.backward()
    assert x.grad.item() == 2.0

    @torch.enable_grad()
    def doubler(x):
        return x * 2
    with torch.no_grad():
        z = doubler(x)
    assert z.requires_grad is True


def test_set_grad_enabled_example():
    x = torch.tensor([1.0], requires_grad=True)
    is_train = False
    with torch.set_grad_enabled(is_train):
        y = x * 2
    assert y.requires_grad is False
    torch.set_grad_enabled(True)
    y = x * 2
    assert y.requires_grad is True
    torch.set_grad_enabled(False)
    y = x * 2
    assert y.requires_grad is False
    torch.set_grad_enabled(True)
    assert torch.is_grad_enabled()

    @torch.set_grad_enabled(False)
    def f(x):
        return x * 2
    assert torch.is_grad_enabled()  # decorating does not change the mode
    assert f(x).requires_grad is False and torch.is_grad_enabled()


def test_grad_mode_decorates_generators():
    x = torch.tensor([1.0], requires_grad=True)

    @torch.no_grad()
    def gen():
        yield x * 2
        yield torch.is_grad_enabled()
    g = gen()
    assert next(g).requires_grad is False
    assert torch.is_grad_enabled()
    assert next(g) is False


def test_is_leaf_examples():
    a = torch.rand(10, requires_grad=True)
    assert a.is_leaf
    c = torch.rand(10, requires_grad=True) + 2
    assert not c.is_leaf  # created by the addition
    d = torch.rand(10)
    assert d.is_leaf      # does not require grad
    e = torch.rand(10).requires_grad_()
    assert e.is_leaf
    assert c.grad_fn is not None and a.grad_fn is None


def test_register_hook_example():
    v = torch.tensor([0.0, 0.0, 0.0], requires_grad=True)
    h = v.register_hook(lambda grad: grad * 2)  # double the gradient
    v.backward(torch.tensor([1.0, 2.0, 3.0]))
    assert v.grad.tolist() == [2.0, 4.0, 6.0]
    h.remove()
    v.backward(torch.tensor([1.0, 1.0, 1.0]))
    assert v.grad.tolist() == [3.0, 5.0, 7.0]


def test_saved_tensors_examples():
    x = torch.randn(5, requires_grad=True)
    y = x.pow(2)
    assert x.equal(y.grad_fn._saved_self)
    assert x is y.grad_fn._saved_self
    y = x.exp()
    assert y.equal(y.grad_fn._saved_result)
    assert y is not y.grad_fn._saved_result
    assert y.grad_fn._saved_result.grad_fn is y.grad_fn


def test_requires_grad_only_for_floating():
    with pytest.raises(RuntimeError, match="floating point"):
        torch.ones(2, dtype=torch.int64).requires_grad_()
    with pytest.raises(RuntimeError, match="floating point"):
        torch.tensor([1], requires_grad=True)
    assert torch.ones(2, dtype=torch.complex64).requires_grad_().requires_grad


def test_requires_grad_flags_of_non_leaves():
    a = torch.ones(2, requires_grad=True)
    b = a * 2
    b.requires_grad = True  # already requires grad: allowed
    with pytest.raises(RuntimeError, match="leaf variables"):
        b.requires_grad = False
    a.requires_grad = False
    assert not (a * 2).requires_grad


# ------------------------------------------------------------------- backward and grad
def test_backward_accumulates_into_leaves():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    g = x.grad
    (x * x).sum().backward()
    assert x.grad is g  # accumulated in place
    assert x.grad.tolist() == [4.0, 8.0]
    x.grad = None
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_non_scalar_backward_needs_gradient():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        (x * 2).backward()
    (x * x).backward(torch.tensor([1.0, 3.0]))
    assert x.grad.tolist() == [2.0, 12.0]
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 2).backward(torch.ones(3))


def test_backward_of_tensor_not_requiring_grad():
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        torch.ones(2).sum().backward()


def test_second_backward_needs_retain_graph():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp().sum()
    y.backward(retain_graph=True)
    y.backward()
    assert np.allclose(x.grad.numpy(), 2 * np.exp([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="retain_graph=True"):
        y.backward()
    # nodes without saved tensors can be traversed again (as in PyTorch)
    z = (x + 1).sum()
    z.backward()
    z.backward()


def test_saved_tensor_access_after_free():
    x = torch.randn(3, requires_grad=True)
    y = x.sin()
    y.sum().backward()
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        y.grad_fn._saved_self


def test_autograd_backward_several_roots():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    y1 = a * 2
    y2 = (a * a).sum()
    torch.autograd.backward([y1, y2], [torch.tensor([1.0, 1.0]), None])
    assert a.grad.tolist() == [4.0, 6.0]


def test_backward_inputs():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    c = torch.tensor([3.0, 4.0], requires_grad=True)
    (a * c).sum().backward(inputs=[a])
    assert a.grad.tolist() == [3.0, 4.0] and c.grad is None
    (a * c).sum().backward(inputs=c)
    assert c.grad.tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match="cannot be empty"):
        (a * c).sum().backward(inputs=[])
    b = a * 2
    (b * b).sum().backward(inputs=[b])  # non-leaf inputs get .grad too
    assert b.grad.tolist() == [4.0, 8.0]


def test_grad_returns_and_does_not_accumulate():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    c = torch.tensor([3.0, 4.0], requires_grad=True)
    ga, gc = torch.autograd.grad((a * c).sum(), [a, c])
    assert ga.tolist() == [3.0, 4.0] and gc.tolist() == [1.0, 2.0]
    assert a.grad is None and c.grad is None
    (g,) = torch.autograd.grad(a * a, a, grad_outputs=torch.tensor([1.0, 10.0]))
    assert g.tolist() == [2.0, 40.0]


def test_grad_unused_inputs():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    c = torch.tensor([3.0, 4.0], requires_grad=True)
    y = (a * 2).sum()
    with pytest.raises(RuntimeError, match="index 1 appears to not have been used"):
        torch.autograd.grad(y, [a, c], retain_graph=True)
    ga, gc = torch.autograd.grad(y, [a, c], allow_unused=True, retain_graph=True)
    assert gc is None
    ga, gc = torch.autograd.grad(y, [a, c], materialize_grads=True, retain_graph=True)
    assert gc.tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="allow_unused"):
        torch.autograd.grad(y, [a], materialize_grads=True, allow_unused=False)
    with pytest.raises(RuntimeError, match="does not require grad"):
        torch.autograd.grad(y, [torch.ones(2)])


def test_grad_with_respect_to_intermediate_and_output():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a.exp()
    y = (b * b).sum()
    gb, ga = torch.autograd.grad(y, [b, a], retain_graph=True)
    assert np.allclose(gb.numpy(), 2 * np.exp([1.0, 2.0]))
    assert np.allclose(ga.numpy(), 2 * np.exp([2.0, 4.0]))
    (gy,) = torch.autograd.grad(y, y)
    assert gy.item() == 1.0


def test_grads_batched():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    (jac,) = torch.autograd.grad(y, x, torch.eye(2), is_grads_batched=True)
    assert jac.tolist() == [[2.0, 0.0], [0.0, 4.0]]


def test_leaf_backward():
    x = torch.tensor(2.0, requires_grad=True)
    x.backward()
    assert x.grad.item() == 1.0


# ------------------------------------------------------------------------------ hooks
def test_hook_order():
    """Tensor hooks (in registration order), then retain_grad capture, then the node's
    pre-hooks, the node, its post-hooks; on the leaf: tensor hooks, then AccumulateGrad's
    pre-hooks and post-hooks."""
    log = []
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    y = x * 2
    z = y.sin()
    y.register_hook(lambda g: log.append("t1") or g * 10)
    y.retain_grad()
    y.register_hook(lambda g: log.append(("t2", g.tolist())))
    y.grad_fn.register_prehook(lambda go: log.append("pre"))
    y.grad_fn.register_hook(lambda gi, go: log.append(("post", len(gi), gi[1])))
    x.register_hook(lambda g: log.append("leaf"))
    acc = y.grad_fn.next_functions[0][0]
    assert acc.name() == "torch::autograd::AccumulateGrad" and acc.variable is x
    acc.register_prehook(lambda go: log.append("accpre"))
    acc.register_hook(lambda gi, go: log.append(("accpost", gi)))
    z.sum().backward()
    g = (10 * np.cos([2.0, 4.0])).tolist()
    assert log == ["t1", ("t2", g), "pre", ("post", 2, None), "leaf", "accpre", ("accpost", ())]
    assert np.allclose(y.grad.numpy(), g)  # retain_grad sees the hooked gradient
    assert np.allclose(x.grad.numpy(), 2 * np.array(g))


def test_node_hooks_replace_gradients():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 100, None))
    y.sum().backward()
    assert x.grad.tolist() == [200.0, 200.0]
    x.grad = None
    y = x * 2
    y.grad_fn.register_prehook(lambda go: (go[0] * 100,))
    y.sum().backward()
    assert x.grad.tolist() == [200.0, 200.0]
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (gi[0],))
    with pytest.raises(RuntimeError, match="incorrect number of values"):
        y.sum().backward()


def test_hooks_and_in_place():
    """Hooks registered before an in-place operation see the gradient of the old value;
    those registered after (and retain_grad) see the new one."""
    log = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y.register_hook(lambda g: log.append(("before", g.tolist())))
    y.retain_grad()
    y.mul_(3)
    y.register_hook(lambda g: log.append(("after", g.tolist())))
    (y * 5).sum().backward()
    assert log == [("after", [5.0, 5.0]), ("before", [15.0, 15.0])]
    assert y.grad.tolist() == [5.0, 5.0]


def test_hook_errors():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        torch.ones(2).register_hook(lambda g: g)
    with pytest.raises(RuntimeError, match="requires_grad=False"):
        torch.ones(2).retain_grad()


def test_post_accumulate_grad_hook():
    seen = []
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    w.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.tolist()))
    (w * 3).sum().backward()
    assert seen == [[3.0, 3.0]]


# ------------------------------------------------------------------------- retain_grad
def test_retain_grad_accumulates():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    b.retain_grad()
    assert b.retains_grad and not a.retains_grad
    c = (b * b).sum()
    c.backward(retain_graph=True)
    first = b.grad
    c.backward()
    assert b.grad.tolist() == [8.0, 16.0] and first.tolist() == [4.0, 8.0]


def test_non_leaf_grad_warns():
    a = torch.ones(2, requires_grad=True)
    b = a * 2
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert b.grad is None
    assert len(w) == 1 and issubclass(w[0].category, UserWarning)
    assert "retain_grad" in str(w[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert a.grad is None  # leaves do not warn


def test_detach():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.is_leaf
    d.add_(1)  # shares storage and version counter
    assert y.tolist() == [3.0, 5.0] and y._version == 1
    y.detach_()
    assert not y.requires_grad and y.is_leaf and y.grad_fn is None
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        (x * 2)[0].detach_()


# ------------------------------------------------------------------------ create_graph
def test_double_backward_x_cubed():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (g,) = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
    assert g.requires_grad and g.grad_fn is not None
    assert g.tolist() == [3.0, 12.0]
    g.sum().backward()
    assert x.grad.tolist() == [6.0, 12.0]


def _f_np(x):
    return fnp.sum(fnp.sin(x) * fnp.exp(x)) + fnp.tanh(x[0] * x[1] * x[2])


def _f_t(x):
    return (x.sin() * x.exp()).sum() + (x[0] * x[1] * x[2]).tanh()


def test_hessian_vector_product_matches_functional():
    x0 = np.array([0.5, 1.5, -1.0])
    v = np.array([1.0, 2.0, 3.0])
    x = torch.tensor(x0, requires_grad=True)
    (g,) = torch.autograd.grad(_f_t(x), x, create_graph=True)
    (hv,) = torch.autograd.grad((g * torch.tensor(v)).sum(), x)
    assert np.allclose(g.detach().numpy(), ftrans.grad(_f_np)(x0))
    assert np.allclose(hv.numpy(), ftrans.hessian(_f_np)(x0) @ v)


def test_backward_create_graph_warns_and_builds_graph():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="reference cycle"):
        (x ** 3).sum().backward(create_graph=True)
    g = x.grad
    assert g.requires_grad
    x.grad = None
    g.sum().backward()
    assert x.grad.tolist() == [6.0, 12.0]


def test_gradient_penalty():
    rng = np.random.default_rng(1)
    w0, x0 = rng.standard_normal((3, 2)), rng.standard_normal((4, 2))
    w = torch.tensor(w0, requires_grad=True)
    x = torch.tensor(x0, requires_grad=True)
    out = torch.tanh(x @ w.t()).pow(2).sum()
    (gx,) = torch.autograd.grad(out, x, create_graph=True)
    penalty = (gx.norm() - 1) ** 2
    penalty.backward()

    def pen(w):
        gx = ftrans.grad(lambda x: fnp.sum(fnp.tanh(x @ w.T) ** 2))(x0)
        return (fnp.sqrt(fnp.sum(gx * gx)) - 1) ** 2
    assert np.allclose(w.grad.numpy(), ftrans.grad(pen)(w0))


def test_third_derivative():
    x = torch.tensor([0.7], dtype=torch.float64, requires_grad=True)
    y = (x.sin() * x).sum()
    (g1,) = torch.autograd.grad(y, x, create_graph=True)
    (g2,) = torch.autograd.grad(g1.sum(), x, create_graph=True)
    (g3,) = torch.autograd.grad(g2.sum(), x)
    t = 0.7
    assert np.isclose(g3.item(), -3 * np.sin(t) - t * np.cos(t))


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "sigmoid", "relu", "mean1",
                                  "max0", "clamp", "norm_dim", "logsumexp", "where", "idx_list",
                                  "expand", "stack", "mm", "div", "pow_tensor", "std1"])
def test_second_order_of_composites_matches_functional(name):
    """Double backward through composite nodes (their formulas are ftrans operations):
    grad of <grad f(x), u> equals the functional Hessian-vector product."""
    f = OPS[name]
    u = np.random.default_rng(3).standard_normal(A.shape)

    def scalar(x, T):
        y = f(x, T)
        w = T.tensor(np.linspace(0.5, 1.5, y.numel()).reshape(tuple(y.shape)))
        return (y * w).sum()
    x = torch.tensor(A, requires_grad=True)
    (g,) = torch.autograd.grad(scalar(x, torch), x, create_graph=True)
    if g.requires_grad:
        (hu,) = torch.autograd.grad((g * torch.tensor(u)).sum(), x)
    else:  # the gradient does not depend on x (piecewise linear f): zero Hessian
        hu = torch.zeros_like(x)
    # reference: finite differences of the compat gradient itself
    eps = 1e-6

    def grad_at(a):
        xx = torch.tensor(a, requires_grad=True)
        return torch.autograd.grad(scalar(xx, torch), xx)[0].numpy()
    fd = (grad_at(A + eps * u) - grad_at(A - eps * u)) / (2 * eps)
    assert np.allclose(hu.numpy(), fd, rtol=1e-5, atol=1e-5)


# ----------------------------------------------------- one set of rules, finite differences
# not differentiable (piecewise constant), errors, float32 (too coarse for differences),
# or deliberately not the derivative of the value (detach)
_SKIP_FD = {"round", "floor", "ceil", "sign", "idx_out_of_range", "view_bad", "expand_bad",
            "mismatch_broadcast", "int_mean_error", "to_float32", "to_dtype", "detach"}


@pytest.mark.parametrize("name", sorted(k for k in OPS if k not in _SKIP_FD))
def test_gradients_match_central_differences(name):
    f = OPS[name]
    x = torch.tensor(A, requires_grad=True)
    with np.errstate(all="ignore"):
        y = f(x, torch)
    if not y.dtype.is_floating_point:
        return
    w = np.linspace(0.5, 1.5, y.numel()).reshape(tuple(y.shape))
    if not y.requires_grad:
        return
    (y * torch.tensor(w)).sum().backward()
    g = x.grad.numpy() if x.grad is not None else np.zeros_like(A)

    def loss(a):
        with torch.no_grad(), np.errstate(all="ignore"):
            return float((f(torch.tensor(a), torch).double() * torch.tensor(w)).sum())
    rng = np.random.default_rng(5)
    for _ in range(2):
        d = rng.standard_normal(A.shape)
        eps = 1e-6
        fd = (loss(A + eps * d) - loss(A - eps * d)) / (2 * eps)
        assert np.isclose(np.sum(g * d), fd, rtol=1e-5, atol=1e-6), (np.sum(g * d), fd)


def test_same_rules_as_functional_api():
    """The compat graph calls the primitives' VJP rules: gradients equal ftrans.grad's."""
    x0 = np.random.default_rng(0).standard_normal((4, 3))
    w0 = np.random.default_rng(1).standard_normal((3, 2))

    def f_np(x, w):
        h = fnp.tanh(x @ w)
        return fnp.sum(fnp.exp(-h * h) * fnp.sin(h)) / fnp.max(fnp.abs(x))

    x = torch.tensor(x0, requires_grad=True)
    w = torch.tensor(w0, requires_grad=True)
    h = torch.tanh(x @ w)
    y = ((-h * h).exp() * h.sin()).sum() / x.abs().max()
    y.backward()
    gx, gw = ftrans.grad(f_np, argnums=(0, 1))(x0, w0)
    assert np.allclose(x.grad.numpy(), gx) and np.allclose(w.grad.numpy(), gw)


def test_nondifferentiable_points_follow_the_notes():
    x = torch.tensor([0.0, 1.0, -1.0], requires_grad=True)
    x.relu().sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0]
    x.grad = None
    x.abs().sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, -1.0]
    x.grad = None
    with np.errstate(divide="ignore"):
        x[:1].sqrt().sum().backward()
    assert x.grad[0].item() == float("inf")
    y = torch.tensor([1.0, 3.0, 3.0], requires_grad=True)
    y.max().backward()
    assert y.grad.tolist() == [0.0, 0.5, 0.5]


def test_complex_gradient_convention():
    """For a real loss of complex z the gradient is dL/dx + i dL/dy (the autograd notes)."""
    z0 = np.array([1 + 2j, -0.5 + 1j])
    z = torch.tensor(z0, requires_grad=True)
    (z.abs() ** 2).sum().backward()
    assert np.allclose(z.grad.numpy(), 2 * z0)


# ------------------------------------------------------------------------- grad modes
def test_grad_mode_is_thread_local():
    seen = []
    x = torch.ones(2, requires_grad=True)

    def worker():
        seen.append((torch.is_grad_enabled(), (x * 2).requires_grad))
    with torch.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert not (x * 2).requires_grad
    assert seen == [(True, True)]


def test_inference_mode():
    a = torch.ones(2, requires_grad=True)
    with torch.inference_mode():
        assert torch.is_inference_mode_enabled() and not torch.is_grad_enabled()
        t = torch.ones(2)
        y = a * 2
        assert t.is_inference() and not y.requires_grad
        with torch.inference_mode(False):
            assert not torch.is_inference_mode_enabled()
            assert not torch.ones(1).is_inference()
    assert not torch.is_inference_mode_enabled() and torch.is_grad_enabled()
    assert (a + t).requires_grad  # not saved: allowed
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        a * t
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        t.add_(1)
    with pytest.raises(RuntimeError, match="inference tensor outside InferenceMode"):
        t.requires_grad_()
    t.clone().requires_grad_()  # the documented work-around

    @torch.inference_mode()
    def f(x):
        return x * 2
    assert f(a).is_inference()

    @torch.inference_mode
    def g(x):
        return x * 2
    assert not g(a).requires_grad


def test_set_multithreading_enabled_and_layout_policy_are_thread_local_flags():
    import threading
    ag = torch.autograd
    assert ag.is_multithreading_enabled()
    with ag.set_multithreading_enabled(False):
        assert not ag.is_multithreading_enabled()
        seen = []
        th = threading.Thread(target=lambda: seen.append(ag.is_multithreading_enabled()))
        th.start()
        th.join()
        assert seen == [True]
        x = torch.ones(3, requires_grad=True)
        (x * 2).sum().backward()
        assert x.grad.tolist() == [2.0, 2.0, 2.0]
    assert ag.is_multithreading_enabled()
    ag.set_multithreading_enabled(False)
    assert not ag.is_multithreading_enabled()
    ag.set_multithreading_enabled(True)
    with ag.enforce_grad_layout_policy(False):
        p = torch.ones(2, 3).t().requires_grad_()
        (p * 2).sum().backward()
        assert p.grad.shape == p.shape
    with pytest.raises(TypeError):
        ag.set_multithreading_enabled(1)
