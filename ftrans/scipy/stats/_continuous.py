"""Location-scale families with closed forms: ``expon``, ``laplace``, ``logistic``,
``cauchy``, ``uniform``, ``lognorm`` (the standardized functions; the public modules
build SciPy's methods from them with :func:`._util.continuous`)."""
from __future__ import annotations

import math

from ... import numpy as fnp
from ...typing import Array
from .. import special as sc
from ._util import INF, log1mexp, const

LOG2 = math.log(2.0)
LOGPI = math.log(math.pi)


# expon: support z >= 0 ------------------------------------------------------------
def expon_logpdf(z: Array) -> Array:
    return fnp.where(z >= 0, -z, -INF)


def expon_cdf(z: Array) -> Array:
    return -fnp.expm1(-fnp.maximum(z, 0.0))


def expon_logcdf(z: Array) -> Array:
    pos = z > 0
    return fnp.where(pos, log1mexp(-fnp.where(pos, z, 1.0)), -INF)


def expon_logsf(z: Array) -> Array:
    return -fnp.maximum(z, 0.0)


def expon_ppf(q: Array) -> Array:
    return -fnp.log1p(-q)


# laplace ----------------------------------------------------------------------------
def laplace_logpdf(z: Array) -> Array:
    return -fnp.abs(z) - LOG2


def laplace_cdf(z: Array) -> Array:
    neg = z <= 0
    return fnp.where(neg, 0.5 * fnp.exp(fnp.where(neg, z, 0.0)),
                     1.0 - 0.5 * fnp.exp(-fnp.where(neg, 0.0, z)))


def laplace_logcdf(z: Array) -> Array:
    neg = z <= 0
    return fnp.where(neg, fnp.where(neg, z, 0.0) - LOG2,
                     fnp.log1p(-0.5 * fnp.exp(-fnp.where(neg, 0.0, z))))


def laplace_ppf(q: Array) -> Array:
    up = q > 0.5
    return fnp.where(up, -fnp.log(2.0 - 2.0 * fnp.where(up, q, 0.75)),
                     fnp.log(2.0 * fnp.where(up, 0.25, q)))


# logistic ---------------------------------------------------------------------------
def logistic_logpdf(z: Array) -> Array:
    return sc.log_expit(z) + sc.log_expit(-z)


# cauchy: atan2 keeps the tails accurate (0.5 - atan(z)/pi cancels for large z) --------
def cauchy_logpdf(z: Array) -> Array:
    return -LOGPI - fnp.log1p(z * z)


def cauchy_cdf(z: Array) -> Array:
    """``arctan2(1, -z) / pi`` (= 1/2 + arctan(z)/pi, accurate in both tails)."""
    return fnp.arctan2(1.0, -z) / math.pi


def cauchy_sf(z: Array) -> Array:
    """``arctan2(1, z) / pi``."""
    return cauchy_cdf(-z)


def cauchy_ppf(q: Array) -> Array:
    """``tan(pi (q - 1/2))``: directly on [1/4, 3/4] (``q - 1/2`` exact there), as
    ``-1/tan(pi q)`` below and ``1/tan(pi (1 - q))`` above (no cancellation in the
    tails); +-inf at 1 and 0."""
    inner = (q > 0) & (q < 1)
    mid = (q >= 0.25) & (q <= 0.75)
    low = q < 0.5
    r = fnp.where(inner & ~mid, fnp.where(low, q, 1.0 - q), 0.25)
    t = 1.0 / fnp.tan(math.pi * r)
    centre = fnp.tan(math.pi * (fnp.where(mid, q, 0.5) - 0.5))
    tails = fnp.where(inner, fnp.where(low, -t, t), const(fnp.where(q > 0.5, INF, -INF), q))
    return fnp.where(mid, centre, tails)


# uniform on [0, 1] ------------------------------------------------------------------
def uniform_logpdf(z: Array) -> Array:
    inside = (z >= 0) & (z <= 1)
    return fnp.where(inside, 0.0 * z, -INF)


def uniform_cdf(z: Array) -> Array:
    """``clip(z, 0, 1)``."""
    return fnp.clip(z, 0.0, 1.0)


def uniform_sf(z: Array) -> Array:
    """``clip(1 - z, 0, 1)``."""
    return fnp.clip(1.0 - z, 0.0, 1.0)


def uniform_ppf(q: Array) -> Array:
    return q


# lognorm(s): log(Y) ~ N(0, s) --------------------------------------------------------
def lognorm_logpdf(z: Array, s: Array) -> Array:
    pos = z > 0
    y = fnp.where(pos, z, 1.0)
    ly = fnp.log(y)
    val = -fnp.log(s) - ly - 0.5 * math.log(2 * math.pi) - 0.5 * (ly / s) ** 2
    return fnp.where(pos, val, -INF)


def _lognorm_arg(z: Array, s: Array) -> tuple[Array, Array]:
    pos = z > 0
    return pos, fnp.log(fnp.where(pos, z, 1.0)) / s


def lognorm_cdf(z: Array, s: Array) -> Array:
    pos, w = _lognorm_arg(z, s)
    return fnp.where(pos, sc.ndtr(w), 0.0)


def lognorm_sf(z: Array, s: Array) -> Array:
    pos, w = _lognorm_arg(z, s)
    return fnp.where(pos, sc.ndtr(-w), 1.0)


def lognorm_logcdf(z: Array, s: Array) -> Array:
    pos, w = _lognorm_arg(z, s)
    return fnp.where(pos, sc.log_ndtr(w), -INF)


def lognorm_logsf(z: Array, s: Array) -> Array:
    pos, w = _lognorm_arg(z, s)
    return fnp.where(pos, sc.log_ndtr(-w), 0.0)


def lognorm_ppf(q: Array, s: Array) -> Array:
    return fnp.exp(s * sc.ndtri(q))

