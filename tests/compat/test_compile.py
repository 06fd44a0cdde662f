"""``compat.compile`` (``torch.compile``): compiled against eager compat and against
PyTorch (values, gradients, parameter trajectories), graph breaks, guards and
recompilation, ``fullgraph``, ``explain``, buffers, random draws and grad-mode rules."""
from __future__ import annotations

import copy
import os
import sys
import warnings

import numpy as np
import pytest

import ftrans
import ftrans.compat as torch
from ftrans.compat import nn
from ftrans.compat.utils.data import DataLoader, TensorDataset

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
from digits_cnn import make_model  # noqa: E402


def _mlp(seed: int = 0) -> nn.Module:
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))


def _grads(model: nn.Module) -> list[np.ndarray]:
    return [p.grad.numpy().copy() for p in model.parameters()]


# ----------------------------------------------------------------------------- values
def test_compiled_module_matches_eager_values_and_gradients() -> None:
    m = _mlp()
    cm = torch.compile(m)
    x = torch.randn(5, 6)
    ref = m(x)
    ref.square().sum().backward()
    g_ref = _grads(m)
    m.zero_grad()
    out = cm(x)
    assert out.requires_grad and out.grad_fn is not None
    out.square().sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-6)
    for a, b in zip(_grads(m), g_ref):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


def test_digits_cnn_trajectory_matches_eager_over_ten_steps() -> None:
    """Conv, BatchNorm (buffers written by the program), max-pool and dropout (draws
    replayed from the generator): ten Adam steps give the eager trajectory."""
    torch.manual_seed(0)
    m1 = make_model()
    m2 = copy.deepcopy(m1)
    cm = torch.compile(m2)
    o1 = torch.optim.Adam(m1.parameters(), lr=2e-3)
    o2 = torch.optim.Adam(m2.parameters(), lr=2e-3)
    x = torch.rand(32, 1, 8, 8)
    y = torch.randint(0, 10, (32,))
    lossf = nn.CrossEntropyLoss()
    losses: list[list[float]] = [[], []]
    for step in range(10):
        for k, (model, opt) in enumerate(((m1, o1), (cm, o2))):
            torch.manual_seed(step)
            loss = lossf(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses[k].append(float(loss))
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-4)
    s1, s2 = m1.state_dict(), m2.state_dict()
    # the convolutions' biases feed BatchNorm, which removes them: their gradients are
    # rounding noise (~1e-8) that Adam scales to full steps, in any two implementations;
    # the running means include those biases (running variances do not)
    for k in set(s1) - {"0.bias", "4.bias", "1.running_mean", "5.running_mean"}:
        np.testing.assert_allclose(s2[k].numpy(), s1[k].numpy(), rtol=2e-3, atol=2e-4,
                                   err_msg=k)
    assert int(s2["1.num_batches_tracked"]) == 10
    cm.eval()      # (evaluation mode: the running statistics; the same module eagerly)
    assert not m2.training
    with torch.no_grad():
        np.testing.assert_allclose(cm(x).numpy(), m2(x).numpy(), rtol=1e-5, atol=1e-6)
    assert torch._dynamo.explain(m2)(x).graph_break_count == 0


def test_against_pytorch_mlp_step() -> None:
    real = pytest.importorskip("torch", reason="PyTorch is not installed")
    m = _mlp()
    rm = real.nn.Sequential(real.nn.Linear(6, 16), real.nn.Tanh(), real.nn.Linear(16, 3))
    with real.no_grad():
        for p, q in zip(rm.parameters(), m.parameters()):
            p.copy_(real.from_numpy(q.detach().numpy().copy()))
    x = np.random.default_rng(0).standard_normal((5, 6)).astype(np.float32)
    cm = torch.compile(m)
    loss = cm(torch.from_numpy(x)).tanh().sum()
    loss.backward()
    rloss = rm(real.from_numpy(x)).tanh().sum()
    rloss.backward()
    assert abs(float(loss) - float(rloss)) < 1e-5
    for p, q in zip(m.parameters(), rm.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_function_closing_over_a_module_differentiates_its_parameters() -> None:
    m = _mlp()

    @torch.compile
    def loss(x):
        return m(x).pow(2).mean()

    x = torch.randn(4, 6)
    loss(x).backward()
    g = _grads(m)
    m.zero_grad()
    m(x).pow(2).mean().backward()
    for a, b in zip(g, _grads(m)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


def test_parameters_are_read_at_call_time() -> None:
    """An optimizer step between calls is seen (parameters are inputs, not constants)."""
    m = _mlp()
    cm = torch.compile(m)
    x = torch.randn(2, 6)
    before = cm(x).detach().numpy().copy()
    with torch.no_grad():
        m[0].weight.add_(1.0)
    after = cm(x).detach().numpy()
    np.testing.assert_allclose(after, m(x).detach().numpy(), rtol=1e-6)
    assert not np.allclose(before, after)


def test_unused_parameter_gets_no_gradient_and_constant_output_no_grad() -> None:
    m = _mlp()
    extra = nn.Parameter(torch.ones(3))

    @torch.compile
    def f(x):
        return m(x).sum(), (x * 2).detach(), x.sum()

    x = torch.randn(2, 6)
    a, b, c = f(x)
    a.backward()
    assert extra.grad is None
    assert not b.requires_grad and not c.requires_grad
    assert all(p.grad is not None for p in m.parameters())


def test_in_place_update_of_an_argument_is_written_back() -> None:
    @torch.compile
    def f(x, y):
        x.add_(1.0)
        return x * y

    x, y = torch.zeros(3), torch.full((3,), 2.0)
    v = x._version
    out = f(x, y)
    np.testing.assert_array_equal(x.numpy(), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(out.numpy(), [2.0, 2.0, 2.0])
    assert x._version > v
    f(x, y)
    np.testing.assert_array_equal(x.numpy(), [2.0, 2.0, 2.0])


def test_dropout_draws_fresh_masks_like_eager() -> None:
    drop = nn.Dropout(0.5)
    cd = torch.compile(drop)
    x = torch.ones(64)
    torch.manual_seed(3)
    e1, e2 = drop(x), drop(x)
    torch.manual_seed(3)
    c1, c2 = cd(x), cd(x)
    np.testing.assert_array_equal(c1.numpy(), e1.numpy())
    np.testing.assert_array_equal(c2.numpy(), e2.numpy())
    assert not np.array_equal(c1.numpy(), c2.numpy())


def test_no_grad_block_inside_breaks_instead_of_differentiating_through() -> None:
    def f(x):
        with torch.no_grad():
            c = x * x
        return (c * x).sum()

    x = torch.ones(3, requires_grad=True)
    torch.compile(f)(x).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 1.0])   # torch's: c is a constant
    ex = torch._dynamo.explain(f)(x)
    assert ex.graph_break_count == 1 and "no_grad" in ex.break_reasons[0].reason


def test_grad_mode_off_gives_plain_results() -> None:
    m = _mlp()
    cm = torch.compile(m)
    with torch.no_grad():
        out = cm(torch.randn(2, 6))
    assert not out.requires_grad


# ----------------------------------------------------------------------------- breaks
class _Branchy(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)

    def forward(self, x):
        h = self.a(x)
        if h.sum() > 0:          # data-dependent control flow: a graph break
            h = h * 2
        return self.b(h)


def test_break_in_forward_compiles_each_submodule() -> None:
    torch.manual_seed(0)
    m = _Branchy()
    x = torch.randn(3, 4)
    ex = torch._dynamo.explain(m)(x)
    assert ex.graph_break_count == 1
    assert ex.graph_count == 2          # self.a and self.b, each on its own
    reason = ex.break_reasons[0]
    assert "ConcretizationError" in reason.reason
    assert reason.user_stack and reason.user_stack[-1].filename == __file__
    cm = torch.compile(m)
    out = cm(x)
    out.sum().backward()
    g = _grads(m)
    m.zero_grad()
    ref = m(x)
    ref.sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-6)
    for a, b in zip(g, _grads(m)):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_fullgraph_raises_at_the_break_naming_the_line() -> None:
    m = _Branchy()
    with pytest.raises(torch._dynamo.exc.Unsupported, match="test_compile.py, line"):
        torch.compile(m, fullgraph=True)(torch.randn(3, 4))


def test_item_and_print_break_and_print_runs_every_call(capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    def f(x):
        print("value", float(x.sum().item()))
        return x + 1

    cf = torch.compile(f)
    cf(torch.ones(2))
    cf(torch.ones(2))
    assert capsys.readouterr().out.count("value 2.0") == 2
    ex = torch._dynamo.explain(f)(torch.ones(2))
    assert ex.graph_break_count == 1 and ex.graph_count == 0


def test_compiler_disable_is_a_break_and_runs_eagerly() -> None:
    seen = []

    @torch.compiler.disable
    def side(x):
        seen.append(torch.compiler.is_compiling())
        return x * 3

    def f(x):
        return side(x) + 1

    out = torch.compile(f)(torch.ones(2))
    np.testing.assert_array_equal(out.numpy(), [4.0, 4.0])
    assert seen == [False]
    assert torch._dynamo.explain(f)(torch.ones(2)).graph_break_count == 1


# ----------------------------------------------------------------------------- guards
def test_recompiles_on_guards_and_is_compiling() -> None:
    stages = []

    def f(x):
        stages.append(torch.compiler.is_compiling())
        return x * 2

    cf = torch.compile(f, dynamic=False)
    cf(torch.ones(2))
    cf(torch.ones(2))
    assert stages == [True]
    cf(torch.ones(3))                       # new shape
    cf(torch.ones(3, dtype=torch.float64))  # new dtype
    cf(torch.ones(3, requires_grad=True))   # requires_grad
    assert len(stages) == 4
    torch.compiler.reset()
    cf(torch.ones(2))
    assert len(stages) == 5


def test_automatic_dynamic_stops_recompiling_on_sizes() -> None:
    """Every size gives its own right answer; only the first size change counts as a
    recompilation under dynamic=None, none under dynamic=True."""
    def f(x):
        return x.sum(0)

    cf = torch.compile(f)       # dynamic=None: static, then dynamic after a size change
    for n in (2, 3, 4, 5):
        np.testing.assert_allclose(cf(torch.ones(n, 2)).numpy(), [n, n])
    assert len(cf._compiled.guards) == 2
    cd = torch.compile(f, dynamic=True)
    for n in (2, 3, 4):
        np.testing.assert_allclose(cd(torch.ones(n, 2)).numpy(), [n, n])
    assert len(cd._compiled.guards) == 1
    cs = torch.compile(f, dynamic=False)
    for n in (2, 3, 4):
        cs(torch.ones(n, 2))
    assert len(cs._compiled.guards) == 3


def test_train_eval_switch_is_a_guard() -> None:
    torch.manual_seed(0)
    bn = nn.BatchNorm1d(3)
    cb = torch.compile(bn)
    x = torch.randn(8, 3) * 3 + 1
    cb(x)
    cb.eval()
    out = cb(x)
    ref = (x - bn.running_mean) / torch.sqrt(bn.running_var + bn.eps)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-5,
                               atol=1e-6)


def test_recompile_limit_warns_and_runs_eagerly() -> None:
    cf = torch.compile(lambda x: x + 1, dynamic=False)
    old = torch._dynamo.config.recompile_limit
    torch._dynamo.config.recompile_limit = 2
    try:
        cf(torch.ones(1))
        cf(torch.ones(2))
        with pytest.warns(UserWarning, match="recompile_limit"):
            out = cf(torch.ones(3))
        np.testing.assert_array_equal(out.numpy(), [2.0, 2.0, 2.0])
    finally:
        torch._dynamo.config.recompile_limit = old


# ----------------------------------------------------------------------------- API
def test_module_wrapper_shares_state_and_forwards_attributes() -> None:
    m = _Branchy()
    cm = torch.compile(m)
    assert cm._orig_mod is m
    assert cm.a is m.a
    assert list(cm.state_dict())[0] == "_orig_mod.a.weight"
    assert [id(p) for p in cm.parameters()] == [id(p) for p in m.parameters()]


def test_decorator_forms_and_bad_arguments() -> None:
    @torch.compile(fullgraph=True)
    def f(x):
        return x + 1

    np.testing.assert_array_equal(f(torch.zeros(1)).numpy(), [1.0])
    g = lambda x: x  # noqa: E731
    assert torch.compile(g, disable=True) is g
    with pytest.raises(RuntimeError, match="Either mode or options"):
        torch.compile(g, mode="default", options={})
    with pytest.raises(RuntimeError, match="Unrecognized mode"):
        torch.compile(g, mode="fastest")
    with pytest.raises(TypeError, match="callable"):
        torch.compile(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        torch.compile(g, backend="eager", mode="max-autotune")   # accepted, ignored


def test_explain_lists_the_graph_and_its_ops() -> None:
    m = _mlp()
    ex = torch._dynamo.explain(m)(torch.randn(2, 6))
    assert (ex.graph_count, ex.graph_break_count) == (1, 0)
    assert ex.ops_per_graph[0].count("dot_general") == 2
    assert "Graph Count: 1" in str(ex)


# ----------------------------------------------------------------------------- tutorial
class _TutorialModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(10, 10)

    def forward(self, x):
        return self.linear(x)


def test_compiled_autograd_tutorial_runs() -> None:
    """The compile calls of PyTorch's compiled-autograd tutorial
    (pytorch.org/tutorials/intermediate/compiled_autograd_tutorial.html): a backward
    inside a compiled function is a break that runs the compiled backward programs, also
    under fullgraph=True; ``compiled_autograd._enable`` and the config flag are accepted."""
    model = _TutorialModel()
    x = torch.randn(10)
    expected = np.outer(np.ones(10), x.numpy())   # d sum(W x + b) / dW

    @torch.compile
    def train(model, x):
        loss = model(x).sum()
        loss.backward()

    torch._dynamo.config.compiled_autograd = True
    try:
        train(model, x)
        np.testing.assert_allclose(model.linear.weight.grad.numpy(), expected, rtol=1e-6)

        def train2(model, x):
            model = torch.compile(model)
            loss = model(x).sum()
            torch.compile(lambda: loss.backward(), fullgraph=True)()

        model.zero_grad()
        train2(model, x)
        np.testing.assert_allclose(model.linear.weight.grad.numpy(), expected, rtol=1e-6)
    finally:
        torch._dynamo.config.compiled_autograd = False

    @torch.compile(backend="aot_eager")
    def fn(x):
        temp = x + 10
        torch._dynamo.graph_break()
        return (temp + 10).sum()

    x2 = torch.randn(10, 10, requires_grad=True)
    x2.register_hook(lambda grad: grad + 10)
    torch._dynamo.utils.counters.clear()
    loss = fn(x2)
    assert torch._dynamo.utils.counters["graph_break"]["torch._dynamo.graph_break()"] == 1
    with torch._dynamo.compiled_autograd._enable(torch.compile(backend="aot_eager")):
        loss.backward()
    np.testing.assert_array_equal(x2.grad.numpy(), np.full((10, 10), 11.0))


def test_backward_inside_staging_never_leaks_a_tracer() -> None:
    w = torch.ones(3, requires_grad=True)
    loss = (w * 2).sum()
    torch.compile(lambda: loss.backward())()
    assert type(w.grad.numpy()) is np.ndarray
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 2.0, 2.0])


def test_module_with_hooks_runs_them_on_every_call_with_real_tensors() -> None:
    m = _mlp()
    seen: list[np.ndarray] = []
    m[1].register_forward_hook(lambda mod, args, out: seen.append(out.detach().numpy()))
    cm = torch.compile(m)
    x = torch.randn(2, 6)
    out = cm(x)
    cm(x)
    assert len(seen) == 2 and all(type(s) is np.ndarray for s in seen)
    np.testing.assert_allclose(out.detach().numpy(), m(x).detach().numpy(), rtol=1e-6)
    ex = torch._dynamo.explain(m)(x)
    assert ex.graph_break_count == 2   # the Sequential, then the hooked Tanh
    assert ex.graph_count == 2         # the two Linear layers


SCALE = 2.0


def test_python_scalars_read_by_the_function_are_guards() -> None:
    """A global or closure scalar, a closed-over module's training flag and a module's
    attribute (dropout's p) are baked into the program: a new value stages again."""
    global SCALE
    m = _mlp()
    drop = nn.Dropout(0.5)

    def f(x):
        return drop(m(x)) * SCALE

    cf = torch.compile(f)
    x = torch.randn(3, 6)
    torch.manual_seed(0)
    cf(x)
    m.eval()
    drop.eval()
    np.testing.assert_allclose(cf(x).detach().numpy(), (m(x) * 2.0).detach().numpy(),
                               rtol=1e-6)
    SCALE = 3.0
    try:
        np.testing.assert_allclose(cf(x).detach().numpy(), (m(x) * 3.0).detach().numpy(),
                                   rtol=1e-6)
    finally:
        SCALE = 2.0
    drop.train()
    drop.p = 1.0
    np.testing.assert_array_equal(cf(x).detach().numpy(), np.zeros((3, 3)))


class _GuideMLP(nn.Module):
    """The model of docs/guide/compat_nn.md's training loop."""

    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Dropout(0.1),
                                 nn.Linear(128, 10))

    def forward(self, x):
        return self.net(x)


def _guide_loop(compiled: bool) -> tuple[dict[str, np.ndarray], float]:
    torch.manual_seed(0)
    x, y = torch.randn(256, 64), torch.randint(0, 10, (256,))
    loader = DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)
    model = _GuideMLP()
    run = torch.compile(model) if compiled else model
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    loss_fn = nn.CrossEntropyLoss()
    for _ in range(3):
        run.train()
        for xb, yb in loader:
            opt.zero_grad()
            loss = loss_fn(run(xb), yb)
            loss.backward()
            opt.step()
        sched.step()
    run.eval()
    with torch.no_grad():
        accuracy = (run(x).argmax(dim=1) == y).float().mean().item()
    return {k: v.numpy().copy() for k, v in model.state_dict().items()}, accuracy


def test_guide_training_loop_compiled_matches_eager() -> None:
    """The compat_nn guide's loop (DataLoader shuffling, dropout, StepLR, eval under
    no_grad): compiled, the same random stream and the same parameters."""
    s_eager, acc_eager = _guide_loop(False)
    s_comp, acc_comp = _guide_loop(True)
    assert acc_comp == acc_eager
    for k in s_eager:
        np.testing.assert_allclose(s_comp[k], s_eager[k], rtol=1e-4, atol=1e-6, err_msg=k)


def test_compiled_optimizer_step_updates_like_eager() -> None:
    """An optimizer a compiled function reaches is read (its parameters, gradients and
    state are inputs): its update is never run once at staging and then skipped."""
    x = torch.randn(4, 3)
    finals = []
    for compiled in (False, True):
        torch.manual_seed(0)
        m = nn.Linear(3, 2)
        opt = torch.optim.Adam(m.parameters(), lr=0.1)
        step = torch.compile(opt.step) if compiled else opt.step
        traj = []
        for _ in range(3):
            opt.zero_grad()
            m(x).square().sum().backward()
            step()
            traj.append(m.weight.detach().numpy().copy())
        finals.append(traj)
    for a, b in zip(*finals):
        np.testing.assert_allclose(b, a, rtol=1e-6)


def test_digits_cnn_compiled_against_pytorch_over_ten_steps() -> None:
    """The digits CNN compiled (dropout off: PyTorch's generator differs) against
    PyTorch eager from the same weights: losses and parameters over ten Adam steps."""
    real = pytest.importorskip("torch", reason="PyTorch is not installed")
    torch.manual_seed(0)
    m = make_model()
    rm = make_model(real.nn)
    rm.load_state_dict({k: real.from_numpy(v.numpy().copy())
                        for k, v in m.state_dict().items()})
    m[9].eval()
    rm[9].eval()
    cm = torch.compile(m)
    rng = np.random.default_rng(0)
    x = rng.random((32, 1, 8, 8)).astype(np.float32)
    y = rng.integers(0, 10, 32)
    o1 = torch.optim.Adam(m.parameters(), lr=2e-3)
    o2 = real.optim.Adam(rm.parameters(), lr=2e-3)
    for _ in range(10):
        loss = nn.CrossEntropyLoss()(cm(torch.from_numpy(x)), torch.from_numpy(y))
        o1.zero_grad()
        loss.backward()
        o1.step()
        rloss = real.nn.CrossEntropyLoss()(rm(real.from_numpy(x)), real.from_numpy(y))
        o2.zero_grad()
        rloss.backward()
        o2.step()
        assert abs(float(loss) - float(rloss)) < 1e-4
    s1, s2 = m.state_dict(), rm.state_dict()
    # (the convolutions' biases and the running means: see the trajectory test above)
    for k in set(s1) - {"0.bias", "4.bias", "1.running_mean", "5.running_mean"}:
        np.testing.assert_allclose(s1[k].numpy(), s2[k].numpy(), rtol=2e-3, atol=2e-4,
                                   err_msg=k)


@pytest.mark.parametrize("name", ["embedding", "lstm", "mha", "layernorm"])
def test_common_layers_stage_in_one_graph(name: str) -> None:
    """Common layers compile without a break and give the eager values and gradients
    (Embedding's index_select once staged a reshape to -1, a negative size)."""
    torch.manual_seed(0)
    m, args = {
        "embedding": (nn.Embedding(10, 3), (torch.tensor([[1, 2], [3, 9]]),)),
        "lstm": (nn.LSTM(4, 8, batch_first=True), (torch.randn(2, 5, 4),)),
        "mha": (nn.MultiheadAttention(8, 2, batch_first=True), (torch.randn(2, 3, 8),) * 3),
        "layernorm": (nn.LayerNorm(6), (torch.randn(3, 6),)),
    }[name]
    assert torch._dynamo.explain(m)(*args).graph_break_count == 0
    out = torch.compile(m)(*args)
    out = out[0] if isinstance(out, tuple) else out
    out.square().sum().backward()
    g = _grads(m)
    m.zero_grad()
    ref = m(*args)
    ref = ref[0] if isinstance(ref, tuple) else ref
    ref.square().sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    for a, b in zip(g, _grads(m)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


def test_graphs_of_many_sizes_are_bounded() -> None:
    cf = torch.compile(lambda x: x * 2, dynamic=True)
    old = ftrans.config.jit_cache_size
    ftrans.config.update("jit_cache_size", 3)
    try:
        for n in range(1, 7):
            np.testing.assert_array_equal(cf(torch.ones(n)).numpy(), np.full(n, 2.0))
        assert len(cf._compiled.graphs) == 3
    finally:
        ftrans.config.update("jit_cache_size", old)
