"""The all-pole (IIR) filter primitive ``iir_filter(a, v)``: ``y`` with ``sum_k a[k]
y[n - k] = v[n]`` along the last axis (``y[m] = 0`` for ``m < 0``), i.e.
``scipy.signal.lfilter([1], a, v)``.  :func:`ftrans.scipy.signal.lfilter` is this
primitive applied to the (causal) convolution ``b * x``.

Shapes: ``a`` is ``(*Ba, K)``, ``v`` is ``(*Bv, N)`` with ``Ba`` a prefix of ``Bv`` (one
filter per leading index of ``a``, shared by the remaining axes of ``v``); equal dtypes.

Rules.  Write ``T_a`` for the lower-triangular Toeplitz matrix of ``a`` (so ``y =
T_a^{-1} v``).  ``y`` is linear in ``v``; differentiating ``a * y = v`` gives ``dy =
T_a^{-1}(dv - da * y)`` (causal convolution; JVP).  The transpose of a causal filter is
the same filter run backwards in time: ``T_a^{-H} g = flip(iir(conj(a), flip(g)))``, so
the VJP is ``v̄ = flip(iir(conj(a), flip(ȳ)))`` and ``ā[k] = -sum_n v̄[n] conj(y[n - k])``
(the adjoint of the JVP for ``Re<., .>``, DESIGN.md's complex convention; the same
derivation as ``solve``'s ``b̄ = a^{-H} x̄``, ``ā = -b̄ x^H``, Giles 2008, 2.2.3).  Every
rule binds ``iir_filter`` again or ftrans ops, so derivatives of any order exist.
Impl: ``scipy.signal.lfilter`` (one call per filter; Dask: one lazy task; array-API
arrays: ``NotImplementedError``, :func:`ftrans.primitives._rules.numpy_kernel_impl`); no ``lowering``: ``jit`` runs the
impl eagerly, as the linear-algebra primitives do.
"""
from __future__ import annotations

import numpy as np

from ..core import Primitive, ShapedArray, zero
from ..kernels import backend_for
from .structural import concatenate, reduce_sum, reshape, zeros_of
from .elementwise import add, sub, mul, neg
from .indexing import gather
from ._rules import conj, batched_front, batch_size, move_to_front, numpy_kernel_impl

__all__ = ["iir_filter"]

iir_filter_p = Primitive("iir_filter")
iir_filter_p.lowering = {"kind": "objmode"}   # (compiled: SciPy's lfilter from the segment)


@numpy_kernel_impl(iir_filter_p)
def _iir_impl(a, v):
    be = backend_for(a, v)
    xp = be.xp
    dt = np.result_type(a.dtype, v.dtype)
    if v.shape[-1] == 0 or v.size == 0:
        return xp.zeros(v.shape, dt)
    if xp is not np:  # pragma: no cover - GPU: through the host
        return xp.asarray(_iir_impl(a.get(), v.get()))
    from scipy.signal import lfilter  # deferred: SciPy is optional (only this impl needs it)
    one = np.ones(1, dt)
    if a.ndim == 1:
        return np.asarray(lfilter(one, a, v, axis=-1), dt)
    out = np.empty(v.shape, dt)
    for idx in np.ndindex(*a.shape[:-1]):
        out[idx] = lfilter(one, a[idx], v[idx], axis=-1)
    return out


@iir_filter_p.def_abstract_eval
def _iir_abstract(a, v):
    if tuple(v.shape[:len(a.shape) - 1]) != tuple(a.shape[:-1]) or not a.shape[-1]:
        raise ValueError(f"iir_filter: a (shape {tuple(a.shape)}) must be (*B, K >= 1) "
                         f"with B a prefix of v's leading shape (got {tuple(v.shape)})")
    return ShapedArray(v.shape, np.result_type(a.dtype, v.dtype))


def _coef(a, k, ndv):
    """``a[..., k]`` shaped to broadcast against a ``v``-shaped array of rank ``ndv``."""
    ak = gather(a, (slice(None),) * (len(a.shape) - 1) + (k,))
    return reshape(ak, tuple(a.shape[:-1]) + (1,) * (ndv - len(a.shape) + 1))


def _shift(y, k):
    """``y[..., n - k]`` (zeros for ``n < k``) along the last axis."""
    n = y.shape[-1]
    if k == 0:
        return y
    if k >= n:
        return zeros_of(y.shape, y.dtype, y)
    head = zeros_of(tuple(y.shape[:-1]) + (k,), y.dtype, y)
    return concatenate([head, gather(y, (slice(None),) * (len(y.shape) - 1) + (slice(0, n - k),))],
                       len(y.shape) - 1)


def causal_conv(a, y):
    """``sum_k a[..., k] y[..., n - k]`` for ``n < N`` (``a`` short: a sum of ``K``
    shifted copies; differentiable in both)."""
    out = None
    for k in range(a.shape[-1]):
        term = mul(_coef(a, k, len(y.shape)), _shift(y, k))
        out = term if out is None else add(out, term)
    return out


def _flip(x):
    n = x.shape[-1]
    return gather(x, (slice(None),) * (len(x.shape) - 1) + (slice(n - 1, None, -1) if n else
                                                             slice(0, 0),))


@iir_filter_p.def_jvp
def _iir_jvp(primals, tangents):
    a, v = primals
    ta, tv = tangents
    y = iir_filter_p.bind(a, v)
    if ta is zero and tv is zero:
        return y, zero
    rhs = tv
    if ta is not zero:
        d = causal_conv(ta, y)
        rhs = neg(d) if rhs is zero else sub(rhs, d)
    return y, iir_filter_p.bind(a, rhs)


@iir_filter_p.def_vjp
def _iir_vjp(ct, y, primals, needs):
    a, v = primals
    vbar = _flip(iir_filter_p.bind(conj(a), _flip(ct)))
    res = [None, vbar if needs[1] else None]
    if needs[0]:
        nb, nd = len(a.shape) - 1, len(y.shape)
        axes = tuple(range(nb, nd))
        cy = conj(y)
        cols = [reshape(neg(reduce_sum(mul(vbar, _shift(cy, k)), axes)),
                        tuple(a.shape[:-1]) + (1,)) for k in range(a.shape[-1])]
        res[0] = concatenate(cols, nb) if len(cols) > 1 else cols[0]
    return res


def _iir_batch(vals, dims):
    a, v = vals
    da, dv = dims
    if da is None and len(a.shape) == 1:  # one shared filter: only v moves
        return iir_filter_p.bind(a, move_to_front(v, dv)), 0
    size = batch_size(vals, dims)
    return iir_filter_p.bind(batched_front(a, da, size), batched_front(v, dv, size)), 0


iir_filter_p.batch = _iir_batch


def iir_filter(a, v):
    """``y`` with ``sum_k a[..., k] y[..., n - k] = v[..., n]`` (``lfilter([1], a, v)``);
    ``a`` of shape ``(*B, K)``, ``v`` of ``(*B, *rest, N)``, equal dtypes."""
    return iir_filter_p.bind(a, v)
