"""The special functions compiled through SciPy's own kernels
(``ftrans.compiler._numba_special_support``: ``scipy.special.cython_special`` called from
the generated loops): no graph break, and ``jit(f)`` equal to eager ``f`` bit for bit --
NaN, infinities, poles, negative and out-of-domain arguments, broadcasting, weak Python
scalars and empty arrays included -- in float64 and float32 (float16 graph-breaks); the derivatives
under ``jit(grad(f))``; the disk cache across processes; SciPy imported only by a program
that calls a special function.  One program per dtype (numba compile time)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
import ftrans.primitives as P
from ftrans.compiler import graph_breaks
from ftrans.primitives import special as SP
from ftrans.primitives import special_scipy as SS
from ftrans.primitives.elementwise import UNARY_PRIMITIVES

# the primitives this file compiles (each must not graph-break)
LOWERED = {"erf", "erfc", "erfinv", "gammaln", "digamma", "i0", "i1", "i0e", "i1e",
           "ndtr", "ndtri", "log_ndtr", "erfcx", "erfcinv", "rgamma", "gammasgn", "j0", "j1",
           "y0", "y1", "gammainc", "gammaincc", "jv", "yv", "iv", "ive", "kv", "kve",
           "betainc", "airy_ai", "airy_aip"}

EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, -2.0, -3.0, 0.5, -0.5, 1e-300,
         5e-324, -1e-300, 1e-30, 1e30, -1e30, 1e300, -1e300, 171.5, -170.5, 26.5, -26.5,
         0.999999, -0.999999, 1.9999, 1e-8, 40.0, -40.0, 700.0, 800.0]


def _grids(dt):
    """``(x, v, p, e)``: a 1-D grid with the edge values, orders/shapes as a column, a
    grid of [0, 1] with its ends and beyond, an empty array."""
    with np.errstate(over="ignore", under="ignore"):
        x = np.concatenate([np.linspace(-6, 6, 241), np.linspace(-1, 1, 81),
                            np.logspace(-10, 3, 40), -np.logspace(-10, 3, 40),
                            EDGES]).astype(dt)
        v = np.array([0, 1, 2, 2.5, -0.5, -1, -2.5, 10, 0.3, np.nan, np.inf, 60]
                     ).reshape(-1, 1).astype(dt)
        p = np.concatenate([np.linspace(0, 1, 41), [-0.5, 1.5, 1e-20, 1 - 1e-7, np.nan,
                                                    np.inf, 2.0]]).astype(dt)
    return x, v, p, np.zeros((0,), dt)


def _program(x, v, p, e):
    ax = fnp.abs(x)
    return (
        SP.erf(x), SP.erfc(x), SP.erfinv(x), SP.gammaln(x), SP.digamma(x),
        P.i0(x), P.i1(x), P.i0e(x), P.i1e(x),
        SS.ndtr(x), SS.ndtri(p), SS.log_ndtr(x), SS.erfcx(x), SS.erfcinv(x + 1.0),
        SS.rgamma(x), SS.gammasgn(x), SS.j0(x), SS.j1(x), SS.y0(x), SS.y1(x),
        SS.gammainc(v, ax), SS.gammaincc(v, ax), SS.jv(v, x), SS.yv(v, x), SS.iv(v, x),
        SS.ive(v, x), SS.kv(v, x), SS.kve(v, x),
        SS.jv(2.0, x), SS.iv(0.1, x),                       # weak Python scalars
        SS.betainc(v, 2.5, p), SS.betainc(0.5, v, p), SS.betainc(p, p, 0.3),
        SS.airy_ai(x), SS.airy_aip(x),
        SP.erfinv(e), SS.jv(v, e), SS.betainc(e, e, e),      # empty
        SS.kv(2.0, SP.erfinv(p * 0.5) * 3.0 + 1.0),         # chained in one loop
    )


def _assert_compiled_equal(f, *args):
    breaks = set(graph_breaks(ftrans.make_ir(f)(*args)))
    assert not breaks & LOWERED, breaks
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # a failed compile falls back warning
        got = ftrans.jit(f)(*args)
    want = f(*args)
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        assert (g.dtype, g.shape) == (w.dtype, w.shape), k
        np.testing.assert_array_equal(g, w, err_msg=f"output {k}", strict=True)


@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_special_functions_compiled_bit_exact(dt):
    with np.errstate(all="ignore"):
        _assert_compiled_equal(_program, *_grids(dt))


def test_float16_graph_breaks_equal_eager():
    # SciPy computes float16 in its float32 or its float64 loop (the first of its
    # ``types`` that float16 casts to: j1's is 'd->d', erfinv's 'f->f'), so float16
    # graph-breaks to SciPy (the compiler would round through float32 only)
    x = np.linspace(-3, 3, 25).astype(np.float16)

    def f(x):
        return SP.erfinv(x * 0.25) + 1.0, SS.j1(x), SS.jv(1.5, x), P.i0e(x)
    assert {"erfinv", "j1", "jv", "i0e"} <= set(graph_breaks(ftrans.make_ir(f)(x)))
    for g, w in zip(ftrans.jit(f)(x), f(x)):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w), strict=True)


def test_integer_and_mixed_inputs_compiled_bit_exact():
    # integer inputs compute in float64 (as SciPy's 'd' loops); float32 with float64
    # promotes to float64
    n = np.arange(-3, 8)
    x32 = np.linspace(0.25, 6, 11).astype(np.float32)
    _assert_compiled_equal(lambda n, x: (SS.j0(n), SP.gammaln(n), SS.jv(n, x), SS.gammainc(x, n),
                                         P.i0(n)), n, x32)


def test_scalars_and_weak_python_arguments_compiled_bit_exact():
    # shape () values are scalar statements (not loops); a Python float argument is weak
    # (float32 stays float32, as in SciPy's 'ff->f' loop)
    def f(a, x):
        return SP.erfinv(x), SS.jv(a, x), SS.betainc(a, 2.0, x)
    _assert_compiled_equal(f, 1.5, np.float32(0.3))
    _assert_compiled_equal(f, np.float64(2.5), np.float64(0.7))
    _assert_compiled_equal(f, 1.5, np.linspace(0, 1, 5).astype(np.float32))


def _loss(x):
    return fnp.sum(SP.erfinv(0.9 * fnp.tanh(x)) * SP.digamma(x * x + 1.0)
                   + SP.gammaln(x * x + 0.5))


@pytest.mark.parametrize("dt", [np.float64, np.float32])
def test_grad_compiled_equal_eager(dt):
    x = np.random.default_rng(3).standard_normal(17).astype(dt)
    gf = ftrans.grad(_loss)
    breaks = set(graph_breaks(ftrans.make_ir(gf)(x)))
    assert not breaks, breaks  # (digamma's derivative polygamma(1, .): from the segment)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        got = np.asarray(ftrans.jit(gf)(x))
    want = np.asarray(gf(x))
    assert got.dtype == want.dtype == dt
    # the loops' exp/tanh are libm's, eager's NumPy's: equal to rounding
    np.testing.assert_allclose(got, want, rtol=1e-13 if dt == np.float64 else 1e-5)
    if dt == np.float64:  # finite differences of the compiled function
        ftrans.testing.check_grads(ftrans.jit(_loss), (x,), order=1, modes=("rev",))


def test_complex_inputs_raise_as_eager():
    z = np.array([0.5 + 1j])
    for f in (lambda z: SS.jv(1.0, z), SP.erfinv, SS.ndtr):
        with pytest.raises(TypeError):
            f(z)
        with pytest.raises(TypeError):
            ftrans.jit(f)(z)


def _named_kernels():
    """``{primitive: (kernel name, arity)}`` of every lowering calling ``_spN("name", ..)``."""
    prims = [*SP.SPECIAL_PRIMITIVES.values(), *SS.SCIPY_SPECIAL_PRIMITIVES.values(),
             *UNARY_PRIMITIVES.values()]
    out = {}
    for p in prims:
        m = re.fullmatch(r'_sp(\d)\("sc_(\w+)"((?:, \{\d\})*)\)',
                         str((getattr(p, "lowering", None) or {}).get("numba", "")))
        if m:
            assert m.group(3).count("{") == int(m.group(1)), p.name
            out[p.name] = (m.group(2), int(m.group(1)))
    return out


def test_every_lowering_names_a_kernel_that_resolves():
    from ftrans.compiler import _numba_special_support as sup
    named = _named_kernels()
    assert LOWERED <= set(named), LOWERED - set(named)
    # every kernel named exists in this SciPy with the C signature the code calls
    for prim, (name, n) in named.items():
        if name.startswith("airy"):
            name = "airy"
        ctypes = ("double", "float") if name in sup.FLOAT_KERNELS else ("double",)
        for ct in ctypes:
            assert sup.resolve(name, ct, n) != 0, prim
    with pytest.raises(LookupError, match="no kernel of 'erfinv' with the C signature"):
        sup.resolve("erfinv", "double", 2)


_CHILD = textwrap.dedent("""
    import sys, warnings
    import numpy as np, ftrans
    from ftrans.compiler import compile_ir
    import ftrans.primitives.special as SP
    warnings.simplefilter("error", RuntimeWarning)
    x = np.linspace(-0.9, 0.9, 7)
    run = compile_ir(ftrans.make_ir(lambda x: ftrans.numpy.sin(x) * 2.0)(x))
    run(x)
    assert "scipy.special" not in sys.modules, "imported SciPy for a program without it"
    run = compile_ir(ftrans.make_ir(lambda x: SP.erfinv(x) * 2.0)(x))
    np.testing.assert_array_equal(run(x)[0], SP.erfinv(x) * 2.0)
    print(sum(sum(d.stats.cache_hits.values()) for d in run.dispatchers),
          sum(sum(d.stats.cache_misses.values()) for d in run.dispatchers))
""")


def test_disk_cache_across_processes_and_lazy_scipy(tmp_path):
    """The compiled code holds no process-specific address: a second process loads it
    from numba's disk cache (no compile); SciPy is imported only when a program calls a
    special function."""
    env = dict(os.environ, FTRANS_CACHE_DIR=str(tmp_path),
               PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.dirname(ftrans.__file__)),
                                           os.environ.get("PYTHONPATH", "")]))
    outs = [subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True,
                           text=True, timeout=300) for _ in range(2)]
    for o in outs:
        assert o.returncode == 0, o.stderr
    hits0, misses0 = map(int, outs[0].stdout.split())
    hits1, misses1 = map(int, outs[1].stdout.split())
    assert misses0 > 0 and hits1 > 0 and misses1 == 0, (outs[0].stdout, outs[1].stdout)


def test_missing_kernel_graph_breaks_instead_of_nan(monkeypatch):
    """A SciPy without a kernel the lowering calls: the equation graph-breaks to SciPy's
    ufunc when the program is compiled (never the resolver's NaN stand-in)."""
    from ftrans.compiler import _numba_special_support as sps
    real = sps.resolve

    def resolve(name, ctype, n):
        if name == "erfinv":
            raise LookupError("no erfinv kernel (simulated)")
        return real(name, ctype, n)
    monkeypatch.setattr(sps, "resolve", resolve)
    x = np.linspace(-0.9, 0.9, 7)

    def f(x):
        return SP.erfinv(x) * 2.0 + SP.erf(x)
    breaks = graph_breaks(ftrans.make_ir(f)(x))
    assert "erfinv" in breaks and "erf" not in breaks, breaks
    import scipy.special
    np.testing.assert_array_equal(ftrans.jit(f)(x),
                                  2.0 * scipy.special.erfinv(x) + scipy.special.erf(x))
