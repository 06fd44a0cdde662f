"""``scipy.stats.poisson``: the Poisson distribution with mean ``mu``.

Differentiable in the continuous parameters; ``k`` (and integer parameters) held fixed.
Formulas in :mod:`._discrete` and each method's docstring.
``ppf`` (integer-valued) has no derivative.

>>> import ftrans.scipy.stats as fst
>>> round(float(fst.poisson.pmf(2, 1.0)), 12)
0.183939720586
"""
from __future__ import annotations

from . import _discrete as D
from ._util import discrete_method, exp_of, log_tail

__all__ = ["logpmf", "pmf", "cdf", "logcdf", "sf", "logsf", "ppf"]

_FIXED = ()
_SHAPES = ('mu',)


def _valid(mu):
    return (mu >= 0)


logpmf = discrete_method("poisson", "logpmf", _SHAPES, D.poisson_logpmf, _valid,
                         fixed=_FIXED,
                         formula=D.poisson_logpmf.__doc__)
pmf = exp_of(logpmf, "pmf")
cdf = discrete_method("poisson", "cdf", _SHAPES, D.poisson_cdf, _valid, fixed=_FIXED,
                      formula=D.poisson_cdf.__doc__)
sf = discrete_method("poisson", "sf", _SHAPES, D.poisson_sf, _valid, fixed=_FIXED,
                     formula=D.poisson_sf.__doc__)
logcdf = discrete_method("poisson", "logcdf", _SHAPES, log_tail(D.poisson_cdf, D.poisson_sf),
                         _valid, fixed=_FIXED,
                         formula="``log(cdf)``, as ``log1p(-sf)`` where cdf >= 1/2.")
logsf = discrete_method("poisson", "logsf", _SHAPES, log_tail(D.poisson_sf, D.poisson_cdf),
                        _valid, fixed=_FIXED,
                        formula="``log(sf)``, as ``log1p(-cdf)`` where sf >= 1/2.")
ppf = discrete_method("poisson", "ppf", _SHAPES, D.poisson_ppf, _valid, fixed=_FIXED,
                      formula=D.poisson_ppf.__doc__)
