"""lax.associative_scan: against cumsum / cumprod / a Python loop of a non-commutative
operator (2x2 matrix products, affine maps as a pytree), reverse, axis, every length
0-17 (odd and even), derivatives, jit == eager, vmap, errors, and JAX."""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import lax
from ftrans.testing import check_grads

rng = np.random.default_rng(1)


def loop_scan(op, xs, reverse=False):
    """Sequential inclusive scan along axis 0 (the reference); reversed, the accumulator
    stays the left operand (JAX's convention: result[i] = fn(..fn(x[n-1], x[n-2]).., x[i]))."""
    n = len(xs)
    order = range(n - 1, -1, -1) if reverse else range(n)
    out = [None] * n
    acc = None
    for i in order:
        acc = xs[i] if acc is None else op(acc, xs[i])
        out[i] = acc
    return np.stack(out) if n else xs


@pytest.mark.parametrize("n", list(range(0, 18)))
def test_cumsum_cumprod_all_lengths(n):
    x = rng.uniform(0.5, 1.5, (n, 3))
    np.testing.assert_allclose(lax.associative_scan(fnp.add, x), np.cumsum(x, 0), rtol=1e-13)
    np.testing.assert_allclose(lax.associative_scan(fnp.multiply, x), np.cumprod(x, 0),
                               rtol=1e-13)
    np.testing.assert_allclose(lax.associative_scan(fnp.add, x, reverse=True),
                               np.cumsum(x[::-1], 0)[::-1], rtol=1e-13)


@pytest.mark.parametrize("n", [1, 2, 5, 8, 13])
@pytest.mark.parametrize("reverse", [False, True])
def test_matrix_products_non_commutative(n, reverse):
    m = rng.normal(size=(n, 2, 2))
    got = lax.associative_scan(fnp.matmul, m, reverse=reverse)
    np.testing.assert_allclose(got, loop_scan(np.matmul, m, reverse), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_axis(axis):
    x = rng.normal(size=(3, 7, 4))
    np.testing.assert_allclose(lax.associative_scan(fnp.add, x, axis=axis),
                               np.cumsum(x, axis), rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(lax.associative_scan(fnp.maximum, x, reverse=True, axis=axis),
                               np.flip(np.maximum.accumulate(np.flip(x, axis), axis), axis))


def _affine(p, q):
    # composition of the maps x -> a x + b: first p, then q (associative, not commutative)
    return {"a": p["a"] * q["a"], "b": q["a"] * p["b"] + q["b"]}


def test_pytree_linear_recurrence():
    n = 9
    a, b = rng.uniform(0.5, 1.0, n), rng.normal(size=n)
    out = lax.associative_scan(_affine, {"a": a, "b": b})
    h, want = 0.0, []
    for k in range(n):
        h = a[k] * h + b[k]
        want.append(h)
    np.testing.assert_allclose(out["b"], want, rtol=1e-13)
    np.testing.assert_allclose(out["a"], np.cumprod(a), rtol=1e-13)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", [1, 6, 7])
def test_check_grads(dtype, n):
    x = rng.uniform(0.5, 1.5, (n, 2)).astype(dtype)
    check_grads(lambda v: lax.associative_scan(fnp.multiply, v), (x,), order=2,
                modes=("fwd", "rev"))
    m = rng.normal(size=(n, 2, 2)).astype(dtype)
    check_grads(lambda v: lax.associative_scan(fnp.matmul, v, reverse=True), (m,), order=2,
                modes=("fwd", "rev"))
    a, b = x[:, 0], x[:, 1]
    check_grads(lambda p, q: lax.associative_scan(_affine, {"a": p, "b": q})["b"], (a, b),
                order=2, modes=("fwd", "rev"))


def test_grad_value_matches_cumsum():
    w = rng.normal(size=7)
    x = rng.normal(size=7)
    g = ftrans.grad(lambda v: fnp.sum(w * lax.associative_scan(fnp.add, v)))(x)
    np.testing.assert_allclose(g, np.cumsum(w[::-1])[::-1], rtol=1e-13)


def test_jit_and_vmap():
    m = rng.normal(size=(4, 11, 2, 2))
    f = lambda v: lax.associative_scan(fnp.matmul, v)
    np.testing.assert_allclose(ftrans.jit(f)(m[0]), f(m[0]), rtol=1e-14)
    got = ftrans.vmap(f)(m)
    np.testing.assert_allclose(got, np.stack([loop_scan(np.matmul, mi) for mi in m]),
                               rtol=1e-12, atol=1e-14)


def test_errors():
    with pytest.raises(ValueError, match="same length along axis 0"):
        lax.associative_scan(fnp.add, (np.ones(3), np.ones(4)))
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        lax.associative_scan(fnp.add, np.ones((3, 2)), axis=2)
    with pytest.raises(ValueError, match="at least one array"):
        lax.associative_scan(fnp.add, ())
    with pytest.raises(TypeError, match="fn must be callable"):
        lax.associative_scan(3, np.ones(3))
    with pytest.raises(TypeError, match="fn must return the structure of elems"):
        lax.associative_scan(lambda a, b: (a[0] + b[0],), (np.ones(3), np.ones(3)))
    with pytest.raises(TypeError, match="arguments' shapes"):
        lax.associative_scan(lambda a, b: fnp.sum(a + b), np.ones(4))


def test_against_jax(jax_x64):
    jnp, jl = jax_x64.numpy, jax_x64.lax
    m = rng.normal(size=(10, 3, 2, 2))
    for reverse in (False, True):
        np.testing.assert_allclose(
            lax.associative_scan(fnp.matmul, m, reverse=reverse),
            np.asarray(jl.associative_scan(jnp.matmul, m, reverse=reverse)), rtol=1e-12)
    g = ftrans.grad(lambda v: fnp.sum(lax.associative_scan(fnp.multiply, v, axis=1) ** 2))
    gj = jax_x64.grad(lambda v: jnp.sum(jl.associative_scan(jnp.multiply, v, axis=1) ** 2))
    x = rng.uniform(0.5, 1.5, (3, 9))
    np.testing.assert_allclose(g(x), np.asarray(gj(x)), rtol=1e-12)
