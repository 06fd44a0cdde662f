"""CPU backend: NumPy everywhere, numba where it measurably beats NumPy.

Every function here takes and returns concrete NumPy arrays (or NumPy/Python scalars)
and returns exactly what the NumPy expression it documents returns: same values, same
shape, same dtype (NumPy 2 promotion, including NEP 50 "weak" Python scalars).  One
documented exception: float64 sin and cos on the numba paths (``unary``, ``unary_vjp``,
``sincos``) come from vectorized polynomial kernels that are faithfully rounded (< 1 ulp
from the exact result) and may differ from NumPy's in the last bit (see "float64 sin
and cos" below); for one input the three agree with each other (same thresholds,
same formula), so a derivative computed by a fused kernel equals the composed one.

The numba paths are an optimisation only (run in one thread below
``NUMBA_PARALLEL_MIN_SIZE`` elements, from there on in blocks shared with helper
threads: :mod:`ftrans.kernels._split`).  One is taken when all of these hold:
  * the (operation, dtype) pair is listed in ``NUMBA_UNARY`` / ``NUMBA_BINARY`` /
    ``NUMBA_VJP`` (the pairs that won in ``benchmarks/bench_kernels.py``), and the
    output has at least the number of elements listed there;
  * the array operands are plain, C-contiguous, native-order ``ndarray``s of that one
    dtype and the same shape (a Python scalar, a 0-d array or an all-zero-strides
    broadcast view may stand in for one operand where documented).
Anything else (complex, integer, float16, broadcasting, strided views, small sizes)
goes to NumPy.

Large results (``_buffers.POOL_MIN_BYTES`` and more) of the numba paths and of the
NumPy ufunc paths that qualify (``_pooled_out``) are written into recycled buffers
(:mod:`ftrans.kernels._buffers`) instead of fresh memory that page-faults on first touch.
Such a NumPy ufunc call of ``NUMBA_PARALLEL_MIN_SIZE`` elements or more runs in blocks
shared with the helper threads too (``_ufunc_into``: NumPy releases the GIL in its loops;
the values are one call's, the floating-point warnings those of the calling thread's
blocks).

numba is imported lazily, the first time a numba kernel is actually needed; the
kernels are built by small factories (:mod:`ftrans.kernels._numba_build`; the float64
sin/cos formulas are in :mod:`ftrans.kernels._trig64`), compiled with ``cache=True`` (so later processes
load them from disk in milliseconds) and ``error_model="numpy"`` (division by zero
gives inf/nan, as in NumPy, instead of raising).
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from . import _buffers, _generated, _split
from ._numba_build import _BINARY_SCALAR, _kernel
from ._trig64 import _TRIG

xp = np

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)

# ----------------------------------------------------------------------------------
# Tuning, from ``python benchmarks/bench_kernels.py --all --sizes ...`` on the 2-core
# development VM: AMD EPYC with AVX-512, NumPy 2.4, numba 0.68; the kernels below
# NUMBA_PARALLEL_MIN_SIZE run in one thread, so the crossovers are those of the serial
# loops (timed in thread CPU time, which a busy machine does not inflate).  NumPy's
# SIMD loops (exp, log, tanh, tan, arctan, sinh, pow, arctan2, ... and every float32
# transcendental) beat a scalar-libm numba loop, so those stay on NumPy.  numba wins
# where NumPy runs a scalar or slow loop (float64 sin/cos, which the vectorized kernels
# below compute 3-6x faster; sqrt, reciprocal, floor_divide, remainder: 1.5-3.5x), and
# where fusing saves whole passes and temporaries (the derivative products of
# ``unary_vjp``: 1.3-6x, 20x where NumPy's temporaries page-fault).  logaddexp wins only
# in parallel.  Not listed because they did not win: unary exp/log/expm1/log1p/tan/tanh/
# sinh/cosh/arc*/neg/abs/square (NumPy SIMD, or memory-bound with no pass to save),
# "sign" (numba's gives -0.0 for -0.0, NumPy 0.0), vjp exp/log below the buffer pool's
# size (already one NumPy pass), sinh/cosh and float32 sin/cos.
# Each entry: (name, dtype) -> smallest number of output elements that uses numba.
# ----------------------------------------------------------------------------------

#: Every numba kernel runs in the calling thread below this many elements and from it
#: on in blocks that helper threads share (``_split.run``).  numba's own thread pool
#: (``prange``) waited for its worker thread to be scheduled: when another process holds
#: a core, 4-16 ms stalls (a whole scheduler tick) where the serial loop just runs; the
#: helpers only take blocks the calling thread has not, so a helper that is not
#: scheduled costs nothing but a queue entry.  Handing blocks to a helper still costs
#: ~20-50 us (a thread wake-up), so it is used only where the work is long enough to
#: gain from it (W5's 4M elements), not for W2's 131k.
NUMBA_PARALLEL_MIN_SIZE = 2**19

NUMBA_UNARY = {
    ("sin", _F64): 2**11, ("cos", _F64): 2**11,
    ("sqrt", _F64): 2**12, ("reciprocal", _F64): 2**13,
    ("sqrt", _F32): 2**14, ("reciprocal", _F32): 2**14,
}
NUMBA_BINARY = {
    **{(name, dt): 2**13 for name in ("floordiv", "rem") for dt in (_F32, _F64)},
    **{("logaddexp", dt): NUMBA_PARALLEL_MIN_SIZE for dt in (_F32, _F64)},
}
NUMBA_VJP: dict[tuple[str, np.dtype[Any]], int] = {
    ("sin", _F64): 2**11, ("cos", _F64): 2**11,
    ("arcsin", _F64): 2**11, ("arccos", _F64): 2**11, ("arctan", _F64): 2**13,
    ("log1p", _F64): 2**14, ("sqrt", _F64): 2**14, ("tan", _F64): 2**14,
    ("tanh", _F64): 2**14, ("expm1", _F64): 2**15,
    ("arccos", _F32): 2**12, ("arcsin", _F32): 2**13, ("arctan", _F32): 2**14,
    ("tan", _F32): 2**14, ("tanh", _F32): 2**14, ("sqrt", _F32): 2**16,
    ("log1p", _F32): 2**16, ("expm1", _F32): 2**17,
    # one NumPy pass too, but into a fresh array: from the buffer pool's size on
    # (kernels/_buffers.py) the numba pass writes into a recycled one (4M float64:
    # 3.3 ms against NumPy's 6.1 ms)
    **{(name, dt): _buffers.POOL_MIN_BYTES // dt.itemsize
       for name in ("exp", "log") for dt in (_F32, _F64)},
}
# below this size no numba kernel is considered (one comparison on the fast path)
_NUMBA_MIN_SIZE = min(v for t in (NUMBA_UNARY, NUMBA_BINARY, NUMBA_VJP) for v in t.values())
_NEVER = float("inf")

#: Two-operand einsum calls with at least this many operand elements in total (or any
#: call with three or more operands) let NumPy optimise the contraction order / use
#: BLAS; below it the path search costs more than it saves.
EINSUM_OPTIMIZE_MIN_SIZE = 2048

# ----------------------------------------------------------------------------------
# Operation tables
# ----------------------------------------------------------------------------------

_UNARY: dict[str, Callable[..., Any]] = {
    **_generated.UNARY,  # the rows of the operation table (ftrans/primitives/optable.py)
    "neg": np.negative, "abs": np.absolute, "sign": np.sign, "conj": np.conjugate,
    "real": np.real, "imag": np.imag, "square": np.square, "reciprocal": np.reciprocal,
}

_BINARY: dict[str, Callable[..., Any]] = {
    **_generated.BINARY,  # the rows of the operation table
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "pow": np.power, "maximum": np.maximum, "minimum": np.minimum,
    "floordiv": np.floor_divide, "rem": np.remainder,
}


# Derivative products g * f'(x) for unary_vjp, ``d(g, x, y, one)`` with y = f(x),
# generated from the operation table's derivative expressions (kernels/_generated.py).
# The same function runs on whole NumPy arrays (small sizes, one=1) and, compiled by
# numba, on scalars inside the fused numba loop.
_VJP = _generated.VJP
# formulas that read the primal output ``ans``
_VJP_USES_ANS = _generated.VJP_USES_ANS


def _lookup(table, name, family):
    """``table[name]``, or ValueError naming the valid names."""
    fn = table.get(name) if type(name) is str else None
    if fn is None:
        raise ValueError(f"unknown {family} kernel {name!r}; expected one of {sorted(table)}")
    return fn


# ----------------------------------------------------------------------------------
# Public kernels
# ----------------------------------------------------------------------------------

def unary(name, x):
    """Elementwise ``f(x)`` for a named unary function.

    Args:
        name: one of "neg", "exp", "log", "log1p", "expm1", "sin", "cos", "tan",
            "tanh", "sinh", "cosh", "arcsin", "arccos", "arctan", "sqrt", "abs",
            "sign", "conj", "real", "imag", "square", "reciprocal".
        x: array of any shape and dtype NumPy supports, 0-d array or Python scalar.

    Returns:
        Exactly what the NumPy function returns (``np.negative`` for "neg",
        ``np.absolute`` for "abs", ``np.conjugate`` for "conj", ``np.real``/``np.imag``
        for "real"/"imag", else ``np.<name>``): same shape, NumPy's dtype (float32 stays
        float32).

    Raises:
        ValueError: unknown ``name``.
        TypeError: dtype not supported by the NumPy function.
    """
    fn = _UNARY.get(name) or _lookup(_UNARY, name, "unary")
    if type(x) is np.ndarray and x.size >= _NUMBA_MIN_SIZE:
        if x.size >= NUMBA_UNARY.get((name, x.dtype), _NEVER) and x.flags.c_contiguous:
            return _unary_numba(name, x)
        if x.nbytes >= _POOL_MIN_BYTES:
            out = _pooled_out(fn, x.shape, x)
            if out is not None:
                return _ufunc_into(fn, out, (x,))
    return fn(x)


def binary(name, x, y):
    """Elementwise ``f(x, y)`` with NumPy broadcasting and promotion.

    Args:
        name: one of "add", "sub", "mul", "div", "pow", "maximum", "minimum",
            "arctan2", "logaddexp", "floordiv", "rem".
        x, y: arrays (broadcastable against each other), 0-d arrays, NumPy scalars or
            Python scalars.  Python scalars are passed to NumPy as they are, so NEP 50
            applies (``float32_array * 0.9`` is float32).

    Returns:
        Exactly ``np.add``/``np.subtract``/``np.multiply``/``np.true_divide``/
        ``np.power``/``np.maximum``/``np.minimum``/``np.arctan2``/``np.logaddexp``/
        ``np.floor_divide``/``np.remainder`` of ``(x, y)``: broadcast shape, NumPy's
        result dtype.  (The numba path does not emit NumPy's floating-point
        RuntimeWarnings, e.g. for a division by zero.)

    Raises:
        ValueError: unknown ``name``; shapes that do not broadcast.
        TypeError: dtypes NumPy's ufunc rejects.
    """
    fn = _BINARY.get(name) or _lookup(_BINARY, name, "binary")
    ref = x if type(x) is np.ndarray else y
    if (type(ref) is np.ndarray and ref.size >= _NUMBA_MIN_SIZE
            and ref.size >= NUMBA_BINARY.get((name, ref.dtype), _NEVER)):
        out = _binary_numba(name, x, y)
        if out is not None:
            return out
    if type(ref) is np.ndarray and ref.nbytes >= _POOL_MIN_BYTES:
        out = _pooled_out(fn, ref.shape, x, y)
        if out is not None:
            return _ufunc_into(fn, out, (x, y))
    return fn(x, y)


def unary_vjp(name, g, x, ans=None):
    """Fused derivative product ``g * f'(x)`` (the VJP of ``f = unary(name, .)``).

    Formulas (``ans = f(x)``): sin ``g*cos(x)``, cos ``-g*sin(x)``, tan
    ``g*(1+ans*ans)``, tanh ``g*(1-ans*ans)``, exp ``g*ans``, log ``g/x``, log1p
    ``g/(1+x)``, expm1 ``g*(ans+1)``, sinh ``g*cosh(x)``, cosh ``g*sinh(x)``, arcsin
    ``g/sqrt(1-x*x)``, arccos ``-g/sqrt(1-x*x)``, arctan ``g/(1+x*x)``, sqrt
    ``g/(2*ans)``.  For complex ``x`` the derivative is conjugated:
    ``g * conj(f'(x))`` (PyTorch's convention).  On the numba path float64 sin/cos
    come from the faithfully rounded vectorized kernels (module docstring), so the
    sin/cos results can differ from NumPy's formula by 1 ulp of cos/sin (up to 2 ulp
    of the product); they equal ``g * unary("cos", x)`` (``-g * unary("sin", x)``).

    Args:
        name: one of the 14 names above.
        g: cotangent: array broadcastable to ``x.shape`` (typically the same shape, or
            a 0-d array / all-zero-strides broadcast view of a scalar, e.g. from the
            backward of a sum; both run in one fused pass), or a Python scalar.
        x: primal input, array or scalar of a real or complex dtype.
        ans: ``f(x)`` if already at hand (it is recomputed when needed and None).

    Returns:
        Array of shape ``broadcast(g.shape, x.shape)`` (normally ``x.shape``) and dtype
        ``result_type(g, x)`` for floating/complex inputs.

    Raises:
        ValueError: unknown ``name``; ``g`` not broadcastable to ``x``.
    """
    d = _VJP.get(name) or _lookup(_VJP, name, "unary_vjp")
    if ans is None and name in _VJP_USES_ANS:
        ans = unary(name, x)
    if type(x) is np.ndarray:
        if x.size >= _NUMBA_MIN_SIZE and x.size >= NUMBA_VJP.get((name, x.dtype), _NEVER):
            out = _vjp_numba(name, g, x, ans)
            if out is not None:
                return out
        is_complex = x.dtype.kind == "c"
    else:
        is_complex = isinstance(x, complex) or getattr(x, "dtype", _F64).kind == "c"
    if is_complex:
        # g * conj(f'(x)) == conj(conj(g) * f'(x)); every formula is linear in g.
        # (A Python scalar g stays a Python scalar, so that it stays weak: NEP 50.)
        gc = g.conjugate() if type(g) in (int, float, complex) else np.conj(g)
        return np.conj(d(gc, x, ans, 1))
    return d(g, x, ans, 1)


def sincos(x):
    """``(np.sin(x), np.cos(x))`` computed together.

    Reverse mode saves ``cos(x)`` as the residual of ``sin`` (and ``sin(x)`` for
    ``cos``): both come from one pass over ``x`` here, for about the price of one.

    Args:
        x: array of any shape and dtype NumPy's sin/cos accept, 0-d array or scalar.

    Returns:
        Two arrays (or NumPy scalars) with exactly the shape and dtype of
        ``np.sin(x)`` and ``np.cos(x)``.  A C-contiguous float64 array of at least
        ``NUMBA_UNARY[("sin", float64)]`` elements is computed by the vectorized
        numba kernel: faithfully rounded (< 1 ulp from the exact value, at most 1 ulp
        from NumPy's; see "float64 sin and cos" in this module); everything else is
        NumPy's.

    Raises:
        TypeError: a dtype NumPy's sin/cos reject.
    """
    if (type(x) is np.ndarray and x.dtype == _F64 and x.size >= _NUMBA_MIN_SIZE
            and x.size >= NUMBA_UNARY.get(("sin", _F64), _NEVER)
            and x.size >= NUMBA_UNARY.get(("cos", _F64), _NEVER) and x.flags.c_contiguous):
        # (the thresholds of unary "sin" and "cos" both: the values then equal theirs)
        return _sincos_numba(x)
    return np.sin(x), np.cos(x)


def scatter_add(shape, dtype, index, updates):
    """``z = zeros(shape, dtype); z[index] += updates`` with repeated indices summed.

    Equal to ``z = np.zeros(shape, dtype); np.add.at(z, index, updates); z``: the
    transpose of ``x[index]`` (the VJP of indexing).

    Args:
        shape: shape of the result (tuple of ints).
        dtype: dtype of the result.
        index: any NumPy index expression valid for an array of ``shape``: an int,
            slice, None, Ellipsis, integer or boolean array, or a tuple of those.
            Integer arrays may repeat entries and hold negative entries.
        updates: array (or scalar) broadcastable to the shape of ``z[index]``.

    Returns:
        New C-contiguous array of ``shape`` and ``dtype``.

    Raises:
        IndexError: an index out of bounds, or an invalid index expression.
        ValueError: ``updates`` not broadcastable to ``z[index]``.
        TypeError: ``updates`` not castable to ``dtype``.

    Fast paths: an index without integer arrays (basic indexing and boolean masks,
    which cannot repeat) is a plain ``z[index] += updates``; an integer array selecting
    rows of a 2-d or higher ``z`` (``idx``, ``(idx,)``, ``(idx, :, ...)``) with
    ``updates`` of exactly the selected shape and dtype runs a serial numba loop
    (many times faster than ``np.add.at``).  Other indices use ``np.add.at``.
    """
    z = np.zeros(shape, dtype)
    idx = index if type(index) is tuple else (index,)
    rows = _axis0_rows(idx, z)
    if rows is not None and _scatter_rows_numba(z, rows, updates):
        return z
    flat = _leading_arrays_flat(idx, z)
    if flat is not None:
        # (i, j, ..., :, ...) -> one flat row index into z reshaped to (rows, rest...):
        # np.add.at with a single index array is an order of magnitude faster than with
        # several (and the row kernel applies when rows carry trailing axes).
        rows, k, bshape = flat
        z2 = z.reshape((math.prod(shape[:k]),) + tuple(shape[k:]))
        region = bshape + z2.shape[1:]
        u = np.broadcast_to(updates, region) if np.shape(updates) != region else updates
        u = np.asarray(u)
        if u.dtype != dtype and np.can_cast(u.dtype, dtype, "same_kind"):
            u = u.astype(dtype)  # (other dtypes: np.add.at raises its TypeError)
        u = u.reshape((rows.size,) + z2.shape[1:])  # rows are flat: so are the updates
        if not (z2.ndim >= 2 and _scatter_rows_numba(z2, rows, u)):
            np.add.at(z2, rows, u)
        return z
    if any(_may_repeat(i) for i in idx):
        np.add.at(z, index, updates)
    else:
        z[index] += updates
    return z


def reduce_sum(x, axis, keepdims):
    """``np.sum(x, axis=axis, keepdims=keepdims)``.

    Args:
        x: array of any shape (or scalar). axis: tuple of non-negative ints (or None
        for all axes). keepdims: bool.

    Returns:
        The sum, NumPy's dtype (bool/small ints promote to the default int).

    Raises:
        numpy.exceptions.AxisError: an axis out of range.
    """
    return np.sum(x, axis=axis, keepdims=keepdims)


def reduce_max(x, axis, keepdims):
    """``np.max(x, axis=axis, keepdims=keepdims)`` (NaN propagates).

    Raises:
        ValueError: reduction over an empty axis.
        numpy.exceptions.AxisError: an axis out of range.
    """
    return np.max(x, axis=axis, keepdims=keepdims)


def reduce_min(x, axis, keepdims):
    """``np.min(x, axis=axis, keepdims=keepdims)`` (NaN propagates).

    Raises:
        ValueError: reduction over an empty axis.
        numpy.exceptions.AxisError: an axis out of range.
    """
    return np.min(x, axis=axis, keepdims=keepdims)


def matmul(a, b):
    """``np.matmul(a, b)`` (BLAS): shapes ``(..., n, k) @ (..., k, m)``.

    Raises:
        ValueError: mismatched core dimensions or batch shapes that do not broadcast.
    """
    return np.matmul(a, b)


def tensordot(a, b, axes):
    """``np.tensordot(a, b, axes)`` (BLAS after reshaping).

    Raises:
        ValueError: contracted axes of different lengths.
    """
    return np.tensordot(a, b, axes)


def einsum(subscripts, *operands):
    """``np.einsum(subscripts, *operands)``.

    Contraction-order optimisation (and with it BLAS) is switched on for three or
    more operands, or two operands with ``EINSUM_OPTIMIZE_MIN_SIZE`` elements or
    more; for small ones the path search costs more than it saves.

    Raises:
        ValueError: subscripts that do not match the operands.
    """
    optimize = len(operands) > 2 or sum(np.size(o) for o in operands) >= EINSUM_OPTIMIZE_MIN_SIZE
    return np.einsum(subscripts, *operands, optimize=optimize)


def where(c, x, y):
    """``np.where(c, x, y)``: broadcast shape, ``result_type(x, y)`` (NEP 50).

    Raises:
        ValueError: shapes that do not broadcast.
    """
    return np.where(c, x, y)


# ----------------------------------------------------------------------------------
# numba paths.  Each returns None when its operands do not qualify, so the caller
# falls back to NumPy.  They ignore the NUMBA_* tables, so the benchmark can time
# every candidate.
# ----------------------------------------------------------------------------------

_POOL_MIN_BYTES = _buffers.POOL_MIN_BYTES
_POOL_KINDS = frozenset("biufc")


def _pooled_out(fn, shape, *operands):
    """A recycled output array (:mod:`ftrans.kernels._buffers`) for ``fn(*operands)``,
    or None (then NumPy allocates): ``fn`` a one-output ufunc, a float or complex
    result, every array operand C-contiguous of the broadcast shape ``shape`` (which
    one of them has) or a broadcast scalar (all strides zero, e.g. the backward of a
    sum), other operands Python or NumPy scalars.  The output's layout is then C, as
    NumPy's own would be, so the result equals ``fn(*operands)`` in every respect but
    the memory it lives in."""
    if type(fn) is not np.ufunc or fn.nout != 1:
        return None
    dtypes = []
    for v in operands:
        t = type(v)
        if t is np.ndarray:
            if v.dtype.kind not in _POOL_KINDS or not (
                    (v.shape == shape and v.flags.c_contiguous)
                    or (v.ndim <= len(shape) and not any(v.strides))):
                return None
            dtypes.append(v.dtype)
        elif t is float or t is int or t is complex:
            dtypes.append(t)  # a weak scalar (NEP 50)
        elif isinstance(v, np.generic) and v.dtype.kind in _POOL_KINDS:
            dtypes.append(v.dtype)
        else:
            return None
    try:
        res = fn.resolve_dtypes((*dtypes, None))[-1]
        if np.broadcast_shapes(shape, *(np.shape(v) for v in operands)) != shape:
            return None
    except (TypeError, ValueError):
        return None  # let the ufunc raise its own error
    return _buffers.empty(shape, res) if res.kind in "fc" else None


#: NumPy error modes under which a large ufunc call is shared with helper threads: a
#: helper computes with floating-point errors ignored (``_split``), so a "raise", "call"
#: or "log" mode (which must see every block) keeps the call in the calling thread
_SPLIT_ERR_MODES = frozenset({"ignore", "warn", "print"})


def _ufunc_into(fn, out, operands):
    """``fn(*operands, out=out)`` with ``out`` from :func:`_pooled_out`: from
    ``NUMBA_PARALLEL_MIN_SIZE`` elements on, in blocks shared with helper threads
    (``_split.run``: NumPy releases the GIL inside its loops, so a memory-bound ufunc
    runs ~2x faster on 2 cores, as PyTorch's eager kernels do).  The ufunc is
    elementwise, so each element is computed as by one call.  A floating-point
    warning comes only from the blocks the calling thread computed (helpers ignore the
    errors); a "raise"/"call"/"log" error mode (``np.seterr``) keeps the whole call in
    the calling thread."""
    n = out.size
    if n < NUMBA_PARALLEL_MIN_SIZE or not _SPLIT_ERR_MODES.issuperset(np.geterr().values()):
        return fn(*operands, out=out)
    args, sliced = [], []
    for v in operands:
        if type(v) is np.ndarray and any(v.strides):  # (_pooled_out: C-contiguous, out's shape)
            args.append(v.reshape(-1))
            sliced.append(True)
        else:  # a Python or NumPy scalar, or a broadcast scalar (all strides zero)
            args.append(v.reshape(-1)[:1] if type(v) is np.ndarray else v)
            sliced.append(False)
    args.append(out.reshape(-1))
    sliced.append(True)
    _split.run(functools.partial(_ufunc_block, fn), n, args, sliced)
    return out


def _ufunc_block(fn, *args):
    """``fn`` on one block, ``args`` its operands and then its output."""
    fn(*args[:-1], out=args[-1])


def _launch(kernel, n, args, sliced):
    """``kernel(*args)``: in the calling thread below ``NUMBA_PARALLEL_MIN_SIZE``
    elements, else in blocks shared with helper threads (``_split.run``; ``sliced``:
    which arguments are the length-``n`` arrays to cut into blocks)."""
    if n >= NUMBA_PARALLEL_MIN_SIZE:
        _split.run(kernel, n, args, sliced)
    else:
        kernel(*args)


def _unary_numba(name, x):
    """``unary`` on a C-contiguous float32/float64 array with a numba loop (float64
    sin/cos: the vectorized kernels of ``_trig_numba``)."""
    if x.dtype == _F64 and name in _TRIG:
        return _trig_numba(name, None, x)
    out = _buffers.empty(x.shape, x.dtype)
    _launch(_kernel("unary", _UNARY[name]), x.size, (x.reshape(-1), out.reshape(-1)),
            (True, True))
    return out


_TRIG_NO_G = np.ones(1)  # the unused ``g`` operand of the "sin"/"cos" trig kernels


def _trig_numba(name, g, x):
    """float64 "sin", "cos" (``g`` None), "dsin" (``g*cos(x)``) or "dcos" (``-g*sin(x)``)
    of a C-contiguous float64 ``x`` with the vectorized kernels; ``g`` as returned by
    ``_flat_operand`` (a (flat array, step) pair)."""
    out = _buffers.empty(x.shape, _F64)
    gs = (_TRIG_NO_G, 0) if g is None else g
    _launch(_kernel("trig", name), x.size, (*gs, x.reshape(-1), out.reshape(-1)),
            (gs[1] == 1, False, True, True))
    return out


def _sincos_numba(x):
    """``sincos`` of a C-contiguous float64 array in one vectorized pass."""
    s, c = _buffers.empty(x.shape, _F64), _buffers.empty(x.shape, _F64)
    _launch(_kernel("trig", "sincos"), x.size,
            (x.reshape(-1), s.reshape(-1), c.reshape(-1)), (True, True, True))
    return s, c


def _binary_numba(name, x, y):
    """``binary`` for same-shape same-dtype float arrays, or array and Python scalar."""
    ref = x if type(x) is np.ndarray else y
    dtype, shape = ref.dtype, ref.shape
    if dtype != _F32 and dtype != _F64:
        return None
    a, b = _flat_operand(x, dtype, shape), _flat_operand(y, dtype, shape)
    if a is None or b is None:
        return None
    out = _buffers.empty(shape, dtype)
    _launch(_kernel("binary", _BINARY_SCALAR[name]), out.size, (*a, *b, out.reshape(-1)),
            (a[1] == 1, False, b[1] == 1, False, True))
    return out


def _vjp_numba(name, g, x, ans):
    """``unary_vjp`` in one fused numba pass, for float32/float64 ``x``."""
    dtype, shape = x.dtype, x.shape
    if (dtype != _F32 and dtype != _F64) or not x.flags.c_contiguous:
        return None
    gs = _flat_operand(g, dtype, shape, scalar_arrays=True)
    ys = _flat_operand(ans, dtype, shape) if name in _VJP_USES_ANS else (x.reshape(-1), 1)
    if gs is None or ys is None or ys[1] != 1:
        return None
    if dtype == _F64 and (name == "sin" or name == "cos"):
        return _trig_numba("d" + name, gs, x)
    out = _buffers.empty(shape, dtype)
    _launch(_kernel("vjp", _VJP[name]), x.size, (*gs, x.reshape(-1), ys[0], out.reshape(-1)),
            (gs[1] == 1, False, True, True, True))
    return out


def _flat_operand(v, dtype, shape, scalar_arrays=False):
    """(1-d array, step) for a kernel operand, or None if ``v`` does not qualify.

    A C-contiguous array of ``dtype`` and ``shape`` gives (flat view, 1).  A Python
    float (or an int that ``dtype`` holds exactly) gives (1-element array, 0): under
    NEP 50 NumPy converts such a "weak" scalar to ``dtype`` before computing.  With
    ``scalar_arrays``, an array of ``dtype`` whose elements all alias one value (0-d,
    size 1, or all-zero strides) that broadcasts to ``shape`` also gives step 0.
    """
    t = type(v)
    if t is float or (t is int and -(1 << 24) <= v <= (1 << 24)):
        # (NumPy < 2 promotes float32 with a float beyond float32's range to float64)
        return (np.full(1, v, dtype), 0) if np.result_type(v, dtype) == dtype else None
    if t is not np.ndarray or v.dtype != dtype:
        return None
    if v.shape == shape and v.flags.c_contiguous:
        return v.reshape(-1), 1
    if scalar_arrays and (v.size == 1 or not any(v.strides)) and v.size \
            and np.broadcast_shapes(v.shape, shape) == shape:
        return np.full(1, v.flat[0], dtype), 0
    return None


def _axis0_rows(idx, z):
    """The integer index array if ``z[idx]`` selects rows of ``z`` with it, else None.

    Matches ``idx`` of the form ``(int_array,)`` optionally followed by full slices
    ``:`` and/or one Ellipsis, for ``z`` of two or more dimensions.  (For 1-d ``z``,
    NumPy's own ``np.add.at`` loop is as fast as a numba loop.)
    """
    if not idx:
        return None
    rows = idx[0]
    if (type(rows) is not np.ndarray or z.ndim < 2
            or not (rows.dtype.kind == "i" or (rows.dtype.kind == "u" and rows.itemsize < 8))):
        return None
    rest = idx[1:]
    n_slices = 0
    for e in rest:
        if type(e) is slice and e == slice(None):
            n_slices += 1
        elif e is not Ellipsis:
            return None
    if n_slices >= z.ndim or sum(e is Ellipsis for e in rest) > 1:
        return None
    return rows


def _leading_arrays_flat(idx, z):
    """``(flat_rows, k, bshape)`` if ``idx`` is two or more integer arrays followed only by
    full slices (``(i, j)``, ``(i, j, :)``, ``(i, j, ...)``): ``z[idx]`` is then
    ``z.reshape(-1, *z.shape[k:])[flat_rows].reshape(bshape + z.shape[k:])`` (``bshape``:
    the broadcast shape of the index arrays, ``flat_rows`` 1-d).  Negative entries are
    wrapped and out-of-bounds ones raise ``IndexError`` as NumPy does; else None."""
    k = 0
    for e in idx:
        if type(e) is np.ndarray and e.dtype.kind in "iu" and e.dtype.itemsize <= 8:
            k += 1
        else:
            break
    if k < 2 or k > z.ndim:
        return None
    for e in idx[k:]:
        if not (e is Ellipsis or (type(e) is slice and e == slice(None))):
            return None
    if sum(e is Ellipsis for e in idx[k:]) > 1:
        return None
    try:
        bshape = np.broadcast_shapes(*(e.shape for e in idx[:k]))
    except ValueError:
        return None  # let NumPy raise its own shape-mismatch error
    flat = None
    for ax, a in enumerate(idx[:k]):  # on the (small) unbroadcast arrays; broadcast last
        n = z.shape[ax]
        a = a.astype(np.intp, copy=False)
        if a.size and (a.min() < -n or a.max() >= n):
            bad = a[(a < -n) | (a >= n)].flat[0]
            raise IndexError(f"index {bad} is out of bounds for axis {ax} with size {n}")
        if a.size and a.min() < 0:
            a = np.where(a < 0, a + n, a)
        flat = a if flat is None else flat * n + a
    flat = np.broadcast_to(flat, bshape).reshape(-1)  # a copy only if still broadcast
    return flat, k, bshape


def _may_repeat(i):
    """Whether index element ``i`` can address one position twice: integer arrays and
    sequences can; ints, slices, None, Ellipsis and boolean masks cannot."""
    if i is None or i is Ellipsis or isinstance(i, (int, slice, np.integer)):
        return False
    dt = getattr(i, "dtype", None)
    return dt is None or dt.kind != "b"


_SCATTER_KINDS = frozenset("iufc")


def _scatter_rows_numba(z, rows, updates):
    """``np.add.at(z, rows, updates)`` for a fresh zero ``z`` with a numba loop.

    Returns False (z untouched) if the operands do not qualify; raises IndexError
    for an out-of-bounds row like NumPy.
    """
    dtype = z.dtype
    target = rows.shape + z.shape[1:]
    if (type(updates) is not np.ndarray or updates.dtype != dtype
            or updates.shape != target or dtype.kind not in _SCATTER_KINDS
            or dtype.itemsize < 4 or not dtype.isnative):
        return False
    n = z.shape[0]
    z2 = z.reshape(n, math.prod(z.shape[1:]))
    flat_rows = np.ascontiguousarray(rows, dtype=np.intp).reshape(-1)
    u2 = np.ascontiguousarray(updates).reshape(flat_rows.size, z2.shape[1])
    bad = _kernel("scatter_rows", None)(z2, flat_rows, u2)
    if bad >= 0:
        raise IndexError(
            f"index {flat_rows[bad]} is out of bounds for axis 0 with size {n}")
    return True
