"""ftrans.scipy.optimize: SciPy's minimize/root with solutions differentiated by the
implicit function theorem, against closed forms and finite differences of the solution."""
import numpy as np
import pytest
import scipy.optimize as so

import ftrans
import ftrans.numpy as fnp
from ftrans.scipy.optimize import minimize, root
from ftrans.testing import check_grads

RNG = np.random.default_rng(0)
X = RNG.normal(size=(20, 3))
Y = RNG.normal(size=20)
TIGHT = {"gtol": 1e-12}


def ridge_loss(w, lam):
    return fnp.sum((X @ w - Y) ** 2) + lam * fnp.sum(w ** 2)


def ridge_exact(lam):
    return np.linalg.solve(X.T @ X + lam * np.eye(3), X.T @ Y)


def ridge(lam, method="BFGS"):
    opts = TIGHT if method in ("BFGS", "CG") else None
    return minimize(ridge_loss, fnp.zeros(3), args=(lam,), method=method, options=opts).x


@pytest.mark.parametrize("method", ["BFGS", "Newton-CG", "trust-exact", "CG"])
def test_ridge_argmin_and_its_derivative(method):
    lam = 0.7
    np.testing.assert_allclose(ridge(lam, method), ridge_exact(lam), rtol=1e-6)
    # d w*/d lam = -(X^T X + lam I)^{-1} w*   (closed form)
    want = -np.linalg.solve(X.T @ X + lam * np.eye(3), ridge_exact(lam))
    np.testing.assert_allclose(ftrans.jacrev(lambda l: ridge(l, method))(lam), want, rtol=1e-5)
    np.testing.assert_allclose(ftrans.jacfwd(lambda l: ridge(l, method))(lam), want, rtol=1e-5)


def test_check_grads_order2_and_transforms():
    check_grads(ridge, (0.7,), order=2, modes=("fwd", "rev"), eps=1e-4, atol=1e-6, rtol=1e-5)
    lams = np.array([0.3, 1.5])
    got = ftrans.vmap(ftrans.grad(lambda l: fnp.sum(ridge(l))))(lams)
    fd = [(np.sum(ridge_exact(l + 1e-6)) - np.sum(ridge_exact(l - 1e-6))) / 2e-6 for l in lams]
    np.testing.assert_allclose(got, fd, rtol=1e-6)
    np.testing.assert_allclose(ftrans.jit(ridge)(0.7), ridge_exact(0.7), rtol=1e-8)


def test_closed_over_parameter_and_result_fields():
    def outer(lam):
        return fnp.sum(minimize(lambda w: ridge_loss(w, lam), fnp.zeros(3), options=TIGHT).x)
    fd = (np.sum(ridge_exact(0.7 + 1e-6)) - np.sum(ridge_exact(0.7 - 1e-6))) / 2e-6
    np.testing.assert_allclose(ftrans.grad(outer)(0.7), fd, rtol=1e-6)
    res = minimize(ridge_loss, np.zeros(3), args=(0.7,))
    want = so.minimize(lambda w: float(ridge_loss(w, 0.7)), np.zeros(3), method="BFGS")
    assert res.success and res.status == 0 and isinstance(res.message, str)
    np.testing.assert_allclose(res.fun, want.fun, rtol=1e-8)


def test_derivative_free_method_value():
    x = minimize(ridge_loss, fnp.zeros(3), args=(0.7,), method="Nelder-Mead",
                 options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 5000}).x
    np.testing.assert_allclose(x, ridge_exact(0.7), rtol=1e-5)


def _system(x, p):
    # a parametric nonlinear system with a unique root near (1, 1)
    return fnp.stack([x[0] ** 3 + x[1] - p[0], fnp.exp(x[0] - 1) * x[1] - p[1]])


@pytest.mark.parametrize("method", ["hybr", "lm"])
def test_root_of_parametric_system(method):
    p = np.array([2.0, 1.0])
    x = root(_system, np.array([0.8, 0.9]), args=(p,), method=method,
             options={"xtol": 1e-13}).x
    np.testing.assert_allclose(_system(x, p), 0.0, atol=1e-10)
    # dx/dp = -J_x^{-1} J_p with J_p = -I
    J = ftrans.jacfwd(_system)(x, p)
    want = np.linalg.inv(J)
    sol = lambda p: root(_system, np.array([0.8, 0.9]), args=(p,), method=method,
                         options={"xtol": 1e-13}).x
    np.testing.assert_allclose(ftrans.jacrev(sol)(p), want, rtol=1e-7)
    np.testing.assert_allclose(ftrans.jacfwd(sol)(p), want, rtol=1e-7)


def test_root_check_grads_fd():
    sol = lambda p: root(_system, np.array([0.8, 0.9]), args=(p,), options={"xtol": 1e-13}).x
    check_grads(sol, (np.array([2.0, 1.0]),), order=2, modes=("fwd", "rev"), eps=1e-5,
                atol=1e-6, rtol=1e-5)


def test_errors():
    with pytest.raises(ValueError, match="unconstrained"):
        minimize(ridge_loss, np.zeros(3), args=(1.0,), method="SLSQPX")
    with pytest.raises(ValueError, match="1-D floating"):
        minimize(ridge_loss, np.zeros((3, 1)), args=(1.0,))
    with pytest.raises(ValueError, match="method"):
        root(_system, np.zeros(2), args=(np.ones(2),), method="newton")


def test_ridge_derivative_vs_jax_closed_form(jax_x64):
    # JAX has no SciPy-backed implicit minimize; compare the ridge derivative with JAX
    # differentiating the closed form
    jax = jax_x64
    jnp = jax.numpy
    want = jax.grad(lambda l: jnp.sum(jnp.linalg.solve(X.T @ X + l * jnp.eye(3), X.T @ Y)))(0.7)
    np.testing.assert_allclose(ftrans.grad(lambda l: fnp.sum(ridge(l)))(0.7), want, rtol=1e-6)
