"""``jit``, ``make_ir`` and ``disable_jit``: stage a function to an IR, compile it, cache it.

Design: ``jit`` is a primitive (JAX's ``pjit`` design)
--------------------------------------------------------
``jit(f)(*args)`` flattens its arguments, looks up the program staged for their pytree
structure, shapes, dtypes, weak types (Python scalars) and static argument values, and
stages ``f`` once on abstract values if there is none (:func:`ftrans.core.ir.stage`,
followed by dead-code elimination).  Then:

* with no transform active it calls the compiled program
  (``ftrans.compiler.compile_ir(ir, backend)``) directly -- the per-call fast path is a
  flatten, a tuple key, a dict lookup and the call;
* under a transform it binds :data:`jit_p`, a *primitive* whose parameter is the IR.

Because ``jit`` is a primitive, every transform reaches it through its rules, and every
rule *transforms the IR and binds* ``jit_p`` *again*:

``abstract_eval``
    the IR's output abstract values (nothing runs);
``jvp``
    the program ``(primals, nonzero tangents) -> (outputs, nonzero output tangents)``,
    staged from ``eval_ir(ir)`` under a JVP trace;
``vjp_fwd`` / ``vjp`` (reverse mode)
    the *joint* program ``(primals, output cotangents) -> (outputs, input cotangents)``
    is staged from ``eval_ir(ir)`` under a VJP trace, then split by
    :func:`~ftrans.core.ir.partition` (partial evaluation) into a forward program
    ``primals -> (outputs, residuals)``, bound by ``vjp_fwd``, and a backward program
    ``(residuals, cotangents) -> input cotangents``, bound by ``vjp`` (pruned by DCE to
    the inputs that need a cotangent);
``batch``
    the program staged from ``eval_ir(ir)`` under a batch trace, with the argument
    batch dimensions where they are.

So under ``grad``, ``jvp``, ``vmap``, ``hessian`` ... the *transformed* program runs
compiled too, forward and backward; nesting (``jit(grad(jit(f)))``) gives nested
``jit`` equations, each compiled.  Every transformed program is cached in the
transformed IR's ``ir.cache``, keyed by the transform and its static data (which
tangents are nonzero, which cotangents are needed, the batch dimensions and size),
so repeated ``grad(jit(f))`` calls stage nothing.

Why this design rather than, e.g., jitting the outer transform's result: a primitive
keeps the transforms independent of ``jit`` (they only see one more primitive with
rules), works in every nesting order, lets forward and backward passes be separate
compiled programs (as reverse mode needs: residuals cross between them), and is how JAX
does it (``pjit_p``), so the semantics users know carry over.

Caching and retracing
---------------------
Each jitted function keeps its own cache.  The key is (pytree structure of the dynamic
arguments, per leaf: shape and dtype -- a Python scalar counts as a *weakly typed* 0-d
value of its kind, ``bool``/``int``/``float``/``complex``, whatever its value -- the
static arguments' values (and types), and the array type for arrays other than NumPy
arrays).  Changing any of these stages the function again; changing values does not.
Arrays the function reads from globals or closures are baked into the program when it
is staged (constants), as in JAX: the program keeps a *copy* taken at staging time
(:class:`ftrans.core.ir.StagingTrace` snapshots every constant, whatever its memory
layout), so mutating such an array in place later does not change what the cached
program computes -- call ``f._clear_cache()`` (or pass the array as an argument) to
use the new values.  Every call returns fresh arrays: an output that is a constant of
the program (``fnp.zeros_like(x)``, a closed-over array, a view of one) is copied
before it is returned, so mutating a result never changes a later one.  An argument
returned unchanged (``jit(lambda x: x)``) is returned as is, as eager ftrans does (it is
the caller's buffer; jit keeps no reference to it).  A function that closes over a value traced by an
*enclosing* transform gets it as an extra input (closure conversion); such a program is
not cached, since the enclosing value is new on every call.

Python scalars
--------------
A Python scalar argument is staged as a weakly typed 0-d input (NEP 50): it adopts the
dtype of the array it meets, as in eager ftrans, so ``jit(f)(x32, 2.0)`` keeps float32
where ``f(x32, 2.0)`` does.  It is passed to the program unchanged.  Arithmetic between
two Python scalar *arguments* inside the function is array arithmetic (a 0-d float64 /
int64 result, as NumPy scalars give), where eager Python arithmetic would give a Python
scalar again; mark such arguments static if that matters.

Backends
--------
NumPy arrays (and Python/NumPy scalars) run ``compile_ir(ir, "cpu")``, CuPy arrays
``compile_ir(ir, "gpu")``; any other array type (Dask, array-API arrays) runs the
program with each primitive's ``impl``, which dispatches on the array's namespace (no
silent conversion to NumPy).

``donate_argnums`` is accepted and validated for JAX compatibility; NumPy cannot donate
a buffer, and ftrans never reuses an input's memory, so it has no effect on the CPU (nor
on the GPU at present).

``disable_jit()`` (thread-local context manager) makes jitted functions call the Python
function itself, eagerly, for debugging with ``print`` and ``pdb``.
"""
from __future__ import annotations

import functools
import inspect
import threading

import numpy as np

from ..core.dtypes import as_numpy_dtype
from ..core.abstract import weak_dtype
from ..core import Primitive, ShapedArray, zero, is_inexact, set_current_trace, Tracer
from ..core.trace import _ctx, EVAL, _escaped
from ..core import debug
from ..core.ir import IR, stage, eval_ir, dce, partition, ConcretizationError  # noqa: F401
from ..core.pytree import tree_flatten, tree_unflatten
from ..compiler import compile_ir, backend_of
from ..primitives import convert_element_type
from .jvp import JVPTrace, JVPTracer
from .vjp import VJPTrace, VJPTracer, _seed, backward_pass
from .vmap import BatchTrace, BatchTracer

__all__ = ["jit", "make_ir", "disable_jit", "jit_p", "jit_disabled"]


# ---------------------------------------------------------------------------------
# disable_jit
# ---------------------------------------------------------------------------------
class _JitState(threading.local):
    disabled = False


_state = _JitState()
_n_disabled = 0  # active disable_jit() blocks in all threads: the fast path's cheap check
_n_lock = threading.Lock()


def jit_disabled() -> bool:
    """True inside ``with ftrans.disable_jit():`` in this thread."""
    return _state.disabled


class disable_jit:
    """Context manager: inside it, jitted functions run eagerly (the Python function
    itself, op by op), in this thread only.

    Use it to debug a jitted function with ``print`` or ``pdb``: values are concrete,
    and Python control flow on them works.  ``disable_jit(False)`` re-enables jit
    inside an outer ``disable_jit()`` block.  Nesting restores the previous state on
    exit.

    >>> import ftrans, numpy as np
    >>> f = ftrans.jit(lambda x: float(x.sum()) if x.sum() > 0 else 0.0)
    >>> with ftrans.disable_jit():
    ...     f(np.ones(3))
    3.0
    """

    __slots__ = ("disable", "prev")

    def __init__(self, disable: bool = True):
        self.disable = bool(disable)

    def __enter__(self):
        global _n_disabled
        self.prev = _state.disabled
        _state.disabled = self.disable
        if self.disable:
            with _n_lock:
                _n_disabled += 1
        return self

    def __exit__(self, *exc):
        global _n_disabled
        _state.disabled = self.prev
        if self.disable:
            with _n_lock:
                _n_disabled -= 1
        return False


# ---------------------------------------------------------------------------------
# the jit primitive
# ---------------------------------------------------------------------------------
jit_p = Primitive("jit", multiple_results=True)

def _as_array(o):
    """Program outputs as arrays: NumPy scalars and Python scalars (literal outputs)
    become 0-d arrays."""
    if isinstance(o, (np.generic, bool, int, float, complex)):
        return np.asarray(o)
    return o


def _weak_inputs(ir):
    """Positions of the program's weakly typed inputs (cached on the IR)."""
    w = ir.cache.get("weak_inputs")
    if w is None:
        w = ir.cache["weak_inputs"] = tuple(i for i, v in enumerate(ir.in_vars)
                                            if v.aval.weak_type)
    return w


def _run(ir, args):
    weak = _weak_inputs(ir)
    if weak:
        # a weakly typed input runs as a Python scalar (it may arrive as a 0-d array:
        # a residual or an output of another program)
        args = list(args)
        for i in weak:
            if isinstance(args[i], (np.ndarray, np.generic)):
                args[i] = args[i].item()
    outs = compile_ir(ir, backend_of(args))(*args)
    return tuple(_as_array(o) for o in outs)


@jit_p.def_impl
def _jit_impl(*args, ir, name):
    return _run(ir, args)


@jit_p.def_abstract_eval
def _jit_abstract_eval(*avals, ir, name):
    if len(avals) != len(ir.in_vars):
        raise TypeError(f"{name}: the program takes {len(ir.in_vars)} inputs, got "
                        f"{len(avals)}")
    return tuple(ShapedArray(a.shape, a.dtype) for a in ir.out_avals)


def _stage_closed(fun, avals, name):
    """Stage ``fun`` on ``avals``: a closed program (no lifted inputs), DCE'd."""
    ir, lifted = stage(fun, avals, name)
    assert not lifted, "a program transformed by a jit rule closed over a tracer"
    return dce(ir)


# --- forward mode ------------------------------------------------------------------
def _jvp_program(ir, mask):
    """``(primals, tangents[mask]) -> (outputs, nonzero output tangents)`` and the
    per-output nonzero-tangent flags; cached in ``ir.cache``."""
    key = ("jvp", mask)
    hit = ir.cache.get(key)
    if hit is not None:
        return hit
    n = len(ir.in_vars)
    nonzero = []

    def f(*args):
        tangents = iter(args[n:])
        trace = JVPTrace(_ctx.trace, "jvp")
        ins = [JVPTracer(trace, p, next(tangents)) if m else p
               for p, m in zip(args[:n], mask)]
        try:
            with set_current_trace(trace):
                outs = eval_ir(ir, *ins)
        finally:
            trace.finish()
        primals, t_outs = [], []
        for o in outs:
            if isinstance(o, JVPTracer) and o._trace is trace:
                primals.append(o.primal)
                t_outs.append(o.tangent)
                nonzero.append(True)
            else:
                primals.append(o)
                nonzero.append(False)
        return primals + t_outs

    avals = ir.in_avals + [a for a, m in zip(ir.in_avals, mask) if m]
    prog = _stage_closed(f, avals, "jvp")
    hit = ir.cache[key] = (prog, tuple(nonzero))
    return hit


@jit_p.def_jvp
def _jit_jvp(primals, tangents, *, ir, name):
    mask = tuple(t is not zero and is_inexact(a.dtype)
                 for t, a in zip(tangents, ir.in_avals))
    prog, nonzero = _jvp_program(ir, mask)
    outs = jit_p.bind(*primals, *[t for t, m in zip(tangents, mask) if m],
                      ir=prog, name=f"jvp({name})")
    n_out = len(ir.out_vars)
    rest = iter(outs[n_out:])
    return tuple(outs[:n_out]), tuple(next(rest) if nz else zero for nz in nonzero)


# --- reverse mode ------------------------------------------------------------------
class _VJPPrograms:
    """The forward and backward programs of one IR (see the module docstring).

    ``fwd``: primals -> outputs, known input cotangents, residuals.
    ``bwd``: residuals, cotangents of the inexact outputs -> unknown input cotangents.
    ``in_ct[i]``: for input ``i``, ``("bwd", k)`` (output ``k`` of ``bwd``),
    ``("fwd", k)`` (``k``-th known cotangent returned by ``fwd``) or None (no
    cotangent: not inexact, or no path to the outputs).
    """

    __slots__ = ("fwd", "bwd", "n_out", "n_known", "diff_out", "in_ct", "pruned")

    def bwd_for(self, needs):
        """The backward program restricted to the cotangents in ``needs`` (DCE)."""
        used = [False] * len(self.bwd.out_vars)
        for (where, k), need in _zip_in_ct(self.in_ct, needs):
            if where == "bwd" and need:
                used[k] = True
        key = tuple(used)
        prog = self.pruned.get(key)
        if prog is None:
            prog = self.pruned[key] = dce(self.bwd, used)
        return prog, used


def _zip_in_ct(in_ct, needs):
    for c, need in zip(in_ct, needs):
        if c is not None:
            yield c, need


def _vjp_programs(ir):
    hit = ir.cache.get("vjp")
    if hit is not None:
        return hit
    n = len(ir.in_vars)
    diff_in = [is_inexact(a.dtype) for a in ir.in_avals]
    diff_out = [is_inexact(a.dtype) for a in ir.out_avals]
    reached, n_fwd = [], []

    def joint(*args):
        cts = iter(args[n:])
        trace = VJPTrace(_ctx.trace, "vjp")
        ins = [trace.new_input(x) if d else x for x, d in zip(args[:n], diff_in)]
        try:
            with set_current_trace(trace):
                outs = eval_ir(ir, *ins)
        finally:
            trace.finish()
        n_fwd.append(len(_ctx.trace.eqns))  # the equations staged so far: forward pass
        primals, seeds = [], {}
        for o, d in zip(outs, diff_out):
            c = next(cts) if d else None
            if isinstance(o, VJPTracer) and o._trace is trace:
                primals.append(o.primal)
                _seed(seeds, o.idx, c)
            else:
                primals.append(o)
        results = backward_pass(trace.tape, seeds, consume=True)
        in_cts = []
        for t in ins:
            g = results.get(t.idx) if isinstance(t, VJPTracer) else None
            reached.append(g is not None)
            if g is not None:
                in_cts.append(g)
        return primals + in_cts

    avals = ir.in_avals + [ShapedArray(a.shape, a.dtype)
                           for a, d in zip(ir.out_avals, diff_out) if d]
    joint_ir, lifted = stage(joint, avals, "vjp")
    assert not lifted
    # every equation of the backward pass stays in the backward program, even when it
    # reads forward values only (derivative factors such as cos(x), checkpoint's
    # recomputation): the forward program is the forward pass plus residuals
    backward_eqns = joint_ir.eqns[n_fwd[0]:]
    joint_ir = dce(joint_ir)
    n_out = len(ir.out_vars)
    known, unknown, out_unknown, _ = partition(
        joint_ir, [False] * n + [True] * (len(avals) - n), force_unknown=backward_eqns)
    assert not any(out_unknown[:n_out]), "a primal output depends on a cotangent"
    progs = _VJPPrograms()
    progs.fwd, progs.bwd, progs.n_out = known, unknown, n_out
    progs.diff_out = tuple(diff_out)
    progs.pruned = {}
    in_ct, k_known, k_bwd = [], 0, 0
    ct_unknown = iter(out_unknown[n_out:])
    for r in reached:
        if not r:
            in_ct.append(None)
        elif next(ct_unknown):
            in_ct.append(("bwd", k_bwd))
            k_bwd += 1
        else:
            in_ct.append(("fwd", k_known))
            k_known += 1
    progs.in_ct = tuple(in_ct)
    progs.n_known = k_known
    ir.cache["vjp"] = progs
    return progs


def _jit_vjp_fwd(*primals, ir, name):
    progs = _vjp_programs(ir)
    outs = jit_p.bind(*primals, ir=progs.fwd, name=f"vjp_fwd({name})")
    n = progs.n_out
    return tuple(outs[:n]), tuple(outs[n:])


jit_p.vjp_fwd = _jit_vjp_fwd


@jit_p.def_vjp
def _jit_vjp(ct, ans, residuals, needs, *, ir, name):
    progs = _vjp_programs(ir)
    known, res = residuals[:progs.n_known], residuals[progs.n_known:]
    prog, used = progs.bwd_for(needs)
    cts = []
    for c, a, d in zip(ct, ir.out_avals, progs.diff_out):
        if d:
            if c.dtype != a.dtype:
                c = convert_element_type(c, a.dtype)
            cts.append(c)
    outs = jit_p.bind(*res, *cts, ir=prog, name=f"vjp_bwd({name})") if any(used) else ()
    by_pos = dict(zip([k for k, u in enumerate(used) if u], outs))
    result = []
    for c, need in zip(progs.in_ct, needs):
        if c is None or not need:
            result.append(None)
        elif c[0] == "fwd":
            result.append(known[c[1]])
        else:
            result.append(by_pos[c[1]])
    return result


# --- batching ----------------------------------------------------------------------
def _batch_program(ir, dims, size):
    key = ("vmap", dims, size)
    hit = ir.cache.get(key)
    if hit is not None:
        return hit
    out_dims = []

    def f(*args):
        trace = BatchTrace(_ctx.trace, "vmap", size)
        ins = [a if d is None else BatchTracer(trace, a, d) for a, d in zip(args, dims)]
        try:
            with set_current_trace(trace):
                outs = eval_ir(ir, *ins)
        finally:
            trace.finish()
        res = []
        for o in outs:
            if type(o) is BatchTracer and o._trace is trace:
                res.append(o.val)
                out_dims.append(o.bdim)
            else:
                res.append(o)
                out_dims.append(None)
        return res

    avals = []
    for a, d in zip(ir.in_avals, dims):
        if d is None:
            avals.append(a)
        else:
            avals.append(ShapedArray(a.shape[:d] + (size,) + a.shape[d:], a.dtype))
    prog = _stage_closed(f, avals, "vmap")
    hit = ir.cache[key] = (prog, tuple(out_dims))
    return hit


@jit_p.def_batch
def _jit_batch(vals, dims, *, ir, name):
    size = next(v.shape[d] for v, d in zip(vals, dims) if d is not None)
    prog, out_dims = _batch_program(ir, tuple(dims), size)
    outs = jit_p.bind(*vals, ir=prog, name=f"vmap({name})")
    return outs, list(out_dims)


# ---------------------------------------------------------------------------------
# argument handling shared by jit and make_ir
# ---------------------------------------------------------------------------------
def _normalize_static(fun, static_argnums, static_argnames, who):
    if isinstance(static_argnums, (int, np.integer)) and not isinstance(static_argnums, bool):
        static_argnums = (static_argnums,)
    if isinstance(static_argnames, str):
        static_argnames = (static_argnames,)
    try:
        nums = tuple(static_argnums)
        names = tuple(static_argnames)
    except TypeError:
        raise TypeError(f"{who}: static_argnums must be an int or a sequence of ints and "
                        f"static_argnames a str or a sequence of str; got {static_argnums!r} "
                        f"and {static_argnames!r}") from None
    if not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in nums):
        raise TypeError(f"{who}: static_argnums must be ints, got {static_argnums!r}")
    if not all(isinstance(s, str) for s in names):
        raise TypeError(f"{who}: static_argnames must be strings, got {static_argnames!r}")
    nums = tuple(int(i) for i in nums)
    # as JAX: a static positional parameter is static when passed by keyword too, and
    # a static name is static when passed positionally
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    pos = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    _check_static_in_signature(fun, params, pos, nums, names, who)
    extra_names = [pos[i].name for i in nums if -len(pos) <= i < len(pos)
                   and pos[i].kind is pos[i].POSITIONAL_OR_KEYWORD]
    extra_nums = [i for i, p in enumerate(pos) if p.name in names
                  and p.kind is p.POSITIONAL_OR_KEYWORD]
    names = tuple(dict.fromkeys(names + tuple(extra_names)))
    nums = tuple(dict.fromkeys(nums + tuple(i for i in extra_nums if i not in nums
                                            and i - len(pos) not in nums)))
    return nums, names


def _check_static_in_signature(fun, params, pos, nums, names, who):
    """As JAX: static_argnums/static_argnames that no call can pass raise ValueError
    when ``fun``'s signature is known (no check for ``*args`` / ``**kwargs``)."""
    kinds = {p.kind for p in params}
    listed = "(" + ", ".join(p.name for p in pos) + ")"
    if params and inspect.Parameter.VAR_POSITIONAL not in kinds:
        bad = [i for i in nums if not -len(pos) <= i < len(pos)]
        if bad:
            raise ValueError(
                f"{who}: static_argnums={nums!r} names positional argument(s) {bad}, but "
                f"{getattr(fun, '__name__', 'the function')} accepts only {len(pos)} "
                f"positional argument(s) {listed}; use indices in range({len(pos)}) "
                "(negative ones count from the end) or static_argnames=")
    if params and inspect.Parameter.VAR_KEYWORD not in kinds:
        known = {p.name for p in params if p.kind is not p.POSITIONAL_ONLY}
        bad = [n for n in names if n not in known]
        if bad:
            raise ValueError(
                f"{who}: static_argnames={names!r} names {bad}, which "
                f"{getattr(fun, '__name__', 'the function')} does not accept as keyword "
                f"argument(s); its parameters are {[p.name for p in params]}")


def _leaf_key(x, who, where):
    """Cache-key entry of one dynamic argument leaf; raises TypeError for non-arrays."""
    t = type(x)
    if t is np.ndarray:
        return (x.shape, x.dtype)
    if t in (float, int, bool, complex):
        return t  # weakly typed Python scalar: its kind, not its value
    if isinstance(x, Tracer):
        if not x._trace.active:
            raise _escaped(x)
        aval = getattr(x, "aval", None)  # a staged Python scalar (jit inside jit)
        if aval is not None and aval.weak_type:
            return ("weak", aval.dtype)
        return (tuple(x.shape), as_numpy_dtype(x.dtype))
    if isinstance(x, np.generic):
        return ((), x.dtype)
    if hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, (str, bytes)):
        return (t, tuple(x.shape), x.dtype)  # another array type: its own programs
    raise TypeError(
        f"{who}: {where} is a {t.__name__}, not an array or a Python scalar. Arguments of "
        "a jitted function are traced: pass arrays (or pytrees of them), or mark this "
        "argument static with static_argnums=/static_argnames= (it must then be hashable).")


def _aval(x):
    t = type(x)
    if t in (float, int, bool, complex):
        return ShapedArray((), weak_dtype(x), weak_type=True)
    aval = getattr(x, "aval", None)
    if isinstance(x, Tracer) and aval is not None and aval.weak_type:
        return aval
    try:
        dtype = as_numpy_dtype(x.dtype)  # array-API dtypes by name (array_api_strict.float64)
    except TypeError:
        raise TypeError(f"jit: arguments of type {t.__module__}.{t.__name__} (dtype "
                        f"{x.dtype!r}) cannot be staged: the dtype has no NumPy equivalent"
                        ) from None
    return ShapedArray(tuple(x.shape), dtype)


class _Call:
    """One call's arguments split into static values and dynamic leaves."""

    __slots__ = ("leaves", "in_tree", "static", "key", "args", "kwargs")


_FLAT_LEAF_TYPES = frozenset({np.ndarray, float, int, bool, complex})
_FLAT_TREES = {}


def _flat_tree(n):
    """The structure of ``((leaf,) * n, {})`` (cached)."""
    t = _FLAT_TREES.get(n)
    if t is None:
        t = _FLAT_TREES[n] = tree_flatten((tuple(range(n)), {}))[1]
    return t


def _split(who, args, kwargs, nums, names):
    call = _Call()
    nargs = len(args)
    static_pos = {}
    for i in nums:
        j = i + nargs if i < 0 else i
        if 0 <= j < nargs:
            static_pos[j] = args[i]
    static_kw = {k: v for k, v in kwargs.items() if k in names} if kwargs else {}
    dyn_args = tuple(a for i, a in enumerate(args) if i not in static_pos) \
        if static_pos else args
    dyn_kwargs = {k: v for k, v in kwargs.items() if k not in static_kw} if kwargs else {}
    static = tuple((i, type(v), v) for i, v in sorted(static_pos.items())) + tuple(
        (k, type(v), v) for k, v in sorted(static_kw.items()))
    try:
        hash(static)
    except TypeError:
        for what, _, v in static:
            try:
                hash(v)
            except TypeError:
                desc = (f"static argument {what} (static_argnums)" if isinstance(what, int)
                        else f"static argument {what!r} (static_argnames)")
                raise TypeError(
                    f"{who}: {desc} must be hashable, got a {type(v).__name__}: {v!r}. Static "
                    "arguments are part of the cache key; pass a hashable value (a tuple "
                    "instead of a list, ...), or make it a traced (non-static) argument if "
                    "it is an array.") from None
        raise
    if not dyn_kwargs and all(type(a) in _FLAT_LEAF_TYPES or isinstance(a, Tracer)
                              for a in dyn_args):
        leaves, in_tree = list(dyn_args), _flat_tree(len(dyn_args))  # no pytree to walk
    else:
        leaves, in_tree = tree_flatten((dyn_args, dyn_kwargs))
    where = _leaf_where(in_tree, dyn_args, static_pos)
    call.leaves = leaves
    call.in_tree = in_tree
    call.static = static
    call.key = (in_tree, static, tuple(_leaf_key(x, who, where(i)) for i, x in enumerate(leaves)))
    call.args, call.kwargs = static_pos, static_kw
    return call


def _leaf_where(in_tree, dyn_args, static_pos):
    """leaf index -> human description (for errors)."""
    def where(i):
        counts = [c.num_leaves for c in in_tree.children[0].children]
        pos = [j for j in range(len(dyn_args) + len(static_pos)) if j not in static_pos]
        acc = 0
        for k, c in enumerate(counts):
            if i < acc + c:
                return f"argument {pos[k]}" + (f" (leaf {i - acc})" if c > 1 else "")
            acc += c
        return "a keyword argument"
    return where


def _rebuild(call, nums, dyn_leaves):
    dyn_args, dyn_kwargs = tree_unflatten(call.in_tree, dyn_leaves)
    if call.args:
        n = len(dyn_args) + len(call.args)
        it = iter(dyn_args)
        args = tuple(call.args[i] if i in call.args else next(it) for i in range(n))
    else:
        args = dyn_args
    kwargs = dict(dyn_kwargs)
    kwargs.update(call.kwargs)
    return args, kwargs


class _Staged:
    """A staged call: the program, the output structure and the compiled runner."""

    __slots__ = ("ir", "out_tree", "lifted", "run")


def _check_out_leaf(o, who):
    if isinstance(o, (Tracer, np.ndarray, np.generic, bool, int, float, complex)) or (
            hasattr(o, "shape") and hasattr(o, "dtype")):
        return o
    raise TypeError(f"{who}: the function must return arrays, Python scalars or pytrees of "
                    f"them, got a leaf of type {type(o).__name__}")


def _stage_call(fun, who, call, nums):
    box = []

    def flat_fun(*leaves):
        args, kwargs = _rebuild(call, nums, leaves)
        out = fun(*args, **kwargs)
        out_leaves, out_tree = tree_flatten(out)
        box.append(out_tree)
        return [_check_out_leaf(o, who) for o in out_leaves]

    ir, lifted = stage(flat_fun, [_aval(x) for x in call.leaves], who)
    staged = _Staged()
    staged.ir = dce(ir)
    staged.out_tree = box[0]
    staged.lifted = lifted
    staged.run = None
    return staged


# ---------------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------------
def _fun_name(fun):
    return getattr(fun, "__name__", None) or type(fun).__name__


def make_ir(fun, static_argnums=(), static_argnames=()):
    """The IR of ``fun`` for given arguments (JAX's ``make_jaxpr``).

    Parameters
    ----------
    fun : callable
        Takes pytrees of arrays / Python scalars (and static arguments).
    static_argnums, static_argnames : int/str or sequences of them
        Arguments that are not traced: their values are used as Python values while
        staging (they must be hashable).

    Returns
    -------
    callable
        ``(*args, **kwargs) -> IR``.  The IR's inputs are the flattened dynamic argument
        leaves (positional arguments, then keyword arguments by sorted name), preceded by
        any value of an enclosing transform that ``fun`` closes over; its outputs are the
        flattened output leaves.  ``str(ir)`` lists one equation per line with shapes and
        dtypes.

    Raises
    ------
    ConcretizationError
        If ``fun`` branches on or converts a traced value (``if x > 0``, ``float(x)``).
    TypeError
        For a non-array dynamic argument or an unhashable static argument.
    ValueError
        When ``make_ir`` is called, for ``static_argnums``/``static_argnames`` that
        ``fun``'s signature cannot take (as :func:`jit`).

    Examples
    --------
    >>> import ftrans, ftrans.numpy as fnp, numpy as np
    >>> print(ftrans.make_ir(lambda x, y: fnp.sin(x) * y)(np.ones(3), 2.0))
    ir(a:f64[3], b:f64[]) {
      c:f64[3] = sin a
      d:f64[3] = mul c b
      return d
    }
    """
    who = f"make_ir({_fun_name(fun)})"
    nums, names = _normalize_static(fun, static_argnums, static_argnames, who)

    @functools.wraps(fun)
    def make(*args, **kwargs):
        call = _split(who, args, kwargs, nums, names)
        return _stage_call(fun, who, call, nums).ir

    return make


def jit(fun, static_argnums=(), static_argnames=(), donate_argnums=()):
    """Stage ``fun`` to an IR once per argument signature, compile it, and cache it.

    Parameters
    ----------
    fun : callable
        A function of pytrees of arrays and Python scalars written with ftrans
        operations (``ftrans.numpy``, ``ftrans.lax``); it must be pure (its side
        effects, such as ``print``, run only while it is staged).
    static_argnums : int or sequence of int
        Positional arguments used as Python values while staging (hashable; a new
        value stages the function again).  Negative indices count from the end.
    static_argnames : str or sequence of str
        Keyword arguments used the same way.  A parameter named in one of the two is
        static whichever way it is passed.
    donate_argnums : int or sequence of int
        Accepted for compatibility with JAX and validated; it has no effect (NumPy
        cannot donate buffers; ftrans never reuses an input's memory).

    Returns
    -------
    callable
        Same signature, values and output pytree as ``fun``; results are arrays,
        fresh on every call (never a buffer the program keeps, such as a constant it
        returns; an argument returned unchanged is that argument, as eagerly).  Arrays ``fun`` closes over are snapshotted when it is staged:
        mutating them in place afterwards does not change the cached program (as in
        JAX; ``._clear_cache()`` stages again).  ``._cache_size()`` is the number of programs cached and ``._trace_count()``
        the number of times ``fun`` was staged.  Under ``ftrans.disable_jit()`` it
        calls ``fun`` itself.  In debug_nans mode (:mod:`ftrans.config`) the outputs
        are checked, and a NaN makes it run ``fun`` again eagerly, which raises
        ``FloatingPointError`` at the primitive that produced it.

    Raises
    ------
    ConcretizationError
        (a ``TypeError``) when ``fun`` branches on or converts a traced value: make that argument
        static, or use ``ftrans.lax.cond``/``while_loop``/``fnp.where``.
    TypeError
        For a dynamic argument that is not an array or Python scalar (make it static),
        an unhashable static argument, or bad ``static_argnums``/``donate_argnums``.
    ValueError
        A ``donate_argnums`` entry that is also static, or repeated; when ``jit`` is
        called, a ``static_argnums`` entry beyond ``fun``'s positional parameters or a
        ``static_argnames`` entry that is not one of its parameters (unless ``fun``
        takes ``*args`` / ``**kwargs``), as JAX.

    Examples
    --------
    >>> import ftrans, ftrans.numpy as fnp, numpy as np
    >>> f = ftrans.jit(lambda x: fnp.sum(fnp.tanh(x) ** 2))
    >>> float(f(np.zeros(3))), f._trace_count()
    (0.0, 1)
    >>> g = ftrans.jit(ftrans.grad(f))   # compiled forward and backward
    """
    if not callable(fun):
        raise TypeError(f"jit expects a callable, got {type(fun).__name__}")
    name = _fun_name(fun)
    who = f"jit({name})"
    nums, names = _normalize_static(fun, static_argnums, static_argnames, who)
    donate = _check_donate(donate_argnums, nums, who)
    del donate  # no effect: see the docstring
    cache = {}       # full key -> _Staged
    fast = {}        # tuple of (shape, dtype) of all-ndarray positional calls -> runner
    counter = [0]
    simple = not nums and not names

    def slow_call(args, kwargs):
        call = _split(who, args, kwargs, nums, names)
        staged = cache.get(call.key)
        if staged is None:
            counter[0] += 1
            staged = _stage_call(fun, who, call, nums)
            if not staged.lifted:
                cache[call.key] = staged
        leaves = staged.lifted + call.leaves
        ir = staged.ir
        if _ctx.trace is EVAL:
            outs = _run(ir, leaves)
        else:
            outs = jit_p.bind(*leaves, ir=ir, name=name)
        out_tree = staged.out_tree
        if simple and not kwargs and _ctx.trace is EVAL and not staged.lifted:
            fast_key = _fast_key(args)
            if fast_key is not None and fast_key not in fast:
                fast[fast_key] = _fast_runner(ir, out_tree)  # this signature's fast path
        return tree_unflatten(out_tree, outs)

    @functools.wraps(fun)
    def jitted(*args, **kwargs):
        if debug.nans:
            return _nan_checked_call(fun, who, slow_call, args, kwargs)
        # fast path: positional NumPy arrays, no transform active, a signature seen before
        if not kwargs and _ctx.trace is EVAL and not (_n_disabled and _state.disabled):
            if len(args) == 1:
                a = args[0]
                if type(a) is np.ndarray:
                    run = fast.get((a.shape, a.dtype))
                    if run is not None:
                        return run(a)
            else:
                key = _fast_key(args)
                if key is not None:
                    run = fast.get(key)
                    if run is not None:
                        return run(*args)
        elif _state.disabled:
            return fun(*args, **kwargs)
        return slow_call(args, kwargs)

    jitted._cache_size = lambda: len(cache)
    jitted._trace_count = lambda: counter[0]
    jitted._clear_cache = lambda: (cache.clear(), fast.clear())
    jitted._cached_irs = lambda: [s.ir for s in cache.values()]
    return jitted


def _nan_checked_call(fun, who, slow_call, args, kwargs):
    """A jitted call in debug_nans mode: the compiled program's outputs are checked;
    when one holds a NaN, ``fun`` runs again eagerly (``disable_jit``) on the same
    arguments, so that the first primitive producing a NaN is named with its line."""
    if _state.disabled:
        return fun(*args, **kwargs)
    try:
        out = slow_call(args, kwargs)
    except FloatingPointError as e:
        # debug_nans' own error (it has ``primitive``): for the jit primitive under a
        # transform, or for one of the program's equations run by an interpreter
        if not hasattr(e, "primitive"):
            raise
    else:
        if not debug.has_nan(tree_flatten(out)[0]):
            return out
    with disable_jit():
        fun(*args, **kwargs)  # raises at the first primitive producing a NaN
    debug.raise_nan(f"the output of {who} (compiled), but not when it ran again eagerly "
                    "under ftrans.disable_jit() (a difference of the compiled arithmetic)",
                    "jit")


def _fast_key(args):
    """``(shape0, dtype0, shape1, dtype1, ...)`` when every argument is a NumPy array
    (for one argument: ``(shape, dtype)``), else None."""
    if len(args) == 1:
        a = args[0]
        return (a.shape, a.dtype) if type(a) is np.ndarray else None
    key = []
    for a in args:
        if type(a) is not np.ndarray:
            return None
        key.append(a.shape)
        key.append(a.dtype)
    return tuple(key)


def _fast_runner(ir, out_tree):
    """The compiled program with the output pytree rebuilt, for all-NumPy arguments."""
    run = compile_ir(ir, "cpu")
    if out_tree.kind is None:  # one array
        def one(*args):
            o = run(*args)[0]
            return o if type(o) is np.ndarray else _as_array(o)
        return one
    if out_tree.kind in (tuple, list) and all(c.kind is None for c in out_tree.children):
        kind = out_tree.kind  # a flat tuple/list of arrays

        def flat(*args):
            return kind([o if type(o) is np.ndarray else _as_array(o) for o in run(*args)])
        return flat

    def many(*args):
        return tree_unflatten(out_tree, [o if type(o) is np.ndarray else _as_array(o)
                                         for o in run(*args)])
    return many


def _check_donate(donate_argnums, static_nums, who):
    if isinstance(donate_argnums, (int, np.integer)) and not isinstance(donate_argnums, bool):
        donate_argnums = (donate_argnums,)
    try:
        donate = tuple(donate_argnums)
    except TypeError:
        raise TypeError(f"{who}: donate_argnums must be an int or a sequence of ints, got "
                        f"{donate_argnums!r}") from None
    if not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in donate):
        raise TypeError(f"{who}: donate_argnums must be ints, got {donate_argnums!r}")
    if len(set(donate)) != len(donate):
        raise ValueError(f"{who}: donate_argnums={donate_argnums!r} names an argument twice")
    both = set(donate) & set(static_nums)
    if both:
        raise ValueError(f"{who}: argument(s) {sorted(both)} are both static and donated; a "
                         "static argument is a Python value, not a buffer that can be donated")
    return donate
