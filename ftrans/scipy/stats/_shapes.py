"""Standardized densities of the shape families ``gamma``, ``chi2``, ``beta``, ``t``
(the public modules add ``loc``/``scale`` with :func:`._util.continuous`).

Sources: SciPy's ``scipy.stats`` documentation of each distribution (the same formulas
as ``jax.scipy.stats``).  ``xlogy``/``xlog1py`` give SciPy's boundary values (``pdf(0)``
is finite, 0 or inf by the shape parameter); points outside the support are replaced by
safe values before the logarithms, so no derivative is ``nan`` there.
"""
from __future__ import annotations

import math

from ... import numpy as fnp
from ...typing import Array
from .. import special as sc
from ._util import INF, const

LOG2 = math.log(2.0)


def gamma_logpdf(z: Array, a: Array) -> Array:
    """``xlogy(a - 1, z) - z - gammaln(a) - log(scale)`` for ``z = (x - loc)/scale >= 0``,
    else -inf."""
    ok = z >= 0
    zs = fnp.where(ok, z, 1.0)
    return fnp.where(ok, sc.xlogy(a - 1.0, zs) - zs - sc.gammaln(a), -INF)


def chi2_logpdf(z: Array, df: Array) -> Array:
    """``gamma.logpdf(z / 2, df / 2) - log 2 - log(scale)`` (chi2(df) = gamma(df/2, scale=2))."""
    return gamma_logpdf(0.5 * z, 0.5 * df) - LOG2


def beta_logpdf(z: Array, a: Array, b: Array) -> Array:
    """``xlogy(a - 1, z) + xlog1py(b - 1, -z) - betaln(a, b) - log(scale)`` for
    ``0 <= z <= 1``, else -inf."""
    ok = (z >= 0) & (z <= 1)
    zs = fnp.where(ok, z, 0.5)
    val = sc.xlogy(a - 1.0, zs) + sc.xlog1py(b - 1.0, -zs) - sc.betaln(a, b)
    return fnp.where(ok, val, -INF)


def t_logpdf(z: Array, df: Array) -> Array:
    """``gammaln((df+1)/2) - gammaln(df/2) - log(df pi)/2 - (df+1)/2 log1p(z**2/df)
    - log(scale)``."""
    h = 0.5 * (df + 1.0)
    return (sc.gammaln(h) - sc.gammaln(0.5 * df) - 0.5 * fnp.log(df * math.pi)
            - h * fnp.log1p(z * z / df))


def gamma_cdf(z: Array, a: Array) -> Array:
    """``gammainc(a, z)`` (0 for z <= 0)."""
    return sc.gammainc(a, fnp.maximum(z, 0.0))


def gamma_sf(z: Array, a: Array) -> Array:
    """``gammaincc(a, z)`` (1 for z <= 0)."""
    return sc.gammaincc(a, fnp.maximum(z, 0.0))


def chi2_cdf(z: Array, df: Array) -> Array:
    """``gammainc(df/2, z/2)``."""
    return gamma_cdf(0.5 * z, 0.5 * df)


def chi2_sf(z: Array, df: Array) -> Array:
    """``gammaincc(df/2, z/2)``."""
    return gamma_sf(0.5 * z, 0.5 * df)


def beta_cdf(z: Array, a: Array, b: Array) -> Array:
    """``betainc(a, b, z)`` (z clipped to [0, 1])."""
    return sc.betainc(a, b, fnp.clip(z, 0.0, 1.0))


def beta_sf(z: Array, a: Array, b: Array) -> Array:
    """``betainc(b, a, 1 - z)`` (z clipped to [0, 1]; no ``1 - cdf`` cancellation)."""
    return sc.betainc(b, a, 1.0 - fnp.clip(z, 0.0, 1.0))


def t_cdf(z: Array, df: Array) -> Array:
    """``betainc(df/2, 1/2, df/(df + z**2)) / 2`` below 0 and one minus it above (the
    t-to-beta relation, Abramowitz and Stegun 26.7.1).

    For ``|z| < 1e-3`` the series ``1/2 + pdf(0) (z - (df + 1) z**3 / (6 df))`` (error
    O(z**5), below 1e-15 there): betainc's derivative in ``x`` is infinite at ``x = 1``
    and ``dx/dz = 0`` at ``z = 0``, so the relation's derivative is ``nan`` at the median;
    the series has the right one, ``pdf(0)``."""
    small = fnp.abs(z) < 1e-3
    zs = fnp.where(small, 1.0, z)            # keeps the masked branch's derivative finite
    tail = 0.5 * sc.betainc(0.5 * df, const(0.5, df), df / (df + zs * zs))
    far = fnp.where(zs < 0, tail, 1.0 - tail)
    pdf0 = fnp.exp(sc.gammaln(0.5 * (df + 1.0)) - sc.gammaln(0.5 * df)
                   - 0.5 * fnp.log(math.pi * df))
    near = 0.5 + pdf0 * (z - (df + 1.0) / (6.0 * df) * z ** 3)
    return fnp.where(small, near, far)


def t_sf(z: Array, df: Array) -> Array:
    """``t_cdf(-z)``."""
    return t_cdf(-z, df)


def positive(*ps: Array) -> Array:
    """All shape parameters > 0 (``nan`` elsewhere)."""
    ok = ps[0] > 0
    for p in ps[1:]:
        ok = ok & (p > 0)
    return ok
