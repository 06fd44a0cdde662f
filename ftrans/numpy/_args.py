"""Argument normalization shared by the ``ftrans.numpy`` functions: array-likes to arrays
(Python scalars stay weak, NEP 50), axis arguments checked and made non-negative."""
from __future__ import annotations

import operator

import numpy as np

from ..core import Tracer
from .. import primitives as P
from ..kernels import foreign_array as _foreign_array

_AxisError = np.exceptions.AxisError

__all__ = []


def _arr(x):
    """Arrays and tracers pass through; Python scalars stay weak; the rest -> ndarray."""
    if isinstance(x, (Tracer, np.ndarray, bool, int, float, complex)) or \
            hasattr(x, "__cuda_array_interface__") or _foreign_array(x):
        return x
    return np.asarray(x)


def _arrs(*xs):
    return [_arr(x) for x in xs]


def _ndarray(x):
    """Like :func:`_arr` but Python scalars become 0-d arrays (for shape-using code)."""
    x = _arr(x)
    return np.asarray(x) if isinstance(x, (bool, int, float, complex)) else x


def _axis(axis, ndim, name="axis"):
    a = operator.index(axis)
    if not -ndim <= a < ndim:
        raise _AxisError(a, ndim)
    return a % ndim


def _axes(axis, ndim):
    """``None`` -> all axes; int or tuple -> sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        out = tuple(sorted(_axis(a, ndim) for a in axis))
        if len(set(out)) != len(out):
            raise ValueError(f"duplicate value in 'axis': {axis!r}")
        return out
    return (_axis(axis, ndim),)


def _keepdims(x, out, axes, keepdims):
    if not keepdims:
        return out
    return P.reshape(out, tuple(1 if i in axes else d for i, d in enumerate(x.shape)))
