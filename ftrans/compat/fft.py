"""``torch.fft`` for ``ftrans.compat``: adapters onto ftrans's functions (no derivative is
written here; each node's backward is ``ftrans.vjp`` of the adapted function).

Every transform is one graph node over :mod:`ftrans.numpy.fft` (the ``fft`` primitive,
whose rules give PyTorch's gradients, the Hermitian weights of ``irfft``/``hfft``
included), named as PyTorch's top node (``FftC2CBackward0``, ``FftR2CBackward0``,
``FftC2RBackward0`` or ``ConjBackward0``).  Arguments follow PyTorch: ``n``/``s`` (an
``s`` entry of -1 keeps the input's length), ``dim`` and ``norm``; integer and bool
input is transformed in the default float dtype; float32 gives complex64 and float64
complex128.  Errors are PyTorch's: ``IndexError`` for a dimension out of range,
``RuntimeError`` for an invalid length, normalization, repeated dimensions or complex
input of a real transform.  ``torch.stft``/``torch.istft`` and the window factories
(``torch.hann_window`` ...) are in :mod:`ftrans.compat._spectral`.
"""
from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import _dtype as D
from ._tensor import Tensor, _make_plain
from ._opbase import _compose, _default_float
from ._out import with_out
from ._outsig import set_out_signature
from .types import DeviceLike, DTypeArg
from .autograd._composite import composite_class
from ..numpy import fft as _nfft
from ..numpy import conj as _conj
from . import _spectral

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2",
           "irfft2", "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn",
           "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]
TOPLEVEL: dict[str, Callable[..., Any]] = {n: getattr(_spectral, n) for n in _spectral.__all__}
METHODS: dict[str, Callable[..., Any]] = {"stft": _spectral.stft, "istft": _spectral.istft}

_C2C = composite_class("FftC2CBackward0", ("self",))
_R2C = composite_class("FftR2CBackward0", ("self",))
_C2R = composite_class("FftC2RBackward0", ("self",))
_CONJ = composite_class("ConjBackward0", ("self",))
_ROLL = composite_class("RollBackward0", ("self",))
_NORMS = (None, "backward", "ortho", "forward")


# ------------------------------------------------------------------------- arguments
def _data(input: Tensor, name: str, real: bool = False) -> Any:  # noqa: A002
    """The array a transform reads: integers and bools in the default float dtype;
    ``RuntimeError`` for half precision and, when ``real``, for complex input."""
    if not isinstance(input, Tensor):
        raise TypeError(f"fft_{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    d = input._data
    if d.dtype.kind in "biu":
        d = d.astype(_default_float())
    elif d.dtype == np.float16:
        raise RuntimeError("Unsupported dtype Half")
    if real and d.dtype.kind == "c":
        raise RuntimeError(f"{name} expects a real input tensor, but got "
                           f"{D.from_np(d.dtype)._tname[:-6]}")
    return d


def _norm(norm: str | None) -> str:
    if norm not in _NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return norm or "backward"


def _int(v: Any, what: str, fname: str) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        if isinstance(v, Tensor) and v.ndim == 0 and v._data.dtype.kind in "iu":
            return int(v.item())  # type: ignore[arg-type]  # (an integer tensor: an int)
        raise TypeError(f"fft_{fname}(): argument '{what}' must be int, not "
                        f"{type(v).__name__}")
    return operator.index(v)


def _dim(d: Any, ndim: int, fname: str) -> int:
    d = _int(d, "dim", fname)
    if ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if not -ndim <= d < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                         f"{ndim - 1}], but got {d})")
    return d % ndim


def _points(n: int) -> int:
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return n


def _dims_and_s(d: Any, s: Sequence[int] | None, dim: int | Sequence[int] | None, fname: str,
                default_last2: bool = False) -> tuple[list[int], list[int | None]]:
    """PyTorch's ``s``/``dim`` of the n-dimensional transforms: non-negative unique dims
    and the lengths (``None`` entries where ``s`` is not given or is -1)."""
    nd = d.ndim
    if isinstance(dim, (int, np.integer)) and not isinstance(dim, bool):
        dim = (int(dim),)
    si = None if s is None else [_int(v, "s", fname) for v in s]
    if dim is None:
        if si is None:
            dims = list(range(nd - 2, nd)) if default_last2 else list(range(nd))
        else:
            if len(si) > nd:
                raise RuntimeError(f"Got shape with {len(si)} values but input tensor only has "
                                   f"{nd} dimensions.")
            dims = list(range(nd - len(si), nd))
    else:
        dims = [_dim(a, nd, fname) for a in dim]  # type: ignore[union-attr]  # (bool: TypeError)
    if si is not None and len(si) != len(dims):
        raise RuntimeError("When given, dim and shape arguments must have the same length")
    if len(set(dims)) != len(dims):
        raise RuntimeError("FFT dims must be unique")
    sn: list[int | None] = [None] * len(dims) if si is None else \
        [None if v == -1 else v for v in si]
    return dims, sn


def _fill(d: Any, dims: Sequence[int], s: Sequence[int | None]) -> tuple[int, ...]:
    return tuple(_points(d.shape[a] if n is None else n) for a, n in zip(dims, s))


# ------------------------------------------------------------------------- compositions
def _f_1d(x: Any, kind: str, n: int, axis: int, norm: str) -> Any:
    return getattr(_nfft, kind)(x, n, axis, norm)


def _f_nd(x: Any, kind: str, s: tuple[int, ...], axes: tuple[int, ...], norm: str) -> Any:
    return getattr(_nfft, kind)(x, s, axes, norm)


def _f_hfftn(x: Any, s: tuple[int, ...], axes: tuple[int, ...], norm: str) -> Any:
    """``hfftn``: ``irfftn`` of the conjugate with the swapped normalization."""
    return _nfft.irfftn(_conj(x), s, axes, _SWAP[norm])


def _f_ihfftn(x: Any, s: tuple[int, ...], axes: tuple[int, ...], norm: str) -> Any:
    """``ihfftn``: the conjugate of ``rfftn`` with the swapped normalization."""
    return _conj(_nfft.rfftn(x, s, axes, _SWAP[norm]))


_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


# ------------------------------------------------------------------------- docstrings
_NORM_DOC = """norm : {"backward", "forward", "ortho"}, optional
        The normalization: ``"backward"`` (default) scales the inverse by ``1/n``,
        ``"forward"`` the forward transform, ``"ortho"`` both by ``1/sqrt(n)``.
    out : Tensor, optional
        Tensor the result is written into (no gradient is recorded)."""
_TRANSFORM_DOC = """{summary}

    Parameters
    ----------
    input : Tensor
        The signal{input}.
    {lengths}
    {norm}

    Returns
    -------
    Tensor
        {result}

    Raises
    ------
    IndexError
        If a dimension is out of range.
    RuntimeError
        If a length is below 1, ``norm`` is invalid or a dimension repeats{real}.
    """
_RESULT = {
    "c2c": "Complex (complex64 for float32 input, complex128 for float64).",
    "r2c": "Complex: the ``n // 2 + 1`` non-negative frequencies along the last transformed "
           "dimension.",
    "c2r": "Real: the full signal of the given length (default ``2 (m - 1)`` along the last "
           "transformed dimension, ``m`` its input length).",
}


def _transform_doc(summary: str, kind: str, nd: str) -> str:
    real_in = kind in ("rfft", "ihfft")
    c2r = kind in ("irfft", "hfft")
    if nd == "1":
        lengths = """n : int, optional
        The signal length (the input is cut or zero-padded along ``dim``); default: its
        length{c2r}.
    dim : int, optional
        The transformed dimension (the last by default).""".format(
            c2r=", ``2 (m - 1)`` for this half-spectrum input" if c2r else "")
    else:
        lengths = """s : sequence of int, optional
        The signal lengths along ``dim`` (-1 keeps the input's length){c2r}.
    dim : sequence of int, optional
        The transformed dimensions ({default}).""".format(
            c2r="; the last one defaults to ``2 (m - 1)``" if c2r else "",
            default="the last two" if nd == "2" else "all, or the last ``len(s)``")
    return _TRANSFORM_DOC.format(
        summary=summary, lengths=lengths, norm=_NORM_DOC,
        input=" (real; integer and bool in the default float dtype)" if real_in else
        " (integer and bool in the default float dtype)",
        result=_RESULT["r2c" if real_in else "c2r" if c2r else "c2c"],
        real=", or ``input`` is complex" if real_in else "")


# ------------------------------------------------------------------------- 1-d transforms
def _one_d(kind: str, summary: str, real_in: bool = False,
           c2r: bool = False) -> Callable[..., Tensor]:
    def op(input: Tensor, n: int | None = None, dim: int = -1,  # noqa: A002
           norm: str | None = None) -> Tensor:
        d = _data(input, kind, real_in)
        ax = _dim(dim, d.ndim, kind)
        m = d.shape[ax]
        if n is None:
            n = 2 * (m - 1) if c2r else m
        n = _points(_int(n, "n", kind))
        if c2r:
            cls = _C2R
        elif kind == "ihfft" or (kind == "ifft" and d.dtype.kind != "c"):
            cls = _CONJ
        elif kind == "fft" and d.dtype.kind != "c" or kind == "rfft":
            cls = _R2C
        else:
            cls = _C2C
        return _compose(cls, _f_1d, [input], [d],
                        {"kind": kind, "n": n, "axis": ax, "norm": _norm(norm)})
    op.__name__ = kind
    op.__doc__ = _transform_doc(summary, kind, "1")
    return op


fft = _one_d("fft", "One-dimensional discrete Fourier transform (``torch.fft.fft``).")
ifft = _one_d("ifft", "One-dimensional inverse discrete Fourier transform "
                      "(``torch.fft.ifft``).")
rfft = _one_d("rfft", "DFT of real input: the non-negative frequencies (``torch.fft.rfft``).",
              real_in=True)
irfft = _one_d("irfft", "Inverse of ``rfft``: a real signal (``torch.fft.irfft``).", c2r=True)
hfft = _one_d("hfft", "DFT of a Hermitian signal given by its half (``torch.fft.hfft``).",
              c2r=True)
ihfft = _one_d("ihfft", "Inverse of ``hfft`` for real input (``torch.fft.ihfft``).",
               real_in=True)


# ------------------------------------------------------------------------- n-d transforms
def _n_d(kind: str, two: bool = False) -> Callable[..., Tensor]:
    """``kind`` + ``2``/``n``: ``fft``/``ifft`` (complex to complex), ``rfft``/``ihfft``
    (real in, half spectrum out), ``irfft``/``hfft`` (half spectrum in, real out)."""
    real_in = kind in ("rfft", "ihfft")
    c2r = kind in ("irfft", "hfft")
    name = kind + ("2" if two else "n")
    fn = {"hfft": _f_hfftn, "ihfft": _f_ihfftn}.get(kind, _f_nd)

    def op(input: Tensor, s: Sequence[int] | None = None,  # noqa: A002
           dim: Sequence[int] | None = (-2, -1) if two else None,
           norm: str | None = None) -> Tensor:
        d = _data(input, kind + "n" if real_in else name, real_in)
        dims, sn = _dims_and_s(d, s, dim, name)
        if (real_in or c2r) and not dims:
            raise RuntimeError(f"{kind}n must transform at least one axis")
        if c2r:
            last = sn[-1]
            sizes = list(_fill(d, dims[:-1], sn[:-1])) + [
                _points(2 * (d.shape[dims[-1]] - 1) if last is None else last)]
        else:
            sizes = list(_fill(d, dims, sn))
        params: dict[str, Any] = {"s": tuple(sizes), "axes": tuple(dims), "norm": _norm(norm)}
        if fn is _f_nd:
            params["kind"] = kind + "n"
        if c2r:
            cls = _C2R
        elif kind == "rfft":
            cls = _R2C
        elif kind == "ihfft" and len(dims) == 1:
            cls = _CONJ
        else:
            cls = _C2C
        return _compose(cls, fn, [input], [d], params)
    op.__name__ = name
    op.__doc__ = _transform_doc(f"{'Two' if two else 'N'}-dimensional ``{kind}`` over ``dim`` "
                                f"(``torch.fft.{name}``).", kind, "2" if two else "n")
    return op


fft2, ifft2, rfft2, irfft2, hfft2, ihfft2 = (
    _n_d(k, True) for k in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"))
fftn, ifftn, rfftn, irfftn, hfftn, ihfftn = (
    _n_d(k) for k in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"))


# ------------------------------------------------------------------------- helpers
def _f_shift(x: Any, axes: tuple[int, ...], inverse: bool) -> Any:
    return (_nfft.ifftshift if inverse else _nfft.fftshift)(x, axes)


def _shift(inverse: bool, summary: str) -> Callable[..., Tensor]:
    def op(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:  # noqa: A002
        d = input._data
        if dim is None:
            if d.ndim == 0:
                raise RuntimeError("`shifts` required")
            dims = tuple(range(d.ndim))
        else:
            if isinstance(dim, (int, np.integer)):
                dim = (dim,)
            dims = tuple(_dim_or_scalar(a, d.ndim) for a in dim)
        if d.dtype.kind not in "fc":
            return _make_plain(_nfft.ifftshift(d, dims) if inverse else _nfft.fftshift(d, dims))
        return _compose(_ROLL, _f_shift, [input], [d], {"axes": dims, "inverse": inverse})
    op.__doc__ = f"""{summary}

    Parameters
    ----------
    input : Tensor
        The spectrum (or signal).
    dim : int or sequence of int, optional
        The dimensions rolled (all by default).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.

    Raises
    ------
    IndexError
        If a dimension is out of range.
    RuntimeError
        If ``input`` is 0-d and ``dim`` is not given.
    """
    return op


def _dim_or_scalar(a: Any, ndim: int) -> int:
    n = max(ndim, 1)
    a = _int(a, "dim", "fftshift")
    if not -n <= a < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, "
                         f"{n - 1}], but got {a})")
    return a % n if ndim else 0


fftshift = _shift(False, "Zero frequency moved to the center: a roll by ``n // 2`` "
                         "(``torch.fft.fftshift``).")
ifftshift = _shift(True, "Inverse of ``fftshift``: a roll by ``-(n // 2)`` "
                         "(``torch.fft.ifftshift``).")


def _freq(name: str, npf: Callable[..., Any], summary: str) -> Callable[..., Tensor]:
    def op(n: int, d: float = 1.0, *, dtype: DTypeArg = None, layout: Any = None,
           device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
        npdt = D.get_default_dtype().np if dtype is None else D.to_np(dtype)
        if npdt.kind not in "fc":
            raise RuntimeError(f"{name} requires a floating point or complex dtype")
        if npdt.kind == "c":   # (PyTorch's arange has no complex kernel)
            raise NotImplementedError(f"\"arange_cpu\" not implemented for "
                                      f"'{D.from_np(npdt)._tname[:-6]}'")
        n = _int(n, "n", name)
        return _spectral.finish(npf(n, float(d)).astype(npdt), requires_grad, device)
    op.__name__ = name
    op.__doc__ = f"""{summary}

    Parameters
    ----------
    n : int
        The signal length.
    d : float, optional
        The sample spacing (the inverse of the sampling rate).
    dtype : dtype, optional
        A floating dtype (the default float dtype by default).
    layout : Any, optional
        Accepted for torch's signature (strided only).
    device : device, optional
        The device of the result.
    requires_grad : bool, optional
        Whether the result requires grad.
    out : Tensor, optional
        Tensor the result is written into.

    Returns
    -------
    Tensor
        {"``n``" if name == "fftfreq" else "``n // 2 + 1``"} frequencies in cycles per unit
        of ``d``.

    Raises
    ------
    RuntimeError
        If ``dtype`` is not floating.
    NotImplementedError
        If ``dtype`` is complex (torch's ``arange`` has no complex kernel).
    """
    return op


fftfreq = _freq("fftfreq", np.fft.fftfreq, "Sample frequencies of ``fft`` "
                                           "(``torch.fft.fftfreq``).")
rfftfreq = _freq("rfftfreq", np.fft.rfftfreq, "Sample frequencies of ``rfft`` "
                                              "(``torch.fft.rfftfreq``).")


for _n in __all__:   # out= as in PyTorch (written after the computation; no gradient)
    if _n not in ("fftshift", "ifftshift"):
        _fn = globals()[_n]
        globals()[_n] = set_out_signature(with_out(_fn, _n), _fn)
del _n, _fn
