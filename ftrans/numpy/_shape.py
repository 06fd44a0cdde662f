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
from collections.abc import Callable, Sequence
from typing import Any, Literal, SupportsIndex, cast, overload

import numpy as np

from ..core import Tracer
from ..core.dtypes import kind_of as _kind_of
from . import _funcs as F
from ..typing import Array, ArrayLike, Axis
from ._quantiles import median as _median
from ._split import (split, array_split, hsplit, vsplit, dsplit, unstack,  # noqa: F401
                     tril, triu, diag, diagonal, diagflat, append, delete, compress, extract,
                     concat, permute_dims, matrix_transpose)
from ._args import P

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "dstack", "column_stack",
           "broadcast_arrays", "meshgrid", "pad", "tile", "repeat", "flip", "fliplr", "flipud",
           "roll", "rot90", "split", "array_split", "hsplit", "vsplit", "dsplit", "unstack",
           "tril", "triu", "diag", "diagonal", "diagflat", "append", "delete", "compress",
           "extract", "concat", "permute_dims", "matrix_transpose"]

_nd = F._ndarray


def _one_or_tuple(res: list[Array]) -> Array | tuple[Array, ...]:
    return res[0] if len(res) == 1 else tuple(res)


@overload   # one input: an array; several: a tuple of arrays (NumPy's stubs)
def atleast_1d(arys: ArrayLike, /) -> Array: ...
@overload
def atleast_1d(*arys: ArrayLike) -> tuple[Array, ...]: ...


def atleast_1d(*arys: ArrayLike) -> Array | tuple[Array, ...]:
    """Convert inputs to arrays of at least one dimension.

    Parameters
    ----------
    *arys : array_like
        One or more arrays.

    Returns
    -------
    Array or tuple of Array
        0-d inputs reshaped to ``(1,)``, others unchanged; one array
        for one input, else a tuple.

    Notes
    -----
    Differentiable (linear).
    """
    return _one_or_tuple([F.atleast_1d(a) for a in arys])


@overload   # one input: an array; several: a tuple of arrays (NumPy's stubs)
def atleast_2d(arys: ArrayLike, /) -> Array: ...
@overload
def atleast_2d(*arys: ArrayLike) -> tuple[Array, ...]: ...


def atleast_2d(*arys: ArrayLike) -> Array | tuple[Array, ...]:
    """Convert inputs to arrays of at least two dimensions.

    Parameters
    ----------
    *arys : array_like
        One or more arrays.

    Returns
    -------
    Array or tuple of Array
        ``(N,)`` becomes ``(1, N)``, 0-d ``(1, 1)``; one array for one
        input, else a tuple.

    Notes
    -----
    Differentiable (linear).
    """
    return _one_or_tuple([F.atleast_2d(a) for a in arys])


def _atleast_3d(a: ArrayLike) -> Array:
    a = _nd(a)
    if a.ndim == 0:
        return P.reshape(a, (1, 1, 1))
    if a.ndim == 1:
        return P.reshape(a, (1, a.shape[0], 1))
    if a.ndim == 2:
        return P.reshape(a, tuple(a.shape) + (1,))
    return a


@overload   # one input: an array; several: a tuple of arrays (NumPy's stubs)
def atleast_3d(arys: ArrayLike, /) -> Array: ...
@overload
def atleast_3d(*arys: ArrayLike) -> tuple[Array, ...]: ...


def atleast_3d(*arys: ArrayLike) -> Array | tuple[Array, ...]:
    """Convert inputs to arrays of at least three dimensions.

    Parameters
    ----------
    *arys : array_like
        One or more arrays.

    Returns
    -------
    Array or tuple of Array
        0-d becomes ``(1, 1, 1)``, ``(N,)`` ``(1, N, 1)``, ``(M, N)``
        ``(M, N, 1)``; one array for one input, else a tuple.

    Notes
    -----
    Differentiable (linear).
    """
    return _one_or_tuple([_atleast_3d(a) for a in arys])


def dstack(tup: Sequence[ArrayLike]) -> Array:
    """Stack arrays along the third axis (after ``atleast_3d``).

    Parameters
    ----------
    tup : sequence of array_like
        Arrays of equal shape except along axis 2.

    Returns
    -------
    Array
        At least 3-D.

    Notes
    -----
    Differentiable (linear).
    """
    return F.concatenate([_atleast_3d(a) for a in tup], axis=2)


def column_stack(tup: Sequence[ArrayLike]) -> Array:
    """Stack 1-D arrays as columns of a 2-D array (2-D arrays as they are).

    Parameters
    ----------
    tup : sequence of array_like
        Arrays with equal first dimensions.

    Returns
    -------
    Array
        2-D, the inputs joined along axis 1.

    Notes
    -----
    Differentiable (linear).
    """
    arrs = []
    for a in tup:
        a = _nd(a)
        arrs.append(P.reshape(a, (a.shape[0], 1)) if a.ndim < 2 and a.ndim == 1 else
                    (P.reshape(a, (1, 1)) if a.ndim == 0 else a))
    return F.concatenate(arrs, axis=1)


def broadcast_arrays(*args: ArrayLike) -> tuple[Array, ...]:
    """Broadcast arrays against each other.

    Parameters
    ----------
    *args : array_like
        The arrays.

    Returns
    -------
    tuple of Array
        Each argument broadcast to the common shape.

    Raises
    ------
    ValueError
        If the shapes are not compatible.

    Notes
    -----
    Differentiable; each cotangent is summed over its broadcast axes.
    """
    arrs = [_nd(a) for a in args]
    shape = np.broadcast_shapes(*[tuple(a.shape) for a in arrs])
    return tuple(P.broadcast_to(a, shape) for a in arrs)


def meshgrid(*xi: ArrayLike, copy: bool = True, sparse: bool = False,
             indexing: str = "xy") -> tuple[Array, ...]:
    """Coordinate matrices from coordinate vectors.

    Parameters
    ----------
    *xi : array_like
        1-D coordinate arrays (each is raveled).
    copy : bool, optional
        Accepted for NumPy compatibility (results are always new arrays).
    sparse : bool, optional
        Return broadcastable arrays with size-1 axes instead of full grids.
    indexing : {'xy', 'ij'}, optional
        Cartesian (``'xy'``, first two axes swapped) or matrix
        (``'ij'``) indexing.

    Returns
    -------
    tuple of Array
        One grid per input, of shape ``(N2, N1, N3, ...)`` for ``'xy'`` and
        ``(N1, N2, N3, ...)`` for ``'ij'``.

    Raises
    ------
    ValueError
        For an unknown ``indexing``.

    Notes
    -----
    Differentiable in the coordinates (the VJP of each output sums over the broadcast
    axes).
    """
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
def _as_pairs(x: Any, ndim: int, as_index: bool = False,
              name: str = "pad_width") -> Any:
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


def _traced_pairs(x: Any, ndim: int, dtype: Any) -> Any:
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


def _block(value: Any, shape: Sequence[int], dtype: Any) -> Array:
    value = value if isinstance(value, Tracer) or np.asarray(value).dtype == dtype \
        else np.asarray(value, dtype)
    return P.broadcast_to(value, tuple(shape))


_PadMode = Literal["constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum",
                   "reflect", "symmetric", "wrap", "empty"]


def _line_map(n: int, before: int, after: int, mode: _PadMode, **kw: Any) -> Any:
    """The (n + before + after, n) matrix of NumPy's padding of one line along an axis
    (padding is linear in the line for these modes), computed by padding the identity."""
    eye = np.eye(n)
    return np.pad(eye, ((before, after), (0, 0)), mode=mode, **kw)


def _apply_line_map(a: Any, ax: int, m: Any) -> Array:
    """``a`` with the matrix ``m`` (new_n, n) applied along axis ``ax``."""
    if np.all((m == 0) | (m == 1)) and np.all(m.sum(axis=1) == 1):
        # a selection matrix (edge, wrap, reflect/symmetric even): a gather
        idx = np.argmax(m, axis=1)
        return P.gather(a, (slice(None),) * ax + (idx,))
    out = P.dot_general(a, np.asarray(m, a.dtype), (((ax,), (1,)), ((), ())))
    return P.transpose(out, tuple(range(ax)) + (a.ndim - 1,) + tuple(range(ax, a.ndim - 1)))


_PAD_MODES = ("constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum",
              "reflect", "symmetric", "wrap", "empty")


def pad(array: ArrayLike, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Array:
    """Pad an array.

    Modes: 'constant' (``constant_values``, which may be traced), 'edge', 'linear_ramp'
    (``end_values``, may be traced), 'maximum', 'minimum', 'mean', 'median'
    (``stat_length``), 'reflect' and 'symmetric' (``reflect_type`` 'even' or 'odd'), 'wrap'
    and 'empty' (zeros here).  Axes are padded one after another as NumPy does, so corners
    match NumPy's.

    Parameters
    ----------
    array : array_like
        The array to pad.
    pad_width : int or sequence
        Widths ``((before_1, after_1), ..., (before_N, after_N))``;
        ``(before, after)``, ``(width,)`` or an int apply to every axis.  Concrete.
    mode : str, optional
        One of the modes above.
    **kwargs : Any
        ``constant_values``, ``end_values``, ``stat_length``, ``reflect_type`` as
        NumPy's.

    Returns
    -------
    Array
        ``array`` padded: each axis grows by ``before + after``.

    Raises
    ------
    TypeError
        Non-integral ``pad_width``; a callable ``mode`` (not supported).
    ValueError
        Negative pad widths, an unknown mode or keyword, or padding an empty axis with
        a mode other than 'constant'/'empty'.

    Notes
    -----
    Every mode but the statistics ones is linear in ``array`` (an index map, or for 'odd'
    reflections and ramps a fixed matrix along the axis); 'maximum' and 'minimum' split
    ties evenly, 'median' follows the sort.
    """
    if callable(mode):
        raise TypeError("ftrans.numpy.pad: a callable mode is not supported")
    if mode not in _PAD_MODES:
        raise ValueError(f"mode '{mode}' is not supported")
    kind = cast(_PadMode, mode)  # (one of _PAD_MODES: checked above)
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
        return np.pad(a, widths, mode=kind, **kwargs)  # integers: nothing to differentiate
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
                a = _apply_line_map(a, ax, _line_map(a.shape[ax], b, e, kind, **kw))
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
    stats: dict[str, Callable[..., Array]] = {"maximum": F.max, "minimum": F.min,
                                              "mean": F.mean, "median": _median}
    stat = stats[mode]
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
def tile(A: ArrayLike, reps: int | Sequence[int]) -> Array:
    """Repeat an array the given number of times per axis.

    Parameters
    ----------
    A : array_like
        Input array.
    reps : int or sequence of int
        Repetitions per axis (concrete); leading axes are added
        to ``A`` or ``reps`` as NumPy does.

    Returns
    -------
    Array
        ``A`` tiled.

    Raises
    ------
    ValueError
        For negative repetitions.

    Notes
    -----
    Differentiable (a broadcast and a reshape; the VJP sums the copies).
    """
    a = _nd(A)
    # (not a tuple, list or ndarray: an int, which operator.index checks)
    rp = (operator.index(cast(SupportsIndex, reps)),) \
        if not isinstance(reps, (tuple, list, np.ndarray)) \
        else tuple(operator.index(r) for r in reps)
    d = len(rp)
    if d < a.ndim:
        rp = (1,) * (a.ndim - d) + rp
    if a.ndim < len(rp):
        a = P.reshape(a, (1,) * (len(rp) - a.ndim) + tuple(a.shape))
    if builtins.any(r < 0 for r in rp):
        raise ValueError("negative dimensions are not allowed")
    inter, big = [], []
    for r, s in zip(rp, a.shape):
        inter += [1, s]
        big += [r, s]
    x = P.reshape(a, tuple(inter))
    x = P.broadcast_to(x, tuple(big))
    return P.reshape(x, tuple(r * s for r, s in zip(rp, a.shape)))


def repeat(a: ArrayLike, repeats: int | ArrayLike, axis: int | None = None) -> Array:
    """Repeat each element of an array.

    Parameters
    ----------
    a : array_like
        Input array.
    repeats : int or array_like of int
        Repetitions: one count, or one per element along
        ``axis`` (concrete).
    axis : int, optional
        The axis; the flattened array by default.

    Returns
    -------
    Array
        ``a`` with its elements repeated along ``axis``.

    Raises
    ------
    TypeError
        Traced ``repeats`` (the result shape would depend on traced values).
    ValueError
        Negative counts, or a count array of the wrong length.

    Notes
    -----
    Differentiable (a gather; the VJP sums the copies).
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
def flip(m: ArrayLike, axis: Axis = None) -> Array:
    """Reverse the order of elements along the given axes.

    Parameters
    ----------
    m : array_like
        Input array.
    axis : int or tuple of int, optional
        Axes to reverse; all by default.

    Returns
    -------
    Array
        Same shape as ``m``.

    Notes
    -----
    Differentiable (linear).
    """
    m = _nd(m)
    axes = F._axes(axis, m.ndim)
    if not axes:
        return m
    idx = tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(m.ndim))
    return P.gather(m, idx)


def fliplr(m: ArrayLike) -> Array:
    """Reverse the order of the columns (axis 1).

    Parameters
    ----------
    m : array_like
        Input array, at least 2-D.

    Returns
    -------
    Array
        Same shape as ``m``.

    Raises
    ------
    ValueError
        If ``m`` has fewer than 2 dimensions.

    Notes
    -----
    Differentiable (linear).
    """
    m = _nd(m)
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip(m, 1)


def flipud(m: ArrayLike) -> Array:
    """Reverse the order of the rows (axis 0).

    Parameters
    ----------
    m : array_like
        Input array, at least 1-D.

    Returns
    -------
    Array
        Same shape as ``m``.

    Raises
    ------
    ValueError
        If ``m`` is 0-d.

    Notes
    -----
    Differentiable (linear).
    """
    m = _nd(m)
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return flip(m, 0)


def roll(a: ArrayLike, shift: int | Sequence[int], axis: Axis = None) -> Array:
    """Shift elements cyclically along the given axes.

    Parameters
    ----------
    a : array_like
        Input array.
    shift : int or sequence of int
        Number of places to shift (broadcast with ``axis``).
    axis : int or tuple of int, optional
        Axes to roll along; the flattened array by default
        (the shape is restored).

    Returns
    -------
    Array
        Same shape as ``a``.

    Notes
    -----
    Differentiable (linear).
    """
    a = _nd(a)
    if axis is None:
        return P.reshape(roll(F.ravel(a), shift, 0), tuple(a.shape))
    shifts = np.broadcast_arrays(np.asarray(shift), np.asarray(axis))
    total: dict[int, int] = {}
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


def rot90(m: ArrayLike, k: int = 1, axes: Sequence[int] = (0, 1)) -> Array:
    """Rotate an array by 90 degrees in the plane of two axes.

    Parameters
    ----------
    m : array_like
        Input array, at least 2-D.
    k : int, optional
        Number of rotations (from the first axis towards the second).
    axes : sequence of two ints, optional
        The plane of rotation.

    Returns
    -------
    Array
        The rotated array.

    Raises
    ------
    ValueError
        If ``axes`` are not two different valid axes.

    Notes
    -----
    Differentiable (linear).
    """
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
