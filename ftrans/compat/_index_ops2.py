"""compat operations: strided views and their copy/scatter variants (``as_strided``,
``Tensor.unfold``, the ``*_copy`` and ``*_scatter`` functions), the gathers
``masked_select`` and ``repeat_interleave``, ``nonzero``/``argwhere``,
``_unsafe_masked_index`` and ``_chunk_cat``.

A view is a gather: the positions it reads are computed once with NumPy (the view
function applied to a tensor of element positions), and

* ``as_strided`` and ``unfold`` are views (they share memory; their node's backward is
  the ``gather`` primitive's VJP, a scatter-add: overlapping windows accumulate);
* each ``*_copy`` variant is one composite node gathering those positions
  (``ftrans.numpy`` indexing of the flattened tensor), named as PyTorch names it
  (``ExpandBackward0_copy`` ...);
* each ``*_scatter`` variant writes ``src`` at those positions (``ftrans.numpy.at``).

The torch functions are installed through :mod:`._index_ops`.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ._tensor import Tensor, _make_plain, _dim
from .autograd._composite import composite_class
from .autograd.graph import node_class
from .. import numpy as _fnp
from ..primitives import indexing as I
from . import _shape_ops as _V
from . import _tracer_values as _TV
from ._opbase import _compose
from ._inplace import _check_inplace
from .types import SizeLike

__all__ = ["as_strided", "as_strided_copy", "as_strided_scatter", "alias_copy",
           "diagonal_copy", "expand_copy", "narrow_copy", "permute_copy", "squeeze_copy",
           "t_copy", "transpose_copy", "unbind_copy", "unfold_copy", "unsqueeze_copy",
           "view_copy", "split_with_sizes_copy", "diagonal_scatter", "select_scatter",
           "slice_scatter", "_unsafe_masked_index", "_unsafe_masked_index_put_accumulate",
           "_chunk_cat", "masked_select", "nonzero", "nonzero_static", "argwhere",
           "repeat_interleave"]


def _flat_gather_fn(x: Any, *, idx: Any) -> Any:
    """``x`` read as a flat array at the positions ``idx`` (any shape)."""
    return _fnp.reshape(x, (-1,))[idx]


def _flat_put_fn(x: Any, src: Any, *, idx: Any) -> Any:
    """``x`` with ``src`` written at the flat positions ``idx`` (last write wins)."""
    if src.dtype != x.dtype:
        src = _fnp.astype(src, x.dtype)
    r = _fnp.at(_fnp.reshape(x, (-1,)))[idx].set(src)
    return _fnp.reshape(r, tuple(x.shape))


def _positions(shape: Any) -> Any:
    """A plain tensor holding each element's flat position (C order)."""
    return _make_plain(np.arange(int(np.prod(shape, dtype=np.int64)),
                                 dtype=np.int64).reshape(shape))


# =============================================================================== as_strided
def _storage(d: Any) -> Any:
    """``(storage, offset, strides)``: the flat C-contiguous array ``d`` lives in, ``d``'s
    first element's position in it and ``d``'s strides in elements (a C-contiguous copy of
    ``d`` when its memory has another layout)."""
    if not isinstance(d, np.ndarray):   # a Tracer (compat.func): its own elements, C order
        c = np.empty(d.shape, np.int8)
        return np.zeros(d.size, np.int8), 0, tuple(s for s in c.strides)
    root = d
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root.flags.c_contiguous and root.dtype == d.dtype and d.size:
        off, rem = divmod(d.__array_interface__["data"][0] - root.__array_interface__["data"][0],
                          d.itemsize)
        if not rem and all(s % d.itemsize == 0 for s in d.strides):
            return root.reshape(-1), off, tuple(s // d.itemsize for s in d.strides)
    c = np.ascontiguousarray(d)
    return c.reshape(-1), 0, tuple(s // d.itemsize for s in c.strides)


def _strided(input: Any, size: Any, stride: Any, storage_offset: Any,  # noqa: A002
             name: str = "as_strided") -> Any:
    """``(elem, inside, storage, pos, offset)`` of ``as_strided(input, size, stride,
    storage_offset)``: ``pos`` the storage positions read, ``elem`` the matching element
    of ``input`` (flat, C order; -1 where a position is outside ``input``)."""
    d = input._data
    size = tuple(int(s) for s in size)
    stride = tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    if any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(size)}")
    storage, off0, its = _storage(d)
    off = off0 if storage_offset is None else int(storage_offset)
    if off < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {off}")
    need = off + sum((n - 1) * s for n, s in zip(size, stride)) + 1 if all(size) else 0
    if need > storage.size:
        item = d.dtype.itemsize
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage "
                           f"offset {off}, and itemsize {item} requiring a storage size of "
                           f"{need * item} are out of bounds for storage of size "
                           f"{storage.size * item}")
    pos = np.full(size, off, np.int64)
    for k, (n, s) in enumerate(zip(size, stride)):
        sh = [1] * len(size)
        sh[k] = n
        pos = pos + (np.arange(n, dtype=np.int64) * s).reshape(sh)
    emap = np.full(storage.size, -1, np.int64)
    if d.size:
        epos = np.full(d.shape, off0, np.int64)
        for k, n in enumerate(d.shape):
            sh = [1] * d.ndim
            sh[k] = n
            epos = epos + (np.arange(n, dtype=np.int64) * its[k]).reshape(sh)
        emap[epos.reshape(-1)] = np.arange(d.size)
    elem = emap[pos]
    return elem, bool((elem >= 0).all()), storage, pos, off


def _distinct(size: Any, stride: Any, pos: Any) -> bool:
    """No two elements of a strided view share a storage position (it may be written
    through): each stride, by size, beyond the reach ``sum((n - 1) * s)`` of the smaller
    ones, else the distinct positions ``pos`` counted (O(n log n): 0.7 s on 10^7)."""
    reach = 0
    for s, n in sorted((int(s), int(n)) for n, s in zip(size, stride) if int(n) > 1):
        if s <= reach:
            return bool(np.unique(pos).size == pos.size)
        reach += (n - 1) * s
    return True


def _strided_fn(x: Any, *, idx: Any, mask: Any, const: Any) -> Any:
    """``as_strided``'s values: ``x``'s elements at ``idx`` where ``mask``, the constants
    ``const`` (storage outside ``x``) elsewhere."""
    g = _fnp.reshape(x, (-1,))[idx]
    return g if mask is None else _fnp.where(mask, g, const)


_AsStridedBackward0 = node_class("AsStridedBackward0", ("self",), edge_idx=(0,))
_AsStridedBackward1 = node_class("AsStridedBackward1", ("self",), edge_idx=(0,))
_AsStridedPartial1 = composite_class("AsStridedBackward1", ("self",))
_AsStridedCopy = composite_class("AsStridedBackward0_copy", ("self",))
_AsStridedPartial = composite_class("AsStridedBackward0", ("self",))
_AsStridedScatterBackward0 = composite_class("AsStridedScatterBackward0", ("self", "src"))


def _strided_params(elem: Any, inside: Any, storage: Any, pos: Any) -> Any:
    if inside:
        return {"idx": elem, "mask": None, "const": None}
    return {"idx": np.maximum(elem, 0), "mask": elem >= 0, "const": storage[pos]}


def as_strided(input: Tensor, size: SizeLike, stride: SizeLike,  # noqa: A002
               storage_offset: int | None = None) -> Tensor:
    """A view of ``input``'s storage with the given sizes and strides (``torch.as_strided``).

    The storage is the contiguous array ``input``'s memory belongs to (``input`` itself
    for a tensor of another layout); positions outside ``input`` read their current
    values and get no gradient.

    Parameters
    ----------
    input : Tensor
        The tensor whose storage is viewed.
    size : sequence of int
        The view's shape.
    stride : sequence of int
        Its strides, in elements.
    storage_offset : int, optional
        The offset of its first element (``input``'s own by default).

    Returns
    -------
    Tensor
        The view, shape ``size``.

    Raises
    ------
    RuntimeError
        If the view reaches outside the storage or the lengths differ.
    """
    return _as_strided(input, size, stride, storage_offset, _AsStridedBackward0,
                       _AsStridedPartial)


def _as_strided(input: Any, size: Any, stride: Any, storage_offset: Any, cls: Any,  # noqa: A002
                partial_cls: Any) -> Any:
    d = input._data
    elem, inside, storage, pos, off = _strided(input, size, stride, storage_offset)
    if not inside or not isinstance(d, np.ndarray) or d.ndim == 0:
        return _compose(partial_cls, _strided_fn, [input], [d],
                        _strided_params(elem, inside, storage, pos), mask=0)
    arrays = tuple(np.asarray(a) for a in np.unravel_index(elem, d.shape))
    out = np.lib.stride_tricks.as_strided(storage[off:], tuple(int(s) for s in size),
                                          tuple(int(s) * d.itemsize for s in stride),
                                          writeable=_distinct(size, stride, pos))
    template = tuple(I._Slot(k) for k in range(len(arrays)))
    return _V._view_op(input, I.gather_p, {"template": template}, cls, out, extra=arrays)


def as_strided_(self: Tensor, size: SizeLike, stride: SizeLike,
                storage_offset: int | None = None) -> Tensor:
    """``self`` made the strided view of itself, in place (``Tensor.as_strided_``).

    Its history continues through the ``AsStridedBackward0`` node.

    Parameters
    ----------
    size : sequence of int
        The new shape.
    stride : sequence of int
        The strides, in elements.
    storage_offset : int, optional
        The offset of the first element.

    Returns
    -------
    Tensor
        ``self``.
    """
    _check_inplace(self)
    r = _as_strided(self, size, stride, storage_offset, _AsStridedBackward1,
                    _AsStridedPartial1)
    x = self._x
    self._data = r._data
    if r._grad_fn is not None:
        self._grad_fn = r._grad_fn
        self._onr = 0
    if x is not None and x.base is not None and r._x is not None:   # still a view of its base
        x.chain = r._x.chain
    return self


def as_strided_copy(input: Tensor, size: SizeLike, stride: SizeLike,  # noqa: A002
                    storage_offset: int | None = None) -> Tensor:
    """:func:`as_strided` as a new tensor (``torch.as_strided_copy``).

    Parameters
    ----------
    input : Tensor
        The tensor whose storage is read.
    size : sequence of int
        The result's shape.
    stride : sequence of int
        The strides, in elements.
    storage_offset : int, optional
        The offset of the first element.

    Returns
    -------
    Tensor
        A new tensor, shape ``size``.
    """
    elem, inside, storage, pos, off = _strided(input, size, stride, storage_offset)
    return _compose(_AsStridedCopy, _strided_fn, [input], [input._data],
                    _strided_params(elem, inside, storage, pos), mask=0)


def as_strided_scatter(input: Tensor, src: Tensor, size: SizeLike,  # noqa: A002
                       stride: SizeLike, storage_offset: int | None = None) -> Tensor:
    """``input`` with ``src`` written where ``as_strided`` reads (``torch.as_strided_scatter``).

    ``input`` is taken as contiguous.

    Parameters
    ----------
    input : Tensor
        The input (not modified).
    src : Tensor
        The values, shape ``size``.
    size : sequence of int
        The strided view's shape.
    stride : sequence of int
        Its strides, in elements.
    storage_offset : int, optional
        The offset of its first element.

    Returns
    -------
    Tensor
        A new tensor shaped as ``input``.
    """
    d = input._data
    plain = _make_plain(np.empty(d.shape, d.dtype))
    elem, inside, storage, pos, off = _strided(plain, size, stride, storage_offset,
                                               "as_strided_scatter")
    sd = src._data
    if tuple(sd.shape) != tuple(elem.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(sd.shape)}, slice size = {list(elem.shape)}")
    return _compose(_AsStridedScatterBackward0, _flat_put_fn, [input, src], [d, sd],
                    {"idx": elem}, mask=0)


# =============================================================================== unfold
_UnfoldBackward0 = node_class("UnfoldBackward0", ("self",), edge_idx=(0,))


def _unfold_positions(d: Any, dimension: Any, size: Any, step: Any) -> Any:
    ax = _dim(dimension, d.ndim)
    n = d.shape[ax] if d.ndim else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {ax} is {n} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return ax


def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:  # noqa: A002
    """Windows of ``size`` elements every ``step`` along ``dimension`` (``Tensor.unfold``).

    Parameters
    ----------
    input : Tensor
        The input.
    dimension : int
        The dimension windowed.
    size : int
        The window length.
    step : int
        The distance between windows (positive).

    Returns
    -------
    Tensor
        A view: ``dimension`` becomes the number of windows, and a new last dimension of
        ``size`` holds each window.
    """
    d = input._data
    ax = _unfold_positions(d, dimension, size, step)
    if d.ndim == 0:
        return _V.reshape(input, (1,))
    pos = np.arange(d.size, dtype=np.int64).reshape(d.shape)
    sel = (slice(None),) * ax + (slice(None, None, step),)
    elem = np.lib.stride_tricks.sliding_window_view(pos, size, axis=ax)[sel]
    arrays = tuple(np.asarray(a) for a in np.unravel_index(elem, d.shape))
    template = tuple(I._Slot(k) for k in range(len(arrays)))
    if isinstance(d, np.ndarray):
        out = np.lib.stride_tricks.sliding_window_view(d, size, axis=ax,
                                                       writeable=step >= size)[sel]
    else:   # a Tracer (compat.func)
        out = I.gather_p.bind(d, *arrays, template=template)
    return _V._view_op(input, I.gather_p, {"template": template}, _UnfoldBackward0, out,
                       extra=arrays)


# =============================================================================== *_copy
def _copy_op(name: str, view_fn: Any, node: Any) -> Any:
    """``torch.<name>``: ``view_fn``'s result (the view ``torch.<name without _copy>``) as a
    new tensor, one ``node`` per output."""
    cls = composite_class(node, ("self",))

    def op(input: Tensor, *args: Any, **kwargs: Any) -> Any:  # noqa: A002
        d = input._data
        pos = view_fn(_positions(d.shape), *args, **kwargs)
        one = isinstance(pos, Tensor)
        outs = [_compose(cls, _flat_gather_fn, [input], [d], {"idx": p._data}, mask=0)
                for p in ((pos,) if one else pos)]
        return outs[0] if one else (tuple(outs) if isinstance(pos, tuple) else outs)
    op.__name__ = name
    op.__doc__ = f"""``torch.{name[:-5]}`` as a new tensor, not a view (``torch.{name}``).

    Parameters
    ----------
    input : Tensor
        The input.
    *args, **kwargs : Any
        The arguments of ``torch.{name[:-5]}`` after ``input``.

    Returns
    -------
    Tensor or sequence of Tensor
        What ``torch.{name[:-5]}`` returns, copied (each result one ``{node}`` node).
    """
    return op


def _alias(t: Any) -> Any:
    return _V.getitem(t, ...)


def _expand(t: Any, size: Any, *, implicit: bool = False) -> Any:
    return _V.expand(t, size)


def _narrow(t: Any, dim: Any, start: Any, length: Any) -> Any:
    """``narrow`` with ``narrow_copy``'s own checks (PyTorch's messages and types)."""
    d = t._data
    if d.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if dim < -d.ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-d.ndim}, "
                         f"{d.ndim - 1}], but got {dim})")
    if dim >= d.ndim:
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, "
                           "but got false.")
    n = d.shape[dim]
    start = int(start)
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got "
                         f"{start})")
    return _V.narrow(t, dim, start, length)


def _transpose(t: Any, dim0: Any, dim1: Any) -> Any:
    if t._data.ndim == 0:   # (torch: dims 0 and -1 name the one "dimension" of a 0-d tensor)
        _dim(dim0, 0), _dim(dim1, 0)
        return t
    return _V.transpose(t, dim0, dim1)


def _split_with_sizes(t: Any, split_sizes: Any, dim: int = 0) -> Any:
    return list(_V.split(t, [int(s) for s in split_sizes], dim))


alias_copy = _copy_op("alias_copy", _alias, "AliasBackward0_copy")
diagonal_copy = _copy_op("diagonal_copy", _V.diagonal, "DiagonalBackward0_copy")
expand_copy = _copy_op("expand_copy", _expand, "ExpandBackward0_copy")
narrow_copy = _copy_op("narrow_copy", _narrow, "NarrowCopyBackward0")
permute_copy = _copy_op("permute_copy", _V.permute, "PermuteBackward0_copy")
squeeze_copy = _copy_op("squeeze_copy", _V.squeeze, "SqueezeBackward0_copy")
t_copy = _copy_op("t_copy", _V.t, "TBackward0_copy")
transpose_copy = _copy_op("transpose_copy", _transpose, "TransposeBackward0_copy")
unbind_copy = _copy_op("unbind_copy", _V.unbind, "UnbindBackward0_copy")
unfold_copy = _copy_op("unfold_copy", unfold, "UnfoldBackward0_copy")
unsqueeze_copy = _copy_op("unsqueeze_copy", _V.unsqueeze, "UnsqueezeBackward0_copy")
view_copy = _copy_op("view_copy", _V.view, "ViewBackward0_copy")
split_with_sizes_copy = _copy_op("split_with_sizes_copy", _split_with_sizes,
                                 "SplitWithSizesBackward0_copy")


# =============================================================================== *_scatter
def _scatter_op(name: str, view_fn: Any, node: Any) -> Any:
    """``torch.<name>``: ``input`` with ``src`` (converted to ``input``'s dtype) written
    where ``view_fn`` reads."""
    cls = composite_class(node, ("self", "src"))

    def op(input: Tensor, src: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
        d = input._data
        pos = view_fn(_positions(d.shape), *args, **kwargs)._data
        sd = src._data
        if tuple(sd.shape) != tuple(pos.shape):
            raise RuntimeError(f"{name}: expected src to have a size equal to the slice of self. "
                               f"src size = {list(sd.shape)}, slice size = {list(pos.shape)}")
        return _compose(cls, _flat_put_fn, [input, src], [d, sd], {"idx": pos}, mask=0)
    op.__name__ = name
    view = name[:-8]
    op.__doc__ = f"""``input`` with ``src`` written where ``{view}`` reads (``torch.{name}``).

    Parameters
    ----------
    input : Tensor
        The input (not modified).
    src : Tensor
        The values, shaped as the slice (converted to ``input``'s dtype).
    *args, **kwargs : Any
        The arguments of ``torch.{name[:-8]}`` after ``input`` (which slice).

    Returns
    -------
    Tensor
        A new tensor shaped as ``input`` (one ``{node}`` node).

    Raises
    ------
    RuntimeError
        If ``src``'s shape is not the slice's.
    """
    return op


def _slice(t: Any, dim: int = 0, start: Any = None, end: Any = None, step: int = 1) -> Any:
    d = t._data
    if step is None:
        step = 1
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    ax = _dim(dim, d.ndim)
    return _V.getitem(t, (slice(None),) * ax + (slice(start, end, step),))


diagonal_scatter = _scatter_op("diagonal_scatter", _V.diagonal, "DiagonalScatterBackward0")
select_scatter = _scatter_op("select_scatter", _V.select, "SelectScatterBackward0")
slice_scatter = _scatter_op("slice_scatter", _slice, "SliceScatterBackward0")


# =============================================================================== masked index
_UnsafeMaskedIndexBackward0 = composite_class("UnsafeMaskedIndexBackward0", ("self",))
_UnsafeMaskedIndexPutAccumulateBackward0 = composite_class(
    "UnsafeMaskedIndexPutAccumulateBackward0", ("self", "values"))


def _clamped_index(d: Any, indices: Any) -> Any:
    """``indices`` (None: a whole dimension) as a NumPy index, clamped into range (the
    positions a mask hides may be out of range)."""
    out: list[Any] = []
    for k, i in enumerate(indices):
        if i is None:
            out.append(slice(None))
            continue
        a = i._data if isinstance(i, Tensor) else np.asarray(i)
        n = d.shape[k]
        out.append(np.clip(a.astype(np.int64), -n, n - 1))
    return tuple(out)


def _masked_index_fn(x: Any, *, idx: Any, mask: Any, fill: Any) -> Any:
    return _fnp.where(mask, x[idx], fill)


def _unsafe_masked_index(input: Any, mask: Any, indices: Any, fill: Any) -> Any:  # noqa: A002
    """``torch.ops.aten._unsafe_masked_index``: ``where(mask, input[indices], fill)``; the
    indices under a False mask may be out of range (they are clamped)."""
    d = input._data
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    idx = _clamped_index(d, indices)
    return _compose(_UnsafeMaskedIndexBackward0, _masked_index_fn, [input], [d],
                    {"idx": idx, "mask": m, "fill": d.dtype.type(fill)}, mask=0)


def _masked_put_fn(x: Any, v: Any, *, idx: Any, mask: Any) -> Any:
    return _fnp.at(x)[idx].add(_fnp.where(mask, v, 0))


def _unsafe_masked_index_put_accumulate(input: Any, mask: Any, indices: Any,  # noqa: A002
                                        values: Any) -> Any:
    """``torch.ops.aten._unsafe_masked_index_put_accumulate``: ``input.index_put(indices,
    where(mask, values, 0), accumulate=True)`` with the masked-off indices clamped."""
    d = input._data
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    idx = _clamped_index(d, indices)
    return _compose(_UnsafeMaskedIndexPutAccumulateBackward0, _masked_put_fn, [input, values],
                    [d, values._data], {"idx": idx, "mask": m}, mask=0)


# =============================================================================== _chunk_cat
def _chunk_cat(tensors: Any, dim: Any, num_chunks: Any) -> Any:
    """``torch._chunk_cat``: each tensor split into ``num_chunks`` chunks along ``dim``
    (zero-padded to a multiple of ``num_chunks``), each chunk flattened after ``dim``, and
    the chunks concatenated: shape ``leading + (num_chunks, total)``.  Not differentiable
    (as in PyTorch)."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("_chunk_cat expects a non-empty input tensor list")
    if num_chunks < 1:
        raise RuntimeError("_chunk_cat expects positive num_chunks")
    arrs = [np.asarray(t._data) for t in tensors]
    d0 = arrs[0]
    if dim < 0:
        if any(a.ndim != d0.ndim for a in arrs):
            raise RuntimeError("_chunk_cat expects non-negative dim when input tensors have "
                               "different ndims")
        dim += d0.ndim
    if any(dim >= a.ndim for a in arrs) or dim < 0:
        raise RuntimeError("_chunk_cat expects dim < ndim for all input tensors")
    ax = dim
    parts = []
    for a in arrs:
        if a.shape[:ax] != d0.shape[:ax]:
            raise RuntimeError("_chunk_cat expects same sizes of 0,...,dim-1 dimensions for "
                               "all tensors")
        if a.dtype != d0.dtype:
            raise RuntimeError("_chunk_cat expects all input tensors with the same dtype")
        if a.size == 0:
            raise RuntimeError("_chunk_cat expects non-empty tensor")
        n = a.shape[ax]
        pad = -n % num_chunks
        if pad:
            w = [(0, 0)] * a.ndim
            w[ax] = (0, pad)
            a = np.pad(a, w)
        parts.append(a.reshape(a.shape[:ax] + (num_chunks, -1)))
    return _make_plain(np.concatenate(parts, axis=ax + 1))


# =============================================================================== helpers
def _data(v: Any, what: str = "index") -> Any:
    """The concrete array of a tensor/array-like (an index: its primal under compat.func).

    Raises
    ------
    RuntimeError
        An index batched by ``compat.func.vmap`` (one index per example: the positions
        written would be traced values)."""
    d = v._data if isinstance(v, Tensor) else np.asarray(v)
    if isinstance(d, np.ndarray):
        return d
    try:
        return _TV.concrete(d, "mask")
    except RuntimeError:
        raise RuntimeError(f"compat.func: an {what} tensor batched by vmap is not supported by "
                           "the scatter/index operations (their positions are static); map "
                           "over the values only, or loop over the examples") from None


def _bool_mask(name: str, mask: Any) -> Any:
    m = _data(mask)
    if m.dtype != np.bool_:
        raise RuntimeError(f"{name}: expected BoolTensor for mask")
    return m


def _broadcast(d: Any, m: Any, name: str) -> Any:
    try:
        return np.broadcast_shapes(d.shape, m.shape)
    except ValueError:
        raise RuntimeError(f"{name}: The size of tensor a must match the size of tensor b: "
                           f"shapes {list(d.shape)} and {list(m.shape)} cannot be "
                           "broadcast") from None


_MaskedSelectBackward0 = composite_class("MaskedSelectBackward0", ("self", "mask"),
                                         edge_idx=(0,))


def _masked_select_fn(x: Any, *, idx: Any, shape: Any) -> Any:
    if tuple(x.shape) != shape:
        x = _fnp.broadcast_to(x, shape)
    return x[idx] if shape else _fnp.reshape(x, (1,))[idx]


def masked_select(input: Tensor, mask: Tensor) -> Tensor:  # noqa: A002
    """The elements of ``input`` where ``mask`` is True (``torch.masked_select``).

    Parameters
    ----------
    input : Tensor
        The input.
    mask : Tensor
        A bool tensor (broadcast with ``input``).

    Returns
    -------
    Tensor
        1-d, in C order.
    """
    d = input._data
    m = _bool_mask("masked_select", mask)
    shape = _broadcast(d, m, "masked_select")
    mb = np.broadcast_to(m, shape)
    idx = np.nonzero(mb) if shape else (np.nonzero(mb.reshape(1))[0],)
    return _compose(_MaskedSelectBackward0, _masked_select_fn, [input], [d],
                    {"idx": idx, "shape": shape}, mask=0)


# =============================================================================== nonzero
def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:  # noqa: A002
    """The indices of the non-zero elements (``torch.nonzero``).

    Parameters
    ----------
    input : Tensor
        The input (a 0-d input counts as 1-d).
    as_tuple : bool, optional
        Return one 1-d index tensor per dimension instead.

    Returns
    -------
    Tensor or tuple of Tensor
        int64 indices ``(n, ndim)``, or ``ndim`` tensors of shape ``(n,)``.
    """
    d = _data(input)
    if as_tuple:
        return tuple(_make_plain(a.astype(np.int64)) for a in np.nonzero(np.atleast_1d(d)))
    return _make_plain(np.argwhere(d).astype(np.int64))


def argwhere(input: Tensor) -> Tensor:  # noqa: A002
    """The indices of the non-zero elements (``torch.argwhere``).

    Parameters
    ----------
    input : Tensor
        The input.

    Returns
    -------
    Tensor
        ``nonzero(input)``: int64, ``(n, ndim)``.
    """
    return nonzero(input)


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:  # noqa: A002
    """``nonzero`` with a fixed number of rows (``torch.nonzero_static``).

    Parameters
    ----------
    input : Tensor
        The input.
    size : int
        The number of rows: the indices are truncated or padded to it.
    fill_value : int, optional
        The value of the padding rows.

    Returns
    -------
    Tensor
        int64, ``(size, ndim)``.
    """
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got "
                           f"{size}")
    d = _data(input)
    nz = np.argwhere(d).astype(np.int64)[:size]
    out = np.full((size, d.ndim), fill_value, np.int64)
    out[:nz.shape[0]] = nz
    return _make_plain(out)


# =============================================================================== repeat_interleave
_RepeatInterleaveBackward0 = composite_class("IndexSelectBackward0", ("self", "index"),
                                             edge_idx=(0,))


def _gather_dim_fn(x: Any, *, idx: Any) -> Any:
    return x[idx]


def repeat_interleave(input: Tensor, repeats: Tensor | int | None = None,  # noqa: A002
                      dim: int | None = None, *, output_size: int | None = None) -> Tensor:
    """Each element repeated ``repeats`` times (``torch.repeat_interleave``).

    With only a 1-d integer tensor of repeats, the indices ``0..n-1`` repeated that many
    times.

    Parameters
    ----------
    input : Tensor
        The input (the repeats, when ``repeats`` is not given).
    repeats : Tensor or int, optional
        The number of repetitions: one, or one per element (slice) along ``dim``.
    dim : int, optional
        The dimension (default: the flattened tensor).
    output_size : int, optional
        The total length along ``dim`` (checked against the repeats).

    Returns
    -------
    Tensor
        ``dim`` lengthened to the sum of the repeats.

    Raises
    ------
    RuntimeError
        If the repeats are invalid or do not match.
    """
    if repeats is None:
        r = _data(input)
        if r.ndim > 1 or r.dtype.kind not in "iu":
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if (r < 0).any():
            raise RuntimeError("repeats can not be negative")
        return _make_plain(np.repeat(np.arange(r.size, dtype=r.dtype), r.reshape(-1)))
    d = input._data
    if dim is None:
        n, ax, flat = d.size, 0, True
    else:
        ax = _dim(dim, d.ndim)
        n, flat = (d.shape[ax] if d.ndim else 1), d.ndim == 0
    if isinstance(repeats, Tensor):
        r = _data(repeats)
        if r.ndim > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if r.dtype.kind not in "iu":
            raise RuntimeError("repeats has to be Long tensor")
        r = r.reshape(-1)
        if r.size == 1:
            r = np.full(n, int(r[0]))
        elif r.size != n:
            raise RuntimeError("repeats must have the same size as input along dim")
    else:
        r = np.full(n, int(repeats))
    if (r < 0).any():
        raise RuntimeError("repeats can not be negative")
    sel = np.repeat(np.arange(n, dtype=np.int64), r)
    if output_size is not None and output_size != sel.size:
        raise RuntimeError(f"allocated size does not match required size: {output_size} vs "
                           f"{sel.size}")
    if flat:
        return _compose(_RepeatInterleaveBackward0, _flat_gather_fn, [input], [d], {"idx": sel},
                        mask=0)
    return _compose(_RepeatInterleaveBackward0, _gather_dim_fn, [input], [d],
                    {"idx": (slice(None),) * ax + (sel,)}, mask=0)


METHODS: dict = {"as_strided": as_strided, "as_strided_": as_strided_, "unfold": unfold, "narrow_copy": narrow_copy,
                 "as_strided_scatter": as_strided_scatter,
                 "diagonal_scatter": diagonal_scatter, "select_scatter": select_scatter,
                 "slice_scatter": slice_scatter, "masked_select": masked_select,
                 "nonzero": nonzero, "nonzero_static": nonzero_static, "argwhere": argwhere,
                 "repeat_interleave": repeat_interleave}
