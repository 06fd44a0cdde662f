"""ftrans.lax.scan and map: values against Python loops, derivatives against finite
differences (order 2, both modes, float64 and float32), reverse mode's stacked
residuals and checkpointed bodies, batching against Python loops, and errors."""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import lax
from ftrans.testing import check_grads
from ftrans.core.ir import stage

DTYPES = [np.float64, np.float32]
RTOL = {np.float64: 1e-12, np.float32: 1e-5}


def _rnn_step(W, U):
    def step(h, x):
        h = fnp.tanh(W @ h + U @ x)
        return h, fnp.sum(h * h)
    return step


def _rnn(W, U, h0, xs):
    h, ys = lax.scan(_rnn_step(W, U), h0, xs)
    return fnp.sum(h) + fnp.sum(ys * fnp.arange(1.0, xs.shape[0] + 1).astype(h.dtype))


def _rnn_py(W, U, h0, xs):
    h, ys = h0, []
    for x in xs:
        h, y = _rnn_step(W, U)(h, x)
        ys.append(y)
    return fnp.sum(h) + fnp.sum(fnp.stack(ys) * fnp.arange(1.0, xs.shape[0] + 1).astype(h.dtype))


def _rnn_args(dtype, n=3, d=2, t=4, seed=0):
    rng = np.random.default_rng(seed)
    return tuple(np.asarray(a, dtype) for a in (
        rng.normal(size=(n, n)) * 0.5, rng.normal(size=(n, d)) * 0.5,
        rng.normal(size=n) * 0.5, rng.normal(size=(t, d))))


def test_scan_matches_python_loop_forward_and_reverse():
    xs = np.arange(1.0, 6.0)

    def f(c, x):
        return c * 0.5 + x, (c * x, x - c)
    for reverse in (False, True):
        c, (a, b) = lax.scan(f, 1.0, xs, reverse=reverse)
        cc, ya, yb = 1.0, [None] * 5, [None] * 5
        for i in (range(4, -1, -1) if reverse else range(5)):
            cc, (ya[i], yb[i]) = f(cc, xs[i])
        assert c == cc
        np.testing.assert_array_equal(a, ya)
        np.testing.assert_array_equal(b, yb)


def test_scan_pytrees_none_xs_and_length():
    init = {"h": np.zeros(2), "n": np.int64(0)}

    def f(c, x):
        return {"h": c["h"] + x["a"] * x["b"], "n": c["n"] + 1}, None
    xs = {"a": np.ones((3, 2)), "b": np.arange(3.0)}
    c, ys = lax.scan(f, init, xs)
    assert ys is None and c["n"] == 3
    np.testing.assert_array_equal(c["h"], [3.0, 3.0])
    c, ys = lax.scan(lambda c, _: (c + 1, c * 2), 0, None, length=4)
    assert c == 4
    np.testing.assert_array_equal(ys, [0, 2, 4, 6])
    # zero-length scan: the initial carry and empty ys of the right shape and dtype
    c, ys = lax.scan(lambda c, x: (c + x, (c * x).astype(np.float32)), np.zeros(2),
                     np.zeros((0, 2)))
    assert ys.shape == (0, 2) and ys.dtype == np.float32
    np.testing.assert_array_equal(c, 0.0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_map_matches_python(dtype):
    xs = np.linspace(-1, 1, 6).reshape(3, 2).astype(dtype)
    out = lax.map(lambda x: fnp.sin(x) * x[0], xs)
    assert out.dtype == dtype
    np.testing.assert_allclose(out, [np.sin(x) * x[0] for x in xs], rtol=RTOL[dtype])
    out = lax.map(lambda d: {"s": fnp.sum(d["a"])}, {"a": xs})
    np.testing.assert_allclose(out["s"], xs.sum(1), rtol=RTOL[dtype])
    check_grads(lambda xs: lax.map(lambda x: fnp.tanh(x) * x[1], xs), (xs,), order=2)


@pytest.mark.parametrize("dtype", DTYPES)
def test_rnn_grad_check_grads(dtype):
    args = _rnn_args(dtype)
    assert _rnn(*args).dtype == dtype
    np.testing.assert_allclose(_rnn(*args), _rnn_py(*args), rtol=RTOL[dtype])
    check_grads(_rnn, args, order=2, modes=("fwd", "rev"))
    g = ftrans.grad(_rnn, argnums=(0, 1, 2, 3))(*args)
    g_py = ftrans.grad(_rnn_py, argnums=(0, 1, 2, 3))(*args)
    for a, b, x in zip(g, g_py, args):
        assert a.dtype == dtype and a.shape == x.shape
        np.testing.assert_allclose(a, b, rtol=RTOL[dtype], atol=RTOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumulative_product_grad(dtype):
    xs = np.array([0.5, 2.0, -1.5, 0.8, 3.0], dtype)

    def cumprod(xs):
        return lax.scan(lambda c, x: (c * x, c * x), np.ones((), dtype), xs)[1]
    np.testing.assert_allclose(cumprod(xs), np.cumprod(xs), rtol=RTOL[dtype])
    g = ftrans.grad(lambda xs: fnp.sum(cumprod(xs)))(xs)
    # d/dx_j sum_i prod_{k<=i} x_k = sum_{i>=j} prod_{k<=i, k!=j} x_k
    want = [sum(np.prod(np.delete(xs[:i + 1], j)) for i in range(j, len(xs)))
            for j in range(len(xs))]
    np.testing.assert_allclose(g, want, rtol=RTOL[dtype])
    assert g.dtype == dtype
    check_grads(cumprod, (xs,), order=2, modes=("fwd", "rev"))


def test_reverse_scan_check_grads_and_complex():
    xs = np.linspace(0.2, 1.0, 4)
    f = lambda c, xs: lax.scan(lambda c, x: (fnp.sin(c) * x, c + x), c, xs, reverse=True)
    check_grads(f, (0.3, xs), order=2)
    z = np.array([0.3 + 0.2j, -0.1 + 0.5j])
    check_grads(lambda z, xs: lax.scan(lambda c, x: (fnp.sin(c) * x + c * c, c), z, xs)[0],
                (z, xs), order=2)


def test_grad_wrt_closed_over_weights_and_integer_carries():
    W = np.array([[0.5, -0.2], [0.1, 0.3]])

    def f(W, xs):
        (h, n), ys = lax.scan(lambda c, x: ((fnp.tanh(W @ c[0] + x), c[1] + 1), c[1]),
                              (np.zeros(2), np.int64(0)), xs)
        return fnp.sum(h) * n.astype(float) + fnp.sum(ys)
    xs = np.linspace(-1, 1, 6).reshape(3, 2)
    check_grads(f, (W, xs), order=2)


def test_jvp_and_linearity_of_tangents():
    args = _rnn_args(np.float64)
    t = tuple(np.ones_like(a) for a in args)
    out, tan = ftrans.jvp(_rnn, args, t)
    out_py, tan_py = ftrans.jvp(_rnn_py, args, t)
    np.testing.assert_allclose(out, out_py, rtol=1e-13)
    np.testing.assert_allclose(tan, tan_py, rtol=1e-12)


# ---------------------------------------------------------------------------------
# reverse mode: stacked residuals, checkpoint
# ---------------------------------------------------------------------------------
def _scan_eqns(fun, *args):
    ir, _ = stage(fun, list(args))
    return [e for e in ir.eqns if e.prim.name == "scan"]


def _stacked_residual_elements(fwd_eqn):
    body = fwd_eqn.params["body"]
    n_carry = fwd_eqn.params["n_carry"]
    return sum(v.aval.size for v in fwd_eqn.outputs[n_carry + 1:])  # after carry, 1 y


def test_vjp_is_a_forward_scan_with_residuals_and_a_reverse_scan():
    W = np.eye(3) * 0.5
    step = lambda h, x: (fnp.tanh(W @ fnp.sin(h) + x), fnp.sum(h))

    def vjp_of_scan(h0, xs):
        out, pull = ftrans.vjp(lambda h0: lax.scan(step, h0, xs), h0)
        return pull((np.ones(3), np.ones(5)))
    fwd, bwd = _scan_eqns(vjp_of_scan, np.zeros(3), np.zeros((5, 3)))
    assert fwd.params["reverse"] is False and bwd.params["reverse"] is True
    # the forward scan stacks per-iteration residuals along the scan axis
    stacked = fwd.outputs[fwd.params["n_carry"] + 1:]
    assert stacked and all(v.aval.shape[0] == 5 for v in stacked)
    # the loop-invariant W is not stacked (it is a constant of the program)
    assert all(v.aval.shape[1:] != (3, 3) for v in stacked)


def test_checkpointed_body_saves_only_its_inputs_and_gives_the_same_gradients():
    rng = np.random.default_rng(3)
    W = rng.normal(size=(4, 4)) * 0.4

    def body(h, x):
        for _ in range(3):  # several intermediates per iteration
            h = fnp.tanh(W @ h + x)
        return h, fnp.sum(h ** 2)

    def loss(h0, xs, b):
        h, ys = lax.scan(b, h0, xs)
        return fnp.sum(h) + fnp.sum(ys)
    h0, xs = rng.normal(size=4), rng.normal(size=(6, 4))
    g_plain = ftrans.grad(loss)(h0, xs, body)
    g_ckpt = ftrans.grad(loss)(h0, xs, ftrans.checkpoint(body))
    np.testing.assert_allclose(g_ckpt, g_plain, rtol=1e-13)
    check_grads(lambda h0, xs: loss(h0, xs, ftrans.checkpoint(body)), (h0, xs), order=2)

    def count(b):
        f = lambda h0, xs: ftrans.vjp(lambda h0: loss(h0, xs, b), h0)[1](np.ones(()))
        return _stacked_residual_elements(_scan_eqns(f, h0, xs)[0])
    plain, ckpt = count(body), count(ftrans.checkpoint(body))
    # checkpoint: only the carry (4 numbers) per iteration; xs are reused, not stacked
    assert ckpt == 6 * 4
    assert plain >= 3 * ckpt


# ---------------------------------------------------------------------------------
# batching
# ---------------------------------------------------------------------------------
def _loop(f, *xs):
    outs = [f(*a) for a in zip(*xs)]
    return ftrans.tree_util.tree_map(lambda *o: np.stack(o), *outs)


def _assert_tree_close(a, b, rtol=1e-13):
    for x, y in zip(ftrans.tree_util.tree_leaves(a), ftrans.tree_util.tree_leaves(b)):
        np.testing.assert_allclose(x, y, rtol=rtol)


@pytest.mark.parametrize("which", ["xs", "init", "closure", "all"])
def test_vmap_of_scan_matches_a_python_loop(which):
    rng = np.random.default_rng(4)
    B = 3
    hs, ws, xss = rng.normal(size=(B, 2)), rng.normal(size=(B, 2)), rng.normal(size=(B, 5, 2))
    h1, w1, xs1 = hs[0], ws[0], xss[0]

    def f(h, w, xs):
        return lax.scan(lambda c, x: (fnp.tanh(c * w + x), c[0] * x), h, xs)
    in_axes = {"xs": (None, None, 0), "init": (0, None, None), "closure": (None, 0, None),
               "all": (0, 0, 0)}[which]
    args = [a if ax is not None else a1 for a, a1, ax in
            zip((hs, ws, xss), (h1, w1, xs1), in_axes)]
    got = ftrans.vmap(f, in_axes=in_axes)(*args)
    mapped = [a if ax is not None else [a] * B for a, ax in zip(args, in_axes)]
    _assert_tree_close(got, _loop(f, *mapped))


def test_vmap_of_scan_along_other_axes_and_per_example_gradients():
    rng = np.random.default_rng(5)
    xss = rng.normal(size=(5, 3, 2))  # batch axis 1 of the stacked xs
    f = lambda xs: lax.scan(lambda c, x: (c * 0.9 + x, fnp.sin(c)), np.zeros(2), xs)
    got = ftrans.vmap(f, in_axes=1, out_axes=(0, 1))(xss)
    want = _loop(f, np.moveaxis(xss, 1, 0))
    np.testing.assert_allclose(got[0], want[0], rtol=1e-14)
    np.testing.assert_allclose(got[1], np.moveaxis(want[1], 0, 1), rtol=1e-14)
    # per-example gradients (vmap of grad) and grad of vmap
    W, U, h0, _ = _rnn_args(np.float64)
    xb = rng.normal(size=(4, 3, 2))
    per = ftrans.vmap(ftrans.grad(_rnn), in_axes=(None, None, None, 0))(W, U, h0, xb)
    np.testing.assert_allclose(per, [ftrans.grad(_rnn)(W, U, h0, x) for x in xb], rtol=1e-12)
    gsum = ftrans.grad(lambda W: fnp.sum(ftrans.vmap(lambda x: _rnn(W, U, h0, x))(xb)))(W)
    np.testing.assert_allclose(gsum, per.sum(0), rtol=1e-12)


def test_hessian_of_scan():
    f = lambda x: fnp.sum(lax.scan(lambda c, a: (c + a, c * a), 0.0, x)[1])
    # sum_{j<i} x_i x_j: Hessian 1 off the diagonal, 0 on it
    h = ftrans.hessian(f)(np.arange(4.0))
    np.testing.assert_array_equal(h, np.ones((4, 4)) - np.eye(4))
    np.testing.assert_array_equal(ftrans.jacrev(ftrans.jacrev(f))(np.arange(4.0)), h)


# ---------------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------------
def test_scan_errors():
    xs = np.ones((3, 2))
    with pytest.raises(TypeError, match=r"must return a pair \(carry, y\)"):
        lax.scan(lambda c, x: c, 0.0, xs)
    with pytest.raises(TypeError, match=r"has type float32\[\] but float64\[\] was expected"):
        lax.scan(lambda c, x: (c.astype(np.float32), None), 0.0, xs)
    with pytest.raises(TypeError, match="cannot change shape"):
        lax.scan(lambda c, x: (c + x, None), 0.0, xs)
    with pytest.raises(TypeError, match="structure of the loop carry"):
        lax.scan(lambda c, x: ((c, c), None), 0.0, xs)
    with pytest.raises(ValueError, match="same leading axis size"):
        lax.scan(lambda c, x: (c, None), 0.0, (np.ones(3), np.ones(4)))
    with pytest.raises(ValueError, match="pass length="):
        lax.scan(lambda c, x: (c, None), 0.0, None)
    with pytest.raises(ValueError, match="length=2 but"):
        lax.scan(lambda c, x: (c, None), 0.0, xs, length=2)
    with pytest.raises(ValueError, match="leading axis to scan over"):
        lax.scan(lambda c, x: (c, None), 0.0, np.float64(1.0))
    with pytest.raises(ValueError, match="unroll"):
        lax.scan(lambda c, x: (c, None), 0.0, xs, unroll=0)
    c, _ = lax.scan(lambda c, x: (c + x[0], None), 0.0, xs, unroll=True)  # accepted
    assert c == 3.0


def test_linearize_replays_the_tangent_scan():
    f = lambda x: lax.scan(lambda c, a: (c * a, fnp.sin(c) * a), 1.0, x)
    x = np.arange(1.0, 4.0)
    out, jf = ftrans.linearize(f, x)
    for t in (np.ones(3), np.array([0.5, -1.0, 2.0])):
        want = ftrans.jvp(f, (x,), (t,))[1]
        _assert_tree_close(jf(t), want)


def test_backward_scan_computes_only_the_needed_cotangents():
    W, U, h0, xs = _rnn_args(np.float64)
    # grad wrt W only: the backward scan carries the carry's and W's cotangents and
    # stacks no cotangent for xs (data)
    fwd, bwd = _scan_eqns(lambda W: ftrans.grad(_rnn)(W, U, h0, xs), W)
    assert bwd.params["reverse"] and len(bwd.outputs) == bwd.params["n_carry"]
    # grad wrt xs as well: one stacked cotangent
    fwd, bwd = _scan_eqns(lambda W, xs: ftrans.grad(_rnn, argnums=(0, 3))(W, U, h0, xs), W, xs)
    assert len(bwd.outputs) == bwd.params["n_carry"] + 1
    assert bwd.outputs[-1].aval.shape == xs.shape


try:
    from hypothesis import given, strategies as st
except ImportError:  # hypothesis is a test extra
    given = None

if given is not None:
    @given(n=st.integers(0, 6), reverse=st.booleans(), seed=st.integers(0, 2 ** 16))
    def test_property_scan_equals_python_loop_and_grads(n, reverse, seed):
        rng = np.random.default_rng(seed)
        xs, w = rng.uniform(-1, 1, (n, 2)), rng.uniform(-1, 1, 2)

        def f(w, xs):
            return lax.scan(lambda c, x: (fnp.sin(c * w) + x, c * x), np.ones(2), xs,
                            reverse=reverse)

        def py(w, xs):
            c, ys = np.ones(2), [None] * n
            for i in (range(n - 1, -1, -1) if reverse else range(n)):
                c, ys[i] = np.sin(c * w) + xs[i], c * xs[i]
            return c, np.array(ys).reshape(n, 2)
        c, ys = f(w, xs)
        c_py, ys_py = py(w, xs)
        np.testing.assert_allclose(c, c_py, rtol=1e-14)
        np.testing.assert_allclose(ys, ys_py, rtol=1e-14)
        check_grads(f, (w, xs), order=1, modes=("fwd", "rev"))


@pytest.mark.parametrize("batch_size", [1, 2, 3, 5, 8])
def test_map_batch_size(batch_size):
    xs = {"a": np.linspace(-1, 1, 10).reshape(5, 2), "b": np.arange(5.0)}
    f = lambda d: {"s": fnp.sin(d["a"]) * d["b"], "t": fnp.sum(d["a"])}
    got = lax.map(f, xs, batch_size=batch_size)
    want = lax.map(f, xs)
    _assert_tree_close(got, want, rtol=1e-15)
    np.testing.assert_allclose(want["s"], np.sin(xs["a"]) * xs["b"][:, None], rtol=1e-15)
    check_grads(lambda a: lax.map(lambda r: fnp.tanh(r) * r[0], a, batch_size=batch_size),
                (xs["a"],), order=1)
    if batch_size < 5:  # a loop over vectorized batches
        ir = ftrans.make_ir(lambda a: lax.map(fnp.sin, a, batch_size=batch_size))(xs["a"])
        (eqn,) = [e for e in ir.eqns if e.prim.name == "scan"]
        assert eqn.params["length"] == 5 // batch_size
    with pytest.raises(ValueError, match="batch_size"):
        lax.map(f, xs, batch_size=0)
