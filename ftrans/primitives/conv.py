"""``conv_general_dilated``: N-d convolution (XLA's ConvGeneralDilated, PyTorch's layout).

The primitive works on ``lhs`` of shape ``(N, C, *spatial)`` and ``rhs`` of shape
``(O, C // G, *window)`` and returns ``(N, O, *out_spatial)`` -- PyTorch's ``NC...`` /
``OI...`` layout -- computing a cross-correlation (no kernel flip, as PyTorch's and
JAX's ``conv``)::

    out[n, o, y...] = sum_{c, k...} lhs_dilated_padded[n, g*C/G + c, y*s + k*rd]
                                    * rhs[o, c, k...]      (g = o // (O/G))

Parameters (one entry per spatial axis): ``window_strides``, ``padding`` ``(lo, hi)``
pairs (negative: cropping), ``lhs_dilation`` (holes between input elements: a
transposed convolution), ``rhs_dilation`` (holes between kernel taps: an atrous
convolution) and ``feature_group_count`` ``G`` (grouped / depthwise convolution).
:func:`conv_general_dilated` also accepts ``"SAME"``/``"VALID"`` padding and JAX-like
``dimension_numbers`` strings (``("NHWC", "HWIO", "NHWC")``), handled by transposes
around the primitive.

Rules (the convolution is bilinear).  The JVP is the convolution of each tangent with
the other operand.  The VJP works on the im2col matrix of :mod:`.patches` (the
``(C * K, N * P)`` windows of ``lhs``), with the cotangent as an ``(O, N * P)`` matrix and
one GEMM per group:

* the cotangent of ``lhs`` is ``conj(W)^T @ ct`` -- the windows' cotangent, ``W`` the
  ``(O, C/G * K)`` kernel matrix -- added back into ``lhs``'s shape (col2im,
  ``conv_patches_transpose``);
* the cotangent of ``rhs`` is ``ct @ conj(patches(lhs))^T``.

This is how im2col convolutions are differentiated (Caffe's and PyTorch's CPU
``slow_conv2d`` backward; :mod:`ftrans.kernels.nn_cpu`'s fused kernels).  It replaced
JAX's rules (``_conv_general_dilated_transpose_lhs``/``_rhs``: two more convolutions,
the cotangent dilated by the strides against the flipped kernel, and ``lhs`` with its
channels as the batch against the cotangent), whose im2col walks a window as large as the
output and reads every element of the dilated cotangent: the digits CNN's compiled
backward program went from 2.8 to 1.1 ms per step (``compat.compile``, 64 examples).

Batching folds a batched ``lhs`` into ``N`` and a batched ``rhs`` into more groups.

Complex operands follow the cotangent convention of DESIGN.md (conjugated operands).

Impl: im2col + BLAS.  For 2-d NumPy float operands with one group and no
``lhs_dilation``, :mod:`ftrans.kernels.nn_cpu` fills a ``(C * K, N * P)`` matrix in one
numba loop (reading through the padding) and multiplies it by the ``(O, C * K)`` kernel
matrix in one GEMM (measured 1.2-3x faster than the strided-view path on the digits-CNN
sizes).  Otherwise a strided view of all windows (no copy) is laid out once as a
``(N * P, C * K)`` matrix (one copy) and multiplied by the ``(C * K, O)`` kernel
matrix in one BLAS call (one batched call per group).  Measured against a direct numba
convolution loop on the digits-CNN sizes (benchmarks/conv_impl.py): im2col + BLAS is
faster.
"""
from __future__ import annotations

from collections.abc import Sequence
from math import prod

import numpy as np

from ..core import Primitive, ShapedArray, zero, result_type
from ..kernels import backend_for, nn_cpu
from .structural import transpose, reshape, broadcast_to
from .window import (dilate_pad, windows, window_out_shape,
                     padtype_to_pads)
from ._rules import conj, move_to_front, no_trace, numpy_kernel_impl
from ._rules import fit, unbroadcast
from .elementwise import add
from .dot import dot_general
from .patches import conv_patches_p, conv_patches_transpose_p
from ..typing import Array

__all__ = ["conv_general_dilated", "check_groups"]

conv_general_dilated_p = Primitive("conv_general_dilated")


def _out_spatial(lshape, rshape, window_strides, padding, lhs_dilation, rhs_dilation):
    return window_out_shape(lshape[2:], rshape[2:], window_strides, padding, lhs_dilation,
                            rhs_dilation)


@numpy_kernel_impl(conv_general_dilated_p)
def _conv_impl(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
               feature_group_count):
    be = backend_for(lhs, rhs)
    xp = be.xp
    dtype = np.result_type(lhs.dtype, rhs.dtype)
    lhs = lhs.astype(dtype, copy=False)
    rhs = rhs.astype(dtype, copy=False)
    if nn_cpu.conv2d_eligible(lhs, rhs, lhs_dilation, feature_group_count):
        r = nn_cpu.conv2d_forward(lhs, rhs, window_strides, padding, rhs_dilation)
        if r is not None:
            return r[0]
    nsp = lhs.ndim - 2
    G = feature_group_count
    N, C = lhs.shape[:2]
    O, Cg = rhs.shape[:2]
    ks = tuple(rhs.shape[2:])
    Og = O // G
    K = prod(ks)
    x = dilate_pad(lhs, (1, 1) + tuple(lhs_dilation), ((0, 0), (0, 0)) + tuple(padding), 0)
    out_sp = window_out_shape(x.shape[2:], ks, window_strides, ((0, 0),) * nsp, (1,) * nsp,
                              rhs_dilation)
    P = prod(out_sp)
    if N * P * O == 0 or Cg * K == 0:
        return xp.zeros((N, O) + out_sp, dtype)
    v = windows(x, (1, 1) + ks, (1, 1) + tuple(window_strides), (1, 1) + tuple(rhs_dilation))
    v = v.reshape((N, C) + out_sp + ks)        # drop the size-1 window axes (a view)
    sp_axes = tuple(range(2, 2 + nsp))
    k_axes = tuple(range(2 + nsp, 2 + 2 * nsp))
    if G == 1:
        cols = v.transpose((0,) + sp_axes + (1,) + k_axes).reshape(N * P, C * K)
        # a contiguous (C*K, O) kernel matrix: with OpenBLAS threads on, a product with the
        # transposed view of a thin (O, C*K) matrix measured up to 100x slower (4096x9 @
        # 9x16 on the 2-core machine); the copy is a few hundred elements
        out = xp.dot(cols, xp.ascontiguousarray(rhs.reshape(O, C * K).T))   # (N * P, O)
        out = out.reshape((N,) + out_sp + (O,))
        return xp.ascontiguousarray(xp.moveaxis(out, -1, 1))
    v = v.reshape((N, G, Cg) + out_sp + ks)
    sp_axes = tuple(a + 1 for a in sp_axes)
    k_axes = tuple(a + 1 for a in k_axes)
    cols = v.transpose((1, 0) + sp_axes + (2,) + k_axes).reshape(G, N * P, Cg * K)
    w = xp.ascontiguousarray(rhs.reshape(G, Og, Cg * K).transpose(0, 2, 1))  # (G, Cg*K, Og)
    out = be.matmul(cols, w).reshape((G, N) + out_sp + (Og,))
    out = out.transpose((1, 0, nsp + 2) + tuple(range(2, 2 + nsp)))
    return xp.ascontiguousarray(out.reshape((N, O) + out_sp))


# compiler lowering (ftrans.compiler._numba_conv): im2col loop + np.dot per group
conv_general_dilated_p.lowering = {"kind": "conv"}

@conv_general_dilated_p.def_abstract_eval
def _conv_abstract_eval(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                        feature_group_count):
    out_sp = _out_spatial(lhs.shape, rhs.shape, window_strides, padding, lhs_dilation,
                          rhs_dilation)
    return ShapedArray((lhs.shape[0], rhs.shape[0]) + out_sp, result_type(lhs, rhs))


@conv_general_dilated_p.def_jvp
def _conv_jvp(primals, tangents, **params):
    lhs, rhs = primals
    tl, tr = tangents
    ans = conv_general_dilated_p.bind(lhs, rhs, **params)
    out = zero
    if tl is not zero:
        out = conv_general_dilated_p.bind(tl, rhs, **params)
    if tr is not zero:
        c = conv_general_dilated_p.bind(lhs, tr, **params)
        if out is zero:
            out = c
        else:
            out = add(out, c)
    if out is not zero and out.dtype != ans.dtype:
        out = fit(out, ans)
    return ans, out


def _window_params(rhs, window_strides, padding, lhs_dilation, rhs_dilation):
    return dict(window_dimensions=tuple(rhs.shape[2:]), window_strides=tuple(window_strides),
                padding=tuple(padding), lhs_dilation=tuple(lhs_dilation),
                rhs_dilation=tuple(rhs_dilation))


def _group_product(a, b, G, contract):
    """``a`` ``(M, X)`` and ``b`` ``(Y, Z)`` as ``G`` groups of rows, contracted over axis
    ``contract[0]`` of ``a``'s and ``contract[1]`` of ``b``'s groups: one GEMM per group
    (one plain 2-d product for ``G == 1``), the groups' results stacked into rows."""
    if G == 1:
        return dot_general(a, b, (((contract[0],), (contract[1],)), ((), ())))
    a = reshape(a, (G, a.shape[0] // G, a.shape[1]))
    b = reshape(b, (G, b.shape[0] // G, b.shape[1]))
    out = dot_general(a, b, (((contract[0] + 1,), (contract[1] + 1,)), ((0,), (0,))))
    return reshape(out, (G * out.shape[1], out.shape[2]))


def _ct_matrix(ct):
    """``(N, O, *out)`` -> ``(O, N * P)``: the cotangent as the GEMM's operand."""
    N, O = ct.shape[:2]
    m = transpose(ct, (1, 0) + tuple(range(2, len(ct.shape))))
    return reshape(m, (O, N * prod(ct.shape[2:])))


def _vjp_lhs(ct, lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, G):
    # the windows' cotangent conj(W)^T @ ct (per group), added back (col2im)
    O, Cg = rhs.shape[:2]
    w = reshape(conj(rhs), (O, Cg * prod(rhs.shape[2:])))
    dcols = _group_product(w, _ct_matrix(ct), G, (0, 0))           # (C * K, N * P)
    return conv_patches_transpose_p.bind(
        dcols, lhs_shape=tuple(lhs.shape),
        **_window_params(rhs, window_strides, padding, lhs_dilation, rhs_dilation))


def _vjp_rhs(ct, lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, G,
             cols=None):
    # ct @ conj(patches)^T (per group), over (example, output position); ``cols``: the
    # forward pass's patches of lhs
    if cols is None:
        cols = conv_patches_p.bind(
            lhs, **_window_params(rhs, window_strides, padding, lhs_dilation, rhs_dilation))
    cols = conj(cols)
    g = _group_product(_ct_matrix(ct), cols, G, (1, 1))            # (O, C/G * K)
    return reshape(g, tuple(rhs.shape))


def _conv_vjp_fwd(lhs, rhs, **params):
    """The forward pass of reverse mode: under a trace (``jit``, ``compat.compile``) the
    convolution as the im2col matrix and its GEMM, so that the matrix is a residual the
    backward pass reuses for the kernel's cotangent instead of building it again (the
    digits CNN's second convolution: 0.14 ms of a 1.1 ms backward program); eagerly the
    primitive's kernel, with the operands as residuals."""
    if no_trace() or lhs.dtype != rhs.dtype or 0 in lhs.shape or 0 in rhs.shape:
        return conv_general_dilated_p.bind(lhs, rhs, **params), (lhs, rhs)
    G = params["feature_group_count"]
    win = {k: params[k] for k in ("window_strides", "padding", "lhs_dilation", "rhs_dilation")}
    cols = conv_patches_p.bind(lhs, **_window_params(rhs, **win))
    O = rhs.shape[0]
    out = _group_product(reshape(rhs, (O, prod(rhs.shape[1:]))), cols, G, (1, 0))  # (O, N*P)
    out_sp = _out_spatial(lhs.shape, rhs.shape, **win)
    nsp = len(out_sp)
    ans = transpose(reshape(out, (O, lhs.shape[0]) + out_sp), (1, 0) + tuple(range(2, 2 + nsp)))
    return ans, (lhs, rhs, cols)


conv_general_dilated_p.vjp_fwd = _conv_vjp_fwd


@conv_general_dilated_p.def_vjp
def _conv_vjp(ct, ans, residuals, needs, *, window_strides, padding, lhs_dilation,
              rhs_dilation, feature_group_count):
    # residuals: (lhs, rhs), or (lhs, rhs, im2col matrix of lhs) from _conv_vjp_fwd
    lhs, rhs = residuals[:2]
    res = [None, None]
    args = (window_strides, padding, lhs_dilation, rhs_dilation, feature_group_count)
    if needs[0]:
        res[0] = unbroadcast(_vjp_lhs(ct, lhs, rhs, *args), lhs)
    if needs[1]:
        cols = residuals[2] if len(residuals) > 2 else None
        res[1] = unbroadcast(_vjp_rhs(ct, lhs, rhs, *args, cols=cols), rhs)
    return res


@conv_general_dilated_p.def_batch
def _conv_batch(vals, dims, *, feature_group_count, **params):
    lhs, rhs = vals
    ld, rd = dims
    if rd is None:
        xb = move_to_front(lhs, ld)
        B, N = xb.shape[:2]
        out = conv_general_dilated_p.bind(reshape(xb, (B * N,) + tuple(xb.shape[2:])), rhs,
                                          feature_group_count=feature_group_count, **params)
        return reshape(out, (B, N) + tuple(out.shape[1:])), 0
    wb = move_to_front(rhs, rd)
    B = wb.shape[0]
    G = feature_group_count
    w = reshape(wb, (B * wb.shape[1],) + tuple(wb.shape[2:]))
    if ld is None:
        N, C = lhs.shape[:2]
        sp = tuple(lhs.shape[2:])
        x = broadcast_to(reshape(lhs, (N, 1, C) + sp), (N, B, C) + sp)
    else:
        xb = move_to_front(lhs, ld)
        N, C = xb.shape[1:3]
        sp = tuple(xb.shape[3:])
        x = transpose(xb, (1, 0, 2) + tuple(range(3, 3 + len(sp))))
    x = reshape(x, (N, B * C) + sp)
    out = conv_general_dilated_p.bind(x, w, feature_group_count=B * G, **params)
    O = wb.shape[1]
    return reshape(out, (N, B, O) + tuple(out.shape[2:])), 1


# ------------------------------------------------------------------------- public op
def _spec_perm(spec, canonical_first):
    """Permutation taking an array in layout ``spec`` to the canonical layout
    (``canonical_first`` are the two non-spatial letters, e.g. "NC" or "OI"; spatial
    axes in the order of their letters in ``spec``)."""
    a, b = canonical_first
    if a not in spec or b not in spec:
        raise ValueError(f"dimension spec {spec!r} must contain {a!r} and {b!r}")
    spatial = [i for i, ch in enumerate(spec) if ch not in (a, b)]
    return (spec.index(a), spec.index(b)) + tuple(spatial)


def check_groups(name, lhs_shape, rhs_shape, groups):
    """ValueError unless ``groups >= 1`` divides the output channels ``rhs_shape[0]`` and
    the input has ``rhs_shape[1] * groups`` channels (``lhs_shape[1]``)."""
    C, O, Cg = lhs_shape[1], rhs_shape[0], rhs_shape[1]
    if groups < 1 or C != Cg * groups or O % groups:
        raise ValueError(f"{name}: lhs has {C} channels, rhs {tuple(rhs_shape)} expects "
                         f"{Cg} per group with groups={groups} and {O} outputs; need "
                         f"C == rhs.shape[1] * groups and O divisible by groups")


def conv_general_dilated(lhs: Array, rhs: Array,
                         window_strides: Sequence[int] | None = None,
                         padding: str | Sequence[tuple[int, int]] = "VALID",
                         lhs_dilation: Sequence[int] | None = None,
                         rhs_dilation: Sequence[int] | None = None,
                         dimension_numbers: tuple[str, str, str] | None = None,
                         feature_group_count: int = 1) -> Array:
    """N-d convolution (cross-correlation), JAX's ``lax.conv_general_dilated``.

    Parameters
    ----------
    lhs : Array
        The input, ``(N, C, *spatial)`` (or the layout ``dimension_numbers[0]`` names).
    rhs : Array
        The kernel, ``(O, C // feature_group_count, *window)`` (or the layout
        ``dimension_numbers[1]`` names).
    window_strides : sequence of int, optional
        Positive strides, one per spatial axis (default 1).
    padding : str or sequence of (int, int), default "VALID"
        ``"VALID"``, ``"SAME"`` or ``(lo, hi)`` pairs, one per spatial axis.
    lhs_dilation : sequence of int, optional
        Input dilation (transposed convolution), one per spatial axis (default 1).
    rhs_dilation : sequence of int, optional
        Kernel dilation (atrous convolution), one per spatial axis (default 1).
    dimension_numbers : (str, str, str), optional
        Layout strings of input, kernel and output such as ``("NHWC", "HWIO", "NHWC")``;
        None is ``NC...``, ``OI...``, ``NC...``.
    feature_group_count : int, default 1
        ``G`` dividing ``C`` and ``O`` (grouped convolution).

    Returns
    -------
    Array
        ``(N, O, *out_spatial)`` (in the output layout), dtype promoted from the operands.

    Raises
    ------
    ValueError
        Mismatched ranks, channel counts, group counts or parameter lengths.

    Notes
    -----
    Semantics and argument conventions follow ``jax.lax.conv_general_dilated``; the
    derivatives are convolutions again (transposed kernel, dilated input).

    Examples
    --------
    >>> import numpy as np
    >>> conv_general_dilated(np.ones((1, 1, 4)), np.ones((1, 1, 2)), (1,), "VALID")
    array([[[2., 2., 2.]]])
    """
    lnd, rnd = len(lhs.shape), len(rhs.shape)
    out_perm = None
    if dimension_numbers is not None:
        ls, rs, os_ = dimension_numbers
        if not (len(ls) == lnd and len(rs) == rnd and len(os_) == lnd):
            raise ValueError(f"dimension_numbers {dimension_numbers} do not match operand "
                             f"ranks {lnd} and {rnd}")
        lp = _spec_perm(ls, "NC")
        rp = _spec_perm(rs, "OI")
        lhs = transpose(lhs, lp)
        rhs = transpose(rhs, rp)
        op = _spec_perm(os_, "NC")
        out_perm = tuple(int(i) for i in np.argsort(op))
    if lnd != rnd or lnd < 2:
        raise ValueError(f"conv_general_dilated: lhs and rhs need the same rank >= 2 "
                         f"((N, C, *spatial) and (O, I, *window)), got shapes "
                         f"{tuple(lhs.shape)} and {tuple(rhs.shape)}")
    nsp = lnd - 2
    G = int(feature_group_count)
    check_groups("conv_general_dilated", lhs.shape, rhs.shape, G)

    def tup(v, name):
        v = (1,) * nsp if v is None else tuple(int(a) for a in v)
        if len(v) != nsp or any(a < 1 for a in v):
            raise ValueError(f"conv_general_dilated: {name} needs {nsp} positive ints, "
                             f"got {v}")
        return v
    ws = tup(window_strides, "window_strides")
    ld = tup(lhs_dilation, "lhs_dilation")
    rd = tup(rhs_dilation, "rhs_dilation")
    if isinstance(padding, str):
        if padding.upper() == "SAME" and any(d != 1 for d in ld):
            raise ValueError("'SAME' padding is not defined with lhs_dilation; pass pairs")
        pads = padtype_to_pads(tuple(lhs.shape[2:]), tuple(rhs.shape[2:]), ws, padding, rd)
    else:
        pads = tuple((int(lo), int(hi)) for lo, hi in padding)
        if len(pads) != nsp:
            raise ValueError(f"conv_general_dilated: padding needs {nsp} (lo, hi) pairs, "
                             f"got {padding}")
    out = conv_general_dilated_p.bind(lhs, rhs, window_strides=ws, padding=pads,
                                      lhs_dilation=ld, rhs_dilation=rd,
                                      feature_group_count=G)
    if out_perm is not None:
        out = transpose(out, out_perm)
    return out
