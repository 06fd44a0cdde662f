"""``torch.nn.functional`` on compat Tensors (linear, convolution and pooling in
:mod:`._functional_layers`, normalization, dropout and padding in :mod:`._functional_norm`,
activations in :mod:`._functional_act`, losses and attention in :mod:`._functional_losses`).

Everything here is written with compat Tensor operations (so autograd, ``create_graph``
and the functional transforms see ordinary primitives); convolution, max pooling, batch
norm, relu, softmax/log_softmax and cross entropy with class indices are ``ftrans.nn``'s
fused functions, one graph node each (:mod:`ftrans.compat._nn_ops`).  Formulas,
argument names, defaults and error messages follow PyTorch 2.x's documentation of each
function (``torch.nn.functional``); where PyTorch's documented formula leaves a choice
(the derivative at a kink) the choice is PyTorch's: ``relu'(0) = 0``,
``leaky_relu'(0) = negative_slope``, ``max_pool`` routes the gradient to the first
maximum of each window.
"""
from __future__ import annotations

from ._checks import _ntuple, _check_tensor  # noqa: F401
from ._functional_layers import (linear, bilinear, conv1d, conv2d, conv3d,  # noqa: F401
    conv_transpose1d, conv_transpose2d, max_pool1d, max_pool2d, avg_pool1d, avg_pool2d,
    adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_max_pool1d, adaptive_max_pool2d,
    _convnd, _conv_transposend, _max_pool)
from ._functional_norm import (batch_norm, layer_norm, group_norm, dropout,  # noqa: F401
    embedding, one_hot, pad, normalize, instance_norm, cosine_similarity, pairwise_distance,
    interpolate)
from ._functional_act import (relu, relu_, leaky_relu, elu, gelu, silu, sigmoid,  # noqa: F401
    tanh, softplus, softmax, log_softmax, logsigmoid, relu6, hardtanh, prelu, selu, celu, mish,
    hardsigmoid, hardswish, softsign, tanhshrink, threshold, softmin)
from ._functional_losses import (mse_loss, l1_loss, smooth_l1_loss, huber_loss,
    cross_entropy, nll_loss, binary_cross_entropy, binary_cross_entropy_with_logits, kl_div,
    scaled_dot_product_attention, multi_head_attention_forward, _legacy_reduction)  # noqa: F401
from . import _functional_more, _functional_losses2, _functional_sample
from ._functional_more import *  # noqa: F401,F403  (pad and interpolate extend the above)
from ._functional_losses2 import *  # noqa: F401,F403
from ._functional_sample import grid_sample  # noqa: F401

#: torch.* functions that live with nn.functional (installed into ftrans.compat by
#: ftrans.compat.nn): torch.grid_sampler_2d, torch.constant_pad_nd, torch.native_*_norm ...
TOPLEVEL = {n: getattr(_functional_sample, n) for n in _functional_sample.TOPLEVEL_NAMES}
TOPLEVEL.update({n: globals()[n] for n in (
    "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "pdist", "rrelu", "hardshrink",
    "alpha_dropout", "feature_alpha_dropout", "rms_norm", "max_pool3d", "avg_pool1d",
    "adaptive_avg_pool1d", "adaptive_max_pool1d", "conv_transpose3d")})

__all__ = [
    "linear", "bilinear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
    "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
    "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d", "batch_norm",
    "layer_norm", "group_norm", "dropout", "embedding",
    "one_hot", "pad", "relu", "relu_", "leaky_relu", "elu", "gelu", "silu", "sigmoid", "tanh",
    "softplus", "softmax", "log_softmax", "logsigmoid", "relu6", "hardtanh", "prelu", "selu",
    "celu", "mish", "hardsigmoid", "hardswish", "softsign", "tanhshrink", "threshold",
    "softmin", "mse_loss", "l1_loss",
    "smooth_l1_loss", "huber_loss", "cross_entropy", "nll_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "kl_div", "scaled_dot_product_attention",
    "multi_head_attention_forward", "normalize", "instance_norm", "cosine_similarity",
    "pairwise_distance", "interpolate",
] + _functional_more.__all__ + _functional_losses2.__all__ + _functional_sample.__all__
__all__ = list(dict.fromkeys(__all__))
