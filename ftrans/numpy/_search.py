"""Searching and counting: ``nonzero``, ``argwhere``, ``flatnonzero``, ``searchsorted``,
``digitize``, ``lexsort``, ``bincount``, ``histogram`` and its 2-d/n-d/bin-edge variants.

Their index, position and count results are integers: non-differentiable outputs (NumPy's
values, computed from the inputs' concrete values).  What *is* differentiable flows: the
``weights`` of ``bincount``/``histogram*``, and the bin edges of ``histogram`` where they
are computed from the data (``linspace(min(a), max(a), bins + 1)``: the derivative of the
edges with respect to the extreme samples, as ``jax.numpy.histogram``'s).

Data-dependent result shapes.  ``nonzero`` and friends have a result shape that depends
on the *values* of the argument.  They work eagerly and under ``grad``/``jvp``/``vjp``
(which see concrete values); under ``jit`` or ``vmap`` the values are abstract, and -- as
in ``jax.numpy`` -- the caller gives the result size with ``size=`` (``nonzero``,
``argwhere``, ``flatnonzero``: extra slots are ``fill_value``, default 0; surplus
entries are dropped), and ``bincount`` its ``length=``.  Without it they raise
:class:`ftrans.ConcretizationError` saying so.  ``searchsorted``, ``digitize``,
``lexsort`` and the histograms have value-independent result shapes and run under every
transform (the traced ``searchsorted`` compares every value with every element:
``O(len(a) * v.size)`` work, against NumPy's ``O(v.size log len(a))`` binary search, which
eager calls use).
"""
from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.ir import ConcretizationError
from ..core.dtypes import kind_of as _kind_of
from ..typing import Array, ArrayLike
from . import _funcs as F
from ._indexing import take_along_axis as _take_along_axis
from .linalg import _concrete
from ._args import P

__all__ = ["nonzero", "argwhere", "flatnonzero", "searchsorted", "digitize", "lexsort",
           "bincount", "histogram", "histogram_bin_edges", "histogram2d", "histogramdd"]

_nd = F._ndarray
_INT = np.dtype(np.int64)


def _values(*xs: Any) -> Any:
    """The concrete NumPy values of ``xs`` (unwrapping ``grad``/``jvp`` tracers), or None
    when one of them is abstract (inside ``jit`` or ``vmap``)."""
    out = []
    for x in xs:
        c = _concrete(x) if x is not None else None
        if c is None and x is not None:
            return None
        out.append(c)
    return out


def _need_size(name: str, hint: str = "size=") -> Exception:
    return ConcretizationError(
        f"ftrans.numpy.{name}: the shape of the result depends on the values of the "
        "argument, which are abstract here (inside jit or vmap). Pass the result size "
        f"statically with {hint} (as in jax.numpy), or call it outside jit/vmap.")


# ---------------------------------------------------------------------------------
# nonzero, argwhere, flatnonzero
# ---------------------------------------------------------------------------------
def _fills(fill_value: Any, ndim: int) -> Any:
    if fill_value is None:
        return (0,) * ndim
    if isinstance(fill_value, (tuple, list)):
        if len(fill_value) != ndim:
            raise ValueError(f"nonzero: fill_value must be a scalar or a tuple of length "
                             f"{ndim} (one per dimension), got length {len(fill_value)}")
        return tuple(fill_value)
    return (fill_value,) * ndim


def nonzero(a: ArrayLike, *, size: int | None = None,
            fill_value: ArrayLike | tuple[Any, ...] | None = None) -> tuple[Array, ...]:
    """Indices of the nonzero elements, one int64 array per dimension, in C order.


    Examples
    --------
    >>> import ftrans.numpy as fnp
    >>> fnp.nonzero(fnp.array([[0, 3], [4, 0]]))
    (array([0, 1]), array([1, 0]))

    Parameters
    ----------
    a : array_like
        Input array, at least 1-D.
    size : int, optional
        ``jax.numpy``'s static result length: required under
        ``jit``/``vmap`` (where the number of nonzeros is not known).  Fewer nonzeros: the
        tail is ``fill_value``; more: the first ``size`` are kept.
    fill_value : scalar or tuple of scalars, optional
        Padding index (per dimension); 0 by
        default.

    Returns
    -------
    tuple of Array
        ``a.ndim`` 1-D int64 arrays.

    Raises
    ------
    ValueError
        ``a`` is 0-d (as NumPy 2).
    ConcretizationError
        Abstract ``a`` (inside ``jit``/``vmap``) without ``size``.

    Notes
    -----
    Not differentiable (integer results).
    """
    a = _nd(a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "fnp.atleast_1d(scalar).nonzero() instead.")
    fills = _fills(fill_value, a.ndim)
    vals = _values(a)
    if vals is not None:
        idx = np.nonzero(vals[0])
        if size is None:
            return idx
        size = operator.index(size)
        return tuple(np.concatenate([i[:size], np.full(builtins.max(size - i.size, 0), f,
                                                       dtype=i.dtype)]).astype(np.int64)
                     for i, f in zip(idx, fills))
    if size is None:
        raise _need_size("nonzero")
    return _nonzero_sized(a, operator.index(size), fills)


def _nonzero_sized(a: Any, size: int, fills: Any) -> tuple[Array, ...]:
    """Traced ``nonzero`` with a static ``size``: a stable argsort puts the nonzero
    positions first, in order."""
    n = a.size
    m = P.reshape(P.ne(a, 0), (n,))
    perm = P.argsort(P.convert_element_type(P.logical_not(m), _INT), 0)
    count = P.reduce_sum(P.convert_element_type(m, _INT), (0,))
    if size <= n:
        flat = P.gather(perm, slice(0, size))
    else:
        flat = P.concatenate([perm, np.zeros(size - n, np.int64)], 0)
    valid = P.lt(np.arange(size, dtype=np.int64), count)
    out, stride = [], n
    for d, f in zip(a.shape, fills):
        stride //= builtins.max(d, 1)
        i = P.remainder(P.floor_divide(flat, builtins.max(stride, 1)), builtins.max(d, 1))
        out.append(P.where(valid, i, np.asarray(f, np.int64)))
    return tuple(out)


def argwhere(a: ArrayLike, *, size: int | None = None,
             fill_value: ArrayLike | tuple[Any, ...] | None = None) -> Array:
    """Indices of the nonzero elements as an ``(N, a.ndim)`` array.

    Parameters
    ----------
    a : array_like
        Input array.
    size : int, optional
        Static result length, as for :func:`nonzero`.
    fill_value : scalar or tuple of scalars, optional
        Padding index, as for :func:`nonzero`.

    Returns
    -------
    Array
        int64, shape ``(N, a.ndim)``.

    Raises
    ------
    ConcretizationError
        Abstract ``a`` without ``size``.

    Notes
    -----
    Not differentiable (integer result).
    """
    a = _nd(a)
    if a.ndim == 0:
        vals = _values(a)
        if vals is not None and size is None:
            return np.argwhere(vals[0])
        a = F.reshape(a, (1,))
        return F.reshape(nonzero(a, size=size, fill_value=fill_value)[0], (-1, 1))[:, :0]
    vals = _values(a)
    if vals is not None and size is None:
        return np.argwhere(vals[0])
    return F.stack(nonzero(a, size=size, fill_value=fill_value), axis=1)


def flatnonzero(a: ArrayLike, *, size: int | None = None,
                fill_value: ArrayLike | None = None) -> Array:
    """Indices of the nonzero elements of ``ravel(a)``.

    Parameters
    ----------
    a : array_like
        Input array.
    size : int, optional
        Static result length, as for :func:`nonzero`.
    fill_value : scalar, optional
        Padding index, as for :func:`nonzero`.

    Returns
    -------
    Array
        1-D int64.

    Raises
    ------
    ConcretizationError
        Abstract ``a`` without ``size``.

    Notes
    -----
    Not differentiable (integer result).
    """
    return nonzero(F.ravel(_nd(a)), size=size, fill_value=fill_value)[0]


# ---------------------------------------------------------------------------------
# searchsorted, digitize, lexsort
# ---------------------------------------------------------------------------------
def _lt(x: Any, y: Any) -> Any:
    """``x < y`` in NumPy's sort order (NaN after every number; complex lexicographic)."""
    if _kind_of(x) == "c" or _kind_of(y) == "c":
        xr, yr, xi, yi = P.real(x), P.real(y), P.imag(x), P.imag(y)
        return P.logical_or(_lt(xr, yr), P.logical_and(P.eq(xr, yr), _lt(xi, yi)))
    lt = P.lt(x, y)
    if _kind_of(x) == "f" or _kind_of(y) == "f":
        lt = P.logical_or(lt, P.logical_and(P.logical_not(P.isnan(x)), P.isnan(y)))
    return lt


def searchsorted(a: ArrayLike, v: ArrayLike, side: str = "left",
                 sorter: ArrayLike | None = None) -> Array:
    """Indices where elements of ``v`` would be inserted into sorted ``a`` to keep it sorted.

    NaN sorts last, as in NumPy.

    Examples
    --------
    >>> import ftrans.numpy as fnp
    >>> fnp.searchsorted(fnp.array([1., 2., 3.]), fnp.array([2., 2.5]))
    array([1, 2])

    Parameters
    ----------
    a : array_like
        Sorted 1-D array (or any order with ``sorter``).
    v : array_like
        Values to insert.
    side : {'left', 'right'}, optional
        Before (``'left'``) or after equal elements.
    sorter : array_like of int, optional
        Indices that sort ``a``.

    Returns
    -------
    Array
        int64 indices, ``v``'s shape.

    Raises
    ------
    ValueError
        ``a`` not 1-D or ``side`` not ``'left'``/``'right'``.

    Notes
    -----
    Not differentiable (integer result).
    """
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', got {side!r}")
    a, v = _nd(a), _nd(v)
    if a.ndim != 1:
        raise ValueError(f"searchsorted: `a` must be 1-d, got shape {tuple(a.shape)}")
    vals = _values(a, v, sorter)
    if vals is not None:
        return np.searchsorted(vals[0], vals[1], side=side, sorter=vals[2])  # type: ignore[call-overload]  # side is checked above
    if sorter is not None:
        a = P.gather(a, sorter)
    ae = P.reshape(a, (1,) * v.ndim + (a.shape[0],))
    ve = P.expand_dims(v, (v.ndim,))
    # left: #{a_i < v}; right: #{a_i <= v} = #{not v < a_i}
    hit = _lt(ae, ve) if side == "left" else P.logical_not(_lt(ve, ae))
    return P.reduce_sum(P.convert_element_type(hit, _INT), (v.ndim,))


def digitize(x: ArrayLike, bins: ArrayLike, right: bool = False) -> Array:
    """Index of the bin of each value, for monotonic 1-D ``bins``.

    Increasing bins: ``bins[i-1] <= x < bins[i]`` (``right=True``: ``bins[i-1] < x <=
    bins[i]``); decreasing bins mirrored.

    Parameters
    ----------
    x : array_like
        Real values.
    bins : array_like
        Monotonic 1-D bin edges.
    right : bool, optional
        Which side of a bin is closed.

    Returns
    -------
    Array
        int64 indices, ``x``'s shape.

    Raises
    ------
    ValueError
        ``bins`` not 1-D, or (concrete) not monotonic.
    TypeError
        Complex ``x``.

    Notes
    -----
    Not differentiable (integer result).
    """
    x, bins = _nd(x), _nd(bins)
    if _kind_of(x) == "c":
        raise TypeError("x may not be complex")
    if bins.ndim != 1:
        raise ValueError("object too deep for desired array" if bins.ndim > 1 else
                         "object of too small depth for desired array")
    vals = _values(x, bins)
    if vals is not None:
        return np.digitize(vals[0], vals[1], right=right)
    side = "left" if right else "right"
    n = bins.shape[0]
    inc = searchsorted(bins, x, side=side)
    if n == 0:
        return F.zeros_like(x, dtype=_INT)
    dec = P.sub(n, searchsorted(P.gather(bins, np.arange(n)[::-1]), x, side=side))
    return P.where(P.ge(P.gather(bins, n - 1), P.gather(bins, 0)), inc, dec)


def lexsort(keys: ArrayLike | Sequence[ArrayLike], axis: int = -1) -> Array:
    """Stable sort order by several keys, the last key primary.

    Parameters
    ----------
    keys : sequence of array_like or array_like
        Equally shaped keys (or a 2-D array, one key
        per row).
    axis : int, optional
        The axis to sort along.

    Returns
    -------
    Array
        int64 indices.

    Raises
    ------
    TypeError
        For an empty sequence of keys.

    Notes
    -----
    Not differentiable (integer result).
    """
    if isinstance(keys, (tuple, list)):
        ks = [_nd(k) for k in keys]
    else:
        k = _nd(keys)
        if k.ndim == 0:
            raise TypeError("need sequence of keys with len > 0 in lexsort")
        ks = [k[i] for i in range(k.shape[0])]
    if not ks:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    vals = _values(*ks)
    if vals is not None:
        return np.lexsort(vals, axis=axis)
    ax = F._axis(axis, ks[0].ndim)
    perm = P.argsort(ks[0], ax)
    for k in ks[1:]:
        perm = _take_along_axis(perm, P.argsort(_take_along_axis(k, perm, ax), ax), ax)
    return perm


# ---------------------------------------------------------------------------------
# bincount and histograms
# ---------------------------------------------------------------------------------
def bincount(x: ArrayLike, weights: ArrayLike | None = None, minlength: int = 0, *,
             length: int | None = None) -> Array:
    """Number of occurrences (or summed weights) of each value ``0 .. max(x)``.

    Counts are int64; weighted sums float64 for real weights (NumPy casts the weights to
    double) and complex128 for complex ones (an extension: NumPy refuses them).

    Parameters
    ----------
    x : array_like of int
        Non-negative 1-D values.
    weights : array_like, optional
        Weights of ``x``'s shape.
    minlength : int, optional
        Minimum number of bins.
    length : int, optional
        ``jax.numpy``'s static result length, needed under
        ``jit``/``vmap`` of ``x``: values ``>= length`` are dropped.

    Returns
    -------
    Array
        1-D, ``max(max(x) + 1, minlength)`` bins (or ``length``).

    Raises
    ------
    ValueError
        ``x`` not 1-D, negative values (concrete ``x``), negative ``minlength``,
        weights of another shape.
    TypeError
        Non-integer ``x``.
    ConcretizationError
        Abstract ``x`` without ``length``.

    Notes
    -----
    Differentiable in ``weights``.
    """
    x = _nd(x)
    if x.ndim != 1:
        raise ValueError(f"bincount: `x` must be 1-d, got shape {tuple(x.shape)}")
    if _kind_of(x) not in "iub":
        raise TypeError(f"Cannot cast array data from dtype('{x.dtype}') to dtype('int64') "
                        "according to the rule 'safe': bincount counts integers")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if weights is not None:
        weights = _nd(weights)
        if tuple(weights.shape) != tuple(x.shape):
            raise ValueError(f"The weights and list don't have the same length: "
                             f"{tuple(weights.shape)} vs {tuple(x.shape)}")
        wdt = np.dtype(np.complex128 if _kind_of(weights) == "c" else np.float64)
        if weights.dtype != wdt:
            weights = P.convert_element_type(weights, wdt)
    vals = _values(x)
    if vals is not None:
        xc = vals[0].astype(np.int64)
        if xc.size and xc.min() < 0:
            raise ValueError("'list' argument must have no negative elements")
        n = builtins.max(int(xc.max()) + 1 if xc.size else 0, minlength)
        if length is not None:
            n = operator.index(length)
            keep = xc < n
            if not keep.all():
                xc = xc[keep]
                weights = None if weights is None else P.gather(weights, np.flatnonzero(keep))
        if weights is None:
            return np.bincount(xc, minlength=n)
        return P.scatter_add(weights, xc, (n,))
    if length is None:
        raise _need_size("bincount", "length=")
    n = operator.index(length)
    keep = P.logical_and(P.ge(x, 0), P.lt(x, n))
    xi = P.where(keep, P.convert_element_type(x, _INT), np.int64(0))
    w = P.convert_element_type(keep, _INT) if weights is None else \
        P.where(keep, weights, np.zeros((), weights.dtype))
    return P.scatter_add(w, xi, (n,))


def _edges_dtype(a: Any) -> Any:
    return np.result_type(np.dtype(a.dtype), 1.0) if _kind_of(a) in "iub" else \
        np.dtype(a.dtype)


def _equal_edges(a: Any, bins: Any, rng: Any, name: str = "histogram") -> Any:
    """``bins + 1`` equal-width edges over ``rng`` or ``[min(a), max(a)]`` (NumPy's
    ``linspace``; traced extremes stay differentiable)."""
    lo: Any
    hi: Any
    n = operator.index(bins)
    if n < 1:
        raise ValueError("`bins` must be positive, when an integer")
    dt = _edges_dtype(a)
    t = np.arange(n + 1, dtype=np.float64)
    if rng is not None:
        lo, hi = (float(r) for r in rng)
        if lo > hi:
            raise ValueError("max must be larger than min in range parameter.")
        if not (np.isfinite(lo) and np.isfinite(hi)):
            raise ValueError(f"supplied range of [{lo}, {hi}] is not finite")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        e = lo + t * ((hi - lo) / n)
        e[-1] = hi
        return e.astype(dt)
    if a.size == 0:
        return (t / n).astype(dt)  # NumPy: range (0, 1) for empty data
    c = _concrete(a)
    if c is not None and not np.all(np.isfinite([c.min(), c.max()])):
        raise ValueError(f"autodetected range of [{c.min()}, {c.max()}] is not finite")
    # NumPy: linspace(a.min(), a.max(), n + 1) computed in the edges' dtype
    af = P.convert_element_type(a, dt) if a.dtype != dt else a
    lo, hi = P.reduce_min(af, tuple(range(a.ndim))), P.reduce_max(af, tuple(range(a.ndim)))
    same = P.eq(lo, hi)
    lo, hi = P.where(same, P.sub(lo, 0.5), lo), P.where(same, P.add(hi, 0.5), hi)
    step = P.div(P.sub(hi, lo), np.asarray(n, dt))
    return P.concatenate([P.add(P.mul(t[:-1].astype(dt), step), lo), P.reshape(hi, (1,))], 0)


def histogram_bin_edges(a: ArrayLike, bins: int | ArrayLike = 10,
                        range: tuple[float, float] | None = None,
                        weights: ArrayLike | None = None) -> Array:
    """Edges of the bins of :func:`histogram`.

    NumPy's string estimators (``'auto'``, ``'fd'`` ...) are not supported.

    Parameters
    ----------
    a : array_like
        Data (flattened).
    bins : int or array_like, optional
        Number of equal-width bins, or monotonic 1-D edges
        (returned as given).
    range : (float, float), optional
        Range of the equal-width bins; the data's extremes
        by default.
    weights : array_like, optional
        Accepted for NumPy compatibility (unused).

    Returns
    -------
    Array
        1-D edges.

    Raises
    ------
    ValueError
        For string ``bins``, non-monotonic edges or an invalid range.

    Notes
    -----
    Differentiable in the extremes of ``a`` (or ``range``) that the edges are computed from.
    """
    del weights  # (NumPy ignores them too, for the estimators it has)
    a = F.ravel(_nd(a))
    if isinstance(bins, str):
        raise ValueError(f"ftrans.numpy.histogram: the bin estimator {bins!r} is not "
                         "supported; pass the number of bins or the edges")
    if np.ndim(bins) == 0:
        return _equal_edges(a, bins, range)
    b = _nd(bins)
    if b.ndim != 1:
        raise ValueError("`bins` must be 1d, when an array")
    c = _concrete(b)
    if c is not None and np.any(c[:-1] > c[1:]):
        raise ValueError("`bins` must increase monotonically, when an array")
    return b


def _bin_index(x: Any, edges: Any, nbins: int) -> Any:
    """Bin of each sample: ``edges[i] <= x < edges[i+1]`` (the last bin closed on the
    right); ``-1`` below the first edge and ``nbins`` above the last (NumPy's rule)."""
    i = P.sub(searchsorted(edges, x, side="right"), 1)
    last = P.gather(edges, nbins)
    return P.where(P.eq(x, last), np.int64(nbins - 1), i)


def _count(idx: Any, nbins: int, weights: Any) -> Any:
    """Per-bin counts (int64) or weight sums of samples with bin ``idx``; outliers (index
    outside ``[0, nbins)``) are dropped."""
    keep = P.logical_and(P.ge(idx, 0), P.lt(idx, nbins))
    i = P.where(keep, idx, np.int64(0))
    w = P.convert_element_type(keep, _INT) if weights is None else \
        P.where(keep, weights, np.zeros((), weights.dtype))
    return P.scatter_add(w, i, (nbins,))


def histogram(a: ArrayLike, bins: int | ArrayLike = 10,
              range: tuple[float, float] | None = None, density: bool | None = None,
              weights: ArrayLike | None = None) -> tuple[Array, Array]:
    """Histogram of a data set.

    The last bin is closed, the others half-open (NumPy's convention).  Runs under every
    transform.

    Examples
    --------
    >>> import ftrans.numpy as fnp
    >>> fnp.histogram(fnp.array([0., 1., 1., 3.]), bins=3)
    (array([1, 2, 1]), array([0., 1., 2., 3.]))

    Parameters
    ----------
    a : array_like
        Data (flattened).
    bins : int or array_like, optional
        Number of equal-width bins, or monotonic 1-D edges.
    range : (float, float), optional
        Range of the equal-width bins.
    density : bool, optional
        Normalize so that the integral over the range is 1.
    weights : array_like, optional
        Weight of each sample (``a``'s shape).

    Returns
    -------
    tuple of Array
        ``(hist, bin_edges)``: int64 counts, or the weights' sums (float with
        ``density``); edges of shape ``(nbins + 1,)`` in ``a``'s float dtype.

    Raises
    ------
    ValueError
        As :func:`histogram_bin_edges`.

    Notes
    -----
    The counts are piecewise constant in ``a`` (derivative 0); ``hist`` is differentiable in
    ``weights`` (and, with ``density``, in the edges); the edges in ``min(a)``/``max(a)``
    when computed from the data, in ``bins`` when given.
    """
    a = _nd(a)
    edges = histogram_bin_edges(a, bins, range)
    nb = edges.shape[0] - 1
    af = F.ravel(a)
    w = None
    if weights is not None:
        w = _nd(weights)
        if tuple(w.shape) != tuple(a.shape):
            raise ValueError("weights should have the same shape as a.")
        w = F.ravel(w)
    idx = _bin_index(af, edges, nb)
    hist = _count(idx, nb, w)
    if density:
        widths = P.sub(P.gather(edges, slice(1, None)), P.gather(edges, slice(0, -1)))
        total = P.reduce_sum(hist, (0,))
        hist = P.div(P.div(hist, widths), total)
    return hist, edges


def histogramdd(sample: ArrayLike | Sequence[ArrayLike], bins: Any = 10, range: Sequence[Any] | None = None,
                density: bool | None = None,
                weights: ArrayLike | None = None) -> tuple[Array, list[Array]]:
    """Multidimensional histogram of ``D``-dimensional samples.

    Parameters
    ----------
    sample : array_like
        ``(N, D)`` samples, or a sequence of ``D`` 1-D arrays.
    bins : int or sequence, optional
        An int, or one int or edge array per dimension.
    range : sequence of (float, float), optional
        Range per dimension.
    density : bool, optional
        Normalize to a density.
    weights : array_like, optional
        Weight of each sample.

    Returns
    -------
    tuple
        ``(hist, edges)``: float64 ``hist`` of shape ``(nbins_0, ..., nbins_{D-1})`` and
        a list of ``D`` edge arrays.

    Raises
    ------
    ValueError
        For inconsistent dimensions or bins.

    Notes
    -----
    Differentiable in ``weights`` (see :func:`histogram`).
    """
    if isinstance(sample, (list, tuple)):
        cols = [F.ravel(_nd(s)) for s in sample]
    else:
        s = _nd(sample)
        if s.ndim == 1:
            cols = [s]
        elif s.ndim == 2:
            cols = [s[:, d] for d in builtins.range(s.shape[1])]
        else:
            raise ValueError(f"histogramdd: `sample` must be (N, D), got {tuple(s.shape)}")
    D = len(cols)
    if np.ndim(bins) == 0 and not isinstance(bins, (list, tuple)):
        bins = [bins] * D
    if len(bins) != D:
        raise ValueError("The dimension of bins must be equal to the dimension of the sample x.")
    if range is None:
        range = [None] * D
    elif len(range) != D:
        raise ValueError("range argument must have one entry per dimension")
    edges = [histogram_bin_edges(c, b, r) for c, b, r in zip(cols, bins, range)]
    nbins = [int(e.shape[0]) - 1 for e in edges]
    w = None
    if weights is not None:
        w = F.ravel(_nd(weights))
        wdt = np.dtype(np.complex128 if _kind_of(w) == "c" else np.float64)
        if w.dtype != wdt:
            w = P.convert_element_type(w, wdt)
    flat = None
    inside = None
    for c, e, nb in zip(cols, edges, nbins):
        i = _bin_index(c, e, nb)
        ok = P.logical_and(P.ge(i, 0), P.lt(i, nb))
        inside = ok if inside is None else P.logical_and(inside, ok)
        flat = i if flat is None else P.add(P.mul(flat, nb), i)
    total = int(np.prod(nbins, dtype=np.int64))
    flat = P.where(inside, flat, np.int64(-1))
    hist = _count(flat, total, w)
    if hist.dtype == _INT:
        hist = P.convert_element_type(hist, np.dtype(np.float64))
    hist = P.reshape(hist, tuple(nbins))
    if density:
        s = P.reduce_sum(hist, tuple(builtins.range(D)))
        hist = P.div(hist, s)
        for d, e in enumerate(edges):
            dw = P.sub(P.gather(e, slice(1, None)), P.gather(e, slice(0, -1)))
            shape = [1] * D
            shape[d] = nbins[d]
            hist = P.div(hist, P.reshape(dw, tuple(shape)))
    return hist, edges


def histogram2d(x: ArrayLike, y: ArrayLike, bins: Any = 10, range: Sequence[Any] | None = None,
                density: bool | None = None,
                weights: ArrayLike | None = None) -> tuple[Array, Array, Array]:
    """Two-dimensional histogram of the samples ``(x[i], y[i])``.

    Parameters
    ----------
    x, y : array_like
        Sample coordinates, 1-D of equal length.
    bins : int or sequence, optional
        An int, ``[nx, ny]``, one edge array for both, or
        ``[xedges, yedges]``.
    range : sequence of (float, float), optional
        Range per dimension.
    density : bool, optional
        Normalize to a density.
    weights : array_like, optional
        Weight of each sample.

    Returns
    -------
    tuple of Array
        ``(hist, xedges, yedges)``.

    Notes
    -----
    Differentiable in ``weights`` (see :func:`histogramdd`).
    """
    try:
        nb = len(bins)
    except TypeError:
        nb = 1
    if nb not in (1, 2):  # NumPy's rule: one edge array for both axes
        bins = [bins, bins]
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]

