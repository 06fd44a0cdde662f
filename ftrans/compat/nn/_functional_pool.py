"""``torch.nn.functional``'s 3-d, adaptive, unpooling and fractional pooling and
``conv_transpose3d`` on compat Tensors (re-exported by :mod:`._functional_more`; the
public namespace: :mod:`ftrans.compat.nn.functional`)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import ftrans.compat as torch
from ..types import Tensor

from ftrans import nn as _fnn
from ftrans.compat._opbase import _compose
from ftrans.compat.autograd._composite import composite_class
from ._checks import _ntuple, _check_tensor
from ._functional_layers import (_conv_transposend, _max_pool, _avg_pool, _adaptive_avg,
                                 _adaptive_max)


# ============================================================================== 3-d pooling
def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None,  # noqa: A002
                     stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                     output_padding: int | Sequence[int] = 0, groups: int = 1,
                     dilation: int | Sequence[int] = 1) -> Tensor:
    """Transposed 3-d convolution (``torch.nn.functional.conv_transpose3d``).

    Parameters
    ----------
    input : Tensor
        ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``.
    weight : Tensor
        ``(C_in, C_out/groups, kD, kH, kW)``.
    bias : Tensor, optional
        ``(C_out,)``.
    stride : int or sequence of int, optional
        Default 1.
    padding : int or sequence of int, optional
        Default 0.
    output_padding : int or sequence of int, optional
        Default 0.
    groups : int, optional
        Default 1.
    dilation : int or sequence of int, optional
        Default 1.

    Returns
    -------
    Tensor
        ``(N, C_out, *out)``, as ``conv_transpose2d`` per axis.
    """
    return _conv_transposend(3, "conv_transpose3d", input, weight, bias, stride, padding,
                             output_padding, groups, dilation)


def max_pool3d(input: Tensor, kernel_size: int | Sequence[int],  # noqa: A002
               stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
               dilation: int | Sequence[int] = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Any:
    """Maximum over windows of the last three axes (``torch.nn.functional.max_pool3d``).

    Parameters
    ----------
    input : Tensor
        ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
    kernel_size : int or sequence of int
        Window size.
    stride : int or sequence of int, optional
        Default ``kernel_size``.
    padding : int or sequence of int, optional
        ``-inf`` padding (default 0).
    dilation : int or sequence of int, optional
        Default 1.
    ceil_mode : bool, optional
        Round the output size up (default False).
    return_indices : bool, optional
        Also return the indices of the maxima (default False).

    Returns
    -------
    Tensor or (Tensor, Tensor)
        The maxima (and their indices with ``return_indices``).
    """
    _check_tensor(input, "max_pool3d")
    if input.dim() in (4, 5) and 0 in tuple(input.shape[-4:]):
        raise RuntimeError(f"max_pool3d: Expected input's non-batch dimensions to have "
                           f"positive length, but input has a shape of {list(input.shape)} "
                           f"and non-batch dimension {input.shape[-4:].index(0) + input.dim() - 4}"
                           " has length zero!")
    return _max_pool(3, "max_pool3d", input, kernel_size, stride, padding, dilation,
                     ceil_mode, return_indices)


def avg_pool3d(input: Tensor, kernel_size: int | Sequence[int],  # noqa: A002
               stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """Mean over windows of the last three axes (``torch.nn.functional.avg_pool3d``).

    Parameters
    ----------
    input : Tensor
        ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
    kernel_size : int or sequence of int
        Window size.
    stride : int or sequence of int, optional
        Default ``kernel_size``.
    padding : int or sequence of int, optional
        Zero padding (default 0).
    ceil_mode : bool, optional
        Round the output size up (default False).
    count_include_pad : bool, optional
        Count the padding in the divisor (default True).
    divisor_override : int, optional
        Divide by this instead.

    Returns
    -------
    Tensor
        The window means.
    """
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    return _avg_pool(3, "avg_pool3d", input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override)


def _adaptive_checked(nsp: int, kind: str, input: Tensor, output_size: Any,  # noqa: A002
                      return_indices: bool = False) -> Any:
    fname = f"adaptive_{kind}_pool{nsp}d"
    _check_tensor(input, fname)
    if isinstance(output_size, (list, tuple)):
        if input.dim() <= len(output_size):
            raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
        if len(output_size) != nsp:
            raise RuntimeError(f"{fname}(): internal error: output_size.size() must be {nsp}"
                               if kind == "max" else f"{fname}: output_size must be {nsp}")
    if input.dim() not in (nsp + 1, nsp + 2):
        raise RuntimeError(f"{fname}(): Expected {nsp + 1}D or {nsp + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    sizes = tuple(input.shape[-nsp:])
    out = tuple(L if o is None else int(o) for o, L in zip(
        output_size if isinstance(output_size, (list, tuple)) else (output_size,) * nsp, sizes))
    if any(o < 0 for o in out):
        raise RuntimeError(f"{fname}(): elements of output_size must be greater than or equal "
                           f"to 0 but received {out}" if kind == "avg" else
                           f"Trying to create tensor with negative dimension {min(out)}: "
                           f"{list(input.shape[:-nsp]) + list(out)}")
    if 0 in out or 0 in sizes:
        lead = tuple(input.shape[:-nsp])
        empty = torch.zeros(0, dtype=torch.int64, device=input.device)
        flat = input.reshape(lead + (int(np.prod(sizes)),)).index_select(-1, empty)
        res = flat.reshape(lead + out) if 0 in out else torch.zeros(
            lead + out, dtype=input.dtype, device=input.device)
        if kind == "max" and return_indices:
            return res, torch.zeros(lead + out, dtype=torch.int64, device=input.device)
        return res
    if kind == "avg":
        return _adaptive_avg(nsp, input, out)
    return _adaptive_max(nsp, input, out, return_indices)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    """Average pooling of the last 1 axis to ``output_size``.

    As ``torch.nn.functional.adaptive_avg_pool1d``.

    PyTorch's bins ``[floor(i L / o), ceil((i + 1) L / o))``.

    Parameters
    ----------
    input : Tensor
        ``(N, C, L)`` or ``(C, L)``.
    output_size : int or sequence of int or None
        The output's spatial size (None keeps that axis' size).

    Returns
    -------
    Tensor
        ``(..., *output_size)``.
    """
    return _adaptive_checked(1, "avg", input, output_size)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    """Average pooling of the last 2 axes to ``output_size``.

    As ``torch.nn.functional.adaptive_avg_pool2d``.

    PyTorch's bins ``[floor(i L / o), ceil((i + 1) L / o))``.

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)`` or ``(C, H, W)``.
    output_size : int or sequence of int or None
        The output's spatial size (None keeps that axis' size).

    Returns
    -------
    Tensor
        ``(..., *output_size)``.
    """
    return _adaptive_checked(2, "avg", input, output_size)


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:  # noqa: A002
    """Average pooling of the last 3 axes to ``output_size``.

    As ``torch.nn.functional.adaptive_avg_pool3d``.

    PyTorch's bins ``[floor(i L / o), ceil((i + 1) L / o))``.

    Parameters
    ----------
    input : Tensor
        ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
    output_size : int or sequence of int or None
        The output's spatial size (None keeps that axis' size).

    Returns
    -------
    Tensor
        ``(..., *output_size)``.
    """
    return _adaptive_checked(3, "avg", input, output_size)


def adaptive_max_pool1d(input: Tensor, output_size: Any,  # noqa: A002
                        return_indices: bool = False) -> Any:
    """Max pooling of the last 1 axis to ``output_size``.

    As ``torch.nn.functional.adaptive_max_pool1d``.

    PyTorch's bins ``[floor(i L / o), ceil((i + 1) L / o))``; the gradient goes to each bin's
    first maximum.

    Parameters
    ----------
    input : Tensor
        ``(N, C, L)`` or ``(C, L)``.
    output_size : int or sequence of int or None
        The output's spatial size (None keeps that axis' size).
    return_indices : bool, optional
        Also return the indices of the maxima (default False).

    Returns
    -------
    Tensor or (Tensor, Tensor)
        The maxima (and their indices with ``return_indices``).
    """
    return _adaptive_checked(1, "max", input, output_size, return_indices)


def adaptive_max_pool2d(input: Tensor, output_size: Any,  # noqa: A002
                        return_indices: bool = False) -> Any:
    """Max pooling of the last 2 axes to ``output_size``.

    As ``torch.nn.functional.adaptive_max_pool2d``.

    PyTorch's bins ``[floor(i L / o), ceil((i + 1) L / o))``; the gradient goes to each bin's
    first maximum.

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)`` or ``(C, H, W)``.
    output_size : int or sequence of int or None
        The output's spatial size (None keeps that axis' size).
    return_indices : bool, optional
        Also return the indices of the maxima (default False).

    Returns
    -------
    Tensor or (Tensor, Tensor)
        The maxima (and their indices with ``return_indices``).
    """
    return _adaptive_checked(2, "max", input, output_size, return_indices)


def adaptive_max_pool3d(input: Tensor, output_size: Any,  # noqa: A002
                        return_indices: bool = False) -> Any:
    """Max pooling of the last 3 axes to ``output_size``.

    As ``torch.nn.functional.adaptive_max_pool3d``.

    PyTorch's bins ``[floor(i L / o), ceil((i + 1) L / o))``; the gradient goes to each bin's
    first maximum.

    Parameters
    ----------
    input : Tensor
        ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
    output_size : int or sequence of int or None
        The output's spatial size (None keeps that axis' size).
    return_indices : bool, optional
        Also return the indices of the maxima (default False).

    Returns
    -------
    Tensor or (Tensor, Tensor)
        The maxima (and their indices with ``return_indices``).
    """
    return _adaptive_checked(3, "max", input, output_size, return_indices)


# ============================================================================== max_unpool
_UNPOOL_NODES = {k: composite_class(f"MaxUnpool{k}DBackward0", ("self", "indices"))
                 for k in (2, 3)}


def _max_unpool(nsp: int, input: Tensor, indices: Tensor, kernel_size: Any,  # noqa: A002
                stride: Any, padding: Any, output_size: Sequence[int] | None) -> Tensor:
    ks = _ntuple(nsp, "kernel_size")(kernel_size)
    st = ks if stride is None else _ntuple(nsp, "stride")(stride)
    pd = _ntuple(nsp, "padding")(padding)
    if indices.dtype != torch.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {indices.dtype}")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    default = [(L - 1) * s + k - 2 * p
               for L, s, k, p in zip(input.shape[-nsp:], st, ks, pd)]
    out: list[int] | None
    if output_size is None:
        out = default
    else:
        out = list(output_size)[-nsp:] if len(output_size) in (nsp, nsp + 1, nsp + 2) else None
        if out is None:
            raise ValueError(f"output_size should be a sequence containing {nsp} or "
                             f"{nsp + 2} elements, but it has a length of '{len(output_size)}'")
        for o, dflt, s in zip(out, default, st):
            if not dflt - s < o < dflt + s:
                raise ValueError(f"invalid output_size \"{out}\" (dim {out.index(o)} must be "
                                 f"between {dflt - s} and {dflt + s})")
    lead = tuple(input.shape[:-nsp])
    plane = int(np.prod(out))
    idx = indices.reshape(lead + (-1,))
    if idx.numel() and (int(idx.min()) < 0 or int(idx.max()) >= plane):
        raise RuntimeError(f"Found an invalid max index: {int(idx.max())} (output volumes are "
                           f"of size {'x'.join(map(str, out))}")
    return _compose(_UNPOOL_NODES[max(nsp, 2)], _fnn.max_unpool, [input, indices],
                    [input._data, indices._data], {"output_size": tuple(out)}, mask=2)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: int | Sequence[int],  # noqa: A002
                 stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
                 output_size: Sequence[int] | None = None) -> Tensor:
    """Place each value at its index of the output plane, zeros elsewhere.

    As ``torch.nn.functional.max_unpool1d``.

    The inverse of ``max_pool1d(..., return_indices=True)``.

    Parameters
    ----------
    input : Tensor
        The pooled values ``(N, C, *spatial)``.
    indices : Tensor
        The indices that max pooling with ``return_indices=True`` returned.
    kernel_size : int or sequence of int
        The pooling's window.
    stride : int or sequence of int, optional
        Its step (default ``kernel_size``).
    padding : int or sequence of int, optional
        Its padding (default 0).
    output_size : sequence of int, optional
        The unpooled size (default: from the pooling settings).

    Returns
    -------
    Tensor
        ``(N, C, *out_spatial)``.
    """
    return _max_unpool(1, input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: int | Sequence[int],  # noqa: A002
                 stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
                 output_size: Sequence[int] | None = None) -> Tensor:
    """Place each value at its index of the output plane, zeros elsewhere.

    As ``torch.nn.functional.max_unpool2d``.

    The inverse of ``max_pool2d(..., return_indices=True)``.

    Parameters
    ----------
    input : Tensor
        The pooled values ``(N, C, *spatial)``.
    indices : Tensor
        The indices that max pooling with ``return_indices=True`` returned.
    kernel_size : int or sequence of int
        The pooling's window.
    stride : int or sequence of int, optional
        Its step (default ``kernel_size``).
    padding : int or sequence of int, optional
        Its padding (default 0).
    output_size : sequence of int, optional
        The unpooled size (default: from the pooling settings).

    Returns
    -------
    Tensor
        ``(N, C, *out_spatial)``.
    """
    return _max_unpool(2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: int | Sequence[int],  # noqa: A002
                 stride: int | Sequence[int] | None = None, padding: int | Sequence[int] = 0,
                 output_size: Sequence[int] | None = None) -> Tensor:
    """Place each value at its index of the output plane, zeros elsewhere.

    As ``torch.nn.functional.max_unpool3d``.

    The inverse of ``max_pool3d(..., return_indices=True)``.

    Parameters
    ----------
    input : Tensor
        The pooled values ``(N, C, *spatial)``.
    indices : Tensor
        The indices that max pooling with ``return_indices=True`` returned.
    kernel_size : int or sequence of int
        The pooling's window.
    stride : int or sequence of int, optional
        Its step (default ``kernel_size``).
    padding : int or sequence of int, optional
        Its padding (default 0).
    output_size : sequence of int, optional
        The unpooled size (default: from the pooling settings).

    Returns
    -------
    Tensor
        ``(N, C, *out_spatial)``.
    """
    return _max_unpool(3, input, indices, kernel_size, stride, padding, output_size)


# ============================================================================== fractional pooling
def _intervals(sample: float, L: int, o: int, k: int) -> np.ndarray:
    if o == 1:
        return np.array([L - k], np.int64)
    alpha = (L - k) / (o - 1)
    seq = np.array([int((i + sample) * alpha) - int(sample * alpha) for i in range(o - 1)]
                   + [L - k], np.int64)
    return seq


def _fractional(nsp: int, input: Tensor, kernel_size: Any, output_size: Any,  # noqa: A002
                output_ratio: Any, return_indices: bool, samples: Tensor | None) -> Any:
    fname = f"fractional_max_pool{nsp}d"
    ks = _ntuple(nsp, "kernel_size")(kernel_size)
    if output_size is None and output_ratio is None:
        raise ValueError(f"{fname} requires specifying either an output_size or an "
                         "output_ratio")
    batched = input.dim() == nsp + 2
    if input.dim() not in (nsp + 1, nsp + 2):
        raise RuntimeError(f"{fname}(): Expected {nsp + 1}D or {nsp + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    x = input if batched else input.unsqueeze(0)
    sizes = tuple(x.shape[2:])
    if output_size is None:
        ratio = tuple(output_ratio) if isinstance(output_ratio, (list, tuple)) \
            else (output_ratio,)
        ratio = tuple(float(r) for r in (ratio if len(ratio) == nsp else ratio * nsp))
        out = tuple(int(L * r) for L, r in zip(sizes, ratio))
    else:
        out = _ntuple(nsp, "output_size")(output_size)
    for L, o, k in zip(sizes, out, ks):
        if o + k - 1 > L:
            raise RuntimeError(f"{fname}(): pool size {k} and output size {o} are too large "
                               f"for input size {L}")
    n, c = x.shape[0], x.shape[1]
    if samples is None:
        samples = torch.rand((n, c, nsp), dtype=x.dtype, device=x.device)
    s = samples.numpy(force=True).astype(np.float64)
    # PyTorch's sample order: width first (2-d: [W, H]; 3-d: [T, H, W])
    order = (1, 0) if nsp == 2 else (0, 1, 2)
    strides = [int(np.prod(sizes[i + 1:])) for i in range(nsp)]
    offs = np.zeros((1,), np.int64)
    for i in range(nsp):   # offsets within one window, row-major
        offs = (offs[:, None] + np.arange(ks[i]) * strides[i]).reshape(-1)
    table = np.zeros((n, c) + out + (offs.size,), np.int64)
    for b in range(n):
        for ch in range(c):
            start = np.zeros((), np.int64)
            for i in range(nsp):
                seq = _intervals(s[b, ch, order[i]], sizes[i], out[i], ks[i]) * strides[i]
                start = np.add.outer(start, seq)
            table[b, ch] = start[..., None] + offs
    plane = int(np.prod(sizes))
    tt = torch.as_tensor(table.reshape(n, c, int(np.prod(out)) * offs.size), device=x.device)
    vals = x.reshape(n, c, plane).gather(2, tt).reshape((n, c) + out + (offs.size,))
    best, arg = vals.max(dim=-1)
    if not batched:
        best = best.squeeze(0)
    if not return_indices:
        return best
    idx = np.take_along_axis(table, arg.numpy(force=True)[..., None], -1)[..., 0]
    return best, torch.as_tensor(idx if batched else idx[0], device=x.device)


def fractional_max_pool2d(input: Tensor, kernel_size: int | Sequence[int],  # noqa: A002
                          output_size: int | Sequence[int] | None = None,
                          output_ratio: float | Sequence[float] | None = None,
                          return_indices: bool = False,
                          _random_samples: Tensor | None = None) -> Any:
    """Fractional max pooling over the last two axes.

    As ``torch.nn.functional.fractional_max_pool2d``.

    Without ``_random_samples`` the window offsets come from compat's generator (not
    PyTorch's).

    Parameters
    ----------
    input : Tensor
        ``(N, C, H, W)`` or ``(C, H, W)``.
    kernel_size : int or sequence of int
        Window size.
    output_size : int or sequence of int, optional
        Output size (exactly one of ``output_size`` and ``output_ratio``).
    output_ratio : float or sequence of float, optional
        Output size as a fraction of the input's, in (0, 1).
    return_indices : bool, optional
        Also return the indices of the maxima (default False).
    _random_samples : Tensor, optional
        Fixed window offsets ``(N, C, n_spatial)`` in [0, 1).

    Returns
    -------
    Tensor or (Tensor, Tensor)
        The maxima (and their indices with ``return_indices``).

    Notes
    -----
    Graham (2014), "Fractional Max-Pooling".
    """
    return _fractional(2, input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples)


def fractional_max_pool3d(input: Tensor, kernel_size: int | Sequence[int],  # noqa: A002
                          output_size: int | Sequence[int] | None = None,
                          output_ratio: float | Sequence[float] | None = None,
                          return_indices: bool = False,
                          _random_samples: Tensor | None = None) -> Any:
    """Fractional max pooling over the last three axes.

    As ``torch.nn.functional.fractional_max_pool3d``.

    Random offsets as in ``fractional_max_pool2d``.

    Parameters
    ----------
    input : Tensor
        ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
    kernel_size : int or sequence of int
        Window size.
    output_size : int or sequence of int, optional
        Output size (exactly one of ``output_size`` and ``output_ratio``).
    output_ratio : float or sequence of float, optional
        Output size as a fraction of the input's, in (0, 1).
    return_indices : bool, optional
        Also return the indices of the maxima (default False).
    _random_samples : Tensor, optional
        Fixed window offsets ``(N, C, n_spatial)`` in [0, 1).

    Returns
    -------
    Tensor or (Tensor, Tensor)
        The maxima (and their indices with ``return_indices``).
    """
    return _fractional(3, input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples)
