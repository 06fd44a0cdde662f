"""``torch.linalg`` solves, inverses, determinants, Cholesky, least squares, the
pseudo-inverse and matrix functions, adapted onto :mod:`ftrans.numpy.linalg` and
:mod:`ftrans.scipy.linalg` (see :mod:`ftrans.compat.linalg`)."""
from __future__ import annotations

import warnings
from collections import namedtuple
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import numpy as fnp
from ..numpy import linalg as _fla
from ..scipy import linalg as _fsl
from ..primitives import linalg as _L
from ._tensor import Tensor, _make_plain
from .types import TensorOrNumber
from . import _ops as O
from ._linalg_base import (LinAlgError, op, call, need_float, need_matrix, need_square,
                           same_dtype)

__all__ = ["solve", "solve_ex", "inv", "inv_ex", "det", "slogdet", "logdet", "cholesky",
           "cholesky_ex", "solve_triangular", "lstsq", "pinv", "tensorinv", "tensorsolve",
           "matrix_power", "matrix_exp", "mT", "mH", "bcast_batch", "is_vector_rhs",
           "cholesky_fn"]

linalg_slogdet = namedtuple("linalg_slogdet", ["sign", "logabsdet"])
linalg_solve_ex = namedtuple("linalg_solve_ex", ["result", "info"])
linalg_inv_ex = namedtuple("linalg_inv_ex", ["inverse", "info"])
linalg_cholesky_ex = namedtuple("linalg_cholesky_ex", ["L", "info"])
linalg_lstsq = namedtuple("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])


# ------------------------------------------------------------------ compositions (ftrans)
def mT(x: Any) -> Any:
    return fnp.swapaxes(x, -1, -2)


def mH(x: Any) -> Any:
    return fnp.conj(mT(x)) if x.dtype.kind == "c" else mT(x)


def bcast_batch(a: Any, b: Any, bvec: bool = False) -> tuple[Any, Any]:
    """``a`` (matrices) and ``b`` (matrices, or vectors when ``bvec``) with their batch
    dimensions broadcast together."""
    nb = 1 if bvec else 2
    batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-nb]))
    if tuple(a.shape[:-2]) != batch:
        a = fnp.broadcast_to(a, batch + tuple(a.shape[-2:]))
    if tuple(b.shape[:-nb]) != batch:
        b = fnp.broadcast_to(b, batch + tuple(b.shape[-nb:]))
    return a, b


def _solve_fn(a: Any, b: Any, *, left: bool, vec: bool) -> Any:
    if not left:
        a = mT(a)
        if not vec:
            b = mT(b)
    a, b = bcast_batch(a, b, vec)
    if vec:
        b = fnp.expand_dims(b, -1)
    x = _fla.solve(a, b)
    if vec:
        return fnp.squeeze(x, -1)
    return x if left else mT(x)


def _inv_fn(a: Any) -> Any:
    return _fla.inv(a)


def _det_fn(a: Any) -> Any:
    return _fla.det(a)


def _slogdet_fn(a: Any) -> tuple[Any, ...]:
    return tuple(_fla.slogdet(a))


def _logdet_fn(a: Any) -> Any:
    sign, lad = _fla.slogdet(a)
    if a.dtype.kind == "c":
        return fnp.add(fnp.log(sign), lad)
    return fnp.where(fnp.less(sign, 0), np.nan, lad)


def cholesky_fn(a: Any, *, upper: bool) -> Any:
    return _fla.cholesky(a, upper=upper)


def _tri_fn(a: Any, b: Any, *, upper: bool, left: bool, unit: bool) -> Any:
    if not left:   # X A = B  <=>  A^T X^T = B^T
        return mT(_tri_fn(mT(a), mT(b), upper=not upper, left=True, unit=unit))
    a, b = bcast_batch(a, b)
    return _fsl.solve_triangular(a, b, lower=not upper, unit_diagonal=unit)


def _pinv_fn(a: Any, *, rcond: Any, hermitian: bool) -> Any:
    return _fla.pinv(a, rcond, hermitian)


def _lstsq_fn(a: Any, b: Any, *, rcond: float, vec: bool, resid: bool) -> tuple[Any, Any]:
    a, b = bcast_batch(a, b, vec)
    if vec:
        b = fnp.expand_dims(b, -1)
    x = fnp.matmul(_fla.pinv(a, rcond), b)
    if resid:
        d = fnp.subtract(fnp.matmul(a, x), b)
        r = fnp.sum(fnp.real(fnp.multiply(fnp.conj(d), d)) if d.dtype.kind == "c"
                    else fnp.multiply(d, d), axis=-2)
    else:   # (PyTorch's empty residuals are an output of the node too)
        r = fnp.zeros((0,), np.finfo(np.dtype(a.dtype)).dtype)
    if vec:
        x = fnp.squeeze(x, -1)
        if resid:
            r = fnp.squeeze(r, -1)
    return x, r


def _svdvals_fn(a: Any) -> Any:
    return _fla.svdvals(a)


def _tensorinv_fn(a: Any, *, ind: int) -> Any:
    return _fla.tensorinv(a, ind)


def _tensorsolve_fn(a: Any, b: Any, *, dims: tuple[int, ...] | None) -> Any:
    return _fla.tensorsolve(a, b, dims)


def _matrix_power_fn(a: Any, *, n: int) -> Any:
    return _fla.matrix_power(a, n)


def _expm_fn(a: Any) -> Any:
    return _fsl.expm(a)


# ------------------------------------------------------------------ torch.linalg functions
def is_vector_rhs(a: Tensor, b: Tensor) -> bool:
    """PyTorch's rule: ``B`` is a (batch of) vector(s) when it is 1-d, or has one dimension
    less than ``A`` and the shape of ``A`` without its last dimension."""
    bd, ad = b._data, a._data
    return bd.ndim == 1 or (bd.ndim == ad.ndim - 1 and bd.shape == ad.shape[:-1])


def _check_solve(name: str, A: Tensor, B: Tensor, left: bool = True) -> bool:
    need_float(name, A)
    need_square(name, A)
    same_dtype(name, A, B)
    vec = is_vector_rhs(A, B)
    n = A._data.shape[-1]
    bd = B._data
    if vec:
        ok = bd.shape[-1] == n
    else:
        ok = bd.ndim >= 2 and bd.shape[-2 if left else -1] == n
    if not ok:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({A._data.shape[-2]}x{n} and "
                           f"{'x'.join(map(str, bd.shape[-2:]))})")
    try:
        np.broadcast_shapes(A._data.shape[:-2], bd.shape[:-1 if vec else -2])
    except ValueError:
        raise RuntimeError(f"{name}: the batch dimensions of A {tuple(A._data.shape[:-2])} "
                           f"and B {tuple(bd.shape[:-1 if vec else -2])} do not broadcast") \
            from None
    return vec


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """The solution ``X`` of ``A X = B`` (``torch.linalg.solve``).

    Parameters
    ----------
    A : Tensor
        Square matrices ``(*, n, n)``, floating or complex.
    B : Tensor
        Right-hand sides ``(*, n, k)``, or vectors ``(*, n)`` (PyTorch's rule: 1-d, or
        ``A``'s shape without its last dimension); batch dimensions broadcast.
    left : bool, optional
        False: solve ``X A = B`` instead.

    Returns
    -------
    Tensor
        ``X``, shaped as the broadcast ``B``.

    Raises
    ------
    LinAlgError
        If a matrix of ``A`` is singular.
    RuntimeError
        If the shapes or dtypes do not match.

    Examples
    --------
    >>> import ftrans.compat as torch
    >>> A = torch.tensor([[3., 1.], [1., 2.]])
    >>> torch.linalg.solve(A, torch.tensor([9., 8.]))
    tensor([2., 3.])
    """
    vec = _check_solve("linalg.solve", A, B, left)
    return op("torch.linalg.solve", "LinalgSolveExBackward0", _solve_fn, [A, B],
              {"left": bool(left), "vec": vec}, ("A", "B"))


def _info(t: Tensor) -> Tensor:
    return _make_plain(np.zeros(t._data.shape[:-2], np.int32))


def _lu_info(a: Any) -> int:
    """LAPACK's ``getrf`` info of one matrix: the 1-based index of the first zero pivot."""
    with warnings.catch_warnings():   # (SciPy warns of the singular matrix we look at)
        warnings.simplefilter("ignore")
        u = np.diagonal(np.asarray(_L.lu(a)[0]))
    zero = np.flatnonzero(u == 0)
    return int(zero[0]) + 1 if zero.size else 0


def _chol_info(a: Any) -> int:
    """LAPACK's ``potrf`` info: the order of the first leading minor that is not positive
    definite."""
    for k in range(1, a.shape[-1] + 1):
        try:
            _fla.cholesky(a[:k, :k])
        except np.linalg.LinAlgError:
            return k
    return 0


def _each(name: str, fn: Callable[..., Any], datas: Sequence[Any], params: dict[str, Any],
          nb: Sequence[int], info_of: Callable[[Any], int],
          out_shape: tuple[int, ...]) -> tuple[Tensor, Tensor]:
    """PyTorch's ``*_ex`` result after a failure: ``fn`` on each matrix of the (broadcast)
    batch, NaN where it fails, with ``info_of(matrix)`` there (no graph is recorded)."""
    batch = np.broadcast_shapes(*[d.shape[:d.ndim - k] for d, k in zip(datas, nb)])
    datas = [np.broadcast_to(d, batch + d.shape[d.ndim - k:]) for d, k in zip(datas, nb)]
    res = np.full(batch + out_shape, np.nan, datas[-1].dtype)
    info = np.zeros(batch, np.int32)
    for idx in np.ndindex(*batch):
        try:
            res[idx] = fn(*[d[idx] for d in datas], **params)
        except np.linalg.LinAlgError:
            info[idx] = info_of(datas[0][idx])
    return _make_plain(res), _make_plain(info)


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True,
             check_errors: bool = False) -> linalg_solve_ex:
    """``solve`` that reports singular matrices instead of raising (``torch.linalg.solve_ex``).

    Parameters
    ----------
    A : Tensor
        Square matrices ``(*, n, n)``.
    B : Tensor
        Right-hand sides (matrices or vectors, as :func:`solve`).
    left : bool, optional
        False: solve ``X A = B`` instead.
    check_errors : bool, optional
        Raise ``LinAlgError`` for a singular matrix instead.

    Returns
    -------
    linalg_solve_ex
        ``(result, info)``: for a singular matrix of the batch, NaNs and LAPACK's info
        (the 1-based index of its first zero pivot); info 0 elsewhere (int32).

    Raises
    ------
    LinAlgError
        If ``check_errors`` and a matrix is singular.
    """
    vec = _check_solve("linalg.solve_ex", A, B, left)
    try:
        x = solve(A, B, left=left)
    except LinAlgError:
        if check_errors:
            raise
        shape = B._data.shape[-1 if vec else -2:]
        return linalg_solve_ex(*_each("linalg.solve_ex", _solve_fn, [A._data, B._data],
                                      {"left": bool(left), "vec": vec}, (2, 1 if vec else 2),
                                      _lu_info, shape))
    return linalg_solve_ex(x, _info(A))


def inv(A: Tensor) -> Tensor:
    """The inverse of square matrices (``torch.linalg.inv``).

    Parameters
    ----------
    A : Tensor
        Square matrices ``(*, n, n)``, floating or complex.

    Returns
    -------
    Tensor
        ``A^-1``, same shape and dtype.

    Raises
    ------
    LinAlgError
        If a matrix is singular.
    """
    need_float("linalg.inv", A)
    need_square("linalg.inv", A)
    return op("linalg.inv", "LinalgInvExBackward0", _inv_fn, [A], names=("A",))


def inv_ex(A: Tensor, *, check_errors: bool = False) -> linalg_inv_ex:
    """``inv`` that reports singular matrices instead of raising (``torch.linalg.inv_ex``).

    Parameters
    ----------
    A : Tensor
        Square matrices ``(*, n, n)``.
    check_errors : bool, optional
        Raise ``LinAlgError`` for a singular matrix instead.

    Returns
    -------
    linalg_inv_ex
        ``(inverse, info)``: NaNs and LAPACK's info (the first zero pivot, 1-based) for a
        singular matrix of the batch; info 0 elsewhere (int32).

    Raises
    ------
    LinAlgError
        If ``check_errors`` and a matrix is singular.
    """
    need_float("linalg.inv_ex", A)
    need_square("linalg.inv_ex", A)
    try:
        return linalg_inv_ex(inv(A), _info(A))
    except LinAlgError:
        if check_errors:
            raise
        return linalg_inv_ex(*_each("linalg.inv_ex", _inv_fn, [A._data], {}, (2,), _lu_info,
                                    A._data.shape[-2:]))


def det(A: Tensor) -> Tensor:
    """The determinant of square matrices (``torch.linalg.det``).

    Parameters
    ----------
    A : Tensor
        Square matrices ``(*, n, n)``, floating or complex.

    Returns
    -------
    Tensor
        Shape ``(*)``, ``A``'s dtype.

    Raises
    ------
    RuntimeError
        If ``A`` is not a batch of square floating matrices.
    """
    need_float("linalg.det", A)
    need_square("linalg.det", A)
    return op("linalg.det", "LinalgDetBackward0", _det_fn, [A], names=("A",))


def slogdet(A: Tensor) -> linalg_slogdet:
    """Sign and log of the absolute value of the determinant (``torch.linalg.slogdet``).

    Parameters
    ----------
    A : Tensor
        Square matrices ``(*, n, n)``, floating or complex.

    Returns
    -------
    linalg_slogdet
        ``(sign, logabsdet)``, each of shape ``(*)``: the sign (a unit complex number for
        complex ``A``; 0 for a singular matrix) and ``log|det A|`` (real).
    """
    need_float("linalg.slogdet", A)
    need_square("linalg.slogdet", A)
    return linalg_slogdet(*op("linalg.slogdet", "LinalgSlogdetBackward0", _slogdet_fn, [A],
                              names=("A",)))


def logdet(input: Tensor) -> Tensor:  # noqa: A002
    """The log of the determinant (``torch.logdet``).

    Parameters
    ----------
    input : Tensor
        Square matrices ``(*, n, n)``, floating or complex.

    Returns
    -------
    Tensor
        ``log(det(input))``, shape ``(*)``: NaN for a negative determinant of a real
        matrix, -inf for a zero one.
    """
    need_float("logdet", input)
    need_square("logdet", input)
    return op("logdet", "WhereBackward0", _logdet_fn, [input])


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """The Cholesky factor ``L`` with ``A = L L^H`` (``torch.linalg.cholesky``).

    Parameters
    ----------
    A : Tensor
        Hermitian positive-definite matrices ``(*, n, n)``; only the lower triangle is read.
    upper : bool, optional
        Return ``U = L^H`` (``A = U^H U``) instead.

    Returns
    -------
    Tensor
        Triangular matrices, same shape and dtype as ``A``.

    Raises
    ------
    LinAlgError
        If a matrix is not positive-definite.
    """
    need_float("linalg.cholesky", A)
    need_square("linalg.cholesky", A)
    return op("linalg.cholesky", "LinalgCholeskyExBackward0", cholesky_fn, [A],
              {"upper": bool(upper)}, ("A",))


def cholesky_ex(A: Tensor, *, upper: bool = False,
                check_errors: bool = False) -> linalg_cholesky_ex:
    """``cholesky`` that reports failures instead of raising (``torch.linalg.cholesky_ex``).

    Parameters
    ----------
    A : Tensor
        Hermitian positive-definite matrices ``(*, n, n)``.
    upper : bool, optional
        Return the upper factor ``U = L^H``.
    check_errors : bool, optional
        Raise ``LinAlgError`` for a matrix that is not positive-definite instead.

    Returns
    -------
    linalg_cholesky_ex
        ``(L, info)``: NaNs and LAPACK's info (the order of the first leading minor that
        is not positive-definite) where a matrix fails; info 0 elsewhere (int32).

    Raises
    ------
    LinAlgError
        If ``check_errors`` and a matrix is not positive-definite.
    """
    need_float("linalg.cholesky_ex", A)
    need_square("linalg.cholesky_ex", A)
    try:
        return linalg_cholesky_ex(cholesky(A, upper=upper), _info(A))
    except LinAlgError:
        if check_errors:
            raise
        return linalg_cholesky_ex(*_each("linalg.cholesky_ex", cholesky_fn, [A._data],
                                         {"upper": bool(upper)}, (2,), _chol_info,
                                         A._data.shape[-2:]))


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True,
                     unitriangular: bool = False) -> Tensor:
    """The solution ``X`` of a triangular system ``A X = B`` (``torch.linalg.solve_triangular``).

    Parameters
    ----------
    A : Tensor
        Square matrices ``(*, n, n)``; only the triangle named by ``upper`` is read.
    B : Tensor
        Right-hand sides ``(*, n, k)`` (``(*, k, n)`` with ``left=False``), same dtype.
    upper : bool
        Use the upper (True) or lower (False) triangle of ``A``.
    left : bool, optional
        False: solve ``X A = B`` instead.
    unitriangular : bool, optional
        Take the diagonal of ``A`` to be ones.

    Returns
    -------
    Tensor
        ``X``, shaped as ``B`` with the batch dimensions broadcast.

    Raises
    ------
    RuntimeError
        If the shapes or dtypes do not match.
    """
    name = "linalg.solve_triangular"
    need_float(name, A, B)
    need_square(name, A)
    need_matrix(name, B, "B")
    same_dtype(name, A, B)
    n = A._data.shape[-1]
    if B._data.shape[-2 if left else -1] != n:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and "
                           f"{'x'.join(map(str, B._data.shape[-2:]))})")
    return op(name, "LinalgSolveTriangularBackward0", _tri_fn, [A, B],
              {"upper": bool(upper), "left": bool(left), "unit": bool(unitriangular)},
              ("self", "B"))


def _tol(v: TensorOrNumber | None, batch: tuple[int, ...]) -> Any:
    """A tolerance (number or tensor) broadcast to the batch shape, float64; None stays."""
    if v is None:
        return None
    if isinstance(v, Tensor):
        v = v._data
    return np.broadcast_to(np.asarray(v, dtype=np.float64), batch)


def _rcond(A: Tensor, atol: Any, rtol: Any, name: str, hermitian: bool = False) -> Any:
    """PyTorch's cutoff ``max(atol, rtol * s_max)``, per matrix, as the relative ``rcond``
    of ``ftrans.numpy.linalg.pinv``: one number when it is the same for every matrix of
    the batch, else an array of the batch shape."""
    batch = A._data.shape[:-2]
    atol, rtol = _tol(atol, batch), _tol(rtol, batch)  # (arrays of the batch shape, or None)
    m, n = A._data.shape[-2:]
    eps = np.finfo(A._data.dtype).eps
    if rtol is None:
        rtol = np.where(atol > 0, 0.0, eps * max(m, n)) if atol is not None \
            else np.broadcast_to(eps * max(m, n), batch)
    if atol is not None and np.any(atol > 0) and A._data.size:
        d = np.asarray(A._data)
        s = np.abs(np.linalg.eigvalsh(d)) if hermitian else np.linalg.svd(d, compute_uv=False)
        smax = np.max(s, axis=-1, initial=0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            rtol = np.where(smax > 0, np.maximum(rtol, atol / np.where(smax > 0, smax, 1.0)),
                            rtol)
    rtol = np.asarray(rtol, dtype=np.float64)
    if rtol.size == 0:   # an empty batch
        return float(eps * max(m, n))
    return float(rtol.flat[0]) if np.all(rtol == rtol.flat[0]) else rtol


def pinv(A: Tensor, *, atol: TensorOrNumber | None = None,
         rtol: TensorOrNumber | None = None, hermitian: bool = False,
         rcond: TensorOrNumber | None = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse (``torch.linalg.pinv``).

    Singular values below ``max(atol, rtol * s_max)`` (per matrix) are treated as zero.

    Parameters
    ----------
    A : Tensor
        Matrices ``(*, m, n)``, floating or complex.
    atol : float or Tensor, optional
        The absolute cutoff (a tensor: broadcast to the batch shape).
    rtol : float or Tensor, optional
        The cutoff relative to the largest singular value (default ``eps * max(m, n)``,
        or 0 when ``atol`` is positive).
    hermitian : bool, optional
        ``A`` is Hermitian (eigenvalues are used; square matrices only).
    rcond : float or Tensor, optional
        The deprecated name of ``rtol``.

    Returns
    -------
    Tensor
        Shape ``(*, n, m)``, ``A``'s dtype.
    """
    need_float("linalg.pinv", A)
    need_matrix("linalg.pinv", A)
    if rcond is not None:
        rtol = rcond
    if hermitian:
        need_square("linalg.pinv", A)
    rc = _rcond(A, atol, rtol, "linalg.pinv", hermitian)
    if not isinstance(rc, np.ndarray):
        return op("linalg.pinv", "LinalgPinvBackward0", _pinv_fn, [A],
                  {"rcond": rc, "hermitian": bool(hermitian)})
    # a cutoff per matrix: one pinv per matrix (the primitive's rcond is one number)
    flat = O.reshape(A, (-1,) + tuple(A.shape[-2:]))
    outs = [op("linalg.pinv", "LinalgPinvBackward0", _pinv_fn, [a],
               {"rcond": float(r), "hermitian": bool(hermitian)})
            for a, r in zip(O.unbind(flat, 0), rc.reshape(-1))]
    return O.reshape(O.stack(outs), tuple(A.shape[:-2]) + tuple(outs[0].shape))


def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *,
          driver: str | None = None) -> linalg_lstsq:
    """The least-squares solution of ``A X = B`` (``torch.linalg.lstsq``).

    The minimum-norm solution ``pinv(A) @ B``.  As with PyTorch's CPU default driver
    ``'gelsy'``, residuals and singular values are empty unless ``driver`` is
    ``'gelsd'``/``'gelss'`` (singular values) or any driver but ``'gelsy'`` (residuals,
    for tall full-rank ``A``).

    Parameters
    ----------
    A : Tensor
        Matrices ``(*, m, n)``, floating or complex.
    B : Tensor
        Right-hand sides ``(*, m, k)`` or ``(*, m)``, same dtype.
    rcond : float, optional
        Singular values below ``rcond * s_max`` count as zero (default
        ``eps * max(m, n)``).
    driver : str, optional
        LAPACK's driver name: ``"gels"``, ``"gelsy"`` (default), ``"gelsd"`` or
        ``"gelss"`` (which results are filled).

    Returns
    -------
    linalg_lstsq
        ``(solution, residuals, rank, singular_values)``.

    Raises
    ------
    RuntimeError
        If the shapes or dtypes do not match or ``driver`` is unknown.
    """
    name = "torch.linalg.lstsq"
    need_float(name, A, B)
    need_matrix(name, A)
    same_dtype(name, A, B, ("input", "other"))
    driver = "gelsy" if driver is None else driver
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"{name}: parameter `driver` should be one of (gels, gelsy, "
                           f"gelsd, gelss)")
    ad, bd = A._data, B._data
    vec = bd.ndim == ad.ndim - 1
    m, n = ad.shape[-2:]
    if bd.ndim < 1 or bd.shape[-1 if vec else -2] != m:
        raise RuntimeError(f"{name}: input.size(-2) should match other.size(-1 if vector "
                           f"else -2)")
    eps = np.finfo(ad.dtype).eps
    rc = eps * max(m, n) if rcond is None else float(rcond)
    real = np.finfo(ad.dtype).dtype
    if min(m, n):
        s = call(name, _svdvals_fn, [ad], {})
        smax = fnp.max(s, axis=-1, keepdims=True)
        rank = fnp.sum(fnp.greater(s, fnp.multiply(smax, rc)), axis=-1).astype(np.int64)
    else:
        s = np.zeros(ad.shape[:-2] + (0,), real)
        rank = np.zeros(ad.shape[:-2], np.int64)
    full = bool(np.all(rank == n)) if isinstance(rank, np.ndarray) else True  # (traced)
    resid = driver != "gelsy" and m > n and full
    res = op(name, "LinalgLstsqBackward0", _lstsq_fn, [A, B],
             {"rcond": rc, "vec": vec, "resid": resid}, ("self", "b"))
    residuals = res[1]
    if driver in ("gelsd", "gelss"):
        sv = _make_plain(s)
    else:
        sv = _make_plain(np.zeros((0,), real))
    rk = _make_plain(rank) if driver != "gels" else _make_plain(np.zeros((0,), np.int64))
    return linalg_lstsq(res[0], residuals, rk, sv)


def tensorinv(A: Tensor, ind: int = 2) -> Tensor:
    """The inverse of ``A`` for ``tensordot`` over ``ind`` dimensions (``torch.linalg.tensorinv``).

    Parameters
    ----------
    A : Tensor
        A tensor with ``prod(A.shape[:ind]) == prod(A.shape[ind:])``.
    ind : int, optional
        The number of leading dimensions of the "rows" (positive).

    Returns
    -------
    Tensor
        Shape ``A.shape[ind:] + A.shape[:ind]``.

    Raises
    ------
    RuntimeError
        If ``ind`` is not positive or the products differ.
    """
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    need_float("linalg.tensorinv", A)
    sh = A._data.shape
    p1, p2 = int(np.prod(sh[:ind])), int(np.prod(sh[ind:]))
    if p1 != p2:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape["
                           f"ind:]) == prod(self.shape[:ind]), but got {p2} != {p1}")
    return op("linalg.tensorinv", "ReshapeAliasBackward0", _tensorinv_fn, [A], {"ind": ind})


def tensorsolve(A: Tensor, B: Tensor, dims: Sequence[int] | None = None) -> Tensor:
    """The ``X`` with ``tensordot(A, X, X.ndim) == B`` (``torch.linalg.tensorsolve``).

    Parameters
    ----------
    A : Tensor
        The coefficients; ``B``'s shape followed by ``X``'s.
    B : Tensor
        The right-hand side.
    dims : sequence of int, optional
        Dimensions of ``A`` moved to the end first.

    Returns
    -------
    Tensor
        ``X``, shape ``A.shape[B.ndim:]``.
    """
    need_float("linalg.tensorsolve", A, B)
    return op("linalg.tensorsolve", "ViewBackward0", _tensorsolve_fn, [A, B],
              {"dims": None if dims is None else tuple(dims)}, ("A", "B"))


def matrix_power(A: Tensor, n: int) -> Tensor:
    """Square matrices to the integer power ``n`` (``torch.linalg.matrix_power``).

    Parameters
    ----------
    A : Tensor
        Square matrices ``(*, m, m)`` (integer ones for ``n >= 0``).
    n : int
        The exponent (negative: powers of the inverse; 0: identity matrices).

    Returns
    -------
    Tensor
        Same shape and dtype as ``A``.

    Raises
    ------
    TypeError
        If ``n`` is not an int.
    """
    need_square("linalg.matrix_power", A)
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"linalg_matrix_power(): argument 'n' must be int, not "
                        f"{type(n).__name__}")
    if n < 0:
        need_float("linalg.matrix_power", A)
    if A._data.dtype.kind not in "fc":
        return _make_plain(call("linalg.matrix_power", _matrix_power_fn, [A._data],
                                {"n": int(n)}))
    node_name = {0: "CopyBackwards", 1: "CloneBackward0", -1: "LinalgInvExBackward0"}.get(
        int(n), "MmBackward0")   # (PyTorch's last operation)
    return op("linalg.matrix_power", node_name, _matrix_power_fn, [A], {"n": int(n)})


def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential (``torch.linalg.matrix_exp``).

    Parameters
    ----------
    A : Tensor
        Square matrices ``(*, n, n)``, floating or complex.

    Returns
    -------
    Tensor
        ``exp(A)``, same shape and dtype.
    """
    need_float("linalg.matrix_exp", A)
    need_square("linalg.matrix_exp", A)
    return op("linalg.matrix_exp", "LinalgMatrixExpBackward0", _expm_fn, [A])
