"""``scipy.stats.t``: Student's t distribution with ``df`` degrees of freedom.

Differentiable in ``x``, ``loc``, ``scale`` and ``df`` (compositions of ftrans.numpy /
ftrans.scipy.special; formulas in :mod:`._shapes` and each method's docstring).
``cdf``/``sf`` are differentiable in ``df`` to order 3 (``betainc``'s
derivative in ``a``; the fourth raises ``NotImplementedError``).
``ppf`` is SciPy's value with derivatives by the implicit function theorem
(:mod:`._ppf`).

>>> import ftrans.scipy.stats as fst
>>> round(float(fst.t.pdf(0.0, 1.0)), 12)
0.318309886184
"""
from __future__ import annotations

from . import _shapes as S
from ._ppf import inverse_cdf
from ._util import continuous, exp_of, tail_methods

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]

_SHAPES = ('df',)

logpdf = continuous("t", "logpdf", _SHAPES, S.t_logpdf, S.positive,
                    formula=S.t_logpdf.__doc__)
pdf = exp_of(logpdf, "pdf")
cdf, sf, logcdf, logsf = tail_methods("t", _SHAPES, S.t_cdf, S.t_sf, S.positive)
ppf = continuous("t", "ppf", _SHAPES, inverse_cdf("t", S.t_cdf), S.positive,
                 formula="SciPy's ``ppf``; derivatives by the implicit function theorem.")
