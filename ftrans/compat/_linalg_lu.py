"""``torch.linalg`` LU family (``lu_factor``, ``lu_factor_ex``, ``lu``, ``lu_solve``),
``torch.lu_unpack`` and the LDL family (``ldl_factor``, ``ldl_factor_ex``, ``ldl_solve``),
adapted onto :mod:`ftrans.scipy.linalg` and the ``lu`` primitive (see
:mod:`ftrans.compat.linalg`)."""
from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from .. import numpy as fnp
from ..primitives import linalg as _L
from ..scipy import linalg as _fsl
from ._tensor import _make_plain
from .types import Tensor
from ._linalg_base import LinAlgError, op, call, need_float, need_matrix, need_square, same_dtype
from ._linalg_solve import mH, mT, bcast_batch

__all__ = ["lu", "lu_factor", "lu_factor_ex", "lu_solve", "lu_unpack",
           "ldl_factor", "ldl_factor_ex", "ldl_solve"]

linalg_lu_factor = namedtuple("linalg_lu_factor", ["LU", "pivots"])
linalg_lu_factor_ex = namedtuple("linalg_lu_factor_ex", ["LU", "pivots", "info"])
linalg_lu = namedtuple("linalg_lu", ["P", "L", "U"])
# torch.return_types.lu_unpack (the class keeps torch's name)
lu_unpack_t = namedtuple("lu_unpack", ["P", "L", "U"])  # type: ignore[name-match]
linalg_ldl_factor = namedtuple("linalg_ldl_factor", ["LD", "pivots"])
linalg_ldl_factor_ex = namedtuple("linalg_ldl_factor_ex", ["LD", "pivots", "info"])


# ------------------------------------------------------------------ compositions (ftrans)
def _lu_factor_fn(a: Any) -> tuple[Any, Any]:
    lu_, piv, _ = _L.lu(a)
    return lu_, fnp.add(piv, 1)


def _perm_T(perm: Any, n: int, dtype: np.dtype[Any]) -> Any:
    """``P`` with ``A = P L U`` for LAPACK's row permutation ``perm`` (``(L U)[i] =
    A[perm[i]]``): ``P[perm[i], i] = 1``."""
    return fnp.swapaxes(fnp.equal(fnp.expand_dims(perm, -1), np.arange(n)).astype(dtype), -1, -2)


def _unpack(lu_: Any, n_rows: int, n_cols: int) -> tuple[Any, Any]:
    k = min(n_rows, n_cols)
    eye = np.eye(n_rows, k, dtype=np.dtype(lu_.dtype))
    low = fnp.add(fnp.tril(lu_[..., :, :k], -1), eye)
    up = fnp.triu(lu_[..., :k, :])
    return low, up


def _lu_fn(a: Any) -> tuple[Any, Any, Any]:
    lu_, _, perm = _L.lu(a)
    m, n = a.shape[-2:]
    low, up = _unpack(lu_, m, n)
    return _perm_T(perm, m, np.dtype(a.dtype)), low, up


def _perm_of_pivots(piv: Any, m: int) -> Any:
    """LAPACK's 1-based row interchanges ``piv`` ``(..., k)`` as the permutation ``perm``
    ``(..., m)`` with ``(L U)[i] = A[perm[i]]`` (ftrans operations: concrete or traced)."""
    perm = fnp.broadcast_to(np.arange(m, dtype=np.int64), tuple(piv.shape[:-1]) + (m,))
    idx = np.arange(m)
    for i in range(piv.shape[-1]):
        p = fnp.subtract(piv[..., i:i + 1], 1).astype(np.int64)
        pp = fnp.take_along_axis(perm, p, axis=-1)
        perm = fnp.where(idx == i, pp, fnp.where(fnp.equal(idx, p), perm[..., i:i + 1], perm))
    return perm


def _perm_matrix(perm: Any, n: int, dtype: np.dtype[Any]) -> Any:
    """``Pm`` with ``(Pm B)[i] = B[perm[i]]``."""
    return fnp.equal(fnp.expand_dims(perm, -1), np.arange(n)).astype(dtype)


def _lu_unpack_fn(lu_: Any, piv: Any) -> tuple[Any, Any, Any]:
    m, n = lu_.shape[-2:]
    low, up = _unpack(lu_, m, n)
    return _perm_T(_perm_of_pivots(piv, m), m, np.dtype(lu_.dtype)), low, up


def _lu_solve_fn(lu_: Any, piv: Any, b: Any, *, left: bool, adjoint: bool) -> Any:
    if not left:   # X op(A) = B  <=>  op(A)^H X^H = B^H
        return mH(_lu_solve_fn(lu_, piv, mH(b), left=True, adjoint=not adjoint))
    lu_, b = bcast_batch(lu_, b)
    n = lu_.shape[-1]
    pm = _perm_matrix(_perm_of_pivots(piv, n), n, np.dtype(lu_.dtype))
    pm = fnp.broadcast_to(pm, tuple(lu_.shape[:-2]) + (n, n))
    if not adjoint:   # A = P L U:  X = U^{-1} L^{-1} P^T B
        y = _fsl.solve_triangular(lu_, fnp.matmul(pm, b), lower=True, unit_diagonal=True)
        return _fsl.solve_triangular(lu_, y, lower=False)
    y = _fsl.solve_triangular(lu_, b, trans=2, lower=False)           # U^{-H} B
    y = _fsl.solve_triangular(lu_, y, trans=2, lower=True, unit_diagonal=True)
    return fnp.matmul(mT(pm), y)                                      # P Y


# ------------------------------------------------------------------ helpers
def _check_pivots(name: str, piv: Any, n: int) -> None:
    if isinstance(piv, np.ndarray) and piv.size and (piv.min() < 1 or piv.max() > n):
        raise RuntimeError(f"{name}: pivots must be in the range [1, {n}]")


def lu_factor(A: Tensor, *, pivot: bool = True) -> linalg_lu_factor:
    """The LU factorization with partial pivoting, compact (``torch.linalg.lu_factor``).

    Parameters
    ----------
    A : Tensor
        Matrices ``(*, m, n)``, floating or complex.
    pivot : bool, optional
        Must be True (LU without pivoting is CUDA-only in PyTorch).

    Returns
    -------
    linalg_lu_factor
        ``(LU, pivots)``: ``L`` (unit diagonal implied) and ``U`` in one matrix, and
        LAPACK's 1-based int32 row interchanges ``(*, min(m, n))``.

    Raises
    ------
    RuntimeError
        If ``pivot`` is False.
    """
    LU, piv, _ = lu_factor_ex(A, pivot=pivot, check_errors=True)
    return linalg_lu_factor(LU, piv)


def lu_factor_ex(A: Tensor, *, pivot: bool = True,
                 check_errors: bool = False) -> linalg_lu_factor_ex:
    """``lu_factor`` with LAPACK's info (``torch.linalg.lu_factor_ex``).

    Parameters
    ----------
    A : Tensor
        Matrices ``(*, m, n)``, floating or complex.
    pivot : bool, optional
        Must be True.
    check_errors : bool, optional
        Accepted (a singular matrix is factored, as LAPACK does).

    Returns
    -------
    linalg_lu_factor_ex
        ``(LU, pivots, info)``; ``info`` is 0 (int32, shape ``(*)``).

    Raises
    ------
    RuntimeError
        If ``pivot`` is False.
    """
    name = "torch.linalg.lu_factor_ex"
    need_float(name, A)
    need_matrix(name, A)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the "
                           "CPU")
    LU, piv = op(name, "LinalgLuFactorExBackward0", _lu_factor_fn, [A], names=("A",))
    info = _make_plain(np.zeros(A._data.shape[:-2], np.int32))
    return linalg_lu_factor_ex(LU, piv, info)


def lu(A: Tensor, *, pivot: bool = True) -> linalg_lu:
    """The LU decomposition ``A = P L U`` with partial pivoting (``torch.linalg.lu``).

    Parameters
    ----------
    A : Tensor
        Matrices ``(*, m, n)``, floating or complex.
    pivot : bool, optional
        Must be True.

    Returns
    -------
    linalg_lu
        ``(P, L, U)``: the permutation matrix ``(*, m, m)`` (no gradient), unit lower
        triangular ``L`` ``(*, m, k)`` and upper ``U`` ``(*, k, n)``, ``k = min(m, n)``.

    Raises
    ------
    RuntimeError
        If ``pivot`` is False.
    """
    name = "linalg.lu"
    need_float(name, A)
    need_matrix(name, A)
    if not pivot:
        raise RuntimeError("linalg.lu: LU without pivoting is not implemented on the CPU")
    return linalg_lu(*op(name, "LinalgLuBackward0", _lu_fn, [A], names=("A",), diff=(1, 2)))


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True,
              unpack_pivots: bool = True) -> lu_unpack_t:
    """``(P, L, U)`` from ``lu_factor``'s results (``torch.lu_unpack``).

    Parameters
    ----------
    LU_data : Tensor
        The compact ``LU`` ``(*, m, n)``.
    LU_pivots : Tensor
        The int32 1-based pivots ``(*, min(m, n))``.
    unpack_data : bool, optional
        Return ``L`` and ``U`` (else empty tensors).
    unpack_pivots : bool, optional
        Return ``P`` (else an empty tensor).

    Returns
    -------
    lu_unpack
        ``(P, L, U)`` with ``A = P L U``.

    Raises
    ------
    RuntimeError
        If the pivots are not int32 or out of range.
    """
    name = "torch.lu_unpack"
    need_matrix(name, LU_data, "LU_data")
    m, n = LU_data._data.shape[-2:]
    if LU_pivots._data.dtype != np.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor "
                           "of torch.int32 dtype.")
    _check_pivots(name, LU_pivots._data, m)
    res = op(name, "LuUnpackBackward0", _lu_unpack_fn, [LU_data, LU_pivots],
             names=("LU_data", "LU_pivots"), diff=(1, 2))
    empty = _make_plain(np.zeros((0,), LU_data._data.dtype))
    return lu_unpack_t(res[0] if unpack_pivots else empty, res[1] if unpack_data else empty,
                       res[2] if unpack_data else empty)


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True,
             adjoint: bool = False) -> Tensor:
    """The solution of ``A X = B`` from ``lu_factor``'s results (``torch.linalg.lu_solve``).

    Parameters
    ----------
    LU : Tensor
        The compact LU factorization ``(*, n, n)`` of ``A``.
    pivots : Tensor
        Its 1-based int32 pivots ``(*, n)``.
    B : Tensor
        Right-hand sides ``(*, n, k)`` (``(*, k, n)`` with ``left=False``), same dtype.
    left : bool, optional
        False: solve ``X A = B``.
    adjoint : bool, optional
        Solve with ``A^H`` instead of ``A``.

    Returns
    -------
    Tensor
        ``X``, shaped as ``B`` with the batch dimensions broadcast.

    Raises
    ------
    RuntimeError
        If the shapes or dtypes do not match or a pivot is out of range.
    """
    name = "linalg.lu_solve"
    need_float(name, LU, B)
    need_square(name, LU, "LU")
    need_matrix(name, B, "B")
    same_dtype(name, LU, B, ("LU", "B"))
    n = LU._data.shape[-1]
    if B._data.shape[-2 if left else -1] != n:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and "
                           f"{'x'.join(map(str, B._data.shape[-2:]))})")
    if tuple(pivots._data.shape) != tuple(LU._data.shape[:-1]):
        raise RuntimeError(f"{name}: Expected pivots to have shape {list(LU.shape[:-1])}, "
                           f"got {list(pivots.shape)}")
    _check_pivots(name, pivots._data, n)
    return op(name, "LinalgLuSolveBackward0", _lu_solve_fn, [LU, pivots, B],
              {"left": bool(left), "adjoint": bool(adjoint)}, ("LU", "pivots", "B"))


def ldl_factor_ex(A: Tensor, *, hermitian: bool = False,
                  check_errors: bool = False) -> linalg_ldl_factor_ex:
    """The LDL factorization with LAPACK's info (``torch.linalg.ldl_factor_ex``).

    LAPACK's Bunch-Kaufman factorization of the lower triangle
    (``ftrans.scipy.linalg.ldl_factor_packed``); no derivative, as in PyTorch.

    Parameters
    ----------
    A : Tensor
        Symmetric (or Hermitian) matrices ``(*, n, n)``; the lower triangle is read.
    hermitian : bool, optional
        Complex ``A`` is Hermitian (else symmetric).
    check_errors : bool, optional
        Raise ``LinAlgError`` when ``info`` is non-zero.

    Returns
    -------
    linalg_ldl_factor_ex
        ``(LD, pivots, info)``: the compact factor, LAPACK's int32 pivots and info.

    Raises
    ------
    LinAlgError
        If ``check_errors`` and a matrix is singular.
    """
    name = "torch.linalg.ldl_factor_ex"
    need_float(name, A)
    need_square(name, A)
    ld, piv, info = call(name, _fsl.ldl_factor_packed, [A._data], {"hermitian": bool(hermitian)})
    if check_errors and np.any(info):
        raise LinAlgError(f"{name}: The factorization could not be completed because the "
                          "input is singular.")
    return linalg_ldl_factor_ex(_make_plain(ld), _make_plain(piv), _make_plain(info))


def ldl_factor(A: Tensor, *, hermitian: bool = False) -> linalg_ldl_factor:
    """The LDL factorization (``torch.linalg.ldl_factor``).

    Parameters
    ----------
    A : Tensor
        Symmetric (or Hermitian) matrices ``(*, n, n)``; the lower triangle is read.
    hermitian : bool, optional
        Complex ``A`` is Hermitian (else symmetric).

    Returns
    -------
    linalg_ldl_factor
        ``(LD, pivots)`` (no gradient).

    Raises
    ------
    LinAlgError
        If a matrix is singular.
    """
    ld, piv, _ = ldl_factor_ex(A, hermitian=hermitian, check_errors=True)
    return linalg_ldl_factor(ld, piv)


def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False) -> Tensor:
    """The solution of ``A X = B`` from ``ldl_factor``'s results (``torch.linalg.ldl_solve``).

    No derivative, as in PyTorch.

    Parameters
    ----------
    LD : Tensor
        The compact factor ``(*, n, n)``.
    pivots : Tensor
        Its int32 pivots ``(*, n)``.
    B : Tensor
        Right-hand sides ``(*, n, k)``, same dtype.
    hermitian : bool, optional
        The factorization was Hermitian.

    Returns
    -------
    Tensor
        ``X``, shaped as ``B``.

    Raises
    ------
    RuntimeError
        If the shapes or dtypes do not match.
    """
    name = "torch.linalg.ldl_solve"
    need_float(name, LD, B)
    need_square(name, LD, "LD")
    need_matrix(name, B, "B")
    same_dtype(name, LD, B, ("LD", "B"))
    if pivots._data.dtype != np.int32:
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got {pivots.dtype}")
    n = LD._data.shape[-1]
    if B._data.shape[-2] != n or tuple(pivots._data.shape[-1:]) != (n,):
        raise RuntimeError(f"{name}: Incompatible shapes of LD {list(LD.shape)}, pivots "
                           f"{list(pivots.shape)} and B {list(B.shape)}")
    return _make_plain(call(name, _fsl.ldl_solve_packed, [LD._data, pivots._data, B._data],
                            {"hermitian": bool(hermitian)}))
