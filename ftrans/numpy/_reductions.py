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

import numpy as np

from ..core import Tracer
from ..core.dtypes import kind_of as _kind_of, as_numpy_dtype
from .. import primitives as P
from ..primitives._rules import no_trace
from ..kernels import backend_for
from . import _funcs as F
from ._indexing import take_along_axis

__all__ = ["cumsum", "cumprod", "cumulative_sum", "cumulative_prod", "nancumsum",
           "nancumprod", "diff", "ediff1d", "sort", "argsort", "sort_complex", "partition",
           "argpartition", "median", "quantile", "percentile", "nanmedian", "nanquantile",
           "nanpercentile", "average", "nanmax", "nanmin", "nansum", "nanprod", "nanmean",
           "nanvar", "nanstd", "nanargmax", "nanargmin", "ptp", "all", "any",
           "count_nonzero", "logsumexp"]

_nd = F._ndarray


def _concrete(*xs):
    return no_trace() and not builtins.any(isinstance(x, Tracer) for x in xs)


def _accum_dtype(a, dtype):
    """NumPy's accumulation dtype: small integers and booleans go to the default int."""
    if dtype is not None:
        return np.dtype(dtype)
    d = as_numpy_dtype(a.dtype)
    if d.kind == "b" or (d.kind == "i" and d.itemsize < 8):
        return np.dtype(np.int64)
    if d.kind == "u" and d.itemsize < 8:
        return np.dtype(np.uint64)
    return d


def _flat_axis(a, axis):
    a = _nd(a)
    if axis is None:
        return F.ravel(a), 0
    return a, F._axis(axis, a.ndim)


def _isnan(a):
    return _kind_of(a) in "fc"


# ---------------------------------------------------------------------------------
# scans
# ---------------------------------------------------------------------------------
def cumsum(a, axis=None, dtype=None, out=None):
    """``numpy.cumsum``; ``axis=None`` works on the flattened array."""
    if out is not None:
        raise ValueError("cumsum: out= is not supported (ftrans.numpy is functional)")
    a, ax = _flat_axis(a, axis)
    dt = _accum_dtype(a, dtype)
    if a.dtype != dt:
        a = P.convert_element_type(a, dt)
    return P.cumsum(a, ax)


def _cumprod_scan(a, ax):
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


def cumprod(a, axis=None, dtype=None, out=None):
    """``numpy.cumprod``, with derivatives exact where elements are zero (module
    docstring)."""
    if out is not None:
        raise ValueError("cumprod: out= is not supported (ftrans.numpy is functional)")
    a, ax = _flat_axis(a, axis)
    dt = _accum_dtype(a, dtype)
    if a.dtype != dt:
        a = P.convert_element_type(a, dt)
    if _concrete(a):
        return backend_for(a).xp.cumprod(a, axis=ax, dtype=dt)
    return _cumprod_scan(a, ax)


def _cumulative(fn, x, axis, dtype, include_initial, initial, name):
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


def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """``numpy.cumulative_sum`` (NumPy 2.1): ``cumsum`` with an optional leading 0."""
    if out is not None:
        raise ValueError("cumulative_sum: out= is not supported")
    return _cumulative(cumsum, x, axis, dtype, include_initial, 0, "cumulative_sum")


def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """``numpy.cumulative_prod`` (NumPy 2.1): ``cumprod`` with an optional leading 1."""
    if out is not None:
        raise ValueError("cumulative_prod: out= is not supported")
    return _cumulative(cumprod, x, axis, dtype, include_initial, 1, "cumulative_prod")


def nancumsum(a, axis=None, dtype=None, out=None):
    """``numpy.nancumsum``: NaNs count as 0 (and get derivative 0)."""
    a = _nd(a)
    if _isnan(a):
        a = P.where(P.isnan(a), np.zeros((), a.dtype), a)
    return cumsum(a, axis, dtype, out)


def nancumprod(a, axis=None, dtype=None, out=None):
    """``numpy.nancumprod``: NaNs count as 1 (and get derivative 0)."""
    a = _nd(a)
    if _isnan(a):
        a = P.where(P.isnan(a), np.ones((), a.dtype), a)
    return cumprod(a, axis, dtype, out)


_NOVALUE = np._NoValue


def diff(a, n=1, axis=-1, prepend=_NOVALUE, append=_NOVALUE):
    """``numpy.diff``: the ``n``-th forward difference along ``axis`` (linear)."""
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


def ediff1d(ary, to_end=None, to_begin=None):
    """``numpy.ediff1d``: differences of the flattened array, with optional values
    prepended/appended."""
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
def _check_sort_args(kind, order, name):
    if order is not None:
        raise ValueError(f"{name}: order= (structured arrays) is not supported")
    if kind not in (None, "quicksort", "mergesort", "heapsort", "stable"):
        raise ValueError(f"{name}: sort kind must be one of 'quick', 'heap', or 'stable' "
                         f"(got {kind!r})")


def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """``numpy.sort`` (``axis=None`` sorts the flattened array); NaNs last, complex
    lexicographic.  Differentiable: see the module docstring."""
    _check_sort_args(kind, order, "sort")
    a, ax = _flat_axis(a, axis)
    if a.ndim == 0:
        raise np.exceptions.AxisError(axis, 0)
    if _concrete(a):
        return backend_for(a).xp.sort(a, axis=ax)
    return take_along_axis(a, P.argsort(a, ax), ax)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    """``numpy.argsort`` with a stable sort (int64 indices, no derivative)."""
    _check_sort_args(kind, order, "argsort")
    a = _nd(a)
    if a.ndim == 0:  # NumPy: array([0]) for any axis
        return P.argsort(P.reshape(a, (1,)), 0)
    a, ax = _flat_axis(a, axis)
    return P.argsort(a, ax)


def sort_complex(a):
    """``numpy.sort_complex``: sort along the last axis, as complex numbers."""
    a = _nd(a)
    s = sort(a)
    if _kind_of(s) == "c":
        return s
    # NumPy: (u)int8/(u)int16 -> complex64, everything else -> complex128
    target = np.dtype(np.complex64) if s.dtype.char in "bhBH" else np.dtype(np.complex128)
    return P.convert_element_type(s, target)


def _check_kth(kth, n):
    k = np.asarray(kth)
    if _kind_of(k) not in "iu":
        raise TypeError("Partition index must be integer")
    k = np.where(k < 0, k + n, k)
    if k.size and (k.min() < 0 or k.max() >= n):
        bad = np.asarray(kth).reshape(-1)[(k.reshape(-1) < 0) | (k.reshape(-1) >= n)][0]
        raise ValueError(f"kth(={int(bad)}) out of bounds ({n})")


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """``numpy.partition``, computed by a full (stable) sort: every ``kth`` element is in
    its sorted position with no larger element before it and no smaller one after it,
    which is NumPy's contract (the order inside the two parts is unspecified by NumPy;
    here it is sorted).  Differentiable as :func:`sort`."""
    if order is not None:
        raise ValueError("partition: order= is not supported")
    a, ax = _flat_axis(a, axis)
    _check_kth(kth, a.shape[ax])
    return sort(a, ax)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """``numpy.argpartition`` by a stable ``argsort`` (see :func:`partition`)."""
    if order is not None:
        raise ValueError("argpartition: order= is not supported")
    a, ax = _flat_axis(a, axis)
    _check_kth(kth, a.shape[ax])
    return P.argsort(a, ax)


# ---------------------------------------------------------------------------------
# quantiles
# ---------------------------------------------------------------------------------
_CONTINUOUS = {  # method: (alpha, beta) of Hyndman & Fan (1996); None: NumPy's (n-1) q
    "linear": None, "interpolated_inverted_cdf": (0.0, 1.0), "hazen": (0.5, 0.5),
    "weibull": (0.0, 0.0), "median_unbiased": (1 / 3.0, 1 / 3.0),
    "normal_unbiased": (3 / 8.0, 3 / 8.0),
}
_DISCRETE = ("inverted_cdf", "closest_observation", "lower", "higher", "nearest")
_METHODS = tuple(_CONTINUOUS) + _DISCRETE + ("midpoint", "averaged_inverted_cdf")


def _move_to_last(a, axis):
    """``a`` with the reduced axes merged into one last axis; the kept shape and the
    keepdims shape."""
    axes = F._axes(axis, a.ndim)
    keep = [d for d in range(a.ndim) if d not in axes]
    kshape = tuple(a.shape[d] for d in keep)
    kd = tuple(1 if d in axes else a.shape[d] for d in range(a.ndim))
    a = P.transpose(a, tuple(keep) + axes)
    n = int(np.prod([a.shape[len(keep) + i] for i in range(len(axes))], dtype=np.int64))
    return P.reshape(a, kshape + (n,)), kshape, kd


def _floor_int(x):
    return P.convert_element_type(P.floor(x), np.dtype(np.int64))


def _virtual_indices(n, q, method):
    """(lo, hi, gamma) for quantile ``q`` of ``n`` sorted values (n: int or int array
    broadcastable against q), following NumPy's formulas exactly.  gamma is None for
    the discrete methods (lo is the index)."""
    if method == "linear":
        v = P.mul(P.sub(n, 1), q)
    elif method in _CONTINUOUS:
        al, be = _CONTINUOUS[method]
        v = P.sub(P.add(P.mul(n, q), P.add(al, P.mul(q, 1 - al - be))), 1)
    elif method == "lower":
        return _floor_int(P.mul(P.sub(n, 1), q)), None, None
    elif method == "higher":
        return P.convert_element_type(P.ceil(P.mul(P.sub(n, 1), q)), np.dtype(np.int64)), \
            None, None
    elif method == "nearest":
        return P.convert_element_type(P.round(P.mul(P.sub(n, 1), q)), np.dtype(np.int64)), \
            None, None
    elif method in ("inverted_cdf", "closest_observation"):
        if method == "inverted_cdf":
            idx = P.sub(P.mul(n, q), 1)
        else:
            idx = P.sub(P.sub(P.mul(n, q), 1), 0.5)
        prev = P.floor(idx)
        g0 = P.eq(P.sub(idx, prev), 0)
        if method == "closest_observation":
            odd = P.eq(P.sub(prev, P.mul(P.floor(P.div(prev, 2)), 2)), 1)
            g0 = P.logical_and(g0, odd)
        res = P.where(g0, prev, P.add(prev, 1))
        res = P.where(P.lt(res, 0), 0.0, res)
        return P.convert_element_type(res, np.dtype(np.int64)), None, None
    elif method == "midpoint":
        v = P.mul(P.sub(n, 1), q)
        lo_f, hi_f = P.floor(v), P.ceil(v)
        v = P.mul(0.5, P.add(lo_f, hi_f))
    elif method == "averaged_inverted_cdf":
        v = P.sub(P.mul(n, q), 1)
    else:
        raise ValueError(f"{method!r} is not a valid method. Use one of: {_METHODS}")
    prev_f = P.floor(v)
    gamma = P.sub(v, prev_f)
    if method == "midpoint":
        gamma = P.where(P.eq(P.sub(v, P.floor(v)), 0), 0.0, 0.5)
    elif method == "averaged_inverted_cdf":
        gamma = P.where(P.eq(gamma, 0), 0.5, 1.0)
    lo = P.convert_element_type(prev_f, np.dtype(np.int64))
    above = P.ge(v, P.sub(n, 1))
    below = P.lt(v, 0)
    last = P.sub(n, 1)
    lo2 = P.where(above, last, P.where(below, 0, lo))
    hi2 = P.where(above, last, P.where(below, 0, P.add(lo, 1)))
    return lo2, hi2, gamma


def _lerp(a, b, t):
    """NumPy's ``_lerp``: ``a + (b - a) t``, or ``b - (b - a)(1 - t)`` for t >= 0.5."""
    d = P.sub(b, a)
    return P.where(P.ge(t, 0.5), P.sub(b, P.mul(d, P.sub(1, t))), P.add(a, P.mul(d, t)))


def _quantile(a, q, axis, method, keepdims, ignore_nan, name):
    if method not in _METHODS:
        raise ValueError(f"{method!r} is not a valid method. Use one of: {_METHODS}")
    a = _nd(a)
    if _kind_of(a) == "c":
        raise TypeError("a must be an array of real numbers")
    weak_q = type(q) in (int, float)
    q_arr = q if isinstance(q, Tracer) else np.asarray(q)
    if not isinstance(q_arr, Tracer):
        if q_arr.ndim > 2 or (q_arr.size and not np.all((0 <= q_arr) & (q_arr <= 1))):
            if q_arr.ndim > 2:
                raise ValueError("q must be a scalar or 1d")
            raise ValueError("Quantiles must be in the range [0, 1]")
    elif method in _DISCRETE:
        raise TypeError(f"{name}: a traced q needs a continuous method, not {method!r}")
    discrete = method in _DISCRETE
    # result dtype (NumPy): integers -> float64 unless discrete; a weak Python q keeps
    # a's float precision, an array q promotes
    if _kind_of(a) in "iub":
        out_dtype = a.dtype if discrete else np.dtype(np.float64)
    elif weak_q or discrete:
        out_dtype = a.dtype
    else:
        out_dtype = np.result_type(a.dtype, q_arr.dtype)
    if a.dtype != out_dtype and not discrete:
        a = P.convert_element_type(a, out_dtype)
    x, kshape, kd = _move_to_last(a, axis)
    n = x.shape[-1]
    if n == 0:
        if name in ("median", "nanmedian"):  # NumPy: NaN (with a RuntimeWarning)
            shape = tuple(q_arr.shape) + (kd if keepdims else kshape)
            return np.full(shape, np.nan, out_dtype)
        raise IndexError(f"index -1 is out of bounds for axis 0 with size 0 ({name} of an "
                         "empty slice)")
    s = sort(x, -1)
    qshape = tuple(q_arr.shape)
    # index arrays of shape kshape + qshape (broadcast): n per slice for the nan variants
    if ignore_nan and _isnan(x):
        nan = P.isnan(x)
        cnt = F.sum(P.logical_not(nan), axis=-1)
        cnt = P.reshape(cnt, kshape + (1,) * len(qshape))
    else:
        cnt = n
    # virtual indices in float64 (NumPy's), or in q's own float dtype for an array q
    if isinstance(q_arr, Tracer) or (not weak_q and _kind_of(q_arr) == "f"):
        qf = q_arr
    else:
        qf = np.asarray(q_arr, np.float64)
    lo, hi, gamma = _virtual_indices(cnt, qf, method)
    full = kshape + qshape

    def pick(idx):
        idx = P.where(P.lt(idx, 0), 0, P.where(P.gt(idx, n - 1), n - 1, idx))  # all-NaN
        idx = P.broadcast_to(idx, full) if tuple(idx.shape) != full else idx
        idx = P.reshape(idx, kshape + (int(np.prod(qshape, dtype=np.int64)),))
        return P.reshape(take_along_axis(s, idx, -1), full)

    if discrete:
        res = pick(lo)
    else:
        if gamma.dtype != out_dtype:
            gamma = P.convert_element_type(gamma, out_dtype)
        res = _lerp(pick(lo), pick(hi), P.broadcast_to(gamma, full)
                    if tuple(getattr(gamma, "shape", ())) != full else gamma)
        if res.dtype != out_dtype:
            res = P.convert_element_type(res, out_dtype)
    if _isnan(s):
        if ignore_nan and not isinstance(cnt, int):
            bad = P.eq(cnt, 0)
        else:
            bad = P.isnan(P.gather(s, (Ellipsis, n - 1)))
            bad = P.reshape(bad, kshape + (1,) * len(qshape))
        res = P.where(bad, np.asarray(np.nan, res.dtype), res)
    # q axes first, then the kept axes (keepdims: size-1 axes in place)
    nq, nk = len(qshape), len(kshape)
    res = P.transpose(res, tuple(range(nk, nk + nq)) + tuple(range(nk)))
    if keepdims:
        res = P.reshape(res, qshape + kd)
    return res


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    """``numpy.quantile`` (all of NumPy's methods, unweighted), via a sort; NaN in a
    slice gives NaN.  ``q`` may be traced for the continuous methods (derivative in
    ``q`` included)."""
    _check_quantile_args(out, weights, interpolation, "quantile")
    return _quantile(a, q, axis, method, keepdims, False, "quantile")


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, interpolation=None):
    """``numpy.percentile``: :func:`quantile` of ``q / 100``."""
    _check_quantile_args(out, weights, interpolation, "percentile")
    return _quantile(a, _percent(q), axis, method, keepdims, False, "percentile")


def _percent(q):
    if isinstance(q, Tracer):
        return P.div(q, 100)
    if not np.all((0 <= np.asarray(q)) & (np.asarray(q) <= 100)):
        raise ValueError("Percentiles must be in the range [0, 100]")
    return q / 100 if type(q) in (int, float) else np.true_divide(q, 100)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """``numpy.median`` (the mean of the two middle values for an even count)."""
    _check_quantile_args(out, None, None, "median")
    return _quantile(a, 0.5, axis, "linear", keepdims, False, "median")


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None, interpolation=None):
    """``numpy.nanquantile``: NaNs ignored (an all-NaN slice gives NaN)."""
    _check_quantile_args(out, weights, interpolation, "nanquantile")
    return _quantile(a, q, axis, method, keepdims, True, "nanquantile")


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None, interpolation=None):
    """``numpy.nanpercentile``: NaNs ignored."""
    _check_quantile_args(out, weights, interpolation, "nanpercentile")
    return _quantile(a, _percent(q), axis, method, keepdims, True, "nanpercentile")


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """``numpy.nanmedian``: NaNs ignored."""
    _check_quantile_args(out, None, None, "nanmedian")
    return _quantile(a, 0.5, axis, "linear", keepdims, True, "nanmedian")


def _check_quantile_args(out, weights, interpolation, name):
    if out is not None:
        raise ValueError(f"{name}: out= is not supported (ftrans.numpy is functional)")
    if weights is not None:
        raise NotImplementedError(f"{name}: weights= is not supported")
    if interpolation is not None:
        raise TypeError(f"{name}: the `interpolation` argument was removed; use `method`")


# ---------------------------------------------------------------------------------
# average, nan-reductions, ptp
# ---------------------------------------------------------------------------------
def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """``numpy.average``: the mean, or ``sum(a * w) / sum(w)`` with ``weights`` (the same
    shape as ``a``, or 1-d along a single ``axis``); ``returned=True`` also returns the
    sum of the weights (broadcast to the result's shape).

    Raises
    ------
    TypeError
        ``weights`` of another shape than ``a`` with no ``axis``.
    ValueError
        1-d ``weights`` whose length is not ``a.shape[axis]``.
    ZeroDivisionError
        Concrete weights summing to zero along the axis.
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


def _nanfill(a, value):
    if not _isnan(a):
        return a
    return P.where(P.isnan(a), np.asarray(value, a.dtype), a)


def _all_nan(a, axes, keepdims):
    n = F._count(a, axes)
    cnt = F.sum(P.isnan(a), axis=axes, keepdims=keepdims)
    return P.eq(cnt, n)


def _nan_extremum(fn, fill, name):
    def f(a, axis=None, out=None, keepdims=False):
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
    f.__name__ = name
    f.__doc__ = (f"``numpy.{name}``: NaNs ignored (derivative 0 for them); an all-NaN slice "
                 "gives NaN.  Ties split the derivative evenly.")
    return f


nanmax = _nan_extremum(F.max, -np.inf, "nanmax")
nanmin = _nan_extremum(F.min, np.inf, "nanmin")


def nansum(a, axis=None, dtype=None, out=None, keepdims=False):
    """``numpy.nansum``: NaNs count as 0 (derivative 0 for them)."""
    if out is not None:
        raise ValueError("nansum: out= is not supported")
    return F.sum(_nanfill(_nd(a), 0), axis=axis, dtype=dtype, keepdims=keepdims)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False):
    """``numpy.nanprod``: NaNs count as 1 (derivative 0 for them)."""
    if out is not None:
        raise ValueError("nanprod: out= is not supported")
    return F.prod(_nanfill(_nd(a), 1), axis=axis, dtype=dtype, keepdims=keepdims)


def _nan_count(a, axes, keepdims, dtype):
    c = F.sum(P.logical_not(P.isnan(a)), axis=axes, keepdims=keepdims)
    return P.convert_element_type(c, dtype)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False):
    """``numpy.nanmean``: the mean of the non-NaN elements (NaN for an all-NaN slice)."""
    if out is not None:
        raise ValueError("nanmean: out= is not supported")
    a = _nd(a)
    if not _isnan(a):
        return F.mean(a, axis=axis, dtype=dtype, keepdims=keepdims)
    axes = F._axes(axis, a.ndim)
    s = F.sum(_nanfill(a, 0), axis=axes, dtype=dtype, keepdims=keepdims)
    return P.div(s, _nan_count(a, axes, keepdims, np.dtype(s.dtype).type(0).real.dtype))


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """``numpy.nanvar``: the variance of the non-NaN elements, divisor ``count - ddof``."""
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


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    """``numpy.nanstd``: ``sqrt(nanvar)``; the derivative of a constant slice is 0."""
    return F._sqrt_flat_at_0(nanvar(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims))


def _nan_arg(fn, fill, name):
    def f(a, axis=None, out=None, *, keepdims=False):
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
    f.__name__ = name
    f.__doc__ = f"``numpy.{name}``: NaNs ignored; integer result, no derivative."
    return f


nanargmax = _nan_arg(F.argmax, -np.inf, "nanargmax")
nanargmin = _nan_arg(F.argmin, np.inf, "nanargmin")


def ptp(a, axis=None, out=None, keepdims=False):
    """``numpy.ptp``: ``max - min`` (ties split the derivative evenly)."""
    if out is not None:
        raise ValueError("ptp: out= is not supported")
    return P.sub(F.max(a, axis=axis, keepdims=keepdims), F.min(a, axis=axis, keepdims=keepdims))


# ---------------------------------------------------------------------------------
# logical reductions (no derivative)
# ---------------------------------------------------------------------------------
def _nonzero_count(a, axis, keepdims):
    a = _nd(a)
    nz = a if _kind_of(a) == "b" else P.ne(a, 0)
    axes = F._axes(axis, a.ndim)
    c = P.reduce_sum(P.convert_element_type(nz, np.dtype(np.int64)), axes)
    return a, axes, F._keepdims(a, c, axes, keepdims)


def count_nonzero(a, axis=None, *, keepdims=False):
    """``numpy.count_nonzero`` (an int when concrete with ``axis=None``)."""
    a, axes, c = _nonzero_count(a, axis, keepdims)
    if axis is None and not keepdims and not isinstance(c, Tracer):
        return int(c)
    return c


def all(a, axis=None, out=None, keepdims=False, *, where=None):
    """``numpy.all`` (boolean result, no derivative)."""
    if out is not None or where is not None:
        raise ValueError("all: out= and where= are not supported")
    a, axes, c = _nonzero_count(a, axis, keepdims)
    return P.eq(c, F._count(a, axes))


def any(a, axis=None, out=None, keepdims=False, *, where=None):
    """``numpy.any`` (boolean result, no derivative)."""
    if out is not None or where is not None:
        raise ValueError("any: out= and where= are not supported")
    a, axes, c = _nonzero_count(a, axis, keepdims)
    return P.gt(c, 0)


# ---------------------------------------------------------------------------------
# logsumexp (scipy.special's; re-exported by ftrans.scipy.special)
# ---------------------------------------------------------------------------------
def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """``scipy.special.logsumexp``: ``log(sum(b * exp(a)))`` over ``axis``, computed
    stably (``m + log(sum(b * exp(a - m)))``, ``m`` the maximum real part).

    Derivative: ``d/da_i = b_i exp(a_i - result)`` (the softmax weights), finite for
    ``-inf`` entries (weight 0); ``d/db_i = exp(a_i - result)``.  Entries with ``b == 0``
    are ignored (SciPy's rule).  A slice whose weighted sum is 0 gives ``-inf`` with a
    zero derivative; a negative sum gives NaN unless ``return_sign=True``, which returns
    ``(log|sum|, sign(sum))``.  float32 stays float32.
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
        return out, sgn
    return out
