"""Types in the generated numba code (see :mod:`ftrans.compiler._numba`): which equations and
dtypes lower, how literals and casts are spelled, and the value range of integer operands
(what keeps NumPy's integer results exact in int64 arithmetic)."""
from __future__ import annotations

import platform
import sys
from functools import lru_cache

import numpy as np

from typing import Any

from ..core.ir import Eqn
from . import _lowering
from ._lowering import integer_exact, int_operand_range
from ._numba_special_support import kernels_available

__all__ = ["OK", "integer_exact", "int_operand_range", "elementwise_expr", "lit_form",
           "fast_forms", "FAST_STEPS"]

_SUPPORTED_KINDS = set("biufc")


_F16 = np.dtype(np.float16)

#: A loop computes its guarded formulas (sin, cos) in their fast, vectorizable forms from
#: this many elements on, or from ``FAST_MIN_SIZE_MANY`` elements when it has at least
#: ``FAST_MANY`` guarded members (about as much work per call), else in their exact forms
#: only: the fast forms need a second (exact) copy of the loop for the rare inputs they do
#: not cover, which doubles numba's compile time for it, so they pay only for enough work
#: per call (W1's 16-element loop of 50 sines and cosines: 55 -> 23 us per call).
FAST_MIN_SIZE = 512
FAST_MIN_SIZE_MANY, FAST_MANY = 16, 32
#: the sizes :func:`fast_forms` tells apart (a memo key records each value's size against
#: them: ``_shape_memo.py``)
FAST_STEPS = (FAST_MIN_SIZE_MANY, FAST_MIN_SIZE)


def fast_forms(size: int, count: int) -> bool:
    """Whether a loop of ``size`` elements with ``count`` guarded members takes the fast
    forms (see :data:`FAST_MIN_SIZE`)."""
    return size >= FAST_MIN_SIZE or (size >= FAST_MIN_SIZE_MANY and count >= FAST_MANY)


#: literal values kept in the text (the others are parameters: :func:`lit_form`)
_FOLDED = (0.0, 1.0, -1.0, 2.0, 0.5)


def lit_form(val: Any, dt: np.dtype[Any]) -> tuple[bool, Any]:
    """How the generated code takes a literal operand ``val`` converted to ``dt``:
    ``(True, value)``, a parameter of the function with that Python float or complex
    value, or ``(False, text)``, written into the text (booleans, integers, NaN and the
    structural constants ``_FOLDED``)."""
    v = np.array(val).astype(dt)[()]
    if dt.kind not in "fc" or v in _FOLDED or v != v:
        return False, _lit(val, dt)
    return True, complex(v) if dt.kind == "c" else float(v)


#: The ``"numba_complex"`` expressions call the C library's complex functions by the
#: x86-64 System V convention (``_numba_cplx_support.py``), where NumPy calls the same
#: functions; elsewhere (Windows, other processors) complex operations keep their
#: ``"numba"`` expression where the entry allows complex (``"complex": True``) and
#: graph-break otherwise.
NUMBA_COMPLEX = sys.platform != "win32" and platform.machine().lower() in ("x86_64", "amd64")


@lru_cache(maxsize=None)
def _dtype_ok(dt: Any, allow_complex: bool) -> bool:
    dt = np.dtype(dt)
    if dt.kind not in _SUPPORTED_KINDS or dt.itemsize > 16:
        return False
    if dt.kind == "f" and dt.itemsize not in (2, 4, 8):
        return False
    if dt.kind == "c" and (dt.itemsize not in (8, 16) or not allow_complex):
        return False
    return True


def _has_complex(eqn: Eqn) -> bool:
    return any(a.aval.dtype.kind == "c" for a in (*eqn.inputs, *eqn.outputs))


def elementwise_expr(eqn: Eqn, low: dict[str, Any]) -> tuple[str, bool]:
    """``(format string, guarded)``: the numba expression of an elementwise equation --
    the entry's ``"numba_complex"`` where an operand or the result is complex and the
    entry has one (a function computing NumPy's complex result), else ``"numba"`` --
    and whether the entry's ``"guard"``/``"numba_exact"`` pair applies to it."""
    if NUMBA_COMPLEX and "numba_complex" in low and _has_complex(eqn):
        return low["numba_complex"], False
    fmt = numba_format(eqn, low)
    assert fmt is not None   # (_elementwise_ok)
    return fmt, low.get("guard") is not None


def numba_format(eqn: Eqn, low: dict[str, Any]) -> str | None:
    """The entry's ``"numba"`` expression for ``eqn``: the string, or where the entry
    gives one per value of a parameter (``"numba"`` a dict, ``"numba_param"`` the
    parameter's name: ``integer_elementwise``'s ``fn``), the one for ``eqn``'s value
    (None: no CPU lowering)."""
    fmt = low.get("numba")
    if isinstance(fmt, dict):
        return fmt.get(eqn.params[low["numba_param"]])
    return fmt


def _elementwise_ok(eqn: Eqn, low: dict[str, Any], table: Any = None) -> bool:
    fmt = numba_format(eqn, low)
    if fmt is None:
        return False
    # complex operands: an entry whose expression is right for them ("complex") or that
    # has its own complex expression ("numba_complex")
    allow_c = bool(low.get("complex", False)) or (NUMBA_COMPLEX and "numba_complex" in low)
    dts = [a.aval.dtype for a in (*eqn.inputs, *eqn.outputs)]
    if _F16 in dts and low.get("float16") is False:
        return False  # its float32 form would not give NumPy's float16 bits everywhere
    if "_sp" in fmt and not kernels_available(fmt, np.dtype(np.float32) in dts):
        return False  # this SciPy lacks a kernel the expression calls: SciPy's ufunc runs
    return all(_dtype_ok(dt, allow_c) for dt in dts) and integer_exact(eqn)


def _structural_ok(eqn: Eqn, low: dict[str, Any], table: Any = None) -> bool:
    return all(_dtype_ok(a.aval.dtype, True) for a in (*eqn.inputs, *eqn.outputs))


def _reduce_ok(eqn: Eqn, low: dict[str, Any], table: Any = None) -> bool:
    x = eqn.inputs[0].aval.dtype
    out = eqn.outputs[0].aval.dtype
    # complex: sum and prod (NumPy's max/min order complex numbers lexicographically)
    if x != out or not _dtype_ok(x, low["monoid"] in ("sum", "prod")):
        return False
    if low["monoid"] in ("sum", "prod") and (x.kind == "b" or (x.kind in "iu" and x.itemsize < 8)):
        return False  # NumPy promotes small integers to the default int
    if low["monoid"] in ("sum", "prod") and x == _F16:
        return False  # NumPy sums float16 pairwise in float32 and rounds once: not this loop
    return True


def _dot_ok(eqn: Eqn, low: dict[str, Any], table: Any = None) -> bool:
    return all(a.aval.dtype.kind in "fc" and a.aval.dtype != _F16
               and _dtype_ok(a.aval.dtype, True) for a in (*eqn.inputs, *eqn.outputs))


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


def _result(expr: str, dt: Any) -> str:
    """Force the scalar ``expr`` to dtype ``dt`` (numba computes small ints in int64 and
    mixes float32 with Python literals as float64)."""
    dt = np.dtype(dt)
    if dt in (np.dtype(np.float64), np.dtype(np.bool_), np.dtype(np.complex128)):
        return expr
    if dt.name in _lowering.NUMBA.rounding:  # float16: computed in float32, rounded
        return f"{_lowering.NUMBA.rounding[dt.name]}({expr})"
    return f"{_tyname(dt)}({expr})"


def _tuple(items: Any) -> str:
    """Source of a tuple of the sources ``items``."""
    return "(" + "".join(f"{s}, " for s in items) + ")"


#: a reduction's monoid: (its initial value of a dtype -> source, combine(acc, val, kind)
#: -> the statement accumulating ``val`` into ``acc``; ``kind``: the accumulator's dtype kind)
MONOID = {
    "sum": (lambda dt: _lit(0, dt), lambda acc, v, k: f"{acc} += {v}"),
    "prod": (lambda dt: _lit(1, dt), lambda acc, v, k: f"{acc} *= {v}"),
    "max": (lambda dt: ("(-np.inf)" if dt.kind == "f" else
                        _lit(np.iinfo(dt).min, dt) if dt.kind in "iu" else "False"),
            lambda acc, v, k: (f"{acc} = {v} if ({v} > {acc} or {v} != {v}) else {acc}"
                               if k == "f" else f"{acc} = max({acc}, {v})")),
    "min": (lambda dt: ("np.inf" if dt.kind == "f" else
                        _lit(np.iinfo(dt).max, dt) if dt.kind in "iu" else "True"),
            lambda acc, v, k: (f"{acc} = {v} if ({v} < {acc} or {v} != {v}) else {acc}"
                               if k == "f" else f"{acc} = min({acc}, {v})")),
}
