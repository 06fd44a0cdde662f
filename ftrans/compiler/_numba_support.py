"""Scalar helpers that generated numba programs call (imported by the generated modules).

``_sin``/``_cos``: float64 uses the kernels' faithfully rounded polynomial
(``ftrans.kernels._trig64._trig_sincos``, the values of eager ftrans's numba path for arrays of
``NUMBA_UNARY[("sin", float64)]`` elements or more), with libm for ``|x| >= 2**20``, inf and
nan; other dtypes call ``np.sin``/``np.cos``.  ``_ipow(x, n)``: ``np.power(x, n)`` with the
exponent in ``x``'s dtype (what NumPy computes for ``np.power(array, python_int)``).

Generated modules record :data:`SUPPORT_VERSION` in their source, so a change here, in
``_numba_special_support.py`` or in the kernels changes their hash and numba's on-disk cache is not reused stale.
"""
from __future__ import annotations

import hashlib
import math
import os

import numpy as np
from numba import types
from numba.extending import overload

from ..kernels import _numba_build, _trig64, cpu as _cpu, prng_cpu as _prng

with _numba_build._BUILD_LOCK:  # registers the trig helpers with numba (register_jitable)
    if not _numba_build._FACTORIES:
        _numba_build._build_factories()

_trig_sincos = _trig64._trig_sincos
_LIM = _trig64._TRIG_LIMIT


def _src_hash():
    """Hash of the code generated modules call: this file, the other support modules of
    the compiler (``_numba_*_support.py``) and the kernels they build on."""
    here = os.path.dirname(__file__)
    support = sorted(os.path.join(here, n) for n in os.listdir(here)
                     if n.startswith("_numba_") and n.endswith("_support.py"))
    h = hashlib.sha256()
    for f in (__file__, _cpu.__file__, _numba_build.__file__, _trig64.__file__,
              _prng.__file__, *support):
        with open(f, "rb") as fh:
            h.update(fh.read())
    return h.hexdigest()[:16]


SUPPORT_VERSION = _src_hash()


def _sin(x):  # pragma: no cover - replaced by the overload inside numba
    return np.sin(x)


def _cos(x):  # pragma: no cover
    return np.cos(x)


def _ipow(x, n):  # pragma: no cover
    return np.power(x, n)


@overload(_sin, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_sin(x):
    if x == types.float64:
        def impl(x):
            if abs(x) < _LIM:
                return _trig_sincos(x)[0]
            return np.sin(x)
        return impl
    return lambda x: np.sin(x)


@overload(_cos, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_cos(x):
    if x == types.float64:
        def impl(x):
            if abs(x) < _LIM:
                return _trig_sincos(x)[1]
            return np.cos(x)
        return impl
    return lambda x: np.cos(x)


@overload(_ipow, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_ipow(x, n):
    if isinstance(x, types.Float):
        ty = x

        def impl(x, n):
            return np.power(x, ty(n))
        return impl
    if isinstance(x, types.Integer):
        # exact, wrapping as NumPy's integer power (n >= 0: the compiler graph-breaks a
        # negative n, for which NumPy raises); np.power would go through float64
        def iimpl(x, n):
            r = x - x + 1
            b = x
            while n > 0:
                if n & 1:
                    r = r * b
                b = b * b
                n >>= 1
            return r
        return iimpl
    return lambda x, n: np.power(x, n)



# ---------------------------------------------------------------------------------
# vectorizable float64 exp (used for float64 exp and tanh)
#
# libm's exp is a scalar call, so a numba loop that calls it runs one element at a time;
# this branch-free form lets LLVM vectorize the fused loop (AVX-512: 8 lanes).
# Cody & Waite reduction x = k*ln2 + r, |r| <= ln2/2, with ln2 split into a 32-bit head
# (k*LN2_HI exact for |k| < 2**21) and a tail; e**r by its Taylor polynomial of degree 13
# (truncation < 5e-18 relative); the scale 2**k as two factors 2**(k//2) * 2**(k - k//2)
# (each a normal number, so subnormal results are rounded once and overflow gives inf).
# Clamping x to [-746, 709.8] first gives 0 below and inf above, as exp does; nan
# propagates.  Accuracy: within 1 ulp of the exact result on tested ranges; NumPy's exp
# (libm or its AVX-512 routine) may differ from it in the last bit.
# ---------------------------------------------------------------------------------
from numba.extending import intrinsic, register_jitable  # noqa: E402


@intrinsic
def _bits_as_float(typingctx, i):
    """The float of ``i``'s width whose bits are ``i``'s (int64 -> float64, int32 ->
    float32): the scale 2**k built from its exponent bits."""
    ft = types.float64 if i.bitwidth == 64 else types.float32
    sig = ft(i)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(ft))
    return sig, codegen


_INV_LN2 = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01   # 32 significant bits
_LN2_LO = 1.90821492927058770002e-10
_EXP_C = tuple(1.0 / __import__("math").factorial(k) for k in range(14))


@register_jitable(inline="always")
def _horner(c, r):
    """``c[0] + c[1] r + ... + c[-1] r**(len(c) - 1)`` (Horner; LLVM unrolls the loop
    over the constant tuple)."""
    p = c[len(c) - 1]
    for k in range(len(c) - 2, -1, -1):
        p = p * r + c[k]
    return p


@register_jitable(inline="always")  # numba-IR inlining (see _tanh64)
def _exp64(x):
    xc = x if x < 709.8 else 709.8
    xc = xc if xc > -746.0 else -746.0
    k = np.floor(xc * _INV_LN2 + 0.5)
    r = (xc - k * _LN2_HI) - k * _LN2_LO
    p = _horner(_EXP_C, r)
    ki = np.int64(k)
    k1 = ki >> 1
    k2 = ki - k1
    s1 = _bits_as_float((k1 + 1023) << 52)
    s2 = _bits_as_float((k2 + 1023) << 52)
    res = (p * s1) * s2
    return res if x == x else x


def _exp(x):  # pragma: no cover
    return np.exp(x)


def _tanh(x):  # pragma: no cover
    return np.tanh(x)


def _trig_bad(x):  # pragma: no cover
    return False


@overload(_exp, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_exp(x):
    if x == types.float64:
        return lambda x: _exp64(x)
    if x == types.float32:
        return lambda x: _exp32(x)
    return lambda x: np.exp(x)


# float32 exp and tanh in float32 arithmetic (16 AVX-512 lanes; the float64 forms above
# run 8 and carry 6 terms more than float32 needs: a fused float32 tanh loop over W2's
# (256, 512) layer took 0.37 ms through _exp64, 0.13 ms in float32 against NumPy's 0.10).
# exp: the reduction above with ln2 as 0.693359375 (9 bits: k*_LN2_HI32 is exact for
# |k| < 2**15) plus a float32 tail, e**r by Taylor to degree 7 (truncation < 6e-9
# relative for |r| <= ln2/2), 2**k as two normal factors; x clamped to [-104, 88.8]
# (0 below, inf above).  tanh: |x| < 0.55, x + x**3 * P(x**2) with P of degree 4 fitted
# here to the relative error of tanh (2.3e-9 in exact arithmetic: least squares on
# Chebyshev nodes, reweighted towards the worst points); otherwise 1 - 2/(exp(2|x|) + 1)
# with |x| clamped at 10, where tanh rounds to 1; the sign copied from x (-0.0, nan).
# Measured against float64 tanh/exp rounded, on every 7th float32 in [1e-30, 10]
# (tanh) and of [-104, 104] (exp): at most 1.52 ulp (tanh) and 1.22 ulp (exp); NumPy's
# float32 tanh: 1.37 ulp.
_LN2_HI32 = np.float32(0.693359375)
_LN2_LO32 = np.float32(-2.12194440e-4)
_INV_LN2_32 = np.float32(_INV_LN2)
_EXP_C32 = tuple(np.float32(c) for c in _EXP_C[:8])
_TANH_P32 = tuple(np.float32(c) for c in (
    -0.3333330551485622, 0.13332245016621536, -0.053820690905982245,
    0.020953109159247703, -0.006118636973046453))


@register_jitable(inline="always")
def _exp32(x):
    xc = x if x < np.float32(88.8) else np.float32(88.8)
    xc = xc if xc > np.float32(-104.0) else np.float32(-104.0)
    k = np.floor(xc * _INV_LN2_32 + np.float32(0.5))
    r = (xc - k * _LN2_HI32) - k * _LN2_LO32
    p = _horner(_EXP_C32, r)
    ki = np.int32(k)
    k1 = ki >> 1
    k2 = ki - k1
    s1 = _bits_as_float(np.int32((k1 + 127) << 23))   # (numba computes in int64)
    s2 = _bits_as_float(np.int32((k2 + 127) << 23))
    res = (p * s1) * s2
    return res if x == x else x


@register_jitable(inline="always")
def _tanh32(x):
    a = abs(x)
    s = a * a
    p = _horner(_TANH_P32, s)
    small = a + a * s * p
    e = _exp32(np.float32(2.0) * (np.float32(10.0) if a > np.float32(10.0) else a))
    big = np.float32(1.0) - np.float32(2.0) / (e + np.float32(1.0))
    return math.copysign(small if a < np.float32(0.55) else big, x)


# float64 tanh without a libm call (libm's tanh is a scalar call: a fused loop with it ran
# 10x slower than NumPy's vectorized tanh, and W6's RNN step was mostly that loop).
# |x| < 0.625: Cephes' rational form x + x^3 P(x^2)/Q(x^2) (S. L. Moshier, Cephes Math
# Library, tanh.c; 1 ulp from NumPy's tanh measured on 2e6 points); otherwise
# 1 - 2/(exp(2|x|) + 1) with the branch-free exp above (2 ulp), |x| clamped at 22 where
# the result rounds to 1.  Both are computed and one selected, the sign copied from x (so
# -0.0 and nan come out as NumPy's).  exp is inlined at numba's IR level and the runtime's
# ``_tanh`` entry point is ``forceinline`` (LLVM's alwaysinline): else LLVM keeps a call,
# judging the body too large, and the fused loop is not vectorized.
_TANH_P = (-9.64399179425052238628e-1, -9.92877231001918586564e1,
           -1.61468768441708447952e3)
_TANH_Q = (1.12811678491632931402e2, 2.23548839060100448583e3, 4.84406305325125486048e3)


@register_jitable
def _tanh64(x):
    a = abs(x)
    b = 0.625 if a > 0.625 else a
    s = b * b
    p = (_TANH_P[0] * s + _TANH_P[1]) * s + _TANH_P[2]
    q = ((s + _TANH_Q[0]) * s + _TANH_Q[1]) * s + _TANH_Q[2]
    small = b + b * s * (p / q)
    e = _exp64(2.0 * (22.0 if a > 22.0 else a))
    big = 1.0 - 2.0 / (e + 1.0)
    return math.copysign(small if a < 0.625 else big, x)


@overload(_tanh, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_tanh(x):
    if x == types.float32:
        return lambda x: _tanh32(x)
    if x == types.float64:
        return lambda x: _tanh64(x)
    return lambda x: np.tanh(x)


@overload(_trig_bad, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_trig_bad(x):
    if x == types.float64:
        return lambda x: not (abs(x) < _LIM)
    return lambda x: False


def _sin_fast(x):  # pragma: no cover
    return np.sin(x)


def _cos_fast(x):  # pragma: no cover
    return np.cos(x)


@overload(_sin_fast, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_sin_fast(x):
    if x == types.float64:
        return lambda x: _trig_sincos(x)[0]
    return lambda x: np.sin(x)


@overload(_cos_fast, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_cos_fast(x):
    if x == types.float64:
        return lambda x: _trig_sincos(x)[1]
    return lambda x: np.cos(x)


from numba import njit as _njit  # noqa: E402


@_njit(cache=True)
def _noop(x):
    """A trivial cached function: calling it once initializes numba (benchmarks use it to
    separate numba's one-time start-up cost from ftrans's)."""
    return x
