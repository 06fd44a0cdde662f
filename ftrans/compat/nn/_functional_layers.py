"""``torch.nn.functional``'s layers and activations on compat Tensors (the public
namespace, its conventions and sources: :mod:`ftrans.compat.nn.functional`).  The heavy
operations -- convolution, pooling, batch norm, softmax -- are compat's adapters of
``ftrans.nn``'s fused functions (:mod:`ftrans.compat._nn_ops`).
"""
from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

import ftrans.compat as torch
from ftrans.compat import Tensor
from ftrans.compat import _ops as _K
from ftrans.compat._tensor import _concrete
from . import _checks



def _ntuple(n, name="argument"):
    def parse(x):
        if isinstance(x, (list, tuple)):
            if len(x) == 1 and n > 1:
                return tuple(x) * n
            if len(x) != n:
                raise ValueError(f"{name} must be an int or a tuple of {n} ints, got {x}")
            return tuple(int(a) for a in x)
        return (int(x),) * n
    return parse


def _check_tensor(x, fname, what="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{what}' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")


# ============================================================================== linear
def linear(input, weight, bias=None):  # noqa: A002
    """``input @ weight.T + bias``; ``input (*, in)``, ``weight (out, in)``, ``bias (out,)``
    (one ``AddmmBackward0`` node, as in PyTorch)."""
    _check_tensor(input, "linear")
    if weight.dim() != 2:
        out = input.matmul(weight.t() if weight.dim() == 2 else weight)
        return out if bias is None else out + bias
    return _K.linear(input, weight, bias)


def bilinear(input1, input2, weight, bias=None):
    """``y_o = x1^T A_o x2 + b_o``; ``input1 (*, in1)``, ``input2 (*, in2)``,
    ``weight (out, in1, in2)``."""
    out = torch.einsum("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else out + bias


# ============================================================================== conv
def _conv_padding(padding, nsp, ks, dilation, stride, fname):
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * nsp
        if padding == "same":
            if any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            out = []
            for k, d in zip(ks, dilation):
                total = d * (k - 1)
                out.append((total // 2, total - total // 2))
            return tuple(out)
        raise ValueError(f"Invalid padding string '{padding}', should be one of "
                         "{'valid', 'same'}")
    p = _ntuple(nsp, "padding")(padding)
    return tuple((a, a) for a in p)


def _convnd(nsp, fname, input, weight, bias, stride, padding, dilation, groups):  # noqa: A002
    _check_tensor(input, fname)
    _checks.conv(fname, nsp, input, weight, bias, stride, padding, dilation, groups)
    unbatched = input.dim() == nsp + 1
    if unbatched:
        input = input.unsqueeze(0)
    if input.dim() != nsp + 2:
        raise RuntimeError(f"Expected {nsp + 1}D (unbatched) or {nsp + 2}D (batched) input to "
                           f"{fname}, but got input of size: {list(input.shape)}")
    stride = _ntuple(nsp, "stride")(stride)
    dilation = _ntuple(nsp, "dilation")(dilation)
    pads = _conv_padding(padding, nsp, tuple(weight.shape[2:]), dilation, stride, fname)
    out = _K.convolution(input, weight, bias, stride, pads, dilation, groups)
    return out.squeeze(0) if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """1-d cross-correlation: ``input (N, C_in, L)``, ``weight (C_out, C_in/groups, k)``;
    ``padding`` an int, a 1-tuple, ``'valid'`` or ``'same'``."""
    return _convnd(1, "conv1d", input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """2-d cross-correlation: ``input (N, C_in, H, W)``, ``weight (C_out, C_in/groups, kH,
    kW)`` -> ``(N, C_out, H_out, W_out)`` with ``H_out = (H + 2p - d(k-1) - 1)//s + 1``."""
    return _convnd(2, "conv2d", input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    return _convnd(3, "conv3d", input, weight, bias, stride, padding, dilation, groups)


def _conv_transposend(nsp, fname, input, weight, bias, stride, padding, output_padding,
                      groups, dilation):
    _check_tensor(input, fname)
    unbatched = input.dim() == nsp + 1
    if unbatched:
        input = input.unsqueeze(0)
    stride = _ntuple(nsp, "stride")(stride)
    padding = _ntuple(nsp, "padding")(padding)
    output_padding = _ntuple(nsp, "output_padding")(output_padding)
    dilation = _ntuple(nsp, "dilation")(dilation)
    for op, s, d in zip(output_padding, stride, dilation):
        if op >= s and op >= d:
            raise RuntimeError("output padding must be smaller than either stride or dilation, "
                               f"but got output_padding={output_padding}, stride={stride}, "
                               f"dilation={dilation}")
    cin, cout_g = weight.shape[0], weight.shape[1]
    ks = tuple(weight.shape[2:])
    # (C_in, C_out/G, k) -> (C_out, C_in/G, k), flipped: the equivalent forward kernel
    w = weight.reshape((groups, cin // groups, cout_g) + ks).transpose(1, 2)
    w = w.reshape((groups * cout_g, cin // groups) + ks).flip(list(range(2, 2 + nsp)))
    pads = tuple((d * (k - 1) - p, d * (k - 1) - p + op)
                 for k, d, p, op in zip(ks, dilation, padding, output_padding))
    out = _K.convolution(input, w, bias, (1,) * nsp, pads, dilation, groups,
                         lhs_dilation=stride)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,  # noqa: A002
                     groups=1, dilation=1):
    return _conv_transposend(1, "conv_transpose1d", input, weight, bias, stride, padding,
                             output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,  # noqa: A002
                     groups=1, dilation=1):
    """Transposed 2-d convolution (the gradient of ``conv2d`` w.r.t. its input):
    ``weight (C_in, C_out/groups, kH, kW)``, ``H_out = (H-1)s - 2p + d(k-1) + op + 1``."""
    return _conv_transposend(2, "conv_transpose2d", input, weight, bias, stride, padding,
                             output_padding, groups, dilation)


# ============================================================================== pooling
def _pool_geometry(nsp, fname, input, kernel_size, stride, padding, dilation, ceil_mode):
    ks = _ntuple(nsp, "kernel_size")(kernel_size)
    st = ks if (stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0)) \
        else _ntuple(nsp, "stride")(stride)
    pd = _ntuple(nsp, "padding")(padding)
    dl = _ntuple(nsp, "dilation")(dilation)
    if input.dim() not in (nsp + 1, nsp + 2):
        raise RuntimeError(f"{fname}: Expected {nsp + 1}D or {nsp + 2}D input, but got input "
                           f"of size: {list(input.shape)}")
    for k, p in zip(ks, pd):
        if p > k // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={dl[0]}")
    sizes = tuple(input.shape[-nsp:])
    pads, outs = [], []
    for L, k, s, p, d in zip(sizes, ks, st, pd, dl):
        span = L + 2 * p - d * (k - 1) - 1
        if ceil_mode:
            o = -(-span // s) + 1
            if (o - 1) * s >= L + p:
                o -= 1
        else:
            o = span // s + 1
        if o < 1:
            raise RuntimeError(f"Given input size: ({'x'.join(map(str, input.shape[-nsp - 1:]))}"
                               f"). Calculated output size: ({'x'.join('0' for _ in sizes)}). "
                               "Output size is too small")
        extra = max(0, (o - 1) * s + d * (k - 1) + 1 - (L + 2 * p))
        pads.append((p, p + extra))
        outs.append(o)
    return ks, st, pd, dl, tuple(pads), tuple(outs)


def _max_pool(nsp, fname, input, kernel_size, stride, padding, dilation, ceil_mode,  # noqa: A002
              return_indices):
    _checks.pool(fname, nsp, input, kernel_size, stride, padding, dilation)
    ks, st, pd, dl, pads, _ = _pool_geometry(nsp, fname, input, kernel_size, stride, padding,
                                             dilation, ceil_mode)
    out = _K.window_max(input, ks, st, pads, dl)
    if return_indices:
        return out, _K.window_argmax(input, ks, st, pads, dl)
    return out


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    return _max_pool(1, "max_pool1d", input, kernel_size, stride, padding, dilation,
                     ceil_mode, return_indices)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Maximum over ``kernel_size`` windows of the last two axes (stride defaults to
    ``kernel_size``; padding with -inf, at most half the kernel).  With
    ``return_indices`` also the flat index of each maximum within its ``H x W`` plane."""
    return _max_pool(2, "max_pool2d", input, kernel_size, stride, padding, dilation,
                     ceil_mode, return_indices)


def _avg_pool(nsp, fname, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override):
    _checks.pool(fname, nsp, input, kernel_size, stride, padding)
    _checks.divisor(divisor_override)
    ks, st, pd, dl, pads, outs = _pool_geometry(nsp, fname, input, kernel_size, stride,
                                                padding, 1, ceil_mode)
    s = _K.window_sum(input, ks, st, pads)
    if divisor_override:
        return s / divisor_override
    div = np.ones((), np.float64)
    for L, k, stp, p, o in zip(input.shape[-nsp:], ks, st, pd, outs):
        start = np.arange(o) * stp - p
        end = np.minimum(start + k, L + p)
        if count_include_pad:
            n = end - start
        else:
            n = np.minimum(end, L) - np.maximum(start, 0)
        div = np.multiply.outer(div, n.astype(np.float64))
    return s / torch.as_tensor(div, dtype=s.dtype, device=input.device)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True):
    return _avg_pool(1, "avg_pool1d", input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, None)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True, divisor_override=None):
    """Mean over ``kernel_size`` windows of the last two axes; the divisor counts the
    zero padding when ``count_include_pad`` (PyTorch's default), never the extra
    ``ceil_mode`` positions; ``divisor_override`` replaces it."""
    return _avg_pool(2, "avg_pool2d", input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override)


def _adaptive_matrix(L, o, dtype):
    """``(o, L)`` averaging matrix of PyTorch's adaptive pooling bins
    ``[floor(i L / o), ceil((i + 1) L / o))``."""
    m = np.zeros((o, L), dtype)
    for i in range(o):
        a = (i * L) // o
        b = -(-((i + 1) * L) // o)
        m[i, a:b] = 1.0 / (b - a)
    return m


def _adaptive_avg(nsp, input, output_size):  # noqa: A002
    _checks.adaptive(f"adaptive_avg_pool{nsp}d", nsp, input, output_size)
    out = _ntuple(nsp, "output_size")(
        [s if s is not None else L for s, L in
         zip(output_size if isinstance(output_size, (list, tuple)) else (output_size,) * nsp,
             input.shape[-nsp:])])
    x = input if input.is_floating_point() or input.is_complex() else input.float()
    sizes = tuple(input.shape[-nsp:])
    if all(L % o == 0 for L, o in zip(sizes, out)):
        ks = tuple(L // o for L, o in zip(sizes, out))
        s = _K.window_sum(x, ks, ks, ((0, 0),) * nsp)
        return s / float(np.prod(ks))
    y = x
    for i, (L, o) in enumerate(zip(sizes, out)):
        m = torch.as_tensor(_adaptive_matrix(L, o, np.float64), dtype=x.dtype, device=x.device)
        y = y.movedim(-nsp + i, -1).matmul(m.t()).movedim(-1, -nsp + i)
    return y


def adaptive_avg_pool1d(input, output_size):  # noqa: A002
    return _adaptive_avg(1, input, output_size)


def adaptive_avg_pool2d(input, output_size):  # noqa: A002
    """Average pooling to ``output_size`` (an int, a pair, None keeps a size) with
    PyTorch's bins ``[floor(i L / o), ceil((i + 1) L / o))``."""
    return _adaptive_avg(2, input, output_size)


def _adaptive_max(nsp, input, output_size, return_indices):  # noqa: A002
    _checks.adaptive(f"adaptive_max_pool{nsp}d", nsp, input, output_size)
    sizes = tuple(input.shape[-nsp:])
    out = _ntuple(nsp, "output_size")(
        [s if s is not None else L for s, L in
         zip(output_size if isinstance(output_size, (list, tuple)) else (output_size,) * nsp,
             sizes)])
    if all(L % o == 0 for L, o in zip(sizes, out)):
        ks = tuple(L // o for L, o in zip(sizes, out))
        return _max_pool(nsp, f"adaptive_max_pool{nsp}d", input, ks, ks, 0, 1, False,
                         return_indices)
    # PyTorch's bins [floor(i L / o), ceil((i + 1) L / o)), padded to the largest bin with
    # an extra -inf element; max(dim=-1) picks the first maximum in row-major bin order
    bins = []
    for L, o in zip(sizes, out):
        bins.append([list(range((i * L) // o, -(-((i + 1) * L) // o))) for i in range(o)])
    plane = int(np.prod(sizes))
    strides = [int(np.prod(sizes[k + 1:])) for k in range(nsp)]
    cells = []
    for combo in np.ndindex(*out):
        pos = [0]
        for k, i in enumerate(combo):
            pos = [p + r * strides[k] for p in pos for r in bins[k][i]]
        cells.append(pos)
    width = max(len(c) for c in cells)
    table = np.array([c + [plane] * (width - len(c)) for c in cells], np.int64)
    lead = tuple(input.shape[:-nsp])
    flat = input.reshape(lead + (plane,))
    pad = torch.full(lead + (1,), float("-inf"), dtype=input.dtype, device=input.device)
    vals = torch.cat([flat, pad], -1).index_select(
        -1, torch.as_tensor(table.reshape(-1), device=input.device))
    best, arg = vals.reshape(lead + table.shape).max(dim=-1)
    best = best.reshape(lead + out)
    if not return_indices:
        return best
    idx = np.take_along_axis(np.broadcast_to(table, lead + table.shape),
                             arg.numpy()[..., None], -1)[..., 0]
    return best, torch.as_tensor(idx.reshape(lead + out), device=input.device)


def adaptive_max_pool1d(input, output_size, return_indices=False):  # noqa: A002
    return _adaptive_max(1, input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    """Max pooling to ``output_size`` with PyTorch's adaptive bins; the gradient goes to
    each bin's first maximum."""
    return _adaptive_max(2, input, output_size, return_indices)


# ============================================================================== normalization
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-05):
    """Batch normalization over all axes but the channel axis 1.

    Training: batch statistics (biased variance) normalize, and the running statistics
    are updated in place, ``r = (1 - momentum) r + momentum * stat`` with the *unbiased*
    variance (PyTorch's documented rule).  Otherwise the running statistics normalize.
    Raises ValueError with fewer than two values per channel in training."""
    _check_tensor(input, "batch_norm")
    if input.dim() < 2:
        raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")
    C = input.shape[1]
    if training:
        n = input.numel() // C if C else 0
        if n == 1:   # (an empty batch normalizes to an empty result, as in PyTorch)
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {input.shape}")
    elif running_mean is None or running_var is None:
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    if input.numel() == 0:   # PyTorch's empty-batch path: no statistics, still in the graph
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        return out if bias is None else out + bias[0]
    out, mean, var = _K.native_batch_norm(input, weight, bias, running_mean, running_var,
                                          training, eps)
    if training and (running_mean is not None or running_var is not None):
        # under compat.func the statistics are Tracers: the buffers take their primal
        # values, as torch.func's do
        mean, var = _concrete(mean), _concrete(var)
        with torch.no_grad():
            if running_mean is not None:
                running_mean.mul_(1 - momentum).add_(
                    torch.as_tensor(mean, dtype=running_mean.dtype, device=running_mean.device)
                    * momentum)
            if running_var is not None:
                running_var.mul_(1 - momentum).add_(
                    torch.as_tensor(var, dtype=running_var.dtype, device=running_var.device)
                    * (momentum * n / (n - 1)))
    return out


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):  # noqa: A002
    """Normalize over the trailing ``normalized_shape`` axes (biased variance)."""
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (normalized_shape,)
    k = len(normalized_shape)
    if tuple(input.shape[input.dim() - k:]) != tuple(normalized_shape):
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input "
                           f"with shape [*, {', '.join(map(str, normalized_shape))}], but got "
                           f"input of size{list(input.shape)}")
    axes = list(range(input.dim() - k, input.dim()))
    mean = input.mean(dim=axes, keepdim=True)
    xc = input - mean
    var = (xc * xc).mean(dim=axes, keepdim=True)
    out = xc * (var + eps).rsqrt()
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):  # noqa: A002
    """Normalize each of ``num_groups`` channel groups of every sample, then a
    per-channel affine map."""
    _checks.group_norm(input, num_groups)
    N, C = input.shape[0], input.shape[1]
    if C % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {input.shape} and "
                           f"num_groups={num_groups}")
    x = input.reshape(N, num_groups, (C // num_groups) * math.prod(input.shape[2:]))
    mean = x.mean(dim=2, keepdim=True)
    xc = x - mean
    var = (xc * xc).mean(dim=2, keepdim=True)
    out = (xc * (var + eps).rsqrt()).reshape(input.shape)
    shape = (1, C) + (1,) * (input.dim() - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,  # noqa: A002
                  use_input_stats=True, momentum=0.1, eps=1e-05):
    """Normalize each (sample, channel) plane over its spatial axes, then a per-channel
    affine map (running statistics: only with ``use_input_stats=False``)."""
    N, C = input.shape[0], input.shape[1]
    if use_input_stats:
        axes = list(range(2, input.dim()))
        mean = input.mean(dim=axes, keepdim=True)
        xc = input - mean
        var = (xc * xc).mean(dim=axes, keepdim=True)
        out = xc * (var + eps).rsqrt()
        if running_mean is not None or running_var is not None:
            n = input.numel() // (N * C)
            with torch.no_grad():
                if running_mean is not None:
                    running_mean.mul_(1 - momentum).add_(mean.reshape(N, C).mean(0) * momentum)
                if running_var is not None:
                    running_var.mul_(1 - momentum).add_(
                        var.reshape(N, C).mean(0) * (momentum * n / max(n - 1, 1)))
    else:
        shape = (1, C) + (1,) * (input.dim() - 2)
        out = (input - running_mean.reshape(shape)) * (running_var.reshape(shape) + eps).rsqrt()
    shape = (1, C) + (1,) * (input.dim() - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``x1 . x2 / max(||x1|| ||x2||, eps)`` along ``dim`` (PyTorch 2.x's formula), of the
    inputs broadcast to one shape first."""
    x1, x2 = torch.broadcast_tensors(x1, x2)
    n12 = (x1 * x1).sum(dim) * (x2 * x2).sum(dim)
    return (x1 * x2).sum(dim) / n12.clamp_min(eps * eps).sqrt()


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` along the last axis."""
    return (x1 - x2 + eps).norm(p, -1, keepdim=keepdim)


def _interp_sizes(input, size, scale_factor, nsp):  # noqa: A002
    sp = tuple(input.shape[2:])
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        out = _ntuple(nsp, "size")(size)
        scales = [L / o for L, o in zip(sp, out)]
    else:
        sf = scale_factor if isinstance(scale_factor, (list, tuple)) else (scale_factor,) * nsp
        out = tuple(int(math.floor(L * f)) for L, f in zip(sp, sf))
        scales = [1.0 / f for f in sf]
    return sp, out, scales


def _linear_matrix(L, o, scale, align_corners, dtype):
    """``(o, L)`` matrix of 1-d linear interpolation weights (PyTorch's source index
    rule: ``(dst + 0.5) * scale - 0.5`` clamped at 0, or ``dst (L-1)/(o-1)`` with
    ``align_corners``)."""
    m = np.zeros((o, L), dtype)
    for i in range(o):
        if align_corners:
            src = i * (L - 1) / (o - 1) if o > 1 else 0.0
        else:
            src = max((i + 0.5) * scale - 0.5, 0.0)
        i0 = min(int(math.floor(src)), L - 1)
        i1 = min(i0 + 1, L - 1)
        lam = src - i0
        m[i, i0] += 1.0 - lam
        m[i, i1] += lam
    return m


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial axes of ``(N, C, *spatial)``: ``mode`` 'nearest' (source index
    ``floor(dst * scale)``), 'linear'/'bilinear' (separable linear weights, PyTorch's
    source-index rule).  Other modes raise NotImplementedError."""
    nsp = input.dim() - 2
    if nsp < 1:
        raise ValueError(f"interpolate expects (N, C, *spatial) input, got {input.dim()}D")
    sp, out, scales = _interp_sizes(input, size, scale_factor, nsp)
    if recompute_scale_factor and scale_factor is not None:
        scales = [L / o for L, o in zip(sp, out)]
    y = input
    if mode == "nearest":
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
        for i, (L, o, sc) in enumerate(zip(sp, out, scales)):
            idx = np.minimum(np.floor(np.arange(o) * np.float32(sc)).astype(np.int64), L - 1)
            y = y.index_select(2 + i, torch.as_tensor(idx, device=input.device))
        return y
    if mode in ("linear", "bilinear", "trilinear"):
        want = {"linear": 1, "bilinear": 2, "trilinear": 3}[mode]
        if want != nsp:
            raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                      f"{want + 2}D input")
        for i, (L, o, sc) in enumerate(zip(sp, out, scales)):
            m = torch.as_tensor(_linear_matrix(L, o, sc, bool(align_corners), np.float64),
                                dtype=y.dtype, device=y.device)
            y = y.movedim(2 + i, -1).matmul(m.t()).movedim(-1, 2 + i)
        return y
    raise NotImplementedError(f"interpolate: mode {mode!r} is not supported by ftrans.compat "
                              "(nearest, linear, bilinear, trilinear)")


def normalize(input, p=2.0, dim=1, eps=1e-12):  # noqa: A002
    """``input / max(||input||_p, eps)`` along ``dim``."""
    n = input.norm(p, dim, keepdim=True).clamp_min(eps)
    return input / n


# ============================================================================== dropout, embedding
def dropout(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)`` (in
    training; the identity otherwise).  The mask comes from compat's generator
    (``torch.manual_seed``), not PyTorch's."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        out = input * 0.0
    else:
        keep = torch.rand(input.shape, dtype=input.dtype, device=input.device) >= p
        out = input * keep.to(input.dtype) * (1.0 / (1.0 - p))
    if inplace:
        with torch.no_grad() if not input.requires_grad else _nullctx():
            return input.copy_(out)
    return out


class _nullctx:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,  # noqa: A002
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` ``(num_embeddings, dim)`` at the integer ``input`` indices; the
    row ``padding_idx`` receives no gradient."""
    _checks.embedding(weight)
    if input.is_floating_point():
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got torch.FloatTensor "
                           "instead (while checking arguments for embedding)")
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: max_norm, scale_grad_by_freq and sparse are not "
                                  "supported by ftrans.compat")
    w = weight
    if padding_idx is not None:
        n = weight.shape[0]
        if padding_idx < 0:
            padding_idx += n
        mask = torch.ones(n, 1, dtype=torch.bool, device=weight.device)
        mask[padding_idx] = False
        w = torch.where(mask, weight, weight.detach())
    flat = w.index_select(0, input.reshape(-1))
    return flat.reshape(tuple(input.shape) + (weight.shape[1],))


def one_hot(tensor, num_classes=-1):
    """int64 one-hot encoding of class indices, classes along a new last axis."""
    a = tensor.numpy(force=True)
    if a.dtype.kind not in "iu":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    n = int(a.max()) + 1 if num_classes == -1 else num_classes
    if a.size and (a.min() < 0 or a.max() >= n):
        raise RuntimeError("Class values must be smaller than num_classes.")
    return torch.as_tensor((a[..., None] == np.arange(n)).astype(np.int64), device=tensor.device)


def pad(input, pad, mode="constant", value=None):  # noqa: A002
    """Pad the last ``len(pad) // 2`` axes (``pad = (left_last, right_last, left_prev,
    ...)``) with ``value``; ``mode='constant'`` only."""
    if mode != "constant":
        raise NotImplementedError(f"pad: mode {mode!r} is not supported by ftrans.compat "
                                  "(only 'constant')")
    if len(pad) % 2:
        raise ValueError("Padding length must be divisible by 2")
    value = 0.0 if value is None else value
    out = input
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if lo < 0:
            out = out.narrow(dim, -lo, out.shape[dim] + lo)
            lo = 0
        if hi < 0:
            out = out.narrow(dim, 0, out.shape[dim] + hi)
            hi = 0
        parts = []
        for n in (lo, 0, hi):
            if n:
                shape = list(out.shape)
                shape[dim] = n
                parts.append(torch.full(shape, value, dtype=out.dtype, device=out.device))
            else:
                parts.append(None)
        seq = [p for p in (parts[0], out, parts[2]) if p is not None]
        out = torch.cat(seq, dim) if len(seq) > 1 else out
    return out


# ============================================================================== activations
def relu(input, inplace=False):  # noqa: A002
    return input.relu_() if inplace else torch.relu(input)


def relu_(input):  # noqa: A002
    return input.relu_()


def leaky_relu(input, negative_slope=0.01, inplace=False):  # noqa: A002
    """``x`` for ``x > 0``, ``negative_slope * x`` otherwise."""
    out = torch.where(input > 0, input, input * negative_slope)
    return input.copy_(out) if inplace else out


def elu(input, alpha=1.0, inplace=False):  # noqa: A002
    """``x`` for ``x > 0``, ``alpha (exp(x) - 1)`` otherwise."""
    out = torch.where(input > 0, input, torch.expm1(input.clamp(max=0.0)) * alpha)
    return input.copy_(out) if inplace else out


def gelu(input, approximate="none"):  # noqa: A002
    """``x Phi(x)``: exact with ``erf``, or PyTorch's ``approximate='tanh'`` formula."""
    if approximate == "none":
        return input * 0.5 * (1.0 + torch.erf(input * (1.0 / math.sqrt(2.0))))
    if approximate == "tanh":
        inner = (input + input * input * input * 0.044715) * math.sqrt(2.0 / math.pi)
        return input * 0.5 * (1.0 + torch.tanh(inner))
    raise RuntimeError(f"approximate argument must be either none or tanh., got "
                       f"{approximate!r}")


def silu(input, inplace=False):  # noqa: A002
    out = input * torch.sigmoid(input)
    return input.copy_(out) if inplace else out


def sigmoid(input):  # noqa: A002
    return torch.sigmoid(input)


def tanh(input):  # noqa: A002
    return torch.tanh(input)


def softplus(input, beta=1.0, threshold=20.0):  # noqa: A002
    """``log(1 + exp(beta x)) / beta``, the identity where ``beta x > threshold``."""
    z = input * beta
    soft = torch.log1p(torch.exp(z.clamp(max=threshold))) / beta
    return torch.where(z > threshold, input, soft)


def logsigmoid(input):  # noqa: A002
    """``log(sigmoid(x))`` without overflow (smooth at 0)."""
    neg = input - torch.log1p(torch.exp(input.clamp(max=0.0)))
    pos = -torch.log1p(torch.exp(-input.clamp(min=0.0)))
    return torch.where(input < 0, neg, pos)


def relu6(input, inplace=False):  # noqa: A002
    return hardtanh(input, 0.0, 6.0, inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):  # noqa: A002
    """``clamp(x, min_val, max_val)``; gradient 1 strictly inside, 0 at and beyond the
    bounds (PyTorch's hardtanh_backward)."""
    _checks.hardtanh(min_val, max_val)
    out = torch.where((input > min_val) & (input < max_val), input,
                      input.clamp(min_val, max_val).detach())
    return input.copy_(out) if inplace else out


def prelu(input, weight):  # noqa: A002
    """``max(0, x) + weight * min(0, x)``; ``weight`` has 1 or C (axis 1) entries."""
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    if weight.numel() != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        if input.dim() < 2 or weight.numel() != input.shape[1]:
            raise RuntimeError("Mismatch of parameter numbers and input channel size.")
    w = weight
    if input.dim() == 0 and weight.numel() == 1:   # a 0-d input stays 0-d
        w = weight.reshape(())
    elif weight.numel() > 1 and input.dim() >= 2:
        w = weight.reshape((1, -1) + (1,) * (input.dim() - 2))
    return torch.where(input > 0, input, input * w)


def selu(input, inplace=False):  # noqa: A002
    """``scale * elu(x, alpha)`` with Klambauer et al.'s constants."""
    out = elu(input, 1.6732632423543772848170429916717) * 1.0507009873554804934193349852946
    return input.copy_(out) if inplace else out


def celu(input, alpha=1.0, inplace=False):  # noqa: A002
    """``max(0, x) + min(0, alpha (exp(x / alpha) - 1))``."""
    out = torch.where(input > 0, input, torch.expm1(input.clamp(max=0.0) / alpha) * alpha)
    return input.copy_(out) if inplace else out


def mish(input, inplace=False):  # noqa: A002
    out = input * torch.tanh(softplus(input))
    return input.copy_(out) if inplace else out


def hardsigmoid(input, inplace=False):  # noqa: A002
    """``relu6(x + 3) / 6``; gradient 1/6 strictly inside (-3, 3) -- PyTorch's backward
    multiplies by 1/6 rounded to float32 whatever the dtype, and so does this one."""
    c = float(np.float32(1.0 / 6.0))
    lin = input * c + ((input + 3.0) / 6.0 - input * c).detach()     # value (x + 3) / 6
    out = torch.where((input > -3.0) & (input < 3.0), lin,
                      (input / 6.0 + 0.5).clamp(0.0, 1.0).detach())
    return input.copy_(out) if inplace else out


def hardswish(input, inplace=False):  # noqa: A002
    """``x * relu6(x + 3) / 6``; PyTorch's gradient: 0 below -3, 1 above 3 and
    ``x / 3 + 0.5`` on [-3, 3]."""
    mid = input * (input + 3.0) / 6.0
    out = torch.where(input < -3.0, input * 0.0, torch.where(input > 3.0, input, mid))
    return input.copy_(out) if inplace else out


def softsign(input):  # noqa: A002
    return input / (1.0 + input.abs())


def tanhshrink(input):  # noqa: A002
    return input - torch.tanh(input)


def threshold(input, threshold, value, inplace=False):  # noqa: A002
    """``x`` where ``x > threshold``, else ``value``."""
    out = torch.where(input > threshold, input, torch.full_like(input, value))
    return input.copy_(out) if inplace else out


def softmin(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002
    if dim is None:
        dim = _implicit_dim(input.dim(), "softmin")
    return torch.softmax(-input, dim, dtype=dtype)


def _implicit_dim(ndim, name):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", UserWarning, stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002
    if dim is None:
        dim = _implicit_dim(input.dim(), "softmax")
    return torch.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):  # noqa: A002
    if dim is None:
        dim = _implicit_dim(input.dim(), "log_softmax")
    return torch.log_softmax(input, dim, dtype=dtype)


