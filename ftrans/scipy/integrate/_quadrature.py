"""Sampled-data quadrature (``scipy.integrate.trapezoid``, ``cumulative_trapezoid``,
``simpson``) as compositions of ``ftrans.numpy``: differentiable in ``y`` and ``x``."""
from __future__ import annotations

from typing import Any

import numpy as np

from ... import numpy as fnp
from ...typing import Array, ArrayLike

__all__ = ["trapezoid", "cumulative_trapezoid", "simpson"]


def _prepare(y: ArrayLike, x: ArrayLike | None, axis: int, name: str
             ) -> tuple[Array, Array | None]:
    """``y`` with the integration axis last, and ``x`` broadcastable to it (or None)."""
    ya = fnp.asarray(y)
    if ya.ndim == 0:
        raise ValueError(f"{name}: y must have at least one dimension, got a 0-d array")
    ya = fnp.moveaxis(ya, axis, -1)
    n = ya.shape[-1]
    xa = None
    if x is not None:
        xa = fnp.asarray(x)
        if xa.ndim == 1:
            if xa.shape[0] != n:
                raise ValueError(f"{name}: x has length {xa.shape[0]} but y has {n} samples "
                                 "along the integration axis; pass one x per sample")
        elif xa.ndim == ya.ndim:
            xa = fnp.moveaxis(xa, axis, -1)
            if xa.shape[-1] != n:
                raise ValueError(f"{name}: x has {xa.shape[-1]} samples along axis {axis}, "
                                 f"y has {n}; they must match")
        else:
            raise ValueError(f"{name}: x must be 1-D or have y's number of dimensions "
                             f"({ya.ndim}), got {xa.ndim} dimensions")
    return ya, xa


def trapezoid(y: ArrayLike, x: ArrayLike | None = None, dx: float = 1.0, axis: int = -1
              ) -> Array:
    """Integrate samples along ``axis`` by the trapezoidal rule (``scipy.integrate.trapezoid``).

    Parameters
    ----------
    y : array_like
        Samples, shape ``(..., N, ...)``.
    x : array_like, optional
        Sample points, shape ``(N,)`` or ``y``'s shape (default: spacing ``dx``).
    dx : float, optional
        Spacing when ``x`` is None.
    axis : int, optional
        Integration axis.

    Returns
    -------
    Array
        ``y``'s shape without ``axis``: ``sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]) / 2)``.

    Raises
    ------
    ValueError
        For a 0-d ``y`` or an ``x`` that does not fit ``y``.

    Examples
    --------
    >>> float(trapezoid(fnp.array([1.0, 2.0, 3.0])))
    4.0
    """
    y, x = _prepare(y, x, axis, "trapezoid")
    d = dx if x is None else fnp.diff(x, axis=-1)
    return fnp.sum(d * (y[..., 1:] + y[..., :-1]), axis=-1) / 2.0


def cumulative_trapezoid(y: ArrayLike, x: ArrayLike | None = None, dx: float = 1.0,
                         axis: int = -1, initial: float | None = None) -> Array:
    """Cumulative trapezoidal integral (``scipy.integrate.cumulative_trapezoid``).

    Parameters
    ----------
    y : array_like
        Samples, shape ``(..., N, ...)``.
    x : array_like, optional
        Sample points, shape ``(N,)`` or ``y``'s shape (default: spacing ``dx``).
    dx : float, optional
        Spacing when ``x`` is None.
    axis : int, optional
        Integration axis.
    initial : float, optional
        Inserted at the start of the result (SciPy accepts 0 or None).

    Returns
    -------
    Array
        ``y``'s shape with ``N - 1`` (``N`` with ``initial``) entries along ``axis``.

    Raises
    ------
    ValueError
        As :func:`trapezoid`; and for a nonzero ``initial`` (as SciPy >= 1.12).

    Examples
    --------
    >>> cumulative_trapezoid(fnp.array([1.0, 2.0, 3.0]), initial=0)
    array([0. , 1.5, 4. ])
    """
    y, x = _prepare(y, x, axis, "cumulative_trapezoid")
    d = dx if x is None else fnp.diff(x, axis=-1)
    res = fnp.cumsum(d * (y[..., 1:] + y[..., :-1]) / 2.0, axis=-1)
    if initial is not None:
        if not np.isscalar(initial) or initial != 0:
            raise ValueError(f"cumulative_trapezoid: initial must be 0 or None (SciPy's "
                             f"rule), got {initial!r}; add a constant to the result instead")
        res = fnp.concatenate([fnp.zeros(res.shape[:-1] + (1,), res.dtype), res], axis=-1)
    return fnp.moveaxis(res, -1, axis)


def _simpson_pairs(y: Array, h0: Array | float, h1: Array | float) -> Array:
    """Simpson's rule over consecutive interval pairs (y's last axis has 2k+1 samples;
    ``h0``/``h1`` the first/second spacing of each pair, or scalars)."""
    y0, y1, y2 = y[..., 0:-2:2], y[..., 1:-1:2], y[..., 2::2]
    hsum = h0 + h1
    return fnp.sum(hsum / 6.0 * (y0 * (2.0 - h1 / h0) + y1 * (hsum * hsum / (h0 * h1))
                                 + y2 * (2.0 - h0 / h1)), axis=-1)


def simpson(y: ArrayLike, x: ArrayLike | None = None, dx: float = 1.0, axis: int = -1
            ) -> Array:
    """Integrate samples along ``axis`` by composite Simpson's rule (``scipy.integrate.simpson``).

    SciPy >= 1.11's rule.
    With an even number of samples the last interval gets Cartwright's correction
    (Cartwright 2017, "Simpson's Rule Cumulative Integration with MS Excel and Irregularly
    -spaced Data", eq. 8, as SciPy); two samples use the trapezoidal rule.  Sample points
    must be distinct.

    Parameters
    ----------
    y : array_like
        Samples, shape ``(..., N, ...)``.
    x : array_like, optional
        Distinct sample points, shape ``(N,)`` or ``y``'s shape (default: spacing
        ``dx``).
    dx : float, optional
        Spacing when ``x`` is None.
    axis : int, optional
        Integration axis.

    Returns
    -------
    Array
        ``y``'s shape without ``axis``.

    Raises
    ------
    ValueError
        As :func:`trapezoid`.

    Examples
    --------
    >>> float(simpson(fnp.array([0.0, 1.0, 4.0]), x=fnp.array([0.0, 1.0, 2.0])))  # x**2
    2.6666666666666665
    """
    y, x = _prepare(y, x, axis, "simpson")
    n = y.shape[-1]
    h = None if x is None else fnp.diff(x, axis=-1)
    if n == 1:
        return fnp.sum(y * 0.0, axis=-1)
    if n == 2:
        d = dx if h is None else h[..., 0]
        return 0.5 * d * (y[..., 0] + y[..., 1])
    m = n if n % 2 else n - 1  # samples covered by the pairs
    ha: Array | float
    hb: Array | float
    if h is None:
        res = _simpson_pairs(y[..., :m], dx, dx)
        ha = hb = dx
    else:
        res = _simpson_pairs(y[..., :m], h[..., 0:m - 1:2], h[..., 1:m - 1:2])
        ha, hb = h[..., -2], h[..., -1]
    if n % 2 == 0:
        alpha = (2 * hb ** 2 + 3 * ha * hb) / (6 * (hb + ha))
        beta = (hb ** 2 + 3.0 * ha * hb) / (6 * ha)
        eta = hb ** 3 / (6 * ha * (ha + hb))
        res = res + alpha * y[..., -1] + beta * y[..., -2] - eta * y[..., -3]
    return res
