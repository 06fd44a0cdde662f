"""Elementwise NumPy functions (``ftrans.numpy``): the operation table's rows (generated,
:data:`ROW_FUNCTIONS`) and the ufuncs written as compositions of primitives.

Broadcasting and promotion follow NumPy 2 (NEP 50: Python scalars are weak).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, overload

import numpy as np

from ..core import Tracer, result_type
from ..core.dtypes import kind_of as _kind_of
from ..kernels import foreign_array as _foreign_array
from ..typing import Array, ArrayLike
from ..primitives import optable as _optable
from ._args import P, _arr, _arrs, _ndarray, _sqrt_flat_at_0


_DIFF = ("Differentiable; for complex inputs the derivative is holomorphic (reverse mode "
         "conjugates it, as JAX and PyTorch do).")


def _doc_unary(summary: str, notes: str = "", returns: str = "Same shape as ``x``.") -> str:
    """A numpydoc docstring for a one-operand elementwise function."""
    return (f"{summary}\n\nParameters\n----------\nx : array_like\n    Input array "
            f"(any shape; Python scalars are weak, NEP 50).\n\nReturns\n-------\nArray\n"
            f"    {returns}\n\nNotes\n-----\n{notes or _DIFF}\n")


def _doc_binary(summary: str, notes: str = "",
                returns: str = "The broadcast shape of ``x1`` and ``x2``.") -> str:
    """A numpydoc docstring for a two-operand elementwise function."""
    return (f"{summary}\n\nParameters\n----------\nx1, x2 : array_like\n    Operands, "
            f"broadcast together (NumPy's promotion; Python scalars are weak).\n\n"
            f"Returns\n-------\nArray\n    {returns}\n\nNotes\n-----\n{notes or _DIFF}\n")


def _unary(prim_op: Callable[..., Any], name: str, summary: str, notes: str = "",
           returns: str = "Same shape as ``x``.") -> Callable[[ArrayLike], Array]:
    """The ``ftrans.numpy`` function ``name`` of one operand, calling ``prim_op``."""
    def f(x: ArrayLike) -> Array:
        return prim_op(_arr(x))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = _doc_unary(summary, notes, returns)
    return f


def _binary(prim_op: Callable[..., Any], name: str, summary: str, notes: str = "",
            returns: str = "The broadcast shape of ``x1`` and ``x2``."
            ) -> Callable[[ArrayLike, ArrayLike], Array]:
    """The ``ftrans.numpy`` function ``name`` of two operands, calling ``prim_op``."""
    def f(x1: ArrayLike, x2: ArrayLike) -> Array:
        return prim_op(_arr(x1), _arr(x2))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = _doc_binary(summary, notes, returns)
    return f


_RESULT_DTYPE = {"float": "floating dtype (integer and boolean inputs give NumPy's float "
                          "result)",
                 "same": "the inputs' promoted dtype",
                 "bool": "boolean dtype"}


def _row_notes(op: Any) -> str:
    """The Notes of a generated row function: which derivative rule applies."""
    if op.deriv is None:
        return "Not differentiable (boolean result); a transform treats it as a constant."
    if all(d == "0" for d in op.deriv):
        return ("Derivative 0 almost everywhere (a step function); undefined jumps are "
                "given derivative 0.")
    names = ("x1", "x2") if op.arity == 2 else ("x",)
    rules = []
    for n, d in zip(names, op.deriv):
        if isinstance(d, tuple):
            d = d[0]
        if d is None:
            rules.append(f"none in ``{n}`` (an integer exponent)")
        elif d == "linear":
            rules.append(f"linear in ``{n}``")
        elif len(d) <= 48:
            d = re.sub(r"\bans\b", "out", d)
            if op.arity == 2:
                d = re.sub(r"\by\b", "x2", re.sub(r"\bx\b", "x1", d))
            rules.append(f"``d/d{n} = {d}``")
        else:
            rules.append(f"in ``{n}`` the operation table's guarded expression")
    first = " in the first result only (the second is integral)" if op.outputs > 1 else ""
    cplx = ("; complex inputs are holomorphic (reverse mode conjugates the derivative)"
            if op.complex == "holomorphic" else "; real inputs only")
    return (f"Differentiable{first}: " + ", ".join(rules) + cplx +
            ". Generated from the operation table (``ftrans/primitives/optable.py``).")


def _from_row(op: Any) -> Callable[..., Any]:
    """The ``ftrans.numpy`` function of an operation-table row (``numpy.<name>``'s
    signature for a ufunc of one or two operands)."""
    prim_op = getattr(P, op.name)
    name = op.numpy
    notes = _row_notes(op)
    shape = "Same shape as ``x``" if op.arity == 1 else "The broadcast shape"
    ret = f"{shape}; {_RESULT_DTYPE.get(op.dtype, op.dtype)}."
    if op.outputs == 2:
        def f2(x: ArrayLike) -> tuple[Array, Array]:
            return prim_op(_arr(x))
        f2.__name__ = f2.__qualname__ = name
        f2.__doc__ = (f"{op.doc}\n\nParameters\n----------\nx : array_like\n    Input "
                      f"array.\n\nReturns\n-------\ntuple of Array\n    Two arrays of "
                      f"``x``'s shape (``numpy.{name}``'s results).\n\nNotes\n-----\n"
                      f"{notes}\n")
        return f2
    if op.arity == 1:
        return _unary(prim_op, name, op.doc, notes, ret)
    return _binary(prim_op, name, op.doc, notes, ret)


#: ``ftrans.numpy`` name -> function, for every row of the operation table
ROW_FUNCTIONS: dict[str, Callable[..., Any]] = {}
for _op in _optable.ROWS:
    if _op.numpy:
        _f = _from_row(_op)
        for _name in (_op.numpy,) + _op.numpy_aliases:
            ROW_FUNCTIONS[_name] = _f
globals().update(ROW_FUNCTIONS)
del _op

_STEP = "Derivative 0 almost everywhere (piecewise constant)."
_BOOL = "Not differentiable (boolean result); a transform treats it as a constant."
_CMP = "Boolean array of the broadcast shape."

add = _binary(P.add, "add", "Sum of the operands, elementwise (``x1 + x2``).")
subtract = _binary(P.sub, "subtract", "Difference of the operands, elementwise (``x1 - x2``).")
multiply = _binary(P.mul, "multiply", "Product of the operands, elementwise (``x1 * x2``).")
divide = _binary(P.div, "divide", "True division, elementwise (``x1 / x2``).",
                 returns="The broadcast shape; floating dtype (integers give float64).")
true_divide = divide
maximum = _binary(P.maximum, "maximum", "Elementwise maximum (NaNs propagate).",
                  "Differentiable; at ties ``x1 == x2`` the derivative is split evenly "
                  "between the operands (DESIGN.md's subgradient convention). Real inputs.")
minimum = _binary(P.minimum, "minimum", "Elementwise minimum (NaNs propagate).",
                  "Differentiable; at ties ``x1 == x2`` the derivative is split evenly "
                  "between the operands (DESIGN.md's subgradient convention). Real inputs.")
negative = _unary(P.neg, "negative", "Numerical negative, elementwise (``-x``).",
                  "Differentiable (linear).")
absolute = _unary(P.abs, "absolute", "Absolute value, elementwise.",
                  "Differentiable; the derivative is ``sign(x)``, 0 at 0 (the minimum-norm "
                  "subgradient).  For complex ``z`` it is ``Re(conj(z) dz) / |z|``.",
                  "Same shape as ``x``; real dtype (the magnitude for complex ``x``).")
abs = absolute


def fabs(x: ArrayLike) -> Array:
    """Absolute value as a floating-point number, elementwise.

    Parameters
    ----------
    x : array_like
        Input array (real).

    Returns
    -------
    Array
        ``abs(x)``, same shape; float64 for integer and boolean input.

    Notes
    -----
    Differentiable as :func:`absolute` (derivative 0 at 0).
    """
    out = P.abs(_arr(x))
    if _kind_of(out) not in "fc":
        out = P.convert_element_type(out, np.fabs(np.zeros((), out.dtype)).dtype)
    return out


sign = _unary(P.sign, "sign", "Sign of each element: -1, 0 or 1 (``z/|z|`` for complex).",
              "Derivative 0 for real input; for complex ``z != 0`` the derivative of "
              "``z/|z|`` (PyTorch's ``sgn``).")
conjugate = _unary(P.conj, "conjugate", "Complex conjugate, elementwise.",
                   "Differentiable (conjugate-linear); identity for real input.")
conj = conjugate
real = _unary(P.real, "real", "Real part of each element.",
              "Differentiable (linear); the cotangent of a complex input is real.",
              "Same shape as ``x``; the real dtype of ``x``'s precision.")
imag = _unary(P.imag, "imag", "Imaginary part of each element.",
              "Differentiable (linear); zeros for real input.",
              "Same shape as ``x``; the real dtype of ``x``'s precision.")
floor = _unary(P.floor, "floor", "Largest integer not greater than each element.", _STEP)
ceil = _unary(P.ceil, "ceil", "Smallest integer not less than each element.", _STEP)
isfinite = _unary(P.isfinite, "isfinite", "True where the element is finite.", _BOOL,
                  "Boolean array of ``x``'s shape.")
isnan = _unary(P.isnan, "isnan", "True where the element is NaN.", _BOOL,
               "Boolean array of ``x``'s shape.")
isinf = _unary(P.isinf, "isinf", "True where the element is +inf or -inf.", _BOOL,
               "Boolean array of ``x``'s shape.")
logical_not = _unary(P.logical_not, "logical_not", "Logical NOT, elementwise.", _BOOL,
                     "Boolean array of ``x``'s shape.")
equal = _binary(P.eq, "equal", "``x1 == x2``, elementwise.", _BOOL, _CMP)
not_equal = _binary(P.ne, "not_equal", "``x1 != x2``, elementwise.", _BOOL, _CMP)
less = _binary(P.lt, "less", "``x1 < x2``, elementwise.", _BOOL, _CMP)
less_equal = _binary(P.le, "less_equal", "``x1 <= x2``, elementwise.", _BOOL, _CMP)
greater = _binary(P.gt, "greater", "``x1 > x2``, elementwise.", _BOOL, _CMP)
greater_equal = _binary(P.ge, "greater_equal", "``x1 >= x2``, elementwise.", _BOOL, _CMP)
logical_and = _binary(P.logical_and, "logical_and", "Logical AND, elementwise.", _BOOL, _CMP)
logical_or = _binary(P.logical_or, "logical_or", "Logical OR, elementwise.", _BOOL, _CMP)
logical_xor = _binary(P.logical_xor, "logical_xor", "Logical XOR, elementwise.", _BOOL, _CMP)


def positive(x: ArrayLike) -> Array:
    """Numerical positive, elementwise (``+x``; a copy for NumPy arrays).

    Parameters
    ----------
    x : array_like
        Input array.

    Returns
    -------
    Array
        Same shape as ``x``.

    Notes
    -----
    Differentiable (identity).
    """
    xa = _arr(x)
    return xa if isinstance(xa, Tracer) or _foreign_array(xa) else np.positive(xa)


def power(x1: ArrayLike, x2: ArrayLike) -> Array:
    """First operand raised to the second, elementwise (``x1 ** x2``).

    A Python-int exponent on a floating ``x1`` uses the exact integer power.

    Parameters
    ----------
    x1 : array_like
        Bases.
    x2 : array_like
        Exponents, broadcast with ``x1``.

    Returns
    -------
    Array
        The broadcast shape of ``x1`` and ``x2``.

    Notes
    -----
    Differentiable: ``d/dx1 = x2 * x1**(x2-1)`` (0 where ``x2 == 0``) and
    ``d/dx2 = out * log(x1)`` (0 where ``x1 == 0`` and ``x2 >= 0``), PyTorch's
    ``pow_backward`` conventions; holomorphic for complex operands.
    """
    x1 = _arr(x1)
    if isinstance(x2, (int, np.integer)) and not isinstance(x2, bool) and \
            (_kind_of(x1) if hasattr(x1, "dtype") else "f") in "fc":
        return P.integer_pow(x1, int(x2))
    return P.pow(x1, _arr(x2))


pow = power  # NumPy 2's name


def square(x: ArrayLike) -> Array:
    """Square of each element (``x * x``).

    Parameters
    ----------
    x : array_like
        Input array.

    Returns
    -------
    Array
        Same shape as ``x``.

    Notes
    -----
    Differentiable: ``2 x``; holomorphic for complex input.
    """
    return P.integer_pow(_arr(x), 2)


def reciprocal(x: ArrayLike) -> Array:
    """Reciprocal of each element (``1 / x``).

    Parameters
    ----------
    x : array_like
        Input array.

    Returns
    -------
    Array
        Same shape as ``x``; integer input gives NumPy's truncated integer result.

    Notes
    -----
    Differentiable: ``-1 / x**2``; holomorphic for complex input.
    """
    x = _arr(x)
    out = P.div(1.0, x)
    dt = result_type(x)
    if dt.kind not in "fc":  # NumPy: integer reciprocal, truncated toward zero
        out = P.convert_element_type(out, np.reciprocal(np.ones((), dt)).dtype)
    return out


def cbrt(x: ArrayLike) -> Array:
    """Real cube root of each element.

    Parameters
    ----------
    x : array_like
        Input array.

    Returns
    -------
    Array
        Same shape as ``x``; floating dtype.

    Notes
    -----
    Differentiable as ``sign(x) * |x|**(1/3)``: the derivative is inf at 0. Real input.
    """
    x = _arr(x)
    return P.mul(P.sign(x), P.pow(P.abs(x), 1.0 / 3.0))


def exp2(x: ArrayLike) -> Array:
    """``2 ** x``, elementwise.

    Parameters
    ----------
    x : array_like
        Input array.

    Returns
    -------
    Array
        Same shape as ``x``; floating dtype.

    Notes
    -----
    Differentiable: ``log(2) * 2**x``.
    """
    return P.pow(2.0, _arr(x))


def log2(x: ArrayLike) -> Array:
    """Base-2 logarithm of each element.

    Parameters
    ----------
    x : array_like
        Input array.

    Returns
    -------
    Array
        Same shape as ``x``; floating dtype.

    Notes
    -----
    Differentiable: ``1 / (x log 2)``; holomorphic for complex input.
    """
    return P.div(P.log(_arr(x)), np.log(2.0).item())


def log10(x: ArrayLike) -> Array:
    """Base-10 logarithm of each element.

    Parameters
    ----------
    x : array_like
        Input array.

    Returns
    -------
    Array
        Same shape as ``x``; floating dtype.

    Notes
    -----
    Differentiable: ``1 / (x log 10)``; holomorphic for complex input.
    """
    return P.div(P.log(_arr(x)), np.log(10.0).item())


def _as_float_result(*xs: ArrayLike) -> list[Any]:
    """Operands of a composite float ufunc cast to its result dtype first, so every
    intermediate has the final precision (``float32 + Python float`` stays float32,
    ``float32 + float64`` is computed in float64, as NumPy does)."""
    arrs = _arrs(*xs)
    dt = result_type(*arrs, 0.0)
    return [np.asarray(x, dt) if isinstance(x, (bool, int, float, complex))
            else P.convert_element_type(x, dt) for x in arrs]


def logaddexp2(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``log2(2**x1 + 2**x2)`` without overflow.

    Parameters
    ----------
    x1, x2 : array_like
        Operands, broadcast together.

    Returns
    -------
    Array
        The broadcast shape; floating dtype.

    Notes
    -----
    Differentiable through ``logaddexp`` (``2**x1 / (2**x1 + 2**x2)`` in ``x1``).
    """
    ln2 = np.log(2.0).item()
    x1, x2 = _as_float_result(x1, x2)
    return P.div(P.logaddexp(P.mul(x1, ln2), P.mul(x2, ln2)), ln2)


def arcsinh(x: ArrayLike) -> Array:
    """Inverse hyperbolic sine, elementwise.

    Parameters
    ----------
    x : array_like
        Input array.

    Returns
    -------
    Array
        Same shape as ``x``; floating dtype.

    Notes
    -----
    Differentiable (``log(x + sqrt(x**2 + 1))``): ``1 / sqrt(x**2 + 1)``.
    """
    x = _arr(x)
    return P.log(P.add(x, P.sqrt(P.add(P.mul(x, x), 1.0))))


def arccosh(x: ArrayLike) -> Array:
    """Inverse hyperbolic cosine, elementwise (NaN below 1).

    Parameters
    ----------
    x : array_like
        Input array.

    Returns
    -------
    Array
        Same shape as ``x``; floating dtype.

    Notes
    -----
    Differentiable (``log(x + sqrt(x**2 - 1))``): ``1 / sqrt(x**2 - 1)``, inf at 1.
    """
    x = _arr(x)
    return P.log(P.add(x, P.sqrt(P.sub(P.mul(x, x), 1.0))))


def arctanh(x: ArrayLike) -> Array:
    """Inverse hyperbolic tangent, elementwise.

    Parameters
    ----------
    x : array_like
        Input array.

    Returns
    -------
    Array
        Same shape as ``x``; floating dtype.

    Notes
    -----
    Differentiable (``log((1 + x) / (1 - x)) / 2``): ``1 / (1 - x**2)``.
    """
    x = _arr(x)
    return P.mul(0.5, P.log(P.div(P.add(1.0, x), P.sub(1.0, x))))


asinh, acosh, atanh = arcsinh, arccosh, arctanh  # NumPy 2's names


def float_power(x1: ArrayLike, x2: ArrayLike) -> Array:
    """``x1 ** x2`` computed in float64 (complex128 for complex operands).

    Parameters
    ----------
    x1 : array_like
        Bases.
    x2 : array_like
        Exponents, broadcast with ``x1``.

    Returns
    -------
    Array
        The broadcast shape, dtype float64 or complex128.

    Notes
    -----
    Differentiable as :func:`power`.
    """
    a1, a2 = _ndarray(x1), _ndarray(x2)
    dt = np.dtype(np.complex128 if "c" in (_kind_of(a1), _kind_of(a2)) else np.float64)
    return P.pow(P.convert_element_type(a1, dt), P.convert_element_type(a2, dt))


def hypot(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Hypotenuse ``sqrt(x1**2 + x2**2)``, elementwise.

    Parameters
    ----------
    x1, x2 : array_like
        Operands, broadcast together.

    Returns
    -------
    Array
        The broadcast shape; floating dtype.

    Notes
    -----
    Differentiable: ``x1 / out`` and ``x2 / out``; at ``(0, 0)`` the derivative is ``(0, 0)`` (the minimum-norm subgradient).
    """
    x1, x2 = _as_float_result(x1, x2)
    return _sqrt_flat_at_0(P.add(P.mul(x1, x1), P.mul(x2, x2)))


def deg2rad(x: ArrayLike) -> Array:
    """Convert angles from degrees to radians.

    Parameters
    ----------
    x : array_like
        Input array.

    Returns
    -------
    Array
        Same shape as ``x``; floating dtype.

    Notes
    -----
    Differentiable (linear: ``pi / 180``).
    """
    return P.mul(_arr(x), np.pi / 180.0)


def rad2deg(x: ArrayLike) -> Array:
    """Convert angles from radians to degrees.

    Parameters
    ----------
    x : array_like
        Input array.

    Returns
    -------
    Array
        Same shape as ``x``; floating dtype.

    Notes
    -----
    Differentiable (linear: ``180 / pi``).
    """
    return P.mul(_arr(x), 180.0 / np.pi)


radians = deg2rad
degrees = rad2deg


def angle(z: ArrayLike, deg: bool = False) -> Array:
    """Argument (phase angle) of each complex element.

    Parameters
    ----------
    z : array_like
        Complex (or real) input.
    deg : bool, optional
        Return degrees instead of radians.

    Returns
    -------
    Array
        Same shape as ``z``; real floating dtype, in ``(-pi, pi]``.

    Notes
    -----
    Differentiable as ``arctan2(imag(z), real(z))`` (derivative 0 at ``z == 0``).
    """
    z = _arr(z)
    a = P.arctan2(P.imag(z), P.real(z))
    return rad2deg(a) if deg else a


def sinc(x: ArrayLike) -> Array:
    """Normalized sinc, ``sin(pi x) / (pi x)``, with the limit 1 at 0.

    Parameters
    ----------
    x : array_like
        Input array.

    Returns
    -------
    Array
        Same shape as ``x``; floating dtype.

    Notes
    -----
    Differentiable.  For ``|pi x| < 0.1`` the Maclaurin series to ``u**8`` is used
    (error < 1e-17), so every derivative up to order 8 is right at and near 0 (a
    constant 1 at 0 would give ``sinc''(0) = 0`` instead of ``-pi**2 / 3``); the double
    ``where`` keeps the other branch finite there.
    """
    x = _arr(x)
    u = P.mul(x, np.pi)
    small = P.lt(P.abs(u), 0.1)
    safe = P.where(small, 1.0, u)
    u2 = P.mul(u, u)
    series = P.sub(1.0, P.mul(P.div(u2, 6.0), P.sub(1.0, P.mul(P.div(u2, 20.0), P.sub(
        1.0, P.mul(P.div(u2, 42.0), P.sub(1.0, P.div(u2, 72.0))))))))
    return P.where(small, series, P.div(P.sin(safe), safe))


def round(a: ArrayLike, decimals: int = 0) -> Array:
    """Round to the given number of decimals (ties to even).

    Parameters
    ----------
    a : array_like
        Input array.
    decimals : int, optional
        Number of decimal places (negative: to the left of the point).

    Returns
    -------
    Array
        Same shape and dtype as ``a``.

    Notes
    -----
    Derivative 0 almost everywhere (piecewise constant).
    """
    if decimals == 0:
        return P.round(_arr(a))
    scale = 10.0 ** decimals
    return P.div(P.round(P.mul(_arr(a), scale)), scale)


around = round


def floor_divide(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Floor division ``x1 // x2``, exactly as NumPy (``2.0 // 0.4 == 4.0``).

    Parameters
    ----------
    x1, x2 : array_like
        Operands, broadcast together.

    Returns
    -------
    Array
        The broadcast shape; the operands' promoted dtype.

    Notes
    -----
    Derivative 0 (piecewise constant).
    """
    return P.floor_divide(*_arrs(x1, x2))


def divmod(x1: ArrayLike, x2: ArrayLike) -> tuple[Array, Array]:  # noqa: A001
    """Quotient and remainder, ``(x1 // x2, x1 % x2)``.

    Parameters
    ----------
    x1, x2 : array_like
        Operands, broadcast together.

    Returns
    -------
    tuple of Array
        ``(floor_divide(x1, x2), remainder(x1, x2))``, each of the broadcast shape.

    Notes
    -----
    Derivatives: 0 for the quotient; for the remainder 1 in ``x1`` and
    ``-floor(x1 / x2)`` in ``x2`` (the ``remainder`` row of the operation table).
    """
    return floor_divide(x1, x2), remainder(x1, x2)  # type: ignore[name-defined]  # noqa: F821  (an operation-table row)


@overload
def where(condition: ArrayLike) -> tuple[Array, ...]: ...
@overload
def where(condition: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array: ...
@overload
def where(condition: ArrayLike, x: ArrayLike | None = None,
          y: ArrayLike | None = None) -> Array | tuple[Array, ...]: ...
def where(condition: ArrayLike, x: ArrayLike | None = None,
          y: ArrayLike | None = None) -> Array | tuple[Array, ...]:
    """Elements of ``x`` where ``condition`` is true, else of ``y``.

    Parameters
    ----------
    condition : array_like of bool
        Selector, broadcast with ``x`` and ``y``.
    x, y : array_like, optional
        Values to choose from.  Without both, the indices of the nonzero elements of
        ``condition`` are returned (``numpy.nonzero``).

    Returns
    -------
    Array or tuple of Array
        The broadcast shape (three arguments), or one index array per dimension.

    Raises
    ------
    ValueError
        If only one of ``x`` and ``y`` is given.
    TypeError
        For the one-argument form on a traced ``condition`` (its shape depends on the
        values).

    Notes
    -----
    Differentiable in ``x`` and ``y`` (the cotangent goes to the selected operand),
    not in ``condition``.
    """
    if x is None and y is None:
        if isinstance(condition, Tracer):
            raise TypeError("where(condition) with one argument needs a concrete condition "
                            "(its result shape depends on the values); use the three-argument "
                            "form inside transforms")
        return np.nonzero(np.asarray(condition))
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    return P.where(_arr(condition), _arr(x), _arr(y))


def clip(a: ArrayLike, a_min: ArrayLike | None = None,
         a_max: ArrayLike | None = None) -> Array:
    """Limit the values to the interval ``[a_min, a_max]``.

    Parameters
    ----------
    a : array_like
        Input array.
    a_min, a_max : array_like, optional
        Lower and upper bounds (broadcast with ``a``); ``None`` leaves that side open.

    Returns
    -------
    Array
        The broadcast shape of ``a`` and the bounds.

    Raises
    ------
    ValueError
        If both bounds are ``None``.

    Notes
    -----
    The derivative w.r.t. ``a`` is 1 on the closed interval (inclusive bounds, as
    PyTorch's ``clamp``) and 0 outside, where it goes to the bound.
    """
    out = _arr(a)
    if a_min is None and a_max is None:
        raise ValueError("clip: at least one of a_min and a_max must be given")
    if a_min is not None:
        lo = _arr(a_min)
        out = P.where(P.lt(out, lo), lo, out)
    if a_max is not None:
        hi = _arr(a_max)
        out = P.where(P.gt(out, hi), hi, out)
    return out


#: every function this module made: what ``ftrans.numpy._funcs`` re-exports (the
#: functions written here, then the operation table's rows)
__all__ = ["abs", "absolute", "acosh", "add", "angle", "arccosh", "arcsinh", "arctanh",
           "around", "asinh", "atanh", "cbrt", "ceil", "clip", "conj", "conjugate",
           "deg2rad", "degrees", "divide", "divmod", "equal", "exp2", "fabs", "float_power",
           "floor", "floor_divide", "greater", "greater_equal", "hypot", "imag", "isfinite",
           "isinf", "isnan", "less", "less_equal", "log10", "log2", "logaddexp2",
           "logical_and", "logical_not", "logical_or", "logical_xor", "maximum", "minimum",
           "multiply", "negative", "not_equal", "positive", "pow", "power", "rad2deg",
           "radians", "real", "reciprocal", "round", "sign", "sinc", "square", "subtract",
           "true_divide", "where"]
__all__ += sorted(ROW_FUNCTIONS)
