"""``torch.nn.functional``'s ``pad``, ``interpolate`` and the ``upsample`` aliases on
compat Tensors (re-exported by :mod:`._functional_more`; the public namespace:
:mod:`ftrans.compat.nn.functional`)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import math

import numpy as np

import ftrans.compat as torch
from ._functional_layers import _adaptive_avg
from ..types import Tensor

from ._functional_norm import pad as _pad_constant, interpolate as _interpolate_basic, _interp_sizes


# ============================================================================== pad
def _pad_index(L: int, lo: int, hi: int, mode: str, dim: int, shape: Sequence[int],
               pad: Sequence[int]) -> np.ndarray:
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


def _reversed_padding(padding: Any, kernel_size: Sequence[int],
                      dilation: Sequence[int]) -> tuple[int, ...]:
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


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant",  # noqa: A002
        value: float | None = None) -> Tensor:
    """Pad the trailing axes (``torch.nn.functional.pad``).

    Parameters
    ----------
    input : Tensor
        Any shape (non-constant modes: the last 1-3 axes of a batched or unbatched input).
    pad : sequence of int
        ``(left_last, right_last, left_prev, ...)``; negative amounts crop.
    mode : str, optional
        ``'constant'`` (default), ``'reflect'``, ``'replicate'`` or ``'circular'``.
    value : float, optional
        The fill value of ``'constant'`` (default 0).

    Returns
    -------
    Tensor
        The padded tensor.
    """
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
def _cubic_matrix(L: int, o: int, scale: float, align_corners: bool, dtype: Any) -> np.ndarray:
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


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:  # noqa: A002
    """Resize the spatial axes of ``(N, C, *spatial)`` (``torch.nn.functional.interpolate``).

    Parameters
    ----------
    input : Tensor
        ``(N, C, *spatial)``.
    size : int or sequence of int, optional
        Output spatial size (exactly one of ``size`` and ``scale_factor``).
    scale_factor : float or sequence of float, optional
        Multiplier of the spatial size.
    mode : str, optional
        ``'nearest'`` (default), ``'nearest-exact'`` (source ``floor((dst + 0.5) scale)``),
        ``'linear'``, ``'bilinear'``, ``'trilinear'``, ``'bicubic'`` (PyTorch's cubic
        convolution, ``A = -0.75``) or ``'area'`` (adaptive average pooling).
    align_corners : bool, optional
        Align the corner pixels (interpolating modes).
    recompute_scale_factor : bool, optional
        Recompute the scale from the output size.
    antialias : bool, optional
        Not supported (must be False).

    Returns
    -------
    Tensor
        ``(N, C, *out_spatial)``.

    Raises
    ------
    NotImplementedError
        For ``antialias=True``.
    ValueError
        Unless exactly one of ``size`` and ``scale_factor`` is given.
    """
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


def upsample(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:  # noqa: A002
    """Deprecated alias of ``interpolate`` (``torch.nn.functional.upsample``).

    Parameters
    ----------
    input : Tensor
        ``(N, C, *spatial)``.
    size : int or sequence of int, optional
        Output spatial size (exactly one of ``size`` and ``scale_factor``).
    scale_factor : float or sequence of float, optional
        Multiplier of the spatial size.
    mode : str, optional
        As ``interpolate``'s (default ``'nearest'``).
    align_corners : bool, optional
        As ``interpolate``'s.

    Returns
    -------
    Tensor
        ``(N, C, *out_spatial)``.
    """
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None,  # noqa: A002
                     scale_factor: Any = None) -> Tensor:
    """``interpolate(mode='nearest')`` (``torch.nn.functional.upsample_nearest``).

    Parameters
    ----------
    input : Tensor
        ``(N, C, *spatial)``.
    size : int or sequence of int, optional
        Output spatial size (exactly one of ``size`` and ``scale_factor``).
    scale_factor : float or sequence of float, optional
        Multiplier of the spatial size.

    Returns
    -------
    Tensor
        ``(N, C, *out_spatial)``.
    """
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None,  # noqa: A002
                      scale_factor: Any = None) -> Tensor:
    """``interpolate(mode='bilinear', align_corners=True)``.

    As ``torch.nn.functional.upsample_bilinear``.

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)``.
    size : int or sequence of int, optional
        Output spatial size (exactly one of ``size`` and ``scale_factor``).
    scale_factor : float or sequence of float, optional
        Multiplier of the spatial size.

    Returns
    -------
    Tensor
        ``(N, C, H_out, W_out)``.
    """
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
