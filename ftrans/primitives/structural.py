"""Shape primitives (all linear): reshape, transpose, broadcast_to, squeeze,
expand_dims, concatenate, and reduce_sum (the transpose of broadcasting).

Parameters are static and already normalized (non-negative axes as tuples);
``ftrans.numpy`` turns NumPy's flexible arguments into them and raises the
user-facing errors.
"""
from __future__ import annotations

import math

import numpy as np

from ..core import ShapedArray, zero, result_type
from ..kernels import backend_for
from ._rules import unbroadcast, move_to_front, batched_front, batch_size
from ._base import (reshape_p, transpose_p, broadcast_to_p, squeeze_p, expand_dims_p,
                    reduce_sum_p, concatenate_p, reshape, transpose, broadcast_to, squeeze,
                    expand_dims, reduce_sum, concatenate, expand_shape as _expand_shape)
from .indexing import gather

__all__ = ["reshape", "transpose", "broadcast_to", "squeeze", "expand_dims", "concatenate",
           "reduce_sum", "zeros_of"]


def zeros_of(shape, dtype, like):
    """A constant array of zeros on the backend of ``like``."""
    return backend_for(like).xp.zeros(shape, dtype)


def _linear(prim, impl, abstract_eval, transpose, batch):
    """Define a one-input linear primitive: the JVP applies it to the tangent, the
    VJP is ``transpose(ct, x, **params)``, and the batching rule is
    ``batch(x_with_batch_axis_in_front, **params) -> out_with_batch_axis_in_front``."""
    prim.impl = impl
    prim.abstract_eval = abstract_eval
    prim.batch = lambda vals, bdims, **params: (batch(move_to_front(vals[0], bdims[0]), **params), 0)
    bind = prim.bind

    def jvp(primals, tangents, **params):
        ans = bind(primals[0], **params)
        t = tangents[0]
        return ans, (zero if t is zero else bind(t, **params))

    def vjp(ct, ans, primals, needs, **params):
        return [transpose(ct, primals[0], **params)]
    prim.jvp = jvp
    prim.vjp = vjp
    return prim


# reshape ---------------------------------------------------------------------
def _reshape_abstract(x, new_shape):
    """The staged reshape's shape: ``new_shape`` itself, checked (no ``-1`` to infer: a
    negative size would give a wrong program, not an error)."""
    if any(d < 0 for d in new_shape) or math.prod(new_shape) != math.prod(x.shape):
        raise ValueError(f"reshape: new_shape {new_shape} must be non-negative sizes with "
                         f"the {math.prod(x.shape)} elements of shape {x.shape}; compute "
                         "any -1 before binding the primitive")
    return ShapedArray(new_shape, x.dtype)


_linear(
    reshape_p,
    lambda x, *, new_shape: x.reshape(new_shape) if type(x) is np.ndarray else
    backend_for(x).xp.reshape(x, new_shape),
    lambda x, *, new_shape: _reshape_abstract(x, new_shape),
    lambda ct, x, *, new_shape: reshape(ct, x.shape),
    lambda xb, *, new_shape: reshape(xb, (xb.shape[0],) + new_shape))




# transpose -------------------------------------------------------------------
_linear(
    transpose_p,
    lambda x, *, perm: x.transpose(perm) if type(x) is np.ndarray else
    backend_for(x).xp.transpose(x, perm),
    lambda x, *, perm: ShapedArray(tuple(x.shape[p] for p in perm), x.dtype),
    lambda ct, x, *, perm: transpose(ct, tuple(np.argsort(perm).tolist())),
    lambda xb, *, perm: transpose(xb, (0,) + tuple(p + 1 for p in perm)))




# broadcast_to ----------------------------------------------------------------
_linear(
    broadcast_to_p,
    lambda x, *, shape: backend_for(x).xp.broadcast_to(x, shape),
    lambda x, *, shape: ShapedArray(shape, x.dtype),
    lambda ct, x, *, shape: unbroadcast(ct, x),
    lambda xb, *, shape: broadcast_to(
        reshape(xb, (xb.shape[0],) + (1,) * (len(shape) - xb.ndim + 1) + tuple(xb.shape[1:])),
        (xb.shape[0],) + shape))




# squeeze / expand_dims -------------------------------------------------------
_linear(
    squeeze_p,
    lambda x, *, dims: x.squeeze(dims) if type(x) is np.ndarray else
    backend_for(x).xp.squeeze(x, dims),
    lambda x, *, dims: ShapedArray(tuple(d for i, d in enumerate(x.shape) if i not in dims),
                                   x.dtype),
    lambda ct, x, *, dims: reshape(ct, x.shape),
    lambda xb, *, dims: squeeze(xb, tuple(d + 1 for d in dims)))






_linear(
    expand_dims_p,
    lambda x, *, dims: x.reshape(_expand_shape(x.shape, dims)) if type(x) is np.ndarray else
    backend_for(x).xp.reshape(x, _expand_shape(x.shape, dims)),
    lambda x, *, dims: ShapedArray(_expand_shape(x.shape, dims), x.dtype),
    lambda ct, x, *, dims: reshape(ct, x.shape),
    lambda xb, *, dims: expand_dims(xb, tuple(d + 1 for d in dims)))




# reduce_sum ------------------------------------------------------------------
def _reduced_shape(shape, axes):
    return tuple(d for i, d in enumerate(shape) if i not in axes)


_linear(
    reduce_sum_p,
    lambda x, *, axes: backend_for(x).reduce_sum(x, axes, False),
    lambda x, *, axes: ShapedArray(_reduced_shape(x.shape, axes), x.dtype),
    lambda ct, x, *, axes: broadcast_to(reshape(ct, _keepdims_shape(x.shape, axes)), x.shape),
    lambda xb, *, axes: reduce_sum(xb, tuple(a + 1 for a in axes)))


def _keepdims_shape(shape, axes):
    return tuple(1 if i in axes else d for i, d in enumerate(shape))




# batching rules that keep the batch axis where it is ---------------------------
# (``_linear``'s generic rule moves it to the front: a transposed view that the next
# kernel then reads against the grain.)  ``d`` is the batch axis of ``x``; a
# per-example axis ``a`` is axis ``a + (a >= d)`` of ``x``.
def _full(axes, d):
    return tuple(a + (a >= d) for a in axes)


def _reshape_batch(vals, dims, *, new_shape):
    x, d = vals[0], dims[0]
    if d == len(x.shape) - 1 and d > 0:  # batch axis last: C order keeps it last
        return reshape(x, new_shape + (x.shape[d],)), len(new_shape)
    x = move_to_front(x, d)
    return reshape(x, (x.shape[0],) + new_shape), 0


def _transpose_batch(vals, dims, *, perm):
    d = dims[0]
    full = [0] * (len(perm) + 1)
    full[d] = d
    for j, p in enumerate(perm):
        full[j + (j >= d)] = p + (p >= d)
    return transpose(vals[0], tuple(full)), d


def _broadcast_to_batch(vals, dims, *, shape):
    x, d = vals[0], dims[0]
    out_d = d + len(shape) - (len(x.shape) - 1)
    return broadcast_to(x, shape[:out_d] + (x.shape[d],) + shape[out_d:]), out_d


def _squeeze_batch(vals, bdims, *, dims):  # (``dims`` is the primitive's parameter here)
    d = bdims[0]
    return squeeze(vals[0], _full(dims, d)), d - sum(1 for a in dims if a < d)


def _expand_dims_batch(vals, bdims, *, dims):
    x, d = vals[0], bdims[0]
    r = len(x.shape) - 1
    n_out = r + len(dims)
    kept = [a for a in range(n_out) if a not in dims]  # output positions of x's axes
    q = kept[d] if d < r else n_out  # the batch axis goes just before x's axis d
    return expand_dims(x, tuple(a + (a >= q) for a in dims)), q


def _reduce_sum_batch(vals, dims, *, axes):
    d = dims[0]
    return reduce_sum(vals[0], _full(axes, d)), d - sum(1 for a in axes if a < d)


reshape_p.batch = _reshape_batch
transpose_p.batch = _transpose_batch
broadcast_to_p.batch = _broadcast_to_batch
squeeze_p.batch = _squeeze_batch
expand_dims_p.batch = _expand_dims_batch
reduce_sum_p.batch = _reduce_sum_batch


# concatenate -----------------------------------------------------------------


@concatenate_p.def_impl
def _concat_impl(*xs, axis):
    return backend_for(*xs).xp.concatenate(xs, axis=axis)


@concatenate_p.def_abstract_eval
def _concat_abstract_eval(*xs, axis):
    shape = list(xs[0].shape)
    shape[axis] = sum(x.shape[axis] for x in xs)
    return ShapedArray(shape, result_type(*xs))


@concatenate_p.def_jvp
def _concat_jvp(primals, tangents, *, axis):
    ans = concatenate_p.bind(*primals, axis=axis)
    if all(t is zero for t in tangents):
        return ans, zero
    ts = [zeros_of(x.shape, ans.dtype, ans) if t is zero else t
          for x, t in zip(primals, tangents)]
    return ans, concatenate_p.bind(*ts, axis=axis)


@concatenate_p.def_vjp
def _concat_vjp(ct, ans, primals, needs, *, axis):
    res = []
    start = 0
    for x, need in zip(primals, needs):
        stop = start + x.shape[axis]
        if need:
            idx = (slice(None),) * axis + (slice(start, stop),)
            res.append(unbroadcast(gather(ct, idx), x))
        else:
            res.append(None)
        start = stop
    return res


@concatenate_p.def_batch
def _concat_batch(vals, dims, *, axis):
    size = batch_size(vals, dims)
    xs = [batched_front(v, d, size) for v, d in zip(vals, dims)]
    return concatenate_p.bind(*xs, axis=axis + 1), 0




# compiler lowering (ftrans.compiler; format in its module docstring): index maps
# (views) where possible, materialized otherwise; reduce_sum is a fused reduction.
reshape_p.lowering = {"kind": "reshape"}
squeeze_p.lowering = {"kind": "reshape"}
expand_dims_p.lowering = {"kind": "reshape"}
transpose_p.lowering = {"kind": "transpose"}
broadcast_to_p.lowering = {"kind": "broadcast_to"}
concatenate_p.lowering = {"kind": "concatenate"}
reduce_sum_p.lowering = {"kind": "reduce", "monoid": "sum"}
