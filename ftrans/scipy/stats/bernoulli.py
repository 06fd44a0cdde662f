"""``scipy.stats.bernoulli``: the Bernoulli distribution.

Differentiable in the continuous parameters; ``k`` (and integer parameters) held fixed.
Formulas in :mod:`._discrete` and each method's docstring.

>>> import ftrans.scipy.stats as fst
>>> float(fst.bernoulli.pmf(1, 0.25))
0.25
"""
from __future__ import annotations

from . import _discrete as D
from ...typing import Array
from ._util import discrete_method, exp_of, log_of

__all__ = ["logpmf", "pmf", "cdf", "logcdf", "sf", "logsf", "ppf"]

_SHAPES = ('p',)


def _valid(p: Array) -> Array:
    return D.prob(p)


logpmf = discrete_method("bernoulli", "logpmf", _SHAPES, D.bernoulli_logpmf, _valid, fixed=(),
                         formula=D.bernoulli_logpmf.__doc__)
pmf = exp_of(logpmf, "pmf")
cdf = discrete_method("bernoulli", "cdf", _SHAPES, D.bernoulli_cdf, _valid,
                      formula="0 below 0, ``1 - p`` on [0, 1), 1 from 1 on.")
sf = discrete_method("bernoulli", "sf", _SHAPES, D.bernoulli_sf, _valid,
                     formula="``1 - cdf``.")
logcdf = log_of(cdf, "logcdf")
logsf = log_of(sf, "logsf")
ppf = discrete_method("bernoulli", "ppf", _SHAPES, D.bernoulli_ppf, _valid,
                      formula=D.bernoulli_ppf.__doc__)
