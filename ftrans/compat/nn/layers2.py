"""More layers of ``torch.nn``: shuffles, unfold/fold, shrink and gated activations,
RMS and local response norms, the remaining dropouts, padding layers, upsampling layers
and ``EmbeddingBag`` (3-d pooling, unpooling, fractional pooling and ``ConvTranspose3d``
in :mod:`.layers_pool`).  Constructor
arguments, defaults, parameters and reprs are PyTorch's; forward passes are
:mod:`~ftrans.compat.nn.functional` calls."""
from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import ftrans.compat as torch
from ..types import DTypeArg, DeviceLike, Tensor
from . import functional as F
from . import init
from .layers import Upsample, LayerNorm, Dropout, _empty
from .module import Module
from .layers_pool import (MaxPool3d, AvgPool3d, AdaptiveAvgPool3d, AdaptiveMaxPool3d,  # noqa: F401
    MaxUnpool1d, MaxUnpool2d, MaxUnpool3d, FractionalMaxPool2d, FractionalMaxPool3d,
    ConvTranspose3d)
from .parameter import Parameter

__all__ = ["PixelShuffle", "PixelUnshuffle", "ChannelShuffle", "Unfold", "Fold", "GLU",
           "Hardshrink", "Softshrink", "RReLU", "RMSNorm", "LocalResponseNorm", "MaxPool3d",
           "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d",
           "MaxUnpool3d", "FractionalMaxPool2d", "FractionalMaxPool3d", "ConvTranspose3d",
           "Dropout3d", "AlphaDropout", "FeatureAlphaDropout", "ReflectionPad1d",
           "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d", "ZeroPad1d",
           "ZeroPad3d", "ConstantPad3d", "UpsamplingNearest2d", "UpsamplingBilinear2d",
           "EmbeddingBag"]


_REQ: Any = object()       # marks a required constructor argument


class _Fn(Module):
    """A module applying one functional with fixed keyword arguments (its settings)."""

    _fn: Callable[..., Any]
    _names: tuple[str, ...] = ()
    _defaults: dict[str, Any] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        vals = dict(zip(self._names, args))
        for name, default in self._defaults.items():
            setattr(self, name, kwargs.pop(name, vals.pop(name, default)))
        if kwargs or vals:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments "
                            f"{sorted(kwargs) + sorted(vals)}")

    def _kw(self) -> dict[str, Any]:
        return {n: getattr(self, n) for n in self._defaults}

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return ", ".join(f"{n}={getattr(self, n)}" for n in self._defaults)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply the layer's functional with its settings.

        Parameters
        ----------
        input : Tensor
            As the functional takes it (``torch.nn.functional``'s function of the same
            name).

        Returns
        -------
        Tensor
            The functional's result.
        """
        return type(self)._fn(input, **self._kw())


class _Required(_Fn):
    """An :class:`_Fn` whose ``_REQ`` settings must be given."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for n in self._defaults:
            if getattr(self, n) is _REQ:
                raise TypeError(f"{type(self).__name__}.__init__() missing required argument "
                                f"'{n}'")


def _fn_module(name: str, fn: Callable[..., Any],
               params: dict[str, tuple[Any, str, str]], summary: str) -> type[_Fn]:
    """The :class:`_Fn` class ``name`` applying ``fn``; ``params`` maps each setting to
    ``(default or _REQ, type, description)``, from which the class's signature and
    numpydoc docstring are built."""
    defaults = {k: v[0] for k, v in params.items()}
    base = _Required if any(d is _REQ for d in defaults.values()) else _Fn
    P = inspect.Parameter
    sig = inspect.Signature([P(k, P.POSITIONAL_OR_KEYWORD, annotation=t,
                               default=P.empty if d is _REQ else d)
                             for k, (d, t, _) in params.items()], return_annotation=None)
    doc = "".join(f"{k} : {t.replace(' | ', ' or ')}{'' if d is _REQ else ', optional'}\n"
                  f"    {desc}\n" for k, (d, t, desc) in params.items())
    doc = f"{summary} (``torch.nn.{name}``).\n\nParameters\n----------\n{doc}"
    return type(name, (base,), {"_fn": staticmethod(fn), "_names": tuple(defaults),
                                "_defaults": defaults, "__doc__": doc,
                                "__signature__": sig, "__module__": __name__})


_SIZE = "int | tuple[int, ...]"
PixelShuffle = _fn_module("PixelShuffle", F.pixel_shuffle, {
    "upscale_factor": (_REQ, "int", "r: ``(*, C r^2, H, W) -> (*, C, H r, W r)``.")},
    "Rearrange channels into spatial blocks")
PixelUnshuffle = _fn_module("PixelUnshuffle", F.pixel_unshuffle, {
    "downscale_factor": (_REQ, "int", "r: ``(*, C, H r, W r) -> (*, C r^2, H, W)``.")},
    "Rearrange spatial blocks into channels")
ChannelShuffle = _fn_module("ChannelShuffle", F.channel_shuffle, {
    "groups": (_REQ, "int", "Number of channel groups g: ``(N, g C', *) -> (N, C' g, *)``.")},
    "Regroup the channels")
_UNFOLD = {"dilation": (1, _SIZE, "Spacing between window elements."),
           "padding": (0, _SIZE, "Zero padding on both sides."),
           "stride": (1, _SIZE, "Step of the windows.")}
Unfold = _fn_module("Unfold", F.unfold, {
    "kernel_size": (_REQ, _SIZE, "Window size."), **_UNFOLD},
    "Extract sliding windows (im2col): ``(N, C, H, W) -> (N, C kh kw, L)``")
Fold = _fn_module("Fold", F.fold, {
    "output_size": (_REQ, _SIZE, "Spatial size ``(H, W)`` of the output."),
    "kernel_size": (_REQ, _SIZE, "Window size."), **_UNFOLD},
    "Sum sliding windows back into an image (col2im, the adjoint of ``Unfold``)")
GLU = _fn_module("GLU", F.glu, {"dim": (-1, "int", "The axis split in two halves ``a, b``.")},
                 "Gated linear unit ``a * sigmoid(b)``")
Hardshrink = _fn_module("Hardshrink", F.hardshrink, {
    "lambd": (0.5, "float", "Threshold.")}, "``x`` where ``|x| > lambd``, else 0")
Softshrink = _fn_module("Softshrink", F.softshrink, {
    "lambd": (0.5, "float", "Threshold.")}, "``x - lambd * sign(x)`` where ``|x| > lambd``, else 0")
LocalResponseNorm = _fn_module("LocalResponseNorm", F.local_response_norm, {
    "size": (_REQ, "int", "Number of neighbouring channels."),
    "alpha": (1e-4, "float", "Multiplicative factor."),
    "beta": (0.75, "float", "Exponent."),
    "k": (1.0, "float", "Additive factor.")},
    "Normalize each channel by its neighbours' squares")


def _lambd_repr(self: Any) -> str:
    """The threshold shown in ``repr(module)``.

    Returns
    -------
    str
        ``lambd``.
    """
    return f"{self.lambd}"


def _lrn_repr(self: Any) -> str:
    """The constructor settings shown in ``repr(module)``.

    Returns
    -------
    str
        The settings, comma-separated.
    """
    return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


Hardshrink.extra_repr = Softshrink.extra_repr = _lambd_repr  # type: ignore[method-assign]
LocalResponseNorm.extra_repr = _lrn_repr  # type: ignore[method-assign]


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour upsampling, ``Upsample(mode='nearest')``.

    As ``torch.nn.UpsamplingNearest2d``.

    Parameters
    ----------
    size : int or tuple of int, optional
        Output spatial size (exactly one of ``size`` and ``scale_factor``).
    scale_factor : float or tuple of float, optional
        Multiplier of the spatial size.
    """

    def __init__(self, size: int | tuple[int, int] | None = None,
                 scale_factor: float | tuple[float, float] | None = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear upsampling, ``Upsample(mode='bilinear', align_corners=True)``.

    As ``torch.nn.UpsamplingBilinear2d``.

    Parameters
    ----------
    size : int or tuple of int, optional
        Output spatial size (exactly one of ``size`` and ``scale_factor``).
    scale_factor : float or tuple of float, optional
        Multiplier of the spatial size.
    """

    def __init__(self, size: int | tuple[int, int] | None = None,
                 scale_factor: float | tuple[float, float] | None = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class RReLU(Module):
    """Randomized leaky ReLU (``torch.nn.RReLU``).

    The negative slope is drawn from ``U(lower, upper)`` per element in training
    (compat's generator), ``(lower + upper) / 2`` in eval mode.

    Parameters
    ----------
    lower : float, optional
        Lower bound of the random slope (default 1/8).
    upper : float, optional
        Upper bound (default 1/3).
    inplace : bool, optional
        Overwrite ``input`` (default False).

    Notes
    -----
    Xu et al. (2015), "Empirical Evaluation of Rectified Activations in Convolutional
    Network".
    """

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
                 inplace: bool = False) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return f"lower={self.lower}, upper={self.upper}"

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.rrelu`` (random slopes in training mode).

        Parameters
        ----------
        input : Tensor
            Any shape.

        Returns
        -------
        Tensor
            Same shape as ``input``.
        """
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)


class RMSNorm(LayerNorm):
    """``x / sqrt(mean(x^2) + eps) * weight`` over the trailing ``normalized_shape``.

    As ``torch.nn.RMSNorm``.

    Parameters
    ----------
    normalized_shape : int or sequence of int
        The trailing shape normalized over.
    eps : float, optional
        Added to the mean square (default: the dtype's machine epsilon).
    elementwise_affine : bool, optional
        Learn ``weight`` (ones; no bias) (default True).
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).

    Notes
    -----
    Zhang and Sennrich (2019), "Root Mean Square Layer Normalization".
    """

    def __init__(self, normalized_shape: int | Sequence[int], eps: float | None = None,
                 elementwise_affine: bool = True, device: DeviceLike = None,
                 dtype: DTypeArg = None) -> None:
        # eps=None: rms_norm's default, the dtype's machine epsilon
        super().__init__(normalized_shape, eps,  # type: ignore[arg-type]
                         elementwise_affine, False, device, dtype)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")

    def forward(self, x: Tensor) -> Tensor:
        """Apply ``F.rms_norm``.

        Parameters
        ----------
        x : Tensor
            ``(*, *normalized_shape)``.

        Returns
        -------
        Tensor
            Same shape as ``x``.
        """
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)


# ============================================================================== dropout
def _dropout_class(name: str, fn: Callable[..., Tensor], summary: str) -> type[Dropout]:
    """A Dropout subclass whose forward is ``fn``, with its docstrings."""
    def forward(self: Dropout, input: Tensor) -> Tensor:  # noqa: A002
        return fn(input, self.p, self.training, self.inplace)
    forward.__doc__ = f"""Apply ``F.{fn.__name__}`` in training mode; the identity in eval mode.

        Parameters
        ----------
        input : Tensor
            ``(N, C, *)`` or unbatched.

        Returns
        -------
        Tensor
            Same shape as ``input``.
        """
    forward.__qualname__ = f"{name}.forward"
    doc = f"""{summary} (``torch.nn.{name}``).

    Parameters
    ----------
    p : float, optional
        Probability of an element (channel) to be dropped (default 0.5).
    inplace : bool, optional
        Overwrite ``input`` (default False).

    Raises
    ------
    ValueError
        If ``p`` is outside [0, 1].
    """
    return type(name, (Dropout,), {"forward": forward, "__doc__": doc,
                                   "__module__": __name__})


Dropout3d = _dropout_class("Dropout3d", F.dropout3d,
                           "Zero whole channels of ``(N, C, D, H, W)`` in training mode")
AlphaDropout = _dropout_class("AlphaDropout", F.alpha_dropout,
                              "Dropout that keeps SELU's zero mean and unit variance")
FeatureAlphaDropout = _dropout_class("FeatureAlphaDropout", F.feature_alpha_dropout,
                                     "Alpha dropout of whole channels")


# ============================================================================== padding
class _PadNd(Module):
    """The reflection, replication, circular and zero padding layers' base."""

    _n = 1
    _mode = "constant"

    def __init__(self, padding: int | Sequence[int], value: float | None = None) -> None:
        super().__init__()
        self.padding = F._ntuple(2 * self._n, "padding")(padding)
        if value is not None:
            self.value = value

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        if self._mode == "constant" and type(self).__name__.startswith("Constant"):
            return f"padding={self.padding}, value={self.value}"
        return f"{self.padding}"

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Pad ``input`` (``F.pad`` in the layer's mode).

        Parameters
        ----------
        input : Tensor
            Any shape with enough axes.

        Returns
        -------
        Tensor
            The padded tensor.
        """
        return F.pad(input, self.padding, self._mode, getattr(self, "value", None))


def _pad_class(name: str, n: int, mode: str, with_value: bool = False) -> type[_PadNd]:
    """The padding layer ``name`` of the last ``n`` axes in ``mode``, with its docstring."""
    def __init__(self: _PadNd, padding: int | Sequence[int], *args: float) -> None:
        _PadNd.__init__(self, padding, *(args if with_value else ((0.0,) if
                                                                 mode == "constant" else ())))
    what = {"reflect": "its reflection", "replicate": "its edge values",
            "circular": "its periodic continuation"}.get(mode, "zeros")
    sides = ("left, right", "left, right, top, bottom",
             "left, right, top, bottom, front, back")[n - 1]
    fill = "a constant" if with_value else what
    doc = f"""Pad the last {n} ax{'is' if n == 1 else 'es'} with {fill} (``torch.nn.{name}``).

    Parameters
    ----------
    padding : int or tuple of int
        Amounts ``({sides})``; an int pads every side.
    *args : float
        {"``value``, the fill value." if with_value else "Ignored."}
    """
    return type(name, (_PadNd,), {"_n": n, "_mode": mode, "__init__": __init__,
                                  "__doc__": doc, "__module__": __name__})


ReflectionPad1d = _pad_class("ReflectionPad1d", 1, "reflect")
ReflectionPad2d = _pad_class("ReflectionPad2d", 2, "reflect")
ReflectionPad3d = _pad_class("ReflectionPad3d", 3, "reflect")
ReplicationPad1d = _pad_class("ReplicationPad1d", 1, "replicate")
ReplicationPad2d = _pad_class("ReplicationPad2d", 2, "replicate")
ReplicationPad3d = _pad_class("ReplicationPad3d", 3, "replicate")
CircularPad1d = _pad_class("CircularPad1d", 1, "circular")
CircularPad2d = _pad_class("CircularPad2d", 2, "circular")
CircularPad3d = _pad_class("CircularPad3d", 3, "circular")
ZeroPad1d = _pad_class("ZeroPad1d", 1, "constant")
ZeroPad3d = _pad_class("ZeroPad3d", 3, "constant")
ConstantPad3d = _pad_class("ConstantPad3d", 3, "constant", with_value=True)


# ============================================================================== EmbeddingBag
class EmbeddingBag(Module):
    """Sums, means or maxima of bags of embeddings (``torch.nn.EmbeddingBag``).

    ``weight (num_embeddings, embedding_dim)`` is drawn from ``N(0, 1)``, the ``padding_idx``
    row zeroed.

    Parameters
    ----------
    num_embeddings : int
        Number of rows.
    embedding_dim : int
        Size of each row.
    max_norm : float, optional
        As ``F.embedding_bag``'s.
    norm_type : float, optional
        As ``F.embedding_bag``'s (default 2.0).
    scale_grad_by_freq : bool, optional
        As ``F.embedding_bag``'s.
    mode : str, optional
        ``'sum'``, ``'mean'`` (default) or ``'max'``.
    sparse : bool, optional
        As ``F.embedding_bag``'s.
    _weight : Tensor, optional
        Use this ``(num_embeddings, embedding_dim)`` tensor as the weight.
    include_last_offset : bool, optional
        ``offsets`` has one more entry, the end of the last bag.
    padding_idx : int, optional
        A row that is zero and excluded from the bags.
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).

    Raises
    ------
    AssertionError
        For ``padding_idx`` out of range or a ``_weight`` of the wrong shape.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: float | None = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                 sparse: bool = False, _weight: Tensor | None = None,
                 include_last_offset: bool = False, padding_idx: int | None = None,
                 device: DeviceLike = None, dtype: DTypeArg = None) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.mode, self.sparse = scale_grad_by_freq, mode, sparse
        self.include_last_offset = include_last_offset
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("padding_idx must be within num_embeddings")
            padding_idx = padding_idx % num_embeddings
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(_empty((num_embeddings, embedding_dim), dtype, device))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            self.weight = Parameter(_weight)

    def reset_parameters(self) -> None:
        """Redraw ``weight`` from ``N(0, 1)``, zeroing the ``padding_idx`` row.
        """
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with torch.no_grad():
                self.weight[self.padding_idx].fill_(0)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

    def forward(self, input: Tensor, offsets: Tensor | None = None,  # noqa: A002
                per_sample_weights: Tensor | None = None) -> Tensor:
        """Reduce each bag of embeddings (``F.embedding_bag``).

        Parameters
        ----------
        input : Tensor
            Indices: ``(B, L)`` (B bags of L) or 1-d with ``offsets``.
        offsets : Tensor, optional
            Start of each bag in a 1-d ``input``.
        per_sample_weights : Tensor, optional
            Weights of the looked-up rows (``mode='sum'`` only), ``input``'s shape.

        Returns
        -------
        Tensor
            ``(B, embedding_dim)``.
        """
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)
