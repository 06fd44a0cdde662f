"""The backward engine of the compat layer.

``run_backward`` follows PyTorch's engine:

1. count, for every node reachable from the roots, how many edges point to it;
2. when gradients are requested for specific tensors (``autograd.grad``,
   ``backward(inputs=...)``), mark the nodes that lead to them -- only those run;
3. run ready nodes (all their incoming gradients summed) from a priority queue keyed
   by creation order, newest first, so that ``AccumulateGrad`` nodes (highest keys) run
   as soon as they are ready;
4. for each node: the tensor hooks of its outputs (``Tensor.register_hook`` on a
   non-leaf), then ``retain_grad`` capture, then the node's pre-hooks, the node itself,
   its post-hooks; the node's saved tensors are claimed (and, unless
   ``retain_graph``, freed) atomically, so a second backward -- from this thread or
   another -- raises ``RuntimeError`` instead of reading freed buffers.

Without ``create_graph`` gradients travel as plain arrays and the formulas run on the
kernels directly (no trace active): hooks see tensors wrapped around those arrays.  A
node without hooks runs inline in the engine's loop (the per-node overhead is a product
figure: see ``benchmarks/bench_compat.py``); the others go through :func:`_run_node`.
With ``create_graph=True`` they travel as Tensors and each formula runs under a
:class:`_GraphTrace`: its tracers wrap Tensors, and every primitive a formula binds is
computed on the concrete values *and* recorded as a compat node (with the same rules),
so the gradients have a ``grad_fn`` and can be differentiated again (double backward,
gradient penalties, Hessian-vector products).
"""
from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from typing import Any, overload

import numpy as np

from ...core.trace import _ctx, EVAL, Trace, PrimalTracer, set_current_trace
from ...primitives import optable
from ...primitives.elementwise import add_p
from .. import _dtype as D
from .. import _tensor as T
from .. import _ops as O
from .grad_mode import _tls
from . import _node
from . import graph as G
from . import _events
from ._composite import composite_class

__all__ = ["run_backward", "call_node"]

# ------------------------------------------------------------------ create_graph tracing
class _GTracer(PrimalTracer):
    """A compat Tensor seen by a backward formula that is being recorded."""

    __slots__ = ("tensor",)

    def __init__(self, trace: Trace, t: T.Tensor) -> None:
        self._trace = trace
        self.tensor = t
        self.primal = t._data


_PRIM_NODE_NAMES = {
    # the operation table's rows and hand-written elementwise primitives: torch's node
    # name of each (SinhBackward0, AddBackward0 ...)
    **{op.name: optable.node_name(op) for op in optable.ROWS + optable.CUSTOM if op.torch},
    "integer_pow": "PowBackward0",
    "select": "WhereBackward0", "convert_element_type": "ToCopyBackward0",
    "real": "RealBackward0", "imag": "ImagBackward0", "reshape": "ViewBackward0",
    "transpose": "PermuteBackward0", "broadcast_to": "ExpandBackward0",
    "squeeze": "SqueezeBackward1", "expand_dims": "UnsqueezeBackward0",
    "concatenate": "CatBackward0", "reduce_sum": "SumBackward1", "reduce_max": "AmaxBackward0",
    "reduce_min": "AminBackward0", "reduce_prod": "ProdBackward1", "gather": "IndexBackward0",
    "scatter_add": "IndexPutBackward0", "dot_general": "MmBackward0",
}
# what each primitive's rule reads: (mask over operands, saves output) or a function of needs
_PRIM_SAVES: dict[str, Any] = {}

#: Set by :mod:`ftrans.compat._compile` while it stages a function: a backward pass
#: cannot be recorded into the program being staged (it raises a graph break; the
#: function then runs eagerly and its backward runs the compiled VJP programs).
staging_hook: Callable[[], None] | None = None
_prim_classes: dict[Any, type[G.OpNode]] = {}


def _prim_class(prim: Any, make: Callable[..., type[G.OpNode]] = G.node_class
                ) -> type[G.OpNode]:
    cls = _prim_classes.get(prim)
    if cls is None:
        name = _PRIM_NODE_NAMES.get(prim.name)
        if name is None:
            name = "".join(p.capitalize() for p in prim.name.split("_")) + "Backward0"
        cls = _prim_classes[prim] = make(name, ())
    return cls


_picks: dict[tuple[Any, int], Callable[..., Any]] = {}


def _pick(prim: Any, k: int) -> Callable[..., Any]:
    """Result ``k`` of the multiple-result primitive ``prim`` as a function (a composite
    node's function: its VJP is ``ftrans.vjp`` of it)."""
    f = _picks.get((prim, k))
    if f is None:
        def f(*args: Any, **params: Any) -> Any:
            return prim.bind(*args, **params)[k]
        _picks[(prim, k)] = f
    return f


def _prim_save(prim: Any) -> Any:
    s = _PRIM_SAVES.get(prim.name)
    if s is None:
        table = {
            "add": O.SAVE_NONE, "sub": O.SAVE_NONE, "neg": O.SAVE_NONE, "conj": O.SAVE_NONE,
            "real": O.SAVE_NONE, "imag": O.SAVE_NONE, "reshape": O.SAVE_NONE,
            "transpose": O.SAVE_NONE, "broadcast_to": O.SAVE_NONE, "squeeze": O.SAVE_NONE,
            "expand_dims": O.SAVE_NONE, "concatenate": O.SAVE_NONE, "reduce_sum": O.SAVE_NONE,
            "convert_element_type": O.SAVE_NONE, "gather": (-2, False),
            "scatter_add": (-2, False), "mul": O._save_cross, "dot_general": O._save_cross,
            "div": O._save_div, "select": (1, False),
        }
        s = _PRIM_SAVES[prim.name] = table.get(prim.name, O._save_all)
    return s


class _GraphTrace(Trace):
    """Runs primitives on the values of its tracers and records compat nodes for them."""

    __slots__ = ()

    def process_primitive(self, prim: Any, args: Sequence[Any], params: dict[str, Any]) -> Any:
        tens: list[Any] | None = None
        datas = list(args)
        for i, a in enumerate(args):
            if isinstance(a, _GTracer) and a._trace is self:
                if tens is None:
                    tens = [None] * len(args)
                tens[i] = a.tensor
                datas[i] = a.primal
        out = self.parent.process_primitive(prim, datas, params)
        if tens is None or not prim.differentiable:
            return out
        operands = [tens[i] if tens[i] is not None else datas[i] for i in range(len(args))]
        if prim.multiple_results:   # one composite node per inexact result (its VJP: ftrans's)
            cls = _prim_class(prim, composite_class)
            return [_GTracer(self, O._compose(cls, _pick(prim, k), operands, datas, params,
                                              out=o))
                    if np.dtype(o.dtype).kind in "fc" else o for k, o in enumerate(out)]
        t = O._record(_prim_class(prim), prim, params, operands, datas, out, _prim_save(prim))
        return _GTracer(self, t)


def _apply_recorded(node: Any, ct: Any, saved: Any, outsv: Any) -> list[Any]:
    """Run ``node``'s formula on Tensors, recording it (``create_graph=True``)."""
    trace = _GraphTrace(_ctx.trace, "backward")
    Tensor = T.Tensor

    def wrap(v: Any) -> Any:
        return _GTracer(trace, v) if isinstance(v, Tensor) else v
    try:
        with set_current_trace(trace):
            outs = node._apply(wrap(ct), saved, outsv, wrap)
    finally:
        trace.finish()
    res: list[Any] = []
    for o in outs:
        if o is None:
            res.append(None)
        elif isinstance(o, _GTracer) and o._trace is trace:
            res.append(o.tensor)
        elif isinstance(o, Tensor):
            res.append(o)
        else:
            res.append(T._make(o))
    return res


# ---------------------------------------------------------------------------- helpers
def _to_tensor(g: Any, cg: bool) -> T.Tensor:
    if cg:
        return g
    return T._make(g)


def _from_tensor(r: Any, cg: bool, what: str) -> Any:
    if not isinstance(r, T.Tensor):
        raise TypeError(f"{what} must return a Tensor or None, got {type(r).__name__}")
    return r if cg else r._data


def _tensor_hook_result(fn: Callable[..., Any], g: Any, r: Any, cg: bool) -> Any:
    """A tensor hook's result ``r`` for the gradient ``g``: PyTorch's RuntimeError when the
    hook changed its dtype or shape."""
    if g is not None and isinstance(r, T.Tensor):
        gd = g._data if isinstance(g, T.Tensor) else g
        a, b = np.dtype(gd.dtype), np.dtype(r._data.dtype)
        name = getattr(fn, "__name__", type(fn).__name__)
        if a != b:
            raise RuntimeError(f"hook '{name}' has changed the type of value (was "
                               f"torch.{D.from_np(a)._tname} got torch.{D.from_np(b)._tname})")
        if tuple(gd.shape) != tuple(r._data.shape):
            raise RuntimeError(f"hook '{name}' has changed the size of value")
    return _from_tensor(r, cg, "a tensor hook")


def _add(a: Any, b: Any, cg: bool) -> Any:
    if cg:
        return O.add(a, b)
    if _ctx.trace is EVAL:
        return add_p.impl(a, b)  # type: ignore[misc]  # add_p has its impl
    return add_p.bind(a, b)  # a batched backward (is_grads_batched): gradients may be tracers


def _retain(t: T.Tensor, g: Any, cg: bool) -> None:
    old = t._grad
    if old is None:
        t._grad = O.clone(g) if cg else T._make(np.array(g, copy=True))
    elif cg:
        t._grad = O.add(old, g)
    else:
        t._grad = T._make(O._add(old, T._make(g))._data)


def _accumulate(var: T.Tensor, g: Any, cg: bool) -> None:
    """Add ``g`` into ``var.grad`` (in place unless ``create_graph``), under the lock."""
    vd = var._data
    gd = g._data if cg else g
    if gd.shape != vd.shape:
        try:
            if np.broadcast_shapes(gd.shape, vd.shape) != vd.shape:
                raise ValueError
        except ValueError:
            raise RuntimeError(f"Function AccumulateGrad returned an invalid gradient at index 0 - "
                               f"got {list(gd.shape)} but expected shape compatible with "
                               f"{list(vd.shape)}") from None
        gd = np.broadcast_to(gd, vd.shape)
        if cg:
            g = O.expand(g, vd.shape)
    with G._lock:
        old = var._grad
        if old is None:
            if cg:
                var._grad = O.clone(g) if gd.dtype == vd.dtype else O._convert(g, vd.dtype)
            else:
                var._grad = T._make(np.array(gd, dtype=vd.dtype, copy=True, order="C"))
        elif cg or old._grad_fn is not None or old._rg:
            gg = g if cg else T._make(gd)
            var._grad = O.add(old, gg)
        else:
            od = old._data
            if od.flags.writeable and od.shape == gd.shape:
                np.add(od, gd, out=od, casting="unsafe")
            else:
                var._grad = T._make(np.asarray(od + gd, dtype=vd.dtype))


# ------------------------------------------------------------------------------ engine
def _dependencies(root_nodes: Iterable[Any]) -> dict[Any, int]:
    """{node: number of edges pointing to it} over the graph reachable from the roots."""
    deps: dict[Any, int] = {}
    stack: list[Any] = []
    for n in root_nodes:
        if n not in deps:
            deps[n] = 0
            stack.append(n)
    get = deps.get
    push = stack.append
    pop = stack.pop
    while stack:
        for c, _ in pop()._next:
            if c is not None:
                d = get(c)
                if d is None:
                    deps[c] = 1
                    push(c)
                else:
                    deps[c] = d + 1
    return deps


def _needed(root_nodes: Iterable[Any], deps: dict[Any, int], targets: set[Any]) -> set[Any]:
    """Nodes from which a node in ``targets`` can be reached through next edges."""
    d2 = dict(deps)
    topo = []
    q = [n for n in dict.fromkeys(root_nodes) if d2[n] == 0]
    while q:
        n = q.pop()
        topo.append(n)
        for c, _ in n._next:
            if c is not None:
                k = d2[c] - 1
                d2[c] = k
                if k == 0:
                    q.append(c)
    needed: set[Any] = set()
    for n in reversed(topo):
        for c, _ in n._next:
            if c is not None and (c in targets or c in needed):
                needed.add(n)
                break
    return needed


@overload
def run_backward(roots: Sequence[tuple[Any, int]], grads: Sequence[Any], keep_graph: bool,
                 create_graph: bool, capture: Sequence[tuple[Any, int]],
                 execute: Sequence[tuple[Any, int]] | None = None,
                 batched: bool = False) -> list[Any]: ...
@overload
def run_backward(roots: Sequence[tuple[Any, int]], grads: Sequence[Any], keep_graph: bool,
                 create_graph: bool, capture: Sequence[tuple[Any, int]] | None = None,
                 execute: Sequence[tuple[Any, int]] | None = None,
                 batched: bool = False) -> list[Any] | None: ...


def run_backward(roots: Sequence[tuple[Any, int]], grads: Sequence[Any], keep_graph: bool,
                 create_graph: bool, capture: Sequence[tuple[Any, int]] | None = None,
                 execute: Sequence[tuple[Any, int]] | None = None,
                 batched: bool = False) -> list[Any] | None:
    """Backpropagate ``grads`` (arrays, or Tensors when ``create_graph``) from the edges
    ``roots``.

    ``capture``: edges whose incoming gradient is returned (``autograd.grad``; their nodes
    run only if needed for another target).  ``execute``: AccumulateGrad edges that run
    (``backward(inputs=...)``).  With neither, every reachable node runs.  Returns the
    list of captured gradients (None where nothing arrived).

    ``batched``: called under ``ftrans.vmap`` by ``autograd.grad(is_grads_batched=True)``
    (see ``_batched``): ``grads`` are batch tracers and the current (vmap) trace is kept,
    so the formulas bind their primitives through it.  Otherwise the formulas run on the
    kernels with no trace active, whatever trace the caller is under.
    """
    if staging_hook is not None:
        staging_hook()
    cg = create_graph
    prev_grad = _tls.grad
    _tls.grad = cg
    tasks = G._task_tls
    prev_task = tasks.task  # a backward run from a hook is a graph task of its own
    trace_guard = None
    if _ctx.trace is not EVAL and not batched:
        trace_guard = set_current_trace(EVAL)
        trace_guard.__enter__()
    try:
        return _run(roots, grads, keep_graph, cg, capture, execute)
    finally:
        if trace_guard is not None:
            trace_guard.__exit__(None, None, None)
        _tls.grad = prev_grad
        tasks.task = prev_task


def _run(roots: Sequence[tuple[Any, int]], grads: Sequence[Any], keep: bool, cg: bool,
         capture: Sequence[tuple[Any, int]] | None,
         execute: Sequence[tuple[Any, int]] | None) -> list[Any] | None:
    root_nodes = [n for n, _ in roots if n is not None]
    deps = _dependencies(root_nodes)
    cap: dict[Any, list[tuple[int, int]]] | None = None
    results: list[Any] | None = None
    visit: set[Any] | None = None
    run_set: set[Any] | None = None
    if capture is not None or execute is not None:
        cap = {}
        targets: set[Any] = set()
        if capture is not None:
            results = [None] * len(capture)
            for k, (n, nr) in enumerate(capture):
                if n is not None:
                    cap.setdefault(n, []).append((nr, k))
                    targets.add(n)
        if execute is not None:
            for n, _ in execute:
                if n is not None:
                    targets.add(n)
        needed = _needed(root_nodes, deps, targets)
        visit = needed | targets
        run_set = set(needed)
        if execute is not None:
            run_set.update(n for n, _ in execute if n is not None)
    # the current graph task (register_multi_grad_hook asks it which nodes will run);
    # run_backward restores the previous one
    G._task_tls.task = G.GraphTask(roots, deps, visit, cap)

    # every node has one output (output_nr 0): a buffer is the sum of the gradients
    # that arrived for it so far
    bufs: dict[Any, Any] = {}
    for (n, nr), g in zip(roots, grads):
        if n is None:
            continue
        if n._nout == 1:
            old = bufs.get(n)
            bufs[n] = g if old is None else _add(old, g, cg)
        else:
            _put(bufs, n, nr, g, cg)
    heap: list[tuple[int, Any]] = []
    for n in dict.fromkeys(root_nodes):
        if deps[n] == 0 and (visit is None or n in visit):
            heapq.heappush(heap, (-n._seq, n))

    AccumulateGrad = G.AccumulateGrad
    FREED = G.FREED
    Packed = G._Packed
    lock = G._lock
    heappush, heappop = heapq.heappush, heapq.heappop
    # a node_run subscriber (anomaly mode, the profiler) sees every node: no inline path
    fast_ok = cap is None and not cg and not _events.node_run
    prim_bwd = G.OpNode._bwd
    # ``single``: the only ready node, kept out of the heap (a chain never touches it)
    single = heappop(heap)[1] if len(heap) == 1 else None
    while single is not None or heap:
        if single is not None:
            n = single
            single = None
        else:
            n = heappop(heap)[1]
        g0 = bufs.pop(n, None)
        tn = type(n)
        if tn is AccumulateGrad:
            _run_acc(n, [g0], cg, cap, results, run_set)
            continue
        if fast_ok and g0 is not None and n._hk is None and tn._fast:
            # the common case, inlined: no hooks, no capture, no recording
            saved = n._saved
            outsv = n._outsv
            if not keep and (n._smask or outsv is not None):
                with lock:  # claim and free atomically: a concurrent second backward raises
                    saved = n._saved
                    outsv = n._outsv
                    n._released = True
                    n._saved = None
                    n._outsv = FREED
            if saved is None:
                raise G.freed_error()
            try:
                primals: list[Any]
                if n._tsv:
                    primals = []
                    for s in saved:
                        if type(s) is tuple:
                            if s[2][0] != s[3]:
                                raise G.version_error(s, n)
                            primals.append(s[1])
                        elif type(s) is Packed:
                            primals.append(G.unpack(s, n, False))
                        else:
                            primals.append(s)
                else:
                    primals = saved  # Meta stand-ins and raw values only
                if outsv is None:
                    ans = None
                elif type(outsv) is tuple and outsv[2][0] == outsv[3]:
                    ans = outsv[1]
                else:
                    ans = G.unpack(outsv, n, False)
                needs = n._needs
                if tn._bwd is prim_bwd:
                    outs = n._prim.vjp(g0, ans, primals, needs, **n._params)
                else:
                    outs = n._bwd(g0, primals, ans, needs)
                if n._casts is not None:
                    outs = n._fix_outs(outs, primals, needs)
                else:
                    for o, nd in zip(outs, needs):
                        if o is None and nd:
                            outs = n._fix_outs(outs, primals, needs)
                            break
            except BaseException:
                if not keep:  # as PyTorch: a node whose backward raised keeps its saved
                    n._unclaim(saved, outsv)  # values (a rerun raises the same error)
                raise
        else:
            outs = _run_node(n, g0 if n._nout != 1 else [g0], keep, cg, cap, results, run_set)
        for (c, nr), g in zip(n._next, outs):
            if c is None:
                continue
            if g is not None:
                if c._nout == 1:
                    old = bufs.get(c)
                    bufs[c] = g if old is None else _add(old, g, cg)
                else:
                    _put(bufs, c, nr, g, cg)
            d = deps[c] - 1
            deps[c] = d
            if d == 0 and (visit is None or c in visit):
                if single is None and not heap:
                    single = c
                else:
                    if single is not None:
                        heappush(heap, (-single._seq, single))
                        single = None
                    heappush(heap, (-c._seq, c))
    return results


# (``results`` and ``run_set`` of _run_node/_run_acc: a list and a set whenever ``cap`` is
# not None, else None -- typed Any, as mypy cannot relate them)
def _put(bufs: dict[Any, Any], n: Any, nr: int, g: Any, cg: bool) -> None:
    """Add ``g`` to the buffer of output ``nr`` of the multi-output node ``n`` (a custom
    ``autograd.Function`` node: one gradient slot per forward output)."""
    b = bufs.get(n)
    if b is None:
        b = bufs[n] = [None] * n._nout
    old = b[nr]
    b[nr] = g if old is None else _add(old, g, cg)


def _hook_result(fn: Callable[..., Any], r: Any, n: int) -> tuple[Any, ...]:
    """The tuple a node hook returned, which must have ``n`` entries."""
    r = tuple(r)
    if len(r) != n:
        raise RuntimeError(f"hook '{getattr(fn, '__name__', fn)}' has returned an incorrect "
                           f"number of values (got {len(r)}, but expected {n})")
    return r


def _run_node(n: Any, buf: list[Any] | None, keep: bool, cg: bool,
              cap: dict[Any, list[tuple[int, int]]] | None, results: Any,
              run_set: Any, checked: bool = False) -> Any:
    if _events.node_run and not checked:  # the subscribers wrap the node's run
        return _events.run_node(n, _run_node, (n, buf, keep, cg, cap, results, run_set, True))
    nnext = len(n._next)
    if buf is None:
        buf = [None] * n._nout
    hk = n._hk
    if hk is not None:
        if hk.tpre:
            for nr, hooks in list(hk.tpre.items()):
                g = buf[nr]  # None (no gradient arrived): PyTorch calls the hooks with None
                for fn in list(hooks.values()):
                    r = fn(None if g is None else _to_tensor(g, cg))
                    if r is not None:
                        g = _tensor_hook_result(fn, g, r, cg)
                buf[nr] = g
        if hk.rgh:
            for nr, t in list(hk.rgh.items()):
                g = buf[nr]
                if g is not None:
                    _retain(t, g, cg)
    if cap is not None:
        entries = cap.get(n)
        if entries is not None:
            for nr, k in entries:
                results[k] = buf[nr]
        if n not in run_set:
            return (None,) * nnext
    if hk is not None and hk.pre:
        for fn in list(hk.pre.values()):
            r = fn(tuple(None if g is None else _to_tensor(g, cg) for g in buf))
            if r is not None:
                r = _hook_result(fn, r, len(buf))
                buf = [None if x is None else _from_tensor(x, cg, "a node pre-hook") for x in r]
    if buf[0] is None and (len(buf) == 1 or all(g is None for g in buf)):
        outs = [None] * nnext  # no gradient arrived (e.g. a pre-hook returned None)
    elif n._custom:
        outs = n._call_backward(buf, keep, cg)
    else:
        saved, outsv = n._claim(keep)
        ct = buf[0]
        try:
            if cg:
                outs = _apply_recorded(n, ct, saved, outsv)
            else:
                outs = n._apply(ct, saved, outsv, None)
        except BaseException:
            if not keep:
                n._unclaim(saved, outsv)
            raise
    if hk is not None and hk.post:
        idx = n._edge_idx
        sel = list(range(nnext)) if idx is None else [i for i in idx if i < nnext]
        gi = tuple(None if outs[i] is None else _to_tensor(outs[i], cg) for i in sel)
        go = tuple(None if g is None else _to_tensor(g, cg) for g in buf)
        for fn in list(hk.post.values()):
            r = fn(gi, go)
            if r is not None:
                gi = _hook_result(fn, r, len(gi))
        outs = list(outs)
        for j, i in enumerate(sel):
            outs[i] = None if gi[j] is None else _from_tensor(gi[j], cg, "a node hook")
    return outs


def _run_acc(n: Any, buf: list[Any] | None, cg: bool,
             cap: dict[Any, list[tuple[int, int]]] | None, results: Any,
             run_set: Any, checked: bool = False) -> None:
    if _events.node_run and not checked:  # the subscribers wrap the node's run
        return _events.run_node(n, _run_acc, (n, buf, cg, cap, results, run_set, True), False)
    g = None if buf is None else buf[0]
    var = n.variable
    x = var._x
    hk = n._hk
    if g is None:
        # PyTorch runs the node, and so its hooks, also when no gradient arrived: they get
        # None; nothing is accumulated then
        if (x is None or not (x.hooks or x.post_acc)) and (hk is None or not (hk.pre or
                                                                               hk.post)):
            return
    if x is not None and x.hooks:
        for fn in list(x.hooks.values()):
            r = fn(None if g is None else _to_tensor(g, cg))
            if r is not None:
                g = _tensor_hook_result(fn, g, r, cg)
    if hk is not None and hk.pre:
        for fn in list(hk.pre.values()):
            r = fn((None if g is None else _to_tensor(g, cg),))
            if r is not None:
                r = tuple(r)[0]
                g = None if r is None else _from_tensor(r, cg, "a node pre-hook")
    if cap is not None:
        entries = cap.get(n)
        if entries is not None:
            for nr, k in entries:
                results[k] = g
        if n not in run_set:
            return
    if g is not None:
        _accumulate(var, g, cg)
    if x is not None and x.post_acc:
        for fn in list(x.post_acc.values()):
            fn(var)
    if hk is not None and hk.post:
        for fn in list(hk.post.values()):
            fn((), (None if g is None else _to_tensor(g, cg),))


def call_node(node: Any, grads: Sequence[Any]) -> Any:
    """``grad_fn(*grads)``: apply one node to output gradients (no graph freeing)."""
    if isinstance(node, G.AccumulateGrad):
        raise RuntimeError("AccumulateGrad cannot be called directly")
    if len(grads) != node._nout:
        raise TypeError(f"{node.name()} expects {node._nout} gradient(s), got {len(grads)}")
    cg = _tls.grad and any(isinstance(g, T.Tensor) and g.requires_grad for g in grads)
    if node._custom:
        outs = node._call_backward([g if cg or not isinstance(g, T.Tensor) else g._data
                                    for g in grads], True, cg)
        outs = [None if o is None or isinstance(o, T.Tensor) else T._make(o) for o in outs]
        return outs[0] if len(outs) == 1 else tuple(outs)
    saved, outsv = node._claim(True)
    if cg:
        outs = _apply_recorded(node, grads[0], saved, outsv)
    else:
        outs = node._apply(grads[0]._data if isinstance(grads[0], T.Tensor) else grads[0],
                           saved, outsv, None)
        outs = [None if o is None else T._make(o) for o in outs]
    idx = node._edge_idx
    if idx is not None:
        outs = [outs[i] for i in idx if i < len(outs)]
    return outs[0] if len(outs) == 1 else tuple(outs)


_node._call_node = call_node   # ``grad_fn(*grads)`` (see _node._call_node)
