"""Type aliases for annotating code that uses ftrans (as ``jax.typing``).

The public API of ftrans is annotated with these names, and a type checker (mypy,
pyright) reads them through the ``py.typed`` marker the package ships.

Conventions
-----------
* **Inputs** that NumPy would accept are :data:`ArrayLike` (NumPy's own
  ``numpy.typing.ArrayLike``: arrays, nested sequences, Python scalars).
* **Results** are :data:`Array`, ``numpy.typing.NDArray[Any]``.  Under a transform
  (``grad``, ``vmap``, ``jit`` ...) the value a function sees and returns is a tracer
  that stands for such an array and has its methods and operators; statically it is
  typed as the array it stands for, as ``jax.Array`` types JAX's tracers.
* **Pytrees** are :data:`PyTree` (``Any``): JAX's own annotations use ``Any`` for a
  pytree, since any registered container type may be one.
* Functions that transforms take and return are ``Callable[..., Any]``, as in JAX.

Examples
--------
>>> import numpy as np
>>> import ftrans.numpy as fnp
>>> from ftrans.typing import Array, ArrayLike
>>> def loss(w: ArrayLike) -> Array:
...     return fnp.sum(fnp.sin(w) ** 2)
>>> float(loss(np.zeros(3)))
0.0
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray  # NumPy's generic array type: NDArray[np.float64]

__all__ = ["Array", "ArrayLike", "DTypeLike", "NDArray", "PyTree", "Shape", "ShapeLike",
           "Axis", "Scalar", "Fun", "Key"]

#: What NumPy accepts as an array: an array, a nested sequence, a Python or NumPy scalar
#: (``numpy.typing.ArrayLike``).
ArrayLike: TypeAlias = npt.ArrayLike
#: What NumPy accepts as a dtype: a ``numpy.dtype``, a scalar type, a name (``"float32"``)
#: (``numpy.typing.DTypeLike``; None, "the default", is not part of it: write
#: ``DTypeLike | None``).
DTypeLike: TypeAlias = npt.DTypeLike
#: An array result: ``numpy.ndarray`` (``cupy.ndarray`` on the GPU), or a tracer
#: standing for one under a transform.
Array: TypeAlias = NDArray[Any]
#: A nested container (tuple, list, dict, None, registered class) of arrays/scalars.
PyTree: TypeAlias = Any
#: A concrete shape.
Shape: TypeAlias = tuple[int, ...]
#: A shape as NumPy accepts it: one int or a sequence of ints.
ShapeLike: TypeAlias = int | Sequence[int]
#: An axis argument of a reduction: one axis, several, or None for all.
Axis: TypeAlias = int | Sequence[int] | None
#: A Python or NumPy scalar.
Scalar: TypeAlias = bool | int | float | complex | np.generic
#: A function a transform takes or returns.
Fun: TypeAlias = Callable[..., Any]
#: A PRNG key of :mod:`ftrans.random` (a uint32 array of shape ``(2,)``).
Key: TypeAlias = NDArray[np.uint32]
