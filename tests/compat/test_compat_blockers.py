"""The tutorials' blockers of issue 23 against PyTorch (and functorch): ``nn.DataParallel``,
``make_functional(_with_buffers)``, ``combine_state_for_ensemble``, ``torch.func.linearize``,
``functionalize``, ``replace_all_batch_norm_modules_`` and ``torch.utils.checkpoint``.
Skipped without PyTorch."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from tests.compat.compat_diff import assert_same, needs_torch, torch

import ftrans.compat as fc
from ftrans.compat import func as cfunc
from ftrans.compat.utils import checkpoint as ccp

pytestmark = needs_torch

try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import functorch
except ImportError:  # pragma: no cover
    functorch = None
needs_functorch = pytest.mark.skipif(functorch is None, reason="functorch is not installed")


def _mlp(T, seed=0, bn=False):
    """A small model with the same weights in torch and compat."""
    layers = [T.nn.Linear(3, 4), T.nn.Tanh(), T.nn.Linear(4, 2)]
    if bn:
        layers.insert(1, T.nn.BatchNorm1d(4))
    m = T.nn.Sequential(*layers).double()
    rng = np.random.default_rng(seed)
    with T.no_grad():
        for p in m.parameters():
            p.copy_(T.tensor(rng.standard_normal(tuple(p.shape))))
    return m


def _x(T, n=5, seed=1):
    return T.tensor(np.random.default_rng(seed).standard_normal((n, 3)))


# ------------------------------------------------------------------------- DataParallel
def test_data_parallel_wraps_one_module():
    def f(T):
        inner = _mlp(T)
        m = T.nn.DataParallel(inner)
        y = m(_x(T))
        y.sum().backward()
        sd = m.state_dict()
        return (m.module is inner, sorted(sd.keys()), y, inner[0].weight.grad,
                [n for n, _ in m.named_parameters()])
    assert_same(f)


def test_data_parallel_state_dict_roundtrip():
    def f(T):
        m = T.nn.DataParallel(_mlp(T, seed=3))
        m2 = T.nn.DataParallel(_mlp(T, seed=4))
        m2.load_state_dict(m.state_dict())
        return m2(_x(T))
    assert_same(f)


# --------------------------------------------------------------------- functorch's API
def _functorch_or_compat(T):
    return functorch if T is torch else cfunc


@needs_functorch
def test_make_functional():
    def f(T):
        F = _functorch_or_compat(T)
        m = _mlp(T)
        fmodel, params = F.make_functional(m)
        x = _x(T)
        y = fmodel(params, x)
        g = T.autograd.grad(y.sum(), params)
        # compat.func.grad against torch's autograd (torch.func.grad's first call costs
        # seconds in torch, importing dynamo)
        gf = g if T is torch else fc.func.grad(lambda p: fmodel(p, x).sum())(params)
        return y, list(g), list(gf), [p.requires_grad for p in params], len(params)
    assert_same(f)


@needs_functorch
def test_make_functional_refuses_buffers_and_detaches():
    def f(T):
        F = _functorch_or_compat(T)
        _, params = F.make_functional(_mlp(T), disable_autograd_tracking=True)
        return [p.requires_grad for p in params]
    assert_same(f)
    assert_same(lambda T: _functorch_or_compat(T).make_functional(_mlp(T, bn=True)))


@needs_functorch
def test_make_functional_with_buffers_per_sample_grads():
    def f(T):
        F = _functorch_or_compat(T)
        m = _mlp(T, bn=True).eval()
        fmodel, params, buffers = F.make_functional_with_buffers(m)
        x = _x(T)
        y = fmodel(params, buffers, x)
        def loss(p, b, xi):
            return fmodel(p, b, xi.unsqueeze(0)).sum()
        if T is torch:   # per-sample gradients by a loop (see test_make_functional)
            rows = [T.autograd.grad(loss(params, buffers, xi), params) for xi in x]
            per = [T.stack(r) for r in zip(*rows)]
        else:
            per = fc.func.vmap(fc.func.grad(loss), in_dims=(None, None, 0))(params, buffers, x)
        return y, list(per), len(buffers)
    assert_same(f)


@needs_functorch
def test_combine_state_for_ensemble():
    def f(T):
        F = _functorch_or_compat(T)
        models = [_mlp(T, seed=s) for s in range(3)]
        fmodel, params, buffers = F.combine_state_for_ensemble(models)
        vm = T.func.vmap if T is torch else fc.func.vmap
        y = vm(fmodel, in_dims=(0, 0, None))(params, buffers, _x(T))
        return y, [tuple(p.shape) for p in params], [p.requires_grad for p in params]
    assert_same(f)


# ----------------------------------------------------------------------------- torch.func
def test_linearize():
    def f(T):
        x = T.tensor([0.5, 1.0, 2.0], dtype=T.float64)
        t = T.tensor([1.0, 0.0, 2.0], dtype=T.float64)
        if T is torch:   # torch.func.linearize traces with make_fx (seconds): its values
            return T.sin(x) * x, (T.cos(x) * x + T.sin(x)) * t
        out, jvp_fn = T.func.linearize(lambda v: T.sin(v) * v, x)
        return out, jvp_fn(t)
    assert_same(f)


def test_functionalize():
    def f(T):
        def g(x):
            y = x.clone()
            y.add_(1.0)
            return y * 2
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = T.func.functionalize(g)(x)
        return y, T.autograd.grad(y.sum(), x)
    assert_same(f)
    assert_same(lambda T: T.func.functionalize(lambda x: x, remove="views"))


def test_replace_all_batch_norm_modules():
    def f(T):
        m = _mlp(T, bn=True)
        r = T.func.replace_all_batch_norm_modules_(m)
        bn = m[1]
        m.eval()
        return (r is m, bn.running_mean, bn.running_var, bn.num_batches_tracked,
                bn.track_running_stats, m(_x(T)))
    assert_same(f)


# ------------------------------------------------------------------------ utils.checkpoint
class _NoCheckpoint:
    """torch's reference for a checkpointed call: the same call without checkpointing
    (equal values and gradients; torch's own checkpoint costs seconds on its first call,
    importing dynamo)."""

    @staticmethod
    def checkpoint(function, *args, use_reentrant=None, **kwargs):
        return function(*args, **kwargs)

    @staticmethod
    def checkpoint_sequential(functions, segments, input, use_reentrant=None):  # noqa: A002
        return functions(input)


def _ckpt(T):
    return _NoCheckpoint if T is torch else ccp


@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint_values_and_gradients(reentrant):
    def f(T):
        m = _mlp(T)
        x = _x(T).requires_grad_()
        y = _ckpt(T).checkpoint(m, x, use_reentrant=reentrant)
        y.pow(2).sum().backward()
        return y, x.grad, [p.grad for p in m.parameters()]
    assert_same(f)


def test_checkpoint_non_reentrant_with_autograd_grad():
    def f(T):
        x = _x(T).requires_grad_()
        w = T.tensor([[0.5], [1.5], [-1.0]], dtype=T.float64, requires_grad=True)

        def fn(a, b):
            return T.tanh(a @ b).exp()
        y = _ckpt(T).checkpoint(fn, x, w, use_reentrant=False)
        return T.autograd.grad(y.sum(), (x, w))
    assert_same(f)


@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint_preserves_rng_state_for_dropout(reentrant):
    # the recomputed dropout mask must equal the forward's: the gradient is the mask / (1-p)
    T = fc
    T.manual_seed(0)
    x = T.ones(50, dtype=T.float64, requires_grad=True)
    y = ccp.checkpoint(lambda v: T.nn.functional.dropout(v * 3.0, 0.5), x,
                       use_reentrant=reentrant)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (y.detach().numpy() != 0) * 6.0)


def test_checkpoint_without_use_reentrant_warns():
    # PyTorch 2.13 warns ("the use_reentrant parameter should be passed explicitly") and
    # uses the reentrant variant
    x = fc.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant"):
        y = ccp.checkpoint(fc.sin, x)
    assert type(y.grad_fn).__name__ == "CheckpointFunctionBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos([1.0, 2.0]), rtol=1e-6)


def test_checkpoint_sequential():
    def f(T):
        m = T.nn.Sequential(*[T.nn.Linear(3, 3) for _ in range(4)]).double()
        with T.no_grad():
            for i, p in enumerate(m.parameters()):
                p.copy_(T.linspace(-1, 1, p.numel(), dtype=T.float64).reshape(p.shape) / (i + 1))
        x = _x(T).requires_grad_()
        y = _ckpt(T).checkpoint_sequential(m, 2, x, use_reentrant=False)
        y.sum().backward()
        return y, x.grad, m[0].weight.grad
    assert_same(f)


def test_checkpoint_under_func_grad():
    # torch.func refuses saved-tensor hooks; compat runs ftrans.checkpoint under the
    # transform: the gradient equals torch.func.grad of the function without checkpoint
    def g(a):
        return (a.sin() * a).sum()
    x = [0.5, 1.0]
    got = cfunc.grad(lambda v: ccp.checkpoint(g, v, use_reentrant=False))(
        fc.tensor(x, dtype=fc.float64))
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    want, = torch.autograd.grad(g(xt), xt)
    np.testing.assert_allclose(got.numpy(), want.numpy())
