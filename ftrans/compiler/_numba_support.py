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

from ..kernels import _numba_build, _trig64, cpu as _cpu

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
    for f in (__file__, _cpu.__file__, _numba_build.__file__, _trig64.__file__, *support):
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
# vectorizable float64 exp (used for float64 and float32 exp, and float32 tanh)
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
from llvmlite import ir as _llir  # noqa: E402


@intrinsic
def _i64_as_f64(typingctx, i):
    sig = types.float64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], _llir.DoubleType())
    return sig, codegen


_INV_LN2 = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01   # 32 significant bits
_LN2_LO = 1.90821492927058770002e-10
_EXP_C = tuple(1.0 / __import__("math").factorial(k) for k in range(14))


@register_jitable(inline="always")  # numba-IR inlining (see _tanh64)
def _exp64(x):
    xc = x if x < 709.8 else 709.8
    xc = xc if xc > -746.0 else -746.0
    k = np.floor(xc * _INV_LN2 + 0.5)
    r = (xc - k * _LN2_HI) - k * _LN2_LO
    c = _EXP_C
    p = c[13]
    p = p * r + c[12]
    p = p * r + c[11]
    p = p * r + c[10]
    p = p * r + c[9]
    p = p * r + c[8]
    p = p * r + c[7]
    p = p * r + c[6]
    p = p * r + c[5]
    p = p * r + c[4]
    p = p * r + c[3]
    p = p * r + c[2]
    p = p * r + c[1]
    p = p * r + c[0]
    ki = np.int64(k)
    k1 = ki >> 1
    k2 = ki - k1
    s1 = _i64_as_f64((k1 + 1023) << 52)
    s2 = _i64_as_f64((k2 + 1023) << 52)
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
        return lambda x: np.float32(_exp64(np.float64(x)))
    return lambda x: np.exp(x)


@register_jitable
def _tanh32(x):
    d = np.float64(x)
    a = abs(d)
    e = _exp64(-2.0 * a)
    t = (1.0 - e) / (1.0 + e)
    t = t if d >= 0 else -t
    z = d * d
    s = d * (1.0 + z * (-1.0 / 3.0 + z * (2.0 / 15.0 + z * (-17.0 / 315.0))))
    return np.float32(s if a < 0.0625 else t)


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
