"""Differential harness for ``compat.nn`` against PyTorch (not collected by pytest).

A case builds the same module in both libraries (``make(T)`` with ``T`` the ``torch``
module to use), copies PyTorch's ``state_dict`` into the compat module, runs both on
the same inputs, back-propagates the same random cotangent through every floating
output and compares: outputs, gradients of the inputs, gradients of every parameter
(by name) and every buffer after the call (running statistics).
"""
from __future__ import annotations

import warnings
import zlib

import numpy as np
import pytest

import ftrans.compat as fc

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed: "
                                                       "differential tests are skipped")

TOL = {"float64": dict(rtol=1e-10, atol=1e-12), "float32": dict(rtol=2e-4, atol=2e-5)}


class X:
    """A float input of ``shape`` (uniform on [lo, hi]); ``grad`` marks it differentiable."""

    def __init__(self, *shape, lo=-2.0, hi=2.0, grad=True):
        self.shape, self.lo, self.hi, self.grad = shape, lo, hi, grad

    def make(self, rng, dtype):
        return rng.uniform(self.lo, self.hi, self.shape).astype(dtype)


class I:  # noqa: E742
    """An int64 input of ``shape`` with values in [lo, hi)."""

    def __init__(self, lo, hi, *shape, values=None):
        self.lo, self.hi, self.shape, self.values = lo, hi, shape, values
        self.grad = False

    def make(self, rng, dtype):
        if self.values is not None:
            return np.asarray(self.values, np.int64)
        return rng.integers(self.lo, self.hi, self.shape).astype(np.int64)


class Bool:
    def __init__(self, *shape, values=None):
        self.shape, self.values, self.grad = shape, values, False

    def make(self, rng, dtype):
        if self.values is not None:
            return np.asarray(self.values, bool)
        return rng.random(self.shape) < 0.3


def _rng(*keys):
    return np.random.default_rng(zlib.crc32(repr(keys).encode()))


def _flat_outputs(out):
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res.extend(_flat_outputs(o))
        return res
    return [out] if out is not None else []


def _as_np(t):
    return np.array(t.detach().numpy(), copy=True)


def _close(a, b, dtype, what):
    assert a.shape == b.shape, (what, a.shape, b.shape)
    tol = TOL[dtype]
    scale = max(1.0, float(np.max(np.abs(b), initial=0.0))) if b.size else 1.0
    np.testing.assert_allclose(a, b, rtol=tol["rtol"], atol=tol["atol"] * scale,
                               err_msg=what)


def run_both(make, specs, dtype, *, train=False, call=None, key=""):
    """Run the case in both libraries; returns nothing, asserts agreement.

    ``make(T)``: a module (or None for a plain function case, then ``call(T, m, *xs)``
    computes the output).  ``call`` defaults to ``m(*xs)``."""
    rng = _rng(key, dtype)
    arrays = [s.make(rng, dtype) for s in specs]
    tdt = getattr(torch, dtype)
    fdt = getattr(fc, dtype)
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm = make(torch)
        fm = make(fc)
    if tm is not None:
        tm = tm.to(tdt).train(train)
        fm = fm.to(fdt).train(train)
        sd = {k: fc.tensor(v.detach().numpy().copy()) for k, v in tm.state_dict().items()}
        r = fm.load_state_dict(sd)
        assert not r.missing_keys and not r.unexpected_keys
        assert list(fm.state_dict()) == list(tm.state_dict())
        assert [n for n, _ in fm.named_parameters()] == [n for n, _ in tm.named_parameters()]
    call = call or (lambda T, m, *xs: m(*xs))
    touts, fouts = [], []
    tins, fins = [], []
    for s, a in zip(specs, arrays):
        tt = torch.tensor(a)
        ft = fc.tensor(a)
        if s.grad:
            tt.requires_grad_(True)
            ft.requires_grad_(True)
        tins.append(tt)
        fins.append(ft)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tout = call(torch, tm, *tins)
        fout = call(fc, fm, *fins)
    touts, fouts = _flat_outputs(tout), _flat_outputs(fout)
    assert len(touts) == len(fouts)
    for k, (a, b) in enumerate(zip(fouts, touts)):
        assert str(a.dtype).replace("torch.", "") == str(b.dtype).replace("torch.", ""), (
            k, a.dtype, b.dtype)
        _close(_as_np(a), _as_np(b), dtype, f"output {k}")
    # one random cotangent for every floating output that requires grad
    tl, fl = 0, 0
    for k, (a, b) in enumerate(zip(fouts, touts)):
        if b.requires_grad:
            assert a.requires_grad, f"output {k} should require grad"
            w = _rng(key, dtype, k).uniform(-1, 1, tuple(b.shape)).astype(dtype)
            tl = tl + (b * torch.tensor(w)).sum()
            fl = fl + (a * fc.tensor(w)).sum()
    if isinstance(tl, int):
        return
    tl.backward()
    fl.backward()
    for k, (a, b) in enumerate(zip(fins, tins)):
        if b.grad is not None or a.grad is not None:
            assert a.grad is not None and b.grad is not None, f"input {k} grad presence"
            _close(_as_np(a.grad), _as_np(b.grad), dtype, f"grad of input {k}")
    if tm is not None:
        tp = dict(tm.named_parameters())
        for n, p in fm.named_parameters():
            q = tp[n]
            assert (p.grad is None) == (q.grad is None), f"grad presence of {n}"
            if q.grad is not None:
                _close(_as_np(p.grad), _as_np(q.grad), dtype, f"grad of parameter {n}")
        tb = dict(tm.named_buffers())
        for n, b in fm.named_buffers():
            _close(_as_np(b), _as_np(tb[n]), dtype, f"buffer {n}")
