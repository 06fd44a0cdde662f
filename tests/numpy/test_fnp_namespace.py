"""The ftrans.numpy namespace: coverage, missing names, NumPy ufunc dispatch on tracers,
and the NumPy-like operators and attributes of tracers."""
import operator

import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans.core import Tracer
from fnp_cases import DIFFERENTIABLE, ZERO_DERIVATIVE


def test_count_of_differentiable_numpy_names():
    """The public, differentiable NumPy names fnp provides (each is checked against
    NumPy in test_fnp_values.py and by check_grads in test_fnp_grads.py)."""
    for name in DIFFERENTIABLE + ZERO_DERIVATIVE:
        assert hasattr(np, name), f"numpy has no {name!r}: not a NumPy name"
        assert callable(getattr(fnp, name)), name
        assert getattr(fnp, name) is not getattr(np, name), \
            f"fnp.{name} is NumPy's own function (not differentiable)"
    n = len(DIFFERENTIABLE)
    public = [m for m in dir(fnp) if not m.startswith("_") and hasattr(np, m)
              and callable(getattr(fnp, m))]
    print(f"\nftrans.numpy: {n} differentiable NumPy names "
          f"(+{len(ZERO_DERIVATIVE)} with zero derivative: {', '.join(ZERO_DERIVATIVE)}); "
          f"{len(public)} public NumPy names in all")
    assert n >= 60


def test_differentiable_names_are_not_numpy_functions():
    """Every differentiable name dispatches to ftrans primitives: applied to a tracer it
    returns a tracer (NumPy's own function would raise on the tracer)."""
    seen = []

    def f(x):
        for name in ("sin", "sum", "reshape", "matmul", "hypot", "sinc", "var", "clip"):
            fn = getattr(fnp, name)
            args = {"reshape": (x, (3, 2)), "matmul": (x, x.T), "hypot": (x, x),
                    "clip": (x, 0.0, 1.0)}.get(name, (x,))
            seen.append(isinstance(fn(*args), Tracer))
        return fnp.sum(x)
    ftrans.grad(f)(np.ones((2, 3)))
    assert all(seen), seen


@pytest.mark.parametrize("name", ["fft", "polyfit", "linalg", "einsum", "cumsum", "sort",
                                  "convolve", "interp", "nanmean", "roll"])
def test_missing_numpy_name_raises_attribute_error_naming_it(name):
    if name in dir(fnp) or name in vars(fnp):
        pytest.skip(f"fnp.{name} is provided now")
    assert hasattr(np, name)
    with pytest.raises(AttributeError) as info:
        getattr(fnp, name)
    assert repr(name) in str(info.value) or f"numpy.{name}" in str(info.value)
    assert not hasattr(fnp, name)


def test_unknown_name_raises_attribute_error():
    with pytest.raises(AttributeError, match="definitely_not_a_numpy_name"):
        fnp.definitely_not_a_numpy_name


def test_constants_and_dtypes():
    assert fnp.pi == np.pi and fnp.e == np.e and fnp.inf == np.inf and np.isnan(fnp.nan)
    assert fnp.newaxis is None
    assert fnp.float32 is np.float32 and fnp.float64 is np.float64
    assert fnp.ndarray is np.ndarray


# ---------------------------------------------------------------------------------
# NumPy ufuncs applied to tracers dispatch to fnp
# ---------------------------------------------------------------------------------

UFUNC_CASES = {  # ufunc call -> analytic derivative of its sum at x
    "sin": (lambda x: np.sin(x), np.cos),
    "cos": (lambda x: np.cos(x), lambda x: -np.sin(x)),
    "exp": (lambda x: np.exp(x), np.exp),
    "log": (lambda x: np.log(x), lambda x: 1 / x),
    "log1p": (lambda x: np.log1p(x), lambda x: 1 / (1 + x)),
    "expm1": (lambda x: np.expm1(x), np.exp),
    "tanh": (lambda x: np.tanh(x), lambda x: 1 - np.tanh(x) ** 2),
    "sqrt": (lambda x: np.sqrt(x), lambda x: 0.5 / np.sqrt(x)),
    "square": (lambda x: np.square(x), lambda x: 2 * x),
    "negative": (lambda x: np.negative(x), lambda x: -np.ones_like(x)),
    "arctan": (lambda x: np.arctan(x), lambda x: 1 / (1 + x * x)),
    "multiply": (lambda x: np.multiply(x, x), lambda x: 2 * x),
    "add_scalar": (lambda x: np.add(2.0, x), lambda x: np.ones_like(x)),
    "divide": (lambda x: np.divide(1.0, x), lambda x: -1 / x ** 2),
    "power": (lambda x: np.power(x, 3), lambda x: 3 * x ** 2),
    "maximum": (lambda x: np.maximum(x, 0.5), lambda x: (x > 0.5) * 1.0),
    "absolute": (lambda x: np.abs(x - 0.45), lambda x: np.sign(x - 0.45)),
    "matmul": (lambda x: np.matmul(x, np.arange(3.0)), lambda x: np.arange(3.0)),
}


@pytest.mark.parametrize("name", sorted(UFUNC_CASES))
def test_numpy_ufunc_on_tracer_dispatches_to_fnp(name):
    f, df = UFUNC_CASES[name]
    x = np.array([0.3, 0.6, 0.9])
    kinds = []

    def loss(v):
        out = f(v)
        kinds.append(type(out))
        return fnp.sum(out)
    g = ftrans.grad(loss)(x)
    assert issubclass(kinds[0], Tracer)
    np.testing.assert_allclose(g, df(x), rtol=1e-14)
    # and forward mode
    _, t = ftrans.jvp(lambda v: f(v), (x,), (np.ones(3),))
    if name != "matmul":
        np.testing.assert_allclose(t, df(x), rtol=1e-14)


def test_numpy_ufunc_mixed_array_and_tracer_and_second_order():
    a = np.array([1.0, 2.0])
    g = ftrans.grad(lambda x: fnp.sum(np.multiply(a, np.sin(x))))(np.array([0.1, 0.2]))
    np.testing.assert_allclose(g, a * np.cos([0.1, 0.2]), rtol=1e-15)
    g2 = ftrans.grad(ftrans.grad(lambda x: np.sin(x)))(0.3)
    np.testing.assert_allclose(g2, -np.sin(0.3), rtol=1e-15)


def test_numpy_array_operator_with_tracer_on_the_right():
    """ndarray + tracer defers to the tracer (__array_priority__ / __array_ufunc__)."""
    a = np.array([1.0, 2.0, 3.0])

    def f(x):
        out = a * x + a - x / a + a @ x
        assert isinstance(out, Tracer)
        return fnp.sum(out)
    g = ftrans.grad(f)(np.ones(3))
    # a @ x is a scalar broadcast over the 3 elements of the sum: 3a
    np.testing.assert_allclose(g, a - 1 / a + 3 * a, rtol=1e-15)


# ---------------------------------------------------------------------------------
# Tracer operators and attributes inside grad
# ---------------------------------------------------------------------------------

X = np.array([[0.5, 1.5, -0.7], [2.0, -1.2, 0.9]])

BINARY_OPS = {  # op, d/da, d/db  (analytic, for a = X, b = Y)
    "+": (operator.add, lambda a, b: 1.0, lambda a, b: 1.0),
    "-": (operator.sub, lambda a, b: 1.0, lambda a, b: -1.0),
    "*": (operator.mul, lambda a, b: b, lambda a, b: a),
    "/": (operator.truediv, lambda a, b: 1 / b, lambda a, b: -a / b ** 2),
    "//": (operator.floordiv, lambda a, b: 0.0, lambda a, b: 0.0),
    "**": (operator.pow, lambda a, b: b * a ** (b - 1), lambda a, b: a ** b * np.log(a)),
}
Y = np.array([[1.3, 0.7, 2.1], [0.4, 1.9, 1.1]])


@pytest.mark.parametrize("sym", sorted(BINARY_OPS))
def test_binary_operators_inside_grad(sym):
    op, da, db = BINARY_OPS[sym]
    a = np.abs(X) + 0.1 if sym == "**" else X
    ga, gb = ftrans.grad(lambda u, v: fnp.sum(op(u, v)), argnums=(0, 1))(a, Y)
    np.testing.assert_allclose(ga, np.broadcast_to(da(a, Y), a.shape), rtol=1e-14)
    np.testing.assert_allclose(gb, np.broadcast_to(db(a, Y), Y.shape), rtol=1e-14)
    # with a constant on either side (reflected operators)
    ga = ftrans.grad(lambda u: fnp.sum(op(u, Y)))(a)
    np.testing.assert_allclose(ga, np.broadcast_to(da(a, Y), a.shape), rtol=1e-14)
    gb = ftrans.grad(lambda v: fnp.sum(op(a, v)))(Y)
    np.testing.assert_allclose(gb, np.broadcast_to(db(a, Y), Y.shape), rtol=1e-14)
    gs = ftrans.grad(lambda v: fnp.sum(op(2.0, v)))(Y)        # Python scalar on the left
    np.testing.assert_allclose(gs, np.broadcast_to(db(2.0, Y), Y.shape), rtol=1e-14)


@pytest.mark.parametrize("sym", sorted(BINARY_OPS))
def test_operator_values_inside_transform_match_numpy(sym):
    op = BINARY_OPS[sym][0]
    a = np.abs(X) + 0.1 if sym == "**" else X
    out = ftrans.jvp(lambda u: op(u, Y), (a,), (np.ones_like(a),))[0]
    np.testing.assert_allclose(out, op(a, Y), rtol=1e-15)
    out = ftrans.jvp(lambda v: op(a, v), (Y,), (np.ones_like(Y),))[0]
    np.testing.assert_allclose(out, op(a, Y), rtol=1e-15)


def test_matmul_operator_inside_grad():
    W = np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]])
    gx, gw = ftrans.grad(lambda x, w: fnp.sum(x @ w), argnums=(0, 1))(X, W)
    np.testing.assert_allclose(gx, np.ones((2, 2)) @ W.T, rtol=1e-15)
    np.testing.assert_allclose(gw, X.T @ np.ones((2, 2)), rtol=1e-15)
    g = ftrans.grad(lambda w: fnp.sum(X @ w))(W)              # __rmatmul__
    np.testing.assert_allclose(g, X.T @ np.ones((2, 2)), rtol=1e-15)


def test_unary_operators_and_comparisons_inside_grad():
    def f(x):
        neg = -x
        pos = +x
        mask = (x > 0) & (x <= 1.5) | (x == -0.7)
        assert not isinstance(mask, Tracer) or mask.dtype == np.bool_
        lt, ge, ne = x < 0, x >= 1.5, x != 2.0
        for m in (lt, ge, ne, mask, ~mask):
            assert m.dtype == np.bool_ and m.shape == x.shape
        return fnp.sum(neg * 2 + pos * 3 + fnp.where(mask, x * x, 0.0) + abs(x))
    g = ftrans.grad(f)(X)
    mask = ((X > 0) & (X <= 1.5)) | (X == -0.7)
    np.testing.assert_allclose(g, 1.0 + np.where(mask, 2 * X, 0.0) + np.sign(X), rtol=1e-15)


def test_comparison_values_inside_transform():
    def f(x):
        np.testing.assert_array_equal(np.asarray(x > 0.0) if not isinstance(x > 0.0, Tracer)
                                      else (x > 0.0), X > 0)
        return fnp.sum(x)
    ftrans.grad(f)(X)


def test_indexing_inside_grad():
    idx_cases = [
        (1,), (slice(None), 2), (slice(None, None, -1),), (Ellipsis, 0), (None, 0),
        ([1, 0, 1],), (slice(None), [2, 2, 0]), (X > 0,), (1, slice(0, 2)),
        (np.array([0, 1]), np.array([2, 0])), (-1, -1),
    ]
    for idx in idx_cases:
        g = ftrans.grad(lambda x: fnp.sum(x[idx] * 2.0))(X)
        expect = np.zeros_like(X)
        np.add.at(expect, idx, 2.0)
        np.testing.assert_array_equal(g, expect, err_msg=repr(idx))
        out, t = ftrans.jvp(lambda x: x[idx], (X,), (np.ones_like(X),))
        np.testing.assert_array_equal(out, X[idx], err_msg=repr(idx))


def test_attributes_and_methods_inside_grad():
    def f(x):
        assert x.shape == (2, 3) and x.ndim == 2 and x.size == 6 and len(x) == 2
        assert x.dtype == np.float64
        t = x.T
        assert t.shape == (3, 2)
        r = x.reshape(3, 2)
        r2 = x.reshape((6,))
        r3 = x.reshape(-1, 2)
        assert r.shape == (3, 2) and r2.shape == (6,) and r3.shape == (3, 2)
        s0 = x.sum(axis=0)
        s1 = x.sum(1, keepdims=True)
        assert s0.shape == (3,) and s1.shape == (2, 1)
        m = x.mean() + x.max() + x.min(axis=0).sum() + x.prod() + x.var() + x.std()
        return (x.sum() + t.sum() * 2 + r[0, 1] + r2[5] + s0[1] + s1[0, 0] + m
                + x.transpose(1, 0)[0, 0] + x.ravel()[2] + x.flatten()[3]
                + x.swapaxes(0, 1)[2, 1] + x.dot(np.ones(3)).sum() + x.clip(-1.0, 1.0).sum()
                + x.squeeze().sum() + x.astype(np.float64).sum() + x.conj().sum()
                + x.real.sum() + x.mT.sum())
    g = ftrans.grad(f)(X)
    # reference: finite differences of the same function on plain NumPy arrays
    def f_np(x):
        m = x.mean() + x.max() + x.min(axis=0).sum() + x.prod() + x.var() + x.std()
        return (x.sum() + x.T.sum() * 2 + x.reshape(3, 2)[0, 1] + x.reshape((6,))[5]
                + x.sum(axis=0)[1] + x.sum(1, keepdims=True)[0, 0] + m
                + x.transpose(1, 0)[0, 0] + x.ravel()[2] + x.flatten()[3]
                + x.swapaxes(0, 1)[2, 1] + x.dot(np.ones(3)).sum() + x.clip(-1.0, 1.0).sum()
                + x.squeeze().sum() + x.astype(np.float64).sum() + x.conj().sum()
                + x.real.sum() + x.mT.sum())
    eps = 1e-6
    fd = np.zeros_like(X)
    for k in np.ndindex(X.shape):
        e = np.zeros_like(X)
        e[k] = eps
        fd[k] = (f_np(X + e) - f_np(X - e)) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-7)


def test_iteration_over_tracer():
    def f(x):
        return sum(row.sum() * (i + 1) for i, row in enumerate(x))
    g = ftrans.grad(f)(X)
    np.testing.assert_array_equal(g, [[1.0] * 3, [2.0] * 3])


def test_operators_keep_float32():
    def f(x):
        y = (x + 1) * 2.0 - x / 3 + x ** 2 + (-x) + x @ x.T[:, :1] + x[0] + x.T.T
        assert y.dtype == np.float32
        return y.sum()
    g = ftrans.grad(f)(X.astype(np.float32))
    assert g.dtype == np.float32


def test_no_internal_names_leak_into_the_namespace():
    """Only NumPy names (and fnp's own additions) are public: e.g. ``fnp.np`` would be
    plain NumPy, a silent non-differentiable path."""
    extras = {"stop_gradient", "at"}   # fnp.at(x)[idx]: JAX's functional updates on arrays
    leaked = [n for n in dir(fnp) if not n.startswith("_") and not hasattr(np, n)
              and n not in extras]
    assert not leaked, leaked
    for name in ("np", "P", "builtins", "operator"):
        with pytest.raises(AttributeError):
            getattr(fnp, name)
