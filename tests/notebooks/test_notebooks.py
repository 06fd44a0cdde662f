"""The committed notebooks are executed, complete and up to date (no kernel is started).

``notebooks/run.py`` executes every notebook top to bottom in a fresh kernel and records
``metadata.ftrans.source_sha256``, the hash of its code cells' sources.  Here each
committed notebook must

* carry that hash, equal to the hash of its current code (else: edited after its last
  run, so its outputs are stale);
* have been executed in one kernel from top to bottom: execution counts 1, 2, 3, ... in
  cell order, on every code cell;
* contain no error output, and at least one figure (a PNG);
* for a notebook that needs a GPU (``"requires": "gpu"``) and was committed from a
  machine without one: show the visible "not executed" note, with no stale outputs below.

Re-executing the notebooks (they take about a minute together) is CI's
``python notebooks/run.py --check``, not this test.
"""
import importlib.util
import json
from pathlib import Path

import pytest

NB_DIR = Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOKS = sorted(NB_DIR.glob("[0-9][0-9]_*.ipynb"))


def _run_module():
    spec = importlib.util.spec_from_file_location("notebooks_run", NB_DIR / "run.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


run = _run_module()


class _Cell(dict):
    __getattr__ = dict.__getitem__


class _NB:
    """Just enough of nbformat's NotebookNode for run.source_hash (no nbformat needed)."""

    def __init__(self, raw):
        self.metadata = raw.get("metadata", {})
        self.cells = [_Cell(c, source="".join(c["source"]) if isinstance(c["source"], list)
                            else c["source"]) for c in raw["cells"]]


def _load(path):
    return _NB(json.loads(path.read_text(encoding="utf-8")))


def test_notebooks_exist():
    names = {p.name[:2] for p in NOTEBOOKS}
    assert {"01", "02", "03", "04", "05", "06", "07", "08"} <= names, sorted(p.name for p in NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_outputs_committed_and_current(path):
    nb = _load(path)
    meta = nb.metadata.get("ftrans", {})
    fix = f"run: python notebooks/run.py {path.name}"
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3", \
        f"{path.name}: kernelspec must be python3 (the venv's ipykernel)"
    assert "source_sha256" in meta, f"{path.name} was never executed by run.py; {fix}"
    assert meta["source_sha256"] == run.source_hash(nb), \
        f"{path.name}: code changed since its outputs were computed (stale outputs); {fix}"

    code = [c for c in nb.cells if c["cell_type"] == "code"]
    if meta.get("executed") == "no-gpu":
        assert meta.get("requires") == "gpu", f"{path.name}: 'no-gpu' without requires=gpu"
        check = [c for c in code if "gpu-check" in c.get("metadata", {}).get("tags", [])]
        assert check, f"{path.name}: needs a GPU but has no gpu-check cell"
        text = json.dumps([c["outputs"] for c in check])
        assert "not executed" in text, f"{path.name}: the no-GPU note is missing; {fix}"
        rest = [c for c in code if c not in check]
        assert all(not c["outputs"] and c["execution_count"] is None for c in rest), \
            f"{path.name}: outputs below the no-GPU note are left over from another run"
        return

    counts = [c["execution_count"] for c in code]
    assert counts == list(range(1, len(code) + 1)), \
        f"{path.name}: not executed top to bottom in one kernel (counts {counts}); {fix}"
    for i, c in enumerate(code):
        errors = [o for o in c["outputs"] if o["output_type"] == "error"]
        assert not errors, f"{path.name}: code cell {i} has an error output"
    pngs = [o for c in code for o in c["outputs"] if "image/png" in o.get("data", {})]
    assert pngs, f"{path.name}: no figure in the outputs"
