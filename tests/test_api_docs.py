"""Every public name is annotated and documented in NumPy's docstring style.

``tools/apicheck.py`` holds the inventory of the public API and the rules (numpydoc's
validation codes in ``apicheck.RULES``, examples for ``apicheck.EXAMPLES_REQUIRED``);
``python tools/apicheck.py -v`` prints what this test reports.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
pytest.importorskip("numpydoc", reason="numpydoc is in the 'test' extra")

import apicheck  # noqa: E402


@pytest.fixture(scope="module")
def checked():
    items, _ = apicheck.check()
    return items


def _report(bad):
    return "\n".join(f"{it.name}: {'; '.join(it.errors)}" for it in bad[:40])


def test_public_api_is_annotated(checked):
    bad = [it for it in checked if not it.annotated]
    assert not bad, f"{len(bad)} public name(s) not annotated:\n{_report(bad)}"


def test_public_api_is_documented(checked):
    bad = [it for it in checked if not it.documented]
    assert not bad, f"{len(bad)} public docstring(s) fail numpydoc's rules:\n{_report(bad)}"


def test_inventory_is_not_empty(checked):
    """The check covers the API it claims to (a broken inventory would pass vacuously)."""
    names = {it.name for it in checked}
    assert len(checked) > 2000
    for n in ("ftrans.grad", "ftrans.numpy.sin", "ftrans.compat.Tensor.backward",
              "ftrans.compat.Tensor.add", "ftrans.compat.nn.Linear",
              "ftrans.compat.nn.Module.parameters", "ftrans.compat.optim.Adam"):
        assert n in names, n
