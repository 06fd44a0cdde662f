"""RMSprop (Hinton's lecture 6e; the centered form of Graves, 2013), PyTorch's formulas."""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .. import numpy as fnp
from ..kernels import optim_cpu as _K
from ..typing import Array
from ._base import GradientTransformation, ScalarOrSchedule, _Rule, check_range

__all__ = ["rmsprop", "RmspropState"]


class RmspropState(NamedTuple):
    """RMSprop's state (a NamedTuple, itself a pytree).

    Parameters
    ----------
    count : Array
        int32 0-d array, the number of updates made.
    square_avg : PyTree
        Running average of the squared gradients, the params' structure.
    grad_avg : PyTree or None
        Running average of the gradients (centered), else None.
    momentum : PyTree or None
        torch's ``momentum_buffer``; None without momentum.
    """

    count: Any
    square_avg: Any
    grad_avg: Any
    momentum: Any


class _Rmsprop(_Rule):
    state_type = RmspropState
    slots = ("square_avg", "grad_avg", "momentum")
    kernel = staticmethod(_K.rmsprop)

    def __init__(self, learning_rate: ScalarOrSchedule, alpha: float, eps: float,
                 weight_decay: float, momentum: float, centered: bool, maximize: bool,
                 fused: bool | None) -> None:
        super().__init__(learning_rate, fused)
        self.alpha = check_range("alpha", alpha)
        self.eps = check_range("eps", eps, what="epsilon")
        self.wd = check_range("weight_decay", weight_decay)
        self.momentum = check_range("momentum", momentum)
        self.centered, self.maximize = bool(centered), bool(maximize)
        self.needs_params = self.wd != 0

    def active(self) -> tuple[bool, ...]:
        return (True, self.centered, self.momentum > 0)

    def scalars(self, n: Any, lr: Any) -> tuple[Any, ...]:
        return (-lr,)

    def formula(self, s: tuple[Any, ...], c: Any, g: Array, p: Array,  # type: ignore[override]  # one parameter per slot
                sq: Array, gavg: Array, buf: Array) -> tuple[Any, ...]:
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

    def kernel_args(self, s: tuple[Any, ...], t: type[np.generic]) -> tuple[Any, ...]:
        return (t(s[0]), t(self.alpha), t(1 - self.alpha), t(self.eps), t(self.wd),
                self.wd != 0, t(self.momentum), self.maximize)


def rmsprop(learning_rate: ScalarOrSchedule = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
            weight_decay: float = 0.0, momentum: float = 0.0, centered: bool = False,
            maximize: bool = False, *, fused: bool | None = None) -> GradientTransformation:
    r"""RMSprop, optionally centered and with momentum.

    The update of each leaf follows the pseudo-code of PyTorch's documentation
    (``torch.optim.RMSprop``)::

        g = -g if maximize;  g = g + weight_decay * theta     (weight_decay != 0)
        v = alpha * v + (1 - alpha) * g * g
        centered: a = a + (1 - alpha) * (g - a);  avg = sqrt(v - a * a) + eps
        else:     avg = sqrt(v) + eps
        momentum > 0: b = momentum * b + g / avg;  u = -lr * b
        else:         u = -lr * (g / avg)

    ``update`` needs ``params`` when ``weight_decay != 0``.

    Parameters
    ----------
    learning_rate : float or callable, optional
        A float >= 0 or a schedule ``callable(count) -> float``.
    alpha : float, optional
        Smoothing constant, ``>= 0``.
    eps : float, optional
        Added to the denominator, ``>= 0``.
    weight_decay : float, optional
        L2 penalty added to the gradient, ``>= 0``.
    momentum : float, optional
        Momentum factor, ``>= 0``.
    centered : bool, optional
        Normalize by the estimated variance of the gradient.
    maximize : bool, optional
        Ascend instead.
    fused : bool or None, optional
        As :func:`~ftrans.optim.adam`.

    Returns
    -------
    GradientTransformation
        ``(init, update)``; the state is an :class:`RmspropState`.

    Raises
    ------
    ValueError
        For negative values.
    TypeError
        For non-numbers.

    Notes
    -----
    Hinton's Coursera lecture 6e; the centered form: Graves, "Generating Sequences With
    Recurrent Neural Networks", 2013.
    """
    return _Rmsprop(learning_rate, alpha, eps, weight_decay, momentum, centered, maximize,
                    fused).transformation()
