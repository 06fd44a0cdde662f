"""compat's random sampling (``torch.normal``, ``bernoulli``, ``multinomial``, ``poisson``,
the in-place samplers, ``rand``/``randn``/``randperm`` and the ``*_like`` factories)
against PyTorch: shapes, dtypes, graph nodes and error types exactly; the values
statistically (compat draws from its own generator, not PyTorch's stream)."""
from __future__ import annotations

import numpy as np
import pytest

import ftrans.compat as fc
from tests.compat.compat_diff import assert_same, needs_torch


def _meta(x):
    """What is compared of a random result: dtype, shape, node name."""
    return (str(x.dtype), tuple(x.shape), type(x.grad_fn).__name__ if x.grad_fn else None)


SNIPPETS = [
    lambda T: T.normal(T.zeros(2, 1), T.ones(3)),
    lambda T: T.normal(T.zeros(2, dtype=T.float64), T.ones(2)),
    lambda T: T.normal(T.zeros(3), 2.0),
    lambda T: T.normal(1.0, T.ones(2, dtype=T.float64)),
    lambda T: T.normal(0.0, 1.0, (2, 3)),
    lambda T: T.normal(0, 1, size=(2,), dtype=T.float64),
    lambda T: T.normal(mean=T.zeros(2), std=T.ones(2)),
    lambda T: T.normal(T.zeros(2)),
    lambda T: T.normal(T.zeros(3, requires_grad=True), T.ones(3, requires_grad=True)),
    lambda T: T.normal(T.zeros(3, requires_grad=True), 1.0),
    lambda T: T.normal(0.0, T.ones(3, requires_grad=True)),
    lambda T: T.bernoulli(T.full((3,), 0.5, requires_grad=True)),
    lambda T: T.bernoulli(T.zeros(3, dtype=T.float64), p=0.5),
    lambda T: T.zeros(3).bernoulli(0.3),
    lambda T: T.zeros(3, dtype=T.long).bernoulli_(0.5),
    lambda T: T.zeros(3).bernoulli_(T.full((3,), 0.5)),
    lambda T: T.poisson(T.ones(2, dtype=T.float64, requires_grad=True)),
    lambda T: T.multinomial(T.tensor([[1.0, 0, 3], [0, 1, 1]]), 2),
    lambda T: T.multinomial(T.tensor([1.0, 2, 3]), 6, True),
    lambda T: T.tensor([1.0, 2, 3]).multinomial(2),
    lambda T: T.zeros(2, 3).cauchy_(1.0, 2.0),
    lambda T: (T.ones(3, requires_grad=True) * 1).exponential_(),
    lambda T: T.zeros(2, dtype=T.long).geometric_(0.5),
    lambda T: T.zeros(4, dtype=T.float64).log_normal_(),
    lambda T: T.zeros(4).random_(),
    lambda T: T.zeros(4, dtype=T.uint8).random_(),
    lambda T: T.zeros(4).random_(5),
    lambda T: T.zeros(4).random_(-3, 2),
    lambda T: T.zeros(4, dtype=T.bool).random_(),
    lambda T: T.rand(2, 3, generator=T.Generator()),
    lambda T: T.rand((2, 3)),
    lambda T: T.rand([]),
    lambda T: T.rand(size=(2,)),
    lambda T: T.rand(2, dtype=T.complex64),
    lambda T: T.randn(size=(2,), dtype=T.complex64),
    lambda T: T.randperm(3, dtype=T.float32),
    lambda T: T.randperm(4, generator=T.Generator()),
    lambda T: T.rand_like(T.zeros(2), generator=T.Generator()),
    lambda T: T.randn_like(T.zeros(2, dtype=T.float64)),
    lambda T: T.randint_like(T.zeros(2), 5, generator=T.Generator()),
]


@needs_torch
@pytest.mark.parametrize("i", range(len(SNIPPETS)))
def test_shapes_dtypes_nodes(i):
    assert_same(lambda T: _meta(SNIPPETS[i](T)))


ERRORS = [
    lambda T: T.normal(T.tensor([1, 2]), 1.0),
    lambda T: T.normal(T.zeros(3), -1.0),
    lambda T: T.normal(T.zeros(3), T.tensor([1.0, -1, 1])),
    lambda T: T.normal(T.zeros(2), T.ones(3)),
    lambda T: T.normal(0.0, -1.0, (2,)),
    lambda T: T.normal(0.0, 1.0),
    lambda T: T.bernoulli(T.tensor([0, 1])),
    lambda T: T.bernoulli(T.tensor([0.5, 2.0])),
    lambda T: T.bernoulli(T.zeros(3), 1.5),
    lambda T: T.zeros(3).bernoulli_(2.0),
    lambda T: T.zeros(3).bernoulli_(T.full((2,), 0.5)),
    lambda T: T.multinomial(T.tensor([0.0, 0]), 1),
    lambda T: T.multinomial(T.tensor([1.0, float("nan")]), 1),
    lambda T: T.multinomial(T.tensor([1.0, -1]), 1, True),
    lambda T: T.multinomial(T.tensor([1.0, 0]), 1.0),
    lambda T: T.multinomial(T.tensor([1.0, 0]), 3),
    lambda T: T.multinomial(T.tensor([1.0, 0]), 0),
    lambda T: T.multinomial(T.ones(1, 2, 3), 1),
    lambda T: T.multinomial(T.tensor([1, 2]), 1),
    lambda T: T.poisson(T.tensor([1, 2])),
    lambda T: T.poisson(T.tensor([-1.0])),
    lambda T: T.zeros(2).cauchy_(0, -1),
    lambda T: T.zeros(2, dtype=T.long).cauchy_(),
    lambda T: T.zeros(2, dtype=T.long).exponential_(),
    lambda T: T.zeros(2).exponential_(-1),
    lambda T: T.zeros(2).geometric_(0),
    lambda T: T.zeros(2).geometric_(1),
    lambda T: T.zeros(2).log_normal_(0, -1),
    lambda T: T.zeros(2, dtype=T.long).log_normal_(),
    lambda T: T.zeros(2).random_(3, 2),
    lambda T: T.zeros(2, dtype=T.uint8).random_(-1, 2),
    lambda T: T.zeros(2, dtype=T.uint8).random_(0, 300),
    lambda T: T.rand(2, dtype=T.long),
    lambda T: T.randn(2, dtype=T.long),
    lambda T: T.rand(-1),
    lambda T: T.randperm(-1),
    lambda T: T.rand_like(T.zeros(2, dtype=T.long)),
    lambda T: T.randn_like(T.zeros(2, dtype=T.long)),
]


@needs_torch
@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    assert_same(ERRORS[i])


@needs_torch
def test_sampling_nodes_have_zero_gradients():
    def f(T):
        m = T.zeros(3, requires_grad=True)
        s = T.ones(3, requires_grad=True)
        p = T.full((3,), 0.5, requires_grad=True)
        y = T.normal(m, s).sum() + T.bernoulli(p).sum() + T.poisson(s).sum()
        return T.autograd.grad(y, [m, s, p])
    assert_same(f)


def _stats(x):
    a = np.asarray(x.numpy(), np.float64)
    return a.mean(), a.var()


def test_distributions_statistically():
    fc.manual_seed(0)
    n = 100000
    tol = 0.02
    checks = [
        (fc.normal(fc.full((n,), 2.0, dtype=fc.float64), 3.0), 2.0, 9.0),
        (fc.normal(-1.0, fc.full((n,), 0.5)), -1.0, 0.25),
        (fc.normal(1.0, 2.0, (n,)), 1.0, 4.0),
        (fc.bernoulli(fc.full((n,), 0.3)), 0.3, 0.21),
        (fc.zeros(n).bernoulli_(0.8), 0.8, 0.16),
        (fc.poisson(fc.full((n,), 4.0)), 4.0, 4.0),
        (fc.zeros(n).exponential_(2.0), 0.5, 0.25),
        (fc.zeros(n).geometric_(0.25), 4.0, 12.0),
        (fc.zeros(n, dtype=fc.float64).log_normal_(0.0, 0.5),
         np.exp(0.125), (np.exp(0.25) - 1) * np.exp(0.25)),
        (fc.zeros(n).uniform_(-1, 3), 1.0, 16 / 12),
        (fc.zeros(n).random_(0, 10), 4.5, 8.25),
        (fc.rand(n), 0.5, 1 / 12),
        (fc.randn(n), 0.0, 1.0),
    ]
    for x, mean, var in checks:
        m, v = _stats(x)
        assert abs(m - mean) < tol * max(1.0, abs(mean)) + 4 * np.sqrt(var / n), (m, mean)
        assert abs(v - var) < 0.03 * max(1.0, var), (v, var)
    c = fc.zeros(n).cauchy_(1.0, 2.0).numpy()
    assert abs(np.median(c) - 1.0) < 0.05
    assert abs(np.percentile(c, 75) - 3.0) < 0.1       # median + sigma


def test_multinomial_frequencies():
    fc.manual_seed(1)
    p = fc.tensor([[0.1, 0.6, 0.3], [0.5, 0.0, 0.5]])
    s = fc.multinomial(p, 50000, replacement=True).numpy()
    for row, q in zip(s, p.numpy()):
        assert np.allclose(np.bincount(row, minlength=3) / row.size, q, atol=0.01)
    # without replacement: distinct indices, zero-probability categories last
    w = fc.multinomial(fc.tensor([0.0, 1.0, 0.0, 2.0]), 2).numpy()
    assert sorted(w.tolist()) == [1, 3]
    first = np.array([fc.multinomial(fc.tensor([1.0, 3.0]), 2)[0].item() for _ in range(4000)])
    assert abs((first == 1).mean() - 0.75) < 0.03


def test_generator_reproducible():
    g = fc.Generator().manual_seed(5)
    a = fc.normal(fc.zeros(4), 1.0, generator=g)
    b = fc.zeros(4).exponential_(generator=g)
    g.manual_seed(5)
    assert np.array_equal(a.numpy(), fc.normal(fc.zeros(4), 1.0, generator=g).numpy())
    assert np.array_equal(b.numpy(), fc.zeros(4).exponential_(generator=g).numpy())
