"""Edges of issue 19's searching / set / choosing / index-trick functions (the
differentiable uses are rows of the breadth table, ``breadth_rows_np1.py``): integer
results vs NumPy on ties, boundaries, NaN and empty inputs; ``size=`` under ``jit`` and
``vmap``; where the derivative goes; in-place semantics and the errors."""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import ConcretizationError

RNG = np.random.default_rng(19)


def _eq(got, want):
    """Same structure, shapes, dtypes and values (NaN == NaN)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _eq(g, w)
        return
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape, (g.shape, w.shape)
    assert g.dtype == w.dtype, (g.dtype, w.dtype)
    np.testing.assert_array_equal(g, w)


# ---------------------------------------------------------------------------------
# nonzero family
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("x", [np.array([[0, 3, 0], [4, 0, 5]]), np.zeros((2, 3)),
                               np.zeros((0, 3)), np.array([True, False, True]),
                               np.array([0.0, -0.0, np.nan, 1e-300])])
def test_nonzero_family_vs_numpy(x):
    _eq(fnp.nonzero(x), np.nonzero(x))
    _eq(fnp.argwhere(x), np.argwhere(x))
    _eq(fnp.flatnonzero(x), np.flatnonzero(x))


def test_nonzero_size_under_jit_and_vmap():
    x = np.array([[0, 3, 0], [4, 0, 5]])
    f = ftrans.jit(lambda x: fnp.nonzero(x, size=5, fill_value=(-1, -2)))
    _eq(f(x), (np.array([0, 1, 1, -1, -1]), np.array([1, 0, 2, -2, -2])))
    # truncation; eager with size agrees with jit
    _eq(fnp.nonzero(x, size=2), (np.array([0, 1]), np.array([1, 0])))
    _eq(ftrans.jit(lambda x: fnp.argwhere(x, size=2))(x), np.array([[0, 1], [1, 0]]))
    got = ftrans.vmap(lambda r: fnp.flatnonzero(r, size=2, fill_value=9))(x)
    _eq(got, np.array([[1, 9], [0, 2]]))


def test_nonzero_errors():
    with pytest.raises(ConcretizationError, match="size="):
        ftrans.jit(fnp.nonzero)(np.ones(3))
    with pytest.raises(ValueError, match="0d"):
        fnp.nonzero(np.float64(1.0))
    with pytest.raises(ValueError, match="fill_value"):
        fnp.nonzero(np.ones((2, 2)), size=3, fill_value=(0, 0, 0))


def test_integer_results_under_grad_are_constants():
    # grad sees concrete values: data-dependent shapes work, and index outputs do not
    # stop the derivative of the values
    def f(x):
        i = fnp.flatnonzero(x > 0)
        return fnp.sum(x[i] ** 2)
    x = np.array([-1.0, 2.0, 3.0, -4.0])
    np.testing.assert_allclose(ftrans.grad(f)(x), [0.0, 4.0, 6.0, 0.0])


# ---------------------------------------------------------------------------------
# searchsorted, digitize, lexsort
# ---------------------------------------------------------------------------------
A = np.array([1.0, 2.0, 2.0, 2.0, 3.0, np.inf, np.nan])
V = np.array([[2.0, 0.5, np.nan], [3.0, np.inf, -np.inf]])


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_ties_nan_inf_traced_equals_numpy(side):
    want = np.searchsorted(A, V, side)
    _eq(fnp.searchsorted(A, V, side), want)
    _eq(ftrans.jit(lambda a, v: fnp.searchsorted(a, v, side))(A, V), want)
    perm = RNG.permutation(A.size)
    sorter = np.argsort(A[perm])
    _eq(ftrans.vmap(lambda v: fnp.searchsorted(A[perm], v, side, sorter=sorter))(V),
        np.searchsorted(A[perm], V, side, sorter=sorter))
    # complex: lexicographic, as NumPy's sort
    z = np.sort(np.array([1 + 2j, 1 + 1j, 0 + 5j, 2 - 1j]))
    w = np.array([1 + 1j, 1 + 1.5j, 3 + 0j])
    _eq(ftrans.jit(lambda a, v: fnp.searchsorted(a, v, side))(z, w),
        np.searchsorted(z, w, side))


def test_searchsorted_errors():
    with pytest.raises(ValueError, match="side"):
        fnp.searchsorted(A, 1.0, side="middle")
    with pytest.raises(ValueError, match="1-d"):
        fnp.searchsorted(np.ones((2, 2)), 1.0)


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("bins", [np.array([0.0, 1.0, 1.0, 2.0]), np.array([2.0, 1.0, 0.0])])
def test_digitize_boundaries(right, bins):
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, 3.0])
    want = np.digitize(x, bins, right)
    _eq(fnp.digitize(x, bins, right), want)
    _eq(ftrans.jit(lambda x, b: fnp.digitize(x, b, right))(x, bins), want)


def test_lexsort_ties():
    k = [np.array([1, 1, 0, 0, 2, 2]), np.array([2, 1, 2, 1, 1, 1]), np.array([0, 0, 0, 0, 0, 0])]
    want = np.lexsort(k)
    _eq(fnp.lexsort(k), want)
    _eq(ftrans.jit(lambda *k: fnp.lexsort(k))(*k), want)
    m = RNG.integers(0, 2, (2, 3, 4))
    _eq(ftrans.jit(lambda m: fnp.lexsort(m, axis=0))(m), np.lexsort(m, axis=0))
    with pytest.raises(TypeError):
        fnp.lexsort([])


# ---------------------------------------------------------------------------------
# bincount, histograms
# ---------------------------------------------------------------------------------
def test_bincount_edges():
    _eq(fnp.bincount(np.array([], np.int64)), np.bincount(np.array([], np.int64)))
    _eq(fnp.bincount(np.array([], np.int64), minlength=3), np.zeros(3, np.int64))
    x = np.array([0, 4, 4, 1])
    _eq(fnp.bincount(x, minlength=2), np.bincount(x, minlength=2))
    _eq(fnp.bincount(x, np.ones(4, np.float32)), np.bincount(x, np.ones(4, np.float32)))
    with pytest.raises(ValueError, match="negative"):
        fnp.bincount(np.array([0, -1]))
    with pytest.raises(TypeError, match="int"):
        fnp.bincount(np.array([0.5]))
    with pytest.raises(ValueError, match="same length"):
        fnp.bincount(x, np.ones(3))
    with pytest.raises(ConcretizationError, match="length="):
        ftrans.jit(fnp.bincount)(x)
    # length=: values >= length dropped, under jit and eagerly alike
    w = np.arange(4.0)
    want = np.array([0.0, 3.0, 0.0])
    np.testing.assert_allclose(ftrans.jit(lambda x, w: fnp.bincount(x, w, length=3))(x, w), want)
    np.testing.assert_allclose(fnp.bincount(x, w, length=3), want)
    _eq(ftrans.jit(lambda x: fnp.bincount(x, length=5))(x), np.bincount(x))
    # the gradient of a weighted bin is the cotangent of the bin each weight went to
    g = ftrans.grad(lambda w: fnp.sum(fnp.bincount(x, w) * np.arange(5.0)))(w)
    np.testing.assert_allclose(g, [0.0, 4.0, 4.0, 1.0])


@pytest.mark.parametrize("a", [np.full(4, 2.5), np.array([]), np.array([0, 3, 3, 9, 1]),
                               np.array([0.0, 1.0, 2.0, 3.0], np.float32)])
def test_histogram_edges_vs_numpy(a):
    h, e = fnp.histogram(a, 3)
    hn, en = np.histogram(a, 3)
    _eq(h, hn)
    assert np.asarray(e).dtype == en.dtype
    np.testing.assert_allclose(e, en, rtol=1e-6)
    if a.size:
        hj, ej = ftrans.jit(lambda a: fnp.histogram(a, 3))(a)
        _eq(hj, hn)
        np.testing.assert_allclose(ej, en, rtol=1e-6)


def test_histogram_range_bins_and_errors():
    a = np.array([-2.0, 0.0, 0.5, 1.0, 1.0, 7.0])
    for kw in [dict(bins=4, range=(0, 1)), dict(bins=[0.0, 0.5, 1.0]),
               dict(bins=[0.0, 1.0, 7.0], density=True)]:
        got, want = fnp.histogram(a, **kw), np.histogram(a, **kw)
        np.testing.assert_allclose(got[0], want[0])
        np.testing.assert_allclose(got[1], want[1])
    # vmap over data (counts per row)
    rows = np.array([[0.0, 1.0, 2.0, 2.0], [5.0, 5.0, 5.0, 6.0]])
    got = ftrans.vmap(lambda r: fnp.histogram(r, 2)[0])(rows)
    _eq(got, np.stack([np.histogram(r, 2)[0] for r in rows]))
    with pytest.raises(ValueError, match="not finite"):
        fnp.histogram(np.array([1.0, np.inf]))
    with pytest.raises(ValueError, match="estimator"):
        fnp.histogram(a, bins="auto")
    with pytest.raises(ValueError, match="monotonically"):
        fnp.histogram(a, bins=[1.0, 0.0])
    with pytest.raises(ValueError, match="positive"):
        fnp.histogram(a, bins=0)


def test_histogramdd_density_and_2d_edges():
    s = RNG.standard_normal((40, 3))
    got, want = fnp.histogramdd(s, bins=(2, 3, 2), density=True), \
        np.histogramdd(s, bins=(2, 3, 2), density=True)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    for e, en in zip(got[1], want[1]):
        np.testing.assert_allclose(e, en)
    edges = np.array([-1.0, 0.0, 1.0])
    got = fnp.histogram2d(s[:, 0], s[:, 1], bins=edges)
    want = np.histogram2d(s[:, 0], s[:, 1], bins=edges)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w)


# ---------------------------------------------------------------------------------
# unique and sets
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("x", [np.array([3.0, 1.0, 3.0, np.nan, 1.0, np.nan]),
                               np.array([[2, 2], [1, 2]]), np.array([], np.float64),
                               np.array([1 + 1j, 1 - 1j, 1 + 1j])])
def test_unique_ties_vs_numpy(x):
    _eq(fnp.unique(x, True, True, True), np.unique(x, True, True, True))
    _eq(fnp.unique(x, equal_nan=False), np.unique(x, equal_nan=False))
    for name in ("unique_all", "unique_counts", "unique_inverse"):
        got, want = getattr(fnp, name)(x), getattr(np, name)(x)
        assert got._fields == want._fields
        _eq(tuple(got), tuple(want))
    _eq(fnp.unique_values(x), np.unique_values(x))


def test_unique_axis():
    m = np.array([[1, 0, 1], [2, 3, 2], [1, 0, 1]])
    for ax in (0, 1):
        _eq(fnp.unique(m, True, True, True, axis=ax), np.unique(m, True, True, True, axis=ax))


def test_unique_size_jit_equals_eager_and_gradient_to_first_occurrence():
    x = np.array([3.0, 1.0, 3.0, 2.0, 1.0])
    for size in (2, 3, 5):
        eager = fnp.unique(x, True, True, True, size=size)
        staged = ftrans.jit(lambda x: fnp.unique(x, True, True, True, size=size))(x)
        _eq(staged, eager)
    np.testing.assert_array_equal(fnp.unique(x, size=5, fill_value=-1.0), [1, 2, 3, -1, -1])
    g = ftrans.grad(lambda x: fnp.sum(fnp.unique(x) * np.array([10.0, 20.0, 30.0])))(x)
    np.testing.assert_allclose(g, [30.0, 10.0, 0.0, 20.0, 0.0])
    gj = ftrans.grad(ftrans.jit(lambda x: fnp.sum(fnp.unique(x, size=3) *
                                                  np.array([10.0, 20.0, 30.0]))))(x)
    np.testing.assert_allclose(gj, g)
    got = ftrans.vmap(lambda r: fnp.unique(r, size=2, fill_value=0.0))(np.array([[2.0, 2.0],
                                                                              [1.0, 0.5]]))
    _eq(got, np.array([[2.0, 0.0], [0.5, 1.0]]))
    with pytest.raises(ConcretizationError, match="size="):
        ftrans.jit(fnp.unique)(x)


def test_set_operations_ties_and_gradient():
    a = np.array([5.0, 1.0, 1.0, 3.0, 2.0])
    b = np.array([3.0, 3.0, 4.0, 1.0])
    for name in ("union1d", "intersect1d", "setdiff1d", "setxor1d"):
        _eq(getattr(fnp, name)(a, b), getattr(np, name)(a, b))
    _eq(fnp.intersect1d(a, b, return_indices=True), np.intersect1d(a, b, return_indices=True))
    _eq(fnp.setdiff1d(np.array([1, 2, 3]), [2], assume_unique=True),
        np.setdiff1d(np.array([1, 2, 3]), [2], assume_unique=True))
    _eq(fnp.union1d(np.array([1, 2]), np.array([0.5])), np.union1d([1, 2], [0.5]))
    # the values are gathered from ar1: intersect1d's derivative goes to the first
    # occurrence in ar1, none to ar2
    ga, gb = ftrans.grad(lambda a, b: fnp.sum(fnp.intersect1d(a, b)), argnums=(0, 1))(a, b)
    np.testing.assert_allclose(ga, [0.0, 1.0, 0.0, 1.0, 0.0])
    np.testing.assert_allclose(gb, 0.0)
    with pytest.raises(ConcretizationError):
        ftrans.jit(fnp.union1d)(a, b)


def test_isin_traced_equals_numpy():
    e = np.array([[1.0, np.nan], [3.0, 4.0]])
    t = np.array([4.0, 1.0, np.nan])
    for inv in (False, True):
        want = np.isin(e, t, invert=inv)
        _eq(fnp.isin(e, t, invert=inv), want)
        _eq(ftrans.jit(lambda e, t: fnp.isin(e, t, invert=inv))(e, t), want)


# ---------------------------------------------------------------------------------
# choose, select, piecewise
# ---------------------------------------------------------------------------------
def test_choose_modes_and_errors():
    c = [np.array([0.0, 1.0, 2.0]), np.array([10.0, 11.0, 12.0])]
    i = np.array([3, -1, 1])
    for mode in ("wrap", "clip"):
        _eq(fnp.choose(i, c, mode=mode), np.choose(i, c, mode=mode))
    with pytest.raises(ValueError, match="invalid entry"):
        fnp.choose(i, c)
    with pytest.raises(TypeError, match="integer"):
        fnp.choose(np.array([0.5]), c)
    # traced selector under vmap
    got = ftrans.vmap(lambda i: fnp.choose(i, c))(np.array([[0, 1, 0], [1, 1, 1]]))
    _eq(got, np.array([[0.0, 11.0, 2.0], [10.0, 11.0, 12.0]]))


def test_select_first_true_wins_and_errors():
    x = np.arange(5.0)
    conds, choices = [x > 1, x > 3], [x, -x]
    _eq(fnp.select(conds, choices, 7), np.select(conds, choices, 7))
    _eq(fnp.select([x > 1], [np.float32(1)], 0), np.select([x > 1], [np.float32(1)], 0))
    with pytest.raises(ValueError, match="same length"):
        fnp.select([x > 1], [x, x])
    with pytest.raises(TypeError, match="boolean"):
        fnp.select([x], [x])
    with pytest.raises(ValueError, match="empty"):
        fnp.select([], [])


def test_piecewise_semantics():
    x = np.linspace(-2.5, 2.5, 6)
    cases = [([x < 0], [lambda v: v ** 2, 5.0]), ([x < 0, x > 1], [-1.0, 1.0]),
             (x > 0, [lambda v: 2 * v]), ([x < 0, x < 2], [1.0, 2.0, 3.0])]
    for cond, funcs in cases:
        _eq(fnp.piecewise(x, cond, funcs), np.piecewise(x, cond, funcs))
    # int x keeps its dtype; 0-d x
    _eq(fnp.piecewise(np.arange(4), [np.arange(4) > 1], [7, -1]),
        np.piecewise(np.arange(4), [np.arange(4) > 1], [7, -1]))
    _eq(fnp.piecewise(np.float64(2.0), [True], [lambda v: v + 1]),
        np.piecewise(np.float64(2.0), [True], [lambda v: v + 1]))
    # each function sees only its elements: log of the negatives stays finite in grad
    g = ftrans.grad(lambda x: fnp.sum(fnp.piecewise(x, [x < 0], [lambda v: fnp.log(-v),
                                                                 lambda v: v])))(x)
    np.testing.assert_allclose(g, np.where(x < 0, 1 / x, 1.0))
    f = lambda x: fnp.piecewise(x, [x < 0], [lambda v: -v, lambda v: v ** 3])  # noqa: E731
    np.testing.assert_allclose(ftrans.jit(f)(x), f(x))
    with pytest.raises(ValueError, match="functions are expected"):
        fnp.piecewise(x, [x < 0], [1.0, 2.0, 3.0])


# ---------------------------------------------------------------------------------
# in-place writers
# ---------------------------------------------------------------------------------
INPLACE = [
    ("put", lambda a: ([0, 5, 5], [1.0, 2.0, 3.0]), {"mode": "raise"}),
    ("put", lambda a: ([-7, 9], [4.0]), {"mode": "wrap"}),
    ("put", lambda a: ([-7, 9], [4.0, 5.0]), {"mode": "clip"}),
    ("place", lambda a: (a > 2, [10.0, 20.0]), {}),
    ("putmask", lambda a: (a > 2, [10.0, 20.0]), {}),
    ("fill_diagonal", lambda a: ([7.0, 8.0],), {"wrap": False}),
    ("copyto", lambda a: (np.arange(3.0) * 5, ), {"where": np.array([True, False, True])}),
]


@pytest.mark.parametrize("name,extra,kw", INPLACE)
def test_inplace_writers_follow_numpy(name, extra, kw):
    a = np.arange(6.0).reshape(2, 3)
    want = a.copy()
    assert getattr(np, name)(want, *extra(a), **kw) is None
    got = a.copy()
    assert getattr(fnp, name)(got, *extra(a), **kw) is None   # ndarray: mutated
    _eq(got, want)
    new = getattr(fnp, name)(a, *extra(a), **kw, inplace=False)  # functional
    _eq(new, want)
    _eq(a, np.arange(6.0).reshape(2, 3))                          # input untouched
    with pytest.raises(TypeError, match="inplace=False"):
        ftrans.grad(lambda t: fnp.sum(getattr(fnp, name)(t, *extra(a), **kw)))(a)


def test_inplace_writer_gradients_and_errors():
    a = np.zeros(4)
    # last write wins: the overwritten value gets no gradient
    g = ftrans.grad(lambda v: fnp.sum(fnp.put(a, [1, 1, 2], v, inplace=False) *
                                      np.arange(4.0)))(np.ones(3))
    np.testing.assert_allclose(g, [0.0, 1.0, 2.0])
    with pytest.raises(IndexError):
        fnp.put(a, [4], 1.0, inplace=False)
    with pytest.raises(ValueError, match="empty"):
        fnp.place(a, a == 0, [], inplace=False)
    with pytest.raises(ValueError, match="same size"):
        fnp.putmask(a, np.ones(3, bool), 1.0, inplace=False)
    with pytest.raises(TypeError, match="same_kind"):
        fnp.copyto(np.zeros(2, int), np.ones(2), inplace=False)
    with pytest.raises(ValueError, match="equal length"):
        fnp.fill_diagonal(np.zeros((2, 2, 3)), 1.0, inplace=False)
    # a traced mask under jit
    f = ftrans.jit(lambda a, m: fnp.place(a, m, np.array([7.0, 8.0]), inplace=False))
    m = np.array([True, False, True, True])
    want = np.arange(4.0)
    np.place(want, m, [7.0, 8.0])
    _eq(f(np.arange(4.0), m), want)
    nd = np.zeros((3, 3, 3))
    np.fill_diagonal(nd, 2.0)
    _eq(fnp.fill_diagonal(np.zeros((3, 3, 3)), 2.0, inplace=False), nd)


# ---------------------------------------------------------------------------------
# insert, resize, trim_zeros, rollaxis, block
# ---------------------------------------------------------------------------------
def test_insert_resize_rollaxis_block_vs_numpy():
    a = np.arange(6.0).reshape(2, 3)
    for obj, vals, axis in [(1, 9.0, None), (slice(0, 3), [7.0, 8.0, 9.0], None),
                            (2, [[5.0], [6.0]], 1), ([0, 0], 1.0, 0), (-1, [1.0, 2.0, 3.0], 0)]:
        _eq(fnp.insert(a, obj, vals, axis), np.insert(a, obj, vals, axis))
    for shape in [(0,), 7, (3, 3)]:
        _eq(fnp.resize(a, shape), np.resize(a, shape))
    _eq(fnp.resize(np.array([]), (2, 2)), np.resize(np.array([]), (2, 2)))
    with pytest.raises(TypeError, match="concrete"):
        ftrans.grad(lambda i: fnp.sum(fnp.insert(a, i, 1.0)))(1.0)
    b = np.ones((2, 3, 4))
    for axis, start in [(0, 3), (2, 0), (-1, -2), (1, 1)]:
        assert fnp.rollaxis(b, axis, start).shape == np.rollaxis(b, axis, start).shape
    with pytest.raises(np.exceptions.AxisError):
        fnp.rollaxis(b, 0, 5)
    blocks = [[np.eye(2), np.zeros((2, 1))], [np.ones((1, 2)), np.array([[3.0]])]]
    _eq(fnp.block(blocks), np.block(blocks))
    _eq(fnp.block([1, [2, 3]] if False else [1.0, np.array([2.0, 3.0])]),
        np.block([1.0, np.array([2.0, 3.0])]))
    _eq(fnp.block(np.ones(2)), np.block(np.ones(2)))
    with pytest.raises(TypeError, match="tuple"):
        fnp.block((np.ones(2), np.ones(2)))
    with pytest.raises(ValueError, match="depths are mismatched"):
        fnp.block([np.ones(2), [np.ones(2)]])
    with pytest.raises(ValueError, match="empty"):
        fnp.block([])


@pytest.mark.parametrize("trim", ["fb", "f", "b", "B"])
def test_trim_zeros(trim):
    x = np.array([0.0, 0.0, 1.5, 0.0, 2.0, 0.0])
    _eq(fnp.trim_zeros(x, trim), np.trim_zeros(x, trim))
    _eq(fnp.trim_zeros(np.zeros(3), trim), np.trim_zeros(np.zeros(3), trim))
    m = np.array([[0, 0, 0, 0], [0, 1, 0, 2], [0, 0, 0, 0.0]])
    for axis in (None, 0, 1):
        _eq(fnp.trim_zeros(m, trim, axis), np.trim_zeros(m, trim, axis))
    g = ftrans.grad(lambda x: fnp.sum(fnp.trim_zeros(x, trim) ** 2))(x)
    keep = np.zeros(6, bool)
    lo = 2 if "f" in trim.lower() else 0
    hi = 5 if "b" in trim.lower() else 6
    keep[lo:hi] = True
    np.testing.assert_allclose(g, np.where(keep, 2 * x, 0.0))
    with pytest.raises(ConcretizationError):
        ftrans.jit(fnp.trim_zeros)(x)


# ---------------------------------------------------------------------------------
# index tricks
# ---------------------------------------------------------------------------------
def test_index_constructors_vs_numpy():
    m = np.ones((3, 4))
    _eq(fnp.tril_indices(4, -1, 5), np.tril_indices(4, -1, 5))
    _eq(fnp.triu_indices(3, 1), np.triu_indices(3, 1))
    _eq(fnp.tril_indices_from(m, 1), np.tril_indices_from(m, 1))
    _eq(fnp.triu_indices_from(m), np.triu_indices_from(m))
    _eq(fnp.diag_indices(3, 3), np.diag_indices(3, 3))
    _eq(fnp.diag_indices_from(np.ones((2, 2))), np.diag_indices_from(np.ones((2, 2))))
    _eq(fnp.mask_indices(3, fnp.triu, 1), np.mask_indices(3, np.triu, 1))
    _eq(fnp.indices((2, 3)), np.indices((2, 3)))
    _eq(fnp.tri(3, 4, -1, int), np.tri(3, 4, -1, int))
    _eq(fnp.ix_([0, 2], np.array([True, False, True])), np.ix_([0, 2], [True, False, True]))
    _eq(fnp.fromiter(iter(range(4)), float, 3), np.fromiter(iter(range(4)), float, 3))
    assert fnp.broadcast_shapes((2, 1), (3,), ()) == (2, 3)
    with pytest.raises(ValueError, match="2-d"):
        fnp.tril_indices_from(np.ones(3))
    with pytest.raises(ValueError, match="too short"):
        fnp.fromiter(iter([1.0]), float, 2)
    # shapes of traced arrays are enough
    ftrans.grad(lambda x: fnp.sum(x[fnp.triu_indices_from(x)]))(m)


def test_unravel_ravel_traced():
    i = np.array([0, 7, 11])
    for order in ("C", "F"):
        want = np.unravel_index(i, (3, 4), order)
        _eq(fnp.unravel_index(i, (3, 4), order), want)
        _eq(ftrans.jit(lambda i: fnp.unravel_index(i, (3, 4), order))(i), want)
        mi = (np.array([0, 2, 5]), np.array([-1, 3, 1]))
        for mode in ("wrap", "clip", ("clip", "wrap")):
            want = np.ravel_multi_index(mi, (3, 4), mode, order)
            _eq(ftrans.jit(lambda a, b: fnp.ravel_multi_index((a, b), (3, 4), mode, order))(*mi),
                want)
    with pytest.raises(TypeError, match="wrap"):
        ftrans.jit(lambda a: fnp.ravel_multi_index((a, a), (3, 4)))(i)
    with pytest.raises(ValueError):
        fnp.ravel_multi_index((np.array([3]), np.array([0])), (3, 4))


def test_r_c_directives_and_errors():
    x, y = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    for key in [(x, 0, y), (slice(0, 1, 4j),), ("1,2", x, y), ("0,2,-1", x, y),
                ("-1,3,1", np.ones((2, 2)), x[:, None]), (np.int8(1), np.array([2], np.int8)),
                (x, [True, False])]:
        got, want = fnp.r_[key], np.r_[key]
        _eq(got, want)
    _eq(fnp.c_[x, y, np.ones((2, 2))], np.c_[x, y, np.ones((2, 2))])
    _eq(fnp.c_[x], np.c_[x])
    with pytest.raises(ValueError, match="first"):
        fnp.r_[x, "0"]
    with pytest.raises(ValueError, match="matrix"):
        fnp.r_["r", x]
    with pytest.raises(ValueError, match="directive"):
        fnp.r_["a,b", x]
    g = ftrans.grad(lambda x: fnp.sum(fnp.r_["0,2", x, 0:2] ** 2))(x)
    np.testing.assert_allclose(g, 2 * x)


# ---------------------------------------------------------------------------------
# conversions and comparisons
# ---------------------------------------------------------------------------------
def test_isclose_allclose_equal():
    a = np.array([1.0, np.inf, -np.inf, np.nan, 1e-9, 0.0])
    b = np.array([1.0 + 1e-6, np.inf, np.inf, np.nan, 0.0, -0.0])
    for kw in ({}, {"equal_nan": True}, {"rtol": 0.0, "atol": 1e-10}):
        _eq(fnp.isclose(a, b, **kw), np.isclose(a, b, **kw))
        _eq(ftrans.jit(lambda a, b: fnp.isclose(a, b, **kw))(a, b), np.isclose(a, b, **kw))
        assert fnp.allclose(a, b, **kw) is np.allclose(a, b, **kw)
    assert fnp.isclose(1, 1.0 + 1e-9) == np.isclose(1, 1.0 + 1e-9)
    _eq(fnp.isclose(np.array([1, 2]), 2), np.isclose(np.array([1, 2]), 2))
    assert fnp.array_equal(a, a, equal_nan=True) is True
    assert fnp.array_equal(a, a) is False
    assert fnp.array_equiv([1, 2], [[1, 2], [1, 2]]) is True
    assert ftrans.grad(lambda x: fnp.sum(x) * fnp.allclose(x, 1.0))(np.ones(2)).tolist() == \
        [1.0, 1.0]
    for fn in (fnp.allclose, fnp.array_equal, fnp.array_equiv):
        with pytest.raises(ConcretizationError, match="isclose|=="):
            ftrans.jit(lambda x: fn(x, 1.0))(np.ones(2))


def test_complex_predicates_and_conversions():
    z = np.array([1 + 0j, 1 + 2j, 3.0 + 0j])
    for fn in ("iscomplex", "isreal"):
        _eq(getattr(fnp, fn)(z), getattr(np, fn)(z))
        _eq(getattr(fnp, fn)(np.arange(3.0)), getattr(np, fn)(np.arange(3.0)))
    assert fnp.iscomplex(2.0) == np.iscomplex(2.0)

    def probe(x):
        assert fnp.iscomplexobj(x * 1j) and fnp.isrealobj(x)
        return fnp.sum(x)
    ftrans.grad(probe)(np.ones(2))
    _eq(fnp.real_if_close(np.array([1 + 1e-15j])), np.real_if_close(np.array([1 + 1e-15j])))
    _eq(fnp.real_if_close(np.array([1 + 1e-3j]), tol=0.01),
        np.real_if_close(np.array([1 + 1e-3j]), tol=0.01))
    _eq(fnp.real_if_close(z), np.real_if_close(z))
    with pytest.raises(ConcretizationError):
        ftrans.jit(fnp.real_if_close)(z)
    with pytest.raises(ValueError, match="infs or NaNs"):
        fnp.asarray_chkfinite([1.0, np.nan])
    with pytest.raises(ValueError, match="infs or NaNs"):
        ftrans.grad(lambda x: fnp.sum(fnp.asarray_chkfinite(x / 0.0)))(np.ones(2))
    x = np.arange(4.0).reshape(2, 2)
    for fn in ("copy", "asanyarray", "ascontiguousarray", "asfortranarray", "require"):
        got = getattr(fnp, fn)(x)
        _eq(got, getattr(np, fn)(x))
        np.testing.assert_allclose(ftrans.grad(lambda t: fnp.sum(getattr(fnp, fn)(t) ** 2))(x),
                                   2 * x)
    _eq(fnp.ascontiguousarray(np.float64(2.0)), np.ascontiguousarray(np.float64(2.0)))
    c = np.ones(2)
    fnp.copy(c)[0] = 5.0
    assert c[0] == 1.0


def test_tracer_methods():
    x = np.array([0.0, 1.0, 2.0])
    g = ftrans.grad(lambda x: fnp.sum(x[x.nonzero()] ** 2) + fnp.sum(x.copy()))(x)
    np.testing.assert_allclose(g, [1.0, 3.0, 5.0])
    _eq(ftrans.vmap(lambda v: v.searchsorted(1.5))(np.array([[0.0, 1.0, 2.0], [2.0, 3.0, 4.0]])),
        np.array([2, 0]))
    c = [np.array([1.0, 2.0]), np.array([10.0, 20.0])]
    _eq(ftrans.vmap(lambda i: i.choose(c))(np.array([[0, 1], [1, 1]])),
        np.array([[1.0, 20.0], [10.0, 20.0]]))
