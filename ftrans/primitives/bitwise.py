"""``integer_elementwise``: NumPy's integer-only elementwise functions (no derivative).

One primitive with the NumPy ufunc's name as its parameter ``fn``: ``bitwise_and``,
``bitwise_or``, ``bitwise_xor``, ``invert``, ``left_shift``, ``right_shift``,
``bitwise_count``, ``gcd`` and ``lcm``.  They are defined on integer (and, for the
bitwise logic, boolean) operands only and return integers, so they have no tangent
space: the primitive is created with ``differentiable=False`` (transforms pass its
outputs on as constants, like the comparisons of :mod:`.logic`).

Why not rows of the operation table (:mod:`.optable`): a row is a differentiable or
predicate function of inexact inputs; its generated facets (fused derivative kernels,
test domains, torch methods, the breadth rows) sample floating-point inputs, which these
functions reject.  One parametrized primitive keeps them out of those generators.

Impl: the backend's NumPy-compatible ufunc (``numpy``/``cupy``).  Abstract evaluation:
NumPy's result dtype for the operands' dtypes (NEP 50: Python ints are weak), and a
``TypeError`` for inexact operands.  Batching: the elementwise rule.  Lowering: an
elementwise loop on the CPU, one expression per ``fn`` (the operands converted to their
common dtype first, as NumPy's loops do): ``&``, ``|``, ``^``, and for the others NumPy's
algorithms in ``ftrans/compiler/_numba_ufunc_support.py`` (a shift by the width or more gives 0,
or the sign fill; ``bitwise_count`` counts ``|x|``; ``gcd``/``lcm`` of the magnitudes,
wrapping as NumPy's do); no GPU lowering (the impl runs there).
"""
from __future__ import annotations

import numpy as np

from ..core import Primitive, ShapedArray
from ..core.dtypes import as_numpy_dtype
from ..kernels import backend_for
from ._rules import batch_elementwise, elementwise_abstract_eval, zero_samples

__all__ = ["integer_elementwise", "INTEGER_FUNCTIONS"]

#: the NumPy ufuncs this primitive computes: name -> number of operands
INTEGER_FUNCTIONS = {"bitwise_and": 2, "bitwise_or": 2, "bitwise_xor": 2, "invert": 1,
                     "left_shift": 2, "right_shift": 2, "bitwise_count": 1, "gcd": 2,
                     "lcm": 2}

integer_elementwise_p = Primitive("integer_elementwise", differentiable=False)


@integer_elementwise_p.def_impl
def _impl(*args, fn):
    return getattr(backend_for(*args).xp, fn)(*args)


@integer_elementwise_p.def_abstract_eval
def _abstract_eval(*avals, fn):
    shape = elementwise_abstract_eval(*avals).shape
    out = getattr(np, fn)(*zero_samples(avals))
    return ShapedArray(shape, np.asarray(out).dtype)


integer_elementwise_p.batch = lambda vals, dims, **params: batch_elementwise(
    integer_elementwise_p, vals, dims, **params)
integer_elementwise_p.lowering = {
    "kind": "elementwise", "numba_param": "fn", "cuda": None, "complex": False,
    "cast": "promote",
    "numba": {"bitwise_and": "({0} & {1})", "bitwise_or": "({0} | {1})",
              "bitwise_xor": "({0} ^ {1})", "invert": "_bit_not({0})",
              "left_shift": "_lshift({0}, {1})", "right_shift": "_rshift({0}, {1})",
              "bitwise_count": "_popcount({0})", "gcd": "_gcd({0}, {1})",
              "lcm": "_lcm({0}, {1})"}}


def integer_elementwise(fn, *args):
    """``numpy.<fn>(*args)`` for an integer function ``fn`` of :data:`INTEGER_FUNCTIONS`.

    Raises:
        ValueError: ``fn`` is not one of them, or the number of operands is wrong.
        TypeError: an operand is not integer or boolean (``bool`` is refused by
            ``gcd``, ``lcm`` and the shifts, as in NumPy).
    """
    if fn not in INTEGER_FUNCTIONS:
        raise ValueError(f"integer_elementwise: unknown function {fn!r}; expected one of "
                         f"{sorted(INTEGER_FUNCTIONS)}")
    if len(args) != INTEGER_FUNCTIONS[fn]:
        raise ValueError(f"{fn} takes {INTEGER_FUNCTIONS[fn]} operand(s), got {len(args)}")
    for a in args:
        dt = np.dtype(type(a)) if isinstance(a, (bool, int)) else getattr(a, "dtype", None)
        dt = None if dt is None else as_numpy_dtype(dt)
        if dt is None or dt.kind not in "biu" or (
                dt.kind == "b" and fn in ("left_shift", "right_shift", "gcd", "lcm")):
            got = type(a).__name__ if dt is None else str(dt)
            raise TypeError(
                f"{fn}: expected integer{'' if fn in ('gcd', 'lcm') or 'shift' in fn else ' or boolean'}"
                f" operands (NumPy defines {fn} for integers only), got {got}; convert with "
                f"astype(int) first if truncation is intended")
    return integer_elementwise_p.bind(*args, fn=fn)
