"""Plain ``numpy`` code on traced values: NumPy's dispatch protocols (NEP 18
``__array_function__``, NEP 13 ``__array_ufunc__`` and the ufunc methods).

Every function ftrans.numpy exports is reached from ``numpy.<name>`` (read from the
namespaces, so functions added later are checked too); values and tangents are compared
with the ftrans.numpy function called directly, and with NumPy on concrete arrays.  The
ufunc methods are checked against NumPy's values and central differences.  Errors:
uncovered functions, ``out=``, ``ufunc.at``.
"""
import inspect

import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans.core import Tracer
from ftrans.testing import check_grads

RNG = np.random.default_rng(0)
A = RNG.uniform(0.2, 0.9, (3, 3)) + 3 * np.eye(3)   # well conditioned, positive entries
B = RNG.uniform(0.2, 0.9, (3, 3))
V = np.array([0.3, 0.5, 0.7, 0.9])
W = np.array([0.2, 0.4, 0.6, 0.8])
# argument patterns tried in order: the first one ftrans.numpy's function accepts is used
CANDIDATES = [(A,), (V,), (A, B), (V, W), ([A, B],), (A, (9,)), (A, 1), (A, 0, 1),
              (A, 0.5, 0.8), (A, 50.0), (A, [0, 2]), (A, (2, 3, 3)), (A, np.array([[0], [1], [2]]), 1),
              (V, W, V)]
# names that need their own arguments
ARGS = {"where": (A > 3.5, A, B), "astype": (A, np.float32),
        "dsplit": (RNG.uniform(size=(2, 2, 4)), 2)}
# names whose dispatch is not checked here, with the reason
SKIP = {
    "put_along_axis": "in place in NumPy (inplace=True); checked in test_in_place_functions",
    "iscomplexobj": "answered from the dtype (test_introspection)",
    "isrealobj": "answered from the dtype (test_introspection)",
}
NAMESPACES = [("", np, fnp), ("linalg.", np.linalg, fnp.linalg), ("fft.", np.fft, fnp.fft)]


def _dispatched_names():
    """(qualified name, NumPy object, ftrans function) for every ftrans.numpy function whose
    NumPy function dispatches on tracers (ufuncs and NEP 18 functions)."""
    out = []
    for prefix, npmod, fmod in NAMESPACES:
        for name, fn in sorted(vars(fmod).items()):
            npf = getattr(npmod, name, None)
            if name.startswith("_") or not callable(fn) or isinstance(fn, type) or fn is npf:
                continue
            if isinstance(npf, np.ufunc) or type(npf).__name__ == "_ArrayFunctionDispatcher":
                out.append((prefix + name, npf, fn))
    return out


DISPATCHED = _dispatched_names()


def _is_float_array(x):
    return isinstance(x, np.ndarray) and x.dtype.kind == "f"


def _split(args):
    """Traced positions (float arrays, and lists of them) and the primals there."""
    pos = [i for i, a in enumerate(args)
           if _is_float_array(a) or (isinstance(a, list) and all(map(_is_float_array, a)))]
    return pos, tuple(args[i] for i in pos)


def _with(args, pos, vals):
    args = list(args)
    for i, v in zip(pos, vals):
        args[i] = v
    return args


def _leaves(x):
    return ftrans.tree_util.tree_leaves(x)


def _first_accepted(npf, fn):
    """The first argument pattern both NumPy and ftrans.numpy accept on concrete arrays."""
    for args in CANDIDATES:
        try:
            fn(*args)
            npf(*args)
        except Exception:  # noqa: BLE001 - trying argument patterns
            continue
        return args
    return None


def _traceable_positions(fn, args):
    """Positions of ``args`` to trace: all float arrays, else the first single one that
    ftrans.numpy's function accepts traced (``where``'s condition must be concrete)."""
    pos, _ = _split(args)
    for choice in [pos] + [[i] for i in pos]:
        prim = tuple(args[i] for i in choice)
        try:
            ftrans.jvp(lambda *p: fn(*_with(args, choice, p)), prim, prim)
        except Exception:  # noqa: BLE001 - trying positions
            continue
        return choice
    return None


def test_every_ftrans_numpy_name_is_checked():
    assert len(DISPATCHED) > 200, len(DISPATCHED)
    names = {n for n, _, _ in DISPATCHED}
    assert {"sum", "dot", "sin", "linalg.solve", "fft.fft", "concatenate", "where"} <= names


@pytest.mark.parametrize("qname", [n for n, _, _ in DISPATCHED])
def test_numpy_function_on_tracer_dispatches(qname):
    """``numpy.<name>`` on tracers == ``ftrans.numpy.<name>`` (values and tangents, jvp)."""
    if qname in SKIP:
        pytest.skip(SKIP[qname])
    _, npf, fn = next(t for t in DISPATCHED if t[0] == qname)
    args = ARGS.get(qname) or _first_accepted(npf, fn)
    if args is None:
        pytest.skip(f"none of the sample argument patterns suits numpy.{qname}")
    pos = _traceable_positions(fn, args)
    if pos is None:
        pytest.skip(f"ftrans.numpy.{qname} accepts no traced argument in {args!r}")
    primals = tuple(args[i] for i in pos)
    tangents = ftrans.tree_util.tree_map(lambda a: np.ones_like(a) * 0.5, primals)
    seen = {"np": [], "fnp": []}

    def through(key, f):
        def g(*p):
            out = f(*_with(args, pos, p))
            seen[key].extend(isinstance(leaf, Tracer) for leaf in _leaves(out))
            return out
        return g

    # NumPy's own implementation would raise TracerArrayConversionError on the tracers
    out_np, t_np = ftrans.jvp(through("np", npf), primals, tangents)
    out_f, t_f = ftrans.jvp(through("fnp", fn), primals, tangents)
    assert seen["np"] == seen["fnp"]
    for a, b in zip(_leaves(out_np), _leaves(out_f), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-13, atol=1e-13)
    for a, b in zip(_leaves(t_np), _leaves(t_f), strict=True):
        if np.asarray(b).dtype.kind in "fc":
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-13, atol=1e-13)
    # and NumPy itself on concrete arrays gives the same values
    want = npf(*args)
    for a, b in zip(_leaves(want), _leaves(out_np), strict=True):
        np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------------
# the issue's examples, under every transform
# ---------------------------------------------------------------------------------
M = A @ A.T


def mixture(x):
    """The brief's mixture: ufuncs, NEP 18 functions, linalg, list arguments, methods."""
    y = np.linalg.solve(M, x) + np.dot(x, x)
    z = np.concatenate([np.sin(y), np.ones(2)])
    w = np.where(z > 0.5, z, z ** 2)
    return np.sum(np.mean(np.outer(w, x), axis=0)) + x.sum() * np.max(x)


def mixture_fnp(x):
    y = fnp.linalg.solve(M, x) + fnp.dot(x, x)
    z = fnp.concatenate([fnp.sin(y), fnp.ones(2)])
    w = fnp.where(z > 0.5, z, z ** 2)
    return fnp.sum(fnp.mean(fnp.outer(w, x), axis=0)) + x.sum() * fnp.max(x)


X3 = np.array([0.3, -0.4, 0.8])


def test_issue_examples():
    np.testing.assert_allclose(ftrans.grad(lambda x: np.sum(np.sin(x)))(X3), np.cos(X3),
                               rtol=1e-15)
    np.testing.assert_allclose(ftrans.grad(lambda x: np.dot(x, x))(X3), 2 * X3, rtol=1e-15)


@pytest.mark.parametrize("transform", ["grad", "jacfwd", "jacrev", "hessian", "jit",
                                       "vmap", "jvp", "vjp", "vmap_grad", "jit_grad"])
def test_mixture_under_transforms(transform):
    xs = np.stack([X3, X3[::-1] * 0.7])
    T = {
        "grad": lambda f: ftrans.grad(f)(X3),
        "jacfwd": lambda f: ftrans.jacfwd(f)(X3),
        "jacrev": lambda f: ftrans.jacrev(f)(X3),
        "hessian": lambda f: ftrans.hessian(f)(X3),
        "jit": lambda f: ftrans.jit(f)(X3),
        "vmap": lambda f: ftrans.vmap(f)(xs),
        "jvp": lambda f: ftrans.jvp(f, (X3,), (np.ones(3),)),
        "vjp": lambda f: ftrans.vjp(f, X3)[1](1.0),
        "vmap_grad": lambda f: ftrans.vmap(ftrans.grad(f))(xs),
        "jit_grad": lambda f: ftrans.jit(ftrans.grad(f))(X3),
    }[transform]
    for a, b in zip(_leaves(T(mixture)), _leaves(T(mixture_fnp)), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-13)
    assert np.isclose(mixture(X3), mixture_fnp(X3), rtol=1e-14)


def test_mixture_against_finite_differences():
    check_grads(mixture, (X3,), order=2, modes=("fwd", "rev"))


# ---------------------------------------------------------------------------------
# ufunc methods
# ---------------------------------------------------------------------------------
A34 = RNG.uniform(0.5, 1.5, (3, 4))
UFUNC_METHODS = {
    "add.reduce": lambda a: np.add.reduce(a),
    "add.reduce_axis1_keepdims": lambda a: np.add.reduce(a, axis=1, keepdims=True),
    "multiply.reduce_none": lambda a: np.multiply.reduce(a, axis=None),
    "maximum.reduce": lambda a: np.maximum.reduce(a, axis=1),
    "minimum.reduce_initial": lambda a: np.minimum.reduce(a, axis=0, initial=0.9),
    "subtract.reduce": lambda a: np.subtract.reduce(a, axis=1),
    "divide.reduce": lambda a: np.divide.reduce(a),
    "logaddexp.reduce": lambda a: np.logaddexp.reduce(a, axis=(0, 1)),
    "hypot.reduce_dtype": lambda a: np.hypot.reduce(a, axis=1, dtype=np.float64),
    "add.accumulate": lambda a: np.add.accumulate(a, axis=1),
    "multiply.accumulate": lambda a: np.multiply.accumulate(a),
    "maximum.accumulate": lambda a: np.maximum.accumulate(a, axis=1),
    "logaddexp.accumulate": lambda a: np.logaddexp.accumulate(a, axis=1),
    "subtract.accumulate": lambda a: np.subtract.accumulate(a, axis=1),
    "add.outer": lambda a: np.add.outer(a[0], a[1]),
    "multiply.outer": lambda a: np.multiply.outer(a, a[:, 0]),
    "power.outer": lambda a: np.power.outer(a[0], a[1, :2]),
    "add.reduceat": lambda a: np.add.reduceat(a, [0, 2, 1, 3], axis=1),
    "multiply.reduceat": lambda a: np.multiply.reduceat(a, [0, 2], axis=0),
    "maximum.reduceat": lambda a: np.maximum.reduceat(a, [1, 3, 3], axis=1),
    "subtract.reduceat": lambda a: np.subtract.reduceat(a, [0, 3, 1], axis=1),
    "sin_call_dtype": lambda a: np.sin(a, dtype=np.float64),
    "add_call_out_none": lambda a: np.add(a, 1.0, out=None),
}


@pytest.mark.parametrize("name", sorted(UFUNC_METHODS))
def test_ufunc_methods(name):
    f = UFUNC_METHODS[name]
    want = f(A34)   # NumPy on a concrete array
    np.testing.assert_allclose(ftrans.jit(f)(A34), want, rtol=1e-14)
    np.testing.assert_allclose(ftrans.jvp(f, (A34,), (np.ones_like(A34),))[0], want, rtol=1e-14)
    np.testing.assert_allclose(ftrans.vmap(f)(np.stack([A34, 2 * A34]))[1], f(2 * A34),
                               rtol=1e-14)
    check_grads(f, (A34,), order=2, modes=("fwd", "rev"))


def test_ufunc_reduce_empty_and_identity():
    z = np.zeros((0, 3))
    np.testing.assert_array_equal(ftrans.jit(lambda a: np.add.reduce(a))(z), np.zeros(3))
    np.testing.assert_array_equal(ftrans.jit(lambda a: np.multiply.reduce(a, axis=0))(z),
                                  np.ones(3))
    with pytest.raises(ValueError, match="identity"):
        ftrans.grad(lambda a: np.sum(np.subtract.reduce(a)))(z)


# ---------------------------------------------------------------------------------
# the plain-numpy quickstart (notebooks/01_quickstart.ipynb), written once for either module
# ---------------------------------------------------------------------------------
XD = RNG.uniform(-2, 2, (16, 2))
YD = np.sin(XD[:, :1]) * np.cos(XD[:, 1:])


def quickstart(xp, Xd=XD, yd=YD):
    """The quickstart's functions over the module ``xp`` (numpy or ftrans.numpy)."""

    def f(x):
        return xp.sum(xp.tanh(x) ** 2)

    def g(t):
        return xp.sin(t) * xp.exp(-t ** 2 / 8)

    def h_fn(x):
        return xp.stack([x[0] * x[1], xp.sin(x[2]), xp.sum(x ** 2)])

    def rosen(x):
        return xp.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)

    def mlp(p, X):
        return xp.tanh(X @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"]

    def loss(p):
        return xp.mean((mlp(p, Xd) - yd) ** 2)

    return {"f": f, "g": g, "h": h_fn, "rosen": rosen, "loss": loss}


QS_NP, QS_FNP = quickstart(np), quickstart(fnp)
RNG_P = np.random.default_rng(1)
PARAMS = {"W1": RNG_P.standard_normal((2, 5)) * 0.5, "b1": np.zeros(5),
          "W2": RNG_P.standard_normal((5, 1)) * 0.5, "b2": np.zeros(1)}
QS_ARGS = {"f": np.array([0.5, -1.0, 2.0]), "g": 0.7, "h": np.array([1.0, 2.0, 3.0]),
           "rosen": np.array([1.0, 2.0, 3.0]), "loss": PARAMS}
QS_TRANSFORMS = {
    "grad": lambda f, x: ftrans.grad(f)(x),
    "jacfwd": lambda f, x: ftrans.jacfwd(f)(x),
    "hessian": lambda f, x: ftrans.hessian(f)(x),
    "jit": lambda f, x: ftrans.jit(f)(x),
    "jit_grad": lambda f, x: ftrans.jit(ftrans.grad(f))(x),
    "vmap": lambda f, x: ftrans.vmap(f)(ftrans.tree_util.tree_map(
        lambda a: np.stack([a, 0.5 * np.asarray(a)]), x)),
}
SCALAR_OUT = {"f", "g", "rosen", "loss"}


@pytest.mark.parametrize("transform", sorted(QS_TRANSFORMS))
@pytest.mark.parametrize("fname", sorted(QS_ARGS))
def test_plain_numpy_quickstart(fname, transform):
    if transform in ("grad", "jit_grad") and fname not in SCALAR_OUT:
        pytest.skip("grad needs a scalar output")
    if transform == "hessian" and fname == "loss":
        pytest.skip("the hessian over a dict of parameters is checked by the 'rosen' case")
    t = QS_TRANSFORMS[transform]
    got = t(QS_NP[fname], QS_ARGS[fname])
    want = t(QS_FNP[fname], QS_ARGS[fname])
    for a, b in zip(_leaves(got), _leaves(want), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("fname", ["f", "g", "h", "rosen"])
def test_plain_numpy_quickstart_finite_differences(fname):
    check_grads(QS_NP[fname], (QS_ARGS[fname],), order=2, modes=("fwd", "rev"))


def test_plain_numpy_per_example_gradients():
    """vmap(grad(...)) over examples of a plain-numpy loss (the quickstart's last step)."""
    Xd = RNG.uniform(-2, 2, (6, 2))
    yd = np.sin(Xd[:, :1])

    def example_loss(p, x, y):
        return np.sum((np.tanh(x[None, :] @ p["W1"] + p["b1"]) @ p["W2"] + p["b2"] - y) ** 2)

    per = ftrans.vmap(ftrans.grad(example_loss), in_axes=(None, 0, 0))(PARAMS, Xd, yd)
    mean = ftrans.grad(lambda p: np.mean(ftrans.vmap(example_loss, in_axes=(None, 0, 0))(
        p, Xd, yd)))(PARAMS)
    for k in PARAMS:
        np.testing.assert_allclose(per[k].mean(0), mean[k], rtol=1e-12, atol=1e-15)


# ---------------------------------------------------------------------------------
# signatures that differ, introspection, errors
# ---------------------------------------------------------------------------------
def test_signature_adaptations():
    x = np.array([[0.3, 0.9], [0.5, 0.2]])
    cases = [
        lambda a: np.var(a, 0, None, None, 1),           # ddof positional after out
        lambda a: np.std(a, axis=1, ddof=1, keepdims=True),
        lambda a: np.sum(a, axis=0, where=True),         # NumPy's default passes
        lambda a: np.clip(a, min=0.25, max=0.6),         # NumPy 2's keyword names
        lambda a: np.astype(a, np.float32),
        lambda a: np.concat([a, a], axis=1),
        lambda a: np.linalg.tensordot(a, a, axes=1),     # positional-only in NumPy
        lambda a: np.round(a, 1, None),
        lambda a: np.mean(a, axis=(0, 1), keepdims=False),
    ]
    for f in cases:
        want = f(x)
        got = ftrans.jit(f)(x)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)
        ftrans.jvp(f, (x,), (np.ones_like(x),))


def test_introspection():
    def f(x):
        assert not np.iscomplexobj(x) and np.isrealobj(x)
        assert np.result_type(x, np.float32) == np.float64
        assert np.can_cast(x, np.float32, "same_kind")
        assert np.shape(x) == (2,) and np.ndim(x) == 1 and np.size(x) == 2
        return x
    ftrans.grad(lambda x: np.sum(f(x)))(np.ones(2))
    ftrans.jit(f)(np.ones(2))


def test_uncovered_function_raises_naming_it():
    from numpy.lib.stride_tricks import sliding_window_view
    with pytest.raises(TypeError, match=r"numpy\.lib\._stride_tricks_impl\.sliding_window_view"
                       r"|sliding_window_view") as info:
        ftrans.grad(lambda x: np.sum(sliding_window_view(x, 2)))(V)
    assert "not covered by ftrans.numpy" in str(info.value)
    # and every NumPy function of the three namespaces that ftrans.numpy lacks, today
    missing = [getattr(npmod, name) for prefix, npmod, fmod in NAMESPACES for name in dir(npmod)
               if type(getattr(npmod, name)).__name__ == "_ArrayFunctionDispatcher"
               and not callable(vars(fmod).get(name)) and _binds(getattr(npmod, name), A)]
    for npf in missing[:8]:
        with pytest.raises(TypeError, match="not covered by ftrans.numpy|in place") as info:
            ftrans.grad(lambda x: np.sum(npf(x)))(A)
        assert npf.__name__ in str(info.value)


def _binds(f, *args):
    try:
        inspect.signature(f).bind(*args)
    except (TypeError, ValueError):
        return False
    return True


@pytest.mark.parametrize("call", [
    lambda x: np.sum(x, out=np.zeros(())),
    lambda x: np.sin(x, out=np.zeros(4)),
    lambda x: np.add.reduce(x, out=np.zeros(())),
    lambda x: np.cumsum(x, out=np.zeros(4)),
    lambda x: np.dot(x, x, np.zeros(())),
])
def test_out_argument_raises(call):
    with pytest.raises(TypeError, match=r"out=.*in place"):
        ftrans.grad(call)(V)


@pytest.mark.parametrize("ufunc, fix", [(np.add, r"x.at\[indices\].add"),
                                        (np.maximum, r"x.at\[indices\].max"),
                                        (np.arctan2, r"x.at\[indices\].set")])
def test_ufunc_at_raises(ufunc, fix):
    with pytest.raises(TypeError, match=fix):
        ftrans.grad(lambda x: ufunc.at(x, [0, 1], 1.0))(V)
    with pytest.raises(TypeError, match="in place"):     # the tracer as the values
        ftrans.grad(lambda x: ufunc.at(np.ones(4), [0, 1], x[0]))(V)


def test_unsupported_arguments_raise():
    with pytest.raises(TypeError, match="where"):
        ftrans.grad(lambda x: np.sum(x, where=x > 0.4))(V)
    with pytest.raises(TypeError, match="where"):
        ftrans.grad(lambda x: np.sum(np.add(x, 1.0, where=x > 0.4)))(V)
    with pytest.raises(TypeError, match="concrete"):
        ftrans.vmap(lambda i: np.add.reduceat(V, i))(np.array([[0, 1]]))


def test_in_place_functions():
    with pytest.raises(TypeError, match="in place"):
        ftrans.grad(lambda x: np.sum(np.copyto(x, 1.0)))(V)
    with pytest.raises((TypeError, ValueError)):   # NumPy's put_along_axis is in place
        ftrans.grad(lambda x: np.put_along_axis(x, np.array([0]), 1.0, axis=0))(V)


def test_functions_that_call_asarray_raise_conversion_error():
    """np.vectorize converts its argument with np.asarray: no silent constant."""
    vec = np.vectorize(lambda a: a * 2)
    with pytest.raises(ftrans.TracerArrayConversionError):
        ftrans.grad(lambda x: np.sum(vec(x)))(V)


def test_signatures_of_numpy_functions_readable():
    """The adapter binds NumPy's signature: every dispatched NumPy function has one."""
    for qname, npf, _ in DISPATCHED:
        if not isinstance(npf, np.ufunc):
            inspect.signature(npf)


# ---------------------------------------------------------------------------------
# unmodified library code: numpy.polynomial's evaluators (Clenshaw's and Horner's
# recurrences, Numerical Recipes 3rd ed. sections 5.3 and 5.8) differentiated in x
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("kind, prefix", [("polynomial", "poly"), ("chebyshev", "cheb"),
                                          ("legendre", "leg"), ("hermite", "herm")])
def test_numpy_polynomial_evaluators_unmodified(kind, prefix):
    mod = getattr(np.polynomial, kind)
    val, der = getattr(mod, prefix + "val"), getattr(mod, prefix + "der")
    c = np.array([1.0, -0.5, 0.25, 2.0, -1.0])
    x = np.linspace(-0.9, 0.9, 7)
    d1 = ftrans.vmap(ftrans.grad(lambda t: val(t, c)))(x)
    np.testing.assert_allclose(d1, val(x, der(c)), rtol=1e-13, atol=1e-13)  # NumPy's own der
    d2 = ftrans.vmap(ftrans.hessian(lambda t: val(t, c)))(x)
    np.testing.assert_allclose(d2, val(x, der(c, 2)), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(ftrans.jit(lambda t: val(t, c))(x), val(x, c), rtol=1e-14)
    # the coefficients go through np.array(c, ndmin=1): a clear conversion error
    with pytest.raises(ftrans.TracerArrayConversionError):
        ftrans.grad(lambda cc: np.sum(val(x, cc)))(c)


def test_user_guide_page_runs():
    """The code blocks of docs/guide/plain_numpy.md run (their asserts hold)."""
    import re
    from pathlib import Path
    page = Path(__file__).resolve().parents[2] / "docs" / "guide" / "plain_numpy.md"
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), re.S)
    assert len(blocks) >= 4
    for block in blocks:
        exec(compile(block, str(page), "exec"), {})
