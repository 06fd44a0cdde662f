"""ftrans.optim: each optimizer against torch.optim's trajectories (skipped without
PyTorch), against one step written out here from the documented formula in plain NumPy,
jit(update) == update, vmap, pytrees, schedules, the fused kernels against the
composition, in-place steps, gradients through an update, and bad input."""
from __future__ import annotations

import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import optim
from ftrans.testing import check_grads

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed: "
                                                       "differential tests against it skip")

RNG = np.random.default_rng(0)
X = RNG.standard_normal((5, 3))
Y = RNG.standard_normal((5, 4))
W0 = RNG.standard_normal((3, 4))
B0 = RNG.standard_normal(4)
TOL = {"float64": dict(rtol=1e-10, atol=1e-12), "float32": dict(rtol=2e-5, atol=2e-6)}


def grads_of(w, b):
    """Gradient of 0.5 |tanh(X w + b) - Y|^2 + 0.1 sum(w^4), in plain NumPy."""
    h = np.tanh(X.astype(w.dtype) @ w + b)
    r = (h - Y.astype(w.dtype)) * (1 - h * h)
    return X.astype(w.dtype).T @ r + np.asarray(0.4, w.dtype) * w ** 3, r.sum(0)


# (ftrans.optim factory, its kwargs, torch.optim class, torch's kwargs)
CASES = [
    ("sgd", dict(learning_rate=0.05), "SGD", dict(lr=0.05)),
    ("sgd", dict(learning_rate=0.05, momentum=0.9, dampening=0.3, weight_decay=0.1),
     "SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.1)),
    ("sgd", dict(learning_rate=0.05, momentum=0.9, nesterov=True, maximize=True),
     "SGD", dict(lr=0.05, momentum=0.9, nesterov=True, maximize=True)),
    ("adam", dict(learning_rate=0.02), "Adam", dict(lr=0.02)),
    ("adam", dict(learning_rate=0.02, b1=0.8, b2=0.99, eps=1e-6, weight_decay=0.1,
                  amsgrad=True), "Adam",
     dict(lr=0.02, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1, amsgrad=True)),
    ("adam", dict(learning_rate=0.02, maximize=True), "Adam", dict(lr=0.02, maximize=True)),
    ("adamw", dict(learning_rate=0.02), "AdamW", dict(lr=0.02)),
    ("adamw", dict(learning_rate=0.02, weight_decay=0.3, amsgrad=True), "AdamW",
     dict(lr=0.02, weight_decay=0.3, amsgrad=True)),
    ("rmsprop", dict(learning_rate=0.01), "RMSprop", dict(lr=0.01)),
    ("rmsprop", dict(learning_rate=0.01, alpha=0.9, eps=1e-6, centered=True, momentum=0.5,
                     weight_decay=0.1), "RMSprop",
     dict(lr=0.01, alpha=0.9, eps=1e-6, centered=True, momentum=0.5, weight_decay=0.1)),
    ("rmsprop", dict(learning_rate=0.01, momentum=0.8, maximize=True), "RMSprop",
     dict(lr=0.01, momentum=0.8, maximize=True)),
    ("adagrad", dict(learning_rate=0.1), "Adagrad", dict(lr=0.1)),
    ("adagrad", dict(learning_rate=0.1, lr_decay=0.05, weight_decay=0.1,
                     initial_accumulator_value=0.2, eps=1e-6, maximize=True), "Adagrad",
     dict(lr=0.1, lr_decay=0.05, weight_decay=0.1, initial_accumulator_value=0.2, eps=1e-6,
          maximize=True)),
]
IDS = [f"{c[0]}-{i}" for i, c in enumerate(CASES)]


def ours(name, kwargs, dtype, steps=8, mode="eager", fused=None):
    """Parameters after each step: functional updates (eager or jit) or in-place steps."""
    opt = getattr(optim, name)(fused=fused, **kwargs)
    params = {"w": W0.astype(dtype), "b": B0.astype(dtype)}
    state = opt.init(params)
    update = ftrans.jit(opt.update) if mode == "jit" else opt.update
    out = []
    for _ in range(steps):
        gw, gb = grads_of(params["w"], params["b"])
        grads = {"w": gw, "b": gb}
        if mode == "inplace":
            params, state = opt.update(grads, state, params, inplace=True)
        else:
            updates, state = update(grads, state, params)
            params = optim.apply_updates(params, updates)
        assert params["w"].dtype == np.dtype(dtype)
        out.append(np.concatenate([params["w"].ravel(), params["b"].ravel()]).copy())
    return np.array(out), state


def theirs(cls, kwargs, dtype, steps=8):
    w = torch.tensor(W0.astype(dtype), requires_grad=True)
    b = torch.tensor(B0.astype(dtype), requires_grad=True)
    opt = getattr(torch.optim, cls)([w, b], foreach=False, **kwargs)
    out = []
    for _ in range(steps):
        gw, gb = grads_of(w.detach().numpy(), b.detach().numpy())
        w.grad, b.grad = torch.from_numpy(gw.copy()), torch.from_numpy(gb.copy())
        opt.step()
        out.append(np.concatenate([w.detach().numpy().ravel(), b.detach().numpy().ravel()]))
    return np.array(out), opt


@needs_torch
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("mode", ["eager", "composed", "jit", "inplace"])
@pytest.mark.parametrize("name,kw,cls,tkw", CASES, ids=IDS)
def test_trajectory_matches_torch(name, kw, cls, tkw, mode, dtype):
    fused = False if mode == "composed" else True
    got, _ = ours(name, kw, dtype, mode="eager" if mode == "composed" else mode, fused=fused)
    ref, _ = theirs(cls, tkw, dtype)
    np.testing.assert_allclose(got, ref, **TOL[dtype])


@needs_torch
@pytest.mark.parametrize("name,kw,cls,tkw", CASES, ids=IDS)
def test_state_matches_torch_state(name, kw, cls, tkw):
    """The state's arrays are torch's per-parameter state (same values, same count)."""
    _, state = ours(name, kw, "float64", steps=5)
    _, opt = theirs(cls, tkw, "float64", steps=5)
    names = {"mu": "exp_avg", "nu": "exp_avg_sq", "nu_max": "max_exp_avg_sq",
             "momentum": "momentum_buffer", "square_avg": "square_avg",
             "grad_avg": "grad_avg", "sum": "sum"}
    tstate = list(opt.state.values())      # w then b
    for field in state._fields[1:]:
        tree = getattr(state, field)
        if tree is None:
            assert not tstate or names[field] not in tstate[0]
            continue
        for leaf, ts in zip((tree["w"], tree["b"]), tstate):
            np.testing.assert_allclose(leaf, ts[names[field]].numpy(), rtol=1e-10,
                                       atol=1e-12)
        if "step" in tstate[0]:
            assert int(state.count) == int(tstate[0]["step"].item()) == 5


# ------------------------------------------------------------ one step, by hand
def _one_step(name, hyper, g, p, st, count, lr):
    """The documented update written out with NumPy (torch.optim's pseudo-code)."""
    t = count + 1
    g = -g if hyper.get("maximize") else g
    wd = hyper.get("weight_decay", 0.0)
    if name == "sgd":
        g = g + wd * p
        mom, damp = hyper.get("momentum", 0.0), hyper.get("dampening", 0.0)
        b = g if count == 0 else mom * st[0] + (1 - damp) * g
        d = g + mom * b if hyper.get("nesterov") else b
        return -lr * d, [b]
    if name in ("adam", "adamw"):
        b1, b2, eps = hyper["b1"], hyper["b2"], hyper["eps"]
        if name == "adam":
            g = g + wd * p
        m = b1 * st[0] + (1 - b1) * g
        v = b2 * st[1] + (1 - b2) * g * g
        vmax = np.maximum(st[2], v) if hyper.get("amsgrad") else v
        mhat = m / (1 - b1 ** t)
        vhat = vmax / (1 - b2 ** t)
        # PyTorch places eps after dividing sqrt(v) by sqrt(1 - b2^t), i.e. eps is added
        # to sqrt(vhat), and the step is lr * mhat / (sqrt(vhat) + eps)
        u = -lr * mhat / (np.sqrt(vhat) + eps)
        if name == "adamw":
            u = u - lr * wd * p
        return u, [m, v] + ([vmax] if hyper.get("amsgrad") else [])
    if name == "rmsprop":
        alpha, eps, mom = hyper["alpha"], hyper["eps"], hyper.get("momentum", 0.0)
        g = g + wd * p
        v = alpha * st[0] + (1 - alpha) * g * g
        out = [v]
        if hyper.get("centered"):
            a = alpha * st[1] + (1 - alpha) * g
            out.append(a)
            avg = np.sqrt(v - a * a) + eps
        else:
            avg = np.sqrt(v) + eps
        if mom > 0:
            b = mom * st[-1] + g / avg
            out.append(b)
            return -lr * b, out
        return -lr * g / avg, out
    if name == "adagrad":
        g = g + wd * p
        clr = lr / (1 + (t - 1) * hyper["lr_decay"])
        s = st[0] + g * g
        return -clr * g / (np.sqrt(s) + hyper["eps"]), [s]
    raise AssertionError(name)


HAND = [
    ("sgd", dict(momentum=0.9, dampening=0.25, weight_decay=0.05)),
    ("sgd", dict(momentum=0.7, nesterov=True, maximize=True)),
    ("adam", dict(b1=0.85, b2=0.95, eps=1e-3, weight_decay=0.2)),
    ("adam", dict(b1=0.9, b2=0.99, eps=1e-8, amsgrad=True, maximize=True)),
    ("adamw", dict(b1=0.9, b2=0.99, eps=1e-8, weight_decay=0.1)),
    ("rmsprop", dict(alpha=0.9, eps=1e-4, centered=True, momentum=0.6, weight_decay=0.1)),
    ("rmsprop", dict(alpha=0.8, eps=1e-8)),
    ("adagrad", dict(lr_decay=0.1, eps=1e-10, weight_decay=0.3)),
]


@pytest.mark.parametrize("count", [0, 4])
@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize("name,hyper", HAND, ids=[f"{h[0]}-{i}" for i, h in enumerate(HAND)])
def test_one_step_against_the_documented_formula(name, hyper, fused, count):
    """From a state with nonzero entries (step ``count`` + 1), one update against the
    formula written out above with NumPy in float64."""
    rng = np.random.default_rng(1)
    lr = 0.07
    opt = getattr(optim, name)(lr, fused=fused, **hyper)
    p = rng.standard_normal((2, 3))
    g = rng.standard_normal((2, 3))
    state = opt.init(p)
    fields = []
    for f in state._fields[1:]:
        if getattr(state, f) is None:
            fields.append(None)
        else:
            fields.append(rng.uniform(0.5, 2.0, (2, 3)) if f in ("nu", "square_avg", "sum",
                                                                 "nu_max")
                          else rng.standard_normal((2, 3)) * 0.1)
    state = type(state)(np.asarray(count, np.int32), *fields)
    u, new = opt.update(g, state, p)
    want_u, want_state = _one_step(name, hyper, g, p, fields, count, lr)
    np.testing.assert_allclose(u, want_u, rtol=1e-12, atol=1e-15)
    got_state = [x for x in new[1:] if x is not None]
    assert len(got_state) == len(want_state)
    for a, b in zip(got_state, want_state):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
    assert int(new.count) == count + 1 and new.count.dtype == np.int32


# ------------------------------------------------------------ the kernels and the composition
ALL = [(c[0], c[1]) for c in CASES]
ALL_IDS = IDS


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
@pytest.mark.parametrize("name,kw", ALL, ids=ALL_IDS)
def test_fused_kernel_equals_composition(name, kw, dtype):
    """The fused kernel is an implementation of the composition: same operations in the
    same order, so equal to the last bit (complex leaves: the kernel on the real view, the
    composition on the real and imaginary parts)."""
    rng = np.random.default_rng(2)
    shape = (4, 5)

    def arr():
        a = rng.standard_normal(shape)
        return (a + 1j * rng.standard_normal(shape)).astype(dtype) if dtype[0] == "c" \
            else a.astype(dtype)
    p0 = arr()
    res = []
    for fused in (True, False):
        opt = getattr(optim, name)(fused=fused, **kw)
        p, state = p0, opt.init(p0)
        r = np.random.default_rng(3)
        for _ in range(4):
            g = (r.standard_normal(shape) + (1j * r.standard_normal(shape)
                                             if dtype[0] == "c" else 0)).astype(dtype)
            u, state = opt.update(g, state, p)
            assert u.dtype == np.dtype(dtype) and u.shape == shape
            p = optim.apply_updates(p, u)
        res.append((p, state))
    (pa, sa), (pb, sb) = res
    np.testing.assert_array_equal(pa, pb)
    for x, y in zip(sa, sb):
        if x is not None:
            np.testing.assert_array_equal(x, y)


def test_eager_numpy_calls_the_kernel_and_transforms_do_not(monkeypatch):
    from ftrans.optim import _adam as adam_mod
    calls = []
    kernel = adam_mod._Adam.kernel
    monkeypatch.setattr(adam_mod._Adam, "kernel",
                        staticmethod(lambda *a: (calls.append(1), kernel(*a))[1]))
    opt = optim.adam(0.1)
    p = np.ones(3)
    opt.update(p, opt.init(p), p)
    assert len(calls) == 1
    ftrans.jit(opt.update)(p, opt.init(p), p)
    optim.adam(0.1, fused=False).update(p, opt.init(p), p)
    opt.update(np.ones(3, np.int64), opt.init(np.ones(3, np.int64)))   # not a float dtype
    opt.update(np.ones((3, 2)).T, opt.init(np.ones((2, 3))))            # not C-contiguous
    assert len(calls) == 1


def test_small_plain_sgd_prefers_numpy_unless_fused_true(monkeypatch):
    """fused=None calls the kernel where it measures faster: not for plain SGD out of
    place (one NumPy pass), always in place; fused=True wherever it applies."""
    from ftrans.optim import _sgd as sgd_mod
    calls = []
    kernel = sgd_mod._Sgd.kernel
    monkeypatch.setattr(sgd_mod._Sgd, "kernel",
                        staticmethod(lambda *a: (calls.append(1), kernel(*a))[1]))
    p = np.ones(8)
    for fused, inplace, want in ((None, False, 0), (None, True, 1), (True, False, 1)):
        calls.clear()
        opt = optim.sgd(0.1, fused=fused)
        opt.update(p, opt.init(p), p.copy(), inplace=inplace)
        assert len(calls) == want, (fused, inplace)
    calls.clear()
    big = np.ones(5000)
    opt = optim.sgd(0.1, momentum=0.9)
    opt.update(big, opt.init(big), big)
    assert len(calls) == 1


@pytest.mark.parametrize("name,kw", ALL, ids=ALL_IDS)
def test_inplace_step_equals_functional_step(name, kw):
    """update(inplace=True) writes p + u and the new state into the given arrays: the
    same numbers as the functional update followed by apply_updates, for the kernel and
    for the composition (a non-contiguous parameter takes the composition)."""
    rng = np.random.default_rng(4)
    base = rng.standard_normal((6, 4))
    for p0 in (base, base[:, ::2]):
        opt = getattr(optim, name)(**kw)
        p1, s1 = p0.copy(), opt.init(p0.copy())
        p2 = np.array(p0, order="K")
        if not p0.flags.c_contiguous:
            p2 = np.empty((6, 4))[:, ::2]
            p2[...] = p0
        s2 = opt.init(p2)
        for _ in range(3):
            g = rng.standard_normal(p0.shape)
            u, s1 = opt.update(g, s1, p1)
            p1 = optim.apply_updates(p1, u)
            ref = p2
            out, s2b = opt.update(g, s2, p2, inplace=True)
            assert out is ref and s2b is s2
        np.testing.assert_array_equal(p1, p2)
        for a, b in zip(s1, s2):
            if a is not None:
                np.testing.assert_array_equal(a, b)


# ------------------------------------------------------------ transforms
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name,kw", ALL, ids=ALL_IDS)
def test_jit_update_equals_update(name, kw, dtype):
    rng = np.random.default_rng(5)
    opt = getattr(optim, name)(**kw)
    params = {"w": rng.standard_normal((3, 4)).astype(dtype), "b": (rng.standard_normal(4)
                                                                   .astype(dtype),)}
    state = opt.init(params)
    jstate = state
    jupdate = ftrans.jit(opt.update)
    p, jp = params, params
    for _ in range(3):
        g = ftrans.tree_util.tree_map(lambda x: rng.standard_normal(x.shape).astype(dtype), p)
        u, state = opt.update(g, state, p)
        ju, jstate = jupdate(g, jstate, jp)
        p, jp = optim.apply_updates(p, u), optim.apply_updates(jp, ju)
    tol = dict(rtol=1e-13, atol=1e-15) if dtype == "float64" else dict(rtol=1e-6, atol=1e-7)
    for a, b in zip(ftrans.tree_util.tree_leaves((p, state)),
                    ftrans.tree_util.tree_leaves((jp, jstate))):
        assert np.asarray(a).dtype == np.asarray(b).dtype
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), **tol)


def test_training_loop_under_jit_with_a_schedule():
    """A whole step -- grad, update, apply -- under one jit, the learning rate a schedule
    of the traced count, against the same loop run eagerly."""
    def loss(p):
        return fnp.sum((fnp.tanh(X @ p["w"] + p["b"]) - Y) ** 2)

    opt = optim.adam(lambda count: 0.05 * 0.9 ** count)

    def step(p, s):
        u, s = opt.update(ftrans.grad(loss)(p), s, p)
        return optim.apply_updates(p, u), s
    jstep = ftrans.jit(step)
    p = q = {"w": W0, "b": B0}
    s = t = opt.init(p)
    for _ in range(5):
        p, s = step(p, s)
        q, t = jstep(q, t)
    np.testing.assert_allclose(p["w"], q["w"], rtol=1e-12)
    assert int(t.count) == 5 and float(loss(q)) < float(loss({"w": W0, "b": B0}))


@pytest.mark.parametrize("name,kw", ALL, ids=ALL_IDS)
def test_vmap_update_equals_a_loop(name, kw):
    """vmap over a batch of problems (params, grads and state batched, the count too)."""
    rng = np.random.default_rng(6)
    opt = getattr(optim, name)(**kw)
    ps = rng.standard_normal((3, 5))
    gs = rng.standard_normal((3, 5))
    s0 = opt.init(ps[0])
    for _ in range(2):                     # a nonzero state and count
        _, s0 = opt.update(gs[0], s0, ps[0])
    states = ftrans.tree_util.tree_map(lambda x: np.stack([np.asarray(x)] * 3), s0)
    u, new = ftrans.vmap(opt.update)(gs, states, ps)
    for i in range(3):
        ui, si = opt.update(gs[i], s0, ps[i])
        np.testing.assert_allclose(u[i], ui, rtol=1e-13, atol=1e-15)
        for a, b in zip(ftrans.tree_util.tree_leaves(new), ftrans.tree_util.tree_leaves(si)):
            np.testing.assert_allclose(np.asarray(a)[i], b, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name,kw", [("sgd", dict(learning_rate=0.1, momentum=0.9,
                                                   weight_decay=0.1)),
                                      ("adam", dict(learning_rate=0.1, weight_decay=0.1)),
                                      ("adamw", dict(learning_rate=0.1)),
                                      ("rmsprop", dict(centered=True, momentum=0.5)),
                                      ("adagrad", dict(lr_decay=0.1))])
def test_gradients_through_an_update(name, kw):
    """The composition is differentiable: the parameters after one update as a function
    of the parameters and the gradient (meta-learning), against finite differences."""
    rng = np.random.default_rng(7)
    opt = getattr(optim, name)(**kw)
    p = rng.standard_normal(4)
    s = opt.init(p)
    _, s = opt.update(rng.standard_normal(4), s, p)      # a nonzero state

    def after(p, g):
        u, _ = opt.update(g, s, p)
        return optim.apply_updates(p, u)
    check_grads(after, (p, rng.standard_normal(4)), order=2, modes=("fwd", "rev"))


# ------------------------------------------------------------ pytrees and schedules
def test_pytree_params_keep_their_structure():
    params = {"layer": [np.ones((2, 2)), (np.zeros(3), np.full(1, 2.0, np.float32))],
              "scale": np.float64(1.5) * np.ones(())}
    grads = ftrans.tree_util.tree_map(lambda x: np.ones_like(x), params)
    for name in ("sgd", "adam", "adamw", "rmsprop", "adagrad"):
        opt = getattr(optim, name)(0.1, **({"momentum": 0.9} if name == "sgd" else {}))
        state = opt.init(params)
        u, state = opt.update(grads, state, params)
        new = optim.apply_updates(params, u)
        assert ftrans.tree_util.tree_structure(new) == ftrans.tree_util.tree_structure(params)
        for a, b in zip(ftrans.tree_util.tree_leaves(new), ftrans.tree_util.tree_leaves(params)):
            assert a.dtype == b.dtype and a.shape == b.shape
        for f in state._fields[1:]:
            sub = getattr(state, f)
            if sub is not None:
                assert ftrans.tree_util.tree_structure(sub) == \
                    ftrans.tree_util.tree_structure(params)


def test_schedule_is_called_with_the_count():
    """learning_rate(count) is called with the number of updates made so far, and an update
    equals the one with that constant learning rate from the same state."""
    seen = []

    def schedule(count):
        seen.append(int(count))
        return 0.1 / (1 + int(count))
    p = np.array([1.0, -2.0])
    opt = optim.sgd(schedule, momentum=0.5)
    s = opt.init(p)
    for k in range(3):
        u, s_next = opt.update(2 * p, s)
        uc, _ = optim.sgd(0.1 / (1 + k), momentum=0.5).update(2 * p, s)
        np.testing.assert_array_equal(u, uc)
        p, s = optim.apply_updates(p, u), s_next
    assert seen == [0, 1, 2]


def test_apply_updates_keeps_dtypes_and_checks_structure():
    p = {"a": np.ones(2, np.float32)}
    out = optim.apply_updates(p, {"a": np.full(2, 0.5)})
    assert out["a"].dtype == np.float32 and out["a"].tolist() == [1.5, 1.5]
    with pytest.raises(ValueError, match="one structure"):
        optim.apply_updates(p, [np.ones(2)])


# ------------------------------------------------------------ bad input
@pytest.mark.parametrize("make,match,exc", [
    (lambda: optim.sgd(-0.1), "Invalid learning rate", ValueError),
    (lambda: optim.adam(-1e-3), "Invalid learning rate", ValueError),
    (lambda: optim.adam(b1=1.0), "beta parameter at index 0", ValueError),
    (lambda: optim.adam(b2=-0.1), "beta parameter at index 1", ValueError),
    (lambda: optim.adam(eps=-1.0), "Invalid epsilon value", ValueError),
    (lambda: optim.adamw(weight_decay=-0.1), "Invalid weight_decay value", ValueError),
    (lambda: optim.sgd(0.1, momentum=-0.5), "Invalid momentum value", ValueError),
    (lambda: optim.sgd(0.1, nesterov=True), "Nesterov momentum requires", ValueError),
    (lambda: optim.sgd(0.1, momentum=0.9, dampening=0.1, nesterov=True), "Nesterov",
     ValueError),
    (lambda: optim.rmsprop(alpha=-0.9), "Invalid alpha value", ValueError),
    (lambda: optim.rmsprop(momentum=-0.1), "Invalid momentum value", ValueError),
    (lambda: optim.adagrad(lr_decay=-1.0), "Invalid lr_decay value", ValueError),
    (lambda: optim.adagrad(initial_accumulator_value=-1.0),
     "Invalid initial_accumulator_value value", ValueError),
    (lambda: optim.sgd("0.1"), "learning_rate must be a real number", TypeError),
    (lambda: optim.adam(b1="0.9"), "b1 must be a real number", TypeError),
    (lambda: optim.adam(fused="yes"), "fused must be", TypeError),
])
def test_bad_hyperparameters(make, match, exc):
    with pytest.raises(exc, match=match):
        make()


def test_bad_update_calls():
    p = {"w": np.ones(3)}
    opt = optim.adam(0.1, weight_decay=0.1)
    s = opt.init(p)
    with pytest.raises(ValueError, match="needs params"):
        opt.update(p, s)
    with pytest.raises(ValueError, match="one structure"):
        opt.update(p, s, [np.ones(3)])
    with pytest.raises(TypeError, match="AdamState"):
        opt.update(p, optim.sgd(0.1).init(p), p)
    with pytest.raises(ValueError, match="structure of grads"):
        opt.update({"v": np.ones(3)}, s, {"v": np.ones(3)})
    ro = np.ones(3)
    ro.flags.writeable = False
    with pytest.raises(TypeError, match="writable NumPy arrays"):
        optim.sgd(0.1).update(np.ones(3), optim.sgd(0.1).init(ro), ro, inplace=True)
    with pytest.raises(TypeError, match="writable NumPy arrays"):
        ftrans.jit(lambda g, s, q: optim.sgd(0.1).update(g, s, q, inplace=True))(
            np.ones(3), optim.sgd(0.1).init(np.ones(3)), np.ones(3))


@pytest.mark.parametrize("name,kw", ALL, ids=ALL_IDS)
def test_complex_leaves_under_jit_and_as_real_pairs(name, kw):
    """A complex leaf is updated as the pair of its real and imaginary parts (PyTorch's
    convention): the same numbers as the real leaf of shape (..., 2), eagerly and under
    jit (the real state made from the complex one: Adagrad's initial accumulator is
    ``initial_accumulator_value + 0j``, as ``torch.full_like`` makes it)."""
    rng = np.random.default_rng(8)
    r = rng.standard_normal((3, 2))
    gr = rng.standard_normal((3, 2))
    z, gz = r[:, 0] + 1j * r[:, 1], gr[:, 0] + 1j * gr[:, 1]
    opt = getattr(optim, name)(**kw)
    sr = ftrans.tree_util.tree_map(
        lambda x: np.stack([x.real, x.imag], -1) if np.iscomplexobj(x) else x, opt.init(z))
    ur, _ = opt.update(gr, sr, r)
    uz, _ = opt.update(gz, opt.init(z), z)
    ju, _ = ftrans.jit(opt.update)(gz, opt.init(z), z)
    np.testing.assert_allclose(np.stack([uz.real, uz.imag], -1), ur, rtol=1e-14, atol=1e-16)
    np.testing.assert_allclose(ju, uz, rtol=1e-13, atol=1e-16)
