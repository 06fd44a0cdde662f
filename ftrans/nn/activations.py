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
from collections.abc import Callable
from typing import Literal, cast, overload

import numpy as np

from ..core import Tracer
from .. import primitives as P
from ..kernels import nn_cpu as _K
from ..numpy._reductions import logsumexp as _np_logsumexp
from ..primitives.special import erf as _erf
from ..transforms import custom_vjp
from ..typing import Array, ArrayLike, Axis, DTypeLike
from ._util import apply, as_float, axes_of, eager, keep_shape

__all__ = ["relu", "relu6", "hard_tanh", "hardtanh", "gelu", "silu", "swish", "elu",
           "leaky_relu", "sigmoid", "log_sigmoid", "softplus", "softmax", "log_softmax",
           "logsumexp", "one_hot"]


# ------------------------------------------------------------------------------- relu
def _relu_fun(x: Array) -> Array:
    if eager(x):
        y = _K.relu(x)            # one numba pass; None when not eligible
        if y is not None:
            return y
    return P.where(P.gt(x, 0), x, 0.0)


def _relu_fwd(x: Array) -> tuple[Array, tuple[Array]]:
    y = _relu_fun(x)
    return y, (y,)


def _relu_bwd(res: tuple[Array], g: Array) -> tuple[Array]:
    y, = res
    if eager(y, g):
        d = _K.relu_backward(y, g)
        if d is not None:
            return (d,)
    return (P.where(P.gt(y, 0), g, 0.0),)


_relu = custom_vjp(_relu_fun)
_relu.defvjp(_relu_fwd, _relu_bwd)


def relu(x: ArrayLike) -> Array:
    """Rectified linear unit ``max(x, 0)``, elementwise.

    Derivative 0 at 0 (PyTorch).

    Parameters
    ----------
    x : ArrayLike
        Any shape, real dtype (integers become float64).

    Returns
    -------
    Array
        Of ``x``'s shape and float dtype.

    Examples
    --------
    >>> relu(np.array([-1.0, 0.0, 2.0]))
    array([0., 0., 2.])
    """
    return apply(_relu, as_float(x))


def hard_tanh(x: ArrayLike, min_val: float = -1.0, max_val: float = 1.0) -> Array:
    """``clip(x, min_val, max_val)`` (``torch.nn.functional.hardtanh``).

    Derivative 1 strictly inside, 0 at and beyond the corners (PyTorch).

    Parameters
    ----------
    x : ArrayLike
        Any shape, real dtype.
    min_val, max_val : float, optional
        The corners.

    Returns
    -------
    Array
        Of ``x``'s shape and float dtype.

    Raises
    ------
    ValueError
        If ``min_val > max_val``.
    """
    if min_val > max_val:
        raise ValueError(f"hard_tanh: min_val ({min_val}) must be <= max_val ({max_val})")
    x = as_float(x)
    inside = P.logical_and(P.gt(x, min_val), P.lt(x, max_val))
    clipped = P.where(P.le(x, min_val), float(min_val), float(max_val))
    return P.where(inside, x, P.convert_element_type(clipped, x.dtype))


hardtanh = hard_tanh


def relu6(x: ArrayLike) -> Array:
    """``min(max(x, 0), 6)`` (``hard_tanh(x, 0, 6)``, as PyTorch defines it).

    Parameters
    ----------
    x : ArrayLike
        Any shape, real dtype.

    Returns
    -------
    Array
        Of ``x``'s shape and float dtype.
    """
    return hard_tanh(x, 0.0, 6.0)


def sigmoid(x: ArrayLike) -> Array:
    """Logistic function ``1 / (1 + exp(-x))``.

    Computed as ``exp(-logaddexp(0, -x))``: no overflow, full relative precision in both
    tails.

    Parameters
    ----------
    x : ArrayLike
        Any shape, real dtype.

    Returns
    -------
    Array
        Of ``x``'s shape and float dtype.
    """
    x = as_float(x)
    return P.ROW_OPS["exp"](P.neg(P.ROW_OPS["logaddexp"](0.0, P.neg(x))))


def log_sigmoid(x: ArrayLike) -> Array:
    """``log(sigmoid(x)) = -logaddexp(0, -x)`` (``torch.nn.functional.logsigmoid``).

    Parameters
    ----------
    x : ArrayLike
        Any shape, real dtype.

    Returns
    -------
    Array
        Of ``x``'s shape and float dtype.
    """
    x = as_float(x)
    return P.neg(P.ROW_OPS["logaddexp"](0.0, P.neg(x)))


def softplus(x: ArrayLike, beta: float = 1.0, threshold: float = 20.0) -> Array:
    """``log(1 + exp(beta x)) / beta`` (``torch.nn.functional.softplus``).

    ``x`` itself where ``beta x > threshold``; the log-sum-exp form never overflows.

    Parameters
    ----------
    x : ArrayLike
        Any shape, real dtype.
    beta : float, optional
        The sharpness.
    threshold : float, optional
        Above this value of ``beta x`` the result is ``x``.

    Returns
    -------
    Array
        Of ``x``'s shape and float dtype.
    """
    x = as_float(x)
    bx = P.mul(x, float(beta))
    soft = P.div(P.ROW_OPS["logaddexp"](0.0, bx), float(beta))
    return P.where(P.gt(bx, float(threshold)), x, soft)


def silu(x: ArrayLike) -> Array:
    """``x * sigmoid(x)`` (SiLU / swish, ``torch.nn.functional.silu``).

    Parameters
    ----------
    x : ArrayLike
        Any shape, real dtype.

    Returns
    -------
    Array
        Of ``x``'s shape and float dtype.
    """
    x = as_float(x)
    return P.mul(x, sigmoid(x))


swish = silu

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def gelu(x: ArrayLike, approximate: str | bool = "none") -> Array:
    """Gaussian error linear unit (PyTorch's ``approximate``).

    ``'none'``: ``x/2 (1 + erf(x / sqrt 2))``; ``'tanh'``: ``x/2 (1 + tanh(sqrt(2/pi)
    (x + 0.044715 x^3)))``.

    Parameters
    ----------
    x : ArrayLike
        Any shape, real dtype.
    approximate : {'none', 'tanh'} or bool, optional
        The form; JAX's ``True``/``False`` are accepted as ``'tanh'``/``'none'``.

    Returns
    -------
    Array
        Of ``x``'s shape and float dtype.

    Raises
    ------
    ValueError
        For another ``approximate``.

    Notes
    -----
    Hendrycks & Gimpel, "Gaussian Error Linear Units (GELUs)", 2016.
    """
    if approximate is True:
        approximate = "tanh"
    elif approximate is False:
        approximate = "none"
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    x = as_float(x)
    if approximate == "tanh":
        inner = P.mul(_SQRT_2_OVER_PI, P.add(x, P.mul(0.044715, P.mul(x, P.mul(x, x)))))
        return P.mul(P.mul(0.5, x), P.add(1.0, P.ROW_OPS["tanh"](inner)))
    return P.mul(P.mul(0.5, x), P.add(1.0, _erf(P.mul(x, 1.0 / math.sqrt(2.0)))))


def elu(x: ArrayLike, alpha: float = 1.0) -> Array:
    """Exponential linear unit: ``x`` for ``x > 0``, ``alpha (exp(x) - 1)`` otherwise.

    Derivative ``alpha`` at 0, as PyTorch.  The negative branch reads ``min(x, 0)`` so
    that a large positive ``x`` does not overflow its (unused) derivative.

    Parameters
    ----------
    x : ArrayLike
        Any shape, real dtype.
    alpha : float, optional
        The negative saturation value.

    Returns
    -------
    Array
        Of ``x``'s shape and float dtype.

    Notes
    -----
    Clevert, Unterthiner & Hochreiter, "Fast and Accurate Deep Network Learning by
    Exponential Linear Units (ELUs)", 2015.
    """
    x = as_float(x)
    pos = P.gt(x, 0)
    neg = P.where(pos, 0.0, x)
    return P.where(pos, x, P.mul(float(alpha), P.ROW_OPS["expm1"](neg)))


def leaky_relu(x: ArrayLike, negative_slope: float = 0.01) -> Array:
    """``x`` for ``x > 0``, ``negative_slope * x`` otherwise.

    Derivative ``negative_slope`` at 0, as PyTorch.

    Parameters
    ----------
    x : ArrayLike
        Any shape, real dtype.
    negative_slope : float, optional
        The slope for ``x <= 0``.

    Returns
    -------
    Array
        Of ``x``'s shape and float dtype.
    """
    x = as_float(x)
    return P.where(P.gt(x, 0), x, P.mul(x, float(negative_slope)))


# ---------------------------------------------------------------------- softmax family
def _shift(x: Array, axes: tuple[int, ...]) -> Array:
    """The maximum over ``axes`` (keepdims, not differentiated; 0 where not finite)."""
    if not all(x.shape[a] for a in axes):
        return np.zeros(keep_shape(x.shape, axes), x.dtype)
    m = P.stop_gradient(P.reshape(P.reduce_max(x, axes), keep_shape(x.shape, axes)))
    return P.where(P.isfinite(m), m, 0.0)


def _sum_keep(x: Array, axes: tuple[int, ...]) -> Array:
    return P.reshape(P.reduce_sum(x, axes), keep_shape(x.shape, axes))


def _np_shift(x: Array, axes: tuple[int, ...]) -> Array:
    if not x.size:
        return np.zeros(keep_shape(x.shape, axes), x.dtype)
    m = np.max(x, axis=axes, keepdims=True)
    return np.where(np.isfinite(m), m, 0).astype(x.dtype, copy=False)


def _saved_output_vjp(fun: Callable[..., Array], bwd: Callable[..., Array]) -> custom_vjp:
    """A ``custom_vjp`` of ``fun(axes, x)`` whose residual is its output ``y`` and whose
    backward pass is ``bwd(ops, axes, y, g)`` -- ``ops`` NumPy on concrete arrays with no
    transform active, else ftrans's primitives (namespace :data:`_P_OPS`)."""
    def fwd(axes: tuple[int, ...], x: Array) -> tuple[Array, tuple[Array]]:
        y = fun(axes, x)
        return y, (y,)

    def rule(axes: tuple[int, ...], res: tuple[Array], g: Array) -> tuple[Array]:
        y, = res
        return (bwd(_NP_OPS if eager(y, g) else _P_OPS, axes, y, g),)

    f = custom_vjp(fun, nondiff_argnums=(0,))
    f.defvjp(fwd, rule)
    return f


class _NP_OPS:
    mul, sub, exp = staticmethod(np.multiply), staticmethod(np.subtract), staticmethod(np.exp)

    @staticmethod
    def sum_keep(x: Array, axes: tuple[int, ...]) -> Array:
        return np.sum(x, axis=axes, keepdims=True)


class _P_OPS:
    mul, sub, exp = staticmethod(P.mul), staticmethod(P.sub), staticmethod(P.ROW_OPS["exp"])
    sum_keep = staticmethod(lambda x, axes: _sum_keep(x, axes))


def _softmax_fun(axes: tuple[int, ...], x: Array) -> Array:
    if eager(x):
        z = np.exp(x - _np_shift(x, axes))
        return np.asarray(z / np.sum(z, axis=axes, keepdims=True), x.dtype)
    z = P.ROW_OPS["exp"](P.sub(x, _shift(x, axes)))
    return P.div(z, _sum_keep(z, axes))


def _log_softmax_fun(axes: tuple[int, ...], x: Array) -> Array:
    if eager(x):
        z = x - _np_shift(x, axes)
        return np.asarray(z - np.log(np.sum(np.exp(z), axis=axes, keepdims=True)), x.dtype)
    z = P.sub(x, _shift(x, axes))
    return P.sub(z, P.ROW_OPS["log"](_sum_keep(P.ROW_OPS["exp"](z), axes)))


# softmax: dx = y (g - sum(g y)); log_softmax: dx = g - exp(y) sum(g)
_softmax = _saved_output_vjp(
    _softmax_fun, lambda o, axes, y, g: o.mul(y, o.sub(g, o.sum_keep(o.mul(g, y), axes))))
_log_softmax = _saved_output_vjp(
    _log_softmax_fun, lambda o, axes, y, g: o.sub(g, o.mul(o.exp(y), o.sum_keep(g, axes))))


def softmax(x: ArrayLike, axis: Axis = -1) -> Array:
    """``exp(x) / sum(exp(x), axis)``, computed stably.

    Shifted by the (non-differentiated) maximum so large entries do not overflow and
    ``-inf`` entries get weight 0.

    Parameters
    ----------
    x : ArrayLike
        Any shape, real dtype.
    axis : int, sequence of int or None, optional
        The axes normalized over; None: all axes (SciPy's convention).

    Returns
    -------
    Array
        Of ``x``'s shape and float dtype.

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range.

    Examples
    --------
    >>> softmax(np.array([0.0, np.log(3.0)]))
    array([0.25, 0.75])
    """
    x = as_float(x, "softmax input")
    return apply(_softmax, axes_of(axis, len(x.shape)), x)


def log_softmax(x: ArrayLike, axis: Axis = -1) -> Array:
    """``x - logsumexp(x, axis, keepdims=True)``, computed stably.

    Parameters
    ----------
    x : ArrayLike
        Any shape, real dtype.
    axis : int, sequence of int or None, optional
        The axes normalized over; None: all axes.

    Returns
    -------
    Array
        Of ``x``'s shape and float dtype.

    Raises
    ------
    numpy.exceptions.AxisError
        For an axis out of range.
    """
    x = as_float(x, "log_softmax input")
    return apply(_log_softmax, axes_of(axis, len(x.shape)), x)


@overload
def logsumexp(x: ArrayLike, axis: Axis = None, keepdims: bool = False, *,
              b: ArrayLike | None = None, return_sign: Literal[False] = False) -> Array: ...


@overload
def logsumexp(x: ArrayLike, axis: Axis = None, keepdims: bool = False, *,
              b: ArrayLike | None = None, return_sign: Literal[True]) -> tuple[Array, Array]: ...


def logsumexp(x: ArrayLike, axis: Axis = None, keepdims: bool = False, *,
              b: ArrayLike | None = None, return_sign: bool = False
              ) -> Array | tuple[Array, Array]:
    """``log(sum(b * exp(x), axis))``, computed stably.

    ``scipy.special.logsumexp``'s semantics (weights ``b``, ``return_sign``, complex
    ``x``); the implementation is ``ftrans.numpy``'s.  Derivative ``b exp(x - result)``
    (softmax weights).

    Parameters
    ----------
    x : ArrayLike
        The input.
    axis : int, sequence of int or None, optional
        The axes summed over; None: all.
    keepdims : bool, optional
        Keep the reduced axes with size 1.
    b : ArrayLike, optional
        Weights, broadcast against ``x``.
    return_sign : bool, optional
        Also return the sign of the sum (the result is then ``log|sum|``).

    Returns
    -------
    Array or tuple of Array
        The result, and with ``return_sign`` its sign.
    """
    return _np_logsumexp(x, axis=axis, b=b, keepdims=keepdims, return_sign=return_sign)


def one_hot(labels: ArrayLike, num_classes: int, dtype: DTypeLike = np.float64,
            axis: int = -1) -> Array:
    """One-hot encoding ``labels[..., None] == arange(num_classes)`` (``jax.nn.one_hot``).

    A label outside ``[0, num_classes)`` gives a row of zeros.

    Parameters
    ----------
    labels : ArrayLike
        Integer array of any shape.
    num_classes : int
        The number of classes (``>= 0``).
    dtype : DTypeLike, optional
        The result's dtype.
    axis : int, optional
        Where the class axis is inserted.

    Returns
    -------
    Array
        Of ``labels``'s shape with a class axis of ``num_classes`` at ``axis``.

    Raises
    ------
    TypeError
        For non-integer labels.
    ValueError
        For ``num_classes < 0``.
    """
    if isinstance(labels, Tracer) or hasattr(labels, "dtype"):
        labels = cast(Array, labels)  # a tracer stands for the array it traces
    else:
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
