"""``dynamic_slice`` and ``dynamic_update_slice``: a window of static size at traced
start indices (XLA's DynamicSlice / DynamicUpdateSlice, JAX's ``lax`` primitives).

Operands: ``dynamic_slice(operand, *starts)`` with param ``slice_sizes``;
``dynamic_update_slice(operand, update, *starts)`` (the window's size is the update's
shape).  Each start is a 0-d integer (a Python int, a NumPy integer or a 0-d integer
array or tracer), one per axis of ``operand``.  As in XLA, every start is *clamped* so
the window fits: ``start = min(max(start, 0), operand.shape[k] - size[k])``; negative
starts are normalized (``start + operand.shape[k]``) by the ``ftrans.lax`` front ends
before they reach the primitives, as in JAX.

Rules
-----
* ``dynamic_slice`` is linear in ``operand``: JVP slices the tangent; VJP is
  ``dynamic_update_slice`` of the cotangent into zeros (its transpose).
* ``dynamic_update_slice`` is linear in ``(operand, update)``: JVP updates the operand's
  tangent with the update's; VJP gives the operand the cotangent with the window zeroed
  and the update the cotangent's window (``dynamic_slice``).
* The starts are integers: they carry no tangent and get no cotangent.
* Batching: unbatched starts add a leading start 0 (and size ``B``) on the batched
  operand; batched starts express the op per example as a ``gather`` of the clamped
  windows (``dynamic_update_slice``: a ``where`` over the window mask of the update
  gathered into place), JAX's route to batched dynamic slicing.

The numba compiler lowers both (``ftrans.compiler._numba_index``).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..kernels import backend_for
from ..core import Primitive, ShapedArray, zero
from ._base import reshape, add, sub, maximum, minimum, lt, ge, logical_and, where
from ._rules import batch_size, batched_front
from .indexing import gather
from .structural import zeros_of

__all__ = ["dynamic_slice_p", "dynamic_update_slice_p", "dynamic_slice_op",
           "dynamic_update_slice_op"]

dynamic_slice_p = Primitive("dynamic_slice")
dynamic_update_slice_p = Primitive("dynamic_update_slice")
# compiler lowering: ftrans.compiler._numba_index (index loops; starts clamped as the impl)
dynamic_slice_p.lowering = {"kind": "dynamic_slice", "n_arrays": 1}
dynamic_update_slice_p.lowering = {"kind": "dynamic_update_slice", "n_arrays": 2}


def _clamped(starts: Sequence[Any], shape: Sequence[int], sizes: Sequence[int]) -> tuple[int, ...]:
    """Concrete starts clamped so the window of ``sizes`` fits in ``shape``."""
    return tuple(min(max(int(s), 0), n - k) for s, n, k in zip(starts, shape, sizes))


def _window(starts: Sequence[int], sizes: Sequence[int]) -> tuple[slice, ...]:
    return tuple(slice(s, s + k) for s, k in zip(starts, sizes))


def dynamic_slice_op(x: Any, starts: Sequence[Any], slice_sizes: Sequence[int]) -> Any:
    """Bind ``dynamic_slice`` (no checks: the ``ftrans.lax`` front end validates)."""
    return dynamic_slice_p.bind(x, *starts, slice_sizes=tuple(int(k) for k in slice_sizes))


def dynamic_update_slice_op(x: Any, update: Any, starts: Sequence[Any]) -> Any:
    """Bind ``dynamic_update_slice`` (no checks: the ``ftrans.lax`` front end validates)."""
    return dynamic_update_slice_p.bind(x, update, *starts)


# dynamic_slice -----------------------------------------------------------------------
@dynamic_slice_p.def_impl
def _ds_impl(x: Any, *starts: Any, slice_sizes: tuple[int, ...]) -> Any:
    return x[_window(_clamped(starts, x.shape, slice_sizes), slice_sizes)]


@dynamic_slice_p.def_abstract_eval
def _ds_abstract_eval(x: ShapedArray, *starts: Any, slice_sizes: tuple[int, ...]) -> ShapedArray:
    return ShapedArray(slice_sizes, x.dtype)


@dynamic_slice_p.def_jvp
def _ds_jvp(primals: Sequence[Any], tangents: Sequence[Any], *,
            slice_sizes: tuple[int, ...]) -> tuple[Any, Any]:
    x, *starts = primals
    ans = dynamic_slice_p.bind(x, *starts, slice_sizes=slice_sizes)
    t = tangents[0]
    return ans, (zero if t is zero else dynamic_slice_p.bind(t, *starts, slice_sizes=slice_sizes))


@dynamic_slice_p.def_vjp
def _ds_vjp(ct: Any, ans: Any, primals: Sequence[Any], needs: Sequence[bool], *,
            slice_sizes: tuple[int, ...]) -> list[Any]:
    x, *starts = primals
    res: list[Any] = [None] * len(primals)
    if needs[0]:
        res[0] = dynamic_update_slice_p.bind(zeros_of(x.shape, ct.dtype, ct), ct, *starts)
    return res


def _batched_starts(starts: Sequence[Any], sdims: Sequence[int | None], size: int,
                    shape: Sequence[int], sizes: Sequence[int]) -> list[Any]:
    """Per-example clamped starts, each of shape ``(size,)``."""
    return [minimum(maximum(batched_front(s if hasattr(s, "shape") else np.asarray(s), d, size),
                            0), n - k)
            for s, d, n, k in zip(starts, sdims, shape, sizes)]


def _axis_index(v: Any, k: int, rank: int) -> Any:
    """``v`` of shape ``(B,)`` or ``(m,)`` placed on axis ``k`` of a rank-``rank`` index."""
    shape = [1] * rank
    shape[k] = v.shape[0]
    return reshape(v, tuple(shape))


@dynamic_slice_p.def_batch
def _ds_batch(vals: Sequence[Any], dims: Sequence[int | None], *,
              slice_sizes: tuple[int, ...]) -> tuple[Any, int]:
    size = batch_size(vals, dims)
    xb = batched_front(vals[0], dims[0], size)
    starts, sdims = vals[1:], dims[1:]
    if all(d is None for d in sdims):
        return dynamic_slice_p.bind(xb, 0, *starts, slice_sizes=(size,) + slice_sizes), 0
    r = len(slice_sizes) + 1
    cs = _batched_starts(starts, sdims, size, xb.shape[1:], slice_sizes)
    idx = [_axis_index(np.arange(size), 0, r)]
    for k, (c, m) in enumerate(zip(cs, slice_sizes)):
        idx.append(add(_axis_index(c, 0, r), _axis_index(np.arange(m, dtype=np.int64), k + 1, r)))
    return gather(xb, tuple(idx)), 0


# dynamic_update_slice ----------------------------------------------------------------
@dynamic_update_slice_p.def_impl
def _dus_impl(x: Any, update: Any, *starts: Any) -> Any:
    # NumPy, CuPy and Dask copy with .copy(); torch and array-API arrays through asarray
    out = x.copy() if hasattr(x, "copy") else backend_for(x).ns.asarray(x, copy=True)
    out[_window(_clamped(starts, x.shape, update.shape), update.shape)] = update
    return out


@dynamic_update_slice_p.def_abstract_eval
def _dus_abstract_eval(x: ShapedArray, update: ShapedArray, *starts: Any) -> ShapedArray:
    return ShapedArray(x.shape, x.dtype)


@dynamic_update_slice_p.def_jvp
def _dus_jvp(primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
    x, u, *starts = primals
    ans = dynamic_update_slice_p.bind(x, u, *starts)
    tx, tu = tangents[0], tangents[1]
    if tx is zero and tu is zero:
        return ans, zero
    tx = zeros_of(x.shape, ans.dtype, ans) if tx is zero else tx
    tu = zeros_of(u.shape, ans.dtype, ans) if tu is zero else tu
    return ans, dynamic_update_slice_p.bind(tx, tu, *starts)


@dynamic_update_slice_p.def_vjp
def _dus_vjp(ct: Any, ans: Any, primals: Sequence[Any], needs: Sequence[bool]) -> list[Any]:
    x, u, *starts = primals
    res: list[Any] = [None] * len(primals)
    if needs[0]:
        res[0] = dynamic_update_slice_p.bind(ct, zeros_of(u.shape, ct.dtype, ct), *starts)
    if needs[1]:
        res[1] = dynamic_slice_p.bind(ct, *starts, slice_sizes=tuple(u.shape))
    return res


@dynamic_update_slice_p.def_batch
def _dus_batch(vals: Sequence[Any], dims: Sequence[int | None]) -> tuple[Any, int]:
    size = batch_size(vals, dims)
    xb = batched_front(vals[0], dims[0], size)
    ub = batched_front(vals[1], dims[1], size)
    starts, sdims = vals[2:], dims[2:]
    if all(d is None for d in sdims):
        return dynamic_update_slice_p.bind(xb, ub, 0, *starts), 0
    shape, sizes = tuple(xb.shape[1:]), tuple(ub.shape[1:])
    r = len(shape) + 1
    cs = _batched_starts(starts, sdims, size, shape, sizes)
    idx = [_axis_index(np.arange(size), 0, r)]
    mask: Any = None
    for k, (c, n, m) in enumerate(zip(cs, shape, sizes)):
        pos = _axis_index(np.arange(n, dtype=np.int64), k + 1, r)
        ck = _axis_index(c, 0, r)
        off = sub(pos, ck)                        # position inside the window
        idx.append(minimum(maximum(off, 0), m - 1))
        inside = logical_and(ge(off, 0), lt(off, m))
        mask = inside if mask is None else logical_and(mask, inside)
    if mask is None:  # a 0-d operand: the update replaces it
        return ub, 0
    return where(mask, gather(ub, tuple(idx)), xb), 0
