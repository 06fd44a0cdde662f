"""``scipy.stats.expon``: the exponential distribution (support ``x >= loc``).

Differentiable in ``x``/``q``, ``loc``, ``scale`` (compositions of ftrans.numpy /
ftrans.scipy.special; formulas in each method's docstring, from SciPy's documentation).

>>> import ftrans.scipy.stats as fst
>>> float(fst.expon.cdf(0.0))
0.0
"""
from __future__ import annotations

from ... import numpy as fnp
from . import _continuous as C
from ._util import continuous, exp_of

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]

logpdf = continuous("expon", "logpdf", (), C.expon_logpdf,
                    formula="``-z - log(scale)`` for ``z = (x - loc)/scale >= 0``, else -inf.")
pdf = exp_of(logpdf, "pdf")
cdf = continuous("expon", "cdf", (), C.expon_cdf, formula="``-expm1(-z)`` (0 for z < 0).")
logcdf = continuous("expon", "logcdf", (), C.expon_logcdf,
                    formula="``log(-expm1(-z))`` (Maechler's log1mexp; -inf for z <= 0).")
sf = continuous("expon", "sf", (), lambda z: fnp.exp(C.expon_logsf(z)),
                formula="``exp(-z)`` (1 for z < 0).")
logsf = continuous("expon", "logsf", (), C.expon_logsf, formula="``-z`` (0 for z < 0).")
ppf = continuous("expon", "ppf", (), C.expon_ppf, formula="``loc - scale log1p(-q)``.")
