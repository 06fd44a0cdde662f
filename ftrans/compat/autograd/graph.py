"""The dynamic graph of the compat layer: nodes, saved tensors, hooks and views.

Every differentiable compat operation that runs in grad mode on an input that requires
grad creates one :class:`Node` (the output's ``grad_fn``), named as PyTorch 2.x names
it (``MulBackward0``, ``SumBackward1``, ``AccumulateGrad`` ...).  A node holds

* ``_next``: one edge ``(node, input_nr)`` per operand of the forward operation --
  the operand's ``grad_fn`` and output number, the ``AccumulateGrad`` node of a leaf
  that requires grad, or ``(None, 0)``;
* the *saved* values its backward formula needs: a saved tensor is a tuple
  ``(tensor or None, data, version counter, version at save time, grad_fn)`` so that
  the engine can detect an in-place modification made after saving
  (``RuntimeError`` naming both versions), and can free the buffers after backward;
* for a primitive node, the :class:`~ftrans.core.Primitive` and its parameters: its
  backward *is* the primitive's VJP rule -- the same rule the functional ``ftrans.vjp``
  uses, so one set of rules serves both layers.  Composite PyTorch operations
  (``softmax``, ``sigmoid``, ``mean`` ...) are one node each whose backward formula is
  written in ftrans primitive operations, so it can itself be differentiated
  (``create_graph=True``).

Operands that a formula does not need are replaced by a :class:`Meta` stand-in
(shape and dtype only), so that -- as in PyTorch -- they are neither kept alive nor
version-checked.

Views (``x[0]``, ``x.t()``, ``x.view(...)`` ...) share their base's storage and
version counter and remember the chain of (primitive, parameters) that produces them
from their base.  An in-place operation on a view rewrites the *base*'s history with a
:class:`CopySlices` node and gives the view a fresh :class:`AsStridedBackward0` node on
top of it; other views of the same base notice the version change and regenerate
their ``grad_fn`` the same way when next used.

This file holds the op nodes, views and ``allow_mutation_on_saved_tensors``; saved tensors
and their hooks are in ``_saved.py``, gradient edges and graph tasks in ``_graph_task.py``
(their public names are re-exported here, as ``torch.autograd.graph`` has them).
"""
from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from ... import primitives as P
from .. import _tensor
from .._tensor import _make
from ..types import Tensor
from . import _events
from ._node import (_seq, _acc_seq, _lock, FREED, NO_EDGE, freed_error, Meta,  # noqa: F401
                    meta, RemovableHandle, Node, AccumulateGrad)
from ._graph_task import (  # noqa: F401  (graph's names: the engine and torch.autograd.graph)
    GradientEdge, GraphTask, _current_graph_task_id, _task_tls, _will_engine_execute_node,
    check_gradient_edge, edge_meta, get_gradient_edge, register_multi_grad_hook,
)
from ._saved import (  # noqa: F401  (graph's names: _ops, function, the engine, tests)
    SavedTensor, _Packed, _tls_hooks, disable_saved_tensors_hooks, increment_version, save,
    save_on_cpu, save_out, saved_tensors_hooks, unpack, version_error,
)


__all__ = ["Node", "AccumulateGrad", "RemovableHandle", "SavedTensor", "saved_tensors_hooks",
           "save_on_cpu", "disable_saved_tensors_hooks", "GradientEdge", "get_gradient_edge",
           "CopySlices", "node_class", "register_multi_grad_hook", "increment_version",
           "allow_mutation_on_saved_tensors"]

# _ops._convert (a recorded dtype conversion, for create_graph formulas on promoted operands):
# compat._ops is above this module and sets it when it is imported.
_convert: Callable[..., Any] | None = None


# ------------------------------------------------- allow_mutation_on_saved_tensors
class _Handle:
    """What the pack hook of :func:`allow_mutation_on_saved_tensors` returns for one saved
    tensor (weakly referenced by the context: it lives as long as the saved entry)."""

    __slots__ = ("__weakref__",)


class _AllowMutationOnSavedContext:
    """State of one :func:`allow_mutation_on_saved_tensors` block (what it yields):
    ``original`` {handle: the tensor saved}, ``cloned`` {handle: the copy of its value made
    just before it was modified in place}, ``tid_to_weakhandle`` {(id, storage, version):
    handle}, and the handles by storage (version counter) for the in-place check.
    Entries go away with the graph that saved them; :meth:`clear` drops everything."""

    def __init__(self) -> None:
        self.cloned: weakref.WeakKeyDictionary[_Handle, Tensor] = weakref.WeakKeyDictionary()
        self.original: weakref.WeakKeyDictionary[_Handle, Tensor] = \
            weakref.WeakKeyDictionary()
        self.tid_to_weakhandle: weakref.WeakValueDictionary[tuple[int, int, int], _Handle] = \
            weakref.WeakValueDictionary()
        # id(version counter) -> (counter, WeakSet of handles)
        self._by_storage: dict[int, tuple[Any, weakref.WeakSet[_Handle]]] = {}

    def clear(self) -> None:
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self._by_storage.clear()

    def _pack(self, tensor: Tensor) -> _Handle:
        vc = tensor._vc
        tid = (id(tensor), id(vc), vc[0])  # the same tensor saved twice at one version
        handle = self.tid_to_weakhandle.get(tid)
        if handle is None:
            handle = _Handle()
            self.tid_to_weakhandle[tid] = handle
            self.original[handle] = tensor
            reg = self._by_storage.get(id(vc))
            if reg is None or reg[0] is not vc:
                reg = self._by_storage[id(vc)] = (vc, weakref.WeakSet())
            reg[1].add(handle)
        return handle

    def _unpack(self, handle: _Handle) -> Tensor:
        if _amst_ctx is not self:
            raise AssertionError(
                "Trying to backward outside of the 'allow_mutation_on_saved_tensors' context "
                "in which the graph was originally recorded: run the forward and the backward "
                "inside the same context.")
        t = self.cloned.get(handle)
        if t is None:
            t = self.original.get(handle)
            if t is None:
                raise AssertionError(
                    "Trying to backward outside of the 'allow_mutation_on_saved_tensors' "
                    "context in which the graph was originally recorded.")
        return t

    def _before_write(self, t: Tensor) -> None:
        """``t`` is about to be modified in place: copy the value of every saved tensor that
        shares its storage (same version counter) and overlaps its memory."""
        reg = self._by_storage.get(id(t._vc))
        if reg is None or reg[0] is not t._vc:
            return
        d = t._data
        for handle in list(reg[1]):
            orig = self.original.get(handle)
            if orig is None:
                continue
            od = orig._data
            if od is d or np.may_share_memory(od, d):
                self.cloned[handle] = _make(np.array(od, copy=True))
                del self.original[handle]
                reg[1].discard(handle)


_amst_lock = threading.Lock()
# the active context (process-wide, as PyTorch's flag)
_amst_ctx: _AllowMutationOnSavedContext | None = None
# called with the tensor before every in-place write (_ops._commit)
_write_guard: Callable[[Tensor], None] | None = None


def _set_write_guard(ctx: _AllowMutationOnSavedContext | None) -> None:
    """Route the compat layer's in-place writes (``_ops._commit``, where every in-place
    operation writes) through ``ctx._before_write`` -- PyTorch uses a dispatch mode that
    sees every mutating operator -- or restore the plain write (``ctx`` None)."""
    global _write_guard
    _write_guard = None if ctx is None else ctx._before_write


@contextlib.contextmanager
def allow_mutation_on_saved_tensors() -> Iterator[_AllowMutationOnSavedContext]:
    """Context manager under which tensors saved for backward may be modified in place.

    ``torch.autograd.graph.allow_mutation_on_saved_tensors``: a saved tensor is copied
    just before an in-place operation writes into its memory (the tensor itself or a view
    sharing its storage), and backward uses the copy -- the value saved -- instead of
    raising the in-place-modification ``RuntimeError`` (autograd-mechanics.md, "In-place
    correctness checks"; the copy is made by a saved-tensor hook pair, "Hooks for saved
    tensors").  "Shares its storage" is: the same version counter (a view, ``detach()``) and
    overlapping memory -- PyTorch compares data pointers, which misses a view that starts
    elsewhere in the storage (the clone is then not made; the packed value is not version
    checked either way).

    It installs a :class:`saved_tensors_hooks` pair (so ``RuntimeError`` inside
    :func:`disable_saved_tensors_hooks`) and yields its :class:`_AllowMutationOnSavedContext`,
    cleared on exit.  The forward and the backward must both run inside the same block:
    unpacking a saved tensor outside it raises ``AssertionError``, as PyTorch.

    Yields
    ------
    _AllowMutationOnSavedContext
        The block's state (original and cloned saved tensors).

    Raises
    ------
    RuntimeError
        Entering while a block is active (in any thread: PyTorch's flag is
        process-wide), or inside :func:`disable_saved_tensors_hooks`.
    """
    global _amst_ctx
    ctx = _AllowMutationOnSavedContext()
    with saved_tensors_hooks(ctx._pack, ctx._unpack):
        with _amst_lock:
            if _amst_ctx is not None:
                raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
            _amst_ctx = ctx
            _set_write_guard(ctx)
        try:
            yield ctx
        finally:
            with _amst_lock:
                _set_write_guard(None)
                _amst_ctx = None
            ctx.clear()


# ----------------------------------------------------------------------------- op nodes
class OpNode(Node):
    """A node whose backward is a formula over its saved values.

    ``_bwd(node, ct, primals, ans, needs) -> list`` (class attribute) gets the output
    cotangent, the unpacked operands (arrays, or ``Meta`` for those not saved), the
    unpacked output (or None) and which operands need a gradient; it returns one
    cotangent (or None) per operand.  For primitive nodes it is the primitive's VJP rule.
    """

    __slots__ = ("_prim", "_params", "_saved", "_smask", "_outsv", "_needs", "_released",
                 "_casts", "_tsv")  # _tsv: _saved holds saved tensors (tuples/_Packed)
    _fast = True         # the engine may run it inline (see _engine._run)
    _names: tuple[str, ...] = ()  # PyTorch's names of the operands (for _saved_<name>)
    _result: str | None = "result"   # PyTorch's name of the saved output
    # {name: fn(node) -> value} for non-tensor saved attributes
    _param_attrs: dict[str, Callable[[Any], Any]] | None = None
    _prim: Any
    _params: Any       # the primitive's parameters (None for view nodes)
    _saved: Any
    _smask: int
    _outsv: Any
    _needs: tuple[bool, ...]
    _released: bool
    _casts: Any
    _tsv: int        # truthy when _saved holds tuples/_Packed (a bool, or a save mask)

    def _bwd(self, ct: Any, primals: list[Any], ans: Any, needs: Sequence[bool]) -> Any:
        return self._prim.vjp(ct, ans, primals, needs, **self._params)

    def _claim(self, keep: bool) -> tuple[Any, Any]:
        """(saved, outsv) for one backward; frees them now unless ``keep`` (atomically,
        so that a second backward, e.g. from another thread, raises).  A node that saved
        nothing is never freed: it can be traversed again (as in PyTorch)."""
        if keep or not (self._smask or self._outsv is not None):
            saved = self._saved
            if saved is None:
                raise freed_error()
            return saved, self._outsv
        with _lock:
            saved, outsv = self._saved, self._outsv
            self._free()
        if saved is None:
            raise freed_error()
        return saved, outsv

    def _unclaim(self, saved: Any, outsv: Any) -> None:
        """Put back the values ``_claim`` freed: the backward formula raised (an unpack hook,
        a version check ...).  As in PyTorch, whose engine releases a node's saved variables
        only after it ran, a second backward then meets the same error instead of
        "backward through the graph a second time"."""
        if saved is None:
            return
        with _lock:
            if self._saved is None:
                self._saved = saved
                self._outsv = outsv
                self._released = False

    def _free(self) -> None:
        """Drop the saved values (a node that saved any can never run again)."""
        if self._smask or self._outsv is not None:
            self._released = True
            self._saved = None
            self._outsv = FREED

    def _primals(self, saved: Sequence[Any], as_tensor: bool) -> list[Any]:
        out = []
        for s in saved:
            ts = type(s)
            if ts is tuple or ts is _Packed or s is FREED:
                v = unpack(s, self, as_tensor)
                if as_tensor and ts is tuple and v._data.dtype != s[1].dtype:
                    # an operand promoted for the computation (real -> complex, float32 ->
                    # float64 ...): the formula reads the promoted value, as it does
                    # without create_graph (the conversion is recorded, so the gradient
                    # reaches the operand, converted back)
                    v = _convert(v, s[1].dtype)  # type: ignore[misc]  # set by _ops
                out.append(v)
            else:
                out.append(s)
        return out

    def _apply(self, ct: Any, saved: Any, outsv: Any, wrap: Callable[[Any], Any] | None
               ) -> Any:
        """Input cotangents for the output cotangent ``ct``.  ``wrap`` is None (arrays,
        no recording) or, for ``create_graph``, a function turning a Tensor into a tracer
        of the recording trace (see ``_engine``)."""
        as_tensor = wrap is not None
        primals = self._primals(saved, as_tensor)
        ans = None if outsv is None else unpack(outsv, self, as_tensor)
        if wrap is not None:
            primals = [wrap(p) for p in primals]
            ans = wrap(ans)
        needs = self._needs
        res = self._bwd(ct, primals, ans, needs)
        if self._casts is not None:
            return self._fix_outs(res, primals, needs)
        for o, nd in zip(res, needs):
            if o is None and nd:
                return self._fix_outs(res, primals, needs)
        return res

    def _fix_outs(self, res: Sequence[Any], primals: Sequence[Any], needs: Sequence[bool]
                  ) -> list[Any]:
        """Zeros for needed inputs that got no gradient (PyTorch materializes them), and
        gradients converted back to the dtype of operands that were promoted."""
        res = list(res)
        for i, r in enumerate(res):
            if r is None and needs[i]:
                p = primals[i]
                res[i] = np.zeros(p.shape, p.dtype)
        casts = self._casts
        if casts is not None:
            for i, dt in enumerate(casts):
                if dt is not None and res[i] is not None and res[i].dtype != dt:
                    res[i] = P.convert_element_type(res[i], dt)
        return res

    # --- _saved_<name> / _raw_saved_<name> ---------------------------------------
    def _key_of(self, name: str) -> int | str | None:
        cls = type(self)
        if name == cls._result:
            return "out"
        names = cls._names
        if name in names:
            return names.index(name)
        return None

    def _get_saved(self, key: Any) -> Any:
        if key == "out":
            return self._outsv
        if not (self._smask >> key) & 1:
            return None
        if self._saved is None:
            return FREED
        return self._saved[key]

    def _set_saved(self, key: Any, v: Any) -> None:
        if key == "out":
            self._outsv = v
        else:
            self._saved[key] = v

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("_saved_"):
            name, raw = attr[7:], False
        elif attr.startswith("_raw_saved_"):
            name, raw = attr[11:], True
        else:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{attr}'")
        key = self._key_of(name)
        if key is None:
            pa = type(self)._param_attrs
            if pa is not None and name in pa and not raw:
                return pa[name](self)
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{attr}'")
        sv = self._get_saved(key)
        if raw:
            # as in PyTorch, also for a value that was not saved (None) or was freed: its
            # register_hooks raises
            if sv is None or sv is FREED or type(sv) in (tuple, _Packed):
                return SavedTensor(self, key)
            return None
        if sv is FREED:
            raise freed_error()
        if sv is None:
            return None
        if type(sv) in (tuple, _Packed):
            return unpack(sv, self, True)
        return _make(np.asarray(sv))

    def __dir__(self) -> list[str]:
        cls = type(self)
        extra = [f"_saved_{n}" for n in cls._names]
        extra += [f"_raw_saved_{n}" for n in cls._names]
        if cls._result:
            extra += [f"_saved_{cls._result}", f"_raw_saved_{cls._result}"]
        if cls._param_attrs:
            extra += [f"_saved_{n}" for n in cls._param_attrs]
        return sorted(set(super().__dir__()) | set(extra))


_CLASSES: dict[tuple[Any, ...], type[OpNode]] = {}


def node_class(name: str, names: Sequence[str] = (), bwd: Callable[..., Any] | None = None,
               *, result: str | None = "result", edge_idx: tuple[int, ...] | None = None,
               params: Mapping[str, Callable[[Any], Any]] | None = None,
               base: type[OpNode] | None = None) -> type[OpNode]:
    """The node class called ``name`` (created on first use, then cached).

    Parameters
    ----------
    name : str
        The class name, PyTorch's (``"MulBackward0"``).
    names : sequence of str, optional
        PyTorch's names of the operands (for ``_saved_<name>``).
    bwd : callable, optional
        The backward formula ``bwd(node, ct, primals, ans, needs) -> list``; by default
        the primitive's VJP rule.
    result : str or None, optional
        PyTorch's name of the saved output.
    edge_idx : tuple of int, optional
        The operands shown in ``next_functions`` (all by default).
    params : dict, optional
        ``{attribute name: fn(node)}`` for ``_saved_<name>`` of non-tensor values.
    base : type, optional
        The base class (:class:`OpNode` by default).

    Returns
    -------
    type
        A subclass of ``base``.
    """
    key = (name, bwd, base, tuple(names), result, edge_idx,
           None if params is None else tuple(sorted(params)))
    cls = _CLASSES.get(key)
    if cls is not None:
        return cls
    ns: dict[str, Any] = {"__slots__": (), "_names": tuple(names), "_result": result,
                          "_edge_idx": edge_idx, "_param_attrs": params}
    if bwd is not None:
        ns["_bwd"] = bwd
    cls = type(name, (base or OpNode,), ns)
    _CLASSES[key] = cls
    return cls


def new_node(cls: type[OpNode], prim: Any, params: dict[str, Any] | None,
             nxt: tuple[Any, ...], saved: Any, smask: int, outsv: Any,
             needs: tuple[bool, ...]) -> Any:
    n = object.__new__(cls)
    n._next = nxt
    n._seq = next(_seq)
    n._hk = None
    n._prim = prim
    n._params = params
    n._saved = saved
    n._smask = smask
    n._outsv = outsv
    n._needs = needs
    n._released = False
    n._casts = None
    n._tsv = any(type(v) is tuple or type(v) is _Packed for v in saved)
    if _events.node_created:
        _events.created(n)
    return n


# ------------------------------------------------------------------------------- views
def view_apply(chain: Sequence[Any], g: Any) -> Any:
    """Apply the view chain (base -> view) to ``g`` (an array or tracer)."""
    for prim, params, meta, extra in chain:
        g = prim.bind(g, *extra, **params)
    return g


def view_transpose(chain: Sequence[Any], g: Any) -> Any:
    """The adjoint of :func:`view_apply`: put ``g`` (view-shaped) into a base-shaped zero."""
    for prim, params, meta, extra in reversed(chain):
        g = prim.vjp(g, None, [meta, *extra], [True] + [False] * len(extra), **params)[0]
    return g


class ViewNode(OpNode):
    """``AsStridedBackward0``: a view regenerated on top of its base's current history."""

    __slots__ = ("_chain",)
    _fast = False
    _chain: Sequence[Any]

    def _bwd(self, ct: Any, primals: list[Any], ans: Any, needs: Sequence[bool]) -> Any:
        return [view_transpose(self._chain, ct)]


ViewNode.__name__ = ViewNode.__qualname__ = "AsStridedBackward0"


def new_view_node(chain: Sequence[Any], base_edge: tuple[Any, int]) -> ViewNode:
    n = new_node(ViewNode, None, None, (base_edge,), [], 0, None, (True,))
    n._chain = chain
    return n


class CopySlices(OpNode):
    """History of a base after an in-place operation on one of its views: the base's
    region covered by the view is replaced by the in-place operation's result.  ``_fn``
    is the in-place operation's node and ``_k`` which of its inputs is the view."""

    __slots__ = ("_chain", "_fn", "_k")
    _fast = False
    _chain: Sequence[Any]
    _fn: Any
    _k: int

    def name(self) -> str:
        """The node's name, ``"torch::autograd::CopySlices"`` as in PyTorch.

        Returns
        -------
        str
            ``"torch::autograd::CopySlices"``.
        """
        return "torch::autograd::CopySlices"

    def _claim(self, keep: bool) -> tuple[Any, Any]:
        return self._fn._claim(keep)

    def _free(self) -> None:
        self._fn._free()

    def _unclaim(self, saved: Any, outsv: Any) -> None:
        self._fn._unclaim(saved, outsv)

    def _apply(self, ct: Any, saved: Any, outsv: Any, wrap: Callable[[Any], Any] | None
               ) -> Any:
        chain = self._chain
        g_region = view_apply(chain, ct)
        inner = list(self._fn._apply(g_region, saved, outsv, wrap))
        g_base = P.sub(ct, view_transpose(chain, g_region))
        k = self._k
        g_old = inner[k]
        if g_old is not None:
            g_base = P.add(g_base, view_transpose(chain, g_old))
        inner[k] = g_base
        return inner

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("_saved_") or attr.startswith("_raw_saved_"):
            return getattr(self._fn, attr)
        raise AttributeError(f"'CopySlices' object has no attribute '{attr}'")


def new_copy_slices(fn: Any, chain: Sequence[Any], base_edge: tuple[Any, int], k: int = 0
                    ) -> CopySlices:
    """The CopySlices node for ``fn`` modifying in place its input ``k``, a view (``chain``
    from its base, whose history is ``base_edge``)."""
    nxt = list(fn._next)
    nxt[k] = base_edge
    needs = list(fn._needs)
    needs[k] = True
    n = new_node(CopySlices, None, None, tuple(nxt), [], 0, None, tuple(needs))
    n._chain = chain
    n._fn = fn
    n._k = k
    return n


setattr(_tensor, "_new_view_node", new_view_node)   # see _tensor._new_view_node
