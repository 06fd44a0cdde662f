"""Normalization, dropout, constant padding, upsampling and distance layers of
``torch.nn`` (re-exported by :mod:`~ftrans.compat.nn.layers`).  Parameter names, shapes,
default initializations and reprs are PyTorch's; the forward passes are
:mod:`~ftrans.compat.nn.functional` calls."""
from __future__ import annotations

from collections.abc import Sequence

import ftrans.compat as torch
from ..types import DTypeArg, DeviceLike, Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm", "Dropout", "Dropout1d",
           "Dropout2d", "InstanceNorm1d", "InstanceNorm2d", "ZeroPad2d", "ConstantPad1d",
           "ConstantPad2d", "Upsample", "CosineSimilarity", "PairwiseDistance"]


def _empty(shape: Sequence[int], dtype: DTypeArg = None, device: DeviceLike = None) -> Tensor:
    return torch.empty(tuple(shape), dtype=dtype, device=device)


# ================================================================================ normalization
class _BatchNorm(Module):
    """The batch (and instance) normalization layers' base."""

    _dims: tuple[int, ...] = (2, 3)

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: DeviceLike = None,
                 dtype: DTypeArg = None, *, bias: bool = True) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(_empty((num_features,), dtype, device))
            if bias:
                self.bias = Parameter(_empty((num_features,), dtype, device))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", torch.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", torch.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Reset ``running_mean`` to 0, ``running_var`` to 1 and ``num_batches_tracked`` to 0.
        """
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """Reset the running statistics, ``weight`` to ones and ``bias`` to zeros.
        """
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:  # noqa: A002
        if input.dim() not in self._dims:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in self._dims)} input (got "
                             f"{input.dim()}D input)")

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Normalize with the batch statistics (training) or the running ones (eval).

        Parameters
        ----------
        input : Tensor
            ``(N, C, *)`` of the layer's rank.

        Returns
        -------
        Tensor
            Same shape as ``input``.

        Raises
        ------
        ValueError
            For an input of another rank.
        """
        self._check_input_dim(input)
        eaf = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            if self.num_batches_tracked is not None:
                with torch.no_grad():
                    self.num_batches_tracked.add_(1)
                if self.momentum is None:
                    eaf = 1.0 / float(self.num_batches_tracked)
                else:
                    eaf = self.momentum
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_stats = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_stats else None,
                            self.running_var if use_stats else None, self.weight, self.bias,
                            bn_training, eaf, self.eps)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalization over ``(N, C)`` or ``(N, C, L)`` (``torch.nn.BatchNorm1d``).

    Training normalizes with the batch statistics (biased variance) and updates the
    running statistics with the unbiased variance; eval mode uses the running statistics.

    Parameters
    ----------
    num_features : int
        Number of channels C.
    eps : float, optional
        Added to the variance (default 1e-5).
    momentum : float or None, optional
        Weight of the new statistic in the running averages (default 0.1); None: the
        cumulative average.
    affine : bool, optional
        Learn ``weight`` (ones) and ``bias`` (zeros) (default True).
    track_running_stats : bool, optional
        Keep ``running_mean``/``running_var`` buffers, used in eval mode (default True).
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).
    bias : bool, optional
        Learn ``bias`` with ``affine`` (default True).

    Notes
    -----
    Ioffe and Szegedy (2015), "Batch Normalization".
    """

    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalization over ``(N, C, H, W)`` (``torch.nn.BatchNorm2d``; see BatchNorm1d).

    Parameters
    ----------
    num_features : int
        Number of channels C.
    eps : float, optional
        Added to the variance (default 1e-5).
    momentum : float or None, optional
        Weight of the new statistic in the running averages (default 0.1); None: the
        cumulative average.
    affine : bool, optional
        Learn ``weight`` (ones) and ``bias`` (zeros) (default True).
    track_running_stats : bool, optional
        Keep ``running_mean``/``running_var`` buffers, used in eval mode (default True).
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).
    bias : bool, optional
        Learn ``bias`` with ``affine`` (default True).
    """

    _dims = (4,)


class LayerNorm(Module):
    """Normalize over the trailing ``normalized_shape`` axes (``torch.nn.LayerNorm``).

    Parameters
    ----------
    normalized_shape : int or sequence of int
        The trailing shape normalized over.
    eps : float, optional
        Added to the (biased) variance (default 1e-5).
    elementwise_affine : bool, optional
        Learn ``weight`` (ones) and ``bias`` (zeros) of ``normalized_shape`` (default True).
    bias : bool, optional
        Learn ``bias`` (default True).
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).

    Notes
    -----
    Ba, Kiros and Hinton (2016), "Layer Normalization".
    """

    def __init__(self, normalized_shape: int | Sequence[int], eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True, device: DeviceLike = None,
                 dtype: DTypeArg = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(torch.ones(self.normalized_shape, dtype=dtype))
            if bias:
                self.bias = Parameter(torch.zeros(self.normalized_shape, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        """Reset ``weight`` to ones and ``bias`` to zeros.
        """
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.layer_norm``.

        Parameters
        ----------
        input : Tensor
            ``(*, *normalized_shape)``.

        Returns
        -------
        Tensor
            Same shape as ``input``.
        """
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Normalize each group of channels of every sample (``torch.nn.GroupNorm``).

    Parameters
    ----------
    num_groups : int
        Number of channel groups; must divide ``num_channels``.
    num_channels : int
        Number of channels C.
    eps : float, optional
        Added to the variance (default 1e-5).
    affine : bool, optional
        Learn per-channel ``weight`` (ones) and ``bias`` (zeros) (default True).
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).
    bias : bool, optional
        Learn ``bias`` with ``affine`` (default True).

    Raises
    ------
    ValueError
        If ``num_groups`` does not divide ``num_channels``.

    Notes
    -----
    Wu and He (2018), "Group Normalization".
    """

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 device: DeviceLike = None, dtype: DTypeArg = None, *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = Parameter(torch.ones(num_channels, dtype=dtype))
            if bias:
                self.bias = Parameter(torch.zeros(num_channels, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.group_norm``.

        Parameters
        ----------
        input : Tensor
            ``(N, C, *)``.

        Returns
        -------
        Tensor
            Same shape as ``input``.
        """
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class _InstanceNorm(_BatchNorm):
    """The instance normalization layers' base."""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = False, track_running_stats: bool = False,
                 device: DeviceLike = None, dtype: DTypeArg = None) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Normalize each (sample, channel) plane over its spatial axes (``F.instance_norm``).

        Parameters
        ----------
        input : Tensor
            ``(N, C, *spatial)`` or unbatched ``(C, *spatial)``.

        Returns
        -------
        Tensor
            Same shape as ``input``.

        Raises
        ------
        ValueError
            For an input of another rank.
        """
        self._check_input_dim(input)
        unbatched = input.dim() == self._dims[0]
        x = input.unsqueeze(0) if unbatched else input
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats, self.momentum
                              if self.momentum is not None else 0.1, self.eps)
        return out.squeeze(0) if unbatched else out

class InstanceNorm1d(_InstanceNorm):
    """Per-sample, per-channel normalization of ``(N, C, L)`` or ``(C, L)``.

    As ``torch.nn.InstanceNorm1d``.

    Parameters
    ----------
    num_features : int
        Number of channels C.
    eps : float, optional
        Added to the variance (default 1e-5).
    momentum : float or None, optional
        Weight of the new statistic in the running averages (default 0.1); None: the
        cumulative average.
    affine : bool, optional
        Learn ``weight`` (ones) and ``bias`` (zeros) (default False).
    track_running_stats : bool, optional
        Keep ``running_mean``/``running_var`` buffers, used in eval mode (default False).
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).
    """

    _dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    """Per-sample, per-channel normalization of ``(N, C, H, W)`` or ``(C, H, W)``.

    As ``torch.nn.InstanceNorm2d``.

    Parameters
    ----------
    num_features : int
        Number of channels C.
    eps : float, optional
        Added to the variance (default 1e-5).
    momentum : float or None, optional
        Weight of the new statistic in the running averages (default 0.1); None: the
        cumulative average.
    affine : bool, optional
        Learn ``weight`` (ones) and ``bias`` (zeros) (default False).
    track_running_stats : bool, optional
        Keep ``running_mean``/``running_var`` buffers, used in eval mode (default False).
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).
    """

    _dims = (3, 4)


# ================================================================================ padding etc.
class _ConstantPadNd(Module):
    """The constant padding layers' base."""

    _n = 2

    def __init__(self, padding: int | Sequence[int], value: float) -> None:
        super().__init__()
        self.padding = F._ntuple(2 * self._n, "padding")(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Pad ``input`` (``F.pad``, constant mode).

        Parameters
        ----------
        input : Tensor
            Any shape with enough axes.

        Returns
        -------
        Tensor
            The padded tensor.
        """
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last 1 axis with a constant (``torch.nn.ConstantPad1d``).

    Parameters
    ----------
    padding : int or tuple of int
        Amounts ``(left, right)``; an int pads every side.
    value : float
        The fill value.
    """

    _n = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last 2 axes with a constant (``torch.nn.ConstantPad2d``).

    Parameters
    ----------
    padding : int or tuple of int
        Amounts ``(left, right, top, bottom)``; an int pads every side.
    value : float
        The fill value.
    """

    _n = 2


class ZeroPad2d(ConstantPad2d):
    """Pad the last two axes with zeros (``torch.nn.ZeroPad2d``).

    Parameters
    ----------
    padding : int or tuple of int
        Amounts ``(left, right, top, bottom)``; an int pads every side.
    """

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return f"{self.padding}"


class Upsample(Module):
    """Resize the spatial axes of ``(N, C, *spatial)`` (``torch.nn.Upsample``).

    Parameters
    ----------
    size : int or tuple of int, optional
        Output spatial size (exactly one of ``size`` and ``scale_factor``).
    scale_factor : float or tuple of float, optional
        Multiplier of the spatial size.
    mode : str, optional
        ``'nearest'`` (default), ``'linear'``, ``'bilinear'`` or ``'trilinear'``.
    align_corners : bool, optional
        Align the corner pixels (interpolating modes only).
    recompute_scale_factor : bool, optional
        Recompute the scale from the output size.
    """

    def __init__(self, size: int | tuple[int, ...] | None = None,
                 scale_factor: float | tuple[float, ...] | None = None, mode: str = "nearest",
                 align_corners: bool | None = None,
                 recompute_scale_factor: bool | None = None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        self.scale_factor = float(scale_factor) if isinstance(scale_factor, (int, float)) \
            else (tuple(float(f) for f in scale_factor) if scale_factor else None)
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.interpolate`` with the layer's settings.

        Parameters
        ----------
        input : Tensor
            ``(N, C, *spatial)``.

        Returns
        -------
        Tensor
            ``(N, C, *out_spatial)``.
        """
        return F.interpolate(input, self.size, self.scale_factor, self.mode,
                             self.align_corners, self.recompute_scale_factor)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        return info + ", mode=" + repr(self.mode)


class CosineSimilarity(Module):
    """Cosine similarity along ``dim`` (``torch.nn.CosineSimilarity``).

    Parameters
    ----------
    dim : int, optional
        The reduced axis (default 1).
    eps : float, optional
        Lower bound of the norms' product (default 1e-8).
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """Apply ``F.cosine_similarity``.

        Parameters
        ----------
        x1 : Tensor
            First input.
        x2 : Tensor
            Second input, broadcastable with ``x1``.

        Returns
        -------
        Tensor
            The broadcast shape without ``dim``.
        """
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """``||x1 - x2 + eps||_p`` along the last axis (``torch.nn.PairwiseDistance``).

    Parameters
    ----------
    p : float, optional
        Norm order (default 2.0).
    eps : float, optional
        Added to the difference (default 1e-6).
    keepdim : bool, optional
        Keep the reduced axis (default False).
    """

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """Apply ``F.pairwise_distance``.

        Parameters
        ----------
        x1 : Tensor
            ``(N, D)`` or ``(D,)``.
        x2 : Tensor
            Broadcastable with ``x1``.

        Returns
        -------
        Tensor
            ``(N,)`` (or with the kept axis).
        """
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


# ================================================================================ dropout
class Dropout(Module):
    """Zero elements with probability ``p`` in training mode (``torch.nn.Dropout``).

    The kept elements are scaled by ``1/(1-p)``; the identity in eval mode.

    Parameters
    ----------
    p : float, optional
        Probability of an element (channel) to be zeroed (default 0.5).
    inplace : bool, optional
        Overwrite ``input`` (default False).

    Raises
    ------
    ValueError
        If ``p`` is outside [0, 1].
    """

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.dropout`` in training mode; the identity in eval mode.

        Parameters
        ----------
        input : Tensor
            Any shape.

        Returns
        -------
        Tensor
            Same shape as ``input``.
        """
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(Dropout):
    """Zero whole channels of ``(N, C, L)`` with probability ``p`` (``torch.nn.Dropout1d``).

    Parameters
    ----------
    p : float, optional
        Probability of an element (channel) to be zeroed (default 0.5).
    inplace : bool, optional
        Overwrite ``input`` (default False).

    Raises
    ------
    ValueError
        If ``p`` is outside [0, 1].
    """

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.dropout1d`` in training mode; the identity in eval mode.

        Parameters
        ----------
        input : Tensor
            ``(N, C, L)`` or ``(C, L)``.

        Returns
        -------
        Tensor
            Same shape as ``input``.
        """
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    """Zero whole channels of ``(N, C, H, W)`` with probability ``p`` (``torch.nn.Dropout2d``).

    Parameters
    ----------
    p : float, optional
        Probability of an element (channel) to be zeroed (default 0.5).
    inplace : bool, optional
        Overwrite ``input`` (default False).

    Raises
    ------
    ValueError
        If ``p`` is outside [0, 1].
    """

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.dropout2d`` in training mode; the identity in eval mode.

        Parameters
        ----------
        input : Tensor
            ``(N, C, H, W)`` or ``(C, H, W)``.

        Returns
        -------
        Tensor
            Same shape as ``input``.
        """
        return F.dropout2d(input, self.p, self.training, self.inplace)


