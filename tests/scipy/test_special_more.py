"""Edges, tails and refusals of the issue-20 ``ftrans.scipy.special`` functions.

The sampled-domain checks (values vs SciPy, check_grads order 2, vmap, JAX) are rows of
tests/numpy/breadth_rows_scipy_special.py; here: exact edge points (0, the ends of the
support, poles, far tails, large arguments) against SciPy, derivatives there against
closed forms or SciPy-only expressions, the NotImplementedError of the derivatives with no
formula (Bessel orders, zeta's exponent, betainc's fourth order in a, b), betainc's
derivatives in a and b, and dtype handling.
"""
import math

import numpy as np
import pytest
import scipy.special as sc

import ftrans
import ftrans.scipy.special as fss
from ftrans.testing import check_grads

NEW = ["gammainc", "gammaincc", "betainc", "gammasgn", "rgamma", "erfcx", "erfcinv", "ndtr",
       "ndtri", "log_ndtr", "zeta", "j0", "j1", "jv", "y0", "y1", "yv", "i0", "i0e", "i1",
       "i1e", "iv", "ive", "kv", "kve"]


def test_public_names():
    for name in NEW:
        f = getattr(fss, name)
        assert name in fss.__all__
        assert f.__doc__ and f"scipy.special.{name}" in f.__doc__, name


# ---------------------------------------------------------------------------------
# values at the edges and in the tails: SciPy's own
# ---------------------------------------------------------------------------------
_EDGES = {
    "gammainc": ([0.5, 1.0, 3.0, 1e-3, 50.0, 1e3, 2.0], [0.0, np.inf, 1e-300, 1e-3, 49.0, 1e3, 700.0]),
    "gammaincc": ([0.5, 1.0, 3.0, 1e-3, 50.0, 1e3, 2.0], [0.0, np.inf, 1e-300, 1e-3, 49.0, 1e3, 700.0]),
    "betainc": ([0.5, 2.0, 1.0, 30.0], [0.5, 3.0, 1.0, 0.5], [0.0, 1.0, 0.5, 1e-10]),
    "ndtr": ([-40.0, -8.0, 0.0, 8.0, 40.0, np.inf, -np.inf],),
    "log_ndtr": ([-1e5, -40.0, -8.0, 0.0, 8.0, 40.0, -np.inf, np.inf],),
    "ndtri": ([0.0, 1e-300, 0.5, 1 - 1e-16, 1.0],),
    "erfcx": ([-5.0, 0.0, 1e3, 1e300],),
    "erfcinv": ([0.0, 1e-300, 1.0, 2.0],),
    "rgamma": ([0.0, -1.0, -2.0, 170.0, 200.0],),
    "gammasgn": ([-0.5, -1.5, 0.5, -2.5],),
    "j0": ([0.0, 1e3, -1e3],), "j1": ([0.0, 1e3, -1e3],),
    "y0": ([0.0, 1e3],), "y1": ([0.0, 1e3],),
    "i0e": ([0.0, 1e3, -1e3],), "i1e": ([0.0, 1e3, -1e3],),
}


@pytest.mark.parametrize("name", sorted(_EDGES))
def test_edge_values_match_scipy(name):
    args = [np.array(a) for a in _EDGES[name]]
    with np.errstate(all="ignore"):
        want = getattr(sc, name)(*args)
    np.testing.assert_allclose(getattr(fss, name)(*args), want, rtol=1e-14, atol=0)


@pytest.mark.parametrize("name", ["jv", "yv", "iv", "ive", "kv", "kve"])
def test_bessel_orders_and_large_arguments(name):
    v = np.array([0.0, 0.5, -1.5, 2.0, 30.0, 1.0])
    x = np.array([1e-3, 500.0, 2.0, 0.0, 10.0, 1e4])
    with np.errstate(all="ignore"):
        want = getattr(sc, name)(v, x)
    np.testing.assert_allclose(getattr(fss, name)(v, x), want, rtol=1e-14, atol=0)


def test_zeta_values():
    np.testing.assert_allclose(fss.zeta(2.0), math.pi ** 2 / 6, rtol=1e-15)
    np.testing.assert_allclose(fss.zeta(-1.0), -1 / 12, rtol=1e-14)  # continuation (q=None)
    np.testing.assert_allclose(fss.zeta(np.array([2.0, 3.5]), np.array([1.0, 0.25])),
                               sc.zeta([2.0, 3.5], [1.0, 0.25]), rtol=1e-15)


# ---------------------------------------------------------------------------------
# derivatives in the tails and at the edges
# ---------------------------------------------------------------------------------
def test_log_ndtr_gradient_in_the_tails():
    x = np.array([-1e5, -1e3, -40.0, -5.0, 0.0, 5.0, 40.0])
    g = ftrans.vmap(ftrans.grad(fss.log_ndtr))(x)
    # pdf/cdf; in the left tail (where both underflow) by the asymptotic series of the
    # Mills ratio, cdf/pdf ~ (1 - 1/x^2 + 3/x^4 - 15/x^6 + 105/x^8)/|x| (DLMF 7.12.1)
    with np.errstate(all="ignore"):
        want = np.exp(-x ** 2 / 2) / math.sqrt(2 * math.pi) / sc.ndtr(x)
    left = x < -30
    y = 1 / x[left] ** 2
    want[left] = -x[left] / (1 - y + 3 * y ** 2 - 15 * y ** 3 + 105 * y ** 4)
    np.testing.assert_allclose(g, want, rtol=1e-12)
    assert np.all(np.isfinite(ftrans.vmap(ftrans.grad(ftrans.grad(fss.log_ndtr)))(x)))


def test_ndtri_and_erfcinv_derivatives_are_inverse_slopes():
    p = np.array([1e-10, 0.3, 0.999])
    g = ftrans.vmap(ftrans.grad(fss.ndtri))(p)
    x = sc.ndtri(p)
    np.testing.assert_allclose(g, math.sqrt(2 * math.pi) * np.exp(x ** 2 / 2), rtol=1e-13)
    y = np.array([1e-12, 0.5, 1.7])
    g = ftrans.vmap(ftrans.grad(fss.erfcinv))(y)
    np.testing.assert_allclose(g, -math.sqrt(math.pi) / 2 * np.exp(sc.erfcinv(y) ** 2),
                               rtol=1e-13)


def test_gammainc_derivative_in_x_at_zero():
    gx = ftrans.grad(fss.gammainc, argnums=1)
    assert gx(1.0, 0.0) == 1.0  # e^0 / Gamma(1)
    assert gx(2.5, 0.0) == 0.0
    assert gx(0.5, 0.0) == np.inf
    assert ftrans.grad(fss.gammaincc, argnums=1)(1.0, 0.0) == -1.0


def test_gammainc_derivative_in_a_against_jax(jax_x64):
    from jax import lax
    a = np.array([0.05, 0.5, 2.0, 10.0, 100.0, 1e3, 3.0])
    x = np.array([0.01, 3.0, 0.5, 12.0, 90.0, 1001.0, 1e-6])
    ga = ftrans.vmap(ftrans.grad(fss.gammainc))(a, x)
    np.testing.assert_allclose(ga, np.asarray(lax.igamma_grad_a(a, x)), rtol=1e-11, atol=1e-300)
    gc = ftrans.vmap(ftrans.grad(fss.gammaincc))(a, x)
    np.testing.assert_allclose(gc, -ga, rtol=0)


def test_gammainc_second_derivative_in_a_and_edges():
    # d^2/da^2 against central differences of the first derivative (independent h)
    a, x, h = 1.7, 2.3, 1e-5
    g = ftrans.grad(fss.gammainc)
    g2 = ftrans.grad(g)(a, x)
    np.testing.assert_allclose(g2, (g(a + h, x) - g(a - h, x)) / (2 * h), rtol=1e-8)
    check_grads(fss.gammainc, (np.array([0.4, 1.5, 6.0]), np.array([0.2, 2.5, 9.0])), order=2,
                modes=("fwd", "rev"))
    # at x = 0 and x = inf P is constant in a
    assert g(2.0, 0.0) == 0.0 and g(2.0, np.inf) == 0.0
    # beyond the series'/fraction's 5000 terms (a ~ 1e7 at x = a): NaN, not a wrong number
    assert np.isnan(g(1e7, 1e7)) and np.isfinite(g(1e5, 1e5 - 10))


def test_betainc_derivative_in_x_at_the_ends():
    gx = ftrans.grad(fss.betainc, argnums=2)
    np.testing.assert_allclose(gx(2.0, 3.0, 0.25), 12 * 0.25 * 0.75 ** 2, rtol=1e-14)
    assert gx(2.0, 3.0, 0.0) == 0.0 and gx(2.0, 3.0, 1.0) == 0.0
    np.testing.assert_allclose(gx(1.0, 3.0, 0.0), 3.0, rtol=1e-14)  # 1/B(1, 3)
    assert gx(0.5, 3.0, 0.0) == np.inf
    assert np.isnan(gx(2.0, 3.0, 1.5)) and np.isnan(fss.betainc(2.0, 3.0, 1.5))  # as SciPy


def test_rgamma_derivative_at_its_zeros():
    g = ftrans.grad(fss.rgamma)
    for n in range(4):
        np.testing.assert_allclose(g(float(-n)), (-1) ** n * math.factorial(n), rtol=1e-14)
    np.testing.assert_allclose(g(2.5), -sc.rgamma(2.5) * sc.digamma(2.5), rtol=1e-14)


def test_gammasgn_derivative_is_zero():
    assert ftrans.grad(fss.gammasgn)(-1.5) == 0.0


def test_zeta_derivative_in_q():
    g = ftrans.grad(fss.zeta, argnums=1)(3.0, 1.5)
    np.testing.assert_allclose(g, -3.0 * sc.zeta(4.0, 1.5), rtol=1e-14)


@pytest.mark.parametrize("name,sign", [("jv", -1), ("yv", -1), ("iv", 1), ("kv", -1)])
def test_bessel_recurrence_at_integer_and_half_orders(name, sign):
    # v = 0: J0' = -J1, Y0' = -Y1, I0' = I1, K0' = -K1 (DLMF 10.6.2, 10.29.3)
    x = np.array([0.7, 2.0, 5.0])
    d = ftrans.vmap(ftrans.grad(lambda t: getattr(fss, name)(0.0, t)))(x)
    np.testing.assert_allclose(d, sign * getattr(sc, name)(1.0, x), rtol=1e-13)
    if name == "jv":  # order 1/2: sqrt(2/(pi x)) sin x (DLMF 10.16.1)
        d = ftrans.vmap(ftrans.grad(lambda t: fss.jv(0.5, t)))(x)
        exact = math.sqrt(2 / math.pi) * (np.cos(x) / np.sqrt(x) - np.sin(x) / (2 * x ** 1.5))
        np.testing.assert_allclose(d, exact, rtol=1e-13)


def test_scaled_bessel_derivatives_against_unscaled():
    x = np.array([-3.0, 0.4, 2.0, 25.0])
    v = np.array([1.0, 2.5, 0.0, 3.0])
    dive = ftrans.vmap(ftrans.grad(fss.ive, argnums=1))(v, x)
    want = np.exp(-np.abs(x)) * (sc.ivp(v, x) - np.sign(x) * sc.iv(v, x))
    np.testing.assert_allclose(dive, want, rtol=1e-12)
    xp = np.abs(x)
    dkve = ftrans.vmap(ftrans.grad(fss.kve, argnums=1))(v, xp)
    np.testing.assert_allclose(dkve, np.exp(xp) * (sc.kvp(v, xp) + sc.kv(v, xp)), rtol=1e-12)
    for name, ref in (("jv", sc.jvp), ("yv", sc.yvp), ("iv", sc.ivp), ("kv", sc.kvp)):
        d = ftrans.vmap(ftrans.grad(getattr(fss, name), argnums=1))(v, xp)
        np.testing.assert_allclose(d, ref(v, xp), rtol=1e-12, err_msg=name)
        d2 = ftrans.vmap(ftrans.grad(ftrans.grad(getattr(fss, name), argnums=1), argnums=1))(v, xp)
        np.testing.assert_allclose(d2, ref(v, xp, 2), rtol=1e-11, err_msg=name)
    for name, ref in (("j0", lambda t: sc.jvp(0, t)), ("j1", lambda t: sc.jvp(1, t)),
                      ("y0", lambda t: sc.yvp(0, t)), ("y1", lambda t: sc.yvp(1, t))):
        d = ftrans.vmap(ftrans.grad(getattr(fss, name)))(xp)
        np.testing.assert_allclose(d, ref(xp), rtol=1e-12, err_msg=name)


# ---------------------------------------------------------------------------------
# refused derivatives: clear NotImplementedError, only when requested
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["jv", "yv", "iv", "ive", "kv", "kve"])
@pytest.mark.parametrize("mode", ["grad", "jvp", "jacfwd"])
def test_derivative_in_the_order_raises(name, mode):
    f = getattr(fss, name)
    with pytest.raises(NotImplementedError, match=f"{name}: the derivative with respect to "
                                                  "the order v"):
        if mode == "grad":
            ftrans.grad(f, argnums=0)(1.5, 2.0)
        elif mode == "jvp":
            ftrans.jvp(lambda v: f(v, 2.0), (1.5,), (1.0,))
        else:
            ftrans.jacfwd(f, argnums=(0, 1))(np.array([1.5]), np.array([2.0]))
    # the other argument differentiates, also with a batched order
    ftrans.grad(f, argnums=1)(1.5, 2.0)
    ftrans.vmap(ftrans.grad(f, argnums=1))(np.array([0.5, 1.5]), np.array([1.0, 2.0]))


def test_zeta_and_betainc_refusals():
    with pytest.raises(NotImplementedError, match="zeta: the derivative with respect to the "
                                                  "exponent x"):
        ftrans.grad(fss.zeta)(3.0, 1.5)
    with pytest.raises(NotImplementedError, match="exponent x"):
        ftrans.grad(fss.zeta)(3.0)
    with pytest.raises(NotImplementedError, match="betainc: derivatives of order 4"):
        ftrans.grad(ftrans.grad(ftrans.grad(ftrans.grad(fss.betainc, 1), 0), 1), 0)(
            2.0, 3.0, 0.4)


@pytest.mark.parametrize("a,b,x", [(2.0, 3.0, 0.4), (0.3, 0.5, 0.02), (20.0, 15.0, 0.6),
                                   (4.0, 0.7, 0.97)])
def test_betainc_derivatives_in_a_and_b(a, b, x):
    # against 4th-order central differences of SciPy's betainc (h = 1e-3: error ~1e-10)
    h = 1e-3

    def fd(f, s):
        return (8 * (f(s + h) - f(s - h)) - (f(s + 2 * h) - f(s - 2 * h))) / (12 * h)
    ga, gb, gx = ftrans.grad(fss.betainc, argnums=(0, 1, 2))(a, b, x)
    np.testing.assert_allclose(ga, fd(lambda s: sc.betainc(s, b, x), a), rtol=1e-7)
    np.testing.assert_allclose(gb, fd(lambda s: sc.betainc(a, s, x), b), rtol=1e-7)
    # second derivatives: mixed (polarization) and pure, against differences of the grads
    hab = ftrans.grad(ftrans.grad(fss.betainc, 0), 1)(a, b, x)
    np.testing.assert_allclose(hab, fd(lambda s: ftrans.grad(fss.betainc, 0)(a, s, x), b),
                               rtol=1e-6)
    hxa = ftrans.grad(ftrans.grad(fss.betainc, 2), 0)(a, b, x)
    np.testing.assert_allclose(hxa, fd(lambda s: ftrans.grad(fss.betainc, 2)(s, b, x), a),
                               rtol=1e-6)
    # third order (polarization of directional third derivatives): d/db of I_aa
    haa = ftrans.grad(ftrans.grad(fss.betainc, 0), 0)
    taab = ftrans.grad(haa, 1)(a, b, x)
    np.testing.assert_allclose(taab, fd(lambda s: haa(a, s, x), b), rtol=1e-5)


# ---------------------------------------------------------------------------------
# dtypes, jit
# ---------------------------------------------------------------------------------
def test_dtypes():
    x32 = np.array([0.5, 1.5], np.float32)
    for name in ("ndtr", "log_ndtr", "erfcx", "rgamma", "j0", "y1", "i0e"):
        assert getattr(fss, name)(x32).dtype == np.float32, name
    assert fss.jv(2, x32).dtype == np.float32
    assert fss.gammainc(x32, x32).dtype == np.float32
    assert ftrans.grad(lambda a: fss.gammainc(a, np.float32(2.0)))(np.float32(1.5)).dtype == \
        np.float32
    assert fss.ndtr(np.arange(3)).dtype == np.float64  # integers -> float64
    with pytest.raises(TypeError, match="real inputs only"):
        fss.ndtr(np.array([1 + 1j]))
    with pytest.raises(TypeError, match="real inputs only"):
        fss.jv(1.0, np.array([1 + 1j]))


def test_jit_matches_eager():
    a = np.array([0.5, 2.0, 7.0])
    x = np.array([0.3, 2.5, 5.0])
    f = lambda a, x: fss.gammainc(a, x) * fss.jv(a, x) + fss.log_ndtr(-x) + fss.zeta(a + 1.5, x)
    np.testing.assert_allclose(ftrans.jit(f)(a, x), f(a, x), rtol=1e-15)
    g = ftrans.grad(lambda x: f(a, x).sum())
    np.testing.assert_allclose(ftrans.jit(g)(x), g(x), rtol=1e-14)


def test_polygamma_empty_order_broadcasts_as_scipy():
    """An empty integer order gives SciPy's empty broadcast result (it returned None)."""
    import numpy as np
    import scipy.special as ss
    import ftrans.scipy.special as fss
    for n, x in ((np.array([], dtype=int), 1.0), (np.zeros((0, 2), dtype=int), np.ones(2))):
        got, want = fss.polygamma(n, x), ss.polygamma(n, x)
        assert got is not None and got.shape == want.shape and got.dtype == want.dtype
