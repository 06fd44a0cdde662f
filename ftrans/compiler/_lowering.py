"""What both backends' code generators share: the lowering table, how literals and casts are
spelled (one :class:`Dialect` per target language), the operand casts of an elementwise
equation and the integer ranges the generated code computes exactly.

The lowering table
------------------
A backend lowers an equation by the ``"kind"`` of its primitive's ``lowering`` entry
(``Primitive.lowering``, set in the primitive's own file; the op table's rows set it for
elementwise operations).  A backend's :class:`LoweringTable` maps each kind it compiles to a
*rule*: ``(ok, emit)``, where ``ok(eqn, low, table) -> bool`` says whether this equation
lowers (dtypes, params, and for control flow whether its nested programs do:
``table.region_lowerable``; False: it graph-breaks to the primitive's impl) and
``emit(cg, i, eqn, low)`` writes its code through the backend's code generator ``cg``.  A new kind is a new
row: the backends that do not list it graph-break there.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..core.ir import IR, Eqn, Literal
from ._passes import prepare

__all__ = ["Dialect", "NUMBA", "CUDA", "LoweringTable", "operand_casts", "integer_exact",
           "int_operand_range"]


# ---------------------------------------------------------------------------------
# the lowering table
# ---------------------------------------------------------------------------------
Rule = tuple[Callable[[Eqn, dict[str, Any], "LoweringTable"], bool], Callable[..., None]]


class LoweringTable:
    """A backend's rules: lowering kind -> ``(ok(eqn, low, table), emit(cg, i, eqn, low))``."""

    def __init__(self, rules: Mapping[str, Rule], new_memory: frozenset[str] = frozenset()
                 ) -> None:
        self.rules = dict(rules)
        self.new_memory = new_memory  # kinds whose output is always a new array

    def rule(self, eqn: Eqn) -> Rule | None:
        """The rule lowering ``eqn`` (None: it graph-breaks)."""
        low = eqn.prim.lowering
        if low is None:
            return None
        r = self.rules.get(low.get("kind"))
        if r is None or not r[0](eqn, low, self):
            return None
        return r

    def lowerable(self, eqn: Eqn) -> bool:
        """Whether the backend compiles ``eqn`` (else it graph-breaks to its impl)."""
        return self.rule(eqn) is not None

    def region_lowerable(self, ir: IR) -> bool:
        """Whether every equation of the nested program ``ir`` (prepared:
        :func:`ftrans.compiler._passes.prepare`) lowers, so that it compiles into one
        function (else the equation holding it graph-breaks)."""
        ok = ir.cache.get(("region_lowerable", id(self)))
        if ok is None:
            ok = ir.cache[("region_lowerable", id(self))] = all(
                self.lowerable(e) for e in prepare(ir).eqns)
        return ok

    def writes_new_memory(self, eqn: Eqn) -> bool:
        """Whether the generated code always writes ``eqn``'s output to a new array (a
        fused loop's store, a matrix product, a concatenation), never a view of an
        operand."""
        return self.lowerable(eqn) and eqn.prim.lowering["kind"] in self.new_memory


# ---------------------------------------------------------------------------------
# literals and casts, per target language
# ---------------------------------------------------------------------------------
def _float_src(x: float, nan: str, inf: str) -> str:
    if x != x:
        return nan
    if x in (float("inf"), float("-inf")):
        return inf if x > 0 else f"(-{inf})"
    return repr(x)


class Dialect:
    """How one target language spells types, literals and conversions."""

    def __init__(self, ty: Callable[[np.dtype[Any]], str], true: str, false: str, nan: str,
                 inf: str, convert: Callable[[str, str], str],
                 complex_lit: Callable[[str, str, str], str], real: Callable[[str], str],
                 native: Callable[[np.dtype[Any]], bool],
                 rounding: Mapping[str, str] | None = None) -> None:
        self.ty = ty                  # dtype -> the language's type name
        self.true, self.false = true, false
        self.nan, self.inf = nan, inf
        self.convert = convert        # (expression, type name) -> converted expression
        self.complex_lit = complex_lit  # (real src, imag src, type name) -> complex literal
        self.real = real              # complex expression -> its real part
        self.native = native          # dtypes whose literals need no conversion
        # dtype name -> function rounding a wider value to that dtype, for dtypes held in a
        # wider type (numba's float16: float32 values rounded with ``_f16``)
        self.rounding = dict(rounding or {})

    def lit(self, val: Any, dt: Any) -> str:
        """Source of the Python scalar ``val`` converted to dtype ``dt`` (NumPy's cast)."""
        dt = np.dtype(dt)
        v = np.array(val).astype(dt)[()]
        if dt.kind == "b":
            return self.true if v else self.false
        if dt.kind == "c":
            return self.complex_lit(_float_src(float(v.real), self.nan, self.inf),
                                    _float_src(float(v.imag), self.nan, self.inf), self.ty(dt))
        s = _float_src(float(v), self.nan, self.inf) if dt.kind == "f" else str(int(v))
        return s if self.native(dt) else self.convert(s, self.ty(dt))

    def cast(self, expr: str, src: Any, dst: Any) -> str:
        """``expr`` (of dtype ``src``) converted to ``dst`` as NumPy's ``astype`` does (a
        complex value to a real type keeps its real part)."""
        src, dst = np.dtype(src), np.dtype(dst)
        if src == dst:
            return expr
        if dst.kind == "b":
            return f"(({expr}) != 0)"
        if src.kind == "c" and dst.kind != "c":
            expr = self.real(expr)
            if np.dtype(f"f{src.itemsize // 2}") == dst:
                return expr
        if dst.name in self.rounding:
            return f"{self.rounding[dst.name]}({expr})"
        return self.convert(expr, self.ty(dst))


def _numba_ty(dt: Any) -> str:
    dt = np.dtype(dt)
    if dt.name == "float16":  # numba has no float16 on the CPU: float32 holds its values
        return "np.float32"
    return "np.bool_" if dt.kind == "b" else f"np.{dt.name}"


#: numba (Python syntax; ``np`` is NumPy): 64-bit floats, ints and bools are native;
#: float16 values are float32 values rounded to float16 by ``_f16``
#: (``ftrans/compiler/_numba_cplx_support.py``), as NumPy's float16 loops compute in
#: float32 and round each result
NUMBA = Dialect(
    ty=_numba_ty, true="True", false="False", nan="np.nan", inf="np.inf",
    convert=lambda e, t: f"{t}({e})",
    complex_lit=lambda re, im, t: (f"complex({re}, {im})" if t == "np.complex128"
                                   else f"{t}(complex({re}, {im}))"),
    real=lambda e: f"({e}).real",
    native=lambda dt: dt in (np.dtype(np.float64), np.dtype(np.int64), np.dtype(np.bool_)),
    rounding={"float16": "_f16"})

_CTYPES = {"float64": "double", "float32": "float", "int64": "long long", "int32": "int",
           "int16": "short", "int8": "signed char", "uint8": "unsigned char",
           "uint16": "unsigned short", "uint32": "unsigned int", "uint64": "unsigned long long",
           "bool": "bool", "complex128": "complex<double>", "complex64": "complex<float>"}

#: infinity and NaN in CUDA C++ as double constants from their bits (NVRTC, which CuPy
#: compiles with, has no math.h: ``INFINITY`` and ``NAN`` are undefined there)
CUDA_INF = "__longlong_as_double(0x7ff0000000000000LL)"
CUDA_NAN = "__longlong_as_double(0x7ff8000000000000LL)"

#: CUDA C++ (CuPy's kernels; ``complex<T>`` is thrust's)
CUDA = Dialect(
    ty=lambda dt: _CTYPES[dt.name], true="true", false="false", nan=CUDA_NAN, inf=CUDA_INF,
    convert=lambda e, t: f"(({t})({e}))",
    complex_lit=lambda re, im, t: f"{t}({re}, {im})",
    real=lambda e: f"real({e})",
    native=lambda dt: dt == np.dtype(np.float64))


# ---------------------------------------------------------------------------------
# operand casts and exact integers
# ---------------------------------------------------------------------------------
def _weak_type(a: Any) -> Any:
    """The operand's type for promotion: a literal's Python type (weak, NEP 50)."""
    if type(a) is Literal:
        return a.val
    if a.aval.weak_type:
        return a.aval.dtype.type(0).item()
    return a.aval.dtype


def operand_casts(eqn: Eqn, low: dict[str, Any]) -> list[np.dtype[Any] | None]:
    """The dtype each operand of an elementwise equation is converted to (None: none), by
    the entry's ``"cast"`` spec (see :mod:`ftrans.compiler`)."""
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


def int_operand_range(eqn: Eqn, k: int) -> tuple[int, int]:
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
                            _weak_type(a) for a in eqn.inputs]), operand_casts(eqn, low)[k]]
    for dt in dts:
        if dt is not None and dt.kind in "iu":
            info = np.iinfo(dt)
            lo, hi = max(lo, int(info.min)), min(hi, int(info.max))
    return lo, hi


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
