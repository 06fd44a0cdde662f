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
from ...typing import Array
from ._util import discrete_method, exp_of, tail_methods

__all__ = ["logpmf", "pmf", "cdf", "logcdf", "sf", "logsf", "ppf"]

_FIXED = ()
_SHAPES = ('mu',)


def _valid(mu: Array) -> Array:
    return (mu >= 0)


logpmf = discrete_method("poisson", "logpmf", _SHAPES, D.poisson_logpmf, _valid,
                         fixed=_FIXED,
                         formula=D.poisson_logpmf.__doc__)
pmf = exp_of(logpmf, "pmf")
cdf, sf, logcdf, logsf = tail_methods("poisson", _SHAPES, D.poisson_cdf, D.poisson_sf, _valid,
                                      fixed=_FIXED)
ppf = discrete_method("poisson", "ppf", _SHAPES, D.poisson_ppf, _valid, fixed=_FIXED,
                      formula=D.poisson_ppf.__doc__)
