"""numba kernels for pooling: windowed max (with the index of the first maximum) and
windowed sum over the last two axes of a C-contiguous ``(B, H, W)`` float array.

(The convolution's im2col stays a NumPy strided-view copy: a numba im2col kernel that
reads through padding and dilation measured 2x slower for the digits-CNN sizes.)

One pass over the output with the window loop inside: NumPy needs one pass per window
tap over strided views (slow for the small inner extents of pooled feature maps);
measured on the 2-core machine for ``(64, 16, 8, 8)`` float32 and 2x2 windows: ~0.6 ms
(NumPy tap loop) against ~0.03 ms here (``python benchmarks/conv_impl.py``).  Out-of-
range taps (padding) are skipped, which is -inf padding for the max and zero padding for
the sum.  The max follows PyTorch's CPU kernel exactly: the running maximum starts at
-inf with the index of the first in-range element, and a tap replaces it when
``val > max or isnan(val)``.

numba is imported on first use; kernels compile with ``cache=True``.
"""
from __future__ import annotations

import threading
from typing import Any

import numpy as np

_lock = threading.Lock()
_kernels: dict[str, Any] = {}  # "k" -> the compiled numba kernels


def _build():
    import numba

    @numba.njit(cache=True, error_model="numpy")
    def max2d(x, kh, kw, sh, sw, ph, pw, dh, dw, out, idx):
        B, H, W = x.shape
        oh, ow = out.shape[1], out.shape[2]
        for b in range(B):
            for i in range(oh):
                r0 = i * sh - ph
                for j in range(ow):
                    c0 = j * sw - pw
                    m = -np.inf
                    k = -1
                    for u in range(kh):
                        r = r0 + u * dh
                        if r < 0 or r >= H:
                            continue
                        for v in range(kw):
                            c = c0 + v * dw
                            if c < 0 or c >= W:
                                continue
                            val = x[b, r, c]
                            if k < 0:
                                k = r * W + c
                            if val > m or val != val:
                                m = val
                                k = r * W + c
                    out[b, i, j] = m
                    idx[b, i, j] = b * H * W + max(k, 0)

    @numba.njit(cache=True, error_model="numpy")
    def sum2d(x, kh, kw, sh, sw, ph, pw, dh, dw, out):
        B, H, W = x.shape
        oh, ow = out.shape[1], out.shape[2]
        for b in range(B):
            for i in range(oh):
                r0 = i * sh - ph
                for j in range(ow):
                    c0 = j * sw - pw
                    s = 0.0
                    for u in range(kh):
                        r = r0 + u * dh
                        if r < 0 or r >= H:
                            continue
                        for v in range(kw):
                            c = c0 + v * dw
                            if 0 <= c < W:
                                s += x[b, r, c]
                    out[b, i, j] = s

    @numba.njit(cache=True, error_model="numpy")
    def max2x2(x, sh, sw, out, idx):
        # 2x2 windows inside the array (no padding, no dilation): the taps unrolled --
        # the same scan order and comparisons as max2d, ~3x faster (its short window
        # loops with runtime bounds do not unroll)
        B, H, W = x.shape
        oh, ow = out.shape[1], out.shape[2]
        for b in range(B):
            off = b * H * W
            for i in range(oh):
                r = i * sh
                for j in range(ow):
                    c = j * sw
                    m = x[b, r, c]
                    k = r * W + c
                    v = x[b, r, c + 1]
                    if v > m or v != v:
                        m = v
                        k = r * W + c + 1
                    v = x[b, r + 1, c]
                    if v > m or v != v:
                        m = v
                        k = (r + 1) * W + c
                    v = x[b, r + 1, c + 1]
                    if v > m or v != v:
                        m = v
                        k = (r + 1) * W + c + 1
                    out[b, i, j] = m
                    idx[b, i, j] = off + k

    @numba.njit(cache=True, error_model="numpy")
    def scatter(idx, ct, out):
        for i in range(ct.size):
            out[idx[i]] += ct[i]

    return max2d, sum2d, scatter, max2x2


def _get():
    k = _kernels.get("k")
    if k is None:
        with _lock:
            k = _kernels.get("k")
            if k is None:
                k = _kernels["k"] = _build()
    return k


def plan_shape(shape, dtype, window, strides, padding, dilation):
    """``(params, (B, oh, ow))``: the 2-d kernel parameters for an array of ``shape`` and
    ``dtype`` when the window covers only its last two axes (leading axes: window 1,
    stride 1, no padding, no dilation), the dtype is float32/float64 and nothing is
    empty or cropped; None otherwise.  (The compiled path, :mod:`ftrans.compiler.
    _numba_conv`, follows the kernels' conventions exactly where this is not None.)"""
    if np.dtype(dtype) not in (np.float32, np.float64) or len(shape) == 0:
        return None
    n = len(shape)
    lead = max(0, n - 2)
    for i in range(lead):
        if window[i] != 1 or strides[i] != 1 or padding[i] != (0, 0) or dilation[i] != 1:
            return None
    if n == 1:
        B, H, W = 1, 1, shape[0]
        params = (1, window[0], 1, strides[0], 0, padding[0][0], 1, dilation[0])
        hi = (0, padding[0][1])
    else:
        if 0 in shape:
            return None
        B, H, W = int(np.prod(shape[:-2], dtype=np.int64)), shape[-2], shape[-1]
        params = (window[-2], window[-1], strides[-2], strides[-1], padding[-2][0],
                  padding[-1][0], dilation[-2], dilation[-1])
        hi = (padding[-2][1], padding[-1][1])
    kh, kw, sh, sw, ph, pw, dh, dw = params
    oh = (H + ph + hi[0] - (kh - 1) * dh - 1) // sh + 1
    ow = (W + pw + hi[1] - (kw - 1) * dw - 1) // sw + 1
    if oh <= 0 or ow <= 0 or ph < 0 or pw < 0 or hi[0] < 0 or hi[1] < 0:
        return None
    return params, (B, oh, ow)


def plan(x, window, strides, padding, dilation):
    """The ``(B, H, W)`` view and 2-d parameters when :func:`plan_shape` accepts the NumPy
    array ``x``; None otherwise (the caller uses its generic path)."""
    if type(x) is not np.ndarray:
        return None
    p = plan_shape(x.shape, x.dtype, window, strides, padding, dilation)
    if p is None:
        return None
    params, oshape = p
    x3 = x.reshape((-1,) + x.shape[-2:]) if x.ndim >= 2 else x.reshape(1, 1, x.shape[0])
    return np.ascontiguousarray(x3), params, oshape


def window_max(x, window, strides, padding, dilation, want_index):
    """``(max, flat index of the first maximum)`` (index None unless ``want_index``) or
    None when :func:`plan` declines."""
    p = plan(x, window, strides, padding, dilation)
    if p is None:
        return None
    x3, params, oshape = p
    out = np.empty(oshape, x.dtype)
    idx = np.empty(oshape, np.int64)
    kh, kw, sh, sw, ph, pw, dh, dw = params
    H, W = x3.shape[1:]
    if (kh == 2 and kw == 2 and ph == 0 and pw == 0 and dh == 1 and dw == 1
            and (oshape[1] - 1) * sh + 1 < H and (oshape[2] - 1) * sw + 1 < W):
        _get()[3](x3, sh, sw, out, idx)
    else:
        _get()[0](x3, *params, out, idx)
    shape = tuple(x.shape[:-2]) + oshape[1:] if x.ndim >= 2 else oshape[2:]
    return out.reshape(shape), (idx.reshape(shape) if want_index else None)


def window_sum(x, window, strides, padding, dilation):
    """Windowed sum (zero padding) or None when :func:`plan` declines."""
    p = plan(x, window, strides, padding, dilation)
    if p is None:
        return None
    x3, params, oshape = p
    out = np.empty(oshape, x.dtype)
    _get()[1](x3, *params, out)
    shape = tuple(x.shape[:-2]) + oshape[1:] if x.ndim >= 2 else oshape[2:]
    return out.reshape(shape)



def scatter_flat(idx, ct, shape, dtype):
    """``z = zeros(shape); z.flat[idx] += ct`` (repeated indices summed) in one numba
    pass: the max-pool cotangent routed to the saved flat indices of
    :func:`window_max`.  None unless ``ct`` is a float32/float64 array of ``dtype``
    shaped like ``idx``."""
    if (type(ct) is not np.ndarray or ct.dtype != dtype or ct.dtype not in
            (np.float32, np.float64) or ct.shape != idx.shape):
        return None
    out = np.zeros(int(np.prod(shape, dtype=np.int64)), dtype)
    _get()[2](np.ascontiguousarray(idx).reshape(-1), np.ascontiguousarray(ct).reshape(-1),
              out)
    return out.reshape(shape)


def dilate_shape(shape, dilation):
    """Length of each axis after inserting ``d - 1`` holes between elements."""
    return tuple(0 if s == 0 else 1 + d * (s - 1) for s, d in zip(shape, dilation))


def window_out_shape(shape, window, strides, padding, base_dilation, window_dilation):
    """Output shape of a windowed operation (one entry per axis)."""
    padded = tuple(s + lo + hi for s, (lo, hi) in
                   zip(dilate_shape(shape, base_dilation), padding))
    eff = dilate_shape(window, window_dilation)
    return tuple(max(0, (p - e) // st + 1) if p >= e else 0
                 for p, e, st in zip(padded, eff, strides))


def tap_table(length, out, window, stride, dilation, lo, base_dilation=1):
    """The ``(out, window)`` int64 table of the elements a window's taps read along one
    axis of ``length`` elements: tap ``t`` of output position ``o`` reads position
    ``q = o * stride + t * dilation - lo`` of the axis dilated by ``base_dilation`` (``d -
    1`` holes between elements) and padded by ``lo`` in front (negative: cropped); the
    entry is the element ``q // base_dilation`` when ``0 <= q < (length - 1) *
    base_dilation + 1`` and ``q`` falls on an element, -1 (padding or a hole) otherwise.
    XLA's ConvGeneralDilated / ReduceWindow positions; the compiled convolution and
    im2col/col2im loops read them (:mod:`ftrans.compiler._numba_conv`)."""
    q = (np.arange(out, dtype=np.int64)[:, None] * stride
         + np.arange(window, dtype=np.int64)[None, :] * dilation - lo)
    real = (q >= 0) & (q < (length - 1) * base_dilation + 1) & (q % base_dilation == 0)
    return np.where(real, q // base_dilation, -1).astype(np.int64)


def tap_tables(spatial, window, strides, padding, base_dilation, window_dilation):
    """``(out_shape, tables)``: :func:`window_out_shape` and the :func:`tap_table` of each
    axis (``padding``: ``(lo, hi)`` pairs)."""
    out = window_out_shape(tuple(spatial), window, strides, padding, base_dilation,
                           window_dilation)
    return out, [tap_table(L, o, k, s, d, lo, b) for L, o, k, s, d, (lo, _), b in
                 zip(spatial, out, window, strides, window_dilation, padding, base_dilation)]
