"""``ftrans.numpy.linalg`` and ``einsum`` beyond the breadth table (tests/numpy/breadth_table.py,
``# --- linalg ---``, which checks every function's values, finite differences of order 2
and vmap):

* gradients at the non-differentiable points the module documents: every norm at the
  zero vector/matrix (0, never NaN), repeated eigenvalues and singular values for losses
  of the values only;
* scalar losses and Hessians against JAX (x64), skipped with a reason without JAX;
* errors: NumPy's exception types and a message for malformed input, AttributeError for
  a ``numpy.linalg`` name ftrans does not provide, NotImplementedError for the
  derivatives that do not exist (full_matrices=True of a non-square matrix);
* einsum against numpy.einsum on many subscripts (and its errors).
"""
from __future__ import annotations

import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans.testing import check_grads

try:
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
except Exception:  # pragma: no cover - depends on the environment
    jax = None

needs_jax = pytest.mark.skipif(jax is None, reason="JAX is not installed (differential "
                               "reference)")
la = fnp.linalg


def _rng(seed=0):
    return np.random.default_rng(seed)


def _orth(rng, n, complex_=False):
    z = rng.standard_normal((n, n))
    if complex_:
        z = z + 1j * rng.standard_normal((n, n))
    return np.linalg.qr(z)[0]


def _herm(rng, n, complex_=False, w=None):
    q = _orth(rng, n, complex_)
    w = np.linspace(1, 3, n) if w is None else np.asarray(w, float)
    return (q * w) @ q.conj().T


def _spd(rng, n):
    b = rng.standard_normal((n, n))
    return b @ b.T + n * np.eye(n)


# ---------------------------------------------------------------------------------
# norms at zero: the minimum-norm subgradient (0), never NaN
# ---------------------------------------------------------------------------------
_VEC_ORDS = [None, 1, 2, np.inf, -np.inf, 0, 3, 0.5, -1, -2.5]
_MAT_ORDS = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]


@pytest.mark.parametrize("ord", _VEC_ORDS)
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_vector_norm_gradient_at_zero_is_zero(ord, dtype):
    x = np.zeros(4, dtype)
    val = la.norm(x, ord)
    assert val == np.linalg.norm(x, ord)
    g = ftrans.grad(lambda x: la.norm(x, ord))(x)
    assert g.dtype == x.dtype and np.all(g == 0), g
    # forward mode too
    _, t = ftrans.jvp(lambda x: la.norm(x, ord), (x,), (np.ones(4, dtype),))
    assert np.isfinite(t)


@pytest.mark.parametrize("ord", _MAT_ORDS)
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_matrix_norm_gradient_at_zero_is_zero(ord, dtype):
    x = np.zeros((3, 4), dtype)
    assert la.norm(x, ord) == np.linalg.norm(x, ord)
    g = ftrans.grad(lambda x: la.norm(x, ord))(x)
    assert g.dtype == x.dtype and np.all(g == 0), g


@pytest.mark.parametrize("ord", [3, 0.5, -1, -np.inf, 1, 2])
def test_vector_norm_gradient_with_a_zero_element_is_finite(ord):
    x = np.array([0.0, 1.5, -2.0])
    g = ftrans.grad(lambda x: la.norm(x, ord))(x)
    assert np.all(np.isfinite(g)), g
    assert g[0] == 0.0  # abs'(0) = 0 (and for p < 0 the norm is 0 near such a point)
    if ord in (3, 1, 2):  # differentiable in the other components: finite differences
        check_grads(lambda y: la.norm(fnp.concatenate([np.zeros(1), y]), ord), (x[1:],),
                    order=2, modes=("fwd", "rev"))


def test_two_norm_gradient_away_from_zero():
    x = np.array([3.0, -4.0])
    np.testing.assert_allclose(ftrans.grad(la.norm)(x), x / 5.0)


# ---------------------------------------------------------------------------------
# repeated eigenvalues / singular values: value-only losses keep exact gradients
# ---------------------------------------------------------------------------------
def test_eigvalsh_gradient_at_repeated_eigenvalues():
    rng = _rng(1)
    a = _herm(rng, 4, w=[1.0, 2.0, 2.0, 3.0])
    a = (a + a.T) / 2
    # sum(w^2) = ||A||_F^2 for symmetric A; eigvalsh is differentiated as a function of
    # the Hermitian part (a + a^H) / 2 (as JAX and PyTorch), so the gradient is 2 a
    g = ftrans.grad(lambda a: fnp.sum(la.eigvalsh(a) ** 2))(a)
    np.testing.assert_allclose(g, 2 * a, atol=1e-10)
    assert np.all(np.isfinite(g))
    # the identity: every eigenvalue equal
    g = ftrans.grad(lambda a: fnp.sum(la.eigvalsh(a) ** 2))(np.eye(3))
    np.testing.assert_allclose(g, 2 * np.eye(3), atol=1e-12)


def test_svdvals_gradient_at_repeated_singular_values():
    rng = _rng(2)
    q = _orth(rng, 3)
    a = 2.0 * q                        # every singular value 2
    g = ftrans.grad(lambda a: fnp.sum(la.svdvals(a)))(a)   # nuclear norm: U V^T = q
    np.testing.assert_allclose(g, q, atol=1e-10)
    g = ftrans.grad(lambda a: la.norm(a, "nuc"))(a)
    np.testing.assert_allclose(g, q, atol=1e-10)
    # spectral norm at the identity: ties share the gradient evenly (minimum-norm)
    g = ftrans.grad(lambda a: la.norm(a, 2))(np.eye(3))
    np.testing.assert_allclose(g, np.eye(3) / 3, atol=1e-12)


def test_eigh_gauge_invariant_loss_at_distinct_eigenvalues_matches_fd():
    rng = _rng(3)
    for cplx in (False, True):
        a = _herm(rng, 4, cplx)

        def f(a):
            # differentiated as a -> eigh((a + a^H)/2) (JAX's, PyTorch's convention):
            # finite differences in arbitrary directions see it through the symmetrization
            w, v = la.eigh((a + fnp.conj(a).T) / 2)
            p = v[:, :1] @ fnp.conj(v[:, :1]).T          # projector on the first
            return fnp.real(fnp.sum(p * np.arange(16).reshape(4, 4))) + fnp.sum(w ** 3)
        check_grads(f, (a,), order=2, modes=("fwd", "rev"))


# ---------------------------------------------------------------------------------
# derivatives that do not exist: a clear error
# ---------------------------------------------------------------------------------
def test_svd_full_matrices_non_square_has_no_derivative():
    a = _rng(4).standard_normal((4, 2))
    u, s, vh = la.svd(a)                      # values: NumPy's default full_matrices=True
    assert u.shape == (4, 4)
    with pytest.raises(NotImplementedError, match="full_matrices=False"):
        ftrans.grad(lambda a: fnp.sum(la.svd(a)[0]))(a)
    # the reduced decomposition is differentiable
    ftrans.grad(lambda a: fnp.sum(la.svd(a, full_matrices=False).S))(a)


def test_qr_complete_tall_has_no_derivative():
    a = _rng(5).standard_normal((4, 2))
    with pytest.raises(NotImplementedError, match="reduced"):
        ftrans.grad(lambda a: fnp.sum(la.qr(a, "complete").R))(a)


# ---------------------------------------------------------------------------------
# errors and namespace
# ---------------------------------------------------------------------------------
def test_errors_follow_numpy():
    with pytest.raises(np.linalg.LinAlgError):
        la.inv(np.ones((2, 3)))
    with pytest.raises(np.linalg.LinAlgError):
        la.det(np.ones(3))
    with pytest.raises(np.linalg.LinAlgError):
        la.solve(np.zeros((2, 2)), np.ones(2))     # singular
    with pytest.raises(ValueError, match="does not match"):
        la.solve(np.eye(2), np.ones(3))
    with pytest.raises(ValueError, match="Invalid norm order"):
        la.norm(np.ones(3), "fro")
    with pytest.raises(ValueError, match="Invalid norm order for matrices"):
        la.norm(np.ones((2, 2)), 3)
    with pytest.raises(ValueError, match="Duplicate axes"):
        la.norm(np.ones((2, 2)), axis=(1, 1))
    with pytest.raises(ValueError, match="Improper number of dimensions"):
        la.norm(np.ones((2, 2, 2)), axis=(0, 1, 2))
    with pytest.raises(TypeError, match="integer"):
        la.matrix_power(np.eye(2), 1.5)
    with pytest.raises(ValueError, match="UPLO"):
        la.eigh(np.eye(2), "X")
    with pytest.raises(NotImplementedError, match="raw"):
        la.qr(np.eye(2), "raw")
    with pytest.raises(np.linalg.LinAlgError):
        la.cholesky(-np.eye(2))


def test_missing_names_raise_attribute_error():
    # (every numeric numpy.linalg function is covered; numpy.linalg.test is not numeric)
    with pytest.raises(AttributeError, match="numpy.linalg.test queries or sets NumPy"):
        la.test
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        la.nonsense
    assert fnp.linalg is la
    for name in ("solve", "inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh", "svd", "qr",
                 "norm", "pinv", "lstsq", "matrix_power", "trace", "multi_dot"):
        assert callable(getattr(la, name))
    for name in ("einsum", "kron", "cross", "tensordot", "inner", "vdot"):
        assert callable(getattr(fnp, name))


def test_result_types_are_namedtuples_like_numpy():
    a = _herm(_rng(6), 3)
    r = la.eigh(a)
    assert r._fields == np.linalg.eigh(a)._fields
    assert la.svd(a)._fields == np.linalg.svd(a)._fields
    assert la.qr(a)._fields == np.linalg.qr(a)._fields
    assert la.slogdet(a)._fields == np.linalg.slogdet(a)._fields
    x, res, rank, s = la.lstsq(np.ones((3, 2)) + np.eye(3, 2), np.ones(3))
    xr, resr, rankr, sr = np.linalg.lstsq(np.ones((3, 2)) + np.eye(3, 2), np.ones(3))
    assert rank == rankr and type(rank) is type(rankr) and res.shape == resr.shape


def test_integer_inputs_are_cast_like_numpy():
    a = np.array([[2, 1], [1, 3]])
    np.testing.assert_allclose(la.inv(a), np.linalg.inv(a))
    assert la.det(a).dtype == np.linalg.det(a).dtype
    assert la.norm(np.arange(3)).dtype == np.float64


def test_float32_stays_float32():
    a = _spd(_rng(7), 3).astype(np.float32)
    for f in (la.inv, la.det, la.cholesky, la.eigvalsh, la.svdvals, la.pinv, la.norm):
        assert np.asarray(f(a)).dtype == np.float32, f
        g = ftrans.grad(lambda a: fnp.real(fnp.sum(f(a))))(a)
        assert g.dtype == np.float32, f


def test_lstsq_vmap_over_b_and_a():
    rng = _rng(8)
    a = rng.standard_normal((5, 3))
    bs = rng.standard_normal((4, 5))
    xs = ftrans.vmap(lambda b: la.lstsq(a, b)[0])(bs)
    np.testing.assert_allclose(xs, np.stack([np.linalg.lstsq(a, b)[0] for b in bs]))
    as_ = rng.standard_normal((4, 5, 3))
    out = ftrans.vmap(lambda a: la.lstsq(a, bs[0]))(as_)
    for k, a_k in enumerate(as_):
        want = np.linalg.lstsq(a_k, bs[0])
        np.testing.assert_allclose(out[0][k], want[0])
        np.testing.assert_allclose(out[1][k], want[1])
        assert out[2][k] == want[2]


# ---------------------------------------------------------------------------------
# scalar losses and Hessians against JAX
# ---------------------------------------------------------------------------------
def _losses():
    """(name, ftrans loss, jax loss, input maker)."""
    def sym(xp, a):
        return (a + xp.conj(xp.swapaxes(a, -1, -2))) / 2
    return [
        ("logdet", lambda a: la.slogdet(a)[1], lambda a: jnp.linalg.slogdet(a)[1],
         lambda r: np.eye(3) * 3 + r.standard_normal((3, 3))),
        ("trace_inv", lambda a: fnp.trace(la.inv(a)), lambda a: jnp.trace(jnp.linalg.inv(a)),
         lambda r: np.eye(3) * 3 + r.standard_normal((3, 3))),
        ("det", la.det, jnp.linalg.det if jax else None,
         lambda r: np.eye(3) * 2 + r.standard_normal((3, 3))),
        ("solve_quad", lambda a: fnp.sum(la.solve(a, np.arange(3.0)) ** 2),
         lambda a: jnp.sum(jnp.linalg.solve(a, jnp.arange(3.0)) ** 2),
         lambda r: np.eye(3) * 3 + r.standard_normal((3, 3))),
        ("chol_logdet", lambda a: 2 * fnp.sum(fnp.log(fnp.diagonal(la.cholesky(sym(fnp, a))))),
         lambda a: 2 * jnp.sum(jnp.log(jnp.diagonal(jnp.linalg.cholesky(sym(jnp, a))))),
         lambda r: _spd(r, 3)),
        ("eigh_loss", lambda a: fnp.sum(la.eigvalsh(sym(fnp, a)) ** 3)
         + fnp.sum((lambda wv: (wv[1] * wv[0]) @ wv[1].T)(la.eigh(sym(fnp, a)))
                   * np.arange(9.0).reshape(3, 3)),
         lambda a: jnp.sum(jnp.linalg.eigvalsh(sym(jnp, a)) ** 3)
         + jnp.sum((lambda wv: (wv[1] * wv[0]) @ wv[1].T)(jnp.linalg.eigh(sym(jnp, a)))
                   * jnp.arange(9.0).reshape(3, 3)),
         lambda r: _herm(r, 3)),
        ("nuclear", lambda a: la.norm(a, "nuc"), lambda a: jnp.linalg.norm(a, "nuc"),
         lambda r: r.standard_normal((4, 3))),
        ("spectral", lambda a: la.norm(a, 2), lambda a: jnp.linalg.norm(a, 2),
         lambda r: r.standard_normal((3, 4))),
        ("svd_vectors", lambda a: fnp.sum((lambda usv: (usv[0] * usv[1] ** 2) @ usv[2])(
            la.svd(a, full_matrices=False)) * np.arange(12.0).reshape(4, 3)),
         lambda a: jnp.sum((lambda usv: (usv[0] * usv[1] ** 2) @ usv[2])(
             jnp.linalg.svd(a, full_matrices=False)) * jnp.arange(12.0).reshape(4, 3)),
         lambda r: r.standard_normal((4, 3))),
        ("qr_loss", lambda a: fnp.sum(la.qr(a).Q * np.arange(12.0).reshape(4, 3))
         + fnp.sum(la.qr(a).R ** 2 * np.arange(9.0).reshape(3, 3)),
         lambda a: jnp.sum(jnp.linalg.qr(a)[0] * jnp.arange(12.0).reshape(4, 3))
         + jnp.sum(jnp.linalg.qr(a)[1] ** 2 * jnp.arange(9.0).reshape(3, 3)),
         lambda r: r.standard_normal((4, 3))),
        ("pinv", lambda a: fnp.sum(la.pinv(a) * np.arange(12.0).reshape(3, 4)),
         lambda a: jnp.sum(jnp.linalg.pinv(a) * jnp.arange(12.0).reshape(3, 4)),
         lambda r: r.standard_normal((4, 3))),
        ("lstsq", lambda a: fnp.sum(la.lstsq(a, np.arange(5.0))[0] ** 2),
         lambda a: jnp.sum(jnp.linalg.lstsq(a, jnp.arange(5.0))[0] ** 2),
         lambda r: r.standard_normal((5, 3))),
        ("matrix_power", lambda a: fnp.sum(la.matrix_power(a, -3)),
         lambda a: jnp.sum(jnp.linalg.matrix_power(a, -3)),
         lambda r: np.eye(3) * 2 + r.standard_normal((3, 3)) * 0.5),
        ("einsum", lambda a: fnp.sum(fnp.einsum("ij,jk,ki->i", a, a, a) ** 2),
         lambda a: jnp.sum(jnp.einsum("ij,jk,ki->i", a, a, a) ** 2),
         lambda r: r.standard_normal((3, 3))),
        ("frobenius", lambda a: la.norm(a), lambda a: jnp.linalg.norm(a),
         lambda r: r.standard_normal((3, 3))),
    ]


@needs_jax
@pytest.mark.parametrize("name,f,jf,make", _losses(), ids=[l[0] for l in _losses()])
def test_scalar_loss_gradient_and_hessian_vs_jax(name, f, jf, make):
    a = make(_rng(hash(name) % 1000))
    val, g = ftrans.value_and_grad(f)(a)
    jval, jg = jax.value_and_grad(jf)(jnp.asarray(a))
    np.testing.assert_allclose(val, np.asarray(jval), rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(g, np.asarray(jg), rtol=1e-7, atol=1e-9)
    h = ftrans.hessian(f)(a)
    jh = jax.hessian(jf)(jnp.asarray(a))
    np.testing.assert_allclose(h, np.asarray(jh), rtol=1e-6, atol=1e-8)


@needs_jax
def test_complex_loss_gradient_vs_jax():
    """PyTorch's convention: ftrans' gradient of a real loss of complex z is the conjugate
    of JAX's."""
    rng = _rng(11)
    a = _herm(rng, 3, True)
    b = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)) + 3 * np.eye(3)

    def f(a, b):
        return (fnp.sum(la.eigvalsh(a) ** 2) + la.slogdet(b)[1]
                + fnp.real(fnp.sum(la.inv(b) * np.arange(9).reshape(3, 3))))

    def jf(a, b):
        return (jnp.sum(jnp.linalg.eigvalsh(a) ** 2) + jnp.linalg.slogdet(b)[1]
                + jnp.real(jnp.sum(jnp.linalg.inv(b) * jnp.arange(9).reshape(3, 3))))
    ga, gb = ftrans.grad(f, argnums=(0, 1))(a, b)
    ja, jb = jax.grad(jf, argnums=(0, 1))(jnp.asarray(a), jnp.asarray(b))
    # eigvalsh reads the lower triangle in ftrans (NumPy) but symmetrizes in JAX: compare
    # the Hermitian-folded cotangents
    fold = lambda g: np.tril(g) + np.tril(np.conj(g.T), -1)  # noqa: E731
    np.testing.assert_allclose(fold(ga), fold(np.conj(np.asarray(ja))), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(gb, np.conj(np.asarray(jb)), rtol=1e-8, atol=1e-10)


# ---------------------------------------------------------------------------------
# einsum
# ---------------------------------------------------------------------------------
_EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("ii", [(3, 3)]),
    ("ii->i", [(3, 3)]), ("iij->ij", [(3, 3, 2)]), ("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 4)]),
    ("...ij,...jk", [(5, 1, 2, 3), (4, 3, 2)]), ("i,i", [(3,), (3,)]), ("i,j->ij", [(3,), (2,)]),
    ("ij->ji", [(2, 3)]), ("ij->", [(2, 3)]), ("ijk,jkl,lm->im", [(2, 3, 4), (3, 4, 5), (5, 2)]),
    ("ab,bc,cd,de->ae", [(2, 3), (3, 4), (4, 5), (5, 2)]), ("ij,ij->ij", [(2, 3), (2, 1)]),
    ("ij,jk", [(2, 1), (3, 4)]), ("i...->...", [(2, 3, 4)]), ("ij...,jk", [(2, 3, 4), (3, 5)]),
    ("Ba,aA", [(2, 3), (3, 4)]), ("...,...", [(2, 1), (3,)]), ("bii,bjj->bij", [(2, 3, 3), (2, 4, 4)]),
    ("i,i,i->", [(3,), (3,), (3,)]), ("iji->j", [(3, 2, 3)]), ("a,b,c->abc", [(2,), (3,), (4,)]),
    ("ij,kl->", [(2, 3), (4, 5)]), ("", [()]), (",", [(), ()]), ("...", [(2, 3)]),
    ("ab,ab,ab->", [(2, 3), (2, 3), (2, 3)]), ("ii->", [(3, 3)]), ("i,->i", [(3,), ()]),
    ("ij,jk,kl,lm,mn->", [(2, 3), (3, 2), (2, 4), (4, 2), (2, 3)]),
    ("ijk,ijk->ijk", [(0, 2, 3), (0, 2, 3)]), ("ij,jk->ik", [(2, 0), (0, 3)]),
]


@pytest.mark.parametrize("sub,shapes", _EINSUM, ids=[f"{s!r}-{i}" for i, (s, _) in
                                                     enumerate(_EINSUM)])
def test_einsum_matches_numpy_and_differentiates(sub, shapes):
    rng = _rng(len(sub) + len(shapes))
    ops = [rng.standard_normal(s) for s in shapes]
    got = fnp.einsum(sub, *ops)
    want = np.einsum(sub, *ops)
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    check_grads(lambda *o: fnp.einsum(sub, *o), tuple(ops), order=2, modes=("fwd", "rev"))
    # complex operands: no conjugation anywhere
    cops = [o + 1j * rng.standard_normal(o.shape) for o in ops]
    np.testing.assert_allclose(fnp.einsum(sub, *cops), np.einsum(sub, *cops), rtol=1e-12,
                               atol=1e-12)


def test_einsum_interleaved_and_options():
    rng = _rng(12)
    a, b, v = rng.standard_normal((2, 3)), rng.standard_normal((3, 4)), rng.standard_normal(3)
    for args in ((a, [0, 1], b, [1, 2], [0, 2]), (a, [1, 0], b, [0, 27]),
                 (a, [Ellipsis, 0], v, [0]), (a, [0, 1], b, [1, 2])):
        np.testing.assert_allclose(fnp.einsum(*args), np.einsum(*args))
    path = np.einsum_path("ij,jk,kl", a, b, rng.standard_normal((4, 2)))[0]
    c = rng.standard_normal((4, 2))
    for opt in (False, True, "greedy", "optimal", path):
        np.testing.assert_allclose(fnp.einsum("ij,jk,kl", a, b, c, optimize=opt),
                                   np.einsum("ij,jk,kl", a, b, c), rtol=1e-12)
    out = fnp.einsum("ij,jk", a.astype(np.float32), b.astype(np.float32))
    assert out.dtype == np.float32
    assert fnp.einsum("ij,jk", a, b, dtype=np.float32).dtype == np.float32
    with pytest.raises(TypeError, match="out="):
        fnp.einsum("ij", a, out=np.empty((2, 3)))


@pytest.mark.parametrize("sub,shapes,match", [
    ("ij,jk->ik", [(2, 3), (4, 4)], "broadcast"),
    ("ij->iij", [(2, 2)], "multiple times"),
    ("...i->i", [(2, 3, 4)], "ellipsis"),
    ("ij", [(2, 3, 4)], "more dimensions"),
    ("ii->i", [(3, 1)], "collapsing"),
    ("i->k", [(2,)], "never appeared"),
    ("ij,jk", [(2, 3)], "operands provided to einstein sum"),
    ("i", [(2,), (2,)], "operands provided to einstein sum"),
    ("i.j", [(2, 2)], "ellipsis"),
    ("i1", [(2, 2)], "letters"),
])
def test_einsum_errors(sub, shapes, match):
    ops = [np.ones(s) for s in shapes]
    with pytest.raises(ValueError, match=match):
        np.einsum(sub, *ops)  # NumPy rejects it too
    with pytest.raises(ValueError, match=match):
        fnp.einsum(sub, *ops)


def test_einsum_under_vmap_and_jacobians():
    rng = _rng(13)
    xs, y = rng.standard_normal((4, 2, 3)), rng.standard_normal((3, 3))
    got = ftrans.vmap(lambda x: fnp.einsum("ij,jj->i", x, y))(xs)
    np.testing.assert_allclose(got, np.stack([np.einsum("ij,jj->i", x, y) for x in xs]))
    got = ftrans.vmap(lambda x: fnp.einsum("...j,jk", x, y), in_axes=1)(xs)
    np.testing.assert_allclose(got, np.stack([np.einsum("...j,jk", xs[:, k], y)
                                              for k in range(2)]))
    j = ftrans.jacrev(lambda y: fnp.einsum("ij,jk->ik", xs[0], y))(y)
    np.testing.assert_allclose(j, ftrans.jacfwd(lambda y: fnp.einsum("ij,jk->ik", xs[0], y))(y))
