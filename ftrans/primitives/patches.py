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

Impls: one NumPy/CuPy gather of ``x`` with one zero appended to each spatial axis (the
tables' -1 reads it); col2im adds one tap at a time (within a tap the output positions
read distinct elements, so a fancy-index ``+=`` adds each once).
"""
from __future__ import annotations

from collections.abc import Sequence
from math import prod

import numpy as np

from ..core import Primitive, ShapedArray, zero
from ..kernels import backend_for
from ..kernels.window_cpu import tap_tables, window_out_shape
from ._rules import move_to_front, numpy_kernel_impl
from .structural import reshape, transpose
from ..typing import Array

__all__ = ["conv_patches", "conv_patches_transpose"]

conv_patches_p = Primitive("conv_patches")
conv_patches_transpose_p = Primitive("conv_patches_transpose")

_KEYS = ("window_dimensions", "window_strides", "padding", "lhs_dilation", "rhs_dilation")


def _geometry(spatial, window_dimensions, window_strides, padding, lhs_dilation,
              rhs_dilation):
    """``(out_spatial, per-axis tap tables)``."""
    return tap_tables(spatial, window_dimensions, window_strides, padding, lhs_dilation,
                      rhs_dilation)


def _index(xp, tabs, taps_first):
    """Broadcast index arrays over ``(k_0 .. k_n-1, o_0 .. o_n-1)`` (``taps_first``) or,
    for one tap ``taps_first`` = its index tuple, over ``(o_0 .. o_n-1)``."""
    n = len(tabs)
    idx = []
    for d, t in enumerate(tabs):
        if isinstance(taps_first, tuple):
            shape = [1] * n
            shape[d] = t.shape[0]
            idx.append(xp.asarray(t[:, taps_first[d]].reshape(shape)))
        else:
            shape = [1] * (2 * n)
            shape[d], shape[n + d] = t.shape[1], t.shape[0]
            idx.append(xp.asarray(t.T.reshape(shape)))
    return tuple(idx)


@numpy_kernel_impl(conv_patches_p)
def _patches_impl(x, **params):
    xp = backend_for(x).xp
    N, C = x.shape[:2]
    sp = tuple(x.shape[2:])
    n = len(sp)
    out, tabs = _geometry(sp, **params)
    K, P = prod(params["window_dimensions"]), prod(out)
    if N * C * K * P == 0:
        return xp.zeros((C * K, N * P), x.dtype)
    xe = xp.zeros((N, C) + tuple(s + 1 for s in sp), x.dtype)
    xe[(slice(None), slice(None)) + tuple(slice(0, s) for s in sp)] = x
    v = xe[(slice(None), slice(None)) + _index(xp, tabs, True)]   # (N, C, *k, *out)
    v = v.transpose((1,) + tuple(range(2, 2 + n)) + (0,) + tuple(range(2 + n, 2 + 2 * n)))
    return xp.ascontiguousarray(v).reshape(C * K, N * P)


@numpy_kernel_impl(conv_patches_transpose_p)
def _col2im_impl(cols, *, lhs_shape, **params):
    xp = backend_for(cols).xp
    N, C = lhs_shape[:2]
    sp = tuple(lhs_shape[2:])
    ks = tuple(params["window_dimensions"])
    out, tabs = _geometry(sp, **params)
    if cols.size == 0 or N * C == 0:
        return xp.zeros(tuple(lhs_shape), cols.dtype)
    xe = xp.zeros((N, C) + tuple(s + 1 for s in sp), cols.dtype)
    v = cols.reshape((C,) + ks + (N,) + tuple(out))
    for tap in np.ndindex(*ks):
        block = v[(slice(None),) + tap]                       # (C, N, *out)
        # distinct positions within a tap (padding reads go to the appended element)
        xe[(slice(None), slice(None)) + _index(xp, tabs, tap)] += block.swapaxes(0, 1)
    return xp.ascontiguousarray(xe[(slice(None), slice(None))
                                   + tuple(slice(0, s) for s in sp)])


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
def _linear_jvp(prim):
    def jvp(primals, tangents, **params):
        t = tangents[0]
        return prim.bind(primals[0], **params), zero if t is zero else prim.bind(t, **params)
    return jvp


conv_patches_p.def_jvp(_linear_jvp(conv_patches_p))
conv_patches_transpose_p.def_jvp(_linear_jvp(conv_patches_transpose_p))


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
