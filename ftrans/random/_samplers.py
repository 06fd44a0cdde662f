"""Samplers: compositions of primitives on the bits of :mod:`._keys`.

Each follows the algorithm of the JAX function of the same name (``jax.random`` docs and
``jax._src.random``), so with JAX's original counters (``jax_threefry_partitionable=False``,
64-bit types) the values are JAX's, up to the last bits of ``erfinv``/``log``:

* ``uniform``: the top mantissa bits of 32 (float32) or 64 (float64) random bits as a
  float in ``[0, 1)`` (JAX: ``(bits >> (nbits - nmant)) | bits(1.0)``, bit-cast, minus 1;
  here ``floor(bits / 2**(nbits - nmant)) * 2**-nmant``, the same numbers), then
  ``max(minval, u * (maxval - minval) + minval)``;
* ``normal``: inverse CDF, ``sqrt(2) * erfinv(u)`` with ``u`` uniform on
  ``(-1, 1)`` (JAX's choice; not Box-Muller);
* ``gumbel``: ``-log(-log(u))``, ``u`` uniform on ``[tiny, 1)``; ``categorical``: the
  Gumbel-max trick, ``argmax(logits + gumbel)``;
* ``randint``: JAX's two-draw remainder: ``(hi mod span) * (2**nbits mod span) + lo
  mod span``, reduced mod ``span`` (biased by at most ``span / 2**(2*nbits)``);
* ``permutation``: sorts by random 32-bit keys (``ceil(3 ln n / ln(2**32 - 1))`` rounds,
  stable argsort, JAX's ``_shuffle``).

Nothing here is differentiated through the bits; ``uniform``/``normal``/
``truncated_normal`` are affine/elementwise in ``minval``, ``maxval``, ``lower``,
``upper``, so those carry derivatives as in JAX.
"""
from __future__ import annotations

import operator

import numpy as np

from ..core.trace import Tracer
from .. import primitives as P
from ..primitives import special as PS
from .. import numpy as fnp
from ._keys import check_key, random_bits, split, _shape

__all__ = ["uniform", "normal", "bernoulli", "gumbel", "categorical", "randint",
           "permutation", "truncated_normal", "choice"]

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def _float_dtype(dtype, name):
    dt = np.dtype(dtype)
    if dt not in (_F32, _F64):
        raise TypeError(f"{name}: dtype must be float32 or float64, got {dt}")
    return dt


def _broadcasts_to(s, shape):
    """Whether an array of shape ``s`` broadcasts to ``shape`` without growing it."""
    try:
        return np.broadcast_shapes(tuple(s), shape) == shape
    except ValueError:
        return False


def _as(v, dt, shape, name, what):
    """``v`` (number, array or tracer) in dtype ``dt``; its shape must broadcast to
    ``shape`` without growing it."""
    if isinstance(v, Tracer):
        v = P.convert_element_type(v, dt)
    else:
        v = np.asarray(v, dt)
    if not _broadcasts_to(v.shape, shape):
        raise ValueError(f"{name}: {what} of shape {tuple(v.shape)} does not broadcast to "
                         f"shape {shape}")
    return v


def _unit(k, shape, dt):
    """Uniform floats of ``dt`` in ``[0, 1)``: the top 23 (52) of 32 (64) random bits."""
    if dt == _F32:
        (w,) = random_bits(k, 32, shape)
        m = P.floor(P.mul(P.convert_element_type(w, _F64), 2.0 ** -9))
        return P.convert_element_type(P.mul(m, 2.0 ** -23), _F32)
    hi, lo = random_bits(k, 64, shape)
    m = P.add(P.mul(P.convert_element_type(hi, _F64), 2.0 ** 20),
              P.floor(P.mul(P.convert_element_type(lo, _F64), 2.0 ** -12)))
    return P.mul(m, 2.0 ** -52)


def uniform(key, shape=(), dtype=np.float64, minval=0.0, maxval=1.0):
    """Uniform samples on ``[minval, maxval)``: array of ``shape`` and ``dtype``.

    ``dtype`` is float32 or float64 (default, ftrans's float); ``minval``/``maxval`` are
    numbers or arrays (tracers too) broadcastable to ``shape``.

    Raises
    ------
    TypeError
        A bad key (expected uint32 of shape (2,)) or dtype.
    ValueError
        ``minval``/``maxval`` that do not broadcast to ``shape``.

    Source: JAX's ``jax.random.uniform``.

    >>> import ftrans.random as fr
    >>> u = fr.uniform(fr.key(0), (1000,))
    >>> bool((u >= 0).all() and (u < 1).all())
    True
    """
    check_key(key, "uniform")
    shape = _shape(shape, "uniform")
    dt = _float_dtype(dtype, "uniform")
    lo = _as(minval, dt, shape, "uniform", "minval")
    hi = _as(maxval, dt, shape, "uniform", "maxval")
    return P.maximum(lo, P.add(P.mul(_unit(key, shape, dt), P.sub(hi, lo)), lo))


def normal(key, shape=(), dtype=np.float64):
    """Standard normal samples: array of ``shape`` and ``dtype`` (float32/float64).

    Inverse-CDF method: ``sqrt(2) * erfinv(u)``, ``u`` uniform on
    ``(-1, 1)`` (JAX's ``jax.random.normal``).

    Raises
    ------
    TypeError
        A bad key or dtype.

    >>> import ftrans.random as fr
    >>> fr.normal(fr.key(0), (2, 3)).shape
    (2, 3)
    """
    check_key(key, "normal")
    dt = _float_dtype(dtype, "normal")
    lo = np.nextafter(np.array(-1.0, dt), np.array(0.0, dt))
    u = uniform(key, shape, dt, lo, 1.0)
    return P.mul(np.asarray(np.sqrt(2), dt), PS.erfinv(u))


def truncated_normal(key, lower, upper, shape=None, dtype=np.float64):
    """Standard normal samples conditioned on ``lower < x < upper``.

    ``shape`` defaults to the broadcast shape of ``lower`` and ``upper``.  Inverse CDF
    between ``erf(lower/sqrt 2)`` and ``erf(upper/sqrt 2)``, clipped into the open interval
    (JAX's ``jax.random.truncated_normal``; far in a tail the rounding of ``erf`` makes
    the samples pile up at the bound, as in JAX).

    Raises
    ------
    TypeError, ValueError
        A bad key or dtype; bounds that do not broadcast to ``shape``.

    >>> import ftrans.random as fr
    >>> x = fr.truncated_normal(fr.key(0), -1.0, 2.0, (100,))
    >>> bool((x > -1).all() and (x < 2).all())
    True
    """
    check_key(key, "truncated_normal")
    dt = _float_dtype(dtype, "truncated_normal")
    if shape is None:
        shape = np.broadcast_shapes(tuple(np.shape(lower)), tuple(np.shape(upper)))
    shape = _shape(shape, "truncated_normal")
    lower = _as(lower, dt, shape, "truncated_normal", "lower")
    upper = _as(upper, dt, shape, "truncated_normal", "upper")
    sqrt2 = np.asarray(np.sqrt(2), dt)
    a = PS.erf(P.div(lower, sqrt2))
    b = PS.erf(P.div(upper, sqrt2))
    out = P.mul(sqrt2, PS.erfinv(uniform(key, shape, dt, a, b)))
    lo = fnp.nextafter(P.stop_gradient(lower), np.asarray(np.inf, dt))
    hi = fnp.nextafter(P.stop_gradient(upper), np.asarray(-np.inf, dt))
    return P.minimum(P.maximum(out, lo), hi)


def gumbel(key, shape=(), dtype=np.float64):
    """Standard Gumbel samples ``-log(-log(u))``: array of ``shape`` and ``dtype``.

    Source: JAX's ``jax.random.gumbel`` (``mode="low"``).

    >>> import ftrans.random as fr
    >>> fr.gumbel(fr.key(0), (4,)).dtype
    dtype('float64')
    """
    check_key(key, "gumbel")
    dt = _float_dtype(dtype, "gumbel")
    u = uniform(key, shape, dt, np.finfo(dt).tiny, 1.0)
    return P.neg(P.log(P.neg(P.log(u))))


def _float_of(x, name):
    """``x`` as a float array or tracer (its own float dtype, else float64)."""
    if not isinstance(x, Tracer):
        x = np.asarray(x)
    dt = np.dtype(x.dtype)
    if dt.kind != "f":
        if dt.kind not in "biu":
            raise TypeError(f"{name}: expected real numbers, got dtype {dt}")
        return P.convert_element_type(x, _F64), _F64
    return x, dt


def bernoulli(key, p=0.5, shape=None):
    """Booleans that are True with probability ``p``: ``uniform(key, shape) < p``.

    ``p`` is a number or array (tracer) of probabilities; ``shape`` defaults to its
    shape and must otherwise be one it broadcasts to.  The uniform draw has ``p``'s
    float dtype (float64 for Python numbers; JAX's default ``p`` is float32).

    Raises
    ------
    TypeError, ValueError
        A bad key, or ``p`` that does not broadcast to ``shape``.

    Source: JAX's ``jax.random.bernoulli``.

    >>> import ftrans.random as fr
    >>> fr.bernoulli(fr.key(0), 0.3, (5,)).dtype
    dtype('bool')
    """
    check_key(key, "bernoulli")
    p, dt = _float_of(p, "bernoulli")
    shape = tuple(p.shape) if shape is None else _shape(shape, "bernoulli")
    _as(p, dt, shape, "bernoulli", "p")
    return P.lt(uniform(key, shape, dt), p)


def categorical(key, logits, axis=-1, shape=None):
    """Samples of category indices with log-probabilities ``logits`` along ``axis``.

    ``logits`` are unnormalized log-probabilities; the result (int64) has the batch
    shape of ``logits`` (``axis`` removed) or ``shape``, which must end with a shape
    that batch shape broadcasts to.  Gumbel-max trick:
    ``argmax(logits + gumbel, axis)``.  The logits are not differentiated (the result is
    an integer).

    Raises
    ------
    TypeError, ValueError
        A bad key, or a ``shape`` incompatible with the batch shape.

    Source: JAX's ``jax.random.categorical``.

    >>> import ftrans.random as fr, numpy as np
    >>> fr.categorical(fr.key(0), np.log(np.array([0.2, 0.8])), shape=(3,)).shape
    (3,)
    """
    check_key(key, "categorical")
    logits, dt = _float_of(logits, "categorical")
    ndim = len(logits.shape)
    if not -ndim <= axis < ndim:
        raise ValueError(f"categorical: axis {axis} is out of bounds for logits of rank {ndim}")
    if axis >= 0:
        axis -= ndim
    batch = tuple(np.delete(np.array(logits.shape, dtype=np.int64), axis))
    batch = tuple(int(d) for d in batch)
    shape = batch if shape is None else _shape(shape, "categorical")
    if len(shape) < len(batch) or not _broadcasts_to(batch, shape):
        raise ValueError(f"categorical: shape {shape} is not compatible with the batch "
                         f"shape {batch} of logits")
    prefix = shape[:len(shape) - len(batch)]
    lshape = list(shape[len(shape) - len(batch):])
    lshape.insert(axis % ndim, logits.shape[axis])
    g = gumbel(key, prefix + tuple(lshape), dt)
    logits = P.stop_gradient(logits)
    return fnp.argmax(P.add(g, P.expand_dims(logits, tuple(range(len(prefix))))), axis=axis)


# ----------------------------------------------------------------------- integers
def _urem(x, span):
    """``x mod span`` in unsigned arithmetic, ``x`` where ``span`` is 0 (XLA's rule)."""
    z = P.eq(span, 0)
    return P.where(z, x, P.remainder(x, P.where(z, np.ones((), span.dtype), span)))


def _int_bound(v, dt, shape, name, what):
    """The bound ``v`` clipped to ``dt``'s range and converted, and whether it exceeded
    the maximum (JAX's ``_convert_and_clip_integer``)."""
    info = np.iinfo(dt)
    if isinstance(v, Tracer):
        if np.dtype(v.dtype).kind not in "iu":
            raise TypeError(f"{name}: {what} must be integers, got dtype {np.dtype(v.dtype)}")
        return _as(v, dt, shape, name, what), False
    a = np.asarray(v)
    if a.dtype.kind not in "biu":
        if a.dtype.kind == "f" and np.all(np.isfinite(a)) and np.all(a == np.floor(a)):
            a = a.astype(np.int64)
        else:
            raise TypeError(f"{name}: {what} must be integers, got {v!r}")
    over = a > info.max
    clipped = np.where(a < info.min, info.min, np.where(over, info.max, a))
    return _as(clipped.astype(dt), dt, shape, name, what), over


def randint(key, shape, minval, maxval, dtype=np.int64):
    """Uniform integers in ``[minval, maxval)``: array of ``shape`` and ``dtype``.

    ``dtype`` is a 32- or 64-bit integer type (default int64, ftrans's int);
    ``minval``/``maxval`` are integers or integer arrays broadcastable to ``shape``,
    clipped to ``dtype``'s range (``maxval`` may exceed it by one: ``randint(k, s, 0,
    2**32, np.uint32)`` covers every value).  Where ``maxval <= minval`` the result is
    ``minval`` (as in JAX).

    Raises
    ------
    TypeError, ValueError
        A bad key or dtype; non-integer bounds; bounds that do not broadcast.

    Source: JAX's ``jax.random.randint`` (two draws of ``nbits`` bits per sample).

    >>> import ftrans.random as fr
    >>> r = fr.randint(fr.key(0), (100,), 3, 7)
    >>> bool((r >= 3).all() and (r < 7).all())
    True
    """
    check_key(key, "randint")
    shape = _shape(shape, "randint")
    dt = np.dtype(dtype)
    if dt.kind not in "iu" or dt.itemsize not in (4, 8):
        raise TypeError(f"randint: dtype must be a 32- or 64-bit integer type, got {dt}")
    nbits = 8 * dt.itemsize
    udt = np.dtype(f"uint{nbits}")
    lo, _ = _int_bound(minval, dt, shape, "randint", "minval")
    hi, hi_over = _int_bound(maxval, dt, shape, "randint", "maxval")
    ks = split(key)

    def draw(k):
        w = random_bits(k, nbits, shape)
        if nbits == 32:
            return w[0]
        return P.add(P.mul(P.convert_element_type(w[0], udt), udt.type(2 ** 32)),
                     P.convert_element_type(w[1], udt))
    higher, lower = draw(ks[0]), draw(ks[1])
    span = P.sub(P.convert_element_type(hi, udt), P.convert_element_type(lo, udt))
    one = np.ones((), udt)
    span = P.where(P.le(hi, lo), one, span)
    if np.any(hi_over):
        span = P.where(P.logical_and(hi_over, P.gt(hi, lo)), P.add(span, one), span)
    mult = _urem(np.full((), 2 ** (nbits // 2), udt), span)
    mult = _urem(P.mul(mult, mult), span)
    off = _urem(P.add(P.mul(_urem(higher, span), mult), _urem(lower, span)), span)
    return P.add(lo, P.convert_element_type(off, dt))


def _shuffle(key, x, axis):
    """``x`` permuted along ``axis`` by sorting on random keys (JAX's ``_shuffle``)."""
    size = int(np.prod(x.shape, dtype=np.int64))
    rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(rounds):
        ks = split(key)
        key, sub = ks[0], ks[1]
        (sort_keys,) = random_bits(sub, 32, tuple(x.shape))
        x = fnp.take_along_axis(x, fnp.argsort(sort_keys, axis=axis), axis=axis)
    return x


def permutation(key, x, axis=0, independent=False):
    """A random permutation of ``arange(x)`` (``x`` an int) or of ``x`` along ``axis``.

    For an array with more than one axis the same permutation reorders every slice
    (``independent=False``) or each 1-d slice along ``axis`` gets its own
    (``independent=True``).  Result: int64 for an int ``x``, else ``x``'s shape and dtype.

    Raises
    ------
    TypeError, ValueError
        A bad key; a negative count; ``axis`` out of range.

    Source: JAX's ``jax.random.permutation``.

    >>> import ftrans.random as fr, numpy as np
    >>> sorted(np.asarray(fr.permutation(fr.key(0), 5)).tolist())
    [0, 1, 2, 3, 4]
    """
    check_key(key, "permutation")
    if not isinstance(x, Tracer) and np.ndim(x) == 0:
        try:
            n = operator.index(x)
        except TypeError:
            raise TypeError(f"permutation: x must be an int or an array, got {x!r}") from None
        if n < 0:
            raise ValueError(f"permutation: a count must be non-negative, got {n}")
        return _shuffle(key, np.arange(n, dtype=np.int64), 0)
    if not isinstance(x, Tracer):
        x = np.asarray(x)
    ndim = len(x.shape)
    if ndim == 0 or not -ndim <= axis < ndim:
        raise ValueError(f"permutation: axis {axis} is out of range for an array of "
                         f"shape {tuple(x.shape)}")
    axis %= ndim
    if independent or ndim == 1:
        return _shuffle(key, x, axis)
    ind = _shuffle(key, np.arange(x.shape[axis], dtype=np.int64), 0)
    return fnp.take(x, ind, axis=axis)


def choice(key, a, shape=(), replace=True, p=None, axis=0):
    """Random samples from ``arange(a)`` (``a`` an int) or from ``a`` along ``axis``.

    With replacement: uniform indices (``randint``), or, with probabilities ``p``, the
    inverse CDF of ``cumsum(p)``; without replacement: the first ``prod(shape)`` of a
    permutation, or the Gumbel top-k trick with ``p``.  Result shape: ``shape`` for an
    int ``a``, else ``a.shape`` with ``axis`` replaced by ``shape``.

    Raises
    ------
    ValueError
        More draws than elements without replacement, ``p`` of the wrong shape, an empty
        population with draws, ``axis`` out of range.

    Source: JAX's ``jax.random.choice``.

    >>> import ftrans.random as fr
    >>> fr.choice(fr.key(0), 10, (3,), replace=False).shape
    (3,)
    """
    check_key(key, "choice")
    shape = _shape(shape, "choice")
    if not isinstance(a, Tracer) and np.ndim(a) == 0:
        n_inputs, arr = operator.index(a), None
    else:
        arr = a if isinstance(a, Tracer) else np.asarray(a)
        if len(arr.shape) == 0 or not -len(arr.shape) <= axis < len(arr.shape):
            raise ValueError(f"choice: axis {axis} is out of range for shape "
                             f"{tuple(arr.shape)}")
        axis %= len(arr.shape)
        n_inputs = arr.shape[axis]
    n_draws = int(np.prod(shape, dtype=np.int64))
    if n_draws == 0:
        idx = np.zeros(shape, np.int64)
        return idx if arr is None else fnp.take(arr, idx, axis=axis)
    if n_inputs <= 0:
        raise ValueError("choice: a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"choice: cannot take {n_draws} samples from {n_inputs} without "
                         "replacement (replace=False)")
    if p is None:
        if replace:
            ind = randint(key, shape, 0, n_inputs)
        else:
            ind = permutation(key, n_inputs)[:n_draws]
            ind = P.reshape(ind, shape)
    else:
        p, dt = _float_of(p, "choice")
        if tuple(p.shape) != (n_inputs,):
            raise ValueError(f"choice: p must have shape ({n_inputs},), got "
                             f"{tuple(p.shape)}")
        if replace:
            cum = fnp.cumsum(p)
            r = P.mul(cum[-1], P.sub(np.asarray(1, dt), uniform(key, shape, dt)))
            # searchsorted(cum, r, side="left"): the number of entries below r
            below = P.lt(cum, P.expand_dims(r, (len(shape),)))
            ind = P.reduce_sum(P.convert_element_type(below, np.int64), (len(shape),))
        else:
            g = P.add(gumbel(key, (n_inputs,), dt), P.log(p))
            ind = P.reshape(fnp.argsort(P.neg(g))[:n_draws], shape)
    if arr is None:
        return ind
    flat = fnp.take(arr, P.reshape(ind, (n_draws,)), axis=axis)
    return P.reshape(flat, tuple(arr.shape[:axis]) + shape + tuple(arr.shape[axis + 1:]))
