"""Loop-nest collapse of a flushed group (CPU code generation, ``_numba.py``).

A fused loop over ``(64, 16, 8, 8)`` runs its innermost loop 8 times per entry: too
short for LLVM's vectorized loop to pay (a CNN's ReLU ran 2.4x slower than over one axis
of 64).  When every array the loop body reads or writes is indexed by the trailing loop
indices ``i_c, ..., i_{nd-1}``, all of them and in that order (or by none of them: a
broadcast operand, invariant there), those axes are one axis of C order: the nest loops
over their product with one index, and each such array is read through a view of it with
the trailing axes merged (``np.ascontiguousarray(x).reshape(...)``: no copy for the
C-contiguous arrays the segments pass, written-to buffers included; a copy otherwise).
The values, and the order in which a reduction accumulates them, are unchanged.

Anything else mentioning a trailing index (a transposed read, an accumulator indexed by
one of those axes, an ``iota``) keeps that axis out of the collapse.
"""
from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["collapse"]

_SUBSCRIPT = re.compile(r"\b([a-z]\d+)\[([^\[\]]*)\]")
_INDEX = re.compile(r"\bi(\d+)\b")
_STORE = re.compile(r"\s*([a-z]\d+)\[[^\[\]]*\] *[-+*]?= ")


def collapse(lines: list[str], hoist: dict[int, tuple[list[str], list[str]]], nd: int,
             first: int, fresh: Callable[[], str], local: set[str]
             ) -> tuple[int, list[str], dict[int, tuple[list[str], list[str]]], list[str]] | None:
    """The loop body ``lines`` and ``hoist`` (depth -> (entering, leaving) lines) of a
    nest of ``nd`` loops ``i0 ... i{nd-1}`` rewritten to loop over the axes from ``c``
    on as one index ``i{c}``, for the smallest ``c >= first`` that allows it (at least two
    axes merged): ``(c, lines, hoist, views)``, ``views`` the statements defining the
    merged views (to run before the loops); ``None`` when no ``c`` does.  ``fresh()``
    names a view; ``local``: the arrays allocated for the loop, the only ones it may write
    (a merged view of another could be a copy)."""
    every = lines + [ln for a, b in hoist.values() for ln in a + b]
    if any(m.group(1) not in local for ln in every for m in [_STORE.match(ln)] if m):
        return None
    for c in range(first, nd - 1):
        if any(k >= c for k in hoist):
            continue
        tail = [f"i{k}" for k in range(c, nd)]
        views: dict[tuple[str, int], str] = {}
        defs: list[str] = []

        def merged(m: re.Match[str], tail: list[str] = tail,
                   views: dict[tuple[str, int], str] = views, defs: list[str] = defs) -> str:
            idx = [s.strip() for s in m.group(2).split(",")]
            if len(idx) < len(tail) or idx[len(idx) - len(tail):] != tail:
                return m.group(0)
            x, p = m.group(1), len(idx) - len(tail)
            name = views.get((x, p))
            if name is None:
                name = views[(x, p)] = fresh()
                dims = [f"{x}.shape[{d}]" for d in range(p)]
                dims.append(" * ".join(f"{x}.shape[{d}]" for d in range(p, len(idx))))
                defs.append(f"{name} = np.ascontiguousarray({x}).reshape("
                            f"({''.join(d + ', ' for d in dims)}))")
            return f"{name}[{''.join(s + ', ' for s in idx[:p])}@]"

        new = [_SUBSCRIPT.sub(merged, ln) for ln in lines]
        moved = {k: ([_SUBSCRIPT.sub(merged, ln) for ln in a],
                     [_SUBSCRIPT.sub(merged, ln) for ln in b]) for k, (a, b) in hoist.items()}
        rest = new + [ln for a, b in moved.values() for ln in a + b]
        if not views or any(int(k) >= c for ln in rest for k in _INDEX.findall(ln)):
            continue
        j = f"i{c}"
        return (c, [ln.replace("@]", j + "]") for ln in new],
                {k: ([ln.replace("@]", j + "]") for ln in a], [ln.replace("@]", j + "]")
                                                              for ln in b])
                 for k, (a, b) in moved.items()}, defs)
    return None
