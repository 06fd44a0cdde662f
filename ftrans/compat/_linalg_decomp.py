"""``torch.linalg`` decompositions (eig, eigh, svd, qr), norms, rank and products, adapted
onto :mod:`ftrans.numpy.linalg` (see :mod:`ftrans.compat.linalg`)."""
from __future__ import annotations

import math
from collections import namedtuple
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import numpy as fnp
from ..numpy import linalg as _fla
from ..scipy import linalg as _fsl
from ._tensor import Tensor, _make_plain
from .types import DTypeArg, TensorOrNumber
from ._join_ops import matmul
from ._shape_ops import diagonal as _diagonal, reshape as _reshape
from ._linalg_base import op, call, need_float, need_matrix, need_square, same_dtype

__all__ = ["eig", "eigvals", "eigh", "eigvalsh", "svd", "svdvals", "qr", "vector_norm",
           "matrix_norm", "norm", "cond", "matrix_rank", "multi_dot", "cross", "vecdot",
           "diagonal", "vander", "householder_product", "matmul"]

linalg_eig = namedtuple("linalg_eig", ["eigenvalues", "eigenvectors"])
linalg_eigh = namedtuple("linalg_eigh", ["eigenvalues", "eigenvectors"])
linalg_svd = namedtuple("linalg_svd", ["U", "S", "Vh"])
linalg_qr = namedtuple("linalg_qr", ["Q", "R"])


# ------------------------------------------------------------------ compositions (ftrans)
def _eig_fn(a: Any) -> tuple[Any, ...]:
    return tuple(_fla.eig(a))


def _eigvals_fn(a: Any) -> Any:
    return _fla.eigvals(a)


def _eigh_fn(a: Any, *, uplo: str) -> tuple[Any, ...]:
    return tuple(_fla.eigh(a, uplo))


def _eigvalsh_fn(a: Any, *, uplo: str) -> Any:
    return _fla.eigvalsh(a, uplo)


def _svd_fn(a: Any, *, full: bool) -> tuple[Any, Any, Any]:
    m, n = a.shape[-2:]
    u, s, vh = _fla.svd(a, full_matrices=False)
    if full and m != n:
        # PyTorch differentiates the first min(m, n) singular vectors only: the other
        # columns (rows) are constants here
        k = min(m, n)
        uf, _, vhf = _fla.svd(fnp.stop_gradient(a), full_matrices=True)
        if m > k:
            u = fnp.concatenate([u, uf[..., :, k:]], axis=-1)
        if n > k:
            vh = fnp.concatenate([vh, vhf[..., k:, :]], axis=-2)
    return u, s, vh


def _svdvals_fn(a: Any) -> Any:
    return _fla.svdvals(a)


def _qr_fn(a: Any, *, mode: str) -> Any:
    if mode == "r":
        return _fla.qr(a, "r")
    return tuple(_fla.qr(a, mode))


def _vnorm_fn(x: Any, *, ord: float, axes: tuple[int, ...] | None,  # noqa: A002
              keepdim: bool) -> Any:
    return _fla.vector_norm(x, axis=axes, keepdims=keepdim, ord=ord)


def _mnorm_fn(x: Any, *, ord: str | float, axes: tuple[int, int],  # noqa: A002
              keepdim: bool) -> Any:
    return _fla.norm(x, ord, axes, keepdim)


def _cond_fn(a: Any, *, p: str | float | None) -> Any:
    return _fla.cond(a, p)


def _rank_fn(a: Any, atol: Any, rtol: Any, *, hermitian: bool) -> Any:
    if hermitian:
        s = fnp.abs(_fla.eigvalsh(a))
    else:
        s = _fla.svdvals(a)
    smax = fnp.max(s, axis=-1) if s.shape[-1] else fnp.zeros(s.shape[:-1], s.dtype)
    tol = fnp.maximum(atol, fnp.multiply(rtol, smax))
    return fnp.sum(fnp.greater(s, fnp.expand_dims(tol, -1)), axis=-1).astype(np.int64)


def _multi_dot_fn(*xs: Any) -> Any:
    return _fla.multi_dot(list(xs))


def _cross_fn(x: Any, y: Any, *, dim: int) -> Any:
    x, y = fnp.broadcast_arrays(x, y)
    return _fla.cross(x, y, axis=dim)


def _vecdot_fn(x: Any, y: Any, *, dim: int) -> Any:
    return fnp.sum(fnp.multiply(fnp.conj(x), y), axis=dim)


def _vander_fn(x: Any, *, n: int) -> Any:
    col = fnp.expand_dims(x, -1)
    if n == 1:
        return fnp.ones_like(col)
    rep = fnp.broadcast_to(col, tuple(x.shape) + (n - 1,))
    return fnp.cumprod(fnp.concatenate([fnp.ones_like(col), rep], axis=-1), axis=-1)


def _householder_fn(a: Any, tau: Any) -> Any:
    return _fsl.householder_product(a, tau)


# ------------------------------------------------------------------ decompositions
def eig(A: Tensor) -> linalg_eig:
    """Eigenvalues and eigenvectors of square matrices (``torch.linalg.eig``).

    Parameters
    ----------
    A : Tensor
        Square matrices ``(*, n, n)``, floating or complex.

    Returns
    -------
    linalg_eig
        ``(eigenvalues, eigenvectors)``, complex: shapes ``(*, n)`` and ``(*, n, n)``
        (unit-norm eigenvectors in the columns, as LAPACK's).
    """
    need_float("linalg.eig", A)
    need_square("linalg.eig", A)
    return linalg_eig(*op("linalg.eig", "LinalgEigBackward0", _eig_fn, [A]))


def eigvals(A: Tensor) -> Tensor:
    """Eigenvalues of square matrices (``torch.linalg.eigvals``).

    Parameters
    ----------
    A : Tensor
        Square matrices ``(*, n, n)``, floating or complex.

    Returns
    -------
    Tensor
        Complex, shape ``(*, n)``.
    """
    need_float("linalg.eigvals", A)
    need_square("linalg.eigvals", A)
    return op("linalg.eigvals", "LinalgEigBackward0", _eigvals_fn, [A])


def _uplo(name: str, UPLO: str) -> str:
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO.upper()


def eigh(A: Tensor, UPLO: str = "L") -> linalg_eigh:
    """Eigenvalues and eigenvectors of Hermitian matrices (``torch.linalg.eigh``).

    Parameters
    ----------
    A : Tensor
        Hermitian (real symmetric) matrices ``(*, n, n)``.
    UPLO : {"L", "U"}, optional
        The triangle of ``A`` that is read.

    Returns
    -------
    linalg_eigh
        ``(eigenvalues, eigenvectors)``: real ascending eigenvalues ``(*, n)`` and the
        orthonormal eigenvectors in the columns ``(*, n, n)``.

    Raises
    ------
    RuntimeError
        If ``UPLO`` is not ``"L"`` or ``"U"``.
    """
    need_float("linalg.eigh", A)
    need_square("linalg.eigh", A)
    return linalg_eigh(*op("linalg.eigh", "LinalgEighBackward0", _eigh_fn, [A],
                           {"uplo": _uplo("linalg.eigh", UPLO)}))


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    """Eigenvalues of Hermitian matrices (``torch.linalg.eigvalsh``).

    Parameters
    ----------
    A : Tensor
        Hermitian (real symmetric) matrices ``(*, n, n)``.
    UPLO : {"L", "U"}, optional
        The triangle of ``A`` that is read.

    Returns
    -------
    Tensor
        Real, ascending, shape ``(*, n)``.
    """
    need_float("linalg.eigvalsh", A)
    need_square("linalg.eigvalsh", A)
    return op("linalg.eigvalsh", "LinalgEighBackward0", _eigvalsh_fn, [A],
              {"uplo": _uplo("linalg.eigvalsh", UPLO)})


def svd(A: Tensor, full_matrices: bool = True, *, driver: str | None = None) -> linalg_svd:
    """The singular value decomposition ``A = U diag(S) Vh`` (``torch.linalg.svd``).

    With ``full_matrices`` and a non-square ``A`` the gradient flows through the first
    ``min(m, n)`` singular vectors, as in PyTorch.

    Parameters
    ----------
    A : Tensor
        Matrices ``(*, m, n)``, floating or complex.
    full_matrices : bool, optional
        Square ``U`` ``(*, m, m)`` and ``Vh`` ``(*, n, n)``; False: ``k = min(m, n)``
        columns/rows.
    driver : str, optional
        Accepted and ignored (CUDA only in PyTorch).

    Returns
    -------
    linalg_svd
        ``(U, S, Vh)``; ``S`` real, descending, shape ``(*, k)``.
    """
    need_float("linalg.svd", A)
    need_matrix("linalg.svd", A)
    return linalg_svd(*op("linalg.svd", "LinalgSvdBackward0", _svd_fn, [A],
                          {"full": bool(full_matrices)}))


def svdvals(A: Tensor, *, driver: str | None = None) -> Tensor:
    """The singular values, descending (``torch.linalg.svdvals``).

    Parameters
    ----------
    A : Tensor
        Matrices ``(*, m, n)``, floating or complex.
    driver : str, optional
        Accepted and ignored (CUDA only in PyTorch).

    Returns
    -------
    Tensor
        Real, shape ``(*, min(m, n))``.
    """
    need_float("linalg.svdvals", A)
    need_matrix("linalg.svdvals", A)
    return op("linalg.svdvals", "LinalgSvdBackward0", _svdvals_fn, [A])


def qr(A: Tensor, mode: str = "reduced") -> linalg_qr:
    """The QR decomposition ``A = Q R`` (``torch.linalg.qr``).

    Parameters
    ----------
    A : Tensor
        Matrices ``(*, m, n)``, floating or complex.
    mode : {"reduced", "complete", "r"}, optional
        ``"reduced"``: ``Q`` ``(*, m, k)``, ``R`` ``(*, k, n)`` with ``k = min(m, n)``;
        ``"complete"``: ``Q`` ``(*, m, m)``; ``"r"``: ``R`` only (``Q`` empty).

    Returns
    -------
    linalg_qr
        ``(Q, R)``: ``Q`` with orthonormal columns, ``R`` upper triangular.

    Raises
    ------
    RuntimeError
        If ``mode`` is unknown.
    """
    need_float("linalg.qr", A)
    need_matrix("linalg.qr", A)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    if mode == "r":
        r = op("linalg.qr", "LinalgQrBackward0", _qr_fn, [A], {"mode": "r"})
        return linalg_qr(_make_plain(np.zeros((0,), A._data.dtype)), r)
    return linalg_qr(*op("linalg.qr", "LinalgQrBackward0", _qr_fn, [A], {"mode": mode}))


def householder_product(A: Tensor, tau: Tensor) -> Tensor:
    """The product of Householder reflectors (``torch.linalg.householder_product``).

    The first ``n`` columns of ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^H`` (LAPACK's
    ``orgqr``).

    Parameters
    ----------
    A : Tensor
        Matrices ``(*, m, n)``, ``m >= n``: the vectors ``v_i`` below the diagonal (the
        implicit 1 on it).
    tau : Tensor
        The factors ``(*, k)``, ``k <= n``, same dtype.

    Returns
    -------
    Tensor
        Shape ``(*, m, n)``.

    Raises
    ------
    RuntimeError
        If the shapes or dtypes do not match.
    """
    name = "torch.linalg.householder_product"
    need_float(name, A, tau)
    need_matrix(name, A, "input")
    m, n = A._data.shape[-2:]
    if n > m:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if tau._data.shape[-1] > n:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if tau._data.ndim != A._data.ndim - 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but "
                           f"got tau.ndim equal to {tau._data.ndim} and input.ndim is equal "
                           f"to {A._data.ndim}")
    same_dtype(name, A, tau, ("input", "tau"))
    return op(name, "LinalgHouseholderProductBackward0", _householder_fn, [A, tau],
              names=("input", "tau"))


# ------------------------------------------------------------------ norms
def _dims(dim: int | Sequence[int] | None, ndim: int, name: str) -> tuple[int, ...]:
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    out = []
    for d in dims:
        d = int(d)
        if not -max(ndim, 1) <= d < max(ndim, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(ndim, 1)}, {max(ndim, 1) - 1}], but got {d})")
        out.append(d % ndim if ndim else 0)
    if len(set(out)) != len(out):
        raise RuntimeError(f"{name}: dim {list(dims)} contains duplicates")
    return tuple(sorted(out)) if ndim else ()


def _as_dtype(x: Tensor, dtype: DTypeArg, name: str) -> Tensor:
    if dtype is None:
        return x
    if x._data.dtype.kind == "c" and dtype.is_complex is False:
        raise RuntimeError(f"{name}: dtype should be complex for complex input")
    return x.to(dtype)


def vector_norm(x: Tensor, ord: float = 2, dim: int | Sequence[int] | None = None,  # noqa: A002
                keepdim: bool = False, *, dtype: DTypeArg = None) -> Tensor:
    """The vector ``ord``-norm over ``dim`` (``torch.linalg.vector_norm``).

    Parameters
    ----------
    x : Tensor
        A floating or complex tensor.
    ord : float, optional
        The order: ``sum(|x|**ord)**(1/ord)``; ``inf``/``-inf``: max/min of ``|x|``; 0:
        the number of non-zeros.
    dim : int or sequence of int, optional
        The dimensions reduced (all by default: ``x`` flattened).
    keepdim : bool, optional
        Keep the reduced dimensions with size 1.
    dtype : dtype, optional
        ``x`` is cast to this dtype first.

    Returns
    -------
    Tensor
        Real, ``x``'s shape without ``dim``.

    Raises
    ------
    RuntimeError
        If ``ord`` is a string, or is negative or infinite on an empty dimension.
    IndexError
        If a dimension is out of range.
    """
    name = "linalg.vector_norm"
    need_float(name, x)
    x = _as_dtype(x, dtype, name)
    d = x._data
    axes = _dims(dim, d.ndim, name)
    if isinstance(ord, str):
        raise RuntimeError(f"{name}: argument 'ord' must be a number, not str")
    o = float(ord)
    if o < 0 or math.isinf(o):
        for a in (axes if d.ndim else ()):
            if d.shape[a] == 0:
                raise RuntimeError(f"{name} cannot compute the {ord} norm on an empty "
                                   "tensor because the operation does not have an identity")
    if d.ndim == 0:
        return op(name, "LinalgVectorNormBackward0", _vnorm_fn, [x],
                  {"ord": o, "axes": None, "keepdim": False})
    return op(name, "LinalgVectorNormBackward0", _vnorm_fn, [x],
              {"ord": o, "axes": axes, "keepdim": bool(keepdim)})


_MNODE = {"fro": "LinalgVectorNormBackward0", "nuc": "SumBackward1"}


def matrix_norm(A: Tensor, ord: str | float = "fro",  # noqa: A002
                dim: Sequence[int] = (-2, -1), keepdim: bool = False, *,
                dtype: DTypeArg = None) -> Tensor:
    """A matrix norm over the two dimensions ``dim`` (``torch.linalg.matrix_norm``).

    Parameters
    ----------
    A : Tensor
        A floating or complex tensor of at least 2 dimensions.
    ord : {"fro", "nuc", 1, -1, 2, -2, inf, -inf}, optional
        Frobenius, nuclear, max/min column sum (1), max/min singular value (2), max/min
        row sum (inf).
    dim : sequence of int, optional
        The two matrix dimensions.
    keepdim : bool, optional
        Keep the reduced dimensions with size 1.
    dtype : dtype, optional
        ``A`` is cast to this dtype first.

    Returns
    -------
    Tensor
        Real, ``A``'s shape without ``dim``.

    Raises
    ------
    RuntimeError
        If ``ord`` is not supported, ``dim`` is not two different dimensions, or a
        dimension is empty for a max/min order.
    """
    name = "linalg.matrix_norm"
    need_float(name, A)
    A = _as_dtype(A, dtype, name)
    need_matrix(name, A)
    d = A._data
    if len(tuple(dim)) != 2:
        raise RuntimeError(f"{name}: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
    axes = tuple(int(a) % d.ndim for a in dim)
    if axes[0] == axes[1]:
        raise RuntimeError(f"{name}: dims must be different. Got ({dim[0]}, {dim[1]})")
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"{name}: Order {ord} not supported.")
    elif ord not in (1, -1, 2, -2, math.inf, -math.inf):
        raise RuntimeError(f"{name}: Order {ord} not supported.")
    else:
        ord = float(ord) if math.isinf(ord) else int(ord)
        for a in axes:
            if d.shape[a] == 0:
                raise RuntimeError(f"{name}: The reduction dim must be non-empty for order "
                                   f"{ord}")
    node_name = _MNODE.get(ord) if isinstance(ord, str) else (
        "AmaxBackward0" if ord > 0 else "AminBackward0")
    return op(name, node_name, _mnorm_fn, [A], {"ord": ord, "axes": axes,
                                                "keepdim": bool(keepdim)})


def norm(A: Tensor, ord: str | float | None = None,  # noqa: A002
         dim: int | Sequence[int] | None = None, keepdim: bool = False, *,
         dtype: DTypeArg = None) -> Tensor:
    """A vector or matrix norm (``torch.linalg.norm``).

    A vector norm when ``dim`` is an int, or ``ord`` and ``dim`` are None (of the
    flattened ``A``); a matrix norm when ``dim`` is a 2-tuple, or ``A`` is 2-d with ``ord``
    given.

    Parameters
    ----------
    A : Tensor
        A floating or complex tensor.
    ord : str or float, optional
        The order (:func:`vector_norm`'s or :func:`matrix_norm`'s; 2 or ``"fro"`` by
        default).
    dim : int or sequence of int, optional
        One dimension (vector norm) or two (matrix norm).
    keepdim : bool, optional
        Keep the reduced dimensions with size 1.
    dtype : dtype, optional
        ``A`` is cast to this dtype first.

    Returns
    -------
    Tensor
        Real, ``A``'s shape without the reduced dimensions.

    Raises
    ------
    RuntimeError
        If ``ord`` is given without ``dim`` for an input that is not 1-d or 2-d.
    """
    vord: Any = ord   # (a str reaches vector_norm, which raises torch's error for it)
    if dim is not None:
        dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
        if len(dims) == 1:
            return vector_norm(A, 2 if ord is None else vord, dims, keepdim, dtype=dtype)
        return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype)
    nd = A._data.ndim
    if nd == 1:
        return vector_norm(A, vord, None, keepdim, dtype=dtype)
    if nd == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
    raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be "
                       f"1D or 2D. Got {nd}D.")


def cond(A: Tensor, p: str | float | None = None) -> Tensor:
    """The condition number (``torch.linalg.cond``).

    Parameters
    ----------
    A : Tensor
        Matrices ``(*, m, n)`` (square unless ``p`` is None or +-2).
    p : str or float, optional
        None or 2: ``s_max / s_min``; -2: ``s_min / s_max``; else
        ``norm(A, p) * norm(inv(A), p)`` (``"fro"``, ``"nuc"``, +-1, +-inf).

    Returns
    -------
    Tensor
        Real, shape ``(*)``.
    """
    name = "linalg.cond"
    need_float(name, A)
    need_matrix(name, A)
    if p is not None and (isinstance(p, str) or p not in (2, -2)):
        need_square(name, A)
    if A._data.size == 0 and p not in (None, 2, -2):
        return _make_plain(np.zeros(A._data.shape[:-2], np.finfo(A._data.dtype).dtype))
    node_name = "SqueezeBackward1" if p is None or p in (2, -2) else "MulBackward0"
    return op(name, node_name, _cond_fn, [A], {"p": p})


def matrix_rank(A: Tensor, tol: TensorOrNumber | None = None, hermitian: bool = False, *,
                atol: TensorOrNumber | None = None,
                rtol: TensorOrNumber | None = None) -> Tensor:
    """The numerical rank (``torch.linalg.matrix_rank``).

    The number of singular values above ``max(atol, rtol * s_max)``.

    Parameters
    ----------
    A : Tensor
        Matrices ``(*, m, n)``, floating or complex.
    tol : float or Tensor, optional
        The deprecated absolute tolerance (``atol=tol, rtol=0``).
    hermitian : bool, optional
        ``A`` is Hermitian (eigenvalues are used).
    atol : float or Tensor, optional
        The absolute tolerance (0 by default).
    rtol : float or Tensor, optional
        The relative tolerance (default ``eps * max(m, n)``, or 0 when ``atol`` is
        positive).

    Returns
    -------
    Tensor
        int64, shape ``(*)`` (no gradient).
    """
    name = "linalg.matrix_rank"
    need_float(name, A)
    need_matrix(name, A)
    if hermitian:
        need_square(name, A)
    if tol is not None:
        atol, rtol = tol, 0.0
    d = A._data
    real = np.finfo(d.dtype).dtype
    m, n = d.shape[-2:]
    at = np.zeros((), real) if atol is None else np.asarray(
        atol._data if isinstance(atol, Tensor) else atol, real)
    if rtol is None:
        default = np.asarray(np.finfo(real).eps * max(m, n), real)
        rt = default if atol is None else np.where(at > 0, np.zeros((), real), default)
    else:
        rt = np.asarray(rtol._data if isinstance(rtol, Tensor) else rtol, real)
    if d.size == 0:
        return _make_plain(np.zeros(d.shape[:-2], np.int64))
    return _make_plain(call(name, _rank_fn, [d, at, rt], {"hermitian": bool(hermitian)}))


# ------------------------------------------------------------------ products
def multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    """The chain product of matrices in the cheapest order (``torch.linalg.multi_dot``).

    Parameters
    ----------
    tensors : sequence of Tensor
        At least two 2-d tensors of one dtype; the first and last may be 1-d.

    Returns
    -------
    Tensor
        The product (1-d ends removed from the shape, as ``matmul``).

    Raises
    ------
    RuntimeError
        If there are fewer than 2 tensors, or the shapes or dtypes do not match.
    """
    ts = list(tensors)
    if len(ts) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(ts)}")
    for i, t in enumerate(ts):
        nd = t._data.ndim
        end = i in (0, len(ts) - 1)
        if nd not in ((1, 2) if end else (2,)):
            raise RuntimeError(f"multi_dot(): tensor {i} must be {'1D or ' if end else ''}2D "
                               f"but got {nd}D")
        if t._data.dtype != ts[0]._data.dtype:
            raise RuntimeError("multi_dot(): all tensors must have be the same dtype but "
                               f"tensor 0 is {ts[0].dtype} and tensor {i} {t.dtype}")
    shapes = [t._data.shape if t._data.ndim == 2 else
              ((1,) + t._data.shape if i == 0 else t._data.shape + (1,))
              for i, t in enumerate(ts)]
    for i in range(len(ts) - 1):
        if shapes[i][1] != shapes[i + 1][0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes "
                               f"{list(ts[i].shape)} and {list(ts[i + 1].shape)} cannot be "
                               "multiplied")
    if ts[0]._data.dtype.kind not in "fc":
        return _make_plain(call("multi_dot", _multi_dot_fn, [t._data for t in ts], {}))
    return op("multi_dot", "MmBackward0", _multi_dot_fn, ts, names=())


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:  # noqa: A002
    """Cross products of 3-vectors along ``dim`` (``torch.linalg.cross``).

    Parameters
    ----------
    input : Tensor
        The first vectors (size 3 along ``dim``).
    other : Tensor
        The second vectors, same dtype and number of dimensions (broadcast).
    dim : int, optional
        The dimension of the vectors.

    Returns
    -------
    Tensor
        The broadcast shape.

    Raises
    ------
    RuntimeError
        If the shapes or dtypes do not match or ``dim`` has no size 3.
    IndexError
        If ``dim`` is out of range.
    """
    a, b = input._data, other._data
    if a.ndim != b.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise RuntimeError(f"linalg.cross: the shapes {list(a.shape)} and {list(b.shape)} "
                           "do not broadcast") from None
    if not -len(shape) <= dim < len(shape):
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-len(shape)}, {len(shape) - 1}], but got {dim})")
    if a.shape[dim] != 3 or b.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{a.shape[dim]} and {b.shape[dim]}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype} but found {other.dtype}")
    if a.dtype.kind not in "fc":
        return _make_plain(call("linalg.cross", _cross_fn, [a, b], {"dim": int(dim)}))
    return op("linalg.cross", "LinalgCrossBackward0", _cross_fn, [input, other],
              {"dim": int(dim)}, ("self", "other"))


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """The dot product ``sum(conj(x) * y, dim)`` (``torch.linalg.vecdot``).

    Parameters
    ----------
    x : Tensor
        The first vectors (conjugated).
    y : Tensor
        The second vectors, same dtype (broadcast against ``x``).
    dim : int, optional
        The dimension summed.

    Returns
    -------
    Tensor
        The broadcast shape without ``dim``.

    Raises
    ------
    RuntimeError
        If the dtypes differ or the shapes do not broadcast.
    """
    if x._data.dtype != y._data.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but "
                           f"found x of type {x.dtype} and y of type {y.dtype} instead.")
    try:
        shape = np.broadcast_shapes(x._data.shape, y._data.shape)
    except ValueError:
        raise RuntimeError(f"linalg.vecdot: shapes {list(x.shape)} and {list(y.shape)} do "
                           "not broadcast") from None
    if not -len(shape) <= dim < max(len(shape), 1):
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-len(shape)}, {len(shape) - 1}], but got {dim})")
    if x._data.dtype.kind not in "fc":
        return _make_plain(call("linalg.vecdot", _vecdot_fn, [x._data, y._data],
                                {"dim": int(dim)}))
    return op("linalg.vecdot", "SumBackward1", _vecdot_fn, [x, y], {"dim": int(dim)},
              ("x", "y"))


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonals of matrices, a view (``torch.linalg.diagonal``).

    ``torch.diagonal`` with the last two dimensions as defaults.

    Parameters
    ----------
    A : Tensor
        The input.
    offset : int, optional
        The diagonal: 0 the main one, positive above it, negative below.
    dim1, dim2 : int, optional
        The matrix dimensions.

    Returns
    -------
    Tensor
        ``A`` without ``dim1``, ``dim2`` and a last dimension of the diagonal's length.
    """
    return _diagonal(A, offset, dim1, dim2)


def vander(x: Tensor, N: int | None = None) -> Tensor:
    """The Vandermonde matrix ``x[..., None] ** arange(N)`` (``torch.linalg.vander``).

    Parameters
    ----------
    x : Tensor
        The points ``(*, n)`` (a 0-d tensor counts as 1-d; bools as int64).
    N : int, optional
        The number of columns (``n`` by default; greater than 1).

    Returns
    -------
    Tensor
        Shape ``(*, n, N)``, increasing powers.

    Raises
    ------
    RuntimeError
        If ``N`` is 1 or less.
    """
    if x._data.ndim == 0:
        x = _reshape(x, 1)
    d = x._data
    n = d.shape[-1] if N is None else int(N)
    if n <= 1 and N is not None:
        raise RuntimeError("N must be greater than 1.")
    if d.dtype.kind == "b":
        d = d.astype(np.int64)
    if d.dtype.kind not in "fc":
        return _make_plain(call("linalg.vander", _vander_fn, [d], {"n": n}))
    return op("linalg.vander", "CatBackward0", _vander_fn, [x], {"n": n})
