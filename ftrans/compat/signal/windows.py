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

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .. import _dtype as D
from .._factories import _finish
from ..types import DeviceLike, DTypeArg, Tensor

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


# --------------------------------------------------------------------- float64 values
def cosine_sum(M: int, a: Sequence[float], sym: bool) -> Any:
    """``sum_i (-1)^i a_i cos(2 pi i k / (M - 1 if sym else M))`` for ``k < M`` (float64)."""
    if M == 1:
        return np.ones(1)
    k = np.linspace(0.0, (M - 1) * 2 * np.pi / (M - 1 if sym else M), M)
    return sum((-1) ** i * w * np.cos(i * k) for i, w in enumerate(a))


def triangle(M: int, sym: bool) -> Any:
    """The Bartlett window of length ``M`` (float64)."""
    if M == 1:
        return np.ones(1)
    c = 2.0 / (M - 1 if sym else M)
    return 1.0 - np.abs(np.linspace(-1.0, -1.0 + (M - 1) * c, M))


def bessel_window(M: int, beta: float, sym: bool) -> Any:
    """The Kaiser window of length ``M`` and shape ``beta`` (float64)."""
    if M == 1:
        return np.ones(1)
    beta = float(beta)
    c = 2.0 * beta / (M - 1 if sym else M)
    k = np.linspace(-beta, min(beta, -beta + (M - 1) * c), M)
    return np.i0(np.sqrt(np.maximum(beta * beta - k * k, 0.0))) / np.i0(beta)


# --------------------------------------------------------------------- torch.signal.windows
def _doc(summary: str, params: str = "", raises: str = "") -> str:
    """A window's numpydoc docstring: ``summary``, then ``params`` (the entries of the
    window's own parameters) among the shared ones."""
    return f"""{summary}

    Parameters
    ----------
    M : int
        The number of samples (0 gives an empty tensor).
    {params}sym : bool, optional
        True (default): the symmetric window, for filter design; False: one period of a
        periodic window, for spectral analysis.
    dtype : dtype, optional
        float32 or float64 (the default float dtype by default).
    layout : Any, optional
        Accepted for torch's signature (strided only).
    device : device, optional
        The device of the result.
    requires_grad : bool, optional
        Whether the result (a leaf) requires grad.

    Returns
    -------
    Tensor
        The window, shape ``(M,)``.

    Raises
    ------
    ValueError
        If ``M`` is negative, ``dtype`` is not float32/float64, ``layout`` is not strided{raises}.
    """


def _check(name: str, M: int, dtype: DTypeArg, layout: Any) -> np.dtype[Any]:
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not None and str(layout) != "torch.strided":
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    dt = D.get_default_dtype() if dtype is None else dtype
    if str(dt) not in ("torch.float32", "torch.float64"):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dt}")
    return D.to_np(dt)


def _out(values: Any, npdt: np.dtype[Any], device: DeviceLike, requires_grad: bool) -> Tensor:
    return _finish(np.asarray(values, np.float64).astype(npdt), requires_grad, device)


def exponential(M: int, *, center: float | None = None, tau: float = 1.0, sym: bool = True,
                dtype: DTypeArg = None, layout: Any = None, device: DeviceLike = None,
                requires_grad: bool = False) -> Tensor:
    npdt = _check("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    k = np.linspace(-center / tau, (-center + (M - 1)) / tau, M)
    return _out(np.exp(-np.abs(k)), npdt, device, requires_grad)


exponential.__doc__ = _doc(
    "Exponential (Poisson) window ``exp(-|k - center| / tau)`` "
    "(``torch.signal.windows.exponential``).",
    """center : float, optional
        The window's center (the middle by default; only for ``sym=False``).
    tau : float, optional
        The decay (positive).
    """, ", ``tau`` is not positive, or ``center`` is given with ``sym``")


def cosine(M: int, *, sym: bool = True, dtype: DTypeArg = None, layout: Any = None,
           device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    npdt = _check("cosine", M, dtype, layout)
    c = np.pi / (M + 1 if not sym and M > 1 else max(M, 1))
    k = np.linspace(0.5 * c, (0.5 + (M - 1)) * c, M)
    return _out(np.sin(k), npdt, device, requires_grad)


cosine.__doc__ = _doc("Cosine (sine) window (``torch.signal.windows.cosine``).")


def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype: DTypeArg = None,
             layout: Any = None, device: DeviceLike = None,
             requires_grad: bool = False) -> Tensor:
    npdt = _check("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    c = 1.0 / (std * np.sqrt(2.0))
    k = np.linspace(start * c, (start + (M - 1)) * c, M)
    return _out(np.exp(-k * k), npdt, device, requires_grad)


gaussian.__doc__ = _doc(
    "Gaussian window ``exp(-(k - center)^2 / (2 std^2))`` (``torch.signal.windows.gaussian``).",
    """std : float, optional
        The standard deviation in samples (positive).
    """, ", or ``std`` is not positive")


def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype: DTypeArg = None,
           layout: Any = None, device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    npdt = _check("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    return _out(bessel_window(M, beta, sym) if M else (), npdt, device, requires_grad)


kaiser.__doc__ = _doc("Kaiser window of shape ``beta`` (``torch.signal.windows.kaiser``).",
                      """beta : float, optional
        The shape parameter (non-negative).
    """, ", or ``beta`` is negative")


def general_cosine(M: int, *, a: Sequence[float], sym: bool = True, dtype: DTypeArg = None,
                   layout: Any = None, device: DeviceLike = None,
                   requires_grad: bool = False) -> Tensor:
    npdt = _check("general_cosine", M, dtype, layout)
    if M > 1:
        if not isinstance(a, Iterable):
            raise TypeError("Coefficients must be a list/tuple")
        if not a:
            raise ValueError("Coefficients cannot be empty")
    return _out(cosine_sum(M, list(a), sym) if M else (), npdt, device, requires_grad)


general_cosine.__doc__ = _doc(
    "Sum of cosines with coefficients ``a`` (``torch.signal.windows.general_cosine``).",
    """a : sequence of float
        The coefficients: ``sum_i (-1)^i a_i cos(2 pi i k / (M - 1))``.
    """, ", or ``a`` is empty (``TypeError`` if it is not a list/tuple)")


def general_hamming(M: int, *, alpha: float = 0.54, sym: bool = True, dtype: DTypeArg = None,
                    layout: Any = None, device: DeviceLike = None,
                    requires_grad: bool = False) -> Tensor:
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


general_hamming.__doc__ = _doc(
    "Generalized Hamming window ``alpha - (1 - alpha) cos(2 pi k / (M - 1))`` "
    "(``torch.signal.windows.general_hamming``).",
    """alpha : float, optional
        The constant term.
    """)


def hamming(M: int, *, sym: bool = True, dtype: DTypeArg = None, layout: Any = None,
            device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


hamming.__doc__ = _doc("Hamming window (``torch.signal.windows.hamming``).")


def hann(M: int, *, sym: bool = True, dtype: DTypeArg = None, layout: Any = None,
         device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


hann.__doc__ = _doc("Hann window (``torch.signal.windows.hann``).")


def blackman(M: int, *, sym: bool = True, dtype: DTypeArg = None, layout: Any = None,
             device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    _check("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


blackman.__doc__ = _doc("Blackman window (``torch.signal.windows.blackman``).")


def nuttall(M: int, *, sym: bool = True, dtype: DTypeArg = None, layout: Any = None,
            device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


nuttall.__doc__ = _doc("Nuttall's 4-term Blackman-Harris window "
                       "(``torch.signal.windows.nuttall``).")


def bartlett(M: int, *, sym: bool = True, dtype: DTypeArg = None, layout: Any = None,
             device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    npdt = _check("bartlett", M, dtype, layout)
    return _out(triangle(M, sym) if M else (), npdt, device, requires_grad)


bartlett.__doc__ = _doc("Bartlett (triangular) window (``torch.signal.windows.bartlett``).")
