"""Matrix functions, Sylvester equations and the pivoted LU (:mod:`ftrans.primitives.linalg`;
the primitives behind :mod:`ftrans.scipy.linalg`).

``sylvester(a, b, q)``
    ``x`` with ``a x + x b = q`` (``a``: ``(..., n, n)``, ``b``: ``(..., m, m)``, ``q``:
    ``(..., n, m)``; Bartels-Stewart, ``scipy.linalg.solve_sylvester``).  Write ``S(x) =
    a x + x b``; ``S^H(y) = a^H y + y b^H``.  JVP ``dx = S^{-1}(dq - da x - x db)``; VJP
    ``q̄ = S^{-H}(x̄) = sylvester(a^H, b^H, x̄)``, ``ā = -q̄ x^H``, ``b̄ = -x^H q̄`` (the
    adjoint of the JVP, as ``solve``'s rule, Giles 2008, 2.2.3).
``matfun(a, fn)`` with ``fn`` in ``{"expm", "logm", "sqrtm"}``
    the primary matrix function (SciPy's ``expm`` -- Al-Mohy & Higham 2009's scaling and
    squaring --, ``logm``, ``sqrtm``).  Fréchet derivatives:

    * ``expm``, ``logm``: the block-triangular identity ``f([[A, E], [0, A]]) =
      [[f(A), L_f(A, E)], [0, f(A)]]`` (Higham 2008, "Functions of Matrices", Thm 3.6;
      Mathias 1996): the JVP is the top-right block of ``f`` of a ``2n x 2n`` matrix.
      Because ``f(conj z) = conj f(z)`` for both, the adjoint of ``L_f(A, .)`` is
      ``L_f(A^H, .)`` (Higham 2008, (3.21)), so the VJP is the same block formula at
      ``A^H`` with the cotangent in the corner.  The rules bind ``matfun`` again:
      derivatives of any order.
    * ``sqrtm``: ``S = sqrtm(A)`` solves ``S dS + dS S = dA``: ``dS = sylvester(S, S,
      dA)``, ``Ā = sylvester(S^H, S^H, S̄)`` (Higham 2008, (6.4)).

    Real input -> real output: a real matrix whose principal logarithm / square root is
    not real (a negative real eigenvalue) raises ``ValueError``; pass a complex matrix.
``lu(a)``
    ``(lu, piv, perm)`` of an ``(m, n)`` ``a``: LAPACK's packed factors (``L`` unit lower, ``U``
    upper: ``P a = L U`` with ``(P a)[i] = a[perm[i]]``), its row interchanges ``piv``
    (``scipy.linalg.lu_factor``'s) and the permutation ``perm``; the integer outputs are
    not differentiable.  With ``X = L^{-1} P dA U^{-1}``: ``dL = L tril(X, -1)``, ``dU =
    triu(X) U`` (JAX's ``lu_jvp_rule``; de Hoog, Anderssen & Lukas 2011), so ``d lu = dL +
    dU``; VJP ``Ā = P^T L^{-H} (tril(L^H C, -1) + triu(C U^H)) U^{-H}`` for the cotangent
    ``C`` of ``lu`` (the adjoint, term by term).  Differentiable where the pivot order is
    locally constant (no ties) and ``U`` is nonsingular.  Rectangular ``a``: ``L`` and
    ``U`` are first padded to ``(m, m)`` and ``(n, n)`` with the identity (JAX's rule).

Impl: SciPy (one call per matrix of a stack; Dask: lazily, one task; array-API arrays:
``NotImplementedError``); ``jit`` runs them eagerly (no lowering),
as the other linear-algebra primitives.
"""
from __future__ import annotations

import types

import numpy as np

from ..core import Primitive, ShapedArray, zero
from ..core.dtypes import as_numpy_dtype
from ..kernels import backend_for
from .structural import concatenate, zeros_of, broadcast_to, expand_dims
from .elementwise import add, sub, neg
from .convert import convert_element_type
from .logic import eq
from .indexing import gather
from ._linalg_common import _H, _batch_front, _cast, _eye_like, _mm, _tri, _const
from ._linalg_solve import triangular_solve
from ._rules import numpy_kernel_impl

__all__ = ["sylvester", "matfun", "lu", "MATFUNS"]

MATFUNS = ("expm", "logm", "sqrtm")


def _host(x):
    """A NumPy copy of a backend array (CuPy: through the host)."""
    return x if isinstance(x, np.ndarray) else x.get()


def _per_matrix(fn, dtype, out_shape, *arrays):
    """``fn`` of each matrix (tuple) of equal-batch stacks, as one stacked array."""
    xp = backend_for(*arrays).xp
    arrays = [_host(a) for a in arrays]
    batch = arrays[0].shape[:-2]
    out = np.empty(tuple(batch) + tuple(out_shape), dtype)
    for idx in np.ndindex(*batch):
        out[idx] = fn(*(a[idx] for a in arrays))
    return out if xp is np else xp.asarray(out)


# ---------------------------------------------------------------------------------
# sylvester
# ---------------------------------------------------------------------------------
sylvester_p = _batch_front(Primitive("sylvester"))
sylvester_p.lowering = {"kind": "objmode"}   # (compiled: the impl from the segment)


@numpy_kernel_impl(sylvester_p)
def _sylvester_impl(a, b, q):
    from scipy.linalg import solve_sylvester  # deferred: SciPy is optional (impl only)
    dt = np.result_type(a.dtype, b.dtype, q.dtype)
    if q.size == 0:
        return backend_for(a, b, q).xp.zeros(q.shape, dt)
    return _per_matrix(solve_sylvester, dt, q.shape[-2:], a, b, q)


@sylvester_p.def_abstract_eval
def _sylvester_abstract(a, b, q):
    n, m = q.shape[-2:]
    if tuple(a.shape[-2:]) != (n, n) or tuple(b.shape[-2:]) != (m, m) or \
            not (tuple(a.shape[:-2]) == tuple(b.shape[:-2]) == tuple(q.shape[:-2])):
        raise ValueError(f"sylvester: expected a (..., n, n), b (..., m, m), q (..., n, m) "
                         f"with equal batch shapes, got {tuple(a.shape)}, {tuple(b.shape)}, "
                         f"{tuple(q.shape)}")
    return ShapedArray(q.shape, np.result_type(a.dtype, b.dtype, q.dtype))


@sylvester_p.def_jvp
def _sylvester_jvp(primals, tangents):
    a, b, q = primals
    ta, tb, tq = tangents
    x = sylvester_p.bind(a, b, q)
    if ta is zero and tb is zero and tq is zero:
        return x, zero
    rhs = tq
    for t in ((_mm(ta, x) if ta is not zero else zero), (_mm(x, tb) if tb is not zero else zero)):
        if t is not zero:
            rhs = neg(t) if rhs is zero else sub(rhs, t)
    return x, sylvester_p.bind(a, b, _cast(rhs, x.dtype))


@sylvester_p.def_vjp
def _sylvester_vjp(ct, x, primals, needs):
    a, b, q = primals
    gq = sylvester_p.bind(_H(a), _H(b), ct)
    return [_cast(neg(_mm(gq, _H(x))), a.dtype) if needs[0] else None,
            _cast(neg(_mm(_H(x), gq)), b.dtype) if needs[1] else None,
            _cast(gq, q.dtype) if needs[2] else None]


def sylvester(a, b, q):
    """``x`` with ``a x + x b = q`` (stacks of equal batch shapes, one dtype)."""
    return sylvester_p.bind(a, b, q)


# ---------------------------------------------------------------------------------
# matfun: expm, logm, sqrtm
# ---------------------------------------------------------------------------------
matfun_p = _batch_front(Primitive("matfun"))
matfun_p.lowering = {"kind": "objmode"}   # (compiled: SciPy's from the segment)


def _scipy_fn(fn):
    import scipy.linalg as sl  # deferred: SciPy is optional (impl only)
    return getattr(sl, fn)


def _real_result(fn, r, a):
    """``r`` for a real ``a``: its real part, or ``ValueError`` when it is not real."""
    if np.iscomplexobj(r):
        scale = max(np.abs(r).max(initial=0.0), 1.0)
        if np.abs(r.imag).max(initial=0.0) > 1e3 * np.finfo(a.dtype).eps * scale:
            what = "logarithm" if fn == "logm" else "square root"
            raise ValueError(f"{fn}: the real matrix has no real principal {what} (it has "
                             "a negative real eigenvalue); pass a complex matrix (e.g. "
                             "a.astype(complex)) for the complex result")
        r = r.real
    return r


@numpy_kernel_impl(matfun_p)
def _matfun_impl(a, *, fn):
    f = _scipy_fn(fn)
    dt = as_numpy_dtype(a.dtype)
    real = dt.kind != "c"

    def one(m):
        r = np.asarray(f(m))
        return _real_result(fn, r, m) if real else r

    if a.shape[-1] == 0:
        return backend_for(a).xp.zeros(a.shape, dt)
    return _per_matrix(one, dt, a.shape[-2:], a)


matfun_p.def_abstract_eval(lambda a, *, fn: ShapedArray(a.shape, a.dtype))


def _block_frechet(a, e, fn):
    """The top-right block of ``f([[a, e], [0, a]])``: the Fréchet derivative
    ``L_f(a, e)``."""
    n, nd = a.shape[-1], len(a.shape)
    z = zeros_of(tuple(a.shape), a.dtype, a)
    big = concatenate([concatenate([a, e], nd - 1), concatenate([z, a], nd - 1)], nd - 2)
    fb = matfun_p.bind(big, fn=fn)
    return gather(fb, (slice(None),) * (nd - 2) + (slice(0, n), slice(n, 2 * n)))


@matfun_p.def_jvp
def _matfun_jvp(primals, tangents, *, fn):
    (a,), (ta,) = primals, tangents
    fa = matfun_p.bind(a, fn=fn)
    if ta is zero:
        return fa, zero
    ta = _cast(ta, a.dtype)
    if fn == "sqrtm":
        return fa, sylvester(fa, fa, ta)
    return fa, _block_frechet(a, ta, fn)


@matfun_p.def_vjp
def _matfun_vjp(ct, fa, primals, needs, *, fn):
    (a,) = primals
    ct = _cast(ct, a.dtype)
    if fn == "sqrtm":
        return [sylvester(_H(fa), _H(fa), ct)]
    return [_block_frechet(_H(a), ct, fn)]


def matfun(a, fn):
    """``fn(a)`` for ``fn`` in :data:`MATFUNS` (stacks of square matrices)."""
    if fn not in MATFUNS:
        raise ValueError(f"matfun: fn must be one of {MATFUNS}, got {fn!r}")
    return matfun_p.bind(a, fn=fn)


# ---------------------------------------------------------------------------------
# lu
# ---------------------------------------------------------------------------------
lu_p = _batch_front(Primitive("lu", multiple_results=True))
lu_p.lowering = {"kind": "linalg", "op": "lu"}   # (ftrans.compiler._numba_linalg: getrf)


def _lu_one(m):
    from scipy.linalg import lu_factor  # deferred: SciPy is optional (impl only)
    lu_, piv = lu_factor(m, check_finite=False)
    perm = np.arange(m.shape[0])
    for i, p in enumerate(piv):
        perm[i], perm[p] = perm[p], perm[i]
    return lu_, piv, perm


def _lu_impl(a):
    xp = backend_for(a).xp
    h = _host(a)
    batch, (m, n) = h.shape[:-2], h.shape[-2:]
    lu_ = np.empty(h.shape, h.dtype)
    piv = np.empty(tuple(batch) + (min(m, n),), np.int32)
    perm = np.empty(tuple(batch) + (m,), np.int32)
    for idx in np.ndindex(*batch):
        lu_[idx], piv[idx], perm[idx] = _lu_one(h[idx])
    return tuple(r if xp is np else xp.asarray(r) for r in (lu_, piv, perm))


@lu_p.def_impl
def _lu_impl_any(a):
    """NumPy/CuPy: :func:`_lu_impl`; Dask: one lazy task per output; array-API arrays:
    ``NotImplementedError`` (the backend's ``on_numpy``)."""
    be = backend_for(a)
    if isinstance(be, types.ModuleType):  # the cpu and gpu backends are modules
        return _lu_impl(a)
    avals = _lu_abstract(ShapedArray(tuple(a.shape), a.dtype))
    return tuple(be.on_numpy("lu", (lambda i: lambda m: _lu_impl(m)[i])(i), av, a)
                 for i, av in enumerate(avals))


@lu_p.def_abstract_eval
def _lu_abstract(a):
    if len(a.shape) < 2:
        raise ValueError(f"lu: expected (a stack of) matrices, got {tuple(a.shape)}")
    batch, (m, n) = tuple(a.shape[:-2]), a.shape[-2:]
    return (ShapedArray(a.shape, a.dtype), ShapedArray(batch + (min(m, n),), np.dtype(np.int32)),
            ShapedArray(batch + (m,), np.dtype(np.int32)))


def perm_matrix(perm, dtype, like):
    """The (constant) ``P`` with ``(P x)[i] = x[perm[i]]``: ``P[..., i, j] = perm[i] == j``."""
    n = perm.shape[-1]
    nd = len(perm.shape)
    cols = broadcast_to(_const(np.arange(n, dtype=np.int32), like), tuple(perm.shape) + (n,))
    return convert_element_type(eq(expand_dims(perm, (nd,)), cols), as_numpy_dtype(dtype))


def _unit_lower(lu_):
    return add(_tri(lu_, True, -1), _eye_like(lu_))


def _square_factors(lu_):
    """``(L, U)`` of the packed ``(m, n)`` factors as square matrices: ``L`` ``(m, m)``
    unit lower (its last ``m - k`` columns those of the identity), ``U`` ``(n, n)`` upper
    (its last ``n - k`` rows those of the identity), ``k = min(m, n)`` (JAX's padding)."""
    m, n = lu_.shape[-2:]
    nb = len(lu_.shape) - 2
    if m > n:   # L: the m x n lower part, zero-padded to m x m
        low = _tri(lu_, True, -1)
        pad = zeros_of(tuple(lu_.shape[:-1]) + (m - n,), lu_.dtype, lu_)
        L = add(concatenate([low, pad], axis=nb + 1), _eye_like(lu_, m))
        U = _tri(gather(lu_, (Ellipsis, slice(0, n), slice(None))), False)
        return L, U
    if n > m:   # U: the m x n upper part, padded to n x n with the identity's last rows
        up = _tri(lu_, False)
        eye = _eye_like(lu_, n)
        U = concatenate([up, gather(eye, (Ellipsis, slice(m, n), slice(None)))], axis=nb)
        L = _unit_lower(gather(lu_, (Ellipsis, slice(None), slice(0, m))))
        return L, U
    return _unit_lower(lu_), _tri(lu_, False)


@lu_p.def_jvp
def _lu_jvp(primals, tangents):
    (a,), (ta,) = primals, tangents
    lu_, piv, perm = lu_p.bind(a)
    if ta is zero:
        return (lu_, piv, perm), (zero, zero, zero)
    L, U = _square_factors(lu_)
    pa = _mm(perm_matrix(perm, a.dtype, a), _cast(ta, a.dtype))
    y = triangular_solve(L, pa, True)                              # L^{-1} P dA
    x = _H(triangular_solve(_H(U), _H(y), True))                   # ... U^{-1}
    dlu = add(_mm(L, _tri(x, True, -1)), _mm(_tri(x, False), U))
    return (lu_, piv, perm), (dlu, zero, zero)


@lu_p.def_vjp
def _lu_vjp(cts, ans, primals, needs):
    (a,) = primals
    c = cts[0]
    lu_, _, perm = ans
    if c is zero:
        return [zeros_of(tuple(a.shape), a.dtype, a)]
    c = _cast(c, a.dtype)
    L, U = _square_factors(lu_)
    m = add(_tri(_mm(_H(L), c), True, -1), _tri(_mm(c, _H(U)), False))
    y = triangular_solve(_H(L), m, False)                          # L^{-H} M
    z = _H(triangular_solve(U, _H(y), False))                      # ... U^{-H}
    return [_mm(_H(perm_matrix(perm, a.dtype, a)), z)]


def lu(a):
    """``(lu, piv, perm)``: the pivoted LU of ``(m, n)`` matrices ``a`` (module
    docstring)."""
    return tuple(lu_p.bind(a))
