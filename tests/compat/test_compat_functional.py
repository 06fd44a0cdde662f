"""``autograd.functional`` (jacobian, hessian, vjp, jvp, vhp, hvp) and
``autograd.grad(..., is_grads_batched=True)``.

Differential tests run one snippet through PyTorch and ``ftrans.compat`` (see
``compat_diff``): values, dtypes, shapes, return structure (Tensor / tuple / tuple of
tuples), ``requires_grad`` of the results, second-order derivatives through results
computed with ``create_graph=True``, and exception types and messages.  The other tests
stand on their own: central finite differences, symmetry of Hessians, ``jvp == J v``,
``hvp == vhp``, and a proof that ``is_grads_batched``/``vectorize=True`` run the backward
pass once (a primitive's VJP rule is called once for the whole batch).
"""
from __future__ import annotations

import numpy as np
import pytest

import ftrans.compat as fc
from ftrans.compat.autograd import _batched
from ftrans.compat.autograd import graph as G
from ftrans.compat import _ops as O
from ftrans.primitives import elementwise as E
from compat_diff import assert_same, needs_torch, run, torch

A0 = np.array([[0.3, -0.7, 1.1], [0.4, 0.9, -0.2]])
B0 = np.array([0.5, -1.3])


def _x(T, rg=False):
    return T.tensor(A0, dtype=T.float64, requires_grad=rg)


def _ab(T, rg=False):
    return (T.tensor(A0[0], dtype=T.float64, requires_grad=rg),
            T.tensor(B0, dtype=T.float64, requires_grad=rg))


# functions written with Tensor methods only, so that they run on both libraries
def f_ss(a):                      # Tensor -> Tensor
    return a.exp() * a.sum()


def f_st(a):                      # Tensor -> tuple
    return a.sin() * a, (a * a).sum()


def f_ts(a, b):                   # tuple -> Tensor
    return a.tanh().sum() * b + b * b


def f_tt(a, b):                   # tuple -> tuple
    return (a.exp() * b.sum(), (a * a).sum() * b.sin(), (a.cos() * 2).sum())


FUNCS = {"ss": (f_ss, False), "st": (f_st, False), "ts": (f_ts, True), "tt": (f_tt, True)}


def h_s(a):                       # scalar of one tensor
    return a.pow(3).sum() + (a.sin() * a).sum() * a.sum()


def h_t(a, b):                    # scalar of two tensors
    return a.pow(3).sum() * b.exp().sum() + (a.sum() * b.sum()).sin()


HFUNCS = {"s": (h_s, False), "t": (h_t, True)}


def _inputs(T, as_tuple, rg=False):
    return _ab(T, rg) if as_tuple else _x(T, rg)


def _flat(r):
    if isinstance(r, (tuple, list)):
        out = []
        for e in r:
            out.extend(_flat(e))
        return out
    return [r]


def _rg(r):
    """Nested requires_grad flags of a result."""
    if isinstance(r, (tuple, list)):
        return tuple(_rg(e) for e in r)
    return r.requires_grad


def _second_order(T, res, inputs):
    """Gradient of sum(result**2) with respect to the inputs (through create_graph)."""
    total = sum((r * r).sum() for r in _flat(res) if r.requires_grad)
    ins = inputs if isinstance(inputs, tuple) else (inputs,)
    return T.autograd.grad(total, ins, allow_unused=True, materialize_grads=True)


def assert_same_error(fn, exact=True):
    """Both libraries raise the same exception type (and the same message if ``exact``)."""
    rt, rf = run(fn, torch), run(fn, fc)
    assert rt[0] == "err", f"torch did not raise: {rt}"
    assert rf[0] == "err", f"compat did not raise: {rf}"
    assert rt[1] == rf[1], f"torch: {rt}\ncompat: {rf}"
    if exact:
        assert rt[2] == rf[2], f"torch: {rt[2]}\ncompat: {rf[2]}"


# ================================================================ differential: jacobian
@needs_torch
@pytest.mark.parametrize("kind", sorted(FUNCS))
@pytest.mark.parametrize("vectorize", [False, True])
@pytest.mark.parametrize("create_graph", [False, True])
def test_jacobian_matches_torch(kind, vectorize, create_graph):
    f, tup = FUNCS[kind]

    def snippet(T):
        inputs = _inputs(T, tup, rg=create_graph)
        J = T.autograd.functional.jacobian(f, inputs, create_graph=create_graph,
                                           vectorize=vectorize)
        second = _second_order(T, J, inputs) if create_graph else None
        return J, _rg(J), second
    assert_same(snippet, rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("kind", sorted(FUNCS))
def test_jacobian_forward_mode_matches_torch(kind):
    f, tup = FUNCS[kind]

    def snippet(T):
        J = T.autograd.functional.jacobian(f, _inputs(T, tup), vectorize=True,
                                           strategy="forward-mode")
        return J, _rg(J)
    assert_same(snippet, rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
def test_jacobian_float32_and_independent_input(strategy):
    # float32 in, float32 out; an input the output does not use gets zeros
    def snippet(T):
        a = T.tensor([0.5, 1.5, -2.0], dtype=T.float32)
        b = T.tensor([3.0, 4.0], dtype=T.float32)
        return T.autograd.functional.jacobian(lambda a, b: (a * a, a.sum()), (a, b),
                                              vectorize=True, strategy=strategy)
    assert_same(snippet)


@needs_torch
@pytest.mark.parametrize("vectorize", [False, True])
def test_jacobian_output_not_requiring_grad(vectorize):
    def snippet(T):
        c = T.tensor([1.0, 2.0], dtype=T.float64)
        return T.autograd.functional.jacobian(lambda a: (a * 2, c * 3), _x(T),
                                              vectorize=vectorize)
    assert_same(snippet)


@needs_torch
def test_jacobian_complex_matches_torch():
    z0 = np.array([0.3 + 0.8j, -1.1 + 0.2j, 0.5 - 0.4j])

    def snippet(T):
        z = T.tensor(z0, dtype=T.complex128)
        F = T.autograd.functional
        holo = lambda z: z * z * z.exp()           # noqa: E731
        to_real = lambda z: (z * z).abs()          # noqa: E731
        return (F.jacobian(holo, z, vectorize=True),
                F.jacobian(holo, z, vectorize=True, strategy="forward-mode"),
                F.jacobian(to_real, z), F.jacobian(to_real, z, vectorize=True),
                F.jacobian(to_real, z, vectorize=True, strategy="forward-mode"),
                F.jacobian(lambda x: x * (1 + 2j), z.real.clone(), vectorize=True))
    assert_same(snippet, rtol=1e-10, atol=1e-12)
    # a complex output needs vectorize=True (the implicit scalar gradient must be real)
    assert_same_error(lambda T: T.autograd.functional.jacobian(
        lambda z: z * z, T.tensor(z0, dtype=T.complex128)))


# ================================================================= differential: hessian
@needs_torch
@pytest.mark.parametrize("kind", sorted(HFUNCS))
@pytest.mark.parametrize("vectorize", [False, True])
@pytest.mark.parametrize("create_graph", [False, True])
def test_hessian_matches_torch(kind, vectorize, create_graph):
    h, tup = HFUNCS[kind]

    def snippet(T):
        inputs = _inputs(T, tup, rg=create_graph)
        H = T.autograd.functional.hessian(h, inputs, create_graph=create_graph,
                                          vectorize=vectorize)
        second = _second_order(T, H, inputs) if create_graph else None
        return H, _rg(H), second
    assert_same(snippet, rtol=1e-10, atol=1e-10)


@needs_torch
@pytest.mark.parametrize("kind", sorted(HFUNCS))
def test_hessian_forward_over_reverse_matches_torch(kind):
    h, tup = HFUNCS[kind]
    assert_same(lambda T: T.autograd.functional.hessian(
        h, _inputs(T, tup), vectorize=True, outer_jacobian_strategy="forward-mode"),
        rtol=1e-10, atol=1e-10)


# ======================================================= differential: vjp/jvp/vhp/hvp
def _v_like(T, refs, scale=1.0):
    """Deterministic direction tensors of the shapes of ``refs`` (a tuple or a Tensor)."""
    def one(r, k):
        n = int(np.prod(r.shape))
        vals = np.cos(np.arange(n) * 1.3 + k) * scale
        return T.tensor(vals.reshape(tuple(r.shape)), dtype=r.dtype)
    if isinstance(refs, tuple):
        return tuple(one(r, k) for k, r in enumerate(refs))
    return one(refs, 0)


@needs_torch
@pytest.mark.parametrize("kind", sorted(FUNCS))
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name", ["vjp", "jvp"])
def test_vjp_jvp_match_torch(name, kind, create_graph):
    f, tup = FUNCS[kind]

    def snippet(T):
        inputs = _inputs(T, tup, rg=create_graph)
        fn = getattr(T.autograd.functional, name)
        if name == "vjp":
            with T.no_grad():
                outs = f(*(inputs if tup else (inputs,)))
            v = _v_like(T, outs)
        else:
            v = _v_like(T, inputs)
        out, res = fn(f, inputs, v, create_graph=create_graph)
        second = _second_order(T, (out, res), inputs) if create_graph else None
        return out, res, _rg(out), _rg(res), second
    assert_same(snippet, rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("kind", sorted(HFUNCS))
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name", ["vhp", "hvp"])
def test_vhp_hvp_match_torch(name, kind, create_graph):
    h, tup = HFUNCS[kind]

    def snippet(T):
        inputs = _inputs(T, tup, rg=create_graph)
        out, res = getattr(T.autograd.functional, name)(h, inputs, _v_like(T, inputs),
                                                         create_graph=create_graph)
        second = _second_order(T, (out, res), inputs) if create_graph else None
        return out, res, _rg(out), _rg(res), second
    assert_same(snippet, rtol=1e-10, atol=1e-10)


@needs_torch
@pytest.mark.parametrize("name", ["vjp", "jvp", "vhp", "hvp"])
def test_default_v_for_single_element(name):
    def snippet(T):
        x = T.tensor([0.7], dtype=T.float64)
        return getattr(T.autograd.functional, name)(lambda a: (a.exp() * a).sum(), x)
    assert_same(snippet, rtol=1e-12)


@needs_torch
def test_complex_vjp_jvp_match_torch():
    z0 = np.array([0.3 + 0.8j, -1.1 + 0.2j])

    def snippet(T):
        z = T.tensor(z0, dtype=T.complex128)
        v = T.tensor([1.0 - 0.5j, 0.25 + 2j], dtype=T.complex128)
        F = T.autograd.functional
        return F.vjp(lambda z: z * z.exp(), z, v), F.jvp(lambda z: z * z.exp(), z, v)
    assert_same(snippet, rtol=1e-10, atol=1e-12)


@needs_torch
def test_results_are_detached_without_create_graph():
    def snippet(T):
        x = _x(T, rg=True)
        F = T.autograd.functional
        outs = [F.jacobian(f_ss, x), F.jacobian(f_ss, x, vectorize=True), F.hessian(h_s, x),
                F.vjp(f_ss, x, _v_like(T, x)), F.jvp(f_ss, x, _v_like(T, x)),
                F.vhp(h_s, x, _v_like(T, x)), F.hvp(h_s, x, _v_like(T, x))]
        with T.no_grad():  # the functions enable grad internally
            outs.append(F.vjp(f_ss, x, _v_like(T, x)))
        return _rg(outs), x.grad
    assert_same(snippet)


@needs_torch
def test_linear_function_with_create_graph():
    # the result does not depend on the input: no graph, in both libraries
    def snippet(T):
        x = _x(T, rg=True)
        F = T.autograd.functional
        out, j = F.jvp(lambda a: a * 2, x, _v_like(T, x), create_graph=True)
        J = F.jacobian(lambda a: a * 2, x, create_graph=True)
        return out, j, _rg((out, j, J))
    assert_same(snippet)


# ============================================================== differential: errors
STRICT_CASES = {
    "jacobian_unused": lambda T: T.autograd.functional.jacobian(
        lambda a, b: a * 2, _ab(T), strict=True),
    "jacobian_out_no_grad": lambda T: T.autograd.functional.jacobian(
        lambda a: T.ones(2), _x(T), strict=True),
    "jacobian_linear_cg": lambda T: T.autograd.functional.jacobian(
        lambda a: a * 2, _x(T), strict=True, create_graph=True),
    "jacobian_strict_vectorize": lambda T: T.autograd.functional.jacobian(
        f_ss, _x(T), strict=True, vectorize=True),
    "jacobian_strict_forward": lambda T: T.autograd.functional.jacobian(
        f_ss, _x(T), strict=True, vectorize=True, strategy="forward-mode"),
    "hessian_linear": lambda T: T.autograd.functional.hessian(
        lambda a: (a * 2).sum(), _x(T), strict=True),
    "hessian_unused": lambda T: T.autograd.functional.hessian(
        lambda a, b: a.pow(3).sum(), _ab(T), strict=True),
    "hessian_quadratic_cg": lambda T: T.autograd.functional.hessian(
        lambda a: (a * a).sum(), _x(T), strict=True, create_graph=True),
    "vjp_unused": lambda T: T.autograd.functional.vjp(
        lambda a, b: a * 2, _ab(T), T.ones(3, dtype=T.float64), strict=True),
    "vjp_out_no_grad": lambda T: T.autograd.functional.vjp(
        lambda a: T.ones(2), _x(T), T.ones(2), strict=True),
    "jvp_unused": lambda T: T.autograd.functional.jvp(
        lambda a, b: a * 2, _ab(T), _v_like(T, _ab(T)), strict=True),
    "jvp_constant_out": lambda T: T.autograd.functional.jvp(
        lambda a, b: (a * 2, b.detach()), _ab(T), _v_like(T, _ab(T)), strict=True),
    "vhp_linear": lambda T: T.autograd.functional.vhp(
        lambda a: (a * 2).sum(), _x(T), _v_like(T, _x(T)), strict=True),
    "vhp_unused": lambda T: T.autograd.functional.vhp(
        lambda a, b: a.pow(3).sum() + b.sum(), _ab(T), _v_like(T, _ab(T)), strict=True),
    "hvp_linear": lambda T: T.autograd.functional.hvp(
        lambda a: (a * 2).sum(), _x(T), _v_like(T, _x(T)), strict=True),
    "hvp_quadratic_cg": lambda T: T.autograd.functional.hvp(
        lambda a: (a * a).sum(), _x(T), _v_like(T, _x(T)), strict=True, create_graph=True),
    "vhp_quadratic_cg": lambda T: T.autograd.functional.vhp(
        lambda a: (a * a).sum(), _x(T), _v_like(T, _x(T)), strict=True, create_graph=True),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(STRICT_CASES))
def test_strict_errors_match_torch(name):
    assert_same_error(STRICT_CASES[name])


@needs_torch
@pytest.mark.parametrize("name", ["jacobian", "vjp", "jvp", "vhp", "hvp", "hessian"])
def test_not_strict_gives_zeros_for_unused_input(name):
    def snippet(T):
        F = T.autograd.functional
        f = (lambda a, b: a.pow(3).sum()) if name in ("vhp", "hvp", "hessian") else \
            (lambda a, b: a.sin())
        if name == "jacobian":
            return F.jacobian(f, _ab(T)), F.jacobian(f, _ab(T), vectorize=True)
        if name == "hessian":
            return F.hessian(f, _ab(T)), F.hessian(f, _ab(T), vectorize=True)
        if name == "vjp":
            return F.vjp(f, _ab(T), T.ones(3, dtype=T.float64))
        return getattr(F, name)(f, _ab(T), _v_like(T, _ab(T)))
    assert_same(snippet, rtol=1e-10, atol=1e-12)


BAD_INPUT_CASES = {
    "v_wrong_size": lambda T: T.autograd.functional.vjp(f_ss, _x(T), T.ones(3)),
    "v_wrong_size_tuple": lambda T: T.autograd.functional.jvp(
        f_ts, _ab(T), (T.ones(3, dtype=T.float64), T.ones(3, dtype=T.float64))),
    "v_wrong_length": lambda T: T.autograd.functional.jvp(
        f_ts, _ab(T), (T.ones(3, dtype=T.float64),)),
    "v_two_for_one": lambda T: T.autograd.functional.vhp(
        h_s, _x(T), (T.ones(2, 3, dtype=T.float64), T.ones(2, 3, dtype=T.float64))),
    "v_missing_vjp": lambda T: T.autograd.functional.vjp(f_ss, _x(T)),
    "v_missing_jvp": lambda T: T.autograd.functional.jvp(f_ss, _x(T)),
    "v_missing_hvp": lambda T: T.autograd.functional.hvp(h_s, _x(T)),
    "v_missing_vhp": lambda T: T.autograd.functional.vhp(h_t, _ab(T)),
    "v_not_tensor": lambda T: T.autograd.functional.vjp(f_ss, _x(T), [1.0, 2.0]),
    "inputs_list": lambda T: T.autograd.functional.jacobian(f_ss, [_x(T)]),
    "inputs_tuple_bad": lambda T: T.autograd.functional.jvp(f_ts, (_x(T), 3.0)),
    "func_returns_list": lambda T: T.autograd.functional.jacobian(lambda a: [a, a], _x(T)),
    "func_returns_float": lambda T: T.autograd.functional.vjp(lambda a: 1.0, _x(T)),
    "hessian_non_scalar": lambda T: T.autograd.functional.hessian(lambda a: a * a, _x(T)),
    "hessian_tuple_out": lambda T: T.autograd.functional.hessian(
        lambda a: ((a * a).sum(),), _x(T)),
    "vhp_non_scalar": lambda T: T.autograd.functional.vhp(
        lambda a: a * a, _x(T), _v_like(T, _x(T))),
    "hvp_tuple_out": lambda T: T.autograd.functional.hvp(
        lambda a: ((a * a).sum(),), _x(T), _v_like(T, _x(T))),
    "bad_strategy": lambda T: T.autograd.functional.jacobian(f_ss, _x(T), strategy="fwd"),
    "bad_outer_strategy": lambda T: T.autograd.functional.hessian(
        h_s, _x(T), outer_jacobian_strategy="x"),
    "forward_create_graph": lambda T: T.autograd.functional.jacobian(
        f_ss, _x(T), create_graph=True, vectorize=True, strategy="forward-mode"),
    "forward_not_vectorized": lambda T: T.autograd.functional.jacobian(
        f_ss, _x(T), strategy="forward-mode"),
    "hessian_forward_not_vectorized": lambda T: T.autograd.functional.hessian(
        h_s, _x(T), outer_jacobian_strategy="forward-mode"),
    "empty_output": lambda T: T.autograd.functional.jacobian(lambda a: a[:0], _x(T)),
}
# messages where PyTorch's text is the product of its vmap prototype or has a typo
_TYPE_ONLY = {"forward_not_vectorized", "hessian_forward_not_vectorized"}


@needs_torch
@pytest.mark.parametrize("name", sorted(BAD_INPUT_CASES))
def test_bad_input_errors_match_torch(name):
    assert_same_error(BAD_INPUT_CASES[name], exact=name not in _TYPE_ONLY)


# =================================================== differential: is_grads_batched
def _batched_setup(T):
    x = T.tensor([0.3, -0.7, 1.1], dtype=T.float64, requires_grad=True)
    z = T.tensor([2.0, 0.5], dtype=T.float64, requires_grad=True)
    W = T.tensor(np.arange(12.0).reshape(4, 3) / 7 - 0.5, dtype=T.float64)
    y = (W @ x).tanh() * (x.sin().sum() + z.prod())
    return x, z, y


BATCHED_CASES = {
    "values": lambda T: (lambda x, z, y: T.autograd.grad(
        y, (x, z), T.eye(4, dtype=T.float64) * 2 - 0.5, is_grads_batched=True))(
        *_batched_setup(T)),
    "two_outputs": lambda T: (lambda x, z, y: T.autograd.grad(
        (y, y.sum() * x), (x, z), (T.ones(5, 4, dtype=T.float64),
                                   T.ones(5, 3, dtype=T.float64)),
        is_grads_batched=True))(*_batched_setup(T)),
    "unused_error": lambda T: (lambda x, z, y: T.autograd.grad(
        y * x.sum(), (x, T.ones(2, requires_grad=True)), T.eye(4, dtype=T.float64),
        is_grads_batched=True))(*_batched_setup(T)),
    "allow_unused": lambda T: (lambda x, z, y: T.autograd.grad(
        y, (x, T.ones(2, requires_grad=True)), T.eye(4, dtype=T.float64),
        is_grads_batched=True, allow_unused=True))(*_batched_setup(T)),
    "materialize": lambda T: (lambda x, z, y: T.autograd.grad(
        y, (x, T.ones(2, requires_grad=True)), T.eye(4, dtype=T.float64),
        is_grads_batched=True, materialize_grads=True))(*_batched_setup(T)),
    "shape_mismatch": lambda T: (lambda x, z, y: T.autograd.grad(
        y, x, T.ones(3, 3, dtype=T.float64), is_grads_batched=True))(*_batched_setup(T)),
    "zero_dim": lambda T: (lambda x, z, y: T.autograd.grad(
        y.sum(), x, T.tensor(1.0, dtype=T.float64), is_grads_batched=True))(
        *_batched_setup(T)),
    "implicit_scalar": lambda T: (lambda x, z, y: T.autograd.grad(
        y.sum(), x, None, is_grads_batched=True))(*_batched_setup(T)),
    "sizes_differ": lambda T: (lambda x, z, y: T.autograd.grad(
        (y, y * 2), x, (T.ones(4, 4, dtype=T.float64), T.ones(5, 4, dtype=T.float64)),
        is_grads_batched=True))(*_batched_setup(T)),
    "empty_batch": lambda T: (lambda x, z, y: T.autograd.grad(
        y, x, T.ones(0, 4, dtype=T.float64), is_grads_batched=True))(*_batched_setup(T)),
    "complex_mismatch": lambda T: (lambda x, z, y: T.autograd.grad(
        y, x, T.ones(2, 4, dtype=T.complex128), is_grads_batched=True))(*_batched_setup(T)),
    "nonleaf_input": lambda T: (lambda x, z, y: (lambda s: T.autograd.grad(
        (s * s).sum(1) * y[:2], (s, x), T.eye(2, dtype=T.float64), is_grads_batched=True))(
        x.sin().unsqueeze(0).expand(2, 3) * 1))(*_batched_setup(T)),
    "graph_freed": lambda T: (lambda x, z, y: (
        T.autograd.grad(y, x, T.eye(4, dtype=T.float64), is_grads_batched=True),
        T.autograd.grad(y, x, T.eye(4, dtype=T.float64), is_grads_batched=True)))(
        *_batched_setup(T)),
    "graph_retained": lambda T: (lambda x, z, y: (
        T.autograd.grad(y, x, T.eye(4, dtype=T.float64), is_grads_batched=True,
                        retain_graph=True),
        T.autograd.grad(y, x, T.eye(4, dtype=T.float64)[1])))(*_batched_setup(T)),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(BATCHED_CASES))
def test_is_grads_batched_matches_torch(name):
    # messages where PyTorch's text comes from its vmap prototype are compared by type
    exact = name not in ("zero_dim", "implicit_scalar", "sizes_differ", "empty_batch",
                         "shape_mismatch")
    rt = run(BATCHED_CASES[name], torch)
    if rt[0] == "err":
        assert_same_error(BATCHED_CASES[name], exact=exact)
    else:
        assert_same(BATCHED_CASES[name], rtol=1e-10, atol=1e-12)


@needs_torch
def test_is_grads_batched_create_graph_matches_torch():
    def snippet(T):
        x, z, y = _batched_setup(T)
        g = T.autograd.grad(y, (x, z), T.eye(4, dtype=T.float64), is_grads_batched=True,
                            create_graph=True)
        return g, _rg(g), T.autograd.grad((g[0] * g[0]).sum() + g[1].sum(), (x, z))
    assert_same(snippet, rtol=1e-10, atol=1e-12)


@needs_torch
def test_is_grads_batched_differentiable_in_grad_outputs():
    # create_graph=True: the result is differentiable with respect to grad_outputs too
    def snippet(T):
        x, z, y = _batched_setup(T)
        v = T.tensor(np.linspace(-1, 1, 8).reshape(2, 4), dtype=T.float64, requires_grad=True)
        g = T.autograd.grad(y, x, v, is_grads_batched=True, create_graph=True)[0]
        return T.autograd.grad((g * g).sum(), v)
    assert_same(snippet, rtol=1e-10, atol=1e-12)


# ============================================ one vmapped pass, not a loop over rows
@pytest.fixture
def sin_vjp_calls(monkeypatch):
    calls = []
    orig = E.sin_p.vjp

    def counting(*args, **kwargs):
        calls.append(1)
        return orig(*args, **kwargs)
    monkeypatch.setattr(E.sin_p, "vjp", counting)
    return calls


def _sin_graph():
    x = fc.tensor([0.3, -0.7, 1.1, 2.0], dtype=fc.float64, requires_grad=True)
    W = fc.tensor(np.arange(20.0).reshape(5, 4) / 9, dtype=fc.float64)
    return x, (W @ x.sin()).tanh() * x.sum()


def test_is_grads_batched_runs_the_engine_once(sin_vjp_calls, monkeypatch):
    runs = []
    orig = _batched.run_backward

    def counting(*args, **kwargs):
        runs.append(1)
        return orig(*args, **kwargs)
    monkeypatch.setattr(_batched, "run_backward", counting)
    x, y = _sin_graph()
    eye = fc.eye(5, dtype=fc.float64)
    g = fc.autograd.grad(y, x, eye, is_grads_batched=True, retain_graph=True)[0]
    assert len(sin_vjp_calls) == 1 and len(runs) == 1
    rows = [fc.autograd.grad(y, x, eye[k], retain_graph=True)[0] for k in range(5)]
    assert len(sin_vjp_calls) == 6
    np.testing.assert_allclose(g.numpy(), np.stack([r.numpy() for r in rows]), rtol=1e-12)


def test_jacobian_and_hessian_run_one_batched_pass(sin_vjp_calls):
    """autograd.functional runs on compat.func (ftrans.vmap of ftrans.vjp/jvp): one
    batched pass whatever ``vectorize`` says (it is PyTorch's performance flag)."""
    x0 = fc.tensor([0.3, -0.7, 1.1, 2.0], dtype=fc.float64)
    W = fc.tensor(np.arange(20.0).reshape(5, 4) / 9, dtype=fc.float64)
    f = lambda x: (W @ x.sin()).tanh()  # noqa: E731
    J = fc.autograd.functional.jacobian(f, x0, vectorize=True)
    assert len(sin_vjp_calls) == 1
    Jl = fc.autograd.functional.jacobian(f, x0)
    assert len(sin_vjp_calls) == 1 + 1
    np.testing.assert_allclose(J.numpy(), Jl.numpy(), rtol=1e-12)
    Jf = fc.autograd.functional.jacobian(f, x0, vectorize=True, strategy="forward-mode")
    np.testing.assert_allclose(Jf.numpy(), Jl.numpy(), rtol=1e-12)
    del sin_vjp_calls[:]
    # hessian: jacrev of jacrev -- sin's VJP rule once in the inner gradient, once more
    # (batched) when the outer pass differentiates through it (tanh' depends on sin(x))
    H = fc.autograd.functional.hessian(lambda x: f(x).sum(), x0, vectorize=True)
    assert len(sin_vjp_calls) == 2
    Hl = fc.autograd.functional.hessian(lambda x: f(x).sum(), x0)
    assert len(sin_vjp_calls) == 2 + 2
    np.testing.assert_allclose(H.numpy(), Hl.numpy(), rtol=1e-10, atol=1e-12)


def test_hooks_fall_back_to_one_pass_per_row(sin_vjp_calls):
    # hooks see compat Tensors: such graphs run one backward per row (same values);
    # PyTorch calls the hook once, with a batched tensor
    x, y = _sin_graph()
    seen = []
    h = y.register_hook(lambda g: seen.append(tuple(g.shape)))
    eye = fc.eye(5, dtype=fc.float64)
    g = fc.autograd.grad(y, x, eye, is_grads_batched=True, retain_graph=True)[0]
    assert seen == [(5,)] * 5 and len(sin_vjp_calls) == 5
    h.remove()
    g2 = fc.autograd.grad(y, x, eye, is_grads_batched=True)[0]
    assert len(sin_vjp_calls) == 6
    np.testing.assert_allclose(g.numpy(), g2.numpy(), rtol=1e-12)


def test_create_graph_falls_back_to_loop(sin_vjp_calls):
    x, y = _sin_graph()
    g = fc.autograd.grad(y, x, fc.eye(5, dtype=fc.float64), is_grads_batched=True,
                         create_graph=True)[0]
    assert g.requires_grad and len(sin_vjp_calls) == 5


def _numpy_formula_graph():
    """x -> 3 * x through a node whose formula converts the cotangent with NumPy (cannot
    run under vmap), then sin."""
    def bwd(node, ct, primals, ans, needs):
        return [np.asarray(ct) * 3.0]
    cls = G.node_class("NumpyTimesThreeBackward0", ("self",), bwd)
    x = fc.tensor([0.3, -0.7, 1.1], dtype=fc.float64, requires_grad=True)
    t = O._record(cls, None, {}, [x], [x._data], x._data * 3.0, O.SAVE_NONE)
    return x, t.sin()


def test_unbatchable_formula_falls_back_to_loop(sin_vjp_calls):
    x, y = _numpy_formula_graph()
    # its _apply is OpNode's: detected only when the formula meets a tracer
    assert _batched.batchable([(y.grad_fn, 0)], [_acc_edge(x)]) is not None
    eye = fc.eye(3, dtype=fc.float64)
    g = fc.autograd.grad(y, x, eye, is_grads_batched=True)[0]
    # one batched attempt (stopped at the NumPy formula), then one pass per row
    assert len(sin_vjp_calls) == 1 + 3
    np.testing.assert_allclose(g.numpy(), np.diag(3 * np.cos(3 * x.detach().numpy())),
                               rtol=1e-12)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        fc.autograd.grad(y, x, eye, is_grads_batched=True)


def _acc_edge(x):
    from ftrans.compat._tensor import _edge
    return _edge(x)


def test_custom_backward_node_is_detected_up_front():
    class OwnApplyNode(G.OpNode):   # a node with its own _apply (like autograd.Function)
        __slots__ = ()

        def _apply(self, ct, saved, outsv, wrap):
            return [ct]
    x = fc.tensor([1.0, 2.0], requires_grad=True)
    t = O._record(OwnApplyNode, None, {}, [x], [x._data], x._data.copy(), O.SAVE_NONE)
    y = t * 2
    assert _batched.batchable([(y.grad_fn, 0)], [_acc_edge(x)]) is None
    g = fc.autograd.grad(y, x, fc.eye(2), is_grads_batched=True)[0]
    np.testing.assert_allclose(g.numpy(), 2 * np.eye(2))


@needs_torch
def test_custom_function_runs_one_pass_per_row(sin_vjp_calls):
    if not hasattr(fc.autograd, "Function"):
        pytest.skip("ftrans.compat.autograd.Function is not available")

    def snippet(T):
        class Cube(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return 3 * x * x * g
        x = T.tensor([0.5, -1.0, 2.0], dtype=T.float64, requires_grad=True)
        F = T.autograd.functional
        f = lambda a: Cube.apply(a).sin() * a  # noqa: E731
        return (T.autograd.grad(f(x), x, T.eye(3, dtype=T.float64), is_grads_batched=True),
                F.jacobian(f, x, vectorize=True), F.jacobian(f, x))
    assert_same(snippet, rtol=1e-12)
    # compat: the Function's backward gets compat Tensors, so autograd.grad's batched
    # graph loops over rows (3); autograd.functional runs on compat.func, where the
    # Function is ftrans.custom_vjp: one batched pass each (1 + 1)
    assert len(sin_vjp_calls) == 3 + 1 + 1


# =================================================== non-differential (stand-alone) checks
def _np_fn(f, tup):
    """f as a function of flat float64 NumPy arrays (one per input), outputs flattened."""
    def g(*arrays):
        with fc.no_grad():
            ins = [fc.tensor(a, dtype=fc.float64) for a in arrays]
            out = f(*ins)
        outs = out if isinstance(out, tuple) else (out,)
        return [o.numpy().ravel().copy() for o in outs]
    return g


def _fd_jacobian(g, arrays, j, eps=1e-6):
    """Central differences of every output with respect to input ``j``:
    list over outputs of arrays (out_numel, in_numel)."""
    base = [a.copy() for a in arrays]
    cols = []
    for k in range(base[j].size):
        plus = [a.copy() for a in base]
        minus = [a.copy() for a in base]
        plus[j].flat[k] += eps
        minus[j].flat[k] -= eps
        cols.append([(p - m) / (2 * eps) for p, m in zip(g(*plus), g(*minus))])
    return [np.stack([c[i] for c in cols], axis=1) for i in range(len(cols[0]))]


@pytest.mark.parametrize("kind", sorted(FUNCS))
@pytest.mark.parametrize("mode", ["loop", "vectorize", "forward"])
def test_jacobian_against_finite_differences(kind, mode):
    f, tup = FUNCS[kind]
    inputs = _inputs(fc, tup)
    J = fc.autograd.functional.jacobian(
        f, inputs, vectorize=mode != "loop",
        strategy="forward-mode" if mode == "forward" else "reverse-mode")
    ins = inputs if tup else (inputs,)
    arrays = [i.numpy() for i in ins]
    g = _np_fn(f, tup)
    outs = g(*arrays)
    with fc.no_grad():
        out_shapes = [tuple(o.shape) for o in _flat(f(*ins))]
    # normalize to [output][input]
    if not tup:
        J = tuple((Ji,) for Ji in J) if isinstance(J, tuple) else ((J,),)
    elif not isinstance(J[0], tuple):
        J = (J,)
    for j in range(len(arrays)):
        fd = _fd_jacobian(g, arrays, j)
        for i in range(len(outs)):
            assert J[i][j].shape == out_shapes[i] + arrays[j].shape
            np.testing.assert_allclose(J[i][j].numpy().reshape(outs[i].size, -1), fd[i],
                                       rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("kind", sorted(HFUNCS))
@pytest.mark.parametrize("vectorize", [False, True])
def test_hessian_symmetric_and_against_finite_differences(kind, vectorize):
    h, tup = HFUNCS[kind]
    inputs = _inputs(fc, tup)
    H = fc.autograd.functional.hessian(h, inputs, vectorize=vectorize)
    ins = inputs if tup else (inputs,)
    if not tup:
        H = ((H,),)
    arrays = [i.numpy() for i in ins]
    n = [a.size for a in arrays]

    def grad_np(*arrs):
        ts = [fc.tensor(a, dtype=fc.float64, requires_grad=True) for a in arrs]
        gs = fc.autograd.grad(h(*ts), ts)
        return [g.numpy().ravel() for g in gs]
    for i in range(len(arrays)):
        for j in range(len(arrays)):
            Hij = H[i][j].numpy().reshape(n[i], n[j])
            np.testing.assert_allclose(Hij, H[j][i].numpy().reshape(n[j], n[i]).T,
                                       rtol=1e-10, atol=1e-12)
            fd = _fd_jacobian(grad_np, arrays, j)[i]
            np.testing.assert_allclose(Hij, fd, rtol=1e-5, atol=1e-6)


def test_products_agree_with_jacobian_and_hessian():
    F = fc.autograd.functional
    a, b = _ab(fc)
    va, vb = _v_like(fc, (a, b))
    # jvp == J v and vjp == v^T J, from the jacobian
    J = F.jacobian(f_ts, (a, b))
    _, jv = F.jvp(f_ts, (a, b), (va, vb))
    np.testing.assert_allclose(jv.numpy(), J[0].numpy() @ va.numpy() + J[1].numpy() @ vb.numpy(),
                               rtol=1e-12)
    u = _v_like(fc, f_ts(a, b))
    _, (ga, gb) = F.vjp(f_ts, (a, b), u)
    np.testing.assert_allclose(ga.numpy(), u.numpy() @ J[0].numpy(), rtol=1e-12)
    np.testing.assert_allclose(gb.numpy(), u.numpy() @ J[1].numpy(), rtol=1e-12)
    # hvp == vhp (smooth function) == H v
    _, hv = F.hvp(h_t, (a, b), (va, vb))
    _, vh = F.vhp(h_t, (a, b), (va, vb))
    H = F.hessian(h_t, (a, b))
    for k in range(2):
        np.testing.assert_allclose(hv[k].numpy(), vh[k].numpy(), rtol=1e-10, atol=1e-12)
        Hv = H[k][0].numpy() @ va.numpy() + H[k][1].numpy() @ vb.numpy()
        np.testing.assert_allclose(hv[k].numpy(), Hv, rtol=1e-10, atol=1e-12)


def test_complex_jacobian_against_finite_differences():
    z0 = np.array([0.3 + 0.8j, -1.1 + 0.2j, 0.5 - 0.4j])
    z = fc.tensor(z0, dtype=fc.complex128)
    f = lambda z: z * z * z.exp()  # noqa: E731  (holomorphic)
    eps = 1e-6

    def fnp(zz):
        with fc.no_grad():
            return f(fc.tensor(zz, dtype=fc.complex128)).numpy()
    d = np.stack([(fnp(z0 + eps * e) - fnp(z0 - eps * e)) / (2 * eps)
                  for e in np.eye(3)], axis=1)  # f'(z) along the real axis, by columns
    Jf = fc.autograd.functional.jacobian(f, z, vectorize=True, strategy="forward-mode")
    Jr = fc.autograd.functional.jacobian(f, z, vectorize=True)
    assert Jf.dtype == fc.complex128 and Jr.dtype == fc.complex128
    np.testing.assert_allclose(Jf.numpy(), d, rtol=1e-7, atol=1e-8)
    # reverse mode: the conjugate (grad convention of the autograd notes)
    np.testing.assert_allclose(Jr.numpy(), d.conj(), rtol=1e-7, atol=1e-8)


def test_create_graph_second_derivative_against_finite_differences():
    # d/dx sum(J(x)) for J the Jacobian of f_ss, through create_graph=True
    x = _x(fc, rg=True)
    J = fc.autograd.functional.jacobian(f_ss, x, create_graph=True, vectorize=True)
    g = fc.autograd.grad(J.sum(), x)[0].numpy().ravel()

    def total(arr):
        return fc.autograd.functional.jacobian(
            f_ss, fc.tensor(arr.reshape(A0.shape), dtype=fc.float64)).sum().item()
    eps = 1e-6
    fd = [(total(A0.ravel() + eps * e) - total(A0.ravel() - eps * e)) / (2 * eps)
          for e in np.eye(A0.size)]
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-7)
