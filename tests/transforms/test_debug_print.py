"""ftrans.debug.print / ftrans.debug.callback (jax.debug's semantics) and the effectful
primitive flag: printed at execution time with concrete values under every transform,
never while staging, never dropped as dead code."""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import lax
from ftrans.core.ir import dce, has_effects, IR

def _f(x):
    ftrans.debug.print("x = {}", x)
    y = fnp.sin(x)
    ftrans.debug.print("y = {y}", y=y)
    return fnp.sum(y ** 2)


def _lines(capsys):
    return capsys.readouterr().out.splitlines()


X = np.array([0.0, 1.0])
XS = str(X)
YS = str(np.sin(X))


def test_eager(capsys):
    _f(X)
    assert _lines(capsys) == [f"x = {XS}", f"y = {YS}"]


def test_jit_prints_at_execution_not_staging(capsys):
    jf = ftrans.jit(_f)
    ir = ftrans.make_ir(_f)(X)          # staging alone prints nothing
    assert _lines(capsys) == []
    assert [e.prim.name for e in ir.eqns].count("debug_callback") == 2
    jf(X)
    assert _lines(capsys) == [f"x = {XS}", f"y = {YS}"]
    jf(X + 1)                           # the cached program prints the new values
    assert _lines(capsys) == [f"x = {X + 1}", f"y = {np.sin(X + 1)}"]


def test_jit_unused_value_still_printed(capsys):
    def g(x):
        ftrans.debug.print("v {}", x * 3)   # nothing depends on it
        return x + 1
    ftrans.jit(g)(np.float64(2.0))
    assert _lines(capsys) == ["v 6.0"]


def test_grad_prints_primals_once(capsys):
    g = ftrans.grad(_f)(X)
    np.testing.assert_allclose(g, 2 * np.sin(X) * np.cos(X))
    assert _lines(capsys) == [f"x = {XS}", f"y = {YS}"]
    ftrans.jit(ftrans.grad(_f))(X)
    assert _lines(capsys) == [f"x = {XS}", f"y = {YS}"]


def test_jvp_prints_primals(capsys):
    ftrans.jvp(_f, (X,), (np.ones(2),))
    assert _lines(capsys) == [f"x = {XS}", f"y = {YS}"]


def test_vmap_once_per_element(capsys):
    ftrans.vmap(_f)(X)
    assert _lines(capsys) == ["x = 0.0", "x = 1.0", "y = 0.0", f"y = {np.sin(1.0)}"]
    ftrans.jit(ftrans.vmap(_f))(X)
    assert _lines(capsys) == ["x = 0.0", "x = 1.0", "y = 0.0", f"y = {np.sin(1.0)}"]


def _body(c, a):
    ftrans.debug.print("c {}", c)
    return c + a, c


@pytest.mark.parametrize("wrap", [lambda f: f, ftrans.jit], ids=["eager", "jit"])
def test_scan_per_iteration(capsys, wrap):
    wrap(lambda x: lax.scan(_body, x, np.arange(3.0))[0])(1.0)
    assert _lines(capsys) == ["c 1.0", "c 1.0", "c 2.0"]


def test_scan_result_unused_still_runs(capsys):
    ftrans.jit(lambda x: (lax.scan(_body, x, np.arange(2.0)), x * 2)[1])(1.0)
    assert _lines(capsys) == ["c 1.0", "c 1.0"]


def test_grad_scan_prints_forward_only(capsys):
    ftrans.jit(ftrans.grad(lambda x: lax.scan(_body, x, np.arange(3.0))[0]))(1.0)
    assert _lines(capsys) == ["c 1.0", "c 1.0", "c 2.0"]


def test_while_and_cond(capsys):
    def body(c):
        ftrans.debug.print("w {}", c)
        return c + 1
    ftrans.jit(lambda x: lax.while_loop(lambda c: c < 3, body, x))(0)
    assert _lines(capsys) == ["w 0", "w 1", "w 2"]

    def br(name, sgn):
        return lambda v: (ftrans.debug.print(name + " {}", v), sgn * v)[1]
    f = ftrans.jit(lambda x: lax.cond(x > 0, br("pos", 1), br("neg", -1), x))
    f(2.0)
    f(-1.0)
    assert _lines(capsys) == ["pos 2.0", "neg -1.0"]


def test_dce_keeps_effects():
    ir = ftrans.make_ir(lambda x: (ftrans.debug.print("{}", x), x + 1)[1])(X)
    assert has_effects(ir)
    kept = dce(ir, [False])
    assert [e.prim.name for e in kept.eqns] == ["debug_callback"]
    pure = ftrans.make_ir(lambda x: x + 1)(X)
    assert not has_effects(pure) and dce(pure, [False]).eqns == []
    # a scan whose body prints is kept although its results are unused
    sc = ftrans.make_ir(lambda x: (lax.scan(_body, x, np.arange(2.0)), x)[1])(1.0)
    assert has_effects(sc)
    assert [e.prim.name for e in dce(sc).eqns] == ["scan"]
    assert isinstance(sc.eqns[0].params["body"], IR)


def test_callback_pytrees_and_kwargs(capsys):
    seen = []
    ftrans.jit(lambda x: (ftrans.debug.callback(
        lambda a, b=None: seen.append((a, b)), {"u": x}, b=(x * 2, 3)), x)[1])(X)
    (a, b), = seen
    np.testing.assert_array_equal(a["u"], X)
    np.testing.assert_array_equal(b[0], 2 * X)
    assert b[1] == 3
    ftrans.debug.print("{a} and {b}", a=1, b="s")
    assert _lines(capsys) == ["1 and s"]


def test_errors():
    with pytest.raises(TypeError, match="debug.callback: callback must be callable"):
        ftrans.debug.callback(3, 1.0)
    with pytest.raises(TypeError, match="debug.print: fmt must be a str"):
        ftrans.debug.print(1.0, 2.0)


def test_matches_jax_output(capsys, jax_x64):
    jax = jax_x64
    def jf(x):
        jax.debug.print("x = {}", x)
        return jax.numpy.sin(x).sum()
    jax.vmap(jf)(X)
    jax.block_until_ready(jax.grad(jf)(X))
    want = _lines(capsys)

    def ff(x):
        ftrans.debug.print("x = {}", x)
        return fnp.sum(fnp.sin(x))
    ftrans.vmap(ff)(X)
    ftrans.grad(ff)(X)
    assert _lines(capsys) == want
