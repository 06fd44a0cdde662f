"""``torch.distributions.kl``: ``kl_divergence(p, q)`` dispatched on the pair of types
(the most specific registered match, PyTorch's rule and ``RuntimeWarning`` on ambiguity)
and ``register_kl``.  The standard pairs are ftrans compositions of PyTorch's closed forms
(:func:`.utils.apply`), differentiable in both distributions' parameters."""
from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import numpy as fnp
from ...typing import Array
from ...scipy import special as fsp
from ...scipy import linalg as fsl
from .._tensor import Tensor
from .continuous import (Beta, Cauchy, Dirichlet, Exponential, Gamma, Laplace, LogNormal,
                         Normal, Uniform)
from .discrete import (Bernoulli, Categorical, Geometric, OneHotCategorical, Poisson,
                       _geometric_entropy)
from .distribution import Distribution
from .independent import Independent
from .multivariate_normal import MultivariateNormal, _half_log_det, _mahalanobis
from .utils import apply, sum_rightmost

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY: dict[tuple[type, type], Callable[[Any, Any], Tensor]] = {}
_KL_MEMOIZE: dict[tuple[type, type], Any] = {}


_KLFun = Callable[[Any, Any], Tensor]


def register_kl(type_p: type[Distribution], type_q: type[Distribution]
                ) -> Callable[[_KLFun], _KLFun]:
    """Register a KL divergence for a pair of types (``torch.distributions.kl.register_kl``).

    :func:`kl_divergence` dispatches to the most specific registered pair (PyTorch's
    rule; a ``RuntimeWarning`` where two matches are equally specific).

    Parameters
    ----------
    type_p, type_q : type
        Subclasses of :class:`Distribution`.

    Returns
    -------
    Callable
        A decorator that registers ``fun(p, q) -> Tensor`` and returns it unchanged.

    Raises
    ------
    TypeError
        If ``type_p`` or ``type_q`` is not a ``Distribution`` subclass.
    """
    for t in (type_p, type_q):
        if not (isinstance(t, type) and issubclass(t, Distribution)):
            raise TypeError(f"Expected a Distribution subclass but got {t}")

    def decorator(fun: _KLFun) -> _KLFun:
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()
        return fun
    return decorator


@functools.total_ordering
class _Match:
    __slots__ = ["types"]

    def __init__(self, *types: type) -> None:
        self.types = types

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Match) and self.types == other.types

    def __le__(self, other: _Match) -> bool:
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p: type, type_q: type) -> Any:
    matches = [(sp, sq) for sp, sq in _KL_REGISTRY
               if issubclass(type_p, sp) and issubclass(type_q, sq)]
    if not matches:
        return NotImplemented
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left_fun, right_fun = _KL_REGISTRY[left_p, left_q], _KL_REGISTRY[right_p, right_q]
    if left_fun is not right_fun:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})",
                      RuntimeWarning, stacklevel=2)
    return left_fun


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """The Kullback-Leibler divergence ``KL(p || q)`` (``torch.distributions.kl_divergence``).

    Parameters
    ----------
    p, q : Distribution
        Distributions of broadcastable batch shapes.

    Returns
    -------
    Tensor
        Of shape ``batch_shape``; differentiable in both distributions' parameters.

    Raises
    ------
    NotImplementedError
        For a pair of types with no registered formula (:func:`register_kl`).

    Examples
    --------
    >>> import ftrans.compat as torch
    >>> from ftrans.compat.distributions import Normal, kl_divergence
    >>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0))
    tensor(0.5000)
    """
    key = (type(p), type(q))
    fun = _KL_MEMOIZE.get(key)
    if fun is None:
        fun = _KL_MEMOIZE[key] = _dispatch_kl(*key)
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type "
                                  f"{p.__class__.__name__} and q type {q.__class__.__name__}")
    return fun(p, q)


# ---- compositions ------------------------------------------------------------------------

def _kl_normal(pl: Array, ps: Array, ql: Array, qs: Array) -> Array:
    var_ratio = (ps / qs) ** 2
    t1 = ((pl - ql) / qs) ** 2
    return 0.5 * (var_ratio + t1 - 1 - fnp.log(var_ratio))


def _kl_bernoulli(pp: Array, plg: Array, qp: Array, qlg: Array) -> Array:
    t1 = pp * (fsp.softplus(-qlg) - fsp.softplus(-plg))
    t1 = fnp.where(qp == 0, np.inf, t1)
    t1 = fnp.where(pp == 0, 0.0, t1)
    t2 = (1 - pp) * (fsp.softplus(qlg) - fsp.softplus(plg))
    t2 = fnp.where(qp == 1, np.inf, t2)
    t2 = fnp.where(pp == 1, 0.0, t2)
    return t1 + t2


def _kl_categorical(pp: Array, plg: Array, qp: Array, qlg: Array) -> Array:
    t = pp * (plg - qlg)
    t = fnp.where(fnp.broadcast_to(qp == 0, t.shape), np.inf, t)
    t = fnp.where(fnp.broadcast_to(pp == 0, t.shape), 0.0, t)
    return fnp.sum(t, axis=-1)


def _kl_beta(p1: Array, p0: Array, q1: Array, q0: Array) -> Array:
    sp, sq = p1 + p0, q1 + q0
    t1 = fsp.gammaln(q1) + fsp.gammaln(q0) + fsp.gammaln(sp)
    t2 = fsp.gammaln(p1) + fsp.gammaln(p0) + fsp.gammaln(sq)
    t3 = (p1 - q1) * fsp.digamma(p1)
    t4 = (p0 - q0) * fsp.digamma(p0)
    t5 = (sq - sp) * fsp.digamma(sp)
    return t1 - t2 + t3 + t4 + t5


def _kl_gamma(pc: Array, pr: Array, qc: Array, qr: Array) -> Array:
    t1 = qc * fnp.log(pr / qr)
    t2 = fsp.gammaln(qc) - fsp.gammaln(pc)
    t3 = (pc - qc) * fsp.digamma(pc)
    t4 = (qr - pr) * (pc / pr)
    return t1 + t2 + t3 + t4


def _kl_dirichlet(pc: Array, qc: Array) -> Array:
    sp, sq = fnp.sum(pc, axis=-1), fnp.sum(qc, axis=-1)
    t1 = fsp.gammaln(sp) - fsp.gammaln(sq)
    t2 = fnp.sum(fsp.gammaln(pc) - fsp.gammaln(qc), axis=-1)
    t3 = pc - qc
    t4 = fsp.digamma(pc) - fsp.digamma(sp)[..., None]
    return t1 - t2 + fnp.sum(t3 * t4, axis=-1)


def _kl_uniform(pl: Array, ph: Array, ql: Array, qh: Array) -> Array:
    r = fnp.log((qh - ql) / (ph - pl))
    return fnp.where((ql > pl) | (qh < ph), np.inf, r)


def _kl_exponential(pr: Array, qr: Array) -> Array:
    ratio = qr / pr
    return -fnp.log(ratio) + ratio - 1


def _kl_laplace(pl: Array, ps: Array, ql: Array, qs: Array) -> Array:
    scale_ratio = ps / qs
    diff = fnp.abs(pl - ql)
    return -fnp.log(scale_ratio) + diff / qs + scale_ratio * fnp.exp(-diff / ps) - 1


def _kl_poisson(pr: Array, qr: Array) -> Array:
    return pr * (fnp.log(pr) - fnp.log(qr)) - (pr - qr)


def _kl_cauchy(pl: Array, ps: Array, ql: Array, qs: Array) -> Array:
    return fnp.log((ps + qs) ** 2 + (pl - ql) ** 2) - fnp.log(4 * ps * qs)


def _kl_geometric(plg: Array, pp: Array, qlg: Array, qp: Array) -> Array:
    return -_geometric_entropy(plg, pp) - fnp.log1p(-qp) / pp - qlg


def _kl_mvn(pl: Array, ptril: Array, ql: Array, qtril: Array) -> Array:
    n = pl.shape[-1]
    half_term1 = _half_log_det(qtril) - _half_log_det(ptril)
    batch = np.broadcast_shapes(ptril.shape[:-2], qtril.shape[:-2], pl.shape[:-1],
                                ql.shape[:-1])
    qt = fnp.broadcast_to(qtril, batch + (n, n))
    pt = fnp.broadcast_to(ptril, batch + (n, n))
    x = fsl.solve_triangular(qt, pt, lower=True)
    term2 = fnp.sum(x * x, axis=(-2, -1))
    term3 = _mahalanobis(qtril, ql - pl)
    return half_term1 + 0.5 * (term2 + term3 - n)


# ---- registered pairs ----------------------------------------------------------------------

@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    return apply(_kl_normal, p.loc, p.scale, q.loc, q.scale)


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p: LogNormal, q: LogNormal) -> Tensor:
    return apply(_kl_normal, p.loc, p.scale, q.loc, q.scale)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    return apply(_kl_bernoulli, p.probs, p.logits, q.probs, q.logits)


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    return apply(_kl_categorical, p.probs, p.logits, q.probs, q.logits)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Tensor:
    return apply(_kl_beta, p.concentration1, p.concentration0, q.concentration1,
                 q.concentration0)


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    return apply(_kl_gamma, p.concentration, p.rate, q.concentration, q.rate)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    return apply(_kl_dirichlet, p.concentration, q.concentration)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    return apply(_kl_uniform, p.low, p.high, q.low, q.high)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    return apply(_kl_exponential, p.rate, q.rate)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    return apply(_kl_laplace, p.loc, p.scale, q.loc, q.scale)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Tensor:
    return apply(_kl_poisson, p.rate, q.rate)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p: Cauchy, q: Cauchy) -> Tensor:
    return apply(_kl_cauchy, p.loc, p.scale, q.loc, q.scale)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric) -> Tensor:
    return apply(_kl_geometric, p.logits, p.probs, q.logits, q.probs)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p: MultivariateNormal, q: MultivariateNormal
                                              ) -> Tensor:
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different "
                         "event shapes cannot be computed")
    return apply(_kl_mvn, p.loc, p._unbroadcasted_scale_tril, q.loc,
                 q._unbroadcasted_scale_tril)


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    result = kl_divergence(p.base_dist, q.base_dist)
    return sum_rightmost(result, p.reinterpreted_batch_ndims)
