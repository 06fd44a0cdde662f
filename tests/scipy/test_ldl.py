"""ftrans.scipy.linalg's Bunch-Kaufman factorization and solve against LAPACK (through
scipy.linalg.lapack): the same pivots and packed factors, and solutions of A x = b."""
import numpy as np
import pytest
import scipy.linalg.lapack as lapack

import ftrans
import ftrans.scipy.linalg as fl


def _cases(kind, rng, count=40):
    for _ in range(count):
        n = int(rng.integers(1, 7))
        a = rng.standard_normal((n, n)) * rng.choice([1e-3, 1.0, 10.0], size=(n, n))
        if kind != "real":
            a = a + 1j * rng.standard_normal((n, n))
        if rng.random() < 0.3:      # small diagonals: 2x2 pivots
            a[np.diag_indices(n)] *= 1e-3
        yield a + (a.conj().T if kind == "hermitian" else a.T)


@pytest.mark.parametrize("kind", ["real", "complex", "hermitian"])
def test_matches_lapack(kind):
    rng = np.random.default_rng(3)
    for a in _cases(kind, rng):
        herm = kind == "hermitian"
        fn = {"real": lapack.dsytrf, "complex": lapack.zsytrf, "hermitian": lapack.zhetrf}[kind]
        ld2, piv2, info2 = fn(a, lower=1)
        ld, piv, info = fl.ldl_factor_packed(a, herm)
        np.testing.assert_array_equal(piv, piv2)
        assert info == info2
        np.testing.assert_allclose(ld, np.tril(ld2), rtol=1e-10, atol=1e-12)
        b = rng.standard_normal((a.shape[0], 2))
        x = fl.ldl_solve_packed(ld, piv, b, herm)
        np.testing.assert_allclose(a @ x, b, atol=1e-8 * max(1, np.abs(x).max()))


def test_batches_singular_and_traced():
    rng = np.random.default_rng(4)
    a = rng.standard_normal((2, 4, 4))
    a = a + np.swapaxes(a, -1, -2)
    ld, piv, info = fl.ldl_factor_packed(a)
    x = fl.ldl_solve_packed(ld, piv, rng.standard_normal((4, 3)))      # broadcast b
    assert x.shape == (2, 4, 3)
    assert fl.ldl_factor_packed(np.zeros((3, 3)))[2] == 1
    with pytest.raises(TypeError, match="not differentiable"):
        ftrans.grad(lambda m: fl.ldl_factor_packed(m)[0].sum())(a[0])
    with pytest.raises(ValueError):
        fl.ldl_factor_packed(np.ones((2, 3)))
