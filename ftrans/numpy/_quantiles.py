"""Quantiles, percentiles and medians of ``ftrans.numpy`` (the derivative conventions
are stated in ``_reductions``'s module docstring): order statistics of the sorted
array interpolated with NumPy's fixed weights."""
from __future__ import annotations

from typing import Any, cast

import numpy as np

from ..core import Tracer
from ..core.dtypes import kind_of as _kind_of
from . import _funcs as F
from ..typing import Array, ArrayLike, Axis
from ._indexing import take_along_axis
from ._reductions import _nd, _isnan, sort
from ._args import P

__all__ = ["quantile", "percentile", "median", "nanquantile", "nanpercentile", "nanmedian"]

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


def _move_to_last(a: Any, axis: Axis) -> Any:
    """``a`` with the reduced axes merged into one last axis; the kept shape and the
    keepdims shape."""
    axes = F._axes(axis, a.ndim)
    keep = [d for d in range(a.ndim) if d not in axes]
    kshape = tuple(a.shape[d] for d in keep)
    kd = tuple(1 if d in axes else a.shape[d] for d in range(a.ndim))
    a = P.transpose(a, tuple(keep) + axes)
    n = int(np.prod([a.shape[len(keep) + i] for i in range(len(axes))], dtype=np.int64))
    return P.reshape(a, kshape + (n,)), kshape, kd


def _floor_int(x: Any) -> Any:
    return P.convert_element_type(P.floor(x), np.dtype(np.int64))


def _virtual_indices(n: Any, q: Any, method: str) -> Any:
    """(lo, hi, gamma) for quantile ``q`` of ``n`` sorted values (n: int or int array
    broadcastable against q), following NumPy's formulas exactly.  gamma is None for
    the discrete methods (lo is the index)."""
    if method == "linear":
        v = P.mul(P.sub(n, 1), q)
    elif method in _CONTINUOUS:
        al, be = cast(tuple[float, float], _CONTINUOUS[method])  # (not "linear")
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


def _lerp(a: Any, b: Any, t: Any) -> Any:
    """NumPy's ``_lerp``: ``a + (b - a) t``, or ``b - (b - a)(1 - t)`` for t >= 0.5."""
    d = P.sub(b, a)
    return P.where(P.ge(t, 0.5), P.sub(b, P.mul(d, P.sub(1, t))), P.add(a, P.mul(d, t)))


def _quantile(a: Any, q: Any, axis: Axis, method: str, keepdims: bool, ignore_nan: bool,
              name: str) -> Array:
    if method not in _METHODS:
        raise ValueError(f"{method!r} is not a valid method. Use one of: {_METHODS}")
    a = _nd(a)
    if _kind_of(a) == "c":
        raise TypeError("a must be an array of real numbers")
    weak_q = type(q) in (int, float)
    q_arr: Any = q if isinstance(q, Tracer) else np.asarray(q)
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

    def pick(idx: Any) -> Array:
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


def quantile(a: ArrayLike, q: ArrayLike, axis: Axis = None, out: None = None,
             overwrite_input: bool = False, method: str = "linear", keepdims: bool = False,
             *, weights: None = None, interpolation: None = None) -> Array:
    """Quantiles of the data along the given axes.

    All of NumPy's methods, unweighted, via a sort; NaN in a slice gives NaN.

    Parameters
    ----------
    a : array_like
        Real input array.
    q : array_like of float
        Quantiles in ``[0, 1]``, scalar or 1-D; may be traced for the
        continuous methods.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    out : None
        Not supported.
    overwrite_input : bool, optional
        Accepted; the input is never modified.
    method : str, optional
        NumPy's method name ('linear', 'lower', 'higher', 'nearest',
        'midpoint', 'inverted_cdf', 'hazen', 'weibull', 'median_unbiased' ...).
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions.
    weights : None
        Not supported.
    interpolation : None
        NumPy's removed name of ``method``.

    Returns
    -------
    Array
        ``q``'s shape followed by the remaining axes of ``a``.

    Raises
    ------
    ValueError
        For ``out``, an unknown method, or ``q`` outside ``[0, 1]`` or not 1-D.
    TypeError
        For complex ``a``, ``interpolation``, or a traced ``q`` with a discrete method.
    NotImplementedError
        For ``weights``.

    Notes
    -----
    Differentiable: the derivative goes to the one or two order statistics used, with
    NumPy's interpolation weights; a traced ``q`` gets ``(s[hi] - s[lo]) * d(index)/dq``.
    """
    _check_quantile_args(out, weights, interpolation, "quantile")
    return _quantile(a, q, axis, method, keepdims, False, "quantile")


def percentile(a: ArrayLike, q: ArrayLike, axis: Axis = None, out: None = None,
               overwrite_input: bool = False, method: str = "linear", keepdims: bool = False,
               *, weights: None = None, interpolation: None = None) -> Array:
    """Percentiles of the data along the given axes (:func:`quantile` of ``q / 100``).

    Parameters
    ----------
    a : array_like
        Real input array.
    q : array_like of float
        Percentiles in ``[0, 100]``, scalar or 1-D.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    out : None
        Not supported.
    overwrite_input : bool, optional
        Accepted; the input is never modified.
    method : str, optional
        As for :func:`quantile`.
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions.
    weights : None
        Not supported.
    interpolation : None
        NumPy's removed name of ``method``.

    Returns
    -------
    Array
        ``q``'s shape followed by the remaining axes of ``a``.

    Raises
    ------
    ValueError
        For ``q`` outside ``[0, 100]`` and as :func:`quantile`.

    Notes
    -----
    Differentiable as :func:`quantile`.
    """
    _check_quantile_args(out, weights, interpolation, "percentile")
    return _quantile(a, _percent(q), axis, method, keepdims, False, "percentile")


def _percent(q: Any) -> Any:
    if isinstance(q, Tracer):
        return P.div(q, 100)
    if not np.all((0 <= np.asarray(q)) & (np.asarray(q) <= 100)):
        raise ValueError("Percentiles must be in the range [0, 100]")
    return q / 100 if type(q) in (int, float) else np.true_divide(q, 100)


def median(a: ArrayLike, axis: Axis = None, out: None = None, overwrite_input: bool = False,
           keepdims: bool = False) -> Array:
    """Median along the given axes (the mean of the two middle values for an even count).

    Parameters
    ----------
    a : array_like
        Real input array.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    out : None
        Not supported.
    overwrite_input : bool, optional
        Accepted; the input is never modified.
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions.

    Returns
    -------
    Array
        The medians; floating dtype.

    Raises
    ------
    ValueError
        If ``out`` is given.

    Notes
    -----
    Differentiable: the derivative goes to the middle element(s) of the sorted slice.
    """
    _check_quantile_args(out, None, None, "median")
    return _quantile(a, 0.5, axis, "linear", keepdims, False, "median")


def nanquantile(a: ArrayLike, q: ArrayLike, axis: Axis = None, out: None = None,
                overwrite_input: bool = False, method: str = "linear", keepdims: bool = False,
                *, weights: None = None, interpolation: None = None) -> Array:
    """Quantiles ignoring NaNs (an all-NaN slice gives NaN).

    Parameters
    ----------
    a : array_like
        Real input array.
    q : array_like of float
        Quantiles in ``[0, 1]``, scalar or 1-D.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    out : None
        Not supported.
    overwrite_input : bool, optional
        Accepted; the input is never modified.
    method : str, optional
        As for :func:`quantile`.
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions.
    weights : None
        Not supported.
    interpolation : None
        NumPy's removed name of ``method``.

    Returns
    -------
    Array
        ``q``'s shape followed by the remaining axes of ``a``.

    Raises
    ------
    ValueError
        As for :func:`quantile`.

    Notes
    -----
    Differentiable as :func:`quantile`; NaN entries get derivative 0.
    """
    _check_quantile_args(out, weights, interpolation, "nanquantile")
    return _quantile(a, q, axis, method, keepdims, True, "nanquantile")


def nanpercentile(a: ArrayLike, q: ArrayLike, axis: Axis = None, out: None = None,
                  overwrite_input: bool = False, method: str = "linear",
                  keepdims: bool = False, *, weights: None = None,
                  interpolation: None = None) -> Array:
    """Percentiles ignoring NaNs.

    Parameters
    ----------
    a : array_like
        Real input array.
    q : array_like of float
        Percentiles in ``[0, 100]``, scalar or 1-D.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    out : None
        Not supported.
    overwrite_input : bool, optional
        Accepted; the input is never modified.
    method : str, optional
        As for :func:`quantile`.
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions.
    weights : None
        Not supported.
    interpolation : None
        NumPy's removed name of ``method``.

    Returns
    -------
    Array
        ``q``'s shape followed by the remaining axes of ``a``.

    Raises
    ------
    ValueError
        As for :func:`percentile`.

    Notes
    -----
    Differentiable as :func:`quantile`; NaN entries get derivative 0.
    """
    _check_quantile_args(out, weights, interpolation, "nanpercentile")
    return _quantile(a, _percent(q), axis, method, keepdims, True, "nanpercentile")


def nanmedian(a: ArrayLike, axis: Axis = None, out: None = None,
              overwrite_input: bool = False, keepdims: bool = False) -> Array:
    """Median ignoring NaNs.

    Parameters
    ----------
    a : array_like
        Real input array.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    out : None
        Not supported.
    overwrite_input : bool, optional
        Accepted; the input is never modified.
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions.

    Returns
    -------
    Array
        The medians (NaN for an all-NaN slice).

    Raises
    ------
    ValueError
        If ``out`` is given.

    Notes
    -----
    Differentiable as :func:`median`; NaN entries get derivative 0.
    """
    _check_quantile_args(out, None, None, "nanmedian")
    return _quantile(a, 0.5, axis, "linear", keepdims, True, "nanmedian")


def _check_quantile_args(out: Any, weights: Any, interpolation: Any, name: str) -> None:
    if out is not None:
        raise ValueError(f"{name}: out= is not supported (ftrans.numpy is functional)")
    if weights is not None:
        raise NotImplementedError(f"{name}: weights= is not supported")
    if interpolation is not None:
        raise TypeError(f"{name}: the `interpolation` argument was removed; use `method`")
