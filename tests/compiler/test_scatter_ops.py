"""The numba lowering of ``gather`` with index arrays and of ``scatter_add``
(ftrans.compiler._numba_scatter): compiled with no graph break, equal to eager (NumPy)
under ``jit(f)`` and ``jit(grad(f))``; an out-of-bounds index raises NumPy's IndexError.
Few programs with many outputs (numba compile time)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import ftrans
from _jit_checks import ci_sample, compiled, no_break
from ftrans.compiler import compile_ir, graph_breaks
from ftrans import lax
from ftrans.primitives.indexing import gather, gather_p, scatter_add, _Slot
from ftrans.testing import check_grads

LOWERED = {"gather", "scatter_add"}


def _no_break(f, *args):
    no_break(LOWERED, f, *args)


_compiled = compiled


def _equal(got, want, rtol=0.0):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
        if rtol == 0:
            np.testing.assert_array_equal(g, w)
        else:
            np.testing.assert_allclose(g, w, rtol=rtol, atol=0)


# every index arrays' position NumPy distinguishes, in one program --------------------------
def _gathers(x, i, j, k, e):
    """x: (3, 4, 5); i: (4,) with negative entries; j: (2, 1); k: 0-d; e: (0,)."""
    return (x[i % 3 - 3],          # x[idx] (negative entries wrap)
            x[:, i],               # x[:, idx]
            x[j, :, i],            # non-adjacent arrays: the broadcast axes go first
            x[..., i],             # Ellipsis
            x[j],                  # 2-d index
            x[1, i, 2:4],          # an int and an array adjacent, after it a slice
            x[0, ::-2, i[:2]],     # an int and an array not adjacent: B in front
            x[k],                  # 0-d index array
            x[0, k, k],            # a scalar result
            x[:, None, j, i],      # None before adjacent arrays
            x[:, j, None, i],      # None between the arrays: not adjacent
            x[e],                  # 0-size index
            x[j, 1:1, i])          # 0-size slice with the arrays


@pytest.mark.parametrize("dt", ci_sample([np.float32, np.complex128, np.int64], 1))
def test_gather_index_arrays_compiled_equal_numpy(dt):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((3, 4, 5)) * 10).astype(dt)
    if dt == np.complex128:
        x = x + 1j * rng.standard_normal((3, 4, 5))
    i = np.array([2, -1, 0, -4], np.int32)
    j = np.array([[1], [2]], np.int64)
    k = np.array(2)
    e = np.zeros(0, np.int64)
    args = (x, i, j, k, e)
    _no_break(_gathers, *args)
    _equal(_compiled(_gathers, *args), _gathers(*args))
    # the same index values straight from NumPy (not through ftrans at all)
    assert np.array_equal(_compiled(_gathers, *args)[2], x[j, :, i])
    assert _compiled(_gathers, *args)[6].shape == x[0, ::-2, i[:2]].shape == (2, 2)
    # another shape of the same ranks and dtypes: the text is reused, values are new ones
    x2 = (rng.standard_normal((6, 7, 8)) * 10).astype(dt)
    i2 = np.array([6, -7, 3, 0, 1, -1], np.int32)
    j2 = np.array([[5], [0], [-6]], np.int64)
    _equal(_compiled(_gathers, x2, i2, j2, k, e), _gathers(x2, i2, j2, k, e))


def _scatters(u, v, w, i, j):
    """u: (4, 5), v: (2, 3, 2), w: (5,), i: (4,) with repeats, j: (2, 1)."""
    return (scatter_add(u, i, (3, 5)),                   # repeated rows accumulate
            scatter_add(v, (j, slice(None), i[:3]), (3, 2, 4)),  # non-adjacent arrays
            scatter_add(w[:4], (slice(None), i), (2, 3)),  # updates broadcast over the region
            scatter_add(u[0, 0], (i, i), (3, 3)),         # a scalar update, repeated
            scatter_add(w[1:3], (0, slice(None)), (3, 2)),  # a basic index
            scatter_add(u[:0], i[:0], (3, 5)),               # 0-size index
            scatter_add(u[:1], i[:3], (3, 5)),               # a broadcast row, repeated
            scatter_add(u[:1], (None, slice(1, None)), (3, 5)))  # basic, broadcast


@pytest.mark.parametrize("dt", ci_sample([np.float64, np.complex64, np.int32], 1))
def test_scatter_add_compiled_equal_add_at(dt):
    rng = np.random.default_rng(1)
    u, v, w = (rng.standard_normal(s).astype(dt) * (3 if dt == np.int32 else 1)
               for s in ((4, 5), (2, 3, 2), (5,)))
    if dt == np.int32:
        u, v, w = (rng.integers(-9, 9, s).astype(dt) for s in ((4, 5), (2, 3, 2), (5,)))
    i = np.array([0, -3, 2, 0])
    j = np.array([[1], [-1]])
    args = (u, v, w, i, j)
    _no_break(_scatters, *args)
    want = []
    for shape, idx, upd in (((3, 5), (i,), u), ((3, 2, 4), (j, slice(None), i[:3]), v),
                            ((2, 3), (slice(None), i), w[:4]), ((3, 3), (i, i), u[0, 0]),
                            ((3, 2), (0, slice(None)), w[1:3]), ((3, 5), (i[:0],), u[:0]),
                            ((3, 5), (i[:3],), u[:1]), ((3, 5), (None, slice(1, None)), u[:1])):
        z = np.zeros(shape, dt)
        np.add.at(z, idx, upd)   # NumPy's own: the expected values
        want.append(z)
    got = _compiled(_scatters, *args)
    _equal(got, want, rtol=0 if dt == np.int32 else 1e-6)
    _equal(got, _scatters(*args), rtol=0 if dt == np.int32 else 1e-6)


def test_grad_repeated_indices_compiled_equal_eager():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 4, 5))
    i = np.array([1, 1, -1, 0, 1])   # repeats: their cotangents add up
    j = np.array([[2], [2]])

    def loss(x):
        return ((x[i] ** 2).sum() + (np.float64(3.0) * x[j, :, i]).sum()
                + (x[:, i, 1:] * x[0, 1:2, 1:]).sum())
    g = ftrans.grad(loss)
    _no_break(g, x)
    want = g(x)
    got = _compiled(g, x)
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-14)
    # by hand (NumPy's add.at): each term's cotangent sent to the entries it read
    hand = np.zeros_like(x)
    np.add.at(hand, (i,), 2 * x[i])
    np.add.at(hand, (j, slice(None), i), np.full((2, 5, 4), 3.0))
    np.add.at(hand, (slice(None), i, slice(1, None)),
              np.broadcast_to(x[0, 1:2, 1:], (3, 5, 4)))
    hand[0, 1:2, 1:] += x[:, i, 1:].sum(axis=(0, 1))
    np.testing.assert_allclose(got, hand, rtol=1e-13, atol=1e-13)


def test_large_arrays_compiled_equal_add_at():
    # 2 MiB float32 arrays (the runtime's allocator asks for huge pages from 4 MiB on)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1040, 512)).astype(np.float32)
    i = rng.integers(-1040, 1040, 1100)
    g = ftrans.grad(lambda x: (x[i] ** 2).sum())
    _no_break(g, x)
    got = _compiled(g, x)
    hand = np.zeros_like(x)
    np.add.at(hand, i, 2 * x[i])
    np.testing.assert_allclose(got, hand, rtol=1e-6, atol=0)
    np.testing.assert_array_equal(_compiled(lambda x: x[i], x), x[i])


def test_check_grads_gather_through_jit():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 3))
    i = np.array([3, -1, 0, 3, 2])
    f = ftrans.jit(lambda x: np.float64(1.5) * x[i] * x[i, ::-1])
    check_grads(f, (x,), order=2, modes=("fwd", "rev"))
    _no_break(lambda x: ftrans.grad(lambda x: (x[i] * x[i, ::-1]).sum())(x), x)


def test_out_of_bounds_raises_numpys_index_error():
    x = np.arange(12.0).reshape(3, 4)
    f = ftrans.jit(lambda x, i: x[:, i] * 2.0)
    g = ftrans.jit(lambda u, i: scatter_add(u, i, (3,)))
    ok = np.array([1, -4, 3])
    np.testing.assert_array_equal(f(x, ok), x[:, ok] * 2.0)   # compiled first
    for bad in (np.array([1, 4]), np.array([-5, 0])):
        with pytest.raises(IndexError) as got:
            f(x, bad)
        with pytest.raises(IndexError) as want:
            x[:, bad]
        assert str(got.value) == str(want.value)
        with pytest.raises(IndexError) as got:
            g(np.ones(2), bad)
        with pytest.raises(IndexError) as want:
            scatter_add(np.ones(2), bad, (3,))
        assert str(got.value) == str(want.value)
    # the program stays compiled: a later call in bounds runs the numba segment
    run = compile_ir(ftrans.make_ir(lambda x, i: x[:, i] * 2.0)(x, ok))
    assert run.graph_breaks == []
    np.testing.assert_array_equal(run(x, ok)[0], x[:, ok] * 2.0)
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 1 with size 4"):
        run(x, np.array([4]))
    np.testing.assert_array_equal(run(x, ok[::-1])[0], x[:, ok[::-1]] * 2.0)
    # a Python int argument is a traced (weakly typed) 0-d index array
    r = ftrans.jit(lambda x, k: x[k, 1:])
    _no_break(lambda x, k: x[k, 1:], x, 1)
    np.testing.assert_array_equal(r(x, -1), x[-1, 1:])
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        r(x, 3)
    # NumPy checks no entry of an empty broadcast: nor does the compiled code
    h = ftrans.jit(lambda x, e, i: x[e, i])
    e = np.zeros(0, np.int64)
    assert h(x, e, np.array([100])).shape == x[e, np.array([100])].shape == (0,)


def test_inside_scan_and_its_reverse():
    x = np.arange(12.0).reshape(3, 4)
    idx = np.array([[2, 0], [1, 1], [-3, 2]])

    def f(x, idx):
        def body(c, i):
            return c + gather(x, i).sum(0), c[i[0]]
        return lax.scan(body, np.zeros(4), idx)
    g = ftrans.grad(lambda x: f(x, idx)[0].sum() + (f(x, idx)[1] ** 2).sum())
    _no_break(f, x, idx)
    _no_break(g, x)
    _equal(_compiled(f, x, idx), f(x, idx))
    np.testing.assert_allclose(_compiled(g, x), g(x), rtol=1e-15)
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        ftrans.jit(f)(x, idx + 1)   # raised in the compiled loop: the impls rerun


def test_vmap_batched_index_arrays():
    # the batching rules put an arange index array first and transpose: the same lowering
    rng = np.random.default_rng(5)
    x = rng.standard_normal((5, 3, 4))
    i = rng.integers(-3, 3, (5, 2))
    j = np.array([1, 0])
    loss = ftrans.grad(lambda x, i: (x[2, i] ** 2).sum() + x[:, i].sum() + (x[i, j] ** 3).sum())

    def f(x, i):
        return (ftrans.vmap(lambda x, i: x[1:, i] * x[0, j])(x, i),
                ftrans.vmap(lambda x: x[:, i[0]])(x), ftrans.vmap(loss)(x, i))
    _no_break(f, x, i)
    _equal(_compiled(f, x, i), f(x, i), rtol=1e-15)


def test_first_call_out_of_bounds_then_compiled():
    x = np.arange(12.0).reshape(3, 4)
    f = ftrans.jit(lambda x, i: x[i] + 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no "could not compile" fallback
        with pytest.raises(IndexError, match="index 7 is out of bounds for axis 0"):
            f(x, np.array([0, 7]))
        np.testing.assert_array_equal(f(x, np.array([2, -1])), x[[2, -1]] + 1.0)


def test_index_dtypes_and_booleans():
    x = np.arange(12.0).reshape(3, 4)
    u8, u64 = np.array([3, 0, 3], np.uint8), np.array([1], np.uint64)
    _no_break(lambda x: x[:, u8], x)
    np.testing.assert_array_equal(_compiled(lambda x: x[:, u8], x), x[:, u8])
    assert "gather" in graph_breaks(ftrans.make_ir(lambda x: x[u64])(x))  # uint64: the impl
    np.testing.assert_array_equal(ftrans.jit(lambda x: x[u64])(x), x[u64])
    mask = np.array([True, False, True, True])
    # a concrete mask reaches the primitive as integer arrays: compiled
    _no_break(lambda x: x[:, mask], x)
    np.testing.assert_array_equal(_compiled(lambda x: x[:, mask], x), x[:, mask])
    # a 0-d boolean index array bound directly: the impl (graph break)
    f = lambda x: gather_p.bind(x, np.array(True), template=(_Slot(0),))  # noqa: E731
    assert "gather" in graph_breaks(ftrans.make_ir(f)(x))
    np.testing.assert_array_equal(ftrans.jit(f)(x), x[np.array(True)])
