"""Standardized log-pmfs of ``poisson``, ``binom``, ``nbinom``, ``bernoulli`` (the public
modules add ``loc`` with :func:`._util.discrete_method`).

Formulas from SciPy's documentation of each distribution (as ``jax.scipy.stats``):
``gammaln`` for the log-binomial coefficients, ``xlogy``/``xlog1py`` for SciPy's values
at ``p`` (or ``mu``) on the boundary.  ``k`` off the support (negative, non-integer,
above ``n``) gives -inf; it is replaced by a safe value before the logarithms.
"""
from __future__ import annotations

from ... import numpy as fnp
from .. import special as sc
from ._util import INF, is_int, const


def _on(ok, k, val_fn):
    ks = fnp.where(ok, k, 0.0)
    return fnp.where(ok, val_fn(ks), -INF)


def poisson_logpmf(k, mu):
    """``xlogy(k, mu) - gammaln(k + 1) - mu`` for integer ``k >= 0``, else -inf."""
    return _on(is_int(k) & (k >= 0), k,
               lambda k: sc.xlogy(k, mu) - sc.gammaln(k + 1.0) - mu)


def binom_logpmf(k, n, p):
    """``log C(n, k) + xlogy(k, p) + xlog1py(n - k, -p)`` for integer ``0 <= k <= n``
    (``log C`` by ``gammaln``), else -inf."""
    def val(k):
        comb = sc.gammaln(n + 1.0) - sc.gammaln(k + 1.0) - sc.gammaln(n - k + 1.0)
        return comb + sc.xlogy(k, p) + sc.xlog1py(n - k, -p)
    return _on(is_int(k) & (k >= 0) & (k <= n), k, val)


def nbinom_logpmf(k, n, p):
    """``gammaln(n + k) - gammaln(n) - gammaln(k + 1) + xlogy(n, p) + xlog1py(k, -p)`` for
    integer ``k >= 0``, else -inf."""
    def val(k):
        comb = sc.gammaln(n + k) - sc.gammaln(n) - sc.gammaln(k + 1.0)
        return comb + sc.xlogy(n, p) + sc.xlog1py(k, -p)
    return _on(is_int(k) & (k >= 0), k, val)


def bernoulli_logpmf(k, p):
    """``log p`` at ``k == 1``, ``log1p(-p)`` at ``k == 0``, -inf elsewhere."""
    return _on((k == 0) | (k == 1), k, lambda k: sc.xlogy(k, p) + sc.xlog1py(1.0 - k, -p))


def _cdf_by(k, lo, hi, inner_fn, below, above):
    """Piecewise cdf/sf of integer-support data: ``below`` for ``k < lo``, ``above`` for
    ``k >= hi``, ``inner_fn(floor(k))`` between (``floor(k)`` replaced by ``lo`` outside, so
    the untaken branch is finite and has finite derivatives)."""
    fk = fnp.floor(k)
    inner = (fk >= lo) & (fk < hi)
    val = inner_fn(fnp.where(inner, fk, lo), inner)
    return fnp.where(inner, val, const(fnp.where(fk < lo, below, above), val))


def poisson_cdf(k, mu):
    """``gammaincc(floor(k) + 1, mu)`` for ``k >= 0``, else 0."""
    return _cdf_by(k, 0.0, INF, lambda fk, _: sc.gammaincc(fk + 1.0, mu), 0.0, 1.0)


def poisson_sf(k, mu):
    """``gammainc(floor(k) + 1, mu)`` for ``k >= 0``, else 1."""
    return _cdf_by(k, 0.0, INF, lambda fk, _: sc.gammainc(fk + 1.0, mu), 1.0, 0.0)


def _binom_ab(fk, inner, n):
    return fnp.where(inner, n - fk, 1.0), fk + 1.0


def binom_cdf(k, n, p):
    """``betainc(n - floor(k), floor(k) + 1, 1 - p)`` for ``0 <= k < n``; 0 below, 1 above."""
    def f(fk, inner):
        a, b = _binom_ab(fk, inner, n)
        return sc.betainc(a, b, 1.0 - p)
    return _cdf_by(k, 0.0, n, f, 0.0, 1.0)


def binom_sf(k, n, p):
    """``betainc(floor(k) + 1, n - floor(k), p)`` for ``0 <= k < n``; 1 below, 0 above."""
    def f(fk, inner):
        a, b = _binom_ab(fk, inner, n)
        return sc.betainc(b, a, p)
    return _cdf_by(k, 0.0, n, f, 1.0, 0.0)


def nbinom_cdf(k, n, p):
    """``betainc(n, floor(k) + 1, p)`` for ``k >= 0``, else 0."""
    return _cdf_by(k, 0.0, INF, lambda fk, _: sc.betainc(n, fk + 1.0, p), 0.0, 1.0)


def nbinom_sf(k, n, p):
    """``betainc(floor(k) + 1, n, 1 - p)`` for ``k >= 0``, else 1."""
    return _cdf_by(k, 0.0, INF, lambda fk, _: sc.betainc(fk + 1.0, n, 1.0 - p), 1.0, 0.0)


def bernoulli_cdf(k, p):
    return fnp.where(k < 0, const(0.0, p), fnp.where(k < 1, 1.0 - p, const(1.0, p)))


def bernoulli_sf(k, p):
    return fnp.where(k < 0, const(1.0, p), fnp.where(k < 1, p, const(0.0, p)))


def bernoulli_ppf(q, p):
    """SciPy's discrete ppf: the least ``k`` with ``cdf(k) >= q`` (``-1`` at ``q == 0``)."""
    return const(fnp.where(q == 0, -1.0, fnp.where((q <= 1.0 - p) & (q < 1), 0.0, 1.0)), q)


def prob(p):
    return (p >= 0) & (p <= 1)
