"""``ftrans.scipy``: differentiable counterparts of SciPy functions.

``import ftrans.scipy.special as fss`` (or ``from ftrans.scipy import special``);
``import ftrans.scipy.stats as fst`` (distributions: ``fst.norm.logpdf(x, loc, scale)``).
"""
from . import special, stats  # noqa: F401
from . import integrate  # noqa: F401  (quadrature, odeint/solve_ivp)

__all__ = ["special", "stats", "integrate"]
