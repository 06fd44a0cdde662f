"""``ftrans.compat.autograd.profiler`` (``torch.autograd.profiler``).

Source: the profiler section of ``spec/torch-autograd-reference.txt`` and
PyTorch 2.13's behaviour.  Differential tests run the same code under real PyTorch and
compare what both model one-to-one: the names and counts of forward operations (outside
backward nodes: PyTorch's backward formulas call ATen operators, ours run on NumPy),
backward node events, input shapes, nesting, the table layout (on identical synthetic
events), nvprof parsing, exception types.  The other tests check the profiler on its own
(nesting by time, self <= total, grouping sums, JSON validity, hook restoration,
gradients unchanged).  No test asserts on wall time.
"""
from __future__ import annotations

import json
import sqlite3
import sys
import threading
import warnings
from collections import Counter

import numpy as np
import pytest

import ftrans.compat as fc
from ftrans.compat.autograd import profiler as P

from compat_diff import needs_torch

try:
    import torch
    from torch.autograd import profiler as TP
    from torch.autograd import profiler_util as TPU
except ImportError:  # pragma: no cover
    torch = TP = TPU = None

ONE_TO_ONE = {"aten::pow", "aten::sin", "aten::mul", "aten::sum", "PowBackward0",
              "SinBackward0", "MulBackward0", "SumBackward0", "torch::autograd::AccumulateGrad",
              "autograd::engine::evaluate_function: PowBackward0",
              "autograd::engine::evaluate_function: SinBackward0",
              "autograd::engine::evaluate_function: MulBackward0",
              "autograd::engine::evaluate_function: SumBackward0",
              "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
              "MyFn", "MyFnBackward", "autograd::engine::evaluate_function: MyFnBackward"}


def _inside_node(e):
    """Whether an ancestor of ``e`` is a backward node (scope 1)."""
    p = e.cpu_parent
    while p is not None:
        if p.scope == 1:
            return True
        p = p.cpu_parent
    return False


def _modelled(events):
    """(name, count) of the one-to-one events that are not inside a backward node."""
    return Counter(e.name for e in events if e.name in ONE_TO_ONE and not _inside_node(e))


def _pow_loop(T, n=100):
    x = T.randn((1, 1), requires_grad=True)
    with T.autograd.profiler.profile() as prof:
        for _ in range(n):
            y = x ** 2
            y.backward()
    return prof, x


# ----------------------------------------------------------------- differential tests
@needs_torch
def test_reference_example_counts_match_torch():
    ours, x = _pow_loop(fc)
    theirs, _ = _pow_loop(torch)
    assert _modelled(ours.function_events) == _modelled(theirs.function_events)
    c = _modelled(ours.function_events)
    assert c["aten::pow"] == 100 and c["PowBackward0"] == 100
    assert c["torch::autograd::AccumulateGrad"] == 100
    # key_averages: one row per name, backward nodes counted as PyTorch counts them
    ka = {a.key: a.count for a in ours.key_averages()}
    ka_t = {a.key: a.count for a in theirs.key_averages()}
    for k in ("PowBackward0", "torch::autograd::AccumulateGrad"):
        assert ka[k] == ka_t[k] == 100
    # the gradient accumulated 100 times: 100 * 2x (profiling does not change results)
    np.testing.assert_allclose(x.grad.numpy(), 200 * x.detach().numpy(), rtol=1e-5)


def _sin_program(T):
    x = T.ones((2, 2)).requires_grad_()
    with T.autograd.profiler.profile(record_shapes=True) as prof:
        with T.autograd.profiler.record_function("myrange"):
            y = (x * 2).sin().sum()
        y.backward()
    return prof


@needs_torch
def test_names_counts_shapes_and_nesting_match_torch():
    ours = _sin_program(fc).function_events
    theirs = _sin_program(torch).function_events
    assert _modelled(ours) == _modelled(theirs)
    assert set(_modelled(ours)) >= {"aten::mul", "aten::sin", "aten::sum", "SinBackward0",
                                    "MulBackward0", "SumBackward0"}

    def shapes(evs, name):
        return [e.input_shapes for e in evs if e.name == name and not _inside_node(e)]

    for name in ("aten::mul", "aten::sin", "SinBackward0", "MulBackward0",
                 "torch::autograd::AccumulateGrad"):
        assert shapes(ours, name) == shapes(theirs, name), name

    def parents(evs):
        # the forward ops' parent is the user range; node events' parent their wrapper
        out = []
        for e in evs:
            if e.name in ONE_TO_ONE and not _inside_node(e):
                p = e.cpu_parent
                out.append((e.name, None if p is None else
                            ("<range>" if p.is_user_annotation else p.name)))
        return sorted(out)
    assert parents(ours) == parents(theirs)
    rng = [e for e in ours if e.is_user_annotation]
    assert [e.name for e in rng] == ["myrange"]


def _my_fn(T):
    class MyFn(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2
    return MyFn


@needs_torch
def test_custom_function_events_match_torch():
    def prog(T):
        MyFn = _my_fn(T)
        x = T.ones(3, requires_grad=True)
        with T.autograd.profiler.profile() as prof:
            MyFn.apply(x).sum().backward()
        return prof.function_events
    ours, theirs = prog(fc), prog(torch)
    assert _modelled(ours) == _modelled(theirs)
    for evs in (ours, theirs):
        fwd = next(e for e in evs if e.name == "MyFn")
        assert "aten::mul" in [c.name for c in fwd.cpu_children]
        bwd = next(e for e in evs if e.name == "MyFnBackward")
        assert bwd.cpu_parent.name == "autograd::engine::evaluate_function: MyFnBackward"
        # the user's backward runs aten::mul inside the node
        assert any(c.name == "aten::mul" for c in bwd.cpu_children) or \
            any(d.name == "aten::mul" for c in bwd.cpu_children for d in c.cpu_children)


@needs_torch
def test_top_level_operation_names_match_torch():
    def prog(T):
        x = T.ones(3, requires_grad=True)
        with T.autograd.profiler.profile() as prof:
            x * 3
            x + 1
            2 - x
            x[0]
            x / 2
            x @ x
            -x
            x2 = x.detach()
            x2 += 1
            x2.mul_(2)
            T.ones(3)
            T.zeros(2)
            x.sum()
            x.mean()
            x.exp()
            T.pow(x, 2)
            x ** 2.5
            x.abs()
            x.reshape(3, 1)
            x.view(1, 3)
            x.t()
            x.clone()
            T.mul(x, 2)
            x.sin()
            x[0].item()
        return [e.name for e in prof.function_events if e.cpu_parent is None]
    assert prog(fc) == prog(torch)


@needs_torch
def test_format_time_matches_torch():
    for t in (0.0, 0.4567, 999.9994, 1000.0, 12345.678, 999999.0, 1e6, 3.25e7):
        assert P._format_time(t) == TPU._format_time(t)
    for t, tot in ((1.0, 3.0), (0.0, 0.0), (5.0, 5.0)):
        assert P._format_time_share(t, tot) == TPU._format_time_share(t, tot)


def _synthetic(mod, shapes=False):
    """The same nested ranges as FunctionEvents of ``mod`` (ours or PyTorch's)."""
    spec = [(1, "outer", 0.0, 1500.0, [[2, 3], []]), (2, "aten::mul", 10.0, 60.0, [[2, 3], []]),
            (3, "aten::add", 70.0, 1400.0, [[2], [2]]), (4, "aten::mul", 80.0, 95.5, [[4], []]),
            (5, "aten::sin", 1600.0, 1603.25, [[2, 3]]),
            (6, "a_very_long_operation_name_that_does_not_fit_in_the_name_column_at_all",
             2000.0, 2000.5, [[]])]
    evs = [mod.FunctionEvent(id=i, name=n, thread=1, start_us=s, end_us=e,
                             input_shapes=sh if shapes else None, stack=[])
           for i, n, s, e, sh in spec]
    el = mod.EventList(evs)
    el._build_tree()
    return el


@needs_torch
@pytest.mark.parametrize("shapes", [False, True])
def test_table_layout_matches_torch_on_identical_events(shapes):
    ours, theirs = _synthetic(P, shapes), _synthetic(TPU, shapes)
    assert ours.table() == theirs.table()
    assert ours.table(sort_by="self_cpu_time_total", row_limit=3, header="H") == \
        theirs.table(sort_by="self_cpu_time_total", row_limit=3, header="H")
    assert ours.table(top_level_events_only=True, time_unit="ms") == \
        theirs.table(top_level_events_only=True, time_unit="ms")
    for g in (False, True):
        assert ours.key_averages(g).table(sort_by="cpu_time_total") == \
            theirs.key_averages(g).table(sort_by="cpu_time_total")
    assert ours.self_cpu_time_total == pytest.approx(theirs.self_cpu_time_total)
    assert repr(ours.total_average()) == repr(theirs.total_average())


def _nvprof_db(path, dup=False, cbid=211):
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE StringTable (_id_ INTEGER, value TEXT);
        CREATE TABLE CUPTI_ACTIVITY_KIND_MARKER (id INTEGER, name INTEGER, timestamp INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (_id_ INTEGER, cbid INTEGER, start INTEGER,
                                                  "end" INTEGER, correlationId INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL (start INTEGER, "end" INTEGER,
                                                            name INTEGER,
                                                            correlationId INTEGER);
    """)
    con.executemany("INSERT INTO StringTable VALUES (?, ?)",
                    [(1, "aten::mul"), (2, "MulBackward0"), (3, "kernel_a")])
    markers = [(10, 1, 100), (10, 0, 200), (11, 2, 300), (11, 0, 500)]
    if dup:
        markers += [(10, 1, 150)]
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MARKER VALUES (?, ?, ?)", markers)
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, ?, ?)",
                    [(1, cbid, 120, 130, 7), (2, cbid, 310, 320, 8), (3, cbid, 330, 340, 9)])
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL VALUES (?, ?, ?, ?)",
                    [(140, 180, 3, 7), (350, 390, 3, 8), (400, 401, 3, 9)])
    con.commit()
    con.close()


@needs_torch
def test_load_nvprof_matches_torch(tmp_path):
    path = str(tmp_path / "trace.nvvp")
    _nvprof_db(path)
    ours, theirs = P.load_nvprof(path), TP.load_nvprof(path)

    def summary(evs):
        return [(e.id, e.name, e.time_range.start, e.time_range.end,
                 [(k.name, k.duration) for k in e.kernels]) for e in evs]
    assert summary(ours) == summary(theirs)
    assert summary(ours)[0] == (10, "aten::mul", 100, 200, [(3, 40)])
    assert len(ours[1].kernels) == 2
    for bad, exc in (({"dup": True}, RuntimeError), ({"cbid": 5}, AssertionError)):
        p2 = str(tmp_path / f"bad{len(bad)}{exc.__name__}.nvvp")
        _nvprof_db(p2, **bad)
        for mod in (P, TP):
            with pytest.raises(exc):
                mod.load_nvprof(p2)


@needs_torch
def test_emit_nvtx_raises_like_torch_cpu_build():
    for mod in (P, TP):
        nv = mod.emit_nvtx()
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            nv.__enter__()
        with pytest.raises(RuntimeError, match="not reentrant"):
            nv.__enter__()
        with mod.emit_nvtx(enabled=False) as r:
            assert r is None


@needs_torch
def test_constructor_errors_and_warnings_match_torch():
    for kw, exc in ((dict(use_cpu=False), AssertionError),
                    (dict(use_cpu=False, use_kineto=True), AssertionError),
                    (dict(post_processing_timeout_s=-1.0), ValueError)):
        for mod in (P, TP):
            with pytest.raises(exc):
                mod.profile(**kw)
    for kw in (dict(use_cuda=True), dict(use_device="cuda"), dict(use_device="nope")):
        cats = []
        for mod in (P, TP):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                mod.profile(**kw)
            cats.append(sorted(x.category.__name__ for x in w))
        assert cats[0] == cats[1], kw


@needs_torch
def test_reentering_raises_like_torch_and_disabled_is_noop():
    for mod in (P, TP):
        p = mod.profile()
        with p:
            pass
        with pytest.raises(RuntimeError, match="not reentrant"):
            with p:
                pass
        with mod.profile(enabled=False) as pd:
            assert pd is None
        pd = mod.profile(enabled=False)
        with pd:
            pass
        with pytest.raises(AttributeError):
            pd.function_events


# ---------------------------------------------------------------- profiler on its own
def test_nesting_is_consistent_and_self_time_at_most_total():
    x = fc.randn(4, requires_grad=True)
    with P.profile(record_shapes=True) as prof:
        with P.record_function("outer"):
            with P.record_function("inner"):
                y = (x.sin() * x).exp().sum()
            y.backward()
    evs = prof.function_events
    assert [e.id for e in evs] == list(range(1, len(evs) + 1))
    total_top = 0.0
    for e in evs:
        assert e.count == 1 and e.key == e.name
        assert 0 <= e.self_cpu_time_total <= e.cpu_time_total + 1e-9
        assert e.cpu_time == e.cpu_time_total
        for c in e.cpu_children:
            assert c.cpu_parent is e
            assert e.time_range.start <= c.time_range.start <= c.time_range.end \
                <= e.time_range.end
        if e.cpu_parent is None:
            total_top += e.cpu_time_total
        else:
            assert e in e.cpu_parent.cpu_children
    # self times partition the top-level ranges
    assert prof.self_cpu_time_total == pytest.approx(total_top, rel=1e-9, abs=1e-6)
    inner = next(e for e in evs if e.name == "inner")
    assert inner.cpu_parent.name == "outer" and inner.is_user_annotation
    assert {c.name for c in inner.cpu_children} == {"aten::sin", "aten::mul", "aten::exp",
                                                    "aten::sum"}
    # no wrapper-layer duplicates: never a child with its parent's name
    assert all(e.cpu_parent is None or e.cpu_parent.name != e.name for e in evs)
    np.testing.assert_allclose(x.grad.numpy(), (np.cos(x.detach().numpy()) * x.detach().numpy()
                                                + np.sin(x.detach().numpy()))
                               * np.exp(np.sin(x.detach().numpy()) * x.detach().numpy()),
                               rtol=1e-5)


def test_gradients_match_finite_differences_under_profiler():
    x0 = np.array([0.3, -1.2, 2.0])
    x = fc.tensor(x0, dtype=fc.float64, requires_grad=True)
    with P.profile():
        (x ** 3 * x.cos()).sum().backward()

    def f(v):
        return np.sum(v ** 3 * np.cos(v))
    eps = 1e-6
    fd = np.array([(f(x0 + eps * e) - f(x0 - eps * e)) / (2 * eps) for e in np.eye(3)])
    np.testing.assert_allclose(x.grad.numpy(), fd, rtol=1e-6)


def test_wrapper_layers_and_inplace_record_one_event():
    x = fc.ones(3)
    with P.profile() as prof:
        fc.mul(x, 2)
        x.mul(2)
        x * 2
        y = x.clone()
        y.mul_(2)
        y *= 2
        fc.sum(x)
    assert [e.name for e in prof.function_events] == [
        "aten::mul", "aten::mul", "aten::mul", "aten::clone", "aten::mul_", "aten::mul_",
        "aten::sum"]


def test_record_function_context_and_decorator():
    rf = P.record_function("outside")
    with rf as r:  # no profiler running: a no-op returning itself
        assert r is rf

    @P.record_function("deco")
    def f(v, depth):
        return f(v * 2, depth - 1) if depth else v

    x = fc.ones(2)
    with P.profile() as prof:
        f(x, 2)
        with P.record_function("block", "some args"):
            x + 1
    evs = prof.function_events
    decos = [e for e in evs if e.name == "deco"]
    assert len(decos) == 3 and all(e.is_user_annotation for e in decos)
    assert decos[1].cpu_parent is decos[0] and decos[2].cpu_parent is decos[1]
    assert [c.name for c in decos[0].cpu_children] == ["aten::mul", "deco"]
    block = next(e for e in evs if e.name == "block")
    assert [c.name for c in block.cpu_children] == ["aten::add"]


def test_key_averages_grouping():
    a, b = fc.ones(2), fc.ones(3)
    with P.profile(record_shapes=True, with_stack=True) as prof:
        for _ in range(3):
            a * 2
        b * 2
        a.sin()
    evs = prof.function_events
    ka = prof.key_averages()
    assert isinstance(ka, P.EventList) and all(isinstance(k, P.FunctionEventAvg) for k in ka)
    assert [(k.key, k.count) for k in ka] == [("aten::mul", 4), ("aten::sin", 1)]
    assert all(k.input_shapes == "" for k in ka)
    mul = ka[0]
    mine = [e for e in evs if e.name == "aten::mul"]
    assert mul.cpu_time_total == pytest.approx(sum(e.cpu_time_total for e in mine))
    assert mul.self_cpu_time_total == pytest.approx(sum(e.self_cpu_time_total for e in mine))
    assert mul.cpu_time == pytest.approx(mul.cpu_time_total / 4)
    by_shape = prof.key_averages(group_by_input_shape=True)
    assert [(k.key, k.input_shapes, k.count) for k in by_shape] == [
        ("aten::mul", [[2], []], 3), ("aten::mul", [[3], []], 1), ("aten::sin", [[2]], 1)]
    # the stack: innermost first, this test's frames
    assert all(e.stack and "test_compat_profiler.py" in e.stack[0] for e in evs)
    by_line = prof.key_averages(group_by_stack_n=1)
    assert [(k.key, k.count) for k in by_line] == [("aten::mul", 3), ("aten::mul", 1),
                                                    ("aten::sin", 1)]
    assert all(len(k.stack) == 1 for k in by_line)
    tot = prof.total_average()
    assert tot.key == "Total" and tot.count == len(evs)
    assert tot.self_cpu_time_total == pytest.approx(prof.self_cpu_time_total)


def test_table_contains_header_rows_and_footer():
    x = fc.ones(2, 2)
    with P.profile(record_shapes=True) as prof:
        x.sin()
        x @ x
    t = prof.key_averages().table(sort_by="self_cpu_time_total")
    lines = t.splitlines()
    for col in ("Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
                "# of Calls"):
        assert col in lines[1]
    assert "Input Shapes" not in lines[1]   # not grouped by shape: no shapes
    assert lines[0] == lines[2] == lines[-2] and set(lines[0]) == {"-", " "}
    assert any(l.strip().startswith("aten::sin") for l in lines)
    assert any(l.strip().startswith("aten::matmul") for l in lines)
    assert lines[-1] == "Self CPU time total: " + P._format_time(prof.self_cpu_time_total)
    assert "Input Shapes" in prof.table().splitlines()[1]
    assert "[[2, 2], [2, 2]]" in prof.table()
    assert len(prof.table(row_limit=1).splitlines()) == 6
    assert str(prof) == prof.function_events.table()
    assert P.EventList().table() == ""


def test_export_chrome_trace_is_valid_json(tmp_path):
    x = fc.ones(2, requires_grad=True)
    with P.profile(record_shapes=True) as prof:
        with P.record_function("r"):
            (x * 3).sum().backward()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    d = json.loads(path.read_text())
    te = d["traceEvents"]
    assert [e["name"] for e in te] == [e.name for e in prof.function_events]
    for e, ev in zip(te, prof.function_events):
        assert e["ph"] == "X" and e["dur"] >= 0
        assert {"name", "ph", "ts", "dur", "pid", "tid", "args"} <= set(e)
        assert e["ts"] == ev.time_range.start and e["dur"] == ev.time_range.elapsed_us()
    assert te[0]["cat"] == "user_annotation"
    mul = next(e for e in te if e["name"] == "aten::mul")
    assert mul["args"]["Input Dims"] == [[2], []]


def test_nothing_recorded_after_exit_and_while_disabled():
    x = fc.ones(2, requires_grad=True)
    with P.profile() as prof:
        x * 2
    n = len(prof.function_events)
    x * 2
    (x * 2).sum().backward()
    assert len(prof.function_events) == n == 1
    assert P._events.node_run == () and P._tls.sessions == []
    with P.profile(enabled=False) as pd:
        x * 2
    assert pd is None


def test_function_events_empty_while_running_and_nested_profiles():
    x = fc.ones(2)
    with P.profile() as outer:
        x.sin()
        assert len(outer.function_events) == 0
        assert repr(outer) == "<unfinished torch.autograd.profile>"
        with P.profile() as inner:
            x.cos()
        x.exp()
    assert [e.name for e in outer.function_events] == ["aten::sin", "aten::cos", "aten::exp"]
    assert [e.name for e in inner.function_events] == ["aten::cos"]


def _restores(raise_in_block):
    seen = []

    def mine(frame, event, arg):
        if event == "call":
            seen.append(frame.f_code.co_name)
    sys.setprofile(mine)
    try:
        try:
            with P.profile():
                fc.ones(2).sin()
                if raise_in_block:
                    raise KeyError("boom")
        except KeyError:
            pass
        after = sys.getprofile()
    finally:
        sys.setprofile(None)
    return after, mine, seen


@pytest.mark.parametrize("raise_in_block", [False, True])
def test_profile_function_restored_and_chained(raise_in_block):
    after, mine, seen = _restores(raise_in_block)
    assert after is mine
    assert "op" in seen or "sin" in seen  # the previous profile function kept its events
    with pytest.raises(ZeroDivisionError):
        with P.profile():
            1 / 0
    assert sys.getprofile() is None and P._events.node_run == ()


def test_exception_inside_operation_closes_its_event():
    with P.profile() as prof:
        with pytest.raises(RuntimeError):
            fc.ones(2) + fc.ones(3)
        fc.ones(2).sin()
    evs = prof.function_events
    add = next(e for e in evs if e.name == "aten::add")
    sin = next(e for e in evs if e.name == "aten::sin")
    assert sin.cpu_parent is None and add.time_range.end <= sin.time_range.start


def test_other_threads_are_not_recorded():
    x = fc.ones(2)

    def work():
        x.cos()
    with P.profile() as prof:
        th = threading.Thread(target=work)
        th.start()
        th.join()
        x.sin()
    assert [e.name for e in prof.function_events] == ["aten::sin"]


def test_backward_through_autograd_grad_records_only_run_nodes():
    x = fc.ones(3, requires_grad=True)
    with P.profile() as prof:
        y = (x.sin() * 2).sum()
        (g,) = fc.autograd.grad(y, x)
    names = [e.name for e in prof.function_events]
    assert "torch::autograd::AccumulateGrad" not in names   # captured, not run
    assert names.count("SinBackward0") == 1 and names.count("MulBackward0") == 1
    np.testing.assert_allclose(g.numpy(), 2 * np.cos(np.ones(3)), rtol=1e-6)
