"""Comparisons, logical operations and predicates: primitives with no derivative.

They are created with ``differentiable=False``: transforms pass their outputs on as
constants (a boolean has no tangent space).  ``floor``, ``ceil`` and ``round`` are
differentiable with derivative 0 almost everywhere (JAX's and PyTorch's choice),
so they get zero rules instead, and so does ``floor_divide``.
"""
from __future__ import annotations

from ..core import Primitive, zero
from ..kernels import backend_for
from ._rules import def_elementwise, elementwise_abstract_eval, batch_elementwise

__all__ = ["eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
           "logical_not", "isfinite", "isnan", "isinf", "floor", "ceil", "round", "floor_divide",
           "LOGIC_PRIMITIVES"]

LOGIC_PRIMITIVES: dict = {}


def _bool_abstract_eval(*avals, **params):
    from ..core import ShapedArray
    return ShapedArray(elementwise_abstract_eval(*avals).shape, bool)


def _nondiff(name, np_name, nargs):
    p = Primitive(name, differentiable=False)

    def impl(*args):
        return getattr(backend_for(*args).xp, np_name)(*args)
    p.impl = impl
    p.abstract_eval = _bool_abstract_eval
    p.batch = lambda vals, dims: batch_elementwise(p, vals, dims)
    LOGIC_PRIMITIVES[name] = p
    bind = p.bind

    def op(*args):
        if len(args) != nargs:
            raise TypeError(f"{name} takes {nargs} argument(s), got {len(args)}")
        return bind(*args)
    op.__name__ = name
    op.__doc__ = f"Elementwise ``numpy.{np_name}``; boolean result, no derivative."
    return p, op


eq_p, eq = _nondiff("eq", "equal", 2)
ne_p, ne = _nondiff("ne", "not_equal", 2)
lt_p, lt = _nondiff("lt", "less", 2)
le_p, le = _nondiff("le", "less_equal", 2)
gt_p, gt = _nondiff("gt", "greater", 2)
ge_p, ge = _nondiff("ge", "greater_equal", 2)
logical_and_p, logical_and = _nondiff("logical_and", "logical_and", 2)
logical_or_p, logical_or = _nondiff("logical_or", "logical_or", 2)
logical_xor_p, logical_xor = _nondiff("logical_xor", "logical_xor", 2)
logical_not_p, logical_not = _nondiff("logical_not", "logical_not", 1)
isfinite_p, isfinite = _nondiff("isfinite", "isfinite", 1)
isnan_p, isnan = _nondiff("isnan", "isnan", 1)
isinf_p, isinf = _nondiff("isinf", "isinf", 1)


def _zero_derivative(name, np_name):
    p = Primitive(name)

    def impl(x):
        return getattr(backend_for(x).xp, np_name)(x)
    def_elementwise(p, impl, [lambda t, ans, x: zero], [lambda ct, ans, x: zero])
    LOGIC_PRIMITIVES[name] = p
    bind = p.bind

    def op(x):
        return bind(x)
    op.__name__ = name
    op.__doc__ = f"Elementwise ``numpy.{np_name}``; derivative 0 (where it exists)."
    return p, op


floor_p, floor = _zero_derivative("floor", "floor")

# floor_divide: piecewise constant in both operands (NumPy's exact, fmod-based quotient).
floor_divide_p = Primitive("floor_divide")
def_elementwise(floor_divide_p, lambda x, y: backend_for(x, y).binary("floordiv", x, y),
                [lambda t, ans, x, y: zero, lambda t, ans, x, y: zero],
                [lambda ct, ans, x, y: zero, lambda ct, ans, x, y: zero])
LOGIC_PRIMITIVES["floor_divide"] = floor_divide_p


def floor_divide(x, y):
    """Elementwise ``numpy.floor_divide``; derivative 0 (where it exists)."""
    return floor_divide_p.bind(x, y)
ceil_p, ceil = _zero_derivative("ceil", "ceil")
round_p, round = _zero_derivative("round", "round")


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


def _set_rounding_abstract_evals():
    # the result dtype NumPy gives for integer/boolean operands (see elementwise.py)
    import numpy as np
    from .elementwise import _float_valued_abstract_eval
    for p, uf in ((floor_p, np.floor), (ceil_p, np.ceil), (round_p, np.round)):
        p.abstract_eval = _float_valued_abstract_eval(uf)


_set_rounding_abstract_evals()
