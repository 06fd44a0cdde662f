"""A convolution's windows as a matrix (im2col) and its transpose (col2im).

``conv_patches(x, window_dimensions, window_strides, padding, lhs_dilation, rhs_dilation)``
takes ``x`` of shape ``(N, C, *spatial)`` and returns the ``(C * K, N * P)`` matrix of its
windows (``K = prod(window_dimensions)`` taps, ``P`` output positions)::

    patches[c * K + k, n * P + p] = x_dilated_padded[n, c, p * s + k * rd]

(``k`` and ``p`` flat row-major indices over the window and the output positions), zero
where a tap reads padding or a hole of ``lhs_dilation``.  The positions are
``conv_general_dilated``'s (:mod:`ftrans.primitives.conv`, XLA's ConvGeneralDilated), so a
convolution with one group is one GEMM, ``rhs.reshape(O, C * K) @ patches``, reshaped to
``(O, N, *out)`` (JAX's ``lax.conv_general_dilated_patches`` holds the same numbers in an
``(N, C * K, *out)`` layout; this layout is the GEMM's, :mod:`ftrans.kernels.nn_cpu`'s up
to the order of the rows).

``conv_patches_transpose(cols, lhs_shape, ...)`` is its transpose (col2im): each entry of
``cols`` is added into the element of an ``lhs_shape`` array it was read from; entries
read from padding or holes are dropped.

Rules: both are linear with 0/1 coefficients, so each one's JVP applies it to the tangent
and each is the other's transpose (VJP), complex operands included (a real linear map is
its own conjugate).  Batching folds the batch axis into ``N``.  They make the
convolution's VJP two GEMMs and a col2im (:func:`ftrans.primitives.conv._conv_vjp`)
instead of two more convolutions with exchanged parameters, and a compiled program
(``ftrans.jit``) lowers them to loops over per-axis tap tables
(:mod:`ftrans.compiler._numba_conv`).

Impls: for 2-d NumPy float operands without input dilation or cropping, the numba
im2col/col2im loops of :mod:`ftrans.kernels.nn_cpu` (with channel-major rows); otherwise
(any array library with NumPy's stride tricks: CuPy) one copy of a strided view of all
windows of the dilated, padded input, and for col2im one strided ``+=`` per window tap
into a zero dilated, padded array, then the padding removed (cropped edges get zeros) and
the dilation undone.  The eager gradient of ``lax.conv_general_dilated`` over (64, 16, 4,
4) with a (32, 16, 3, 3) kernel: 2.2 ms with JAX's rules, 1.3 ms now (medians of 30, float32).
"""
from __future__ import annotations

from collections.abc import Sequence
from math import prod

import numpy as np

from ..core import Primitive, ShapedArray
from ..kernels import backend_for, nn_cpu
from ..kernels.window_cpu import dilate_shape, window_out_shape
from ._rules import linear_jvp, move_to_front, numpy_kernel_impl
from .structural import reshape, transpose
from .window import dilate_pad, tap_views, windows
from ..typing import Array

__all__ = ["conv_patches", "conv_patches_transpose"]

conv_patches_p = Primitive("conv_patches")
conv_patches_transpose_p = Primitive("conv_patches_transpose")

_KEYS = ("window_dimensions", "window_strides", "padding", "lhs_dilation", "rhs_dilation")


@numpy_kernel_impl(conv_patches_p)
def _patches_impl(x, *, window_dimensions, window_strides, padding, lhs_dilation,
                  rhs_dilation):
    xp = backend_for(x).xp
    N, C = x.shape[:2]
    n = len(x.shape) - 2
    ks = tuple(window_dimensions)
    out = window_out_shape(tuple(x.shape[2:]), ks, window_strides, padding, lhs_dilation,
                           rhs_dilation)
    K, P = prod(ks), prod(out)
    if N * C * K * P == 0:
        return xp.zeros((C * K, N * P), x.dtype)
    if n == 2:
        r = nn_cpu.patches2d(x, ks, window_strides, padding, rhs_dilation, lhs_dilation)
        if r is not None:
            return r
    xd = dilate_pad(x, (1, 1) + tuple(lhs_dilation), ((0, 0), (0, 0)) + tuple(padding), 0)
    v = windows(xd, (1, 1) + ks, (1, 1) + tuple(window_strides),
                (1, 1) + tuple(rhs_dilation)).reshape((N, C) + out + ks)   # a view
    v = v.transpose((1,) + tuple(range(2 + n, 2 + 2 * n)) + (0,) + tuple(range(2, 2 + n)))
    return xp.ascontiguousarray(v).reshape(C * K, N * P)              # one copy


@numpy_kernel_impl(conv_patches_transpose_p)
def _col2im_impl(cols, *, lhs_shape, window_dimensions, window_strides, padding,
                 lhs_dilation, rhs_dilation):
    xp = backend_for(cols).xp
    N, C = lhs_shape[:2]
    sp = tuple(lhs_shape[2:])
    ks = tuple(window_dimensions)
    out = window_out_shape(sp, ks, window_strides, padding, lhs_dilation, rhs_dilation)
    if cols.size == 0 or N * C == 0:
        return xp.zeros(tuple(lhs_shape), cols.dtype)
    if len(sp) == 2:
        r = nn_cpu.patches2d_transpose(cols, tuple(lhs_shape), ks, window_strides, padding,
                                       rhs_dilation, lhs_dilation)
        if r is not None:
            return r
    # add each tap's block into a strided view of the dilated, padded input ...
    dil = dilate_shape(sp, lhs_dilation)
    g = xp.zeros((N, C) + tuple(d + lo + hi for d, (lo, hi) in zip(dil, padding)), cols.dtype)
    v = cols.reshape((C,) + ks + (N,) + out)
    views = tap_views(g, (1, 1) + ks, (1, 1) + tuple(window_strides),
                      (1, 1) + tuple(rhs_dilation))
    for tap, view in zip(np.ndindex(*ks), views):
        view += v[(slice(None),) + tap].swapaxes(0, 1)              # (N, C, *out)
    # ... then undo the padding (the negated padding: a cropped edge gets zeros) and the
    # dilation
    g = dilate_pad(g, (1,) * len(g.shape), ((0, 0), (0, 0)) + tuple((-lo, -hi) for lo, hi
                                                                   in padding), 0)
    return xp.ascontiguousarray(g[(slice(None), slice(None))
                                  + tuple(slice(None, None, b) for b in lhs_dilation)])


def _check(shape, params):
    n = len(shape) - 2
    if n < 0:
        raise ValueError(f"conv_patches: expected an (N, C, *spatial) operand, got shape "
                         f"{tuple(shape)}")
    for k in _KEYS:
        if len(params[k]) != n:
            raise ValueError(f"conv_patches: {k} needs one entry per spatial axis ({n}), "
                             f"got {params[k]!r}")


@conv_patches_p.def_abstract_eval
def _patches_abstract(x, **params):
    _check(x.shape, params)
    out = window_out_shape(tuple(x.shape[2:]), params["window_dimensions"],
                           params["window_strides"], params["padding"],
                           params["lhs_dilation"], params["rhs_dilation"])
    return ShapedArray((x.shape[1] * prod(params["window_dimensions"]),
                        x.shape[0] * prod(out)), x.dtype)


@conv_patches_transpose_p.def_abstract_eval
def _col2im_abstract(cols, *, lhs_shape, **params):
    _check(lhs_shape, params)
    want = _patches_abstract(ShapedArray(tuple(lhs_shape), cols.dtype), **params).shape
    if tuple(cols.shape) != want:
        raise ValueError(f"conv_patches_transpose: cols of shape {tuple(cols.shape)} do not "
                         f"match lhs_shape {tuple(lhs_shape)} (expected {want})")
    return ShapedArray(tuple(lhs_shape), cols.dtype)


# linear: the JVP applies the map to the tangent, the VJP is the other map
conv_patches_p.def_jvp(linear_jvp(conv_patches_p))
conv_patches_transpose_p.def_jvp(linear_jvp(conv_patches_transpose_p))


@conv_patches_p.def_vjp
def _patches_vjp(ct, ans, primals, needs, **params):
    return [conv_patches_transpose_p.bind(ct, lhs_shape=tuple(primals[0].shape), **params)]


@conv_patches_transpose_p.def_vjp
def _col2im_vjp(ct, ans, primals, needs, *, lhs_shape, **params):
    return [conv_patches_p.bind(ct, **params)]


@conv_patches_p.def_batch
def _patches_batch(vals, dims, **params):
    x = move_to_front(vals[0], dims[0])
    B, N = x.shape[:2]
    cols = conv_patches_p.bind(reshape(x, (B * N,) + tuple(x.shape[2:])), **params)
    return reshape(cols, (cols.shape[0], B, cols.shape[1] // B)), 1


@conv_patches_transpose_p.def_batch
def _col2im_batch(vals, dims, *, lhs_shape, **params):
    c = move_to_front(vals[0], dims[0])                       # (B, C*K, N*P)
    B, rows, cols = c.shape
    c = reshape(transpose(c, (1, 0, 2)), (rows, B * cols))
    N = lhs_shape[0]
    x = conv_patches_transpose_p.bind(c, lhs_shape=(B * N,) + tuple(lhs_shape[1:]), **params)
    return reshape(x, (B,) + tuple(lhs_shape)), 0


# compiler lowering (ftrans.compiler._numba_conv): loops over the tap tables
conv_patches_p.lowering = {"kind": "patches", "op": "im2col"}
conv_patches_transpose_p.lowering = {"kind": "patches", "op": "col2im"}


def _params(n, window_dimensions, window_strides, padding, lhs_dilation, rhs_dilation):
    return dict(window_dimensions=tuple(int(k) for k in window_dimensions),
                window_strides=tuple(int(s) for s in window_strides),
                padding=tuple((int(lo), int(hi)) for lo, hi in padding),
                lhs_dilation=tuple(lhs_dilation) if lhs_dilation else (1,) * n,
                rhs_dilation=tuple(rhs_dilation) if rhs_dilation else (1,) * n)


def conv_patches(x: Array, window_dimensions: Sequence[int], window_strides: Sequence[int],
                 padding: Sequence[tuple[int, int]],
                 lhs_dilation: Sequence[int] | None = None,
                 rhs_dilation: Sequence[int] | None = None) -> Array:
    """The ``(C * K, N * P)`` matrix of the windows of ``x`` ``(N, C, *spatial)`` (im2col;
    see the module docstring).

    Parameters
    ----------
    x : Array
        ``(N, C, *spatial)``, any dtype.
    window_dimensions, window_strides : sequence of int
        One per spatial axis.
    padding : sequence of (int, int)
        ``(lo, hi)`` per spatial axis (negative: cropping).
    lhs_dilation, rhs_dilation : sequence of int, optional
        Holes between the input's elements / the window's taps (default 1).

    Returns
    -------
    Array
        ``(C * prod(window_dimensions), N * prod(out))``, ``x``'s dtype, with ``out`` the
        spatial shape of ``conv_general_dilated`` with these parameters.

    Raises
    ------
    ValueError
        When a parameter does not have one entry per spatial axis.

    Examples
    --------
    >>> import numpy as np
    >>> from ftrans.primitives.patches import conv_patches
    >>> x = np.arange(4.0).reshape(1, 1, 4)
    >>> conv_patches(x, (2,), (1,), ((0, 1),))
    array([[0., 1., 2., 3.],
           [1., 2., 3., 0.]])
    """
    n = len(x.shape) - 2
    return conv_patches_p.bind(x, **_params(n, window_dimensions, window_strides, padding,
                                            lhs_dilation, rhs_dilation))


def conv_patches_transpose(cols: Array, lhs_shape: Sequence[int],
                           window_dimensions: Sequence[int], window_strides: Sequence[int],
                           padding: Sequence[tuple[int, int]],
                           lhs_dilation: Sequence[int] | None = None,
                           rhs_dilation: Sequence[int] | None = None) -> Array:
    """col2im: the transpose of :func:`conv_patches` for an operand of ``lhs_shape``
    (every entry of ``cols`` added into the element it was read from).

    Returns an array of ``lhs_shape`` in ``cols``'s dtype; raises ValueError when ``cols``
    is not ``(C * K, N * P)`` for ``lhs_shape`` and the parameters."""
    n = len(lhs_shape) - 2
    return conv_patches_transpose_p.bind(
        cols, lhs_shape=tuple(int(s) for s in lhs_shape),
        **_params(n, window_dimensions, window_strides, padding, lhs_dilation, rhs_dilation))
