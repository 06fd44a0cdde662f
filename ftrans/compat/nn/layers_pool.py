"""3-d pooling, unpooling, fractional pooling and ``ConvTranspose3d`` (``torch.nn``'s;
re-exported by :mod:`~ftrans.compat.nn.layers2`).  Constructor arguments, defaults,
parameters and reprs are PyTorch's; forward passes are :mod:`~ftrans.compat.nn.functional`
calls."""
from __future__ import annotations

from collections.abc import Sequence

from ..types import Tensor
from . import functional as F
from .layers import _MaxPoolNd, _ConvTransposeNd, AvgPool2d, AdaptiveAvgPool1d, AdaptiveMaxPool1d
from .module import Module

__all__ = ["MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "MaxUnpool1d",
           "MaxUnpool2d", "MaxUnpool3d", "FractionalMaxPool2d", "FractionalMaxPool3d",
           "ConvTranspose3d"]


# ============================================================================== pooling
class MaxPool3d(_MaxPoolNd):
    """Max pooling over the last 3 axes (``torch.nn.MaxPool3d``).

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

    _n = 3


class AvgPool3d(AvgPool2d):
    """Average pooling over the last three axes (``torch.nn.AvgPool3d``).

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

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Average each window (``F.avg_pool3d``).

        Parameters
        ----------
        input : Tensor
            ``(N, C, D, H, W)`` or ``(C, D, H, W)``.

        Returns
        -------
        Tensor
            The pooled tensor.
        """
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool3d(AdaptiveAvgPool1d):
    """Average pooling of the last three axes to a given size (``torch.nn.AdaptiveAvgPool3d``).

    Parameters
    ----------
    output_size : int or tuple of int or None
        The output's spatial size (None keeps that axis' size).
    """

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Average over each bin of the last three axes.

        Parameters
        ----------
        input : Tensor
            ``(N, C, D, H, W)`` or ``(C, D, H, W)``.

        Returns
        -------
        Tensor
            ``(..., *output_size)``.
        """
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(AdaptiveMaxPool1d):
    """Max pooling of the last three axes to a given size (``torch.nn.AdaptiveMaxPool3d``).

    Parameters
    ----------
    output_size : int or tuple of int or None
        The output's spatial size (None keeps that axis' size).
    return_indices : bool, optional
        Also return the indices of the maxima (default False).
    """

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:  # noqa: A002
        """Take the maximum of each bin of the last three axes.

        Parameters
        ----------
        input : Tensor
            ``(N, C, D, H, W)`` or ``(C, D, H, W)``.

        Returns
        -------
        Tensor or (Tensor, Tensor)
            The maxima (and their indices with ``return_indices``).
        """
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _MaxUnpoolNd(Module):
    """Partial inverse of max pooling (``torch.nn.MaxUnpool1d/2d/3d``).

    Parameters
    ----------
    kernel_size : int or tuple of int
        The max pooling's window size.
    stride : int or tuple of int, optional
        Its step (default ``kernel_size``).
    padding : int or tuple of int, optional
        Its padding (default 0).
    """

    _n = 2

    def __init__(self, kernel_size: int | tuple[int, ...],
                 stride: int | tuple[int, ...] | None = None,
                 padding: int | tuple[int, ...] = 0) -> None:
        super().__init__()
        tup = F._ntuple(self._n)
        self.kernel_size = tup(kernel_size)
        self.stride = tup(stride if stride is not None else kernel_size)
        self.padding = tup(padding)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input: Tensor, indices: Tensor,  # noqa: A002
                output_size: Sequence[int] | None = None) -> Tensor:
        """Place each value at its index of the output plane, zeros elsewhere.

        Parameters
        ----------
        input : Tensor
            The pooled values ``(N, C, *spatial)``.
        indices : Tensor
            The indices that max pooling with ``return_indices=True`` returned.
        output_size : sequence of int, optional
            The unpooled size (default: computed from the pooling settings).

        Returns
        -------
        Tensor
            ``(N, C, *out_spatial)``.
        """
        fn = (F.max_unpool1d, F.max_unpool2d, F.max_unpool3d)[self._n - 1]
        return fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)


def _unpool_doc(n: int) -> str:
    return (_MaxUnpoolNd.__doc__ or "").replace(
        "max pooling (``torch.nn.MaxUnpool1d/2d/3d``)",
        f"``MaxPool{n}d`` (``torch.nn.MaxUnpool{n}d``)")


class MaxUnpool1d(_MaxUnpoolNd):
    __doc__ = _unpool_doc(1)
    _n = 1


class MaxUnpool2d(_MaxUnpoolNd):
    __doc__ = _unpool_doc(2)
    _n = 2


class MaxUnpool3d(_MaxUnpoolNd):
    __doc__ = _unpool_doc(3)
    _n = 3


class FractionalMaxPool2d(Module):
    """Fractional max pooling over the last two axes (``torch.nn.FractionalMaxPool2d``).

    Parameters
    ----------
    kernel_size : int or tuple of int
        Window size.
    output_size : int or tuple of int, optional
        Output size (exactly one of ``output_size`` and ``output_ratio``).
    output_ratio : float or tuple of float, optional
        Output size as a fraction of the input's, in (0, 1).
    return_indices : bool, optional
        Also return the indices of the maxima (default False).
    _random_samples : Tensor, optional
        Fixed window offsets ``(N, C, n_spatial)`` in [0, 1) (default: random from compat's
        generator, not PyTorch's).

    Raises
    ------
    ValueError
        Unless exactly one of ``output_size`` and ``output_ratio`` is given, or for a
        ratio outside (0, 1).

    Notes
    -----
    Graham (2014), "Fractional Max-Pooling".
    """

    _n = 2

    def __init__(self, kernel_size: int | tuple[int, ...],
                 output_size: int | tuple[int, ...] | None = None,
                 output_ratio: float | tuple[float, ...] | None = None,
                 return_indices: bool = False, _random_samples: Tensor | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.output_size = output_size
        self.output_ratio = output_ratio
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        if output_size is None and output_ratio is None:
            raise ValueError(f"FractionalMaxPool{self._n}d requires specifying either an "
                             "output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if output_ratio is not None:
            r = output_ratio if isinstance(output_ratio, (list, tuple)) else (output_ratio,)
            if not all(0 < v < 1 for v in r):
                raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Tensor | tuple[Tensor, Tensor]:  # noqa: A002
        """Take the maximum of each pseudo-random window.

        Parameters
        ----------
        input : Tensor
            ``(N, C, *spatial)`` or ``(C, *spatial)``.

        Returns
        -------
        Tensor or (Tensor, Tensor)
            The maxima (and their indices with ``return_indices``).
        """
        fn = F.fractional_max_pool2d if self._n == 2 else F.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio,
                  self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool3d(FractionalMaxPool2d):
    """Fractional max pooling over the last three axes (``torch.nn.FractionalMaxPool3d``).

    Parameters
    ----------
    kernel_size : int or tuple of int
        Window size.
    output_size : int or tuple of int, optional
        Output size (exactly one of ``output_size`` and ``output_ratio``).
    output_ratio : float or tuple of float, optional
        Output size as a fraction of the input's, in (0, 1).
    return_indices : bool, optional
        Also return the indices of the maxima (default False).
    _random_samples : Tensor, optional
        Fixed window offsets in [0, 1) (default: random from compat's generator).

    Raises
    ------
    ValueError
        Unless exactly one of ``output_size`` and ``output_ratio`` is given, or for a
        ratio outside (0, 1).
    """

    _n = 3


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-d convolution, the gradient of ``conv3d`` w.r.t. its input.

    ``torch.nn.ConvTranspose3d``.

    ``weight (C_in, C_out/groups, kD, kH, kW)`` and ``bias (C_out,)``, both from PyTorch's default
    ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))`` init; input ``(N, C_in, D, H, W)`` or unbatched.

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

    _n = 3
