"""``SGD``: stochastic gradient descent with momentum (PyTorch's ``torch.optim.SGD``)."""
from __future__ import annotations

from ... import optim as _fo
from .. import _factories as F
from .optimizer import required, _FunctionalOptimizer, _float

__all__ = ["SGD"]


class SGD(_FunctionalOptimizer):
    r"""Stochastic gradient descent, optionally with (Nesterov) momentum.

    The update is :func:`ftrans.optim.sgd`'s, the pseudo-code of PyTorch's documentation
    (``torch.optim.SGD``), for each parameter :math:`\theta` with gradient :math:`g`::

        g = -g if maximize;  g = g + weight_decay * theta
        b = g (first step) or momentum * b + (1 - dampening) * g      (momentum != 0)
        g = g + momentum * b if nesterov else b                        (momentum != 0)
        theta = theta - lr * g

    Args: ``params``, ``lr`` (default 1e-3), ``momentum`` (0), ``dampening`` (0),
    ``weight_decay`` (0), ``nesterov`` (False; needs momentum > 0 and dampening 0),
    ``maximize`` (False).  Plain contiguous float parameters are updated by
    ``ftrans.optim``'s fused one-pass kernel (same formulas; ``fused=False`` or
    ``differentiable=True`` selects their composition of ``ftrans.numpy`` operations);
    ``foreach`` is accepted for compatibility.  ``ValueError`` for negative values.  State
    per parameter: ``momentum_buffer`` (when momentum != 0).

    >>> import ftrans.compat as torch
    >>> w = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    >>> (w ** 2).sum().backward(); opt.step()
    >>> w.detach()
    tensor([0.8000, 1.6000])
    """

    _keys = ("lr", "momentum", "dampening", "nesterov", "weight_decay", "maximize")
    _state_type = _fo.SgdState

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        _fo.sgd(0.0 if lr is required else _float(lr), momentum, dampening, nesterov,
                weight_decay, maximize)                  # the checks, torch's messages
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)

    def _transformation(self, group, fused):
        return _fo.sgd(*(_float(group[k]) for k in self._keys), fused=None if fused else False)

    def _state(self, p, group):
        if group["momentum"] == 0:
            return 1.0, (None,), None, ()
        state = self.state[p]
        buf = state.get("momentum_buffer")
        if buf is None:                         # torch's first step: the buffer is g
            buf = state["momentum_buffer"] = F.empty_like(p)
            return 0.0, (buf.numpy(force=True),), None, ()
        return 1.0, (buf.numpy(force=True),), None, (buf,)
