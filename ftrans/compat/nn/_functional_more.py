"""More of ``torch.nn.functional`` on compat Tensors: shrink activations, ``glu``,
``rrelu``, pixel/channel shuffles, ``unfold``/``fold``, 3-d pooling, ``max_unpool``,
fractional max pooling, channel dropouts, the non-constant ``pad`` modes and the extra
``interpolate`` modes (see :mod:`ftrans.compat.nn.functional`).

Everything is written with compat Tensor operations (index_select, gather, convolution,
the window reductions), so the graph nodes and their backward passes are those of the
underlying ftrans functions; nothing here defines a derivative.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

import ftrans.compat as torch

from ftrans import nn as _fnn
from ftrans.compat._opbase import _compose
from ftrans.compat.autograd._composite import composite_class
from ._checks import _ntuple, _check_tensor
from ._functional_layers import (_conv_transposend, _max_pool, _avg_pool, _adaptive_avg,
                                 _adaptive_max)
from ._functional_act import leaky_relu
from ._functional_norm import pad as _pad_constant, interpolate as _interpolate_basic, _interp_sizes

__all__ = ["hardshrink", "softshrink", "glu", "rrelu", "pixel_shuffle", "pixel_unshuffle",
           "channel_shuffle", "unfold", "fold", "conv_transpose3d", "max_pool3d",
           "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "max_unpool1d",
           "max_unpool2d", "max_unpool3d", "fractional_max_pool2d", "fractional_max_pool3d",
           "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
           "pad", "interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]


# ============================================================================== activations
def hardshrink(input, lambd=0.5):  # noqa: A002
    """``torch.nn.functional.hardshrink``: ``x`` where ``|x| > lambd``, else 0."""
    _check_tensor(input, "hardshrink")
    inside = (input >= -lambd) & (input <= lambd)
    return torch.where(inside, torch.zeros_like(input), input)


def softshrink(input, lambd=0.5):  # noqa: A002
    """``torch.nn.functional.softshrink``: ``x - lambd`` above ``lambd``, ``x + lambd``
    below ``-lambd``, else 0."""
    _check_tensor(input, "softshrink")
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    zero = torch.zeros_like(input)
    return torch.where(input > lambd, input - lambd,
                       torch.where(input < -lambd, input + lambd, zero))


def glu(input, dim=-1):  # noqa: A002
    """``torch.nn.functional.glu``: ``a * sigmoid(b)`` of the two halves of ``dim``."""
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


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):  # noqa: A002
    """``torch.nn.functional.rrelu``: leaky ReLU with slope ``(lower + upper) / 2`` in
    evaluation; in training a slope drawn from ``U(lower, upper)`` per negative element
    (compat's generator, not PyTorch's)."""
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


def _shuffle_factor(input, factor, fname, what):  # noqa: A002
    _check_tensor(input, fname)
    r = int(factor)
    if input.dim() < 3:
        raise RuntimeError(f"{fname} expects input to have at least 3 dimensions, but got "
                           f"input with {input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"{fname} expects a positive {what}, but got {r}")
    return r


def pixel_shuffle(input, upscale_factor):  # noqa: A002
    """``torch.nn.functional.pixel_shuffle``: ``(*, C r^2, H, W) -> (*, C, H r, W r)``."""
    r = _shuffle_factor(input, upscale_factor, "pixel_shuffle", "upscale_factor")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c}"
                           f" is not divisible by {r * r}")
    return _compose(_PixelShuffleBackward0, _fnn.pixel_shuffle, [input], [input._data],
                    {"upscale_factor": r}, mask=0)


def pixel_unshuffle(input, downscale_factor):  # noqa: A002
    """``torch.nn.functional.pixel_unshuffle``: ``(*, C, H r, W r) -> (*, C r^2, H, W)``."""
    r = _shuffle_factor(input, downscale_factor, "pixel_unshuffle", "downscale_factor")
    *lead, c, h, w = input.shape
    if h % r or w % r:
        which, v = ("height", h) if h % r else ("width", w)
        raise RuntimeError(f"pixel_unshuffle expects {which} to be divisible by "
                           f"downscale_factor, but input.size({-2 if h % r else -1})={v} is "
                           f"not divisible by {r}")
    return _compose(_PixelUnshuffleBackward0, _fnn.pixel_unshuffle, [input], [input._data],
                    {"downscale_factor": r}, mask=0)


def channel_shuffle(input, groups):  # noqa: A002
    """``torch.nn.functional.channel_shuffle``: ``(N, g C', *) -> (N, C' g, *)``
    (channels regrouped)."""
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
def _patch_args(input, fname, ndims, kernel_size, dilation, padding, stride):  # noqa: A002
    """``(batched input, was batched, kernel, dilation, padding, stride)`` of unfold/fold,
    with PyTorch's checks."""
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


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """``torch.nn.functional.unfold`` (im2col): ``(N, C, H, W) -> (N, C kh kw, L)``
    (``ftrans.nn.unfold``, one ``Im2ColBackward0`` node)."""
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


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """``torch.nn.functional.fold`` (col2im, the adjoint of ``unfold``):
    ``(N, C kh kw, L) -> (N, C, *output_size)``, overlapping entries summed
    (``ftrans.nn.fold``, one ``Col2ImBackward0`` node)."""
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


# ============================================================================== 3-d pooling
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,  # noqa: A002
                     groups=1, dilation=1):
    """``torch.nn.functional.conv_transpose3d``."""
    return _conv_transposend(3, "conv_transpose3d", input, weight, bias, stride, padding,
                             output_padding, groups, dilation)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,  # noqa: A002
               return_indices=False):
    """``torch.nn.functional.max_pool3d``."""
    _check_tensor(input, "max_pool3d")
    if input.dim() in (4, 5) and 0 in tuple(input.shape[-4:]):
        raise RuntimeError(f"max_pool3d: Expected input's non-batch dimensions to have "
                           f"positive length, but input has a shape of {list(input.shape)} "
                           f"and non-batch dimension {input.shape[-4:].index(0) + input.dim() - 4}"
                           " has length zero!")
    return _max_pool(3, "max_pool3d", input, kernel_size, stride, padding, dilation,
                     ceil_mode, return_indices)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True, divisor_override=None):
    """``torch.nn.functional.avg_pool3d``."""
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    return _avg_pool(3, "avg_pool3d", input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override)


def _adaptive_checked(nsp, kind, input, output_size, return_indices=False):  # noqa: A002
    """PyTorch's argument checks of adaptive pooling, then the pooling of
    :mod:`._functional_layers` (an empty output for zero-size bins)."""
    fname = f"adaptive_{kind}_pool{nsp}d"
    _check_tensor(input, fname)
    if isinstance(output_size, (list, tuple)):
        if input.dim() <= len(output_size):
            raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
        if len(output_size) != nsp:
            raise RuntimeError(f"{fname}(): internal error: output_size.size() must be {nsp}"
                               if kind == "max" else f"{fname}: output_size must be {nsp}")
    if input.dim() not in (nsp + 1, nsp + 2):
        raise RuntimeError(f"{fname}(): Expected {nsp + 1}D or {nsp + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    sizes = tuple(input.shape[-nsp:])
    out = tuple(L if o is None else int(o) for o, L in zip(
        output_size if isinstance(output_size, (list, tuple)) else (output_size,) * nsp, sizes))
    if any(o < 0 for o in out):
        raise RuntimeError(f"{fname}(): elements of output_size must be greater than or equal "
                           f"to 0 but received {out}" if kind == "avg" else
                           f"Trying to create tensor with negative dimension {min(out)}: "
                           f"{list(input.shape[:-nsp]) + list(out)}")
    if 0 in out or 0 in sizes:
        lead = tuple(input.shape[:-nsp])
        empty = torch.zeros(0, dtype=torch.int64, device=input.device)
        flat = input.reshape(lead + (int(np.prod(sizes)),)).index_select(-1, empty)
        res = flat.reshape(lead + out) if 0 in out else torch.zeros(
            lead + out, dtype=input.dtype, device=input.device)
        if kind == "max" and return_indices:
            return res, torch.zeros(lead + out, dtype=torch.int64, device=input.device)
        return res
    if kind == "avg":
        return _adaptive_avg(nsp, input, out)
    return _adaptive_max(nsp, input, out, return_indices)


def adaptive_avg_pool1d(input, output_size):  # noqa: A002
    """``torch.nn.functional.adaptive_avg_pool1d``."""
    return _adaptive_checked(1, "avg", input, output_size)


def adaptive_avg_pool2d(input, output_size):  # noqa: A002
    """``torch.nn.functional.adaptive_avg_pool2d``: average pooling to ``output_size``
    with PyTorch's bins ``[floor(i L / o), ceil((i + 1) L / o))``."""
    return _adaptive_checked(2, "avg", input, output_size)


def adaptive_avg_pool3d(input, output_size):  # noqa: A002
    """``torch.nn.functional.adaptive_avg_pool3d``."""
    return _adaptive_checked(3, "avg", input, output_size)


def adaptive_max_pool1d(input, output_size, return_indices=False):  # noqa: A002
    """``torch.nn.functional.adaptive_max_pool1d``."""
    return _adaptive_checked(1, "max", input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    """``torch.nn.functional.adaptive_max_pool2d``: the gradient goes to each bin's first
    maximum."""
    return _adaptive_checked(2, "max", input, output_size, return_indices)


def adaptive_max_pool3d(input, output_size, return_indices=False):  # noqa: A002
    """``torch.nn.functional.adaptive_max_pool3d``."""
    return _adaptive_checked(3, "max", input, output_size, return_indices)


# ============================================================================== max_unpool
_UNPOOL_NODES = {k: composite_class(f"MaxUnpool{k}DBackward0", ("self", "indices"))
                 for k in (2, 3)}


def _max_unpool(nsp, input, indices, kernel_size, stride, padding, output_size):  # noqa: A002
    ks = _ntuple(nsp, "kernel_size")(kernel_size)
    st = ks if stride is None else _ntuple(nsp, "stride")(stride)
    pd = _ntuple(nsp, "padding")(padding)
    if indices.dtype != torch.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {indices.dtype}")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    default = [(L - 1) * s + k - 2 * p
               for L, s, k, p in zip(input.shape[-nsp:], st, ks, pd)]
    if output_size is None:
        out = default
    else:
        out = list(output_size)[-nsp:] if len(output_size) in (nsp, nsp + 1, nsp + 2) else None
        if out is None:
            raise ValueError(f"output_size should be a sequence containing {nsp} or "
                             f"{nsp + 2} elements, but it has a length of '{len(output_size)}'")
        for o, dflt, s in zip(out, default, st):
            if not dflt - s < o < dflt + s:
                raise ValueError(f"invalid output_size \"{out}\" (dim {out.index(o)} must be "
                                 f"between {dflt - s} and {dflt + s})")
    lead = tuple(input.shape[:-nsp])
    plane = int(np.prod(out))
    idx = indices.reshape(lead + (-1,))
    if idx.numel() and (int(idx.min()) < 0 or int(idx.max()) >= plane):
        raise RuntimeError(f"Found an invalid max index: {int(idx.max())} (output volumes are "
                           f"of size {'x'.join(map(str, out))}")
    return _compose(_UNPOOL_NODES[max(nsp, 2)], _fnn.max_unpool, [input, indices],
                    [input._data, indices._data], {"output_size": tuple(out)}, mask=2)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    """``torch.nn.functional.max_unpool1d``: each value placed at its index of the output
    plane, zeros elsewhere (the inverse of ``max_pool1d(..., return_indices=True)``)."""
    return _max_unpool(1, input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    """``torch.nn.functional.max_unpool2d``."""
    return _max_unpool(2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    """``torch.nn.functional.max_unpool3d``."""
    return _max_unpool(3, input, indices, kernel_size, stride, padding, output_size)


# ============================================================================== fractional pooling
def _intervals(sample, L, o, k):
    """PyTorch's fractional max-pool window starts for one plane and axis."""
    if o == 1:
        return np.array([L - k], np.int64)
    alpha = (L - k) / (o - 1)
    seq = np.array([int((i + sample) * alpha) - int(sample * alpha) for i in range(o - 1)]
                   + [L - k], np.int64)
    return seq


def _fractional(nsp, input, kernel_size, output_size, output_ratio, return_indices,  # noqa: A002
                samples):
    fname = f"fractional_max_pool{nsp}d"
    ks = _ntuple(nsp, "kernel_size")(kernel_size)
    if output_size is None and output_ratio is None:
        raise ValueError(f"{fname} requires specifying either an output_size or an "
                         "output_ratio")
    batched = input.dim() == nsp + 2
    if input.dim() not in (nsp + 1, nsp + 2):
        raise RuntimeError(f"{fname}(): Expected {nsp + 1}D or {nsp + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    x = input if batched else input.unsqueeze(0)
    sizes = tuple(x.shape[2:])
    if output_size is None:
        ratio = tuple(output_ratio) if isinstance(output_ratio, (list, tuple)) \
            else (output_ratio,)
        ratio = tuple(float(r) for r in (ratio if len(ratio) == nsp else ratio * nsp))
        out = tuple(int(L * r) for L, r in zip(sizes, ratio))
    else:
        out = _ntuple(nsp, "output_size")(output_size)
    for L, o, k in zip(sizes, out, ks):
        if o + k - 1 > L:
            raise RuntimeError(f"{fname}(): pool size {k} and output size {o} are too large "
                               f"for input size {L}")
    n, c = x.shape[0], x.shape[1]
    if samples is None:
        samples = torch.rand((n, c, nsp), dtype=x.dtype, device=x.device)
    s = samples.numpy(force=True).astype(np.float64)
    # PyTorch's sample order: width first (2-d: [W, H]; 3-d: [T, H, W])
    order = (1, 0) if nsp == 2 else (0, 1, 2)
    strides = [int(np.prod(sizes[i + 1:])) for i in range(nsp)]
    offs = np.zeros((1,), np.int64)
    for i in range(nsp):   # offsets within one window, row-major
        offs = (offs[:, None] + np.arange(ks[i]) * strides[i]).reshape(-1)
    table = np.zeros((n, c) + out + (offs.size,), np.int64)
    for b in range(n):
        for ch in range(c):
            start = np.zeros((), np.int64)
            for i in range(nsp):
                seq = _intervals(s[b, ch, order[i]], sizes[i], out[i], ks[i]) * strides[i]
                start = np.add.outer(start, seq)
            table[b, ch] = start[..., None] + offs
    plane = int(np.prod(sizes))
    tt = torch.as_tensor(table.reshape(n, c, int(np.prod(out)) * offs.size), device=x.device)
    vals = x.reshape(n, c, plane).gather(2, tt).reshape((n, c) + out + (offs.size,))
    best, arg = vals.max(dim=-1)
    if not batched:
        best = best.squeeze(0)
    if not return_indices:
        return best
    idx = np.take_along_axis(table, arg.numpy(force=True)[..., None], -1)[..., 0]
    idx = torch.as_tensor(idx if batched else idx[0], device=x.device)
    return best, idx


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                          return_indices=False, _random_samples=None):
    """``torch.nn.functional.fractional_max_pool2d``; without ``_random_samples`` the
    window offsets come from compat's generator (not PyTorch's)."""
    return _fractional(2, input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                          return_indices=False, _random_samples=None):
    """``torch.nn.functional.fractional_max_pool3d`` (random offsets as in
    ``fractional_max_pool2d``)."""
    return _fractional(3, input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples)


# ============================================================================== dropout
def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _feature_mask(input, p, nsp, fname, batched_dims):  # noqa: A002
    """Keep-mask of shape ``(N, C, 1, ...)`` (one draw per channel)."""
    shape = tuple(input.shape[:batched_dims]) + (1,) * (input.dim() - batched_dims)
    return (torch.rand(shape, device=input.device) >= p).to(input.dtype)


def _channel_dropout(nsp, fname, input, p, training, inplace):  # noqa: A002
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


def dropout1d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """``torch.nn.functional.dropout1d``: whole channels of ``(N, C, L)`` zeroed."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a "
                           f"{input.dim()}D input.")
    return _channel_dropout(1, "dropout1d", input, p, training, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """``torch.nn.functional.dropout2d``: whole channels of ``(N, C, H, W)`` zeroed
    (compat's generator)."""
    return _channel_dropout(2, "dropout2d", input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """``torch.nn.functional.dropout3d``: whole channels of ``(N, C, D, H, W)`` zeroed."""
    return _channel_dropout(3, "dropout3d", input, p, training, inplace)


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _alpha(input, p, training, inplace, feature):  # noqa: A002
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


def alpha_dropout(input, p=0.5, training=False, inplace=False):  # noqa: A002
    """``torch.nn.functional.alpha_dropout`` (keeps SELU's mean and variance; compat's
    generator)."""
    return _alpha(input, p, training, inplace, False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):  # noqa: A002
    """``torch.nn.functional.feature_alpha_dropout``: ``alpha_dropout`` of whole
    channels."""
    return _alpha(input, p, training, inplace, True)


# ============================================================================== pad
def _pad_index(L, lo, hi, mode, dim, shape, pad):
    src = np.arange(-lo, L + hi)
    if mode == "reflect":
        if lo >= L or hi >= L:
            raise RuntimeError(f"Argument #4: Padding size should be less than the "
                               f"corresponding input dimension, but got: padding ({lo}, {hi}) "
                               f"at dimension {dim} of input {list(shape)}")
        src = np.abs(src)
        src = np.where(src >= L, 2 * (L - 1) - src, src)
    elif mode == "replicate":
        if L == 0 and src.size:
            raise RuntimeError(f"padding size is expected to be 0 with an empty input "
                               f"dimension {dim} of input {list(shape)}")
        src = np.clip(src, 0, L - 1)
    else:   # circular: negative pads crop first, the positive ones wrap the rest
        c0, c1 = max(-lo, 0), max(-hi, 0)
        lc = L - c0 - c1
        if lo > lc or hi > lc:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        src = c0 + np.mod(np.arange(-max(lo, 0), lc + max(hi, 0)), max(lc, 1))
    return src.astype(np.int64)


def _reversed_padding(padding, kernel_size, dilation):
    """``Conv*d._reversed_padding_repeated_twice``: the per-axis padding of a convolution
    (ints or 'same'/'valid') as ``F.pad``'s ``(left_last, right_last, ...)``."""
    out = []
    for i, (k, d) in enumerate(zip(kernel_size, dilation)):
        if padding == "valid":
            lo = hi = 0
        elif padding == "same":
            total = d * (k - 1)
            lo, hi = total // 2, total - total // 2
        else:
            lo = hi = padding[i]
        out.append((lo, hi))
    return tuple(v for lo_hi in reversed(out) for v in lo_hi)


def pad(input, pad, mode="constant", value=None):  # noqa: A002
    """``torch.nn.functional.pad``: ``pad = (left_last, right_last, left_prev, ...)``;
    modes 'constant' (``value``), 'reflect', 'replicate' and 'circular' (these over the
    last 1-3 axes of a batched or unbatched input)."""
    if mode == "constant":
        return _pad_constant(input, pad, mode, value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    k = len(pad) // 2
    if k > 3 or input.dim() not in (k + 1, k + 2):
        raise NotImplementedError("Only 2D, 3D, 4D, 5D padding with non-constant padding are "
                                  f"supported for now (got a {input.dim()}D input and "
                                  f"{len(pad)} padding values)")
    out = input
    for i in range(k):
        dim = input.dim() - 1 - i
        lo, hi = int(pad[2 * i]), int(pad[2 * i + 1])
        idx = _pad_index(input.shape[dim], lo, hi, mode, dim, input.shape, pad)
        out = out.index_select(dim, torch.as_tensor(idx, device=input.device))
    return out


# ============================================================================== interpolate
def _cubic_matrix(L, o, scale, align_corners, dtype):
    """``(o, L)`` matrix of PyTorch's bicubic weights (``A = -0.75``, clamped taps)."""
    A = -0.75
    m = np.zeros((o, L), dtype)
    for i in range(o):
        if align_corners:
            src = i * (L - 1) / (o - 1) if o > 1 else 0.0
        else:
            src = (i + 0.5) * scale - 0.5
        f = math.floor(src)
        t = src - f
        ws = [((A * (t + 1) - 5 * A) * (t + 1) + 8 * A) * (t + 1) - 4 * A,
              ((A + 2) * t - (A + 3)) * t * t + 1,
              ((A + 2) * (1 - t) - (A + 3)) * (1 - t) * (1 - t) + 1]
        ws.append(1.0 - ws[0] - ws[1] - ws[2])
        for j, w in enumerate(ws):
            m[i, min(max(f - 1 + j, 0), L - 1)] += w
    return m


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,  # noqa: A002
                recompute_scale_factor=None, antialias=False):
    """``torch.nn.functional.interpolate``: modes 'nearest', 'nearest-exact' (source
    ``floor((dst + 0.5) scale)``), 'linear', 'bilinear', 'trilinear', 'bicubic' (PyTorch's
    cubic convolution, ``A = -0.75``) and 'area' (adaptive average pooling).
    ``antialias=True`` raises NotImplementedError."""
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported by "
                                  "ftrans.compat")
    if mode not in ("nearest-exact", "bicubic", "area"):
        return _interpolate_basic(input, size, scale_factor, mode, align_corners,
                                  recompute_scale_factor)
    nsp = input.dim() - 2
    if mode != "bicubic" and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if nsp < 1:
        raise ValueError(f"interpolate expects (N, C, *spatial) input, got {input.dim()}D")
    sp, out, scales = _interp_sizes(input, size, scale_factor, nsp)
    if recompute_scale_factor and scale_factor is not None:
        scales = [L / o for L, o in zip(sp, out)]
    if mode == "area":
        return _adaptive_avg(nsp, input, out)
    y = input
    if mode == "nearest-exact":
        for i, (L, o, sc) in enumerate(zip(sp, out, scales)):
            src = np.floor((np.arange(o) + 0.5) * np.float32(sc)).astype(np.int64)
            y = y.index_select(2 + i, torch.as_tensor(np.minimum(src, L - 1),
                                                      device=input.device))
        return y
    if nsp != 2:
        raise NotImplementedError(f"Got {input.dim()}D input, but bicubic mode needs 4D input")
    for i, (L, o, sc) in enumerate(zip(sp, out, scales)):
        m = torch.as_tensor(_cubic_matrix(L, o, sc, bool(align_corners), np.float64),
                            dtype=y.dtype, device=y.device)
        y = y.movedim(2 + i, -1).matmul(m.t()).movedim(-1, 2 + i)
    return y


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):  # noqa: A002
    """``torch.nn.functional.upsample`` (deprecated alias of ``interpolate``)."""
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):  # noqa: A002
    """``torch.nn.functional.upsample_nearest``: ``interpolate(mode='nearest')``."""
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):  # noqa: A002
    """``torch.nn.functional.upsample_bilinear``: ``interpolate(mode='bilinear',
    align_corners=True)``."""
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
