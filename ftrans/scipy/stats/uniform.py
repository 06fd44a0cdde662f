"""``scipy.stats.uniform``: the uniform distribution on ``[loc, loc + scale]``.

Differentiable in ``x``/``q``, ``loc``, ``scale`` (compositions of ftrans.numpy /
ftrans.scipy.special; formulas in each method's docstring, from SciPy's documentation).

>>> import ftrans.scipy.stats as fst
>>> float(fst.uniform.pdf(0.5, 0.0, 2.0))
0.5
"""
from __future__ import annotations

from . import _continuous as C
from ._util import continuous, exp_of, log_tail

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]

logpdf = continuous("uniform", "logpdf", (), C.uniform_logpdf,
                    formula="``-log(scale)`` on ``[loc, loc + scale]``, -inf outside.")
pdf = exp_of(logpdf, "pdf")
cdf = continuous("uniform", "cdf", (), C.uniform_cdf, formula="``clip(z, 0, 1)``.")
logcdf = continuous("uniform", "logcdf", (), log_tail(C.uniform_cdf, C.uniform_sf),
                    formula="``log(cdf)``, as ``log1p(-sf)`` where cdf >= 1/2.")
sf = continuous("uniform", "sf", (), C.uniform_sf,
                formula="``clip(1 - z, 0, 1)``.")
logsf = continuous("uniform", "logsf", (), log_tail(C.uniform_sf, C.uniform_cdf),
                   formula="``log(sf)``, as ``log1p(-cdf)`` where sf >= 1/2.")
ppf = continuous("uniform", "ppf", (), C.uniform_ppf, formula="``loc + scale q``.")
