"""Normalization layers, dropout and embeddings (``torch.nn.functional`` semantics),
written once as compositions of primitives.

Fused path: :func:`batch_norm` in training mode is a ``custom_vjp`` (contract in
:mod:`ftrans.nn`) whose residuals are ``x``, the weight, the batch mean and the inverse
standard deviation; eagerly its forward and backward passes are the numba kernels
``kernels.nn_cpu.batch_norm_train``/``batch_norm_backward`` (two passes per channel
each), otherwise PyTorch's formula in primitives:
``dx = w invstd (g - mean(g) - xhat mean(g xhat))``, ``dw = sum(g xhat)``,
``db = sum(g)``, plus the terms of the batch mean and variance outputs.
"""
from __future__ import annotations

import operator
from typing import Any, cast

import numpy as np

from .. import primitives as P
from ..core import Tracer
from ..kernels import nn_cpu as _K
from ..transforms import custom_vjp
from ..typing import Array, ArrayLike, Key
from ._util import apply, as_float, eager, keep_shape

from .. import random as _random

__all__ = ["batch_norm", "layer_norm", "group_norm", "dropout", "embedding"]


def _moments(x: Array, axes: tuple[int, ...]) -> tuple[Array, Array, Array]:
    """Mean and biased variance over ``axes`` (keepdims shapes), two passes."""
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    mean = P.div(P.reshape(P.reduce_sum(x, axes), keep_shape(x.shape, axes)), float(n))
    xc = P.sub(x, mean)
    var = P.div(P.reshape(P.reduce_sum(P.mul(xc, xc), axes), keep_shape(x.shape, axes)),
                float(n))
    return xc, mean, var


def _invstd(var: Array, eps: float) -> Array:
    return P.div(1.0, P.ROW_OPS["sqrt"](P.add(var, float(eps))))


def _channel(v: Array, nd: int) -> Array:
    return P.reshape(v, (1, v.shape[0]) + (1,) * (nd - 2))


# -------------------------------------------------------------------------- batch norm
def _bn_axes(nd: int) -> tuple[int, ...]:
    return (0,) + tuple(range(2, nd))


def _bn_fun(eps: float, x: Array, w: Array, b: Array) -> tuple[Array, Array, Array]:
    """``(out, batch mean (C,), biased batch variance (C,))``."""
    if eager(x, w, b):
        r = _K.batch_norm_train(np.ascontiguousarray(x), w, b, eps)
        if r is not None:
            return r[0], r[1], r[2]
    nd = len(x.shape)
    axes = _bn_axes(nd)
    xc, mean, var = _moments(x, axes)
    scale = P.mul(_invstd(var, eps), _channel(w, nd))
    out = P.add(P.mul(xc, scale), _channel(b, nd))
    C = x.shape[1]
    return out, P.reshape(mean, (C,)), P.reshape(var, (C,))


def _bn_fwd(eps: float, x: Array, w: Array, b: Array
            ) -> tuple[tuple[Array, Array, Array], tuple[Any, ...]]:
    if eager(x, w, b):
        r = _K.batch_norm_train(np.ascontiguousarray(x), w, b, eps)
        if r is not None:
            out, mean, var, invstd = r
            return (out, mean, var), (x, w, mean, invstd)
    out, mean, var = _bn_fun(eps, x, w, b)
    return (out, mean, var), (x, w, mean, _invstd(var, eps))


def _bn_bwd(eps: float, res: tuple[Any, ...], cts: tuple[Array, Array, Array]
            ) -> tuple[Array, Array, Array]:
    x, w, mean, invstd = res
    g, g_mean, g_var = cts
    nd = len(x.shape)
    axes = _bn_axes(nd)
    count = float(int(np.prod(x.shape, dtype=np.int64)) // x.shape[1])
    if eager(x, w, mean, invstd, g, g_mean, g_var):
        r = _K.batch_norm_backward(np.ascontiguousarray(x), np.ascontiguousarray(g), mean,
                                   invstd, w, True)
        if r is not None:
            dx, dw, db = r
            if g_mean.any() or g_var.any():   # the batch statistics' own cotangents
                sh = (1, -1) + (1,) * (nd - 2)
                dx = dx + (g_mean.reshape(sh) + 2.0 * g_var.reshape(sh)
                           * (x - mean.reshape(sh))) / count
            return dx.astype(x.dtype, copy=False), dw, db
    xc = P.sub(x, _channel(mean, nd))
    inv = _channel(invstd, nd)
    xhat = P.mul(xc, inv)
    dw = P.reduce_sum(P.mul(g, xhat), axes)
    db = P.reduce_sum(g, axes)
    gw = P.mul(g, _channel(w, nd))
    mg = P.div(P.reduce_sum(gw, axes), count)
    mgx = P.div(P.reduce_sum(P.mul(gw, xhat), axes), count)
    dx = P.mul(P.sub(P.sub(gw, _channel(mg, nd)), P.mul(xhat, _channel(mgx, nd))), inv)
    stats = P.add(_channel(g_mean, nd), P.mul(P.mul(2.0, _channel(g_var, nd)), xc))
    dx = P.add(dx, P.div(stats, count))
    return dx, dw, db


_bn_train = custom_vjp(_bn_fun, nondiff_argnums=(0,))
_bn_train.defvjp(_bn_fwd, _bn_bwd)


def batch_norm(x: ArrayLike, running_mean: Array | None, running_var: Array | None,
               weight: Array | None = None, bias: Array | None = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5
               ) -> tuple[Array, Array | None, Array | None]:
    """Batch normalization over every axis but 1 (``torch.nn.functional.batch_norm``).

    Functional: the running statistics are returned, not updated in place.

    Parameters
    ----------
    x : ArrayLike
        ``(N, C, *)``.
    running_mean, running_var : Array or None
        ``(C,)``, or None (training only).
    weight, bias : Array, optional
        ``(C,)``; 1 and 0 when None.
    training : bool, optional
        Normalize with the batch statistics (biased variance) and update the running
        ones; otherwise normalize with ``running_mean``/``running_var``.
    momentum : float, optional
        ``new = (1 - momentum) old + momentum batch``; the variance update uses the
        unbiased batch variance ``var * n / (n - 1)`` (PyTorch).
    eps : float, optional
        Added to the variance.

    Returns
    -------
    out : Array
        Of ``x``'s shape.
    new_running_mean, new_running_var : Array or None
        The updated statistics (the inputs unchanged in eval mode; None where the
        running statistic is None).

    Raises
    ------
    ValueError
        For a channel-count mismatch, missing running statistics in eval mode, or a
        single value per channel in training (PyTorch's check).

    Notes
    -----
    Ioffe & Szegedy, "Batch Normalization", 2015; PyTorch's ``batch_norm`` conventions.
    """
    x = as_float(x)
    nd = len(x.shape)
    if nd < 2:
        raise ValueError(f"batch_norm: x must be (N, C, *), got shape {tuple(x.shape)}")
    C = x.shape[1]
    for name, v in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if v is not None and tuple(v.shape) != (C,):
            raise ValueError(f"batch_norm: {name} must have shape ({C},) for x of shape "
                             f"{tuple(x.shape)}, got {tuple(v.shape)}")
    w = P.convert_element_type(weight, x.dtype) if weight is not None else np.ones(C, x.dtype)
    b = P.convert_element_type(bias, x.dtype) if bias is not None else np.zeros(C, x.dtype)
    if not training:
        if running_mean is None or running_var is None:
            raise ValueError("batch_norm: eval mode (training=False) needs running_mean and "
                             "running_var; pass them or set training=True")
        rm = P.convert_element_type(running_mean, x.dtype)
        rv = P.convert_element_type(running_var, x.dtype)
        scale = P.mul(_invstd(rv, eps), w)
        out = P.add(P.mul(P.sub(x, _channel(rm, nd)), _channel(scale, nd)), _channel(b, nd))
        return out, running_mean, running_var
    count = int(np.prod(x.shape, dtype=np.int64)) // max(C, 1)
    if count <= 1:
        raise ValueError(f"batch_norm: expected more than 1 value per channel when training, "
                         f"got input of shape {tuple(x.shape)}")
    out, mean, var = apply(_bn_train, float(eps), x, w, b)
    m = float(momentum)
    new_mean = None if running_mean is None else \
        P.add(P.mul(1.0 - m, running_mean), P.mul(m, mean))
    new_var = None if running_var is None else \
        P.add(P.mul(1.0 - m, running_var), P.mul(m * count / (count - 1), var))
    return out, new_mean, new_var


def layer_norm(x: ArrayLike, normalized_shape: int | list[int] | tuple[int, ...],
               weight: ArrayLike | None = None, bias: ArrayLike | None = None,
               eps: float = 1e-5) -> Array:
    """Layer normalization over the trailing axes ``normalized_shape``.

    ``(x - mean) / sqrt(var + eps) * weight + bias`` with the biased variance
    (``torch.nn.functional.layer_norm``).

    Parameters
    ----------
    x : ArrayLike
        Any shape ending in ``normalized_shape``.
    normalized_shape : int or sequence of int
        The trailing shape normalized over.
    weight, bias : ArrayLike, optional
        Shaped ``normalized_shape``.
    eps : float, optional
        Added to the variance.

    Returns
    -------
    Array
        Of ``x``'s shape.

    Raises
    ------
    ValueError
        When ``x``'s trailing shape differs.

    Notes
    -----
    Ba, Kiros & Hinton, "Layer Normalization", 2016.
    """
    x = as_float(x)
    ns = (operator.index(normalized_shape),) if not isinstance(normalized_shape,
                                                              (tuple, list)) \
        else tuple(operator.index(s) for s in normalized_shape)
    k = len(ns)
    if k == 0 or tuple(x.shape[len(x.shape) - k:]) != ns or len(x.shape) < k:
        raise ValueError(f"layer_norm: normalized_shape {ns} must equal the trailing shape of "
                         f"x, got x of shape {tuple(x.shape)}")
    axes = tuple(range(len(x.shape) - k, len(x.shape)))
    xc, _, var = _moments(x, axes)
    out = P.mul(xc, _invstd(var, eps))
    if weight is not None:
        out = P.mul(out, weight)
    if bias is not None:
        out = P.add(out, bias)
    return out


def group_norm(x: ArrayLike, num_groups: int, weight: Array | None = None,
               bias: Array | None = None, eps: float = 1e-5) -> Array:
    """Group normalization (``torch.nn.functional.group_norm``).

    ``x`` normalized over each group of ``C / num_groups`` channels and the spatial axes,
    then ``* weight[c] + bias[c]``.

    Parameters
    ----------
    x : ArrayLike
        ``(N, C, *)``.
    num_groups : int
        Divides ``C``.
    weight, bias : Array, optional
        ``(C,)``.
    eps : float, optional
        Added to the variance.

    Returns
    -------
    Array
        Of ``x``'s shape.

    Raises
    ------
    ValueError
        Unless ``num_groups`` divides ``C``.

    Notes
    -----
    Wu & He, "Group Normalization", 2018.
    """
    x = as_float(x)
    nd = len(x.shape)
    G = operator.index(num_groups)
    if nd < 2 or G < 1 or x.shape[1] % G:
        raise ValueError(f"group_norm: num_groups ({num_groups}) must divide the channel "
                         f"axis of x (N, C, *), got shape {tuple(x.shape)}")
    N, C = x.shape[:2]
    xg = P.reshape(x, (N, G, int(np.prod(x.shape[1:], dtype=np.int64)) // G))
    xc, _, var = _moments(xg, (2,))
    out = P.reshape(P.mul(xc, _invstd(var, eps)), tuple(x.shape))
    if weight is not None:
        out = P.mul(out, _channel(weight, nd))
    if bias is not None:
        out = P.add(out, _channel(bias, nd))
    return out


# ----------------------------------------------------------------------------- dropout
def _keep_mask(key: Any, rate: float, shape: tuple[int, ...]) -> Array:
    if isinstance(key, np.random.Generator):
        return key.random(shape) >= rate
    if hasattr(key, "dtype") and np.dtype(key.dtype).kind == "b":
        if tuple(key.shape) != tuple(shape):
            raise ValueError(f"dropout: a keep mask must have x's shape {tuple(shape)}, got "
                             f"{tuple(key.shape)}")
        return key
    if not hasattr(key, "dtype"):
        raise TypeError("dropout: key must be an ftrans.random key, a numpy.random.Generator, "
                        f"or a boolean keep mask shaped like x; got {type(key).__name__}")
    return _random.bernoulli(key, 1.0 - rate, shape)   # checks the key


def dropout(key: Key | np.random.Generator | ArrayLike, x: ArrayLike, rate: float,
            training: bool = True) -> Array:
    """Inverted dropout (``torch.nn.functional.dropout`` with ``p = rate``).

    Each element is zeroed with probability ``rate`` and the others scaled by
    ``1 / (1 - rate)``; the identity when ``training`` is False or ``rate == 0``.

    Parameters
    ----------
    key : Key, numpy.random.Generator or ArrayLike
        The randomness, explicitly: an ``ftrans.random`` key (the mask is
        ``ftrans.random.bernoulli(key, 1 - rate, x.shape)``), a
        ``numpy.random.Generator``, or a precomputed boolean *keep* mask shaped like
        ``x`` (True = keep).
    x : ArrayLike
        The input.
    rate : float
        The drop probability, in ``[0, 1]``.
    training : bool, optional
        Apply dropout (else return ``x``).

    Returns
    -------
    Array
        Of ``x``'s shape.

    Raises
    ------
    ValueError
        For ``rate`` outside ``[0, 1]`` or a mask of another shape.
    TypeError
        For a ``key`` of another kind.

    Notes
    -----
    Srivastava et al., "Dropout: A Simple Way to Prevent Neural Networks from
    Overfitting", 2014.
    """
    rate = float(rate)
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"dropout: rate must be in [0, 1], got {rate}")
    x = as_float(x)
    if not training or rate == 0.0:
        return x
    if rate == 1.0:
        return P.mul(x, 0.0)
    keep = _keep_mask(key, rate, tuple(x.shape))
    return P.where(keep, P.mul(x, 1.0 / (1.0 - rate)), 0.0)


# --------------------------------------------------------------------------- embedding
def embedding(ids: ArrayLike, weight: ArrayLike, padding_idx: int | None = None) -> Array:
    """Rows of ``weight`` at the integer ``ids`` (``torch.nn.functional.embedding``).

    Rows read at ``padding_idx`` get no gradient (PyTorch).

    Parameters
    ----------
    ids : ArrayLike
        Integer indices, any shape.
    weight : ArrayLike
        ``(num, dim)``.
    padding_idx : int, optional
        An index whose rows get no gradient.

    Returns
    -------
    Array
        ``ids.shape + (dim,)``.

    Raises
    ------
    TypeError
        For non-integer ids.
    ValueError
        For an out-of-range id (checked when ``ids`` is concrete) or ``padding_idx``.
    """
    if isinstance(ids, Tracer) or hasattr(ids, "dtype"):
        ids = cast(Array, ids)  # a tracer stands for the array it traces
    else:
        ids = np.asarray(ids)
    if np.dtype(ids.dtype).kind not in "iu":
        raise TypeError(f"embedding: ids must be integers, got dtype {ids.dtype}")
    weight = as_float(weight, "weight")
    if len(weight.shape) != 2:
        raise ValueError(f"embedding: weight must be (num_embeddings, dim), got shape "
                         f"{tuple(weight.shape)}")
    num = weight.shape[0]
    if isinstance(ids, np.ndarray) and ids.size and (ids.min() < 0 or ids.max() >= num):
        raise ValueError(f"embedding: ids must be in [0, {num}), got values in "
                         f"[{ids.min()}, {ids.max()}]")
    rows = P.gather(weight, (ids,))
    if padding_idx is None:
        return rows
    p = operator.index(padding_idx)
    if not -num <= p < num:
        raise ValueError(f"embedding: padding_idx must be in [-{num}, {num}), got {p}")
    pad = P.expand_dims(P.eq(ids, p % num), (len(ids.shape),))
    return P.where(pad, P.stop_gradient(rows), rows)
