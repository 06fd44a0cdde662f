"""``SGD``: stochastic gradient descent with momentum (PyTorch's ``torch.optim.SGD``)."""
from __future__ import annotations

from ...kernels import optim_cpu as K
from .. import _factories as F
from .optimizer import (Optimizer, required, _params_with_grad, _closure_loss, _flat,
                        _written, _use_fused)

__all__ = ["SGD"]


class SGD(Optimizer):
    r"""Stochastic gradient descent, optionally with (Nesterov) momentum.

    The update follows the pseudo-code of PyTorch's documentation (``torch.optim.SGD``),
    for each parameter :math:`\theta` with gradient :math:`g`::

        g = -g if maximize;  g = g + weight_decay * theta
        b = g (first step) or momentum * b + (1 - dampening) * g      (momentum != 0)
        g = g + momentum * b if nesterov else b                        (momentum != 0)
        theta = theta - lr * g

    Args: ``params``, ``lr`` (default 1e-3), ``momentum`` (0), ``dampening`` (0),
    ``weight_decay`` (0), ``nesterov`` (False; needs momentum > 0 and dampening 0),
    ``maximize`` (False).  Plain contiguous float32/float64 parameters are updated by a
    fused one-pass kernel (same formulas; ``fused=False`` or ``differentiable=True``
    selects the op-by-op path above); ``foreach`` is accepted for compatibility.
    ``ValueError`` for negative values.  State per parameter: ``momentum_buffer`` (when
    momentum != 0).

    >>> import ftrans.compat as torch
    >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    >>> (w ** 2).sum().backward(); opt.step()
    >>> w.detach()
    tensor([0.8000, 1.6000])
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss
        (evaluated with grad enabled before the update) or None."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, momentum = group["lr"], group["momentum"]
            dampening, wd = group["dampening"], group["weight_decay"]
            fused = _use_fused(group)
            for p, grad in zip(*_params_with_grad(group)):
                if fused and self._fused_step(p, grad, group):
                    continue
                if group["maximize"]:
                    grad = -grad
                if wd != 0:
                    grad = grad.add(p, alpha=wd)
                if momentum != 0:
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = grad.clone().detach()
                        state["momentum_buffer"] = buf
                    else:
                        buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                    grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
                p.add_(grad, alpha=-lr)
        return loss

    def _fused_step(self, p, grad, group):
        """The update in one pass (:func:`ftrans.kernels.optim_cpu.sgd_update`) for plain
        contiguous float arrays of one dtype; False otherwise."""
        momentum = group["momentum"]
        a, g = _flat(p), _flat(grad)
        if a is None or g is None:
            return False
        buf_t = None
        first = False
        if momentum != 0:
            state = self.state[p]
            buf_t = state.get("momentum_buffer")
            if buf_t is None:
                first = True
                buf_t = F.empty_like(p)
            buf = _flat(buf_t)
            if buf is None or not K.eligible(a, g, buf):
                return False
            if first:
                state["momentum_buffer"] = buf_t
        else:
            if not K.eligible(a, g):
                return False
            buf = a[:0]
        K.sgd_update(a, g, buf, lr=group["lr"], momentum=momentum,
                     dampening=group["dampening"], weight_decay=group["weight_decay"],
                     first=first, nesterov=group["nesterov"], maximize=group["maximize"])
        _written(p, None if first else buf_t)
        return True
