"""Hooks for saved tensors (autograd-mechanics.md, "Hooks for saved tensors"):
``torch.autograd.graph.saved_tensors_hooks`` / ``save_on_cpu`` /
``disable_saved_tensors_hooks`` and ``grad_fn._raw_saved_<name>.register_hooks``.

Differential tests run each snippet through PyTorch and ``ftrans.compat`` and compare
values, gradients, hook call counts and exception types; the others check gradients
against finite differences and the save-to-disk example's files on their own.
"""
from __future__ import annotations

import gc
import os
import threading
import uuid

import numpy as np
import pytest

import ftrans.compat as fc
from ftrans.compat.autograd.graph import _tls_hooks

from compat_diff import assert_same, needs_torch, run


@pytest.fixture(autouse=True)
def _no_hooks_left():
    yield
    _tls_hooks.stack = ()
    _tls_hooks.disabled_msg = None


def _counting():
    cnt = {"pack": 0, "unpack": 0}

    def pack(t):
        cnt["pack"] += 1
        return t.detach()

    def unpack(t):
        cnt["unpack"] += 1
        return t
    return cnt, pack, unpack


# ------------------------------------------------------------------------- call counts
OPS = {
    "mul": lambda x, w: x * x,
    "mul_other": lambda x, w: x * w[0],
    "exp": lambda x, w: x.exp(),             # saves its output
    "tanh": lambda x, w: x.tanh(),
    "pow_int": lambda x, w: x.pow(2),
    "pow_tensor": lambda x, w: x.pow(w[1]),
    "div": lambda x, w: x / w[0],
    "matmul": lambda x, w: w @ x,
    "sum": lambda x, w: x.sum(),             # saves nothing
    "chain": lambda x, w: (x.exp() * x).sin().sum(),
    "shared": lambda x, w: x.sin() + x.cos(),  # x saved by two nodes
    "sigmoid": lambda x, w: x.sigmoid(),
}


def _counts_snippet(op):
    def snippet(T):
        cnt, pack, unpack = _counting()
        x = T.tensor([0.5, -1.25, 2.0], dtype=T.float64, requires_grad=True)
        w = T.tensor([[1.5, 0.5, -2.0], [2.0, 3.0, 0.25], [0.1, 0.2, 0.3]], dtype=T.float64,
                     requires_grad=True)
        with T.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = OPS[op](x, w).sum()
        log = [dict(cnt)]
        y.backward(retain_graph=True)
        log.append(dict(cnt))
        y.backward()
        log.append(dict(cnt))
        return log, x.grad, w.grad
    return snippet


@needs_torch
@pytest.mark.parametrize("op", sorted(OPS))
def test_pack_once_unpack_per_use_matches_torch(op):
    assert_same(_counts_snippet(op))


def test_pack_once_unpack_per_use():
    """Without torch: pack once per saved tensor at save time, unpack at each backward."""
    ok, (log, gx, _) = run(_counts_snippet("chain"), fc)
    assert ok == "ok"
    # exp saves its result, mul saves both operands, sin its input: 4 packs
    assert [c["pack"] for c in log] == [4, 4, 4]
    assert [c["unpack"] for c in log] == [0, 4, 8]
    xv = np.array([0.5, -1.25, 2.0])
    want = 2 * np.cos(np.exp(xv) * xv) * np.exp(xv) * (1 + xv)
    assert np.allclose(gx[3], want)


def _saved_access(T):
    cnt, pack, unpack = _counting()
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = x.exp()
        z = x * y
    log = [dict(cnt)]
    r = y.grad_fn._saved_result
    log.append(dict(cnt))
    s, o = z.grad_fn._saved_self, z.grad_fn._saved_other
    log.append(dict(cnt))
    # a new tensor object each time, with the content of the saved one and its autograd edge
    info = (s is x, s.requires_grad, s.is_leaf, o is y, o.grad_fn is y.grad_fn,
            r is y, r.grad_fn is y.grad_fn)
    z.sum().backward()
    log.append(dict(cnt))
    return log, info, r, s, o, x.grad


@needs_torch
def test_saved_attribute_access_unpacks_matches_torch():
    assert_same(_saved_access)


def _pack_argument(T):
    got = []

    def pack(t):
        got.append(t)
        return t.detach()
    x = T.tensor([1.0, 2.0], requires_grad=True)
    b = x * 2
    v = b[1:]
    with T.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = x.pow(2)    # saves the leaf x
        z = b.exp()     # saves its output z
        u = v.pow(2)    # saves the view v
    # the pack hook receives the tensor itself (an output with its grad_fn)
    return (got[0] is x, got[1] is z, got[1].grad_fn is z.grad_fn, got[1].requires_grad,
            got[2] is v, y, z, u)


@needs_torch
def test_pack_hook_gets_the_saved_tensor_itself_matches_torch():
    assert_same(_pack_argument)


def _hook_grad_modes(T):
    info = []

    def pack(t):
        info.append(("pack", T.is_grad_enabled()))
        e = t.exp()   # would save (and pack) e if recorded
        info.append(("pack exp", e.requires_grad))
        return t.detach()

    def unpack(t):
        info.append(("unpack", T.is_grad_enabled()))
        return t
    x = T.tensor([1.0, 2.0], requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = x.pow(2)
    y.sum().backward(retain_graph=True)
    y.grad_fn._saved_self
    return info


@needs_torch
def test_hooks_grad_mode_matches_torch():
    """Pack runs in no-grad mode (no node, no nested packing); unpack in the current mode."""
    assert_same(_hook_grad_modes)


# --------------------------------------------------------------------- nesting, threads
def _nested(T):
    log = []

    def tagged(tag):
        return lambda t: (log.append(tag), t.detach())[1]
    x = T.tensor([1.0, 2.0], requires_grad=True)
    G = T.autograd.graph
    with G.saved_tensors_hooks(tagged("outer"), lambda t: t):
        with G.saved_tensors_hooks(tagged("inner"), lambda t: t):
            y = x * x
        z = x.exp()
    w = x.sin()
    try:
        with G.saved_tensors_hooks(tagged("raised"), lambda t: t):
            raise KeyError("leave the block by an exception")
    except KeyError:
        pass
    v = x.cos()   # no hooks left installed
    return log, y, z, w, v


@needs_torch
def test_nested_contexts_innermost_wins_matches_torch():
    assert_same(_nested)


def _threads(T):
    log = []
    G = T.autograd.graph
    x = T.tensor([1.0, 2.0], requires_grad=True)
    out = {}

    def other():
        out["y"] = x.exp()   # not packed: the hooks belong to the main thread
        with G.saved_tensors_hooks(lambda t: (log.append("thread"), t.detach())[1],
                                   lambda t: t):
            out["z"] = x.sin()

    with G.saved_tensors_hooks(lambda t: (log.append("main"), t.detach())[1], lambda t: t):
        th = threading.Thread(target=other)
        th.start()
        th.join()
        y = x.cos()
    (out["y"] + out["z"] + y).sum().backward()
    return log, x.grad


@needs_torch
def test_hooks_are_thread_local_matches_torch():
    assert_same(_threads)


# ------------------------------------------------------------------ register_hooks
def _register(T):
    cnt, pack, unpack = _counting()
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.pow(2)
    y.grad_fn._raw_saved_self.register_hooks(pack, unpack)
    log = [dict(cnt)]
    y.grad_fn._saved_self
    log.append(dict(cnt))
    z = x.exp()
    z.grad_fn._raw_saved_result.register_hooks(pack, unpack)
    (y + z).sum().backward(retain_graph=True)
    log.append(dict(cnt))
    (y + z).sum().backward()
    log.append(dict(cnt))
    return log, x.grad


@needs_torch
def test_register_hooks_matches_torch():
    assert_same(_register)


def _register_argument(T):
    got = []
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = x * 1
    y = a.pow(2)
    z = a.exp()
    with T.no_grad():
        a.add_(1)   # not checked once hooks are registered: their content is used
    y.grad_fn._raw_saved_self.register_hooks(lambda t: (got.append(t), t.detach())[1],
                                             lambda t: t)
    z.grad_fn._raw_saved_result.register_hooks(lambda t: (got.append(t), t.detach())[1],
                                               lambda t: t)
    (y + z).sum().backward()
    # the pack hook gets a new tensor with the saved content and no autograd history
    return [(g is a, g is z, g.requires_grad, g.grad_fn is None, g) for g in got], x.grad


@needs_torch
def test_register_hooks_argument_matches_torch():
    assert_same(_register_argument)


def _reg_twice(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    r = x.pow(2).grad_fn._raw_saved_self
    r.register_hooks(lambda t: t.detach(), lambda t: t)
    r.register_hooks(lambda t: t.detach(), lambda t: t)


def _reg_under_context(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
        y = x.pow(2)
    y.grad_fn._raw_saved_self.register_hooks(lambda t: t.detach(), lambda t: t)


def _reg_after_free(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x.pow(2)
    r = y.grad_fn._raw_saved_self
    y.sum().backward()
    r.register_hooks(lambda t: t.detach(), lambda t: t)


def _reg_after_free_fresh_attr(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x.pow(2)
    y.sum().backward()
    y.grad_fn._raw_saved_self.register_hooks(lambda t: t.detach(), lambda t: t)


def _reg_on_none(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    y = x * T.tensor([3.0, 4.0])   # self is not saved: other does not require grad
    assert y.grad_fn._saved_self is None
    y.grad_fn._raw_saved_self.register_hooks(lambda t: t.detach(), lambda t: t)


def _reg_not_callable(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    x.pow(2).grad_fn._raw_saved_self.register_hooks(1, lambda t: t)


@needs_torch
@pytest.mark.parametrize("snippet, message", [
    (_reg_twice, "hooks have already been set"),
    (_reg_under_context, "hooks have already been set"),
    (_reg_after_free, "after it has been freed"),
    (_reg_after_free_fresh_attr, "after it has been freed"),
    (_reg_on_none, "with value None is forbidden"),
    (_reg_not_callable, None),
])
def test_register_hooks_errors_match_torch(snippet, message):
    assert_same(snippet, message=message)


# ------------------------------------------------------------------- errors in hooks
def _pack_raises(T):
    def pack(t):
        raise ValueError("pack failed")
    x = T.tensor([1.0, 2.0], requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        return x.pow(2)


def _unpack_raises_backward(T):
    def unpack(t):
        raise KeyError("unpack failed")
    x = T.tensor([1.0, 2.0], requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), unpack):
        y = x.pow(2).sum()   # no error yet: unpack runs at backward time
    y.backward()


def _unpack_raises_access(T):
    def unpack(t):
        raise KeyError("unpack failed")
    x = T.tensor([1.0, 2.0], requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), unpack):
        y = x.exp()
    return y.grad_fn._saved_result


def _unpack_not_tensor(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: 5):
        y = x.pow(2)
    y.sum().backward()


def _enter_not_callable(T):
    with T.autograd.graph.saved_tensors_hooks(1, 2):
        pass


def _pack_modifies_input(kind):
    def snippet(T):
        def pack(t):
            with T.no_grad():
                t.mul_(2)
            return t
        x = T.tensor([1.0, 2.0], requires_grad=True)
        a = x * 1
        with T.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            if kind == "leaf":
                return x.pow(2)
            if kind == "nonleaf":
                return a.pow(2)
            return a.exp()   # the output
    return snippet


@needs_torch
@pytest.mark.parametrize("snippet, message", [
    (_pack_raises, "pack failed"),
    (_unpack_raises_backward, "unpack failed"),
    (_unpack_raises_access, "unpack failed"),
    (_unpack_not_tensor, "Output of saved tensor unpack_hook expected to be a Tensor"),
    (_enter_not_callable, None),
    (_pack_modifies_input("leaf"), "pack hook is modifying its input in place"),
    (_pack_modifies_input("nonleaf"), "pack hook is modifying its input in place"),
    (_pack_modifies_input("output"), "pack hook is modifying its input in place"),
])
def test_hook_errors_match_torch(snippet, message):
    assert_same(snippet, message=message)


def test_hook_errors_propagate():
    """Without torch: the hooks' own exceptions reach the caller unchanged."""
    assert run(_pack_raises, fc)[:2] == ("err", "ValueError")
    assert run(_unpack_raises_backward, fc)[:2] == ("err", "KeyError")
    r = run(_pack_modifies_input("nonleaf"), fc)
    assert r[:2] == ("err", "RuntimeError") and "in place" in r[2]


def test_unpack_wrong_shape_is_a_runtime_error():
    x = fc.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with fc.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: fc.zeros(5)):
        y = x.pow(2)
    with pytest.raises(RuntimeError, match="shape"):
        y.sum().backward()


def _unpack_other_dtype(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t.double()):
        y = (x.pow(2) * 3).exp()
    y.sum().backward()
    return x.grad


@needs_torch
def test_unpack_other_dtype_matches_torch():
    assert_same(_unpack_other_dtype)


# ------------------------------------------------- content only: no version checking
def _modified_after_packing(pack):
    def snippet(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        a = x * 1
        with T.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            y = a.pow(2)   # saves a
            z = a.exp()    # saves its output z
        with T.no_grad():
            a.add_(1)
            z.mul_(3)
        (y + z).sum().backward()
        return x.grad
    return snippet


@needs_torch
@pytest.mark.parametrize("copy", [False, True])
def test_modified_after_packing_matches_torch(copy):
    """PyTorch checks no version for hooked saved tensors: unpack's content is used."""
    pack = (lambda t: t.detach().clone()) if copy else (lambda t: t.detach())
    assert_same(_modified_after_packing(pack))


# ------------------------------------------------------------- the note's examples
class _SelfDeletingTempFile:
    """The note's example: a temporary file removed when the object is deleted."""

    live = set()

    def __init__(self, tmp_dir):
        self.name = os.path.join(tmp_dir, str(uuid.uuid4()))
        _SelfDeletingTempFile.live.add(self.name)

    def __del__(self):
        os.remove(self.name)
        _SelfDeletingTempFile.live.discard(self.name)


def _disk_snippet(tmp_dir, threshold=0):
    def snippet(T):
        is_torch = not T.__name__.startswith("ftrans")

        def save(t, name):
            if is_torch:
                T.save(t, name)
            else:
                with open(name, "wb") as f:
                    np.save(f, t.detach().numpy())

        def load(name):
            if is_torch:
                return T.load(name)
            with open(name, "rb") as f:
                return T.from_numpy(np.load(f))

        def pack_hook(tensor):
            if tensor.numel() < threshold:
                return tensor
            temp_file = _SelfDeletingTempFile(tmp_dir)
            save(tensor, temp_file.name)
            return temp_file

        def unpack_hook(tensor_or_sctf):
            if isinstance(tensor_or_sctf, T.Tensor):
                return tensor_or_sctf
            return load(tensor_or_sctf.name)

        x = T.tensor(np.linspace(-1.0, 1.0, 6), requires_grad=True)
        small = T.tensor([0.5, 2.0], requires_grad=True)
        with T.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
            y = ((x * x).exp() * x).sin().sum() + (small * small).sum()
        files = [len(os.listdir(tmp_dir))]
        y.backward(retain_graph=True)
        files.append(len(os.listdir(tmp_dir)))   # unpack does not delete
        g1 = x.grad.clone()
        y.backward()
        files.append(len(os.listdir(tmp_dir)))
        del y
        gc.collect()
        files.append(len(os.listdir(tmp_dir)))   # freed with the graph
        return files, g1, x.grad, small.grad
    return snippet


def test_save_to_disk_example(tmp_path):
    """The note's example (NumPy files here): the gradients are right (finite differences)
    and each file lives until the backward that frees the graph."""
    d = str(tmp_path)
    ok, (files, g1, g2, gs) = run(_disk_snippet(d), fc)
    assert ok == "ok"
    # x*x (x twice), exp (output), *x (two), sin (input), small*small (twice)
    assert files[0] == 8 and files[1] == 8 and files[2] == 0 and files[3] == 0
    xv = np.linspace(-1.0, 1.0, 6)

    def f(v):
        return np.sin(np.exp(v * v) * v).sum()
    eps = 1e-6
    fd = np.array([(f(xv + eps * e) - f(xv - eps * e)) / (2 * eps) for e in np.eye(6)])
    assert np.allclose(g1[3], fd, atol=1e-6) and np.allclose(g2[3], 2 * fd, atol=1e-6)
    assert np.allclose(gs[3], 2 * 2 * np.array([0.5, 2.0]))
    assert not os.listdir(d)


@needs_torch
@pytest.mark.parametrize("threshold", [0, 3])
def test_save_to_disk_example_matches_torch(tmp_path, threshold):
    dt, dc = tmp_path / "torch", tmp_path / "compat"
    dt.mkdir()
    dc.mkdir()
    rt = run(_disk_snippet(str(dt), threshold), __import__("torch"))
    rc = run(_disk_snippet(str(dc), threshold), fc)
    assert rt[0] == rc[0] == "ok", (rt, rc)
    assert rt[1][0] == rc[1][0]   # the files alive at each step
    for a, b in zip(rt[1][1:], rc[1][1:]):
        assert np.allclose(a[3], b[3])


def _save_on_cpu(T):
    G = T.autograd.graph
    x = T.tensor([0.5, -1.0, 2.0], dtype=T.float64, requires_grad=True)
    a = x * 1
    with G.save_on_cpu():
        y = (a.exp() * a).sin()
    with G.save_on_cpu(pin_memory=True):
        z = y.tanh() * x
    r = z.sum()
    r.backward(retain_graph=True)
    g = x.grad.clone()
    with T.no_grad():
        a.add_(1)    # on the CPU no copy is made: the change is seen, not reported
    r.backward()
    return (isinstance(G.save_on_cpu(), G.saved_tensors_hooks), g, x.grad)


@needs_torch
def test_save_on_cpu_matches_torch():
    assert_same(_save_on_cpu)


def test_save_on_cpu_gradient():
    x = fc.tensor([0.5, -1.0, 2.0], dtype=fc.float64, requires_grad=True)
    with fc.autograd.graph.save_on_cpu():
        y = (x.exp() * x).sin().sum()
    y.backward()
    xv = np.array([0.5, -1.0, 2.0])
    assert np.allclose(x.grad.numpy(), np.cos(np.exp(xv) * xv) * np.exp(xv) * (1 + xv))


# ---------------------------------------------------------- disable_saved_tensors_hooks
def _disabled(T):
    G = T.autograd.graph
    res = []

    def attempt(f):
        try:
            f()
            res.append("ok")
        except RuntimeError as e:
            res.append(str(e))
    x = T.tensor([1.0, 2.0], requires_grad=True)
    with G.disable_saved_tensors_hooks("hooks are disabled here"):
        attempt(lambda: G.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__())
        attempt(lambda: G.save_on_cpu().__enter__())
        with G.disable_saved_tensors_hooks("inner message"):
            attempt(lambda: G.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__())
        attempt(lambda: G.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__())
        y = x.pow(2)   # register_hooks on one saved tensor is still allowed
        attempt(lambda: y.grad_fn._raw_saved_self.register_hooks(lambda t: t.detach(),
                                                                   lambda t: t))
    with G.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
        pass
    res.append("enabled again")
    with G.saved_tensors_hooks(lambda t: (res.append("packed"), t.detach())[1], lambda t: t):
        # entering while hooks are installed raises (and leaves them installed)
        attempt(lambda: G.disable_saved_tensors_hooks("not while hooks are set").__enter__())
        x.exp()

    @G.disable_saved_tensors_hooks("decorated")
    def f():
        G.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()
    attempt(f)
    y.sum().backward()
    return res, x.grad


@needs_torch
def test_disable_saved_tensors_hooks_matches_torch():
    assert_same(_disabled)


def test_disable_saved_tensors_hooks():
    ok, (res, _) = run(_disabled, fc)
    assert ok == "ok"
    assert res[:5] == ["hooks are disabled here", "hooks are disabled here", "inner message",
                       "hooks are disabled here", "ok"]
    assert res[5:] == ["enabled again", "not while hooks are set", "packed", "decorated"]


# ---------------------------------------------------------------------- create_graph
def _create_graph(T):
    cnt, pack, unpack = _counting()
    x = T.tensor([0.3, 1.7, -0.4], dtype=T.float64, requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = (x.sin() * x.exp()).sum()
    (g,) = T.autograd.grad(y, x, create_graph=True)
    (h,) = T.autograd.grad(g.sum(), x)
    return g, h


@needs_torch
def test_hooks_with_create_graph_matches_torch():
    assert_same(_create_graph)


def test_hooks_with_create_graph_finite_differences():
    ok, (g, h) = run(_create_graph, fc)
    xv = np.array([0.3, 1.7, -0.4])

    def d1(v):
        return np.cos(v) * np.exp(v) + np.sin(v) * np.exp(v)
    eps = 1e-6
    assert np.allclose(g[3], d1(xv))
    assert np.allclose(h[3], (d1(xv + eps) - d1(xv - eps)) / (2 * eps), atol=1e-6)


def _hooks_during_create_graph_backward(T):
    cnt, pack, unpack = _counting()
    x = T.tensor([0.3, 1.7], dtype=T.float64, requires_grad=True)
    y = x.pow(3).sum()
    with T.autograd.graph.saved_tensors_hooks(pack, unpack):
        (g,) = T.autograd.grad(y, x, create_graph=True)   # nodes recorded now are packed
    packed = cnt["pack"] > 0
    (h,) = T.autograd.grad(g.sum(), x)
    return packed, cnt["unpack"] > 0, g, h


@needs_torch
def test_hooks_apply_to_nodes_recorded_by_backward_matches_torch():
    assert_same(_hooks_during_create_graph_backward)


# ------------------------------------------------------- Node, GradientEdge (small extras)
def _gradient_edges(T):
    G = T.autograd.graph
    x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    v = y[1:]
    out = []
    for t in (x, y, v):
        e = G.get_gradient_edge(t)
        out.append((e.node.name(), e.output_nr, e.ownership_token is None,
                    isinstance(e, G.GradientEdge), isinstance(e.node, G.Node)))
    out.append(G.get_gradient_edge(x).node.variable is x)
    out.append(G.get_gradient_edge(y).node is y.grad_fn)
    return out


def _gradient_edge_no_grad(T):
    T.autograd.graph.get_gradient_edge(T.tensor([1.0]))


@needs_torch
@pytest.mark.parametrize("snippet", [_gradient_edges, _gradient_edge_no_grad])
def test_gradient_edge_matches_torch(snippet):
    assert_same(snippet, message="does not require gradients"
                if snippet is _gradient_edge_no_grad else None)
