"""compat operations: indexing and scatter operations (scatter*, index_*, masked_*, take*, nonzero, *_scatter/*_copy views, as_strided, unfold).

Each function adapts one ``ftrans.numpy``/``ftrans.scipy``/``ftrans.nn`` function to
PyTorch's signature; its node's backward is ``ftrans.vjp`` of that function
(:func:`ftrans.compat._opbase._compose`): no derivative is written here.

The scatter family (``scatter``, ``scatter_add``, ``scatter_reduce``, ``index_add``,
``index_copy``, ``index_fill``, ``index_put``, ``index_reduce``, ``put``,
``masked_scatter``) is one composition, :func:`_update_fn`: ``ftrans.numpy.at(x)[idx]``
with ``set``/``add``/``multiply``/``max``/``min`` (repeated indices accumulate; ties of
``amax``/``amin`` split the gradient evenly, as in PyTorch).  The index arrays are
concrete (they are static parameters of the node); under ``compat.func`` an index tensor
uses its primal value.  Where PyTorch's result with repeated indices is
implementation-defined (``scatter``, ``index_copy``, ``index_put``, ``put`` without
accumulation), the last write wins.

The view variants (``as_strided``, ``unfold``, the ``*_copy`` and ``*_scatter``
functions), ``masked_select``, ``nonzero`` and ``repeat_interleave`` are in
:mod:`._index_ops2` (installed from here).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._tensor import Tensor, _make_plain, _dim
from .autograd._composite import composite_class
from .. import numpy as _fnp
from . import _tracer_values as _TV
from ._shape_ops import reshape as _reshape
from ._opbase import _compose, _ctype, _record, _tname
from . import _opbase as _B
from .autograd.graph import node_class
from ._inplace import _inplace
from ._out import with_out as _with_out
from . import _index_ops2
from ._outsig import in_place_doc, set_out_signature
from .types import Number, TensorOrNumber
from ._index_ops2 import _flat_gather_fn as _take_fn, _data, _bool_mask, _broadcast
from ._index_base import (_index_data, _check_bounds, _same_dtype, _refuse_kind, _updated,
                          _along_dim)

__all__ = ["scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy",
           "index_fill", "index_put", "index_reduce", "masked_scatter", "take",
           "take_along_dim", "put"] + _index_ops2.__all__

_REDUCE_SCATTER = ("sum", "prod", "mean", "amax", "amin")


# =============================================================================== scatter
_ScatterBackward0 = composite_class("ScatterBackward0", ("self", "src"))
_ScatterBackward1 = composite_class("ScatterBackward1", ("self",))
_ScatterAddBackward0 = composite_class("ScatterAddBackward0", ("self", "src"))
_ScatterReduceBackward0 = composite_class("ScatterReduceBackward0", ("self", "src"))


def _scatter_args(name: str, input: Any, dim: Any, index: Any, src: Any) -> Any:  # noqa: A002
    """``(data, dim, index, src data or None, idx, cut)`` after torch's checks."""
    d = input._data
    ax = _dim(dim, d.ndim)
    ix = _index_data(index, name)
    sd = src._data if isinstance(src, Tensor) else None
    if sd is not None:
        _same_dtype(name, d, sd)
    nd = max(d.ndim, 1)
    if max(ix.ndim, 1) != nd:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if sd is not None and max(sd.ndim, 1) != nd:
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    ishape = ix.shape or (1,)
    xshape = d.shape or (1,)
    sshape = (sd.shape or (1,)) if sd is not None else None
    if ix.size:
        for k in range(nd):
            if (k != ax and ishape[k] > xshape[k]) or (sshape is not None and
                                                       ishape[k] > sshape[k]):
                raise RuntimeError(
                    f"Expected index {list(ix.shape)} to be no larger than self {list(d.shape)} "
                    f"apart from dimension {ax} and to be no larger size than src "
                    f"{list(sd.shape) if sd is not None else list(ix.shape)}")
    ix1 = ix.reshape(ishape)
    _check_bounds(ix1, xshape[ax], ax)
    idx = _along_dim(ix1, ax)
    cut = None
    if sshape is not None and sshape != ishape:
        cut = tuple(slice(0, n) for n in ishape)
    return d, ax, ix1, sd, idx, cut


def _with_flat(d: Any, extra: Any) -> Any:
    if d.ndim == 0:
        extra["flat"] = True
    return extra


def scatter(input: Tensor, dim: int, index: Tensor,  # noqa: A002
            src: TensorOrNumber | None = None, *, value: Number | None = None,
            reduce: str | None = None) -> Tensor:
    """Values written at indices along ``dim`` (``torch.scatter``).

    ``out[index[i][j]][j] = src[i][j]`` for ``dim=0``.  Repeated indices without
    ``reduce``: the last write (in C order of ``index``) wins.

    Parameters
    ----------
    input : Tensor
        The input (not modified).
    dim : int
        The dimension indexed.
    index : Tensor
        int64 indices, no larger than ``src`` in any dimension.
    src : Tensor or Number, optional
        The values (or give ``value``).
    value : Number, optional
        One value written everywhere (torch's ``value`` overload).
    reduce : {"add", "multiply"}, optional
        Accumulate into ``input`` instead of overwriting.

    Returns
    -------
    Tensor
        A new tensor shaped as ``input``.

    Raises
    ------
    RuntimeError
        If the shapes, dtypes or ``reduce`` are invalid, or an index is out of range.
    """
    if src is None:
        src = value
    if src is None:
        raise TypeError("scatter() missing required argument 'src' or 'value'")
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if not isinstance(src, Tensor) and not np.isscalar(src):
        src = _make_plain(np.asarray(src))
    d, ax, ix, sd, idx, cut = _scatter_args("scatter", input, dim, index,
                                             src if isinstance(src, Tensor) else None)
    op = "set" if reduce is None else reduce
    extra = _with_flat(d, {"cut": cut})
    args = [input] + ([src] if isinstance(src, Tensor) else [])
    if not isinstance(src, Tensor):
        filled = np.full(ix.shape, src, dtype=d.dtype) if ix.size else src
        r = _updated(_ScatterBackward1, input, filled, idx, op, **extra)
    else:
        r = _updated(_ScatterBackward0, input, src, idx, op, **extra)
    if reduce is not None and r._grad_fn is not None and not _B._fw_on:
        # PyTorch records no derivative for scatter with reduce=: its backward raises
        return _record(_ScatterNotImplemented, _NO_DERIVATIVE, {}, args,
                       [a._data for a in args], r._data, (0, False))
    return r


class _NoDerivative:
    """The "primitive" of a node PyTorch records without a derivative
    (``torch::autograd::NotImplemented``): running its backward raises torch's error."""

    name = "not_implemented"

    def __init__(self: Any, what: str) -> None:
        self.what = what

    def vjp(self: Any, *args: Any, **params: Any) -> None:
        raise RuntimeError(f"derivative for {self.what} is not implemented")


_NO_DERIVATIVE = _NoDerivative("aten::scatter")
_ScatterNotImplemented = node_class("NotImplemented", ("self", "src"))
_ScatterNotImplemented.name = (  # type: ignore[method-assign]  # (torch's node name)
    lambda self: "torch::autograd::NotImplemented")


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:  # noqa: A002
    """Values added at indices along ``dim`` (``torch.scatter_add``).

    ``out[index[i][j]][j] += src[i][j]`` for ``dim=0``.

    Parameters
    ----------
    input : Tensor
        The input (not modified).
    dim : int
        The dimension indexed.
    index : Tensor
        int64 indices.
    src : Tensor
        The values added.

    Returns
    -------
    Tensor
        A new tensor shaped as ``input``.
    """
    d, ax, ix, sd, idx, cut = _scatter_args("scatter_add", input, dim, index, src)
    return _updated(_ScatterAddBackward0, input, src, idx, "sum", **_with_flat(d, {"cut": cut}))


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor,  # noqa: A002
                   reduce: str, *, include_self: bool = True) -> Tensor:
    """Values reduced into indices along ``dim`` (``torch.scatter_reduce``).

    The gradient of amax/amin is split evenly among ties (PyTorch's convention).

    Parameters
    ----------
    input : Tensor
        The input (not modified).
    dim : int
        The dimension indexed.
    index : Tensor
        int64 indices.
    src : Tensor
        The values.
    reduce : {"sum", "prod", "mean", "amax", "amin"}
        The reduction.
    include_self : bool, optional
        Whether ``input``'s values take part in the reduction.

    Returns
    -------
    Tensor
        A new tensor shaped as ``input``.

    Raises
    ------
    RuntimeError
        If ``reduce`` is unknown.
    """
    if reduce not in _REDUCE_SCATTER:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    d, ax, ix, sd, idx, cut = _scatter_args("scatter_reduce", input, dim, index, src)
    _refuse_kind(d, reduce, f"scatter_gather_tensor_cpu_reduce_{reduce}")
    return _updated(_ScatterReduceBackward0, input, src, idx, reduce, include_self,
                    **_with_flat(d, {"cut": cut}))


# =============================================================================== index_*
_IndexAddBackward0 = composite_class("IndexAddBackward0", ("self", "source"))
_IndexCopyBackward0 = composite_class("IndexCopyBackward0", ("self", "source"))
_IndexFillBackward0 = composite_class("IndexFillBackward0", ("self",))
_IndexFillBackward1 = composite_class("IndexFillBackward1", ("self", "value"))
_IndexReduceBackward0 = composite_class("IndexReduceBackward0", ("self", "source"))
_IndexPutBackward0 = composite_class("IndexPutBackward0", ("self", "values"))


def _index_dim_args(name: str, input: Any, dim: Any, index: Any, source: Any = None,
                    exc: Any = RuntimeError, prefix: str = "", wrap: bool = False,
                    long_only: Any = None) -> Any:
    """``(data, idx, extra)`` for the ``index_*`` operations along ``dim``; ``long_only``:
    the exception of an index that is not int64 (``index_copy``, ``index_fill``)."""
    d = input._data
    ax = _dim(dim, d.ndim)
    ix = _data(index)
    if ix.dtype.kind not in "iu" or (long_only is not None and ix.dtype != np.int64):
        if long_only is IndexError:
            raise IndexError(f"{name}_(): Expected dtype int64 for index.")
        raise RuntimeError(f"{name}{'_' if long_only else ''}(): Expected a long tensor for "
                           f"index, but got {_tname(ix.dtype)}")
    if ix.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    ix = ix.reshape(-1).astype(np.int64, copy=False)
    n = d.shape[ax] if d.ndim else 1
    if source is not None:
        sd = source._data
        if sd.dtype != d.dtype:
            raise RuntimeError(f"{name}(): self ({_tname(d.dtype)}) and source "
                               f"({_tname(sd.dtype)}) must have the same scalar type")
        ns = sd.shape[ax] if sd.ndim else 1
        if ns != ix.size:
            raise RuntimeError(f"{name}(): Number of indices ({ix.size}) should be equal to "
                               f"source.size(dim): ({ns}), for dim: {ax}")
        want = d.shape[:ax] + (ix.size,) + d.shape[ax + 1:] if d.ndim else (ix.size,)
        if (sd.shape or (1,)) != want and sd.size != int(np.prod(want)):
            raise RuntimeError(f"{name}(): Source/destination tensor must have same slice "
                               f"shapes. Destination slice shape: {list(d.shape[:ax] + d.shape[ax + 1:])} "
                               f"at dimension {ax} and source slice shape: "
                               f"{list(sd.shape[:ax] + sd.shape[ax + 1:])} at dimension {ax}.")
    ix = _check_bounds(ix, n, ax, exc, prefix, wrap)
    extra = {}
    if d.ndim == 0:
        extra["flat"] = True
        return d, (ix,), extra
    return d, (slice(None),) * ax + (ix,), extra


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *,  # noqa: A002
              alpha: Number = 1) -> Tensor:
    """``out[..., index[i], ...] += alpha * source[..., i, ...]`` (``torch.index_add``).

    Parameters
    ----------
    input : Tensor
        The input (not modified).
    dim : int
        The dimension indexed.
    index : Tensor
        1-d integer indices, one per slice of ``source``.
    source : Tensor
        The slices added.
    alpha : Number, optional
        The factor of ``source``.

    Returns
    -------
    Tensor
        A new tensor shaped as ``input``.
    """
    d, idx, extra = _index_dim_args("index_add", input, dim, index, source)
    if d.dtype.kind in "iub":
        alpha = int(alpha)  # type: ignore[arg-type]  # (torch converts alpha; complex raises)
    if alpha != 1:
        extra["alpha"] = alpha
    return _updated(_IndexAddBackward0, input, source, idx, "sum", **extra)


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:  # noqa: A002
    """``out[..., index[i], ...] = source[..., i, ...]`` (``torch.index_copy``).

    Repeated indices: the last write wins.

    Parameters
    ----------
    input : Tensor
        The input (not modified).
    dim : int
        The dimension indexed.
    index : Tensor
        1-d int64 indices.
    source : Tensor
        The slices written.

    Returns
    -------
    Tensor
        A new tensor shaped as ``input``.
    """
    d, idx, extra = _index_dim_args("index_copy", input, dim, index, source, IndexError,
                                    "index_copy_(): ", long_only=RuntimeError)
    return _updated(_IndexCopyBackward0, input, source, idx, "set", **extra)


def index_fill(input: Tensor, dim: int, index: Tensor,  # noqa: A002
               value: TensorOrNumber) -> Tensor:
    """The entries at ``index`` along ``dim`` set to ``value`` (``torch.index_fill``).

    Parameters
    ----------
    input : Tensor
        The input (not modified).
    dim : int
        The dimension indexed.
    index : Tensor
        1-d int64 indices (negative ones count from the end).
    value : Tensor or Number
        A number or a 0-d tensor.

    Returns
    -------
    Tensor
        A new tensor shaped as ``input``.
    """
    d, idx, extra = _index_dim_args("index_fill", input, dim, index, None, IndexError,
                                    wrap=True, long_only=IndexError)
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but "
                               f"got tensor with {value._data.ndim} dimension(s).")
        if value._data.dtype.kind == "c" and d.dtype.kind != "c":
            raise RuntimeError("index_fill_(): Expected self.dtype to be equal to value.dtype")
        return _updated(_IndexFillBackward1, input, value, idx, "set", **extra)
    if d.dtype.kind != "c" and np.iscomplexobj(value):
        raise RuntimeError(f"value cannot be converted to type {_ctype(d.dtype)} without "
                           "overflow")
    return _updated(_IndexFillBackward0, input, d.dtype.type(value), idx, "set", **extra)


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor,  # noqa: A002
                 reduce: str, *, include_self: bool = True) -> Tensor:
    """Slices of ``source`` reduced into ``index`` along ``dim`` (``torch.index_reduce``).

    Parameters
    ----------
    input : Tensor
        The input (not modified).
    dim : int
        The dimension indexed.
    index : Tensor
        1-d integer indices, one per slice of ``source``.
    source : Tensor
        The slices.
    reduce : {"prod", "mean", "amax", "amin"}
        The reduction.
    include_self : bool, optional
        Whether ``input``'s values take part in the reduction.

    Returns
    -------
    Tensor
        A new tensor shaped as ``input``.

    Raises
    ------
    RuntimeError
        If ``reduce`` is unknown.
    """
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    d, idx, extra = _index_dim_args("index_reduce", input, dim, index, source, IndexError)
    _refuse_kind(d, reduce, {"amax": "maximum_cpu", "amin": "minimum_cpu"}.get(reduce, ""))
    return _updated(_IndexReduceBackward0, input, source, idx, reduce, include_self, **extra)


def _put_index(d: Any, indices: Any) -> Any:
    """The NumPy index of ``index_put``'s list of index tensors (negative indices count
    from the end)."""
    if isinstance(indices, Tensor):
        indices = (indices,)
    out = []
    k = 0
    for n, i in enumerate(indices):
        if i is None:
            raise TypeError(f"expected Tensor as element {n} in argument 1, but got NoneType")
        a = _data(i)
        if a.dtype.kind == "b":
            if a.ndim and k + a.ndim <= d.ndim and a.shape != d.shape[k:k + a.ndim]:
                raise IndexError(f"The shape of the mask {list(a.shape)} at index 0 does not "
                                 f"match the shape of the indexed tensor {list(d.shape)} at "
                                 f"index {k}")
            out.append(a)
            k += a.ndim
            continue
        if a.dtype.kind not in "iu":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if k >= d.ndim:
            raise IndexError(f"too many indices for tensor of dimension {d.ndim}")
        out.append(_check_bounds(a.astype(np.int64), d.shape[k], k, IndexError, wrap=True))
        k += 1
    if k > d.ndim:
        raise IndexError(f"too many indices for tensor of dimension {d.ndim}")
    return tuple(out)


def index_put(input: Tensor, indices: Sequence[Tensor | None],  # noqa: A002
              values: Tensor, accumulate: bool = False) -> Tensor:
    """``out[indices] = values`` (``torch.index_put``).

    Repeated indices without ``accumulate``: the last write wins.

    Parameters
    ----------
    input : Tensor
        The input (not modified).
    indices : sequence of Tensor
        One index tensor (integer or bool) per leading dimension, as advanced indexing.
    values : Tensor
        The values (broadcast to the indexed shape).
    accumulate : bool, optional
        Add instead of overwriting.

    Returns
    -------
    Tensor
        A new tensor shaped as ``input``.
    """
    d = input._data
    idx = _put_index(d, indices)
    if not isinstance(values, Tensor):
        values = _make_plain(np.asarray(values, d.dtype))
    if values._data.dtype != d.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_tname(d.dtype)} for the destination and "
                           f"{_tname(values._data.dtype)} for the source.")
    try:
        region = np.empty(d.shape, bool)[idx].shape
        np.broadcast_to(np.empty(values._data.shape, bool), region)
    except (ValueError, IndexError) as e:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values._data.shape)} "
                           f"cannot be broadcast to indexing result of shape "
                           f"{list(np.empty(d.shape, bool)[idx].shape)}") from e
    return _updated(_IndexPutBackward0, input, values, idx, "sum" if accumulate else "set")


# =============================================================================== put, take
_PutBackward0 = composite_class("PutBackward0", ("self", "source"))
_TakeBackward0 = composite_class("TakeBackward0", ("self", "index"), edge_idx=(0,))
_GatherBackward0 = composite_class("GatherBackward0", ("self", "index"), edge_idx=(0,))


def _flat_index(name: str, d: Any, index: Any) -> Any:
    ix = _data(index)
    if ix.dtype != np.int64:
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got "
                           f"{_tname(ix.dtype)}")
    n = d.size
    if ix.size:
        bad = ix[(ix < -n) | (ix >= n)]
        if bad.size:
            raise IndexError(f"out of range: tried to access index {int(bad.flat[0])} on a "
                             f"tensor of {n} elements.")
    return np.where(ix < 0, ix + n, ix)


def put(input: Tensor, index: Tensor, source: Tensor,  # noqa: A002
        accumulate: bool = False) -> Tensor:
    """``source`` written into the flattened ``input`` at ``index`` (``torch.put``).

    Parameters
    ----------
    input : Tensor
        The input (not modified), read as a flat tensor.
    index : Tensor
        int64 flat indices (negative ones count from the end).
    source : Tensor
        The values, one per index.
    accumulate : bool, optional
        Add instead of overwriting (otherwise repeated indices: the last write wins).

    Returns
    -------
    Tensor
        A new tensor shaped as ``input``.
    """
    d = input._data
    sd = source._data
    if sd.dtype != d.dtype:
        raise RuntimeError(f"put_(): self ({_tname(d.dtype)}) and source ({_tname(sd.dtype)}) "
                           "must have the same scalar type")
    ix = _flat_index("put_", d, index)
    if ix.size != sd.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                           f"elements, but got source.numel() = {sd.size}, index.numel() = "
                           f"{ix.size}")
    return _updated(_PutBackward0, input, source, (ix.reshape(-1),),
                    "sum" if accumulate else "set", flat=True)


def take(input: Tensor, index: Tensor) -> Tensor:  # noqa: A002
    """The flattened ``input`` read at ``index`` (``torch.take``).

    Parameters
    ----------
    input : Tensor
        The input, read as a flat tensor.
    index : Tensor
        int64 flat indices (negative ones count from the end).

    Returns
    -------
    Tensor
        ``index``'s shape.

    Raises
    ------
    IndexError
        If an index is out of range.
    """
    d = input._data
    if _batched_index(index):
        return _compose(_TakeBackward0, _traced_take_fn, [input, index._data],
                        [d, index._data], {"axis": None}, mask=0)
    ix = _flat_index("take", d, index)
    return _compose(_TakeBackward0, _take_fn, [input], [d], {"idx": ix}, mask=0)


def _batched_index(index: Any) -> Any:
    """Whether ``index`` holds a value batched by ``compat.func.vmap`` (the gathers then
    take it as a traced operand: no bounds check, negative indices still wrap)."""
    if not isinstance(index, Tensor) or isinstance(index._data, np.ndarray):
        return False
    try:
        _TV.concrete(index._data, "mask")
    except RuntimeError:
        return True
    return False


def _traced_take_fn(x: Any, i: Any, *, axis: Any) -> Any:
    """``take``/``take_along_dim`` with a traced index ``i`` (negative entries wrap)."""
    if axis is None:
        x = _fnp.reshape(x, (-1,))
    n = x.shape[0 if axis is None else axis]
    i = _fnp.where(i < 0, i + n, i)
    if axis is None:
        return _fnp.take(x, i)
    return _fnp.take_along_axis(x, i, axis=axis)


def _take_along_fn(x: Any, *, ix: Any, axis: Any, shape: Any) -> Any:
    if shape is not None:
        x = _fnp.broadcast_to(x, shape)
    return _fnp.take_along_axis(x, ix, axis=axis)


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:  # noqa: A002
    """``numpy.take_along_axis`` (``torch.take_along_dim``).

    Parameters
    ----------
    input : Tensor
        The input.
    indices : Tensor
        int64 indices along ``dim``; broadcast with ``input`` in the other dimensions.
    dim : int, optional
        The dimension (default: the flattened tensors).

    Returns
    -------
    Tensor
        The broadcast shape with ``indices``' size along ``dim``.
    """
    d = input._data
    if _batched_index(indices):
        i = indices._data
        if dim is None:
            i = _fnp.reshape(i, (-1,))
        return _compose(_GatherBackward0, _traced_take_fn, [input, i], [d, i],
                        {"axis": None if dim is None else _dim(dim, d.ndim)}, mask=0)
    ix = _data(indices)
    if ix.dtype.kind not in "iu" or (dim is not None and ix.dtype != np.int64):
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{_tname(ix.dtype)}")
    ix = ix.astype(np.int64)
    if dim is None:
        ix = ix.reshape(-1)
        n = d.size
        params = {"ix": np.where(ix < 0, ix + n, ix), "axis": None, "shape": None}
        return _compose(_GatherBackward0, _take_along_fn, [input], [d], params, mask=0)
    if ix.ndim != d.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {d.ndim} dimensions for input, and "
                           f"{ix.ndim} dimensions for indices")
    if d.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    ax = _dim(dim, d.ndim)
    try:
        sh = np.broadcast_shapes(d.shape[:ax] + (1,) + d.shape[ax + 1:],
                                 ix.shape[:ax] + (1,) + ix.shape[ax + 1:])
    except ValueError:
        raise RuntimeError(f"The size of tensor a must match the size of tensor b at "
                           f"non-singleton dimension: shapes {list(d.shape)} and "
                           f"{list(ix.shape)}") from None
    xs = sh[:ax] + (d.shape[ax],) + sh[ax + 1:]
    ix = np.broadcast_to(ix, sh[:ax] + (ix.shape[ax],) + sh[ax + 1:])
    n = d.shape[ax]
    _check_bounds(ix, n, ax, RuntimeError, wrap=True)
    params = {"ix": np.where(ix < 0, ix + n, ix), "axis": ax,
              "shape": None if xs == d.shape else xs}
    return _compose(_GatherBackward0, _take_along_fn, [input], [d], params, mask=0)


# =============================================================================== masked
_MaskedScatterBackward0 = composite_class("MaskedScatterBackward0", ("self", "mask", "source"),
                                          edge_idx=(0, 2))


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:  # noqa: A002
    """``source``'s elements written, in order, where ``mask`` is True (``torch.masked_scatter``).

    Parameters
    ----------
    input : Tensor
        The input (not modified).
    mask : Tensor
        A bool tensor broadcast with ``input``.
    source : Tensor
        At least as many elements as ``mask`` has True entries.

    Returns
    -------
    Tensor
        A new tensor shaped as ``input``.
    """
    d = input._data
    m = _bool_mask("masked_scatter_", mask)
    sd = source._data
    if sd.dtype != d.dtype:
        raise RuntimeError(f"masked_scatter_: expected self and source to have same dtypes but "
                           f"got {_tname(d.dtype)} and {_tname(sd.dtype)}")
    shape = _broadcast(d, m, "masked_scatter")
    mb = np.broadcast_to(m, shape)
    k = int(mb.sum())
    if k > sd.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    extra: dict[str, Any] = {"shape": shape if shape != d.shape else None, "flat": False}
    if shape:
        idx = np.nonzero(mb)
    else:
        idx = (np.nonzero(mb.reshape(1))[0],)
        extra["flat"] = True
    src = _reshape(source, -1) if sd.ndim != 1 else source
    extra["cut"] = slice(0, k)
    return _updated(_MaskedScatterBackward0, input, src, idx, "set", **extra)


# =============================================================================== out=
_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to tensor "
            "refer to a single memory location. Please clone() the tensor before performing "
            "the operation.")


def _out_form(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with torch's ``out=`` keyword: ``out`` may not share memory with an operand."""
    g = _with_out(fn)

    def f(*args: Any, out: Tensor | None = None, **kwargs: Any) -> Any:
        if out is not None and isinstance(out, Tensor):
            od = out._data
            for a in list(args) + list(kwargs.values()):
                if isinstance(a, Tensor) and isinstance(a._data, np.ndarray) and \
                        isinstance(od, np.ndarray) and np.may_share_memory(a._data, od):
                    raise RuntimeError(_OVERLAP)
        return g(*args, out=out, **kwargs)
    return set_out_signature(f, fn)


_OUT = ("scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy", "index_reduce",
        "masked_select", "nonzero", "nonzero_static", "take", "take_along_dim")


# =============================================================================== methods
def _method_inplace(fn: Callable[..., Any]) -> Callable[..., Tensor]:
    def m(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return _inplace(self, fn, *args, **kwargs)
    m.__name__ = fn.__name__ + "_"
    m.__doc__ = in_place_doc(fn.__name__)
    return m


METHODS: dict = {n: globals()[n] for n in (
    "scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy", "index_fill",
    "index_put", "index_reduce", "masked_scatter", "take", "take_along_dim", "put")}
METHODS.update(_index_ops2.METHODS)
METHODS.update({n + "_": _method_inplace(globals()[n]) for n in (
    "scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy", "index_fill",
    "index_put", "index_reduce", "masked_scatter", "put")})
globals().update({_n: getattr(_index_ops2, _n) for _n in _index_ops2.__all__})
for _n in _OUT:
    globals()[_n] = _out_form(globals()[_n])
del _n
