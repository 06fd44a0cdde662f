"""Convolution and pooling layers of ``torch.nn`` (re-exported by
:mod:`~ftrans.compat.nn.layers`).  Parameter names, shapes, default initializations and
reprs are PyTorch's; the forward passes are :mod:`~ftrans.compat.nn.functional` calls."""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

from ..types import DTypeArg, DeviceLike, Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter
from .layers_norm import _empty

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "MaxPool1d",
           "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
           "AdaptiveMaxPool1d", "AdaptiveMaxPool2d"]


# ================================================================================ conv
class _ConvNd(Module):
    """The convolution layers' base: parameters, init, repr and forward."""

    _n = 2
    _transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | tuple[int, ...],
                 stride: int | tuple[int, ...] = 1, padding: str | int | tuple[int, ...] = 0,
                 dilation: int | tuple[int, ...] = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: DeviceLike = None, dtype: DTypeArg = None,
                 output_padding: int | tuple[int, ...] = 0) -> None:
        super().__init__()
        n = self._n
        tup = F._ntuple(n)
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError("padding_mode must be one of ['zeros', 'reflect', 'replicate', "
                             f"'circular'], but got padding_mode='{padding_mode}'")
        if padding_mode != "zeros" and self._transposed:
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f'{type(self).__name__}')
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 "{'valid', 'same'}")
            if padding == "same" and any(s != 1 for s in tup(stride)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = tup(kernel_size)
        self.stride = tup(stride)
        self.padding: str | tuple[int, ...] = padding if isinstance(padding, str) else tup(padding)
        self.dilation = tup(dilation)
        self.transposed = self._transposed
        self.output_padding = tup(output_padding)
        self.groups = groups
        self.padding_mode = padding_mode
        if self._transposed:
            shape = (in_channels, out_channels // groups) + self.kernel_size
        else:
            shape = (out_channels, in_channels // groups) + self.kernel_size
        self.weight = Parameter(_empty(shape, dtype, device))
        if bias:
            self.bias = Parameter(_empty((out_channels,), dtype, device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Redraw ``weight`` (Kaiming-uniform, ``a=sqrt(5)``) and ``bias`` (uniform, fan-in bound).
        """
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        n = self._n
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Convolve ``input`` with ``weight`` and add ``bias``.

        Parameters
        ----------
        input : Tensor
            ``(N, C_in, *spatial)`` or unbatched ``(C_in, *spatial)``.

        Returns
        -------
        Tensor
            ``(N, C_out, *spatial_out)`` with ``out = (L + 2p - d(k-1) - 1)//s + 1`` per axis.
        """
        padding: str | int | tuple[int, ...] = self.padding
        if self.padding_mode != "zeros":   # padded by F.pad, then an unpadded convolution
            input = F.pad(input, F._functional_more._reversed_padding(  # noqa: A001
                padding, self.kernel_size, self.dilation), mode=self.padding_mode)
            padding = 0
        return F._convnd(self._n, f"conv{self._n}d", input, self.weight, self.bias,
                         self.stride, padding, self.dilation, self.groups)


class Conv1d(_ConvNd):
    """1-d convolution (cross-correlation) over ``(N, C_in, L)`` (``torch.nn.Conv1d``).

    ``weight (C_out, C_in/groups, k)`` and ``bias (C_out,)``, both from PyTorch's default
    ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))`` init; unbatched input ``(C_in, L)`` too.

    Parameters
    ----------
    in_channels : int
        Input channels C_in.
    out_channels : int
        Output channels C_out.
    kernel_size : int or tuple of int
        Window size.
    stride : int or tuple of int, optional
        Step (default 1).
    padding : int, tuple of int or str, optional
        Zeros added to both sides, or ``'valid'`` (none) or ``'same'`` (output size = input
        size, stride 1 only); default 0.
    dilation : int or tuple of int, optional
        Spacing between kernel elements (default 1).
    groups : int, optional
        Blocked connections from input to output channels (default 1).
    bias : bool, optional
        Learn a bias (default True).
    padding_mode : str, optional
        ``'zeros'`` (default), ``'reflect'``, ``'replicate'`` or ``'circular'``.
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).
    output_padding : int or tuple of int, optional
        Used by the transposed subclasses only (default 0).

    Raises
    ------
    ValueError
        For non-positive ``groups``, channels not divisible by ``groups``, an unknown
        ``padding`` string or ``padding_mode``, or ``'same'`` with a stride.
    """

    _n = 1


class Conv2d(_ConvNd):
    """2-d convolution (cross-correlation) over ``(N, C_in, H, W)`` (``torch.nn.Conv2d``).

    ``weight (C_out, C_in/groups, kH, kW)`` and ``bias (C_out,)``, both from PyTorch's default
    ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))`` init; unbatched input ``(C_in, H, W)`` too.

    Parameters
    ----------
    in_channels : int
        Input channels C_in.
    out_channels : int
        Output channels C_out.
    kernel_size : int or tuple of int
        Window size.
    stride : int or tuple of int, optional
        Step (default 1).
    padding : int, tuple of int or str, optional
        Zeros added to both sides, or ``'valid'`` (none) or ``'same'`` (output size = input
        size, stride 1 only); default 0.
    dilation : int or tuple of int, optional
        Spacing between kernel elements (default 1).
    groups : int, optional
        Blocked connections from input to output channels (default 1).
    bias : bool, optional
        Learn a bias (default True).
    padding_mode : str, optional
        ``'zeros'`` (default), ``'reflect'``, ``'replicate'`` or ``'circular'``.
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).
    output_padding : int or tuple of int, optional
        Used by the transposed subclasses only (default 0).

    Raises
    ------
    ValueError
        For non-positive ``groups``, channels not divisible by ``groups``, an unknown
        ``padding`` string or ``padding_mode``, or ``'same'`` with a stride.
    """

    _n = 2


class Conv3d(_ConvNd):
    """3-d convolution (cross-correlation) over ``(N, C_in, D, H, W)`` (``torch.nn.Conv3d``).

    ``weight (C_out, C_in/groups, kD, kH, kW)`` and ``bias (C_out,)``, both from PyTorch's default
    ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))`` init; unbatched input ``(C_in, D, H, W)`` too.

    Parameters
    ----------
    in_channels : int
        Input channels C_in.
    out_channels : int
        Output channels C_out.
    kernel_size : int or tuple of int
        Window size.
    stride : int or tuple of int, optional
        Step (default 1).
    padding : int, tuple of int or str, optional
        Zeros added to both sides, or ``'valid'`` (none) or ``'same'`` (output size = input
        size, stride 1 only); default 0.
    dilation : int or tuple of int, optional
        Spacing between kernel elements (default 1).
    groups : int, optional
        Blocked connections from input to output channels (default 1).
    bias : bool, optional
        Learn a bias (default True).
    padding_mode : str, optional
        ``'zeros'`` (default), ``'reflect'``, ``'replicate'`` or ``'circular'``.
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).
    output_padding : int or tuple of int, optional
        Used by the transposed subclasses only (default 0).

    Raises
    ------
    ValueError
        For non-positive ``groups``, channels not divisible by ``groups``, an unknown
        ``padding`` string or ``padding_mode``, or ``'same'`` with a stride.
    """

    _n = 3


class _ConvTransposeNd(_ConvNd):
    """The transposed convolution layers' base."""

    _transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int | tuple[int, ...],
                 stride: int | tuple[int, ...] = 1, padding: int | tuple[int, ...] = 0,
                 output_padding: int | tuple[int, ...] = 0, groups: int = 1, bias: bool = True,
                 dilation: int | tuple[int, ...] = 1, padding_mode: str = "zeros",
                 device: DeviceLike = None, dtype: DTypeArg = None) -> None:
        if isinstance(padding, str):
            raise ValueError(f"padding='{padding}' is not supported for transposed "
                             "convolutions")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype, output_padding)

    def forward(self, input: Tensor,  # noqa: A002
                output_size: Sequence[int] | None = None) -> Tensor:
        """Apply the transposed convolution.

        Parameters
        ----------
        input : Tensor
            ``(N, C_in, *spatial)`` or unbatched ``(C_in, *spatial)``.
        output_size : sequence of int, optional
            The wanted output size (its trailing spatial entries pick ``output_padding``).

        Returns
        -------
        Tensor
            ``(N, C_out, *spatial_out)``, ``out = (L-1)s - 2p + d(k-1) + output_padding + 1``.
        """
        op = self.output_padding
        if output_size is not None:
            n = self._n
            want = tuple(output_size)[-n:]
            x_sp = tuple(input.shape[-n:])
            op = tuple(w - ((L - 1) * s - 2 * p + d * (k - 1) + 1) for w, L, s, p, d, k in
                       zip(want, x_sp, self.stride, self.padding, self.dilation,
                           self.kernel_size))
        return F._conv_transposend(self._n, f"conv_transpose{self._n}d", input, self.weight,
                                   self.bias, self.stride,
                                   cast(tuple[int, ...], self.padding),  # never a string here
                                   op, self.groups,
                                   self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-d convolution, the gradient of ``conv1d`` w.r.t. its input.

    ``torch.nn.ConvTranspose1d``.

    ``weight (C_in, C_out/groups, k)`` and ``bias (C_out,)``, both from PyTorch's default
    ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))`` init; input ``(N, C_in, L)`` or unbatched.

    Parameters
    ----------
    in_channels : int
        Input channels C_in.
    out_channels : int
        Output channels C_out.
    kernel_size : int or tuple of int
        Window size.
    stride : int or tuple of int, optional
        Step (default 1).
    padding : int or tuple of int, optional
        ``dilation * (kernel_size - 1) - padding`` zeros are added to each side (default 0).
    output_padding : int or tuple of int, optional
        Extra size added to one side of the output (default 0).
    groups : int, optional
        Blocked connections from input to output channels (default 1).
    bias : bool, optional
        Learn a bias (default True).
    dilation : int or tuple of int, optional
        Spacing between kernel elements (default 1).
    padding_mode : str, optional
        Only ``'zeros'``.
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).

    Raises
    ------
    ValueError
        For non-positive ``groups``, channels not divisible by ``groups``, a string
        ``padding`` or a ``padding_mode`` other than ``'zeros'``.
    """

    _n = 1


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-d convolution, the gradient of ``conv2d`` w.r.t. its input.

    ``torch.nn.ConvTranspose2d``.

    ``weight (C_in, C_out/groups, kH, kW)`` and ``bias (C_out,)``, both from PyTorch's default
    ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))`` init; input ``(N, C_in, H, W)`` or unbatched.

    Parameters
    ----------
    in_channels : int
        Input channels C_in.
    out_channels : int
        Output channels C_out.
    kernel_size : int or tuple of int
        Window size.
    stride : int or tuple of int, optional
        Step (default 1).
    padding : int or tuple of int, optional
        ``dilation * (kernel_size - 1) - padding`` zeros are added to each side (default 0).
    output_padding : int or tuple of int, optional
        Extra size added to one side of the output (default 0).
    groups : int, optional
        Blocked connections from input to output channels (default 1).
    bias : bool, optional
        Learn a bias (default True).
    dilation : int or tuple of int, optional
        Spacing between kernel elements (default 1).
    padding_mode : str, optional
        Only ``'zeros'``.
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).

    Raises
    ------
    ValueError
        For non-positive ``groups``, channels not divisible by ``groups``, a string
        ``padding`` or a ``padding_mode`` other than ``'zeros'``.
    """

    _n = 2


# ================================================================================ pooling
class _MaxPoolNd(Module):
    """The max pooling layers' base."""

    _n = 2

    def __init__(self, kernel_size: int | tuple[int, ...],
                 stride: int | tuple[int, ...] | None = None, padding: int | tuple[int, ...] = 0,
                 dilation: int | tuple[int, ...] = 1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"
                f", dilation={self.dilation}, ceil_mode={self.ceil_mode}")

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:  # noqa: A002
        """Take the maximum of each window.

        Parameters
        ----------
        input : Tensor
            ``(N, C, *spatial)`` or ``(C, *spatial)``.

        Returns
        -------
        Tensor or (Tensor, Tensor)
            The maxima (and their int64 indices with ``return_indices``).
        """
        return F._max_pool(self._n, f"max_pool{self._n}d", input, self.kernel_size,
                           self.stride, self.padding, self.dilation, self.ceil_mode,
                           self.return_indices)


class MaxPool1d(_MaxPoolNd):
    """Max pooling over the last 1 axis (``torch.nn.MaxPool1d``).

    The gradient goes to the first maximum of each window.

    Parameters
    ----------
    kernel_size : int or tuple of int
        Window size.
    stride : int or tuple of int, optional
        Step (default ``kernel_size``).
    padding : int or tuple of int, optional
        ``-inf`` padding on both sides, at most half the window (default 0).
    dilation : int or tuple of int, optional
        Spacing between window elements (default 1).
    return_indices : bool, optional
        Also return the flat index of each maximum within its plane (default False).
    ceil_mode : bool, optional
        Round the output size up instead of down (default False).
    """

    _n = 1


class MaxPool2d(_MaxPoolNd):
    """Max pooling over the last 2 axes (``torch.nn.MaxPool2d``).

    The gradient goes to the first maximum of each window.

    Parameters
    ----------
    kernel_size : int or tuple of int
        Window size.
    stride : int or tuple of int, optional
        Step (default ``kernel_size``).
    padding : int or tuple of int, optional
        ``-inf`` padding on both sides, at most half the window (default 0).
    dilation : int or tuple of int, optional
        Spacing between window elements (default 1).
    return_indices : bool, optional
        Also return the flat index of each maximum within its plane (default False).
    ceil_mode : bool, optional
        Round the output size up instead of down (default False).
    """

    _n = 2


class AvgPool1d(Module):
    """Average pooling over the last axis (``torch.nn.AvgPool1d``).

    Parameters
    ----------
    kernel_size : int or tuple of int
        Window size.
    stride : int or tuple of int, optional
        Step (default ``kernel_size``).
    padding : int or tuple of int, optional
        Zero padding on both sides (default 0).
    ceil_mode : bool, optional
        Round the output size up (default False).
    count_include_pad : bool, optional
        Count the zero padding in the divisor (default True).
    """

    def __init__(self, kernel_size: int | tuple[int], stride: int | tuple[int] | None = None,
                 padding: int | tuple[int] = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = F._ntuple(1)(kernel_size)
        self.stride = F._ntuple(1)(stride if stride is not None else kernel_size)
        self.padding = F._ntuple(1)(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Average each window (``F.avg_pool1d``).

        Parameters
        ----------
        input : Tensor
            ``(N, C, L)`` or ``(C, L)``.

        Returns
        -------
        Tensor
            ``(N, C, L_out)`` or ``(C, L_out)``.
        """
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool2d(Module):
    """Average pooling over the last two axes (``torch.nn.AvgPool2d``).

    Parameters
    ----------
    kernel_size : int or tuple of int
        Window size.
    stride : int or tuple of int, optional
        Step (default ``kernel_size``).
    padding : int or tuple of int, optional
        Zero padding on both sides (default 0).
    ceil_mode : bool, optional
        Round the output size up (default False).
    count_include_pad : bool, optional
        Count the zero padding in the divisor (default True).
    divisor_override : int, optional
        Divide by this instead of the window size.
    """

    def __init__(self, kernel_size: int | tuple[int, int],
                 stride: int | tuple[int, int] | None = None, padding: int | tuple[int, int] = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Average each window (``F.avg_pool2d``).

        Parameters
        ----------
        input : Tensor
            ``(N, C, H, W)`` or ``(C, H, W)``.

        Returns
        -------
        Tensor
            ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``.
        """
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool1d(Module):
    """Average pooling to a given output size (``torch.nn.AdaptiveAvgPool1d``).

    PyTorch's bins ``[floor(i L / o), ceil((i + 1) L / o))``.

    Parameters
    ----------
    output_size : int or tuple of int or None
        The output's spatial size (None keeps that axis' size).
    """

    def __init__(self, output_size: int | None | tuple[int | None, ...]) -> None:
        super().__init__()
        self.output_size = output_size

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return f"output_size={self.output_size}"

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Average over each bin of the last axis.

        Parameters
        ----------
        input : Tensor
            ``(N, C, L)`` or ``(C, L)``.

        Returns
        -------
        Tensor
            ``(..., output_size)``.
        """
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool2d(AdaptiveAvgPool1d):
    """Average pooling of the last two axes to a given size (``torch.nn.AdaptiveAvgPool2d``).

    Parameters
    ----------
    output_size : int or tuple of int or None
        The output's spatial size (None keeps that axis' size).
    """

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Average over each bin of the last two axes.

        Parameters
        ----------
        input : Tensor
            ``(N, C, H, W)`` or ``(C, H, W)``.

        Returns
        -------
        Tensor
            ``(..., *output_size)``.
        """
        return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveMaxPool1d(Module):
    """Max pooling to a given output size (``torch.nn.AdaptiveMaxPool1d``).

    Parameters
    ----------
    output_size : int or tuple of int or None
        The output's spatial size (None keeps that axis' size).
    return_indices : bool, optional
        Also return the indices of the maxima (default False).
    """

    def __init__(self, output_size: int | None | tuple[int | None, ...],
                 return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return f"output_size={self.output_size}"

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:  # noqa: A002
        """Take the maximum of each bin of the last axis.

        Parameters
        ----------
        input : Tensor
            ``(N, C, L)`` or ``(C, L)``.

        Returns
        -------
        Tensor or (Tensor, Tensor)
            The maxima (and their indices with ``return_indices``).
        """
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(AdaptiveMaxPool1d):
    """Max pooling of the last two axes to a given size (``torch.nn.AdaptiveMaxPool2d``).

    Parameters
    ----------
    output_size : int or tuple of int or None
        The output's spatial size (None keeps that axis' size).
    return_indices : bool, optional
        Also return the indices of the maxima (default False).
    """

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:  # noqa: A002
        """Take the maximum of each bin of the last two axes.

        Parameters
        ----------
        input : Tensor
            ``(N, C, H, W)`` or ``(C, H, W)``.

        Returns
        -------
        Tensor or (Tensor, Tensor)
            The maxima (and their indices with ``return_indices``).
        """
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)
