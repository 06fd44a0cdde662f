"""compat.nn.Module semantics without PyTorch: registration and attribute rules,
state_dict round trips and errors, modes, freezing, conversions, hooks, reprs,
containers; the autograd note's freeze/fine-tune example and its eval()/requires_grad_()
statements."""
from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import ftrans.compat as torch
from ftrans.compat import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, padding=1)
        self.bn = nn.BatchNorm2d(2)
        self.fc = nn.Linear(2 * 4 * 4, 3)
        self.register_buffer("scale", torch.tensor(2.0))
        self.register_buffer("cache", torch.zeros(2), persistent=False)

    def forward(self, x):
        x = nn.functional.max_pool2d(self.bn(self.conv(x)).relu(), 2)
        return self.fc(x.flatten(1)) * self.scale


def test_registration_and_iteration():
    m = Net()
    names = [n for n, _ in m.named_parameters()]
    assert names == ["conv.weight", "conv.bias", "bn.weight", "bn.bias", "fc.weight", "fc.bias"]
    assert [n for n, _ in m.named_buffers()] == [
        "scale", "cache", "bn.running_mean", "bn.running_var", "bn.num_batches_tracked"]
    assert list(m.state_dict()) == [
        "scale", "conv.weight", "conv.bias", "bn.weight", "bn.bias", "bn.running_mean",
        "bn.running_var", "bn.num_batches_tracked", "fc.weight", "fc.bias"]
    assert [n for n, _ in m.named_children()] == ["conv", "bn", "fc"]
    assert [n for n, _ in m.named_modules()] == ["", "conv", "bn", "fc"]
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in m.parameters())
    assert len(list(m.parameters(recurse=False))) == 0
    # shared parameters are listed once
    s = nn.Sequential(m.fc, m.fc)
    assert len(list(s.parameters())) == 2
    assert len(list(s.named_parameters(remove_duplicate=False))) == 4


def test_setattr_getattr_delattr_rules():
    m = nn.Module()
    m.w = nn.Parameter(torch.ones(2))
    assert "w" in m._parameters
    with pytest.raises(TypeError, match="cannot assign 'torch.FloatTensor' as parameter 'w'"):
        m.w = torch.ones(2)
    m.w = None
    assert m._parameters["w"] is None and m.w is None
    m.sub = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="as child module 'sub'"):
        m.sub = 3
    m.register_buffer("b", torch.zeros(1))
    m.b = torch.ones(1)                       # a tensor replaces a buffer
    assert float(m._buffers["b"]) == 1.0
    with pytest.raises(TypeError, match="as buffer 'b'"):
        m.b = 3
    m.plain = 5
    assert m.plain == 5 and "plain" not in m._parameters
    # a parameter assigned over a plain attribute / buffer moves to _parameters
    m.b = nn.Parameter(torch.zeros(1))
    assert "b" in m._parameters and "b" not in m._buffers
    del m.sub
    assert "sub" not in m._modules
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'nope'"):
        m.nope  # noqa: B018
    with pytest.raises(KeyError, match="attribute 'plain' already exists"):
        m.register_buffer("plain", torch.zeros(1))
    with pytest.raises(KeyError, match="contain"):
        m.register_parameter("a.b", None)
    with pytest.raises(TypeError, match="torch.nn.Parameter or None required"):
        m.register_parameter("x", torch.zeros(1))


def test_assign_before_init_raises():
    class Bad(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(torch.zeros(1))
            super().__init__()
    with pytest.raises(AttributeError, match="before Module.__init__"):
        Bad()


def test_state_dict_round_trip_and_errors():
    a, b = Net(), Net()
    sd = a.state_dict()
    assert "cache" not in sd
    assert not sd["fc.weight"].requires_grad            # detached, sharing storage
    r = b.load_state_dict(sd)
    assert r.missing_keys == [] and r.unexpected_keys == []
    assert repr(r) == "<All keys matched successfully>"
    for k, v in b.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), sd[k].numpy())
    # values are copied, not aliased
    with torch.no_grad():
        a.fc.weight.add_(1.0)
    assert not np.allclose(a.fc.weight.detach().numpy(), b.fc.weight.detach().numpy())
    bad = dict(sd)
    del bad["fc.bias"]
    bad["extra.weight"] = torch.zeros(1)
    with pytest.raises(RuntimeError) as e:
        b.load_state_dict(bad)
    msg = str(e.value)
    assert msg.startswith("Error(s) in loading state_dict for Net:")
    assert 'Missing key(s) in state_dict: "fc.bias".' in msg
    assert 'Unexpected key(s) in state_dict: "extra.weight".' in msg
    r = b.load_state_dict(bad, strict=False)
    assert r.missing_keys == ["fc.bias"] and r.unexpected_keys == ["extra.weight"]
    assert r == (["fc.bias"], ["extra.weight"])
    wrong = dict(sd)
    wrong["fc.weight"] = torch.zeros(3, 5)
    with pytest.raises(RuntimeError, match="size mismatch for fc.weight: copying a param with "
                                           r"shape torch.Size\(\[3, 5\]\) from checkpoint"):
        b.load_state_dict(wrong)
    # dtype conversion on load (float64 checkpoint into float32 model)
    sd64 = {k: (v.double() if v.is_floating_point() else v) for k, v in sd.items()}
    b.load_state_dict(sd64)
    assert b.fc.weight.dtype == torch.float32


def test_state_dict_keep_vars_and_prefix():
    m = nn.Linear(2, 2)
    sd = m.state_dict(keep_vars=True)
    assert sd["weight"] is m.weight
    assert list(m.state_dict(prefix="lin.")) == ["lin.weight", "lin.bias"]


def test_train_eval_and_freeze():
    m = Net()
    assert m.training and m.bn.training
    assert m.eval() is m and not m.bn.training
    m.train()
    assert m.fc.training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        m.train("yes")
    assert m.requires_grad_(False) is m
    assert not any(p.requires_grad for p in m.parameters())
    m.requires_grad_()
    assert all(p.requires_grad for p in m.parameters())


def test_eval_is_not_no_grad():
    """The autograd note: module.eval() is orthogonal to no-grad mode."""
    m = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5), nn.BatchNorm1d(3))
    m.eval()
    x = torch.randn(4, 3)
    y = m(x)
    assert y.requires_grad and y.grad_fn is not None
    before = m[2].running_mean.clone()
    m(x)
    np.testing.assert_array_equal(m[2].running_mean.numpy(), before.numpy())
    np.testing.assert_allclose(m(x).detach().numpy(), y.detach().numpy())  # dropout off
    m.requires_grad_(False)
    assert not m(x).requires_grad


def test_freeze_and_fine_tune_example():
    """The autograd note's fine-tuning recipe with a small model instead of resnet18:
    freeze every parameter, replace ``model.fc`` (new parameters require grad by
    default), optimize only ``model.fc.parameters()``."""
    torch.manual_seed(0)
    model = Net()
    for param in model.parameters():
        param.requires_grad = False
    model.fc = nn.Linear(2 * 4 * 4, 5)
    frozen = {n: p.detach().clone() for n, p in model.named_parameters() if "fc" not in n}
    x, y = torch.randn(8, 1, 8, 8), torch.randint(0, 5, (8,))
    opt_params = list(model.fc.parameters())
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    for n, p in model.named_parameters():
        assert (p.grad is not None) == n.startswith("fc."), n
    w0 = model.fc.weight.detach().clone()
    try:
        from ftrans.compat import optim
    except ImportError:
        optim = None
    if optim is None:
        with torch.no_grad():
            for p in opt_params:
                p -= 1e-2 * p.grad
    else:
        opt = optim.SGD(opt_params, lr=1e-2, momentum=0.9)
        opt.step()
    assert not np.allclose(model.fc.weight.detach().numpy(), w0.numpy())
    for n, p in model.named_parameters():
        if n in frozen:
            np.testing.assert_array_equal(p.detach().numpy(), frozen[n].numpy())


def test_fine_tune_with_compat_optim_sgd():
    optim = pytest.importorskip("ftrans.compat.optim",
                                reason="ftrans.compat.optim is not available on this branch")
    torch.manual_seed(1)
    model = Net()
    model.requires_grad_(False)
    model.fc = nn.Linear(2 * 4 * 4, 5)
    opt = optim.SGD(model.fc.parameters(), lr=1e-2, momentum=0.9)
    x, y = torch.randn(16, 1, 8, 8), torch.randint(0, 5, (16,))
    losses = []
    for _ in range(20):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(float(loss))
    assert losses[-1] < losses[0]
    assert model.conv.weight.grad is None


def test_zero_grad():
    m = nn.Linear(3, 2)
    m(torch.randn(4, 3)).sum().backward()
    m.zero_grad(set_to_none=False)
    assert m.weight.grad is not None and float(m.weight.grad.abs().sum()) == 0.0
    m.zero_grad()
    assert m.weight.grad is None and m.bias.grad is None


def test_to_double_float_half_keep_parameter_identity():
    m = Net()
    w = m.fc.weight
    m.double()
    assert m.fc.weight is w and w.dtype == torch.float64 and isinstance(w, nn.Parameter)
    assert m.bn.running_mean.dtype == torch.float64
    assert m.bn.num_batches_tracked.dtype == torch.int64
    assert m(torch.randn(2, 1, 8, 8, dtype=torch.float64)).dtype == torch.float64
    m.float()
    assert w.dtype == torch.float32
    m.to(torch.float64)
    assert w.dtype == torch.float64
    m.to(dtype=torch.float32)
    assert w.dtype == torch.float32
    m.half()
    assert w.dtype == torch.float16
    with pytest.raises(TypeError, match="floating point or complex dtypes"):
        m.to(torch.int64)


def test_apply_order():
    seen = []
    Net().apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Conv2d", "BatchNorm2d", "Linear", "Net"]


def test_forward_hooks():
    m = nn.Linear(2, 2, bias=False)
    with torch.no_grad():
        m.weight.copy_(torch.eye(2))
    calls = []
    h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
    h2 = m.register_forward_hook(lambda mod, args, out: calls.append(args[0]) or out + 1)
    out = m(torch.ones(1, 2))
    np.testing.assert_allclose(out.detach().numpy(), [[3.0, 3.0]])
    np.testing.assert_allclose(calls[0].numpy(), [[2.0, 2.0]])    # the hook saw new args
    h1.remove()
    h2.remove()
    np.testing.assert_allclose(m(torch.ones(1, 2)).detach().numpy(), [[1.0, 1.0]])
    # a non-tuple result of a pre hook is wrapped; kwargs hooks
    m.register_forward_pre_hook(lambda mod, args: args[0] + 1)
    m.register_forward_hook(lambda mod, args, kwargs, out: out * 10, with_kwargs=True)
    np.testing.assert_allclose(m(torch.zeros(1, 2)).detach().numpy(), [[10.0, 10.0]])


def test_full_backward_hook_values_and_replacement():
    m = nn.Linear(3, 2, bias=False)
    W = m.weight.detach().numpy().copy()
    seen = {}

    def hook(mod, grad_input, grad_output):
        seen["gi"] = grad_input
        seen["go"] = grad_output
        return (grad_input[0] * 0 + 7.0,)
    m.register_full_backward_hook(hook)
    x = torch.randn(4, 3, requires_grad=True)
    g = torch.randn(4, 2)
    m(x).backward(g)
    np.testing.assert_allclose(seen["go"][0].numpy(), g.numpy())
    np.testing.assert_allclose(seen["gi"][0].numpy(), g.numpy() @ W, rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), np.full((4, 3), 7.0))
    np.testing.assert_allclose(m.weight.grad.numpy(), g.numpy().T @ x.detach().numpy(),
                               rtol=1e-6)


def test_full_backward_hook_input_without_grad():
    m = nn.Linear(3, 2)
    seen = []
    m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
    with pytest.warns(UserWarning, match="no inputs require gradients"):
        m(torch.randn(4, 3)).sum().backward()
    assert len(seen) == 1 and seen[0][0] == (None,)
    np.testing.assert_allclose(seen[0][1][0].numpy(), np.ones((4, 2)))


def test_reprs():
    m = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1, bias=False), nn.ReLU(inplace=True),
                      nn.MaxPool2d(2), nn.Flatten(), nn.Linear(16, 2), nn.Dropout(0.25))
    assert repr(m) == (
        "Sequential(\n"
        "  (0): Conv2d(1, 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), bias=False)\n"
        "  (1): ReLU(inplace=True)\n"
        "  (2): MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)\n"
        "  (3): Flatten(start_dim=1, end_dim=-1)\n"
        "  (4): Linear(in_features=16, out_features=2, bias=True)\n"
        "  (5): Dropout(p=0.25, inplace=False)\n"
        ")")
    assert repr(nn.BatchNorm1d(3)) == ("BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, "
                                       "bias=True, track_running_stats=True)")
    assert repr(nn.LayerNorm(4)) == "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)"
    assert repr(nn.LSTM(3, 4, 2, batch_first=True)) == "LSTM(3, 4, num_layers=2, batch_first=True)"
    assert repr(nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU()])) == (
        "ModuleList(\n"
        "  (0-2): 3 x Linear(in_features=2, out_features=2, bias=True)\n"
        "  (3): ReLU()\n"
        ")")
    assert repr(nn.CrossEntropyLoss()) == "CrossEntropyLoss()"
    assert repr(nn.Parameter(torch.tensor([1.0]))) == (
        "Parameter containing:\ntensor([1.], requires_grad=True)")


def test_repr_matches_torch():
    real = pytest.importorskip("torch", reason="PyTorch is not installed")
    for make in (lambda T: T.nn.Sequential(T.nn.Conv2d(3, 4, (3, 2), stride=2, groups=1,
                                                       dilation=2),
                                           T.nn.BatchNorm2d(4, momentum=None),
                                           T.nn.AvgPool2d(2, padding=1),
                                           T.nn.AdaptiveAvgPool2d((1, 1)), T.nn.GELU("tanh"),
                                           T.nn.LeakyReLU(0.1), T.nn.Softmax(dim=1),
                                           T.nn.Embedding(5, 2, padding_idx=0),
                                           T.nn.ConvTranspose2d(2, 3, 2, output_padding=1,
                                                                stride=2)),
                 lambda T: T.nn.TransformerEncoderLayer(8, 2, 16),
                 lambda T: T.nn.GRU(3, 4, bidirectional=True, dropout=0.5, num_layers=2),
                 lambda T: T.nn.ModuleDict({"a": T.nn.Tanh(), "b": T.nn.ModuleList(
                     [T.nn.SiLU(), T.nn.SiLU()])})):
        assert repr(make(torch)) == repr(make(real))


def test_containers():
    s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(s) == 3 and isinstance(s[-1], nn.Linear)
    assert isinstance(s[1:], nn.Sequential) and len(s[1:]) == 2
    del s[1]
    assert list(s._modules) == ["0", "1"]
    s.append(nn.Sigmoid())
    assert list(s._modules) == ["0", "1", "2"]
    ml = nn.ModuleList([nn.Linear(1, 1)])
    ml.append(nn.Linear(1, 1))
    ml += [nn.Tanh()]
    assert [n for n, _ in ml.named_parameters()] == ["0.weight", "0.bias", "1.weight", "1.bias"]
    md = nn.ModuleDict({"enc": nn.Linear(2, 2)})
    md["dec"] = nn.Linear(2, 2)
    assert list(md.keys()) == ["enc", "dec"] and "dec" in md
    pl = nn.ParameterList([torch.zeros(2), nn.Parameter(torch.ones(1))])
    assert [n for n, _ in pl.named_parameters()] == ["0", "1"]
    assert isinstance(pl[0], nn.Parameter)
    pd = nn.ParameterDict({"a": torch.zeros(1)})
    pd["b"] = nn.Parameter(torch.ones(2))
    assert [n for n, _ in pd.named_parameters()] == ["a", "b"]
    with pytest.raises(IndexError):
        s[5]


def test_parameter_basics_and_copies():
    p = nn.Parameter(torch.ones(3))
    assert p.is_leaf and p.requires_grad and isinstance(p, torch.Tensor)
    assert type(p * 2) is torch.Tensor
    q = copy.deepcopy(p)
    assert isinstance(q, nn.Parameter) and q.requires_grad
    q2 = pickle.loads(pickle.dumps(p))
    assert isinstance(q2, nn.Parameter)
    np.testing.assert_array_equal(q2.detach().numpy(), np.ones(3))
    assert not nn.Parameter(torch.ones(1), requires_grad=False).requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        nn.Parameter(torch.tensor([1, 2]))
    m = copy.deepcopy(Net())
    assert isinstance(m.fc.weight, nn.Parameter)


def test_default_initialization_ranges():
    torch.manual_seed(0)
    lin = nn.Linear(100, 50)
    b = 1 / np.sqrt(100)
    assert np.abs(lin.weight.detach().numpy()).max() <= b
    assert np.abs(lin.weight.detach().numpy()).max() > 0.9 * b
    assert np.abs(lin.bias.detach().numpy()).max() <= b
    conv = nn.Conv2d(4, 8, 3)
    b = 1 / np.sqrt(4 * 9)
    assert np.abs(conv.weight.detach().numpy()).max() <= b
    rnn = nn.LSTM(3, 16)
    assert all(np.abs(p.detach().numpy()).max() <= 0.25 for p in rnn.parameters())
    emb = nn.Embedding(1000, 8, padding_idx=3)
    w = emb.weight.detach().numpy()
    assert np.all(w[3] == 0) and abs(w.std() - 1.0) < 0.05
    mha = nn.MultiheadAttention(8, 2)
    assert np.all(mha.in_proj_bias.detach().numpy() == 0)
    bn = nn.BatchNorm2d(3)
    np.testing.assert_array_equal(bn.weight.detach().numpy(), np.ones(3))
    np.testing.assert_array_equal(bn.running_var.numpy(), np.ones(3))


def test_load_state_dict_assign():
    m = nn.Linear(2, 2)
    w = torch.ones(2, 2, dtype=torch.float64)
    m.load_state_dict({"weight": w, "bias": torch.zeros(2, dtype=torch.float64)}, assign=True)
    assert isinstance(m.weight, nn.Parameter) and m.weight.dtype == torch.float64
    assert m.weight.requires_grad
    with torch.no_grad():
        w.add_(1.0)                 # assigned, not copied: the module sees the change
    assert float(m.weight.sum()) == 8.0


def test_global_forward_hooks_and_device():
    from ftrans.compat.nn.modules import module as M
    seen = []
    h = M.register_module_forward_hook(lambda mod, args, out: seen.append(type(mod).__name__))
    try:
        nn.Sequential(nn.Linear(2, 2), nn.ReLU())(torch.ones(1, 2))
    finally:
        h.remove()
    assert seen == ["Linear", "ReLU", "Sequential"]
    nn.Linear(2, 2)(torch.ones(1, 2))
    assert len(seen) == 3
    m = nn.Linear(2, 2).to(torch.device("cpu"))
    assert m.to("cpu", torch.float64).weight.dtype == torch.float64


def test_per_sample_gradients_recipe_with_cnn():
    """torch.func's per-sample-gradient recipe on a compat.nn CNN (needs compat.func,
    built on another branch): vmap(grad(loss)) equals one backward per example."""
    func = pytest.importorskip("ftrans.compat.func",
                               reason="ftrans.compat.func is not available on this branch")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(16, 3)).double()
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = torch.randn(5, 1, 4, 4, dtype=torch.float64)
    y = torch.tensor([0, 1, 2, 1, 0])

    def compute_loss(params, sample, target):
        out = func.functional_call(model, params, (sample.unsqueeze(0),))
        return nn.functional.cross_entropy(out, target.unsqueeze(0))
    g = func.vmap(func.grad(compute_loss), in_dims=(None, 0, 0))(params, x, y)
    for i in range(5):
        model.zero_grad()
        nn.functional.cross_entropy(model(x[i:i + 1]), y[i:i + 1]).backward()
        for k, p in model.named_parameters():
            np.testing.assert_allclose(g[k][i].numpy(), p.grad.numpy(), rtol=1e-10,
                                       atol=1e-14)
