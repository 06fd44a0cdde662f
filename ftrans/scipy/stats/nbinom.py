"""``scipy.stats.nbinom``: the negative binomial distribution (failures before the
``n``-th success; ``n > 0`` real).

Differentiable in the continuous parameters; ``k`` (and integer parameters) held fixed.
Formulas in :mod:`._discrete` and each method's docstring.  ``cdf``/``sf`` are not
differentiable in ``n`` (``betainc`` raises ``NotImplementedError`` there).
``ppf`` (integer-valued) has no derivative.

>>> import ftrans.scipy.stats as fst
>>> float(fst.nbinom.pmf(0, 2.0, 0.5))
0.25
"""
from __future__ import annotations

from . import _discrete as D
from ._util import discrete_method, exp_of, log_tail

__all__ = ["logpmf", "pmf", "cdf", "logcdf", "sf", "logsf", "ppf"]

_FIXED = ()
_SHAPES = ('n', 'p')


def _valid(n, p):
    return (n > 0) & (p > 0) & (p <= 1)


logpmf = discrete_method("nbinom", "logpmf", _SHAPES, D.nbinom_logpmf, _valid,
                         fixed=_FIXED,
                         formula=D.nbinom_logpmf.__doc__)
pmf = exp_of(logpmf, "pmf")
cdf = discrete_method("nbinom", "cdf", _SHAPES, D.nbinom_cdf, _valid, fixed=_FIXED,
                      formula=D.nbinom_cdf.__doc__)
sf = discrete_method("nbinom", "sf", _SHAPES, D.nbinom_sf, _valid, fixed=_FIXED,
                     formula=D.nbinom_sf.__doc__)
logcdf = discrete_method("nbinom", "logcdf", _SHAPES, log_tail(D.nbinom_cdf, D.nbinom_sf),
                         _valid, fixed=_FIXED,
                         formula="``log(cdf)``, as ``log1p(-sf)`` where cdf >= 1/2.")
logsf = discrete_method("nbinom", "logsf", _SHAPES, log_tail(D.nbinom_sf, D.nbinom_cdf),
                        _valid, fixed=_FIXED,
                        formula="``log(sf)``, as ``log1p(-cdf)`` where sf >= 1/2.")
ppf = discrete_method("nbinom", "ppf", _SHAPES, D.nbinom_ppf, _valid, fixed=_FIXED,
                      formula=D.nbinom_ppf.__doc__)
