"""``scipy.stats.multivariate_normal``: ``logpdf``/``pdf`` of the multivariate normal,
differentiable in ``x``, ``mean`` and ``cov`` (a composition of ``cholesky`` and a
triangular solve).

``logpdf = -|L^{-1}(x - mean)|^2 / 2 - sum(log diag L) - d/2 log(2 pi)`` with
``L = cholesky((cov + cov^T)/2)`` (Murray 2016's Cholesky derivative; the symmetrization
gives the same value for a symmetric ``cov`` and a symmetric gradient, as JAX's).

Shapes: ``x`` is ``(..., d)`` (the last axis holds the components) and the result is
``(...)``; ``mean`` is ``(..., d)`` (default zeros); ``cov`` is a scalar (``cov * I``), a
1-D vector (the diagonal, as SciPy) or ``(..., d, d)`` (batched as ``jax.scipy.stats``).
A scalar ``mean`` with a scalar ``cov`` is the univariate normal of variance ``cov``.

>>> import numpy as np, ftrans.scipy.stats as fst
>>> round(float(fst.multivariate_normal.logpdf(np.zeros(2), np.zeros(2), np.eye(2))), 12)
-1.837877066409
"""
from __future__ import annotations

import math

import numpy as np

from ... import numpy as fnp
from ...primitives._linalg_solve import triangular_solve
from ...typing import Array, ArrayLike
from ._util import promote

__all__ = ["logpdf", "pdf"]

_LOG2PI = math.log(2 * math.pi)


def _quad_logdet(diff: Array, cov: Array) -> tuple[Array, Array]:
    """``(|L^{-1} diff|^2, log det cov)`` for ``cov`` of ``(..., d, d)``."""
    cov = 0.5 * (cov + fnp.swapaxes(cov, -1, -2))
    chol = fnp.linalg.cholesky(cov)
    logdet = 2.0 * fnp.sum(fnp.log(fnp.diagonal(chol, axis1=-2, axis2=-1)), axis=-1)
    d = diff.shape[-1]
    if cov.ndim == 2:
        flat = fnp.reshape(diff, (-1, d))
        y = triangular_solve(chol, fnp.transpose(flat), True)        # (d, m)
        quad = fnp.reshape(fnp.sum(y * y, axis=0), diff.shape[:-1])
    else:
        batch = np.broadcast_shapes(diff.shape[:-1], cov.shape[:-2])
        b = fnp.broadcast_to(diff, batch + (d,))[..., None]
        y = triangular_solve(fnp.broadcast_to(chol, batch + (d, d)), b, True)
        quad = fnp.sum(y[..., 0] ** 2, axis=-1)
    return quad, logdet


def logpdf(x: ArrayLike, mean: ArrayLike | None = None, cov: ArrayLike = 1,
           allow_singular: bool = False) -> Array:
    """Log of the probability density of ``scipy.stats.multivariate_normal``.

    Parameters
    ----------
    x : array_like, shape (..., d)
        Points (the last axis holds the components).
    mean : array_like, shape (..., d), optional
        Mean (default zeros).
    cov : array_like, scalar, shape (d,) or (..., d, d), optional
        Covariance: ``cov * I``, the diagonal, or the (symmetric positive definite) matrix.
    allow_singular : bool
        Only ``False`` (SciPy's pseudo-inverse path is not provided).

    Returns
    -------
    Array
        Shape ``(...)``.

    Raises
    ------
    NotImplementedError
        For ``allow_singular=True``.
    ValueError
        When the shapes of ``x``, ``mean`` and ``cov`` disagree; ``numpy.linalg.LinAlgError``
        when ``cov`` is not positive definite.

    References
    ----------
    SciPy's and JAX's ``multivariate_normal.logpdf``; I. Murray, "Differentiation of the
    Cholesky decomposition", 2016.
    """
    if allow_singular:
        raise NotImplementedError("multivariate_normal.logpdf: allow_singular=True is not "
                                  "supported (singular covariances need SciPy's "
                                  "pseudo-inverse); pass a positive definite cov")
    if mean is None:
        xa, ca = promote("multivariate_normal.logpdf", x, cov)
        ma = fnp.zeros(xa.shape[-1:] if xa.ndim else (), xa.dtype)
    else:
        xa, ma, ca = promote("multivariate_normal.logpdf", x, mean, cov)
    if ma.ndim == 0 and ca.ndim == 0:          # univariate (SciPy: x holds points)
        diff = xa - ma
        return -0.5 * (diff * diff / ca + _LOG2PI + fnp.log(ca))
    d = ma.shape[-1] if ma.ndim else xa.shape[-1]
    if xa.ndim == 0 or xa.shape[-1] != d:
        raise ValueError(f"multivariate_normal.logpdf: x must have shape (..., {d}) to match "
                         f"mean/cov of dimension {d}; got x of shape {xa.shape}")
    diff = xa - ma
    if ca.ndim <= 1:
        if ca.ndim == 1 and ca.shape[0] != d:
            raise ValueError(f"multivariate_normal.logpdf: a 1-D cov is the diagonal and "
                             f"must have {d} entries; got shape {ca.shape}")
        var = fnp.broadcast_to(ca, (d,))
        return -0.5 * (fnp.sum(diff * diff / var, axis=-1) + fnp.sum(fnp.log(var))
                       + d * _LOG2PI)
    if ca.shape[-2:] != (d, d):
        raise ValueError(f"multivariate_normal.logpdf: cov must be (..., {d}, {d}) for "
                         f"{d}-dimensional x; got shape {ca.shape}")
    quad, logdet = _quad_logdet(diff, ca)
    return -0.5 * (quad + logdet + d * _LOG2PI)


def pdf(x: ArrayLike, mean: ArrayLike | None = None, cov: ArrayLike = 1,
        allow_singular: bool = False) -> Array:
    """Probability density of ``scipy.stats.multivariate_normal``: ``exp(logpdf)``.

    Parameters
    ----------
    x : array_like
        Points, shape ``(..., d)``.
    mean : array_like, optional
        Mean, shape ``(..., d)`` (default zeros).
    cov : array_like, optional
        Covariance: a scalar, the diagonal ``(d,)`` or ``(..., d, d)``.
    allow_singular : bool, optional
        Only ``False``.

    Returns
    -------
    Array
        Shape ``(...)``.

    Raises
    ------
    NotImplementedError
        For ``allow_singular=True``.
    ValueError
        As :func:`logpdf`.
    """
    return fnp.exp(logpdf(x, mean, cov, allow_singular))
