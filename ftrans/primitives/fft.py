"""The ``fft`` primitive: discrete Fourier transforms over given axes.

``fft(x, kind, axes, norm, n_last)`` is ``numpy.fft.{fftn, ifftn, rfftn, irfftn}(x,
axes=axes, norm=norm)`` with the lengths already fixed by the caller
(``ftrans.numpy.fft`` pads or truncates before calling it):

* ``kind="fft"`` / ``"ifft"``: complex input, complex output of the same shape;
* ``kind="rfft"``: real input, complex output whose last transformed axis has length
  ``n // 2 + 1``;
* ``kind="irfft"``: complex input whose last transformed axis has length
  ``n_last // 2 + 1``, real output with ``n_last`` along that axis.

``axes`` is a tuple of distinct non-negative ints (the last one is the "real" axis of
rfft/irfft); ``norm`` is ``"backward"``, ``"ortho"`` or ``"forward"``.  Precision
follows NumPy 2: float32/complex64 stay single precision.

Derivatives (every transform is R-linear, so the JVP transforms the tangent).  The VJP
is the adjoint for ``Re<a, b> = Re(sum(conj(a) b))`` (DESIGN.md; PyTorch's convention,
so the results equal ``torch.fft``'s gradients).  With ``F`` the unnormalized DFT over
``N`` points and ``dual(norm)`` swapping "backward" and "forward":

* ``fft``: ``F^H = N * ifft_backward``, so ``fftn(., norm)^T = ifftn(., dual(norm))``;
  symmetrically ``ifftn(., norm)^T = fftn(., dual(norm))``.
* ``rfft = P F E`` (``E`` embeds R in C, ``P`` keeps the first ``n//2 + 1`` bins):
  ``E^T = Re``, ``P^T`` zero-pads, so
  ``rfftn(., norm)^T(g) = Re(ifftn(zero_pad(g, n), dual(norm)))``.
* ``irfft``: ``x_k = s * sum_j w_j Re(y_j exp(2 pi i j k / n))`` with ``w_0 = 1``,
  ``w_j = 2`` for ``0 < j < n/2`` and ``w_{n/2} = 1`` for even ``n`` (NumPy's irfft
  ignores the imaginary parts of ``y_0`` and, for even ``n``, ``y_{n/2}``), so
  ``irfftn(., norm)^T(g) = w * rfftn(g, dual(norm))`` (``w`` along the last axis: the
  Hermitian-weight correction).  The same holds with other axes present since irfftn
  is ifft over the other axes followed by irfft over the last.

Each formula is checked by the dot-product test (``check_grads``) and against
``torch.fft`` in ``tests/numpy/test_fft.py``.  Batching moves the batch axis to the
front and shifts ``axes``.  The kernel is the backend's ``xp.fft`` (NumPy's pocketfft
or cuFFT through CuPy).
"""
from __future__ import annotations

import numpy as np

from ..core import Primitive, ShapedArray, zero
from ..core.dtypes import kind_of
from ..kernels import backend_for
from ._rules import move_to_front
from .convert import convert_element_type, real
from .elementwise import mul
from .indexing import gather
from .structural import concatenate, zeros_of

__all__ = ["fft", "fft_p", "dual_norm"]

_KINDS = ("fft", "ifft", "rfft", "irfft")
_NORMS = ("backward", "ortho", "forward")

fft_p = Primitive("fft")


def dual_norm(norm):
    """The normalization of the adjoint transform: backward <-> forward, ortho fixed."""
    return {"backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]


def _complex_of(dtype):
    return np.dtype(np.complex64) if np.dtype(dtype) in (np.float32, np.complex64) \
        else np.dtype(np.complex128)


def _real_of(dtype):
    return np.dtype(np.float32) if np.dtype(dtype) in (np.float32, np.complex64) \
        else np.dtype(np.float64)


@fft_p.def_impl
def _fft_impl(x, *, kind, axes, norm, n_last):
    f = backend_for(x).xp.fft
    if kind == "fft":
        return f.fftn(x, axes=axes, norm=norm)
    if kind == "ifft":
        return f.ifftn(x, axes=axes, norm=norm)
    if kind == "rfft":
        return f.rfftn(x, axes=axes, norm=norm)
    s = [x.shape[a] for a in axes[:-1]] + [n_last]
    return f.irfftn(x, s=s, axes=axes, norm=norm)


@fft_p.def_abstract_eval
def _fft_abstract_eval(x, *, kind, axes, norm, n_last):
    shape = list(x.shape)
    if kind in ("fft", "ifft"):
        return ShapedArray(shape, _complex_of(x.dtype))
    last = axes[-1]
    if kind == "rfft":
        shape[last] = shape[last] // 2 + 1
        return ShapedArray(shape, _complex_of(x.dtype))
    shape[last] = n_last
    return ShapedArray(shape, _real_of(x.dtype))


@fft_p.def_jvp
def _fft_jvp(primals, tangents, **params):
    (x,), (t,) = primals, tangents
    ans = fft_p.bind(x, **params)
    if t is zero:
        return ans, zero
    if params["kind"] != "rfft" and kind_of(t) != "c":
        t = convert_element_type(t, _complex_of(t.dtype))
    elif params["kind"] == "rfft" and kind_of(t) == "c":
        t = real(t)
    return ans, fft_p.bind(t, **params)


def _fit_last(v, axis, n):
    """Zero-pad or truncate ``v`` along ``axis`` to length ``n`` (ftrans ops)."""
    m = v.shape[axis]
    if m == n:
        return v
    if m > n:
        return gather(v, (slice(None),) * axis + (slice(0, n),))
    shape = list(v.shape)
    shape[axis] = n - m
    return concatenate([v, zeros_of(tuple(shape), v.dtype, v)], axis)


def _hermitian_weights(g, axis, n):
    """``w * g`` along ``axis`` (length ``n//2 + 1``): doubled except bin 0 and, for even
    ``n``, bin ``n/2`` (written with slices and concatenation)."""
    m = g.shape[axis]
    lo = 1
    hi = m - 1 if n % 2 == 0 else m   # the Nyquist bin (even n) keeps weight 1
    if hi <= lo:
        return g
    pre = (slice(None),) * axis
    parts = [gather(g, pre + (slice(0, lo),)), mul(gather(g, pre + (slice(lo, hi),)), 2.0)]
    if hi < m:
        parts.append(gather(g, pre + (slice(hi, m),)))
    return concatenate(parts, axis)


@fft_p.def_vjp
def _fft_vjp(ct, ans, primals, needs, *, kind, axes, norm, n_last):
    (x,) = primals
    dn = dual_norm(norm)
    if kind in ("fft", "ifft"):
        if kind_of(ct) != "c":
            ct = convert_element_type(ct, _complex_of(ct.dtype))
        other = "ifft" if kind == "fft" else "fft"
        return [fft_p.bind(ct, kind=other, axes=axes, norm=dn, n_last=None)]
    last = axes[-1]
    if kind == "rfft":
        if kind_of(ct) != "c":
            ct = convert_element_type(ct, _complex_of(ct.dtype))
        padded = _fit_last(ct, last, x.shape[last])
        return [real(fft_p.bind(padded, kind="ifft", axes=axes, norm=dn, n_last=None))]
    # irfft: real cotangent -> w * rfftn(g, dual(norm))
    if kind_of(ct) == "c":
        ct = real(ct)
    g = fft_p.bind(ct, kind="rfft", axes=axes, norm=dn, n_last=None)
    return [_hermitian_weights(g, last, n_last)]


@fft_p.def_batch
def _fft_batch(vals, dims, *, kind, axes, norm, n_last):
    x = move_to_front(vals[0], dims[0])
    return fft_p.bind(x, kind=kind, axes=tuple(a + 1 for a in axes), norm=norm,
                      n_last=n_last), 0


def fft(x, kind, axes, norm="backward", n_last=None):
    """Apply the ``fft`` primitive (see the module docstring for the contract)."""
    if kind not in _KINDS:
        raise ValueError(f"fft kind must be one of {_KINDS}, got {kind!r}")
    if norm not in _NORMS:
        raise ValueError(f"fft norm must be one of {_NORMS}, got {norm!r}")
    axes = tuple(int(a) for a in axes)
    if kind == "irfft":
        n_last = int(n_last)
    else:
        n_last = None
    return fft_p.bind(x, kind=kind, axes=axes, norm=norm, n_last=n_last)


# compiler lowering (ftrans.compiler._numba_linalg): an objmode call of the impl
fft_p.lowering = {"kind": "objmode"}
