"""``ftrans.numpy.linalg``: ``numpy.linalg`` written in differentiable ftrans primitives.

Names, signatures, result types (``SlogdetResult``, ``EighResult``, ``SVDResult``,
``QRResult``, ``lstsq``'s 4-tuple) and batching over leading axes follow NumPy 2.
The decompositions and solves are primitives of :mod:`ftrans.primitives.linalg`,
whose docstring gives each derivative and its source; everything else is composed
from them and from ``ftrans.numpy``.

Where derivatives exist
-----------------------
* ``solve``, ``inv``, ``det``, ``slogdet``, ``tensorinv``, ``tensorsolve``,
  ``matrix_power`` (negative powers), ``cond`` (``p`` not in ``None, 2, -2``):
  nonsingular matrices (the rules use ``a^{-1}``).
* ``cholesky``: positive definite matrices; only the lower (``upper=True``: upper)
  triangle is read, as in NumPy.
* The functions that read one triangle of a Hermitian input (``cholesky``, ``eigh``,
  ``eigvalsh``, ``svd``/``pinv``/``matrix_rank`` with ``hermitian=True``) are
  differentiated as ``a -> f((a + a^H) / 2)``, as JAX and PyTorch do: the gradient of a
  Hermitian input is Hermitian, and a tangent is projected on its Hermitian part.
* ``eigh``/``eigvalsh``: eigenvalues everywhere (also repeated); eigenvectors for
  distinct eigenvalues, for losses invariant to each eigenvector's sign/phase.
* ``svd``: singular values everywhere; singular vectors for distinct nonzero singular
  values and phase-invariant losses; ``full_matrices=True`` (NumPy's default) of a
  non-square matrix has no derivative (the extra columns are not unique): use
  ``full_matrices=False``.  ``svdvals``, ``norm(ord=2/-2/'nuc')`` and ``cond`` only use
  the singular values.
* ``qr``: full-rank matrices, ``mode='reduced'``, ``'r'``, and ``'complete'`` for
  ``m <= n``.
* ``pinv``, ``lstsq`` (the solution ``x``, the residuals and the singular values):
  where the rank is locally constant (Golub & Pereyra 1973).
* ``norm`` and ``vector_norm``/``matrix_norm``: every ``ord``/``axis`` NumPy has.  At
  non-differentiable points the gradient is the minimum-norm subgradient (PyTorch's
  autograd notes): 0 for every norm of the zero vector/matrix (the 2-norm's
  ``x / |x|`` is replaced by 0 with a double ``where``, never NaN), ``abs'(0) = 0`` for
  the 1- and p-norms, ties of the inf-norms share the gradient evenly, and the
  spectral/nuclear norms take ``abs`` of the singular values (zero singular values get
  no gradient).  ``ord=0`` counts nonzeros (derivative 0).
* ``matrix_rank``: integer result, no derivative.

A ``numpy.linalg`` name that is not provided (``eig``, ``eigvals``) raises
``AttributeError`` naming it.
"""
from __future__ import annotations

import builtins
import operator
from typing import NamedTuple, Any

import numpy as np

from ..core import Tracer, result_type
from ..kernels import foreign_array as _foreign_array
from ..core.dtypes import as_numpy_dtype as _as_numpy_dtype
from ..core.dtypes import kind_of as _kind_of
from .. import primitives as P
from ..primitives import linalg as _L
from ..primitives import _linalg_common as _LC  # the helpers the rules are written with
from ._refused import refusal as _refusal
from . import _funcs as F
from ._contract import cross as _cross
from ._funcs import _ndarray, _axis, matmul, tensordot

LinAlgError = np.linalg.LinAlgError

__all__ = ["solve", "inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh", "svd", "svdvals",
           "qr", "norm", "vector_norm", "matrix_norm", "pinv", "lstsq", "matrix_power",
           "matrix_rank", "multi_dot", "trace", "cond", "tensorinv", "tensorsolve",
           "matmul", "tensordot", "vecdot", "outer", "cross", "diagonal",
           "matrix_transpose", "LinAlgError", "SlogdetResult", "EighResult", "SVDResult",
           "QRResult", "eig", "eigvals", "EigResult"]


class SlogdetResult(NamedTuple):
    sign: Any
    logabsdet: Any


class EighResult(NamedTuple):
    eigenvalues: Any
    eigenvectors: Any


class EigResult(NamedTuple):
    eigenvalues: Any
    eigenvectors: Any


class SVDResult(NamedTuple):
    U: Any
    S: Any
    Vh: Any


class QRResult(NamedTuple):
    Q: Any
    R: Any


# ---------------------------------------------------------------------------------
# argument checks and conversions (NumPy's messages and exception types)
# ---------------------------------------------------------------------------------
def _inexact(a):
    """``a`` as an array/tracer of an inexact dtype (NumPy's linalg casts integers and
    booleans to float64)."""
    a = _ndarray(a)
    if _kind_of(a) not in "fc":
        a = P.convert_element_type(a, np.dtype(np.float64)) \
            if isinstance(a, Tracer) or _foreign_array(a) else np.asarray(a, np.float64)
    if _as_numpy_dtype(a.dtype) == np.float16:
        raise TypeError("array type float16 is unsupported in linalg")
    return a


def _common(*xs):
    xs = [_inexact(x) for x in xs]
    dt = result_type(*xs)
    return [x if _as_numpy_dtype(x.dtype) == dt else P.convert_element_type(x, dt) for x in xs]


def _assert_stacked_2d(*arrays):
    for a in arrays:
        if a.ndim < 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least "
                              "two-dimensional")


def _assert_stacked_square(*arrays):
    for a in arrays:
        if a.ndim < 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least "
                              "two-dimensional")
        m, n = a.shape[-2:]
        if m != n:
            raise LinAlgError("Last 2 dimensions of the array must be square")


def _bcast_batch(a, b):
    """Broadcast the batch (leading) axes of two stacks of matrices against each other."""
    batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    if tuple(a.shape[:-2]) != batch:
        a = P.broadcast_to(a, batch + tuple(a.shape[-2:]))
    if tuple(b.shape[:-2]) != batch:
        b = P.broadcast_to(b, batch + tuple(b.shape[-2:]))
    return a, b


def _mT(x):
    return _LC._mT(x)


def _concrete(x):
    """The concrete value of ``x`` (unwrapping forward/reverse tracers), or None where it
    is not available per example (inside ``vmap``)."""
    while isinstance(x, Tracer):
        x = getattr(x, "primal", None)
        if x is None:
            return None
    if _foreign_array(x):  # (a Dask array stays lazy: the traced path computes it)
        return None
    return np.asarray(x)


# ---------------------------------------------------------------------------------
# solves and inverses
# ---------------------------------------------------------------------------------
def solve(a, b):
    """``numpy.linalg.solve``: ``x`` with ``a @ x = b``.

    ``a``: ``(..., M, M)``; ``b``: ``(M,)`` (a vector) or ``(..., M, K)``; batch axes
    broadcast (NumPy 2 rules).  Derivative (Giles 2008): ``dx = a^{-1}(db - da x)``.

    Raises
    ------
    LinAlgError
        Non-square ``a``, or a singular matrix.
    ValueError
        Mismatched ``M``.
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


def inv(a):
    """``numpy.linalg.inv`` of ``(..., M, M)`` matrices (a solve against the identity);
    derivative ``-a^{-1} da a^{-1}``."""
    (a,) = _common(a)
    _assert_stacked_square(a)
    return _L.solve(a, _LC._eye_like(a))


def det(a):
    """``numpy.linalg.det``; gradient ``det(a) a^{-T}`` (Giles 2008), not available at
    exactly singular matrices."""
    (a,) = _common(a)
    _assert_stacked_square(a)
    return _L.det(a)


def slogdet(a):
    """``numpy.linalg.slogdet`` -> ``SlogdetResult(sign, logabsdet)``; ``d logabsdet =
    Re tr(a^{-1} da)`` and, for complex ``a``, ``d sign = sign * i Im tr(a^{-1} da)``."""
    (a,) = _common(a)
    _assert_stacked_square(a)
    return SlogdetResult(*_L.slogdet(a))


def matrix_power(a, n):
    """``numpy.linalg.matrix_power``: ``a`` to the integer power ``n`` by repeated squaring
    (NumPy's order of products); ``n < 0`` inverts first, ``n == 0`` gives the identity."""
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
    return result


def tensorinv(a, ind=2):
    """``numpy.linalg.tensorinv``: the inverse of ``a`` reshaped to a square matrix."""
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


def tensorsolve(a, b, axes=None):
    """``numpy.linalg.tensorsolve``: ``x`` with ``tensordot(a, x, x.ndim) = b``."""
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
def cholesky(a, /, *, upper=False):
    """``numpy.linalg.cholesky``: lower ``L`` with ``a = L L^H`` (``upper=True``: upper
    ``U = L^H``).  Reads only that triangle of ``a``; derivative: Murray 2016, of
    ``a -> cholesky((a + a^H) / 2)`` (Hermitian gradients, as JAX and PyTorch)."""
    (a,) = _common(a)
    _assert_stacked_square(a)
    if upper:
        return _LC._H(_L.cholesky(_LC._H(a)))
    return _L.cholesky(a)


def eigh(a, UPLO="L"):
    """``numpy.linalg.eigh`` -> ``EighResult(eigenvalues, eigenvectors)`` of the Hermitian
    matrices given by the ``UPLO`` triangle of ``a``.

    The eigenvector derivative needs distinct eigenvalues (Giles 2008; the factor
    ``1/(w_j - w_i)`` is set to 0 at exact ties, so eigenvalue-only losses stay exact)
    and a loss invariant to each eigenvector's sign (complex: phase).
    """
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    (a,) = _common(a)
    _assert_stacked_square(a)
    return EighResult(*_L.eigh(a, lower=UPLO == "L"))


def eigvalsh(a, UPLO="L"):
    """``numpy.linalg.eigvalsh``: ascending eigenvalues (gradient ``V diag(ḡ) V^H``,
    valid also for repeated eigenvalues)."""
    return eigh(a, UPLO).eigenvalues


def eig(a):
    """``numpy.linalg.eig`` -> ``EigResult(eigenvalues, eigenvectors)``, always complex
    (JAX's convention; NumPy returns a real dtype when all imaginary parts are 0).  Unit
    eigenvectors; derivative rules, phase convention and the repeated-eigenvalue policy
    in :mod:`ftrans.primitives._linalg_eig` (JAX's ``eig_jvp_rule``, Giles 2008, 3.1).

    >>> import numpy as np
    >>> eig(np.diag([1.0, 2.0])).eigenvalues
    array([1.+0.j, 2.+0.j])
    """
    (a,) = _common(a)
    _assert_stacked_square(a)
    return EigResult(*_L.eig(a))


def eigvals(a):
    """``numpy.linalg.eigvals``: the eigenvalues of :func:`eig` (complex)."""
    return eig(a).eigenvalues


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """``numpy.linalg.svd`` -> ``SVDResult(U, S, Vh)`` (or ``S`` if not ``compute_uv``).

    Differentiable with ``full_matrices=False`` (or square ``a``); see the module
    docstring for where.  ``hermitian=True`` decomposes the Hermitian matrix given by
    the lower triangle (as NumPy, which reads it through ``eigh``); its ``U``/``Vh``
    may differ from NumPy's by the sign (phase) of each singular pair, as any two SVD
    routines may.
    """
    (a,) = _common(a)
    _assert_stacked_2d(a)
    if hermitian:
        _assert_stacked_square(a)
        a = _LC._hermitian_part(a, True)
    if not compute_uv:
        return _L.svd(a, False)[1]
    m, n = a.shape[-2:]
    return SVDResult(*_L.svd(a, bool(full_matrices) and m != n))


def svdvals(x, /):
    """``numpy.linalg.svdvals``: singular values, descending (gradient ``U diag(ḡ) V^H``)."""
    return svd(x, compute_uv=False)


def qr(a, mode="reduced"):
    """``numpy.linalg.qr`` with ``mode`` ``'reduced'`` (``QRResult``), ``'complete'``
    (``QRResult``; differentiable for ``m <= n``) or ``'r'`` (``R`` only).

    Raises
    ------
    NotImplementedError
        For ``mode='raw'`` (LAPACK's Householder representation has no derivative here).
    ValueError
        For an unknown mode.
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


def _scalar_tol(v, name):
    if isinstance(v, Tracer):
        raise TypeError(f"{name} must be a concrete number, got a traced value")
    arr = np.asarray(v)
    if arr.size != 1:
        raise NotImplementedError(f"ftrans.numpy.linalg: a per-matrix array {name} is not "
                                  "supported; pass a scalar")
    return float(arr.reshape(()))


def pinv(a, rcond=None, hermitian=False, *, rtol=_NoValue):
    """``numpy.linalg.pinv`` (same cutoff rules for ``rcond``/``rtol``); derivative by
    Golub & Pereyra 1973, valid where the rank is locally constant."""
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


def lstsq(a, b, rcond=None):
    """``numpy.linalg.lstsq`` -> ``(x, residuals, rank, s)`` as NumPy.

    ``x = pinv(a, rcond) @ b`` (the minimum-norm least-squares solution; singular values
    below ``rcond * s_max`` count as zero, NumPy's default ``rcond = eps * max(M, N)``).
    ``x``, ``residuals`` and ``s`` are differentiable where the rank is locally
    constant; ``rank`` is an integer.  Residuals are returned (as in NumPy) only when
    the rank is ``N`` and ``M > N``; inside ``vmap`` over ``a`` the rank is not
    concrete per example and full column rank is assumed for that choice.
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


# ---------------------------------------------------------------------------------
# norms
# ---------------------------------------------------------------------------------
def _safe_sqrt(s):
    """``sqrt(s)`` with derivative 0 (not inf * 0 = NaN) where ``s == 0``."""
    z = P.eq(s, 0.0)
    return P.where(z, 0.0, P.sqrt(P.where(z, 1.0, s)))


def _abs2(x):
    return P.real(P.mul(P.conj(x), x)) if _kind_of(x) == "c" else P.mul(x, x)


def _vector_norm(x, ord, axes, keepdims):
    """Vector norms of ``x`` over the (tuple of non-negative) ``axes``."""
    if ord is None or ord == 2:
        return _safe_sqrt(F.sum(_abs2(x), axis=axes, keepdims=keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    if ord == np.inf:
        return F.max(P.abs(x), axis=axes, keepdims=keepdims)
    if ord == -np.inf:
        return F.min(P.abs(x), axis=axes, keepdims=keepdims)
    if ord == 0:
        nz = P.convert_element_type(P.ne(x, 0), np.finfo(x.dtype).dtype)
        return F.sum(nz, axis=axes, keepdims=keepdims)
    if ord == 1:
        return F.sum(P.abs(x), axis=axes, keepdims=keepdims)
    # general p: (sum |x|^p)^(1/p).  Zero elements are masked with double wheres: their
    # |x|^p is 0 (p > 0) with derivative 0 instead of p * 0^(p-1) (inf * 0 = NaN for
    # p < 1); for p < 0 a zero element makes the norm 0 (as NumPy: inf^(1/p)), with
    # gradient 0; the all-zero vector has norm 0 and gradient 0.
    ord = float(ord)
    ax = P.abs(x)
    zx = P.eq(ax, 0.0)
    safe = P.where(zx, 1.0, ax)
    powx = P.pow(safe, ord)
    if ord > 0:
        s = F.sum(P.where(zx, 0.0, powx), axis=axes, keepdims=keepdims)
        z = P.eq(s, 0.0)
        return P.where(z, 0.0, P.pow(P.where(z, 1.0, s), 1.0 / ord))
    s = F.sum(P.where(zx, 0.0, powx), axis=axes, keepdims=keepdims)
    anyzero = P.gt(F.sum(zx, axis=axes, keepdims=keepdims), 0)
    return P.where(anyzero, 0.0, P.pow(P.where(anyzero, 1.0, s), 1.0 / ord))


def _svd_norm(x, row_axis, col_axis, op):
    y = F.moveaxis(x, (row_axis, col_axis), (-2, -1))
    s = P.abs(svd(y, compute_uv=False))   # abs: zero singular values get no gradient
    return op(s, axis=-1)


def norm(x, ord=None, axis=None, keepdims=False):
    """``numpy.linalg.norm``: every vector (``None, 2, 1, inf, -inf, 0``, any ``p``) and
    matrix (``None/'fro', 'nuc', 1, -1, 2, -2, inf, -inf``) order NumPy has, over
    ``axis`` (None, an int or a 2-tuple), with ``keepdims``.

    Gradients at non-differentiable points: see the module docstring (0 at the zero
    vector/matrix, never NaN).

    Raises
    ------
    ValueError
        An invalid order for vectors or matrices, duplicate axes, or more than 2 axes.
    """
    x = _inexact(x)
    nd = x.ndim
    if axis is None:
        if ord is None or (isinstance(ord, str) and ord in ("f", "fro") and nd == 2) or \
                (not isinstance(ord, str) and ord == 2 and nd == 1):
            out = _safe_sqrt(F.sum(_abs2(x)))
            return P.reshape(out, (1,) * nd) if keepdims else out
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        try:
            axis = (operator.index(axis),)
        except TypeError as e:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from e
    if len(axis) == 1:
        return _vector_norm(x, ord, (_axis(axis[0], nd),), keepdims)
    if len(axis) != 2:
        raise ValueError("Improper number of dimensions to norm.")
    row_axis, col_axis = _axis(axis[0], nd), _axis(axis[1], nd)
    if row_axis == col_axis:
        raise ValueError("Duplicate axes given.")
    if isinstance(ord, str):
        if ord in ("f", "fro"):
            ret = _safe_sqrt(F.sum(_abs2(x), axis=(row_axis, col_axis)))
        elif ord == "nuc":
            ret = _svd_norm(x, row_axis, col_axis, F.sum)
        else:
            raise ValueError("Invalid norm order for matrices.")
    elif ord is None:
        ret = _safe_sqrt(F.sum(_abs2(x), axis=(row_axis, col_axis)))
    elif ord == 2:
        ret = _svd_norm(x, row_axis, col_axis, F.max)
    elif ord == -2:
        ret = _svd_norm(x, row_axis, col_axis, F.min)
    elif ord in (1, -1):
        red = F.max if ord == 1 else F.min
        c = col_axis - 1 if col_axis > row_axis else col_axis
        ret = red(F.sum(P.abs(x), axis=row_axis), axis=c)
    elif ord in (np.inf, -np.inf):
        red = F.max if ord == np.inf else F.min
        r = row_axis - 1 if row_axis > col_axis else row_axis
        ret = red(F.sum(P.abs(x), axis=col_axis), axis=r)
    else:
        raise ValueError("Invalid norm order for matrices.")
    if keepdims:
        shape = list(x.shape)
        shape[row_axis] = 1
        shape[col_axis] = 1
        ret = P.reshape(ret, tuple(shape))
    return ret


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """``numpy.linalg.vector_norm``: a vector norm over ``axis`` (None: all axes; an int
    or a tuple of ints, treated as one flattened vector)."""
    x = _inexact(x)
    nd = x.ndim
    if axis is None:
        axes = tuple(range(nd))
    elif isinstance(axis, tuple):
        axes = tuple(sorted(_axis(a, nd) for a in axis))
    else:
        axes = (_axis(axis, nd),)
    return _vector_norm(x, ord, axes, keepdims)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """``numpy.linalg.matrix_norm``: a matrix norm over the last two axes."""
    x = _inexact(x)
    _assert_stacked_2d(x)
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def cond(x, p=None):
    """``numpy.linalg.cond``: ``s_max / s_min`` for ``p in (None, 2)`` (``-2``: its
    reciprocal) from the singular values, else ``norm(x, p) * norm(inv(x), p)``."""
    (x,) = _common(x)
    _assert_stacked_2d(x)
    if x.size == 0:
        raise LinAlgError("cond is not defined on empty arrays")
    if p is None or (not isinstance(p, str) and p in (2, -2)):
        s = svdvals(x)
        first = P.gather(s, (Ellipsis, 0))
        last = P.gather(s, (Ellipsis, -1))
        return P.div(last, first) if p == -2 else P.div(first, last)
    _assert_stacked_square(x)
    return P.mul(norm(x, p, axis=(-2, -1)), norm(inv(x), p, axis=(-2, -1)))


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """``numpy.linalg.matrix_rank`` (integer result; no derivative)."""
    A = _ndarray(A)
    if A.ndim < 2:
        if isinstance(A, Tracer):
            return P.convert_element_type(P.gt(F.sum(P.ne(A, 0)), 0), np.dtype(np.int64))
        return int(not np.all(A == 0))
    S = P.stop_gradient(svd(A, compute_uv=False, hermitian=hermitian))
    if tol is None:
        if rtol is None:
            rtol = builtins.max(A.shape[-2:]) * np.finfo(S.dtype).eps
        else:
            rtol = np.asarray(rtol)[..., None]
        tol = P.mul(F.max(S, axis=-1, keepdims=True), rtol)
    else:
        tol = np.asarray(tol)[..., None]
    return F.sum(P.gt(S, tol), axis=-1)


# ---------------------------------------------------------------------------------
# products and array-API extras of numpy.linalg
# ---------------------------------------------------------------------------------
def _chain_order(shapes):
    """NumPy's ``_multi_dot_matrix_chain_order`` (dynamic programming on costs)."""
    n = len(shapes)
    p = [s[0] for s in shapes] + [shapes[-1][1]]
    m = np.zeros((n, n), dtype=np.float64)
    s = np.empty((n, n), dtype=np.intp)
    for ln in range(1, n):
        for i in range(n - ln):
            j = i + ln
            m[i, j] = np.inf
            for k in range(i, j):
                q = m[i, k] + m[k + 1, j] + p[i] * p[k + 1] * p[j + 1]
                if q < m[i, j]:
                    m[i, j] = q
                    s[i, j] = k
    return s


def _chain(arrays, order, i, j):
    if i == j:
        return arrays[i]
    return F.dot(_chain(arrays, order, i, order[i, j]),
                 _chain(arrays, order, order[i, j] + 1, j))


def multi_dot(arrays, *, out=None):
    """``numpy.linalg.multi_dot``: the chain product in NumPy's cheapest order (first
    argument may be 1-D (a row), last may be 1-D (a column))."""
    if out is not None:
        raise TypeError("ftrans.numpy.linalg.multi_dot: out= is not supported (arrays are "
                        "immutable values)")
    arrays = [_ndarray(a) for a in arrays]
    n = len(arrays)
    if n < 2:
        raise ValueError("Expecting at least two arrays.")
    if n == 2:
        return F.dot(arrays[0], arrays[1])
    ndim_first, ndim_last = arrays[0].ndim, arrays[-1].ndim
    if ndim_first == 1:
        arrays[0] = F.atleast_2d(arrays[0])
    if ndim_last == 1:
        arrays[-1] = F.transpose(F.atleast_2d(arrays[-1]))
    for a in arrays:
        if a.ndim != 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be "
                              "two-dimensional")
    if n == 3:
        a, b, c = arrays
        a0, a1b0 = a.shape
        b1c0, c1 = c.shape
        cost1 = a0 * b1c0 * (a1b0 + c1)
        cost2 = a1b0 * c1 * (a0 + b1c0)
        result = F.dot(F.dot(a, b), c) if cost1 < cost2 else F.dot(a, F.dot(b, c))
    else:
        order = _chain_order([tuple(a.shape) for a in arrays])
        result = _chain(arrays, order, 0, n - 1)
    if ndim_first == 1 and ndim_last == 1:
        return P.reshape(result, ())
    if ndim_first == 1 or ndim_last == 1:
        return F.ravel(result)
    return result


def trace(x, /, *, offset=0, dtype=None):
    """``numpy.linalg.trace``: sum of the ``offset`` diagonal of the last two axes."""
    x = _ndarray(x)
    _assert_stacked_2d(x)
    out = F.trace(x, offset=offset, axis1=-2, axis2=-1)
    return out if dtype is None else P.convert_element_type(out, np.dtype(dtype))


def diagonal(x, /, *, offset=0):
    """``numpy.linalg.diagonal``: the ``offset`` diagonal of the last two axes, as the
    last axis."""
    x = _ndarray(x)
    _assert_stacked_2d(x)
    n, m = x.shape[-2:]
    if offset >= 0:
        k = builtins.max(0, builtins.min(n, m - offset))
        rows, cols = np.arange(k), np.arange(k) + offset
    else:
        k = builtins.max(0, builtins.min(n + offset, m))
        rows, cols = np.arange(k) - offset, np.arange(k)
    return P.gather(x, (Ellipsis, rows, cols))


def matrix_transpose(x, /):
    """``numpy.linalg.matrix_transpose``: swap the last two axes."""
    x = _ndarray(x)
    _assert_stacked_2d(x)
    return _mT(x)


def vecdot(x1, x2, /, *, axis=-1):
    """``numpy.linalg.vecdot``: ``sum(conj(x1) * x2, axis)`` with broadcasting."""
    x1, x2 = _ndarray(x1), _ndarray(x2)
    prod = P.mul(P.conj(x1), x2)
    return F.sum(prod, axis=axis)


def outer(x1, x2, /):
    """``numpy.linalg.outer``: outer product of two 1-D arrays."""
    x1, x2 = _ndarray(x1), _ndarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are "
                         f"x1.ndim={x1.ndim} and x2.ndim={x2.ndim}.")
    return F.outer(x1, x2)


def cross(x1, x2, /, *, axis=-1):
    """``numpy.linalg.cross``: cross product of 3-element vectors along ``axis``."""
    x1, x2 = _ndarray(x1), _ndarray(x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(f"Both input arrays must be (arrays of) 3-dimensional vectors, "
                         f"but they are {x1.shape[axis]} and {x2.shape[axis]} "
                         "dimensional instead.")
    return _cross(x1, x2, axis=axis)


def __getattr__(name):
    if name == "test":   # NumPy's test runner (ftrans.numpy._refused)
        raise _refusal("ftrans.numpy.linalg", name)
    if hasattr(np.linalg, name):
        raise AttributeError(
            f"ftrans.numpy.linalg has no attribute {name!r}: numpy.linalg.{name} is not "
            "implemented in ftrans.numpy.linalg yet. Calling numpy.linalg."
            f"{name} directly on traced values cannot be differentiated; write it with the "
            "functions ftrans.numpy.linalg provides, or open an issue.")
    raise AttributeError(f"module 'ftrans.numpy.linalg' has no attribute {name!r}")
