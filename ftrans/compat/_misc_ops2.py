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

import numpy as np

from . import _dtype as D
from . import _ops as O
from . import _factories as F
from ._tensor import Tensor, Size, _dim, _make_plain
from .autograd._composite import composite_class
from .. import numpy as _fnp
from ..scipy import linalg as _sla
from .. import scipy as _fsp   # (ftrans.scipy.integrate loads on first use)
from ._opbase import _compose, _promote_datas, _scalar, _tname
from ._inplace import _overwritten_fn, _fill_fn

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes",
           "cartesian_prod", "combinations", "column_stack", "dstack", "row_stack",
           "diag_embed", "diagflat", "tensor_split", "hsplit", "vsplit", "dsplit", "fliplr",
           "flipud", "meshgrid", "roll", "rot90", "tile", "ravel", "tril_indices",
           "triu_indices", "unravel_index", "trapezoid", "trapz", "cumulative_trapezoid",
           "gradient", "scalar_tensor", "fill", "empty_permuted", "empty_strided",
           "split_with_sizes", "unsafe_chunk", "unsafe_split", "finfo", "iinfo"]

_pysum = builtins.sum


def _t(v, name="input"):
    if isinstance(v, Tensor):
        return v
    raise TypeError(f"{name} must be a Tensor, got {type(v).__name__}")


def _seq(tensors, fname):
    """The tensors of a variadic call or of one list/tuple argument."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return list(tensors[0]), True
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"{fname}(): expected Tensor as element {tensors.index(t)}, but got "
                            f"{type(t).__name__}")
    return list(tensors), False


# =============================================================================== atleast_*d
def _atleast(n, t):
    d = t._data
    if d.ndim >= n:
        return t
    if n == 3 and d.ndim == 2:
        return O.unsqueeze(t, -1)
    if n == 3 and d.ndim == 1:
        return O.unsqueeze(O.unsqueeze(t, 0), -1)
    return O.reshape(t, (1,) * (n - d.ndim) + d.shape)


def _atleast_nd(n):
    def f(*tensors):
        ts, as_list = _seq(tensors, f"atleast_{n}d")
        out = tuple(_atleast(n, _t(t)) for t in ts)
        return out if as_list or len(out) != 1 else out[0]
    f.__name__ = f"atleast_{n}d"
    f.__doc__ = (f"``torch.atleast_{n}d``: views with at least {n} dimensions (one tensor, "
                 "several, or a list/tuple of tensors -> a tuple).")
    return f


atleast_1d, atleast_2d, atleast_3d = _atleast_nd(1), _atleast_nd(2), _atleast_nd(3)


def column_stack(tensors):
    """``torch.column_stack``: 0-d and 1-d tensors become columns, then ``hstack``."""
    O._nonempty(tensors, "column_stack")
    ts = [_t(t) for t in tensors]
    ts = [O.reshape(t, (t._data.size, 1)) if t._data.ndim <= 1 else t for t in ts]
    return O.cat(ts, 1)


def dstack(tensors):
    """``torch.dstack``: concatenation along the third dimension (``atleast_3d`` first)."""
    O._nonempty(tensors, "dstack")
    return O.cat([_atleast(3, _t(t)) for t in tensors], 2)


def row_stack(tensors):
    """``torch.row_stack``: alias of ``vstack``."""
    return O.vstack(tensors)


# =============================================================================== block_diag ...
_BlockDiagBackward0 = composite_class("BlockDiagBackward0", ())


def _block_diag_fn(*xs):
    return _sla.block_diag(*xs)


def block_diag(*tensors):
    """``torch.block_diag``: a block-diagonal matrix of 0-d, 1-d and 2-d tensors (dtypes
    promoted)."""
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


def _block_diag_np(datas, r):
    out = np.zeros((_pysum(d.shape[0] for d in datas), _pysum(d.shape[1] for d in datas)), r)
    i = j = 0
    for d in datas:
        out[i:i + d.shape[0], j:j + d.shape[1]] = d
        i += d.shape[0]
        j += d.shape[1]
    return out


def broadcast_shapes(*shapes):
    """``torch.broadcast_shapes``: the broadcast shape (a ``torch.Size``) of ints and
    sequences of ints; RuntimeError for shapes that do not broadcast."""
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


def meshgrid(*tensors, indexing=None):
    """``torch.meshgrid``: expanded views of 0-d/1-d tensors (``indexing`` 'ij' -- the
    default, with PyTorch's warning when omitted -- or 'xy')."""
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


def cartesian_prod(*tensors):
    """``torch.cartesian_prod``: the rows of all combinations of 1-d tensors (one tensor:
    itself)."""
    ts = [_t(t, "tensors") for t in tensors]
    for t in ts:
        if t._data.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._data.shape)}")
    if len(ts) == 1:
        return ts[0]
    grids = meshgrid(*ts, indexing="ij")
    return O.stack([O.flatten(g) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):  # noqa: A002
    """``torch.combinations``: the length-``r`` combinations of a 1-d tensor, as rows
    (``itertools.combinations`` order)."""
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
def _diag_embed_fn(x, offset, dim1, dim2):
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


def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002
    """``torch.diag_embed``: the last dimension of ``input`` put on the diagonal
    ``offset`` of the planes ``(dim1, dim2)`` of a new tensor."""
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


def diagflat(input, offset=0):  # noqa: A002
    """``torch.diagflat``: the flattened ``input`` on diagonal ``offset`` of a matrix."""
    return diag_embed(O.reshape(_t(input), (-1,)), offset, 0, 1)


# =============================================================================== splits
def _split_points(n, sections):
    q, r = divmod(n, sections)
    pts, s = [], 0
    for i in range(sections - 1):
        s += q + (1 if i < r else 0)
        pts.append(s)
    return pts


def tensor_split(input, indices_or_sections, dim=0):  # noqa: A002
    """``torch.tensor_split``: views of ``input`` split into ``n`` nearly equal parts (an
    int) or at the given indices (a list or a tensor)."""
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


def _dir_split(name, ax, mind):
    def f(input, indices_or_sections):  # noqa: A002
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
    f.__doc__ = f"``torch.{name}``: ``tensor_split`` along dimension {ax}."
    return f


hsplit = _dir_split("hsplit", 0, 1)
vsplit = _dir_split("vsplit", 0, 2)
dsplit = _dir_split("dsplit", 2, 3)


def split_with_sizes(input, split_sizes, dim=0):  # noqa: A002
    """``torch.split_with_sizes``: views of the given sizes along ``dim``."""
    x = _t(input)
    ax = _dim(dim, x._data.ndim)
    sizes = [int(s) for s in split_sizes]
    n = x._data.shape[ax]
    if _pysum(sizes) != n or any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
                           f"tensor's size at dimension {ax}), but got split_sizes={sizes}")
    return O.split(x, sizes, ax)


def unsafe_split(input, split_size, dim=0):  # noqa: A002
    """``torch.unsafe_split``: ``split`` (compat's views are always safe)."""
    return O.split(_t(input), split_size, dim)


def unsafe_chunk(input, chunks, dim=0):  # noqa: A002
    """``torch.unsafe_chunk``: ``chunk``."""
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    return O.chunk(_t(input), chunks, dim)


# =============================================================================== flips, roll ...
def fliplr(input):  # noqa: A002
    """``torch.fliplr``: reverse dimension 1 (at least 2-d)."""
    x = _t(input)
    if x._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return O.flip(x, (1,))


def flipud(input):  # noqa: A002
    """``torch.flipud``: reverse dimension 0 (at least 1-d)."""
    x = _t(input)
    if x._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return O.flip(x, (0,))


_RollBackward0 = composite_class("RollBackward0", ("self",))
_Rot90Backward0 = composite_class("Rot90Backward0", ("self",))
_RepeatBackward0 = composite_class("RepeatBackward0", ("self",))


def _roll_fn(x, shifts, axes):
    if axes is None:
        return _fnp.reshape(_fnp.roll(_fnp.reshape(x, (-1,)), shifts), x.shape)
    return _fnp.roll(x, shifts, axes)


def roll(input, shifts, dims=None):  # noqa: A002
    """``torch.roll``: elements shifted along ``dims`` (the flattened tensor without)."""
    x = _t(input)
    d = x._data
    sh = tuple(int(s) for s in shifts) if isinstance(shifts, (tuple, list)) else (int(shifts),)
    if dims is None or (isinstance(dims, (tuple, list)) and len(dims) == 0):
        if len(sh) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:0")
        params = {"shifts": sh[0], "axes": None}
    else:
        dm = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
        if len(dm) != len(sh):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:"
                               f"{len(dm)}")
        params = {"shifts": sh, "axes": tuple(_dim(a, d.ndim) for a in dm)}
    return _compose(_RollBackward0, _roll_fn, [x], [d], params, mask=0)


def rot90(input, k=1, dims=(0, 1)):  # noqa: A002
    """``torch.rot90``: rotation by ``k`` quarter turns in the plane ``dims``."""
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


def _tile_fn(x, reps):
    return _fnp.tile(x, reps)


def tile(input, dims):  # noqa: A002
    """``torch.tile``: ``input`` repeated ``dims`` times along each dimension (leading ones
    added to the shorter of the two)."""
    x = _t(input)
    reps = tuple(int(r) for r in dims) if isinstance(dims, (tuple, list, Size)) else (int(dims),)
    for r in reps:
        if r < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {r}: "
                               f"{list(reps)}")
    nd = x._data.ndim
    reps = (1,) * (nd - len(reps)) + reps
    if len(reps) > nd:
        x = O.reshape(x, (1,) * (len(reps) - nd) + x._data.shape)
    return O.repeat(x, reps)


def ravel(input):  # noqa: A002
    """``torch.ravel``: the flattened tensor (a view when possible)."""
    return O.reshape(_t(input), (-1,))


# =============================================================================== indices
def _index_dtype(dtype, fname):
    dt = D.int64 if dtype is None else dtype
    if dt not in (D.int64, D.int32):
        raise NotImplementedError(f"\"{fname}\" not implemented for '{dt._tname[:-6]}'")
    return dt.np


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None,
                 pin_memory=False):
    """``torch.tril_indices``: the 2-row index tensor of the lower triangle."""
    r, c = np.tril_indices(int(row), int(offset), int(col))
    return _make_plain(np.stack([r, c]).astype(_index_dtype(dtype, "tril_indices")).reshape(2, -1))


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None,
                 pin_memory=False):
    """``torch.triu_indices``: the 2-row index tensor of the upper triangle."""
    r, c = np.triu_indices(int(row), int(offset), int(col))
    return _make_plain(np.stack([r, c]).astype(_index_dtype(dtype, "triu_indices")).reshape(2, -1))


def unravel_index(indices, shape):
    """``torch.unravel_index``: a tuple of coordinate tensors (int64) for flat
    ``indices`` into ``shape`` (out-of-range and negative indices wrap, as in PyTorch)."""
    if not isinstance(indices, Tensor):
        raise TypeError(f"expected 'indices' to be a Tensor, but got {type(indices).__name__}")
    d = indices._data
    if d.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {_tname(d.dtype)}")
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s)
                                                                             for s in shape)
    for s in shape:
        if s < 0:
            raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if not shape:
        return ()
    coords, rest = [], d.astype(np.int64)
    for s in reversed(shape):   # PyTorch's arithmetic: floor modulo, no range check
        coords.append(np.mod(rest, s) if s else rest * 0)
        rest = np.floor_divide(rest, s) if s else rest * 0
    return tuple(_make_plain(np.asarray(c, np.int64)) for c in reversed(coords))


# =============================================================================== integration
def _trapz_fn(y, x, dx, axis):
    return _fnp.trapezoid(y, x, dx=dx, axis=axis)


def _cumtrapz_fn(y, x, dx, axis):
    return _fsp.integrate.cumulative_trapezoid(y, x, dx=dx, axis=axis)


_MulBackward1 = composite_class("MulBackward1", ("self",))
_TrapzBackward = composite_class("DivBackward1", ("y", "x"))
_CumsumBackward0 = composite_class("CumsumBackward0", ("y", "x"))
_CumtrapzBackward = composite_class("DivBackward1", ("y", "x"))


def _integrate(fn, cls_dx, cls_x, y, x, dx, dim):
    yt = _t(y, "y")
    d = yt._data
    if d.ndim == 0:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got "
                         f"{dim})")
    ax = _dim(dim, d.ndim)
    if x is None or not isinstance(x, Tensor):
        if x is not None:
            dx = x
        dxv = 1 if dx is None else dx
        if isinstance(dxv, Tensor):
            dxv = dxv.item()
        yd = d if d.dtype.kind in "fc" else d.astype(D.get_default_dtype().np)
        return _compose(cls_dx, fn, [yt, None], [yd, None], {"dx": dxv, "axis": ax}, mask=0)
    xd = x._data
    r = _promote_datas([yt, x])
    if r.kind not in "fc":
        r = D.get_default_dtype().np
    yd = d if d.dtype == r else d.astype(r)
    xd = xd if xd.dtype == r else xd.astype(r)
    if xd.ndim == 1 and xd.shape[0] != d.shape[ax]:
        raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
    return _compose(cls_x, fn, [yt, x], [yd, xd], {"dx": 1.0, "axis": ax})


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """``torch.trapezoid``: the trapezoidal rule along ``dim`` (``x``: sample points, a
    tensor, or a uniform spacing; ``dx``: the spacing)."""
    return _integrate(_trapz_fn, _MulBackward1, _TrapzBackward, y, x, dx, dim)


def trapz(y, x=None, *, dx=None, dim=-1):
    """``torch.trapz``: alias of ``trapezoid``."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """``torch.cumulative_trapezoid``: the cumulative trapezoidal rule along ``dim``
    (``n - 1`` values, no initial zero)."""
    return _integrate(_cumtrapz_fn, _CumsumBackward0, _CumtrapzBackward, y, x, dx, dim)


_GradientBackward = composite_class("CatBackward0", ("self",))


def _gradient_fn(f, *coords, axis, spacing, edge_order):
    return _fnp.gradient(f, *(coords if coords else (spacing,)), axis=axis,
                         edge_order=edge_order)


def gradient(input, *, spacing=1, dim=None, edge_order=1):  # noqa: A002
    """``torch.gradient``: NumPy's second-order central differences along each of ``dim``
    (all by default); ``spacing`` a number, a list of numbers or of coordinate tensors."""
    x = _t(input)
    d = x._data
    if dim is None:
        axes = tuple(range(d.ndim))
    elif isinstance(dim, (int, np.integer)):
        axes = (_dim(dim, d.ndim),)
    else:
        axes = tuple(_dim(a, d.ndim) for a in dim)
    if len(set(axes)) != len(axes):
        raise RuntimeError(f"dim {axes[0]} appears multiple times in the list of dims")
    if spacing is None:
        spacing = 1
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if isinstance(spacing, (list, tuple)):
        sp = list(spacing)
        if len(sp) != len(axes):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or "
                               f"it's spacing and dim arguments to have the same length, but "
                               f"got a spacing argument of length {len(sp)} and a dim argument "
                               f"of length {len(axes)}.")
    else:
        sp = [spacing] * len(axes)
    for a in axes:
        if d.shape[a] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    yd = d if d.dtype.kind in "fc" else d.astype(D.get_default_dtype().np)
    outs = []
    for a, s in zip(axes, sp):
        if isinstance(s, Tensor):
            if s._data.ndim == 0:
                s = s.item()
            else:
                cd = s._data.astype(yd.dtype) if s._data.dtype != yd.dtype else s._data
                outs.append(_compose(_GradientBackward, _gradient_fn, [x, s], [yd, cd],
                                     {"axis": a, "spacing": None, "edge_order": edge_order}))
                continue
        outs.append(_compose(_GradientBackward, _gradient_fn, [x], [yd],
                             {"axis": a, "spacing": s, "edge_order": edge_order}, mask=0))
    return tuple(outs)


# =============================================================================== factories
def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False,
                  requires_grad=False):
    """``torch.scalar_tensor``: a 0-d tensor of the default float dtype (or ``dtype``)."""
    if _scalar(s) is None and not isinstance(s, Tensor):
        raise TypeError(f"scalar_tensor(): argument 's' must be Number, not "
                        f"{type(s).__name__}")
    if isinstance(s, complex) and dtype is None:
        dtype = D.complex64 if D.get_default_dtype() is D.float32 else D.complex128
    return F.full((), s.item() if isinstance(s, Tensor) else s,
                  dtype=dtype or D.get_default_dtype(), device=device,
                  requires_grad=requires_grad)


def _strided(size, stride, dtype, device, requires_grad, fname):
    size = tuple(int(s) for s in size)
    stride = tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")
    return F.empty(size, dtype=dtype, device=device, requires_grad=requires_grad)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """``torch.empty_strided``: a tensor of ``size`` (zero-filled; compat's tensors are
    contiguous, ``stride`` is checked and not kept)."""
    return _strided(size, stride, dtype, device, requires_grad, "empty_strided")


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """``torch.empty_permuted``: a tensor of ``size`` (zero-filled; the physical layout
    is checked and not kept)."""
    size = tuple(int(s) for s in size)
    if sorted(int(p) for p in physical_layout) != list(range(len(size))):
        raise RuntimeError(f"Dimension order must be a permutation of 0..{len(size) - 1}, got "
                           f"{list(physical_layout)}")
    return F.empty(size, dtype=dtype, device=device, requires_grad=requires_grad)


def _new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None,
                       requires_grad=False, pin_memory=False):
    """``Tensor.new_empty_strided``: ``empty_strided`` of ``self``'s dtype by default."""
    return _strided(size, stride, dtype or self.dtype, device, requires_grad,
                    "new_empty_strided")


_FillBackward0 = composite_class("FillBackward0", ("self",))
_FillBackward1 = composite_class("FillBackward1", ("self", "value"))


def fill(input, value):  # noqa: A002
    """``torch.fill``: a new tensor of ``input``'s shape and dtype filled with ``value``
    (a number or a 0-d tensor, which gets the gradient)."""
    x = _t(input)
    d = x._data
    if not isinstance(value, Tensor):
        O._check_fill_value(d, value)
        return _compose(_FillBackward0, _overwritten_fn, [x], [d], mask=0,
                        out=np.full_like(d, value))
    if value._data.ndim != 0:
        raise RuntimeError(f"fill only supports 0-dimension value tensor but got tensor with "
                           f"{value._data.ndim} dimensions.")
    v = value._data
    return _compose(_FillBackward1, _fill_fn, [x, value], [d, v], mask=0, out=np.full_like(d, v))


# =============================================================================== finfo / iinfo
def _info_dtype(fname, dt, kinds, what, other):
    """``dt`` checked as PyTorch's ``finfo``/``iinfo`` check their argument (TypeErrors)."""
    if not isinstance(dt, D.dtype):
        raise TypeError(f"{fname}(): argument 'type' (position 1) must be torch.dtype, not "
                        f"{type(dt).__name__}")
    if dt.np.kind == "b" and fname == "iinfo":
        raise TypeError("torch.bool is not supported by torch.iinfo")
    if dt.np.kind not in kinds:
        raise TypeError(f"torch.{fname}() requires {what} input type. Use torch.{other} to "
                        f"handle '{dt}'")
    return dt


class finfo:
    """``torch.finfo``: machine limits of a floating dtype (``bits``, ``eps``, ``max``,
    ``min``, ``tiny``/``smallest_normal``, ``resolution``, ``dtype``) -- of the default
    dtype when called without one."""

    def __init__(self, type=D.get_default_dtype):  # noqa: A002
        dt = D.get_default_dtype() if type is D.get_default_dtype else type
        i = np.finfo(_info_dtype("finfo", dt, "fc", "a floating point", "iinfo").np)
        self.bits = int(i.bits)
        self.eps = float(i.eps)
        self.max = float(i.max)
        self.min = float(i.min)
        self.tiny = self.smallest_normal = float(i.tiny)
        self.resolution = float(i.resolution)
        self.dtype = str(i.dtype)

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """``torch.iinfo``: machine limits of an integer dtype (``bits``, ``max``, ``min``,
    ``dtype``)."""

    def __init__(self, type):  # noqa: A002
        i = np.iinfo(_info_dtype("iinfo", type, "iu", "an integer", "finfo").np)
        self.bits = int(i.bits)
        self.max = int(i.max)
        self.min = int(i.min)
        self.dtype = str(i.dtype)

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


METHODS: dict = {
    "roll": roll, "rot90": rot90, "tile": tile, "ravel": ravel, "fliplr": fliplr,
    "flipud": flipud, "diag_embed": diag_embed, "diagflat": diagflat,
    "tensor_split": tensor_split, "hsplit": hsplit, "vsplit": vsplit, "dsplit": dsplit,
    "split_with_sizes": split_with_sizes, "unsafe_split": unsafe_split,
    "unsafe_chunk": unsafe_chunk, "new_empty_strided": _new_empty_strided,
}
