"""What compiling a program costs numba beyond the program itself.

numba compiles its ``@overload`` implementations anew in every process.  An array assigned
into a slice of another (``y[k] = r``) makes numba compile its shape-mismatch message, and
with it numba's string functions: 4-5 s in the first such program of a process.  The
emitters write those assignments through ``_assign`` (``_numba_runtime_support``) and call
numba's ``np.linalg`` through cached entry points (``_numba_linalg_support``), so a fresh
process compiles none of numba's string functions.  Checked in a child process: in this
one, another test may have compiled them already.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_CHILD = r"""
import json
import numpy as np
from numba.core import event as ev
import ftrans
import ftrans.numpy as fnp
from ftrans import lax
from ftrans.primitives import linalg as L


def f(a, b, xs):
    eye = fnp.eye(3)
    ch = L.cholesky(a @ fnp.swapaxes(a, -1, -2) + 3.0 * eye)      # a batch of results
    x = L.solve(a + 3.0 * eye, b)
    u = lax.dynamic_update_slice(b, ch[:, :2, :2], (0, 1, 0))      # an array update
    _, ys = lax.scan(lambda c, r: (c + r, c * r), fnp.zeros(3), xs)  # an array per step
    return fnp.sum(x) + fnp.sum(u * u) + fnp.sum(ys) + fnp.sum(ch)


rng = np.random.default_rng(0)
args = (rng.standard_normal((2, 3, 3)), rng.standard_normal((2, 3, 3)),
        rng.standard_normal((4, 3)))
with ev.install_recorder("numba:compile") as rec:
    got = ftrans.jit(ftrans.grad(f, argnums=(0, 1, 2)))(*args)
want = ftrans.grad(f, argnums=(0, 1, 2))(*args)
mods = sorted({e.data["dispatcher"].py_func.__module__ for _, e in rec.buffer
               if e.is_start and hasattr(e.data["dispatcher"], "py_func")})
print(json.dumps({"modules": mods,
                  "close": all(np.allclose(g, w, rtol=1e-10, atol=1e-12)
                               for g, w in zip(got, want))}))
"""


def test_a_fresh_process_compiles_no_string_functions(tmp_path):
    env = dict(os.environ, FTRANS_CACHE_DIR=str(tmp_path), PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["close"]
    assert any(m.startswith("ftrans_jit_") for m in out["modules"]), out["modules"]
    assert not [m for m in out["modules"] if "unicode" in m], out["modules"]
