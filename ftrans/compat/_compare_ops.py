"""compat operations: comparisons, logical and bitwise operations, ``remainder``/``fmod``,
``isnan``/``isclose`` ... and ``where``."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, overload


import numpy as np

from . import _dtype as D
from ._tensor import Tensor, _make_plain
from .autograd.graph import node_class
from .. import numpy as _fnp
from ..primitives import elementwise as E
from ..primitives import logic as L
from ..primitives.select import select_p

from ._opbase import (_EMPTY, _any_traced, _binary, _check_int_division, _checked,
    _one_tensor, _operands, _operands_or_raise, _real_only, _record, _refuse_complex,
    _require_tensor, _reraise_broadcast, _tname, binary_doc)
from .types import TensorOrNumber


def _compare(prim: Any) -> Callable[[Any, Any], Tensor]:
    bind = prim.bind

    def op(a: Any, b: Any) -> Tensor:
        r = _operands(a, b)
        if r is None:
            return NotImplemented
        try:
            return _make_plain(bind(r[0], r[1]))
        except ValueError as e:
            _reraise_broadcast(e, r[:2])
    op.__name__ = prim.name
    return op


_eq, _ne = _compare(L.eq_p), _compare(L.ne_p)
# orderings have no complex kernel in PyTorch
_lt, _le, _gt, _ge = (_real_only(_compare(p), kernel=f"{n}_cpu") for p, n in (
    (L.lt_p, "lt"), (L.le_p, "le"), (L.gt_p, "gt"), (L.ge_p, "ge")))
eq = _checked(_eq, doc=binary_doc("eq", "``input == other``.", dtype="bool"))
ne = not_equal = _checked(_ne, doc=binary_doc("ne", "``input != other``.", dtype="bool"))
lt = less = _checked(_lt, doc=binary_doc("lt", "``input < other`` (real operands).",
                                         dtype="bool"))
le = less_equal = _checked(_le, doc=binary_doc("le", "``input <= other`` (real operands).",
                                               dtype="bool"))
gt = greater = _checked(_gt, doc=binary_doc("gt", "``input > other`` (real operands).",
                                            dtype="bool"))
ge = greater_equal = _checked(_ge, doc=binary_doc("ge", "``input >= other`` (real operands).",
                                                  dtype="bool"))


def _logical(npfn: Any, traced: Any = None) -> Callable[[Any, Any], Tensor]:
    """A logical/bitwise operation: NumPy's ``npfn`` on arrays; on Tracers (under
    ``compat.func``) ftrans.numpy's ``traced`` -- the logical function, which is the
    bitwise one on booleans (integer bitwise operations have no primitive: TypeError)."""
    def op(a: Any, b: Any) -> Tensor:
        r = _operands(a, b)
        if r is None:
            return NotImplemented
        if traced is not None and _any_traced(r[0], r[1]):
            if npfn.__name__.startswith("bitwise") and not all(
                    np.dtype(getattr(v, "dtype", bool)) == np.bool_ for v in r[:2]):
                raise TypeError(f"{npfn.__name__} of integer tensors cannot be traced by "
                                "compat.func (no primitive); use boolean tensors")
            return _make_plain(traced(r[0], r[1]))
        try:
            return _make_plain(npfn(r[0], r[1]))
        except ValueError as e:
            _reraise_broadcast(e, r[:2])
    return op


logical_and = _checked(accepts="tensors", op=_logical(np.logical_and, _fnp.logical_and),
                       doc=binary_doc("logical_and", "both operands nonzero.", "tensors",
                                      "bool"))
logical_or = _checked(accepts="tensors", op=_logical(np.logical_or, _fnp.logical_or),
                      doc=binary_doc("logical_or", "either operand nonzero.", "tensors",
                                     "bool"))
logical_xor = _checked(accepts="tensors", op=_logical(np.logical_xor, _fnp.logical_xor),
                       doc=binary_doc("logical_xor", "exactly one operand nonzero.",
                                      "tensors", "bool"))
_bitwise_and = _real_only(_logical(np.bitwise_and, _fnp.logical_and), kernel="bitwise_and_cpu")
_bitwise_or = _real_only(_logical(np.bitwise_or, _fnp.logical_or), kernel="bitwise_or_cpu")
_bitwise_xor = _real_only(_logical(np.bitwise_xor, _fnp.logical_xor), kernel="bitwise_xor_cpu")
bitwise_and = _checked(_bitwise_and, doc=binary_doc(
    "bitwise_and", "bitwise AND of integer or bool operands."))
bitwise_or = _checked(_bitwise_or, doc=binary_doc(
    "bitwise_or", "bitwise OR of integer or bool operands."))
bitwise_xor = _checked(_bitwise_xor, doc=binary_doc(
    "bitwise_xor", "bitwise XOR of integer or bool operands."))


def logical_not(input: Tensor) -> Tensor:  # noqa: A002
    """True where ``input`` is zero (``torch.logical_not``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        A bool tensor of ``input``'s shape.
    """
    x = input
    d = x._data
    return _make_plain(_fnp.logical_not(d) if _any_traced(d) else np.logical_not(d))


def _rem(prim: Any, name: str) -> Callable[[Any, Any], Tensor]:
    """``remainder``/``fmod``: the operation table's rows, with torch's node names
    (``<Name>Backward0`` for a scalar divisor, ``<Name>Backward1`` for a tensor)."""
    tt = _binary(prim, f"{name}Backward1", ("self", "other"), (3, False))
    ts = _binary(prim, f"{name}Backward0", ("self", "other"), (3, False), edge_idx=(0,))

    def op(a: Any, b: Any) -> Tensor:
        _check_int_division(a, b)
        r = (tt if isinstance(b, Tensor) else ts)(a, b)
        if r is NotImplemented:
            raise TypeError(f"{name.lower()}(): expected a Tensor or a number, got "
                            f"{type(b).__name__}")
        return r
    return op


_remainder = _rem(E.remainder_p, "Remainder")  # type: ignore[attr-defined]  # (op table)
_fmod = _rem(E.fmod_p, "Fmod")  # type: ignore[attr-defined]  # (op table)


def remainder(input: TensorOrNumber, other: TensorOrNumber) -> Tensor:  # noqa: A002
    """Python's ``input % other``, with the sign of ``other`` (``torch.remainder``).

    Real operands only.  The gradient is 1 for ``input`` and ``-floor(input / other)`` for
    ``other``.

    Parameters
    ----------
    input : Tensor or Number
        The dividend (at least one operand is a Tensor).
    other : Tensor or Number
        The divisor, broadcast with ``input``.

    Returns
    -------
    Tensor
        The broadcast shape of the operands, of their promoted dtype.

    Raises
    ------
    RuntimeError
        For an integer division by zero (``ZeroDivisionError``).
    NotImplementedError
        For complex operands.
    TypeError
        If neither operand is a Tensor.
    """
    a, b = input, other
    _one_tensor("remainder", a, b)
    _refuse_complex(a, b, kernel="remainder_cpu")
    return _remainder(a, b)


def fmod(input: Tensor, other: TensorOrNumber) -> Tensor:  # noqa: A002
    """C's ``fmod``, with the sign of ``input`` (``torch.fmod``).

    Real operands only.  The gradient is 1 for ``input`` and ``-trunc(input / other)`` for
    ``other``.

    Parameters
    ----------
    input : Tensor
        The dividend.
    other : Tensor or Number
        The divisor, broadcast with ``input``.

    Returns
    -------
    Tensor
        The broadcast shape of the operands, of their promoted dtype.

    Raises
    ------
    RuntimeError
        For an integer division by zero (``ZeroDivisionError``).
    NotImplementedError
        For complex operands.
    TypeError
        If ``input`` is not a Tensor.
    """
    a, b = input, other
    _require_tensor("fmod", a)
    _refuse_complex(a, b, kernel="fmod_cpu")
    return _fmod(a, b)


def isnan(input: Tensor) -> Tensor:  # noqa: A002
    """True where ``input`` is NaN (``torch.isnan``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        A bool tensor of ``input``'s shape.
    """
    return _make_plain(np.isnan(input._data))


def isinf(input: Tensor) -> Tensor:  # noqa: A002
    """True where ``input`` is infinite (either sign) (``torch.isinf``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        A bool tensor of ``input``'s shape.
    """
    return _make_plain(np.isinf(input._data))


def isfinite(input: Tensor) -> Tensor:  # noqa: A002
    """True where ``input`` is finite (``torch.isfinite``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        A bool tensor of ``input``'s shape.
    """
    return _make_plain(np.isfinite(input._data))


def equal(input: Tensor, other: Tensor) -> bool:  # noqa: A002
    """True if both tensors have the same shape and values (``torch.equal``).

    Parameters
    ----------
    input, other : Tensor
        The tensors compared.

    Returns
    -------
    bool
        Whether the shapes and all values agree.
    """
    a, b = input, other
    return a._data.shape == b._data.shape and bool(np.array_equal(a._data, b._data))


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,  # noqa: A002
             equal_nan: bool = False) -> bool:
    """Whether :func:`isclose` holds everywhere (``torch.allclose``).

    Parameters
    ----------
    input : Tensor
        The first operand.
    other : Tensor
        The second operand, of ``input``'s dtype, broadcast with it.
    rtol : float, default 1e-05
        Relative tolerance (not negative).
    atol : float, default 1e-08
        Absolute tolerance (not negative).
    equal_nan : bool, default False
        NaNs compare equal.

    Returns
    -------
    bool
        True if every element is close.

    Raises
    ------
    RuntimeError
        For operands of different dtypes or a negative tolerance.
    """
    a, b = input, other
    return bool(isclose(a, b, rtol, atol, equal_nan)._data.all())


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,  # noqa: A002
            equal_nan: bool = False) -> Tensor:
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (``torch.isclose``).

    Parameters
    ----------
    input : Tensor
        The first operand.
    other : Tensor
        The second operand, of ``input``'s dtype, broadcast with it.
    rtol : float, default 1e-05
        Relative tolerance (not negative).
    atol : float, default 1e-08
        Absolute tolerance (not negative).
    equal_nan : bool, default False
        NaNs compare equal.

    Returns
    -------
    Tensor
        A bool tensor of the broadcast shape.

    Raises
    ------
    RuntimeError
        For operands of different dtypes or a negative tolerance.
    """
    a, b = input, other
    _require_tensor("isclose", a)
    _require_tensor("isclose", b, "other", 2)
    for name, v in (("rtol", rtol), ("atol", atol)):
        if v < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {v}")
    if isinstance(b, Tensor) and a._data.dtype != b._data.dtype:
        raise RuntimeError(f"{_tname(a._data.dtype)} did not match {_tname(b._data.dtype)}")
    try:
        return _make_plain(np.isclose(a._data, _data_of(b), rtol=rtol, atol=atol,
                                      equal_nan=equal_nan))
    except ValueError as e:
        _reraise_broadcast(e, (a._data, _data_of(b)))


def _data_of(v: Any) -> Any:
    return v._data if isinstance(v, Tensor) else np.asarray(v)


_WhereBackward0 = node_class("WhereBackward0", ("condition", "self", "other"), edge_idx=(1, 2))


@overload
def where(condition: Tensor, input: TensorOrNumber,  # noqa: A002
          other: TensorOrNumber) -> Tensor: ...
@overload
def where(condition: Tensor) -> tuple[Tensor, ...]: ...


def where(condition: Tensor, input: TensorOrNumber | None = None,  # noqa: A002
          other: TensorOrNumber | None = None) -> Tensor | tuple[Tensor, ...]:
    """``input`` where ``condition`` else ``other`` (``torch.where``).

    With ``condition`` alone: the indices of its nonzero elements (``torch.nonzero(
    condition, as_tuple=True)``).

    Parameters
    ----------
    condition : Tensor
        A bool tensor (any dtype with one argument).
    input : Tensor or Number, optional
        The values where ``condition`` is True.
    other : Tensor or Number, optional
        The values where ``condition`` is False.

    Returns
    -------
    Tensor or tuple of Tensor
        The broadcast shape of the three, of the operands' promoted dtype; with one
        argument a tuple of int64 index tensors, one per dimension.

    Raises
    ------
    RuntimeError
        For a ``condition`` that is not bool.
    """
    c = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    if input is None and other is None:
        return tuple(_make_plain(np.asarray(i, np.int64)) for i in np.nonzero(c))
    if c.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {D.from_np(c.dtype)._tname[:-6]}")
    xd, yd, casts = _operands_or_raise(input, other)
    try:
        out = select_p.bind(c, xd, yd)
    except ValueError as e:
        _reraise_broadcast(e, (c, xd, yd))
    return _record(_WhereBackward0, select_p, _EMPTY, [c, input, other], [c, xd, yd], out,
                   (1, False), casts=None if casts is None else (None,) + casts)
