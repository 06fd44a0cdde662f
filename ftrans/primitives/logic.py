"""Comparisons, logical operations and predicates: primitives with no derivative.

They are created with ``differentiable=False``: transforms pass their outputs on as
constants (a boolean has no tangent space).  ``floor``, ``ceil`` and ``round`` are
differentiable with derivative 0 almost everywhere (JAX's and PyTorch's choice),
so they get zero rules instead, and so does ``floor_divide``.
"""
from __future__ import annotations

import numpy as np

from ..core import zero, ShapedArray
from ..kernels import backend_for
from ._rules import (def_elementwise, elementwise_abstract_eval, batch_elementwise,
                     float_valued_abstract_eval)
from ._base import (eq_p, ne_p, lt_p, le_p, gt_p, ge_p, logical_and_p, logical_or_p,
                    logical_xor_p, logical_not_p, isfinite_p, isnan_p, isinf_p, floor_p,
                    ceil_p, round_p, floor_divide_p, eq, ne, lt, le, gt, ge, logical_and,
                    logical_or, logical_xor, logical_not, isfinite, isnan, isinf, floor, ceil,
                    round, floor_divide)

__all__ = ["eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
           "logical_not", "isfinite", "isnan", "isinf", "floor", "ceil", "round", "floor_divide",
           "LOGIC_PRIMITIVES"]

LOGIC_PRIMITIVES: dict = {}


def _bool_abstract_eval(*avals, **params):
    return ShapedArray(elementwise_abstract_eval(*avals).shape, bool)


def _nondiff(p, op):
    np_name = op.np_name
    logical = np_name.startswith("logical_")

    def impl(*args):
        xp = backend_for(*args).xp
        if logical and xp is not np:
            # (CuPy's logical ufuncs take no complex operands: NumPy's truth value of a
            # complex number is ``z != 0``)
            args = [a != 0 if getattr(getattr(a, "dtype", None), "kind", "") == "c" else a
                    for a in args]
        return getattr(xp, np_name)(*args)
    p.impl = impl
    p.abstract_eval = _bool_abstract_eval
    p.batch = lambda vals, dims: batch_elementwise(p, vals, dims)
    LOGIC_PRIMITIVES[p.name] = p


for _p, _op in ((eq_p, eq), (ne_p, ne), (lt_p, lt), (le_p, le), (gt_p, gt), (ge_p, ge),
                (logical_and_p, logical_and), (logical_or_p, logical_or),
                (logical_xor_p, logical_xor), (logical_not_p, logical_not),
                (isfinite_p, isfinite), (isnan_p, isnan), (isinf_p, isinf)):
    _nondiff(_p, _op)


def _zero_derivative(p):
    name = p.name

    def impl(x):
        return getattr(backend_for(x).xp, name)(x)
    def_elementwise(p, impl, [lambda t, ans, x: zero], [lambda ct, ans, x: zero],
                    abstract_eval=float_valued_abstract_eval(getattr(np, name)))
    LOGIC_PRIMITIVES[name] = p


for _p in (floor_p, ceil_p, round_p):
    _zero_derivative(_p)

# floor_divide: piecewise constant in both operands (NumPy's exact, fmod-based quotient).
def_elementwise(floor_divide_p, lambda x, y: backend_for(x, y).binary("floordiv", x, y),
                [lambda t, ans, x, y: zero, lambda t, ans, x, y: zero],
                [lambda ct, ans, x, y: zero, lambda ct, ans, x, y: zero])
LOGIC_PRIMITIVES["floor_divide"] = floor_divide_p


# compiler lowering (ftrans.compiler; format in its module docstring): comparisons and
# logical operations read their operands in their common (promoted) dtype.
for _p, _nb, _cu, _cast in [
        (eq_p, "({0} == {1})", "({0} == {1})", "promote"),
        (ne_p, "({0} != {1})", "({0} != {1})", "promote"),
        (lt_p, "({0} < {1})", "({0} < {1})", "promote"),
        (le_p, "({0} <= {1})", "({0} <= {1})", "promote"),
        (gt_p, "({0} > {1})", "({0} > {1})", "promote"),
        (ge_p, "({0} >= {1})", "({0} >= {1})", "promote"),
        (logical_and_p, "({0} and {1})", "({0} && {1})", "bool"),
        (logical_or_p, "({0} or {1})", "({0} || {1})", "bool"),
        (logical_xor_p, "({0} != {1})", "({0} != {1})", "bool"),
        (logical_not_p, "(not {0})", "(!{0})", "bool"),
        (isfinite_p, "np.isfinite({0})", "isfinite({0})", "none"),
        (isnan_p, "np.isnan({0})", "isnan({0})", "none"),
        (isinf_p, "np.isinf({0})", "isinf({0})", "none"),
        (floor_p, "np.floor({0})", "floor({0})", "out"),
        (ceil_p, "np.ceil({0})", "ceil({0})", "out"),
        (round_p, "np.rint({0})", "rint({0})", "out"),
        (floor_divide_p, "np.floor_divide({0}, {1})", None, "out")]:
    _p.lowering = {"kind": "elementwise", "numba": _nb, "cuda": _cu, "complex": False,
                   "cast": _cast}
# NumPy's float16 floor_divide (npy_half_divmod) differs from float32's, rounded
floor_divide_p.lowering["float16"] = False
# complex operands on the CPU: these expressions give NumPy's results for complex too
# (the order comparisons, lexicographic in NumPy, do not)
for _p in (eq_p, ne_p, isfinite_p, isnan_p, isinf_p, logical_and_p, logical_or_p,
           logical_xor_p, logical_not_p):
    _p.lowering["numba_complex"] = _p.lowering["numba"]
