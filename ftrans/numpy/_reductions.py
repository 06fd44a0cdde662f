"""Reductions, scans, sorting and order statistics of ``ftrans.numpy`` (and
``logsumexp``, re-exported by ``ftrans.scipy.special``).

Derivatives (all written in primitives, so they nest and batch):

* ``cumsum``: the ``cumsum`` primitive; its VJP is the cumulative sum from the other end.
* ``cumprod``: a log-step (Hillis-Steele) scan of multiplications -- ``ceil(log2 n)``
  passes, ``O(n log n)`` work -- instead of ``cumprod * cumsum(t / x)``, which divides
  by zero where an element is 0.  Every order of derivative is exact at zeros (the same
  reasoning as ``prod``'s prefix-times-suffix rule).  Without a transform the value is
  NumPy's ``cumprod``.
* ``sort`` = ``take_along_axis(a, argsort(a))`` (stable ``argsort`` primitive): the VJP
  scatters the cotangent back through the permutation.  At ties sorting is continuous
  but not differentiable; the derivative follows the stable order.
* ``median``/``quantile``/``percentile``: order statistics of the sorted array,
  interpolated with fixed weights (NumPy's ``_lerp`` formula), so the derivative goes
  to the one or two order statistics used, with the interpolation weights.  For the
  continuous methods ``q`` may be traced and gets the derivative
  ``(s[hi] - s[lo]) * d(virtual index)/dq``.
* ``nan*`` reductions replace NaNs by the neutral element with ``where``; NaN entries
  get a zero derivative; an all-NaN slice gives NaN (as NumPy, with its warning).
* ``logsumexp``: ``m + log(sum(b * exp(a - m)))`` with ``m = stop_gradient(max a)``:
  the derivative is the softmax weights ``b * exp(a - lse)`` (the ``m`` terms cancel
  exactly, so stopping its gradient is exact, not an approximation); ``-inf`` entries
  get weight 0 (no NaN); a slice whose sum is 0 (all ``-inf``) gives ``-inf`` and a zero
  derivative (double ``where``).
* ``average``: ``sum(a * w) / sum(w)``, differentiable in ``a`` and ``w``.
* ``all``/``any``/``count_nonzero``, ``argsort``/``argpartition``, ``nanargmax``/
  ``nanargmin``: integer or boolean results, no derivative.
"""
from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from ..core import Tracer
from ..core.dtypes import kind_of as _kind_of, as_numpy_dtype
from ..primitives._rules import no_trace
from ..kernels import backend_for
from . import _funcs as F
from ..typing import Array, ArrayLike, Axis, DTypeLike
from ._indexing import take_along_axis
from ._args import P

# (the quantiles are in ``_quantiles.py``, average and the nan-/logical reductions and
# logsumexp in ``_nanreductions.py``)
__all__ = ["cumsum", "cumprod", "cumulative_sum", "cumulative_prod", "nancumsum",
           "nancumprod", "diff", "ediff1d", "sort", "argsort", "sort_complex", "partition",
           "argpartition", "logsumexp"]

_nd = F._ndarray


def _concrete(*xs: Any) -> bool:
    return no_trace() and not builtins.any(isinstance(x, Tracer) for x in xs)


def _accum_dtype(a: Any, dtype: DTypeLike | None) -> Any:
    """NumPy's accumulation dtype: small integers and booleans go to the default int."""
    if dtype is not None:
        return np.dtype(dtype)
    d = as_numpy_dtype(a.dtype)
    if d.kind == "b" or (d.kind == "i" and d.itemsize < 8):
        return np.dtype(np.int64)
    if d.kind == "u" and d.itemsize < 8:
        return np.dtype(np.uint64)
    return d


def _flat_axis(a: Any, axis: int | None) -> tuple[Array, int]:
    a = _nd(a)
    if axis is None:
        return F.ravel(a), 0
    return a, F._axis(axis, a.ndim)


def _isnan(a: Any) -> bool:
    return _kind_of(a) in "fc"


# ---------------------------------------------------------------------------------
# scans
# ---------------------------------------------------------------------------------
def cumsum(a: ArrayLike, axis: int | None = None, dtype: DTypeLike | None = None,
           out: None = None) -> Array:
    """Cumulative sum of the elements along an axis.

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int, optional
        The axis; the flattened array by default.
    dtype : dtype_like, optional
        Accumulator and result dtype (small integers and booleans
        accumulate in int64, as NumPy).
    out : None
        Not supported (ftrans.numpy is functional).

    Returns
    -------
    Array
        Same shape as ``a`` (1-D for ``axis=None``).

    Raises
    ------
    ValueError
        If ``out`` is given.

    Notes
    -----
    Differentiable (linear; the VJP is the cumulative sum from the other end).
    """
    if out is not None:
        raise ValueError("cumsum: out= is not supported (ftrans.numpy is functional)")
    a, ax = _flat_axis(a, axis)
    dt = _accum_dtype(a, dtype)
    if a.dtype != dt:
        a = P.convert_element_type(a, dt)
    return P.cumsum(a, ax)


def _cumprod_scan(a: Any, ax: int) -> Array:
    """Inclusive product scan along ``ax`` by multiplications only (Hillis-Steele)."""
    n = a.shape[ax]
    pre = (slice(None),) * ax
    s = 1
    while s < n:
        a = P.concatenate([P.gather(a, pre + (slice(0, s),)),
                           P.mul(P.gather(a, pre + (slice(s, n),)),
                                 P.gather(a, pre + (slice(0, n - s),)))], ax)
        s *= 2
    return a


def cumprod(a: ArrayLike, axis: int | None = None, dtype: DTypeLike | None = None,
            out: None = None) -> Array:
    """Cumulative product of the elements along an axis.

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int, optional
        The axis; the flattened array by default.
    dtype : dtype_like, optional
        Accumulator and result dtype.
    out : None
        Not supported (ftrans.numpy is functional).

    Returns
    -------
    Array
        Same shape as ``a`` (1-D for ``axis=None``).

    Raises
    ------
    ValueError
        If ``out`` is given.

    Notes
    -----
    Differentiable; derivatives of every order are exact also where elements are zero
    (a log-step scan of products, no division; see the module docstring).
    """
    if out is not None:
        raise ValueError("cumprod: out= is not supported (ftrans.numpy is functional)")
    a, ax = _flat_axis(a, axis)
    dt = _accum_dtype(a, dtype)
    if a.dtype != dt:
        a = P.convert_element_type(a, dt)
    if _concrete(a):
        return backend_for(a).xp.cumprod(a, axis=ax, dtype=dt)
    return _cumprod_scan(a, ax)


def _cumulative(fn: Callable[..., Array], x: Any, axis: int | None, dtype: DTypeLike | None,
                include_initial: bool, initial: float, name: str) -> Array:
    x = _nd(x)
    if x.ndim == 0:
        raise ValueError(f"{name}: input must be at least 1-d")
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"{name}: axis must be specified for multi-dimensional arrays")
        axis = 0
    ax = F._axis(axis, x.ndim)
    out = fn(x, axis=ax, dtype=dtype)
    if include_initial:
        shape = list(out.shape)
        shape[ax] = 1
        out = P.concatenate([np.full(shape, initial, out.dtype), out], ax)
    return out


def cumulative_sum(x: ArrayLike, /, *, axis: int | None = None, dtype: DTypeLike | None = None,
                   out: None = None, include_initial: bool = False) -> Array:
    """Cumulative sum, optionally starting with 0 (NumPy 2.1's array-API name).

    Parameters
    ----------
    x : array_like
        Input array.
    axis : int, optional
        The axis; may be omitted only for 1-D ``x``.
    dtype : dtype_like, optional
        Accumulator and result dtype.
    out : None
        Not supported.
    include_initial : bool, optional
        Prepend the initial value 0 along ``axis``.

    Returns
    -------
    Array
        ``x``'s shape, one longer along ``axis`` with ``include_initial``.

    Raises
    ------
    ValueError
        If ``out`` is given, ``x`` is 0-d, or ``axis`` is omitted for N-D ``x``.

    Notes
    -----
    Differentiable (linear).
    """
    if out is not None:
        raise ValueError("cumulative_sum: out= is not supported")
    return _cumulative(cumsum, x, axis, dtype, include_initial, 0, "cumulative_sum")


def cumulative_prod(x: ArrayLike, /, *, axis: int | None = None, dtype: DTypeLike | None = None,
                    out: None = None, include_initial: bool = False) -> Array:
    """Cumulative product, optionally starting with 1 (NumPy 2.1's array-API name).

    Parameters
    ----------
    x : array_like
        Input array.
    axis : int, optional
        The axis; may be omitted only for 1-D ``x``.
    dtype : dtype_like, optional
        Accumulator and result dtype.
    out : None
        Not supported.
    include_initial : bool, optional
        Prepend the initial value 1 along ``axis``.

    Returns
    -------
    Array
        ``x``'s shape, one longer along ``axis`` with ``include_initial``.

    Raises
    ------
    ValueError
        If ``out`` is given, ``x`` is 0-d, or ``axis`` is omitted for N-D ``x``.

    Notes
    -----
    Differentiable, exact at zeros as :func:`cumprod`.
    """
    if out is not None:
        raise ValueError("cumulative_prod: out= is not supported")
    return _cumulative(cumprod, x, axis, dtype, include_initial, 1, "cumulative_prod")


def nancumsum(a: ArrayLike, axis: int | None = None, dtype: DTypeLike | None = None,
              out: None = None) -> Array:
    """Cumulative sum treating NaNs as zero.

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int, optional
        The axis; the flattened array by default.
    dtype : dtype_like, optional
        Accumulator and result dtype.
    out : None
        Not supported.

    Returns
    -------
    Array
        Same shape as ``a`` (1-D for ``axis=None``).

    Raises
    ------
    ValueError
        If ``out`` is given.

    Notes
    -----
    Differentiable; NaN entries get derivative 0.
    """
    a = _nd(a)
    if _isnan(a):
        a = P.where(P.isnan(a), np.zeros((), a.dtype), a)
    return cumsum(a, axis, dtype, out)


def nancumprod(a: ArrayLike, axis: int | None = None, dtype: DTypeLike | None = None,
               out: None = None) -> Array:
    """Cumulative product treating NaNs as one.

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int, optional
        The axis; the flattened array by default.
    dtype : dtype_like, optional
        Accumulator and result dtype.
    out : None
        Not supported.

    Returns
    -------
    Array
        Same shape as ``a`` (1-D for ``axis=None``).

    Raises
    ------
    ValueError
        If ``out`` is given.

    Notes
    -----
    Differentiable; NaN entries get derivative 0.
    """
    a = _nd(a)
    if _isnan(a):
        a = P.where(P.isnan(a), np.ones((), a.dtype), a)
    return cumprod(a, axis, dtype, out)


_NOVALUE = np._NoValue


def diff(a: ArrayLike, n: int = 1, axis: int = -1, prepend: Any = _NOVALUE,
         append: Any = _NOVALUE) -> Array:
    """The ``n``-th forward difference along an axis.

    Parameters
    ----------
    a : array_like
        Input array, at least 1-D.
    n : int, optional
        Number of times to difference.
    axis : int, optional
        The axis.
    prepend, append : array_like, optional
        Values joined to ``a`` along ``axis`` first
        (scalars are broadcast).

    Returns
    -------
    Array
        ``n`` shorter than the (extended) input along ``axis``.

    Raises
    ------
    ValueError
        If ``n`` is negative or ``a`` is 0-d.

    Notes
    -----
    Differentiable (linear).
    """
    if n == 0:
        return _nd(a)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    a = _nd(a)
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    ax = F._axis(axis, a.ndim)
    parts = []
    for v in (prepend, a, append):
        if v is _NOVALUE:
            continue
        if v is a:
            parts.append(a)
            continue
        v = _nd(v)
        if v.ndim == 0:
            shape = list(a.shape)
            shape[ax] = 1
            v = P.broadcast_to(v, tuple(shape))
        parts.append(v)
    if len(parts) > 1:
        a = F.concatenate(parts, ax)
    pre = (slice(None),) * ax
    for _ in range(n):
        m = a.shape[ax]
        hi, lo = P.gather(a, pre + (slice(1, m),)), P.gather(a, pre + (slice(0, m - 1),))
        a = P.ne(hi, lo) if _kind_of(a) == "b" else P.sub(hi, lo)
    return a


def ediff1d(ary: ArrayLike, to_end: ArrayLike | None = None,
            to_begin: ArrayLike | None = None) -> Array:
    """Differences between consecutive elements of the flattened array.

    Parameters
    ----------
    ary : array_like
        Input (flattened).
    to_end : array_like, optional
        Values appended to the differences.
    to_begin : array_like, optional
        Values prepended to the differences.

    Returns
    -------
    Array
        1-D.

    Notes
    -----
    Differentiable (linear).
    """
    a = F.ravel(ary)
    m = a.shape[0]
    d = P.sub(P.gather(a, slice(1, m)), P.gather(a, slice(0, builtins.max(m - 1, 0))))
    parts = []
    if to_begin is not None:
        parts.append(P.convert_element_type(F.ravel(to_begin), d.dtype)
                     if F._ndarray(to_begin).dtype != d.dtype else F.ravel(to_begin))
    parts.append(d)
    if to_end is not None:
        parts.append(P.convert_element_type(F.ravel(to_end), d.dtype)
                     if F._ndarray(to_end).dtype != d.dtype else F.ravel(to_end))
    return P.concatenate(parts, 0) if len(parts) > 1 else d


# ---------------------------------------------------------------------------------
# sorting
# ---------------------------------------------------------------------------------
def _check_sort_args(kind: str | None, order: Any, name: str) -> None:
    if order is not None:
        raise ValueError(f"{name}: order= (structured arrays) is not supported")
    if kind not in (None, "quicksort", "mergesort", "heapsort", "stable"):
        raise ValueError(f"{name}: sort kind must be one of 'quick', 'heap', or 'stable' "
                         f"(got {kind!r})")


def sort(a: ArrayLike, axis: int | None = -1, kind: str | None = None, order: None = None, *,
         stable: bool | None = None) -> Array:
    """Sorted copy of an array (NaNs last, complex lexicographic).

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int or None, optional
        The axis; ``None`` sorts the flattened array.
    kind : {'quicksort', 'mergesort', 'heapsort', 'stable'}, optional
        Accepted; the sort is
        always stable.
    order : None
        Structured-array field order; not supported.
    stable : bool, optional
        Accepted; the sort is always stable.

    Returns
    -------
    Array
        Same shape as ``a`` (1-D for ``axis=None``).

    Raises
    ------
    ValueError
        For ``order`` or an unknown ``kind``.
    numpy.exceptions.AxisError
        For a 0-d ``a`` with an axis.

    Notes
    -----
    Differentiable as ``take_along_axis(a, argsort(a))``: the VJP scatters the cotangent
    back through the permutation; at ties the derivative follows the stable order.
    """
    _check_sort_args(kind, order, "sort")
    a, ax = _flat_axis(a, axis)
    if a.ndim == 0:
        raise np.exceptions.AxisError(0 if axis is None else axis, 0)
    if _concrete(a):
        return backend_for(a).xp.sort(a, axis=ax)
    return take_along_axis(a, P.argsort(a, ax), ax)


def argsort(a: ArrayLike, axis: int | None = -1, kind: str | None = None, order: None = None,
            *, stable: bool | None = None) -> Array:
    """Indices that sort an array (a stable sort).

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int or None, optional
        The axis; ``None`` sorts the flattened array.
    kind : str, optional
        Accepted; the sort is always stable.
    order : None
        Not supported.
    stable : bool, optional
        Accepted; the sort is always stable.

    Returns
    -------
    Array
        int64 indices, ``a``'s shape (1-D for ``axis=None``).

    Raises
    ------
    ValueError
        For ``order`` or an unknown ``kind``.

    Notes
    -----
    Not differentiable (integer result).
    """
    _check_sort_args(kind, order, "argsort")
    a = _nd(a)
    if a.ndim == 0:  # NumPy: array([0]) for any axis
        return P.argsort(P.reshape(a, (1,)), 0)
    a, ax = _flat_axis(a, axis)
    return P.argsort(a, ax)


def sort_complex(a: ArrayLike) -> Array:
    """Sort an array along its last axis as complex numbers.

    Parameters
    ----------
    a : array_like
        Input array.

    Returns
    -------
    Array
        Complex dtype, sorted by real then imaginary part.

    Notes
    -----
    Differentiable as :func:`sort`.
    """
    a = _nd(a)
    s = sort(a)
    if _kind_of(s) == "c":
        return s
    # NumPy: (u)int8/(u)int16 -> complex64, everything else -> complex128
    target = np.dtype(np.complex64) if s.dtype.char in "bhBH" else np.dtype(np.complex128)
    return P.convert_element_type(s, target)


def _check_kth(kth: Any, n: int) -> Any:
    k = np.asarray(kth)
    if _kind_of(k) not in "iu":
        raise TypeError("Partition index must be integer")
    k = np.where(k < 0, k + n, k)
    if k.size and (k.min() < 0 or k.max() >= n):
        bad = np.asarray(kth).reshape(-1)[(k.reshape(-1) < 0) | (k.reshape(-1) >= n)][0]
        raise ValueError(f"kth(={int(bad)}) out of bounds ({n})")


def partition(a: ArrayLike, kth: int | Sequence[int], axis: int | None = -1,
              kind: str = "introselect", order: None = None) -> Array:
    """Partially sorted copy: each ``kth`` element in its sorted position.

    Computed by a full stable sort: no larger element is before a ``kth`` position and no
    smaller one after it, NumPy's contract (the order inside the parts, unspecified by
    NumPy, is sorted here).

    Parameters
    ----------
    a : array_like
        Input array.
    kth : int or sequence of int
        Positions to put in place.
    axis : int or None, optional
        The axis; ``None`` uses the flattened array.
    kind : str, optional
        Accepted for NumPy compatibility.
    order : None
        Not supported.

    Returns
    -------
    Array
        Same shape as ``a``.

    Raises
    ------
    ValueError
        For ``order`` or a ``kth`` out of bounds.
    TypeError
        For a non-integer ``kth``.

    Notes
    -----
    Differentiable as :func:`sort`.
    """
    if order is not None:
        raise ValueError("partition: order= is not supported")
    a, ax = _flat_axis(a, axis)
    _check_kth(kth, a.shape[ax])
    return sort(a, ax)


def argpartition(a: ArrayLike, kth: int | Sequence[int], axis: int | None = -1,
                 kind: str = "introselect", order: None = None) -> Array:
    """Indices that partition an array (by a stable ``argsort``; see :func:`partition`).

    Parameters
    ----------
    a : array_like
        Input array.
    kth : int or sequence of int
        Positions to put in place.
    axis : int or None, optional
        The axis; ``None`` uses the flattened array.
    kind : str, optional
        Accepted for NumPy compatibility.
    order : None
        Not supported.

    Returns
    -------
    Array
        int64 indices, ``a``'s shape.

    Raises
    ------
    ValueError
        For ``order`` or a ``kth`` out of bounds.
    TypeError
        For a non-integer ``kth``.

    Notes
    -----
    Not differentiable (integer result).
    """
    if order is not None:
        raise ValueError("argpartition: order= is not supported")
    a, ax = _flat_axis(a, axis)
    _check_kth(kth, a.shape[ax])
    return P.argsort(a, ax)


# ---------------------------------------------------------------------------------
# logsumexp (scipy.special's; re-exported by ftrans.scipy.special)
# ---------------------------------------------------------------------------------
def logsumexp(a: ArrayLike, axis: Axis = None, b: ArrayLike | None = None,
              keepdims: bool = False, return_sign: bool = False) -> Array | tuple[Array, Array]:
    """Logarithm of the sum of exponentials, ``log(sum(b * exp(a)))``, computed stably.

    Computed as ``m + log(sum(b * exp(a - m)))``, ``m`` the maximum real part; float32
    stays float32 (SciPy's ``scipy.special.logsumexp``).

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    b : array_like, optional
        Scale factors, broadcast with ``a``; entries with ``b == 0``
        are ignored (SciPy's rule).
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions.
    return_sign : bool, optional
        Return ``(log|sum|, sign(sum))``, for sums that may be
        negative (otherwise NaN).

    Returns
    -------
    Array or tuple of Array
        The result, and with ``return_sign`` the sign.

    Notes
    -----
    Differentiable: ``d/da_i = b_i exp(a_i - out)`` (the softmax weights), finite for
    ``-inf`` entries (weight 0); ``d/db_i = exp(a_i - out)``.  A slice whose weighted sum
    is 0 gives ``-inf`` with a zero derivative.
    """
    a = _nd(a)
    if b is not None:
        b = _nd(b)
        shape = np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
        a = P.broadcast_to(a, shape) if tuple(a.shape) != shape else a
        b = P.broadcast_to(b, shape) if tuple(b.shape) != shape else b
        a = P.where(P.eq(b, 0), np.asarray(-np.inf, a.dtype), a)
    if _kind_of(a) in "iub":
        a = P.convert_element_type(a, np.dtype(np.float64))
    axes = F._axes(axis, a.ndim)
    ar = P.real(a) if _kind_of(a) == "c" else a
    if a.size == 0:
        m = np.zeros(tuple(1 if i in axes else d for i, d in enumerate(a.shape)), ar.dtype)
    else:
        m = P.stop_gradient(F.max(ar, axis=axes, keepdims=True))
        m = P.where(P.isfinite(m), m, np.zeros((), m.dtype))
    t = P.exp(P.sub(a, m))
    if b is not None:
        t = P.mul(b, t)
    s = F.sum(t, axis=axes, keepdims=True)
    sgn = None
    if return_sign:
        if _kind_of(s) == "c":
            mag = P.abs(s)
            sgn = P.div(s, P.where(P.eq(mag, 0), np.ones((), mag.dtype), mag))
        else:
            sgn = P.sign(s)
        s = P.abs(s)
    zero_sum = P.eq(s, 0)
    safe = P.where(zero_sum, np.ones((), s.dtype), s)
    out = P.add(P.where(zero_sum, np.asarray(-np.inf, s.dtype), P.log(safe)), m)
    if not keepdims:
        out = P.reshape(out, tuple(d for i, d in enumerate(out.shape) if i not in axes))
        if sgn is not None:
            sgn = P.reshape(sgn, tuple(out.shape))
    if return_sign:
        return out, cast(Array, sgn)
    return out
