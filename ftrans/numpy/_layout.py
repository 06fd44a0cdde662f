"""Shape functions of ``ftrans.numpy`` (reshape, transpose, squeeze, stacking ...),
re-exported by ``_funcs``: differentiable compositions of primitives."""
from __future__ import annotations


import operator
from collections.abc import Sequence

import numpy as np

from ..typing import Array, ArrayLike, Axis, DTypeLike, ShapeLike
from ._args import P, _axes, _axis, _ndarray

# ---------------------------------------------------------------------------------
# shapes
# ---------------------------------------------------------------------------------

__all__ = ["shape", "ndim", "size", "reshape", "ravel", "transpose", "swapaxes", "moveaxis",
           "squeeze", "expand_dims", "broadcast_to", "atleast_1d", "atleast_2d",
           "concatenate", "stack", "vstack", "hstack"]


def shape(a: ArrayLike) -> tuple[int, ...]:
    """Shape of an array.

    Parameters
    ----------
    a : array_like
        Input array.

    Returns
    -------
    tuple of int
        The dimensions of ``a``.
    """
    return tuple(_ndarray(a).shape)


def ndim(a: ArrayLike) -> int:
    """Number of dimensions of an array.

    Parameters
    ----------
    a : array_like
        Input array.

    Returns
    -------
    int
        ``len(shape(a))``.
    """
    return len(_ndarray(a).shape)


def size(a: ArrayLike, axis: int | None = None) -> int:
    """Number of elements of an array, or along one axis.

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int, optional
        Count along this axis only.

    Returns
    -------
    int
        The number of elements.
    """
    a = _ndarray(a)
    return int(np.prod(a.shape)) if axis is None else a.shape[axis]


def _infer_shape(size_: int, newshape: ShapeLike) -> tuple[int, ...]:
    """``newshape`` with its ``-1`` resolved for ``size_`` elements (checked)."""
    if isinstance(newshape, (int, np.integer)):
        newshape = (int(newshape),)
    newshape = tuple(operator.index(d) for d in newshape)
    if newshape.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension (-1)")
    if -1 in newshape:
        known = int(np.prod([d for d in newshape if d != -1]))
        if known == 0 or size_ % known:
            raise ValueError(f"cannot reshape array of size {size_} into shape {newshape}")
        newshape = tuple(size_ // known if d == -1 else d for d in newshape)
    if int(np.prod(newshape)) != size_:
        raise ValueError(f"cannot reshape array of size {size_} into shape {newshape}")
    return newshape


def reshape(a: ArrayLike, shape: ShapeLike | None = None, order: str = "C", *,
            newshape: ShapeLike | None = None) -> Array:
    """Give an array a new shape without changing its data.

    Parameters
    ----------
    a : array_like
        Input array.
    shape : int or sequence of int
        New shape; one entry may be -1 (inferred).
    order : {'C'}, optional
        Only C (row-major) order is supported.
    newshape : int or sequence of int, optional
        NumPy's deprecated name of ``shape``.

    Returns
    -------
    Array
        ``a``'s elements in the new shape.

    Raises
    ------
    NotImplementedError
        If ``order`` is not ``'C'``.
    TypeError
        If neither ``shape`` nor ``newshape`` is given.
    ValueError
        If the sizes do not match, or more than one entry is -1.

    Notes
    -----
    Differentiable (linear).
    """
    if order != "C":
        raise NotImplementedError("ftrans.numpy.reshape supports order='C' only")
    new = newshape if shape is None else shape
    if new is None:
        raise TypeError("reshape() missing required argument 'shape'")
    a = _ndarray(a)
    return P.reshape(a, _infer_shape(a.size, new))


def ravel(a: ArrayLike, order: str = "C") -> Array:
    """Flatten an array to 1-D.

    Parameters
    ----------
    a : array_like
        Input array.
    order : {'C'}, optional
        Only C order is supported.

    Returns
    -------
    Array
        1-D, of ``a``'s size.

    Notes
    -----
    Differentiable (linear).
    """
    return reshape(a, (-1,), order=order)


def transpose(a: ArrayLike, axes: Sequence[int] | None = None) -> Array:
    """Permute the axes of an array.

    Parameters
    ----------
    a : array_like
        Input array.
    axes : sequence of int, optional
        The permutation; reversed axes by default.

    Returns
    -------
    Array
        ``a`` with axis ``i`` of the result being axis ``axes[i]`` of ``a``.

    Raises
    ------
    ValueError
        If ``axes`` is not a permutation of ``a``'s axes.

    Notes
    -----
    Differentiable (linear).
    """
    a = _ndarray(a)
    if axes is None:
        perm = tuple(range(a.ndim))[::-1]
    else:
        perm = tuple(_axis(ax, a.ndim) for ax in axes)
        if sorted(perm) != list(range(a.ndim)):
            raise ValueError(f"axes {axes!r} don't match array of {a.ndim} dimensions")
    return P.transpose(a, perm)


def swapaxes(a: ArrayLike, axis1: int, axis2: int) -> Array:
    """Interchange two axes of an array.

    Parameters
    ----------
    a : array_like
        Input array.
    axis1, axis2 : int
        The axes to swap.

    Returns
    -------
    Array
        ``a`` with the two axes interchanged.

    Notes
    -----
    Differentiable (linear).
    """
    a = _ndarray(a)
    perm = list(range(a.ndim))
    i, j = _axis(axis1, a.ndim), _axis(axis2, a.ndim)
    perm[i], perm[j] = perm[j], perm[i]
    return P.transpose(a, tuple(perm))


def moveaxis(a: ArrayLike, source: int | Sequence[int],
             destination: int | Sequence[int]) -> Array:
    """Move axes of an array to new positions.

    Parameters
    ----------
    a : array_like
        Input array.
    source : int or sequence of int
        Original positions of the axes to move.
    destination : int or sequence of int
        Their new positions.

    Returns
    -------
    Array
        ``a`` with the axes moved; the other axes keep their order.

    Raises
    ------
    ValueError
        If ``source`` and ``destination`` differ in length.

    Notes
    -----
    Differentiable (linear).
    """
    a = _ndarray(a)
    src = [_axis(s, a.ndim) for s in np.atleast_1d(source)]
    dst = [_axis(d, a.ndim) for d in np.atleast_1d(destination)]
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number "
                         "of elements")
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return P.transpose(a, tuple(order))


def squeeze(a: ArrayLike, axis: Axis = None) -> Array:
    """Remove axes of length one.

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int or tuple of int, optional
        The axes to remove; every size-1 axis by default.

    Returns
    -------
    Array
        ``a`` without those axes.

    Raises
    ------
    ValueError
        If a selected axis does not have size 1.

    Notes
    -----
    Differentiable (linear).
    """
    a = _ndarray(a)
    if axis is None:
        dims = tuple(i for i, d in enumerate(a.shape) if d == 1)
    else:
        dims = _axes(axis, a.ndim)
        for i in dims:
            if a.shape[i] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not "
                                 f"equal to one (axis {i} has size {a.shape[i]})")
    return P.squeeze(a, dims)


def expand_dims(a: ArrayLike, axis: int | Sequence[int]) -> Array:
    """Insert size-1 axes.

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int or sequence of int
        Positions of the new axes in the result.

    Returns
    -------
    Array
        ``a`` with ``len(axis)`` more dimensions.

    Notes
    -----
    Differentiable (linear).
    """
    a = _ndarray(a)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    out_ndim = a.ndim + len(axes)
    return P.expand_dims(a, tuple(sorted(_axis(x, out_ndim) for x in axes)))


def broadcast_to(array: ArrayLike, shape: ShapeLike) -> Array:
    """Broadcast an array to a new shape.

    Parameters
    ----------
    array : array_like
        Input array.
    shape : int or sequence of int
        Target shape, compatible with ``array``'s under NumPy's broadcasting rules.

    Returns
    -------
    Array
        ``array`` broadcast to ``shape``.

    Raises
    ------
    ValueError
        If the shapes are not compatible.

    Notes
    -----
    Differentiable; the cotangent is summed over the broadcast axes.
    """
    a = _ndarray(array)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    np.broadcast_shapes(a.shape, shape)  # raises ValueError naming both shapes
    return P.broadcast_to(a, shape)


def atleast_1d(a: ArrayLike) -> Array:
    """View the input as an array of at least one dimension.

    Parameters
    ----------
    a : array_like
        Input array.

    Returns
    -------
    Array
        ``a``, with a 0-d input reshaped to ``(1,)``.

    Notes
    -----
    Differentiable (linear).
    """
    a = _ndarray(a)
    return P.reshape(a, (1,)) if a.ndim == 0 else a


def atleast_2d(a: ArrayLike) -> Array:
    """View the input as an array of at least two dimensions.

    Parameters
    ----------
    a : array_like
        Input array.

    Returns
    -------
    Array
        ``a``, with leading size-1 axes added up to 2-D.

    Notes
    -----
    Differentiable (linear).
    """
    a = _ndarray(a)
    return P.reshape(a, (1,) * (2 - a.ndim) + tuple(a.shape)) if a.ndim < 2 else a


def concatenate(arrays: Sequence[ArrayLike], axis: int | None = 0,
                dtype: DTypeLike | None = None) -> Array:
    """Join arrays along an existing axis.

    Parameters
    ----------
    arrays : sequence of array_like
        Arrays of the same shape except along ``axis``.
    axis : int or None, optional
        The axis to join along; ``None`` flattens the arrays first.
    dtype : dtype_like, optional
        Result dtype; the arrays' promoted dtype by default.

    Returns
    -------
    Array
        The concatenation.

    Raises
    ------
    ValueError
        If ``arrays`` is empty, holds 0-d arrays, or the shapes do not match.

    Notes
    -----
    Differentiable (linear; each input gets its slice of the cotangent).
    """
    arrs = [_ndarray(a) for a in arrays]
    if not arrs:
        raise ValueError("need at least one array to concatenate")
    if axis is None:
        arrs = [ravel(a) for a in arrs]
        axis = 0
    nd = arrs[0].ndim
    if nd == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    for i, a in enumerate(arrs):
        if a.ndim != nd:
            raise ValueError(
                "concatenate: all the input arrays must have same number of dimensions, but "
                f"the array at index 0 has {nd} dimension(s) (shape {tuple(arrs[0].shape)}) "
                f"and the array at index {i} has {a.ndim} (shape {tuple(a.shape)})")
    ax = _axis(axis, nd)
    for i, a in enumerate(arrs):
        for d in range(nd):
            if d != ax and a.shape[d] != arrs[0].shape[d]:
                raise ValueError(
                    f"concatenate: all the input array dimensions except for the "
                    f"concatenation axis (axis={ax}) must match exactly, but along dimension "
                    f"{d}, the array at index 0 has shape {tuple(arrs[0].shape)} and the "
                    f"array at index {i} has shape {tuple(a.shape)}")
    out = P.concatenate(arrs, ax)
    return out if dtype is None else P.convert_element_type(out, dtype)


def stack(arrays: Sequence[ArrayLike], axis: int = 0) -> Array:
    """Join arrays of the same shape along a new axis.

    Parameters
    ----------
    arrays : sequence of array_like
        Arrays of one shape.
    axis : int, optional
        Position of the new axis in the result.

    Returns
    -------
    Array
        One more dimension than the inputs.

    Raises
    ------
    ValueError
        If ``arrays`` is empty or the shapes differ.

    Notes
    -----
    Differentiable (linear).
    """
    arrs = [_ndarray(a) for a in arrays]
    if not arrs:
        raise ValueError("need at least one array to stack")
    shapes = {tuple(a.shape) for a in arrs}
    if len(shapes) != 1:
        raise ValueError(f"all input arrays must have the same shape, got {sorted(shapes)}")
    ax = _axis(axis, arrs[0].ndim + 1)
    return P.concatenate([P.expand_dims(a, (ax,)) for a in arrs], ax)


def vstack(tup: Sequence[ArrayLike]) -> Array:
    """Stack arrays vertically (along the first axis, 1-D inputs as rows).

    Parameters
    ----------
    tup : sequence of array_like
        The arrays.

    Returns
    -------
    Array
        At least 2-D.

    Notes
    -----
    Differentiable (linear).
    """
    return concatenate([atleast_2d(a) for a in tup], axis=0)


def hstack(tup: Sequence[ArrayLike]) -> Array:
    """Stack arrays horizontally (along the second axis, the first for 1-D inputs).

    Parameters
    ----------
    tup : sequence of array_like
        The arrays.

    Returns
    -------
    Array
        The concatenation.

    Notes
    -----
    Differentiable (linear).
    """
    arrs = [atleast_1d(a) for a in tup]
    return concatenate(arrs, axis=0 if arrs[0].ndim == 1 else 1)
