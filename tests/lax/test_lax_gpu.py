"""Control flow on CuPy arrays: results stay on the device (skipped without CuPy and a
CUDA device)."""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import lax


@pytest.fixture
def cp():
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed: GPU paths not tested")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # CuPy without a usable GPU
        pytest.skip(f"no usable CUDA device: {e}")
    return cupy


def test_control_flow_keeps_cupy_arrays(cp):
    xs = cp.asarray(np.linspace(-1, 1, 12).reshape(4, 3))
    h, ys = lax.scan(lambda c, x: (fnp.tanh(c + x), fnp.sum(c)), cp.zeros(3), xs)
    assert isinstance(h, cp.ndarray) and isinstance(ys, cp.ndarray)
    h_np, _ = lax.scan(lambda c, x: (fnp.tanh(c + x), fnp.sum(c)), np.zeros(3), cp.asnumpy(xs))
    np.testing.assert_allclose(cp.asnumpy(h), h_np, rtol=1e-12)
    g = ftrans.grad(lambda xs: fnp.sum(lax.scan(lambda c, x: (fnp.tanh(c + x), None),
                                                cp.zeros(3), xs)[0]))(xs)
    assert isinstance(g, cp.ndarray) and g.shape == xs.shape
    out = lax.cond(True, lambda x: x * 2.0, lambda x: x, xs)
    assert isinstance(out, cp.ndarray)
    n = lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0), (0, xs))[1]
    assert isinstance(n, cp.ndarray)
