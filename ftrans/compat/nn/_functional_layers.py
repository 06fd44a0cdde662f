"""``torch.nn.functional``'s linear, convolution and pooling functions on compat Tensors
(normalization, dropout, embedding and padding in :mod:`._functional_norm`, activations
in :mod:`._functional_act`) (the public
namespace, its conventions and sources: :mod:`ftrans.compat.nn.functional`).  The heavy
operations -- convolution, pooling, batch norm, softmax -- are compat's adapters of
``ftrans.nn``'s fused functions (:mod:`ftrans.compat._nn_ops`).
"""
from __future__ import annotations


from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

import ftrans.compat as torch
from ..types import Tensor
from ftrans.compat import _ops as _K
from . import _checks
from ._checks import _ntuple, _check_tensor  # noqa: F401  (functional's names)



# ============================================================================== linear
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """Affine map ``input @ weight.T + bias`` (``torch.nn.functional.linear``).

    Parameters
    ----------
    input : Tensor
        ``(*, in_features)``.
    weight : Tensor
        ``(out_features, in_features)``.
    bias : Tensor, optional
        ``(out_features,)``.

    Returns
    -------
    Tensor
        ``(*, out_features)``; one ``AddmmBackward0`` node, as in PyTorch.

    Raises
    ------
    TypeError
        If ``input`` is not a Tensor.
    """
    _check_tensor(input, "linear")
    if weight.dim() != 2:
        out = input.matmul(weight.t() if weight.dim() == 2 else weight)
        return out if bias is None else out + bias
    return _K.linear(input, weight, bias)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """Bilinear map ``y_o = x1^T A_o x2 + b_o`` (``torch.nn.functional.bilinear``).

    Parameters
    ----------
    input1 : Tensor
        ``(*, in1)``.
    input2 : Tensor
        ``(*, in2)``.
    weight : Tensor
        ``(out, in1, in2)``.
    bias : Tensor, optional
        ``(out,)``.

    Returns
    -------
    Tensor
        ``(*, out)``.
    """
    out = torch.einsum("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else out + bias


# ============================================================================== conv
def _conv_padding(padding: str | int | Sequence[int], nsp: int, ks: Sequence[int],
                  dilation: Sequence[int], stride: Sequence[int],
                  fname: str) -> tuple[tuple[int, int], ...]:
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


def _convnd(nsp: int, fname: str, input: Tensor, weight: Tensor, bias: Tensor | None,  # noqa: A002
            stride: int | Sequence[int], padding: str | int | Sequence[int],
            dilation: int | Sequence[int], groups: int) -> Tensor:
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


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
           stride: int | Sequence[int] = 1, padding: str | int | Sequence[int] = 0,
           dilation: int | Sequence[int] = 1, groups: int = 1) -> Tensor:
    """1-d convolution (cross-correlation) (``torch.nn.functional.conv1d``).

    Parameters
    ----------
    input : Tensor
        ``(N, C_in, L)`` or unbatched ``(C_in, L)``.
    weight : Tensor
        ``(C_out, C_in/groups, k)``.
    bias : Tensor, optional
        ``(C_out,)``.
    stride : int or sequence of int, optional
        Step (default 1).
    padding : int, sequence of int or str, optional
        Zeros on both sides, ``'valid'`` (none) or ``'same'`` (output size = input size;
        stride 1 only); default 0.
    dilation : int or sequence of int, optional
        Spacing between kernel elements (default 1).
    groups : int, optional
        Blocked connections from input to output channels (default 1).

    Returns
    -------
    Tensor
        ``(N, C_out, *out)`` with ``out = (L + 2p - d(k-1) - 1)//s + 1`` per axis.

    Raises
    ------
    RuntimeError
        For mismatched dtypes or shapes, non-positive strides, or an input of the wrong
        rank (PyTorch's messages).
    ValueError
        For an unknown padding string or ``'same'`` with a stride.
    TypeError
        If ``input`` is not a Tensor.
    """
    return _convnd(1, "conv1d", input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
           stride: int | Sequence[int] = 1, padding: str | int | Sequence[int] = 0,
           dilation: int | Sequence[int] = 1, groups: int = 1) -> Tensor:
    """2-d convolution (cross-correlation) (``torch.nn.functional.conv2d``).

    Parameters
    ----------
    input : Tensor
        ``(N, C_in, H, W)`` or unbatched ``(C_in, H, W)``.
    weight : Tensor
        ``(C_out, C_in/groups, kH, kW)``.
    bias : Tensor, optional
        ``(C_out,)``.
    stride : int or sequence of int, optional
        Step (default 1).
    padding : int, sequence of int or str, optional
        Zeros on both sides, ``'valid'`` (none) or ``'same'`` (output size = input size;
        stride 1 only); default 0.
    dilation : int or sequence of int, optional
        Spacing between kernel elements (default 1).
    groups : int, optional
        Blocked connections from input to output channels (default 1).

    Returns
    -------
    Tensor
        ``(N, C_out, *out)`` with ``out = (L + 2p - d(k-1) - 1)//s + 1`` per axis.

    Raises
    ------
    RuntimeError
        For mismatched dtypes or shapes, non-positive strides, or an input of the wrong
        rank (PyTorch's messages).
    ValueError
        For an unknown padding string or ``'same'`` with a stride.
    TypeError
        If ``input`` is not a Tensor.
    """
    return _convnd(2, "conv2d", input, weight, bias, stride, padding, dilation, groups)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
           stride: int | Sequence[int] = 1, padding: str | int | Sequence[int] = 0,
           dilation: int | Sequence[int] = 1, groups: int = 1) -> Tensor:
    """3-d convolution (cross-correlation) (``torch.nn.functional.conv3d``).

    Parameters
    ----------
    input : Tensor
        ``(N, C_in, D, H, W)`` or unbatched ``(C_in, D, H, W)``.
    weight : Tensor
        ``(C_out, C_in/groups, kD, kH, kW)``.
    bias : Tensor, optional
        ``(C_out,)``.
    stride : int or sequence of int, optional
        Step (default 1).
    padding : int, sequence of int or str, optional
        Zeros on both sides, ``'valid'`` (none) or ``'same'`` (output size = input size;
        stride 1 only); default 0.
    dilation : int or sequence of int, optional
        Spacing between kernel elements (default 1).
    groups : int, optional
        Blocked connections from input to output channels (default 1).

    Returns
    -------
    Tensor
        ``(N, C_out, *out)`` with ``out = (L + 2p - d(k-1) - 1)//s + 1`` per axis.

    Raises
    ------
    RuntimeError
        For mismatched dtypes or shapes, non-positive strides, or an input of the wrong
        rank (PyTorch's messages).
    ValueError
        For an unknown padding string or ``'same'`` with a stride.
    TypeError
        If ``input`` is not a Tensor.
    """
    return _convnd(3, "conv3d", input, weight, bias, stride, padding, dilation, groups)


def _conv_transposend(nsp: int, fname: str, input: Tensor, weight: Tensor,  # noqa: A002
                      bias: Tensor | None, stride: int | Sequence[int],
                      padding: int | Sequence[int], output_padding: int | Sequence[int],
                      groups: int, dilation: int | Sequence[int]) -> Tensor:
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


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
                     stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                     output_padding: int | Sequence[int] = 0, groups: int = 1,
                     dilation: int | Sequence[int] = 1) -> Tensor:
    """Transposed 1-d convolution, the gradient of ``conv1d`` w.r.t. its input.

    As ``torch.nn.functional.conv_transpose1d``.

    Parameters
    ----------
    input : Tensor
        ``(N, C_in, L)`` or unbatched ``(C_in, L)``.
    weight : Tensor
        ``(C_in, C_out/groups, k)``.
    bias : Tensor, optional
        ``(C_out,)``.
    stride : int or sequence of int, optional
        Step of the underlying convolution (default 1).
    padding : int or sequence of int, optional
        ``dilation * (k - 1) - padding`` zeros are added to each side (default 0).
    output_padding : int or sequence of int, optional
        Extra size on one side of the output, smaller than ``stride`` or ``dilation`` (default 0).
    groups : int, optional
        Blocked connections (default 1).
    dilation : int or sequence of int, optional
        Spacing between kernel elements (default 1).

    Returns
    -------
    Tensor
        ``(N, C_out, *out)`` with ``out = (L-1)s - 2p + d(k-1) + output_padding + 1``.

    Raises
    ------
    RuntimeError
        If ``output_padding`` is not smaller than ``stride`` or ``dilation``.
    TypeError
        If ``input`` is not a Tensor.
    """
    return _conv_transposend(1, "conv_transpose1d", input, weight, bias, stride, padding,
                             output_padding, groups, dilation)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
                     stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                     output_padding: int | Sequence[int] = 0, groups: int = 1,
                     dilation: int | Sequence[int] = 1) -> Tensor:
    """Transposed 2-d convolution, the gradient of ``conv2d`` w.r.t. its input.

    As ``torch.nn.functional.conv_transpose2d``.

    Parameters
    ----------
    input : Tensor
        ``(N, C_in, H, W)`` or unbatched ``(C_in, H, W)``.
    weight : Tensor
        ``(C_in, C_out/groups, kH, kW)``.
    bias : Tensor, optional
        ``(C_out,)``.
    stride : int or sequence of int, optional
        Step of the underlying convolution (default 1).
    padding : int or sequence of int, optional
        ``dilation * (k - 1) - padding`` zeros are added to each side (default 0).
    output_padding : int or sequence of int, optional
        Extra size on one side of the output, smaller than ``stride`` or ``dilation`` (default 0).
    groups : int, optional
        Blocked connections (default 1).
    dilation : int or sequence of int, optional
        Spacing between kernel elements (default 1).

    Returns
    -------
    Tensor
        ``(N, C_out, *out)`` with ``out = (L-1)s - 2p + d(k-1) + output_padding + 1``.

    Raises
    ------
    RuntimeError
        If ``output_padding`` is not smaller than ``stride`` or ``dilation``.
    TypeError
        If ``input`` is not a Tensor.
    """
    return _conv_transposend(2, "conv_transpose2d", input, weight, bias, stride, padding,
                             output_padding, groups, dilation)


# ============================================================================== pooling
def _pool_geometry(nsp: int, fname: str, input: Tensor,  # noqa: A002
                   kernel_size: int | Sequence[int], stride: int | Sequence[int] | None,
                   padding: int | Sequence[int], dilation: int | Sequence[int],
                   ceil_mode: bool) -> tuple[Any, ...]:
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


def _max_pool(nsp: int, fname: str, input: Tensor, kernel_size: int | Sequence[int],  # noqa: A002
              stride: int | Sequence[int] | None, padding: int | Sequence[int],
              dilation: int | Sequence[int], ceil_mode: bool, return_indices: bool) -> Any:
    _checks.pool(fname, nsp, input, kernel_size, stride, padding, dilation)
    ks, st, pd, dl, pads, _ = _pool_geometry(nsp, fname, input, kernel_size, stride, padding,
                                             dilation, ceil_mode)
    out = _K.window_max(input, ks, st, pads, dl)
    if return_indices:
        return out, _K.window_argmax(input, ks, st, pads, dl)
    return out


def max_pool1d(input: Tensor, kernel_size: int | Sequence[int],  # noqa: A002
               stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
               dilation: int | Sequence[int] = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Any:
    """Maximum over windows of the last 1 axis (``torch.nn.functional.max_pool1d``).

    Parameters
    ----------
    input : Tensor
        ``(N, C, L)`` or ``(C, L)``.
    kernel_size : int or sequence of int
        Window size.
    stride : int or sequence of int, optional
        Step (default ``kernel_size``).
    padding : int or sequence of int, optional
        ``-inf`` padding on both sides, at most half the window (default 0).
    dilation : int or sequence of int, optional
        Spacing between window elements (default 1).
    ceil_mode : bool, optional
        Round the output size up (default False).
    return_indices : bool, optional
        Also return the flat index of each maximum within its plane (default False).

    Returns
    -------
    Tensor or (Tensor, Tensor)
        The maxima (and their int64 indices); the gradient goes to each window's first
        maximum.

    Raises
    ------
    RuntimeError
        For bad window arguments, padding over half the window or an empty output.
    """
    return _max_pool(1, "max_pool1d", input, kernel_size, stride, padding, dilation,
                     ceil_mode, return_indices)


def max_pool2d(input: Tensor, kernel_size: int | Sequence[int],  # noqa: A002
               stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
               dilation: int | Sequence[int] = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Any:
    """Maximum over windows of the last 2 axes (``torch.nn.functional.max_pool2d``).

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)`` or ``(C, H, W)``.
    kernel_size : int or sequence of int
        Window size.
    stride : int or sequence of int, optional
        Step (default ``kernel_size``).
    padding : int or sequence of int, optional
        ``-inf`` padding on both sides, at most half the window (default 0).
    dilation : int or sequence of int, optional
        Spacing between window elements (default 1).
    ceil_mode : bool, optional
        Round the output size up (default False).
    return_indices : bool, optional
        Also return the flat index of each maximum within its plane (default False).

    Returns
    -------
    Tensor or (Tensor, Tensor)
        The maxima (and their int64 indices); the gradient goes to each window's first
        maximum.

    Raises
    ------
    RuntimeError
        For bad window arguments, padding over half the window or an empty output.
    """
    return _max_pool(2, "max_pool2d", input, kernel_size, stride, padding, dilation,
                     ceil_mode, return_indices)


def _avg_pool(nsp: int, fname: str, input: Tensor, kernel_size: int | Sequence[int],  # noqa: A002
              stride: int | Sequence[int] | None, padding: int | Sequence[int], ceil_mode: bool,
              count_include_pad: bool, divisor_override: int | None) -> Tensor:
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


def avg_pool1d(input: Tensor, kernel_size: int | Sequence[int],  # noqa: A002
               stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """Mean over windows of the last 1 axis (``torch.nn.functional.avg_pool1d``).

    Parameters
    ----------
    input : Tensor
        ``(N, C, L)`` or ``(C, L)``.
    kernel_size : int or sequence of int
        Window size.
    stride : int or sequence of int, optional
        Step (default ``kernel_size``).
    padding : int or sequence of int, optional
        Zero padding on both sides, at most half the window (default 0).
    ceil_mode : bool, optional
        Round the output size up (default False).
    count_include_pad : bool, optional
        The divisor counts the zero padding (default True), never the extra ``ceil_mode``
        positions.

    Returns
    -------
    Tensor
        The window means.

    Raises
    ------
    RuntimeError
        For bad window arguments or an empty output.
    """
    return _avg_pool(1, "avg_pool1d", input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, None)


def avg_pool2d(input: Tensor, kernel_size: int | Sequence[int],  # noqa: A002
               stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """Mean over windows of the last 2 axes (``torch.nn.functional.avg_pool2d``).

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)`` or ``(C, H, W)``.
    kernel_size : int or sequence of int
        Window size.
    stride : int or sequence of int, optional
        Step (default ``kernel_size``).
    padding : int or sequence of int, optional
        Zero padding on both sides, at most half the window (default 0).
    ceil_mode : bool, optional
        Round the output size up (default False).
    count_include_pad : bool, optional
        The divisor counts the zero padding (default True), never the extra ``ceil_mode``
        positions.
    divisor_override : int, optional
        Divide by this instead.

    Returns
    -------
    Tensor
        The window means.

    Raises
    ------
    RuntimeError
        For bad window arguments or an empty output.
    """
    return _avg_pool(2, "avg_pool2d", input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override)


def _adaptive_matrix(L: int, o: int, dtype: DTypeLike) -> np.ndarray:
    """``(o, L)`` averaging matrix of PyTorch's adaptive pooling bins
    ``[floor(i L / o), ceil((i + 1) L / o))``."""
    m = np.zeros((o, L), dtype)
    for i in range(o):
        a = (i * L) // o
        b = -(-((i + 1) * L) // o)
        m[i, a:b] = 1.0 / (b - a)
    return m


def _adaptive_avg(nsp: int, input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
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


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    return _adaptive_avg(1, input, output_size)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    """Average pooling to ``output_size`` (an int, a pair, None keeps a size) with
    PyTorch's bins ``[floor(i L / o), ceil((i + 1) L / o))``."""
    return _adaptive_avg(2, input, output_size)


def _adaptive_max(nsp: int, input: Tensor, output_size: Any,  # noqa: A002
                  return_indices: bool) -> Any:
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


def adaptive_max_pool1d(input: Tensor, output_size: Any,  # noqa: A002
                        return_indices: bool = False) -> Any:
    return _adaptive_max(1, input, output_size, return_indices)


def adaptive_max_pool2d(input: Tensor, output_size: Any,  # noqa: A002
                        return_indices: bool = False) -> Any:
    """Max pooling to ``output_size`` with PyTorch's adaptive bins; the gradient goes to
    each bin's first maximum."""
    return _adaptive_max(2, input, output_size, return_indices)
