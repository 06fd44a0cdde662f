"""The numba lowerings of ftrans.compiler._numba_conv (conv_general_dilated: im2col loop +
np.dot; reduce_window_sum/max/argmax: window loops): compiled with no graph break, equal to
eager under ``jit(f)`` and ``jit(grad(f))`` (eager runs the impls: the strided-view and
numba-kernel paths of ftrans.primitives.conv/window, other code).  Few, large programs
(numba compile time)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import lax
from ftrans.compiler import graph_breaks
from _jit_checks import ci_sample, jit_equal, no_break
from ftrans.primitives.window import reduce_window_argmax

LOWERED = {"conv_general_dilated", "conv_patches", "conv_patches_transpose",
           "reduce_window_sum", "reduce_window_max", "reduce_window_argmax"}
TOL = {np.float64: 1e-12, np.float32: 1e-5, np.complex128: 1e-12}


def _breaks(f, *args):
    return set(graph_breaks(ftrans.make_ir(f)(*args)))


def _no_break(f, *args):
    no_break(LOWERED, f, *args)


def _jit_equal(f, *args, rtol):
    return jit_equal(f, *args, rtol=rtol, scaled_atol=True)


def _convs(x1, w1, x, w, wg, xl, lax=lax):
    """1-D and 2-D NCHW convolutions over every parameter of the primitive (``lax``: ours
    or JAX's); ``xl`` has more output positions than one flat tap table takes (the nested
    loops of ``_numba_conv._Taps``), the others fewer."""
    return (lax.conv_general_dilated(x1, w1, (1,), "VALID"),                     # 1-D
            lax.conv_general_dilated(x1, w1, (2,), ((2, 1),), None, (2,)),      # 1-D, dilated
            lax.conv_general_dilated(x, w, (2, 2), "SAME"),                     # stride 2
            lax.conv_general_dilated(x, w, (1, 2), ((1, 2), (0, 1))),           # explicit
            lax.conv_general_dilated(x, w, (1, 1), ((-1, 1), (2, -1))),         # cropping
            lax.conv_general_dilated(x, w, (1, 1), "SAME", rhs_dilation=(2, 1)),
            lax.conv_general_dilated(x, w, (1, 1), ((1, 1), (2, 0)), lhs_dilation=(2, 3)),
            lax.conv_general_dilated(x, wg, (2, 1), ((1, 0), (1, 1)), (1, 2), (1, 2),
                                     feature_group_count=2),
            lax.conv_general_dilated(x.transpose((0, 2, 3, 1)),
                                     w.transpose((2, 3, 1, 0)), (1, 1), "SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC")),
            lax.conv_general_dilated(xl, w, (1, 1), "SAME"))


def _conv_args(dt, rng):
    r = lambda *s: rng.standard_normal(s).astype(dt)  # noqa: E731
    return (r(2, 3, 11), r(4, 3, 3), r(2, 4, 7, 6), r(5, 4, 3, 2), r(6, 2, 2, 3),
            r(1, 4, 18, 16))


@pytest.mark.parametrize("dt", ci_sample([np.float64, np.float32], 1))
def test_conv_compiled_equal_eager(dt):
    args = _conv_args(dt, np.random.default_rng(0))
    _no_break(_convs, *args)
    got = _jit_equal(_convs, *args, rtol=TOL[dt])
    if dt == np.float64:  # JAX's convolutions: the same conventions
        jax = pytest.importorskip("jax")
        jax.config.update("jax_enable_x64", True)
        for g, w in zip(got, _convs(*args, lax=jax.lax)):
            np.testing.assert_allclose(g, np.asarray(w), rtol=1e-12, atol=1e-12)


def test_conv_complex_and_mixed_dtypes():
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((2, 3, 6, 5)) + 1j * rng.standard_normal((2, 3, 6, 5)))
    w = rng.standard_normal((4, 3, 2, 2)).astype(np.float32)   # promoted to complex128

    def f(x, w):
        return (lax.conv_general_dilated(x, w, (1, 2), "SAME"),)
    _no_break(f, x, w)
    _jit_equal(f, x, w, rtol=TOL[np.complex128])


def test_patches_compiled_equal_eager():
    # im2col and col2im on their own: padding, cropping, strides, both dilations, 1-3
    # spatial axes, a complex operand; col2im of random columns (not only of patches);
    # both plans of the tap loops (a flat table up to FLAT_MAX_POSITIONS output positions,
    # nested per-axis loops above)
    from ftrans.kernels.nn_cpu import FLAT_MAX_POSITIONS
    from ftrans.primitives.patches import conv_patches, conv_patches_transpose
    rng = np.random.default_rng(5)
    configs = [((2, 3, 6, 5), (3, 2), (1, 2), ((1, 1), (-1, 2)), (1, 1), (2, 1)),
               ((1, 2, 7), (2,), (3,), ((2, 0),), (2,), (1,)),
               ((2, 1, 4, 3, 5), (2, 1, 3), (1, 2, 1), ((0, 1), (1, 0), (1, 1)), (1, 1, 2),
                (1, 1, 1)),
               ((2, 2, 19, 16), (3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1), (1, 1)),
               ((1, 2, 300), (3,), (1,), ((1, 0),), (2,), (1,)),
               ((1, 1, 9, 10, 4), (2, 2, 2), (1, 1, 1), ((1, 0), (0, 1), (1, 1)), (1, 1, 1),
                (1, 1, 1))]
    xs = [rng.standard_normal(c[0]) for c in configs]
    xs[0] = xs[0] + 1j * rng.standard_normal(configs[0][0])
    cols = [rng.standard_normal(np.shape(conv_patches(x, *c[1:]))) for x, c in zip(xs, configs)]
    positions = [m.shape[1] // x.shape[0] for m, x in zip(cols, xs)]
    assert min(positions) <= FLAT_MAX_POSITIONS < max(positions)

    def f(*a):
        n = len(configs)
        return tuple([conv_patches(x, *c[1:]) for x, c in zip(a[:n], configs)]
                     + [conv_patches_transpose(m, c[0], *c[1:]) for m, c in zip(a[n:], configs)])
    _no_break(f, *xs, *cols)
    _jit_equal(f, *xs, *cols, rtol=1e-12)


def test_conv_graph_breaks_where_refused():
    # integer operands (numba's np.dot is float/complex only), float16, empty batches: the
    # impl runs, with the same results
    xi, wi = np.arange(2 * 3 * 5).reshape(2, 3, 5), np.ones((2, 3, 2), np.int64)
    f = lambda x, w: (lax.conv_general_dilated(x, w, (1,), "VALID"),)  # noqa: E731
    for x, w in ((xi, wi), (xi.astype(np.float16), wi.astype(np.float16)),
                 (np.zeros((0, 3, 5)), np.ones((2, 3, 2)))):
        assert "conv_general_dilated" in _breaks(f, x, w)
        _jit_equal(f, x, w, rtol=0)


# windowed reductions -------------------------------------------------------------------
def _windows(x):
    return (lax.reduce_window(x, "max", (1, 1, 2, 2), (1, 1, 2, 2)),
            lax.reduce_window(x, "sum", (1, 1, 2, 2), (1, 1, 2, 2)),
            reduce_window_argmax(x, (1, 1, 2, 2), (1, 1, 2, 2), ((0, 0),) * 4),
            # padding, window dilation, overlapping windows (the kernels' path)
            lax.reduce_window(x, "max", (1, 1, 3, 2), (1, 1, 2, 1),
                              ((0, 0), (0, 0), (1, 1), (1, 0)), (1, 1, 1, 2)),
            reduce_window_argmax(x, (1, 1, 3, 2), (1, 1, 2, 1),
                                 ((0, 0), (0, 0), (1, 1), (1, 0)), (1, 1, 1, 2)),
            # windows over a leading axis with padding (the impls' generic tap scan)
            lax.reduce_window(x, "max", (2, 2, 1, 2), (1, 2, 1, 1),
                              ((1, 0), (1, 1), (0, 0), (0, 1))),
            reduce_window_argmax(x, (2, 2, 1, 2), (1, 2, 1, 1),
                                 ((1, 0), (1, 1), (0, 0), (0, 1))),
            lax.reduce_window(x, "sum", (1, 2, 3, 2), (1, 1, 2, 1),
                              ((0, 0), (1, 0), (1, 1), (0, 2)), (1, 1, 2, 1)),
            lax.reduce_window(x, "avg", (1, 1, 3, 3), (1, 1, 1, 1), "SAME"),
            lax.reduce_window_sum(x, (1, 1, 2, 3), (1, 1, 1, 2), ((0, 0), (0, 0), (1, 2), (0, 1)),
                                  (1, 1, 2, 3)),                      # base dilation
            # 1-d and 2-d operands (the kernels' path), windows all padding / all -inf
            reduce_window_argmax(x[0, 0, 0], (2,), (2,), ((2, 1),)),
            reduce_window_argmax(x[1, 0], (2, 2), (1, 2), ((1, 0), (0, 1))),
            lax.reduce_window(x[0, 1], "max", (2, 3), (1, 1), ((1, 1), (1, 1)), (1, 2)),
            lax.reduce_window_sum(x, (1, 1, 2, 2), (1, 1, 1, 1),
                                  ((0, 0), (0, 0), (-1, 0), (0, -2))))   # cropping


@pytest.mark.parametrize("dt", ci_sample([np.float64, np.float32], 0))
def test_reduce_window_compiled_equal_eager(dt):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 7, 6)).astype(dt)
    x[0, 1, 2, 3] = np.nan            # the max propagates NaN, argmax takes it
    x[1, 2, 0:2, 0:2] = 1.5           # ties: the first maximum
    x[1, 0, :, :] = -np.inf           # an all -inf plane: padding vs element conventions
    x[0, 0, :3, :] = -np.inf
    x[0, 0, 4, 4] = np.inf
    _no_break(_windows, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # a failed compile falls back warning
        got = ftrans.jit(_windows)(x)
    want = _windows(x)
    for k, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, k
        if k in (1, 7, 8, 9, 13):  # sums: float32 accumulates in float64 in one path
            np.testing.assert_allclose(g, w, rtol=TOL[dt], atol=TOL[dt] * 10, err_msg=str(k))
        else:                   # max / argmax: exact (NaN where NaN)
            np.testing.assert_array_equal(g, w, err_msg=str(k))


def _window_configs(rng, shape, count):
    """``count`` random windowed reductions of an array of ``shape``: op, window, strides,
    padding (negative: cropping), window dilation and (sums) base dilation, each with a
    non-empty result; every axis may be windowed."""
    out = []
    while len(out) < count:
        op = ("max", "sum", "argmax")[len(out) % 3]
        nd = len(shape)
        win = tuple(int(w) for w in rng.integers(1, 4, nd))
        st = tuple(int(v) for v in rng.integers(1, 4, nd))
        wd = tuple(int(v) for v in rng.integers(1, 3, nd))
        bd = tuple(int(v) for v in rng.integers(1, 3, nd)) if op == "sum" else (1,) * nd
        pads = tuple((int(lo), int(hi)) for lo, hi in rng.integers(-1, 3, (nd, 2)))
        ok = all((n - 1) * b + 1 + lo + hi >= (w - 1) * d + 1
                 for n, b, (lo, hi), w, d in zip(shape, bd, pads, win, wd))
        if ok:
            out.append((op, win, st, pads, wd, bd))
    return out


def test_window_parameters_sampled_compiled_equal_eager():
    # the window, its strides, padding and dilations are constants of the generated text:
    # a sample of them (one program: one compile) against the impls, NaN and ties included
    rng = np.random.default_rng(11)
    x = rng.standard_normal((3, 5, 7, 6))
    x[0, 1, 2, 3] = np.nan
    x[1, 2, 1:4, 1:4] = 0.5
    configs = _window_configs(rng, x.shape, 9) + _window_configs(rng, x.shape[2:], 6)

    def f(x):
        res = []
        for op, win, st, pads, wd, bd in configs:
            v = x if len(win) == 4 else x[1, 2]
            if op == "argmax":
                res.append(reduce_window_argmax(v, win, st, pads, wd))
            elif op == "max":
                res.append(lax.reduce_window(v, "max", win, st, pads, wd))
            else:
                res.append(lax.reduce_window_sum(v, win, st, pads, bd, wd))
        return tuple(res)

    _no_break(f, x)
    got, want = ftrans.jit(f)(x), f(x)
    for g, w, c in zip(got, want, configs):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, c
        if c[0] == "sum":
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, err_msg=str(c))
        else:
            np.testing.assert_array_equal(g, w, err_msg=str(c))


def test_reduce_window_integers_and_complex():
    rng = np.random.default_rng(4)
    xi = rng.integers(-5, 5, (3, 7, 6)).astype(np.int32)
    xi[0, :, :] = np.iinfo(np.int32).min          # the padding value: generic argmax index
    x8 = rng.integers(-128, 127, (3, 9), dtype=np.int8)

    def f(xi, x8, z):
        pads = ((0, 0), (1, 1), (1, 0))
        return (lax.reduce_window(xi, "max", (1, 2, 2), (1, 2, 2), pads),
                reduce_window_argmax(xi, (2, 2, 2), (1, 2, 2), ((1, 0),) + pads[1:]),
                lax.reduce_window(xi, "sum", (2, 3, 2), (1, 1, 2), pads),
                lax.reduce_window(x8, "sum", (1, 4), (1, 1)),               # wraps in int8
                lax.reduce_window(z, "sum", (2, 2), (1, 1), ((1, 0), (0, 1))))
    z = rng.standard_normal((4, 5)) + 1j * rng.standard_normal((4, 5))
    _no_break(f, xi, x8, z)
    _jit_equal(f, xi, x8, z, rtol=TOL[np.complex128])


def _loss(w, x, wg, w2):
    # stride 2 (its col2im skips positions), padding, kernel
    # dilation, a grouped convolution; max-pools (ReLU: ties at 0) without and with padding
    # and overlapping windows, an average pool
    y = lax.conv_general_dilated(x, w, (2, 1), ((1, 2), (1, 0)), rhs_dilation=(1, 2))
    z = lax.conv_general_dilated(x, wg, (1, 2), "SAME", feature_group_count=2)
    v = lax.conv_general_dilated(x, w2, (1, 1), "SAME")
    p = lax.reduce_window(fnp.maximum(v, 0.0), "max", (1, 1, 2, 2), (1, 1, 2, 2))
    q = lax.reduce_window(v, "max", (1, 1, 3, 3), (1, 1, 2, 2), ((0, 0), (0, 0), (1, 1), (1, 1)))
    a = lax.reduce_window(v, "avg", (1, 1, 2, 2), (1, 1, 1, 1))
    return (fnp.sum(fnp.tanh(y) ** 2) + fnp.sum(z * z * z) + fnp.sum(p * p)
            + fnp.sum(fnp.sin(q)) + fnp.sum(a))


@pytest.mark.parametrize("dt", ci_sample([np.float64, np.float32], 1))
def test_conv_pool_grad_compiled_equal_eager(dt):
    rng = np.random.default_rng(1)
    r = lambda *s: rng.standard_normal(s).astype(dt)  # noqa: E731
    w, x, wg, w2 = r(5, 4, 3, 2), r(2, 4, 9, 7), r(6, 2, 2, 3), r(3, 4, 3, 3)
    g = ftrans.grad(_loss, argnums=(0, 1, 2, 3))
    ir = ftrans.make_ir(g)(w, x, wg, w2)
    names = [e.prim.name for e in ir.eqns]
    assert "conv_patches_transpose" in names, "the VJP's col2im"
    # the forward pass is im2col + GEMM, and the backward reuses its matrices
    assert names.count("conv_patches") == 3 and "conv_general_dilated" not in names, names
    assert any(e.prim.name == "reduce_window_argmax" for e in ir.eqns)
    _no_break(g, w, x, wg, w2)
    _jit_equal(g, w, x, wg, w2, rtol=TOL[dt] * 10)


def test_reduce_window_graph_breaks_where_refused():
    f = lambda x: (lax.reduce_window(x, "max", (2,), (1,)),)  # noqa: E731
    for x in (np.arange(5, dtype=np.float16), np.array([True, False, True]), np.zeros(0)):
        assert "reduce_window_max" in _breaks(f, x)
        _jit_equal(f, x, rtol=0)
