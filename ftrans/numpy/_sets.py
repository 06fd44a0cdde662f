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
from typing import NamedTuple, Any

import numpy as np

from .. import primitives as P
from ..core.dtypes import kind_of as _kind_of
from . import _funcs as F
from ._search import _values, _need_size, flatnonzero as _flatnonzero

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


def _pad(x, size, fill, axis=0):
    """``x`` cut or padded to ``size`` along ``axis`` (padding ``fill``)."""
    n = x.shape[axis]
    if n >= size:
        return P.gather(x, (slice(None),) * axis + (slice(0, size),))
    shape = list(x.shape)
    shape[axis] = size - n
    return P.concatenate([x, P.broadcast_to(P.convert_element_type(_nd(fill), x.dtype)
                                            if hasattr(fill, "dtype") else
                                            np.asarray(fill, x.dtype), tuple(shape))], axis)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True, size=None, fill_value=None):
    """``numpy.unique``: the sorted unique elements of ``ar`` (of its slices along
    ``axis``), optionally with the index of each one's first occurrence, the inverse
    indices (``ar``'s shape when ``axis`` is None, NumPy 2) and the counts.

    The unique values are gathered from ``ar``: differentiable, the cotangent of a value
    going to its first occurrence.  ``size``/``fill_value``: ``jax.numpy``'s static result
    length, required under ``jit``/``vmap`` (``axis=None`` only there); fewer unique values
    than ``size``: the tail is ``fill_value`` (default: the smallest value; index 0 for the
    indices, count 0); more: the smallest ``size`` are kept.  The result is sorted
    also for ``sorted=False`` (for which NumPy leaves the order unspecified).

    Raises
    ------
    ConcretizationError
        Abstract ``ar`` (inside ``jit``/``vmap``) without ``size``, or with ``axis``.

    Examples
    --------
    >>> import ftrans.numpy as fnp
    >>> fnp.unique(fnp.array([3., 1., 3.]), return_counts=True)
    (array([1., 3.]), array([1, 2]))
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


def _unique_sized(a, size, fill_value, equal_nan, want):
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


def unique_values(x, /, *, size=None, fill_value=None):
    """``numpy.unique_values`` (NumPy 2, array API): the sorted unique elements of
    ``x``, NaNs kept apart (``equal_nan=False``); differentiable (see :func:`unique`)."""
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


def unique_counts(x, /, *, size=None, fill_value=None):
    """``numpy.unique_counts``: ``(values, counts)`` (see :func:`unique`)."""
    return UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False, size=size,
                                      fill_value=fill_value))


def unique_inverse(x, /, *, size=None, fill_value=None):
    """``numpy.unique_inverse``: ``(values, inverse_indices)``, the inverse of ``x``'s
    shape (see :func:`unique`)."""
    return UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False, size=size,
                                       fill_value=fill_value))


def unique_all(x, /, *, size=None, fill_value=None):
    """``numpy.unique_all``: ``(values, indices, inverse_indices, counts)`` (see
    :func:`unique`)."""
    return UniqueAllResult(*unique(x, True, True, True, equal_nan=False, size=size,
                                   fill_value=fill_value))


# ---------------------------------------------------------------------------------
# set operations: NumPy computes the positions; the values are gathered
# ---------------------------------------------------------------------------------
def _both(name, ar1, ar2):
    a, b = F.ravel(_nd(ar1)), F.ravel(_nd(ar2))
    vals = _values(a, b)
    if vals is None:
        raise _need_size(name, "concrete arguments")
    return a, b, vals[0], vals[1]


def _cat(a, b):
    """``concatenate([a, b])`` promoted as NumPy does."""
    dt = np.result_type(np.dtype(a.dtype), np.dtype(b.dtype))
    return F.concatenate([P.convert_element_type(a, dt) if a.dtype != dt else a,
                          P.convert_element_type(b, dt) if b.dtype != dt else b], 0)


def union1d(ar1, ar2):
    """``numpy.union1d``: the sorted unique values of both (flattened) arrays;
    differentiable (each value's first occurrence in ``ar1`` then ``ar2``)."""
    a, b, _, _ = _both("union1d", ar1, ar2)
    return unique(_cat(a, b))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """``numpy.intersect1d``: the sorted values in both arrays, gathered from ``ar1``
    (differentiable in ``ar1``); with ``return_indices``, also the first-occurrence
    indices into each flattened array."""
    a, b, ca, cb = _both("intersect1d", ar1, ar2)
    _, i1, i2 = np.intersect1d(ca, cb, assume_unique=assume_unique, return_indices=True)
    out = P.gather(a, i1)
    if np.dtype(a.dtype) != np.result_type(ca, cb):
        out = P.convert_element_type(out, np.result_type(ca, cb))
    return (out, i1, i2) if return_indices else out


def setdiff1d(ar1, ar2, assume_unique=False):
    """``numpy.setdiff1d``: the (sorted, unique unless ``assume_unique``) values of
    ``ar1`` not in ``ar2``, gathered from ``ar1`` (differentiable)."""
    a, b, ca, cb = _both("setdiff1d", ar1, ar2)
    if assume_unique:
        return P.gather(a, np.flatnonzero(~np.isin(ca, cb, assume_unique=True)))
    _, idx = np.unique(ca, return_index=True)
    keep = idx[~np.isin(ca[idx], cb)]
    return P.gather(a, keep)


def setxor1d(ar1, ar2, assume_unique=False):
    """``numpy.setxor1d``: the sorted unique values in exactly one of the arrays,
    gathered from them (differentiable)."""
    a, b, ca, cb = _both("setxor1d", ar1, ar2)
    want = np.setxor1d(ca, cb, assume_unique=assume_unique)
    # the first occurrence of each wanted value in concatenate([ar1, ar2])
    u, first = np.unique(np.concatenate([ca, cb]), return_index=True)
    pick = first[np.isin(u, want)]
    return P.gather(_cat(a, b), pick)


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """``numpy.isin``: boolean array of ``element``'s shape, True where the element is in
    ``test_elements`` (flattened).  Not differentiable; runs under every transform (the
    traced version compares every pair).  ``assume_unique``/``kind`` only select NumPy's
    algorithm and do not change the result."""
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
