"""Types in the generated numba code (see :mod:`ftrans.compiler._numba`): which equations and
dtypes lower, how literals and casts are spelled, and the value range of integer operands
(what keeps NumPy's integer results exact in int64 arithmetic)."""
from __future__ import annotations

import numpy as np

from ..core.ir import Eqn, Literal

__all__ = ["lowerable", "integer_exact", "writes_new_memory", "int_operand_range"]

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


def lowerable(eqn: Eqn) -> bool:
    """Whether the numba backend can compile ``eqn`` (else it graph-breaks)."""
    low = eqn.prim.lowering
    if low is None or eqn.prim.multiple_results:
        return False
    kind = low.get("kind")
    allow_c = bool(low.get("complex", False))
    avals = [a.aval for a in eqn.inputs] + [o.aval for o in eqn.outputs]
    if kind == "elementwise":
        if "numba" not in low or low["numba"] is None:
            return False
        return all(_dtype_ok(a.dtype, allow_c) for a in avals) and integer_exact(eqn)
    if kind in ("reshape", "transpose", "broadcast_to", "concatenate"):
        return all(_dtype_ok(a.dtype, True) for a in avals)
    if kind == "reduce":
        x = eqn.inputs[0].aval.dtype
        out = eqn.outputs[0].aval.dtype
        if x != out or not _dtype_ok(x, False):
            return False
        if low["monoid"] in ("sum", "prod") and (x.kind == "b" or (x.kind in "iu" and x.itemsize < 8)):
            return False  # NumPy promotes small integers to the default int
        return True
    if kind == "dot_general":
        return all(np.dtype(a.dtype).kind in "fc" and _dtype_ok(a.dtype, True) for a in avals)
    return False


def integer_exact(eqn: Eqn) -> bool:
    """Whether a generated scalar expression for the elementwise ``eqn`` computes what
    NumPy does on integers (both backends; False: the equation graph-breaks to its impl,
    which gives NumPy's result or error).  Not for

    * a Python int literal outside the range of the integer dtype it meets
      (:func:`int_operand_range`): NumPy compares exact values or raises
      ``OverflowError`` where the converted literal would wrap;
    * integer ``pow``: an array exponent may be negative (NumPy raises ``ValueError``),
      and C's and numba's ``pow`` go through float64;
    * integer ``integer_pow`` with a negative exponent (NumPy raises ``ValueError``);
    * integer ``floor_divide``: numba gives 0 for int8 ``-128 // -1`` (NumPy: -128).
    """
    for k, a in enumerate(eqn.inputs):
        if type(a) is Literal and type(a.val) is int:
            lo, hi = int_operand_range(eqn, k)
            if not lo <= a.val <= hi:
                return False
    if eqn.outputs[0].aval.dtype.kind in "iub":
        name = eqn.prim.name
        if name in ("pow", "floor_divide") or (name == "integer_pow" and eqn.params["n"] < 0):
            return False
    return True


def writes_new_memory(eqn: Eqn) -> bool:
    """Whether the generated code always writes ``eqn``'s output to a new array (a fused
    loop's store, ``np.dot``, a concatenation), never returning a view of an operand."""
    return lowerable(eqn) and eqn.prim.lowering["kind"] in ("elementwise", "dot_general",
                                                             "concatenate")


# ---------------------------------------------------------------------------------
# literals and casts
# ---------------------------------------------------------------------------------
def _tyname(dt):
    dt = np.dtype(dt)
    return "np.bool_" if dt.kind == "b" else f"np.{dt.name}"


def _float_lit(x):
    x = float(x)
    if x != x:
        return "np.nan"
    if x in (float("inf"), float("-inf")):
        return "np.inf" if x > 0 else "(-np.inf)"
    return repr(x)


def _lit(val, dt):
    """Source of the Python scalar ``val`` converted to dtype ``dt`` (NumPy's cast)."""
    dt = np.dtype(dt)
    v = np.array(val).astype(dt)[()]
    if dt.kind == "b":
        return "True" if v else "False"
    if dt.kind == "f":
        s = _float_lit(v)
        return s if dt.itemsize == 8 else f"np.float32({s})"
    if dt.kind in "iu":
        return str(int(v)) if dt == np.int64 else f"{_tyname(dt)}({int(v)})"
    s = f"complex({_float_lit(v.real)}, {_float_lit(v.imag)})"
    return s if dt.itemsize == 16 else f"np.complex64({s})"


def _cast(expr, src, dst):
    src, dst = np.dtype(src), np.dtype(dst)
    if src == dst:
        return expr
    if dst.kind == "b":
        return f"({expr} != 0)"
    if src.kind == "c" and dst.kind != "c":
        expr = f"({expr}).real"
        src = np.dtype(f"f{src.itemsize // 2}")
        if src == dst:
            return expr
    return f"{_tyname(dst)}({expr})"


def _result(expr, dt):
    """Force the scalar ``expr`` to dtype ``dt`` (numba computes small ints in int64 and
    mixes float32 with Python literals as float64)."""
    dt = np.dtype(dt)
    if dt in (np.dtype(np.float64), np.dtype(np.bool_), np.dtype(np.complex128)):
        return expr
    return f"{_tyname(dt)}({expr})"


def _weak_type(a):
    """The operand's type for promotion: a literal's Python type (weak, NEP 50)."""
    if type(a) is Literal:
        return a.val
    if a.aval.weak_type:
        return a.aval.dtype.type(0).item()
    return a.aval.dtype


def _casts(eqn, low):
    """The dtype each operand of an elementwise equation is converted to (None: none)."""
    out = eqn.outputs[0].aval.dtype
    spec = low.get("cast", "out")
    n = len(eqn.inputs)
    if spec == "out":
        return [out] * n
    if spec == "none":
        return [None] * n
    if spec == "bool":
        return [np.dtype(bool)] * n
    if spec == "promote":
        return [np.result_type(*[_weak_type(a) for a in eqn.inputs])] * n
    return [None if s == "none" else np.dtype(bool) if s == "bool" else out for s in spec]


_I64 = (-2 ** 63, 2 ** 63 - 1)


def int_operand_range(eqn, k):
    """``(lo, hi)``: the Python ints that operand ``k`` (a literal or a weakly typed
    input) of a lowerable equation may be for the generated code to compute what NumPy
    does -- within int64 (how numba takes it) and the range of the integer dtypes it
    meets (the operands' NEP 50 common dtype, its cast).  Outside it NumPy raises
    ``OverflowError`` (arithmetic) or compares the exact values (``uint8_array < 256`` is
    all True), where a converted literal would wrap: such an equation graph-breaks (a
    literal) or the program runs its impls for that call (an argument)."""
    lo, hi = _I64
    low = eqn.prim.lowering
    if low.get("kind") != "elementwise":
        return lo, hi
    dts = [np.result_type(*[0 if type(a) is Literal and type(a.val) is int else
                            _weak_type(a) for a in eqn.inputs]), _casts(eqn, low)[k]]
    for dt in dts:
        if dt is not None and dt.kind in "iu":
            info = np.iinfo(dt)
            lo, hi = max(lo, int(info.min)), min(hi, int(info.max))
    return lo, hi
