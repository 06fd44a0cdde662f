"""compat operations: integer-valued divisions -- ``floor_divide`` and ``div`` with
``rounding_mode='floor'/'trunc'`` (integers stay integers, a zero integer divisor is
PyTorch's ``RuntimeError: ZeroDivisionError``; floating results are recorded in the graph
with a zero gradient, as PyTorch's ``DivBackward2``)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ._tensor import Tensor, _make_plain
from .types import TensorOrNumber
from .autograd._composite import composite_class
from .. import numpy as _fnp
from ._opbase import (_any_traced, _check_int_division, _compose, _operands_or_raise,
                      _refuse_complex, _reraise_broadcast)

_DivBackward2 = composite_class("DivBackward2", ("self", "other"))
_DivBackward2s = composite_class("DivBackward2", ("self", "other"), edge_idx=(0,))


def _floordiv_fn(a: Any, b: Any) -> Any:
    return _fnp.floor_divide(a, b)


def _truncdiv_fn(a: Any, b: Any) -> Any:
    return _fnp.trunc(_fnp.true_divide(a, b))


def _int_truncdiv(a: Any, b: Any) -> Any:
    q = np.floor_divide(a, b)
    return q + ((np.remainder(a, b) != 0) & ((np.asarray(a) < 0) != (np.asarray(b) < 0)))


def _rounded_div(input: TensorOrNumber, other: TensorOrNumber, mode: str) -> Tensor:  # noqa: A002
    """``div(..., rounding_mode='floor'/'trunc')``: integers stay integers (a zero divisor
    is PyTorch's ``RuntimeError: ZeroDivisionError``); floating results are in the graph
    (``DivBackward2``) with a zero gradient, as in PyTorch."""
    _refuse_complex(input, other, kernel=f"div_{mode}_cpu")
    if mode not in ("floor", "trunc"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{mode}'")
    ad, bd, casts = _operands_or_raise(input, other)
    if not _any_traced(ad, bd) and np.result_type(ad, bd).kind in "iub":
        _check_int_division(ad, bd)
        try:
            out = (np.floor_divide if mode == "floor" else _int_truncdiv)(ad, bd)
        except ValueError as e:
            _reraise_broadcast(e, (ad, bd))
        return _make_plain(np.asarray(out))
    cls = _DivBackward2 if isinstance(other, Tensor) else _DivBackward2s
    return _compose(cls, _floordiv_fn if mode == "floor" else _truncdiv_fn, [input, other],
                    [ad, bd], mask=0, casts=casts)


def floor_divide(a: TensorOrNumber, b: TensorOrNumber) -> Tensor:
    """The quotient rounded down (``torch.floor_divide``).

    Integers stay integers; no gradient, as PyTorch's.

    Parameters
    ----------
    a : Tensor or Number
        The dividend.
    b : Tensor or Number
        The divisor (broadcast against ``a``).

    Returns
    -------
    Tensor
        The broadcast shape, the promoted dtype.

    Raises
    ------
    RuntimeError
        If an integer divisor is zero or the shapes do not broadcast.
    NotImplementedError
        If an operand is complex.
    """
    _refuse_complex(a, b, kernel="div_floor_cpu")
    ad, bd, _ = _operands_or_raise(a, b)
    _check_int_division(ad, bd)
    try:
        return _make_plain(np.asarray(np.floor_divide(ad, bd)))
    except ValueError as e:
        _reraise_broadcast(e, (ad, bd))   # (always raises)
        raise
