"""ftrans.kernels: CPU kernels against NumPy, backend dispatch, GPU kernels if CuPy.

"BIG" arrays are above every size threshold in ``cpu.NUMBA_*``, so they take the numba
paths the tables enable; "small" ones take NumPy's.  Results must match NumPy in
dtype and shape, and in value to within a few units in the last place (the enabled
numba paths are in fact bitwise identical on the development machine; the tolerance
covers libm/SIMD differences elsewhere).
"""
import os
import subprocess
import sys
import types

import numpy as np
import pytest

import ftrans.kernels as kernels
from ftrans.kernels import cpu
from ftrans.primitives import optable

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIG = max(v for t in (cpu.NUMBA_UNARY, cpu.NUMBA_BINARY, cpu.NUMBA_VJP) for v in t.values()) + 7
SIZES = [5, BIG]
REAL = [np.float32, np.float64]

UNARY_NAMES = sorted(cpu._UNARY)
# ldexp's second operand is an integer exponent: tested with the operation-table rows
BINARY_NAMES = sorted(set(cpu._BINARY) - {"ldexp"})
# NumPy functions with no complex loop (the operation table's real rows)
_REAL_ONLY = {op.name for op in optable.ROWS if op.complex == "real"}
VJP_NAMES = sorted(cpu._VJP)

# Reference formulas for unary_vjp, written out independently of the kernels.
VJP_REF = {
    "sin": lambda g, x, y: g * np.cos(x),
    "cos": lambda g, x, y: -g * np.sin(x),
    "tan": lambda g, x, y: g * (1 + y * y),
    "tanh": lambda g, x, y: g * (1 - y * y),
    "exp": lambda g, x, y: g * y,
    "log": lambda g, x, y: g / x,
    "log1p": lambda g, x, y: g / (1 + x),
    "expm1": lambda g, x, y: g * (y + 1),
    "sinh": lambda g, x, y: g * np.cosh(x),
    "cosh": lambda g, x, y: g * np.sinh(x),
    "arcsin": lambda g, x, y: g / np.sqrt(1 - x * x),
    "arccos": lambda g, x, y: -g / np.sqrt(1 - x * x),
    "arctan": lambda g, x, y: g / (1 + x * x),
    "sqrt": lambda g, x, y: g / (2 * y),
}


def assert_same(got, ref, ulps=4):
    """Same type, dtype and shape as ``ref``; values within ``ulps`` units in the last
    place of |ref| (NaN where ref is NaN, equal infinities)."""
    assert type(got) is type(ref), (type(got), type(ref))
    got, ref = np.asarray(got), np.asarray(ref)
    assert (got.dtype, got.shape) == (ref.dtype, ref.shape), (got.dtype, got.shape, ref.dtype, ref.shape)
    if ref.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, ref)
        return
    finite = np.isfinite(ref)
    np.testing.assert_array_equal(got[~finite], ref[~finite])
    g, r = got[finite], ref[finite]
    bad = np.abs(g - r) > ulps * np.spacing(np.abs(r))
    assert not bad.any(), f"{bad.sum()} elements off by more than {ulps} ulp: {g[bad][:3]} vs {r[bad][:3]}"


def sample(n, dtype, lo=0.05, hi=0.95, seed=0):
    """Values inside every unary function's domain (arcsin, log, sqrt, ...)."""
    return np.random.default_rng(seed).uniform(lo, hi, n).astype(dtype)


# ------------------------------------------------------------------------- unary

@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", UNARY_NAMES)
def test_unary_matches_numpy(name, n, dtype):
    x = sample(n, dtype) * np.where(np.arange(n) % 3 == 0, -1, 1).astype(dtype)
    if name in ("log", "log1p", "sqrt", "arcsin", "arccos"):
        x = np.abs(x)
    assert_same(cpu.unary(name, x), cpu._UNARY[name](x))


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("name", sorted({name for name, _ in cpu.NUMBA_UNARY}))
def test_unary_numba_special_values(name, dtype):
    x = np.resize(np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -2.5, 7.0], dtype), BIG)
    with np.errstate(all="ignore"):
        got, ref = cpu.unary(name, x), cpu._UNARY[name](x)
    assert_same(got, ref)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(ref))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", sorted(set(UNARY_NAMES) - _REAL_ONLY))
def test_unary_complex(name, dtype):
    x = (sample(BIG, np.float64) + 0.3j * sample(BIG, np.float64, seed=1)).astype(dtype)
    assert_same(cpu.unary(name, x), cpu._UNARY[name](x))


@pytest.mark.parametrize("name", UNARY_NAMES)
def test_unary_scalars_and_0d(name):
    for x in (0.5, np.float32(0.5), np.array(0.5), np.array(0.5, np.float32)):
        assert_same(cpu.unary(name, x), cpu._UNARY[name](x))


@pytest.mark.parametrize("name", ["sin", "sqrt", "reciprocal", "exp"])
def test_unary_non_contiguous_and_other_layouts(name):
    x = sample(4 * BIG, np.float64)
    for view in (x[::2], x.reshape(-1, 4).T, np.asfortranarray(x.reshape(-1, 4))):
        assert_same(cpu.unary(name, view), cpu._UNARY[name](view))
    xi = np.arange(1, BIG)  # integer input: NumPy's promotion (float64, or int)
    with np.errstate(all="ignore"):
        assert_same(cpu.unary(name, xi), cpu._UNARY[name](xi))
    xb = x[:BIG].astype(">f8")  # non-native byte order
    assert_same(cpu.unary(name, xb), cpu._UNARY[name](xb))


def test_unary_unknown_name():
    with pytest.raises(ValueError, match="unknown unary kernel 'nope'"):
        cpu.unary("nope", np.ones(3))


# ------------------------------------------------------------------------ binary

def binary_operands(name, n, dtype):
    a = sample(n, dtype, -3, 3, seed=2)
    b = sample(n, dtype, -3, 3, seed=3)
    if name == "pow":
        a = np.abs(a)
    return a, b


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", BINARY_NAMES)
def test_binary_matches_numpy(name, n, dtype):
    a, b = binary_operands(name, n, dtype)
    ufunc = cpu._BINARY[name]
    assert_same(cpu.binary(name, a, b), ufunc(a, b))
    # Python scalars are weak (NEP 50): float32 stays float32, on either side.
    for s in (0.9, 2, -1.5):
        assert_same(cpu.binary(name, a, s), ufunc(a, s))
        assert_same(cpu.binary(name, abs(s), b), ufunc(abs(s), b))


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("name", sorted({name for name, _ in cpu.NUMBA_BINARY}))
def test_binary_numba_special_values(name, dtype):
    vals = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.1, -7.5, 3.0, 1e-30], dtype)
    a = np.resize(np.repeat(vals, vals.size), BIG)
    b = np.resize(np.tile(vals, vals.size), BIG)  # every pair of special values
    with np.errstate(all="ignore"):
        for x, y in ((a, b), (a, 0.0), (a, -0.0), (a, 0.1), (-7.5, b), (a, float("inf"))):
            got, ref = cpu.binary(name, x, y), cpu._BINARY[name](x, y)
            assert_same(got, ref, ulps=0)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(ref))


def test_binary_floordiv_rem_python_semantics():
    # floor(a / b) would give 10.0 here; NumPy (like Python) gives 9.0 and 0.1 - 9*0.1.
    a = np.full(BIG, 1.0)
    assert cpu.binary("floordiv", a, 0.1)[0] == 1.0 // 0.1 == 9.0
    assert cpu.binary("rem", a, 0.1)[0] == 1.0 % 0.1


@pytest.mark.parametrize("name", BINARY_NAMES)
def test_binary_promotion_broadcasting_and_layouts(name):
    a64, b64 = binary_operands(name, BIG, np.float64)
    a32 = a64.astype(np.float32)
    ufunc = cpu._BINARY[name]
    cases = [
        (a32, b64),                              # mixed dtypes -> float64
        (a32, np.array(0.5)),                    # 0-d float64 array is not weak
        (a32, np.float64(0.5)),                  # NumPy scalar is not weak
        (a64.reshape(-1, 1)[:64], b64[:32]),     # broadcasting
        (a64[::2], b64[::2]),                    # strided
        (a32, 1e300),                            # beyond float32 (NumPy 1: float64)
        (a64, True),                             # bool scalar
        (a64, 1.5 + 0.5j),                       # complex scalar
        (np.arange(BIG) + 1, 3),                 # integers
        (0.5, 2.0),                              # scalars only
        (np.array(0.5), np.array(2.0)),          # 0-d only
    ]
    if name == "pow":
        cases = [(np.abs(x) if isinstance(x, np.ndarray) else x, y) for x, y in cases]
    with np.errstate(all="ignore"):
        for x, y in cases:
            try:
                ref = ufunc(x, y)
            except TypeError:  # e.g. arctan2 of a complex: the kernel raises it too
                with pytest.raises(TypeError):
                    cpu.binary(name, x, y)
                continue
            assert_same(cpu.binary(name, x, y), ref)


def test_binary_shape_error():
    with pytest.raises(ValueError):
        cpu.binary("add", np.ones(BIG), np.ones(BIG + 1))
    with pytest.raises(ValueError, match="unknown binary kernel"):
        cpu.binary("plus", 1.0, 2.0)


# --------------------------------------------------------------------- unary_vjp

def vjp_inputs(name, n, dtype, g_kind, seed=0):
    x = sample(n, dtype, seed=seed)
    ans = cpu._UNARY[name](x)
    if g_kind == "full":
        g = sample(n, dtype, -2, 2, seed=seed + 1)
    elif g_kind == "0d":
        g = np.asarray(1.7, dtype)
    elif g_kind == "broadcast":  # e.g. the backward of a sum
        g = np.broadcast_to(np.asarray(1.7, dtype), x.shape)
    else:
        g = 1.7
    return g, x, ans


@pytest.mark.parametrize("g_kind", ["full", "0d", "broadcast", "python"])
@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", VJP_NAMES)
def test_unary_vjp_matches_formula(name, n, dtype, g_kind):
    g, x, ans = vjp_inputs(name, n, dtype, g_kind)
    got = cpu.unary_vjp(name, g, x, ans)
    assert_same(got, VJP_REF[name](g, x, ans))
    assert got.dtype == np.result_type(g, x) == dtype


@pytest.mark.parametrize("name", VJP_NAMES)
def test_unary_vjp_without_ans_and_2d(name):
    g, x, ans = vjp_inputs(name, BIG, np.float64, "full")
    x2, g2 = x[:-7].reshape(-1, 8), g[:-7].reshape(-1, 8)
    assert_same(cpu.unary_vjp(name, g2, x2), VJP_REF[name](g2, x2, cpu._UNARY[name](x2)))
    # g broadcast along one axis only, strided x, float64 g with float32 x
    row = g2[:1]
    assert_same(cpu.unary_vjp(name, row, x2), VJP_REF[name](row, x2, cpu._UNARY[name](x2)))
    xs = x[::2]
    assert_same(cpu.unary_vjp(name, 1.0, xs), VJP_REF[name](1.0, xs, cpu._UNARY[name](xs)))
    x32 = x.astype(np.float32)
    got = cpu.unary_vjp(name, g, x32, cpu._UNARY[name](x32))
    assert got.dtype == np.float64
    assert_same(got, VJP_REF[name](g, x32, cpu._UNARY[name](x32)))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("name", VJP_NAMES)
def test_unary_vjp_complex_conjugates_derivative(name, dtype):
    x = (sample(50, np.float64) + 0.4j * sample(50, np.float64, seed=1)).astype(dtype)
    g = (sample(50, np.float64, seed=2) - 0.7j).astype(dtype)
    ans = cpu._UNARY[name](x)
    deriv = VJP_REF[name](1, x, ans)  # f'(x)
    assert_same(cpu.unary_vjp(name, g, x, ans), g * np.conj(deriv), ulps=16)
    # real cotangent, complex primal
    assert_same(cpu.unary_vjp(name, 2.0, x, ans), 2.0 * np.conj(deriv), ulps=16)


def test_unary_vjp_unknown_name_and_bad_g():
    with pytest.raises(ValueError, match="unknown unary_vjp kernel"):
        cpu.unary_vjp("neg", 1.0, np.ones(3))
    with pytest.raises(ValueError):
        cpu.unary_vjp("sin", np.ones(BIG + 1), np.ones(BIG))


# ------------------------------------------------------------------- scatter_add

def add_at_reference(shape, dtype, index, updates):
    z = np.zeros(shape, dtype)
    np.add.at(z, index, updates)
    return z


SCATTER_CASES = {
    "rows repeated+negative": ((50, 3), lambda r: np.array([0, -1, 0, 5, 49, -50, 5, 5])),
    "rows 2-d index": ((20, 4), lambda r: r.integers(-20, 20, (6, 5))),
    "rows then full slices": ((10, 3, 2), lambda r: (r.integers(0, 10, 30), slice(None), slice(None))),
    "rows then ellipsis": ((10, 3, 2), lambda r: (r.integers(0, 10, 30), Ellipsis)),
    "rows int32 index": ((30, 2), lambda r: r.integers(-30, 30, 100).astype(np.int32)),
    "rows uint8 index": ((30, 2), lambda r: r.integers(0, 30, 100).astype(np.uint8)),
    "rows uint64 index": ((30, 2), lambda r: r.integers(0, 30, 100).astype(np.uint64)),
    "empty index": ((7, 3), lambda r: np.array([], dtype=np.intp)),
    "1-d repeated": ((9,), lambda r: np.array([1, 1, -1, 8, 0, 1])),
    "columns": ((6, 8), lambda r: (slice(None), r.integers(-8, 8, 12))),
    "basic + advanced": ((6, 8, 3), lambda r: (slice(1, 5), r.integers(0, 8, 10), 2)),
    "int then array": ((6, 8), lambda r: (3, r.integers(0, 8, 10))),
    "two arrays": ((6, 8), lambda r: (r.integers(0, 6, 15), r.integers(0, 8, 15))),
    "rows then step slice": ((10, 6), lambda r: (r.integers(0, 10, 12), slice(None, None, 2))),
    "bool mask": ((5, 4), lambda r: r.random((5, 4)) > 0.5),
    "bool rows": ((5, 4), lambda r: np.array([True, False, True, True, False])),
    "basic only": ((5, 4, 3), lambda r: (slice(1, None, 2), None, Ellipsis, 0)),
    "single int": ((5, 4), lambda r: 2),
    "list index": ((5, 4), lambda r: [0, 0, 3]),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128, np.int64])
@pytest.mark.parametrize("case", sorted(SCATTER_CASES))
def test_scatter_add_matches_add_at(case, dtype):
    shape, make_index = SCATTER_CASES[case]
    rng = np.random.default_rng(4)
    index = make_index(rng)
    target = np.zeros(shape)[index].shape
    updates = (rng.standard_normal(target) * 10).astype(dtype)
    got = cpu.scatter_add(shape, dtype, index, updates)
    ref = add_at_reference(shape, dtype, index, updates)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    np.testing.assert_array_equal(got, ref)  # same summation order: exact


def test_scatter_add_broadcast_and_cast_updates():
    idx = np.array([0, 2, 0])
    for updates in (1.5, np.ones(4), np.ones((3, 4), np.float32), np.arange(12).reshape(3, 4)):
        np.testing.assert_array_equal(
            cpu.scatter_add((5, 4), np.float64, idx, updates),
            add_at_reference((5, 4), np.float64, idx, updates))


def test_scatter_add_large_rows():
    rng = np.random.default_rng(5)
    idx = rng.integers(-1000, 1000, 20000)
    upd = rng.standard_normal((20000, 16))
    np.testing.assert_array_equal(cpu.scatter_add((1000, 16), np.float64, idx, upd),
                                  add_at_reference((1000, 16), np.float64, idx, upd))


def test_scatter_add_out_of_bounds():
    for shape, index, updates in [((5, 2), np.array([0, 5]), np.ones((2, 2))),  # numba path
                                  ((5, 2), (np.array([-6, 1]),), np.ones((2, 2))),
                                  ((5,), np.array([7]), np.ones(1))]:  # np.add.at path
        with pytest.raises(IndexError, match="out of bounds"):
            cpu.scatter_add(shape, np.float64, index, updates)


# ------------------------------------------------------- reductions, BLAS, where

@pytest.mark.parametrize("axis", [None, (0,), (1,), (0, 2), (0, 1, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions(axis, keepdims):
    x = np.random.default_rng(6).standard_normal((3, 4, 5)).astype(np.float32)
    assert_same(cpu.reduce_sum(x, axis, keepdims), np.sum(x, axis=axis, keepdims=keepdims), ulps=0)
    assert_same(cpu.reduce_max(x, axis, keepdims), np.max(x, axis=axis, keepdims=keepdims), ulps=0)
    assert_same(cpu.reduce_min(x, axis, keepdims), np.min(x, axis=axis, keepdims=keepdims), ulps=0)
    assert cpu.reduce_sum(3.0, None, False) == 3.0
    with pytest.raises(ValueError):
        cpu.reduce_max(np.ones((0, 3)), (0,), False)


def test_matmul_tensordot_einsum_where():
    rng = np.random.default_rng(7)
    a, b, c = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 4, 5)), rng.standard_normal(5)
    np.testing.assert_array_equal(cpu.matmul(a, b), np.matmul(a, b))
    np.testing.assert_array_equal(cpu.tensordot(a, b, ([0, 2], [0, 1])), np.tensordot(a, b, ([0, 2], [0, 1])))
    np.testing.assert_allclose(cpu.einsum("bij,bjk,k->bi", a, b, c), np.einsum("bij,bjk,k->bi", a, b, c))
    big1, big2 = rng.standard_normal((64, 64)), rng.standard_normal((64, 64))
    np.testing.assert_allclose(cpu.einsum("ij,jk->ik", big1, big2), big1 @ big2)
    np.testing.assert_array_equal(cpu.einsum("ii->i", big1), np.diagonal(big1))
    x32 = np.ones(3, np.float32)
    assert_same(cpu.where(np.array([True, False, True]), x32, 0.5), np.where([True, False, True], x32, 0.5))
    with pytest.raises(ValueError):
        cpu.matmul(np.ones((2, 3)), np.ones((2, 3)))


def test_numba_paths_are_taken(monkeypatch):
    calls = []
    for fn in ("_unary_numba", "_binary_numba", "_vjp_numba"):
        original = getattr(cpu, fn)
        monkeypatch.setattr(cpu, fn, lambda *a, _f=original: calls.append(_f.__name__) or _f(*a))
    x = sample(BIG, np.float64)
    g0 = np.asarray(2.0)
    cpu.unary("sin", x)
    cpu.binary("rem", x, 0.5)
    cpu.unary_vjp("tanh", g0, x)
    cpu.unary_vjp("sin", np.broadcast_to(g0, x.shape), x)
    assert calls == ["_unary_numba", "_binary_numba", "_vjp_numba", "_vjp_numba"]
    calls.clear()
    cpu.unary("sin", x[::2])          # strided
    cpu.unary("sin", x[:100])         # small
    cpu.unary("exp", x)               # NumPy's SIMD exp wins
    cpu.binary("add", x, x)           # not a numba kernel
    cpu.unary_vjp("exp", g0, x[:1000])  # (large ones: into a recycled buffer)
    assert calls == []


# ---------------------------------------------------------------- backend dispatch

def test_backend_for_cpu_values():
    assert kernels.backend_for() is cpu
    assert kernels.backend_for(np.ones(3), 1.0, 2, True, None, 1j, np.float32(1), [1, 2], np.ma.ones(2)) is cpu


def test_backend_for_cupy_type_selects_gpu(monkeypatch):
    """Dispatch path with a stand-in CuPy (no GPU needed): a type whose module is
    ``cupy...`` selects ``ftrans.kernels.gpu``."""
    fake_cupy = types.ModuleType("cupy")
    fake_cupy.ndarray = type("ndarray", (), {"__module__": "cupy._core.core"})
    for name in ("negative", "exp", "log", "log1p", "expm1", "sin", "cos", "tan", "tanh", "sinh",
                 "cosh", "arcsin", "arccos", "arctan", "sqrt", "absolute", "sign", "conjugate",
                 "real", "imag", "square", "reciprocal", "add", "subtract", "multiply", "divide",
                 "power", "maximum", "minimum", "arctan2", "logaddexp", "floor_divide", "remainder"):
        setattr(fake_cupy, name, object())
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy)
    monkeypatch.setitem(sys.modules, "cupyx", types.ModuleType("cupyx"))
    monkeypatch.delitem(sys.modules, "ftrans.kernels.gpu", raising=False)
    monkeypatch.setattr(kernels, "_BACKEND_BY_TYPE", {})
    try:
        backend = kernels.backend_for(np.float64(2.0), np.ones(()), 3.0, fake_cupy.ndarray())
        assert backend.__name__ == "ftrans.kernels.gpu"
        # a NumPy array (ndim > 0) with a CuPy one: mixing, a TypeError naming both
        with pytest.raises(TypeError, match=r"numpy\.ndarray.*cupy\.ndarray.*cupy\.asarray"):
            kernels.backend_for(np.ones(2), fake_cupy.ndarray())
        assert backend.xp is fake_cupy
        assert kernels.backend_for(fake_cupy.ndarray()) is backend  # cached per type
        assert kernels.backend_for(np.ones(2)) is cpu
    finally:
        sys.modules.pop("ftrans.kernels.gpu", None)
        vars(kernels).pop("gpu", None)


def test_import_is_lazy():
    code = ("import sys, ftrans.kernels as k; "
            "assert 'numba' not in sys.modules, 'numba imported'; "
            "assert 'cupy' not in sys.modules and 'ftrans.kernels.gpu' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO_ROOT)


# ------------------------------------------------------------------------- GPU

@pytest.fixture
def gpu():
    cp = pytest.importorskip("cupy", reason="CuPy is not installed: GPU kernels not tested")
    try:
        cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # CuPy without a usable GPU
        pytest.skip(f"no usable CUDA device: {e}")
    from ftrans.kernels import gpu as gpu_module
    return gpu_module


def test_gpu_dispatch_and_elementwise(gpu):
    cp = gpu.xp
    x = sample(1000, np.float32)
    xg = cp.asarray(x)
    assert kernels.backend_for(1.0, xg) is gpu
    for name in ("sin", "sqrt", "neg", "reciprocal"):
        np.testing.assert_allclose(cp.asnumpy(gpu.unary(name, xg)), cpu.unary(name, x), rtol=1e-6)
        assert gpu.unary(name, xg).dtype == np.float32
    for name in ("add", "mul", "logaddexp", "floordiv", "rem"):
        np.testing.assert_allclose(cp.asnumpy(gpu.binary(name, xg, xg[::-1])),
                                   cpu.binary(name, x, x[::-1]), rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("name", VJP_NAMES)
def test_gpu_unary_vjp(gpu, name, dtype):
    cp = gpu.xp
    x = (sample(256, np.float64) + (0.3j * sample(256, np.float64, seed=1) if np.dtype(dtype).kind == "c" else 0)).astype(dtype)
    g = sample(256, np.float64, seed=2).astype(dtype)
    ans = cpu.unary(name, x)
    ref = cpu.unary_vjp(name, g, x, ans)
    for gg, gr in ((cp.asarray(g), g), (cp.asarray(np.asarray(1.5, dtype)), np.asarray(1.5, dtype))):
        got = gpu.unary_vjp(name, gg, cp.asarray(x), cp.asarray(ans))
        assert got.dtype == ref.dtype
        rtol = 1e-5 if dtype in (np.float32, np.complex64) else 1e-12
        np.testing.assert_allclose(cp.asnumpy(got), cpu.unary_vjp(name, gr, x, ans), rtol=rtol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.int32])
@pytest.mark.parametrize("case", ["rows repeated+negative", "basic + advanced", "bool mask", "empty index"])
def test_gpu_scatter_add(gpu, case, dtype):
    cp = gpu.xp
    shape, make_index = SCATTER_CASES[case]
    index = make_index(np.random.default_rng(4))
    updates = (np.random.default_rng(5).standard_normal(np.zeros(shape)[index].shape) * 10).astype(dtype)
    as_dev = (lambda i: cp.asarray(i) if isinstance(i, np.ndarray) else i)
    dev_index = tuple(map(as_dev, index)) if isinstance(index, tuple) else as_dev(index)
    got = gpu.scatter_add(shape, dtype, dev_index, cp.asarray(updates))
    np.testing.assert_allclose(cp.asnumpy(got), add_at_reference(shape, dtype, index, updates), rtol=1e-5)


def test_gpu_numpy_scalars_and_0d_arrays_are_scalars(gpu):
    """NumPy 0-d arrays (the cotangent seed of ``grad``, loop counters) combine with CuPy
    arrays as scalars, as NumPy scalars do (CuPy's kernels reject 0-d NumPy arrays)."""
    cp = gpu.xp
    xg = cp.arange(4.0)
    for s in (np.float64(2.0), np.array(2.0)):
        out = gpu.binary("mul", s, xg)
        assert isinstance(out, cp.ndarray)
        np.testing.assert_array_equal(cp.asnumpy(out), 2.0 * np.arange(4.0))
        np.testing.assert_array_equal(cp.asnumpy(gpu.where(xg > 1, s, xg)), [0, 1, 2, 2])
    np.testing.assert_allclose(cp.asnumpy(gpu.unary_vjp("sin", np.array(3.0), xg)),
                               3.0 * np.cos(np.arange(4.0)), rtol=1e-14)


def test_gpu_polyfills_and_sincos(gpu):
    cp = gpu.xp
    x = np.array([1.0, -3.0, 0.0, 1e10, np.inf, np.nan])
    for dt in (np.float64, np.float32):
        got = cp.asnumpy(gpu.unary("spacing", cp.asarray(x.astype(dt))))
        np.testing.assert_array_equal(got, np.spacing(x.astype(dt)))
        assert got.dtype == dt
    s, c = gpu.sincos(cp.asarray(x[:4]))
    np.testing.assert_allclose(cp.asnumpy(s), np.sin(x[:4]), rtol=1e-15)
    np.testing.assert_allclose(cp.asnumpy(c), np.cos(x[:4]), rtol=1e-15)


def test_gpu_special_functions_take_scipys_signatures(gpu):
    """``special_module`` of a CuPy array: Riemann's zeta over the whole real line (CuPy's
    Hurwitz zeta alone is NaN below 1), polygamma with an int order, and a clear
    NotImplementedError for what cupyx.scipy.special lacks."""
    import scipy.special as sc
    cp = gpu.xp
    sg = kernels.special_module(cp.ones(1))
    x = np.array([-7.5, -2.0, -0.5, 0.0, 0.5, 0.9, 1.5, 3.0, 20.0])
    np.testing.assert_allclose(cp.asnumpy(sg.zeta(cp.asarray(x))), sc.zeta(x), rtol=1e-10)
    np.testing.assert_allclose(cp.asnumpy(sg.zeta(cp.asarray(x[6:]), cp.asarray(2.0))),
                               sc.zeta(x[6:], 2.0), rtol=1e-10)
    np.testing.assert_allclose(cp.asnumpy(sg.polygamma(2, cp.asarray(x[6:]))),
                               sc.polygamma(2, x[6:]), rtol=1e-10)
    with pytest.raises(NotImplementedError, match=r"jv.*cupy\.ndarray"):
        sg.jv(1.0, cp.asarray(x))
    with pytest.raises(NotImplementedError, match=r"erf of complex arguments.*cupy\.ndarray"):
        sg.erf(cp.asarray(x + 1j))
