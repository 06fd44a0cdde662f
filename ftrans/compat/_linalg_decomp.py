"""``torch.linalg`` decompositions (eig, eigh, svd, qr), norms, rank and products, adapted
onto :mod:`ftrans.numpy.linalg` (see :mod:`ftrans.compat.linalg`)."""
from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

from .. import numpy as fnp
from ..numpy import linalg as _fla
from ..scipy import linalg as _fsl
from ._tensor import Tensor, _make_plain
from ._join_ops import matmul
from ._shape_ops import diagonal as _diagonal
from ._linalg_base import op, call, need_float, need_matrix, need_square, same_dtype

__all__ = ["eig", "eigvals", "eigh", "eigvalsh", "svd", "svdvals", "qr", "vector_norm",
           "matrix_norm", "norm", "cond", "matrix_rank", "multi_dot", "cross", "vecdot",
           "diagonal", "vander", "householder_product", "matmul"]

linalg_eig = namedtuple("linalg_eig", ["eigenvalues", "eigenvectors"])
linalg_eigh = namedtuple("linalg_eigh", ["eigenvalues", "eigenvectors"])
linalg_svd = namedtuple("linalg_svd", ["U", "S", "Vh"])
linalg_qr = namedtuple("linalg_qr", ["Q", "R"])


# ------------------------------------------------------------------ compositions (ftrans)
def _eig_fn(a):
    return tuple(_fla.eig(a))


def _eigvals_fn(a):
    return _fla.eigvals(a)


def _eigh_fn(a, *, uplo):
    return tuple(_fla.eigh(a, uplo))


def _eigvalsh_fn(a, *, uplo):
    return _fla.eigvalsh(a, uplo)


def _svd_fn(a, *, full):
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


def _svdvals_fn(a):
    return _fla.svdvals(a)


def _qr_fn(a, *, mode):
    if mode == "r":
        return _fla.qr(a, "r")
    return tuple(_fla.qr(a, mode))


def _vnorm_fn(x, *, ord, axes, keepdim):
    return _fla.vector_norm(x, axis=axes, keepdims=keepdim, ord=ord)


def _mnorm_fn(x, *, ord, axes, keepdim):
    return _fla.norm(x, ord, axes, keepdim)


def _cond_fn(a, *, p):
    return _fla.cond(a, p)


def _rank_fn(a, atol, rtol, *, hermitian):
    if hermitian:
        s = fnp.abs(_fla.eigvalsh(a))
    else:
        s = _fla.svdvals(a)
    smax = fnp.max(s, axis=-1) if s.shape[-1] else fnp.zeros(s.shape[:-1], s.dtype)
    tol = fnp.maximum(atol, fnp.multiply(rtol, smax))
    return fnp.sum(fnp.greater(s, fnp.expand_dims(tol, -1)), axis=-1).astype(np.int64)


def _multi_dot_fn(*xs):
    return _fla.multi_dot(list(xs))


def _cross_fn(x, y, *, dim):
    x, y = fnp.broadcast_arrays(x, y)
    return _fla.cross(x, y, axis=dim)


def _vecdot_fn(x, y, *, dim):
    return fnp.sum(fnp.multiply(fnp.conj(x), y), axis=dim)


def _vander_fn(x, *, n):
    col = fnp.expand_dims(x, -1)
    if n == 1:
        return fnp.ones_like(col)
    rep = fnp.broadcast_to(col, tuple(x.shape) + (n - 1,))
    return fnp.cumprod(fnp.concatenate([fnp.ones_like(col), rep], axis=-1), axis=-1)


def _householder_fn(a, tau):
    return _fsl.householder_product(a, tau)


# ------------------------------------------------------------------ decompositions
def eig(A):
    """``torch.linalg.eig`` -> ``(eigenvalues, eigenvectors)``, complex (unit
    eigenvectors, as LAPACK)."""
    need_float("linalg.eig", A)
    need_square("linalg.eig", A)
    return linalg_eig(*op("linalg.eig", "LinalgEigBackward0", _eig_fn, [A]))


def eigvals(A):
    """``torch.linalg.eigvals`` (complex)."""
    need_float("linalg.eigvals", A)
    need_square("linalg.eigvals", A)
    return op("linalg.eigvals", "LinalgEigBackward0", _eigvals_fn, [A])


def _uplo(name, UPLO):
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO.upper()


def eigh(A, UPLO="L"):
    """``torch.linalg.eigh`` -> ``(eigenvalues, eigenvectors)`` of the Hermitian matrix
    given by the ``UPLO`` triangle."""
    need_float("linalg.eigh", A)
    need_square("linalg.eigh", A)
    return linalg_eigh(*op("linalg.eigh", "LinalgEighBackward0", _eigh_fn, [A],
                           {"uplo": _uplo("linalg.eigh", UPLO)}))


def eigvalsh(A, UPLO="L"):
    """``torch.linalg.eigvalsh``."""
    need_float("linalg.eigvalsh", A)
    need_square("linalg.eigvalsh", A)
    return op("linalg.eigvalsh", "LinalgEighBackward0", _eigvalsh_fn, [A],
              {"uplo": _uplo("linalg.eigvalsh", UPLO)})


def svd(A, full_matrices=True, *, driver=None):
    """``torch.linalg.svd`` -> ``(U, S, Vh)``.  With ``full_matrices`` and a non-square
    ``A`` the gradient flows through the first ``min(m, n)`` singular vectors, as in
    PyTorch.  ``driver`` (CUDA only in PyTorch) is accepted and ignored."""
    need_float("linalg.svd", A)
    need_matrix("linalg.svd", A)
    return linalg_svd(*op("linalg.svd", "LinalgSvdBackward0", _svd_fn, [A],
                          {"full": bool(full_matrices)}))


def svdvals(A, *, driver=None):
    """``torch.linalg.svdvals``: singular values, descending."""
    need_float("linalg.svdvals", A)
    need_matrix("linalg.svdvals", A)
    return op("linalg.svdvals", "LinalgSvdBackward0", _svdvals_fn, [A])


def qr(A, mode="reduced"):
    """``torch.linalg.qr`` -> ``(Q, R)`` (``mode='r'``: an empty ``Q``)."""
    need_float("linalg.qr", A)
    need_matrix("linalg.qr", A)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    if mode == "r":
        r = op("linalg.qr", "LinalgQrBackward0", _qr_fn, [A], {"mode": "r"})
        return linalg_qr(_make_plain(np.zeros((0,), A._data.dtype)), r)
    return linalg_qr(*op("linalg.qr", "LinalgQrBackward0", _qr_fn, [A], {"mode": mode}))


def householder_product(A, tau):
    """``torch.linalg.householder_product``: the first ``n`` columns of the product of
    the Householder reflectors ``I - tau_i v_i v_i^H`` (LAPACK's ``orgqr``)."""
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
def _dims(dim, ndim, name):
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


def _as_dtype(x, dtype, name):
    if dtype is None:
        return x
    if x._data.dtype.kind == "c" and dtype.is_complex is False:
        raise RuntimeError(f"{name}: dtype should be complex for complex input")
    return x.to(dtype)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """``torch.linalg.vector_norm``: ``ord`` over ``dim`` (all dimensions by default)."""
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


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """``torch.linalg.matrix_norm``: ``'fro'``, ``'nuc'``, ``±1``, ``±2``, ``±inf`` over
    the two dimensions ``dim``."""
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


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """``torch.linalg.norm``: a vector norm (``dim`` an int, or ``ord`` and ``dim`` None) or
    a matrix norm (``dim`` a 2-tuple, or a 2-d ``A`` with ``ord`` given)."""
    if dim is not None:
        dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
        if len(dims) == 1:
            return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
        return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype)
    nd = A._data.ndim
    if nd == 1:
        return vector_norm(A, ord, None, keepdim, dtype=dtype)
    if nd == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
    raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be "
                       f"1D or 2D. Got {nd}D.")


def cond(A, p=None):
    """``torch.linalg.cond``: ``s_max / s_min`` (``p`` None or ±2) or ``norm(A, p) *
    norm(inv(A), p)``."""
    name = "linalg.cond"
    need_float(name, A)
    need_matrix(name, A)
    if p is not None and (isinstance(p, str) or p not in (2, -2)):
        need_square(name, A)
    if A._data.size == 0 and p not in (None, 2, -2):
        return _make_plain(np.zeros(A._data.shape[:-2], np.finfo(A._data.dtype).dtype))
    node_name = "SqueezeBackward1" if p is None or p in (2, -2) else "MulBackward0"
    return op(name, node_name, _cond_fn, [A], {"p": p})


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """``torch.linalg.matrix_rank`` (int64; no derivative): singular values above
    ``max(atol, rtol * s_max)``."""
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
def multi_dot(tensors):
    """``torch.linalg.multi_dot``: the chain product in the cheapest order."""
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


def cross(input, other, *, dim=-1):  # noqa: A002
    """``torch.linalg.cross``: cross products of 3-vectors along ``dim`` (broadcasting)."""
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


def vecdot(x, y, *, dim=-1):
    """``torch.linalg.vecdot``: ``sum(conj(x) * y, dim)`` with broadcasting."""
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


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """``torch.linalg.diagonal``: ``torch.diagonal`` with the last two dimensions as
    defaults."""
    return _diagonal(A, offset, dim1, dim2)


def vander(x, N=None):
    """``torch.linalg.vander``: ``x[..., None] ** arange(N)`` (increasing powers)."""
    if x._data.ndim == 0:
        x = x.reshape(1)
    d = x._data
    n = d.shape[-1] if N is None else int(N)
    if n <= 1 and N is not None:
        raise RuntimeError("N must be greater than 1.")
    if d.dtype.kind == "b":
        d = d.astype(np.int64)
    if d.dtype.kind not in "fc":
        return _make_plain(call("linalg.vander", _vander_fn, [d], {"n": n}))
    return op("linalg.vander", "CatBackward0", _vander_fn, [x], {"n": n})
