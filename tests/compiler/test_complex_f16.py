"""Complex numbers in compiled code: ``jit(f)`` computes what eager NumPy does, bit for bit
for the elementwise functions (special values, branch cuts and signed zeros included), to
rounding for reductions and matrix products, and ``jit(grad(f))`` of real losses of complex
inputs equals eager ``grad``.  Every program runs through the compiled path (no
``FTRANS_COMPILER=reference``); a segment falling back to its impls would warn, which
these tests turn into an error.

The expected values are NumPy's ufuncs applied directly (``np.exp`` ...), never ftrans.
"""
from __future__ import annotations

import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans.compiler import compile_ir, graph_breaks
from ftrans.compiler._numba_dtypes import NUMBA_COMPLEX
from ftrans.core.ir import eval_ir
from ftrans.core.trace import EVAL, set_current_trace

pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")
#: the complex functions call the C library's by the x86-64 System V convention
libm_complex = pytest.mark.skipif(not NUMBA_COMPLEX, reason="complex lowering: x86-64 Linux/macOS")

C128, C64 = np.dtype(np.complex128), np.dtype(np.complex64)

_SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, np.inf, -np.inf, np.nan, 1e-300, -1e-300,
            1e300, 710.0, -750.0, 89.0, -104.0, 1e-310, 1e-40, 3.4e38, 1e20, -1e20,
            np.pi / 2, 1e-8]


def _special_grid(dtype):
    """Every pair (re, im) of the special values, then random values of mixed scales."""
    ft = np.finfo(dtype).dtype
    with np.errstate(all="ignore"):
        s = np.array(_SPECIAL, ft)
        re, im = np.meshgrid(s, s)
        z = np.empty(re.shape, dtype)
        z.real, z.imag = re, im
        rng = np.random.default_rng(0)
        n = 600
        r = np.empty(n, dtype)
        r.real = rng.standard_normal(n) * rng.choice([0.01, 1, 10, 100], n)
        r.imag = rng.standard_normal(n) * rng.choice([0.01, 1, 10, 100], n)
    return np.concatenate([z.ravel(), r])


def _bits(a):
    """The float components' bit patterns, every NaN made the same (NumPy's NaN payloads
    and signs are not specified); -0.0 stays distinct from 0.0."""
    a = np.asarray(a).ravel()
    parts = [a.real, a.imag] if a.dtype.kind == "c" else [a]
    out = []
    for p in parts:
        p = np.where(np.isnan(p), np.array(np.nan, p.dtype), p)
        out.append(p.view({8: np.int64, 4: np.int32, 2: np.int16, 1: np.int8}[p.dtype.itemsize]))
    return np.stack(out)


def assert_bitwise(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, want.dtype)
    bad = np.nonzero((_bits(got) != _bits(want)).any(axis=0))[0]
    assert bad.size == 0, (what, bad[:5], got.ravel()[bad[:5]], want.ravel()[bad[:5]])


def _unary_and_binary(x, y):
    return [fnp.exp(x), fnp.log(x), fnp.sqrt(x), fnp.sin(x), fnp.cos(x), fnp.tanh(x),
            fnp.abs(x), x / y, x * y, x + y, x - y, -x, fnp.conj(x), x ** y, x ** 2, x ** 3,
            x ** -2, x ** 7, x ** (0.5 + 1j), fnp.tan(x), fnp.sinh(x), fnp.cosh(x),
            fnp.arcsin(x), fnp.arccos(x), fnp.arctan(x), fnp.log1p(x), fnp.expm1(x),
            fnp.sign(x), x == y, x != y, fnp.isnan(x), fnp.isinf(x), fnp.isfinite(x),
            fnp.logical_and(x, y), fnp.logical_or(x, y), fnp.logical_xor(x, y),
            fnp.logical_not(x)]


_NUMPY = [np.exp, np.log, np.sqrt, np.sin, np.cos, np.tanh, np.abs]


@libm_complex
@pytest.mark.parametrize("dtype", [C128, C64], ids=["complex128", "complex64"])
def test_elementwise_special_values_bitwise(dtype):
    """exp, log, sqrt, sin, cos, tanh, abs, division, products and powers of every pair of
    special values equal NumPy's bits (branch cuts: signed zeros on the negative real
    axis; ``0**y``, integral exponents)."""
    x = _special_grid(dtype)
    y = np.random.default_rng(1).permutation(x)  # zeros, infs and nans as divisors too
    ir = ftrans.make_ir(_unary_and_binary)(x, y)
    assert graph_breaks(ir) == []
    got = ftrans.jit(_unary_and_binary)(x, y)
    with np.errstate(all="ignore"):
        want = [f(x) for f in _NUMPY[:7]] + [np.divide(x, y), np.multiply(x, y), np.add(x, y),
                                              np.subtract(x, y), np.negative(x), np.conj(x),
                                              np.power(x, y)]
        want += [np.power(x, n) for n in (2, 3, -2, 7)] + [np.power(x, dtype.type(0.5 + 1j))]
        want += [f(x) for f in (np.tan, np.sinh, np.cosh, np.arcsin, np.arccos, np.arctan,
                                np.log1p, np.expm1, np.sign)]
        want += [x == y, x != y, np.isnan(x), np.isinf(x), np.isfinite(x),
                 np.logical_and(x, y), np.logical_or(x, y), np.logical_xor(x, y),
                 np.logical_not(x)]
    names = ["exp", "log", "sqrt", "sin", "cos", "tanh", "abs", "div", "mul", "add", "sub",
             "neg", "conj", "pow", "x**2", "x**3", "x**-2", "x**7", "x**(0.5+1j)", "tan",
             "sinh", "cosh", "arcsin", "arccos", "arctan", "log1p", "expm1", "sign", "eq",
             "ne", "isnan", "isinf", "isfinite", "and", "or", "xor", "not"]
    for g, w, name in zip(got, want, names):
        assert_bitwise(g, w, name)
    # complex64 is computed in complex64 (not rounded from complex128)
    assert all(np.asarray(g).dtype == (dtype if k != 6 else np.finfo(dtype).dtype)
               for k, g in enumerate(got[:-9]))


@libm_complex
def test_scalar_broadcast_and_literals():
    """Shape-() complex values (scalars in the generated code), broadcasting of a row and
    a column, Python complex literals, mixed real/complex operands."""
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((3, 5)) + 1j * rng.standard_normal((3, 5))).astype(C64)
    row = (rng.standard_normal(5) + 1j * rng.standard_normal(5)).astype(C64)
    col = rng.standard_normal((3, 1)).astype(np.float32)
    s = np.asarray(0.25 - 1.5j, C64)

    def f(x, row, col, s):
        return [fnp.exp(x * row) / (col + 2j), fnp.log(x + s), s * fnp.sqrt(s), fnp.abs(s),
                fnp.tanh(row) - col, x / 3.0]
    got = ftrans.jit(f)(x, row, col, s)
    want = f(x, row, col, s)  # eager ftrans: NumPy's ufuncs on arrays
    with np.errstate(all="ignore"):
        direct = [np.exp(x * row) / (col + np.complex64(2j)), np.log(x + s), s * np.sqrt(s),
                  np.abs(s), np.tanh(row) - col, x / np.complex64(3.0)]
    for k, (g, w, d) in enumerate(zip(got, want, direct)):
        assert_bitwise(g, w, f"output {k} vs eager")
        assert_bitwise(g, d, f"output {k} vs NumPy")


def _ulp_close(got, want, ulps):
    """Within ``ulps`` units of the largest magnitude (reductions: rounding grows with
    the number of terms, so callers pass a multiple of it)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    eps = np.finfo(want.dtype).eps
    scale = np.max(np.abs(want), initial=1.0)
    np.testing.assert_allclose(got, want, rtol=0, atol=ulps * eps * scale)


@libm_complex
@pytest.mark.parametrize("dtype", [C128, C64], ids=["complex128", "complex64"])
def test_reductions_and_dot(dtype):
    """sum and prod over axes and in full, and dot_general with complex operands, to
    rounding (NumPy sums pairwise, the loop sequentially; complex64 sums accumulate in
    complex128)."""
    rng = np.random.default_rng(3)

    def c(*shape):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    x, w, v = c(4, 7), c(7, 3), c(7)
    p = (0.9 + 0.1 * c(4, 7)).astype(dtype)

    def f(x, w, v, p):
        return [fnp.sum(x, axis=0), fnp.sum(x * 2, axis=1), fnp.sum(x), fnp.prod(p, axis=1),
                fnp.prod(p), x @ w, x @ v, fnp.sum(fnp.exp(x) @ w, axis=0)]
    ir = ftrans.make_ir(f)(x, w, v, p)
    assert graph_breaks(ir) == []
    got = ftrans.jit(f)(x, w, v, p)
    want = [np.sum(x, axis=0), np.sum(x * 2, axis=1), np.sum(x), np.prod(p, axis=1),
            np.prod(p), x @ w, x @ v, np.sum(np.exp(x) @ w, axis=0)]
    terms = [4, 7, 28, 7, 28, 7, 7, 28]  # the number of terms each output reduces
    for g, wnt, n in zip(got, want, terms):
        _ulp_close(g, wnt, ulps=2 * n)


@libm_complex
def test_zero_size_complex():
    e = np.zeros((2, 0), C128)
    s = np.asarray(0.5 + 1j)

    def f(e, s):
        return [fnp.exp(e) / s, fnp.sum(e), fnp.prod(e, axis=1), fnp.abs(e)]
    got = ftrans.jit(f)(e, s)
    want = [np.exp(e) / s, np.sum(e), np.prod(e, axis=1), np.abs(e)]
    for g, w in zip(got, want):
        assert_bitwise(g, w, "zero-size")


def _loss(z, w):
    """A real loss of complex ``z`` through every newly compiled operation."""
    u = fnp.exp(z) * w + fnp.sin(z) / (z + 2.0) - fnp.sqrt(z + 3.0) * fnp.cos(w)
    u = fnp.tanh(u * 0.3) + fnp.log(z * z + 1.5)
    return fnp.sum(fnp.abs(u)) + fnp.real(fnp.sum(u * fnp.conj(u)))


@libm_complex
@pytest.mark.parametrize("dtype", [C128, C64], ids=["complex128", "complex64"])
def test_jit_grad_of_complex_function(dtype):
    """``jit(grad(loss))`` equals eager ``grad`` (ftrans's convention: the conjugate
    Wirtinger gradient) and compiles the complex arithmetic of the backward pass."""
    rng = np.random.default_rng(4)
    z = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(dtype)
    w = (rng.standard_normal(4) + 1j * rng.standard_normal(4)).astype(dtype)
    g = ftrans.grad(_loss, argnums=(0, 1))
    ir = ftrans.make_ir(g)(z, w)
    breaks = set(graph_breaks(ir))
    assert not breaks & {"exp", "log", "sqrt", "sin", "cos", "tanh", "abs", "div", "mul"}, breaks
    got = ftrans.jit(g)(z, w)
    want = g(z, w)
    for a, b in zip(got, want):
        _ulp_close(a, b, ulps=64)
    # and the gradient itself is right: central differences along real and imaginary axes
    if dtype == C128:
        k, h = (1, 2), 1e-6
        for d in (1.0, 1j):
            zp, zm = z.copy(), z.copy()
            zp[k] += d * h
            zm[k] -= d * h
            fd = (float(_loss(zp, w)) - float(_loss(zm, w))) / (2 * h)
            # d L = Re(conj(grad) dz): grad's real part for a real step, imag for 1j
            want_fd = got[0][k].real if d == 1.0 else got[0][k].imag
            assert abs(fd - want_fd) < 1e-6 * max(1.0, abs(fd))


def test_still_breaking_complex_ops():
    """Complex ``maximum``/``minimum`` and max/min reductions (NumPy orders complex numbers
    lexicographically) graph-break to their impls, which give NumPy's results."""
    x = np.array([1 + 2j, -1 + 0j, 1 + 3j, np.nan + 0j])
    y = np.array([1 + 1j, -1 - 1j, 2 + 0j, 0j])

    def f(x, y):
        return [fnp.maximum(x, y), fnp.minimum(x, y), fnp.max(x), fnp.min(y)]
    breaks = set(graph_breaks(ftrans.make_ir(f)(x, y)))
    assert {"maximum", "minimum", "reduce_max", "reduce_min"} <= breaks
    with np.errstate(all="ignore"):
        got = ftrans.jit(f)(x, y)
        want = [np.maximum(x, y), np.minimum(x, y), np.max(x), np.min(y)]
    for g, w in zip(got, want):
        assert_bitwise(g, w, "breaking op")


@libm_complex
def test_compiled_segment_runs_no_impl():
    """The whole special-value program is one compiled segment (no graph break at all;
    the program of test_elementwise_special_values_bitwise: its module is reused)."""
    x = _special_grid(C64)
    run = compile_ir(ftrans.make_ir(_unary_and_binary)(x, x))
    assert run.graph_breaks == [] and len(run.dispatchers) == 1


# ---------------------------------------------------------------------------------
# float16: computed in float32, each result rounded to float16 (NumPy's float16 loops)
# ---------------------------------------------------------------------------------
F16 = np.dtype(np.float16)
_ALL_F16 = np.arange(2 ** 16, dtype=np.uint16).view(np.float16)  # every float16 value

#: the float16 operations that graph-break (their compiled form would differ from NumPy's
#: bits somewhere: the op table's ``numba_float16=False`` and the lowering entries'
#: ``"float16": False``)
_F16_EXPECTED_BREAKS = {"nextafter", "spacing", "exp", "expm1", "sin", "cos", "tan", "cosh",
                        "arcsin", "arctan", "floor_divide", "pow"}


def _f16_unary_program():
    import ftrans.primitives as P
    from ftrans.primitives.optable import ROWS
    rows = [r.name for r in ROWS if r.arity == 1 and r.outputs == 1]
    extra = {"neg": lambda x: -x, "abs": fnp.abs, "sign": fnp.sign, "floor": fnp.floor,
             "ceil": fnp.ceil, "round": fnp.round, "square": lambda x: x ** 2,
             "cube": lambda x: x ** 3, "recip2": lambda x: x ** -2,
             "literal": lambda x: x * 0.1 + 1,
             "to_f32": lambda x: x.astype(np.float32) * 3, "isnan": fnp.isnan}
    fns = [getattr(P, n) for n in rows] + list(extra.values())
    return rows + list(extra), lambda x: [g(x) for g in fns]


def test_float16_every_input_every_unary_op():
    """Every unary row of the op table (and the hand-written unary ops) on all 65536
    float16 values: compiled equals eager bit for bit (NaN signs aside); the operations
    that cannot are exactly the expected graph breaks."""
    names, f = _f16_unary_program()
    ir = ftrans.make_ir(f)(_ALL_F16)
    breaks = set(graph_breaks(ir))
    # rows with no CPU lowering break in every dtype; of the others only the expected
    assert breaks & (set(names) - _F16_EXPECTED_BREAKS) <= {
        "i0", "i1", "i0e", "i1e", "isneginf", "isposinf"}, breaks
    assert {"exp", "sin", "spacing"} <= breaks and not breaks & {"sqrt", "log", "tanh", "abs"}
    with np.errstate(all="ignore"):
        got = ftrans.jit(f)(_ALL_F16)
        want = f(_ALL_F16)
    for name, g, w in zip(names, got, want):
        assert_bitwise(g, w, name)
    # and against NumPy itself for a few
    with np.errstate(all="ignore"):
        for name, fn in (("sqrt", np.sqrt), ("log", np.log), ("tanh", np.tanh),
                         ("floor", np.floor)):
            assert_bitwise(got[names.index(name)], fn(_ALL_F16), name)


def test_float16_binary_casts_broadcasting_and_scalars():
    rng = np.random.default_rng(5)
    sp = np.array([0, -0.0, 1, -1, np.inf, -np.inf, np.nan, 2, 0.5, 65504, -65504, 6e-8,
                   3e-5, 1000], F16)
    a, b = (m.ravel() for m in np.meshgrid(sp, sp))
    x = np.concatenate([_ALL_F16, a])
    y = np.concatenate([rng.permutation(_ALL_F16), b])
    d = rng.standard_normal(x.size) * 100  # float64, cast to float16 (one rounding)
    i = rng.integers(-70000, 70000, x.size).astype(np.int32)
    col = rng.standard_normal((5, 1)).astype(F16)
    row = rng.standard_normal(7).astype(F16)
    s = np.asarray(1.5, F16)

    def f(x, y, d, i, col, row, s):
        return [x + y, x - y, x * y, x / y, fnp.maximum(x, y), fnp.minimum(x, y),
                fnp.fmax(x, y), fnp.fmin(x, y), fnp.fmod(x, y), fnp.copysign(x, y),
                fnp.arctan2(x, y), fnp.logaddexp(x, y), x < y, x == y,
                fnp.where(x > y, x, y), d.astype(np.float16), i.astype(np.float16),
                (d.astype(np.float32) * 1.1).astype(np.float16), x.astype(np.float64) / 3,
                x + d.astype(np.float16), col * row + s, s * s - 0.3, fnp.sqrt(s),
                fnp.max(col * row, axis=0), fnp.min(x), fnp.sum(col * row, axis=1)]
    args = (x, y, d, i, col, row, s)
    breaks = set(graph_breaks(ftrans.make_ir(f)(*args)))
    assert breaks <= {"reduce_sum"}, breaks  # float16 sums: NumPy's pairwise float32 sum
    with np.errstate(all="ignore"):
        got = ftrans.jit(f)(*args)
        want = f(*args)
    for k, (g, w) in enumerate(zip(got, want)):
        assert_bitwise(g, w, f"output {k}")
    assert np.asarray(got[20]).dtype == F16 and np.asarray(got[21]).dtype == F16


def test_float16_zero_size_and_0d():
    e = np.zeros((3, 0), F16)
    s = np.asarray(-2.25, F16)

    def f(e, s):
        return [fnp.sqrt(e) + s, e * s, s / 3, fnp.abs(s)]
    got = ftrans.jit(f)(e, s)
    want = f(e, s)
    for k, (g, w) in enumerate(zip(got, want)):
        assert_bitwise(g, w, f"output {k}")
        assert np.asarray(g).dtype == F16


def test_jit_grad_float16():
    """``jit(grad(f))`` of a float16 function equals its program run equation by equation
    (each primitive's impl: NumPy's float16 ufuncs) bit for bit, and eager ``grad`` to a
    float16 rounding (eager ``grad`` uses fused derivative kernels: ``g / (2 sqrt(x))``
    where the staged program has ``g * (1 / (2 sqrt(x)))``)."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal((6, 5)).astype(F16)
    w = rng.standard_normal(5).astype(F16)

    def loss(x, w):
        h = fnp.tanh(x * w + 0.5) * fnp.sqrt(fnp.abs(x) + 1) / (w * w + 2)
        return fnp.sum(h * h + fnp.log1p(fnp.abs(h)))
    g = ftrans.grad(loss, argnums=(0, 1))
    ir = ftrans.make_ir(g)(x, w)
    got = ftrans.jit(g)(x, w)
    with set_current_trace(EVAL):
        by_equation = eval_ir(ir, x, w)
    for a, b, c in zip(got, by_equation, g(x, w)):
        assert np.asarray(a).dtype == F16
        assert_bitwise(a, b, "grad")
        c = np.asarray(c, np.float64)
        np.testing.assert_allclose(np.asarray(a, np.float64), c, rtol=0,
                                   atol=2 ** -8 * np.abs(c).max())
