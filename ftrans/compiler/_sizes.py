"""Size classes: which axes of a segment's values have equal sizes *by structure*.

The generated code names a size by its class, not by its value (``_Codegen.dim``), so its
text -- and with it the compiled module the disk cache keys on that text -- does not
change when two unrelated sizes happen to be equal.  Without classes, ``x (k, 16) @ w (16,
16)`` generated one text for every ``k`` except ``k = 16``, where the batch and hidden
sizes shared one parameter, and that one call compiled the whole program again.

The classes are computed by union-find over ``(var, axis)`` pairs (sizes 0 and 1 are
structure and stay literals): an equation joins the axes its shape rule makes equal,

* elementwise: each non-broadcast operand axis with the output's axis it aligns with
  (NumPy's broadcasting: trailing axes aligned);
* ``reduce``: each kept operand axis with its output axis;
* ``dot_general``: contracting axes pairwise, batch axes with each other and the output's
  leading axes, free axes with the output's following ones (``lax.dot_general``'s
  output layout);
* ``transpose``: output axis ``d`` with operand axis ``perm[d]``;
* ``broadcast_to``: as elementwise; reshapes that only insert or remove size-1 axes: the
  other axes in order; ``concatenate``: every axis but the joined one;
* every other kind: no link (its outputs' axes are classes of their own; a later
  elementwise equation joins them to what they meet).

A link is made only between axes of equal size in the traced shapes, so a class never
holds two different sizes: a missing link costs a parameter, never a wrong size.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, Tuple

from ..core.ir import Var

Axis = Tuple[Var, int]


def _aligned(x: Any, o: Any) -> Iterator[Tuple[Axis, Axis]]:
    """Broadcasting's links: ``x``'s non-1 axes with ``o``'s trailing-aligned ones."""
    t, s = x.aval.shape, o.aval.shape
    lead = len(s) - len(t)
    for j in range(len(t)):
        if lead + j >= 0:
            yield (x, j), (o, lead + j)


def _elementwise(e: Any) -> Iterator[Tuple[Axis, Axis]]:
    for x in e.inputs:
        yield from _aligned(x, e.outputs[0])


def _reduce(e: Any) -> Iterator[Tuple[Axis, Axis]]:
    x, o = e.inputs[0], e.outputs[0]
    kept = [d for d in range(len(x.aval.shape)) if d not in tuple(e.params["axes"])]
    if len(kept) == len(o.aval.shape):
        yield from (((x, d), (o, k)) for k, d in enumerate(kept))


def _dot_general(e: Any) -> Iterator[Tuple[Axis, Axis]]:
    lhs, rhs = e.inputs
    o = e.outputs[0]
    (lc, rc), (lb, rb) = e.params["dimension_numbers"]
    yield from (((lhs, a), (rhs, b)) for a, b in zip(lc, rc))
    yield from (((lhs, a), (o, k)) for k, a in enumerate(lb))
    yield from (((rhs, b), (o, k)) for k, b in enumerate(rb))
    lf = [d for d in range(len(lhs.aval.shape)) if d not in lc and d not in lb]
    rf = [d for d in range(len(rhs.aval.shape)) if d not in rc and d not in rb]
    yield from (((lhs, d), (o, len(lb) + k)) for k, d in enumerate(lf))
    yield from (((rhs, d), (o, len(lb) + len(lf) + k)) for k, d in enumerate(rf))


def _transpose(e: Any) -> Iterator[Tuple[Axis, Axis]]:
    x, o = e.inputs[0], e.outputs[0]
    yield from (((x, p), (o, d)) for d, p in enumerate(e.params["perm"]))


def _reshape(e: Any) -> Iterator[Tuple[Axis, Axis]]:
    x, o = e.inputs[0], e.outputs[0]
    t, s = x.aval.shape, o.aval.shape
    tn = [j for j, n in enumerate(t) if n != 1]
    sn = [j for j, n in enumerate(s) if n != 1]
    if [t[j] for j in tn] == [s[j] for j in sn]:  # (the emitter's view: see _Codegen)
        yield from (((x, a), (o, b)) for a, b in zip(tn, sn))


def _concatenate(e: Any) -> Iterator[Tuple[Axis, Axis]]:
    o = e.outputs[0]
    axis = e.params["axis"]
    for x in e.inputs:
        yield from (((x, d), (o, d)) for d in range(len(o.aval.shape)) if d != axis)


_LINKS: Dict[str, Callable[[Any], Iterator[Tuple[Axis, Axis]]]] = {
    "elementwise": _elementwise, "reduce": _reduce, "dot_general": _dot_general,
    "transpose": _transpose, "broadcast_to": _elementwise, "reshape": _reshape,
    "concatenate": _concatenate}


def size_classes(eqns: Any) -> Dict[Axis, Axis]:
    """``{(var, axis): root}`` for the axes of size other than 0 and 1 of the variables of
    ``eqns`` that the equations link (see the module docstring); ``root`` is one
    ``(var, axis)`` of the class, the same for every member.  An axis absent from the
    result is a class of its own."""
    parent: Dict[Axis, Axis] = {}

    def find(a: Axis) -> Axis:
        while parent.get(a, a) != a:
            parent[a] = parent.get(parent[a], parent[a])
            a = parent[a]
        return a

    for e in eqns:
        links = _LINKS.get(e.prim.lowering.get("kind"))
        if links is None:
            continue
        for a, b in links(e):
            if type(a[0]) is not Var or type(b[0]) is not Var:
                continue
            n = a[0].aval.shape[a[1]]
            if n in (0, 1) or n != b[0].aval.shape[b[1]]:
                continue  # broadcasting, or a rule's link the traced sizes do not bear out
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[rb] = ra
    return {a: find(a) for a in parent}
