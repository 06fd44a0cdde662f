"""The numba kernels of :mod:`ftrans.kernels.cpu`, built lazily by small factories.

numba is imported the first time a kernel is needed (it costs ~0.5 s); each factory
compiles one loop with ``cache=True`` (later processes load it from disk) and
``error_model="numpy"`` (division by zero gives inf/nan, as in NumPy).  The scalar bodies
of the binary kernels and the float64 sin/cos formulas (:mod:`ftrans.kernels._trig64`)
live at module level so that numba's on-disk cache keys are stable.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from ._trig64 import (
    _TRIG, _TRIG_BLOCK, _TRIG_LIMIT, _trig_kcos, _trig_ksin, _trig_reduce, _trig_sincos,
)

__all__ = []


# Scalar bodies of the numba binary kernels, ``op(a, b, one)`` where ``one`` is 1 in
# the operands' dtype (numba would promote a float32 op a float literal to float64).
# They live at module level so that numba's on-disk cache keys are stable.
def _floordiv_scalar(a, b, one):
    """NumPy's ``npy_floor_divide`` (Python's float ``//``) for one pair of floats."""
    if not b:
        return a / b
    return _divmod_scalar(a, b, one)[0]


def _rem_scalar(a, b, one):
    """NumPy's ``npy_remainder`` (Python's float ``%``) for one pair of floats."""
    if not b:
        return np.fmod(a, b)
    return _divmod_scalar(a, b, one)[1]


def _divmod_scalar(a, b, one):
    """NumPy's ``npy_divmod`` for ``b != 0``: (floor quotient, remainder)."""
    zero = one - one
    mod = np.fmod(a, b)
    div = (a - mod) / b
    if mod:
        if (b < zero) != (mod < zero):
            mod += b
            div -= one
    else:
        mod = np.copysign(zero, b)
    if div:
        floordiv = np.floor(div)
        if div - floordiv > one / (one + one):
            floordiv += one
    else:
        floordiv = np.copysign(zero, a / b)
    return floordiv, mod


def _logaddexp_scalar(a, b, one):
    return np.logaddexp(a, b)


_BINARY_SCALAR = {
    "logaddexp": _logaddexp_scalar, "floordiv": _floordiv_scalar, "rem": _rem_scalar,
}


# ----------------------------------------------------------------------------------
# Lazily built numba kernels
# ----------------------------------------------------------------------------------

_KERNELS: dict[tuple[str, Any], Any] = {}  # (family, op) -> compiled dispatcher
_FACTORIES: dict[str, Callable[[Any], Any]] = {}  # family -> factory(op) -> dispatcher; filled on first use
_BUILD_LOCK = threading.Lock()


def _kernel(family, op):
    """The numba kernel of ``family`` specialised to ``op`` (built on first use).

    Families: "unary" (op: a NumPy ufunc, ``kernel(x, out)``), "binary" (op: a scalar
    function ``f(a, b, one)``, ``kernel(a, astep, b, bstep, out)``), "vjp" (op: a
    derivative product ``d(g, x, y, one)``, ``kernel(g, gstep, x, y, out)``),
    "scatter_rows" (op: None, ``kernel(z2, rows, updates2) -> first bad row or -1``),
    "trig" (op: a key of ``_TRIG``: ``kernel(g, gstep, x, out)``; or "sincos":
    ``kernel(x, sin_out, cos_out)``; float64 only).  A step of 0 reads element 0 for
    every i (a broadcast scalar).  All are serial, elementwise along their 1-d array
    operands and release the GIL: ``_split.run`` shares large ones between threads.
    """
    key = (family, op)
    k = _KERNELS.get(key)
    if k is None:
        with _BUILD_LOCK:  # numba registrations must happen once
            k = _KERNELS.get(key)
            if k is None:
                if not _FACTORIES:
                    _build_factories()
                k = _KERNELS[key] = _FACTORIES[family](op)
    return k


def _build_factories():
    # numba is imported here, not at module import: it costs ~0.5 s.
    from numba import njit
    from numba.extending import register_jitable

    jit = dict(cache=True, fastmath=False, error_model="numpy", nogil=True)

    # The kernels are serial and release the GIL (nogil): large arrays are shared
    # between threads by ``_split.run``, which calls them on blocks (views, so every
    # loop runs from 0 and LLVM vectorizes it; with a runtime start index numba's
    # negative-index wraparound can defeat LLVM's overlap check, see "trig" below).
    # Steps (0: a broadcast scalar, 1: a flat array) are tested outside the loops.
    def unary(ufunc):
        @njit(**jit)
        def kernel(x, out):
            for i in range(out.size):
                out[i] = ufunc(x[i])
        return kernel

    def binary(op):
        register_jitable(op)

        @njit(**jit)
        def kernel(a, astep, b, bstep, out):
            one = np.ones(1, out.dtype)[0]
            if astep == 1 and bstep == 1:
                for i in range(out.size):
                    out[i] = op(a[i], b[i], one)
            elif astep == 1:
                b0 = b[0]
                for i in range(out.size):
                    out[i] = op(a[i], b0, one)
            elif bstep == 1:
                a0 = a[0]
                for i in range(out.size):
                    out[i] = op(a0, b[i], one)
            else:
                for i in range(out.size):
                    out[i] = op(a[i * astep], b[i * bstep], one)
        return kernel

    def vjp(d):
        register_jitable(d)

        @njit(**jit)
        def kernel(g, gstep, x, y, out):
            one = np.ones(1, out.dtype)[0]
            if gstep == 0:
                g0 = g[0]
                for i in range(out.size):
                    out[i] = d(g0, x[i], y[i], one)
            else:
                for i in range(out.size):
                    out[i] = d(g[i], x[i], y[i], one)
        return kernel

    def scatter_rows(_):
        # Serial: rows may repeat, so parallel threads would race on them.
        @njit(**jit)
        def kernel(z, rows, updates):
            n, m = z.shape
            for r in range(rows.size):
                i = rows[r]
                if i < 0:
                    i += n
                if i < 0 or i >= n:
                    return r
                for j in range(m):
                    z[i, j] += updates[r, j]
            return -1
        return kernel

    # float64 sin/cos: the vectorizable formula over a block of _TRIG_BLOCK elements,
    # then (only in a block that has one) libm for |x| >= _TRIG_LIMIT, inf and nan.
    # The block functions get views of one block and loop from 0: with a runtime start
    # index numba's negative-index wraparound makes LLVM's overlap check fail whenever
    # two operands lie within one array length of each other in memory (often: one
    # malloc after the other), and the loop then runs its scalar version, 3x slower.
    blk = _TRIG_BLOCK
    lim = _TRIG_LIMIT

    @njit(**jit)
    def _trig_needs_libm(x):
        bad = False
        for i in range(x.size):
            bad |= not (abs(x[i]) < lim)
        return bad

    def trig(name):
        if name == "sincos":
            @njit(**jit)
            def block2(x, s, c):
                for i in range(x.size):
                    s[i], c[i] = _trig_sincos(x[i])
                if _trig_needs_libm(x):
                    for i in range(x.size):
                        if not (abs(x[i]) < lim):
                            s[i] = np.sin(x[i])
                            c[i] = np.cos(x[i])

            @njit(**jit)
            def kernel2(x, s, c):
                n = x.size
                for b in range((n + blk - 1) // blk):
                    lo = b * blk
                    hi = min(n, lo + blk)
                    block2(x[lo:hi], s[lo:hi], c[lo:hi])
            return kernel2

        f, f_libm = _TRIG[name]
        register_jitable(f)
        register_jitable(f_libm)

        @njit(**jit)
        def block(g, g0, x, out):
            # g: the block's cotangents, or empty for a scalar cotangent g0
            if g.size == 0:
                for i in range(x.size):
                    out[i] = f(g0, x[i])
            else:
                for i in range(x.size):
                    out[i] = f(g[i], x[i])
            if _trig_needs_libm(x):
                for i in range(x.size):
                    if not (abs(x[i]) < lim):
                        out[i] = f_libm(g0 if g.size == 0 else g[i], x[i])

        @njit(**jit)
        def kernel(g, gstep, x, out):
            n = x.size
            g0 = g[0]
            for b in range((n + blk - 1) // blk):
                lo = b * blk
                hi = min(n, lo + blk)
                if gstep == 0:
                    block(g[:0], g0, x[lo:hi], out[lo:hi])
                else:
                    block(g[lo:hi], g0, x[lo:hi], out[lo:hi])
        return kernel

    register_jitable(_divmod_scalar)
    for fn in (_trig_reduce, _trig_ksin, _trig_kcos, _trig_sincos):
        register_jitable(fn)
    _FACTORIES.update(unary=unary, binary=binary, vjp=vjp, scatter_rows=scatter_rows,
                      trig=trig)
