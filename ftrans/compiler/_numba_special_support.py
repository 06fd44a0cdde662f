"""Special functions that generated numba programs call (imported by the generated modules):
``_erf``, ``_erfc`` and ``_lgamma`` are the C library's ``erf``, ``erfc`` and ``lgamma``
(numba's ``math`` functions; ``lgamma`` is ``log|Gamma(x)|``, SciPy's ``gammaln``, +inf at
the poles ``0, -1, -2, ...``, -inf at -inf as SciPy), real arguments only.  They agree
with SciPy's Cephes to a few hundred ulps in the tails (measured: ``erfc`` 6e-14 relative
near x = 24, ``gammaln`` 1e-11 relative next to its zeros x = 1, 2, -2.46..., absolute
error under 1e-15 there).  At subnormal x SciPy's ``gammaln`` overflows to inf, libm gives the
finite ``-log(x)`` (e.g. 744.44 at 5e-324).
"""
from __future__ import annotations

import math

from numba import njit

__all__ = ["_erf", "_erfc", "_lgamma"]


@njit(cache=True, nogil=True)
def _erf(x: float) -> float:
    return math.erf(x)


@njit(cache=True, nogil=True)
def _erfc(x: float) -> float:
    return math.erfc(x)


@njit(cache=True, nogil=True)
def _lgamma(x: float) -> float:
    if x == -math.inf:
        return x  # SciPy's gammaln(-inf) (libm: +inf)
    return math.lgamma(x)
