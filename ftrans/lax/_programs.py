"""What the control-flow primitives share: staging user functions into programs
(pytrees flattened, closed-over tracers lifted, Python-scalar outputs typed), editing
programs (reordering inputs/outputs), and the program transformations their rules are
made of -- forward mode (:func:`_jvp_ir`), batching (:func:`_batch_ir`), the joint
forward + reverse program (:func:`_vjp_joint`) -- each staged once and cached on the
program (``ir.cache``)."""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Hashable, Sequence
from typing import Any, cast

import numpy as np

from ..compiler import backend_of, compile_ir
from ..core import ShapedArray, Tracer, zero, is_inexact, set_current_trace
from ..core.trace import _ctx, _escaped
from ..core.ir import IR, Var, Literal, StagingTrace, stage, eval_ir, partition
from ..core.pytree import tree_flatten, tree_unflatten
from .. import primitives as P
from ..primitives._rules import move_to_front
from ..transforms.jvp import JVPTrace, JVPTracer
from ..transforms.vmap import BatchTrace, BatchTracer
from ..transforms.vjp import vjp_unchecked
from ..transforms._util import zeros_like_leaf
from ..typing import Array, PyTree


# =================================================================================
# helpers: operands, staging user functions, editing programs
# =================================================================================
def _as_operand(x: Any, what: str) -> Array:
    """A leaf argument as an array (tracers pass through; Python scalars become arrays)."""
    if isinstance(x, Tracer):
        if not x._trace.active:
            raise _escaped(x)
        return cast(Array, x)  # a tracer stands for the array it traces
    if isinstance(x, (bool, int, float, complex, np.generic)):
        return np.asarray(x)
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return x
    raise TypeError(f"{what}: operands must be arrays, Python scalars or pytrees of them, "
                    f"got a leaf of type {type(x).__name__}")


def _aval(x: Any) -> ShapedArray:
    return ShapedArray(tuple(x.shape), x.dtype)


def _aval_str(a: ShapedArray) -> str:
    return f"{a.dtype.name}{list(a.shape)}"


def _is_python_scalar(x: Any) -> bool:
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


def _backend(args: Sequence[Any]) -> Any:
    return backend_of(args)


def _check_out_leaf(o: Any, what: str) -> Any:
    if isinstance(o, Tracer) or _is_python_scalar(o) or (hasattr(o, "shape")
                                                          and hasattr(o, "dtype")):
        return o
    raise TypeError(f"{what} must return arrays, Python scalars or pytrees of them, got a "
                    f"leaf of type {type(o).__name__}")


def _weak_cast(o: Any, aval: ShapedArray) -> Any:
    """A Python scalar output as an array of ``aval``'s dtype when NumPy's weak-scalar
    rule (NEP 50) keeps that dtype (``1.0`` into a float32 carry); else unchanged."""
    if _is_python_scalar(o) and aval.shape == () and np.result_type(o, aval.dtype) == aval.dtype:
        return np.asarray(o, aval.dtype)
    return o


def _literals_to_consts(ir: IR, dtypes: Sequence[Any] | None = None) -> IR:
    """``ir`` with its Python-scalar (Literal) outputs turned into constant arrays (of
    ``dtypes[k]`` when given), so that every output of a control-flow primitive is an
    array."""
    if not any(type(v) is Literal for v in ir.out_vars):
        return ir
    cvars, consts, outs = list(ir.const_vars), list(ir.consts), []
    for k, v in enumerate(ir.out_vars):
        if type(v) is Literal:
            arr = np.asarray(v.val, None if dtypes is None else dtypes[k])
            nv = Var(ShapedArray(arr.shape, arr.dtype))
            cvars.append(nv)
            consts.append(arr)
            v = nv
        outs.append(v)
    return IR(ir.in_vars, cvars, consts, ir.eqns, outs)


def _stage_fun(fun: Callable[..., Any], in_tree: Any, in_avals: Sequence[ShapedArray], what: str,
               split: Callable[[Any], list[PyTree]] | None = None,
               cast: Sequence[ShapedArray] | None = None
               ) -> tuple[IR, list[Any], list[Any], list[bool]]:
    """Stage ``fun`` on pytree arguments with leaves of ``in_avals``.

    ``split(out) -> list of pytrees`` splits the result (scan's ``(carry, y)``); ``cast``
    gives, per output leaf, an aval that Python-scalar outputs are cast to (NEP 50).
    Returns ``(ir, lifted, out_trees, weak)``: ``ir`` may still have Literal outputs
    (``weak[k]``: output ``k`` is a Python scalar).
    """
    trees: list[Any] = []
    weak: list[bool] = []

    def flat(*xs: Any) -> list[Any]:
        out = fun(*tree_unflatten(in_tree, list(xs)))
        parts = [out] if split is None else split(out)
        leaves: list[Any] = []
        for part in parts:
            l, t = tree_flatten(part)
            trees.append(t)
            leaves.extend(_check_out_leaf(o, what) for o in l)
        if cast is not None:  # (a carry of the wrong structure is reported by the caller)
            leaves = [_weak_cast(o, a) for o, a in zip(leaves, cast)] + leaves[len(cast):]
        weak.extend(_is_python_scalar(o) for o in leaves)
        return leaves

    ir, lifted = stage(flat, in_avals, name=what)
    return ir, lifted, trees, weak


def _reorder(ir: IR, in_perm: Sequence[int], out_perm: Sequence[int]) -> IR:
    """The same program with its inputs and outputs permuted."""
    return IR([ir.in_vars[i] for i in in_perm], ir.const_vars, ir.consts, ir.eqns,
              [ir.out_vars[j] for j in out_perm])


def _with_inputs(ir: IR, lifted: Sequence[Any], all_lifted: Sequence[Any],
                 extra_avals: Sequence[ShapedArray] = ()) -> IR:
    """``ir`` (whose inputs are ``lifted`` then the rest) taking ``all_lifted`` (a superset,
    unused ones ignored) first, then its own inputs, then unused inputs of
    ``extra_avals``."""
    pos = {id(t): k for k, t in enumerate(lifted)}
    head = [ir.in_vars[pos[id(t)]] if id(t) in pos else Var(_aval(t)) for t in all_lifted]
    tail = [Var(a) for a in extra_avals]
    return IR(head + ir.in_vars[len(lifted):] + tail, ir.const_vars, ir.consts, ir.eqns,
              ir.out_vars)


def _cached(ir: IR, key: Hashable, build: Callable[[], Any]) -> Any:
    hit = ir.cache.get(key)
    if hit is None:
        hit = ir.cache[key] = build()
    return hit


#: Seconds an eager ``cond``/``scan``/``while`` spends running one sub-program (a branch, a
#: body) through the reference executor before compiling it with numba: the ski-rental
#: rule (rent until the rent paid equals the price of buying), so a program that runs
#: briefly (a one-off ``cond``, a short ``scan``, a test) never waits the 0.3-10 s of a
#: numba compile, and one that runs long pays at most about this much more than had it
#: been compiled at once.  ``FTRANS_EAGER_COMPILE_AFTER_S`` sets it (0: compile at once).
#: Under ``jit`` the control flow is part of the compiled program and this does not apply.
EAGER_COMPILE_AFTER_S = float(os.environ.get("FTRANS_EAGER_COMPILE_AFTER_S", 1.0))


#: seconds spent in the reference executor, by program text: a body staged again (a new
#: ``lambda`` per call) is the same program, compiled once it has run long enough
_SPENT: dict[str, float] = {}
_SPENT_MAX = 1024  # programs remembered (the oldest forgotten first)


class _Tiered:
    """Runs ``ir`` on CPU arrays through the reference executor until programs of its
    text have spent :data:`EAGER_COMPILE_AFTER_S` seconds there (over calls), then
    through ``compile_ir``; another backend compiles at once.  The two agree to rounding,
    as ``jit(f)`` and ``f`` do."""

    __slots__ = ("ir", "backend", "fn", "key")

    def __init__(self, ir: IR, backend: Any) -> None:
        self.ir, self.backend, self.fn = ir, backend, None
        self.key = _cached(ir, "text", lambda: str(ir)) if backend == "cpu" else ""
        if backend != "cpu" or _SPENT.get(self.key, 0.0) >= EAGER_COMPILE_AFTER_S:
            self.fn = compile_ir(ir, backend)

    def __call__(self, *args: Any) -> list[Any]:
        if self.fn is not None:
            return self.fn(*args)
        t = time.perf_counter()
        out = compile_ir(self.ir, None)(*args)
        spent = _SPENT[self.key] = _SPENT.pop(self.key, 0.0) + time.perf_counter() - t
        if len(_SPENT) > _SPENT_MAX:
            del _SPENT[next(iter(_SPENT))]
        if spent >= EAGER_COMPILE_AFTER_S:
            self.fn = compile_ir(self.ir, self.backend)
        return out


def _arr(x: Any) -> Any:
    return np.asarray(x) if _is_python_scalar(x) or isinstance(x, np.generic) else x


def _arrays(tree: PyTree) -> PyTree:
    """The pytree with its Python/NumPy scalar leaves as 0-d arrays (eager results)."""
    leaves, t = tree_flatten(tree)
    return tree_unflatten(t, [_arr(l) for l in leaves])


def _zeros_like(x: Any) -> Any:
    """Zeros of ``x``'s shape and dtype on ``x``'s device (an instantiated tangent or
    cotangent accumulator)."""
    return zeros_like_leaf(x)


def _zeros(aval: ShapedArray) -> Array:
    return np.zeros(aval.shape, aval.dtype)


# ---------------------------------------------------------------------------------
# program transformations: JVP, batching, joint forward + VJP (each staged once and
# cached on the program)
# ---------------------------------------------------------------------------------
def _jvp_ir(ir: IR, nz_in: Sequence[bool], inst: Sequence[bool]) -> tuple[IR, tuple[bool, ...]]:
    """Forward mode of a program.

    Returns ``(jir, nz_out)``: ``jir`` takes the primal inputs then the tangents of the
    inputs marked in ``nz_in``, and returns the primal outputs then the tangents of the
    outputs marked in ``nz_out`` (nonzero, or forced by ``inst``; never for integer
    outputs).
    """
    def build() -> tuple[IR, tuple[bool, ...]]:
        n = len(ir.in_vars)
        nz_out: list[bool] = []

        def fn(*xs: Any) -> list[Any]:
            ts = iter(xs[n:])
            trace = JVPTrace(_ctx.trace, "jvp")
            args = [JVPTracer(trace, p, next(ts)) if z else p for p, z in zip(xs[:n], nz_in)]
            try:
                with set_current_trace(trace):
                    outs = eval_ir(ir, *args)
            finally:
                trace.finish()
            p_out: list[Any] = []
            t_out: list[Any] = []
            for k, (o, a) in enumerate(zip(outs, ir.out_avals)):
                p, t = (o.primal, o.tangent) if isinstance(o, JVPTracer) and \
                    o._trace is trace else (o, zero)
                p_out.append(_arr(p))
                if not is_inexact(a.dtype):
                    t = zero
                elif t is zero and inst[k]:
                    t = _zeros(a)
                nz_out.append(t is not zero)
                if t is not zero:
                    t_out.append(t)
            return p_out + t_out

        avals = list(ir.in_avals) + [a for a, z in zip(ir.in_avals, nz_in) if z]
        jir, lifted = stage(fn, avals, "jvp")
        assert not lifted
        return jir, tuple(nz_out)
    return _cached(ir, ("jvp", tuple(nz_in), tuple(inst)), build)


def _batch_ir(ir: IR, in_b: Sequence[bool], size: int, force: Sequence[bool]
              ) -> tuple[IR, tuple[bool, ...]]:
    """The program vectorized over a leading batch axis of ``size`` on the inputs marked
    in ``in_b``.  Returns ``(bir, out_b)``: outputs marked in ``out_b`` (batched, or
    forced by ``force``) carry the batch axis in front."""
    def build() -> tuple[IR, tuple[bool, ...]]:
        out_b: list[bool] = []

        def fn(*xs: Any) -> list[Any]:
            trace = BatchTrace(_ctx.trace, "vmap", size)
            args = [BatchTracer(trace, x, 0) if b else x for x, b in zip(xs, in_b)]
            try:
                with set_current_trace(trace):
                    outs = eval_ir(ir, *args)
            finally:
                trace.finish()
            res = []
            for o, f in zip(outs, force):
                if isinstance(o, BatchTracer) and o._trace is trace:
                    res.append(move_to_front(o.val, o.bdim))
                    out_b.append(True)
                elif f:
                    o = _arr(o)
                    res.append(P.broadcast_to(o, (size,) + tuple(o.shape)))
                    out_b.append(True)
                else:
                    res.append(_arr(o))
                    out_b.append(False)
            return res

        avals = [ShapedArray((size,) + a.shape, a.dtype) if b else a
                 for a, b in zip(ir.in_avals, in_b)]
        bir, lifted = stage(fn, avals, "vmap")
        assert not lifted
        return bir, tuple(out_b)
    return _cached(ir, ("batch", tuple(in_b), size, tuple(force)), build)


def _batch_fixpoint(ir: IR, head_b: Sequence[bool], carry_b: Sequence[bool],
                    tail_b: Sequence[bool], size: int, n_out_extra: int
                    ) -> tuple[IR, list[bool], list[bool]]:
    """Batch a loop body (inputs ``head, carry, tail``; outputs ``carry, extra``) with
    the carry's batched set grown until the body maps it into itself."""
    carry_b = list(carry_b)
    while True:
        bir, out_b = _batch_ir(ir, list(head_b) + carry_b + list(tail_b), size,
                               carry_b + [False] * n_out_extra)
        new = list(out_b[:len(carry_b)])
        if new == carry_b:
            return bir, carry_b, list(out_b[len(carry_b):])
        carry_b = [a or b for a, b in zip(carry_b, new)]


def _vjp_joint(ir: IR, diff_in: Sequence[bool]) -> tuple[IR, int, list[bool]]:
    """The joint forward + reverse program of ``ir``.

    Returns ``(joint, boundary, out_inexact)``: ``joint`` takes ``ir``'s inputs then one
    cotangent per inexact output, and returns ``ir``'s outputs then the cotangents of the
    inputs marked in ``diff_in`` (zeros where none arrives); its equations from index
    ``boundary`` on were recorded by the backward pass.
    """
    def build() -> tuple[IR, int, list[bool]]:
        n = len(ir.in_vars)
        out_inexact = [is_inexact(a.dtype) for a in ir.out_avals]
        idx = [i for i, d in enumerate(diff_in) if d]
        info: dict[str, int] = {}

        def fn(*xs: Any) -> list[Any]:
            prim, cts = list(xs[:n]), iter(xs[n:])
            staging = cast(StagingTrace, _ctx.trace)  # fn runs staged (stage below)

            def f(*d: Any) -> Any:
                full = list(prim)
                for i, v in zip(idx, d):
                    full[i] = v
                return eval_ir(ir, *full)
            outs, pull = vjp_unchecked(f, *[prim[i] for i in idx])
            info["boundary"] = len(staging.eqns)
            ct = [next(cts) if m else zeros_like_leaf(o) for o, m in zip(outs, out_inexact)]
            in_cts = pull(ct) if idx else ()
            return [_arr(o) for o in outs] + list(in_cts)

        avals = list(ir.in_avals) + [a for a, m in zip(ir.out_avals, out_inexact) if m]
        joint, lifted = stage(fn, avals, "vjp")
        assert not lifted
        return joint, info["boundary"], out_inexact
    return _cached(ir, ("vjp_joint", tuple(diff_in)), build)


def _vjp_partition(ir: IR, diff_in: Sequence[bool]) -> tuple[IR, IR, tuple[bool, ...], int,
                                                              list[bool]]:
    """The joint program of :func:`_vjp_joint` split by
    :func:`~ftrans.core.ir.partition` with the cotangents unknown and every
    backward-phase equation forced to the unknown side.

    Returns ``(known, unknown, ct_unknown, nres, out_inexact)``: ``known`` takes ``ir``'s
    inputs and returns its outputs, then the known cotangent outputs (identically zero:
    a cotangent that does not depend on the output cotangents), then ``nres`` residuals;
    ``unknown`` takes the residuals and the cotangents of the inexact outputs and returns
    the cotangents marked in ``ct_unknown`` (one flag per input of ``diff_in``).  The
    residuals are what reverse mode's tape saves (the rules' primal operands), so a
    ``checkpoint`` inside ``ir`` keeps its recomputation on the unknown side.
    """
    def build() -> tuple[IR, IR, tuple[bool, ...], int, list[bool]]:
        nin, nout = len(ir.in_vars), len(ir.out_vars)
        joint, boundary, out_inexact = _vjp_joint(ir, diff_in)
        known, unknown, out_unknown, nres = partition(
            joint, [False] * nin + [True] * sum(out_inexact),
            force_unknown=joint.eqns[boundary:])
        assert not any(out_unknown[:nout])
        return known, unknown, tuple(out_unknown[nout:]), nres, out_inexact
    return _cached(ir, ("vjp_partition", tuple(diff_in)), build)


def _mismatch(what: str, k: int, tree: Any, expected: ShapedArray, got: ShapedArray,
              remedy: str) -> TypeError:
    return TypeError(
        f"{what}: leaf {k} of the output (structure {tree}) has type {_aval_str(got)} but "
        f"{_aval_str(expected)} was expected; {remedy}")


def _check_carry(what: str, in_tree: Any, out_tree: Any, in_avals: Sequence[ShapedArray],
                 out_avals: Sequence[ShapedArray]) -> None:
    if out_tree != in_tree:
        raise TypeError(f"{what} must return a value with the structure of the loop carry: "
                        f"the input carry is {in_tree} but the output is {out_tree}")
    for k, (a, b) in enumerate(zip(in_avals, out_avals)):
        if a != b:
            raise _mismatch(what, k, out_tree, a, b,
                            "the carry's output and input must have identical shapes and "
                            "dtypes (as in JAX). " + (
                                "Cast the output (e.g. with .astype(...)) or change the "
                                "initial value so that the dtypes agree." if a.shape == b.shape
                                else "A loop carry cannot change shape; keep growing data in "
                                "a preallocated array, or return it as scan's ys."))


def _static_int(x: Any) -> int | None:
    if isinstance(x, Tracer):
        return None
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return int(x)
    if isinstance(x, np.ndarray) and x.shape == () and x.dtype.kind in "iu":
        return int(x)
    return None
