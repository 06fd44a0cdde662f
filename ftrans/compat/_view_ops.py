"""compat operations: views and reshapes (``reshape``, ``view``, ``squeeze``,
``transpose``, ``permute``, ``expand`` ...) and ``repeat``."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _dtype as D
from ._tensor import (Tensor, _mark_view, _dim)
from .autograd.graph import node_class
from .autograd._composite import composite_class
from .. import primitives as P
from ..primitives import structural as S
from ..primitives import indexing as I
from ..core.trace import Tracer as _Tracer

from ._opbase import (SAVE_NONE, _compose, _k, _record)
from .types import SizeLike
from ._reductions import (_dims, _size_attr)


def _basic_index(d: Any, template: tuple[Any, ...]) -> Any:
    """``d[template]`` as a view, also when every dimension is indexed by an integer (NumPy
    would return a scalar copy)."""
    out = d[template]
    if type(out) is not np.ndarray and Ellipsis not in template:
        out = d[template + (Ellipsis,)]
    return out


def _view_op(x: Tensor, prim: Any, params: dict[str, Any], cls: Any, out: Any = None,
             extra: Sequence[Any] = (), view: bool = True) -> Tensor:
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


def _shape_arg(shape: Any) -> tuple[int, ...]:
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
        shape = shape[0]
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    return tuple(int(s) for s in shape)


def _infer_shape(shape: Sequence[int], n: int) -> tuple[int, ...]:
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


def reshape(input: Tensor, *shape: int | SizeLike) -> Tensor:  # noqa: A002
    """The same data with another shape (``torch.reshape``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    *shape : int or sequence of int
        The new shape, as ints or one sequence; one entry may be -1 (inferred).

    Returns
    -------
    Tensor
        A view when the strides allow one, a copy otherwise.

    Raises
    ------
    RuntimeError
        For a shape of another number of elements.
    """
    d = input._data
    new = _infer_shape(_shape_arg(shape), d.size)
    out = d.reshape(new)
    is_view = out.size == 0 or (isinstance(out, _Tracer) or np.may_share_memory(out, d))
    return _view_op(input, S.reshape_p, {"new_shape": new},
                    _ViewBackward0 if is_view else _UnsafeViewBackward0, out, view=is_view)


def view(input: Tensor, *shape: int | SizeLike) -> Tensor:  # noqa: A002
    """A view of ``input`` with another shape (``Tensor.view``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    *shape : int or sequence of int
        The new shape, as ints or one sequence; one entry may be -1 (inferred).

    Returns
    -------
    Tensor
        The view (shares ``input``'s memory).

    Raises
    ------
    RuntimeError
        If the strides allow no view, or for a shape of another number of elements.
    NotImplementedError
        For ``view(dtype)``.
    """
    if len(shape) == 1 and isinstance(shape[0], D.dtype):
        raise NotImplementedError("view(dtype) is not supported by ftrans.compat")
    d = input._data
    new = _infer_shape(_shape_arg(shape), d.size)
    try:
        out = d.reshape(new) if isinstance(d, _Tracer) else np.reshape(  # type: ignore[attr-defined, unused-ignore]  # (Tracer's array methods are attached at import)
            d, new, copy=False)
    except ValueError:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.") from None
    return _view_op(input, S.reshape_p, {"new_shape": new}, _ViewBackward0, out)


def view_as(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """``view(input, other.shape)`` (``Tensor.view_as``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    other : Tensor
        The tensor whose shape is taken.

    Returns
    -------
    Tensor
        The view.
    """
    return view(input, other._data.shape)


def reshape_as(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """``reshape(input, other.shape)`` (``Tensor.reshape_as``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    other : Tensor
        The tensor whose shape is taken.

    Returns
    -------
    Tensor
        The reshaped tensor.
    """
    return reshape(input, other._data.shape)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:  # noqa: A002
    """Merge the dimensions ``start_dim`` to ``end_dim`` into one (``torch.flatten``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    start_dim : int, default 0
        The first dimension merged.
    end_dim : int, default -1
        The last dimension merged.

    Returns
    -------
    Tensor
        ``input`` itself when there is one dimension to merge; a 0-d input gives shape
        ``(1,)``.

    Raises
    ------
    RuntimeError
        If ``start_dim`` comes after ``end_dim``.
    """
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


def unflatten(input: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:  # noqa: A002
    """Split dimension ``dim`` into ``sizes`` (``torch.unflatten``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    dim : int
        The dimension split.
    sizes : sequence of int
        Its new sizes (one may be -1).

    Returns
    -------
    Tensor
        A view.
    """
    d = input._data
    ax = _dim(dim, d.ndim)
    sizes = _infer_shape(tuple(sizes), d.shape[ax])
    return view(input, d.shape[:ax] + sizes + d.shape[ax + 1:])


_SqueezeBackward0 = node_class("SqueezeBackward0", ("self",), params=_size_attr)
_SqueezeBackward1 = node_class("SqueezeBackward1", ("self",), params=_size_attr)
_UnsqueezeBackward0 = node_class("UnsqueezeBackward0", ("self",))


def squeeze(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:  # noqa: A002
    """Remove dimensions of size 1 (``torch.squeeze``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    dim : int or sequence of int, optional
        The dimensions considered; all by default.

    Returns
    -------
    Tensor
        A view.
    """
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


def _empty_dims(dims: Any) -> bool:
    """True for an empty list/tuple of dimensions (none selected, unlike ``None``)."""
    return isinstance(dims, (tuple, list)) and len(dims) == 0


def unsqueeze(input: Tensor, dim: int) -> Tensor:  # noqa: A002
    """Insert a dimension of size 1 at ``dim`` (``torch.unsqueeze``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    dim : int
        Its position in the result (negative: from the end).

    Returns
    -------
    Tensor
        A view.
    """
    d = input._data
    ax = _dim(dim, d.ndim + 1)
    return _view_op(input, S.expand_dims_p, {"dims": (ax,)}, _UnsqueezeBackward0)


_TransposeBackward0 = node_class("TransposeBackward0", ("self",))
_PermuteBackward0 = node_class("PermuteBackward0", ("self",))
_TBackward0 = node_class("TBackward0", ("self",))


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:  # noqa: A002
    """Swap dimensions ``dim0`` and ``dim1`` (``torch.transpose``, ``swapaxes``, ``swapdims``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    dim0, dim1 : int
        The dimensions swapped.

    Returns
    -------
    Tensor
        A view.
    """
    d = input._data
    a, b = _dim(dim0, d.ndim), _dim(dim1, d.ndim)
    perm = list(range(d.ndim))
    if perm:   # a 0-d tensor accepts dimensions 0 and -1
        perm[a], perm[b] = perm[b], perm[a]
    return _view_op(input, S.transpose_p, {"perm": tuple(perm)}, _TransposeBackward0)


swapaxes = swapdims = transpose


def t(input: Tensor) -> Tensor:  # noqa: A002
    """The transpose of a matrix (``torch.t``); 0-d and 1-d tensors as they are.

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        A view.

    Raises
    ------
    RuntimeError
        For more than 2 dimensions.
    """
    d = input._data
    if d.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {d.ndim}D")
    perm = tuple(range(d.ndim))[::-1]
    return _view_op(input, S.transpose_p, {"perm": perm}, _TBackward0)


def permute(input: Tensor, *dims: int | Sequence[int]) -> Tensor:  # noqa: A002
    """Reorder the dimensions (``torch.permute``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    *dims : int or sequence of int
        The new order, as ints or one sequence.

    Returns
    -------
    Tensor
        A view.

    Raises
    ------
    RuntimeError
        If ``dims`` is not a permutation of the dimensions.
    """
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


def movedim(input: Tensor, source: int | Sequence[int],  # noqa: A002
            destination: int | Sequence[int]) -> Tensor:
    """Move dimensions ``source`` to positions ``destination`` (``torch.movedim``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    source : int or sequence of int
        The dimensions moved.
    destination : int or sequence of int
        Their positions in the result.

    Returns
    -------
    Tensor
        A view.

    Raises
    ------
    RuntimeError
        For repeated dimensions or lengths that differ.
    """
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


def expand(input: Tensor, *sizes: int | SizeLike) -> Tensor:  # noqa: A002
    """Broadcast to ``sizes`` without copying (``Tensor.expand``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    *sizes : int or sequence of int
        The new shape, as ints or one sequence; -1 keeps a dimension.

    Returns
    -------
    Tensor
        A view (stride 0 along the expanded dimensions).

    Raises
    ------
    RuntimeError
        For sizes that do not match the non-singleton dimensions.
    """
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
    return _view_op(input, S.broadcast_to_p, {"shape": tuple(shape)}, _ExpandBackward0)


def expand_as(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """``expand(input, other.shape)`` (``Tensor.expand_as``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    other : Tensor
        The tensor whose shape is taken.

    Returns
    -------
    Tensor
        A view.
    """
    return expand(input, other._data.shape)


def broadcast_to(input: Tensor, shape: SizeLike) -> Tensor:  # noqa: A002
    """``expand(input, shape)`` (``torch.broadcast_to``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    shape : sequence of int
        The new shape.

    Returns
    -------
    Tensor
        A view.
    """
    return expand(input, shape)


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """The tensors broadcast to their common shape (``torch.broadcast_tensors``).

    Parameters
    ----------
    *tensors : Tensor
        The tensors.

    Returns
    -------
    tuple of Tensor
        Views of the broadcast shape.
    """
    shape = np.broadcast_shapes(*(t._data.shape for t in tensors))
    return tuple(expand(t, shape) for t in tensors)


def _repeat_fn(x: Any, repeats: tuple[int, ...]) -> Any:
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


def repeat(input: Tensor, *sizes: int | SizeLike) -> Tensor:  # noqa: A002
    """Tile ``input`` ``sizes`` times along each dimension (``Tensor.repeat``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    *sizes : int or sequence of int
        The repetitions, as ints or one sequence (leading dimensions are added).

    Returns
    -------
    Tensor
        A new tensor.

    Raises
    ------
    RuntimeError
        For fewer repetitions than dimensions.
    """
    d = input._data
    reps = _shape_arg(sizes)
    if len(reps) < d.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    return _compose(_RepeatBackward0, _repeat_fn, [input], [d], {"repeats": reps}, mask=0)
