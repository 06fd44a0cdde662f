"""Discrete distributions of ``torch.distributions``: ``Bernoulli``, ``Categorical``,
``OneHotCategorical``, ``Poisson``, ``Binomial`` (``probs`` or ``logits``, computed from
each other on first use as PyTorch's ``lazy_property``).  ``rsample`` raises
``NotImplementedError`` (``has_rsample=False``), as in PyTorch."""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .._factories import _gen, arange, full_like, zeros_like
from .._tensor import Size, Tensor, _make_plain
from ..types import SizeLike
from ..autograd.grad_mode import no_grad
from ... import numpy as fnp
from ...typing import Array
from ...scipy import special as fsp
from .. import _sampling
from . import constraints
from .distribution import Distribution
from .utils import (apply, broadcast_all, lazy_property, logits_to_probs, probs_to_logits,
                    size)

__all__ = ["Bernoulli", "Categorical", "OneHotCategorical", "Poisson", "Binomial",
           "Geometric"]


def _bernoulli_log_prob(logits: Array, x: Array) -> Array:
    return x * logits - fsp.softplus(logits)


def _bernoulli_entropy(logits: Array, probs: Array) -> Array:
    return fsp.softplus(logits) - logits * probs


def _geometric_log_prob(x: Array, probs: Array) -> Array:
    safe = fnp.where((probs == 1) & (x == 0), 0.0, probs)
    return x * fnp.log1p(-safe) + fnp.log(probs)


def _geometric_entropy(logits: Array, probs: Array) -> Array:
    return _bernoulli_entropy(logits, probs) / probs


def _categorical_log_prob(logits: Array, idx: Array) -> Array:
    idx = idx[..., None]
    shape = np.broadcast_shapes(idx.shape, logits.shape)
    lp = fnp.broadcast_to(logits, shape)
    ix = fnp.broadcast_to(idx, shape[:-1] + (1,))
    return fnp.take_along_axis(lp, ix, axis=-1)[..., 0]


def _categorical_entropy(logits: Array, probs: Array) -> Array:
    lo = fnp.clip(logits, float(np.finfo(np.dtype(logits.dtype)).min), None)
    return -fnp.sum(lo * probs, axis=-1)


def _poisson_log_prob(x: Array, rate: Array) -> Array:
    return fsp.xlogy(x, rate) - rate - fsp.gammaln(x + 1)


def _clamp_by_zero(x: Array) -> Array:
    return (fnp.clip(x, 0, None) + x - fnp.clip(x, None, 0)) / 2


def _binomial_log_prob(x: Array, n: Array, logits: Array) -> Array:
    log_fact_n = fsp.gammaln(n + 1)
    log_fact_k = fsp.gammaln(x + 1)
    log_fact_nmk = fsp.gammaln(n - x + 1)
    norm = (n * _clamp_by_zero(logits) + n * fnp.log1p(fnp.exp(-fnp.abs(logits)))
            - log_fact_n)
    return x * logits - log_fact_k - log_fact_nmk - norm


def _binomial_mode(n: Array, probs: Array) -> Array:
    return fnp.minimum(fnp.floor((n + 1) * probs), n)


def _probs_or_logits(probs: Any, logits: Any) -> None:
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


class _ProbsLogits(Distribution):
    """Parameterized by ``probs`` or ``logits`` (the other computed on first use);
    ``_binary``: logits of one event (sigmoid) or of the last dimension (softmax)."""
    _binary = True

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=self._binary)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=self._binary)

    @property
    def param_shape(self) -> Size:
        """The shape of the given parameter (``probs`` or ``logits``)."""
        return self._param.size()

    def _init_scalar(self, probs: Tensor | float | None, logits: Tensor | float | None,
                     validate_args: bool | None) -> None:
        """``__init__`` of a distribution of independent scalars given ``probs`` or
        ``logits`` (numbers or tensors)."""
        _probs_or_logits(probs, logits)
        param = probs if probs is not None else logits
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            assert logits is not None          # (_probs_or_logits checked it)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch = Size() if isinstance(param, numbers.Number) else self._param.size()
        Distribution.__init__(self, batch, validate_args=validate_args)

    def _expanded(self, cls: type, batch_shape: SizeLike, _instance: Distribution | None,
                  tail: tuple[int, ...] = ()) -> Any:
        """The new instance of ``expand``: the given parameters expanded to ``batch_shape
        + tail`` (``total_count`` to ``batch_shape``)."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = size(batch_shape)
        for n in ("probs", "logits", "total_count"):
            if n in self.__dict__:
                v = self.__dict__[n].expand(tuple(batch_shape)
                                            + (() if n == "total_count" else tail))
                setattr(new, n, v)
                if self.__dict__[n] is self._param:
                    new._param = v
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new


class Bernoulli(_ProbsLogits):
    """The Bernoulli distribution (``torch.distributions.Bernoulli``).

    Parameters
    ----------
    probs : float or Tensor, optional
        The probability of 1 (give ``probs`` or ``logits``).
    logits : float or Tensor, optional
        The log-odds of 1.
    validate_args : bool or None, optional
        Check the parameters (and ``log_prob``'s values) against the constraints;
        None: the class default.
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs: Tensor | float | None = None,
                 logits: Tensor | float | None = None,
                 validate_args: bool | None = None) -> None:
        self._init_scalar(probs, logits, validate_args)

    def expand(self, batch_shape: SizeLike, _instance: Distribution | None = None
               ) -> Distribution:
        return self._expanded(Bernoulli, batch_shape, _instance)

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    @property
    def mode(self) -> Tensor:
        p = np.asarray(self.probs._data)     # (outside the graph, as PyTorch's)
        return _make_plain(np.where(p == 0.5, np.nan, p >= 0.5).astype(p.dtype))

    def sample(self, sample_shape: SizeLike = Size()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        with no_grad():
            return _sampling.bernoulli(self.probs.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        self._maybe_validate(value)
        logits, value = broadcast_all(self.logits, value)
        return apply(_bernoulli_log_prob, logits, value)

    def entropy(self) -> Tensor:
        return apply(_bernoulli_entropy, self.logits, self.probs)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = arange(2, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values


class Categorical(_ProbsLogits):
    """The categorical distribution over the last dimension (``torch.distributions.Categorical``).

    Parameters
    ----------
    probs : Tensor, optional
        Non-negative weights of shape ``batch_shape + (n,)``, normalized to
        sum to 1 (give ``probs`` or ``logits``).
    logits : Tensor, optional
        Unnormalized log-probabilities, normalized to log-sum-exp 0.
    validate_args : bool or None, optional
        Check the parameters (and ``log_prob``'s values) against the constraints;
        None: the class default.
    """
    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    has_enumerate_support = True
    _binary = False

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        _probs_or_logits(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            assert logits is not None          # (_probs_or_logits checked it)
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch = self._param.size()[:-1] if self._param.dim() > 1 else Size()
        super().__init__(batch, validate_args=validate_args)

    def expand(self, batch_shape: SizeLike, _instance: Distribution | None = None
               ) -> Distribution:
        new = self._expanded(Categorical, batch_shape, _instance, (self._num_events,))
        new._num_events = self._num_events
        return new

    @property
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def mean(self) -> Tensor:
        """Undefined: nan, of shape ``batch_shape`` (also ``variance``, as PyTorch's)."""
        return full_like(self.probs[..., 0], float("nan"))

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(-1)

    variance = mean

    def sample(self, sample_shape: SizeLike = Size()) -> Tensor:
        sample_shape = size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        n = int(np.prod(tuple(sample_shape), dtype=np.int64))
        with no_grad():
            s2d = _sampling.multinomial(probs_2d, n, True).T if n else None
        if s2d is None:
            return _make_plain(np.zeros(tuple(self._extended_shape(sample_shape)), np.int64))
        return s2d.reshape(tuple(self._extended_shape(sample_shape)))

    def log_prob(self, value: Tensor) -> Tensor:
        self._maybe_validate(value)
        return apply(_categorical_log_prob, self.logits, value.long())

    def entropy(self) -> Tensor:
        return apply(_categorical_entropy, self.logits, self.probs)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = arange(self._num_events)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values


class OneHotCategorical(Distribution):
    """The categorical distribution as one-hot vectors (``torch.distributions.OneHotCategorical``).

    Parameters
    ----------
    probs : Tensor, optional
        Weights of shape ``batch_shape + (n,)`` (give ``probs`` or ``logits``);
        the event shape is ``(n,)``.
    logits : Tensor, optional
        Unnormalized log-probabilities.
    validate_args : bool or None, optional
        Check the parameters (and ``log_prob``'s values) against the constraints;
        None: the class default.
    """
    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        param = self._categorical._param
        super().__init__(self._categorical.batch_shape, tuple(param.shape[-1:]),
                         validate_args=validate_args)

    def expand(self, batch_shape: SizeLike, _instance: Distribution | None = None
               ) -> Distribution:
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _param(self) -> Tensor:
        return self._categorical._param

    @property
    def probs(self) -> Tensor:
        """The event probabilities, shape ``batch_shape + (n,)``."""
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        """The normalized log-probabilities, shape ``batch_shape + (n,)``."""
        return self._categorical.logits

    @property
    def mean(self) -> Tensor:
        return self._categorical.probs

    @property
    def variance(self) -> Tensor:
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self) -> Size:
        """The shape of the given parameter (``probs`` or ``logits``)."""
        return self._categorical.param_shape

    @property
    def mode(self) -> Tensor:
        probs = self._categorical.probs
        idx = np.asarray(probs.argmax(-1)._data)
        n = probs.shape[-1]
        return _make_plain((np.arange(n) == idx[..., None]).astype(probs.dtype.np))

    def sample(self, sample_shape: SizeLike = Size()) -> Tensor:
        sample_shape = size(sample_shape)
        probs = self._categorical.probs
        idx = np.asarray(self._categorical.sample(sample_shape)._data)
        n = self._categorical._num_events
        return _make_plain((np.arange(n) == idx[..., None]).astype(probs.dtype.np))

    def log_prob(self, value: Tensor) -> Tensor:
        self._maybe_validate(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self.event_shape[0]
        values = _make_plain(np.eye(n, dtype=self._param.dtype.np))
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + tuple(self.batch_shape) + (n,))
        return values


class Poisson(Distribution):
    """The Poisson distribution (``torch.distributions.Poisson``).

    Parameters
    ----------
    rate : float or Tensor
        The rate (mean), non-negative.
    validate_args : bool or None, optional
        Check the parameters (and ``log_prob``'s values) against the constraints;
        None: the class default.
    """
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Tensor | float, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        batch = Size() if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(batch, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, sample_shape: SizeLike = Size()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        with no_grad():
            return _sampling.poisson(self.rate.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        self._maybe_validate(value)
        rate, value = broadcast_all(self.rate, value)
        return apply(_poisson_log_prob, value, rate)


class Binomial(_ProbsLogits):
    """The binomial distribution (``torch.distributions.Binomial``).

    ``entropy``/``enumerate_support`` need a homogeneous ``total_count``, as PyTorch's.

    Parameters
    ----------
    total_count : int or Tensor, optional
        The number of trials (1 by default).
    probs : float or Tensor, optional
        The success probability (give ``probs`` or ``logits``).
    logits : float or Tensor, optional
        The log-odds of success.
    validate_args : bool or None, optional
        Check the parameters (and ``log_prob``'s values) against the constraints;
        None: the class default.
    """
    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count: Tensor | int = 1, probs: Tensor | float | None = None,
                 logits: Tensor | float | None = None,
                 validate_args: bool | None = None) -> None:
        _probs_or_logits(probs, logits)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            assert logits is not None          # (_probs_or_logits checked it)
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: SizeLike, _instance: Distribution | None = None
               ) -> Distribution:
        return self._expanded(Binomial, batch_shape, _instance)

    @property
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    @property
    def mode(self) -> Tensor:
        return apply(_binomial_mode, self.total_count, self.probs)

    def sample(self, sample_shape: SizeLike = Size()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        n = np.broadcast_to(np.asarray(self.total_count._data), shape).astype(np.int64)
        p = np.broadcast_to(np.asarray(self.probs._data), shape)
        return _make_plain(_gen(None).binomial(n, p).astype(self.probs.dtype.np))

    def log_prob(self, value: Tensor) -> Tensor:
        self._maybe_validate(value)
        return apply(_binomial_log_prob, value, self.total_count, self.logits)

    def entropy(self) -> Tensor:
        n = np.asarray(self.total_count._data)
        total = int(n.max()) if n.size else 0
        if n.size and int(n.min()) != total:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = np.asarray(self.total_count._data)
        total = int(n.max()) if n.size else 0
        if n.size and int(n.min()) != total:
            raise NotImplementedError("Inhomogeneous total count not supported by "
                                      "`enumerate_support`.")
        values = arange(1 + total, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values



class Geometric(_ProbsLogits):
    """The geometric distribution (``torch.distributions.Geometric``).

    The number of failures before the first success (0, 1, 2, ...).

    Parameters
    ----------
    probs : float or Tensor, optional
        The success probability, in (0, 1] (give ``probs`` or ``logits``).
    logits : float or Tensor, optional
        The log-odds of success.
    validate_args : bool or None, optional
        Check the parameters (and ``log_prob``'s values) against the constraints;
        None: the class default.
    """
    arg_constraints = {"probs": constraints.interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs: Tensor | float | None = None,
                 logits: Tensor | float | None = None,
                 validate_args: bool | None = None) -> None:
        self._init_scalar(probs, logits, validate_args)
        if self._validate_args and probs is not None and isinstance(self.probs._data,
                                                                    np.ndarray):
            p = np.asarray(self.probs._data)
            if not bool(np.all(p > 0)):
                raise ValueError(f"Expected parameter probs ({type(self.probs).__name__} of "
                                 f"shape {tuple(self.probs.shape)}) of distribution {self!r} "
                                 f"to be positive but found invalid values:\n{p[~(p > 0)]}")

    def expand(self, batch_shape: SizeLike, _instance: Distribution | None = None
               ) -> Distribution:
        return self._expanded(Geometric, batch_shape, _instance)

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Tensor:
        return zeros_like(self.probs)

    @property
    def variance(self) -> Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape: SizeLike = Size()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        p = np.broadcast_to(np.asarray(self.probs._data), shape)
        tiny = float(np.finfo(p.dtype).tiny)
        u = _gen(None).uniform(tiny, 1, shape)
        with np.errstate(divide="ignore"):
            return _make_plain(np.floor(np.log(u) / np.log1p(-p)).astype(p.dtype))

    def log_prob(self, value: Tensor) -> Tensor:
        self._maybe_validate(value)
        value, probs = broadcast_all(value, self.probs)
        return apply(_geometric_log_prob, value, probs)

    def entropy(self) -> Tensor:
        return apply(_geometric_entropy, self.logits, self.probs)
