"""Sorting, selection, scans and statistics of ftrans.compat against PyTorch: values,
index tie-breaking, output dtypes, gradients (also second order) and error types."""
from __future__ import annotations

import numpy as np
import pytest

import ftrans.numpy as fnp
from compat_diff import assert_same, needs_torch

pytestmark = needs_torch

_R = np.random.RandomState(7)
X = _R.randn(4, 5)
TIES = np.array([[3., 1, 3, 2, 1, 3, 1], [0., 0, 2, 2, 5, 5, 1]])
NANS = np.array([[1., np.nan, 0., np.nan, 4.], [2., 1., 0., 3., -1.]])
ZEROS = np.array([2., 0., 3., 0., -1.5, 4.])


def _value_and_grads(T, f, *arrays, order=1):
    """``f``'s outputs (values of a tuple/namedtuple, all tensors) and the gradient(s) of a
    fixed weighted sum of its float outputs with respect to the float64 inputs."""
    xs = [T.tensor(a, dtype=T.float64, requires_grad=True) for a in arrays]
    out = f(T, *xs)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    res = [o.detach() for o in outs]
    loss = 0
    for o in outs:
        if o.dtype.is_floating_point and o.requires_grad:
            w = T.linspace(0.5, 2.0, o.numel(), dtype=o.dtype).reshape(o.shape)
            loss = loss + (o * w).sum()
    if isinstance(loss, int):
        return res
    gs = T.autograd.grad(loss, xs, create_graph=order > 1, allow_unused=True)
    res += [g.detach() if g is not None else None for g in gs]
    if order > 1:
        g2 = T.autograd.grad(sum((g * g).sum() for g in gs if g is not None), xs,
                             allow_unused=True)
        res += [g.detach() if g is not None else None for g in g2]
    return res


def check(f, *arrays, order=1, **kw):
    return assert_same(lambda T: _value_and_grads(T, f, *arrays, order=order), **kw)


# ------------------------------------------------------------------ sorting and selection
@pytest.mark.parametrize("desc", [False, True])
@pytest.mark.parametrize("stable", [None, True])
def test_sort_ties_nan(desc, stable):
    kw = {} if stable is None else {"stable": stable}
    check(lambda T, x: T.sort(x, dim=1, descending=desc, **kw), TIES)
    check(lambda T, x: T.sort(x, descending=desc, **kw), NANS)
    check(lambda T, x: x.sort(0, descending=desc), X)
    assert_same(lambda T: T.argsort(T.tensor(TIES), descending=desc, stable=True))
    assert_same(lambda T: T.sort(T.tensor([True, False, True]), descending=desc))


def test_sort_misc():
    assert_same(lambda T: type(T.sort(T.tensor(X))).__name__)
    assert_same(lambda T: T.sort(T.tensor(X)).values.grad_fn)   # no grad: None
    assert_same(lambda T: T.sort(T.tensor(2.5), 0))
    assert_same(lambda T: T.sort(T.tensor(X), 2))
    assert_same(lambda T: T.sort(T.tensor([1j, 2j])))
    check(lambda T, x: T.msort(x), X)
    assert_same(lambda T: T.argsort(T.tensor(3.0)))
    assert_same(lambda T: [str(T.sort(T.tensor(X, requires_grad=True)).values.grad_fn
                               .name()), str(T.sort(T.tensor(X, requires_grad=True),
                                                    stable=True).values.grad_fn.name())])


def test_topk_kthvalue():
    check(lambda T, x: T.topk(x, 3), X)
    check(lambda T, x: T.topk(x, 2, 0, largest=False), X)
    check(lambda T, x: x.topk(4, dim=1, largest=True, sorted=True), X)
    check(lambda T, x: T.kthvalue(x, 2, 1), X)
    check(lambda T, x: T.kthvalue(x, 3, 0, keepdim=True), X)
    check(lambda T, x: x.kthvalue(1), np.array(1.5))
    assert_same(lambda T: T.topk(T.tensor(X), 6))
    assert_same(lambda T: T.kthvalue(T.tensor(X), 0))
    assert_same(lambda T: T.kthvalue(T.tensor(X), 6, 1))


def test_median_lower_and_gradients():
    even = np.array([[1., 4, 2, 3], [5, 5, 1, 2]])
    check(lambda T, x: T.median(x), even)          # lower middle; gradient shared by ties
    check(lambda T, x: T.median(x, 1), even)       # value and index of the lower middle
    check(lambda T, x: x.median(0, keepdim=True), X)
    check(lambda T, x: T.median(x, 1), NANS)       # NaN and the index of the first NaN
    check(lambda T, x: T.nanmedian(x, 1), NANS)
    check(lambda T, x: T.nanmedian(x), NANS)
    check(lambda T, x: T.median(x), NANS)
    assert_same(lambda T: T.median(T.tensor([3, 1, 2, 2])))
    assert_same(lambda T: T.median(T.ones(0)))
    assert_same(lambda T: T.median(T.ones(0, 3), 0))
    assert_same(lambda T: T.nanmedian(T.tensor([[np.nan, np.nan], [1.0, 2.0]]), 1))


def test_mode():
    check(lambda T, x: T.mode(x), TIES)            # smallest most frequent, last index
    check(lambda T, x: T.mode(x, 0, keepdim=True), np.round(X))
    assert_same(lambda T: T.mode(T.tensor([[1, 1, 2], [3, 2, 2]])))
    assert_same(lambda T: T.mode(T.ones(0)))


def test_out_tuple():
    def f(T):
        x = T.tensor(X)
        v, i = T.empty(0), T.empty(0, dtype=T.int64)
        r = T.sort(x, 1, out=(v, i))
        return [r.values, r.indices, v, i]
    assert_same(f)
    assert_same(lambda T: T.aminmax(T.tensor(X, dtype=T.float32), dim=0,
                                    out=(T.empty(5, dtype=T.float64), T.empty(5))))


# ------------------------------------------------------------------ scans
def test_cumsum_dtypes_and_inplace():
    assert_same(lambda T: T.cumsum(T.tensor([[1, 2], [3, 4]], dtype=T.int32), 0))
    assert_same(lambda T: T.cumsum(T.tensor([True, False, True]), 0))
    assert_same(lambda T: T.cumsum(T.tensor([1, 2, 3]), 0, dtype=T.float32))
    assert_same(lambda T: T.tensor([1.0, 2.0]).cumprod(0, dtype=T.float64))
    assert_same(lambda T: T.cumsum(T.tensor(2.0), -1))
    assert_same(lambda T: T.cumsum(T.tensor(X), 2))
    check(lambda T, x: T.cumsum(x, 1), X, order=2)
    check(lambda T, x: T.cumsum(x * 1j, 0).real, X)

    def inplace(T):
        a = T.tensor(X, requires_grad=True)
        b = a * 2
        b.cumsum_(1)
        b.cumprod_(0)
        (g,) = T.autograd.grad(b.sum(), a)
        return [b.detach(), g, b.grad_fn.name()]
    assert_same(inplace)


def test_cumprod_zeros_finite_gradients():
    check(lambda T, x: T.cumprod(x, 0), ZEROS, order=2)
    check(lambda T, x: T.cumprod(x, 1), np.array([[0.0, 0.0, 2.0], [1.5, 0.0, -1.0]]))
    check(lambda T, x: x.cumprod(1), X, order=2)


def test_cummax_cummin_logcumsumexp():
    for f in ("cummax", "cummin"):
        check(lambda T, x: getattr(T, f)(x, 1), TIES)    # last occurrence of ties
        check(lambda T, x: getattr(T, f)(x, 1), NANS)    # NaN propagates
        check(lambda T, x: getattr(x, f)(0), X)
        assert_same(lambda T: getattr(T, f)(T.tensor([[1, 3, 2, 3]]), 1))
    check(lambda T, x: T.logcumsumexp(x, 1), X * 30, order=2)
    check(lambda T, x: T.logcumsumexp(x * (1 + 1j), 0).abs(), X)
    assert_same(lambda T: T.logcumsumexp(T.tensor([1, 2]), 0))
    assert_same(lambda T: T.cummax(T.tensor([1j]), 0))


# ------------------------------------------------------------------ statistics
@pytest.mark.parametrize("interp", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile(interp):
    check(lambda T, x: T.quantile(x, 0.35, interpolation=interp), X)
    check(lambda T, x: T.quantile(x, T.tensor([0.0, 0.5, 0.9], dtype=T.float64), 1,
                                  keepdim=True, interpolation=interp), X)
    check(lambda T, x: T.nanquantile(x, 0.5, 1, interpolation=interp), NANS)
    check(lambda T, x: x.quantile(0.25, dim=0), NANS)


def test_quantile_edges_and_errors():
    check(lambda T, x: T.quantile(x, 0.3), np.array(2.0))
    assert_same(lambda T: T.quantile(T.ones(0), 0.5))
    assert_same(lambda T: T.quantile(T.tensor([1, 2]), 0.5))
    assert_same(lambda T: T.quantile(T.tensor([1.0, 2.0]), 1.5))
    assert_same(lambda T: T.quantile(T.tensor([1.0, 2.0]), T.tensor([0.5], dtype=T.float64)))
    assert_same(lambda T: T.quantile(T.tensor([1.0, 2.0]), 0.5, interpolation="cubic"))


def test_moments_nanmean_aminmax():
    check(lambda T, x: T.std_mean(x), X, order=2)
    check(lambda T, x: T.var_mean(x, 1, keepdim=True), X)
    check(lambda T, x: T.var_mean(x, False), X)
    check(lambda T, x: T.std_mean(x, 0, True), X)
    check(lambda T, x: T.std_mean(x, dim=(0, 1), correction=0), X)
    check(lambda T, x: T.nanmean(x), NANS)
    check(lambda T, x: x.nanmean(1, keepdim=True), NANS)
    assert_same(lambda T: T.nanmean(T.tensor([1, 2])))
    check(lambda T, x: T.aminmax(x), TIES)          # ties share the gradient
    check(lambda T, x: x.aminmax(dim=1, keepdim=True), TIES)
    assert_same(lambda T: T.aminmax(T.ones(2, 0)))
    assert_same(lambda T: T.aminmax(T.ones(2, 0), dim=1))
    assert_same(lambda T: T.count_nonzero(T.tensor([[0, 1, 2], [0, 0, 3]]), dim=(0, 1)))
    assert_same(lambda T: T.tensor([[0.0, 1.0], [0.0, 2.0]]).count_nonzero(0))


def test_cov_corrcoef():
    check(lambda T, x: T.cov(x), X, order=2)
    check(lambda T, x: T.cov(x, correction=0), X[0])
    check(lambda T, x, a: T.cov(x, fweights=T.tensor([1, 2, 1, 3, 1]), aweights=a.abs()),
          X, X[0])
    check(lambda T, x: T.corrcoef(x), X)
    check(lambda T, x: x.corrcoef(), X[:2])
    assert_same(lambda T: T.cov(T.tensor([[1, 2, 4], [1, 3, 3]])))
    assert_same(lambda T: T.cov(T.tensor(X, dtype=T.float32)).dtype)
    assert_same(lambda T: T.cov(T.ones(2, 2, 2)))
    assert_same(lambda T: T.cov(T.ones(2, 3), fweights=T.ones(3)))


def test_fnp_cov_keeps_float32():
    x = X.astype(np.float32)
    r = fnp.cov(x, dtype=np.float32)
    assert r.dtype == np.cov(x, dtype=np.float32).dtype == np.float32
    np.testing.assert_allclose(r, np.cov(x), rtol=1e-5)


def test_diff():
    check(lambda T, x: T.diff(x), X)
    check(lambda T, x: T.diff(x, 2, 0), X)
    check(lambda T, x, p: T.diff(x, 1, 1, prepend=p, append=p), X, X[:, :2])
    assert_same(lambda T: T.diff(T.tensor([True, False, False, True])))
    assert_same(lambda T: T.diff(T.tensor([1, 4, 9]), prepend=T.tensor([0.5])))
    assert_same(lambda T: T.diff(T.tensor(1.0)))
    assert_same(lambda T: T.diff(T.ones(2, 3), prepend=T.ones(3)))


# ------------------------------------------------------------------ counting
def test_searchsorted_bucketize():
    seq = np.sort(_R.randn(3, 6), axis=1)
    vals = _R.randn(3, 4)
    for right in (False, True):
        assert_same(lambda T: T.searchsorted(T.tensor(seq), T.tensor(vals), right=right))
        assert_same(lambda T: T.searchsorted(T.tensor(seq[0]), T.tensor(vals), right=right,
                                             out_int32=True))
        assert_same(lambda T: T.bucketize(T.tensor(vals), T.tensor(seq[1]), right=right))
    assert_same(lambda T: T.searchsorted(T.tensor([1, 2, 2, 3]), 2, side="right"))
    assert_same(lambda T: T.searchsorted(T.tensor([3.0, 1.0, 2.0]), T.tensor([2.5]),
                                         sorter=T.tensor([1, 2, 0])))
    assert_same(lambda T: T.bucketize(2, T.tensor([1, 2, 3])))
    assert_same(lambda T: T.searchsorted(T.tensor(seq), T.tensor(vals[:2])))
    assert_same(lambda T: T.searchsorted(T.tensor([1.0]), T.tensor([1.0]), side="left",
                                         right=True))


def test_bincount_histograms():
    ints = np.array([0, 3, 1, 3, 3, 7])
    assert_same(lambda T: T.bincount(T.tensor(ints)))
    assert_same(lambda T: T.tensor(ints).bincount(T.tensor(ints * 0.5, dtype=T.float32), 10))
    assert_same(lambda T: T.bincount(T.tensor(ints), T.tensor(ints)))
    assert_same(lambda T: T.bincount(T.tensor([-1, 2])))
    v = _R.randn(50)
    assert_same(lambda T: T.histc(T.tensor(v), 7))
    assert_same(lambda T: T.histc(T.tensor(v, dtype=T.float32), bins=5, min=-1, max=1))
    assert_same(lambda T: T.histc(T.tensor([2.0, 2.0]), 4))
    assert_same(lambda T: T.histc(T.tensor([1, 2])))
    assert_same(lambda T: T.histogram(T.tensor(v), 6))
    assert_same(lambda T: T.histogram(T.tensor(v), T.tensor([-1.0, 0.0, 0.5, 2.0]),
                                      weight=T.tensor(np.abs(v)), density=True))
    assert_same(lambda T: T.histogram(T.tensor(v), 4, range=(-2.0, 2.0)))
    pts = _R.randn(30, 2)
    assert_same(lambda T: T.histogramdd(T.tensor(pts), [3, 4]))
    assert_same(lambda T: T.histogramdd(T.tensor(pts), 3, range=[-1.0, 1.0, -2.0, 2.0],
                                        density=True))
    assert_same(lambda T: T.histogramdd(T.tensor(pts), [T.tensor([-1.0, 0.0, 1.0]),
                                                        T.tensor([1.0, -1.0])]))


def test_unique():
    a = np.array([[3, 1, 1], [2, 3, 1], [3, 1, 1]])
    for ri in (False, True):
        for rc in (False, True):
            assert_same(lambda T: T.unique(T.tensor(a), return_inverse=ri, return_counts=rc))
            assert_same(lambda T: T.unique(T.tensor(a), sorted=False, return_inverse=ri,
                                           return_counts=rc, dim=0))
            assert_same(lambda T: T.unique_consecutive(T.tensor([1, 1, 2, 2, 3, 1, 1]),
                                                       return_inverse=ri, return_counts=rc))
            assert_same(lambda T: T.tensor(a).unique_consecutive(return_inverse=ri,
                                                                 return_counts=rc, dim=1))
    assert_same(lambda T: T.tensor([True, False, True]).unique())


def test_float32_dtypes_and_out():
    x32 = X.astype(np.float32)
    assert_same(lambda T: T.quantile(T.tensor(x32), T.tensor([0.2, 0.7]), 1))
    assert_same(lambda T: T.nanquantile(T.tensor(x32), 0.4, interpolation="midpoint"))
    assert_same(lambda T: T.cov(T.tensor(x32), fweights=T.tensor([1, 2, 1, 3, 1],
                                                                  dtype=T.int32)))
    assert_same(lambda T: T.cov(T.tensor(X), correction=2,
                                aweights=T.tensor(np.abs(x32[0]))), rtol=1e-6)
    assert_same(lambda T: T.median(T.tensor(x32)))
    assert_same(lambda T: T.cumprod(T.tensor(x32), 1))

    def out(T):
        x = T.tensor(X)
        o, v, i = T.empty(0), T.empty(0), T.empty(0, dtype=T.int64)
        T.cumsum(x, 1, out=o)
        T.topk(x, 2, out=(v, i))
        return [o, v, i]
    assert_same(out)
    assert_same(lambda T: T.cumsum(T.tensor(X, requires_grad=True), 0, out=T.empty(0)))
    assert_same(lambda T: T.sort(T.tensor(X), out=(T.empty(0), T.empty(0))))


def test_quantile_gradient_in_q_and_nan_slices():
    def f(T):
        x = T.tensor(X, requires_grad=True)
        q = T.tensor([0.1, 0.65], dtype=T.float64, requires_grad=True)
        y = T.quantile(x, q, 1)
        return list(T.autograd.grad((y * T.arange(8.0, dtype=T.float64).reshape(2, 4)).sum(),
                                    [x, q]))
    assert_same(f)
    check(lambda T, x: T.quantile(x, 0.5, 1), NANS)   # NaN slice: gradient to the NaN


def test_complex_logcumsumexp_and_empty():
    z = X[:3, :4] * 3 + 1j * X[1:, 1:5] * 4
    assert_same(lambda T: T.logcumsumexp(T.tensor(z), 1))
    assert_same(lambda T: T.searchsorted(T.ones(0, 0), T.ones(0, 0)))
    assert_same(lambda T: T.unique_consecutive(T.ones(5, 0, 5), dim=1))
    assert_same(lambda T: T.histogram(T.ones(0), 2))


def test_mode_long_rows_and_unique_nan():
    a = _R.randint(0, 9, (5, 200)).astype(float)   # the row-by-row path (n > 64)
    assert_same(lambda T: T.mode(T.tensor(a), 1).values)   # (PyTorch's index: unspecified)

    def index_points_at_value(T):
        m = T.mode(T.tensor(a), 1)
        return bool((T.tensor(a).gather(1, m.indices[:, None])[:, 0] == m.values).all())
    assert_same(index_points_at_value)
    b = _R.randint(0, 4, (3, 12))
    assert_same(lambda T: T.mode(T.tensor(b), 1))
    assert_same(lambda T: T.unique(T.tensor([np.nan, 1.0, np.nan]), return_counts=True,
                                   return_inverse=True))
