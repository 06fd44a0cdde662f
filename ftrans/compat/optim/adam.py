"""``Adam`` and ``AdamW`` (PyTorch's ``torch.optim.Adam``/``AdamW``)."""
from __future__ import annotations

from typing import Any

from ... import optim as _fo
from ..types import Tensor
from .. import _factories as F
from .optimizer import ParamsT, _FunctionalOptimizer, _step_tensor, _float

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

    Plain contiguous float parameters are updated by ``ftrans.optim``'s fused one-pass
    kernel (same formulas).  State per parameter: ``step`` (0-d float tensor),
    ``exp_avg``, ``exp_avg_sq`` and, with amsgrad, ``max_exp_avg_sq``.

    Parameters
    ----------
    params : iterable of Tensor or of dict
        Leaf tensors or parameter groups.
    lr : float or Tensor, optional
        Learning rate.
    betas : tuple of (float or Tensor), optional
        The moments' decay rates ``(beta1, beta2)``, in ``[0, 1)``.
    eps : float, optional
        Added to the denominator.
    weight_decay : float, optional
        L2 penalty (decoupled with ``decoupled_weight_decay``).
    amsgrad : bool, optional
        Use the running maximum of the second moment.
    foreach : bool, optional
        Accepted for compatibility (no effect).
    maximize : bool, optional
        Ascend instead.
    capturable : bool, optional
        Accepted for compatibility (no effect).
    differentiable : bool, optional
        True runs the composition of ``ftrans.numpy`` operations instead of the fused
        kernel.
    fused : bool, optional
        False runs the composition of ``ftrans.numpy`` operations.
    decoupled_weight_decay : bool, optional
        True is AdamW.

    Raises
    ------
    ValueError
        For out-of-range values.

    Examples
    --------
    A training step on compat tensors:

    >>> import ftrans.compat as torch
    >>> w = torch.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = torch.optim.Adam([w], lr=0.1)
    >>> opt.zero_grad()
    >>> loss = (w ** 2).sum()
    >>> loss.backward()
    >>> opt.step()
    >>> w.detach()
    tensor([ 0.9000, -1.9000])
    >>> sorted(opt.state[w])
    ['exp_avg', 'exp_avg_sq', 'step']
    """

    _keys = ("lr", "betas", "eps", "weight_decay", "amsgrad", "maximize",
             "decoupled_weight_decay")
    _state_type = _fo.AdamState

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-3,
                 betas: tuple[float | Tensor, float | Tensor] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        _fo.adam(_float(lr), _float(betas[0]), _float(betas[1]), eps, weight_decay)  # checks
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("decoupled_weight_decay", isinstance(self, AdamW))

    def _transformation(self, group: dict[str, Any], fused: bool) -> Any:
        make = _fo.adamw if group["decoupled_weight_decay"] else _fo.adam
        b1, b2 = group["betas"]
        return make(_float(group["lr"]), _float(b1), _float(b2), group["eps"],
                    group["weight_decay"], group["amsgrad"], group["maximize"],
                    fused=None if fused else False)

    def _state(self, p: Tensor, group: dict[str, Any]) -> tuple[float, tuple[Any, ...],
                                                                 Tensor | None, tuple[Any, ...]]:
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
    r"""Adam with decoupled weight decay (PyTorch's ``torch.optim.AdamW``).

    ``theta *= 1 - lr * weight_decay`` before the Adam update.  Same state as
    :class:`Adam`.

    Parameters
    ----------
    params : iterable of Tensor or of dict
        Leaf tensors or parameter groups.
    lr : float or Tensor, optional
        Learning rate.
    betas : tuple of (float or Tensor), optional
        The moments' decay rates ``(beta1, beta2)``, in ``[0, 1)``.
    eps : float, optional
        Added to the denominator.
    weight_decay : float, optional
        Decoupled weight decay.
    amsgrad : bool, optional
        Use the running maximum of the second moment.
    maximize : bool, optional
        Ascend instead.
    foreach : bool, optional
        Accepted for compatibility (no effect).
    capturable : bool, optional
        Accepted for compatibility (no effect).
    differentiable : bool, optional
        True runs the composition of ``ftrans.numpy`` operations instead of the fused
        kernel.
    fused : bool, optional
        False runs the composition of ``ftrans.numpy`` operations.

    Raises
    ------
    ValueError
        For out-of-range values.

    Notes
    -----
    Loshchilov & Hutter, "Decoupled Weight Decay Regularization", 2019.
    """

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-3,
                 betas: tuple[float | Tensor, float | Tensor] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *,
                 maximize: bool = False, foreach: bool | None = None,
                 capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
