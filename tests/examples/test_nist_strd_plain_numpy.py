"""The NIST StRD models written with plain ``numpy`` differentiate through NumPy's
dispatch protocols, under grad, jacfwd, jacrev, hessian, vmap and jit.

The plain-numpy models are the example's own model functions (examples/strd.py) run with
their module's ``fnp`` bound to ``numpy`` itself: the same source, no copy, with every
``fnp.exp`` now ``numpy.exp``.  On concrete arrays they are pure NumPy, so their values
are an independent reference; their derivatives are compared with the ftrans.numpy
models' and with central differences of the pure-NumPy residual.
"""
import inspect
import sys
import types
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
sys.path.insert(0, str(EXAMPLES))

import strd  # noqa: E402

import ftrans  # noqa: E402
from ftrans.core import Tracer  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_nist_strd import assert_matches_central_differences  # noqa: E402


def plain_numpy(model):
    """``model`` (a function of examples/strd.py) with ``fnp`` bound to plain numpy."""
    scope = dict(model.__globals__, fnp=np)
    return types.FunctionType(model.__code__, scope, model.__name__, model.__defaults__,
                              model.__closure__)


@pytest.fixture(scope="module", params=list(strd.DATASETS))
def case(request):
    ds = strd.load(request.param)
    model = strd.MODELS[ds.name]
    return (ds, strd.make_residual(ds, plain_numpy(model)), strd.make_residual(ds, model))


def test_plain_models_are_numpy():
    """The rebinding takes effect: the plain models call numpy's ufuncs (seen on tracers)."""
    ds = strd.load("Misra1a")
    calls = []
    scope_np = plain_numpy(strd.misra1a).__globals__["fnp"]
    assert scope_np is np and "fnp.exp" in inspect.getsource(strd.misra1a)

    def spy(b):
        out = plain_numpy(strd.misra1a)(b, ds.x)
        calls.append(type(out))
        return out
    ftrans.jacfwd(spy)(ds.start1)
    assert issubclass(calls[0], Tracer)


def test_values_are_numpys(case):
    ds, res_np, res_f = case
    want = res_np(ds.start1)     # pure NumPy: no tracer, no ftrans
    assert isinstance(want, np.ndarray)
    np.testing.assert_allclose(res_f(ds.start1), want, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(ftrans.jit(res_np)(ds.start1), want, rtol=1e-13, atol=1e-13)


def test_jacobians_agree(case):
    ds, res_np, res_f = case
    J = ftrans.jacfwd(res_np)(ds.start1)
    np.testing.assert_allclose(J, ftrans.jacfwd(res_f)(ds.start1), rtol=1e-13, atol=1e-300)
    np.testing.assert_allclose(ftrans.jacrev(res_np)(ds.start1), J, rtol=1e-12, atol=1e-300)
    assert_matches_central_differences(J, res_np, ds.start1)


def test_sse_gradient_hessian_vmap_jit(case):
    ds, res_np, res_f = case

    def sse_np(b):
        return np.sum(res_np(b) ** 2)

    def sse_f(b):
        return np.sum(res_f(b) ** 2)
    b = ds.start2
    np.testing.assert_allclose(ftrans.grad(sse_np)(b), ftrans.grad(sse_f)(b), rtol=1e-12)
    np.testing.assert_allclose(ftrans.jit(ftrans.grad(sse_np))(b), ftrans.grad(sse_f)(b),
                               rtol=1e-12)
    np.testing.assert_allclose(ftrans.hessian(sse_np)(b), ftrans.hessian(sse_f)(b),
                               rtol=1e-11, atol=1e-300)
    bs = np.stack([ds.start1, ds.start2])
    np.testing.assert_allclose(ftrans.vmap(res_np)(bs), np.stack([res_np(ds.start1),
                                                                  res_np(ds.start2)]),
                               rtol=1e-13, atol=1e-13)
