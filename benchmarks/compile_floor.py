"""What compiling a loop costs below numba: LLVM itself, fed LLVM IR written directly.

    PYTHONPATH=. python benchmarks/compile_floor.py

``benchmarks/compile_time.py`` shows ``ftrans.jit`` compiling 10-13x slower than
``jax.jit``, and ``docs/guide/jit.md`` ("Compile time") puts the cost in numba: about
75-130 ms per generated loop function and 5 ms per call of one, typing and lowering
included.  This script measures the floor a code generator of our own would stand on:
the loop function that ``compile_time.py``'s program repeats most (its ``seg0_g1``: over
a 2-D float64 array, ``t = tanh(x)``, ``sin(t)``, ``cos(t)``, ``e = exp(-t*t)``,
``p = sin(t) * e``, the five stored, and the maximum of ``p`` along each row), in two
forms, each as ``K`` distinct functions in one go (and, for LLVM, once more with a
function making ``CALLS`` calls of them, as a segment's function does):

* **numba**: ``@njit`` functions as ``ftrans.compiler`` generates them (no CPython or C
  wrapper, ``cache=False``), compiled for (int64, int64, float64[:, ::1]); numba's
  one-time start-up is paid by a warm-up function first;
* **LLVM IR**: the same loop written as LLVM IR text (libm's ``tanh``, ``sin``, ``cos``,
  ``exp``; ``noalias`` pointers and sizes as arguments), parsed, optimized at ``-O2``
  (llvmlite's new pass manager) and turned into machine code by MCJIT.  The loop
  functions are ``noinline``: with the driver below, LLVM otherwise inlines every call
  and optimizes one huge function (2.6 s instead of 0.2 s here), which is what numba's
  segment functions go through.

Both are checked against NumPy on an (8, 16) input (the LLVM one called through ctypes).
The LLVM figure is a floor, not a design: it has no allocation, reference counting,
error handling or caching, which a generator would add.  Times are medians of 3 rounds
(new function names each round).
"""
from __future__ import annotations

import ctypes
import statistics
import sys
import time

import numpy as np

_ENGINES = []  # the LLVM engines compiled, kept alive
K = 20  # loop functions compiled per round (compile_time.py's jit(grad(f)) has 19)
CALLS = 228  # calls in the driver function (the segment of jit(grad(f)) makes 227)

_NUMBA = '''
@njit(cache=False, fastmath=False, error_model='numpy', nogil=True,
      no_cpython_wrapper=True, no_cfunc_wrapper=True)
def {name}(n1, n3, x):
    a0 = np.full((n1, ), -np.inf, np.float64)
    o0 = np.empty((n1, n3), np.float64)
    o1 = np.empty((n1, n3), np.float64)
    o2 = np.empty((n1, n3), np.float64)
    o3 = np.empty((n1, n3), np.float64)
    o4 = np.empty((n1, n3), np.float64)
    for i0 in range(n1):
        m = a0[i0]
        for i1 in range(n3):
            t = np.tanh(x[i0, i1])
            s = np.sin(t)
            c = np.cos(t)
            e = np.exp(-(t * t))
            p = s * e
            m = p if (p > m or p != p) else m
            o0[i0, i1] = t
            o1[i0, i1] = s
            o2[i0, i1] = c
            o3[i0, i1] = e
            o4[i0, i1] = p
        a0[i0] = m
    return o0, o1, o2, o3, o4, a0
'''

_DECLARE = """declare double @tanh(double)
declare double @sin(double)
declare double @cos(double)
declare double @exp(double)
"""

_LLVM = """
define void @{name}(i64 %rows, i64 %cols, double* noalias %x, double* noalias %o0,
                    double* noalias %o1, double* noalias %o2, double* noalias %o3,
                    double* noalias %o4, double* noalias %mx) noinline {{
entry:
  br label %outer
outer:
  %r = phi i64 [0, %entry], [%r1, %outer_end]
  %rc = mul i64 %r, %cols
  br label %inner
inner:
  %c = phi i64 [0, %outer], [%c1, %inner]
  %acc = phi double [0xFFF0000000000000, %outer], [%acc1, %inner]
  %i = add i64 %rc, %c
  %px = getelementptr double, double* %x, i64 %i
  %v = load double, double* %px
  %t = call double @tanh(double %v)
  %s = call double @sin(double %t)
  %co = call double @cos(double %t)
  %sq = fmul double %t, %t
  %ng = fneg double %sq
  %e = call double @exp(double %ng)
  %p = fmul double %s, %e
  %gt = fcmp ugt double %p, %acc
  %acc1 = select i1 %gt, double %p, double %acc
{stores}  %c1 = add i64 %c, 1
  %cd = icmp eq i64 %c1, %cols
  br i1 %cd, label %outer_end, label %inner
outer_end:
  %pm = getelementptr double, double* %mx, i64 %r
  store double %acc1, double* %pm
  %r1 = add i64 %r, 1
  %rd = icmp eq i64 %r1, %rows
  br i1 %rd, label %done, label %outer
done:
  ret void
}}
"""


#: the five stores of the loop body (``o_j[i] = value``)
_STORES = "".join(f"  %q{j} = getelementptr double, double* %o{j}, i64 %i\n"
                  f"  store double {v}, double* %q{j}\n"
                  for j, v in enumerate(("%t", "%s", "%co", "%e", "%p")))


def _reference(x):
    t = np.tanh(x)
    s, c, e = np.sin(t), np.cos(t), np.exp(-(t * t))
    p = s * e
    return [t, s, c, e, p, p.max(axis=1)]


def numba_round(tag, x):
    """Seconds to compile ``K`` numba loop functions; checks the last against NumPy."""
    from numba import njit
    env = {"np": np, "njit": njit}
    names = [f"g_{tag}_{k}" for k in range(K)]
    exec("\n".join(_NUMBA.format(name=n) for n in names), env)
    # the functions have no CPython wrapper: the check calls one from numba
    exec(f"@njit(cache=False)\ndef call(n1, n3, x):\n    return {names[-1]}(n1, n3, x)\n", env)
    t = time.perf_counter()
    for n in names:
        env[n].compile("(int64, int64, float64[:, ::1])")
    dt = time.perf_counter() - t
    outs = env["call"](x.shape[0], x.shape[1], x)
    ok = all(np.allclose(a, b) for a, b in zip(outs, _reference(x)))
    return dt, ok


def _driver(name, names, calls):
    """LLVM IR of a function making ``calls`` calls of the loop functions ``names`` in
    turn on its pointer arguments (a segment's function is such a list of calls)."""
    args = "i64 %r, i64 %c, " + ", ".join(f"double* %p{k}" for k in range(7))
    body = "".join(f"  call void @{names[j % len(names)]}({args})\n" for j in range(calls))
    return f"define void @{name}({args}) {{\nentry:\n{body}  ret void\n}}\n"


def llvm_round(tag, x, calls=0):
    """``(parse, optimize, machine code)`` seconds for ``K`` LLVM IR loop functions in one
    module (and a driver function making ``calls`` calls of them); checks one against
    NumPy."""
    import llvmlite.binding as llvm
    names = [f"g_{tag}_{k}" for k in range(K)]
    src = _DECLARE + "".join(_LLVM.format(name=n, stores=_STORES) for n in names)
    if calls:
        src += _driver(f"drv_{tag}", names, calls)
    tm = llvm.Target.from_default_triple().create_target_machine(opt=2, codemodel="jitdefault")
    t0 = time.perf_counter()
    mod = llvm.parse_assembly(src)
    mod.verify()
    t1 = time.perf_counter()
    pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=2))
    pb.getModulePassManager().run(mod, pb)
    t2 = time.perf_counter()
    engine = llvm.create_mcjit_compiler(mod, tm)  # (takes the target machine)
    engine.finalize_object()
    t3 = time.perf_counter()
    fn = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, *[ctypes.c_void_p] * 7)(
        engine.get_function_address(names[-1]))
    outs = [np.empty_like(x) for _ in range(5)] + [np.empty(x.shape[0])]
    fn(x.shape[0], x.shape[1], x.ctypes.data, *[o.ctypes.data for o in outs])
    ok = all(np.allclose(a, b) for a, b in zip(outs, _reference(x)))
    _ENGINES.append(engine)  # the machine code lives as long as the engine
    return (t1 - t0, t2 - t1, t3 - t2), ok



def main():
    import llvmlite
    import numba
    from numba import njit
    import llvmlite.binding as llvm
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    x = np.random.default_rng(0).standard_normal((8, 16))
    t = time.perf_counter()
    njit(lambda v: v + 1.0)(1.0)  # numba's one-time start-up, not counted below
    print(f"benchmarks/compile_floor.py -- numba {numba.__version__}, llvmlite "
          f"{llvmlite.__version__}, numpy {np.__version__}, python "
          f"{sys.version.split()[0]}; numba start-up {time.perf_counter() - t:.2f} s")
    nb, ll, lld, oks = [], [], [], []
    for r in range(3):
        dt, ok = numba_round(f"n{r}", x)
        nb.append(dt)
        oks.append(ok)
        parts, ok = llvm_round(f"l{r}", x)
        ll.append(parts)
        oks.append(ok)
        parts, ok = llvm_round(f"d{r}", x, CALLS)
        lld.append(sum(parts))
        oks.append(ok)
    n_med = statistics.median(nb)
    p, o, m = (statistics.median(v[k] for v in ll) for k in range(3))
    total = p + o + m
    with_driver = statistics.median(lld)
    print(f"check against NumPy: {'OK' if all(oks) else 'FAILED'}")
    print(f"{K} loop functions (compile_time.py's seg0_g1), median of 3 rounds:")
    print(f"  numba (@njit, no wrappers)    {n_med * 1e3:8.1f} ms   {n_med / K * 1e3:6.1f} ms each")
    print(f"  LLVM IR written directly      {total * 1e3:8.1f} ms   {total / K * 1e3:6.1f} ms each"
          f"  (parse {p * 1e3:.1f}, -O2 {o * 1e3:.1f}, machine code {m * 1e3:.1f})")
    print(f"  numba / LLVM                  {n_med / total:8.1f}x")
    print(f"  LLVM IR, plus a function of {CALLS} calls of them (a segment's): "
          f"{with_driver * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
