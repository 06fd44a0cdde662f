"""Each control-flow construct with its sub-programs compiled by
``ftrans.compiler.compile_ir`` (the other lax tests use the reference executor, see
conftest.py): values against Python control flow, a derivative in each mode where
defined, a batched run.  Few, small programs: compile time is the cost here."""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import lax

pytestmark = pytest.mark.compiled

X = np.array([0.3, -0.2, 0.5])


def test_compiled_cond_and_switch():
    f = lambda x: lax.cond(fnp.sum(x) > 0, lambda x: fnp.sin(x) * x, lambda x: x - 1.0, x)
    np.testing.assert_allclose(f(X), np.sin(X) * X, rtol=1e-14)
    np.testing.assert_allclose(f(-X), -X - 1.0, rtol=1e-14)
    np.testing.assert_allclose(ftrans.grad(lambda x: fnp.sum(f(x)))(X),
                               np.cos(X) * X + np.sin(X), rtol=1e-13)
    np.testing.assert_allclose(ftrans.vmap(lambda s: lax.switch(s, [fnp.sin, fnp.cos], X))(
        np.array([0, 1])), [np.sin(X), np.cos(X)], rtol=1e-14)


def test_compiled_while_and_fori():
    f = lambda x: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, fnp.tanh(c[1]) * 2.0),
                                 (0, x))[1]
    want = X
    for _ in range(3):
        want = np.tanh(want) * 2.0
    np.testing.assert_allclose(f(X), want, rtol=1e-14)
    _, t = ftrans.jvp(f, (X,), (np.ones(3),))
    eps = 1e-6
    np.testing.assert_allclose(t, (f(X + eps) - f(X - eps)) / (2 * eps), rtol=1e-6)
    xs = np.array([0.5, 3.0, 9.0])
    np.testing.assert_array_equal(
        ftrans.vmap(lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x))(xs),
        [16.0, 12.0, 18.0])
    g = ftrans.grad(lambda x: fnp.sum(lax.fori_loop(0, 3, lambda i, h: fnp.tanh(h) * 2.0, x)))
    np.testing.assert_allclose(g(X), _fd_grad(lambda x: np.sum(f(x)), X), rtol=1e-6)


def _fd_grad(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(len(x))])


def test_compiled_scan_forward_reverse_batched():
    W = np.array([[0.5, -0.2, 0.1], [0.1, 0.3, 0.0], [0.2, 0.0, -0.4]])
    xs = np.linspace(-1, 1, 12).reshape(4, 3)

    def loss(W, xs):
        h, ys = lax.scan(lambda h, x: (fnp.tanh(W @ h + x), fnp.sum(h * h)), np.zeros(3), xs)
        return fnp.sum(h) + fnp.sum(ys)

    def loss_py(W, xs):
        h, s = np.zeros(3), 0.0
        for x in xs:
            s += np.sum(h * h)
            h = np.tanh(W @ h + x)
        return np.sum(h) + s
    assert loss(W, xs) == pytest.approx(loss_py(W, xs), rel=1e-14)
    g = ftrans.grad(loss)(W, xs)
    fd = _fd_grad(lambda w: loss_py(w.reshape(3, 3), xs), W.reshape(-1)).reshape(3, 3)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-9)
    per = ftrans.vmap(ftrans.grad(loss), in_axes=(None, 0))(W, np.stack([xs, -xs]))
    np.testing.assert_allclose(per[0], g, rtol=1e-12)
    jitted = ftrans.jit(ftrans.grad(loss))(W, xs)
    np.testing.assert_allclose(jitted, g, rtol=1e-12)


def test_eager_sub_programs_interpret_until_they_have_run_long_enough(monkeypatch):
    """Eager control flow runs a sub-program through the reference executor until
    programs of its text have spent ``EAGER_COMPILE_AFTER_S`` there, then compiled (in
    the middle of a scan too, and for the same body staged again); the values agree with
    a Python loop either way."""
    from ftrans.lax import _programs
    backends = []
    real = _programs.compile_ir
    monkeypatch.setattr(_programs, "compile_ir",
                        lambda ir, backend="cpu": backends.append(backend) or real(ir, backend))
    monkeypatch.setattr(_programs, "_SPENT", {})
    xs = np.linspace(-1.0, 1.0, 24).reshape(8, 3)
    want, c = [], np.zeros(3)
    for x in xs:
        want.append(c * c)
        c = c * 0.5 + np.sin(x)

    def run():
        return lax.scan(lambda c, x: (c * 0.5 + fnp.sin(x), c * c), np.zeros(3), xs)

    monkeypatch.setattr(_programs, "EAGER_COMPILE_AFTER_S", 3600.0)
    c1, ys1 = run()
    assert backends and "cpu" not in backends  # the reference executor only
    monkeypatch.setattr(_programs, "EAGER_COMPILE_AFTER_S", 1e-9)
    backends.clear()
    c2, ys2 = run()  # the same text: has spent more than 1e-9 s, compiled from the start
    assert backends == ["cpu"]
    monkeypatch.setattr(_programs, "_SPENT", {})
    backends.clear()
    c3, ys3 = run()  # interpreted once, then compiled, within one scan
    assert backends[0] is None and "cpu" in backends
    for c_, ys in [(c1, ys1), (c2, ys2), (c3, ys3)]:
        np.testing.assert_allclose(c_, c, rtol=1e-14)
        np.testing.assert_allclose(ys, want, rtol=1e-14)
