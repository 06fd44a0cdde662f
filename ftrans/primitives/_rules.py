"""Helpers shared by the primitive definitions.

Broadcasting is *implicit*: elementwise primitives accept operands of any
NumPy-broadcastable shapes (and NumPy-promotable dtypes, Python scalars being
weak), exactly like the NumPy ufuncs their kernels call.  We chose this over an
explicit ``broadcast_in_dim`` before every binary op because it keeps one
primitive per NumPy operation in the trace -- the per-op overhead is a product
figure (DESIGN.md) -- and makes the eager path a single kernel call.  The price
is paid in one place: :func:`unbroadcast` sums a cotangent back to its operand's
shape and dtype, and :func:`fit` broadcasts a tangent to its output's shape and
dtype.  Every elementwise rule goes through these two functions.
"""
from __future__ import annotations

import functools
import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core import zero, Primitive, ShapedArray, result_type, is_inexact
from ..core.abstract import aval_of
from ..core.dtypes import kind_of, as_numpy_dtype
from ..core.trace import _ctx, EVAL
from ..kernels import backend_for
from ._base import (conj_op, convert_element_type, real, reduce_sum, reshape, broadcast_to,
                    add as _add, transpose)

__all__ = ["numpy_kernel_impl", "unbroadcast", "fit", "conj", "no_trace", "def_elementwise", "elementwise_abstract_eval"]


def no_trace() -> bool:
    """True when no transform is active: rules may then call fused kernels directly."""
    return _ctx.trace is EVAL


def conj(x):
    """Complex conjugate when ``x`` is complex; ``x`` itself otherwise (no op recorded)."""
    if isinstance(x, (int, float, complex)):
        return x.conjugate()
    try:
        k = x.dtype.kind
    except AttributeError:  # another library's dtype object (array_api_strict)
        k = kind_of(x)
    if k == "c":
        return conj_op(x)
    return x


def _to_dtype(v, dtype):
    if as_numpy_dtype(v.dtype) == dtype:
        return v
    if kind_of(v) == "c" and dtype.kind != "c":
        v = real(v)  # adjoint of the embedding R -> C is the real part
        if as_numpy_dtype(v.dtype) == dtype:
            return v
    return convert_element_type(v, new_dtype=dtype)


def unbroadcast(ct, x):
    """Reduce the cotangent ``ct`` of a broadcast result to the shape and dtype of ``x``.

    Sums over the leading axes ``ct`` has in excess and over the axes where ``x``
    has size 1; a complex ``ct`` of a real ``x`` keeps its real part.
    """
    xshape = x.shape
    cshape = ct.shape
    if cshape != xshape:
        lead = len(cshape) - len(xshape)
        axes = tuple(range(lead)) + tuple(
            i + lead for i, d in enumerate(xshape) if d == 1 and cshape[i + lead] != 1)
        if axes:
            ct = reduce_sum(ct, axes=axes)
        if ct.shape != xshape:
            ct = reshape(ct, new_shape=xshape)
    dtype = x.dtype
    if ct.dtype != dtype:
        ct = _to_dtype(ct, as_numpy_dtype(dtype))
    return ct


def fit(t, ans):
    """Broadcast the tangent ``t`` to the shape of ``ans`` and cast it to its dtype."""
    if t.shape != ans.shape:
        t = broadcast_to(t, shape=ans.shape)
    if t.dtype != ans.dtype:
        t = _to_dtype(t, np.dtype(ans.dtype))
    return t


# Integer and boolean operands of the float-valued functions: NumPy picks the loop (and so
# the result dtype) by the operand's size (np.sin of int8 is float16, of int16 float32, of
# int32/int64 and Python ints float64); the abstract value must say what impl returns.
def float_valued_abstract_eval(ufunc, row=None):
    """The abstract-eval rule of an elementwise function: NumPy's promotion when it gives
    an inexact dtype (``ufunc``'s result dtype otherwise); with ``row`` (an operation-table
    row; its kernel is looked up lazily) whose dtype rule is not "float" (``trunc``,
    ``ldexp`` ...), always the kernel's result dtype for zeros of the operands' dtypes."""
    always = row is not None and row.dtype != "float"
    fn = [ufunc]

    def rule(*avals, **params):
        a = elementwise_abstract_eval(*avals)
        if a.dtype.kind in "fc" and not always:
            return a
        if fn[0] is None:
            fn[0] = row_ufunc(row)
        with np.errstate(all="ignore"):
            out = fn[0](*zero_samples(avals))
        if isinstance(out, tuple):  # a row with several results (frexp, modf)
            return tuple(ShapedArray(a.shape, np.asarray(o).dtype) for o in out)
        return ShapedArray(a.shape, np.asarray(out).dtype)
    return rule


def zero_samples(avals):
    """A zero of each abstract value's dtype (a Python scalar for weak types), for
    asking a NumPy function which dtype it returns."""
    return [(x.dtype.type(0).item() if x.weak_type else np.zeros((), x.dtype))
            if isinstance(x, ShapedArray) else x for x in avals]


def row_ufunc(op):
    """The NumPy (or SciPy) function an operation-table row's kernel computes."""
    mod, _, fname = op.kernel.rpartition(".")
    if mod == "np":
        return getattr(np, fname)
    import scipy.special  # deferred: SciPy is optional (only the Bessel rows need it)
    return getattr(scipy.special, fname)


def elementwise_abstract_eval(*avals, **params):
    """Shape: NumPy broadcasting of the operands; dtype: NumPy promotion (weak scalars)."""
    shapes = [a.shape for a in avals if isinstance(a, ShapedArray)]
    # (equal shapes, and operands of one native-byte-order dtype none of them weak, are the
    # common case of a trace: answered without NumPy's broadcasting and promotion calls)
    shape = shapes[0] if shapes and shapes.count(shapes[0]) == len(shapes) else \
        np.broadcast_shapes(*shapes) if shapes else ()
    a0 = avals[0] if avals else None
    if (isinstance(a0, ShapedArray) and not a0.weak_type and a0.dtype.isnative
            and all(isinstance(a, ShapedArray) and a.dtype == a0.dtype and not a.weak_type
                    for a in avals)):
        return ShapedArray(shape, a0.dtype)
    dtypes = [a if not isinstance(a, ShapedArray) else
              (a.dtype if not a.weak_type else a.dtype.type(0).item()) for a in avals]
    return ShapedArray(shape, np.result_type(*dtypes))


def def_elementwise(prim: Primitive, impl: Callable[..., Any],
                    jvp_fns: Sequence[Callable[..., Any] | None],
                    vjp_fns: Sequence[Callable[..., Any] | None],
                    abstract_eval: Callable[..., Any] | None = None) -> Primitive:
    """Define an elementwise primitive from per-argument rules.

    ``jvp_fns[i](t, ans, *primals)`` is the tangent contribution of argument ``i``
    (called only when its tangent is nonzero); ``vjp_fns[i](ct, ans, *primals)``
    its cotangent before :func:`unbroadcast` (called only when needed).  ``None``
    in either list marks an argument with no derivative (a zero contribution).
    """
    prim.impl = impl
    prim.abstract_eval = abstract_eval or elementwise_abstract_eval
    n = len(jvp_fns)
    jvp_fns = tuple(jvp_fns)
    vjp_fns = tuple(vjp_fns)
    bind = prim.bind

    def jvp(primals, tangents, **params):
        ans = bind(*primals, **params)
        out = zero
        for i in range(n):
            t = tangents[i]
            f = jvp_fns[i]
            if t is zero or f is None:
                continue
            c = f(t, ans, *primals, **params)
            if c is zero:
                continue
            out = c if out is zero else _add(out, c)
        if out is not zero:
            out = fit(out, ans)
        return ans, out

    def vjp(ct, ans, primals, needs, **params):
        res = []
        for i in range(n):
            f = vjp_fns[i]
            if needs[i] and f is not None:
                c = f(ct, ans, *primals, **params)
                res.append(None if c is zero else unbroadcast(c, primals[i]))
            else:
                res.append(None)
        return res

    prim.jvp = jvp
    prim.vjp = vjp
    prim.batch = lambda vals, dims, **params: batch_elementwise(prim, vals, dims, **params)
    return prim


def is_differentiable_value(x: Any) -> bool:
    """True for values with a tangent space (inexact dtype); Python ints/bools are not."""
    if isinstance(x, (bool, int)):
        return False
    return is_inexact(result_type(x))



# ---------------------------------------------------------------------------------
# batching (vmap) helpers: ``dims[i]`` is the batch axis of ``vals[i]`` or None
# ---------------------------------------------------------------------------------
def batch_size(vals: Sequence[Any], dims: Sequence[int | None]) -> int:
    """The mapped size shared by the batched operands."""
    for v, d in zip(vals, dims):
        if d is not None:
            return v.shape[d]
    raise ValueError("no batched operand")


def move_to_front(v, d):
    """``v`` with its batch axis ``d`` moved to position 0 (no op when already there)."""
    if d == 0:
        return v
    perm = (d,) + tuple(i for i in range(v.ndim) if i != d)
    return transpose(v, perm)


def batched_front(v, d, size):
    """``v`` with a leading batch axis of ``size``: moved there, or broadcast if unbatched."""
    if d is not None:
        return move_to_front(v, d)
    shape = tuple(getattr(v, "shape", ()))
    return broadcast_to(np.asarray(v) if not hasattr(v, "shape") else v, (size,) + shape)


def batch_elementwise(prim, vals, dims, **params):
    """Batching rule of every elementwise primitive (implicit NumPy broadcasting).

    The batch axes stay where they are whenever broadcasting allows: the output's batch
    axis is placed like that of the batched operand of the largest rank (``t`` = the
    number of per-example axes after it), and only the operands that do not line up
    with it change, by views: a batched operand whose batch axis has a different number
    of axes after it is transposed (and, when its rank is too small, reshaped with
    size-1 axes), an unbatched operand that reaches past the batch axis gets a size-1
    axis there.  Moving every batch axis to the front instead would make transposed
    views that the next BLAS call or elementwise kernel reads with conflicting strides
    (a 5-10x slower NumPy loop at 200 x 200).
    """
    if len(vals) == 1:
        return prim.bind(vals[0], **params), dims[0]
    if len(vals) == 2:  # fast paths: batch axes in front, nothing to move
        a, b = vals
        da, db = dims
        if da == 0:
            if db is None:
                if len(getattr(b, "shape", ())) < len(a.shape):
                    return prim.bind(a, b, **params), 0
            elif db == 0 and len(a.shape) == len(b.shape):
                return prim.bind(a, b, **params), 0
        elif db == 0 and da is None and len(getattr(a, "shape", ())) < len(b.shape):
            return prim.bind(a, b, **params), 0
    t = None
    best = -1
    for v, d in zip(vals, dims):
        if d is not None:
            r = len(v.shape) - 1
            if r > best:
                best, t = r, r - d
    out = []
    rank = best  # per-example rank of the output
    for v, d in zip(vals, dims):
        if d is None:
            shape = getattr(v, "shape", None)
            if shape is not None and len(shape) > t:
                # reaches past the batch axis: give it a size-1 axis there
                u = len(shape)
                k = u - t
                v = reshape(v, tuple(shape[:k]) + (1,) + tuple(shape[k:]))
                if u > rank:
                    rank = u
        else:
            r = len(v.shape) - 1
            if r - d != t:
                if r >= t:
                    v = move_axis(v, d, r - t)
                else:
                    v = move_to_front(v, d)
                    v = reshape(v, (v.shape[0],) + (1,) * (t - r) + tuple(v.shape[1:]))
        out.append(v)
    return prim.bind(*out, **params), rank - t


def move_axis(v, src, dst):
    """``v`` with axis ``src`` moved to position ``dst`` (a transposed view)."""
    if src == dst:
        return v
    perm = [i for i in range(len(v.shape)) if i != src]
    perm.insert(dst, src)
    return transpose(v, tuple(perm))


def linear_jvp(prim):
    """The JVP rule of a one-operand primitive that is linear in it: the primitive
    applied to the tangent (a symbolic zero tangent stays zero)."""
    def jvp(primals, tangents, **params):
        t = tangents[0]
        return prim.bind(primals[0], **params), zero if t is zero else prim.bind(t, **params)
    return jvp


def batch_unary_same_dim(prim):
    """Batching rule of a one-operand primitive that maps elements to elements."""
    def rule(vals, dims, **params):
        return prim.bind(vals[0], **params), dims[0]
    return rule


def numpy_kernel_impl(prim):
    """Decorator for the ``impl`` of a primitive whose kernel is written for NumPy/CuPy
    arrays only (stride tricks, in-place writes, numba): on any other array library the
    wrapped impl does not call it on the foreign arrays.  On Dask arrays it runs the
    kernel lazily as one task on the whole operands (``backend.on_numpy``: a documented
    single-chunk path, still lazy); on array-API arrays it raises the backend's
    ``UnsupportedOperation`` (a ``NotImplementedError`` naming the primitive and the
    array type).  NumPy and CuPy arrays go straight to the kernel.
    """
    def decorate(impl):
        @functools.wraps(impl)
        def wrapped(*args, **params):
            be = backend_for(*args)
            if type(be) is types.ModuleType:  # the cpu and gpu backends are modules
                return impl(*args, **params)
            out = prim.abstract_eval(*[aval_of(a) for a in args], **params)
            return be.on_numpy(prim.name, functools.partial(impl, **params), out, *args)
        prim.impl = wrapped
        return wrapped
    return decorate
