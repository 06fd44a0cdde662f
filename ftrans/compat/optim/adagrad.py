"""``Adagrad`` (PyTorch's ``torch.optim.Adagrad``)."""
from __future__ import annotations

from typing import Any

from ... import optim as _fo
from ..types import Tensor
from .. import _factories as F
from .optimizer import ParamsT, _FunctionalOptimizer, _step_tensor, _float

__all__ = ["Adagrad"]


class Adagrad(_FunctionalOptimizer):
    r"""Adagrad (Duchi et al., 2011).

    The update is :func:`ftrans.optim.adagrad`'s, the pseudo-code of PyTorch's
    documentation (``torch.optim.Adagrad``)::

        t += 1;  g = -g if maximize;  g = g + wd * theta (wd != 0)
        clr = lr / (1 + (t - 1) * lr_decay)
        s = s + g^2;  theta -= clr * g / (sqrt(s) + eps)

    The state (``step``, ``sum``) is created in the constructor, as in PyTorch.  Plain
    contiguous float parameters are updated by ``ftrans.optim``'s fused one-pass kernel
    (same formulas).

    Parameters
    ----------
    params : iterable of Tensor or of dict
        Leaf tensors or parameter groups.
    lr : float or Tensor, optional
        Learning rate.
    lr_decay : float, optional
        Learning-rate decay.
    weight_decay : float, optional
        L2 penalty.
    initial_accumulator_value : float, optional
        The initial ``s``.
    eps : float, optional
        Added to the denominator.
    foreach : bool, optional
        Accepted for compatibility (no effect).
    maximize : bool, optional
        Ascend instead.
    differentiable : bool, optional
        True runs the composition of ``ftrans.numpy`` operations.
    fused : bool, optional
        False runs the composition of ``ftrans.numpy`` operations.

    Raises
    ------
    ValueError
        For negative values.
    """

    _keys = ("lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps",
             "maximize")
    _state_type = _fo.AdagradState

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0,
                 eps: float = 1e-10, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        _fo.adagrad(_float(lr), lr_decay, weight_decay, initial_accumulator_value, eps)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _step_tensor()
                state["sum"] = F.full_like(p, group["initial_accumulator_value"])

    def _transformation(self, group: dict[str, Any], fused: bool) -> Any:
        return _fo.adagrad(*(_float(group[k]) for k in self._keys),
                           fused=None if fused else False)

    def _state(self, p: Tensor, group: dict[str, Any]) -> tuple[float, tuple[Any, ...],
                                                                 Tensor | None, tuple[Any, ...]]:
        state = self.state[p]
        return (state["step"].item(), (state["sum"].numpy(force=True),), state["step"],
                (state["sum"],))
