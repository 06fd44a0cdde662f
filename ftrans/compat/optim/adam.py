"""``Adam`` and ``AdamW`` (PyTorch's ``torch.optim.Adam``/``AdamW``)."""
from __future__ import annotations

import math

from .. import _factories as F
from ...kernels import optim_cpu as K
from .. import _ops as O
from .optimizer import (Optimizer, _params_with_grad, _closure_loss, _step_tensor,
                        _real_view, _flat, _written, _use_fused)

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    r"""Adam (Kingma & Ba, 2015), with AMSGrad (Reddi et al., 2018) as an option.

    The update follows the pseudo-code of PyTorch's documentation (``torch.optim.Adam``)::

        t += 1;  g = -g if maximize
        theta = theta * (1 - lr * wd)          if decoupled_weight_decay (AdamW)
        g = g + wd * theta                     otherwise, when wd != 0
        m = m + (1 - beta1) * (g - m);  v = beta2 * v + (1 - beta2) * g * conj(g)
        vmax = max(vmax, v) (amsgrad)
        theta = theta - lr / (1 - beta1^t) * m / (sqrt(v or vmax) / sqrt(1 - beta2^t) + eps)

    Args: ``params``, ``lr`` (1e-3), ``betas`` ((0.9, 0.999)), ``eps`` (1e-8),
    ``weight_decay`` (0), ``amsgrad`` (False), ``maximize`` (False),
    ``decoupled_weight_decay`` (False; True is AdamW).  Plain contiguous float32/float64
    parameters are updated by a fused one-pass kernel (same formulas; ``fused=False`` or
    ``differentiable=True`` selects the op-by-op path above); ``foreach``/``capturable``
    are accepted for compatibility.  ``ValueError`` for
    out-of-range values.  State per parameter: ``step`` (0-d float tensor), ``exp_avg``,
    ``exp_avg_sq`` and, with amsgrad, ``max_exp_avg_sq``.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("decoupled_weight_decay", isinstance(self, AdamW))

    def step(self, closure=None):
        """One Adam update of every parameter that has a gradient; returns the closure's
        loss or None."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, wd = group["lr"], group["eps"], group["weight_decay"]
            amsgrad = group["amsgrad"]
            fused = _use_fused(group)
            for p, grad in zip(*_params_with_grad(group)):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["exp_avg"] = F.zeros_like(p)
                    state["exp_avg_sq"] = F.zeros_like(p)
                    if amsgrad:
                        state["max_exp_avg_sq"] = F.zeros_like(p)
                if fused and self._fused_step(p, grad, state, group):
                    continue
                p, grad = _real_view(p), _real_view(grad)
                if group["maximize"]:
                    grad = -grad
                step_t = state["step"]
                step_t.add_(1)
                if wd != 0:
                    if group["decoupled_weight_decay"]:
                        p.mul_(1 - lr * wd)
                    else:
                        grad = grad.add(p, alpha=wd)
                exp_avg = _real_view(state["exp_avg"])
                exp_avg_sq = _real_view(state["exp_avg_sq"])
                exp_avg.add_(grad.sub(exp_avg), alpha=1 - beta1)        # lerp_
                exp_avg_sq.mul_(beta2).add_(grad * grad, alpha=1 - beta2)
                step = step_t.item()
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                step_size = lr / bias_correction1
                bc2_sqrt = math.sqrt(bias_correction2)
                if amsgrad:
                    mx = _real_view(state["max_exp_avg_sq"])
                    mx.copy_(O.maximum(mx, exp_avg_sq))
                    denom = (mx.sqrt() / bc2_sqrt).add_(eps)
                else:
                    denom = (exp_avg_sq.sqrt() / bc2_sqrt).add_(eps)
                p.add_(exp_avg / denom, alpha=-step_size)
        return loss


    def _fused_step(self, p, grad, state, group):
        """The update in one pass (:func:`ftrans.kernels.optim_cpu.adam_update`) when
        every array is a plain contiguous float array of one dtype; False otherwise."""
        amsgrad = group["amsgrad"]
        arrs = [_flat(p), _flat(grad), _flat(state["exp_avg"]), _flat(state["exp_avg_sq"])]
        if amsgrad:
            arrs.append(_flat(state["max_exp_avg_sq"]))
        if any(a is None for a in arrs) or not K.eligible(*arrs):
            return False
        if not amsgrad:
            arrs.append(arrs[0][:0])
        state["step"].add_(1)
        beta1, beta2 = group["betas"]
        K.adam_update(*arrs, lr=group["lr"], beta1=beta1, beta2=beta2, eps=group["eps"],
                      weight_decay=group["weight_decay"], step=state["step"].item(),
                      amsgrad=amsgrad, maximize=group["maximize"],
                      decoupled=group["decoupled_weight_decay"])
        _written(p, state["exp_avg"], state["exp_avg_sq"], state.get("max_exp_avg_sq"))
        return True


class AdamW(Adam):
    r"""Adam with decoupled weight decay (Loshchilov & Hutter, 2019): ``theta *= 1 - lr *
    weight_decay`` before the Adam update (PyTorch's ``torch.optim.AdamW``; default
    ``weight_decay=1e-2``).  Same arguments and state as :class:`Adam`."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)


def _check_adam_args(lr, betas, eps, weight_decay):
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
