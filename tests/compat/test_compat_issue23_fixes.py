"""Regression tests for the wrong results and wrong errors listed in issue 23 (each against
PyTorch 2.13; skipped without it)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.compat.compat_diff import assert_same, needs_torch, torch

import ftrans.compat as fc

pytestmark = needs_torch


def _grad_of(T, f, *shapes, seed=0):
    """The values and gradients of ``f(*tensors).sum()`` at fixed float64 inputs."""
    rng = np.random.default_rng(seed)
    xs = [T.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]
    y = f(*xs)
    gs = T.autograd.grad(y.sum(), xs, allow_unused=True)
    return (y,) + tuple(gs)


# ------------------------------------------------------------------------------- item 1
def test_cosine_similarity_broadcasts_before_the_norms():
    assert_same(lambda T: _grad_of(
        T, lambda a, b: T.nn.functional.cosine_similarity(a, b, dim=-2), (1, 2, 3), (2, 1, 3)))


def test_flip_empty_dims_is_identity():
    assert_same(lambda T: T.flip(T.arange(6.).reshape(2, 3), dims=()))
    assert_same(lambda T: T.arange(6.).reshape(2, 3).flip([]))


def test_squeeze_empty_dims_removes_nothing():
    assert_same(lambda T: T.squeeze(T.zeros(1, 2, 1), ()).shape)


@pytest.mark.parametrize("fn", ["std", "var"])
def test_std_var_positional_unbiased(fn):
    assert_same(lambda T: getattr(T, fn)(T.arange(5.), True))
    assert_same(lambda T: getattr(T, fn)(T.arange(5.), False))
    assert_same(lambda T: getattr(T.arange(6.).reshape(2, 3), fn)(False))
    assert_same(lambda T: getattr(T, fn)(T.arange(6.).reshape(2, 3), 1, False, True))


def test_prelu_zero_dim():
    assert_same(lambda T: T.nn.functional.prelu(T.tensor(-2.0), T.tensor([0.25])))


def test_masked_fill_broadcasting_mask_gradient():
    def f(T):
        x = T.arange(5.).requires_grad_()
        m = T.eye(5, dtype=T.bool)
        y = x.masked_fill(m, 0.0)
        g, = T.autograd.grad(y.sum(), x)
        x2 = T.arange(5.).requires_grad_()
        T.masked_fill(x2, m, 1.0).sum().backward()
        return y, g, x2.grad
    assert_same(f)


@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_div_rounding_mode_in_graph_with_zero_gradient(mode):
    def f(T):
        a = T.tensor([3.5, -2.5], requires_grad=True)
        y = T.div(a, 2.0, rounding_mode=mode)
        g, = T.autograd.grad(y.sum(), a)
        return y, y.requires_grad, g
    assert_same(f)


def test_std_of_constant_has_zero_gradient():
    def f(T):
        x = T.ones(4, requires_grad=True)
        x.std().backward()
        return x.grad
    assert_same(f)


# ------------------------------------------------------------------------------- item 2
def test_hook_changing_size_raises():
    def f(T):
        x = T.ones(3, requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: g.expand(2, 3))
        y.sum().backward()
    assert_same(f, message="has changed the size of value")


def test_hook_changing_dtype_raises():
    def f(T):
        x = T.ones(3, dtype=T.float64, requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: g.float())
        y.sum().backward()
    assert_same(f, message="has changed the type of value (was torch.DoubleTensor got "
                           "torch.FloatTensor)")


# ------------------------------------------------------------------------------- item 3
@pytest.mark.parametrize("op", ["div_floor", "remainder", "fmod", "floor_divide", "div_trunc"])
def test_integer_division_by_zero(op):
    def f(T):
        a, b = T.tensor([3, 4]), T.tensor([1, 0])
        if op.startswith("div_"):
            return T.div(a, b, rounding_mode=op[4:])
        return getattr(T, op)(a, b)
    assert_same(f, message="ZeroDivisionError")


def test_dtype_as_string_is_a_type_error():
    assert_same(lambda T: T.ones(3, dtype="float32"))
    assert_same(lambda T: T.zeros(2, dtype="float64"))
    assert_same(lambda T: T.tensor([1.0], dtype="float32"))


@pytest.mark.parametrize("op", ["eq", "lt", "fmod", "add", "mul", "maximum", "atan2",
                                "remainder", "logical_and", "ne", "ge", "pow"])
def test_broadcast_mismatch_message(op):
    assert_same(lambda T: getattr(T, op)(T.ones(3), T.ones(4)),
                message="The size of tensor a (3) must match the size of tensor b (4) at "
                        "non-singleton dimension 0")


def test_where_broadcast_mismatch():
    assert_same(lambda T: T.where(T.ones(3) > 0, T.ones(3), T.ones(4)),
                message="must match the size of tensor")


# ------------------------------------------------------------------------------- item 4
@pytest.mark.parametrize("fn", ["atleast_1d", "atleast_2d", "atleast_3d"])
def test_atleast_with_a_list(fn):
    assert_same(lambda T: getattr(T, fn)([T.tensor(1.), T.ones(2)]))
    assert_same(lambda T: getattr(T, fn)((T.tensor(1.), T.ones(2, 2))))
    assert_same(lambda T: getattr(T, fn)(T.tensor(1.), T.ones(2)))


def test_gather_index_select_zero_dim_and_empty():
    assert_same(lambda T: _grad_of(T, lambda x: T.gather(x, 0, T.tensor(0)), ()))
    assert_same(lambda T: _grad_of(T, lambda x: T.index_select(x, 0, T.tensor([0])), ()))
    assert_same(lambda T: _grad_of(
        T, lambda x: T.gather(x, 1, T.zeros(3, 0, dtype=T.long)), (3, 4)))
    assert_same(lambda T: _grad_of(
        T, lambda x: T.index_select(x, 1, T.zeros(0, dtype=T.long)), (3, 4)))


def test_transpose_zero_dim():
    assert_same(lambda T: T.transpose(T.tensor(2.), 0, 0))
    assert_same(lambda T: T.tensor(2.).transpose(-1, 0))


def test_randint_high_size():
    assert_same(lambda T: (T.randint(10, (3, 2)).shape, T.randint(10, (3, 2)).dtype))
    assert_same(lambda T: T.randint(3, 10, (4,)).shape)
    assert_same(lambda T: T.randint(10, size=(2,)).shape)


def test_norm_p0_and_nuc():
    def p0(T):   # torch's gradient of the 0-"norm" is None, compat's is zero
        y, g = _grad_of(T, lambda x: T.norm(x, p=0), (3, 4))
        return y, y.requires_grad, T.zeros(3, 4, dtype=T.float64) if g is None else g
    assert_same(p0)
    assert_same(lambda T: T.norm(T.tensor([0., 1., 2.]), p=0, dim=0))
    assert_same(lambda T: _grad_of(T, lambda x: T.norm(x, 'nuc'), (3, 4)))
    assert_same(lambda T: _grad_of(
        T, lambda x: T.nn.functional.normalize(x, p=0, dim=1), (3, 4)))


def test_batch_norm_group_norm_empty_batch():
    def bn(T):
        x = T.zeros(0, 3, 4, requires_grad=True)
        y = T.nn.functional.batch_norm(x, T.zeros(3), T.ones(3), T.ones(3, requires_grad=True),
                                       T.zeros(3), training=True)
        return y
    assert_same(bn)
    assert_same(lambda T: T.nn.functional.group_norm(T.zeros(0, 4, 2), 2))
    assert_same(lambda T: T.nn.functional.batch_norm(T.zeros(0, 3), T.zeros(3), T.ones(3)))


def test_inner_zero_dim():
    assert_same(lambda T: _grad_of(T, lambda a, b: T.inner(a, b), (), (2, 3)))
    assert_same(lambda T: _grad_of(T, lambda a, b: T.inner(a, b), (2, 3), ()))


def test_cat_legacy_empty():
    assert_same(lambda T: _grad_of(T, lambda a, b: T.cat([a, b], 1), (0,), (2, 3)))
    assert_same(lambda T: T.cat([T.ones(2, 3), T.tensor([])]))


# ------------------------------------------------------------------------------- item 5
def test_next_functions_order_of_scalar_times_tensor():
    def f(T):
        b = T.ones(2, requires_grad=True)
        y = 2 * T.sin(b)
        return [(type(n).__name__ if n is not None else None, i)
                for n, i in y.grad_fn.next_functions]
    assert_same(f)


def test_backward_grad_tensors_count_message():
    x = fc.ones(2, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="got 1 tensors and 2 gradients"):
        fc.autograd.backward([y], grad_tensors=[fc.ones(2), fc.ones(2)])


@pytest.mark.parametrize("conv", ["float", "double", "to"])
def test_module_conversion_keeps_grad_objects(conv):
    def f(T):
        m = T.nn.Linear(2, 2)
        if conv == "float":
            m.double()
        m(T.ones(1, 2, dtype=next(m.parameters()).dtype)).sum().backward()
        g = m.weight.grad
        w = m.weight
        if conv == "float":
            m.float()
        elif conv == "double":
            m.double()
        else:
            m.to(T.float64)
        return (m.weight.grad is g, m.weight is w, str(g.dtype), str(m.weight.grad.dtype))
    assert_same(f)


# ------------------------------------------------- op_db error inputs of the functions above
@pytest.mark.parametrize("snippet", [
    lambda T: T.nn.functional.prelu(T.tensor(1.0), T.ones(2)),
    lambda T: T.nn.functional.prelu(T.ones(2, 8, 3), T.ones(9)),
    lambda T: T.nn.functional.prelu(T.ones(2, 8, 3), T.ones(2, 4)),
    lambda T: T.nn.functional.group_norm(T.ones(1), 1),
    lambda T: T.gather(T.ones(1, 1), 1, T.zeros(2, 2, dtype=T.long)),
    lambda T: T.gather(T.ones(2, 2), 1, T.zeros(2, dtype=T.long)),
    lambda T: T.gather(T.ones(2, 2), 1, T.full((2, 2), 23)),
    lambda T: T.masked_fill(T.ones(2, 2), T.tensor(True), T.ones(1)),
    lambda T: T.eq(2, T.ones(3)),
    lambda T: T.fmod(2, T.ones(3)),
    lambda T: T.remainder(2, 3),
    lambda T: T.logical_and(T.ones(3), 2),
])
def test_error_inputs(snippet):
    assert_same(snippet)


def test_flip_under_func_vjp():
    def f(T):
        x = T.arange(6.).reshape(2, 3)
        if T is torch:   # torch.func.vjp's first call costs seconds (dynamo): autograd
            x.requires_grad_()
            out = T.flip(x, (1,)) * x
            return out, T.autograd.grad(out, x, T.ones(2, 3))
        out, vjp_fn = T.func.vjp(lambda v: T.flip(v, (1,)) * v, x)
        return out, vjp_fn(T.ones(2, 3))
    assert_same(f)


def test_reflected_remainder_and_mul_still_work():
    assert_same(lambda T: (2 % T.tensor([3, 4]), 2.5 * T.ones(2), 1 + T.ones(2)))


@pytest.mark.parametrize("snippet", [
    lambda T: T.isclose(T.ones(3), T.ones(4)),
    lambda T: T.allclose(T.ones(3), T.ones(4)),
    lambda T: T.clamp(T.ones(3), T.ones(4)),
    lambda T: T.ones(3).masked_fill(T.ones(4) > 0, 1.0),
    lambda T: T.ones(3) // T.ones(4),
    lambda T: T.copysign(T.ones(3), T.ones(4)),
    lambda T: T.div(T.ones(3), T.ones(4), rounding_mode="floor"),
    lambda T: T.ones(3, dtype=T.long) & T.ones(4, dtype=T.long),
])
def test_more_broadcast_mismatches(snippet):
    r = assert_same(snippet, message="at non-singleton dimension 0")
    t = None
    try:
        snippet(torch)
    except RuntimeError as e:
        t = str(e)
    assert r[2] == t
