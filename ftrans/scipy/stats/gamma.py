"""``scipy.stats.gamma``: the gamma distribution with shape ``a``.

Differentiable in ``x``, ``loc``, ``scale`` and ``a`` (compositions of ftrans.numpy /
ftrans.scipy.special; formulas in :mod:`._shapes` and each method's docstring).

>>> import ftrans.scipy.stats as fst
>>> round(float(fst.gamma.pdf(1.0, 1.0)), 12)
0.367879441171
"""
from __future__ import annotations

from . import _shapes as S
from ._util import continuous, exp_of

__all__ = ["logpdf", "pdf"]

_SHAPES = ('a',)

logpdf = continuous("gamma", "logpdf", _SHAPES, S.gamma_logpdf, S.positive,
                    formula=S.gamma_logpdf.__doc__ or "See :mod:`ftrans.scipy.stats._shapes`.")
pdf = exp_of(logpdf, "pdf")
