"""``Adagrad`` (PyTorch's ``torch.optim.Adagrad``)."""
from __future__ import annotations

from ... import optim as _fo
from .. import _factories as F
from .optimizer import _FunctionalOptimizer, _step_tensor, _float

__all__ = ["Adagrad"]


class Adagrad(_FunctionalOptimizer):
    r"""Adagrad (Duchi et al., 2011).

    The update is :func:`ftrans.optim.adagrad`'s, the pseudo-code of PyTorch's
    documentation (``torch.optim.Adagrad``)::

        t += 1;  g = -g if maximize;  g = g + wd * theta (wd != 0)
        clr = lr / (1 + (t - 1) * lr_decay)
        s = s + g^2;  theta -= clr * g / (sqrt(s) + eps)

    Args: ``params``, ``lr`` (1e-2), ``lr_decay`` (0), ``weight_decay`` (0),
    ``initial_accumulator_value`` (0: the initial ``s``), ``eps`` (1e-10), ``maximize``
    (False).  The state (``step``, ``sum``) is created in the constructor, as in PyTorch.
    ``ValueError`` for negative values.  Plain contiguous float parameters are updated by
    ``ftrans.optim``'s fused one-pass kernel (same formulas; ``fused=False`` selects their
    composition of ``ftrans.numpy`` operations).
    """

    _keys = ("lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps",
             "maximize")
    _state_type = _fo.AdagradState

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
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

    def _transformation(self, group, fused):
        return _fo.adagrad(*(_float(group[k]) for k in self._keys),
                           fused=None if fused else False)

    def _state(self, p, group):
        state = self.state[p]
        return (state["step"].item(), (state["sum"].numpy(force=True),), state["step"],
                (state["sum"],))
