"""``Adagrad`` (PyTorch's ``torch.optim.Adagrad``)."""
from __future__ import annotations

from .. import _factories as F
from ...kernels import optim_cpu as K
from .optimizer import (Optimizer, _params_with_grad, _closure_loss, _step_tensor,
                        _real_view, _flat, _written, _use_fused)

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
    ``ValueError`` for negative values.  Plain contiguous float32/float64 parameters are
    updated by a fused one-pass kernel (same formulas; ``fused=False`` selects the
    op-by-op path above).
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
            fused = _use_fused(group)
            for p, grad in zip(*_params_with_grad(group)):
                state = self.state[p]
                step_t = state["step"]
                step_t.add_(1)
                step = step_t.item()
                clr = lr / (1 + (step - 1) * lr_decay)
                if fused and self._fused_step(p, grad, state, group, clr):
                    continue
                p, grad = _real_view(p), _real_view(grad)
                if group["maximize"]:
                    grad = -grad
                if wd != 0:
                    grad = grad.add(p, alpha=wd)
                s = _real_view(state["sum"])
                s.add_(grad * grad)
                std = s.sqrt().add_(eps)
                p.add_(grad / std, alpha=-clr)
        return loss

    def _fused_step(self, p, grad, state, group, clr):
        """The update in one pass (:func:`ftrans.kernels.optim_cpu.adagrad_update`) for
        plain contiguous float arrays of one dtype; False otherwise."""
        arrs = [_flat(p), _flat(grad), _flat(state["sum"])]
        if any(a is None for a in arrs) or not K.eligible(*arrs):
            return False
        K.adagrad_update(*arrs, clr=clr, eps=group["eps"], weight_decay=group["weight_decay"],
                         maximize=group["maximize"])
        _written(p, state["sum"])
        return True
