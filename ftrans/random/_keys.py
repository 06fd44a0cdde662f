"""Keys and raw bits: ``key``/``PRNGKey``, ``split``, ``fold_in``, ``bits``.

A key is a ``uint32`` array of shape ``(2,)`` (JAX's raw ``PRNGKey``); every function is a
pure function of it, written with the :func:`~ftrans.primitives.threefry2x32` primitive and
other primitives, so it traces under ``vmap`` (batched keys), ``jit`` (keys as traced
arguments) and the differentiation transforms (the bits are constants).

The counters follow JAX's original (``jax_threefry_partitionable=False``) scheme, so keys
and bits equal JAX's in that mode bit for bit (``tests/random/test_vs_jax.py``):

* ``split(key, num)``: Threefry of the counters ``0 .. 2*num-1`` (the first half as the
  first words, the second half as the second words), the ``2*num`` outputs in that order
  read as ``num`` keys;
* ``fold_in(key, d)``: Threefry of the counter pair ``(0, d)``;
* ``bits(key, shape)``: ``uint32``: Threefry of ``0 .. n-1`` (padded by one 0 when ``n`` is
  odd); ``uint64``: the words of Threefry of ``0 .. 2n-1``, first half high, second half low.

Source: JAX's ``jax.random`` documentation and ``jax._src.prng`` (``threefry_split``,
``threefry_fold_in``, ``threefry_random_bits``, ``threefry_seed``).
"""
from __future__ import annotations

import operator
from typing import Any, cast

import numpy as np

from ..core.trace import Tracer
from .. import primitives as P
from ..typing import Array, ArrayLike, DTypeLike, Key, ShapeLike

__all__ = ["key", "PRNGKey", "split", "fold_in", "bits", "check_key", "random_bits"]

_U32 = np.dtype(np.uint32)
_MASK = 0xFFFFFFFF


def _shape(shape: ShapeLike, name: str) -> tuple[int, ...]:
    """``shape`` as a tuple of non-negative Python ints."""
    try:
        out = (operator.index(shape),) if np.ndim(shape) == 0 else tuple(  # type: ignore[arg-type]
            operator.index(d) for d in shape)  # type: ignore[union-attr]  # np.ndim decides
    except TypeError:
        raise TypeError(f"{name}: shape must be an int or a sequence of ints, got "
                        f"{shape!r}") from None
    if any(d < 0 for d in out):
        raise ValueError(f"{name}: shape {out} has a negative dimension")
    return out


def check_key(k: Any, name: str) -> None:
    """Raise unless ``k`` is one key: a ``uint32`` array (or tracer) of shape ``(2,)``.

    Parameters
    ----------
    k : Any
        The value to check.
    name : str
        The calling function's name, for the message.

    Raises
    ------
    TypeError
        Not an array, or not ``uint32``.
    ValueError
        Not of shape ``(2,)`` (e.g. an array of keys: map over it with ``ftrans.vmap``).
    """
    dtype = getattr(k, "dtype", None)
    if dtype is None or not hasattr(k, "shape"):
        raise TypeError(f"{name}: expected a key, a uint32 array of shape (2,) made by "
                        f"ftrans.random.key(seed); got {type(k).__name__}")
    if np.dtype(dtype) != _U32:
        raise TypeError(f"{name}: expected a uint32 key array of shape (2,), got dtype "
                        f"{np.dtype(dtype)}; make keys with ftrans.random.key(seed)")
    if tuple(k.shape) != (2,):
        raise ValueError(f"{name}: expected a uint32 key array of shape (2,), got shape "
                         f"{tuple(k.shape)}; for an array of keys use ftrans.vmap over "
                         "its first axis")


def key(seed: int | np.integer[Any]) -> Key:
    """A PRNG key from an integer seed.

    The words are the high and low 32 bits of ``seed`` as a 64-bit integer (JAX's
    ``threefry_seed`` with 64-bit seeds: ``key(0)`` is ``[0, 0]``, ``key(42)`` is
    ``[0, 42]``, ``key(-1)`` is ``[0xFFFFFFFF, 0xFFFFFFFF]``).

    Parameters
    ----------
    seed : int
        A Python or NumPy integer (concrete: a seed is data, not a traced value).

    Returns
    -------
    Key
        A ``uint32`` array of shape ``(2,)``.

    Raises
    ------
    TypeError
        ``seed`` is not an integer (a float, an array of more than one element, a tracer).
    ValueError
        ``seed`` is outside ``[-2**63, 2**64)``.

    Notes
    -----
    Source: JAX's ``jax.random.PRNGKey``/``key`` (raw keys).

    Examples
    --------
    >>> import ftrans.random as fr
    >>> fr.key(42)
    array([ 0, 42], dtype=uint32)
    >>> k1, k2 = fr.split(fr.key(0))  # use each key once
    """
    if isinstance(seed, Tracer) or isinstance(seed, (bool, np.bool_)) or (
            np.ndim(seed) != 0):
        raise TypeError(f"key: expected an integer seed (a Python or NumPy int), got "
                        f"{type(seed).__name__}")
    try:
        s = operator.index(seed if not isinstance(seed, np.ndarray) else seed[()])
    except TypeError:
        raise TypeError(f"key: expected an integer seed, got {seed!r}") from None
    if not -2 ** 63 <= s < 2 ** 64:
        raise ValueError(f"key: seed {s} is outside [-2**63, 2**64); reduce it modulo 2**64")
    s &= 2 ** 64 - 1
    return np.array([s >> 32, s & _MASK], np.uint32)


PRNGKey = key


def _counters(n: int) -> tuple[Array, Array]:
    """The constant counter words of ``0 .. n-1`` (``n`` even): first and second halves."""
    c = np.arange(n, dtype=np.uint32)
    return c[: n // 2], c[n // 2:]


def _threefry(k: Key, x0: ArrayLike, x1: ArrayLike) -> tuple[Array, Array]:
    return P.threefry2x32(k[0], k[1], x0, x1)


def split(key: Key, num: ShapeLike = 2) -> Key:
    """New keys from ``key``.

    The new keys are independent streams; do not use ``key`` itself again.

    Parameters
    ----------
    key : Key
        A ``uint32`` array of shape ``(2,)``.
    num : int or sequence of int, optional
        The number of keys, or a shape.

    Returns
    -------
    Key
        ``uint32`` array of shape ``(num, 2)`` (``(*num, 2)`` for a shape).

    Raises
    ------
    TypeError, ValueError
        A bad key (see :func:`check_key`) or a bad ``num``.

    Notes
    -----
    Source: JAX's ``jax.random.split`` (original, non-partitionable counters).

    Examples
    --------
    >>> import ftrans, ftrans.random as fr
    >>> fr.split(fr.key(0)).shape
    (2, 2)
    >>> keys = fr.split(fr.key(1), 4)           # one key per example
    >>> ftrans.vmap(lambda k: fr.normal(k, (3,)))(keys).shape
    (4, 3)
    """
    check_key(key, "split")
    shape = _shape(num, "split")
    n = int(np.prod(shape, dtype=np.int64))
    if 2 * n >= 2 ** 32:
        raise ValueError(f"split: at most 2**31 - 1 keys per call, asked for {n}")
    y0, y1 = _threefry(key, *_counters(2 * n))
    return P.reshape(P.concatenate([y0, y1], 0), shape + (2,))


def fold_in(key: Key, data: ArrayLike) -> Key:
    """A new key from ``key`` and an integer ``data`` (taken modulo ``2**32``).

    Parameters
    ----------
    key : Key
        A ``uint32`` array of shape ``(2,)``.
    data : ArrayLike
        A Python/NumPy integer or an integer array (or tracer) of shape ``()``:
        ``fold_in(key, step)`` inside a jitted loop is fine.

    Returns
    -------
    Key
        A ``uint32`` array of shape ``(2,)``.

    Raises
    ------
    TypeError
        A bad key, or ``data`` that is not an integer scalar.

    Notes
    -----
    Source: JAX's ``jax.random.fold_in`` (Threefry of the counter ``(0, data)``).

    Examples
    --------
    >>> fold_in(key(0), 1).dtype
    dtype('uint32')
    """
    check_key(key, "fold_in")
    dt = getattr(data, "dtype", None)
    d: Array
    if dt is None:
        if isinstance(data, bool):
            raise TypeError("fold_in: data must be an integer, got bool")
        try:
            i = operator.index(data)  # type: ignore[arg-type]  # TypeError below otherwise
        except TypeError:
            raise TypeError(f"fold_in: data must be an integer, got "
                            f"{type(data).__name__}") from None
        d = np.array([i & _MASK], np.uint32)
    else:
        shape = tuple(cast(Array, data).shape)  # it has a dtype: an array or a tracer
        if np.dtype(dt).kind not in "iu" or shape != ():
            raise TypeError(f"fold_in: data must be an integer scalar, got dtype "
                            f"{np.dtype(dt)} and shape {shape}")
        d = P.reshape(P.convert_element_type(data, np.uint32), (1,))
    y0, y1 = _threefry(key, np.zeros(1, np.uint32), d)
    return P.concatenate([y0, y1], 0)


def random_bits(k: Key, width: int, shape: tuple[int, ...]) -> tuple[Array, ...]:
    """``width`` (32 or 64) random bits per element of ``shape`` as the words JAX makes:
    ``(word,)`` for 32 bits, ``(high, low)`` uint32 arrays of ``shape`` for 64 bits.
    For the samplers (no key check)."""
    n = int(np.prod(shape, dtype=np.int64))
    if width * n // 32 >= 2 ** 32:
        raise ValueError(f"at most 2**31 - 1 random 64-bit values per call, asked for {n}")
    if width == 64:
        hi, lo = _threefry(k, *_counters(2 * n))
        return P.reshape(hi, shape), P.reshape(lo, shape)
    m = n + n % 2
    c = np.zeros(m, np.uint32)  # the counters 0 .. n-1, then a 0 when n is odd (JAX's pad)
    c[:n] = np.arange(n, dtype=np.uint32)
    y0, y1 = _threefry(k, c[: m // 2], c[m // 2:])
    if n % 2:  # the last word of the padded counter is not used
        y1 = y1[: m // 2 - 1]
    return (P.reshape(P.concatenate([y0, y1], 0), shape),)


def bits(key: Key, shape: ShapeLike = (), dtype: DTypeLike = np.uint32) -> Array:
    """Uniform random bits: an unsigned integer array of ``shape``.

    Parameters
    ----------
    key : Key
        A ``uint32`` array of shape ``(2,)``.
    shape : int or sequence of int, optional
        The result's shape.
    dtype : DTypeLike, optional
        ``uint32`` (default) or ``uint64`` (two 32-bit words per element, the high word
        first as in JAX).

    Returns
    -------
    Array
        Of ``shape`` and ``dtype``.

    Raises
    ------
    TypeError
        A bad key, or another ``dtype``.

    Notes
    -----
    Source: JAX's ``jax.random.bits``.

    Examples
    --------
    >>> bits(key(0), (3,)).shape
    (3,)
    """
    check_key(key, "bits")
    shape = _shape(shape, "bits")
    dt = np.dtype(dtype)
    if dt == np.uint32:
        return random_bits(key, 32, shape)[0]
    if dt == np.uint64:
        hi, lo = random_bits(key, 64, shape)
        return P.add(P.mul(P.convert_element_type(hi, np.uint64), np.uint64(2 ** 32)),
                     P.convert_element_type(lo, np.uint64))
    raise TypeError(f"bits: dtype must be uint32 or uint64, got {dt}")
