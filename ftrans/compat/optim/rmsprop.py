"""``RMSprop`` (PyTorch's ``torch.optim.RMSprop``)."""
from __future__ import annotations

from .. import _factories as F
from ...kernels import optim_cpu as K
from .optimizer import (Optimizer, _params_with_grad, _closure_loss, _step_tensor,
                        _real_view, _flat, _written, _use_fused)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    r"""RMSprop (Hinton's lecture 6e; centered version of Graves, 2013).

    The update follows the pseudo-code of PyTorch's documentation (``torch.optim.RMSprop``)::

        g = -g if maximize;  g = g + wd * theta (wd != 0)
        v = alpha * v + (1 - alpha) * g^2
        centered: gavg = gavg + (1 - alpha) * (g - gavg);  avg = sqrt(v - gavg^2) + eps
        else:     avg = sqrt(v) + eps
        momentum > 0: b = momentum * b + g / avg;  theta -= lr * b
        else:         theta -= lr * g / avg

    Args: ``params``, ``lr`` (1e-2), ``alpha`` (0.99), ``eps`` (1e-8), ``weight_decay``
    (0), ``momentum`` (0), ``centered`` (False), ``maximize`` (False).  State per
    parameter: ``step``, ``square_avg``, ``momentum_buffer`` (momentum > 0), ``grad_avg``
    (centered).  ``ValueError`` for negative values.  Plain contiguous float32/float64
    parameters are updated by a fused one-pass kernel (same formulas; ``differentiable=True``
    or ``optimizer.USE_FUSED_KERNELS = False`` selects the op-by-op path above).
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One RMSprop update of every parameter that has a gradient; returns the
        closure's loss or None."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
            wd, momentum, centered = group["weight_decay"], group["momentum"], group["centered"]
            fused = _use_fused(group)
            for p, grad in zip(*_params_with_grad(group)):
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["square_avg"] = F.zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = F.zeros_like(p)
                    if centered:
                        state["grad_avg"] = F.zeros_like(p)
                if fused and self._fused_step(p, grad, state, group):
                    continue
                p, grad = _real_view(p), _real_view(grad)
                if group["maximize"]:
                    grad = -grad
                state["step"].add_(1)
                if wd != 0:
                    grad = grad.add(p, alpha=wd)
                square_avg = _real_view(state["square_avg"])
                square_avg.mul_(alpha).add_(grad * grad, alpha=1 - alpha)
                if centered:
                    grad_avg = _real_view(state["grad_avg"])
                    grad_avg.add_(grad.sub(grad_avg), alpha=1 - alpha)     # lerp_
                    avg = square_avg.sub(grad_avg * grad_avg).sqrt_()
                else:
                    avg = square_avg.sqrt()
                avg = avg.add_(eps)
                if momentum > 0:
                    buf = _real_view(state["momentum_buffer"])
                    buf.mul_(momentum).add_(grad / avg)
                    p.add_(buf, alpha=-lr)
                else:
                    p.add_(grad / avg, alpha=-lr)
        return loss

    def _fused_step(self, p, grad, state, group):
        """The update in one pass (:func:`ftrans.kernels.optim_cpu.rmsprop_update`) for
        plain contiguous float arrays of one dtype; False otherwise."""
        names = ["square_avg"] + (["grad_avg"] if group["centered"] else []) + (
            ["momentum_buffer"] if group["momentum"] > 0 else [])
        arrs = [_flat(p), _flat(grad)] + [_flat(state[n]) for n in names]
        if any(a is None for a in arrs) or not K.eligible(*arrs):
            return False
        empty = arrs[0][:0]
        sq = arrs[2]
        ga = _flat(state["grad_avg"]) if group["centered"] else empty
        buf = _flat(state["momentum_buffer"]) if group["momentum"] > 0 else empty
        state["step"].add_(1)
        K.rmsprop_update(arrs[0], arrs[1], sq, ga, buf, lr=group["lr"], alpha=group["alpha"],
                         eps=group["eps"], weight_decay=group["weight_decay"],
                         centered=group["centered"], momentum=group["momentum"],
                         maximize=group["maximize"])
        _written(p, *(state[n] for n in names))
        return True
