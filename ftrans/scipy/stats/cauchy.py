"""``scipy.stats.cauchy``: the Cauchy distribution.

Differentiable in ``x``/``q``, ``loc``, ``scale`` (compositions of ftrans.numpy /
ftrans.scipy.special; formulas in each method's docstring, from SciPy's documentation).

>>> import ftrans.scipy.stats as fst
>>> float(fst.cauchy.cdf(0.0))
0.5
"""
from __future__ import annotations

from . import _continuous as C
from ._util import continuous, exp_of, log_tail

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]

logpdf = continuous("cauchy", "logpdf", (), C.cauchy_logpdf,
                    formula="``-log(pi scale) - log1p(z**2)``.")
pdf = exp_of(logpdf, "pdf")
cdf = continuous("cauchy", "cdf", (), C.cauchy_cdf,
                 formula="``arctan2(1, -z) / pi`` (= 1/2 + arctan(z)/pi, accurate in both "
                         "tails).")
logcdf = continuous("cauchy", "logcdf", (), log_tail(C.cauchy_cdf, C.cauchy_sf),
                    formula="``log(cdf)``, as ``log1p(-sf)`` where cdf >= 1/2.")
sf = continuous("cauchy", "sf", (), C.cauchy_sf,
                formula="``arctan2(1, z) / pi``.")
logsf = continuous("cauchy", "logsf", (), log_tail(C.cauchy_sf, C.cauchy_cdf),
                   formula="``log(sf)``, as ``log1p(-cdf)`` where sf >= 1/2.")
ppf = continuous("cauchy", "ppf", (), C.cauchy_ppf, formula="``loc + scale tan(pi (q - 1/2))``.")
