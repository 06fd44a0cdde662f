"""NumPy functions written as compositions of ftrans primitives.

Signatures, keyword names, broadcasting and promotion follow NumPy 2 (NEP 50:
Python scalars are weak, so ``float32_array * 0.5`` stays float32).  On concrete
arrays with no transform active every function still goes through the
primitives, whose impls are the NumPy kernels, so results equal NumPy's.

This file holds reductions and products; the elementwise functions (with the operation
table's generated rows) are in ``_elementwise.py``, creation in ``_creation.py``, shapes in
``_layout.py`` and the argument normalization in ``_args.py``, all re-exported here.
"""
from __future__ import annotations

import builtins

import numpy as np

from collections.abc import Callable, Sequence
from typing import Any

from ..core.dtypes import kind_of as _kind_of
from ..typing import Array, ArrayLike, Axis, DTypeLike
from ._args import P, _arr, _axes, _axis, _keepdims, _ndarray
from ._elementwise import *  # noqa: F401,F403  (the elementwise functions, ROW_FUNCTIONS' names)
from ._elementwise import ROW_FUNCTIONS, _sqrt_flat_at_0  # noqa: F401  (fnp's methods read it)
from ._creation import *  # noqa: F401,F403
from ._creation import _flat, _xp_like  # noqa: F401  (used through ``F.``)
from ._layout import *  # noqa: F401,F403
from ._layout import _infer_shape  # noqa: F401
from ._layout import ravel

_AxisError = np.exceptions.AxisError


# ---------------------------------------------------------------------------------
# reductions
# ---------------------------------------------------------------------------------


def sum(a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, keepdims: bool = False) -> Array:
    """Sum of the elements over the given axes.

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    dtype : dtype_like, optional
        Accumulator and result dtype (booleans sum as int64 by default).
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions (the result broadcasts against ``a``).

    Returns
    -------
    Array
        The sums; int64 for boolean input.

    Notes
    -----
    Differentiable (linear).
    """
    a = _ndarray(a)
    if dtype is not None:
        a = P.convert_element_type(a, dtype)
    elif _kind_of(a) == "b":
        a = P.convert_element_type(a, np.dtype(np.int64))
    axes = _axes(axis, a.ndim)
    return _keepdims(a, P.reduce_sum(a, axes), axes, keepdims)


def _count(a: Any, axes: tuple[int, ...]) -> int:
    """The number of elements reduced over ``axes``."""
    n = 1
    for i in axes:
        n *= a.shape[i]
    return n


def mean(a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, keepdims: bool = False) -> Array:
    """Arithmetic mean over the given axes.

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    dtype : dtype_like, optional
        Accumulator and result dtype.
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions (the result broadcasts against ``a``).

    Returns
    -------
    Array
        The means; floating dtype.

    Notes
    -----
    Differentiable (linear).
    """
    a = _ndarray(a)
    axes = _axes(axis, a.ndim)
    s = sum(a, axis=axes, dtype=dtype, keepdims=keepdims)
    return P.div(s, _count(a, axes))


def var(a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, ddof: float = 0,
        keepdims: bool = False) -> Array:
    """Variance over the given axes (``sum(|a - mean|**2) / (N - ddof)``).

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    dtype : dtype_like, optional
        Accumulator dtype.
    ddof : int or float, optional
        Delta degrees of freedom: the divisor is ``N - ddof``.
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions (the result broadcasts against ``a``).

    Returns
    -------
    Array
        The variances; real floating dtype (also for complex ``a``).

    Notes
    -----
    Differentiable: ``2 (a - mean) / (N - ddof)``.
    """
    a = _ndarray(a)
    axes = _axes(axis, a.ndim)
    m = mean(a, axis=axes, dtype=dtype, keepdims=True)
    d = P.sub(a, m)
    sq = P.real(P.mul(P.conj(d), d)) if _kind_of(d) == "c" else P.mul(d, d)
    s = sum(sq, axis=axes, dtype=dtype, keepdims=keepdims)
    return P.div(s, builtins.max(_count(a, axes) - ddof, 0))


def std(a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, ddof: float = 0,
        keepdims: bool = False) -> Array:
    """Standard deviation over the given axes (``sqrt(var)``).

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    dtype : dtype_like, optional
        Accumulator dtype.
    ddof : int or float, optional
        Delta degrees of freedom: the divisor is ``N - ddof``.
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions (the result broadcasts against ``a``).

    Returns
    -------
    Array
        The standard deviations; real floating dtype.

    Notes
    -----
    Differentiable; the derivative over a constant slice (``std == 0``) is 0, the
    minimum-norm subgradient, not NaN.
    """
    return _sqrt_flat_at_0(var(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims))


def _extremum(prim_op: Callable[..., Any], name: str) -> Callable[..., Array]:
    """The reduction ``numpy.<name>`` (max or min) over ``prim_op``."""
    def f(a: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Array:
        a = _ndarray(a)
        axes = _axes(axis, a.ndim)
        if a.size == 0 and any(a.shape[i] == 0 for i in axes):
            raise ValueError(f"zero-size array to reduction operation {name} which has no "
                             "identity")
        return _keepdims(a, prim_op(a, axes), axes, keepdims)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""{"Maximum" if name == "max" else "Minimum"} of the elements over the given axes.

    Parameters
    ----------
    a : array_like
        Input array (NaNs propagate).
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions.

    Returns
    -------
    Array
        The extrema, ``a``'s dtype.

    Raises
    ------
    ValueError
        If a reduced axis has length 0 (no identity).

    Notes
    -----
    Differentiable; tied extrema share the derivative evenly (DESIGN.md's subgradient
    convention).
    """
    return f


max = _extremum(P.reduce_max, "max")
min = _extremum(P.reduce_min, "min")
amax = max
amin = min


def prod(a: ArrayLike, axis: Axis = None, dtype: DTypeLike | None = None, keepdims: bool = False) -> Array:
    """Product of the elements over the given axes.

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int or tuple of int, optional
        Axes to reduce; all by default.
    dtype : dtype_like, optional
        Accumulator and result dtype.
    keepdims : bool, optional
        Keep the reduced axes as size-1 dimensions (the result broadcasts against ``a``).

    Returns
    -------
    Array
        The products.

    Notes
    -----
    Differentiable; the derivative is exact also where elements are zero (no division
    by the product).
    """
    a = _ndarray(a)
    if dtype is not None:
        a = P.convert_element_type(a, dtype)
    axes = _axes(axis, a.ndim)
    return _keepdims(a, P.reduce_prod(a, axes), axes, keepdims)


def _arg(prim_op: Callable[..., Any], name: str) -> Callable[..., Array]:
    """The index reduction ``numpy.<name>`` (argmax or argmin) over ``prim_op``."""
    def f(a: ArrayLike, axis: int | None = None, keepdims: bool = False) -> Array:
        a = _ndarray(a)
        if axis is None:
            out = prim_op(P.reshape(a, (a.size,)) if a.ndim != 1 else a, 0)
            return P.reshape(out, (1,) * a.ndim) if keepdims else out
        ax = _axis(axis, a.ndim)
        out = prim_op(a, ax)
        return P.expand_dims(out, (ax,)) if keepdims else out
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""Index of the {name[3:]}imum along an axis (the first one at ties).

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int, optional
        The axis; the flattened array by default.
    keepdims : bool, optional
        Keep the reduced axis as a size-1 dimension.

    Returns
    -------
    Array
        Integer indices (int64).

    Notes
    -----
    Not differentiable (integer result).
    """
    return f


argmax = _arg(P.argmax, "argmax")
argmin = _arg(P.argmin, "argmin")

# ---------------------------------------------------------------------------------
# products
# ---------------------------------------------------------------------------------


def matmul(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Matrix product ``x1 @ x2`` with NumPy's rules (1-D promotion, broadcast batch axes).

    Parameters
    ----------
    x1 : array_like
        Shape ``(..., n, k)`` or ``(k,)``.
    x2 : array_like
        Shape ``(..., k, m)`` or ``(k,)``.

    Returns
    -------
    Array
        Shape ``(..., n, m)``, with the axes of 1-D operands removed.

    Raises
    ------
    ValueError
        For 0-d operands or mismatched contracted sizes (both shapes named).

    Notes
    -----
    Differentiable (bilinear); complex operands follow the holomorphic convention.
    """
    a, b = _ndarray(x1), _ndarray(x2)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: Input operand does not have enough dimensions (0-d "
                         "operands are not allowed; use multiply)")
    a1, b1 = a.ndim == 1, b.ndim == 1
    # matrix/batch @ vector and vector @ matrix: one contraction, no axes added and removed
    if b1 and a.shape[-1] == b.shape[0]:
        return P.dot_general(a, b, (((a.ndim - 1,), (0,)), ((), ())))
    if a1 and b.ndim == 2 and a.shape[0] == b.shape[0]:
        return P.dot_general(a, b, (((0,), (0,)), ((), ())))
    if a1:
        a = P.expand_dims(a, (0,))
    if b1:
        b = P.expand_dims(b, (1,))
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"matmul: mismatch in the contracted dimension: shapes "
                         f"{tuple(x1.shape) if hasattr(x1, 'shape') else ()} and "
                         f"{tuple(x2.shape) if hasattr(x2, 'shape') else ()} "
                         f"({a.shape[-1]} != {b.shape[-2]})")
    if a.ndim == 2 and b.ndim == 2:
        out = P.dot_general(a, b, (((1,), (0,)), ((), ())))
    elif b.ndim == 2:  # (..., m, k) @ (k, n): one big matrix product
        out = P.dot_general(a, b, (((a.ndim - 1,), (0,)), ((), ())))
    else:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a = P.broadcast_to(a, batch + tuple(a.shape[-2:]))
        b = P.broadcast_to(b, batch + tuple(b.shape[-2:]))
        nb = len(batch)
        out = P.dot_general(a, b, (((nb + 1,), (nb,)), (tuple(range(nb)), tuple(range(nb)))))
    if a1:
        out = P.squeeze(out, (out.ndim - 2,))
    if b1:
        out = P.squeeze(out, (out.ndim - 1,))
    return out


def dot(a: ArrayLike, b: ArrayLike) -> Array:
    """Dot product: scalars multiply, 1-D inner product, N-D contracts the last axis of
    ``a`` with the second-to-last of ``b``.

    Parameters
    ----------
    a, b : array_like
        Operands.

    Returns
    -------
    Array
        ``a.shape[:-1] + b.shape[:-2] + b.shape[-1:]``.

    Raises
    ------
    ValueError
        If the contracted sizes differ.

    Notes
    -----
    Differentiable (bilinear).
    """
    a, b = _ndarray(a), _ndarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return P.mul(a, b)
    cb = 0 if b.ndim == 1 else b.ndim - 2
    if a.shape[-1] != b.shape[cb]:
        raise ValueError(f"shapes {tuple(a.shape)} and {tuple(b.shape)} not aligned: "
                         f"{a.shape[-1]} (dim {a.ndim - 1}) != {b.shape[cb]} (dim {cb})")
    return P.dot_general(a, b, (((a.ndim - 1,), (cb,)), ((), ())))


def tensordot(a: ArrayLike, b: ArrayLike, axes: int | Sequence[Any] = 2) -> Array:
    """Sum of products over the given axes of two arrays.

    Parameters
    ----------
    a, b : array_like
        Operands.
    axes : int or (sequence of int, sequence of int), optional
        An int ``N``: the last ``N`` axes of ``a`` with the first ``N`` of ``b``; or the
        two lists of axes to contract.

    Returns
    -------
    Array
        ``a``'s free axes followed by ``b``'s.

    Raises
    ------
    ValueError
        If contracted sizes differ.

    Notes
    -----
    Differentiable (bilinear).
    """
    a, b = _ndarray(a), _ndarray(b)
    if isinstance(axes, (int, np.integer)):
        ca = tuple(range(a.ndim - axes, a.ndim))
        cb = tuple(range(axes))
    else:
        xa, xb = axes
        xa = (xa,) if isinstance(xa, (int, np.integer)) else tuple(xa)
        xb = (xb,) if isinstance(xb, (int, np.integer)) else tuple(xb)
        ca = tuple(_axis(i, a.ndim) for i in xa)
        cb = tuple(_axis(i, b.ndim) for i in xb)
    for i, j in zip(ca, cb):
        if a.shape[i] != b.shape[j]:
            raise ValueError(f"tensordot: shape-mismatch for sum: a.shape[{i}]={a.shape[i]} "
                             f"!= b.shape[{j}]={b.shape[j]}")
    return P.dot_general(a, b, ((ca, cb), ((), ())))


def inner(a: ArrayLike, b: ArrayLike) -> Array:
    """Inner product over the last axes of two arrays.

    Parameters
    ----------
    a, b : array_like
        Operands with equal last dimensions (or scalars).

    Returns
    -------
    Array
        ``a.shape[:-1] + b.shape[:-1]``.

    Notes
    -----
    Differentiable (bilinear; no conjugation).
    """
    a, b = _ndarray(a), _ndarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return P.mul(a, b)
    return tensordot(a, b, ((a.ndim - 1,), (b.ndim - 1,)))


def outer(a: ArrayLike, b: ArrayLike) -> Array:
    """Outer product of two vectors (inputs are flattened).

    Parameters
    ----------
    a, b : array_like
        Operands, of sizes ``M`` and ``N``.

    Returns
    -------
    Array
        Shape ``(M, N)``.

    Notes
    -----
    Differentiable (bilinear).
    """
    a, b = ravel(a), ravel(b)
    return P.mul(P.expand_dims(a, (1,)), P.expand_dims(b, (0,)))


def vdot(a: ArrayLike, b: ArrayLike) -> Array:
    """Dot product of the flattened inputs, conjugating the first.

    Parameters
    ----------
    a, b : array_like
        Operands of equal size.

    Returns
    -------
    Array
        0-d: ``sum(conj(a) * b)``.

    Notes
    -----
    Differentiable (conjugate-linear in ``a``, linear in ``b``).
    """
    a, b = ravel(a), ravel(b)
    return P.dot_general(P.conj(a), b, (((0,), (0,)), ((), ())))


def trace(a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Array:
    """Sum along a diagonal of an array.

    Parameters
    ----------
    a : array_like
        Input array, at least 2-D.
    offset : int, optional
        Diagonal offset (positive: above the main diagonal).
    axis1, axis2 : int, optional
        The axes of the 2-D sub-arrays.

    Returns
    -------
    Array
        ``a`` without ``axis1`` and ``axis2``.

    Notes
    -----
    Differentiable (linear).
    """
    a = _ndarray(a)
    n = builtins.min(a.shape[axis1], a.shape[axis2])
    i = np.arange(n)
    idx: list[Any] = [slice(None)] * a.ndim
    idx[axis1] = i if offset >= 0 else i - offset
    idx[axis2] = i + offset if offset >= 0 else i
    keep = [k for k in range(n) if 0 <= idx[axis1][k] < a.shape[axis1]
            and 0 <= idx[axis2][k] < a.shape[axis2]]
    idx[axis1] = idx[axis1][keep]
    idx[axis2] = idx[axis2][keep]
    d = P.gather(a, tuple(idx))
    a1, a2 = axis1 % a.ndim, axis2 % a.ndim
    # NumPy puts the advanced-index axis where the (adjacent) indexed axes were, else first
    pos = builtins.min(a1, a2) if builtins.abs(a1 - a2) == 1 else 0
    return P.reduce_sum(d, (pos,))


def astype(x: ArrayLike, dtype: DTypeLike, /, *, copy: bool = True,
           device: Any = None) -> Array:
    """Cast an array to a dtype (``numpy.astype``, the array API's ``astype``).

    Parameters
    ----------
    x : array_like
        Input array.
    dtype : dtype_like
        Target dtype.
    copy : bool, default True
        Accepted for NumPy's signature: ftrans arrays are immutable, so a cast that
        changes nothing may return ``x`` either way.
    device : None
        Accepted for the array API's signature; only None (the array's own device).

    Returns
    -------
    Array
        ``x`` converted.

    Raises
    ------
    ValueError
        A ``device`` other than None.

    Notes
    -----
    Differentiable between floating/complex dtypes; a cast to an integer or boolean
    dtype has derivative 0.
    """
    if device is not None:
        raise ValueError(f"astype: device= is not supported (got {device!r}); move the "
                         "array first")
    return P.convert_element_type(_arr(x), np.dtype(dtype))
