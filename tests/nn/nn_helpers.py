"""Shared helpers of the ``ftrans.nn`` tests: the torch reference (value and VJP) and
the standard checks (jit == eager, vmap == loop, fused == composed)."""
from __future__ import annotations

import numpy as np
import pytest

import ftrans
import ftrans.nn as fnn

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed (differential "
                                 "tests against torch.nn.functional)")


def rng(seed=0):
    return np.random.default_rng(seed)


def away(a, points=(0.0,), gap=0.15):
    """``a`` with entries within ``gap`` of a kink in ``points`` pushed away from it."""
    a = np.array(a, dtype=np.float64, copy=True)
    for p in points:
        near = np.abs(a - p) < gap
        a[near] = p + np.where(a[near] >= p, gap, -gap) * 1.5
    return a


def tree_close(a, b, rtol=1e-7, atol=1e-9):
    la, lb = ftrans.tree_util.tree_leaves(a), ftrans.tree_util.tree_leaves(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=rtol, atol=atol)


def torch_vjp(fn, args, diff, ct_seed=1):
    """``(value, grads)`` of the torch function ``fn`` at ``args`` (NumPy arrays; those
    at positions ``diff`` require grad) with a random cotangent; grads in ``diff``
    order.  Returns the cotangent too."""
    targs = [torch.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
    for i in diff:
        targs[i].requires_grad_(True)
    out = fn(*targs)
    ct = rng(ct_seed).standard_normal(tuple(out.shape))
    if diff:
        out.backward(torch.tensor(ct, dtype=out.dtype))
    return out.detach().numpy(), [targs[i].grad.numpy() for i in diff], ct


def compare_torch(f, tf, args, diff, rtol=1e-7, atol=1e-9):
    """``f`` (ftrans) against ``tf`` (torch): value and the VJP for a random cotangent
    w.r.t. the arguments at ``diff``."""
    want, tgrads, ct = torch_vjp(tf, args, diff)
    got, pull = ftrans.vjp(lambda *d: f(*_put(args, diff, d)), *[args[i] for i in diff])
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    if diff:
        grads = pull(np.asarray(ct, np.asarray(got).dtype))
        for g, t in zip(grads, tgrads):
            np.testing.assert_allclose(g, t, rtol=rtol * 10, atol=atol * 10)


def _put(args, diff, vals):
    out = list(args)
    for i, v in zip(diff, vals):
        out[i] = v
    return out


def check_jit(f, args):
    tree_close(ftrans.jit(f)(*args), f(*args), rtol=1e-10, atol=1e-12)


def check_vmap(f, batched, rest=()):
    """``vmap(f)`` over the leading axis of ``batched`` (other args fixed) == a loop."""
    got = ftrans.vmap(lambda b: f(b, *rest))(batched)
    want = np.stack([np.asarray(f(b, *rest)) for b in batched])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def check_fused_matches_composed(f, args):
    """Value and gradient of ``sum(f(*args) * w)`` with the fused kernels on and off."""
    w = rng(7).standard_normal(np.shape(f(*args)))

    def loss(*a):
        return ftrans.numpy.sum(f(*a) * w)

    g1 = ftrans.value_and_grad(loss, argnums=tuple(range(len(args))))(*args)
    with fnn.fused_kernels(False):
        g2 = ftrans.value_and_grad(loss, argnums=tuple(range(len(args))))(*args)
    lo = any(np.asarray(a).dtype == np.float32 for a in args)
    tree_close(g1, g2, rtol=1e-4 if lo else 1e-9, atol=1e-4 if lo else 1e-11)


def torch_kwargs(kw):
    """``kw`` with its NumPy array values as torch tensors."""
    return {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
