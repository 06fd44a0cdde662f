"""``scipy.stats.nbinom``: the negative binomial distribution (failures before the
``n``-th success; ``n > 0`` real).

Differentiable in the continuous parameters; ``k`` (and integer parameters) held fixed.
Formulas in :mod:`._discrete` and each method's docstring.  ``cdf``/``sf`` are
differentiable in ``n`` to order 3 (``betainc``'s derivative in ``a``).
``ppf`` (integer-valued) has no derivative.

>>> import ftrans.scipy.stats as fst
>>> float(fst.nbinom.pmf(0, 2.0, 0.5))
0.25
"""
from __future__ import annotations

from . import _discrete as D
from ...typing import Array
from ._util import discrete_method, exp_of, tail_methods

__all__ = ["logpmf", "pmf", "cdf", "logcdf", "sf", "logsf", "ppf"]

_FIXED = ()
_SHAPES = ('n', 'p')


def _valid(n: Array, p: Array) -> Array:
    return (n > 0) & (p > 0) & (p <= 1)


logpmf = discrete_method("nbinom", "logpmf", _SHAPES, D.nbinom_logpmf, _valid,
                         fixed=_FIXED,
                         formula=D.nbinom_logpmf.__doc__)
pmf = exp_of(logpmf, "pmf")
cdf, sf, logcdf, logsf = tail_methods("nbinom", _SHAPES, D.nbinom_cdf, D.nbinom_sf, _valid,
                                      fixed=_FIXED)
ppf = discrete_method("nbinom", "ppf", _SHAPES, D.nbinom_ppf, _valid, fixed=_FIXED,
                      formula=D.nbinom_ppf.__doc__)
