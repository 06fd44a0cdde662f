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
from typing import Any, cast

import numpy as np

from ..core.trace import Tracer
from .. import primitives as P
from ..primitives import special as PS
from .. import numpy as fnp
from ..typing import Array, ArrayLike, DTypeLike, Key, ShapeLike
from ._keys import check_key, random_bits, split, _shape

__all__ = ["uniform", "normal", "bernoulli", "gumbel", "categorical", "randint",
           "permutation", "truncated_normal", "choice"]

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def _float_dtype(dtype: DTypeLike, name: str) -> np.dtype[Any]:
    dt = np.dtype(dtype)
    if dt not in (_F32, _F64):
        raise TypeError(f"{name}: dtype must be float32 or float64, got {dt}")
    return dt


def _broadcasts_to(s: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    """Whether an array of shape ``s`` broadcasts to ``shape`` without growing it."""
    try:
        return np.broadcast_shapes(tuple(s), shape) == shape
    except ValueError:
        return False


def _as(v: Any, dt: np.dtype[Any], shape: tuple[int, ...], name: str, what: str) -> Array:
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


def _unit(k: Key, shape: tuple[int, ...], dt: np.dtype[Any]) -> Array:
    """Uniform floats of ``dt`` in ``[0, 1)``: the top 23 (52) of 32 (64) random bits."""
    if dt == _F32:
        (w,) = random_bits(k, 32, shape)
        m = P.floor(P.mul(P.convert_element_type(w, _F64), 2.0 ** -9))
        return P.convert_element_type(P.mul(m, 2.0 ** -23), _F32)
    hi, lo = random_bits(k, 64, shape)
    m = P.add(P.mul(P.convert_element_type(hi, _F64), 2.0 ** 20),
              P.floor(P.mul(P.convert_element_type(lo, _F64), 2.0 ** -12)))
    return P.mul(m, 2.0 ** -52)


def uniform(key: Key, shape: ShapeLike = (), dtype: DTypeLike = np.float64,
            minval: ArrayLike = 0.0, maxval: ArrayLike = 1.0) -> Array:
    """Uniform samples on ``[minval, maxval)``.

    Parameters
    ----------
    key : Key
        A ``uint32`` array of shape ``(2,)``.
    shape : int or sequence of int, optional
        The result's shape.
    dtype : DTypeLike, optional
        float32 or float64 (default, ftrans's float).
    minval, maxval : ArrayLike, optional
        Numbers or arrays (tracers too) broadcastable to ``shape``.

    Returns
    -------
    Array
        Of ``shape`` and ``dtype``.

    Raises
    ------
    TypeError
        A bad key (expected uint32 of shape (2,)) or dtype.
    ValueError
        ``minval``/``maxval`` that do not broadcast to ``shape``.

    Notes
    -----
    Source: JAX's ``jax.random.uniform``.

    Examples
    --------
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


def normal(key: Key, shape: ShapeLike = (), dtype: DTypeLike = np.float64) -> Array:
    """Standard normal samples.

    Parameters
    ----------
    key : Key
        A ``uint32`` array of shape ``(2,)``.
    shape : int or sequence of int, optional
        The result's shape.
    dtype : DTypeLike, optional
        float32 or float64 (default).

    Returns
    -------
    Array
        Of ``shape`` and ``dtype``.

    Raises
    ------
    TypeError
        A bad key or dtype.

    Notes
    -----
    Inverse-CDF method: ``sqrt(2) * erfinv(u)``, ``u`` uniform on ``(-1, 1)`` (JAX's
    ``jax.random.normal``).

    Examples
    --------
    >>> import ftrans.random as fr
    >>> fr.normal(fr.key(0), (2, 3)).shape
    (2, 3)
    >>> k1, k2 = fr.split(fr.key(0))
    >>> bool((fr.normal(k1, (4,)) != fr.normal(k2, (4,))).all())   # independent streams
    True
    """
    check_key(key, "normal")
    dt = _float_dtype(dtype, "normal")
    lo = np.nextafter(np.array(-1.0, dt), np.array(0.0, dt))
    u = uniform(key, shape, dt, lo, 1.0)
    return P.mul(np.asarray(np.sqrt(2), dt), PS.erfinv(u))


def truncated_normal(key: Key, lower: ArrayLike, upper: ArrayLike,
                     shape: ShapeLike | None = None, dtype: DTypeLike = np.float64) -> Array:
    """Standard normal samples conditioned on ``lower < x < upper``.

    Parameters
    ----------
    key : Key
        A ``uint32`` array of shape ``(2,)``.
    lower, upper : ArrayLike
        The bounds, numbers or arrays (tracers too) broadcastable to ``shape``.
    shape : int or sequence of int, optional
        Default: the broadcast shape of ``lower`` and ``upper``.
    dtype : DTypeLike, optional
        float32 or float64 (default).

    Returns
    -------
    Array
        Of ``shape`` and ``dtype``.

    Raises
    ------
    TypeError, ValueError
        A bad key or dtype; bounds that do not broadcast to ``shape``.

    Notes
    -----
    Inverse CDF between ``erf(lower/sqrt 2)`` and ``erf(upper/sqrt 2)``, clipped into the
    open interval (JAX's ``jax.random.truncated_normal``; far in a tail the rounding of
    ``erf`` makes the samples pile up at the bound, as in JAX).

    Examples
    --------
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


def gumbel(key: Key, shape: ShapeLike = (), dtype: DTypeLike = np.float64) -> Array:
    """Standard Gumbel samples ``-log(-log(u))``.

    Parameters
    ----------
    key : Key
        A ``uint32`` array of shape ``(2,)``.
    shape : int or sequence of int, optional
        The result's shape.
    dtype : DTypeLike, optional
        float32 or float64 (default).

    Returns
    -------
    Array
        Of ``shape`` and ``dtype``.

    Raises
    ------
    TypeError
        A bad key or dtype.

    Notes
    -----
    Source: JAX's ``jax.random.gumbel`` (``mode="low"``).

    Examples
    --------
    >>> import ftrans.random as fr
    >>> fr.gumbel(fr.key(0), (4,)).dtype
    dtype('float64')
    """
    check_key(key, "gumbel")
    dt = _float_dtype(dtype, "gumbel")
    u = uniform(key, shape, dt, np.finfo(dt).tiny, 1.0)
    return P.neg(P.ROW_OPS["log"](P.neg(P.ROW_OPS["log"](u))))


def _float_of(x: Any, name: str) -> tuple[Array, np.dtype[Any]]:
    """``x`` as a float array or tracer (its own float dtype, else float64)."""
    if not isinstance(x, Tracer):
        x = np.asarray(x)
    dt = np.dtype(x.dtype)
    if dt.kind != "f":
        if dt.kind not in "biu":
            raise TypeError(f"{name}: expected real numbers, got dtype {dt}")
        return P.convert_element_type(x, _F64), _F64
    return x, dt


def bernoulli(key: Key, p: ArrayLike = 0.5, shape: ShapeLike | None = None) -> Array:
    """Booleans that are True with probability ``p``: ``uniform(key, shape) < p``.

    The uniform draw has ``p``'s float dtype (float64 for Python numbers; JAX's default
    ``p`` is float32).

    Parameters
    ----------
    key : Key
        A ``uint32`` array of shape ``(2,)``.
    p : ArrayLike, optional
        A number or array (tracer) of probabilities.
    shape : int or sequence of int, optional
        Default: ``p``'s shape; otherwise one that ``p`` broadcasts to.

    Returns
    -------
    Array
        Booleans of ``shape``.

    Raises
    ------
    TypeError, ValueError
        A bad key, or ``p`` that does not broadcast to ``shape``.

    Notes
    -----
    Source: JAX's ``jax.random.bernoulli``.

    Examples
    --------
    >>> import ftrans.random as fr
    >>> fr.bernoulli(fr.key(0), 0.3, (5,)).dtype
    dtype('bool')
    """
    check_key(key, "bernoulli")
    p, dt = _float_of(p, "bernoulli")
    shape = tuple(p.shape) if shape is None else _shape(shape, "bernoulli")
    _as(p, dt, shape, "bernoulli", "p")
    return P.lt(uniform(key, shape, dt), p)


def categorical(key: Key, logits: ArrayLike, axis: int = -1,
                shape: ShapeLike | None = None) -> Array:
    """Samples of category indices with log-probabilities ``logits`` along ``axis``.

    Gumbel-max trick: ``argmax(logits + gumbel, axis)``.  The logits are not
    differentiated (the result is an integer).

    Parameters
    ----------
    key : Key
        A ``uint32`` array of shape ``(2,)``.
    logits : ArrayLike
        Unnormalized log-probabilities.
    axis : int, optional
        The category axis.
    shape : int or sequence of int, optional
        Default: the batch shape of ``logits`` (``axis`` removed); otherwise a shape that
        ends with one the batch shape broadcasts to.

    Returns
    -------
    Array
        int64 indices of ``shape``.

    Raises
    ------
    TypeError, ValueError
        A bad key, or a ``shape`` incompatible with the batch shape.

    Notes
    -----
    Source: JAX's ``jax.random.categorical``.

    Examples
    --------
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
    batch = tuple(int(d) for d in np.delete(np.array(logits.shape, dtype=np.int64), axis))
    out_shape = batch if shape is None else _shape(shape, "categorical")
    if len(out_shape) < len(batch) or not _broadcasts_to(batch, out_shape):
        raise ValueError(f"categorical: shape {out_shape} is not compatible with the batch "
                         f"shape {batch} of logits")
    prefix = out_shape[:len(out_shape) - len(batch)]
    lshape = list(out_shape[len(out_shape) - len(batch):])
    lshape.insert(axis % ndim, logits.shape[axis])
    g = gumbel(key, prefix + tuple(lshape), dt)
    logits = P.stop_gradient(logits)
    return fnp.argmax(P.add(g, P.expand_dims(logits, tuple(range(len(prefix))))), axis=axis)


# ----------------------------------------------------------------------- integers
def _urem(x: ArrayLike, span: Array) -> Array:
    """``x mod span`` in unsigned arithmetic, ``x`` where ``span`` is 0 (XLA's rule)."""
    z = P.eq(span, 0)
    return P.where(z, x, P.ROW_OPS["remainder"](x, P.where(z, np.ones((), span.dtype), span)))


def _int_bound(v: Any, dt: np.dtype[Any], shape: tuple[int, ...], name: str, what: str
               ) -> tuple[Array, Any]:
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


def randint(key: Key, shape: ShapeLike, minval: ArrayLike, maxval: ArrayLike,
            dtype: DTypeLike = np.int64) -> Array:
    """Uniform integers in ``[minval, maxval)``.

    Where ``maxval <= minval`` the result is ``minval`` (as in JAX).

    Parameters
    ----------
    key : Key
        A ``uint32`` array of shape ``(2,)``.
    shape : int or sequence of int
        The result's shape.
    minval, maxval : ArrayLike
        Integers or integer arrays broadcastable to ``shape``, clipped to ``dtype``'s
        range (``maxval`` may exceed it by one: ``randint(k, s, 0, 2**32, np.uint32)``
        covers every value).
    dtype : DTypeLike, optional
        A 32- or 64-bit integer type (default int64, ftrans's int).

    Returns
    -------
    Array
        Of ``shape`` and ``dtype``.

    Raises
    ------
    TypeError, ValueError
        A bad key or dtype; non-integer bounds; bounds that do not broadcast.

    Notes
    -----
    Source: JAX's ``jax.random.randint`` (two draws of ``nbits`` bits per sample).

    Examples
    --------
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

    def draw(k: Key) -> Array:
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


def _shuffle(key: Key, x: Array, axis: int) -> Array:
    """``x`` permuted along ``axis`` by sorting on random keys (JAX's ``_shuffle``)."""
    size = int(np.prod(x.shape, dtype=np.int64))
    rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(rounds):
        ks = split(key)
        key, sub = ks[0], ks[1]
        (sort_keys,) = random_bits(sub, 32, tuple(x.shape))
        x = fnp.take_along_axis(x, fnp.argsort(sort_keys, axis=axis), axis=axis)
    return x


def permutation(key: Key, x: int | ArrayLike, axis: int = 0,
                independent: bool = False) -> Array:
    """A random permutation of ``arange(x)`` (``x`` an int) or of ``x`` along ``axis``.

    Parameters
    ----------
    key : Key
        A ``uint32`` array of shape ``(2,)``.
    x : int or ArrayLike
        A count, or the array to permute.
    axis : int, optional
        The axis permuted.
    independent : bool, optional
        For an array with more than one axis, the same permutation reorders every slice
        (False) or each 1-d slice along ``axis`` gets its own (True).

    Returns
    -------
    Array
        int64 for an int ``x``, else ``x``'s shape and dtype.

    Raises
    ------
    TypeError, ValueError
        A bad key; a negative count; ``axis`` out of range.

    Notes
    -----
    Source: JAX's ``jax.random.permutation``.

    Examples
    --------
    >>> import ftrans.random as fr, numpy as np
    >>> sorted(np.asarray(fr.permutation(fr.key(0), 5)).tolist())
    [0, 1, 2, 3, 4]
    """
    check_key(key, "permutation")
    if not isinstance(x, Tracer) and np.ndim(x) == 0:
        try:
            n = operator.index(x)  # type: ignore[arg-type]  # the TypeError is caught
        except TypeError:
            raise TypeError(f"permutation: x must be an int or an array, got {x!r}") from None
        if n < 0:
            raise ValueError(f"permutation: a count must be non-negative, got {n}")
        return _shuffle(key, np.arange(n, dtype=np.int64), 0)
    if isinstance(x, Tracer):
        x = cast(Array, x)  # a tracer stands for the array it traces
    else:
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


def choice(key: Key, a: int | ArrayLike, shape: ShapeLike = (), replace: bool = True,
           p: ArrayLike | None = None, axis: int = 0) -> Array:
    """Random samples from ``arange(a)`` (``a`` an int) or from ``a`` along ``axis``.

    With replacement: uniform indices (``randint``), or, with probabilities ``p``, the
    inverse CDF of ``cumsum(p)``; without replacement: the first ``prod(shape)`` of a
    permutation, or the Gumbel top-k trick with ``p``.

    Parameters
    ----------
    key : Key
        A ``uint32`` array of shape ``(2,)``.
    a : int or ArrayLike
        The population size, or the population.
    shape : int or sequence of int, optional
        The number of draws, as a shape.
    replace : bool, optional
        Draw with replacement.
    p : ArrayLike, optional
        Probabilities, shape ``(n,)`` for a population of ``n``; uniform by default.
    axis : int, optional
        The axis of ``a`` drawn from.

    Returns
    -------
    Array
        ``shape`` for an int ``a``, else ``a.shape`` with ``axis`` replaced by ``shape``.

    Raises
    ------
    ValueError
        More draws than elements without replacement, ``p`` of the wrong shape, an empty
        population with draws, ``axis`` out of range.

    Notes
    -----
    Source: JAX's ``jax.random.choice``.

    Examples
    --------
    >>> import ftrans.random as fr
    >>> fr.choice(fr.key(0), 10, (3,), replace=False).shape
    (3,)
    """
    check_key(key, "choice")
    shape = _shape(shape, "choice")
    if not isinstance(a, Tracer) and np.ndim(a) == 0:
        n_inputs, arr = operator.index(a), None  # type: ignore[arg-type]  # a 0-d integer
    else:
        arr = cast(Array, a) if isinstance(a, Tracer) else np.asarray(a)
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
            g = P.add(gumbel(key, (n_inputs,), dt), P.ROW_OPS["log"](p))
            ind = P.reshape(fnp.argsort(P.neg(g))[:n_draws], shape)
    if arr is None:
        return ind
    flat = fnp.take(arr, P.reshape(ind, (n_draws,)), axis=axis)
    return P.reshape(flat, tuple(arr.shape[:axis]) + shape + tuple(arr.shape[axis + 1:]))
