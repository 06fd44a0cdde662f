"""The ``torch.*`` forms of ``torch.linalg`` (``torch.det``, ``torch.inverse``,
``torch.svd`` ...) and the legacy solvers (``cholesky_solve``, ``triangular_solve``,
``lu_solve`` ...), with their Tensor methods: adapters onto the functions of
:mod:`ftrans.compat.linalg` and the ftrans compositions they use."""
from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import numpy as fnp
from ..numpy import linalg as _fla
from ..scipy import linalg as _fsl
from ._tensor import _make_plain
from .types import Tensor
from ._linalg_base import op, need_float, need_matrix, need_square, same_dtype, with_out
from ._linalg_solve import (det, slogdet, logdet, inv, pinv, matrix_power, matrix_exp, mH,
                            bcast_batch, cholesky_fn)
from ._linalg_decomp import svdvals, qr as _lqr, cross as _lcross, householder_product
from ._linalg_lu import lu_factor_ex, lu_solve as _llu_solve, lu_unpack

__all__ = ["TOPLEVEL", "METHODS"]

# torch.return_types.* (the classes keep torch's names)
slogdet_t = namedtuple("slogdet", ["sign", "logabsdet"])  # type: ignore[name-match]
qr_t = namedtuple("qr", ["Q", "R"])  # type: ignore[name-match]
svd_t = namedtuple("svd", ["U", "S", "V"])  # type: ignore[name-match]
triangular_solve_t = namedtuple(  # type: ignore[name-match]
    "triangular_solve", ["solution", "cloned_coefficient"])
geqrf_t = namedtuple("geqrf", ["a", "tau"])  # type: ignore[name-match]


# ------------------------------------------------------------------ compositions (ftrans)
def _gram(l: Any, upper: bool) -> Any:  # noqa: E741
    return fnp.matmul(mH(l), l) if upper else fnp.matmul(l, mH(l))


def _cholesky_inverse_fn(l: Any, *, upper: bool) -> Any:  # noqa: E741
    g = _gram(l, upper)
    return _fla.inv(g)


def _cholesky_solve_fn(b: Any, l: Any, *, upper: bool) -> Any:  # noqa: E741
    g = _gram(l, upper)
    g, b = bcast_batch(g, b)
    return _fla.solve(g, b)


def _triangular_solve_fn(b: Any, a: Any, *, upper: bool, transpose: bool,
                         unit: bool) -> tuple[Any, Any]:
    a2, b2 = bcast_batch(a, b)
    x = _fsl.solve_triangular(a2, b2, trans=1 if transpose else 0, lower=not upper,
                              unit_diagonal=unit)
    return x, a


def _legacy_svd_fn(a: Any, *, some: bool) -> tuple[Any, Any, Any]:
    m, n = a.shape[-2:]
    k = min(m, n)
    u, s, vh = _fla.svd(a, full_matrices=False)
    if not some and m != n:
        uf, _, vhf = _fla.svd(fnp.stop_gradient(a), full_matrices=True)
        if m > k:
            u = fnp.concatenate([u, uf[..., :, k:]], axis=-1)
        if n > k:
            vh = fnp.concatenate([vh, vhf[..., k:, :]], axis=-2)
    return u, s, mH(vh)


def _geqrf_fn(a: Any) -> Any:
    return _fsl.geqrf(a)


def _ormqr_fn(a: Any, tau: Any, c: Any, *, left: bool, transpose: bool) -> Any:
    return _fsl.ormqr(a, tau, c, left, transpose)


def _lowrank_fn(a: Any, *, q: int) -> tuple[Any, Any, Any]:
    u, s, vh = _fla.svd(a, full_matrices=False)
    return u[..., :, :q], s[..., :q], mH(vh)[..., :, :q]


# ------------------------------------------------------------------ torch.* functions
def cholesky(input: Tensor, upper: bool = False) -> Tensor:  # noqa: A002
    """The Cholesky factor (``torch.cholesky``, deprecated in PyTorch).

    Parameters
    ----------
    input : Tensor
        Hermitian positive-definite matrices ``(*, n, n)``.
    upper : bool, optional
        Return ``U`` with ``A = U^H U`` instead of ``L`` with ``A = L L^H``.

    Returns
    -------
    Tensor
        The triangular factor, same shape and dtype.
    """
    need_float("cholesky", input)
    need_square("cholesky", input)
    return op("cholesky", "CholeskyBackward0", cholesky_fn,
              [input], {"upper": bool(upper)})


def cholesky_inverse(input: Tensor, upper: bool = False) -> Tensor:  # noqa: A002
    """The inverse of ``A`` from its Cholesky factor (``torch.cholesky_inverse``).

    Parameters
    ----------
    input : Tensor
        The factor ``L`` ``(*, n, n)`` (``upper``: ``U``).
    upper : bool, optional
        ``input`` is ``U`` with ``A = U^H U``.

    Returns
    -------
    Tensor
        ``(L L^H)^-1`` (``(U^H U)^-1``), same shape and dtype.
    """
    need_float("cholesky_inverse", input)
    need_square("cholesky_inverse", input, "input")
    return op("cholesky_inverse", "CholeskyInverseBackward0", _cholesky_inverse_fn, [input],
              {"upper": bool(upper)})


def _check_legacy_solve(name: str, b: Tensor, a: Tensor) -> None:
    """PyTorch's checks of ``name(b, A)`` (the legacy argument order)."""
    need_float(name, b, a)
    need_square(name, a, "A")
    need_matrix(name, b, "b")
    same_dtype(name, b, a, ("b", "A"))
    n = a._data.shape[-1]
    if b._data.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is {n} by "
                           f"{n} but each b matrix is {b._data.shape[-2]} by "
                           f"{b._data.shape[-1]}")


def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False) -> Tensor:  # noqa: A002
    """The solution of ``A X = B`` from ``A``'s Cholesky factor (``torch.cholesky_solve``).

    Parameters
    ----------
    input : Tensor
        The right-hand sides ``B`` ``(*, n, k)``.
    input2 : Tensor
        The factor ``L`` ``(*, n, n)`` with ``A = L L^H`` (``upper``: ``U``), same dtype.
    upper : bool, optional
        ``input2`` is ``U`` with ``A = U^H U``.

    Returns
    -------
    Tensor
        ``X``, the broadcast shape of ``B``.

    Raises
    ------
    RuntimeError
        If the shapes or dtypes do not match.
    """
    name = "cholesky_solve"
    _check_legacy_solve(name, input, input2)
    return op(name, "CholeskySolveBackward0", _cholesky_solve_fn, [input, input2],
              {"upper": bool(upper)}, ("self", "input2"))


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:  # noqa: A002
    """Cross products of 3-vectors (``torch.cross``).

    Parameters
    ----------
    input : Tensor
        The first vectors.
    other : Tensor
        The second vectors (broadcast).
    dim : int, optional
        The dimension of the vectors (default: the first of size 3, PyTorch's deprecated
        default).

    Returns
    -------
    Tensor
        ``linalg.cross(input, other, dim=dim)``.

    Raises
    ------
    RuntimeError
        If ``dim`` is None and no dimension has size 3.
    """
    if dim is None:
        shape = np.broadcast_shapes(input._data.shape, other._data.shape)
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return _lcross(input, other, dim=dim)


def inverse(input: Tensor) -> Tensor:  # noqa: A002
    """The inverse of square matrices (``torch.inverse``, ``linalg.inv``).

    Parameters
    ----------
    input : Tensor
        Square matrices ``(*, n, n)``.

    Returns
    -------
    Tensor
        Same shape and dtype.
    """
    return inv(input)


def torch_slogdet(input: Tensor) -> slogdet_t:  # noqa: A002
    """Sign and log absolute value of the determinant (``torch.slogdet``).

    Parameters
    ----------
    input : Tensor
        Square matrices ``(*, n, n)``.

    Returns
    -------
    slogdet
        ``(sign, logabsdet)``, shape ``(*)`` each.
    """
    return slogdet_t(*slogdet(input))


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:  # noqa: A002
    """The pseudo-inverse (``torch.pinverse``: ``linalg.pinv`` with ``rtol=rcond``).

    Parameters
    ----------
    input : Tensor
        Matrices ``(*, m, n)``.
    rcond : float, optional
        Singular values below ``rcond * s_max`` count as zero.

    Returns
    -------
    Tensor
        Shape ``(*, n, m)``.
    """
    return pinv(input, rtol=rcond)


def torch_qr(input: Tensor, some: bool = True) -> qr_t:  # noqa: A002
    """The QR decomposition (``torch.qr``, deprecated in PyTorch).

    Parameters
    ----------
    input : Tensor
        Matrices ``(*, m, n)``.
    some : bool, optional
        The reduced decomposition (False: the complete one).

    Returns
    -------
    qr
        ``(Q, R)``.
    """
    return qr_t(*_lqr(input, "reduced" if some else "complete"))


def torch_svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> svd_t:  # noqa: A002
    """The singular value decomposition ``A = U diag(S) V^H`` (``torch.svd``).

    Parameters
    ----------
    input : Tensor
        Matrices ``(*, m, n)``, floating or complex.
    some : bool, optional
        The reduced decomposition (False: square ``U`` and ``V``).
    compute_uv : bool, optional
        False: ``U`` and ``V`` are zero matrices of the full shapes, as PyTorch.

    Returns
    -------
    svd
        ``(U, S, V)`` -- ``V``, not ``Vh``.
    """
    need_float("svd", input)
    need_matrix("svd", input)
    d = input._data
    m, n = d.shape[-2:]
    if not compute_uv:
        s = svdvals(input)
        z = d.shape[:-2]
        return svd_t(_make_plain(np.zeros(z + (m, m), d.dtype)), s,
                     _make_plain(np.zeros(z + (n, n), d.dtype)))
    return svd_t(*op("svd", "LinalgSvdBackward0", _legacy_svd_fn, [input],
                     {"some": bool(some)}))


def triangular_solve(input: Tensor, A: Tensor, upper: bool = True,  # noqa: A002
                     transpose: bool = False, unitriangular: bool = False) -> triangular_solve_t:
    """The solution of a triangular system ``A X = b`` (``torch.triangular_solve``).

    Parameters
    ----------
    input : Tensor
        The right-hand sides ``b`` ``(*, n, k)``.
    A : Tensor
        Triangular matrices ``(*, n, n)``, same dtype.
    upper : bool, optional
        Use the upper triangle of ``A`` (False: the lower).
    transpose : bool, optional
        Solve ``A^T X = b``.
    unitriangular : bool, optional
        Take the diagonal of ``A`` to be ones.

    Returns
    -------
    triangular_solve
        ``(solution, cloned_coefficient)``: ``X`` and a copy of ``A``.

    Raises
    ------
    RuntimeError
        If the shapes or dtypes do not match.
    """
    name = "triangular_solve"
    _check_legacy_solve(name, input, A)
    x, c = op(name, "TriangularSolveBackward0", _triangular_solve_fn, [input, A],
              {"upper": bool(upper), "transpose": bool(transpose),
               "unit": bool(unitriangular)}, ("self", "A"))
    return triangular_solve_t(x, c)


def torch_lu(A: Tensor, pivot: bool = True, get_infos: bool = False) -> tuple[Tensor, ...]:
    """The compact LU factorization (``torch.lu``).

    Parameters
    ----------
    A : Tensor
        Matrices ``(*, m, n)``.
    pivot : bool, optional
        Must be True.
    get_infos : bool, optional
        Also return LAPACK's info (zeros).

    Returns
    -------
    tuple of Tensor
        ``(A_LU, pivots)``, or ``(A_LU, pivots, infos)``.
    """
    LU, piv, info = lu_factor_ex(A, pivot=pivot)
    return (LU, piv, info) if get_infos else (LU, piv)


def torch_lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    """The solution of ``A X = b`` from ``A``'s LU factorization (``torch.lu_solve``).

    Parameters
    ----------
    b : Tensor
        The right-hand sides ``(*, n, k)``.
    LU_data : Tensor
        The compact LU ``(*, n, n)``.
    LU_pivots : Tensor
        Its int32 pivots.

    Returns
    -------
    Tensor
        ``linalg.lu_solve(LU_data, LU_pivots, b)``.
    """
    return _llu_solve(LU_data, LU_pivots, b)


def torch_matrix_power(input: Tensor, n: int) -> Tensor:  # noqa: A002
    """Square matrices to the integer power ``n`` (``torch.matrix_power``).

    Parameters
    ----------
    input : Tensor
        Square matrices ``(*, m, m)``.
    n : int
        The exponent.

    Returns
    -------
    Tensor
        ``linalg.matrix_power(input, n)``.
    """
    return matrix_power(input, n)


def _orgqr(input: Tensor, tau: Tensor) -> Tensor:  # noqa: A002
    """The product of Householder reflectors (``torch.orgqr``).

    Parameters
    ----------
    input : Tensor
        The reflectors' vectors ``(*, m, n)``.
    tau : Tensor
        Their factors ``(*, k)``.

    Returns
    -------
    Tensor
        ``linalg.householder_product(input, tau)``.
    """
    return householder_product(input, tau)


def geqrf(input: Tensor) -> geqrf_t:  # noqa: A002
    """LAPACK's packed Householder QR (``torch.geqrf``).

    Values as ``scipy.linalg.qr(mode='raw')``; PyTorch gives no derivative, nor does
    this.

    Parameters
    ----------
    input : Tensor
        Matrices ``(*, m, n)``.

    Returns
    -------
    geqrf
        ``(a, tau)``: ``R`` above the diagonal, the reflectors below, and their factors.

    Raises
    ------
    RuntimeError
        If ``input`` has fewer than 2 dimensions.
    """
    need_float("geqrf", input)
    if input._data.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    a, tau = op("geqrf", None, _geqrf_fn, [input])
    return geqrf_t(a, tau)


def ormqr(input: Tensor, input2: Tensor, input3: Tensor, left: bool = True,  # noqa: A002
          transpose: bool = False) -> Tensor:
    """The product of ``geqrf``'s ``Q`` with a matrix (``torch.ormqr``).

    Parameters
    ----------
    input : Tensor
        ``geqrf``'s ``a``.
    input2 : Tensor
        ``geqrf``'s ``tau``.
    input3 : Tensor
        The matrices ``C``.
    left : bool, optional
        ``op(Q) C`` (False: ``C op(Q)``).
    transpose : bool, optional
        ``op`` is the conjugate transpose.

    Returns
    -------
    Tensor
        Shaped as ``input3``.

    Raises
    ------
    RuntimeError
        If the shapes or dtypes do not match.
    """
    name = "torch.ormqr"
    a, tau, c = input._data, input2._data, input3._data
    if a.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if c.ndim < 2:
        raise RuntimeError(f"{name}: other must have at least 2 dimensions.")
    need_float(name, input, input2, input3)
    m = c.shape[-2 if left else -1]
    if tau.shape[-1] != min(m, a.shape[-1]):
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min(other.shape"
                           f"[{-2 if left else -1}], input.shape[-1])")
    if a.shape[-2] != m:
        raise RuntimeError(f"{name}: input.shape[-2] must be equal to other.shape"
                           f"[{-2 if left else -1}]")
    if a.shape[:-2] != c.shape[:-2] or tau.shape[:-1] != a.shape[:-2]:
        raise RuntimeError(f"{name}: Expected batch dimensions of input, tau and other to "
                           "be equal")
    same_dtype(name, input, input3, ("input", "other"))
    same_dtype(name, input, input2, ("input", "tau"))
    return op(name, "OrmqrBackward0", _ormqr_fn, [input, input2, input3],
              {"left": bool(left), "transpose": bool(transpose)}, ("self", "input2", "input3"))


def svd_lowrank(A: Tensor, q: int | None = 6, niter: int = 2,
                M: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """The leading ``q`` singular triplets of ``A - M`` (``torch.svd_lowrank``).

    Computed exactly: PyTorch's randomized estimate approximates them (values agree up
    to its approximation error and the signs of the vectors).

    Parameters
    ----------
    A : Tensor
        Matrices ``(*, m, n)``.
    q : int, optional
        The rank (6 by default).
    niter : int, optional
        Accepted (PyTorch's number of subspace iterations).
    M : Tensor, optional
        Subtracted from ``A`` first.

    Returns
    -------
    tuple of Tensor
        ``(U, S, V)``: ``(*, m, q)``, ``(*, q)``, ``(*, n, q)``.
    """
    if M is not None:
        A = A - M
    need_float("svd_lowrank", A)
    need_matrix("svd_lowrank", A)
    q = 6 if q is None else int(q)
    return op("svd_lowrank", "LinalgSvdBackward0", _lowrank_fn, [A], {"q": q})


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True,
                niter: int = 2) -> tuple[Tensor, Tensor, Tensor]:
    """Principal components: ``svd_lowrank`` of the centered ``A`` (``torch.pca_lowrank``).

    Parameters
    ----------
    A : Tensor
        Matrices ``(*, m, n)``.
    q : int, optional
        The rank (``min(6, m, n)`` by default).
    center : bool, optional
        Subtract the mean over the rows first.
    niter : int, optional
        Accepted (PyTorch's number of subspace iterations).

    Returns
    -------
    tuple of Tensor
        ``(U, S, V)``.

    Raises
    ------
    ValueError
        If ``q`` is negative or above ``min(m, n)``.
    """
    need_matrix("pca_lowrank", A)
    m, n = A._data.shape[-2:]
    q = min(6, m, n) if q is None else int(q)
    if not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if center:
        A = A - A.mean(dim=-2, keepdim=True)
    return svd_lowrank(A, q, niter)


def _mH(self: Tensor) -> Tensor:
    """``Tensor.mH``: the conjugate transpose of the last two dimensions."""
    t = self.mT
    return t.conj() if t._data.dtype.kind == "c" else t


def _H(self: Tensor) -> Tensor:
    """``Tensor.H``: the conjugate transpose of a matrix."""
    if self._data.ndim not in (0, 2):
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self._data.ndim}-D tensor.")
    return _mH(self) if self._data.ndim == 2 else self


TOPLEVEL: dict[str, Callable[..., Any]] = {
            "cholesky": cholesky, "cholesky_inverse": cholesky_inverse,
            "cholesky_solve": cholesky_solve, "cross": cross, "det": det, "logdet": logdet,
            "slogdet": torch_slogdet, "inverse": inverse, "lu": torch_lu,
            "lu_solve": torch_lu_solve, "lu_unpack": lu_unpack, "matrix_exp": matrix_exp,
            "matrix_power": torch_matrix_power, "pinverse": pinverse, "qr": torch_qr,
            "svd": torch_svd, "triangular_solve": triangular_solve, "orgqr": _orgqr,
            "geqrf": geqrf, "ormqr": ormqr, "svd_lowrank": svd_lowrank,
            "pca_lowrank": pca_lowrank}
_NO_OUT = ("svd_lowrank", "pca_lowrank", "lu", "logdet", "pinverse", "det", "matrix_exp")
TOPLEVEL = {n: f if n in _NO_OUT else with_out(f, n) for n, f in TOPLEVEL.items()}
METHODS: dict[str, Any] = {"cholesky": cholesky, "cholesky_inverse": cholesky_inverse,
           "cholesky_solve": cholesky_solve, "cross": cross, "det": det, "logdet": logdet,
           "slogdet": torch_slogdet, "inverse": inverse, "lu": torch_lu,
           "lu_solve": torch_lu_solve, "matrix_exp": matrix_exp,
           "matrix_power": torch_matrix_power, "pinverse": pinverse, "qr": torch_qr,
           "svd": torch_svd, "triangular_solve": triangular_solve, "orgqr": _orgqr,
           "geqrf": geqrf, "ormqr": ormqr, "mH": property(_mH), "H": property(_H),
           "adjoint": _mH}
