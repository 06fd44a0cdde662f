"""Adam and AdamW (Kingma & Ba, 2015; Loshchilov & Hutter, 2019), PyTorch's formulas."""
from __future__ import annotations

from typing import Any, NamedTuple

from .. import numpy as fnp
from ..kernels import optim_cpu as _K
from ._base import _Rule, check_range

__all__ = ["adam", "adamw", "AdamState"]


class AdamState(NamedTuple):
    """Adam's state: ``count`` (int32 0-d array, the number of updates made), ``mu`` and
    ``nu`` (first and second moments, the params' structure) and ``nu_max`` (the running
    maximum of ``nu`` with ``amsgrad``, else None) -- torch's ``exp_avg``, ``exp_avg_sq``
    and ``max_exp_avg_sq``."""

    count: Any
    mu: Any
    nu: Any
    nu_max: Any


class _Adam(_Rule):
    state_type = AdamState
    slots = ("mu", "nu", "nu_max")
    kernel = staticmethod(_K.adam)

    def __init__(self, learning_rate, b1, b2, eps, weight_decay, amsgrad, maximize,
                 decoupled, fused):
        super().__init__(learning_rate, fused)
        self.b1 = check_range("b1", b1, 0.0, 1.0, "beta parameter at index 0")
        self.b2 = check_range("b2", b2, 0.0, 1.0, "beta parameter at index 1")
        self.eps = check_range("eps", eps, what="epsilon")
        self.wd = check_range("weight_decay", weight_decay)
        self.amsgrad, self.maximize = bool(amsgrad), bool(maximize)
        self.decoupled = bool(decoupled)
        self.needs_params = self.wd != 0

    def active(self):
        return (True, True, self.amsgrad)

    def scalars(self, n, lr):
        bc1 = 1 - self.b1 ** n
        bc2 = 1 - self.b2 ** n
        return -(lr / bc1), bc2 ** 0.5, -(lr * self.wd)

    def formula(self, s, c, g, p, mu, nu, nu_max):
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

    def kernel_args(self, s, t):
        neg_step, bc2_sqrt, neg_lr_wd = s
        wd = self.wd != 0
        return (t(1 - self.b1), t(self.b2), t(1 - self.b2), t(self.eps),
                t(0.0 if self.decoupled else self.wd), t(neg_lr_wd), t(neg_step),
                t(bc2_sqrt), self.maximize, self.decoupled and wd, not self.decoupled and wd)


def adam(learning_rate=1e-3, b1=0.9, b2=0.999, eps=1e-8, weight_decay=0.0, amsgrad=False,
         maximize=False, *, fused=None):
    r"""Adam, optionally with AMSGrad (Reddi et al., 2018), as a
    :class:`~ftrans.optim.GradientTransformation`.

    The update of each leaf follows the pseudo-code of PyTorch's documentation
    (``torch.optim.Adam``; ``t`` the 1-based step, ``lr`` the learning rate or
    ``learning_rate(count)``)::

        g = -g if maximize;  g = g + weight_decay * theta   (weight_decay != 0)
        mu = mu + (1 - b1) * (g - mu);  nu = b2 * nu + (1 - b2) * g * g
        nu_max = maximum(nu_max, nu) (amsgrad)
        u = -(lr / (1 - b1^t)) * (mu / (sqrt(nu or nu_max) / sqrt(1 - b2^t) + eps))

    Args:
        learning_rate: a float >= 0 or a schedule ``callable(count) -> float`` called with
            the number of updates made so far (0 for the first).
        b1, b2: the moments' decay rates, in ``[0, 1)``.  eps: added to the denominator.
        weight_decay: L2 penalty added to the gradient (coupled, as ``torch.optim.Adam``;
            see :func:`adamw` for the decoupled form).
        amsgrad: use the running maximum of ``nu``.  maximize: ascend instead.
        fused: None (default) and True use the fused one-pass kernel for concrete float
            NumPy leaves (C-contiguous, one dtype), False always runs the composition of
            ``ftrans.numpy`` operations (the definition; the kernel computes the same
            operations in the same order, so the two agree to the last bit).

    Leaves of any shape and a float or complex dtype (complex ones updated as pairs of
    reals, as PyTorch does); state in :class:`AdamState`.  ``update`` needs ``params``
    when ``weight_decay != 0``.  ``ValueError`` for out-of-range values (torch's
    messages), ``TypeError`` for non-numbers.

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


def adamw(learning_rate=1e-3, b1=0.9, b2=0.999, eps=1e-8, weight_decay=1e-2,
          amsgrad=False, maximize=False, *, fused=None):
    r"""AdamW: Adam with decoupled weight decay (Loshchilov & Hutter, 2019; PyTorch's
    ``torch.optim.AdamW``): the gradient is not penalized, instead
    ``u = -(lr * weight_decay) * theta + u_adam``, i.e. ``theta * (1 - lr * weight_decay)``
    before the Adam step.  Arguments, state and errors as :func:`adam` (default
    ``weight_decay=1e-2``; ``update`` needs ``params`` when it is not 0)."""
    return _Adam(learning_rate, b1, b2, eps, weight_decay, amsgrad, maximize, True,
                 fused).transformation()
