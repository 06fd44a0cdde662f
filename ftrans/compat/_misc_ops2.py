"""compat operations: construction and shape helpers (atleast_*d, block_diag, meshgrid,
cartesian_prod, combinations, diag_embed, diagflat, the splits, roll, rot90, tile,
trapezoid, gradient, tril/triu_indices, unravel_index, finfo/iinfo ...).

Installed through :mod:`._misc_ops` (its ``__all__`` and ``METHODS`` include these).
Each operation either adapts one ``ftrans.numpy``/``ftrans.scipy`` function with
:func:`ftrans.compat._opbase._compose` (one node, backward by ``ftrans.vjp``) or is the
composition of compat views PyTorch itself records (``meshgrid`` -> expand, the splits ->
slices).
"""
from __future__ import annotations

import builtins
import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import _dtype as D
from . import _ops as O
from ._tensor import Tensor, Size, _dim, _make_plain
from .autograd._composite import composite_class
from .. import numpy as _fnp
from ..scipy import linalg as _sla
from ._opbase import _compose, _promote_datas, _tname
from ._misc_ops3 import (_t, _new_empty_strided, tril_indices, triu_indices,  # noqa: F401
                         unravel_index, trapezoid, trapz, cumulative_trapezoid, gradient,
                         scalar_tensor, fill, empty_permuted, empty_strided, finfo, iinfo)

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes",
           "cartesian_prod", "combinations", "column_stack", "dstack", "row_stack",
           "diag_embed", "diagflat", "tensor_split", "hsplit", "vsplit", "dsplit", "fliplr",
           "flipud", "meshgrid", "roll", "rot90", "tile", "ravel", "tril_indices",
           "triu_indices", "unravel_index", "trapezoid", "trapz", "cumulative_trapezoid",
           "gradient", "scalar_tensor", "fill", "empty_permuted", "empty_strided",
           "split_with_sizes", "unsafe_chunk", "unsafe_split", "finfo", "iinfo"]

_pysum = builtins.sum


def _seq(tensors: Any, fname: str) -> Any:
    """The tensors of a variadic call or of one list/tuple argument."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return list(tensors[0]), True
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"{fname}(): expected Tensor as element {tensors.index(t)}, but got "
                            f"{type(t).__name__}")
    return list(tensors), False


# =============================================================================== atleast_*d
def _atleast(n: Any, t: Any) -> Any:
    d = t._data
    if d.ndim >= n:
        return t
    if n == 3 and d.ndim == 2:
        return O.unsqueeze(t, -1)
    if n == 3 and d.ndim == 1:
        return O.unsqueeze(O.unsqueeze(t, 0), -1)
    return O.reshape(t, (1,) * (n - d.ndim) + d.shape)


def _atleast_nd(n: int) -> Callable[..., Any]:
    def f(*tensors: Tensor | Sequence[Tensor]) -> Tensor | tuple[Tensor, ...]:
        ts, as_list = _seq(tensors, f"atleast_{n}d")
        out = tuple(_atleast(n, _t(t)) for t in ts)
        return out if as_list or len(out) != 1 else out[0]
    f.__name__ = f"atleast_{n}d"
    f.__doc__ = f"""Views with at least {n} dimensions (``torch.atleast_{n}d``).

    Parameters
    ----------
    *tensors : Tensor or sequence of Tensor
        One tensor, several, or one list/tuple of tensors.

    Returns
    -------
    Tensor or tuple of Tensor
        One tensor for one tensor argument; a tuple otherwise.
    """
    return f


atleast_1d, atleast_2d, atleast_3d = _atleast_nd(1), _atleast_nd(2), _atleast_nd(3)


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """Tensors stacked as columns (``torch.column_stack``).

    0-d and 1-d tensors become columns, then ``hstack``.

    Parameters
    ----------
    tensors : sequence of Tensor
        The tensors.

    Returns
    -------
    Tensor
        The concatenation along dimension 1.
    """
    O._nonempty(tensors, "column_stack")
    ts = [_t(t) for t in tensors]
    ts = [O.reshape(t, (t._data.size, 1)) if t._data.ndim <= 1 else t for t in ts]
    return O.cat(ts, 1)


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    """Concatenation along the third dimension, ``atleast_3d`` first (``torch.dstack``).

    Parameters
    ----------
    tensors : sequence of Tensor
        The tensors.

    Returns
    -------
    Tensor
        At least 3-d.
    """
    O._nonempty(tensors, "dstack")
    return O.cat([_atleast(3, _t(t)) for t in tensors], 2)


def row_stack(tensors: Sequence[Tensor]) -> Tensor:
    """Tensors stacked as rows (``torch.row_stack``, alias of ``vstack``).

    Parameters
    ----------
    tensors : sequence of Tensor
        The tensors.

    Returns
    -------
    Tensor
        The concatenation along dimension 0 (``atleast_2d`` first).
    """
    return O.vstack(tensors)


# =============================================================================== block_diag ...
_BlockDiagBackward0 = composite_class("BlockDiagBackward0", ())


def _block_diag_fn(*xs: Any) -> Any:
    return _sla.block_diag(*xs)


def block_diag(*tensors: Tensor) -> Tensor:
    """A block-diagonal matrix (``torch.block_diag``).

    Parameters
    ----------
    *tensors : Tensor
        0-d, 1-d (a row) or 2-d blocks; dtypes promoted.

    Returns
    -------
    Tensor
        2-d: the blocks along the diagonal, zeros elsewhere.

    Raises
    ------
    RuntimeError
        If a tensor has more than 2 dimensions.
    """
    ts = [_t(t, "tensors") for t in tensors]
    if not ts:
        return _make_plain(np.zeros((1, 0), D.get_default_dtype().np))
    for i, t in enumerate(ts):
        if t._data.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {i} has {t._data.ndim} dimensions")
    r = _promote_datas(ts)
    datas = [np.atleast_2d(t._data if t._data.dtype == r else t._data.astype(r)) if t._data.ndim
             < 2 else (t._data if t._data.dtype == r else t._data.astype(r)) for t in ts]
    if r.kind in "iub":
        return _make_plain(np.asarray(_block_diag_np(datas, r)))
    ts = [O.reshape(t, d.shape) if t._data.ndim < 2 else t for t, d in zip(ts, datas)]
    return _compose(_BlockDiagBackward0, _block_diag_fn, ts, datas, mask=0)


def _block_diag_np(datas: Any, r: Any) -> Any:
    out = np.zeros((_pysum(d.shape[0] for d in datas), _pysum(d.shape[1] for d in datas)), r)
    i = j = 0
    for d in datas:
        out[i:i + d.shape[0], j:j + d.shape[1]] = d
        i += d.shape[0]
        j += d.shape[1]
    return out


def broadcast_shapes(*shapes: int | Sequence[int]) -> Size:
    """The broadcast shape of the given shapes (``torch.broadcast_shapes``).

    Parameters
    ----------
    *shapes : int or sequence of int
        The shapes (an int is a 1-d shape).

    Returns
    -------
    Size
        The broadcast shape.

    Raises
    ------
    RuntimeError
        If the shapes do not broadcast.
    """
    norm = []
    for s in shapes:
        if isinstance(s, (int, np.integer)):
            s = (int(s),)
        elif not isinstance(s, (tuple, list, Size)):
            raise TypeError(f"Input shapes should be of type ints, a tuple of ints, or a list of "
                            f"ints, got {s!r}")
        for k in s:
            if not isinstance(k, (int, np.integer)):
                raise TypeError(f"Input shapes should be of type ints, a tuple of ints, or a list "
                                f"of ints, got {s!r}")
            if k < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
        norm.append(tuple(int(k) for k in s))
    try:
        return Size(np.broadcast_shapes(*norm))
    except ValueError:
        raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape: "
                           f"{norm}") from None


def meshgrid(*tensors: Tensor | Sequence[Tensor],
             indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids of 0-d/1-d tensors (``torch.meshgrid``).

    Parameters
    ----------
    *tensors : Tensor or sequence of Tensor
        The coordinates (several tensors or one list of them).
    indexing : {"ij", "xy"}, optional
        Matrix (default, with PyTorch's warning when omitted) or Cartesian indexing.

    Returns
    -------
    tuple of Tensor
        Expanded views, each of the grid's shape.
    """
    ts, _ = _seq(tensors, "meshgrid")
    ts = [_t(t, "tensors") for t in ts]
    if indexing is None:
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: '
                           f"{indexing}")
    if not ts:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in ts:
        if t._data.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t}")
        if t._data.dtype != ts[0]._data.dtype:
            raise RuntimeError("torch.meshgrid: Expected all tensors in the tensor list to have "
                               "the same dtype.")
    ts = [O.reshape(t, (-1,)) if t._data.ndim == 0 else t for t in ts]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t._data.shape[0] for t in ts)
    n = len(ts)
    outs = [O.expand(O.reshape(t, tuple(-1 if j == i else 1 for j in range(n))), shape)
            for i, t in enumerate(ts)]
    if swap:
        outs[0], outs[1] = outs[1], outs[0]
    return tuple(outs)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """The Cartesian product of 1-d tensors (``torch.cartesian_prod``).

    Parameters
    ----------
    *tensors : Tensor
        1-d tensors.

    Returns
    -------
    Tensor
        ``(N, len(tensors))`` rows of all combinations (one tensor: itself).
    """
    ts = [_t(t, "tensors") for t in tensors]
    for t in ts:
        if t._data.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._data.shape)}")
    if len(ts) == 1:
        return ts[0]
    grids = meshgrid(*ts, indexing="ij")
    return O.stack([O.flatten(g) for g in grids], 1)


def combinations(input: Tensor, r: int = 2,  # noqa: A002
                 with_replacement: bool = False) -> Tensor:
    """The length-``r`` combinations of a 1-d tensor, as rows (``torch.combinations``).

    Parameters
    ----------
    input : Tensor
        1-d.
    r : int, optional
        The combination length.
    with_replacement : bool, optional
        Allow repeated elements.

    Returns
    -------
    Tensor
        ``(N, r)`` in ``itertools.combinations`` order.
    """
    x = _t(input)
    if x._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(x._data.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _make_plain(np.zeros((0,), x._data.dtype))
    n = x._data.shape[0]
    gen = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    idx = np.array(list(gen(range(n), r)), dtype=np.int64).reshape(-1, r)
    cols = [O.index_select(x, 0, _make_plain(idx[:, k].copy())) for k in range(r)]
    return O.stack(cols, 1)


# =============================================================================== diagonals
def _diag_embed_fn(x: Any, offset: Any, dim1: Any, dim2: Any) -> Any:
    n = x.shape[-1] + abs(offset)
    mask = np.eye(n, k=offset, dtype=bool)
    # row i (offset >= 0) or column j (offset < 0) of the plane holds x[..., i] (x[..., j])
    idx_src = np.clip(np.arange(n), 0, max(x.shape[-1] - 1, 0))
    rows = _fnp.take(x, idx_src, axis=-1)
    rows = rows[..., :, None] if offset >= 0 else rows[..., None, :]
    m = _fnp.where(mask, rows, x.dtype.type(0))
    nd = m.ndim
    d1, d2 = dim1 % nd, dim2 % nd
    rest = [i for i in range(nd - 2)]
    perm = [0] * nd
    others = iter(rest)
    for i in range(nd):
        if i == d1:
            perm[i] = nd - 2
        elif i == d2:
            perm[i] = nd - 1
        else:
            perm[i] = next(others)
    return _fnp.transpose(m, perm)


_DiagEmbedBackward0 = composite_class("DiagEmbedBackward0", ("self",))


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2,  # noqa: A002
               dim2: int = -1) -> Tensor:
    """The last dimension of ``input`` put on diagonals of a new tensor (``torch.diag_embed``).

    Parameters
    ----------
    input : Tensor
        The diagonals (last dimension).
    offset : int, optional
        Which diagonal: 0 the main one, positive above it.
    dim1, dim2 : int, optional
        The planes' dimensions in the result.

    Returns
    -------
    Tensor
        One dimension more than ``input``; zeros off the diagonal.
    """
    x = _t(input)
    d = x._data
    nd = d.ndim + 1
    a1, a2 = _dim(dim1, nd), _dim(dim2, nd)
    if a1 == a2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if d.ndim == 0:
        x = O.reshape(x, (1,))
        d = x._data
    offset = int(offset)
    if d.dtype.kind in "iub":
        out = np.asarray(_diag_embed_fn(d.astype(np.float64), offset, a1, a2)).astype(d.dtype)
        return _make_plain(out)
    return _compose(_DiagEmbedBackward0, _diag_embed_fn, [x], [d],
                    {"offset": offset, "dim1": a1, "dim2": a2}, mask=0)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:  # noqa: A002
    """The flattened ``input`` on a diagonal of a matrix (``torch.diagflat``).

    Parameters
    ----------
    input : Tensor
        The values.
    offset : int, optional
        Which diagonal: 0 the main one, positive above it.

    Returns
    -------
    Tensor
        2-d.
    """
    return diag_embed(O.reshape(_t(input), (-1,)), offset, 0, 1)


# =============================================================================== splits
def _split_points(n: Any, sections: Any) -> Any:
    q, r = divmod(n, sections)
    pts, s = [], 0
    for i in range(sections - 1):
        s += q + (1 if i < r else 0)
        pts.append(s)
    return pts


def tensor_split(input: Tensor, indices_or_sections: int | Sequence[int] | Tensor,  # noqa: A002
                 dim: int = 0) -> tuple[Tensor, ...]:
    """Views of ``input`` split along ``dim`` (``torch.tensor_split``).

    Parameters
    ----------
    input : Tensor
        The input.
    indices_or_sections : int or sequence of int or Tensor
        ``n`` nearly equal parts (an int or 0-d tensor), or the split indices.
    dim : int, optional
        The dimension split.

    Returns
    -------
    tuple of Tensor
        The views.
    """
    x = _t(input)
    d = x._data
    if d.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    ax = _dim(dim, d.ndim)
    n = d.shape[ax]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        if ios._data.dtype.kind not in "iu":
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype "
                               f"of long, but got {_tname(ios._data.dtype)}")
        if ios._data.ndim > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a "
                               f"zero-dimensional or one-dimensional tensor, but got a tensor "
                               f"with {ios._data.ndim} dims")
        ios = int(ios._data) if ios._data.ndim == 0 else [int(v) for v in ios._data]
    if isinstance(ios, (int, np.integer)) and not isinstance(ios, bool):
        if ios <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {ios}")
        pts = _split_points(n, int(ios))
    elif isinstance(ios, (list, tuple)) and all(isinstance(v, (int, np.integer)) for v in ios):
        pts = [int(v) for v in ios]
    else:
        raise TypeError(f"tensor_split() received an invalid combination of arguments: "
                        f"indices_or_sections must be an int, a sequence of ints or a Tensor, "
                        f"got {type(ios).__name__}")
    out, start = [], 0
    for p in pts + [n]:
        p = p + n if p < 0 else p
        p = min(max(p, 0), n)
        s = min(start, n)
        out.append(O.narrow(x, ax, s, max(p - s, 0)))
        start = max(start, p)
    return tuple(out)


def _dir_split(name: str, ax: int, mind: int) -> Callable[..., tuple[Tensor, ...]]:
    def f(input: Tensor,  # noqa: A002
          indices_or_sections: int | Sequence[int] | Tensor) -> tuple[Tensor, ...]:
        x = _t(input)
        nd = x._data.ndim
        if nd < mind:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {mind} dimension, "
                               f"but got a tensor with {nd} dimensions!")
        a = 1 if name == "hsplit" and nd > 1 else ax
        if isinstance(indices_or_sections, (int, np.integer)):
            n = x._data.shape[a]
            if indices_or_sections == 0 or n % indices_or_sections:
                raise RuntimeError(f"torch.{name} attempted to split along dimension {a}, but "
                                   f"the size of the dimension {n} is not divisible by the split"
                                   f"_size {indices_or_sections}!")
        return tensor_split(x, indices_or_sections, a)
    f.__name__ = name
    f.__doc__ = f"""``tensor_split`` along dimension {ax} (``torch.{name}``).

    Parameters
    ----------
    input : Tensor
        At least {mind}-d{" (``hsplit`` of a 1-d tensor splits dimension 0, else 1)"
                          if name == "hsplit" else ""}.
    indices_or_sections : int or sequence of int or Tensor
        A number of equal parts (must divide the size), or the split indices.

    Returns
    -------
    tuple of Tensor
        Views of ``input``.

    Raises
    ------
    RuntimeError
        If ``input`` has too few dimensions or the size is not divisible.
    """
    return f


hsplit = _dir_split("hsplit", 0, 1)
vsplit = _dir_split("vsplit", 0, 2)
dsplit = _dir_split("dsplit", 2, 3)


def split_with_sizes(input: Tensor, split_sizes: Sequence[int],  # noqa: A002
                     dim: int = 0) -> tuple[Tensor, ...]:
    """Views of the given sizes along ``dim`` (``torch.split_with_sizes``).

    Parameters
    ----------
    input : Tensor
        The input.
    split_sizes : sequence of int
        The sizes (summing to ``dim``'s size).
    dim : int, optional
        The dimension split.

    Returns
    -------
    tuple of Tensor
        The views.
    """
    x = _t(input)
    ax = _dim(dim, x._data.ndim)
    sizes = [int(s) for s in split_sizes]
    n = x._data.shape[ax]
    if _pysum(sizes) != n or any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
                           f"tensor's size at dimension {ax}), but got split_sizes={sizes}")
    return O.split(x, sizes, ax)


def unsafe_split(input: Tensor, split_size: int | Sequence[int],  # noqa: A002
                 dim: int = 0) -> tuple[Tensor, ...]:
    """``split`` (``torch.unsafe_split``; compat's views are always safe).

    Parameters
    ----------
    input : Tensor
        The input.
    split_size : int or sequence of int
        The size of each part, or the sizes.
    dim : int, optional
        The dimension split.

    Returns
    -------
    tuple of Tensor
        The views.
    """
    return O.split(_t(input), split_size, dim)


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:  # noqa: A002
    """``chunk`` (``torch.unsafe_chunk``).

    Parameters
    ----------
    input : Tensor
        The input.
    chunks : int
        The number of chunks (positive).
    dim : int, optional
        The dimension split.

    Returns
    -------
    tuple of Tensor
        The views.

    Raises
    ------
    RuntimeError
        If ``chunks`` is not positive.
    """
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    return O.chunk(_t(input), chunks, dim)


# =============================================================================== flips, roll ...
def fliplr(input: Tensor) -> Tensor:  # noqa: A002
    """Dimension 1 reversed (``torch.fliplr``).

    Parameters
    ----------
    input : Tensor
        At least 2-d.

    Returns
    -------
    Tensor
        Same shape.

    Raises
    ------
    RuntimeError
        If ``input`` has fewer than 2 dimensions.
    """
    x = _t(input)
    if x._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return O.flip(x, (1,))


def flipud(input: Tensor) -> Tensor:  # noqa: A002
    """Dimension 0 reversed (``torch.flipud``).

    Parameters
    ----------
    input : Tensor
        At least 1-d.

    Returns
    -------
    Tensor
        Same shape.

    Raises
    ------
    RuntimeError
        If ``input`` is 0-d.
    """
    x = _t(input)
    if x._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return O.flip(x, (0,))


_RollBackward0 = composite_class("RollBackward0", ("self",))
_Rot90Backward0 = composite_class("Rot90Backward0", ("self",))
_RepeatBackward0 = composite_class("RepeatBackward0", ("self",))


def _roll_fn(x: Any, shifts: Any, axes: Any) -> Any:
    if axes is None:
        return _fnp.reshape(_fnp.roll(_fnp.reshape(x, (-1,)), shifts), x.shape)
    return _fnp.roll(x, shifts, axes)


def roll(input: Tensor, shifts: int | Sequence[int],  # noqa: A002
         dims: int | Sequence[int] | None = None) -> Tensor:
    """Elements shifted cyclically along ``dims`` (``torch.roll``).

    Parameters
    ----------
    input : Tensor
        The input.
    shifts : int or sequence of int
        The shifts, one per dimension of ``dims``.
    dims : int or sequence of int, optional
        The dimensions (default: the flattened tensor, reshaped back).

    Returns
    -------
    Tensor
        Same shape.
    """
    x = _t(input)
    d = x._data
    sh = tuple(int(s) for s in shifts) if isinstance(shifts, (tuple, list)) else \
        (int(shifts),)  # type: ignore[arg-type]  # (an int here)
    if dims is None or (isinstance(dims, (tuple, list)) and len(dims) == 0):
        if len(sh) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:0")
        params: dict[str, Any] = {"shifts": sh[0], "axes": None}
    else:
        dm = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
        if len(dm) != len(sh):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:"
                               f"{len(dm)}")
        params = {"shifts": sh, "axes": tuple(_dim(a, d.ndim) for a in dm)}
    return _compose(_RollBackward0, _roll_fn, [x], [d], params, mask=0)


def rot90(input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:  # noqa: A002
    """Rotation by ``k`` quarter turns in the plane ``dims`` (``torch.rot90``).

    Parameters
    ----------
    input : Tensor
        At least 2-d.
    k : int, optional
        The number of turns (from the first dimension toward the second).
    dims : sequence of int, optional
        The two dimensions of the plane.

    Returns
    -------
    Tensor
        The rotated tensor.
    """
    x = _t(input)
    d = x._data
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if d.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {d.ndim}")
    a, b = _dim(dims[0], d.ndim), _dim(dims[1], d.ndim)
    if a == b:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {a} and "
                           f"dim1 = {b}")
    return _compose(_Rot90Backward0, _fnp.rot90, [x], [d], {"k": int(k) % 4, "axes": (a, b)},
                    mask=0)


def _tile_fn(x: Any, reps: Any) -> Any:
    return _fnp.tile(x, reps)


def tile(input: Tensor, dims: int | Sequence[int]) -> Tensor:  # noqa: A002
    """``input`` repeated ``dims`` times along each dimension (``torch.tile``).

    Parameters
    ----------
    input : Tensor
        The input.
    dims : int or sequence of int
        The repetitions (leading ones are added to the shorter of ``dims`` and the shape).

    Returns
    -------
    Tensor
        Each dimension multiplied.
    """
    x = _t(input)
    reps = tuple(int(r) for r in dims) if isinstance(dims, (tuple, list, Size)) else \
        (int(dims),)  # type: ignore[arg-type]  # (an int here)
    for r in reps:
        if r < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {r}: "
                               f"{list(reps)}")
    nd = x._data.ndim
    reps = (1,) * (nd - len(reps)) + reps
    if len(reps) > nd:
        x = O.reshape(x, (1,) * (len(reps) - nd) + x._data.shape)
    return O.repeat(x, reps)


def ravel(input: Tensor) -> Tensor:  # noqa: A002
    """The flattened tensor, a view when possible (``torch.ravel``).

    Parameters
    ----------
    input : Tensor
        The input.

    Returns
    -------
    Tensor
        1-d.
    """
    return O.reshape(_t(input), (-1,))


METHODS: dict = {
    "roll": roll, "rot90": rot90, "tile": tile, "ravel": ravel, "fliplr": fliplr,
    "flipud": flipud, "diag_embed": diag_embed, "diagflat": diagflat,
    "tensor_split": tensor_split, "hsplit": hsplit, "vsplit": vsplit, "dsplit": dsplit,
    "split_with_sizes": split_with_sizes, "unsafe_split": unsafe_split,
    "unsafe_chunk": unsafe_chunk, "new_empty_strided": _new_empty_strided,
}
