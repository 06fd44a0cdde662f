"""Breadth rows of issue 19 (h-np2): signal, polynomials, statistics, calculus, eig,
NumPy 2's matvec/vecmat/vecdot (imported by ``breadth_table.py``; same :class:`Row`
format; JAX differential checks on a few rows only: each costs seconds of JAX
compilation).  Non-differentiable integer functions and edge cases are in
``test_np2_functions.py``."""
from __future__ import annotations

import numpy as np

from breadth_table import Row, add_rows, _jnp, _fnp, uniform, away, _cx


def _phases(rng, shape, dtype):
    """Cumulative phases with steps in [-3, 3]: jumps to unwrap, none at a tie."""
    return np.asarray(np.cumsum(rng.uniform(-3, 3, shape), axis=-1), dtype)


def _coords(rng, shape, dtype):
    """Increasing sample coordinates with gaps in [0.5, 1.5]."""
    return np.asarray(np.cumsum(rng.uniform(0.5, 1.5, shape), axis=-1), dtype)


def _interp_args(complex_fp=False):
    """x inside and outside [xp[0], xp[-1]] away from the knots (0.1 at least), xp with
    gaps in [0.6, 1.4], fp normal (complex for complex dtypes)."""
    def make(rng, dt):
        rdt = np.finfo(dt).dtype
        xp = np.cumsum(rng.uniform(0.6, 1.4, 5)).astype(rdt)
        x = np.concatenate([[xp[0] - 0.7, xp[-1] + 0.4],
                            (xp[:-1] + xp[1:]) / 2 + rng.uniform(-0.15, 0.15, 4)]).astype(rdt)
        fp = _cx(rng.standard_normal(5), rng, (5,), dt)
        return x, xp, fp
    return make


def _eig_matrix(rng, shape, dtype):
    """``Q D Q^{-1}``: a complex pair 1.5 +- 0.8i and real eigenvalues in [2.5, 4]."""
    n = shape[-1]
    q = _cx(rng.uniform(-1, 1, shape) * 0.3, rng, shape, dtype) + 2 * np.eye(n)
    d = np.zeros(shape)
    d[..., range(n), range(n)] = np.linspace(2.5, 4.0, n)
    d[..., 0, 0] = d[..., 1, 1] = 1.5
    d[..., 0, 1], d[..., 1, 0] = 0.8, -0.8
    return np.asarray(q @ d @ np.linalg.inv(q), dtype)


def _eig_gauge_free(w, v, xp):
    """Eigenvalues (re, im) and the squared moduli of the unit eigenvectors' entries."""
    return xp.concatenate([xp.real(w), xp.imag(w), xp.real(xp.conj(v) * v).reshape(-1)])


def _jax_eig_gauge_free(a):
    """The same through JAX's eig, with its opt-in eigenvector derivatives (JAX's rule is
    the one ftrans follows: ``eig_jvp_rule``, unit-norm eigenvectors)."""
    import jax
    import jax.numpy as jnp
    w, v = jax.lax.linalg.eig(a, compute_left_eigenvectors=False, enable_eigvec_derivs=True)
    return _eig_gauge_free(w, v, jnp)


def _poly_roots(rng, shape, dtype):
    """Coefficients with a leading coefficient away from 0 (distinct roots)."""
    return away(0.5, 2.0)(rng, shape, dtype)


_MODES = [{"mode": "full"}, {"mode": "same"}, {"mode": "valid"}]
_F64 = ("float64",)

add_rows(
    # --- convolution and correlation: the convolution primitive ---
    Row("convolve", args=[((5,), "real"), ((3,), "real")], kwargs=_MODES, complex=True),
    Row("convolve", args=[((2,), "real"), ((4,), "real")], kwargs=_MODES[1:], complex=True,
        note="the longer operand second: NumPy swaps them"),
    Row("correlate", args=[((5,), "real"), ((3,), "real")], kwargs=_MODES, complex=True,
        jax_dtypes=("complex128",), jax_fn=_jnp("correlate"),
        note="complex v is conjugated (checked against JAX in complex128)"),
    Row("correlate", args=[((2,), "real"), ((4,), "real")], kwargs=_MODES[1:], complex=True),
    # --- interp: slopes in x, blend in xp and fp ---
    Row("interp", args=_interp_args(), kwargs=[{}, {"left": -1.5, "right": 2.5}],
        complex=True, check_dtype=True, jax_dtypes=("float64",), jax_fn=_jnp("interp"),
        note="x away from the knots; out-of-range points on both sides"),
    Row("interp", args=_interp_args(), kwargs=[{"period": 7.0}], dtypes=_F64),
    Row("unwrap", args=[((3, 7), _phases)],
        kwargs=[{}, {"axis": 0}, {"period": 4.0}, {"discont": 1.0}]),
    Row("kaiser", fn=lambda b: _fnp().kaiser(6, b), ref=lambda b: np.kaiser(6, b),
        args=[((), uniform(1.0, 4.0))], check_dtype=False, batch=False,
        note="the window length is static; NumPy computes in float64"),
    # --- quadrature, finite differences, sequences ---
    Row("trapezoid", args=[((3, 5), "real")], kwargs=[{}, {"axis": 0}, {"dx": 0.3}],
        complex=True),
    Row("trapezoid", fn=lambda y, x: _fnp().trapezoid(y, x),
        ref=lambda y, x: np.trapezoid(y, x), args=[((3, 5), "real"), ((5,), _coords)]),
    Row("gradient", args=[((4, 5), "real")],
        kwargs=[{}, {"edge_order": 2}, {"axis": 1}, {"axis": 0, "edge_order": 2}],
        complex=True),
    Row("gradient", fn=lambda f, x: _fnp().gradient(f, x, axis=1, edge_order=2),
        ref=lambda f, x: np.gradient(f, x, axis=1, edge_order=2),
        args=[((3, 5), "real"), ((5,), _coords)]),
    Row("gradient", fn=lambda f, x: _fnp().gradient(f, 0.5, x),
        ref=lambda f, x: np.gradient(f, 0.5, x), args=[((3, 4), "real"), ((4,), _coords)],
        note="a scalar spacing and a coordinate array: one array per axis"),
    Row("logspace", fn=lambda s, e: _fnp().logspace(s, e, 5, base=3.0),
        ref=lambda s, e: np.logspace(s, e, 5, base=3.0), args=[((), "unit"), ((), "pos")],
        check_dtype=False),
    Row("geomspace", fn=lambda s, e: _fnp().geomspace(s, e, 4),
        ref=lambda s, e: np.geomspace(s, e, 4), args=[((), "pos"), ((), "pos")],
        check_dtype=False),
    # --- statistics ---
    Row("cov", args=[((3, 6), "real")],
        kwargs=[{}, {"bias": True}, {"ddof": 2}, {"rowvar": False}], complex=True,
        check_dtype=False, note="NumPy computes cov in >= float64"),
    Row("cov", fn=lambda m, a: _fnp().cov(m, aweights=a),
        ref=lambda m, a: np.cov(m, aweights=a), args=[((3, 6), "real"), ((6,), "pos")],
        check_dtype=False),
    Row("cov", fn=lambda m, y: _fnp().cov(m, y, fweights=np.array([1, 2, 1, 3, 1])),
        ref=lambda m, y: np.cov(m, y, fweights=np.array([1, 2, 1, 3, 1])),
        args=[((2, 5), "real"), ((5,), "real")], check_dtype=False),
    Row("corrcoef", args=[((3, 6), "real")], complex=True, check_dtype=False,
        jax_dtypes=("float64",), jax_fn=_jnp("corrcoef")),
    # --- polynomials ---
    Row("polyval", args=[((4,), "real"), ((2, 3), "real")], complex=True),
    Row("polyadd", args=[((3,), "real"), ((5,), "real")], complex=True),
    Row("polysub", args=[((5,), "real"), ((3,), "real")], complex=True),
    Row("polymul", args=[((3,), "real"), ((4,), "real")], complex=True),
    Row("polyder", args=[((5,), "real")], kwargs=[{}, {"m": 2}], complex=True),
    Row("polyint", args=[((4,), "real")], kwargs=[{}, {"m": 2, "k": np.array([1.0, -2.0])}],
        complex=True),
    Row("polydiv", args=[((6,), "real"), ((3,), "away")], dtypes=("float64", "complex128"),
        note="in float32 NumPy keeps the rounding residue of the eliminated coefficients "
        "(allclose to 0 fails) and the remainder's length depends on the values"),
    Row("polyfit", fn=lambda x, y: _fnp().polyfit(x, y, 2),
        ref=lambda x, y: np.polyfit(x, y, 2), args=[((8,), "distinct"), ((8,), "real")],
        tol={"float32": (2e-3, 2e-4)}, jax_dtypes=("float64",),
        jax_fn=lambda x, y: _jnp("polyfit")(x, y, 2)),
    Row("polyfit", fn=lambda x, y, w: _fnp().polyfit(x, y, 1, w=w, cov="unscaled"),
        ref=lambda x, y, w: np.polyfit(x, y, 1, w=w, cov="unscaled"),
        args=[((6,), "distinct"), ((6, 2), "real"), ((6,), "pos")], dtypes=_F64),
    Row("roots", args=[((4,), _poly_roots)], check_dtype=False, grad_dtypes=_F64,
        note="complex eigenvalues of the companion matrix (NumPy: real when all are)"),
    Row("poly", args=[((3,), "real")], complex=True),
    Row("poly", args=[((3, 3), _eig_matrix)], check_dtype=False, batch=False,
        dtypes=_F64, note="characteristic polynomial through eigvals (real: conjugate "
        "pairs detected on concrete values, not inside vmap)"),
    Row("vander", args=[((4,), "real")], kwargs=[{}, {"N": 3}, {"increasing": True}],
        complex=True),
    # --- eig: gauge-invariant functions of the eigenvectors ---
    Row("linalg.eig", fn=lambda a: _eig_gauge_free(*_fnp().linalg.eig(a), _fnp()),
        ref=lambda a: _eig_gauge_free(*np.linalg.eig(a), np),
        args=[((4, 4), _eig_matrix)], complex=True, batch=True, jax_fn=_jax_eig_gauge_free,
        note="distinct eigenvalues (a complex pair); |v_ij|^2 is phase invariant"),
    Row("linalg.eigvals", fn=lambda a: _fnp().linalg.eigvals(a),
        ref=lambda a: np.linalg.eigvals(a).astype(np.result_type(a.dtype, np.complex64)),
        args=[((2, 3, 3), _eig_matrix)], complex=True),
    # --- NumPy 2 gufuncs ---
    Row("matvec", args=[((2, 3, 4), "real"), ((4,), "real")], complex=True),
    Row("vecmat", args=[((3,), "real"), ((2, 3, 4), "real")], complex=True,
        jax_dtypes=("complex128",), jax_fn=_jnp("vecmat"),
        note="NumPy conjugates the vector"),
    Row("vecdot", args=[((2, 4), "real"), ((3, 1, 4), "real")], kwargs=[{}, {"axis": -1}],
        complex=True),
    # --- axis-wise application ---
    Row("apply_along_axis",
        fn=lambda x: _fnp().apply_along_axis(lambda r: r * _fnp().sum(r * r), 1, x),
        ref=lambda x: np.apply_along_axis(lambda r: r * np.sum(r * r), 1, x),
        args=[((3, 4), "real")], complex=True),
    Row("apply_over_axes", fn=lambda x: _fnp().apply_over_axes(_fnp().sum, x, [0, 2]),
        ref=lambda x: np.apply_over_axes(np.sum, x, [0, 2]), args=[((2, 3, 4), "real")],
        complex=True),
)
