"""``torch.nn.functional``'s losses and attention on compat Tensors (see
:mod:`ftrans.compat.nn.functional`)."""
from __future__ import annotations

import math
import warnings

import numpy as np

import ftrans.compat as torch
from ..types import Tensor
from ftrans.compat import _ops as _K
from ftrans.compat._tensor import _concrete

from ._functional_layers import linear
from ._functional_act import logsigmoid
from ._functional_norm import dropout

# ============================================================================== losses
_REDUCTIONS = ("none", "mean", "sum")


def _legacy_reduction(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _check_sizes(input: Tensor, target: Tensor, fname: str) -> None:  # noqa: A002
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input "
                      f"size ({input.shape}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.", UserWarning,
                      stacklevel=3)


def mse_loss(input: Tensor, target: Tensor, size_average: bool | None = None,  # noqa: A002
             reduce: bool | None = None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    """Squared error ``(input - target)^2``, reduced (``torch.nn.functional.mse_loss``).

    Parameters
    ----------
    input : Tensor
        Predictions, any shape.
    target : Tensor
        Targets, ``input``'s shape.
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    weight : Tensor, optional
        Elementwise weights, broadcast against the losses.

    Returns
    -------
    Tensor
        A scalar, or the elementwise losses with ``reduction='none'``.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_sizes(input, target, "mse_loss")
    d = input - target
    loss = d * d
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None,  # noqa: A002
            reduce: bool | None = None, reduction: str = "mean",
            weight: Tensor | None = None) -> Tensor:
    """Absolute error ``|input - target|``, reduced (derivative 0 where they are equal).

    As ``torch.nn.functional.l1_loss``.

    Parameters
    ----------
    input : Tensor
        Predictions, any shape.
    target : Tensor
        Targets, ``input``'s shape.
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    weight : Tensor, optional
        Elementwise weights, broadcast against the losses.

    Returns
    -------
    Tensor
        A scalar, or the elementwise losses with ``reduction='none'``.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_sizes(input, target, "l1_loss")
    loss = (input - target).abs()
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: bool | None = None,  # noqa: A002
                   reduce: bool | None = None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """``0.5 d^2 / beta`` where ``|d| < beta``, ``|d| - 0.5 beta`` elsewhere.

    As ``torch.nn.functional.smooth_l1_loss``.

    Parameters
    ----------
    input : Tensor
        Predictions, any shape.
    target : Tensor
        Targets, ``input``'s shape.
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    beta : float, optional
        The switch point, non-negative (default 1.0).

    Returns
    -------
    Tensor
        A scalar, or the elementwise losses with ``reduction='none'``.

    Raises
    ------
    RuntimeError
        For a negative ``beta``.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _check_sizes(input, target, "smooth_l1_loss")
    d = input - target
    z = d.abs()
    if beta == 0.0:
        return _reduce(z, reduction)
    loss = torch.where(z < beta, d * d * (0.5 / beta), z - 0.5 * beta)
    return _reduce(loss, reduction)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:  # noqa: A002
    """``0.5 d^2`` where ``|d| < delta``, ``delta (|d| - 0.5 delta)`` elsewhere.

    As ``torch.nn.functional.huber_loss``.

    Parameters
    ----------
    input : Tensor
        Predictions, any shape.
    target : Tensor
        Targets, ``input``'s shape.
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    delta : float, optional
        The switch point, positive (default 1.0).
    weight : Tensor, optional
        Elementwise weights, broadcast against the losses.

    Returns
    -------
    Tensor
        A scalar, or the elementwise losses with ``reduction='none'``.

    Raises
    ------
    RuntimeError
        For a non-positive ``delta``.
    """
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _check_sizes(input, target, "huber_loss")
    d = input - target
    z = d.abs()
    loss = torch.where(z < delta, d * d * 0.5, (z - 0.5 * delta) * delta)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _class_view(t: Tensor, ndim: int) -> Tensor:
    """A ``(C,)`` tensor shaped to broadcast along axis 1 of an ``ndim``-d input."""
    return t.reshape((1, -1) + (1,) * (ndim - 2)) if ndim >= 2 else t


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
             size_average: bool | None = None, ignore_index: int = -100,
             reduce: bool | None = None, reduction: str = "mean") -> Tensor:  # noqa: A002
    """Negative log-likelihood ``-weight[y] * input[y]`` (``torch.nn.functional.nll_loss``).

    ``'mean'`` divides by the total weight of the targets that are not ``ignore_index``.

    Parameters
    ----------
    input : Tensor
        Log-probabilities ``(N, C, *)`` or ``(C,)``.
    target : Tensor
        Class indices ``(N, *)`` or ``()``, int64.
    weight : Tensor, optional
        Per-class weights ``(C,)``.
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    ignore_index : int, optional
        A target value that contributes nothing (default -100).
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
        For floating-point targets or mismatched shapes.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if target.is_floating_point():
        raise RuntimeError(f"expected scalar type Long but found {target.dtype}")
    if input.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    unbatched = input.dim() == 1
    if unbatched:
        input = input.unsqueeze(0)
        target = target.unsqueeze(0)
    if input.shape[0] != target.shape[0] or tuple(input.shape[2:]) != tuple(target.shape[1:]):
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0]}).")
    C = input.shape[1]
    valid = target != ignore_index
    safe = torch.where(valid, target, 0)
    tc = _concrete(target._data)   # also under compat.func's traces (None under jit)
    tv = tc[tc != ignore_index] if tc is not None else np.zeros(0, np.int64)
    if tv.size and (tv.min() < 0 or tv.max() >= C):
        raise IndexError(f"Target {int(tv.max() if tv.max() >= C else tv.min())} is out of "
                         f"bounds.")
    picked = input.gather(1, safe.unsqueeze(1)).squeeze(1)
    w = valid.to(input.dtype)
    if weight is not None:
        w = w * weight.index_select(0, safe.reshape(-1)).reshape(safe.shape)
    loss = -(picked * w)
    if reduction == "none":
        return loss.squeeze(0) if unbatched else loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / w.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                  size_average: bool | None = None, ignore_index: int = -100,
                  reduce: bool | None = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:  # noqa: A002
    """Cross entropy of logits (``torch.nn.functional.cross_entropy``).

    Parameters
    ----------
    input : Tensor
        Logits ``(N, C, *)`` or ``(C,)``.
    target : Tensor
        Class indices (int64, ``(N, *)``) or class probabilities (``input``'s shape).
    weight : Tensor, optional
        Per-class weights ``(C,)``.
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    ignore_index : int, optional
        A target index that contributes nothing (default -100).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    label_smoothing : float, optional
        In [0, 1]: mix the target with the uniform distribution (default 0.0).

    Returns
    -------
    Tensor
        A scalar, or the elementwise losses with ``reduction='none'``.

    Raises
    ------
    RuntimeError
        For ``label_smoothing`` outside [0, 1] or mismatched shapes.

    Notes
    -----
    PyTorch's smoothing: ``(1 - eps) * nll + eps / C * sum_c(-w_c log p_c)``, normalized like
    ``nll``.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing}")
    if (weight is None and label_smoothing <= 0 and reduction in ("mean", "sum")
            and input.dim() == 2 and target.dim() == 1 and target.dtype == torch.int64
            and input.dtype in (torch.float32, torch.float64)
            and target.shape[0] == input.shape[0]):
        r = _K.cross_entropy_indices(input, target, ignore_index, reduction)  # one node
        if r is not None:
            return r
    cdim = 0 if input.dim() == 1 else 1
    logp = torch.log_softmax(input, cdim)
    C = input.shape[cdim]
    if target.is_floating_point():
        if tuple(target.shape) != tuple(input.shape):
            raise RuntimeError(f"Expected target size {list(input.shape)}, got "
                               f"{list(target.shape)}")
        t = target
        if label_smoothing > 0:
            t = t * (1 - label_smoothing) + label_smoothing / C
        prod = logp * t
        if weight is not None:
            prod = prod * _class_view(weight, input.dim())
        if reduction == "none":
            return -prod.sum(cdim)
        if reduction == "sum":
            return -prod.sum()
        if reduction == "mean":
            n = input.numel() // C if C else 0
            return -prod.sum() / n if n else prod.sum() * float("nan")
        raise ValueError(f"{reduction} is not a valid value for reduction")
    nll = nll_loss(logp, target, weight, None, ignore_index, None, reduction)
    if label_smoothing <= 0:
        return nll
    if weight is not None:
        smooth = -(logp * _class_view(weight, input.dim())).sum(cdim)
    else:
        smooth = -logp.sum(cdim)
    valid = target != ignore_index
    smooth = torch.where(valid, smooth, 0.0)
    if reduction == "none":
        ret = smooth
    elif reduction == "sum":
        ret = smooth.sum()
    else:
        if weight is not None:
            safe = torch.where(valid, target, 0)
            wsum = (weight.index_select(0, safe.reshape(-1)).reshape(safe.shape)
                    * valid.to(weight.dtype)).sum()
            ret = smooth.sum() / wsum
        else:
            ret = smooth.sum() / valid.sum()
    return nll * (1 - label_smoothing) + ret * (label_smoothing / C)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> Tensor:  # noqa: A002
    """``-w (t log x + (1 - t) log(1 - x))`` for probabilities ``x``.

    As ``torch.nn.functional.binary_cross_entropy``.

    Each log is clamped at -100, as in PyTorch.

    Parameters
    ----------
    input : Tensor
        Probabilities in [0, 1].
    target : Tensor
        Targets in [0, 1], ``input``'s shape.
    weight : Tensor, optional
        Elementwise weights, broadcast against the losses.
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
        If the shapes differ.
    RuntimeError
        For ``input`` outside [0, 1].
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the "
                         f"input size ({input.shape}) is deprecated. Please ensure they have "
                         "the same size.")
    xd = _concrete(input._data)   # the primal value under compat.func; None when staged
    if xd is not None and xd.size and (np.nanmin(xd) < 0 or np.nanmax(xd) > 1):
        raise RuntimeError("all elements of input should be between 0 and 1")
    with np.errstate(divide="ignore"):       # log(0) = -inf is clamped, as in PyTorch
        lx = torch.log(input).clamp(min=-100.0)
        l1x = torch.log(1.0 - input).clamp(min=-100.0)
    loss = -(target * lx + (1.0 - target) * l1x)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average: bool | None = None,
                                     reduce: bool | None = None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:  # noqa: A002
    """``-w (pos_weight t log s(x) + (1 - t) log(1 - s(x)))`` with ``s`` the sigmoid.

    As ``torch.nn.functional.binary_cross_entropy_with_logits``.

    Computed as PyTorch does: ``(1 - t) x - (1 + (pos_weight - 1) t) logsigmoid(x)``.

    Parameters
    ----------
    input : Tensor
        Logits.
    target : Tensor
        Targets in [0, 1], ``input``'s shape.
    weight : Tensor, optional
        Elementwise weights, broadcast against the losses.
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    pos_weight : Tensor, optional
        Weight of the positive term, broadcast along the last axis (classes).

    Returns
    -------
    Tensor
        A scalar, or the elementwise losses with ``reduction='none'``.

    Raises
    ------
    ValueError
        If the shapes differ.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    ls = logsigmoid(input)
    if pos_weight is not None and pos_weight.requires_grad:
        raise RuntimeError("The function 'binary_cross_entropy_with_logits' is not "
                           "differentiable with respect to argument 'pos_weight'. This input "
                           "cannot have requires_grad True.")
    if pos_weight is not None:
        lw = (pos_weight - 1.0) * target + 1.0
        loss = (1.0 - target) * input - lw * ls
    else:
        loss = (1.0 - target) * input - ls
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def kl_div(input: Tensor, target: Tensor, size_average: bool | None = None,  # noqa: A002
           reduce: bool | None = None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """Kullback-Leibler divergence, pointwise ``target (log target - input)``.

    As ``torch.nn.functional.kl_div``.

    The pointwise loss is 0 where ``target == 0``.

    Parameters
    ----------
    input : Tensor
        Log-probabilities.
    target : Tensor
        Probabilities (log-probabilities with ``log_target``).
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default; warns), ``'batchmean'`` (the sum over the batch size: the KL
        divergence), ``'sum'`` or ``'none'``.
    log_target : bool, optional
        ``target`` holds log-probabilities (default False).

    Returns
    -------
    Tensor
        A scalar, or the elementwise losses with ``reduction='none'``.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if log_target:
        loss = torch.exp(target) * (target - input)
    else:
        pos = target > 0
        loss = torch.where(pos, target * torch.log(torch.where(pos, target, 1.0)), 0.0) \
            - target * input
    if reduction == "batchmean":
        return loss.sum() / (input.shape[0] if input.dim() else 1)
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with "
                      "the KL div math definition.'mean' will be changed to behave the same as "
                      "'batchmean' in the next major release.", UserWarning, stacklevel=2)
    return _reduce(loss, reduction)


# ============================================================================== attention
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: Tensor | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """``softmax(Q K^T * scale + mask) V`` over the last two axes.

    As ``torch.nn.functional.scaled_dot_product_attention``.

    Parameters
    ----------
    query : Tensor
        ``(*, L, E)``.
    key : Tensor
        ``(*, S, E)``.
    value : Tensor
        ``(*, S, Ev)``.
    attn_mask : Tensor, optional
        Broadcastable to ``(*, L, S)``: bool (True: attend) or added float.
    dropout_p : float, optional
        Dropout on the attention weights (default 0).
    is_causal : bool, optional
        Mask the positions above the diagonal (default False).
    scale : float, optional
        Default ``1 / sqrt(E)``.
    enable_gqa : bool, optional
        Accepted for torch's signature (unused).

    Returns
    -------
    Tensor
        ``(*, L, Ev)``.

    Notes
    -----
    PyTorch's reference implementation; Vaswani et al. (2017).
    """
    L, S = query.shape[-2], key.shape[-2]
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = query.matmul(key.transpose(-2, -1)) * scale
    if is_causal:
        causal = torch.ones(L, S, dtype=torch.bool, device=query.device).tril()
        scores = scores.masked_fill(causal.logical_not(), float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            scores = scores.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            scores = scores + attn_mask
    attn = torch.softmax(scores, -1)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    return attn.matmul(value)


def _pad_masks(attn_mask: Tensor | None,
               key_padding_mask: Tensor | None) -> tuple[Tensor | None, Tensor | None]:
    """Both masks with one more key position that every query attends to."""
    if attn_mask is not None:
        attn_mask = torch.cat([attn_mask, torch.zeros(attn_mask.shape[:-1] + (1,),
                                                      dtype=attn_mask.dtype)], dim=-1)
    if key_padding_mask is not None:
        key_padding_mask = torch.cat([key_padding_mask, torch.zeros(
            key_padding_mask.shape[:-1] + (1,), dtype=key_padding_mask.dtype)], dim=-1)
    return attn_mask, key_padding_mask


def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int,
                                 num_heads: int, in_proj_weight: Tensor | None,
                                 in_proj_bias: Tensor | None, bias_k: Tensor | None,
                                 bias_v: Tensor | None, add_zero_attn: bool, dropout_p: float,
                                 out_proj_weight: Tensor, out_proj_bias: Tensor | None,
                                 training: bool = True, key_padding_mask: Tensor | None = None,
                                 need_weights: bool = True, attn_mask: Tensor | None = None,
                                 use_separate_proj_weight: bool = False,
                                 q_proj_weight: Tensor | None = None,
                                 k_proj_weight: Tensor | None = None,
                                 v_proj_weight: Tensor | None = None,
                                 static_k: Tensor | None = None, static_v: Tensor | None = None,
                                 average_attn_weights: bool = True,
                                 is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention (``torch.nn.functional.multi_head_attention_forward``).

    The masks get a column of "attend" for each appended key position.

    Parameters
    ----------
    query : Tensor
        ``(L, N, E)`` or unbatched ``(L, E)``.
    key : Tensor
        ``(S, N, E_k)`` or ``(S, E_k)``.
    value : Tensor
        ``(S, N, E_v)`` or ``(S, E_v)``.
    embed_dim_to_check : int
        E, checked against ``query``.
    num_heads : int
        Number of heads.
    in_proj_weight : Tensor or None
        ``(3E, E)`` packed q/k/v projection.
    in_proj_bias : Tensor or None
        ``(3E,)``.
    bias_k : Tensor or None
        ``(1, 1, E)``: one key position appended after the projection.
    bias_v : Tensor or None
        ``(1, 1, E)``: one value position appended.
    add_zero_attn : bool
        Append a zero key/value position.
    dropout_p : float
        Dropout on the attention weights in training.
    out_proj_weight : Tensor
        ``(E, E)``.
    out_proj_bias : Tensor or None
        ``(E,)``.
    training : bool, optional
        Apply dropout (default True).
    key_padding_mask : Tensor, optional
        ``(N, S)``: bool (True: ignore) or added float.
    need_weights : bool, optional
        Return the attention weights (default True).
    attn_mask : Tensor, optional
        ``(L, S)`` or ``(N * num_heads, L, S)``: bool (True: masked) or added float.
    use_separate_proj_weight : bool, optional
        Use ``q/k/v_proj_weight`` instead of ``in_proj_weight``.
    q_proj_weight : Tensor, optional
        ``(E, E)``.
    k_proj_weight : Tensor, optional
        ``(E, E_k)``.
    v_proj_weight : Tensor, optional
        ``(E, E_v)``.
    static_k : Tensor, optional
        ``(N * num_heads, S, E / num_heads)`` keys replacing the projected ones.
    static_v : Tensor, optional
        Values replacing the projected ones, likewise.
    average_attn_weights : bool, optional
        Average the returned weights over the heads (default True).
    is_causal : bool, optional
        A hint that ``attn_mask`` is the causal mask.

    Returns
    -------
    output : Tensor
        ``(L, N, E)`` (or ``(L, E)``).
    weights : Tensor or None
        ``(N, L, S)`` (per head: ``(N, num_heads, L, S)``), None unless ``need_weights``.
    """
    unbatched = query.dim() == 2
    if unbatched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    L, N, E = query.shape
    S = key.shape[0]
    if E != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {E}")
    H = num_heads
    hd = E // H
    if hd * H != E:
        raise AssertionError(f"embed_dim {E} not divisible by num_heads {H}")
    if not use_separate_proj_weight:
        wq, wk, wv = in_proj_weight.chunk(3)  # type: ignore[union-attr]  # given unless separate
    else:
        wq, wk, wv = q_proj_weight, k_proj_weight, v_proj_weight
    bq = bk = bv = None
    if in_proj_bias is not None:
        bq, bk, bv = in_proj_bias.chunk(3)
    q = linear(query, wq, bq)
    k = linear(key, wk, bk)
    v = linear(value, wv, bv)
    if (bias_k is None) != (bias_v is None):
        raise AssertionError("bias cannot be added to static key.")
    if bias_k is not None:   # one more key/value position (torch's order: before static_k)
        k = torch.cat([k, bias_k.repeat(1, N, 1)])
        v = torch.cat([v, bias_v.repeat(1, N, 1)])  # type: ignore[union-attr]  # checked above
        attn_mask, key_padding_mask = _pad_masks(attn_mask, key_padding_mask)
    # (L, N, E) -> (N * H, L, hd)
    q = q.reshape(L, N * H, hd).transpose(0, 1)
    k = k.reshape(k.shape[0], N * H, hd).transpose(0, 1) if static_k is None else static_k
    v = v.reshape(v.shape[0], N * H, hd).transpose(0, 1) if static_v is None else static_v
    if add_zero_attn:
        k = torch.cat([k, torch.zeros((N * H, 1, hd), dtype=k.dtype, device=k.device)], dim=1)
        v = torch.cat([v, torch.zeros((N * H, 1, hd), dtype=v.dtype, device=v.device)], dim=1)
        attn_mask, key_padding_mask = _pad_masks(attn_mask, key_padding_mask)
    S = k.shape[1]
    q, k, v = q.reshape(N, H, L, hd), k.reshape(N, H, S, hd), v.reshape(N, H, S, hd)
    scores = q.matmul(k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
    if is_causal and attn_mask is None:
        attn_mask = torch.ones(L, S, dtype=torch.bool, device=query.device).tril().logical_not()
    if attn_mask is not None:
        m = attn_mask
        if m.dim() == 3:
            m = m.reshape(N, H, L, S)
        if m.dtype == torch.bool:
            scores = scores.masked_fill(m, float("-inf"))
        else:
            scores = scores + m
    if key_padding_mask is not None:
        kpm = key_padding_mask.reshape(N, 1, 1, S)
        if kpm.dtype == torch.bool:
            scores = scores.masked_fill(kpm, float("-inf"))
        else:
            scores = scores + kpm
    attn = torch.softmax(scores, -1)
    if dropout_p > 0.0 and training:
        attn = dropout(attn, dropout_p, True)
    out = attn.matmul(v)                                    # (N, H, L, hd)
    out = out.permute(2, 0, 1, 3).reshape(L * N, E)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(L, N, E)
    weights = None
    if need_weights:
        weights = attn.mean(dim=1) if average_attn_weights else attn
        if unbatched:
            weights = weights.squeeze(0)
    if unbatched:
        out = out.squeeze(1)
    return out, weights
