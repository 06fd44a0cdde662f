"""``scipy.stats.gamma``: the gamma distribution with shape ``a``.

Differentiable in ``x``, ``loc``, ``scale`` and ``a`` (compositions of ftrans.numpy /
ftrans.scipy.special; formulas in :mod:`._shapes` and each method's docstring).
``ppf`` is SciPy's value with derivatives by the implicit function theorem
(:mod:`._ppf`).

>>> import ftrans.scipy.stats as fst
>>> round(float(fst.gamma.pdf(1.0, 1.0)), 12)
0.367879441171
"""
from __future__ import annotations

from . import _shapes as S
from ._ppf import inverse_cdf
from ._util import continuous, exp_of, tail_methods

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]

_SHAPES = ('a',)

logpdf = continuous("gamma", "logpdf", _SHAPES, S.gamma_logpdf, S.positive,
                    formula=S.gamma_logpdf.__doc__)
pdf = exp_of(logpdf, "pdf")
cdf, sf, logcdf, logsf = tail_methods("gamma", _SHAPES, S.gamma_cdf, S.gamma_sf, S.positive)
ppf = continuous("gamma", "ppf", _SHAPES, inverse_cdf("gamma", S.gamma_cdf), S.positive,
                 formula="SciPy's ``ppf``; derivatives by the implicit function theorem.")
