"""examples/dask_logistic_regression.py at a small size: it fits, and it exits non-zero
when the cluster's gradient disagrees with the NumPy reference."""
import importlib.util
import os

import numpy as np
import pytest

pytest.importorskip("distributed")
pytest.importorskip("scipy")

PATH = os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                    "dask_logistic_regression.py")
ARGS = ["--rows", "40000", "--chunk-rows", "10000", "--features", "5", "--maxiter", "20",
        "--check-rows", "5000", "--threads", "--no-progress"]


@pytest.fixture
def example():
    spec = importlib.util.spec_from_file_location("dask_logistic_regression", PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_fits_and_checks_its_gradient(example, capsys):
    assert example.main(ARGS) == 0
    out = capsys.readouterr().out
    assert "gradient check on 5,000 rows against NumPy" in out and ": OK" in out
    acc = float(out.split("fitted accuracy: ")[1].split()[0])
    ref = float(out.split("the generating weights: ")[1].split(")")[0])
    assert abs(acc - ref) < 0.01


def test_wrong_gradient_exits_nonzero(example, monkeypatch, capsys):
    right = example.numpy_loss_grad

    def off_by_a_bit(w, X, s, n, lam):
        loss, grad = right(w, X, s, n, lam)
        return loss, grad * (1 + 1e-6)
    monkeypatch.setattr(example, "numpy_loss_grad", off_by_a_bit)
    assert example.main(ARGS) == 1
    assert "WRONG" in capsys.readouterr().out
