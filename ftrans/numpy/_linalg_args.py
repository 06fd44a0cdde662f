"""Argument checks, conversions and result types shared by ``ftrans.numpy.linalg``'s
functions (NumPy's messages and exception types)."""
from __future__ import annotations

from typing import NamedTuple, Any

import numpy as np

from ..core import Tracer, result_type
from ..kernels import foreign_array as _foreign_array
from ..core.dtypes import as_numpy_dtype as _as_numpy_dtype
from ..core.dtypes import kind_of as _kind_of
from ..primitives import _linalg_common as _LC  # the helpers the rules are written with
from ..typing import Array, ArrayLike
from ._args import P
from ._funcs import _ndarray


LinAlgError = np.linalg.LinAlgError


class SlogdetResult(NamedTuple):
    """Result of :func:`ftrans.numpy.linalg.slogdet`: ``det = sign * exp(logabsdet)``.

    Parameters
    ----------
    sign : Array
        Sign (complex: unit phase) of the determinant, shape ``(...)``.
    logabsdet : Array
        Natural log of ``|det|``, shape ``(...)``.
    """
    sign: Array
    logabsdet: Array


class EighResult(NamedTuple):
    """Result of :func:`ftrans.numpy.linalg.eigh`.

    Parameters
    ----------
    eigenvalues : Array
        Ascending real eigenvalues, shape ``(..., M)``.
    eigenvectors : Array
        Unit eigenvectors as columns, shape ``(..., M, M)``.
    """
    eigenvalues: Array
    eigenvectors: Array


class EigResult(NamedTuple):
    """Result of :func:`ftrans.numpy.linalg.eig` (complex).

    Parameters
    ----------
    eigenvalues : Array
        Eigenvalues, shape ``(..., M)``.
    eigenvectors : Array
        Unit right eigenvectors as columns, shape ``(..., M, M)``.
    """
    eigenvalues: Array
    eigenvectors: Array


class SVDResult(NamedTuple):
    """Result of :func:`ftrans.numpy.linalg.svd`: ``a = U @ diag(S) @ Vh``.

    Parameters
    ----------
    U : Array
        Left singular vectors as columns, shape ``(..., M, K)``.
    S : Array
        Descending singular values, shape ``(..., K)``.
    Vh : Array
        Right singular vectors as rows, shape ``(..., K, N)``.
    """
    U: Array
    S: Array
    Vh: Array


class QRResult(NamedTuple):
    """Result of :func:`ftrans.numpy.linalg.qr`: ``a = Q @ R``.

    Parameters
    ----------
    Q : Array
        Orthonormal columns, shape ``(..., M, K)``.
    R : Array
        Upper triangular, shape ``(..., K, N)``.
    """
    Q: Array
    R: Array


# ---------------------------------------------------------------------------------
# argument checks and conversions (NumPy's messages and exception types)
# ---------------------------------------------------------------------------------
def _inexact(a: ArrayLike) -> Array:
    """``a`` as an array/tracer of an inexact dtype (NumPy's linalg casts integers and
    booleans to float64)."""
    a = _ndarray(a)
    if _kind_of(a) not in "fc":
        a = P.convert_element_type(a, np.dtype(np.float64)) \
            if isinstance(a, Tracer) or _foreign_array(a) else np.asarray(a, np.float64)
    if _as_numpy_dtype(a.dtype) == np.float16:
        raise TypeError("array type float16 is unsupported in linalg")
    return a


def _common(*xs: ArrayLike) -> list[Array]:
    arrs = [_inexact(x) for x in xs]
    dt = result_type(*arrs)
    return [x if _as_numpy_dtype(x.dtype) == dt else P.convert_element_type(x, dt)
            for x in arrs]


def _assert_stacked_2d(*arrays: Any) -> None:
    for a in arrays:
        if a.ndim < 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least "
                              "two-dimensional")


def _assert_stacked_square(*arrays: Any) -> None:
    for a in arrays:
        if a.ndim < 2:
            raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least "
                              "two-dimensional")
        m, n = a.shape[-2:]
        if m != n:
            raise LinAlgError("Last 2 dimensions of the array must be square")


def _bcast_batch(a: Any, b: Any) -> tuple[Any, Any]:
    """Broadcast the batch (leading) axes of two stacks of matrices against each other."""
    batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    if tuple(a.shape[:-2]) != batch:
        a = P.broadcast_to(a, batch + tuple(a.shape[-2:]))
    if tuple(b.shape[:-2]) != batch:
        b = P.broadcast_to(b, batch + tuple(b.shape[-2:]))
    return a, b


def _mT(x: Any) -> Any:
    return _LC._mT(x)


def _concrete(x: Any) -> Any:
    """The concrete value of ``x`` (unwrapping forward/reverse tracers), or None where it
    is not available per example (inside ``vmap``)."""
    while isinstance(x, Tracer):
        x = getattr(x, "primal", None)
        if x is None:
            return None
    if _foreign_array(x):  # (a Dask array stays lazy: the traced path computes it)
        return None
    return np.asarray(x)
