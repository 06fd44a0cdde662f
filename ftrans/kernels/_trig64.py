"""float64 sin and cos in a form LLVM vectorizes (the numba paths of :mod:`ftrans.kernels.cpu`).

Scalar functions on Python/NumPy floats; :mod:`ftrans.kernels._numba_build` compiles them
(``register_jitable``) into the fused loops, and the compiler's generated programs call
:func:`_trig_sincos` through ``ftrans.compiler._numba_support``.
"""
import numpy as np

__all__ = []

# ----------------------------------------------------------------------------------
# float64 sin and cos for the numba paths, in a form LLVM vectorizes.
#
# libm's sin/cos are scalar calls with branches, so a numba loop over them (and NumPy's
# float64 loop, also scalar on x86 NumPy 2.x builds) runs at one element at a time.
# Here the same mathematics is written branch-free, so the loop compiles to SIMD code:
#
# * argument reduction (Cody & Waite): q = round(x * 2/pi) and x = q*pi/2 + r + y with
#   pi/2 split into four parts P1 + P2 + P3 + P3T (fdlibm's pio2_1, pio2_2, pio2_3,
#   pio2_3t: 31, 32, 28 and 53 significant bits, together pi/2 to 7e-49).  For
#   |q| < 2**21 the products q*P1, q*P2, q*P3 are exact and x - q*P1 is exact
#   (Sterbenz); the two later subtractions are done with exact TwoSum error terms, so
#   the reduced argument r + y (|y| <= ulp(r)/2) is accurate to about 2**-100
#   relative even for x next to a multiple of pi/2 (where r is tiny);
# * on |r| <= pi/4 the fdlibm/FreeBSD kernels ``__kernel_sin(r, y)`` and
#   ``__kernel_cos(r, y)`` (k_sin.c, k_cos.c: minimax polynomials of degree 13 and
#   14, error below 2**-58 relative before the last rounding);
# * the quadrant q mod 4 selects +-sin or +-cos of r (selects, no branches);
# * |x| >= _TRIG_LIMIT (2**20), inf and nan are recomputed with libm (``np.sin``,
#   ``np.cos``) in a second, scalar pass over the block that has them, and q == 0
#   (|x| <= pi/4) uses r = x, y = 0 exactly (so sin(-0.0) is -0.0).
#
# Accuracy: the result is faithfully rounded: less than 1 ulp from the exact value
# (0.74 ulp at most measured against a 200-bit mpmath reference over [-10, 10],
# [-1e6, 1e6] and the doubles nearest k*pi/2 for k up to 6e5).  It is therefore NOT
# always bitwise equal to NumPy's np.sin/np.cos (which are themselves within about
# 0.5 ulp): the two differ by at most 1 ulp (about 10-20% of the elements differ by
# 1 ulp; tests/kernels checks <= 1 ulp over wide ranges and special values).  Special
# values follow NumPy: sin(+-0) = +-0, cos(+-0) = 1, sin/cos(+-inf) = nan,
# sin/cos(nan) = nan, sin(subnormal) = the subnormal.
# ----------------------------------------------------------------------------------
_TRIG_LIMIT = 1048576.0  # 2**20: |q| <= 667,544 < 2**21
_TRIG_BLOCK = 1024       # elements per block: the libm fix-up pass re-reads it from L1
_INVPIO2 = 6.36619772367581382433e-01
_PIO2_1 = 1.57079632673412561417e+00
_PIO2_2 = 6.07710050630396597660e-11
_PIO2_3 = 2.02226624871116645580e-21
_PIO2_3T = 8.47842766036889956997e-32
_S1 = -1.66666666666666324348e-01
_S2 = 8.33333333332248946124e-03
_S3 = -1.98412698298579493134e-04
_S4 = 2.75573137070700676789e-06
_S5 = -2.50507602534068634195e-08
_S6 = 1.58969099521155010221e-10
_C1 = 4.16666666666666019037e-02
_C2 = -1.38888888888741095749e-03
_C3 = 2.48015872894767294178e-05
_C4 = -2.75573143513906633035e-07
_C5 = 2.08757232129817482790e-09
_C6 = -1.13596475577881948265e-11


def _trig_reduce(x):
    """(q, r, y) with x = q*pi/2 + r + y, |r| <= pi/4 (about), |y| <= ulp(r)/2; valid
    for |x| < _TRIG_LIMIT.  Scalar float64 code, compiled by numba."""
    q = np.floor(x * _INVPIO2 + 0.5)
    a = x - q * _PIO2_1                      # exact
    b = q * _PIO2_2                          # exact
    hi = a - b
    t = a - hi
    e1 = (a - (hi + t)) + (t - b)            # TwoSum: a - b == hi + e1 exactly
    c = q * _PIO2_3                          # exact
    r = hi - c
    t = hi - r
    e2 = (hi - (r + t)) + (t - c)            # hi - c == r + e2 exactly
    ny = q * _PIO2_3T - (e1 + e2)            # minus the tail
    r2 = r - ny                              # TwoSum renormalisation: |y2| <= ulp(r2)/2
    t = r2 - r
    y2 = (r - (r2 - t)) - (ny + t)
    # (Written as subtractions of ny so that q == 0, where every step is exact and
    # ny == +0.0, gives r2 == x bit for bit, -0.0 included; no branch, so LLVM
    # vectorizes the loops that call this.)
    return q, r2, y2


def _trig_ksin(r, y):
    """fdlibm ``__kernel_sin(r, y, 1)``: sin(r + y) for |r| <= pi/4."""
    z = r * r
    w = z * z
    p = _S2 + z * (_S3 + z * _S4) + z * w * (_S5 + z * _S6)
    v = z * r
    return r - ((z * (0.5 * y - v * p) - y) - v * _S1)


def _trig_kcos(r, y):
    """FreeBSD ``__kernel_cos(r, y)``: cos(r + y) for |r| <= pi/4."""
    z = r * r
    w = z * z
    p = z * (_C1 + z * (_C2 + z * _C3)) + w * w * (_C4 + z * (_C5 + z * _C6))
    hz = 0.5 * z
    t = 1.0 - hz
    return t + (((1.0 - t) - hz) + (z * p - r * y))


def _trig_sincos(x):
    """(sin(x), cos(x)) for |x| < _TRIG_LIMIT, branch-free (vectorizable)."""
    q, r, y = _trig_reduce(x)
    s = _trig_ksin(r, y)
    c = _trig_kcos(r, y)
    # q mod 4.  (For |x| >= _TRIG_LIMIT, inf and nan the conversion and so this lane's
    # result are meaningless: the callers overwrite them with libm's.  This form, with
    # four selects, is the one LLVM's loop vectorizer accepts; float comparisons on q
    # mod 4 or a select guarding the conversion keep the loop scalar.)
    k = np.int64(q) & 3
    sn = s if (k & 1) == 0 else c
    cs = c if (k & 1) == 0 else s
    sn = -sn if (k & 2) != 0 else sn
    cs = -cs if ((k + 1) & 2) != 0 else cs
    return sn, cs


def _trig_sin(g, x):
    return _trig_sincos(x)[0]


def _trig_cos(g, x):
    return _trig_sincos(x)[1]


def _trig_dsin(g, x):
    return g * _trig_sincos(x)[1]


def _trig_dcos(g, x):
    return -g * _trig_sincos(x)[0]


def _libm_sin(g, x):
    return np.sin(x)


def _libm_cos(g, x):
    return np.cos(x)


def _libm_dsin(g, x):
    return g * np.cos(x)


def _libm_dcos(g, x):
    return -g * np.sin(x)


# name -> (vectorizable formula, libm formula for |x| >= _TRIG_LIMIT, inf, nan)
_TRIG = {
    "sin": (_trig_sin, _libm_sin), "cos": (_trig_cos, _libm_cos),
    "dsin": (_trig_dsin, _libm_dsin), "dcos": (_trig_dcos, _libm_dcos),
}
