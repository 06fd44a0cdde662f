"""Array-namespace backends: the kernels of ``ftrans.kernels.cpu`` for arrays that are
neither NumPy nor CuPy.

Two kinds of backend object live here (one file each: ``_xp_dask.py``,
``_xp_array_api.py``; what they share is in ``_xp_base.py``), both exposing the same names as the
``cpu``/``gpu`` modules (``unary``, ``binary``, ``unary_vjp``, ``sincos``,
``scatter_add``, ``reduce_sum``/``reduce_max``/``reduce_min``, ``matmul``,
``tensordot``, ``einsum``, ``where`` and the NumPy-named namespace ``xp``):

* :class:`DaskBackend` for ``dask.array.Array``.  Every kernel builds a lazy Dask
  graph; elementwise kernels run the CPU backend's NumPy/numba kernels on each chunk
  (``dask.array.core.elemwise``), reductions and contractions are Dask's own (tree
  reductions).  NumPy arrays and scalars combine with Dask arrays as Dask itself
  allows (a NumPy operand becomes a one-chunk constant of the graph).
* :class:`ArrayAPIBackend` for any other array with ``__array_namespace__`` (the
  Python array API standard), e.g. ``array_api_strict``.  Kernels call only the
  standard's functions on the array's own namespace.

``xp`` is a NumPy-named view of the namespace (``xp.concatenate`` is the standard's
``concat``, ``xp.cumsum`` its ``cumulative_sum`` ...): primitives written against
NumPy's names run unchanged.  A function the namespace lacks raises
:class:`UnsupportedOperation` (a ``NotImplementedError``) naming the function and the
array type; the primitive that asked for it adds its own name (``Primitive.bind``).

Nothing here converts a foreign array to NumPy, and nothing imports Dask or
``array_api_compat`` until an array of theirs is seen.
"""
from __future__ import annotations

from ._xp_array_api import ArrayAPIBackend
from ._xp_array_api import _BINARY_STD, _UNARY_STD  # noqa: F401  (the op-table test reads them)
from ._xp_base import MixedArrayTypesError, UnsupportedOperation, type_name
from ._xp_dask import DaskBackend

__all__ = ["UnsupportedOperation", "MixedArrayTypesError", "DaskBackend", "ArrayAPIBackend",
           "type_name"]
