"""Derivatives of the functions that read one triangle of a Hermitian input (issue 25,
bug 3): cholesky, eigh, eigvalsh, svd(hermitian=True), pinv(hermitian=True).

They are differentiated as ``a -> f((a + a^H) / 2)``, as JAX and PyTorch do: the gradient
of a Hermitian input is Hermitian (on main, cholesky's was lower triangular with doubled
off-diagonals).  Checked against JAX and PyTorch and against finite differences along
Hermitian directions; JVP and VJP agree (<u, J t> = Re<J^T u, t>) for any direction.
"""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp

try:
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
except ImportError:  # pragma: no cover
    jax = jnp = None
try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

N = 4
W = np.random.default_rng(7).standard_normal((N, N))


def _herm(dtype, seed=0):
    rng = np.random.default_rng(seed)
    b = rng.standard_normal((N, N))
    if np.dtype(dtype).kind == "c":
        b = b + 1j * rng.standard_normal((N, N))
    q = np.linalg.qr(b)[0]
    return ((q * np.linspace(1.0, 3.0, N)) @ q.conj().T).astype(dtype)


def _loss(xp, name):
    """A real loss of each function, written for ftrans.numpy, jax.numpy or torch."""
    la = xp.linalg
    herm = (lambda a: a.mH) if xp is torch else (lambda a: xp.conj(a).T)

    w_ = torch.tensor(W) if xp is torch else W

    def mix(m):  # a real functional of a complex matrix
        return (xp.real(m) * w_).sum() + (xp.imag(m) * w_.T).sum() if _cplx(m) else \
            (m * w_).sum()

    def _cplx(m):
        return m.is_complex() if xp is torch else np.iscomplexobj(m)

    def f(a):
        if name == "cholesky":
            return mix(la.cholesky(a))
        if name == "eigh":        # gauge invariant: V diag(c) V^H and the eigenvalues
            w, v = la.eigh(a)
            return mix((v * (w ** 2 + xp.arange(1, N + 1))) @ herm(v)) + (w ** 3).sum()
        if name == "eigvalsh":
            return (la.eigvalsh(a) * xp.arange(1, N + 1)).sum()
        if name == "pinv":
            return mix(la.pinv(a, hermitian=True))
        return (la.svdvals(a) ** 3).sum() if xp is torch else \
            (la.svd(a, hermitian=True, compute_uv=False) ** 3).sum()
    return f


NAMES = ["cholesky", "eigh", "eigvalsh", "pinv", "svd"]
DTYPES = [np.float64, np.complex128]


@pytest.mark.parametrize("dtype", DTYPES, ids=["f64", "c128"])
@pytest.mark.parametrize("name", NAMES)
def test_gradient_is_hermitian_and_matches_finite_differences(name, dtype):
    a = _herm(dtype)
    f = _loss(fnp, name)
    g = np.asarray(ftrans.grad(f)(a))
    np.testing.assert_allclose(g, g.conj().T, atol=1e-13)
    if name == "cholesky":  # (jit compiles take seconds; one row is enough)
        np.testing.assert_allclose(ftrans.jit(ftrans.grad(f))(a), g, rtol=1e-12, atol=1e-13)
    rng = np.random.default_rng(1)
    for _ in range(2):  # directional derivatives along Hermitian directions
        e = rng.standard_normal((N, N)) + (1j * rng.standard_normal((N, N))
                                           if np.dtype(dtype).kind == "c" else 0)
        e = e + e.conj().T
        h = 1e-6
        fd = (f(a + h * e) - f(a - h * e)) / (2 * h)
        np.testing.assert_allclose(np.real(np.sum(np.conj(g) * e)), fd, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f64", "c128"])
@pytest.mark.parametrize("name", NAMES)
def test_jvp_and_vjp_agree_in_any_direction(name, dtype):
    """<u, J t> == Re<J^T u, t> with t not Hermitian: the tangent is symmetrized exactly as
    the cotangent is (the holomorphic and real paths use the same linear map)."""
    a = _herm(dtype, 2)
    rng = np.random.default_rng(3)
    t = rng.standard_normal((N, N)) + (1j * rng.standard_normal((N, N))
                                       if np.dtype(dtype).kind == "c" else 0)
    fn = {"cholesky": fnp.linalg.cholesky, "eigh": lambda x: fnp.linalg.eigh(x)[0],
          "eigvalsh": fnp.linalg.eigvalsh, "pinv": lambda x: fnp.linalg.pinv(x, hermitian=True),
          "svd": lambda x: fnp.linalg.svd(x, hermitian=True, compute_uv=False)}[name]
    out, jt = ftrans.jvp(fn, (a,), (t.astype(dtype),))
    u = rng.standard_normal(np.shape(out)) + (1j * rng.standard_normal(np.shape(out))
                                              if np.iscomplexobj(out) else 0)
    u = u.astype(np.asarray(out).dtype)
    (vt,) = ftrans.vjp(fn, a)[1](u)
    np.testing.assert_allclose(np.real(np.vdot(u, jt)), np.real(np.vdot(vt, t)), rtol=1e-12)
    if np.dtype(dtype).kind == "f":
        np.testing.assert_allclose(ftrans.jacfwd(fn)(a), ftrans.jacrev(fn)(a), atol=1e-12)


@pytest.mark.skipif(jax is None, reason="jax is not installed")
@pytest.mark.parametrize("dtype", DTYPES, ids=["f64", "c128"])
@pytest.mark.parametrize("name", NAMES)
def test_gradient_matches_jax(name, dtype):
    a = _herm(dtype, 4)
    g = ftrans.grad(_loss(fnp, name))(a)
    jg = np.asarray(jax.grad(_loss(jnp, name))(jnp.asarray(a)))
    # ftrans returns PyTorch's complex gradient, the conjugate of JAX's (DESIGN.md)
    np.testing.assert_allclose(g, np.conj(jg), rtol=1e-10, atol=1e-12)


@pytest.mark.skipif(torch is None, reason="torch is not installed")
@pytest.mark.parametrize("dtype", DTYPES, ids=["f64", "c128"])
@pytest.mark.parametrize("name", NAMES)
def test_gradient_matches_torch(name, dtype):
    a = _herm(dtype, 5)
    g = np.asarray(ftrans.grad(_loss(fnp, name))(a))
    at = torch.tensor(a, requires_grad=True)
    _loss(torch, name)(at).backward()
    tg = at.grad.numpy()
    if name == "pinv" or (name == "cholesky" and np.dtype(dtype).kind == "c"):
        # PyTorch's gradients of pinv(hermitian=True) and of the complex cholesky are not
        # Hermitian; their Hermitian part (all that a Hermitian direction sees) is
        # ftrans's and JAX's
        assert np.abs(tg - tg.conj().T).max() > 1e-3
        tg = (tg + tg.conj().T) / 2
    np.testing.assert_allclose(g, tg, rtol=1e-10, atol=1e-12)


def test_cholesky_gradient_regression():
    """On main: tril(2 G - diag G) instead of the Hermitian G."""
    a = _herm(np.float64, 6)
    g = ftrans.grad(lambda a: fnp.sum(fnp.linalg.cholesky(a) * W))(a)
    assert np.abs(np.triu(g, 1)).max() > 1e-3
    np.testing.assert_allclose(g, g.T, atol=1e-14)
