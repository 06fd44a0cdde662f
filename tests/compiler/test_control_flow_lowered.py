"""Control flow compiled (issue 21, item 2): ``scan``, ``while`` and ``cond`` lower to loops
and branches inside the generated function -- no graph break, no Python per iteration --
and give what the Python loops and eager ftrans give."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import lax
from ftrans.compiler import graph_breaks

RNG = np.random.default_rng(0)


def _compiled(fn, *args):
    """``jit(fn)(*args)`` with no graph break and no fallback to the impls."""
    assert graph_breaks(ftrans.make_ir(fn)(*args)) == []
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        return ftrans.jit(fn)(*args)


def _rnn(Wh, Wx, b, xs):
    def step(h, x):
        h = fnp.tanh(h @ Wh + x @ Wx + b)
        return h, fnp.sum(h, axis=1)
    h, ys = lax.scan(step, fnp.zeros((xs.shape[1], Wh.shape[0])), xs)
    return fnp.sum(h ** 2) + fnp.sum(ys * 0.1)


def _rnn_by_hand(Wh, Wx, b, xs):
    h = np.zeros((xs.shape[1], Wh.shape[0]))
    total = 0.0
    for x in xs:
        h = np.tanh(h @ Wh + x @ Wx + b)
        total += 0.1 * h.sum()
    return (h ** 2).sum() + total


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_scan_rnn_value_and_gradient(dtype):
    Wh, Wx = (RNG.normal(size=(6, 6)) * 0.4).astype(dtype), (RNG.normal(size=(5, 6)) * 0.4).astype(dtype)
    b, xs = (RNG.normal(size=6) * 0.1).astype(dtype), RNG.normal(size=(7, 3, 5)).astype(dtype)
    tol = 1e-12 if dtype == np.float64 else 2e-5
    np.testing.assert_allclose(_compiled(_rnn, Wh, Wx, b, xs), _rnn_by_hand(Wh, Wx, b, xs),
                               rtol=tol)
    grad = ftrans.grad(_rnn, argnums=(0, 1, 2))
    got = _compiled(grad, Wh, Wx, b, xs)  # the forward scan and the reverse scan, both compiled
    with ftrans.disable_jit():
        want = grad(Wh, Wx, b, xs)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def test_scan_reverse_scalar_carry_literal_and_passthrough_outputs():
    xs = RNG.normal(size=9)

    def f(xs):
        def step(c, x):
            return c * 0.5 + x, (c, 1.0, x)  # ys: the carry, a literal, the input
        return lax.scan(step, 0.0, xs, reverse=True)
    c, (cs, ones, same) = _compiled(f, xs)
    acc, want = 0.0, np.empty(9)
    for k in range(8, -1, -1):
        want[k] = acc
        acc = acc * 0.5 + xs[k]
    np.testing.assert_allclose(c, acc, rtol=1e-14)
    np.testing.assert_allclose(cs, want, rtol=1e-14)
    np.testing.assert_array_equal(ones, np.ones(9))
    np.testing.assert_array_equal(same, xs)


def test_scan_length_zero():
    f = lambda xs: lax.scan(lambda c, x: (c + x, x * 2.0), np.zeros(3), xs)  # noqa: E731
    c, ys = _compiled(f, np.zeros((0, 3)))
    np.testing.assert_array_equal(c, np.zeros(3))
    assert ys.shape == (0, 3)


def test_fori_loop_static_bounds_and_checkpointed_body():
    x = RNG.normal(size=(4, 4)) * 0.5

    def f(x):
        step = ftrans.checkpoint(lambda i, h: fnp.sin(h @ x) + i * 0.01)
        return fnp.sum(lax.fori_loop(0, 6, step, x))
    h = x.copy()
    for i in range(6):
        h = np.sin(h @ x) + i * 0.01
    np.testing.assert_allclose(_compiled(f, x), h.sum(), rtol=1e-12)
    got = _compiled(ftrans.grad(f), x)
    with ftrans.disable_jit():
        want = ftrans.grad(f)(x)
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-12)


def test_while_loop():
    x = RNG.normal(size=5)

    def f(x, n):
        return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, fnp.sin(c[1]) * 1.1),
                              (0, x))
    k, y = _compiled(f, x, 7)
    want = x.copy()
    for _ in range(7):
        want = np.sin(want) * 1.1
    assert int(k) == 7
    np.testing.assert_allclose(y, want, rtol=1e-14)
    k, y = _compiled(f, x, -1)  # the condition false at once: the initial carry
    assert int(k) == 0
    np.testing.assert_array_equal(y, x)


@pytest.mark.parametrize("index", [-3, 0, 1, 2, 9])
def test_switch_clamps_the_index_as_the_impl(index):
    x, y = RNG.normal(size=(3, 3)), RNG.normal(size=(3, 3))
    branches = [lambda a, b: a @ b, lambda a, b: fnp.tanh(a) @ b.T, lambda a, b: a * 0.0 + 2.0]

    def f(i, a, b):
        return lax.switch(i, branches, a, b)
    want = [x @ y, np.tanh(x) @ y.T, np.full((3, 3), 2.0)][min(max(index, 0), 2)]
    np.testing.assert_allclose(_compiled(f, np.int32(index), x, y), want, rtol=1e-14)


def test_cond_and_its_gradient():
    x = RNG.normal(size=(2, 3))

    def f(p, a):
        return lax.cond(p, lambda a: fnp.sum(a ** 2), lambda a: fnp.sum(fnp.abs(a)), a)
    for p, want in ((True, (x ** 2).sum()), (False, np.abs(x).sum())):
        np.testing.assert_allclose(_compiled(f, p, x), want, rtol=1e-14)
    np.testing.assert_allclose(_compiled(ftrans.grad(f, argnums=1), True, x), 2 * x,
                               rtol=1e-14)
    np.testing.assert_allclose(_compiled(ftrans.grad(f, argnums=1), False, x), np.sign(x))


def test_a_body_that_prints_graph_breaks_and_prints_every_step(capsys):
    def f(xs):
        def step(c, x):
            ftrans.debug.print("x={x}", x=x)
            return c + x, None
        return lax.scan(step, 0.0, xs)[0]
    xs = np.arange(3.0)
    assert "scan" in graph_breaks(ftrans.make_ir(f)(xs))
    assert float(ftrans.jit(f)(xs)) == 3.0
    assert capsys.readouterr().out.split() == ["x=0.0", "x=1.0", "x=2.0"]
