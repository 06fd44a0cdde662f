"""``RMSprop`` (PyTorch's ``torch.optim.RMSprop``)."""
from __future__ import annotations

from ... import optim as _fo
from .. import _factories as F
from .optimizer import _FunctionalOptimizer, _step_tensor, _float

__all__ = ["RMSprop"]


class RMSprop(_FunctionalOptimizer):
    r"""RMSprop (Hinton's lecture 6e; centered version of Graves, 2013).

    The update is :func:`ftrans.optim.rmsprop`'s, the pseudo-code of PyTorch's
    documentation (``torch.optim.RMSprop``)::

        g = -g if maximize;  g = g + wd * theta (wd != 0)
        v = alpha * v + (1 - alpha) * g^2
        centered: gavg = gavg + (1 - alpha) * (g - gavg);  avg = sqrt(v - gavg^2) + eps
        else:     avg = sqrt(v) + eps
        momentum > 0: b = momentum * b + g / avg;  theta -= lr * b
        else:         theta -= lr * g / avg

    Args: ``params``, ``lr`` (1e-2), ``alpha`` (0.99), ``eps`` (1e-8), ``weight_decay``
    (0), ``momentum`` (0), ``centered`` (False), ``maximize`` (False).  State per
    parameter: ``step``, ``square_avg``, ``momentum_buffer`` (momentum > 0), ``grad_avg``
    (centered).  ``ValueError`` for negative values.  Plain contiguous float parameters are
    updated by ``ftrans.optim``'s fused one-pass kernel (same formulas;
    ``differentiable=True`` or ``optimizer.USE_FUSED_KERNELS = False`` selects their
    composition of ``ftrans.numpy`` operations).
    """

    _keys = ("lr", "alpha", "eps", "weight_decay", "momentum", "centered", "maximize")
    _state_type = _fo.RmspropState

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        _fo.rmsprop(_float(lr), alpha, eps, weight_decay, momentum)   # the checks
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def _transformation(self, group, fused):
        return _fo.rmsprop(*(_float(group[k]) for k in self._keys),
                           fused=None if fused else False)

    def _state(self, p, group):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _step_tensor()
            state["square_avg"] = F.zeros_like(p)
            if group["momentum"] > 0:
                state["momentum_buffer"] = F.zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = F.zeros_like(p)
        ts = (state["square_avg"], state["grad_avg"] if group["centered"] else None,
              state["momentum_buffer"] if group["momentum"] > 0 else None)
        return (state["step"].item(), tuple(None if t is None else t.numpy(force=True)
                                            for t in ts), state["step"], ts)
