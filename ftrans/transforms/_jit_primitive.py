"""The ``jit`` primitive (:mod:`ftrans.transforms.jit`): a call of a staged program, with its
impl (the compiled program), abstract evaluation, and forward-mode, reverse-mode and
batching rules, each of which stages and runs a transformed program."""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from ..core import Primitive, ShapedArray, is_inexact, set_current_trace, zero
from ..core.ir import IR, dce, eval_ir, partition, stage
from ..core.trace import _ctx
from ..primitives import convert_element_type
from ._jit_run import _run
from .jvp import JVPTrace, JVPTracer
from .vjp import VJPTrace, VJPTracer, _seed, backward_pass
from .vmap import BatchTrace, BatchTracer

__all__ = ["jit_p"]


jit_p = Primitive("jit", multiple_results=True)
# the compiler splices its program into the caller (ftrans.compiler._passes)
jit_p.lowering = {"kind": "inline", "param": "ir"}


@jit_p.def_impl
def _jit_impl(*args: Any, ir: IR, name: str) -> tuple[Any, ...]:
    # the program's code may be shared by every size of a rank, but its IR holds the
    # sizes it was staged for: another size would give wrong numbers, not an error
    if len(args) != len(ir.in_vars) or any(
            np.shape(a) != v.aval.shape for a, v in zip(args, ir.in_vars)):
        got = [np.shape(a) for a in args]
        raise TypeError(f"{name}: the program was staged for input shapes "
                        f"{[v.aval.shape for v in ir.in_vars]}, got {got}; stage it again "
                        "for these shapes (ftrans.jit does so itself)")
    return _run(ir, args)


@jit_p.def_abstract_eval
def _jit_abstract_eval(*avals: ShapedArray, ir: IR, name: str) -> tuple[ShapedArray, ...]:
    if len(avals) != len(ir.in_vars):
        raise TypeError(f"{name}: the program takes {len(ir.in_vars)} inputs, got "
                        f"{len(avals)}")
    return tuple(ShapedArray(a.shape, a.dtype) for a in ir.out_avals)


def _stage_closed(fun: Callable[..., Any], avals: Sequence[ShapedArray], name: str) -> IR:
    """Stage ``fun`` on ``avals``: a closed program (no lifted inputs), DCE'd."""
    ir, lifted = stage(fun, avals, name)
    assert not lifted, "a program transformed by a jit rule closed over a tracer"
    return dce(ir)


# --- forward mode ------------------------------------------------------------------
def _jvp_program(ir: IR, mask: tuple[bool, ...]) -> tuple[IR, tuple[bool, ...]]:
    """``(primals, tangents[mask]) -> (outputs, nonzero output tangents)`` and the
    per-output nonzero-tangent flags; cached in ``ir.cache``."""
    key = ("jvp", mask)
    hit: tuple[IR, tuple[bool, ...]] | None = ir.cache.get(key)
    if hit is not None:
        return hit
    n = len(ir.in_vars)
    nonzero: list[bool] = []

    def f(*args: Any) -> list[Any]:
        tangents = iter(args[n:])
        trace = JVPTrace(_ctx.trace, "jvp")
        ins = [JVPTracer(trace, p, next(tangents)) if m else p
               for p, m in zip(args[:n], mask)]
        try:
            with set_current_trace(trace):
                outs = eval_ir(ir, *ins)
        finally:
            trace.finish()
        primals: list[Any] = []
        t_outs: list[Any] = []
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
def _jit_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, ir: IR, name: str
             ) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
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
    fwd: IR
    bwd: IR
    n_out: int
    n_known: int
    diff_out: tuple[bool, ...]
    in_ct: tuple[tuple[str, int] | None, ...]
    pruned: dict[tuple[bool, ...], IR]

    def bwd_for(self, needs: Sequence[bool]) -> tuple[IR, list[bool]]:
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


def _zip_in_ct(in_ct: Sequence[tuple[str, int] | None], needs: Sequence[bool]
               ) -> Iterator[tuple[tuple[str, int], bool]]:
    for c, need in zip(in_ct, needs):
        if c is not None:
            yield c, need


def _vjp_programs(ir: IR) -> _VJPPrograms:
    hit: _VJPPrograms | None = ir.cache.get("vjp")
    if hit is not None:
        return hit
    n = len(ir.in_vars)
    diff_in = [is_inexact(a.dtype) for a in ir.in_avals]
    diff_out = [is_inexact(a.dtype) for a in ir.out_avals]
    reached: list[bool] = []
    n_fwd: list[int] = []

    def joint(*args: Any) -> list[Any]:
        cts = iter(args[n:])
        trace = VJPTrace(_ctx.trace, "vjp")
        ins = [trace.new_input(x) if d else x for x, d in zip(args[:n], diff_in)]
        try:
            with set_current_trace(trace):
                outs = eval_ir(ir, *ins)
        finally:
            trace.finish()
        # the equations staged so far (the current trace stages ``joint``): forward pass
        n_fwd.append(len(_ctx.trace.eqns))  # type: ignore[attr-defined]
        primals: list[Any] = []
        seeds: dict[int, Any] = {}
        for o, d in zip(outs, diff_out):
            c = next(cts) if d else None
            if isinstance(o, VJPTracer) and o._trace is trace:
                primals.append(o.primal)
                _seed(seeds, o.idx, c)
            else:
                primals.append(o)
        results = backward_pass(trace.tape, seeds, consume=True)
        in_cts: list[Any] = []
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
    in_ct: list[tuple[str, int] | None] = []
    k_known, k_bwd = 0, 0
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


def _jit_vjp_fwd(*primals: Any, ir: IR, name: str) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    progs = _vjp_programs(ir)
    outs = jit_p.bind(*primals, ir=progs.fwd, name=f"vjp_fwd({name})")
    n = progs.n_out
    return tuple(outs[:n]), tuple(outs[n:])


jit_p.vjp_fwd = _jit_vjp_fwd


@jit_p.def_vjp
def _jit_vjp(ct: Sequence[Any], ans: Sequence[Any], residuals: Sequence[Any],
             needs: Sequence[bool], *, ir: IR, name: str) -> list[Any]:
    progs = _vjp_programs(ir)
    known, res = residuals[:progs.n_known], residuals[progs.n_known:]
    prog, used = progs.bwd_for(needs)
    cts: list[Any] = []
    for c, a, d in zip(ct, ir.out_avals, progs.diff_out):
        if d:
            if c.dtype != a.dtype:
                c = convert_element_type(c, a.dtype)
            cts.append(c)
    outs = jit_p.bind(*res, *cts, ir=prog, name=f"vjp_bwd({name})") if any(used) else ()
    by_pos = dict(zip([k for k, u in enumerate(used) if u], outs))
    result: list[Any] = []
    for c, need in zip(progs.in_ct, needs):
        if c is None or not need:
            result.append(None)
        elif c[0] == "fwd":
            result.append(known[c[1]])
        else:
            result.append(by_pos[c[1]])
    return result


# --- batching ----------------------------------------------------------------------
def _batch_program(ir: IR, dims: tuple[int | None, ...], size: int
                   ) -> tuple[IR, tuple[int | None, ...]]:
    key = ("vmap", dims, size)
    hit: tuple[IR, tuple[int | None, ...]] | None = ir.cache.get(key)
    if hit is not None:
        return hit
    out_dims: list[int | None] = []

    def f(*args: Any) -> list[Any]:
        trace = BatchTrace(_ctx.trace, "vmap", size)
        ins = [a if d is None else BatchTracer(trace, a, d) for a, d in zip(args, dims)]
        try:
            with set_current_trace(trace):
                outs = eval_ir(ir, *ins)
        finally:
            trace.finish()
        res: list[Any] = []
        for o in outs:
            if type(o) is BatchTracer and o._trace is trace:
                res.append(o.val)
                out_dims.append(o.bdim)
            else:
                res.append(o)
                out_dims.append(None)
        return res

    avals: list[ShapedArray] = []
    for a, d in zip(ir.in_avals, dims):
        if d is None:
            avals.append(a)
        else:
            avals.append(ShapedArray(a.shape[:d] + (size,) + a.shape[d:], a.dtype))
    prog = _stage_closed(f, avals, "vmap")
    hit = ir.cache[key] = (prog, tuple(out_dims))
    return hit


@jit_p.def_batch
def _jit_batch(vals: Sequence[Any], dims: Sequence[int | None], *, ir: IR, name: str
               ) -> tuple[Any, list[int | None]]:
    size = next(v.shape[d] for v, d in zip(vals, dims) if d is not None)
    prog, out_dims = _batch_program(ir, tuple(dims), size)
    outs = jit_p.bind(*vals, ir=prog, name=f"vmap({name})")
    return outs, list(out_dims)
