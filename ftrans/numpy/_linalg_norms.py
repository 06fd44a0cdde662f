"""Norms, condition numbers, ranks and products of ``ftrans.numpy.linalg`` (the
derivative conventions are in ``ftrans.numpy.linalg``'s module docstring)."""
from __future__ import annotations

import builtins
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core import Tracer
from ..core.dtypes import kind_of as _kind_of
from . import _funcs as F
from ._contract import cross as _cross
from ._funcs import _ndarray, _axis
from ..typing import Array, ArrayLike, Axis, DTypeLike
from ._linalg_args import (LinAlgError, _inexact, _common, _assert_stacked_2d,
                           _assert_stacked_square, _mT)
from ._linalg_decomp import inv, svd, svdvals
from ._args import P

# ---------------------------------------------------------------------------------
# norms
# ---------------------------------------------------------------------------------
def _safe_sqrt(s: Any) -> Array:
    """``sqrt(s)`` with derivative 0 (not inf * 0 = NaN) where ``s == 0``."""
    z = P.eq(s, 0.0)
    return P.where(z, 0.0, P.sqrt(P.where(z, 1.0, s)))


def _abs2(x: Any) -> Array:
    return P.real(P.mul(P.conj(x), x)) if _kind_of(x) == "c" else P.mul(x, x)


def _vector_norm(x: Any, ord: Any, axes: tuple[int, ...], keepdims: bool) -> Array:
    """Vector norms of ``x`` over the (tuple of non-negative) ``axes``."""
    if ord is None or ord == 2:
        return _safe_sqrt(F.sum(_abs2(x), axis=axes, keepdims=keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    if ord == np.inf:
        return F.max(P.abs(x), axis=axes, keepdims=keepdims)
    if ord == -np.inf:
        return F.min(P.abs(x), axis=axes, keepdims=keepdims)
    if ord == 0:
        nz = P.convert_element_type(P.ne(x, 0), np.finfo(x.dtype).dtype)
        return F.sum(nz, axis=axes, keepdims=keepdims)
    if ord == 1:
        return F.sum(P.abs(x), axis=axes, keepdims=keepdims)
    # general p: (sum |x|^p)^(1/p).  Zero elements are masked with double wheres: their
    # |x|^p is 0 (p > 0) with derivative 0 instead of p * 0^(p-1) (inf * 0 = NaN for
    # p < 1); for p < 0 a zero element makes the norm 0 (as NumPy: inf^(1/p)), with
    # gradient 0; the all-zero vector has norm 0 and gradient 0.
    ord = float(ord)
    ax = P.abs(x)
    zx = P.eq(ax, 0.0)
    safe = P.where(zx, 1.0, ax)
    powx = P.pow(safe, ord)
    if ord > 0:
        s = F.sum(P.where(zx, 0.0, powx), axis=axes, keepdims=keepdims)
        z = P.eq(s, 0.0)
        return P.where(z, 0.0, P.pow(P.where(z, 1.0, s), 1.0 / ord))
    s = F.sum(P.where(zx, 0.0, powx), axis=axes, keepdims=keepdims)
    anyzero = P.gt(F.sum(zx, axis=axes, keepdims=keepdims), 0)
    return P.where(anyzero, 0.0, P.pow(P.where(anyzero, 1.0, s), 1.0 / ord))


def _svd_norm(x: Any, row_axis: int, col_axis: int, op: Callable[..., Array]) -> Array:
    y = F.moveaxis(x, (row_axis, col_axis), (-2, -1))
    s = P.abs(svd(y, compute_uv=False))   # abs: zero singular values get no gradient
    return op(s, axis=-1)


def norm(x: ArrayLike, ord: float | str | None = None, axis: int | tuple[int, int] | None = None,
         keepdims: bool = False) -> Array:
    """Vector or matrix norm.

    Every vector order (``None, 2, 1, inf, -inf, 0``, any ``p``) and matrix order
    (``None/'fro', 'nuc', 1, -1, 2, -2, inf, -inf``) NumPy has.

    Parameters
    ----------
    x : array_like
        Input array.
    ord : {None, int, float, inf, -inf, 'fro', 'nuc'}, optional
        Order of the norm; the
        2-norm (Frobenius for matrices) by default.
    axis : int or 2-tuple of int, optional
        A vector axis, or the two matrix axes; the
        flattened array (1-D/2-D ``x`` by its own rank) by default.
    keepdims : bool, optional
        Keep the normed axes as size-1 dimensions.

    Returns
    -------
    Array
        The norms; real floating dtype.

    Raises
    ------
    ValueError
        An invalid order for vectors or matrices, duplicate axes, or more than 2 axes.
    TypeError
        A non-integer ``axis``.

    Notes
    -----
    Differentiable; at non-differentiable points the minimum-norm subgradient (PyTorch's
    autograd notes): 0 for every norm of the zero vector/matrix (never NaN),
    ``abs'(0) = 0``, ties of the inf-norms share the gradient evenly, and the
    spectral/nuclear norms give zero singular values no gradient.  ``ord=0`` counts
    nonzeros (derivative 0).
    """
    x = _inexact(x)
    nd = x.ndim
    axes: tuple[int, ...]
    if axis is None:
        if ord is None or (isinstance(ord, str) and ord in ("f", "fro") and nd == 2) or \
                (not isinstance(ord, str) and ord == 2 and nd == 1):
            out = _safe_sqrt(F.sum(_abs2(x)))
            return P.reshape(out, (1,) * nd) if keepdims else out
        axes = tuple(range(nd))
    elif isinstance(axis, tuple):
        axes = axis
    else:
        try:
            axes = (operator.index(axis),)
        except TypeError as e:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from e
    if len(axes) == 1:
        return _vector_norm(x, ord, (_axis(axes[0], nd),), keepdims)
    if len(axes) != 2:
        raise ValueError("Improper number of dimensions to norm.")
    row_axis, col_axis = _axis(axes[0], nd), _axis(axes[1], nd)
    if row_axis == col_axis:
        raise ValueError("Duplicate axes given.")
    if isinstance(ord, str):
        if ord in ("f", "fro"):
            ret = _safe_sqrt(F.sum(_abs2(x), axis=(row_axis, col_axis)))
        elif ord == "nuc":
            ret = _svd_norm(x, row_axis, col_axis, F.sum)
        else:
            raise ValueError("Invalid norm order for matrices.")
    elif ord is None:
        ret = _safe_sqrt(F.sum(_abs2(x), axis=(row_axis, col_axis)))
    elif ord == 2:
        ret = _svd_norm(x, row_axis, col_axis, F.max)
    elif ord == -2:
        ret = _svd_norm(x, row_axis, col_axis, F.min)
    elif ord in (1, -1):
        red = F.max if ord == 1 else F.min
        c = col_axis - 1 if col_axis > row_axis else col_axis
        ret = red(F.sum(P.abs(x), axis=row_axis), axis=c)
    elif ord in (np.inf, -np.inf):
        red = F.max if ord == np.inf else F.min
        r = row_axis - 1 if row_axis > col_axis else row_axis
        ret = red(F.sum(P.abs(x), axis=col_axis), axis=r)
    else:
        raise ValueError("Invalid norm order for matrices.")
    if keepdims:
        shape = list(x.shape)
        shape[row_axis] = 1
        shape[col_axis] = 1
        ret = P.reshape(ret, tuple(shape))
    return ret


def vector_norm(x: ArrayLike, /, *, axis: Axis = None, keepdims: bool = False,
                ord: float = 2) -> Array:
    """Vector norm over the given axes.

    Parameters
    ----------
    x : array_like
        Input array.
    axis : int or tuple of int, optional
        Axes treated as one flattened vector; all by
        default.
    keepdims : bool, optional
        Keep the normed axes as size-1 dimensions.
    ord : int or float or inf or -inf, optional
        Order of the norm.

    Returns
    -------
    Array
        The norms; real floating dtype.

    Notes
    -----
    Differentiable, with the subgradient conventions of :func:`norm`.
    """
    x = _inexact(x)
    nd = x.ndim
    if axis is None:
        axes = tuple(range(nd))
    elif isinstance(axis, tuple):
        axes = tuple(sorted(_axis(a, nd) for a in axis))
    else:
        axes = (_axis(axis, nd),)
    return _vector_norm(x, ord, axes, keepdims)


def matrix_norm(x: ArrayLike, /, *, keepdims: bool = False, ord: float | str = "fro") -> Array:
    """Matrix norm over the last two axes.

    Parameters
    ----------
    x : array_like
        Shape ``(..., M, N)``.
    keepdims : bool, optional
        Keep the two axes as size-1 dimensions.
    ord : {'fro', 'nuc', 1, -1, 2, -2, inf, -inf}, optional
        Order of the norm.

    Returns
    -------
    Array
        Shape ``(...)``; real floating dtype.

    Raises
    ------
    LinAlgError
        For arrays of fewer than 2 dimensions.

    Notes
    -----
    Differentiable, with the subgradient conventions of :func:`norm`.
    """
    x = _inexact(x)
    _assert_stacked_2d(x)
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def cond(x: ArrayLike, p: float | str | None = None) -> Array:
    """Condition number of matrices.

    ``s_max / s_min`` for ``p in (None, 2)`` (``-2``: its reciprocal) from the singular
    values, else ``norm(x, p) * norm(inv(x), p)``.

    Parameters
    ----------
    x : array_like
        Shape ``(..., M, N)`` (square for ``p`` other than ``None, 2, -2``).
    p : {None, 1, -1, 2, -2, inf, -inf, 'fro', 'nuc'}, optional
        Order of the norm.

    Returns
    -------
    Array
        Shape ``(...)``.

    Raises
    ------
    LinAlgError
        For empty or non-2-D input, or a non-square one where needed.

    Notes
    -----
    Differentiable (through the singular values, or through :func:`inv`).
    """
    (x,) = _common(x)
    _assert_stacked_2d(x)
    if x.size == 0:
        raise LinAlgError("cond is not defined on empty arrays")
    if p is None or (not isinstance(p, str) and p in (2, -2)):
        s = svdvals(x)
        first = P.gather(s, (Ellipsis, 0))
        last = P.gather(s, (Ellipsis, -1))
        return P.div(last, first) if p == -2 else P.div(first, last)
    _assert_stacked_square(x)
    return P.mul(norm(x, p, axis=(-2, -1)), norm(inv(x), p, axis=(-2, -1)))


def matrix_rank(A: ArrayLike, tol: ArrayLike | None = None, hermitian: bool = False, *,
                rtol: ArrayLike | None = None) -> Array | int:
    """Rank of matrices: the number of singular values above a tolerance.

    Parameters
    ----------
    A : array_like
        Shape ``(..., M, N)`` (a vector: 1 unless all zero).
    tol : array_like, optional
        Absolute threshold; default ``rtol * s_max``.
    hermitian : bool, optional
        ``A`` is Hermitian.
    rtol : array_like, optional
        Relative threshold; default ``eps * max(M, N)``.

    Returns
    -------
    Array or int
        int64 ranks of shape ``(...)`` (an int for concrete 1-D ``A``).

    Notes
    -----
    Not differentiable (integer result).
    """
    A = _ndarray(A)
    if A.ndim < 2:
        if isinstance(A, Tracer):
            return P.convert_element_type(P.gt(F.sum(P.ne(A, 0)), 0), np.dtype(np.int64))
        return int(not np.all(A == 0))
    S = P.stop_gradient(svd(A, compute_uv=False, hermitian=hermitian))
    if tol is None:
        if rtol is None:
            rtol = builtins.max(A.shape[-2:]) * np.finfo(S.dtype).eps
        else:
            rtol = np.asarray(rtol)[..., None]
        tol = P.mul(F.max(S, axis=-1, keepdims=True), rtol)
    else:
        tol = np.asarray(tol)[..., None]
    return F.sum(P.gt(S, tol), axis=-1)


# ---------------------------------------------------------------------------------
# products and array-API extras of numpy.linalg
# ---------------------------------------------------------------------------------
def _chain_order(shapes: list[tuple[int, ...]]) -> Any:
    """NumPy's ``_multi_dot_matrix_chain_order`` (dynamic programming on costs)."""
    n = len(shapes)
    p = [s[0] for s in shapes] + [shapes[-1][1]]
    m = np.zeros((n, n), dtype=np.float64)
    s = np.empty((n, n), dtype=np.intp)
    for ln in range(1, n):
        for i in range(n - ln):
            j = i + ln
            m[i, j] = np.inf
            for k in range(i, j):
                q = m[i, k] + m[k + 1, j] + p[i] * p[k + 1] * p[j + 1]
                if q < m[i, j]:
                    m[i, j] = q
                    s[i, j] = k
    return s


def _chain(arrays: list[Any], order: Any, i: int, j: int) -> Array:
    if i == j:
        return arrays[i]
    return F.dot(_chain(arrays, order, i, order[i, j]),
                 _chain(arrays, order, order[i, j] + 1, j))


def multi_dot(arrays: Sequence[ArrayLike], *, out: None = None) -> Array:
    """Chain matrix product in NumPy's cheapest order.

    Parameters
    ----------
    arrays : sequence of array_like
        2-D arrays; the first may be 1-D (a row), the last 1-D
        (a column).
    out : None
        Not supported.

    Returns
    -------
    Array
        The product.

    Raises
    ------
    TypeError
        If ``out`` is given.
    ValueError
        For fewer than two arrays.
    LinAlgError
        For inner arrays that are not 2-D.

    Notes
    -----
    Differentiable (bilinear in each pair).
    """
    if out is not None:
        raise TypeError("ftrans.numpy.linalg.multi_dot: out= is not supported (arrays are "
                        "immutable values)")
    arrs = [_ndarray(a) for a in arrays]
    n = len(arrs)
    if n < 2:
        raise ValueError("Expecting at least two arrays.")
    if n == 2:
        return F.dot(arrs[0], arrs[1])
    ndim_first, ndim_last = arrs[0].ndim, arrs[-1].ndim
    if ndim_first == 1:
        arrs[0] = F.atleast_2d(arrs[0])
    if ndim_last == 1:
        arrs[-1] = F.transpose(F.atleast_2d(arrs[-1]))
    for a in arrs:
        if a.ndim != 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be "
                              "two-dimensional")
    if n == 3:
        a, b, c = arrs
        a0, a1b0 = a.shape
        b1c0, c1 = c.shape
        cost1 = a0 * b1c0 * (a1b0 + c1)
        cost2 = a1b0 * c1 * (a0 + b1c0)
        result = F.dot(F.dot(a, b), c) if cost1 < cost2 else F.dot(a, F.dot(b, c))
    else:
        order = _chain_order([tuple(a.shape) for a in arrs])
        result = _chain(arrs, order, 0, n - 1)
    if ndim_first == 1 and ndim_last == 1:
        return P.reshape(result, ())
    if ndim_first == 1 or ndim_last == 1:
        return F.ravel(result)
    return result


def trace(x: ArrayLike, /, *, offset: int = 0, dtype: DTypeLike | None = None) -> Array:
    """Sum of a diagonal of the last two axes.

    Parameters
    ----------
    x : array_like
        Shape ``(..., M, N)``.
    offset : int, optional
        Diagonal offset.
    dtype : dtype_like, optional
        Result dtype.

    Returns
    -------
    Array
        Shape ``(...)``.

    Raises
    ------
    LinAlgError
        For arrays of fewer than 2 dimensions.

    Notes
    -----
    Differentiable (linear).
    """
    x = _ndarray(x)
    _assert_stacked_2d(x)
    out = F.trace(x, offset=offset, axis1=-2, axis2=-1)
    return out if dtype is None else P.convert_element_type(out, np.dtype(dtype))


def diagonal(x: ArrayLike, /, *, offset: int = 0) -> Array:
    """A diagonal of the last two axes, as the last axis.

    Parameters
    ----------
    x : array_like
        Shape ``(..., M, N)``.
    offset : int, optional
        Diagonal offset.

    Returns
    -------
    Array
        Shape ``(..., K)``.

    Raises
    ------
    LinAlgError
        For arrays of fewer than 2 dimensions.

    Notes
    -----
    Differentiable (linear).
    """
    x = _ndarray(x)
    _assert_stacked_2d(x)
    n, m = x.shape[-2:]
    if offset >= 0:
        k = builtins.max(0, builtins.min(n, m - offset))
        rows, cols = np.arange(k), np.arange(k) + offset
    else:
        k = builtins.max(0, builtins.min(n + offset, m))
        rows, cols = np.arange(k) - offset, np.arange(k)
    return P.gather(x, (Ellipsis, rows, cols))


def matrix_transpose(x: ArrayLike, /) -> Array:
    """Swap the last two axes.

    Parameters
    ----------
    x : array_like
        Shape ``(..., M, N)``.

    Returns
    -------
    Array
        Shape ``(..., N, M)``.

    Raises
    ------
    LinAlgError
        For arrays of fewer than 2 dimensions.

    Notes
    -----
    Differentiable (linear).
    """
    x = _ndarray(x)
    _assert_stacked_2d(x)
    return _mT(x)


def vecdot(x1: ArrayLike, x2: ArrayLike, /, *, axis: int = -1) -> Array:
    """Vector dot product ``sum(conj(x1) * x2, axis)``, with broadcasting.

    Parameters
    ----------
    x1, x2 : array_like
        Operands, broadcast together.
    axis : int, optional
        The axis of the vectors.

    Returns
    -------
    Array
        The broadcast shape without ``axis``.

    Notes
    -----
    Differentiable (conjugate-linear in ``x1``, linear in ``x2``).
    """
    x1, x2 = _ndarray(x1), _ndarray(x2)
    prod = P.mul(P.conj(x1), x2)
    return F.sum(prod, axis=axis)


def outer(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """Outer product of two 1-D arrays.

    Parameters
    ----------
    x1, x2 : array_like
        1-D, of sizes ``M`` and ``N``.

    Returns
    -------
    Array
        Shape ``(M, N)``.

    Raises
    ------
    ValueError
        If an input is not 1-D.

    Notes
    -----
    Differentiable (bilinear).
    """
    x1, x2 = _ndarray(x1), _ndarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are "
                         f"x1.ndim={x1.ndim} and x2.ndim={x2.ndim}.")
    return F.outer(x1, x2)


def cross(x1: ArrayLike, x2: ArrayLike, /, *, axis: int = -1) -> Array:
    """Cross product of 3-element vectors.

    Parameters
    ----------
    x1, x2 : array_like
        Operands with size 3 along ``axis``, broadcast together.
    axis : int, optional
        The axis of the vectors.

    Returns
    -------
    Array
        The broadcast shape.

    Raises
    ------
    ValueError
        If ``axis`` does not have size 3 in both.

    Notes
    -----
    Differentiable (bilinear).
    """
    x1, x2 = _ndarray(x1), _ndarray(x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(f"Both input arrays must be (arrays of) 3-dimensional vectors, "
                         f"but they are {x1.shape[axis]} and {x2.shape[axis]} "
                         "dimensional instead.")
    return _cross(x1, x2, axis=axis)
