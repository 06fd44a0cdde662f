"""IR -> executable: numba on the CPU, CuPy kernels on the GPU.

``compile_ir(ir, backend)`` returns ``run(*args) -> list``: the program's outputs computed
from concrete inputs (NumPy arrays, or Python scalars for weakly typed inputs; one per
``ir.in_vars`` entry).  The result is cached on the program (``ir.cache``).

How a program is compiled
-------------------------
1. Passes (:mod:`._passes`): nested calls are inlined (``jit``, ``custom_jvp_call``,
   ``custom_vjp_call``, ``checkpoint``: lowering kind ``"inline"``) and dead equations
   dropped (effectful ones stay).
2. :func:`._plan.plan` splits the program into *segments* of equations the backend can
   lower and *graph breaks*.  What lowers is the backend's lowering table
   (:class:`._lowering.LoweringTable`: the ``"kind"`` of a primitive's ``lowering``
   entry -> a rule ``(ok, emit)``); an equation whose kind the backend does not list, or
   whose ``ok`` refuses its dtypes or params (complex operands except for the operations
   whose entry allows them; float16 for the few operations whose float32 form would not
   give NumPy's float16 bits), graph-breaks: it calls the primitive's
   ``impl`` between compiled segments (a primitive carrying an IR compiles that
   sub-program through its own impl): slower, never an error.  ``graph_breaks(ir)``
   lists them.  Equations are reordered (they are pure) so that a program has as few
   segments as its dependencies allow.
3. CPU (:mod:`._numba`): each segment becomes one ``@njit`` function in a generated
   module: elementwise operations of one output shape fused into one loop nest (values in
   registers, one pass over memory; ``prange`` from :data:`._numba.PARALLEL_MIN_SIZE`
   elements on: numba hands each thread one contiguous block of the outer axis, so
   threads share no cache line but at the blocks' ends), reductions accumulated in the
   loop of their producers, broadcasting / ``broadcast_to`` / ``transpose`` / size-1
   reshapes as index arithmetic, ``dot_general`` through BLAS (``np.dot``); control flow
   (:mod:`._numba_control`: ``scan``, ``while``, ``cond``) as loops and branches around
   calls of their nested programs (*regions*), each compiled into a function of the same
   module.  Every loop nest and every other block of statements becomes a function of
   its own, one per distinct text (locals renamed canonically), so a program repeating a
   layer compiles each distinct loop once; the segment's function is only calls.
   GPU (:mod:`._cupy`): fused elementwise groups become ``cupy.ElementwiseKernel`` kernels,
   reductions ``cupy.ReductionKernel`` kernels, the other equations run their impl on CuPy
   arrays (``dot_general``: cuBLAS).  ``FTRANS_COMPILER=reference`` in the environment
   makes the CPU backend the reference interpreter (each equation's impl; no numba),
   e.g. for test suites of the transforms that stage hundreds of small programs.
4. Shape-generic code.  The generated text depends on ranks, dtypes and the program's
   structure, not on sizes: every size other than 0 and 1 (which decide broadcasting) is
   a parameter of the functions, and so is every float literal but a few structural ones
   (0, 1, -1, 2, 0.5: a mean's ``1/n`` changes with the shape).  A program staged for a
   new shape of a known rank and dtype therefore generates the same text and reuses the
   compiled module: tracing again is all it costs.
5. Caching.  In memory: ``ir.cache[("compiled", backend)]`` and one module per distinct
   source text.  On disk: the module is written to ``$FTRANS_CACHE_DIR`` (default
   ``~/.cache/ftrans``) under a name that is the hash of its text, and its functions are
   compiled with numba's ``cache=True``, so another process running the same program
   imports the module and loads the machine code instead of compiling it.  Nothing read
   from the disk is trusted: a module file whose text is not the generated text (empty,
   truncated, edited) is rewritten, and the module always executes the generated text
   itself; numba cache files that fail to load are deleted and the segment compiled
   again; each is reported by a :class:`CacheIntegrityWarning` naming the file.  Files
   are written atomically (a temporary file, then ``os.replace``).  An unwritable cache
   directory is replaced by one temporary directory per process, removed at exit.

The ``lowering`` entry of a primitive (``Primitive.lowering``, set in the primitive's own
file) is a dict with a ``"kind"``:

``{"kind": "elementwise", "numba": "np.sin({0})", "cuda": "sin({0})", "complex": False,
"cast": "out"}``
    the scalar expression of one output element; ``{0}``, ``{1}`` ... are the operands and
    ``{name}`` the equation's params.  ``cast`` says what the operands are converted to
    first: ``"out"`` (the output dtype), ``"promote"`` (their NumPy/NEP 50 common dtype:
    comparisons), ``"bool"``, ``"none"``, or a tuple with one of these per operand.
    ``complex`` allows complex operands; ``"numba_complex"`` (optional) is the numba
    expression for complex operands where ``"numba"`` would not give NumPy's complex
    results (``_cexp({0})`` ...: ``_numba_cplx_support.py``); ``"float16": False`` makes
    float16 operands graph-break (the expression in float32, rounded to float16, would
    not give NumPy's float16 bits on every input).  ``"cuda"`` is the CUDA C expression
    (None: the GPU path calls the impl).  A primitive computing several functions by a
    parameter gives ``"numba"`` as a dict from the parameter's values to expressions and
    ``"numba_param"`` its name (``integer_elementwise``'s ``fn``; a value missing from the
    dict graph-breaks).
``{"kind": "reduce", "monoid": "sum" | "prod" | "max" | "min"}``
    a reduction over ``params["axes"]``.
``{"kind": "dot_general"}``, ``{"kind": "reshape"}`` (also squeeze / expand_dims),
``{"kind": "transpose"}``, ``{"kind": "broadcast_to"}``, ``{"kind": "concatenate"}``
    structural operations with the primitive's params.
``{"kind": "scan"}``, ``{"kind": "while"}``, ``{"kind": "cond"}``
    control flow: the nested programs in the params become regions.
``{"kind": "inline", "param": name}``
    a call of the program (an ``IR``) or function in ``params[name]``, spliced into the
    caller by the inline pass.
Other kinds are listed by the backends' tables (``_numba.TABLE``, ``_cupy.TABLE``).

Exactness
---------
``fastmath`` is off and every operation is computed in the dtype NumPy 2 (NEP 50) gives
it: literals are converted to their operand's dtype (float32 stays float32), small
integer arithmetic wraps as in NumPy, comparisons give bool.  Integer results are
exact, as NumPy's: integer ``integer_pow`` multiplies (by squaring, never through
float64); what the generated code cannot compute as NumPy does graph-breaks to the impl,
which gives NumPy's result or error -- integer ``pow`` (a negative array exponent
raises), ``integer_pow`` with a negative exponent, integer ``floor_divide`` (``int8 -128
// -1``), and an equation with a Python int literal outside the range of the integer
dtype it meets (``uint8_array < 256`` is all True, ``int32_array + 2**40`` raises
``OverflowError``); a Python int *argument* outside that range (or beyond int64) makes
that call run the reference executor.  Compiled results equal eager ftrans to float64
rounding; they can differ in the last bits where

* a reduction sums in another order (the loop accumulates sequentially, NumPy sums
  pairwise; float32 sums accumulate in float64, then round once);
* a transcendental function comes from another implementation: the loops call libm
  (``np.exp`` etc. in numba) where NumPy may use its own SIMD routines (AVX-512 builds),
  and float64 ``sin``/``cos`` use the same faithfully rounded polynomial as eager
  ftrans's kernels for arrays of 2048 elements or more (:mod:`ftrans.kernels.cpu`), which
  is within 1 ulp of NumPy's ``np.sin`` that eager uses on smaller arrays;
* float ``integer_pow`` is ``np.power(x, float(n))`` (libm ``pow``), as in eager, but
  NumPy's SIMD ``power`` may round differently in the last bit;
* a matrix product goes through BLAS with operands in another memory layout.

Complex elementwise operations (``exp``, ``log``, ``sqrt``, the trigonometric and
hyperbolic functions, ``abs``, ``sign``, products, quotients, powers) give NumPy's bits
(the C library's functions that NumPy calls, and NumPy's own formulas).  float16 values
are held in float32 (numba has none on the CPU: a segment takes float32 copies of its
float16 inputs and returns float16 copies) and each result is rounded to float16 as
NumPy's float16 loops do, so results equal NumPy's bit for bit.

>>> import numpy as np, ftrans.numpy as fnp
>>> from ftrans.core.ir import stage
>>> from ftrans.compiler import compile_ir
>>> ir, _ = stage(lambda x: fnp.sum(fnp.sin(x) * 2.0), [np.ones(3)])
>>> run = compile_ir(ir)
>>> float(run(np.zeros(3))[0])
0.0
"""
from __future__ import annotations

import os as _os
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.ir import IR, Var, Literal, eval_ir
from ..core.trace import set_current_trace, EVAL
from ._errors import CacheIntegrityWarning
from ._outputs import const_aliases, unshare
from ._plan import plan, Segment
from ._passes import inline_jit, prepare

__all__ = ["compile_ir", "backend_of", "cache_dir", "graph_breaks", "inline_jit",
           "CacheIntegrityWarning"]


def cache_dir() -> str:
    """The directory of generated modules: ``$FTRANS_CACHE_DIR`` or ``~/.cache/ftrans``.

    Returns
    -------
    str
        The path (it may not exist yet).
    """
    from ._numba import cache_dir as d  # deferred: import time
    return d()


def compile_ir(ir: IR, backend: str | None = "cpu") -> Callable[..., list[Any]]:
    """A callable computing ``ir`` on concrete arrays; see the module docstring.

    Parameters
    ----------
    ir : IR
        The program (as :func:`ftrans.make_ir` returns it).
    backend : {"cpu", "gpu", None}, default "cpu"
        "cpu": NumPy inputs, numba code; "gpu": CuPy inputs, CuPy kernels; None: any
        other array type (Dask, array-API arrays): the reference executor, each
        primitive's impl dispatching on the arrays' namespace.  :func:`backend_of`
        picks it from the arguments.

    Returns
    -------
    callable
        ``run(*args) -> list`` of outputs, one per ``ir.out_vars`` entry.

    Raises
    ------
    ValueError
        For another backend name.
    TypeError
        (from ``run``) if the number of arguments does not match the program's inputs.
    """
    key = ("compiled", backend)
    run = ir.cache.get(key)
    if run is None:
        if backend == "cpu":
            run = _reference(ir) if _os.environ.get("FTRANS_COMPILER") == "reference" \
                else _compile_cpu(ir)
        elif backend == "gpu":
            from ._cupy import compile_gpu  # deferred: CuPy arrays only
            run = compile_gpu(ir)
        elif backend is None:
            run = _reference(ir)
        else:
            raise ValueError(f"compile_ir: backend must be 'cpu', 'gpu' or None, got "
                             f"{backend!r}")
        ir.cache[key] = run
    return run


_CPU_LEAF_TYPES = frozenset({np.ndarray, float, int, complex, bool, np.float64, np.float32,
                             np.float16, np.int64, np.int32, np.int16, np.int8, np.uint8,
                             np.bool_, np.complex128, np.complex64})


def backend_of(args: Sequence[Any]) -> str | None:
    """The ``compile_ir`` backend for a program's arguments.

    Parameters
    ----------
    args : sequence
        The program's arguments (arrays and scalars).

    Returns
    -------
    str or None
        "cpu" for NumPy arrays and scalars, "gpu" when a CuPy array is among them, None
        for any other array type (the program then runs with each primitive's impl,
        which keeps Dask graphs lazy and array-API arrays in their namespace).
    """
    backend = "cpu"
    for a in args:
        t = type(a)
        if t in _CPU_LEAF_TYPES:
            continue
        if (getattr(t, "__module__", None) or "").startswith("cupy"):
            backend = "gpu"
        elif isinstance(a, (np.ndarray, np.generic)):
            continue
        else:
            return None
    return backend


def _reference(ir):
    aliases = const_aliases(ir)
    consts = dict(zip(ir.const_vars, ir.consts))

    def run(*args):
        with set_current_trace(EVAL):
            outs = eval_ir(ir, *args)
        return unshare(outs, aliases, consts) if aliases else outs
    return run


def graph_breaks(ir: IR, backend: str = "cpu") -> list[str]:
    """Names of the primitives of ``ir`` that run their impl between compiled segments.

    Parameters
    ----------
    ir : IR
        The program (nested ``jit`` programs are inlined first).
    backend : {"cpu", "gpu"}, default "cpu"
        Whose lowering rules decide.

    Returns
    -------
    list of str
        Sorted, each name once.
    """
    if backend == "cpu":
        from ._numba import lowerable  # deferred: import time
    else:
        from ._cupy import lowerable  # deferred: CuPy arrays only
    return sorted({s.prim.name for s in plan(prepare(ir), lowerable)
                   if not isinstance(s, Segment)})


def _prep(x, aval):
    """An argument as the generated code takes it: C-contiguous arrays, 0-d -> scalar."""
    if type(x) is np.ndarray:
        if x.ndim == 0:
            return x[()]
        if not x.flags.c_contiguous:
            return np.ascontiguousarray(x)
        return x
    if isinstance(x, np.generic):
        return x
    if isinstance(x, (bool, int, float, complex)):
        return np.dtype(aval.dtype).type(x)
    return x


def _eqn_runner(eqn):
    prim = eqn.prim
    params = eqn.params
    multiple = prim.multiple_results

    weak = [o.aval.weak_type for o in eqn.outputs]

    def run(vals):
        out = prim.impl(*vals, **params)
        out = list(out) if multiple else [out]
        if any(weak):  # weakly typed results are Python scalars (as in eval_ir)
            out = [o.item() if w and isinstance(o, (np.ndarray, np.generic)) else o
                   for o, w in zip(out, weak)]
        return out
    return run


def _seg_interpreter(seg):
    """Fallback for a segment numba failed to compile: its equations' impls."""
    def fn(*vals):
        env = dict(zip(seg.inputs, vals))
        with set_current_trace(EVAL):
            for e in seg.eqns:
                out = e.prim.impl(*[a.val if type(a) is Literal else env[a] for a in e.inputs],
                                  **e.params)
                env.update(zip(e.outputs, out if e.prim.multiple_results else [out]))
        return tuple(env[v] for v in seg.outputs)
    return fn


def _compile_cpu(ir):
    try:
        import numba  # noqa: F401
    except ImportError:  # pragma: no cover - numba is a dependency
        return _reference(ir)
    from . import _numba  # deferred: import time
    prog = prepare(ir)
    steps = plan(prog, _numba.lowerable)
    funcs = []
    nested_consts = {}
    for k, st in enumerate(steps):
        if isinstance(st, Segment):
            src, _, extra, fixed = _numba.generate(st, f"seg{k}")
            funcs.append(src)
            st.fixed = fixed
            if extra:  # nested programs' constants: extra parameters of the segment
                st.inputs = list(st.inputs) + [v for v, _ in extra]
                nested_consts.update(extra)
    mod = _numba.load(_numba.module_source(funcs)) if funcs else None

    compiled = []
    for k, st in enumerate(steps):
        if isinstance(st, Segment):
            compiled.append(_SegmentCall(st, getattr(mod, f"seg{k}"),
                                         _numba.purge_numba_cache))
        else:
            compiled.append((st, _eqn_runner(st)))

    in_vars, out_vars = prog.in_vars, prog.out_vars
    in_avals = [v.aval for v in in_vars]
    int_checks = _weak_int_ranges(prog, steps, _numba.int_operand_range)
    exact = []  # the reference executor, for a call whose Python int the code would wrap
    consts = {v: _prep(c, v.aval) for v, c in
              [*zip(prog.const_vars, prog.consts), *nested_consts.items()]}
    n_in = len(in_vars)
    outs_spec = [(v, type(v) is Literal, v.aval) for v in out_vars]
    aliases = const_aliases(prog, _numba.writes_new_memory)

    def run(*args):
        if len(args) != n_in:
            raise TypeError(f"the program takes {n_in} inputs, got {len(args)}")
        env = dict(consts)
        for v, x, a in zip(in_vars, args, in_avals):
            # a weakly typed input stays a Python scalar (an impl that graph-breaks must see
            # it weak, as eval_ir does); numba takes it as a 64-bit value
            if a.weak_type:
                env[v] = x.item() if isinstance(x, (np.ndarray, np.generic)) else x
            else:
                env[v] = _prep(x, a)
        for v, lo, hi in int_checks:
            if not lo <= env[v] <= hi:
                if not exact:
                    exact.append(_reference(ir))
                return exact[0](*args)
        for st in compiled:
            if type(st) is _SegmentCall:
                st(env)
            else:
                eqn, r = st
                vals = [a.val if type(a) is Literal else env[a] for a in eqn.inputs]
                for v, o in zip(eqn.outputs, r(vals)):
                    env[v] = o
        res = []
        for v, lit, aval in outs_spec:
            if lit:
                res.append(v.val)
                continue
            x = env[v]
            if not aval.shape:
                if aval.weak_type:  # a weakly typed result is a Python scalar (as in eval_ir)
                    x = x.item() if isinstance(x, (np.ndarray, np.generic)) else x
                elif not isinstance(x, (np.ndarray, np.generic)):
                    x = aval.dtype.type(x)
            res.append(x)
        return unshare(res, aliases, consts) if aliases else res
    # introspection (tests, benchmarks): the numba dispatchers and the graph breaks
    run.dispatchers = [st.fn for st in compiled if type(st) is _SegmentCall]
    run.graph_breaks = [st[0].prim.name for st in compiled if type(st) is not _SegmentCall]
    return run


def _weak_int_ranges(prog, steps, operand_range):
    """``[(var, lo, hi)]`` for the weakly typed integer inputs (Python int arguments)
    that compiled segments read: the values the generated code computes exactly with
    (``operand_range(eqn, k)``, intersected over the equations reading it); outside it a
    call runs the reference executor, which gives NumPy's result or error."""
    weak = {v for v in prog.in_vars if v.aval.weak_type and v.aval.dtype.kind in "iu"}
    ranges = {}
    for st in steps:
        if not weak or not isinstance(st, Segment):
            continue
        for e in st.eqns:
            for k, a in enumerate(e.inputs):
                if type(a) is Var and a in weak:
                    lo, hi = ranges.get(a, (-2 ** 63, 2 ** 63 - 1))
                    elo, ehi = operand_range(e, k)
                    ranges[a] = (max(lo, elo), min(hi, ehi))
    return [(v, lo, hi) for v, (lo, hi) in ranges.items()]


def _float16_boundary(fn, seg):
    """``fn`` taking and returning float16 values as float32 arrays (numba has no float16
    on the CPU; the generated code holds float16 values in float32, rounded as NumPy
    rounds): float32 copies of the float16 inputs in, float16 copies of the outputs out."""
    ins = [i for i, v in enumerate(seg.inputs) if v.aval.dtype == np.float16]
    outs = [i for i, v in enumerate(seg.outputs) if v.aval.dtype == np.float16]

    def call(*vals):
        vals = list(vals)
        for i in ins:
            x = vals[i]
            vals[i] = x.astype(np.float32) if type(x) is np.ndarray else np.float32(x)
        res = list(fn(*vals))
        for i in outs:
            x = res[i]
            res[i] = x.astype(np.float16) if type(x) is np.ndarray else np.float16(x)
        return tuple(res)
    call.__wrapped__ = fn  # (introspection: the numba dispatcher)
    return call


# exceptions of a compiled segment on which the call reruns the segment's impls
_RERUN = (np.linalg.LinAlgError, IndexError)


class _SegmentCall:
    """One compiled segment in the driver: reads its inputs from, writes its outputs to
    the environment; scalars it returns become NumPy scalars of their dtype."""

    __slots__ = ("seg", "fn", "ins", "outs", "scalar_types", "ok", "purge", "fixed")

    def __init__(self, seg, fn, purge):
        self.seg = seg
        self.fn = fn
        self.purge = purge  # module path -> numba cache files removed
        self.ins = seg.inputs
        self.fixed = list(seg.fixed)
        self.outs = seg.outputs
        self.scalar_types = [None if (v.aval.shape or v.aval.weak_type) else
                             np.dtype(v.aval.dtype).type for v in seg.outputs]
        self.ok = False  # ran once: later exceptions are the program's, not numba's
        if any(v.aval.dtype == np.float16 for v in (*seg.inputs, *seg.outputs)):
            self.fn = _float16_boundary(fn, seg)

    def __call__(self, env):
        vals = [env[v] for v in self.ins]
        for i, (v, x) in enumerate(zip(self.ins, vals)):
            if type(x) is np.ndarray and (x.ndim == 0 or not x.flags.c_contiguous):
                vals[i] = _prep(x, v.aval)
        vals += self.fixed
        try:
            outs = self.fn(*vals) if self.ok else self.first_call(vals)
        except _RERUN:
            # numba's np.linalg refuses what LAPACK through NumPy takes (infs, nans); the
            # generated bounds checks of index arrays raise IndexError: this call runs the
            # segment's impls, which give eager's result or error (NumPy's message)
            outs = _seg_interpreter(self.seg)(*vals)
        for v, x, t in zip(self.outs, outs, self.scalar_types):
            env[v] = x if t is None else t(x)

    def first_call(self, vals):
        """The first call compiles (or loads from the disk cache); should numba fail on a
        construct the generator did not foresee, the segment runs its impls instead."""
        try:
            try:
                outs = self.fn(*vals)
            except _RERUN:
                self.ok = True  # compiled; the values are to blame (LAPACK, an index)
                raise
            except Exception:
                if not self.purge_cache(vals):
                    raise
                outs = self.fn(*vals)  # compiled afresh: the cache files were damaged
        except _RERUN:
            raise
        except Exception as e:
            warnings.warn(f"ftrans.compiler: numba could not compile a segment "
                          f"({type(e).__name__}: {str(e).splitlines()[0]}); running its "
                          f"equations eagerly", RuntimeWarning, stacklevel=3)
            self.fn = _seg_interpreter(self.seg)
            outs = self.fn(*vals)
        self.ok = True
        return outs

    def purge_cache(self, vals):
        """After a failed first call: if the segment runs when compiled without numba's
        on-disk cache, the cache files were to blame (damaged): remove those of the
        segment's module, warn naming them, and return True.  A genuine error (the
        program raises, numba cannot compile it) raises again without the cache too:
        then nothing is removed and False is returned."""
        fn = self.fn
        code = getattr(getattr(fn, "py_func", None), "__code__", None)
        cache = getattr(fn, "_cache", None)
        if code is None or cache is None:
            return False
        from numba.core.caching import NullCache  # deferred: numba loads with the segments
        fn._cache = NullCache()
        try:
            fn(*vals)
        except Exception:
            return False
        finally:
            fn._cache = cache
        removed = self.purge(code.co_filename)
        fn.recompile()  # afresh, saving to the (now clean) cache for later processes
        if removed:
            warnings.warn(f"ftrans.compiler: numba's cache files {', '.join(removed)} failed to "
                          "load (damaged); discarded them and compiled the segment again",
                          CacheIntegrityWarning, stacklevel=4)
        return True
