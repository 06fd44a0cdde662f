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

from ._numba_dtypes import _tuple

__all__ = ["collapse", "defined"]

_SUBSCRIPT = re.compile(r"\b([a-z]\d+)\[([^\[\]]*)\]")
_INDEX = re.compile(r"\bi(\d+)\b")
_STORE = re.compile(r"\s*([a-z]\d+)\[[^\[\]]*\] *[-+*]?= ")


def _merged(line: str, tail: list[str], views: dict[tuple[str, int], str],
            defs: list[str], fresh: Callable[[], str]) -> str:
    """``line`` with each subscript ending in the indices ``tail`` read through a view
    with those axes merged (defined in ``defs`` on first use, named in ``views``), its
    merged index written ``@``."""
    def sub(m: re.Match[str]) -> str:
        idx = [s.strip() for s in m.group(2).split(",")]
        p = len(idx) - len(tail)
        if p < 0 or idx[p:] != tail:
            return m.group(0)
        x = m.group(1)
        name = views.get((x, p))
        if name is None:
            name = views[(x, p)] = fresh()
            dims = [f"{x}.shape[{d}]" for d in range(p)]
            dims.append(" * ".join(f"{x}.shape[{d}]" for d in range(p, len(idx))))
            defs.append(f"{name} = np.ascontiguousarray({x}).reshape({_tuple(dims)})")
        return f"{name}[{''.join(s + ', ' for s in idx[:p])}@]"
    return _SUBSCRIPT.sub(sub, line)


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
    if nd - first < 2:
        return None
    every = lines + [ln for a, b in hoist.values() for ln in a + b]
    if any(m.group(1) not in local for ln in every for m in [_STORE.match(ln)] if m):
        return None
    for c in range(first, nd - 1):
        if any(k >= c for k in hoist):
            continue
        tail = [f"i{k}" for k in range(c, nd)]
        views: dict[tuple[str, int], str] = {}
        defs: list[str] = []
        new = [_merged(ln, tail, views, defs, fresh) for ln in every]
        if views and not any(int(k) >= c for ln in new for k in _INDEX.findall(ln)):
            it = iter(ln.replace("@]", f"i{c}]") for ln in new)  # (in ``every``'s order)
            body = [next(it) for _ in lines]
            return c, body, {k: ([next(it) for _ in a], [next(it) for _ in b])
                             for k, (a, b) in hoist.items()}, defs
    return None


def defined(text: str) -> list[str]:
    """Names a block of statements assigns (``x = ``, ``a, b, = ``, ``for k in``), in
    order."""
    out = []
    for m in re.finditer(r"^\s*(?:for (\w+) in |([\w, ]+?) = )", text, re.M):
        out.extend([m.group(1)] if m.group(1) else
                   [n.strip() for n in m.group(2).split(",") if n.strip()])
    return out
