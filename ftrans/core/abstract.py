"""Abstract values: what a transform may know of an array without its data."""
from __future__ import annotations

from typing import Any

import numpy as np

from .dtypes import as_numpy_dtype

__all__ = ["ShapedArray", "aval_of", "shape_of", "dtype_of", "weak_dtype"]


class ShapedArray:
    """Shape and dtype of an array.

    Parameters
    ----------
    shape : sequence of int
        The shape.
    dtype : dtype-like
        The dtype (converted with ``as_numpy_dtype``).
    weak_type : bool, default False
        True for a Python scalar (NEP 50: it adopts the dtype of the array it meets).
    """

    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(self, shape: Any, dtype: Any, weak_type: bool = False) -> None:
        self.shape: tuple[int, ...] = tuple(map(int, shape))
        self.dtype: np.dtype[Any] = dtype if type(dtype) is np.dtype else as_numpy_dtype(dtype)
        self.weak_type = weak_type

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """The number of elements."""
        return int(np.prod(self.shape, dtype=np.int64))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ShapedArray) and self.shape == other.shape
                and self.dtype == other.dtype)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype))

    def __repr__(self) -> str:
        return f"ShapedArray({self.shape}, {self.dtype.name})"


def shape_of(x: Any) -> tuple[int, ...]:
    """Shape of an array, tracer, ShapedArray or Python scalar."""
    s = getattr(x, "shape", None)
    return tuple(s) if s is not None else ()


def dtype_of(x: Any) -> np.dtype[Any]:
    """dtype of an array, tracer or ShapedArray; NumPy's default for a Python scalar."""
    d = getattr(x, "dtype", None)
    if d is None:
        return np.asarray(x).dtype
    return as_numpy_dtype(d)


def aval_of(x: Any) -> ShapedArray:
    """The abstract value of ``x`` (a Python scalar gives a weakly typed 0-d value)."""
    if isinstance(x, ShapedArray):
        return x
    if isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic):
        # (np.float64/np.complex128 subclass float/complex but are not weak in NEP 50)
        return ShapedArray((), weak_dtype(x), weak_type=True)
    return ShapedArray(shape_of(x), dtype_of(x))


def weak_dtype(x: bool | int | float | complex) -> np.dtype[Any]:
    """The dtype of the weakly typed Python scalar ``x``: bool, int64, float64 or
    complex128 by its kind, whatever its value (an int beyond int64 stays a Python int,
    weak, which NumPy then converts, or refuses to, as eagerly)."""
    if isinstance(x, bool):
        return np.dtype(np.bool_)
    if isinstance(x, int):
        return np.dtype(np.int64)
    if isinstance(x, float):
        return np.dtype(np.float64)
    return np.dtype(np.complex128)
