"""``ftrans.scipy``: differentiable counterparts of SciPy functions.

``import ftrans.scipy.special as fss`` (or ``from ftrans.scipy import special``).
"""
from . import special  # noqa: F401
from . import integrate  # noqa: F401  (issue 20: quadrature, odeint/solve_ivp)

__all__ = ["special", "integrate"]
