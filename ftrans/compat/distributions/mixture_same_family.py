"""``torch.distributions.MixtureSameFamily``: a mixture whose components are the last
batch dimension of one distribution, weighted by a ``Categorical``."""
from __future__ import annotations

import numpy as np

from .. import _ops as O
from .._tensor import Size, Tensor, _make_plain
from ..types import SizeLike
from ..autograd.grad_mode import no_grad
from . import constraints
from .discrete import Categorical
from .distribution import Distribution
from .utils import size

__all__ = ["MixtureSameFamily"]


class _MixtureSupport(constraints.Constraint):
    """The component support, checked on the value before it is padded."""

    def __init__(self, base: constraints.Constraint) -> None:
        self.base_constraint = base
        self.is_discrete, self.event_dim = base.is_discrete, base.event_dim

    def _ok(self, a: np.ndarray) -> np.ndarray | np.bool_:
        return np.asarray(self.base_constraint.check(np.expand_dims(
            a, -1 - self.event_dim))._data).all(-1)


class MixtureSameFamily(Distribution):
    """A mixture over a distribution's last batch dimension (torch's ``MixtureSameFamily``).

    ``log_prob`` is the log-sum-exp of the components' log-densities plus the
    mixture's log-weights.

    Parameters
    ----------
    mixture_distribution : Categorical
        The mixture weights over the ``k`` components.
    component_distribution : Distribution
        The components, batch shape ``... + (k,)``.
    validate_args : bool or None, optional
        Check the parameters (and ``log_prob``'s values) against the constraints;
        None: the class default.
    """
    arg_constraints: dict[str, constraints.Constraint] = {}
    has_rsample = False

    def __init__(self, mixture_distribution: Categorical,
                 component_distribution: Distribution,
                 validate_args: bool | None = None) -> None:
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of "
                             "torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "torch.distributions.Distribution")
        mdbs = mixture_distribution.batch_shape
        cdbs = component_distribution.batch_shape[:-1]
        for s1, s2 in zip(reversed(mdbs), reversed(cdbs)):
            if s1 != 1 and s2 != 1 and s1 != s2:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mdbs}) is not "
                                 f"compatible with `component_distribution.batch_shape`"
                                 f"({cdbs})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(cdbs, component_distribution.event_shape, validate_args=validate_args)

    def expand(self, batch_shape: SizeLike, _instance: Distribution | None = None
               ) -> Distribution:
        batch_shape = size(batch_shape)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(
            tuple(batch_shape) + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        Distribution.__init__(new, batch_shape, new._component_distribution.event_shape,
                              validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def support(self) -> constraints.Constraint:
        return _MixtureSupport(self._component_distribution.support)

    @property
    def mixture_distribution(self) -> Categorical:
        """The ``Categorical`` mixture weights."""
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        """The component distribution."""
        return self._component_distribution

    def _pad(self, x: Tensor) -> Tensor:
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x: Tensor) -> Tensor:
        dist_batch_ndims = len(self.batch_shape)
        cat_batch_ndims = len(self.mixture_distribution.batch_shape)
        pad = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        xs = tuple(x.shape)
        return x.reshape(xs[:-1] + (1,) * pad + xs[-1:] + (1,) * self._event_ndims)

    @property
    def mean(self) -> Tensor:
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return (probs * self.component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self) -> Tensor:
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        comp = self.component_distribution
        mean_cond_var = (probs * comp.variance).sum(-1 - self._event_ndims)
        var_cond_mean = (probs * (comp.mean - self._pad(self.mean)).pow(2.0)).sum(
            -1 - self._event_ndims)
        return mean_cond_var + var_cond_mean

    def cdf(self, x: Tensor) -> Tensor:
        """The mixture's CDF: the components' CDFs weighted by the mixture probabilities.

        Parameters
        ----------
        x : Tensor
            Points broadcasting against ``batch_shape``.

        Returns
        -------
        Tensor
            ``P(X <= x)``, of the broadcast shape.
        """
        cdf_x = self.component_distribution.cdf(self._pad(x))
        return (cdf_x * self.mixture_distribution.probs).sum(-1)

    def log_prob(self, x: Tensor) -> Tensor:
        """The log-density of the mixture at ``x``.

        Parameters
        ----------
        x : Tensor
            Points of shape ``... + event_shape`` broadcasting against ``batch_shape``.

        Returns
        -------
        Tensor
            ``logsumexp(component log_prob + log mixture weights)`` over the components.
        """
        self._maybe_validate(x)
        log_prob_x = self.component_distribution.log_prob(self._pad(x))
        log_mix_prob = O.log_softmax(self.mixture_distribution.logits, -1)
        return O.logsumexp(log_prob_x + log_mix_prob, -1)

    def sample(self, sample_shape: SizeLike = Size()) -> Tensor:
        sample_shape = size(sample_shape)
        with no_grad():
            gather_dim = len(sample_shape) + len(self.batch_shape)
            mix = np.asarray(self.mixture_distribution.sample(sample_shape)._data)
            comp = np.asarray(self.component_distribution.sample(sample_shape)._data)
            idx = mix.reshape(mix.shape + (1,) * (self._event_ndims + 1))
            idx = np.broadcast_to(idx, mix.shape + (1,) + tuple(self.event_shape))
            out = np.take_along_axis(comp, idx, axis=gather_dim)
            return _make_plain(np.squeeze(out, gather_dim))

    def __repr__(self) -> str:
        return (f"MixtureSameFamily(\n  {self.mixture_distribution},\n  "
                f"{self.component_distribution})")
