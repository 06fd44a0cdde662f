"""``jax.lax``'s dynamic slicing: ``dynamic_slice``, ``dynamic_update_slice`` and their
one-axis forms (``dynamic_slice_in_dim``, ``dynamic_update_slice_in_dim``,
``dynamic_index_in_dim``).

Front ends of the primitives of :mod:`ftrans.primitives.dynamic_slice` (where their
rules live): they check the arguments as JAX does and normalize negative start indices
(``start + operand.shape[k]``, JAX's ``allow_negative_indices=True``); the primitives
then clamp each start so the window fits (XLA's semantics).

Source: the ``jax.lax`` API reference (``jax.lax.dynamic_slice`` and friends: signatures,
clamping, ``allow_negative_indices``), checked against JAX 0.10.
"""
from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core import Tracer
from .. import primitives as P
from ..primitives.dynamic_slice import dynamic_slice_op, dynamic_update_slice_op
from ..typing import Array, ArrayLike
from ._ops import _arr

__all__ = ["dynamic_slice", "dynamic_update_slice", "dynamic_slice_in_dim",
           "dynamic_update_slice_in_dim", "dynamic_index_in_dim"]


def _start(name: str, s: Any, n: int, allow_negative: bool) -> Any:
    """One start index, checked (a 0-d integer) and, when negative, normalized."""
    if isinstance(s, (bool, np.bool_)):
        raise TypeError(f"lax.{name}: index arguments must be integers, got a bool ({s!r})")
    if isinstance(s, (int, np.integer)):
        i = int(s)
        return i + n if allow_negative and i < 0 else i
    if not (isinstance(s, Tracer) or (hasattr(s, "shape") and hasattr(s, "dtype"))):
        raise TypeError(f"lax.{name}: index arguments must be integers, got "
                        f"{type(s).__name__} ({s!r}); pass Python ints or 0-d integer arrays")
    if np.dtype(s.dtype).kind not in "iu":
        raise TypeError(f"lax.{name}: index arguments must be integers, got dtype "
                        f"{np.dtype(s.dtype).name}; convert them with .astype(int)")
    if tuple(s.shape) != ():
        raise TypeError(f"lax.{name}: each start index must be a scalar (0-d), got shape "
                        f"{tuple(s.shape)}")
    if not isinstance(s, Tracer):
        return _start(name, int(s), n, allow_negative)  # a concrete 0-d array
    if not allow_negative:
        return s
    return P.where(P.lt(s, 0), P.add(s, n), s)


def _starts(name: str, shape: Sequence[int], start_indices: Any,
            allow_negative_indices: bool | Sequence[bool]) -> list[Any]:
    if isinstance(start_indices, (list, tuple)):
        starts = list(start_indices)
    elif hasattr(start_indices, "shape") and hasattr(start_indices, "dtype"):
        if len(start_indices.shape) != 1:
            raise TypeError(f"lax.{name}: start_indices must be a sequence of scalars or a "
                            f"1-d integer array, got an array of shape "
                            f"{tuple(start_indices.shape)}")
        starts = [start_indices[k] for k in range(start_indices.shape[0])]
    else:
        raise TypeError(f"lax.{name}: start_indices must be a sequence of integers or a 1-d "
                        f"integer array, got {type(start_indices).__name__}")
    if len(starts) != len(shape):
        raise ValueError(f"lax.{name}: length of start indices must match the number of "
                         f"operand dimensions ({len(starts)} vs operand shape "
                         f"{tuple(shape)}); give one start per axis")
    if isinstance(allow_negative_indices, (bool, np.bool_)):
        allow = [bool(allow_negative_indices)] * len(shape)
    else:
        allow = [bool(a) for a in allow_negative_indices]
        if len(allow) != len(shape):
            raise ValueError(f"lax.{name}: allow_negative_indices must be a bool or one "
                             f"bool per operand dimension, got {len(allow)} for shape "
                             f"{tuple(shape)}")
    return [_start(name, s, n, a) for s, n, a in zip(starts, shape, allow)]


def dynamic_slice(operand: ArrayLike, start_indices: Sequence[ArrayLike] | ArrayLike,
                  slice_sizes: Sequence[int], *,
                  allow_negative_indices: bool | Sequence[bool] = True) -> Array:
    """The window of static size ``slice_sizes`` of ``operand`` at traced ``start_indices``.

    Parameters
    ----------
    operand : ArrayLike
        The array to slice.
    start_indices : sequence of int or 0-d integer arrays, or a 1-d integer array
        One start per axis of ``operand``; may be traced (under ``jit``, ``vmap`` ...).
        Each is clamped so the window fits: ``min(max(start, 0), shape[k] - size[k])``.
    slice_sizes : sequence of int
        The window's (static) size along each axis.
    allow_negative_indices : bool or sequence of bool, default True
        A negative start counts from the end (``start + shape[k]``), as in Python.
        With False it is clamped to 0.

    Returns
    -------
    Array
        Shape ``slice_sizes``, ``operand``'s dtype.

    Raises
    ------
    ValueError
        If the number of start indices (or of ``slice_sizes``) is not ``operand.ndim``.
    TypeError
        For non-integer start indices, or a slice size that is negative or larger than
        the operand's axis.

    Notes
    -----
    ``jax.lax.dynamic_slice``
    (https://docs.jax.dev/en/latest/_autosummary/jax.lax.dynamic_slice.html); the
    clamping is XLA's DynamicSlice.  Differentiable in ``operand`` (its transpose is
    :func:`dynamic_update_slice` into zeros).

    Examples
    --------
    >>> import numpy as np
    >>> from ftrans import lax
    >>> lax.dynamic_slice(np.arange(6.0), (4,), (3,))   # start clamped to 3
    array([3., 4., 5.])
    """
    x = _arr(operand, "dynamic_slice")
    shape = tuple(x.shape)
    try:
        sizes = tuple(operator.index(k) for k in slice_sizes)
    except TypeError:
        raise TypeError(f"lax.dynamic_slice: slice_sizes must be a sequence of ints, got "
                        f"{slice_sizes!r}") from None
    if len(sizes) != len(shape):
        raise ValueError(f"lax.dynamic_slice: slice_sizes must have one size per operand "
                         f"dimension, got {len(sizes)} for operand shape {shape}")
    if any(k < 0 or k > n for k, n in zip(sizes, shape)):
        raise TypeError(f"lax.dynamic_slice: slice_sizes must be non-negative and at most "
                        f"the operand's shape, got slice_sizes {sizes} for operand shape "
                        f"{shape}")
    starts = _starts("dynamic_slice", shape, start_indices, allow_negative_indices)
    return dynamic_slice_op(x, starts, sizes)


def dynamic_update_slice(operand: ArrayLike, update: ArrayLike,
                         start_indices: Sequence[ArrayLike] | ArrayLike, *,
                         allow_negative_indices: bool | Sequence[bool] = True) -> Array:
    """``operand`` with the window at traced ``start_indices`` replaced by ``update``.

    Parameters
    ----------
    operand : ArrayLike
        The array to update (not modified: a new array is returned).
    update : ArrayLike
        The window's new values: same rank and dtype as ``operand``, no larger along any
        axis.
    start_indices : sequence of int or 0-d integer arrays, or a 1-d integer array
        One start per axis, clamped so the window fits (as in :func:`dynamic_slice`).
    allow_negative_indices : bool or sequence of bool, default True
        A negative start counts from the end (``start + shape[k]``).

    Returns
    -------
    Array
        ``operand``'s shape and dtype.

    Raises
    ------
    ValueError
        If the number of start indices is not ``operand.ndim``.
    TypeError
        For non-integer start indices, or an update of another rank or dtype or larger
        than ``operand``.

    Notes
    -----
    ``jax.lax.dynamic_update_slice``
    (https://docs.jax.dev/en/latest/_autosummary/jax.lax.dynamic_update_slice.html);
    the clamping is XLA's DynamicUpdateSlice.  Differentiable in ``operand`` and
    ``update``.

    Examples
    --------
    >>> import numpy as np
    >>> from ftrans import lax
    >>> lax.dynamic_update_slice(np.zeros(5), np.ones(2), (-1,))   # -1 -> 4 -> clamped to 3
    array([0., 0., 0., 1., 1.])
    """
    x = _arr(operand, "dynamic_update_slice")
    u = _arr(update, "dynamic_update_slice")
    shape, ushape = tuple(x.shape), tuple(u.shape)
    if len(ushape) != len(shape):
        raise TypeError(f"lax.dynamic_update_slice: update must have the operand's rank, got "
                        f"update shape {ushape} for operand shape {shape}")
    if any(m > n for m, n in zip(ushape, shape)):
        raise TypeError(f"lax.dynamic_update_slice: update shape must be no larger than the "
                        f"operand's along each axis, got update shape {ushape} for operand "
                        f"shape {shape}")
    if np.dtype(x.dtype) != np.dtype(u.dtype):
        raise TypeError(f"lax.dynamic_update_slice requires arguments to have the same "
                        f"dtypes, got {np.dtype(x.dtype).name}, {np.dtype(u.dtype).name}; "
                        "convert the update with .astype(operand.dtype)")
    starts = _starts("dynamic_update_slice", shape, start_indices, allow_negative_indices)
    return dynamic_update_slice_op(x, u, starts)


def _axis(name: str, axis: int, ndim: int) -> int:
    a = operator.index(axis)
    if not -ndim <= a < ndim:
        raise ValueError(f"lax.{name}: axis {axis} is out of bounds for an operand of rank "
                         f"{ndim}")
    return a % ndim


def dynamic_slice_in_dim(operand: ArrayLike, start_index: ArrayLike, slice_size: int,
                         axis: int = 0, *, allow_negative_indices: bool = True) -> Array:
    """:func:`dynamic_slice` along one axis (the other axes whole).

    Parameters
    ----------
    operand : ArrayLike
        The array to slice.
    start_index : int or 0-d integer array
        The (possibly traced) start along ``axis``.
    slice_size : int
        The window's size along ``axis``.
    axis : int, default 0
        The sliced axis.
    allow_negative_indices : bool, default True
        As in :func:`dynamic_slice`.

    Returns
    -------
    Array
        ``operand``'s shape with ``slice_size`` on ``axis``.

    Raises
    ------
    ValueError
        For an axis out of range.
    TypeError
        As :func:`dynamic_slice`.

    Notes
    -----
    ``jax.lax.dynamic_slice_in_dim``
    (https://docs.jax.dev/en/latest/_autosummary/jax.lax.dynamic_slice_in_dim.html).

    Examples
    --------
    >>> import numpy as np
    >>> from ftrans import lax
    >>> lax.dynamic_slice_in_dim(np.arange(6.0).reshape(2, 3), 1, 2, axis=1)
    array([[1., 2.],
           [4., 5.]])
    """
    x = _arr(operand, "dynamic_slice_in_dim")
    a = _axis("dynamic_slice_in_dim", axis, len(x.shape))
    starts: list[Any] = [0] * len(x.shape)
    sizes = list(x.shape)
    starts[a], sizes[a] = start_index, slice_size
    return dynamic_slice(x, starts, sizes, allow_negative_indices=allow_negative_indices)


def dynamic_update_slice_in_dim(operand: ArrayLike, update: ArrayLike, start_index: ArrayLike,
                                axis: int, *, allow_negative_indices: bool = True) -> Array:
    """:func:`dynamic_update_slice` along one axis (the update spans the other axes).

    Parameters
    ----------
    operand : ArrayLike
        The array to update.
    update : ArrayLike
        The new values; its other axes start at 0.
    start_index : int or 0-d integer array
        The (possibly traced) start along ``axis``.
    axis : int
        The updated axis.
    allow_negative_indices : bool, default True
        As in :func:`dynamic_update_slice`.

    Returns
    -------
    Array
        ``operand``'s shape and dtype.

    Raises
    ------
    ValueError
        For an axis out of range.
    TypeError
        As :func:`dynamic_update_slice`.

    Notes
    -----
    ``jax.lax.dynamic_update_slice_in_dim``
    (https://docs.jax.dev/en/latest/_autosummary/jax.lax.dynamic_update_slice_in_dim.html).

    Examples
    --------
    >>> import numpy as np
    >>> from ftrans import lax
    >>> lax.dynamic_update_slice_in_dim(np.zeros((2, 3)), np.ones((2, 1)), 2, axis=1)
    array([[0., 0., 1.],
           [0., 0., 1.]])
    """
    x = _arr(operand, "dynamic_update_slice_in_dim")
    a = _axis("dynamic_update_slice_in_dim", axis, len(x.shape))
    starts: list[Any] = [0] * len(x.shape)
    starts[a] = start_index
    return dynamic_update_slice(x, update, starts, allow_negative_indices=allow_negative_indices)


def dynamic_index_in_dim(operand: ArrayLike, index: ArrayLike, axis: int = 0,
                         keepdims: bool = True, *, allow_negative_indices: bool = True) -> Array:
    """The slice of ``operand`` at a (possibly traced) ``index`` along ``axis``.

    Parameters
    ----------
    operand : ArrayLike
        The array to index.
    index : int or 0-d integer array
        The position along ``axis`` (clamped into range; negative counts from the end).
    axis : int, default 0
        The indexed axis.
    keepdims : bool, default True
        Keep ``axis`` with size 1 (True) or drop it.
    allow_negative_indices : bool, default True
        As in :func:`dynamic_slice`.

    Returns
    -------
    Array
        ``operand``'s shape with 1 on ``axis`` (or without it).

    Raises
    ------
    ValueError
        For an axis out of range.
    TypeError
        As :func:`dynamic_slice`.

    Notes
    -----
    ``jax.lax.dynamic_index_in_dim``
    (https://docs.jax.dev/en/latest/_autosummary/jax.lax.dynamic_index_in_dim.html).

    Examples
    --------
    >>> import numpy as np
    >>> from ftrans import lax
    >>> lax.dynamic_index_in_dim(np.arange(6.0).reshape(3, 2), -1, keepdims=False)
    array([4., 5.])
    """
    x = _arr(operand, "dynamic_index_in_dim")
    a = _axis("dynamic_index_in_dim", axis, len(x.shape))
    out = dynamic_slice_in_dim(x, index, 1, a, allow_negative_indices=allow_negative_indices)
    return out if keepdims else P.squeeze(out, (a,))
