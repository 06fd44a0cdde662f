"""Adagrad (Duchi, Hazan & Singer, 2011), PyTorch's formulas."""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .. import numpy as fnp
from ..kernels import optim_cpu as _K
from ..typing import Array
from ._base import GradientTransformation, ScalarOrSchedule, _Rule, check_range

__all__ = ["adagrad", "AdagradState"]


class AdagradState(NamedTuple):
    """Adagrad's state (a NamedTuple, itself a pytree).

    Parameters
    ----------
    count : Array
        int32 0-d array, the number of updates made.
    sum : PyTree
        The accumulated squared gradients, the params' structure.
    """

    count: Any
    sum: Any


class _Adagrad(_Rule):
    state_type = AdagradState
    slots = ("sum",)
    kernel = staticmethod(_K.adagrad)

    def __init__(self, learning_rate: ScalarOrSchedule, lr_decay: float, weight_decay: float,
                 initial_accumulator_value: float, eps: float, maximize: bool,
                 fused: bool | None) -> None:
        super().__init__(learning_rate, fused)
        self.lr_decay = check_range("lr_decay", lr_decay)
        self.wd = check_range("weight_decay", weight_decay)
        self.init_acc = check_range("initial_accumulator_value", initial_accumulator_value)
        self.eps = check_range("eps", eps, what="epsilon")
        self.maximize = bool(maximize)
        self.needs_params = self.wd != 0

    def init_leaf(self, p: Array) -> tuple[Array | None, ...]:
        return (fnp.full_like(p, self.init_acc),)

    def scalars(self, n: Any, lr: Any) -> tuple[Any, ...]:
        return (-(lr / (1 + (n - 1) * self.lr_decay)),)

    def formula(self, s: tuple[Any, ...], c: Any, g: Array, p: Array,  # type: ignore[override]  # one parameter per slot
                ssum: Array) -> tuple[Any, ...]:
        if self.maximize:
            g = -g
        if self.wd != 0:
            g = g + self.wd * p
        ssum = ssum + g * g
        return c(s[0]) * (g / (fnp.sqrt(ssum) + self.eps)), ssum

    def kernel_args(self, s: tuple[Any, ...], t: type[np.generic]) -> tuple[Any, ...]:
        return t(s[0]), t(self.eps), t(self.wd), self.wd != 0, self.maximize


def adagrad(learning_rate: ScalarOrSchedule = 1e-2, lr_decay: float = 0.0,
            weight_decay: float = 0.0, initial_accumulator_value: float = 0.0,
            eps: float = 1e-10, maximize: bool = False, *,
            fused: bool | None = None) -> GradientTransformation:
    r"""Adagrad.

    The update of each leaf follows the pseudo-code of PyTorch's documentation
    (``torch.optim.Adagrad``; ``t`` the 1-based step)::

        g = -g if maximize;  g = g + weight_decay * theta     (weight_decay != 0)
        clr = lr / (1 + (t - 1) * lr_decay)
        s = s + g * g;  u = -clr * (g / (sqrt(s) + eps))

    ``update`` needs ``params`` when ``weight_decay != 0``.

    Parameters
    ----------
    learning_rate : float or callable, optional
        A float >= 0 or a schedule ``callable(count) -> float``.
    lr_decay : float, optional
        Learning-rate decay, ``>= 0``.
    weight_decay : float, optional
        L2 penalty added to the gradient, ``>= 0``.
    initial_accumulator_value : float, optional
        The initial ``s``, ``>= 0``.
    eps : float, optional
        Added to the denominator, ``>= 0``.
    maximize : bool, optional
        Ascend instead.
    fused : bool or None, optional
        As :func:`~ftrans.optim.adam`.

    Returns
    -------
    GradientTransformation
        ``(init, update)``; the state is an :class:`AdagradState`.

    Raises
    ------
    ValueError
        For negative values.
    TypeError
        For non-numbers.

    Notes
    -----
    Duchi, Hazan & Singer, "Adaptive Subgradient Methods for Online Learning and
    Stochastic Optimization", JMLR 2011.
    """
    return _Adagrad(learning_rate, lr_decay, weight_decay, initial_accumulator_value, eps,
                    maximize, fused).transformation()
