"""Set routines: ``unique`` (and NumPy 2's ``unique_all``/``_counts``/``_inverse``/
``_values``), ``intersect1d``, ``union1d``, ``setdiff1d``, ``setxor1d``, ``isin``.

The *values* these return are elements of the inputs, picked by a gather: they are
differentiable, the derivative flowing to the chosen element (for ``unique``, the first
occurrence of each value), as in ``jax.numpy`` with a concrete ``size`` or eagerly.  The
indices, inverse indices and counts are integers (non-differentiable outputs).

Which elements are picked depends on the values, so the result shape does too: the
functions work eagerly and under ``grad``/``jvp``/``vjp`` (concrete values); under
``jit``/``vmap`` the ``unique*`` functions need ``jax.numpy``'s ``size=`` (the number of
result slots; extra slots hold ``fill_value``, default the smallest unique value, and
surplus values are dropped) and the set operations raise
:class:`ftrans.ConcretizationError`.  ``isin`` has a value-independent shape and runs under
every transform.
"""
from __future__ import annotations

import builtins
import operator
from typing import Any, Literal, NamedTuple, cast

import numpy as np

from ..core.dtypes import kind_of as _kind_of
from ..typing import Array, ArrayLike
from . import _funcs as F
from ._search import _values, _need_size, flatnonzero as _flatnonzero
from ._args import P

__all__ = ["unique", "unique_all", "unique_counts", "unique_inverse", "unique_values",
           "intersect1d", "union1d", "setdiff1d", "setxor1d", "isin"]

_nd = F._ndarray
_INT = np.dtype(np.int64)


class UniqueAllResult(NamedTuple):
    values: Any
    indices: Any
    inverse_indices: Any
    counts: Any


class UniqueCountsResult(NamedTuple):
    values: Any
    counts: Any


class UniqueInverseResult(NamedTuple):
    values: Any
    inverse_indices: Any


def _pad(x: Any, size: int, fill: Any, axis: int = 0) -> Any:
    """``x`` cut or padded to ``size`` along ``axis`` (padding ``fill``)."""
    n = x.shape[axis]
    if n >= size:
        return P.gather(x, (slice(None),) * axis + (slice(0, size),))
    shape = list(x.shape)
    shape[axis] = size - n
    return P.concatenate([x, P.broadcast_to(P.convert_element_type(_nd(fill), x.dtype)
                                            if hasattr(fill, "dtype") else
                                            np.asarray(fill, x.dtype), tuple(shape))], axis)


def unique(ar: ArrayLike, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None, *, equal_nan: bool = True,
           sorted: bool = True, size: int | None = None,
           fill_value: ArrayLike | None = None) -> Array | tuple[Array, ...]:
    """Sorted unique elements of an array.

    Optionally with the index of each one's first occurrence, the inverse indices
    (``ar``'s shape when ``axis`` is None, NumPy 2) and the counts.  ``size``/
    ``fill_value`` are ``jax.numpy``'s static result length, required under
    ``jit``/``vmap`` (``axis=None`` only there): fewer unique values than ``size`` fill the
    tail with ``fill_value`` (default: the smallest value; index 0 for the indices, count
    0); more keep the smallest ``size``.  The result is sorted also for ``sorted=False``
    (for which NumPy leaves the order unspecified).

    Examples
    --------
    >>> import ftrans.numpy as fnp
    >>> fnp.unique(fnp.array([3., 1., 3.]), return_counts=True)
    (array([1., 3.]), array([1, 2]))

    Parameters
    ----------
    ar : array_like
        Input array (flattened when ``axis`` is None).
    return_index : bool, optional
        Also return the first-occurrence indices.
    return_inverse : bool, optional
        Also return the indices that rebuild ``ar``.
    return_counts : bool, optional
        Also return the counts.
    axis : int, optional
        Unique slices along this axis instead of elements.
    equal_nan : bool, optional
        Collapse NaNs into one.
    sorted : bool, optional
        Accepted; the result is always sorted.
    size : int, optional
        Static result length (see above).
    fill_value : array_like, optional
        Fill of a result shorter than ``size``.

    Returns
    -------
    Array or tuple of Array
        The unique values, followed by the requested index arrays.

    Raises
    ------
    ConcretizationError
        Abstract ``ar`` (inside ``jit``/``vmap``) without ``size``, or with
        ``axis``.

    Notes
    -----
    Differentiable in the values: they are gathered from ``ar``, the cotangent of a value
    going to its first occurrence.  The indices and counts are integers.
    """
    a = _nd(ar)
    vals = _values(a)
    want = (return_index, return_inverse, return_counts)
    if vals is not None:
        c = vals[0]
        _, idx, inv, cnt = np.unique(c, True, True, True, axis=axis, equal_nan=equal_nan)
        if axis is None:
            u = P.gather(F.ravel(a), idx)
            inv = inv.reshape(c.shape)
        else:
            ax = F._axis(axis, a.ndim)
            u = P.gather(a, (slice(None),) * ax + (idx,))
        if size is not None:
            size = operator.index(size)
            ax = 0 if axis is None else F._axis(axis, a.ndim)
            fill = fill_value if fill_value is not None else \
                (P.gather(u, (slice(None),) * ax + (slice(0, 1),)) if u.shape[ax] else 0)
            if fill_value is None and u.shape[ax]:
                shape = list(u.shape)
                shape[ax] = builtins.max(size - u.shape[ax], 0)
                fill = P.broadcast_to(fill, tuple(shape))
            u = _pad(u, size, fill, ax)
            idx = np.concatenate([idx[:size], np.zeros(builtins.max(size - idx.size, 0),
                                                        idx.dtype)])
            cnt = np.concatenate([cnt[:size], np.zeros(builtins.max(size - cnt.size, 0),
                                                        cnt.dtype)])
        out = (u,) + tuple(r for r, w in zip((idx, inv, cnt), want) if w)
    else:
        if size is None or axis is not None:
            raise _need_size("unique", "size= (and axis=None)")
        out = _unique_sized(a, operator.index(size), fill_value, equal_nan, want)
    return out[0] if len(out) == 1 else out


def _unique_sized(a: Any, size: int, fill_value: Any, equal_nan: bool,
                  want: tuple[bool, bool, bool]) -> tuple[Any, ...]:
    """Traced ``unique(ravel(a))`` with ``size`` slots: a stable sort; the first element
    of each run of equal values starts a group (``jax.numpy.unique``'s method)."""
    n = a.size
    x = F.ravel(a)
    perm = P.argsort(x, 0)
    xs = P.gather(x, perm)
    if n == 0:
        new = np.zeros(0, bool)
    else:
        diff = P.ne(P.gather(xs, slice(1, None)), P.gather(xs, slice(0, -1)))
        if equal_nan and _kind_of(x) in "fc":
            both = P.logical_and(P.isnan(P.gather(xs, slice(1, None))),
                                 P.isnan(P.gather(xs, slice(0, -1))))
            diff = P.logical_and(diff, P.logical_not(both))
        new = P.concatenate([np.ones(1, bool), diff], 0)
    pos = _flatnonzero(new, size=size, fill_value=0)
    count = P.reduce_sum(P.convert_element_type(new, _INT), (0,))
    valid = P.lt(np.arange(size, dtype=np.int64), count)
    first = P.gather(xs, pos) if n else np.zeros(size, x.dtype)
    fill = P.gather(xs, 0) if fill_value is None and n else \
        np.asarray(0 if fill_value is None else fill_value, x.dtype)
    u = P.where(valid, first, fill)
    out = [u]
    gid = P.sub(P.cumsum(P.convert_element_type(new, _INT), 0), 1)
    if want[0]:
        out.append(P.where(valid, P.gather(perm, pos), np.int64(0)) if n else
                   np.zeros(size, np.int64))
    if want[1]:
        out.append(P.reshape(P.scatter_add(gid, perm, (n,)), tuple(a.shape)))
    if want[2]:
        ok = P.lt(gid, size)
        out.append(P.scatter_add(P.convert_element_type(ok, _INT),
                                 P.where(ok, gid, np.int64(0)), (size,)))
    return tuple(out)


def unique_values(x: ArrayLike, /, *, size: int | None = None,
                  fill_value: ArrayLike | None = None) -> Array:
    """Sorted unique elements, NaNs kept apart (NumPy 2, array API).

    Parameters
    ----------
    x : array_like
        Input array (flattened).
    size : int, optional
        Static result length, as for :func:`unique`.
    fill_value : array_like, optional
        Fill of a result shorter than ``size``.

    Returns
    -------
    Array
        1-D unique values.

    Notes
    -----
    Differentiable as :func:`unique`.
    """
    return cast(Array, unique(x, equal_nan=False, size=size, fill_value=fill_value))


def unique_counts(x: ArrayLike, /, *, size: int | None = None,
                  fill_value: ArrayLike | None = None) -> UniqueCountsResult:
    """Sorted unique elements and their counts (NumPy 2, array API).

    Parameters
    ----------
    x : array_like
        Input array (flattened).
    size : int, optional
        Static result length, as for :func:`unique`.
    fill_value : array_like, optional
        Fill of a result shorter than ``size``.

    Returns
    -------
    UniqueCountsResult
        ``(values, counts)``.

    Notes
    -----
    Differentiable in the values as :func:`unique`.
    """
    return UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False, size=size,
                                      fill_value=fill_value))


def unique_inverse(x: ArrayLike, /, *, size: int | None = None,
                   fill_value: ArrayLike | None = None) -> UniqueInverseResult:
    """Sorted unique elements and the inverse indices (NumPy 2, array API).

    Parameters
    ----------
    x : array_like
        Input array.
    size : int, optional
        Static result length, as for :func:`unique`.
    fill_value : array_like, optional
        Fill of a result shorter than ``size``.

    Returns
    -------
    UniqueInverseResult
        ``(values, inverse_indices)``, the indices of ``x``'s shape.

    Notes
    -----
    Differentiable in the values as :func:`unique`.
    """
    return UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False, size=size,
                                       fill_value=fill_value))


def unique_all(x: ArrayLike, /, *, size: int | None = None,
               fill_value: ArrayLike | None = None) -> UniqueAllResult:
    """Sorted unique elements with first indices, inverse indices and counts (NumPy 2).

    Parameters
    ----------
    x : array_like
        Input array.
    size : int, optional
        Static result length, as for :func:`unique`.
    fill_value : array_like, optional
        Fill of a result shorter than ``size``.

    Returns
    -------
    UniqueAllResult
        ``(values, indices, inverse_indices, counts)``.

    Notes
    -----
    Differentiable in the values as :func:`unique`.
    """
    return UniqueAllResult(*unique(x, True, True, True, equal_nan=False, size=size,
                                   fill_value=fill_value))


# ---------------------------------------------------------------------------------
# set operations: NumPy computes the positions; the values are gathered
# ---------------------------------------------------------------------------------
def _both(name: str, ar1: ArrayLike, ar2: ArrayLike) -> tuple[Any, Any, Any, Any]:
    a, b = F.ravel(_nd(ar1)), F.ravel(_nd(ar2))
    vals = _values(a, b)
    if vals is None:
        raise _need_size(name, "concrete arguments")
    return a, b, vals[0], vals[1]


def _cat(a: Any, b: Any) -> Any:
    """``concatenate([a, b])`` promoted as NumPy does."""
    dt = np.result_type(np.dtype(a.dtype), np.dtype(b.dtype))
    return F.concatenate([P.convert_element_type(a, dt) if a.dtype != dt else a,
                          P.convert_element_type(b, dt) if b.dtype != dt else b], 0)


def union1d(ar1: ArrayLike, ar2: ArrayLike) -> Array:
    """Sorted unique values of both (flattened) arrays.

    Parameters
    ----------
    ar1, ar2 : array_like
        Input arrays (concrete values decide the result's length).

    Returns
    -------
    Array
        1-D.

    Raises
    ------
    ConcretizationError
        For abstract inputs (inside ``jit``/``vmap``).

    Notes
    -----
    Differentiable (each value comes from its first occurrence in ``ar1`` then ``ar2``).
    """
    a, b, _, _ = _both("union1d", ar1, ar2)
    return cast(Array, unique(_cat(a, b)))


def intersect1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False,
                return_indices: bool = False) -> Array | tuple[Array, Array, Array]:
    """Sorted values present in both arrays.

    Parameters
    ----------
    ar1, ar2 : array_like
        Input arrays (flattened; concrete values).
    assume_unique : bool, optional
        The inputs are unique (NumPy's shortcut).
    return_indices : bool, optional
        Also return the first-occurrence indices into each.

    Returns
    -------
    Array or tuple of Array
        The values (gathered from ``ar1``), and the indices.

    Raises
    ------
    ConcretizationError
        For abstract inputs.

    Notes
    -----
    Differentiable in ``ar1``.
    """
    a, b, ca, cb = _both("intersect1d", ar1, ar2)
    _, i1, i2 = np.intersect1d(ca, cb, assume_unique=assume_unique, return_indices=True)
    out = P.gather(a, i1)
    if np.dtype(a.dtype) != np.result_type(ca, cb):
        out = P.convert_element_type(out, np.result_type(ca, cb))
    return (out, i1, i2) if return_indices else out


def setdiff1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False) -> Array:
    """Values of ``ar1`` not in ``ar2`` (sorted and unique unless ``assume_unique``).

    Parameters
    ----------
    ar1, ar2 : array_like
        Input arrays (flattened; concrete values).
    assume_unique : bool, optional
        The inputs are unique (then ``ar1``'s order is kept).

    Returns
    -------
    Array
        1-D, gathered from ``ar1``.

    Raises
    ------
    ConcretizationError
        For abstract inputs.

    Notes
    -----
    Differentiable in ``ar1``.
    """
    a, b, ca, cb = _both("setdiff1d", ar1, ar2)
    if assume_unique:
        return P.gather(a, np.flatnonzero(~np.isin(ca, cb, assume_unique=True)))
    _, idx = np.unique(ca, return_index=True)
    keep = idx[~np.isin(ca[idx], cb)]
    return P.gather(a, keep)


def setxor1d(ar1: ArrayLike, ar2: ArrayLike, assume_unique: bool = False) -> Array:
    """Sorted unique values in exactly one of the arrays.

    Parameters
    ----------
    ar1, ar2 : array_like
        Input arrays (flattened; concrete values).
    assume_unique : bool, optional
        The inputs are unique.

    Returns
    -------
    Array
        1-D, gathered from the inputs.

    Raises
    ------
    ConcretizationError
        For abstract inputs.

    Notes
    -----
    Differentiable in both inputs.
    """
    a, b, ca, cb = _both("setxor1d", ar1, ar2)
    want = np.setxor1d(ca, cb, assume_unique=assume_unique)
    # the first occurrence of each wanted value in concatenate([ar1, ar2])
    u, first = np.unique(np.concatenate([ca, cb]), return_index=True)
    pick = first[np.isin(u, want)]
    return P.gather(_cat(a, b), pick)


def isin(element: ArrayLike, test_elements: ArrayLike, assume_unique: bool = False,
         invert: bool = False, *, kind: Literal["sort", "table"] | None = None) -> Array:
    """Whether each element is in ``test_elements``.

    Runs under every transform (the traced version compares every pair).

    Parameters
    ----------
    element : array_like
        Input array.
    test_elements : array_like
        Values to test against (flattened).
    assume_unique : bool, optional
        Only selects NumPy's algorithm.
    invert : bool, optional
        Return the negation (not in ``test_elements``).
    kind : str, optional
        Only selects NumPy's algorithm.

    Returns
    -------
    Array
        Boolean, ``element``'s shape.

    Notes
    -----
    Not differentiable (boolean result).
    """
    e, t = _nd(element), _nd(test_elements)
    vals = _values(e, t)
    if vals is not None:
        return np.isin(vals[0], vals[1], assume_unique=assume_unique, invert=invert,
                       kind=kind)
    del assume_unique, kind
    tf = F.ravel(t)
    eq = P.eq(P.expand_dims(e, (e.ndim,)), P.reshape(tf, (1,) * e.ndim + (tf.shape[0],)))
    hit = P.gt(P.reduce_sum(P.convert_element_type(eq, _INT), (e.ndim,)), 0)
    return P.logical_not(hit) if invert else hit
