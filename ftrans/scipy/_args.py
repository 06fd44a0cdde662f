"""Argument normalization shared by the ``ftrans.scipy.special`` modules: integer and
bool inputs become float64, lists become arrays, float32 stays float32; complex inputs of
real-only functions raise ``TypeError``; the numpydoc templates of the elementwise
functions' docstrings."""
from __future__ import annotations

from typing import cast

import numpy as np

from ..core import Tracer, result_type
from .. import primitives as P
from ..typing import Array, ArrayLike

__all__: list[str] = []


def _float(x: ArrayLike, complex_ok: bool = False, name: str = "") -> Array:
    """``x`` as an inexact array or tracer: ints/bools -> float64, lists -> arrays."""
    if isinstance(x, Tracer) or hasattr(x, "__cuda_array_interface__"):
        arr = cast(Array, x)        # a tracer (CuPy array) stands for the array
    else:
        arr = np.asarray(x)
    kind = arr.dtype.kind
    if kind == "c" and not complex_ok:
        raise TypeError(f"scipy.special.{name} is defined for real inputs only; got dtype "
                        f"{arr.dtype}")
    if kind not in "fc":
        arr = P.convert_element_type(arr, np.float64)
    return arr


def _floats(*xs: ArrayLike, name: str = "") -> list[Array]:
    """Real operands converted to their common (NumPy-promoted) float dtype."""
    arrs = [_float(x, name=name) for x in xs]
    dt = result_type(*arrs)
    return [P.convert_element_type(x, dt) for x in arrs]


def _unary_doc(summary: str, extra: str = "", arg: str = "x") -> str:
    """The numpydoc docstring of a real elementwise function of one argument."""
    notes = f"\n\n    Notes\n    -----\n    {extra}" if extra else ""
    return (f"{summary}\n\n    Parameters\n    ----------\n    {arg} : array_like\n"
            f"        Real input.\n\n    Returns\n    -------\n    Array\n"
            f"        ``{arg}``'s shape and floating dtype (ints give float64).\n\n"
            f"    Raises\n    ------\n    TypeError\n        For complex input.{notes}\n    ")


def _binary_doc(summary: str, extra: str = "") -> str:
    """The numpydoc docstring of a real elementwise function of ``x`` and ``y``."""
    notes = f"\n\n    Notes\n    -----\n    {extra}" if extra else ""
    return (f"{summary}\n\n    Parameters\n    ----------\n    x, y : array_like\n"
            f"        Real inputs (broadcast together).\n\n    Returns\n    -------\n"
            f"    Array\n        The broadcast shape, the inputs' common floating dtype.\n\n"
            f"    Raises\n    ------\n    TypeError\n        For complex input.{notes}\n    ")
