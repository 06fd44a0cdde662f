"""``scipy.stats.t``: Student's t distribution with ``df`` degrees of freedom.

Differentiable in ``x``, ``loc``, ``scale`` and ``df`` (compositions of ftrans.numpy /
ftrans.scipy.special; formulas in :mod:`._shapes` and each method's docstring).

>>> import ftrans.scipy.stats as fst
>>> round(float(fst.t.pdf(0.0, 1.0)), 12)
0.318309886184
"""
from __future__ import annotations

from . import _shapes as S
from ._util import continuous, exp_of

__all__ = ["logpdf", "pdf"]

_SHAPES = ('df',)

logpdf = continuous("t", "logpdf", _SHAPES, S.t_logpdf, S.positive,
                    formula=S.t_logpdf.__doc__ or "See :mod:`ftrans.scipy.stats._shapes`.")
pdf = exp_of(logpdf, "pdf")
