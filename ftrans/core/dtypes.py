"""dtype rules: NumPy 2 promotion (NEP 50), inexact/integer tests, ``float0``.

ftrans follows NumPy's promotion exactly (``numpy.result_type``), including weak
Python scalars: ``float32_array * 0.5`` is float32, ``int_array * 0.5`` is float64.
Gradients have the dtype of their primal.
"""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["float0", "result_type", "as_numpy_dtype", "kind_of", "is_inexact", "is_complex", "is_float",
           "real_dtype", "canonical_dtype"]

#: dtype of the (empty) tangent/cotangent of an integer or boolean value, as JAX's
#: ``float0``: zero bytes per element, so it can hold no number.
float0 = np.dtype([("float0", np.void, 0)])


def result_type(*args: Any) -> np.dtype[Any]:
    """NumPy's promotion of arrays, tracers, ShapedArrays, dtypes and Python scalars."""
    conv: list[Any] = []
    for a in args:
        if isinstance(a, (bool, int, float, complex, np.dtype, type)):
            conv.append(a)
        else:
            conv.append(as_numpy_dtype(a.dtype))
    return np.result_type(*conv)


def as_numpy_dtype(d: Any) -> np.dtype[Any]:
    """``numpy.dtype(d)``; another array library's dtype object (``array_api_strict``,
    CuPy, ...) becomes the NumPy dtype of the same name (``array_api_strict.float64``
    -> ``float64``): abstract values and promotion rules always speak NumPy dtypes.

    Raises
    ------
    TypeError
        If ``d`` is no dtype NumPy has.
    """
    try:
        return np.dtype(d)
    except TypeError:
        pass
    name = str(d).rsplit(".", 1)[-1]
    try:
        return np.dtype(name)
    except TypeError:
        raise TypeError(f"cannot interpret {d!r} as one of NumPy's dtypes (bool, "
                        "int8..uint64, float32/64, complex64/128)") from None


def kind_of(x: Any) -> str:
    """NumPy's kind character (``"f"``, ``"c"``, ``"i"``, ``"b"`` ...) of the dtype of an
    array or tracer of any array library."""
    try:
        return x.dtype.kind
    except AttributeError:
        return as_numpy_dtype(x.dtype).kind


def is_inexact(dtype: Any) -> bool:
    """True for floating and complex dtypes (the ones with a tangent space)."""
    try:
        return np.dtype(dtype).kind in "fc"
    except TypeError:
        return as_numpy_dtype(dtype).kind in "fc"


def is_float(dtype: Any) -> bool:
    return as_numpy_dtype(dtype).kind == "f"


def is_complex(dtype: Any) -> bool:
    return as_numpy_dtype(dtype).kind == "c"


def real_dtype(dtype: Any) -> np.dtype[Any]:
    """float32 for complex64, float64 for complex128, the dtype itself otherwise."""
    dtype = as_numpy_dtype(dtype)
    if dtype.kind == "c":
        return np.empty((), dtype).real.dtype
    return dtype


def canonical_dtype(dtype: Any) -> np.dtype[Any]:
    """``numpy.dtype(dtype)`` with a clear error for things that are not dtypes."""
    try:
        return np.dtype(dtype)
    except TypeError as e:
        raise TypeError(f"expected a NumPy dtype (e.g. 'float32', numpy.float64), "
                        f"got {dtype!r}") from e
