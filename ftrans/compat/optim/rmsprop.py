"""``RMSprop`` (PyTorch's ``torch.optim.RMSprop``)."""
from __future__ import annotations

from typing import Any

from ... import optim as _fo
from ..types import Tensor
from .. import _factories as F
from .optimizer import ParamsT, _FunctionalOptimizer, _step_tensor, _float

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

    State per parameter: ``step``, ``square_avg``, ``momentum_buffer`` (momentum > 0),
    ``grad_avg`` (centered).  Plain contiguous float parameters are updated by
    ``ftrans.optim``'s fused one-pass kernel (same formulas; ``differentiable=True`` or
    ``optimizer.USE_FUSED_KERNELS = False`` selects their composition of ``ftrans.numpy``
    operations).

    Parameters
    ----------
    params : iterable of Tensor or of dict
        Leaf tensors or parameter groups.
    lr : float or Tensor, optional
        Learning rate.
    alpha : float, optional
        Smoothing constant.
    eps : float, optional
        Added to the denominator.
    weight_decay : float, optional
        L2 penalty.
    momentum : float, optional
        Momentum factor.
    centered : bool, optional
        Normalize by the estimated variance of the gradient.
    capturable : bool, optional
        Accepted for compatibility (no effect).
    foreach : bool, optional
        Accepted for compatibility (no effect).
    maximize : bool, optional
        Ascend instead.
    differentiable : bool, optional
        True runs the composition of ``ftrans.numpy`` operations.

    Raises
    ------
    ValueError
        For negative values.
    """

    _keys = ("lr", "alpha", "eps", "weight_decay", "momentum", "centered", "maximize")
    _state_type = _fo.RmspropState

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8, weight_decay: float = 0, momentum: float = 0,
                 centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _fo.rmsprop(_float(lr), alpha, eps, weight_decay, momentum)   # the checks
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def _transformation(self, group: dict[str, Any], fused: bool) -> Any:
        return _fo.rmsprop(*(_float(group[k]) for k in self._keys),
                           fused=None if fused else False)

    def _state(self, p: Tensor, group: dict[str, Any]) -> tuple[float, tuple[Any, ...],
                                                                 Tensor | None, tuple[Any, ...]]:
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
