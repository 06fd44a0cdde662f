"""The chunked numba loops of ftrans.kernels._numba_build, serial and parallel.

Each loop runs ``prange`` over blocks of ``CHUNK`` elements: sizes around the block
boundaries, odd sizes and broadcast-scalar operands must give exactly NumPy's values
(the formulas tested here are sequences of correctly rounded IEEE operations, so
equality is exact), and the parallel loop exactly the serial one's.
"""
import numpy as np
import pytest

from ftrans.kernels import cpu
from ftrans.kernels._generated import VJP
from ftrans.kernels._numba_build import _BINARY_SCALAR, CHUNK, _kernel

SIZES = [1, 7, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK, 3 * CHUNK + 17]


def _data(n, dtype, seed):
    return np.random.default_rng(seed).uniform(0.05, 3.0, n).astype(dtype)


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_unary_chunks(n, dtype, parallel):
    x = _data(n, dtype, 0)
    for ufunc in (np.sqrt, np.reciprocal):
        out = np.full(n, np.nan, dtype)
        _kernel("unary", (ufunc, parallel))(x, out)
        np.testing.assert_array_equal(out, ufunc(x))


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_binary_chunks_and_scalar_operands(n, dtype, parallel):
    a, b = _data(n, dtype, 1) - 1.5, _data(n, dtype, 2)
    s = np.full(1, 0.7, dtype)
    for name, ufunc in (("floordiv", np.floor_divide), ("rem", np.remainder)):
        k = _kernel("binary", (_BINARY_SCALAR[name], parallel))
        for (x, xs, xr), (y, ys, yr) in (((a, 1, a), (b, 1, b)), ((a, 1, a), (s, 0, s[0])),
                                         ((s, 0, s[0]), (b, 1, b))):
            out = np.full(n, np.nan, dtype)
            k(x, xs, y, ys, out)
            np.testing.assert_array_equal(out, ufunc(xr, yr))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_vjp_chunks_parallel_equals_serial_and_numpy(n, dtype):
    x, g = _data(n, dtype, 3) / 4, _data(n, dtype, 4)
    g0 = np.full(1, 1.25, dtype)
    for name in ("tanh", "arctan", "log1p", "sqrt"):
        y = cpu._UNARY[name](x)
        for gg, gstep, gref in ((g, 1, g), (g0, 0, g0[0])):
            outs = []
            for parallel in (False, True):
                out = np.full(n, np.nan, dtype)
                _kernel("vjp", (VJP[name], parallel))(gg, gstep, x, y, out)
                outs.append(out)
            np.testing.assert_array_equal(outs[0], outs[1])
            np.testing.assert_array_equal(outs[0], VJP[name](gref, x, y, dtype(1)))


def test_public_kernels_at_chunk_boundaries_and_non_contiguous():
    # through cpu.*, above the numba tables' thresholds: contiguous operands take the
    # chunked loops, strided and F-ordered ones NumPy's
    n = 5 * CHUNK + 5
    assert n >= max(cpu.NUMBA_UNARY[("sqrt", np.dtype(np.float64))],
                    cpu.NUMBA_BINARY[("rem", np.dtype(np.float64))],
                    cpu.NUMBA_VJP[("tanh", np.dtype(np.float64))])
    x = _data(2 * n, np.float64, 5)
    for v in (x[:n], x[::2], np.asfortranarray(x[: 2 * (n // 2)].reshape(2, -1))):
        np.testing.assert_array_equal(cpu.unary("sqrt", v), np.sqrt(v))
        np.testing.assert_array_equal(cpu.binary("rem", v, 0.3), np.remainder(v, 0.3))
        np.testing.assert_array_equal(cpu.unary_vjp("tanh", 2.0, v), 2.0 * (1 - np.tanh(v) ** 2))
