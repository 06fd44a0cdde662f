"""``scipy.stats.binom``: the binomial distribution (``n`` trials, success probability ``p``).

Differentiable in the continuous parameters; ``k`` (and integer parameters) held fixed.
Formulas in :mod:`._discrete` and each method's docstring.

>>> import ftrans.scipy.stats as fst
>>> float(fst.binom.pmf(1, 2, 0.5))
0.5
"""
from __future__ import annotations

from . import _discrete as D
from ._util import discrete_method, exp_of, is_int

__all__ = ["logpmf", "pmf"]

_SHAPES = ('n', 'p')


def _valid(n, p):
    return (n >= 0) & is_int(n) & D.prob(p)


logpmf = discrete_method("binom", "logpmf", _SHAPES, D.binom_logpmf, _valid, fixed=("n",),
                         formula=D.binom_logpmf.__doc__ or "See :mod:`._discrete`.")
pmf = exp_of(logpmf, "pmf")
