"""compat.func (torch.func's API) against torch.func 2.13 where installed, against
central differences and closed forms, and against loops of ordinary backward() calls:
grad/grad_and_value/vjp/jvp/jacrev/jacfwd/hessian/vmap, nesting, functional_call,
stack_module_state, the per-sample-gradients recipe and model ensembling."""
from __future__ import annotations

import numpy as np
import pytest

import ftrans.compat as fc
from ftrans.compat import func as ff

try:
    import torch
    import torch.func as tf
except ImportError:  # pragma: no cover
    torch = tf = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed: differential "
                                                       "tests against it are skipped")
RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 2))
B = RNG.standard_normal(3)
XS = RNG.standard_normal((5, 3))
YS = RNG.standard_normal((3, 5))


def _np(v):
    if isinstance(v, dict):
        return {k: _np(x) for k, x in v.items()}
    if isinstance(v, (tuple, list)):
        return type(v)(_np(x) for x in v)
    if hasattr(v, "detach"):
        return np.array(v.detach().numpy())
    return v


def _close(a, b, rtol=1e-10, atol=1e-12):
    a, b = _np(a), _np(b)
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b)
        for k in a:
            _close(a[k], b[k], rtol, atol)
    elif isinstance(a, (tuple, list)):
        assert isinstance(b, (tuple, list)) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _close(x, y, rtol, atol)
    elif isinstance(a, np.ndarray):
        assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
    else:
        assert a == b


def t(T, a, rg=False):
    return T.tensor(np.asarray(a), dtype=T.float64, requires_grad=rg)


# functions written once, run with either library as T
def f_scalar(T):
    return lambda x: (x.sin() * x).sum() + (x ** 3).prod()


def f_two(T):
    return lambda x, y: (T.tanh(x @ y) ** 2).sum()


def f_tree(T):
    return lambda p, x: ((x @ p["w"] + p["b"]).tanh() ** 2).mean()


def f_vec(T):
    return lambda x, y: (x.sin() * y.sum(), (x * x).sum() + y)


def both(fn):
    """``fn(T, F)`` for compat and torch."""
    return fn(fc, ff), (fn(torch, tf) if torch is not None else None)


# ------------------------------------------------------------------ grad family
@needs_torch
def test_grad_variants_match_torch():
    def run(T, F):
        x = t(T, B)
        y = t(T, A)
        p = {"w": t(T, A), "b": t(T, [0.1, -0.2])}
        return (F.grad(f_scalar(T))(x),
                F.grad(f_two(T), argnums=(0, 1))(x, y),
                F.grad(f_two(T), argnums=1)(x, y),
                F.grad_and_value(f_tree(T))(p, t(T, XS)),
                F.grad(lambda x: (f_scalar(T)(x), x.cos()), has_aux=True)(x),
                F.grad(F.grad(lambda x: (x ** 4).sum()))(t(T, 1.5)))
    ours, ref = both(run)
    _close(ours, ref)
    assert not ours[0].requires_grad and ours[0].grad_fn is None


def test_grad_against_central_differences():
    f = f_scalar(fc)
    x0 = np.array([0.3, -1.2, 0.7])
    g = ff.grad(f)(t(fc, x0)).numpy()
    eps = 1e-6
    fd = np.array([(f(t(fc, x0 + eps * e)).item() - f(t(fc, x0 - eps * e)).item()) / (2 * eps)
                   for e in np.eye(3)])
    np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-9)
    # second derivative of x^4 is 12 x^2
    assert ff.grad(ff.grad(lambda x: x ** 4))(t(fc, 1.5)).item() == pytest.approx(27.0)


def test_perturbation_confusion():
    """d/dx [x * d/dy (x + y)] = 1 (a transform that confuses levels gives 2)."""
    def outer(x):
        inner = ff.grad(lambda y: x + y)(t(fc, 1.0))
        return x * inner
    assert ff.grad(outer)(t(fc, 2.0)).item() == 1.0


def test_grad_errors():
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor"):
        ff.grad(lambda x: x * 2)(t(fc, [1.0, 2.0]))
    with pytest.raises(RuntimeError, match="only 1 positional inputs"):
        ff.grad(lambda x: x.sum(), argnums=1)(t(fc, [1.0]))
    with pytest.raises(RuntimeError, match="floating point"):
        ff.grad(lambda x: x.sum())(fc.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="tuple: \\(output, aux\\)"):
        ff.grad(lambda x: x.sum(), has_aux=True)(t(fc, [1.0]))


def test_grad_keeps_graph_for_inputs_requiring_grad():
    x = t(fc, [1.0, 2.0], rg=True)
    g = ff.grad(lambda x: (x ** 3).sum())(x)         # 3 x^2, differentiable w.r.t. x
    assert g.requires_grad
    g.sum().backward()
    assert x.grad.tolist() == [6.0, 12.0]
    with fc.no_grad():       # called in no-grad mode: plain values, as torch.func
        g = ff.grad(lambda x: (x ** 3).sum())(x)
    assert not g.requires_grad and g.tolist() == [3.0, 12.0]


# ------------------------------------------------------------------ vjp / jvp
@needs_torch
def test_vjp_jvp_match_torch():
    def run(T, F):
        x, y = t(T, B), t(T, A)
        out, fn = F.vjp(f_vec(T), x, y)
        cts = (t(T, [1.0, 2.0, 3.0]), t(T, [[0.5, -1.0]] * 3))
        o2, jv = F.jvp(f_vec(T), (x, y), (t(T, [1.0, 0.0, -1.0]), t(T, np.ones((3, 2)))))
        o3, fn3, aux = F.vjp(lambda x: (x.exp(), x.sum()), x, has_aux=True)
        return out, fn(cts), fn(cts), o2, jv, o3, fn3(t(T, [1.0, 1.0, 1.0])), aux
    ours, ref = both(run)
    _close(ours, ref)


def test_jvp_errors():
    with pytest.raises(RuntimeError, match="Expected primals to be a tuple"):
        ff.jvp(lambda x: x, t(fc, [1.0]), (t(fc, [1.0]),))
    with pytest.raises(RuntimeError, match="same shape"):
        ff.jvp(lambda x: x, (t(fc, [1.0]),), (t(fc, [1.0, 2.0]),))


# ------------------------------------------------------------------ jacobians
@needs_torch
@pytest.mark.parametrize("which", ["jacrev", "jacfwd"])
def test_jacobians_match_torch(which):
    def run(T, F):
        J = getattr(F, which)
        x, y = t(T, B), t(T, A)
        return (J(lambda x: x.sin() * x.sum())(x),
                J(f_vec(T), argnums=(0, 1))(x, y),
                J(f_vec(T), argnums=1)(x, y),
                J(lambda p: (p["w"] * 2).sum(0) + p["b"])({"w": t(T, A), "b": t(T, [1., 2.])}),
                J(lambda x: (x.exp(), x.sum()), has_aux=True)(x))
    ours, ref = both(run)
    _close(ours, ref)


@needs_torch
def test_hessian_matches_torch():
    def run(T, F):
        return (F.hessian(f_scalar(T))(t(T, B)),
                F.hessian(f_two(T), argnums=(0, 1))(t(T, B), t(T, A)))
    ours, ref = both(run)
    _close(ours, ref, rtol=1e-9)


def test_hessian_closed_form():
    """H of sum(x^3) is diag(6x); of x'Mx it is M + M'."""
    x = t(fc, [1.0, -2.0, 0.5])
    np.testing.assert_allclose(ff.hessian(lambda x: (x ** 3).sum())(x).numpy(),
                               np.diag([6.0, -12.0, 3.0]))
    M = RNG.standard_normal((3, 3))
    H = ff.hessian(lambda x: x @ (t(fc, M) @ x))(x).numpy()
    np.testing.assert_allclose(H, M + M.T, rtol=1e-12)
    np.testing.assert_allclose(ff.jacfwd(lambda x: t(fc, M) @ x)(x).numpy(), M, rtol=1e-13)


# ------------------------------------------------------------------ vmap
@needs_torch
def test_vmap_matches_torch():
    def run(T, F):
        xs = t(T, XS)
        ys = t(T, YS)
        w = t(T, A)
        return (F.vmap(lambda x: x @ w)(xs),
                F.vmap(T.dot, in_dims=(0, 1))(xs, ys),
                F.vmap(lambda x, w: (x @ w, x.sum()), in_dims=(0, None), out_dims=(1, 0))(xs, w),
                F.vmap(F.vmap(lambda a, b: a * b), in_dims=(0, None))(xs, t(T, B)),
                F.vmap(lambda d: d["a"] + d["b"], in_dims=({"a": 0, "b": None},))(
                    {"a": xs, "b": t(T, B)}),
                F.vmap(F.grad(lambda x: (x ** 3).sum()))(xs),
                F.vmap(F.jacrev(lambda x: x.sin() * x[0]))(xs),
                F.vmap(lambda x: x.sum(), in_dims=-1)(ys))
    ours, ref = both(run)
    _close(ours, ref)


def test_vmap_against_loop_and_differentiable():
    xs = t(fc, XS, rg=True)
    w = t(fc, A)
    out = ff.vmap(lambda x: (x @ w).tanh())(xs)
    ref = fc.stack([(xs[i] @ w).tanh() for i in range(5)])
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-14)
    out.sum().backward()
    g1 = xs.grad.numpy().copy()
    xs.grad = None
    ref.sum().backward()
    np.testing.assert_allclose(g1, xs.grad.numpy(), rtol=1e-13)
    # grad of a vmapped function
    g = ff.grad(lambda x: ff.vmap(lambda r: (r ** 2).sum())(x).sum())(t(fc, XS))
    np.testing.assert_allclose(g.numpy(), 2 * XS, rtol=1e-14)


def test_vmap_errors_and_randomness():
    empty = ff.vmap(lambda a: (a * 2).sum(0), in_dims=1)(fc.ones(3, 0, 2))
    assert empty.shape == (0, 2)
    with pytest.raises(RuntimeError, match="got tensor with 1 dims"):
        ff.grad(lambda x: x.sum(0, keepdim=True))(fc.ones(2))
    with pytest.raises(ValueError, match="same size in the mapped dimension"):
        ff.vmap(lambda a, b: a + b)(fc.ones(2), fc.ones(3))
    with pytest.raises(ValueError, match="no input to vmap over"):
        ff.vmap(lambda a: a, in_dims=None)(fc.ones(2))
    with pytest.raises(ValueError, match="in_dim=2"):
        ff.vmap(lambda a: a, in_dims=2)(fc.ones(2, 2))
    with pytest.raises(ValueError, match="must only return Tensors"):
        ff.vmap(lambda a: 3)(fc.ones(2))
    with pytest.raises(RuntimeError, match="randomness error mode"):
        ff.vmap(lambda a: a + fc.rand(1))(fc.ones(3))
    same = ff.vmap(lambda a: a + fc.rand(()), randomness="same")(fc.zeros(4))
    assert len(set(same.tolist())) == 1
    diff = ff.vmap(lambda a: a + fc.rand(()), randomness="different")(fc.zeros(4))
    assert len(set(diff.tolist())) == 4
    with pytest.raises(RuntimeError, match="randomness"):
        ff.vmap(lambda a: a, randomness="sometimes")


# ------------------------------------------------------------------ modules
class TinyLinear:
    """A hand-written module with the duck-typed interface torch.func needs."""

    def __init__(self, n_in, n_out, rng):
        self.training = True
        self.weight = fc.tensor(rng.standard_normal((n_out, n_in)) / np.sqrt(n_in),
                                dtype=fc.float64, requires_grad=True)
        self.bias = fc.tensor(rng.standard_normal(n_out) * 0.1, dtype=fc.float64,
                              requires_grad=True)

    def named_parameters(self):
        return iter([("weight", self.weight), ("bias", self.bias)])

    def named_buffers(self):
        return iter([])

    def __call__(self, x):
        return x @ self.weight.t() + self.bias


class TinyMLP:
    def __init__(self, seed=0):
        rng = np.random.default_rng(seed)
        self.training = True
        self.fc1 = TinyLinear(3, 4, rng)
        self.fc2 = TinyLinear(4, 2, rng)
        self.scale = fc.tensor([1.5, 0.5], dtype=fc.float64)

    def named_parameters(self):
        for pre, m in (("fc1", self.fc1), ("fc2", self.fc2)):
            for n, p in m.named_parameters():
                yield f"{pre}.{n}", p

    def named_buffers(self):
        yield "scale", self.scale

    def __call__(self, x):
        return self.fc2(self.fc1(x).tanh()) * self.scale


_TORCH_CLS = []


def _torch_mlp(m):
    if not _TORCH_CLS:
        class M(torch.nn.Module):
            def __init__(self, scale):
                super().__init__()
                self.fc1 = torch.nn.Linear(3, 4).double()
                self.fc2 = torch.nn.Linear(4, 2).double()
                self.register_buffer("scale", torch.tensor(scale))

            def forward(self, x):
                return self.fc2(self.fc1(x).tanh()) * self.scale
        _TORCH_CLS.append(M)
    M = _TORCH_CLS[0]
    tm = M(m.scale.numpy())
    with torch.no_grad():
        for (n, p) in tm.named_parameters():
            p.copy_(torch.tensor(dict(m.named_parameters())[n].detach().numpy()))
    return tm


def _loss(T, pred, target):
    return ((pred - target) ** 2).sum(-1).mean()


DATA = RNG.standard_normal((6, 3))
TARGETS = RNG.standard_normal((6, 2))


def test_functional_call_swaps_and_restores():
    m = TinyMLP()
    w0 = m.fc1.weight
    params = {k: v.detach() * 0 for k, v in m.named_parameters()}
    out = ff.functional_call(m, (params, {"scale": fc.ones(2, dtype=fc.float64)}),
                             (t(fc, DATA),))
    assert out.abs().sum().item() == 0.0
    assert m.fc1.weight is w0 and m.scale.tolist() == [1.5, 0.5]
    with pytest.raises(RuntimeError, match="Missing key\\(s\\): 'fc2.bias'"):
        ff.functional_call(m, {k: v for k, v in params.items() if k != "fc2.bias"},
                           (t(fc, DATA),), strict=True)
    with pytest.raises(ValueError, match="multiple dictionaries"):
        ff.functional_call(m, (params, params), (t(fc, DATA),))

    def boom(x):
        raise KeyError("inside")
    m.fc1.__call__ = boom
    assert m.fc1.weight is w0     # restored even after an exception elsewhere


def test_per_sample_gradients_recipe():
    """torch's per-sample-gradients tutorial: vmap(grad(compute_loss), in_dims=(None,
    None, 0, 0)) with functional_call, against one backward() per sample."""
    m = TinyMLP()
    params = {k: v.detach() for k, v in m.named_parameters()}
    buffers = {k: v.detach() for k, v in m.named_buffers()}

    def compute_loss(params, buffers, sample, target):
        pred = ff.functional_call(m, (params, buffers), (sample.unsqueeze(0),))
        return _loss(fc, pred, target.unsqueeze(0))
    per = ff.vmap(ff.grad(compute_loss), in_dims=(None, None, 0, 0))(
        params, buffers, t(fc, DATA), t(fc, TARGETS))
    assert set(per) == set(params) and per["fc1.weight"].shape == (6, 4, 3)
    for i in range(6):
        for _, p in m.named_parameters():
            p.grad = None
        _loss(fc, m(t(fc, DATA[i:i + 1])), t(fc, TARGETS[i:i + 1])).backward()
        for n, p in m.named_parameters():
            np.testing.assert_allclose(per[n][i].numpy(), p.grad.numpy(), rtol=1e-12,
                                       atol=1e-14)
    if torch is not None:
        tm = _torch_mlp(m)
        tp = {k: v.detach() for k, v in tm.named_parameters()}
        tb = {k: v.detach() for k, v in tm.named_buffers()}

        def tloss(params, buffers, sample, target):
            pred = tf.functional_call(tm, (params, buffers), (sample.unsqueeze(0),))
            return _loss(torch, pred, target.unsqueeze(0))
        ref = tf.vmap(tf.grad(tloss), in_dims=(None, None, 0, 0))(
            tp, tb, torch.tensor(DATA), torch.tensor(TARGETS))
        _close(per, ref)


def test_model_ensembling():
    """stack_module_state + vmap(functional_call) over the stacked parameters, against
    calling each model."""
    models = [TinyMLP(seed) for seed in range(4)]
    params, buffers = ff.stack_module_state(models)
    assert params["fc1.weight"].shape == (4, 4, 3) and params["fc1.weight"].requires_grad
    assert params["fc1.weight"].is_leaf and buffers["scale"].shape == (4, 2)
    base = TinyMLP(99)

    def fmodel(params, buffers, x):
        return ff.functional_call(base, (params, buffers), (x,))
    x = t(fc, DATA)
    out = ff.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
    assert out.shape == (4, 6, 2)
    for i, m in enumerate(models):
        np.testing.assert_allclose(out[i].detach().numpy(), m(x).detach().numpy(), rtol=1e-13)
    out.sum().backward()             # gradients reach the stacked leaves
    assert params["fc2.bias"].grad.shape == (4, 2)
    # different minibatch per model
    xs = t(fc, RNG.standard_normal((4, 6, 3)))
    out2 = ff.vmap(fmodel)(params, buffers, xs)
    for i, m in enumerate(models):
        np.testing.assert_allclose(out2[i].detach().numpy(), m(xs[i]).detach().numpy(),
                                   rtol=1e-13)
    with pytest.raises(RuntimeError, match="at least one model"):
        ff.stack_module_state([])
    if torch is not None:
        tms = [_torch_mlp(m) for m in models]
        tp, tb = tf.stack_module_state(tms)
        tbase = _torch_mlp(base)
        ref = tf.vmap(lambda p, b, x: tf.functional_call(tbase, (p, b), (x,)),
                      in_dims=(0, 0, None))(tp, tb, torch.tensor(DATA))
        _close(out, ref)


# ------------------------------------------------------------------ grad mode inside
def _no_grad_fns(T):
    """Functions with a grad-mode block inside, each written once for either library."""
    def inner(x):                       # x*x made under no_grad
        with T.no_grad():
            y = x * x
        return (y * x).sum()

    def set_off(x):
        with T.set_grad_enabled(False):
            y = x.sin()
        return (y * x).sum()

    def reenabled(x):                   # enable_grad inside no_grad: recorded again
        with T.no_grad():
            with T.enable_grad():
                y = x * x
            z = x.exp()
        return (y * x + z).sum()
    return {"inner": inner, "set_off": set_off, "reenabled": reenabled}


def test_no_grad_inside_transforms_by_hand():
    """torch.func's rule: grad/vjp/jacrev respect a no_grad inside the function (its
    values are constants for reverse mode); jvp/jacfwd do not (forward-mode AD ignores
    grad mode); a no_grad around the transform's call is ignored.  f = sum(sg(x*x)*x)."""
    x = t(fc, [1.0, 2.0, -0.5])
    xs = x.numpy()
    f = _no_grad_fns(fc)["inner"]
    _close(ff.grad(f)(x), xs * xs)
    _close(ff.jacrev(f)(x), xs * xs)
    _close(ff.vjp(f, x)[1](t(fc, 1.0))[0], xs * xs)
    _close(ff.jacfwd(f)(x), 3 * xs * xs)
    _close(ff.jvp(f, (x,), (t(fc, [1.0, 0.0, 0.0]),))[1], np.array(3.0))
    _close(ff.hessian(f)(x), np.diag(2 * xs))          # jacfwd(jacrev(f))
    _close(ff.jacrev(ff.jacrev(f))(x), np.zeros((3, 3)))
    _close(ff.jacfwd(ff.jacfwd(f))(x), np.diag(6 * xs))
    _close(ff.vmap(ff.grad(f))(t(fc, np.stack([xs, 2 * xs]))), np.stack([xs ** 2, 4 * xs ** 2]))
    with fc.no_grad():                  # outside: ignored
        _close(ff.grad(lambda z: (z * z).sum())(x), 2 * xs)

    def outer(z):                       # a transform called under no_grad inside another
        with fc.no_grad():
            g = ff.grad(lambda w: (w * w * z).sum())(z)      # 2 z^2, a constant outside
        return (g * z).sum()
    _close(ff.grad(outer)(x), 2 * xs * xs)
    assert fc.is_grad_enabled()


@needs_torch
@pytest.mark.parametrize("name", ["inner", "set_off", "reenabled"])
def test_no_grad_inside_transforms_match_torch(name):
    def run(T, F):
        f = _no_grad_fns(T)[name]
        x = t(T, B)
        return (F.grad(f)(x), F.jacrev(f)(x), F.jacfwd(f)(x), F.hessian(f)(x),
                F.jvp(f, (x,), (t(T, np.ones(3)),)), F.vjp(f, x)[1](t(T, 1.0)))
    ours, ref = both(run)
    _close(ours, ref)
