"""``scipy.stats.chi2``: the chi-squared distribution with ``df`` degrees of freedom.

Differentiable in ``x``, ``loc``, ``scale`` and ``df`` (compositions of ftrans.numpy /
ftrans.scipy.special; formulas in :mod:`._shapes` and each method's docstring).
``ppf`` is SciPy's value with derivatives by the implicit function theorem
(:mod:`._ppf`).

>>> import ftrans.scipy.stats as fst
>>> round(float(fst.chi2.pdf(2.0, 2.0)), 12)
0.183939720586
"""
from __future__ import annotations

from . import _shapes as S
from ._ppf import inverse_cdf
from ._util import continuous, exp_of, tail_methods

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]

_SHAPES = ('df',)

logpdf = continuous("chi2", "logpdf", _SHAPES, S.chi2_logpdf, S.positive,
                    formula=S.chi2_logpdf.__doc__)
pdf = exp_of(logpdf, "pdf")
cdf, sf, logcdf, logsf = tail_methods("chi2", _SHAPES, S.chi2_cdf, S.chi2_sf, S.positive)
ppf = continuous("chi2", "ppf", _SHAPES, inverse_cdf("chi2", S.chi2_cdf), S.positive,
                 formula="SciPy's ``ppf``; derivatives by the implicit function theorem.")
