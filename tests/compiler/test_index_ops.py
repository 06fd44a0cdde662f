"""The numba lowerings of ftrans.compiler._numba_index (cumsum, argmax/argmin, argsort,
dynamic_slice, dynamic_update_slice) and of the special functions erf/erfc/gammaln
(ftrans.compiler._numba_special_support): compiled with no graph break, equal to eager
under ``jit(f)`` and ``jit(grad(f))``.  Few, large programs (numba compile time)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.special as sc

import ftrans
import ftrans.numpy as fnp
from ftrans import lax
from _jit_checks import ci_sample, jit_equal, no_break
from ftrans.compiler import graph_breaks
from ftrans.primitives.special import erf, erfc, gammaln

LOWERED = {"gather", "cumsum", "argmax", "argmin", "argsort", "dynamic_slice", "dynamic_update_slice",
           "erf", "erfc", "gammaln"}
TOL = {np.float64: 1e-14, np.float32: 1e-6}


def _no_break(f, *args):
    no_break(LOWERED, f, *args)


def _jit_equal(f, *args, rtol):
    jit_equal(f, *args, rtol=rtol)


def _index_program(x, i):
    return (fnp.cumsum(x, axis=1), lax.cumsum(x, axis=0, reverse=True),
            fnp.argmax(x, axis=2), fnp.argmin(x, axis=0), fnp.argmax(x),
            fnp.argsort(x, axis=-1), fnp.argsort(x, axis=0),
            lax.dynamic_slice(x, (i, 3, -2), (2, 2, 3)),
            lax.dynamic_slice(x, (i - 9, i, i), (3, 0, 4)),
            lax.dynamic_update_slice(x, 2.0 * x[:1] + 1.0, (i, i, 5)))


@pytest.mark.parametrize("dt", ci_sample([np.float64, np.float32], 1))
def test_index_ops_compiled_equal_eager(dt):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 5, 4)).astype(dt)
    x[1, 2, 3] = np.nan            # argmax/argmin: the first NaN wins; argsort: NaN last
    x[2, 1, :] = x[2, 3, :]        # ties: first occurrence / stable order
    x[0, 0, 0] = np.inf
    for i in (np.int64(1), np.int64(7), np.int64(-3)):   # inside, clamped high, clamped low
        _no_break(_index_program, x, i)
        _jit_equal(_index_program, x, i, rtol=TOL[dt])


def test_index_ops_integers_complex_and_empty():
    x = np.array([[3, 1, 3, -2], [0, 0, 7, 7], [5, -9, 5, -9]], np.int64)

    def f(x):
        return (fnp.cumsum(x, axis=1), fnp.argmax(x, axis=1), fnp.argmin(x, axis=1),
                fnp.argsort(x, axis=1), lax.dynamic_update_slice(x, x[:1, :2] * 0, (5, 1)))
    _no_break(f, x)
    _jit_equal(f, x, rtol=0)

    z = np.array([[1 + 2j, -3j, 0.5], [2, 1j, -1 - 1j]], np.complex128)
    _no_break(lambda z: (lax.cumsum(z, axis=1, reverse=True),), z)
    _jit_equal(lambda z: (lax.cumsum(z, axis=1, reverse=True),), z, rtol=1e-15)

    e = np.zeros((0, 3))

    def g(e):
        return fnp.cumsum(e, axis=0), fnp.argsort(e, axis=0), fnp.argmax(e, axis=1)
    _no_break(g, e)
    _jit_equal(g, e, rtol=0)


@pytest.mark.parametrize("dt", [np.float32, np.complex128])
def test_basic_gather_compiled(dt):
    x = (np.arange(60.0) - 7.5).reshape(3, 4, 5).astype(dt)

    def f(x):
        return (x[1:3], x[0], x[:, None, ::-2], x[..., -1], x[1, 2, 3], x[-1, 1:-1],
                x[::2] * 2, x[5:], x[2, ..., None, -3:])
    _no_break(f, x)
    _jit_equal(f, x, rtol=0)
    # (index arrays: tests/compiler/test_scatter_ops.py)
    with pytest.raises(IndexError):  # out of bounds: the impl raises, as NumPy
        ftrans.jit(lambda x: x[3])(x)


def test_argmax_empty_axis_graph_breaks_and_raises_as_eager():
    e = np.zeros((3, 0))
    assert "argmax" in graph_breaks(ftrans.make_ir(lambda e: fnp.argmax(e, axis=1))(e))
    with pytest.raises(ValueError):
        fnp.argmax(e, axis=1)
    with pytest.raises(ValueError):
        ftrans.jit(lambda e: fnp.argmax(e, axis=1))(e)


def _loss(x, i):
    y = fnp.cumsum(x, axis=1) * lax.cumsum(fnp.sin(x), axis=2, reverse=True)
    z = lax.dynamic_update_slice(x, lax.dynamic_slice(x, (i, 0, i), (1, 3, 2)) ** 2, (0, i, 1))
    return (fnp.sum(y) + fnp.sum(z * x) + fnp.sum(erf(x)) + fnp.sum(erfc(x))
            + fnp.sum(gammaln(x * x + 0.5)))


@pytest.mark.parametrize("dt", ci_sample([np.float64, np.float32], 0))  # (float64: FD below)
def test_grad_compiled_equal_eager(dt):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 4, 3)).astype(dt)
    i = np.int64(1)
    gf = ftrans.grad(_loss)
    _no_break(gf, x, i)
    _jit_equal(lambda x, i: (gf(x, i),), x, i, rtol=10 * TOL[dt])
    # finite differences of the compiled function (not only jit == eager)
    if dt == np.float64:
        ftrans.testing.check_grads(ftrans.jit(lambda x: _loss(x, i)), (x,), order=1,
                                   modes=("rev",))


EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, -2.0, -0.5, 1.0, 2.0, 1e-300, 1e-30,
         1e30, -1e30, 26.5, -26.5, 171.5, 1e300, -1e300]


@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_special_functions_match_scipy(dt):
    with np.errstate(over="ignore"):
        x = np.concatenate([np.linspace(-30, 30, 3001), EDGES]).astype(dt)

    def f(x):
        return erf(x), erfc(x), gammaln(x)
    _no_break(f, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        got = ftrans.jit(f)(x)
    # the compiled loops call SciPy's own kernels (ftrans/compiler/_numba_special_support.py):
    # SciPy's results, bit for bit, in float32 (SciPy's float32 loop) and float64
    for g, ref in zip(got, (sc.erf, sc.erfc, sc.gammaln)):
        g = np.asarray(g)
        assert g.dtype == dt
        with np.errstate(over="ignore"):
            np.testing.assert_array_equal(g, ref(x))


def test_complex_erf_graph_breaks_to_scipy():
    z = np.array([0.5 + 1j, -2 - 0.25j])
    assert "erf" in graph_breaks(ftrans.make_ir(erf)(z))
    np.testing.assert_allclose(np.asarray(ftrans.jit(erf)(z)), sc.erf(z), rtol=1e-14)
