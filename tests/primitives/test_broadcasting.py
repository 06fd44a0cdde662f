"""Broadcasting, Python scalars and mixed dtypes for the binary and ternary elementwise
primitives (rows of ``prim_cases.py`` with kind "binary"/"ternary").

For each: values against NumPy (shape and NEP 50 dtype), and for the differentiable
ones ``check_grads`` (order 2, both modes) and the JVP/VJP transpose test, with
cotangents summed back to each operand's shape and dtype.
"""
from __future__ import annotations

import numpy as np
import pytest

import ftrans
from ftrans.core import float0
import ftrans.primitives as P

from prim_cases import BINARY_ELEMENTWISE, TERNARY_ELEMENTWISE, F64, F32, C128, Arg, CASES
from prim_helpers import (inexact, assert_values, inner_tol, jvp_vjp_inner,
                          check_grads_inexact)

SEED = 99

BINARY_SHAPES = [((3, 1), (4,)), ((4,), (3, 1)), ((), (2, 3)), ((2, 3), ()),
                 ((2, 1, 3), (4, 1)), ((1,), (3,)), ((0, 1), (3,)), ((2, 0), (1,))]
TERNARY_SHAPES = [((3, 1), (4,), ()), ((), (2, 3), (3,)), ((2, 1), (1, 3), (2, 3)),
                  ((4,), (2, 1), (1,)), ((0, 1), (1, 2), ())]


def _rng(*key):
    return np.random.default_rng([SEED, *[sum(map(ord, str(k))) for k in key]])


def _dtypes(case):
    return [F64, F32] + ([C128] if case.complex else [])


def _check_derivatives(fn, args, case):
    if not case.differentiable:
        return
    args = tuple(args)
    lhs, rhs, out, jv, jhu, v, u = jvp_vjp_inner(fn, args, _rng("inner", case.id))
    scale = max(1.0, abs(lhs), abs(rhs))
    assert abs(lhs - rhs) <= inner_tol(args, out) * scale, (lhs, rhs)
    for a, g in zip(args, jhu):
        g = np.asarray(g)
        assert g.shape == np.shape(a), "cotangent not summed back to the operand's shape"
        assert g.dtype == (np.asarray(a).dtype if inexact(a) else float0)
    assert np.shape(jv) == np.shape(out)
    check_grads_inexact(fn, args, order=2, modes=("fwd", "rev"), seed=SEED)


def _make(case, shapes, dtype, rng):
    return [a.with_shape(s).make(rng, dtype) for a, s in zip(case.args, shapes)]


# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("shapes", BINARY_SHAPES, ids=str)
@pytest.mark.parametrize("case", BINARY_ELEMENTWISE, ids=lambda c: c.id)
def test_binary_broadcasting(case, shapes):
    for dtype in _dtypes(case):
        args = _make(case, shapes, dtype, _rng(case.id, shapes, dtype))
        with np.errstate(all="ignore"):
            want = case.ref(*args)
        out = case.fn(*args)
        assert_values(out, want, dtype)
        _check_derivatives(case.fn, args, case)


@pytest.mark.parametrize("shapes", TERNARY_SHAPES, ids=str)
@pytest.mark.parametrize("case", TERNARY_ELEMENTWISE, ids=lambda c: c.id)
def test_ternary_broadcasting(case, shapes):
    for dtype in _dtypes(case):
        args = _make(case, shapes, dtype, _rng(case.id, shapes, dtype))
        out = case.fn(*args)
        assert_values(out, case.ref(*args), dtype)
        _check_derivatives(case.fn, args, case)


# ---------------------------------------------------------------------------------
# Python scalars are weak (NEP 50): float32 array op 0.5 stays float32
# ---------------------------------------------------------------------------------
def _scalar(arg, rng, dtype):
    v = arg.with_shape(()).make(rng, dtype)
    if arg.kind == "int":  # an integer operand (ldexp's exponent) stays a Python int
        return int(v)
    return complex(v) if np.dtype(dtype).kind == "c" else float(v)


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("case", BINARY_ELEMENTWISE, ids=lambda c: c.id)
def test_binary_python_scalar(case, side):
    if case.args[0 if side == "right" else 1].kind != "x":
        pytest.skip("the array operand would be an integer one (no tangent space)")
    for dtype in _dtypes(case):
        rng = _rng(case.id, side, dtype)
        x, y = _make(case, ((3, 4), (3, 4)), dtype, rng)
        if side == "right":
            s = _scalar(case.args[1], rng, dtype)

            def fn(a):
                return case.fn(a, s)

            def ref(a):
                return case.ref(a, s)
            arr = x
        else:
            s = _scalar(case.args[0], rng, dtype)

            def fn(b):
                return case.fn(s, b)

            def ref(b):
                return case.ref(s, b)
            arr = y
        with np.errstate(all="ignore"):
            want = ref(arr)
        out = fn(arr)
        assert_values(out, want, dtype)
        if np.asarray(want).dtype.kind in "fc":
            assert np.asarray(out).dtype == dtype, "a Python scalar must not change the dtype"
        _check_derivatives(fn, (arr,), case)


@pytest.mark.parametrize("case", TERNARY_ELEMENTWISE, ids=lambda c: c.id)
def test_select_python_scalars(case):
    for dtype in _dtypes(case):
        rng = _rng(case.id, "scalar", dtype)
        c, x, y = _make(case, ((3, 4), (3, 4), (3, 4)), dtype, rng)
        for fn, ref, arg in ((lambda a: P.where(c, a, 0.5), lambda a: np.where(c, a, 0.5), x),
                             (lambda b: P.where(c, -1.5, b), lambda b: np.where(c, -1.5, b), y)):
            out = fn(arg)
            assert_values(out, ref(arg), dtype)
            assert np.asarray(out).dtype == dtype
            _check_derivatives(fn, (arg,), case)
        # a Python bool condition
        assert_values(P.where(True, x, y), np.where(True, x, y), dtype)


# ---------------------------------------------------------------------------------
# mixed dtypes: NumPy promotion, cotangents in each primal's own dtype
# ---------------------------------------------------------------------------------
_MIXED = [(F32, F64), (F64, F32), (F32, C128), (C128, F32)]


@pytest.mark.parametrize("dtypes", _MIXED, ids=lambda d: f"{d[0].name}-{d[1].name}")
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow", "select",
                                  "dot_general", "concatenate", "maximum"])
def test_mixed_dtypes(name, dtypes):
    rows = [c for c in CASES if c.name == name]
    case = rows[0]
    if any(d.kind == "c" for d in dtypes) and not case.complex:
        pytest.skip(f"{name} is real-only")
    rng = _rng(name, dtypes)
    inexact_args = [a for a in case.args if a.kind == "x"]
    assert len(inexact_args) >= 2
    args, k = [], 0
    for a in case.args:
        if a.kind == "x" and k < 2:
            args.append(a.make(rng, dtypes[k]))
            k += 1
        else:
            args.append(a.make(rng, dtypes[0]))
    out = case.fn(*args)
    with np.errstate(all="ignore"):
        want = case.ref(*args)
    assert_values(out, want, np.result_type(*dtypes))
    _check_derivatives(case.fn, args, case)


def test_integer_operand_promotes_like_numpy():
    rng = _rng("int")
    x = rng.standard_normal((3, 4)).astype(np.float32)
    i = rng.integers(-3, 4, (4,)).astype(np.int32)
    out = P.mul(x, i)
    assert_values(out, np.multiply(x, i), None)  # float32 * int32 -> float64 in NumPy
    g = ftrans.grad(lambda a: P.reduce_sum(P.mul(a, i), (0, 1)))(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, np.broadcast_to(i, (3, 4)).astype(np.float32))
