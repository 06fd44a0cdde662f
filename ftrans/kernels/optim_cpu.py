"""Fused CPU kernels of the optimizers' update rules (one pass over each parameter).

``ftrans.compat.optim`` writes each update as PyTorch's documentation does -- a chain of
in-place tensor operations -- and that chain is the reference; for plain C-contiguous
float32/float64 NumPy arrays the optimizers call these kernels instead, which compute
the same formulas element by element in one loop (the scalars are converted to the
arrays' dtype first, as PyTorch's CPU kernels do, and ``fastmath`` stays off), so the
trajectories agree to rounding while a step reads and writes each array once instead
of once per operation (PyTorch's ``fused=True`` idea).  numba is imported and the
kernels compiled on first use (``cache=True``: later processes load them from disk).
Nothing here knows about tensors or tracers: arguments are 1-d arrays and scalars.
"""
from __future__ import annotations

import threading

import numpy as np

__all__ = ["adam_update", "sgd_update", "rmsprop_update", "adagrad_update", "eligible"]

_LOCK = threading.Lock()
_K = {}


def eligible(*arrays):
    """True when every array is a C-contiguous float32/float64 ndarray of one dtype."""
    dt = arrays[0].dtype
    if dt != np.float32 and dt != np.float64:
        return False
    for a in arrays:
        if type(a) is not np.ndarray or a.dtype != dt or not a.flags.c_contiguous \
                or not a.flags.writeable:
            return False
    return True


def _build():
    from numba import njit
    jit = dict(cache=True, fastmath=False, error_model="numpy")

    @njit(**jit)
    def adam(p, g, m, v, vmax, b1c, b2, b2c, eps, wd, decay, step_size, bc2_sqrt,
             amsgrad, maximize, decoupled, coupled):
        for i in range(p.size):
            gi = -g[i] if maximize else g[i]
            pi = p[i]
            if decoupled:
                pi = pi * decay
            elif coupled:
                gi = gi + wd * pi
            mi = m[i] + b1c * (gi - m[i])
            vi = v[i] * b2 + b2c * (gi * gi)
            m[i] = mi
            v[i] = vi
            if amsgrad:
                if vi > vmax[i] or vi != vi:      # torch.maximum: NaN propagates
                    vmax[i] = vi
                vi = vmax[i]
            denom = np.sqrt(vi) / bc2_sqrt + eps
            p[i] = pi - step_size * (mi / denom)

    @njit(**jit)
    def sgd(p, g, buf, lr, momentum, damp_c, wd, use_wd, first, nesterov, maximize):
        for i in range(p.size):
            gi = -g[i] if maximize else g[i]
            if use_wd:
                gi = gi + wd * p[i]
            if buf.size:
                if first:
                    b = gi
                else:
                    b = buf[i] * momentum + damp_c * gi
                buf[i] = b
                gi = gi + momentum * b if nesterov else b
            p[i] = p[i] - lr * gi

    @njit(**jit)
    def rmsprop(p, g, sq, gavg, buf, lr, alpha, alpha_c, eps, wd, use_wd, centered,
                use_mom, momentum, maximize):
        for i in range(p.size):
            gi = -g[i] if maximize else g[i]
            if use_wd:
                gi = gi + wd * p[i]
            s = sq[i] * alpha + alpha_c * (gi * gi)
            sq[i] = s
            if centered:
                a = gavg[i] + alpha_c * (gi - gavg[i])
                gavg[i] = a
                avg = np.sqrt(s - a * a) + eps
            else:
                avg = np.sqrt(s) + eps
            if use_mom:
                b = buf[i] * momentum + gi / avg
                buf[i] = b
                p[i] = p[i] - lr * b
            else:
                p[i] = p[i] - lr * (gi / avg)

    @njit(**jit)
    def adagrad(p, g, ssum, clr, eps, wd, use_wd, maximize):
        for i in range(p.size):
            gi = -g[i] if maximize else g[i]
            if use_wd:
                gi = gi + wd * p[i]
            s = ssum[i] + gi * gi
            ssum[i] = s
            p[i] = p[i] - clr * (gi / (np.sqrt(s) + eps))

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


def adam_update(p, g, m, v, vmax, *, lr, beta1, beta2, eps, weight_decay, step,
                amsgrad, maximize, decoupled):
    """One Adam/AdamW step on 1-d arrays, in place (``p``, ``m``, ``v`` and ``vmax`` when
    ``amsgrad``; ``vmax`` may be an empty array otherwise), ``step`` the new step count:
    ``torch.optim.Adam``'s formulas (see :class:`ftrans.compat.optim.Adam`)."""
    t = p.dtype.type
    bc1 = 1 - beta1 ** step
    bc2 = 1 - beta2 ** step
    wd = weight_decay
    _kernel("adam")(p, g, m, v, vmax, t(1 - beta1), t(beta2), t(1 - beta2), t(eps),
                    t(0.0 if decoupled else wd), t(1 - lr * wd), t(lr / bc1),
                    t(bc2 ** 0.5), bool(amsgrad), bool(maximize),
                    bool(decoupled and wd != 0), bool(not decoupled and wd != 0))


def sgd_update(p, g, buf, *, lr, momentum, dampening, weight_decay, first, nesterov,
               maximize):
    """One SGD step on 1-d arrays, in place (``p``; ``buf``, the momentum buffer, when
    ``momentum != 0``, else an empty array); ``first``: the buffer is being created."""
    t = p.dtype.type
    _kernel("sgd")(p, g, buf, t(lr), t(momentum), t(1 - dampening), t(weight_decay),
                   bool(weight_decay != 0), bool(first), bool(nesterov), bool(maximize))


def rmsprop_update(p, g, square_avg, grad_avg, buf, *, lr, alpha, eps, weight_decay,
                   centered, momentum, maximize):
    """One RMSprop step on 1-d arrays, in place (``grad_avg``/``buf`` empty arrays when
    not ``centered``/``momentum == 0``): ``torch.optim.RMSprop``'s formulas."""
    t = p.dtype.type
    _kernel("rmsprop")(p, g, square_avg, grad_avg, buf, t(lr), t(alpha), t(1 - alpha), t(eps),
                       t(weight_decay), bool(weight_decay != 0), bool(centered),
                       bool(momentum > 0), t(momentum), bool(maximize))


def adagrad_update(p, g, state_sum, *, clr, eps, weight_decay, maximize):
    """One Adagrad step on 1-d arrays, in place, ``clr`` the decayed learning rate:
    ``torch.optim.Adagrad``'s formulas."""
    t = p.dtype.type
    _kernel("adagrad")(p, g, state_sum, t(clr), t(eps), t(weight_decay),
                       bool(weight_decay != 0), bool(maximize))
