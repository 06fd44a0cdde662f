"""Convolutions and windowed reductions in the generated numba code: ``conv_general_dilated``
(kind ``"conv"``) and ``reduce_window_sum``/``_max``/``_argmax`` (kind ``"reduce_window"``)
lower to loops inside the segment's function (no graph break).

Positions.  Along each spatial axis the position a window tap reads is
``q = o * stride + t * dilation - lo`` on the input dilated by the base (``lhs_``)
dilation and padded by ``(lo, hi)``: an element ``x[q // base_dilation]`` when
``0 <= q < dilated length`` and ``q`` is a multiple of the base dilation, padding (or a
hole) otherwise.  For the convolutions the emitter computes, per axis, the ``(out,
window)`` table of these element indices (-1: padding) in Python and passes it as a
constant array (``cg.constant``); the generated loops read ``table[o, t]`` and take every
size from the arrays' ``.shape``.  Their text therefore depends on ranks, dtypes, which
axes have padding and whether an operand needs a contiguous copy first -- not on sizes,
strides or dilations -- so the convolutions of a program and of its gradient share few
compiled functions (numba compile time), and a new shape reuses them.  The windowed
reductions compute ``q`` in the loop instead, with the window, strides, padding and
dilations written into the text as constants (sizes still come from ``.shape``): LLVM then
unrolls the short window loops and drops the table loads, and only the tests the
parameters need are emitted (``q >= 0`` with low padding, ``q < length`` with high
padding, ``q % base_dilation == 0`` with base dilation).  A 2x2 max-pool over
``(64, 16, 8, 8)`` float32 went 0.145 -> 0.029 ms (median of 300); a program's poolings
rarely differ in their parameters, so this adds few functions to compile.

The convolution is the impl's im2col + GEMM (:mod:`ftrans.primitives.conv`), one pass per
group, in the layout of :mod:`ftrans.kernels.nn_cpu`'s 2-d kernels: a gather loop fills
the ``(C/G * K, N * P)`` matrix of the windows (``K`` window taps, ``P`` output positions)
through the tables (no padded or dilated copy), ``_dot`` (the runtime's cached
``np.dot``) multiplies the group's ``(O/G, C/G * K)`` kernel matrix by it (BLAS), and a
loop copies the product into the
``(N, O, *out)`` result (nn_cpu's docstring has the measurements of that layout; a first
``(N * P, C/G * K)`` version, the strided-view path's, timed slower here on a loaded
machine, not conclusively).  Every parameter of the primitive lowers (strides, padding --
negative: cropping --, ``lhs_dilation``, ``rhs_dilation``, ``feature_group_count``;
``dimension_numbers`` are transposes around the primitive); operands are converted to the
result dtype first, as the impl does.

The windowed reductions loop over the output positions and, inside, over the window taps in
row-major order; padding taps are skipped (zero for the sum,
``-inf``/the integer minimum for the max).  The semantics are the impls'
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

from ..core import ShapedArray
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


def _positions(out: int, window: int, stride: int, dilation: int, lo: int) -> Any:
    """``q[o, t] = o * stride + t * dilation - lo``: the positions on the dilated, padded
    axis that the window taps read."""
    return (np.arange(out, dtype=np.int64)[:, None] * stride
            + np.arange(window, dtype=np.int64)[None, :] * dilation - lo)


def _table(cg: Any, q: Any, length: int, base_dilation: int) -> tuple[str, bool]:
    """``(name, padded)``: the constant ``(out, window)`` table of element indices of the
    positions ``q`` on an axis of ``length`` elements dilated by ``base_dilation`` (-1:
    padding or a hole), and whether it holds a -1 (else the generated code tests
    nothing)."""
    real = (q >= 0) & (q < (length - 1) * base_dilation + 1) & (q % base_dilation == 0)
    return (_const(cg, np.where(real, q // base_dilation, -1).astype(np.int64)),
            not bool(real.all()))


def _const(cg: Any, value: Any) -> str:
    value = np.ascontiguousarray(value)
    return cg.constant(Var(ShapedArray(value.shape, value.dtype)), value)


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
    lshape, rshape, oshape = lhs.aval.shape, rhs.aval.shape, o.aval.shape
    nsp = len(lshape) - 2
    tabs, padded = zip(*[_table(cg, _positions(oshape[2 + d], rshape[2 + d],
                                               p["window_strides"][d], p["rhs_dilation"][d],
                                               p["padding"][d][0]),
                                lshape[2 + d], p["lhs_dilation"][d])
                         for d in range(nsp)]) if nsp else ((), ())
    x, w = cg.array(lhs), cg.array(rhs)
    if np.dtype(lhs.aval.dtype) != dt:
        x = f"{x}.astype({ty})"
    if np.dtype(rhs.aval.dtype) != dt:
        w = f"{w}.astype({ty})"
    # sizes from the arrays (the text then serves every size and parameter: shared by every
    # convolution of this rank and dtype); the group count from the kernel's channels
    xs, ws, cm, wm, y, res = (cg.fresh("t"), cg.fresh("w"), cg.fresh("t"), cg.fresh("w"),
                              cg.fresh("y"), cg.fresh("t"))
    N, C, O, Cg, G, Og, P, K = (cg.fresh("c") for _ in range(8))
    g, row, col, c, ch = cg.fresh("k"), cg.fresh("c"), cg.fresh("c"), cg.fresh("k"), cg.fresh("c")
    n, oo, pp = cg.fresh("k"), cg.fresh("k"), cg.fresh("k")
    ys = [cg.fresh("k") for _ in range(nsp)]
    ks = [cg.fresh("k") for _ in range(nsp)]
    qs = [cg.fresh("c") for _ in range(nsp)]
    L = _Lines()
    L.add(f"{xs} = {x}")
    L.add(f"{ws} = {w}")
    L.add(f"{N}, {C}, {O}, {Cg} = {xs}.shape[0], {xs}.shape[1], {ws}.shape[0], {ws}.shape[1]")
    L.add(f"{G} = {C} // {Cg}")
    L.add(f"{Og} = {O} // {G}")
    L.add(f"{P} = " + " * ".join([f"{t}.shape[0]" for t in tabs] or ["1"]))
    L.add(f"{K} = " + " * ".join([f"{t}.shape[1]" for t in tabs] or ["1"]))
    L.add(f"{wm} = {ws}.reshape(({G}, {Og}, {Cg} * {K}))")
    L.add(f"{cm} = _empty(({Cg} * {K}, {N} * {P}), {ty})")
    L.add(f"{y} = _empty(({N}, {O}, {P}), {ty})")
    L.open(f"for {g} in range({G}):")
    # im2col (transposed, as ftrans.kernels.nn_cpu's): row c * K + k (channel, window
    # tap), column n * P + p (output position): the inner loop walks an output row
    L.add(f"{row} = 0")
    L.open(f"for {c} in range({Cg}):")
    L.add(f"{ch} = {g} * {Cg} + {c}")
    for d in range(nsp):
        L.open(f"for {ks[d]} in range({tabs[d]}.shape[1]):")
    L.add(f"{col} = 0")
    L.open(f"for {n} in range({N}):")
    for d in range(nsp):
        L.open(f"for {ys[d]} in range({tabs[d]}.shape[0]):")
        L.add(f"{qs[d]} = {tabs[d]}[{ys[d]}, {ks[d]}]")
        if padded[d] and d < nsp - 1:
            # an outer position in the padding: its whole block of columns is zero
            L.open(f"if {qs[d]} < 0:")
            inner = " * ".join(f"{t}.shape[0]" for t in tabs[d + 1:])
            L.add(f"{cm}[{row}, {col}:{col} + {inner}] = 0")
            L.add(f"{col} += {inner}")
            L.add("continue")
            L.depth -= 1
    idx = ", ".join([n, ch] + qs)
    conds = [f"{qs[-1]} >= 0"] if nsp and padded[-1] else []
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
    # (O/G, C/G * K) @ (C/G * K, N * P): both C-contiguous (the group's kernel rows are)
    L.add(f"{res} = _dot({wm}[{g}], {cm})")
    L.open(f"for {n} in range({N}):")
    L.open(f"for {oo} in range({Og}):")
    L.open(f"for {pp} in range({P}):")
    L.add(f"{y}[{n}, {g} * {Og} + {oo}, {pp}] = {res}[{oo}, {n} * {P} + {pp}]")
    L.depth = 0
    z = cg.fresh("z")
    L.add(f"{z} = {y}.reshape(({N}, {O}, " + "".join(f"{t}.shape[0], " for t in tabs) + "))")
    cg.emit(L.text())
    cg.define(o, z)


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


def _pos(o: str, s: int, t: str | None, wd: int, lo: int) -> str:
    """The text of ``o * s + t * wd - lo`` with its unit factors and zero terms left out."""
    terms = [o if s == 1 else f"{o} * {s}"]
    if t is not None:
        terms.append(t if wd == 1 else f"{t} * {wd}")
    if lo:
        terms.append(f"{-lo}")
    return " + ".join(terms).replace("+ -", "- ")


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
    # argmax: the pooling kernels' conventions where the impl calls them, else the impl's
    # generic tap scan (padding taps are values, the lowest; the index of the position)
    kernel = op == "argmax" and plan_shape(shape, dt, win, strides, pads, wd) is not None
    generic = op == "argmax" and not kernel
    ty = cg.tyname(dt)
    x = cg.array(xv)
    y = cg.fresh("y")
    acc, val, kf, first, fl = (cg.fresh("w"), cg.fresh("w"), cg.fresh("c"), cg.fresh("c"),
                               cg.fresh("c"))
    os_ = [cg.fresh("k") for _ in range(nd)]
    ts = [cg.fresh("k") if win[d] != 1 else None for d in range(nd)]
    qs = [cg.fresh("c") for _ in range(nd)]
    outs = [cg.fresh("c") for _ in range(nd)]
    L = _Lines()
    # x's strides in elements (from its shape: the text serves every size)
    xstr = [cg.fresh("c") if d < nd - 1 else "" for d in range(nd)]
    if op == "argmax":
        for d in range(nd - 2, -1, -1):
            nxt = f" * {xstr[d + 1]}" if xstr[d + 1] else ""
            L.add(f"{xstr[d]} = {x}.shape[{d + 1}]{nxt}")
    # per axis: the dilated length, the output length (the abstract eval's formula), and
    # the tests a tap's position needs (statically: below 0 only with low padding, past
    # the end only with high padding, a hole only with base dilation)
    checks: list[list[str]] = []
    for d in range(nd):
        n = f"{x}.shape[{d}]"
        dl = n if bd[d] == 1 else f"(({n} - 1) * {bd[d]} + 1)"
        lo, hi = pads[d]
        span = lo + hi - (win[d] - 1) * wd[d] - 1
        tail = f" + {span}" if span > 0 else f" - {-span}" if span else ""
        L.add(f"{outs[d]} = " + (dl if span == -1 else f"{dl}{tail} + 1") if strides[d] == 1
              else f"{outs[d]} = ({dl}{tail}) // {strides[d]} + 1")
        c = [f"{qs[d]} >= 0"] if lo > 0 else []
        c += [f"{qs[d]} < {dl}"] if hi > 0 else []
        c += [f"{qs[d]} % {bd[d]} == 0"] if bd[d] != 1 else []
        checks.append(c)
    L.add(f"{y} = _empty((" + "".join(f"{c}, " for c in outs)
          + f"), {cg.tyname(o.aval.dtype)})")
    for d in range(nd):
        L.open(f"for {os_[d]} in range({outs[d]}):")
    accdt = dt
    low_v = f"{ty}(-np.inf)" if dt.kind == "f" else f"{ty}({np.iinfo(dt).min})" \
        if dt.kind in "iu" else ""
    if op == "sum":
        accdt = np.dtype(np.float64) if dt == np.float32 else (
            np.dtype(np.complex128) if dt == np.complex64 else dt)
        L.add(f"{acc} = {cg.tyname(accdt)}(0)")
    else:
        L.add(f"{acc} = {low_v}")
        if op == "argmax":
            L.add(f"{kf} = -1" if kernel else f"{first} = True")
    # the taps in row-major window order; the window and its parameters are constants of
    # the text (LLVM unrolls the short window loops), sizes come from the arrays; axes
    # with a window of 1 (a pooling's batch and channel axes) first, outside the others
    skip = []
    for d in sorted(range(nd), key=lambda d: win[d] != 1):
        if ts[d] is not None:
            L.open(f"for {ts[d]} in range({win[d]}):")
        L.add(f"{qs[d]} = {_pos(os_[d], strides[d], ts[d], wd[d], pads[d][0])}")
        if checks[d] and not generic:    # a padding tap or a hole: skipped
            L.open(f"if {' and '.join(checks[d])}:")
        elif checks[d]:
            skip += checks[d]
    # the element a tap reads, and its flat index into x (the impl's arithmetic: raw
    # positions in the generic scan, which may lie in the padding)
    idx = [q if b == 1 else f"{q} // {b}" for q, b in zip(qs, bd)]
    read = f"{x}[{', '.join(idx)}]"
    flat = " + ".join(q + (f" * {s}" if s else "") for q, s in zip(qs, xstr))
    if skip:
        read = f"{read} if {' and '.join(skip)} else {low_v}"
    if op == "sum":
        add = f"{acc} + {read}" if accdt == dt or dt.kind != "c" else \
            f"{acc} + {cg.tyname(accdt)}({read})"
        L.add(f"{acc} = {add}" if dt.kind in "fc" else f"{acc} = {ty}({add})")
    elif op == "max":
        L.add(f"{val} = {read}")
        L.add(f"{acc} = {val} if ({val} > {acc} or {val} != {val}) else {acc}"
              if dt.kind == "f" else f"{acc} = max({acc}, {val})")
    elif kernel:
        L.add(f"{val} = {read}")
        L.add(f"{fl} = {flat}")
        L.add(f"{kf} = {fl} if {kf} < 0 else {kf}")
        # `if val > acc or val != val: acc, kf = val, fl` without a branch on the data (a
        # mispredicted branch per tap: 0.33 -> 0.2 ms for a 2x2 pool over (64, 16, 8, 8));
        # Python's max keeps acc on ties and a NaN acc, as the comparison does
        L.add(f"{kf} += ({fl} - {kf}) * (({val} > {acc}) | ({val} != {val}))")
        L.add(f"{acc} = max({acc}, {val}) if {val} == {val} else {val}")
    else:
        L.add(f"{val} = {read}")
        nan = f" or {val} != {val}" if dt.kind == "f" else ""
        L.open(f"if {first} or {val} > {acc}{nan}:")
        L.add(f"{first} = False")
        L.add(f"{acc} = {val}")
        L.add(f"{kf} = {flat}")
    L.depth = nd
    oidx = ", ".join(os_)
    if kernel:
        # no element in the window: the corner of its plane (plan_shape: the leading axes
        # have windows of 1, stride 1, no padding)
        base = " + ".join(f"{os_[d]} * {xstr[d]}" for d in range(nd - 2)) or "0"
        L.add(f"{y}[{oidx}] = {kf} if {kf} >= 0 else {base}")
    elif generic and any(lo > 0 for lo, _ in pads):
        L.add(f"{y}[{oidx}] = min(max({kf}, 0), {x}.size - 1)")
    elif generic:
        L.add(f"{y}[{oidx}] = {kf}")
    else:
        L.add(f"{y}[{oidx}] = {acc}" if accdt == dt else f"{y}[{oidx}] = {ty}({acc})")
    cg.emit(L.text())
    cg.define(o, y)


RULES = {"conv": (_conv_ok, _conv_emit), "reduce_window": (_window_ok, _window_emit)}
