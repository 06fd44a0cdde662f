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

import numpy as np

from .. import numpy as fnp
from .. import primitives as P
from ._util import as_float

__all__ = ["grid_sample"]

MODES = ("bilinear", "nearest", "bicubic")
PADDING_MODES = ("zeros", "border", "reflection")
_A = -0.75


def _clip(x, size):
    """``min(size - 1, max(x, 0))`` with derivative 0 outside (and on) the bounds."""
    return fnp.where(x <= 0, 0.0 * x, fnp.where(x >= size - 1, 0.0 * x + (size - 1), x))


def _reflect(x, twice_low, twice_high):
    if twice_low == twice_high:
        return 0.0 * x
    lo, span = twice_low / 2, (twice_high - twice_low) / 2
    d = x - lo
    d = fnp.where(d < 0, -d, d)
    flips = fnp.floor(P.stop_gradient(d) / span)
    extra = d - flips * span
    return fnp.where(fnp.remainder(flips, 2) == 0, extra + lo, span - extra + lo)


def _padded(x, size, padding_mode, align_corners):
    if padding_mode == "border":
        return _clip(x, size)
    if padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        return _clip(x, size)
    return x


def _cubic(t):
    """PyTorch's four cubic-convolution coefficients (``A = -0.75``) of offset ``t``."""
    def c1(x):
        return ((_A + 2) * x - (_A + 3)) * x * x + 1

    def c2(x):
        return ((_A * x - 5 * _A) * x + 8 * _A) * x - 4 * _A
    return [c2(t + 1), c1(t), c1(1 - t), c2(2 - t)]


def _taps(src, size, mode, padding_mode, align_corners):
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


def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False):
    """``x (N, C, H, W)`` sampled at ``grid (N, H_o, W_o, 2)`` (``x, y`` normalized to
    ``[-1, 1]``), or ``x (N, C, D, H, W)`` at ``grid (N, D_o, H_o, W_o, 3)``
    (``torch.nn.functional.grid_sample``).  ``mode``: 'bilinear', 'nearest' (round half to
    even; no derivative with respect to the grid) or 'bicubic' (2-d); ``padding_mode``:
    'zeros', 'border' or 'reflection'.  Returns ``(N, C, *grid.shape[1:-1])``."""
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
        valid, pos, w = None, 0, None
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
    return fnp.reshape(out, (n, c) + out_sp)
