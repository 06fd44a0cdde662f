"""Standardized log-pmfs of ``poisson``, ``binom``, ``nbinom``, ``bernoulli`` (the public
modules add ``loc`` with :func:`._util.discrete_method`).

Formulas from SciPy's documentation of each distribution (as ``jax.scipy.stats``):
``gammaln`` for the log-binomial coefficients, ``xlogy``/``xlog1py`` for SciPy's values
at ``p`` (or ``mu``) on the boundary.  ``k`` off the support (negative, non-integer,
above ``n``) gives -inf; it is replaced by a safe value before the logarithms.
"""
from __future__ import annotations

from collections.abc import Callable

from ... import lax
from ... import numpy as fnp
from ...typing import Array
from .. import special as sc
from ._util import INF, is_int, const, discrete


def _on(ok: Array, k: Array, val_fn: Callable[[Array], Array]) -> Array:
    ks = fnp.where(ok, k, 0.0)
    return fnp.where(ok, val_fn(ks), -INF)


def poisson_logpmf(k: Array, mu: Array) -> Array:
    """``xlogy(k, mu) - gammaln(k + 1) - mu`` for integer ``k >= 0``, else -inf."""
    return _on(is_int(k) & (k >= 0), k,
               lambda k: sc.xlogy(k, mu) - sc.gammaln(k + 1.0) - mu)


def binom_logpmf(k: Array, n: Array, p: Array) -> Array:
    """``log C(n, k) + xlogy(k, p) + xlog1py(n - k, -p)`` for integer ``0 <= k <= n``
    (``log C`` by ``gammaln``), else -inf."""
    def val(k: Array) -> Array:
        comb = sc.gammaln(n + 1.0) - sc.gammaln(k + 1.0) - sc.gammaln(n - k + 1.0)
        return comb + sc.xlogy(k, p) + sc.xlog1py(n - k, -p)
    return _on(is_int(k) & (k >= 0) & (k <= n), k, val)


def nbinom_logpmf(k: Array, n: Array, p: Array) -> Array:
    """``gammaln(n + k) - gammaln(n) - gammaln(k + 1) + xlogy(n, p) + xlog1py(k, -p)`` for
    integer ``k >= 0``, else -inf."""
    def val(k: Array) -> Array:
        comb = sc.gammaln(n + k) - sc.gammaln(n) - sc.gammaln(k + 1.0)
        return comb + sc.xlogy(n, p) + sc.xlog1py(k, -p)
    return _on(is_int(k) & (k >= 0), k, val)


def bernoulli_logpmf(k: Array, p: Array) -> Array:
    """``log p`` at ``k == 1``, ``log1p(-p)`` at ``k == 0``, -inf elsewhere."""
    return _on((k == 0) | (k == 1), k, lambda k: sc.xlogy(k, p) + sc.xlog1py(1.0 - k, -p))


def _cdf_by(k: Array, lo: float, hi: Array | float,
            inner_fn: Callable[[Array, Array], Array], below: float, above: float) -> Array:
    """Piecewise cdf/sf of integer-support data: ``below`` for ``k < lo``, ``above`` for
    ``k >= hi``, ``inner_fn(floor(k))`` between (``floor(k)`` replaced by ``lo`` outside, so
    the untaken branch is finite and has finite derivatives)."""
    fk = fnp.floor(k)
    inner = (fk >= lo) & (fk < hi)
    val = inner_fn(fnp.where(inner, fk, lo), inner)
    return fnp.where(inner, val, const(fnp.where(fk < lo, below, above), val))


def poisson_cdf(k: Array, mu: Array) -> Array:
    """``gammaincc(floor(k) + 1, mu)`` for ``k >= 0``, else 0."""
    return _cdf_by(k, 0.0, INF, lambda fk, _: sc.gammaincc(fk + 1.0, mu), 0.0, 1.0)


def poisson_sf(k: Array, mu: Array) -> Array:
    """``gammainc(floor(k) + 1, mu)`` for ``k >= 0``, else 1."""
    return _cdf_by(k, 0.0, INF, lambda fk, _: sc.gammainc(fk + 1.0, mu), 1.0, 0.0)


def _binom_ab(fk: Array, inner: Array, n: Array) -> tuple[Array, Array]:
    return fnp.where(inner, n - fk, 1.0), fk + 1.0


def binom_cdf(k: Array, n: Array, p: Array) -> Array:
    """``betainc(n - floor(k), floor(k) + 1, 1 - p)`` for ``0 <= k < n``; 0 below, 1 above."""
    def f(fk: Array, inner: Array) -> Array:
        a, b = _binom_ab(fk, inner, n)
        return sc.betainc(a, b, 1.0 - p)
    return _cdf_by(k, 0.0, n, f, 0.0, 1.0)


def binom_sf(k: Array, n: Array, p: Array) -> Array:
    """``betainc(floor(k) + 1, n - floor(k), p)`` for ``0 <= k < n``; 1 below, 0 above."""
    def f(fk: Array, inner: Array) -> Array:
        a, b = _binom_ab(fk, inner, n)
        return sc.betainc(b, a, p)
    return _cdf_by(k, 0.0, n, f, 1.0, 0.0)


def nbinom_cdf(k: Array, n: Array, p: Array) -> Array:
    """``betainc(n, floor(k) + 1, p)`` for ``k >= 0``, else 0."""
    return _cdf_by(k, 0.0, INF, lambda fk, _: sc.betainc(n, fk + 1.0, p), 0.0, 1.0)


def nbinom_sf(k: Array, n: Array, p: Array) -> Array:
    """``betainc(floor(k) + 1, n, 1 - p)`` for ``k >= 0``, else 1."""
    return _cdf_by(k, 0.0, INF, lambda fk, _: sc.betainc(fk + 1.0, n, 1.0 - p), 1.0, 0.0)


def bernoulli_cdf(k: Array, p: Array) -> Array:
    return fnp.where(k < 0, const(0.0, p), fnp.where(k < 1, 1.0 - p, const(1.0, p)))


def bernoulli_sf(k: Array, p: Array) -> Array:
    return fnp.where(k < 0, const(1.0, p), fnp.where(k < 1, p, const(0.0, p)))


def bernoulli_ppf(q: Array, p: Array) -> Array:
    """SciPy's discrete ppf: the least ``k`` with ``cdf(k) >= q`` (``-1`` at ``q == 0``)."""
    return const(fnp.where(q == 0, -1.0, fnp.where((q <= 1.0 - p) & (q < 1), 0.0, 1.0)), q)


def prob(p: Array) -> Array:
    return (p >= 0) & (p <= 1)


# ppf: the least integer k with cdf(k) >= q (SciPy's definition), by bisection -----------
_STEPS = 64


def _ppf_bisect(cdf: Callable[..., Array], q: Array, hi: Array, top: Array,
                *params: Array) -> Array:
    """Least integer ``k`` in ``[0, hi]`` with ``cdf(k, *params) >= q`` (``cdf(hi) >= q``
    must hold), ``-1`` at ``q == 0`` and ``top`` (the upper end of the support) at
    ``q == 1``.  Piecewise constant in ``q`` and the parameters: no derivative (all held
    fixed).  Bisection on the integers, 64 halvings (``hi < 2**63``) in a
    ``lax.fori_loop`` (one loop under ``jit``)."""
    q, hi = discrete(q), discrete(hi)
    fixed = [discrete(p) for p in params]
    inner = (q > 0) & (q < 1)
    qs = fnp.where(inner, q, const(0.5, q))
    lo = fnp.zeros_like(qs) - 1.0                  # cdf(-1) = 0 < q
    hi = fnp.where(inner, fnp.ceil(hi), const(0.0, q))

    def step(carry: tuple[Array, Array]) -> tuple[Array, Array]:
        lo, hi = carry
        mid = fnp.floor(0.5 * (lo + hi))
        ok = cdf(mid, *fixed) >= qs
        return fnp.where(ok, lo, mid), fnp.where(ok, mid, hi)

    # a fixed count (not while_loop): reverse mode passes through a scan, and once an
    # interval has closed (hi = lo + 1) a step leaves it unchanged (cdf(lo) < q)
    _, hi = lax.fori_loop(0, _STEPS, lambda i, c: step(c), (lo, hi))
    return fnp.where(inner, hi, fnp.where(q == 0, const(-1.0, q), top + 0.0 * q))


def _cantelli(q: Array, mean: Array, var: Array) -> Array:
    """An integer ``k`` with ``cdf(k) >= q`` for ``q < 1``: Cantelli's inequality
    ``P(X > mean + t sd) <= 1/(1 + t**2)`` with ``t = sqrt(q / (1 - q))``."""
    qs = fnp.where(q < 1, q, const(0.5, q))
    return fnp.ceil(mean + fnp.sqrt(var * qs / (1.0 - qs))) + 1.0


def poisson_ppf(q: Array, mu: Array) -> Array:
    """Least integer ``k`` with ``cdf(k) >= q`` (bisection; Cantelli's bound)."""
    return _ppf_bisect(poisson_cdf, q, _cantelli(q, mu, mu), const(INF, q), mu)


def binom_ppf(q: Array, n: Array, p: Array) -> Array:
    """Least integer ``k`` with ``cdf(k) >= q`` in ``[0, n]`` (bisection)."""
    return _ppf_bisect(binom_cdf, q, n + 0.0 * q, n + 0.0 * q, n, p)


def nbinom_ppf(q: Array, n: Array, p: Array) -> Array:
    """Least integer ``k`` with ``cdf(k) >= q`` (bisection; Cantelli's bound with SciPy's
    mean ``n (1-p)/p`` and variance ``n (1-p)/p**2``)."""
    mean = n * (1.0 - p) / p
    return _ppf_bisect(nbinom_cdf, q, _cantelli(q, mean, mean / p), const(INF, q), n, p)
