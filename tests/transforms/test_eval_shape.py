"""ftrans.eval_shape (jax.eval_shape): shapes and dtypes of the results, nothing computed."""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import lax


def _boom(*a):
    raise AssertionError("a primitive impl ran under eval_shape")


def test_nothing_runs():
    def f(x, w):
        y = ftrans.pure_callback(_boom, ftrans.ShapeDtypeStruct((5, 2), np.float32), x)
        ftrans.debug.callback(_boom, x)
        return {"y": y, "z": fnp.tanh(x @ w).sum(axis=0)}
    out = ftrans.eval_shape(f, ftrans.ShapeDtypeStruct((5, 3), "float32"),
                            np.ones((3, 4), np.float32))
    assert set(out) == {"y", "z"}
    assert isinstance(out["y"], ftrans.ShapeDtypeStruct)
    assert (out["y"].shape, out["y"].dtype) == ((5, 2), np.float32)
    assert (out["z"].shape, out["z"].dtype) == ((4,), np.float32)


def test_large_shapes_allocate_nothing():
    x = ftrans.ShapeDtypeStruct((100_000, 100_000), np.float64)   # 80 GB if computed
    out = ftrans.eval_shape(lambda a: (fnp.sin(a) * 2.0).sum(axis=1), x)
    assert out.shape == (100_000,) and out.dtype == np.float64


def test_scalars_kwargs_pytrees_and_objects_with_shape_dtype():
    class Spec:
        shape = (2, 3)
        dtype = np.dtype(np.int32)

    out = ftrans.eval_shape(lambda a, s=1.0, *, t: (a * s, [t.T, a.astype(np.float32)]),
                            Spec(), 2.0, t=np.zeros((2, 3), np.complex64))
    assert out[0].shape == (2, 3) and out[0].dtype == np.float64   # int32 * Python float
    assert out[1][0].shape == (3, 2) and out[1][0].dtype == np.complex64
    assert out[1][1].dtype == np.float32
    # Python scalars stay weakly typed, as under jit
    assert ftrans.eval_shape(lambda a, s: a * s, np.ones(2, np.float32), 2.0).dtype == np.float32


def test_control_flow_and_dynamic_slice():
    def f(x, i):
        c, ys = lax.scan(lambda c, a: (c + a, c * a), 0.0, x)
        return c, lax.dynamic_slice(ys, (i,), (2,))
    c, s = ftrans.eval_shape(f, ftrans.ShapeDtypeStruct((7,), "float64"), 3)
    assert c.shape == () and s.shape == (2,)


def test_matches_jax(jax_x64):
    jnp = jax_x64.numpy
    spec_j = jax_x64.ShapeDtypeStruct((4, 3), jnp.float32)
    want = jax_x64.eval_shape(lambda a: (jnp.sum(a, axis=0), a.T @ a), spec_j)
    got = ftrans.eval_shape(lambda a: (fnp.sum(a, axis=0), a.T @ a),
                            ftrans.ShapeDtypeStruct((4, 3), "float32"))
    assert [(g.shape, g.dtype) for g in got] == [(w.shape, np.dtype(w.dtype)) for w in want]


def test_errors():
    with pytest.raises(TypeError, match="eval_shape: argument leaf 1 must be an array"):
        ftrans.eval_shape(lambda a, b: a, np.ones(2), "text")
    with pytest.raises(TypeError, match="eval_shape: fun must be callable"):
        ftrans.eval_shape(3, np.ones(2))
    with pytest.raises(ftrans.ConcretizationError):
        ftrans.eval_shape(lambda a: a if a.sum() > 0 else -a, np.ones(2))
