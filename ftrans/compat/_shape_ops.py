"""compat operations: clamp, where and masked_fill, views and reshapes, indexing."""
from __future__ import annotations

import math

import numpy as np

from . import _dtype as D
from ._tensor import (Tensor, _make_plain, _mark_view, _dim)
from .autograd.graph import node_class
from .autograd._composite import composite_class
from .. import primitives as P
from ..primitives import structural as S
from ..primitives import indexing as I
from ..core.trace import Tracer as _Tracer
from . import _tracer_values as _TV

from ._opbase import (SAVE_NONE, _any_traced, _broadcast_error, _require_tensor, _compose,
    _ctype, _default_float, _k, _kk, _pyabs, _pymax, _pymin, _pysum, _record, _refuse_complex,
    _scalar)
from ._pointwise import (_CLAMP_COMPLEX, maximum, minimum)
from ._complex_ops import view_as_real
from ._reductions import (_dims, _size_attr)
# =============================================================================== clamp, where
def _clamp_fn(x, lo, hi):
    """``min(max(x, lo), hi)``; the gradient passes where ``lo <= x <= hi`` (bounds
    included, PyTorch's convention); a NaN bound gives NaN everywhere, as in PyTorch."""
    out = x
    if lo is not None:
        out = P.where(P.lt(out, lo), lo, out) if not math.isnan(lo) else \
            P.stop_gradient(P.add(P.mul(out, 0.0), lo))
    if hi is not None:
        out = P.where(P.gt(out, hi), hi, out) if not math.isnan(hi) else \
            P.stop_gradient(P.add(P.mul(out, 0.0), hi))
    return out


_ClampBackward1 = composite_class("ClampBackward1", ("self",),
                                  params={"min": lambda n: n._params["lo"],
                                          "max": lambda n: n._params["hi"]})


def clamp(input, min=None, max=None):  # noqa: A002
    """Clamp to ``[min, max]``; the gradient passes where ``min <= x <= max``.  Real
    tensors only (``NotImplementedError`` for complex ones, as in PyTorch)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    _refuse_complex(input, msg=_CLAMP_COMPLEX)
    _refuse_complex(min, max, kernel="clamp_cpu" if min is not None and max is not None
                    else "maximum_cpu" if min is not None else "minimum_cpu")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        out = input
        if min is not None:
            out = maximum(out, min)
        if max is not None:
            out = minimum(out, max)
        return out
    d = input._data
    lo = _scalar(min) if min is not None else None
    hi = _scalar(max) if max is not None else None
    if d.dtype.kind in "biu" and (isinstance(lo, float) or isinstance(hi, float)):
        d = d.astype(_default_float())
    return _compose(_ClampBackward1, _clamp_fn, [input], [d], {"lo": lo, "hi": hi})


clip = clamp


def clamp_min(input, min):  # noqa: A002
    _require_tensor("clamp_min", input)
    return clamp(input, min=min)


def clamp_max(input, max):  # noqa: A002
    _require_tensor("clamp_max", input)
    return clamp(input, max=max)


def _masked_fill_fn(x, mask, value):
    if hasattr(value, "dtype") and value.dtype != x.dtype:
        value = P.convert_element_type(value, x.dtype)
    return P.where(mask, value, x)


_MaskedFillBackward0 = composite_class("MaskedFillBackward0", ("self", "mask", "value"),
                                       edge_idx=(0,))


def _check_fill_value(d, v):
    """PyTorch's check that the fill value ``v`` (a number or an array) fits the dtype of
    ``d``: a complex value with a nonzero imaginary part does not fit a real tensor."""
    if d.dtype.kind != "c" and np.iscomplexobj(v) and np.any(np.imag(v) != 0):
        raise RuntimeError(f"value cannot be converted to type {_ctype(d.dtype)} without "
                           "overflow")


def masked_fill(input, mask, value):  # noqa: A002
    """``value`` where the boolean ``mask`` is True, else ``input``.  The gradient of a
    tensor ``value`` has its own dtype (the real part of the cotangent for a real ``value``
    filled into a complex ``input``)."""
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_ctype(m.dtype)}")
    d = input._data
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.dim()} dimension(s).")
    vd = value._data if isinstance(value, Tensor) else value
    try:
        np.broadcast_shapes(m.shape, d.shape)
    except ValueError:
        raise _broadcast_error(m, d) from None   # PyTorch names the mask "tensor a"
    if isinstance(value, Tensor) and vd.ndim:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {vd.ndim} dimension(s).")
    _check_fill_value(d, vd)
    if not isinstance(value, Tensor):
        vd = np.asarray(vd)
        vd = vd.real if vd.dtype.kind == "c" and d.dtype.kind != "c" else vd
        vd = np.asarray(vd, d.dtype)
    elif vd.dtype.kind == "c" and d.dtype.kind != "c":
        vd = P.real(vd)
    return _compose(_MaskedFillBackward0, _masked_fill_fn, [input, m, value], [d, m, vd],
                    mask=0)


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


# indexing ------------------------------------------------------------------------------
_SelectBackward0 = node_class("SelectBackward0", ("self",), params=_size_attr)
_SliceBackward0 = node_class("SliceBackward0", ("self",), params=_size_attr)
_IndexBackward0 = node_class("IndexBackward0", ("self", "indices"), edge_idx=(0,),
                             params=_size_attr)
_AliasBackward0 = node_class("AliasBackward0", ("self",))
_IndexSelectBackward0 = node_class("IndexSelectBackward0", ("self", "index"), edge_idx=(0,))
_GatherBackward0 = node_class("GatherBackward0", ("self", "index"), edge_idx=(0,))
_FlipBackward0 = node_class("FlipBackward0", ("self",))


def _convert_index(idx):
    """A NumPy index from a PyTorch one (tensors become arrays or ints)."""
    if isinstance(idx, tuple):
        return tuple(_convert_index1(i) for i in idx)
    return _convert_index1(idx)


def _convert_index1(i):
    if isinstance(i, Tensor):
        d = i._data
        if d.dtype.kind == "b":
            return _TV.concrete(d, "mask") if isinstance(d, _Tracer) else d
        if d.dtype.kind not in "iu":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if d.ndim == 0:
            return int(d)
        return d
    if isinstance(i, list):
        a = np.asarray([_convert_index1(v) if isinstance(v, Tensor) else v for v in i])
        if a.dtype.kind == "f" and a.size == 0:
            a = a.astype(np.int64)
        return a
    return i


def _index_class(template, arrays):
    if arrays:
        return _IndexBackward0
    last = _NOTHING = object()
    for t in template:
        if t is Ellipsis or (isinstance(t, slice) and t == slice(None)):
            continue
        last = t
    if last is _NOTHING:
        return _AliasBackward0
    if isinstance(last, int):
        return _SelectBackward0
    if isinstance(last, slice):
        return _SliceBackward0
    return _UnsqueezeBackward0


def getitem(input, idx):  # noqa: A002
    """``input[idx]``: basic indexing gives a view, advanced indexing a copy."""
    d = input._data
    template, arrays = I.split_index(_convert_index(idx))
    try:
        out = (_kk(I.gather_p, d, *arrays)(d, *arrays, template=template) if arrays
               else _basic_index(d, template))
    except IndexError as e:
        raise IndexError(str(e)) from None
    params = {"template": template}
    cls = _index_class(template, arrays)
    t = _record(cls, I.gather_p, params, [input, *arrays], [d, *arrays], out,
                ((1 << (len(arrays) + 1)) - 2, False))
    if not arrays:
        _mark_view(t, input, I.gather_p, params)
    return t


def _index_put_fn(x, mask, v, *arrays, template, shape):
    """``x`` with ``v`` (broadcast to the indexed ``shape``) written at the index: the
    composition whose derivative ``index_put`` has (duplicate indices: the forward keeps
    NumPy's last write, see :func:`_index_put`)."""
    if v.dtype != x.dtype:
        v = P.convert_element_type(v, x.dtype)
    v = P.broadcast_to(v, shape)
    return P.where(mask, I.scatter_add_p.bind(v, *arrays, template=template, shape=x.shape), x)


_IndexPutBackward0 = composite_class("IndexPutBackward0", ("self", "mask", "values"),
                                     edge_idx=(0, 2))


def _index_put(input, template, arrays, value):  # noqa: A002
    d = input._data
    idx = I._rebuild(template, arrays)
    vd = value._data if isinstance(value, Tensor) else value
    if _any_traced(d, vd):   # compat.func: the composition computes the value
        out = None
    else:
        out = d.copy()
        out[idx] = vd
    mask = np.zeros(d.shape, bool)
    mask[idx] = True
    if not isinstance(value, Tensor):
        vd = np.asarray(vd, d.dtype)
    return _compose(_IndexPutBackward0, _index_put_fn, [input, mask, value, *arrays],
                    [d, mask, vd, *arrays], {"template": template, "shape": mask[idx].shape},
                    mask=0, out=out)


def select(input, dim, index):  # noqa: A002
    d = input._data
    ax = _dim(dim, d.ndim)
    n = d.shape[ax]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(d.shape)} at dimension {ax}")
    template = (slice(None),) * ax + (int(index) % n,)
    params = {"template": template}
    return _view_op(input, I.gather_p, params, _SelectBackward0)


def narrow(input, dim, start, length):  # noqa: A002
    d = input._data
    if d.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    ax = _dim(dim, d.ndim)
    n = d.shape[ax]
    if isinstance(start, Tensor):
        if start.dim() != 0 or start._data.dtype.kind not in "iu":
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = start.item()
    start = int(start)
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got "
                         f"{start})")
    if start < 0:
        start += n
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    template = (slice(None),) * ax + (slice(start, start + int(length)),)
    return _view_op(input, I.gather_p, {"template": template}, _SliceBackward0)


def split(tensor, split_size_or_sections, dim=0):
    d = tensor._data
    ax = _dim(dim, d.ndim)
    n = d.shape[ax]
    if isinstance(split_size_or_sections, int):
        s = split_size_or_sections
        sizes = [s] * (n // s) + ([n % s] if n % s else []) if s else [n]
    else:
        sizes = list(split_size_or_sections)
        if _pysum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {ax}), but got split_sizes="
                               f"{sizes}")
    out, start = [], 0
    for s in sizes:
        out.append(narrow(tensor, ax, start, s))
        start += s
    return tuple(out)


def chunk(input, chunks, dim=0):  # noqa: A002
    n = input._data.shape[_dim(dim, input._data.ndim)]
    s = -(-n // chunks) if chunks > 0 else n
    return split(input, _pymax(s, 1), dim)


def unbind(input, dim=0):  # noqa: A002
    d = input._data
    ax = _dim(dim, d.ndim)
    return tuple(select(input, ax, i) for i in range(d.shape[ax]))


def index_select(input, dim, index):  # noqa: A002
    d = input._data
    ax = _dim(dim, d.ndim)
    if d.ndim == 0:   # a 0-d tensor: as a 1-element vector, the result 0-d again
        return reshape(index_select(reshape(input, (1,)), 0, index), ())
    ix = index._data if isinstance(index, Tensor) else index
    ix = P.reshape(ix, (-1,)) if isinstance(ix, _Tracer) else np.asarray(ix).reshape(-1)
    template = (slice(None),) * ax + (I._Slot(0),)
    out = _kk(I.gather_p, d, ix)(d, ix, template=template)
    return _record(_IndexSelectBackward0, I.gather_p, {"template": template}, [input, ix],
                   [d, ix], out, (2, False))


def gather(input, dim, index):  # noqa: A002
    """``out[i][j] = input[index[i][j]][j]`` for ``dim=0`` (PyTorch's gather)."""
    d = input._data
    ax = _dim(dim, d.ndim)
    ix = index._data if isinstance(index, Tensor) else np.asarray(index)
    _check_gather(d, ax, ix)
    if d.ndim == 0 and isinstance(index, Tensor):   # as 1-element vectors; index's shape
        return reshape(gather(reshape(input, (1,)), dim, reshape(index, (-1,))),
                       tuple(ix.shape))
    grids = list(np.indices(ix.shape, sparse=True))
    grids[ax] = ix
    arrays = tuple(g if isinstance(g, _Tracer) else np.asarray(g) for g in grids)
    template = tuple(I._Slot(k) for k in range(len(arrays)))
    out = _kk(I.gather_p, d, *arrays)(d, *arrays, template=template)
    return _record(_GatherBackward0, I.gather_p, {"template": template}, [input, *arrays],
                   [d, *arrays], out, ((1 << (len(arrays) + 1)) - 2, False))


def _check_gather(d, ax, ix):
    """PyTorch's RuntimeErrors for ``gather``'s index: its number of dimensions, its sizes
    (at most the input's, but along ``dim``) and its values (concrete ones)."""
    if ix.ndim != d.ndim and not (ix.ndim <= 1 and d.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input "
                           "tensor")
    for i, (si, sd) in enumerate(zip(ix.shape, d.shape)):
        if i != ax and si > sd:
            raise RuntimeError(f"Size does not match at dimension {i} expected index "
                               f"{list(ix.shape)} to be no larger than self {list(d.shape)} "
                               f"apart from dimension {ax}")
    if type(ix) is np.ndarray and ix.size:
        n = d.shape[ax] if d.ndim else 1
        bad = ix[(ix >= n) | (ix < -n)]
        if bad.size:
            raise RuntimeError(f"index {int(bad.flat[0])} is out of bounds for dimension {ax} "
                               f"with size {n}")


def flip(input, dims):  # noqa: A002
    d = input._data
    axes = () if _empty_dims(dims) else _dims(dims, d.ndim)
    template = tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(d.ndim))
    out = (np.ascontiguousarray(d[template]) if type(d) is np.ndarray
           else I.gather_p.bind(d, template=template))   # a Tracer (compat.func)
    return _record(_FlipBackward0, I.gather_p, {"template": template}, [input], [d], out,
                   SAVE_NONE)


def _tri_fn(x, mask):
    return P.where(mask, x, x.dtype.type(0))


_TrilBackward0 = composite_class("TrilBackward0", ("self", "mask"), edge_idx=(0,))
_TriuBackward0 = composite_class("TriuBackward0", ("self", "mask"), edge_idx=(0,))


def _check_matrix(d):
    if d.ndim < 2:
        raise RuntimeError("tril/triu: input tensor must have at least 2 dimensions")


def tril(input, diagonal=0):  # noqa: A002
    d = input._data
    _check_matrix(d)
    mask = np.tril(np.ones(d.shape[-2:], bool), diagonal)
    return _compose(_TrilBackward0, _tri_fn, [input, mask], [d, mask], mask=0)


def triu(input, diagonal=0):  # noqa: A002
    d = input._data
    _check_matrix(d)
    mask = np.triu(np.ones(d.shape[-2:], bool), diagonal)
    return _compose(_TriuBackward0, _tri_fn, [input, mask], [d, mask], mask=0)


def diagonal(input, offset=0, dim1=0, dim2=1):  # noqa: A002
    d = input._data
    a, b = _dim(dim1, d.ndim), _dim(dim2, d.ndim)
    n = _pymin(d.shape[a] - _pymax(-offset, 0), d.shape[b] - _pymax(offset, 0))
    n = _pymax(n, 0)
    r = np.arange(n)
    ia, ib = r + _pymax(-offset, 0), r + _pymax(offset, 0)
    x = movedim(input, (a, b), (-2, -1)) if (a, b) != (d.ndim - 2, d.ndim - 1) else input
    return getitem(x, (Ellipsis, ia, ib))


def diag(input, diagonal=0):  # noqa: A002
    """The ``diagonal``-th diagonal of a matrix, or a matrix with a vector on it."""
    d = input._data
    if d.ndim == 2:
        return globals()["diagonal"](input, diagonal)
    if d.ndim != 1:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " f"{d.ndim}D")
    n = d.shape[0] + _pyabs(diagonal)
    z = _make_plain(np.zeros((n, n), d.dtype))
    r = np.arange(d.shape[0])
    template, arrays = I.split_index((r + _pymax(-diagonal, 0), r + _pymax(diagonal, 0)))
    return _index_put(z, template, arrays, input)


def trace(input):  # noqa: A002
    """The sum of the main diagonal of a matrix (``torch.trace``)."""
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    return sum(diagonal(input))


def real(x):
    """The real part of a complex tensor as a view (the tensor itself if it is real).
    As in PyTorch it is ``view_as_real(x)[..., 0]`` (``SelectBackward0`` on top of
    ``ViewAsRealBackward0``): writes go through to ``x``, and the gradient ``g`` (real)
    reaches ``x`` as the complex ``g + 0j`` (the C -> R rule)."""
    if x._data.dtype.kind != "c":
        return x
    return select(view_as_real(x), -1, 0)


def imag(x):
    """The imaginary part of a complex tensor as a view, ``view_as_real(x)[..., 1]``: the
    gradient ``g`` reaches ``x`` as ``1j * g``.  ``RuntimeError`` for a real tensor."""
    if x._data.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return select(view_as_real(x), -1, 1)


