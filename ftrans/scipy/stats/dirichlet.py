"""``scipy.stats.dirichlet``: ``logpdf``/``pdf`` of the Dirichlet distribution,
differentiable in ``x`` and ``alpha``.

``logpdf = sum_i xlogy(alpha_i - 1, x_i) - (sum_i gammaln(alpha_i) - gammaln(sum alpha))``
(SciPy's formula).  As SciPy's implementation, the components run along the FIRST axis of
``x`` (``(K,)`` or ``(K, N)``: N points), and ``x`` with ``K - 1`` components gets
``1 - sum`` appended.

>>> import numpy as np, ftrans.scipy.stats as fst
>>> round(float(fst.dirichlet.pdf(np.array([0.2, 0.8]), np.array([1.0, 1.0]))), 12)
1.0
"""
from __future__ import annotations

from ... import numpy as fnp
from .. import special as sc
from ...typing import Array, ArrayLike
from ._util import promote, nan_if, INF

__all__ = ["logpdf", "pdf"]


def logpdf(x: ArrayLike, alpha: ArrayLike) -> Array:
    """Log of the probability density of ``scipy.stats.dirichlet``.

    Parameters
    ----------
    x : array_like, shape (K,) or (K, N), or (K - 1, ...)
        Points of the simplex, components along the first axis (SciPy's layout).  The
        simplex constraint ``sum(x) == 1`` is not checked (SciPy raises ``ValueError``):
        the formula is evaluated as given, so every direction has a derivative.
    alpha : array_like, shape (K,)
        Concentration parameters (> 0; ``nan`` otherwise, SciPy raises).

    Returns
    -------
    Array
        Shape ``()`` or ``(N,)``; -inf where a component of ``x`` is outside [0, 1].

    Raises
    ------
    ValueError
        When ``alpha`` is not 1-D or ``x``'s first axis is neither ``K`` nor ``K - 1``.
    TypeError
        For complex input.

    References
    ----------
    SciPy's ``scipy.stats.dirichlet``; ``jax.scipy.stats.dirichlet``.
    """
    xa, al = promote("dirichlet.logpdf", x, alpha)
    if al.ndim != 1:
        raise ValueError(f"dirichlet.logpdf: alpha must be one-dimensional (K,), got shape "
                         f"{al.shape}")
    k = al.shape[0]
    if xa.ndim == 0 or xa.shape[0] not in (k, k - 1):
        raise ValueError(f"dirichlet.logpdf: x must have {k} (or {k - 1}) components along "
                         f"its first axis to match alpha; got shape {xa.shape}")
    if xa.shape[0] == k - 1:
        xa = fnp.concatenate([xa, (1.0 - fnp.sum(xa, axis=0))[None]], axis=0)
    a = fnp.reshape(al, (k,) + (1,) * (xa.ndim - 1))
    ok = (xa >= 0) & (xa <= 1)
    xs = fnp.where(ok, xa, 0.5)
    lnb = fnp.sum(sc.gammaln(al)) - sc.gammaln(fnp.sum(al))
    val = fnp.sum(sc.xlogy(a - 1.0, xs), axis=0) - lnb
    val = fnp.where(fnp.all(ok, axis=0), val, -INF)
    return nan_if(fnp.logical_not(fnp.all(al > 0)), val)


def pdf(x: ArrayLike, alpha: ArrayLike) -> Array:
    """Probability density of ``scipy.stats.dirichlet``: ``exp(logpdf)``.

    Parameters
    ----------
    x : array_like
        Points of the simplex, components along the first axis (as :func:`logpdf`).
    alpha : array_like
        Concentration parameters, shape ``(K,)``.

    Returns
    -------
    Array
        Shape ``()`` or ``(N,)``.

    Raises
    ------
    ValueError
        As :func:`logpdf`.
    TypeError
        For complex input.
    """
    return fnp.exp(logpdf(x, alpha))
