"""Control flow in the generated numba code: ``scan``, ``while`` and ``cond`` lower to a
loop or branches around calls of their nested programs' functions (regions, see
:meth:`ftrans.compiler._numba._Codegen.region`), inside the segment's function: no Python
per iteration.  An equation whose nested programs do not all lower graph-breaks to its
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
        cg.emit(f"{y} = np.empty({cg.shape_src(o.aval.shape)}, {cg.tyname(o.aval.dtype)})")
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
    for k, y in enumerate(ys):
        cg.emit(f"    {y}[{idx}] = {res}[{nh + k}]")
    for o, name in zip(eqn.outputs, carry_names + ys):
        cg.define(o, name)


RULES = {"scan": (_scan_ok, _scan_emit)}
