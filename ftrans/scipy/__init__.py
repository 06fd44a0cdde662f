"""``ftrans.scipy``: differentiable counterparts of SciPy functions.

``import ftrans.scipy.special as fss`` (or ``from ftrans.scipy import special``);
``import ftrans.scipy.stats as fst`` (distributions: ``fst.norm.logpdf(x, loc, scale)``);
likewise ``ftrans.scipy.signal`` (convolve, correlate, fftconvolve, lfilter),
``ftrans.scipy.linalg`` (expm, logm, sqrtm, Sylvester/Lyapunov, triangular, banded,
Cholesky and LU solves, block_diag, polar, and NumPy's linalg names),
``ftrans.scipy.integrate`` (quadrature; ``odeint``/``solve_ivp`` with adjoint gradients)
and ``ftrans.scipy.optimize`` (``minimize``/``root`` differentiable by the implicit
function theorem; imported on first use, as it loads ``scipy.optimize``).
"""
from . import special, stats, signal, linalg  # noqa: F401
from . import integrate  # noqa: F401  (quadrature, odeint/solve_ivp)

__all__ = ["special", "stats", "signal", "linalg", "integrate"]
