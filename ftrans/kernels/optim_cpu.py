"""Fused CPU kernels of the optimizers' update rules (one pass over each parameter).

``ftrans.optim`` writes each update once, as a composition of primitives following the
pseudo-code of PyTorch's documentation; for concrete float32/float64 NumPy arrays (complex
ones as their real views) it calls these kernels as the implementation of that composition.
Each kernel evaluates the same operations in the same order, element by element in one
loop (the scalars are converted to the arrays' dtype by the caller, as PyTorch's CPU kernels
do, and ``fastmath`` stays off), so the two agree to the last bit on the CPU while a step
reads and writes each array once instead of once per operation (PyTorch's ``fused=True``).

Calling convention: inputs ``p, g, <state...>`` and outputs ``out, <state_out...>``, all
1-d arrays of one dtype; an output may be its input (in-place step: element ``i`` is read
before it is written).  ``out`` receives the update ``u`` (``apply=False``) or the new
parameter ``p + u`` (``apply=True``).  An unused state array is an empty array.  numba is
imported and the kernels compiled on first use (``cache=True``: later processes load them
from disk).  Nothing here knows about tensors or tracers.
"""
from __future__ import annotations

import threading

import numpy as np

__all__ = ["adam", "sgd", "rmsprop", "adagrad"]

_LOCK = threading.Lock()
_K = {}


def _build():
    from numba import njit
    jit = dict(cache=True, fastmath=False, error_model="numpy")

    @njit(**jit)
    def adam(p, g, m, v, vmax, out, m_out, v_out, vmax_out, b1c, b2, b2c, eps, wd,
             neg_lr_wd, neg_step, bc2_sqrt, amsgrad, maximize, decoupled, coupled, apply):
        for i in range(g.size):
            gi = -g[i] if maximize else g[i]
            pi = p[i]
            if coupled:
                gi = gi + wd * pi
            mi = m[i] + b1c * (gi - m[i])
            vi = v[i] * b2 + b2c * (gi * gi)
            m_out[i] = mi
            v_out[i] = vi
            if amsgrad:
                vm = vmax[i]
                if vi > vm or vi != vi:          # maximum: NaN propagates
                    vm = vi
                vmax_out[i] = vm
                vi = vm
            u = neg_step * (mi / (np.sqrt(vi) / bc2_sqrt + eps))
            if decoupled:
                u = neg_lr_wd * pi + u
            out[i] = pi + u if apply else u

    @njit(**jit)
    def sgd(p, g, buf, out, buf_out, neg_lr, momentum, damp_c, wd, use_wd, first, nesterov,
            maximize, apply):
        for i in range(g.size):
            gi = -g[i] if maximize else g[i]
            pi = p[i]
            if use_wd:
                gi = gi + wd * pi
            if buf.size:
                if first:
                    b = gi
                else:
                    b = buf[i] * momentum + damp_c * gi
                buf_out[i] = b
                gi = gi + momentum * b if nesterov else b
            u = neg_lr * gi
            out[i] = pi + u if apply else u

    @njit(**jit)
    def rmsprop(p, g, sq, gavg, buf, out, sq_out, gavg_out, buf_out, neg_lr, alpha, alpha_c,
                eps, wd, use_wd, centered, use_mom, momentum, maximize, apply):
        for i in range(g.size):
            gi = -g[i] if maximize else g[i]
            pi = p[i]
            if use_wd:
                gi = gi + wd * pi
            s = sq[i] * alpha + alpha_c * (gi * gi)
            sq_out[i] = s
            if centered:
                a = gavg[i] + alpha_c * (gi - gavg[i])
                gavg_out[i] = a
                avg = np.sqrt(s - a * a) + eps
            else:
                avg = np.sqrt(s) + eps
            if use_mom:
                b = buf[i] * momentum + gi / avg
                buf_out[i] = b
                u = neg_lr * b
            else:
                u = neg_lr * (gi / avg)
            out[i] = pi + u if apply else u

    @njit(**jit)
    def adagrad(p, g, ssum, out, ssum_out, neg_clr, eps, wd, use_wd, maximize, apply):
        for i in range(g.size):
            gi = -g[i] if maximize else g[i]
            pi = p[i]
            if use_wd:
                gi = gi + wd * pi
            s = ssum[i] + gi * gi
            ssum_out[i] = s
            u = neg_clr * (gi / (np.sqrt(s) + eps))
            out[i] = pi + u if apply else u

    _K["adam"], _K["sgd"] = adam, sgd
    _K["rmsprop"], _K["adagrad"] = rmsprop, adagrad


def _kernel(name):
    k = _K.get(name)
    if k is None:
        with _LOCK:
            if not _K:
                _build()
            k = _K[name]
    return k


def adam(*args):
    """``out[i]`` = Adam's update (or new parameter) of element ``i``; arguments as in the
    module docstring, then the scalars ``1 - b1, b2, 1 - b2, eps, wd, -lr*wd, -lr/(1 -
    b1^t), sqrt(1 - b2^t)`` (the arrays' dtype) and the flags ``amsgrad, maximize,
    decoupled, coupled, apply``: ``ftrans.optim.adam``'s formula."""
    _kernel("adam")(*args)


def sgd(*args):
    """SGD's update: ``p, g, buf, out, buf_out`` then ``-lr, momentum, 1 - dampening, wd``
    and the flags ``use_wd, first, nesterov, maximize, apply``: ``ftrans.optim.sgd``'s
    formula (``buf`` empty without momentum)."""
    _kernel("sgd")(*args)


def rmsprop(*args):
    """RMSprop's update: ``p, g, square_avg, grad_avg, buf`` and their outputs, then ``-lr,
    alpha, 1 - alpha, eps, wd`` and ``use_wd, centered, use_mom, momentum, maximize,
    apply``: ``ftrans.optim.rmsprop``'s formula."""
    _kernel("rmsprop")(*args)


def adagrad(*args):
    """Adagrad's update: ``p, g, sum, out, sum_out``, then ``-clr, eps, wd`` and ``use_wd,
    maximize, apply``: ``ftrans.optim.adagrad``'s formula."""
    _kernel("adagrad")(*args)
