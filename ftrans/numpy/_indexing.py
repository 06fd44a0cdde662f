"""Indexing and functional updates: ``take``, ``take_along_axis``, ``put_along_axis`` and
the JAX-style ``x.at[idx]`` helper of traced arrays.

Everything here composes the ``gather`` and ``scatter_add`` primitives (and ``argsort``
for duplicate detection on traced indices), so it differentiates to every order and
batches under ``vmap``.

Index expressions are NumPy's: ints, slices, ``None``, ``Ellipsis``, integer arrays
(concrete or traced), concrete boolean masks, and any mix of them (``x[idx]`` on a
tracer is ``gather``).  Traced values cannot be assigned to (``x[idx] = v`` raises
``TypeError``); write ``x = x.at[idx].set(v)`` instead, which returns a new array.

``x.at[idx]`` semantics (``x`` a traced array); ``ftrans.numpy.at(x)[idx]`` is the same
for any array, traced or concrete (a concrete ``x`` gives a new NumPy array; ``x`` is
never modified).

Why a plain ``numpy.ndarray`` cannot carry ``.at``: ftrans's arrays *are* NumPy's
(results are ``numpy.ndarray``, never a wrapper), and ``numpy.ndarray`` is a C extension
type whose attributes cannot be added to (``numpy.ndarray.at = ...`` raises
``TypeError``); a subclass would leak into every result and change NumPy semantics.  So
``.at`` exists on tracers (inside ``grad``/``jit``/``vmap``, where JAX code uses it) and
``ftrans.numpy.at(x)`` spells it for code that also runs on concrete arrays.

``.get()``
    ``x[idx]``.
``.set(v)``
    ``x`` with ``x[idx] = v`` (``v`` broadcast to ``x[idx]``'s shape and cast to
    ``x``'s dtype).  With repeated indices the *last* write wins, as in NumPy's
    ``x[idx] = v``.  Gradient: ``x`` gets the cotangent where it was not overwritten;
    ``v`` gets the cotangent of the position it was written to, and an element of ``v``
    that a later duplicate overwrote gets exactly 0 (the output does not depend on it).
``.add(v)`` / ``.subtract(v)``
    Accumulate: repeated indices add up (``numpy.add.at`` semantics, through the
    ``scatter_add`` kernel).  ``d/dv`` of each duplicate is the cotangent of its target.
``.multiply(v)`` / ``.divide(v)``
    Accumulate multiplicatively (``numpy.multiply.at``): each target is multiplied by
    the product of all the updates addressed to it; the product is ``reduce_prod``, so
    the derivative is exact at zeros too.  ``divide(v)`` is ``multiply(1 / v)``.
``.min(v)`` / ``.max(v)``
    ``numpy.minimum.at`` / ``numpy.maximum.at``: each target becomes the extremum of
    itself and every update addressed to it.  The derivative goes to the chosen value;
    ties (between ``x`` and updates, or between duplicates) split it evenly, as the
    ``max``/``min`` reductions do (DESIGN.md).  Real dtypes only.

``.multiply``, ``.divide``, ``.min`` and ``.max`` with repeated indices need concrete
index arrays (the grouping of duplicates is computed with NumPy); ``.set`` and
``.add`` also accept traced (e.g. ``vmap``-batched) index arrays.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..core import ShapedArray, Tracer
from ..core.dtypes import kind_of as _kind_of
from ..primitives.indexing import split_index, _Slot, _expand_bool0, _gather_abstract_eval
from ..primitives.structural import _expand_shape
from ..typing import Array, ArrayLike
from . import _funcs as F
from ._args import P

__all__ = ["take", "take_along_axis", "put_along_axis", "at"]

_MODES = ("raise", "wrap", "clip")


def _int_index(indices: Any, what: str = "indices") -> Any:
    """Integer index array (concrete ndarray or traced); lists become ndarrays."""
    i: Tracer | np.ndarray[Any, Any]
    if isinstance(indices, Tracer):
        i = indices
    else:
        i = np.asarray(indices)
        if i.size == 0 and _kind_of(i) not in "iub":
            i = i.astype(np.intp)
    if _kind_of(i) not in "iu":
        raise IndexError(f"{what} must be an integer array, got dtype {i.dtype}")
    return i


def _wrap_or_clip(i: Any, n: int, mode: str) -> Any:
    """Indices remapped by ``mode`` ('wrap': modulo n; 'clip': into [0, n-1])."""
    if mode == "raise":
        return i
    if isinstance(i, Tracer):
        if mode == "wrap":
            return P.sub(i, P.mul(P.floor_divide(i, n), n))
        return P.where(P.lt(i, 0), 0, P.where(P.gt(i, n - 1), n - 1, i))
    return np.mod(i, n) if mode == "wrap" else np.clip(i, 0, n - 1)


def take(a: ArrayLike, indices: ArrayLike, axis: int | None = None, out: None = None,
         mode: str | None = None) -> Array:
    """Elements of an array at the given indices along an axis.

    Parameters
    ----------
    a : array_like
        Source array.
    indices : array_like of int
        Indices (may be traced).
    axis : int, optional
        The axis; the flattened array by default.
    out : None
        Not supported (ftrans is functional).
    mode : {'raise', 'wrap', 'clip'}, optional
        'raise' (default; negative indices count from
        the end, out-of-bounds ones raise), 'wrap' (modulo the axis length) or 'clip' (into
        ``[0, n-1]``; negative indices clip to 0, as in NumPy).

    Returns
    -------
    Array
        ``a.shape[:axis] + indices.shape + a.shape[axis+1:]``.

    Raises
    ------
    IndexError
        Out-of-bounds indices with mode 'raise'; non-integer indices; a non-empty
        take from an empty axis.
    ValueError
        An unknown ``mode``; ``out`` given.

    Notes
    -----
    Differentiable in ``a`` (the VJP scatter-adds, so repeated indices accumulate).
    """
    if out is not None:
        raise ValueError("take: out= is not supported (ftrans.numpy is functional)")
    mode = "raise" if mode is None else mode
    if mode not in _MODES:
        raise ValueError(f"take: mode must be one of {_MODES}, got {mode!r}")
    a = F._ndarray(a)
    if axis is None:
        a = F.ravel(a)
        axis = 0
    ax = F._axis(axis, a.ndim)
    i = _int_index(indices)
    n = a.shape[ax]
    if n == 0 and i.size and mode != "raise":
        raise IndexError("cannot do a non-empty take from an empty axes.")
    i = _wrap_or_clip(i, n, mode)
    return P.gather(a, (slice(None),) * ax + (i,))


def _along_axis_index(shape: Any, indices: Any, axis: int) -> Any:
    """The fancy index equivalent of ``take_along_axis(arr, indices, axis)``."""
    nd = len(shape)
    idx = []
    for d in range(nd):
        if d == axis:
            idx.append(indices)
        else:
            s = [1] * nd
            s[d] = shape[d]
            idx.append(np.arange(shape[d]).reshape(s))
    return tuple(idx)


def _along_axis_args(arr: Any, indices: Any, axis: int | None,
                     name: str) -> tuple[Array, Any, int]:
    arr = F._ndarray(arr)
    i = _int_index(indices)
    if axis is None:
        if i.ndim != 1:
            raise ValueError(f"{name}: when axis=None, `indices` must have a single dimension.")
        arr = F.ravel(arr)
        axis = 0
    if i.ndim != arr.ndim:
        raise ValueError(f"{name}: `indices` and `arr` must have the same number of "
                         f"dimensions, got {i.ndim} and {arr.ndim}")
    return arr, i, F._axis(axis, arr.ndim)


def take_along_axis(arr: ArrayLike, indices: ArrayLike, axis: int | None = -1) -> Array:
    """Take values along an axis at matching 1-D index positions.

    ``out[..., j, ...] = arr[..., indices[..., j, ...], ...]`` along ``axis``; the other
    axes of ``indices`` broadcast against ``arr``'s.

    Parameters
    ----------
    arr : array_like
        Source array.
    indices : array_like of int
        Indices of ``arr``'s rank (may be traced, e.g. from
        ``argsort`` under ``vmap``).
    axis : int or None, optional
        The axis; ``None`` uses the flattened array (1-D
        indices).

    Returns
    -------
    Array
        The broadcast shape, with ``indices``' length along ``axis``.

    Raises
    ------
    ValueError
        ``indices`` of another rank than ``arr`` (or not 1-D with ``axis=None``).
    IndexError
        Non-integer or out-of-bounds indices.

    Notes
    -----
    Differentiable in ``arr``; the VJP scatter-adds the cotangent back (repeated indices
    accumulate).
    """
    a, i, ax = _along_axis_args(arr, indices, axis, "take_along_axis")
    return P.gather(a, _along_axis_index(a.shape, i, ax))


def put_along_axis(arr: ArrayLike, indices: ArrayLike, values: ArrayLike, axis: int | None,
                   inplace: bool = True, *, mode: str | None = None) -> Array:
    """A new array equal to ``arr`` with ``values`` written at ``indices`` along ``axis``.

    NumPy's function modifies ``arr`` in place and returns None; ftrans cannot, so -- as
    ``jax.numpy.put_along_axis`` does -- it requires ``inplace=False`` and returns the
    result, so that NumPy code relying on the mutation fails loudly.

    Parameters
    ----------
    arr : array_like
        Destination array.
    indices : array_like of int
        Indices as for :func:`take_along_axis`.
    values : array_like
        Values, broadcast to the indexed shape.
    axis : int or None
        The axis; ``None`` uses the flattened array.
    inplace : bool
        Must be False.
    mode : str, optional
        Index mode, as NumPy's.

    Returns
    -------
    Array
        The updated copy; the last write wins for repeated indices.

    Raises
    ------
    ValueError
        ``inplace`` not False; shapes as in :func:`take_along_axis`; ``values`` not
        broadcastable to the indexed shape.

    Notes
    -----
    Differentiable in ``arr`` (0 at the overwritten positions) and ``values`` (see
    ``x.at[idx].set`` in the module docstring).
    """
    if inplace is not False:
        raise ValueError(
            "ftrans.numpy.put_along_axis cannot modify arrays in place (ftrans is "
            "functional): call it with inplace=False and use the array it returns, e.g. "
            "a = fnp.put_along_axis(a, idx, v, axis, inplace=False)")
    if mode not in (None, "raise"):
        raise ValueError(f"put_along_axis: only mode='raise' is supported, got {mode!r}")
    a, i, ax = _along_axis_args(arr, indices, axis, "put_along_axis")
    return _update(a, _along_axis_index(a.shape, i, ax), values, "set")


# ---------------------------------------------------------------------------------
# x.at[idx].set/add/multiply/min/max/get
# ---------------------------------------------------------------------------------
class _IndexUpdateHelper:
    """``x.at``: index it (``x.at[idx]``) to get an updater for that index."""

    __slots__ = ("array",)

    def __init__(self, array: ArrayLike) -> None:
        self.array = array

    def __getitem__(self, idx: Any) -> _IndexUpdateRef:
        return _IndexUpdateRef(self.array, idx)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"


class _IndexUpdateRef:
    """``x.at[idx]``: functional updates of ``x`` at ``idx`` (see module docstring)."""

    __slots__ = ("array", "index")

    def __init__(self, array: ArrayLike, index: Any) -> None:
        self.array = array
        self.index = index

    def get(self) -> Array:
        """``x[idx]``."""
        return P.gather(self.array, self.index)

    def set(self, values: ArrayLike) -> Array:
        """``x`` with ``x[idx] = values`` (last write wins for repeated indices)."""
        return _update(self.array, self.index, values, "set")

    def add(self, values: ArrayLike) -> Array:
        """``x`` with ``values`` added at ``idx`` (repeated indices accumulate)."""
        return _update(self.array, self.index, values, "add")

    def subtract(self, values: ArrayLike) -> Array:
        """``x`` with ``values`` subtracted at ``idx`` (repeated indices accumulate)."""
        return _update(self.array, self.index, P.neg(F._arr(values)), "add")

    def multiply(self, values: ArrayLike) -> Array:
        """``x`` multiplied at ``idx`` by ``values`` (repeated indices accumulate)."""
        return _update(self.array, self.index, values, "multiply")

    def divide(self, values: ArrayLike) -> Array:
        """``x`` divided at ``idx`` by ``values`` (repeated indices accumulate)."""
        return _update(self.array, self.index, P.div(1.0, F._arr(values)), "multiply")

    def min(self, values: ArrayLike) -> Array:
        """``x`` with ``x[idx] = minimum(x[idx], values)`` (``numpy.minimum.at``)."""
        return _update(self.array, self.index, values, "min")

    def max(self, values: ArrayLike) -> Array:
        """``x`` with ``x[idx] = maximum(x[idx], values)`` (``numpy.maximum.at``)."""
        return _update(self.array, self.index, values, "max")

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"


def at(x: ArrayLike) -> _IndexUpdateHelper:
    """Functional indexed updates of an array (``x.at`` for any array).

    ``at(x)[idx].set(v)`` (``.add``, ``.subtract``, ``.multiply``, ``.divide``, ``.min``,
    ``.max``, ``.get``) is JAX's functional indexed update (see the module docstring); it
    is also the ``at`` property of traced arrays.

    Examples
    --------
    >>> import numpy as np, ftrans.numpy as fnp
    >>> x = np.zeros(4)
    >>> fnp.at(x)[np.array([0, 0, 2])].add(1.0)
    array([2., 0., 1., 0.])
    >>> x
    array([0., 0., 0., 0.])

    Parameters
    ----------
    x : array_like
        The array to update (or a tracer).

    Returns
    -------
    _IndexUpdateHelper
        Indexed with any NumPy index (ints, slices, integer arrays, boolean
        masks, tuples of them) it gives the updater; each update returns a new array and
        leaves ``x`` unchanged.  Repeated indices accumulate for ``add``/``multiply``/
        ``min``/``max`` (``numpy.add.at`` semantics, as JAX's scatter-add); ``set`` keeps
        the last write.

    Notes
    -----
    Differentiable in ``x`` and the update values.
    """
    return _IndexUpdateHelper(x)


def _may_repeat(idx: Any) -> bool:
    """Whether the index expression has integer index arrays (which may repeat)."""
    template, arrays = split_index(idx)
    return any(isinstance(t, _Slot) and getattr(arrays[t.k], "ndim", 1) > 0
               and arrays[t.k].dtype.kind in "iu" for t in template)


def _cast(v: Any, dtype: Any) -> Any:
    if isinstance(v, Tracer) or hasattr(v, "dtype"):
        return v if v.dtype == dtype else P.convert_element_type(v, dtype)
    return np.asarray(v, dtype)


def _region_shape(shape: Any, idx: Any) -> Any:
    """The shape of ``x[idx]`` for ``x`` of ``shape`` (index arrays may be traced)."""
    template, arrays = split_index(idx)
    template, arrays, axes = _expand_bool0(template, arrays, len(shape))
    if axes:
        shape = _expand_shape(shape, axes)
    avals = [ShapedArray(tuple(a.shape), a.dtype) for a in arrays]
    return tuple(_gather_abstract_eval(ShapedArray(tuple(shape), np.dtype(np.float64)), *avals,
                                       template=template).shape)


def _update(x: Any, idx: Any, values: Any, op: str) -> Array:
    x = F._ndarray(x)
    if _kind_of(x) == "b":   # on 0/1 integers: add is "or", multiply "and", as in NumPy
        i64 = np.dtype(np.int64)
        r = _update(P.convert_element_type(x, i64), idx, _cast(F._ndarray(values), i64), op)
        return P.ne(r, 0)
    size = x.size
    region = _region_shape(tuple(x.shape), idx)
    v = _cast(F._ndarray(values), x.dtype)
    vshape = tuple(v.shape)
    try:
        bshape = np.broadcast_shapes(vshape, region)
    except ValueError:
        bshape = None
    lead = len(bshape) - len(region) if bshape is not None else 0
    if bshape is None or bshape[lead:] != region or any(d != 1 for d in bshape[:lead]):
        raise ValueError(f"shape mismatch: value array of shape {vshape} could not be "
                         f"broadcast to indexing result of shape {region}")
    if vshape != bshape:
        v = P.broadcast_to(v, bshape)
    if lead:
        v = P.reshape(v, region)
    if op == "add":
        return P.add(x, P.scatter_add(v, idx, x.shape))
    # target[p]: the flat position of x that position p of the indexed region addresses
    # (computed by NumPy when the index holds no traced arrays, so that the grouping of
    # repeated indices stays concrete under jit too)
    positions = np.arange(size, dtype=np.int64).reshape(x.shape)
    target = P.gather(positions, idx) if any(isinstance(a, Tracer) for a in
                                             split_index(idx)[1]) else positions[idx]
    repeats = _may_repeat(idx)
    concrete = not isinstance(target, Tracer)
    if concrete:
        flat = target.reshape(-1)
        uniq, first, counts = np.unique(flat, return_index=True, return_counts=True)
        repeats = repeats and bool(counts.size and counts.max() > 1)
        written = np.zeros(size, bool)
        written[flat] = True
        written = written.reshape(x.shape)
    else:
        written = P.gt(P.scatter_add(np.ones(region, np.int64), idx, x.shape), 0)
    if op == "set":
        if repeats:
            v = P.where(_last_writes(target, region), v, 0)
        return P.where(written, P.scatter_add(v, idx, x.shape), x)
    if op in ("min", "max") and _kind_of(x) == "c":
        raise TypeError(f".at[...].{op}() is not defined for complex arrays")
    if not repeats:
        if op == "multiply":
            return P.where(written, P.mul(x, P.scatter_add(v, idx, x.shape)), x)
        ext = P.maximum if op == "max" else P.minimum
        return P.where(written, ext(x, P.scatter_add(v, idx, x.shape)), x)
    if not concrete:
        raise NotImplementedError(
            f".at[...].{op}() with traced index arrays that may repeat (e.g. batched by vmap) "
            "is not supported: pass the indices as a concrete array, or use .set/.add")
    # group the region positions by target: a (targets, max multiplicity) matrix
    order = np.argsort(flat, kind="stable")
    group = np.repeat(np.arange(uniq.size), counts)
    rank = np.arange(flat.size) - np.repeat(np.cumsum(counts) - counts, counts)
    k = int(counts.max())
    pos = np.zeros((uniq.size, k), np.int64)
    pad = np.ones((uniq.size, k), bool)
    pos[group, rank] = order
    pad[group, rank] = False
    vg = P.gather(P.reshape(v, (flat.size,)), pos)
    xf = P.reshape(x, (size,))
    if op == "multiply":
        prod = _cast(P.reduce_prod(P.where(pad, x.dtype.type(1), vg), (1,)), x.dtype)
        vals = P.mul(P.gather(xf, uniq), prod)
    else:
        fill = _extreme_fill(x.dtype, op)
        cand = P.concatenate([P.expand_dims(P.gather(xf, uniq), (1,)), P.where(pad, fill, vg)], 1)
        vals = (P.reduce_max if op == "max" else P.reduce_min)(cand, (1,))
    return P.where(written, P.reshape(P.scatter_add(vals, uniq, (size,)), x.shape), x)


def _extreme_fill(dtype: Any, op: str) -> Any:
    """The identity of ``max``/``min`` in ``dtype`` (-inf/inf, or the integer or boolean
    extremes), so that padding keeps the dtype."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return np.bool_(op != "max")
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return dtype.type(info.min if op == "max" else info.max)
    return dtype.type(-np.inf if op == "max" else np.inf)


def _last_writes(target: Any, region: Any) -> Any:
    """Boolean mask (region shape): True where a position is the last write to its target
    in NumPy's assignment order (C order of the indexed region)."""
    n = int(np.prod(region, dtype=np.int64))
    if not isinstance(target, Tracer):
        flat = target.reshape(-1)
        _, last_rev = np.unique(flat[::-1], return_index=True)
        mask = np.zeros(n, bool)
        mask[n - 1 - last_rev] = True
        return mask.reshape(region)
    # traced targets: a stable sort groups equal targets in region order; the last of
    # each group is a last write; scatter the flags back through the permutation
    flat = P.reshape(target, (n,))
    perm = P.argsort(flat, 0)
    ts = P.gather(flat, perm)
    last = P.concatenate([P.ne(P.gather(ts, slice(0, n - 1)), P.gather(ts, slice(1, n))),
                          np.ones(1, bool)], 0) if n else np.zeros(0, bool)
    hits = P.scatter_add(P.convert_element_type(last, np.dtype(np.int64)), perm, (n,))
    return P.reshape(P.gt(hits, 0), region)
