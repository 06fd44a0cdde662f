"""``torch.distributions.MultivariateNormal``: parameterized by ``covariance_matrix``,
``precision_matrix`` or ``scale_tril``; the Cholesky factor, the triangular solves and the
log-determinant are ftrans compositions (``ftrans.numpy.linalg.cholesky``,
``ftrans.scipy.linalg.solve_triangular``)."""
from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor, Size
from ..types import SizeLike
from ... import numpy as fnp
from ...typing import Array
from ...scipy import linalg as fsl
from . import constraints
from .continuous import _draw
from .distribution import Distribution
from .utils import apply

__all__ = ["MultivariateNormal"]

_LOG_2PI = math.log(2 * math.pi)


def _cholesky(cov: Array) -> Array:
    return fnp.linalg.cholesky(cov)


def _precision_to_scale_tril(prec: Array) -> Array:
    lf = fnp.linalg.cholesky(fnp.flip(prec, (-2, -1)))
    l_inv = fnp.swapaxes(fnp.flip(lf, (-2, -1)), -2, -1)
    eye = fnp.broadcast_to(fnp.eye(prec.shape[-1], dtype=prec.dtype), l_inv.shape)
    return fsl.solve_triangular(l_inv, eye, lower=True)


def _covariance(tril: Array) -> Array:
    return tril @ fnp.swapaxes(tril, -1, -2)


def _precision(tril: Array) -> Array:
    eye = fnp.broadcast_to(fnp.eye(tril.shape[-1], dtype=tril.dtype), tril.shape)
    inv = fsl.solve_triangular(tril, eye, lower=True)
    return fnp.swapaxes(inv, -1, -2) @ inv


def _half_log_det(tril: Array) -> Array:
    return fnp.sum(fnp.log(fnp.diagonal(tril, axis1=-2, axis2=-1)), axis=-1)


def _mahalanobis(tril: Array, diff: Array) -> Array:
    """``|L^{-1} diff|^2`` over the last axis (``tril`` broadcast against ``diff``)."""
    batch = np.broadcast_shapes(tril.shape[:-2], diff.shape[:-1])
    n = tril.shape[-1]
    t = fnp.broadcast_to(tril, batch + (n, n))
    d = fnp.broadcast_to(diff, batch + (n,))[..., None]
    y = fsl.solve_triangular(t, d, lower=True)[..., 0]
    return fnp.sum(y * y, axis=-1)


def _mvn_log_prob(x: Array, loc: Array, tril: Array) -> Array:
    m = _mahalanobis(tril, x - loc)
    return -0.5 * (tril.shape[-1] * _LOG_2PI + m) - _half_log_det(tril)


def _mvn_entropy(tril: Array) -> Array:
    return 0.5 * tril.shape[-1] * (1.0 + _LOG_2PI) + _half_log_det(tril)


def _mvn_variance(tril: Array) -> Array:
    return fnp.sum(tril ** 2, axis=-1)


def _scale_matvec(tril: Array, eps: Array) -> Array:
    return (tril @ eps[..., None])[..., 0]


class MultivariateNormal(Distribution):
    """The multivariate normal distribution (``torch.distributions.MultivariateNormal``).

    Parameters
    ----------
    loc : Tensor
        The mean, shape ``batch_shape + (n,)``.
    covariance_matrix : Tensor, optional
        Positive definite, ``(..., n, n)``; give exactly one of the three matrices.
    precision_matrix : Tensor, optional
        The inverse covariance, positive definite.
    scale_tril : Tensor, optional
        The lower Cholesky factor of the covariance (positive diagonal).
    validate_args : bool or None, optional
        Check the parameters (and ``log_prob``'s values) against the constraints;
        None: the class default.
    """
    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True
    _derived_params = ("covariance_matrix", "precision_matrix", "scale_tril")

    def __init__(self, loc: Tensor, covariance_matrix: Tensor | None = None,
                 precision_matrix: Tensor | None = None, scale_tril: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        if not isinstance(loc, Tensor) or loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [(n, m) for n, m in (("scale_tril", scale_tril),
                                     ("covariance_matrix", covariance_matrix),
                                     ("precision_matrix", precision_matrix)) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        name, mat = given[0]
        if mat.dim() < 2:
            raise ValueError(f"{name} matrix must be at least two-dimensional, with "
                             "optional leading batch dimensions" if name == "scale_tril"
                             else f"{name} must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        batch = tuple(np.broadcast_shapes(tuple(mat.shape[:-2]), tuple(loc.shape[:-1])))
        setattr(self, name, mat.expand(batch + tuple(mat.shape[-2:])))
        self.loc = loc.expand(batch + tuple(loc.shape[-1:]))
        super().__init__(batch, tuple(self.loc.shape[-1:]), validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = mat
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = apply(_cholesky, mat)
        else:
            self._unbroadcasted_scale_tril = apply(_precision_to_scale_tril, mat)

    def expand(self, batch_shape: SizeLike, _instance: Distribution | None = None
               ) -> Distribution:
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = tuple(batch_shape)
        loc_shape = batch_shape + tuple(self.event_shape)
        cov_shape = loc_shape + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for n in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if n in self.__dict__:
                setattr(new, n, self.__dict__[n].expand(cov_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _mat_shape(self) -> tuple[int, ...]:
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @property
    def scale_tril(self) -> Tensor:
        """The lower Cholesky factor of the covariance, ``(..., n, n)``."""
        if "scale_tril" in self.__dict__:
            return self.__dict__["scale_tril"]
        return self._unbroadcasted_scale_tril.expand(self._mat_shape())

    @scale_tril.setter
    def scale_tril(self, v: Tensor) -> None:
        self.__dict__["scale_tril"] = v

    @property
    def covariance_matrix(self) -> Tensor:
        """The covariance matrix, ``(..., n, n)``."""
        if "covariance_matrix" in self.__dict__:
            return self.__dict__["covariance_matrix"]
        return apply(_covariance, self._unbroadcasted_scale_tril).expand(self._mat_shape())

    @covariance_matrix.setter
    def covariance_matrix(self, v: Tensor) -> None:
        self.__dict__["covariance_matrix"] = v

    @property
    def precision_matrix(self) -> Tensor:
        """The inverse of the covariance matrix, ``(..., n, n)``."""
        if "precision_matrix" in self.__dict__:
            return self.__dict__["precision_matrix"]
        return apply(_precision, self._unbroadcasted_scale_tril).expand(self._mat_shape())

    @precision_matrix.setter
    def precision_matrix(self, v: Tensor) -> None:
        self.__dict__["precision_matrix"] = v

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return apply(_mvn_variance, self._unbroadcasted_scale_tril).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape: SizeLike = Size()) -> Tensor:
        eps = _draw(self, sample_shape, lambda g, s: g.standard_normal(s), self.loc)
        return self.loc + apply(_scale_matvec, self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value: Tensor) -> Tensor:
        self._maybe_validate(value)
        return apply(_mvn_log_prob, value, self.loc, self._unbroadcasted_scale_tril)

    def entropy(self) -> Tensor:
        h = apply(_mvn_entropy, self._unbroadcasted_scale_tril)
        return h.expand(tuple(self._batch_shape)) if len(self._batch_shape) else h
