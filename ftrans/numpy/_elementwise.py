"""Elementwise NumPy functions (``ftrans.numpy``): the operation table's rows (generated,
:data:`ROW_FUNCTIONS`) and the ufuncs written as compositions of primitives.

Broadcasting and promotion follow NumPy 2 (NEP 50: Python scalars are weak).
"""
from __future__ import annotations

import numpy as np

from ..core import Tracer, result_type
from ..core.dtypes import kind_of as _kind_of
from .. import primitives as P
from ..kernels import foreign_array as _foreign_array
from ._args import _arr, _arrs, _ndarray


def _unary(prim_op, name, doc=None):
    def f(x):
        return prim_op(_arr(x))
    f.__name__ = name
    f.__doc__ = doc or f"Elementwise ``numpy.{name}``, differentiable."
    return f


def _binary(prim_op, name):
    def f(x1, x2):
        return prim_op(_arr(x1), _arr(x2))
    f.__name__ = name
    f.__doc__ = f"Elementwise ``numpy.{name}`` with broadcasting, differentiable."
    return f


def _from_row(op):
    """The ``ftrans.numpy`` function of an operation-table row (``numpy.<name>``'s
    signature for a ufunc of one or two operands)."""
    f = (_unary if op.arity == 1 else _binary)(getattr(P, op.name), op.numpy)
    diff = ("derivative 0 almost everywhere" if op.deriv and all(d == "0" for d in op.deriv)
            else "differentiable in the first result" if op.outputs > 1
            else "differentiable" if op.differentiable else "no derivative (boolean result)")
    f.__doc__ = (f"{op.doc}\n\nElementwise ``numpy.{op.numpy}`` (NumPy broadcasting and "
                 f"promotion); {diff}.  Generated from the operation table "
                 f"(``ftrans/primitives/optable.py``).")
    return f


#: ``ftrans.numpy`` name -> function, for every row of the operation table
ROW_FUNCTIONS = {}
for _op in P.optable.ROWS:
    if _op.numpy:
        _f = _from_row(_op)
        for _name in (_op.numpy,) + _op.numpy_aliases:
            ROW_FUNCTIONS[_name] = _f
globals().update(ROW_FUNCTIONS)
del _op

add = _binary(P.add, "add")
subtract = _binary(P.sub, "subtract")
multiply = _binary(P.mul, "multiply")
divide = _binary(P.div, "divide")
true_divide = divide
maximum = _binary(P.maximum, "maximum")
minimum = _binary(P.minimum, "minimum")
negative = _unary(P.neg, "negative")
absolute = _unary(P.abs, "absolute", "Elementwise absolute value; derivative 0 at 0.")
abs = absolute


def fabs(x):
    """``numpy.fabs``: the absolute value as a floating-point number (float64 for ints)."""
    out = P.abs(_arr(x))
    if _kind_of(out) not in "fc":
        out = P.convert_element_type(out, np.fabs(np.zeros((), out.dtype)).dtype)
    return out


sign = _unary(P.sign, "sign")
conjugate = _unary(P.conj, "conjugate")
conj = conjugate
real = _unary(P.real, "real")
imag = _unary(P.imag, "imag")
floor = _unary(P.floor, "floor")
ceil = _unary(P.ceil, "ceil")
isfinite = _unary(P.isfinite, "isfinite")
isnan = _unary(P.isnan, "isnan")
isinf = _unary(P.isinf, "isinf")
logical_not = _unary(P.logical_not, "logical_not")
equal = _binary(P.eq, "equal")
not_equal = _binary(P.ne, "not_equal")
less = _binary(P.lt, "less")
less_equal = _binary(P.le, "less_equal")
greater = _binary(P.gt, "greater")
greater_equal = _binary(P.ge, "greater_equal")
logical_and = _binary(P.logical_and, "logical_and")
logical_or = _binary(P.logical_or, "logical_or")
logical_xor = _binary(P.logical_xor, "logical_xor")


def positive(x):
    """``+x`` (a copy for NumPy arrays)."""
    x = _arr(x)
    return x if isinstance(x, Tracer) or _foreign_array(x) else np.positive(x)


def power(x1, x2):
    """``x1 ** x2``; a Python-int exponent uses the exact integer power."""
    x1 = _arr(x1)
    if isinstance(x2, (int, np.integer)) and not isinstance(x2, bool) and \
            (_kind_of(x1) if hasattr(x1, "dtype") else "f") in "fc":
        return P.integer_pow(x1, int(x2))
    return P.pow(x1, _arr(x2))


pow = power  # NumPy 2's name


def square(x):
    return P.integer_pow(_arr(x), 2)


def reciprocal(x):
    x = _arr(x)
    out = P.div(1.0, x)
    dt = result_type(x)
    if dt.kind not in "fc":  # NumPy: integer reciprocal, truncated toward zero
        out = P.convert_element_type(out, np.reciprocal(np.ones((), dt)).dtype)
    return out


def cbrt(x):
    x = _arr(x)
    return P.mul(P.sign(x), P.pow(P.abs(x), 1.0 / 3.0))


def exp2(x):
    return P.pow(2.0, _arr(x))


def log2(x):
    return P.div(P.log(_arr(x)), np.log(2.0).item())


def log10(x):
    return P.div(P.log(_arr(x)), np.log(10.0).item())


def _as_float_result(*xs):
    """Operands of a composite float ufunc cast to its result dtype first, so every
    intermediate has the final precision (``float32 + Python float`` stays float32,
    ``float32 + float64`` is computed in float64, as NumPy does)."""
    xs = _arrs(*xs)
    dt = result_type(*xs, 0.0)
    return [np.asarray(x, dt) if isinstance(x, (bool, int, float, complex))
            else P.convert_element_type(x, dt) for x in xs]


def logaddexp2(x1, x2):
    ln2 = np.log(2.0).item()
    x1, x2 = _as_float_result(x1, x2)
    return P.div(P.logaddexp(P.mul(x1, ln2), P.mul(x2, ln2)), ln2)


def arcsinh(x):
    x = _arr(x)
    return P.log(P.add(x, P.sqrt(P.add(P.mul(x, x), 1.0))))


def arccosh(x):
    x = _arr(x)
    return P.log(P.add(x, P.sqrt(P.sub(P.mul(x, x), 1.0))))


def arctanh(x):
    x = _arr(x)
    return P.mul(0.5, P.log(P.div(P.add(1.0, x), P.sub(1.0, x))))


asinh, acosh, atanh = arcsinh, arccosh, arctanh  # NumPy 2's names


def float_power(x1, x2):
    """``numpy.float_power``: ``x1 ** x2`` computed in float64 (complex128 for complex
    operands), whatever the operands' dtypes; differentiable as ``power``.

    Returns:
        Array of the broadcast shape, dtype float64 or complex128.
    """
    x1, x2 = _ndarray(x1), _ndarray(x2)
    dt = np.dtype(np.complex128 if "c" in (_kind_of(x1), _kind_of(x2)) else np.float64)
    return P.pow(P.convert_element_type(x1, dt), P.convert_element_type(x2, dt))


def _sqrt_flat_at_0(v):
    """``sqrt(v)`` (``v >= 0``) whose derivative is 0, not inf, where ``v == 0``.

    For the norm-like functions ``std``, ``nanstd`` and ``hypot``, whose minimum-norm
    subgradient at their kink is 0 (DESIGN.md: ``v``'s own derivative vanishes there,
    and ``inf * 0`` would be NaN).  Both ``where`` guards keep every derivative finite
    (no "divide by zero" warning) and exact, to any order, where ``v > 0``.
    """
    at0 = P.eq(v, 0)
    return P.where(at0, 0.0, P.sqrt(P.where(at0, 1.0, v)))


def hypot(x1, x2):
    """``numpy.hypot``; the derivative at ``(0, 0)`` is ``(0, 0)`` (the minimum-norm
    subgradient)."""
    x1, x2 = _as_float_result(x1, x2)
    return _sqrt_flat_at_0(P.add(P.mul(x1, x1), P.mul(x2, x2)))


def deg2rad(x):
    return P.mul(_arr(x), np.pi / 180.0)


def rad2deg(x):
    return P.mul(_arr(x), 180.0 / np.pi)


radians = deg2rad
degrees = rad2deg


def angle(z, deg=False):
    z = _arr(z)
    a = P.arctan2(P.imag(z), P.real(z))
    return rad2deg(a) if deg else a


def sinc(x):
    """``sin(pi x) / (pi x)`` with the limit 1 at 0.

    For ``|pi x| < 0.1`` the Maclaurin series to ``u**8`` is used (error < 1e-17), so
    every derivative up to order 8 is right at and near 0 (a constant 1 at 0 would give
    ``sinc''(0) = 0`` instead of ``-pi**2 / 3``); the double ``where`` keeps the other
    branch finite there.
    """
    x = _arr(x)
    u = P.mul(x, np.pi)
    small = P.lt(P.abs(u), 0.1)
    safe = P.where(small, 1.0, u)
    u2 = P.mul(u, u)
    series = P.sub(1.0, P.mul(P.div(u2, 6.0), P.sub(1.0, P.mul(P.div(u2, 20.0), P.sub(
        1.0, P.mul(P.div(u2, 42.0), P.sub(1.0, P.div(u2, 72.0))))))))
    return P.where(small, series, P.div(P.sin(safe), safe))


def round(a, decimals=0):
    if decimals == 0:
        return P.round(_arr(a))
    scale = 10.0 ** decimals
    return P.div(P.round(P.mul(_arr(a), scale)), scale)


around = round


def floor_divide(x1, x2):
    """``x1 // x2`` exactly as NumPy (``2.0 // 0.4 == 4.0``); derivative 0."""
    return P.floor_divide(*_arrs(x1, x2))


def divmod(x1, x2):  # noqa: A001  (numpy.divmod)
    """``numpy.divmod``: ``(floor_divide(x1, x2), remainder(x1, x2))``.

    Derivatives: 0 for the quotient; for the remainder 1 in ``x1`` and
    ``-floor(x1 / x2)`` in ``x2`` (the ``remainder`` row of the operation table).
    """
    return floor_divide(x1, x2), remainder(x1, x2)  # noqa: F821 (an operation-table row)


def where(condition, x=None, y=None):
    """``numpy.where``: three arguments select elementwise (differentiable in x, y);
    one argument returns the indices of the nonzero elements of a concrete array."""
    if x is None and y is None:
        if isinstance(condition, Tracer):
            raise TypeError("where(condition) with one argument needs a concrete condition "
                            "(its result shape depends on the values); use the three-argument "
                            "form inside transforms")
        return np.nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    return P.where(_arr(condition), _arr(x), _arr(y))


def clip(a, a_min=None, a_max=None):
    """Clip to ``[a_min, a_max]``; the derivative w.r.t. ``a`` is 1 on the closed
    interval (inclusive bounds, as PyTorch's ``clamp``) and 0 outside."""
    a = _arr(a)
    if a_min is None and a_max is None:
        raise ValueError("clip: at least one of a_min and a_max must be given")
    if a_min is not None:
        a_min = _arr(a_min)
        a = P.where(P.lt(a, a_min), a_min, a)
    if a_max is not None:
        a_max = _arr(a_max)
        a = P.where(P.gt(a, a_max), a_max, a)
    return a


#: every function this module made (the operation table's rows included): what
#: ``ftrans.numpy._funcs`` re-exports
__all__ = sorted(_n for _n, _v in globals().items()
                 if not _n.startswith("_") and getattr(_v, "__module__", None) == __name__)
