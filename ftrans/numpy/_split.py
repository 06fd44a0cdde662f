"""Splitting, triangles and diagonals, append/delete/compress/extract and NumPy 2's
aliases of ``ftrans.numpy`` (re-exported from ``_shape``; the same conventions: linear
index maps with concrete shape-determining arguments, NumPy 2's signatures and errors).
"""
from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core import Tracer
from . import _funcs as F
from ..typing import Array, ArrayLike
from ._args import P

__all__ = ["split", "array_split", "hsplit", "vsplit", "dsplit", "unstack", "tril", "triu",
           "diag", "diagonal", "diagflat", "append", "delete", "compress", "extract", "concat",
           "permute_dims", "matrix_transpose"]

_nd = F._ndarray

# ---------------------------------------------------------------------------------
# split
# ---------------------------------------------------------------------------------
def array_split(ary: ArrayLike, indices_or_sections: int | Sequence[int],
                axis: int = 0) -> list[Array]:
    """Split an array into sub-arrays, allowing unequal parts.

    Parameters
    ----------
    ary : array_like
        Array to split.
    indices_or_sections : int or sequence of int
        ``N`` parts of sizes differing by at most
        one, or the sorted split points (concrete).
    axis : int, optional
        Axis to split along.

    Returns
    -------
    list of Array
        The sub-arrays.

    Raises
    ------
    TypeError
        Traced ``indices_or_sections``.
    ValueError
        A non-positive number of sections.

    Notes
    -----
    Differentiable (each part is a slice).
    """
    a = _nd(ary)
    ax = F._axis(axis, a.ndim)
    ntotal = a.shape[ax]
    if isinstance(indices_or_sections, Tracer):
        raise TypeError("array_split: the split points must be concrete")
    ios: Any = indices_or_sections
    try:
        nsections = len(ios) + 1
        div_points = [0] + [operator.index(i) for i in ios] + [ntotal]
    except TypeError:
        nsections = int(ios)
        if nsections <= 0:
            raise ValueError("number sections must be larger than 0.") from None
        each, extras = divmod(ntotal, nsections)
        sizes = [0] + extras * [each + 1] + (nsections - extras) * [each]
        div_points = np.cumsum(sizes).tolist()
    pre = (slice(None),) * ax
    return [P.gather(a, pre + (slice(div_points[i], div_points[i + 1]),))
            for i in range(nsections)]


def split(ary: ArrayLike, indices_or_sections: int | Sequence[int],
          axis: int = 0) -> list[Array]:
    """Split an array into equal sub-arrays, or at the given points.

    Parameters
    ----------
    ary : array_like
        Array to split.
    indices_or_sections : int or sequence of int
        Number of equal sections, or the split
        points (concrete).
    axis : int, optional
        Axis to split along.

    Returns
    -------
    list of Array
        The sub-arrays.

    Raises
    ------
    ValueError
        If a number of sections does not divide the axis exactly.

    Notes
    -----
    Differentiable (each part is a slice).
    """
    a = _nd(ary)
    if not hasattr(indices_or_sections, "__len__"):
        n = a.shape[F._axis(axis, a.ndim)]
        if int(indices_or_sections) <= 0 or n % int(indices_or_sections):
            raise ValueError("array split does not result in an equal division")
    return array_split(a, indices_or_sections, axis)


def hsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int]) -> list[Array]:
    """Split an array along axis 1 (axis 0 for 1-D arrays).

    Parameters
    ----------
    ary : array_like
        Array to split, at least 1-D.
    indices_or_sections : int or sequence of int
        As for :func:`split`.

    Returns
    -------
    list of Array
        The sub-arrays.

    Raises
    ------
    ValueError
        For a 0-d array, or an inexact number of sections.

    Notes
    -----
    Differentiable (slices).
    """
    a = _nd(ary)
    if a.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(a, indices_or_sections, 1 if a.ndim > 1 else 0)


def vsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int]) -> list[Array]:
    """Split an array along axis 0 (arrays of rank >= 2).

    Parameters
    ----------
    ary : array_like
        Array to split, at least 2-D.
    indices_or_sections : int or sequence of int
        As for :func:`split`.

    Returns
    -------
    list of Array
        The sub-arrays.

    Raises
    ------
    ValueError
        For arrays of rank < 2, or an inexact number of sections.

    Notes
    -----
    Differentiable (slices).
    """
    a = _nd(ary)
    if a.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(a, indices_or_sections, 0)


def dsplit(ary: ArrayLike, indices_or_sections: int | Sequence[int]) -> list[Array]:
    """Split an array along axis 2 (arrays of rank >= 3).

    Parameters
    ----------
    ary : array_like
        Array to split, at least 3-D.
    indices_or_sections : int or sequence of int
        As for :func:`split`.

    Returns
    -------
    list of Array
        The sub-arrays.

    Raises
    ------
    ValueError
        For arrays of rank < 3, or an inexact number of sections.

    Notes
    -----
    Differentiable (slices).
    """
    a = _nd(ary)
    if a.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(a, indices_or_sections, 2)


def unstack(x: ArrayLike, /, *, axis: int = 0) -> tuple[Array, ...]:
    """Split an array into its slices along an axis.

    Parameters
    ----------
    x : array_like
        Input array, at least 1-D.
    axis : int, optional
        The axis to unstack.

    Returns
    -------
    tuple of Array
        ``x.shape[axis]`` arrays without that axis.

    Raises
    ------
    ValueError
        If ``x`` is 0-d.

    Notes
    -----
    Differentiable (slices).
    """
    x = _nd(x)
    if x.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    ax = F._axis(axis, x.ndim)
    return tuple(P.gather(x, (slice(None),) * ax + (i,)) for i in range(x.shape[ax]))


# ---------------------------------------------------------------------------------
# triangles and diagonals
# ---------------------------------------------------------------------------------
def _tri_select(m: ArrayLike, k: int, lower: bool) -> Array:
    m = _nd(m)
    if m.ndim == 0:
        raise ValueError("tril/triu: input must be at least 1-d")
    if m.ndim == 1:
        m = P.broadcast_to(m, (m.shape[0], m.shape[0]))
    rows, cols = m.shape[-2:]
    mask = np.tri(rows, cols, k, dtype=bool) if lower else ~np.tri(rows, cols, k - 1, dtype=bool)
    return P.where(mask, m, np.zeros((), m.dtype))


def tril(m: ArrayLike, k: int = 0) -> Array:
    """Lower triangle of the last two axes.

    Elements above the ``k``-th diagonal are zeroed; a 1-D input is broadcast to a square
    matrix first, as in NumPy.

    Parameters
    ----------
    m : array_like
        Input array, at least 1-D.
    k : int, optional
        Diagonal above which to zero (positive: above the main diagonal).

    Returns
    -------
    Array
        Shape of ``m`` (``(N, N)`` for 1-D ``m``).

    Raises
    ------
    ValueError
        If ``m`` is 0-d.

    Notes
    -----
    Differentiable (a mask: linear).
    """
    return _tri_select(m, operator.index(k), True)


def triu(m: ArrayLike, k: int = 0) -> Array:
    """Upper triangle of the last two axes.

    Elements below the ``k``-th diagonal are zeroed; a 1-D input is broadcast to a square
    matrix first, as in NumPy.

    Parameters
    ----------
    m : array_like
        Input array, at least 1-D.
    k : int, optional
        Diagonal below which to zero.

    Returns
    -------
    Array
        Shape of ``m`` (``(N, N)`` for 1-D ``m``).

    Raises
    ------
    ValueError
        If ``m`` is 0-d.

    Notes
    -----
    Differentiable (a mask: linear).
    """
    return _tri_select(m, operator.index(k), False)


def _diag_indices(n1: int, n2: int, offset: int) -> tuple[Any, Any]:
    r0, c0 = builtins.max(-offset, 0), builtins.max(offset, 0)
    length = builtins.max(0, builtins.min(n1 - r0, n2 - c0))
    i = np.arange(length)
    return i + r0, i + c0


def diagonal(a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Array:
    """Diagonal of the ``(axis1, axis2)`` planes of an array.

    Parameters
    ----------
    a : array_like
        Input array, at least 2-D.
    offset : int, optional
        Diagonal offset (positive: above the main diagonal).
    axis1, axis2 : int, optional
        The axes of the 2-D sub-arrays.

    Returns
    -------
    Array
        The other axes followed by the diagonal as the last axis.

    Raises
    ------
    ValueError
        If ``a`` has fewer than 2 dimensions or ``axis1 == axis2``.

    Notes
    -----
    Differentiable (a gather: linear).
    """
    a = _nd(a)
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    ax1, ax2 = F._axis(axis1, a.ndim), F._axis(axis2, a.ndim)
    if ax1 == ax2:
        raise ValueError("axis1 and axis2 cannot be the same")
    rest = [d for d in range(a.ndim) if d not in (ax1, ax2)]
    a = P.transpose(a, tuple(rest) + (ax1, ax2))
    r, c = _diag_indices(a.shape[-2], a.shape[-1], operator.index(offset))
    return P.gather(a, (Ellipsis, r, c))


def diag(v: ArrayLike, k: int = 0) -> Array:
    """Extract a diagonal, or construct a diagonal matrix.

    Parameters
    ----------
    v : array_like
        1-D: the diagonal of the result; 2-D: the matrix whose diagonal to take.
    k : int, optional
        Diagonal offset.

    Returns
    -------
    Array
        A square matrix with ``v`` on its ``k``-th diagonal, or ``v``'s ``k``-th
        diagonal.

    Raises
    ------
    ValueError
        If ``v`` is not 1-D or 2-D.

    Notes
    -----
    Differentiable (a scatter, whose VJP gathers the diagonal, or a gather).
    """
    v = _nd(v)
    k = operator.index(k)
    if v.ndim == 1:
        n = v.shape[0] + builtins.abs(k)
        r, c = _diag_indices(n, n, k)
        return P.scatter_add(v, (r, c), (n, n))
    if v.ndim == 2:
        return diagonal(v, k)
    raise ValueError("Input must be 1- or 2-d.")


def diagflat(v: ArrayLike, k: int = 0) -> Array:
    """Square matrix with the flattened input on its ``k``-th diagonal.

    Parameters
    ----------
    v : array_like
        Input data (flattened).
    k : int, optional
        Diagonal offset.

    Returns
    -------
    Array
        2-D, of side ``v.size + abs(k)``.

    Notes
    -----
    Differentiable (linear).
    """
    return diag(F.ravel(v), k)


# ---------------------------------------------------------------------------------
# append, delete, compress, extract; NumPy 2 aliases
# ---------------------------------------------------------------------------------
def append(arr: ArrayLike, values: ArrayLike, axis: int | None = None) -> Array:
    """Append values to the end of an array.

    Parameters
    ----------
    arr : array_like
        The array.
    values : array_like
        Values to append (matching ``arr``'s shape except along ``axis``).
    axis : int, optional
        Axis to append along; both are flattened by default.

    Returns
    -------
    Array
        The concatenation.

    Notes
    -----
    Differentiable (linear).
    """
    if axis is None:
        return F.concatenate([F.ravel(arr), F.ravel(values)], 0)
    return F.concatenate([arr, values], axis)


def delete(arr: ArrayLike, obj: Any, axis: int | None = None) -> Array:
    """Remove sub-arrays along an axis.

    Parameters
    ----------
    arr : array_like
        Input array.
    obj : int, slice or array_like of int or bool
        What to delete (concrete).
    axis : int, optional
        The axis; the flattened array by default.

    Returns
    -------
    Array
        ``arr`` without the deleted entries.

    Raises
    ------
    TypeError
        If ``obj`` is traced (the result shape depends on it).

    Notes
    -----
    Differentiable (a gather; the VJP puts zeros at the deleted positions).
    """
    a = _nd(arr)
    if axis is None:
        a = F.ravel(a)
        axis = 0
    ax = F._axis(axis, a.ndim)
    if isinstance(obj, Tracer):
        raise TypeError("delete: `obj` must be concrete (the result shape depends on it)")
    keep = np.delete(np.arange(a.shape[ax]), obj)
    return P.gather(a, (slice(None),) * ax + (keep,))


def compress(condition: ArrayLike, a: ArrayLike, axis: int | None = None,
             out: None = None) -> Array:
    """Select slices of an array along an axis where a condition is true.

    Parameters
    ----------
    condition : array_like of bool
        Concrete 1-D selector.
    a : array_like
        Input array.
    axis : int, optional
        The axis; the flattened array by default.
    out : None
        Not supported (ftrans.numpy is functional).

    Returns
    -------
    Array
        The selected slices.

    Raises
    ------
    ValueError
        If ``out`` is given or ``condition`` is not 1-D.
    TypeError
        If ``condition`` is traced.
    IndexError
        If ``condition`` selects beyond the axis.

    Notes
    -----
    Differentiable in ``a`` (a gather).
    """
    if out is not None:
        raise ValueError("compress: out= is not supported (ftrans.numpy is functional)")
    if isinstance(condition, Tracer):
        raise TypeError("compress: `condition` must be concrete (the result shape depends on "
                        "it)")
    c = np.asarray(condition)
    if c.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    a = _nd(a)
    if axis is None:
        a = F.ravel(a)
        axis = 0
    ax = F._axis(axis, a.ndim)
    keep = np.flatnonzero(c)
    if keep.size and keep[-1] >= a.shape[ax]:
        raise IndexError(f"index {keep[-1]} is out of bounds for axis {ax} with size "
                         f"{a.shape[ax]}")
    return P.gather(a, (slice(None),) * ax + (keep,))


def extract(condition: ArrayLike, arr: ArrayLike) -> Array:
    """Elements of ``ravel(arr)`` where ``ravel(condition)`` is nonzero.

    Parameters
    ----------
    condition : array_like
        Concrete selector of ``arr``'s size.
    arr : array_like
        Input array.

    Returns
    -------
    Array
        1-D.

    Raises
    ------
    TypeError
        If ``condition`` is traced.

    Notes
    -----
    Differentiable in ``arr`` (a gather).
    """
    if isinstance(condition, Tracer):
        raise TypeError("extract: `condition` must be concrete (the result shape depends on "
                        "it)")
    c = np.asarray(condition).reshape(-1)
    return P.gather(F.ravel(arr), np.flatnonzero(c))


def concat(arrays: Sequence[ArrayLike], /, *, axis: int | None = 0) -> Array:
    """Join arrays along an existing axis (NumPy 2's name of :func:`concatenate`).

    Parameters
    ----------
    arrays : sequence of array_like
        Arrays of equal shape except along ``axis``.
    axis : int or None, optional
        The axis; ``None`` flattens first.

    Returns
    -------
    Array
        The concatenation.

    Notes
    -----
    Differentiable (linear).
    """
    return F.concatenate(arrays, axis=axis)


def permute_dims(a: ArrayLike, /, axes: Sequence[int] | None = None) -> Array:
    """Permute the axes of an array (NumPy 2's name of :func:`transpose`).

    Parameters
    ----------
    a : array_like
        Input array.
    axes : sequence of int, optional
        The permutation; reversed by default.

    Returns
    -------
    Array
        The transposed array.

    Notes
    -----
    Differentiable (linear).
    """
    return F.transpose(a, axes)


def matrix_transpose(x: ArrayLike, /) -> Array:
    """Swap the last two axes of an array.

    Parameters
    ----------
    x : array_like
        Input array, at least 2-D.

    Returns
    -------
    Array
        Shape ``(..., N, M)`` for ``(..., M, N)``.

    Raises
    ------
    ValueError
        If ``x`` has fewer than 2 dimensions.

    Notes
    -----
    Differentiable (linear).
    """
    x = _nd(x)
    if x.ndim < 2:
        raise ValueError("Input array must be at least 2-dimensional")
    return F.swapaxes(x, -1, -2)
