"""``ftrans.nn``: functional neural-network operations (what ``jax.nn`` and
``torch.nn.functional`` offer), differentiable to any order, batchable with ``vmap`` and
stageable with ``jit``.

>>> import numpy as np, ftrans, ftrans.nn as fnn
>>> x = np.array([[1.0, 2.0, 3.0]]); y = np.array([2])
>>> float(fnn.cross_entropy(x, y))                      # doctest: +ELLIPSIS
0.407...
>>> ftrans.grad(lambda x: fnn.cross_entropy(x, y))(x)   # doctest: +SKIP

Layouts are PyTorch's: inputs ``(N, C, *spatial)``, convolution weights ``(out, in /
groups, *kernel)``, linear weights ``(out, in)``; arguments are NumPy/JAX-style
(array first, ``axis=``).  Every function is written once as a composition of ftrans
primitives; modules: ``activations`` (relu ... softmax, logsumexp, one_hot),
``convolution`` (linear, conv, pooling), ``norm`` (batch/layer/group norm, dropout,
embedding), ``losses``, ``attention``, ``sampling`` (unfold/fold, pixel
(un)shuffle, max_unpool, embedding_bag), ``ctc``, ``grid`` (grid_sample).

Fused kernels as ``custom_vjp`` impls
-------------------------------------
Where a fused kernel measures faster, the public function calls a
``ftrans.custom_vjp`` object; they are listed in ``FUSED``.  Each has the
attributes ``fun``, ``fwd`` and ``bwd`` (``custom_vjp``'s), callable directly on NumPy
arrays with no transform active (this is how ``ftrans.compat`` uses them)::

    out = core.fun(*args)                    # forward only
    out, residuals = core.fwd(*args)         # forward keeping the by-products
    grads = core.bwd(*nondiff, residuals, ct_out)   # one entry per differentiable arg

(``nondiff``: the leading static arguments listed below.)  On concrete
NumPy arrays with no transform active they run the numba/NumPy kernels; otherwise they
are written in primitives, so ``grad`` of ``grad``, ``hessian``, ``jvp`` (forward mode
differentiates ``fun``) and ``vmap`` work.  ``with fused_kernels(False):`` forces the
primitive paths (results agree to rounding).

* ``relu``: ``fun(x)``; residuals ``(y,)``.
* ``softmax``, ``log_softmax``: ``fun(axes, x)`` (``axes`` a tuple of ints); residuals
  ``(y,)``.
* ``conv``: ``fun((strides, pads, dilation, groups, lhs_dilation), x, w, b)`` with
  ``pads`` ``(lo, hi)`` pairs, ``lhs_dilation`` None (1s) or one int per spatial axis
  (transposed convolutions), ``b`` ``(O,)`` or None; residuals ``(x, w, cols or None,
  has_bias, patches or None)`` (``cols``: the eager kernel's im2col matrix; ``patches``:
  under a trace, :mod:`ftrans.primitives.patches`' matrix of ``x``).
* ``max_pool``: ``fun((window, strides, pads, dilation, x_shape), x)`` with full-rank
  window parameters (one entry per axis of ``x``); residuals ``(flat argmax,)``.
* ``batch_norm``: ``fun(eps, x, w, b) -> (out, mean, biased var)`` (training mode;
  ``w``/``b`` arrays); residuals ``(x, w, mean, invstd)``; ``bwd`` takes the three
  output cotangents.
* ``nll_of_logits``: ``fun(x (M, C), target (M,), coef (M,)) -> -coef *
  log_softmax(x)[i, target_i]``; residuals ``(x, target, coef, lse, picked log-prob)``;
  ``bwd`` returns ``(dx, None, dcoef)``.
"""
from . import activations, attention, convolution, ctc, grid, losses, norm, sampling  # noqa: F401
from ._util import fused_kernels
from .activations import (relu, relu6, hard_tanh, hardtanh, gelu, silu, swish, elu,
                          leaky_relu, sigmoid, log_sigmoid, softplus, softmax, log_softmax,
                          logsumexp, one_hot)
from .convolution import (linear, conv, max_pool, avg_pool, adaptive_avg_pool,
                          adaptive_max_pool)
from .norm import batch_norm, layer_norm, group_norm, dropout, embedding
from .losses import (cross_entropy, nll_loss, mse_loss, l1_loss, smooth_l1_loss, huber_loss,
                     binary_cross_entropy, binary_cross_entropy_with_logits, kl_div)
from .attention import scaled_dot_product_attention
from .ctc import ctc_loss
from .grid import grid_sample
from .sampling import (unfold, fold, pixel_shuffle, pixel_unshuffle, max_unpool,
                       embedding_bag)

#: the ``custom_vjp`` objects behind the fused paths (see the module docstring)
FUSED = {"relu": activations._relu, "softmax": activations._softmax,
         "log_softmax": activations._log_softmax, "conv": convolution._conv,
         "max_pool": convolution._max_pool, "batch_norm": norm._bn_train,
         "nll_of_logits": losses._nll_rows}

__all__ = ["relu", "relu6", "hard_tanh", "hardtanh", "gelu", "silu", "swish", "elu",
           "leaky_relu", "sigmoid", "log_sigmoid", "softplus", "softmax", "log_softmax",
           "logsumexp", "one_hot", "linear", "conv", "max_pool", "avg_pool",
           "adaptive_avg_pool", "adaptive_max_pool", "batch_norm", "layer_norm",
           "group_norm", "dropout", "embedding", "cross_entropy", "nll_loss", "mse_loss",
           "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "kl_div", "scaled_dot_product_attention",
           "ctc_loss", "grid_sample", "unfold", "fold", "pixel_shuffle", "pixel_unshuffle",
           "max_unpool", "embedding_bag", "fused_kernels", "FUSED"]
