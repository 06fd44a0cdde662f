"""Sampling an image at arbitrary points (``torch.nn.functional.grid_sample``), written
once as a composition of primitives: the integer taps around each source point are
gathered and weighted by products of linear or cubic coefficients of the fractional
offsets, so the derivative with respect to the grid flows through the coefficients and
the one with respect to the input through the gather (PyTorch's kernels' rules).

``ftrans.compat.nn.functional.grid_sample`` and ``torch.grid_sampler_2d/3d`` adapt it.
"""
from __future__ import annotations

import itertools
import math
from typing import Any, cast

import numpy as np

from .. import numpy as fnp
from .. import primitives as P
from ..typing import Array, ArrayLike
from ._util import as_float

__all__ = ["grid_sample"]

MODES = ("bilinear", "nearest", "bicubic")
PADDING_MODES = ("zeros", "border", "reflection")
_A = -0.75


def _clip(x: Array, size: int) -> Array:
    """``min(size - 1, max(x, 0))`` with derivative 0 outside (and on) the bounds."""
    return fnp.where(x <= 0, 0.0 * x, fnp.where(x >= size - 1, 0.0 * x + (size - 1), x))


def _reflect(x: Array, twice_low: float, twice_high: float) -> Array:
    if twice_low == twice_high:
        return 0.0 * x
    lo, span = twice_low / 2, (twice_high - twice_low) / 2
    d = x - lo
    d = fnp.where(d < 0, -d, d)
    flips = fnp.floor(P.stop_gradient(d) / span)
    extra = d - flips * span
    return fnp.where(fnp.remainder(flips, 2) == 0, extra + lo, span - extra + lo)


def _padded(x: Array, size: int, padding_mode: str, align_corners: bool) -> Array:
    if padding_mode == "border":
        return _clip(x, size)
    if padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        return _clip(x, size)
    return x


def _cubic(t: Array) -> list[Array]:
    """PyTorch's four cubic-convolution coefficients (``A = -0.75``) of offset ``t``."""
    def c1(x: Array) -> Array:
        return ((_A + 2) * x - (_A + 3)) * x * x + 1

    def c2(x: Array) -> Array:
        return ((_A * x - 5 * _A) * x + 8 * _A) * x - 4 * _A
    return [c2(t + 1), c1(t), c1(1 - t), c2(2 - t)]


def _taps(src: Array, size: int, mode: str, padding_mode: str, align_corners: bool
          ) -> list[tuple[Array, Any]]:
    """``[(integer index, weight or None), ...]`` along one axis."""
    if mode == "nearest":
        return [(fnp.rint(P.stop_gradient(src)).astype(np.int64), None)]
    f = fnp.floor(P.stop_gradient(src))
    t = src - f
    fi = f.astype(np.int64)
    if mode == "bilinear":
        return [(fi, 1 - t), (fi + 1, t)]
    out = []
    for k, w in enumerate(_cubic(t)):
        i = (fi - 1 + k).astype(src.dtype)
        if padding_mode != "zeros":   # taps are padded as coordinates (get_value_bounded)
            i = _padded(i, size, padding_mode, align_corners)
        out.append((P.stop_gradient(i).astype(np.int64), w))
    return out


def grid_sample(x: ArrayLike, grid: ArrayLike, mode: str = "bilinear",
                padding_mode: str = "zeros", align_corners: bool = False) -> Array:
    """Sample an image at grid locations (``torch.nn.functional.grid_sample``).

    Parameters
    ----------
    x : ArrayLike
        ``(N, C, H, W)``, or ``(N, C, D, H, W)``.
    grid : ArrayLike
        ``(N, H_o, W_o, 2)`` (``x, y`` normalized to ``[-1, 1]``), or
        ``(N, D_o, H_o, W_o, 3)`` for a 3-d ``x``.
    mode : {'bilinear', 'nearest', 'bicubic'}, optional
        Interpolation; 'nearest' rounds half to even and has no derivative with respect
        to the grid; 'bicubic' is 2-d only.
    padding_mode : {'zeros', 'border', 'reflection'}, optional
        Values outside the image.
    align_corners : bool, optional
        ``-1`` and ``1`` are the centers (True) or the outer edges (False) of the corner
        pixels.

    Returns
    -------
    Array
        ``(N, C, *grid.shape[1:-1])``.

    Raises
    ------
    ValueError
        For mismatched shapes or an unknown mode.
    """
    x, grid = as_float(x), as_float(grid, "grid")
    if mode not in MODES or padding_mode not in PADDING_MODES:
        raise ValueError(f"grid_sample: mode must be one of {MODES} and padding_mode one of "
                         f"{PADDING_MODES}, got {mode!r} and {padding_mode!r}")
    nsp = len(x.shape) - 2
    if nsp not in (2, 3) or len(grid.shape) != nsp + 2 or grid.shape[-1] != nsp \
            or grid.shape[0] != x.shape[0]:
        raise ValueError(f"grid_sample: x (N, C, *spatial) with 2 or 3 spatial axes and grid "
                         f"(N, *out, {nsp}) expected, got {tuple(x.shape)} and "
                         f"{tuple(grid.shape)}")
    if mode == "bicubic" and nsp != 2:
        raise ValueError("grid_sample: bicubic interpolation needs 4-d input")
    n, c = x.shape[0], x.shape[1]
    sizes = tuple(x.shape[2:])
    out_sp = tuple(grid.shape[1:-1])
    q = math.prod(out_sp)
    g = fnp.reshape(grid, (n, q, nsp))
    flat = fnp.reshape(x, (n, c, math.prod(sizes)))
    axes = []
    for a in range(nsp):   # grid coordinate nsp-1-a runs along spatial axis a
        coord = g[:, :, nsp - 1 - a]
        s = ((coord + 1) / 2 * (sizes[a] - 1) if align_corners
             else ((coord + 1) * sizes[a] - 1) / 2)
        if mode != "bicubic":
            s = _padded(s, sizes[a], padding_mode, align_corners)
        axes.append(_taps(s, sizes[a], mode, padding_mode, align_corners))
    strides = [math.prod(sizes[a + 1:]) for a in range(nsp)]
    out = None
    for combo in itertools.product(*axes):
        valid: Any = None
        pos: Any = 0      # an int, then the flat index array
        w: Any = None
        for a, (i, wa) in enumerate(combo):
            ok = (i >= 0) & (i < sizes[a])
            valid = ok if valid is None else valid & ok
            pos = pos + fnp.clip(i, 0, sizes[a] - 1) * strides[a]
            if wa is not None:
                w = wa if w is None else w * wa
        v = fnp.take_along_axis(flat, fnp.broadcast_to(pos[:, None, :], (n, c, q)), axis=2)
        v = fnp.where(valid[:, None, :], v, 0.0 * v)
        term = v if w is None else v * w[:, None, :]
        out = term if out is None else out + term
    # itertools.product over the nsp >= 2 axes yields at least one combination
    return fnp.reshape(cast(Array, out), (n, c) + out_sp)
