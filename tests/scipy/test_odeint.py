"""ftrans.scipy.integrate.odeint / solve_ivp: values, adjoint (reverse) and sensitivity
(forward) derivatives against finite differences, the linear ODE's closed form
(expm), SciPy and jax.experimental.ode.odeint."""
import numpy as np
import pytest
import scipy.integrate as si
import scipy.linalg as sl

import ftrans
import ftrans.numpy as fnp
from ftrans.scipy.integrate import odeint, solve_ivp
from ftrans.testing import check_grads

TOL = dict(rtol=1e-11, atol=1e-11)


def lotka_volterra(y, t, theta):
    a, b, c, d = theta[0], theta[1], theta[2], theta[3]
    return fnp.stack([a * y[0] - b * y[0] * y[1], c * y[0] * y[1] - d * y[1]])


TH = np.array([1.0, 0.5, 0.3, 0.8])
Y0 = np.array([1.0, 1.2])
TS = np.array([0.0, 0.7, 1.5])


def test_values_against_scipy():
    got = odeint(lotka_volterra, Y0, TS, TH, **TOL)
    want = si.odeint(lambda y, t: np.asarray(lotka_volterra(y, t, TH)), Y0, TS,
                     rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got, want, rtol=1e-8)
    assert got.shape == (3, 2)


def test_check_grads_order1_y0_t_args():
    check_grads(lambda y0, t, th: odeint(lotka_volterra, y0, t, th, **TOL), (Y0, TS, TH),
                order=1, modes=("fwd", "rev"), eps=1e-5, atol=1e-6, rtol=1e-6)


def test_check_grads_order2():
    ts = np.array([0.0, 0.8])
    check_grads(lambda y0, th: odeint(lotka_volterra, y0, ts, th, **TOL), (Y0, TH),
                order=2, modes=("fwd", "rev"), eps=1e-4, atol=1e-5, rtol=1e-5)


def _linear(y, t, A):
    return A @ y


def test_linear_ode_closed_form():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(3, 3)) * 0.5
    y0 = rng.normal(size=3)
    ts = np.array([0.0, 0.5, 1.2])
    ys = odeint(_linear, y0, ts, A, **TOL)
    for k, t in enumerate(ts):
        np.testing.assert_allclose(ys[k], sl.expm(A * t) @ y0, rtol=1e-9, atol=1e-12)
    w = rng.normal(size=3)
    T = ts[-1]

    def loss(y0, ts, A):
        return fnp.dot(odeint(_linear, y0, ts, A, **TOL)[-1], w)

    g_y0, g_t, g_A = ftrans.grad(loss, argnums=(0, 1, 2))(y0, ts, A)
    E = sl.expm(A * T)
    np.testing.assert_allclose(g_y0, E.T @ w, rtol=1e-8)       # d/dy0 w.expm(AT)y0
    np.testing.assert_allclose(g_t[-1], w @ A @ E @ y0, rtol=1e-8)   # d/dT: w.A y(T)
    np.testing.assert_allclose(g_t[0], -w @ E @ A @ y0, rtol=1e-8)   # d/dt0: -w.expm(AT)A y0
    np.testing.assert_allclose(g_t[1], 0.0, atol=1e-10)
    # d/dA of w.expm(AT)y0 by SciPy's Frechet derivative: <w, L(AT, T E_ij) y0>
    want = np.array([[w @ sl.expm_frechet(A * T, T * np.outer(np.eye(3)[i], np.eye(3)[j]),
                                          compute_expm=False) @ y0 for j in range(3)]
                     for i in range(3)])
    np.testing.assert_allclose(g_A, want, rtol=1e-7)
    # forward mode agrees
    _, t_out = ftrans.jvp(lambda A: loss(y0, ts, A), (A,), (np.eye(3),))
    np.testing.assert_allclose(t_out, np.sum(want * np.eye(3)), rtol=1e-7)


def test_pytree_state_and_args_jit_vmap():
    def f(state, t, p):
        return {"x": state["v"], "v": -p["k"] * state["x"]}
    y0 = {"x": np.array(1.0), "v": np.array(0.0)}
    ts = np.linspace(0.0, 1.0, 3)
    out = odeint(f, y0, ts, {"k": 4.0}, **TOL)
    np.testing.assert_allclose(out["x"], np.cos(2 * ts), rtol=1e-9)

    def loss(k):
        return odeint(f, y0, ts, {"k": k}, **TOL)["x"][-1]
    g = ftrans.grad(loss)(4.0)
    np.testing.assert_allclose(g, -np.sin(2.0) / (2 * 2.0), rtol=1e-8)  # d cos(sqrt(k))/dk
    np.testing.assert_allclose(ftrans.jit(ftrans.grad(loss))(4.0), g, rtol=1e-10)
    ks = np.array([1.0, 4.0])
    np.testing.assert_allclose(ftrans.vmap(ftrans.grad(loss))(ks),
                               -np.sin(np.sqrt(ks)) / (2 * np.sqrt(ks)), rtol=1e-8)


def test_solve_ivp_against_scipy_and_grad():
    def fun(t, y, k):
        return -k * y * t
    t_eval = np.array([0.5, 1.0, 2.0])
    sol = solve_ivp(fun, (0.0, 2.0), np.array([2.0]), method="DOP853", t_eval=t_eval,
                    args=(0.7,), rtol=1e-10, atol=1e-12)
    want = si.solve_ivp(lambda t, y: -0.7 * y * t, (0.0, 2.0), [2.0], method="DOP853",
                        t_eval=t_eval, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sol.y, want.y, rtol=1e-9)
    np.testing.assert_array_equal(sol.t, t_eval)
    assert sol.success and sol.y.shape == (1, 3)
    g = ftrans.grad(lambda k: solve_ivp(fun, (0.0, 2.0), np.array([2.0]), t_eval=t_eval,
                                        args=(k,), rtol=1e-10, atol=1e-12).y[0, -1])(0.7)
    np.testing.assert_allclose(g, -2.0 * 2.0 * np.exp(-0.7 * 2.0), rtol=1e-7)  # y=2e^{-kt^2/2}


def test_errors():
    f = lambda y, t: -y
    with pytest.raises(ValueError, match="method"):
        odeint(f, np.ones(1), np.array([0.0, 1.0]), method="Euler")
    with pytest.raises(ValueError, match="1-D"):
        odeint(f, np.ones(1), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="monotonic"):
        odeint(f, np.ones(1), np.array([0.0, 1.0, 0.5]))
    with pytest.raises(TypeError, match="floating"):
        odeint(f, np.ones(1, int), np.array([0.0, 1.0]))
    with pytest.raises(RuntimeError, match="mxstep"):
        odeint(f, np.ones(1), np.array([0.0, 100.0]), mxstep=5)


def test_jax_comparison(jax_x64):
    jax = jax_x64
    ode = pytest.importorskip("jax.experimental.ode", reason="jax.experimental.ode absent")
    jnp = jax.numpy

    def jlv(y, t, th):
        return jnp.stack([th[0] * y[0] - th[1] * y[0] * y[1], th[2] * y[0] * y[1] - th[3] * y[1]])

    def jloss(y0, th):
        return jnp.sum(ode.odeint(jlv, y0, TS, th, rtol=1e-11, atol=1e-11) ** 2)

    def loss(y0, th):
        return fnp.sum(odeint(lotka_volterra, y0, TS, th, **TOL) ** 2)
    want = jax.grad(jloss, argnums=(0, 1))(Y0, TH)
    got = ftrans.grad(loss, argnums=(0, 1))(Y0, TH)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-7)


def test_compiled_augmented_rhs(monkeypatch):
    # the augmented right-hand sides compiled from the first evaluation: same numbers
    import ftrans.scipy.integrate._ode as ode
    loss = lambda th: fnp.sum(odeint(lotka_volterra, Y0, TS, th, **TOL) ** 2)
    want = ftrans.grad(loss)(TH)
    monkeypatch.setattr(ode, "COMPILE_AFTER", 0)
    np.testing.assert_allclose(ftrans.grad(loss)(TH), want, rtol=1e-9)



def test_float32_stays_float32():
    f = lambda y, t, k: -k * y
    y0, ts, k = np.array([1.0], np.float32), np.array([0.0, 1.0], np.float32), np.float32(2.0)
    ys = odeint(f, y0, ts, k)
    assert ys.dtype == np.float32
    g = ftrans.grad(lambda k: odeint(f, y0, ts, k)[1, 0])(k)
    _, t = ftrans.jvp(lambda k: odeint(f, y0, ts, k)[1, 0], (k,), (np.float32(1.0),))
    for d in (g, t):
        assert np.asarray(d).dtype == np.float32
        np.testing.assert_allclose(d, -np.exp(-2.0), rtol=1e-5)   # d/dk e^{-k}
