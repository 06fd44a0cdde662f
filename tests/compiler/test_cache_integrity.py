"""The on-disk cache (``$FTRANS_CACHE_DIR``) trusts nothing it reads (issue 18, item 13).

A generated module that is empty, truncated, garbage or edited (still parsing: one store
replaced by ``pass``), and numba cache files that are garbage or truncated, are discarded
with a ``CacheIntegrityWarning`` naming the file and regenerated: the program gives the
right numbers, compiled, and the next process loads the repaired entry from the cache.
An unwritable cache leaves no temporary directory behind.

Each test runs fresh processes (a process loads a module once) on a temporary cache
directory; the programs are tiny (one fused loop each) to keep numba's compile time low.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))

# one program per exponent k: sin(x) ** k - x, compiled to its own module (the exponent
# is in the generated text; a float factor would be a parameter of one shared module)
_CHILD = textwrap.dedent("""
    import json, sys, warnings
    import numpy as np
    import numba  # noqa: F401
    import ftrans.numpy as fnp
    from ftrans.core.ir import stage
    from ftrans.compiler import compile_ir
    warnings.simplefilter("always")
    x = np.linspace(-1.0, 1.0, 3)
    res = []
    for k in json.loads(sys.argv[1]):
        with warnings.catch_warnings(record=True) as w:
            ir, _ = stage(lambda x: fnp.sin(x) ** k - x, [x])
            run = compile_ir(ir)
            out = run(x)[0]
        d = run.dispatchers[0]
        res.append({"out": out.tolist(), "hits": sum(d.stats.cache_hits.values()),
                    "module": d.py_func.__code__.co_filename,
                    "warnings": [[c.category.__name__, str(c.message)] for c in w]})
    print(json.dumps(res))
""")

KS = [3, 4, 5, 6, 7]


def _run(cache, ks=KS, **env):
    e = dict(os.environ, FTRANS_CACHE_DIR=cache, PYTHONPATH=ROOT)
    e.pop("FTRANS_COMPILER", None)
    e.update(env)
    r = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(ks)], env=e,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def _expected(k):
    x = np.linspace(-1.0, 1.0, 3)
    return np.sin(x) ** k - x


def _numba_files(module, seg="seg0-"):
    d = os.path.join(os.path.dirname(module), "__pycache__")
    stem = os.path.basename(module)[:-3] + "." + seg
    return sorted(os.path.join(d, n) for n in os.listdir(d) if n.startswith(stem))


def test_damaged_entries_are_discarded_and_regenerated(tmp_path):
    cache = str(tmp_path / "cache")
    first = _run(cache)
    assert all(not r["warnings"] for r in first)
    mods = [r["module"] for r in first]
    assert len(set(mods)) == len(KS) and all(m.startswith(cache) for m in mods)
    # damage one entry per program
    with open(mods[0], "w"):
        pass                                                   # empty module
    with open(mods[1], "r+") as f:                             # truncated module
        f.truncate(len(f.read()) // 2)
    src = open(mods[2]).read()                                 # still parses: a store
    edited = re.sub(r"(?m)^(\s+)v\d+\[i0\] = r\d+$", r"\1pass", src, count=1)
    assert edited != src
    with open(mods[2], "w") as f:
        f.write(edited)
    nbi, nbc = [p for p in _numba_files(mods[3]) if p.endswith(".nbi")], \
        [p for p in _numba_files(mods[4]) if p.endswith(".nbc")]
    assert nbi and nbc
    for p in nbi:                                              # garbage numba index
        with open(p, "wb") as f:
            f.write(os.urandom(64))
    for p in nbc:                                              # truncated machine code
        data = open(p, "rb").read()
        with open(p, "wb") as f:
            f.write(data[:len(data) // 3])

    second = _run(cache)
    for k, r, bad in zip(KS, second, [mods[0], mods[1], mods[2], nbi[0], nbc[0]]):
        np.testing.assert_allclose(r["out"], _expected(k), rtol=1e-13, atol=1e-15)
        cats = [c for c, _ in r["warnings"]]
        assert cats == ["CacheIntegrityWarning"], r["warnings"]
        assert bad in r["warnings"][0][1]  # names the damaged file
        assert "could not compile" not in json.dumps(r["warnings"])  # ran compiled
    # repaired: the next process loads every program from the cache, silently
    third = _run(cache)
    for k, r in zip(KS, third):
        np.testing.assert_allclose(r["out"], _expected(k), rtol=1e-13, atol=1e-15)
        assert not r["warnings"] and r["hits"] >= 1, r
    assert not [n for n in os.listdir(cache) if n.endswith(".tmp")]  # atomic writes


def test_unwritable_cache_leaves_no_temporary_directory(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    res = _run(str(blocker / "cache"), ks=KS[:2], TMPDIR=str(tmp))
    for k, r in zip(KS, res):
        np.testing.assert_allclose(r["out"], _expected(k), rtol=1e-13, atol=1e-15)
        assert not r["warnings"], r["warnings"]
    assert os.path.dirname(res[0]["module"]) == os.path.dirname(res[1]["module"])
    assert os.listdir(tmp) == []  # the process's private directory is removed at exit
    shutil.rmtree(tmp)


def test_a_genuine_first_call_error_keeps_the_cache(tmp_path):
    """A segment whose first call fails for a reason of its own (here: an argument numba
    cannot type) is not blamed on the disk cache: its cache files stay and no
    CacheIntegrityWarning is given.  A damaged cache file is still discarded."""
    import importlib.util
    import types
    import warnings
    from ftrans.compiler import _SegmentCall, _numba, CacheIntegrityWarning

    src = tmp_path / "ftrans_jit_probe.py"
    src.write_text("from numba import njit\n\n\n@njit(cache=True)\ndef seg0(x):\n"
                   "    return x + 1.0\n")

    def load():
        spec = importlib.util.spec_from_file_location(f"probe{len(list(tmp_path.iterdir()))}",
                                                      src)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod.seg0

    fn = load()
    fn(np.ones(3))  # compiled and cached
    cached = sorted(p.name for p in (tmp_path / "__pycache__").iterdir()
                    if p.suffix in (".nbi", ".nbc"))
    assert cached
    probe = types.SimpleNamespace(fn=load(), purge=_numba.purge_numba_cache)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _SegmentCall.purge_cache(probe, [object()]) is False
    assert sorted(p.name for p in (tmp_path / "__pycache__").iterdir()
                  if p.suffix in (".nbi", ".nbc")) == cached
    for p in (tmp_path / "__pycache__").iterdir():  # now damage the machine code
        if p.suffix == ".nbc":
            p.write_bytes(p.read_bytes()[:20])
    probe = types.SimpleNamespace(fn=load(), purge=_numba.purge_numba_cache)
    with pytest.warns(CacheIntegrityWarning, match="failed to load"):
        assert _SegmentCall.purge_cache(probe, [np.ones(3)]) is True
    np.testing.assert_array_equal(probe.fn(np.ones(3)), np.full(3, 2.0))
