"""lax.dynamic_slice / dynamic_update_slice (and the *_in_dim forms): values against a
NumPy reference with XLA's clamping, derivatives (check_grads order 2, fwd and rev, in
float64, float32 and complex128), JVP/VJP agreement, jit == eager, vmap against a
Python loop (batched operand and/or starts), errors, and JAX."""
import numpy as np
import pytest

import ftrans
from ftrans import lax
from ftrans.testing import check_grads

rng = np.random.default_rng(0)
X = rng.normal(size=(4, 5))
U = rng.normal(size=(2, 3))


def ref_starts(starts, shape, sizes):
    """XLA's rule, written out: negative -> from the end, then clamp into range."""
    out = []
    for s, n, k in zip(starts, shape, sizes):
        s = int(s)
        s = s + n if s < 0 else s
        out.append(min(max(s, 0), n - k))
    return out


def ref_slice(x, starts, sizes):
    s = ref_starts(starts, x.shape, sizes)
    return x[tuple(slice(a, a + k) for a, k in zip(s, sizes))]


def ref_update(x, u, starts):
    s = ref_starts(starts, x.shape, u.shape)
    out = np.array(x, copy=True)
    out[tuple(slice(a, a + k) for a, k in zip(s, u.shape))] = u
    return out


STARTS = [(0, 0), (1, 2), (3, 4), (-1, -2), (-9, 7), (2, -5)]


@pytest.mark.parametrize("starts", STARTS)
def test_values(starts):
    np.testing.assert_array_equal(lax.dynamic_slice(X, starts, (2, 3)), ref_slice(X, starts, (2, 3)))
    np.testing.assert_array_equal(lax.dynamic_update_slice(X, U, starts), ref_update(X, U, starts))
    # starts given as 0-d integer arrays or as one 1-d array
    arr = [np.int32(s) for s in starts]
    np.testing.assert_array_equal(lax.dynamic_slice(X, arr, (2, 3)), ref_slice(X, starts, (2, 3)))
    np.testing.assert_array_equal(lax.dynamic_update_slice(X, U, np.array(starts)),
                                  ref_update(X, U, starts))


def test_no_negative_normalization():
    np.testing.assert_array_equal(
        lax.dynamic_slice(X, (-1, 1), (2, 2), allow_negative_indices=False), X[0:2, 1:3])
    np.testing.assert_array_equal(
        lax.dynamic_update_slice(X, U, (-1, -1), allow_negative_indices=(True, False)),
        ref_update(X, U, (3, 0)))


def test_operand_not_modified_and_zero_sizes():
    x = X.copy()
    lax.dynamic_update_slice(x, U, (0, 0))
    np.testing.assert_array_equal(x, X)
    assert lax.dynamic_slice(X, (1, 1), (0, 2)).shape == (0, 2)


def test_in_dim_forms():
    np.testing.assert_array_equal(lax.dynamic_slice_in_dim(X, 3, 2, axis=1), X[:, 3:5])
    np.testing.assert_array_equal(lax.dynamic_slice_in_dim(X, 9, 2), X[2:4])
    np.testing.assert_array_equal(lax.dynamic_index_in_dim(X, -1, 1), X[:, 4:5])
    np.testing.assert_array_equal(lax.dynamic_index_in_dim(X, 2, 0, keepdims=False), X[2])
    np.testing.assert_array_equal(lax.dynamic_update_slice_in_dim(X, np.ones((4, 2)), 1, axis=1),
                                  ref_update(X, np.ones((4, 2)), (0, 1)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
@pytest.mark.parametrize("starts", [(1, 2), (-1, 3)])
def test_check_grads(dtype, starts):
    x = X.astype(dtype)
    u = U.astype(dtype)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.normal(size=X.shape)
        u = u + 1j * rng.normal(size=U.shape)
    check_grads(lambda a: lax.dynamic_slice(a, starts, (2, 3)) ** 2, (x,), order=2,
                modes=("fwd", "rev"))
    check_grads(lambda a, b: lax.dynamic_update_slice(a, b, starts) ** 2, (x, u), order=2,
                modes=("fwd", "rev"))


def test_grad_values():
    g = ftrans.grad(lambda a: lax.dynamic_slice(a, (1, 3), (2, 3)).sum())(X)
    want = np.zeros_like(X)
    want[1:3, 2:5] = 1.0                                  # start 3 clamped to 2
    np.testing.assert_array_equal(g, want)
    gx, gu = ftrans.grad(lambda a, b: (lax.dynamic_update_slice(a, b, (3, 0)) * X).sum(),
                         argnums=(0, 1))(X, U)
    mask = np.ones_like(X)
    mask[2:4, 0:3] = 0.0
    np.testing.assert_array_equal(gx, X * mask)
    np.testing.assert_array_equal(gu, X[2:4, 0:3])


def _agree(f, args, k):
    v = rng.normal(size=np.shape(args[k]))
    tangents = [np.zeros_like(a) for a in args]
    tangents[k] = v
    _, jv = ftrans.jvp(f, tuple(args), tuple(tangents))
    out, pull = ftrans.vjp(f, *args)
    u = rng.normal(size=np.shape(out))
    g = pull(u)[k]
    np.testing.assert_allclose(np.vdot(u, jv), np.vdot(g, v), rtol=1e-12)


def test_jvp_vjp_agree():
    _agree(lambda a: lax.dynamic_slice(a, (2, -2), (2, 2)), [X], 0)
    _agree(lambda a, b: lax.dynamic_update_slice(a, b, (1, 4)), [X, U], 0)
    _agree(lambda a, b: lax.dynamic_update_slice(a, b, (1, 4)), [X, U], 1)


def test_traced_starts_jit_equals_eager():
    def f(a, b, i, j):
        return lax.dynamic_slice(lax.dynamic_update_slice(a, b, (i, j)), (j, i), (3, 2))
    jf = ftrans.jit(f)
    for i, j in [(0, 0), (1, 2), (3, 4), (-1, -3), (7, -8)]:
        want = ref_slice(ref_update(X, U, (i, j)), (j, i), (3, 2))
        np.testing.assert_array_equal(f(X, U, i, j), want)
        np.testing.assert_array_equal(jf(X, U, np.int64(i), np.int64(j)), want)
    # gradients through traced starts under jit
    g = ftrans.jit(ftrans.grad(lambda a, i: lax.dynamic_slice(a, (i, i), (2, 2)).sum()))(X, 1)
    np.testing.assert_array_equal(g, ref_update(np.zeros_like(X), np.ones((2, 2)), (1, 1)))


@pytest.mark.compiled
def test_jit_compiled_equals_eager():
    def f(a, b, i):
        y = lax.dynamic_update_slice(a * 2.0, b, (i, 1))
        return lax.dynamic_slice(y, (1, i), (3, 3)) + 1.0
    for i in (0, 2, -1):
        np.testing.assert_allclose(ftrans.jit(f)(X, U, i), f(X, U, i), rtol=1e-15)


@pytest.mark.parametrize("batched", ["operand", "starts", "both"])
def test_vmap_slice(batched):
    xs = rng.normal(size=(3, 4, 5))
    ii = np.array([0, 3, -1])
    jj = np.array([4, 1, 2])
    if batched == "operand":
        got = ftrans.vmap(lambda a: lax.dynamic_slice(a, (1, -2), (2, 3)))(xs)
        want = [ref_slice(a, (1, -2), (2, 3)) for a in xs]
    elif batched == "starts":
        got = ftrans.vmap(lambda i, j: lax.dynamic_slice(X, (i, j), (2, 3)))(ii, jj)
        want = [ref_slice(X, (i, j), (2, 3)) for i, j in zip(ii, jj)]
    else:
        got = ftrans.vmap(lambda a, i: lax.dynamic_slice(a, (i, 2), (2, 3)), in_axes=(2, 0))(
            np.moveaxis(xs, 0, 2), ii)
        want = [ref_slice(a, (i, 2), (2, 3)) for a, i in zip(xs, ii)]
    np.testing.assert_array_equal(got, np.stack(want))


@pytest.mark.parametrize("batched", ["operand", "update", "starts", "all"])
def test_vmap_update(batched):
    xs = rng.normal(size=(3, 4, 5))
    us = rng.normal(size=(3, 2, 3))
    ii = np.array([0, 3, -1])
    if batched == "operand":
        got = ftrans.vmap(lambda a: lax.dynamic_update_slice(a, U, (1, 4)))(xs)
        want = [ref_update(a, U, (1, 4)) for a in xs]
    elif batched == "update":
        got = ftrans.vmap(lambda b: lax.dynamic_update_slice(X, b, (1, 4)))(us)
        want = [ref_update(X, b, (1, 4)) for b in us]
    elif batched == "starts":
        got = ftrans.vmap(lambda i: lax.dynamic_update_slice(X, U, (i, i)))(ii)
        want = [ref_update(X, U, (i, i)) for i in ii]
    else:
        got = ftrans.vmap(lambda a, b, i: lax.dynamic_update_slice(a, b, (2, i)),
                          in_axes=(0, 2, 0))(xs, np.moveaxis(us, 0, 2), ii)
        want = [ref_update(a, b, (2, i)) for a, b, i in zip(xs, us, ii)]
    np.testing.assert_array_equal(got, np.stack(want))


def test_vmap_grad_batched_starts():
    # derivatives of the batched-starts path (gather / where) against the per-example loop
    ii = np.array([0, 2, -1])
    f = lambda a, i: (lax.dynamic_slice(a, (i, 1), (2, 3)) ** 2).sum()
    got = ftrans.vmap(ftrans.grad(f), in_axes=(None, 0))(X, ii)
    want = [ftrans.grad(f)(X, int(i)) for i in ii]
    np.testing.assert_allclose(got, np.stack(want), rtol=1e-15)
    h = lambda a, b, i: (lax.dynamic_update_slice(a, b, (i, i)) ** 3).sum()
    got = ftrans.vmap(ftrans.grad(h, argnums=(0, 1)), in_axes=(None, None, 0))(X, U, ii)
    for k, i in enumerate(ii):
        w = ftrans.grad(h, argnums=(0, 1))(X, U, int(i))
        np.testing.assert_allclose(got[0][k], w[0], rtol=1e-14)
        np.testing.assert_allclose(got[1][k], w[1], rtol=1e-14)
    check_grads(lambda a: ftrans.vmap(lambda i: lax.dynamic_slice(a, (i, i), (2, 2)))(ii) ** 2,
                (X,), order=2, modes=("fwd", "rev"))


def test_errors():
    with pytest.raises(ValueError, match="dynamic_slice: length of start indices must match"):
        lax.dynamic_slice(X, (1,), (2, 2))
    with pytest.raises(ValueError, match="dynamic_update_slice: length of start indices"):
        lax.dynamic_update_slice(X, U, (1, 2, 3))
    with pytest.raises(TypeError, match="slice_sizes must be non-negative and at most"):
        lax.dynamic_slice(X, (0, 0), (5, 2))
    with pytest.raises(ValueError, match="one size per operand dimension"):
        lax.dynamic_slice(X, (0, 0), (2,))
    with pytest.raises(TypeError, match="index arguments must be integers, got dtype float64"):
        lax.dynamic_slice(X, (np.float64(1.0), 0), (2, 2))
    with pytest.raises(TypeError, match="index arguments must be integers, got float"):
        lax.dynamic_slice(X, (1.0, 0), (2, 2))
    with pytest.raises(TypeError, match="index arguments must be integers"):
        ftrans.jit(lambda a, s: lax.dynamic_slice(a, (s, 0), (2, 2)))(X, 1.5)
    with pytest.raises(TypeError, match="update shape must be no larger"):
        lax.dynamic_update_slice(X, np.ones((5, 1)), (0, 0))
    with pytest.raises(TypeError, match="same dtypes, got float64, float32"):
        lax.dynamic_update_slice(X, U.astype(np.float32), (0, 0))
    with pytest.raises(TypeError, match="must have the operand's rank"):
        lax.dynamic_update_slice(X, np.ones(2), (0, 0))
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        lax.dynamic_slice_in_dim(X, 0, 1, axis=2)


def test_against_jax(jax_x64):
    jl = jax_x64.lax
    for starts in STARTS:
        np.testing.assert_array_equal(lax.dynamic_slice(X, starts, (2, 3)),
                                      np.asarray(jl.dynamic_slice(X, starts, (2, 3))))
        np.testing.assert_array_equal(lax.dynamic_update_slice(X, U, starts),
                                      np.asarray(jl.dynamic_update_slice(X, U, starts)))
    ii = np.array([0, 3, -1])
    np.testing.assert_array_equal(
        ftrans.vmap(lambda i: lax.dynamic_update_slice(X, U, (i, i)))(ii),
        np.asarray(jax_x64.vmap(lambda i: jl.dynamic_update_slice(X, U, (i, i)))(ii)))
    f = lambda m: lambda a, b: (m.dynamic_update_slice(a, b, (2, 3)) ** 2).sum()
    g = ftrans.grad(f(lax), argnums=(0, 1))(X, U)
    gj = jax_x64.grad(f(jl), argnums=(0, 1))(X, U)
    np.testing.assert_allclose(g[0], gj[0], rtol=1e-14)
    np.testing.assert_allclose(g[1], gj[1], rtol=1e-14)


def test_nested_vmap_under_jit():
    x = rng.normal(size=(3, 2, 6, 5))
    ii = rng.integers(-7, 7, (3, 2))
    jj = rng.integers(-7, 7, (3,))

    def f(a, i, j):
        return lax.dynamic_update_slice(a, lax.dynamic_slice(a, (i, j), (2, 2)) * 2.0, (j, i))
    got = ftrans.jit(ftrans.vmap(ftrans.vmap(f, in_axes=(0, 0, None))))(x, ii, jj)
    for a in range(3):
        for b in range(2):
            s = ref_starts((ii[a, b], jj[a]), (6, 5), (2, 2))
            want = ref_update(x[a, b], 2.0 * x[a, b][s[0]:s[0] + 2, s[1]:s[1] + 2],
                              (jj[a], ii[a, b]))
            np.testing.assert_array_equal(got[a, b], want)
