"""The code a segment generates, remembered by its structure: a new shape skips codegen.

The generated text depends on a segment's structure, not its sizes (``_numba.generate``:
sizes are parameters named by class, ``_sizes.py``), so a new shape of a known rank and
dtype gives the text an earlier shape gave, and numba's disk and in-process caches serve
the compiled module.  What is left of a new shape's cost is emitting that text again: 18
of the 24 ms of ``benchmarks/compile_time.py``'s new shape under ``jit(f)``, 83 of 125 ms
under ``jit(grad(f))``.  :class:`Memo` keeps ``(text, parallel, where each size parameter
comes from, the literal parameters)`` under a key that holds everything the emitters read:

* each equation's primitive (the object: two of one name are two), params, operands and
  results, variables numbered by first appearance;
* each value's dtype and shape with every size other than 0 and 1 replaced by its index
  among the segment's distinct sizes (``s0``, ``s1`` ... by first appearance): two shapes
  share a key exactly when the same axes have equal sizes, so size classes, broadcasting
  (a size against 1) and the reshape emitter's view test (non-1 sizes equal in order)
  decide alike;
* for each value, whether its size reaches each threshold the emitters compare a loop's
  size against (the sizes the fast-formula rule tells apart,
  ``_numba_dtypes.FAST_STEPS``, and the ``prange`` threshold);
* the shape params (``shape``, ``new_shape``), which equal the result's shape, as such;
* each int or float literal operand (a mean's ``n``, which changes with the shape) by
  its index among the segment's distinct such literals, with what
  :func:`~ftrans.compiler._numba_dtypes.lit_form` makes of it in the dtype the emitters
  take it in (a parameter, or which text): the text is then the same whatever the
  values; other literals (and segment outputs that are literals) by value and dtype.

A size parameter's value is then found by its index among the new segment's sizes, a
literal parameter's from the new segment's literal of its index.  Only segments
whose equations the core emitters of ``_numba.py`` lower are remembered (the audited set
``KINDS``: those read sizes only through the tests above); a segment with another kind
(control flow, gather, convolution, linear algebra ...), a param of another type, or a
size parameter that is none of the segment's sizes is generated every time, as before.
"""
from __future__ import annotations

from collections import OrderedDict
from functools import lru_cache
from math import prod
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from ..core.ir import Literal
from ._lowering import operand_casts
from ._numba_dtypes import lit_form

#: the lowering kinds whose emitters read sizes only as the key records them
KINDS = frozenset({"elementwise", "reduce", "dot_general", "transpose", "broadcast_to",
                   "reshape", "concatenate"})
#: params that hold the result's shape (broadcast_to, reshape)
SHAPE_PARAMS = frozenset({"shape", "new_shape"})
_PLAIN = (bool, int, float, complex, str, type(None), np.dtype, type)

#: texts remembered at most (least recently used dropped); a 300-equation segment's text
#: is about 60 kB
SIZE = 256


def _plain(p: Any) -> bool:
    if isinstance(p, (tuple, list)):
        return all(_plain(q) for q in p)
    return isinstance(p, _PLAIN)


def _named(v: Any) -> bool:
    """Whether the key names a literal's value by index: an int or float (not a bool,
    not NaN)."""
    return (isinstance(v, (int, float, np.integer, np.floating))
            and not isinstance(v, (bool, np.bool_)) and v == v)


@lru_cache(maxsize=4096, typed=True)
def _form(val: Any, dt: np.dtype) -> Any:
    """What the text holds for the literal ``val`` taken in ``dt`` (None: a parameter)."""
    param, v = lit_form(val, dt)
    return None if param else v


def _taken_as(e: Any) -> List[np.dtype]:
    """For each operand of ``e``, the dtype the emitters take a literal operand in: an
    elementwise equation's operand cast
    (:func:`~ftrans.compiler._lowering.operand_casts`), else its own
    (``_Codegen.operand_exprs`` and ``_Codegen.operand``)."""
    if e.prim.lowering["kind"] != "elementwise":
        return [a.aval.dtype for a in e.inputs]
    return [a.aval.dtype if c is None else c
            for a, c in zip(e.inputs, operand_casts(e, e.prim.lowering))]


def _params_text(items: Tuple[Tuple[str, Any], ...]) -> Tuple[Tuple[str, str], ...]:
    """An equation's params in the key: sorted, each value's ``repr`` (not remembered by
    value: ``True == 1`` and ``-0.0 == 0.0`` would share a text); LookupError for a value
    of another type than :data:`_PLAIN`'s."""
    out = []
    for k, p in sorted(items):
        if not _plain(p):
            raise LookupError(k)
        out.append((k, repr(p)))
    return tuple(out)


class Key:
    """A segment's key (:attr:`text`), its distinct sizes and int and float literals."""

    __slots__ = ("text", "sizes", "numbers")

    def __init__(self, seg: Any, fname: str, thresholds: Tuple[int, ...]) -> None:
        ids: Dict[Any, int] = {}
        sizes: Dict[int, int] = {}
        numbers: Dict[Any, int] = {}

        by_shape: Dict[Any, Any] = {}   # shape -> (its text, its size classes)

        def shape_info(s):
            r = by_shape.get(s)
            if r is None:   # (sizes numbered in order of first appearance, as before)
                size = prod(s)
                r = by_shape[s] = (
                    tuple([n if n < 2 else f"s{sizes.setdefault(n, len(sizes))}" for n in s]),
                    tuple([size >= t for t in thresholds]))
            return r

        def ref(a, dt=None):
            if type(a) is Literal:
                v = a.val
                if dt is not None and _named(v):
                    v = (f"f{numbers.setdefault(v, len(numbers))}", _form(v, dt))
                else:
                    v = repr(v)
                return ("lit", type(a.val).__name__, v, a.aval.dtype, a.aval.weak_type)
            n = ids.get(a)
            if n is not None:
                return n
            n = ids[a] = len(ids)
            av = a.aval
            return (n, av.dtype, av.weak_type) + shape_info(av.shape)

        parts: List[Any] = [fname, thresholds, tuple(map(ref, seg.inputs))]
        for e in seg.eqns:
            if e.prim.lowering.get("kind") not in KINDS:
                raise LookupError(e.prim.name)
            params: Any = ()
            if e.params:
                items = []
                for k, p in e.params.items():
                    if (k in SHAPE_PARAMS and len(e.outputs) == 1
                            and tuple(p) == e.outputs[0].aval.shape):
                        p = "<result's shape>"
                    items.append((k, p))
                params = _params_text(tuple(items))
            ins = e.inputs
            parts.append((e.prim, params,
                          tuple(ref(a, d) for a, d in zip(ins, _taken_as(e)))
                          if Literal in map(type, ins) else tuple(map(ref, ins)),
                          tuple(map(ref, e.outputs))))
        parts.append(tuple(map(ref, seg.outputs)))
        self.text = tuple(parts)
        self.sizes = list(sizes)
        self.numbers = list(numbers)


def segment_key(seg: Any, fname: str, thresholds: Tuple[int, ...]) -> Optional[Key]:
    """The segment's :class:`Key`; None when it is not remembered (see the module
    docstring)."""
    try:
        return Key(seg, fname, thresholds)
    except LookupError:
        return None


class Memo:
    """Generated texts by :class:`Key` (LRU, :data:`SIZE` entries)."""

    def __init__(self, size: int = SIZE) -> None:
        self.size = size
        self.entries: "OrderedDict[Any, Tuple[str, bool, list, list]]" = OrderedDict()
        self.hits = 0

    def get(self, key: Key) -> Optional[Tuple[str, bool, list, list]]:
        """``(source, parallel, extra, fixed)`` as ``generate`` returns them, or None."""
        e = self.entries.get(key.text)
        if e is None:
            return None
        self.entries.move_to_end(key.text)
        self.hits += 1
        src, par, where, lits = e
        return src, par, [], ([np.int64(key.sizes[k]) for k in where] +
                               [lit_form(key.numbers[k] if f else k, dt)[1]
                                for k, f, dt in lits])

    def put(self, key: Key, src: str, par: bool, size_values: List[int],
            lits: List[Tuple[Any, np.dtype]]) -> None:
        """Remember a text whose size parameters had ``size_values`` and whose literal
        parameters were ``lits`` (``(value, dtype)``, :meth:`_Codegen.lit`); each value
        must be one of the key's sizes or named literals, else nothing is remembered."""
        sizes = {n: k for k, n in enumerate(key.sizes)}
        numbers = {v: k for k, v in enumerate(key.numbers)}
        where = [sizes.get(int(n)) for n in size_values]
        # a parameter of a literal the key names by index is found by it; another's value
        # is in the key, and is the parameter's
        lw = [(numbers.get(v) if _named(v) else v, _named(v), dt) for v, dt in lits]
        if None in where or any(k is None for k, _, _ in lw):
            return
        self.entries[key.text] = (src, par, where, lw)
        while len(self.entries) > self.size:
            self.entries.popitem(last=False)

    def clear(self) -> None:
        self.entries.clear()

    def generate(self, seg: Any, fname: str, thresholds: Tuple[int, ...],
                 emit: Callable[[], Tuple[str, bool, list, List[int], list]]
                 ) -> Tuple[str, bool, list, list]:
        """``_numba.generate``'s result for ``seg``: remembered, or ``emit()``'s
        ``(source, parallel, extra, size values, literal parameters)`` (remembered when
        there is no ``extra``)."""
        key = segment_key(seg, fname, thresholds)
        hit = key and self.get(key)
        if hit:
            return hit
        src, par, extra, sizes, lits = emit()
        if key and not extra:
            self.put(key, src, par, sizes, lits)
        return src, par, extra, ([np.int64(n) for n in sizes] +
                                 [lit_form(v, d)[1] for v, d in lits])


#: the code generator's memo (``_numba.generate``)
MEMO = Memo()
