"""``scipy.stats.norm``: the normal distribution, differentiable in ``x``/``q``, ``loc``
and ``scale`` (compositions of ``erf``/``erfc``/``erfinv``).

>>> import ftrans.scipy.stats as fst
>>> round(float(fst.norm.pdf(0.0)), 12)                      # 1 / sqrt(2 pi)
0.398942280401
>>> round(float(fst.norm.cdf(1.0, loc=1.0, scale=2.0)), 12)
0.5
"""
from __future__ import annotations

import math

from .. import special as sc
from ._util import continuous, exp_of, log_of

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_SQRT2 = math.sqrt(2.0)


def _cdf(z):
    return 0.5 * sc.erfc(-z / _SQRT2)


def _ppf(q):
    return _SQRT2 * sc.erfinv(2.0 * q - 1.0)


logpdf = continuous("norm", "logpdf", (), lambda z: -0.5 * z * z - _LOG_SQRT_2PI,
                    formula="``-z**2/2 - log(sqrt(2 pi) scale)``, ``z = (x - loc)/scale``.")
pdf = exp_of(logpdf, "pdf")
cdf = continuous("norm", "cdf", (), _cdf,
                 formula="``erfc(-z / sqrt 2) / 2`` (accurate in the lower tail).")
sf = continuous("norm", "sf", (), lambda z: _cdf(-z),
                formula="``erfc(z / sqrt 2) / 2`` (accurate in the upper tail).")
logcdf = log_of(cdf, "logcdf")
logsf = log_of(sf, "logsf")
ppf = continuous("norm", "ppf", (), _ppf,
                 formula="``loc + scale sqrt(2) erfinv(2 q - 1)``.")
