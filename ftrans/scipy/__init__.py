"""``ftrans.scipy``: differentiable counterparts of SciPy functions.

``import ftrans.scipy.special as fss`` (or ``from ftrans.scipy import special``);
likewise ``ftrans.scipy.signal`` (convolve, correlate, fftconvolve, lfilter) and
``ftrans.scipy.linalg`` (expm, logm, sqrtm, Sylvester/Lyapunov, triangular, banded,
Cholesky and LU solves, block_diag, polar, and NumPy's linalg names).
"""
from . import special, signal, linalg  # noqa: F401

__all__ = ["special", "signal", "linalg"]
