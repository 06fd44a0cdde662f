"""``ftrans.scipy.special``'s orthogonal polynomials, ``airy_ai`` and ``spherical_jn``:
values against SciPy (the Chebyshev polynomials of the third and fourth kinds, absent from
SciPy, through ``V_n = U_n - U_{n-1}``, ``W_n = U_n + U_{n-1}``, DLMF 18.9.11), derivatives
with ``check_grads`` (order 2, both modes), the documented conventions for negative and
non-integer orders, and dtypes."""
import numpy as np
import pytest
import scipy.special as sc

import ftrans
import ftrans.scipy.special as fss
from ftrans.testing import check_grads

RNG = np.random.default_rng(0)
X = RNG.uniform(-2.5, 2.5, (4, 5))
N = np.array([0, 1, 2, 3, 7])   # broadcasts against X's last axis

SCIPY = ["eval_chebyt", "eval_chebyu", "eval_sh_chebyt", "eval_sh_chebyu", "eval_hermite",
         "eval_hermitenorm", "eval_laguerre", "eval_legendre"]


@pytest.mark.parametrize("name", SCIPY)
def test_values_against_scipy(name):
    x = X if "sh_" not in name else (X + 2.5) / 5.0
    got = getattr(fss, name)(N, x)
    np.testing.assert_allclose(got, getattr(sc, name)(N, x), rtol=1e-12, atol=1e-12)


def _u(n, x):
    return np.where(n >= 0, sc.eval_chebyu(np.maximum(n, 0), x), 0.0)


@pytest.mark.parametrize("shift", [False, True])
def test_third_and_fourth_kinds(shift):
    x = (X + 2.5) / 5.0 if shift else X
    t = 2 * x - 1 if shift else x
    v = getattr(fss, "eval_sh_chebyv" if shift else "eval_chebyv")(N, x)
    w = getattr(fss, "eval_sh_chebyw" if shift else "eval_chebyw")(N, x)
    np.testing.assert_allclose(v, _u(N, t) - _u(N - 1, t), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(w, _u(N, t) + _u(N - 1, t), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", SCIPY + ["eval_chebyv", "eval_chebyw"])
def test_grads(name):
    x = np.array([0.3, -0.7, 1.4])
    check_grads(lambda x: getattr(fss, name)(np.array([2, 3, 5]), x), (x,), order=2)


def test_orders_truncated_negative_zero_and_dtype():
    x = np.array([0.5, 1.5], np.float32)
    out = fss.eval_legendre(np.array([2.9, -0.5]), x)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [sc.eval_legendre(2, 0.5), 1.0], rtol=1e-6)
    np.testing.assert_array_equal(fss.eval_hermite(-3, np.array([1.0, 2.0])), [0.0, 0.0])
    assert fss.eval_chebyt(2, np.zeros((0, 3))).shape == (0, 3)
    assert fss.eval_chebyt(np.array([1, 2]), 2).dtype == np.float64
    with pytest.raises(TypeError, match="order n must be concrete"):
        ftrans.grad(lambda n: fss.eval_chebyt(n, 0.5))(2.0)


def test_airy_ai():
    x = np.linspace(-6.0, 3.0, 11)
    np.testing.assert_allclose(fss.airy_ai(x), sc.airy(x)[0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ftrans.vmap(ftrans.grad(fss.airy_ai))(x), sc.airy(x)[1],
                               rtol=1e-12, atol=1e-15)
    check_grads(fss.airy_ai, (np.array([-1.3, 0.2, 1.1]),), order=3)
    assert fss.airy_ai(np.float32(1.0)).dtype == np.float32


def test_spherical_jn():
    x = np.array([0.0, 1e-3, 0.7, -4.0, 12.0])
    np.testing.assert_allclose(fss.spherical_jn(0, x), sc.spherical_jn(0, x), rtol=1e-14)
    check_grads(lambda x: fss.spherical_jn(0, x), (np.array([0.4, -2.0, 5.0, 0.0]),), order=2)
    d2 = ftrans.grad(ftrans.grad(lambda x: fss.spherical_jn(0, x)))
    assert abs(float(d2(0.0)) + 1.0 / 3.0) < 1e-15   # j0 = 1 - z^2/6 + ...
    with pytest.raises(NotImplementedError, match="order n=0"):
        fss.spherical_jn(1, x)
