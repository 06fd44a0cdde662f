"""``ftrans.scipy.stats``: differentiable ``scipy.stats`` distributions.

Each distribution is a module with SciPy's method names and argument order, as
``jax.scipy.stats`` (``fst.norm.logpdf(x, loc=0, scale=1)``,
``fst.t.logpdf(x, df, loc=0, scale=1)``, ``fst.binom.logpmf(k, n, p, loc=0)``):

============================  =====================================================
continuous (loc, scale)       ``norm``, ``t``, ``chi2``, ``gamma``, ``beta``, ``expon``,
                              ``laplace``, ``logistic``, ``cauchy``, ``lognorm``,
                              ``uniform``
discrete (loc)                ``poisson``, ``binom``, ``nbinom``, ``bernoulli``
multivariate                  ``multivariate_normal``, ``dirichlet``
============================  =====================================================

Every method is a composition of :mod:`ftrans.numpy` and :mod:`ftrans.scipy.special`
functions, so it works under ``grad``/``jvp``/``vmap``/``jit`` to any order, in the data
(continuous distributions) and in every continuous parameter.  Discrete data and integer
parameters (``binom``'s ``n``) are held fixed (no derivative).

Conventions (SciPy's): points outside the support give ``-inf`` log-density / 0 density;
invalid parameters (``scale <= 0``, ``p`` outside [0, 1], non-positive shapes) give ``nan``,
no exception -- the parameters may be traced values whose sign is unknown when traced
(``jax.scipy.stats`` does the same).  Complex input raises ``TypeError``.  Python scalars do
not promote (float32 data stays float32); integer data gives float64.

>>> import ftrans, ftrans.scipy.stats as fst
>>> float(ftrans.grad(lambda m: fst.norm.logpdf(1.0, m, 1.0))(0.0))
1.0
"""
from . import (norm, t, chi2, gamma, beta, expon, laplace, logistic, cauchy,  # noqa: F401
               lognorm, uniform, poisson, binom, nbinom, bernoulli, multivariate_normal,
               dirichlet)

__all__ = ["norm", "t", "chi2", "gamma", "beta", "expon", "laplace", "logistic", "cauchy",
           "lognorm", "uniform", "poisson", "binom", "nbinom", "bernoulli",
           "multivariate_normal", "dirichlet"]
