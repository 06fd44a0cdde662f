"""Convolutions and windowed reductions in the generated numba code: ``conv_general_dilated``
(kind ``"conv"``) and ``reduce_window_sum``/``_max``/``_argmax`` (kind ``"reduce_window"``)
lower to loops inside the segment's function (no graph break).

The convolution is the impl's im2col + GEMM (:mod:`ftrans.primitives.conv`), one pass per
group: a gather loop fills the ``(N * P, C/G * K)`` matrix of the windows (``P`` output
positions, ``K`` window taps), reading through the padding (zeros) and both dilations by
index arithmetic (no padded or dilated copy), ``np.dot`` multiplies it by the group's
``(C/G * K, O/G)`` kernel matrix (BLAS), and a loop scatters the product into the
``(N, O, *out)`` result.  Every parameter of the primitive lowers (strides, padding --
negative: cropping --, ``lhs_dilation``, ``rhs_dilation``, ``feature_group_count``;
``dimension_numbers`` are transposes around the primitive); operands are converted to the
result dtype first, as the impl does.

The windowed reductions loop over the output positions and, inside, over the window taps in
row-major order; a tap at the position ``q = o * stride + t * window_dilation - lo`` of the
dilated, padded axis reads ``x[q // base_dilation]`` when ``0 <= q < dilated length`` and
``q`` is a multiple of the base dilation, and is padding otherwise (skipped: zero for the
sum, ``-inf``/the integer minimum for the max).  The semantics are the impls'
(:mod:`ftrans.primitives.window`): the max propagates NaN; float32 sums accumulate in
float64 as the pooling kernels do (:mod:`ftrans.kernels.window_cpu`), integer sums wrap in
their dtype; ``reduce_window_argmax`` follows the pooling kernels' conventions where the
impl calls them (:func:`~ftrans.kernels.window_cpu.plan_shape`: padding taps skipped, the
first in-range maximum, a NaN replaces the running maximum) and the impl's generic tap scan
elsewhere (padding taps take part with the lowest value, indices clipped into the array).

Graph breaks (the impl runs; always correct): an operand or result with a zero-size axis,
float16, integer or bool convolutions (numba's ``np.dot`` is float/complex only), bool
windowed reductions and complex windowed maxima.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..core.ir import Eqn, Var
from ..kernels.window_cpu import plan_shape

__all__ = ["RULES"]

_GEMM = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))


def _nonempty(eqn: Eqn) -> bool:
    return all(type(a) is Var and 0 not in a.aval.shape for a in (*eqn.inputs, *eqn.outputs))


class _Lines:
    """Statements with indentation: ``add`` at the current depth, ``open`` a block."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 0

    def add(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    def open(self, line: str) -> None:
        self.add(line)
        self.depth += 1

    def text(self) -> str:
        return "\n".join(self.lines)


def _tap(L: _Lines, q: str, base: str, t: str, step: int, size: str, lo: int, hi: int,
         dil: int) -> str | None:
    """Emit ``q = base + t * step - lo`` and return the source of "q is an element of the
    axis of ``size`` elements dilated by ``dil`` and padded by ``(lo, hi)``" (None:
    always, without padding or dilation)."""
    terms = [base] + ([f"{t} * {step}" if step != 1 else t] if t else [])
    expr = " + ".join(terms) + (f" - {lo}" if lo > 0 else f" + {-lo}" if lo < 0 else "")
    L.add(f"{q} = {expr}")
    if lo <= 0 and hi <= 0 and dil == 1:
        return None
    length = size if dil == 1 else f"({size} - 1) * {dil} + 1"
    cond = f"{q} >= 0 and {q} < {length}"
    if dil != 1:
        cond += f" and {q} % {dil} == 0"
    return cond


def _at(q: str, dil: int) -> str:
    return q if dil == 1 else f"{q} // {dil}"


# conv_general_dilated ------------------------------------------------------------------
def _conv_ok(eqn: Eqn, low: dict[str, Any], table: Any) -> bool:
    dts = [np.dtype(a.aval.dtype) for a in (*eqn.inputs, *eqn.outputs)]
    return all(d in _GEMM for d in dts) and _nonempty(eqn)


def _conv_emit(cg: Any, i: int, eqn: Eqn, low: dict[str, Any]) -> None:
    lhs, rhs = eqn.inputs
    o = eqn.outputs[0]
    p = eqn.params
    dt = np.dtype(o.aval.dtype)
    ty = cg.tyname(dt)
    nsp = len(lhs.aval.shape) - 2
    G = int(p["feature_group_count"])
    strides, pads = p["window_strides"], p["padding"]
    ld, rd = p["lhs_dilation"], p["rhs_dilation"]
    x, w = cg.array(lhs), cg.array(rhs)
    if np.dtype(lhs.aval.dtype) != dt:
        x = f"{x}.astype({ty})"
    if np.dtype(rhs.aval.dtype) != dt:
        w = f"{w}.astype({ty})"
    N, O, Cg = cg.dim(lhs, 0), cg.dim(rhs, 0), cg.dim(rhs, 1)
    P = f"({cg.prod_src(o, range(2, 2 + nsp))})"
    K = f"({cg.prod_src(rhs, range(2, 2 + nsp))})"
    Og = f"({O} // {G})" if G != 1 else O
    xs, cm, wm, y = cg.fresh("t"), cg.fresh("t"), cg.fresh("w"), cg.fresh("y")
    g, row, col, c, ch, res, wt = (cg.fresh("k"), cg.fresh("c"), cg.fresh("c"), cg.fresh("k"),
                                   cg.fresh("c"), cg.fresh("t"), cg.fresh("w"))
    n, oo, pp = cg.fresh("k"), cg.fresh("k"), cg.fresh("k")
    L = _Lines()
    L.add(f"{xs} = {x}")
    L.add(f"{wm} = {w}.reshape(({G}, {Og}, {Cg} * {K}))")
    L.add(f"{cm} = np.empty(({N} * {P}, {Cg} * {K}), {ty})")
    L.add(f"{y} = np.empty(({N}, {O}, {P}), {ty})")
    L.open(f"for {g} in range({G}):")
    L.add(f"{row} = 0")
    L.open(f"for {n} in range({N}):")
    ys = [cg.fresh("k") for _ in range(nsp)]
    for d in range(nsp):
        L.open(f"for {ys[d]} in range({cg.dim(o, 2 + d)}):")
    L.add(f"{col} = 0")
    L.open(f"for {c} in range({Cg}):")
    L.add(f"{ch} = {g} * {Cg} + {c}" if G != 1 else f"{ch} = {c}")
    conds, qs = [], []
    for d in range(nsp):
        t, q = cg.fresh("k"), cg.fresh("c")
        L.open(f"for {t} in range({cg.dim(rhs, 2 + d)}):")
        lo, hi = pads[d]
        cond = _tap(L, q, f"{ys[d]} * {strides[d]}" if strides[d] != 1 else ys[d], t,
                    rd[d], cg.dim(lhs, 2 + d), lo, hi, ld[d])
        if cond:
            conds.append(f"({cond})")
        qs.append(_at(q, ld[d]))
    idx = ", ".join([n, ch] + qs)
    if conds:
        L.open(f"if {' and '.join(conds)}:")
        L.add(f"{cm}[{row}, {col}] = {xs}[{idx}]")
        L.depth -= 1
        L.open("else:")
        L.add(f"{cm}[{row}, {col}] = 0")
        L.depth -= 1
    else:
        L.add(f"{cm}[{row}, {col}] = {xs}[{idx}]")
    L.add(f"{col} += 1")
    L.depth = 2 + nsp
    L.add(f"{row} += 1")
    L.depth = 1
    # a contiguous (C/G * K, O/G) kernel matrix (the impl's choice: BLAS with a transposed
    # thin matrix measured far slower)
    L.add(f"{wt} = np.ascontiguousarray({wm}[{g}].T)")
    L.add(f"{res} = np.dot({cm}, {wt})")
    L.open(f"for {n} in range({N}):")
    L.open(f"for {oo} in range({Og}):")
    L.open(f"for {pp} in range({P}):")
    L.add(f"{y}[{n}, {g} * {Og} + {oo}, {pp}] = {res}[{n} * {P} + {pp}, {oo}]" if G != 1
          else f"{y}[{n}, {oo}, {pp}] = {res}[{n} * {P} + {pp}, {oo}]")
    cg.emit(L.text())
    cg.define_reshaped(o, y)


# reduce_window_sum / max / argmax ------------------------------------------------------
def _window_ok(eqn: Eqn, low: dict[str, Any], table: Any) -> bool:
    dt = np.dtype(eqn.inputs[0].aval.dtype)
    if not _nonempty(eqn) or not eqn.inputs[0].aval.shape:
        return False
    if dt.kind in "iu":
        return True
    if dt.kind == "c":
        return low["op"] == "sum" and dt in _GEMM
    return dt in (np.dtype(np.float32), np.dtype(np.float64))


def _window_emit(cg: Any, i: int, eqn: Eqn, low: dict[str, Any]) -> None:
    xv, o = eqn.inputs[0], eqn.outputs[0]
    op = low["op"]
    p = eqn.params
    shape = tuple(xv.aval.shape)
    nd = len(shape)
    dt = np.dtype(xv.aval.dtype)
    win, strides, pads = p["window_dimensions"], p["window_strides"], p["padding"]
    wd = p["window_dilation"]
    bd = p.get("base_dilation", (1,) * nd)
    # argmax: the pooling kernels' conventions where the impl calls them
    kernel = op == "argmax" and plan_shape(shape, dt, win, strides, pads, wd) is not None
    ty = cg.tyname(dt)
    x = cg.array(xv)
    y = cg.fresh("y")
    acc, val, kf, fl = cg.fresh("w"), cg.fresh("w"), cg.fresh("c"), cg.fresh("c")
    L = _Lines()
    L.add(f"{y} = np.empty({cg.shape_src(o.aval.shape)}, {cg.tyname(o.aval.dtype)})")
    os_ = [cg.fresh("k") for _ in range(nd)]
    for d in range(nd):
        L.open(f"for {os_[d]} in range({cg.dim(o, d)}):")
    if op == "sum":
        accdt = np.dtype(np.float64) if dt == np.float32 else (
            np.dtype(np.complex128) if dt == np.complex64 else dt)
        L.add(f"{acc} = {cg.tyname(accdt)}(0)")
    else:
        low_v = "(-np.inf)" if dt.kind == "f" else f"{ty}({np.iinfo(dt).min})"
        L.add(f"{acc} = {low_v}")
        if op == "argmax":
            first = cg.fresh("c")
            L.add(f"{kf} = -1" if kernel else f"{first} = True")
    conds, qs = [], []
    strides_x = [int(np.prod(shape[d + 1:], dtype=np.int64)) for d in range(nd)]
    for d in range(nd):
        q = cg.fresh("c")
        base = f"{os_[d]} * {strides[d]}" if strides[d] != 1 else os_[d]
        if win[d] == 1 and pads[d][0] == 0 and pads[d][1] <= 0 and bd[d] == 1:
            L.add(f"{q} = {base}")  # a window of 1 at stride s: x[o * s]
        else:
            t = cg.fresh("k")
            L.open(f"for {t} in range({win[d]}):")  # a param: the text keeps it
            cond = _tap(L, q, base, t, wd[d], cg.dim(xv, d), pads[d][0], pads[d][1], bd[d])
            if cond:
                conds.append(f"({cond})")
        qs.append(q)
    inside = f"if {' and '.join(conds)}:" if conds else None
    read = f"{x}[{', '.join(_at(q, b) for q, b in zip(qs, bd))}]"
    if op == "argmax":
        # the flat index into x of the tap (the impl's index arithmetic)
        flat = " + ".join(f"{q} * {cg.size(s)}" if s != 1 else q
                          for q, s in zip(qs, strides_x))
    if op == "sum":
        if inside:
            L.open(inside)
        add = f"{acc} + {read}" if dt.kind != "c" or accdt == dt else \
            f"{acc} + {cg.tyname(accdt)}({read})"
        L.add(f"{acc} = {add}" if dt.kind in "fc" else f"{acc} = {ty}({add})")
    elif op == "max":
        if inside:
            L.open(inside)
        L.add(f"{val} = {read}")
        L.add(f"{acc} = {val} if ({val} > {acc} or {val} != {val}) else {acc}"
              if dt.kind == "f" else f"{acc} = max({acc}, {val})")
    elif kernel:
        if inside:
            L.open(inside)
        L.add(f"{val} = {read}")
        L.add(f"{fl} = {flat}")
        L.open(f"if {kf} < 0:")
        L.add(f"{kf} = {fl}")
        L.depth -= 1
        L.open(f"if {val} > {acc} or {val} != {val}:")
        L.add(f"{acc} = {val}")
        L.add(f"{kf} = {fl}")
    else:
        # the impl's tap scan: padding taps are values too (the lowest), the first tap
        # initializes, a later one replaces on > (or NaN)
        if inside:
            L.open(inside)
            L.add(f"{val} = {read}")
            L.depth -= 1
            L.open("else:")
            L.add(f"{val} = {low_v}")
            L.depth -= 1
        else:
            L.add(f"{val} = {read}")
        nan = f" or {val} != {val}" if dt.kind == "f" else ""
        L.open(f"if {first} or {val} > {acc}{nan}:")
        L.add(f"{first} = False")
        L.add(f"{acc} = {val}")
        L.add(f"{kf} = {flat}")
    L.depth = nd
    oidx = ", ".join(os_)
    if op == "argmax":
        if kernel:
            # no element in the window: the corner of its plane (plan_shape: the leading
            # axes have windows of 1)
            base = " + ".join(f"{qs[d]} * {cg.size(strides_x[d])}"
                              for d in range(nd - 2)) or "0"
            L.add(f"{y}[{oidx}] = {kf} if {kf} >= 0 else {base}")
        elif any(lo > 0 for lo, _ in pads):
            L.add(f"{y}[{oidx}] = min(max({kf}, 0), {cg.prod_src(xv, range(nd))} - 1)")
        else:
            L.add(f"{y}[{oidx}] = {kf}")
    elif op == "sum" and accdt != dt:
        L.add(f"{y}[{oidx}] = {ty}({acc})")
    else:
        L.add(f"{y}[{oidx}] = {acc}")
    cg.emit(L.text())
    cg.define(o, y)


RULES = {"conv": (_conv_ok, _conv_emit), "reduce_window": (_window_ok, _window_emit)}
