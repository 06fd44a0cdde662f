"""``torch.signal.windows`` for ``ftrans.compat``: window functions (constant tensors).

Each function mirrors PyTorch's (the same keyword-only arguments ``sym``, ``dtype``,
``layout``, ``device``, ``requires_grad`` and the same ``ValueError``/``TypeError`` for a
negative length, a non-strided layout, a dtype other than float32/float64 and invalid
parameters).  The values are computed in float64 and rounded to ``dtype`` (PyTorch
computes in ``dtype``: float32 windows may differ in the last bit).  With
``requires_grad=True`` the result is a leaf that requires grad (PyTorch returns the
output of its computation, a non-leaf).
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .. import _dtype as D
from .._factories import _finish

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


# --------------------------------------------------------------------- float64 values
def cosine_sum(M, a, sym):
    """``sum_i (-1)^i a_i cos(2 pi i k / (M - 1 if sym else M))`` for ``k < M`` (float64)."""
    if M == 1:
        return np.ones(1)
    k = np.linspace(0.0, (M - 1) * 2 * np.pi / (M - 1 if sym else M), M)
    return sum((-1) ** i * w * np.cos(i * k) for i, w in enumerate(a))


def triangle(M, sym):
    """The Bartlett window of length ``M`` (float64)."""
    if M == 1:
        return np.ones(1)
    c = 2.0 / (M - 1 if sym else M)
    return 1.0 - np.abs(np.linspace(-1.0, -1.0 + (M - 1) * c, M))


def bessel_window(M, beta, sym):
    """The Kaiser window of length ``M`` and shape ``beta`` (float64)."""
    if M == 1:
        return np.ones(1)
    beta = float(beta)
    c = 2.0 * beta / (M - 1 if sym else M)
    k = np.linspace(-beta, min(beta, -beta + (M - 1) * c), M)
    return np.i0(np.sqrt(np.maximum(beta * beta - k * k, 0.0))) / np.i0(beta)


# --------------------------------------------------------------------- torch.signal.windows
def _check(name, M, dtype, layout):
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not None and str(layout) != "torch.strided":
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    dt = D.get_default_dtype() if dtype is None else dtype
    if str(dt) not in ("torch.float32", "torch.float64"):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dt}")
    return D.to_np(dt)


def _out(values, npdt, device, requires_grad):
    return _finish(np.asarray(values, np.float64).astype(npdt), requires_grad, device)


def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None,
                requires_grad=False):
    """Exponential (Poisson) window (``torch.signal.windows.exponential``):
    ``exp(-|k - center| / tau)``."""
    npdt = _check("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    k = np.linspace(-center / tau, (-center + (M - 1)) / tau, M)
    return _out(np.exp(-np.abs(k)), npdt, device, requires_grad)


def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Cosine (sine) window (``torch.signal.windows.cosine``)."""
    npdt = _check("cosine", M, dtype, layout)
    c = np.pi / (M + 1 if not sym and M > 1 else max(M, 1))
    k = np.linspace(0.5 * c, (0.5 + (M - 1)) * c, M)
    return _out(np.sin(k), npdt, device, requires_grad)


def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None,
             requires_grad=False):
    """Gaussian window (``torch.signal.windows.gaussian``):
    ``exp(-(k - center)^2 / (2 std^2))``."""
    npdt = _check("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    c = 1.0 / (std * np.sqrt(2.0))
    k = np.linspace(start * c, (start + (M - 1)) * c, M)
    return _out(np.exp(-k * k), npdt, device, requires_grad)


def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None,
           requires_grad=False):
    """Kaiser window of shape ``beta`` (``torch.signal.windows.kaiser``)."""
    npdt = _check("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    return _out(bessel_window(M, beta, sym) if M else (), npdt, device, requires_grad)


def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None,
                   requires_grad=False):
    """Sum of cosines with coefficients ``a`` (``torch.signal.windows.general_cosine``)."""
    npdt = _check("general_cosine", M, dtype, layout)
    if M > 1:
        if not isinstance(a, Iterable):
            raise TypeError("Coefficients must be a list/tuple")
        if not a:
            raise ValueError("Coefficients cannot be empty")
    return _out(cosine_sum(M, list(a), sym) if M else (), npdt, device, requires_grad)


def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """Generalized Hamming window (``torch.signal.windows.general_hamming``):
    ``alpha - (1 - alpha) cos(...)``."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Hamming window (``torch.signal.windows.hamming``)."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Hann window (``torch.signal.windows.hann``)."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Blackman window (``torch.signal.windows.blackman``)."""
    _check("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Nuttall's 4-term Blackman-Harris window (``torch.signal.windows.nuttall``)."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    """Bartlett (triangular) window (``torch.signal.windows.bartlett``)."""
    npdt = _check("bartlett", M, dtype, layout)
    return _out(triangle(M, sym) if M else (), npdt, device, requires_grad)
