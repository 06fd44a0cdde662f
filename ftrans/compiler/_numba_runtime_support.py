"""The generated programs' runtime: cached entry points for what every program calls.

numba compiles an ``@overload`` implementation (``np.dot``, ``np.empty``, ``np.full``,
and the scalar helpers of :mod:`._numba_support` / :mod:`._numba_cplx_support`) anew in
every process, for every signature, the first time a function calls it: about 2.5 s of the
5 s a 300-operation program took to compile (``benchmarks/compile_time.py``; measured with
numba's ``numba:compile`` events).  A generated module calls them through the
``@njit(cache=True)`` functions below instead: numba compiles each signature once per
installation (its cache beside this file) and later processes load the object code.  The
calls still inline into the generated loops (LLVM links the callee's module; measured: a
fused ``exp`` loop runs at the same speed).  ``_tanh``'s body is larger than LLVM inlines
by itself, so it is ``forceinline`` (LLVM's ``alwaysinline``): a fused tanh loop stays
vectorized (131k float64: 0.29 ms, 1.9 ms as a call per element).

Arrays of 4 MiB or more are given to the kernel's transparent huge pages, as NumPy does
(``madvise(MADV_HUGEPAGE)``, Linux): numba's allocator does not ask for them, and the first
touch of a (100000, 64) float64 array took 45 ms against NumPy's 9 ms (9 ms with it).

numba's cache checks only this file's time stamp, not the modules the wrapped functions
come from; :func:`_check_stamp` removes this module's cache files when
:data:`._numba_support.SUPPORT_VERSION` (a hash of all of them) changed.
"""
from __future__ import annotations

import os
import sys

import numpy as np
from llvmlite import ir as _llir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from . import _numba_cplx_support as C
from . import _numba_support as S
from . import _numba_ufunc_support as U
from ._numba_modules import purge_numba_cache

__all__ = ["_dot", "_dot_into", "_empty", "_full", "_assign", "_sin", "_cos", "_ipow", "_exp",
           "_tanh", "_sin_fast", "_cos_fast", "_trig_bad", "_cdiv", "_cabs", "_cmul",
           "_cpow", "_clog1p", "_cexpm1", "_csign", "_f16", "_remainder", "_heaviside",
           "_isposinf", "_isneginf", "_ldexp", "_bit_not", "_lshift", "_rshift", "_popcount",
           "_gcd", "_lcm", "_frexp", "_modf", "_threefry"]


def _check_stamp():
    """Purge this module's numba cache when the support code it wraps changed."""
    d = os.path.join(os.path.dirname(__file__), "__pycache__")
    stamp = os.path.join(d, "_numba_runtime_support.version")
    try:
        with open(stamp, encoding="ascii") as fh:
            if fh.read() == S.SUPPORT_VERSION:
                return
    except OSError:
        pass
    purge_numba_cache(__file__)
    try:
        os.makedirs(d, exist_ok=True)
        with open(stamp, "w", encoding="ascii") as fh:
            fh.write(S.SUPPORT_VERSION)
    except OSError:
        pass  # a read-only installation: numba then caches elsewhere or not at all


_check_stamp()
_cached = njit(cache=True, nogil=True, fastmath=False, error_model="numpy")


# NumPy calls ---------------------------------------------------------------------
@_cached
def _dot(a, b):
    return np.dot(a, b)


@_cached
def _dot_into(a, b, out):
    np.dot(a, b, out)


_HUGE = 1 << 22  # NumPy's threshold for madvise(MADV_HUGEPAGE)


@intrinsic
def _madvise_huge(typingctx, addr, nbytes):
    """``madvise(addr, nbytes, MADV_HUGEPAGE)`` (libc's, by symbol name: the code stays
    cacheable); nothing on other systems than Linux."""
    sig = types.int32(types.intp, types.intp)

    def codegen(context, builder, sig, args):
        if not sys.platform.startswith("linux"):
            return _llir.Constant(_llir.IntType(32), 0)
        i8p = _llir.IntType(8).as_pointer()
        fnty = _llir.FunctionType(_llir.IntType(32), [i8p, _llir.IntType(64), _llir.IntType(32)])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "madvise")
        return builder.call(fn, [builder.inttoptr(args[0], i8p), args[1],
                                 _llir.Constant(_llir.IntType(32), 14)])  # MADV_HUGEPAGE
    return sig, codegen


@_cached
def _empty(shape, dt):
    a = np.empty(shape, dt)
    if a.nbytes >= _HUGE:
        p = a.ctypes.data
        start = (p + 4095) & ~4095  # the first whole page
        _madvise_huge(start, p + a.nbytes - start)
    return a


@_cached
def _full(shape, value, dt):
    a = _empty(shape, dt)
    # through the flat view: numba's fill of an n-d array steps np.ndindex (a (32768, 1)
    # float32 zero fill 23 us against ~1.5 us flat -- every scatter_add's accumulator)
    a.reshape(a.size).fill(value)
    return a


@_cached
def _assign(dst, src):
    """``dst[...] = src`` for arrays of one shape (any layouts): what the generated code
    writes for an array into a slice of another (a batched factorization's results, a
    scan's per-iteration outputs, a basic-index scatter, ``dynamic_update_slice``).

    numba's own slice assignment checks the shapes and formats its error message with
    numba's string functions, which numba compiles anew in every process: 4-5 s in the
    first program of a process that assigned an array into a slice, about 1 s for each
    further rank (measured with numba's ``numba:compile`` events).  Raises ``ValueError``
    when the shapes differ (the emitters pass equal ones); at least one axis.

    A loop over the last axis inside one over the others: (32, 64) rows into a
    (100, 32, 64) stack 50-60 us against the slice assignment's 70-110 us, a (200, 150)
    window of a (300, 300) array 0.23 against 0.33 ms (one element per step of
    ``np.ndindex``: 4-5x slower).
    """
    if dst.shape != src.shape:
        raise ValueError("ftrans.compiler: an update's shape differs from its destination")
    n = dst.shape[-1]
    for idx in np.ndindex(dst.shape[:-1]):
        d = dst[idx]
        s = src[idx]
        for i in range(n):
            d[i] = s[i]


# the support overloads (one wrapper each: numba caches only plain functions) -------------
@_cached
def _sin(x):
    return S._sin(x)


@_cached
def _cos(x):
    return S._cos(x)


@_cached
def _ipow(x, n):
    return S._ipow(x, n)


@_cached
def _exp(x):
    return S._exp(x)


@njit(cache=True, nogil=True, fastmath=False, error_model="numpy", forceinline=True)
def _tanh(x):
    return S._tanh(x)


@_cached
def _remainder(x, y):
    return U._remainder(x, y)


@_cached
def _heaviside(x, h):
    return U._heaviside(x, h)


@_cached
def _isposinf(x):
    return U._isposinf(x)


@_cached
def _isneginf(x):
    return U._isneginf(x)


@_cached
def _ldexp(x, n):
    return U._ldexp(x, n)


@_cached
def _bit_not(x):
    return U._bit_not(x)


@_cached
def _lshift(x, n):
    return U._lshift(x, n)


@_cached
def _rshift(x, n):
    return U._rshift(x, n)


@_cached
def _popcount(x):
    return U._popcount(x)


@_cached
def _gcd(x, y):
    return U._gcd(x, y)


@_cached
def _lcm(x, y):
    return U._lcm(x, y)


@_cached
def _frexp(x):
    return U._frexp(x)


@_cached
def _modf(x):
    return U._modf(x)


@_cached
def _threefry(k0, k1, x0, x1):
    return U._threefry(k0, k1, x0, x1)


@_cached
def _sin_fast(x):
    return S._sin_fast(x)


@_cached
def _cos_fast(x):
    return S._cos_fast(x)


@_cached
def _trig_bad(x):
    return S._trig_bad(x)


@_cached
def _cdiv(x, y):
    return C._cdiv(x, y)


@_cached
def _cabs(x):
    return C._cabs(x)


@_cached
def _cmul(x, y):
    return C._cmul(x, y)


@_cached
def _cpow(x, y):
    return C._cpow(x, y)


@_cached
def _clog1p(x):
    return C._clog1p(x)


@_cached
def _cexpm1(x):
    return C._cexpm1(x)


@_cached
def _csign(x):
    return C._csign(x)


@_cached
def _f16(x):
    return C._f16(x)
