"""Array creation of ``ftrans.numpy`` (constants: no derivative flows through them,
except from traced fill values and elements), re-exported by ``_funcs``."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, cast

import numpy as np

from ..core import Tracer
from ..kernels import backend_for as _backend_for, foreign_array as _foreign_array
from ..typing import Array, ArrayLike, DTypeLike, ShapeLike
from ._args import P, _ndarray
from ._layout import stack

# ---------------------------------------------------------------------------------
# creation (constants: no derivative flows through them)
# ---------------------------------------------------------------------------------

__all__ = ["array", "asarray", "zeros", "ones", "empty", "full", "zeros_like", "ones_like",
           "empty_like", "full_like", "arange", "eye", "identity"]


def array(object: Any, dtype: DTypeLike | None = None, copy: bool = True, ndmin: int = 0) -> Array:
    """Create an array; a traced input is returned as is (converted if ``dtype``).

    Parameters
    ----------
    object : array_like
        Data: an array, a tracer, a scalar or a nested sequence (which may hold tracers,
        then stacked differentiably).
    dtype : dtype_like, optional
        Result dtype; inferred by default.
    copy : bool, optional
        Copy concrete data (NumPy's meaning).
    ndmin : int, optional
        Minimum number of dimensions of a concrete result.

    Returns
    -------
    Array
        The array (a tracer under a transform when ``object`` holds tracers).

    Notes
    -----
    Differentiable in the tracers ``object`` holds.
    """
    if isinstance(object, Tracer):
        return cast(Array, object) if dtype is None else P.convert_element_type(object, dtype)
    if isinstance(object, (list, tuple)) and any(isinstance(o, Tracer) for o in _flat(object)):
        return stack([array(o) for o in object]) if dtype is None else \
            P.convert_element_type(stack([array(o) for o in object]), dtype)
    return np.array(object, dtype=dtype, copy=copy, ndmin=ndmin)


def _flat(seq: Sequence[Any]) -> Iterator[Any]:
    """The leaves of a nested list/tuple."""
    for o in seq:
        if isinstance(o, (list, tuple)):
            yield from _flat(o)
        else:
            yield o


def asarray(a: Any, dtype: DTypeLike | None = None) -> Array:
    """Convert the input to an array; traced values pass through.

    Parameters
    ----------
    a : array_like
        Input data (Dask, CuPy and array-API arrays stay in their library).
    dtype : dtype_like, optional
        Result dtype; inferred by default.

    Returns
    -------
    Array
        ``a`` itself where no conversion is needed.

    Notes
    -----
    Differentiable (identity, or a dtype conversion).
    """
    if isinstance(a, Tracer) or (isinstance(a, (list, tuple))
                                 and any(isinstance(o, Tracer) for o in _flat(a))):
        return array(a, dtype=dtype)
    if _foreign_array(a):  # Dask, CuPy, array-API arrays stay in their library
        return a if dtype is None else P.convert_element_type(a, np.dtype(dtype))
    return np.asarray(a, dtype=dtype)


def zeros(shape: ShapeLike, dtype: DTypeLike = float) -> Array:
    """Array of zeros.

    Parameters
    ----------
    shape : int or sequence of int
        Shape of the result.
    dtype : dtype_like, optional
        Result dtype, float64 by default.

    Returns
    -------
    Array
        A constant NumPy array (no derivative flows through it).
    """
    return np.zeros(shape, dtype)


def ones(shape: ShapeLike, dtype: DTypeLike = float) -> Array:
    """Array of ones.

    Parameters
    ----------
    shape : int or sequence of int
        Shape of the result.
    dtype : dtype_like, optional
        Result dtype, float64 by default.

    Returns
    -------
    Array
        A constant NumPy array (no derivative flows through it).
    """
    return np.ones(shape, dtype)


def empty(shape: ShapeLike, dtype: DTypeLike = float) -> Array:
    """Array of the given shape, filled with zeros (not garbage: results stay reproducible).

    Parameters
    ----------
    shape : int or sequence of int
        Shape of the result.
    dtype : dtype_like, optional
        Result dtype, float64 by default.

    Returns
    -------
    Array
        A constant NumPy array of zeros.
    """
    return np.zeros(shape, dtype)  # zeros, not garbage: results must be reproducible


def full(shape: ShapeLike, fill_value: ArrayLike, dtype: DTypeLike | None = None) -> Array:
    """Array of the given shape filled with ``fill_value``.

    Parameters
    ----------
    shape : int or sequence of int
        Shape of the result.
    fill_value : array_like
        Fill value, broadcast to ``shape``; may be traced.
    dtype : dtype_like, optional
        Result dtype; ``fill_value``'s by default.

    Returns
    -------
    Array
        The filled array.

    Notes
    -----
    Differentiable in a traced ``fill_value`` (the cotangent is summed over the copies).
    """
    if isinstance(fill_value, Tracer):
        return P.broadcast_to(fill_value if dtype is None else
                              P.convert_element_type(fill_value, dtype),
                              tuple(np.atleast_1d(shape)) if not isinstance(shape, int)
                              else (shape,))
    return np.full(shape, fill_value, dtype)


def _like(x: ArrayLike, dtype: DTypeLike | None, shape: ShapeLike | None) -> tuple[Any, Any]:
    """The shape and dtype of a ``*_like`` result."""
    x = _ndarray(x)
    return (x.shape if shape is None else shape), (x.dtype if dtype is None else dtype)


def _xp_like(a: Any) -> Any:
    """The array module of ``a``'s library: NumPy for NumPy data (and tracers of it),
    else the kernel seam's NumPy-named namespace of the library (Dask, CuPy, ...).
    """
    while isinstance(a, Tracer):
        a = getattr(a, "primal", None) if hasattr(a, "primal") else getattr(a, "val", None)
    if not _foreign_array(a):
        return np
    return _backend_for(a).xp


def zeros_like(a: ArrayLike, dtype: DTypeLike | None = None, shape: ShapeLike | None = None) -> Array:
    """Array of zeros with the shape and dtype of ``a``.

    Parameters
    ----------
    a : array_like
        Array whose shape, dtype and library the result takes.
    dtype : dtype_like, optional
        Overrides the dtype.
    shape : int or sequence of int, optional
        Overrides the shape.

    Returns
    -------
    Array
        Zeros in ``a``'s array library (NumPy, Dask, CuPy ...); a constant.
    """
    return _xp_like(a).zeros(*_like(a, dtype, shape))


def ones_like(a: ArrayLike, dtype: DTypeLike | None = None, shape: ShapeLike | None = None) -> Array:
    """Array of ones with the shape and dtype of ``a``.

    Parameters
    ----------
    a : array_like
        Array whose shape, dtype and library the result takes.
    dtype : dtype_like, optional
        Overrides the dtype.
    shape : int or sequence of int, optional
        Overrides the shape.

    Returns
    -------
    Array
        Ones in ``a``'s array library (NumPy, Dask, CuPy ...); a constant.
    """
    return _xp_like(a).ones(*_like(a, dtype, shape))


def empty_like(a: ArrayLike, dtype: DTypeLike | None = None, shape: ShapeLike | None = None) -> Array:
    """Array with the shape and dtype of ``a``, filled with zeros.

    Parameters
    ----------
    a : array_like
        Array whose shape, dtype and library the result takes.
    dtype : dtype_like, optional
        Overrides the dtype.
    shape : int or sequence of int, optional
        Overrides the shape.

    Returns
    -------
    Array
        Zeros in ``a``'s array library (NumPy, Dask, CuPy ...); a constant.
    """
    return _xp_like(a).zeros(*_like(a, dtype, shape))


def full_like(a: ArrayLike, fill_value: ArrayLike, dtype: DTypeLike | None = None,
              shape: ShapeLike | None = None) -> Array:
    """Array with the shape and dtype of ``a`` filled with ``fill_value``.

    Parameters
    ----------
    a : array_like
        Array whose shape, dtype and library the result takes.
    fill_value : array_like
        Fill value; may be traced (NumPy data).
    dtype : dtype_like, optional
        Overrides the dtype.
    shape : int or sequence of int, optional
        Overrides the shape.

    Returns
    -------
    Array
        The filled array.

    Notes
    -----
    Differentiable in a traced ``fill_value``.
    """
    s, d = _like(a, dtype, shape)
    xp = _xp_like(a)
    if xp is np:
        return full(s, fill_value, d)
    return xp.full(s, fill_value, dtype=d)


def arange(start: float, stop: float | None = None, step: float | None = None,
           dtype: DTypeLike | None = None) -> Array:
    """Evenly spaced values in the half-open interval ``[start, stop)``.

    Parameters
    ----------
    start : int or float
        Start of the interval; with ``stop`` omitted, the end (and the start is 0).
    stop : int or float, optional
        End of the interval (excluded).
    step : int or float, optional
        Spacing, 1 by default.
    dtype : dtype_like, optional
        Result dtype; inferred from the arguments by default.

    Returns
    -------
    Array
        1-D constant array (``numpy.arange``'s values).
    """
    if stop is None:
        return np.arange(start, step=1 if step is None else step, dtype=dtype)
    return np.arange(start, stop, 1 if step is None else step, dtype=dtype)


def eye(N: int, M: int | None = None, k: int = 0, dtype: DTypeLike = float) -> Array:
    """2-D array with ones on a diagonal and zeros elsewhere.

    Parameters
    ----------
    N : int
        Number of rows.
    M : int, optional
        Number of columns, ``N`` by default.
    k : int, optional
        Diagonal offset (positive: above the main diagonal).
    dtype : dtype_like, optional
        Result dtype, float64 by default.

    Returns
    -------
    Array
        Shape ``(N, M)``; a constant.
    """
    return np.eye(N, M, k, dtype=dtype)


def identity(n: int, dtype: DTypeLike = float) -> Array:
    """Square identity matrix.

    Parameters
    ----------
    n : int
        Number of rows and columns.
    dtype : dtype_like, optional
        Result dtype, float64 by default.

    Returns
    -------
    Array
        Shape ``(n, n)``; a constant.
    """
    return np.identity(n, dtype=dtype)
