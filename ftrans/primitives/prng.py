"""The counter-based random-number primitive ``threefry2x32`` (no derivative).

``threefry2x32(k0, k1, x0, x1) -> (y0, y1)`` is the Threefry-2x32 block cipher with 20
rounds: the 64-bit key ``(k0, k1)`` encrypts the 64-bit counter ``(x0, x1)``, elementwise
over the broadcast shape of the four ``uint32`` operands.  Source: J. K. Salmon, M. A.
Moraes, R. O. Dror, D. E. Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC'11
(2011), section 3 (Threefry: Threefish's rounds with the key schedule of Skein, rotation
constants 13 15 26 6 17 29 16 24, key parity ``0x1BD11BDA``); the round structure and
the operand order are those of JAX's ``threefry2x32_p`` (``jax._src.prng``), so the
known-answer vectors of the Random123 distribution (``kat_vectors``:
``threefry2x32_20``) and JAX's raw keys reproduce bit for bit.

It is the one primitive under :mod:`ftrans.random`; sampling is a composition of other
primitives on its outputs.  Rules:

* impl: :mod:`ftrans.kernels.prng_cpu`: for NumPy operands one numba loop over the
  elements (the 20 rounds in registers), for CuPy and other array-API operands their
  ``xp``'s whole-array ``uint32`` arithmetic (wrapping modulo ``2**32``);
* abstract eval: two ``uint32`` arrays of the broadcast shape;
* batching: elementwise (batched operands moved to the front and aligned);
* no JVP/VJP: created with ``differentiable=False`` (integer bits have no tangent
  space), as the comparisons and ``argmax`` are;
* lowering: elementwise on the CPU (the rounds of
  :func:`ftrans.kernels.prng_cpu.threefry_words` inside the fused loop, both words one
  tuple); on the GPU the impl runs between segments (the same numbers either way).

>>> import numpy as np
>>> y0, y1 = threefry2x32(*np.zeros(4, np.uint32))
>>> hex(int(y0)), hex(int(y1))
('0x6b200159', '0x99ba4efe')
"""
from __future__ import annotations

import numpy as np

from ..core import Primitive, ShapedArray
from ..core.dtypes import as_numpy_dtype
from ..kernels import backend_for, cpu, prng_cpu
from ._rules import batch_size, move_to_front
from .structural import reshape

__all__ = ["threefry2x32", "threefry2x32_p"]

threefry2x32_p = Primitive("threefry2x32", differentiable=False, multiple_results=True)


def _check_dtypes(avals):
    for i, a in enumerate(avals):
        if as_numpy_dtype(a.dtype) != np.uint32:
            raise TypeError(f"threefry2x32: operand {i} must have dtype uint32, got "
                            f"{a.dtype}; convert keys and counters with "
                            "astype(np.uint32)")


@threefry2x32_p.def_impl
def _impl(k0, k1, x0, x1):
    args = [v if hasattr(v, "dtype") else np.asarray(v) for v in (k0, k1, x0, x1)]
    _check_dtypes(args)
    backend = backend_for(*args)
    if backend is cpu:
        return prng_cpu.threefry2x32(*args)
    return prng_cpu.threefry2x32_xp(backend.xp, *args)


@threefry2x32_p.def_abstract_eval
def _abstract_eval(k0, k1, x0, x1):
    _check_dtypes((k0, k1, x0, x1))
    shape = np.broadcast_shapes(*(tuple(a.shape) for a in (k0, k1, x0, x1)))
    out = ShapedArray(shape, np.uint32)
    return out, out


threefry2x32_p.lowering = {"kind": "elementwise", "numba": "_threefry({0}, {1}, {2}, {3})",
                           "cuda": None, "complex": False, "cast": "none"}


@threefry2x32_p.def_batch
def _batch(vals, dims):
    # batched operands: batch axis in front, size-1 axes so their per-example axes line
    # up (NumPy broadcasting from the right); unbatched operands broadcast as they are
    size = batch_size(vals, dims)
    rank = max(len(v.shape) - (d is not None) for v, d in zip(vals, dims))
    args = []
    for v, d in zip(vals, dims):
        if d is not None:
            v = move_to_front(v, d)
            v = reshape(v, (size,) + (1,) * (rank + 1 - len(v.shape)) + tuple(v.shape[1:]))
        args.append(v)
    return threefry2x32_p.bind(*args), (0, 0)


def threefry2x32(k0, k1, x0, x1):
    """Threefry-2x32 (20 rounds) of the counters ``(x0, x1)`` under the key ``(k0, k1)``.

    Parameters
    ----------
    k0, k1, x0, x1 : uint32 arrays (or tracers), broadcastable together.

    Returns
    -------
    (y0, y1) : two uint32 arrays of the broadcast shape.

    Raises
    ------
    TypeError
        If an operand is not ``uint32``.

    Source: Salmon et al. 2011, "Parallel random numbers: as easy as 1, 2, 3"; operand
    order of JAX's ``threefry2x32_p``.

    >>> import numpy as np
    >>> m = np.uint32(0xFFFFFFFF)
    >>> [hex(int(v)) for v in threefry2x32(m, m, m, m)]
    ['0x1cb996fc', '0xbb002be7']
    """
    return threefry2x32_p.bind(k0, k1, x0, x1)
