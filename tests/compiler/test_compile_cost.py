"""What compiling a program costs numba beyond the program itself.

numba compiles its ``@overload`` implementations anew in every process.  An array assigned
into a slice of another (``y[k] = r``) makes numba compile its shape-mismatch message, and
with it numba's string functions: 4-5 s in the first such program of a process.  The
emitters write those assignments -- a batch of results, a scan's per-step outputs, an
update broadcast into a slice, an argsort per column -- through ``_assign``
(``_numba_runtime_support``) and call
numba's ``np.linalg`` through cached entry points (``_numba_linalg_support``), so a fresh
process compiles none of numba's string functions for the generated code (a fresh
installation compiles the cached entry points once, string functions included).  Checked
in a child process: in this one, another test may have compiled them already.
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
import ftrans.primitives as P
from ftrans.primitives import linalg as L


def f(a, b, xs):
    eye = fnp.eye(3)
    ch = L.cholesky(b @ fnp.swapaxes(b, -1, -2) + 3.0 * eye)      # a batch of results
    x = L.solve(a + 3.0 * eye, b)
    u = lax.dynamic_update_slice(b, ch[:, :2, :2], (0, 1, 0))      # an array update
    _, ys = lax.scan(lambda c, r: (c + r, c * r), fnp.zeros(3), b[0] + xs[:3])  # per step
    z = P.scatter_add(b[0, :1] * 2.0, (slice(0, 2), slice(None)), (3, 3))  # broadcast
    o = fnp.argsort(b[1], axis=0).astype(float)                             # per column
    return (fnp.sum(x) + fnp.sum(u * u) + fnp.sum(ys * ys) + fnp.sum(b[:, 1:, :2] ** 2)
            + fnp.sum(z * z * o))


rng = np.random.default_rng(0)
args = (rng.standard_normal((2, 3, 3)), rng.standard_normal((2, 3, 3)),
        rng.standard_normal((4, 3)))
with ev.install_recorder("numba:compile") as rec:
    got = ftrans.jit(ftrans.grad(f, argnums=1))(*args)
want = ftrans.grad(f, argnums=1)(*args)
# the modules of the functions numba compiled, and those of numba's string functions
# compiled for the generated code itself (not inside the cached entry points, which a
# fresh installation compiles once)
mods, stack, strings = set(), [], set()
for _, e in rec.buffer:
    d = e.data["dispatcher"]
    mod = d.py_func.__module__ if hasattr(d, "py_func") else "?"
    if not e.is_start:
        stack.pop()
        continue
    mods.add(mod)
    if mod == "numba.cpython.unicode" and not any(
            m.startswith("ftrans.compiler._numba_") for m in stack):
        strings.add(stack[-1] if stack else mod)
    stack.append(mod)
print(json.dumps({"modules": sorted(mods), "strings": sorted(strings),
                  "close": bool(np.allclose(got, want, rtol=1e-10, atol=1e-12))}))
"""


def test_a_fresh_process_compiles_no_string_functions(tmp_path):
    env = dict(os.environ, FTRANS_CACHE_DIR=str(tmp_path), PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["close"]
    assert any(m.startswith("ftrans_jit_") for m in out["modules"]), out["modules"]
    assert not out["strings"], out["strings"]     # compiled for the generated code
