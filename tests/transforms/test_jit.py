"""``ftrans.jit``, ``ftrans.make_ir`` and ``ftrans.disable_jit``: the API.

Caching and retracing (counted with ``._trace_count()`` / ``._cache_size()``), pytrees,
Python scalars (weak types), static and keyword arguments, ``donate_argnums``,
``ConcretizationError`` messages, escaped tracers, ``disable_jit``, and the IR listing.
Compositions with the other transforms are in ``test_jit_compositions.py``; every
primitive through jit in ``test_jit_primitives.py``.
"""
from __future__ import annotations

import collections
import threading

import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans.core.ir import IR


def _x(*shape, dtype=np.float64, seed=0):
    return np.asarray(np.random.default_rng(seed).uniform(-1, 1, shape), dtype)


# ---------------------------------------------------------------------------------
# values, wrapping, results
# ---------------------------------------------------------------------------------
def test_jit_matches_eager_and_returns_arrays():
    def f(x, y):
        return fnp.sum(fnp.tanh(x @ y) ** 2, axis=0)
    x, y = _x(3, 4), _x(4, 2, seed=1)
    out = ftrans.jit(f)(x, y)
    assert type(out) is np.ndarray and out.shape == (2,) and out.dtype == np.float64
    np.testing.assert_allclose(out, np.sum(np.tanh(x @ y) ** 2, axis=0), rtol=1e-14)
    s = ftrans.jit(lambda x: fnp.sum(x))(x)  # a reduction to 0-d is an array, not np.float64
    assert type(s) is np.ndarray and s.shape == ()


def test_functools_wraps():
    def my_function(x):
        """Doc of my function."""
        return x * 2.0
    j = ftrans.jit(my_function)
    assert j.__name__ == "my_function" and j.__doc__ == "Doc of my function."
    assert j.__wrapped__ is my_function


def test_outputs_that_are_inputs_constants_or_python_scalars():
    w = np.arange(3.0)
    f = ftrans.jit(lambda x: (x, w, 2.0, None, {"a": x + w}))
    x = _x(3)
    a, b, c, d, e = f(x)
    np.testing.assert_array_equal(a, x)
    np.testing.assert_array_equal(b, w)
    assert isinstance(c, np.ndarray) and c == 2.0 and d is None
    np.testing.assert_array_equal(e["a"], x + w)


def test_pytrees_in_and_out():
    Point = collections.namedtuple("Point", "x y")

    def f(p, d, lst):
        return {"sum": p.x + p.y * d["scale"], "rest": [lst[0] * 2.0, (lst[1],)]}
    jf = ftrans.jit(f)
    p = Point(_x(3), _x(3, seed=1))
    d = {"scale": np.float64(3.0)}
    lst = [_x(2), _x(1)]
    out = jf(p, d, lst)
    want = f(p, d, lst)
    assert ftrans.tree_util.tree_structure(out) == ftrans.tree_util.tree_structure(want)
    np.testing.assert_allclose(out["sum"], want["sum"])
    np.testing.assert_allclose(out["rest"][0], want["rest"][0])
    assert isinstance(out["rest"][1], tuple)


def test_keyword_arguments_are_traced():
    jf = ftrans.jit(lambda x, *, y, z=1.0: x * y + z)
    x = _x(3)
    np.testing.assert_allclose(jf(x, y=_x(3, seed=1)), x * _x(3, seed=1) + 1.0)
    np.testing.assert_allclose(jf(x, y=_x(3, seed=2), z=np.ones(3)), x * _x(3, seed=2) + 1)
    assert jf._trace_count() == 2  # a new keyword argument changes the signature
    jf(x, z=np.zeros(3), y=_x(3))   # keyword order does not matter
    assert jf._trace_count() == 2


# ---------------------------------------------------------------------------------
# caching and retracing
# ---------------------------------------------------------------------------------
def test_traces_once_per_signature():
    calls = []

    def f(x, y):
        calls.append(1)
        return x * y
    jf = ftrans.jit(f)
    x, y = _x(3), _x(3, seed=1)
    for _ in range(3):
        jf(x, y)
    jf(x + 1, y - 1)                        # new values: no retrace
    assert jf._trace_count() == 1 and len(calls) == 1 and jf._cache_size() == 1
    jf(_x(4), _x(4))                        # new shape
    assert jf._trace_count() == 2
    jf(x.astype(np.float32), y)             # new dtype
    assert jf._trace_count() == 3
    jf((x,)[0], (y,)[0])
    jf(x, 2.0)                              # Python scalar: a weak 0-d argument
    jf(x, 3.5)                              # another value of the same kind: cached
    assert jf._trace_count() == 4
    jf(x, 2)                                # an int is another weak kind
    assert jf._trace_count() == 5
    jf(x, np.float64(2.0))                  # a NumPy scalar is a strong 0-d array
    assert jf._trace_count() == 6 and jf._cache_size() == 6
    jf._clear_cache()
    jf(x, y)
    assert jf._trace_count() == 7


def test_pytree_structure_is_part_of_the_key():
    jf = ftrans.jit(lambda t: sum(t[k] for k in t))
    jf({"a": _x(2), "b": _x(2)})
    jf({"a": _x(2, seed=3), "b": _x(2, seed=4)})
    assert jf._trace_count() == 1
    jf({"a": _x(2), "c": _x(2)})
    assert jf._trace_count() == 2
    jl = ftrans.jit(lambda t: t[0])
    jl((_x(2),))
    jl([_x(2)])
    assert jl._trace_count() == 2


def test_transforms_reuse_the_cached_programs():
    f = lambda x: fnp.sum(fnp.sin(x) * x)
    jf = ftrans.jit(f)
    g = ftrans.grad(jf)
    x = _x(5)
    g(x)
    (ir,) = jf._cached_irs()
    n_cache = len(ir.cache)
    for _ in range(3):
        np.testing.assert_allclose(g(x + 0.1), np.sin(x + 0.1) + (x + 0.1) * np.cos(x + 0.1))
    assert jf._trace_count() == 1
    assert len(ir.cache) == n_cache  # the forward/backward programs were not staged again


# ---------------------------------------------------------------------------------
# Python scalars stay weakly typed, results dtypes equal eager ones
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("f", [
    lambda x, s: x * s,
    lambda x, s: s - x,
    lambda x, s: fnp.maximum(x, s),
    lambda x, s: fnp.where(x > 0, x, s),
    lambda x, s: x ** s,
    lambda x, s: fnp.clip(x, -s, s),
    lambda x, s: x * (2 * s) + s ** 2 - abs(s) / 3,   # Python arithmetic on s stays weak
    lambda x, s: x * fnp.sin(s),                      # a NumPy function of s does not
    lambda x, s: fnp.where(s > 1, x, -x),
], ids=["mul", "rsub", "maximum", "where", "pow", "clip", "arith", "sin", "compare"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.complex64])
@pytest.mark.parametrize("s", [2, 0.5])
def test_python_scalar_arguments_keep_eager_dtypes(f, dtype, s):
    x = np.asarray([1, 2, 3], dtype)
    with np.errstate(all="ignore"):
        want = np.asarray(f(x, s))
        got = ftrans.jit(f)(x, s)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want)


def test_python_scalar_under_transforms_stays_weak():
    x = np.linspace(0.5, 1.0, 3, dtype=np.float32)
    jf = ftrans.jit(lambda x, s: fnp.sum(fnp.sin(x) * s))
    g = ftrans.grad(jf)(x, 2.0)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, 2 * np.cos(x), rtol=1e-6)
    v = ftrans.vmap(jf, in_axes=(0, None))(np.stack([x, x]), 3.0)
    assert v.dtype == np.float32 and v.shape == (2,)


# ---------------------------------------------------------------------------------
# static arguments
# ---------------------------------------------------------------------------------
def test_static_argnums_and_argnames():
    calls = []

    def f(x, n, mode="sum"):
        calls.append((n, mode))
        y = x
        for _ in range(n):  # Python control flow on a static value
            y = fnp.sin(y)
        return fnp.sum(y) if mode == "sum" else fnp.max(y)
    jf = ftrans.jit(f, static_argnums=1, static_argnames="mode")
    x = _x(4)
    np.testing.assert_allclose(jf(x, 2), np.sum(np.sin(np.sin(x))))
    jf(x + 1, 2)
    assert jf._trace_count() == 1
    jf(x, 3)
    assert jf._trace_count() == 2
    np.testing.assert_allclose(jf(x, 2, mode="max"), np.max(np.sin(np.sin(x))))
    assert jf._trace_count() == 3
    # a static positional parameter passed by keyword, a static name passed positionally
    np.testing.assert_allclose(jf(x, n=2, mode="max"), np.max(np.sin(np.sin(x))))
    np.testing.assert_allclose(jf(x, 2, "max"), np.max(np.sin(np.sin(x))))
    assert jf._trace_count() == 5  # (the call signature differs, the values are static)
    jf(x, 2, "max")
    assert jf._trace_count() == 5


def test_static_argnums_negative_and_values_of_different_types():
    jf = ftrans.jit(lambda x, k: x * k, static_argnums=-1)
    x = _x(3)
    np.testing.assert_allclose(jf(x, 3), 3 * x)
    jf(x, 3.0)  # 3 == 3.0 but another type: another program
    assert jf._trace_count() == 2


def test_unhashable_static_argument_is_a_clear_error():
    jf = ftrans.jit(lambda x, opts: x * len(opts), static_argnums=1)
    with pytest.raises(TypeError, match=r"static argument 1 .*hashable.*list.*tuple"):
        jf(_x(3), [1, 2])
    np.testing.assert_allclose(jf(_x(3), (1, 2)), 2 * _x(3))


def test_non_array_dynamic_argument_asks_for_static():
    jf = ftrans.jit(lambda x, name: x)
    with pytest.raises(TypeError, match=r"argument 1 is a str.*static_argnums"):
        jf(_x(2), "relu")


@pytest.mark.parametrize("kw,exc", [
    (dict(static_argnums="a"), TypeError),
    (dict(static_argnums=(1.5,)), TypeError),
    (dict(static_argnames=(1,)), TypeError),
    (dict(donate_argnums="x"), TypeError),
    (dict(donate_argnums=(0, 0)), ValueError),
    (dict(static_argnums=0, donate_argnums=0), ValueError),
])
def test_bad_jit_arguments(kw, exc):
    with pytest.raises(exc):
        ftrans.jit(lambda x: x, **kw)


def test_jit_of_a_non_callable():
    with pytest.raises(TypeError, match="callable"):
        ftrans.jit(3)


def test_donate_argnums_is_accepted_and_has_no_effect():
    x = _x(4)
    keep = x.copy()
    out = ftrans.jit(lambda x: x * 2.0, donate_argnums=0)(x)
    np.testing.assert_array_equal(x, keep)  # NumPy cannot donate: the input is intact
    np.testing.assert_allclose(out, 2 * keep)


# ---------------------------------------------------------------------------------
# ConcretizationError
# ---------------------------------------------------------------------------------
def _branchy(x):
    if x.sum() > 0:  # line marker: BRANCH
        return x
    return -x


def _floaty(x):
    return x * float(x[0])


def _inty(x, n):
    return fnp.ones(int(n)) * x


@pytest.mark.parametrize("fun,args,what", [
    (_branchy, (np.ones(3),), "bool"),
    (_floaty, (np.ones(3),), "float"),
    (_inty, (np.ones(3), 3), "int"),
])
def test_concretization_error_names_function_line_and_remedies(fun, args, what):
    with pytest.raises(ftrans.ConcretizationError) as info:
        ftrans.jit(fun)(*args)
    err = info.value
    assert isinstance(err, TypeError)
    msg = str(err)
    assert what in msg
    assert f"jit({fun.__name__})" in msg and f"in {fun.__name__}()" in msg
    assert "test_jit.py:" in msg  # the file and line of the user's code
    assert "static_argnums" in msg and "ftrans.lax.cond" in msg and "ftrans.lax.while_loop" in msg


def test_concretization_error_line_number():
    import inspect
    lines, start = inspect.getsourcelines(_branchy)
    line = start + next(i for i, l in enumerate(lines) if "BRANCH" in l)
    with pytest.raises(ftrans.ConcretizationError, match=rf"test_jit.py:{line}\b"):
        ftrans.jit(_branchy)(np.ones(3))


def test_concretization_error_under_grad_and_in_make_ir():
    with pytest.raises(ftrans.ConcretizationError, match=r"_branchy"):
        ftrans.jit(ftrans.grad(lambda x: fnp.sum(_branchy(x))))(np.ones(3))
    with pytest.raises(ftrans.ConcretizationError, match=r"make_ir\(_branchy\)"):
        ftrans.make_ir(_branchy)(np.ones(3))


def test_static_argument_fixes_the_concretization_error():
    np.testing.assert_allclose(ftrans.jit(_inty, static_argnums=1)(np.ones(3), 3), np.ones(3))


# ---------------------------------------------------------------------------------
# escaped tracers
# ---------------------------------------------------------------------------------
def test_tracer_escaping_a_jitted_function():
    leaked = []

    def f(x):
        leaked.append(x)
        return x * 2.0
    ftrans.jit(f)(_x(3))
    with pytest.raises(ftrans.EscapedTracerError, match=r"jit\(f\)"):
        fnp.sin(leaked[0])
    with pytest.raises(ftrans.EscapedTracerError):
        ftrans.jit(lambda y: y + leaked[0])(_x(3))
    with pytest.raises(ftrans.EscapedTracerError):
        ftrans.jit(lambda y: y)(leaked[0])


def test_tracer_of_an_outer_transform_leaked_into_a_later_jit():
    leaked = []
    ftrans.grad(lambda x: (leaked.append(x), fnp.sum(x))[1])(_x(3))
    with pytest.raises(ftrans.EscapedTracerError, match="grad"):
        ftrans.jit(lambda y: y * leaked[0])(_x(3))


# ---------------------------------------------------------------------------------
# disable_jit
# ---------------------------------------------------------------------------------
def test_disable_jit_runs_the_python_function():
    seen = []

    def f(x):
        seen.append(type(x))
        return x * 2.0 if x.sum() > 0 else x  # needs a concrete value
    jf = ftrans.jit(f)
    x = np.ones(3)
    with ftrans.disable_jit():
        np.testing.assert_allclose(jf(x), 2 * x)
        np.testing.assert_allclose(jf(x, ), 2 * x)
        with ftrans.disable_jit(False):
            with pytest.raises(ftrans.ConcretizationError):
                jf(x)
        np.testing.assert_allclose(ftrans.grad(lambda x: fnp.sum(jf(x)))(x), 2 * np.ones(3))
    assert seen[:2] == [np.ndarray, np.ndarray] and jf._trace_count() == 1
    with pytest.raises(ftrans.ConcretizationError):
        jf(x)


def test_disable_jit_is_thread_local():
    jf = ftrans.jit(lambda x: x * 2.0 if float(x.sum()) > 0 else x)
    errors = []

    def other():
        try:
            jf(np.ones(2))
        except ftrans.ConcretizationError:
            errors.append("traced")
    with ftrans.disable_jit():
        t = threading.Thread(target=other)
        t.start()
        t.join()
        jf(np.ones(2))
    assert errors == ["traced"]


def test_fast_path_respects_disable_jit():
    calls = []
    jf = ftrans.jit(lambda x: calls.append(1) or x + 1.0)
    x = np.ones(2)
    jf(x)
    jf(x)
    assert len(calls) == 1  # the second call took the cached program
    with ftrans.disable_jit():
        jf(x)
    assert len(calls) == 2


# ---------------------------------------------------------------------------------
# make_ir
# ---------------------------------------------------------------------------------
def test_make_ir_listing():
    def f(x, y, *, k):
        return {"out": fnp.sum(fnp.sin(x) * y) + k}
    ir = ftrans.make_ir(f)(np.ones((2, 3), np.float32), 2.0, k=np.float32(1.0))
    assert isinstance(ir, IR)
    assert str(ir) == (
        "ir(a:f32[2,3], b:f64[], c:f32[]) {\n"
        "  d:f32[2,3] = sin a\n"
        "  e:f32[2,3] = mul d b\n"
        "  f:f32[] = reduce_sum[axes=(0, 1)] e\n"
        "  g:f32[] = add f c\n"
        "  return g\n"
        "}")
    assert ir.out_avals[0].dtype == np.float32  # the weak scalar did not promote


def test_make_ir_static_args_and_nested_jit():
    inner = ftrans.jit(lambda x: x * 3.0)
    ir = ftrans.make_ir(lambda x, n: inner(x) ** n, static_argnums=1)(np.ones(2), 3)
    names = [e.prim.name for e in ir.eqns]
    assert names == ["jit", "integer_pow"]
    assert "jit[ir={ ir(a:f64[2]) {" in str(ir) and "name='<lambda>'" in str(ir)
    assert ir.eqns[1].params["n"] == 3


def test_make_ir_drops_dead_code():
    ir = ftrans.make_ir(lambda x: (fnp.cos(x), fnp.sin(x))[1])(np.ones(2))
    assert [e.prim.name for e in ir.eqns] == ["sin"]


def test_jit_inside_jit():
    inner = ftrans.jit(lambda x: fnp.exp(x) * 2.0)
    outer = ftrans.jit(lambda x: inner(x) + inner(x * 2.0))
    x = _x(3)
    np.testing.assert_allclose(outer(x), 2 * np.exp(x) + 2 * np.exp(2 * x))
    assert inner._trace_count() == 1  # staged once, used twice


# ---------------------------------------------------------------------------------
# backends
# ---------------------------------------------------------------------------------
def _recording_backends(monkeypatch):
    import sys
    mod = sys.modules["ftrans.transforms._jit_run"]
    seen = []
    real = mod.compile_ir

    def rec(ir, backend="cpu"):
        seen.append(backend)
        return real(ir, backend)
    monkeypatch.setattr(mod, "compile_ir", rec)
    return seen


def test_numpy_arguments_run_the_cpu_program(monkeypatch):
    seen = _recording_backends(monkeypatch)
    jf = ftrans.jit(lambda x, s: fnp.sin(x) * s)
    jf(_x(3), 2.0)
    ftrans.grad(lambda x: fnp.sum(jf(x, 2.0)))(_x(3))
    assert seen and set(seen) == {"cpu"}


def _cupy():
    cp = pytest.importorskip("cupy", reason="CuPy is not installed: GPU tests skipped")
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("no CUDA device: GPU tests skipped")
    except Exception as e:  # CUDA driver/runtime missing
        pytest.skip(f"no usable CUDA device ({e}): GPU tests skipped")
    return cp


def test_cupy_arguments_run_the_gpu_program_and_stay_on_the_device(monkeypatch):
    cp = _cupy()
    seen = _recording_backends(monkeypatch)
    f = lambda x: fnp.sum(fnp.tanh(x) ** 2)
    x = np.linspace(-1, 1, 7)
    jf = ftrans.jit(f)
    out = jf(cp.asarray(x))
    assert isinstance(out, cp.ndarray) and "gpu" in seen
    np.testing.assert_allclose(cp.asnumpy(out), np.sum(np.tanh(x) ** 2), rtol=1e-13)
    g = ftrans.grad(jf)(cp.asarray(x))
    assert isinstance(g, cp.ndarray)
    np.testing.assert_allclose(cp.asnumpy(g), 2 * np.tanh(x) * (1 - np.tanh(x) ** 2),
                               rtol=1e-13)
    jf(x)  # the same function on NumPy arrays: the CPU program
    assert "cpu" in seen


def test_callable_objects_partials_and_keyword_only_static_names():
    import functools

    class Scale:
        def __init__(self, k):
            self.k = k

        def __call__(self, x, *, mode):
            return x * self.k if mode == "mul" else x + self.k
    js = ftrans.jit(Scale(3.0), static_argnames="mode")
    x = _x(3)
    np.testing.assert_allclose(js(x, mode="mul"), 3 * x)
    np.testing.assert_allclose(js(x, mode="add"), x + 3)
    assert js._trace_count() == 2
    jp = ftrans.jit(functools.partial(lambda a, x: a * x, 2.0))
    np.testing.assert_allclose(jp(x), 2 * x)
    ir = ftrans.make_ir(Scale(2.0), static_argnames="mode")(x, mode="mul")
    assert [e.prim.name for e in ir.eqns] == ["mul"]


def test_no_arguments_and_integer_and_boolean_arguments():
    np.testing.assert_array_equal(ftrans.jit(lambda: fnp.ones(2) * 2.0)(), [2.0, 2.0])
    jf = ftrans.jit(lambda x: x * 2)
    out = jf(np.arange(3))
    assert out.dtype == np.arange(3).dtype
    np.testing.assert_array_equal(out, [0, 2, 4])
    np.testing.assert_array_equal(jf(np.array([True, False])), [2, 0])


def test_collector_paused_while_tracing_and_resumed():
    """The cyclic garbage collector is off while a call traces and compiles, on again
    after it (and after a trace that raises), and left off when the caller turned it off."""
    import gc
    seen = []

    def f(x):
        seen.append(gc.isenabled())
        if x.shape[0] == 3:
            raise ValueError("no")
        return fnp.sin(x) * 2.0

    g = ftrans.jit(f)
    assert gc.isenabled()
    np.testing.assert_allclose(g(np.ones(2)), 2.0 * np.sin(np.ones(2)))
    assert seen == [False] and gc.isenabled()
    g(np.ones(2))  # a cached signature: no trace
    assert seen == [False]
    with pytest.raises(ValueError, match="no"):
        g(np.ones(3))
    assert seen == [False, False] and gc.isenabled()
    gc.disable()
    try:
        g(np.ones(4))
        assert not gc.isenabled()
    finally:
        gc.enable()
