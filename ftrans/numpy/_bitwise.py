"""NumPy's integer elementwise functions: the bitwise operations, shifts, ``gcd`` and
``lcm`` (integer-valued, no derivative; NumPy's broadcasting and NEP 50 promotion).

They bind one non-differentiable primitive,
:func:`ftrans.primitives.bitwise.integer_elementwise` (see its module for why these are
not rows of the operation table), so they work on traced integer values under every
transform (``vmap``, ``jit``; under ``grad`` their results are constants).  Inexact
operands raise ``TypeError`` (NumPy's rule), never a silent conversion.
"""
from __future__ import annotations

from ..typing import Array, ArrayLike
from ._args import _arr
from ..primitives.bitwise import integer_elementwise as _ie

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_invert",
           "invert", "bitwise_count", "bitwise_left_shift", "bitwise_right_shift",
           "left_shift", "right_shift", "gcd", "lcm"]


def bitwise_and(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """Bitwise AND, ``x1 & x2``, elementwise.

    >>> import numpy as np
    >>> bitwise_and(np.array([12, 10]), 6)
    array([4, 2])

    Parameters
    ----------
    x1, x2 : array_like
        Integer (or boolean) operands, broadcast together.

    Returns
    -------
    Array
        The broadcast shape; the promoted integer (or boolean) dtype.

    Raises
    ------
    TypeError
        For floating or complex operands (NumPy's rule).

    Notes
    -----
    Not differentiable (integer result).
    """
    return _ie("bitwise_and", _arr(x1), _arr(x2))


def bitwise_or(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """Bitwise OR, ``x1 | x2``, elementwise.

    Parameters
    ----------
    x1, x2 : array_like
        Integer (or boolean) operands, broadcast together.

    Returns
    -------
    Array
        The broadcast shape; the promoted integer (or boolean) dtype.

    Raises
    ------
    TypeError
        For floating or complex operands (NumPy's rule).

    Notes
    -----
    Not differentiable (integer result).
    """
    return _ie("bitwise_or", _arr(x1), _arr(x2))


def bitwise_xor(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """Bitwise XOR, ``x1 ^ x2``, elementwise.

    Parameters
    ----------
    x1, x2 : array_like
        Integer (or boolean) operands, broadcast together.

    Returns
    -------
    Array
        The broadcast shape; the promoted integer (or boolean) dtype.

    Raises
    ------
    TypeError
        For floating or complex operands (NumPy's rule).

    Notes
    -----
    Not differentiable (integer result).
    """
    return _ie("bitwise_xor", _arr(x1), _arr(x2))


def invert(x: ArrayLike, /) -> Array:
    """Bitwise NOT, ``~x`` (two's complement; logical NOT for booleans).

    Also ``bitwise_not`` and ``bitwise_invert``.

    Parameters
    ----------
    x : array_like
        Integer or boolean input.

    Returns
    -------
    Array
        ``x``'s shape and dtype.

    Raises
    ------
    TypeError
        For floating or complex operands (NumPy's rule).

    Notes
    -----
    Not differentiable (integer result).
    """
    return _ie("invert", _arr(x))


bitwise_not = bitwise_invert = invert


def bitwise_count(x: ArrayLike, /) -> Array:
    """Number of 1-bits in ``|x|``, elementwise.

    Parameters
    ----------
    x : array_like
        Integer or boolean input.

    Returns
    -------
    Array
        ``x``'s shape, uint8.

    Raises
    ------
    TypeError
        For floating or complex operands (NumPy's rule).

    Notes
    -----
    Not differentiable (integer result).
    """
    return _ie("bitwise_count", _arr(x))


def left_shift(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """Shift the bits left, ``x1 << x2`` (also ``bitwise_left_shift``).

    Parameters
    ----------
    x1 : array_like
        Integer values.
    x2 : array_like
        Integer shift counts, broadcast with ``x1``.

    Returns
    -------
    Array
        The broadcast shape; the promoted integer dtype.

    Raises
    ------
    TypeError
        For floating or complex operands (NumPy's rule).

    Notes
    -----
    Not differentiable (integer result).
    """
    return _ie("left_shift", _arr(x1), _arr(x2))


def right_shift(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """Shift the bits right (arithmetic), ``x1 >> x2`` (also ``bitwise_right_shift``).

    Parameters
    ----------
    x1 : array_like
        Integer values.
    x2 : array_like
        Integer shift counts, broadcast with ``x1``.

    Returns
    -------
    Array
        The broadcast shape; the promoted integer dtype.

    Raises
    ------
    TypeError
        For floating or complex operands (NumPy's rule).

    Notes
    -----
    Not differentiable (integer result).
    """
    return _ie("right_shift", _arr(x1), _arr(x2))


bitwise_left_shift, bitwise_right_shift = left_shift, right_shift


def gcd(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """Greatest common divisor of ``|x1|`` and ``|x2|``, elementwise.

    >>> gcd(12, 20)
    np.int64(4)

    Parameters
    ----------
    x1, x2 : array_like
        Integer operands, broadcast together.

    Returns
    -------
    Array
        The broadcast shape; the promoted integer dtype.

    Raises
    ------
    TypeError
        For floating or complex operands (NumPy's rule).

    Notes
    -----
    Not differentiable (integer result).
    """
    return _ie("gcd", _arr(x1), _arr(x2))


def lcm(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """Least common multiple of ``|x1|`` and ``|x2|``, elementwise.

    Parameters
    ----------
    x1, x2 : array_like
        Integer operands, broadcast together.

    Returns
    -------
    Array
        The broadcast shape; the promoted integer dtype.

    Raises
    ------
    TypeError
        For floating or complex operands (NumPy's rule).

    Notes
    -----
    Not differentiable (integer result).
    """
    return _ie("lcm", _arr(x1), _arr(x2))
