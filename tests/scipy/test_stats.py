"""``ftrans.scipy.stats``: every distribution's methods against ``scipy.stats`` on grids
that include the edges (support boundaries, zero, tails, q in {0, 1}), ``check_grads``
order 2 (fwd + rev, float64; float32 on a sample) in the data and every continuous
parameter, ``jax.scipy.stats`` where JAX has the distribution, ``jit``/``vmap``, and the
conventions for invalid input (nan for bad parameters, TypeError/ValueError for bad
types/shapes).  Expected values come from SciPy only.
"""
import numpy as np
import pytest
import scipy.stats as ss

import ftrans
import ftrans.scipy.stats as fst
from ftrans.testing import check_grads

LOC, SCALE = 0.3, 1.4
METHODS_C = ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "ppf")
METHODS_D = ("logpmf", "pmf", "cdf", "logcdf", "sf", "logsf", "ppf")

# continuous: shape parameters, standardized grid with the edges, interior points for
# the gradient checks (away from kinks and support boundaries)
CONT = {
    "norm": ((), [-40.0, -8.0, -1.0, 0.0, 0.5, 3.0, 8.0], [-1.2, 0.1, 0.9]),
    "t": ((2.7,), [-1e3, -5.0, -1.0, 0.0, 0.5, 3.0, 1e3], [-1.2, 0.1, 0.9]),
    "chi2": ((3.3,), [-1.0, 0.0, 1e-6, 0.5, 3.0, 30.0], [0.4, 1.3, 4.0]),
    "gamma": ((2.2,), [-1.0, 0.0, 1e-6, 0.5, 3.0, 30.0], [0.4, 1.3, 4.0]),
    "beta": ((2.3, 1.7), [-0.5, 0.0, 1e-6, 0.3, 0.9, 1.0, 1.5], [0.2, 0.5, 0.8]),
    "expon": ((), [-1.0, 0.0, 1e-8, 0.7, 30.0, 700.0], [0.3, 1.1, 2.5]),
    "laplace": ((), [-700.0, -30.0, -1.0, 0.0, 0.5, 30.0, 700.0], [-1.2, 0.3, 0.9]),
    "logistic": ((), [-700.0, -30.0, -1.0, 0.0, 0.5, 30.0, 700.0], [-1.2, 0.1, 0.9]),
    "cauchy": ((), [-1e12, -30.0, -1.0, 0.0, 0.5, 30.0, 1e12], [-1.2, 0.1, 0.9]),
    "uniform": ((), [-0.5, 0.0, 1e-8, 0.3, 1.0, 1.5], [0.2, 0.5, 0.8]),
    "lognorm": ((0.8,), [-1.0, 0.0, 1e-8, 0.3, 1.0, 5.0, 1e3], [0.4, 1.3, 4.0]),
}
# boundary values of the shape parameters where SciPy's pdf is finite, 0 or inf at 0
CONT_EXTRA = [("gamma", (1.0,)), ("gamma", (0.5,)), ("chi2", (2.0,)), ("beta", (1.0, 1.0)),
              ("beta", (0.5, 3.0)), ("t", (1.0,)), ("t", (150.0,)), ("lognorm", (2.5,))]
Q = np.array([0.0, 1e-300, 1e-12, 0.1, 0.5, 0.9, 1 - 1e-9, 1.0])
# (betainc is differentiable in a, b up to order 3: no shape parameter is held out)
NO_SHAPE_GRAD = set()

# discrete: shape parameters (integer ones as ints), k grid, which parameters are
# continuous (differentiable), k for the gradient checks (0 < cdf < 1)
DISC = {
    "poisson": ((2.3,), [-1, 0, 1, 2, 3, 7, 40, 2.5], (0,), [0, 1, 3]),
    "binom": ((7, 0.35), [-1, 0, 1, 3, 7, 8, 2.5], (1,), [0, 3, 6]),
    "nbinom": ((2.5, 0.4), [-1, 0, 1, 3, 10, 60, 2.5], (0, 1), [0, 1, 3]),
    "bernoulli": ((0.3,), [-1, 0, 1, 2, 0.5], (0,), [0]),
}
DISC_EXTRA = [("poisson", (0.0,)), ("binom", (5, 0.0)), ("binom", (5, 1.0)),
              ("nbinom", (3.0, 1.0)), ("bernoulli", (0.0,)), ("bernoulli", (1.0,))]


def _methods(dist, names):
    mod = getattr(fst, dist)
    return [m for m in names if m in mod.__all__]


def _close(a, b, rtol, atol=1e-300):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


# ---------------------------------------------------------------------------------
# values against SciPy
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dist,shapes", [(d, v[0]) for d, v in CONT.items()] + CONT_EXTRA)
def test_continuous_values(dist, shapes):
    z = np.array(CONT[dist][1])
    x = LOC + SCALE * z
    for m in _methods(dist, METHODS_C):
        arg = Q if m == "ppf" else x
        got = getattr(getattr(fst, dist), m)(arg, *shapes, LOC, SCALE)
        want = getattr(getattr(ss, dist), m)(arg, *shapes, LOC, SCALE)
        _close(got, want, rtol=1e-7 if m == "ppf" else 1e-9, atol=1e-290)
        # keyword form and defaults
        got = getattr(getattr(fst, dist), m)(arg, *shapes, scale=SCALE)
        _close(got, getattr(getattr(ss, dist), m)(arg, *shapes, scale=SCALE),
               rtol=1e-7 if m == "ppf" else 1e-9, atol=1e-290)


@pytest.mark.parametrize("dist,shapes", [(d, v[0]) for d, v in DISC.items()] + DISC_EXTRA)
def test_discrete_values(dist, shapes):
    k = np.array(DISC[dist][1], dtype=float)
    for m in _methods(dist, METHODS_D):
        for loc in (0, 2):
            arg = Q if m == "ppf" else k + loc
            got = getattr(getattr(fst, dist), m)(arg, *shapes, loc=loc)
            # log(1 - tiny) is 0 in SciPy's logcdf (ours is log1p(-sf)): absolute 1e-30
            _close(got, getattr(getattr(ss, dist), m)(arg, *shapes, loc=loc), rtol=1e-9,
                   atol=1e-30 if m in ("logcdf", "logsf") else 1e-300)


# random parameters per distribution: (low, high) of each shape parameter
SHAPE_DOMAINS = {"t": [(0.3, 60.0)], "chi2": [(0.2, 40.0)], "gamma": [(0.1, 30.0)],
                 "beta": [(0.1, 20.0), (0.1, 20.0)], "lognorm": [(0.05, 3.0)]}


@pytest.mark.parametrize("dist", list(CONT))
def test_continuous_values_sampled(dist):
    """20 random parameter sets x 8 random points (standardized in [-12, 12] or, for the
    bounded supports, around them), every method, against SciPy."""
    rng = np.random.default_rng(sorted(CONT).index(dist))
    for _ in range(20):
        shapes = [rng.uniform(lo, hi) for lo, hi in SHAPE_DOMAINS.get(dist, [])]
        loc, scale = rng.uniform(-3, 3), np.exp(rng.uniform(-3, 3))
        z = np.concatenate([rng.uniform(-12, 12, 4), rng.uniform(-0.2, 1.2, 4)])
        x, q = loc + scale * z, rng.uniform(0, 1, 8)
        for m in _methods(dist, METHODS_C):
            arg = q if m == "ppf" else x
            got = getattr(getattr(fst, dist), m)(arg, *shapes, loc, scale)
            want = getattr(getattr(ss, dist), m)(arg, *shapes, loc, scale)
            _close(got, want, rtol=1e-7, atol=1e-290)


@pytest.mark.parametrize("dist", list(DISC))
def test_discrete_values_sampled(dist):
    rng = np.random.default_rng(10 + sorted(DISC).index(dist))
    for _ in range(20):
        n = int(rng.integers(0, 40))
        shapes = {"poisson": (rng.uniform(0, 30),), "binom": (n, rng.uniform(0, 1)),
                  "nbinom": (rng.uniform(0.1, 20), rng.uniform(0.02, 1)),
                  "bernoulli": (rng.uniform(0, 1),)}[dist]
        k, q = rng.integers(-2, 60, 8).astype(float), rng.uniform(0, 1, 8)
        for m in _methods(dist, METHODS_D):
            arg = q if m == "ppf" else k
            got = getattr(getattr(fst, dist), m)(arg, *shapes)
            want = getattr(getattr(ss, dist), m)(arg, *shapes)
            # SciPy's logcdf/logsf are log(cdf)/log(sf): absolute error ~1e-16 near 0
            # (ours: log1p(-sf) there)
            _close(got, want, rtol=1e-7, atol=1e-15 if m in ("logcdf", "logsf") else 1e-290)


def test_multivariate_normal_values():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 3))
    cov = a @ a.T + np.eye(3)
    mean = rng.standard_normal(3)
    x = rng.standard_normal((4, 3))
    ref = ss.multivariate_normal
    mvn = fst.multivariate_normal
    _close(mvn.logpdf(x, mean, cov), ref.logpdf(x, mean, cov), 1e-12)
    _close(mvn.pdf(x, mean, cov), ref.pdf(x, mean, cov), 1e-12)
    _close(mvn.logpdf(x, None, cov), ref.logpdf(x, None, cov), 1e-12)
    _close(mvn.logpdf(x, mean, 2.5), ref.logpdf(x, mean, 2.5), 1e-12)
    d = np.array([0.5, 2.0, 3.0])
    _close(mvn.logpdf(x, mean, d), ref.logpdf(x, mean, d), 1e-12)
    _close(mvn.logpdf(x[0], mean, cov), ref.logpdf(x[0], mean, cov), 1e-12)
    _close(mvn.logpdf(np.array([0.2, 3.0]), 0.5, 2.0),
           ref.logpdf(np.array([0.2, 3.0]), 0.5, 2.0), 1e-12)
    covs = np.stack([cov, 2 * cov])                      # batched cov (JAX's extension)
    _close(mvn.logpdf(x[:2], mean, covs),
           [ref.logpdf(x[i], mean, covs[i]) for i in range(2)], 1e-12)


def test_dirichlet_values():
    alpha = np.array([1.5, 0.7, 3.0])
    x = np.array([[0.2, 0.3, 0.0], [0.5, 0.1, 0.4], [0.3, 0.6, 0.6]])
    _close(fst.dirichlet.logpdf(x, alpha), ss.dirichlet.logpdf(x, alpha), 1e-12)
    _close(fst.dirichlet.pdf(x[:, :2], alpha), ss.dirichlet.pdf(x[:, :2], alpha), 1e-12)
    _close(fst.dirichlet.logpdf(x[:2], alpha), ss.dirichlet.logpdf(x[:2], alpha), 1e-12)
    assert np.asarray(fst.dirichlet.logpdf(np.array([-0.1, 0.5, 0.6]), alpha)) == -np.inf


# ---------------------------------------------------------------------------------
# derivatives
# ---------------------------------------------------------------------------------
def _cont_fn(dist, m):
    f = getattr(getattr(fst, dist), m)
    return lambda x, *p: f(x, *p)


@pytest.mark.parametrize("dist", list(CONT))
def test_continuous_grads(dist):
    shapes, _, zin = CONT[dist]
    x = LOC + SCALE * np.array(zin)
    params = [np.float64(s) for s in shapes] + [np.float64(LOC), np.float64(SCALE)]
    for m in _methods(dist, METHODS_C):
        if m == "pdf":
            continue                     # exp(logpdf): covered by logpdf and jit/vmap
        arg = np.array([0.15, 0.45, 0.8]) if m == "ppf" else x
        if (dist, m) in NO_SHAPE_GRAD:
            f = getattr(getattr(fst, dist), m)
            n = len(shapes)
            check_grads(lambda x, lo, sc: f(x, *shapes, lo, sc), (arg, *params[n:]), order=2,
                        modes=("fwd", "rev"))
            with pytest.raises(NotImplementedError):
                ftrans.grad(lambda s: f(arg, s, *shapes[1:], LOC, SCALE).sum())(shapes[0])
            continue
        check_grads(_cont_fn(dist, m), (arg, *params), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("dist", ["norm", "gamma", "beta", "logistic"])
def test_continuous_grads_float32(dist):
    shapes, _, zin = CONT[dist]
    f32 = np.float32
    x = (LOC + SCALE * np.array(zin)).astype(f32)
    params = [f32(s) for s in shapes] + [f32(LOC), f32(SCALE)]
    out = fst.__dict__[dist].logpdf(x, *params)
    assert out.dtype == np.float32
    check_grads(_cont_fn(dist, "logpdf"), (x, *params), order=2, modes=("fwd", "rev"))
    _close(out, getattr(ss, dist).logpdf(x.astype(float), *shapes, LOC, SCALE), 1e-5)


def test_float32_stays_float32():
    """Every method of every distribution: float32 in, float32 out, values within 1e-4 of
    SciPy's (float64)."""
    f32 = np.float32
    for dist, (shapes, _, zin) in CONT.items():
        x = (LOC + SCALE * np.array(zin)).astype(f32)
        for m in _methods(dist, METHODS_C):
            arg = np.array([0.15, 0.45, 0.8], f32) if m == "ppf" else x
            out = getattr(getattr(fst, dist), m)(arg, *[f32(s) for s in shapes], f32(LOC),
                                                 f32(SCALE))
            assert out.dtype == np.float32, (dist, m, out.dtype)
            want = getattr(getattr(ss, dist), m)(arg.astype(float), *shapes, LOC, SCALE)
            _close(out, want, 1e-4)
    for dist, (shapes, _, cont, kin) in DISC.items():
        sh = [f32(s) if i in cont else s for i, s in enumerate(shapes)]
        for m in _methods(dist, METHODS_D):
            arg = np.array([0.15, 0.45, 0.8], f32) if m == "ppf" else np.array(kin, f32)
            out = getattr(getattr(fst, dist), m)(arg, *sh)
            assert out.dtype == np.float32, (dist, m, out.dtype)
            _close(out, getattr(ss, dist).__getattribute__(m)(arg.astype(float), *shapes),
                   1e-4)


@pytest.mark.parametrize("dist", list(DISC))
def test_discrete_grads(dist):
    shapes, _, cont, kin = DISC[dist]
    k = np.array(kin)
    args = [np.float64(s) if i in cont else np.int64(s) for i, s in enumerate(shapes)]
    for m in _methods(dist, METHODS_D):
        if m in ("pmf", "ppf"):
            continue
        f = getattr(getattr(fst, dist), m)
        check_grads(lambda *p: f(k, *p), tuple(args), order=2, modes=("fwd", "rev"))
    # discrete data and integer parameters carry no derivative
    g = ftrans.grad(lambda kk: getattr(fst, dist).logpmf(kk, *shapes).sum())(k.astype(float))
    assert np.all(np.asarray(g) == 0)
    if dist == "binom":
        g = ftrans.grad(lambda n: fst.binom.logpmf(k, n, 0.4).sum())(9.0)
        assert float(g) == 0.0


def test_multivariate_normal_grads():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 3))
    mean, x = rng.standard_normal(3), rng.standard_normal((2, 3))

    def f(x, mean, a):
        return fst.multivariate_normal.logpdf(x, mean, a @ a.T + np.eye(3))
    check_grads(f, (x, mean, a), order=2, modes=("fwd", "rev"))
    check_grads(lambda x, m, d: fst.multivariate_normal.logpdf(x, m, d),
                (x, mean, np.array([0.5, 1.0, 2.0])), order=2, modes=("fwd", "rev"))
    # gradient in cov is symmetric (the symmetrized matrix is what is factored)
    cov = a @ a.T + np.eye(3)
    g = np.asarray(ftrans.grad(lambda c: fst.multivariate_normal.logpdf(x[0], mean, c))(cov))
    np.testing.assert_allclose(g, g.T, rtol=1e-12)


def test_dirichlet_grads():
    x = np.array([[0.2, 0.3], [0.5, 0.1], [0.3, 0.6]])
    check_grads(fst.dirichlet.logpdf, (x, np.array([1.5, 0.7, 3.0])), order=2,
                modes=("fwd", "rev"))


# ---------------------------------------------------------------------------------
# jax.scipy.stats (values and gradients, x64)
# ---------------------------------------------------------------------------------
_JAX = ["norm", "t", "chi2", "gamma", "beta", "expon", "laplace", "logistic", "cauchy",
        "uniform"]


@pytest.mark.parametrize("dist", _JAX)
def test_against_jax(dist, jax_x64):
    """Values of every method JAX has; gradients of logpdf in every argument (the cdfs'
    gradients: check_grads above and HIPS autograd below; JAX's eager calls are slow)."""
    jst = pytest.importorskip("jax.scipy.stats")
    jmod = getattr(jst, dist)
    shapes, _, zin = CONT[dist]
    x = LOC + SCALE * np.array(zin)
    args = (x, *shapes, LOC, SCALE)
    for m in _methods(dist, METHODS_C):
        if not hasattr(jmod, m):
            continue
        arg = (np.array([0.15, 0.45, 0.8]),) + args[1:] if m == "ppf" else args
        f = getattr(getattr(fst, dist), m)
        jf = getattr(jmod, m)
        _close(f(*arg), jf(*arg), 1e-10)
        if m != "logpdf":
            continue
        nums = tuple(i for i in range(len(arg))
                     if not ((dist, m) in NO_SHAPE_GRAD and 0 < i <= len(shapes)))
        fa = [np.asarray(a, float) for a in arg]
        gs = ftrans.grad(lambda *a: f(*a).sum(), argnums=nums)(*fa)
        jgs = jax_x64.grad(lambda *a: jf(*a).sum(), argnums=nums)(*fa)
        for g, jg in zip(gs, jgs):
            _close(g, jg, 1e-8)


# HIPS autograd's scipy.stats: (distribution, methods, shapes); gradients in every
# argument where autograd defines them (its cdfs: in x only)
_AG = [("norm", ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"), ()),
       ("t", ("logpdf", "pdf", "cdf", "logcdf"), (2.7,)),
       ("gamma", ("logpdf", "pdf", "cdf"), (2.2,)),
       ("beta", ("logpdf", "pdf", "cdf"), (2.3, 1.7)),
       ("chi2", ("logpdf", "pdf", "cdf"), (3.0,))]   # autograd: integer df, x only


@pytest.mark.parametrize("dist,methods,shapes", _AG)
def test_against_hips_autograd(dist, methods, shapes):
    ag = pytest.importorskip("autograd", reason="HIPS autograd not installed")
    ags = pytest.importorskip("autograd.scipy.stats")
    x = LOC + SCALE * np.array(CONT[dist][2])
    for m in methods:
        f, af = getattr(getattr(fst, dist), m), getattr(getattr(ags, dist), m)
        # autograd's gamma/beta/chi2 take no loc/scale (its rules are for (x, shapes))
        z = np.array(CONT[dist][2])
        args = (z, *shapes) if dist in ("gamma", "beta", "chi2") else (x, *shapes, LOC, SCALE)
        _close(f(*args), af(*args), 1e-10)
        for i in ([0] if m not in ("logpdf", "pdf") or dist == "chi2" else range(len(args))):
            g = ftrans.grad(lambda v: f(*args[:i], v, *args[i + 1:]).sum())(args[i])
            ag_g = ag.grad(lambda v: af(*args[:i], v, *args[i + 1:]).sum())(
                np.asarray(args[i], float))
            _close(g, ag_g, 1e-8)


def test_against_hips_autograd_other():
    ag = pytest.importorskip("autograd", reason="HIPS autograd not installed")
    ags = pytest.importorskip("autograd.scipy.stats")
    k = np.array([0.0, 1.0, 4.0])
    _close(ftrans.grad(lambda mu: fst.poisson.logpmf(k, mu).sum())(2.3),
           ag.grad(lambda mu: ags.poisson.logpmf(k, mu).sum())(2.3), 1e-10)
    _close(ftrans.grad(lambda mu: fst.poisson.cdf(k, mu).sum())(2.3),
           ag.grad(lambda mu: ags.poisson.cdf(k, mu).sum())(2.3), 1e-10)
    rng = np.random.default_rng(4)
    a = rng.standard_normal((3, 3))
    cov, mean, x = a @ a.T + np.eye(3), rng.standard_normal(3), rng.standard_normal((2, 3))
    for i in range(3):
        args = (x, mean, cov)
        _close(ftrans.grad(lambda v: fst.multivariate_normal.logpdf(
                   *args[:i], v, *args[i + 1:]).sum())(args[i]),
               ag.grad(lambda v: ags.multivariate_normal.logpdf(
                   *args[:i], v, *args[i + 1:]).sum())(args[i]), 1e-9)
    xd, alpha = np.array([0.2, 0.5, 0.3]), np.array([1.5, 0.7, 3.0])
    _close(ftrans.grad(lambda al: fst.dirichlet.logpdf(xd, al))(alpha),
           ag.grad(lambda al: ags.dirichlet.logpdf(xd, al))(alpha), 1e-10)


def test_against_jax_multivariate(jax_x64):
    jst = pytest.importorskip("jax.scipy.stats")
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 3))
    cov, mean, x = a @ a.T + np.eye(3), rng.standard_normal(3), rng.standard_normal((2, 3))
    v, g = ftrans.value_and_grad(
        lambda c: fst.multivariate_normal.logpdf(x, mean, c).sum())(cov)
    jv, jg = jax_x64.value_and_grad(
        lambda c: jst.multivariate_normal.logpdf(x, mean, c).sum())(cov)
    _close(v, jv, 1e-12)
    _close(g, jg, 1e-9)        # both symmetric (the Hermitian-gradient convention)


# ---------------------------------------------------------------------------------
# transforms, conventions, errors
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dist,m", [("norm", "logpdf"), ("gamma", "logpdf"),
                                    ("laplace", "cdf"), ("lognorm", "ppf")])
def test_jit_vmap(dist, m):
    shapes, _, zin = CONT[dist]
    x = np.array([0.15, 0.45, 0.8]) if m == "ppf" else LOC + SCALE * np.array(zin)
    f = getattr(getattr(fst, dist), m)
    want = f(x, *shapes, LOC, SCALE)
    _close(ftrans.jit(lambda x, s: f(x, *shapes, LOC, s))(x, SCALE), want, 1e-13)
    scales = np.array([1.0, SCALE, 2.0])
    got = ftrans.vmap(lambda s: f(x, *shapes, LOC, s))(scales)
    _close(got, np.stack([np.asarray(f(x, *shapes, LOC, s)) for s in scales]), 1e-13)


def test_jit_vmap_discrete_multivariate():
    k = np.array([0.0, 2.0, 5.0])
    ps = np.array([0.2, 0.5])
    got = ftrans.vmap(lambda p: fst.binom.logpmf(k, 6, p))(ps)
    _close(got, np.stack([ss.binom.logpmf(k, 6, p) for p in ps]), 1e-12)
    # the discrete ppf (a bisection in lax.fori_loop): jit, vmap, and no derivative
    q = np.array([0.1, 0.5, 0.95])
    _close(ftrans.jit(lambda p: fst.binom.ppf(q, 7, p))(0.35), ss.binom.ppf(q, 7, 0.35), 0)
    _close(ftrans.vmap(lambda mu: fst.poisson.ppf(q, mu))(np.array([1.0, 2.3])),
           np.stack([ss.poisson.ppf(q, mu) for mu in (1.0, 2.3)]), 0)
    assert float(ftrans.grad(lambda p: fst.nbinom.ppf(q, 2.5, p).sum())(0.4)) == 0.0
    x = np.random.default_rng(3).standard_normal((4, 2))
    f = ftrans.jit(lambda x: fst.multivariate_normal.logpdf(x, np.zeros(2), np.eye(2)))
    _close(f(x), ss.multivariate_normal.logpdf(x, np.zeros(2), np.eye(2)), 1e-12)


@pytest.mark.parametrize("dist,args", [
    ("norm", (1.0, 0.0, -1.0)), ("norm", (1.0, 0.0, 0.0)), ("t", (1.0, -2.0)),
    ("gamma", (1.0, 0.0)), ("beta", (0.5, 1.0, -1.0)), ("lognorm", (1.0, -0.5)),
    ("expon", (1.0, 0.0, -2.0)), ("uniform", (0.5, 0.0, -1.0))])
def test_invalid_parameters_are_nan_like_scipy(dist, args):
    for m in _methods(dist, METHODS_C):
        out = getattr(getattr(fst, dist), m)(*args)
        assert np.isnan(np.asarray(out)), (m, out)
        assert np.isnan(getattr(getattr(ss, dist), m)(*args)), m   # SciPy agrees


@pytest.mark.parametrize("dist,args", [("poisson", (1, -1.0)), ("binom", (1, 3, 1.5)),
                                       ("binom", (1, 2.5, 0.5)), ("nbinom", (1, 2.0, 0.0)),
                                       ("bernoulli", (1, -0.1))])
def test_invalid_discrete_parameters_are_nan(dist, args):
    for m in _methods(dist, METHODS_D):
        assert np.isnan(np.asarray(getattr(getattr(fst, dist), m)(*args))), m
    assert np.isnan(getattr(ss, dist).logpmf(*args))


def test_ppf_outside_unit_interval_is_nan():
    for q in (-0.1, 1.5):
        assert np.isnan(np.asarray(fst.norm.ppf(q)))
        assert np.isnan(np.asarray(fst.bernoulli.ppf(q, 0.3)))


def test_errors_and_dtypes():
    with pytest.raises(TypeError, match="real"):
        fst.norm.logpdf(np.array([1 + 1j]))
    with pytest.raises(TypeError, match="missing shape"):
        fst.gamma.logpdf(1.0)
    with pytest.raises(TypeError, match="at most"):
        fst.norm.logpdf(1.0, 0.0, 1.0, 2.0)
    with pytest.raises(TypeError, match="unexpected"):
        fst.norm.logpdf(1.0, mu=2.0)
    with pytest.raises(NotImplementedError, match="allow_singular"):
        fst.multivariate_normal.logpdf(np.zeros(2), np.zeros(2), np.eye(2), True)
    with pytest.raises(ValueError, match="shape"):
        fst.multivariate_normal.logpdf(np.zeros(3), np.zeros(2), np.eye(2))
    with pytest.raises(ValueError, match="one-dimensional"):
        fst.dirichlet.logpdf(np.ones(2) / 2, np.ones((2, 1)))
    with pytest.raises(ValueError, match="components"):
        fst.dirichlet.logpdf(np.ones(5) / 5, np.ones(2))
    assert fst.norm.logpdf(np.float32(1.0), 0.0, 1.0).dtype == np.float32
    assert fst.norm.logpdf(np.array([1, 2])).dtype == np.float64
    assert np.asarray(fst.expon.logpdf(-1.0)) == -np.inf
    assert np.asarray(fst.beta.pdf(2.0, 2.0, 2.0)) == 0.0
    g = ftrans.grad(lambda x: fst.expon.logpdf(x, 0.0, 2.0))(-1.0)   # outside: 0, not nan
    assert float(g) == 0.0


def test_t_cdf_derivative_at_the_median_is_the_density():
    """Regression: the t-to-beta relation's derivative is nan at z = 0 (betainc's
    infinite x-derivative at x = 1 times dx/dz = 0); the series near 0 gives pdf(0)."""
    for df in (1.0, 4.0, 30.0):
        g = ftrans.grad(lambda x: fst.t.cdf(x, df))(0.0)
        _close(g, ss.t.pdf(0.0, df), rtol=1e-12)
        _close(fst.t.cdf(np.array([0.0, 9e-4, -9e-4]), df),
               ss.t.cdf(np.array([0.0, 9e-4, -9e-4]), df), rtol=1e-14)
    check_grads(lambda q: fst.t.ppf(q, 4.0), (np.array([0.2, 0.5, 0.7]),), order=2,
                modes=("fwd", "rev"))


def test_ppf_by_implicit_differentiation_under_jit_and_vmap():
    q = np.array([0.1, 0.5, 0.9])
    # d ppf / dq = 1 / pdf(ppf(q)): the inverse function's derivative
    for dist, shapes in (("gamma", (2.5,)), ("chi2", (3.0,)), ("beta", (2.0, 3.0)),
                         ("t", (3.0,))):
        f = getattr(fst, dist).ppf
        want = 1.0 / getattr(ss, dist).pdf(getattr(ss, dist).ppf(q, *shapes), *shapes)
        got = ftrans.jit(ftrans.vmap(ftrans.grad(lambda p: f(p, *shapes))))(q)
        _close(got, want, rtol=1e-9)
    # d ppf / d a for gamma against central differences of SciPy's ppf
    h = 1e-6
    fd = (ss.gamma.ppf(q, 2.5 + h) - ss.gamma.ppf(q, 2.5 - h)) / (2 * h)
    _close(ftrans.jacfwd(lambda a: fst.gamma.ppf(q, a))(2.5), fd, rtol=1e-6)
