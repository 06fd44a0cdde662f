"""compat operations: indexing (``x[idx]``, ``select``, ``narrow``, ``split``, ``gather``
...), ``flip``, ``tril``/``triu``, diagonals and the ``real``/``imag`` views; clamp and
masked_fill are in :mod:`._clamp_ops`, views and reshapes in :mod:`._view_ops`."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._tensor import (Tensor, _make_plain, _mark_view, _dim)
from .autograd.graph import node_class
from .autograd._composite import composite_class
from .. import primitives as P
from ..primitives import indexing as I
from ..core.trace import Tracer as _Tracer
from . import _tracer_values as _TV

from ._opbase import (SAVE_NONE, _any_traced, _compose, _kk, _pyabs, _pymax, _pymin, _pysum,
    _record)
from ._complex_ops import view_as_real
from ._reductions import (_dims, _size_attr, sum as _sum)
from ._view_ops import (_UnsqueezeBackward0, _basic_index, _empty_dims,
    _view_op, movedim, reshape)
from ._view_ops import (expand, permute, squeeze, t, transpose,  # noqa: F401  (compat.
    unsqueeze, view)                                           # _index_ops2 reads them here)
from .types import TensorOrNumber


# indexing ------------------------------------------------------------------------------
_SelectBackward0 = node_class("SelectBackward0", ("self",), params=_size_attr)
_SliceBackward0 = node_class("SliceBackward0", ("self",), params=_size_attr)
_IndexBackward0 = node_class("IndexBackward0", ("self", "indices"), edge_idx=(0,),
                             params=_size_attr)
_AliasBackward0 = node_class("AliasBackward0", ("self",))
_IndexSelectBackward0 = node_class("IndexSelectBackward0", ("self", "index"), edge_idx=(0,))
_GatherBackward0 = node_class("GatherBackward0", ("self", "index"), edge_idx=(0,))
_FlipBackward0 = node_class("FlipBackward0", ("self",))


def _convert_index(idx: Any) -> Any:
    """A NumPy index from a PyTorch one (tensors become arrays or ints)."""
    if isinstance(idx, tuple):
        return tuple(_convert_index1(i) for i in idx)
    return _convert_index1(idx)


def _convert_index1(i: Any) -> Any:
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


def _index_class(template: tuple[Any, ...], arrays: Sequence[Any]) -> Any:
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


def getitem(input: Tensor, idx: Any) -> Tensor:  # noqa: A002
    """``input[idx]`` (``Tensor.__getitem__``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    idx : Any
        An index: ints, slices, None, Ellipsis, integer or bool tensors and lists.

    Returns
    -------
    Tensor
        Basic indexing gives a view, advanced indexing a copy.

    Raises
    ------
    IndexError
        For an index out of range or a tensor index of another dtype.
    """
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


def _index_put_fn(x: Any, mask: Any, v: Any, *arrays: Any, template: tuple[Any, ...],
                  shape: tuple[int, ...]) -> Any:
    """``x`` with ``v`` (broadcast to the indexed ``shape``) written at the index: the
    composition whose derivative ``index_put`` has (duplicate indices: the forward keeps
    NumPy's last write, see :func:`_index_put`)."""
    if v.dtype != x.dtype:
        v = P.convert_element_type(v, x.dtype)
    v = P.broadcast_to(v, shape)
    return P.where(mask, I.scatter_add_p.bind(v, *arrays, template=template, shape=x.shape), x)


_IndexPutBackward0 = composite_class("IndexPutBackward0", ("self", "mask", "values"),
                                     edge_idx=(0, 2))


def _index_put(input: Tensor, template: tuple[Any, ...], arrays: Sequence[Any],  # noqa: A002
               value: TensorOrNumber) -> Tensor:
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


def select(input: Tensor, dim: int, index: int) -> Tensor:  # noqa: A002
    """``input`` at ``index`` along ``dim``, which is removed (``torch.select``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    dim : int
        The dimension.
    index : int
        The position (negative: from the end).

    Returns
    -------
    Tensor
        A view with one dimension fewer.

    Raises
    ------
    IndexError
        For ``index`` out of range.
    """
    d = input._data
    ax = _dim(dim, d.ndim)
    n = d.shape[ax]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(d.shape)} at dimension {ax}")
    template = (slice(None),) * ax + (int(index) % n,)
    params = {"template": template}
    return _view_op(input, I.gather_p, params, _SelectBackward0)


def narrow(input: Tensor, dim: int, start: int | Tensor, length: int) -> Tensor:  # noqa: A002
    """The slice ``start:start + length`` along ``dim`` (``torch.narrow``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    dim : int
        The dimension.
    start : int or Tensor
        The first position (negative: from the end; a 0-d integer tensor).
    length : int
        The number of positions.

    Returns
    -------
    Tensor
        A view.

    Raises
    ------
    RuntimeError
        For a 0-d ``input``, a negative ``length`` or a slice past the end.
    IndexError
        For ``start`` out of range.
    """
    d = input._data
    if d.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    ax = _dim(dim, d.ndim)
    n = d.shape[ax]
    if isinstance(start, Tensor):
        if start.dim() != 0 or start._data.dtype.kind not in "iu":
            raise RuntimeError("start must be an 0-dim integral Tensor.")
    s: Any = start.item() if isinstance(start, Tensor) else start
    start = int(s)
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


def split(tensor: Tensor, split_size_or_sections: int | Sequence[int],
          dim: int = 0) -> tuple[Tensor, ...]:
    """Split into pieces along ``dim`` (``torch.split``).

    Parameters
    ----------
    tensor : Tensor
        The input tensor.
    split_size_or_sections : int or sequence of int
        The size of each piece (the last may be smaller), or the sizes of the pieces.
    dim : int, default 0
        The dimension.

    Returns
    -------
    tuple of Tensor
        Views.

    Raises
    ------
    RuntimeError
        For sizes that do not sum to the dimension's size.
    """
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


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """Split into at most ``chunks`` equal pieces along ``dim`` (``torch.chunk``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    chunks : int
        The number of pieces.
    dim : int, default 0
        The dimension.

    Returns
    -------
    tuple of Tensor
        Views, of size ``ceil(n / chunks)`` but the last.
    """
    n = input._data.shape[_dim(dim, input._data.ndim)]
    s = -(-n // chunks) if chunks > 0 else n
    return split(input, _pymax(s, 1), dim)


def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """The slices along ``dim``, which is removed (``torch.unbind``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    dim : int, default 0
        The dimension.

    Returns
    -------
    tuple of Tensor
        Views.
    """
    d = input._data
    ax = _dim(dim, d.ndim)
    return tuple(select(input, ax, i) for i in range(d.shape[ax]))


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:  # noqa: A002
    """The entries at ``index`` along ``dim`` (``torch.index_select``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    dim : int
        The dimension.
    index : Tensor
        A 1-d (or 0-d) integer tensor of positions.

    Returns
    -------
    Tensor
        A copy; dimension ``dim`` has ``index``'s length.
    """
    d = input._data
    ax = _dim(dim, d.ndim)
    if d.ndim == 0:   # a 0-d tensor: as a 1-element vector, the result 0-d again
        return reshape(index_select(reshape(input, (1,)), 0, index), ())
    ix = index._data if isinstance(index, Tensor) else index
    ix = P.reshape(ix, (ix.size,)) if isinstance(ix, _Tracer) else np.asarray(ix).reshape(-1)
    template = (slice(None),) * ax + (I._Slot(0),)
    out = _kk(I.gather_p, d, ix)(d, ix, template=template)
    return _record(_IndexSelectBackward0, I.gather_p, {"template": template}, [input, ix],
                   [d, ix], out, (2, False))


def gather(input: Tensor, dim: int, index: Tensor) -> Tensor:  # noqa: A002
    """Values along ``dim`` at ``index`` (``torch.gather``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    dim : int
        The dimension.
    index : Tensor
        An int64 tensor of ``input``'s number of dimensions.

    Returns
    -------
    Tensor
        ``index``'s shape: ``out[i][j] = input[index[i][j]][j]`` for ``dim=0``.

    Raises
    ------
    RuntimeError
        For an index of another number of dimensions, larger sizes than ``input``'s
        (but along ``dim``) or values out of range.
    """
    d = input._data
    ax = _dim(dim, d.ndim)
    ix = index._data if isinstance(index, Tensor) else np.asarray(index)
    _check_gather(d, ax, ix)
    if d.ndim == 0 and isinstance(index, Tensor):   # as 1-element vectors; index's shape
        return reshape(gather(reshape(input, (1,)), dim, reshape(index, (-1,))),
                       tuple(ix.shape))
    grids: list[Any] = list(np.indices(ix.shape, sparse=True))
    grids[ax] = ix
    arrays = tuple(g if isinstance(g, _Tracer) else np.asarray(g) for g in grids)
    template = tuple(I._Slot(k) for k in range(len(arrays)))
    out = _kk(I.gather_p, d, *arrays)(d, *arrays, template=template)
    return _record(_GatherBackward0, I.gather_p, {"template": template}, [input, *arrays],
                   [d, *arrays], out, ((1 << (len(arrays) + 1)) - 2, False))


def _check_gather(d: Any, ax: int, ix: Any) -> None:
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


def flip(input: Tensor, dims: int | Sequence[int]) -> Tensor:  # noqa: A002
    """Reverse the order along ``dims`` (``torch.flip``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    dims : int or sequence of int
        The dimensions reversed.

    Returns
    -------
    Tensor
        A copy, as in PyTorch.
    """
    d = input._data
    axes = () if _empty_dims(dims) else _dims(dims, d.ndim)
    template = tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(d.ndim))
    out = (np.ascontiguousarray(d[template]) if type(d) is np.ndarray
           else I.gather_p.bind(d, template=template))   # a Tracer (compat.func)
    return _record(_FlipBackward0, I.gather_p, {"template": template}, [input], [d], out,
                   SAVE_NONE)


def _tri_fn(x: Any, mask: Any) -> Any:
    return P.where(mask, x, x.dtype.type(0))


_TrilBackward0 = composite_class("TrilBackward0", ("self", "mask"), edge_idx=(0,))
_TriuBackward0 = composite_class("TriuBackward0", ("self", "mask"), edge_idx=(0,))


def _check_matrix(d: Any) -> None:
    if d.ndim < 2:
        raise RuntimeError("tril/triu: input tensor must have at least 2 dimensions")


def tril(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: A002
    """The lower triangle of the matrices (``torch.tril``).

    Parameters
    ----------
    input : Tensor
        A matrix or a batch of matrices (the last two dimensions).
    diagonal : int, default 0
        Keep the elements on and below this diagonal (positive: above the main one).

    Returns
    -------
    Tensor
        Same shape; zeros elsewhere.

    Raises
    ------
    RuntimeError
        Below 2 dimensions.
    """
    d = input._data
    _check_matrix(d)
    mask = np.tril(np.ones(d.shape[-2:], bool), diagonal)
    return _compose(_TrilBackward0, _tri_fn, [input, mask], [d, mask], mask=0)


def triu(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: A002
    """The upper triangle of the matrices (``torch.triu``).

    Parameters
    ----------
    input : Tensor
        A matrix or a batch of matrices (the last two dimensions).
    diagonal : int, default 0
        Keep the elements on and above this diagonal (positive: above the main one).

    Returns
    -------
    Tensor
        Same shape; zeros elsewhere.

    Raises
    ------
    RuntimeError
        Below 2 dimensions.
    """
    d = input._data
    _check_matrix(d)
    mask = np.triu(np.ones(d.shape[-2:], bool), diagonal)
    return _compose(_TriuBackward0, _tri_fn, [input, mask], [d, mask], mask=0)


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:  # noqa: A002
    """The diagonal of the matrices of ``dim1`` and ``dim2`` (``torch.diagonal``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    offset : int, default 0
        The diagonal (positive: above the main one).
    dim1, dim2 : int
        The matrix dimensions (0 and 1 by default).

    Returns
    -------
    Tensor
        The diagonals as the last dimension (a copy here, a view in PyTorch).
    """
    d = input._data
    a, b = _dim(dim1, d.ndim), _dim(dim2, d.ndim)
    n = _pymin(d.shape[a] - _pymax(-offset, 0), d.shape[b] - _pymax(offset, 0))
    n = _pymax(n, 0)
    r = np.arange(n)
    ia, ib = r + _pymax(-offset, 0), r + _pymax(offset, 0)
    x = movedim(input, (a, b), (-2, -1)) if (a, b) != (d.ndim - 2, d.ndim - 1) else input
    return getitem(x, (Ellipsis, ia, ib))


def diag(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: A002
    """A diagonal of a matrix, or a matrix with a vector on a diagonal (``torch.diag``).

    Parameters
    ----------
    input : Tensor
        A vector or a matrix.
    diagonal : int, default 0
        The diagonal (positive: above the main one).

    Returns
    -------
    Tensor
        1-d for a matrix, 2-d for a vector.

    Raises
    ------
    RuntimeError
        For other numbers of dimensions.
    """
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


def trace(input: Tensor) -> Tensor:  # noqa: A002
    """The sum of the main diagonal of a matrix (``torch.trace``).

    Parameters
    ----------
    input : Tensor
        A matrix.

    Returns
    -------
    Tensor
        0-d.

    Raises
    ------
    RuntimeError
        For a tensor that is not a matrix.
    """
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    return _sum(diagonal(input))   # (the builtin sum gave the int 0 for a 0x0 matrix)


def real(input: Tensor) -> Tensor:  # noqa: A002
    """The real part as a view (``torch.real``, ``Tensor.real``).

    As in PyTorch it is ``view_as_real(input)[..., 0]`` (``SelectBackward0`` on top of
    ``ViewAsRealBackward0``): writes go through to ``input``, and the gradient ``g``
    (real) reaches ``input`` as the complex ``g + 0j`` (the C -> R rule).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        A real view; ``input`` itself if it is real.
    """
    x = input
    if x._data.dtype.kind != "c":
        return x
    return select(view_as_real(x), -1, 0)


def imag(input: Tensor) -> Tensor:  # noqa: A002
    """The imaginary part as a view (``torch.imag``, ``Tensor.imag``).

    ``view_as_real(input)[..., 1]``: the gradient ``g`` reaches ``input`` as ``1j * g``.

    Parameters
    ----------
    input : Tensor
        A complex tensor.

    Returns
    -------
    Tensor
        A real view.

    Raises
    ------
    RuntimeError
        For a real tensor.
    """
    x = input
    if x._data.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return select(view_as_real(x), -1, 1)


