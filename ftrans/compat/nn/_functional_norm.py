"""``torch.nn.functional``'s normalization, distance, interpolation, dropout, embedding
and padding functions on compat Tensors (the public namespace, its conventions and
sources: :mod:`ftrans.compat.nn.functional`).  Batch norm is compat's adapter of
``ftrans.nn``'s fused function (:mod:`ftrans.compat._nn_ops`).
"""
from __future__ import annotations

import math
import numbers

from collections.abc import Sequence
from typing import Any, Literal, cast

import numpy as np
from numpy.typing import DTypeLike

import ftrans.compat as torch
from ..types import Tensor
from ftrans.compat import _ops as _K
from ftrans.compat._tracer_values import _state_value
from ftrans.compat._tensor import _make_plain
from . import _checks
from ._checks import _ntuple, _check_tensor


# ============================================================================== normalization
def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-05) -> Tensor:  # noqa: A002
    """Batch normalization over all axes but the channel axis 1.

    As ``torch.nn.functional.batch_norm``.

    Training normalizes with the batch statistics (biased variance) and updates the
    running statistics in place, ``r = (1 - momentum) r + momentum * stat`` with the
    *unbiased* variance (PyTorch's documented rule).

    Parameters
    ----------
    input : Tensor
        ``(N, C, *)``.
    running_mean : Tensor or None
        ``(C,)`` running mean, updated in place in training.
    running_var : Tensor or None
        ``(C,)`` running variance, updated in place in training.
    weight : Tensor, optional
        Per-channel scale ``(C,)``.
    bias : Tensor, optional
        Per-channel shift ``(C,)``.
    training : bool, optional
        Normalize with the batch statistics (default False: the running ones).
    momentum : float, optional
        Weight of the new statistic in the running averages (default 0.1).
    eps : float, optional
        Added to the variance (default 1e-5).

    Returns
    -------
    Tensor
        Same shape as ``input``.

    Raises
    ------
    ValueError
        For an input of fewer than 2 dimensions, or one value per channel in training.
    RuntimeError
        Without running statistics in evaluation mode.
    TypeError
        If ``input`` is not a Tensor.

    Notes
    -----
    Ioffe and Szegedy (2015), "Batch Normalization".
    """
    _check_tensor(input, "batch_norm")
    if input.dim() < 2:
        raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")
    C = input.shape[1]
    if training:
        n = input.numel() // C if C else 0
        if n == 1:   # (an empty batch normalizes to an empty result, as in PyTorch)
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {input.shape}")
    elif running_mean is None or running_var is None:
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    if input.numel() == 0:   # PyTorch's empty-batch path: no statistics, still in the graph
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        return out if bias is None else out + bias[0]
    out, mean, var = _K.native_batch_norm(input, weight, bias, running_mean, running_var,
                                          training, eps)
    if training and (running_mean is not None or running_var is not None):
        # under compat.func the statistics are Tracers: the buffers take their primal
        # values, as torch.func's do (staged ones under compat.compile: the program
        # writes the buffers)
        mean, var = _state_value(mean), _state_value(var)
        with torch.no_grad():
            if running_mean is not None:
                running_mean.mul_(1 - momentum).add_(_stat(mean, running_mean) * momentum)
            if running_var is not None:
                running_var.mul_(1 - momentum).add_(_stat(var, running_var)
                                                    * (momentum * n / (n - 1)))
    return out


def _stat(data: Any, buffer: Tensor) -> Tensor:
    """A batch statistic (an array, or a staged value) as a Tensor of ``buffer``'s dtype
    (it is on the input's device, as the buffer)."""
    return _make_plain(data).to(buffer.dtype)


def layer_norm(input: Tensor, normalized_shape: int | Sequence[int], weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-05) -> Tensor:  # noqa: A002
    """Normalize over the trailing ``normalized_shape`` axes (``torch.nn.functional.layer_norm``).

    Parameters
    ----------
    input : Tensor
        ``(*, *normalized_shape)``.
    normalized_shape : int or sequence of int
        The trailing shape.
    weight : Tensor, optional
        Scale of ``normalized_shape``.
    bias : Tensor, optional
        Shift of ``normalized_shape``.
    eps : float, optional
        Added to the (biased) variance (default 1e-5).

    Returns
    -------
    Tensor
        Same shape as ``input``.

    Raises
    ------
    RuntimeError
        If the trailing shape of ``input`` is not ``normalized_shape``.
    """
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (int(normalized_shape),)
    normalized_shape = cast(Sequence[int], normalized_shape)   # (mypy: Integral is not int)
    k = len(normalized_shape)
    if tuple(input.shape[input.dim() - k:]) != tuple(normalized_shape):
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input "
                           f"with shape [*, {', '.join(map(str, normalized_shape))}], but got "
                           f"input of size{list(input.shape)}")
    axes = list(range(input.dim() - k, input.dim()))
    mean = input.mean(dim=axes, keepdim=True)
    xc = input - mean
    var = (xc * xc).mean(dim=axes, keepdim=True)
    out = xc * (var + eps).rsqrt()
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-05) -> Tensor:  # noqa: A002
    """Normalize each channel group of every sample, then a per-channel affine map.

    As ``torch.nn.functional.group_norm``.

    Parameters
    ----------
    input : Tensor
        ``(N, C, *)``.
    num_groups : int
        Number of groups; must divide C.
    weight : Tensor, optional
        Per-channel scale ``(C,)``.
    bias : Tensor, optional
        Per-channel shift ``(C,)``.
    eps : float, optional
        Added to the variance (default 1e-5).

    Returns
    -------
    Tensor
        Same shape as ``input``.

    Raises
    ------
    RuntimeError
        If ``num_groups`` does not divide C.
    """
    _checks.group_norm(input, num_groups)
    N, C = input.shape[0], input.shape[1]
    if C % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {input.shape} and "
                           f"num_groups={num_groups}")
    x = input.reshape(N, num_groups, (C // num_groups) * math.prod(input.shape[2:]))
    mean = x.mean(dim=2, keepdim=True)
    xc = x - mean
    var = (xc * xc).mean(dim=2, keepdim=True)
    out = (xc * (var + eps).rsqrt()).reshape(input.shape)
    shape = (1, C) + (1,) * (input.dim() - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def instance_norm(input: Tensor, running_mean: Tensor | None = None,
                  running_var: Tensor | None = None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-05) -> Tensor:  # noqa: A002
    """Normalize each (sample, channel) plane over its spatial axes.

    As ``torch.nn.functional.instance_norm``.

    Parameters
    ----------
    input : Tensor
        ``(N, C, *spatial)``.
    running_mean : Tensor, optional
        ``(C,)``, updated in place with ``use_input_stats``.
    running_var : Tensor, optional
        ``(C,)``, updated in place with ``use_input_stats``.
    weight : Tensor, optional
        Per-channel scale ``(C,)``.
    bias : Tensor, optional
        Per-channel shift ``(C,)``.
    use_input_stats : bool, optional
        Normalize with each plane's statistics (default True); else the running ones.
    momentum : float, optional
        Weight of the new statistic (default 0.1).
    eps : float, optional
        Added to the variance (default 1e-5).

    Returns
    -------
    Tensor
        Same shape as ``input``.
    """
    N, C = input.shape[0], input.shape[1]
    if use_input_stats:
        axes = list(range(2, input.dim()))
        mean = input.mean(dim=axes, keepdim=True)
        xc = input - mean
        var = (xc * xc).mean(dim=axes, keepdim=True)
        out = xc * (var + eps).rsqrt()
        if running_mean is not None or running_var is not None:
            n = input.numel() // (N * C)
            with torch.no_grad():
                if running_mean is not None:
                    running_mean.mul_(1 - momentum).add_(mean.reshape(N, C).mean(0) * momentum)
                if running_var is not None:
                    running_var.mul_(1 - momentum).add_(
                        var.reshape(N, C).mean(0) * (momentum * n / max(n - 1, 1)))
    else:
        shape = (1, C) + (1,) * (input.dim() - 2)
        if running_mean is None or running_var is None:   # (PyTorch's check and message)
            raise RuntimeError("Expected running_mean and running_var to be defined when "
                               "use_input_stats is false")
        out = (input - running_mean.reshape(shape)) * (running_var.reshape(shape) + eps).rsqrt()
    shape = (1, C) + (1,) * (input.dim() - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``x1 . x2 / max(||x1|| ||x2||, eps)`` along ``dim``.

    As ``torch.nn.functional.cosine_similarity``.

    Parameters
    ----------
    x1 : Tensor
        First input.
    x2 : Tensor
        Second input; both are broadcast to one shape first.
    dim : int, optional
        The reduced axis (default 1).
    eps : float, optional
        Lower bound of the norms' product (default 1e-8).

    Returns
    -------
    Tensor
        The broadcast shape without ``dim``.

    Notes
    -----
    PyTorch 2.x's formula (the product of the norms is clamped, not each norm).
    """
    x1, x2 = torch.broadcast_tensors(x1, x2)
    n12 = (x1 * x1).sum(dim) * (x2 * x2).sum(dim)
    return (x1 * x2).sum(dim) / n12.clamp_min(eps * eps).sqrt()


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """``||x1 - x2 + eps||_p`` along the last axis (``torch.nn.functional.pairwise_distance``).

    Parameters
    ----------
    x1 : Tensor
        ``(N, D)`` or ``(D,)``.
    x2 : Tensor
        Broadcastable with ``x1``.
    p : float, optional
        Norm order (default 2.0).
    eps : float, optional
        Added to the difference (default 1e-6).
    keepdim : bool, optional
        Keep the reduced axis (default False).

    Returns
    -------
    Tensor
        ``(N,)`` (or with the kept axis).
    """
    return (x1 - x2 + eps).norm(p, -1, keepdim=keepdim)


def _interp_sizes(input: Tensor, size: Any, scale_factor: Any,  # noqa: A002
                  nsp: int) -> tuple[Any, Any, Any]:
    sp = tuple(input.shape[2:])
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        out = _ntuple(nsp, "size")(size)
        scales = [L / o for L, o in zip(sp, out)]
    else:
        sf = scale_factor if isinstance(scale_factor, (list, tuple)) else (scale_factor,) * nsp
        out = tuple(int(math.floor(L * f)) for L, f in zip(sp, sf))
        scales = [1.0 / f for f in sf]
    return sp, out, scales


def _linear_matrix(L: int, o: int, scale: float, align_corners: bool,
                   dtype: DTypeLike) -> np.ndarray:
    """``(o, L)`` matrix of 1-d linear interpolation weights (PyTorch's source index
    rule: ``(dst + 0.5) * scale - 0.5`` clamped at 0, or ``dst (L-1)/(o-1)`` with
    ``align_corners``)."""
    m = np.zeros((o, L), dtype)
    for i in range(o):
        if align_corners:
            src = i * (L - 1) / (o - 1) if o > 1 else 0.0
        else:
            src = max((i + 0.5) * scale - 0.5, 0.0)
        i0 = min(int(math.floor(src)), L - 1)
        i1 = min(i0 + 1, L - 1)
        lam = src - i0
        m[i, i0] += 1.0 - lam
        m[i, i1] += lam
    return m


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None,  # noqa: A002
                mode: str = "nearest", align_corners: bool | None = None,
                recompute_scale_factor: bool | None = None, antialias: bool = False) -> Tensor:
    """Resize the spatial axes of ``(N, C, *spatial)``: ``mode`` 'nearest' (source index
    ``floor(dst * scale)``), 'linear'/'bilinear' (separable linear weights, PyTorch's
    source-index rule).  Other modes raise NotImplementedError."""
    nsp = input.dim() - 2
    if nsp < 1:
        raise ValueError(f"interpolate expects (N, C, *spatial) input, got {input.dim()}D")
    sp, out, scales = _interp_sizes(input, size, scale_factor, nsp)
    if recompute_scale_factor and scale_factor is not None:
        scales = [L / o for L, o in zip(sp, out)]
    y = input
    if mode == "nearest":
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
        for i, (L, o, sc) in enumerate(zip(sp, out, scales)):
            idx = np.minimum(np.floor(np.arange(o) * np.float32(sc)).astype(np.int64), L - 1)
            y = y.index_select(2 + i, torch.as_tensor(idx, device=input.device))
        return y
    if mode in ("linear", "bilinear", "trilinear"):
        want = {"linear": 1, "bilinear": 2, "trilinear": 3}[mode]
        if want != nsp:
            raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                      f"{want + 2}D input")
        for i, (L, o, sc) in enumerate(zip(sp, out, scales)):
            m = torch.as_tensor(_linear_matrix(L, o, sc, bool(align_corners), np.float64),
                                dtype=y.dtype, device=y.device)
            y = y.movedim(2 + i, -1).matmul(m.t()).movedim(-1, 2 + i)
        return y
    raise NotImplementedError(f"interpolate: mode {mode!r} is not supported by ftrans.compat "
                              "(nearest, linear, bilinear, trilinear)")


def normalize(input: Tensor, p: float = 2.0, dim: int = 1,  # noqa: A002
              eps: float = 1e-12) -> Tensor:
    """``input / max(||input||_p, eps)`` along ``dim`` (``torch.nn.functional.normalize``).

    Parameters
    ----------
    input : Tensor
        Any shape.
    p : float, optional
        Norm order (default 2.0).
    dim : int, optional
        The axis (default 1).
    eps : float, optional
        Lower bound of the norm (default 1e-12).

    Returns
    -------
    Tensor
        Same shape as ``input``.
    """
    n = input.norm(p, dim, keepdim=True).clamp_min(eps)
    return input / n


# ============================================================================== dropout, embedding
def dropout(input: Tensor, p: float = 0.5, training: bool = True,  # noqa: A002
            inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)``.

    As ``torch.nn.functional.dropout``.

    The mask comes from compat's generator (``torch.manual_seed``), not PyTorch's.

    Parameters
    ----------
    input : Tensor
        Any shape.
    p : float, optional
        Drop probability in [0, 1] (default 0.5).
    training : bool, optional
        Apply dropout (default True); the identity otherwise.
    inplace : bool, optional
        Write the result into ``input`` (default False).

    Returns
    -------
    Tensor
        Same shape as ``input``.

    Raises
    ------
    ValueError
        If ``p`` is outside [0, 1].
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        out = input * 0.0
    else:
        keep = torch.rand(input.shape, dtype=input.dtype, device=input.device) >= p
        out = input * keep.to(input.dtype) * (1.0 / (1.0 - p))
    if inplace:
        with torch.no_grad() if not input.requires_grad else _nullctx():
            return input.copy_(out)
    return out


class _nullctx:
    """A context manager that does nothing."""

    def __enter__(self) -> _nullctx:
        return self

    def __exit__(self, *a: object) -> Literal[False]:
        return False


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:  # noqa: A002
    """Rows of ``weight`` at the integer indices ``input`` (``torch.nn.functional.embedding``).

    Parameters
    ----------
    input : Tensor
        Integer indices, any shape.
    weight : Tensor
        ``(num_embeddings, embedding_dim)``.
    padding_idx : int, optional
        A row that receives no gradient.
    max_norm : float, optional
        Not supported.
    norm_type : float, optional
        The norm of ``max_norm`` (default 2.0).
    scale_grad_by_freq : bool, optional
        Not supported (must be False).
    sparse : bool, optional
        Not supported (must be False).

    Returns
    -------
    Tensor
        ``input.shape + (embedding_dim,)``.

    Raises
    ------
    RuntimeError
        For floating-point indices.
    NotImplementedError
        For ``max_norm``, ``scale_grad_by_freq`` or ``sparse``.
    """
    _checks.embedding(weight)
    if input.is_floating_point():
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got torch.FloatTensor "
                           "instead (while checking arguments for embedding)")
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: max_norm, scale_grad_by_freq and sparse are not "
                                  "supported by ftrans.compat")
    w = weight
    if padding_idx is not None:
        n = weight.shape[0]
        if padding_idx < 0:
            padding_idx += n
        mask = torch.ones(n, 1, dtype=torch.bool, device=weight.device)
        mask[padding_idx] = False
        w = torch.where(mask, weight, weight.detach())
    flat = w.index_select(0, input.reshape(-1))
    return flat.reshape(tuple(input.shape) + (weight.shape[1],))


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding of class indices (``torch.nn.functional.one_hot``).

    Parameters
    ----------
    tensor : Tensor
        Integer class indices, any shape.
    num_classes : int, optional
        Number of classes (default -1: the largest index + 1).

    Returns
    -------
    Tensor
        ``tensor.shape + (num_classes,)``, int64.

    Raises
    ------
    RuntimeError
        For non-integer input or an index outside ``[0, num_classes)``.
    """
    a = tensor.numpy(force=True)
    if a.dtype.kind not in "iu":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    n = int(a.max()) + 1 if num_classes == -1 else num_classes
    if a.size and (a.min() < 0 or a.max() >= n):
        raise RuntimeError("Class values must be smaller than num_classes.")
    return torch.as_tensor((a[..., None] == np.arange(n)).astype(np.int64), device=tensor.device)


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant",  # noqa: A002
        value: float | None = None) -> Tensor:
    """Pad the last ``len(pad) // 2`` axes (``pad = (left_last, right_last, left_prev,
    ...)``) with ``value``; ``mode='constant'`` only."""
    if mode != "constant":
        raise NotImplementedError(f"pad: mode {mode!r} is not supported by ftrans.compat "
                                  "(only 'constant')")
    if len(pad) % 2:
        raise ValueError("Padding length must be divisible by 2")
    value = 0.0 if value is None else value
    out = input
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo < 0:
            out = out.narrow(dim, -lo, out.shape[dim] + lo)
            lo = 0
        if hi < 0:
            out = out.narrow(dim, 0, out.shape[dim] + hi)
            hi = 0
        parts: list[Tensor | None] = []
        for n in (lo, 0, hi):
            if n:
                shape = list(out.shape)
                shape[dim] = n
                parts.append(torch.full(shape, value, dtype=out.dtype, device=out.device))
            else:
                parts.append(None)
        seq = [p for p in (parts[0], out, parts[2]) if p is not None]
        out = torch.cat(seq, dim) if len(seq) > 1 else out
    return out
