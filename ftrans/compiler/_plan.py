"""Segmentation: which equations run in compiled code, which graph-break.

``plan(ir, lowerable)`` orders the equations of a program into *steps*: a ``Segment`` (a
list of equations the backend compiles into one function) or a single equation run by
its primitive's ``impl`` (a graph break).  Equations are pure, so any topological order
computes the same values; the planner picks one with few segments: it repeatedly takes
every lowerable equation whose inputs are ready (one segment), then every graph-breaking
equation whose inputs are ready, and so on.  A program with a break in the middle thus
becomes ``segment, break(s), segment`` however its equations were interleaved.
"""
from __future__ import annotations

from ..core.ir import Var

__all__ = ["Segment", "plan"]


class Segment:
    """Equations compiled together: ``inputs`` (read, produced elsewhere) and ``outputs``
    (produced here, read by later steps or returned by the program); ``fixed``: the values
    the backend's function takes after the inputs (sizes, literals)."""

    __slots__ = ("eqns", "inputs", "outputs", "fixed")

    def __init__(self, eqns, inputs, outputs):
        self.eqns = eqns
        self.inputs = inputs
        self.outputs = outputs
        self.fixed = []  # the compiled function's size and literal arguments


def plan(ir, lowerable):
    """Steps for ``ir``: a list of :class:`Segment` and ``Eqn`` (graph breaks).

    ``lowerable(eqn) -> bool`` says whether the backend can compile an equation.
    """
    eqns = ir.eqns
    prod = {}
    for i, e in enumerate(eqns):
        for o in e.outputs:
            prod[o] = i
    deps = [{prod[a] for a in e.inputs if type(a) is Var and a in prod} for e in eqns]
    low = [bool(lowerable(e)) for e in eqns]
    remaining = list(range(len(eqns)))
    done = set()
    groups = []
    while remaining:
        for want in (True, False):
            # an equation whose inputs are ready, or made earlier in this pass (``done``
            # grows as the pass takes equations: no set built per equation)
            taken = []
            for i in remaining:
                if low[i] is want and deps[i] <= done:
                    taken.append(i)
                    done.add(i)
            if taken:
                tset = set(taken)
                remaining = [i for i in remaining if i not in tset]
                if want:
                    groups.append([eqns[i] for i in taken])
                else:
                    groups.extend(eqns[i] for i in taken)
    # inputs/outputs of each segment
    used_after = [set() for _ in groups]
    live = {v for v in ir.out_vars if type(v) is Var}
    for k in range(len(groups) - 1, -1, -1):
        used_after[k] = set(live)
        g = groups[k]
        for e in (g if isinstance(g, list) else [g]):
            live.update(a for a in e.inputs if type(a) is Var)
    steps = []
    for k, g in enumerate(groups):
        if not isinstance(g, list):
            steps.append(g)
            continue
        made = set()
        ins, seen = [], set()
        for e in g:
            for a in e.inputs:
                if type(a) is Var and a not in made and a not in seen:
                    seen.add(a)
                    ins.append(a)
            made.update(e.outputs)
        outs = [v for e in g for v in e.outputs if v in used_after[k]]
        steps.append(Segment(g, ins, outs))
    return steps
