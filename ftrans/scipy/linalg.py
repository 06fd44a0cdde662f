"""``ftrans.scipy.linalg``: differentiable ``scipy.linalg`` functions.

Names, signatures and results follow ``scipy.linalg`` (SciPy's reference, "Linear
algebra"); every function is differentiable in its inexact array arguments (complex
included, DESIGN.md's convention), to any order, and works under ``vmap`` and ``jit``
(SciPy-backed primitives run eagerly inside ``jit``, as NumPy's linalg does).

* Matrix functions on the primitive ``matfun`` (:mod:`ftrans.primitives._linalg_matfun`,
  values from SciPy): :func:`expm` (Al-Mohy & Higham 2009; Fréchet derivative by the
  block-triangular identity ``expm([[A, E], [0, A]])``), :func:`logm` (the same identity),
  :func:`sqrtm` (derivative: the Sylvester equation ``S dS + dS S = dA``).
* Equations on the primitive ``sylvester``: :func:`solve_sylvester`,
  :func:`solve_continuous_lyapunov` (derivatives: another Sylvester equation).
* Triangular and factored solves on ``triangular_solve``: :func:`solve_triangular`,
  :func:`cho_factor`/:func:`cho_solve`, :func:`lu_factor`/:func:`lu_solve` (the LU on the
  primitive ``lu``: pivots are integers, not differentiable; ``lu_solve`` is
  differentiable in ``b`` and in the packed factors it is given, so a composition
  ``lu_solve(lu_factor(a), b)`` is differentiable in ``a`` too).
* Compositions: :func:`solve_banded` (the band expanded to a dense matrix, then
  :func:`solve`: ``O(n^3)``, not LAPACK's banded ``O(n (l + u)^2)``), :func:`block_diag`,
  :func:`polar` (``p = sqrtm(a^H a)``, ``u = a p^{-1}``: full column rank).
* From :mod:`ftrans.numpy.linalg`, the same function objects: ``solve``, ``inv``, ``det``,
  ``eigh``, ``svd``, ``lstsq``, ``pinv``, ``norm`` (NumPy's signatures; SciPy-only
  keywords such as ``assume_a`` are not accepted).  ``cholesky`` and ``qr`` are SciPy's
  own here because their defaults differ from NumPy's (SciPy's ``cholesky`` returns the
  upper factor, its ``qr`` the full ``Q``).
* :func:`householder_product`, :func:`geqrf`, :func:`ormqr` (LAPACK routines SciPy reaches as
  ``scipy.linalg.lapack.dorgqr``, ``dgeqrf``, ``dormqr``): Householder QR, composed.
* :func:`ldl_factor_packed`, :func:`ldl_solve_packed`: LAPACK's Bunch-Kaufman ``sytrf``/
  ``hetrf`` and ``sytrs``/``hetrs`` (packed factors; NumPy on concrete arrays, no
  derivative -- SciPy's own ``ldl`` returns unpacked factors).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import cast

import numpy as np

from ..core import Tracer
from .. import primitives as P
from ..primitives import linalg as _L
from ..primitives import _linalg_common as _LC
from ..primitives._linalg_matfun import perm_matrix as _perm_matrix
from .. import numpy as fnp
from ..numpy import linalg as _nl
from ..numpy.linalg import (solve, inv, det, eigh, svd, lstsq, pinv, norm, _common,
                            _assert_stacked_square)
from ..numpy import _funcs as F
from ..numpy._args import _ndarray
from ..numpy._indexing import take as _take
from ..typing import Array, ArrayLike
from ._householder import householder_product, geqrf, ormqr
from ._ldl import ldl_factor_packed, ldl_solve_packed

__all__ = ["expm", "logm", "sqrtm", "solve_sylvester", "solve_continuous_lyapunov",
           "solve_triangular", "solve_banded", "cho_factor", "cho_solve", "lu_factor",
           "lu_solve", "block_diag", "polar", "cholesky", "qr", "solve", "inv", "det", "eigh",
           "svd", "lstsq", "pinv", "norm", "householder_product", "geqrf", "ormqr",
           "ldl_factor_packed", "ldl_solve_packed"]


def _square(a: ArrayLike, name: str) -> Array:
    (am,) = _common(a)
    if am.ndim < 2 or am.shape[-1] != am.shape[-2]:
        raise ValueError(f"{name}: expected a square matrix (or a stack (..., n, n)), got "
                         f"shape {tuple(am.shape)}")
    return am


# ---------------------------------------------------------------------------------
# matrix functions
# ---------------------------------------------------------------------------------
def expm(A: ArrayLike) -> Array:
    """The matrix exponential (``scipy.linalg.expm``).

    Parameters
    ----------
    A : array_like
        ``(..., n, n)`` matrices.

    Returns
    -------
    Array
        ``A``'s shape and dtype (integers give float64).

    Raises
    ------
    ValueError
        For a non-square input.

    Notes
    -----
    Values: SciPy's scaling and squaring with Padé approximants (Al-Mohy & Higham 2009).
    Derivative: the Fréchet derivative ``L(A, E)``, the top-right block of
    ``expm([[A, E], [0, A]])`` (Higham 2008, "Functions of Matrices", Thm 3.6); the VJP
    is ``L(A^H, Ḡ)``.

    Examples
    --------
    >>> expm(np.zeros((2, 2)))
    array([[1., 0.],
           [0., 1.]])
    """
    return _L.matfun(_square(A, "expm"), "expm")


def _matfun(A: ArrayLike, fn: str, disp: bool, err: Callable[[Array, Array], Array]
            ) -> Array | tuple[Array, Array]:
    """``fn(A)`` and, unless ``disp``, SciPy's error estimate ``err(A, fn(A))``."""
    A = _square(A, fn)
    X = _L.matfun(A, fn)
    return X if disp else (X, err(A, X))


def logm(A: ArrayLike, disp: bool = True) -> Array | tuple[Array, Array]:
    """The principal matrix logarithm (``scipy.linalg.logm``).

    Parameters
    ----------
    A : array_like
        ``(..., n, n)`` matrices with no eigenvalues on the closed negative real axis;
        a real ``A`` must have a real logarithm (else pass a complex matrix).
    disp : bool, optional
        ``False`` also returns SciPy's error estimate
        ``norm(expm(logm(A)) - A, 1) / norm(A, 1)``.

    Returns
    -------
    logA : Array
        ``A``'s shape.
    errest : Array
        The error estimate (only with ``disp=False``).

    Raises
    ------
    ValueError
        For a non-square input, or a real ``A`` without a real logarithm.

    Notes
    -----
    Derivative: the block-triangular identity, as :func:`expm` (``logm`` of a ``2n x
    2n`` matrix).

    Examples
    --------
    >>> logm(np.eye(2) * np.e)
    array([[1., 0.],
           [0., 1.]])
    """
    return _matfun(A, "logm", disp,
                   lambda A, L: fnp.divide(norm(fnp.subtract(expm(L), A), 1), norm(A, 1)))


def sqrtm(A: ArrayLike, disp: bool = True) -> Array | tuple[Array, Array]:
    """The principal matrix square root ``S`` with ``S @ S = A`` (``scipy.linalg.sqrtm``).

    Parameters
    ----------
    A : array_like
        ``(..., n, n)`` matrices.  A real ``A`` with a negative real eigenvalue has no
        real principal root (pass a complex matrix).
    disp : bool, optional
        ``False`` also returns SciPy's error estimate
        ``norm(S @ S - A, "fro")**2 / norm(A, "fro")``.

    Returns
    -------
    sqrtA : Array
        ``A``'s shape.
    errest : Array
        The error estimate (only with ``disp=False``).

    Raises
    ------
    ValueError
        For a non-square input, or a real ``A`` without a real principal root.

    Notes
    -----
    Derivative: ``dS`` solves ``S dS + dS S = dA`` (a Sylvester equation; Higham 2008,
    (6.4)); the VJP solves ``S^H Ā + Ā S^H = S̄``.

    Examples
    --------
    >>> sqrtm([[4.0, 0.0], [0.0, 9.0]])
    array([[2., 0.],
           [0., 3.]])
    """
    def err(A: Array, S: Array) -> Array:
        r = norm(fnp.subtract(F.matmul(S, S), A), "fro")
        return fnp.divide(fnp.multiply(r, r), norm(A, "fro"))
    return _matfun(A, "sqrtm", disp, err)


# ---------------------------------------------------------------------------------
# Sylvester and Lyapunov equations
# ---------------------------------------------------------------------------------
def solve_sylvester(a: ArrayLike, b: ArrayLike, q: ArrayLike) -> Array:
    """Solve the Sylvester equation ``a x + x b = q`` (``scipy.linalg.solve_sylvester``).

    Parameters
    ----------
    a : array_like
        ``(..., n, n)``.
    b : array_like
        ``(..., m, m)``.
    q : array_like
        ``(..., n, m)``; the batch axes of the three broadcast.

    Returns
    -------
    Array
        ``x``, ``(..., n, m)``.

    Raises
    ------
    ValueError
        For mismatched shapes.

    Notes
    -----
    Derivative: ``a dx + dx b = dq - da x - x db``; VJP ``q̄`` solves ``a^H q̄ + q̄ b^H =
    x̄``, ``ā = -q̄ x^H``, ``b̄ = -x^H q̄``.  Unique solution when ``a`` and ``-b`` share
    no eigenvalue.

    Examples
    --------
    >>> solve_sylvester(np.eye(2), np.eye(2), np.ones((2, 2)))
    array([[0.5, 0.5],
           [0.5, 0.5]])
    """
    am, bm, qm = _common(a, b, q)
    if am.ndim < 2 or bm.ndim < 2 or qm.ndim < 2 or am.shape[-1] != am.shape[-2] or \
            bm.shape[-1] != bm.shape[-2] or tuple(qm.shape[-2:]) != (am.shape[-1], bm.shape[-1]):
        raise ValueError(f"solve_sylvester: expected a (n, n), b (m, m), q (n, m), got "
                         f"shapes {tuple(am.shape)}, {tuple(bm.shape)}, {tuple(qm.shape)}")
    batch = np.broadcast_shapes(tuple(am.shape[:-2]), tuple(bm.shape[:-2]), tuple(qm.shape[:-2]))
    am, bm, qm = (x if tuple(x.shape[:-2]) == batch else
                  P.broadcast_to(x, batch + tuple(x.shape[-2:])) for x in (am, bm, qm))
    return _L.sylvester(am, bm, qm)


def solve_continuous_lyapunov(a: ArrayLike, q: ArrayLike) -> Array:
    """Solve ``a x + x a^H = q`` (``scipy.linalg.solve_continuous_lyapunov``).

    :func:`solve_sylvester` with ``b = a^H``.

    Parameters
    ----------
    a : array_like
        ``(..., n, n)``.
    q : array_like
        ``(..., n, n)``.

    Returns
    -------
    Array
        ``x``, ``(..., n, n)``.

    Raises
    ------
    ValueError
        For mismatched shapes.

    Examples
    --------
    >>> solve_continuous_lyapunov(-np.eye(2), -2 * np.eye(2))
    array([[1., 0.],
           [0., 1.]])
    """
    a = _ndarray(a)
    return solve_sylvester(a, _LC._H(_common(a)[0]), q)


# ---------------------------------------------------------------------------------
# triangular, Cholesky and LU solves
# ---------------------------------------------------------------------------------
_TRANS = {0: 0, "N": 0, 1: 1, "T": 1, 2: 2, "C": 2}


def _rhs(a: Array, b: Array, name: str) -> tuple[Array, Array, bool]:
    """``b`` as ``(..., n, k)`` (a vector gets a trailing axis) against ``a``."""
    vec = b.ndim == a.ndim - 1
    if vec:
        b = P.expand_dims(b, (b.ndim,))
    if b.ndim != a.ndim or b.shape[-2] != a.shape[-1]:
        raise ValueError(f"{name}: shapes of a {tuple(a.shape)} and b {tuple(b.shape)} are "
                         f"incompatible (expected b of shape (..., {a.shape[-1]}) or "
                         f"(..., {a.shape[-1]}, k))")
    a, b = _nl._bcast_batch(a, b)
    return a, b, vec


def _unrhs(x: Array, vec: bool) -> Array:
    return P.squeeze(x, (x.ndim - 1,)) if vec else x


def _tri_solve(a: Array, b: Array, lower: bool, trans: int) -> Array:
    """``op(a)^{-1} b`` with ``op`` = identity, transpose, conjugate transpose."""
    if trans == 0:
        return _L.triangular_solve(a, b, lower)
    at = _LC._mT(a) if trans == 1 else _LC._H(a)
    return _L.triangular_solve(at, b, not lower)


def solve_triangular(a: ArrayLike, b: ArrayLike, trans: int | str = 0, lower: bool = False,
                     unit_diagonal: bool = False, overwrite_b: bool = False,
                     check_finite: bool = True) -> Array:
    """Solve ``op(a) x = b`` for triangular ``a`` (``scipy.linalg.solve_triangular``).

    Parameters
    ----------
    a : array_like
        ``(..., n, n)``; only the triangle named by ``lower`` is read (and
        differentiated).
    b : array_like
        ``(..., n)`` or ``(..., n, k)``.
    trans : {0, 1, 2, "N", "T", "C"}, optional
        Solve with ``a``, ``a^T`` or ``a^H``.
    lower : bool, optional
        ``a`` is lower (default: upper) triangular.
    unit_diagonal : bool, optional
        The diagonal of ``a`` is taken as ones (not read).
    overwrite_b, check_finite : bool, optional
        Accepted and ignored (arrays are never modified).

    Returns
    -------
    Array
        ``x``, ``b``'s shape.

    Raises
    ------
    ValueError
        For a bad ``trans`` or incompatible shapes.

    Notes
    -----
    Derivative: that of the ``triangular_solve`` primitive (``dx = -op(a)^{-1} d op(a) x
    + op(a)^{-1} db``, the cotangent of ``a`` projected on the read triangle).

    Examples
    --------
    >>> solve_triangular([[2.0, 0.0], [1.0, 1.0]], [2.0, 3.0], lower=True)
    array([1., 2.])
    """
    if trans not in _TRANS:
        raise ValueError(f"solve_triangular: trans must be 0, 1, 2, 'N', 'T' or 'C', got "
                         f"{trans!r}")
    am, bm = _common(a, b)
    _assert_stacked_square(am)
    am, bm, vec = _rhs(am, bm, "solve_triangular")
    if unit_diagonal:
        am = P.where(_LC._eye_mask(am.shape[-1], am), 1.0, am)
    return _unrhs(_tri_solve(am, bm, bool(lower), _TRANS[trans]), vec)


def solve_banded(l_and_u: tuple[int, int], ab: ArrayLike, b: ArrayLike,
                 overwrite_ab: bool = False, overwrite_b: bool = False,
                 check_finite: bool = True) -> Array:
    """Solve ``a x = b`` for ``a`` in band storage (``scipy.linalg.solve_banded``).

    The band storage: ``ab[u + i - j, j] == a[i, j]``.

    Parameters
    ----------
    l_and_u : (int, int)
        The numbers of sub- and super-diagonals.
    ab : array_like
        ``(l + u + 1, n)``, the band.
    b : array_like
        ``(n,)`` or ``(n, k)``.
    overwrite_ab, overwrite_b, check_finite : bool, optional
        Accepted and ignored.

    Returns
    -------
    Array
        ``x``, ``b``'s shape.

    Raises
    ------
    ValueError
        For inconsistent shapes.

    Notes
    -----
    The band is expanded to the dense ``a`` (a gather and a mask; entries of ``ab``
    outside the band are not read, as in LAPACK) and solved by :func:`solve`:
    differentiable in ``ab`` and ``b``, ``O(n^3)``.

    Examples
    --------
    >>> solve_banded((1, 0), [[1.0, 1.0], [1.0, 0.0]], [1.0, 2.0])
    array([1., 1.])
    """
    lo, up = (int(v) for v in l_and_u)
    abm, bm = _common(ab, b)
    if abm.ndim != 2 or abm.shape[0] != lo + up + 1:
        raise ValueError(f"solve_banded: ab must have shape (l + u + 1, n) = "
                         f"({lo + up + 1}, n), got {tuple(abm.shape)}")
    n = abm.shape[1]
    if bm.ndim not in (1, 2) or bm.shape[0] != n:
        raise ValueError(f"solve_banded: shape of ab {tuple(abm.shape)} and b "
                         f"{tuple(bm.shape)} are incompatible (b must be (n,) or (n, k))")
    i, j = np.indices((n, n))
    d = up + i - j
    inside = (d >= 0) & (d <= lo + up)
    dense = P.where(inside, abm[np.clip(d, 0, lo + up), j], 0.0)
    return solve(dense, bm)


def cho_factor(a: ArrayLike, lower: bool = False, overwrite_a: bool = False,
               check_finite: bool = True) -> tuple[Array, bool]:
    """The Cholesky factor of a Hermitian positive definite matrix (``scipy.linalg.cho_factor``).

    For :func:`cho_solve`.

    Parameters
    ----------
    a : array_like
        ``(..., n, n)``, read from its upper (or ``lower``) triangle.
    lower : bool, optional
        Return the lower factor (default: the upper).
    overwrite_a, check_finite : bool, optional
        Accepted and ignored.

    Returns
    -------
    c : Array
        The upper ``U`` (``a = U^H U``) or the lower ``L`` (``a = L L^H``), with zeros
        in the other triangle (SciPy leaves arbitrary values there; :func:`cho_solve`
        reads only the factor's triangle either way).
    lower : bool
        As given.

    Notes
    -----
    Derivative: that of ``cholesky`` (Murray 2016; Hermitian gradients).

    Examples
    --------
    >>> cho_factor([[4.0, 2.0], [2.0, 5.0]])[0]
    array([[2., 1.],
           [0., 2.]])
    """
    return _nl.cholesky(a, upper=not lower), bool(lower)


def cho_solve(c_and_lower: tuple[ArrayLike, bool], b: ArrayLike, overwrite_b: bool = False,
              check_finite: bool = True) -> Array:
    """Solve ``a x = b`` from ``cho_factor``'s ``(c, lower)`` (``scipy.linalg.cho_solve``).

    Two triangular solves, differentiable in ``c`` (its triangle) and ``b``.

    Parameters
    ----------
    c_and_lower : tuple of (array_like, bool)
        :func:`cho_factor`'s result.
    b : array_like
        ``(..., n)`` or ``(..., n, k)``.
    overwrite_b, check_finite : bool, optional
        Accepted and ignored.

    Returns
    -------
    Array
        ``x``, ``b``'s shape.

    Raises
    ------
    ValueError
        For incompatible shapes.

    Examples
    --------
    >>> cho_solve(cho_factor([[4.0, 2.0], [2.0, 5.0]]), [4.0, 2.0])
    array([1., 0.])
    """
    c, lower = c_and_lower
    cm, bm = _common(c, b)
    _assert_stacked_square(cm)
    cm, bm, vec = _rhs(cm, bm, "cho_solve")
    if lower:   # a = L L^H
        y = _L.triangular_solve(cm, bm, True)
        x = _tri_solve(cm, y, True, 2)
    else:       # a = U^H U
        y = _tri_solve(cm, bm, False, 2)
        x = _L.triangular_solve(cm, y, False)
    return _unrhs(x, vec)


def cholesky(a: ArrayLike, lower: bool = False, overwrite_a: bool = False,
             check_finite: bool = True) -> Array:
    """The Cholesky factor of a Hermitian positive definite matrix (``scipy.linalg.cholesky``).

    The upper factor ``U`` (``a = U^H U``, SciPy's default) or the lower ``L``, read
    from that triangle; ``ftrans.numpy.linalg.cholesky``'s derivative.

    Parameters
    ----------
    a : array_like
        ``(..., n, n)``.
    lower : bool, optional
        Return the lower factor.
    overwrite_a, check_finite : bool, optional
        Accepted and ignored.

    Returns
    -------
    Array
        The factor, ``a``'s shape.

    Examples
    --------
    >>> cholesky([[4.0, 2.0], [2.0, 5.0]])
    array([[2., 1.],
           [0., 2.]])
    """
    return _nl.cholesky(a, upper=not lower)


def qr(a: ArrayLike, overwrite_a: bool = False, lwork: int | None = None, mode: str = "full",
       pivoting: bool = False, check_finite: bool = True) -> tuple[Array, ...]:
    """The QR decomposition (``scipy.linalg.qr``).

    ``ftrans.numpy.linalg.qr``'s derivative (``"full"`` with ``M > N`` is not
    differentiable: the extra columns are not unique).

    Parameters
    ----------
    a : array_like
        ``(..., M, N)``.
    overwrite_a : bool, optional
        Accepted and ignored.
    lwork : int, optional
        Accepted and ignored.
    mode : {"full", "economic", "r"}, optional
        ``"full"`` (SciPy's default): ``Q`` is ``(M, M)``; ``"economic"``: ``(M, K)``
        with ``K = min(M, N)``; ``"r"``: only ``R``.
    pivoting : bool, optional
        Must be False.
    check_finite : bool, optional
        Accepted and ignored.

    Returns
    -------
    tuple of Array
        ``(Q, R)``, or ``(R,)`` for ``mode="r"``.

    Raises
    ------
    NotImplementedError
        For ``pivoting=True``.
    ValueError
        For another mode.

    Examples
    --------
    >>> qr([[3.0], [4.0]], mode="r")[0].round(12)
    array([[-5.],
           [ 0.]])
    """
    if pivoting:
        raise NotImplementedError("qr: pivoting=True (QR with column pivoting) is not "
                                  "supported; use pivoting=False")
    if mode not in ("full", "economic", "r"):
        raise ValueError(f"qr: mode must be 'full', 'economic' or 'r', got {mode!r}")
    q, r = _nl.qr(a, "reduced" if mode == "economic" else "complete")
    return (r,) if mode == "r" else (q, r)


def lu_factor(a: ArrayLike, overwrite_a: bool = False, check_finite: bool = True
              ) -> tuple[Array, Array]:
    """The LU factorization with partial pivoting, packed (``scipy.linalg.lu_factor``).

    Parameters
    ----------
    a : array_like
        ``(..., M, N)``; may be rectangular (:func:`lu_solve` needs square factors).
    overwrite_a, check_finite : bool, optional
        Accepted and ignored.

    Returns
    -------
    lu : Array
        The packed factors of ``P a = L U`` (``L`` unit lower, ``U`` upper);
        differentiable in ``a`` (JAX's LU JVP rule; where the pivot order is locally
        constant).
    piv : Array
        int32, ``min(M, N)`` entries: LAPACK's row interchanges (row ``i`` swapped
        with ``piv[i]``); not differentiable.

    Raises
    ------
    ValueError
        For fewer than 2 dimensions.

    Examples
    --------
    >>> lu_factor([[1.0, 2.0], [3.0, 4.0]])[1]
    array([1, 1], dtype=int32)
    """
    (am,) = _common(a)
    if am.ndim < 2:
        raise ValueError(f"lu_factor: expected a (stack of) matrices, got shape "
                         f"{tuple(am.shape)}")
    lu, piv, _ = _L.lu(am)
    return lu, piv


def _perm_from_piv(piv: ArrayLike, n: int) -> Array:
    """The permutation ``perm`` with ``(P b)[i] = b[perm[i]]`` of LAPACK's interchanges
    (NumPy on concrete pivots, ftrans ops on traced ones)."""
    if not isinstance(piv, Tracer):
        perm = np.arange(n)
        p = np.asarray(piv)
        for i in range(n):
            perm[i], perm[p[i]] = perm[p[i]], perm[i]
        return perm.astype(np.int32)
    pt = cast(Array, piv)      # (a tracer stands for the array it traces, ftrans.typing)
    perm = F.arange(n, dtype=np.int32)
    idx = np.arange(n)
    for i in range(n):
        k = pt[i]
        pi, pk = perm[i], _take(perm, k)
        perm = P.where(idx == i, pk, P.where(P.eq(idx, k), pi, perm))
    return perm


def lu_solve(lu_and_piv: tuple[ArrayLike, ArrayLike], b: ArrayLike, trans: int | str = 0,
             overwrite_b: bool = False, check_finite: bool = True) -> Array:
    """Solve ``op(a) x = b`` from ``lu_factor``'s ``(lu, piv)`` (``scipy.linalg.lu_solve``).

    Differentiable in ``b`` and in the packed factors ``lu`` (two triangular solves and
    a constant permutation): differentiating ``lu_solve(lu_factor(a), b)`` in ``a``
    gives ``solve``'s derivative.  ``piv`` is not differentiable.

    Parameters
    ----------
    lu_and_piv : tuple of array_like
        :func:`lu_factor`'s result, of a square ``(n, n)`` matrix.
    b : array_like
        ``(n,)`` or ``(n, k)``.
    trans : {0, 1, 2, "N", "T", "C"}, optional
        Solve with ``a``, ``a^T`` or ``a^H``.
    overwrite_b, check_finite : bool, optional
        Accepted and ignored.

    Returns
    -------
    Array
        ``x``, ``b``'s shape.

    Raises
    ------
    ValueError
        For a bad ``trans``, non-square factors or incompatible shapes.

    Examples
    --------
    >>> lu_solve(lu_factor([[1.0, 2.0], [3.0, 4.0]]), [5.0, 11.0])
    array([1., 2.])
    """
    if trans not in _TRANS:
        raise ValueError(f"lu_solve: trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")
    lu, piv = lu_and_piv
    lum, bm = _common(lu, b)
    if lum.ndim != 2 or lum.shape[0] != lum.shape[1]:
        raise ValueError(f"lu_solve: lu must be a square matrix, got {tuple(lum.shape)}")
    n = lum.shape[0]
    lum, bm, vec = _rhs(lum, bm, "lu_solve")
    pm = _perm_matrix(_perm_from_piv(piv, n), lum.dtype, lum)     # P (a = P^T L U)
    unit = P.where(_LC._eye_mask(n, lum), 1.0, lum)
    t = _TRANS[trans]
    if t == 0:
        y = _L.triangular_solve(unit, F.matmul(pm, bm), True)
        x = _L.triangular_solve(lum, y, False)
    else:   # op(a) = op(U) op(L) P
        y = _tri_solve(lum, bm, False, t)
        x = F.matmul(_LC._mT(pm), _tri_solve(unit, y, True, t))
    return _unrhs(x, vec)


# ---------------------------------------------------------------------------------
# block_diag, polar
# ---------------------------------------------------------------------------------
def block_diag(*arrs: ArrayLike) -> Array:
    """The block-diagonal matrix of the arguments (``scipy.linalg.block_diag``).

    Parameters
    ----------
    *arrs : array_like
        2-d blocks (0-d and 1-d are promoted to ``(1, n)`` rows, as SciPy).

    Returns
    -------
    Array
        ``(sum of rows, sum of columns)``, the promoted dtype; no arguments give
        ``(1, 0)``.

    Raises
    ------
    ValueError
        For an argument of rank > 2.

    Examples
    --------
    >>> block_diag([[1.0]], [[2.0, 3.0]])
    array([[1., 0., 0.],
           [0., 2., 3.]])
    """
    if not arrs:
        return np.empty((1, 0))
    mats = []
    for k, x in enumerate(arrs):
        x = _ndarray(x)
        if x.ndim > 2:
            raise ValueError(f"block_diag: arguments must have 2 or fewer dimensions, "
                             f"argument {k} has shape {tuple(x.shape)}")
        mats.append(P.reshape(x, (1, -1 if x.size else 0)) if x.ndim < 2 else x)
    dt = np.result_type(*[np.dtype(m.dtype) for m in mats])
    ncol = sum(m.shape[1] for m in mats)
    rows, c0 = [], 0
    for m in mats:
        r, c = m.shape
        m = m if np.dtype(m.dtype) == dt else P.convert_element_type(m, dt)
        rows.append(F.concatenate([F.zeros((r, c0), dt), m,
                                   F.zeros((r, ncol - c0 - c), dt)], axis=1))
        c0 += c
    return F.concatenate(rows, axis=0)


def polar(a: ArrayLike, side: str = "right") -> tuple[Array, Array]:
    """The polar decomposition (``scipy.linalg.polar``).

    Parameters
    ----------
    a : array_like
        A 2-d matrix of full column (``"right"``) or row (``"left"``) rank.
    side : {"right", "left"}, optional
        ``a = u p`` (right) or ``a = p u`` (left).

    Returns
    -------
    u : Array
        Orthonormal columns (rows), ``a``'s shape.
    p : Array
        Hermitian positive semidefinite, square.

    Raises
    ------
    ValueError
        For a bad ``side`` or a non-2-d ``a``.

    Notes
    -----
    Computed as ``p = sqrtm(a^H a)``, ``u = a p^{-1}`` (right; left: ``p = sqrtm(a
    a^H)``, ``u = p^{-1} a``), so the derivative is :func:`sqrtm`'s and ``solve``'s:
    defined for full column (row) rank ``a``; the accuracy is that of ``sqrtm`` of the
    squared matrix (SciPy's values come from the SVD).

    Examples
    --------
    >>> polar([[2.0, 0.0], [0.0, -3.0]])[1]
    array([[2., 0.],
           [0., 3.]])
    """
    if side not in ("right", "left"):
        raise ValueError(f"polar: side must be 'right' or 'left', got {side!r}")
    (am,) = _common(a)
    if am.ndim != 2:
        raise ValueError(f"polar: a must be a 2-d array, got shape {tuple(am.shape)}")
    ah = _LC._H(am)
    if side == "right":
        p = cast(Array, sqrtm(F.matmul(ah, am)))    # (disp=True: the root alone)
        u = _LC._H(solve(_LC._H(p), ah))        # a p^{-1} = (p^{-H} a^H)^H
    else:
        p = cast(Array, sqrtm(F.matmul(am, ah)))
        u = solve(p, am)
    return u, p
