"""``scipy.stats.cauchy``: the Cauchy distribution.

Differentiable in ``x``/``q``, ``loc``, ``scale`` (compositions of ftrans.numpy /
ftrans.scipy.special; formulas in each method's docstring, from SciPy's documentation).

>>> import ftrans.scipy.stats as fst
>>> float(fst.cauchy.cdf(0.0))
0.5
"""
from __future__ import annotations

from . import _continuous as C
from ._util import continuous, exp_of, tail_methods

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]

logpdf = continuous("cauchy", "logpdf", (), C.cauchy_logpdf,
                    formula="``-log(pi scale) - log1p(z**2)``.")
pdf = exp_of(logpdf, "pdf")
ppf = continuous("cauchy", "ppf", (), C.cauchy_ppf, formula="``loc + scale tan(pi (q - 1/2))``.")
cdf, sf, logcdf, logsf = tail_methods("cauchy", (), C.cauchy_cdf, C.cauchy_sf)
