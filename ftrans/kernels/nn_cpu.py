"""CPU kernels of the small-network hot path (one numba pass each where NumPy needs
several): ReLU forward/backward, the im2col / col2im of a 2-d convolution around one
BLAS GEMM, and training-mode batch normalization forward/backward.

ReLU: ``np.where(x > 0, g, 0)`` on a ``(64, 16, 8, 8)`` float32 array measured ~280 us
on the 2-core machine (NumPy's ``where`` branches per element on a random mask) against
~10 us for one numba loop; the results are identical (``x > 0`` selects, everything
else -- NaN included -- gives 0, the semantics of the ``select`` formulation).

Convolution (stride/dilation per axis, zero padding, one group): the im2col matrix is
laid out ``(K * C, N * P)`` (tap-major, ``P`` output positions) by one numba loop that
reads through the padding (no padded copy), so the forward pass is one GEMM
``W (O, K*C) @ cols``, the weight gradient one GEMM of the cotangent with the kept
``cols`` (a residual of the forward pass) and the input gradient one GEMM followed by a
numba col2im.  Measured for the digits CNN's layers (``(64, 1, 8, 8)`` and ``(64, 16,
4, 4)`` inputs, 3x3 kernels, float32): forward ~3x / 1.2x faster than the primitive's
strided-view im2col, backward ~10x / 2x faster than its VJP (two more convolutions).
A batched ``(N, K*C, P)`` layout with one small GEMM per image measured slower.  Images
of at most ``FLAT_MAX_POSITIONS`` output positions walk one ``(tap, position)`` table of
flat offsets instead of a loop per axis: the second layer's im2col 172 -> 53 us, its
col2im 178 -> 60 us (medians of 400 calls).

Batch norm: two passes over each channel (mean, then the centred sum of squares, in
float64 accumulators) and one to write ``(x - mean) * invstd * w + b``; the backward
pass reads ``x`` and the cotangent twice (PyTorch's formula with the saved statistics).

Nothing here knows about tensors or tracers: arguments are NumPy arrays and numbers.
"""
from __future__ import annotations

import threading
from typing import Any

import numpy as np

__all__ = ["relu", "relu_backward", "batch_norm_train", "batch_norm_backward",
           "conv2d_eligible", "conv2d_forward", "conv2d_grad_weight", "conv2d_grad_input"]

#: im2col/col2im of at most this many output positions per image walk one flat table of
#: offsets (the compiler's rule, :class:`ftrans.compiler._numba_conv._Taps`: on small
#: images the per-axis loops are mostly loop overhead)
FLAT_MAX_POSITIONS = 256

_LOCK = threading.Lock()
_K: dict[str, Any] = {}  # "k" -> the compiled numba kernels


def _build():
    from numba import njit

    @njit(cache=True, error_model="numpy")
    def relu_k(x, out):
        z = x.dtype.type(0)
        for i in range(x.size):
            v = x[i]
            out[i] = v if v > 0 else z

    @njit(cache=True, error_model="numpy")
    def relu_bwd_k(ans, g, out):
        z = g.dtype.type(0)
        for i in range(g.size):
            out[i] = g[i] if ans[i] > 0 else z

    @njit(cache=True, error_model="numpy")
    def offsets_k(H, W, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow):
        # (tap, output position) -> flat offset into an (H, W) plane, -1 for padding
        off = np.empty((kh * kw, oh * ow), np.int64)
        for ki in range(kh):
            for kj in range(kw):
                for i in range(oh):
                    r = i * sh + ki * dh - ph
                    for j in range(ow):
                        q = j * sw + kj * dw - pw
                        off[ki * kw + kj, i * ow + j] = \
                            r * W + q if 0 <= r < H and 0 <= q < W else -1
        return off

    @njit(cache=True, error_model="numpy")
    def flat_k(planes, cols, off, cmajor, scatter):
        # im2col (cols[row, n*P + p] = planes[n, c, off[t, p]], 0 for -1) or, with
        # scatter, col2im (planes[n, c, off[t, p]] += cols[...]) over (N, C, H*W) planes
        N, C = planes.shape[0], planes.shape[1]
        K, P = off.shape
        z = planes.dtype.type(0)
        for c in range(C):
            for t in range(K):
                row = cols[c * K + t if cmajor else t * C + c]
                o = off[t]
                for n in range(N):
                    pl = planes[n, c]
                    base = n * P
                    if scatter:
                        for p in range(P):
                            k = o[p]
                            if k >= 0:
                                pl[k] += row[base + p]
                    else:
                        for p in range(P):
                            k = o[p]
                            row[base + p] = pl[k] if k >= 0 else z

    @njit(cache=True, error_model="numpy")
    def im2col_k(x, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, cols, cmajor):
        # rows (tap, channel), or (channel, tap) when cmajor
        N, C, H, W = x.shape
        P = oh * ow
        z = x.dtype.type(0)
        if P <= FLAT_MAX_POSITIONS:   # small images: one flat table, 1-d views
            flat_k(x.reshape((N, C, H * W)), cols,
                   offsets_k(H, W, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow), cmajor, False)
            return
        for ki in range(kh):
            for kj in range(kw):
                for c in range(C):
                    row = c * kh * kw + ki * kw + kj if cmajor else (ki * kw + kj) * C + c
                    for n in range(N):
                        base = n * P
                        for i in range(oh):
                            r = i * sh + ki * dh - ph
                            if r < 0 or r >= H:
                                for j in range(ow):
                                    cols[row, base + i * ow + j] = z
                                continue
                            for j in range(ow):
                                q = j * sw + kj * dw - pw
                                cols[row, base + i * ow + j] = x[n, c, r, q] \
                                    if 0 <= q < W else z

    @njit(cache=True, error_model="numpy")
    def col2im_k(dcols, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, g, cmajor):
        N, C, H, W = g.shape
        P = oh * ow
        if P <= FLAT_MAX_POSITIONS:
            flat_k(g.reshape((N, C, H * W)), dcols,
                   offsets_k(H, W, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow), cmajor, True)
            return
        for ki in range(kh):
            for kj in range(kw):
                for c in range(C):
                    row = c * kh * kw + ki * kw + kj if cmajor else (ki * kw + kj) * C + c
                    for n in range(N):
                        base = n * P
                        for i in range(oh):
                            r = i * sh + ki * dh - ph
                            if r < 0 or r >= H:
                                continue
                            for j in range(ow):
                                q = j * sw + kj * dw - pw
                                if 0 <= q < W:
                                    g[n, c, r, q] += dcols[row, base + i * ow + j]

    @njit(cache=True, error_model="numpy")
    def bn_fwd_k(x, scale, shift, eps, out, mean, var, invstd):
        N, C, S = x.shape
        cnt = N * S
        for c in range(C):
            s = 0.0
            for n in range(N):
                for i in range(S):
                    s += x[n, c, i]
            m = s / cnt
            q = 0.0
            for n in range(N):
                for i in range(S):
                    d = x[n, c, i] - m
                    q += d * d
            v = q / cnt
            mean[c] = m
            var[c] = v
            inv = 1.0 / np.sqrt(v + eps)
            invstd[c] = inv
            a = inv * scale[c]
            b = shift[c]
            for n in range(N):
                for i in range(S):
                    out[n, c, i] = (x[n, c, i] - m) * a + b

    @njit(cache=True, error_model="numpy")
    def bn_bwd_k(x, g, mean, invstd, w, training, dx, dw, db):
        N, C, S = x.shape
        cnt = N * S
        for c in range(C):
            m = mean[c]
            inv = invstd[c]
            sg = 0.0
            sgx = 0.0
            for n in range(N):
                for i in range(S):
                    gi = g[n, c, i]
                    sg += gi
                    sgx += gi * ((x[n, c, i] - m) * inv)
            dw[c] = sgx
            db[c] = sg
            k = w[c] * inv
            if training:
                mg = sg / cnt
                mgx = sgx / cnt
                for n in range(N):
                    for i in range(S):
                        xh = (x[n, c, i] - m) * inv
                        dx[n, c, i] = (g[n, c, i] - mg - xh * mgx) * k
            else:
                for n in range(N):
                    for i in range(S):
                        dx[n, c, i] = g[n, c, i] * k

    return relu_k, relu_bwd_k, im2col_k, col2im_k, bn_fwd_k, bn_bwd_k


def _get():
    k = _K.get("k")
    if k is None:
        with _LOCK:
            k = _K.get("k")
            if k is None:
                k = _K["k"] = _build()
    return k


def _ok(*arrays):
    dt = arrays[0].dtype
    if dt != np.float32 and dt != np.float64:
        return False
    for a in arrays:
        if type(a) is not np.ndarray or a.dtype != dt or not a.flags.c_contiguous:
            return False
    return arrays[0].size > 0


def relu(x):
    """``where(x > 0, x, 0)`` for a C-contiguous float32/float64 array, else None."""
    if not _ok(x):
        return None
    out = np.empty(x.shape, x.dtype)
    _get()[0](x.reshape(-1), out.reshape(-1))
    return out


def relu_backward(ans, g):
    """``where(ans > 0, g, 0)`` for C-contiguous float arrays of one shape and dtype,
    else None."""
    if ans.shape != g.shape or not _ok(ans, g):
        return None
    out = np.empty(g.shape, g.dtype)
    _get()[1](ans.reshape(-1), g.reshape(-1), out.reshape(-1))
    return out


# ------------------------------------------------------------------------- convolution
def conv2d_eligible(x, w, lhs_dilation, groups):
    """True for NumPy float ``(N, C, H, W)`` / ``(O, C, kh, kw)`` operands of one dtype
    with one group and no input dilation (the cases the kernels below handle)."""
    return (type(x) is np.ndarray and type(w) is np.ndarray and x.ndim == 4 and w.ndim == 4
            and x.dtype == w.dtype and x.dtype in (np.float32, np.float64) and groups == 1
            and tuple(lhs_dilation) == (1, 1) and x.size > 0 and w.size > 0)


def _geometry(xshape, kshape, stride, padding, dilation):
    N, C, H, W = xshape
    kh, kw = kshape
    (plh, phh), (plw, phw) = padding
    Hp, Wp = H + plh + phh, W + plw + phw
    oh = (Hp - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (Wp - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    return Hp, Wp, oh, ow


def conv2d_forward(x, w, stride, padding, dilation):
    """``(out (N, O, oh, ow), cols (kh*kw*C, N*oh*ow))`` of the cross-correlation of
    ``x (N, C, H, W)`` with ``w (O, C, kh, kw)``; padding ``((lo, hi), (lo, hi))``,
    all non-negative; None when the padding is negative or the output empty."""
    N, C, H, W = x.shape
    O = w.shape[0]
    kh, kw = w.shape[2:]
    if any(p < 0 for pair in padding for p in pair):
        return None
    Hp, Wp, oh, ow = _geometry(x.shape, (kh, kw), stride, padding, dilation)
    if oh <= 0 or ow <= 0:
        return None
    cols = np.empty((kh * kw * C, N * oh * ow), x.dtype)
    _get()[2](np.ascontiguousarray(x), kh, kw, stride[0], stride[1], padding[0][0],
              padding[1][0], dilation[0], dilation[1], oh, ow, cols, False)
    out = np.dot(_wmat(w), cols)                   # (O, N*P): one GEMM
    return np.ascontiguousarray(out.reshape(O, N, oh, ow).transpose(1, 0, 2, 3)), cols


def _wmat(w):
    O, C, kh, kw = w.shape
    return np.ascontiguousarray(w.transpose(0, 2, 3, 1)).reshape(O, kh * kw * C)


def _ct_mat(ct):
    N, O = ct.shape[:2]
    return np.ascontiguousarray(ct.transpose(1, 0, 2, 3)).reshape(O, -1)


def conv2d_grad_weight(ct, cols, wshape):
    """Weight gradient ``(O, C, kh, kw)`` from the cotangent ``ct (N, O, oh, ow)`` and the
    forward pass's ``cols``: one GEMM over (batch, position)."""
    O, C, kh, kw = wshape
    g = np.dot(_ct_mat(ct), cols.T)                             # (O, K*C)
    return np.ascontiguousarray(g.reshape(O, kh, kw, C).transpose(0, 3, 1, 2))


def conv2d_grad_input(ct, w, xshape, stride, padding, dilation):
    """Input gradient ``(N, C, H, W)``: ``W^T @ ct`` (the columns' cotangent, one GEMM),
    added back into the padded input one window tap at a time (col2im)."""
    N, C, H, W = xshape
    O, _, kh, kw = w.shape
    Hp, Wp, oh, ow = _geometry(xshape, (kh, kw), stride, padding, dilation)
    dcols = np.dot(_wmat(w).T, _ct_mat(ct))          # (K*C, N*P)
    g = np.zeros(xshape, ct.dtype)
    _get()[3](dcols, kh, kw, stride[0], stride[1], padding[0][0], padding[1][0],
              dilation[0], dilation[1], oh, ow, g, False)
    return g


def _patches_eligible(a, padding, lhs_dilation):
    """A non-empty NumPy float array, no input dilation, no cropping."""
    return (type(a) is np.ndarray and a.dtype in (np.float32, np.float64) and a.size > 0
            and tuple(lhs_dilation) == (1, 1) and all(p >= 0 for pair in padding for p in pair))


def patches2d(x, window, stride, padding, dilation, lhs_dilation):
    """``conv_patches`` of a NumPy float ``(N, C, H, W)`` array (rows channel-major,
    :mod:`ftrans.primitives.patches`) in one numba loop; None when not eligible
    (``lhs_dilation``, negative padding, another array type or dtype)."""
    if x.ndim != 4 or not _patches_eligible(x, padding, lhs_dilation):
        return None
    N, C = x.shape[:2]
    (kh, kw) = window
    _, _, oh, ow = _geometry(x.shape, window, stride, padding, dilation)
    if oh <= 0 or ow <= 0:
        return None
    cols = np.empty((C * kh * kw, N * oh * ow), x.dtype)
    _get()[2](np.ascontiguousarray(x), kh, kw, stride[0], stride[1], padding[0][0],
              padding[1][0], dilation[0], dilation[1], oh, ow, cols, True)
    return cols


def patches2d_transpose(cols, xshape, window, stride, padding, dilation, lhs_dilation):
    """col2im, the transpose of :func:`patches2d`, into a new ``xshape`` array; None when
    not eligible."""
    if len(xshape) != 4 or not _patches_eligible(cols, padding, lhs_dilation):
        return None
    _, _, oh, ow = _geometry(xshape, window, stride, padding, dilation)
    g = np.zeros(xshape, cols.dtype)
    _get()[3](np.ascontiguousarray(cols), window[0], window[1], stride[0], stride[1],
              padding[0][0], padding[1][0], dilation[0], dilation[1], oh, ow, g, True)
    return g


# ------------------------------------------------------------------------- batch norm
def batch_norm_train(x, weight, bias, eps):
    """Training-mode batch normalization over every axis but 1 of a C-contiguous float
    array in two passes per channel (mean, then the centred sum of squares -- the
    biased variance -- accumulated in float64; then ``(x - mean) * a + b``).  Returns ``(out,
    mean, var, invstd)`` (statistics in ``x``'s dtype) or None when not eligible."""
    if not _ok(x) or x.ndim < 2 or x.size // x.shape[1] < 1:
        return None
    for v in (weight, bias):
        if v is not None and (type(v) is not np.ndarray or v.dtype != x.dtype):
            return None
    N, C = x.shape[:2]
    x3 = x.reshape(N, C, -1)
    scale = np.ones(C) if weight is None else weight.astype(np.float64)
    shift = np.zeros(C) if bias is None else bias.astype(np.float64)
    out = np.empty(x.shape, x.dtype)
    mean, var, invstd = np.empty(C), np.empty(C), np.empty(C)
    _get()[4](x3, scale, shift, float(eps), out.reshape(x3.shape), mean, var, invstd)
    dt = x.dtype
    return out, mean.astype(dt), var.astype(dt), invstd.astype(dt)


def batch_norm_backward(x, ct, mean, invstd, weight, training):
    """``(dx, dweight, dbias)`` of batch normalization (PyTorch's formulas: ``dx =
    invstd w (g - mean(g) - xhat mean(g xhat))`` in training, ``g invstd w`` in eval;
    ``dweight = sum(g xhat)``, ``dbias = sum(g)``) in two passes per channel, or None
    when not eligible."""
    if not _ok(x, ct) or x.shape != ct.shape or x.ndim < 2:
        return None
    N, C = x.shape[:2]
    x3 = x.reshape(N, C, -1)
    w = np.ones(C) if weight is None else np.asarray(weight, np.float64)
    dx = np.empty(x.shape, x.dtype)
    dw, db = np.empty(C), np.empty(C)
    _get()[5](x3, ct.reshape(x3.shape), np.asarray(mean, np.float64),
              np.asarray(invstd, np.float64), w, bool(training), dx.reshape(x3.shape), dw, db)
    return dx, dw.astype(x.dtype), db.astype(x.dtype)
