"""compat operations: elementwise (unary, composite functions, binary arithmetic, the
operation table's rows); complex numbers are in :mod:`._complex_ops`, comparisons and
logical operations in :mod:`._compare_ops`."""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ._tensor import (Tensor, _make, _make_plain)
from .autograd.graph import node_class
from .autograd._composite import composite_class, residual_class
from ..nn import FUSED as _FUSED
from .. import primitives as P
from ..primitives import elementwise as E
from ..primitives import logic as L
from ..primitives.select import select_p

from ._opbase import (SAVE_NONE, SAVE_X, _as_float, _binary, _checked, _compose,
    _one_tensor, _convert, _custom, _default_float, _has_complex, _k, _real_only, _record,
    _refuse_complex, _save_both, _save_cross, _save_div, _save_pow, _scalar, _tensorize,
    _unary, binary_doc, unary_doc)
from ._intdiv import floor_divide, _rounded_div  # noqa: F401  (floor_divide: _ops's name)
from .types import Number, TensorOrNumber
from ._compare_ops import _compare
from ._compare_ops import (bitwise_and, bitwise_or, bitwise_xor)  # noqa: F401  (read here
# by compat._special_ops)
from ._complex_ops import view_as_real  # noqa: F401  (compat._spectral imports it here)
# =============================================================================== unary ops
# exp, log, sin ... sqrt, trunc ...: generated from the operation table (see _row_ops below)
_neg = _unary(E.neg_p, "NegBackward0", None, float_only=False)


def neg(input: Tensor) -> Tensor:  # noqa: A002
    """``-input`` (``torch.neg``).

    Parameters
    ----------
    input : Tensor
        The input tensor (not bool).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.

    Raises
    ------
    RuntimeError
        For a bool tensor, as in torch.
    """
    if input._data.dtype == np.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return _neg(input)


negative = neg
_abs = _unary(E.abs_p, "AbsBackward0", "x", float_only=False)
_sign = _unary(E.sign_p, "SignBackward0", None, float_only=False)
_sgn = _unary(E.sign_p, "SgnBackward0", "x_out")
_REAL_NOTE = "Complex inputs raise ``NotImplementedError``, as in PyTorch; the gradient is 0."
floor = _real_only(_unary(L.floor_p, "FloorBackward0", None, float_only=False,
                          doc=unary_doc("floor", "largest integer not above each element.",
                                        "same", _REAL_NOTE)),
                   msg="floor is not supported for complex inputs")
ceil = _real_only(_unary(L.ceil_p, "CeilBackward0", None, float_only=False,
                         doc=unary_doc("ceil", "smallest integer not below each element.",
                                       "same", _REAL_NOTE)),
                  msg="ceil is not supported for complex inputs")
_round0 = _unary(L.round_p, "RoundBackward0", None, float_only=False)


_abs_c = _unary(E.abs_p, "AbsBackward0", "x_out", float_only=False)


def abs(input: Tensor) -> Tensor:  # noqa: A001,A002
    """Absolute value (``torch.abs``); its derivative at 0 is 0.

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        Same shape as ``input``; real (complex inputs give their real dtype).
    """
    x = input
    if x._data.dtype.kind == "c":
        return _abs_c(x)  # the complex rule reads |x| too
    return _abs(x)


absolute = abs


def sign(input: Tensor) -> Tensor:  # noqa: A002
    """-1, 0 or 1 for each element (``torch.sign``).

    Parameters
    ----------
    input : Tensor
        The input tensor (real).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.

    Raises
    ------
    NotImplementedError
        For complex tensors (use ``sgn``), as in PyTorch.
    """
    x = input
    _refuse_complex(x, msg="Unlike NumPy, torch.sign is not intended to support complex "
                           "numbers. Please use torch.sgn instead.")
    return _sign(x)


def sgn(input: Tensor) -> Tensor:  # noqa: A002
    """``input / |input|`` with 0 at 0 (``torch.sgn``); ``sign`` for real tensors.

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    x = input
    if x._data.dtype.kind != "c":
        return _sign(x)
    return _sgn(x)


def round(input: Tensor, decimals: int = 0) -> Tensor:  # noqa: A001,A002
    """Round half to even, to ``decimals`` places (``torch.round``).

    Parameters
    ----------
    input : Tensor
        The input tensor (real).
    decimals : int, default 0
        Number of decimal places (negative: to the left of the point).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``; the gradient is 0.

    Raises
    ------
    NotImplementedError
        For complex tensors, as in PyTorch.
    """
    x = input
    _refuse_complex(x, kernel="round_cpu" if decimals else "round_vml_cpu")
    if decimals:
        s = 10.0 ** decimals
        return _round0(x * s) / s
    return _round0(x)


def square(input: Tensor) -> Tensor:  # noqa: A002
    """``input ** 2`` (``torch.square``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        Same shape as ``input``; integer dtypes are kept (bool gives int64).
    """
    return pow(input, 2)



# composite unary functions -------------------------------------------------------------
def _sigmoid_fn(x: Any) -> Any:
    if x.dtype.kind == "c":
        return P.div(1.0, P.add(1.0, P.exp(P.neg(x))))  # type: ignore[attr-defined]  # (an op-table row)
    return P.exp(P.neg(P.logaddexp(x.dtype.type(0), P.neg(x))))   # type: ignore[attr-defined]  # (an op-table row); no overflow


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    """Logistic function ``1/(1+exp(-input))``, without overflow (``torch.sigmoid``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        Same shape as ``input``, floating.
    """
    x = input
    d = _as_float(x._data)
    return _compose(composite_class("SigmoidBackward0", ("self",)), _sigmoid_fn, [x], [d])


_CLAMP_COMPLEX = "clamp is not supported for complex types"


_ReluBackward0 = residual_class("ReluBackward0", ("self",))


def relu(input: Tensor) -> Tensor:  # noqa: A002
    """``max(input, 0)`` (``torch.relu``); its derivative at 0 is 0.

    ``ftrans.nn``'s fused relu (``FUSED["relu"]``; the result is its residual).

    Parameters
    ----------
    input : Tensor
        The input tensor (real).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.

    Raises
    ------
    NotImplementedError
        For complex tensors, as in PyTorch.
    """
    x = input
    d = x._data
    if d.dtype.kind == "c":
        raise NotImplementedError(_CLAMP_COMPLEX)
    if d.dtype.kind != "f":   # integers and booleans: no gradient
        return _make_plain(select_p.bind(L.gt_p.bind(d, 0), d, d.dtype.type(0)))
    return _custom(_ReluBackward0, _FUSED["relu"], [x], [d])[0]


def _rsqrt_fn(x: Any) -> Any:
    return P.div(1.0, P.sqrt(x))  # type: ignore[attr-defined]  # (an op-table row)


def rsqrt(input: Tensor) -> Tensor:  # noqa: A002
    """``1 / sqrt(input)`` (``torch.rsqrt``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        Same shape as ``input``, floating.
    """
    x = input
    d = _as_float(x._data)
    return _compose(composite_class("RsqrtBackward0", ("self",)), _rsqrt_fn, [x], [d])


def _reciprocal_fn(x: Any) -> Any:
    return P.div(1.0, x)


def reciprocal(input: Tensor) -> Tensor:  # noqa: A002
    """``1 / input`` (``torch.reciprocal``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        Same shape as ``input``, floating.
    """
    x = input
    d = _as_float(x._data)
    return _compose(composite_class("ReciprocalBackward0", ("self",)), _reciprocal_fn, [x], [d])


def _logn_fn(x: Any, ln: float) -> Any:
    return P.div(P.log(x), x.dtype.type(ln) if x.dtype.kind == "f" else ln)  # type: ignore[attr-defined]  # (an op-table row)


def _logn(name: str, base: float) -> Callable[[Tensor], Tensor]:
    params = {"ln": math.log(base)}
    cls = composite_class(name, ("self",))

    def op(input: Tensor) -> Tensor:  # noqa: A002
        return _compose(cls, _logn_fn, [input], [_as_float(input._data)], params)
    op.__doc__ = unary_doc(f"log{base:g}", f"logarithm to base {base:g}.")
    return op


log2 = _logn("Log2Backward0", 2.0)
log10 = _logn("Log10Backward0", 10.0)


def _exp2_fn(x: Any) -> Any:
    return P.pow(x.dtype.type(2) if x.dtype.kind == "f" else 2.0, x)


def exp2(input: Tensor) -> Tensor:  # noqa: A002
    """``2 ** input`` (``torch.exp2``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        Same shape as ``input``, floating.
    """
    x = input
    d = _as_float(x._data)
    return _compose(composite_class("Exp2Backward0", ("self",)), _exp2_fn, [x], [d])


_add = _binary(E.add_p, "AddBackward0", ("self", "other"), SAVE_NONE)
_sub = _binary(E.sub_p, "SubBackward0", ("self", "other"), SAVE_NONE, "RsubBackward1")
_mul = _binary(E.mul_p, "MulBackward0", ("self", "other"), _save_cross)
_div = _binary(E.div_p, "DivBackward0", ("self", "other"), _save_div)
mul = multiply = _checked(_mul, "any", binary_doc("mul", "``input * other``.", "any"))
maximum = _real_only(_checked(_binary(E.maximum_p, "MaximumBackward0", ("self", "other"),
                                      _save_both), "tensors"),
                     msg="maximum not implemented for complex tensors.", exc=RuntimeError)
maximum.__doc__ = binary_doc("maximum", "the larger of ``input`` and ``other`` (NaN "
                             "propagates; the gradient is shared at ties).", "tensors")
minimum = _real_only(_checked(_binary(E.minimum_p, "MinimumBackward0", ("self", "other"),
                                      _save_both), "tensors"),
                     msg="minimum not implemented for complex tensors.", exc=RuntimeError)
minimum.__doc__ = binary_doc("minimum", "the smaller of ``input`` and ``other`` (NaN "
                             "propagates; the gradient is shared at ties).", "tensors")
_pow_tt = _binary(E.pow_p, "PowBackward1", ("self", "exponent"), _save_pow)
_pow_st = _binary(E.pow_p, "PowBackward2", ("self", "exponent"), (2, True))
_pow_ts = _binary(E.pow_p, "PowBackward0", ("self", "exponent"), (3, False))


_add_checked = _checked(_add, "any")


def add(input: TensorOrNumber, other: TensorOrNumber, *, alpha: Number = 1,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``input + alpha * other`` (``torch.add``).

    Parameters
    ----------
    input : Tensor or Number
        The first operand (at least one operand is a Tensor).
    other : Tensor or Number
        The second operand, broadcast with ``input``.
    alpha : Number, default 1
        The multiplier of ``other``.
    out : Tensor, optional
        Tensor the result is written into; it is also returned.  Not differentiable.

    Returns
    -------
    Tensor
        The broadcast shape of the operands, of their promoted dtype.
    """
    if alpha != 1:
        other = mul(other, alpha)
    return _add_checked(input, other)


_sub_checked = _checked(_sub, "any")


def sub(input: TensorOrNumber, other: TensorOrNumber, *, alpha: Number = 1,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``input - alpha * other`` (``torch.sub``).

    Parameters
    ----------
    input : Tensor or Number
        The first operand (at least one operand is a Tensor).
    other : Tensor or Number
        The second operand, broadcast with ``input``.
    alpha : Number, default 1
        The multiplier of ``other``.
    out : Tensor, optional
        Tensor the result is written into; it is also returned.  Not differentiable.

    Returns
    -------
    Tensor
        The broadcast shape of the operands, of their promoted dtype.
    """
    if alpha != 1:
        other = mul(other, alpha)
    return _sub_checked(input, other)


subtract = sub


def rsub(input: Tensor, other: TensorOrNumber, *, alpha: Number = 1) -> Tensor:  # noqa: A002
    """``other - alpha * input`` (``torch.rsub``).

    Parameters
    ----------
    input : Tensor
        The subtracted operand.
    other : Tensor or Number
        The operand subtracted from, broadcast with ``input``.
    alpha : Number, default 1
        The multiplier of ``input``.

    Returns
    -------
    Tensor
        The broadcast shape of the operands, of their promoted dtype.

    Raises
    ------
    TypeError
        If ``input`` is not a Tensor.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"rsub(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return sub(other, input, alpha=alpha)


def div(input: TensorOrNumber, other: TensorOrNumber, *,  # noqa: A002
        rounding_mode: str | None = None) -> Tensor:
    """``input / other`` (``torch.div``).

    Parameters
    ----------
    input : Tensor or Number
        The dividend.
    other : Tensor or Number
        The divisor, broadcast with ``input``.
    rounding_mode : {None, 'trunc', 'floor'}, optional
        None for true division (integers give the default float dtype); ``'trunc'`` or
        ``'floor'`` round the quotient (no gradient).

    Returns
    -------
    Tensor
        The broadcast shape of the operands.

    Raises
    ------
    TypeError
        For an operand that is neither a Tensor nor a number.
    """
    r = _truediv(input, other) if rounding_mode is None else \
        _rounded_div(input, other, rounding_mode)
    if r is NotImplemented:
        raise TypeError(f"div(): expected a Tensor or a number, got "
                        f"{type(other if isinstance(input, Tensor) else input).__name__}")
    return r


def _truediv(input: Any, other: Any) -> Tensor:  # noqa: A002
    """``input / other`` (the ``/`` operator: NotImplemented for an unknown operand)."""
    ta = isinstance(input, Tensor)
    tb = isinstance(other, Tensor)
    if not ((ta or isinstance(input, (int, float, complex, np.generic)))
            and (tb or isinstance(other, (int, float, complex, np.generic, np.ndarray)))):
        return NotImplemented
    ka = input._data.dtype.kind if ta else ("f" if isinstance(input, float) else "i")
    kb = other._data.dtype.kind if tb else ("f" if isinstance(other, float) else "i")
    if ka in "biu" and kb in "biu":
        f = _default_float()
        input = _make(input._data.astype(f)) if ta else float(input)
        other = _make(other._data.astype(f)) if tb else float(other)
    return _div(input, other)


divide = true_divide = div
def pow(input: TensorOrNumber, exponent: TensorOrNumber) -> Tensor:  # noqa: A001,A002
    """``input ** exponent`` (``torch.pow``).

    The node is PyTorch's ``PowBackward0``/``1``/``2`` depending on which is a tensor.

    Parameters
    ----------
    input : Tensor or Number
        The base.
    exponent : Tensor or Number
        The exponent, broadcast with ``input``.

    Returns
    -------
    Tensor
        The broadcast shape of the operands, of their promoted dtype.

    Raises
    ------
    TypeError
        If neither operand is a Tensor.
    RuntimeError
        For an integer tensor to a negative integer power.
    """
    _one_tensor("pow", input, exponent)
    if isinstance(input, Tensor):
        if isinstance(exponent, Tensor):
            return _pow_tt(input, exponent)
        e = _scalar(exponent)
        if e is None:
            return _pow_tt(input, _tensorize(exponent))
        if type(e) is int or type(e) is bool:
            return _integer_pow(input, int(e))
        return _pow_ts(input, e)
    return _pow_st(input, exponent)


_PowBackward0i = node_class("PowBackward0", ("self",),
                            params={"exponent": lambda n: n._params["n"]})


def _integer_pow(x: Tensor, n: int) -> Tensor:
    d = x._data
    if d.dtype.kind in "iu" and n < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    params = {"n": n}
    out = _k(E.integer_pow_p, d)(d, n=n)
    return _record(_PowBackward0i, E.integer_pow_p, params, [x], [d], out, SAVE_X)


def float_power(input: TensorOrNumber, exponent: TensorOrNumber) -> Tensor:  # noqa: A002
    """``input ** exponent`` in double precision (``torch.float_power``).

    Tensor operands are converted to float64, or to complex128 when an operand is complex;
    the gradient flows back through the conversion, so each operand's gradient keeps its
    own dtype.

    Parameters
    ----------
    input : Tensor or Number
        The base.
    exponent : Tensor or Number
        The exponent, broadcast with ``input``.

    Returns
    -------
    Tensor
        float64 or complex128, of the broadcast shape.

    Raises
    ------
    TypeError
        If neither operand is a Tensor.
    """
    _one_tensor("float_power", input, exponent)
    dt = np.dtype(np.complex128 if _has_complex(input, exponent) else np.float64)

    def up(v: Any) -> Any:
        if isinstance(v, Tensor):
            return _convert(v, dt)
        if isinstance(v, np.ndarray):
            return _convert(_tensorize(v), dt)
        return v
    return pow(up(input), up(exponent))



# ------------------------------------------------------------------ operation-table rows
# Every row of ftrans/primitives/optable.py with a torch name is a compat function here
# (and a Tensor method, an in-place method and an ``out=`` form: _methods.py, _out.py):
# one primitive node named as torch names it (``SinhBackward0``), saving what the row's
# derivative reads; its backward is the primitive's VJP rule.  Names torch defines with
# other semantics stay hand-written below (``remainder``/``fmod`` on integers ...).
_HAND_WRITTEN = frozenset({"remainder", "fmod"})
_UNARY_SAVE = {"x": "x", "ans": "out", "x_ans": "x_out", "none": None}
_REFUSE_MSG = {"trunc": "trunc is not supported for complex inputs"}


def _row_doc(op: Any) -> str:
    """The numpydoc docstring of the compat function of the operation table's row ``op``
    (its one-line ``doc``, its primitive, node and complex support)."""
    notes = (f"Computed by ftrans's ``{op.name}`` primitive (generated from the operation "
             "table)")
    if op.differentiable:
        notes += f"; the backward node is ``{P.optable.node_name(op)}``"
    notes += "."
    if op.complex == "real":
        notes += " Complex operands raise ``NotImplementedError``, as in PyTorch."
    if op.arity == 1:
        return unary_doc(op.torch, op.doc, op.dtype, notes)
    summary = op.doc.replace("x1", "input").replace("x2", "other")
    accepts = op.torch_numbers if op.differentiable else "tensor_scalar"
    return binary_doc(op.torch, summary, accepts,
                      {"same": "promoted"}.get(op.dtype, op.dtype), notes)


def _row_op(op: Any) -> Callable[..., Tensor]:
    prim = getattr(E, op.name + "_p")
    f: Callable[..., Tensor]
    if op.arity == 1:
        if op.differentiable:
            f = _unary(prim, P.optable.node_name(op), _UNARY_SAVE[op.saves],
                       float_only=op.dtype == "float")
        else:
            bind = prim.bind

            def f(input: Tensor) -> Tensor:  # noqa: A002
                return _make_plain(bind(input._data))
    else:
        if op.differentiable:
            save = (3 if op.saves != "none" or "linear" in op.deriv else 0, "ans" in op.saves)
            f = _checked(_binary(prim, P.optable.node_name(op), ("self", "other"), save),
                         op.torch_numbers)
        else:
            f = _checked(_compare(prim))
    f.__name__ = op.torch
    f.__doc__ = _row_doc(op)
    if op.complex == "real":
        f = _real_only(f, kernel=f"{op.torch}_cpu", msg=_REFUSE_MSG.get(op.torch))
    return f


#: torch name (and alias) -> compat function, for the operation table's rows
ROW_FUNCTIONS: dict[str, Callable[..., Tensor]] = {}
for _row in P.optable.ROWS:
    if _row.torch and _row.torch not in _HAND_WRITTEN:
        _f = _row_op(_row)
        for _name in (_row.torch,) + _row.torch_aliases:
            ROW_FUNCTIONS[_name] = _f
globals().update(ROW_FUNCTIONS)
del _row, _f, _name
