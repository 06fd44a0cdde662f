"""Linear-algebra primitives: solves, decompositions and determinants.

Every primitive here works on *stacks* of matrices: the last two axes are the matrix
axes and any leading axes are batch axes (NumPy's ``numpy.linalg`` convention).
Operands that take two arrays (``solve``, ``triangular_solve``) require equal batch
shapes; ``ftrans.numpy.linalg`` broadcasts before binding.  Because the impls (NumPy /
SciPy / CuPy through the backend's ``xp``) already loop over leading batch axes, every
batching rule is "move the batch axis to the front and bind again".

``solve(a, b)``
    ``x = a^{-1} b`` with ``b`` of shape ``(..., n, k)``.  ``dx = a^{-1}(db - da x)``;
    VJP ``b̄ = a^{-H} x̄``, ``ā = -b̄ x^H`` (Giles 2008, "Extended collection of matrix
    derivative results", 2.2.3).
``triangular_solve(a, b, lower)``
    the same for a triangular ``a``; only the triangle named by ``lower`` is read and
    the cotangent of ``a`` is projected on it.  CPU: ``scipy.linalg.solve_triangular``.
``cholesky(a)``
    lower ``L`` with ``a = L L^H``, reading the lower triangle of ``a`` (as NumPy).
    ``dL = L Φ(L^{-1} dA L^{-H})``, ``Φ`` = strict lower part + half the diagonal;
    VJP ``Ā = L^{-H} Φ(L^H L̄) L^{-1}`` folded on the lower triangle (Murray 2016,
    "Differentiation of the Cholesky decomposition").
``eigh(a, lower)``
    ``(w, v)``: ascending eigenvalues and unit eigenvectors of the Hermitian matrix
    given by one triangle.  With ``X = V^H dA V``: ``dw = Re diag(X)``,
    ``dV = V (F ∘ X)``, ``F_ij = 1/(w_j - w_i)``; VJP ``Ā = V (diag(w̄) + F ∘ V^H V̄)
    V^H`` (Giles 2008, 3.1; Seeger et al. 2017, "Auto-differentiating linear algebra").
``svd(a, full_matrices)``
    ``(u, s, vh)``.  Townsend 2016, "Differentiating the singular value decomposition":
    with ``dP = U^H dA V``, ``ds = Re diag(dP)``, ``dU = U(F ∘ (dP S + S dP^H)) +
    (I - U U^H) dA V S^{-1}``, ``dV = V(F ∘ (S dP + dP^H S)) + (I - V V^H) dA^H U
    S^{-1}``, ``F_ij = 1/(s_j^2 - s_i^2)``, plus the complex phase term
    ``U diag(i Im(dP_ii) / s_i)`` (as JAX); the VJP is its adjoint, derived term by term.
``qr(a, complete)``
    ``(q, r)``.  With ``X = dA R^{-1}``, ``C = Q^H X``, ``Ω = tril(C, -1) -
    tril(C, -1)^H + i Im diag(C)``: ``dQ = Q(Ω - C) + X``, ``dR = (C - Ω) R``
    (Walter & Lehmann 2018; JAX's ``qr_jvp_rule``); ``m < n`` by splitting
    ``a = q [r1 | r2]``: ``dr2 = dq^H a2 + q^H da2``.
``det(a)``
    ``d det = det tr(a^{-1} da)``: gradient ``det · a^{-T}`` (Giles 2008, 2.2.4).
``slogdet(a)``
    ``(sign, log|det|)``: ``d log|det| = Re tr(a^{-1} da)``, ``d sign = sign · i Im
    tr(a^{-1} da)`` (complex; constant for real ``a``).
``pinv(a, rcond, hermitian)``
    Moore-Penrose pseudo-inverse with NumPy's cutoff.  ``dX = -X dA X + X X^H dA^H
    (I - A X) + (I - X A) dA^H X^H X`` (Golub & Pereyra 1973), valid where the rank
    is locally constant.

Conventions and limits
----------------------
* Complex inputs follow DESIGN.md (PyTorch's convention): each VJP is the adjoint of
  its JVP for ``Re<a, b>``; the rules below are derived as such adjoints.
* Hermitian inputs (``cholesky``, ``eigh``, ``pinv(hermitian=True)``) are read from
  one triangle, as LAPACK reads them (the imaginary part of the diagonal is ignored).
  The derivative is that of this function of the *whole* matrix: a tangent ``dA`` acts
  through ``tril(dA, -1) + tril(dA, -1)^H + Re diag(dA)``, and cotangents are folded
  back onto the read triangle.  (A symmetric perturbation of a symmetric matrix
  therefore gets the usual result; finite differences in arbitrary directions agree.)
* ``eigh``: the eigenvector derivative exists for *distinct* eigenvalues only (the
  factor ``1/(w_j - w_i)``); where two eigenvalues are exactly equal that factor is
  taken as 0 (double ``where``), so losses that depend on the eigenvalues only, or on
  gauge-invariant functions of the eigenvectors of distinct eigenvalues, have correct
  finite gradients everywhere, and others get a finite (not meaningful) value, never
  NaN.  Complex eigenvectors are defined up to a phase; derivatives assume the loss is
  invariant under ``v_j -> e^{i t} v_j`` (as PyTorch documents).
* ``svd``: the same holds with ``1/(s_j^2 - s_i^2)`` (distinct singular values) and
  ``1/s_i`` (nonzero singular values, for the ``m != n`` projection terms and the
  complex phase term).  Losses of the singular values only (``svdvals``, norms) have
  correct gradients also at repeated singular values.  ``full_matrices=True`` with
  ``m != n`` is not differentiable (the extra columns are not unique): its rules raise.
* ``det``/``slogdet``/``solve``: the derivative uses ``a^{-1}`` and is not available at
  exactly singular matrices.
* ``qr``: differentiable for ``m >= n`` (reduced) and ``m < n``, full rank.
"""
from __future__ import annotations

import numpy as np

from ..core import Primitive, ShapedArray, zero
from ..core.dtypes import kind_of, as_numpy_dtype
from ..core.dtypes import real_dtype
from ..kernels import backend_for
from .structural import transpose, broadcast_to, reduce_sum, expand_dims, concatenate
from .elementwise import add, sub, mul, div, neg
from .convert import convert_element_type, real, imag
from .select import where
from .logic import eq
from .dot import dot_general
from ._rules import conj, batch_size, batched_front
from ..core import Tracer
from .indexing import gather

__all__ = ["solve", "triangular_solve", "cholesky", "eigh", "svd", "qr", "det", "slogdet",
           "pinv"]


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


def _hermitian_part(t, lower):
    """The Hermitian matrix LAPACK reads from one triangle of ``t``:
    ``tril(t, -1) + tril(t, -1)^H + Re diag(t)`` (``lower``), or the upper analogue."""
    n = t.shape[-1]
    off = where(_tri_mask(n, n, lower, -1 if lower else 1, t), t, 0.0)
    d = where(_eye_mask(n, t), t, 0.0)
    if kind_of(t) == "c":
        d = _cast(real(d), t.dtype)
    return add(add(off, _H(off)), d)


def _hermitian_part_T(g, lower):
    """Adjoint (for ``Re<a, b>``) of :func:`_hermitian_part`: ``tril(g + g^H, -1) +
    Re diag(g)`` (``lower``), or the upper analogue."""
    n = g.shape[-1]
    off = where(_tri_mask(n, n, lower, -1 if lower else 1, g), add(g, _H(g)), 0.0)
    d = where(_eye_mask(n, g), g, 0.0)
    if kind_of(g) == "c":
        d = _cast(real(d), g.dtype)
    return add(off, d)


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
# solve
# ---------------------------------------------------------------------------------
solve_p = _batch_front(Primitive("solve"))


@solve_p.def_impl
def _solve_impl(a, b):
    return backend_for(a, b).xp.linalg.solve(a, b)


@solve_p.def_abstract_eval
def _solve_abstract(a, b):
    return ShapedArray(b.shape, np.result_type(a.dtype, b.dtype))


@solve_p.def_jvp
def _solve_jvp(primals, tangents):
    a, b = primals
    ta, tb = tangents
    x = solve_p.bind(a, b)
    if ta is zero and tb is zero:
        return x, zero
    rhs = tb
    if ta is not zero:
        rhs = neg(_mm(ta, x)) if rhs is zero else sub(rhs, _mm(ta, x))
    return x, _cast(solve_p.bind(a, _cast(rhs, x.dtype)), x.dtype)


@solve_p.def_vjp
def _solve_vjp(ct, x, primals, needs):
    a, b = primals
    gb = solve_p.bind(_H(a), ct)
    res = [None, None]
    if needs[0]:
        res[0] = _cast(neg(_mm(gb, _H(x))), a.dtype)
    if needs[1]:
        res[1] = _cast(gb, b.dtype)
    return res


def solve(a, b):
    """``a^{-1} b`` for ``a`` of shape ``(..., n, n)`` and ``b`` of ``(..., n, k)`` (equal
    batch shapes, equal dtypes)."""
    return solve_p.bind(a, b)


# ---------------------------------------------------------------------------------
# triangular_solve
# ---------------------------------------------------------------------------------
triangular_solve_p = _batch_front(Primitive("triangular_solve"))


@triangular_solve_p.def_impl
def _trsolve_impl(a, b, *, lower):
    be = backend_for(a, b)
    if a.shape[-1] == 0 or b.size == 0:
        return be.xp.zeros(b.shape, np.result_type(a.dtype, b.dtype))
    if be.xp is np:
        try:
            from scipy.linalg import solve_triangular
        except ImportError:  # SciPy is optional: a dense solve of the triangle
            return np.linalg.solve(np.tril(a) if lower else np.triu(a), b)
        if a.ndim == 2:
            return solve_triangular(a, b, lower=lower, check_finite=False)
        # one call per matrix (older SciPy versions do not broadcast over batch axes)
        a2 = a.reshape((-1,) + a.shape[-2:])
        b2 = b.reshape((-1,) + b.shape[-2:])
        out = np.empty(b2.shape, np.result_type(a.dtype, b.dtype))
        for i in range(a2.shape[0]):
            out[i] = solve_triangular(a2[i], b2[i], lower=lower, check_finite=False)
        return out.reshape(b.shape)
    # GPU: CuPy's batched LU solve of the triangle (cupyx's solve_triangular is 2-D only)
    xp = be.xp  # pragma: no cover - GPU only
    return xp.linalg.solve(xp.tril(a) if lower else xp.triu(a), b)  # pragma: no cover


triangular_solve_p.def_abstract_eval(
    lambda a, b, *, lower: ShapedArray(b.shape, np.result_type(a.dtype, b.dtype)))


@triangular_solve_p.def_jvp
def _trsolve_jvp(primals, tangents, *, lower):
    a, b = primals
    ta, tb = tangents
    x = triangular_solve_p.bind(a, b, lower=lower)
    if ta is zero and tb is zero:
        return x, zero
    rhs = tb
    if ta is not zero:
        d = _mm(_tri(ta, lower), x)
        rhs = neg(d) if rhs is zero else sub(rhs, d)
    return x, _cast(triangular_solve_p.bind(a, _cast(rhs, x.dtype), lower=lower), x.dtype)


@triangular_solve_p.def_vjp
def _trsolve_vjp(ct, x, primals, needs, *, lower):
    a, b = primals
    gb = triangular_solve_p.bind(_H(a), ct, lower=not lower)
    res = [None, None]
    if needs[0]:
        res[0] = _cast(_tri(neg(_mm(gb, _H(x))), lower), a.dtype)
    if needs[1]:
        res[1] = _cast(gb, b.dtype)
    return res


def triangular_solve(a, b, lower):
    """``a^{-1} b`` for a lower (``lower=True``) or upper triangular ``a`` of shape
    ``(..., n, n)`` and ``b`` of ``(..., n, k)``; the other triangle is not read."""
    return triangular_solve_p.bind(a, b, lower=bool(lower))


# ---------------------------------------------------------------------------------
# cholesky
# ---------------------------------------------------------------------------------
cholesky_p = _batch_front(Primitive("cholesky"))


@cholesky_p.def_impl
def _chol_impl(a):
    return backend_for(a).xp.linalg.cholesky(a)


cholesky_p.def_abstract_eval(lambda a: ShapedArray(a.shape, a.dtype))


def _phi(x):
    """Strict lower triangle plus half the diagonal (Murray 2016's Φ); self-adjoint."""
    n = x.shape[-1]
    return add(where(_tri_mask(n, n, True, -1, x), x, 0.0),
               mul(where(_eye_mask(n, x), x, 0.0), 0.5))


@cholesky_p.def_jvp
def _chol_jvp(primals, tangents):
    (a,), (ta,) = primals, tangents
    L = cholesky_p.bind(a)
    if ta is zero:
        return L, zero
    h = _cast(_hermitian_part(ta, True), L.dtype)
    tmp = triangular_solve(L, h, True)                      # L^{-1} dA
    x = _H(triangular_solve(L, _H(tmp), True))               # L^{-1} dA L^{-H}
    return L, _mm(L, _phi(x))


@cholesky_p.def_vjp
def _chol_vjp(ct, L, primals, needs):
    (a,) = primals
    m = _phi(_mm(_H(L), ct))                                 # Φ(L^H L̄)
    tmp = triangular_solve(_H(L), m, False)                  # L^{-H} M
    y = _H(triangular_solve(_H(L), _H(tmp), False))          # L^{-H} M L^{-1}
    return [_cast(_hermitian_part_T(y, True), a.dtype)]


def cholesky(a):
    """Lower Cholesky factor of the Hermitian positive definite matrices given by the
    lower triangles of ``a`` (``(..., n, n)``)."""
    return cholesky_p.bind(a)


# ---------------------------------------------------------------------------------
# eigh
# ---------------------------------------------------------------------------------
eigh_p = _batch_front(Primitive("eigh", multiple_results=True))


@eigh_p.def_impl
def _eigh_impl(a, *, lower):
    w, v = backend_for(a).xp.linalg.eigh(a, UPLO="L" if lower else "U")
    return w, v


@eigh_p.def_abstract_eval
def _eigh_abstract(a, *, lower):
    return (ShapedArray(a.shape[:-1], real_dtype(a.dtype)), ShapedArray(a.shape, a.dtype))


@eigh_p.def_jvp
def _eigh_jvp(primals, tangents, *, lower):
    (a,), (ta,) = primals, tangents
    w, v = eigh_p.bind(a, lower=lower)
    if ta is zero:
        return (w, v), (zero, zero)
    h = _cast(_hermitian_part(ta, lower), v.dtype)
    x = _mm(_H(v), _mm(h, v))                                # V^H dA V
    dw = _cast(real(_diag_part(x)) if kind_of(x) == "c" else _diag_part(x), w.dtype)
    dv = _mm(v, mul(_safe_recip_diff(w), x))                 # V (F ∘ X)
    return (w, v), (dw, dv)


@eigh_p.def_vjp
def _eigh_vjp(cts, ans, primals, needs, *, lower):
    (a,) = primals
    gw, gv = cts
    w, v = ans
    xbar = add(_diag_embed(gw), mul(_safe_recip_diff(w), _mm(_H(v), gv)))
    g = _mm(v, _mm(_cast(xbar, v.dtype), _H(v)))
    return [_cast(_hermitian_part_T(g, lower), a.dtype)]


def eigh(a, lower=True):
    """``(w, v)``: ascending eigenvalues (real) and unit eigenvectors (columns) of the
    Hermitian matrices given by the lower (or upper) triangles of ``a``."""
    return eigh_p.bind(a, lower=bool(lower))


# ---------------------------------------------------------------------------------
# svd
# ---------------------------------------------------------------------------------
svd_p = _batch_front(Primitive("svd", multiple_results=True))


@svd_p.def_impl
def _svd_impl(a, *, full_matrices):
    u, s, vh = backend_for(a).xp.linalg.svd(a, full_matrices=full_matrices, compute_uv=True)
    return u, s, vh


@svd_p.def_abstract_eval
def _svd_abstract(a, *, full_matrices):
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = tuple(a.shape[:-2])
    um, vn = (m, n) if full_matrices else (k, k)
    return (ShapedArray(batch + (m, um), a.dtype), ShapedArray(batch + (k,), real_dtype(a.dtype)),
            ShapedArray(batch + (vn, n), a.dtype))


def _svd_check(a, full_matrices):
    m, n = a.shape[-2:]
    if full_matrices and m != n:
        raise NotImplementedError(
            "the derivative of svd with full_matrices=True is not defined for non-square "
            f"matrices (shape {tuple(a.shape)}): the extra singular vectors are not unique; "
            "use full_matrices=False")


@svd_p.def_jvp
def _svd_jvp(primals, tangents, *, full_matrices):
    (a,), (ta,) = primals, tangents
    u, s, vh = svd_p.bind(a, full_matrices=full_matrices)
    if ta is zero:
        return (u, s, vh), (zero, zero, zero)
    _svd_check(a, full_matrices)
    m, n = a.shape[-2:]
    ta = _cast(ta, a.dtype)
    cx = kind_of(a) == "c"
    v = _H(vh)
    nd = len(s.shape)
    s_row = _cast(expand_dims(s, (nd - 1,)), a.dtype)     # (..., 1, k): scales columns
    s_col = _cast(expand_dims(s, (nd,)), a.dtype)         # (..., k, 1): scales rows
    dav = _mm(ta, v)
    dp = _mm(_H(u), dav)                                  # U^H dA V
    ds = _cast(real(_diag_part(dp)) if cx else _diag_part(dp), s.dtype)
    f = _safe_recip_diff(mul(s, s))                       # 1 / (s_j^2 - s_i^2)
    sinv = _safe_recip(s)
    sinv_row = _cast(expand_dims(sinv, (nd - 1,)), a.dtype)
    dps = mul(dp, s_row)
    sdp = mul(s_col, dp)
    inner_u = mul(f, add(dps, _H(dps)))
    if cx:
        inner_u = add(inner_u, mul(mul(sub(dp, _H(dp)), 0.5),
                                   where(_eye_mask(s.shape[-1], s), sinv_row, 0.0)))
    du = _mm(u, inner_u)
    dv = _mm(v, mul(f, add(sdp, _H(sdp))))
    if m > n:
        du = add(du, mul(sub(dav, _mm(u, dp)), sinv_row))
    if n > m:
        dahu = _mm(_H(ta), u)
        dv = add(dv, mul(sub(dahu, _mm(v, _H(dp))), sinv_row))
    return (u, s, vh), (du, ds, _H(dv))


@svd_p.def_vjp
def _svd_vjp(cts, ans, primals, needs, *, full_matrices):
    (a,) = primals
    _svd_check(a, full_matrices)
    gu, gs, gvh = cts
    u, s, vh = ans
    m, n = a.shape[-2:]
    cx = kind_of(a) == "c"
    v = _H(vh)
    gv = _H(gvh)
    nd = len(s.shape)
    s_row = _cast(expand_dims(s, (nd - 1,)), a.dtype)
    s_col = _cast(expand_dims(s, (nd,)), a.dtype)
    f = _safe_recip_diff(mul(s, s))
    sinv = _safe_recip(s)
    sinv_col = _cast(expand_dims(sinv, (nd,)), a.dtype)
    j = _mm(_H(u), gu)
    k = _mm(_H(v), gv)
    jf = mul(f, j)
    kf = mul(f, k)
    pbar = add(mul(add(jf, _H(jf)), s_row), mul(s_col, add(kf, _H(kf))))
    pbar = add(pbar, _cast(_diag_embed(gs), a.dtype))
    if cx:
        pbar = add(pbar, mul(mul(sub(j, _H(j)), 0.5), where(_eye_mask(s.shape[-1], s),
                                                             _mT(sinv_col), 0.0)))
    g = _mm(u, _mm(pbar, vh))
    if m > n:
        g = add(g, _mm(mul(sub(gu, _mm(u, j)), _mT(sinv_col)), vh))
    if n > m:
        g = add(g, _mm(u, mul(sinv_col, _H(sub(gv, _mm(v, k))))))
    return [_cast(g, a.dtype)]


def svd(a, full_matrices=False):
    """``(u, s, vh)`` with ``a = u @ diag(s) @ vh``, ``s`` descending (real)."""
    return svd_p.bind(a, full_matrices=bool(full_matrices))


# ---------------------------------------------------------------------------------
# qr
# ---------------------------------------------------------------------------------
qr_p = _batch_front(Primitive("qr", multiple_results=True))


@qr_p.def_impl
def _qr_impl(a, *, complete):
    q, r = backend_for(a).xp.linalg.qr(a, mode="complete" if complete else "reduced")
    return q, r


@qr_p.def_abstract_eval
def _qr_abstract(a, *, complete):
    m, n = a.shape[-2:]
    k = m if complete else min(m, n)
    batch = tuple(a.shape[:-2])
    return ShapedArray(batch + (m, k), a.dtype), ShapedArray(batch + (k, n), a.dtype)


def _qr_check(a, complete):
    m, n = a.shape[-2:]
    if complete and m > n:
        raise NotImplementedError(
            f"the derivative of qr with mode='complete' is not defined for m > n (shape "
            f"{tuple(a.shape)}): the extra columns of q are not unique; use mode='reduced'")


def _cols(x, start, stop):
    return gather(x, (Ellipsis, slice(start, stop)))


def _qr_square_jvp(q, r, da):
    """``(dq, dr)`` of ``a = q r`` with ``r`` square upper triangular (``m >= n``)."""
    x = _H(triangular_solve(_H(r), _H(da), True))          # dA R^{-1}
    c = _mm(_H(q), x)
    lt = _tri(c, True, -1)
    om = sub(lt, _H(lt))
    if kind_of(c) == "c":
        om = add(om, _i_imag_diag(c))
    dq = add(_mm(q, sub(om, c)), x)
    dr = _mm(sub(c, om), r)
    return dq, dr


def _qr_square_vjp(q, r, gq, gr):
    m_ = sub(_mm(_H(q), gq), _mm(gr, _H(r)))
    cbar = sub(_tri(sub(m_, _H(m_)), True, -1), m_)
    if kind_of(m_) == "c":
        cbar = add(cbar, _i_imag_diag(m_))
    xbar = add(_mm(q, cbar), gq)
    return _H(triangular_solve(r, _H(xbar), False))         # X̄ R^{-H}


@qr_p.def_jvp
def _qr_jvp(primals, tangents, *, complete):
    (a,), (ta,) = primals, tangents
    q, r = qr_p.bind(a, complete=complete)
    if ta is zero:
        return (q, r), (zero, zero)
    _qr_check(a, complete)
    ta = _cast(ta, a.dtype)
    m, n = a.shape[-2:]
    if m >= n:
        dq, dr = _qr_square_jvp(q, r, ta)
        return (q, r), (dq, dr)
    r1 = _cols(r, 0, m)
    dq, dr1 = _qr_square_jvp(q, r1, _cols(ta, 0, m))
    dr2 = add(_mm(_H(dq), _cols(a, m, n)), _mm(_H(q), _cols(ta, m, n)))
    return (q, r), (dq, concatenate([dr1, dr2], len(a.shape) - 1))


@qr_p.def_vjp
def _qr_vjp(cts, ans, primals, needs, *, complete):
    (a,) = primals
    _qr_check(a, complete)
    gq, gr = cts
    q, r = ans
    m, n = a.shape[-2:]
    if m >= n:
        return [_cast(_qr_square_vjp(q, r, gq, gr), a.dtype)]
    gr1, gr2 = _cols(gr, 0, m), _cols(gr, m, n)
    ga2 = _mm(q, gr2)
    gq = add(gq, _mm(_cols(a, m, n), _H(gr2)))
    ga1 = _qr_square_vjp(q, _cols(r, 0, m), gq, gr1)
    return [_cast(concatenate([ga1, ga2], len(a.shape) - 1), a.dtype)]


def qr(a, complete=False):
    """``(q, r)``: reduced (or complete) QR decomposition of ``(..., m, n)`` matrices."""
    return qr_p.bind(a, complete=bool(complete))


# ---------------------------------------------------------------------------------
# det, slogdet
# ---------------------------------------------------------------------------------
def _inv_of(a):
    return solve(a, _eye_like(a))


det_p = _batch_front(Primitive("det"))


@det_p.def_impl
def _det_impl(a):
    return backend_for(a).xp.linalg.det(a)


det_p.def_abstract_eval(lambda a: ShapedArray(a.shape[:-2], a.dtype))


@det_p.def_jvp
def _det_jvp(primals, tangents):
    (a,), (ta,) = primals, tangents
    d = det_p.bind(a)
    if ta is zero:
        return d, zero
    return d, mul(d, _trace(solve(a, _cast(ta, a.dtype))))


@det_p.def_vjp
def _det_vjp(ct, d, primals, needs):
    (a,) = primals
    nd = len(a.shape)
    coef = expand_dims(mul(ct, conj(d)), (nd - 2, nd - 1))
    return [_cast(mul(coef, _H(_inv_of(a))), a.dtype)]


def det(a):
    """Determinant of ``(..., n, n)`` matrices."""
    return det_p.bind(a)


slogdet_p = _batch_front(Primitive("slogdet", multiple_results=True))


@slogdet_p.def_impl
def _slogdet_impl(a):
    sign, logabs = backend_for(a).xp.linalg.slogdet(a)
    return sign, logabs


slogdet_p.def_abstract_eval(lambda a: (ShapedArray(a.shape[:-2], a.dtype),
                                       ShapedArray(a.shape[:-2], real_dtype(a.dtype))))


@slogdet_p.def_jvp
def _slogdet_jvp(primals, tangents):
    (a,), (ta,) = primals, tangents
    sign, logabs = slogdet_p.bind(a)
    if ta is zero:
        return (sign, logabs), (zero, zero)
    t = _trace(solve(a, _cast(ta, a.dtype)))
    if kind_of(a) == "c":
        dlog = real(t)
        dsign = mul(sign, mul(_cast(imag(t), a.dtype), 1j))
        return (sign, logabs), (dsign, dlog)
    return (sign, logabs), (zero, t)


@slogdet_p.def_vjp
def _slogdet_vjp(cts, ans, primals, needs):
    (a,) = primals
    gsign, glog = cts
    sign, _ = ans
    coef = _cast(glog, a.dtype)
    if kind_of(a) == "c":
        # d sign = sign * i Im(t): adjoint coefficient -i Im(conj(gsign) sign)
        coef = sub(coef, mul(_cast(imag(mul(conj(gsign), sign)), a.dtype), 1j))
    nd = len(a.shape)
    coef = expand_dims(coef, (nd - 2, nd - 1))
    return [_cast(mul(coef, _H(_inv_of(a))), a.dtype)]


def slogdet(a):
    """``(sign, log|det|)`` of ``(..., n, n)`` matrices."""
    return slogdet_p.bind(a)


# ---------------------------------------------------------------------------------
# pinv
# ---------------------------------------------------------------------------------
pinv_p = _batch_front(Primitive("pinv"))


@pinv_p.def_impl
def _pinv_impl(a, *, rcond, hermitian):
    be = backend_for(a)
    if be.xp is not np:  # CuPy, Dask, array-API arrays
        if hermitian:
            a = be.xp.asarray(_hermitian_dense(a))
        return be.xp.linalg.pinv(a, rcond=rcond)
    return np.linalg.pinv(a, rcond=rcond, hermitian=hermitian)


def _hermitian_dense(a):  # CuPy, Dask, array-API arrays
    xp = backend_for(a).xp
    low = xp.tril(a, -1)
    d = xp.real(xp.diagonal(a, axis1=-2, axis2=-1))
    return low + xp.conj(xp.swapaxes(low, -1, -2)) + d[..., None] * xp.eye(a.shape[-1])


@pinv_p.def_abstract_eval
def _pinv_abstract(a, *, rcond, hermitian):
    return ShapedArray(tuple(a.shape[:-2]) + (a.shape[-1], a.shape[-2]), a.dtype)


@pinv_p.def_jvp
def _pinv_jvp(primals, tangents, *, rcond, hermitian):
    (a,), (ta,) = primals, tangents
    x = pinv_p.bind(a, rcond=rcond, hermitian=hermitian)
    if ta is zero:
        return x, zero
    ta = _cast(ta, a.dtype)
    if hermitian:
        ta = _hermitian_part(ta, True)
        a = _hermitian_part(a, True)
    dah = _H(ta)
    t1 = neg(_mm(x, _mm(ta, x)))
    t2 = _mm(_mm(x, _H(x)), sub(dah, _mm(_mm(dah, a), x)))
    t3 = _mm(sub(dah, _mm(x, _mm(a, dah))), _mm(_H(x), x))
    return x, add(add(t1, t2), t3)


@pinv_p.def_vjp
def _pinv_vjp(ct, x, primals, needs, *, rcond, hermitian):
    (a,) = primals
    if hermitian:
        a = _hermitian_part(a, True)
    xh = _H(x)
    cth = _H(ct)
    g1 = neg(_mm(xh, _mm(ct, xh)))
    g2 = _mm(sub(cth, _mm(a, _mm(x, cth))), _mm(x, xh))
    g3 = _mm(_mm(xh, x), sub(cth, _mm(cth, _mm(x, a))))
    g = add(add(g1, g2), g3)
    if hermitian:
        g = _hermitian_part_T(g, True)
    return [_cast(g, a.dtype)]


def pinv(a, rcond=1e-15, hermitian=False):
    """Moore-Penrose pseudo-inverse of ``(..., m, n)`` matrices; singular values below
    ``rcond * s_max`` count as zero (NumPy's rule)."""
    return pinv_p.bind(a, rcond=float(rcond), hermitian=bool(hermitian))
