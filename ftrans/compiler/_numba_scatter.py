"""``gather`` and ``scatter_add`` in the generated numba code (no graph break).

A basic index (ints, slices, ``None``, ``...``) is a NumPy view in numba, copied.  An index
with integer arrays (NumPy's advanced indexing: ``x[idx]``, ``x[:, idx]``, ``x[i, :, j]``
...) lowers to a loop nest over the result's axes: the slices and ints are applied first as
a view of the operand (their text is the template's, so the code is shape-generic), the
index arrays broadcast together to the shape ``B`` (NumPy's rules), and each result
element reads the view at the arrays' entries.  The result's axes are NumPy's: ``B`` in
place of the advanced indices when these (arrays and ints) are adjacent in the index,
``B`` in front otherwise.  ``scatter_add`` (``z = zeros(shape); np.add.at(z, index,
updates)``: the transpose of ``gather``) runs the same nest over the indexed region with
``+=`` into the zero-initialized result, sequentially in C order, so repeated indices
accumulate as ``np.add.at``'s, in the result's dtype.

Negative entries wrap as in NumPy.  Before the loops, every entry of every index array is
checked against its axis (NumPy checks them all unless the broadcast shape is empty); an
entry out of bounds raises ``IndexError`` in the compiled code, on which the program's
driver reruns the segment with its impls (:class:`ftrans.compiler._SegmentCall`), so the
call raises NumPy's own ``IndexError``.  An out-of-bounds static int graph-breaks.

What graph-breaks to the impl (always correct): boolean index arrays (a 1-d or larger mask
reaches the primitive as integer arrays already; a 0-d one has a data-dependent shape),
``uint64`` index arrays, ``scatter_add`` in ``bool`` or ``float16`` (NumPy's ``add.at``
ORs booleans and rounds each float16 sum), and any index whose result shape this module
does not reproduce (checked against the primitive's own shape rule).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..core.ir import Eqn
from ..primitives.indexing import _Slot
from ._numba_dtypes import _dtype_ok

__all__ = ["RULES"]


# basic indices -------------------------------------------------------------------------
def _index_src(t: Any) -> str:
    if t is None:
        return "None"
    if t is Ellipsis:
        return "..."
    if isinstance(t, slice):
        return ":".join("" if v is None else str(int(v)) for v in (t.start, t.stop, t.step))
    return str(int(t))


def _basic_ok(eqn: Eqn) -> bool:
    x = eqn.inputs[0].aval
    template = eqn.params["template"]
    if not x.shape or not _dtype_ok(x.dtype, True) or not all(
            t is None or t is Ellipsis or isinstance(t, (slice, int, np.integer))
            for t in template):
        return False
    try:  # an out-of-bounds int raises in NumPy (the impl raises it)
        np.broadcast_to(np.zeros((), x.dtype), x.shape)[template]
    except IndexError:
        return False
    return True


def _basic_emit(cg: Any, eqn: Eqn) -> None:
    x, o = eqn.inputs[0], eqn.outputs[0]
    idx = ", ".join(_index_src(t) for t in eqn.params["template"])
    y = cg.fresh("y")
    cg.emit(f"{y} = {cg.array(x)}[{idx}]" + (".copy()" if o.aval.shape else ""))
    cg.define(o, y)


# advanced indices: the plan ------------------------------------------------------------
class _Plan:
    """How an index with integer arrays addresses an array of ``shape``.

    ``view``: the index of the basic view (ints and slices; ``:`` for an array's axis);
    ``axes[k]``: (view axis, array axis) that index array ``k`` addresses; ``bshape``: the
    arrays' broadcast shape; ``out``: per result axis, ``("b", j)`` (axis ``j`` of ``B``),
    ``("s", view axis)`` (a sliced axis) or ``("n", None)`` (a new axis); ``shape``: the
    result's shape.
    """

    def __init__(self, view: list[str], axes: dict[int, tuple[int, int]],
                 bshape: tuple[int, ...], out: list[tuple[str, Any]],
                 shape: tuple[int, ...]) -> None:
        self.view, self.axes, self.bshape, self.out, self.shape = view, axes, bshape, out, shape


def _plan(template: tuple[Any, ...], xshape: tuple[int, ...],
          ashapes: list[tuple[int, ...]]) -> _Plan | None:
    """The plan of ``template`` on an array of ``xshape`` (None: not lowered here)."""
    if sum(t is Ellipsis for t in template) > 1:
        return None
    consumed = sum(1 for t in template if t is not None and t is not Ellipsis)
    if consumed > len(xshape):
        return None
    entries: list[Any] = []
    for t in template:
        entries.extend([slice(None)] * (len(xshape) - consumed) if t is Ellipsis else [t])
    if Ellipsis not in template:
        entries += [slice(None)] * (len(xshape) - consumed)
    try:
        bshape = tuple(np.broadcast_shapes(*ashapes))
    except ValueError:
        return None
    view: list[str] = []
    axes: dict[int, tuple[int, int]] = {}
    basic: list[tuple[int, tuple[str, Any], int]] = []  # (entry position, kind, size)
    adv: list[int] = []
    d = 0
    for p, t in enumerate(entries):
        if t is None:
            basic.append((p, ("n", None), 1))
        elif isinstance(t, slice):
            basic.append((p, ("s", len(view)), len(range(*t.indices(xshape[d])))))
            view.append(":" if t == slice(None) else _index_src(t))
            d += 1
        elif isinstance(t, _Slot):
            axes[t.k] = (len(view), d)
            view.append(":")
            adv.append(p)
            d += 1
        elif isinstance(t, (int, np.integer)) and not isinstance(t, bool):
            if not -xshape[d] <= int(t) < xshape[d]:
                return None  # NumPy's IndexError: the impl raises it
            view.append(str(int(t)))
            adv.append(p)
            d += 1
        else:
            return None
    if d != len(xshape) or sorted(axes) != list(range(len(ashapes))):
        return None
    bdims = [(("b", j), n) for j, n in enumerate(bshape)]
    if adv == list(range(adv[0], adv[-1] + 1)):  # adjacent: B in their place
        dims = ([(k, n) for p, k, n in basic if p < adv[0]] + bdims
                + [(k, n) for p, k, n in basic if p > adv[0]])
    else:
        dims = bdims + [(k, n) for _, k, n in basic]
    return _Plan(view, axes, bshape, [k for k, _ in dims], tuple(n for _, n in dims))


def _advanced_plan(eqn: Eqn, xshape: tuple[int, ...], region: tuple[int, ...]) -> _Plan | None:
    arrays = [a.aval for a in eqn.inputs[1:]]
    if any(a.dtype.kind not in "iu" or (a.dtype.kind == "u" and a.dtype.itemsize > 4)
           for a in arrays):
        return None  # boolean (0-d) or uint64 index arrays: the impl
    p = _plan(eqn.params["template"], tuple(xshape), [tuple(a.shape) for a in arrays])
    return p if p is not None and p.shape == tuple(region) else None


# advanced indices: the code ------------------------------------------------------------
def _nest(cg: Any, eqn: Eqn, p: _Plan, xshape: tuple[int, ...], x: str,
          body: Any) -> None:
    """Emit the bounds checks of the index arrays, then the loop nest over ``p.shape``
    whose innermost statement is ``body(view, result_index, source_index)`` (sources;
    ``view``: the name of the basic view of the array ``x``)."""
    arrays = eqn.inputs[1:]
    srcs = [cg.operand(a) for a in arrays]
    empty = 0 in p.bshape  # NumPy checks no entry of an empty broadcast
    for k, (a, s) in enumerate(zip(arrays, srcs)):
        n = cg.size(xshape[p.axes[k][1]])
        if empty:
            continue
        if not a.aval.shape:
            cg.emit(f"if {s} < -{n} or {s} >= {n}:\n"
                    f"    raise IndexError('gather/scatter_add: index out of bounds')")
            continue
        c, k0 = cg.fresh("c"), cg.fresh("k")
        cg.emit(f"{c} = {s}.ravel()\n"
                f"for {k0} in range({c}.size):\n"
                f"    if {c}[{k0}] < -{n} or {c}[{k0}] >= {n}:\n"
                f"        raise IndexError('gather/scatter_add: index out of bounds')")
    loops = [cg.fresh("k") for _ in p.out]
    bpos = {kind[1]: q for q, kind in enumerate(p.out) if kind[0] == "b"}
    nb = len(p.bshape)
    # each array's entry is read at the depth of the last loop it depends on
    reads: dict[int, list[str]] = {}
    src_idx: list[str] = list(p.view)
    vaxis = [k for k, s in enumerate(p.view) if ":" in s]  # the view's axes (not ints)
    for k, a in enumerate(arrays):
        r = len(a.aval.shape)
        idx, depth = [], 0
        for q, m in enumerate(a.aval.shape):
            j = q + nb - r
            if m == 1 and p.bshape[j] != 1:
                idx.append("0")
            else:
                idx.append(loops[bpos[j]])
                depth = max(depth, bpos[j] + 1)
        w = cg.fresh("w")
        n = cg.size(xshape[p.axes[k][1]])
        rd = f"{srcs[k]}[{', '.join(idx)}]" if r else srcs[k]
        reads.setdefault(depth, []).append(f"{w} = np.int64({rd})\nif {w} < 0:\n    {w} += {n}")
        src_idx[p.axes[k][0]] = w
    for q, kind in enumerate(p.out):
        if kind[0] == "s":
            src_idx[kind[1]] = loops[q]
    src = ", ".join(src_idx[k] for k in vaxis)
    lines: list[str] = []
    ind = ""
    for q in range(len(p.out) + 1):
        for stmt in reads.get(q, []):
            lines.extend(ind + ln for ln in stmt.split("\n"))
        if q < len(p.out):
            lines.append(f"{ind}for {loops[q]} in range({cg.size(p.shape[q])}):")
            ind += "    "
    t = cg.fresh("t")
    cg.emit(f"{t} = {x}[{', '.join(p.view)}]" if any(s != ":" for s in p.view)
            else f"{t} = {x}")
    lines.append(ind + body(t, ", ".join(loops) or "0", src))
    cg.emit("\n".join(lines))


def _new_array(cg: Any, shape: tuple[int, ...], dtype: Any, fill: str) -> str:
    """Name of a new array of ``shape`` (``(1,)`` for ``()``), zero-filled for ``fill ==
    "zeros"``: the runtime's cached ``_empty``/``_full`` (:mod:`._numba_runtime_support`,
    which asks for transparent huge pages from 4 MiB on, as NumPy does: a scatter writes a
    fresh array at random places, and 4 KiB page faults cost more than the scatter)."""
    y = cg.fresh("y")
    shp, ty = cg.shape_src(shape) if shape else "(1,)", cg.tyname(dtype)
    cg.emit(f"{y} = _full({shp}, 0, {ty})" if fill == "zeros" else f"{y} = _empty({shp}, {ty})")
    return y


# gather ----------------------------------------------------------------------------------
def _gather_ok(eqn: Eqn, low: dict[str, Any], table: Any) -> bool:
    if len(eqn.inputs) == 1:
        return _basic_ok(eqn)
    x, o = eqn.inputs[0].aval, eqn.outputs[0].aval
    return _dtype_ok(x.dtype, True) and _advanced_plan(eqn, x.shape, o.shape) is not None


def _gather_emit(cg: Any, i: int, eqn: Eqn, low: dict[str, Any]) -> None:
    if len(eqn.inputs) == 1:
        _basic_emit(cg, eqn)
        return
    x, o = eqn.inputs[0], eqn.outputs[0]
    p = _advanced_plan(eqn, x.aval.shape, o.aval.shape)
    assert p is not None
    y = _new_array(cg, o.aval.shape, o.aval.dtype, "empty")
    _nest(cg, eqn, p, x.aval.shape, cg.array(x),
          lambda t, out, src: f"{y}[{out}] = {t}[{src}]")
    if o.aval.shape:
        cg.define(o, y)
    else:
        cg.define_reshaped(o, y)


# scatter_add -----------------------------------------------------------------------------
def _updates_index(u: Any, region: tuple[int, ...], loops: str) -> str:
    """Source index of ``u`` broadcast to ``region`` (``loops``: the nest's variables)."""
    ks = loops.split(", ")
    lead = len(region) - len(u.aval.shape)
    return ", ".join("0" if m == 1 and region[q + lead] != 1 else ks[q + lead]
                     for q, m in enumerate(u.aval.shape))


def _scatter_ok(eqn: Eqn, low: dict[str, Any], table: Any) -> bool:
    u, o = eqn.inputs[0].aval, eqn.outputs[0].aval
    shape = tuple(eqn.params["shape"])
    if not shape or u.dtype != o.dtype or not _dtype_ok(o.dtype, True) \
            or o.dtype.kind == "b" or o.dtype == np.float16:
        return False
    try:
        region = _region(eqn)
    except (IndexError, ValueError, TypeError):
        return False  # NumPy raises (an out-of-bounds int ...): the impl does
    if len(u.shape) > len(region) or any(m not in (1, n) for m, n in
                                         zip(u.shape[::-1], region[::-1])):
        return False
    if len(eqn.inputs) == 1:
        return True
    return _advanced_plan(eqn, shape, region) is not None


def _region(eqn: Eqn) -> tuple[int, ...]:
    """The shape of ``zeros(shape)[index]``: the region ``scatter_add`` adds into."""
    arrays = [np.zeros(a.aval.shape, np.intp) for a in eqn.inputs[1:]]
    idx = tuple(arrays[t.k] if isinstance(t, _Slot) else t for t in eqn.params["template"])
    z = np.broadcast_to(np.zeros((), np.int8), tuple(eqn.params["shape"]))
    return tuple(z[idx].shape)


def _scatter_emit(cg: Any, i: int, eqn: Eqn, low: dict[str, Any]) -> None:
    u, o = eqn.inputs[0], eqn.outputs[0]
    shape = tuple(eqn.params["shape"])
    region = _region(eqn)
    z = _new_array(cg, shape, o.aval.dtype, "zeros")
    us = cg.operand(u)
    if len(eqn.inputs) == 1:  # a basic index: one slice assignment (no repeats)
        idx = ", ".join(_index_src(t) for t in eqn.params["template"])
        # an array into a slice through _assign (its docstring says why), broadcast to
        # the slice's shape where it is smaller; a scalar update, or a None in the index
        # (numba's view drops its axis), keeps the slice assignment
        tmpl = tuple(eqn.params["template"])
        region_shape = np.broadcast_to(np.empty((), bool), shape)[tmpl].shape
        if not u.aval.shape or None in tmpl:
            cg.emit(f"{z}[{idx}] = {us}")
        elif region_shape == tuple(u.aval.shape):
            cg.emit(f"_assign({z}[{idx}], {us})")
        else:
            v = cg.fresh()
            cg.emit(f"{v} = {z}[{idx}]\n_assign({v}, np.broadcast_to({us}, {v}.shape))")
    else:
        p = _advanced_plan(eqn, shape, region)
        assert p is not None
        def body(t: str, out: str, src: str) -> str:
            rd = f"{us}[{_updates_index(u, region, out)}]" if u.aval.shape else us
            return f"{t}[{src}] += {rd}"
        _nest(cg, eqn, p, shape, z, body)
    cg.define(o, z)


RULES = {"gather": (_gather_ok, _gather_emit), "scatter_add": (_scatter_ok, _scatter_emit)}
