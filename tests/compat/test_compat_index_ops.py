"""Differential tests of compat's indexing, scatter and view-copy operations against PyTorch
(values, dtypes, gradients, second derivatives, node names and error types)."""
from __future__ import annotations

import numpy as np
import pytest

from compat_diff import assert_same, needs_torch

pytestmark = needs_torch

_rng = np.random.default_rng(7)
X = _rng.standard_normal((3, 4))
S = _rng.standard_normal((3, 4))
XT = np.array([[1.0, 3.0, 3.0, 0.5], [3.0, 1.0, 2.0, 3.0], [0.0, 2.0, 2.0, 1.0]])  # ties
I2 = np.array([[0, 1, 2, 0], [2, 2, 1, 1]])


def _grads(T, f, *arrays, create_graph=False):
    """``f``'s value and the gradients of a weighted sum of it w.r.t. every array."""
    ts = [T.tensor(a, requires_grad=True) for a in arrays]
    y = f(T, *ts)
    w = T.tensor(np.linspace(-1.0, 2.0, int(np.prod(tuple(y.shape)))).reshape(tuple(y.shape)))
    gs = T.autograd.grad((y * w).sum(), ts, allow_unused=True, create_graph=create_graph)
    gs = [T.zeros_like(t) if g is None else g for t, g in zip(ts, gs)]
    if create_graph:
        gg = T.autograd.grad(sum((g * g).sum() for g in gs), ts, allow_unused=True)
        gs += [T.zeros_like(t) if g is None else g for t, g in zip(ts, gg)]
    return (y, *gs)


def L(T, a):
    return T.tensor(np.asarray(a), dtype=T.int64)


CASES = {
    "scatter_src": lambda T: _grads(T, lambda T, x, s: T.scatter(x, 0, L(T, I2), s), X, S[:2]),
    "scatter_value": lambda T: _grads(T, lambda T, x: T.scatter(x, 1, L(T, [[1], [3], [0]]), 2.5),
                                      X),
    "scatter_reduce_add": lambda T: (T.scatter(T.tensor(X), 0, L(T, I2), T.tensor(S),
                                               reduce="add"),),
    "scatter_reduce_multiply": lambda T: (T.scatter(T.tensor(X), 0, L(T, I2), T.tensor(S),
                                                    reduce="multiply"),),
    "scatter_add": lambda T: _grads(T, lambda T, x, s: T.scatter_add(x, 0, L(T, I2), s), X,
                                    S[:2]),
    "scatter_add_0d": lambda T: _grads(T, lambda T, x, s: T.scatter_add(x, 0, L(T, 0), s),
                                       np.array(1.5), np.array(2.0)),
    "index_add_alpha": lambda T: _grads(T, lambda T, x, s: T.index_add(x, 1, L(T, [0, 3, 0]),
                                                                       s[:, :3], alpha=-2.0),
                                        X, S),
    "index_copy": lambda T: _grads(T, lambda T, x, s: T.index_copy(x, 0, L(T, [2, 0]), s[:2]),
                                   X, S),
    "index_fill_tensor": lambda T: _grads(T, lambda T, x, v: T.index_fill(x, 1, L(T, [1, 3]), v),
                                          X, np.array(0.25)),
    "index_put_accumulate": lambda T: _grads(
        T, lambda T, x, v: T.index_put(x, (L(T, [0, 0, 2]), L(T, [1, 1, 3])), v,
                                       accumulate=True), X, S[0, :3]),
    "index_put_bool": lambda T: _grads(
        T, lambda T, x, v: T.index_put(x, (T.tensor([True, False, True]),), v), X, S[0]),
    "put_accumulate": lambda T: _grads(T, lambda T, x, s: T.put(x, L(T, [[0, 11], [-1, 0]]),
                                                                s[:2, :2], accumulate=True),
                                       X, S),
    "take": lambda T: _grads(T, lambda T, x: T.take(x, L(T, [[0, -1], [5, 5]])), X),
    "take_along_dim": lambda T: _grads(T, lambda T, x: T.take_along_dim(x, L(T, [[0, 2, 1, 0]]),
                                                                        0), X),
    "take_along_dim_none": lambda T: _grads(T, lambda T, x: T.take_along_dim(x, L(T, [3, 0, 3])),
                                            X),
    "masked_scatter": lambda T: _grads(T, lambda T, x, s: T.masked_scatter(
        x, T.tensor([True, False, True, True]), s), X, S),
    "masked_select_bcast": lambda T: _grads(T, lambda T, x: T.masked_select(
        x[:1], T.tensor(X > 0)), X),
    "nonzero": lambda T: (T.nonzero(T.tensor(X > 0)), T.argwhere(T.tensor(X > 0)),
                          *T.nonzero(T.tensor(X > 0), as_tuple=True),
                          T.nonzero_static(T.tensor(X > 0), size=8, fill_value=-3)),
    "repeat_interleave": lambda T: _grads(T, lambda T, x: T.repeat_interleave(
        x, L(T, [2, 0, 1]), dim=0) * 1.0 + 0 * T.repeat_interleave(x, 2).sum(), X),
    "repeat_interleave_int": lambda T: (T.repeat_interleave(L(T, [1, 0, 3])),),
    "as_strided": lambda T: _grads(T, lambda T, x: T.as_strided(x, (3, 3), (1, 2), 1), X),
    "as_strided_copy": lambda T: _grads(T, lambda T, x: T.as_strided_copy(x, (2, 2), (4, 1)), X),
    "unfold": lambda T: _grads(T, lambda T, x: x.unfold(1, 2, 1) ** 2, X),
    "expand_copy": lambda T: _grads(T, lambda T, x: T.expand_copy(x[1:2], (2, 3, 4)), X),
    "diagonal_copy": lambda T: _grads(T, lambda T, x: T.diagonal_copy(x, 1), X),
    "unbind_copy": lambda T: _grads(T, lambda T, x: T.stack(T.unbind_copy(x, 1)) * 1.0, X),
    "split_with_sizes_copy": lambda T: _grads(
        T, lambda T, x: T.split_with_sizes_copy(x, [1, 3], 1)[1] * 1.0, X),
    "slice_scatter": lambda T: _grads(T, lambda T, x, s: T.slice_scatter(x, s[:, :2], 1, 0, 4, 2),
                                      X, S),
    "diagonal_scatter": lambda T: _grads(T, lambda T, x, s: T.diagonal_scatter(x, s[0, :3]),
                                         X, S),
    "select_scatter": lambda T: _grads(T, lambda T, x, s: T.select_scatter(x, s[1], 0, -1), X, S),
    "select_scatter_other_dtype": lambda T: _grads(
        T, lambda T, x, s: T.select_scatter(x, s[1].to(T.float32), 0, 1), X, S),
    "empty_and_0d": lambda T: (
        T.index_add(T.ones(3, 4), 0, L(T, []), T.ones(0, 4)), T.take(T.ones(3, 4), L(T, [])),
        T.index_fill(T.tensor(1.0), 0, L(T, 0), 5.0), T.scatter(T.tensor(1.0), 0, L(T, 0),
                                                                T.tensor(5.0)),
        T.masked_scatter(T.tensor(1.0), T.tensor(True), T.tensor([7.0, 8.0])),
        T.masked_select(T.tensor(1.0), T.tensor(True)), T.ones(3, 4).unfold(1, 0, 1),
        *T.nonzero(T.tensor(3.0), as_tuple=True), T.nonzero(T.tensor(0.0)),
        T.repeat_interleave(T.ones(3, 2), L(T, [0, 0, 0]), dim=0),
        T.as_strided(T.tensor(3.0), (2,), (0,)),
        T.scatter_reduce(L(T, [5, 7, 3]), 0, L(T, [0, 0, 2]), L(T, [2, 3, 9]), "mean",
                         include_self=False),
        T.index_add(L(T, [0, 0, 0]), 0, L(T, [0]), L(T, [2]), alpha=1.5),
        T.scatter_add(T.zeros(3), 0, T.tensor([0, 0], dtype=T.int32), T.ones(2)),
        T.repeat_interleave(T.tensor([1, 2, 0], dtype=T.int32))),
    "chunk_cat": lambda T: (T._chunk_cat([T.tensor(X), T.tensor(S[:, :3])], 1, 2),),
}
for _r in ("sum", "prod", "mean", "amax", "amin"):
    for _inc in (True, False):
        CASES[f"scatter_reduce_{_r}_{_inc}"] = (
            lambda r, inc: lambda T: _grads(T, lambda T, x, s: T.scatter_reduce(
                x, 0, L(T, I2), s, r, include_self=inc), XT, XT[1::-1].copy()))(_r, _inc)
        if _r != "sum":
            CASES[f"index_reduce_{_r}_{_inc}"] = (
                lambda r, inc: lambda T: _grads(T, lambda T, x, s: T.index_reduce(
                    x, 1, L(T, [0, 2, 0]), s[:, :3], r, include_self=inc), XT,
                    XT[::-1].copy()))(_r, _inc)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients(name):
    assert_same(CASES[name], rtol=1e-6, atol=1e-8)


SECOND = {
    "scatter_reduce_prod": lambda T, x, s: T.scatter_reduce(x, 0, L(T, I2), s[:2], "prod"),
    "index_add": lambda T, x, s: T.index_add(x, 0, L(T, [1, 1]), s[:2] * s[:2]),
    "masked_scatter": lambda T, x, s: T.masked_scatter(x * x, T.tensor(X > 0), s),
    "as_strided": lambda T, x, s: T.as_strided(x * s, (2, 2), (1, 2)) ** 2,
}


@pytest.mark.parametrize("name", sorted(SECOND))
def test_second_derivatives(name):
    assert_same(lambda T: _grads(T, SECOND[name], X, S, create_graph=True), rtol=1e-6,
                atol=1e-8)


def _inplace_chain(T):
    x = T.tensor(X, requires_grad=True)
    s = T.tensor(S, requires_grad=True)
    y = x * 2
    y.scatter_(0, L(T, I2), s[:2])
    y.index_add_(1, L(T, [0, 0]), s[:, :2], alpha=2)
    y.masked_scatter_(T.tensor(X > 0), s)
    y.index_put_((L(T, [0, 1]),), s[0, 0], accumulate=True)
    y.index_fill_(0, L(T, [2]), -1.0)
    y.put_(L(T, [0, 5]), s[0, :2])
    y.index_copy_(0, L(T, [1]), s[:1])
    y.scatter_add_(1, L(T, [[1], [2], [3]]), s[:, :1])
    y.scatter_reduce_(0, L(T, I2), s[:2], "amin")
    return (y, *T.autograd.grad((y ** 2).sum(), (x, s)))


def test_inplace_methods():
    assert_same(_inplace_chain, rtol=1e-6, atol=1e-8)


def test_views_write_through():
    def f(T):
        x = T.arange(12.0).reshape(3, 4)
        T.as_strided(x, (2,), (5,)).mul_(10)
        x.unfold(1, 2, 2)[0, 1].add_(100)
        return (x,)
    assert_same(f)


def test_as_strided_inplace():
    def f(T):
        b = T.arange(10.0, dtype=T.float64).requires_grad_()
        x = b * 1
        x.as_strided_((2, 2), (1, 3))
        (x * T.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=T.float64)).sum().backward()
        return (x, b.grad, type(x.grad_fn).__name__)
    assert_same(f)


def test_as_strided_overlap_check_agrees_with_counting():
    """``as_strided``'s writeability test (no storage position read twice) by strides
    agrees with counting the distinct positions, on random sizes and strides."""
    from ftrans.compat._index_ops2 import _distinct
    rng = np.random.default_rng(0)
    for _ in range(2000):
        size = tuple(int(n) for n in rng.integers(0, 5, rng.integers(0, 4)))
        stride = tuple(int(s) for s in rng.integers(0, 13, len(size)))
        pos = sum((np.indices(size)[k] * s for k, s in enumerate(stride)),
                  np.zeros(size, np.int64))
        assert _distinct(size, stride, pos) == (np.unique(pos).size == pos.size), (size, stride)


def test_partial_view_storage():
    def f(T):
        base = T.tensor(X.reshape(-1), requires_grad=True)
        y = T.as_strided(base[5:9], (2, 2), (1, 2), 3)
        return (y, *T.autograd.grad((y * y).sum(), base))
    assert_same(f)


def test_node_names():
    def f(T):
        x = T.tensor(X, requires_grad=True)
        ys = [T.scatter(x, 0, L(T, I2), x), T.scatter(x, 0, L(T, I2), 1.0),
              T.scatter_add(x, 0, L(T, I2), x), T.scatter_reduce(x, 0, L(T, I2), x, "amax"),
              T.index_add(x, 0, L(T, [0]), x[:1]), T.index_fill(x, 0, L(T, [0]), 1.0),
              T.masked_select(x, x > 0), T.take(x, L(T, [0])), T.put(x, L(T, [0]), x[0, :1]),
              T.as_strided(x, (2,), (1,)), x.unfold(0, 2, 1), T.expand_copy(x, (2, 3, 4)),
              T.narrow_copy(x, 0, 0, 1), T.slice_scatter(x, x[:1] * 1, 0, 0, 1)]
        return [type(y.grad_fn).__name__ for y in ys]
    assert_same(f)


ERRORS = {
    "scatter_oob": lambda T: T.scatter(T.zeros(3, 4), 0, L(T, [[5]]), T.zeros(3, 4)),
    "scatter_neg": lambda T: T.scatter(T.zeros(3, 4), 0, L(T, [[-1]]), T.zeros(3, 4)),
    "scatter_dtype": lambda T: T.scatter(T.zeros(3, 4), 0, L(T, [[1]]),
                                         T.zeros(3, 4, dtype=T.float64)),
    "scatter_shape": lambda T: T.scatter(T.zeros(3, 4), 0, T.zeros(4, 4, dtype=T.int64),
                                         T.zeros(3, 4)),
    "scatter_ndim": lambda T: T.scatter(T.zeros(3, 4), 0, L(T, [1]), T.zeros(3, 4)),
    "scatter_float_index": lambda T: T.scatter(T.zeros(3, 4), 0, T.zeros(1, 1), 1.0),
    "scatter_reduce_name": lambda T: T.scatter_reduce(T.zeros(3), 0, L(T, [1]), T.zeros(3),
                                                      "foo"),
    "index_add_oob": lambda T: T.index_add(T.zeros(3, 4), 0, L(T, [5]), T.zeros(1, 4)),
    "index_add_count": lambda T: T.index_add(T.zeros(3, 4), 0, L(T, [1]), T.zeros(2, 4)),
    "index_copy_oob": lambda T: T.index_copy(T.zeros(3, 4), 0, L(T, [-1]), T.zeros(1, 4)),
    "index_fill_oob": lambda T: T.index_fill(T.zeros(3, 4), 0, L(T, [3]), 1.0),
    "index_put_oob": lambda T: T.index_put(T.zeros(3, 4), (L(T, [5]),), T.tensor(1.0)),
    "take_oob": lambda T: T.take(T.zeros(3, 4), L(T, [12])),
    "put_oob": lambda T: T.put(T.zeros(3, 4), L(T, [-13]), T.zeros(1)),
    "masked_scatter_short": lambda T: T.masked_scatter(T.zeros(3), T.ones(3) > 0, T.zeros(2)),
    "masked_select_int_mask": lambda T: T.masked_select(T.zeros(3), L(T, [1, 0, 1])),
    "repeat_interleave_neg": lambda T: T.repeat_interleave(T.zeros(3), L(T, [1, -1, 1])),
    "unfold_size": lambda T: T.zeros(3).unfold(0, 4, 1),
    "unfold_step": lambda T: T.zeros(3).unfold(0, 2, 0),
    "as_strided_oob": lambda T: T.as_strided(T.zeros(4), (2, 2), (2, 2)),
    "slice_scatter_shape": lambda T: T.slice_scatter(T.zeros(3, 4), T.zeros(2, 4), 0, 0, 1),
    "narrow_copy_start": lambda T: T.narrow_copy(T.zeros(10), 0, 11, 0),
    "index_put_none": lambda T: T.index_put(T.zeros(3, 4), (None, L(T, [1])), T.tensor(1.0)),
    "take_float_index": lambda T: T.take(T.zeros(3), T.zeros(1)),
    "put_count": lambda T: T.put(T.zeros(3), L(T, [0, 1]), T.ones(1)),
    "index_copy_int32": lambda T: T.index_copy(T.zeros(3), 0, T.tensor([0], dtype=T.int32),
                                               T.ones(1)),
    "index_fill_int32": lambda T: T.index_fill(T.zeros(3), 0, T.tensor([0], dtype=T.int32), 1.0),
    "take_int32": lambda T: T.take(T.zeros(3), T.tensor([0], dtype=T.int32)),
    "take_along_dim_int32": lambda T: (T.take_along_dim(T.zeros(3), T.tensor([0], dtype=T.int32)),
                                       T.take_along_dim(T.zeros(3), T.tensor([0], dtype=T.int32),
                                                        0)),
    "scatter_reduce_amax_complex": lambda T: T.scatter_reduce(
        T.ones(2, dtype=T.complex128), 0, L(T, [0]), T.ones(1, dtype=T.complex128), "amax"),
    "index_reduce_amin_complex": lambda T: T.index_reduce(
        T.ones(2, dtype=T.complex128), 0, L(T, [0]), T.ones(1, dtype=T.complex128), "amin"),
    "scatter_reduce_mean_bool": lambda T: T.scatter_reduce(
        T.tensor([True, False]), 0, L(T, [1]), T.tensor([True]), "mean"),
    "take_along_dim_0d": lambda T: T.take_along_dim(T.tensor(1.0), L(T, 0), 0),
    "scatter_reduce_has_no_derivative": lambda T: T.scatter(
        T.ones(3, requires_grad=True), 0, L(T, [0]), 2.0, reduce="add").sum().backward(),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_types(name):
    assert_same(ERRORS[name])


def test_out_overlap():
    def f(T):
        src = T.rand(6)
        return T.take(src, L(T, [2, 1, 0]), out=src)
    assert_same(f)


def test_func_transforms():
    def f(T):
        x, s = T.tensor(X), T.tensor(S)
        loss = lambda x, s: (T.scatter_add(x, 0, L(T, I2), s[:2]).pow(2).sum()
                             + T.take(x, L(T, [1, 5])).sum())
        g = T.func.grad(loss, argnums=(0, 1))(x, s)
        v = T.func.vmap(lambda r: T.index_add(r, 0, L(T, [0, 0, 1]), r[:3] * 2))(x)
        j = T.func.jacrev(lambda r: T.select_scatter(x, r, 0, 1))(s[0])
        i = L(T, [[0, -1], [2, 0], [1, 1]])
        a = T.func.vmap(lambda i: T.take(x, i))(i)
        b = T.func.vmap(lambda r, k: T.take_along_dim(r, k, 0))(x, i)
        h = T.func.vmap(T.func.grad(lambda r, k: T.take(r, k).pow(2).sum()),
                        in_dims=(None, 0))(x, i)
        u = T.func.vmap(T.func.grad(lambda r: (r.unfold(0, 2, 1) ** 2).sum()))(x)
        m = T.func.vmap(lambda r, q: T.scatter_reduce(r, 0, L(T, [0, 0, 1]), q, "amax",
                                                      include_self=False))(x, s)
        w = T.func.vmap(lambda r: T.as_strided(r, (2, 2), (1, 2)))(x)
        return (*g, v, j, a, b, h, u, m, w)
    assert_same(f, rtol=1e-6, atol=1e-8)
