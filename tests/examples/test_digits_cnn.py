"""The digits-CNN example: a short run learns, its checkpoint reloads (into compat and,
where PyTorch is installed, into the same model built with torch, which then predicts
the same classes)."""
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sklearn", reason="scikit-learn (the examples extra) is not installed")
pytest.importorskip("ftrans.compat.optim", reason="ftrans.compat.optim is not available")
pytest.importorskip("ftrans.compat.utils.data", reason="ftrans.compat.utils.data is missing")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
sys.path.insert(0, str(EXAMPLES))

import digits_cnn  # noqa: E402


def test_short_run_learns_and_checkpoint_reloads(tmp_path):
    r = digits_cnn.train(epochs=2, seed=0, out=tmp_path / "cnn.pt", verbose=False)
    assert r["test_acc"] > 0.8 and r["train_acc"] > 0.8
    assert r["reloaded_test_acc"] == r["test_acc"]
    assert (tmp_path / "cnn.pt").stat().st_size > 0
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    sd = torch.load(tmp_path / "cnn.pt", weights_only=True)
    tm = digits_cnn.make_model(torch.nn)
    tm.load_state_dict(sd)
    tm.eval()
    _, _, xte, yte = digits_cnn.load_data(0)
    with torch.no_grad():
        pred = tm(torch.from_numpy(xte.numpy().copy())).argmax(1).numpy()
    acc = float(np.mean(pred == yte.numpy()))
    assert acc == r["test_acc"]
