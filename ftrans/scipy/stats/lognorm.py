"""``scipy.stats.lognorm``: the log-normal distribution with shape ``s``
(``log((x - loc)/scale) ~ N(0, s)``).

Differentiable in ``x``/``q``, ``loc``, ``scale`` and the shape ``s`` (compositions of
ftrans.numpy / ftrans.scipy.special; formulas in each method's docstring, from SciPy's
documentation).

>>> import ftrans.scipy.stats as fst
>>> round(float(fst.lognorm.cdf(1.0, 0.5)), 12)
0.5
"""
from __future__ import annotations

from . import _continuous as C
from ...typing import Array
from ._util import continuous, exp_of

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]

_S = ("s",)


def _valid(s: Array) -> Array:
    return s > 0


logpdf = continuous("lognorm", "logpdf", _S, C.lognorm_logpdf, _valid,
                    formula="``-log(s y sqrt(2 pi) scale) - log(y)**2 / (2 s**2)`` for "
                            "``y = (x - loc)/scale > 0``, else -inf.")
pdf = exp_of(logpdf, "pdf")
cdf = continuous("lognorm", "cdf", _S, C.lognorm_cdf, _valid,
                 formula="``norm.cdf(log(y) / s)`` (0 for y <= 0).")
logcdf = continuous("lognorm", "logcdf", _S, C.lognorm_logcdf, _valid,
                    formula="``log_ndtr(log(y) / s)`` (-inf for y <= 0).")
sf = continuous("lognorm", "sf", _S, C.lognorm_sf, _valid,
                formula="``norm.sf(log(y) / s)`` (1 for y <= 0).")
logsf = continuous("lognorm", "logsf", _S, C.lognorm_logsf, _valid,
                   formula="``log_ndtr(-log(y) / s)`` (0 for y <= 0).")
ppf = continuous("lognorm", "ppf", _S, C.lognorm_ppf, _valid,
                 formula="``loc + scale exp(s norm.ppf(q))``.")
