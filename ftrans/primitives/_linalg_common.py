"""Helpers of the linear-algebra primitives (:mod:`ftrans.primitives.linalg`), written with
ftrans ops only, so that the rules built from them can be differentiated again."""
from __future__ import annotations

import numpy as np

from ..core import Primitive, ShapedArray, Tracer, zero
from ..core.dtypes import kind_of, as_numpy_dtype
from ..kernels import backend_for
from .structural import transpose, broadcast_to, reduce_sum, expand_dims
from .elementwise import add, sub, mul, div
from .convert import convert_element_type, real, imag
from .select import where
from .logic import eq
from .dot import dot_general
from ._rules import conj, batch_size, batched_front

__all__ = []


# ---------------------------------------------------------------------------------
# helpers (ftrans ops only: rules built from them can be differentiated again)
# ---------------------------------------------------------------------------------
def _concrete_backend(x):
    """The backend of the concrete array under ``x`` (tracers unwrapped), so constants
    built inside rules live on the same device as the values they meet."""
    while isinstance(x, Tracer):
        nxt = getattr(x, "primal", None)
        x = getattr(x, "val", None) if nxt is None else nxt
    return backend_for(x)


def _const(arr, like):
    """A NumPy constant moved to the device of ``like`` (a no-op on the CPU)."""
    be = _concrete_backend(like)
    return arr if be.xp is np else be.xp.asarray(arr)


def _mT(x):
    """Swap the last two axes."""
    nd = len(x.shape)
    return transpose(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def _H(x):
    """Conjugate transpose of the last two axes."""
    return conj(_mT(x))


def _mm(a, b):
    """Batched matrix product ``a @ b`` of ``(..., m, k)`` and ``(..., k, n)`` arrays."""
    ba, bb = tuple(a.shape[:-2]), tuple(b.shape[:-2])
    if ba != bb:
        batch = np.broadcast_shapes(ba, bb)
        if ba != batch:
            a = broadcast_to(a, batch + tuple(a.shape[-2:]))
        if bb != batch:
            b = broadcast_to(b, batch + tuple(b.shape[-2:]))
    nb = len(a.shape) - 2
    bd = tuple(range(nb))
    return dot_general(a, b, (((nb + 1,), (nb,)), (bd, bd)))


def _add(a, b):
    if a is zero:
        return b
    if b is zero:
        return a
    return add(a, b)


def _tri_mask(n, m, lower, k=0, like=None):
    """Constant boolean mask of the lower (``k``-th diagonal and below) or upper
    (``k``-th and above) triangle of an ``(n, m)`` matrix (on ``like``'s device)."""
    if lower:
        mask = np.tril(np.ones((n, m), dtype=bool), k)
    else:
        mask = np.triu(np.ones((n, m), dtype=bool), k)
    return mask if like is None else _const(mask, like)


def _tri(x, lower, k=0):
    n, m = x.shape[-2:]
    return where(_tri_mask(n, m, lower, k, x), x, 0.0)


def _eye_mask(n, like=None):
    mask = np.eye(n, dtype=bool)
    return mask if like is None else _const(mask, like)


def _diag_part(x):
    """``(..., k, k) -> (..., k)``: the diagonal."""
    n = x.shape[-1]
    return reduce_sum(where(_eye_mask(n, x), x, 0.0), (len(x.shape) - 1,))


def _diag_embed(v):
    """``(..., k) -> (..., k, k)``: the diagonal matrix of ``v``."""
    n = v.shape[-1]
    return where(_eye_mask(n, v), expand_dims(v, (len(v.shape),)), 0.0)


def _trace(x):
    return reduce_sum(_diag_part(x), (len(x.shape) - 2,))


def _cast(x, dtype):
    dtype = as_numpy_dtype(dtype)
    return x if as_numpy_dtype(x.dtype) == dtype else convert_element_type(x, dtype)


def _eye_like(x, n=None):
    """A constant identity of ``x``'s dtype, broadcast to ``x``'s batch shape."""
    n = x.shape[-1] if n is None else n
    eye = _concrete_backend(x).xp.eye(n, dtype=x.dtype)
    return broadcast_to(eye, tuple(x.shape[:-2]) + (n, n))


def _i_imag_diag(x):
    """``i Im(diag(x))`` as a diagonal matrix of complex ``x`` (the phase terms of the
    complex svd/qr rules)."""
    return mul(_cast(_diag_embed(imag(_diag_part(x))), x.dtype), 1j)


def _sym(t):
    """``(t + t^H) / 2``, the Hermitian part of ``t`` (self-adjoint for ``Re<a, b>``).

    The derivative convention of every function that reads one triangle of a Hermitian
    input (cholesky, eigh, Hermitian svd/pinv), JAX's and PyTorch's: the function is
    differentiated as ``a -> f((a + a^H) / 2)``, which agrees with ``f`` on Hermitian
    inputs; so tangents are projected by ``_sym`` and gradients come out Hermitian (not
    lower triangular with doubled off-diagonals)."""
    return mul(add(t, _H(t)), 0.5)


def _safe_recip_diff(v):
    """``F[..., i, j] = 1 / (v_j - v_i)``, 0 where ``v_j == v_i`` (the diagonal and exact
    ties), written with a double ``where`` so no inf or NaN enters any derivative."""
    nd = len(v.shape)
    diff = sub(expand_dims(v, (nd - 1,)), expand_dims(v, (nd,)))
    tie = eq(diff, 0.0)
    return where(tie, 0.0, div(1.0, where(tie, 1.0, diff)))


def _safe_recip(s):
    """``1 / s``, 0 where ``s == 0`` (double ``where``)."""
    z = eq(s, 0.0)
    return where(z, 0.0, div(1.0, where(z, 1.0, s)))


def _batch_front(p, n_out=None):
    """Batching rule: batch axis of every operand to the front (unbatched operands are
    broadcast), bind, batch axis 0 of every output."""
    def rule(vals, dims, **params):
        size = batch_size(vals, dims)
        args = [batched_front(v, d, size) for v, d in zip(vals, dims)]
        out = p.bind(*args, **params)
        return out, ((0,) * len(out) if p.multiple_results else 0)
    p.batch = rule
    return p


def _check_square(a, name):
    if len(a.shape) < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{name}: expected a (stack of) square matrices (..., n, n), got "
                         f"shape {tuple(a.shape)}")


# ---------------------------------------------------------------------------------
# the Hermitian matrix read from one triangle (a primitive: its derivative is _sym's)
# ---------------------------------------------------------------------------------
hermitian_part_p = _batch_front(Primitive("hermitian_part"))
hermitian_part_p.lowering = {"kind": "objmode"}   # (compiled: the impl from the segment)


@hermitian_part_p.def_impl
def _hermitian_part_impl(a, *, lower):
    xp = backend_for(a).xp
    n = a.shape[-1]
    off = xp.tril(a, -1) if lower else xp.triu(a, 1)
    d = xp.real(xp.diagonal(a, axis1=-2, axis2=-1)) if kind_of(a) == "c" else \
        xp.diagonal(a, axis1=-2, axis2=-1)
    return off + xp.conj(xp.swapaxes(off, -1, -2)) + d[..., None] * xp.eye(n, dtype=a.dtype)


hermitian_part_p.def_abstract_eval(lambda a, *, lower: ShapedArray(a.shape, a.dtype))
hermitian_part_p.def_jvp(lambda primals, tangents, *, lower: (
    hermitian_part_p.bind(primals[0], lower=lower),
    zero if tangents[0] is zero else _sym(tangents[0])))
hermitian_part_p.def_vjp(lambda ct, ans, primals, needs, *, lower: [_sym(ct)])


def _hermitian_part(t, lower):
    """The Hermitian matrix LAPACK reads from one triangle of ``t``:
    ``tril(t, -1) + tril(t, -1)^H + Re diag(t)`` (``lower``), or the upper analogue;
    differentiated as :func:`_sym` (the one-triangle convention)."""
    return hermitian_part_p.bind(t, lower=bool(lower))
