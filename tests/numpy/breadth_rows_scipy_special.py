"""Breadth-table rows for ``ftrans.scipy.special``'s issue-20 functions (incomplete
gamma/beta, ndtr family, erfcx/erfcinv, rgamma/gammasgn, zeta, Bessel functions).

Values against SciPy on sampled domains (several regimes per function: the series and
continued-fraction sides of ``gammainc``, both tails of ``log_ndtr``, small and large
Bessel arguments), ``check_grads`` order 2 in the differentiable arguments (orders of
Bessel functions and ``zeta``'s exponent are held fixed:
their derivatives raise, tests/scipy/test_special_more.py), vmap, and JAX where
``jax.scipy.special`` has the function (``erfcinv``, ``rgamma`` and the Bessel functions
of real order are absent from it: no JAX row).  Points exactly at edges (0, the ends of
the support, poles, far tails) are in tests/scipy/test_special_more.py.

Appended last to ``breadth_table.ROWS`` so that earlier rows keep their random inputs.
"""
import numpy as np

from breadth_table import Row, uniform, off_integer, _jsp, _fss, _sc


def _ints(lo, hi):
    def gen(rng, shape, dtype):
        return np.asarray(rng.integers(lo, hi, shape), dtype)
    return gen


def _bessel(name, v, x, jax_fn=None, note=""):
    """A row of a Bessel function of real order: ``v`` fixed (diff: ``x`` only)."""
    return Row(f"scipy.special.{name}", args=[((3,), v), ((2, 3), x)], diff=(1,),
               jax_fn=jax_fn, note=note or "order v fixed (its derivative raises)")


ROWS_SCIPY_SPECIAL = [
    # incomplete gamma: x <= a + 1 (series) and x > a + 1 (continued fraction)
    Row("scipy.special.gammainc", args=[((2, 3), uniform(0.5, 4.0)), ((3,), uniform(0.1, 6.0))],
        jax_fn=_jsp("gammainc")),
    Row("scipy.special.gammaincc", args=[((2, 3), uniform(0.5, 4.0)),
                                         ((3,), uniform(0.1, 6.0))],
        jax_fn=_jsp("gammaincc")),
    Row("scipy.special.gammainc", args=[((2, 3), uniform(8.0, 30.0)),
                                        ((3,), uniform(4.0, 40.0))],
        note="larger a: both regimes, long series/fractions (JAX: the first row)"),
    Row("scipy.special.gammaincc", args=[((2, 3), uniform(0.05, 0.5)),
                                         ((3,), uniform(0.01, 3.0))],
        note="small a (steep in x near 0; JAX: the row above)"),
    # incomplete beta: derivatives in a, b and x (JAX: in x only)
    Row("scipy.special.betainc", args=[((3,), uniform(0.6, 4.0)), ((3,), uniform(0.6, 4.0)),
                                       ((2, 3), uniform(0.05, 0.95))], diff=(2,),
        jax_fn=_jsp("betainc"), note="derivative in x (JAX has none in a, b)"),
    Row("scipy.special.betainc", args=[((3,), uniform(0.3, 6.0)), ((2, 3), uniform(0.3, 6.0)),
                                       ((2, 3), uniform(0.02, 0.98))],
        note="a, b and x (both sides of the fraction's switch x = (a+1)/(a+b+2))"),
    # normal distribution
    Row("scipy.special.ndtr", args=[((2, 3), uniform(-6.0, 6.0))], jax_fn=_jsp("ndtr")),
    Row("scipy.special.ndtri", args=[((2, 3), uniform(0.01, 0.99))], jax_fn=_jsp("ndtri")),
    Row("scipy.special.log_ndtr", args=[((2, 3), uniform(-5.0, 5.0))],
        jax_fn=_jsp("log_ndtr")),
    Row("scipy.special.log_ndtr", args=[((2, 3), uniform(-60.0, -10.0))],
        tol={"float32": (2e-4, 2e-5)},
        note="left tail: cdf underflows far below; log_ndtr ~ -x^2/2"),
    Row("scipy.special.log_ndtr", args=[((2, 3), uniform(6.0, 30.0))], grad=False,
        note="right tail: value ~ -pdf/x (no FD check: below finite-difference resolution)"),
    Row("scipy.special.erfcx", args=[((2, 3), uniform(-2.0, 8.0))], jax_fn=_jsp("erfcx")),
    Row("scipy.special.erfcinv", args=[((2, 3), uniform(0.02, 1.98))],
        note="no jax.scipy.special.erfcinv"),
    # gamma function relatives
    Row("scipy.special.rgamma", args=[((2, 3), uniform(-3.5, 5.0))],
        note="negative arguments between the zeros; no jax.scipy.special.rgamma"),
    Row("scipy.special.gammasgn", args=[((2, 3), off_integer)], jax_fn=_jsp("gammasgn"),
        note="derivative 0 (piecewise constant), off the poles"),
    Row("scipy.special.zeta", args=[((3,), uniform(1.5, 6.0)), ((2, 3), uniform(0.3, 4.0))],
        diff=(1,), jax_fn=_jsp("zeta"), note="derivative in q only (exponent fixed)"),
    Row("scipy.special.zeta", fn=lambda x: _fss().zeta(x),
        ref=lambda x: _sc().zeta(x),
        args=[((2, 3), uniform(-4.0, 6.0))], grad=False,
        note="Riemann zeta (q=None), continued to x < 1 as SciPy; its derivative raises"),
    # Bessel functions: orders 0/1 ...
    Row("scipy.special.j0", args=[((2, 3), uniform(-12.0, 12.0))]),
    Row("scipy.special.j1", args=[((2, 3), uniform(-12.0, 12.0))]),
    Row("scipy.special.y0", args=[((2, 3), uniform(0.2, 12.0))]),
    Row("scipy.special.y1", args=[((2, 3), uniform(0.2, 12.0))]),
    Row("scipy.special.i0", args=[((2, 3), uniform(-6.0, 6.0))], jax_fn=_jsp("i0")),
    Row("scipy.special.i1", args=[((2, 3), uniform(-6.0, 6.0))], jax_fn=_jsp("i1")),
    Row("scipy.special.i0e", args=[((2, 3), uniform(0.2, 30.0))], jax_fn=_jsp("i0e")),
    Row("scipy.special.i1e", args=[((2, 3), uniform(-30.0, -0.2))], jax_fn=_jsp("i1e")),
    # ... and real order v (fixed), argument x
    _bessel("jv", uniform(-2.5, 4.0), uniform(0.2, 15.0)),
    _bessel("jv", _ints(-3, 4), uniform(-8.0, 8.0), note="integer orders, negative x"),
    _bessel("yv", uniform(-2.5, 4.0), uniform(0.3, 15.0)),
    _bessel("iv", uniform(-2.5, 4.0), uniform(0.2, 8.0)),
    _bessel("ive", uniform(-2.5, 4.0), uniform(0.2, 40.0)),
    _bessel("ive", _ints(-3, 4), uniform(-20.0, 20.0), note="integer orders, both signs of x"),
    _bessel("kv", uniform(-2.5, 4.0), uniform(0.2, 8.0)),
    _bessel("kve", uniform(-2.5, 4.0), uniform(0.2, 40.0)),
]
