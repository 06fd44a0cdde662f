"""ftrans.pure_callback (JAX's jax.pure_callback): values, jit, vmap methods, refusals."""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import ShapeDtypeStruct as SDS


def _host_sin(x):
    return ftrans.pure_callback(np.sin, SDS(x.shape, x.dtype), x)


X = np.linspace(-1.0, 1.0, 6).reshape(2, 3)


def test_eager_and_jit_values():
    np.testing.assert_array_equal(_host_sin(X), np.sin(X))
    np.testing.assert_array_equal(ftrans.jit(lambda x: fnp.cos(_host_sin(x)) * 2)(X),
                                  np.cos(np.sin(X)) * 2)
    assert "pure_callback" in str(ftrans.make_ir(_host_sin)(X))


def test_pytrees_and_kwargs():
    def host(d, scale):
        return {"s": d["a"] + d["b"], "p": (d["a"] * d["b"] * scale).astype(np.float32)}
    spec = {"s": SDS((3,), np.float64), "p": SDS((3,), np.float32)}
    a, b = np.arange(3.0), np.ones(3)
    out = ftrans.jit(lambda a, b: ftrans.pure_callback(host, spec, {"a": a, "b": b},
                                                       scale=2.0))(a, b)
    np.testing.assert_array_equal(out["s"], a + b)
    assert out["p"].dtype == np.float32


@pytest.mark.parametrize("method", ["sequential", "expand_dims", "broadcast_all"])
def test_vmap_methods(method):
    calls = []

    def host(x, y):
        calls.append(x.shape)
        return x * y

    def f(x, y):
        shape = np.broadcast_shapes(x.shape, y.shape)
        return ftrans.pure_callback(host, SDS(shape, x.dtype), x, y, vmap_method=method)

    xs, y = np.arange(6.0).reshape(3, 2), np.array([1.0, -2.0])
    got = ftrans.vmap(f, in_axes=(0, None))(xs, y)
    np.testing.assert_array_equal(got, xs * y)
    assert len(calls) == (3 if method == "sequential" else 1)
    want_shape = {"sequential": (2,), "expand_dims": (3, 2), "broadcast_all": (3, 2)}[method]
    assert calls[0] == want_shape
    # the batch axis elsewhere, and vmap under jit
    got = ftrans.jit(ftrans.vmap(f, in_axes=(1, None)))(xs.T, y)
    np.testing.assert_array_equal(got, xs * y)


def test_nested_vmap_sequential():
    xs = np.arange(12.0).reshape(2, 3, 2)
    np.testing.assert_allclose(ftrans.vmap(ftrans.vmap(_host_sin))(xs), np.sin(xs))


def test_differentiation_refused_with_advice():
    with pytest.raises(TypeError, match="custom_jvp or ftrans.custom_vjp"):
        ftrans.grad(lambda x: fnp.sum(_host_sin(x)))(X)
    with pytest.raises(TypeError, match="cannot differentiate"):
        ftrans.jvp(_host_sin, (X,), (X,))
    # a constant operand is not differentiated: no refusal
    g = ftrans.grad(lambda x: fnp.sum(x * _host_sin(np.ones(3))))(np.ones(3))
    np.testing.assert_allclose(g, np.sin(np.ones(3)))


def test_custom_jvp_wrapping_gives_derivatives():
    @ftrans.custom_jvp
    def f(x):
        return _host_sin(x)

    @f.defjvp
    def f_jvp(p, t):
        return f(p[0]), t[0] * fnp.cos(p[0])

    from ftrans.testing import check_grads
    check_grads(f, (X,), order=2, modes=("fwd", "rev"))
    np.testing.assert_allclose(ftrans.vmap(ftrans.grad(lambda x: fnp.sum(f(x))))(X), np.cos(X))


def test_bad_results_and_arguments():
    with pytest.raises(TypeError, match="declares shape"):
        ftrans.pure_callback(lambda x: x[:1], SDS((3,), np.float64), np.ones(3))
    with pytest.raises(TypeError, match="dtype float32"):
        ftrans.pure_callback(lambda x: x, SDS((3,), np.float32), np.ones(3))
    with pytest.raises(TypeError, match="structure"):
        ftrans.pure_callback(lambda x: (x, x), SDS((3,), np.float64), np.ones(3))
    with pytest.raises(ValueError, match="vmap_method"):
        ftrans.pure_callback(np.sin, SDS((3,), np.float64), np.ones(3), vmap_method="legacy")
    with pytest.raises(TypeError, match="callable"):
        ftrans.pure_callback(3, SDS((3,), np.float64), np.ones(3))
    with pytest.raises(TypeError, match="ShapeDtypeStruct"):
        ftrans.pure_callback(np.sin, (3,), np.ones(3))


def test_jax_comparison(jax_x64):
    jax = jax_x64
    want = jax.vmap(lambda x: jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype),
                                                x, vmap_method="sequential"))(X)
    np.testing.assert_allclose(ftrans.vmap(_host_sin)(X), np.asarray(want))
