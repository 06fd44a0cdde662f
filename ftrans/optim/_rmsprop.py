"""RMSprop (Hinton's lecture 6e; the centered form of Graves, 2013), PyTorch's formulas."""
from __future__ import annotations

from typing import Any, NamedTuple

from .. import numpy as fnp
from ..kernels import optim_cpu as _K
from ._base import _Rule, check_range

__all__ = ["rmsprop", "RmspropState"]


class RmspropState(NamedTuple):
    """RMSprop's state: ``count`` (int32 0-d array), ``square_avg``, ``grad_avg``
    (centered, else None) and ``momentum`` (torch's ``momentum_buffer``; None without
    momentum), each with the params' structure."""

    count: Any
    square_avg: Any
    grad_avg: Any
    momentum: Any


class _Rmsprop(_Rule):
    state_type = RmspropState
    slots = ("square_avg", "grad_avg", "momentum")
    kernel = staticmethod(_K.rmsprop)

    def __init__(self, learning_rate, alpha, eps, weight_decay, momentum, centered, maximize,
                 fused):
        super().__init__(learning_rate, fused)
        self.alpha = check_range("alpha", alpha)
        self.eps = check_range("eps", eps, what="epsilon")
        self.wd = check_range("weight_decay", weight_decay)
        self.momentum = check_range("momentum", momentum)
        self.centered, self.maximize = bool(centered), bool(maximize)
        self.needs_params = self.wd != 0

    def active(self):
        return (True, self.centered, self.momentum > 0)

    def scalars(self, n, lr):
        return (-lr,)

    def formula(self, s, c, g, p, sq, gavg, buf):
        neg_lr = c(s[0])
        if self.maximize:
            g = -g
        if self.wd != 0:
            g = g + self.wd * p
        sq = sq * self.alpha + (1 - self.alpha) * (g * g)
        if self.centered:
            gavg = gavg + (1 - self.alpha) * (g - gavg)
            avg = fnp.sqrt(sq - gavg * gavg) + self.eps
        else:
            avg = fnp.sqrt(sq) + self.eps
        if self.momentum > 0:
            buf = buf * self.momentum + g / avg
            u = neg_lr * buf
        else:
            u = neg_lr * (g / avg)
        return u, sq, gavg, buf

    def kernel_args(self, s, t):
        return (t(s[0]), t(self.alpha), t(1 - self.alpha), t(self.eps), t(self.wd),
                self.wd != 0, t(self.momentum), self.maximize)


def rmsprop(learning_rate=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0,
            centered=False, maximize=False, *, fused=None):
    r"""RMSprop as a :class:`~ftrans.optim.GradientTransformation`.

    The update of each leaf follows the pseudo-code of PyTorch's documentation
    (``torch.optim.RMSprop``)::

        g = -g if maximize;  g = g + weight_decay * theta     (weight_decay != 0)
        v = alpha * v + (1 - alpha) * g * g
        centered: a = a + (1 - alpha) * (g - a);  avg = sqrt(v - a * a) + eps
        else:     avg = sqrt(v) + eps
        momentum > 0: b = momentum * b + g / avg;  u = -lr * b
        else:         u = -lr * (g / avg)

    Args: ``learning_rate`` (float >= 0 or schedule ``callable(count) -> float``),
    ``alpha``, ``eps``, ``weight_decay``, ``momentum`` (all >= 0), ``centered``,
    ``maximize`` as torch's; ``fused`` as :func:`~ftrans.optim.adam`.  State in
    :class:`RmspropState`; ``update`` needs ``params`` when ``weight_decay != 0``.
    ``ValueError`` for negative values, ``TypeError`` for non-numbers.
    """
    return _Rmsprop(learning_rate, alpha, eps, weight_decay, momentum, centered, maximize,
                    fused).transformation()
