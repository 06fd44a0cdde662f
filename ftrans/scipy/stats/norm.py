"""``scipy.stats.norm``: the normal distribution, differentiable in ``x``/``q``, ``loc``
and ``scale`` (compositions of ``ndtr``, ``log_ndtr`` and ``ndtri``).

>>> import ftrans.scipy.stats as fst
>>> round(float(fst.norm.pdf(0.0)), 12)                      # 1 / sqrt(2 pi)
0.398942280401
>>> round(float(fst.norm.cdf(1.0, loc=1.0, scale=2.0)), 12)
0.5
"""
from __future__ import annotations

import math

from ...typing import Array
from .. import special as sc
from ._util import continuous, exp_of

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _cdf(z: Array) -> Array:
    return sc.ndtr(z)


def _ppf(q: Array) -> Array:
    return sc.ndtri(q)


logpdf = continuous("norm", "logpdf", (), lambda z: -0.5 * z * z - _LOG_SQRT_2PI,
                    formula="``-z**2/2 - log(sqrt(2 pi) scale)``, ``z = (x - loc)/scale``.")
pdf = exp_of(logpdf, "pdf")
cdf = continuous("norm", "cdf", (), _cdf, formula="``ndtr(z)``, ``z = (x - loc)/scale``.")
sf = continuous("norm", "sf", (), lambda z: _cdf(-z), formula="``ndtr(-z)``.")
logcdf = continuous("norm", "logcdf", (), sc.log_ndtr,
                    formula="``log_ndtr(z)`` (accurate in both tails).")
logsf = continuous("norm", "logsf", (), lambda z: sc.log_ndtr(-z),
                   formula="``log_ndtr(-z)``.")
ppf = continuous("norm", "ppf", (), _ppf, formula="``loc + scale ndtri(q)``.")
