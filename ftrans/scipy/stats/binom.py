"""``scipy.stats.binom``: the binomial distribution (``n`` trials, success probability ``p``).

Differentiable in the continuous parameters; ``k`` (and integer parameters) held fixed.
Formulas in :mod:`._discrete` and each method's docstring.
``ppf`` (integer-valued) has no derivative.

>>> import ftrans.scipy.stats as fst
>>> float(fst.binom.pmf(1, 2, 0.5))
0.5
"""
from __future__ import annotations

from . import _discrete as D
from ...typing import Array
from ._util import discrete_method, exp_of, tail_methods, is_int

__all__ = ["logpmf", "pmf", "cdf", "logcdf", "sf", "logsf", "ppf"]

_FIXED = ("n",)
_SHAPES = ('n', 'p')


def _valid(n: Array, p: Array) -> Array:
    return (n >= 0) & is_int(n) & D.prob(p)


logpmf = discrete_method("binom", "logpmf", _SHAPES, D.binom_logpmf, _valid,
                         fixed=_FIXED,
                         formula=D.binom_logpmf.__doc__)
pmf = exp_of(logpmf, "pmf")
cdf, sf, logcdf, logsf = tail_methods("binom", _SHAPES, D.binom_cdf, D.binom_sf, _valid,
                                      fixed=_FIXED)
ppf = discrete_method("binom", "ppf", _SHAPES, D.binom_ppf, _valid, fixed=_FIXED,
                      formula=D.binom_ppf.__doc__)
