"""Outputs that share memory with a program's constants (copied before they are handed out).

A compiled program keeps its constants -- the arrays the staged function closed over,
snapshotted at staging time -- for all its calls.  An output that is one of them, or a
view of one, would be the same buffer in every call's result: mutating one result would
change the program and the next results.  Each backend's ``run`` therefore passes its
outputs through :func:`unshare`, with the positions :func:`const_aliases` found when the
program was compiled.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..core.ir import IR, Eqn, Var

__all__ = ["const_aliases", "unshare"]


def const_aliases(ir: IR, fresh: Callable[[Eqn], bool] | None = None
                  ) -> list[tuple[int, bool, tuple[Var, ...]]]:
    """The outputs of ``ir`` that may share memory with one of its constants.

    A program keeps its constants (the arrays it closed over) for all its calls, so an
    output that *is* a constant, or a view of one (a transpose, a slice, an impl that
    returns its operand), must be copied before it is handed out: every call returns
    fresh arrays (see :func:`unshare`).

    Parameters
    ----------
    ir : IR
    fresh : callable, optional
        ``fresh(eqn) -> bool``: the backend always writes that equation's outputs to new
        memory (the numba backend's fused loops, BLAS products, concatenations), so they
        alias nothing.  Default: no equation is known to (an impl may return its operand
        or a view of it).

    Returns
    -------
    list of (int, bool, tuple of Var)
        ``(position, is_constant, constants it may be a view of)`` per such output (the
        check at run time is then a bounds comparison, :func:`numpy.may_share_memory`).
    """
    if not ir.const_vars:
        return []
    reach: dict[Var, tuple[Var, ...]] = {v: (v,) for v in ir.const_vars}
    for e in ir.eqns:
        srcs = [reach[a] for a in e.inputs if type(a) is Var and a in reach]
        # (``fresh`` asked only here: most equations read no constant, 2 of the 22 ms of
        # a new shape of benchmarks/compile_time.py's jit(grad(f)) went to asking it)
        if srcs and not (fresh is not None and fresh(e)):
            r = srcs[0] if len(srcs) == 1 else tuple(dict.fromkeys(c for s in srcs for c in s))
            for o in e.outputs:
                reach[o] = r
    const_set = set(ir.const_vars)
    return [(k, v in const_set, reach[v]) for k, v in enumerate(ir.out_vars)
            if type(v) is Var and v in reach]


def _may_share_numpy(a, b):
    return type(a) is np.ndarray and type(b) is np.ndarray and np.may_share_memory(a, b)


def unshare(outs, aliases, consts, may_share=_may_share_numpy):
    """``outs`` with the outputs listed by :func:`const_aliases` that share memory with a
    constant (``consts``: const var -> the value the program runs with) replaced by
    copies (``.copy()``).  Scalars are immutable and left alone.  ``may_share(a, b)``:
    the backend's bounds test (NumPy's by default; the GPU backend passes CuPy's);
    an output that *is* a constant is copied whatever its type."""
    for k, direct, cvars in aliases:
        o = outs[k]
        if isinstance(o, (np.generic, bool, int, float, complex)) or not hasattr(o, "copy"):
            continue
        if direct or any(may_share(o, consts[c]) for c in cvars):
            outs[k] = o.copy()
    return outs
