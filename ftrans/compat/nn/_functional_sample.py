"""``torch.nn.functional.grid_sample`` and the ``torch.*`` functions behind parts of
``nn.functional`` (``grid_sampler_2d/3d``, ``constant_pad_nd``, ``native_batch_norm``,
``native_layer_norm``, ``native_group_norm``) on compat Tensors.

Sampling is ``ftrans.nn.grid_sample`` (one ``GridSampler2DBackward0`` /
``GridSampler3DBackward0`` node); the normalizations are compat Tensor operations.  No
derivative is written here.
"""
from __future__ import annotations

from collections.abc import Sequence

import ftrans.compat as torch
from ..types import Tensor
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


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:  # noqa: A002
    """Sample ``input`` at the ``grid`` locations (``torch.nn.functional.grid_sample``).

    ``ftrans.nn.grid_sample``, one ``GridSampler2DBackward0`` / ``GridSampler3DBackward0`` node.

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
    grid : Tensor
        ``(N, H_o, W_o, 2)`` (or ``(N, D_o, H_o, W_o, 3)``): x, y(, z) in ``[-1, 1]``.
    mode : str, optional
        ``'bilinear'`` (default), ``'nearest'`` (round half to even) or ``'bicubic'`` (2-d).
    padding_mode : str, optional
        ``'zeros'`` (default), ``'border'`` or ``'reflection'``.
    align_corners : bool, optional
        -1 and 1 are the corner pixels' centres (default False: their outer edges).

    Returns
    -------
    Tensor
        ``(N, C, H_o, W_o)`` (or ``(N, C, D_o, H_o, W_o)``).

    Raises
    ------
    ValueError
        For an unknown ``mode`` or ``padding_mode``.
    RuntimeError
        For mismatched dtypes, ranks or batch sizes, or empty spatial axes.
    """
    if mode not in _MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in _PADS:
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    return grid_sampler(input, grid, _MODES.index(mode), _PADS.index(padding_mode),
                        bool(align_corners))


def grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
             align_corners: bool) -> Tensor:  # noqa: A002
    """``grid_sample`` with integer mode codes (``torch.grid_sampler``).

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
    grid : Tensor
        ``(N, H_o, W_o, 2)`` (or ``(N, D_o, H_o, W_o, 3)``): x, y(, z) in ``[-1, 1]``, same dtype.
    interpolation_mode : int
        0 bilinear, 1 nearest, 2 bicubic (2-d only).
    padding_mode : int
        0 zeros, 1 border, 2 reflection.
    align_corners : bool
        -1 and 1 are the corner pixels' centres (else their outer edges).

    Returns
    -------
    Tensor
        ``(N, C, H_o, W_o)`` (or ``(N, C, D_o, H_o, W_o)``).

    Raises
    ------
    RuntimeError
        For mismatched dtypes, ranks or batch sizes, or empty spatial axes.
    """
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


def grid_sampler_2d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                align_corners: bool) -> Tensor:  # noqa: A002
    """``grid_sampler`` of a 4-d input (``torch.grid_sampler_2d``).

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
    grid : Tensor
        ``(N, H_o, W_o, 2)`` (or ``(N, D_o, H_o, W_o, 3)``): x, y(, z) in ``[-1, 1]``, same dtype.
    interpolation_mode : int
        0 bilinear, 1 nearest, 2 bicubic (2-d only).
    padding_mode : int
        0 zeros, 1 border, 2 reflection.
    align_corners : bool
        -1 and 1 are the corner pixels' centres (else their outer edges).

    Returns
    -------
    Tensor
        ``(N, C, H_o, W_o)`` (or ``(N, C, D_o, H_o, W_o)``).

    Raises
    ------
    RuntimeError
        For mismatched dtypes, ranks or batch sizes, or empty spatial axes.
    """
    if input.dim() != 4:
        raise RuntimeError(f"grid_sampler_2d(): expected 4D input, got {input.dim()}D")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                align_corners: bool) -> Tensor:  # noqa: A002
    """``grid_sampler`` of a 5-d input (``torch.grid_sampler_3d``).

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
    grid : Tensor
        ``(N, H_o, W_o, 2)`` (or ``(N, D_o, H_o, W_o, 3)``): x, y(, z) in ``[-1, 1]``, same dtype.
    interpolation_mode : int
        0 bilinear, 1 nearest, 2 bicubic (2-d only).
    padding_mode : int
        0 zeros, 1 border, 2 reflection.
    align_corners : bool
        -1 and 1 are the corner pixels' centres (else their outer edges).

    Returns
    -------
    Tensor
        ``(N, C, H_o, W_o)`` (or ``(N, C, D_o, H_o, W_o)``).

    Raises
    ------
    RuntimeError
        For mismatched dtypes, ranks or batch sizes, or empty spatial axes.
    """
    if input.dim() != 5:
        raise RuntimeError(f"grid_sampler_3d(): expected 5D input, got {input.dim()}D")
    return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


# ============================================================================== torch.* helpers
def constant_pad_nd(input: Tensor, pad: Sequence[int], value: float = 0) -> Tensor:  # noqa: A002
    """``nn.functional.pad(input, pad, 'constant', value)`` (``torch.constant_pad_nd``).

    Parameters
    ----------
    input : Tensor
        Any shape.
    pad : sequence of int
        ``(left_last, right_last, left_prev, ...)``, even length; negative amounts crop.
    value : float, optional
        The fill value (default 0).

    Returns
    -------
    Tensor
        The padded tensor.

    Raises
    ------
    RuntimeError
        For an odd ``pad`` length, too many padded axes or a negative output size.
    """
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


def _stats(x: Tensor, dims: tuple[int, ...], eps: float) -> tuple[Tensor, Tensor]:
    mean = x.mean(dims, keepdim=True)
    var = ((x - mean) ** 2).mean(dims, keepdim=True)
    return mean, torch.rsqrt(var + eps)


def native_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                      running_mean: Tensor | None, running_var: Tensor | None, training: bool,
                      momentum: float, eps: float) -> tuple[Tensor, Tensor, Tensor]:  # noqa: A002
    """Batch norm with its saved statistics (``torch.native_batch_norm``).

    Parameters
    ----------
    input : Tensor
        ``(N, C, *)``.
    weight : Tensor or None
        ``(C,)`` scale.
    bias : Tensor or None
        ``(C,)`` shift.
    running_mean : Tensor or None
        ``(C,)``, updated in place in training.
    running_var : Tensor or None
        ``(C,)``, updated in place in training.
    training : bool
        Use the batch statistics.
    momentum : float
        Weight of the new statistic in the running averages.
    eps : float
        Added to the variance.

    Returns
    -------
    output : Tensor
        Same shape as ``input``.
    save_mean : Tensor
        ``(C,)`` batch mean in training, empty otherwise (as on PyTorch's CPU).
    save_invstd : Tensor
        ``(C,)`` batch ``1 / sqrt(var + eps)`` in training, empty otherwise.
    """
    out = batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training:
        e = torch.zeros(0, dtype=input.dtype, device=input.device)
        return out, e, e.clone()
    dims = (0,) + tuple(range(2, input.dim()))
    mean, rstd = _stats(input.detach(), dims, eps)
    return out, mean.reshape(-1), rstd.reshape(-1)


def native_layer_norm(input: Tensor, normalized_shape: Sequence[int],  # noqa: A002
                      weight: Tensor | None, bias: Tensor | None,
                      eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """Layer norm with its statistics (``torch.native_layer_norm``).

    Parameters
    ----------
    input : Tensor
        ``(*, *normalized_shape)``.
    normalized_shape : sequence of int
        The trailing shape, at least one axis.
    weight : Tensor or None
        Scale of ``normalized_shape``.
    bias : Tensor or None
        Shift of ``normalized_shape``.
    eps : float
        Added to the variance.

    Returns
    -------
    output : Tensor
        Same shape as ``input``.
    mean : Tensor
        With the normalized axes kept as size 1.
    rstd : Tensor
        ``1 / sqrt(var + eps)``, likewise.

    Raises
    ------
    RuntimeError
        For an empty ``normalized_shape`` or a mismatched input shape.
    """
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


def native_group_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,  # noqa: A002
                      N: int, C: int, HxW: int, group: int,
                      eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """Group norm with its statistics (``torch.native_group_norm``).

    Parameters
    ----------
    input : Tensor
        ``(N, C, *)``.
    weight : Tensor or None
        ``(C,)`` scale.
    bias : Tensor or None
        ``(C,)`` shift.
    N : int
        Batch size.
    C : int
        Channels.
    HxW : int
        Spatial size (product).
    group : int
        Number of groups; must divide C.
    eps : float
        Added to the variance.

    Returns
    -------
    output : Tensor
        Same shape as ``input``.
    mean : Tensor
        ``(N, group)``.
    rstd : Tensor
        ``(N, group)``.

    Raises
    ------
    RuntimeError
        If ``group`` does not divide C.
    """
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
