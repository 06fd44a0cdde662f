"""Derivatives of the regularized lower incomplete gamma function in its parameter.

``igamma_da(a, x, k)`` is ``d^k/da^k P(a, x)`` (``P = scipy.special.gammainc``) for
``k >= 1``: the quantity JAX's ``lax.igamma_grad_a`` computes for ``k = 1``.  Same idea as
XLA's implementation (``IgammaGradA``: the power series of ``P`` for ``x <= a + 1``, the
continued fraction of ``Q = 1 - P`` otherwise, both carried out in forward-mode
arithmetic in ``a``), written here with truncated Taylor series ("jets") in ``a`` of any
order ``k``, so higher derivatives come from the same code.

Series (Numerical Recipes 6.2.5; DLMF 8.7.1)::

    P(a, x) = exp(a log x - x - gammaln(a + 1)) * sum_{n>=0} x^n / ((a+1)...(a+n))

Continued fraction (Numerical Recipes 6.2.7; DLMF 8.9.2), by the modified Lentz method::

    Q(a, x) = exp(a log x - x - gammaln(a)) * 1/(x+1-a- 1(1-a)/(x+3-a- 2(2-a)/(x+5-a- ...)))

A jet is a list of Taylor coefficients ``[f, f', f''/2!, ...]`` of arrays; the answer is
``k!`` times the last coefficient.  NumPy only (CuPy/Dask inputs are converted by the
caller's backend); float32 inputs are computed in float64 and cast back.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["igamma_da"]

_EPS = 1e-15
_TINY = 1e-300
_MAX_ITER = 5000


def _mul(u, v):
    return [sum(u[m] * v[n - m] for m in range(n + 1)) for n in range(len(u))]


def _div(u, v):
    h = []
    for n in range(len(u)):
        s = u[n] - sum(v[m] * h[n - m] for m in range(1, n + 1))
        h.append(s / v[0])
    return h


def _exp(g):
    f = [np.exp(g[0])]
    for n in range(1, len(g)):
        f.append(sum(m * g[m] * f[n - m] for m in range(1, n + 1)) / n)
    return f


def _log_prefactor(sc, a, x, shift, k):
    """Taylor coefficients in ``a`` of ``a log x - x - gammaln(a + shift)``."""
    lx = np.log(x)
    g = [a * lx - x - sc.gammaln(a + shift)]
    if k >= 1:
        g.append(lx - sc.digamma(a + shift))
    for m in range(2, k + 1):
        g.append(-sc.polygamma(m - 1, a + shift) / math.factorial(m))
    return g


def _series(sc, a, x, k):
    """Jet of ``P`` at points with ``x <= a + 1`` (``x > 0``)."""
    term = [np.ones_like(a)] + [np.zeros_like(a) for _ in range(k)]
    total = list(term)
    for n in range(1, _MAX_ITER):
        inv = [(-1.0) ** m / (a + n) ** (m + 1) for m in range(k + 1)]  # 1/(a+n) in a
        term = _mul(term, [x * c for c in inv])
        total = [s + t for s, t in zip(total, term)]
        done = np.logical_and.reduce([np.abs(t) <= _EPS * np.abs(s)
                                      for s, t in zip(total, term)])
        if done.all():
            break
    out = _mul(_exp(_log_prefactor(sc, a, x, 1.0, k)), total)
    return [np.where(done, c, np.nan) for c in out]  # NaN, not a wrong number, if unconverged


def _const(c, like, k):
    return [c + np.zeros_like(like)] + [np.zeros_like(like) for _ in range(k)]


def _contfrac(sc, a, x, k):
    """Jet of ``-Q`` (the derivatives of ``P`` for k >= 1) at points with ``x > a + 1``."""
    zero = np.zeros_like(a)
    b = [x + 1.0 - a, -1.0 + zero] + [zero] * (k - 1)
    c = _const(1.0 / _TINY, a, k)
    d = _div(_const(1.0, a, k), b)
    h = list(d)
    for i in range(1, _MAX_ITER):
        an = [i * a - i * i, i + zero] + [zero] * (k - 1)
        b = [b[0] + 2.0] + b[1:]
        d = [bn + dn for bn, dn in zip(b, _mul(an, d))]
        d[0] = np.where(np.abs(d[0]) < _TINY, _TINY, d[0])
        c = [bn + qn for bn, qn in zip(b, _div(an, c))]
        c[0] = np.where(np.abs(c[0]) < _TINY, _TINY, c[0])
        d = _div(_const(1.0, a, k), d)
        delta = _mul(c, d)
        h = _mul(h, delta)
        done = np.logical_and.reduce([np.abs(delta[0] - 1.0) <= _EPS] + [
            np.abs(t) <= _EPS * (1.0 + np.abs(s)) for s, t in zip(h[1:], delta[1:])])
        if done.all():
            break
    q = _mul(_exp(_log_prefactor(sc, a, x, 0.0, k)), h)
    return [np.where(done, -t, np.nan) for t in q]  # NaN, not a wrong number, if unconverged


def igamma_da(a, x, k=1, *, sc):
    """``d^k/da^k gammainc(a, x)`` elementwise (NumPy arrays, broadcast); ``k >= 1``;
    ``sc`` is ``scipy.special`` (the caller's: the kernels import no SciPy).

    0 where ``x == 0`` or ``x == inf``; NaN where ``a <= 0``, ``x < 0`` or an input is
    NaN (where SciPy's ``gammainc`` is NaN or constant in ``a``), and where the series or
    fraction has not converged in 5000 terms (``a`` beyond about 1e5 near ``x == a``)."""
    dtype = np.result_type(a, x, np.float32)
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    shape = a.shape
    a, x = a.ravel(), x.ravel()
    out = np.full(a.shape, np.nan)
    ok = (a > 0) & (x >= 0)
    out[ok & ((x == 0) | np.isposinf(x))] = 0.0
    fin = ok & (x > 0) & np.isfinite(x) & np.isfinite(a)
    ser = fin & (x <= a + 1.0)
    cf = fin & ~ser
    with np.errstate(all="ignore"):
        if ser.any():
            out[ser] = _series(sc, a[ser], x[ser], k)[k] * math.factorial(k)
        if cf.any():
            out[cf] = _contfrac(sc, a[cf], x[cf], k)[k] * math.factorial(k)
    return out.reshape(shape).astype(dtype if dtype.kind == "f" else np.float64, copy=False)
