"""ftrans.lax.while_loop and fori_loop: values against Python loops, forward mode against
finite differences, the reverse-mode error, batching (a batched predicate runs until
every example is done), static-bound fori_loop's reverse mode (lowered to scan), and the
errors for mismatched carries."""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import lax
from ftrans.testing import check_grads
from ftrans.core.ir import stage

DTYPES = [np.float64, np.float32]


def _newton_sqrt(a):
    """sqrt(a) by a fixed number of Newton steps, the count in the carry."""
    return lax.while_loop(lambda c: c[0] < 6, lambda c: (c[0] + 1, 0.5 * (c[1] + a / c[1])),
                          (0, a + 1.0))[1]


def test_while_matches_python_loop():
    def py(x):
        i = 0
        while x < 100.0:
            x, i = x * 1.7 + 1.0, i + 1
        return x, i
    for x0 in (0.5, 3.0, 99.0, 150.0):
        out = lax.while_loop(lambda c: c[0] < 100.0, lambda c: (c[0] * 1.7 + 1.0, c[1] + 1),
                             (x0, 0))
        want = py(x0)
        assert out[0] == pytest.approx(want[0], rel=1e-15) and out[1] == want[1]
        assert type(out[0]) is np.ndarray and out[1].dtype == np.int64


def test_while_pytree_carry_and_closures():
    w = np.array([0.5, 0.25])

    def body(c):
        return {"x": c["x"] * w, "n": c["n"] + 1, "hist": (c["hist"][0] + fnp.sum(c["x"]),)}
    out = lax.while_loop(lambda c: c["n"] < 3, body,
                         {"x": np.ones(2), "n": np.int64(0), "hist": (0.0,)})
    np.testing.assert_allclose(out["x"], w ** 3)
    assert out["n"] == 3
    assert out["hist"][0] == pytest.approx(2 + 0.75 + 0.3125)


def test_while_zero_iterations_returns_the_initial_value():
    out = lax.while_loop(lambda x: x > 10.0, lambda x: x * 2.0, np.float32(1.5))
    assert out == np.float32(1.5) and out.dtype == np.float32


@pytest.mark.parametrize("dtype", DTYPES)
def test_while_forward_mode_check_grads(dtype):
    a = np.array([0.5, 2.0, 4.0], dtype)
    out = _newton_sqrt(a)
    assert out.dtype == dtype
    np.testing.assert_allclose(out, np.sqrt(a), rtol=1e-6)
    check_grads(_newton_sqrt, (a,), order=2, modes=("fwd",))
    _, t = ftrans.jvp(_newton_sqrt, (a,), (np.ones(3, dtype),))
    np.testing.assert_allclose(t, 0.5 / np.sqrt(a), rtol=1e-5)
    assert t.dtype == dtype


def test_while_jacfwd_and_closed_over_tangents():
    # the body closes over w: its tangent flows through the loop as a loop invariant
    def f(w, x):
        return lax.while_loop(lambda c: c[0] < 4, lambda c: (c[0] + 1, fnp.sin(w * c[1])),
                              (0, x))[1]
    w, x = 0.9, np.array([0.3, -0.7])
    check_grads(f, (w, x), order=2, modes=("fwd",))
    jw = ftrans.jacfwd(f, argnums=0)(w, x)
    eps = 1e-6
    np.testing.assert_allclose(jw, (f(w + eps, x) - f(w - eps, x)) / (2 * eps), rtol=1e-7)


def test_reverse_mode_through_while_raises_a_clear_error():
    with pytest.raises(ValueError, match=r"(?s)Reverse-mode.*while_loop.*scan.*fori_loop"):
        ftrans.grad(lambda a: fnp.sum(_newton_sqrt(a)))(np.ones(2))
    with pytest.raises(ValueError, match="Python-int lower/upper"):
        ftrans.jacrev(_newton_sqrt)(np.ones(2))


def test_reverse_mode_around_a_while_loop_works():
    # only the integer trip count comes out of the loop: nothing to differentiate in it
    def f(x):
        n = lax.while_loop(lambda i: i * 0.5 < x, lambda i: i + 1, 0)
        return x * n
    assert ftrans.grad(f)(1.2) == 3.0


# ---------------------------------------------------------------------------------
# batching
# ---------------------------------------------------------------------------------
def _collatz(n):
    return lax.while_loop(
        lambda c: c[0] != 1,
        lambda c: (fnp.where(c[0] - 2 * (c[0] // 2) == 0, c[0] // 2, 3 * c[0] + 1), c[1] + 1),
        (n, 0))[1]


def _collatz_py(n):
    k = 0
    while n != 1:
        n, k = (n // 2 if n % 2 == 0 else 3 * n + 1), k + 1
    return k


def test_vmap_with_batched_predicate_runs_until_all_are_done():
    ns = np.array([1, 2, 3, 6, 7, 27])
    got = ftrans.vmap(_collatz)(ns)
    np.testing.assert_array_equal(got, [_collatz_py(int(n)) for n in ns])
    # finished examples are frozen: their carry does not change after they stop
    x0 = np.array([1.0, 5.0, 50.0])
    got = ftrans.vmap(lambda x: lax.while_loop(lambda c: c < 60.0, lambda c: c * 3.0, x))(x0)
    np.testing.assert_array_equal(got, [81.0, 135.0, 150.0])


def test_vmap_while_with_unbatched_predicate_and_batched_carry():
    def f(x):
        return lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0 + 1.0), (0, x))
    xs = np.arange(4.0)
    n, y = ftrans.vmap(f)(xs)
    np.testing.assert_array_equal(n, 3)
    np.testing.assert_array_equal(y, xs * 8 + 7)
    # the batched value enters only through the body's closure (a loop invariant)
    g = lambda s: lax.while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, c[1] * s), (0, 1.0))[1]
    np.testing.assert_array_equal(ftrans.vmap(g)(xs), xs ** 2)
    # ... or only through the predicate's closure
    h = lambda m: lax.while_loop(lambda c: c < m, lambda c: c + 1.0, 0.0)
    np.testing.assert_array_equal(ftrans.vmap(h)(np.array([0.5, 3.0, 2.0])), [1.0, 3.0, 2.0])


def test_vmap_of_jvp_of_while_with_batched_predicate():
    def f(x):  # number of doublings depends on x; derivative 2**n(x)
        return lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x)
    xs = np.array([0.7, 3.0, 9.0, 11.0])
    got = ftrans.vmap(lambda x: ftrans.jvp(f, (x,), (1.0,))[1])(xs)
    want = [2.0 ** int(np.ceil(np.log2(10 / x))) if x < 10 else 1.0 for x in xs]
    np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(ftrans.jacfwd(ftrans.vmap(f))(xs), np.diag(want))


def test_nested_vmap_of_while():
    f = lambda x, s: lax.while_loop(lambda c: c < s, lambda c: c + x, 0.0)
    xs, ss = np.array([0.5, 1.0, 2.0]), np.array([1.0, 4.0])
    got = ftrans.vmap(ftrans.vmap(f, in_axes=(0, None)), in_axes=(None, 0))(xs, ss)
    want = [[np.ceil(s / x) * x for x in xs] for s in ss]
    np.testing.assert_allclose(got, want)


# ---------------------------------------------------------------------------------
# fori_loop
# ---------------------------------------------------------------------------------
def test_fori_loop_values_and_index_dtype():
    out = lax.fori_loop(2, 6, lambda i, x: x * 2.0 + i, 1.0)
    want = 1.0
    for i in range(2, 6):
        want = want * 2.0 + i
    assert out == want
    assert lax.fori_loop(5, 2, lambda i, x: x + 1.0, 7.0) == 7.0  # empty range
    seen = []
    lax.fori_loop(np.int32(0), np.int32(1), lambda i, x: seen.append(i.dtype) or x, 0.0)
    assert seen == [np.int32]


@pytest.mark.parametrize("dtype", DTYPES)
def test_fori_loop_with_static_bounds_is_reverse_differentiable(dtype):
    def f(x, w):
        return lax.fori_loop(0, 4, lambda i, h: fnp.tanh(w * h + x * i.astype(x.dtype)), x)
    x = np.array([0.3, -0.2, 0.6], dtype)
    w = np.array(0.8, dtype)
    check_grads(f, (x, w), order=2, modes=("fwd", "rev"))
    g = ftrans.grad(lambda x: fnp.sum(f(x, w)))(x)
    assert g.dtype == dtype

    def py(x, w):
        h = x
        for i in range(4):
            h = fnp.tanh(w * h + x * np.asarray(i, x.dtype))
        return h
    np.testing.assert_allclose(g, ftrans.grad(lambda x: fnp.sum(py(x, w)))(x),
                               rtol=1e-12 if dtype == np.float64 else 1e-5)


def test_fori_loop_with_traced_bounds_uses_while():
    ir, _ = stage(lambda n, x: lax.fori_loop(0, n, lambda i, c: c * 2.0, x),
                  [np.array(3), np.array(1.0)])
    assert [e.prim.name for e in ir.eqns if e.prim.name in ("while", "scan")] == ["while"]
    ir2, _ = stage(lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2.0, x), [np.array(1.0)])
    assert [e.prim.name for e in ir2.eqns if e.prim.name in ("while", "scan")] == ["scan"]
    # batched upper bounds: a batched predicate
    ns = np.array([0, 1, 4])
    got = ftrans.vmap(lambda n: lax.fori_loop(0, n, lambda i, c: c + i, 0))(ns)
    np.testing.assert_array_equal(got, [sum(range(n)) for n in ns])


# ---------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------
def test_carry_type_mismatch_errors():
    with pytest.raises(TypeError, match=r"has type float64\[\] but float32\[\] was "
                                        r"expected.*identical shapes and dtypes"):
        lax.while_loop(lambda x: x < 1, lambda x: x.astype(np.float64), np.float32(0))
    with pytest.raises(TypeError, match="cannot change shape"):
        lax.while_loop(lambda x: x[0] < 1, lambda x: fnp.concatenate([x, x]), np.zeros(1))
    with pytest.raises(TypeError, match="structure of the loop carry"):
        lax.while_loop(lambda c: c[0] < 1, lambda c: c[0], (0.0, 1.0))
    with pytest.raises(TypeError, match="fori_loop body_fun.*identical shapes and dtypes"):
        lax.fori_loop(0, 3, lambda i, x: x + 0.5, 0)  # int carry, float output
    with pytest.raises(TypeError, match="boolean scalar"):
        lax.while_loop(lambda x: x, lambda x: x, np.ones(2) > 0)
    with pytest.raises(TypeError, match="boolean scalar"):
        lax.while_loop(lambda x: x - 1.0, lambda x: x, 1.0)
    with pytest.raises(TypeError, match="integer scalar"):
        lax.fori_loop(0.0, 3, lambda i, x: x, 1.0)


def test_python_scalar_body_output_adopts_the_carry_dtype():
    out = lax.while_loop(lambda x: x < 1, lambda x: 2.0, np.float32(0))
    assert out.dtype == np.float32 and out == 2
