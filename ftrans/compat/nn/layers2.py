"""More layers of ``torch.nn``: shuffles, unfold/fold, shrink and gated activations,
RMS and local response norms, 3-d pooling, unpooling, fractional pooling, the remaining
dropouts, padding layers, upsampling layers and ``EmbeddingBag``.  Constructor
arguments, defaults, parameters and reprs are PyTorch's; forward passes are
:mod:`~ftrans.compat.nn.functional` calls."""
from __future__ import annotations

import ftrans.compat as torch
from . import functional as F
from . import init
from .layers import (_MaxPoolNd, _ConvTransposeNd, AvgPool2d, AdaptiveAvgPool1d,
                     AdaptiveMaxPool1d, Upsample, LayerNorm, Dropout, _empty)
from .module import Module
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


class _Fn(Module):
    """A module applying one functional with fixed keyword arguments."""
    _fn = None
    _names = ()

    def __init__(self, *args, **kwargs):
        super().__init__()
        vals = dict(zip(self._names, args))
        for name, default in self._defaults.items():
            setattr(self, name, kwargs.pop(name, vals.pop(name, default)))
        if kwargs or vals:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments "
                            f"{sorted(kwargs) + sorted(vals)}")

    def _kw(self):
        return {n: getattr(self, n) for n in self._defaults}

    def extra_repr(self):
        return ", ".join(f"{n}={getattr(self, n)}" for n in self._defaults)

    def forward(self, input):  # noqa: A002
        return type(self)._fn(input, **self._kw())


def _fn_module(name, fn, defaults, doc):
    req = {k: v for k, v in defaults.items()}
    return type(name, (_Fn,), {"_fn": staticmethod(fn), "_names": tuple(req),
                               "_defaults": req, "__doc__": doc,
                               "__module__": __name__})


_REQ = object()


class _Required(_Fn):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for n in self._defaults:
            if getattr(self, n) is _REQ:
                raise TypeError(f"{type(self).__name__}.__init__() missing required argument "
                                f"'{n}'")


def _req_module(name, fn, defaults, doc):
    return type(name, (_Required,), {"_fn": staticmethod(fn), "_names": tuple(defaults),
                                     "_defaults": dict(defaults), "__doc__": doc,
                                     "__module__": __name__})


PixelShuffle = _req_module("PixelShuffle", F.pixel_shuffle, {"upscale_factor": _REQ},
                           "``torch.nn.PixelShuffle``.")
PixelUnshuffle = _req_module("PixelUnshuffle", F.pixel_unshuffle, {"downscale_factor": _REQ},
                             "``torch.nn.PixelUnshuffle``.")
ChannelShuffle = _req_module("ChannelShuffle", F.channel_shuffle, {"groups": _REQ},
                             "``torch.nn.ChannelShuffle``.")
Unfold = _req_module("Unfold", F.unfold, {"kernel_size": _REQ, "dilation": 1, "padding": 0,
                                          "stride": 1}, "``torch.nn.Unfold``.")
Fold = _req_module("Fold", F.fold, {"output_size": _REQ, "kernel_size": _REQ, "dilation": 1,
                                    "padding": 0, "stride": 1}, "``torch.nn.Fold``.")
GLU = _fn_module("GLU", F.glu, {"dim": -1}, "``torch.nn.GLU``.")
Hardshrink = _fn_module("Hardshrink", F.hardshrink, {"lambd": 0.5}, "``torch.nn.Hardshrink``.")
Softshrink = _fn_module("Softshrink", F.softshrink, {"lambd": 0.5}, "``torch.nn.Softshrink``.")
LocalResponseNorm = _req_module("LocalResponseNorm", F.local_response_norm,
                                {"size": _REQ, "alpha": 1e-4, "beta": 0.75, "k": 1.0},
                                "``torch.nn.LocalResponseNorm``.")
Hardshrink.extra_repr = lambda self: f"{self.lambd}"
Softshrink.extra_repr = lambda self: f"{self.lambd}"
LocalResponseNorm.extra_repr = lambda self: (f"{self.size}, alpha={self.alpha}, "
                                             f"beta={self.beta}, k={self.k}")


class UpsamplingNearest2d(Upsample):
    """``torch.nn.UpsamplingNearest2d``: ``Upsample(mode='nearest')``."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """``torch.nn.UpsamplingBilinear2d``: ``Upsample(mode='bilinear',
    align_corners=True)``."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class RReLU(Module):
    """``torch.nn.RReLU``: randomized leaky ReLU (slope ``U(lower, upper)`` in training)."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}"

    def forward(self, input):  # noqa: A002
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)


class RMSNorm(LayerNorm):
    """``torch.nn.RMSNorm``: ``x / sqrt(mean(x^2) + eps) * weight`` over the trailing
    ``normalized_shape`` (``weight`` initialized to ones; no bias)."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__(normalized_shape, eps, elementwise_affine, False, device, dtype)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)


# ============================================================================== pooling
class MaxPool3d(_MaxPoolNd):
    """``torch.nn.MaxPool3d``."""
    _n = 3


class AvgPool3d(AvgPool2d):
    """``torch.nn.AvgPool3d``."""

    def forward(self, input):  # noqa: A002
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool3d(AdaptiveAvgPool1d):
    """``torch.nn.AdaptiveAvgPool3d``."""

    def forward(self, input):  # noqa: A002
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(AdaptiveMaxPool1d):
    """``torch.nn.AdaptiveMaxPool3d``."""

    def forward(self, input):  # noqa: A002
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _MaxUnpoolNd(Module):
    _n = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        tup = F._ntuple(self._n)
        self.kernel_size = tup(kernel_size)
        self.stride = tup(stride if stride is not None else kernel_size)
        self.padding = tup(padding)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input, indices, output_size=None):  # noqa: A002
        fn = (F.max_unpool1d, F.max_unpool2d, F.max_unpool3d)[self._n - 1]
        return fn(input, indices, self.kernel_size, self.stride, self.padding, output_size)


MaxUnpool1d, MaxUnpool2d, MaxUnpool3d = (
    type(f"MaxUnpool{n}d", (_MaxUnpoolNd,), {"_n": n, "__module__": __name__,
                                             "__doc__": f"``torch.nn.MaxUnpool{n}d``."})
    for n in (1, 2, 3))


class FractionalMaxPool2d(Module):
    """``torch.nn.FractionalMaxPool2d`` (random offsets from compat's generator)."""
    _n = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
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

    def forward(self, input):  # noqa: A002
        fn = F.fractional_max_pool2d if self._n == 2 else F.fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio,
                  self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool3d(FractionalMaxPool2d):
    """``torch.nn.FractionalMaxPool3d``."""
    _n = 3


class ConvTranspose3d(_ConvTransposeNd):
    """``torch.nn.ConvTranspose3d``; ``weight (C_in, C_out/groups, kD, kH, kW)``."""
    _n = 3


# ============================================================================== dropout
def _dropout_class(name, fn, doc):
    def forward(self, input):  # noqa: A002
        return fn(input, self.p, self.training, self.inplace)
    return type(name, (Dropout,), {"forward": forward, "__doc__": doc,
                                   "__module__": __name__})


Dropout3d = _dropout_class("Dropout3d", F.dropout3d,
                           "``torch.nn.Dropout3d``: whole channels zeroed in training.")
AlphaDropout = _dropout_class("AlphaDropout", F.alpha_dropout, "``torch.nn.AlphaDropout``.")
FeatureAlphaDropout = _dropout_class("FeatureAlphaDropout", F.feature_alpha_dropout,
                                     "``torch.nn.FeatureAlphaDropout``.")


# ============================================================================== padding
class _PadNd(Module):
    _n = 1
    _mode = "constant"

    def __init__(self, padding, value=None):
        super().__init__()
        self.padding = F._ntuple(2 * self._n, "padding")(padding)
        if value is not None:
            self.value = value

    def extra_repr(self):
        if self._mode == "constant" and type(self).__name__.startswith("Constant"):
            return f"padding={self.padding}, value={self.value}"
        return f"{self.padding}"

    def forward(self, input):  # noqa: A002
        return F.pad(input, self.padding, self._mode, getattr(self, "value", None))


def _pad_class(name, n, mode, with_value=False):
    def __init__(self, padding, *args):
        _PadNd.__init__(self, padding, *(args if with_value else ((0.0,) if
                                                                 mode == "constant" else ())))
    return type(name, (_PadNd,), {"_n": n, "_mode": mode, "__init__": __init__,
                                  "__doc__": f"``torch.nn.{name}``.", "__module__": __name__})


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
    """``torch.nn.EmbeddingBag``: sums/means/maxima of bags of embeddings (``weight``
    from ``N(0, 1)``, the ``padding_idx`` row zeroed)."""

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
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

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with torch.no_grad():
                self.weight[self.padding_idx].fill_(0)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

    def forward(self, input, offsets=None, per_sample_weights=None):  # noqa: A002
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)
