"""Special functions that generated numba programs call (imported by the generated modules).

``_sp_<name>`` (one per entry of :data:`KERNELS`) calls SciPy's own compiled kernel of
``scipy.special.<name>`` -- the function ``scipy.special.cython_special`` exports, the
one SciPy's ufunc loops call -- so the compiled result is SciPy's, bit for bit:

* float64 operands call the ``double`` kernel; float32 operands the ``float`` kernel where
  SciPy's float32 ufunc loop has one of its own (``erfinv``, ``betainc``), else the
  ``double`` kernel on the operands widened to float64, rounded to float32 (what SciPy's
  float32 loops compute); float16 operands arrive as float32 (the compiler holds float16
  in float32) and the compiler rounds the result to float16, as NumPy rounds SciPy's
  float32 result.
* The kernels are found without importing SciPy when a generated module is imported
  (``import scipy.special`` costs ~0.35 s; most programs call no special function), and
  without a process-specific address in the compiled code (numba would not cache it): the
  code reads the kernel's address from a slot, the symbol ``ftrans_sp_<capi name>`` (a
  64-bit word registered with LLVM when this module is imported), and while the slot is 0
  calls the symbol ``ftrans_sp_resolve`` (a ctypes callback) with the slot's address;
  that imports ``scipy.special.cython_special``, checks the kernel's C signature and
  fills the slot.  So the machine code is the same in every process and numba's on-disk
  cache holds it; the first call of a kernel in a process resolves it once (the
  segments release the GIL, so a worker thread of a parallel loop may take it).  A
  kernel that cannot be found (a SciPy that renamed it) gives NaN with a
  ``RuntimeWarning``; ``tests/compiler/test_special_ops.py`` resolves every entry.
"""
from __future__ import annotations

import ctypes
import math
import warnings
from typing import Any, Callable

import llvmlite.binding as llvm
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

#: ``scipy.special`` name -> (C type of the kernel, number of arguments, the
#: ``cython_special`` C-API names of the double kernel and of the float kernel (None: the
#: double kernel serves float32)).  ``airy``'s kernel returns its four values through
#: pointers (``_sp_airy_ai``/``_sp_airy_aip`` read the first two).
KERNELS: dict[str, tuple[int, str, str | None]] = {
    "erf": (1, "__pyx_fuse_1erf", None),
    "erfc": (1, "__pyx_fuse_1erfc", None),
    "erfinv": (1, "__pyx_fuse_0erfinv", "__pyx_fuse_1erfinv"),
    "gammaln": (1, "gammaln", None),
    "psi": (1, "__pyx_fuse_1psi", None),
    "i0": (1, "i0", None),
    "i1": (1, "i1", None),
    "i0e": (1, "i0e", None),
    "i1e": (1, "i1e", None),
    "ndtr": (1, "__pyx_fuse_1ndtr", None),
    "ndtri": (1, "ndtri", None),
    "log_ndtr": (1, "__pyx_fuse_1log_ndtr", None),
    "erfcx": (1, "__pyx_fuse_1erfcx", None),
    "erfcinv": (1, "erfcinv", None),
    "rgamma": (1, "__pyx_fuse_1rgamma", None),
    "gammasgn": (1, "gammasgn", None),
    "j0": (1, "j0", None),
    "j1": (1, "j1", None),
    "y0": (1, "y0", None),
    "y1": (1, "y1", None),
    "gammainc": (2, "gammainc", None),
    "gammaincc": (2, "gammaincc", None),
    "jv": (2, "__pyx_fuse_1jv", None),
    "yv": (2, "__pyx_fuse_1yv", None),
    "iv": (2, "__pyx_fuse_1iv", None),
    "ive": (2, "__pyx_fuse_1ive", None),
    "kv": (2, "__pyx_fuse_1kv", None),
    "kve": (2, "__pyx_fuse_1kve", None),
    "betainc": (3, "__pyx_fuse_0betainc", "__pyx_fuse_1betainc"),
}
_AIRY = "__pyx_fuse_1airy"


def _c_signature(capi: str, n: int) -> str:
    """The C signature ``cython_special.__pyx_capi__[capi]`` must have."""
    if capi == _AIRY:
        return "void (double, double *, double *, double *, double *)"
    ty = "float" if capi.startswith("__pyx_fuse_1") and capi[12:] in ("erfinv", "betainc") \
        else "double"
    return f"{ty} ({', '.join([ty] * n)}, int __pyx_skip_dispatch)"


# ---------------------------------------------------------------------------------
# slots and the resolver (registered with LLVM on import: no SciPy import here)
# ---------------------------------------------------------------------------------
_SLOTS: dict[str, ctypes.c_uint64] = {}
_BY_ADDRESS: dict[int, tuple[str, int]] = {}
_FALLBACKS: list[Any] = []  # NaN-returning ctypes callbacks of unresolvable kernels


def _slot_symbol(capi: str) -> str:
    return "ftrans_sp_" + capi


def _nan_kernel(capi: str, n: int) -> int:
    """The address of a C function of ``capi``'s signature returning NaN (airy: NaNs)."""
    if capi == _AIRY:
        dp = ctypes.POINTER(ctypes.c_double)

        def airy(x: float, *outs: Any) -> None:
            for o in outs:
                o[0] = math.nan
        cb: Any = ctypes.CFUNCTYPE(None, ctypes.c_double, dp, dp, dp, dp)(airy)
    else:
        ty = ctypes.c_float if "float (" in _c_signature(capi, n) else ctypes.c_double
        cb = ctypes.CFUNCTYPE(ty, *([ty] * n), ctypes.c_int)(lambda *a: math.nan)
    _FALLBACKS.append(cb)
    return ctypes.cast(cb, ctypes.c_void_p).value or 0


def resolve(capi: str, n: int) -> int:
    """The address of ``cython_special``'s kernel ``capi`` (of ``n`` arguments), its C
    signature checked; fills its slot.  Raises ``LookupError`` naming the kernel where
    SciPy has no such kernel or another signature."""
    # deferred: importing scipy.special costs ~0.35 s, paid only by a program that calls it
    import scipy.special.cython_special as cs
    from numba.extending import get_cython_function_address
    capsule = cs.__pyx_capi__.get(capi)
    want = _c_signature(capi, n)
    if capsule is None or f'"{want}"' not in repr(capsule):
        raise LookupError(
            f"ftrans.compiler: scipy.special.cython_special has no kernel {capi!r} of C "
            f"signature {want!r} (got {capsule!r}); this SciPy is not the one "
            "ftrans/compiler/_numba_special_support.py's KERNELS table was written for")
    addr = int(get_cython_function_address("scipy.special.cython_special", capi))
    _SLOTS[capi].value = addr
    return addr


def _resolve_slot(slot_address: int) -> int:
    """The resolver the compiled code calls (a ctypes callback: it takes the GIL)."""
    capi, n = _BY_ADDRESS[slot_address]
    try:
        return resolve(capi, n)
    except Exception as e:  # noqa: BLE001 -- nothing propagates through compiled code
        addr = _nan_kernel(capi, n)
        _SLOTS[capi].value = addr
        try:
            warnings.warn(f"{e}; the compiled program computes NaN in its place",
                          RuntimeWarning)
        except Exception:  # noqa: BLE001 -- warnings as errors: still return the address
            pass
        return addr


_RESOLVER = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_uint64)(_resolve_slot)


def _register() -> None:
    entries = [(cd, n) for n, cd, _ in KERNELS.values()]
    entries += [(cf, n) for n, _, cf in KERNELS.values() if cf is not None]
    entries.append((_AIRY, 1))
    for capi, n in entries:
        slot = ctypes.c_uint64(0)
        _SLOTS[capi] = slot
        _BY_ADDRESS[ctypes.addressof(slot)] = (capi, n)
        llvm.add_symbol(_slot_symbol(capi), ctypes.addressof(slot))
    llvm.add_symbol("ftrans_sp_resolve", ctypes.cast(_RESOLVER, ctypes.c_void_p).value)


_register()


# ---------------------------------------------------------------------------------
# code generation (numba intrinsics)
# ---------------------------------------------------------------------------------
_I64 = ir.IntType(64)
_I32 = ir.IntType(32)
_F64 = ir.DoubleType()
_F32 = ir.FloatType()


def _address(builder: ir.IRBuilder, capi: str) -> ir.Value:
    """The kernel's address: its slot, resolved on first use."""
    mod = builder.module
    sym = _slot_symbol(capi)
    slot = mod.globals.get(sym)
    if slot is None:
        slot = ir.GlobalVariable(mod, _I64, sym)  # external: the registered word
    addr = cgutils.alloca_once_value(builder, builder.load(slot))
    with builder.if_then(builder.icmp_unsigned("==", builder.load(addr), _I64(0)),
                         likely=False):
        fn = cgutils.get_or_insert_function(mod, ir.FunctionType(_I64, [_I64]),
                                            "ftrans_sp_resolve")
        builder.store(builder.call(fn, [builder.ptrtoint(slot, _I64)]), addr)
    return builder.load(addr)


def _convert(builder: ir.IRBuilder, v: ir.Value, src: ir.Type, dst: ir.Type) -> ir.Value:
    if src == dst:
        return v
    return builder.fpext(v, dst) if dst == _F64 else builder.fptrunc(v, dst)


def _kernel_call(name: str) -> Callable[..., Any]:
    """The intrinsic ``_sp_<name>(*floats)`` calling SciPy's kernel of ``name``."""
    n, cdouble, cfloat = KERNELS[name]

    def typed(*args: Any) -> Any:
        if not all(isinstance(a, types.Float) for a in args):
            return None
        # the operands are cast to the result dtype: all float32 or all float64
        res = types.float32 if all(a == types.float32 for a in args) else types.float64

        def codegen(context: Any, builder: ir.IRBuilder, sig: Any, llargs: Any) -> Any:
            rty = context.get_value_type(res)
            kty = _F32 if (res == types.float32 and cfloat is not None) else _F64
            capi = cfloat if kty == _F32 else cdouble
            cargs = [_convert(builder, context.cast(builder, v, t, res), rty, kty)
                     for v, t in zip(llargs, sig.args)]
            fnty = ir.FunctionType(kty, [kty] * n + [_I32])
            fp = builder.inttoptr(_address(builder, capi), fnty.as_pointer())
            r = builder.call(fp, cargs + [_I32(0)])
            return _convert(builder, r, kty, rty)
        return res(*args), codegen

    # (numba's intrinsics take no *args: one typing function per arity)
    def typer1(typingctx: Any, a: Any) -> Any:
        return typed(a)

    def typer2(typingctx: Any, a: Any, b: Any) -> Any:
        return typed(a, b)

    def typer3(typingctx: Any, a: Any, b: Any, c: Any) -> Any:
        return typed(a, b, c)

    typer = (typer1, typer2, typer3)[n - 1]
    typer.__name__ = f"_sp_{name}"
    return intrinsic(typer)  # type: ignore[no-any-return]


def _airy_call(k: int) -> Callable[..., Any]:
    """The intrinsic of the ``k``-th value of SciPy's ``airy`` (0: Ai, 1: Ai')."""
    def typer(typingctx: Any, x: Any) -> Any:
        if not isinstance(x, types.Float):
            return None

        def codegen(context: Any, builder: ir.IRBuilder, sig: Any, llargs: Any) -> Any:
            rty = context.get_value_type(x)
            outs = [cgutils.alloca_once(builder, _F64) for _ in range(4)]
            fnty = ir.FunctionType(ir.VoidType(), [_F64] + [_F64.as_pointer()] * 4)
            fp = builder.inttoptr(_address(builder, _AIRY), fnty.as_pointer())
            builder.call(fp, [_convert(builder, llargs[0], rty, _F64)] + outs)
            return _convert(builder, builder.load(outs[k]), _F64, rty)
        return x(x), codegen

    typer.__name__ = "_sp_airy_ai" if k == 0 else "_sp_airy_aip"
    return intrinsic(typer)  # type: ignore[no-any-return]


_SP: dict[str, Any] = {f"_sp_{name}": _kernel_call(name) for name in KERNELS}
_SP["_sp_airy_ai"] = _airy_call(0)
_SP["_sp_airy_aip"] = _airy_call(1)
globals().update(_SP)

__all__ = list(_SP)

