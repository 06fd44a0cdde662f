"""``scipy.stats.beta``: the beta distribution on ``[loc, loc + scale]``.

Differentiable in ``x``, ``loc``, ``scale`` and ``a, b`` (compositions of ftrans.numpy /
ftrans.scipy.special; formulas in :mod:`._shapes` and each method's docstring).
``cdf``/``sf`` are not differentiable in ``a``, ``b`` (``betainc`` raises
``NotImplementedError`` there).
``ppf`` is not provided (it needs the inverse incomplete gamma/beta functions).

>>> import ftrans.scipy.stats as fst
>>> float(fst.beta.pdf(0.5, 1.0, 1.0))
1.0
"""
from __future__ import annotations

from . import _shapes as S
from ._util import continuous, exp_of, log_tail

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"]

_SHAPES = ('a', 'b')

logpdf = continuous("beta", "logpdf", _SHAPES, S.beta_logpdf, S.positive,
                    formula=S.beta_logpdf.__doc__ or "See :mod:`ftrans.scipy.stats._shapes`.")
pdf = exp_of(logpdf, "pdf")
cdf = continuous("beta", "cdf", _SHAPES, S.beta_cdf, S.positive, formula=S.beta_cdf.__doc__)
sf = continuous("beta", "sf", _SHAPES, S.beta_sf, S.positive, formula=S.beta_sf.__doc__)
logcdf = continuous("beta", "logcdf", _SHAPES, log_tail(S.beta_cdf, S.beta_sf), S.positive,
                    formula="``log(cdf)``, as ``log1p(-sf)`` where cdf >= 1/2.")
logsf = continuous("beta", "logsf", _SHAPES, log_tail(S.beta_sf, S.beta_cdf), S.positive,
                   formula="``log(sf)``, as ``log1p(-cdf)`` where sf >= 1/2.")
