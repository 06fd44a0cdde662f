"""More of ``torch.nn.functional``'s losses and distance/normalization functions on compat
Tensors: margin, ranking, hinge, triplet, Poisson/Gaussian NLL, soft-margin and CTC
losses, ``pdist``, ``rms_norm``, ``local_response_norm`` and ``embedding_bag`` (see
:mod:`ftrans.compat.nn.functional`).  Formulas follow PyTorch 2.13's ATen kernels; each
is a composition of compat Tensor operations, so no derivative is written here (the one
exception to plain composition is documented in :func:`ctc_loss`).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

import ftrans.compat as torch
from ..types import Tensor

from ._checks import _check_tensor
from ._functional_losses import _legacy_reduction, _reduce
from ._functional_act import logsigmoid
from ._functional_norm import pairwise_distance
from ftrans.compat._opbase import _compose
from ftrans.compat.autograd._composite import composite_class
from ftrans.nn.ctc import ctc_loss as _fnn_ctc
from ._functional_extra import (pdist, rms_norm, local_response_norm,  # noqa: F401
                                embedding_bag, linear_cross_entropy)

__all__ = ["cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss",
           "poisson_nll_loss", "gaussian_nll_loss", "soft_margin_loss",
           "multilabel_soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
           "triplet_margin_loss", "triplet_margin_with_distance_loss", "ctc_loss", "pdist",
           "rms_norm", "local_response_norm", "embedding_bag", "linear_cross_entropy"]


def _relu(z: Tensor) -> Tensor:
    """``max(z, 0)`` with derivative 0 at 0 (ATen's ``z > 0 ? z : 0`` in the losses)."""
    return torch.where(z > 0, z, torch.zeros_like(z))


# ============================================================================== pair losses
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average: bool | None = None, reduce: bool | None = None,
                          reduction: str = "mean") -> Tensor:  # noqa: A002
    """``1 - cos(x1, x2)`` for ``target == 1``, ``max(0, cos - margin)`` for ``target == -1``.

    As ``torch.nn.functional.cosine_embedding_loss``.

    Parameters
    ----------
    input1 : Tensor
        ``(N, D)`` or ``(D,)``.
    input2 : Tensor
        Same shape.
    target : Tensor
        ``(N,)`` or ``()`` of 1 and -1.
    margin : float, optional
        Default 0.
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.

    Returns
    -------
    Tensor
        A scalar, or the elementwise losses with ``reduction='none'``.

    Raises
    ------
    RuntimeError
        For mismatched shapes or bad arguments (PyTorch's messages).
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    td = target.dim()
    if td not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if td == 1 else 1
    if input1.dim() != want or input2.dim() != want:
        raise RuntimeError(f"{td}D target tensor expects {want}D input tensors, but found "
                           f"inputs with sizes {list(input1.shape)} and "
                           f"{list(input2.shape)}.")
    eps = 1e-12
    prod = (input1 * input2).sum(td)
    m1 = (input1 * input1).sum(td) + eps
    m2 = (input2 * input2).sum(td) + eps
    cos = prod / (m1 * m2).sqrt()
    zeros = torch.zeros_like(cos)
    pos = torch.where(target == 1, 1 - cos, zeros)
    neg = torch.where(target == -1, (cos - margin).clamp_min(0), zeros)
    return _reduce(pos + neg, reduction)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> Tensor:  # noqa: A002
    """``x`` where ``target == 1``, ``max(0, margin - x)`` where ``target == -1``.

    As ``torch.nn.functional.hinge_embedding_loss``.

    Parameters
    ----------
    input : Tensor
        Distances, any shape.
    target : Tensor
        1 and -1, ``input``'s shape.
    margin : float, optional
        Default 1.0.
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.

    Returns
    -------
    Tensor
        A scalar, or the elementwise losses with ``reduction='none'``.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    zeros = torch.zeros_like(input)
    out_margin = torch.where(target != 1, (margin - input).clamp_min(0), zeros)
    out_self = torch.where(target != -1, input, zeros)
    return _reduce(out_margin + out_self, reduction)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                        size_average: bool | None = None, reduce: bool | None = None,
                        reduction: str = "mean") -> Tensor:  # noqa: A002
    """``max(0, -y (x1 - x2) + margin)`` (``torch.nn.functional.margin_ranking_loss``).

    Parameters
    ----------
    input1 : Tensor
        First input.
    input2 : Tensor
        Second input.
    target : Tensor
        1 and -1, the inputs' shape.
    margin : float, optional
        Default 0.
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.

    Returns
    -------
    Tensor
        A scalar, or the elementwise losses with ``reduction='none'``.

    Raises
    ------
    RuntimeError
        For mismatched shapes or bad arguments (PyTorch's messages).
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same "
                           f"dimension but got sizes: input1: {input1.shape}, input2: "
                           f"{input2.shape}, target: {target.shape} ")
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def soft_margin_loss(input: Tensor, target: Tensor, size_average: bool | None = None,
                     reduce: bool | None = None, reduction: str = "mean") -> Tensor:  # noqa: A002
    """``log(1 + exp(-y x))`` (``torch.nn.functional.soft_margin_loss``).

    Parameters
    ----------
    input : Tensor
        Scores, any shape.
    target : Tensor
        1 and -1, ``input``'s shape.
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.

    Returns
    -------
    Tensor
        A scalar, or the elementwise losses with ``reduction='none'``.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _reduce(torch.log1p(torch.exp(-input * target)), reduction)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average: bool | None = None, eps: float = 1e-8,
                     reduce: bool | None = None, reduction: str = "mean") -> Tensor:  # noqa: A002
    """Poisson negative log-likelihood (``torch.nn.functional.poisson_nll_loss``).

    Parameters
    ----------
    input : Tensor
        The rate, or its log with ``log_input``.
    target : Tensor
        Counts, ``input``'s shape.
    log_input : bool, optional
        ``input`` is the log rate: ``exp(x) - y x`` (default True); else ``x - y log(x + eps)``.
    full : bool, optional
        Add Stirling's term for ``y > 1`` (default False).
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    eps : float, optional
        Added inside the log without ``log_input`` (default 1e-8).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.

    Returns
    -------
    Tensor
        A scalar, or the elementwise losses with ``reduction='none'``.

    Raises
    ------
    ValueError
        For an unknown ``reduction``.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = torch.exp(input) - target * input
    else:
        loss = input - target * torch.log(input + eps)
    if full:
        t = target
        stirling = t * torch.log(t) - t + 0.5 * torch.log(2 * math.pi * t)
        loss = loss + stirling.masked_fill(t <= 1, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:  # noqa: A002
    """Gaussian negative log-likelihood ``(log max(var, eps) + (x - y)^2 / max(var, eps)) / 2``.

    As ``torch.nn.functional.gaussian_nll_loss``.

    Parameters
    ----------
    input : Tensor
        Means ``(N, *)``.
    target : Tensor
        Samples, ``input``'s shape.
    var : Tensor or float
        Variances, non-negative: ``input``'s shape, one per sample, or a number.
    full : bool, optional
        Add ``log(2 pi) / 2`` (default False).
    eps : float, optional
        Lower clamp of ``var`` (default 1e-6).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.

    Returns
    -------
    Tensor
        A scalar, or the elementwise losses with ``reduction='none'``.

    Raises
    ------
    ValueError
        For negative variances, a bad ``var`` shape or an unknown ``reduction``.

    Notes
    -----
    The clamp passes the gradient through, as PyTorch's in-place clamp under ``no_grad``
    does.
    """
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * torch.ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif input.dim() == var.dim() and sum(
                y for x, y in zip(input.shape, var.shape) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var + (var.clamp(min=eps) - var).detach()
    loss = 0.5 * (torch.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


# ============================================================================== multi-class margins
def multilabel_soft_margin_loss(input: Tensor, target: Tensor,  # noqa: A002
                                weight: Tensor | None = None, size_average: bool | None = None,
                                reduce: bool | None = None, reduction: str = "mean") -> Tensor:
    """The mean over classes of the binary logistic losses.

    As ``torch.nn.functional.multilabel_soft_margin_loss``.

    Parameters
    ----------
    input : Tensor
        Logits ``(N, C)`` or ``(C,)``.
    target : Tensor
        0 and 1, ``input``'s shape.
    weight : Tensor, optional
        Per-class weights ``(C,)``.
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.

    Returns
    -------
    Tensor
        A scalar, or the elementwise losses with ``reduction='none'``.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    cd = input.dim() - 1
    loss = loss.sum(dim=cd) / input.shape[cd]
    return _reduce(loss, reduction)


_SCALAR_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int32": "Int",
                 "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
                 "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _scalar_name(t: Tensor) -> str:
    """PyTorch's scalar-type name of a tensor's dtype (``Float``, ``Double`` ...)."""
    name = str(t.dtype).split(".")[-1]
    return _SCALAR_NAMES.get(name, name)


def _check_reduction(reduction: str) -> None:
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _frames(input: Tensor, target: Tensor, fname: str) -> tuple[int, int]:  # noqa: A002
    if input.dim() > 2 or (input.dim() == 2 and input.shape[1] == 0) or (
            input.dim() == 1 and input.shape[0] == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {list(input.shape)}")
    nframe = 1 if input.dim() <= 1 else input.shape[0]
    dim = 1 if input.dim() == 0 else input.shape[-1]
    return nframe, dim


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None, size_average: bool | None = None,
                      reduce: bool | None = None, reduction: str = "mean") -> Tensor:  # noqa: A002
    """Multi-class hinge loss ``sum_{i != y} w_y max(0, margin - x_y + x_i)^p / C``.

    As ``torch.nn.functional.multi_margin_loss``.

    Parameters
    ----------
    input : Tensor
        Scores ``(N, C)`` or ``(C,)``.
    target : Tensor
        Class indices ``(N,)`` or ``()``.
    p : int, optional
        1 (default) or 2.
    margin : float, optional
        Default 1.0.
    weight : Tensor, optional
        Per-class weights ``(C,)``.
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.

    Returns
    -------
    Tensor
        A scalar, or the elementwise losses with ``reduction='none'``.

    Raises
    ------
    RuntimeError
        For mismatched shapes or bad arguments (PyTorch's messages).
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    nframe, dim = _frames(input, target, "multi_margin_loss")
    if target.dim() > 1 or target.numel() != nframe:
        raise RuntimeError(f"target tensor should be 1-D with size equal to number of frames. "
                           f"Expected target size [{nframe}], but got {list(target.shape)}")
    if target.dtype != torch.int64:
        raise RuntimeError(f"expected scalar type Long but found {_scalar_name(target)}")
    if weight is not None and weight.numel() != dim:
        raise RuntimeError(f"inconsistent weight size, expected {dim} but got "
                           f"{list(weight.shape)}")
    t = target.reshape(nframe, 1)
    tn = t.numpy(force=True)
    if tn.size and (tn.min() < 0 or tn.max() >= dim):
        raise RuntimeError(f"Target {int(tn.max() if tn.max() >= dim else tn.min())} is out "
                           f"of bounds.")
    x = input.reshape(nframe, dim)
    z = _relu(margin - x.gather(1, t) + x)
    h = z if p == 1 else z * z
    h = torch.where(torch.arange(dim).reshape(1, dim) == t, torch.zeros_like(h), h)
    if weight is not None:
        h = h * weight.index_select(0, t.reshape(-1)).reshape(nframe, 1)
    loss = h.sum(1) / dim
    if reduction == "none":
        return loss if target.dim() > 0 else loss.reshape(())
    return _reduce(loss, reduction)


def multilabel_margin_loss(input: Tensor, target: Tensor,  # noqa: A002
                           size_average: bool | None = None, reduce: bool | None = None,
                           reduction: str = "mean") -> Tensor:
    """Multi-label hinge loss ``sum_{j, i not a target} max(0, 1 - x_{y_j} + x_i) / C``.

    As ``torch.nn.functional.multilabel_margin_loss``.

    Parameters
    ----------
    input : Tensor
        Scores ``(N, C)`` or ``(C,)``.
    target : Tensor
        int64 class indices, ``input``'s shape, ended by the first -1.
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.

    Returns
    -------
    Tensor
        A scalar, or the elementwise losses with ``reduction='none'``.

    Raises
    ------
    RuntimeError
        For mismatched shapes or bad arguments (PyTorch's messages).
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    nframe, dim = _frames(input, target, "multilabel_margin_loss")
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of "
                           f"size: {list(input.shape)}")
    if target.dtype != torch.int64:
        raise RuntimeError(f"expected scalar type Long but found {_scalar_name(target)}")
    tn = target.numpy(force=True).reshape(nframe, dim).astype(np.int64)
    valid = np.cumprod(tn >= 0, axis=1).astype(bool)
    if np.any(valid & (tn >= dim)):
        raise ValueError(f"target index out of range: {int(tn[valid].max())}")
    is_target = np.zeros((nframe, dim), bool)
    for r in range(nframe):
        is_target[r, tn[r][valid[r]]] = True
    x = input.reshape(nframe, dim)
    xt = x.gather(1, torch.as_tensor(np.where(valid, tn, 0)))            # (n, j)
    z = _relu(1 - xt.unsqueeze(2) + x.unsqueeze(1))                       # (n, j, i)
    keep = torch.as_tensor((valid[:, :, None] & ~is_target[:, None, :]).astype(np.float64),
                           dtype=x.dtype)
    loss = (z * keep).sum((1, 2)) / dim
    if reduction == "none":
        return loss if input.dim() > 1 else loss.reshape(())
    return _reduce(loss, reduction)


# ============================================================================== triplets
def _triplet_dims(anchor: Tensor, positive: Tensor, negative: Tensor) -> None:
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == p and p == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have "
                           f"the same number of dimensions, but got: anchor {a}D, positive "
                           f"{p}D, and negative {n}D inputs")


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-06, swap: bool = False,
                        size_average: bool | None = None, reduce: bool | None = None,
                        reduction: str = "mean") -> Tensor:  # noqa: A002
    """``max(0, margin + d(a, p) - d(a, n))`` with the ``p``-norm pairwise distance.

    As ``torch.nn.functional.triplet_margin_loss``.

    Parameters
    ----------
    anchor : Tensor
        ``(N, D)`` or ``(D,)``.
    positive : Tensor
        Same shape.
    negative : Tensor
        Same shape.
    margin : float, optional
        Positive (default 1.0).
    p : float, optional
        Norm order (default 2).
    eps : float, optional
        Added to the differences (default 1e-6).
    swap : bool, optional
        Use ``min(d(a, n), d(p, n))`` (the distance swap) (default False).
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.

    Returns
    -------
    Tensor
        A scalar, or the elementwise losses with ``reduction='none'``.

    Raises
    ------
    ValueError
        For a non-positive ``margin``.
    RuntimeError
        For inputs of different ranks.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _triplet_dims(anchor, positive, negative)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = torch.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + d_pos - d_neg).clamp_min(0), reduction)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor,  # noqa: A002
                                      negative: Tensor, *,
                                      distance_function: Callable[[Tensor, Tensor], Tensor]
                                      | None = None,
                                      margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean") -> Tensor:
    """``max(0, margin + d(a, p) - d(a, n))`` with a given distance.

    As ``torch.nn.functional.triplet_margin_with_distance_loss``.

    Parameters
    ----------
    anchor : Tensor
        ``(N, D)`` or ``(D,)``.
    positive : Tensor
        Same shape.
    negative : Tensor
        Same shape.
    distance_function : callable, optional
        ``d(x1, x2) -> Tensor`` (default ``pairwise_distance``).
    margin : float, optional
        Positive (default 1.0).
    swap : bool, optional
        Use the distance swap (default False).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.

    Returns
    -------
    Tensor
        A scalar, or the elementwise losses with ``reduction='none'``.

    Raises
    ------
    ValueError
        For a non-positive ``margin`` or an unknown ``reduction``.
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _triplet_dims(anchor, positive, negative)
    dist = pairwise_distance if distance_function is None else distance_function
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = torch.minimum(d_neg, dist(positive, negative))
    return _reduce(torch.clamp_min(margin + d_pos - d_neg, 0), reduction)


# ============================================================================== CTC
_CtcLossBackward0 = composite_class("CtcLossBackward0", ("log_probs",))


def _lengths(v: Tensor | Sequence[int], n: int, what: str) -> np.ndarray:
    a = np.asarray(v.numpy(force=True) if isinstance(v, torch.Tensor) else v, np.int64)
    a = a.reshape(-1)
    if a.size != n:
        raise RuntimeError(f"{what} must be of size batch_size ({n}), but got {a.size}")
    return a


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Tensor | Sequence[int],
             target_lengths: Tensor | Sequence[int], blank: int = 0, reduction: str = "mean",
             zero_infinity: bool = False) -> Tensor:  # noqa: A002
    """Connectionist temporal classification loss (``torch.nn.functional.ctc_loss``).

    ``ftrans.nn.ctc_loss``, one ``CtcLossBackward0`` node.

    Parameters
    ----------
    log_probs : Tensor
        ``(T, N, C)`` or ``(T, C)`` log-probabilities.
    targets : Tensor
        Padded ``(N, S)`` or concatenated targets.
    input_lengths : Tensor or sequence of int
        ``(N,)``.
    target_lengths : Tensor or sequence of int
        ``(N,)``.
    blank : int, optional
        The blank label (default 0).
    reduction : str, optional
        ``'mean'`` (default: each loss divided by its target length, then averaged), ``'sum'``
        or ``'none'``.
    zero_infinity : bool, optional
        Replace infinite losses and their gradients by zero (default False).

    Returns
    -------
    Tensor
        A scalar, or the elementwise losses with ``reduction='none'``.

    Raises
    ------
    RuntimeError
        For mismatched shapes or bad arguments (PyTorch's messages).

    Notes
    -----
    The gradient is PyTorch's: ATen's CTC backward returns the gradient with respect to
    the logits behind a ``log_softmax`` (``ftrans.nn.ctc_loss``'s exact derivative plus
    ``exp(log_probs)`` at every valid time step); a zero-valued term ``exp(lp) -
    exp(lp).detach()`` adds that here.  Graves et al. (2006).
    """
    _check_tensor(log_probs, "ctc_loss", "log_probs")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.dim() == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    if lp.dim() != 3:
        raise RuntimeError(f"ctc_loss: expected log_probs to be 2-D or 3-D, got "
                           f"{log_probs.dim()}-D")
    T, N, C = lp.shape
    if not 0 <= blank < C:
        raise RuntimeError("blank must be in label range")
    il = _lengths(input_lengths, N, "input_lengths")
    tl = _lengths(target_lengths, N, "target_lengths")
    tg = targets.numpy(force=True).astype(np.int64)
    if unbatched:
        tg = tg.reshape(1, -1)
    if tg.ndim == 2 and N and tg.shape[1] < tl.max():
        raise RuntimeError(f"Expected tensor to have size at least {int(tl.max())} at "
                           f"dimension 1, but got size {tg.shape[1]}")
    if np.any(il > T):
        raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value "
                           f"{int(il.max())}")
    nll = _compose(_CtcLossBackward0, _fnn_ctc, [lp], [lp._data],
                   {"targets": tg, "input_lengths": il, "target_lengths": tl, "blank": blank,
                    "reduction": "none", "zero_infinity": False}, mask=1)
    keep = torch.as_tensor(np.arange(T)[:, None] < il[None, :])
    e = torch.exp(lp)
    if zero_infinity:   # impossible alignments: loss 0, gradient 0 (tensor operations:
        imp = torch.isinf(nll)   # nll is traced under compat.func)
        keep = keep & imp.logical_not().unsqueeze(0)
        nll = torch.where(imp, torch.zeros_like(nll), nll)
    nll = nll + ((e - e.detach()) * keep.to(lp.dtype).unsqueeze(2)).sum((0, 2))
    if reduction == "mean":
        return (nll / torch.as_tensor(np.maximum(tl, 1), dtype=lp.dtype)).mean()
    if reduction == "sum":
        return nll.sum()
    return nll.reshape(()) if unbatched else nll
