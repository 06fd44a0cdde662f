"""ftrans.scipy.integrate quadrature of samples against SciPy, with derivatives."""
import numpy as np
import pytest
import scipy.integrate as si

import ftrans
from ftrans.scipy import integrate as fsi
from ftrans.testing import check_grads

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8])
@pytest.mark.parametrize("name", ["trapezoid", "simpson", "cumulative_trapezoid"])
def test_values_against_scipy(name, n):
    if name != "simpson" and n == 1:
        pytest.skip("SciPy's trapezoid rules need two samples for a nonempty result")
    y = RNG.normal(size=(3, n))
    x = np.cumsum(RNG.uniform(0.1, 1.0, size=n))
    for kw in ({}, {"x": x}, {"dx": 0.3}, {"x": np.broadcast_to(x, y.shape)}):
        got = getattr(fsi, name)(y, **kw)
        want = getattr(si, name)(y, **kw)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    # another axis
    got = getattr(fsi, name)(y.T, x=x, axis=0)
    np.testing.assert_allclose(got, getattr(si, name)(y.T, x=x, axis=0), rtol=1e-12)


def test_cumulative_initial():
    y = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(fsi.cumulative_trapezoid(y, initial=0),
                               si.cumulative_trapezoid(y, initial=0))
    with pytest.raises(ValueError, match="initial must be 0 or None"):
        fsi.cumulative_trapezoid(y, initial=1.0)


@pytest.mark.parametrize("name", ["trapezoid", "simpson", "cumulative_trapezoid"])
@pytest.mark.parametrize("n", [4, 5])
def test_grads_in_y_and_x(name, n):
    y = RNG.normal(size=(2, n))
    x = np.cumsum(RNG.uniform(0.2, 1.0, size=n))
    f = getattr(fsi, name)
    check_grads(lambda y, x: f(y, x=x), (y, x), order=2, modes=("fwd", "rev"))
    np.testing.assert_allclose(ftrans.jit(lambda y, x: f(y, x=x))(y, x), f(y, x=x),
                               rtol=1e-13)
    ys = RNG.normal(size=(3, n))
    np.testing.assert_allclose(ftrans.vmap(lambda y: f(y, x=x))(ys),
                               np.stack([f(r, x=x) for r in ys]), rtol=1e-13)


def test_float32_stays_float32():
    y = np.linspace(0, 1, 5, dtype=np.float32)
    for f in (fsi.trapezoid, fsi.simpson, fsi.cumulative_trapezoid):
        assert np.asarray(f(y, x=y)).dtype == np.float32


def test_bad_x():
    with pytest.raises(ValueError, match="samples"):
        fsi.trapezoid(np.ones(4), x=np.ones(3))
    with pytest.raises(ValueError, match="0-d"):
        fsi.simpson(np.float64(1.0))


def test_jax_comparison(jax_x64):
    jax = jax_x64
    y = RNG.normal(size=7)
    x = np.cumsum(RNG.uniform(0.1, 1.0, size=7))
    want = jax.grad(lambda y: jax.numpy.trapezoid(y, x=x) ** 2)(y)
    np.testing.assert_allclose(ftrans.grad(lambda y: fsi.trapezoid(y, x=x) ** 2)(y), want,
                               rtol=1e-12)
