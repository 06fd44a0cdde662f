"""``scipy.stats.laplace``: the Laplace (double exponential) distribution.

Differentiable in ``x``/``q``, ``loc``, ``scale`` (compositions of ftrans.numpy /
ftrans.scipy.special; formulas in each method's docstring, from SciPy's documentation).

>>> import ftrans.scipy.stats as fst
>>> float(fst.laplace.cdf(0.0))
0.5
"""
from __future__ import annotations

from . import _continuous as C
from ._util import continuous, exp_of

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]

logpdf = continuous("laplace", "logpdf", (), C.laplace_logpdf,
                    formula="``-|z| - log(2 scale)``, ``z = (x - loc)/scale``.")
pdf = exp_of(logpdf, "pdf")
cdf = continuous("laplace", "cdf", (), C.laplace_cdf,
                 formula="``exp(z)/2`` for z <= 0, ``1 - exp(-z)/2`` above.")
logcdf = continuous("laplace", "logcdf", (), C.laplace_logcdf,
                    formula="``z - log 2`` for z <= 0, ``log1p(-exp(-z)/2)`` above.")
sf = continuous("laplace", "sf", (), lambda z: C.laplace_cdf(-z), formula="``cdf(-z)``.")
logsf = continuous("laplace", "logsf", (), lambda z: C.laplace_logcdf(-z),
                   formula="``logcdf(-z)``.")
ppf = continuous("laplace", "ppf", (), C.laplace_ppf,
                 formula="``log(2q)`` for q <= 1/2, ``-log(2 - 2q)`` above (times scale, "
                         "plus loc).")
