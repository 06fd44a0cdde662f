"""lax.cumsum/cumprod/cummax/cummin/cumlogsumexp: values against JAX (when installed) or
NumPy, derivatives by finite differences (order 2, forward and reverse)."""
from __future__ import annotations

import numpy as np
import pytest

import ftrans
from ftrans import lax
from ftrans.testing import check_grads

_R = np.random.RandomState(3)
X = _R.randn(3, 6)
NAMES = ("cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp")


def _numpy_ref(name, x, axis, reverse):
    if reverse:
        return np.flip(_numpy_ref(name, np.flip(x, axis), axis, False), axis)
    f = {"cumsum": np.cumsum, "cumprod": np.cumprod,
         "cummax": np.maximum.accumulate, "cummin": np.minimum.accumulate,
         "cumlogsumexp": np.logaddexp.accumulate}[name]
    return f(x, axis=axis)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("axis,reverse", [(0, False), (1, True), (-1, False)])
def test_values_and_derivatives(name, axis, reverse):
    f = getattr(lax, name)
    np.testing.assert_allclose(f(X, axis, reverse), _numpy_ref(name, X, axis, reverse),
                               rtol=1e-12, atol=1e-12)
    check_grads(lambda a: f(a, axis=axis, reverse=reverse), (X,), order=2,
                modes=("fwd", "rev"))


def test_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    for name in NAMES:
        for rev in (False, True):
            np.testing.assert_allclose(getattr(lax, name)(X, 1, rev),
                                       getattr(jax.lax, name)(X, 1, rev), rtol=1e-12)


def test_cumprod_zeros_and_vmap():
    z = np.array([2.0, 0.0, 3.0, 0.0, -1.5])
    g = ftrans.grad(lambda a: lax.cumprod(a).sum())(z)
    # d/dz_i of sum_k prod_{j<=k} z_j, written out
    ref = [sum(np.prod(np.delete(z[:k + 1], i)) for k in range(i, 5)) for i in range(5)]
    np.testing.assert_allclose(g, ref)
    check_grads(lambda a: lax.cumprod(a), (z,), order=2, modes=("fwd", "rev"))
    np.testing.assert_allclose(ftrans.vmap(lambda r: lax.cummax(r))(X),
                               np.maximum.accumulate(X, axis=1))


def test_cumlogsumexp_stable_and_complex():
    big = np.array([1000.0, 1000.0, -1000.0])
    np.testing.assert_allclose(lax.cumlogsumexp(big), [1000.0, 1000.0 + np.log(2),
                                                       1000.0 + np.log(2)])
    z = X[0] + 1j * X[1]
    ref = np.log(np.cumsum(np.exp(z)))
    r = lax.cumlogsumexp(z)
    np.testing.assert_allclose(np.exp(r), np.exp(ref), rtol=1e-12)


def test_errors():
    with pytest.raises(ValueError):
        lax.cumsum(np.float64(1.0))
    with pytest.raises(ValueError):
        lax.cummax(X, 2)
    with pytest.raises(TypeError):
        lax.cumlogsumexp(np.arange(3))
    with pytest.raises(TypeError):
        lax.cummax(X + 1j)
