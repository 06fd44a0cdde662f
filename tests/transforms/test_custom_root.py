"""ftrans.custom_root (jax.lax.custom_root): implicit derivatives of a solver's root."""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans.testing import check_grads


def _newton(f, x):
    for _ in range(40):
        x = x - f(x) / ftrans.grad(lambda y: fnp.sum(f(y)))(x)
    return x


def _scalar_solve(g, y):
    return y / g(fnp.ones_like(y))


def cbrt(a):
    """The root of x**3 - a (elementwise, a > 0), by Newton's method."""
    return ftrans.custom_root(lambda x: x ** 3 - a, fnp.ones_like(a), _newton, _scalar_solve)


A = np.array([0.5, 2.0, 8.0])


def test_value_and_analytic_derivatives():
    np.testing.assert_allclose(cbrt(A), np.cbrt(A), rtol=1e-12)
    g = ftrans.grad(lambda a: fnp.sum(cbrt(a)))(A)
    np.testing.assert_allclose(g, A ** (-2 / 3) / 3, rtol=1e-10)
    _, t = ftrans.jvp(cbrt, (A,), (np.ones(3),))
    np.testing.assert_allclose(t, A ** (-2 / 3) / 3, rtol=1e-10)
    h = ftrans.grad(ftrans.grad(lambda a: fnp.sum(cbrt(a))))(2.0)
    np.testing.assert_allclose(h, -2 / 9 * 2.0 ** (-5 / 3), rtol=1e-9)


def test_check_grads_order2():
    check_grads(cbrt, (A,), order=2, modes=("fwd", "rev"))


def test_linear_system_root_vmap_jit():
    # root of M(theta) x - b: x = M^{-1} b; a dense tangent_solve
    def solve(f, x0):
        J = ftrans.jacfwd(f)(x0)
        return x0 - fnp.linalg.solve(J, f(x0))

    def tangent_solve(g, y):
        return fnp.linalg.solve(ftrans.jacfwd(g)(y), y)

    def sol(theta, b):
        M = fnp.array([[2.0, theta], [theta, 3.0]])
        return ftrans.custom_root(lambda x: M @ x - b, fnp.zeros(2), solve, tangent_solve)

    b = np.array([1.0, -1.0])
    check_grads(sol, (0.3, b), order=2, modes=("fwd", "rev"))
    want = np.linalg.solve(np.array([[2.0, 0.3], [0.3, 3.0]]), b)
    np.testing.assert_allclose(sol(0.3, b), want, rtol=1e-12)
    thetas = np.array([0.1, 0.3, -0.2])
    got = ftrans.vmap(ftrans.grad(lambda t: fnp.sum(sol(t, b))))(thetas)
    fd = [(np.sum(np.linalg.solve([[2, t + 1e-6], [t + 1e-6, 3]], b))
           - np.sum(np.linalg.solve([[2, t - 1e-6], [t - 1e-6, 3]], b))) / 2e-6 for t in thetas]
    np.testing.assert_allclose(got, fd, rtol=1e-6)
    np.testing.assert_allclose(ftrans.jit(ftrans.grad(lambda t: fnp.sum(sol(t, b))))(0.1),
                               got[0], rtol=1e-12)


def test_has_aux_refused():
    with pytest.raises(NotImplementedError, match="has_aux"):
        ftrans.custom_root(lambda x: x, 0.0, lambda f, x: x, lambda g, y: y, has_aux=True)


def test_jax_comparison(jax_x64):
    jax = jax_x64

    def jcbrt(a):
        def solve(f, x):
            for _ in range(40):
                x = x - f(x) / (3 * x ** 2)
            return x
        return jax.lax.custom_root(lambda x: x ** 3 - a, jax.numpy.ones_like(a), solve,
                                   lambda g, y: y / g(jax.numpy.ones_like(y)))
    want = jax.grad(lambda a: jax.numpy.sum(jcbrt(a)))(A)
    np.testing.assert_allclose(ftrans.grad(lambda a: fnp.sum(cbrt(a)))(A), want, rtol=1e-10)
