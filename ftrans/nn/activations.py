"""Activation functions, softmax and its relatives (``jax.nn`` /
``torch.nn.functional``), each written once as a composition of ftrans primitives.

Conventions at non-differentiable points follow PyTorch's autograd (``relu'(0) = 0``,
``hard_tanh'`` is 0 at both corners, ``leaky_relu'(0) = negative_slope``, ``elu'(0) =
alpha``).  Real inputs only; integer inputs become float64; float32 stays float32.

Fused paths (``custom_vjp``; see :mod:`ftrans.nn` for the ``fun``/``fwd``/``bwd``
contract):

* :func:`relu` -- residual: the output; eager backward one numba pass
  (``kernels.nn_cpu.relu_backward``: ``where(ans > 0, g, 0)``);
* :func:`softmax` -- residual: the output ``y``; backward ``y (g - sum(g y))``;
* :func:`log_softmax` -- residual: the output ``y``; backward ``g - exp(y) sum(g)``.

The backward rules are written in primitives when a transform is active (so grad of grad,
``hessian`` and ``vmap`` work) and in NumPy on concrete arrays.
"""
from __future__ import annotations

import math

import numpy as np

from ..core import Tracer
from .. import primitives as P
from ..kernels import nn_cpu as _K
from ..numpy._reductions import logsumexp as _np_logsumexp
from ..primitives.special import erf as _erf
from ..transforms import custom_vjp
from ._util import apply, as_float, axes_of, eager, keep_shape

__all__ = ["relu", "relu6", "hard_tanh", "hardtanh", "gelu", "silu", "swish", "elu",
           "leaky_relu", "sigmoid", "log_sigmoid", "softplus", "softmax", "log_softmax",
           "logsumexp", "one_hot"]


# ------------------------------------------------------------------------------- relu
def _relu_fun(x):
    if eager(x):
        y = _K.relu(x)            # one numba pass; None when not eligible
        if y is not None:
            return y
    return P.where(P.gt(x, 0), x, 0.0)


def _relu_fwd(x):
    y = _relu_fun(x)
    return y, (y,)


def _relu_bwd(res, g):
    y, = res
    if eager(y, g):
        d = _K.relu_backward(y, g)
        if d is not None:
            return (d,)
    return (P.where(P.gt(y, 0), g, 0.0),)


_relu = custom_vjp(_relu_fun)
_relu.defvjp(_relu_fwd, _relu_bwd)


def relu(x):
    """``max(x, 0)`` elementwise; derivative 0 at 0 (PyTorch).  Any shape; real dtypes.

    >>> relu(np.array([-1.0, 0.0, 2.0]))
    array([0., 0., 2.])
    """
    return apply(_relu, as_float(x))


def hard_tanh(x, min_val=-1.0, max_val=1.0):
    """``clip(x, min_val, max_val)`` (``torch.nn.functional.hardtanh``); derivative 1
    strictly inside, 0 at and beyond the corners (PyTorch).  ValueError if ``min_val >
    max_val``."""
    if min_val > max_val:
        raise ValueError(f"hard_tanh: min_val ({min_val}) must be <= max_val ({max_val})")
    x = as_float(x)
    inside = P.logical_and(P.gt(x, min_val), P.lt(x, max_val))
    clipped = P.where(P.le(x, min_val), float(min_val), float(max_val))
    return P.where(inside, x, P.convert_element_type(clipped, x.dtype))


hardtanh = hard_tanh


def relu6(x):
    """``min(max(x, 0), 6)`` (``hard_tanh(x, 0, 6)``, as PyTorch defines it)."""
    return hard_tanh(x, 0.0, 6.0)


def sigmoid(x):
    """Logistic function ``1 / (1 + exp(-x))`` as ``exp(-logaddexp(0, -x))``: no
    overflow, full relative precision in both tails."""
    x = as_float(x)
    return P.exp(P.neg(P.logaddexp(0.0, P.neg(x))))


def log_sigmoid(x):
    """``log(sigmoid(x)) = -logaddexp(0, -x)`` (``torch.nn.functional.logsigmoid``)."""
    x = as_float(x)
    return P.neg(P.logaddexp(0.0, P.neg(x)))


def softplus(x, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta x)) / beta``, and ``x`` where ``beta x > threshold``
    (``torch.nn.functional.softplus``; the log-sum-exp form never overflows)."""
    x = as_float(x)
    bx = P.mul(x, float(beta))
    soft = P.div(P.logaddexp(0.0, bx), float(beta))
    return P.where(P.gt(bx, float(threshold)), x, soft)


def silu(x):
    """``x * sigmoid(x)`` (SiLU / swish, ``torch.nn.functional.silu``)."""
    x = as_float(x)
    return P.mul(x, sigmoid(x))


swish = silu

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def gelu(x, approximate="none"):
    """Gaussian error linear unit (Hendrycks & Gimpel 2016; PyTorch's ``approximate``):
    ``'none'``: ``x/2 (1 + erf(x / sqrt 2))``; ``'tanh'``: ``x/2 (1 + tanh(sqrt(2/pi)
    (x + 0.044715 x^3)))``.  ValueError for another ``approximate``.  (JAX's
    ``approximate=True/False`` are accepted as 'tanh'/'none'.)"""
    if approximate is True:
        approximate = "tanh"
    elif approximate is False:
        approximate = "none"
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    x = as_float(x)
    if approximate == "tanh":
        inner = P.mul(_SQRT_2_OVER_PI, P.add(x, P.mul(0.044715, P.mul(x, P.mul(x, x)))))
        return P.mul(P.mul(0.5, x), P.add(1.0, P.tanh(inner)))
    return P.mul(P.mul(0.5, x), P.add(1.0, _erf(P.mul(x, 1.0 / math.sqrt(2.0)))))


def elu(x, alpha=1.0):
    """``x`` for ``x > 0``, ``alpha (exp(x) - 1)`` otherwise (Clevert et al. 2015;
    derivative ``alpha`` at 0, as PyTorch).  The negative branch reads ``min(x, 0)`` so
    that a large positive ``x`` does not overflow its (unused) derivative."""
    x = as_float(x)
    pos = P.gt(x, 0)
    neg = P.where(pos, 0.0, x)
    return P.where(pos, x, P.mul(float(alpha), P.expm1(neg)))


def leaky_relu(x, negative_slope=0.01):
    """``x`` for ``x > 0``, ``negative_slope * x`` otherwise (derivative
    ``negative_slope`` at 0, as PyTorch)."""
    x = as_float(x)
    return P.where(P.gt(x, 0), x, P.mul(x, float(negative_slope)))


# ---------------------------------------------------------------------- softmax family
def _shift(x, axes):
    """The maximum over ``axes`` (keepdims, not differentiated; 0 where not finite)."""
    if not all(x.shape[a] for a in axes):
        return np.zeros(keep_shape(x.shape, axes), x.dtype)
    m = P.stop_gradient(P.reshape(P.reduce_max(x, axes), keep_shape(x.shape, axes)))
    return P.where(P.isfinite(m), m, 0.0)


def _sum_keep(x, axes):
    return P.reshape(P.reduce_sum(x, axes), keep_shape(x.shape, axes))


def _np_shift(x, axes):
    if not x.size:
        return np.zeros(keep_shape(x.shape, axes), x.dtype)
    m = np.max(x, axis=axes, keepdims=True)
    return np.where(np.isfinite(m), m, 0).astype(x.dtype, copy=False)


def _saved_output_vjp(fun, bwd):
    """A ``custom_vjp`` of ``fun(axes, x)`` whose residual is its output ``y`` and whose
    backward pass is ``bwd(ops, axes, y, g)`` -- ``ops`` NumPy on concrete arrays with no
    transform active, else ftrans's primitives (namespace :data:`_P_OPS`)."""
    def fwd(axes, x):
        y = fun(axes, x)
        return y, (y,)

    def rule(axes, res, g):
        y, = res
        return (bwd(_NP_OPS if eager(y, g) else _P_OPS, axes, y, g),)

    f = custom_vjp(fun, nondiff_argnums=(0,))
    f.defvjp(fwd, rule)
    return f


class _NP_OPS:
    mul, sub, exp = staticmethod(np.multiply), staticmethod(np.subtract), staticmethod(np.exp)

    @staticmethod
    def sum_keep(x, axes):
        return np.sum(x, axis=axes, keepdims=True)


class _P_OPS:
    mul, sub, exp = staticmethod(P.mul), staticmethod(P.sub), staticmethod(P.exp)
    sum_keep = staticmethod(lambda x, axes: _sum_keep(x, axes))


def _softmax_fun(axes, x):
    if eager(x):
        z = np.exp(x - _np_shift(x, axes))
        return np.asarray(z / np.sum(z, axis=axes, keepdims=True), x.dtype)
    z = P.exp(P.sub(x, _shift(x, axes)))
    return P.div(z, _sum_keep(z, axes))


def _log_softmax_fun(axes, x):
    if eager(x):
        z = x - _np_shift(x, axes)
        return np.asarray(z - np.log(np.sum(np.exp(z), axis=axes, keepdims=True)), x.dtype)
    z = P.sub(x, _shift(x, axes))
    return P.sub(z, P.log(_sum_keep(P.exp(z), axes)))


# softmax: dx = y (g - sum(g y)); log_softmax: dx = g - exp(y) sum(g)
_softmax = _saved_output_vjp(
    _softmax_fun, lambda o, axes, y, g: o.mul(y, o.sub(g, o.sum_keep(o.mul(g, y), axes))))
_log_softmax = _saved_output_vjp(
    _log_softmax_fun, lambda o, axes, y, g: o.sub(g, o.mul(o.exp(y), o.sum_keep(g, axes))))


def softmax(x, axis=-1):
    """``exp(x) / sum(exp(x), axis)``, shifted by the (non-differentiated) maximum so
    large entries do not overflow and ``-inf`` entries get weight 0.

    ``axis``: an int, a tuple of ints, or None (all axes, SciPy's convention).  Output:
    ``x``'s shape and (float) dtype.  Raises ``AxisError`` for an axis out of range.

    >>> softmax(np.array([0.0, np.log(3.0)]))
    array([0.25, 0.75])
    """
    x = as_float(x, "softmax input")
    return apply(_softmax, axes_of(axis, len(x.shape)), x)


def log_softmax(x, axis=-1):
    """``x - logsumexp(x, axis, keepdims=True)`` (same arguments as :func:`softmax`)."""
    x = as_float(x, "log_softmax input")
    return apply(_log_softmax, axes_of(axis, len(x.shape)), x)


def logsumexp(x, axis=None, keepdims=False, *, b=None, return_sign=False):
    """``log(sum(b * exp(x), axis))`` computed stably (``scipy.special.logsumexp``'s
    semantics: weights ``b``, ``return_sign``, complex ``x``; the implementation is
    ``ftrans.numpy``'s).  Derivative ``b exp(x - result)`` (softmax weights)."""
    return _np_logsumexp(x, axis=axis, b=b, keepdims=keepdims, return_sign=return_sign)


def one_hot(labels, num_classes, dtype=np.float64, axis=-1):
    """``labels[..., None] == arange(num_classes)`` in ``dtype`` (``jax.nn.one_hot``):
    a label outside ``[0, num_classes)`` gives a row of zeros.  ``labels``: integer
    array of any shape; the class axis is inserted at ``axis``.  TypeError for
    non-integer labels; ValueError for ``num_classes < 0``."""
    if not isinstance(labels, Tracer) and not hasattr(labels, "dtype"):
        labels = np.asarray(labels)
    if np.dtype(labels.dtype).kind not in "iub":
        raise TypeError(f"one_hot: labels must be integers, got dtype {labels.dtype}; "
                        "convert them with .astype(int)")
    num_classes = int(num_classes)
    if num_classes < 0:
        raise ValueError(f"one_hot: num_classes must be >= 0, got {num_classes}")
    nd = len(labels.shape) + 1
    ax = axis % nd
    lab = P.expand_dims(labels, (ax,))
    classes = np.arange(num_classes).reshape((-1,) + (1,) * (nd - 1 - ax))
    return P.convert_element_type(P.eq(lab, classes), np.dtype(dtype))
