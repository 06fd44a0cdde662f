"""Continuous univariate distributions of ``torch.distributions``: ``Normal``, ``Uniform``,
``Exponential``, ``Laplace``, ``Gamma``, ``Beta``, ``Dirichlet``.

Densities, entropies and CDFs are ftrans compositions of the parameter and value arrays
(:func:`.utils.apply`, PyTorch's formulas); ``rsample`` is a differentiable transform of
standard draws (``loc + eps * scale`` ...).  ``Gamma``/``Beta``/``Dirichlet`` use implicit
reparameterization (Figurnov et al., 2018): the draw ``x`` of ``Gamma(a, 1)`` is returned as
``x - (P(a, x) - stop_gradient(P(a, x))) / stop_gradient(p(x; a))`` (``P`` the regularized
incomplete gamma function of :mod:`ftrans.scipy.special`), whose value is ``x`` and whose
derivative is ``-dP/da / p``, PyTorch's.  The draws come from compat's generator, not
PyTorch's stream.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _dtype as D
from .. import _ops as O
from .._factories import _gen, full, tensor, zeros_like
from .._tensor import Tensor, Size, _make_plain
from ..types import SizeLike
from ... import numpy as fnp
from ... import primitives as P
from ...typing import Array, Shape
from ...scipy import special as fsp
from . import constraints
from .distribution import Distribution
from .utils import apply, broadcast_all

__all__ = ["Normal", "LogNormal", "Uniform", "Exponential", "Laplace", "Cauchy", "Gamma",
           "Chi2", "Beta", "Dirichlet"]

_LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))


def _draw(dist: Distribution, sample_shape: SizeLike, draw: Callable[[Any, Shape], Any],
          like: Tensor) -> Tensor:
    """A constant tensor of ``dist._extended_shape(sample_shape)`` and ``like``'s dtype,
    ``draw(numpy_generator, shape)``."""
    shape = tuple(dist._extended_shape(sample_shape))
    return _make_plain(np.asarray(draw(_gen(None), shape)).astype(like.dtype.np))


# ---- compositions (PyTorch's formulas on arrays) ----------------------------------------

def _normal_log_prob(x: Array, loc: Array, scale: Array) -> Array:
    return -((x - loc) ** 2) / (2 * scale ** 2) - fnp.log(scale) - _LOG_SQRT_2PI


def _normal_cdf(x: Array, loc: Array, scale: Array) -> Array:
    return 0.5 * (1 + fsp.erf((x - loc) / (scale * math.sqrt(2))))


def _normal_icdf(p: Array, loc: Array, scale: Array) -> Array:
    return loc + scale * fsp.erfinv(2 * p - 1) * math.sqrt(2)


def _normal_entropy(scale: Array) -> Array:
    return 0.5 + 0.5 * math.log(2 * math.pi) + fnp.log(scale)


def _lognormal_log_prob(y: Array, loc: Array, scale: Array) -> Array:
    x = fnp.log(y)
    return _normal_log_prob(x, loc, scale) - x


def _lognormal_cdf(y: Array, loc: Array, scale: Array) -> Array:
    return _normal_cdf(fnp.log(y), loc, scale)


def _lognormal_icdf(p: Array, loc: Array, scale: Array) -> Array:
    return fnp.exp(_normal_icdf(p, loc, scale))


def _uniform_log_prob(x: Array, low: Array, high: Array) -> Array:
    inside = ((low <= x) & (high > x)).astype(low.dtype)
    return fnp.log(inside) - fnp.log(high - low)


def _uniform_cdf(x: Array, low: Array, high: Array) -> Array:
    return fnp.clip((x - low) / (high - low), 0, 1)


def _exponential_log_prob(x: Array, rate: Array) -> Array:
    return fnp.log(rate) - rate * x


def _exponential_cdf(x: Array, rate: Array) -> Array:
    return 1 - fnp.exp(-rate * x)


def _exponential_icdf(p: Array, rate: Array) -> Array:
    return -fnp.log1p(-p) / rate


def _laplace_log_prob(x: Array, loc: Array, scale: Array) -> Array:
    return -fnp.log(2 * scale) - fnp.abs(x - loc) / scale


def _laplace_cdf(x: Array, loc: Array, scale: Array) -> Array:
    return 0.5 - 0.5 * fnp.sign(x - loc) * fnp.expm1(-fnp.abs(x - loc) / scale)


def _laplace_icdf(p: Array, loc: Array, scale: Array) -> Array:
    t = p - 0.5
    return loc - scale * fnp.sign(t) * fnp.log1p(-2 * fnp.abs(t))


def _cauchy_log_prob(x: Array, loc: Array, scale: Array) -> Array:
    return -math.log(math.pi) - fnp.log(scale) - fnp.log1p(((x - loc) / scale) ** 2)


def _cauchy_cdf(x: Array, loc: Array, scale: Array) -> Array:
    return fnp.arctan((x - loc) / scale) / math.pi + 0.5


def _cauchy_icdf(p: Array, loc: Array, scale: Array) -> Array:
    return fnp.tan(math.pi * (p - 0.5)) * scale + loc


def _gamma_log_prob(x: Array, conc: Array, rate: Array) -> Array:
    return (fsp.xlogy(conc, rate) + fsp.xlogy(conc - 1, x) - rate * x - fsp.gammaln(conc))


def _gamma_cdf(x: Array, conc: Array, rate: Array) -> Array:
    return fsp.gammainc(conc, rate * x)


def _gamma_entropy(conc: Array, rate: Array) -> Array:
    return conc - fnp.log(rate) + fsp.gammaln(conc) + (1.0 - conc) * fsp.digamma(conc)


def _gamma_mode(conc: Array, rate: Array) -> Array:
    return fnp.clip((conc - 1) / rate, 0, None)


def _standard_gamma_rep(x: Array, conc: Array) -> Array:
    """``x`` (a draw of Gamma(conc, 1)) with the implicit derivative in ``conc``."""
    cdf = fsp.gammainc(conc, x)
    logpdf = fsp.xlogy(conc - 1, x) - x - fsp.gammaln(conc)
    return x - (cdf - P.stop_gradient(cdf)) / P.stop_gradient(fnp.exp(logpdf))


def _dirichlet_log_prob(x: Array, conc: Array) -> Array:
    return (fnp.sum(fsp.xlogy(conc - 1.0, x), axis=-1) + fsp.gammaln(fnp.sum(conc, axis=-1))
            - fnp.sum(fsp.gammaln(conc), axis=-1))


def _dirichlet_entropy(conc: Array) -> Array:
    k = conc.shape[-1]
    a0 = fnp.sum(conc, axis=-1)
    return (fnp.sum(fsp.gammaln(conc), axis=-1) - fsp.gammaln(a0) - (k - a0) * fsp.digamma(a0)
            - fnp.sum((conc - 1.0) * fsp.digamma(conc), axis=-1))


def _dirichlet_mean(conc: Array) -> Array:
    return conc / fnp.sum(conc, axis=-1, keepdims=True)


def _dirichlet_variance(conc: Array) -> Array:
    c0 = fnp.sum(conc, axis=-1, keepdims=True)
    return conc * (c0 - conc) / (c0 ** 2 * (c0 + 1))


def _dirichlet_mode(conc: Array) -> Array:
    m1 = fnp.clip(conc - 1, 0, None)
    mode = m1 / fnp.sum(m1, axis=-1, keepdims=True)
    below = fnp.all(conc < 1, axis=-1, keepdims=True)
    hot = (fnp.arange(conc.shape[-1]) == fnp.argmax(mode, axis=-1)[..., None])
    return fnp.where(below, hot.astype(mode.dtype), mode)


def _normalize_last(g: Array) -> Array:
    return g / fnp.sum(g, axis=-1, keepdims=True)


# ---- distributions ----------------------------------------------------------------------

class _Elementwise(Distribution):
    """A distribution of independent scalars whose parameters broadcast together
    (``_names``); ``log_prob``/``cdf``/``icdf`` are the compositions ``_log_prob``,
    ``_cdf``, ``_icdf`` of ``(value, *parameters)`` (``None``: not defined)."""
    _names: tuple[str, ...] = ()
    _log_prob: Callable[..., Array] | None = None
    _cdf: Callable[..., Array] | None = None
    _icdf: Callable[..., Array] | None = None

    def _setup(self, values: tuple[Tensor | float, ...], validate_args: bool | None) -> None:
        ts = broadcast_all(*values)
        for n, t in zip(self._names, ts):
            setattr(self, n, t)
        batch = Size() if all(isinstance(v, numbers.Number) for v in values) else ts[0].size()
        Distribution.__init__(self, batch, validate_args=validate_args)

    def _expand_names(self) -> list[str]:
        return list(self._names)

    def _apply(self, fn: Callable[..., Array] | None, value: Tensor) -> Tensor:
        if fn is None:
            raise NotImplementedError
        return apply(fn, value, *[getattr(self, n) for n in self._names])

    def log_prob(self, value: Tensor) -> Tensor:
        self._maybe_validate(value)
        return self._apply(self._log_prob, value)

    def cdf(self, value: Tensor) -> Tensor:
        self._maybe_validate(value)
        return self._apply(self._cdf, value)

    def icdf(self, value: Tensor) -> Tensor:
        return self._apply(self._icdf, value)


class Normal(_Elementwise):
    """The normal distribution (``torch.distributions.Normal``).

    Parameters
    ----------
    loc : float or Tensor
        The location (broadcasts against ``scale``).
    scale : float or Tensor
        The scale, positive.
    validate_args : bool or None, optional
        Check the parameters (and ``log_prob``'s values) against the constraints;
        None: the class default.
    """
    loc: Tensor
    scale: Tensor
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _names = ("loc", "scale")
    _log_prob, _cdf = staticmethod(_normal_log_prob), staticmethod(_normal_cdf)
    _icdf = staticmethod(_normal_icdf)

    def __init__(self, loc: Tensor | float, scale: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self._setup((loc, scale), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2)

    def rsample(self, sample_shape: SizeLike = Size()) -> Tensor:
        eps = _draw(self, sample_shape, lambda g, s: g.standard_normal(s), self.loc)
        return self.loc + eps * self.scale

    def entropy(self) -> Tensor:
        return apply(_normal_entropy, self.scale)


class LogNormal(_Elementwise):
    """The log-normal distribution (``torch.distributions.LogNormal``).

    ``exp`` of ``Normal(loc, scale)``.  PyTorch's is a ``TransformedDistribution``;
    this one is not, ``base_dist`` is its ``Normal``.

    Parameters
    ----------
    loc : float or Tensor
        The mean of ``log(X)``.
    scale : float or Tensor
        The standard deviation of ``log(X)``, positive.
    validate_args : bool or None, optional
        Check the parameters (and ``log_prob``'s values) against the constraints;
        None: the class default.
    """
    loc: Tensor
    scale: Tensor
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True
    _names = ("loc", "scale")
    _log_prob, _cdf = staticmethod(_lognormal_log_prob), staticmethod(_lognormal_cdf)
    _icdf = staticmethod(_lognormal_icdf)

    def __init__(self, loc: Tensor | float, scale: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self._setup((loc, scale), validate_args)

    @property
    def base_dist(self) -> Normal:
        """The ``Normal(loc, scale)`` whose ``exp`` this distribution is."""
        return Normal(self.loc, self.scale, validate_args=False)

    @property
    def mean(self) -> Tensor:
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Tensor:
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self) -> Tensor:
        return ((self.scale.pow(2).exp() - 1)
                * (2 * self.loc + self.scale.pow(2)).exp())

    def rsample(self, sample_shape: SizeLike = Size()) -> Tensor:
        return self.base_dist.rsample(sample_shape).exp()

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() + self.loc


class Uniform(_Elementwise):
    """The uniform distribution on ``[low, high)`` (``torch.distributions.Uniform``).

    Parameters
    ----------
    low : float or Tensor
        The lower bound (inclusive).
    high : float or Tensor
        The upper bound (exclusive), ``> low``.
    validate_args : bool or None, optional
        Check the parameters (and ``log_prob``'s values) against the constraints;
        None: the class default.
    """
    low: Tensor
    high: Tensor
    arg_constraints = {"low": constraints.dependent(is_discrete=False, event_dim=0),
                       "high": constraints.dependent(is_discrete=False, event_dim=0)}
    has_rsample = True
    _names = ("low", "high")
    _log_prob, _cdf = staticmethod(_uniform_log_prob), staticmethod(_uniform_cdf)

    def __init__(self, low: Tensor | float, high: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self._setup((low, high), validate_args)
        if self._validate_args and isinstance(self.low._data, np.ndarray) and not bool(
                np.all(np.asarray(self.low._data) < np.asarray(self.high._data))):
            raise ValueError("Uniform is not defined when low>= high")

    @property
    def support(self) -> constraints.Constraint:
        return constraints.half_open_interval(self.low, self.high)

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        return self.high * float("nan")

    @property
    def stddev(self) -> Tensor:
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape: SizeLike = Size()) -> Tensor:
        u = _draw(self, sample_shape, lambda g, s: g.random(s), self.low)
        return self.low + u * (self.high - self.low)

    def icdf(self, value: Tensor) -> Tensor:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()


class Exponential(_Elementwise):
    """The exponential distribution (``torch.distributions.Exponential``).

    Parameters
    ----------
    rate : float or Tensor
        The rate ``1 / mean``, positive.
    validate_args : bool or None, optional
        Check the parameters (and ``log_prob``'s values) against the constraints;
        None: the class default.
    """
    rate: Tensor
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _names = ("rate",)
    _log_prob, _cdf = staticmethod(_exponential_log_prob), staticmethod(_exponential_cdf)
    _icdf = staticmethod(_exponential_icdf)

    def __init__(self, rate: Tensor | float, validate_args: bool | None = None) -> None:
        self._setup((rate,), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        return zeros_like(self.rate)

    @property
    def stddev(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.pow(-2)

    def rsample(self, sample_shape: SizeLike = Size()) -> Tensor:
        e = _draw(self, sample_shape, lambda g, s: g.standard_exponential(s), self.rate)
        return e / self.rate

    def entropy(self) -> Tensor:
        return 1.0 - self.rate.log()


class Laplace(_Elementwise):
    """The Laplace distribution (``torch.distributions.Laplace``).

    Parameters
    ----------
    loc : float or Tensor
        The location (broadcasts against ``scale``).
    scale : float or Tensor
        The scale, positive.
    validate_args : bool or None, optional
        Check the parameters (and ``log_prob``'s values) against the constraints;
        None: the class default.
    """
    loc: Tensor
    scale: Tensor
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _names = ("loc", "scale")
    _log_prob, _cdf = staticmethod(_laplace_log_prob), staticmethod(_laplace_cdf)
    _icdf = staticmethod(_laplace_icdf)

    def __init__(self, loc: Tensor | float, scale: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self._setup((loc, scale), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return 2 ** 0.5 * self.scale

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale.pow(2)

    def rsample(self, sample_shape: SizeLike = Size()) -> Tensor:
        eps = float(np.finfo(self.loc.dtype.np).eps)
        u = _draw(self, sample_shape, lambda g, s: g.uniform(eps - 1, 1, s), self.loc)
        return self.loc - self.scale * u.sign() * O.log1p(-u.abs())

    def entropy(self) -> Tensor:
        return 1 + (2 * self.scale).log()


class Cauchy(_Elementwise):
    """The Cauchy distribution (``torch.distributions.Cauchy``).

    Parameters
    ----------
    loc : float or Tensor
        The location (broadcasts against ``scale``).
    scale : float or Tensor
        The scale, positive.
    validate_args : bool or None, optional
        Check the parameters (and ``log_prob``'s values) against the constraints;
        None: the class default.
    """
    loc: Tensor
    scale: Tensor
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _names = ("loc", "scale")
    _log_prob, _cdf = staticmethod(_cauchy_log_prob), staticmethod(_cauchy_cdf)
    _icdf = staticmethod(_cauchy_icdf)

    def __init__(self, loc: Tensor | float, scale: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self._setup((loc, scale), validate_args)

    @property
    def mean(self) -> Tensor:
        return full(tuple(self._extended_shape()), float("nan"), dtype=self.loc.dtype)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return full(tuple(self._extended_shape()), float("inf"), dtype=self.loc.dtype)

    def rsample(self, sample_shape: SizeLike = Size()) -> Tensor:
        eps = _draw(self, sample_shape, lambda g, s: g.standard_cauchy(s), self.loc)
        return self.loc + eps * self.scale

    def entropy(self) -> Tensor:
        return math.log(4 * math.pi) + self.scale.log()


def _standard_gamma(conc: Tensor, shape: Shape) -> Tensor:
    """Draws of Gamma(conc, 1) of ``shape`` (``conc`` broadcast), differentiable in
    ``conc`` (implicit reparameterization)."""
    c = np.broadcast_to(np.asarray(conc._data), shape)
    tiny = float(np.finfo(conc.dtype.np).tiny)
    x = _make_plain(np.maximum(_gen(None).standard_gamma(c), tiny).astype(conc.dtype.np))
    return apply(_standard_gamma_rep, x, conc.expand(shape))


class Gamma(_Elementwise):
    """The gamma distribution (``torch.distributions.Gamma``).

    ``icdf`` is not defined (as in PyTorch).  ``rsample`` draws with NumPy at the
    concentration's value, so (unlike ``log_prob``) it does not run under ``compat.func``
    transforms of the concentration.

    Parameters
    ----------
    concentration : float or Tensor
        The shape ``alpha``, positive.
    rate : float or Tensor
        The rate ``beta`` (``1 / scale``), positive.
    validate_args : bool or None, optional
        Check the parameters (and ``log_prob``'s values) against the constraints;
        None: the class default.
    """
    concentration: Tensor
    rate: Tensor
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _names = ("concentration", "rate")
    _log_prob, _cdf = staticmethod(_gamma_log_prob), staticmethod(_gamma_cdf)

    def __init__(self, concentration: Tensor | float, rate: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self._setup((concentration, rate), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    @property
    def mode(self) -> Tensor:
        return apply(_gamma_mode, self.concentration, self.rate)

    def rsample(self, sample_shape: SizeLike = Size()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        return _standard_gamma(self.concentration, shape) / self.rate.expand(shape)

    def entropy(self) -> Tensor:
        return apply(_gamma_entropy, self.concentration, self.rate)


class Chi2(Gamma):
    """The chi-squared distribution ``Gamma(df / 2, 1 / 2)`` (``torch.distributions.Chi2``).

    Parameters
    ----------
    df : float or Tensor
        The degrees of freedom, positive.
    validate_args : bool or None, optional
        Check the parameters (and ``log_prob``'s values) against the constraints;
        None: the class default.
    """
    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Tensor | float, validate_args: bool | None = None) -> None:
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    @property
    def df(self) -> Tensor:
        """The degrees of freedom, ``2 * concentration``."""
        return self.concentration * 2


class Dirichlet(Distribution):
    """The Dirichlet distribution (``torch.distributions.Dirichlet``).

    Parameters
    ----------
    concentration : Tensor
        Shape ``batch_shape + (k,)``, positive; the event shape is ``(k,)``.
    validate_args : bool or None, optional
        Check the parameters (and ``log_prob``'s values) against the constraints;
        None: the class default.
    """
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if not isinstance(concentration, Tensor) or concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        shape = tuple(concentration.shape)
        super().__init__(shape[:-1], shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape: SizeLike, _instance: Distribution | None = None
               ) -> Distribution:
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = Size(tuple(batch_shape))
        new.concentration = self.concentration.expand(tuple(batch_shape)
                                                      + tuple(self.event_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape: SizeLike = Size()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        return apply(_normalize_last, _standard_gamma(self.concentration, shape))

    def log_prob(self, value: Tensor) -> Tensor:
        self._maybe_validate(value)
        return apply(_dirichlet_log_prob, value, self.concentration)

    @property
    def mean(self) -> Tensor:
        return apply(_dirichlet_mean, self.concentration)

    @property
    def mode(self) -> Tensor:
        return apply(_dirichlet_mode, self.concentration)

    @property
    def variance(self) -> Tensor:
        return apply(_dirichlet_variance, self.concentration)

    def entropy(self) -> Tensor:
        return apply(_dirichlet_entropy, self.concentration)


class Beta(Distribution):
    """The beta distribution (``torch.distributions.Beta``).

    A two-category ``Dirichlet`` underneath, as PyTorch's.

    Parameters
    ----------
    concentration1 : float or Tensor
        ``alpha``, positive.
    concentration0 : float or Tensor
        ``beta``, positive.
    validate_args : bool or None, optional
        Check the parameters (and ``log_prob``'s values) against the constraints;
        None: the class default.
    """
    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Tensor | float, concentration0: Tensor | float,
                 validate_args: bool | None = None) -> None:
        if isinstance(concentration1, numbers.Number) and isinstance(concentration0,
                                                                     numbers.Number):
            c = tensor([float(concentration1), float(concentration0)],
                       dtype=D.get_default_dtype())
        else:
            c1, c0 = broadcast_all(concentration1, concentration0)
            c = O.stack([c1, c0], -1)
        self._dirichlet = Dirichlet(c, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: SizeLike, _instance: Distribution | None = None
               ) -> Distribution:
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = Size(tuple(batch_shape))
        new._dirichlet = self._dirichlet.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def concentration1(self) -> Tensor:
        """``alpha``, of shape ``batch_shape``."""
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> Tensor:
        """``beta``, of shape ``batch_shape``."""
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self) -> Tensor:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Tensor:
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> Tensor:
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape: SizeLike = Size()) -> Tensor:
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value: Tensor) -> Tensor:
        self._maybe_validate(value)
        heads_tails = O.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self) -> Tensor:
        return self._dirichlet.entropy()
