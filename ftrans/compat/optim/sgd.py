"""``SGD``: stochastic gradient descent with momentum (PyTorch's ``torch.optim.SGD``)."""
from __future__ import annotations

from typing import Any

from ... import optim as _fo
from ..types import Tensor
from .. import _factories as F
from .optimizer import ParamsT, required, _FunctionalOptimizer, _float

__all__ = ["SGD"]


class SGD(_FunctionalOptimizer):
    r"""Stochastic gradient descent, optionally with (Nesterov) momentum.

    The update is :func:`ftrans.optim.sgd`'s, the pseudo-code of PyTorch's documentation
    (``torch.optim.SGD``), for each parameter :math:`\theta` with gradient :math:`g`::

        g = -g if maximize;  g = g + weight_decay * theta
        b = g (first step) or momentum * b + (1 - dampening) * g      (momentum != 0)
        g = g + momentum * b if nesterov else b                        (momentum != 0)
        theta = theta - lr * g

    Plain contiguous float parameters are updated by ``ftrans.optim``'s fused one-pass
    kernel (same formulas).  State per parameter: ``momentum_buffer`` (when momentum !=
    0).

    Parameters
    ----------
    params : iterable of Tensor or of dict
        Leaf tensors or parameter groups.
    lr : float or Tensor, optional
        Learning rate.
    momentum : float, optional
        Momentum factor.
    dampening : float, optional
        Dampening of the momentum.
    weight_decay : float, optional
        L2 penalty.
    nesterov : bool, optional
        Nesterov momentum (needs momentum > 0 and dampening 0).
    maximize : bool, optional
        Ascend instead.
    foreach : bool, optional
        Accepted for compatibility (no effect).
    differentiable : bool, optional
        True runs the composition of ``ftrans.numpy`` operations instead of the fused
        kernel.
    fused : bool, optional
        False runs the composition of ``ftrans.numpy`` operations instead of the fused
        kernel.

    Raises
    ------
    ValueError
        For negative values, or Nesterov without momentum or with dampening.

    Examples
    --------
    A training step on compat tensors:

    >>> import ftrans.compat as torch
    >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    >>> opt.zero_grad()
    >>> loss = (w ** 2).sum()
    >>> loss.backward()
    >>> opt.step()
    >>> w.detach()
    tensor([0.8000, 1.6000])
    """

    _keys = ("lr", "momentum", "dampening", "nesterov", "weight_decay", "maximize")
    _state_type = _fo.SgdState

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0,
                 nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        _fo.sgd(0.0 if lr is required else _float(lr), momentum, dampening, nesterov,
                weight_decay, maximize)                  # the checks, torch's messages
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)

    def _transformation(self, group: dict[str, Any], fused: bool) -> Any:
        return _fo.sgd(*(_float(group[k]) for k in self._keys), fused=None if fused else False)

    def _state(self, p: Tensor, group: dict[str, Any]) -> tuple[float, tuple[Any, ...],
                                                                 Tensor | None, tuple[Any, ...]]:
        if group["momentum"] == 0:
            return 1.0, (None,), None, ()
        state = self.state[p]
        buf = state.get("momentum_buffer")
        if buf is None:                         # torch's first step: the buffer is g
            buf = state["momentum_buffer"] = F.empty_like(p)
            return 0.0, (buf.numpy(force=True),), None, ()
        return 1.0, (buf.numpy(force=True),), None, (buf,)
