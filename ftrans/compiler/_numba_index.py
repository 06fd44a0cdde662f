"""Scans, sorting and dynamic slices in the generated numba code: ``cumsum``,
``argmax``/``argmin``, ``argsort``, ``dynamic_slice`` and ``dynamic_update_slice`` lower to index loops inside the
segment's function (no graph break).  (``gather`` and ``scatter_add``:
:mod:`ftrans.compiler._numba_scatter`.)

An array operand is viewed as ``(pre, n, post)`` around the operated axis (C-contiguous, so
the reshape is free); each rule loops over ``pre`` and ``post`` and walks the axis.  The
semantics are the impls' (NumPy's): ``cumsum`` accumulates in the operand's dtype,
``argmax``/``argmin`` return the first occurrence of the extreme value or of the first NaN,
``argsort`` is stable (numba's ``np.argsort(kind="mergesort")``), the dynamic slices clamp
their starts so the window fits (as ``ftrans.primitives.dynamic_slice``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..core.ir import Eqn
from ._numba_dtypes import _dtype_ok

__all__ = ["RULES"]


def _real_ok(eqn: Eqn, low: dict[str, Any], table: Any) -> bool:
    x = eqn.inputs[0].aval
    return len(x.shape) > 0 and x.dtype.kind in "fiu" and _dtype_ok(x.dtype, False) \
        and (x.dtype.kind == "f" or x.dtype.itemsize >= 4)


def _split(cg: Any, x: Any, axis: int) -> tuple[str, str, str, str]:
    """``(name, pre, n, post)``: ``x`` reshaped C-contiguously to ``(pre, n, post)``."""
    nd = len(x.aval.shape)
    pre, n, post = (cg.prod_src(x, range(axis)), cg.dim(x, axis),
                    cg.prod_src(x, range(axis + 1, nd)))
    t = cg.fresh("t")
    cg.emit(f"{t} = {cg.array(x)}.reshape(({pre}, {n}, {post}))")
    return t, pre, n, post


# cumsum ------------------------------------------------------------------------------
def _cumsum_ok(eqn: Eqn, low: dict[str, Any], table: Any) -> bool:
    x = eqn.inputs[0].aval
    return len(x.shape) > 0 and (_real_ok(eqn, low, table) or (
        x.dtype.kind == "c" and _dtype_ok(x.dtype, True)))


def _cumsum_emit(cg: Any, i: int, eqn: Eqn, low: dict[str, Any]) -> None:
    x, o = eqn.inputs[0], eqn.outputs[0]
    t, pre, n, post = _split(cg, x, eqn.params["axis"])
    ty = cg.tyname(o.aval.dtype)
    y, c, k0, k1, k2 = cg.fresh("y"), cg.fresh("c"), cg.fresh("k"), cg.fresh("k"), cg.fresh("k")
    rng = f"range({n} - 1, -1, -1)" if eqn.params["reverse"] else f"range({n})"
    cg.emit(f"{y} = _empty(({pre}, {n}, {post}), {ty})\n"
            f"for {k0} in range({pre}):\n"
            f"    for {k2} in range({post}):\n"
            f"        {c} = {ty}(0)\n"
            f"        for {k1} in {rng}:\n"
            f"            {c} = {ty}({c} + {t}[{k0}, {k1}, {k2}])\n"
            f"            {y}[{k0}, {k1}, {k2}] = {c}")
    cg.define_reshaped(o, y)


# argmax / argmin ---------------------------------------------------------------------
def _arg_ok(eqn: Eqn, low: dict[str, Any], table: Any) -> bool:
    x = eqn.inputs[0].aval
    axis = eqn.params["axis"]
    n = int(np.prod(x.shape)) if axis is None else (x.shape[axis] if x.shape else 0)
    return _real_ok(eqn, low, table) and n > 0  # NumPy raises on an empty axis: the impl does


def _arg_emit(cg: Any, i: int, eqn: Eqn, low: dict[str, Any]) -> None:
    x, o = eqn.inputs[0], eqn.outputs[0]
    axis = eqn.params["axis"]
    if axis is None:
        t, pre, n, post = cg.fresh("t"), "1", cg.prod_src(x, range(len(x.aval.shape))), "1"
        cg.emit(f"{t} = {cg.array(x)}.reshape(({pre}, {n}, {post}))")
    else:
        t, pre, n, post = _split(cg, x, axis)
    cmp = ">" if low["which"] == "max" else "<"
    y, b, m, w, k0, k1, k2 = (cg.fresh("y"), cg.fresh("c"), cg.fresh("w"), cg.fresh("w"),
                              cg.fresh("k"), cg.fresh("k"), cg.fresh("k"))
    cg.emit(f"{y} = _empty(({pre}, {post}), np.int64)\n"
            f"for {k0} in range({pre}):\n"
            f"    for {k2} in range({post}):\n"
            f"        {b} = 0\n"
            f"        {m} = {t}[{k0}, 0, {k2}]\n"
            f"        if {m} == {m}:\n"  # not NaN: else the first NaN, index 0, wins
            f"            for {k1} in range(1, {n}):\n"
            f"                {w} = {t}[{k0}, {k1}, {k2}]\n"
            f"                if {w} != {w}:\n"
            f"                    {b} = {k1}\n"
            f"                    break\n"
            f"                if {w} {cmp} {m}:\n"
            f"                    {m} = {w}\n"
            f"                    {b} = {k1}\n"
            f"        {y}[{k0}, {k2}] = {b}")
    cg.define_reshaped(o, y)


# argsort -----------------------------------------------------------------------------
def _argsort_emit(cg: Any, i: int, eqn: Eqn, low: dict[str, Any]) -> None:
    x, o = eqn.inputs[0], eqn.outputs[0]
    t, pre, n, post = _split(cg, x, eqn.params["axis"] % len(x.aval.shape))
    y, w, k0, k2 = cg.fresh("y"), cg.fresh("w"), cg.fresh("k"), cg.fresh("k")
    cg.emit(f"{y} = _empty(({pre}, {n}, {post}), np.int64)\n"
            f"for {k0} in range({pre}):\n"
            f"    for {k2} in range({post}):\n"
            f"        {w} = np.ascontiguousarray({t}[{k0}, :, {k2}])\n"
            f"        _assign({y}[{k0}, :, {k2}], np.argsort({w}, kind='mergesort'))")
    cg.define_reshaped(o, y)


# dynamic_slice / dynamic_update_slice -------------------------------------------------
def _ds_ok(eqn: Eqn, low: dict[str, Any], table: Any) -> bool:
    x = eqn.inputs[0].aval
    return len(x.shape) > 0 and _dtype_ok(x.dtype, True) \
        and all(a.aval.dtype.kind in "iu" for a in eqn.inputs[low["n_arrays"]:]) \
        and all(a.aval.dtype == x.dtype for a in eqn.inputs[1:low["n_arrays"]])


def _window(cg: Any, eqn: Eqn, sizes: Any, n_arrays: int) -> str:
    """Source of the index tuple of the clamped window of ``sizes`` (emits the starts)."""
    x = eqn.inputs[0]
    idx = []
    for d, a in enumerate(eqn.inputs[n_arrays:]):
        s = cg.fresh("c")
        cg.emit(f"{s} = min(max(np.int64({cg.operand(a)}), 0), "
                f"{cg.dim(x, d)} - {cg.size(sizes[d])})")
        idx.append(f"{s}:{s} + {cg.size(sizes[d])}")
    return ", ".join(idx)


def _ds_emit(cg: Any, i: int, eqn: Eqn, low: dict[str, Any]) -> None:
    x, o = eqn.inputs[0], eqn.outputs[0]
    win = _window(cg, eqn, eqn.params["slice_sizes"], 1)
    y = cg.fresh("y")
    cg.emit(f"{y} = {cg.array(x)}[{win}].copy()")
    cg.define(o, y)


def _dus_emit(cg: Any, i: int, eqn: Eqn, low: dict[str, Any]) -> None:
    x, u, o = eqn.inputs[0], eqn.inputs[1], eqn.outputs[0]
    win = _window(cg, eqn, u.aval.shape, 2)
    y = cg.fresh("y")
    us = cg.operand(u)
    # an array into a slice through _assign (its docstring says why)
    cg.emit(f"{y} = {cg.array(x)}.copy()\n"
            + (f"_assign({y}[{win}], {us})" if u.aval.shape else f"{y}[{win}] = {us}"))
    cg.define(o, y)


RULES = {"cumsum": (_cumsum_ok, _cumsum_emit), "argminmax": (_arg_ok, _arg_emit),
         "argsort": (_real_ok, _argsort_emit), "dynamic_slice": (_ds_ok, _ds_emit),
         "dynamic_update_slice": (_ds_ok, _dus_emit)}
