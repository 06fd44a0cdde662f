"""Anomaly detection (``torch.autograd.detect_anomaly`` / ``set_detect_anomaly``; the
"Anomaly detection" section of the torch.autograd reference).

Differential tests run each snippet through PyTorch and ``ftrans.compat`` and compare the
mode's state, the recorded forward tracebacks, the warnings' text, the NaN errors and the
exceptions; the others check, on their own, that anomaly mode leaves gradients unchanged
(finite differences) and records nothing when off.
"""
from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

import ftrans.compat as fc
from ftrans.compat.autograd import anomaly_mode

from compat_diff import needs_torch

try:
    import torch
except ImportError:  # pragma: no cover - depends on the environment
    torch = None

LIBS = [pytest.param(fc, id="compat"),
        pytest.param(torch, id="torch", marks=needs_torch)]


@pytest.fixture(autouse=True)
def _anomaly_off():
    yield
    fc.set_anomaly_enabled(False)
    if torch is not None:
        torch.set_anomaly_enabled(False)


def _run(fn, T):
    """(result or exception, [warning messages]) of ``fn(T)``; warnings from NumPy's
    kernels (invalid value ...) are left out; PyTorch's C++ suffix is cut."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            res = ("ok", fn(T))
        except Exception as e:  # noqa: BLE001 - the exception is part of the result
            res = ("err", e)
    msgs = [str(x.message).split(" (Triggered internally at")[0] for x in w
            if x.category is UserWarning]
    return res, msgs


def _both(fn):
    return _run(fn, torch), _run(fn, fc)


def _error(res):
    assert res[0] == "err", res
    return type(res[1]).__name__, str(res[1])


# ------------------------------------------------------------------------- the mode
def _state(T):
    log = [(T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled())]
    with T.autograd.detect_anomaly():
        log.append((T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
        with T.autograd.detect_anomaly(check_nan=False):
            log.append((T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
            seen = []
            th = threading.Thread(target=lambda: seen.append(T.is_anomaly_enabled()))
            th.start()
            th.join()
            log.append(("thread", seen[0]))   # one process-wide flag, as in PyTorch
        log.append((T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
    log.append((T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
    T.autograd.set_detect_anomaly(True, check_nan=False)   # as a function
    log.append((T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
    with T.autograd.set_detect_anomaly(False):             # as a context manager
        log.append((T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
    log.append((T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
    T.set_anomaly_enabled(False)
    log.append((T.is_anomaly_enabled(), T.is_anomaly_check_nan_enabled()))
    try:
        T.autograd.detect_anomaly()(lambda: None)   # not a decorator in PyTorch 2.13
        log.append("decorator")
    except TypeError:
        log.append("not callable")
    return log


@needs_torch
def test_mode_state_matches_torch():
    (rt, wt), (rc, wc) = _both(_state)
    assert rt == rc
    assert wt == wc and len(wc) == 3


def test_mode_state():
    (res, msgs) = _run(_state, fc)
    assert res[1][0] == (False, True) and res[1][1] == (True, True)
    assert res[1][2] == (True, False) and res[1][-2] == (False, True)
    assert msgs[0] == ("Anomaly Detection has been enabled. This mode will increase the runtime "
                       "and should only be enabled for debugging.")


def test_enabling_warns_at_the_callers_line():
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled") as rec:
        fc.autograd.detect_anomaly()
    assert rec[0].filename == __file__


# ------------------------------------------------------------------ forward tracebacks
def _graph(T):
    x = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    w = T.tensor([[0.5, -1.0], [2.0, 0.25]])
    u = x.exp()                      # unary
    b = u * w                        # binary
    m = (b @ w).sum()                # matmul, reduction
    v = x[0]                         # a view
    return [u.grad_fn, b.grad_fn, m.grad_fn, m.grad_fn.next_functions[0][0], v.grad_fn,
            u.grad_fn.next_functions[0][0]]   # ... and the leaf's AccumulateGrad


def _tracebacks(T):
    with T.autograd.set_detect_anomaly(True):
        nodes = _graph(T)
    out = []
    for n in nodes:
        tb = n.metadata["traceback_"]
        assert isinstance(tb, list) and all(isinstance(s, str) for s in tb)
        out.append((n.name(), sorted(n.metadata), tb[-2:]))
    return out


@needs_torch
def test_forward_tracebacks_match_torch():
    """Each node records the stack of its forward call; its innermost entries are the
    same lines of this file in both libraries."""
    (rt, _), (rc, _) = _both(_tracebacks)
    assert rt[0] == rc[0] == "ok", (rt, rc)
    assert rt[1] == rc[1]


def test_forward_traceback_names_the_line():
    (res, _) = _run(_tracebacks, fc)
    assert res[0] == "ok", res
    name, keys, last = res[1][0]
    assert name == "ExpBackward0" and keys == ["traceback_"]
    assert f'File "{__file__}"' in last[-1] and "u = x.exp()" in last[-1]
    assert "in _graph" in last[-1]


def test_nothing_recorded_when_off():
    for n in _graph(fc):
        assert n._hk is None, n      # no metadata dict was even created
        assert n.metadata == {}


# ---------------------------------------------------------- errors raised in backward
def _raise(exc):
    def hook(*args):
        raise exc
    return hook


def _error_in(where):
    def snippet(T):
        with T.autograd.detect_anomaly():
            x = T.tensor([1.0, 2.0], requires_grad=True)
            y = x.exp()
            z = y * 3
            if where == "tensor hook":
                y.register_hook(_raise(ValueError("boom in a tensor hook")))
            elif where == "prehook":
                z.grad_fn.register_prehook(_raise(ValueError("boom in a pre-hook")))
            elif where == "posthook":
                z.grad_fn.register_hook(_raise(ValueError("boom in a post-hook")))
            elif where == "leaf hook":
                x.register_hook(_raise(KeyError("boom in a leaf hook")))
            z.sum().backward()
    return snippet


@needs_torch
@pytest.mark.parametrize("where", ["tensor hook", "prehook", "posthook", "leaf hook"])
def test_error_in_backward_warns_and_reraises_matches_torch(where):
    (rt, wt), (rc, wc) = _both(_error_in(where))
    assert _error(rt) == _error(rc)
    assert len(wt) == len(wc) == 2   # "Anomaly Detection has been enabled", "Error detected"
    assert wt[1].split("\n")[0] == wc[1].split("\n")[0]
    assert _own_frames(wt[1]) == _own_frames(wc[1]) != []


def test_error_in_backward_is_the_original_exception():
    exc = ValueError("the one")
    with fc.autograd.set_detect_anomaly(True):
        x = fc.tensor([1.0, 2.0], requires_grad=True)
        y = x.sin()
        z = y * 2
        y.register_hook(_raise(exc))
        with pytest.warns(UserWarning) as rec:
            with pytest.raises(ValueError) as info:
                z.sum().backward()
    assert info.value is exc
    msg = str(rec[-1].message)
    assert msg.startswith("Error detected in SinBackward0. Traceback of forward call that "
                          "caused the error:\n")
    assert f'File "{__file__}"' in msg and "y = x.sin()" in msg
    assert rec[-1].filename == __file__   # attributed to the backward call


def _custom_function(T):
    class MyFunc(T.autograd.Function):
        @staticmethod
        def forward(ctx, inp):
            return inp.clone()

        @staticmethod
        def backward(ctx, gO):
            raise RuntimeError("Some error in backward")

    def run_fn(a):
        out = MyFunc.apply(a)
        return out.sum()
    with T.autograd.detect_anomaly():
        inp = T.rand(10, 10, requires_grad=True)
        out = run_fn(inp)
        out.backward()


@needs_torch
@pytest.mark.skipif(not hasattr(fc.autograd, "Function"), reason="no autograd.Function yet")
def test_reference_example_custom_function_matches_torch():
    """The reference's example: MyFunc raising in backward."""
    (rt, wt), (rc, wc) = _both(_custom_function)
    assert _error(rt) == _error(rc) == ("RuntimeError", "Some error in backward")
    assert wc[1].startswith("Error detected in MyFuncBackward. ")
    assert wt[1].split(".")[0] == wc[1].split(".")[0]


@needs_torch
def test_reference_example_custom_function_traceback():
    (rt, wt), (rc, wc) = _both(_custom_function)
    assert "out = MyFunc.apply(a)" in wt[1]
    assert _own_frames(wt[1]) == _own_frames(wc[1])


# ---------------------------------------------------------------------------- NaN
def _nan_case(case):
    def snippet(T):
        with T.autograd.set_detect_anomaly(True):
            if case == "sqrt":
                x = T.tensor([-1.0, 4.0], requires_grad=True)
                x.sqrt().sum().backward()
            elif case == "zero_times_inf":
                x = T.tensor([0.0, 1.0], requires_grad=True)
                (x.sqrt() * 0).sum().backward()
            elif case == "pow_exponent":   # the NaN is in the gradient of operand 1
                x = T.tensor([-1.0, 1.0], requires_grad=True)
                w = T.tensor([2.0, 1.0], requires_grad=True)
                x.pow(w).sum().backward()
            elif case == "nan_grad_output":
                x = T.tensor([1.0, 2.0], requires_grad=True)
                (x * 2).backward(T.tensor([float("nan"), 1.0]))
            elif case == "nan_from_hook":
                x = T.tensor([1.0, 2.0], requires_grad=True)
                y = x.exp()
                y.register_hook(lambda g: g * float("nan"))
                (y * 3).sum().backward()
            elif case == "grad":
                x = T.tensor([-1.0, 1.0], dtype=T.float64, requires_grad=True)
                T.autograd.grad(x.log().sum(), x)
            elif case == "create_graph":
                x = T.tensor([-1.0, 1.0], requires_grad=True)
                T.autograd.grad(x.sqrt().sum(), x, create_graph=True)
            elif case == "inf_is_fine":
                x = T.tensor([0.0, 1.0], requires_grad=True)
                x.sqrt().sum().backward()
                return x.grad.tolist()
            elif case == "nan_input_add":   # the add's gradient is not NaN
                x = T.tensor([float("nan"), 1.0], requires_grad=True)
                (x + 1).sum().backward()
                return x.grad.tolist()
    return snippet


NAN_CASES = ["sqrt", "zero_times_inf", "pow_exponent", "nan_grad_output", "nan_from_hook",
             "grad", "create_graph", "inf_is_fine", "nan_input_add"]


@needs_torch
@pytest.mark.parametrize("case", NAN_CASES)
def test_nan_check_matches_torch(case):
    (rt, wt), (rc, wc) = _both(_nan_case(case))
    assert rt[0] == rc[0], (rt, rc)
    if rt[0] == "ok":
        assert rt[1] == rc[1]
        return
    assert _error(rt) == _error(rc)
    assert [w.split("\n")[0] for w in wt] == [w.split("\n")[0] for w in wc]


def test_nan_check():
    (res, msgs) = _run(_nan_case("pow_exponent"), fc)
    assert _error(res) == ("RuntimeError",
                           "Function 'PowBackward1' returned nan values in its 1th output.")
    assert msgs[0].startswith("Error detected in PowBackward1. Traceback of forward call")
    assert "x.pow(w).sum().backward()" in msgs[0]


@pytest.mark.parametrize("T", LIBS)
def test_no_nan_check_when_off_or_disabled(T):
    for mode in (dict(mode=False), dict(mode=True, check_nan=False)):
        with T.autograd.set_detect_anomaly(**mode), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = T.tensor([-1.0, 4.0], requires_grad=True)
            x.sqrt().sum().backward()
            assert np.isnan(x.grad.tolist()[0])


# ------------------------------------------------------------------ where the info is
def _forward_off_backward_on(T):
    x = T.tensor([-1.0, 1.0], requires_grad=True)
    y = x.sqrt()
    with T.autograd.set_detect_anomaly(True):
        y.sum().backward()


def _forward_on_backward_off(T):
    x = T.tensor([-1.0, 1.0], requires_grad=True)
    with T.autograd.set_detect_anomaly(True):
        y = x.sqrt()
    y.sum().backward()
    return np.isnan(x.grad.tolist()[0])


def _double_backward(T):
    with T.autograd.set_detect_anomaly(True):
        x = T.tensor([0.0, 1.0], requires_grad=True)
        y = x.pow(3)
        g, = T.autograd.grad(y.sum(), x, create_graph=True)
        parent = g.grad_fn.metadata.get("parent_")
        assert parent is not None and parent.name() == "PowBackward0", parent
        g.sqrt().sum().backward()


@needs_torch
@pytest.mark.parametrize("snippet", [_forward_off_backward_on, _forward_on_backward_off,
                                     _double_backward])
def test_recorded_information_matches_torch(snippet):
    (rt, wt), (rc, wc) = _both(snippet)
    assert rt[0] == rc[0], (rt, rc)
    if rt[0] == "err":
        assert _error(rt) == _error(rc)
    else:
        assert rt[1] == rc[1]
    assert len(wt) == len(wc)
    for a, b in zip(wt, wc):
        assert a.lstrip("\n").split("\n")[0] == b.lstrip("\n").split("\n")[0]
        assert _own_frames(a) == _own_frames(b)


def _own_frames(msg):
    """The traceback entries of a warning that lie in this file (PyTorch adds frames of its
    own Python files, ftrans leaves its own out)."""
    lines = msg.splitlines()
    return [(ln, lines[i + 1] if i + 1 < len(lines) else "") for i, ln in enumerate(lines)
            if ln.startswith(f'  File "{__file__}"')]


def test_double_backward_names_the_parent():
    (res, msgs) = _run(_double_backward, fc)
    assert _error(res) == ("RuntimeError",
                           "Function 'PowBackward0' returned nan values in its 0th output.")
    assert msgs[0].startswith("Error detected in PowBackward0. Traceback of forward call")
    assert "T.autograd.grad(y.sum(), x, create_graph=True)" in msgs[0]
    assert msgs[1].startswith("\n\nPrevious calculation was induced by PowBackward0. "
                              "Traceback of forward call that induced the previous "
                              "calculation:\n")
    assert "y = x.pow(3)" in msgs[1]


# ------------------------------------------------- same gradients with the mode on
def test_gradients_unchanged_by_anomaly_mode():
    xv = np.array([0.3, -1.2, 0.8])

    def f(T, x):
        y = x
        for _ in range(3):
            y = T.tanh(T.sin(y) * 0.9 + y * 0.1)
        return (y * y.exp()).sum()

    def grads():
        x = fc.tensor(xv, requires_grad=True)
        f(fc, x).backward(retain_graph=True)
        x2 = fc.tensor(xv, requires_grad=True)
        (g,) = fc.autograd.grad(f(fc, x2), x2, create_graph=True)
        (h,) = fc.autograd.grad(g.sum(), x2)
        return x.grad.numpy().copy(), g.detach().numpy(), h.numpy()
    off = grads()
    with fc.autograd.set_detect_anomaly(True):
        on = grads()
    for a, b in zip(off, on):
        assert np.array_equal(a, b)

    def fn(v):
        y = v
        for _ in range(3):
            y = np.tanh(np.sin(y) * 0.9 + y * 0.1)
        return (y * np.exp(y)).sum()
    eps = 1e-6
    fd = np.array([(fn(xv + eps * e) - fn(xv - eps * e)) / (2 * eps) for e in np.eye(3)])
    assert np.allclose(on[0], fd, atol=1e-6)


def test_mode_flag_is_module_global():
    """The node creation sites read ``anomaly_mode._enabled``: one attribute test."""
    assert anomaly_mode._enabled is False
    with fc.autograd.set_detect_anomaly(True):
        assert anomaly_mode._enabled is True
    assert anomaly_mode._enabled is False
