"""ftrans.scipy.linalg's Householder QR compositions (geqrf, ormqr, householder_product)
against LAPACK through SciPy, and their derivatives by finite differences."""
import numpy as np
import pytest
import scipy.linalg as sl

import ftrans.scipy.linalg as fl
from ftrans.testing import check_grads

MODES = ("fwd", "rev")


def _rand(rng, shape, cplx):
    a = rng.standard_normal(shape)
    return a + 1j * rng.standard_normal(shape) if cplx else a


@pytest.mark.parametrize("cplx", [False, True])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_geqrf_matches_lapack(shape, cplx):
    rng = np.random.default_rng(0)
    a = _rand(rng, (2,) + shape, cplx)
    qr, tau = fl.geqrf(a)
    for i in range(2):
        (qr2, tau2), _ = sl.qr(a[i], mode="raw")
        np.testing.assert_allclose(qr[i], qr2, atol=1e-12)
        np.testing.assert_allclose(tau[i], tau2, atol=1e-12)
    # Q R reconstructs a
    m, n = shape
    q = fl.householder_product(np.concatenate([qr, np.zeros((2, m, max(m - n, 0)))], -1)
                               if m > n else qr[..., :, :m], tau)
    r = np.triu(qr)[..., :m, :] if m <= n else np.triu(qr)
    q = q[..., :, :min(m, n)] if m > n else q
    np.testing.assert_allclose(q @ r[..., :min(m, n), :], a, atol=1e-12)


@pytest.mark.parametrize("cplx", [False, True])
def test_ormqr_and_householder_product(cplx):
    rng = np.random.default_rng(1)
    a = _rand(rng, (5, 3), cplx)
    (qr, tau), _ = sl.qr(a, mode="raw")
    qfull = sl.qr(a)[0]
    c = _rand(rng, (5, 2), cplx)
    np.testing.assert_allclose(fl.ormqr(qr, tau, c), qfull @ c, atol=1e-12)
    np.testing.assert_allclose(fl.ormqr(qr, tau, c, transpose=True), qfull.conj().T @ c,
                               atol=1e-12)
    np.testing.assert_allclose(fl.ormqr(qr, tau, c.T, left=False), c.T @ qfull, atol=1e-12)
    np.testing.assert_allclose(fl.householder_product(qr, tau), qfull[:, :3], atol=1e-12)
    check_grads(fl.householder_product, (qr, tau), order=2, modes=MODES)
    check_grads(lambda a, t, c: fl.ormqr(a, t, c, True, True), (qr, tau, c), order=2,
                modes=MODES)
    check_grads(lambda a, t, c: fl.ormqr(a, t, c, False, False), (qr, tau, c.T), order=2,
                modes=MODES)
    check_grads(lambda x: fl.geqrf(x)[0], (a,), order=2, modes=MODES)


def test_bad_shapes():
    with pytest.raises(ValueError):
        fl.householder_product(np.ones((2, 3)), np.ones(1))
    with pytest.raises(ValueError):
        fl.ormqr(np.ones((3, 2)), np.ones(2), np.ones((4, 2)))
    with pytest.raises(ValueError):
        fl.geqrf(np.ones(3))
