"""The internal symbolic zero.

A tangent or cotangent that is known to be zero is represented by the singleton
:data:`zero` instead of an array of zeros, so rules can skip work (the JVP of
``mul(x, c)`` with a constant ``c`` computes one product, not two).  It never
leaves ftrans: API boundaries instantiate it with :func:`instantiate`.
"""
from __future__ import annotations

__all__ = ["Zero", "zero", "is_zero"]


class Zero:
    """Type of the symbolic zero; use the singleton :data:`zero`."""

    __slots__ = ()
    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self):
        return "zero"

    def __bool__(self):
        raise TypeError("the symbolic zero has no truth value; test it with `is zero`")


zero = Zero()


def is_zero(x: object) -> bool:
    """True if ``x`` is the symbolic zero."""
    return x is zero
