"""Argument normalization shared by the ``ftrans.scipy.special`` modules: integer and
bool inputs become float64, lists become arrays, float32 stays float32; complex inputs of
real-only functions raise ``TypeError``."""
from __future__ import annotations

import numpy as np

from ..core import Tracer, result_type
from .. import primitives as P

__all__ = []


def _float(x, complex_ok=False, name=""):
    """``x`` as an inexact array or tracer: ints/bools -> float64, lists -> arrays."""
    if not isinstance(x, Tracer) and not hasattr(x, "__cuda_array_interface__"):
        x = np.asarray(x)
    kind = x.dtype.kind
    if kind == "c" and not complex_ok:
        raise TypeError(f"scipy.special.{name} is defined for real inputs only; got dtype "
                        f"{x.dtype}")
    if kind not in "fc":
        x = P.convert_element_type(x, np.float64)
    return x


def _floats(*xs, name=""):
    """Real operands converted to their common (NumPy-promoted) float dtype."""
    xs = [_float(x, name=name) for x in xs]
    dt = result_type(*xs)
    return [P.convert_element_type(x, dt) for x in xs]
