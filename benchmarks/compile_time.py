"""Compile time, retracing cost, memory and cold start of ``ftrans.jit`` beside ``jax.jit``.

    PYTHONPATH=. python benchmarks/compile_time.py           # the full run (a few minutes)
    PYTHONPATH=. python benchmarks/compile_time.py --quick   # smoke run: 30 shapes for (d)

The program (issue 21): ``f(x, w)`` with x (8, 16) and w (16, 16) float64, ``BLOCKS``
times a block of matmul, tanh, sin, exp, sum / max over an axis with keepdims, ``where``,
a transpose, sqrt and log1p, then a scalar (about 300 staged equations; the count is
printed).  The same function is written once over a NumPy-like module and run with
``ftrans.numpy`` and with ``jax.numpy`` (float64: ``jax_enable_x64``).

Every measurement runs in a FRESH Python process (this script calls itself with
``--child``) with an EMPTY ``FTRANS_CACHE_DIR`` (a new temporary directory) unless said:

(a) compile: first call minus a warm call (the median of 5), ``ftrans.jit(f)`` against
    ``jax.jit(f)``;
(b) the same for the gradient w.r.t. w: ``ftrans.jit(ftrans.grad(f, argnums=1))`` against
    ``jax.jit(jax.grad(f, argnums=1))``;
(c) a new shape of the same rank and dtype: after x (8, 16), the first call with x (k, 16)
    minus a warm call with it, for k = 9 ... 13 in the processes of (a) and (b): the median
    (and the worst, printed beside it: one of them may pay a full pass of Python's cyclic
    garbage collector over the process's half a million objects, ~35 ms here, whichever
    call the collector's thresholds trip on);
(d) memory: resident set size (psutil, else /proc/self/statm) after a first call with x
    (8, 16) (the start), after calls on 500 shapes x (k, 16), k = 1..500, and after
    ``f._clear_cache()`` plus ``gc.collect()``; with the default in-memory cache, and
    with the cache bounded at 64 programs when ftrans has such a bound
    (``ftrans.config.update("jit_cache_size", 64)``; "n/a" otherwise).  It reuses the
    disk cache of (a), so the program's own compilation is not in the figures; the
    median per-shape time is printed too.  A process stops after SHAPE_BUDGET_S seconds
    of new shapes (a slow compiler does not make the run last hours) and says how many
    shapes it did, with the memory per shape;
(e) cold start: a new process with the disk cache of (a) WARM: the time from before
    ``import numpy`` to the end of the first call, and its parts (importing numpy,
    numba and ftrans, then the call).  As on an installed package, modules import from
    their bytecode: the child runs once before the measured run to write ``__pycache__``
    (``PYTHONDONTWRITEBYTECODE`` is unset for both; with it set, every import compiles
    its source again, ~0.3 s more for ftrans).  JAX has no disk cache on by default: its column
    is the same span in a fresh process (import and first call, which compiles).

Targets (issue 21): compile <= 2x ``jax.jit``; a new shape <= 5 ms; memory <= 100 MB over
the start with the cache bounded at 64 programs; a cached program's first call in a new
process <= 0.25 s.  The figures are printed, never asserted.
"""
# The module imports only the standard library at its top: the children time importing
# numpy, numba, ftrans and jax themselves, so those imports are inside the functions.
from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

T_START = time.perf_counter()
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
BLOCKS = 12  # blocks of the program: about 300 staged equations for f
N_SHAPES = 500  # (d): shapes x (k, 16), k = 1..N_SHAPES
N_SHAPES_QUICK = 30
BOUND = 64  # (d): the in-memory cache bound tried
SHAPE_BUDGET_S = 90.0  # (d): seconds of new shapes per process at most (then it stops)
SHAPE_BUDGET_S_QUICK = 20.0
TARGETS = {"compile": 2.0, "new_shape_s": 5e-3, "memory_mb": 100.0, "cold_s": 0.25}


def program(xp):
    """The benchmark program written over the NumPy-like module ``xp``."""
    def f(x, w):
        h = x
        for i in range(BLOCKS):
            a = xp.tanh(h @ w)
            b = xp.sin(a) * xp.exp(-(a * a))
            m = xp.max(b, axis=1, keepdims=True)
            s = xp.sum(b, axis=0, keepdims=True)
            c = xp.where(b > 0.5 * m, b - m, 0.1 * s)
            d = xp.sqrt(c * c + 1.0)
            e = xp.log1p(d) @ xp.transpose(w)
            h = 0.5 * h + 0.1 * e
        return xp.sum(h * h)
    return f


def inputs(k=8):
    import numpy as np
    rng = np.random.default_rng(0)
    return rng.standard_normal((k, 16)), rng.standard_normal((16, 16)) / 4.0


def _rss_mb():
    try:
        import psutil
        return psutil.Process().memory_info().rss / 2**20
    except ImportError:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _timed(fn, *args):
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def _warm(fn, *args, n=5):
    return statistics.median(_timed(fn, *args) for _ in range(n))


# ---------------------------------------------------------------------------------------
# children: each prints one JSON line
# ---------------------------------------------------------------------------------------
def _jitted(lib, grad):
    """``lib``'s jitted program (or gradient w.r.t. w) as ``run(x, w)``, which waits
    for its result (JAX dispatches asynchronously)."""
    if lib == "jax":
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        f = program(jnp)
        fn = jax.jit(jax.grad(f, argnums=1) if grad else f)
        return lambda x, w: fn(x, w).block_until_ready()
    import ftrans
    import ftrans.numpy as fnp
    f = program(fnp)
    return ftrans.jit(ftrans.grad(f, argnums=1) if grad else f)


def child_compile(lib, grad):
    """(a)/(b) and (c): compile time and a new shape's extra first-call time."""
    run = _jitted(lib, grad)
    x, w = inputs(8)
    first = _timed(run, x, w)
    warm = _warm(run, x, w)
    new = []
    for k in range(9, 14):
        xk, _ = inputs(k)
        first_k = _timed(run, xk, w)
        new.append(first_k - _warm(run, xk, w))
    out = {"compile_s": first - warm, "first_s": first, "warm_s": warm,
           "new_shape_s": statistics.median(new), "new_shape_max_s": max(new)}
    if lib == "ftrans":
        import ftrans
        import ftrans.numpy as fnp
        f = program(fnp)
        out["eqns"] = len(ftrans.make_ir(ftrans.grad(f, argnums=1) if grad else f)(x, w).eqns)
    print(json.dumps(out))


def _set_bound(n):
    """Set ftrans's in-memory jit cache bound; False when ftrans has none."""
    import ftrans
    update = getattr(getattr(ftrans, "config", None), "update", None)
    if update is None:
        return False
    try:
        update("jit_cache_size", n)
    except (AttributeError, KeyError, ValueError, TypeError):
        return False
    return True


def child_memory(bound, n_shapes, budget=SHAPE_BUDGET_S):
    """(d): resident memory over ``n_shapes`` shapes, the cache bounded at ``bound``;
    stops early once the shapes have taken ``budget`` seconds."""
    import ftrans  # noqa: F401
    if bound and not _set_bound(bound):
        print(json.dumps({"na": "ftrans.config has no 'jit_cache_size' option"}))
        return
    run = _jitted("ftrans", False)
    x, w = inputs(8)
    run(x, w)
    gc.collect()
    start = _rss_mb()
    per_shape = []
    t0 = time.perf_counter()
    for k in range(1, n_shapes + 1):
        xk = inputs(k)[0]
        per_shape.append(_timed(run, xk, w))
        if time.perf_counter() - t0 > budget:
            break
    gc.collect()
    after = _rss_mb()
    cached = run._cache_size() if hasattr(run, "_cache_size") else None
    run._clear_cache()
    gc.collect()
    cleared = _rss_mb()
    print(json.dumps({"start_mb": start, "after_mb": after, "cleared_mb": cleared,
                      "per_shape_s": statistics.median(per_shape), "cached": cached,
                      "shapes": len(per_shape)}))


def child_cold(lib):
    """(e): from before ``import numpy`` to the end of the first call (disk cache warm)."""
    t0 = time.perf_counter()
    import numpy  # noqa: F401
    t1 = time.perf_counter()
    if lib == "jax":
        import jax  # noqa: F401
        t2 = None
        t3 = time.perf_counter()
    else:
        import numba  # noqa: F401  (ftrans needs it for a compiled program's first call)
        t2 = time.perf_counter()
        import ftrans  # noqa: F401
        t3 = time.perf_counter()
    run = _jitted(lib, False)
    x, w = inputs(8)
    run(x, w)
    t4 = time.perf_counter()
    print(json.dumps({"total_s": t4 - t0, "numpy_s": t1 - t0, "numba_s": None if t2 is None else t2 - t1,
                      "import_s": t3 - (t1 if t2 is None else t2), "call_s": t4 - t3,
                      "before_t0_s": t0 - T_START}))


# ---------------------------------------------------------------------------------------
# parent
# ---------------------------------------------------------------------------------------
def spawn(cache_dir, *args, bytecode=False):
    """Run this script as a child with ``FTRANS_CACHE_DIR=cache_dir``; its JSON result,
    with the wall time of the whole process as ``wall_s``.  ``bytecode``: the child may
    read and write ``__pycache__`` even where ``PYTHONDONTWRITEBYTECODE`` is set here."""
    env = dict(os.environ, FTRANS_CACHE_DIR=cache_dir)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH")) if p)
    t = time.perf_counter()
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", *args],
                       capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    try:
        res = json.loads(r.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        return {"na": f"child {' '.join(args)} failed: {r.stderr.strip()[-400:]}"}
    res["wall_s"] = wall
    return res


def _ms(s):
    return "n/a" if s is None else f"{s * 1e3:9.1f} ms"


def _ratio(a, b):
    return "n/a" if a is None or b is None or b <= 0 else f"{a / b:6.2f}x"


def _get(res, key):
    return None if "na" in res else res.get(key)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help=f"{N_SHAPES_QUICK} shapes instead of {N_SHAPES} in (d)")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        kind, rest = args.child[0], args.child[1:]
        if kind == "compile":
            return child_compile(rest[0], rest[1] == "grad")
        if kind == "memory":
            return child_memory(int(rest[0]), int(rest[1]), *map(float, rest[2:]))
        return child_cold(rest[0])

    import numpy as np
    print(f"benchmarks/compile_time.py -- {time.strftime('%Y-%m-%d %H:%M')}, "
          f"{os.cpu_count()} cores, python {sys.version.split()[0]}, numpy {np.__version__}")
    tmp = tempfile.mkdtemp(prefix="ftrans_compile_time_")
    dirs = {name: os.path.join(tmp, name) for name in ("f", "grad", "jax")}
    n_shapes = N_SHAPES_QUICK if args.quick else N_SHAPES
    try:
        res = {}
        for lib in ("ftrans", "jax"):
            for mode in ("f", "grad"):
                d = dirs["jax"] if lib == "jax" else dirs[mode]
                res[lib, mode] = spawn(d, "compile", lib, mode)
                print(f"  ({'a' if mode == 'f' else 'b'}) {lib} {mode}: {res[lib, mode]}",
                      flush=True)
        cold = {}
        for lib in ("ftrans", "jax"):
            spawn(dirs["f"], "cold", lib, bytecode=True)   # writes the .pyc files first
            cold[lib] = spawn(dirs["f"], "cold", lib, bytecode=True)
        print(f"  (e) cold start: {cold}", flush=True)
        budget = SHAPE_BUDGET_S_QUICK if args.quick else SHAPE_BUDGET_S
        mem = {b: spawn(dirs["f"], "memory", str(b), str(n_shapes), str(budget))
               for b in (0, BOUND)}
        print(f"  (d) memory: {mem}", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report(res, cold, mem, n_shapes)


def report(res, cold, mem, n_shapes):
    ft_f, ft_g = res["ftrans", "f"], res["ftrans", "grad"]
    print(f"\nprogram: {BLOCKS} blocks; staged equations: f {_get(ft_f, 'eqns')}, "
          f"grad(f, argnums=1) {_get(ft_g, 'eqns')}; x (8, 16), w (16, 16) float64")
    for r in (*res.values(), *cold.values(), *mem.values()):
        if "na" in r:
            print(f"  !! {r['na']}")
    print(f"\n  {'measurement':<44} {'ftrans':>12} {'jax.jit':>12} {'ratio':>8}  target")
    rows = []
    for mode, label in (("f", "(a) compile jit(f)"), ("grad", "(b) compile jit(grad(f))")):
        a, b = _get(res["ftrans", mode], "compile_s"), _get(res["jax", mode], "compile_s")
        rows.append((label, _ms(a), _ms(b), _ratio(a, b), f"<= {TARGETS['compile']:.0f}x"))
    for mode, label in (("f", "(c) new shape (k, 16), jit(f)"),
                        ("grad", "(c) new shape (k, 16), jit(grad(f))")):
        a, b = _get(res["ftrans", mode], "new_shape_s"), _get(res["jax", mode], "new_shape_s")
        rows.append((label, _ms(a), _ms(b), _ratio(a, b),
                     f"<= {TARGETS['new_shape_s'] * 1e3:.0f} ms"))
        a, b = (_get(res["ftrans", mode], "new_shape_max_s"),
                _get(res["jax", mode], "new_shape_max_s"))
        rows.append(("    the worst of k = 9 ... 13", _ms(a), _ms(b), _ratio(a, b), ""))
    for mode, label in (("f", "    warm call jit(f)"), ("grad", "    warm call jit(grad(f))")):
        a, b = _get(res["ftrans", mode], "warm_s"), _get(res["jax", mode], "warm_s")
        rows.append((label, _ms(a), _ms(b), _ratio(a, b), ""))
    a, b = _get(cold["ftrans"], "total_s"), _get(cold["jax"], "total_s")
    rows.append(("(e) cold first call (imports + call)", _ms(a), _ms(b), _ratio(a, b),
                 f"<= {TARGETS['cold_s']:.2f} s (ftrans)"))
    for key, label in (("numpy_s", "    of which import numpy"),
                       ("numba_s", "    of which import numba"),
                       ("import_s", "    of which import ftrans / jax"),
                       ("call_s", "    of which the first call")):
        rows.append((label, _ms(_get(cold["ftrans"], key)), _ms(_get(cold["jax"], key)),
                     "", ""))
    a, b = _get(cold["ftrans"], "wall_s"), _get(cold["jax"], "wall_s")
    rows.append(("    whole process (wall, from the parent)", _ms(a), _ms(b), _ratio(a, b), ""))
    for row in rows:
        print(f"  {row[0]:<44} {row[1]:>12} {row[2]:>12} {row[3]:>8}  {row[4]}")

    print(f"\n  (d) resident memory, ftrans.jit(f) on {n_shapes} shapes x (k, 16), k = 1, 2, "
          "... (MB; start = after the first call with x (8, 16)); a process stops after "
          f"{SHAPE_BUDGET_S:.0f} s of new shapes ({SHAPE_BUDGET_S_QUICK:.0f} s with --quick): "
          "'shapes' says how many it did, 'MB/shape' is (after - start) / shapes")
    print(f"  {'cache':<22} {'start':>8} {'after':>8} {'+over start':>12} "
          f"{'cleared+gc':>11} {'+over start':>12} {'time/shape':>10} {'shapes':>7} {'MB/shape':>9} "
          f"{'cached':>7}  target")
    for b, label in ((0, "default"), (BOUND, f"bounded at {BOUND}")):
        r = mem[b]
        if "na" in r:
            print(f"  {label:<22} n/a ({r['na']})")
            continue
        target = f"<= {TARGETS['memory_mb']:.0f} MB over start" if b else ""
        print(f"  {label:<22} {r['start_mb']:8.1f} {r['after_mb']:8.1f} "
              f"{r['after_mb'] - r['start_mb']:+12.1f} {r['cleared_mb']:11.1f} "
              f"{r['cleared_mb'] - r['start_mb']:+12.1f} {_ms(r['per_shape_s']):>10} "
              f"{r['shapes']:>7} {(r['after_mb'] - r['start_mb']) / r['shapes']:9.2f} "
              f"{r['cached'] if r['cached'] is not None else '?':>7}  {target}")
    print(f"\n  times from one fresh process each (compile = first call - median of 5 warm "
          f"calls); this machine has {os.cpu_count()} cores: repeat the run and compare "
          "medians")


if __name__ == "__main__":
    main()
