"""Property tests over random programs drawn from the operation table (hypothesis).

A program is a chain of the table's differentiable real rows (``optable.ROWS``), each
applied to its input squashed into the row's own test domain (``lo + (hi - lo) *
(tanh(a) + 1) / 2``, itself differentiable), with binary rows taking a second operand
from an earlier value of the chain (broadcast: a row, a column or a scalar).  Each
program runs twice: with ``ftrans.numpy`` and with plain NumPy/SciPy (the reference the
rows name), so no expected value comes from ftrans.

Checked on each drawn program: values equal NumPy's; ``grad`` equals central differences
of the NumPy program; ``<u, J v>`` from ``jvp`` equals ``<J^T u, v>`` from ``vjp``;
``vmap`` equals a Python loop; ``jit`` (values and gradient) equals eager; and at special
inputs (NaN, inf, points at the rows' kinks, empty arrays, integer dtypes) values and
dtypes equal NumPy's and gradients are finite where the function is.

Budget: ``max_examples`` sized so the file runs in well under a minute on CI's 2 cores
(``derandomize=True``: the same programs on every run).
"""
import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis", reason="property tests need hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402

import ftrans  # noqa: E402
import ftrans.numpy as fnp  # noqa: E402
from ftrans.primitives import optable  # noqa: E402
from test_properties import _fd_grad  # noqa: E402  (central differences, this directory)

SHAPE = (2, 3)


def _reference(op):
    mod, _, name = op.kernel.rpartition(".")
    if mod == "np":
        return getattr(np, name)
    import scipy.special
    return getattr(scipy.special, name)


def _interval(spec):
    kind, *a = spec
    if kind in ("U", "away"):
        return float(a[0]), float(a[1])
    return None


# smooth rows: differentiable in every input, with an interval domain (piecewise-constant
# rows such as trunc/fmod are checked at their own points in test_primitives)
SMOOTH = [op for op in optable.ROWS
          if op.differentiable and op.outputs == 1
          and all(d not in ("0", None, "linear") for d in op.deriv)
          and all(_interval(d) for d in op.domain) and op.name not in ("fmax", "fmin")]
FTRANS = {op.name: getattr(ftrans.primitives, op.name) for op in SMOOTH}
NUMPY = {op.name: _reference(op) for op in SMOOTH}


def _squash(ns, a, lo, hi):
    return lo + (hi - lo) * (ns.tanh(a) + 1.0) * 0.5


def run(program, x, ns):
    """Evaluate ``program`` on ``x`` with ``ns`` = fnp (ftrans) or np (reference)."""
    ops = FTRANS if ns is fnp else NUMPY
    vals = [x]
    for name, src, other, pick in program:
        op = optable.by_name(name)
        a = _squash(ns, vals[src], *_interval(op.domain[0]))
        if op.arity == 1:
            out = ops[name](a)
        else:
            b = vals[other]
            b = b[pick] if pick is not None else b
            out = ops[name](a, _squash(ns, b, *_interval(op.domain[1])))
        vals.append(out)
    return vals[-1]


@st.composite
def programs(draw):
    n = draw(st.integers(1, 5))
    prog = []
    for k in range(n):
        op = draw(st.sampled_from(SMOOTH))
        src = draw(st.integers(0, k))
        other = draw(st.integers(0, k))
        pick = draw(st.sampled_from([None, 0, (slice(None), slice(0, 1)), (0, 0)]))
        prog.append((op.name, src, other, pick))
    return prog


seeds = st.integers(0, 2**32 - 1)


def _point(seed, dtype=np.float64, shape=SHAPE):
    return np.random.default_rng(seed).uniform(-1.5, 1.5, shape).astype(dtype)


def _loss(ns, program):
    return lambda x: ns.sum(run(program, x, ns))


@settings(max_examples=40, derandomize=True, deadline=None)
@given(programs(), seeds)
def test_values_and_gradient_against_numpy(program, seed):
    x = _point(seed)
    np.testing.assert_allclose(run(program, x, fnp), run(program, x, np), rtol=1e-13,
                               atol=1e-13)
    g = ftrans.grad(_loss(fnp, program))(x)
    np.testing.assert_allclose(g, _fd_grad(_loss(np, program), x, 1e-6), rtol=1e-5, atol=1e-6)


@settings(max_examples=30, derandomize=True, deadline=None)
@given(programs(), seeds)
def test_jvp_vjp_agree_and_vmap_equals_loop(program, seed):
    rng = np.random.default_rng(seed)
    x, v = _point(seed), rng.standard_normal(SHAPE)
    f = lambda z: run(program, z, fnp)  # noqa: E731
    out, t = ftrans.jvp(f, (x,), (v,))
    u = rng.standard_normal(np.shape(out))
    _, vjp_fn = ftrans.vjp(f, x)
    (w,) = vjp_fn(u)
    np.testing.assert_allclose(np.sum(u * t), np.sum(w * v), rtol=1e-10, atol=1e-12)
    xs = np.stack([x, _point(seed + 1), _point(seed + 2)])
    np.testing.assert_allclose(ftrans.vmap(f)(xs), np.stack([f(xi) for xi in xs]),
                               rtol=1e-14, atol=1e-14)


@settings(max_examples=15, derandomize=True, deadline=None)
@given(programs(), seeds)
def test_jit_equals_eager(program, seed):
    x = _point(seed)
    f = lambda z: run(program, z, fnp)  # noqa: E731
    g = ftrans.grad(lambda z: fnp.sum(f(z)))
    with ftrans.disable_jit():
        want, want_g = f(x), g(x)
    np.testing.assert_allclose(ftrans.jit(f)(x), want, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(ftrans.jit(g)(x), want_g, rtol=1e-13, atol=1e-13)


# ------------------------------------------------------------------ special inputs
_SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 1e300, -1e-300, 2.0])


@pytest.mark.parametrize("op", [o for o in optable.ROWS if o.arity == 1], ids=lambda o: o.name)
def test_unary_rows_at_special_values_equal_numpy(op):
    """NaN, inf, signed zeros, huge and tiny values: NumPy's values; a gradient wherever
    the reference has a finite derivative (checked by one-sided differences)."""
    ref = _reference(op)
    with np.errstate(all="ignore"):
        want = ref(_SPECIALS)
        got = getattr(fnp, op.numpy)(_SPECIALS) if op.numpy else \
            getattr(ftrans.primitives, op.name)(_SPECIALS)
    _assert_same(got, want)


def _assert_same(got, want):
    """Equal values (NaN where NumPy's is) and dtypes, for one result or several."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _assert_same(g, w)
        return
    np.testing.assert_array_equal(got, want)
    assert np.asarray(got).dtype == want.dtype


@pytest.mark.parametrize("op", [o for o in optable.ROWS if o.numpy], ids=lambda o: o.name)
def test_rows_on_empty_and_integer_arrays(op):
    f = getattr(fnp, op.numpy)
    empty = [np.zeros((0, 3), int if d[0] == "int" else float) for d in op.domain]
    with np.errstate(all="ignore"):
        _assert_same(f(*empty), _reference(op)(*empty))
        ints = [np.array([-3, 0, 2, 5]), np.array([2, 1, 3, 1])][:op.arity]
        try:
            want = _reference(op)(*ints)
        except TypeError:  # NumPy has no integer loop: ftrans must refuse as well
            with pytest.raises(TypeError):
                f(*ints)
            return
        got = f(*ints)
    _assert_same(got, want)
    if op.differentiable:
        first = (lambda r: r[0]) if op.outputs > 1 else (lambda r: r)
        with np.errstate(all="ignore"):
            g = ftrans.grad(lambda z: fnp.sum(first(f(z, *empty[1:]))))(np.zeros((0, 3)))
        assert g.shape == (0, 3)


def test_kinks_give_finite_gradients_by_convention():
    """The rows' conventions at their non-differentiable points, not NaN."""
    z = np.array([0.0, -0.0])
    assert np.all(np.isfinite(ftrans.grad(lambda v: fnp.sum(fnp.copysign(v, 1.0)))(z)))
    assert np.all(ftrans.grad(lambda v: fnp.sum(fnp.trunc(v)))(np.array([1.0, -2.0])) == 0)
    assert ftrans.grad(lambda v: ftrans.primitives.i1(v))(0.0) == 0.5
    assert ftrans.grad(lambda v: ftrans.primitives.i0e(v))(0.0) == 0.0
    g = ftrans.grad(lambda a, b: fnp.sum(fnp.fmax(a, b)), argnums=(0, 1))(
        np.array([1.0, np.nan]), np.array([1.0, 2.0]))
    np.testing.assert_array_equal(g[0], [1.0, 0.0])  # tie: x1 (torch), NaN: the other
    np.testing.assert_array_equal(g[1], [0.0, 1.0])


def test_arctan2_at_the_origin_and_logaddexp_at_infinite_ties():
    """Minimum-norm subgradient 0 at (0, 0) (not NaN); logaddexp(+-inf, +-inf): 1/2
    each, its value along the diagonal (not NaN); no RuntimeWarning from the formulas;
    elsewhere the closed forms."""
    import warnings
    d_atan2 = ftrans.grad(lambda a, b: fnp.sum(fnp.arctan2(a, b)), argnums=(0, 1))

    def d_lae(a, b):  # (a vjp, not grad of a sum: the values hold both inf and -inf)
        out, f = ftrans.vjp(fnp.logaddexp, a, b)
        return f(np.ones_like(out))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = d_atan2(np.array([0.0, 1.0, -0.0]), np.array([0.0, 2.0, 0.0]))
        np.testing.assert_array_equal(g[0], [0.0, 2 / 5, 0.0])
        np.testing.assert_array_equal(g[1], [0.0, -1 / 5, 0.0])
        a, b = np.array([-np.inf, np.inf, -np.inf, 1.0]), np.array([-np.inf, np.inf, 0.0, 1.0])
        g = d_lae(a, b)
        np.testing.assert_allclose(g[0], [0.5, 0.5, 0.0, 0.5], rtol=1e-15, atol=0)
        np.testing.assert_allclose(g[1], [0.5, 0.5, 1.0, 0.5], rtol=1e-15, atol=0)
        assert ftrans.grad(lambda z: fnp.angle(z))(0j) == 0
    # NaN inputs still give NaN gradients (no convention hides them)
    assert np.isnan(d_lae(np.array([np.nan]), np.array([1.0]))[0][0])
