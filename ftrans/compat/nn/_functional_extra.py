"""``torch.nn.functional``'s ``pdist``, ``rms_norm``, ``local_response_norm``,
``embedding_bag`` and ``linear_cross_entropy`` on compat Tensors (re-exported by
:mod:`._functional_losses2`; the public namespace: :mod:`ftrans.compat.nn.functional`)."""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any
import warnings

import numpy as np

import ftrans.compat as torch
from ..types import Tensor

from ._functional_layers import linear
from ._functional_losses import cross_entropy
from ftrans.compat._opbase import _compose
from ftrans.compat.autograd._composite import composite_class
from ftrans import nn as _fnn
from ._functional_more import pad, avg_pool3d
from ._functional_layers import avg_pool2d


# ============================================================================== distances, norms
def pdist(input: Tensor, p: float = 2) -> Tensor:  # noqa: A002
    """The ``p``-norm distances between the rows of ``input`` (``torch.nn.functional.pdist``).

    Parameters
    ----------
    input : Tensor
        ``(N, M)``.
    p : float, optional
        Non-negative norm order (default 2).

    Returns
    -------
    Tensor
        ``(N (N - 1) / 2,)``: the upper triangle in row-major order (zero distances have
        gradient 0).

    Raises
    ------
    RuntimeError
        For an input that is not 2-d or a negative ``p``.
    """
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    i, j = np.triu_indices(n, 1)
    d = (input.index_select(0, torch.as_tensor(i.astype(np.int64)))
         - input.index_select(0, torch.as_tensor(j.astype(np.int64)))).abs()
    if p == 0:   # (a zero gradient, as PyTorch's)
        return (d != 0).to(input.dtype).sum(1) + d.sum(1) * 0.0
    if math.isinf(p):
        return d.amax(1) if d.shape[1] else d.sum(1)
    s = (d ** p).sum(1)
    zero = s == 0
    safe = torch.where(zero, torch.ones_like(s), s)
    return torch.where(zero, torch.zeros_like(s), safe ** (1.0 / p))


def rms_norm(input: Tensor, normalized_shape: int | Sequence[int], weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:  # noqa: A002
    """``x / sqrt(mean(x^2) + eps) * weight`` over the trailing ``normalized_shape``.

    As ``torch.nn.functional.rms_norm``.

    Parameters
    ----------
    input : Tensor
        ``(*, *normalized_shape)``.
    normalized_shape : int or sequence of int
        The trailing shape.
    weight : Tensor, optional
        Scale of ``normalized_shape``.
    eps : float, optional
        Default: the dtype's machine epsilon.

    Returns
    -------
    Tensor
        Same shape as ``input``.

    Raises
    ------
    RuntimeError
        For shapes that do not match ``normalized_shape``.
    """
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if k == 0:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    if tuple(input.shape[input.dim() - k:]) != shape or input.dim() < k:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = "
                           f"{list(shape)}")
    if eps is None:
        eps = float(np.finfo(input.dtype.np).eps)
    dims = tuple(range(input.dim() - k, input.dim()))
    out = input * torch.rsqrt((input * input).mean(dims, keepdim=True) + eps) if dims else \
        input * torch.rsqrt(input * input + eps)
    return out if weight is None else out * weight


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:  # noqa: A002
    """``x / (k + alpha mean_window(x^2))^beta`` over ``size`` neighbouring channels.

    As ``torch.nn.functional.local_response_norm``.

    Parameters
    ----------
    input : Tensor
        ``(N, C, *)``, at least 3-d.
    size : int
        Number of neighbouring channels.
    alpha : float, optional
        Multiplicative factor (default 1e-4).
    beta : float, optional
        Exponent (default 0.75).
    k : float, optional
        Additive factor (default 1.0).

    Returns
    -------
    Tensor
        Same shape as ``input``.

    Raises
    ------
    ValueError
        For an input of fewer than 3 dimensions.
    """
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          "
                         f"input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input * input
    if dim == 3:
        div = pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = tuple(input.shape)
        div = div.reshape(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).reshape(sizes)
    return input / (div * alpha + k) ** beta


# ============================================================================== embedding_bag
def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None,
                  max_norm: float | None = None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:  # noqa: A002
    """Sums, means or maxima of bags of rows of ``weight`` (``torch.nn.functional.embedding_bag``).

    ``ftrans.nn.embedding_bag``, one ``EmbeddingBagBackward0`` node.

    Parameters
    ----------
    input : Tensor
        Indices: ``(B, L)`` (each row a bag) or 1-d with ``offsets``.
    weight : Tensor
        ``(num_embeddings, dim)``.
    offsets : Tensor, optional
        Start of each bag in a 1-d ``input``.
    max_norm : float, optional
        Not supported.
    norm_type : float, optional
        The norm of ``max_norm`` (default 2).
    scale_grad_by_freq : bool, optional
        Not supported (must be False).
    mode : str, optional
        ``'sum'``, ``'mean'`` (default) or ``'max'``.
    sparse : bool, optional
        Not supported (must be False).
    per_sample_weights : Tensor, optional
        Weights of the looked-up rows, ``input``'s shape (``'sum'`` only).
    include_last_offset : bool, optional
        ``offsets`` has one more entry, the end of the last bag.
    padding_idx : int, optional
        Entries left out of the bags.

    Returns
    -------
    Tensor
        ``(B, dim)``; empty bags give zeros.

    Raises
    ------
    ValueError
        For bad arguments (PyTorch's messages).
    """
    if weight.dtype == torch.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) "
                         f"is not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    idx = input.numpy(force=True).astype(np.int64)
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found "
                             f"offsets of type {type(offsets)}")
        offs = np.arange(0, idx.size, max(idx.shape[1], 1)) if idx.shape[1] else \
            np.zeros(idx.shape[0], np.int64)
        include_last_offset = False
        idx = idx.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        offs = offsets.numpy(force=True).astype(np.int64)
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on GitHub.")
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding_bag: scale_grad_by_freq and sparse are not "
                                  "supported by ftrans.compat")
    nw = weight.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= nw):
        raise IndexError("index out of range in self")
    if max_norm is not None and idx.size:
        with torch.no_grad():
            u = torch.as_tensor(np.unique(idx))
            rows = weight.index_select(0, u)
            norms = rows.norm(norm_type, 1, keepdim=True)
            scale = torch.where(norms > max_norm, max_norm / (norms + 1e-7),
                                torch.ones_like(norms))
            weight[u] = rows * scale
    params = {"indices": idx, "offsets": offs, "mode": mode,
              "include_last_offset": include_last_offset, "padding_idx": padding_idx}
    if per_sample_weights is None:
        return _compose(_EmbeddingBagBackward0, _fnn.embedding_bag, [weight],
                        [weight._data], params, mask=int(mode == "max"))   # max: argmax
    return _compose(_EmbeddingBagBackward0, _psw_bag, [weight, per_sample_weights],
                    [weight._data, per_sample_weights._data], params, mask=3)


def _psw_bag(weight: Tensor, per_sample_weights: Tensor, **params: Any) -> Any:
    return _fnn.embedding_bag(weight, per_sample_weights=per_sample_weights, **params)


_EmbeddingBagBackward0 = composite_class("EmbeddingBagBackward0",
                                         ("weight", "per_sample_weights"))


# ============================================================================== linear + CE
def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *,
                         linear_bias: Tensor | None = None, weight: Tensor | None = None,
                         reduction: str = "mean", ignore_index: int | None = None,
                         label_smoothing: float = 0.0, options: Any = None) -> Tensor:  # noqa: A002
    """``cross_entropy(linear(input, linear_weight, linear_bias), target)``.

    As ``torch.nn.functional.linear_cross_entropy``.

    Parameters
    ----------
    input : Tensor
        ``(N, in)``.
    linear_weight : Tensor
        ``(C, *out_features, in)``: K-dimensional logits ``(N, C, *out_features)``.
    target : Tensor
        Class indices or probabilities, as ``cross_entropy`` takes them.
    linear_bias : Tensor, optional
        The projection's bias.
    weight : Tensor, optional
        Per-class weights ``(C,)``.
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    ignore_index : int, optional
        A target index that contributes nothing (default: none).
    label_smoothing : float, optional
        As ``cross_entropy``'s (default 0.0).
    options : Any, optional
        PyTorch's chunking of the batch to save memory: accepted and ignored (the result
        is the same).

    Returns
    -------
    Tensor
        A scalar, or the elementwise losses with ``reduction='none'``.
    """
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    lead, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(f"expected equal input and linear_weight last dimensions "
                           f"(in_features), got {input.shape[-1]} and "
                           f"{linear_weight.shape[-1]}, respectively")
    c, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (c,) + out_features:
        raise RuntimeError(f"expected linear_bias shape {(c, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not lead:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, (N, "
                           f"{in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    logits_shape = lead + (c,) + out_features
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains "
                           "probabilities")
    w, b = linear_weight, linear_bias
    if out_features:
        m = int(np.prod((c,) + out_features))
        w = w.reshape(m, in_features)
        b = None if b is None else b.reshape(m)
    logits = linear(input, w, b).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index,
                         label_smoothing=label_smoothing)
