"""Convolutions and windowed reductions in the generated numba code: ``conv_general_dilated``
(kind ``"conv"``), the im2col matrix and its transpose that its gradient is made of
(``conv_patches``/``conv_patches_transpose``, kind ``"patches"``: the convolution's gather
loop into a new matrix, and the same loop adding back into a new zero array) and
``reduce_window_sum``/``_max``/``_argmax`` (kind ``"reduce_window"``) lower to loops inside
the segment's function (no graph break).

Positions.  Along each spatial axis the position a window tap reads is
``q = o * stride + t * dilation - lo`` on the input dilated by the base (``lhs_``)
dilation and padded by ``(lo, hi)``: an element ``x[q // base_dilation]`` when
``0 <= q < dilated length`` and ``q`` is a multiple of the base dilation, padding (or a
hole) otherwise.  For the convolutions the emitter computes these element indices in
Python and passes them as constant arrays (``cg.constant``): per axis, the ``(out,
window)`` table read as ``table[o, t]`` by nested loops, or, for at most
``FLAT_MAX_POSITIONS`` output positions, one ``(taps, positions)`` table of flat offsets
read by one inner loop (:class:`_Taps`); the generated loops take every size from the
arrays' ``.shape``.  Their text therefore depends on ranks, dtypes, which axes have
padding, which of the two plans the output size picks and whether an operand needs a
contiguous copy first -- not on sizes, strides or dilations -- so the convolutions of a
program and of its gradient share few compiled functions (numba compile time), and a new
shape reuses them.  The windowed reductions compute ``q`` in the loop instead, with the
window, strides, padding and dilations written into the text as constants (sizes still
come from ``.shape``): LLVM then unrolls the short window loops and drops the table
loads, and only the tests the parameters need are emitted (``q >= 0`` with low padding,
``q < length`` with high padding, ``q % base_dilation == 0`` with base dilation).  A 2x2
max-pool over ``(64, 16, 8, 8)`` float32 went 0.145 -> 0.029 ms (median of 300); a
program's poolings rarely differ in their parameters, so this adds few functions to
compile.

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
float16, integer or bool convolutions (numba's ``np.dot`` is float/complex only), im2col
and col2im of bool or 8/16-bit dtypes, bool windowed reductions and complex windowed maxima.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core import ShapedArray
from ..core.ir import Eqn, Var
from ..kernels.nn_cpu import FLAT_MAX_POSITIONS   # one rule for eager and compiled loops
from ..kernels.window_cpu import plan_shape, tap_tables

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


def _const(cg: Any, value: Any) -> str:
    value = np.ascontiguousarray(value)
    return cg.constant(Var(ShapedArray(value.shape, value.dtype)), value)


class _Taps:
    """The taps of a window over the spatial axes and the loops that walk them.

    Two plans: per axis, the constant ``(out, window)`` table of the element each tap
    reads (-1: padding or a hole; :func:`~ftrans.kernels.window_cpu.tap_table`), walked
    by nested loops; or, when there are at most ``FLAT_MAX_POSITIONS`` output positions,
    one constant ``(K, P)`` table of flat offsets into the contiguous spatial block of one
    ``(example, channel)`` (-1 where any axis reads padding or a hole), walked by one
    inner loop of ``P`` steps over 1-d views.  On small images the nested loops spend
    their time in loop overhead (runs of a few elements): the im2col of the digits CNN's
    second convolution, ``(64, 16, 4, 4)`` float32 with a 3x3 window and padding 1, took
    125 us nested and 51 us flat, its col2im 131 and 72 us (8x8: 275/186 and 328/293 us);
    from 16x16 up the two gathers are within 1.2x and the nested scatter is faster (24x24:
    655 vs 737 us; medians of 400 calls of standalone numba functions, 2-core VM).
    ``padded`` (flat) and ``padded_axes`` (nested, per axis): whether a table holds a -1
    (else no test is emitted)."""

    def __init__(self, cg: Any, spatial: Any, window: Any, strides: Any, padding: Any,
                 base_dilation: Any, window_dilation: Any) -> None:
        out, tabs = tap_tables(spatial, window, strides, padding, base_dilation,
                               window_dilation)
        self.nsp = nsp = len(tabs)
        positions = math.prod(out)
        if positions <= FLAT_MAX_POSITIONS:
            # off[k_0.., p_0..] = sum_d table_d[p_d, k_d] * (row-major stride of axis d)
            off: np.ndarray = np.zeros((), np.int64)
            bad: np.ndarray = np.zeros((), bool)
            for d, t in enumerate(tabs):
                shape = [1] * (2 * nsp)
                shape[d], shape[nsp + d] = t.shape[1], t.shape[0]
                td = t.T.reshape(shape).astype(np.int64)
                off = off + td * math.prod(spatial[d + 1:])
                bad = bad | (td < 0)
            off = np.where(bad, -1, off).reshape(math.prod(window), positions)
            self.flat: str | None = _const(cg, off)
            self.tabs: list[str] = []
            self.padded = bool(bad.any())
            self.P, self.K = f"{self.flat}.shape[1]", f"{self.flat}.shape[0]"
            outs = _const(cg, np.array(out, np.int64))
            self.out_dims = [f"{outs}[{d}]" for d in range(nsp)]
        else:
            self.flat = None
            self.tabs = [_const(cg, t) for t in tabs]
            self.padded_axes = [bool((t < 0).any()) for t in tabs]
            self.P = " * ".join([f"{t}.shape[0]" for t in self.tabs] or ["1"])
            self.K = " * ".join([f"{t}.shape[1]" for t in self.tabs] or ["1"])
            self.out_dims = [f"{t}.shape[0]" for t in self.tabs]

    def walk(self, cg: Any, L: _Lines, mode: str, xs: str, cm: str, nch: str, base: str,
             N: str) -> None:
        """The loops of im2col (``mode`` "gather": ``cm[row, col] = xs[n, ch, q...]``,
        zero for padding) or col2im ("scatter": ``xs[n, ch, q...] += cm[row, col]``,
        padding entries dropped) over channels ``base + c`` (``c < nch``), the window taps
        and the output positions: row ``c * K + k`` (channel, tap), column ``n * P + p``
        (example, output position).  The flat plan needs ``xs`` C-contiguous (a new
        array, or a copy the caller makes)."""
        if self.flat is None:
            _walk(cg, L, mode, xs, cm, self.tabs, self.padded_axes, nch, base, N)
            return
        off = self.flat
        row, col, c, ch, n, k, p, q, r, o, pl, xf = (
            cg.fresh(s) for s in ("c", "c", "k", "c", "k", "k", "k", "c", "t", "t", "t", "t"))
        size = " * ".join(f"{xs}.shape[{2 + d}]" for d in range(self.nsp)) or "1"
        d0 = L.depth
        L.add(f"{xf} = {xs}.reshape(({xs}.shape[0], {xs}.shape[1], {size}))")
        L.add(f"{row} = 0")
        L.open(f"for {c} in range({nch}):")
        L.add(f"{ch} = {c}" if base == "0" else f"{ch} = {base} + {c}")
        L.open(f"for {k} in range({off}.shape[0]):")
        L.add(f"{r} = {cm}[{row}]")
        L.add(f"{o} = {off}[{k}]")
        L.add(f"{col} = 0")
        L.open(f"for {n} in range({N}):")
        L.add(f"{pl} = {xf}[{n}, {ch}]")
        L.open(f"for {p} in range({off}.shape[1]):")
        L.add(f"{q} = {o}[{p}]")
        if mode == "scatter":
            if self.padded:
                L.open(f"if {q} >= 0:")
            L.add(f"{pl}[{q}] += {r}[{col} + {p}]")
        elif self.padded:
            L.add(f"{r}[{col} + {p}] = {pl}[{q}] if {q} >= 0 else 0")
        else:
            L.add(f"{r}[{col} + {p}] = {pl}[{q}]")
        L.depth = d0 + 3
        L.add(f"{col} += {off}.shape[1]")
        L.depth = d0 + 2
        L.add(f"{row} += 1")
        L.depth = d0


def _walk(cg: Any, L: _Lines, mode: str, xs: str, cm: str, tabs: list[str],
          padded: list[bool], nch: str, base: str, N: str) -> None:
    """The loops of im2col (``mode`` "gather": ``cm[row, col] = xs[n, ch, q...]``, zero for
    padding) or col2im ("scatter": ``xs[n, ch, q...] += cm[row, col]``, padding entries
    dropped) over channels ``base + c`` (``c < nch``), the window taps and the output
    positions of the tables: row ``c * K + k`` (channel, tap), column ``n * P + p``
    (example, output position); the inner loop walks an output row."""
    nsp = len(tabs)
    row, col, c, ch, n = cg.fresh("c"), cg.fresh("c"), cg.fresh("k"), cg.fresh("c"), cg.fresh("k")
    ys = [cg.fresh("k") for _ in range(nsp)]
    ks = [cg.fresh("k") for _ in range(nsp)]
    qs = [cg.fresh("c") for _ in range(nsp)]
    d0 = L.depth
    L.add(f"{row} = 0")
    L.open(f"for {c} in range({nch}):")
    L.add(f"{ch} = {c}" if base == "0" else f"{ch} = {base} + {c}")
    for d in range(nsp):
        L.open(f"for {ks[d]} in range({tabs[d]}.shape[1]):")
    L.add(f"{col} = 0")
    L.open(f"for {n} in range({N}):")
    for d in range(nsp):
        L.open(f"for {ys[d]} in range({tabs[d]}.shape[0]):")
        L.add(f"{qs[d]} = {tabs[d]}[{ys[d]}, {ks[d]}]")
        if padded[d] and d < nsp - 1:
            # an outer position in the padding: its whole block of columns is padding
            L.open(f"if {qs[d]} < 0:")
            inner = " * ".join(f"{t}.shape[0]" for t in tabs[d + 1:])
            if mode == "gather":
                L.add(f"{cm}[{row}, {col}:{col} + {inner}] = 0")
            L.add(f"{col} += {inner}")
            L.add("continue")
            L.depth -= 1
    elem = f"{xs}[{', '.join([n, ch] + qs)}]"
    entry = f"{cm}[{row}, {col}]"
    test = f"{qs[-1]} >= 0" if nsp and padded[-1] else None
    if mode == "scatter":
        if test:
            L.open(f"if {test}:")
        L.add(f"{elem} += {entry}")
        if test:
            L.depth -= 1
    elif test:
        L.add(f"{entry} = {elem} if {test} else 0")
    else:
        L.add(f"{entry} = {elem}")
    L.add(f"{col} += 1")
    L.depth = d0 + 1 + nsp
    L.add(f"{row} += 1")
    L.depth = d0


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
    lshape, rshape = lhs.aval.shape, rhs.aval.shape
    taps = _Taps(cg, lshape[2:], rshape[2:], p["window_strides"], p["padding"],
                 p["lhs_dilation"], p["rhs_dilation"])
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
    g, n, oo, pp = cg.fresh("k"), cg.fresh("k"), cg.fresh("k"), cg.fresh("k")
    L = _Lines()
    L.add(f"{xs} = {x}")
    L.add(f"{ws} = {w}")
    L.add(f"{N}, {C}, {O}, {Cg} = {xs}.shape[0], {xs}.shape[1], {ws}.shape[0], {ws}.shape[1]")
    L.add(f"{G} = {C} // {Cg}")
    L.add(f"{Og} = {O} // {G}")
    L.add(f"{P} = {taps.P}")
    L.add(f"{K} = {taps.K}")
    L.add(f"{wm} = {ws}.reshape(({G}, {Og}, {Cg} * {K}))")
    L.add(f"{cm} = _empty(({Cg} * {K}, {N} * {P}), {ty})")
    L.add(f"{y} = _empty(({N}, {O}, {P}), {ty})")
    L.open(f"for {g} in range({G}):")
    taps.walk(cg, L, "gather", xs, cm, Cg, f"{g} * {Cg}", N)
    # (O/G, C/G * K) @ (C/G * K, N * P): both C-contiguous (the group's kernel rows are)
    L.add(f"{res} = _dot({wm}[{g}], {cm})")
    L.open(f"for {n} in range({N}):")
    L.open(f"for {oo} in range({Og}):")
    L.open(f"for {pp} in range({P}):")
    L.add(f"{y}[{n}, {g} * {Og} + {oo}, {pp}] = {res}[{oo}, {n} * {P} + {pp}]")
    L.depth = 0
    z = cg.fresh("z")
    L.add(f"{z} = {y}.reshape(({N}, {O}, " + "".join(f"{d}, " for d in taps.out_dims) + "))")
    cg.emit(L.text())
    cg.define(o, z)


# conv_patches / conv_patches_transpose ---------------------------------------------------
def _patches_ok(eqn: Eqn, low: dict[str, Any], table: Any) -> bool:
    dt = np.dtype(eqn.outputs[0].aval.dtype)
    return dt.kind in "fciu" and dt.itemsize >= 4 and _nonempty(eqn)


def _patches_emit(cg: Any, i: int, eqn: Eqn, low: dict[str, Any]) -> None:
    """im2col into a new ``(C * K, N * P)`` matrix, or col2im into a new zero array of
    ``lhs_shape`` (its spatial lengths a constant: the tables do not hold them)."""
    src, o = eqn.inputs[0], eqn.outputs[0]
    p = eqn.params
    im2col = low["op"] == "im2col"
    lshape = tuple(src.aval.shape) if im2col else tuple(p["lhs_shape"])
    ty = cg.tyname(np.dtype(o.aval.dtype))
    taps = _Taps(cg, lshape[2:], p["window_dimensions"], p["window_strides"], p["padding"],
                 p["lhs_dilation"], p["rhs_dilation"])
    a = cg.array(src)
    N, C, P, K = (cg.fresh("c") for _ in range(4))
    y = cg.fresh("y")
    L = _Lines()
    L.add(f"{P} = {taps.P}")
    L.add(f"{K} = {taps.K}")
    if im2col:
        L.add(f"{N}, {C} = {a}.shape[0], {a}.shape[1]")
        L.add(f"{y} = _empty(({C} * {K}, {N} * {P}), {ty})")
        taps.walk(cg, L, "gather", a, y, C, "0", N)
    else:
        sp = _const(cg, np.array(lshape[2:], np.int64))
        L.add(f"{C} = {a}.shape[0] // {K}")
        L.add(f"{N} = {a}.shape[1] // {P}")
        L.add(f"{y} = _full(({N}, {C}, " + "".join(f"{sp}[{d}], " for d in range(taps.nsp))
              + f"), 0, {ty})")
        taps.walk(cg, L, "scatter", y, a, C, "0", N)
    cg.emit(L.text())
    cg.define(o, y)


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
    first_tap = kernel and not any(checks)
    accdt = dt
    low_v = f"{ty}(-np.inf)" if dt.kind == "f" else f"{ty}({np.iinfo(dt).min})" \
        if dt.kind in "iu" else ""
    if op == "sum":
        accdt = np.dtype(np.float64) if dt == np.float32 else (
            np.dtype(np.complex128) if dt == np.complex64 else dt)
        L.add(f"{acc} = {cg.tyname(accdt)}(0)")
    elif first_tap:
        # every tap is inside the array: start from the first one (no "no element yet"
        # state to carry: 0.27 -> 0.12 ms for a 2x2 argmax over (64, 16, 8, 8) float32)
        q0 = [_pos(os_[d], strides[d], None, wd[d], pads[d][0]) for d in range(nd)]
        L.add(f"{acc} = {x}[{', '.join(q0)}]")
        L.add(f"{kf} = " + " + ".join(f"({q}){' * ' + s if s else ''}"
                                      for q, s in zip(q0, xstr)))
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
        if not first_tap:
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
        L.add(f"{y}[{oidx}] = {kf}" if first_tap else f"{y}[{oidx}] = {kf} if {kf} >= 0 else {base}")
    elif generic and any(lo > 0 for lo, _ in pads):
        L.add(f"{y}[{oidx}] = min(max({kf}, 0), {x}.size - 1)")
    elif generic:
        L.add(f"{y}[{oidx}] = {kf}")
    else:
        L.add(f"{y}[{oidx}] = {acc}" if accdt == dt else f"{y}[{oidx}] = {ty}({acc})")
    cg.emit(L.text())
    cg.define(o, y)


RULES = {"conv": (_conv_ok, _conv_emit), "patches": (_patches_ok, _patches_emit),
         "reduce_window": (_window_ok, _window_emit)}
