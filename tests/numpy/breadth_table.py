"""The breadth table: one :class:`Row` per public differentiable NumPy/SciPy name.

``tests/numpy/test_breadth.py`` is parametrized over ``ROWS x dtypes x kwargs
variants`` and runs, for every combination:

* value vs the reference (NumPy / SciPy) on the same NumPy inputs (value and dtype);
* ``check_grads(order=row.order, modes=("fwd", "rev"))`` (finite differences);
* ``vmap`` over a batch of 3 of the first argument (others unbatched) vs a Python loop;
* where ``jax_fn`` is given and JAX is installed: values, JVP and VJP vs JAX (x64).

How to add a row (append to YOUR section with ``add_rows(...)``, minimal edits, re-read
before editing)::

    add_rows(
        Row("linalg.solve", args=[((3, 3), "well"), ((3, 2), "real")], complex=True),
        Row("cumsum", args=[((2, 3), "real")], kwargs=[{}, {"axis": 0}, {"axis": -1}],
            complex=True),
        Row("take", fn=lambda x, i: fnp.take(x, i, axis=0), ref=lambda x, i: np.take(x, i, 0),
            args=lambda rng, dt: (rng.standard_normal((4, 3)).astype(dt),
                                  np.array([0, 2, 2]))))

Fields:

name      the public dotted name: ``"cumsum"`` (``fnp.cumsum``), ``"linalg.solve"``
          (``fnp.linalg.solve``), ``"fft.rfft"`` (``fnp.fft.rfft``),
          ``"scipy.special.erf"`` (``ftrans.scipy.special.erf``).  ``fn``/``ref``
          default to the function of that name in ftrans / in NumPy (``scipy.``
          names: SciPy), resolved lazily at test time.
fn, ref   callables taking the arguments (ftrans arrays / NumPy arrays) and the kwargs.
args      a list of ``(shape, domain)`` specs, domain one of :data:`DOMAINS`' keys or a
          callable ``gen(rng, shape, dtype) -> np.ndarray``; or a callable
          ``(rng, dtype) -> tuple`` of arguments (NumPy arrays; integer/bool arrays are
          held fixed).  Broadcasting rows just give different shapes.
dtypes    dtypes under test (default float64, float32); ``complex=True`` adds complex128
          and complex64 (only where NumPy/SciPy define the function for complex input).
kwargs    list of keyword dicts (axis/keepdims/norm ... variants); default ``[{}]``.
diff      positions of the differentiated arguments (default: every inexact one).
grad      run check_grads;  ``order``: its order (default 2).
grad_dtypes  dtypes for check_grads (default: all of ``dtypes``).
batch     run the vmap-vs-loop check.
jax_fn    a callable on jax arrays (same kwargs): differential check against JAX x64.
jax_dtypes  dtypes for the JAX check (default: float64/complex128 among ``dtypes``).
tol       ``{dtype name: (rtol, atol)}`` overrides for the value comparison.
check_dtype  compare the result dtype with the reference's.
note      free text (why a domain / flag was chosen).
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Optional, Union

import numpy as np


# ---------------------------------------------------------------------------------
# domains: gen(rng, shape, dtype) -> np.ndarray
# ---------------------------------------------------------------------------------
def _cx(re, rng, shape, dtype, im_scale=0.5):
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return np.asarray(re + 1j * im_scale * rng.standard_normal(shape), dtype)
    return np.asarray(re, dtype)


def uniform(lo, hi, im_scale=0.5):
    """Uniform on [lo, hi] (complex: plus ``im_scale`` * normal imaginary part)."""
    def gen(rng, shape, dtype):
        return _cx(rng.uniform(lo, hi, shape), rng, shape, dtype, im_scale)
    return gen


def away(lo=0.3, hi=2.0):
    """Magnitude in [lo, hi], random sign: away from 0."""
    def gen(rng, shape, dtype):
        return _cx(rng.uniform(lo, hi, shape) * rng.choice([-1.0, 1.0], shape), rng, shape,
                   dtype)
    return gen


def distinct(spacing=0.5):
    """A permutation of well separated values (no ties: sort, max, median ...)."""
    def gen(rng, shape, dtype):
        n = int(np.prod(shape, dtype=np.int64))
        x = (rng.permutation(n) - n / 2) * spacing + rng.uniform(-0.1, 0.1, n) * spacing
        return _cx(x.reshape(shape), rng, shape, dtype)
    return gen


def well_conditioned(rng, shape, dtype):
    """Square (batches of) matrices ``I*n + noise``: well conditioned, det > 0."""
    n = shape[-1]
    x = rng.standard_normal(shape) * 0.5 + n * np.eye(n) if len(shape) >= 2 else \
        rng.standard_normal(shape)
    return _cx(x, rng, shape, dtype, 0.3)


def spd(rng, shape, dtype):
    """Symmetric (Hermitian for complex) positive definite (batches of) matrices."""
    a = _cx(rng.standard_normal(shape), rng, shape, dtype, 1.0)
    n = shape[-1]
    m = a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)
    return np.asarray(m, dtype)


def real_normal(rng, shape, dtype):
    return _cx(rng.standard_normal(shape), rng, shape, dtype, 1.0)


DOMAINS = {
    "real": real_normal,                 # standard normal (complex: + i * normal)
    "pos": uniform(0.5, 2.0),            # positive, away from 0
    "unit": uniform(-0.9, 0.9),          # inside (-1, 1)
    "prob": uniform(0.1, 0.9),           # inside (0, 1)
    "away": away(),                      # away from 0, both signs
    "distinct": distinct(),              # no ties
    "well": well_conditioned,            # well-conditioned square matrices
    "spd": spd,                          # symmetric/Hermitian positive definite
}


@dataclasses.dataclass
class Row:
    name: str
    fn: Optional[Callable] = None
    ref: Optional[Callable] = None
    args: Union[list, Callable] = dataclasses.field(default_factory=lambda: [((2, 3), "real")])
    dtypes: tuple = ("float64", "float32")
    kwargs: list = dataclasses.field(default_factory=lambda: [{}])
    complex: bool = False
    diff: Optional[tuple] = None
    grad: bool = True
    order: int = 2
    grad_dtypes: Optional[tuple] = None
    batch: bool = True
    jax_fn: Optional[Callable] = None
    jax_dtypes: Optional[tuple] = None
    tol: Optional[dict] = None
    check_dtype: bool = True
    note: str = ""
    # the function reads one triangle of a Hermitian first argument and is differentiated
    # as a -> f((a + a^H)/2) (JAX's and PyTorch's convention): test_grads checks it through
    # that symmetrization (finite differences in arbitrary directions)
    hermitian_input: bool = False

    def all_dtypes(self):
        d = tuple(self.dtypes)
        if self.complex:
            d = d + tuple(c for c in ("complex128", "complex64") if c not in d)
        return tuple(np.dtype(x) for x in d)

    def make_args(self, rng, dtype):
        if callable(self.args):
            return tuple(self.args(rng, np.dtype(dtype)))
        out = []
        for shape, domain in self.args:
            gen = DOMAINS[domain] if isinstance(domain, str) else domain
            out.append(np.asarray(gen(rng, tuple(shape), np.dtype(dtype))))
        return tuple(out)


def _lookup(root, dotted):
    obj = root
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def resolve_fn(row):
    """``row.fn`` or the ftrans function named ``row.name``."""
    if row.fn is not None:
        return row.fn
    if row.name.startswith("scipy."):
        import importlib
        mod, _, attr = row.name.rpartition(".")
        return getattr(importlib.import_module("ftrans." + mod), attr)
    import ftrans.numpy as fnp
    return _lookup(fnp, row.name)


def resolve_ref(row):
    """``row.ref`` or the NumPy/SciPy function named ``row.name``."""
    if row.ref is not None:
        return row.ref
    import importlib
    if row.name.startswith("scipy."):
        mod, _, attr = row.name.rpartition(".")
        return getattr(importlib.import_module(mod), attr)
    return _lookup(np, row.name)


def _jnp(name):
    """``jax.numpy.<name>`` (dotted: ``"linalg.solve"``, ``"fft.rfft"``) looked up at
    call time (JAX is optional)."""
    def f(*args, **kwargs):
        import jax.numpy as jnp
        return _lookup(jnp, name)(*args, **kwargs)
    return f


def _jsp(name):
    """``jax.scipy.special.<name>`` looked up at call time."""
    def f(*args, **kwargs):
        import jax.scipy.special as jsp
        return getattr(jsp, name)(*args, **kwargs)
    return f


def off_integer(rng, shape, dtype):
    """Integers plus a fraction in [0.1, 0.4] of either sign: away from the jumps of
    floor/ceil/round and the .5 ties of round."""
    x = rng.integers(-3, 4, shape) + rng.uniform(0.1, 0.4, shape) * rng.choice([-1, 1], shape)
    return np.asarray(x, dtype)


def _fnp():
    """``ftrans.numpy``, imported at call time (for lambdas in rows)."""
    import ftrans.numpy as fnp
    return fnp


ROWS: list = []


def add_rows(*rows):
    """Append rows to the table (``add_rows(Row(...), Row(...))``)."""
    ROWS.extend(rows)


# --- linalg ---
# fnp.linalg, einsum/kron/cross (ftrans/numpy/linalg.py, ftrans/numpy/_contract.py).
# Inputs are well conditioned (decompositions away from their non-differentiable
# points): Hermitian matrices with distinct eigenvalues in [1, 3], matrices with
# distinct singular values in [1, 3], SPD matrices for cholesky.  Eigen- and singular
# vectors are defined up to a sign (complex: a phase), so the rows for eigh/svd check
# gauge-invariant functions of them (V diag(c) V^H, U diag(c) Vh with fixed c) --
# values, derivatives and vmap alike.  The functions that read one triangle (cholesky,
# eigh, eigvalsh, hermitian svd/pinv) are differentiated as a -> f((a + a^H)/2), as JAX and
# PyTorch do (hermitian_input=True: the gradient rows check them through that
# symmetrization); the JAX rows symmetrize the input first because JAX's primal does too.
def _la():
    import ftrans.numpy as fnp
    return fnp.linalg


def _unitary(rng, shape, dtype):
    z = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        z = z + 1j * rng.standard_normal(shape)
    q, _ = np.linalg.qr(z)
    return q


def herm_distinct(rng, shape, dtype):
    """Hermitian (batches of) matrices with eigenvalues spread over [1, 3] (gaps >= 0.4)."""
    n = shape[-1]
    q = _unitary(rng, shape, dtype)
    w = np.linspace(1.0, 3.0, n) + rng.uniform(-0.05, 0.05, tuple(shape[:-2]) + (n,))
    return np.asarray((q * w[..., None, :]) @ np.conj(np.swapaxes(q, -1, -2)), dtype)


def sv_distinct(rng, shape, dtype):
    """``U diag(s) V^H`` with singular values spread over [1, 3] (gaps >= 0.4)."""
    m, n = shape[-2:]
    k = min(m, n)
    u = _unitary(rng, tuple(shape[:-2]) + (m, k), dtype)
    v = _unitary(rng, tuple(shape[:-2]) + (n, k), dtype)
    s = np.linspace(3.0, 1.0, k) + rng.uniform(-0.05, 0.05, tuple(shape[:-2]) + (k,)) \
        if k > 1 else np.full(tuple(shape[:-2]) + (k,), 2.0)
    return np.asarray((u * s[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2)), dtype)


def wide_well(rng, shape, dtype):
    """``(..., m, n)`` with ``m < n`` whose first ``m`` columns are well conditioned (the
    square factor of a wide QR)."""
    m, n = shape[-2:]
    a1 = well_conditioned(rng, tuple(shape[:-2]) + (m, m), dtype)
    a2 = 0.5 * real_normal(rng, tuple(shape[:-2]) + (m, n - m), dtype)
    return np.asarray(np.concatenate([a1, a2], axis=-1), dtype)


def mag_distinct(rng, shape, dtype):
    """Random signs (complex: phases) and magnitudes ``0.5 + 0.2 * k`` where ``k`` is a
    mixed-radix number of the (randomly permuted) indices: all magnitudes differ, and so
    do the sums of |x| over any set of axes (no ties for the inf-, 1- and matrix norms)."""
    shape = tuple(shape)
    idx = np.indices(shape) if shape else np.zeros((0,), int)
    k = np.zeros(shape)
    w = 1
    for ax in rng.permutation(len(shape)):
        k = k + w * rng.permutation(shape[ax])[idx[ax]]
        w *= shape[ax]
    mag = 0.5 + 0.2 * k + rng.uniform(0, 0.01, shape)
    if np.dtype(dtype).kind == "c":
        ph = np.exp(1j * rng.uniform(0, 2 * np.pi, shape))
    else:
        ph = rng.choice([-1.0, 1.0], shape)
    return np.asarray(mag * ph, dtype)


def _np_ct(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _ft_ct(x):
    import ftrans.numpy as fnp
    return fnp.conj(fnp.swapaxes(x, -1, -2))


def _jx_ct(x):
    import jax.numpy as jnp
    return jnp.conj(jnp.swapaxes(x, -1, -2))


def _fnp_mod():
    import ftrans.numpy as fnp
    return fnp


def _jnp_mod():
    import jax.numpy as jnp
    return jnp


def _eigh_fn(which):
    """Gauge-invariant eigh loss: (w, V diag(1..n + w^2) V^H) for ftrans/NumPy/JAX."""
    def f(a, sym=False, **kw):
        xp = {"ft": _fnp_mod, "np": lambda: np, "jx": _jnp_mod}[which]()
        ct = {"ft": _ft_ct, "np": _np_ct, "jx": _jx_ct}[which]
        if sym:
            a = (a + ct(a)) * 0.5
        w, v = xp.linalg.eigh(a, **kw)
        c = np.arange(1, w.shape[-1] + 1).astype(np.dtype(w.dtype)) + w * w
        return w, xp.matmul(v * c[..., None, :], ct(v))
    return f


def _svd_fn(which):
    """Gauge-invariant svd loss: (s, U diag(1..k + s^2) Vh) with full_matrices=False."""
    def f(a, **kw):
        xp = {"ft": _fnp_mod, "np": lambda: np, "jx": _jnp_mod}[which]()
        u, s, vh = xp.linalg.svd(a, full_matrices=False, **kw)
        c = np.arange(1, s.shape[-1] + 1).astype(np.dtype(s.dtype)) + s * s
        return s, xp.matmul(u * c[..., None, :], vh)
    return f


def _sym_then(which, name):
    def f(a, **kw):
        xp = {"ft": _fnp_mod, "np": lambda: np, "jx": _jnp_mod}[which]()
        ct = {"ft": _ft_ct, "np": _np_ct, "jx": _jx_ct}[which]
        return getattr(xp.linalg, name)((a + ct(a)) * 0.5, **kw)
    return f


def _jx(name):
    def f(*args, **kwargs):
        import jax.numpy as jnp
        return getattr(jnp, name)(*args, **kwargs)
    return f


def _jla(name):
    def f(*args, **kwargs):
        import jax.numpy as jnp
        out = getattr(jnp.linalg, name)(*args, **kwargs)
        return tuple(out) if isinstance(out, tuple) else out  # JAX's own namedtuples
    return f


_F32_LOOSE = {"float32": (2e-3, 2e-4), "complex64": (2e-3, 2e-4)}
_VEC_ORDS = [{}, {"ord": 1}, {"ord": 2}, {"ord": np.inf}, {"ord": -np.inf}, {"ord": 0},
             {"ord": 3}, {"ord": 0.5}, {"ord": -1}, {"ord": -2.5}]
_MAT_ORDS = [{"ord": o} for o in (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf)]

add_rows(
    Row("linalg.solve", args=[((3, 3), "well"), ((3, 2), "real")], complex=True,
        jax_fn=_jla("solve")),
    Row("linalg.solve", args=[((3, 3), "well"), ((3,), "real")], complex=True,
        jax_fn=_jla("solve"), note="vector right-hand side"),
    Row("linalg.solve", args=[((2, 3, 3), "well"), ((3, 2), "real")], complex=True,
        note="batched a, broadcast b"),
    Row("linalg.inv", args=[((3, 3), "well")], complex=True, jax_fn=_jla("inv")),
    Row("linalg.inv", args=[((2, 3, 3), "well")], complex=True),
    Row("linalg.det", args=[((3, 3), "well")], complex=True, jax_fn=_jla("det")),
    Row("linalg.det", args=[((2, 4, 4), "well")], complex=True, tol=_F32_LOOSE),
    Row("linalg.slogdet", fn=lambda a: tuple(_la().slogdet(a)),
        ref=lambda a: tuple(np.linalg.slogdet(a)), args=[((3, 3), "well")], complex=True,
        jax_fn=_jla("slogdet"), note="plain tuples: JAX's result type is its own"),
    Row("linalg.slogdet", args=[((3, 3), "well")], complex=True),
    Row("linalg.slogdet", args=[((2, 3, 3), "well")], complex=True),
    Row("linalg.cholesky", args=[((3, 3), "spd")], complex=True, hermitian_input=True,
        kwargs=[{}, {"upper": True}], note="reads one triangle, as NumPy"),
    Row("linalg.cholesky", args=[((2, 3, 3), "spd")], complex=True, hermitian_input=True),
    Row("linalg.cholesky", fn=_sym_then("ft", "cholesky"), ref=_sym_then("np", "cholesky"),
        args=[((3, 3), "spd")], complex=True, jax_fn=_sym_then("jx", "cholesky")),
    Row("linalg.eigh", fn=_eigh_fn("ft"), ref=_eigh_fn("np"), args=[((4, 4), herm_distinct)],
        complex=True, kwargs=[{}, {"UPLO": "U"}], tol=_F32_LOOSE, hermitian_input=True),
    Row("linalg.eigh", fn=_eigh_fn("ft"), ref=_eigh_fn("np"),
        args=[((2, 3, 3), herm_distinct)], complex=True, tol=_F32_LOOSE, hermitian_input=True),
    Row("linalg.eigh", fn=_eigh_fn("ft"), ref=_eigh_fn("np"), args=[((3, 3), herm_distinct)],
        complex=True, kwargs=[{"sym": True}], jax_fn=_eigh_fn("jx"), tol=_F32_LOOSE),
    Row("linalg.eigh", args=[((3, 3), herm_distinct)], tol=_F32_LOOSE, hermitian_input=True,
        note="raw eigenvectors (real: their sign is locally constant)"),
    Row("linalg.eigvalsh", args=[((4, 4), herm_distinct)], complex=True,
        kwargs=[{}, {"UPLO": "U"}], tol=_F32_LOOSE, hermitian_input=True),
    Row("linalg.eigvalsh", fn=_sym_then("ft", "eigvalsh"), ref=_sym_then("np", "eigvalsh"),
        args=[((3, 3), herm_distinct)], complex=True, jax_fn=_sym_then("jx", "eigvalsh"),
        tol=_F32_LOOSE),
    Row("linalg.svd", fn=_svd_fn("ft"), ref=_svd_fn("np"), args=[((3, 3), sv_distinct)],
        complex=True, jax_fn=_svd_fn("jx"), tol=_F32_LOOSE),
    Row("linalg.svd", fn=_svd_fn("ft"), ref=_svd_fn("np"), args=[((4, 2), sv_distinct)],
        complex=True, jax_fn=_svd_fn("jx"), tol=_F32_LOOSE),
    Row("linalg.svd", fn=_svd_fn("ft"), ref=_svd_fn("np"), args=[((2, 2, 4), sv_distinct)],
        complex=True, tol=_F32_LOOSE),
    Row("linalg.svd", args=[((4, 3), sv_distinct)], kwargs=[{"compute_uv": False}],
        complex=True, jax_fn=_jla("svd"), tol=_F32_LOOSE),
    Row("linalg.svd", args=[((3, 3), sv_distinct)], kwargs=[{}, {"full_matrices": False}],
        tol=_F32_LOOSE, note="raw singular vectors (real: sign locally constant)"),
    Row("linalg.svd", args=[((4, 2), sv_distinct)], kwargs=[{"full_matrices": True}],
        grad=False, note="full_matrices=True of a non-square matrix: values only (its "
        "extra columns are not unique, no derivative)"),
    Row("linalg.svdvals", args=[((3, 4), sv_distinct)], complex=True, tol=_F32_LOOSE),
    Row("linalg.svd", args=[((4, 4), herm_distinct)],
        kwargs=[{"hermitian": True, "compute_uv": False}], complex=True, tol=_F32_LOOSE,
        hermitian_input=True, note="hermitian=True reads the lower triangle (as NumPy's eigh-based path)"),
    Row("linalg.qr", args=[((4, 3), sv_distinct)], complex=True, kwargs=[{}, {"mode": "r"}],
        tol=_F32_LOOSE),
    Row("linalg.qr", fn=lambda a: tuple(_la().qr(a)), ref=lambda a: tuple(np.linalg.qr(a)),
        args=[((4, 3), sv_distinct)], complex=True, jax_fn=_jla("qr"), tol=_F32_LOOSE),
    Row("linalg.qr", args=[((3, 3), "well")], complex=True, kwargs=[{}, {"mode": "complete"}],
        tol=_F32_LOOSE),
    Row("linalg.qr", args=[((2, 3, 5), wide_well)], complex=True,
        kwargs=[{}, {"mode": "complete"}], tol=_F32_LOOSE, note="m < n"),
    Row("linalg.qr", args=[((4, 2), "real")], kwargs=[{"mode": "complete"}], grad=False,
        note="mode='complete' with m > n: values only (extra columns not unique)"),
    Row("linalg.norm", args=[((5,), mag_distinct)], kwargs=_VEC_ORDS, complex=True,
        jax_fn=_jla("norm"), tol=_F32_LOOSE),
    Row("linalg.norm", args=[((3, 4), mag_distinct)], complex=True, tol=_F32_LOOSE,
        kwargs=_MAT_ORDS + [{"ord": "fro", "keepdims": True}, {"ord": 2, "keepdims": True},
                            {"axis": 0}, {"axis": -1, "ord": 1, "keepdims": True},
                            {"axis": 1, "ord": np.inf}],
        jax_fn=_jla("norm")),
    Row("linalg.norm", args=[((2, 3, 4), mag_distinct)], complex=True, tol=_F32_LOOSE,
        kwargs=[{}, {"axis": (0, 2)}, {"axis": (2, 0), "ord": 1}, {"axis": (1, 2), "ord": "nuc"},
                {"axis": (-1, -2), "ord": -np.inf, "keepdims": True}, {"axis": 1, "ord": 3},
                {"axis": (0, 1), "ord": -2}], jax_fn=_jla("norm")),
    Row("linalg.vector_norm", args=[((3, 4), mag_distinct)], complex=True, tol=_F32_LOOSE,
        kwargs=[{}, {"ord": 1}, {"axis": 0}, {"axis": (0, 1), "ord": np.inf},
                {"axis": -1, "keepdims": True, "ord": 3}], jax_fn=_jla("vector_norm")),
    Row("linalg.matrix_norm", args=[((2, 3, 4), mag_distinct)], complex=True, tol=_F32_LOOSE,
        kwargs=[{}, {"ord": "nuc"}, {"ord": 2, "keepdims": True}, {"ord": -np.inf}],
        jax_fn=_jla("matrix_norm")),
    Row("linalg.cond", args=[((3, 3), sv_distinct)], complex=True, tol=_F32_LOOSE,
        kwargs=[{}, {"p": -2}, {"p": "fro"}, {"p": 1}, {"p": -np.inf}, {"p": "nuc"}],
        jax_fn=_jla("cond")),
    Row("linalg.pinv", args=[((4, 3), sv_distinct)], complex=True, jax_fn=_jla("pinv"),
        tol=_F32_LOOSE),
    Row("linalg.pinv", args=[((2, 3, 4), sv_distinct)], complex=True, tol=_F32_LOOSE),
    Row("linalg.pinv", args=[((3, 3), herm_distinct)], complex=True,
        kwargs=[{"hermitian": True}], tol=_F32_LOOSE, hermitian_input=True),
    Row("linalg.lstsq", fn=lambda a, b: _la().lstsq(a, b)[:2] + _la().lstsq(a, b)[3:],
        ref=lambda a, b: np.linalg.lstsq(a, b)[:2] + np.linalg.lstsq(a, b)[3:],
        args=[((5, 3), sv_distinct), ((5, 2), "real")], complex=True, tol=_F32_LOOSE,
        jax_fn=lambda a, b: _jla("lstsq")(a, b)[:2] + _jla("lstsq")(a, b)[3:],
        note="x, residuals and s (rank is an integer)"),
    Row("linalg.lstsq", args=[((5, 3), sv_distinct), ((5,), "real")], complex=True,
        tol=_F32_LOOSE, grad=False, note="the full tuple, 1-D b: values"),
    Row("linalg.lstsq", fn=lambda a, b: _la().lstsq(a, b)[0],
        ref=lambda a, b: np.linalg.lstsq(a, b)[0], args=[((2, 4), sv_distinct), ((2,), "real")],
        complex=True, tol=_F32_LOOSE, note="underdetermined: minimum-norm solution"),
    Row("linalg.matrix_power", args=[((3, 3), "well")], complex=True, tol=_F32_LOOSE,
        kwargs=[{"n": k} for k in (0, 1, 2, 3, 5, -1, -3)], jax_fn=_jla("matrix_power")),
    Row("linalg.matrix_rank", args=[((3, 4), "real")], grad=False),
    Row("linalg.multi_dot", fn=lambda a, b, c, d: _la().multi_dot([a, b, c, d]),
        ref=lambda a, b, c, d: np.linalg.multi_dot([a, b, c, d]),
        args=[((2, 5), "real"), ((5, 3), "real"), ((3, 6), "real"), ((6, 2), "real")],
        complex=True, jax_fn=lambda a, b, c, d: _jla("multi_dot")([a, b, c, d])),
    Row("linalg.multi_dot", fn=lambda a, b, c: _la().multi_dot([a, b, c]),
        ref=lambda a, b, c: np.linalg.multi_dot([a, b, c]),
        args=[((4,), "real"), ((4, 3), "real"), ((3,), "real")]),
    Row("linalg.trace", args=[((2, 3, 4), "real")], complex=True,
        kwargs=[{}, {"offset": 1}, {"offset": -1}], jax_fn=_jla("trace")),
    Row("linalg.diagonal", args=[((2, 3, 4), "real")], complex=True,
        kwargs=[{}, {"offset": 2}, {"offset": -1}], jax_fn=_jla("diagonal")),
    Row("linalg.matrix_transpose", args=[((2, 3, 4), "real")], complex=True),
    Row("linalg.vecdot", args=[((2, 3), "real"), ((3,), "real")], complex=True,
        kwargs=[{}, {"axis": -1}], jax_fn=_jla("vecdot")),
    Row("linalg.outer", args=[((3,), "real"), ((4,), "real")], complex=True),
    Row("linalg.cross", args=[((2, 3), "real"), ((3,), "real")], complex=True),
    Row("linalg.matmul", args=[((2, 3, 4), "real"), ((4, 2), "real")], complex=True),
    Row("linalg.tensordot", args=[((2, 3, 4), "real"), ((3, 4, 2), "real")], complex=True,
        kwargs=[{}, {"axes": ([1, 2], [0, 1])}]),
    Row("linalg.tensorinv", args=[((4, 2, 2), lambda rng, s, dt: well_conditioned(
        rng, (4, 4), dt).reshape(s))], kwargs=[{"ind": 1}], complex=True),
    Row("linalg.tensorsolve", args=[((2, 3, 6), lambda rng, s, dt: well_conditioned(
        rng, (6, 6), dt).reshape(s)), ((2, 3), "real")], complex=True),
    # einsum / kron / cross / contractions
    Row("einsum", fn=lambda a, b: _fnp().einsum("ij,jk->ik", a, b),
        ref=lambda a, b: np.einsum("ij,jk->ik", a, b), args=[((2, 3), "real"), ((3, 4), "real")],
        complex=True, jax_fn=lambda a, b: _jnp_mod().einsum("ij,jk->ik", a, b)),
    Row("einsum", fn=lambda a, b: _fnp().einsum("...ij,...jk", a, b),
        ref=lambda a, b: np.einsum("...ij,...jk", a, b),
        args=[((3, 1, 2, 3), "real"), ((4, 3, 2), "real")], complex=True,
        jax_fn=lambda a, b: _jnp_mod().einsum("...ij,...jk", a, b),
        note="implicit output, broadcast ellipsis"),
    Row("einsum", fn=lambda a: _fnp().einsum("ii->i", a), ref=lambda a: np.einsum("ii->i", a),
        args=[((3, 3), "real")], complex=True),
    Row("einsum", fn=lambda a: _fnp().einsum("ii", a), ref=lambda a: np.einsum("ii", a),
        args=[((3, 3), "real")], complex=True),
    Row("einsum", fn=lambda a, b: _fnp().einsum("bii,bjj->bij", a, b),
        ref=lambda a, b: np.einsum("bii,bjj->bij", a, b),
        args=[((2, 3, 3), "real"), ((2, 4, 4), "real")], complex=True),
    Row("einsum", fn=lambda a, b, c: _fnp().einsum("ijk,jkl,lm->im", a, b, c),
        ref=lambda a, b, c: np.einsum("ijk,jkl,lm->im", a, b, c),
        args=[((2, 3, 4), "real"), ((3, 4, 5), "real"), ((5, 2), "real")], complex=True,
        jax_fn=lambda a, b, c: _jnp_mod().einsum("ijk,jkl,lm->im", a, b, c)),
    Row("einsum", fn=lambda a, b, c, d: _fnp().einsum("ab,bc,cd,de->ae", a, b, c, d),
        ref=lambda a, b, c, d: np.einsum("ab,bc,cd,de->ae", a, b, c, d),
        args=[((2, 3), "real"), ((3, 4), "real"), ((4, 5), "real"), ((5, 2), "real")]),
    Row("einsum", fn=lambda a, b: _fnp().einsum("ij,ij->ij", a, b),
        ref=lambda a, b: np.einsum("ij,ij->ij", a, b), args=[((2, 3), "real"), ((2, 1), "real")],
        note="size-1 label broadcast"),
    Row("einsum", fn=lambda a, b: _fnp().einsum(a, [0, 1], b, [1, 2], [0, 2]),
        ref=lambda a, b: np.einsum(a, [0, 1], b, [1, 2], [0, 2]),
        args=[((2, 3), "real"), ((3, 4), "real")], note="interleaved (sublist) form"),
    Row("einsum", fn=lambda a: _fnp().einsum("i...->...", a),
        ref=lambda a: np.einsum("i...->...", a), args=[((2, 3, 4), "real")]),
    Row("einsum", fn=lambda a, b: _fnp().einsum("iji,jk->kj", a, b),
        ref=lambda a, b: np.einsum("iji,jk->kj", a, b), args=[((3, 2, 3), "real"),
                                                              ((2, 4), "real")]),
    Row("kron", args=[((2, 3), "real"), ((4, 2), "real")], complex=True, jax_fn=_jx("kron")),
    Row("kron", args=[((3,), "real"), ((2, 2), "real")], complex=True),
    Row("cross", args=[((4, 3), "real"), ((3,), "real")], complex=True, jax_fn=_jx("cross")),
    Row("cross", args=[((3, 4), "real"), ((4, 3), "real")], kwargs=[{"axisa": 0},
                                                                   {"axisa": 0, "axisc": 0}],
        complex=True),
    Row("cross", args=[((3, 2), "real"), ((3, 2), "real")], kwargs=[{"axis": 0}]),
    Row("tensordot", args=[((2, 3), "real"), ((4, 5), "real")], kwargs=[{"axes": 0}],
        complex=True, jax_fn=_jx("tensordot")),
    Row("tensordot", args=[((2, 3, 4), "real"), ((4, 3, 5), "real")],
        kwargs=[{"axes": 1}, {"axes": ([1, 2], [1, 0])}], complex=True, jax_fn=_jx("tensordot")),
    Row("inner", args=[((3,), "real"), ((3,), "real")], complex=True, jax_fn=_jx("inner")),
    Row("inner", args=[((2, 3, 4), "real"), ((5, 4), "real")], complex=True),
    Row("vdot", args=[((3,), "real"), ((3,), "real")], complex=True, jax_fn=_jx("vdot")),
)


# --- indexing/shape/reductions ---
def _zeros_in(domain="real", where=((0, 1), (1, 0), (1, 2))):
    """``domain`` with exact zeros at ``where`` (prod/cumprod at zeros)."""
    def gen(rng, shape, dtype):
        x = (DOMAINS[domain] if isinstance(domain, str) else domain)(rng, shape, dtype)
        for w in where:
            if all(i < s for i, s in zip(w, shape)) and len(w) == len(shape):
                x[w] = 0
        return x
    return gen


def _nans_in(domain="distinct"):
    """``domain`` with NaNs at two positions of a (3, 4) array (no all-NaN slice)."""
    def gen(rng, shape, dtype):
        x = (DOMAINS[domain] if isinstance(domain, str) else domain)(rng, shape, dtype)
        x[0, 1] = np.nan
        x[2, 3] = np.nan
        return x
    return gen


def _x_idx(shape, idx, domain="real"):
    """(x of ``shape``, a fixed integer index array): the index is held fixed."""
    def args(rng, dt):
        return (DOMAINS[domain](rng, shape, dt), np.asarray(idx))
    return args


def _put_along_ref(a, i, v, axis):
    a = a.copy()
    np.put_along_axis(a, i, v, axis)
    return a


_AX3 = [{}, {"axis": 0}, {"axis": -1}]
_PAD_KW = [
    {"pad_width": ((1, 2), (0, 3))},
    {"pad_width": 2, "mode": "constant", "constant_values": ((1.5, -1.0), (0.5, 2.0))},
    {"pad_width": ((2, 1), (3, 5)), "mode": "edge"},
    {"pad_width": ((2, 1), (3, 5)), "mode": "reflect"},
    {"pad_width": ((4, 1), (3, 6)), "mode": "reflect", "reflect_type": "odd"},
    {"pad_width": ((2, 1), (3, 5)), "mode": "symmetric"},
    {"pad_width": ((2, 1), (3, 5)), "mode": "symmetric", "reflect_type": "odd"},
    {"pad_width": ((4, 1), (3, 9)), "mode": "wrap"},
    {"pad_width": ((2, 1), (1, 2)), "mode": "linear_ramp", "end_values": (0.5, -1.0)},
    {"pad_width": ((2, 1), (1, 2)), "mode": "mean", "stat_length": 2},
    {"pad_width": ((2, 1), (1, 2)), "mode": "maximum"},
    {"pad_width": ((2, 1), (1, 2)), "mode": "minimum", "stat_length": ((1, 2), (3, 2))},
    {"pad_width": 1, "mode": "median"},
]
_Q = [0.13, 0.62, 0.91]  # q (n - 1) is never an integer or a half for n = 3, 4, 12
_Q_KW = [{"q": 0.3}, {"q": 0.3, "axis": 1}, {"q": _Q, "axis": 0, "keepdims": True},
         {"q": _Q, "axis": (0, 1)}, {"q": 0.4, "axis": 1, "method": "hazen"},
         {"q": 0.4, "method": "weibull"}, {"q": 0.4, "method": "median_unbiased"},
         {"q": 0.4, "method": "normal_unbiased"},
         {"q": 0.4, "method": "interpolated_inverted_cdf"},
         {"q": _Q, "axis": 1, "method": "lower"}, {"q": _Q, "axis": 1, "method": "higher"},
         {"q": _Q, "axis": 1, "method": "nearest"}, {"q": _Q, "axis": 1, "method": "midpoint"},
         {"q": _Q, "axis": 1, "method": "inverted_cdf"},
         {"q": _Q, "axis": 1, "method": "averaged_inverted_cdf"},
         {"q": _Q, "axis": 1, "method": "closest_observation"}]
_NAN_ROWS = [("nanmax", "distinct", False), ("nanmin", "distinct", False),
             ("nansum", "real", True), ("nanprod", "away", True), ("nanmean", "real", True),
             ("nanvar", "real", True), ("nanstd", "real", False),
             ("nancumsum", "real", True), ("nancumprod", "away", True)]
_NAN_KW = [{}, {"axis": 0}, {"axis": 1, "keepdims": True}]
_NAN_KW_SCAN = [{}, {"axis": 0}, {"axis": 1}]

add_rows(
    # indexing
    Row("take", args=_x_idx((4, 3), [[0, 2], [2, -1]]),
        kwargs=[{}, {"axis": 0}, {"axis": 1}, {"axis": -1, "mode": "raise"}]),
    Row("take", args=_x_idx((4, 3), [0, 5, -7, 2, 2]),
        kwargs=[{"axis": 0, "mode": "wrap"}, {"axis": 1, "mode": "clip"}, {"mode": "wrap"}],
        complex=True, note="out-of-range indices remapped by mode"),
    Row("take_along_axis", args=_x_idx((3, 4), [[0, 3], [1, 1], [-1, 2]]),
        kwargs=[{"axis": 1}], complex=True),
    Row("take_along_axis", args=_x_idx((3, 4), [[2, 0, 0, 1]]), kwargs=[{"axis": 0}],
        note="indices broadcast along axis 1; repeated rows"),
    Row("take_along_axis", args=_x_idx((3, 4), [5, 0, 11, 5]), kwargs=[{"axis": None}]),
    Row("put_along_axis",
        fn=lambda a, i, v, **k: _fnp().put_along_axis(a, i, v, inplace=False, **k),
        ref=_put_along_ref,
        args=lambda rng, dt: (DOMAINS["real"](rng, (3, 4), dt),
                              np.array([[0, 3, 0], [1, 1, 2], [-1, 2, 2]]),
                              DOMAINS["real"](rng, (3, 3), dt)),
        kwargs=[{"axis": 1}], complex=True, note="repeated indices: the last write wins"),
    # shape and structure
    Row("pad", args=[((3, 4), "distinct")], kwargs=_PAD_KW),
    Row("pad", args=[((2, 3), "real")], complex=True,
        kwargs=[{"pad_width": ((1, 0), (2, 3)), "mode": "wrap"},
                {"pad_width": 2, "mode": "constant", "constant_values": 0.5}]),
    Row("tile", args=[((2, 3), "real")], kwargs=[{"reps": 2}, {"reps": (2, 1, 3)}],
        complex=True),
    Row("repeat", args=[((3, 2), "real")],
        kwargs=[{"repeats": 2}, {"repeats": 2, "axis": 1}, {"repeats": [1, 0, 3], "axis": 0}],
        complex=True),
    Row("flip", args=[((2, 3, 2), "real")], kwargs=[{}, {"axis": 0}, {"axis": (0, 2)}],
        complex=True),
    Row("fliplr", args=[((2, 3), "real")]),
    Row("flipud", args=[((2, 3), "real")]),
    Row("roll", args=[((3, 4), "real")],
        kwargs=[{"shift": 5}, {"shift": -1, "axis": 1}, {"shift": (1, 2), "axis": (0, 1)},
                {"shift": (1, 2), "axis": (1, 1)}], complex=True),
    Row("rot90", args=[((2, 3, 2), "real")],
        kwargs=[{}, {"k": 2}, {"k": 3, "axes": (2, 0)}, {"k": -1, "axes": (1, 2)}]),
    Row("split", args=[((4, 6), "real")],
        kwargs=[{"indices_or_sections": 2}, {"indices_or_sections": [1, 4], "axis": 1}],
        complex=True),
    Row("array_split", args=[((4, 6), "real")],
        kwargs=[{"indices_or_sections": 4, "axis": 1}, {"indices_or_sections": [-2, 9]}]),
    Row("hsplit", args=[((2, 4), "real")], kwargs=[{"indices_or_sections": 2}]),
    Row("vsplit", args=[((4, 2), "real")], kwargs=[{"indices_or_sections": [1]}]),
    Row("dsplit", args=[((2, 1, 4), "real")], kwargs=[{"indices_or_sections": 2}]),
    Row("unstack", args=[((2, 3), "real")], kwargs=[{}, {"axis": 1}]),
    Row("atleast_3d", args=[((), "real")]),
    Row("atleast_3d", args=[((3,), "real")]),
    Row("atleast_3d", args=[((2, 3), "real")]),
    Row("dstack", fn=lambda a, b: _fnp().dstack([a, b]), ref=lambda a, b: np.dstack([a, b]),
        args=[((2, 3), "real"), ((2, 3, 2), "real")]),
    Row("column_stack", fn=lambda a, b: _fnp().column_stack([a, b]),
        ref=lambda a, b: np.column_stack([a, b]), args=[((3,), "real"), ((3, 2), "real")]),
    Row("broadcast_arrays", args=[((3, 1), "real"), ((4,), "real")], complex=True),
    Row("meshgrid", args=[((3,), "real"), ((2,), "real")],
        kwargs=[{}, {"indexing": "ij"}, {"sparse": True}]),
    Row("tril", args=[((2, 3, 4), "real")], kwargs=[{}, {"k": 1}, {"k": -1}], complex=True),
    Row("triu", args=[((3, 4), "real")], kwargs=[{}, {"k": 2}, {"k": -1}], complex=True),
    Row("tril", args=[((3,), "real")], note="1-d input: broadcast to a square first"),
    Row("diag", args=[((3,), "real")], kwargs=[{}, {"k": 1}, {"k": -2}], complex=True),
    Row("diag", args=[((3, 4), "real")], kwargs=[{}, {"k": 1}, {"k": -2}]),
    Row("diagonal", args=[((3, 4, 2), "real")],
        kwargs=[{}, {"offset": 1}, {"offset": -1, "axis1": 2, "axis2": 0}], complex=True),
    Row("diagflat", args=[((2, 2), "real")], kwargs=[{}, {"k": -1}]),
    Row("append", args=[((2, 3), "real"), ((1, 3), "real")], kwargs=[{}, {"axis": 0}]),
    Row("delete", fn=lambda a, **k: _fnp().delete(a, [0, 2], **k),
        ref=lambda a, **k: np.delete(a, [0, 2], **k), args=[((3, 4), "real")],
        kwargs=[{}, {"axis": 1}]),
    Row("compress", fn=lambda a, **k: _fnp().compress([True, False, True], a, **k),
        ref=lambda a, **k: np.compress([True, False, True], a, **k), args=[((3, 4), "real")],
        kwargs=[{"axis": 0}, {}]),
    Row("extract", fn=lambda a: _fnp().extract(np.arange(6).reshape(2, 3) % 2 == 0, a),
        ref=lambda a: np.extract(np.arange(6).reshape(2, 3) % 2 == 0, a),
        args=[((2, 3), "real")]),
    Row("concat", fn=lambda a, b, **k: _fnp().concat([a, b], **k),
        ref=lambda a, b, **k: np.concat([a, b], **k), args=[((2, 3), "real"), ((2, 3), "real")],
        kwargs=[{}, {"axis": 1}]),
    Row("permute_dims", args=[((2, 3, 4), "real")], kwargs=[{"axes": (2, 0, 1)}]),
    Row("matrix_transpose", args=[((2, 3, 4), "real")], complex=True),
    # scans
    Row("cumsum", args=[((3, 4), "real")], kwargs=_AX3, complex=True, jax_fn=_jnp("cumsum")),
    Row("cumprod", args=[((3, 4), _zeros_in())], kwargs=_AX3, complex=True,
        jax_fn=_jnp("cumprod"), note="exact zeros: the derivative must stay exact there"),
    Row("cumulative_sum", args=[((3, 4), "real")],
        kwargs=[{"axis": 0}, {"axis": 1, "include_initial": True}], complex=True),
    Row("cumulative_prod", args=[((3, 4), _zeros_in())],
        kwargs=[{"axis": 1}, {"axis": 0, "include_initial": True}]),
    Row("diff", args=[((3, 5), "real")],
        kwargs=[{}, {"n": 2, "axis": 0}, {"n": 3}, {"prepend": 0.5, "axis": 0}], complex=True,
        jax_fn=_jnp("diff")),
    Row("diff", fn=lambda a, b: _fnp().diff(a, append=b), ref=lambda a, b: np.diff(a, append=b),
        args=[((2, 3), "real"), ((2, 1), "real")]),
    Row("ediff1d", args=[((2, 3), "real")], kwargs=[{}, {"to_begin": [1.0], "to_end": 2.0}]),
    # sorting
    Row("sort", args=[((3, 4), "distinct")], kwargs=[{}, {"axis": 0}, {"axis": None}],
        complex=True, jax_fn=_jnp("sort"), jax_dtypes=("float64",)),
    Row("argsort", args=[((3, 4), "distinct")], kwargs=[{}, {"axis": 0}, {"axis": None}],
        grad=False, note="integer result"),
    Row("sort_complex", args=[((5,), "distinct")]),
    Row("partition", fn=lambda a, **k: _fnp().partition(a, 2, **k)[..., 2:3],
        ref=lambda a, **k: np.partition(a, 2, **k)[..., 2:3], args=[((3, 5), "distinct")],
        note="NumPy leaves the order inside the two parts unspecified: compare the kth"),
    Row("argpartition", fn=lambda a, **k: _fnp().argpartition(a, 1, **k)[..., 1],
        ref=lambda a, **k: np.argpartition(a, 1, **k)[..., 1], args=[((3, 5), "distinct")],
        grad=False),
    # order statistics
    Row("median", args=[((3, 4), "distinct")],
        kwargs=[{}, {"axis": 0}, {"axis": 1, "keepdims": True}, {"axis": (0, 1)}],
        jax_fn=_jnp("median")),
    Row("quantile", args=[((3, 4), "distinct")], kwargs=_Q_KW),
    Row("quantile", fn=lambda a, q, **k: _fnp().quantile(a, q, **k),
        ref=lambda a, q, **k: np.quantile(a, q, **k),
        args=lambda rng, dt: (DOMAINS["distinct"](rng, (3, 4), dt),
                              np.array([0.13, 0.62], dt)),
        kwargs=[{"axis": 1}, {"axis": 0, "method": "hazen"}],
        note="q differentiated too: d/dq = (s[hi] - s[lo]) * d(virtual index)/dq"),
    Row("percentile", args=[((3, 4), "distinct")],
        kwargs=[{"q": 30.0}, {"q": [13.0, 91.0], "axis": 1, "keepdims": True},
                {"q": 40.0, "method": "lower"}]),
    Row("nanmedian", args=[((3, 4), _nans_in())], kwargs=[{}, {"axis": 0}, {"axis": 1}]),
    Row("nanquantile", args=[((3, 4), _nans_in())],
        kwargs=[{"q": 0.3}, {"q": _Q, "axis": 1}, {"q": 0.7, "axis": 0, "method": "hazen"}]),
    Row("nanpercentile", args=[((3, 4), _nans_in())],
        kwargs=[{"q": 30.0}, {"q": [13.0, 62.0], "axis": 1}]),
    Row("median", args=[((3, 4), _nans_in())], kwargs=[{"axis": 1}], grad=False,
        note="a NaN in a slice gives NaN (finite differences of a NaN output are NaN)"),
    # averages and spreads
    Row("average", args=[((3, 4), "real")], kwargs=[{}, {"axis": 0, "keepdims": True},
                                                    {"axis": 1, "returned": True}],
        complex=True),
    Row("average", fn=lambda a, w, **k: _fnp().average(a, weights=w, **k),
        ref=lambda a, w, **k: np.average(a, weights=w, **k),
        args=[((3, 4), "real"), ((4,), "pos")],
        kwargs=[{"axis": 1}, {"axis": 1, "returned": True}, {"axis": -1, "keepdims": True}]),
    Row("average", fn=lambda a, w, **k: _fnp().average(a, weights=w, **k),
        ref=lambda a, w, **k: np.average(a, weights=w, **k),
        args=[((3, 4), "real"), ((3, 4), "pos")],
        kwargs=[{}, {"axis": 0, "returned": True}, {"axis": (0, 1), "keepdims": True}]),
    Row("ptp", args=[((3, 4), "distinct")], kwargs=[{}, {"axis": 0}, {"axis": 1, "keepdims": True}],
        jax_fn=_jnp("ptp")),
    Row("var", args=[((3, 4), "real")],
        kwargs=[{"ddof": 1}, {"axis": 0, "ddof": 2}, {"axis": 1, "ddof": 1, "keepdims": True}],
        complex=True, jax_fn=_jnp("var")),
    Row("std", args=[((3, 4), "real")],
        kwargs=[{"ddof": 1}, {"axis": 0, "ddof": 2}, {"axis": 1, "ddof": 1, "keepdims": True}],
        complex=True, jax_fn=_jnp("std")),
    Row("prod", args=[((3, 4), _zeros_in())], kwargs=[{}, {"axis": 0}, {"axis": 1}],
        complex=True, note="exact zeros (one and two per slice)"),
    # NaN-ignoring reductions (NaN inputs get derivative 0)
    *[Row(_n, args=[((3, 4), _nans_in(_d))],
          kwargs=_NAN_KW_SCAN if _n.startswith("nancum") else _NAN_KW, complex=_c)
      for _n, _d, _c in _NAN_ROWS],
    Row("nanvar", args=[((3, 4), _nans_in("real"))], kwargs=[{"ddof": 1, "axis": 1}]),
    Row("nanargmax", args=[((3, 4), _nans_in())], kwargs=[{}, {"axis": 1}], grad=False),
    Row("nanargmin", args=[((3, 4), _nans_in())], kwargs=[{}, {"axis": 0}], grad=False),
    # logical reductions (no derivative)
    Row("all", args=[((3, 4), _zeros_in())],
        kwargs=[{}, {"axis": 0}, {"axis": 1, "keepdims": True}], grad=False, complex=True),
    Row("any", args=[((3, 4), _zeros_in("real", ((0, 0), (1, 0), (2, 0))))],
        kwargs=[{}, {"axis": 0}, {"axis": 1, "keepdims": True}], grad=False),
    Row("count_nonzero", args=[((3, 4), _zeros_in())],
        kwargs=[{}, {"axis": 0}, {"axis": 1, "keepdims": True}], grad=False, complex=True),
)


# --- special/fft ---
def _fss():
    import ftrans.scipy.special as fss
    return fss


def _sc():
    import scipy.special as sc
    return sc


def _with_specials(rng, dt):
    """A (2, 4) array with nan, +inf and -inf entries (complex: in both parts)."""
    x = DOMAINS["real"](rng, (2, 4), dt)
    x.real[0, 1], x.real[1, 0], x.real[1, 3] = np.nan, np.inf, -np.inf
    if np.dtype(dt).kind == "c":
        x.imag[0, 2] = np.inf
    return (x,)


_SOFT_KW = [{}, {"axis": 0}, {"axis": -1}, {"axis": (0, 1)}]
add_rows(
    Row("scipy.special.erf", args=[((2, 3), "real")], complex=True, jax_fn=_jsp("erf"),
        jax_dtypes=("float64",), note="JAX's erf is real-only"),
    Row("scipy.special.erfc", args=[((2, 3), "real")], complex=True, jax_fn=_jsp("erfc"),
        jax_dtypes=("float64",), note="JAX's erfc is real-only"),
    Row("scipy.special.erfinv", args=[((2, 3), "unit")], jax_fn=_jsp("erfinv")),
    Row("scipy.special.gammaln", args=[((2, 3), uniform(0.5, 4.0))], jax_fn=_jsp("gammaln")),
    Row("scipy.special.digamma", args=[((2, 3), uniform(0.5, 4.0))], jax_fn=_jsp("digamma")),
    Row("scipy.special.psi", args=[((2, 3), uniform(0.5, 4.0))], jax_fn=_jsp("digamma")),
    Row("scipy.special.polygamma", fn=lambda x, n: _fss().polygamma(n, x),
        ref=lambda x, n: _sc().polygamma(n, x).astype(x.dtype),
        args=[((2, 3), uniform(0.5, 4.0))], kwargs=[{"n": 0}, {"n": 1}, {"n": 3}],
        jax_fn=lambda x, n: _jsp("polygamma")(n, x),
        note="float32 stays float32 (SciPy's polygamma returns float64)"),
    Row("scipy.special.gamma", args=[((2, 3), uniform(0.5, 3.0))], jax_fn=_jsp("gamma")),
    Row("scipy.special.beta", args=[((2, 3), uniform(0.5, 3.0)), ((3,), uniform(0.5, 3.0))],
        jax_fn=_jsp("beta")),
    Row("scipy.special.betaln", args=[((2, 3), uniform(0.5, 3.0)), ((3,), uniform(0.5, 3.0))],
        jax_fn=_jsp("betaln")),
    Row("scipy.special.multigammaln", fn=lambda a, d: _fss().multigammaln(a, d),
        ref=lambda a, d: _sc().multigammaln(a, d).astype(a.dtype),
        args=[((2, 3), uniform(1.5, 4.0))], kwargs=[{"d": 1}, {"d": 3}],
        jax_fn=lambda a, d: _jsp("multigammaln")(a, d),
        note="float32 stays float32 (SciPy's multigammaln returns float64)"),
    Row("scipy.special.expit", args=[((2, 3), uniform(-6.0, 6.0))], jax_fn=_jsp("expit")),
    Row("scipy.special.log_expit", args=[((2, 3), uniform(-6.0, 6.0))],
        jax_fn=_jsp("log_expit") if False else (lambda x: -_jnp("logaddexp")(0.0, -x))),
    Row("scipy.special.softplus", args=[((2, 3), uniform(-6.0, 6.0))],
        jax_fn=lambda x: _jnp("logaddexp")(0.0, x)),
    Row("scipy.special.logit", args=[((2, 3), "prob")], jax_fn=_jsp("logit")),
    Row("scipy.special.xlogy", args=[((2, 3), "real"), ((3,), "pos")], jax_fn=_jsp("xlogy")),
    Row("scipy.special.xlog1py", args=[((2, 3), "real"), ((3,), uniform(-0.5, 2.0))],
        jax_fn=_jsp("xlog1py")),
    Row("scipy.special.entr", args=[((2, 3), "pos")], jax_fn=_jsp("entr")),
    Row("scipy.special.rel_entr", args=[((2, 3), "pos"), ((2, 3), "pos")],
        jax_fn=_jsp("rel_entr")),
    Row("scipy.special.kl_div", args=[((2, 3), "pos"), ((3,), "pos")], jax_fn=_jsp("kl_div")),
    Row("scipy.special.softmax", args=[((2, 3), "real")], kwargs=_SOFT_KW,
        jax_fn=lambda x, axis=None: _lookup(__import__("jax").nn, "softmax")(
            x, axis=tuple(range(x.ndim)) if axis is None else axis)),
    Row("scipy.special.log_softmax", args=[((2, 3), "real")], kwargs=_SOFT_KW,
        jax_fn=lambda x, axis=None: _lookup(__import__("jax").nn, "log_softmax")(
            x, axis=tuple(range(x.ndim)) if axis is None else axis)),
    Row("scipy.special.logsumexp", args=[((2, 3), "real")],
        kwargs=_SOFT_KW + [{"axis": 1, "keepdims": True}], jax_fn=_jsp("logsumexp")),
    Row("scipy.special.logsumexp", fn=lambda a, b, **k: _fss().logsumexp(a, b=b, **k),
        ref=lambda a, b, **k: _sc().logsumexp(a, b=b, **k),
        args=[((2, 3), "real"), ((3,), "pos")], kwargs=[{}, {"axis": 1}],
        jax_fn=lambda a, b, **k: _jsp("logsumexp")(a, b=b, **k), note="weights b"),
    Row("scipy.special.logsumexp",
        fn=lambda a, b, **k: _fss().logsumexp(a, b=b, return_sign=True, **k),
        ref=lambda a, b, **k: _sc().logsumexp(a, b=b, return_sign=True, **k),
        args=[((2, 3), "real"), ((2, 3), "away")], kwargs=[{"axis": 0}, {"axis": 1}],
        note="signed weights, return_sign=True"),
    # nan_to_num (fnp): derivative 1 where finite, 0 where replaced
    Row("nan_to_num", args=_with_specials, complex=True, jax_fn=_jnp("nan_to_num"),
        kwargs=[{}, {"nan": 1.5, "posinf": 10.0, "neginf": -10.0}]),
)

_FFT_1D = [{}, {"n": 5}, {"n": 2, "axis": 0}, {"norm": "ortho"}, {"norm": "forward"}]
_IRFFT_1D = [{}, {"n": 5}, {"n": 6, "norm": "ortho"}, {"axis": 0}, {"norm": "forward"}]
_FFT_ND = [{}, {"axes": (0, 2)}, {"s": (4, 3), "axes": (1, 2)}, {"norm": "ortho"},
           {"norm": "forward", "axes": (2, 1)}]
_FFT_2D = [{}, {"s": (4, 3)}, {"axes": (0, 2)}, {"norm": "ortho"}]
_IRFFT_ND = [{}, {"axes": (0, 2)}, {"s": (2, 5), "axes": (1, 2)}, {"norm": "ortho"},
             {"norm": "forward", "axes": (2, 1)}]
for _n, _kw in (("fft", _FFT_1D), ("ifft", _FFT_1D), ("hfft", _IRFFT_1D),
                ("irfft", _IRFFT_1D)):
    add_rows(Row("fft." + _n, args=[((3, 4), "real")], kwargs=_kw, complex=True,
                 jax_fn=_jnp("fft." + _n)))
for _n in ("rfft", "ihfft"):   # real input only (NumPy 2 raises TypeError for complex)
    add_rows(Row("fft." + _n, args=[((3, 4), "real")], kwargs=_FFT_1D, jax_fn=_jnp("fft." + _n)))
for _n, _kw, _cplx in (("fftn", _FFT_ND, True), ("ifftn", _FFT_ND, True),
                       ("fft2", _FFT_2D, True), ("ifft2", _FFT_2D, True),
                       ("rfftn", _FFT_ND, False), ("rfft2", _FFT_2D, False),
                       ("irfftn", _IRFFT_ND, True), ("irfft2", _FFT_2D, True)):
    add_rows(Row("fft." + _n, args=[((2, 3, 4), "real")], kwargs=_kw, complex=_cplx,
                 jax_fn=_jnp("fft." + _n)))
for _n in ("fftshift", "ifftshift"):
    add_rows(Row("fft." + _n, args=[((3, 4), "real")], kwargs=[{}, {"axes": 1}, {"axes": (0,)}],
                 complex=True, jax_fn=_jnp("fft." + _n)))


# --- existing fnp ---
_UNARY = {  # name: (domain, complex defined)
    "abs": ("away", True), "absolute": ("away", True), "fabs": ("away", False),
    "arccos": ("unit", True), "arccosh": (uniform(1.5, 3.0), False),
    "arcsin": ("unit", True), "arcsinh": ("real", True), "arctan": ("unit", True),
    "arctanh": ("unit", True), "cbrt": ("away", False), "conj": ("real", True),
    "conjugate": ("real", True), "cos": ("real", True), "cosh": ("real", True),
    "deg2rad": ("real", False), "degrees": ("real", False), "exp": ("real", True),
    "exp2": ("real", True), "expm1": ("real", True), "log": ("pos", True),
    "log10": ("pos", True), "log1p": ("pos", True), "log2": ("pos", True),
    "negative": ("real", True), "positive": ("real", True), "rad2deg": ("real", False),
    "radians": ("real", False), "reciprocal": ("away", True), "sin": ("real", True),
    "sinc": ("real", True), "sinh": ("real", True), "sqrt": ("pos", True),
    "square": ("real", True), "tan": ("unit", True), "tanh": ("real", True),
    "real": ("real", True), "imag": ("real", True), "angle": ("away", True),
    "sign": ("away", False), "floor": (off_integer, False), "ceil": (off_integer, False),
    "round": (off_integer, False), "around": (off_integer, False),
}
for _n, (_dom, _cplx) in _UNARY.items():
    add_rows(Row(_n, args=[((2, 3), _dom)], complex=_cplx, jax_fn=_jnp(_n)))

_BINARY = {  # name: (domain of x1, domain of x2, complex defined)
    "add": ("real", "real", True), "subtract": ("real", "real", True),
    "multiply": ("real", "real", True), "divide": ("real", "away", True),
    "true_divide": ("real", "away", True), "power": ("pos", "real", True),
    "maximum": ("distinct", "distinct", False), "minimum": ("distinct", "distinct", False),
    "arctan2": ("away", "away", False), "hypot": ("away", "away", False),
    "logaddexp": ("real", "real", False), "logaddexp2": ("real", "real", False),
}
for _n, (_d1, _d2, _cplx) in _BINARY.items():
    add_rows(Row(_n, args=[((2, 3), _d1), ((3,), _d2)], complex=_cplx, jax_fn=_jnp(_n)))

_RED_KW = [{}, {"axis": 0}, {"axis": 1, "keepdims": True}, {"axis": (0, 1)},
           {"axis": -1}]
for _n, _dom, _cplx in [("sum", "real", True), ("mean", "real", True),
                        ("var", "real", True), ("std", "real", True),
                        ("max", "distinct", False), ("min", "distinct", False),
                        ("amax", "distinct", False), ("amin", "distinct", False),
                        ("prod", "away", True)]:
    add_rows(Row(_n, args=[((2, 3), _dom)], kwargs=_RED_KW, complex=_cplx, jax_fn=_jnp(_n)))
add_rows(
    Row("reshape", fn=lambda x: _fnp().reshape(x, (3, -1)), ref=lambda x: np.reshape(x, (3, -1)),
        args=[((2, 3), "real")], complex=True),
    Row("ravel", args=[((2, 3, 2), "real")], complex=True),
    Row("transpose", args=[((2, 3, 4), "real")], kwargs=[{}, {"axes": (1, 0, 2)}], complex=True),
    Row("swapaxes", fn=lambda x: _fnp().swapaxes(x, 0, 2), ref=lambda x: np.swapaxes(x, 0, 2),
        args=[((2, 3, 4), "real")]),
    Row("moveaxis", fn=lambda x: _fnp().moveaxis(x, 0, -1), ref=lambda x: np.moveaxis(x, 0, -1),
        args=[((2, 3, 4), "real")]),
    Row("squeeze", args=[((2, 1, 3, 1), "real")], kwargs=[{}, {"axis": 1}]),
    Row("expand_dims", fn=lambda x: _fnp().expand_dims(x, (0, 2)),
        ref=lambda x: np.expand_dims(x, (0, 2)), args=[((2, 3), "real")]),
    Row("broadcast_to", fn=lambda x: _fnp().broadcast_to(x, (2, 4, 3)),
        ref=lambda x: np.broadcast_to(x, (2, 4, 3)), args=[((3,), "real")], complex=True),
    Row("atleast_1d", args=[((), "real")]),
    Row("atleast_2d", args=[((3,), "real")]),
    Row("concatenate", fn=lambda a, b, **k: _fnp().concatenate([a, b], **k),
        ref=lambda a, b, **k: np.concatenate([a, b], **k),
        args=[((2, 3), "real"), ((2, 3), "real")], kwargs=[{}, {"axis": 1}, {"axis": None}],
        complex=True),
    Row("stack", fn=lambda a, b, **k: _fnp().stack([a, b], **k),
        ref=lambda a, b, **k: np.stack([a, b], **k),
        args=[((2, 3), "real"), ((2, 3), "real")], kwargs=[{}, {"axis": -1}]),
    Row("vstack", fn=lambda a, b: _fnp().vstack([a, b]), ref=lambda a, b: np.vstack([a, b]),
        args=[((2, 3), "real"), ((3,), "real")]),
    Row("hstack", fn=lambda a, b: _fnp().hstack([a, b]), ref=lambda a, b: np.hstack([a, b]),
        args=[((2, 3), "real"), ((2, 2), "real")]),
    Row("matmul", args=[((2, 3, 4), "real"), ((4, 2), "real")], complex=True,
        jax_fn=_jnp("matmul")),
    Row("dot", args=[((2, 3), "real"), ((3, 4), "real")], complex=True, jax_fn=_jnp("dot")),
    Row("tensordot", args=[((2, 3, 4), "real"), ((3, 4, 2), "real")],
        kwargs=[{"axes": 2}, {"axes": ([0], [2])}], complex=True, jax_fn=_jnp("tensordot")),
    Row("inner", args=[((2, 3), "real"), ((4, 3), "real")], complex=True, jax_fn=_jnp("inner")),
    Row("outer", args=[((3,), "real"), ((4,), "real")], complex=True, jax_fn=_jnp("outer")),
    Row("vdot", args=[((2, 3), "real"), ((2, 3), "real")], complex=True, jax_fn=_jnp("vdot")),
    Row("trace", args=[((3, 4), "real")], kwargs=[{}, {"offset": 1}], complex=True,
        jax_fn=_jnp("trace")),
    Row("where", fn=lambda x, y, c: _fnp().where(c, x, y), ref=lambda x, y, c: np.where(c, x, y),
        args=lambda rng, dt: (DOMAINS["real"](rng, (2, 3), dt), DOMAINS["real"](rng, (3,), dt),
                              rng.random((2, 3)) < 0.5), complex=True),
    Row("clip", fn=lambda x: _fnp().clip(x, -0.7, 0.8), ref=lambda x: np.clip(x, -0.7, 0.8),
        args=[((2, 3), "distinct")],
        note="distinct values are k/2 +- 0.05: never within 0.2 of the bounds"),
    Row("astype", fn=lambda x: _fnp().astype(x, np.float64), ref=lambda x: x.astype(np.float64),
        args=[((2, 3), "real")]),
)



# --- the operation table's rows (ftrans/primitives/optable.py), from their own domains ---
def _optable_gen(spec):
    kind, *a = spec
    if kind == "U":
        return uniform(a[0], a[1])
    if kind == "away":
        return away(a[0], a[1])
    if kind == "offint":
        return off_integer
    if kind == "lattice":  # offset + k*step, k in [-4, 4), jitter 0.05: no ties
        return lambda rng, shape, dtype: np.asarray(
            a[1] + a[0] * rng.integers(-4, 4, shape) + rng.uniform(-0.05, 0.05, shape), dtype)
    if kind == "special":
        def gen(rng, shape, dtype):
            x = real_normal(rng, shape, dtype).reshape(-1)
            x[:3] = [np.inf, -np.inf, np.nan][:x.size]
            return x.reshape(shape)
        return gen
    raise ValueError(f"unknown domain {spec!r}")


def _optable_rows():
    from ftrans.primitives import optable
    have = {r.name for r in ROWS}
    out = []
    for op in optable.ROWS:
        for name in ((op.numpy,) + op.numpy_aliases) if op.numpy else ():
            if name in have:
                continue
            shapes = [(2, 3), (3,)][:op.arity]
            if any(d[0] == "int" for d in op.domain):  # ldexp: a fixed integer exponent
                args = (lambda specs: lambda rng, dt: tuple(
                    rng.integers(d[1], d[2], s) if d[0] == "int" else
                    _optable_gen(d)(rng, s, dt) for d, s in zip(specs, [(2, 3), (3,)])))(op.domain)
            else:
                args = [(s, _optable_gen(d)) for s, d in zip(shapes, op.domain)]
            out.append(Row(name, args=args, complex=op.complex == "holomorphic",
                           grad=op.differentiable,
                           note="generated from the operation table's row " + op.name))
    return out


add_rows(*_optable_rows())


# --- h-np1 (issue 19): searching, sets, choosing/placing, index tricks ---
# rows in breadth_rows_np1.py (imported here, after Row and add_rows exist)
from breadth_rows_np1 import ROWS_NP1  # noqa: E402
add_rows(*ROWS_NP1)


# --- issue 19 (h-np2): signal, polynomials, statistics, calculus, eig (a sibling table;
# appended last so the rows above keep their indices, hence their random inputs) ---
import breadth_table_np2  # noqa: E402,F401  (adds its rows with add_rows)


# --- issue 19: the differentiable names of numpy_names.py that had no row ---
from breadth_rows_names import ROWS_NAMES  # noqa: E402
add_rows(*ROWS_NAMES)


# --- issue 20 (h-sp1): scipy.special incomplete gamma/beta, ndtr family, zeta, Bessel ---
from breadth_rows_scipy_special import ROWS_SCIPY_SPECIAL  # noqa: E402
add_rows(*ROWS_SCIPY_SPECIAL)
