"""``torch.nn.functional.grid_sample`` and the ``torch.*`` functions behind parts of
``nn.functional`` (``grid_sampler_2d/3d``, ``constant_pad_nd``, ``native_batch_norm``,
``native_layer_norm``, ``native_group_norm``) on compat Tensors.

Sampling is a gather of the input at the integer taps around each source point, weighted
by products of (linear or cubic) coefficients of the fractional offsets: the gradient
with respect to the grid flows through the coefficients, the one with respect to the
input through the gather, as in PyTorch's kernels.  No derivative is written here.
"""
from __future__ import annotations

import itertools

import numpy as np

import ftrans.compat as torch

from ._functional_layers import _check_tensor, pad as _pad_constant, batch_norm

__all__ = ["grid_sample"]

#: torch.* functions defined here (installed into ftrans.compat by ftrans.compat.nn)
TOPLEVEL_NAMES = ["grid_sampler", "grid_sampler_2d", "grid_sampler_3d", "constant_pad_nd",
                  "native_batch_norm", "native_layer_norm", "native_group_norm"]

_MODES = ("bilinear", "nearest", "bicubic")
_PADS = ("zeros", "border", "reflection")
_A = -0.75


def _clip(x, size):
    """``min(size - 1, max(x, 0))`` with derivative 0 outside (and on) the bounds."""
    zero = torch.zeros_like(x)
    return torch.where(x <= 0, zero, torch.where(x >= size - 1, zero + (size - 1), x))


def _reflect(x, twice_low, twice_high):
    if twice_low == twice_high:
        return torch.zeros_like(x)
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    d = x - lo
    d = torch.where(d < 0, -d, d)
    flips = torch.floor(d.detach() / span)
    extra = d - flips * span
    even = torch.remainder(flips, 2) == 0
    return torch.where(even, extra + lo, span - extra + lo)


def _padded(x, size, padding_mode, align_corners):
    if padding_mode == "border":
        return _clip(x, size)
    if padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        return _clip(x, size)
    return x


def _unnormalize(c, size, align_corners):
    return (c + 1) / 2 * (size - 1) if align_corners else ((c + 1) * size - 1) / 2


def _cubic(t):
    """PyTorch's four cubic-convolution coefficients for fractional offset ``t``."""
    def c1(x):
        return ((_A + 2) * x - (_A + 3)) * x * x + 1

    def c2(x):
        return ((_A * x - 5 * _A) * x + 8 * _A) * x - 4 * _A
    return [c2(t + 1), c1(t), c1(1 - t), c2(2 - t)]


def _reflect_np(x, twice_low, twice_high):
    if twice_low == twice_high:
        return np.zeros_like(x)
    lo, span = twice_low / 2, (twice_high - twice_low) / 2
    d = np.abs(x - lo)
    flips = np.floor(d / span)
    extra = d - flips * span
    return np.where(flips % 2 == 0, extra + lo, span - extra + lo)


def _tap_np(i, size, padding_mode, align_corners):
    """Integer tap coordinates after padding (bicubic's ``get_value_bounded``)."""
    x = i.astype(np.float64)
    if padding_mode == "border":
        x = np.clip(x, 0, size - 1)
    elif padding_mode == "reflection":
        x = _reflect_np(x, 0, 2 * (size - 1)) if align_corners else \
            _reflect_np(x, -1, 2 * size - 1)
        x = np.clip(x, 0, size - 1)
    return x.astype(np.int64)


def _sample(input, grid, mode, padding_mode, align_corners):  # noqa: A002
    nsp = input.dim() - 2
    n, c = input.shape[0], input.shape[1]
    sizes = tuple(input.shape[2:])
    out_sp = tuple(grid.shape[1:-1])
    q = int(np.prod(out_sp))
    g = grid.reshape(n, q, nsp)
    strides = [int(np.prod(sizes[a + 1:])) for a in range(nsp)]
    flat = input.reshape(n, c, int(np.prod(sizes)))
    src = []
    for a in range(nsp):
        x = _unnormalize(g[:, :, nsp - 1 - a], sizes[a], align_corners)
        src.append(x if mode == "bicubic" else _padded(x, sizes[a], padding_mode, align_corners))
    taps_per_axis = []   # per axis: list of (integer index array, weight tensor or None)
    for a in range(nsp):
        xd = src[a].detach().numpy(force=True)
        if mode == "nearest":   # weight 1 with a zero derivative (PyTorch's zero grid grad)
            taps_per_axis.append([(np.rint(xd).astype(np.int64),
                                   (src[a] - src[a].detach()) * 0 + 1)])
            continue
        f = np.floor(xd)
        t = src[a] - torch.as_tensor(f, dtype=src[a].dtype)
        f = f.astype(np.int64)
        if mode == "bilinear":
            taps_per_axis.append([(f, 1 - t), (f + 1, t)])
        else:
            taps_per_axis.append([(_tap_np(f - 1 + k, sizes[a], padding_mode, align_corners), w)
                                  for k, w in enumerate(_cubic(t))])
    out = None
    for combo in itertools.product(*taps_per_axis):
        valid = np.ones((n, q), bool)
        pos = np.zeros((n, q), np.int64)
        w = None
        for a, (i, wa) in enumerate(combo):
            valid &= (i >= 0) & (i < sizes[a])
            pos += np.clip(i, 0, sizes[a] - 1) * strides[a]
            if wa is not None:
                w = wa if w is None else w * wa
        idx = torch.as_tensor(pos).unsqueeze(1).expand(n, c, q)
        v = flat.gather(2, idx)
        v = torch.where(torch.as_tensor(valid).unsqueeze(1), v, torch.zeros_like(v))
        term = v if w is None else v * w.unsqueeze(1)
        out = term if out is None else out + term
    return out.reshape((n, c) + out_sp)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):  # noqa: A002
    """``torch.nn.functional.grid_sample``: ``input (N, C, H, W)`` sampled at ``grid (N,
    H_o, W_o, 2)`` (x, y in ``[-1, 1]``), or the 3-d analogue; modes 'bilinear',
    'nearest' (round half to even) and 'bicubic' (2-d); padding 'zeros', 'border',
    'reflection'."""
    if mode not in _MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in _PADS:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    return grid_sampler(input, grid, _MODES.index(mode), _PADS.index(padding_mode),
                        bool(align_corners))


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):  # noqa: A002
    """``torch.grid_sampler``: :func:`grid_sample` with integer mode codes (interpolation
    0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection)."""
    _check_tensor(input, "grid_sampler")
    _check_tensor(grid, "grid_sampler", "grid")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have same dtype, but "
                           f"input has {input.dtype} and grid has {grid.dtype}")
    if input.dim() not in (4, 5) or grid.dim() != input.dim():
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same "
                           f"number of dimensions, but got input with sizes "
                           f"{list(input.shape)} and grid with sizes {list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {list(input.shape)} and grid with sizes "
                           f"{list(grid.shape)}")
    nsp = input.dim() - 2
    if grid.shape[-1] != nsp:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {nsp} in last "
                           f"dimension, but got grid with sizes {list(grid.shape)}")
    if any(s == 0 for s in input.shape[2:]):
        raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial "
                           f"dimensions, but input has sizes {list(input.shape)} with "
                           f"dimension {[i for i, s in enumerate(input.shape) if s == 0][0]} "
                           "being empty")
    if interpolation_mode == 2 and nsp != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    return _sample(input, grid, _MODES[interpolation_mode], _PADS[padding_mode],
                   bool(align_corners))


def grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners):  # noqa: A002
    """``torch.grid_sampler_2d``."""
    if input.dim() != 4:
        raise RuntimeError(f"grid_sampler_2d(): expected 4D input, got {input.dim()}D")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input, grid, interpolation_mode, padding_mode, align_corners):  # noqa: A002
    """``torch.grid_sampler_3d``."""
    if input.dim() != 5:
        raise RuntimeError(f"grid_sampler_3d(): expected 5D input, got {input.dim()}D")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


# ============================================================================== torch.* helpers
def constant_pad_nd(input, pad, value=0):  # noqa: A002
    """``torch.constant_pad_nd``: ``nn.functional.pad(input, pad, 'constant', value)``."""
    _check_tensor(input, "constant_pad_nd")
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) // 2 > input.dim():
        raise RuntimeError(f"Length of pad should be no more than twice the number of "
                           f"dimensions of the input. Pad length is {len(pad)} while the input "
                           f"has {input.dim()} dimensions.")
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        if input.shape[dim] + pad[2 * i] + pad[2 * i + 1] < 0:
            raise RuntimeError(f"The input size {input.shape[dim]}, plus negative padding "
                               f"{pad[2 * i]} and {pad[2 * i + 1]} resulted in a negative "
                               f"output size, which is invalid. Check dimension {dim} of your "
                               "input.")
    return _pad_constant(input, pad, "constant", value)


def _stats(x, dims, eps):
    mean = x.mean(dims, keepdim=True)
    var = ((x - mean) ** 2).mean(dims, keepdim=True)
    return mean, torch.rsqrt(var + eps)


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum,  # noqa: A002
                      eps):
    """``torch.native_batch_norm``: ``(output, save_mean, save_invstd)``; the saved
    statistics are the batch's in training and empty tensors otherwise (as on PyTorch's
    CPU)."""
    out = batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training:
        e = torch.zeros(0, dtype=input.dtype, device=input.device)
        return out, e, e.clone()
    dims = (0,) + tuple(range(2, input.dim()))
    mean, rstd = _stats(input.detach(), dims, eps)
    return out, mean.reshape(-1), rstd.reshape(-1)


def native_layer_norm(input, normalized_shape, weight, bias, eps):  # noqa: A002
    """``torch.native_layer_norm``: ``(output, mean, rstd)``, the statistics with the
    normalized dimensions kept as size 1."""
    k = len(normalized_shape)
    if k == 0:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    if tuple(input.shape[input.dim() - k:]) != tuple(normalized_shape):
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input "
                           f"with shape [*, {', '.join(map(str, normalized_shape))}], but got "
                           f"input of size{list(input.shape)}")
    dims = tuple(range(input.dim() - k, input.dim()))
    mean, rstd = _stats(input, dims, eps)
    out = (input - mean) * rstd
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out, mean.detach(), rstd.detach()


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):  # noqa: A002
    """``torch.native_group_norm``: ``(output, mean (N, group), rstd (N, group))``."""
    if C % group:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={group}")
    x = input.reshape(N, group, (C // group) * HxW)
    mean, rstd = _stats(x, (2,), eps)
    out = ((x - mean) * rstd).reshape(input.shape)
    shape = (1, C) + (1,) * (input.dim() - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out, mean.reshape(N, group), rstd.reshape(N, group)
