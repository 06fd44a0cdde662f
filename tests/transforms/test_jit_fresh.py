"""``ftrans.jit`` gives what eager ftrans gives, call after call (issue 18, items 9-11, 14).

* every call returns fresh, writable arrays: outputs that are constants of the program
  (``zeros_like``, ``full``, closed-over arrays, views of them) are never one buffer
  shared by the calls;
* closed-over arrays are snapshotted when the function is staged, whatever their memory
  layout;
* integer arithmetic equals eager's (exact powers, Python ints outside the array's range);
* several threads staging one function on new shapes each get their own program.

Each test runs on the numba backend and on the compiler's reference executor
(``FTRANS_COMPILER=reference``); programs are tiny and reuse shapes (numba compile time).
"""
from __future__ import annotations

import threading

import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans.compiler import graph_breaks


@pytest.fixture(params=["numba", "reference"])
def executor(request, monkeypatch):
    if request.param == "reference":
        monkeypatch.setenv("FTRANS_COMPILER", "reference")
    else:
        monkeypatch.delenv("FTRANS_COMPILER", raising=False)
    return request.param


# ---------------------------------------------------------------------------------
# item 9: fresh outputs
# ---------------------------------------------------------------------------------
def test_constant_outputs_are_fresh_on_every_call(executor):
    w = np.arange(3.0)
    m = np.arange(6.0).reshape(2, 3)

    def f(v):
        return (v + 1.0, fnp.zeros_like(v), fnp.zeros(3), fnp.full(3, 2.0),
                fnp.arange(3.0) * 2, w, fnp.transpose(m), fnp.reshape(m, (3, 2)))

    want = [np.arange(3.0) + 1, np.zeros(3), np.zeros(3), np.full(3, 2.0),
            np.arange(3.0) * 2, np.arange(3.0), np.arange(6.0).reshape(2, 3).T,
            np.arange(6.0).reshape(3, 2)]
    jf = ftrans.jit(f)
    first = jf(np.arange(3.0))
    for o in first:
        assert o.flags.writeable
        o[...] += 5  # the caller owns its results
    second = jf(np.arange(3.0))
    for k, (o, e) in enumerate(zip(second, want)):
        np.testing.assert_array_equal(o, e, err_msg=f"output {k}")
        assert not any(np.may_share_memory(o, p) for p in first), f"output {k} reused"
    np.testing.assert_array_equal(w, np.arange(3.0))  # the closed-over arrays unchanged
    np.testing.assert_array_equal(m, np.arange(6.0).reshape(2, 3))
    assert second[5] is not w


def test_constant_output_of_a_single_output_program_is_fresh(executor):
    jf = ftrans.jit(lambda v: fnp.zeros_like(v))
    a = jf(np.ones(3))
    a += 1
    np.testing.assert_array_equal(jf(np.ones(3)), np.zeros(3))


def test_an_argument_returned_unchanged_is_the_argument_as_in_eager(executor):
    # eager ftrans (and NumPy's np.asarray) return the argument itself; jit does too (it
    # is the caller's buffer, not one jit keeps); a computed output is a new array
    x = np.arange(3.0)
    assert (lambda v: v)(x) is x
    jf = ftrans.jit(lambda v: (v, v * 1.0))
    a, b = jf(x)
    assert a is x and not np.may_share_memory(b, x)


def test_constant_outputs_under_grad_are_fresh(executor):
    # the backward program's constant cotangent (zeros for an unused input) is fresh too
    g = ftrans.jit(ftrans.grad(lambda x, y: fnp.sum(x * 2.0), argnums=(0, 1)))
    gx, gy = g(np.ones(3), np.ones(3))
    gx += 1
    gy += 1
    gx2, gy2 = g(np.ones(3), np.ones(3))
    np.testing.assert_array_equal(gx2, np.full(3, 2.0))
    np.testing.assert_array_equal(gy2, np.zeros(3))


# ---------------------------------------------------------------------------------
# item 10: closed-over arrays are snapshotted when staged
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("layout", ["C", "strided", "0-d", "F"])
def test_closed_over_array_is_snapshotted_at_staging(executor, layout):
    base = np.arange(12.0)
    c = {"C": base[:6], "strided": base[::2], "0-d": np.array(3.0),
         "F": np.asfortranarray(base[:6].reshape(2, 3))}[layout]
    before = c.copy()
    jf = ftrans.jit(lambda v: v + c)
    zeros = np.zeros(c.shape)
    np.testing.assert_array_equal(jf(zeros), before)
    c[...] += 100.0  # in place, after the first call
    np.testing.assert_array_equal(jf(zeros), before)  # the program kept its snapshot
    np.testing.assert_array_equal(ftrans.jit(lambda v: v + c)(zeros), c)  # a new staging


def test_snapshot_copies_other_libraries_arrays():
    """A closed-over array of another library is copied too: array-API arrays through
    their namespace, PyTorch tensors (no ``copy``) by ``clone``."""
    from ftrans.core.ir import _snapshot
    torch = pytest.importorskip("torch", reason="PyTorch not installed")
    xp = pytest.importorskip("array_api_strict", reason="array_api_strict not installed")
    for a in (torch.arange(3.0), xp.arange(3.0)):
        c = _snapshot(a)
        assert c is not a and type(c) is type(a)
        a[0] = 100.0
        assert float(c[0]) == 0.0


# ---------------------------------------------------------------------------------
# item 14: threads staging one function on new shapes
# ---------------------------------------------------------------------------------
def test_threads_staging_new_shapes_each_get_their_program(executor):
    traced = []
    lock = threading.Lock()

    def f(x):
        with lock:
            traced.append(x.shape)  # a Python side effect: runs once per staging
        return fnp.sum(x * 2.0) + x.shape[0]

    jf = ftrans.jit(f)
    n = 4
    barrier = threading.Barrier(n)
    results, errors = {}, []

    def worker(k):
        try:
            x = np.ones(k + 1)
            barrier.wait()
            results[k] = [float(jf(x)) for _ in range(3)]
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert sorted(traced) == [(k + 1,) for k in range(n)]  # each shape staged once
    for k in range(n):
        assert results[k] == [3.0 * (k + 1)] * 3
    assert jf._trace_count() == n


# ---------------------------------------------------------------------------------
# item 11: integer arithmetic equals eager (NumPy 2) arithmetic
# ---------------------------------------------------------------------------------
def test_integer_powers_are_exact(executor):
    a = np.array([3 ** 13, -7, 0, 1])
    b = np.array([-128, 127, 5, -3, 100], np.int8)
    c = np.array([2 ** 40 + 3, 7, 0], np.uint64)
    outs = ftrans.jit(lambda a, b, c: (a ** 3, b ** 3, c ** 5, a ** 0))(a, b, c)
    assert outs[0][0] == 4052555153018976267  # 3**39, exact (float64 would give ...256)
    with np.errstate(all="ignore"):
        want = (a ** 3, b ** 3, c ** 5, a ** 0)  # NumPy: exact, wrapping in the dtype
    for o, w in zip(outs, want):
        assert o.dtype == w.dtype
        np.testing.assert_array_equal(o, w)


def test_integer_to_negative_power_raises_as_eager(executor):
    a = np.array([2, 3])
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        ftrans.jit(lambda v: v ** -1)(a)
    f = ftrans.jit(lambda v, w: v ** w)
    np.testing.assert_array_equal(f(np.array([3 ** 13]), np.array([3])),
                                  [4052555153018976267])
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        f(a, np.array([1, -1]))


def test_python_int_literals_outside_the_dtype_range(executor):
    u8 = np.array([0, 200, 255], np.uint8)
    i32 = np.array([1, 2, 3], np.int32)
    cmp = ftrans.jit(lambda u, i: (u < 256, u >= -1, u == -1, i == 2 ** 32 + 1,
                                   i < 2 ** 40, u > 3))
    got = cmp(u8, i32)
    want = (u8 < 256, u8 >= -1, u8 == -1, i32 == 2 ** 32 + 1, i32 < 2 ** 40, u8 > 3)
    for g, w in zip(got, want):  # NumPy 2 compares the exact values
        assert g.dtype == np.bool_
        np.testing.assert_array_equal(g, w)
    with pytest.raises(OverflowError, match="out of bounds for int32"):
        ftrans.jit(lambda i: i + 2 ** 40)(i32)
    with pytest.raises(OverflowError, match="out of bounds for uint8"):
        ftrans.jit(lambda u: u - (-1))(u8)


def test_python_int_arguments_outside_the_dtype_range(executor):
    u8 = np.array([0, 200, 255], np.uint8)
    f = ftrans.jit(lambda u, n: u < n)
    np.testing.assert_array_equal(f(u8, 256), [True, True, True])
    np.testing.assert_array_equal(f(u8, 201), [True, True, False])  # same program
    np.testing.assert_array_equal(f(u8, -1), [False, False, False])
    assert f._trace_count() == 1
    with pytest.raises(OverflowError, match="out of bounds for uint8"):
        ftrans.jit(lambda u, n: u + n)(u8, 256)
    # beyond int64: as eager (NumPy converts it for a float array, refuses for an int one)
    g = ftrans.jit(lambda v, n: v + n)
    np.testing.assert_array_equal(g(np.array([1.0]), 2 ** 70), np.array([1.0]) + 2 ** 70)
    with pytest.raises(OverflowError):
        g(np.array([1]), 2 ** 70)
    np.testing.assert_array_equal(g(np.array([1]), 2), [3])


def test_floor_divide_and_remainder_between_traced_integers(executor):
    a = np.array([7, -7, 7, -7, 5, 0])
    b = np.array([2, 2, -3, -3, 0, 4])
    c = np.array([-128, 127, -5, 9], np.int8)
    d = np.array([-1, -3, 3, 0], np.int8)
    t, u = np.array([True, False, True]), np.array([True, True, False])

    def f(a, b, c, d, t, u):
        return a // b, a % b, divmod(a, b), a % 3, 5 % a, c // d, c % d, t % u, 7 // a

    with np.errstate(all="ignore"):
        got = ftrans.jit(f)(a, b, c, d, t, u)
        want = (a // b, a % b, divmod(a, b), a % 3, 5 % a, c // d, c % d, t % u, 7 // a)
    for k, (g, w) in enumerate(zip(ftrans.tree_util.tree_leaves(got),
                                   ftrans.tree_util.tree_leaves(want))):
        assert g.dtype == w.dtype, k
        np.testing.assert_array_equal(g, w, err_msg=f"output {k}")


@pytest.mark.parametrize("backend", ["cpu", "gpu"])
def test_inexact_integer_equations_graph_break_on_both_backends(backend):
    # the GPU kernels' scalar expressions would wrap the literal / go through double
    # too; graph_breaks needs no GPU (the kernels are generated, not run)
    u8, i64, f64 = np.zeros(3, np.uint8), np.zeros(3, np.int64), np.zeros(3)

    def breaks(f, *args):
        return graph_breaks(ftrans.make_ir(f)(*args), backend)

    assert breaks(lambda u: u < 256, u8) == ["lt"]
    assert breaks(lambda u: u < 255, u8) == []
    assert breaks(lambda u: u + (-1), u8) == ["add"]
    assert breaks(lambda a, b: a ** b, i64, i64) == ["pow"]
    assert breaks(lambda a, b: a ** b, f64, f64) == []


def test_remainder_of_traced_floats_equals_numpy(executor):
    """``%`` of traced floats is the remainder primitive (numpy.remainder's values, the
    sign of the divisor), also in the reflected and divmod forms."""
    x = np.array([5.5, -5.5, 2.25, -0.0])
    np.testing.assert_array_equal(ftrans.jit(lambda v: v % 2.0)(x), np.remainder(x, 2.0))
    np.testing.assert_array_equal(ftrans.jit(lambda v: 7.0 % v)(x[:3]), np.remainder(7.0, x[:3]))
    q, r = ftrans.jit(lambda v: divmod(v, -1.5))(x)
    np.testing.assert_array_equal(q, np.floor_divide(x, -1.5))
    np.testing.assert_array_equal(r, np.remainder(x, -1.5))
