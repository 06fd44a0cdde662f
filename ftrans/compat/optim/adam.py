"""``Adam`` and ``AdamW`` (PyTorch's ``torch.optim.Adam``/``AdamW``)."""
from __future__ import annotations

from ... import optim as _fo
from .. import _factories as F
from .optimizer import _FunctionalOptimizer, _step_tensor, _float

__all__ = ["Adam", "AdamW"]


class Adam(_FunctionalOptimizer):
    r"""Adam (Kingma & Ba, 2015), with AMSGrad (Reddi et al., 2018) as an option.

    The update is :func:`ftrans.optim.adam`'s (:func:`ftrans.optim.adamw`'s with
    ``decoupled_weight_decay``), the pseudo-code of PyTorch's documentation
    (``torch.optim.Adam``)::

        t += 1;  g = -g if maximize
        theta = theta * (1 - lr * wd)          if decoupled_weight_decay (AdamW)
        g = g + wd * theta                     otherwise, when wd != 0
        m = m + (1 - beta1) * (g - m);  v = beta2 * v + (1 - beta2) * g * conj(g)
        vmax = max(vmax, v) (amsgrad)
        theta = theta - lr / (1 - beta1^t) * m / (sqrt(v or vmax) / sqrt(1 - beta2^t) + eps)

    Args: ``params``, ``lr`` (1e-3), ``betas`` ((0.9, 0.999)), ``eps`` (1e-8),
    ``weight_decay`` (0), ``amsgrad`` (False), ``maximize`` (False),
    ``decoupled_weight_decay`` (False; True is AdamW).  Plain contiguous float parameters
    are updated by ``ftrans.optim``'s fused one-pass kernel (same formulas; ``fused=False``
    or ``differentiable=True`` selects their composition of ``ftrans.numpy`` operations);
    ``foreach``/``capturable`` are accepted for compatibility.  ``ValueError`` for
    out-of-range values.  State per parameter: ``step`` (0-d float tensor), ``exp_avg``,
    ``exp_avg_sq`` and, with amsgrad, ``max_exp_avg_sq``.
    """

    _keys = ("lr", "betas", "eps", "weight_decay", "amsgrad", "maximize",
             "decoupled_weight_decay")
    _state_type = _fo.AdamState

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _fo.adam(_float(lr), _float(betas[0]), _float(betas[1]), eps, weight_decay)  # checks
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

    def _transformation(self, group, fused):
        make = _fo.adamw if group["decoupled_weight_decay"] else _fo.adam
        b1, b2 = group["betas"]
        return make(_float(group["lr"]), _float(b1), _float(b2), group["eps"],
                    group["weight_decay"], group["amsgrad"], group["maximize"],
                    fused=None if fused else False)

    def _state(self, p, group):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _step_tensor()
            state["exp_avg"] = F.zeros_like(p)
            state["exp_avg_sq"] = F.zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = F.zeros_like(p)
        ts = (state["exp_avg"], state["exp_avg_sq"],
              state["max_exp_avg_sq"] if group["amsgrad"] else None)
        return (state["step"].item(), tuple(None if t is None else t.numpy(force=True)
                                            for t in ts), state["step"], ts)


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
