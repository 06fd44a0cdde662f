"""The IR and the staging trace: recording, printing, evaluation, DCE, partition."""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans.core.ir import (stage, eval_ir, dce, partition, ConcretizationError, IR, Literal,
                            StagingTracer)


def test_stage_records_one_equation_per_primitive_with_avals():
    ir, lifted = stage(lambda x, y: fnp.sum(fnp.tanh(x @ y) ** 2),
                       [np.ones((2, 3)), np.ones(3, np.float32)])
    assert lifted == []
    assert [e.prim.name for e in ir.eqns] == ["dot_general", "tanh", "integer_pow", "reduce_sum"]
    assert [v.aval.shape for v in ir.in_vars] == [(2, 3), (3,)]
    assert ir.out_avals[0].shape == () and ir.out_avals[0].dtype == np.float64
    text = str(ir)
    assert text.splitlines()[0] == "ir(a:f64[2,3], b:f32[3]) {"
    assert "tanh" in text and text.endswith("return f\n}")


def test_literals_stay_weak_and_consts_are_bound():
    w = np.arange(3.0)
    ir, _ = stage(lambda x: x * 2.0 + w, [np.ones(3, np.float32)])
    mul = ir.eqns[0]
    assert type(mul.inputs[1]) is Literal and mul.inputs[1].val == 2.0
    assert len(ir.const_vars) == 1  # the program holds a snapshot of w (as JAX does)
    assert ir.consts[0] is not w and not np.may_share_memory(ir.consts[0], w)
    np.testing.assert_array_equal(ir.consts[0], w)
    assert ir.out_avals[0].dtype == np.float64  # float32 + float64 array promotes
    x = np.linspace(0, 1, 3, dtype=np.float32)
    np.testing.assert_array_equal(eval_ir(ir, x)[0], x * 2.0 + w)


def test_eval_matches_eager_under_transforms():
    f = lambda x: fnp.sum(fnp.sin(x) * x)
    ir, _ = stage(lambda x: ftrans.vmap(ftrans.grad(f))(x), [np.ones((4, 3))])
    x = np.linspace(0, 1, 12).reshape(4, 3)
    expected = np.sin(x) + x * np.cos(x)  # d/dx sum(sin(x) x)
    np.testing.assert_allclose(eval_ir(ir, x)[0], expected, rtol=1e-14)
    # the program itself can be differentiated by evaluating it under a transform
    g = ftrans.grad(lambda x: fnp.sum(eval_ir(ir, x)[0]))(x)
    np.testing.assert_allclose(g, 2 * np.cos(x) - x * np.sin(x), rtol=1e-13)


def test_concretization_error_names_the_line_and_the_remedies():
    def f(x):
        if x.sum() > 0:  # Python control flow on a staged value
            return x
        return -x
    with pytest.raises(ConcretizationError) as info:
        stage(f, [np.ones(3)])
    msg = str(info.value)
    assert isinstance(info.value, TypeError)
    assert "test_core_ir.py" in msg and "in f()" in msg
    assert "static_argnums" in msg and "ftrans.lax.cond" in msg and "while_loop" in msg
    for conv in (float, int):
        with pytest.raises(ConcretizationError, match=conv.__name__):
            stage(lambda x: conv(x), [np.ones(())])


def test_escaped_staging_tracer():
    box = []
    stage(lambda x: box.append(x) or x, [np.ones(2)])
    assert isinstance(box[0], StagingTracer)
    with pytest.raises(ftrans.EscapedTracerError):
        fnp.sin(box[0])


def test_outer_tracers_are_lifted_to_inputs():
    seen = {}

    def outer(y):
        ir, lifted = stage(lambda x: x * y, [np.ones(3)])
        seen["ir"] = ir
        assert len(lifted) == 1 and lifted[0] is y
        return fnp.sum(eval_ir(ir, *lifted, np.arange(3.0))[0])
    g = ftrans.grad(outer)(2.0)
    assert len(seen["ir"].in_vars) == 2
    assert g == pytest.approx(3.0)  # d/dy sum(arange(3) * y)


def test_dce_drops_unused_equations():
    ir, _ = stage(lambda x: (fnp.sin(x), fnp.cos(x) * 3.0), [np.ones(2)])
    small = dce(ir, [True, False])
    assert [e.prim.name for e in small.eqns] == ["sin"]
    assert len(small.out_vars) == 1


def test_partition_splits_forward_and_backward():
    f = lambda x: fnp.sum(fnp.sin(x) * fnp.tanh(x))

    def joint(x, ct):
        out, pull = ftrans.vjp(f, x)
        return [out] + list(pull(ct))
    x = np.linspace(-1, 1, 5)
    ir, _ = stage(joint, [x, np.ones(())])
    known, unknown, out_unknown, nres = partition(ir, [False, True])
    assert out_unknown == [False, True] and nres >= 1
    # the forward program reads no cotangent; the backward program computes no sin/tanh
    assert {e.prim.name for e in unknown.eqns}.isdisjoint({"sin", "tanh", "cos"})
    fwd = eval_ir(known, x)
    (g,) = eval_ir(unknown, *fwd[1:], np.ones(()))
    np.testing.assert_allclose(fwd[0], np.sum(np.sin(x) * np.tanh(x)), rtol=1e-15)
    np.testing.assert_allclose(
        g, np.cos(x) * np.tanh(x) + np.sin(x) * (1 - np.tanh(x) ** 2), rtol=1e-14)
