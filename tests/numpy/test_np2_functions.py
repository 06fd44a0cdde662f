"""Edges and errors of issue 19's h-np2 functions (the breadth rows are in
``breadth_table_np2.py``): convolution modes and lengths, interp's boundaries, windows,
cov's weights, gradient's arguments, polynomial corner cases, eig at repeated
eigenvalues, the integer functions on tracers, jit == eager."""
import warnings

import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans.testing import check_grads

RNG = np.random.default_rng(1919)


# --------------------------------------------------------------------- convolve/correlate
@pytest.mark.parametrize("n,m", [(5, 3), (3, 5), (4, 4), (1, 1), (1, 4), (6, 2), (2, 7)])
def test_convolve_correlate_lengths_and_modes(n, m):
    a = RNG.standard_normal(n) + 1j * RNG.standard_normal(n)
    v = RNG.standard_normal(m) - 0.5j * RNG.standard_normal(m)
    for mode in ("full", "same", "valid"):
        np.testing.assert_allclose(fnp.convolve(a, v, mode), np.convolve(a, v, mode), 1e-12)
        np.testing.assert_allclose(fnp.correlate(a, v, mode), np.correlate(a, v, mode),
                                   1e-12)


def test_convolve_integer_and_jit():
    a, v = np.array([1, 2, 3]), np.array([0, 1, 2])
    out = fnp.convolve(a, v)
    np.testing.assert_array_equal(out, np.convolve(a, v))
    assert out.dtype == np.convolve(a, v).dtype
    x = RNG.standard_normal(7)
    for mode in ("full", "same", "valid"):
        f = lambda x: fnp.correlate(x, np.array([1.0, -2.0, 0.5]), mode)  # noqa: E731
        np.testing.assert_allclose(ftrans.jit(f)(x), f(x), 1e-12)


def test_convolve_errors():
    with pytest.raises(ValueError, match="a cannot be empty"):
        fnp.convolve(np.zeros(0), np.ones(2))
    with pytest.raises(ValueError, match="v cannot be empty"):
        fnp.correlate(np.ones(2), np.zeros(0))
    with pytest.raises(ValueError, match="1-d"):
        fnp.convolve(np.ones((2, 2)), np.ones(2))
    with pytest.raises(ValueError, match="mode must be one of"):
        fnp.correlate(np.ones(3), np.ones(2), mode="middle")


# ------------------------------------------------------------------------------ interp
XP, FP = np.array([0.0, 1.0, 3.0, 4.0]), np.array([0.0, 2.0, 6.0, 1.0])


def test_interp_boundaries_exact():
    x = np.array([-1.0, 0.0, 1.0, 3.0, 4.0, 5.0, np.nan, 0.5])
    got = fnp.interp(x, XP, FP)
    np.testing.assert_array_equal(got, np.interp(x, XP, FP))  # exact at the knots
    np.testing.assert_array_equal(fnp.interp(x, XP, FP, left=-7.0, right=9.0),
                                  np.interp(x, XP, FP, -7.0, 9.0))
    np.testing.assert_allclose(fnp.interp(x, XP, FP, period=3.5),
                               np.interp(x, XP, FP, period=3.5), 1e-12)
    np.testing.assert_array_equal(fnp.interp(x[:6], XP[:1], FP[:1]),
                                  np.interp(x[:6], XP[:1], FP[:1]))
    assert fnp.interp(2.0, XP, FP).shape == ()
    np.testing.assert_array_equal(fnp.interp(x, XP, FP + 1j * FP),
                                  np.interp(x, XP, FP + 1j * FP))


def test_interp_derivative_in_x_is_the_slope():
    g = ftrans.vmap(ftrans.grad(lambda t: fnp.interp(t, XP, FP)))
    # right-sided at knots, the last segment at xp[-1], 0 outside
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0])
    np.testing.assert_allclose(g(x), [0.0, 2.0, 2.0, 2.0, 2.0, -5.0, -5.0, 0.0])


def test_interp_jit_and_grads_in_xp():
    x = np.array([-0.5, 0.4, 2.2, 3.7, 4.5])
    f = lambda x, xp, fp: fnp.interp(x, xp, fp, left=-1.0)  # noqa: E731
    np.testing.assert_allclose(ftrans.jit(f)(x, XP, FP), f(x, XP, FP), 1e-12)
    check_grads(f, (x, XP, FP), order=2, modes=("fwd", "rev"))


def test_interp_errors():
    with pytest.raises(ValueError, match="empty"):
        fnp.interp(1.0, np.zeros(0), np.zeros(0))
    with pytest.raises(ValueError, match="same length"):
        fnp.interp(1.0, XP, FP[:3])
    with pytest.raises(TypeError, match="real"):
        fnp.interp(1.0 + 1j, XP, FP)
    with pytest.raises(ValueError, match="non-zero"):
        fnp.interp(1.0, XP, FP, period=0)


# ------------------------------------------------------------------ unwrap and windows
def test_unwrap_edges():
    np.testing.assert_array_equal(fnp.unwrap(np.array([1.0])), [1.0])
    p = np.array([0.0, np.pi, 2 * np.pi, -np.pi])  # boundary ties (NumPy resolves them)
    np.testing.assert_allclose(fnp.unwrap(p), np.unwrap(p))
    np.testing.assert_allclose(fnp.unwrap(np.arange(6) * 2), np.unwrap(np.arange(6) * 2))
    with pytest.raises(TypeError, match="real"):
        fnp.unwrap(np.ones(3) * 1j)


@pytest.mark.parametrize("name", ["bartlett", "blackman", "hamming", "hanning"])
@pytest.mark.parametrize("m", [0, 1, 2, 7])
def test_windows(name, m):
    np.testing.assert_array_equal(getattr(fnp, name)(m), getattr(np, name)(m))


def test_kaiser_and_traced_length():
    for m in (0, 1, 5):
        np.testing.assert_allclose(fnp.kaiser(m, 3.0), np.kaiser(m, 3.0))
        np.testing.assert_allclose(ftrans.jit(lambda b: fnp.kaiser(m, b))(3.0),
                                   np.kaiser(m, 3.0), 1e-12)
    with pytest.raises(TypeError, match="concrete integer"):
        ftrans.jit(lambda m: fnp.hanning(m))(5)


# ------------------------------------------------------------------------ cov, gradient
def test_cov_edges_and_errors():
    m = RNG.standard_normal((3, 5))
    assert fnp.cov(np.zeros((0, 4))).shape == np.cov(np.zeros((0, 4))).shape == (0, 0)
    np.testing.assert_allclose(fnp.cov(m[0]), np.cov(m[0]))
    np.testing.assert_allclose(fnp.corrcoef(m[0]), np.corrcoef(m[0]))
    with pytest.raises(TypeError, match="fweights must be integer"):
        fnp.cov(m, fweights=np.array([1.0, 2.5, 1, 1, 1]))
    with pytest.raises(ValueError, match="cannot be negative"):
        fnp.cov(m, aweights=np.array([1.0, -1, 1, 1, 1]))
    with pytest.raises(RuntimeError, match="incompatible"):
        fnp.cov(m, aweights=np.ones(4))
    with pytest.raises(ValueError, match="ddof must be integer"):
        fnp.cov(m, ddof=1.5)
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        fnp.cov(m[:, :1])


def test_gradient_edges_and_errors():
    np.testing.assert_allclose(fnp.gradient(np.array([1, 4, 9, 16])),
                               np.gradient(np.array([1, 4, 9, 16])))
    assert fnp.gradient(np.array([1, 4, 9])).dtype == np.float64
    f = RNG.standard_normal((2, 5))
    got, want = fnp.gradient(f), np.gradient(f)
    assert isinstance(got, tuple) and len(got) == 2
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w)
    with pytest.raises(ValueError, match="too small"):
        fnp.gradient(np.ones(2), edge_order=2)
    with pytest.raises(ValueError, match="edge_order"):
        fnp.gradient(np.ones(5), edge_order=3)
    with pytest.raises(ValueError, match="match the length"):
        fnp.gradient(np.ones(5), np.arange(4.0))
    with pytest.raises(TypeError, match="invalid number"):
        fnp.gradient(f, 1.0, 2.0, 3.0)
    g = ftrans.jit(lambda f: fnp.gradient(f, 0.5, axis=1, edge_order=2))
    np.testing.assert_allclose(g(f), np.gradient(f, 0.5, axis=1, edge_order=2), 1e-12)


def test_sequences_and_axis_helpers():
    np.testing.assert_allclose(ftrans.jit(lambda s: fnp.logspace(s, 2.0, 4, endpoint=False,
                                                                 axis=0))(0.5),
                               np.logspace(0.5, 2.0, 4, endpoint=False), 1e-12)
    np.testing.assert_allclose(ftrans.jit(lambda s: fnp.geomspace(s, -8.0, 4))(-1.0),
                               np.geomspace(-1.0, -8.0, 4), 1e-12)
    with pytest.raises(ValueError, match="iteration dimensions are 0"):
        fnp.apply_along_axis(fnp.sum, 1, np.zeros((0, 3)))
    with pytest.raises(ValueError, match="correct shape"):
        fnp.apply_over_axes(lambda x, axis: fnp.sum(x), np.ones((2, 3)), [0])
    with pytest.raises(ValueError, match="matvec"):
        fnp.matvec(np.ones((2, 3)), np.ones(2))
    with pytest.raises(ValueError, match="cannot include zero"):
        ftrans.grad(lambda s: fnp.sum(fnp.geomspace(s, 2.0, 3)))(0.0)
    with pytest.raises(ValueError, match="vecmat"):
        fnp.vecmat(np.ones(2), np.ones((3, 2)))
    np.testing.assert_allclose(fnp.trapezoid(np.ones((2, 3)), x=np.ones((2, 3)) * [0, 1, 3]),
                               np.trapezoid(np.ones((2, 3)), x=np.ones((2, 3)) * [0, 1, 3]))


# ------------------------------------------------------------------------- polynomials
def test_roots_poly_polydiv_edges():
    p = [0.0, 0.0, 1.0, -3.0, 2.0, 0.0]
    np.testing.assert_allclose(np.sort_complex(fnp.roots(p)), np.sort_complex(np.roots(p)))
    assert fnp.roots([0.0, 0.0]).shape == np.roots([0.0, 0.0]).shape == (0,)
    assert fnp.roots([3.0]).shape == (0,)
    # inside jit the coefficients are not concrete: no stripping, same roots here
    np.testing.assert_allclose(np.sort_complex(ftrans.jit(fnp.roots)(np.array([1.0, -3.0,
                                                                                2.0]))),
                               [1.0, 2.0], atol=1e-12)
    np.testing.assert_allclose(fnp.poly(np.array([1 + 1j, 1 - 1j])), [1.0, -2.0, 2.0])
    assert fnp.poly(np.array([1 + 1j, 1 - 1j])).dtype == np.float64  # conjugate pairs
    q, r = fnp.polydiv([1.0, 3.0, 2.0], [1.0, 1.0])
    np.testing.assert_allclose(q, [1.0, 2.0])
    np.testing.assert_allclose(r, [0.0])
    q, r = fnp.polydiv([1.0, 2.0], [1.0, 2.0, 3.0])  # deg u < deg v
    for a, b in zip((q, r), np.polydiv([1.0, 2.0], [1.0, 2.0, 3.0])):
        np.testing.assert_allclose(a, b)
    np.testing.assert_allclose(fnp.polyint([1.0, 1.0], 2, k=3.0), np.polyint([1.0, 1.0], 2, k=3.0))
    with pytest.raises(ValueError, match="Order of derivative"):
        fnp.polyder([1.0, 2.0], -1)


def test_polyfit_variants_and_errors():
    x = np.linspace(-1, 1, 7)
    y = np.stack([np.cos(x), np.sin(2 * x)], 1)
    for kw in ({}, {"w": x + 2}, {"cov": True}, {"full": True}):
        got, want = fnp.polyfit(x, y, 2, **kw), np.polyfit(x, y, 2, **kw)
        for a, b in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            np.testing.assert_allclose(a, b, 1e-9, 1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(np.exceptions.RankWarning):
            fnp.polyfit(np.ones(4), np.arange(4.0), 2)
    with pytest.raises(ValueError, match="deg >= 0"):
        fnp.polyfit(x, y, -1)
    with pytest.raises(TypeError, match="1D vector"):
        fnp.polyfit(np.ones((2, 2)), np.ones(2), 1)
    with pytest.raises(TypeError, match="same length"):
        fnp.polyfit(x, x[:3], 1)
    with pytest.raises(ValueError, match="exceed order"):
        fnp.polyfit(x[:3], x[:3], 2, cov=True)
    np.testing.assert_allclose(ftrans.jit(lambda x, y: fnp.polyfit(x, y, 2))(x, y[:, 0]),
                               np.polyfit(x, y[:, 0], 2), 1e-9, 1e-12)


# --------------------------------------------------------------------------------- eig
def test_eig_values_and_known_derivative():
    a = np.array([[2.0, 1.0], [-1.0, 2.0]])  # eigenvalues 2 +- i
    w = fnp.linalg.eig(a).eigenvalues
    assert w.dtype == np.complex128
    np.testing.assert_allclose(np.sort_complex(w), [2 - 1j, 2 + 1j])
    assert fnp.linalg.eigvals(a.astype(np.float32)).dtype == np.complex64
    # sum of eigenvalues = trace: gradient I (real part), 0 (imaginary part)
    g = ftrans.grad(lambda a: fnp.sum(fnp.real(fnp.linalg.eigvals(a))))(a)
    np.testing.assert_allclose(g, np.eye(2), atol=1e-12)
    m = RNG.standard_normal((2, 4, 4))
    f = lambda m: fnp.abs(fnp.linalg.eig(m).eigenvectors) ** 2  # noqa: E731
    np.testing.assert_allclose(ftrans.jit(f)(m), f(m), 1e-10)
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        fnp.linalg.eig(np.ones((2, 3)))


def test_eig_repeated_eigenvalues_policy():
    a = np.eye(3)
    f = lambda a: fnp.sum(fnp.real(fnp.linalg.eigvals(a)) ** 2)  # noqa: E731
    np.testing.assert_allclose(f(a), 3.0)  # values are fine
    with pytest.raises(ValueError, match="repeated eigenvalues"):
        ftrans.grad(f)(a)
    with pytest.raises(ValueError, match="repeated eigenvalues"):
        ftrans.jvp(f, (a,), (np.ones((3, 3)),))
    # inside jit the values are abstract: a non-finite derivative, never a finite wrong one
    g = ftrans.jit(ftrans.grad(lambda a: fnp.sum(fnp.abs(fnp.linalg.eig(a).eigenvectors))))(a)
    assert not np.all(np.isfinite(g))


# ------------------------------------------------------------------- integer functions
INT_FUNCS = ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift",
             "gcd", "lcm"]


@pytest.mark.parametrize("name", INT_FUNCS)
@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint8])
def test_integer_binary_values_vmap_jit(name, dtype):
    rng = np.random.default_rng(7)
    lo = 0 if "shift" in name or dtype == np.uint8 else -20
    x = rng.integers(lo, 20, (3, 4)).astype(dtype)
    y = rng.integers(0 if "shift" in name or dtype == np.uint8 else -9, 5 if "shift" in name
                     else 9, (4,)).astype(dtype)
    f = getattr(fnp, name)
    want = getattr(np, name)(x, y)
    for got in (f(x, y), ftrans.jit(f)(x, y), ftrans.vmap(f, (0, None))(x, y)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    # NEP 50: a Python int stays weak
    assert f(x, 2).dtype == getattr(np, name)(x, 2).dtype


@pytest.mark.parametrize("name", ["invert", "bitwise_not", "bitwise_invert",
                                  "bitwise_count"])
def test_integer_unary(name):
    x = np.array([[-3, 0, 7], [127, -128, 5]], np.int8)
    want = getattr(np, name)(x)
    np.testing.assert_array_equal(ftrans.vmap(getattr(fnp, name))(x), want)
    assert ftrans.jit(getattr(fnp, name))(x).dtype == want.dtype
    np.testing.assert_array_equal(getattr(fnp, name)(x > 0), getattr(np, name)(x > 0))


def test_integer_functions_on_tracers_and_errors():
    x = np.arange(-4, 8).reshape(3, 4)
    f = lambda a: (a & 3) | (a << 1) ^ ~a >> 1  # noqa: E731
    np.testing.assert_array_equal(ftrans.jit(f)(x), f(x))
    np.testing.assert_array_equal(ftrans.vmap(lambda a: np.gcd(a, 6))(x), np.gcd(x, 6))
    b = x > 0
    np.testing.assert_array_equal(ftrans.jit(lambda b: ~b & True)(b), ~b & True)
    # a differentiable computation that uses integer masks
    g = ftrans.grad(lambda w: fnp.sum(w * fnp.bitwise_and(x, 1)))(np.ones((3, 4)))
    np.testing.assert_array_equal(g, x & 1)
    with pytest.raises(TypeError, match="integer"):
        fnp.bitwise_and(np.ones(3), 1)
    with pytest.raises(TypeError, match="integer"):
        fnp.gcd(np.array([True]), 2)
    with pytest.raises(TypeError, match="integer"):
        ftrans.jit(lambda v: fnp.left_shift(v, 1))(np.ones(2))
