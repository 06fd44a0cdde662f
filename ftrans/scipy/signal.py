"""``ftrans.scipy.signal``: differentiable ``scipy.signal`` filtering and convolution.

Names, signatures, modes and results follow ``scipy.signal`` (SciPy's reference,
"Signal processing").  Every function is differentiable in every array operand (complex
included: DESIGN.md's convention), works under ``vmap`` and ``jit``.

* :func:`convolve` / :func:`correlate`: n-d, ``mode`` ``"full"``/``"valid"``/``"same"``,
  ``method="direct"`` through the convolution primitive (the machinery of
  :func:`ftrans.numpy.convolve`), ``method="fft"`` through :func:`fftconvolve`,
  ``"auto"`` is ``"direct"`` (same values; SciPy chooses by a speed estimate).
* :func:`fftconvolve`: zero-padded products of :mod:`ftrans.numpy.fft` transforms
  (``rfftn``/``irfftn`` for real operands), all modes, ``axes``.
* :func:`lfilter`: ``a * y = b * x`` (causal), with ``zi``/``zf`` (SciPy's transposed
  direct form II state).  ``b * x`` is a convolution; the recursion is the primitive
  ``ftrans.primitives.iir`` whose reverse mode is the adjoint filter (the same
  filter run backwards in time), differentiable in ``b``, ``a``, ``x`` and ``zi``.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from ..core import Tracer, result_type
from ..core.dtypes import kind_of as _kind_of, as_numpy_dtype as _np_dtype
from .. import primitives as P
from ..primitives.iir import iir_filter, causal_conv
from ..numpy import fft as _fft
from ..numpy._args import _ndarray, _axis
from ..numpy._signal import _xcorr_full
from ..numpy._shape import flip
from .. import numpy as fnp
from ..numpy import _funcs as F
from ..typing import Array, ArrayLike, Shape

__all__ = ["convolve", "correlate", "fftconvolve", "lfilter"]

_MODES = ("full", "valid", "same")


def _check_mode(mode: str) -> None:
    if mode not in _MODES:
        raise ValueError(f"acceptable mode flags are 'valid', 'same', or 'full' (got {mode!r})")


def _pair(in1: ArrayLike, in2: ArrayLike, name: str) -> tuple[Array, Array]:
    a1, a2 = _ndarray(in1), _ndarray(in2)
    if a1.ndim != a2.ndim:
        raise ValueError(f"{name}: in1 and in2 should have the same dimensionality (got "
                         f"shapes {tuple(a1.shape)} and {tuple(a2.shape)})")
    return a1, a2


def _check_valid(s1: Shape, s2: Shape) -> None:
    if not (all(a >= b for a, b in zip(s1, s2)) or all(b >= a for a, b in zip(s1, s2))):
        raise ValueError(f"For 'valid' mode, one must be at least as large as the other in "
                         f"every dimension (got shapes {s1} and {s2})")


def _crop(full: Array, s1: Shape, s2: Shape, mode: str, axes: Iterable[int]) -> Array:
    """SciPy's ``same`` (centred, ``in1``'s size) / ``valid`` part of a full result along
    ``axes`` (``s1``, ``s2``: the operands' sizes on those axes)."""
    if mode == "full":
        return full
    idx = [slice(None)] * full.ndim
    for ax, n, m in zip(axes, s1, s2):
        if mode == "same":
            start, length = (full.shape[ax] - n) // 2, n
        else:
            start, length = min(n, m) - 1, abs(n - m) + 1
        idx[ax] = slice(start, start + length)
    return full[tuple(idx)]


def _empty(in1: Array, in2: Array) -> Array:
    return np.zeros((0,) * in1.ndim, _np_dtype(result_type(in1, in2)))


def convolve(in1: ArrayLike, in2: ArrayLike, mode: str = "full", method: str = "auto"
             ) -> Array:
    """N-d convolution ``out[k] = sum_j in1[j] in2[k - j]`` (``scipy.signal.convolve``).

    Parameters
    ----------
    in1, in2 : array_like
        Operands of the same rank (any dtype; real or complex).
    mode : {"full", "valid", "same"}, optional
        Sizes ``n + m - 1``; ``|n - m| + 1`` (one operand must be at least as large as
        the other in every dimension); ``n`` (centred on ``in1``, SciPy's rule).
    method : {"auto", "direct", "fft"}, optional
        ``"fft"`` computes through :func:`fftconvolve`; the others through the
        convolution primitive.

    Returns
    -------
    Array
        The promoted dtype, differentiable in both operands.

    Raises
    ------
    ValueError
        If the ranks differ, for an unknown ``mode``/``method``, or ``valid`` with
        operands that are not ordered by size in every dimension.

    Examples
    --------
    >>> convolve([1.0, 2.0, 3.0], [0.0, 1.0, 0.5])
    array([0. , 1. , 2.5, 4. , 1.5])
    """
    in1, in2 = _pair(in1, in2, "convolve")
    _check_mode(mode)
    if method not in ("auto", "direct", "fft"):
        raise ValueError(f"acceptable method flags are 'auto', 'direct', or 'fft' (got "
                         f"{method!r})")
    s1, s2 = tuple(in1.shape), tuple(in2.shape)
    if mode == "valid":
        _check_valid(s1, s2)
    if in1.size == 0 or in2.size == 0:
        return _empty(in1, in2)
    if in1.ndim == 0:
        return fnp.multiply(in1, in2)
    if method == "fft":
        out = fftconvolve(in1, in2, mode)
        rt = _np_dtype(result_type(in1, in2))
        if rt.kind in "uib":  # (SciPy: integer operands give the rounded integer result)
            out = P.convert_element_type(fnp.around(out), rt)
        return out
    full = _xcorr_full(in1, flip(in2))
    return _crop(full, s1, s2, mode, range(in1.ndim))


def correlate(in1: ArrayLike, in2: ArrayLike, mode: str = "full", method: str = "auto"
              ) -> Array:
    """N-d cross-correlation (``scipy.signal.correlate``).

    ``out[k] = sum_l in1[l] conj(in2[l - k + (m - 1)])``, i.e.
    ``convolve(in1, conj(flip(in2)))``.

    Parameters
    ----------
    in1, in2 : array_like
        Operands of the same rank (any dtype; real or complex).
    mode : {"full", "valid", "same"}, optional
        As :func:`convolve` (for ``valid`` with ``in2`` larger the result is SciPy's:
        the overlap values, reversed and conjugated).
    method : {"auto", "direct", "fft"}, optional
        As :func:`convolve`.

    Returns
    -------
    Array
        The promoted dtype, differentiable in both operands.

    Raises
    ------
    ValueError
        As :func:`convolve`.

    Examples
    --------
    >>> correlate([1.0, 2.0, 3.0], [0.0, 1.0, 0.5])
    array([0.5, 2. , 3.5, 3. , 0. ])
    """
    in1, in2 = _pair(in1, in2, "correlate")
    if _kind_of(in2) == "c":
        in2 = P.conj(in2)
    if in1.ndim == 0:
        _check_mode(mode)
        return fnp.multiply(in1, in2)
    return convolve(in1, flip(in2), mode, method)


def fftconvolve(in1: ArrayLike, in2: ArrayLike, mode: str = "full",
                axes: int | Sequence[int] | None = None) -> Array:
    """:func:`convolve` by zero-padded FFTs over ``axes`` (``scipy.signal.fftconvolve``).

    Parameters
    ----------
    in1, in2 : array_like
        Operands of the same rank; along axes not in ``axes`` the sizes must be equal
        or 1 (broadcast, as SciPy).
    mode : {"full", "valid", "same"}, optional
        As :func:`convolve`, along ``axes``.
    axes : int or sequence of int, optional
        The convolved axes; all by default.

    Returns
    -------
    Array
        Real for real operands (``rfftn``/``irfftn``), complex otherwise.

    Raises
    ------
    ValueError
        If the ranks differ, for an unknown ``mode``, incompatible sizes along the
        other axes, or ``valid`` with operands not ordered by size.

    Examples
    --------
    >>> fftconvolve([1.0, 2.0, 3.0], [1.0, 1.0]).round(12)
    array([1., 3., 5., 3.])
    """
    in1, in2 = _pair(in1, in2, "fftconvolve")
    _check_mode(mode)
    nd = in1.ndim
    if nd == 0:
        return fnp.multiply(in1, in2)
    if axes is None:
        ax_t: tuple[int, ...] = tuple(range(nd))
    else:
        given = (axes,) if isinstance(axes, int) or np.ndim(axes) == 0 else tuple(axes)
        ax_t = tuple(sorted({_axis(a, nd) for a in given}))
    for ax in range(nd):
        if ax not in ax_t and in1.shape[ax] != in2.shape[ax] and 1 not in (
                in1.shape[ax], in2.shape[ax]):
            raise ValueError(f"fftconvolve: incompatible shapes for in1 and in2 along axis "
                             f"{ax} (not in axes): {tuple(in1.shape)} and {tuple(in2.shape)}")
    s1 = tuple(in1.shape[a] for a in ax_t)
    s2 = tuple(in2.shape[a] for a in ax_t)
    if mode == "valid":
        _check_valid(s1, s2)
    if in1.size == 0 or in2.size == 0:
        return _empty(in1, in2)
    shape = [n + m - 1 for n, m in zip(s1, s2)]
    if _kind_of(in1) != "c" and _kind_of(in2) != "c":
        dt = _np_dtype(result_type(in1, in2, 1.0))
        sp = fnp.multiply(_fft.rfftn(in1, shape, ax_t), _fft.rfftn(in2, shape, ax_t))
        full = _fft.irfftn(sp, shape, ax_t)
        full = full if _np_dtype(full.dtype) == dt else P.convert_element_type(full, dt)
    else:
        full = _fft.ifftn(fnp.multiply(_fft.fftn(in1, shape, ax_t), _fft.fftn(in2, shape, ax_t)),
                          shape, ax_t)
    return _crop(full, s1, s2, mode, ax_t)


def _vec(c: ArrayLike, name: str) -> Array:
    arr = _ndarray(c)
    if arr.ndim != 1 or arr.shape[0] == 0:
        raise ValueError(f"lfilter: {name} must be a non-empty 1-d array of filter "
                         f"coefficients, got shape {tuple(arr.shape)}")
    return arr


def _pad_to(c: Array, k: int) -> Array:
    n = c.shape[0]
    return c if n == k else F.concatenate([c, F.zeros((k - n,), _np_dtype(c.dtype))])


_SHORT = 16   # filters up to this many taps: shifted sums (measured faster than the
#               convolution primitive on long signals: 5 taps, 1e5 samples, ~1 ms vs ~15 ms)


def _full_conv_last(c: Array, s: Array) -> Array:
    """The full convolution (length ``N + K - 1``) of the 1-d ``c`` with ``s`` along its
    last axis: shifted sums for short ``c``, the convolution primitive for long ones."""
    k, nd = c.shape[0], s.ndim
    if k <= _SHORT:
        tail = F.zeros(tuple(s.shape[:-1]) + (k - 1,), _np_dtype(s.dtype))
        return causal_conv(c, F.concatenate([s, tail], axis=-1))
    return _xcorr_full(s, P.reshape(flip(c), (1,) * (nd - 1) + (k,)))


def lfilter(b: ArrayLike, a: ArrayLike, x: ArrayLike, axis: int = -1,
            zi: ArrayLike | None = None) -> Array | tuple[Array, Array]:
    """Filter ``sum_k a[k] y[n-k] = sum_k b[k] x[n-k]`` along ``axis`` (``scipy.signal.lfilter``).

    Parameters
    ----------
    b, a : array_like
        1-d numerator and denominator coefficients (``a[0] != 0``; both are normalized
        by it, as SciPy).
    x : array_like
        The signal, any rank.
    axis : int, optional
        The time axis of ``x``.
    zi : array_like, optional
        Initial state of shape ``x.shape`` with ``axis`` of size
        ``max(len(a), len(b)) - 1`` (SciPy's transposed direct form II state).

    Returns
    -------
    y : Array
        ``x``'s shape (promoted inexact dtype; integers give float64).
    zf : Array
        The final state, ``zi``'s shape (returned only when ``zi`` is given).

    Raises
    ------
    ValueError
        For empty or non-1-d ``b``/``a``, ``a[0] == 0`` (when concrete), a 0-d ``x`` or
        a ``zi`` of the wrong shape.

    Notes
    -----
    Derivatives in ``b``, ``a``, ``x`` and ``zi`` (any order).  Reverse mode runs the
    adjoint filter: the transpose of the recursion is the same recursion backwards in
    time (``ftrans.primitives.iir``).

    Examples
    --------
    >>> lfilter([1.0], [1.0, -0.5], [1.0, 0.0, 0.0])
    array([1.  , 0.5 , 0.25])
    """
    ba, aa, xa = _vec(b, "b"), _vec(a, "a"), _ndarray(x)
    if not isinstance(aa, Tracer) and np.asarray(aa)[0] == 0:
        raise ValueError("lfilter: a[0] must be nonzero (the filter is normalized by it)")
    ops = (ba, aa, xa) + (() if zi is None else (_ndarray(zi),))
    dt = _np_dtype(result_type(*ops, 1.0))
    ba, aa, xa = (t if _np_dtype(t.dtype) == dt else P.convert_element_type(t, dt)
                  for t in (ba, aa, xa))
    if xa.ndim == 0:
        raise ValueError("lfilter: x must have at least one dimension")
    ax = _axis(axis, xa.ndim)
    k = max(aa.shape[0], ba.shape[0])
    ba, aa = _pad_to(ba, k), _pad_to(aa, k)
    xm = F.moveaxis(xa, ax, -1)
    n = xm.shape[-1]
    bx = _full_conv_last(ba, xm)                           # (b * x), length n + k - 1
    v = bx[..., :n]
    if zi is not None:
        zia = _ndarray(zi)
        want = tuple(xa.shape[:ax]) + (k - 1,) + tuple(xa.shape[ax + 1:])
        if tuple(zia.shape) != want:
            raise ValueError(f"lfilter: zi must have shape {want} (x's shape with axis "
                             f"{ax} of size max(len(a), len(b)) - 1), got {tuple(zia.shape)}")
        zia = zia if _np_dtype(zia.dtype) == dt else P.convert_element_type(zia, dt)
        zim = F.moveaxis(zia, ax, -1)
        zpad = F.concatenate([zim, F.zeros(tuple(zim.shape[:-1]) + (n,), dt)], axis=-1)
        v = fnp.add(v, fnp.multiply(aa[0], zpad[..., :n]))
    y = iir_filter(aa, v)
    ym = F.moveaxis(y, -1, ax)
    if zi is None:
        return ym
    ay = _full_conv_last(aa, y)
    zf = fnp.add(fnp.divide(fnp.subtract(bx[..., n:], ay[..., n:]), aa[0]), zpad[..., n:])
    return ym, F.moveaxis(zf, -1, ax)
