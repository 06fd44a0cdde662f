"""Patch, shuffle and scatter layer operations in PyTorch's layouts, written once in
primitives (``ftrans.numpy``'s gathers and indexed updates): :func:`unfold` (im2col),
:func:`fold` (col2im, its adjoint), :func:`pixel_shuffle`, :func:`pixel_unshuffle` and
:func:`max_unpool` (a ``custom_vjp`` whose reverse rule is PyTorch's gather; forward mode
differentiates the scatter, as PyTorch does) and :func:`embedding_bag`.

``ftrans.compat.nn.functional``'s functions of the same names adapt them (one graph node
each, whose backward is ``ftrans.vjp`` of the composition).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import numpy as fnp
from .. import primitives as P
from ..transforms import custom_vjp
from ..core.dtypes import kind_of
from ..typing import Array, ArrayLike
from ._util import as_float, ntuple

_Size = int | Sequence[int]

__all__ = ["unfold", "fold", "pixel_shuffle", "pixel_unshuffle", "max_unpool",
           "embedding_bag"]


def _linear_input(x: Any, name: str) -> Array:
    """``x`` for a linear (complex-friendly) operation: complex arrays as they are,
    others through ``as_float``."""
    if kind_of(x) == "c":
        return x
    return as_float(x, name)


def _patch_table(spatial: Sequence[int], kernel_size: _Size, dilation: _Size, padding: _Size,
                 stride: _Size) -> tuple[Any, ...]:
    """Flat positions in the padded plane: ``(kh kw, L)`` (kernel offset, block), the
    padded shape and the number of blocks per axis."""
    ks = ntuple(kernel_size, 2, "kernel_size", 1)
    dl = ntuple(dilation, 2, "dilation", 1)
    pd = ntuple(padding, 2, "padding", 0)
    st = ntuple(stride, 2, "stride", 1)
    padded = tuple(L + 2 * p for L, p in zip(spatial, pd))
    blocks = tuple((P_ - d * (k - 1) - 1) // s + 1 for P_, k, d, s in zip(padded, ks, dl, st))
    if min(blocks) < 1:
        raise ValueError(f"unfold/fold: spatial size {tuple(spatial)} with kernel_size {ks}, "
                         f"dilation {dl}, padding {pd} gives no sliding block")
    kh = np.arange(ks[0])[:, None] * dl[0]
    kw = np.arange(ks[1])[None, :] * dl[1]
    bh = np.arange(blocks[0])[:, None] * st[0]
    bw = np.arange(blocks[1])[None, :] * st[1]
    off = ((kh + 0 * kw) * padded[1] + kw).reshape(-1, 1)                    # (k, 1)
    start = ((bh + 0 * bw) * padded[1] + bw).reshape(1, -1)                  # (1, L)
    return off + start, padded, blocks, pd


def unfold(x: ArrayLike, kernel_size: _Size, dilation: _Size = 1, padding: _Size = 0,
           stride: _Size = 1) -> Array:
    """Sliding blocks of an image as columns (``torch.nn.functional.unfold``, im2col).

    Zero padding.  Linear: complex input is accepted.

    Parameters
    ----------
    x : ArrayLike
        ``(N, C, H, W)``.
    kernel_size, dilation, padding, stride : int or sequence of int
        The block geometry, one value or one per spatial axis.

    Returns
    -------
    Array
        ``(N, C kh kw, L)`` with ``L`` the number of blocks.

    Raises
    ------
    ValueError
        For an input that is not 4-d or a geometry with no block.
    """
    x = _linear_input(x, "x")
    if len(x.shape) != 4:
        raise ValueError(f"unfold: x must be (N, C, H, W), got shape {tuple(x.shape)}")
    n, c = x.shape[0], x.shape[1]
    table, padded, blocks, pd = _patch_table(tuple(x.shape[2:]), kernel_size, dilation,
                                             padding, stride)
    xp = fnp.pad(x, ((0, 0), (0, 0), (pd[0], pd[0]), (pd[1], pd[1])))
    flat = fnp.reshape(xp, (n, c, padded[0] * padded[1]))
    cols = fnp.take(flat, table.reshape(-1), axis=2)
    return fnp.reshape(cols, (n, c * table.shape[0], table.shape[1]))


def fold(cols: ArrayLike, output_size: _Size, kernel_size: _Size, dilation: _Size = 1,
         padding: _Size = 0, stride: _Size = 1) -> Array:
    """Sum of sliding blocks into an image (``torch.nn.functional.fold``, col2im).

    The adjoint of :func:`unfold`.

    Parameters
    ----------
    cols : ArrayLike
        ``(N, C kh kw, L)``.
    output_size : int or sequence of int
        The image's spatial shape ``(H, W)``.
    kernel_size, dilation, padding, stride : int or sequence of int
        The block geometry, as in :func:`unfold`.

    Returns
    -------
    Array
        ``(N, C, *output_size)``.

    Raises
    ------
    ValueError
        For ``cols`` of a shape that does not match the geometry.
    """
    cols = _linear_input(cols, "cols")
    out_sz = ntuple(output_size, 2, "output_size", 1)
    table, padded, blocks, pd = _patch_table(out_sz, kernel_size, dilation, padding, stride)
    k, nb = table.shape
    if len(cols.shape) != 3 or cols.shape[1] % k or cols.shape[2] != nb:
        raise ValueError(f"fold: cols must be (N, C * {k}, {nb}) for these arguments, got "
                         f"shape {tuple(cols.shape)}")
    n, c = cols.shape[0], cols.shape[1] // k
    src = fnp.reshape(cols, (n, c, k * nb))
    out = fnp.at(fnp.zeros((n, c, padded[0] * padded[1]), cols.dtype))[
        :, :, table.reshape(-1)].add(src)
    out = fnp.reshape(out, (n, c) + padded)
    return out[:, :, pd[0]:pd[0] + out_sz[0], pd[1]:pd[1] + out_sz[1]]


def pixel_shuffle(x: Array, upscale_factor: int) -> Array:
    """Rearrange ``(*, C r^2, H, W) -> (*, C, H r, W r)`` (``torch.nn.functional.pixel_shuffle``).

    Parameters
    ----------
    x : Array
        ``(*, C r^2, H, W)``.
    upscale_factor : int
        ``r``.

    Returns
    -------
    Array
        ``(*, C, H r, W r)``.

    Raises
    ------
    ValueError
        When ``r^2`` does not divide the channels.
    """
    r = int(upscale_factor)
    *lead, c, h, w = x.shape
    if r < 1 or c % (r * r):
        raise ValueError(f"pixel_shuffle: channels {c} must be divisible by "
                         f"upscale_factor**2 = {r * r}")
    n = len(lead)
    y = fnp.reshape(x, tuple(lead) + (c // (r * r), r, r, h, w))
    y = fnp.transpose(y, tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2))
    return fnp.reshape(y, tuple(lead) + (c // (r * r), h * r, w * r))


def pixel_unshuffle(x: Array, downscale_factor: int) -> Array:
    """Rearrange ``(*, C, H r, W r) -> (*, C r^2, H, W)`` (``torch.nn.functional.pixel_unshuffle``).

    The inverse of :func:`pixel_shuffle`.

    Parameters
    ----------
    x : Array
        ``(*, C, H r, W r)``.
    downscale_factor : int
        ``r``.

    Returns
    -------
    Array
        ``(*, C r^2, H, W)``.

    Raises
    ------
    ValueError
        When ``r`` does not divide the height and the width.
    """
    r = int(downscale_factor)
    *lead, c, h, w = x.shape
    if r < 1 or h % r or w % r:
        raise ValueError(f"pixel_unshuffle: height {h} and width {w} must be divisible by "
                         f"downscale_factor {r}")
    n = len(lead)
    y = fnp.reshape(x, tuple(lead) + (c, h // r, r, w // r, r))
    y = fnp.transpose(y, tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3))
    return fnp.reshape(y, tuple(lead) + (c * r * r, h // r, w // r))


def max_unpool(x: ArrayLike, indices: ArrayLike, output_size: Sequence[int]) -> Array:
    """Place values at flat indices of zero planes (``torch.nn.functional.max_unpool{1,2,3}d``).

    Each value of ``x`` is placed at its flat index of the output plane; zeros
    elsewhere.  A repeated index keeps its last value (PyTorch's CPU kernel), while the
    derivative is PyTorch's: every input element receives the cotangent at its index (a
    gather), repeated or not.

    Parameters
    ----------
    x : ArrayLike
        ``(*lead, *spatial_in)``.
    indices : ArrayLike
        Integer flat indices into the output plane, ``x``'s shape.
    output_size : sequence of int
        The output plane's spatial shape.

    Returns
    -------
    Array
        ``(*lead, *output_size)``.

    Raises
    ------
    ValueError
        For indices outside the plane.
    """
    x = as_float(x)
    output_size = tuple(int(o) for o in output_size)
    nsp = len(output_size)
    if tuple(np.shape(indices)) != tuple(x.shape):
        raise ValueError(f"max_unpool: indices {tuple(np.shape(indices))} must have the shape "
                         f"of x {tuple(x.shape)}")
    lead = tuple(x.shape[:len(x.shape) - nsp])
    rows = math.prod(lead)
    plane = math.prod(output_size)
    per = math.prod(x.shape[len(lead):])
    idx = fnp.reshape(indices, (rows, per))
    if isinstance(idx, np.ndarray) and idx.size and (idx.min() < 0 or idx.max() >= plane):
        raise ValueError(f"max_unpool: index {int(idx.max())} outside the output plane of "
                         f"{plane} elements")
    out = _unpool((rows, plane), fnp.reshape(x, (rows, per)), idx)
    return fnp.reshape(out, lead + output_size)


def _unpool_fun(shape: tuple[int, ...], x: Array, idx: Array) -> Array:
    """``x (rows, per)`` written at ``idx (rows, per)`` of zeros ``shape`` (last write wins);
    forward mode differentiates this (PyTorch's tangent: the unpooled tangent)."""
    r = np.broadcast_to(np.arange(shape[0])[:, None], tuple(x.shape))
    return fnp.at(fnp.zeros(shape, x.dtype))[r, idx].set(x)


def _unpool_fwd(shape: tuple[int, ...], x: Array, idx: Array) -> tuple[Array, tuple[Array]]:
    return _unpool_fun(shape, x, idx), (idx,)


def _unpool_bwd(shape: tuple[int, ...], res: tuple[Array], g: Array) -> tuple[Array, None]:
    """PyTorch's reverse rule: the cotangent gathered at every index (repeats included)."""
    idx, = res
    return fnp.take_along_axis(g, idx, axis=1), None


_unpool = custom_vjp(_unpool_fun, nondiff_argnums=(0,))
_unpool.defvjp(_unpool_fwd, _unpool_bwd)


def _bags(n: int, offsets: ArrayLike, include_last_offset: bool) -> tuple[Array, Array]:
    offs = np.asarray(offsets, np.int64).reshape(-1)
    if include_last_offset:
        return offs[:-1], offs[1:]
    return offs, np.append(offs[1:], n).astype(np.int64)


def embedding_bag(weight: ArrayLike, indices: ArrayLike, offsets: ArrayLike,
                  mode: str = "mean", per_sample_weights: ArrayLike | None = None,
                  include_last_offset: bool = False, padding_idx: int | None = None) -> Array:
    """Sums, means or maxima of bags of rows of ``weight`` (``torch.nn.functional.embedding_bag``).

    Entries equal to ``padding_idx`` are left out; an empty bag gives zeros.  In 'max'
    mode the derivative goes to the first maximum (PyTorch's rule).

    Parameters
    ----------
    weight : ArrayLike
        ``(num, dim)``.
    indices : ArrayLike
        1-d integer row indices.
    offsets : ArrayLike
        1-d start of each bag: bag ``b`` holds ``indices[offsets[b]:offsets[b + 1]]``.
    mode : {'mean', 'sum', 'max'}, optional
        The reduction over a bag.
    per_sample_weights : ArrayLike, optional
        Scale each row (``mode='sum'`` only), ``indices``'s shape.
    include_last_offset : bool, optional
        ``offsets`` ends with the end of the last bag (otherwise the last bag runs to the
        end of ``indices``).
    padding_idx : int, optional
        An index left out of every bag.

    Returns
    -------
    Array
        ``(bags, dim)``.

    Raises
    ------
    ValueError
        For an unknown mode, ``per_sample_weights`` without ``mode='sum'``, or an
        out-of-range index.
    """
    weight = as_float(weight, "weight")
    idx = np.asarray(indices, np.int64).reshape(-1)
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"embedding_bag: mode must be 'sum', 'mean' or 'max', got {mode!r}")
    if per_sample_weights is not None and mode != "sum":
        raise ValueError("embedding_bag: per_sample_weights needs mode='sum'")
    n, (num, dim) = idx.size, weight.shape
    if n and (idx.min() < 0 or idx.max() >= num):
        raise ValueError(f"embedding_bag: indices must be in [0, {num})")
    starts, ends = _bags(n, offsets, include_last_offset)
    keep = np.ones(n, bool) if padding_idx is None else idx != padding_idx % num
    member = (np.arange(n)[None, :] >= starts[:, None]) & (np.arange(n)[None, :] <
                                                           ends[:, None]) & keep[None, :]
    rows = fnp.take(weight, idx, axis=0)                                  # (n, dim)
    if mode != "max":
        if per_sample_weights is not None:
            rows = rows * fnp.reshape(per_sample_weights, (n, 1))
        m = member.astype(np.float64)
        if mode == "mean":
            m = m / np.maximum(m.sum(1, keepdims=True), 1)
        return fnp.matmul(m.astype(rows.dtype), rows)
    width = max(int(member.sum(1).max()) if member.size else 0, 1)
    table = np.full((starts.size, width), n, np.int64)
    for b in range(starts.size):
        pos = np.nonzero(member[b])[0]
        table[b, :pos.size] = pos
    padded = fnp.concatenate([rows, fnp.full((1, dim), -np.inf, rows.dtype)], axis=0)
    vals = fnp.reshape(fnp.take(padded, table.reshape(-1), axis=0), (starts.size, width, dim))
    first = fnp.argmax(P.stop_gradient(vals), axis=1)[:, None, :]
    best = fnp.take_along_axis(vals, first, axis=1)[:, 0, :]
    return fnp.where((member.sum(1) > 0)[:, None], best, fnp.zeros(best.shape, best.dtype))
