"""``ftrans.scipy``: differentiable counterparts of SciPy functions.

``import ftrans.scipy.special as fss`` (or ``from ftrans.scipy import special``).
"""
from . import special, signal, linalg  # noqa: F401

__all__ = ["special", "signal", "linalg"]
