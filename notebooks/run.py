"""Execute the notebooks in fresh kernels and write their outputs back.

Usage (from anywhere; the kernel imports ftrans from this checkout)::

    python notebooks/run.py                  # execute all, write outputs back
    python notebooks/run.py 02 04            # only those (by number or file name)
    python notebooks/run.py --check          # CI: execute all, write nothing; fail if a
                                             # notebook errors, runs over its budget, or
                                             # its committed outputs are stale

Each notebook runs top to bottom in a new ``python3`` kernel (pinned to the Python
running this script, i.e. the venv's ipykernel), with the ``notebooks/`` folder as working directory and
the repository root first on ``PYTHONPATH``; two run at a time (a process pool of 2).
After a run the notebook's metadata holds ``ftrans.source_sha256``, the hash of its
code cells' sources: ``tests/notebooks/test_notebooks.py`` recomputes it, so editing a
code cell without re-running the notebook fails the tests.

A notebook whose metadata says ``"ftrans": {"requires": "gpu"}`` needs CuPy and a GPU.
Without them only its cells tagged ``gpu-check`` run (they print a visible note saying
the notebook was not executed) and the rest keep no outputs; its metadata then records
``"executed": "no-gpu"``.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BUDGET_S = 60.0          # per notebook, on the 2-core development machine
CELL_TIMEOUT_S = 120


def source_hash(nb) -> str:
    """sha256 of the code cells' sources, in order (what the outputs were computed from)."""
    h = hashlib.sha256()
    for cell in nb.cells:
        if cell.cell_type == "code":
            h.update(cell.source.encode())
            h.update(b"\0")
    return h.hexdigest()


def gpu_available() -> bool:
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def notebooks(selection=()):
    paths = sorted(HERE.glob("[0-9][0-9]_*.ipynb"))
    if selection:
        paths = [p for p in paths if any(p.name.startswith(s) or p.name == s for s in selection)]
    return paths


def _pin_kernel() -> None:
    """Make the ``python3`` kernel this interpreter (the venv's), whatever else is installed.

    A kernelspec directory on ``JUPYTER_PATH`` takes precedence over user and system
    ones, so a ``python3`` kernelspec registered elsewhere (another Python) is not used.
    """
    import atexit
    import json
    import shutil
    import tempfile
    root = Path(tempfile.mkdtemp(prefix="ftrans-kernels-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    spec = root / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3", "language": "python"}))
    os.environ["JUPYTER_PATH"] = os.pathsep.join(
        [str(root)] + [p for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p])


def _execute(nb, path):
    from nbclient import NotebookClient
    client = NotebookClient(nb, timeout=CELL_TIMEOUT_S, kernel_name="python3",
                            record_timing=False,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()


def run_one(path: Path, write: bool, have_gpu: bool):
    """Execute one notebook; returns (name, seconds, problem or None, note)."""
    import nbformat
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    if "ftrans-kernels-" not in os.environ.get("JUPYTER_PATH", ""):
        _pin_kernel()
    nb = nbformat.read(path, as_version=4)
    committed_hash = nb.metadata.get("ftrans", {}).get("source_sha256")
    meta = dict(nb.metadata.get("ftrans", {}))
    needs_gpu = meta.get("requires") == "gpu"
    note = ""
    t0 = time.perf_counter()
    try:
        if needs_gpu and not have_gpu:
            # run only the cells that say why the rest is not executed
            import copy
            sub = copy.deepcopy(nb)
            idx = [i for i, c in enumerate(nb.cells)
                   if c.cell_type == "code" and "gpu-check" in c.metadata.get("tags", [])]
            sub.cells = [sub.cells[i] for i in idx]
            _execute(sub, path)
            for cell in nb.cells:
                if cell.cell_type == "code":
                    cell.outputs, cell.execution_count = [], None
            for i, cell in zip(idx, sub.cells):
                nb.cells[i] = cell
            meta["executed"] = "no-gpu"
            note = "no CuPy/GPU here: only the gpu-check cells ran (visible note)"
        else:
            _execute(nb, path)
            meta["executed"] = "gpu" if needs_gpu else "cpu"
    except Exception as exc:   # a cell raised, or timed out
        return path.name, time.perf_counter() - t0, f"{type(exc).__name__}: {exc}", note
    seconds = time.perf_counter() - t0
    meta["source_sha256"] = source_hash(nb)
    nb.metadata["ftrans"] = meta
    problem = None
    if seconds > BUDGET_S and not (needs_gpu and have_gpu):
        problem = f"took {seconds:.1f} s, over the {BUDGET_S:.0f} s budget"
    if write:
        nbformat.write(nb, path)
    elif committed_hash != meta["source_sha256"]:
        problem = (problem or "") + " committed outputs are stale (code changed since the "\
            "last run): run python notebooks/run.py " + path.name
    return path.name, seconds, problem, note


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*", help="notebook numbers or file names (default: all)")
    ap.add_argument("--check", action="store_true",
                    help="execute without writing; fail on errors, budget or stale outputs")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="notebooks run at a time")
    args = ap.parse_args(argv)
    paths = notebooks(args.names)
    if not paths:
        print("no notebook matches", args.names, file=sys.stderr)
        return 2
    have_gpu = gpu_available()
    _pin_kernel()                  # once, here: the pool's workers inherit JUPYTER_PATH
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(run_one, paths, [not args.check] * len(paths),
                                [have_gpu] * len(paths)))
    failed = 0
    for name, seconds, problem, note in results:
        status = "FAIL " + problem if problem else "ok"
        print(f"{name:36s} {seconds:6.1f} s  {status}{'  (' + note + ')' if note else ''}")
        failed += problem is not None
    print(f"{len(results)} notebooks in {time.perf_counter() - t0:.1f} s wall "
          f"({args.jobs} at a time), {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
