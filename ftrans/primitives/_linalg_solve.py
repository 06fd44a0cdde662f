"""Linear systems (:mod:`ftrans.primitives.linalg`): ``solve``, ``triangular_solve`` and
``cholesky``."""
from __future__ import annotations

import numpy as np

from ..core import Primitive, ShapedArray, zero
from ..kernels import backend_for
from .elementwise import add, sub, mul, neg
from .select import where
from ._linalg_common import (
    _H, _batch_front, _cast, _eye_mask, _sym, _mm, _tri,
    _tri_mask
)

__all__ = ["solve", "triangular_solve", "cholesky"]


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
    h = _cast(_sym(ta), L.dtype)  # (the one-triangle convention: _sym's docstring)
    tmp = triangular_solve(L, h, True)                      # L^{-1} dA
    x = _H(triangular_solve(L, _H(tmp), True))               # L^{-1} dA L^{-H}
    return L, _mm(L, _phi(x))


@cholesky_p.def_vjp
def _chol_vjp(ct, L, primals, needs):
    (a,) = primals
    m = _phi(_mm(_H(L), ct))                                 # Φ(L^H L̄)
    tmp = triangular_solve(_H(L), m, False)                  # L^{-H} M
    y = _H(triangular_solve(_H(L), _H(tmp), False))          # L^{-H} M L^{-1}
    return [_cast(_sym(y), a.dtype)]


def cholesky(a):
    """Lower Cholesky factor of the Hermitian positive definite matrices given by the
    lower triangles of ``a`` (``(..., n, n)``)."""
    return cholesky_p.bind(a)


# compiler lowering (ftrans.compiler._numba_linalg): one LAPACK call per matrix
solve_p.lowering = {"kind": "linalg", "op": "solve"}
triangular_solve_p.lowering = {"kind": "linalg", "op": "triangular_solve"}
cholesky_p.lowering = {"kind": "linalg", "op": "cholesky"}
