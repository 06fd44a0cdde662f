"""Kinks, NaNs and foreign arrays under the transforms (issue 18, items 4, 6 and 8).

* Non-differentiable points follow DESIGN.md's convention (the minimum-norm
  subgradient), not NaN, and no "divide by zero" RuntimeWarning escapes from a
  derivative formula whose infinite branch is discarded.
* An ``array_api_strict`` function applied to a tracer raises a ``TypeError`` that
  says to call the ftrans.numpy function; ``fnp.matmul`` differentiates through the
  foreign array.
* ``debug_nans`` (``ftrans.config``): ``FloatingPointError`` at the first primitive
  producing a NaN, with the user's line, eagerly and under ``jit``.
"""
import warnings

import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans.testing import check_grads


@pytest.fixture
def no_runtime_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        yield


# ---------------------------------------------------------------------------------
# item 4: minimum-norm subgradients at kinks, no RuntimeWarning
# ---------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [fnp.std, fnp.nanstd], ids=["std", "nanstd"])
def test_std_of_a_constant_has_gradient_zero(fn, no_runtime_warning):
    # torch.ones(3, requires_grad=True).std(unbiased=False).backward() gives zeros
    g = ftrans.grad(fn)(np.full(3, 2.5))
    np.testing.assert_array_equal(g, np.zeros(3))
    g = ftrans.grad(lambda x: fnp.sum(fn(x, axis=0, ddof=1)))(
        np.array([[1.0, 4.0], [1.0, 5.0], [1.0, 9.0]]))
    assert np.all(np.isfinite(g))
    np.testing.assert_array_equal(g[:, 0], np.zeros(3))  # the constant column
    g = ftrans.jit(ftrans.grad(fn))(np.full(4, -1.0))
    np.testing.assert_array_equal(g, np.zeros(4))


def test_std_values_and_derivatives_away_from_the_kink(no_runtime_warning):
    x = np.array([0.3, -1.2, 2.0, 0.7])
    np.testing.assert_allclose(fnp.std(x), np.std(x), rtol=1e-15)
    np.testing.assert_allclose(fnp.std(x, ddof=1), np.std(x, ddof=1), rtol=1e-15)
    np.testing.assert_allclose(fnp.nanstd(np.append(x, np.nan)), np.std(x), rtol=1e-15)
    # d std / dx = (x - mean) / (n std)
    np.testing.assert_allclose(ftrans.grad(fnp.std)(x),
                               (x - x.mean()) / (x.size * np.std(x)), rtol=1e-12)
    check_grads(fnp.std, (x,), order=2)
    check_grads(lambda a: fnp.std(a, axis=1, ddof=1), (x.reshape(2, 2) * [[1.0], [3.0]],),
                order=2)


def test_hypot_at_the_origin_has_gradient_zero(no_runtime_warning):
    gx, gy = ftrans.grad(fnp.hypot, argnums=(0, 1))(0.0, 0.0)
    assert (gx, gy) == (0.0, 0.0)
    g = ftrans.grad(lambda v: fnp.sum(fnp.hypot(v[0], v[1])))(
        np.array([[0.0, 3.0], [0.0, -4.0]]))
    np.testing.assert_allclose(g, [[0.0, 0.6], [0.0, -0.8]], rtol=1e-15)


def test_hypot_values_and_derivatives(no_runtime_warning):
    a, b = np.array([3.0, -1.0, 0.5]), np.array([4.0, 2.0, -0.25])
    np.testing.assert_allclose(fnp.hypot(a, b), np.hypot(a, b), rtol=1e-15)
    h = np.hypot(a, b)
    ga, gb = ftrans.grad(lambda x, y: fnp.sum(fnp.hypot(x, y)), argnums=(0, 1))(a, b)
    np.testing.assert_allclose(ga, a / h, rtol=1e-14)
    np.testing.assert_allclose(gb, b / h, rtol=1e-14)
    check_grads(fnp.hypot, (a, b), order=2)
    assert fnp.hypot(np.float32(3), np.float32(4)).dtype == np.float32


# ---------------------------------------------------------------------------------
# item 8: debug_nans
# ---------------------------------------------------------------------------------
def _log_of_negative(x):
    y = fnp.sin(x) - 2.0
    z = fnp.log(y)  # the NaN
    return fnp.sum(z * 3.0)


_NAN_LINE = r"test_kinks_and_nans\.py:\d+ \(in _log_of_negative\):\n    z = fnp\.log\(y\)"


@pytest.fixture
def nans_off():
    yield
    ftrans.config.update("debug_nans", False)


def test_config_update_and_read(nans_off):
    assert ftrans.config.read("debug_nans") is False  # off by default
    ftrans.config.update("debug_nans", True)
    assert ftrans.config.read("jax_debug_nans") is True
    assert ftrans.config.jax_debug_nans is True
    ftrans.config.update("jax_debug_nans", False)
    assert ftrans.config.read("debug_nans") is False
    with pytest.raises(AttributeError, match="unrecognized config option 'debug_infs'"):
        ftrans.config.update("debug_infs", True)
    with pytest.raises(TypeError, match="expected True or False, got 'yes'"):
        ftrans.config.update("debug_nans", "yes")
    assert ftrans.debug_nans is ftrans.config.debug_nans


def test_debug_nans_off_returns_nan():
    assert np.isnan(_log_of_negative(np.ones(3)))
    assert np.isnan(ftrans.grad(lambda x: fnp.sum(fnp.sqrt(x) * 0.0))(np.zeros(2))).all()


def test_debug_nans_eager_names_the_primitive_and_the_line(nans_off):
    ftrans.config.update("debug_nans", True)
    with pytest.raises(FloatingPointError, match=r"primitive 'log' at .*" + _NAN_LINE):
        _log_of_negative(np.ones(3))
    # no NaN: no error, and infinities are not reported
    assert fnp.log(np.zeros(2))[0] == -np.inf


def test_debug_nans_context_manager_restores_the_setting():
    with pytest.raises(FloatingPointError, match="primitive 'log'"):
        with ftrans.debug_nans():
            _log_of_negative(np.ones(3))
    assert ftrans.config.read("debug_nans") is False
    with ftrans.config.debug_nans(True):
        with ftrans.debug_nans(False):
            assert np.isnan(_log_of_negative(np.ones(3)))
        assert ftrans.config.jax_debug_nans is True


def test_debug_nans_under_transforms():
    with ftrans.debug_nans():
        with pytest.raises(FloatingPointError, match=r"primitive 'log' at .*" + _NAN_LINE):
            ftrans.grad(_log_of_negative)(np.ones(3))
        with pytest.raises(FloatingPointError, match=r"primitive 'log' at .*" + _NAN_LINE):
            ftrans.vmap(_log_of_negative)(np.ones((2, 3)))
        # NaN made by a derivative rule: sqrt'(0) = inf times a zero (co)tangent
        with pytest.raises(FloatingPointError, match="the VJP .* of primitive 'sqrt'"):
            ftrans.grad(lambda x: fnp.sum(fnp.sqrt(x) * 0.0))(np.zeros(2))
        with pytest.raises(FloatingPointError, match="the JVP .* of primitive 'sqrt'"):
            ftrans.jvp(fnp.sqrt, (np.zeros(2),), (np.zeros(2),))


def test_debug_nans_under_jit_reruns_eagerly_to_locate():
    f = ftrans.jit(_log_of_negative)
    assert np.isnan(f(np.ones(3)))  # off: compiled and cached, NaN returned
    with ftrans.debug_nans():
        with pytest.raises(FloatingPointError, match=r"primitive 'log' at .*" + _NAN_LINE):
            f(np.ones(3))
        g = ftrans.jit(lambda v: fnp.log(v) * 2.0)  # no NaN: no error (-inf is no NaN)
        np.testing.assert_array_equal(g(np.array([0.0, 1.0])), [-np.inf, 0.0])


def test_debug_nans_under_grad_of_jit(monkeypatch):
    monkeypatch.setenv("FTRANS_COMPILER", "reference")
    f = ftrans.jit(_log_of_negative)
    with ftrans.debug_nans():
        with pytest.raises(FloatingPointError, match=r"primitive 'log' at .*" + _NAN_LINE):
            ftrans.grad(f)(np.ones(3))


# ---------------------------------------------------------------------------------
# item 6: arrays of another library (array_api_strict) meeting a tracer
# ---------------------------------------------------------------------------------
_FNP_HINT = r"[Cc]all the ftrans\.numpy function instead.*fnp\.matmul"


@pytest.fixture
def strict():
    xp = pytest.importorskip("array_api_strict")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # its dtype-comparison warnings
        yield xp


def test_foreign_operator_on_a_tracer_raises_type_error(strict):
    # array_api_strict raises itself, naming the tracer's type, before Python could
    # try the tracer's reflected operator; ftrans cannot reword it (a metaclass on
    # Tracer could, at the price of a slower isinstance check on every operation)
    a = strict.asarray(np.eye(3) * 2.0)
    m = strict.asarray(np.ones((3, 3)))
    with pytest.raises(TypeError, match="VJPTracer"):
        ftrans.grad(lambda v: fnp.sum(a @ v))(m)


def test_foreign_function_on_a_tracer_says_to_use_fnp(strict):
    a = strict.asarray(np.eye(3) * 2.0)
    m = strict.asarray(np.ones((3, 3)))
    with pytest.raises(TypeError, match=r"no attribute 'device'.*" + _FNP_HINT):
        ftrans.grad(lambda v: fnp.sum(strict.matmul(v, a)))(m)
    # an AttributeError too, so hasattr() stays False
    ftrans.grad(lambda v: fnp.sum(v * float(not hasattr(v, "device"))))(m)


def test_fnp_matmul_differentiates_through_the_foreign_array(strict):
    a = strict.asarray(np.array([[1.0, 2.0], [3.0, 4.0]]))
    m = strict.asarray(np.ones((2, 2)))
    g = ftrans.grad(lambda v: fnp.sum(fnp.matmul(a, v)))(m)
    np.testing.assert_array_equal(np.asarray(g), [[4.0, 4.0], [6.0, 6.0]])
    g = ftrans.grad(lambda v: fnp.sum(fnp.matmul(v, a)))(m)
    np.testing.assert_array_equal(np.asarray(g), [[3.0, 7.0], [3.0, 7.0]])
