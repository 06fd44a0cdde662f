"""``torch.distributions.constraints``: the supports and parameter constraints of the
distributions (``check(value)`` gives a bool tensor, as PyTorch's)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._tensor import Tensor, _make_plain

__all__ = ["Constraint", "boolean", "real", "real_vector", "positive", "nonnegative",
           "unit_interval", "simplex", "nonnegative_integer", "positive_definite",
           "lower_cholesky", "greater_than", "greater_than_eq", "interval",
           "half_open_interval", "integer_interval", "independent", "dependent",
           "is_dependent", "one_hot", "square", "symmetric"]


def _arr(v: Any) -> np.ndarray:
    return np.asarray(v._data) if isinstance(v, Tensor) else np.asarray(v)


class Constraint:
    """``torch.distributions.constraints.Constraint``: ``check(value)`` is a bool tensor
    of the batch shape (``_ok`` reduces the last ``event_dim`` dimensions)."""
    is_discrete = False
    event_dim = 0

    def _ok(self, a: np.ndarray) -> np.ndarray | np.bool_:
        raise NotImplementedError

    def check(self, value: Any) -> Tensor:
        """Whether each value satisfies the constraint.

        Parameters
        ----------
        value : Tensor or array_like
            Values of shape ``batch_shape + event_shape``.

        Returns
        -------
        Tensor
            Bool, of ``value``'s shape without the last ``event_dim`` dimensions.
        """
        return _make_plain(np.asarray(self._ok(_arr(value)), np.bool_))

    def __repr__(self) -> str:
        return self.__class__.__name__[1:] + "()"


class _Dependent(Constraint):
    def __init__(self, *, is_discrete: bool = False, event_dim: int = 0) -> None:
        self.is_discrete, self.event_dim = is_discrete, event_dim

    def __call__(self, *, is_discrete: bool = False, event_dim: int = 0) -> _Dependent:
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, value: Any) -> Tensor:
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint: Constraint) -> bool:
    """Whether ``constraint`` depends on other parameters (``constraints.is_dependent``).

    Parameters
    ----------
    constraint : Constraint
        A constraint.

    Returns
    -------
    bool
        True for ``constraints.dependent`` (and its instances).
    """
    return isinstance(constraint, _Dependent)


class _Fn(Constraint):
    def __init__(self, fn: Callable[[np.ndarray], np.ndarray], name: str,
                 is_discrete: bool = False, event_dim: int = 0) -> None:
        self._fn, self._name = fn, name
        self.is_discrete, self.event_dim = is_discrete, event_dim

    def _ok(self, a: np.ndarray) -> np.ndarray:
        return self._fn(a)

    def __repr__(self) -> str:
        return self._name


class _Bound(Constraint):
    def __init__(self, lo: Any = None, hi: Any = None, lo_open: bool = False,
                 hi_open: bool = False, integer: bool = False, name: str = "Interval") -> None:
        self.lower_bound, self.upper_bound = lo, hi
        self._lo_open, self._hi_open, self.is_discrete = lo_open, hi_open, integer
        self._name = name

    def _ok(self, a: np.ndarray) -> np.ndarray:
        ok = np.ones(a.shape, np.bool_)
        if self.is_discrete:
            ok = ok & (a % 1 == 0)
        if self.lower_bound is not None:
            lo = _arr(self.lower_bound)
            ok = ok & ((a > lo) if self._lo_open else (a >= lo))
        if self.upper_bound is not None:
            hi = _arr(self.upper_bound)
            ok = ok & ((a < hi) if self._hi_open else (a <= hi))
        return ok

    def __repr__(self) -> str:
        return f"{self._name}(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _Independent(Constraint):
    def __init__(self, base: Constraint, reinterpreted_batch_ndims: int) -> None:
        self.base_constraint = base
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        self.is_discrete = base.is_discrete
        self.event_dim = base.event_dim + reinterpreted_batch_ndims

    def _ok(self, a: np.ndarray) -> np.ndarray:
        ok = np.asarray(self.base_constraint.check(a)._data)
        for _ in range(self.reinterpreted_batch_ndims):
            ok = np.asarray(ok.all(-1))
        return ok

    def check(self, value: Any) -> Tensor:
        return _make_plain(np.asarray(self._ok(_arr(value)), np.bool_))


def _simplex(a: np.ndarray) -> np.ndarray:
    return np.all(a >= 0, -1) & (np.abs(a.sum(-1) - 1) < 1e-6)


def _lower_cholesky(a: np.ndarray) -> np.ndarray:
    tril = np.all(np.isclose(np.tril(a), a) | (np.tril(a) == a), axis=(-2, -1))
    return tril & np.all(np.diagonal(a, axis1=-2, axis2=-1) > 0, -1)


def _positive_definite(a: np.ndarray) -> np.ndarray:
    sym = np.all(np.isclose(a, np.swapaxes(a, -1, -2), atol=1e-6), axis=(-2, -1))
    try:
        pd = np.linalg.eigvalsh(a).min(-1) > 0
    except np.linalg.LinAlgError:
        return np.zeros(a.shape[:-2], np.bool_)
    return sym & pd


def _square(a: np.ndarray) -> np.ndarray:
    return np.full(a.shape[:-2], a.shape[-1] == a.shape[-2], np.bool_)


def _symmetric(a: np.ndarray) -> np.ndarray:
    return _square(a) & np.all(np.isclose(a, np.swapaxes(a, -1, -2), atol=1e-6), axis=(-2, -1))


dependent = _Dependent()
boolean = _Fn(lambda a: (a == 0) | (a == 1), "Boolean()", is_discrete=True)
real = _Fn(lambda a: a == a, "Real()")
real_vector = _Independent(real, 1)
positive = _Bound(0.0, lo_open=True, name="GreaterThan")
nonnegative = _Bound(0.0, name="GreaterThanEq")
unit_interval = _Bound(0.0, 1.0)
nonnegative_integer = _Bound(0, integer=True, name="IntegerGreaterThan")
simplex = _Fn(_simplex, "Simplex()", event_dim=1)
one_hot = _Fn(lambda a: ((a == 0) | (a == 1)).all(-1) & (a.sum(-1) == 1), "OneHot()",
              is_discrete=True, event_dim=1)
positive_definite = _Fn(_positive_definite, "PositiveDefinite()", event_dim=2)
lower_cholesky = _Fn(_lower_cholesky, "LowerCholesky()", event_dim=2)
square = _Fn(_square, "Square()", event_dim=2)
symmetric = _Fn(_symmetric, "Symmetric()", event_dim=2)
independent = _Independent


def greater_than(lower_bound: Any) -> Constraint:
    """Values ``> lower_bound`` (``constraints.greater_than``).

    Parameters
    ----------
    lower_bound : float or Tensor
        The (exclusive) bound.

    Returns
    -------
    Constraint
        The constraint.
    """
    return _Bound(lower_bound, lo_open=True, name="GreaterThan")


def greater_than_eq(lower_bound: Any) -> Constraint:
    """Values ``>= lower_bound`` (``constraints.greater_than_eq``).

    Parameters
    ----------
    lower_bound : float or Tensor
        The (inclusive) bound.

    Returns
    -------
    Constraint
        The constraint.
    """
    return _Bound(lower_bound, name="GreaterThanEq")


def interval(lower_bound: Any, upper_bound: Any) -> Constraint:
    """Values in ``[lower_bound, upper_bound]`` (``constraints.interval``).

    Parameters
    ----------
    lower_bound, upper_bound : float or Tensor
        The (inclusive) bounds.

    Returns
    -------
    Constraint
        The constraint.
    """
    return _Bound(lower_bound, upper_bound)


def half_open_interval(lower_bound: Any, upper_bound: Any) -> Constraint:
    """Values in ``[lower_bound, upper_bound)`` (``constraints.half_open_interval``).

    Parameters
    ----------
    lower_bound, upper_bound : float or Tensor
        The inclusive lower and exclusive upper bound.

    Returns
    -------
    Constraint
        The constraint.
    """
    return _Bound(lower_bound, upper_bound, hi_open=True, name="HalfOpenInterval")


def integer_interval(lower_bound: Any, upper_bound: Any) -> Constraint:
    """Integers in ``[lower_bound, upper_bound]`` (``constraints.integer_interval``).

    Parameters
    ----------
    lower_bound, upper_bound : int or Tensor
        The (inclusive) bounds.

    Returns
    -------
    Constraint
        The constraint.
    """
    return _Bound(lower_bound, upper_bound, integer=True, name="IntegerInterval")
