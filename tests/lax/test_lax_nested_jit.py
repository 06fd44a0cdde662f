"""Control flow nested in control flow, under every transform, and staged by ``jit``:
``jit(f) == f`` for each construct, grad/vmap of jitted control flow, ``make_ir`` shows
one equation per construct, ``disable_jit`` runs Python control flow, ``select``."""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import lax
from ftrans.testing import check_grads


# ---------------------------------------------------------------------------------
# nesting
# ---------------------------------------------------------------------------------
def _scan_in_cond(x, p):
    return lax.cond(p > 0, lambda x: lax.scan(lambda c, a: (c * a, c), 1.0, x)[1],
                    lambda x: fnp.sin(x), x)


def _cond_in_scan(x):
    # each iteration takes a data-dependent branch
    def step(c, a):
        c = lax.cond(a > 0, lambda c: c * a + 1.0, lambda c: fnp.sin(c) - a, c)
        return c, c * c
    return lax.scan(step, 0.5, x)


def _scan_in_scan(w, x):
    inner = lambda c, row: lax.scan(lambda d, a: (fnp.tanh(d * w + a), d), c, row)
    return lax.scan(inner, 0.1, x)


def _py_cond_in_scan(x):
    c, ys = 0.5, []
    for a in x:
        c = c * a + 1.0 if a > 0 else np.sin(c) - a
        ys.append(c * c)
    return c, np.array(ys)


X = np.array([0.7, -0.3, 1.2, -0.8, 0.4])


def test_nested_values():
    np.testing.assert_allclose(_scan_in_cond(X, 1.0), np.cumprod(np.r_[1.0, X[:-1]]))
    np.testing.assert_allclose(_scan_in_cond(X, -1.0), np.sin(X))
    c, ys = _cond_in_scan(X)
    c_py, ys_py = _py_cond_in_scan(X)
    assert c == pytest.approx(c_py, rel=1e-15)
    np.testing.assert_allclose(ys, ys_py, rtol=1e-15)


def test_nested_check_grads():
    check_grads(lambda x: _scan_in_cond(x, 1.0), (X,), order=2)
    check_grads(_cond_in_scan, (X,), order=2)
    check_grads(_scan_in_scan, (0.6, X.reshape(1, 5) * np.ones((3, 1))), order=2)
    # while (forward only) inside scan inside cond
    f = lambda x: lax.cond(True, lambda x: lax.scan(
        lambda c, a: (lax.while_loop(lambda d: d[0] < 2, lambda d: (d[0] + 1, d[1] * a),
                                     (0, c))[1], c), 1.0, x), lambda x: (1.0, x), x)
    check_grads(f, (X,), order=2, modes=("fwd",))


def test_nested_vmap_grad():
    xs = np.stack([X, -X, X * 0.5])
    got = ftrans.vmap(ftrans.grad(lambda x: fnp.sum(_cond_in_scan(x)[1])))(xs)
    want = [ftrans.grad(lambda x: fnp.sum(_cond_in_scan(x)[1]))(x) for x in xs]
    np.testing.assert_allclose(got, want, rtol=1e-13)
    # batched predicate of the outer cond selecting between a scan and a sin
    ps = np.array([1.0, -1.0, 2.0])
    got = ftrans.vmap(_scan_in_cond)(xs, ps)
    np.testing.assert_allclose(got, [_scan_in_cond(x, p) for x, p in zip(xs, ps)])


def test_perturbation_confusion_through_scan():
    # d/dx [x * d/dy scan(y -> y + x)](y) = d/dx [x * 1] = 1, not 2
    def inner(x):
        return ftrans.grad(lambda y: lax.scan(lambda c, _: (c + x, None), y, None,
                                              length=3)[0])(1.0)
    assert ftrans.grad(lambda x: x * inner(x))(2.0) == 1.0


# ---------------------------------------------------------------------------------
# jit
# ---------------------------------------------------------------------------------
def _fns():
    W = np.array([[0.5, -0.2], [0.1, 0.3]])
    return {
        "cond": (lambda x: lax.cond(fnp.sum(x) > 0, lambda x: fnp.sin(x) * x, fnp.cos, x),
                 np.array([0.3, -0.1])),
        "switch": (lambda x: lax.switch((fnp.sum(x) * 2).astype(int), [fnp.sin, fnp.cos,
                                                                        fnp.tanh], x),
                   np.array([0.4, 0.5])),
        "while": (lambda x: lax.while_loop(lambda c: c[0] < 4, lambda c: (c[0] + 1, W @ c[1]),
                                           (0, x))[1], np.array([1.0, 2.0])),
        "fori": (lambda x: lax.fori_loop(0, 3, lambda i, h: fnp.tanh(W @ h + x), x),
                 np.array([0.2, -0.4])),
        "scan": (lambda x: lax.scan(lambda c, a: (fnp.tanh(W @ c + a), fnp.sum(c)),
                                    np.zeros(2), x), np.linspace(-1, 1, 8).reshape(4, 2)),
        "map": (lambda x: lax.map(lambda r: fnp.sum(fnp.sin(r)), x),
                np.linspace(-1, 1, 6).reshape(3, 2)),
    }


FNS = _fns()


def _same(a, b, rtol=1e-13):
    la, ta = ftrans.tree_util.tree_flatten(a)
    lb, tb = ftrans.tree_util.tree_flatten(b)
    assert ta == tb
    for x, y in zip(la, lb):
        assert type(x) is np.ndarray and x.dtype == np.asarray(y).dtype
        np.testing.assert_allclose(x, y, rtol=rtol)


@pytest.mark.parametrize("name", sorted(FNS))
def test_jit_equals_eager_and_stages_one_equation(name):
    f, x = FNS[name]
    _same(ftrans.jit(f)(x), f(x))
    ir = ftrans.make_ir(f)(x)
    prim = {"switch": "cond", "fori": "scan", "map": "scan"}.get(name, name)
    assert [e.prim.name for e in ir.eqns].count(prim) == 1, str(ir)


@pytest.mark.parametrize("name", ["cond", "switch", "fori", "scan", "map"])
def test_grad_of_jitted_and_jit_of_grad(name):
    f, x = FNS[name]
    loss = lambda x: fnp.sum(ftrans.tree_util.tree_leaves(f(x))[-1])
    g = ftrans.grad(loss)(x)
    _same(ftrans.grad(ftrans.jit(loss))(x), g, rtol=1e-12)
    _same(ftrans.jit(ftrans.grad(loss))(x), g, rtol=1e-12)
    check_grads(ftrans.jit(loss), (x,), order=2)


def test_forward_mode_of_jitted_while_and_reverse_error():
    f, x = FNS["while"]
    jf = ftrans.jacfwd(ftrans.jit(f))(x)
    W = np.array([[0.5, -0.2], [0.1, 0.3]])
    np.testing.assert_allclose(jf, np.linalg.matrix_power(W, 4), rtol=1e-14)
    with pytest.raises(ValueError, match="while_loop"):
        ftrans.grad(ftrans.jit(lambda x: fnp.sum(f(x))))(x)


def test_vmap_of_jitted_control_flow():
    def f(x):  # batched predicates in both constructs
        y = lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x)
        return lax.cond(y > 12.0, lambda y: y - 12.0, lambda y: -y, y)
    xs = np.array([0.7, 3.0, 9.0, 11.0])
    want = [f(x) for x in xs]
    np.testing.assert_allclose(ftrans.vmap(ftrans.jit(f))(xs), want)
    np.testing.assert_allclose(ftrans.jit(ftrans.vmap(f))(xs), want)
    f_scan, x = FNS["scan"]
    xb = np.stack([x, x * 2.0, -x])
    _same(ftrans.vmap(ftrans.jit(f_scan))(xb), ftrans.vmap(f_scan)(xb))
    # dynamic fori_loop bounds under jit lower to while_loop
    g = ftrans.jit(lambda n, x: lax.fori_loop(0, n, lambda i, c: c * 2.0 + i, x))
    assert g(3, 1.0) == lax.fori_loop(0, 3, lambda i, c: c * 2.0 + i, 1.0)
    assert "while" in str(ftrans.make_ir(lambda n, x: lax.fori_loop(
        0, n, lambda i, c: c * 2.0, x))(3, 1.0))


def test_jit_closed_over_outer_tracers_under_grad():
    # the jitted function closes over a value grad differentiates (lifted by stage)
    def loss(w):
        f = ftrans.jit(lambda x: lax.scan(lambda c, a: (c * w + a, None), 0.0, x)[0])
        return f(np.arange(3.0))
    # c = (0*w + 0)*w + 1)*w + 2 = w + 2
    assert ftrans.grad(loss)(0.5) == pytest.approx(1.0)


def test_disable_jit_runs_python_control_flow():
    seen = []

    def body(c, x):
        seen.append(float(x))  # needs concrete values
        return c + x, c
    with ftrans.disable_jit():
        c, ys = lax.scan(body, 0.0, np.arange(3.0))
        out = lax.cond(np.float64(2.0), lambda x: float(x) + 1.0, lambda x: 0.0, 1.0)
        n = lax.while_loop(lambda i: int(i) < 4, lambda i: i + 1, 0)
        # reverse mode through a Python while loop works when it is not staged
        g = ftrans.grad(lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x))(3.0)
    assert seen == [0.0, 1.0, 2.0] and c == 3.0
    np.testing.assert_array_equal(ys, [0.0, 0.0, 1.0])
    assert out == 2.0 and n == 4 and g == 4.0


# ---------------------------------------------------------------------------------
# select
# ---------------------------------------------------------------------------------
def test_select():
    p = np.array([True, False, True])
    a, b = np.arange(3.0), -np.arange(3.0)
    np.testing.assert_array_equal(lax.select(p, a, b), np.where(p, a, b))
    np.testing.assert_array_equal(lax.select(np.bool_(False), a, b), b)
    check_grads(lambda a, b: lax.select(p, fnp.sin(a), b * b), (a, b), order=2)
    np.testing.assert_array_equal(
        ftrans.vmap(lax.select)(np.stack([p, ~p]), np.stack([a, a]), np.stack([b, b])),
        [np.where(p, a, b), np.where(~p, a, b)])
    ir = ftrans.make_ir(lax.select)(p, a, b)
    assert [e.prim.name for e in ir.eqns] == ["select"]
    with pytest.raises(TypeError, match="pred must be boolean"):
        lax.select(np.ones(3), a, b)
    with pytest.raises(TypeError, match="identical shapes and dtypes"):
        lax.select(p, a, b.astype(np.float32))
    with pytest.raises(TypeError, match="scalar or have the operands' shape"):
        lax.select(p[:2], a, b)


def test_make_ir_prints_the_sub_programs():
    text = str(ftrans.make_ir(lambda x: lax.cond(fnp.sum(x) > 0, fnp.sin, lambda x: x * 2.0,
                                                 x))(np.ones(3)))
    assert "cond[branches=({ ir(" in text and "sin a" in text and "mul a 2.0" in text
    text = str(ftrans.make_ir(lambda x: lax.scan(lambda c, a: (c * a, c), 1.0, x))(np.ones(3)))
    assert "scan[body={ ir(" in text and "length=3" in text and "reverse=False" in text


def test_custom_rules_and_stop_gradient_inside_scan():
    @ftrans.custom_vjp
    def clip_grad(x):
        return x
    clip_grad.defvjp(lambda x: (x, None), lambda r, g: (fnp.clip(g, -0.1, 0.1),))
    xs = np.linspace(-1, 1, 4)

    def run(step, w):  # the scan and the Python loop it stands for
        return (lax.scan(lambda c, x: (step(c, x, w), None), 0.5, xs)[0],
                _py_loop(step, w, xs))
    steps = [lambda c, x, w: clip_grad(c * w + x),
             lambda c, x, w: c * ftrans.stop_gradient(w) + x * w]
    for step in steps:
        g_scan = ftrans.grad(lambda w: run(step, w)[0])(2.0)
        g_py = ftrans.grad(lambda w: run(step, w)[1])(2.0)
        assert g_scan == pytest.approx(g_py, rel=1e-14)


def _py_loop(step, w, xs):
    c = 0.5
    for x in xs:
        c = step(c, x, w)
    return c
