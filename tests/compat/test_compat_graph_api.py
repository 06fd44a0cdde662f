"""``torch.autograd.graph`` beyond nodes and saved-tensor hooks: ``register_multi_grad_hook``
(and the engine's current graph task it asks), ``GradientEdge`` inputs and outputs of
``autograd.grad``/``backward``, ``increment_version``, ``allow_mutation_on_saved_tensors``,
and saved values kept when a node's backward raises (an unpack hook, a version check).

Differential tests run each snippet through PyTorch 2.13 and ``ftrans.compat`` and compare
hook call counts, order and arguments, gradients and exception types; the others check
gradients against finite differences and counts on their own.
"""
from __future__ import annotations

import threading

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


def _desc(gs):
    """A hook argument as data: None or the gradient's values."""
    if isinstance(gs, (list, tuple)):
        return [None if g is None else g.detach().tolist() for g in gs]
    return None if gs is None else gs.detach().tolist()


def _will_execute(T):
    if T is fc:
        return fc.autograd.graph._will_engine_execute_node
    return T._C._will_engine_execute_node


def _fd_grad(f, x, eps=1e-6):
    """Central finite differences of the scalar function ``f`` (NumPy) at ``x``."""
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        g.flat[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


# ------------------------------------------------------------ register_multi_grad_hook
def _graph(T):
    a = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
    b = T.tensor([0.5, -1.0, 2.0], dtype=T.float64, requires_grad=True)
    c = a * b
    d = (a * b).sin()
    return a, b, c, d


# each scenario runs one backward pass over the graph of _graph (retain_graph: reruns)
SCENARIOS = {
    "all_take_part": lambda T, a, b, c, d: (c + d).sum().backward(retain_graph=True),
    "d_not_in_graph": lambda T, a, b, c, d: c.sum().backward(retain_graph=True),
    "backward_inputs_leaf": lambda T, a, b, c, d: (c + d).sum().backward(inputs=(a,),
                                                                       retain_graph=True),
    "backward_inputs_nonleaf": lambda T, a, b, c, d: (c + d).sum().backward(
        inputs=(c,), retain_graph=True),
    "grad_subset_nonleaf": lambda T, a, b, c, d: T.autograd.grad((c + d).sum(), (c,),
                                                                 retain_graph=True),
    "grad_two_nonleaves": lambda T, a, b, c, d: T.autograd.grad((c * d).sum(), (d, c),
                                                                retain_graph=True),
    "two_roots": lambda T, a, b, c, d: T.autograd.backward([c.sum(), d.sum()],
                                                           retain_graph=True),
    # a single root's node is not counted by PyTorch's engine: c's hook alone completes a
    # round, the leaves' gradients start (and complete) another
    "single_root_is_hooked": lambda T, a, b, c, d: c.backward(T.ones_like(c),
                                                             retain_graph=True),
    "grad_of_hooked_leaf": lambda T, a, b, c, d: T.autograd.grad(c.sum(), (a,),
                                                                 retain_graph=True),
}


def _multi_all_snippet(scenario, which):
    def snippet(T):
        a, b, c, d = _graph(T)
        tensors = {"acd": (a, c, d), "cd": (c, d), "ab": (a, b), "c": (c,), "ad": (a, d)}[which]
        log = []
        h = T.autograd.graph.register_multi_grad_hook(tensors, lambda gs: log.append(_desc(gs)))
        runs = []
        for _ in range(2):  # two passes over the same graph: state is per pass
            try:
                SCENARIOS[scenario](T, a, b, c, d)
                runs.append(list(log))
            except RuntimeError as e:
                runs.append(("RuntimeError", str(e)[:60]))
            log.clear()
        h.remove()
        (c + d).sum().backward()
        return runs, log
    return snippet


@needs_torch
@pytest.mark.parametrize("which", ["acd", "cd", "c", "ad"])
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_multi_grad_hook_all_matches_torch(scenario, which):
    if scenario == "single_root_is_hooked" and which in ("acd", "ad"):
        # the round that the leaves complete depends on the order in which the two leaves'
        # AccumulateGrad nodes (ready together) run: PyTorch's heap ties differ
        which = "cd"
    assert_same(_multi_all_snippet(scenario, which))


def _multi_any_snippet(scenario):
    def snippet(T):
        a, b, c, d = _graph(T)
        x = T.tensor([1.0, 1.0, 1.0], dtype=T.float64)  # does not require grad: skipped
        log = []
        h = T.autograd.graph.register_multi_grad_hook((a, x, c, d), lambda g: log.append(_desc(g)),
                                                      mode="any")
        runs = []
        for _ in range(2):
            SCENARIOS[scenario](T, a, b, c, d)
            runs.append(list(log))
            log.clear()
        h.remove()
        (c + d).sum().backward()
        return runs, log
    return snippet


@needs_torch
@pytest.mark.parametrize("scenario", sorted(set(SCENARIOS) - {"grad_of_hooked_leaf"}))
def test_multi_grad_hook_any_matches_torch(scenario):
    assert_same(_multi_any_snippet(scenario))


def _multi_hook_order(T):
    """The multi-grad hooks are tensor hooks: they run in registration order with the
    others, see what earlier hooks returned, and fire before .grad is accumulated."""
    a, b, c, d = _graph(T)
    log = []
    c.register_hook(lambda g: log.append(("c doubles", _desc(g))) or g * 2)
    T.autograd.graph.register_multi_grad_hook(
        (c, a), lambda gs: log.append(("all", _desc(gs), _desc(a.grad))))
    c.register_hook(lambda g: log.append(("c after", _desc(g))))
    a.register_hook(lambda g: log.append(("a", _desc(g))))
    T.autograd.graph.register_multi_grad_hook((c, a), lambda g: log.append(("any", _desc(g))),
                                              mode="any")
    c.sum().mul(3).backward()
    return log, a.grad, b.grad


@needs_torch
def test_multi_grad_hook_order_with_other_hooks_matches_torch():
    assert_same(_multi_hook_order)


def _multi_hook_none_grads(T):
    """A custom Function returning None: the tensors upstream get None (their hooks are
    called with None, as PyTorch calls them), and mode 'all' still fires."""
    class F(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            return x * w

        @staticmethod
        def backward(ctx, g):
            return None, g
    x = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
    w = T.tensor([3.0, 4.0], dtype=T.float64, requires_grad=True)
    y = x * 2
    log = []
    T.autograd.graph.register_multi_grad_hook((x, y, w), lambda gs: log.append(_desc(gs)))
    y.register_hook(lambda g: log.append(("y", g is None)))
    x.register_post_accumulate_grad_hook(lambda t: log.append(("x post", _desc(t.grad))))
    F.apply(y, w).sum().backward()
    return log, x.grad, w.grad


@needs_torch
def test_multi_grad_hook_with_none_gradients_matches_torch():
    assert_same(_multi_hook_none_grads)


def _multi_hook_nested_backward(T):
    """A backward run from inside the hook is a graph task of its own."""
    x = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
    z = T.tensor([3.0, 1.0], dtype=T.float64, requires_grad=True)
    u = x * z
    v = u.exp()
    log = []

    def fn(gs):
        log.append(("outer", _desc(gs)))
        if len(log) == 1:
            with T.enable_grad():
                log.append(("inner", _desc(T.autograd.grad((z * z * u).sum(), z))))
    T.autograd.graph.register_multi_grad_hook((u, v), fn)
    T.autograd.graph.register_multi_grad_hook((x, u), lambda gs: log.append(("xu", _desc(gs))))
    v.sum().backward()
    return log, x.grad, z.grad


@needs_torch
def test_multi_grad_hook_nested_backward_matches_torch():
    assert_same(_multi_hook_nested_backward)


def _multi_hook_errors(T):
    a = T.tensor([1.0], requires_grad=True)
    res = []
    for kw in ({"mode": "every"}, {}):
        try:
            T.autograd.graph.register_multi_grad_hook((a, T.ones(1)), print, **kw)
            res.append("ok")
        except (ValueError, AssertionError) as e:
            res.append(type(e).__name__)
    h = T.autograd.graph.register_multi_grad_hook((a, T.ones(1)), print, mode="any")
    h.remove()
    h.remove()  # twice: nothing
    with T.autograd.graph.register_multi_grad_hook((a,), print):
        pass
    (a * 2).sum().backward()
    return res, a.grad


@needs_torch
def test_multi_grad_hook_errors_and_handles_match_torch():
    assert_same(_multi_hook_errors)


def test_multi_grad_hook_counts_and_values():
    """Without torch: one call per pass with every participating gradient; the gradients
    are those of the function (checked by finite differences)."""
    T = fc
    a0 = np.array([0.3, -0.7, 1.1])
    a = T.tensor(a0, requires_grad=True)
    h1 = a * 2
    h2 = h1.sin()
    calls = []
    handle = T.autograd.graph.register_multi_grad_hook((a, h1, h2), calls.append)
    loss = (h2 * h1).sum()
    for _ in range(3):
        loss.backward(retain_graph=True)
    assert len(calls) == 3 and all(g is not None for gs in calls for g in gs)
    ga = _fd_grad(lambda v: np.sum(np.sin(2 * v) * 2 * v), a0)
    gh2 = 2 * a0  # d loss / d h2 = h1
    for gs in calls:
        assert np.allclose(gs[0].numpy(), ga, atol=1e-6)
        assert np.allclose(gs[2].numpy(), gh2)
    handle.remove()
    h2.sum().backward()
    assert len(calls) == 3
    with pytest.raises(RuntimeError, match="second time"):
        loss.backward()


def test_multi_grad_hook_per_pass_state_in_threads():
    """Passes in several threads at once: each fires its own hook call, with the
    gradients of its own pass."""
    w = fc.tensor([1.0, 2.0, 3.0], requires_grad=True)
    s = fc.tensor([0.5], requires_grad=True)
    calls, errors = [], []
    lock = threading.Lock()

    def fn(gs):
        with lock:
            calls.append((fc.autograd.graph._current_graph_task_id(),
                          [None if g is None else g.numpy().copy() for g in gs]))

    fc.autograd.graph.register_multi_grad_hook((w, s), fn)
    barrier = threading.Barrier(6)

    def work(k):
        try:
            barrier.wait()
            for _ in range(20):
                x = fc.tensor([float(k), 1.0, 2.0])
                ((x * w).sum() * s).backward()      # both take part
                (x * w).sum().backward()            # s does not
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(calls) == 6 * 20 * 2
    assert len({c[0] for c in calls}) == len(calls)  # one graph task per pass
    full = [c[1] for c in calls if c[1][1] is not None]
    part = [c[1] for c in calls if c[1][1] is None]
    assert len(full) == len(part) == 6 * 20
    for gw, gs in full:  # d/dw = x * s, d/ds = x . w: x = (k, 1, 2)
        k = gw[0] / 0.5
        assert np.allclose(gw, 0.5 * np.array([k, 1.0, 2.0]))
        assert np.allclose(gs, [k * 1.0 + 2.0 + 6.0])


def test_graph_task_outside_backward():
    assert fc.autograd.graph._current_graph_task_id() == -1
    y = fc.tensor([1.0], requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="during the backward pass"):
        fc.autograd.graph._will_engine_execute_node(y.grad_fn)


def _will_execute_probe(T):
    """What the engine reports, from a tensor hook, for each node in several passes."""
    W = _will_execute(T)
    a = T.tensor([1.0, 2.0], requires_grad=True)
    b = T.tensor([3.0, 4.0], requires_grad=True)
    c = a * b
    d = c.sin()
    e = a.cos()
    acc_a, acc_b = c.grad_fn.next_functions[0][0], c.grad_fn.next_functions[1][0]
    nodes = [acc_a, acc_b, c.grad_fn, d.grad_fn, e.grad_fn]
    log = []

    def probe(g):
        row = []
        for n in nodes:
            try:
                row.append(W(n))
            except RuntimeError:
                row.append("error")
        log.append(row)
    c.register_hook(probe)
    one = T.ones(2)
    passes = [
        lambda: d.backward(one, retain_graph=True),
        lambda: d.sum().backward(retain_graph=True),
        lambda: T.autograd.grad(d, (c,), one, retain_graph=True),
        lambda: T.autograd.grad(c, (c,), one, retain_graph=True),
        lambda: d.backward(one, inputs=(c,), retain_graph=True),
        lambda: d.backward(one, inputs=(b,), retain_graph=True),
        lambda: T.autograd.backward([d, e], [one, one], retain_graph=True),
        lambda: T.autograd.grad([d, e], (c,), [one, one], retain_graph=True),
        lambda: T.autograd.grad(d, (c, b), one, retain_graph=True),
    ]
    out = []
    for p in passes:
        p()
        out.append(list(log))
        log.clear()
    return out


@needs_torch
def test_will_engine_execute_node_matches_torch():
    assert_same(_will_execute_probe)


# --------------------------------------------------------------- GradientEdge inputs
def _edge_graph(T):
    a = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
    b = T.tensor([3.0, 4.0], dtype=T.float64, requires_grad=True)
    c = a * b
    d = c.sin().sum()
    return a, b, c, d


EDGE_CASES = {
    "grad_wrt_leaf_edge": lambda T, GE, a, b, c, d: T.autograd.grad(d, GE(a), retain_graph=True),
    "grad_wrt_mixed": lambda T, GE, a, b, c, d: T.autograd.grad(d, [GE(c), b],
                                                                retain_graph=True),
    "grad_edge_output": lambda T, GE, a, b, c, d: T.autograd.grad(GE(d), [a, GE(b)],
                                                                  retain_graph=True),
    "grad_edge_output_nonscalar": lambda T, GE, a, b, c, d: T.autograd.grad(
        GE(c), [a], retain_graph=True),
    "grad_edge_output_with_grad": lambda T, GE, a, b, c, d: T.autograd.grad(
        GE(c), [a], T.tensor([1.0, -2.0], dtype=T.float64), retain_graph=True),
    "grad_edge_output_bad_shape": lambda T, GE, a, b, c, d: T.autograd.grad(
        GE(c), [a], T.ones(3, dtype=T.float64), retain_graph=True),
    "grad_edge_output_complex_grad": lambda T, GE, a, b, c, d: T.autograd.grad(
        GE(c), [a], T.ones(2, dtype=T.complex128), retain_graph=True),
    "grad_leaf_edge_output": lambda T, GE, a, b, c, d: T.autograd.grad(
        GE(a), [a], T.ones(2, dtype=T.float64), retain_graph=True),
    "grad_unused_edge": lambda T, GE, a, b, c, d: T.autograd.grad(
        d, [GE(a), GE(T.ones(2, requires_grad=True))], retain_graph=True),
    "grad_unused_edge_allowed": lambda T, GE, a, b, c, d: T.autograd.grad(
        d, [GE(a), GE(T.ones(2, requires_grad=True))], retain_graph=True, allow_unused=True),
    "grad_unused_edge_materialize": lambda T, GE, a, b, c, d: T.autograd.grad(
        d, [GE(T.ones(2, requires_grad=True))], retain_graph=True, materialize_grads=True),
    "grad_used_edge_materialize": lambda T, GE, a, b, c, d: T.autograd.grad(
        d, [GE(a)], retain_graph=True, materialize_grads=True),
    "grad_batched_edge_input": lambda T, GE, a, b, c, d: T.autograd.grad(
        c, [GE(a)], T.eye(2, dtype=T.float64), retain_graph=True, is_grads_batched=True),
    "grad_not_a_tensor": lambda T, GE, a, b, c, d: T.autograd.grad(d, [1.0], retain_graph=True),
    "grad_edge_without_node": lambda T, GE, a, b, c, d: T.autograd.grad(
        d, [T.autograd.graph.GradientEdge(None, 0)], retain_graph=True),
    "grad_hand_made_edge": lambda T, GE, a, b, c, d: T.autograd.grad(
        d, [T.autograd.graph.GradientEdge(c.grad_fn, 0)], retain_graph=True),
    "backward_inputs_leaf_edge": lambda T, GE, a, b, c, d: (
        d.backward(inputs=[GE(a)], retain_graph=True), a.grad, b.grad),
    "backward_inputs_nonleaf_edge": lambda T, GE, a, b, c, d: (
        d.backward(inputs=[GE(c)], retain_graph=True), a.grad, b.grad),
    "tensor_backward_inputs_edge": lambda T, GE, a, b, c, d: (
        d.backward(inputs=GE(b), retain_graph=True), a.grad, b.grad),
    "backward_edge_tensors": lambda T, GE, a, b, c, d: (
        T.autograd.backward([GE(c)], [T.tensor([1.0, 2.0], dtype=T.float64)]), a.grad,
        b.grad),
    "backward_inputs_not_a_tensor": lambda T, GE, a, b, c, d: d.backward(inputs=["a"]),
}


def _edge_snippet(case):
    def snippet(T):
        a, b, c, d = _edge_graph(T)
        return EDGE_CASES[case](T, T.autograd.graph.get_gradient_edge, a, b, c, d)
    return snippet


@needs_torch
@pytest.mark.parametrize("case", sorted(EDGE_CASES))
def test_gradient_edge_inputs_outputs_match_torch(case):
    assert_same(_edge_snippet(case))


def _edge_create_graph(T):
    a = T.tensor([0.5, -1.5], dtype=T.float64, requires_grad=True)
    y = (a ** 3).sum()
    (g,) = T.autograd.grad(y, T.autograd.graph.get_gradient_edge(a), create_graph=True)
    (h,) = T.autograd.grad(g.sum(), a)
    return g, h, g.grad_fn is not None


@needs_torch
def test_gradient_edge_create_graph_matches_torch():
    assert_same(_edge_create_graph)


def test_gradient_edge_grads_against_finite_differences():
    a0, b0 = np.array([0.3, -1.2, 2.0]), np.array([1.5, 0.25, -0.5])
    a = fc.tensor(a0, requires_grad=True)
    b = fc.tensor(b0, requires_grad=True)
    c = a * b
    loss = (c.exp() * b).sum()
    GE = fc.autograd.graph.get_gradient_edge
    ga, gc = fc.autograd.grad(loss, (GE(a), GE(c)), retain_graph=True)
    assert np.allclose(ga.numpy(), _fd_grad(lambda v: np.sum(np.exp(v * b0) * b0), a0),
                       atol=1e-6)
    assert np.allclose(gc.numpy(), np.exp(a0 * b0) * b0)
    # the same edge as an output: the gradient of c with respect to a, weighted
    (g2,) = fc.autograd.grad(GE(c), a, fc.tensor(np.ones(3)))
    assert np.allclose(g2.numpy(), b0)


# ------------------------------------------------------------------ increment_version
def _increment_version(T):
    IV = T.autograd.graph.increment_version
    res = []
    a = T.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    y = (b * b).sum()
    res.append(b._version)
    IV(b)
    res.append(b._version)
    try:
        y.backward()
    except RuntimeError as e:
        res.append(("RuntimeError", "modified by an inplace operation" in str(e),
                    "is at version 1; expected version 0" in str(e)))
    p = T.tensor([1.0, 2.0], requires_grad=True)
    q = (p * p).sum()
    IV([p])
    try:
        q.backward()
    except RuntimeError as e:
        res.append(("leaf", "expected version 0" in str(e)))
    x = a.clone()
    v = x[0:1]
    res.append(v.grad_fn.name())
    IV(v)  # a view shares its base's counter; its grad_fn is regenerated
    res.append((v.grad_fn.name(), x._version, v._version, x.grad_fn.name()))
    (v * 3).sum().backward()
    res.append(a.grad)
    IV((x, v))
    res.append(x._version)
    for bad in (None, 3, [x, 1]):
        try:
            IV(bad)
        except RuntimeError:
            res.append(("RuntimeError", x._version))
    with T.inference_mode():
        it = T.ones(2)
    res.append(IV(it))
    return res


@needs_torch
def test_increment_version_matches_torch():
    assert_same(_increment_version)


# ---------------------------------------------------- allow_mutation_on_saved_tensors
def _amst(case):
    def snippet(T):
        A = T.autograd.graph.allow_mutation_on_saved_tensors
        if case == "doc":  # PyTorch's example
            with A():
                a = T.ones(2, 3, requires_grad=True)
                b = a.clone()
                out = (b ** 2).sum()
                b.sin_()
                out.sum().backward()
                return a.grad, b
        if case == "without_context":
            a = T.ones(2, 3, requires_grad=True)
            b = a.clone()
            out = (b ** 2).sum()
            b.sin_()
            out.sum().backward()
        if case == "backward_outside":
            with A():
                a = T.ones(2, requires_grad=True)
                b = a.clone()
                out = (b * b).sum()
            out.backward()
        if case == "nested":
            with A():
                with A():
                    pass
        x0 = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
        with A() as ctx:
            b = x0.clone()
            if case == "view_modified":
                out = (b.exp() * b).sum()
                b[0:2].mul_(5)
            elif case == "base_modified_view_saved":
                v = b[0:2]
                out = (v * v).sum()
                b.add_(10)
            elif case == "saved_output":
                y = x0.exp()
                out = y.sum()
                y.mul_(2)
                b = y
            elif case == "inplace_saves_self":
                b.mul_(b)
                b.mul_(2)
                out = b.sum()
            elif case == "twice":
                out = (b * b * b).sum()
                b.add_(1)
                b.add_(1)
                out.backward(retain_graph=True)
            elif case in ("setitem", "detach_write", "copy"):
                out = (b * b).sum()
                if case == "setitem":
                    b[0] = 5.0
                elif case == "detach_write":
                    b.detach().add_(1)
                else:
                    b.copy_(T.zeros(3, dtype=T.float64))
            elif case == "no_grad_write":
                out = (b * b).sum()
                with T.no_grad():
                    b.zero_()
            elif case == "non_grad_operand":
                w = T.tensor([1.0, 2.0, 3.0], dtype=T.float64)
                out = (x0 * w).sum()
                w.mul_(10)
                b = w
            elif case == "state":
                out = (b * b).sum()
                n1 = (len(ctx.original), len(ctx.cloned))
                b.add_(1)
                n2 = (len(ctx.original), len(ctx.cloned))
                out.backward()
                import gc
                gc.collect()
                return n1, n2, (len(ctx.original), len(ctx.cloned)), x0.grad
            out.backward()
        return x0.grad, b
    return snippet


AMST_CASES = ["doc", "without_context", "backward_outside", "nested", "view_modified",
              "base_modified_view_saved", "saved_output", "inplace_saves_self", "twice",
              "no_grad_write", "non_grad_operand", "state", "setitem", "detach_write", "copy"]


@needs_torch
@pytest.mark.parametrize("case", AMST_CASES)
def test_allow_mutation_on_saved_tensors_matches_torch(case):
    assert_same(_amst(case))


def test_allow_mutation_on_saved_tensors_gradients():
    """Without torch: backward uses the values saved before the in-place changes."""
    x0 = np.array([0.4, -0.9, 1.7])
    x = fc.tensor(x0, requires_grad=True)
    with fc.autograd.graph.allow_mutation_on_saved_tensors():
        b = x.clone()
        out = (b.sin() * b.exp()).sum()
        b.mul_(3)
        b[1:].add_(2)
        out.backward()
    assert np.allclose(x.grad.numpy(), _fd_grad(lambda v: np.sum(np.sin(v) * np.exp(v)), x0),
                       atol=1e-6)
    # the write guard is gone: the in-place error is back outside the context
    b = x.clone()
    out = (b * b).sum()
    b.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()


def test_allow_mutation_on_saved_tensors_inside_disabled_hooks():
    with fc.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with fc.autograd.graph.allow_mutation_on_saved_tensors():
                pass
    # nothing left behind: a new context works
    with fc.autograd.graph.allow_mutation_on_saved_tensors():
        pass


# ---------------------------------------------------------- a backward that raises
def _unpack_error_rerun(T):
    calls = [0]

    def unpack(t):
        calls[0] += 1
        if calls[0] <= 2:
            raise ValueError(f"unpack failed {calls[0]}")
        return t
    a = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
    with T.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
        y = (a * a.sin()).exp().sum()
    res = []
    for _ in range(4):
        try:
            y.backward()
            res.append(("ok", a.grad))
        except (ValueError, RuntimeError) as e:
            res.append((type(e).__name__, str(e)[:40]))
    return res


@needs_torch
def test_unpack_error_keeps_saved_values_matches_torch():
    assert_same(_unpack_error_rerun)


def _error_after_some_nodes(T):
    """Nodes that ran before the failing one freed their values (as PyTorch): a rerun
    reaches one of them and raises the "second time" error."""
    calls = [0]

    def unpack(t):
        calls[0] += 1
        if calls[0] == 1:
            raise ValueError("unpack failed")
        return t
    a = T.tensor([1.0, 2.0], requires_grad=True)
    w = T.tensor([3.0, 4.0], requires_grad=True)
    e = a.exp()
    with T.autograd.graph.saved_tensors_hooks(lambda t: t, unpack):
        p = e * w
    q = p.sin().sum()
    res = []
    for _ in range(2):
        try:
            q.backward()
        except (ValueError, RuntimeError) as err:
            res.append((type(err).__name__, str(err)[:30]))
    return res


@needs_torch
def test_error_after_some_nodes_matches_torch():
    assert_same(_error_after_some_nodes)


def _version_error_rerun(hooked):
    def snippet(T):
        a = T.tensor([1.0, 2.0], requires_grad=True)
        b = a * 1
        m = b * b
        if hooked:  # the node runs through the engine's general path
            m.register_hook(lambda g: None)
        y = m.sum()
        b.add_(1)
        res = []
        for _ in range(2):
            try:
                y.backward()
            except RuntimeError as e:
                res.append("modified by an inplace operation" in str(e))
        return res
    return snippet


@needs_torch
@pytest.mark.parametrize("hooked", [False, True])
def test_version_error_rerun_matches_torch(hooked):
    assert_same(_version_error_rerun(hooked))


def test_unpack_error_rerun_then_success():
    """Without torch: the failed passes free nothing; the third pass computes the
    gradient (finite differences), and then the graph is freed."""
    res = run(_unpack_error_rerun, fc)
    assert res[0] == "ok"
    log = res[1]
    assert [r[0] for r in log] == ["ValueError", "ValueError", "ok", "RuntimeError"]
    a0 = np.array([1.0, 2.0])
    want = _fd_grad(lambda v: np.sum(np.exp(v * np.sin(v))), a0)
    assert np.allclose(log[2][1][3], want, atol=1e-5)
