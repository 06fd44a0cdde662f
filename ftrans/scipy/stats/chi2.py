"""``scipy.stats.chi2``: the chi-squared distribution with ``df`` degrees of freedom.

Differentiable in ``x``, ``loc``, ``scale`` and ``df`` (compositions of ftrans.numpy /
ftrans.scipy.special; formulas in :mod:`._shapes` and each method's docstring).

>>> import ftrans.scipy.stats as fst
>>> round(float(fst.chi2.pdf(2.0, 2.0)), 12)
0.183939720586
"""
from __future__ import annotations

from . import _shapes as S
from ._util import continuous, exp_of

__all__ = ["logpdf", "pdf"]

_SHAPES = ('df',)

logpdf = continuous("chi2", "logpdf", _SHAPES, S.chi2_logpdf, S.positive,
                    formula=S.chi2_logpdf.__doc__ or "See :mod:`ftrans.scipy.stats._shapes`.")
pdf = exp_of(logpdf, "pdf")
