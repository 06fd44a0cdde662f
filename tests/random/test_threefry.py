"""The ``threefry2x32`` primitive against the published known answers.

Known-answer vectors: the Random123 distribution's ``kat_vectors`` (Salmon, Moraes, Dror,
Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC'11), rows ``threefry2x32 20``:
counter words, key words, then the two output words.
"""
import numpy as np
import pytest

import ftrans
import ftrans.primitives as P
from ftrans.kernels import prng_cpu

# (counter0, counter1, key0, key1) -> (out0, out1)
KAT = [
    ((0x00000000, 0x00000000, 0x00000000, 0x00000000), (0x6b200159, 0x99ba4efe)),
    ((0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff), (0x1cb996fc, 0xbb002be7)),
    ((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344), (0xc4923a9c, 0x483df7a0)),
]


@pytest.mark.parametrize("inp,out", KAT)
def test_known_answers(inp, out):
    x0, x1, k0, k1 = (np.uint32(v) for v in inp)
    y0, y1 = P.threefry2x32(k0, k1, x0, x1)
    assert (int(y0), int(y1)) == out
    assert y0.dtype == np.uint32 and y1.dtype == np.uint32


def test_known_answers_vectorised_and_broadcast():
    # all three vectors in one call; and one key broadcast against many counters
    ins = np.array([i for i, _ in KAT], np.uint32).T
    y0, y1 = P.threefry2x32(ins[2], ins[3], ins[0], ins[1])
    np.testing.assert_array_equal(np.stack([y0, y1], 1), np.array([o for _, o in KAT]))
    c = np.array([[0, 0xffffffff], [0, 0xffffffff]], np.uint32)
    y0, y1 = P.threefry2x32(np.uint32(0), np.uint32(0), c[0], c[1])
    assert y0.shape == (2,) and (int(y0[0]), int(y1[0])) == KAT[0][1]


@pytest.mark.parametrize("inp,out", KAT)
def test_known_answers_under_jit_and_vmap(inp, out):
    x0, x1, k0, k1 = (np.full((3,), v, np.uint32) for v in inp)
    y0, y1 = ftrans.jit(P.threefry2x32)(k0, k1, x0, x1)
    assert (y0 == out[0]).all() and (y1 == out[1]).all()
    y0, y1 = ftrans.vmap(P.threefry2x32, in_axes=(0, 0, 0, None))(k0, k1, x0, x1[0])
    assert (y0 == out[0]).all() and (y1 == out[1]).all()


def test_rejects_other_dtypes():
    z = np.zeros(2, np.uint32)
    with pytest.raises(TypeError, match="uint32"):
        P.threefry2x32(z, z, z.astype(np.int64), z)
    with pytest.raises(TypeError, match="uint32"):
        ftrans.jit(P.threefry2x32)(z, z, z.astype(np.float32), z)


def test_has_no_derivative():
    p = ftrans.core.all_primitives()["threefry2x32"]
    assert not p.differentiable and p.jvp is None and p.vjp is None


@pytest.mark.parametrize("shapes", [((), (), (5,), (5,)), ((3, 1), (3, 1), (1, 4), (4,)),
                                    ((), (), (), ()), ((), (), (0,), (0,)),
                                    ((1001,), (1001,), (1001,), (1001,))])
def test_numba_kernel_equals_array_kernel(shapes):
    # the CPU impl (one numba loop) and the whole-array impl (CuPy, array API) agree
    rng = np.random.default_rng(len(shapes[2]))
    args = [rng.integers(0, 2 ** 32, s, dtype=np.uint64).astype(np.uint32) for s in shapes]
    a = prng_cpu.threefry2x32(*args)
    b = prng_cpu.threefry2x32_xp(np, *args)
    for u, v in zip(a, b):
        assert u.dtype == np.uint32 and u.shape == v.shape
        np.testing.assert_array_equal(u, v)


def test_array_kernel_known_answers():
    ins = np.array([i for i, _ in KAT], np.uint32).T
    y0, y1 = prng_cpu.threefry2x32_xp(np, ins[2], ins[3], ins[0], ins[1])
    np.testing.assert_array_equal(np.stack([y0, y1], 1), np.array([o for _, o in KAT]))
