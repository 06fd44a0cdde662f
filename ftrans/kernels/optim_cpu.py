"""Fused CPU kernels of the optimizers' update rules (one pass over each parameter).

``ftrans.optim`` writes each update once, as a composition of primitives following the
pseudo-code of PyTorch's documentation; for concrete float32/float64 NumPy arrays (complex
ones as their real views) it calls these kernels as the implementation of that composition.
Each kernel evaluates the same operations in the same order, element by element in one
loop (the scalars are converted to the arrays' dtype by the caller, as PyTorch's CPU kernels
do, and ``fastmath`` stays off), so the two agree to the last bit on the CPU while a step
reads and writes each array once instead of once per operation (PyTorch's ``fused=True``).

Calling convention: inputs ``p, g, <state...>`` and outputs ``out, <state_out...>``, all
1-d C-contiguous arrays of one dtype, or None.  With ``out`` an array, ``out`` receives
the update ``u`` and the state outputs the new state (the inputs are only read); with
``out`` None (and the state outputs None) the step is made in place: ``p`` receives
``p + u`` and the state inputs the new state.  A state that is off (no ``amsgrad``, no
momentum, not centered) is None in and out.  numba is imported and the kernels compiled
on first use (``cache=True``: later processes load them from disk), one variant per
pattern of None arguments.  Nothing here knows about tensors or tracers.
"""
from __future__ import annotations

import threading
from typing import Any

import numpy as np

__all__ = ["adam", "sgd", "rmsprop", "adagrad"]

_LOCK = threading.Lock()
_K: dict[str, Any] = {}  # name -> compiled numba kernel


def _build():
    from numba import njit
    jit = dict(cache=True, fastmath=False, error_model="numpy")
    # Each kernel: the element's formula once (inlined), then the loop.  An array that a
    # call does not use is None -- ``out is None``: the step is made in place; a state
    # array None: that state is off (amsgrad, momentum, centered) -- so numba compiles a
    # variant without it (its ``is None`` branches are pruned) and LLVM sees no possible
    # overlap between the arrays a loop reads and writes: every loop vectorizes.

    @njit(inline="always", **jit)
    def adam_el(pi, gi, mi, vi, vmi, b1c, b2, b2c, eps, wd, neg_lr_wd, neg_step, bc2_sqrt,
                amsgrad, maximize, decoupled, coupled):
        if maximize:
            gi = -gi
        if coupled:
            gi = gi + wd * pi
        mi = mi + b1c * (gi - mi)
        vi = vi * b2 + b2c * (gi * gi)
        v = vi
        if amsgrad:
            if vi > vmi or vi != vi:             # maximum: NaN propagates
                vmi = vi
            v = vmi
        u = neg_step * (mi / (np.sqrt(v) / bc2_sqrt + eps))
        if decoupled:
            u = neg_lr_wd * pi + u
        return u, mi, vi, vmi

    @njit(**jit)
    def adam(p, g, m, v, vmax, out, m_out, v_out, vmax_out, b1c, b2, b2c, eps, wd,
             neg_lr_wd, neg_step, bc2_sqrt, maximize, decoupled, coupled):
        for i in range(g.size):
            u, mi, vi, vmi = adam_el(p[i], g[i], m[i], v[i],
                                     vmax[i] if vmax is not None else v[i], b1c, b2, b2c,
                                     eps, wd, neg_lr_wd, neg_step, bc2_sqrt,
                                     vmax is not None, maximize, decoupled, coupled)
            if out is None:
                m[i] = mi
                v[i] = vi
                if vmax is not None:
                    vmax[i] = vmi
                p[i] = p[i] + u
            else:
                m_out[i] = mi
                v_out[i] = vi
                if vmax_out is not None:
                    vmax_out[i] = vmi
                out[i] = u

    @njit(inline="always", **jit)
    def sgd_el(pi, gi, bi, neg_lr, momentum, damp_c, wd, use_wd, use_mom, first, nesterov,
               maximize):
        if maximize:
            gi = -gi
        if use_wd:
            gi = gi + wd * pi
        if use_mom:
            if first:
                bi = gi
            else:
                bi = bi * momentum + damp_c * gi
            gi = gi + momentum * bi if nesterov else bi
        return neg_lr * gi, bi

    @njit(**jit)
    def sgd(p, g, buf, out, buf_out, neg_lr, momentum, damp_c, wd, use_wd, first, nesterov,
            maximize):
        for i in range(g.size):
            u, b = sgd_el(p[i], g[i], buf[i] if buf is not None else g[i], neg_lr, momentum,
                          damp_c, wd, use_wd, buf is not None, first, nesterov, maximize)
            if out is None:
                if buf is not None:
                    buf[i] = b
                p[i] = p[i] + u
            else:
                if buf_out is not None:
                    buf_out[i] = b
                out[i] = u

    @njit(inline="always", **jit)
    def rmsprop_el(pi, gi, s, a, b, neg_lr, alpha, alpha_c, eps, wd, use_wd, centered,
                   use_mom, momentum, maximize):
        if maximize:
            gi = -gi
        if use_wd:
            gi = gi + wd * pi
        s = s * alpha + alpha_c * (gi * gi)
        if centered:
            a = a + alpha_c * (gi - a)
            avg = np.sqrt(s - a * a) + eps
        else:
            avg = np.sqrt(s) + eps
        if use_mom:
            b = b * momentum + gi / avg
            u = neg_lr * b
        else:
            u = neg_lr * (gi / avg)
        return u, s, a, b

    @njit(**jit)
    def rmsprop(p, g, sq, gavg, buf, out, sq_out, gavg_out, buf_out, neg_lr, alpha, alpha_c,
                eps, wd, use_wd, momentum, maximize):
        for i in range(g.size):
            u, s, a, b = rmsprop_el(p[i], g[i], sq[i], gavg[i] if gavg is not None else sq[i],
                                    buf[i] if buf is not None else sq[i], neg_lr, alpha,
                                    alpha_c, eps, wd, use_wd, gavg is not None,
                                    buf is not None, momentum, maximize)
            if out is None:
                sq[i] = s
                if gavg is not None:
                    gavg[i] = a
                if buf is not None:
                    buf[i] = b
                p[i] = p[i] + u
            else:
                sq_out[i] = s
                if gavg_out is not None:
                    gavg_out[i] = a
                if buf_out is not None:
                    buf_out[i] = b
                out[i] = u

    @njit(inline="always", **jit)
    def adagrad_el(pi, gi, s, neg_clr, eps, wd, use_wd, maximize):
        if maximize:
            gi = -gi
        if use_wd:
            gi = gi + wd * pi
        s = s + gi * gi
        return neg_clr * (gi / (np.sqrt(s) + eps)), s

    @njit(**jit)
    def adagrad(p, g, ssum, out, ssum_out, neg_clr, eps, wd, use_wd, maximize):
        for i in range(g.size):
            u, s = adagrad_el(p[i], g[i], ssum[i], neg_clr, eps, wd, use_wd, maximize)
            if out is None:
                ssum[i] = s
                p[i] = p[i] + u
            else:
                ssum_out[i] = s
                out[i] = u

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
    """Adam's update: ``p, g, m, v, vmax, out, m_out, v_out, vmax_out`` as in the module
    docstring, then the scalars ``1 - b1, b2, 1 - b2, eps, wd, -lr*wd, -lr/(1 - b1^t),
    sqrt(1 - b2^t)`` (the arrays' dtype) and the flags ``maximize, decoupled, coupled``:
    ``ftrans.optim.adam``'s formula (AMSGrad when ``vmax`` is an array)."""
    _kernel("adam")(*args)


def sgd(*args):
    """SGD's update: ``p, g, buf, out, buf_out`` then ``-lr, momentum, 1 - dampening, wd``
    and the flags ``use_wd, first, nesterov, maximize``: ``ftrans.optim.sgd``'s formula
    (``buf`` None without momentum)."""
    _kernel("sgd")(*args)


def rmsprop(*args):
    """RMSprop's update: ``p, g, square_avg, grad_avg, buf`` and their outputs, then ``-lr,
    alpha, 1 - alpha, eps, wd, use_wd, momentum, maximize``: ``ftrans.optim.rmsprop``'s
    formula (centered when ``grad_avg`` is an array, momentum when ``buf`` is)."""
    _kernel("rmsprop")(*args)


def adagrad(*args):
    """Adagrad's update: ``p, g, sum, out, sum_out``, then ``-clr, eps, wd, use_wd,
    maximize``: ``ftrans.optim.adagrad``'s formula."""
    _kernel("adagrad")(*args)
