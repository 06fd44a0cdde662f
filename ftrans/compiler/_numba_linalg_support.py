"""@njit helpers that generated numba programs call for linear algebra numba's ``np.linalg``
lacks (imported by the generated modules, see ``_HEADER`` in ``_numba_modules.py``).

``_trsolve(a, b, lower)``: ``a^{-1} b`` for a triangular ``(n, n)`` ``a`` and ``(n, k)``
``b`` by forward (``lower``) or backward substitution, reading only ``a``'s triangle (what
``scipy.linalg.solve_triangular`` computes, LAPACK ``trtrs``; Golub & Van Loan,
*Matrix Computations*, 4th ed., algorithms 3.1.1-3.1.2).  A zero on the diagonal raises
``LinAlgError``, so the call reruns with the impls and raises SciPy's error.

``_solve``, ``_cholesky``, ``_det``, ``_slogdet``, ``_eigh``, ``_svd``, ``_qr``: numba's
``np.linalg`` functions behind ``@njit(cache=True)`` entry points.  numba compiles its
``@overload`` implementations anew in every process, and ``solve``'s copies of its operands
into Fortran order compile numba's string formatting with them (a slice assignment's
error message): 4-5 s of the first program in a process that solved a system.  Through
these wrappers numba compiles each signature once per installation and later processes
load its object code (as ``_numba_runtime_support`` does for ``np.dot``).

``_pinv(a, rcond, hermitian)``: NumPy's ``pinv`` on numba's SVD (or eigendecomposition).
``_lu(a)``: ``scipy.linalg.lu_factor``'s ``(lu, piv)`` and the row permutation, from
LAPACK's ``getrf`` through numba's own wrapper of SciPy's ``cython_lapack`` (the routine
SciPy's ``lu_factor`` calls: the same bits); a zero pivot raises ``LinAlgError``, so the
call reruns with the impls and SciPy's ``LinAlgWarning`` is given.

``_impl(name, *args, **params)``: the impl of the primitive ``name`` (``fft``: pocketfft,
numba has no ``np.fft``; ``eig``: NumPy's, whose eigenvector signs and phases numba's
LAPACK build need not reproduce), called from an ``objmode`` block of the generated
function (``objmode`` is re-exported for the generated modules), as a C-contiguous array.
"""
from __future__ import annotations

import numpy as np
from numba import njit, objmode
from numba.extending import overload

from ..core.primitive import all_primitives
from ..primitives._linalg_matfun import _lu_one

__all__ = ["_trsolve", "_impl", "objmode", "_solve", "_cholesky", "_det", "_slogdet", "_eigh",
           "_svd", "_qr", "_pinv", "_lu"]

_PRIMS: dict = {}   # name -> the primitive (the ones whose lowering kind is "objmode")


def _impl(name, *args, **params):
    """The results of primitive ``name``'s impl, a tuple of C-contiguous arrays (what the
    objmode block declares)."""
    p = _PRIMS.get(name) or _PRIMS.setdefault(name, all_primitives()[name])
    out = p.impl(*args, **params)
    return tuple(np.ascontiguousarray(o) for o in (out if p.multiple_results else (out,)))


@njit(cache=True, nogil=True)
def _trsolve(a, b, lower):  # pragma: no cover - runs compiled
    n, k = b.shape
    for r in range(n):  # LAPACK trtrs checks the diagonal first (the impl then raises)
        if a[r, r] == 0:
            raise np.linalg.LinAlgError("singular matrix")
    x = b.copy()
    for j in range(k):
        if lower:
            for r in range(n):
                s = x[r, j]
                for c in range(r):
                    s -= a[r, c] * x[c, j]
                x[r, j] = s / a[r, r]
        else:
            for r in range(n - 1, -1, -1):
                s = x[r, j]
                for c in range(r + 1, n):
                    s -= a[r, c] * x[c, j]
                x[r, j] = s / a[r, r]
    return x


# numba's np.linalg, cached per signature (module docstring) --------------------------
_cached = njit(cache=True, nogil=True)


@_cached
def _solve(a, b):  # pragma: no cover - runs compiled
    return np.linalg.solve(a, b)


@_cached
def _cholesky(a):  # pragma: no cover - runs compiled
    return np.linalg.cholesky(a)


@_cached
def _det(a):  # pragma: no cover - runs compiled
    return np.linalg.det(a)


@_cached
def _slogdet(a):  # pragma: no cover - runs compiled
    return np.linalg.slogdet(a)


@_cached
def _eigh(a):  # pragma: no cover - runs compiled
    return np.linalg.eigh(a)


@_cached
def _svd(a, full_matrices):  # pragma: no cover - runs compiled
    return np.linalg.svd(a, full_matrices)


@_cached
def _qr(a):  # pragma: no cover - runs compiled
    return np.linalg.qr(a)


@_cached
def _pinv(a, rcond, hermitian):  # pragma: no cover - runs compiled
    """NumPy's ``pinv`` of one matrix (numpy/linalg/_linalg.py, NumPy 2): the SVD of
    ``conj(a)`` (``hermitian``: its eigendecomposition, |eigenvalues| as the singular
    values, their signs moved into the right vectors), singular values at most
    ``rcond * max(s)`` dropped, ``vt.T @ (1/s * u.T)``.  (The order of equal singular
    values, which NumPy's argsort and numba's may settle differently, does not change
    the sum.)"""
    ac = np.conj(a)
    if hermitian:
        w, u = np.linalg.eigh(ac)
        s = np.abs(w)
        v = np.conj(u * np.sign(w))              # (vt.T: C-contiguous already)
    else:
        u, s, vt = np.linalg.svd(ac, False)
        v = np.ascontiguousarray(vt.T)
    cutoff = rcond * s.max()
    inv = np.zeros_like(s)
    for i in range(s.shape[0]):
        if s[i] > cutoff:
            inv[i] = 1 / s[i]
    return v @ (np.expand_dims(inv, 1) * u.T)   # (NumPy's order of the products)


def _lu_factor(a):  # pragma: no cover - replaced by the overload inside numba
    return _lu_one(a)   # (SciPy's lu_factor)


@overload(_lu_factor, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_lu_factor(a):
    # numba's LAPACK wrappers, as its own np.linalg.inv uses them (numba.np.linalg)
    from numba.np import linalg as nl
    getrf = nl._LAPACK().numba_xxgetrf(a.dtype)
    kind = ord(nl.get_blas_kind(a.dtype, "lu"))
    fint = nl.F_INT_nptype

    def impl(a):
        m, n = a.shape
        f = np.empty((n, m), a.dtype)      # a in column-major order: f[j, i] = a[i, j]
        for i in range(m):
            for j in range(n):
                f[j, i] = a[i, j]
        ipiv = np.empty(min(m, n), fint)
        if getrf(kind, m, n, f.ctypes, m, ipiv.ctypes) != 0:
            # a zero pivot: the call reruns with the impls, whose SciPy warns about it
            raise np.linalg.LinAlgError("lu: singular matrix")
        piv = np.empty(min(m, n), np.int32)
        perm = np.arange(m).astype(np.int32)
        for i in range(min(m, n)):
            p = ipiv[i] - 1                # LAPACK's 1-based row swaps, SciPy's 0-based
            piv[i] = p
            perm[i], perm[p] = perm[p], perm[i]
        return f.T, piv, perm
    return impl


@_cached
def _lu(a):  # pragma: no cover - runs compiled
    return _lu_factor(a)
