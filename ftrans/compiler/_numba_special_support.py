"""Special functions that generated numba programs call (imported by the generated modules).

``_sp1(name, x)``, ``_sp2(name, a, x)``, ``_sp3(name, a, b, x)`` (``name`` a string
literal: ``"sc_"`` and the ``scipy.special`` name, or ``"sc_airy_ai"``/``"sc_airy_aip"``
for the first two values of ``airy``; the prefix keeps names such as ``j0`` from reading
as the generated code's locals, which the code generator renames in the text) call SciPy's own compiled kernel -- the function
``scipy.special.cython_special`` exports, which SciPy's ufunc loops call -- so the
compiled result is SciPy's, bit for bit.  A primitive's lowering entry names it, e.g.
``{"kind": "elementwise", "numba": '_sp1("sc_erfinv", {0})', "cast": "out", ...}``.

* float64 operands call the ``double`` kernel; float32 operands the ``float`` kernel where
  SciPy's float32 ufunc loop has one of its own (:data:`FLOAT_KERNELS`), else the
  ``double`` kernel on the operands widened to float64, rounded to float32 (what SciPy's
  float32 loops compute).  float16 is not for these (SciPy computes it in its float32 or
  its float64 loop, whichever its ``types`` list first): the entries graph-break it.
* No SciPy import when a generated module is imported (``import scipy.special`` costs
  ~0.35 s; most programs call no special function), and no process-specific address in
  the machine code (numba would not cache it): the code keeps the kernel's address in a
  zero-initialized word of its own and, while that is 0, calls the symbol
  ``ftrans_sp_resolve`` (a ctypes callback registered with LLVM when this module is
  imported) with the kernel's name and C signature; that imports
  ``scipy.special.cython_special`` and returns the address of the entry of
  ``__pyx_capi__`` with exactly that signature.  So numba's on-disk cache holds the
  code, and a process resolves each kernel once, on its first call (the segments release
  the GIL, so a worker thread of a parallel loop may take it).  A kernel that cannot be
  found (a SciPy without it) is refused when the program is compiled
  (:func:`kernels_available`, the elementwise rule's check): that equation graph-breaks to
  SciPy's ufunc.  (The resolver's NaN result with a ``RuntimeWarning`` is only a last
  guard; ``tests/compiler/test_special_ops.py`` resolves every kernel the primitives name.)
"""
from __future__ import annotations

import ctypes
import functools
import math
import re
import warnings
from typing import Any

import llvmlite.binding as llvm
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import get_cython_function_address, intrinsic

__all__ = ["_sp1", "_sp2", "_sp3"]  # (the generated modules import *)

#: The functions whose float32 SciPy loop has a float kernel of its own (the others'
#: float32 loops compute in double and round).
FLOAT_KERNELS = frozenset({"erfinv", "betainc"})
#: ``airy_ai``/``airy_aip``: the first two of the four values of SciPy's ``airy`` kernel
_AIRY = {"airy_ai": 0, "airy_aip": 1}


def _c_signature(name: str, ctype: str, n: int) -> str:
    """The C signature of ``cython_special``'s kernel of ``name`` in ``ctype``."""
    if name == "airy":
        return "void (double, double *, double *, double *, double *)"
    return f"{ctype} ({', '.join([ctype] * n)}, int __pyx_skip_dispatch)"


@functools.lru_cache(maxsize=None)
def resolve(name: str, ctype: str, n: int) -> int:
    """The address of ``scipy.special.cython_special``'s kernel of ``name`` (the
    ``scipy.special`` name; ``"airy"``) taking ``n`` arguments of C type ``ctype``
    (``"double"``, ``"float"``): the entry of ``__pyx_capi__`` (``name`` or a fused
    specialization ``__pyx_fuse_<k>name``) of exactly that signature.  Raises
    ``LookupError`` naming the kernel where this SciPy has none."""
    # deferred: importing scipy.special costs ~0.35 s, paid only by a program calling it
    import scipy.special.cython_special as cs
    want = f'"{_c_signature(name, ctype, n)}"'
    for capi, capsule in cs.__pyx_capi__.items():
        if (capi == name or capi.startswith("__pyx_fuse_") and
                capi[11:].lstrip("0123456789_") == name) and want in repr(capsule):
            return int(get_cython_function_address("scipy.special.cython_special", capi))
    raise LookupError(f"ftrans.compiler: scipy.special.cython_special has no kernel of "
                      f"{name!r} with the C signature {want}; the compiled program cannot "
                      "call SciPy's kernel (this SciPy has another)")


_CALL = re.compile(r'_sp(\d)\("sc_(\w+)"')


def kernels_available(expr: str, float32: bool) -> bool:
    """Whether this SciPy has every kernel the lowering expression ``expr`` calls (for
    float32 operands where ``float32``); False makes the equation graph-break to SciPy's
    ufunc instead of computing NaN in place of a missing kernel."""
    for n, name in _CALL.findall(expr):
        try:
            if name in _AIRY:
                resolve("airy", "double", 1)
            else:
                resolve(name, "float" if float32 and name in FLOAT_KERNELS else "double",
                        int(n))
        except LookupError:
            return False
    return True


# ---------------------------------------------------------------------------------
# the resolver the compiled code calls (registered with LLVM on import: no SciPy here)
# ---------------------------------------------------------------------------------
_FALLBACKS: list[Any] = []  # NaN-returning ctypes callbacks of unresolvable kernels


def _nan_kernel(name: str, ctype: str, n: int) -> int:
    """The address of a C function of the kernel's signature giving NaN."""
    if name == "airy":
        dp = ctypes.POINTER(ctypes.c_double)

        def airy(x: float, *outs: Any) -> None:
            for o in outs:
                o[0] = math.nan
        cb: Any = ctypes.CFUNCTYPE(None, ctypes.c_double, dp, dp, dp, dp)(airy)
    else:
        ty = ctypes.c_float if ctype == "float" else ctypes.c_double
        cb = ctypes.CFUNCTYPE(ty, *([ty] * n), ctypes.c_int)(lambda *a: math.nan)
    _FALLBACKS.append(cb)
    return ctypes.cast(cb, ctypes.c_void_p).value or 0


def _resolve_spec(spec: bytes) -> int:
    """``resolve`` for the compiled code: ``spec`` is ``b"name:ctype:n"``.  A ctypes
    callback (it takes the GIL; the segments release it), so nothing may raise: a kernel
    that cannot be found gives NaN, with a ``RuntimeWarning``."""
    name, ctype, n = spec.decode().split(":")
    try:
        return resolve(name, ctype, int(n))
    except Exception as e:  # noqa: BLE001 -- nothing propagates through compiled code
        addr = _nan_kernel(name, ctype, int(n))
        try:
            warnings.warn(f"{e}; it computes NaN in its place", RuntimeWarning)
        except Exception:  # noqa: BLE001 -- warnings as errors: still return the address
            pass
        return addr


_RESOLVER = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_char_p)(_resolve_spec)
llvm.add_symbol("ftrans_sp_resolve", ctypes.cast(_RESOLVER, ctypes.c_void_p).value)


# ---------------------------------------------------------------------------------
# code generation (numba intrinsics)
# ---------------------------------------------------------------------------------
_I64 = ir.IntType(64)
_I32 = ir.IntType(32)
_F64 = ir.DoubleType()
_F32 = ir.FloatType()


def _address(context: Any, builder: ir.IRBuilder, spec: str) -> ir.Value:
    """The kernel's address: a zero-initialized word of the compiled module, filled by
    the resolver on first use (machine code free of addresses: numba caches it)."""
    mod = builder.module
    gname = "ftrans_sp_slot_" + spec.replace(":", "_")
    slot = mod.globals.get(gname)
    if slot is None:
        slot = ir.GlobalVariable(mod, _I64, gname)
        slot.initializer = _I64(0)
        slot.linkage = "internal"
    addr = cgutils.alloca_once_value(builder, builder.load(slot))
    with builder.if_then(builder.icmp_unsigned("==", builder.load(addr), _I64(0)),
                         likely=False):
        fn = cgutils.get_or_insert_function(
            mod, ir.FunctionType(_I64, [ir.IntType(8).as_pointer()]), "ftrans_sp_resolve")
        found = builder.call(fn, [context.insert_const_string(mod, spec)])
        builder.store(found, slot)
        builder.store(found, addr)
    return builder.load(addr)


def _convert(builder: ir.IRBuilder, v: ir.Value, src: ir.Type, dst: ir.Type) -> ir.Value:
    if src == dst:
        return v
    return builder.fpext(v, dst) if dst == _F64 else builder.fptrunc(v, dst)


def _typed(name_ty: Any, args: tuple[Any, ...]) -> Any:
    """``(signature, codegen)`` of ``_spN("name", *args)``: SciPy's kernel of ``name``."""
    if not (isinstance(name_ty, types.StringLiteral) and name_ty.literal_value[:3] == "sc_"
            and all(isinstance(a, types.Float) for a in args)):
        return None
    name = name_ty.literal_value[3:]
    n = len(args)
    # the operands are cast to the result dtype: all float32 or all float64
    res = types.float32 if all(a == types.float32 for a in args) else types.float64

    def codegen(context: Any, builder: ir.IRBuilder, sig: Any, llargs: Any) -> Any:
        rty = context.get_value_type(res)
        xs = [context.cast(builder, v, t, res) for v, t in zip(llargs[1:], sig.args[1:])]
        if name in _AIRY:
            outs = [cgutils.alloca_once(builder, _F64) for _ in range(4)]
            fnty = ir.FunctionType(ir.VoidType(), [_F64] + [_F64.as_pointer()] * 4)
            fp = builder.inttoptr(_address(context, builder, "airy:double:1"),
                                  fnty.as_pointer())
            builder.call(fp, [_convert(builder, xs[0], rty, _F64)] + outs)
            return _convert(builder, builder.load(outs[_AIRY[name]]), _F64, rty)
        kty = _F32 if (res == types.float32 and name in FLOAT_KERNELS) else _F64
        spec = f"{name}:{'float' if kty == _F32 else 'double'}:{n}"
        fnty = ir.FunctionType(kty, [kty] * n + [_I32])
        fp = builder.inttoptr(_address(context, builder, spec), fnty.as_pointer())
        r = builder.call(fp, [_convert(builder, x, rty, kty) for x in xs] + [_I32(0)])
        return _convert(builder, r, kty, rty)
    return res(name_ty, *args), codegen


# one intrinsic per arity (numba's intrinsics take no *args); the kernel's name is a
# string literal: ``_sp1("sc_erfinv", x)``, ``_sp2("sc_jv", v, x)``, ``_sp3("sc_betainc", a, b, x)``
@intrinsic(prefer_literal=True)
def _sp1(typingctx: Any, name: Any, a: Any) -> Any:
    return _typed(name, (a,))


@intrinsic(prefer_literal=True)
def _sp2(typingctx: Any, name: Any, a: Any, b: Any) -> Any:
    return _typed(name, (a, b))


@intrinsic(prefer_literal=True)
def _sp3(typingctx: Any, name: Any, a: Any, b: Any, c: Any) -> Any:
    return _typed(name, (a, b, c))
