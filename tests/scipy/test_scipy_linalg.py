"""``ftrans.scipy.linalg`` against ``scipy.linalg`` (values; float64, complex128,
float32), finite differences (``check_grads`` order 2, both modes), ``jax.scipy.linalg``
(where JAX has the function), ``vmap`` and ``jit``."""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans.scipy import linalg as fl
from ftrans.testing import check_grads

sl = pytest.importorskip("scipy.linalg", reason="SciPy is the reference")

MODES = ("fwd", "rev")


def _m(rng, n, cplx=False, shift=0.0, scale=1.0):
    a = rng.standard_normal((n, n)) * scale
    if cplx:
        a = a + 1j * rng.standard_normal((n, n)) * scale
    return a + shift * np.eye(n)


def _herm(a):
    return (a + fnp.conj(fnp.swapaxes(a, -1, -2))) / 2


def _spd(rng, n, cplx=False):
    b = _m(rng, n, cplx)
    return b @ b.conj().T + n * np.eye(n)


# ---------------------------------------------------------------------------------
# matrix functions
# ---------------------------------------------------------------------------------
MATFUNS = [("expm", fl.expm, sl.expm, dict(scale=0.4)),
           ("logm", fl.logm, sl.logm, dict(scale=0.3, shift=2.0)),
           ("sqrtm", fl.sqrtm, sl.sqrtm, dict(scale=0.3, shift=2.0))]


@pytest.mark.parametrize("name,f,ref,dom", MATFUNS, ids=[m[0] for m in MATFUNS])
def test_matfun_values_and_grads(name, f, ref, dom):
    rng = np.random.default_rng(0)
    for cplx in (False, True):
        a = _m(rng, 3, cplx, **dom)
        out = f(a)
        assert out.dtype == a.dtype
        np.testing.assert_allclose(out, ref(a), rtol=1e-10, atol=1e-12)
        check_grads(f, (a,), order=2, modes=MODES)
    a32 = _m(rng, 3, **dom).astype(np.float32)
    assert f(a32).dtype == np.float32
    np.testing.assert_allclose(f(a32), np.real(ref(a32.astype(np.float64))), rtol=2e-4,
                               atol=2e-5)
    check_grads(f, (a32,), order=1, modes=("rev",))


def test_expm_frechet_vs_scipy():
    """The JVP is SciPy's ``expm_frechet`` (Al-Mohy & Higham 2009), computed independently."""
    rng = np.random.default_rng(1)
    a, e = _m(rng, 5, scale=0.6), _m(rng, 5)
    _, t = ftrans.jvp(fl.expm, (a,), (e,))
    np.testing.assert_allclose(t, sl.expm_frechet(a, e, compute_expm=False), rtol=1e-10,
                               atol=1e-12)
    # and the VJP is its adjoint: <G, L(A, E)> == <L(A^T, G), E>
    g = _m(rng, 5)
    _, vjp = ftrans.vjp(fl.expm, a)
    np.testing.assert_allclose(np.sum(vjp(g)[0] * e),
                               np.sum(g * sl.expm_frechet(a, e, compute_expm=False)),
                               rtol=1e-10)


def test_matfun_errors_and_disp():
    with pytest.raises(ValueError, match="no real principal square root"):
        fl.sqrtm(-np.eye(2))
    with pytest.raises(ValueError, match="no real principal logarithm"):
        fl.logm(np.diag([-1.0, 2.0]))
    np.testing.assert_allclose(fl.sqrtm(-np.eye(2) + 0j), 1j * np.eye(2), atol=1e-14)
    with pytest.raises(ValueError, match="square"):
        fl.expm(np.ones((2, 3)))
    a = _spd(np.random.default_rng(2), 3)
    L, err = fl.logm(a, disp=False)
    np.testing.assert_allclose(L, sl.logm(a))
    assert 0 <= err < 1e-12
    S, err = fl.sqrtm(a, disp=False)
    np.testing.assert_allclose(S, sl.sqrtm(a))
    assert 0 <= err < 1e-12


# ---------------------------------------------------------------------------------
# Sylvester / Lyapunov
# ---------------------------------------------------------------------------------
def test_sylvester_lyapunov():
    rng = np.random.default_rng(3)
    for cplx in (False, True):
        a, b = _m(rng, 4, cplx, shift=3.0), _m(rng, 3, cplx, shift=3.0)
        q = rng.standard_normal((4, 3)) + (1j * rng.standard_normal((4, 3)) if cplx else 0)
        np.testing.assert_allclose(fl.solve_sylvester(a, b, q), sl.solve_sylvester(a, b, q),
                                   rtol=1e-10, atol=1e-12)
        check_grads(fl.solve_sylvester, (a, b, q), order=2, modes=MODES)
        a4 = _m(rng, 4, cplx, shift=-3.0)
        q4 = _spd(rng, 4, cplx)
        np.testing.assert_allclose(fl.solve_continuous_lyapunov(a4, q4),
                                   sl.solve_continuous_lyapunov(a4, q4), rtol=1e-10,
                                   atol=1e-12)
        check_grads(fl.solve_continuous_lyapunov, (a4, q4), order=2, modes=MODES)
    f32 = [x.real.astype(np.float32) for x in (a, b, q)]
    assert fl.solve_sylvester(*f32).dtype == np.float32
    check_grads(fl.solve_sylvester, f32, order=1, modes=("rev",))
    with pytest.raises(ValueError, match="expected a"):
        fl.solve_sylvester(a, b, q.T)


# ---------------------------------------------------------------------------------
# solves
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("trans", [0, 1, 2])
def test_solve_triangular(trans):
    rng = np.random.default_rng(4)
    for cplx in (False, True):
        a, b = _m(rng, 4, cplx, shift=4.0), rng.standard_normal((4, 2))
        for lower in (False, True):
            for unit in (False, True):
                kw = dict(trans=trans, lower=lower, unit_diagonal=unit)
                np.testing.assert_allclose(fl.solve_triangular(a, b, **kw),
                                           sl.solve_triangular(a, b, **kw), rtol=1e-12)
                np.testing.assert_allclose(fl.solve_triangular(a, b[:, 0], **kw),
                                           sl.solve_triangular(a, b[:, 0], **kw), rtol=1e-12)
        check_grads(lambda a, b: fl.solve_triangular(a, b, trans=trans, lower=True),
                    (a, b), order=2, modes=MODES)
    check_grads(lambda a, b: fl.solve_triangular(a, b, trans, unit_diagonal=True),
                (a.real, b), order=2, modes=MODES)
    with pytest.raises(ValueError, match="trans"):
        fl.solve_triangular(a, b, trans=3)


def test_solve_banded():
    rng = np.random.default_rng(5)
    ab = rng.standard_normal((4, 6))
    ab[2] += 5.0   # (l, u) = (1, 2): the main diagonal is row u = 2
    b = rng.standard_normal((6, 2))
    np.testing.assert_allclose(fl.solve_banded((1, 2), ab, b), sl.solve_banded((1, 2), ab, b),
                               rtol=1e-12)
    np.testing.assert_allclose(fl.solve_banded((1, 2), ab, b[:, 0]),
                               sl.solve_banded((1, 2), ab, b[:, 0]), rtol=1e-12)
    abc = ab + 1j * rng.standard_normal(ab.shape)
    np.testing.assert_allclose(fl.solve_banded((1, 2), abc, b), sl.solve_banded((1, 2), abc, b),
                               rtol=1e-12)
    check_grads(lambda ab, b: fl.solve_banded((1, 2), ab, b), (ab, b), order=2, modes=MODES)
    # entries outside the band are not read: their gradient is 0
    g = ftrans.grad(lambda ab: fl.solve_banded((1, 2), ab, b).sum())(ab)
    assert g[0, 0] == g[0, 1] == g[3, 5] == 0.0
    with pytest.raises(ValueError, match="l \\+ u \\+ 1"):
        fl.solve_banded((1, 1), ab, b)


@pytest.mark.parametrize("lower", [False, True])
def test_cho(lower):
    rng = np.random.default_rng(6)
    for cplx in (False, True):
        a, b = _spd(rng, 4, cplx), rng.standard_normal((4, 3))
        c, lo = fl.cho_factor(a, lower=lower)
        c2, lo2 = sl.cho_factor(a, lower=lower)
        tri = np.tril if lower else np.triu
        assert lo == lo2
        np.testing.assert_allclose(c, tri(c2), rtol=1e-12)
        np.testing.assert_allclose(fl.cho_solve((c, lo), b), sl.cho_solve((c2, lo2), b),
                                   rtol=1e-12)
        # cho_solve reads only the factor's triangle (SciPy's garbage in the other is fine)
        np.testing.assert_allclose(fl.cho_solve((c2, lo2), b[:, 0]),
                                   sl.cho_solve((c2, lo2), b[:, 0]), rtol=1e-12)
        np.testing.assert_allclose(fl.cholesky(a, lower=lower), sl.cholesky(a, lower=lower),
                                   rtol=1e-12)
        # (cholesky reads one triangle and is differentiated as a function of the
        # Hermitian part, ftrans.numpy.linalg.cholesky's convention: compare on it)
        check_grads(lambda a, b: fl.cho_solve(fl.cho_factor(_herm(a), lower=lower), b),
                    (a, b), order=2, modes=MODES)
    # differentiable in the factor itself
    check_grads(lambda c, b: fl.cho_solve((c, lower), b), (tri(c2.real) + 0, b), order=2,
                modes=MODES)


def test_lu():
    rng = np.random.default_rng(7)
    for cplx in (False, True):
        a, b = _m(rng, 5, cplx), rng.standard_normal((5, 2))
        lu, piv = fl.lu_factor(a)
        lu2, piv2 = sl.lu_factor(a)
        np.testing.assert_allclose(lu, lu2, rtol=1e-12)
        np.testing.assert_array_equal(piv, piv2)
        for trans in (0, 1, 2):
            np.testing.assert_allclose(fl.lu_solve((lu, piv), b, trans),
                                       sl.lu_solve((lu2, piv2), b, trans), rtol=1e-10)
            check_grads(lambda a, b: fl.lu_solve(fl.lu_factor(a), b, trans), (a, b[:, 0]),
                        order=2, modes=MODES)
        check_grads(lambda a: fl.lu_factor(a)[0], (a,), order=2, modes=MODES)
        # the factors' derivative: lu_solve differentiated in lu (piv fixed)
        check_grads(lambda lu, b: fl.lu_solve((lu, piv2), b), (lu2, b), order=2, modes=MODES)
    # rectangular matrices, as SciPy (the derivative: JAX's padded-factor rule)
    for shape in ((3, 5), (5, 3), (2, 4, 3)):
        a = rng.standard_normal(shape)
        lu, piv = fl.lu_factor(a)
        for idx in np.ndindex(*shape[:-2]):
            lu2, piv2 = sl.lu_factor(a[idx])
            np.testing.assert_allclose(lu[idx], lu2, rtol=1e-12, atol=1e-12)
            np.testing.assert_array_equal(piv[idx], piv2)
        check_grads(lambda a: fl.lu_factor(a)[0], (a,), order=2, modes=MODES)
    with pytest.raises(ValueError, match="matrices"):
        fl.lu_factor(np.ones(3))


def test_lu_solve_traced_pivots():
    """Pivots produced inside jit/vmap (traced) give the same permutation."""
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((3, 5, 5)), rng.standard_normal((5,))
    f = lambda a: fl.lu_solve(fl.lu_factor(a), b)  # noqa: E731
    np.testing.assert_allclose(ftrans.jit(f)(a[0]), np.linalg.solve(a[0], b), rtol=1e-10)
    np.testing.assert_allclose(ftrans.vmap(f)(a), np.linalg.solve(a, b[None, :, None])[..., 0],
                               rtol=1e-10)


# ---------------------------------------------------------------------------------
# block_diag, polar, re-exports
# ---------------------------------------------------------------------------------
def test_block_diag():
    args = ([[1.0, 2.0]], 3.0, np.ones((2, 2)), [], [[4.0], [5.0]])
    out = fl.block_diag(*args)
    np.testing.assert_array_equal(out, sl.block_diag(*args))
    assert fl.block_diag().shape == sl.block_diag().shape
    assert fl.block_diag([[1, 2]], 3).dtype == sl.block_diag([[1, 2]], 3).dtype
    check_grads(lambda x, y: fl.block_diag(x, y), (np.ones((2, 3)), 1j * np.ones((1, 2))),
                order=2, modes=MODES)
    with pytest.raises(ValueError, match="2 or fewer"):
        fl.block_diag(np.ones((1, 1, 1)))


@pytest.mark.parametrize("side", ["right", "left"])
def test_polar(side):
    rng = np.random.default_rng(9)
    for shape, cplx in (((4, 4), False), ((4, 4), True), ((5, 3) if side == "right" else
                                                           (3, 5), False)):
        a = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if cplx else 0)
        u, p = fl.polar(a, side)
        u2, p2 = sl.polar(a, side)
        np.testing.assert_allclose(u, u2, atol=1e-10)
        np.testing.assert_allclose(p, p2, atol=1e-10)
        check_grads(lambda a: fl.polar(a, side), (a,), order=2, modes=MODES)
    with pytest.raises(ValueError, match="side"):
        fl.polar(a, "up")


def test_reexports():
    for name in ("solve", "inv", "det", "eigh", "svd", "lstsq", "pinv", "norm"):
        assert getattr(fl, name) is getattr(fnp.linalg, name)
    a = _m(np.random.default_rng(10), 4)
    for mode in ("full", "economic", "r"):
        for x, y in zip(fl.qr(a[:, :3], mode=mode), sl.qr(a[:, :3], mode=mode)):
            np.testing.assert_allclose(np.abs(x), np.abs(y), atol=1e-12)
    with pytest.raises(NotImplementedError, match="pivoting"):
        fl.qr(a, pivoting=True)


# ---------------------------------------------------------------------------------
# transforms
# ---------------------------------------------------------------------------------
def test_vmap_and_jit():
    rng = np.random.default_rng(11)
    A = rng.standard_normal((3, 4, 4)) * 0.3 + 2 * np.eye(4)
    Q = rng.standard_normal((3, 4, 4))
    fns = [fl.expm, fl.logm, fl.sqrtm, lambda a: fl.polar(a)[1],
           lambda a: fl.solve_continuous_lyapunov(-a, Q[0]),
           lambda a: fl.solve_triangular(a, Q[0], lower=True),
           lambda a: fl.cho_solve(fl.cho_factor(a @ a.T), Q[0])]
    for f in fns:
        np.testing.assert_allclose(ftrans.vmap(f)(A), np.stack([f(x) for x in A]),
                                   rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(ftrans.jit(f)(A[0]), f(A[0]), rtol=1e-12, atol=1e-13)
        loss = lambda a: fnp.sum(f(a) ** 2)  # noqa: E731
        np.testing.assert_allclose(ftrans.vmap(ftrans.grad(loss))(A),
                                   np.stack([ftrans.grad(loss)(x) for x in A]), rtol=1e-10,
                                   atol=1e-12)
    g = ftrans.vmap(fl.solve_sylvester, in_axes=(0, None, 0))(A, A[0], Q)
    np.testing.assert_allclose(g, np.stack([sl.solve_sylvester(A[i], A[0], Q[i])
                                            for i in range(3)]), rtol=1e-10)


def test_vs_jax(jax_x64):
    """Directional derivatives: ftrans's reverse mode against JAX's forward mode.

    Not compared here, each for a reason: expm (JAX's compile costs seconds; its
    derivative is checked against SciPy's independent ``expm_frechet`` above), sqrtm and
    solve_sylvester (JAX's Schur-based versions have no derivative rule), logm (absent
    from JAX), polar (JAX's QDWH iteration costs seconds to compile).  SciPy's values and
    the finite-difference checks above cover them."""
    jsl = pytest.importorskip("jax.scipy.linalg", reason="jax.scipy.linalg not available")
    jax = jax_x64
    rng = np.random.default_rng(12)
    a = _m(rng, 4, scale=0.3, shift=2.0)
    b, d = rng.standard_normal((4, 2)), rng.standard_normal((4, 4))
    pairs = [(lambda x: fl.solve_triangular(x, b, lower=True, trans=1),
              lambda x: jsl.solve_triangular(x, b, lower=True, trans=1)),
             (lambda x: fl.cho_solve(fl.cho_factor(x @ x.T), b),
              lambda x: jsl.cho_solve(jsl.cho_factor(x @ x.T), b)),
             (lambda x: fl.lu_solve(fl.lu_factor(x), b),
              lambda x: jsl.lu_solve(jsl.lu_factor(x), b)),
             (lambda x: fl.lu_factor(x)[0], lambda x: jsl.lu_factor(x)[0])]
    for f, g in pairs:
        np.testing.assert_allclose(f(a), g(a), rtol=1e-10, atol=1e-12)
        lf = lambda x: fnp.sum(fnp.sin(f(x)))  # noqa: E731
        lg = lambda x: jax.numpy.sum(jax.numpy.sin(g(x)))  # noqa: E731
        np.testing.assert_allclose(np.sum(ftrans.grad(lf)(a) * d), jax.jvp(lg, (a,), (d,))[1],
                                   rtol=1e-9)


def test_vs_hips_autograd():
    """Gradients against HIPS autograd's scipy.linalg rules (sqrtm, solve_triangular,
    solve_sylvester; solve_banded's values only: autograd 1.9.1's gradient in ``ab`` has
    the wrong shape, ``(l + u + 1, 2 n)``)."""
    ag = pytest.importorskip("autograd", reason="HIPS autograd not installed")
    import autograd.numpy as anp
    import autograd.scipy.linalg as asl
    rng = np.random.default_rng(13)
    a = _m(rng, 4, scale=0.3, shift=2.0)
    b, q = rng.standard_normal((4, 2)), rng.standard_normal((4, 4))
    ab = rng.standard_normal((3, 4)) + np.array([[0.0], [4.0], [0.0]])
    cases = [(lambda x: fl.sqrtm(x), lambda x: asl.sqrtm(x), a),
             (lambda x: fl.solve_triangular(x, b, trans=1, lower=True),
              lambda x: asl.solve_triangular(x, b, trans=1, lower=True), a),
             (lambda x: fl.solve_sylvester(x, x.T, q), lambda x: asl.solve_sylvester(x, x.T, q),
              a)]
    np.testing.assert_allclose(fl.solve_banded((1, 1), ab, b), asl.solve_banded((1, 1), ab, b),
                               rtol=1e-12)
    for f, g, x in cases:
        np.testing.assert_allclose(f(x), g(x), rtol=1e-10, atol=1e-12)
        gf = ftrans.grad(lambda x: fnp.sum(fnp.sin(f(x))))(x)
        gg = ag.grad(lambda x: anp.sum(anp.sin(g(x))))(x)
        np.testing.assert_allclose(gf, gg, rtol=1e-9, atol=1e-12)
