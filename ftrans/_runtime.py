"""``block_until_ready`` and ``typeof``: names JAX code calls, for ftrans's eager arrays.

ftrans computes eagerly (NumPy and numba on the CPU; CuPy's stream on the GPU), so an
array is ready when a function returns it on the CPU; on the GPU the device is
synchronized.
"""
from __future__ import annotations

from .core import ShapedArray
from .core.abstract import aval_of
from .core.pytree import tree_leaves
from .kernels import backend_for
from .typing import ArrayLike, PyTree

__all__ = ["block_until_ready", "typeof"]


def block_until_ready(x: PyTree) -> PyTree:
    """Wait until the arrays in the pytree ``x`` are computed (``jax.block_until_ready``).

    A no-op for NumPy arrays (computed when returned); when a leaf is a CuPy array the
    current CUDA stream is synchronized.

    Parameters
    ----------
    x : PyTree
        Arrays (or a pytree of them).

    Returns
    -------
    PyTree
        ``x`` itself.

    Examples
    --------
    >>> import numpy as np
    >>> tree = {"w": np.ones(2)}
    >>> block_until_ready(tree) is tree
    True
    """
    for leaf in tree_leaves(x):
        if hasattr(leaf, "__cuda_array_interface__"):
            backend_for(leaf).xp.cuda.get_current_stream().synchronize()  # CuPy's
            break
    return x


def typeof(x: ArrayLike) -> ShapedArray:
    """The abstract value of ``x`` (JAX's ``jax.typeof``).

    Parameters
    ----------
    x : array, tracer or Python scalar
        The value.

    Returns
    -------
    ShapedArray
        Its ``shape``, ``dtype`` and ``weak_type`` (true for a Python scalar).

    Examples
    --------
    >>> import numpy as np
    >>> typeof(np.ones((2, 3), np.float32))
    ShapedArray((2, 3), float32)
    >>> typeof(1.0).weak_type
    True
    """
    aval = getattr(x, "aval", None)
    if isinstance(aval, ShapedArray):
        return aval
    return aval_of(x)
