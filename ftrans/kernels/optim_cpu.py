"""Fused CPU kernels of the optimizers' update rules (one pass over each parameter).

``ftrans.optim`` writes each update once, as a composition of primitives following the
pseudo-code of PyTorch's documentation; for concrete float32/float64 NumPy arrays (complex
ones as their real views) it calls these kernels as the implementation of that composition.
Each kernel evaluates the same operations in the same order, element by element in one
loop (the scalars are converted to the arrays' dtype by the caller, as PyTorch's CPU kernels
do, and ``fastmath`` stays off), so the two agree to the last bit on the CPU while a step
reads and writes each array once instead of once per operation (PyTorch's ``fused=True``).

Calling convention: inputs ``p, g, <state...>`` and outputs ``out, <state_out...>``, all
1-d C-contiguous arrays of one dtype.  ``apply=False``: ``out`` receives the update ``u``
and the state outputs the new state (the inputs are only read); ``apply=True``: the step
is made in place -- ``p`` receives ``p + u`` and the state inputs the new state (the
output arguments are not used).  An unused state array is an empty array.  numba is
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
    # each kernel: the element's formula once (inlined), then two loops -- in place and
    # out of place -- so that LLVM sees no overlap between the arrays a loop reads and
    # writes (its run-time alias checks pass) and vectorizes both.  An unused state
    # array's element is replaced by another array's (same dtype, value ignored).

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
             neg_lr_wd, neg_step, bc2_sqrt, amsgrad, maximize, decoupled, coupled, apply):
        if apply:
            for i in range(g.size):
                u, mi, vi, vmi = adam_el(p[i], g[i], m[i], v[i], vmax[i] if amsgrad else v[i],
                                         b1c, b2, b2c, eps, wd, neg_lr_wd, neg_step,
                                         bc2_sqrt, amsgrad, maximize, decoupled, coupled)
                m[i] = mi
                v[i] = vi
                if amsgrad:
                    vmax[i] = vmi
                p[i] = p[i] + u
        else:
            for i in range(g.size):
                u, mi, vi, vmi = adam_el(p[i], g[i], m[i], v[i], vmax[i] if amsgrad else v[i],
                                         b1c, b2, b2c, eps, wd, neg_lr_wd, neg_step,
                                         bc2_sqrt, amsgrad, maximize, decoupled, coupled)
                m_out[i] = mi
                v_out[i] = vi
                if amsgrad:
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
            maximize, apply):
        use_mom = buf.size > 0
        if apply:
            for i in range(g.size):
                u, b = sgd_el(p[i], g[i], buf[i] if use_mom else g[i], neg_lr, momentum, damp_c,
                              wd, use_wd, use_mom, first, nesterov, maximize)
                if use_mom:
                    buf[i] = b
                p[i] = p[i] + u
        else:
            for i in range(g.size):
                u, b = sgd_el(p[i], g[i], buf[i] if use_mom else g[i], neg_lr, momentum, damp_c,
                              wd, use_wd, use_mom, first, nesterov, maximize)
                if use_mom:
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
                eps, wd, use_wd, centered, use_mom, momentum, maximize, apply):
        if apply:
            for i in range(g.size):
                u, s, a, b = rmsprop_el(p[i], g[i], sq[i], gavg[i] if centered else sq[i],
                                        buf[i] if use_mom else sq[i], neg_lr, alpha, alpha_c,
                                        eps, wd, use_wd, centered, use_mom, momentum,
                                        maximize)
                sq[i] = s
                if centered:
                    gavg[i] = a
                if use_mom:
                    buf[i] = b
                p[i] = p[i] + u
        else:
            for i in range(g.size):
                u, s, a, b = rmsprop_el(p[i], g[i], sq[i], gavg[i] if centered else sq[i],
                                        buf[i] if use_mom else sq[i], neg_lr, alpha, alpha_c,
                                        eps, wd, use_wd, centered, use_mom, momentum,
                                        maximize)
                sq_out[i] = s
                if centered:
                    gavg_out[i] = a
                if use_mom:
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
    def adagrad(p, g, ssum, out, ssum_out, neg_clr, eps, wd, use_wd, maximize, apply):
        if apply:
            for i in range(g.size):
                u, s = adagrad_el(p[i], g[i], ssum[i], neg_clr, eps, wd, use_wd, maximize)
                ssum[i] = s
                p[i] = p[i] + u
        else:
            for i in range(g.size):
                u, s = adagrad_el(p[i], g[i], ssum[i], neg_clr, eps, wd, use_wd, maximize)
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
