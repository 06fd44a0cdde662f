"""custom_jvp / custom_vjp with Python scalar arguments, residuals and outputs (issue 25,
bug 1): Python scalars are accepted wherever an array is, as weakly typed values."""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp


def _make_cjvp():
    @ftrans.custom_jvp
    def f(x, y):
        return fnp.sin(x) * y

    @f.defjvp
    def f_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        return f(x, y), fnp.cos(x) * tx * y + fnp.sin(x) * ty
    return f


def _make_cvjp():
    @ftrans.custom_vjp
    def f(x, y):
        return fnp.sin(x) * y

    def fwd(x, y):
        return f(x, y), (fnp.cos(x), fnp.sin(x), y)

    def bwd(res, ct):
        c, s, y = res
        return ct * c * y, ct * s
    f.defvjp(fwd, bwd)
    return f


MAKERS = [pytest.param(_make_cjvp, id="custom_jvp"), pytest.param(_make_cvjp, id="custom_vjp")]
X, Y = 0.7, 3.0
DX, DY = np.cos(X) * Y, np.sin(X)  # d/dx, d/dy of sin(x) * y


@pytest.mark.parametrize("make", MAKERS)
def test_grad_with_python_float_arguments(make):
    f = make()
    np.testing.assert_allclose(ftrans.grad(f)(X, Y), DX, rtol=1e-14)
    np.testing.assert_allclose(ftrans.grad(f, 1)(X, Y), DY, rtol=1e-14)
    gx, gy = ftrans.grad(f, (0, 1))(X, Y)
    np.testing.assert_allclose([gx, gy], [DX, DY], rtol=1e-14)
    np.testing.assert_allclose(ftrans.jit(ftrans.grad(f))(X, Y), DX, rtol=1e-14)
    np.testing.assert_allclose(ftrans.jacrev(f)(X, Y), DX, rtol=1e-14)
    np.testing.assert_allclose(ftrans.hessian(f)(X, Y), -np.sin(X) * Y, rtol=1e-13)


@pytest.mark.parametrize("make", MAKERS)
def test_jvp_and_vmap_with_python_float_arguments(make):
    f = make()
    out, t = ftrans.jvp(f, (X, Y), (1.0, 0.0))
    np.testing.assert_allclose([out, t], [np.sin(X) * Y, DX], rtol=1e-14)
    _, pull = ftrans.vjp(f, X, Y)
    np.testing.assert_allclose(pull(1.0), [DX, DY], rtol=1e-14)
    _, lin = ftrans.linearize(f, X, Y)
    np.testing.assert_allclose(lin(1.0, 0.0), DX, rtol=1e-14)
    np.testing.assert_allclose(ftrans.jacfwd(f, (0, 1))(X, Y), [DX, DY], rtol=1e-14)
    xs = np.linspace(0.1, 1.0, 4)
    np.testing.assert_allclose(ftrans.vmap(ftrans.grad(f), (0, None))(xs, Y), np.cos(xs) * Y,
                               rtol=1e-14)


@pytest.mark.parametrize("make", MAKERS)
def test_python_float_stays_weakly_typed(make):
    """A Python float beside a float32 argument does not promote (JAX's weak types)."""
    f = make()
    g = ftrans.grad(f)(np.float32(X), Y)
    assert np.asarray(g).dtype == np.float32
    np.testing.assert_allclose(g, DX, rtol=1e-6)
    out = ftrans.vmap(f, (0, None))(np.ones(3, np.float32), Y)
    assert out.dtype == np.float32


def test_python_scalar_residuals_outputs_and_cotangents():
    @ftrans.custom_vjp
    def const(x):
        return 1.0                      # a Python float output

    const.defvjp(lambda x: (1.0, 2.5),  # ... and a Python float residual
                 lambda r, ct: (ct * r,))
    np.testing.assert_allclose(ftrans.grad(const)(X), 2.5)
    np.testing.assert_allclose(ftrans.grad(lambda x: const(x) * x)(np.float64(X)), 2.5 * X + 1.0)

    @ftrans.custom_jvp
    def one(x):
        return 1.0

    one.defjvp(lambda p, t: (1.0, 0.0))  # Python float output and tangent
    assert ftrans.grad(one)(X) == 0.0
    out, t = ftrans.jvp(one, (X,), (1.0,))
    assert (out, t) == (1.0, 0.0)

    @ftrans.custom_vjp
    def scale(x, y):
        return x * y

    scale.defvjp(lambda x, y: (x * y, y), lambda y, ct: (ct * y, 0.0))  # Python cotangent
    gx = ftrans.grad(scale)(np.float32(2.0), 3.0)
    assert gx.dtype == np.float32 and gx == 3.0
    assert ftrans.grad(scale, 1)(np.float32(2.0), 3.0) == 0.0


def test_custom_jvp_with_integer_python_argument():
    @ftrans.custom_jvp
    def power(x, n):
        return x ** n

    power.defjvp(lambda p, t: (power(*p), p[1] * p[0] ** (p[1] - 1) * t[0]))
    np.testing.assert_allclose(ftrans.grad(power)(2.0, 3), 12.0)
