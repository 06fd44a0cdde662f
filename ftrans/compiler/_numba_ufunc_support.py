"""NumPy's elementwise functions that numba has no loop for, as scalar functions the
generated loops call (through the cached entry points of ``_numba_runtime_support.py``).

Each follows NumPy's own C algorithm (``numpy/_core/src/npymath/npy_math_internal.h.src``:
``npy_divmod``, ``npy_heaviside``, ``npy_lshift``/``npy_rshift``, ``npy_popcount``,
``npy_gcd``/``npy_lcm``; the integer remainder of ``loops_modulo.dispatch.c.src``; C's
``frexp``/``modf``/``ldexp``), so compiled results are NumPy's bits -- signed zeros,
infinities, NaNs, zero divisors, shifts past the width and ``INT_MIN`` included
(``tests/compiler/test_compiler.py`` checks every pair of such values).  float16 operands
arrive widened to float32, as NumPy's float16 loops compute these.  ``_threefry`` is the
random-bit cipher's rounds (:func:`ftrans.kernels.prng_cpu.threefry_words`, the one
definition its kernel compiles too).  Functions of two results return a tuple, which the
code generator unpacks.
"""
from __future__ import annotations

import math

import numpy as np
from numba import types
from numba.extending import overload, register_jitable

from ..kernels import prng_cpu as _prng

__all__ = ["_remainder", "_heaviside", "_isposinf", "_isneginf", "_ldexp", "_bit_not",
           "_lshift", "_rshift", "_popcount", "_gcd", "_lcm", "_frexp", "_modf", "_threefry"]


# floats (and remainder of integers) ----------------------------------------------
def _remainder(x, y):  # pragma: no cover - replaced by the overload inside numba
    return np.remainder(x, y)


def _heaviside(x, h):  # pragma: no cover
    return np.heaviside(x, h)


def _isposinf(x):  # pragma: no cover
    return np.isposinf(x)


def _isneginf(x):  # pragma: no cover
    return np.isneginf(x)


def _ldexp(x, n):  # pragma: no cover
    return np.ldexp(x, n)


@overload(_remainder, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_remainder(x, y):
    ty = x
    if isinstance(x, types.Float):
        def impl(x, y):
            # npy_divmod's modulus: fmod (exact), moved into the divisor's sign by adding
            # the divisor in x's type; a zero result takes the divisor's sign; a zero
            # divisor gives fmod's NaN
            mod = ty(np.fmod(x, y))
            if y == 0:
                return mod
            if mod != 0:
                if (y < 0) != (mod < 0):
                    mod = ty(mod + y)
                return mod
            return ty(np.copysign(0.0, y))
        return impl
    if isinstance(x, types.Integer) and x.signed:
        lo = -(1 << (x.bitwidth - 1))

        def simpl(x, y):
            # x % 0 is 0 (NumPy warns), INT_MIN % -1 is 0; else the floored remainder
            if y == 0 or (x == lo and y == -1):
                return ty(0)
            return ty(x - (x // y) * y)
        return simpl
    if isinstance(x, types.Integer):
        def uimpl(x, y):
            if y == 0:
                return ty(0)
            return ty(x % y)
        return uimpl
    return None


@overload(_heaviside, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_heaviside(x, h):
    ty = x

    def impl(x, h):
        if x != x:
            return ty(np.nan)   # NumPy's own NaN, not x's
        if x == 0:
            return ty(h)
        if x < 0:
            return ty(0)
        return ty(1)
    return impl


@overload(_isposinf, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_isposinf(x):
    if isinstance(x, types.Float):
        return lambda x: x == np.inf
    return lambda x: False


@overload(_isneginf, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_isneginf(x):
    if isinstance(x, types.Float):
        return lambda x: x == -np.inf
    return lambda x: False


#: |exponent| past which ``ldexp`` saturates for every float64 (2**-1074 * 2**2098 is
#: inf, 2**1024 * 2**-2099 is 0): clamping to it keeps a huge int64 exponent from
#: wrapping in the C call's ``int``, as NumPy's ``ldexp`` for ``long`` clamps
_LDEXP_CLAMP = 4096


@overload(_ldexp, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_ldexp(x, n):
    ty = x
    if isinstance(x, types.Float):
        def impl(x, n):
            k = max(min(n, _LDEXP_CLAMP), -_LDEXP_CLAMP)
            # exact in float64 for float32 values: one rounding to x's type
            return ty(math.ldexp(np.float64(x), np.intc(k)))
        return impl
    return None


# the integer functions (``integer_elementwise``): the operands arrive in the result's
# dtype; results are wrapped to it by the caller --------------------------------------
def _bit_not(x):  # pragma: no cover - replaced by the overload inside numba
    return np.invert(x)


def _lshift(x, n):  # pragma: no cover
    return np.left_shift(x, n)


def _rshift(x, n):  # pragma: no cover
    return np.right_shift(x, n)


def _popcount(x):  # pragma: no cover
    return np.bitwise_count(x)


def _gcd(x, y):  # pragma: no cover
    return np.gcd(x, y)


def _lcm(x, y):  # pragma: no cover
    return np.lcm(x, y)


@overload(_bit_not, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_bit_not(x):
    if isinstance(x, types.Boolean):
        return lambda x: not x     # NumPy's invert of bool is logical not
    return lambda x: ~x


@overload(_lshift, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_lshift(x, n):
    bits, ty = x.bitwidth, x

    def impl(x, n):
        # a shift by the width or more (or a negative one, a huge unsigned count in C)
        # gives 0, where C's shift would be undefined
        if n < 0 or n >= bits:
            return ty(0)
        return ty(x << n)
    return impl


@overload(_rshift, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_rshift(x, n):
    bits, ty = x.bitwidth, x

    def impl(x, n):
        # beyond the width: the sign fill (-1 for a negative signed x, else 0)
        if n < 0 or n >= bits:
            return ty(-1) if x < 0 else ty(0)
        return ty(x >> n)
    return impl


def _unsigned_abs(ty):
    """``|x|`` as uint64 in two's complement (``INT_MIN`` -> ``2**(bits-1)``), as NumPy's
    ``a < 0 ? -a : a`` converted to the unsigned type."""
    if getattr(ty, "signed", False):   # (bool: 0 or 1)
        def f(x):
            u = np.uint64(np.int64(x))
            return np.uint64(0) - u if x < 0 else u
        return register_jitable(f)
    return register_jitable(lambda x: np.uint64(x))


@overload(_popcount, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_popcount(x):
    uabs = _unsigned_abs(x)

    def impl(x):
        # the population count of |x| (SWAR; LLVM emits its popcnt)
        v = uabs(x)
        v = v - ((v >> np.uint64(1)) & np.uint64(0x5555555555555555))
        m2 = np.uint64(0x3333333333333333)
        v = (v & m2) + ((v >> np.uint64(2)) & m2)
        v = (v + (v >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
        return np.uint8((v * np.uint64(0x0101010101010101)) >> np.uint64(56))
    return impl


@register_jitable
def _euclid(a, b):
    while b != np.uint64(0):
        a, b = b, a % b
    return a


@overload(_gcd, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_gcd(x, y):
    uabs = _unsigned_abs(x)
    return lambda x, y: _euclid(uabs(x), uabs(y))


@overload(_lcm, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_lcm(x, y):
    uabs = _unsigned_abs(x)

    def impl(x, y):
        a, b = uabs(x), uabs(y)
        g = _euclid(a, b)
        if g == np.uint64(0):
            return np.uint64(0)
        return (a // g) * b        # modulo 2**64: the caller wraps to the dtype
    return impl


# Functions of two results (the generated loop unpacks the tuple) -------------------
def _frexp(x):  # pragma: no cover - replaced by the overload inside numba
    return np.frexp(x)


def _modf(x):  # pragma: no cover
    return np.modf(x)


def _threefry(k0, k1, x0, x1):  # pragma: no cover
    y0, y1 = _prng.threefry_words(*(np.uint64(v) for v in (k0, k1, x0, x1)))
    return np.uint32(y0), np.uint32(y1)


@overload(_frexp, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_frexp(x):
    ty = x

    def impl(x):
        # C's frexp (exact; float32 through float64 gives the same mantissa), with
        # NumPy's results at the special values: (x, 0) for 0, inf and NaN
        if x == 0 or x != x or x - x != 0:
            return ty(x), np.int32(0)
        m, e = math.frexp(np.float64(x))
        return ty(m), np.int32(e)
    return impl


@overload(_modf, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_modf(x):
    ty = x

    def impl(x):
        # C's modf: both parts with x's sign; (+-0, x) for infinities, NaN twice
        if x != x:
            return ty(x), ty(x)
        if x - x != 0:
            return ty(np.copysign(0.0, x)), ty(x)
        ip = ty(np.trunc(x))
        return ty(np.copysign(x - ip, x)), ip
    return impl


_threefry_words = register_jitable(_prng.threefry_words)


@overload(_threefry, jit_options=dict(fastmath=False, error_model="numpy"))
def _ol_threefry(k0, k1, x0, x1):
    def impl(k0, k1, x0, x1):
        y0, y1 = _threefry_words(np.uint64(k0), np.uint64(k1), np.uint64(x0), np.uint64(x1))
        return np.uint32(y0), np.uint32(y1)
    return impl
