"""Control flow in the generated numba code: ``scan``, ``while`` and ``cond`` lower to a
loop or branches around calls of their nested programs' functions (regions, see
:meth:`ftrans.compiler._numba._Codegen.region`), inside the segment's function: no Python
per iteration.  ``while``: ``while True`` around the condition's and the body's functions;
``cond``: ``if``/``elif`` over the branches' functions, the index clamped as the impl
clamps it.  An equation whose nested programs do not all lower graph-breaks to its
impl (a Python loop over the compiled body)."""
from __future__ import annotations

from typing import Any

from ..core.ir import Eqn

__all__ = ["RULES"]


def _scan_ok(eqn: Eqn, low: dict[str, Any], table: Any) -> bool:
    return table.region_lowerable(eqn.params["body"])


def _scan_emit(cg: Any, i: int, eqn: Eqn, low: dict[str, Any]) -> None:
    p = eqn.params
    body, nc, nh, length = p["body"], p["n_consts"], p["n_carry"], p["length"]
    call = cg.region(body)
    ins = [cg.operand(a) for a in eqn.inputs]
    consts, carry, xs = ins[:nc], ins[nc:nc + nh], ins[nc + nh:]
    carry_names = [cg.fresh("c") for _ in carry]
    for c, src in zip(carry_names, carry):
        cg.emit(f"{c} = {src}")
    ys = []
    for o in eqn.outputs[nh:]:
        y = cg.fresh("y")
        cg.emit(f"{y} = _empty({cg.shape_of(o)}, {cg.tyname(o.aval.dtype)})")
        ys.append(y)
    it = cg.fresh("k")
    n = cg.size(length)
    cg.emit(f"for {it} in range({n}):")
    idx = f"{n} - 1 - {it}" if p["reverse"] else it
    res = cg.fresh("o")
    args = consts + carry_names + [f"{x}[{idx}]" for x in xs]
    cg.emit(f"    {res} = {call(args)}")
    for k, c in enumerate(carry_names):
        cg.emit(f"    {c} = {res}[{k}]")
    for k, (o, y) in enumerate(zip(eqn.outputs[nh:], ys)):
        r = f"{res}[{nh + k}]"
        # an array into a slice through _assign (its docstring says why)
        cg.emit(f"    _assign({y}[{idx}], {r})" if len(o.aval.shape) > 1
                else f"    {y}[{idx}] = {r}")
    for o, name in zip(eqn.outputs, carry_names + ys):
        cg.define(o, name)


def _while_ok(eqn: Eqn, low: dict[str, Any], table: Any) -> bool:
    return (table.region_lowerable(eqn.params["cond"])
            and table.region_lowerable(eqn.params["body"]))


def _while_emit(cg: Any, i: int, eqn: Eqn, low: dict[str, Any]) -> None:
    p = eqn.params
    nc, nb = p["n_cond"], p["n_body"]
    pred, step = cg.region(p["cond"]), cg.region(p["body"])
    ins = [cg.operand(a) for a in eqn.inputs]
    cc, bc, carry = ins[:nc], ins[nc:nc + nb], ins[nc + nb:]
    names = [cg.fresh("c") for _ in carry]
    for c, src in zip(names, carry):
        cg.emit(f"{c} = {src}")
    res = cg.fresh("o")
    cg.emit("while True:")
    cg.emit(f"    if not {pred(cc + names)}[0]:")
    cg.emit("        break")
    cg.emit(f"    {res} = {step(bc + names)}")
    for k, c in enumerate(names):
        cg.emit(f"    {c} = {res}[{k}]")
    for o, name in zip(eqn.outputs, names):
        cg.define(o, name)


def _cond_ok(eqn: Eqn, low: dict[str, Any], table: Any) -> bool:
    return all(table.region_lowerable(b) for b in eqn.params["branches"])


def _cond_emit(cg: Any, i: int, eqn: Eqn, low: dict[str, Any]) -> None:
    branches = eqn.params["branches"]
    calls = [cg.region(b) for b in branches]
    index, *args = [cg.operand(a) for a in eqn.inputs]
    k = cg.fresh("k")
    res = cg.fresh("o")
    outs = [cg.fresh("y") for _ in eqn.outputs]
    # the impl's clamp: an index below 0 takes the first branch, above n - 1 the last
    cg.emit(f"{k} = min(max(np.int64({index}), 0), {len(branches) - 1})")
    for b, call in enumerate(calls):
        cg.emit(f"{'if' if b == 0 else 'elif' if b < len(calls) - 1 else 'else'}"
                f"{f' {k} == {b}' if b < len(calls) - 1 else ''}:")
        cg.emit(f"    {res} = {call(args)}")
        for j, y in enumerate(outs):
            cg.emit(f"    {y} = {res}[{j}]")
    for o, y in zip(eqn.outputs, outs):
        cg.define(o, y)


RULES = {"scan": (_scan_ok, _scan_emit), "while": (_while_ok, _while_emit),
         "cond": (_cond_ok, _cond_emit)}
