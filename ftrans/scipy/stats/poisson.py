"""``scipy.stats.poisson``: the Poisson distribution with mean ``mu``.

Differentiable in the continuous parameters; ``k`` (and integer parameters) held fixed.
Formulas in :mod:`._discrete` and each method's docstring.

>>> import ftrans.scipy.stats as fst
>>> round(float(fst.poisson.pmf(2, 1.0)), 12)
0.183939720586
"""
from __future__ import annotations

from . import _discrete as D
from ._util import discrete_method, exp_of

__all__ = ["logpmf", "pmf"]

_SHAPES = ('mu',)


def _valid(mu):
    return (mu >= 0)


logpmf = discrete_method("poisson", "logpmf", _SHAPES, D.poisson_logpmf, _valid, fixed=(),
                         formula=D.poisson_logpmf.__doc__ or "See :mod:`._discrete`.")
pmf = exp_of(logpmf, "pmf")
