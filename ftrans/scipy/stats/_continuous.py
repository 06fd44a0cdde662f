"""Location-scale families with closed forms: ``expon``, ``laplace``, ``logistic``,
``cauchy``, ``uniform``, ``lognorm`` (the standardized functions; the public modules
build SciPy's methods from them with :func:`._util.continuous`)."""
from __future__ import annotations

import math

from ... import numpy as fnp
from .. import special as sc
from ._util import INF, log1mexp
from . import norm as _norm

LOG2 = math.log(2.0)
LOGPI = math.log(math.pi)


# expon: support z >= 0 ------------------------------------------------------------
def expon_logpdf(z):
    return fnp.where(z >= 0, -z, -INF)


def expon_cdf(z):
    return -fnp.expm1(-fnp.maximum(z, 0.0))


def expon_logcdf(z):
    pos = z > 0
    return fnp.where(pos, log1mexp(-fnp.where(pos, z, 1.0)), -INF)


def expon_logsf(z):
    return -fnp.maximum(z, 0.0)


def expon_ppf(q):
    return -fnp.log1p(-q)


# laplace ----------------------------------------------------------------------------
def laplace_logpdf(z):
    return -fnp.abs(z) - LOG2


def laplace_cdf(z):
    neg = z <= 0
    return fnp.where(neg, 0.5 * fnp.exp(fnp.where(neg, z, 0.0)),
                     1.0 - 0.5 * fnp.exp(-fnp.where(neg, 0.0, z)))


def laplace_logcdf(z):
    neg = z <= 0
    return fnp.where(neg, fnp.where(neg, z, 0.0) - LOG2,
                     fnp.log1p(-0.5 * fnp.exp(-fnp.where(neg, 0.0, z))))


def laplace_ppf(q):
    up = q > 0.5
    return fnp.where(up, -fnp.log(2.0 - 2.0 * fnp.where(up, q, 0.75)),
                     fnp.log(2.0 * fnp.where(up, 0.25, q)))


# logistic ---------------------------------------------------------------------------
def logistic_logpdf(z):
    return sc.log_expit(z) + sc.log_expit(-z)


# cauchy: atan2 keeps the tails accurate (0.5 - atan(z)/pi cancels for large z) --------
def cauchy_logpdf(z):
    return -LOGPI - fnp.log1p(z * z)


def cauchy_cdf(z):
    return fnp.arctan2(1.0, -z) / math.pi


def cauchy_sf(z):
    return cauchy_cdf(-z)


def cauchy_ppf(q):
    """``tan(pi (q - 1/2))`` as ``-1/tan(pi q)`` below 1/2 and ``1/tan(pi (1 - q))`` above
    (``1 - q`` is exact there): no cancellation in the tails; +-inf at 1 and 0."""
    inner = (q > 0) & (q < 1)
    low = q < 0.5
    r = fnp.where(inner, fnp.where(low, q, 1.0 - q), 0.25)
    t = 1.0 / fnp.tan(math.pi * r)
    return fnp.where(inner, fnp.where(low, -t, t), fnp.where(q > 0.5, INF, -INF))


# uniform on [0, 1] ------------------------------------------------------------------
def uniform_logpdf(z):
    inside = (z >= 0) & (z <= 1)
    return fnp.where(inside, 0.0 * z, -INF)


def uniform_cdf(z):
    return fnp.clip(z, 0.0, 1.0)


def uniform_sf(z):
    return fnp.clip(1.0 - z, 0.0, 1.0)


def uniform_ppf(q):
    return q


# lognorm(s): log(Y) ~ N(0, s) --------------------------------------------------------
def lognorm_logpdf(z, s):
    pos = z > 0
    y = fnp.where(pos, z, 1.0)
    ly = fnp.log(y)
    val = -fnp.log(s) - ly - 0.5 * math.log(2 * math.pi) - 0.5 * (ly / s) ** 2
    return fnp.where(pos, val, -INF)


def _lognorm_arg(z, s):
    pos = z > 0
    return pos, fnp.log(fnp.where(pos, z, 1.0)) / s


def lognorm_cdf(z, s):
    pos, w = _lognorm_arg(z, s)
    return fnp.where(pos, _norm._cdf(w), 0.0)


def lognorm_sf(z, s):
    pos, w = _lognorm_arg(z, s)
    return fnp.where(pos, _norm._cdf(-w), 1.0)


def lognorm_ppf(q, s):
    return fnp.exp(s * _norm._ppf(q))


# log of a cdf / sf from both tails (no log(1 - tiny) cancellation) ---------------------
def log_tail(main, other):
    """``z -> log(main(z))``, computed as ``log1p(-other(z))`` where ``main(z) >= 1/2``
    (``main``/``other``: a cdf and its sf, or the reverse).  Double ``where``: the
    untaken logarithm sees a safe argument, so no derivative is ``nan``."""
    def f(z, *shape):
        m = main(z, *shape)
        small = m < 0.5
        o = other(z, *shape)
        return fnp.where(small, fnp.log(fnp.where(small, m, 1.0)),
                         fnp.log1p(-fnp.where(small, 0.0, o)))
    return f
