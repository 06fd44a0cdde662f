"""Windowed reductions (XLA's ReduceWindow): pooling.

``reduce_window_sum(x, window_dimensions, window_strides, padding, base_dilation,
window_dilation)`` sums ``x`` over sliding windows; ``reduce_window_max`` takes their
maximum.  Every parameter has one entry per axis of ``x`` (a pooling layer over the
spatial axes of an ``(N, C, H, W)`` array uses windows ``(1, 1, kh, kw)``):

``window_dimensions``  the window's size along each axis;
``window_strides``     the step between windows;
``padding``            ``(lo, hi)`` pairs added before/after each axis (negative: crop),
                       with 0 for the sum and ``-inf`` for the max;
``base_dilation``      (sum only) ``d - 1`` zeros inserted between the elements of ``x``;
``window_dilation``    the distance between the elements a window reads.

The output length along an axis is ``(L - (w - 1) * wd - 1) // s + 1`` with ``L`` the
dilated and padded length (JAX's ``lax.reduce_window``; PyTorch's pooling layers are
these with ``window_dilation`` as their ``dilation``).

Rules.  The sum is linear; its transpose is again a windowed sum -- of the cotangent,
dilated by the strides and padded as in the input-gradient of a convolution (JAX's
``_reduce_window_sum_transpose_rule``), with strides and base dilation exchanged.
The max routes the tangent from, and the cotangent to, the element where each window
attains its maximum: the *first* one in row-major window order when several tie, as
PyTorch's ``max_pool`` does (``MaxPool2DWithIndicesBackward0`` scatters to the saved
index of the first maximum; a NaN counts as the maximum, propagating as in PyTorch).
That position comes from ``reduce_window_argmax`` (flat index into ``x``; integer
result, no derivative), and the rules are a ``gather`` (JVP) and a ``scatter_add``
(VJP) at those indices, both differentiable and batchable primitives.

On NumPy float arrays with windows over the last two axes (every PyTorch pooling) the
impls are numba kernels (:mod:`ftrans.kernels.window_cpu`).  Otherwise they loop over
the window taps, one elementwise pass per tap over a strided view of the padded input
(a pooling window has a handful of taps; one NumPy reduction over the window axes of a
strided view measured 5-20x slower for 2x2 and 3x3 windows).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core import Primitive, ShapedArray, zero
from ..core.dtypes import kind_of
from ..kernels import backend_for
from ..kernels import window_cpu
from ..kernels.window_cpu import dilate_shape, window_out_shape
from ._rules import move_to_front, numpy_kernel_impl
from .elementwise import div, sub
from .indexing import gather, scatter_add
from .structural import reshape
from ..typing import Array

__all__ = ["reduce_window", "reduce_window_sum", "reduce_window_max", "reduce_window_argmax",
           "dilate_shape", "conv_vjp_lhs_padding"]


# ------------------------------------------------------------------ shared shape helpers
def conv_vjp_lhs_padding(in_shape, window, strides, out_shape, padding, base_dilation,
                         window_dilation):
    """Padding of the transposed windowed operation (JAX's
    ``_conv_general_vjp_lhs_padding``): the cotangent, dilated by ``strides``, padded so
    that the flipped window lands on every input element."""
    lhs_d = dilate_shape(in_shape, base_dilation)
    rhs_d = dilate_shape(window, window_dilation)
    out_d = dilate_shape(out_shape, strides)
    before = [r - lo - 1 for r, (lo, _) in zip(rhs_d, padding)]
    after = [ld + r - 1 - od - b for ld, r, od, b in zip(lhs_d, rhs_d, out_d, before)]
    return tuple(zip(before, after))


def dilate_pad(x, dilation, padding, fill):
    """``x`` with ``d - 1`` copies of ``fill`` between elements and ``(lo, hi)`` padding
    (negative: cropping) per axis.  Concrete arrays only (kernel-level helper)."""
    xp = backend_for(x).xp
    if any(d != 1 for d in dilation):
        y = xp.full(dilate_shape(x.shape, dilation), fill, x.dtype)
        y[tuple(slice(None, None, d) for d in dilation)] = x
        x = y
    if any(lo < 0 or hi < 0 for lo, hi in padding):
        x = x[tuple(slice(max(-lo, 0), max(max(-lo, 0), s - max(-hi, 0)))
                    for (lo, hi), s in zip(padding, x.shape))]
    if any(lo > 0 or hi > 0 for lo, hi in padding):
        # one allocation and one copy (numpy.pad costs ~10x more Python around it)
        shape = tuple(s + max(lo, 0) + max(hi, 0) for s, (lo, hi) in zip(x.shape, padding))
        y = xp.full(shape, fill, x.dtype)
        y[tuple(slice(max(lo, 0), max(lo, 0) + s) for s, (lo, _) in zip(x.shape, padding))] = x
        x = y
    return x


def windows(x, window, strides, window_dilation):
    """Read-only strided view of shape ``out + window``: ``v[o..., w...] =
    x[o * s + w * wd]`` over every axis (``x`` already dilated and padded)."""
    out = window_out_shape(x.shape, window, strides, ((0, 0),) * x.ndim, (1,) * x.ndim,
                           window_dilation)
    st = tuple(xs * s for xs, s in zip(x.strides, strides)) + tuple(
        xs * d for xs, d in zip(x.strides, window_dilation))
    lib = backend_for(x).xp.lib.stride_tricks
    if 0 in out or 0 in x.shape:
        return backend_for(x).xp.zeros(out + tuple(window), x.dtype)
    if lib is np.lib.stride_tricks:
        return lib.as_strided(x, out + tuple(window), st, writeable=False)
    return lib.as_strided(x, out + tuple(window), st)  # (CuPy's has no ``writeable``)


def tap_views(x, window, strides, window_dilation):
    """For each window tap (row-major order) the strided view of ``x`` it reads for
    every output position: ``v_k[o...] = x[o * s + k * wd]``.  A windowed reduction is
    then ``prod(window)`` elementwise passes over output-sized views -- much faster for
    the small windows of pooling than one reduction over the window axes of
    :func:`windows`.  An empty window yields one all-zero view (the sum's identity)."""
    n = x.ndim
    out = window_out_shape(x.shape, window, strides, ((0, 0),) * n, (1,) * n,
                           window_dilation)
    if 0 in window:
        yield backend_for(x).xp.zeros(out, x.dtype)
        return
    for tap in np.ndindex(*window):
        yield x[tuple(slice(t * d, t * d + (o - 1) * s + 1 if o else t * d, s)
                      for t, d, o, s in zip(tap, window_dilation, out, strides))]


def _low(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return -np.inf
    if dtype.kind == "b":
        return False
    return np.iinfo(dtype).min


def _params_abstract(x, window_dimensions, window_strides, padding, base_dilation,
                     window_dilation, dtype=None):
    return ShapedArray(window_out_shape(x.shape, window_dimensions, window_strides, padding,
                                        base_dilation, window_dilation),
                       x.dtype if dtype is None else dtype)


def _batch_params(params):
    """The parameters for an operand with one more (batch) axis in front."""
    out = dict(params)
    for k in ("window_dimensions", "window_strides", "base_dilation", "window_dilation"):
        if k in out:
            out[k] = (1,) + tuple(out[k])
    out["padding"] = ((0, 0),) + tuple(out["padding"])
    return out


# ---------------------------------------------------------------------------- sum
reduce_window_sum_p = Primitive("reduce_window_sum")


@numpy_kernel_impl(reduce_window_sum_p)
def _sum_impl(x, *, window_dimensions, window_strides, padding, base_dilation,
              window_dilation):
    if all(d == 1 for d in base_dilation):
        r = window_cpu.window_sum(x, window_dimensions, window_strides, padding, window_dilation)
        if r is not None:
            return r
    xd = dilate_pad(x, base_dilation, padding, 0)
    taps = tap_views(xd, window_dimensions, window_strides, window_dilation)
    acc = backend_for(x).xp.array(next(taps), copy=True)
    for v in taps:
        acc += v
    return acc


# compiler lowering (ftrans.compiler._numba_conv): loops over the outputs and the window
reduce_window_sum_p.lowering = {"kind": "reduce_window", "op": "sum"}
reduce_window_sum_p.def_abstract_eval(
    lambda x, **p: _params_abstract(x, p["window_dimensions"], p["window_strides"],
                                    p["padding"], p["base_dilation"], p["window_dilation"]))


@reduce_window_sum_p.def_jvp
def _sum_jvp(primals, tangents, **params):
    ans = reduce_window_sum_p.bind(primals[0], **params)
    t = tangents[0]
    return ans, (zero if t is zero else reduce_window_sum_p.bind(t, **params))


@reduce_window_sum_p.def_vjp
def _sum_vjp(ct, ans, primals, needs, *, window_dimensions, window_strides, padding,
             base_dilation, window_dilation):
    x = primals[0]
    pads = conv_vjp_lhs_padding(x.shape, window_dimensions, window_strides, ct.shape,
                                padding, base_dilation, window_dilation)
    return [reduce_window_sum_p.bind(ct, window_dimensions=window_dimensions,
                                     window_strides=base_dilation, padding=pads,
                                     base_dilation=window_strides,
                                     window_dilation=window_dilation)]


@reduce_window_sum_p.def_batch
def _sum_batch(vals, dims, **params):
    return reduce_window_sum_p.bind(move_to_front(vals[0], dims[0]), **_batch_params(params)), 0


# ---------------------------------------------------------------------------- argmax
reduce_window_argmax_p = Primitive("reduce_window_argmax", differentiable=False)


@numpy_kernel_impl(reduce_window_argmax_p)
def _argmax_impl(x, *, window_dimensions, window_strides, padding, window_dilation):
    r = window_cpu.window_max(x, window_dimensions, window_strides, padding, window_dilation, True)
    if r is not None:
        return r[1]
    xp = backend_for(x).xp
    n = x.ndim
    xd = dilate_pad(x, (1,) * n, padding, _low(x.dtype))
    out = window_out_shape(xd.shape, window_dimensions, window_strides, ((0, 0),) * n,
                           (1,) * n, window_dilation)
    if 0 in out or 0 in window_dimensions:
        return xp.zeros(out, np.int64)
    # scan the window taps in row-major order keeping the first maximum; a NaN replaces
    # the running maximum (PyTorch's `val > max || isnan(val)`)
    taps = tap_views(xd, window_dimensions, window_strides, window_dilation)
    best = xp.array(next(taps), copy=True)
    local = xp.zeros(out, np.int64)
    for k, v in enumerate(taps, 1):
        take = xp.greater(v, best)
        if x.dtype.kind == "f":
            xp.logical_or(take, xp.isnan(v), out=take)
        xp.copyto(best, v, where=take)
        xp.copyto(local, k, where=take)
    # flat index = (index of the window's corner) + (offset of the chosen tap)
    xstr = [int(np.prod(x.shape[i + 1:], dtype=np.int64)) for i in range(n)]
    delta = np.array([sum(t * d * st for t, d, st in zip(tap, window_dilation, xstr))
                      for tap in np.ndindex(*window_dimensions)], np.int64)
    flat = xp.asarray(delta)[local]
    for i in range(n):
        o = xp.arange(out[i], dtype=np.int64) * (window_strides[i] * xstr[i])
        flat += (o - padding[i][0] * xstr[i]).reshape((-1,) + (1,) * (n - 1 - i))
    # a window lying entirely in the padding cannot occur for PyTorch's pooling (padding
    # <= half the window); clip so the index stays valid regardless
    if any(lo > 0 for lo, _ in padding):
        xp.clip(flat, 0, max(x.size - 1, 0), out=flat)
    return flat


reduce_window_argmax_p.lowering = {"kind": "reduce_window", "op": "argmax"}
reduce_window_argmax_p.def_abstract_eval(
    lambda x, **p: _params_abstract(x, p["window_dimensions"], p["window_strides"],
                                    p["padding"], (1,) * x.ndim, p["window_dilation"],
                                    np.dtype(np.int64)))


@reduce_window_argmax_p.def_batch
def _argmax_batch(vals, dims, **params):
    xb = move_to_front(vals[0], dims[0])
    idx = reduce_window_argmax_p.bind(xb, **_batch_params(params))
    per = int(np.prod(xb.shape[1:], dtype=np.int64))
    offs = (np.arange(xb.shape[0], dtype=np.int64) * per).reshape((-1,) + (1,) * (idx.ndim - 1))
    return sub(idx, offs), 0


def reduce_window_argmax(x, window_dimensions, window_strides, padding, window_dilation=None):
    """Flat index into ``x`` of the first maximum of each window (int64, no derivative)."""
    n = len(x.shape)
    return reduce_window_argmax_p.bind(
        x, window_dimensions=tuple(window_dimensions), window_strides=tuple(window_strides),
        padding=_pairs(padding, n),
        window_dilation=tuple(window_dilation) if window_dilation else (1,) * n)


# ---------------------------------------------------------------------------- max
reduce_window_max_p = Primitive("reduce_window_max")


@numpy_kernel_impl(reduce_window_max_p)
def _max_impl(x, *, window_dimensions, window_strides, padding, window_dilation):
    r = window_cpu.window_max(x, window_dimensions, window_strides, padding, window_dilation, False)
    if r is not None:
        return r[0]
    xp = backend_for(x).xp
    n = x.ndim
    xd = dilate_pad(x, (1,) * n, padding, _low(x.dtype))
    taps = tap_views(xd, window_dimensions, window_strides, window_dilation)
    acc = xp.array(next(taps), copy=True)
    for v in taps:
        xp.maximum(acc, v, out=acc)       # propagates NaN, as PyTorch's max_pool
    return acc


reduce_window_max_p.lowering = {"kind": "reduce_window", "op": "max"}
reduce_window_max_p.def_abstract_eval(
    lambda x, **p: _params_abstract(x, p["window_dimensions"], p["window_strides"],
                                    p["padding"], (1,) * x.ndim, p["window_dilation"]))


def _flat(v):
    return reshape(v, (int(np.prod(v.shape, dtype=np.int64)),))


@reduce_window_max_p.def_jvp
def _max_jvp(primals, tangents, **params):
    x, = primals
    ans = reduce_window_max_p.bind(x, **params)
    t = tangents[0]
    if t is zero:
        return ans, zero
    idx = reduce_window_argmax_p.bind(x, **params)
    return ans, gather(_flat(t), idx)


@reduce_window_max_p.def_vjp
def _max_vjp(ct, ans, primals, needs, **params):
    x, = primals
    idx = reduce_window_argmax_p.bind(x, **params)
    size = int(np.prod(x.shape, dtype=np.int64))
    # rows of a (size, 1) array: the CPU kernel's numba row scatter (np.add.at on a flat
    # array measured ~10x slower)
    ct1 = reshape(ct, tuple(ct.shape) + (1,))
    return [reshape(scatter_add(ct1, idx, (size, 1)), x.shape)]


@reduce_window_max_p.def_batch
def _max_batch(vals, dims, **params):
    return reduce_window_max_p.bind(move_to_front(vals[0], dims[0]), **_batch_params(params)), 0


# ---------------------------------------------------------------------------- public ops
def _pairs(padding, n):
    if isinstance(padding, str):
        raise ValueError("string padding is resolved by reduce_window/conv_general_dilated")
    pads = tuple((int(lo), int(hi)) for lo, hi in padding)
    if len(pads) != n:
        raise ValueError(f"padding needs one (lo, hi) pair per axis ({n}), got {len(pads)}")
    return pads


def _check(name, x, *params):
    n = len(x.shape)
    for pname, v in params:
        if len(v) != n:
            raise ValueError(f"{name}: {pname} needs one entry per axis of the operand "
                             f"(ndim {n}), got {tuple(v)}")
        if any(int(a) < 1 for a in v):
            raise ValueError(f"{name}: {pname} entries must be >= 1, got {tuple(v)}")


def reduce_window_sum(x: Array, window_dimensions: Sequence[int],
                      window_strides: Sequence[int] | None = None,
                      padding: Sequence[tuple[int, int]] | None = None,
                      base_dilation: Sequence[int] | None = None,
                      window_dilation: Sequence[int] | None = None) -> Array:
    """Sum of ``x`` over sliding windows (see the module docstring).

    Parameters
    ----------
    x : Array
        The operand, any shape.
    window_dimensions : sequence of int
        The window's extent, one positive int per axis of ``x``.
    window_strides : sequence of int, optional
        The step between windows, one per axis (default 1).
    padding : sequence of (int, int), optional
        ``(lo, hi)`` zero padding per axis (default none).
    base_dilation : sequence of int, optional
        Dilation of ``x`` itself, one per axis (default 1).
    window_dilation : sequence of int, optional
        Dilation of the window, one per axis (default 1).

    Returns
    -------
    Array
        The window sums, of ``x``'s dtype.

    Raises
    ------
    ValueError
        A parameter of the wrong length or a non-positive entry.

    Examples
    --------
    >>> import numpy as np
    >>> reduce_window_sum(np.arange(4.0), (2,), (2,))
    array([1., 5.])
    """
    n = len(x.shape)
    ws = tuple(window_strides) if window_strides is not None else (1,) * n
    bd = tuple(base_dilation) if base_dilation is not None else (1,) * n
    wd = tuple(window_dilation) if window_dilation is not None else (1,) * n
    pads = _pairs(padding, n) if padding is not None else ((0, 0),) * n
    wdims = tuple(int(w) for w in window_dimensions)
    _check("reduce_window_sum", x, ("window_dimensions", wdims), ("window_strides", ws),
           ("base_dilation", bd), ("window_dilation", wd))
    return reduce_window_sum_p.bind(x, window_dimensions=wdims, window_strides=ws,
                                    padding=pads, base_dilation=bd, window_dilation=wd)


def reduce_window_max(x: Array, window_dimensions: Sequence[int],
                      window_strides: Sequence[int] | None = None,
                      padding: Sequence[tuple[int, int]] | None = None,
                      window_dilation: Sequence[int] | None = None) -> Array:
    """Maximum of ``x`` over sliding windows, padding with ``-inf`` (module docstring).

    Parameters
    ----------
    x : Array
        The operand, a real dtype.
    window_dimensions : sequence of int
        The window's extent, one positive int per axis of ``x``.
    window_strides : sequence of int, optional
        The step between windows, one per axis (default 1).
    padding : sequence of (int, int), optional
        ``(lo, hi)`` padding with ``-inf`` per axis (default none).
    window_dilation : sequence of int, optional
        Dilation of the window, one per axis (default 1).

    Returns
    -------
    Array
        The window maxima, of ``x``'s dtype.

    Raises
    ------
    TypeError
        A complex ``x`` (no ordering).
    ValueError
        A parameter of the wrong length or a non-positive entry.

    Notes
    -----
    The derivative flows through the first maximum of each window (PyTorch's
    ``max_pool`` convention for ties).

    Examples
    --------
    >>> import numpy as np
    >>> reduce_window_max(np.array([1.0, 3.0, 2.0, 0.0]), (2,), (2,))
    array([3., 2.])
    """
    n = len(x.shape)
    if kind_of(x) == "c":
        raise TypeError("reduce_window_max: complex numbers have no ordering; pass a real "
                        f"array (got {x.dtype})")
    ws = tuple(window_strides) if window_strides is not None else (1,) * n
    wd = tuple(window_dilation) if window_dilation is not None else (1,) * n
    pads = _pairs(padding, n) if padding is not None else ((0, 0),) * n
    wdims = tuple(int(w) for w in window_dimensions)
    _check("reduce_window_max", x, ("window_dimensions", wdims), ("window_strides", ws),
           ("window_dilation", wd))
    return reduce_window_max_p.bind(x, window_dimensions=wdims, window_strides=ws,
                                    padding=pads, window_dilation=wd)


def reduce_window(x: Array, computation: str, window_dimensions: Sequence[int],
                  window_strides: Sequence[int] | None = None,
                  padding: str | Sequence[tuple[int, int]] | None = None,
                  window_dilation: Sequence[int] | None = None) -> Array:
    """``computation`` (``"sum"``, ``"max"`` or ``"avg"``) over sliding windows.

    Parameters
    ----------
    x : Array
        The operand (real for ``"max"``).
    computation : {"sum", "max", "avg"}
        The reduction. ``"avg"`` is the windowed sum divided by the window size (padding
        counted, PyTorch's ``count_include_pad=True``).
    window_dimensions : sequence of int
        The window's extent, one positive int per axis of ``x``.
    window_strides : sequence of int, optional
        The step between windows, one per axis (default 1).
    padding : str or sequence of (int, int), optional
        ``(lo, hi)`` pairs per axis, ``"VALID"`` (none) or ``"SAME"`` (output length
        ``ceil(L / stride)``, JAX's convention); default none.
    window_dilation : sequence of int, optional
        Dilation of the window, one per axis (default 1).

    Returns
    -------
    Array
        The reduced windows, of ``x``'s dtype.

    Raises
    ------
    ValueError
        An unknown computation, or a parameter of the wrong length.

    Examples
    --------
    >>> import numpy as np
    >>> reduce_window(np.arange(4.0), "avg", (2,), (2,))
    array([0.5, 2.5])
    """
    n = len(x.shape)
    ws = tuple(window_strides) if window_strides is not None else (1,) * n
    pads = padtype_to_pads(x.shape, window_dimensions, ws, padding, window_dilation) \
        if isinstance(padding, str) else padding
    if computation == "sum":
        return reduce_window_sum(x, window_dimensions, ws, pads, None, window_dilation)
    if computation == "max":
        return reduce_window_max(x, window_dimensions, ws, pads, window_dilation)
    if computation == "avg":
        s = reduce_window_sum(x, window_dimensions, ws, pads, None, window_dilation)
        return div(s, np.asarray(np.prod(window_dimensions), dtype=np.dtype(x.dtype)))
    raise ValueError(f"reduce_window: computation must be 'sum', 'max' or 'avg', got "
                     f"{computation!r}")


def padtype_to_pads(shape, window, strides, padding, window_dilation=None):
    """``"VALID"``/``"SAME"`` as ``(lo, hi)`` pairs (JAX's ``padtype_to_pads``)."""
    n = len(shape)
    wd = tuple(window_dilation) if window_dilation is not None else (1,) * n
    p = padding.upper()
    if p == "VALID":
        return ((0, 0),) * n
    if p == "SAME":
        out = []
        for s, w, st, d in zip(shape, window, strides, wd):
            o = -(-s // st)
            total = max(0, (o - 1) * st + (w - 1) * d + 1 - s)
            out.append((total // 2, total - total // 2))
        return tuple(out)
    raise ValueError(f"padding must be 'VALID', 'SAME' or (lo, hi) pairs, got {padding!r}")
