"""``jit(f) == f`` for every primitive, driven from the primitive table.

For every row of ``tests/primitives/prim_cases.py``:

* values: ``jit(fn)(*args)`` equals the eager ``fn(*args)`` (the eager function is
  itself checked against NumPy in tests/primitives) -- same pytree, shapes and dtypes,
  values to rounding -- for every dtype of the row, and for the row's 0-d and empty
  variants in float64;
* derivatives: ``check_grads`` of ``jit(fn)`` (order 2, forward and reverse mode, central
  differences) for one row per primitive, in float64 (the row's first dtype when it has
  no float64).  This runs the jit primitive's JVP rule, its partitioned forward/backward
  programs and, at order 2, the rules applied to those programs.

The programs run on the compiler's reference executor (``FTRANS_COMPILER=reference``:
each equation's impl): what is tested here is staging and the jit primitive's rules,
and compiling the thousand-odd programs these checks stage (every JVP'd, partitioned
and batched variant) would cost minutes of numba compile time per run.  That the
compiled code equals the reference executor is tested per primitive by
tests/compiler (the whole table in a few large programs, float64 and float32), and
tests/transforms/test_jit.py and test_jit_compositions.py run compiled programs
forward and backward.
"""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                                "primitives"))

import ftrans  # noqa: E402
from ftrans.core import all_primitives  # noqa: E402

from prim_cases import CASES, F64  # noqa: E402
from prim_helpers import check_grads_inexact  # noqa: E402

SEED = 4321


@pytest.fixture(autouse=True)
def _reference_executor(monkeypatch):
    monkeypatch.setenv("FTRANS_COMPILER", "reference")


def _rng(case, dtype, salt=0):
    key = sum(map(ord, case.id + dtype.name)) * 7919 + salt
    return np.random.default_rng(SEED + key)


def _assert_same(got, want, dtype):
    g_leaves, g_tree = ftrans.tree_util.tree_flatten(got)
    w_leaves, w_tree = ftrans.tree_util.tree_flatten(want)
    assert g_tree == w_tree, f"jit changed the output structure: {g_tree} vs {w_tree}"
    for g, w in zip(g_leaves, w_leaves):
        assert isinstance(g, np.ndarray), f"jit returned a {type(g).__name__}, not an array"
        w = np.asarray(w)
        assert g.shape == w.shape, f"shape {g.shape}, eager gives {w.shape}"
        assert g.dtype == w.dtype, f"dtype {g.dtype}, eager gives {w.dtype}"
        if w.dtype.kind in "fc":
            low = np.finfo(w.dtype).dtype == np.float32
            np.testing.assert_allclose(g, w, rtol=1e-5 if low else 1e-12,
                                       atol=1e-6 if low else 1e-13, equal_nan=True)
        else:
            np.testing.assert_array_equal(g, w)


VALUES = [pytest.param(c, d, id=f"{c.id}-{d.name}") for c in CASES for d in c.test_dtypes()]
VARIANTS = [pytest.param(c, v, id=f"{c.id}-{v.label}") for c in CASES
            for v in c.all_variants() if F64 in c.test_dtypes()]


def _one_per_primitive():
    out, seen = [], set()
    for c in CASES:
        if c.name in seen or not (c.differentiable and c.fd):
            continue
        seen.add(c.name)
        dtypes = c.test_dtypes()
        out.append(pytest.param(c, F64 if F64 in dtypes else dtypes[0], id=c.id))
    return out


GRADS = _one_per_primitive()


def test_every_differentiable_primitive_is_checked_through_jit():
    diff = {n for n, p in all_primitives().items() if p.differentiable}
    diff -= {c.name for c in CASES if not c.fd}  # stop_gradient: derivative 0 by definition
    checked = {p.values[0].name for p in GRADS}
    assert diff <= checked, f"no jit derivative check for {sorted(diff - checked)}"


@pytest.mark.parametrize("case,dtype", VALUES)
def test_jit_values_equal_eager(case, dtype):
    args = case.make_args(_rng(case, dtype), dtype)
    with np.errstate(all="ignore"):
        want = case.fn(*args)
        got = ftrans.jit(case.fn)(*args)
    _assert_same(got, want, dtype)


@pytest.mark.parametrize("case,variant", VARIANTS)
def test_jit_values_equal_eager_0d_and_empty(case, variant):
    fn = variant.fn or case.fn
    args = case.make_args(_rng(case, F64), F64, variant.args)
    with np.errstate(all="ignore"):
        want = fn(*args)
        got = ftrans.jit(fn)(*args)
    _assert_same(got, want, F64)


@pytest.mark.parametrize("case,dtype", GRADS)
def test_jit_check_grads(case, dtype):
    args = case.make_args(_rng(case, dtype, salt=1), dtype)
    out = np.asarray(case.fn(*args))
    if out.dtype.kind not in "fc":
        pytest.skip("integer output: no tangent space to compare with finite differences")
    check_grads_inexact(ftrans.jit(case.fn), args, order=case.order,
                        modes=getattr(case, "modes", ("fwd", "rev")),
                        seed=SEED)
