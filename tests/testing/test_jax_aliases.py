"""JAX's names for JAX users' code (issue 25 item 9): ftrans.test_util.check_grads,
ftrans.block_until_ready, ftrans.typeof."""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp

try:
    import jax
except ImportError:  # pragma: no cover
    jax = None


def test_test_util_check_grads_is_testing_check_grads():
    from ftrans.test_util import check_grads
    import ftrans.testing
    assert check_grads is ftrans.testing.check_grads
    check_grads(fnp.sin, (np.array([0.3, 0.7]),), order=2)
    with pytest.raises(AssertionError):
        wrong = ftrans.custom_jvp(lambda x: fnp.sin(x))
        wrong.defjvp(lambda p, t: (fnp.sin(p[0]), 2 * t[0]))
        check_grads(wrong, (np.array([0.3]),), order=1, modes=("fwd",))


def test_block_until_ready_returns_its_argument():
    tree = {"a": np.ones(2), "b": [1.0, None]}
    assert ftrans.block_until_ready(tree) is tree
    x = np.ones(3)
    assert ftrans.block_until_ready(x) is x
    out = ftrans.jit(lambda x: ftrans.block_until_ready(x * 2))(x)
    np.testing.assert_array_equal(out, 2 * x)


@pytest.mark.parametrize("x", [np.ones((2, 3), np.float32), np.arange(4), 1.0, 2,
                               np.complex128(1j)], ids=["f32", "i64", "float", "int", "c128"])
def test_typeof(x):
    t = ftrans.typeof(x)
    assert t.shape == np.shape(x) and t.dtype == np.asarray(x).dtype
    assert t.weak_type == isinstance(x, (int, float))
    if jax is not None:
        jax.config.update("jax_enable_x64", True)
        jt = jax.typeof(x)
        assert (jt.shape, np.dtype(jt.dtype), jt.weak_type) == (t.shape, t.dtype, t.weak_type)


def test_typeof_of_tracers():
    seen = []

    def f(x):
        seen.append(ftrans.typeof(x))
        return x * 2

    ftrans.grad(lambda x: fnp.sum(f(x)))(np.ones(3, np.float32))
    ftrans.vmap(f)(np.ones((4, 2)))
    ftrans.jit(f)(np.ones((5,), np.float32))
    assert [(s.shape, s.dtype) for s in seen] == [((3,), np.float32), ((2,), np.float64),
                                                  ((5,), np.float32)]
