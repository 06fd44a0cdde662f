"""Adagrad (Duchi, Hazan & Singer, 2011), PyTorch's formulas."""
from __future__ import annotations

from typing import Any, NamedTuple

from .. import numpy as fnp
from ..kernels import optim_cpu as _K
from ._base import _Rule, check_range

__all__ = ["adagrad", "AdagradState"]


class AdagradState(NamedTuple):
    """Adagrad's state: ``count`` (int32 0-d array) and ``sum`` (the accumulated squared
    gradients, the params' structure)."""

    count: Any
    sum: Any


class _Adagrad(_Rule):
    state_type = AdagradState
    slots = ("sum",)
    kernel = staticmethod(_K.adagrad)

    def __init__(self, learning_rate, lr_decay, weight_decay, initial_accumulator_value,
                 eps, maximize, fused):
        super().__init__(learning_rate, fused)
        self.lr_decay = check_range("lr_decay", lr_decay)
        self.wd = check_range("weight_decay", weight_decay)
        self.init_acc = check_range("initial_accumulator_value", initial_accumulator_value)
        self.eps = check_range("eps", eps, what="epsilon")
        self.maximize = bool(maximize)
        self.needs_params = self.wd != 0

    def init_leaf(self, p):
        return (fnp.full_like(p, self.init_acc),)

    def scalars(self, n, lr):
        return (-(lr / (1 + (n - 1) * self.lr_decay)),)

    def formula(self, s, c, g, p, ssum):
        if self.maximize:
            g = -g
        if self.wd != 0:
            g = g + self.wd * p
        ssum = ssum + g * g
        return c(s[0]) * (g / (fnp.sqrt(ssum) + self.eps)), ssum

    def kernel_args(self, s, t):
        return t(s[0]), t(self.eps), t(self.wd), self.wd != 0, self.maximize


def adagrad(learning_rate=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0,
            eps=1e-10, maximize=False, *, fused=None):
    r"""Adagrad as a :class:`~ftrans.optim.GradientTransformation`.

    The update of each leaf follows the pseudo-code of PyTorch's documentation
    (``torch.optim.Adagrad``; ``t`` the 1-based step)::

        g = -g if maximize;  g = g + weight_decay * theta     (weight_decay != 0)
        clr = lr / (1 + (t - 1) * lr_decay)
        s = s + g * g;  u = -clr * (g / (sqrt(s) + eps))

    Args: ``learning_rate`` (float >= 0 or schedule ``callable(count) -> float``),
    ``lr_decay``, ``weight_decay``, ``initial_accumulator_value`` (the initial ``s``),
    ``eps`` (all >= 0), ``maximize``; ``fused`` as :func:`~ftrans.optim.adam`.  State in
    :class:`AdagradState`; ``update`` needs ``params`` when ``weight_decay != 0``.
    ``ValueError`` for negative values, ``TypeError`` for non-numbers.
    """
    return _Adagrad(learning_rate, lr_decay, weight_decay, initial_accumulator_value, eps,
                    maximize, fused).transformation()
