"""``torch.distributions.Distribution``: shapes, validation, sampling shapes and ``expand``."""
from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor, Size
from ..types import SizeLike
from ..autograd.grad_mode import no_grad
from . import constraints
from .utils import lazy_property, size

__all__ = ["Distribution"]


def _doc_source(cls: type, name: str) -> Any:
    """The function whose docstring documents ``name`` on ``cls``'s bases."""
    for base in cls.__mro__[1:]:
        v = base.__dict__.get(name)
        fn = v.fget if isinstance(v, property) else getattr(v, "__func__", v)
        if callable(fn) and getattr(fn, "__doc__", None):
            return fn
    return None


class Distribution:
    """``torch.distributions.Distribution``: the base of the distributions.

    Batch and event shapes, argument and support validation (on by default, PyTorch's
    ``ValueError``), ``sample``/``rsample``/``sample_n``, ``expand``, ``perplexity``.
    A subclass's override of a public method or property without a docstring of its own
    shows the base's (set once, when the subclass is created).

    Parameters
    ----------
    batch_shape : torch.Size or sequence of int, optional
        The shape over which the parameters are batched; ``()`` by default.
    event_shape : torch.Size or sequence of int, optional
        The shape of a single draw; ``()`` (scalar events) by default.
    validate_args : bool or None, optional
        Check the parameters against ``arg_constraints`` (and ``log_prob``'s values
        against ``support``); None keeps the class default
        (:meth:`set_default_validate_args`).

    Raises
    ------
    ValueError
        With validation on, if a parameter violates its constraint.
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__
    arg_constraints: dict[str, constraints.Constraint] = {}
    _derived_params: tuple[str, ...] = ()   # parameters computed from the given one

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, v in list(cls.__dict__.items()):
            fn = v.fget if isinstance(v, property) else getattr(v, "__func__", v)
            if name.startswith("_") or not callable(fn) or getattr(fn, "__doc__", None):
                continue
            src = _doc_source(cls, name)
            if src is not None and getattr(fn, "__qualname__", "").startswith(cls.__name__):
                fn.__doc__ = src.__doc__
                if isinstance(v, property):
                    v.__doc__ = src.__doc__     # (a property copies its getter's at creation)

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn validation on or off for distributions created afterwards.

        Parameters
        ----------
        value : bool
            The new default of ``validate_args``.

        Raises
        ------
        ValueError
            If ``value`` is not a bool.
        """
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape: SizeLike = Size(), event_shape: SizeLike = Size(),
                 validate_args: bool | None = None) -> None:
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
    def batch_shape(self) -> Size:
        """The shape over which the parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        """The shape of a single draw."""
        return self._event_shape

    @property
    def support(self) -> constraints.Constraint:
        """The constraint that the values of the distribution satisfy."""
        raise NotImplementedError

    def expand(self, batch_shape: SizeLike, _instance: Distribution | None = None
               ) -> Distribution:
        """A view of this distribution with a larger batch shape (parameters expanded, no copy).

        Parameters
        ----------
        batch_shape : torch.Size or sequence of int
            The new batch shape; the current one must broadcast to it.
        _instance : Distribution, optional
            The new instance (subclasses that define ``__init__`` pass theirs, as
            PyTorch's).

        Returns
        -------
        Distribution
            A distribution of the same type with batch shape ``batch_shape``.

        Raises
        ------
        NotImplementedError
            For a subclass with its own ``__init__`` that does not override ``expand``.
        """
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

    def _expand_names(self) -> list[str]:
        return [k for k in self.arg_constraints if k in self.__dict__]

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        if _instance is None and type(self).__init__ != cls.__init__:  # type: ignore[misc]
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    @property
    def mean(self) -> Tensor:
        """The mean, of shape ``batch_shape + event_shape``."""
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        """The mode, of shape ``batch_shape + event_shape``."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        """The variance, of shape ``batch_shape + event_shape``."""
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        """The standard deviation, of shape ``batch_shape + event_shape``."""
        return self.variance.sqrt()

    def sample(self, sample_shape: SizeLike = Size()) -> Tensor:
        """A sample drawn outside the autograd graph.

        Parameters
        ----------
        sample_shape : torch.Size or sequence of int, optional
            The number of independent draws, as a shape; ``()`` by default.

        Returns
        -------
        Tensor
            Shape ``sample_shape + batch_shape + event_shape``; no gradient.
        """
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: SizeLike = Size()) -> Tensor:
        """A reparameterized sample: gradients flow to the parameters.

        Parameters
        ----------
        sample_shape : torch.Size or sequence of int, optional
            The number of independent draws, as a shape; ``()`` by default.

        Returns
        -------
        Tensor
            Shape ``sample_shape + batch_shape + event_shape``.

        Raises
        ------
        NotImplementedError
            Where ``has_rsample`` is False.
        """
        raise NotImplementedError(f"{type(self).__name__} has no reparameterized sample "
                                  "(has_rsample=False)")

    def sample_n(self, n: int) -> Tensor:
        """``n`` draws: ``sample((n,))`` (deprecated in PyTorch).

        Parameters
        ----------
        n : int
            The number of draws.

        Returns
        -------
        Tensor
            Shape ``(n,) + batch_shape + event_shape``.
        """
        return self.sample(Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        """The log of the probability density (mass, for discrete ones) at ``value``.

        Parameters
        ----------
        value : Tensor
            Points of shape ``... + event_shape`` broadcasting against ``batch_shape``.

        Returns
        -------
        Tensor
            The broadcast shape without ``event_shape``; differentiable in the
            parameters (and in ``value`` for continuous distributions).

        Raises
        ------
        ValueError
            With validation on, for a value of the wrong shape or outside the support.
        """
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function at ``value``.

        Parameters
        ----------
        value : Tensor
            Points broadcasting against ``batch_shape``.

        Returns
        -------
        Tensor
            ``P(X <= value)``, of the broadcast shape.
        """
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        """The inverse cumulative distribution function (quantile) at ``value``.

        Parameters
        ----------
        value : Tensor
            Probabilities in [0, 1] broadcasting against ``batch_shape``.

        Returns
        -------
        Tensor
            The quantiles, of the broadcast shape.
        """
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """All the values of a discrete distribution's support.

        Parameters
        ----------
        expand : bool, optional
            Expand the result over ``batch_shape`` (True by default); otherwise the
            batch dimensions have size 1.

        Returns
        -------
        Tensor
            Shape ``(n,) + batch_shape + event_shape`` (``n`` the number of values).
        """
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy (in nats).

        Returns
        -------
        Tensor
            Of shape ``batch_shape``.
        """
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        """The perplexity, ``exp(entropy())``.

        Returns
        -------
        Tensor
            Of shape ``batch_shape``.
        """
        return self.entropy().exp()

    def _extended_shape(self, sample_shape: SizeLike = Size()) -> Size:
        return Size(tuple(size(sample_shape)) + tuple(self._batch_shape)
                    + tuple(self._event_shape))

    def _validate_sample(self, value: Tensor) -> None:
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

    def _maybe_validate(self, value: Tensor) -> None:
        if self._validate_args:
            self._validate_sample(value)

    def __repr__(self) -> str:
        def show(v: Tensor) -> Any:
            if v.numel() != 1:
                return v.size()
            return v.item() if v.dim() == 0 else v
        names = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(f"{p}: {show(self.__dict__[p])}" for p in names)
        return self.__class__.__name__ + "(" + args + ")"

