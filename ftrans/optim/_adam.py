"""Adam and AdamW (Kingma & Ba, 2015; Loshchilov & Hutter, 2019), PyTorch's formulas."""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .. import numpy as fnp
from ..kernels import optim_cpu as _K
from ..typing import Array
from ._base import GradientTransformation, ScalarOrSchedule, _Rule, check_range

__all__ = ["adam", "adamw", "AdamState"]


class AdamState(NamedTuple):
    """Adam's state (a NamedTuple, itself a pytree).

    Parameters
    ----------
    count : Array
        int32 0-d array, the number of updates made.
    mu, nu : PyTree
        First and second moments, the params' structure (torch's ``exp_avg`` and
        ``exp_avg_sq``).
    nu_max : PyTree or None
        The running maximum of ``nu`` with ``amsgrad`` (torch's ``max_exp_avg_sq``), else
        None.
    """

    count: Any
    mu: Any
    nu: Any
    nu_max: Any


class _Adam(_Rule):
    state_type = AdamState
    slots = ("mu", "nu", "nu_max")
    kernel = staticmethod(_K.adam)

    def __init__(self, learning_rate: ScalarOrSchedule, b1: float, b2: float, eps: float,
                 weight_decay: float, amsgrad: bool, maximize: bool, decoupled: bool,
                 fused: bool | None) -> None:
        super().__init__(learning_rate, fused)
        self.b1 = check_range("b1", b1, 0.0, 1.0, "beta parameter at index 0")
        self.b2 = check_range("b2", b2, 0.0, 1.0, "beta parameter at index 1")
        self.eps = check_range("eps", eps, what="epsilon")
        self.wd = check_range("weight_decay", weight_decay)
        self.amsgrad, self.maximize = bool(amsgrad), bool(maximize)
        self.decoupled = bool(decoupled)
        self.needs_params = self.wd != 0

    def active(self) -> tuple[bool, ...]:
        return (True, True, self.amsgrad)

    def scalars(self, n: Any, lr: Any) -> tuple[Any, ...]:
        bc1 = 1 - self.b1 ** n
        bc2 = 1 - self.b2 ** n
        return -(lr / bc1), bc2 ** 0.5, -(lr * self.wd)

    def formula(self, s: tuple[Any, ...], c: Any, g: Array, p: Array,  # type: ignore[override]  # one parameter per slot
                mu: Array, nu: Array, nu_max: Array) -> tuple[Any, ...]:
        neg_step, bc2_sqrt, neg_lr_wd = s
        if self.maximize:
            g = -g
        if self.wd != 0 and not self.decoupled:
            g = g + self.wd * p
        mu = mu + (1 - self.b1) * (g - mu)
        nu = nu * self.b2 + (1 - self.b2) * (g * g)
        v = nu
        if self.amsgrad:
            nu_max = v = fnp.maximum(nu_max, nu)
        u = c(neg_step) * (mu / (fnp.sqrt(v) / c(bc2_sqrt) + self.eps))
        if self.wd != 0 and self.decoupled:
            u = c(neg_lr_wd) * p + u
        return u, mu, nu, nu_max

    def kernel_args(self, s: tuple[Any, ...], t: type[np.generic]) -> tuple[Any, ...]:
        neg_step, bc2_sqrt, neg_lr_wd = s
        wd = self.wd != 0
        return (t(1 - self.b1), t(self.b2), t(1 - self.b2), t(self.eps),
                t(0.0 if self.decoupled else self.wd), t(neg_lr_wd), t(neg_step),
                t(bc2_sqrt), self.maximize, self.decoupled and wd, not self.decoupled and wd)


def adam(learning_rate: ScalarOrSchedule = 1e-3, b1: float = 0.9, b2: float = 0.999,
         eps: float = 1e-8, weight_decay: float = 0.0, amsgrad: bool = False,
         maximize: bool = False, *, fused: bool | None = None) -> GradientTransformation:
    r"""Adam, optionally with AMSGrad.

    The update of each leaf follows the pseudo-code of PyTorch's documentation
    (``torch.optim.Adam``; ``t`` the 1-based step, ``lr`` the learning rate or
    ``learning_rate(count)``)::

        g = -g if maximize;  g = g + weight_decay * theta   (weight_decay != 0)
        mu = mu + (1 - b1) * (g - mu);  nu = b2 * nu + (1 - b2) * g * g
        nu_max = maximum(nu_max, nu) (amsgrad)
        u = -(lr / (1 - b1^t)) * (mu / (sqrt(nu or nu_max) / sqrt(1 - b2^t) + eps))

    Leaves of any shape and a float or complex dtype (complex ones updated as pairs of
    reals, as PyTorch does).  ``update`` needs ``params`` when ``weight_decay != 0``.

    Parameters
    ----------
    learning_rate : float or callable, optional
        A float >= 0 or a schedule ``callable(count) -> float`` called with the number of
        updates made so far (0 for the first).
    b1, b2 : float, optional
        The moments' decay rates, in ``[0, 1)``.
    eps : float, optional
        Added to the denominator.
    weight_decay : float, optional
        L2 penalty added to the gradient (coupled, as ``torch.optim.Adam``; see
        :func:`adamw` for the decoupled form).
    amsgrad : bool, optional
        Use the running maximum of ``nu``.
    maximize : bool, optional
        Ascend instead.
    fused : bool or None, optional
        None (default) and True use the fused one-pass kernel for concrete float NumPy
        leaves (C-contiguous, one dtype), False always runs the composition of
        ``ftrans.numpy`` operations (the definition; the kernel computes the same
        operations in the same order, so the two agree to the last bit).

    Returns
    -------
    GradientTransformation
        ``(init, update)``; the state is an :class:`AdamState`.

    Raises
    ------
    ValueError
        For out-of-range values (torch's messages).
    TypeError
        For non-numbers.

    Notes
    -----
    Kingma & Ba, "Adam: A Method for Stochastic Optimization", 2015; AMSGrad: Reddi,
    Kale & Kumar, "On the Convergence of Adam and Beyond", 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from ftrans import optim
    >>> opt = optim.adam(0.1)
    >>> params = {"w": np.array([1.0, -2.0])}
    >>> state = opt.init(params)
    >>> updates, state = opt.update({"w": np.array([0.5, 0.5])}, state, params)
    >>> optim.apply_updates(params, updates)["w"]
    array([ 0.9, -2.1])
    """
    return _Adam(learning_rate, b1, b2, eps, weight_decay, amsgrad, maximize, False,
                 fused).transformation()


def adamw(learning_rate: ScalarOrSchedule = 1e-3, b1: float = 0.9, b2: float = 0.999,
          eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False,
          maximize: bool = False, *, fused: bool | None = None) -> GradientTransformation:
    r"""AdamW: Adam with decoupled weight decay (PyTorch's ``torch.optim.AdamW``).

    The gradient is not penalized; instead ``u = -(lr * weight_decay) * theta + u_adam``,
    i.e. ``theta * (1 - lr * weight_decay)`` before the Adam step.  ``update`` needs
    ``params`` when ``weight_decay != 0``.

    Parameters
    ----------
    learning_rate : float or callable, optional
        A float >= 0 or a schedule ``callable(count) -> float`` called with the number of
        updates made so far (0 for the first).
    b1, b2 : float, optional
        The moments' decay rates, in ``[0, 1)``.
    eps : float, optional
        Added to the denominator.
    weight_decay : float, optional
        Decoupled weight decay.
    amsgrad : bool, optional
        Use the running maximum of ``nu``.
    maximize : bool, optional
        Ascend instead.
    fused : bool or None, optional
        None (default) and True use the fused one-pass kernel for concrete float NumPy
        leaves (C-contiguous, one dtype), False always runs the composition of
        ``ftrans.numpy`` operations (the definition; the kernel computes the same
        operations in the same order, so the two agree to the last bit).

    Returns
    -------
    GradientTransformation
        ``(init, update)``; the state is an :class:`AdamState`.

    Raises
    ------
    ValueError
        For out-of-range values (torch's messages).
    TypeError
        For non-numbers.

    Notes
    -----
    Loshchilov & Hutter, "Decoupled Weight Decay Regularization", 2019.
    """
    return _Adam(learning_rate, b1, b2, eps, weight_decay, amsgrad, maximize, True,
                 fused).transformation()
