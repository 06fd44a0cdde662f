"""Shape and structure functions of ``ftrans.numpy``: padding, tiling, repeating,
flipping, rolling, splitting, stacking, triangles and diagonals.

All of them are *linear* in their array arguments (``pad`` with the ``maximum``,
``minimum`` and ``median`` modes excepted) and are written with the ``gather``,
``scatter_add``, ``concatenate``, ``reshape``, ``transpose``, ``broadcast_to`` and
``select`` primitives, so their derivatives are the transposed index maps (a gather's
VJP scatter-adds, a broadcast's sums) and they batch under ``vmap``.  Index maps,
masks and split points are computed with NumPy from the static shapes; arguments that
determine a shape (``repeats``, ``pad_width``, ``indices_or_sections`` ...) must be
concrete.  Signatures, defaults, result shapes and error types follow NumPy 2.
"""
from __future__ import annotations

import builtins
import operator

import numpy as np

from ..core import Tracer
from ..core.dtypes import kind_of as _kind_of
from .. import primitives as P
from . import _funcs as F
from ._reductions import median as _median

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "dstack", "column_stack",
           "broadcast_arrays", "meshgrid", "pad", "tile", "repeat", "flip", "fliplr", "flipud",
           "roll", "rot90", "split", "array_split", "hsplit", "vsplit", "dsplit", "unstack",
           "tril", "triu", "diag", "diagonal", "diagflat", "append", "delete", "compress",
           "extract", "concat", "permute_dims", "matrix_transpose"]

_nd = F._ndarray


def _one_or_tuple(res):
    return res[0] if len(res) == 1 else tuple(res)


def atleast_1d(*arys):
    """``numpy.atleast_1d``: 0-d inputs become shape (1,); one array in, one out."""
    return _one_or_tuple([F.atleast_1d(a) for a in arys])


def atleast_2d(*arys):
    """``numpy.atleast_2d``: (N,) -> (1, N), 0-d -> (1, 1)."""
    return _one_or_tuple([F.atleast_2d(a) for a in arys])


def _atleast_3d(a):
    a = _nd(a)
    if a.ndim == 0:
        return P.reshape(a, (1, 1, 1))
    if a.ndim == 1:
        return P.reshape(a, (1, a.shape[0], 1))
    if a.ndim == 2:
        return P.reshape(a, tuple(a.shape) + (1,))
    return a


def atleast_3d(*arys):
    """``numpy.atleast_3d``: 0-d -> (1, 1, 1), (N,) -> (1, N, 1), (M, N) -> (M, N, 1)."""
    return _one_or_tuple([_atleast_3d(a) for a in arys])


def dstack(tup):
    """Stack along the third axis (after ``atleast_3d``)."""
    return F.concatenate([_atleast_3d(a) for a in tup], axis=2)


def column_stack(tup):
    """Stack 1-d arrays as columns (2-d arrays as they are) along axis 1."""
    arrs = []
    for a in tup:
        a = _nd(a)
        arrs.append(P.reshape(a, (a.shape[0], 1)) if a.ndim < 2 and a.ndim == 1 else
                    (P.reshape(a, (1, 1)) if a.ndim == 0 else a))
    return F.concatenate(arrs, axis=1)


def broadcast_arrays(*args):
    """``numpy.broadcast_arrays``: a tuple of the arguments broadcast to one shape."""
    arrs = [_nd(a) for a in args]
    shape = np.broadcast_shapes(*[tuple(a.shape) for a in arrs])
    return tuple(P.broadcast_to(a, shape) for a in arrs)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """``numpy.meshgrid`` of 1-d coordinate arrays (each is raveled), differentiable in
    them (the VJP of each output sums over the broadcast axes)."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    xs = [F.ravel(x) for x in xi]
    nd = len(xs)
    out = []
    for i, x in enumerate(xs):
        s = [1] * nd
        s[i] = x.shape[0]
        if indexing == "xy" and nd > 1 and i < 2:
            s[0], s[1] = s[1], s[0]
        out.append(P.reshape(x, tuple(s)))
    if not sparse:
        shape = np.broadcast_shapes(*[tuple(o.shape) for o in out])
        out = [P.broadcast_to(o, shape) for o in out]
    return tuple(out)


# ---------------------------------------------------------------------------------
# pad
# ---------------------------------------------------------------------------------
def _as_pairs(x, ndim, as_index=False, name="pad_width"):
    """NumPy's ``_as_pairs``: broadcast a scalar / (n,) / (before, after) / per-axis pairs
    spec to ``ndim`` (before, after) pairs."""
    if x is None:
        return ((None, None),) * ndim
    arr = np.asarray(x)
    if as_index:
        if _kind_of(arr) not in "iu":
            raise TypeError(f"`{name}` must be of integral type.")
        arr = arr.astype(np.intp)
        if arr.size and arr.min() < 0:
            raise ValueError("index can't contain negative values")
    try:
        pairs = np.broadcast_to(arr, (ndim, 2))
    except ValueError:
        raise ValueError(f"operands could not be broadcast together with remapped shapes "
                         f"[original->remapped]: {arr.shape} and requested shape ({ndim},2)"
                         ) from None
    return tuple((p[0].item(), p[1].item()) for p in pairs)


def _traced_pairs(x, ndim, dtype):
    """Per-axis (before, after) values that may be traced (constant_values,
    end_values): a tuple of pairs of 0-d arrays or tracers, cast to ``dtype``."""
    if isinstance(x, Tracer) or (isinstance(x, (list, tuple)) and
                                 any(isinstance(o, Tracer) for o in F._flat(x))):
        v = F.asarray(x)
        v = P.broadcast_to(v if v.ndim else P.reshape(v, (1,)), (ndim, 2)) if v.ndim < 2 \
            else P.broadcast_to(v, (ndim, 2))
        v = v if v.dtype == dtype else P.convert_element_type(v, dtype)
        return tuple((P.gather(v, (i, 0)), P.gather(v, (i, 1))) for i in range(ndim))
    pairs = np.broadcast_to(np.asarray(x), (ndim, 2))
    return tuple((np.asarray(p[0], dtype), np.asarray(p[1], dtype)) for p in pairs)


def _block(value, shape, dtype):
    value = value if isinstance(value, Tracer) or np.asarray(value).dtype == dtype \
        else np.asarray(value, dtype)
    return P.broadcast_to(value, tuple(shape))


def _line_map(n, before, after, mode, **kw):
    """The (n + before + after, n) matrix of NumPy's padding of one line along an axis
    (padding is linear in the line for these modes), computed by padding the identity."""
    eye = np.eye(n)
    return np.pad(eye, ((before, after), (0, 0)), mode=mode, **kw)


def _apply_line_map(a, ax, m):
    """``a`` with the matrix ``m`` (new_n, n) applied along axis ``ax``."""
    if np.all((m == 0) | (m == 1)) and np.all(m.sum(axis=1) == 1):
        # a selection matrix (edge, wrap, reflect/symmetric even): a gather
        idx = np.argmax(m, axis=1)
        return P.gather(a, (slice(None),) * ax + (idx,))
    out = P.dot_general(a, np.asarray(m, a.dtype), (((ax,), (1,)), ((), ())))
    return P.transpose(out, tuple(range(ax)) + (a.ndim - 1,) + tuple(range(ax, a.ndim - 1)))


_PAD_MODES = ("constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum",
              "reflect", "symmetric", "wrap", "empty")


def pad(array, pad_width, mode="constant", **kwargs):
    """``numpy.pad`` with the modes 'constant' (``constant_values``, which may be
    traced), 'edge', 'linear_ramp' (``end_values``, may be traced), 'maximum',
    'minimum', 'mean', 'median' (``stat_length``), 'reflect' and 'symmetric'
    (``reflect_type`` 'even' or 'odd'), 'wrap' and 'empty' (zeros here).  Axes are
    padded one after another as NumPy does, so corners match NumPy's.

    Derivatives: every mode but the statistics ones is linear in ``array`` (an index
    map, or for 'odd' reflections and ramps a fixed matrix along the axis); 'maximum'
    and 'minimum' split ties evenly, 'median' follows the sort.

    Raises
    ------
    TypeError
        Non-integral ``pad_width``; a callable ``mode`` (not supported).
    ValueError
        Negative pad widths, an unknown mode or keyword, or padding an empty axis with a
        mode other than 'constant'/'empty'.
    """
    if callable(mode):
        raise TypeError("ftrans.numpy.pad: a callable mode is not supported")
    if mode not in _PAD_MODES:
        raise ValueError(f"mode '{mode}' is not supported")
    allowed = {"constant": {"constant_values"}, "linear_ramp": {"end_values"},
               "maximum": {"stat_length"}, "mean": {"stat_length"},
               "median": {"stat_length"}, "minimum": {"stat_length"},
               "reflect": {"reflect_type"}, "symmetric": {"reflect_type"}}.get(mode, set())
    unsupported = set(kwargs) - allowed
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    a = _nd(array)
    nd = a.ndim
    widths = _as_pairs(pad_width, nd, as_index=True)
    if not isinstance(a, Tracer) and _kind_of(a) not in "fc" and \
            not any(isinstance(v, Tracer) for v in F._flat([kwargs.get(k) for k in kwargs])):
        return np.pad(a, widths, mode=mode, **kwargs)  # integers: nothing to differentiate
    if mode in ("constant", "empty"):
        values = _traced_pairs(kwargs.get("constant_values", 0) if mode == "constant" else 0,
                               nd, a.dtype)
        for ax, ((b, e), (vb, ve)) in enumerate(zip(widths, values)):
            if b == 0 and e == 0:
                continue
            shape = list(a.shape)
            parts = []
            if b:
                shape[ax] = b
                parts.append(_block(vb, shape, a.dtype))
            parts.append(a)
            if e:
                shape[ax] = e
                parts.append(_block(ve, shape, a.dtype))
            a = P.concatenate(parts, ax)
        return a
    for ax, (b, e) in enumerate(widths):
        if (b or e) and a.shape[ax] == 0:
            raise ValueError(f"can't extend empty axis {ax} using modes other than 'constant' "
                             "or 'empty'")
    if mode in ("edge", "reflect", "symmetric", "wrap"):
        kw = {"reflect_type": kwargs.get("reflect_type", "even")} \
            if mode in ("reflect", "symmetric") else {}
        for ax, (b, e) in enumerate(widths):
            if b or e:
                a = _apply_line_map(a, ax, _line_map(a.shape[ax], b, e, mode, **kw))
        return a
    if mode == "linear_ramp":
        ends = _traced_pairs(kwargs.get("end_values", 0), nd, a.dtype)
        for ax, ((b, e), (vb, ve)) in enumerate(zip(widths, ends)):
            if not (b or e):
                continue
            n = a.shape[ax]
            a = _apply_line_map(a, ax, _line_map(n, b, e, "linear_ramp", end_values=0))
            # the end values enter linearly too: their coefficient along the axis
            cb = np.pad(np.zeros(n), (b, e), mode="linear_ramp", end_values=(1, 0))
            ce = np.pad(np.zeros(n), (b, e), mode="linear_ramp", end_values=(0, 1))
            shape = [1] * nd
            shape[ax] = n + b + e
            cb = np.asarray(cb.reshape(shape), a.dtype)
            ce = np.asarray(ce.reshape(shape), a.dtype)
            a = P.add(a, P.add(P.mul(cb, vb), P.mul(ce, ve)))
        return a
    # statistics modes
    lengths = _as_pairs(kwargs.get("stat_length"), nd, as_index=True, name="stat_length") \
        if kwargs.get("stat_length") is not None else ((None, None),) * nd
    stat = {"maximum": F.max, "minimum": F.min, "mean": F.mean, "median": _median}[mode]
    for ax, ((b, e), (lb, le)) in enumerate(zip(widths, lengths)):
        if not (b or e):
            continue
        n = a.shape[ax]
        lb = n if lb is None else builtins.min(lb, n)
        le = n if le is None else builtins.min(le, n)
        if (b and lb == 0) or (e and le == 0):
            raise ValueError("stat_length of 0 yields no value for padding")
        parts = []
        shape = list(a.shape)
        if b:
            s = stat(P.gather(a, (slice(None),) * ax + (slice(0, lb),)), axis=ax, keepdims=True)
            shape[ax] = b
            parts.append(P.broadcast_to(s, tuple(shape)))
        parts.append(a)
        if e:
            s = stat(P.gather(a, (slice(None),) * ax + (slice(n - le, n),)), axis=ax,
                     keepdims=True)
            shape[ax] = e
            parts.append(P.broadcast_to(s, tuple(shape)))
        a = P.concatenate(parts, ax)
    return a


# ---------------------------------------------------------------------------------
# tile, repeat
# ---------------------------------------------------------------------------------
def tile(A, reps):
    """``numpy.tile``: ``A`` repeated ``reps`` times per axis (a broadcast and a
    reshape; the VJP sums the copies)."""
    a = _nd(A)
    reps = (operator.index(reps),) if not isinstance(reps, (tuple, list, np.ndarray)) \
        else tuple(operator.index(r) for r in reps)
    d = len(reps)
    if d < a.ndim:
        reps = (1,) * (a.ndim - d) + reps
    if a.ndim < len(reps):
        a = P.reshape(a, (1,) * (len(reps) - a.ndim) + tuple(a.shape))
    if builtins.any(r < 0 for r in reps):
        raise ValueError("negative dimensions are not allowed")
    inter, big = [], []
    for r, s in zip(reps, a.shape):
        inter += [1, s]
        big += [r, s]
    x = P.reshape(a, tuple(inter))
    x = P.broadcast_to(x, tuple(big))
    return P.reshape(x, tuple(r * s for r, s in zip(reps, a.shape)))


def repeat(a, repeats, axis=None):
    """``numpy.repeat``: each element repeated ``repeats`` times (an int, or a concrete
    integer array with one count per element along ``axis``); ``axis=None`` flattens.

    Raises
    ------
    TypeError
        Traced ``repeats`` (the result shape would depend on traced values).
    ValueError
        Negative counts, or a count array of the wrong length.
    """
    a = _nd(a)
    if axis is None:
        a = F.ravel(a)
        axis = 0
    ax = F._axis(axis, a.ndim)
    if isinstance(repeats, Tracer):
        raise TypeError("repeat: `repeats` must be concrete (the result shape depends on it)")
    r = np.asarray(repeats)
    if _kind_of(r) not in "iub":
        raise TypeError(f"Cannot cast array data from {r.dtype} to int64 according to the rule "
                        "'safe'")
    r = r.astype(np.intp)
    if r.size and r.min() < 0:
        raise ValueError("repeats may not contain negative values.")
    n = a.shape[ax]
    if r.ndim == 0 or r.size == 1:
        k = int(r.reshape(()))
        shape = list(a.shape)
        x = P.expand_dims(a, (ax + 1,))
        x = P.broadcast_to(x, tuple(shape[:ax + 1]) + (k,) + tuple(shape[ax + 1:]))
        shape[ax] = n * k
        return P.reshape(x, tuple(shape))
    if r.ndim != 1 or r.size != n:
        raise ValueError(f"operands could not be broadcast together with shape ({n},) "
                         f"({r.size},)")
    return P.gather(a, (slice(None),) * ax + (np.repeat(np.arange(n), r),))


# ---------------------------------------------------------------------------------
# flip, roll, rot90
# ---------------------------------------------------------------------------------
def flip(m, axis=None):
    """``numpy.flip``: reverse the order of elements along ``axis`` (None: all axes)."""
    m = _nd(m)
    axes = F._axes(axis, m.ndim)
    if not axes:
        return m
    idx = tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(m.ndim))
    return P.gather(m, idx)


def fliplr(m):
    """Reverse the order of the columns (axis 1) of an array of rank >= 2."""
    m = _nd(m)
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip(m, 1)


def flipud(m):
    """Reverse the order of the rows (axis 0) of an array of rank >= 1."""
    m = _nd(m)
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return flip(m, 0)


def roll(a, shift, axis=None):
    """``numpy.roll``: elements shifted along ``axis`` (None: the flattened array),
    wrapping around; ``shift`` and ``axis`` may be tuples (broadcast together)."""
    a = _nd(a)
    if axis is None:
        return P.reshape(roll(F.ravel(a), shift, 0), tuple(a.shape))
    shifts = np.broadcast_arrays(np.asarray(shift), np.asarray(axis))
    total = {}
    for s, ax in zip(shifts[0].reshape(-1), shifts[1].reshape(-1)):
        ax = F._axis(int(ax), a.ndim)
        total[ax] = total.get(ax, 0) + int(s)
    for ax, s in sorted(total.items()):
        n = a.shape[ax]
        if n == 0:
            continue
        s %= n
        if s == 0:
            continue
        pre = (slice(None),) * ax
        a = P.concatenate([P.gather(a, pre + (slice(n - s, n),)),
                           P.gather(a, pre + (slice(0, n - s),))], ax)
    return a


def rot90(m, k=1, axes=(0, 1)):
    """``numpy.rot90``: rotate by 90 degrees ``k`` times in the plane of ``axes``
    (from the first axis towards the second)."""
    m = _nd(m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or builtins.abs(axes[0] - axes[1]) == m.ndim:
        raise ValueError("Axes must be different.")
    if axes[0] >= m.ndim or axes[0] < -m.ndim or axes[1] >= m.ndim or axes[1] < -m.ndim:
        raise ValueError(f"Axes={axes} out of range for array of ndim={m.ndim}.")
    k %= 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, axes[0]), axes[1])
    perm = list(range(m.ndim))
    a0, a1 = axes[0] % m.ndim, axes[1] % m.ndim
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return P.transpose(flip(m, axes[1]), tuple(perm))
    return flip(P.transpose(m, tuple(perm)), axes[1])


# ---------------------------------------------------------------------------------
# split
# ---------------------------------------------------------------------------------
def array_split(ary, indices_or_sections, axis=0):
    """``numpy.array_split``: a list of sub-arrays; an integer ``N`` gives ``N`` parts
    of sizes differing by at most one, a sequence gives the split points."""
    a = _nd(ary)
    ax = F._axis(axis, a.ndim)
    ntotal = a.shape[ax]
    if isinstance(indices_or_sections, Tracer):
        raise TypeError("array_split: the split points must be concrete")
    try:
        nsections = len(indices_or_sections) + 1
        div_points = [0] + [operator.index(i) for i in indices_or_sections] + [ntotal]
    except TypeError:
        nsections = int(indices_or_sections)
        if nsections <= 0:
            raise ValueError("number sections must be larger than 0.") from None
        each, extras = divmod(ntotal, nsections)
        sizes = [0] + extras * [each + 1] + (nsections - extras) * [each]
        div_points = np.cumsum(sizes).tolist()
    pre = (slice(None),) * ax
    return [P.gather(a, pre + (slice(div_points[i], div_points[i + 1]),))
            for i in range(nsections)]


def split(ary, indices_or_sections, axis=0):
    """``numpy.split``: like :func:`array_split` but an integer number of sections must
    divide the axis exactly (else ``ValueError``)."""
    a = _nd(ary)
    if not hasattr(indices_or_sections, "__len__"):
        n = a.shape[F._axis(axis, a.ndim)]
        if int(indices_or_sections) <= 0 or n % int(indices_or_sections):
            raise ValueError("array split does not result in an equal division")
    return array_split(a, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    """Split along axis 1 (axis 0 for 1-d arrays)."""
    a = _nd(ary)
    if a.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(a, indices_or_sections, 1 if a.ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    """Split along axis 0 (arrays of rank >= 2)."""
    a = _nd(ary)
    if a.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(a, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    """Split along axis 2 (arrays of rank >= 3)."""
    a = _nd(ary)
    if a.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(a, indices_or_sections, 2)


def unstack(x, /, *, axis=0):
    """``numpy.unstack``: the tuple of slices of ``x`` along ``axis``."""
    x = _nd(x)
    if x.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    ax = F._axis(axis, x.ndim)
    return tuple(P.gather(x, (slice(None),) * ax + (i,)) for i in range(x.shape[ax]))


# ---------------------------------------------------------------------------------
# triangles and diagonals
# ---------------------------------------------------------------------------------
def _tri_select(m, k, lower):
    m = _nd(m)
    if m.ndim == 0:
        raise ValueError("tril/triu: input must be at least 1-d")
    if m.ndim == 1:
        m = P.broadcast_to(m, (m.shape[0], m.shape[0]))
    rows, cols = m.shape[-2:]
    mask = np.tri(rows, cols, k, dtype=bool) if lower else ~np.tri(rows, cols, k - 1, dtype=bool)
    return P.where(mask, m, np.zeros((), m.dtype))


def tril(m, k=0):
    """Lower triangle of the last two axes (elements above the ``k``-th diagonal zeroed;
    a 1-d input is broadcast to a square matrix first, as in NumPy)."""
    return _tri_select(m, operator.index(k), True)


def triu(m, k=0):
    """Upper triangle of the last two axes (elements below the ``k``-th diagonal
    zeroed)."""
    return _tri_select(m, operator.index(k), False)


def _diag_indices(n1, n2, offset):
    r0, c0 = builtins.max(-offset, 0), builtins.max(offset, 0)
    length = builtins.max(0, builtins.min(n1 - r0, n2 - c0))
    i = np.arange(length)
    return i + r0, i + c0


def diagonal(a, offset=0, axis1=0, axis2=1):
    """``numpy.diagonal``: the ``offset`` diagonal of the (axis1, axis2) planes, as the
    last axis of the result."""
    a = _nd(a)
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    ax1, ax2 = F._axis(axis1, a.ndim), F._axis(axis2, a.ndim)
    if ax1 == ax2:
        raise ValueError("axis1 and axis2 cannot be the same")
    rest = [d for d in range(a.ndim) if d not in (ax1, ax2)]
    a = P.transpose(a, tuple(rest) + (ax1, ax2))
    r, c = _diag_indices(a.shape[-2], a.shape[-1], operator.index(offset))
    return P.gather(a, (Ellipsis, r, c))


def diag(v, k=0):
    """``numpy.diag``: a 1-d ``v`` gives the square matrix with ``v`` on its ``k``-th
    diagonal (a scatter; the VJP gathers the diagonal), a 2-d ``v`` its ``k``-th
    diagonal."""
    v = _nd(v)
    k = operator.index(k)
    if v.ndim == 1:
        n = v.shape[0] + builtins.abs(k)
        r, c = _diag_indices(n, n, k)
        return P.scatter_add(v, (r, c), (n, n))
    if v.ndim == 2:
        return diagonal(v, k)
    raise ValueError("Input must be 1- or 2-d.")


def diagflat(v, k=0):
    """``numpy.diagflat``: the flattened input on the ``k``-th diagonal of a square
    matrix."""
    return diag(F.ravel(v), k)


# ---------------------------------------------------------------------------------
# append, delete, compress, extract; NumPy 2 aliases
# ---------------------------------------------------------------------------------
def append(arr, values, axis=None):
    """``numpy.append``: ``concatenate`` of ``arr`` and ``values`` (both flattened when
    ``axis`` is None)."""
    if axis is None:
        return F.concatenate([F.ravel(arr), F.ravel(values)], 0)
    return F.concatenate([arr, values], axis)


def delete(arr, obj, axis=None):
    """``numpy.delete`` with concrete ``obj`` (int, slice, integer or boolean array): the
    kept elements are gathered (the VJP puts zeros at the deleted positions)."""
    a = _nd(arr)
    if axis is None:
        a = F.ravel(a)
        axis = 0
    ax = F._axis(axis, a.ndim)
    if isinstance(obj, Tracer):
        raise TypeError("delete: `obj` must be concrete (the result shape depends on it)")
    keep = np.delete(np.arange(a.shape[ax]), obj)
    return P.gather(a, (slice(None),) * ax + (keep,))


def compress(condition, a, axis=None, out=None):
    """``numpy.compress`` with a concrete 1-d boolean ``condition``."""
    if out is not None:
        raise ValueError("compress: out= is not supported (ftrans.numpy is functional)")
    if isinstance(condition, Tracer):
        raise TypeError("compress: `condition` must be concrete (the result shape depends on "
                        "it)")
    c = np.asarray(condition)
    if c.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    a = _nd(a)
    if axis is None:
        a = F.ravel(a)
        axis = 0
    ax = F._axis(axis, a.ndim)
    keep = np.flatnonzero(c)
    if keep.size and keep[-1] >= a.shape[ax]:
        raise IndexError(f"index {keep[-1]} is out of bounds for axis {ax} with size "
                         f"{a.shape[ax]}")
    return P.gather(a, (slice(None),) * ax + (keep,))


def extract(condition, arr):
    """``numpy.extract``: the elements of ``ravel(arr)`` where the concrete
    ``ravel(condition)`` is nonzero."""
    if isinstance(condition, Tracer):
        raise TypeError("extract: `condition` must be concrete (the result shape depends on "
                        "it)")
    c = np.asarray(condition).reshape(-1)
    return P.gather(F.ravel(arr), np.flatnonzero(c))


def concat(arrays, /, *, axis=0):
    """``numpy.concat`` (NumPy 2 alias of :func:`concatenate`)."""
    return F.concatenate(arrays, axis=axis)


def permute_dims(a, /, axes=None):
    """``numpy.permute_dims`` (NumPy 2 alias of :func:`transpose`)."""
    return F.transpose(a, axes)


def matrix_transpose(x, /):
    """``numpy.matrix_transpose``: swap the last two axes (rank >= 2)."""
    x = _nd(x)
    if x.ndim < 2:
        raise ValueError("Input array must be at least 2-dimensional")
    return F.swapaxes(x, -1, -2)
