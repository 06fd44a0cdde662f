"""``ftrans.compat.distributions`` against ``torch.distributions``: log_prob, entropy,
mean/mode/variance/stddev, cdf/icdf and kl_divergence values and their gradients with
respect to the parameters on fixed values; shapes of samples, validation errors, and
the reparameterized samples statistically (means and gradients of expectations)."""
from __future__ import annotations

import numpy as np
import pytest

import ftrans.compat as fc
from tests.compat.compat_diff import assert_same, needs_torch

pytestmark = needs_torch


def _p(T, v, rg=True):
    return T.tensor(v, dtype=T.float64, requires_grad=rg)


# name -> (constructor of (T, params), parameter values, a value in the support)
CASES = {
    "normal": (lambda T, a, b: T.distributions.Normal(a, b),
               ([0.3, -1.0], [1.5, 0.7]), [0.1, 0.9]),
    "lognormal": (lambda T, a, b: T.distributions.LogNormal(a, b),
                  ([0.3, -1.0], [1.5, 0.7]), [0.1, 0.9]),
    "uniform": (lambda T, a, b: T.distributions.Uniform(a, b),
                ([0.0, -1.0], [2.0, 0.5]), [0.5, 0.0]),
    "exponential": (lambda T, a: T.distributions.Exponential(a), ([0.5, 2.0],), [0.3, 1.7]),
    "laplace": (lambda T, a, b: T.distributions.Laplace(a, b),
                ([0.3, -1.0], [1.5, 0.7]), [0.1, -2.0]),
    "gamma": (lambda T, a, b: T.distributions.Gamma(a, b),
              ([0.7, 3.0], [1.5, 0.4]), [0.4, 5.0]),
    "beta": (lambda T, a, b: T.distributions.Beta(a, b),
             ([0.7, 3.0], [1.5, 2.4]), [0.4, 0.8]),
    "dirichlet": (lambda T, a: T.distributions.Dirichlet(a),
                  ([[0.7, 3.0, 1.2], [2.0, 2.0, 0.5]],), [[0.2, 0.5, 0.3], [0.6, 0.3, 0.1]]),
    "poisson": (lambda T, a: T.distributions.Poisson(a), ([0.7, 4.0],), [0.0, 3.0]),
    "bernoulli_probs": (lambda T, a: T.distributions.Bernoulli(probs=a), ([0.3, 0.9],),
                        [1.0, 0.0]),
    "bernoulli_logits": (lambda T, a: T.distributions.Bernoulli(logits=a), ([-0.3, 2.0],),
                         [1.0, 0.0]),
    "categorical_probs": (lambda T, a: T.distributions.Categorical(probs=a),
                          ([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]],), [2, 0]),
    "categorical_logits": (lambda T, a: T.distributions.Categorical(logits=a),
                           ([[0.2, -1.5, 0.3], [1.0, 0.1, 0.8]],), [1, 2]),
    "onehot": (lambda T, a: T.distributions.OneHotCategorical(probs=a),
               ([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]],), [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
    "binomial": (lambda T, a: T.distributions.Binomial(5, probs=a), ([0.3, 0.8],), [2.0, 5.0]),
    "binomial_logits": (lambda T, a: T.distributions.Binomial(T.tensor([3.0, 6.0]), logits=a),
                        ([0.3, -0.8],), [2.0, 5.0]),
    "mvn_cov": (lambda T, m, c: T.distributions.MultivariateNormal(m, covariance_matrix=c),
                ([0.3, -1.0], [[2.0, 0.3], [0.3, 1.0]]), [0.1, 0.4]),
    "mvn_tril": (lambda T, m, c: T.distributions.MultivariateNormal(m, scale_tril=c),
                 ([[0.3, -1.0], [0.0, 1.0]], [[1.2, 0.0], [0.4, 0.9]]), [0.1, 0.4]),
    "mvn_prec": (lambda T, m, c: T.distributions.MultivariateNormal(m, precision_matrix=c),
                 ([0.3, -1.0], [[2.0, -0.3], [-0.3, 1.0]]), [0.1, 0.4]),
    "cauchy": (lambda T, a, b: T.distributions.Cauchy(a, b),
               ([0.3, -1.0], [1.5, 0.7]), [0.1, -2.0]),
    "chi2": (lambda T, a: T.distributions.Chi2(a), ([0.7, 3.0],), [0.4, 5.0]),
    "geometric_probs": (lambda T, a: T.distributions.Geometric(probs=a), ([0.3, 0.9],),
                        [0.0, 3.0]),
    "geometric_logits": (lambda T, a: T.distributions.Geometric(logits=a), ([-0.3, 2.0],),
                         [4.0, 0.0]),
    "independent": (lambda T, a, b: T.distributions.Independent(T.distributions.Normal(a, b), 1),
                    ([0.3, -1.0], [1.5, 0.7]), [0.1, 0.9]),
}

METHODS = ["log_prob", "entropy", "mean", "mode", "variance", "stddev", "cdf", "icdf"]


def _value(T, name, v):
    if name.startswith("categorical"):
        return T.tensor(v)
    return T.tensor(v, dtype=T.float64)


def _run_method(T, name, method):
    ctor, params, value = CASES[name]
    # torch has no derivative of igamma in its first argument: Gamma.cdf's concentration
    # is held fixed (compat's cdf is differentiable in it)
    ps = [_p(T, v, rg=not (name in ("gamma", "chi2") and method == "cdf" and i == 0))
          for i, v in enumerate(params)]
    d = ctor(T, *ps)
    if method in ("log_prob", "cdf"):
        out = getattr(d, method)(_value(T, name, value))
    elif method == "icdf":
        out = d.icdf(T.tensor([0.2, 0.7], dtype=T.float64))
    elif method == "entropy":
        out = d.entropy()
    else:
        out = getattr(d, method)
    res = [out, tuple(d.batch_shape), tuple(d.event_shape)]
    if out.requires_grad:
        grads = T.autograd.grad(out.sum(), [p for p in ps if p.requires_grad],
                                allow_unused=True)
        res.append([g for g in grads if g is not None])
    return res


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients(name, method):
    assert_same(lambda T: _run_method(T, name, method), rtol=1e-6, atol=1e-8)


KL_PAIRS = {
    "normal": ("Normal", ([0.3, -1.0], [1.5, 0.7]), ([0.0, 0.5], [1.0, 2.0])),
    "bernoulli": ("Bernoulli", ([0.3, 0.9],), ([0.5, 0.2],)),
    "categorical": ("Categorical", ([[0.2, 0.5, 0.3]],), ([[0.4, 0.4, 0.2]],)),
    "onehot": ("OneHotCategorical", ([[0.2, 0.5, 0.3]],), ([[0.4, 0.4, 0.2]],)),
    "beta": ("Beta", ([0.7, 3.0], [1.5, 2.4]), ([1.0, 2.0], [2.0, 0.5])),
    "gamma": ("Gamma", ([0.7, 3.0], [1.5, 0.4]), ([1.0, 2.0], [2.0, 0.5])),
    "dirichlet": ("Dirichlet", ([[0.7, 3.0, 1.2]],), ([[1.0, 1.0, 2.0]],)),
    "uniform": ("Uniform", ([0.0, -1.0], [1.0, 0.5]), ([-1.0, -2.0], [2.0, 0.2])),
    "exponential": ("Exponential", ([0.5, 2.0],), ([1.0, 0.3],)),
    "laplace": ("Laplace", ([0.3, -1.0], [1.5, 0.7]), ([0.0, 0.5], [1.0, 2.0])),
    "poisson": ("Poisson", ([0.7, 4.0],), ([1.0, 2.0],)),
    "lognormal": ("LogNormal", ([0.3, -1.0], [1.5, 0.7]), ([0.0, 0.5], [1.0, 2.0])),
    "cauchy": ("Cauchy", ([0.3, -1.0], [1.5, 0.7]), ([0.0, 0.5], [1.0, 2.0])),
    "geometric": ("Geometric", ([0.3, 0.9],), ([0.5, 0.2],)),
    "chi2": ("Chi2", ([0.7, 3.0],), ([1.0, 2.0],)),
}


@pytest.mark.parametrize("name", sorted(KL_PAIRS))
def test_kl_divergence(name):
    cls, pp, qp = KL_PAIRS[name]

    def f(T):
        a = [_p(T, v) for v in pp]
        b = [_p(T, v) for v in qp]
        D = T.distributions
        kl = D.kl_divergence(getattr(D, cls)(*a), getattr(D, cls)(*b))
        return kl, T.autograd.grad(kl.sum(), a + b)
    assert_same(f, rtol=1e-6, atol=1e-8)


def test_kl_mvn_and_independent():
    def f(T):
        D = T.distributions
        m1, m2 = _p(T, [[0.3, -1.0], [0.2, 0.1]]), _p(T, [0.0, 0.5])
        c1 = _p(T, [[2.0, 0.3], [0.3, 1.0]])
        l2 = _p(T, [[1.2, 0.0], [0.4, 0.9]])
        kl = D.kl_divergence(D.MultivariateNormal(m1, covariance_matrix=c1),
                             D.MultivariateNormal(m2, scale_tril=l2))
        n1 = D.Independent(D.Normal(m1, T.tensor(1.5, dtype=T.float64)), 1)
        n2 = D.Independent(D.Normal(m2, T.tensor(0.5, dtype=T.float64)), 1)
        kl2 = D.kl_divergence(n1, n2)
        return kl, kl2, T.autograd.grad((kl + kl2).sum(), [m1, m2, c1, l2])
    assert_same(f, rtol=1e-6, atol=1e-8)


def test_kl_unregistered_and_register():
    assert_same(lambda T: T.distributions.kl_divergence(
        T.distributions.Categorical(T.tensor([0.5, 0.5])), T.distributions.Normal(0.0, 1.0)))

    class MyNormal(fc.distributions.Normal):
        pass

    @fc.distributions.register_kl(MyNormal, fc.distributions.Exponential)
    def _kl(p, q):
        return p.loc * 0 + 7.0
    out = fc.distributions.kl_divergence(MyNormal(0.0, 1.0), fc.distributions.Exponential(1.0))
    assert float(out) == 7.0


@pytest.mark.parametrize("snippet", [
    lambda T: T.distributions.Normal(T.tensor([0.0]), T.tensor([-1.0])),
    lambda T: T.distributions.Normal(0.0, 1.0).log_prob(0.5),
    lambda T: T.distributions.Exponential(T.tensor([1.0])).log_prob(T.tensor([-1.0])),
    lambda T: T.distributions.Bernoulli(T.tensor([0.5]), logits=T.tensor([0.0])),
    lambda T: T.distributions.Bernoulli(T.tensor([1.5])),
    lambda T: T.distributions.Bernoulli(T.tensor([0.5])).log_prob(T.tensor([0.5])),
    lambda T: T.distributions.Categorical(T.tensor(0.5)),
    lambda T: T.distributions.Categorical(T.tensor([0.5, 0.5])).log_prob(T.tensor([3])),
    lambda T: T.distributions.Uniform(T.tensor([1.0]), T.tensor([0.0])),
    lambda T: T.distributions.Dirichlet(T.tensor([1.0, 2.0])).log_prob(T.tensor([0.5, 0.6])),
    lambda T: T.distributions.MultivariateNormal(T.zeros(2)),
    lambda T: T.distributions.MultivariateNormal(T.zeros(2), T.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda T: T.distributions.Normal(T.zeros(3), 1.0).log_prob(T.zeros(2)),
    lambda T: T.distributions.Bernoulli(T.tensor([0.5])).rsample(),
    lambda T: T.distributions.Independent(T.distributions.Normal(T.zeros(2), 1.0), 2),
    lambda T: T.distributions.Geometric(T.tensor([0.0, 0.5])),
    lambda T: T.distributions.Chi2(T.tensor([-1.0])),
    lambda T: T.distributions.Normal(T.tensor([0.0]), T.tensor([-1.0]), validate_args=False)
    .log_prob(T.tensor([1.0])),
    lambda T: T.distributions.Exponential(T.tensor([2.0]), validate_args=False)
    .log_prob(T.tensor([-1.0])),
])
def test_errors_and_validation(snippet):
    assert_same(snippet)


def _shapes(T):
    D = T.distributions
    z2 = T.zeros(2, 3)
    ds = [D.Normal(z2, 1.0), D.Uniform(z2, 1.0), D.Exponential(z2 + 1), D.Laplace(z2, 1.0),
          D.Gamma(z2 + 2, 1.0), D.Beta(z2 + 2, 1.0), D.Dirichlet(z2 + 1), D.Poisson(z2 + 1),
          D.Bernoulli(z2 + 0.5), D.Categorical(z2 + 1), D.OneHotCategorical(z2 + 1),
          D.Binomial(4, z2 + 0.5), D.MultivariateNormal(z2, T.eye(3)),
          D.Independent(D.Normal(z2, 1.0), 1), D.Normal(0.0, 1.0), D.Cauchy(z2, 1.0),
          D.Chi2(z2 + 1), D.Geometric(z2 + 0.5), D.LogNormal(z2, 1.0)]
    out = []
    for d in ds:
        s = d.sample((4,))
        e = d.expand((5, 2) if d.batch_shape else (5,))
        out.append((type(d).__name__, str(s.dtype), tuple(s.shape), tuple(d.batch_shape),
                    tuple(d.event_shape), tuple(e.batch_shape), tuple(e.sample().shape),
                    tuple(e.log_prob(e.sample()).shape)))
    return out


def test_sample_shapes_dtypes_and_expand():
    assert_same(_shapes)


def test_rsample_gradients_statistically():
    """Reparameterized samples: ``E[x]`` and ``d E[x] / d params`` of a large sample match
    the closed forms (torch's streams are not reproduced)."""
    D = fc.distributions
    fc.manual_seed(0)
    n = 40000
    checks = [
        (lambda a, b: D.Normal(a, b), [0.5, 2.0], lambda a, b: (a, [1.0, 0.0])),
        (lambda a, b: D.Uniform(a, b), [0.5, 2.0], lambda a, b: ((a + b) / 2, [0.5, 0.5])),
        (lambda a: D.Exponential(a), [2.0], lambda a: (1 / a, [-1 / a ** 2])),
        (lambda a, b: D.Laplace(a, b), [0.5, 2.0], lambda a, b: (a, [1.0, 0.0])),
        (lambda a, b: D.Gamma(a, b), [2.5, 1.5], lambda a, b: (a / b, [1 / b, -a / b ** 2])),
        (lambda a, b: D.Gamma(a, b), [0.4, 1.0], lambda a, b: (a / b, [1 / b, -a / b ** 2])),
        (lambda a, b: D.Beta(a, b), [2.0, 3.0],
         lambda a, b: (a / (a + b), [b / (a + b) ** 2, -a / (a + b) ** 2])),
    ]
    for ctor, vals, truth in checks:
        ps = [fc.tensor(v, dtype=fc.float64, requires_grad=True) for v in vals]
        x = ctor(*ps).rsample((n,))
        m = x.mean()
        grads = fc.autograd.grad(m, ps)
        want_m, want_g = truth(*vals)
        sd = float(x.std())
        assert abs(float(m) - want_m) < 5 * sd / np.sqrt(n), (ctor, float(m), want_m)
        for g, w in zip(grads, want_g):
            assert abs(float(g) - w) < 0.05 * max(1.0, abs(w)), (ctor, float(g), w)


def test_mvn_and_dirichlet_rsample_moments():
    D = fc.distributions
    fc.manual_seed(1)
    loc = fc.tensor([1.0, -1.0], dtype=fc.float64, requires_grad=True)
    cov = fc.tensor([[2.0, 0.6], [0.6, 1.0]], dtype=fc.float64)
    x = D.MultivariateNormal(loc, covariance_matrix=cov).rsample((40000,))
    xs = np.asarray(x.detach().numpy())
    assert np.allclose(xs.mean(0), [1.0, -1.0], atol=0.05)
    assert np.allclose(np.cov(xs.T), [[2.0, 0.6], [0.6, 1.0]], atol=0.08)
    g = fc.autograd.grad(x.sum(), [loc])[0]
    assert np.allclose(g.numpy(), 40000.0)
    c = fc.tensor([2.0, 3.0, 5.0], dtype=fc.float64, requires_grad=True)
    s = D.Dirichlet(c).rsample((20000,))
    assert np.allclose(s.detach().numpy().mean(0), [0.2, 0.3, 0.5], atol=0.01)
    g = fc.autograd.grad(s[:, 0].mean(), [c])[0].numpy()   # d (c0 / sum c) / dc
    assert np.allclose(g, [0.08, -0.02, -0.02], atol=0.01)


def test_discrete_samples_statistically():
    D = fc.distributions
    fc.manual_seed(2)
    n = 40000
    b = D.Bernoulli(fc.tensor([0.2, 0.7])).sample((n,)).numpy()
    assert np.allclose(b.mean(0), [0.2, 0.7], atol=0.015)
    c = D.Categorical(fc.tensor([0.2, 0.5, 0.3])).sample((n,)).numpy()
    assert np.allclose(np.bincount(c, minlength=3) / n, [0.2, 0.5, 0.3], atol=0.015)
    p = D.Poisson(fc.tensor([3.0])).sample((n,)).numpy()
    assert abs(p.mean() - 3.0) < 0.05 and abs(p.var() - 3.0) < 0.15
    k = D.Binomial(10, fc.tensor([0.3])).sample((n,)).numpy()
    assert abs(k.mean() - 3.0) < 0.05 and abs(k.var() - 2.1) < 0.1
    g = D.Geometric(fc.tensor([0.25], dtype=fc.float64)).sample((n,)).numpy()
    assert abs(g.mean() - 3.0) < 0.1 and abs(g.var() - 12.0) < 0.8
    c = D.Cauchy(1.0, 2.0).sample((n,)).numpy()
    assert abs(np.median(c) - 1.0) < 0.06 and abs(np.percentile(c, 75) - 3.0) < 0.12


def test_gamma_implicit_reparameterization_matches_torch():
    """At a fixed draw ``x`` of Gamma(a, 1), ``dx/da`` of compat's rsample equals PyTorch's
    ``_standard_gamma_grad`` (its own approximations: agreement to 1e-3)."""
    import torch
    from ftrans.compat.distributions.continuous import _standard_gamma_rep
    from ftrans.compat.distributions.utils import apply
    x = np.array([0.05, 0.7, 2.5, 9.0, 30.0])
    a = np.array([0.3, 1.0, 2.5, 7.0, 25.0])
    want = torch._standard_gamma_grad(torch.tensor(a), torch.tensor(x)).numpy()
    ca = fc.tensor(a, requires_grad=True)
    y = apply(_standard_gamma_rep, fc.tensor(x), ca)
    assert np.array_equal(y.detach().numpy(), x)
    got = fc.autograd.grad(y.sum(), [ca])[0].numpy()
    assert np.allclose(got, want, rtol=1e-3)


def test_mixture_same_family():
    def f(T):
        D = T.distributions
        w = _p(T, [[0.2, 0.5, 0.3], [0.6, 0.2, 0.2]])
        loc = _p(T, [[[0.0, 1.0], [2.0, -1.0], [0.5, 0.5]], [[1.0, 1.0], [0.0, 0.0], [3.0, 1.0]]])
        scale = _p(T, [[[1.0, 0.5], [0.7, 1.2], [2.0, 1.0]], [[1.0, 1.0], [0.5, 0.5], [1.5, 0.8]]])
        gmm = D.MixtureSameFamily(D.Categorical(w), D.Independent(D.Normal(loc, scale), 1))
        x = T.tensor([[0.3, 0.2], [1.0, -1.0]], dtype=T.float64)
        lp = gmm.log_prob(x)
        m, v = gmm.mean, gmm.variance
        uni = D.MixtureSameFamily(D.Categorical(w), D.Normal(loc[..., 0], scale[..., 0]))
        c = uni.cdf(T.tensor([0.3, 1.0], dtype=T.float64))
        s = gmm.sample((4,))
        e = gmm.expand((5, 2))
        return (lp, m, v, c, tuple(gmm.batch_shape), tuple(gmm.event_shape), tuple(s.shape),
                tuple(e.batch_shape), tuple(e.sample().shape),
                T.autograd.grad((lp.sum() + m.sum() + v.sum() + c.sum()), [w, loc, scale]))
    assert_same(f, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("snippet", [
    lambda T: T.distributions.MixtureSameFamily(T.distributions.Normal(0.0, 1.0),
                                                T.distributions.Normal(T.zeros(2), 1.0)),
    lambda T: T.distributions.MixtureSameFamily(T.distributions.Categorical(T.ones(3)),
                                                T.distributions.Normal(T.zeros(2), 1.0)),
])
def test_mixture_errors(snippet):
    assert_same(snippet)
