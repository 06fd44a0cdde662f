"""``ftrans.numpy.fft``: differentiable ``numpy.fft``.

Transforms (``fft``, ``ifft``, ``rfft``, ``irfft``, ``hfft``, ``ihfft`` and their
``2``/``n`` variants) take NumPy's arguments: ``n``/``s`` (zero-pad or truncate the
input, or for the ``irfft`` family the output length), ``axis``/``axes`` and ``norm``
(``None``/``"backward"``, ``"ortho"``, ``"forward"``).  Precision follows NumPy 2:
float32/complex64 in, complex64/float32 out.  All go through the ``fft`` primitive
(:mod:`ftrans.primitives.fft`, which documents the VJP rules -- the adjoint for
``Re<a, b>``, equal to ``torch.fft``'s gradients -- including the Hermitian weights of
``irfft``), so they can be differentiated to any order and batched.

Helpers: ``fftfreq``/``rfftfreq`` are constants (NumPy's, no derivative);
``fftshift``/``ifftshift`` are rolls written with slicing and concatenation
(differentiable).

Real transforms of complex input (``rfft``, ``ihfft``) raise ``TypeError`` as NumPy 2
does.  A name of ``numpy.fft`` that is not provided raises ``AttributeError``.
"""
from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, NoReturn, cast

import numpy as _np

from ..core import Tracer
from ..kernels import foreign_array as _foreign_array
from ..core.dtypes import kind_of as _kind_of
from .. import primitives as _P
from ..primitives.fft import fft as _fft_p
from ..typing import Array, ArrayLike
from ._refused import refusal as _refusal

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
           "irfft2", "fftn", "ifftn", "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift",
           "ifftshift"]

_NORMS = (None, "backward", "ortho", "forward")


def _norm(norm: str | None) -> str:
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm!r}; should be "backward", "ortho" or '
                         '"forward".')
    return norm or "backward"


def _swap(norm: str) -> str:
    return {"backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]


def _as_array(a: Any) -> Array:
    if isinstance(a, Tracer) or hasattr(a, "__cuda_array_interface__") or _foreign_array(a):
        return a
    return _np.asarray(a)


def _complex_dtype(dt: Any) -> Any:
    return _np.dtype(_np.complex64) if dt in (_np.float32, _np.complex64) \
        else _np.dtype(_np.complex128)


def _real_dtype(dt: Any) -> Any:
    return _np.dtype(_np.float32) if dt in (_np.float32, _np.complex64) \
        else _np.dtype(_np.float64)


def _to_complex(a: Any) -> Array:
    a = _as_array(a)
    return _P.convert_element_type(a, _complex_dtype(a.dtype))


def _to_real(a: Any, name: str) -> Array:
    a = _as_array(a)
    if _kind_of(a) == "c":
        raise TypeError(f"{name} expects real input; got dtype {a.dtype} (take the real "
                        "part explicitly, or use fft)")
    return _P.convert_element_type(a, _real_dtype(a.dtype))


def _fit(a: Any, axis: int, n: int) -> Array:
    """Zero-pad or truncate ``a`` along ``axis`` to length ``n`` (NumPy's ``n``/``s``)."""
    m = a.shape[axis]
    if n == m:
        return a
    if n < m:
        return _P.gather(a, (slice(None),) * axis + (slice(0, n),))
    shape = list(a.shape)
    shape[axis] = n - m
    return _P.concatenate([a, _P.zeros_of(tuple(shape), a.dtype, a)], axis)


def _axis(axis: int, ndim: int) -> int:
    a = operator.index(axis)
    if not -ndim <= a < ndim:
        raise _np.exceptions.AxisError(a, ndim)
    return a % ndim


def _check_n(n: Any, name: str = "n") -> int:
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    return n


def _axes_and_s(a: Any, s: Sequence[int] | None, axes: Sequence[int] | None,
                default_all: bool = True) -> tuple[tuple[int, ...], list[int]]:
    """NumPy's ``s``/``axes`` normalization for the ``n``-dimensional transforms."""
    nd = a.ndim
    if axes is None:
        if s is None:
            axes = list(range(nd)) if default_all else list(range(-2, 0))
        else:
            axes = list(range(nd - len(s), nd))
    axes = [_axis(ax, nd) for ax in axes]
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axes are not supported: {axes}")
    if s is None:
        s = [a.shape[ax] for ax in axes]
    else:
        s = list(s)
        if len(s) != len(axes):
            raise ValueError("Shape and axes have different lengths.")
    return tuple(axes), s


# ---------------------------------------------------------------------------------
# one-dimensional transforms
# ---------------------------------------------------------------------------------
def _c2c(kind: str, a: ArrayLike, n: int | None, axis: int, norm: str | None) -> Array:
    a = _to_complex(a)
    ax = _axis(axis, a.ndim)
    if n is not None:
        a = _fit(a, ax, _check_n(n))
    return _fft_p(a, kind, (ax,), _norm(norm))


def fft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """One-dimensional discrete Fourier transform.

    Parameters
    ----------
    a : array_like
        Input array.
    n : int, optional
        Length of the transformed axis: the input is zero-padded or truncated
        to ``n``; its length by default.
    axis : int, optional
        Axis to transform; the last by default.
    norm : {None, 'backward', 'ortho', 'forward'}, optional
        ``1/n`` on the inverse (None), ``1/sqrt(n)`` both ways, or ``1/n`` on the forward.

    Returns
    -------
    Array
        Complex, ``a``'s shape with ``n`` along ``axis`` (complex64 for 32-bit input).

    Raises
    ------
    ValueError
        For a non-positive length or an invalid ``norm``.

    Notes
    -----
    Differentiable (linear; the VJP is the adjoint, :mod:`ftrans.primitives.fft`).
    """
    return _c2c("fft", a, n, axis, norm)


def ifft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """One-dimensional inverse discrete Fourier transform.

    Parameters
    ----------
    a : array_like
        Input array.
    n : int, optional
        Length of the transformed axis: the input is zero-padded or truncated
        to ``n``; its length by default.
    axis : int, optional
        Axis to transform; the last by default.
    norm : {None, 'backward', 'ortho', 'forward'}, optional
        ``1/n`` on the inverse (None), ``1/sqrt(n)`` both ways, or ``1/n`` on the forward.

    Returns
    -------
    Array
        Complex, ``a``'s shape with ``n`` along ``axis``.

    Raises
    ------
    ValueError
        For a non-positive length or an invalid ``norm``.

    Notes
    -----
    Differentiable (linear; the VJP is the adjoint, :mod:`ftrans.primitives.fft`).
    """
    return _c2c("ifft", a, n, axis, norm)


def rfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """Discrete Fourier transform of real input (the non-negative frequencies).

    Parameters
    ----------
    a : array_like
        Real input array.
    n : int, optional
        Length of the transformed axis: the input is zero-padded or truncated
        to ``n``; its length by default.
    axis : int, optional
        Axis to transform; the last by default.
    norm : {None, 'backward', 'ortho', 'forward'}, optional
        ``1/n`` on the inverse (None), ``1/sqrt(n)`` both ways, or ``1/n`` on the forward.

    Returns
    -------
    Array
        Complex, with ``n // 2 + 1`` terms along ``axis``.

    Raises
    ------
    ValueError
        For a non-positive length or an invalid ``norm``.
    TypeError
        For complex input (NumPy 2).

    Notes
    -----
    Differentiable (linear; the VJP is the adjoint, :mod:`ftrans.primitives.fft`).
    """
    a = _to_real(a, "rfft")
    ax = _axis(axis, a.ndim)
    if n is not None:
        a = _fit(a, ax, _check_n(n))
    return _fft_p(a, "rfft", (ax,), _norm(norm))


def irfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """Inverse of :func:`rfft`: real output of length ``n``.

    Parameters
    ----------
    a : array_like
        Input array.
    n : int, optional
        Length of the output along ``axis``; ``2 (m - 1)`` by default
        for ``m`` input terms.
    axis : int, optional
        Axis to transform; the last by default.
    norm : {None, 'backward', 'ortho', 'forward'}, optional
        ``1/n`` on the inverse (None), ``1/sqrt(n)`` both ways, or ``1/n`` on the forward.

    Returns
    -------
    Array
        Real, with ``n`` points along ``axis``.

    Raises
    ------
    ValueError
        For a non-positive length or an invalid ``norm``.

    Notes
    -----
    Differentiable (linear), with the Hermitian weights of the half spectrum in the VJP
    (:mod:`ftrans.primitives.fft`).
    """
    a = _to_complex(a)
    ax = _axis(axis, a.ndim)
    n = 2 * (a.shape[ax] - 1) if n is None else _check_n(n)
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
    a = _fit(a, ax, n // 2 + 1)
    return _fft_p(a, "irfft", (ax,), _norm(norm), n)


def hfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """FFT of a Hermitian-symmetric signal given by its first half.

    Computed as ``irfft(conj(a), n, norm=swapped norm)``, as NumPy does.

    Parameters
    ----------
    a : array_like
        Input array.
    n : int, optional
        Length of the real output; ``2 (m - 1)`` by default.
    axis : int, optional
        Axis to transform; the last by default.
    norm : {None, 'backward', 'ortho', 'forward'}, optional
        ``1/n`` on the inverse (None), ``1/sqrt(n)`` both ways, or ``1/n`` on the forward.

    Returns
    -------
    Array
        Real, with ``n`` points along ``axis``.

    Raises
    ------
    ValueError
        For a non-positive length or an invalid ``norm``.

    Notes
    -----
    Differentiable (linear; the VJP is the adjoint, :mod:`ftrans.primitives.fft`).
    """
    return irfft(_P.conj(_to_complex(a)), n, axis, _swap(_norm(norm)))


def ihfft(a: ArrayLike, n: int | None = None, axis: int = -1, norm: str | None = None) -> Array:
    """Inverse of :func:`hfft`: ``conj(rfft(a, n))`` with the swapped norm.

    Parameters
    ----------
    a : array_like
        Real input array.
    n : int, optional
        Length of the transformed axis: the input is zero-padded or truncated
        to ``n``; its length by default.
    axis : int, optional
        Axis to transform; the last by default.
    norm : {None, 'backward', 'ortho', 'forward'}, optional
        ``1/n`` on the inverse (None), ``1/sqrt(n)`` both ways, or ``1/n`` on the forward.

    Returns
    -------
    Array
        Complex, with ``n // 2 + 1`` terms along ``axis``.

    Raises
    ------
    ValueError
        For a non-positive length or an invalid ``norm``.
    TypeError
        For complex input (NumPy 2).

    Notes
    -----
    Differentiable (linear; the VJP is the adjoint, :mod:`ftrans.primitives.fft`).
    """
    return _P.conj(rfft(_to_real(a, "ihfft"), n, axis, _swap(_norm(norm))))


# ---------------------------------------------------------------------------------
# n-dimensional transforms
# ---------------------------------------------------------------------------------
def _c2c_n(kind: str, a: ArrayLike, s: Sequence[int] | None, axes: Sequence[int] | None,
           norm: str | None, default_all: bool = True) -> Array:
    a = _to_complex(a)
    axes, s = _axes_and_s(a, s, axes, default_all)
    if not axes:
        return a
    for ax, n in zip(axes, s):
        a = _fit(a, ax, _check_n(n))
    return _fft_p(a, kind, axes, _norm(norm))


def fftn(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str | None = None) -> Array:
    """N-dimensional discrete Fourier transform.

    Parameters
    ----------
    a : array_like
        Input array.
    s : sequence of int, optional
        Lengths of the transformed axes (zero-padding or
        truncation); the input's by default.
    axes : sequence of int, optional
        Axes to transform; all by default (or the last
        ``len(s)``).
    norm : {None, 'backward', 'ortho', 'forward'}, optional
        ``1/n`` on the inverse (None), ``1/sqrt(n)`` both ways, or ``1/n`` on the forward.

    Returns
    -------
    Array
        Complex, ``a``'s shape with ``s`` along ``axes``.

    Raises
    ------
    ValueError
        For a non-positive length or an invalid ``norm``.

    Notes
    -----
    Differentiable (linear; the VJP is the adjoint, :mod:`ftrans.primitives.fft`).
    """
    return _c2c_n("fft", a, s, axes, norm)


def ifftn(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: str | None = None) -> Array:
    """N-dimensional inverse discrete Fourier transform.

    Parameters
    ----------
    a : array_like
        Input array.
    s : sequence of int, optional
        Lengths of the transformed axes (zero-padding or
        truncation); the input's by default.
    axes : sequence of int, optional
        Axes to transform; all by default (or the last
        ``len(s)``).
    norm : {None, 'backward', 'ortho', 'forward'}, optional
        ``1/n`` on the inverse (None), ``1/sqrt(n)`` both ways, or ``1/n`` on the forward.

    Returns
    -------
    Array
        Complex, ``a``'s shape with ``s`` along ``axes``.

    Raises
    ------
    ValueError
        For a non-positive length or an invalid ``norm``.

    Notes
    -----
    Differentiable (linear; the VJP is the adjoint, :mod:`ftrans.primitives.fft`).
    """
    return _c2c_n("ifft", a, s, axes, norm)


def fft2(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] | None = (-2, -1),
         norm: str | None = None) -> Array:
    """Two-dimensional discrete Fourier transform.

    Parameters
    ----------
    a : array_like
        Input array.
    s : sequence of int, optional
        Lengths of the transformed axes (zero-padding or
        truncation); the input's by default.
    axes : sequence of int, optional
        Axes to transform; the last two by default.
    norm : {None, 'backward', 'ortho', 'forward'}, optional
        ``1/n`` on the inverse (None), ``1/sqrt(n)`` both ways, or ``1/n`` on the forward.

    Returns
    -------
    Array
        Complex, ``a``'s shape with ``s`` along ``axes``.

    Raises
    ------
    ValueError
        For a non-positive length or an invalid ``norm``.

    Notes
    -----
    Differentiable (linear; the VJP is the adjoint, :mod:`ftrans.primitives.fft`).
    """
    return _c2c_n("fft", a, s, axes, norm, default_all=False)


def ifft2(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] | None = (-2, -1),
         norm: str | None = None) -> Array:
    """Two-dimensional inverse discrete Fourier transform.

    Parameters
    ----------
    a : array_like
        Input array.
    s : sequence of int, optional
        Lengths of the transformed axes (zero-padding or
        truncation); the input's by default.
    axes : sequence of int, optional
        Axes to transform; the last two by default.
    norm : {None, 'backward', 'ortho', 'forward'}, optional
        ``1/n`` on the inverse (None), ``1/sqrt(n)`` both ways, or ``1/n`` on the forward.

    Returns
    -------
    Array
        Complex, ``a``'s shape with ``s`` along ``axes``.

    Raises
    ------
    ValueError
        For a non-positive length or an invalid ``norm``.

    Notes
    -----
    Differentiable (linear; the VJP is the adjoint, :mod:`ftrans.primitives.fft`).
    """
    return _c2c_n("ifft", a, s, axes, norm, default_all=False)


def rfftn(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: str | None = None) -> Array:
    """N-dimensional DFT of real input (half spectrum along the last axis transformed).

    Parameters
    ----------
    a : array_like
        Real input array.
    s : sequence of int, optional
        Lengths of the transformed axes (zero-padding or
        truncation); the input's by default.
    axes : sequence of int, optional
        Axes to transform; all by default (or the last
        ``len(s)``).
    norm : {None, 'backward', 'ortho', 'forward'}, optional
        ``1/n`` on the inverse (None), ``1/sqrt(n)`` both ways, or ``1/n`` on the forward.

    Returns
    -------
    Array
        Complex; ``s[-1] // 2 + 1`` terms along the last of ``axes``.

    Raises
    ------
    ValueError
        For a non-positive length or an invalid ``norm``.
        Also for no axes.
    TypeError
        For complex input (NumPy 2).

    Notes
    -----
    Differentiable (linear; the VJP is the adjoint, :mod:`ftrans.primitives.fft`).
    """
    a = _to_real(a, "rfftn")
    axes, s = _axes_and_s(a, s, axes)
    if not axes:
        raise ValueError("rfftn needs at least one axis")
    for ax, n in zip(axes, s):
        a = _fit(a, ax, _check_n(n))
    return _fft_p(a, "rfft", axes, _norm(norm))


def irfftn(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: str | None = None) -> Array:
    """Inverse of :func:`rfftn`: real output.

    Parameters
    ----------
    a : array_like
        Input array.
    s : sequence of int, optional
        Output lengths along ``axes``; ``s[-1]`` defaults to
        ``2 (m - 1)`` for ``m`` terms along the last axis.
    axes : sequence of int, optional
        Axes to transform; all by default (or the last
        ``len(s)``).
    norm : {None, 'backward', 'ortho', 'forward'}, optional
        ``1/n`` on the inverse (None), ``1/sqrt(n)`` both ways, or ``1/n`` on the forward.

    Returns
    -------
    Array
        Real, with ``s`` along ``axes``.

    Raises
    ------
    ValueError
        For a non-positive length or an invalid ``norm``.
        Also for no axes.

    Notes
    -----
    Differentiable (linear; the VJP is the adjoint, :mod:`ftrans.primitives.fft`).
    """
    a = _to_complex(a)
    if s is None:
        axes, _ = _axes_and_s(a, None, axes)
        if not axes:
            raise ValueError("irfftn needs at least one axis")
        s = [a.shape[ax] for ax in axes[:-1]] + [2 * (a.shape[axes[-1]] - 1)]
    else:
        axes, s = _axes_and_s(a, s, axes)
        if not axes:
            raise ValueError("irfftn needs at least one axis")
    n_last = _check_n(s[-1])
    for ax, n in zip(axes[:-1], s[:-1]):
        a = _fit(a, ax, _check_n(n))
    a = _fit(a, axes[-1], n_last // 2 + 1)
    return _fft_p(a, "irfft", axes, _norm(norm), n_last)


def rfft2(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] | None = (-2, -1),
          norm: str | None = None) -> Array:
    """Two-dimensional DFT of real input.

    Parameters
    ----------
    a : array_like
        Real input array.
    s : sequence of int, optional
        Lengths of the transformed axes (zero-padding or
        truncation); the input's by default.
    axes : sequence of int, optional
        Axes to transform; the last two by default.
    norm : {None, 'backward', 'ortho', 'forward'}, optional
        ``1/n`` on the inverse (None), ``1/sqrt(n)`` both ways, or ``1/n`` on the forward.

    Returns
    -------
    Array
        Complex; half spectrum along the last of ``axes``.

    Raises
    ------
    ValueError
        For a non-positive length or an invalid ``norm``.
    TypeError
        For complex input (NumPy 2).

    Notes
    -----
    Differentiable (linear; the VJP is the adjoint, :mod:`ftrans.primitives.fft`).
    """
    return rfftn(a, s, axes, norm)


def irfft2(a: ArrayLike, s: Sequence[int] | None = None, axes: Sequence[int] | None = (-2, -1),
           norm: str | None = None) -> Array:
    """Inverse of :func:`rfft2`: real output.

    Parameters
    ----------
    a : array_like
        Input array.
    s : sequence of int, optional
        Output lengths along ``axes``.
    axes : sequence of int, optional
        Axes to transform; the last two by default.
    norm : {None, 'backward', 'ortho', 'forward'}, optional
        ``1/n`` on the inverse (None), ``1/sqrt(n)`` both ways, or ``1/n`` on the forward.

    Returns
    -------
    Array
        Real, with ``s`` along ``axes``.

    Raises
    ------
    ValueError
        For a non-positive length or an invalid ``norm``.

    Notes
    -----
    Differentiable (linear; the VJP is the adjoint, :mod:`ftrans.primitives.fft`).
    """
    return irfftn(a, s, axes, norm)


# ---------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------
def fftfreq(n: int, d: float = 1.0, device: Any = None) -> Array:
    """Sample frequencies of :func:`fft` (cycles per unit of the sample spacing).

    Parameters
    ----------
    n : int
        Window length.
    d : float, optional
        Sample spacing.
    device : None, optional
        Accepted for NumPy 2 compatibility (the result is a NumPy array).

    Returns
    -------
    Array
        ``[0, 1, ..., n//2 - 1, -(n//2), ..., -1] / (d n)`` (float64); a constant.
    """
    return _np.fft.fftfreq(n, d)


def rfftfreq(n: int, d: float = 1.0, device: Any = None) -> Array:
    """Sample frequencies of :func:`rfft` (the non-negative ones).

    Parameters
    ----------
    n : int
        Window length.
    d : float, optional
        Sample spacing.
    device : None, optional
        Accepted for NumPy 2 compatibility (the result is a NumPy array).

    Returns
    -------
    Array
        ``[0, 1, ..., n//2] / (d n)`` (float64); a constant.
    """
    return _np.fft.rfftfreq(n, d)


def _roll(x: Any, shift: int, axis: int) -> Array:
    n = x.shape[axis]
    if n == 0:
        return x
    k = shift % n
    if k == 0:
        return x
    pre = (slice(None),) * axis
    return _P.concatenate([_P.gather(x, pre + (slice(n - k, n),)),
                           _P.gather(x, pre + (slice(0, n - k),))], axis)


def _shift(x: ArrayLike, axes: int | Sequence[int] | None, sign: int) -> Array:
    x = _as_array(x)
    if axes is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axes, (int, _np.integer)):
        axes = (axes,)
    for ax in axes:
        ax = _axis(ax, x.ndim)
        n = x.shape[ax]
        x = _roll(x, n // 2 if sign > 0 else -(n // 2), ax)
    return x


def fftshift(x: ArrayLike, axes: int | Sequence[int] | None = None) -> Array:
    """Move the zero-frequency term to the center of the spectrum.

    Parameters
    ----------
    x : array_like
        Input array.
    axes : int or sequence of int, optional
        Axes to shift; all by default.

    Returns
    -------
    Array
        Same shape: a roll by ``n // 2`` along each axis.

    Notes
    -----
    Differentiable (linear).
    """
    return _shift(x, axes, +1)


def ifftshift(x: ArrayLike, axes: int | Sequence[int] | None = None) -> Array:
    """Inverse of :func:`fftshift`.

    Parameters
    ----------
    x : array_like
        Input array.
    axes : int or sequence of int, optional
        Axes to shift; all by default.

    Returns
    -------
    Array
        Same shape: a roll by ``-(n // 2)`` along each axis.

    Notes
    -----
    Differentiable (linear).
    """
    return _shift(x, axes, -1)


def __getattr__(name: str) -> NoReturn:
    if name == "test":   # NumPy's test runner (ftrans.numpy._refused)
        raise cast(AttributeError, _refusal("ftrans.numpy.fft", name))  # "test" is refused
    if hasattr(_np.fft, name):
        raise AttributeError(
            f"ftrans.numpy.fft has no attribute {name!r}: numpy.fft.{name} is not "
            "implemented in ftrans.numpy.fft yet.")
    raise AttributeError(f"module 'ftrans.numpy.fft' has no attribute {name!r}")
