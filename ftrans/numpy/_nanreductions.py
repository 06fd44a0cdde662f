"""``average``, the NaN-ignoring reductions, ``ptp`` and the logical reductions of
``ftrans.numpy`` (the derivative conventions are stated in ``_reductions``'s module
docstring)."""
from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import Tracer
from ..core.dtypes import kind_of as _kind_of
from . import _funcs as F
from ..typing import Array, ArrayLike, Axis, DTypeLike
from ._reductions import _nd, _isnan
from ._args import P

__all__ = ["average", "nanmax", "nanmin", "nansum", "nanprod", "nanmean", "nanvar",
           "nanstd", "nanargmax", "nanargmin", "ptp", "count_nonzero", "all", "any"]

# ---------------------------------------------------------------------------------
# average, nan-reductions, ptp
# ---------------------------------------------------------------------------------
def average(a: ArrayLike, axis: Axis = None, weights: ArrayLike | None = None,
            returned: bool = False, *, keepdims: bool = False) -> Array | tuple[Array, Array]:
    """Weighted average along the given axes.

    The mean, or ``sum(a * w) / sum(w)`` with ``weights``.

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int or tuple of int, optional
        Axes to average over; all by default.
    weights : array_like, optional
        Weights of ``a``'s shape, or 1-D along a single ``axis``.
    returned : bool, optional
        Also return the sum of the weights (broadcast to the result's
        shape).
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions.

    Returns
    -------
    Array or tuple of Array
        The averages, and with ``returned`` the weight sums.

    Raises
    ------
    TypeError
        ``weights`` of another shape than ``a`` with no ``axis``.
    ValueError
        1-D ``weights`` whose length is not ``a.shape[axis]``.
    ZeroDivisionError
        Concrete weights summing to zero along the axis.

    Notes
    -----
    Differentiable in ``a`` and ``weights``.
    """
    a = _nd(a)
    axes = F._axes(axis, a.ndim)
    if weights is None:
        avg = F.mean(a, axis=axes, keepdims=keepdims)
        scl = np.asarray(a.size / builtins.max(avg.size, 1) if a.size else 0, avg.dtype)
    else:
        w = _nd(weights)
        if _kind_of(a) in "iub":
            rdt = np.result_type(a.dtype, w.dtype, "f8")
        else:
            rdt = np.result_type(a.dtype, w.dtype)
        if tuple(w.shape) != tuple(a.shape):
            if axis is None:
                raise TypeError("Axis must be specified when shapes of a and weights differ.")
            order = [F._axis(i, a.ndim) for i in
                     (axis if isinstance(axis, (tuple, list)) else (axis,))]
            if tuple(w.shape) != tuple(a.shape[i] for i in order):
                raise ValueError("Shape of weights must be consistent with shape of a along "
                                 "specified axis.")
            w = P.transpose(w, tuple(np.argsort(order).tolist()))
            shape = [1] * a.ndim
            for i in axes:
                shape[i] = a.shape[i]
            w = P.reshape(w, tuple(shape))
            w = P.broadcast_to(w, tuple(a.shape))
        if w.dtype != rdt:
            w = P.convert_element_type(w, rdt)
        scl = F.sum(w, axis=axes, keepdims=keepdims)
        if not isinstance(scl, Tracer) and np.any(np.asarray(scl) == 0.0):
            raise ZeroDivisionError("Weights sum to zero, can't be normalized")
        avg = P.div(F.sum(P.mul(a, w), axis=axes, dtype=rdt, keepdims=keepdims), scl)
    if returned:
        if tuple(np.shape(scl)) != tuple(avg.shape):
            scl = P.broadcast_to(scl, tuple(avg.shape))
        return avg, scl
    return avg


def _nanfill(a: Any, value: float) -> Array:
    if not _isnan(a):
        return a
    return P.where(P.isnan(a), np.asarray(value, a.dtype), a)


def _all_nan(a: Any, axes: tuple[int, ...], keepdims: bool) -> Array:
    n = F._count(a, axes)
    cnt = F.sum(P.isnan(a), axis=axes, keepdims=keepdims)
    return P.eq(cnt, n)


def _nan_extremum(fn: Callable[..., Array], fill: float, name: str) -> Callable[..., Array]:
    def f(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False) -> Array:
        if out is not None:
            raise ValueError(f"{name}: out= is not supported")
        a = _nd(a)
        if not _isnan(a):
            return fn(a, axis=axis, keepdims=keepdims)
        if _kind_of(a) == "c":
            raise TypeError(f"{name}: complex input is not supported")
        axes = F._axes(axis, a.ndim)
        res = fn(_nanfill(a, fill), axis=axes, keepdims=keepdims)
        return P.where(_all_nan(a, axes, keepdims), np.asarray(np.nan, a.dtype), res)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""{"Maximum" if name == "nanmax" else "Minimum"} along the given axes, ignoring NaNs.

    Parameters
    ----------
    a : array_like
        Real input array.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    out : None
        Not supported.
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions.

    Returns
    -------
    Array
        The extrema (NaN for an all-NaN slice).

    Raises
    ------
    ValueError
        If ``out`` is given, or for an empty reduction.
    TypeError
        For complex input containing NaNs.

    Notes
    -----
    Differentiable; NaN entries get derivative 0 and tied extrema share the derivative
    evenly.
    """
    return f


nanmax = _nan_extremum(F.max, -np.inf, "nanmax")
nanmin = _nan_extremum(F.min, np.inf, "nanmin")


def nansum(a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, out: None = None,
           keepdims: bool = False) -> Array:
    """Sum treating NaNs as zero.

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    dtype : dtype_like, optional
        Accumulator and result dtype.
    out : None
        Not supported.
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions.

    Returns
    -------
    Array
        The sums.

    Raises
    ------
    ValueError
        If ``out`` is given.

    Notes
    -----
    Differentiable (linear); NaN entries get derivative 0.
    """
    if out is not None:
        raise ValueError("nansum: out= is not supported")
    return F.sum(_nanfill(_nd(a), 0), axis=axis, dtype=dtype, keepdims=keepdims)


def nanprod(a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, out: None = None,
            keepdims: bool = False) -> Array:
    """Product treating NaNs as one.

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    dtype : dtype_like, optional
        Accumulator and result dtype.
    out : None
        Not supported.
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions.

    Returns
    -------
    Array
        The products.

    Raises
    ------
    ValueError
        If ``out`` is given.

    Notes
    -----
    Differentiable as :func:`prod`; NaN entries get derivative 0.
    """
    if out is not None:
        raise ValueError("nanprod: out= is not supported")
    return F.prod(_nanfill(_nd(a), 1), axis=axis, dtype=dtype, keepdims=keepdims)


def _nan_count(a: Any, axes: tuple[int, ...], keepdims: bool, dtype: Any) -> Array:
    c = F.sum(P.logical_not(P.isnan(a)), axis=axes, keepdims=keepdims)
    return P.convert_element_type(c, dtype)


def nanmean(a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, out: None = None,
            keepdims: bool = False) -> Array:
    """Mean of the non-NaN elements (NaN for an all-NaN slice).

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    dtype : dtype_like, optional
        Accumulator and result dtype.
    out : None
        Not supported.
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions.

    Returns
    -------
    Array
        The means; floating dtype.

    Raises
    ------
    ValueError
        If ``out`` is given.

    Notes
    -----
    Differentiable; NaN entries get derivative 0.
    """
    if out is not None:
        raise ValueError("nanmean: out= is not supported")
    a = _nd(a)
    if not _isnan(a):
        return F.mean(a, axis=axis, dtype=dtype, keepdims=keepdims)
    axes = F._axes(axis, a.ndim)
    s = F.sum(_nanfill(a, 0), axis=axes, dtype=dtype, keepdims=keepdims)
    return P.div(s, _nan_count(a, axes, keepdims, np.dtype(s.dtype).type(0).real.dtype))


def nanvar(a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, out: None = None,
           ddof: int = 0, keepdims: bool = False) -> Array:
    """Variance of the non-NaN elements (divisor ``count - ddof``).

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    dtype : dtype_like, optional
        Accumulator dtype.
    out : None
        Not supported.
    ddof : int, optional
        Delta degrees of freedom.
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions.

    Returns
    -------
    Array
        The variances; real floating dtype.

    Raises
    ------
    ValueError
        If ``out`` is given.

    Notes
    -----
    Differentiable; NaN entries get derivative 0.
    """
    if out is not None:
        raise ValueError("nanvar: out= is not supported")
    a = _nd(a)
    if not _isnan(a):
        return F.var(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    axes = F._axes(axis, a.ndim)
    m = nanmean(a, axis=axes, dtype=dtype, keepdims=True)
    d = _nanfill(P.sub(a, m), 0)
    sq = P.real(P.mul(P.conj(d), d)) if _kind_of(d) == "c" else P.mul(d, d)
    s = F.sum(sq, axis=axes, keepdims=keepdims)
    cnt = _nan_count(a, axes, keepdims, s.dtype)
    return P.div(s, P.maximum(P.sub(cnt, ddof), 0))


def nanstd(a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, out: None = None,
           ddof: int = 0, keepdims: bool = False) -> Array:
    """Standard deviation of the non-NaN elements (``sqrt(nanvar)``).

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    dtype : dtype_like, optional
        Accumulator dtype.
    out : None
        Not supported.
    ddof : int, optional
        Delta degrees of freedom.
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions.

    Returns
    -------
    Array
        The standard deviations; real floating dtype.

    Raises
    ------
    ValueError
        If ``out`` is given.

    Notes
    -----
    Differentiable; the derivative over a constant slice is 0 (the minimum-norm
    subgradient), and NaN entries get derivative 0.
    """
    return F._sqrt_flat_at_0(nanvar(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims))


def _nan_arg(fn: Callable[..., Array], fill: float, name: str) -> Callable[..., Array]:
    def f(a: ArrayLike, axis: int | None = None, out: None = None, *,
          keepdims: bool = False) -> Array:
        if out is not None:
            raise ValueError(f"{name}: out= is not supported")
        a = _nd(a)
        if not _isnan(a):
            return fn(a, axis=axis, keepdims=keepdims)
        nan = P.isnan(a)
        if not isinstance(nan, Tracer):
            axes = F._axes(axis, a.ndim)
            if np.any(np.all(nan, axis=axes)):
                raise ValueError("All-NaN slice encountered")
        return fn(P.where(nan, np.asarray(fill, a.dtype), a), axis=axis, keepdims=keepdims)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""Index of the {name[6:]}imum along an axis, ignoring NaNs.

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int, optional
        The axis; the flattened array by default.
    out : None
        Not supported.
    keepdims : bool, optional
        Keep the reduced axis as a size-1 dimension.

    Returns
    -------
    Array
        int64 indices.

    Raises
    ------
    ValueError
        If ``out`` is given, or a concrete slice is all NaN.

    Notes
    -----
    Not differentiable (integer result).
    """
    return f


nanargmax = _nan_arg(F.argmax, -np.inf, "nanargmax")
nanargmin = _nan_arg(F.argmin, np.inf, "nanargmin")


def ptp(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False) -> Array:
    """Range of values (``max - min``) along the given axes.

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    out : None
        Not supported.
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions.

    Returns
    -------
    Array
        The ranges.

    Raises
    ------
    ValueError
        If ``out`` is given, or for an empty reduction.

    Notes
    -----
    Differentiable; tied extrema share the derivative evenly.
    """
    if out is not None:
        raise ValueError("ptp: out= is not supported")
    return P.sub(F.max(a, axis=axis, keepdims=keepdims), F.min(a, axis=axis, keepdims=keepdims))


# ---------------------------------------------------------------------------------
# logical reductions (no derivative)
# ---------------------------------------------------------------------------------
def _nonzero_count(a: ArrayLike, axis: Axis, keepdims: bool) -> tuple[Any, tuple[int, ...], Array]:
    a = _nd(a)
    nz = a if _kind_of(a) == "b" else P.ne(a, 0)
    axes = F._axes(axis, a.ndim)
    c = P.reduce_sum(P.convert_element_type(nz, np.dtype(np.int64)), axes)
    return a, axes, F._keepdims(a, c, axes, keepdims)


def count_nonzero(a: ArrayLike, axis: Axis = None, *, keepdims: bool = False) -> Array | int:
    """Number of nonzero elements along the given axes.

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int or tuple of int, optional
        Axes to count along; all by default.
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions.

    Returns
    -------
    Array or int
        int64 counts (a Python int when concrete with ``axis=None``).

    Notes
    -----
    Not differentiable (integer result).
    """
    a, axes, c = _nonzero_count(a, axis, keepdims)
    if axis is None and not keepdims and not isinstance(c, Tracer):
        return int(c)
    return c


def all(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False, *,
        where: None = None) -> Array:
    """Whether all elements along the given axes are true (nonzero).

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    out : None
        Not supported.
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions.
    where : None
        Not supported.

    Returns
    -------
    Array
        Boolean.

    Raises
    ------
    ValueError
        If ``out`` or ``where`` is given.

    Notes
    -----
    Not differentiable (boolean result).
    """
    if out is not None or where is not None:
        raise ValueError("all: out= and where= are not supported")
    a, axes, c = _nonzero_count(a, axis, keepdims)
    return P.eq(c, F._count(a, axes))


def any(a: ArrayLike, axis: Axis = None, out: None = None, keepdims: bool = False, *,
        where: None = None) -> Array:
    """Whether any element along the given axes is true (nonzero).

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    out : None
        Not supported.
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions.
    where : None
        Not supported.

    Returns
    -------
    Array
        Boolean.

    Raises
    ------
    ValueError
        If ``out`` or ``where`` is given.

    Notes
    -----
    Not differentiable (boolean result).
    """
    if out is not None or where is not None:
        raise ValueError("any: out= and where= are not supported")
    a, axes, c = _nonzero_count(a, axis, keepdims)
    return P.gt(c, 0)
