"""Samplers: distributions (generous statistical bounds, Kolmogorov-Smirnov against
SciPy's CDFs), shapes and dtypes, errors, vmap over keys == loop, jit == eager, and the
derivatives in the distribution parameters (``minval``/``maxval``, ``lower``/``upper``)."""
import numpy as np
import pytest

import ftrans
import ftrans.random as fr
from ftrans.testing import check_grads

stats = pytest.importorskip("scipy.stats")

N = 20000
K = fr.key(20260127)


def _ks_ok(x, cdf):
    return stats.kstest(np.asarray(x, np.float64), cdf).pvalue > 1e-4


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_uniform_distribution(dtype):
    u = np.asarray(fr.uniform(K, (N,), dtype))
    assert u.dtype == dtype and u.shape == (N,)
    assert (u >= 0).all() and (u < 1).all()
    assert abs(u.mean() - 0.5) < 0.01 and abs(u.var() - 1 / 12) < 0.005
    assert _ks_ok(u, "uniform")
    v = np.asarray(fr.uniform(K, (N,), dtype, -3.0, 5.0))
    assert (v >= -3).all() and (v < 5).all()
    assert _ks_ok(v, stats.uniform(-3, 8).cdf)
    # float64 has 52 random mantissa bits: many values below 2**-24
    if dtype == np.float64:
        assert len(np.unique(u)) == N


def test_uniform_with_array_bounds():
    lo = np.array([0.0, 10.0, -5.0])
    u = np.asarray(fr.uniform(K, (1000, 3), minval=lo, maxval=lo + 1))
    assert ((u >= lo) & (u < lo + 1)).all()
    with pytest.raises(ValueError, match="broadcast"):
        fr.uniform(K, (3,), minval=np.zeros(4))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_normal_distribution(dtype):
    x = np.asarray(fr.normal(K, (N,), dtype))
    assert x.dtype == dtype and np.isfinite(x).all()
    assert abs(x.mean()) < 0.04 and abs(x.var() - 1) < 0.05
    assert _ks_ok(x, "norm")


def test_truncated_normal_distribution():
    x = np.asarray(fr.truncated_normal(K, -0.5, 1.5, (N,)))
    assert (x > -0.5).all() and (x < 1.5).all()
    assert _ks_ok(x, stats.truncnorm(-0.5, 1.5).cdf)
    assert fr.truncated_normal(K, np.zeros(3), 1.0).shape == (3,)
    assert fr.truncated_normal(K, -1.0, 1.0, dtype=np.float32).dtype == np.float32


def test_gumbel_distribution():
    x = np.asarray(fr.gumbel(K, (N,)))
    assert np.isfinite(x).all()
    assert _ks_ok(x, "gumbel_r")


@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 0.93, 1.0])
def test_bernoulli_frequency(p):
    b = np.asarray(fr.bernoulli(K, p, (N,)))
    assert b.dtype == bool and b.shape == (N,)
    assert abs(b.mean() - p) < 0.015


def test_bernoulli_shapes():
    p = np.array([0.1, 0.9])
    assert fr.bernoulli(K, p).shape == (2,)
    m = np.asarray(fr.bernoulli(K, p, (N, 2))).mean(0)
    np.testing.assert_allclose(m, p, atol=0.015)
    assert fr.bernoulli(K).shape == ()
    with pytest.raises(ValueError, match="broadcast"):
        fr.bernoulli(K, p, (3,))


def test_categorical_frequencies_and_shapes():
    probs = np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])
    c = np.asarray(fr.categorical(K, np.log(probs), shape=(N, 2)))
    assert c.shape == (N, 2) and c.dtype.kind == "i"
    for j in range(2):
        np.testing.assert_allclose(np.bincount(c[:, j], minlength=3) / N, probs[j], atol=0.015)
    c0 = np.asarray(fr.categorical(K, np.log(probs.T), axis=0, shape=(N, 2)))
    for j in range(2):
        np.testing.assert_allclose(np.bincount(c0[:, j], minlength=3) / N, probs[j], atol=0.015)
    assert fr.categorical(K, np.zeros((4, 5))).shape == (4,)
    with pytest.raises(ValueError, match="batch shape"):
        fr.categorical(K, np.zeros((4, 5)), shape=(3,))
    with pytest.raises(ValueError, match="axis"):
        fr.categorical(K, np.zeros(3), axis=1)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint32, np.uint64])
def test_randint_range_and_uniformity(dtype):
    r = np.asarray(fr.randint(K, (N,), 2, 9, dtype))
    assert r.dtype == dtype and r.min() == 2 and r.max() == 8
    np.testing.assert_allclose(np.bincount(r - 2, minlength=7) / N, 1 / 7, atol=0.015)


def test_randint_edges():
    assert (np.asarray(fr.randint(K, (50,), 5, 5)) == 5).all()   # empty range: minval
    assert (np.asarray(fr.randint(K, (50,), 5, 2)) == 5).all()
    full = np.asarray(fr.randint(K, (N,), 0, 2 ** 32, np.uint32))  # maxval one past the max
    assert full.max() > 2 ** 31 and full.min() < 2 ** 31
    big = np.asarray(fr.randint(K, (N,), -2 ** 62, 2 ** 62))
    assert big.min() < -2 ** 61 and big.max() > 2 ** 61
    r = np.asarray(fr.randint(K, (N, 2), np.array([0, 100]), np.array([10, 103])))
    assert r[:, 0].max() == 9 and r[:, 1].min() == 100 and r[:, 1].max() == 102
    with pytest.raises(TypeError, match="integer"):
        fr.randint(K, (2,), 0, 3, np.float64)
    with pytest.raises(TypeError, match="integers"):
        fr.randint(K, (2,), 0, 2.5)


def test_permutation():
    p = np.asarray(fr.permutation(K, 100))
    assert p.dtype == np.int64 and sorted(p.tolist()) == list(range(100))
    assert (p != np.arange(100)).any()
    assert fr.permutation(K, 0).shape == (0,)
    x = np.arange(20.0).reshape(4, 5)
    y = np.asarray(fr.permutation(K, x, axis=1))
    assert (np.sort(y, 1) == x).all() and (y[0] - x[0, 0] == y[1] - x[1, 0]).all()
    yi = np.asarray(fr.permutation(K, x, axis=1, independent=True))
    assert (np.sort(yi, 1) == x).all()
    # every position equally likely for element 0
    pos = [int(np.argmax(np.asarray(fr.permutation(k, 4)) == 0)) for k in fr.split(K, 800)]
    np.testing.assert_allclose(np.bincount(pos, minlength=4) / 800, 0.25, atol=0.06)
    with pytest.raises(ValueError, match="axis"):
        fr.permutation(K, x, axis=2)


def test_choice():
    c = np.asarray(fr.choice(K, 5, (N,)))
    np.testing.assert_allclose(np.bincount(c, minlength=5) / N, 0.2, atol=0.015)
    p = np.array([0.1, 0.0, 0.6, 0.3])
    c = np.asarray(fr.choice(K, 4, (N,), p=p))
    np.testing.assert_allclose(np.bincount(c, minlength=4) / N, p, atol=0.015)
    c = np.asarray(fr.choice(K, 10, (10,), replace=False))
    assert sorted(c.tolist()) == list(range(10))
    c = np.asarray(fr.choice(K, 4, (3,), replace=False, p=p))
    assert len(set(c.tolist())) == 3 and 1 not in c.tolist()
    a = np.arange(12.0).reshape(3, 4)
    assert fr.choice(K, a, (2, 5), axis=1).shape == (3, 2, 5)
    with pytest.raises(ValueError, match="without"):
        fr.choice(K, 3, (4,), replace=False)
    with pytest.raises(ValueError, match="shape"):
        fr.choice(K, 3, (2,), p=np.ones(4) / 4)


@pytest.mark.parametrize("name", ["uniform", "normal", "gumbel", "truncated_normal"])
def test_float_samplers_reject_other_dtypes(name):
    args = (-1.0, 1.0) if name == "truncated_normal" else ()
    with pytest.raises(TypeError, match="float32 or float64"):
        getattr(fr, name)(K, *args, shape=(2,), dtype=np.int32)


def test_shapes_zero_d_and_empty():
    for f in (fr.uniform, fr.normal, fr.gumbel):
        assert f(K).shape == () and f(K, (0, 3)).shape == (0, 3)
    assert fr.randint(K, (), 0, 4).shape == () and fr.randint(K, (0,), 0, 4).shape == (0,)


SAMPLERS = {
    "uniform": lambda k: fr.uniform(k, (3,), minval=-1.0, maxval=2.0),
    "uniform32": lambda k: fr.uniform(k, (3,), np.float32),
    "normal": lambda k: fr.normal(k, (2, 3)),
    "truncated_normal": lambda k: fr.truncated_normal(k, -1.0, 0.5, (3,)),
    "gumbel": lambda k: fr.gumbel(k, (4,)),
    "bernoulli": lambda k: fr.bernoulli(k, np.array([0.2, 0.7])),
    "categorical": lambda k: fr.categorical(k, np.log(np.array([[0.3, 0.7], [0.9, 0.1]]))),
    "randint": lambda k: fr.randint(k, (5,), -3, 3),
    "randint32": lambda k: fr.randint(k, (5,), 0, 2 ** 31 - 1, np.int32),
    "permutation": lambda k: fr.permutation(k, 7),
    "permutation2d": lambda k: fr.permutation(k, np.arange(12.0).reshape(3, 4), axis=1),
    "choice": lambda k: fr.choice(k, 6, (4,), replace=False),
    "choice_p": lambda k: fr.choice(k, 3, (4,), p=np.array([0.2, 0.3, 0.5])),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_vmap_over_keys_equals_loop(name):
    f = SAMPLERS[name]
    ks = fr.split(fr.key(8), 5)
    want = np.stack([np.asarray(f(ks[i])) for i in range(5)])
    got = ftrans.vmap(f)(ks)
    np.testing.assert_array_equal(got, want)
    assert np.asarray(got).dtype == want.dtype


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_jit_equals_eager(name):
    f = SAMPLERS[name]
    g = ftrans.jit(f)
    for s in (3, 4):
        k = fr.key(s)
        np.testing.assert_array_equal(g(k), f(k))


def test_vmap_normal_over_split_keys_example():
    key = fr.key(0)
    x = ftrans.vmap(lambda k: fr.normal(k, (3,)))(fr.split(key, 8))
    assert x.shape == (8, 3) and len(np.unique(np.asarray(x))) == 24


def test_jit_with_traced_parameters():
    f = ftrans.jit(lambda k, lo, hi, p: (fr.uniform(k, (4,), minval=lo, maxval=hi),
                                         fr.bernoulli(k, p, (4,))))
    k = fr.key(1)
    u, b = f(k, -2.0, 3.0, np.float64(0.4))
    np.testing.assert_array_equal(u, fr.uniform(k, (4,), minval=-2.0, maxval=3.0))
    np.testing.assert_array_equal(b, fr.bernoulli(k, 0.4, (4,)))


def test_uniform_derivative_in_its_bounds():
    k = fr.key(2)
    check_grads(lambda lo, hi: fr.uniform(k, (5,), minval=lo, maxval=hi),
                (np.float64(-1.0), np.float64(2.0)), order=2, modes=("fwd", "rev"))
    # u = lo + U (hi - lo): d/dlo = 1 - U, d/dhi = U
    unit = np.asarray(fr.uniform(k, (5,)))
    g_lo, g_hi = ftrans.grad(lambda lo, hi: ftrans.numpy.sum(
        fr.uniform(k, (5,), minval=lo, maxval=hi)), argnums=(0, 1))(-1.0, 2.0)
    np.testing.assert_allclose(g_lo, np.sum(1 - unit))
    np.testing.assert_allclose(g_hi, np.sum(unit))


def test_truncated_normal_derivative_in_its_bounds():
    k = fr.key(4)
    check_grads(lambda lo, hi: fr.truncated_normal(k, lo, hi, (6,)),
                (np.float64(-0.7), np.float64(1.2)), order=2, modes=("fwd", "rev"))


def test_samples_carry_no_derivative_from_the_key():
    # a key is integer data: grad through a sampler with respect to a float parameter
    # only sees the parameter (normal has none: its derivative in a scale is the sample)
    k = fr.key(6)
    z = np.asarray(fr.normal(k, (3,)))
    g = ftrans.grad(lambda s: ftrans.numpy.sum(s * fr.normal(k, (3,))))(1.5)
    np.testing.assert_allclose(g, z.sum())
