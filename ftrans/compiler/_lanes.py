"""Interleaved sum accumulators in a fused loop's innermost loop (CPU code generation,
``_numba.py``).

A sum that accumulates into one scalar -- a full reduction's accumulator, or the register
a reduction over the trailing axes keeps its element in (``_numba.py``'s ``hoist``) --
makes the innermost loop one chain of dependent additions: each waits for the previous
one (4 cycles for a float64 add here), and without ``fastmath`` LLVM may not reorder
them.  The innermost loop therefore runs ``LANES`` iterations per step, each adding into
its own accumulator (the loop body written once per lane, the index set before it), then
the iterations left over into the first; after the loop the other lanes are added into
the first.  NumPy's own contiguous sums use 8 interleaved accumulators for the same
reason (``pairwise_sum`` in ``numpy/_core/src/umath/loops_utils.h.src``).

Measured (one thread, medians, one process; ``ftrans.jit`` end to end): ``sum(x * x)`` of
float32 ``x``, accumulated in float64, 30.7 -> 13.1 us for 2**15 elements and 220 -> 79 us
for 2**18 (a standalone numba loop over 2**20: 853 -> 285 us, NumPy's
``sum(dtype=float64)`` 325 us); the digits CNN's two ``compat.compile`` programs (their
BatchNorm-gradient sums run over 16 and 64 elements per (example, channel)) 386 -> 367 us
forward and 853-889 -> 823-830 us backward.

Only the order of the additions changes (lane ``j`` sums the elements ``j, j + LANES,
...`` of each run of the innermost loop), as it differs from NumPy's pairwise order
already; everything else the body computes, and the order in which it writes, is
unchanged.  One accumulator stays where the split does not pay or hurts: sums of
integers (a 1-cycle add), products, minima and maxima; bodies longer than ``MAX_BODY``
lines (a long body's own work hides the adds' latency, and numba compiles each lane's
copy: ``benchmarks/compile_time.py``'s ``jit(grad(f))`` compiled in a median 7.9 s
without lanes, 8.1 s with this bound and 8.3 s with 32, three runs each); the parallel
(``prange``) loop; and bodies with a conditional
(a ``where``, as a ReLU gradient's mask): there LLVM turned the lanes' selects into
branches, which mispredict on data without a pattern -- ``sum(where(m, x, 0))`` over 2**18
float32 with a random mask went 224 -> 734 us, and the CNN's backward program 0.86 -> 1.05
ms, before this rule.
"""
from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["interleave", "LANES", "MAX_BODY"]

_BRANCH = re.compile(r"\bif\b")

LANES = 4
MAX_BODY = 16


def interleave(lines: list[str], chains: list[tuple[str, str]], k: int, extent: str,
               fresh: Callable[[], str]) -> list[str] | None:
    """The innermost loop ``for i{k} in range({extent}):`` over the body ``lines`` with
    its sum accumulators ``chains`` (``(name, zero literal)``: ``name += ...`` in the
    body) split into ``LANES`` interleaved accumulators: the loop's lines (unindented, the
    body indented one level), or None when no chain is combined in ``lines``, the body is
    longer than ``MAX_BODY`` or holds a conditional (see the module docstring)."""
    if len(lines) > MAX_BODY or any(_BRANCH.search(ln) for ln in lines):
        return None
    used = [(a, z) for a, z in chains
            if any(re.match(rf"\s*{a} \+= ", ln) for ln in lines)]
    if not used:
        return None
    pats = [re.compile(rf"\b{a}\b") for a, _ in used]
    i, o = f"i{k}", fresh()
    lanes = [[fresh() for _ in used] for _ in range(LANES - 1)]
    out = [f"{u} = {z}" for names in lanes for u, (_, z) in zip(names, used)]
    out.append(f"for {o} in range(({extent}) // {LANES}):")
    for j in range(LANES):
        out.append(f"    {i} = {o} * {LANES}" + (f" + {j}" if j else ""))
        body = lines
        for pat, u in zip(pats, lanes[j - 1] if j else ()):
            body = [pat.sub(u, ln) for ln in body]
        out.extend("    " + ln for ln in body)
    out.append(f"for {i} in range(({extent}) // {LANES} * {LANES}, {extent}):")
    out.extend("    " + ln for ln in lines)
    for q, (a, _) in enumerate(used):
        out.append(f"{a} += " + " + ".join(names[q] for names in lanes))
    return out
