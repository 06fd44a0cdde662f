"""Loss functions with ``torch.nn.functional``'s semantics (arguments, reductions
``'none'|'mean'|'sum'``, class weights, ``ignore_index``, label smoothing), each written
once as a composition of primitives.

Fused path: the negative log-likelihood of class-index targets under a log-softmax (the
core of :func:`cross_entropy`) is a ``custom_vjp`` (contract in :mod:`ftrans.nn`) whose
residuals are the logits, the per-row log-sum-exp and the picked log-probabilities; its
backward pass is ``coef * g * (softmax(x) - onehot(target))`` -- one NumPy expression on
concrete arrays, primitives under a transform.
"""
from __future__ import annotations

from typing import Any, cast

import numpy as np

from .. import primitives as P
from ..core import Tracer
from ..numpy import _funcs as F
from ..numpy._indexing import take_along_axis as _take_along_axis
from ..transforms import custom_vjp
from ..typing import Array, ArrayLike
from ._util import apply, as_float, check_reduction, eager, reduce_loss
from .activations import log_softmax

__all__ = ["cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss",
           "huber_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
           "kl_div"]


# ------------------------------------------------------- fused NLL of a log-softmax
def _lse_rows(x: Array) -> Array:
    """Per-row log-sum-exp of ``x (M, C)`` (shift by the non-differentiated max)."""
    m = P.stop_gradient(P.reduce_max(x, (1,)))
    m = P.where(P.isfinite(m), m, 0.0)
    return P.add(P.ROW_OPS["log"](P.reduce_sum(P.ROW_OPS["exp"](P.sub(x, P.expand_dims(m, (1,)))), (1,))), m)


def _np_lse_rows(x: Array) -> Array:
    m = np.max(x, axis=1) if x.shape[0] else np.zeros(0, x.dtype)
    m = np.where(np.isfinite(m), m, 0).astype(x.dtype, copy=False)
    return m + np.log(np.sum(np.exp(x - m[:, None]), axis=1))


def _picked(x: Array, t: Array, lse: Array) -> Array:
    if eager(x, t, lse):
        return x[np.arange(x.shape[0]), t] - lse
    return P.sub(_take_along_axis(x, P.expand_dims(t, (1,)), 1)[:, 0], lse)


def _nll_fwd(x: Array, t: Array, coef: Array) -> tuple[Array, tuple[Array, ...]]:
    lse = _np_lse_rows(x) if eager(x, t) else _lse_rows(x)
    lp = _picked(x, t, lse)
    out = P.neg(P.mul(coef, lp))
    return out, (x, t, coef, lse, lp)


def _nll_fun(x: Array, t: Array, coef: Array) -> Array:
    return _nll_fwd(x, t, coef)[0]


def _nll_bwd(res: tuple[Array, ...], g: Array) -> tuple[Array, None, Array]:
    x, t, coef, lse, lp = res
    if eager(x, t, coef, lse, lp, g):
        d = np.exp(x - lse[:, None])
        gc = g * coef
        d[np.arange(x.shape[0]), t] -= 1
        d *= gc[:, None]
        return d.astype(x.dtype, copy=False), None, -(lp * g)
    sm = P.ROW_OPS["exp"](P.sub(x, P.expand_dims(lse, (1,))))
    onehot = P.eq(P.expand_dims(t, (1,)), np.arange(x.shape[1]))
    d = P.sub(sm, P.convert_element_type(onehot, x.dtype))
    return (P.mul(d, P.expand_dims(P.mul(g, coef), (1,))), None, P.neg(P.mul(lp, g)))


_nll_rows = custom_vjp(_nll_fun)
_nll_rows.defvjp(_nll_fwd, _nll_bwd)


# -------------------------------------------------------------------- class targets
def _class_rows(x: Array, target: Any, weight: Any, ignore_index: int, axis: int, name: str
                ) -> tuple[Array, Array, Array, tuple[int, ...]]:
    """``(x2 (M, C), safe targets (M,), coef (M,), target shape)`` with the class axis
    last: ``coef = weight[target]`` (1 without weights) and 0 where ``target ==
    ignore_index``."""
    nd = len(x.shape)
    ax = 0 if nd == 1 else axis % nd
    C = x.shape[ax]
    if not isinstance(target, Tracer) and not hasattr(target, "dtype"):
        target = np.asarray(target)
    if np.dtype(target.dtype).kind not in "iu":
        raise TypeError(f"{name}: class-index targets must be integers, got dtype "
                        f"{target.dtype} (probability targets must have the input's shape)")
    tshape = tuple(x.shape[:ax]) + tuple(x.shape[ax + 1:])
    if tuple(target.shape) != tshape:
        raise ValueError(f"{name}: input of shape {tuple(x.shape)} (classes on axis {ax}) "
                         f"needs a target of shape {tshape}, got {tuple(target.shape)}")
    if isinstance(target, np.ndarray):
        tv = target[target != ignore_index]
        if tv.size and (tv.min() < 0 or tv.max() >= C):
            bad = int(tv.max() if tv.max() >= C else tv.min())
            raise ValueError(f"{name}: target {bad} is out of bounds for {C} classes")
    M = int(np.prod(tshape, dtype=np.int64))
    x2 = P.reshape(F.moveaxis(x, ax, -1) if ax != nd - 1 else x, (M, C))
    t = P.reshape(target, (M,))
    valid = P.ne(t, ignore_index)
    safe = P.where(valid, t, 0)
    coef = P.convert_element_type(valid, x.dtype)
    if weight is not None:
        weight = as_float(weight, "weight")
        if tuple(weight.shape) != (C,):
            raise ValueError(f"{name}: weight must have shape ({C},), got "
                             f"{tuple(weight.shape)}")
        coef = P.mul(coef, P.gather(weight, (safe,)))
    return x2, safe, coef, tshape


def _reduce_rows(loss: Array, coef: Array, reduction: str, tshape: tuple[int, ...]) -> Array:
    if reduction == "none":
        return P.reshape(loss, tshape)
    s = P.reduce_sum(loss, (0,))
    if reduction == "sum":
        return s
    return P.div(s, P.reduce_sum(coef, (0,)))


def nll_loss(log_probs: ArrayLike, target: ArrayLike, weight: ArrayLike | None = None,
             ignore_index: int = -100, reduction: str = "mean", axis: int = 1) -> Array:
    """Negative log-likelihood of class indices (``torch.nn.functional.nll_loss``).

    ``loss_i = -weight[t_i] log_probs[i, t_i]`` (0 where ``t_i == ignore_index``);
    'mean' divides by ``sum(weight[t_i])`` over the kept rows (NaN when none is kept).

    Parameters
    ----------
    log_probs : ArrayLike
        ``(N, C, *)`` (classes on ``axis``) or ``(C,)``.
    target : ArrayLike
        Integer class indices, the input's shape without the class axis.
    weight : ArrayLike, optional
        ``(C,)`` class weights.
    ignore_index : int, optional
        Targets equal to it contribute nothing.
    reduction : {'none', 'mean', 'sum'}, optional
        PyTorch's reduction: the elementwise losses, their mean or their sum.
    axis : int, optional
        The class axis.

    Returns
    -------
    Array
        A scalar, or the target's shape for ``'none'``.

    Raises
    ------
    ValueError, TypeError
        For bad shapes, dtypes or out-of-range targets (checked when ``target`` is
        concrete).
    """
    check_reduction(reduction)
    x = as_float(log_probs)
    x2, t, coef, tshape = _class_rows(x, target, weight, ignore_index, axis, "nll_loss")
    loss = P.neg(P.mul(coef, _take_along_axis(x2, P.expand_dims(t, (1,)), 1)[:, 0]))
    return _reduce_rows(loss, coef, reduction, tshape)


def cross_entropy(logits: ArrayLike, target: ArrayLike, weight: ArrayLike | None = None,
                  ignore_index: int = -100, reduction: str = "mean",
                  label_smoothing: float = 0.0, axis: int = 1) -> Array:
    """Cross entropy of logits (``torch.nn.functional.cross_entropy``, exactly).

    Class indices: ``loss_i = (1 - eps) nll_i + eps / C * smooth_i`` with ``nll_i =
    -w[t_i] log_softmax(x)[i, t_i]``, ``smooth_i = -sum_c w[c] log_softmax(x)[i, c]``
    (both 0 where ``t_i == ignore_index``); 'mean' divides the sum by ``sum_i w[t_i]``
    over kept rows.  Probabilities: ``q = (1 - eps) p + eps / C``, ``loss_i = -sum_c w[c]
    q[i, c] log_softmax(x)[i, c]``; 'mean' divides by the number of rows (``ignore_index``
    must then be negative).  ``eps = label_smoothing``.

    Parameters
    ----------
    logits : ArrayLike
        ``(N, C, *)`` with the classes on ``axis`` (default 1), or ``(C,)``.
    target : ArrayLike
        Class indices (integer, the logits' shape without the class axis) or class
        probabilities (float, the logits' shape).
    weight : ArrayLike, optional
        ``(C,)`` class weights.
    ignore_index : int, optional
        Class-index targets equal to it contribute nothing.
    reduction : {'none', 'mean', 'sum'}, optional
        PyTorch's reduction: the elementwise losses, their mean or their sum.
    label_smoothing : float, optional
        ``eps`` in ``[0, 1]``.
    axis : int, optional
        The class axis.

    Returns
    -------
    Array
        A scalar, or the per-row losses for ``'none'``.

    Raises
    ------
    ValueError, TypeError
        For bad shapes, dtypes, reductions, ``label_smoothing`` or out-of-range targets.

    Examples
    --------
    >>> import numpy as np
    >>> float(cross_entropy(np.array([[1.0, 2.0, 3.0]]), np.array([2])))  # doctest: +ELLIPSIS
    0.407...
    """
    check_reduction(reduction)
    eps = float(label_smoothing)
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f"cross_entropy: label_smoothing must be in [0, 1], got {eps}")
    x = as_float(logits)
    nd = len(x.shape)
    if nd == 0:
        raise ValueError("cross_entropy: logits must have a class axis, got a 0-d array")
    ax = 0 if nd == 1 else axis % nd
    C = x.shape[ax]
    if isinstance(target, Tracer) or hasattr(target, "dtype"):
        target = cast(Array, target)  # a tracer stands for the array it traces
    else:
        target = np.asarray(target)
    if tuple(target.shape) == tuple(x.shape) and np.dtype(target.dtype).kind == "f":
        return _cross_entropy_probs(x, target, weight, ignore_index, reduction, eps, ax, C)
    x2, t, coef, tshape = _class_rows(x, target, weight, ignore_index, axis, "cross_entropy")
    loss = apply(_nll_rows, x2, t, coef)
    if eps > 0.0:
        ls = log_softmax(x2, axis=1)
        if weight is not None:
            ls = P.mul(ls, as_float(weight, "weight"))
        valid = P.ne(P.reshape(target, (x2.shape[0],)), ignore_index)
        valid = P.convert_element_type(valid, x.dtype)
        smooth = P.mul(P.neg(P.reduce_sum(ls, (1,))), valid)
        loss = P.add(P.mul(1.0 - eps, loss), P.mul(eps / C, smooth))
    return _reduce_rows(loss, coef, reduction, tshape)


def _cross_entropy_probs(x: Array, target: Any, weight: Any, ignore_index: int,
                         reduction: str, eps: float, ax: int, C: int) -> Array:
    if ignore_index >= 0:
        raise ValueError("cross_entropy: ignore_index is not supported for probability "
                         "targets (PyTorch); leave it at its default")
    t = P.convert_element_type(target, x.dtype)
    if eps > 0.0:
        t = P.add(P.mul(t, 1.0 - eps), eps / C)
    prod = P.mul(log_softmax(x, axis=ax), t)
    if weight is not None:
        weight = as_float(weight, "weight")
        if tuple(weight.shape) != (C,):
            raise ValueError(f"cross_entropy: weight must have shape ({C},), got "
                             f"{tuple(weight.shape)}")
        prod = P.mul(prod, P.reshape(weight, (C,) + (1,) * (len(x.shape) - ax - 1)))
    loss = P.neg(P.reduce_sum(prod, (ax,)))
    if reduction == "none":
        return loss
    s = P.reduce_sum(loss, tuple(range(len(loss.shape)))) if loss.shape else loss
    if reduction == "sum":
        return s
    n = int(np.prod(loss.shape, dtype=np.int64))
    return P.div(s, float(n) if n else np.nan)


# ------------------------------------------------------------------ regression losses
def _pair(x: ArrayLike, y: ArrayLike) -> tuple[Array, Array]:
    a, b = as_float(x), as_float(y, "target")
    if a.dtype != b.dtype:
        dt = np.promote_types(a.dtype, b.dtype)
        a, b = P.convert_element_type(a, dt), P.convert_element_type(b, dt)
    return a, b


def mse_loss(x: ArrayLike, target: ArrayLike, reduction: str = "mean") -> Array:
    """Squared error ``(x - target)^2``, reduced (``torch.nn.functional.mse_loss``).

    Parameters
    ----------
    x, target : ArrayLike
        Shapes broadcast.
    reduction : {'none', 'mean', 'sum'}, optional
        PyTorch's reduction: the elementwise losses, their mean or their sum.

    Returns
    -------
    Array
        A scalar, or the broadcast shape for ``'none'``.
    """
    x, y = _pair(x, target)
    d = P.sub(x, y)
    return reduce_loss(P.mul(d, d), reduction)


def l1_loss(x: ArrayLike, target: ArrayLike, reduction: str = "mean") -> Array:
    """Absolute error ``|x - target|``, reduced (``torch.nn.functional.l1_loss``).

    Derivative 0 where equal.

    Parameters
    ----------
    x, target : ArrayLike
        Shapes broadcast.
    reduction : {'none', 'mean', 'sum'}, optional
        PyTorch's reduction: the elementwise losses, their mean or their sum.

    Returns
    -------
    Array
        A scalar, or the broadcast shape for ``'none'``.
    """
    x, y = _pair(x, target)
    return reduce_loss(P.abs(P.sub(x, y)), reduction)


def smooth_l1_loss(x: ArrayLike, target: ArrayLike, reduction: str = "mean",
                   beta: float = 1.0) -> Array:
    """Smooth L1 loss (``torch.nn.functional.smooth_l1_loss``).

    ``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``d = x -
    target``; ``beta == 0`` is the L1 loss).

    Parameters
    ----------
    x, target : ArrayLike
        Shapes broadcast.
    reduction : {'none', 'mean', 'sum'}, optional
        PyTorch's reduction: the elementwise losses, their mean or their sum.
    beta : float, optional
        The threshold, ``>= 0``.

    Returns
    -------
    Array
        A scalar, or the broadcast shape for ``'none'``.

    Raises
    ------
    ValueError
        For ``beta < 0``.

    Notes
    -----
    Girshick, "Fast R-CNN", 2015.
    """
    if beta < 0:
        raise ValueError(f"smooth_l1_loss: beta must be >= 0, got {beta}")
    x, y = _pair(x, target)
    d = P.sub(x, y)
    a = P.abs(d)
    if beta == 0:
        return reduce_loss(a, reduction)
    quad = P.div(P.mul(0.5, P.mul(d, d)), float(beta))
    return reduce_loss(P.where(P.lt(a, float(beta)), quad, P.sub(a, 0.5 * beta)), reduction)


def huber_loss(x: ArrayLike, target: ArrayLike, reduction: str = "mean",
               delta: float = 1.0) -> Array:
    """Huber loss (``torch.nn.functional.huber_loss``).

    ``0.5 d^2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``, ``d = x -
    target``.

    Parameters
    ----------
    x, target : ArrayLike
        Shapes broadcast.
    reduction : {'none', 'mean', 'sum'}, optional
        PyTorch's reduction: the elementwise losses, their mean or their sum.
    delta : float, optional
        The threshold, ``> 0``.

    Returns
    -------
    Array
        A scalar, or the broadcast shape for ``'none'``.

    Raises
    ------
    ValueError
        For ``delta <= 0``.

    Notes
    -----
    Huber, "Robust Estimation of a Location Parameter", 1964.
    """
    if delta <= 0:
        raise ValueError(f"huber_loss: delta must be > 0, got {delta}")
    x, y = _pair(x, target)
    d = P.sub(x, y)
    a = P.abs(d)
    lin = P.mul(float(delta), P.sub(a, 0.5 * delta))
    return reduce_loss(P.where(P.lt(a, float(delta)), P.mul(0.5, P.mul(d, d)), lin), reduction)


def _same_shape(x: Array, y: Array, name: str) -> None:
    if tuple(x.shape) != tuple(y.shape):
        raise ValueError(f"{name}: target shape {tuple(y.shape)} must equal the input shape "
                         f"{tuple(x.shape)} (PyTorch)")


def binary_cross_entropy(p: ArrayLike, target: ArrayLike, weight: ArrayLike | None = None,
                         reduction: str = "mean") -> Array:
    """Binary cross entropy of probabilities (``torch.nn.functional.binary_cross_entropy``).

    ``-w (t log p + (1 - t) log(1 - p))`` with each log clamped at -100.

    Parameters
    ----------
    p : ArrayLike
        Probabilities in ``[0, 1]``.
    target : ArrayLike
        Of ``p``'s shape.
    weight : ArrayLike, optional
        Broadcastable to ``p``.
    reduction : {'none', 'mean', 'sum'}, optional
        PyTorch's reduction: the elementwise losses, their mean or their sum.

    Returns
    -------
    Array
        A scalar, or ``p``'s shape for ``'none'``.

    Raises
    ------
    ValueError
        For ``p`` outside ``[0, 1]`` (when concrete) or a target of another shape.
    """
    p, t = _pair(p, target)
    _same_shape(p, t, "binary_cross_entropy")
    if isinstance(p, np.ndarray) and p.size and (np.nanmin(p) < 0 or np.nanmax(p) > 1):
        raise ValueError("binary_cross_entropy: all elements of the input must be in [0, 1]; "
                         "apply sigmoid first or use binary_cross_entropy_with_logits")
    logp = P.maximum(P.ROW_OPS["log"](p), -100.0)
    log1mp = P.maximum(P.ROW_OPS["log1p"](P.neg(p)), -100.0)
    loss = P.neg(P.add(P.mul(t, logp), P.mul(P.sub(1.0, t), log1mp)))
    if weight is not None:
        loss = P.mul(loss, as_float(weight, "weight"))
    return reduce_loss(loss, reduction)


def binary_cross_entropy_with_logits(x: ArrayLike, target: ArrayLike,
                                     weight: ArrayLike | None = None,
                                     reduction: str = "mean",
                                     pos_weight: ArrayLike | None = None) -> Array:
    """Binary cross entropy of logits (``torch.nn.functional.binary_cross_entropy_with_logits``).

    ``-w (pw t log sigmoid(x) + (1 - t) log(1 - sigmoid(x)))`` computed stably as
    ``(1 - t) x + (1 + (pw - 1) t) softplus(-x)`` times ``w``.

    Parameters
    ----------
    x : ArrayLike
        Logits.
    target : ArrayLike
        Of ``x``'s shape.
    weight : ArrayLike, optional
        Broadcastable to ``x``.
    reduction : {'none', 'mean', 'sum'}, optional
        PyTorch's reduction: the elementwise losses, their mean or their sum.
    pos_weight : ArrayLike, optional
        Weight of the positive term; broadcasts along the last axis.

    Returns
    -------
    Array
        A scalar, or ``x``'s shape for ``'none'``.

    Raises
    ------
    ValueError
        For a target of another shape.
    """
    x, t = _pair(x, target)
    _same_shape(x, t, "binary_cross_entropy_with_logits")
    sp = P.ROW_OPS["logaddexp"](0.0, P.neg(x))                        # softplus(-x) = -log sigmoid(x)
    if pos_weight is not None:
        lw = P.add(1.0, P.mul(P.sub(as_float(pos_weight, "pos_weight"), 1.0), t))
        sp = P.mul(lw, sp)
    loss = P.add(P.mul(P.sub(1.0, t), x), sp)
    if weight is not None:
        loss = P.mul(loss, as_float(weight, "weight"))
    return reduce_loss(loss, reduction)


def kl_div(log_q: ArrayLike, target: ArrayLike, reduction: str = "mean",
           log_target: bool = False) -> Array:
    """Pointwise KL divergence (``torch.nn.functional.kl_div``).

    ``target (log target - log_q)`` (``xlogy`` convention: 0 where ``target == 0``), or
    ``exp(target) (target - log_q)`` with ``log_target``.

    Parameters
    ----------
    log_q : ArrayLike
        Log-probabilities.
    target : ArrayLike
        Probabilities (log-probabilities with ``log_target``).
    reduction : {'none', 'mean', 'sum', 'batchmean'}, optional
        As PyTorch; ``'batchmean'`` divides the sum by the first axis' length.
    log_target : bool, optional
        ``target`` holds log-probabilities.

    Returns
    -------
    Array
        A scalar, or the broadcast shape for ``'none'``.
    """
    check_reduction(reduction, ("batchmean",))
    x, t = _pair(log_q, target)
    if log_target:
        loss = P.mul(P.ROW_OPS["exp"](t), P.sub(t, x))
    else:
        pos = P.gt(t, 0)
        safe = P.where(pos, t, 1.0)
        loss = P.sub(P.where(pos, P.mul(t, P.ROW_OPS["log"](safe)), 0.0), P.mul(t, x))
    if reduction == "batchmean":
        s = reduce_loss(loss, "sum")
        return P.div(s, float(x.shape[0])) if len(x.shape) else s
    return reduce_loss(loss, reduction)
