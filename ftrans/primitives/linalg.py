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
    VJP ``Ā = L^{-H} Φ(L^H L̄) L^{-1}`` made Hermitian (Murray 2016,
    "Differentiation of the Cholesky decomposition").  Like ``eigh`` and
    ``pinv(hermitian=True)`` it is differentiated as ``a -> f((a + a^H)/2)`` (JAX's and
    PyTorch's convention): tangents and cotangents pass through ``(t + t^H)/2``.
``eigh(a, lower)``
    ``(w, v)``: ascending eigenvalues and unit eigenvectors of the Hermitian matrix
    given by one triangle (derivative: of ``a -> eigh((a + a^H)/2)``, as cholesky).
    With ``X = V^H dA V``: ``dw = Re diag(X)``,
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

The primitives live one family per file: ``_linalg_solve.py`` (solve, triangular_solve,
cholesky), ``_linalg_decomp.py`` (eigh, svd, qr), ``_linalg_eig.py`` (eig: general
eigendecomposition, complex results), ``_linalg_matfun.py`` (sylvester, the matrix
functions expm/logm/sqrtm, the pivoted LU: SciPy's, for :mod:`ftrans.scipy.linalg`), this file (det, slogdet, pinv), and the
helpers they share in ``_linalg_common.py``.
"""
from __future__ import annotations

import numpy as np

from ..core import Primitive, ShapedArray, zero
from ..core.dtypes import kind_of
from ..core.dtypes import real_dtype
from ..kernels import backend_for
from .structural import expand_dims
from .elementwise import add, sub, mul, neg
from .convert import real, imag
from ._rules import conj
from ._linalg_common import (
    _H, _batch_front, _cast, _eye_like, _hermitian_part, _hermitian_part_impl, _sym, _mm,
    _trace
)
from ._linalg_decomp import eigh, qr, svd
from ._linalg_solve import cholesky, solve, triangular_solve
from ._linalg_eig import eig
from ._linalg_matfun import sylvester, matfun, lu

__all__ = ["solve", "triangular_solve", "cholesky", "eigh", "eig", "svd", "qr", "det",
           "slogdet", "pinv", "sylvester", "matfun", "lu"]


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
            a = _hermitian_part_impl(a, lower=True)
        return be.xp.linalg.pinv(a, rcond=rcond)
    return np.linalg.pinv(a, rcond=rcond, hermitian=hermitian)


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
        ta = _sym(ta)
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
        g = _sym(g)
    return [_cast(g, a.dtype)]


def pinv(a, rcond=1e-15, hermitian=False):
    """Moore-Penrose pseudo-inverse of ``(..., m, n)`` matrices; singular values below
    ``rcond * s_max`` count as zero (NumPy's rule)."""
    return pinv_p.bind(a, rcond=float(rcond), hermitian=bool(hermitian))


# compiler lowering (ftrans.compiler._numba_linalg): one LAPACK call per matrix
det_p.lowering = {"kind": "linalg", "op": "det"}
slogdet_p.lowering = {"kind": "linalg", "op": "slogdet"}
pinv_p.lowering = {"kind": "linalg", "op": "pinv"}
