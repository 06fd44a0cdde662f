"""ftrans.kernels._buffers (recycled large outputs) and the CPU kernels that use it."""
import gc

import numpy as np
import pytest

from ftrans.kernels import _buffers, cpu

N = _buffers.POOL_MIN_BYTES // 8 + 3  # float64 elements: just above the pool's threshold


@pytest.fixture(autouse=True)
def empty_pool():
    gc.collect()
    _buffers.clear()
    yield
    _buffers.clear()


def test_empty_is_a_plain_c_array():
    a = _buffers.empty((N,), np.float64)
    assert (a.shape, a.dtype) == ((N,), np.float64)
    assert a.flags.c_contiguous and a.flags.writeable and a.flags.aligned
    assert a.ctypes.data % 64 == 0
    b = _buffers.empty((3, N // 3 + 1), np.complex64)
    assert (b.shape, b.dtype, b.flags.c_contiguous) == ((3, N // 3 + 1), np.complex64, True)
    small = _buffers.empty((5, 2), np.float32)  # below the threshold: np.empty
    assert small.base is None and small.shape == (5, 2)


def test_memory_is_reused_only_after_the_last_reference_dies():
    a = _buffers.empty((N,), np.float64)
    addr = a.ctypes.data
    view = a[10:]
    del a
    b = _buffers.empty((N,), np.float64)  # the view keeps the first buffer in use
    assert not np.shares_memory(b, view)
    assert _buffers.cached_bytes() == 0
    del view
    assert _buffers.cached_bytes() >= N * 8
    c = _buffers.empty((N,), np.float64)
    assert c.ctypes.data == addr and _buffers.cached_bytes() == 0
    assert not np.shares_memory(b, c)
    # another size is not served from a buffer of this one
    del c
    d = _buffers.empty((N + 1,), np.float64)
    assert d.ctypes.data != addr


def test_pool_bound_and_clear(monkeypatch):
    monkeypatch.setattr(_buffers, "POOL_MAX_BYTES", N * 8 + 100)  # room for one buffer
    a, b = _buffers.empty((N,), np.float64), _buffers.empty((N,), np.float64)
    del a, b
    assert N * 8 <= _buffers.cached_bytes() <= N * 8 + 100
    _buffers.clear()
    assert _buffers.cached_bytes() == 0


def _same_bits(got, ref):
    assert type(got) is type(ref) and got.dtype == ref.dtype and got.shape == ref.shape
    assert got.flags.c_contiguous == ref.flags.c_contiguous
    np.testing.assert_array_equal(got.view(np.uint8), ref.view(np.uint8))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_pooled_numpy_paths_equal_numpy(dtype):
    n = _buffers.POOL_MIN_BYTES // np.dtype(dtype).itemsize + 5
    rng = np.random.default_rng(0)
    x = rng.uniform(-3, 3, n).astype(dtype)
    y = rng.uniform(-3, 3, n).astype(dtype)
    x[:4] = [np.nan, np.inf, -0.0, 0.0]
    with np.errstate(all="ignore"):
        for name in ("exp", "neg", "tanh", "square"):
            got = cpu.unary(name, x)
            assert isinstance(got.base, cpu._buffers._Lease)  # the pooled path ran
            _same_bits(got, cpu._UNARY[name](x))
        g = np.broadcast_to(np.asarray(1.5, dtype), x.shape)  # the backward of a sum
        for name in ("add", "sub", "mul", "div", "maximum"):
            fn = cpu._BINARY[name]
            for a, b in ((x, y), (x, g), (g, y), (x, 0.5), (2, y), (x, np.asarray(0.5, dtype))):
                got = cpu.binary(name, a, b)
                assert isinstance(got.base, cpu._buffers._Lease)
                _same_bits(got, fn(a, b))
            x2, y2 = x[:n // 5 * 5].reshape(5, -1), y[:n // 5 * 5].reshape(5, -1)
            _same_bits(cpu.binary(name, x2, y2), fn(x2, y2))


def test_other_layouts_and_dtypes_keep_numpy_allocation():
    x = np.random.default_rng(1).uniform(-1, 1, 2 * N)
    f = np.asfortranarray(x.reshape(2, -1))
    for got, ref in ((cpu.unary("exp", f), np.exp(f)),                    # F order stays F
                     (cpu.binary("add", f, f), np.add(f, f)),
                     (cpu.unary("exp", x[::2]), np.exp(x[::2])),           # strided
                     (cpu.binary("mul", x.reshape(2, -1), x[:N]), x.reshape(2, -1) * x[:N]),
                     (cpu.binary("add", np.arange(2 * N), 1), np.arange(2 * N) + 1),  # int
                     (cpu.unary("sign", x), np.sign(x))):                  # NumPy's sign
        assert got.dtype == ref.dtype and got.strides == ref.strides
        np.testing.assert_array_equal(got, ref)
    assert not isinstance(cpu.unary("exp", f).base, cpu._buffers._Lease)
    with pytest.raises(ValueError):
        cpu.binary("add", x, x[:-1])
    with pytest.raises(TypeError):
        cpu.binary("rem", x.astype(complex), x.astype(complex))
