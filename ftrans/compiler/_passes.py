"""The compiler's passes over a program, each a function ``IR -> IR`` (or a plan), run in
this order by :func:`prepare`:

1. :func:`inline` -- splice the equations of nested calls into the program: ``jit``
   (its ``ir``), ``custom_jvp_call`` / ``custom_vjp_call`` (the primal function; their
   derivative rules were used when the program was differentiated, so what remains to
   compute is the primal) and ``checkpoint`` (its function: recomputation was staged
   when the program was differentiated).  A primitive asks for it with the lowering
   entry ``{"kind": "inline", "param": <the param holding an IR or a function>}``.
   Inlined equations then fuse with their surroundings instead of graph-breaking.
2. :func:`ftrans.core.ir.dce` -- drop equations no output depends on (effectful ones
   stay).
3. :func:`ftrans.compiler._plan.plan` -- fusion planning: segments a backend compiles
   and the graph breaks between them.

Nested programs of control flow (``scan`` bodies, ``while`` conditions and bodies,
``cond`` branches) are *regions*: the backend prepares each with :func:`prepare`
(keeping every input: the function's signature) and compiles it into its own function
when all its equations lower.
"""
from __future__ import annotations

from typing import Any

from ..core import ShapedArray
from ..core.ir import IR, Var, Eqn, dce, stage

__all__ = ["inline", "inline_jit", "prepare"]


def _inline_program(e: Eqn) -> IR | None:
    """The program an ``inline`` equation calls (None: keep the equation)."""
    low = e.prim.lowering
    if low is None or low.get("kind") != "inline":
        return None
    target = e.params.get(low["param"])
    if isinstance(target, IR):
        return target
    if not callable(target):
        return None
    try:
        avals = [ShapedArray(a.aval.shape, a.aval.dtype, weak_type=a.aval.weak_type)
                 for a in e.inputs]
        ir, lifted = stage(target, avals, name=e.prim.name)
    except Exception:  # the function cannot be staged again here: keep the call
        return None
    if lifted or len(ir.out_vars) != len(e.outputs) or any(
            (v.aval.shape, v.aval.dtype) != (o.aval.shape, o.aval.dtype)
            for v, o in zip(ir.out_vars, e.outputs)):
        return None
    return ir


def inline(ir: IR) -> IR:
    """Splice the equations of nested calls (``jit``, ``custom_jvp_call``,
    ``custom_vjp_call``, ``checkpoint``: lowering kind ``"inline"``) into ``ir``,
    recursively.

    Parameters
    ----------
    ir : IR
        The program.

    Returns
    -------
    IR
        The program without such equations (``ir`` itself when it has none); inlined
        equations get fresh variables.
    """
    inner_of = {id(e): _inline_program(e) for e in ir.eqns}
    if not any(p is not None for p in inner_of.values()):
        return ir
    eqns: list[Eqn] = []
    const_vars, consts = list(ir.const_vars), list(ir.consts)
    seen = set(const_vars)
    subst: dict[Var, Any] = {}

    def sub(a: Any) -> Any:
        return subst.get(a, a) if type(a) is Var else a

    for e in ir.eqns:
        inner = inner_of[id(e)]
        if inner is None:
            eqns.append(Eqn(e.prim, [sub(a) for a in e.inputs], e.params, e.outputs)
                        if any(type(a) is Var and a in subst for a in e.inputs) else e)
            continue
        inner = inline(inner)
        env = dict(zip(inner.in_vars, [sub(a) for a in e.inputs]))
        for v, c in zip(inner.const_vars, inner.consts):
            if v not in seen:
                seen.add(v)
                const_vars.append(v)
                consts.append(c)
        for ie in inner.eqns:
            outs = [Var(o.aval) for o in ie.outputs]  # fresh: a program may be inlined twice
            eqns.append(Eqn(ie.prim, [env.get(a, a) if type(a) is Var else a
                                      for a in ie.inputs], ie.params, outs))
            env.update(zip(ie.outputs, outs))
        for o, io in zip(e.outputs, inner.out_vars):
            subst[o] = env.get(io, io) if type(io) is Var else io
    return IR(ir.in_vars, const_vars, consts, eqns, [sub(v) for v in ir.out_vars])


#: the name the public API has had
inline_jit = inline


def prepare(ir: IR) -> IR:
    """The program a backend plans: nested calls inlined, dead equations dropped.

    Parameters
    ----------
    ir : IR
        The program.

    Returns
    -------
    IR
        The prepared program (cached on ``ir``).
    """
    out = ir.cache.get("prepared")
    if out is None:
        out = ir.cache["prepared"] = dce(inline(ir))
    return out
