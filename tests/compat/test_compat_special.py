"""``torch.special`` and the top-level special/integer functions of compat against PyTorch:
values and dtypes (integer inputs promote to the default float), gradients, node names,
aliases, Tensor methods and in-place forms, Python-number operands and error types.

(op_db's samples of the same operators run in tests/compat/opdb.py; here: what op_db does
not sample -- aliases, methods, in-place forms, scalar operands, negative and non-integer
polynomial orders, refusals.)
"""
import numpy as np
import pytest

from compat_diff import assert_same, needs_torch

import ftrans.compat as fc

pytestmark = needs_torch

RNG = np.random.default_rng(23)
XS = RNG.uniform(0.1, 0.9, (3, 4))


def _x(T, dtype="float64", scale=1.0, shift=0.0, rg=False):
    return T.tensor(XS * scale + shift, dtype=getattr(T, dtype), requires_grad=rg)


UNARY = [  # (name, scale, shift): the sampled domain
    ("special.ndtr", 6, -3), ("special.ndtri", 1, 0), ("special.log_ndtr", 10, -5),
    ("special.erfcx", 6, -2), ("special.entr", 2, -0.2), ("special.i0e", 6, -3),
    ("special.i1", 6, -3), ("special.i1e", 6, -3), ("special.gammaln", 4, 0.1),
    ("special.digamma", 4, 0.1), ("special.psi", 4, 0.1), ("special.erf", 4, -2),
    ("special.erfc", 4, -2), ("special.erfinv", 2, -1), ("special.expit", 8, -4),
    ("special.exp2", 4, -2), ("special.expm1", 4, -2), ("special.log1p", 2, 0),
    ("special.i0", 4, -2), ("special.logit", 1, 0), ("special.sinc", 6, -3),
    ("acosh", 3, 1.1), ("arccosh", 3, 1.1), ("asinh", 4, -2), ("arcsinh", 4, -2),
    ("atanh", 1.6, -0.8), ("arctanh", 1.6, -0.8), ("deg2rad", 90, 0), ("rad2deg", 3, -1),
    ("frac", 6, -3), ("sinc", 6, -3), ("lgamma", 4, 0.1), ("digamma", 4, 0.1),
    ("erfc", 4, -2), ("erfinv", 2, -1), ("logit", 1, 0), ("nan_to_num", 4, -2),
    ("positive", 2, -1),
]


def _fn(T, name):
    mod = T
    for part in name.split("."):
        mod = getattr(mod, part)
    return mod


@pytest.mark.parametrize("name,scale,shift", UNARY)
def test_unary_values_grads_nodes(name, scale, shift):
    def run(T):
        x = _x(T, scale=scale, shift=shift, rg=True)
        y = _fn(T, name)(x)
        g, = T.autograd.grad(y.sum(), x)
        return y, g, type(y.grad_fn).__name__ if name != "positive" else ""
    assert_same(run, rtol=1e-8, atol=1e-12)


NODIFF = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
          "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
          "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0"]


@pytest.mark.parametrize("name", NODIFF)
def test_no_derivative_functions(name):
    assert_same(lambda T: getattr(T.special, name)(_x(T, scale=8, shift=-2)), rtol=1e-10)
    assert_same(lambda T: getattr(T.special, name)(_x(T, "float32", scale=8, shift=0.1)))
    assert_same(lambda T: getattr(T.special, name)(T.tensor([0, 1, 3])))   # -> default float
    assert_same(lambda T: getattr(T.special, name)(_x(T, rg=True)).requires_grad)


POLYS = ["chebyshev_polynomial_" + k for k in "tuvw"] + \
    ["shifted_chebyshev_polynomial_" + k for k in "tuvw"] + \
    ["hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
     "legendre_polynomial_p"]


@pytest.mark.parametrize("name", POLYS)
def test_polynomials(name):
    n = [[-2.0, 0.0, 1.0, 2.7], [3.0, 5.0, 7.2, 9.0], [11.0, 4.0, -0.5, 6.0]]
    f = (lambda T: getattr(T.special, name))
    assert_same(lambda T: f(T)(_x(T, scale=2.4, shift=-1.2), T.tensor(n, dtype=T.float64)),
                rtol=1e-9, atol=1e-9)
    assert_same(lambda T: f(T)(_x(T, scale=2, shift=-1), 4), rtol=1e-9, atol=1e-9)
    assert_same(lambda T: f(T)(0.3, T.tensor([1, 2, 3])), rtol=1e-5)
    assert_same(lambda T: f(T)(T.tensor([1, 2]), T.tensor([2, 3])))
    assert_same(lambda T: f(T)(T.tensor([1.0, -1.0, 0.0]), T.tensor([5, 6, 7])), rtol=1e-5)


BINARY = [  # (name, (scale, shift) of each operand)
    ("special.xlog1py", (2, -0.5), (3, -0.5)), ("special.zeta", (3, 1.5), (2, 0.3)),
    ("special.xlogy", (2, -1), (3, 0.1)), ("special.gammainc", (3, 0.5), (3, 0.2)),
    ("special.gammaincc", (3, 0.5), (3, 0.2)), ("xlogy", (2, -1), (3, 0.1)),
    ("igamma", (3, 0.5), (3, 0.2)), ("igammac", (3, 0.5), (3, 0.2)),
    ("hypot", (4, -2), (4, -2)), ("logaddexp", (4, -2), (4, -2)),
    ("logaddexp2", (4, -2), (4, -2)), ("ldexp", (4, -2), (4, -2)),
]


@pytest.mark.parametrize("name,a,b", BINARY)
def test_binary(name, a, b):
    no_grad = name.endswith(("zeta", "gammainc", "gammaincc", "igamma", "igammac"))

    def run(T):
        x = _x(T, scale=a[0], shift=a[1], rg=not no_grad)
        y = T.tensor(XS[0] * b[0] + b[1], requires_grad=True, dtype=T.float64)
        out = _fn(T, name)(x, y)
        if no_grad:
            return out
        return out, T.autograd.grad(out.sum(), (x, y)), type(out.grad_fn).__name__
    assert_same(run, rtol=1e-9, atol=1e-12)


def test_scalar_operands_and_nodes():
    def run(T):
        y = _x(T, rg=True)
        r = [T.xlogy(2.0, y), T.xlogy(y, 3), T.special.xlog1py(2.0, y),
             T.special.xlog1py(y, 3.0), T.special.zeta(3.0, y + 0.5)]
        return r, [type(t.grad_fn).__name__ for t in r]
    assert_same(run, rtol=1e-10)
    assert_same(lambda T: T.xlogy(T.tensor([1, 2]), T.tensor([3, 4])))
    assert_same(lambda T: T.xlogy(T.tensor([1.0], dtype=T.float64), T.tensor([3.0])))

    def logit_eps(T):
        x = T.tensor([-1.0, 0.0, 0.01, 0.3, 0.5, 0.99, 1.0, 2.0], dtype=T.float64,
                     requires_grad=True)
        ys = [T.logit(x, eps=0.05), T.logit(x)]   # without eps: NaN gradient outside [0, 1]
        return ys, [T.autograd.grad(y.sum(), x)[0] for y in ys]
    assert_same(logit_eps, rtol=1e-10)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_polygamma_mvlgamma(n):
    def run(T):
        x = _x(T, scale=4, shift=2.1, rg=True)
        y = T.polygamma(n, x) + T.special.polygamma(n, x) + x.polygamma(n)
        z = T.mvlgamma(x, n + 1) + T.special.multigammaln(x, n + 1) + x.mvlgamma(n + 1)
        return y, z, T.autograd.grad((y + z).sum(), x, create_graph=True)[0]
    assert_same(run, rtol=1e-9)


def test_methods_and_inplace():
    def run(T):
        x = _x(T, scale=0.8, shift=0.05)
        out = []
        for m in ("lgamma", "digamma", "erfc", "erfinv", "logit", "sinc", "frac", "deg2rad",
                  "rad2deg", "acosh", "asinh", "atanh", "arcsinh", "arctanh", "nan_to_num",
                  "erf", "exp2"):
            y = x.clone() + (1.0 if m in ("acosh",) else 0.0)
            out.append(getattr(y, m)())
            getattr(y, m + "_")()
            out.append(y)
        y = x.clone()
        y.polygamma_(1)
        out.append(y)
        y = x.clone() + 2
        y.mvlgamma_(2)
        out += [y, x.xlogy(x), x.clone().xlogy_(2.0), x.hypot(x), x.clone().hypot_(x),
                x.igamma(x), x.clone().igammac_(x), x.logaddexp2(x), x.ldexp(T.tensor([1, 2, 3, 4])),
                x.frexp()[0], x.frexp()[1], x.isreal(), x.positive()]
        i = T.tensor([[12, 7], [-9, 4]])
        out += [i.gcd(T.tensor([8, 3])), i.lcm(T.tensor(6)), i.clone().gcd_(T.tensor(4)),
                i.bitwise_not(), i.clone().bitwise_not_(), i.bitwise_and(3), i.bitwise_or(5),
                i.bitwise_xor(6), i.bitwise_left_shift(2), i.clone().bitwise_right_shift_(1),
                T.bitwise_left_shift(1, T.tensor([1, 2])), T.isin(i, T.tensor([7, 4])),
                T.isin(i, 7, invert=True), T.isin(4, i)]
        return out
    assert_same(run, rtol=1e-9, atol=1e-12)


def test_integer_and_bool_inputs_promote():
    for name in ("lgamma", "digamma", "erfc", "erfinv", "logit", "sinc", "acosh", "asinh",
                 "deg2rad", "rad2deg", "special.ndtr", "special.entr", "special.i1e",
                 "special.bessel_j0", "special.log_ndtr"):
        assert_same(lambda T: _fn(T, name)(T.tensor([0, 1, 3])))
        assert_same(lambda T: _fn(T, name)(T.tensor([True, False])))
    assert_same(lambda T: T.ldexp(T.tensor([1, 2]), T.tensor([3, 4])))
    assert_same(lambda T: T.nan_to_num(T.tensor([1, 2])))
    assert_same(lambda T: T.nan_to_num(T.tensor([float("nan"), float("inf"), -float("inf")]),
                                       nan=1.0, posinf=2.0))


REFUSALS = [
    lambda T: T.frac(T.tensor([1, 2])), lambda T: T.hypot(T.tensor([1]), T.tensor([1])),
    lambda T: T.logaddexp2(T.tensor([1]), T.tensor([1])),
    lambda T: T.igamma(T.tensor([1]), T.tensor([1])),
    lambda T: T.lgamma(T.tensor([1 + 1j])), lambda T: T.erfc(T.tensor([1 + 1j])),
    lambda T: T.special.i1(T.tensor([1 + 1j])), lambda T: T.special.zeta(T.tensor([1j]), 1.0),
    lambda T: T.special.bessel_j0(T.tensor([1j])),
    lambda T: T.special.chebyshev_polynomial_t(T.tensor([1j]), 2),
    lambda T: T.xlogy(T.tensor([1j]), T.tensor([1j])),
    lambda T: T.deg2rad(T.tensor([1j])), lambda T: T.gcd(T.tensor([1.0]), T.tensor([2.0])),
    lambda T: T.gcd(T.tensor([1]), 3), lambda T: T.lcm(T.tensor([True]), T.tensor([True])),
    lambda T: T.bitwise_not(T.tensor([1.0])),
    lambda T: T.bitwise_left_shift(T.tensor([1.0]), T.tensor([1.0])),
    lambda T: T.bitwise_and(2, 3), lambda T: T.positive(T.tensor([True])),
    lambda T: T.mvlgamma(T.tensor([3.0]), 0), lambda T: T.polygamma(-1, T.tensor([1.0])),
    lambda T: T.polygamma(1, T.tensor([1j])), lambda T: T.frexp(T.tensor([1, 2])),
    lambda T: T.hypot(T.tensor([1.0, 2.0]), T.tensor([1.0, 2.0, 3.0])),
    lambda T: T.ldexp(T.tensor([1.0]), 2), lambda T: T.logaddexp(2.0, T.tensor([1.0])),
    lambda T: T.tensor([1, 2]).lgamma_(),
]


@pytest.mark.parametrize("i", range(len(REFUSALS)))
def test_refusals(i):
    assert_same(REFUSALS[i])


def test_complex_operations():
    z = (RNG.normal(size=4) + 1j * RNG.normal(size=4)) * 2

    def run(T):
        a = T.tensor(z, requires_grad=True)
        b = T.tensor(z[::-1].copy(), requires_grad=True)
        r = [T.acosh(a), T.asinh(a), T.atanh(a * 0.3), T.sinc(a), T.logaddexp(a, b),
             T.ldexp(a, T.tensor([1, 2, 0, -1])), T.isreal(a), T.nan_to_num(a)]
        return r, T.autograd.grad(sum(t.abs().sum() for t in r if t.is_floating_point()
                                      or t.is_complex()), (a, b))
    assert_same(run, rtol=1e-9)


def test_func_transforms():
    x = XS[0]

    def f(T):
        def g(v):
            return (T.special.ndtr(v) + T.lgamma(v + 1) + T.special.xlog1py(v, v)
                    + T.special.i1e(v) + T.logit(v * 0.5)).sum()
        return T.func.grad(g)(T.tensor(x)), T.func.vmap(T.special.erfcx)(T.tensor(XS))
    assert_same(f, rtol=1e-9)


def test_namespace_complete():
    import torch.special as ts
    public = {n for n in dir(ts) if not n.startswith("_") and callable(getattr(ts, n))
              and getattr(ts, n).__module__ in (None, "torch._C._special", "torch.special")}
    missing = sorted(n for n in public if not hasattr(fc.special, n) and n != "Tensor")
    assert not missing, missing
