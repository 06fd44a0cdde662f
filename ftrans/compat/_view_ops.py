"""compat operations: views and reshapes (``reshape``, ``view``, ``squeeze``,
``transpose``, ``permute``, ``expand`` ...) and ``repeat``."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _dtype as D
from ._tensor import (Tensor, Size, _mark_view, _dim)
from .autograd.graph import node_class
from .autograd._composite import composite_class
from .. import primitives as P
from ..primitives import structural as S
from ..primitives import indexing as I
from ..core.trace import Tracer as _Tracer

from ._opbase import (SAVE_NONE, _compose, _k, _record)
from ._reductions import (_dims, _size_attr)


def _basic_index(d, template):
    """``d[template]`` as a view, also when every dimension is indexed by an integer (NumPy
    would return a scalar copy)."""
    out = d[template]
    if type(out) is not np.ndarray and Ellipsis not in template:
        out = d[template + (Ellipsis,)]
    return out


def _view_op(x, prim, params, cls, out=None, extra=(), view=True):
    d = x._data
    if out is None:
        if prim is I.gather_p:
            out = _basic_index(d, params["template"])
        elif isinstance(d, _Tracer):   # under an ftrans transform (compat.func)
            out = _k(prim, d)(d, *extra, **params)
        else:   # the kernel's NumPy view (a _ViewFn's bind would copy)
            out = prim.impl(d, *extra, **params)
    t = _record(cls, prim, params, [x, *extra], [d, *extra], out, SAVE_NONE)
    if view:
        _mark_view(t, x, prim, params, extra)
    return t


def _shape_arg(shape):
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
        shape = shape[0]
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    return tuple(int(s) for s in shape)


def _infer_shape(shape, n):
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if neg:
        if known == 0 or n % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {n}")
        shape[neg[0]] = n // known
    elif known != n:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {n}")
    return tuple(shape)


_ViewBackward0 = node_class("ViewBackward0", ("self",), params=_size_attr)
_UnsafeViewBackward0 = node_class("UnsafeViewBackward0", ("self",), params=_size_attr)


def reshape(input, *shape):  # noqa: A002
    """Tensor with the same data and the given shape (a view when possible)."""
    d = input._data
    new = _infer_shape(_shape_arg(shape), d.size)
    out = d.reshape(new)
    is_view = out.size == 0 or (isinstance(out, _Tracer) or np.may_share_memory(out, d))
    return _view_op(input, S.reshape_p, {"new_shape": new},
                    _ViewBackward0 if is_view else _UnsafeViewBackward0, out, view=is_view)


def view(input, *shape):  # noqa: A002
    """A view with the given shape (``RuntimeError`` if the strides do not allow one)."""
    if len(shape) == 1 and isinstance(shape[0], D.dtype):
        raise NotImplementedError("view(dtype) is not supported by ftrans.compat")
    d = input._data
    new = _infer_shape(_shape_arg(shape), d.size)
    try:
        out = d.reshape(new) if isinstance(d, _Tracer) else np.reshape(d, new, copy=False)
    except ValueError:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.") from None
    return _view_op(input, S.reshape_p, {"new_shape": new}, _ViewBackward0, out)


def view_as(input, other):  # noqa: A002
    return view(input, other._data.shape)


def reshape_as(input, other):  # noqa: A002
    return reshape(input, other._data.shape)


def flatten(input, start_dim=0, end_dim=-1):  # noqa: A002
    d = input._data
    if d.ndim == 0:
        return reshape(input, (1,))
    s = _dim(start_dim, d.ndim)
    e = _dim(end_dim, d.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    n = 1
    for k in d.shape[s:e + 1]:
        n *= k
    return reshape(input, d.shape[:s] + (n,) + d.shape[e + 1:])


def unflatten(input, dim, sizes):  # noqa: A002
    d = input._data
    ax = _dim(dim, d.ndim)
    sizes = _infer_shape(tuple(sizes), d.shape[ax])
    return view(input, d.shape[:ax] + sizes + d.shape[ax + 1:])


_SqueezeBackward0 = node_class("SqueezeBackward0", ("self",), params=_size_attr)
_SqueezeBackward1 = node_class("SqueezeBackward1", ("self",), params=_size_attr)
_UnsqueezeBackward0 = node_class("UnsqueezeBackward0", ("self",))


def squeeze(input, dim=None):  # noqa: A002
    """Remove dimensions of size 1 (all, or those among ``dim``)."""
    d = input._data
    if dim is None:
        dims = tuple(i for i, s in enumerate(d.shape) if s == 1)
        cls = _SqueezeBackward0
    else:
        axes = _dims(dim, d.ndim) if d.ndim and not _empty_dims(dim) else ()
        dims = tuple(i for i in axes if d.shape[i] == 1)
        cls = _SqueezeBackward1
    if not dims:
        return _view_op(input, S.reshape_p, {"new_shape": d.shape}, cls)
    return _view_op(input, S.squeeze_p, {"dims": dims}, cls)


def _empty_dims(dims):
    """True for an empty list/tuple of dimensions (none selected, unlike ``None``)."""
    return isinstance(dims, (tuple, list)) and len(dims) == 0


def unsqueeze(input, dim):  # noqa: A002
    d = input._data
    ax = _dim(dim, d.ndim + 1)
    return _view_op(input, S.expand_dims_p, {"dims": (ax,)}, _UnsqueezeBackward0)


_TransposeBackward0 = node_class("TransposeBackward0", ("self",))
_PermuteBackward0 = node_class("PermuteBackward0", ("self",))
_TBackward0 = node_class("TBackward0", ("self",))


def transpose(input, dim0, dim1):  # noqa: A002
    d = input._data
    a, b = _dim(dim0, d.ndim), _dim(dim1, d.ndim)
    perm = list(range(d.ndim))
    if perm:   # a 0-d tensor accepts dimensions 0 and -1
        perm[a], perm[b] = perm[b], perm[a]
    return _view_op(input, S.transpose_p, {"perm": tuple(perm)}, _TransposeBackward0)


swapaxes = swapdims = transpose


def t(input):  # noqa: A002
    d = input._data
    if d.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {d.ndim}D")
    perm = tuple(range(d.ndim))[::-1]
    return _view_op(input, S.transpose_p, {"perm": perm}, _TBackward0)


def permute(input, *dims):  # noqa: A002
    d = input._data
    dims = _shape_arg(dims)
    if len(dims) != d.ndim:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {d.ndim} is not equal to len(dims) = {len(dims)}")
    perm = tuple(_dim(x, d.ndim) for x in dims)
    if sorted(perm) != list(range(d.ndim)):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _view_op(input, S.transpose_p, {"perm": perm}, _PermuteBackward0)


def movedim(input, source, destination):  # noqa: A002
    d = input._data
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                           f"should contain the same number of dims as destination ({dst} dims)")
    src_n = [_dim(s, d.ndim) for s in src]
    dst_n = [_dim(s, d.ndim) for s in dst]
    for what, given, norm in (("source", src, src_n), ("destination", dst, dst_n)):
        if len(set(norm)) != len(norm):
            raise RuntimeError(f"movedim: repeated dim in `{what}` ({given})")
    src, dst = src_n, dst_n
    order = [i for i in range(d.ndim) if i not in src]
    for dd, ss in sorted(zip(dst, src)):
        order.insert(dd, ss)
    return permute(input, order)


moveaxis = movedim


_ExpandBackward0 = node_class("ExpandBackward0", ("self",), params=_size_attr)


def expand(input, *sizes):  # noqa: A002
    """Broadcast to ``sizes`` (-1 keeps a dimension) without copying."""
    d = input._data
    sizes = _shape_arg(sizes)
    if len(sizes) < d.ndim:
        raise RuntimeError(f"expand(torch.{D.from_np(d.dtype)._tname}{{{list(d.shape)}}}, "
                           f"size={list(sizes)}): the number of sizes provided "
                           f"({len(sizes)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({d.ndim})")
    lead = len(sizes) - d.ndim
    shape = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError("The expanded size of the tensor (-1) isn't allowed in a "
                                   "leading, non-existing dimension")
            shape.append(s)
        else:
            own = d.shape[i - lead]
            if s == -1:
                s = own
            if own != s and own != 1:
                raise RuntimeError(f"The expanded size of the tensor ({s}) must match the "
                                   f"existing size ({own}) at non-singleton dimension {i}.  "
                                   f"Target sizes: {list(sizes)}.  Tensor sizes: "
                                   f"{list(d.shape)}")
            shape.append(s)
    shape = tuple(shape)
    return _view_op(input, S.broadcast_to_p, {"shape": shape}, _ExpandBackward0)


def expand_as(input, other):  # noqa: A002
    return expand(input, other._data.shape)


def broadcast_to(input, shape):  # noqa: A002
    return expand(input, shape)


def broadcast_tensors(*tensors):
    shape = np.broadcast_shapes(*(t._data.shape for t in tensors))
    return tuple(expand(t, shape) for t in tensors)


def _repeat_fn(x, repeats):
    """``torch.repeat``: NumPy's ``tile`` (leading dimensions added as needed)."""
    xs = (1,) * (len(repeats) - x.ndim) + tuple(x.shape)
    inter, out_shape = [], []
    for r, s in zip(repeats, xs):
        inter += [1, s]
        out_shape.append(r * s)
    b = P.broadcast_to(P.reshape(x, tuple(inter)),
                       tuple(v for r, s in zip(repeats, xs) for v in (r, s)))
    return P.reshape(b, tuple(out_shape))


_RepeatBackward0 = composite_class("RepeatBackward0", ("self",))


def repeat(input, *sizes):  # noqa: A002
    d = input._data
    reps = _shape_arg(sizes)
    if len(reps) < d.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    return _compose(_RepeatBackward0, _repeat_fn, [input], [d], {"repeats": reps}, mask=0)
