"""NumPy's integer elementwise functions: the bitwise operations, shifts, ``gcd`` and
``lcm`` (integer-valued, no derivative; NumPy's broadcasting and NEP 50 promotion).

They bind one non-differentiable primitive,
:func:`ftrans.primitives.bitwise.integer_elementwise` (see its module for why these are
not rows of the operation table), so they work on traced integer values under every
transform (``vmap``, ``jit``; under ``grad`` their results are constants).  Inexact
operands raise ``TypeError`` (NumPy's rule), never a silent conversion.
"""
from __future__ import annotations

from ._args import _arr
from ..primitives.bitwise import integer_elementwise as _ie

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_invert",
           "invert", "bitwise_count", "bitwise_left_shift", "bitwise_right_shift",
           "left_shift", "right_shift", "gcd", "lcm"]


def bitwise_and(x1, x2, /):
    """``numpy.bitwise_and``: ``x1 & x2`` of integer or boolean arrays.

    >>> import numpy as np
    >>> bitwise_and(np.array([12, 10]), 6)
    array([4, 2])
    """
    return _ie("bitwise_and", _arr(x1), _arr(x2))


def bitwise_or(x1, x2, /):
    """``numpy.bitwise_or``: ``x1 | x2`` of integer or boolean arrays."""
    return _ie("bitwise_or", _arr(x1), _arr(x2))


def bitwise_xor(x1, x2, /):
    """``numpy.bitwise_xor``: ``x1 ^ x2`` of integer or boolean arrays."""
    return _ie("bitwise_xor", _arr(x1), _arr(x2))


def invert(x, /):
    """``numpy.invert`` (``bitwise_not``, ``bitwise_invert``): ``~x`` (two's complement;
    logical not for booleans)."""
    return _ie("invert", _arr(x))


bitwise_not = bitwise_invert = invert


def bitwise_count(x, /):
    """``numpy.bitwise_count``: the number of 1-bits in ``|x|`` (uint8 result)."""
    return _ie("bitwise_count", _arr(x))


def left_shift(x1, x2, /):
    """``numpy.left_shift`` (``bitwise_left_shift``): ``x1 << x2`` of integers."""
    return _ie("left_shift", _arr(x1), _arr(x2))


def right_shift(x1, x2, /):
    """``numpy.right_shift`` (``bitwise_right_shift``): ``x1 >> x2`` (arithmetic) of
    integers."""
    return _ie("right_shift", _arr(x1), _arr(x2))


bitwise_left_shift, bitwise_right_shift = left_shift, right_shift


def gcd(x1, x2, /):
    """``numpy.gcd``: the greatest common divisor of ``|x1|`` and ``|x2|`` (integers).

    >>> gcd(12, 20)
    np.int64(4)
    """
    return _ie("gcd", _arr(x1), _arr(x2))


def lcm(x1, x2, /):
    """``numpy.lcm``: the least common multiple of ``|x1|`` and ``|x2|`` (integers)."""
    return _ie("lcm", _arr(x1), _arr(x2))
