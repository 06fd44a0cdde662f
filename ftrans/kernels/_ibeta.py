"""Derivatives of the regularized incomplete beta function ``I_x(a, b)`` in ``a`` and ``b``.

``ibeta_dir(a, b, x, k, ua, ub)`` is the ``k``-th derivative of
``t -> I_x(a + t ua, b + t ub)`` at ``t = 0`` (a directional derivative; ``(ua, ub) =
(1, 0)`` and ``(0, 1)`` give the partial derivatives, and mixed second derivatives follow
by polarization).  The continued fraction of Numerical Recipes 6.4 (``betacf``; DLMF
8.17.22) by the modified Lentz method, carried out in truncated Taylor arithmetic in
``t`` (the jets of :mod:`ftrans.kernels._igamma`); for ``x > (a+1)/(a+b+2)`` the symmetry
``I_x(a, b) = 1 - I_{1-x}(b, a)`` (DLMF 8.17.4).  NumPy only; ``sc`` is the caller's
``scipy.special``.
"""
from __future__ import annotations

import math

import numpy as np

from ._igamma import _mul, _div, _exp

__all__ = ["ibeta_dir"]

_EPS = 1e-15
_TINY = 1e-300
_MAX_ITER = 5000


def _lgamma_jet(sc, a, u, k):
    """Taylor coefficients in t of ``gammaln(a + t u)``."""
    out = [sc.gammaln(a)]
    for m in range(1, k + 1):
        out.append(u ** m * sc.polygamma(m - 1, a) / math.factorial(m))
    return out


def _direct(sc, a, b, x, ua, ub, k):
    """Jet of ``I_x(a, b)`` where the fraction converges fast (``x < (a+1)/(a+b+2)``)."""
    zero = np.zeros_like(a)
    A = [a, ua + zero] + [zero] * (k - 1)
    B = [b, ub + zero] + [zero] * (k - 1)
    lx, l1x = np.log(x), np.log1p(-x)
    loga = [np.log(a)] + [(-1.0) ** (m + 1) * (ua / a) ** m / m for m in range(1, k + 1)]
    lbeta = [p + q - r for p, q, r in zip(_lgamma_jet(sc, a, ua, k), _lgamma_jet(sc, b, ub, k),
                                          _lgamma_jet(sc, a + b, ua + ub, k))]
    L = [ai * lx + bi * l1x - la - lb for ai, bi, la, lb in zip(A, B, loga, lbeta)]
    one = [1.0 + zero] + [zero] * k

    def lin(c0, ca, cb):  # c0 + ca * A + cb * B as a jet
        return [c0 + ca * A[0] + cb * B[0]] + [ca * A[m] + cb * B[m] for m in range(1, k + 1)]

    def guard(j):
        j[0] = np.where(np.abs(j[0]) < _TINY, _TINY, j[0])
        return j

    c = list(one)
    d = guard([o - t for o, t in zip(one, _div([x * v for v in lin(0.0, 1.0, 1.0)],
                                               lin(1.0, 1.0, 0.0)))])
    d = _div(one, d)
    h = list(d)
    done = np.zeros(a.shape, bool)
    for m in range(1, _MAX_ITER):
        m2 = 2.0 * m
        for aa in (
                _div(_mul([m * x * v for v in lin(-m, 0.0, 1.0)], one),
                     _mul(lin(m2 - 1.0, 1.0, 0.0), lin(m2, 1.0, 0.0))),
                _div([-x * v for v in _mul(lin(m, 1.0, 0.0), lin(m, 1.0, 1.0))],
                     _mul(lin(m2, 1.0, 0.0), lin(m2 + 1.0, 1.0, 0.0)))):
            d = _div(one, guard([o + t for o, t in zip(one, _mul(aa, d))]))
            c = guard([o + t for o, t in zip(one, _div(aa, c))])
            delta = _mul(d, c)
            h = _mul(h, delta)
        done = np.logical_and.reduce([np.abs(delta[0] - 1.0) <= _EPS] + [
            np.abs(t) <= _EPS * (1.0 + np.abs(s)) for s, t in zip(h[1:], delta[1:])])
        if done.all():
            break
    out = _mul(_exp(L), h)
    return [np.where(done, t, np.nan) for t in out]  # NaN, not a wrong number, if unconverged


def ibeta_dir(a, b, x, k=1, ua=1, ub=0, *, sc):
    """``d^k/dt^k I_x(a + t ua, b + t ub)`` at ``t = 0`` elementwise (``k >= 1``).

    0 at ``x == 0`` and ``x == 1`` (``I`` is 0 resp. 1 there for all ``a, b``); NaN where
    ``a <= 0``, ``b <= 0``, ``x`` is outside [0, 1] or an input is NaN."""
    dtype = np.result_type(a, b, x, np.float32)
    a, b, x = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, x)))
    shape = a.shape
    a, b, x = a.ravel(), b.ravel(), x.ravel()
    out = np.full(a.shape, np.nan)
    ok = (a > 0) & (b > 0) & (x >= 0) & (x <= 1) & np.isfinite(a) & np.isfinite(b)
    out[ok & ((x == 0) | (x == 1))] = 0.0
    inner = ok & (x > 0) & (x < 1)
    fwd = inner & (x < (a + 1.0) / (a + b + 2.0))
    swp = inner & ~fwd
    f = math.factorial(k)
    with np.errstate(all="ignore"):
        if fwd.any():
            out[fwd] = _direct(sc, a[fwd], b[fwd], x[fwd], ua, ub, k)[k] * f
        if swp.any():
            out[swp] = -_direct(sc, b[swp], a[swp], 1.0 - x[swp], ub, ua, k)[k] * f
    return out.reshape(shape).astype(dtype if dtype.kind == "f" else np.float64, copy=False)
