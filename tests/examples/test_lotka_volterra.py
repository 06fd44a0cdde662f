"""The Lotka-Volterra example: the committed lynx-hare data, the adjoint gradient of the
fit's loss against central differences, and a few BFGS steps lowering the loss."""
import sys
from pathlib import Path

import numpy as np

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
sys.path.insert(0, str(EXAMPLES))

import lotka_volterra_fit as lv  # noqa: E402


def test_data_as_published():
    years, counts = lv.load_data()
    np.testing.assert_array_equal(years, np.arange(1900, 1921))
    assert counts.shape == (21, 2)
    # first and last rows, and the column sums of the source file added by hand
    np.testing.assert_array_equal(counts[0], [30.0, 4.0])
    np.testing.assert_array_equal(counts[-1], [24.7, 8.6])
    np.testing.assert_allclose(counts.sum(axis=0), [715.7, 423.5])


def test_adjoint_gradient_matches_central_differences():
    years, counts = lv.load_data()
    err, g = lv.gradient_check(lv.make_loss(years, counts), lv.START)
    assert err < 1e-5, err
    assert np.all(np.isfinite(g))


def test_few_bfgs_steps_lower_the_loss():
    res, loss = lv.fit(maxiter=2)
    assert float(res.fun) < 0.5 * float(loss(lv.START))
    assert res.x.shape == (6,)
