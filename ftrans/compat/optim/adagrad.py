"""``Adagrad`` (PyTorch's ``torch.optim.Adagrad``)."""
from __future__ import annotations

from .. import _factories as F
from .optimizer import (Optimizer, _params_with_grad, _closure_loss, _step_tensor,
                        _real_view)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    r"""Adagrad (Duchi et al., 2011).

    The update follows the pseudo-code of PyTorch's documentation (``torch.optim.Adagrad``)::

        t += 1;  g = -g if maximize;  g = g + wd * theta (wd != 0)
        clr = lr / (1 + (t - 1) * lr_decay)
        s = s + g^2;  theta -= clr * g / (sqrt(s) + eps)

    Args: ``params``, ``lr`` (1e-2), ``lr_decay`` (0), ``weight_decay`` (0),
    ``initial_accumulator_value`` (0: the initial ``s``), ``eps`` (1e-10), ``maximize``
    (False).  The state (``step``, ``sum``) is created in the constructor, as in PyTorch.
    ``ValueError`` for negative values.
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: "
                             f"{initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
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

    def step(self, closure=None):
        """One Adagrad update of every parameter that has a gradient; returns the closure's
        loss or None."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, lr_decay = group["lr"], group["lr_decay"]
            wd, eps = group["weight_decay"], group["eps"]
            for p, grad in zip(*_params_with_grad(group)):
                state = self.state[p]
                step_t = state["step"]
                step_t.add_(1)
                step = step_t.item()
                p, grad = _real_view(p), _real_view(grad)
                if group["maximize"]:
                    grad = -grad
                if wd != 0:
                    grad = grad.add(p, alpha=wd)
                clr = lr / (1 + (step - 1) * lr_decay)
                s = _real_view(state["sum"])
                s.add_(grad * grad)
                std = s.sqrt().add_(eps)
                p.add_(grad / std, alpha=-clr)
        return loss
