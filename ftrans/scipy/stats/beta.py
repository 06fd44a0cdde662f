"""``scipy.stats.beta``: the beta distribution on ``[loc, loc + scale]``.

Differentiable in ``x``, ``loc``, ``scale`` and ``a, b`` (compositions of ftrans.numpy /
ftrans.scipy.special; formulas in :mod:`._shapes` and each method's docstring).
``cdf``/``sf`` are differentiable in ``a``, ``b`` to order 3 (``betainc``'s
derivatives in ``a``, ``b``; the fourth raises ``NotImplementedError``).
``ppf`` is SciPy's value with derivatives by the implicit function theorem
(:mod:`._ppf`).

>>> import ftrans.scipy.stats as fst
>>> float(fst.beta.pdf(0.5, 1.0, 1.0))
1.0
"""
from __future__ import annotations

from . import _shapes as S
from ._ppf import inverse_cdf
from ._util import continuous, exp_of, tail_methods

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]

_SHAPES = ('a', 'b')

logpdf = continuous("beta", "logpdf", _SHAPES, S.beta_logpdf, S.positive,
                    formula=S.beta_logpdf.__doc__)
pdf = exp_of(logpdf, "pdf")
cdf, sf, logcdf, logsf = tail_methods("beta", _SHAPES, S.beta_cdf, S.beta_sf, S.positive)
ppf = continuous("beta", "ppf", _SHAPES, inverse_cdf("beta", S.beta_cdf), S.positive,
                 formula="SciPy's ``ppf``; derivatives by the implicit function theorem.")
