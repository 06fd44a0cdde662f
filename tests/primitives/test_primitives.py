"""Table-driven tests of every primitive (rows in ``prim_cases.py``).

For each row and dtype (float64, float32, complex128 where defined):

* values against NumPy, dtype preserved;
* ``check_grads`` of order 2 in forward and reverse mode (central differences);
* transpose consistency: ``Re<u, J v> == Re<J^H u, v>`` with ``J v`` from ``ftrans.jvp``
  and ``J^H u`` from ``ftrans.vjp``, at first and second order;
* ``abstract_eval`` agrees with ``impl`` on every primitive bound by the row -- also by
  its JVP and VJP rules;
* 0-d and empty arrays: values, and derivatives of the right shapes and dtypes.

Plus registry-wide checks: every registered primitive has a row and all its rules.
"""
from __future__ import annotations

import numpy as np
import pytest

import ftrans
from ftrans.core import all_primitives, aval_of, float0
from ftrans.testing import check_grads
import ftrans.primitives as P

from prim_cases import CASES, NONDIFFERENTIABLE, F32
from ftrans.primitives import optable
from prim_helpers import (inexact, rand_like, tangents_for, cotangent_for, Recorder,
                          assert_values, real_precision, inner_tol, jvp_vjp_inner,
                          check_grads_inexact)

SEED = 1234


def _params(pred=lambda c: True):
    out = []
    for c in CASES:
        if pred(c):
            for d in c.test_dtypes():
                out.append(pytest.param(c, d, id=f"{c.id}-{d.name}"))
    return out


ALL = _params()
ADJOINT = _params(lambda c: c.differentiable and c.adjoint)  # (not stop_backward)
FD = _params(lambda c: c.differentiable and c.fd)
NONDIFF = _params(lambda c: not c.differentiable)
VARIANTS = [pytest.param(c, v, id=f"{c.id}-{v.label}") for c in CASES for v in c.all_variants()]


def _rng(case, dtype, salt=0):
    # deterministic per row and dtype, independent of test order
    key = sum(map(ord, case.id + dtype.name)) * 7919 + salt
    return np.random.default_rng(SEED + key)


# ---------------------------------------------------------------------------------
# registry-wide
# ---------------------------------------------------------------------------------
def test_table_covers_every_primitive():
    registered = set(all_primitives())
    covered = {c.name for c in CASES}
    missing = sorted(registered - covered)
    assert not missing, (f"primitives without a row in tests/primitives/prim_cases.py: "
                         f"{missing}; add one (fn, NumPy reference, shapes, domain)")
    unknown = sorted(covered - registered)
    assert not unknown, f"rows name primitives that are not registered: {unknown}"


@pytest.mark.parametrize("name", sorted(all_primitives()))
def test_primitive_has_all_rules(name):
    p = all_primitives()[name]
    assert callable(p.impl), f"{name}: no impl"
    assert callable(p.abstract_eval), f"{name}: no abstract_eval"
    if p.differentiable:
        assert callable(p.jvp), f"{name}: differentiable but no jvp rule"
        assert callable(p.vjp), f"{name}: differentiable but no vjp rule"
    # batch is not required yet (vmap comes in a later issue)


@pytest.mark.parametrize("name", sorted(all_primitives()))
def test_differentiable_flag_matches_table(name):
    p = all_primitives()[name]
    rows = [c for c in CASES if c.name == name]
    for c in rows:
        assert c.differentiable == p.differentiable, (
            f"{c.id}: table says differentiable={c.differentiable}, primitive says "
            f"{p.differentiable}")
    # only these have no derivative by nature (DESIGN.md)
    expected_nondiff = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
                        "logical_xor", "logical_not", "isfinite", "isnan", "isinf",
                        "argmax", "argmin", "argsort", "reduce_window_argmax",
                        "threefry2x32", "integer_elementwise"}
    # and the operation table's predicates (boolean results: signbit, isposinf ...)
    expected_nondiff |= {op.name for op in optable.ROWS if op.dtype == "bool"}
    if name in expected_nondiff:
        assert not p.differentiable
    assert NONDIFFERENTIABLE <= expected_nondiff


# ---------------------------------------------------------------------------------
# 1. values
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("case,dtype", ALL)
def test_values(case, dtype):
    args = case.make_args(_rng(case, dtype), dtype)
    with np.errstate(all="ignore"):
        ref = case.ref(*[a.copy() for a in args])
    out = case.fn(*args)
    assert_values(out, ref, dtype)
    out_dtype = np.asarray(out).dtype
    if case.keeps_precision and out_dtype.kind in "fc":
        assert real_precision(out_dtype) == real_precision(dtype), (
            f"{dtype} input gave a {out_dtype} output (no silent up/down-cast)")


# ---------------------------------------------------------------------------------
# 2. finite differences, order 2, both modes
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("case,dtype", FD)
def test_check_grads(case, dtype):
    args = case.make_args(_rng(case, dtype), dtype)
    out = np.asarray(case.fn(*args))
    if out.dtype.kind not in "fc":
        # integer outputs (convert to int): check_grads cannot compare a float0 tangent
        # (see test_integer_output_has_no_tangent for what is checked instead)
        pytest.skip("integer output: no tangent space to compare with finite differences")
    check_grads_inexact(case.fn, args, order=case.order, modes=("fwd", "rev"), seed=SEED)


@pytest.mark.parametrize("case,dtype", [p for p in FD if p.values[0].variant == "to_int32"])
def test_integer_output_has_no_tangent(case, dtype):
    rng = _rng(case, dtype)
    args = case.make_args(rng, dtype)
    out, t = ftrans.jvp(case.fn, tuple(args), tangents_for(args, rng))
    assert t.dtype == float0 and t.shape == out.shape
    out, vjp_fn = ftrans.vjp(case.fn, *args)
    (g,) = vjp_fn(np.zeros(out.shape, out.dtype))
    assert g.dtype == args[0].dtype and g.shape == args[0].shape
    assert not np.any(g)


# ---------------------------------------------------------------------------------
# 7. transpose consistency: the JVP and VJP rules are adjoint (first and second order)
# ---------------------------------------------------------------------------------
def _assert_adjoint(lhs, rhs, tol, what):
    scale = max(1.0, abs(lhs), abs(rhs))
    assert abs(lhs - rhs) <= tol * scale, (
        f"{what}: Re<u, J v> = {lhs!r} (ftrans.jvp) but Re<J^H u, v> = {rhs!r} (ftrans.vjp)")


@pytest.mark.parametrize("case,dtype", ADJOINT)
def test_jvp_vjp_transpose_consistency(case, dtype):
    rng = _rng(case, dtype, salt=1)
    args = tuple(case.make_args(rng, dtype))
    lhs, rhs, out, jv, jhu, v, u = jvp_vjp_inner(case.fn, args, rng)
    _assert_adjoint(lhs, rhs, inner_tol(args, out), "order 1")
    # shapes and dtypes of the derivatives
    out = np.asarray(out)
    jv = np.asarray(jv)
    assert jv.shape == out.shape
    assert jv.dtype == (out.dtype if inexact(out) else float0)
    assert len(jhu) == len(args)
    for a, g in zip(args, jhu):
        g = np.asarray(g)
        assert g.shape == np.shape(a)
        assert g.dtype == (a.dtype if inexact(a) else float0), \
            "a cotangent must have the dtype of its primal"
    if not inexact(out):
        return

    # second order: the JVP map and the VJP map are themselves differentiated
    def f_jvp(*a):
        return ftrans.jvp(case.fn, a, v)[1]

    def f_vjp(*a):
        return ftrans.vjp(case.fn, *a)[1](u)

    for name, g in (("d/dx of jvp", f_jvp), ("d/dx of vjp", f_vjp)):
        lhs, rhs, out2, *_ = jvp_vjp_inner(g, args, rng)
        _assert_adjoint(lhs, rhs, inner_tol(args, out2), f"order 2 ({name})")


# ---------------------------------------------------------------------------------
# 6. abstract_eval agrees with impl, for the row's primitive and every primitive its
#    JVP and VJP rules bind
# ---------------------------------------------------------------------------------
def _check_records(calls):
    for prim, args, params, out in calls:
        assert prim.abstract_eval is not None, f"{prim.name}: no abstract_eval"
        avals = prim.abstract_eval(*[aval_of(a) for a in args], **params)
        outs = out
        if not prim.multiple_results:
            avals, outs = (avals,), (out,)
        assert len(avals) == len(outs), f"{prim.name}: {len(avals)} avals, {len(outs)} outputs"
        for aval, o in zip(avals, outs):
            o = np.asarray(o)
            where = f"{prim.name}{tuple(aval_of(a) for a in args)} {params}"
            assert tuple(aval.shape) == o.shape, \
                f"{where}: abstract shape {aval.shape}, impl {o.shape}"
            assert np.dtype(aval.dtype) == o.dtype, \
                f"{where}: abstract dtype {aval.dtype}, impl {o.dtype}"


@pytest.mark.parametrize("case,dtype", ALL)
def test_abstract_eval_matches_impl(case, dtype):
    rng = _rng(case, dtype, salt=2)
    args = tuple(case.make_args(rng, dtype))
    with Recorder() as rec:
        case.fn(*args)
    names = [c[0].name for c in rec.calls]
    assert case.name in names, f"row {case.id} binds {names}, not {case.name!r}"
    _check_records(rec.calls)
    if case.differentiable:
        with Recorder() as rec:
            ftrans.jvp(case.fn, args, tangents_for(args, rng))
            out, vjp_fn = ftrans.vjp(case.fn, *args)
            vjp_fn(cotangent_for(out, rng))
        _check_records(rec.calls)


# ---------------------------------------------------------------------------------
# 4. 0-d and empty arrays
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("case,variant", VARIANTS)
def test_zero_d_and_empty(case, variant):
    fn = variant.fn or case.fn
    ref = variant.ref or case.ref
    for dtype in case.test_dtypes():
        rng = _rng(case, dtype, salt=3)
        args = tuple(case.make_args(rng, dtype, variant.args))
        with np.errstate(all="ignore"):
            want = ref(*[a.copy() for a in args])
        out = fn(*args)
        assert_values(out, want, dtype)
        if not case.differentiable:
            continue
        out_j, t = ftrans.jvp(fn, args, tangents_for(args, rng))
        out_j, t = np.asarray(out_j), np.asarray(t)
        assert out_j.shape == np.shape(want)
        assert t.shape == out_j.shape
        assert t.dtype == (out_j.dtype if inexact(out_j) else float0)
        out_v, vjp_fn = ftrans.vjp(fn, *args)
        cts = vjp_fn(cotangent_for(out_v, rng))
        for a, g in zip(args, cts):
            g = np.asarray(g)
            assert g.shape == a.shape, f"cotangent shape {g.shape} for an input of shape {a.shape}"
            assert g.dtype == (a.dtype if inexact(a) else float0)
        if out_j.shape == () and out_j.dtype.kind == "f" and len(args) == 1 and inexact(args[0]):
            g = ftrans.grad(fn)(args[0])  # a scalar output: grad runs too, equal to the VJP of 1
            (g1,) = vjp_fn(np.ones((), out_j.dtype))
            assert g.shape == args[0].shape and g.dtype == args[0].dtype
            np.testing.assert_array_equal(g, g1)
        if case.fd and inexact(out_j):
            # values of the derivatives (zeros where the output is empty) against FD
            check_grads_inexact(fn, args, order=2, modes=("fwd", "rev"), seed=SEED)
        if case.fd and out_j.size == 0 and inexact(out_j):
            for a, g in zip(args, cts):
                assert not np.any(np.asarray(g)), "an empty output must give zero cotangents"


# ---------------------------------------------------------------------------------
# non-differentiable primitives: constants for every transform
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("case,dtype", NONDIFF)
def test_nondifferentiable_output_is_constant(case, dtype):
    rng = _rng(case, dtype, salt=4)
    args = tuple(case.make_args(rng, dtype))
    out, t = ftrans.jvp(case.fn, args, tangents_for(args, rng))
    assert np.asarray(out).dtype.kind in "biu"
    assert t.dtype == float0 and t.shape == np.shape(out)
    out, vjp_fn = ftrans.vjp(case.fn, *args)
    for a, g in zip(args, vjp_fn(np.zeros(np.shape(out), np.asarray(out).dtype))):
        assert np.shape(g) == np.shape(a)
        if inexact(a):
            assert not np.any(g)
        else:
            assert np.asarray(g).dtype == float0

    # used inside a differentiable computation it contributes no derivative:
    # d/dz sum(float(pred(z, ...)) * z) = float(pred(z, ...))
    if case.kind == "other" or np.asarray(args[0]).dtype.kind != "f" \
            or not np.isfinite(args[0]).all():
        return
    x = args[0]

    def f(z):
        mask = P.convert_element_type(case.fn(z, *args[1:]), z.dtype)
        return P.reduce_sum(P.mul(mask, z), tuple(range(z.ndim)))
    g = ftrans.grad(f)(x)
    np.testing.assert_array_equal(g, np.asarray(case.fn(*args)).astype(x.dtype))
    assert g.dtype == x.dtype


# ---------------------------------------------------------------------------------
# stop_gradient: derivative 0 by definition (not checkable by finite differences)
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_stop_gradient_has_zero_derivative(dtype, rng):
    x = rand_like(np.ones((3, 4), dtype), rng)
    out, t = ftrans.jvp(P.stop_gradient, (x,), (rand_like(x, rng),))
    np.testing.assert_array_equal(out, x)
    assert t.dtype == x.dtype and t.shape == x.shape and not np.any(t)
    out, vjp_fn = ftrans.vjp(P.stop_gradient, x)
    (g,) = vjp_fn(rand_like(x, rng))
    assert g.dtype == x.dtype and g.shape == x.shape and not np.any(g)
    # inside a larger expression only the other path contributes: d/dx [x * sg(x)] = sg(x)
    if x.dtype.kind == "f":
        g = ftrans.grad(lambda z: P.reduce_sum(P.mul(z, P.stop_gradient(z)), (0, 1)))(x)
        np.testing.assert_allclose(g, x, rtol=1e-6)
        assert g.dtype == x.dtype


# ---------------------------------------------------------------------------------
# stop_backward: cut from reverse mode, not from forward mode (torch.no_grad's semantics)
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_stop_backward_cuts_reverse_mode_only(dtype, rng):
    x = rand_like(np.ones((3, 4), dtype), rng)
    t = rand_like(x, rng)
    out, t_out = ftrans.jvp(P.stop_backward, (x,), (t,))
    np.testing.assert_array_equal(out, x)
    np.testing.assert_array_equal(t_out, t)          # the tangent passes unchanged
    assert t_out.dtype == x.dtype
    out, vjp_fn = ftrans.vjp(P.stop_backward, x)
    (g,) = vjp_fn(rand_like(x, rng))
    assert g.dtype == x.dtype and g.shape == x.shape and not np.any(g)


def test_stop_backward_nested_as_torch_no_grad():
    """f(x) = sum(sb(x*x) * x).  The expected matrices are PyTorch's for the same
    function with ``x * x`` under ``torch.no_grad()`` (torch.func 2.13): reverse-mode
    levels see sb(x*x) as a constant, forward-mode levels differentiate through it."""
    x = np.array([1.0, 2.0, -0.5])

    def f(z):
        return P.reduce_sum(P.mul(P.stop_backward(P.mul(z, z)), z), (0,))
    np.testing.assert_allclose(ftrans.grad(f)(x), x * x)
    np.testing.assert_allclose(ftrans.jacfwd(f)(x), 3 * x * x)
    np.testing.assert_allclose(ftrans.jacfwd(ftrans.jacrev(f))(x), np.diag(2 * x))
    np.testing.assert_allclose(ftrans.jacrev(ftrans.jacfwd(f))(x), np.diag(2 * x))
    np.testing.assert_allclose(ftrans.jacfwd(ftrans.jacfwd(f))(x), np.diag(6 * x))
    np.testing.assert_allclose(ftrans.jacrev(ftrans.jacrev(f))(x), np.zeros((3, 3)))
    np.testing.assert_allclose(ftrans.jit(ftrans.grad(f))(x), x * x)
    np.testing.assert_allclose(ftrans.vmap(ftrans.grad(f))(np.stack([x, 2 * x])),
                               np.stack([x * x, 4 * x * x]))
