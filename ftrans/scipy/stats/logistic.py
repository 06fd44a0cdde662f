"""``scipy.stats.logistic``: the logistic distribution.

Differentiable in ``x``/``q``, ``loc``, ``scale`` (compositions of ftrans.numpy /
ftrans.scipy.special; formulas in each method's docstring, from SciPy's documentation).

>>> import ftrans.scipy.stats as fst
>>> float(fst.logistic.cdf(0.0))
0.5
"""
from __future__ import annotations

from .. import special as sc
from . import _continuous as C
from ._util import continuous, exp_of

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]

logpdf = continuous("logistic", "logpdf", (), C.logistic_logpdf,
                    formula="``log_expit(z) + log_expit(-z) - log(scale)`` (no overflow).")
pdf = exp_of(logpdf, "pdf")
cdf = continuous("logistic", "cdf", (), sc.expit, formula="``expit(z)``.")
logcdf = continuous("logistic", "logcdf", (), sc.log_expit, formula="``log_expit(z)``.")
sf = continuous("logistic", "sf", (), lambda z: sc.expit(-z), formula="``expit(-z)``.")
logsf = continuous("logistic", "logsf", (), lambda z: sc.log_expit(-z),
                   formula="``log_expit(-z)``.")
ppf = continuous("logistic", "ppf", (), sc.logit, formula="``loc + scale logit(q)``.")
