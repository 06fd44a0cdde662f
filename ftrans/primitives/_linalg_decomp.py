"""Matrix decompositions (:mod:`ftrans.primitives.linalg`): ``eigh``, ``svd`` and ``qr``."""
from __future__ import annotations

from ..core import Primitive, ShapedArray, zero
from ..core.dtypes import kind_of, real_dtype
from ..kernels import backend_for
from .structural import expand_dims, concatenate
from .elementwise import add, sub, mul
from .convert import real
from .select import where
from .indexing import gather
from ._linalg_common import (
    _H, _batch_front, _cast, _diag_embed, _diag_part, _eye_mask, _sym, _i_imag_diag, _mT,
    _mm, _safe_recip, _safe_recip_diff, _tri
)
from ._linalg_solve import triangular_solve

__all__ = ["eigh", "svd", "qr"]


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
    h = _cast(_sym(ta), v.dtype)  # (the one-triangle convention: _sym's docstring)
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
    return [_cast(_sym(g), a.dtype)]


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


# compiler lowering (ftrans.compiler._numba_linalg): one LAPACK call per matrix
eigh_p.lowering = {"kind": "linalg", "op": "eigh"}
svd_p.lowering = {"kind": "linalg", "op": "svd"}
qr_p.lowering = {"kind": "linalg", "op": "qr"}
