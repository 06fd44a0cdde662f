"""Types in the generated numba code (see :mod:`ftrans.compiler._numba`): which equations and
dtypes lower, how literals and casts are spelled, and the value range of integer operands
(what keeps NumPy's integer results exact in int64 arithmetic)."""
from __future__ import annotations

import numpy as np

from typing import Any

from ..core.ir import Eqn
from . import _lowering
from ._lowering import integer_exact, int_operand_range

__all__ = ["OK", "integer_exact", "int_operand_range"]

_SUPPORTED_KINDS = set("biufc")


def _dtype_ok(dt, allow_complex):
    dt = np.dtype(dt)
    if dt.kind not in _SUPPORTED_KINDS or dt.itemsize > 16 or dt.name == "float16":
        return False
    if dt.kind == "f" and dt.itemsize not in (4, 8):
        return False
    if dt.kind == "c" and (dt.itemsize not in (8, 16) or not allow_complex):
        return False
    return True


def _elementwise_ok(eqn: Eqn, low: dict[str, Any], table: Any = None) -> bool:
    if low.get("numba") is None:
        return False
    allow_c = bool(low.get("complex", False))
    return all(_dtype_ok(a.aval.dtype, allow_c) for a in (*eqn.inputs, *eqn.outputs)) \
        and integer_exact(eqn)


def _structural_ok(eqn: Eqn, low: dict[str, Any], table: Any = None) -> bool:
    return all(_dtype_ok(a.aval.dtype, True) for a in (*eqn.inputs, *eqn.outputs))


def _reduce_ok(eqn: Eqn, low: dict[str, Any], table: Any = None) -> bool:
    x = eqn.inputs[0].aval.dtype
    out = eqn.outputs[0].aval.dtype
    if x != out or not _dtype_ok(x, False):
        return False
    if low["monoid"] in ("sum", "prod") and (x.kind == "b" or (x.kind in "iu" and x.itemsize < 8)):
        return False  # NumPy promotes small integers to the default int
    return True


def _dot_ok(eqn: Eqn, low: dict[str, Any], table: Any = None) -> bool:
    return all(a.aval.dtype.kind in "fc" and _dtype_ok(a.aval.dtype, True)
               for a in (*eqn.inputs, *eqn.outputs))


#: the ``ok`` half of the numba backend's rules for the kinds its code generator emits
#: itself (``_numba._Codegen``); see :class:`ftrans.compiler._lowering.LoweringTable`
OK = {"elementwise": _elementwise_ok, "reduce": _reduce_ok, "dot_general": _dot_ok,
      "reshape": _structural_ok, "transpose": _structural_ok,
      "broadcast_to": _structural_ok, "concatenate": _structural_ok}


# ---------------------------------------------------------------------------------
# literals and casts
# ---------------------------------------------------------------------------------
_tyname = _lowering.NUMBA.ty
_lit = _lowering.NUMBA.lit
_cast = _lowering.NUMBA.cast


def _result(expr, dt):
    """Force the scalar ``expr`` to dtype ``dt`` (numba computes small ints in int64 and
    mixes float32 with Python literals as float64)."""
    dt = np.dtype(dt)
    if dt in (np.dtype(np.float64), np.dtype(np.bool_), np.dtype(np.complex128)):
        return expr
    return f"{_tyname(dt)}({expr})"


