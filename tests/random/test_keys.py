"""Keys: construction, split, fold_in, bits -- determinism, independence, shapes,
errors, and the transforms (vmap over keys, jit with keys as arguments)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import ftrans
import ftrans.random as fr

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.mark.parametrize("seed,words", [(0, (0, 0)), (42, (0, 42)), (2 ** 32 + 7, (1, 7)),
                                        (-1, (0xFFFFFFFF, 0xFFFFFFFF)),
                                        (np.int32(5), (0, 5)), (2 ** 64 - 1, (2 ** 32 - 1,) * 2)])
def test_key_words_are_the_64_bit_seed(seed, words):
    k = fr.key(seed)
    assert k.dtype == np.uint32 and k.shape == (2,)
    assert tuple(int(w) for w in k) == words
    assert (fr.PRNGKey(seed) == k).all()


@pytest.mark.parametrize("seed,exc", [(1.5, TypeError), ("3", TypeError), (True, TypeError),
                                      (np.arange(2), TypeError), (2 ** 64, ValueError),
                                      (-2 ** 63 - 1, ValueError)])
def test_key_rejects_bad_seeds(seed, exc):
    with pytest.raises(exc, match="seed"):
        fr.key(seed)


@pytest.mark.parametrize("fn", [lambda k: fr.split(k), lambda k: fr.fold_in(k, 1),
                                lambda k: fr.bits(k, (2,)), lambda k: fr.normal(k),
                                lambda k: fr.uniform(k), lambda k: fr.randint(k, (), 0, 3),
                                lambda k: fr.permutation(k, 3),
                                lambda k: fr.bernoulli(k),
                                lambda k: fr.categorical(k, np.zeros(3))])
@pytest.mark.parametrize("bad,exc", [(np.zeros(2, np.int32), TypeError),
                                     (np.zeros(2, np.float64), TypeError),
                                     (np.zeros(3, np.uint32), ValueError),
                                     (np.zeros((4, 2), np.uint32), ValueError),
                                     ([0, 0], TypeError), (0, TypeError)])
def test_bad_keys_raise_saying_what_a_key_is(fn, bad, exc):
    with pytest.raises(exc, match=r"uint32|key"):
        fn(bad)


def test_bad_key_under_jit_raises_too():
    with pytest.raises(TypeError, match="uint32"):
        ftrans.jit(lambda k: fr.normal(k, (2,)))(np.zeros(2, np.int64))


def test_split_shapes_and_distinct_keys():
    k = fr.key(0)
    ks = fr.split(k, 1000)
    assert ks.shape == (1000, 2) and ks.dtype == np.uint32
    assert len({tuple(r) for r in np.asarray(ks).tolist()}) == 1000
    assert fr.split(k).shape == (2, 2)
    assert fr.split(k, (2, 3)).shape == (2, 3, 2)
    assert fr.split(k, 0).shape == (0, 2)
    assert not (fr.split(k, 2) == k).all(axis=1).any()
    with pytest.raises(ValueError, match="negative"):
        fr.split(k, -1)


def test_fold_in_distinct_and_data_forms():
    k = fr.key(3)
    out = np.stack([np.asarray(fr.fold_in(k, d)) for d in range(200)])
    assert len({tuple(r) for r in out.tolist()}) == 200
    assert (fr.fold_in(k, 2 ** 32 + 5) == fr.fold_in(k, 5)).all()  # modulo 2**32
    assert (fr.fold_in(k, np.int32(5)) == fr.fold_in(k, 5)).all()
    assert (fr.fold_in(k, np.array(5, np.uint8)) == fr.fold_in(k, 5)).all()
    for bad in (1.0, np.zeros(2, np.int64), np.float64(1), "1"):
        with pytest.raises(TypeError, match="integer"):
            fr.fold_in(k, bad)


def test_bits_shapes_dtypes():
    k = fr.key(1)
    for shape in [(), (0,), (5,), (3, 4), (1, 7, 1)]:
        b = fr.bits(k, shape)
        assert b.shape == shape and b.dtype == np.uint32
        assert fr.bits(k, shape, np.uint64).dtype == np.uint64
    with pytest.raises(TypeError, match="uint32 or uint64"):
        fr.bits(k, (2,), np.int32)
    # 64-bit values use the whole range: the high word is not always zero
    assert (fr.bits(k, (64,), np.uint64) > 2 ** 32).any()


def test_streams_differ_between_keys():
    a, b = fr.split(fr.key(0))
    xa, xb = np.asarray(fr.bits(a, (1000,))), np.asarray(fr.bits(b, (1000,)))
    assert (xa != xb).mean() > 0.99
    assert (np.asarray(fr.bits(fr.fold_in(a, 0), (1000,))) != xa).mean() > 0.99
    # the bits of different keys are uncorrelated
    assert abs(np.corrcoef(xa.astype(float), xb.astype(float))[0, 1]) < 0.15


def test_deterministic_across_calls():
    k = fr.key(123)
    for f in (lambda: fr.split(k, 4), lambda: fr.bits(k, (7,)), lambda: fr.normal(k, (5,)),
              lambda: fr.permutation(k, 20)):
        np.testing.assert_array_equal(f(), f())


def test_deterministic_across_processes():
    code = ("import numpy as np, ftrans.random as fr; k = fr.key(2024); "
            "print(np.asarray(fr.split(k, 3)).tolist(), np.asarray(fr.bits(k, (4,))).tolist(), "
            "repr(float(fr.normal(fr.fold_in(k, 9), (2,))[1])))")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    k = fr.key(2024)
    want = (f"{np.asarray(fr.split(k, 3)).tolist()} {np.asarray(fr.bits(k, (4,))).tolist()} "
            f"{float(fr.normal(fr.fold_in(k, 9), (2,))[1])!r}")
    assert out.stdout.strip() == want


def test_bits_are_prefix_independent_of_nothing_global():
    # no global state: drawing from one key does not change another's stream
    k1, k2 = fr.split(fr.key(7))
    before = np.asarray(fr.bits(k2, (10,)))
    fr.bits(k1, (1000,))
    np.testing.assert_array_equal(fr.bits(k2, (10,)), before)


KEY_FNS = {
    "split": lambda k: fr.split(k, 3),
    "fold_in": lambda k: fr.fold_in(k, 11),
    "bits32_odd": lambda k: fr.bits(k, (5,)),
    "bits64": lambda k: fr.bits(k, (2, 3), np.uint64),
}


@pytest.mark.parametrize("name", sorted(KEY_FNS))
def test_vmap_over_keys_equals_loop(name):
    f = KEY_FNS[name]
    ks = fr.split(fr.key(5), 6)
    want = np.stack([np.asarray(f(ks[i])) for i in range(6)])
    np.testing.assert_array_equal(ftrans.vmap(f)(ks), want)
    # keys along another axis, results along another axis
    np.testing.assert_array_equal(ftrans.vmap(f, in_axes=1, out_axes=-1)(ks.T),
                                  np.moveaxis(want, 0, -1))


@pytest.mark.parametrize("name", sorted(KEY_FNS))
def test_jit_equals_eager(name):
    f = KEY_FNS[name]
    k = fr.key(99)
    g = ftrans.jit(f)
    np.testing.assert_array_equal(g(k), f(k))
    k2 = fr.key(100)  # same compiled program, another traced key
    np.testing.assert_array_equal(g(k2), f(k2))


def test_fold_in_with_traced_and_batched_data():
    k = fr.key(0)
    np.testing.assert_array_equal(ftrans.jit(fr.fold_in)(k, np.int64(5)), fr.fold_in(k, 5))
    want = np.stack([np.asarray(fr.fold_in(k, i)) for i in range(4)])
    np.testing.assert_array_equal(ftrans.vmap(lambda d: fr.fold_in(k, d))(np.arange(4)), want)


def test_nested_vmap_over_split_keys():
    ks = fr.split(fr.key(1), (3, 4))
    got = ftrans.vmap(ftrans.vmap(lambda k: fr.bits(k, (2,))))(ks)
    want = np.array([[np.asarray(fr.bits(ks[i, j], (2,))) for j in range(4)] for i in range(3)])
    np.testing.assert_array_equal(got, want)
