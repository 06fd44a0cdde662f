"""Indexing: ``gather`` (any NumPy index expression) and its transpose ``scatter_add``.

An index expression is split into a static *template* (slices, ints, ``None``,
``Ellipsis``, and placeholders) and the integer index arrays, which are passed as
operands so that transforms see them.  Boolean masks must be concrete: they are
turned into integer arrays with ``nonzero()`` before binding (a traced mask would
give a data-dependent shape).

The VJP of ``gather`` is ``scatter_add`` into zeros, which *accumulates* over
repeated indices (``x[[0, 0]]`` sends both cotangents to ``x[0]``), computed by the
kernel layer (a numba loop on the CPU instead of the slow ``numpy.add.at``).
The VJP of ``scatter_add`` is ``gather``; both are linear in the array operand.
"""
from __future__ import annotations

import numpy as np

from ..core import Primitive, ShapedArray, zero, Tracer
from ..kernels import backend_for
from ._rules import batch_size, batched_front, move_to_front, unbroadcast
from ._base import reshape, transpose, expand_dims, expand_shape as _expand_shape

__all__ = ["gather", "scatter_add", "split_index"]


class _Slot:
    """Placeholder for the ``k``-th index array in a template."""

    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k

    def __repr__(self):
        return f"<array {self.k}>"

    def __eq__(self, other):
        return isinstance(other, _Slot) and other.k == self.k

    def __hash__(self):
        return hash(("slot", self.k))


def split_index(idx):
    """Split a NumPy index into ``(template, arrays)``.

    Raises
    ------
    IndexError
        For a float or otherwise unsupported index element, or a traced boolean mask.
    """
    if not isinstance(idx, tuple):
        idx = (idx,)
    template, arrays = [], []
    for i in idx:
        if i is None or i is Ellipsis or isinstance(i, slice):
            template.append(i)
        elif isinstance(i, (bool, np.bool_)):  # NumPy's 0-d boolean index
            arrays.append(np.asarray(i))
            template.append(_Slot(len(arrays) - 1))
        elif isinstance(i, (int, np.integer)):
            template.append(int(i))
        else:
            if isinstance(i, Tracer):
                if i.dtype.kind == "b":
                    raise IndexError(
                        "boolean mask indexing needs a concrete mask, got a traced one (its "
                        "result shape would depend on traced values); use "
                        "ftrans.numpy.where(mask, x, 0) instead")
                a = i
            else:
                a = np.asarray(i) if not hasattr(i, "dtype") else i
                if a.size == 0 and isinstance(i, (list, tuple)):
                    a = a.astype(np.intp)  # NumPy: an empty list is an empty integer index
                if a.dtype.kind == "b":
                    if a.ndim == 0:
                        arrays.append(a)
                        template.append(_Slot(len(arrays) - 1))
                        continue
                    for part in a.nonzero():
                        arrays.append(part)
                        template.append(_Slot(len(arrays) - 1))
                    continue
            if a.dtype.kind not in "iu":
                raise IndexError(
                    f"only integers, slices, Ellipsis, None and integer or boolean arrays are "
                    f"valid indices; got an array of dtype {a.dtype}")
            arrays.append(a)
            template.append(_Slot(len(arrays) - 1))
    return tuple(template), tuple(arrays)


def _rebuild(template, arrays):
    return tuple(arrays[t.k] if isinstance(t, _Slot) else t for t in template)


def _is_advanced(t):
    return isinstance(t, (_Slot, int))


def _batch_index(template, arrays, adims, x_ndim, size):
    """Batch an index expression whose operand gets a leading batch axis of ``size``.

    ``x_ndim`` is the per-example rank of the indexed operand; ``adims`` the batch axes
    of the index ``arrays`` (None: unbatched).  Returns ``(template, arrays, perm)``:
    indexing the batched operand with the new template gives the batch axis first,
    and ``transpose(result, perm)`` (when ``perm`` is not None) restores the
    per-example axis order after it.  A template with no index arrays just gets a
    leading full slice; otherwise an ``arange(size)`` index array is put first (NumPy
    then places the broadcast index axes, led by the batch axis, in front).
    """
    if not any(isinstance(t, _Slot) for t in template):
        return (slice(None),) + template, (), None
    for a in arrays:
        if a.dtype.kind == "b":
            raise NotImplementedError("vmap of indexing with a 0-d boolean index")
    per_shapes = [tuple(a.shape[:d] + a.shape[d + 1:]) if d is not None else tuple(a.shape)
                  for a, d in zip(arrays, adims)]
    bshape = np.broadcast_shapes(*per_shapes)
    new_arrays = [np.arange(size).reshape((size,) + (1,) * len(bshape))]
    for a, d, ps in zip(arrays, adims, per_shapes):
        if d is not None:
            a = move_to_front(a, d)
            if len(ps) < len(bshape):
                a = reshape(a, (size,) + (1,) * (len(bshape) - len(ps)) + ps)
        new_arrays.append(a)
    new_template = (_Slot(0),) + tuple(_Slot(t.k + 1) if isinstance(t, _Slot) else t
                                       for t in template)
    # Per example, adjacent advanced indices (ints and arrays) after some basic entries
    # keep those entries' axes in front of the index axes; batched, they move behind.
    adv = [i for i, t in enumerate(template) if _is_advanced(t)]
    p0 = adv[0]
    if p0 == 0 or adv != list(range(p0, adv[-1] + 1)):
        return new_template, tuple(new_arrays), None
    consumed = sum(1 for t in template if t is not None and t is not Ellipsis)
    npre = sum(1 if t is None or isinstance(t, slice) else x_ndim - consumed
               for t in template[:p0])
    if npre == 0:
        return new_template, tuple(new_arrays), None
    nb = len(bshape)
    perm = (0,) + tuple(1 + nb + i for i in range(npre)) + tuple(1 + i for i in range(nb))
    return new_template, tuple(new_arrays), perm


# gather ----------------------------------------------------------------------
gather_p = Primitive("gather")
gather_p.lowering = {"kind": "gather"}  # ftrans.compiler._numba_scatter


@gather_p.def_impl
def _gather_impl(x, *arrays, template):
    if type(x) is np.ndarray:
        return x[_rebuild(template, arrays)]
    be = backend_for(x)
    getitem = getattr(be, "getitem", None)  # Dask, array-API arrays
    return x[_rebuild(template, arrays)] if getitem is None else \
        getitem(x, _rebuild(template, arrays))


def _stand_in(aval):
    return np.broadcast_to(np.zeros((), aval.dtype), aval.shape)


@gather_p.def_abstract_eval
def _gather_abstract_eval(x, *arrays, template):
    idx = _rebuild(template, [np.zeros(a.shape, a.dtype) for a in arrays])
    return ShapedArray(_stand_in(x)[idx].shape, x.dtype)


@gather_p.def_jvp
def _gather_jvp(primals, tangents, *, template):
    x, *arrays = primals
    ans = gather_p.bind(x, *arrays, template=template)
    t = tangents[0]
    return ans, (zero if t is zero else gather_p.bind(t, *arrays, template=template))


@gather_p.def_vjp
def _gather_vjp(ct, ans, primals, needs, *, template):
    x, *arrays = primals
    res = [None] * len(primals)
    if needs[0]:
        res[0] = scatter_add_p.bind(ct, *arrays, template=template, shape=x.shape)
    return res


@gather_p.def_batch
def _gather_batch(vals, dims, *, template):
    size = batch_size(vals, dims)
    xb = batched_front(vals[0], dims[0], size)
    tmpl, arrays, perm = _batch_index(template, vals[1:], dims[1:], xb.ndim - 1, size)
    out = gather_p.bind(xb, *arrays, template=tmpl)
    if perm is not None:
        out = transpose(out, perm + tuple(range(len(perm), out.ndim)))
    return out, 0


def _expand_bool0(template, arrays, ndim):
    """Rewrite 0-d boolean indices (``x[True]``, ``x[..., False]``) as integer arrays.

    NumPy treats a 0-d boolean as an index array of shape (1,) (True) or (0,) (False)
    addressing a new length-1 axis.  Returns ``(template, arrays, axes)``: indexing
    ``expand_dims(x, axes)`` with the new template equals ``x[idx]``; ``axes`` is
    empty when there is nothing to rewrite.  (Integer arrays keep the batching rule
    of ``gather``/``scatter_add`` simple: it has no case for 0-d booleans.)
    """
    bool0 = [k for k, a in enumerate(arrays)
             if getattr(a, "ndim", 1) == 0 and a.dtype.kind == "b"]
    if not bool0:
        return template, arrays, ()
    arrays = list(arrays)
    consumed = sum(1 for t in template if isinstance(t, (int, slice))
                   or (isinstance(t, _Slot) and t.k not in bool0))
    axes, pos = [], 0
    for t in template:
        if isinstance(t, _Slot) and t.k in bool0:
            axes.append(pos + len(axes))
            arrays[t.k] = np.zeros(int(bool(arrays[t.k])), np.intp)
        elif t is Ellipsis:
            pos += ndim - consumed
        elif t is not None:
            pos += 1
    return template, tuple(arrays), tuple(axes)


def gather(x, idx):
    """``x[idx]`` for any NumPy index expression ``idx`` (see module docstring)."""
    template, arrays = split_index(idx)
    template, arrays, axes = _expand_bool0(template, arrays, len(x.shape))
    if axes:
        x = expand_dims(x, axes)
    return gather_p.bind(x, *arrays, template=template)


# scatter_add -----------------------------------------------------------------
scatter_add_p = Primitive("scatter_add")
scatter_add_p.lowering = {"kind": "scatter_add"}  # ftrans.compiler._numba_scatter


@scatter_add_p.def_impl
def _scatter_impl(updates, *arrays, template, shape):
    be = backend_for(updates)
    return be.scatter_add(shape, updates.dtype, _rebuild(template, arrays), updates)


@scatter_add_p.def_abstract_eval
def _scatter_abstract_eval(updates, *arrays, template, shape):
    return ShapedArray(shape, updates.dtype)


@scatter_add_p.def_jvp
def _scatter_jvp(primals, tangents, *, template, shape):
    u, *arrays = primals
    ans = scatter_add_p.bind(u, *arrays, template=template, shape=shape)
    t = tangents[0]
    return ans, (zero if t is zero else
                 scatter_add_p.bind(t, *arrays, template=template, shape=shape))


@scatter_add_p.def_vjp
def _scatter_vjp(ct, ans, primals, needs, *, template, shape):
    u, *arrays = primals
    res = [None] * len(primals)
    if needs[0]:
        g = gather_p.bind(ct, *arrays, template=template)
        if g.shape != u.shape:  # updates were broadcast into the indexed region
            g = unbroadcast(g, u)
        res[0] = g
    return res


@scatter_add_p.def_batch
def _scatter_batch(vals, dims, *, template, shape):
    size = batch_size(vals, dims)
    ub = batched_front(vals[0], dims[0], size)
    arrays, adims = vals[1:], dims[1:]
    per_arrays = [ShapedArray(a.shape[:d] + a.shape[d + 1:] if d is not None else a.shape,
                              a.dtype) for a, d in zip(arrays, adims)]
    region = _gather_abstract_eval(ShapedArray(shape, ub.dtype), *per_arrays,
                                   template=template).shape
    if ub.ndim - 1 < len(region):  # per-example updates broadcast into the region
        ub = reshape(ub, (size,) + (1,) * (len(region) - ub.ndim + 1) + tuple(ub.shape[1:]))
    tmpl, new_arrays, perm = _batch_index(template, arrays, adims, len(shape), size)
    if perm is not None:
        full = perm + tuple(range(len(perm), ub.ndim))
        ub = transpose(ub, tuple(np.argsort(full).tolist()))
    return scatter_add_p.bind(ub, *new_arrays, template=tmpl, shape=(size,) + tuple(shape)), 0


def scatter_add(updates, idx, shape):
    """Zeros of ``shape`` with ``updates`` added at ``idx``, accumulating repeats
    (``numpy.add.at`` semantics)."""
    template, arrays = split_index(idx)
    shape = tuple(shape)
    template, arrays, axes = _expand_bool0(template, arrays, len(shape))
    if axes:
        big = _expand_shape(shape, axes)
        return reshape(scatter_add_p.bind(updates, *arrays, template=template, shape=big), shape)
    return scatter_add_p.bind(updates, *arrays, template=template, shape=shape)
