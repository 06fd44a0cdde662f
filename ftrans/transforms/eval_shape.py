"""``eval_shape``: the shapes and dtypes of a function's results, computing nothing
(JAX's ``jax.eval_shape``).

The function is staged (:func:`ftrans.core.ir.stage`) on abstract values built from the
arguments' shapes and dtypes: staging evaluates each primitive's abstract-evaluation
rule only, so no primitive's impl runs and no array is allocated for the results.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import ShapedArray, Tracer
from ..core.abstract import aval_of
from ..core.dtypes import as_numpy_dtype
from ..core.ir import stage
from ..core.pytree import tree_flatten, tree_unflatten
from ..primitives.callback import ShapeDtypeStruct
from ..typing import PyTree

__all__ = ["eval_shape"]


def _leaf_aval(x: Any, k: int) -> ShapedArray:
    if isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic):
        return aval_of(x)  # a Python scalar: weakly typed, as when jit stages it
    if isinstance(x, Tracer):
        return ShapedArray(tuple(x.shape), x.dtype)
    shape, dtype = getattr(x, "shape", None), getattr(x, "dtype", None)
    if shape is None or dtype is None:
        raise TypeError(f"eval_shape: argument leaf {k} must be an array, a Python scalar or "
                        f"a ShapeDtypeStruct (anything with .shape and .dtype); got "
                        f"{type(x).__name__}. Pass non-array arguments through a closure "
                        "(functools.partial) instead")
    return ShapedArray(tuple(int(d) for d in shape), as_numpy_dtype(dtype))


def eval_shape(fun: Callable[..., Any], *args: PyTree, **kwargs: PyTree) -> PyTree:
    """The shapes and dtypes of ``fun(*args, **kwargs)``'s results, without computing them.

    Parameters
    ----------
    fun : callable
        Takes pytrees of arrays and returns a pytree of arrays.
    *args : PyTree
        Pytrees whose leaves are arrays, Python scalars (weakly typed) or
        :class:`~ftrans.ShapeDtypeStruct` (any object with ``.shape`` and ``.dtype``);
        only their shapes and dtypes are used.
    **kwargs : PyTree
        Keyword arguments, likewise.

    Returns
    -------
    PyTree
        ``fun``'s output structure with a :class:`~ftrans.ShapeDtypeStruct` at each leaf.

    Raises
    ------
    TypeError
        For an argument leaf without ``.shape`` and ``.dtype``.
    ConcretizationError
        If ``fun`` needs a value (Python control flow on an argument), as under
        :func:`ftrans.jit`.

    Notes
    -----
    Follows ``jax.eval_shape``
    (https://docs.jax.dev/en/latest/_autosummary/jax.eval_shape.html): ``fun`` is
    staged as :func:`ftrans.jit` stages it, so only abstract evaluation rules run.

    Examples
    --------
    >>> import ftrans, ftrans.numpy as fnp
    >>> x = ftrans.ShapeDtypeStruct((2000, 3), "float32")
    >>> ftrans.eval_shape(lambda a: fnp.sum(fnp.sin(a), axis=0), x)
    ShapeDtypeStruct(shape=(3,), dtype=float32)
    """
    if not callable(fun):
        raise TypeError(f"eval_shape: fun must be callable, got {type(fun).__name__}")
    leaves, in_tree = tree_flatten((args, kwargs))
    avals = [_leaf_aval(x, k) for k, x in enumerate(leaves)]
    out_tree: list[Any] = []

    def flat_fun(*xs: Any) -> list[Any]:
        a, kw = tree_unflatten(in_tree, list(xs))
        out_leaves, tree = tree_flatten(fun(*a, **kw))
        out_tree.append(tree)
        return out_leaves

    ir, _ = stage(flat_fun, avals, name=f"eval_shape({getattr(fun, '__name__', 'fun')})")
    return tree_unflatten(out_tree[0], [ShapeDtypeStruct(v.aval.shape, v.aval.dtype)
                                        for v in ir.out_vars])
