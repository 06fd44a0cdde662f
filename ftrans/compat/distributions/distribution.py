"""``torch.distributions.Distribution``: shapes, validation, sampling shapes and ``expand``."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor, Size
from ..autograd.grad_mode import no_grad
from . import constraints
from .utils import lazy_property, size

__all__ = ["Distribution"]


class Distribution:
    """``torch.distributions.Distribution``: the base of the distributions (batch and event
    shapes, argument and support validation -- on by default, PyTorch's ``ValueError``s --,
    ``sample``/``rsample``/``sample_n``, ``expand``, ``perplexity``)."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__
    arg_constraints: dict = {}
    _derived_params: tuple = ()   # parameters computed from the given one (not validated)

    @staticmethod
    def set_default_validate_args(value):
        """Turn validation on or off for distributions created afterwards."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=Size(), event_shape=Size(), validate_args=None):
        self._batch_shape = size(batch_shape)
        self._event_shape = size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            for param, constraint in self.arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if param not in self.__dict__ and (
                        param in self._derived_params
                        or isinstance(getattr(type(self), param, None), lazy_property)):
                    continue
                value = getattr(self, param)
                if not isinstance(getattr(value, "_data", None), np.ndarray):
                    continue   # traced under compat.func: not checked
                if not bool(np.all(np.asarray(constraint.check(value)._data))):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape "
                        f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                        f"constraint {constraint!r}, but found invalid values:\n{value}")

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def support(self):
        raise NotImplementedError

    def expand(self, batch_shape, _instance=None):
        """A view of this distribution with a larger batch shape (parameters expanded, no
        copy); ``_instance`` as PyTorch's (subclasses pass their new instance)."""
        batch_shape = size(batch_shape)
        new = self._get_checked_instance(type(self), _instance)
        n = len(self.batch_shape)
        for name in self._expand_names():
            v = self.__dict__.get(name)
            if isinstance(v, Tensor):
                setattr(new, name, v.expand(tuple(batch_shape) + tuple(v.shape[n:])))
        for k, v in self.__dict__.items():
            if k not in new.__dict__ and not isinstance(getattr(type(self), k, None),
                                                        lazy_property):
                new.__dict__[k] = v
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self.__dict__.get("_validate_args", type(self)._validate_args)
        return new

    def _expand_names(self):
        return [k for k in self.arg_constraints if k in self.__dict__]

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=Size()):
        """A sample (outside the graph) of shape ``sample_shape + batch_shape +
        event_shape``."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size()):
        """A reparameterized sample (gradients flow to the parameters);
        ``NotImplementedError`` where ``has_rsample`` is False."""
        raise NotImplementedError(f"{type(self).__name__} has no reparameterized sample "
                                  "(has_rsample=False)")

    def sample_n(self, n):
        return self.sample(Size((n,)))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return self.entropy().exp()

    def _extended_shape(self, sample_shape=Size()):
        return Size(tuple(size(sample_shape)) + tuple(self._batch_shape)
                    + tuple(self._event_shape))

    def _validate_sample(self, value):
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.shape) - len(self._event_shape)
        if tuple(value.shape[event_dim_start:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        actual = value.size()
        expected = tuple(self._batch_shape) + tuple(self._event_shape)
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual} vs {Size(expected)}.")
        try:
            support = self.support
        except NotImplementedError:
            return
        if not isinstance(value._data, np.ndarray):
            return
        if not bool(np.all(np.asarray(support.check(value)._data))):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}")

    def _maybe_validate(self, value):
        if self._validate_args:
            self._validate_sample(value)

    def __repr__(self):
        def show(v):
            if v.numel() != 1:
                return v.size()
            return v.item() if v.dim() == 0 else v
        names = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(f"{p}: {show(self.__dict__[p])}" for p in names)
        return self.__class__.__name__ + "(" + args + ")"

