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

import numpy as np

from . import _dtype as D
from ._tensor import Tensor, _make_plain
from ._opbase import _compose, _default_float
from ._out import with_out
from .autograd._composite import composite_class
from ..numpy import fft as _nfft
from ..numpy import conj as _conj
from . import _spectral

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2",
           "irfft2", "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn",
           "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]
TOPLEVEL: dict = {n: getattr(_spectral, n) for n in _spectral.__all__}
METHODS: dict = {"stft": _spectral.stft, "istft": _spectral.istft}

_C2C = composite_class("FftC2CBackward0", ("self",))
_R2C = composite_class("FftR2CBackward0", ("self",))
_C2R = composite_class("FftC2RBackward0", ("self",))
_CONJ = composite_class("ConjBackward0", ("self",))
_ROLL = composite_class("RollBackward0", ("self",))
_NORMS = (None, "backward", "ortho", "forward")


# ------------------------------------------------------------------------- arguments
def _data(input, name, real=False):  # noqa: A002
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


def _norm(norm):
    if norm not in _NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return norm or "backward"


def _int(v, what, fname):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        if isinstance(v, Tensor) and v.ndim == 0 and v._data.dtype.kind in "iu":
            return int(v.item())
        raise TypeError(f"fft_{fname}(): argument '{what}' must be int, not "
                        f"{type(v).__name__}")
    return operator.index(v)


def _dim(d, ndim, fname):
    d = _int(d, "dim", fname)
    if ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if not -ndim <= d < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                         f"{ndim - 1}], but got {d})")
    return d % ndim


def _points(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return n


def _dims_and_s(d, s, dim, fname, default_last2=False):
    """PyTorch's ``s``/``dim`` of the n-dimensional transforms: non-negative unique dims
    and the lengths (``None`` entries where ``s`` is not given or is -1)."""
    nd = d.ndim
    if isinstance(dim, (int, np.integer)) and not isinstance(dim, bool):
        dim = (dim,)
    if s is not None:
        s = [_int(v, "s", fname) for v in s]
    if dim is None:
        if s is None:
            dims = list(range(nd - 2, nd)) if default_last2 else list(range(nd))
        else:
            if len(s) > nd:
                raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                                   f"{nd} dimensions.")
            dims = list(range(nd - len(s), nd))
    else:
        dims = [_dim(a, nd, fname) for a in dim]
    if s is not None and len(s) != len(dims):
        raise RuntimeError("When given, dim and shape arguments must have the same length")
    if len(set(dims)) != len(dims):
        raise RuntimeError("FFT dims must be unique")
    s = [None] * len(dims) if s is None else [None if v == -1 else v for v in s]
    return dims, s


def _fill(d, dims, s):
    return tuple(_points(d.shape[a] if n is None else n) for a, n in zip(dims, s))


# ------------------------------------------------------------------------- compositions
def _f_1d(x, kind, n, axis, norm):
    return getattr(_nfft, kind)(x, n, axis, norm)


def _f_nd(x, kind, s, axes, norm):
    return getattr(_nfft, kind)(x, s, axes, norm)


def _f_hfftn(x, s, axes, norm):
    """``hfftn``: ``irfftn`` of the conjugate with the swapped normalization."""
    return _nfft.irfftn(_conj(x), s, axes, _SWAP[norm])


def _f_ihfftn(x, s, axes, norm):
    """``ihfftn``: the conjugate of ``rfftn`` with the swapped normalization."""
    return _conj(_nfft.rfftn(x, s, axes, _SWAP[norm]))


_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


# ------------------------------------------------------------------------- 1-d transforms
def _one_d(kind, real_in=False, c2r=False):
    def op(input, n=None, dim=-1, norm=None):  # noqa: A002
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
    return op


fft = _one_d("fft")
fft.__doc__ = """One-dimensional discrete Fourier transform (``torch.fft.fft``)."""
ifft = _one_d("ifft")
ifft.__doc__ = """One-dimensional inverse discrete Fourier transform (``torch.fft.ifft``)."""
rfft = _one_d("rfft", real_in=True)
rfft.__doc__ = """DFT of real input (``torch.fft.rfft``): the ``n // 2 + 1`` non-negative
frequencies."""
irfft = _one_d("irfft", c2r=True)
irfft.__doc__ = """Inverse of ``rfft`` (``torch.fft.irfft``): real output of length ``n``
(default ``2 (m - 1)``)."""
hfft = _one_d("hfft", c2r=True)
hfft.__doc__ = """DFT of a Hermitian-symmetric signal given by its half (``torch.fft.hfft``):
real output of length ``n`` (default ``2 (m - 1)``)."""
ihfft = _one_d("ihfft", real_in=True)
ihfft.__doc__ = """Inverse of ``hfft`` for real input (``torch.fft.ihfft``): the ``n // 2 + 1``
non-negative frequencies."""


# ------------------------------------------------------------------------- n-d transforms
def _n_d(kind, two=False):
    """``kind`` + ``2``/``n``: ``fft``/``ifft`` (complex to complex), ``rfft``/``ihfft``
    (real in, half spectrum out), ``irfft``/``hfft`` (half spectrum in, real out)."""
    real_in = kind in ("rfft", "ihfft")
    c2r = kind in ("irfft", "hfft")
    name = kind + ("2" if two else "n")
    fn = {"hfft": _f_hfftn, "ihfft": _f_ihfftn}.get(kind, _f_nd)

    def op(input, s=None, dim=(-2, -1) if two else None, norm=None):  # noqa: A002
        d = _data(input, kind + "n" if real_in else name, real_in)
        dims, s = _dims_and_s(d, s, dim, name)
        if (real_in or c2r) and not dims:
            raise RuntimeError(f"{kind}n must transform at least one axis")
        if c2r:
            last = s[-1]
            s = list(_fill(d, dims[:-1], s[:-1])) + [
                _points(2 * (d.shape[dims[-1]] - 1) if last is None else last)]
        else:
            s = list(_fill(d, dims, s))
        params = {"s": tuple(s), "axes": tuple(dims), "norm": _norm(norm)}
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
    op.__doc__ = (f"{'Two' if two else 'N'}-dimensional ``{kind}`` over ``dim`` "
                  f"(``torch.fft.{name}``).")
    return op


fft2, ifft2, rfft2, irfft2, hfft2, ihfft2 = (
    _n_d(k, True) for k in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"))
fftn, ifftn, rfftn, irfftn, hfftn, ihfftn = (
    _n_d(k) for k in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"))


# ------------------------------------------------------------------------- helpers
def _f_shift(x, axes, inverse):
    return (_nfft.ifftshift if inverse else _nfft.fftshift)(x, axes)


def _shift(inverse):
    def op(input, dim=None):  # noqa: A002
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
    return op


def _dim_or_scalar(a, ndim):
    n = max(ndim, 1)
    a = _int(a, "dim", "fftshift")
    if not -n <= a < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, "
                         f"{n - 1}], but got {a})")
    return a % n if ndim else 0


fftshift = _shift(False)
fftshift.__doc__ = """Zero frequency moved to the center (``torch.fft.fftshift``): a roll by
``n // 2`` over ``dim`` (default all dimensions)."""
ifftshift = _shift(True)
ifftshift.__doc__ = """Inverse of ``fftshift`` (``torch.fft.ifftshift``): a roll by
``-(n // 2)``."""


def _freq(name, npf):
    def op(n, d=1.0, *, dtype=None, layout=None, device=None,
           requires_grad=False):
        npdt = D.get_default_dtype().np if dtype is None else D.to_np(dtype)
        if npdt.kind not in "fc":
            raise RuntimeError(f"{name} requires a floating point or complex dtype")
        if npdt.kind == "c":   # (PyTorch's arange has no complex kernel)
            raise NotImplementedError(f"\"arange_cpu\" not implemented for "
                                      f"'{D.from_np(npdt)._tname[:-6]}'")
        n = _int(n, "n", name)
        return _spectral.finish(npf(n, float(d)).astype(npdt), requires_grad, device)
    op.__name__ = name
    return op


fftfreq = _freq("fftfreq", np.fft.fftfreq)
fftfreq.__doc__ = """Sample frequencies of ``fft`` (``torch.fft.fftfreq``): length ``n``,
spacing ``d``; a constant tensor."""
rfftfreq = _freq("rfftfreq", np.fft.rfftfreq)
rfftfreq.__doc__ = """Sample frequencies of ``rfft`` (``torch.fft.rfftfreq``): length ``n``,
spacing ``d``; a constant tensor."""


for _n in __all__:   # out= as in PyTorch (written after the computation; no gradient)
    if _n not in ("fftshift", "ifftshift"):
        globals()[_n] = with_out(globals()[_n], _n)
del _n
