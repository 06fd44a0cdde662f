"""Large arrays in blocks: ftrans.kernels._split and the numba kernels it runs.

``_split.run`` calls a serial kernel on blocks of ``BLOCK`` elements, claimed by the
calling thread and helper threads.  Sizes around the block boundaries, odd sizes and
broadcast-scalar operands must give exactly one serial call's values and NumPy's (the
formulas tested here are sequences of correctly rounded IEEE operations, so equality is
exact); every block runs once.
"""
import os
import threading

import numpy as np
import pytest

from ftrans.kernels import _split, cpu
from ftrans.kernels._generated import VJP
from ftrans.kernels._numba_build import _BINARY_SCALAR, _kernel
from ftrans.kernels._trig64 import _TRIG_BLOCK

B = _split.BLOCK
SIZES = [1, 7, B - 1, B, B + 1, 2 * B, 3 * B + 17]


def _data(n, dtype, seed):
    return np.random.default_rng(seed).uniform(0.05, 3.0, n).astype(dtype)


def _both(kernel, n, args, sliced, dtype, nout=1):
    """(serial result, split result) of ``kernel`` with fresh NaN-filled outputs
    (the last ``nout`` arguments)."""
    res = []
    for split in (False, True):
        outs = [np.full(n, np.nan, dtype) for _ in range(nout)]
        full = (*args, *outs)
        if split:
            _split.run(kernel, n, full, (*sliced, *([True] * nout)))
        else:
            kernel(*full)
        res.append(outs[0] if nout == 1 else outs)
    return res


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_unary_blocks(n, dtype):
    x = _data(n, dtype, 0)
    for ufunc in (np.sqrt, np.reciprocal):
        serial, split = _both(_kernel("unary", ufunc), n, (x,), (True,), dtype)
        np.testing.assert_array_equal(serial, ufunc(x))
        np.testing.assert_array_equal(split, serial)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_binary_blocks_and_scalar_operands(n, dtype):
    a, b = _data(n, dtype, 1) - 1.5, _data(n, dtype, 2)
    s = np.full(1, 0.7, dtype)
    for name, ufunc in (("floordiv", np.floor_divide), ("rem", np.remainder)):
        k = _kernel("binary", _BINARY_SCALAR[name])
        for (x, xs, xr), (y, ys, yr) in (((a, 1, a), (b, 1, b)), ((a, 1, a), (s, 0, s[0])),
                                         ((s, 0, s[0]), (b, 1, b))):
            serial, split = _both(k, n, (x, xs, y, ys), (xs == 1, False, ys == 1, False), dtype)
            np.testing.assert_array_equal(serial, ufunc(xr, yr))
            np.testing.assert_array_equal(split, serial)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_vjp_blocks(n, dtype):
    x, g = _data(n, dtype, 3) / 4, _data(n, dtype, 4)
    g0 = np.full(1, 1.25, dtype)
    for name in ("tanh", "arctan", "log1p", "sqrt"):
        y = cpu._UNARY[name](x)
        for gg, gstep, gref in ((g, 1, g), (g0, 0, g0[0])):
            serial, split = _both(_kernel("vjp", VJP[name]), n, (gg, gstep, x, y),
                                  (gstep == 1, False, True, True), dtype)
            np.testing.assert_array_equal(serial, VJP[name](gref, x, y, dtype(1)))
            np.testing.assert_array_equal(split, serial)


@pytest.mark.parametrize("n", [B - 1, 2 * B + _TRIG_BLOCK + 3])
def test_trig_blocks(n):
    x = _data(n, np.float64, 6) * 40 - 60  # some beyond the polynomial's range: libm
    x[::97] = np.nan
    g = _data(n, np.float64, 7)
    (s1, c1), (s2, c2) = _both(_kernel("trig", "sincos"), n, (x,), (True,), np.float64, 2)
    np.testing.assert_array_equal(s2, s1)
    np.testing.assert_array_equal(c2, c1)
    for name in ("sin", "dcos"):
        serial, split = _both(_kernel("trig", name), n, (g, 1, x), (True, False, True),
                              np.float64)
        np.testing.assert_array_equal(split, serial)


def test_every_block_runs_once_on_several_threads():
    n = 40 * B + 3
    seen, threads, lock = [], set(), threading.Lock()

    def kernel(lo_marker, out):
        with lock:
            seen.append(int(lo_marker[0]))
            threads.add(threading.get_ident())
        out[:] = lo_marker + 1

    marker = np.arange(n, dtype=np.float64)
    out = np.zeros(n)
    _split.run(kernel, n, (marker, out), (True, True))
    assert sorted(seen) == list(range(0, n, B))
    np.testing.assert_array_equal(out, marker + 1)
    assert len(threads) <= 1 + max(_split.helpers(), 0)


def test_kernel_error_is_raised_in_the_caller():
    def kernel(x):
        if x[0] >= 3 * B:
            raise ZeroDivisionError("block")
    with pytest.raises(ZeroDivisionError, match="block"):
        _split.run(kernel, 10 * B, (np.arange(10 * B),), (True,))
    _split.run(lambda x: None, 10 * B, (np.arange(10 * B),), (True,))  # still works


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_child_starts_its_own_helpers():
    x = _data(4 * B, np.float64, 8)
    ref = cpu.binary("rem", x, 0.3)  # (helpers started in the parent)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        ok = False
        try:
            ok = np.array_equal(cpu.binary("rem", x, 0.3), ref)
        finally:
            os.write(w, b"1" if ok else b"0")
            os._exit(0)
    os.close(w)
    got = os.read(r, 1)
    os.waitpid(pid, 0)
    assert got == b"1"


def test_public_kernels_in_blocks_and_non_contiguous():
    # through cpu.*, above the threads' threshold: contiguous operands take the split
    # numba loops, strided and F-ordered ones NumPy's
    n = cpu.NUMBA_PARALLEL_MIN_SIZE + B // 2 + 5
    assert n >= max(cpu.NUMBA_UNARY[("sqrt", np.dtype(np.float64))],
                    cpu.NUMBA_BINARY[("rem", np.dtype(np.float64))],
                    cpu.NUMBA_VJP[("tanh", np.dtype(np.float64))])
    x = _data(2 * n, np.float64, 5)
    for v in (x[:n], x[::2], np.asfortranarray(x[: 2 * (n // 2)].reshape(2, -1))):
        np.testing.assert_array_equal(cpu.unary("sqrt", v), np.sqrt(v))
        np.testing.assert_array_equal(cpu.binary("rem", v, 0.3), np.remainder(v, 0.3))
        np.testing.assert_array_equal(cpu.unary_vjp("tanh", 2.0, v), 2.0 * (1 - np.tanh(v) ** 2))


def test_concurrent_callers_share_the_helpers():
    n = cpu.NUMBA_PARALLEL_MIN_SIZE + 3
    xs = [_data(n, np.float64, 10 + i) for i in range(4)]
    refs = [cpu.binary("rem", x, 0.3) for x in xs]
    got = [None] * 4

    def call(i):
        for _ in range(3):
            got[i] = cpu.binary("rem", xs[i], 0.3)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for g, r in zip(got, refs):
        np.testing.assert_array_equal(g, r)


def _count_split(monkeypatch):
    calls = []
    run = _split.run

    def counting(kernel, n, args, sliced):
        calls.append(n)
        return run(kernel, n, args, sliced)
    monkeypatch.setattr(_split, "run", counting)
    return calls


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128])
def test_numpy_ufuncs_in_blocks_equal_one_call(dtype, monkeypatch):
    """Large NumPy ufunc calls (unary and binary, pooled output) run in blocks shared
    with the helpers: each element equals one whole call's (NumPy's SIMD loops
    included), with C-contiguous, broadcast-scalar (zero strides), 0-d and Python-scalar
    operands, and an operand whose size-1 last axis has a zero stride."""
    calls = _count_split(monkeypatch)
    n = 2 * cpu.NUMBA_PARALLEL_MIN_SIZE + 3 * B // 2 + 7          # an odd last block
    x = (_data(n, np.float64, 20) - 1.0).astype(dtype)
    y = _data(n, np.float64, 21).astype(dtype)
    def check(got, want, msg):
        np.testing.assert_array_equal(got, want, err_msg=msg)
        assert calls == [n], f"{msg}: not run in blocks"      # (the test can fail)
        calls.clear()

    for name, ufunc in (("exp", np.exp), ("log", np.log), ("tanh", np.tanh), ("neg", np.negative),
                        ("expm1", np.expm1), ("square", np.square)):
        if dtype == np.complex128 and name == "expm1":
            continue
        with np.errstate(all="ignore"):
            check(cpu.unary(name, x), ufunc(x), name)
    scalar = np.broadcast_to(np.asarray(0.75, dtype), (n,))
    col = y[:, None][:, :1]                               # (n, 1), strides (itemsize, 0)
    for name, ufunc in (("mul", np.multiply), ("add", np.add), ("sub", np.subtract),
                        ("div", np.true_divide)):
        for a, b in ((x, y), (x, scalar), (scalar, y), (x, 2.5), (y, np.asarray(1.5, dtype))):
            check(cpu.binary(name, a, b), ufunc(a, b), name)
        check(cpu.binary(name, col, x[:, None]), ufunc(col, x[:, None]), name)


def test_numpy_ufunc_blocks_keep_error_modes(monkeypatch):
    """A "raise" error mode keeps the call whole (it raises as NumPy does); under the
    default mode a division by zero in any block gives NumPy's inf."""
    calls = _count_split(monkeypatch)
    n = cpu.NUMBA_PARALLEL_MIN_SIZE + 5
    x = np.ones(n)
    z = np.ones(n)
    z[-1] = 0.0                                       # in the last block
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError):
            cpu.binary("div", x, z)
    assert calls == []
    with np.errstate(divide="ignore"):
        r = cpu.binary("div", x, z)
    assert calls == [n] and np.isinf(r[-1]) and np.all(r[:-1] == 1.0)
