"""Index construction: ``r_``/``c_``, ``ix_``, ``indices``, the ``tril``/``triu``/``diag``
index families, ``mask_indices``, ``unravel_index``/``ravel_multi_index``, ``tri``,
``fromfunction`` and ``fromiter``.

Index arrays are integers (non-differentiable).  ``r_``/``c_`` concatenate their array
pieces with :func:`ftrans.numpy.concatenate`, so traced pieces stay differentiable;
``fromfunction``/``fromiter`` build from whatever the function or iterator gives (traced
values included).  ``unravel_index``/``ravel_multi_index`` accept traced index arrays
(they are integer arithmetic); the ``*_from`` functions read only the shape.
"""
from __future__ import annotations

import builtins
import itertools
import operator
from collections.abc import Callable, Iterable, Sequence
from typing import Any, cast

import numpy as np

from ..core import Tracer
from ..core.dtypes import kind_of as _kind_of
from ..typing import Array, ArrayLike, DTypeLike, ShapeLike
from . import _funcs as F
from ._search import _values, nonzero as _nonzero
from ._args import P

__all__ = ["r_", "c_", "ix_", "indices", "tril_indices", "tril_indices_from",
           "triu_indices", "triu_indices_from", "diag_indices", "diag_indices_from",
           "mask_indices", "unravel_index", "ravel_multi_index", "tri", "fromfunction",
           "fromiter"]

_nd = F._ndarray
_INT = np.dtype(np.int64)


# ---------------------------------------------------------------------------------
# r_ and c_
# ---------------------------------------------------------------------------------
def _ndmin(x: Any, ndmin: int) -> Any:
    """``numpy.array(x, copy=None, ndmin=ndmin)``: leading unit axes up to ``ndmin``."""
    x = _nd(x)
    return F.reshape(x, (1,) * (ndmin - x.ndim) + tuple(x.shape)) if x.ndim < ndmin else x


class AxisConcatenator:
    """``r_``/``c_``: translate slice objects to concatenation along an axis.

    NumPy's ``numpy.lib.index_tricks.AxisConcatenator`` (NumPy 2 source, same rules):
    ``start:stop:step`` is ``arange`` (a complex step ``Nj``: ``linspace`` with ``N``
    points), scalars and arrays are concatenated along ``axis`` after promotion to
    ``ndmin`` dimensions (1-d pieces placed by ``trans1d``), and a leading string
    ``'axis'``, ``'axis,ndmin'`` or ``'axis,ndmin,trans1d'`` overrides them.  NumPy's
    matrix directives ``'r'``/``'c'`` (``numpy.matrix`` results) are not supported.
    Array pieces may be traced: the result is differentiable in them.

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> fnp.r_[np.array([1., 2.]), 0:2, 5.]
    array([1., 2., 0., 1., 5.])
    >>> fnp.c_[np.array([1., 2.]), np.array([3., 4.])]
    array([[1., 3.],
           [2., 4.]])
    >>> ftrans.grad(lambda x: fnp.sum(fnp.r_["0,2", x, x] ** 2))(np.array([1., 2.]))
    array([4., 8.])
    """

    def __init__(self, axis: int = 0, ndmin: int = 1, trans1d: int = -1) -> None:
        self.axis, self.ndmin, self.trans1d = axis, ndmin, trans1d

    def __getitem__(self, key: Any) -> Array:
        if isinstance(key, str):
            raise ValueError("ftrans.numpy r_/c_: NumPy's matrix string syntax is not "
                             "supported; pass arrays")
        if not isinstance(key, tuple):
            key = (key,)
        axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
        objs: list[Array | complex | np.generic] = []
        types: list[Any] = []
        for k, item in enumerate(key):
            new: Array
            if isinstance(item, slice):
                start: Any = 0 if item.start is None else item.start
                step: Any = 1 if item.step is None else item.step
                if isinstance(step, (complex, np.complexfloating)):
                    new = np.linspace(start, item.stop, num=int(abs(step)))  # type: ignore[call-overload]  # real
                else:
                    new = np.arange(start, item.stop, step)
                if ndmin > 1:
                    new = np.array(new, copy=None, ndmin=ndmin)
                    if trans1d != -1:
                        new = new.swapaxes(-1, trans1d)
            elif isinstance(item, str):
                if k != 0:
                    raise ValueError("special directives must be the first entry.")
                if item in ("r", "c"):
                    raise ValueError("ftrans.numpy r_/c_: the matrix directives 'r'/'c' "
                                     "(numpy.matrix results) are not supported")
                try:
                    vec = [int(v) for v in item.split(",")]
                except ValueError as e:
                    raise ValueError(f"unknown special directive {item!r}") from e
                if len(vec) > 3:
                    raise ValueError(f"unknown special directive {item!r}")
                axis = vec[0]
                if len(vec) > 1:
                    ndmin = vec[1]
                if len(vec) > 2:
                    trans1d = vec[2]
                continue
            elif isinstance(item, (bool, int, float, complex, np.generic)):
                objs.append(item)
                types.append(item)
                continue
            else:
                item_ndim = np.ndim(item) if not isinstance(item, Tracer) else item.ndim
                new = _ndmin(item, ndmin)
                if trans1d != -1 and item_ndim < ndmin:
                    k2 = ndmin - item_ndim
                    k1 = trans1d + k2 + 1 if trans1d < 0 else trans1d
                    d = list(range(ndmin))
                    new = F.transpose(new, d[:k1] + d[k2:] + d[k1:k2])
            objs.append(new)
            types.append(np.dtype(new.dtype))
        if not objs:
            raise ValueError("need at least one array to concatenate")
        dt = np.result_type(*types)
        arrs = [_ndmin(o, ndmin) for o in objs]
        arrs = [o if np.dtype(o.dtype) == dt else P.convert_element_type(o, dt)
                for o in arrs]
        return F.concatenate(arrs, axis=axis)

    def __len__(self) -> int:
        return 0


r_ = AxisConcatenator(0)
r_.__doc__ = """``numpy.r_``: concatenation along the first axis by index syntax
(``fnp.r_[x, 0:3, [7., 8.]]``); see :class:`AxisConcatenator`."""
c_ = AxisConcatenator(-1, ndmin=2, trans1d=0)
c_.__doc__ = """``numpy.c_``: 1-d pieces become columns, concatenated along the last axis
(``fnp.c_[x, y]`` is ``column_stack``); see :class:`AxisConcatenator`."""


# ---------------------------------------------------------------------------------
# index arrays
# ---------------------------------------------------------------------------------
def ix_(*args: ArrayLike) -> tuple[Array, ...]:
    """Open mesh index arrays from 1-D sequences.

    The ``k``-th result has shape ``(1, .., n_k, .., 1)``; boolean sequences become their
    nonzero indices (concrete ones only).  Traced integer sequences stay traced.

    Parameters
    ----------
    *args : array_like
        1-D integer or boolean sequences.

    Returns
    -------
    tuple of Array
        One index array per argument.

    Raises
    ------
    ValueError
        For an argument that is not 1-D.
    TypeError
        For a traced boolean or a non-integer sequence.

    Notes
    -----
    Not differentiable (integer result).
    """
    out = []
    n = len(args)
    for k, arg in enumerate(args):
        a = _nd(arg) if isinstance(arg, Tracer) or hasattr(arg, "dtype") else \
            np.asarray(arg, dtype=None if len(arg) else np.intp)  # type: ignore[arg-type]  # a sequence
        if a.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if _kind_of(a) == "b":
            a = _nonzero(a)[0]
        elif _kind_of(a) not in "iu" and not isinstance(a, Tracer):
            raise TypeError(f"ix_: index arrays must be integer or boolean, got {a.dtype}")
        shape = (1,) * k + (a.shape[0],) + (1,) * (n - k - 1)
        out.append(F.reshape(a, shape))
    return tuple(out)


def indices(dimensions: Sequence[int], dtype: DTypeLike = int,
            sparse: bool = False) -> Array | tuple[Array, ...]:
    """Grid of index values.

    Parameters
    ----------
    dimensions : sequence of int
        Shape of the grid.
    dtype : dtype_like, optional
        Integer dtype of the result.
    sparse : bool, optional
        Return a tuple of broadcastable arrays instead.

    Returns
    -------
    Array or tuple of Array
        Shape ``(len(dimensions),) + dimensions``; constants.
    """
    return np.indices(dimensions, dtype=dtype, sparse=sparse)  # type: ignore[call-overload]  # bool sparse


def tri(N: int, M: int | None = None, k: int = 0, dtype: DTypeLike = float, *,
        like: Any = None) -> Array:
    """Array with ones at and below the ``k``-th diagonal, zeros elsewhere.

    Parameters
    ----------
    N : int
        Number of rows.
    M : int, optional
        Number of columns, ``N`` by default.
    k : int, optional
        Diagonal offset.
    dtype : dtype_like, optional
        Result dtype.
    like : None, optional
        NumPy's array-function dispatch argument.

    Returns
    -------
    Array
        Shape ``(N, M)``; a constant.
    """
    del like
    return np.tri(N, M, k, dtype)


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Array, Array]:
    """Row and column indices of the lower triangle of an ``(n, m)`` array.

    Parameters
    ----------
    n : int
        Number of rows.
    k : int, optional
        Diagonal offset.
    m : int, optional
        Number of columns, ``n`` by default.

    Returns
    -------
    tuple of Array
        The row and column indices (int64 constants).
    """
    return np.tril_indices(n, k, m)


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Array, Array]:
    """Row and column indices of the upper triangle of an ``(n, m)`` array.

    Parameters
    ----------
    n : int
        Number of rows.
    k : int, optional
        Diagonal offset.
    m : int, optional
        Number of columns, ``n`` by default.

    Returns
    -------
    tuple of Array
        The row and column indices (int64 constants).
    """
    return np.triu_indices(n, k, m)


def _shape2(arr: Any, name: str) -> tuple[int, int]:
    shape = tuple(_nd(arr).shape)
    if len(shape) != 2:
        raise ValueError(f"{name}: input array must be 2-d, got shape {shape}")
    return shape


def tril_indices_from(arr: ArrayLike, k: int = 0) -> tuple[Array, Array]:
    """Lower-triangle indices for a 2-D array's shape (only the shape is read).

    Parameters
    ----------
    arr : array_like
        2-D array (may be traced).
    k : int, optional
        Diagonal offset.

    Returns
    -------
    tuple of Array
        The row and column indices.

    Raises
    ------
    ValueError
        If ``arr`` is not 2-D.
    """
    r, c = _shape2(arr, "tril_indices_from")
    return np.tril_indices(r, k, c)


def triu_indices_from(arr: ArrayLike, k: int = 0) -> tuple[Array, Array]:
    """Upper-triangle indices for a 2-D array's shape (only the shape is read).

    Parameters
    ----------
    arr : array_like
        2-D array (may be traced).
    k : int, optional
        Diagonal offset.

    Returns
    -------
    tuple of Array
        The row and column indices.

    Raises
    ------
    ValueError
        If ``arr`` is not 2-D.
    """
    r, c = _shape2(arr, "triu_indices_from")
    return np.triu_indices(r, k, c)


def diag_indices(n: int, ndim: int = 2) -> tuple[Array, ...]:
    """Indices of the main diagonal of an ``ndim``-dimensional array of side ``n``.

    Parameters
    ----------
    n : int
        Side length.
    ndim : int, optional
        Number of dimensions.

    Returns
    -------
    tuple of Array
        ``ndim`` copies of ``arange(n)``.
    """
    return np.diag_indices(n, ndim)


def diag_indices_from(arr: ArrayLike) -> tuple[Array, ...]:
    """Main-diagonal indices of an array with all sides equal (only the shape is read).

    Parameters
    ----------
    arr : array_like
        At least 2-D, all sides equal.

    Returns
    -------
    tuple of Array
        ``arr.ndim`` copies of ``arange(n)``.

    Raises
    ------
    ValueError
        For fewer than 2 dimensions or unequal sides.
    """
    shape = tuple(_nd(arr).shape)
    if len(shape) < 2:
        raise ValueError("input array must be at least 2-d")
    if builtins.any(d != shape[0] for d in shape):
        raise ValueError("All dimensions of input must be of equal length")
    return np.diag_indices(shape[0], len(shape))


def mask_indices(n: int, mask_func: Callable[..., Any], k: int = 0) -> tuple[Array, Array]:
    """Indices where ``mask_func(ones((n, n)), k)`` is nonzero (e.g. ``fnp.triu``).

    Parameters
    ----------
    n : int
        Side of the square array.
    mask_func : callable
        ``mask_func(a, k)`` returning an array of ``a``'s shape.
    k : int, optional
        Passed to ``mask_func``.

    Returns
    -------
    tuple of Array
        The row and column indices.

    Raises
    ------
    TypeError
        If ``mask_func`` returns a traced value.
    """
    m = mask_func(np.ones((n, n), int), k)
    vals = _values(m)
    if vals is None:
        raise TypeError("mask_indices: mask_func must return a concrete array")
    rows, cols = np.nonzero(vals[0] != 0)
    return rows, cols


def unravel_index(indices: ArrayLike, shape: ShapeLike, order: str = "C") -> tuple[Array, ...]:
    """Convert flat indices into a tuple of coordinate arrays.

    Traced indices are allowed (no bounds check then; concrete ones are checked as NumPy
    does).

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> ftrans.jit(lambda i: fnp.unravel_index(i, (3, 4)))(np.array([5, 11]))
    (array([1, 2]), array([1, 3]))

    Parameters
    ----------
    indices : array_like of int
        Flat indices into an array of ``shape``.
    shape : int or sequence of int
        The array's shape.
    order : {'C', 'F'}, optional
        Row- or column-major flattening.

    Returns
    -------
    tuple of Array
        One coordinate array per dimension, ``indices``' shape.

    Raises
    ------
    ValueError
        Out-of-bounds concrete indices or a bad ``order``.
    TypeError
        Non-integer indices.

    Notes
    -----
    Not differentiable (integer result).
    """
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    shp = (operator.index(cast(int, shape)),) if np.ndim(shape) == 0 else \
        tuple(operator.index(d) for d in cast(Sequence[int], shape))
    i = _nd(indices)
    vals = _values(i)
    if vals is not None:
        return np.unravel_index(vals[0], shp, order)  # type: ignore[call-overload]  # order checked
    if _kind_of(i) not in "iu":
        raise TypeError(f"only int indices permitted, got {i.dtype}")
    i = P.convert_element_type(i, _INT) if i.dtype != _INT else i
    coords: list[Array] = []  # in the order of the loop: last dimension first for 'C'
    for n in (reversed(shp) if order == "C" else shp):
        coords.append(P.remainder(i, builtins.max(n, 1)))
        i = P.floor_divide(i, builtins.max(n, 1))
    return tuple(reversed(coords)) if order == "C" else tuple(coords)


def ravel_multi_index(multi_index: Sequence[ArrayLike], dims: ShapeLike,
                      mode: str | Sequence[str] = "raise", order: str = "C") -> Array:
    """Convert a tuple of coordinate arrays into flat indices.

    Parameters
    ----------
    multi_index : sequence of array_like
        One integer coordinate array per dimension.
    dims : sequence of int
        The array's shape.
    mode : {'raise', 'wrap', 'clip'} or sequence of them, optional
        Out-of-bounds handling
        (one, or one per dimension); traced coordinates need 'wrap' or 'clip'.
    order : {'C', 'F'}, optional
        Row- or column-major flattening.

    Returns
    -------
    Array
        int64 flat indices, the coordinates' broadcast shape.

    Raises
    ------
    ValueError
        Out-of-bounds coordinates with 'raise', or bad arguments.
    TypeError
        Traced coordinates with 'raise', or non-integer ones.

    Notes
    -----
    Not differentiable (integer result).
    """
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    shp = tuple(operator.index(d) for d in cast(Sequence[int], dims))
    idx = [_nd(m) for m in multi_index]
    if len(idx) != len(shp):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(shp)}")
    vals = _values(*idx)
    if vals is not None:
        return np.ravel_multi_index(tuple(vals), shp, mode, order)  # type: ignore[call-overload]
    modes = [mode] * len(shp) if isinstance(mode, str) else list(mode)
    if "raise" in modes:
        raise TypeError("ravel_multi_index: traced coordinates cannot be bounds-checked; "
                        "pass mode='wrap' or mode='clip'")
    strides = np.cumprod((1,) + shp[::-1][:-1])[::-1] if order == "C" else \
        np.cumprod((1,) + shp[:-1])
    out: Array | None = None
    for m, n, s, md in zip(idx, shp, strides, modes):
        m = P.convert_element_type(m, _INT) if m.dtype != _INT else m
        m = P.remainder(m, n) if md == "wrap" else P.minimum(P.maximum(m, 0), n - 1)
        t = P.mul(m, np.int64(s))
        out = t if out is None else P.add(out, t)
    return cast(Array, out)  # idx is not empty here: _values() of no arrays is [], not None


# ---------------------------------------------------------------------------------
# fromfunction, fromiter
# ---------------------------------------------------------------------------------
def fromfunction(function: Callable[..., Any], shape: Sequence[int], *,
                 dtype: DTypeLike = float, like: Any = None, **kwargs: Any) -> Any:
    """Construct an array by calling a function on the coordinate arrays.

    ``function(*indices(shape, dtype), **kwargs)``, called once with the coordinate
    arrays.

    Parameters
    ----------
    function : callable
        Called with one coordinate array per dimension.
    shape : sequence of int
        Shape of the coordinate arrays.
    dtype : dtype_like, optional
        Dtype of the coordinate arrays.
    like : None, optional
        NumPy's array-function dispatch argument.
    **kwargs : Any
        Passed to ``function``.

    Returns
    -------
    Any
        What ``function`` returns.

    Notes
    -----
    Differentiable in traced values ``function`` closes over.
    """
    del like
    return function(*np.indices(shape, dtype=dtype), **kwargs)


def fromiter(iter: Iterable[Any], dtype: DTypeLike, count: int = -1, *,
             like: Any = None) -> Array:
    """A 1-D array from the items of an iterable.

    Parameters
    ----------
    iter : iterable
        The items (scalars, possibly traced).
    dtype : dtype_like
        Result dtype.
    count : int, optional
        Number of items to read; all by default (-1).
    like : None, optional
        NumPy's array-function dispatch argument.

    Returns
    -------
    Array
        1-D; traced items are stacked.

    Raises
    ------
    ValueError
        Fewer than ``count`` items.

    Notes
    -----
    Differentiable in traced items.
    """
    del like
    count = operator.index(count)
    items = list(itertools.islice(iter, count) if count >= 0 else iter)
    if count >= 0 and len(items) < count:
        raise ValueError(f"iterator too short: Expected {count} but iterator had only "
                         f"{len(items)} items.")
    if not builtins.any(isinstance(x, Tracer) for x in items):
        return np.fromiter(items, dtype, len(items))
    dt = np.dtype(dtype)
    items = [_nd(x) for x in items]
    return F.stack([P.convert_element_type(x, dt) if np.dtype(x.dtype) != dt else x
                    for x in items], 0)
