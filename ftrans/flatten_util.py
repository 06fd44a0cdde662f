"""Flatten a pytree of arrays into one vector and back (JAX's ``jax.flatten_util``).

Useful to hand a model's parameters to a routine that wants a flat vector (an optimizer
from SciPy, a Hessian-vector product, a finite-difference check).  Both directions are
compositions of ``ftrans.numpy`` operations, so they differentiate, batch and stage like
any other code.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import numpy as fnp
from .core import result_type, is_inexact
from .core.abstract import dtype_of
from .core.pytree import tree_flatten, tree_unflatten
from .typing import Array, PyTree

__all__ = ["ravel_pytree"]


def _promote(dtypes: list[np.dtype[Any]]) -> np.dtype[Any]:
    """JAX's promotion of the leaves' dtypes (its lattice puts every integer below
    every inexact dtype; see the docstring of :func:`ravel_pytree`)."""
    if not dtypes:
        return np.dtype(np.float64)
    inexact = [d for d in dtypes if is_inexact(d)]
    return result_type(*(inexact or dtypes))


def ravel_pytree(pytree: PyTree) -> tuple[Array, Callable[[Array], PyTree]]:
    """Ravel a pytree of arrays and scalars into a 1-D array (JAX's ``ravel_pytree``).

    Parameters
    ----------
    pytree : PyTree
        Leaves are arrays, tracers or Python/NumPy scalars.

    Returns
    -------
    flat : ndarray, shape (n,)
        The leaves raveled in C order and concatenated in flattening order, of the dtype
        that promotes the leaves' dtypes as JAX does (by dtype: a Python float counts as
        float64, ftrans's default): integer and boolean leaves join the floating or
        complex leaves' dtype (float32 and int32 leaves give float32, where NumPy would
        give float64), inexact dtypes promote among themselves, integers alone by
        NumPy's table.  An empty pytree gives an empty float64 vector (JAX: float32,
        its default).
    unravel : callable
        ``unravel(v)`` maps a vector of shape ``(n,)`` back to a pytree of the original
        structure, each leaf reshaped and cast back to its own dtype.  When all leaves
        share one dtype it accepts any dtype (as JAX; e.g. a complex tangent).

    Raises
    ------
    ValueError
        (from ``unravel``) If ``v`` does not have shape ``(n,)``.
    TypeError
        (from ``unravel``) If the leaves had several dtypes and ``v``'s dtype is not
        ``flat``'s (cast it first), as JAX.

    Examples
    --------
    >>> import numpy as np
    >>> flat, unravel = ravel_pytree({"w": np.ones((2, 2)), "b": np.zeros(2)})
    >>> flat
    array([0., 0., 1., 1., 1., 1.])
    >>> unravel(np.arange(6.0))["w"]
    array([[2., 3.],
           [4., 5.]])
    """
    leaves, treedef = tree_flatten(pytree)
    shapes = [tuple(np.shape(x)) for x in leaves]
    sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
    from_dtypes = [dtype_of(x) for x in leaves]
    to_dtype = _promote(from_dtypes)
    single = all(d == to_dtype for d in from_dtypes)
    n = sum(sizes)
    if leaves:
        flat = fnp.concatenate([fnp.ravel(fnp.asarray(x)).astype(to_dtype) if not single
                                else fnp.ravel(fnp.asarray(x)) for x in leaves])
    else:
        flat = np.zeros(0, to_dtype)
    offsets = np.cumsum([0] + sizes)

    def unravel(v: Array) -> PyTree:
        shape = tuple(np.shape(v))
        if shape != (n,):
            raise ValueError(f"unravel: expected a vector of shape ({n},) (the raveled "
                             f"pytree's), got an array of shape {shape}")
        if not single and dtype_of(v) != to_dtype:
            raise TypeError(f"unravel: expected an array of dtype {to_dtype} (the raveled "
                            f"pytree's), got {dtype_of(v)}; cast it with .astype first")
        parts = [fnp.reshape(v[offsets[i]:offsets[i + 1]], s) for i, s in enumerate(shapes)]
        if not single:
            parts = [p.astype(d) for p, d in zip(parts, from_dtypes)]
        return tree_unflatten(treedef, parts)

    return flat, unravel
