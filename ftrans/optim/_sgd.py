"""Stochastic gradient descent with (Nesterov) momentum, PyTorch's formulas."""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .. import numpy as fnp
from ..kernels import optim_cpu as _K
from ..typing import Array
from ._base import GradientTransformation, ScalarOrSchedule, _Rule, check_range

__all__ = ["sgd", "SgdState"]


class SgdState(NamedTuple):
    """SGD's state (a NamedTuple, itself a pytree).

    Parameters
    ----------
    count : Array
        int32 0-d array, the number of updates made.
    momentum : PyTree or None
        torch's ``momentum_buffer``, the params' structure; None without momentum.
    """

    count: Any
    momentum: Any


class _Sgd(_Rule):
    state_type = SgdState
    slots = ("momentum",)
    kernel = staticmethod(_K.sgd)

    def __init__(self, learning_rate: ScalarOrSchedule, momentum: float, dampening: float,
                 nesterov: bool, weight_decay: float, maximize: bool, fused: bool | None
                 ) -> None:
        super().__init__(learning_rate, fused)
        self.momentum = check_range("momentum", momentum)
        if isinstance(dampening, bool) or not isinstance(dampening, (int, float)):
            raise TypeError(f"dampening must be a real number; given "
                            f"{type(dampening).__name__}")
        self.dampening = float(dampening)
        self.wd = check_range("weight_decay", weight_decay)
        self.nesterov, self.maximize = bool(nesterov), bool(maximize)
        if self.nesterov and (self.momentum <= 0 or self.dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening "
                             f"(given momentum={momentum}, dampening={dampening})")
        self.needs_params = self.wd != 0
        # out of place, the kernel's call costs more than NumPy's few passes below 4096
        # elements, and more than plain SGD's one pass (-lr * g) at any size
        self.fused_min_size = 4096 if self.momentum != 0 or self.wd != 0 else 1 << 62

    def active(self) -> tuple[bool, ...]:
        return (self.momentum != 0,)

    def scalars(self, n: Any, lr: Any) -> tuple[Any, ...]:
        return -lr, n == 1

    def formula(self, s: tuple[Any, ...], c: Any, g: Array, p: Array,  # type: ignore[override]  # one parameter per slot
                buf: Array) -> tuple[Any, ...]:
        neg_lr, first = s
        if self.maximize:
            g = -g
        if self.wd != 0:
            g = g + self.wd * p
        if self.momentum != 0:
            later = buf * self.momentum + (1 - self.dampening) * g
            if first is True:
                buf = g
            elif first is False:
                buf = later
            else:
                buf = fnp.where(first, g, later)
            g = g + self.momentum * buf if self.nesterov else buf
        return c(neg_lr) * g, buf

    def kernel_args(self, s: tuple[Any, ...], t: type[np.generic]) -> tuple[Any, ...]:
        neg_lr, first = s
        return (t(neg_lr), t(self.momentum), t(1 - self.dampening), t(self.wd),
                self.wd != 0, bool(first), self.nesterov, self.maximize)


def sgd(learning_rate: ScalarOrSchedule, momentum: float = 0.0, dampening: float = 0.0,
        nesterov: bool = False, weight_decay: float = 0.0, maximize: bool = False, *,
        fused: bool | None = None) -> GradientTransformation:
    r"""Stochastic gradient descent, optionally with (Nesterov) momentum.

    The update of each leaf follows the pseudo-code of PyTorch's documentation
    (``torch.optim.SGD``)::

        g = -g if maximize;  g = g + weight_decay * theta     (weight_decay != 0)
        b = g (first update) or momentum * b + (1 - dampening) * g     (momentum != 0)
        g = g + momentum * b if nesterov else b                         (momentum != 0)
        u = -lr * g

    ``update`` needs ``params`` when ``weight_decay != 0``.

    Parameters
    ----------
    learning_rate : float or callable
        A float >= 0 or a schedule ``callable(count) -> float`` called with the number of
        updates made so far (0 for the first).
    momentum : float, optional
        Momentum factor, ``>= 0``.
    dampening : float, optional
        Dampening of the momentum.
    nesterov : bool, optional
        Nesterov momentum (needs ``momentum > 0`` and ``dampening == 0``).
    weight_decay : float, optional
        L2 penalty added to the gradient, ``>= 0``.
    maximize : bool, optional
        Ascend instead.
    fused : bool or None, optional
        None (default) uses the fused one-pass kernel for concrete float NumPy leaves
        where it measures faster (in-place steps; out of place, leaves of 4096 elements
        or more with momentum or weight decay -- plain SGD is one NumPy pass), True
        wherever it applies, False never (the composition of ``ftrans.numpy``
        operations, the definition; both agree to the last bit).

    Returns
    -------
    GradientTransformation
        ``(init, update)``; the state is a :class:`SgdState`.

    Raises
    ------
    ValueError
        For out-of-range values (torch's messages).
    TypeError
        For non-numbers.

    Examples
    --------
    >>> import numpy as np
    >>> from ftrans import optim
    >>> opt = optim.sgd(0.1, momentum=0.9)
    >>> w = np.array([1.0, 2.0]); state = opt.init(w)
    >>> u, state = opt.update(2 * w, state)
    >>> optim.apply_updates(w, u)
    array([0.8, 1.6])
    """
    return _Sgd(learning_rate, momentum, dampening, nesterov, weight_decay, maximize,
                fused).transformation()
