"""Solves, inverses, determinants and decompositions of ``ftrans.numpy.linalg`` (the
derivative conventions are in ``ftrans.numpy.linalg``'s module docstring)."""
from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from ..core import Tracer
from ..core.dtypes import kind_of as _kind_of
from ..primitives import linalg as _L
from ..primitives import _linalg_common as _LC  # the helpers the rules are written with
from . import _funcs as F
from ._funcs import _ndarray, matmul
from ..typing import Array, ArrayLike
from ._linalg_args import (LinAlgError, SlogdetResult, EighResult, EigResult, SVDResult,
                           QRResult, _common, _assert_stacked_2d, _assert_stacked_square,
                           _bcast_batch, _concrete)
from ._args import P

# ---------------------------------------------------------------------------------
# solves and inverses
# ---------------------------------------------------------------------------------
def solve(a: ArrayLike, b: ArrayLike) -> Array:
    """Solve the linear system ``a @ x = b``.

    Parameters
    ----------
    a : array_like
        Coefficient matrices, shape ``(..., M, M)``.
    b : array_like
        Right-hand sides: ``(M,)`` (a vector) or ``(..., M, K)``; batch axes
        broadcast (NumPy 2 rules).

    Returns
    -------
    Array
        ``x``, of ``b``'s shape (with the broadcast batch axes).

    Raises
    ------
    LinAlgError
        Non-square ``a``, or a singular matrix.
    ValueError
        Mismatched ``M``.

    Notes
    -----
    Differentiable (Giles 2008): ``dx = a^{-1} (db - da x)``; nonsingular ``a``.
    """
    a, b = _common(a, b)
    _assert_stacked_square(a)
    vec = b.ndim == 1
    if vec:
        b = P.expand_dims(b, (1,))
    if b.ndim < 2 or b.shape[-2] != a.shape[-1]:
        raise ValueError(f"solve: b of shape {tuple(b.shape) if not vec else (b.shape[0],)} "
                         f"does not match a of shape {tuple(a.shape)} (expected b of shape "
                         f"({a.shape[-1]},) or (..., {a.shape[-1]}, K))")
    a, b = _bcast_batch(a, b)
    x = _L.solve(a, b)
    return P.squeeze(x, (x.ndim - 1,)) if vec else x


def inv(a: ArrayLike) -> Array:
    """Inverse of square matrices.

    Parameters
    ----------
    a : array_like
        Shape ``(..., M, M)``.

    Returns
    -------
    Array
        ``a^{-1}``, same shape (a solve against the identity).

    Raises
    ------
    LinAlgError
        Non-square or singular ``a``.

    Notes
    -----
    Differentiable: ``d(a^{-1}) = -a^{-1} da a^{-1}``.
    """
    (a,) = _common(a)
    _assert_stacked_square(a)
    return _L.solve(a, _LC._eye_like(a))


def det(a: ArrayLike) -> Array:
    """Determinant of square matrices.

    Parameters
    ----------
    a : array_like
        Shape ``(..., M, M)``.

    Returns
    -------
    Array
        Shape ``(...)``.

    Raises
    ------
    LinAlgError
        Non-square ``a``.

    Notes
    -----
    Differentiable: gradient ``det(a) a^{-T}`` (Giles 2008), not available at exactly
    singular matrices.
    """
    (a,) = _common(a)
    _assert_stacked_square(a)
    return _L.det(a)


def slogdet(a: ArrayLike) -> SlogdetResult:
    """Sign and log-magnitude of the determinant.

    Parameters
    ----------
    a : array_like
        Shape ``(..., M, M)``.

    Returns
    -------
    SlogdetResult
        ``(sign, logabsdet)``, each of shape ``(...)``; ``sign`` is complex for
        complex ``a``.

    Raises
    ------
    LinAlgError
        Non-square ``a``.

    Notes
    -----
    Differentiable: ``d logabsdet = Re tr(a^{-1} da)`` and, for complex ``a``,
    ``d sign = sign * i Im tr(a^{-1} da)``.
    """
    (a,) = _common(a)
    _assert_stacked_square(a)
    return SlogdetResult(*_L.slogdet(a))


def matrix_power(a: ArrayLike, n: int) -> Array:
    """Raise a square matrix to an integer power.

    Repeated squaring in NumPy's order of products; ``n < 0`` inverts first, ``n == 0``
    gives the identity.

    Parameters
    ----------
    a : array_like
        Shape ``(..., M, M)``.
    n : int
        The exponent.

    Returns
    -------
    Array
        Same shape as ``a``.

    Raises
    ------
    TypeError
        If ``n`` is not an integer.
    LinAlgError
        Non-square ``a`` (or singular, for ``n < 0``).

    Notes
    -----
    Differentiable (products and, for ``n < 0``, :func:`inv`).
    """
    a = _ndarray(a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        _assert_stacked_square(a)
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError("exponent must be an integer") from e
    if n == 0:
        eye = _LC._const(np.eye(a.shape[-1], dtype=a.dtype), a)
        out = P.broadcast_to(eye, tuple(a.shape))
        return out.copy() if not isinstance(out, Tracer) else out  # a writable array
    if n < 0:
        a = inv(a)
        n = -n
    if n == 1:
        return a
    if n == 2:
        return matmul(a, a)
    if n == 3:
        return matmul(matmul(a, a), a)
    z = result = None
    while n > 0:
        z = a if z is None else matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else matmul(result, z)
    return cast(Array, result)  # (n >= 1 here: some bit is set)


def tensorinv(a: ArrayLike, ind: int = 2) -> Array:
    """Inverse of an N-D array with respect to :func:`tensordot`.

    Parameters
    ----------
    a : array_like
        Tensor with ``prod(a.shape[:ind]) == prod(a.shape[ind:])``.
    ind : int, optional
        Number of leading axes of the "row" index.

    Returns
    -------
    Array
        Shape ``a.shape[ind:] + a.shape[:ind]``.

    Raises
    ------
    ValueError
        If ``ind`` is not positive.
    LinAlgError
        If the reshaped matrix is not square or singular.

    Notes
    -----
    Differentiable as :func:`inv`.
    """
    a = _ndarray(a)
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    oldshape = tuple(a.shape)
    invshape = oldshape[ind:] + oldshape[:ind]
    prod = 1
    for k in oldshape[ind:]:
        prod *= k
    ia = inv(F.reshape(a, (prod, -1)))
    return F.reshape(ia, invshape)


def tensorsolve(a: ArrayLike, b: ArrayLike, axes: Sequence[int] | None = None) -> Array:
    """Solve ``tensordot(a, x, x.ndim) = b`` for ``x``.

    Parameters
    ----------
    a : array_like
        Coefficient tensor, shape ``b.shape + x.shape``.
    b : array_like
        Right-hand side.
    axes : sequence of int, optional
        Axes of ``a`` moved to the end first.

    Returns
    -------
    Array
        ``x``, of shape ``a.shape[b.ndim:]``.

    Raises
    ------
    LinAlgError
        If the reshaped system is not square or singular.

    Notes
    -----
    Differentiable as :func:`solve`.
    """
    a, b = _ndarray(a), _ndarray(b)
    an = a.ndim
    if axes is not None:
        allaxes = list(range(an))
        for k in axes:
            allaxes.remove(k)
            allaxes.insert(an, k)
        a = F.transpose(a, allaxes)
    oldshape = tuple(a.shape[-(an - b.ndim):])
    prod = 1
    for k in oldshape:
        prod *= k
    if a.size != prod ** 2:
        raise LinAlgError("Input arrays must satisfy the requirement "
                          "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    x = solve(F.reshape(a, (prod, prod)), F.ravel(b))
    return F.reshape(x, oldshape)


# ---------------------------------------------------------------------------------
# decompositions
# ---------------------------------------------------------------------------------
def cholesky(a: ArrayLike, /, *, upper: bool = False) -> Array:
    """Cholesky factor of Hermitian positive-definite matrices.

    Parameters
    ----------
    a : array_like
        Shape ``(..., M, M)``; only the lower (``upper=True``: upper) triangle
        is read.
    upper : bool, optional
        Return the upper factor ``U = L^H`` instead of ``L``.

    Returns
    -------
    Array
        ``L`` with ``a = L L^H`` (or ``U``), same shape.

    Raises
    ------
    LinAlgError
        Non-square or not positive-definite ``a``.

    Notes
    -----
    Differentiable (Murray 2016) as ``a -> cholesky((a + a^H) / 2)``: Hermitian gradients,
    as JAX and PyTorch.
    """
    (a,) = _common(a)
    _assert_stacked_square(a)
    if upper:
        return _LC._H(_L.cholesky(_LC._H(a)))
    return _L.cholesky(a)


def eigh(a: ArrayLike, UPLO: str = "L") -> EighResult:
    """Eigenvalues and eigenvectors of Hermitian (real symmetric) matrices.

    Parameters
    ----------
    a : array_like
        Shape ``(..., M, M)``.
    UPLO : {'L', 'U'}, optional
        Which triangle of ``a`` is read.

    Returns
    -------
    EighResult
        ``(eigenvalues, eigenvectors)``: ascending real eigenvalues ``(..., M)``
        and the unit eigenvectors as the columns of ``(..., M, M)``.

    Raises
    ------
    ValueError
        For an invalid ``UPLO``.
    LinAlgError
        Non-square ``a``.

    Notes
    -----
    Differentiable as ``a -> eigh((a + a^H) / 2)``.  The eigenvector derivative needs
    distinct eigenvalues (Giles 2008; the factor ``1/(w_j - w_i)`` is set to 0 at exact
    ties, so eigenvalue-only losses stay exact) and a loss invariant to each
    eigenvector's sign (complex: phase).
    """
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    (a,) = _common(a)
    _assert_stacked_square(a)
    return EighResult(*_L.eigh(a, lower=UPLO == "L"))


def eigvalsh(a: ArrayLike, UPLO: str = "L") -> Array:
    """Eigenvalues of Hermitian (real symmetric) matrices, ascending.

    Parameters
    ----------
    a : array_like
        Shape ``(..., M, M)``.
    UPLO : {'L', 'U'}, optional
        Which triangle of ``a`` is read.

    Returns
    -------
    Array
        Real, shape ``(..., M)``.

    Raises
    ------
    ValueError
        For an invalid ``UPLO``.

    Notes
    -----
    Differentiable: gradient ``V diag(g) V^H``, valid also for repeated eigenvalues.
    """
    return eigh(a, UPLO).eigenvalues


def eig(a: ArrayLike) -> EigResult:
    """Eigenvalues and right eigenvectors of general square matrices.

    Always complex (JAX's convention; NumPy returns a real dtype when all imaginary parts
    are 0).  Unit eigenvectors.

    >>> import numpy as np
    >>> eig(np.diag([1.0, 2.0])).eigenvalues
    array([1.+0.j, 2.+0.j])

    Parameters
    ----------
    a : array_like
        Shape ``(..., M, M)``.

    Returns
    -------
    EigResult
        ``(eigenvalues, eigenvectors)``: complex ``(..., M)`` and ``(..., M, M)``
        (eigenvectors as columns).

    Raises
    ------
    LinAlgError
        Non-square ``a``.

    Notes
    -----
    Differentiable: the rules, phase convention and repeated-eigenvalue policy are in
    :mod:`ftrans.primitives._linalg_eig` (JAX's ``eig_jvp_rule``, Giles 2008, 3.1).
    """
    (a,) = _common(a)
    _assert_stacked_square(a)
    return EigResult(*_L.eig(a))


def eigvals(a: ArrayLike) -> Array:
    """Eigenvalues of general square matrices (complex).

    Parameters
    ----------
    a : array_like
        Shape ``(..., M, M)``.

    Returns
    -------
    Array
        Complex, shape ``(..., M)``.

    Notes
    -----
    Differentiable as :func:`eig`.
    """
    return eig(a).eigenvalues


def svd(a: ArrayLike, full_matrices: bool = True, compute_uv: bool = True,
        hermitian: bool = False) -> SVDResult | Array:
    """Singular value decomposition ``a = U @ diag(S) @ Vh``.

    ``hermitian=True`` decomposes the Hermitian matrix given by the lower triangle (as
    NumPy, which reads it through ``eigh``); its ``U``/``Vh`` may differ from NumPy's by
    the sign (phase) of each singular pair, as any two SVD routines may.

    Parameters
    ----------
    a : array_like
        Shape ``(..., M, N)``.
    full_matrices : bool, optional
        ``U`` of shape ``(..., M, M)`` and ``Vh`` ``(..., N, N)``
        (else ``K = min(M, N)`` columns/rows).
    compute_uv : bool, optional
        Return ``U`` and ``Vh`` too (else only ``S``).
    hermitian : bool, optional
        ``a`` is Hermitian.

    Returns
    -------
    SVDResult or Array
        ``(U, S, Vh)`` with descending singular values ``S`` of shape
        ``(..., K)``, or ``S`` alone.

    Raises
    ------
    LinAlgError
        For arrays of fewer than 2 dimensions.

    Notes
    -----
    Differentiable with ``full_matrices=False`` (or square ``a``): singular values
    everywhere, singular vectors for distinct nonzero singular values and
    phase-invariant losses (module docstring).
    """
    (x,) = _common(a)
    _assert_stacked_2d(x)
    if hermitian:
        _assert_stacked_square(x)
        x = _LC._hermitian_part(x, True)
    if not compute_uv:
        return _L.svd(x, False)[1]
    m, n = x.shape[-2:]
    return SVDResult(*_L.svd(x, bool(full_matrices) and m != n))


def svdvals(x: ArrayLike, /) -> Array:
    """Singular values of matrices, descending.

    Parameters
    ----------
    x : array_like
        Shape ``(..., M, N)``.

    Returns
    -------
    Array
        Shape ``(..., min(M, N))``.

    Notes
    -----
    Differentiable everywhere: gradient ``U diag(g) V^H``.
    """
    return cast(Array, svd(x, compute_uv=False))


def qr(a: ArrayLike, mode: str = "reduced") -> QRResult | Array:
    """QR decomposition ``a = Q @ R``.

    Parameters
    ----------
    a : array_like
        Shape ``(..., M, N)``.
    mode : {'reduced', 'complete', 'r'}, optional
        ``Q`` with ``K = min(M, N)`` columns, or
        ``M`` columns, or ``R`` only.

    Returns
    -------
    QRResult or Array
        ``(Q, R)``, or ``R`` for ``mode='r'``.

    Raises
    ------
    NotImplementedError
        For ``mode='raw'`` (LAPACK's Householder representation has no
        derivative here).
    ValueError
        For an unknown mode.

    Notes
    -----
    Differentiable for full-rank matrices with ``'reduced'`` and ``'r'``, and ``'complete'``
    for ``M <= N``.
    """
    if mode not in ("reduced", "complete", "r", "raw"):
        raise ValueError(f"Unrecognized mode '{mode}'")
    if mode == "raw":
        raise NotImplementedError("ftrans.numpy.linalg.qr does not provide mode='raw'; use "
                                  "mode='reduced' (differentiable)")
    (a,) = _common(a)
    _assert_stacked_2d(a)
    m, n = a.shape[-2:]
    q, r = _L.qr(a, complete=(mode == "complete" and m > n))
    if mode == "r":
        return r
    return QRResult(q, r)


# ---------------------------------------------------------------------------------
# pseudo-inverse and least squares
# ---------------------------------------------------------------------------------
_NoValue = np._NoValue


def _scalar_tol(v: Any, name: str) -> float:
    if isinstance(v, Tracer):
        raise TypeError(f"{name} must be a concrete number, got a traced value")
    arr = np.asarray(v)
    if arr.size != 1:
        raise NotImplementedError(f"ftrans.numpy.linalg: a per-matrix array {name} is not "
                                  "supported; pass a scalar")
    return float(arr.reshape(()))


def pinv(a: ArrayLike, rcond: ArrayLike | None = None, hermitian: bool = False, *,
         rtol: Any = _NoValue) -> Array:
    """Moore-Penrose pseudo-inverse of matrices.

    Parameters
    ----------
    a : array_like
        Shape ``(..., M, N)``.
    rcond : float, optional
        Cutoff for small singular values, relative to the largest
        (NumPy's default ``1e-15``).
    hermitian : bool, optional
        ``a`` is Hermitian.
    rtol : float, optional
        The array-API name of ``rcond`` (default ``eps * max(M, N)``);
        not both.

    Returns
    -------
    Array
        Shape ``(..., N, M)``.

    Raises
    ------
    ValueError
        If both ``rcond`` and ``rtol`` are given.

    Notes
    -----
    Differentiable (Golub & Pereyra 1973) where the rank is locally constant.
    """
    (a,) = _common(a)
    _assert_stacked_2d(a)
    if rcond is None:
        if rtol is _NoValue:
            rcond = 1e-15
        elif rtol is None:
            rcond = builtins.max(a.shape[-2:]) * np.finfo(a.dtype).eps
        else:
            rcond = rtol
    elif rtol is not _NoValue:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    return _L.pinv(a, _scalar_tol(rcond, "rcond"), hermitian)


def lstsq(a: ArrayLike, b: ArrayLike,
          rcond: float | None = None) -> tuple[Array, Array, np.int32 | Array, Array]:
    """Least-squares solution of ``a @ x = b``.

    ``x = pinv(a, rcond) @ b``, the minimum-norm least-squares solution.  Residuals are
    returned (as in NumPy) only when the rank is ``N`` and ``M > N``; inside ``vmap`` over
    ``a`` the rank is not concrete per example and full column rank is assumed for that
    choice.

    Parameters
    ----------
    a : array_like
        Shape ``(M, N)``.
    b : array_like
        Shape ``(M,)`` or ``(M, K)``.
    rcond : float, optional
        Singular values below ``rcond * s_max`` count as zero; default
        ``eps * max(M, N)``.

    Returns
    -------
    tuple
        ``(x, residuals, rank, s)``: the solution ``(N,)``/``(N, K)``, the squared
        residual norms, the rank (int) and the singular values of ``a``.

    Raises
    ------
    LinAlgError
        For ``a`` not 2-D or mismatched ``M``.

    Notes
    -----
    ``x``, ``residuals`` and ``s`` are differentiable where the rank is locally constant;
    ``rank`` is an integer.
    """
    a, b = _common(a, b)
    vec = b.ndim == 1
    if vec:
        b = P.expand_dims(b, (1,))
    if a.ndim != 2 or b.ndim != 2:
        raise LinAlgError(f"{builtins.max(a.ndim, b.ndim) if a.ndim == 2 else a.ndim}-"
                          "dimensional array given. Array must be two-dimensional")
    m, n = a.shape
    if b.shape[0] != m:
        raise LinAlgError("Incompatible dimensions")
    real = np.finfo(a.dtype).dtype
    if rcond is None:
        rcond = np.finfo(np.float64).eps * builtins.max(n, m)
    rcond = _scalar_tol(rcond, "rcond")
    s = svdvals(a)
    x = matmul(_L.pinv(a, rcond, False), b)
    s_c = _concrete(s)
    rank: np.int32 | Array
    if s_c is not None:
        rank = np.int32(np.count_nonzero(s_c > rcond * s_c.max())) if s_c.size else np.int32(0)
        full = int(rank) == n
    else:
        if s.shape[-1]:
            smax = F.max(s, axis=-1, keepdims=True)
            rank = P.convert_element_type(F.sum(P.gt(s, P.mul(smax, rcond)), axis=-1),
                                          np.dtype(np.int32))
        else:
            rank = np.int32(0)
        full = True
    if full and m > n:
        r = P.sub(b, matmul(a, x))
        resid = F.sum(P.real(P.mul(P.conj(r), r)) if _kind_of(r) == "c" else P.mul(r, r),
                      axis=0)
        resid = P.convert_element_type(resid, real) if resid.dtype != real else resid
    else:
        resid = np.zeros((0,), real)
    if vec:
        x = P.squeeze(x, (1,))
    return x, resid, rank, s
