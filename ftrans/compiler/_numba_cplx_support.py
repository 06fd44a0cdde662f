"""Complex scalar functions that generated numba programs call (imported by the generated
modules; see :mod:`ftrans.compiler._numba`), computing exactly what NumPy computes.

NumPy's complex ``exp``, ``log``, ``sqrt``, ``sin``, ``cos``, ``tan``, ``sinh``, ``cosh``,
``tanh``, ``arcsin``, ``arccos`` and ``arctan`` call the C library's ``cexp``, ``clog`` ...
(``cexpf`` ... for complex64; NumPy's
``npy_math_complex.c.src`` uses them where the platform has them, as glibc does).
numba's own complex functions differ from them on special values (numba's ``exp(1e300+0j)``
is ``inf+nanj``, the C library's ``inf+0j``; ``tanh(inf+0j)``: ``nan+nanj`` against
``1+0j``) and in the last bits, so these call the C library's functions themselves
(``_cexp`` ...: an LLVM call of the C function, resolved in the process, where NumPy has
already loaded it): the same bits as eager NumPy.

The others follow NumPy's own formulas, also bit for bit: ``_cmul`` (its FMA product),
``_cabs`` (its SIMD modulus), ``_cpow`` (``nc_pow``), ``_clog1p``, ``_cexpm1``
(``nc_log1p``, ``nc_expm1``) and ``_csign`` (``z / |z|``).

``_cdiv(x, y)``: complex division by NumPy's algorithm (Smith's, as NumPy's
``@TYPE@_divide`` loop in ``loops.c.src`` writes it: the ratio of the smaller to the larger
part of ``y`` and a reciprocal scale; ``x / 0`` divides each part by ``abs(y.real)``,
giving inf or nan as NumPy does, never an exception); numba's ``/`` rounds differently
(CPython's ``_Py_c_quot`` divides by the denominator) and raises ``ZeroDivisionError``
for complex64.  Real operands divide with ``/``.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir as _llir
from numba import types
from numba.extending import intrinsic, overload, register_jitable

__all__ = ["_cexp", "_clog", "_csqrt", "_csin", "_ccos", "_ctanh", "_ctan", "_csinh", "_ccosh",
           "_casin", "_cacos", "_catan", "_cdiv", "_cabs", "_cmul", "_cpow", "_clog1p",
           "_cexpm1", "_csign", "_f16"]

_I32 = _llir.IntType(32)


def _c_call(builder, context, name, sig, args):
    """Call the C library's complex function ``name`` (``name + "f"`` for complex64) on
    the complex ``args``, by the x86-64 System V convention that clang uses for
    ``double _Complex`` (two doubles per argument, a struct of two returned) and
    ``float _Complex`` (one ``<2 x float>`` per argument and returned)."""
    ty = sig.return_type
    c128 = ty == types.complex128
    fl = _llir.DoubleType() if c128 else _llir.FloatType()
    vec = _llir.VectorType(fl, 2)
    parts = [context.make_complex(builder, t, a) for t, a in zip(sig.args, args)]
    if c128:
        fnty = _llir.FunctionType(_llir.LiteralStructType([fl, fl]), [fl] * (2 * len(args)))
        cargs = [x for c in parts for x in (c.real, c.imag)]
    else:
        name += "f"
        fnty = _llir.FunctionType(vec, [vec] * len(args))
        cargs = []
        for c in parts:
            v = _llir.Constant(vec, _llir.Undefined)
            v = builder.insert_element(v, c.real, _llir.Constant(_I32, 0))
            cargs.append(builder.insert_element(v, c.imag, _llir.Constant(_I32, 1)))
    fn = builder.module.globals.get(name)
    if fn is None:
        fn = _llir.Function(builder.module, fnty, name)
    res = builder.call(fn, cargs)
    out = context.make_complex(builder, ty)
    if c128:
        out.real, out.imag = builder.extract_value(res, 0), builder.extract_value(res, 1)
    else:
        out.real = builder.extract_element(res, _llir.Constant(_I32, 0))
        out.imag = builder.extract_element(res, _llir.Constant(_I32, 1))
    return out._getvalue()


def _libm_complex(cname: str) -> Any:
    """An intrinsic ``f(z)`` calling the C library's ``cname`` (complex128) or
    ``cname + "f"`` (complex64)."""

    @intrinsic
    def call(typingctx, z):
        if z not in (types.complex128, types.complex64):
            return None

        def codegen(context, builder, sig, args):
            return _c_call(builder, context, cname, sig, args)
        return z(z), codegen
    return call


@intrinsic
def _cpow_libm(typingctx, x, y):
    """The C library's ``cpow`` (``cpowf``) of two complex numbers of one type."""
    if x not in (types.complex128, types.complex64) or y != x:
        return None

    def codegen(context, builder, sig, args):
        return _c_call(builder, context, "cpow", sig, args)
    return x(x, y), codegen


_cexp = _libm_complex("cexp")
_clog = _libm_complex("clog")
_csqrt = _libm_complex("csqrt")
_csin = _libm_complex("csin")
_ccos = _libm_complex("ccos")
_ctanh = _libm_complex("ctanh")
_ctan = _libm_complex("ctan")
_csinh = _libm_complex("csinh")
_ccosh = _libm_complex("ccosh")
_casin = _libm_complex("casin")
_cacos = _libm_complex("cacos")
_catan = _libm_complex("catan")


def _cdiv(x, y):  # pragma: no cover - replaced by the overload inside numba
    return x / y


@overload(_cdiv, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_cdiv(x, y):
    if not (isinstance(x, types.Complex) and isinstance(y, types.Complex)):
        return lambda x, y: x / y
    ty = x  # the compiler casts both operands to the output dtype first
    fty = x.underlying_float  # (a Python float literal would compute complex64 in float64)

    def impl(x, y):
        ar, ai, br, bi = x.real, x.imag, y.real, y.imag
        abr, abi = abs(br), abs(bi)
        if abr >= abi:
            if abr == 0 and abi == 0:
                return ty(complex(ar / abr, ai / abr))
            rat = bi / br
            scl = fty(1.0) / (br + bi * rat)
            return ty(complex((ar + ai * rat) * scl, (ai - ar * rat) * scl))
        rat = br / bi
        scl = fty(1.0) / (bi + br * rat)
        return ty(complex((ar * rat + ai) * scl, (ai * rat - ar) * scl))
    return impl


@intrinsic
def _fma(typingctx, a, b, c):
    """``a * b + c`` rounded once (LLVM's ``llvm.fma``; the operands of one float type)."""
    if not (isinstance(a, types.Float) and a == b == c):
        return None

    def codegen(context, builder, sig, args):
        fl = args[0].type
        fn = builder.module.declare_intrinsic("llvm.fma", [fl], _llir.FunctionType(fl, [fl] * 3))
        return builder.call(fn, list(args))
    return a(a, a, a), codegen


def _cabs(x):  # pragma: no cover - replaced by the overload inside numba
    return abs(x)


@overload(_cabs, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_cabs(x):
    if not isinstance(x, types.Complex):
        return lambda x: np.abs(x)
    fty = x.underlying_float

    def impl(x):
        re, im = abs(x.real), abs(x.imag)
        inf = fty(np.inf)
        if re == inf or im == inf:
            return inf
        if re != re or im != im:
            return fty(np.nan)
        larger = re if re > im else im
        smaller = im if im < re else re
        ratio = fty(0.0)
        if not (larger == 0 or smaller == inf):
            ratio = smaller / larger
        return np.sqrt(_fma(ratio, ratio, fty(1.0))) * larger
    return impl


def _cmul(x, y):  # pragma: no cover - replaced by the overload inside numba
    return x * y


@overload(_cmul, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_cmul(x, y):
    if not (isinstance(x, types.Complex) and isinstance(y, types.Complex)):
        return lambda x, y: x * y
    ty = x

    def impl(x, y):
        ar, ai, br, bi = x.real, x.imag, y.real, y.imag
        return ty(complex(_fma(ar, br, -(ai * bi)), _fma(ar, bi, ai * br)))
    return impl


@register_jitable
def _cprod(a, b):
    """NumPy's ``nc_prod``: the complex product without FMA (its power loop's)."""
    return complex(a.real * b.real - a.imag * b.imag, a.real * b.imag + a.imag * b.real)


def _cpow(x, y):  # pragma: no cover - replaced by the overload inside numba
    return x ** y


@overload(_cpow, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_cpow(x, y):
    """NumPy's ``nc_pow`` (``umath/funcs.inc.src``): ``x**0`` is 1, ``0**y`` is 0 for
    ``y.real > 0`` and nan otherwise, an integral real exponent below 100 in magnitude
    multiplies by squaring (``x**-n`` is ``1 / x**n`` by Smith's quotient), any other the
    C library's ``cpow``."""
    if isinstance(x, types.Complex) and isinstance(y, (types.Integer, types.Float)):
        cty = x
        return lambda x, y: _cpow(x, cty(y))  # integer_pow's exponent, as NumPy casts it
    if not (isinstance(x, types.Complex) and x == y):
        return lambda x, y: x ** y
    ty = x
    one = complex(1.0, 0.0)

    def impl(x, y):
        ar, ai, br, bi = x.real, x.imag, y.real, y.imag
        if br == 0 and bi == 0:
            return ty(one)
        if ar == 0 and ai == 0:
            return ty(0) if br > 0 else ty(complex(np.nan, np.nan))
        if bi == 0 and abs(br) < 100 and np.int64(br) == br:
            n = np.int64(br)
            if n == 1:
                return x
            if n == 2:
                return ty(_cprod(x, x))
            if n == 3:
                return ty(_cprod(x, ty(_cprod(x, x))))
            n = -n if n < 0 else n
            aa = ty(one)
            p = x
            mask = 1
            while True:
                if n & mask:
                    aa = ty(_cprod(aa, p))
                mask <<= 1
                if n < mask:
                    break
                p = ty(_cprod(p, p))
            return _cdiv(ty(one), aa) if br < 0 else aa
        return _cpow_libm(x, y)
    return impl


def _clog1p(x):  # pragma: no cover - replaced by the overload inside numba
    return np.log1p(x)


def _cexpm1(x):  # pragma: no cover
    return np.expm1(x)


def _csign(x):  # pragma: no cover
    return np.sign(x)


@overload(_clog1p, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_clog1p(x):
    """NumPy's ``nc_log1p``: ``log(hypot(re + 1, im)) + i atan2(im, re + 1)``."""
    ty, fty = x, x.underlying_float

    def impl(x):
        re = x.real + fty(1)
        return ty(complex(np.log(np.hypot(re, x.imag)), np.arctan2(x.imag, re)))
    return impl


@overload(_cexpm1, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_cexpm1(x):
    """NumPy's ``nc_expm1``: ``expm1(re) cos(im) - 2 sin(im/2)**2 + i exp(re) sin(im)``."""
    ty, fty = x, x.underlying_float

    def impl(x):
        a = np.sin(x.imag / fty(2))
        return ty(complex(np.expm1(x.real) * np.cos(x.imag) - fty(2) * a * a,
                          np.exp(x.real) * np.sin(x.imag)))
    return impl


@overload(_csign, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_csign(x):
    """NumPy 2's complex ``sign``: ``z / |z|`` (0 at 0; an infinite part gives its unit
    direction, both infinite nan)."""
    ty, fty = x, x.underlying_float

    def impl(x):
        re, im = x.real, x.imag
        a = np.hypot(re, im)
        if a == 0:
            return ty(0)
        if a != a:
            return ty(complex(np.nan, np.nan))
        if a == np.inf:
            if re == np.inf or re == -np.inf:
                if im == np.inf or im == -np.inf:
                    return ty(complex(np.nan, np.nan))
                return ty(complex(fty(1) if re > 0 else fty(-1), fty(0)))
            return ty(complex(fty(0), fty(1) if im > 0 else fty(-1)))
        return ty(complex(re / a, im / a))
    return impl


# ---------------------------------------------------------------------------------
# float16: numba has no float16 type on the CPU, so generated code holds float16 values in
# float32 (every float16 is a float32) and rounds each result to float16 with ``_f16``,
# as NumPy does (its float16 loops compute in float32 and round each result; a cast from
# float64 rounds once, directly)
# ---------------------------------------------------------------------------------
_F16_MAX_HALFWAY = 65520.0  # halfway between float16's largest value 65504 and 2**16


@intrinsic
def _f64_bits(typingctx, x):
    """The bit pattern of a float64 as an int64."""
    if x != types.float64:
        return None

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], _llir.IntType(64))
    return types.int64(types.float64), codegen


@intrinsic
def _bits_f64(typingctx, i):
    """The float64 of an int64 bit pattern."""
    if i != types.int64:
        return None

    def codegen(context, builder, sig, args):
        return builder.bitcast(args[0], _llir.DoubleType())
    return types.float64(types.int64), codegen


@intrinsic
def _f32_via_half(typingctx, x):
    """A float32 rounded to float16 and back (LLVM's ``fptrunc``/``fpext`` through
    ``half``: the F16C instructions on x86, round to nearest even)."""
    if x != types.float32:
        return None

    def codegen(context, builder, sig, args):
        h = builder.fptrunc(args[0], _llir.HalfType())
        return builder.fpext(h, _llir.FloatType())
    return types.float32(types.float32), codegen


def _f16(x):  # pragma: no cover - replaced by the overload inside numba
    return np.float32(np.float16(x))


@overload(_f16, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_f16(x):
    """``x`` (a float, int or bool) rounded to the nearest float16 (ties to even; beyond
    the largest, inf), returned as a float32: a multiple of float16's spacing at ``x``
    (``2**(e - 10)`` for ``|x|`` in ``[2**e, 2**(e+1))``, ``2**-24`` below ``2**-14``), by
    ``rint`` of an exact power-of-two scaling."""
    if isinstance(x, types.Boolean):
        return lambda x: np.float32(x)
    if x == types.float32:  # the common case: a float16 operation's float32 result
        return lambda x: _f32_via_half(x)

    def impl(x):
        d = np.float64(x)
        a = abs(d)
        if not a < _F16_MAX_HALFWAY:  # rounds to 2**16 or beyond (ties to even), inf, nan
            return np.float32(d if d != d else (np.inf if d > 0 else -np.inf))
        e = max(((_f64_bits(a) >> 52) & 2047) - 1023, -14)
        inv = _bits_f64(np.int64(1023 + 10 - e) << 52)  # 1 / spacing
        q = _bits_f64(np.int64(1023 - 10 + e) << 52)
        return np.float32(np.rint(d * inv) * q)
    return impl
