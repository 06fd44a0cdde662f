"""``torch.distributions`` for ``ftrans.compat`` on ``ftrans.scipy.special`` and compat's
generator.

Distributions: ``Normal``, ``LogNormal``, ``Uniform``, ``Exponential``, ``Laplace``,
``Cauchy``, ``Gamma``, ``Chi2``, ``Beta``, ``Dirichlet``, ``MultivariateNormal``,
``Bernoulli``, ``Categorical``, ``OneHotCategorical``, ``Poisson``, ``Binomial``,
``Geometric``, ``Independent``, ``MixtureSameFamily``; ``kl_divergence`` and ``register_kl``
with the standard pairs.  ``log_prob``/``entropy``/``cdf``/``kl_divergence`` are ftrans
compositions (gradients w.r.t. the parameters from the primitives' rules); ``rsample`` of
the continuous distributions is reparameterized (``Gamma``/``Beta``/``Dirichlet``
implicitly, as PyTorch's).

Differences from PyTorch: the random numbers (compat's own generator); ``Gamma.cdf`` is
differentiable in the concentration (PyTorch raises); ``LogNormal`` is not a
``TransformedDistribution``; transforms (``TransformedDistribution``,
``constraint_registry``) and the other distributions are absent.

>>> import ftrans.compat as torch
>>> loc = torch.tensor([0.0, 1.0], requires_grad=True)
>>> d = torch.distributions.Normal(loc, 2.0)
>>> lp = d.log_prob(torch.tensor([0.5, 0.5])).sum()
>>> torch.autograd.grad(lp, [loc])[0]
tensor([ 0.1250, -0.1250])
>>> tuple(d.rsample((3,)).shape), d.batch_shape
((3, 2), torch.Size([2]))
"""
from __future__ import annotations

from . import constraints  # noqa: F401
from .distribution import Distribution
from .continuous import (Normal, LogNormal, Uniform, Exponential, Laplace, Cauchy, Gamma, Chi2,
                         Beta, Dirichlet)
from .multivariate_normal import MultivariateNormal
from .discrete import (Bernoulli, Categorical, OneHotCategorical, Poisson, Binomial,
                       Geometric)
from .independent import Independent
from .mixture_same_family import MixtureSameFamily
from .kl import kl_divergence, register_kl
from . import kl  # noqa: F401
# PyTorch's per-distribution modules (``from torch.distributions.normal import Normal``)
from . import (normal, log_normal, uniform, exponential, laplace, cauchy, gamma,  # noqa: F401
               chi2, beta, dirichlet, geometric,
               bernoulli, categorical, one_hot_categorical, poisson, binomial,
               multivariate_normal, independent, mixture_same_family, distribution, utils)

__all__ = ["Distribution", "Normal", "LogNormal", "Uniform", "Exponential", "Laplace", "Cauchy",
           "Gamma", "Chi2", "Geometric", "Beta", "Dirichlet", "MultivariateNormal", "Bernoulli",
           "Categorical", "OneHotCategorical", "Poisson", "Binomial", "Independent",
           "MixtureSameFamily", "kl_divergence", "register_kl", "constraints", "kl"]
