"""NumPy's power-series polynomial functions (``numpy.poly*``, ``roots``, ``vander``).

Coefficients are 1-d arrays, highest degree first (NumPy's convention).  Every function
is a composition of ftrans primitives and differentiable in all inexact arguments:
``polyval`` by Horner's scheme (NumPy's loop), ``polymul`` through :func:`convolve`,
``polyfit`` through :func:`ftrans.numpy.linalg.lstsq` (NumPy's column scaling),
``roots`` through :func:`ftrans.numpy.linalg.eigvals` of the companion matrix and
``poly`` of a square matrix through its eigenvalues.

Where NumPy's result *shape* depends on the values (``roots`` strips leading and
trailing zero coefficients, ``polydiv`` trims the leading near-zero coefficients of the
remainder, ``poly`` returns real coefficients for conjugate-pair roots) the values are
read when they are concrete (eagerly and under ``grad``/``jvp``); inside ``jit``/``vmap``
they are not, and the structural result is returned instead: ``roots`` assumes a nonzero
leading and last coefficient, ``polydiv``'s remainder keeps length ``len(v) - 1``, and
``poly`` keeps a complex result.
"""
from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy as np

from ..core import Tracer
from ..core.dtypes import kind_of as _kind_of
from ..typing import Array, ArrayLike
from ._args import P, _ndarray
from . import _funcs as F
from ._signal import convolve
from . import linalg as _la
from .linalg import _concrete  # (a tracer's value where available: not in jit/vmap)

__all__ = ["poly", "polyadd", "polysub", "polymul", "polydiv", "polyder", "polyint",
           "polyval", "polyfit", "roots", "vander"]


def _coef(p: ArrayLike, name: str) -> Array:
    p = F.atleast_1d(_ndarray(p))
    if p.ndim != 1:
        raise ValueError(f"{name}: expected a 1-d coefficient array, got shape "
                         f"{tuple(p.shape)}")
    return p


def polyval(p: ArrayLike, x: ArrayLike) -> Array:
    """Evaluate a polynomial, ``p[0]*x**(N-1) + ... + p[N-1]``, by Horner's scheme.


    >>> polyval([3.0, 0.0, 1.0], 5.0)
    np.float64(76.0)

    Parameters
    ----------
    p : array_like
        1-D coefficients, highest power first.
    x : array_like
        Points to evaluate at.

    Returns
    -------
    Array
        ``x``'s shape.

    Notes
    -----
    Differentiable in ``p`` and ``x``.
    """
    p, x = _ndarray(p), _ndarray(x)
    y = F.zeros_like(x)
    for i in range(p.shape[0]):
        y = F.add(F.multiply(y, x), p[i])
    return y


def _pad_front(a: Any, n: int) -> Array:
    return a if n <= 0 else F.concatenate([F.zeros_like(a, shape=(n,)), a])


def polyadd(a1: ArrayLike, a2: ArrayLike) -> Array:
    """Sum of two polynomials (the shorter one padded in front).

    Parameters
    ----------
    a1, a2 : array_like
        1-D coefficients, highest power first.

    Returns
    -------
    Array
        The sum's coefficients.

    Notes
    -----
    Differentiable (linear).
    """
    a1, a2 = _coef(a1, "polyadd"), _coef(a2, "polyadd")
    n = max(a1.shape[0], a2.shape[0])
    return F.add(_pad_front(a1, n - a1.shape[0]), _pad_front(a2, n - a2.shape[0]))


def polysub(a1: ArrayLike, a2: ArrayLike) -> Array:
    """Difference ``a1 - a2`` of two polynomials.

    Parameters
    ----------
    a1, a2 : array_like
        1-D coefficients, highest power first.

    Returns
    -------
    Array
        The difference's coefficients.

    Notes
    -----
    Differentiable (linear).
    """
    a1, a2 = _coef(a1, "polysub"), _coef(a2, "polysub")
    n = max(a1.shape[0], a2.shape[0])
    return F.subtract(_pad_front(a1, n - a1.shape[0]), _pad_front(a2, n - a2.shape[0]))


def polymul(a1: ArrayLike, a2: ArrayLike) -> Array:
    """Product of two polynomials (a convolution of the coefficients).

    Parameters
    ----------
    a1, a2 : array_like
        1-D coefficients, highest power first.

    Returns
    -------
    Array
        The product's coefficients.

    Notes
    -----
    Differentiable (bilinear).
    """
    return convolve(_coef(a1, "polymul"), _coef(a2, "polymul"))


def polyder(p: ArrayLike, m: int = 1) -> Array:
    """Coefficients of the ``m``-th derivative of a polynomial.

    Parameters
    ----------
    p : array_like
        1-D coefficients, highest power first.
    m : int, optional
        Order of the derivative (``m >= 0``).

    Returns
    -------
    Array
        The derivative's coefficients.

    Raises
    ------
    ValueError
        For negative ``m``.

    Notes
    -----
    Differentiable (linear in ``p``).
    """
    m = operator.index(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    p = _coef(p, "polyder")
    for _ in range(m):
        n = p.shape[0] - 1
        p = F.multiply(p[:-1], np.arange(n, 0, -1)) if n > 0 else F.multiply(p[:0], 1)
    return p


def polyint(p: ArrayLike, m: int = 1, k: ArrayLike | None = None) -> Array:
    """Coefficients of the ``m``-th antiderivative of a polynomial.

    Parameters
    ----------
    p : array_like
        1-D coefficients, highest power first.
    m : int, optional
        Order of the antiderivative.
    k : array_like, optional
        Integration constants: a scalar or ``m`` values, the first used
        first; 0 by default.

    Returns
    -------
    Array
        The antiderivative's coefficients.

    Raises
    ------
    ValueError
        For negative ``m`` or a wrong number of constants.

    Notes
    -----
    Differentiable (linear in ``p`` and ``k``).
    """
    m = operator.index(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    if k is None:
        k = np.zeros(m)
    k = F.atleast_1d(_ndarray(k))
    if k.shape[0] == 1 and m > 1:
        k = F.broadcast_to(k, (m,))
    if k.shape[0] < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    p = _coef(p, "polyint")
    for i in range(m):
        p = F.concatenate([F.divide(p, np.arange(p.shape[0], 0, -1)), k[i:i + 1]])
    return p


def polydiv(u: ArrayLike, v: ArrayLike) -> tuple[Array, Array]:
    """Quotient and remainder of polynomial division, ``u = q*v + r``.

    NumPy's synthetic division; see the module docstring for the remainder's length under
    ``jit``/``vmap``.  A zero leading coefficient of ``v`` gives inf/NaN as in NumPy.

    >>> polydiv([1.0, 3.0, 2.0], [1.0, 1.0])
    (array([1., 2.]), array([0.]))

    Parameters
    ----------
    u : array_like
        Dividend coefficients, highest power first.
    v : array_like
        Divisor coefficients.

    Returns
    -------
    tuple of Array
        ``(q, r)``.

    Notes
    -----
    Differentiable in ``u`` and ``v``.
    """
    u = F.add(_coef(u, "polydiv"), 0.0)
    v = F.add(_coef(v, "polydiv"), 0.0)
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = F.divide(1.0, v[0])
    r = [u[i] for i in range(m + 1)]
    q = []
    for k in range(0, m - n + 1):
        d = F.multiply(scale, r[k])
        q.append(d)
        for j in range(n + 1):
            r[k + j] = F.subtract(r[k + j], F.multiply(d, v[j]))
    dt = F.add(u[0], v[0]).dtype
    qa = F.stack(q) if q else np.zeros((1,), dt)
    ra = F.stack(r)
    rc = _concrete(ra)
    if rc is not None:  # NumPy's trim of the leading (near-)zero remainder coefficients
        s = 0
        while s < rc.shape[0] - 1 and np.allclose(rc[s], 0, rtol=1e-14):
            s += 1
        return qa, ra[s:]
    return qa, ra[max(m - n + 1, 0):] if m >= n else ra  # (structural: len(v) - 1)


def vander(x: ArrayLike, N: int | None = None, increasing: bool = False) -> Array:
    """Vandermonde matrix: columns ``x**(N-1), ..., x**0`` (reversed if ``increasing``).

    Parameters
    ----------
    x : array_like
        1-D points.
    N : int, optional
        Number of columns, ``len(x)`` by default.
    increasing : bool, optional
        Powers increasing from left to right.

    Returns
    -------
    Array
        Shape ``(len(x), N)``.

    Raises
    ------
    ValueError
        If ``x`` is not 1-D.

    Notes
    -----
    Differentiable in ``x``.
    """
    x = _ndarray(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    dt = np.promote_types(x.dtype, int)  # NumPy's result dtype (float32 -> float64)
    if x.dtype != dt:
        x = P.convert_element_type(x, dt)
    N = x.shape[0] if N is None else operator.index(N)
    pows = range(N) if increasing else range(N - 1, -1, -1)
    if N == 0:
        return F.multiply(F.reshape(x, (x.shape[0], 1)), np.zeros((1, 0), int))
    cols = [F.power(x, k) if k > 1 else (x if k == 1 else F.ones_like(x)) for k in pows]
    return F.stack(cols, axis=1)


def roots(p: ArrayLike) -> Array:
    """Roots of a polynomial: the eigenvalues of its companion matrix.


    >>> np.sort_complex(roots([1.0, -3.0, 2.0]))
    array([1.+0.j, 2.+0.j])

    Parameters
    ----------
    p : array_like
        1-D coefficients, highest power first.

    Returns
    -------
    Array
        Complex roots (as :func:`ftrans.numpy.linalg.eigvals`).

    Raises
    ------
    ValueError
        For input that is not 1-D.

    Notes
    -----
    Differentiable as :func:`ftrans.numpy.linalg.eig` (simple roots).
    """
    p = F.atleast_1d(_ndarray(p))
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    pc = _concrete(p)
    trailing = 0
    if pc is not None:
        nz = np.nonzero(pc)[0]
        if len(nz) == 0:
            return np.array([])
        trailing = len(pc) - nz[-1] - 1
        p = p[int(nz[0]):int(nz[-1]) + 1]
    if _kind_of(p) not in "fc":
        p = P.convert_element_type(p, np.dtype(np.float64))
    n = p.shape[0]
    if n > 1:
        first = F.reshape(F.divide(F.negative(p[1:]), p[0]), (1, n - 1))
        a = first if n == 2 else F.concatenate(
            [first, F.zeros_like(first, shape=(n - 2, n - 1)) + np.eye(n - 2, n - 1)], axis=0)
        r = _la.eigvals(a)
    else:
        r = np.zeros((0,), np.complex128)
    if trailing:
        r = F.concatenate([r, F.zeros_like(r, shape=(trailing,))])
    return r


def poly(seq_of_zeros: ArrayLike) -> Array:
    """Coefficients of the monic polynomial with the given roots.

    For a square matrix, the characteristic polynomial (through its eigenvalues).

    >>> poly([1.0, 2.0])
    array([ 1., -3.,  2.])

    Parameters
    ----------
    seq_of_zeros : array_like
        1-D roots, or a square matrix.

    Returns
    -------
    Array
        Coefficients, highest power first.

    Raises
    ------
    ValueError
        For input that is neither 1-D nor a square matrix.

    Notes
    -----
    Differentiable in the roots.
    """
    z = _ndarray(seq_of_zeros)
    if z.ndim == 2 and z.shape[0] == z.shape[1] and z.shape[0] != 0:
        z = _la.eigvals(z)
    elif z.ndim == 1:
        pass
    elif z.ndim == 0 or z.ndim == 2 and z.shape[0] == 0:
        return np.array(1.0)
    else:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    if _kind_of(z) not in "fc":  # (NumPy: mintypecode -> float64)
        z = P.convert_element_type(z, np.dtype(np.float64))
    a = np.ones((1,), z.dtype)
    for k in range(z.shape[0]):
        a = convolve(a, F.stack([F.ones_like(z[k]), F.negative(z[k])]), mode="full")
    if _kind_of(a) == "c":
        zc = _concrete(z)
        if zc is not None and np.all(np.sort(zc.astype(complex)) ==
                                     np.sort(np.conjugate(zc.astype(complex)))):
            a = F.real(a)
    return a


def polyfit(x: ArrayLike, y: ArrayLike, deg: int, rcond: float | None = None,
            full: bool = False, w: ArrayLike | None = None,
            cov: bool | str = False) -> Array | tuple[Any, ...]:
    """Least-squares polynomial fit of degree ``deg``.

    NumPy's algorithm: Vandermonde matrix, optional weights ``w``, columns scaled to unit
    norm, :func:`ftrans.numpy.linalg.lstsq`.

    >>> polyfit([0.0, 1.0, 2.0], [1.0, 3.0, 5.0], 1)
    array([2., 1.])

    Parameters
    ----------
    x : array_like
        1-D sample points.
    y : array_like
        Values: 1-D, or 2-D with one data set per column.
    deg : int
        Degree of the fit.
    rcond : float, optional
        Relative cutoff of small singular values; ``len(x) * eps`` by
        default.
    full : bool, optional
        Also return the diagnostics.
    w : array_like, optional
        Weights of the samples.
    cov : bool or 'unscaled', optional
        Also return the covariance of the coefficients.

    Returns
    -------
    Array or tuple
        ``p`` (highest power first); with ``full`` ``(p, residuals, rank,
        singular_values, rcond)``; with ``cov`` ``(p, V)``.

    Raises
    ------
    ValueError
        ``deg < 0``; ``cov`` scaling with ``len(x) <= deg + 1``.
    TypeError
        ``x`` not a non-empty 1-D vector, ``y`` not 1-D/2-D, lengths differ, ``w``
        not 1-D of ``len(x)``.

    Notes
    -----
    Differentiable in ``x``, ``y`` and ``w`` where the rank is locally constant.
    """
    order = operator.index(deg) + 1
    x, y = F.add(_ndarray(x), 0.0), F.add(_ndarray(y), 0.0)
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.shape[0] == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = x.shape[0] * np.finfo(x.dtype).eps
    lhs = vander(x, order)
    rhs = y
    if w is not None:
        w = F.add(_ndarray(w), 0.0)
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = F.multiply(lhs, F.reshape(w, (-1, 1)))
        rhs = F.multiply(rhs, F.reshape(w, (-1, 1)) if rhs.ndim == 2 else w)
    sq = F.add(F.square(F.real(lhs)), F.square(F.imag(lhs))) if _kind_of(lhs) == "c" \
        else F.multiply(lhs, lhs)
    scale = F.sqrt(F.sum(sq, axis=0))  # type: ignore[attr-defined]  # (generated row)
    lhs = F.divide(lhs, scale)
    c, resids, rank, s = _la.lstsq(lhs, rhs, rcond)
    c = F.transpose(F.divide(F.transpose(c), scale))
    if not isinstance(rank, Tracer) and int(rank) != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", np.exceptions.RankWarning,
                      stacklevel=2)
    if full:
        return c, resids, rank, s, rcond
    if cov:
        vbase = F.divide(_la.inv(F.matmul(F.transpose(F.conj(lhs)), lhs)),
                         F.outer(scale, scale))
        fac: float | Array
        if cov == "unscaled":
            fac = 1.0
        else:
            if x.shape[0] <= order:
                raise ValueError("the number of data points must exceed order to scale "
                                 "the covariance matrix")
            fac = F.divide(resids, x.shape[0] - order)
        if y.ndim == 1:
            return c, F.multiply(vbase, fac)
        return c, F.multiply(F.expand_dims(vbase, 2), fac)
    return c

