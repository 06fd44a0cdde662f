"""Differential tests against JAX's ``jax.random`` (skipped without JAX).

ftrans uses JAX's original counter layout, so the comparison runs with
``jax_threefry_partitionable=False`` (JAX's default up to 0.4.x; since 0.5 the default
is True, whose split/bits differ) and ``jax_enable_x64=True`` (64-bit seeds, float64 and
int64 as ftrans's defaults).  Keys, bits, uniform on [0, 1), bernoulli, categorical,
randint, permutation and choice are equal bit for bit; uniform on other intervals can
differ in the last bit where XLA contracts ``u * (hi - lo) + lo`` into a fused
multiply-add; normal/gumbel/truncated_normal agree to a few ulps (XLA's own ``erfinv`` and
``log``).
"""
import numpy as np
import pytest

import ftrans.random as fr

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


@pytest.fixture(autouse=True)
def jax_original_threefry():
    old = (jax.config.jax_enable_x64, jax.config.jax_threefry_partitionable)
    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_threefry_partitionable", False)
    yield
    jax.config.update("jax_enable_x64", old[0])
    jax.config.update("jax_threefry_partitionable", old[1])


SEEDS = [0, 1, 42, 2 ** 40 + 5, -7]


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("seed", SEEDS)
def test_keys_split_fold_in(seed):
    jk, k = jax.random.PRNGKey(seed), fr.key(seed)
    _same(jk, k)
    for num in (2, 3, 8):
        _same(jax.random.split(jk, num), fr.split(k, num))
    _same(jax.random.split(jk, (2, 3)), fr.split(k, (2, 3)))
    for d in (0, 1, 12345, 2 ** 32 - 1):
        _same(jax.random.fold_in(jk, d), fr.fold_in(k, d))
    _same(jax.random.fold_in(jax.random.split(jk)[1], 3), fr.fold_in(fr.split(k)[1], 3))


@pytest.mark.parametrize("shape", [(), (1,), (4,), (7,), (3, 5)])
def test_bits(shape):
    jk, k = jax.random.PRNGKey(3), fr.key(3)
    _same(jax.random.bits(jk, shape, jnp.uint32), fr.bits(k, shape))
    _same(jax.random.bits(jk, shape, jnp.uint64), fr.bits(k, shape, np.uint64))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_uniform_and_bernoulli_bitwise(dtype):
    jk, k = jax.random.PRNGKey(5), fr.key(5)
    _same(jax.random.uniform(jk, (999,), dtype), fr.uniform(k, (999,), dtype))
    p = np.asarray(0.3, dtype)
    _same(jax.random.bernoulli(jk, p, (500,)), fr.bernoulli(k, p, (500,)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_uniform_interval_to_the_last_bit(dtype):
    jk, k = jax.random.PRNGKey(5), fr.key(5)
    a = np.asarray(jax.random.uniform(jk, (999,), dtype, -2.0, 3.0))
    b = np.asarray(fr.uniform(k, (999,), dtype, -2.0, 3.0))
    # one rounding of the product (magnitude < 5) apart: 5 * eps absolutely
    np.testing.assert_allclose(b, a, rtol=0, atol=5 * np.finfo(dtype).eps)
    assert (a == b).mean() > 0.5


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["normal", "gumbel", "truncated_normal"])
def test_continuous_samplers_to_a_few_ulps(name, dtype):
    jk, k = jax.random.PRNGKey(9), fr.key(9)
    args = (-1.0, 2.0) if name == "truncated_normal" else ()
    a = np.asarray(getattr(jax.random, name)(jk, *args, shape=(2000,), dtype=dtype))
    b = np.asarray(getattr(fr, name)(k, *args, shape=(2000,), dtype=dtype))
    eps = np.finfo(dtype).eps
    np.testing.assert_allclose(b, a, rtol=64 * eps, atol=64 * eps)


def test_categorical():
    jk, k = jax.random.PRNGKey(11), fr.key(11)
    lg = np.log(np.random.default_rng(0).dirichlet(np.ones(5), size=4))
    _same(jax.random.categorical(jk, lg), fr.categorical(k, lg))
    _same(jax.random.categorical(jk, lg, shape=(6, 4)), fr.categorical(k, lg, shape=(6, 4)))
    _same(jax.random.categorical(jk, lg, axis=0), fr.categorical(k, lg, axis=0))


@pytest.mark.parametrize("dtype,lo,hi", [(np.int64, 0, 10), (np.int32, -5, 2 ** 31 - 1),
                                         (np.int64, -2 ** 40, 2 ** 50),
                                         (np.uint32, 0, 2 ** 32), (np.int32, 3, 3),
                                         (np.uint64, 7, 1000)])
def test_randint(dtype, lo, hi):
    jk, k = jax.random.PRNGKey(13), fr.key(13)
    _same(jax.random.randint(jk, (200,), lo, hi, dtype), fr.randint(k, (200,), lo, hi, dtype))


def test_permutation_and_choice():
    jk, k = jax.random.PRNGKey(17), fr.key(17)
    _same(jax.random.permutation(jk, 10), fr.permutation(k, 10))
    _same(jax.random.permutation(jk, 3000), fr.permutation(k, 3000))  # two sorting rounds
    x = np.arange(24.0).reshape(4, 6)
    _same(jax.random.permutation(jk, x, axis=1), fr.permutation(k, x, axis=1))
    _same(jax.random.permutation(jk, x, axis=1, independent=True),
          fr.permutation(k, x, axis=1, independent=True))
    p = np.array([0.1, 0.2, 0.3, 0.4])
    _same(jax.random.choice(jk, 10, (3, 2)), fr.choice(k, 10, (3, 2)))
    _same(jax.random.choice(jk, x, (3,), replace=False, axis=1),
          fr.choice(k, x, (3,), replace=False, axis=1))
    _same(jax.random.choice(jk, 4, (50,), p=p), fr.choice(k, 4, (50,), p=p))
    _same(jax.random.choice(jk, 4, (3,), replace=False, p=p),
          fr.choice(k, 4, (3,), replace=False, p=p))


def test_partitionable_mode_differs_and_is_not_claimed():
    # JAX's current default layout gives other split keys: documented, not matched
    jax.config.update("jax_threefry_partitionable", True)
    assert not np.array_equal(np.asarray(jax.random.split(jax.random.PRNGKey(0), 4)),
                              np.asarray(fr.split(fr.key(0), 4)))
    # fold_in does not depend on the layout
    _same(jax.random.fold_in(jax.random.PRNGKey(0), 5), fr.fold_in(fr.key(0), 5))
