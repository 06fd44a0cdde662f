"""Miscellaneous NumPy functions: ``nan_to_num``."""
from __future__ import annotations

from typing import Any, cast

import numpy as np

from ..core import Tracer
from ..core.dtypes import as_numpy_dtype as _as_numpy_dtype
from ..kernels import foreign_array as _foreign_array
from ..core.dtypes import kind_of as _kind_of
from ..typing import Array, ArrayLike
from ._args import P

__all__ = ["nan_to_num"]


def nan_to_num(x: ArrayLike, copy: bool = True, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Array:
    """Replace NaN and infinities by finite numbers.

    Complex inputs are treated part by part; integer and bool inputs are returned
    unchanged.

    Parameters
    ----------
    x : array_like
        Input.
    copy : bool, optional
        Accepted for NumPy compatibility (results are never views).
    nan : float, optional
        Value for NaN.
    posinf : float, optional
        Value for +inf; the dtype's largest finite value by default.
    neginf : float, optional
        Value for -inf; the most negative finite value by default.

    Returns
    -------
    Array
        ``x``'s shape and dtype.

    Notes
    -----
    Derivative 1 (the identity) where ``x`` is finite, 0 where a value was replaced (the
    replacements are constants), so a gradient through it is finite wherever the
    cotangent is.
    """
    del copy
    if not isinstance(x, Tracer) and not hasattr(x, "__cuda_array_interface__") and \
            not _foreign_array(x):
        a = np.asarray(x)
    else:
        a = cast(Array, x)  # a tracer or a device/foreign array: has .dtype
    kind = _kind_of(a)
    if kind not in "fc":
        return a
    if kind == "c":
        re = nan_to_num(P.real(a), nan=nan, posinf=posinf, neginf=neginf)
        im = nan_to_num(P.imag(a), nan=nan, posinf=posinf, neginf=neginf)
        return P.add(P.convert_element_type(re, a.dtype),
                     P.mul(P.convert_element_type(im, a.dtype), 1j))
    fi = np.finfo(a.dtype)
    posinf = float(fi.max) if posinf is None else posinf
    neginf = float(fi.min) if neginf is None else neginf
    is_inf = P.isinf(a)
    out = P.where(P.logical_and(is_inf, P.gt(a, 0.0)), _const(posinf, a), a)
    out = P.where(P.logical_and(is_inf, P.lt(a, 0.0)), _const(neginf, a), out)
    return P.where(P.isnan(a), _const(nan, a), out)


def _const(v: Any, x: Any) -> Any:
    """A replacement value in ``x``'s dtype (NumPy casts it to the array's dtype)."""
    return np.asarray(v, dtype=_as_numpy_dtype(x.dtype))
