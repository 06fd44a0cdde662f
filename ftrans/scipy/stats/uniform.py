"""``scipy.stats.uniform``: the uniform distribution on ``[loc, loc + scale]``.

Differentiable in ``x``/``q``, ``loc``, ``scale`` (compositions of ftrans.numpy /
ftrans.scipy.special; formulas in each method's docstring, from SciPy's documentation).

>>> import ftrans.scipy.stats as fst
>>> float(fst.uniform.pdf(0.5, 0.0, 2.0))
0.5
"""
from __future__ import annotations

from . import _continuous as C
from ._util import continuous, exp_of, tail_methods

__all__ = ["logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf"]

logpdf = continuous("uniform", "logpdf", (), C.uniform_logpdf,
                    formula="``-log(scale)`` on ``[loc, loc + scale]``, -inf outside.")
pdf = exp_of(logpdf, "pdf")
ppf = continuous("uniform", "ppf", (), C.uniform_ppf, formula="``loc + scale q``.")
cdf, sf, logcdf, logsf = tail_methods("uniform", (), C.uniform_cdf, C.uniform_sf)
