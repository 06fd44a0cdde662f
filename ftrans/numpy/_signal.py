"""NumPy's 1-d signal functions: ``convolve``, ``correlate``, ``interp``, ``unwrap`` and
the window functions (``bartlett``, ``blackman``, ``hamming``, ``hanning``, ``kaiser``).

``convolve``/``correlate`` go through the convolution primitive
(:func:`ftrans.primitives.conv_general_dilated`, a cross-correlation): every transform
and both operands are differentiable, complex included.  ``interp`` is a gather of the
bracketing samples and a linear blend: differentiable in ``x`` (the piecewise slope; at a
sample point the slope of the segment to its right, the last segment at ``xp[-1]``), in
``fp`` and in ``xp``.  Window functions of an integer length are constants (NumPy's own
arrays); ``kaiser`` is differentiable in ``beta``.
"""
from __future__ import annotations

import operator
from typing import Any, cast

import numpy as np

from ..core import Tracer, result_type
from ..core.dtypes import kind_of as _kind_of, as_numpy_dtype as _np_dtype
from ..typing import Array, ArrayLike
from ._args import P, _ndarray, _axis
from . import _funcs as F
from ._reductions import cumsum, argsort, diff
from ._indexing import take
from ._shape import flip
from ._search import searchsorted

__all__ = ["convolve", "correlate", "interp", "unwrap", "bartlett", "blackman", "hamming",
           "hanning", "kaiser"]


def _vec(x: ArrayLike, what: str) -> Array:
    x = _ndarray(x)
    if x.ndim == 0:
        x = P.reshape(x, (1,))
    if x.ndim != 1:
        raise ValueError(f"{what}: object too deep for desired array (expected a 1-d array, "
                         f"got shape {tuple(x.shape)})")
    return x


def _xcorr_full(a: Any, w: Any) -> Any:
    """``out[j] = sum_n a[j + n - (M - 1)] * w[n]`` (per axis, ``j`` in ``[0, N + M - 1)``)
    of two arrays of one rank (1-d here; n-d for :mod:`ftrans.scipy.signal`), no
    conjugation, through the convolution primitive."""
    dt = result_type(a, w)
    a = a if _np_dtype(a.dtype) == dt else P.convert_element_type(a, dt)
    w = w if _np_dtype(w.dtype) == dt else P.convert_element_type(w, dt)
    sa, sw = tuple(a.shape), tuple(w.shape)
    out = P.conv_general_dilated(P.reshape(a, (1, 1) + sa), P.reshape(w, (1, 1) + sw),
                                 (1,) * len(sa), [(m - 1, m - 1) for m in sw])
    return P.reshape(out, tuple(n + m - 1 for n, m in zip(sa, sw)))


def _mode_slice(full: Any, n: int, m: int, mode: str) -> Any:
    """NumPy's ``same``/``valid`` part of a full correlation of lengths ``n`` and ``m``."""
    if mode == "full":
        return full
    lo, hi = min(n, m), max(n, m)
    if mode == "valid":
        start, length = lo - 1, hi - lo + 1
    elif mode == "same":
        start, length = ((m - 1) // 2 if n >= m else (n - 1) - (n - 1) // 2), hi
    else:
        raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
    return full[start:start + length]


def _check(a: ArrayLike, v: ArrayLike, name: str) -> tuple[Array, Array]:
    a, v = _vec(a, name), _vec(v, name)
    if a.shape[0] == 0:
        raise ValueError("a cannot be empty")
    if v.shape[0] == 0:
        raise ValueError("v cannot be empty")
    return a, v


def correlate(a: ArrayLike, v: ArrayLike, mode: str = "valid") -> Array:
    """Cross-correlation of two 1-D sequences, ``c[k] = sum_n a[n + k] * conj(v[n])``.


    >>> correlate([1.0, 2.0, 3.0], [0.0, 1.0, 0.5])
    array([3.5])

    Parameters
    ----------
    a, v : array_like
        1-D sequences (any dtype; complex ``v`` is conjugated, NumPy's
        definition).
    mode : {'valid', 'same', 'full'}, optional
        Output lengths ``max(M, N) - min(M, N) + 1``,
        ``max(M, N)`` or ``M + N - 1``.

    Returns
    -------
    Array
        1-D, of the promoted dtype.

    Raises
    ------
    ValueError
        An empty operand, an operand of rank > 1, an unknown ``mode``.

    Notes
    -----
    Differentiable in both operands (bilinear).
    """
    a, v = _check(a, v, "correlate")
    if _kind_of(v) == "c":
        v = P.conj(v)
    return _mode_slice(_xcorr_full(a, v), a.shape[0], v.shape[0], mode)


def convolve(a: ArrayLike, v: ArrayLike, mode: str = "full") -> Array:
    """Discrete linear convolution of two 1-D sequences, ``(a * v)[n] = sum_m a[m] v[n - m]``.

    The shorter operand is the kernel, as in NumPy; no conjugation.

    >>> convolve([1.0, 2.0, 3.0], [0.0, 1.0, 0.5])
    array([0. , 1. , 2.5, 4. , 1.5])

    Parameters
    ----------
    a, v : array_like
        1-D sequences.
    mode : {'full', 'same', 'valid'}, optional
        Output lengths ``M + N - 1``, ``max(M, N)`` or
        ``max(M, N) - min(M, N) + 1``.

    Returns
    -------
    Array
        1-D, of the promoted dtype.

    Raises
    ------
    ValueError
        An empty operand, an operand of rank > 1, an unknown ``mode``.

    Notes
    -----
    Differentiable in both operands (bilinear).
    """
    a, v = _check(a, v, "convolve")
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    return _mode_slice(_xcorr_full(a, flip(v, 0)), a.shape[0], v.shape[0], mode)


# ---------------------------------------------------------------------------------
# interp
# ---------------------------------------------------------------------------------
def interp(x: ArrayLike, xp: ArrayLike, fp: ArrayLike, left: ArrayLike | None = None,
           right: ArrayLike | None = None, period: float | None = None) -> Array:
    """Piecewise-linear interpolation of the samples ``(xp, fp)`` at ``x``.

    The bracket search is :func:`searchsorted` (NumPy's binary search on concrete values;
    ``O(len(x) * len(xp))`` comparisons inside ``jit``/``vmap``).

    >>> interp([0.5, 2.5, 9.0], [0.0, 1.0, 3.0], [0.0, 2.0, 6.0])
    array([1., 5., 6.])

    Parameters
    ----------
    x : array_like
        Real points to evaluate at, any shape.
    xp : array_like
        1-D real sample points, increasing (not checked, as in NumPy), or in
        any order with ``period``.
    fp : array_like
        1-D real or complex sample values, ``xp``'s length.
    left, right : array_like, optional
        Values for ``x < xp[0]`` / ``x > xp[-1]`` (default
        ``fp[0]``/``fp[-1]``).
    period : float, optional
        Period of ``x``/``xp`` (``left``/``right`` are then ignored).

    Returns
    -------
    Array
        ``x``'s shape.

    Raises
    ------
    ValueError
        Empty ``xp``, ``xp``/``fp`` not 1-D or of different lengths, ``period == 0``.
    TypeError
        Complex ``x`` or ``xp``.

    Notes
    -----
    Differentiable: in ``x`` the slope of the segment (right-sided at sample points, 0
    outside ``[xp[0], xp[-1]]``), in ``fp`` and ``xp`` those of the linear blend.
    """
    xa, xpa, fpa = _ndarray(x), _ndarray(xp), _ndarray(fp)
    if xpa.ndim != 1 or fpa.ndim != 1:
        raise ValueError(f"interp: xp and fp must be 1-d sequences, got shapes "
                         f"{tuple(xpa.shape)} and {tuple(fpa.shape)}")
    if xpa.shape[0] != fpa.shape[0]:
        raise ValueError(f"fp and xp are not of the same length ({fpa.shape[0]} and "
                         f"{xpa.shape[0]})")
    if xpa.shape[0] == 0:
        raise ValueError("array of sample points is empty")
    if _kind_of(xa) == "c" or _kind_of(xpa) == "c":
        raise TypeError("interp: x and xp must be real (only fp may be complex)")
    cplx = _kind_of(fpa) == "c"
    fdt = np.dtype(np.complex128) if cplx else np.dtype(np.float64)
    xa, xpa = (P.convert_element_type(t, np.dtype(np.float64))
               if _np_dtype(t.dtype) != np.float64 else t for t in (xa, xpa))
    fpa = fpa if _np_dtype(fpa.dtype) == fdt else P.convert_element_type(fpa, fdt)
    if period is not None:
        if not isinstance(period, Tracer) and period == 0:
            raise ValueError("period must be a non-zero value")
        per = F.abs(period)
        # (remainder is an op-table row that _elementwise adds to its globals)
        xa, xpa = F.remainder(xa, per), F.remainder(xpa, per)  # type: ignore[attr-defined]
        order = argsort(xpa)
        xpa, fpa = take(xpa, order), take(fpa, order)
        xpa = F.concatenate([F.subtract(xpa[-1:], per), xpa, F.add(xpa[0:1], per)])
        fpa = F.concatenate([fpa[-1:], fpa, fpa[0:1]])
        left = right = None
    n = xpa.shape[0]
    if n == 1:
        y = F.broadcast_to(fpa[0], xa.shape) if xa.ndim else fpa[0]
    else:
        # index of the bracketing segment: #(xp <= x) - 1, clipped to [0, n - 2]
        i = F.clip(F.subtract(searchsorted(xpa, xa, side="right"), 1), 0, n - 2)
        x0, x1, f0, f1 = take(xpa, i), take(xpa, i + 1), take(fpa, i), take(fpa, i + 1)
        slope = F.divide(F.subtract(f1, f0), F.subtract(x1, x0))
        y = F.add(f0, F.multiply(slope, F.subtract(xa, x0)))
        # exact at the right end of a segment (NumPy's value; the slope stays)
        y = F.where(P.eq(xa, x1), F.add(f1, F.multiply(slope, F.subtract(xa, x1))), y)
    lo = fpa[0] if left is None else left
    hi = fpa[-1] if right is None else right
    y = F.where(P.lt(xa, xpa[0]), lo, y)
    y = F.where(P.gt(xa, xpa[-1]), hi, y)
    if n > 1:
        y = F.where(F.isnan(xa), np.nan, y)  # (NumPy: a NaN x gives NaN, not left/right)
    ya = cast(Array, y)  # (where(c, x, y) is one array)
    return ya if _np_dtype(ya.dtype) == fdt else P.convert_element_type(ya, fdt)


# ---------------------------------------------------------------------------------
# unwrap
# ---------------------------------------------------------------------------------
def unwrap(p: ArrayLike, discont: float | None = None, axis: int = -1, *,
           period: float = 2 * np.pi) -> Array:
    """Remove jumps larger than ``discont`` by adding multiples of ``period``.

    NumPy's algorithm, boundary ties resolved as NumPy for floats.

    >>> unwrap([0.0, 3.0, 6.5])
    array([0.        , 3.        , 0.21681469])

    Parameters
    ----------
    p : array_like
        Real input (phases).
    discont : float, optional
        Largest jump left alone; ``period / 2`` by default.
    axis : int, optional
        The axis to unwrap along.
    period : float, optional
        Period of the values.

    Returns
    -------
    Array
        ``p``'s shape.

    Raises
    ------
    numpy.exceptions.AxisError
        For a bad ``axis``.
    TypeError
        For complex ``p``.

    Notes
    -----
    The added multiples are piecewise constant (they enter through ``stop_gradient``):
    the derivative in ``p`` is the identity.
    """
    p = _ndarray(p)
    if _kind_of(p) == "c":
        raise TypeError("unwrap: p must be real (phases), got a complex array")
    if _kind_of(p) not in "f":
        p = P.convert_element_type(p, np.dtype(np.float64))
    ax = _axis(axis, p.ndim)
    n = p.shape[ax]
    if n < 2:
        return p
    dd = P.stop_gradient(diff(p, axis=ax))
    if discont is None:
        discont = period / 2
    hi = period / 2
    lo = -hi
    # (remainder is an op-table row that _elementwise adds to its globals)
    ddrem = F.add(F.remainder(F.subtract(dd, lo), period), lo)  # type: ignore[attr-defined]
    ddmod = F.where(P.logical_and(P.eq(ddrem, lo), P.gt(dd, 0)), hi, ddrem)
    corr = F.where(P.lt(F.abs(dd), discont), 0.0, F.subtract(ddmod, dd))
    corr = P.stop_gradient(cumsum(corr, axis=ax))
    head, tail = _split1(p, ax)
    tail = F.add(tail, corr)
    return F.concatenate([head, P.convert_element_type(tail, _np_dtype(p.dtype))
                          if _np_dtype(tail.dtype) != _np_dtype(p.dtype) else tail], axis=ax)


def _split1(p: Any, ax: int) -> Any:
    idx0 = (slice(None),) * ax + (slice(0, 1),)
    idx1 = (slice(None),) * ax + (slice(1, None),)
    return p[idx0], p[idx1]


# ---------------------------------------------------------------------------------
# windows
# ---------------------------------------------------------------------------------
def _length(M: int, name: str) -> int:
    if isinstance(M, Tracer):
        raise TypeError(f"{name}: the window length M must be a concrete integer, not a "
                        "traced value (pass it as a static argument)")
    return operator.index(M) if not isinstance(M, float) else int(M)


def bartlett(M: int) -> Array:
    """Bartlett (triangular) window.

    Parameters
    ----------
    M : int
        Number of points (an empty array for ``M <= 0``).

    Returns
    -------
    Array
        1-D float64 window of length ``M``; a constant.
    """
    return np.bartlett(_length(M, "bartlett"))


def blackman(M: int) -> Array:
    """Blackman window.

    Parameters
    ----------
    M : int
        Number of points (an empty array for ``M <= 0``).

    Returns
    -------
    Array
        1-D float64 window of length ``M``; a constant.
    """
    return np.blackman(_length(M, "blackman"))


def hamming(M: int) -> Array:
    """Hamming window.

    Parameters
    ----------
    M : int
        Number of points (an empty array for ``M <= 0``).

    Returns
    -------
    Array
        1-D float64 window of length ``M``; a constant.
    """
    return np.hamming(_length(M, "hamming"))


def hanning(M: int) -> Array:
    """Hann window.

    Parameters
    ----------
    M : int
        Number of points (an empty array for ``M <= 0``).

    Returns
    -------
    Array
        1-D float64 window of length ``M``; a constant.
    """
    return np.hanning(_length(M, "hanning"))


def kaiser(M: int, beta: ArrayLike) -> Array:
    """Kaiser window, ``I0(beta * sqrt(1 - (2n/(M-1) - 1)^2)) / I0(beta)``.

    ``n`` in ``[0, M)`` (Kaiser & Schafer 1980, NumPy's formula).

    >>> kaiser(3, 0.0)
    array([1., 1., 1.])

    Parameters
    ----------
    M : int
        Number of points.
    beta : array_like
        Shape parameter (may be traced).

    Returns
    -------
    Array
        1-D window of length ``M``.

    Notes
    -----
    Differentiable in ``beta`` (``I0' = I1``, DLMF 10.29.3).
    """
    M = _length(M, "kaiser")
    if not isinstance(beta, Tracer):
        return np.kaiser(M, beta)  # type: ignore[arg-type]  # (NumPy checks beta)
    if M < 1:
        return np.array([], np.float64)
    if M == 1:
        return np.ones(1, np.float64)
    n = np.arange(0, M)
    alpha = (M - 1) / 2.0
    r = np.sqrt(1 - ((n - alpha) / alpha) ** 2.0)
    # (i0 is an op-table row that _elementwise adds to its globals)
    return F.divide(F.i0(F.multiply(beta, r)),  # type: ignore[attr-defined]
                    F.i0(F.astype(beta, np.float64)  # type: ignore[attr-defined]
                         if _kind_of(beta) != "f" else beta))
