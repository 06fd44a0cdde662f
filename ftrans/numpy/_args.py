"""Argument normalization shared by the ``ftrans.numpy`` functions: array-likes to arrays
(Python scalars stay weak, NEP 50), axis arguments checked and made non-negative."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, cast

import operator

import numpy as np

from ..core import Tracer
from .. import primitives as _primitives
from ..kernels import foreign_array as _foreign_array
from ..typing import Array


class _Primitives(Protocol):
    """``ftrans.primitives`` as ``ftrans.numpy`` calls it: every attribute an operation
    returning an array (the operation table's rows are generated at import, so a type
    checker cannot list them)."""

    def __getattr__(self, name: str) -> Callable[..., Array]: ...


#: the primitives, typed as :class:`_Primitives`
P = cast(_Primitives, _primitives)

_AxisError = np.exceptions.AxisError

__all__: list[str] = []


def _arr(x: Any) -> Any:
    """Arrays and tracers pass through; Python scalars stay weak; the rest -> ndarray."""
    if isinstance(x, (Tracer, np.ndarray, bool, int, float, complex)) or \
            hasattr(x, "__cuda_array_interface__") or _foreign_array(x):
        return x
    return np.asarray(x)


def _arrs(*xs: Any) -> list[Any]:
    return [_arr(x) for x in xs]


def _ndarray(x: Any) -> Array:
    """Like :func:`_arr` but Python scalars become 0-d arrays (for shape-using code)."""
    x = _arr(x)
    return np.asarray(x) if isinstance(x, (bool, int, float, complex)) else x


def _axis(axis: Any, ndim: int, name: str = "axis") -> int:
    a = operator.index(axis)
    if not -ndim <= a < ndim:
        raise _AxisError(a, ndim)
    return a % ndim


def _axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """``None`` -> all axes; int or tuple -> sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        out = tuple(sorted(_axis(a, ndim) for a in axis))
        if len(set(out)) != len(out):
            raise ValueError(f"duplicate value in 'axis': {axis!r}")
        return out
    return (_axis(axis, ndim),)


def _keepdims(x: Any, out: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
    if not keepdims:
        return out
    return P.reshape(out, tuple(1 if i in axes else d for i, d in enumerate(x.shape)))


def _sqrt_flat_at_0(v: Any) -> Any:
    """``sqrt(v)`` (``v >= 0``) whose derivative is 0, not inf, where ``v == 0``.

    For the norm-like functions ``std``, ``nanstd`` and ``hypot``, whose minimum-norm
    subgradient at their kink is 0 (DESIGN.md: ``v``'s own derivative vanishes there,
    and ``inf * 0`` would be NaN).  Both ``where`` guards keep every derivative finite
    (no "divide by zero" warning) and exact, to any order, where ``v > 0``.
    """
    at0 = P.eq(v, 0)
    return P.where(at0, 0.0, P.sqrt(P.where(at0, 1.0, v)))
