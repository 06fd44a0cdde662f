"""``ftrans.scipy``: differentiable counterparts of SciPy functions.

``import ftrans.scipy.special as fss`` (or ``from ftrans.scipy import special``);
``import ftrans.scipy.stats as fst`` (distributions: ``fst.norm.logpdf(x, loc, scale)``);
likewise ``ftrans.scipy.signal`` (convolve, correlate, fftconvolve, lfilter),
``ftrans.scipy.linalg`` (expm, logm, sqrtm, Sylvester/Lyapunov, triangular, banded,
Cholesky and LU solves, block_diag, polar, and NumPy's linalg names),
``ftrans.scipy.integrate`` (quadrature; ``odeint``/``solve_ivp`` with adjoint gradients)
and ``ftrans.scipy.optimize`` (``minimize``/``root`` differentiable by the implicit
function theorem; imported on first use, as it loads ``scipy.optimize``); ``stats`` and
``integrate`` are loaded on first access (they load ``scipy.stats``/``scipy.integrate``).
"""
from __future__ import annotations

import importlib
import types

from . import special, signal, linalg  # noqa: F401

__all__ = ["special", "stats", "signal", "linalg", "integrate"]


def __getattr__(name: str) -> types.ModuleType:
    """``ftrans.scipy.stats`` and ``ftrans.scipy.integrate`` are imported on first use:
    they load ``scipy.stats`` (0.7 s) and ``scipy.integrate`` (0.35 s), which
    ``ftrans.compat`` and the other submodules do not need at import."""
    if name in ("stats", "integrate"):
        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
