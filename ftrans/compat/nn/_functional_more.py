"""More of ``torch.nn.functional`` on compat Tensors: shrink activations, ``glu``,
``rrelu``, pixel/channel shuffles, ``unfold``/``fold``, 3-d pooling, ``max_unpool``,
fractional max pooling, channel dropouts, the non-constant ``pad`` modes and the extra
``interpolate`` modes (see :mod:`ftrans.compat.nn.functional`).

Everything is written with compat Tensor operations (index_select, gather, convolution,
the window reductions), so the graph nodes and their backward passes are those of the
underlying ftrans functions; nothing here defines a derivative.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import math
import warnings

import ftrans.compat as torch
from ..types import Tensor

from ftrans import nn as _fnn
from ftrans.compat._opbase import _compose
from ftrans.compat.autograd._composite import composite_class
from ._checks import _ntuple, _check_tensor
from ._functional_act import leaky_relu
from ._functional_pool import (conv_transpose3d, max_pool3d, avg_pool3d,  # noqa: F401
    adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool1d,
    adaptive_max_pool2d, adaptive_max_pool3d, max_unpool1d, max_unpool2d, max_unpool3d,
    fractional_max_pool2d, fractional_max_pool3d)
from ._functional_resize import (pad, interpolate, upsample, upsample_nearest,  # noqa: F401
    upsample_bilinear, _reversed_padding)  # (layers_conv uses _reversed_padding)  # noqa: F401

__all__ = ["hardshrink", "softshrink", "glu", "rrelu", "pixel_shuffle", "pixel_unshuffle",
           "channel_shuffle", "unfold", "fold", "conv_transpose3d", "max_pool3d",
           "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "max_unpool1d",
           "max_unpool2d", "max_unpool3d", "fractional_max_pool2d", "fractional_max_pool3d",
           "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
           "pad", "interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]


# ============================================================================== activations
def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    """``x`` where ``|x| > lambd``, else 0 (``torch.nn.functional.hardshrink``).

    Parameters
    ----------
    input : Tensor
        Any shape.
    lambd : float, optional
        Threshold (default 0.5).

    Returns
    -------
    Tensor
        Same shape as ``input``.
    """
    _check_tensor(input, "hardshrink")
    inside = (input >= -lambd) & (input <= lambd)
    return torch.where(inside, torch.zeros_like(input), input)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0.

    As ``torch.nn.functional.softshrink``.

    Parameters
    ----------
    input : Tensor
        Any shape.
    lambd : float, optional
        Threshold (default 0.5).

    Returns
    -------
    Tensor
        Same shape as ``input``.
    """
    _check_tensor(input, "softshrink")
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    zero = torch.zeros_like(input)
    return torch.where(input > lambd, input - lambd,
                       torch.where(input < -lambd, input + lambd, zero))


def glu(input: Tensor, dim: int = -1) -> Tensor:  # noqa: A002
    """``a * sigmoid(b)`` of the two halves ``a, b`` of ``dim`` (``torch.nn.functional.glu``).

    Parameters
    ----------
    input : Tensor
        Even size along ``dim``.
    dim : int, optional
        The split axis (default -1).

    Returns
    -------
    Tensor
        Half the size along ``dim``.
    """
    _check_tensor(input, "glu")
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim if dim >= 0 else dim + input.dim()
    if not 0 <= d < input.dim():
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-input.dim()}, {input.dim() - 1}], but got {dim})")
    n = input.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    a, b = input.narrow(d, 0, n // 2), input.narrow(d, n // 2, n // 2)
    return a * torch.sigmoid(b)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:  # noqa: A002
    """Randomized leaky ReLU (``torch.nn.functional.rrelu``).

    Parameters
    ----------
    input : Tensor
        Any shape.
    lower : float, optional
        Lower slope bound (default 1/8).
    upper : float, optional
        Upper slope bound (default 1/3).
    training : bool, optional
        Draw a slope from ``U(lower, upper)`` per negative element (compat's generator);
        else the slope is ``(lower + upper) / 2`` (default False).
    inplace : bool, optional
        Write the result into ``input`` (default False).

    Returns
    -------
    Tensor
        Same shape as ``input``.
    """
    if lower > upper:
        raise RuntimeError(f"Lower bound should be less than or equal to the upper bound, but "
                           f"got lower={lower} and upper={upper}")
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    slope = torch.rand(input.shape, dtype=input.dtype) * (upper - lower) + lower
    out = torch.where(input >= 0, input, input * slope)
    return input.copy_(out) if inplace else out


# ============================================================================== shuffles
_PixelShuffleBackward0 = composite_class("PixelShuffleBackward0", ("self",))
_PixelUnshuffleBackward0 = composite_class("PixelUnshuffleBackward0", ("self",))
_Im2ColBackward0 = composite_class("Im2ColBackward0", ("self",))
_Col2ImBackward0 = composite_class("Col2ImBackward0", ("self",))


def _shuffle_factor(input: Tensor, factor: int, fname: str, what: str) -> int:  # noqa: A002
    _check_tensor(input, fname)
    r = int(factor)
    if input.dim() < 3:
        raise RuntimeError(f"{fname} expects input to have at least 3 dimensions, but got "
                           f"input with {input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"{fname} expects a positive {what}, but got {r}")
    return r


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:  # noqa: A002
    """Rearrange ``(*, C r^2, H, W) -> (*, C, H r, W r)`` (``torch.nn.functional.pixel_shuffle``).

    Parameters
    ----------
    input : Tensor
        ``(*, C r^2, H, W)``.
    upscale_factor : int
        r.

    Returns
    -------
    Tensor
        ``(*, C, H r, W r)``.
    """
    r = _shuffle_factor(input, upscale_factor, "pixel_shuffle", "upscale_factor")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c}"
                           f" is not divisible by {r * r}")
    return _compose(_PixelShuffleBackward0, _fnn.pixel_shuffle, [input], [input._data],
                    {"upscale_factor": r}, mask=0)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:  # noqa: A002
    """Rearrange ``(*, C, H r, W r) -> (*, C r^2, H, W)`` (``torch.nn.functional.pixel_unshuffle``).

    Parameters
    ----------
    input : Tensor
        ``(*, C, H r, W r)``.
    downscale_factor : int
        r.

    Returns
    -------
    Tensor
        ``(*, C r^2, H, W)``.
    """
    r = _shuffle_factor(input, downscale_factor, "pixel_unshuffle", "downscale_factor")
    *lead, c, h, w = input.shape
    if h % r or w % r:
        which, v = ("height", h) if h % r else ("width", w)
        raise RuntimeError(f"pixel_unshuffle expects {which} to be divisible by "
                           f"downscale_factor, but input.size({-2 if h % r else -1})={v} is "
                           f"not divisible by {r}")
    return _compose(_PixelUnshuffleBackward0, _fnn.pixel_unshuffle, [input], [input._data],
                    {"downscale_factor": r}, mask=0)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:  # noqa: A002
    """Regroup the channels ``(N, g C', *) -> (N, C' g, *)``.

    As ``torch.nn.functional.channel_shuffle``.

    Parameters
    ----------
    input : Tensor
        ``(N, g C', *)``.
    groups : int
        g.

    Returns
    -------
    Tensor
        Same shape as ``input``.
    """
    _check_tensor(input, "channel_shuffle")
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.dim()} dimension(s)")
    g = int(groups)
    if g <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value "
                           f"of groups:{g}")
    n, c = input.shape[0], input.shape[1]
    if c % g:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {g} groups.")
    rest = tuple(input.shape[2:])
    return input.reshape((n, g, c // g) + rest).transpose(1, 2).reshape((n, c) + rest)


# ============================================================================== unfold / fold
def _patch_args(input: Tensor, fname: str, ndims: tuple[int, ...], kernel_size: Any,  # noqa: A002
                dilation: Any, padding: Any, stride: Any) -> tuple[Any, ...]:
    _check_tensor(input, fname)
    if input.dim() not in ndims:
        raise NotImplementedError(f"Input Error: Only {ndims[0]}D or {ndims[1]}D input Tensors "
                                  f"are supported (got {input.dim()}D)")
    ks, dl = _ntuple(2, "kernel_size")(kernel_size), _ntuple(2, "dilation")(dilation)
    pd, st = _ntuple(2, "padding")(padding), _ntuple(2, "stride")(stride)
    for name, v, lo in (("kernel", ks, 1), ("dilation", dl, 1), ("stride", st, 1),
                        ("padding", pd, 0)):
        if min(v) < lo:
            raise RuntimeError(f"{name} should be greater than "
                               f"{'zero' if lo else 'or equal to zero'}, but got "
                               f"{name}_height: {v[0]} {name}_width: {v[1]}")
    batched = input.dim() == ndims[1]
    return (input if batched else input.unsqueeze(0)), batched, ks, dl, pd, st


def unfold(input: Tensor, kernel_size: int | Sequence[int],  # noqa: A002
           dilation: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
           stride: int | Sequence[int] = 1) -> Tensor:
    """Extract sliding windows (im2col) (``torch.nn.functional.unfold``).

    ``ftrans.nn.unfold``, one ``Im2ColBackward0`` node.

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)``.
    kernel_size : int or sequence of int
        Window size (kh, kw).
    dilation : int or sequence of int, optional
        Spacing of window elements (default 1).
    padding : int or sequence of int, optional
        Zero padding (default 0).
    stride : int or sequence of int, optional
        Step (default 1).

    Returns
    -------
    Tensor
        ``(N, C kh kw, L)``, L the number of windows.
    """
    x, batched, ks, dl, pd, st = _patch_args(input, "unfold", (3, 4), kernel_size, dilation,
                                             padding, stride)
    for L, k, d, p in zip(x.shape[2:], ks, dl, pd):
        if (L + 2 * p - d * (k - 1) - 1) < 0:
            raise RuntimeError(f"Given input with spatial size ({x.shape[2]}, {x.shape[3]}), "
                               f"kernel_size=({ks[0]}, {ks[1]}), dilation=({dl[0]}, {dl[1]}), "
                               f"padding=({pd[0]}, {pd[1]}), calculated shape of the array of "
                               "sliding blocks is non-positive")
    cols = _compose(_Im2ColBackward0, _fnn.unfold, [x], [x._data],
                    {"kernel_size": ks, "dilation": dl, "padding": pd, "stride": st}, mask=0)
    return cols if batched else cols.squeeze(0)


def fold(input: Tensor, output_size: int | Sequence[int],  # noqa: A002
         kernel_size: int | Sequence[int], dilation: int | Sequence[int] = 1,
         padding: int | Sequence[int] = 0, stride: int | Sequence[int] = 1) -> Tensor:
    """Sum sliding windows into an image (col2im, the adjoint of ``unfold``).

    As ``torch.nn.functional.fold``.

    ``ftrans.nn.fold``, one ``Col2ImBackward0`` node.

    Parameters
    ----------
    input : Tensor
        ``(N, C kh kw, L)``.
    output_size : int or sequence of int
        ``(H, W)``.
    kernel_size : int or sequence of int
        Window size (kh, kw).
    dilation : int or sequence of int, optional
        Spacing of window elements (default 1).
    padding : int or sequence of int, optional
        Zero padding (default 0).
    stride : int or sequence of int, optional
        Step (default 1).

    Returns
    -------
    Tensor
        ``(N, C, *output_size)``, overlapping entries summed.
    """
    x, batched, ks, dl, pd, st = _patch_args(input, "fold", (2, 3), kernel_size, dilation,
                                             padding, stride)
    os_ = _ntuple(2, "output_size")(output_size)
    k = ks[0] * ks[1]
    if x.shape[1] % k:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the "
                           f"product of kernel_size, but got input.size(1)={x.shape[1]} and "
                           f"kernel_size=({ks[0]}, {ks[1]})")
    blocks = [(o + 2 * p - d * (kk - 1) - 1) // s + 1
              for o, kk, d, p, s in zip(os_, ks, dl, pd, st)]
    if blocks[0] * blocks[1] != x.shape[2]:
        raise RuntimeError(f"Given output_size=({os_[0]}, {os_[1]}), kernel_size=({ks[0]}, "
                           f"{ks[1]}), dilation=({dl[0]}, {dl[1]}), padding=({pd[0]}, {pd[1]}"
                           f"), stride=({st[0]}, {st[1]}), expected size of input's dimension "
                           f"2 to match the calculated number of sliding blocks {blocks[0]} * "
                           f"{blocks[1]} = {blocks[0] * blocks[1]}, but got input.size(2)="
                           f"{x.shape[2]}.")
    out = _compose(_Col2ImBackward0, _fnn.fold, [x], [x._data],
                   {"output_size": os_, "kernel_size": ks, "dilation": dl, "padding": pd,
                    "stride": st}, mask=0)
    return out if batched else out.squeeze(0)


# ============================================================================== dropout
def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _feature_mask(input: Tensor, p: float, nsp: int, fname: str,  # noqa: A002
                  batched_dims: int) -> Tensor:
    shape = tuple(input.shape[:batched_dims]) + (1,) * (input.dim() - batched_dims)
    return (torch.rand(shape, device=input.device) >= p).to(input.dtype)


def _channel_dropout(nsp: int, fname: str, input: Tensor, p: float, training: bool,  # noqa: A002
                     inplace: bool) -> Tensor:
    _check_p(p)
    if not training or p == 0.0:
        return input
    lead = 2 if input.dim() == nsp + 2 else 1
    if nsp == 2 and input.dim() == 3:   # PyTorch's reading of a 3-d input
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that "
                      "channel-wise 1D dropout behavior is desired - input is interpreted as "
                      "shape (N, C, L), where C is the channel dim. This behavior will change "
                      "in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise "
                      "dropout behavior, please switch to using dropout1d instead.",
                      stacklevel=3)
        lead = 2
    if p == 1.0:
        out = input * 0.0
    else:
        out = input * _feature_mask(input, p, nsp, fname, lead) * (1.0 / (1.0 - p))
    return input.copy_(out) if inplace else out


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,  # noqa: A002
              inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, L)`` with probability ``p``.

    As ``torch.nn.functional.dropout1d``.

    The mask comes from compat's generator, not PyTorch's.

    Parameters
    ----------
    input : Tensor
        ``(N, C, *)`` or unbatched.
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
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a "
                           f"{input.dim()}D input.")
    return _channel_dropout(1, "dropout1d", input, p, training, inplace)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,  # noqa: A002
              inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, H, W)`` with probability ``p``.

    As ``torch.nn.functional.dropout2d``.

    The mask comes from compat's generator, not PyTorch's.

    Parameters
    ----------
    input : Tensor
        ``(N, C, *)`` or unbatched.
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
    return _channel_dropout(2, "dropout2d", input, p, training, inplace)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True,  # noqa: A002
              inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, D, H, W)`` with probability ``p``.

    As ``torch.nn.functional.dropout3d``.

    The mask comes from compat's generator, not PyTorch's.

    Parameters
    ----------
    input : Tensor
        ``(N, C, *)`` or unbatched.
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
    return _channel_dropout(3, "dropout3d", input, p, training, inplace)


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _alpha(input: Tensor, p: float, training: bool, inplace: bool,  # noqa: A002
           feature: bool) -> Tensor:
    _check_p(p)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input.mul(0.0)
    alpha = _SELU_ALPHA * _SELU_SCALE
    a = 1.0 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    if feature:
        shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    else:
        shape = tuple(input.shape)
    keep = (torch.rand(shape, device=input.device) >= p).to(input.dtype)
    b = (keep - 1) * (alpha * a) + alpha * a * p
    out = input * (keep * a) + b
    return input.copy_(out) if inplace else out


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,  # noqa: A002
                  inplace: bool = False) -> Tensor:
    """Dropout that keeps SELU's mean and variance (``torch.nn.functional.alpha_dropout``).

    The mask comes from compat's generator, not PyTorch's.

    Parameters
    ----------
    input : Tensor
        ``(N, C, *)`` or unbatched.
    p : float, optional
        Drop probability in [0, 1] (default 0.5).
    training : bool, optional
        Apply dropout (default False); the identity otherwise.
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
    return _alpha(input, p, training, inplace, False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,  # noqa: A002
                          inplace: bool = False) -> Tensor:
    """``alpha_dropout`` of whole channels (``torch.nn.functional.feature_alpha_dropout``).

    The mask comes from compat's generator, not PyTorch's.

    Parameters
    ----------
    input : Tensor
        ``(N, C, *)`` or unbatched.
    p : float, optional
        Drop probability in [0, 1] (default 0.5).
    training : bool, optional
        Apply dropout (default False); the identity otherwise.
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
    return _alpha(input, p, training, inplace, True)
