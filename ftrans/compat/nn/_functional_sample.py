"""``torch.nn.functional.grid_sample`` and the ``torch.*`` functions behind parts of
``nn.functional`` (``grid_sampler_2d/3d``, ``constant_pad_nd``, ``native_batch_norm``,
``native_layer_norm``, ``native_group_norm``) on compat Tensors.

Sampling is ``ftrans.nn.grid_sample`` (one ``GridSampler2DBackward0`` /
``GridSampler3DBackward0`` node); the normalizations are compat Tensor operations.  No
derivative is written here.
"""
from __future__ import annotations

import ftrans.compat as torch
from ftrans import nn as _fnn
from ftrans.compat._opbase import _compose
from ftrans.compat.autograd._composite import composite_class

from ._checks import _check_tensor
from ._functional_norm import pad as _pad_constant, batch_norm

__all__ = ["grid_sample"]

#: torch.* functions defined here (installed into ftrans.compat by ftrans.compat.nn)
TOPLEVEL_NAMES = ["grid_sampler", "grid_sampler_2d", "grid_sampler_3d", "constant_pad_nd",
                  "native_batch_norm", "native_layer_norm", "native_group_norm"]

_MODES = _fnn.grid.MODES
_PADS = _fnn.grid.PADDING_MODES


_GRID_NODES = {k: composite_class(f"GridSampler{k}DBackward0", ("input", "grid"))
               for k in (2, 3)}


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
    """``torch.grid_sampler``: ``grid_sample`` with integer mode codes (interpolation
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
    return _compose(_GRID_NODES[nsp], _fnn.grid_sample, [input, grid],
                    [input._data, grid._data],
                    {"mode": _MODES[interpolation_mode], "padding_mode": _PADS[padding_mode],
                     "align_corners": bool(align_corners)})


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
