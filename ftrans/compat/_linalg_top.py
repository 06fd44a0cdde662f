"""The ``torch.*`` forms of ``torch.linalg`` (``torch.det``, ``torch.inverse``,
``torch.svd`` ...) and the legacy solvers (``cholesky_solve``, ``triangular_solve``,
``lu_solve`` ...), with their Tensor methods: adapters onto the functions of
:mod:`ftrans.compat.linalg` and the ftrans compositions they use."""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from .. import numpy as fnp
from ..numpy import linalg as _fla
from ..scipy import linalg as _fsl
from ._tensor import _make_plain
from ._linalg_base import op, need_float, need_matrix, need_square, same_dtype, with_out
from ._linalg_solve import (det, slogdet, logdet, inv, pinv, matrix_power, matrix_exp, mH,
                            bcast_batch, cholesky_fn)
from ._linalg_decomp import svdvals, qr as _lqr, cross as _lcross, householder_product
from ._linalg_lu import lu_factor_ex, lu_solve as _llu_solve, lu_unpack

__all__ = ["TOPLEVEL", "METHODS"]

slogdet_t = namedtuple("slogdet", ["sign", "logabsdet"])
qr_t = namedtuple("qr", ["Q", "R"])
svd_t = namedtuple("svd", ["U", "S", "V"])
triangular_solve_t = namedtuple("triangular_solve", ["solution", "cloned_coefficient"])
geqrf_t = namedtuple("geqrf", ["a", "tau"])


# ------------------------------------------------------------------ compositions (ftrans)
def _gram(l, upper):
    return fnp.matmul(mH(l), l) if upper else fnp.matmul(l, mH(l))


def _cholesky_inverse_fn(l, *, upper):
    g = _gram(l, upper)
    return _fla.inv(g)


def _cholesky_solve_fn(b, l, *, upper):
    g = _gram(l, upper)
    g, b = bcast_batch(g, b)
    return _fla.solve(g, b)


def _triangular_solve_fn(b, a, *, upper, transpose, unit):
    a2, b2 = bcast_batch(a, b)
    x = _fsl.solve_triangular(a2, b2, trans=1 if transpose else 0, lower=not upper,
                              unit_diagonal=unit)
    return x, a


def _legacy_svd_fn(a, *, some):
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


def _geqrf_fn(a):
    return _fsl.geqrf(a)


def _ormqr_fn(a, tau, c, *, left, transpose):
    return _fsl.ormqr(a, tau, c, left, transpose)


def _lowrank_fn(a, *, q):
    u, s, vh = _fla.svd(a, full_matrices=False)
    return u[..., :, :q], s[..., :q], mH(vh)[..., :, :q]


# ------------------------------------------------------------------ torch.* functions
def cholesky(input, upper=False):  # noqa: A002
    """``torch.cholesky`` (deprecated in PyTorch): ``L`` (``upper``: ``U``)."""
    need_float("cholesky", input)
    need_square("cholesky", input)
    return op("cholesky", "CholeskyBackward0", cholesky_fn,
              [input], {"upper": bool(upper)})


def cholesky_inverse(input, upper=False):  # noqa: A002
    """``torch.cholesky_inverse``: ``(L L^H)^{-1}`` (``upper``: ``(U^H U)^{-1}``) from a
    Cholesky factor."""
    need_float("cholesky_inverse", input)
    need_square("cholesky_inverse", input, "input")
    return op("cholesky_inverse", "CholeskyInverseBackward0", _cholesky_inverse_fn, [input],
              {"upper": bool(upper)})


def _check_legacy_solve(name, b, a):
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


def cholesky_solve(input, input2, upper=False):  # noqa: A002
    """``torch.cholesky_solve``: ``X`` with ``(L L^H) X = B`` (``input`` is ``B``,
    ``input2`` the factor)."""
    name = "cholesky_solve"
    _check_legacy_solve(name, input, input2)
    return op(name, "CholeskySolveBackward0", _cholesky_solve_fn, [input, input2],
              {"upper": bool(upper)}, ("self", "input2"))


def cross(input, other, dim=None):  # noqa: A002
    """``torch.cross``: ``linalg.cross`` along ``dim`` (None: the first dimension of size
    3, PyTorch's deprecated default)."""
    if dim is None:
        shape = np.broadcast_shapes(input._data.shape, other._data.shape)
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return _lcross(input, other, dim=dim)


def inverse(input):  # noqa: A002
    """``torch.inverse``: ``linalg.inv``."""
    return inv(input)


def torch_slogdet(input):  # noqa: A002
    """``torch.slogdet`` -> ``(sign, logabsdet)``."""
    return slogdet_t(*slogdet(input))


def pinverse(input, rcond=1e-15):  # noqa: A002
    """``torch.pinverse``: ``linalg.pinv`` with ``rtol=rcond``."""
    return pinv(input, rtol=rcond)


def torch_qr(input, some=True):  # noqa: A002
    """``torch.qr`` (deprecated in PyTorch) -> ``(Q, R)``."""
    return qr_t(*_lqr(input, "reduced" if some else "complete"))


def torch_svd(input, some=True, compute_uv=True):  # noqa: A002
    """``torch.svd`` -> ``(U, S, V)`` (``V``, not ``Vh``; ``some=False``: full ``U``/``V``;
    ``compute_uv=False``: zero ``U``/``V`` of the full shapes, as PyTorch)."""
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


def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):  # noqa: A002
    """``torch.triangular_solve`` -> ``(solution, cloned_coefficient)`` (``input`` is
    ``B``)."""
    name = "triangular_solve"
    _check_legacy_solve(name, input, A)
    x, c = op(name, "TriangularSolveBackward0", _triangular_solve_fn, [input, A],
              {"upper": bool(upper), "transpose": bool(transpose),
               "unit": bool(unitriangular)}, ("self", "A"))
    return triangular_solve_t(x, c)


def torch_lu(A, pivot=True, get_infos=False):
    """``torch.lu`` -> ``(A_LU, pivots[, infos])``."""
    LU, piv, info = lu_factor_ex(A, pivot=pivot)
    return (LU, piv, info) if get_infos else (LU, piv)


def torch_lu_solve(b, LU_data, LU_pivots):
    """``torch.lu_solve(b, LU_data, LU_pivots)``: ``linalg.lu_solve(LU, pivots, b)``."""
    return _llu_solve(LU_data, LU_pivots, b)


def torch_matrix_power(input, n):  # noqa: A002
    """``torch.matrix_power``: ``linalg.matrix_power``."""
    return matrix_power(input, n)


def _orgqr(input, tau):  # noqa: A002
    """``torch.orgqr``: ``linalg.householder_product``."""
    return householder_product(input, tau)


def geqrf(input):  # noqa: A002
    """``torch.geqrf`` -> ``(a, tau)``: LAPACK's packed Householder QR (values as
    ``scipy.linalg.qr(mode='raw')``; PyTorch gives no derivative, nor does this)."""
    need_float("geqrf", input)
    if input._data.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    a, tau = op("geqrf", None, _geqrf_fn, [input])
    return geqrf_t(a, tau)


def ormqr(input, input2, input3, left=True, transpose=False):  # noqa: A002
    """``torch.ormqr``: ``op(Q) C`` (``left``) or ``C op(Q)`` for ``geqrf``'s ``(input,
    input2)``, ``op`` the conjugate transpose when ``transpose``."""
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


def svd_lowrank(A, q=6, niter=2, M=None):
    """``torch.svd_lowrank`` -> ``(U, S, V)`` of rank ``q``: the leading ``q`` singular
    triplets of ``A - M``, computed exactly (PyTorch's randomized estimate approximates
    them: values agree up to its approximation error and the signs of the vectors)."""
    if M is not None:
        A = A - M
    need_float("svd_lowrank", A)
    need_matrix("svd_lowrank", A)
    q = 6 if q is None else int(q)
    return op("svd_lowrank", "LinalgSvdBackward0", _lowrank_fn, [A], {"q": q})


def pca_lowrank(A, q=None, center=True, niter=2):
    """``torch.pca_lowrank`` -> ``(U, S, V)``: ``svd_lowrank`` of ``A`` (centered
    over its rows when ``center``), ``q`` defaulting to ``min(6, m, n)``."""
    need_matrix("pca_lowrank", A)
    m, n = A._data.shape[-2:]
    q = min(6, m, n) if q is None else int(q)
    if not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if center:
        A = A - A.mean(dim=-2, keepdim=True)
    return svd_lowrank(A, q, niter)


def _mH(self):
    """``Tensor.mH``: the conjugate transpose of the last two dimensions."""
    t = self.mT
    return t.conj() if t._data.dtype.kind == "c" else t


def _H(self):
    """``Tensor.H``: the conjugate transpose of a matrix."""
    if self._data.ndim not in (0, 2):
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self._data.ndim}-D tensor.")
    return _mH(self) if self._data.ndim == 2 else self


TOPLEVEL = {"cholesky": cholesky, "cholesky_inverse": cholesky_inverse,
            "cholesky_solve": cholesky_solve, "cross": cross, "det": det, "logdet": logdet,
            "slogdet": torch_slogdet, "inverse": inverse, "lu": torch_lu,
            "lu_solve": torch_lu_solve, "lu_unpack": lu_unpack, "matrix_exp": matrix_exp,
            "matrix_power": torch_matrix_power, "pinverse": pinverse, "qr": torch_qr,
            "svd": torch_svd, "triangular_solve": triangular_solve, "orgqr": _orgqr,
            "geqrf": geqrf, "ormqr": ormqr, "svd_lowrank": svd_lowrank,
            "pca_lowrank": pca_lowrank}
_NO_OUT = ("svd_lowrank", "pca_lowrank", "lu", "logdet", "pinverse", "det", "matrix_exp")
TOPLEVEL = {n: f if n in _NO_OUT else with_out(f, n) for n, f in TOPLEVEL.items()}
METHODS = {"cholesky": cholesky, "cholesky_inverse": cholesky_inverse,
           "cholesky_solve": cholesky_solve, "cross": cross, "det": det, "logdet": logdet,
           "slogdet": torch_slogdet, "inverse": inverse, "lu": torch_lu,
           "lu_solve": torch_lu_solve, "matrix_exp": matrix_exp,
           "matrix_power": torch_matrix_power, "pinverse": pinverse, "qr": torch_qr,
           "svd": torch_svd, "triangular_solve": triangular_solve, "orgqr": _orgqr,
           "geqrf": geqrf, "ormqr": ormqr, "mH": property(_mH), "H": property(_H),
           "adjoint": _mH}
