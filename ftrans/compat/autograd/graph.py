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
"""
from __future__ import annotations

import contextlib
import functools
import itertools
import threading
import weakref
from typing import NamedTuple, Optional

import numpy as np

from ... import primitives as P
from .. import _tensor
from .._dtype import from_np
from .._tensor import Tensor, _make, _edge, _extra, _grad_fn_of
from . import anomaly_mode as _AM
from .grad_mode import _tls
from ._node import (_seq, _acc_seq, _lock, FREED, NO_EDGE, freed_error, Meta,  # noqa: F401
                    meta, RemovableHandle, Node, AccumulateGrad)


__all__ = ["Node", "AccumulateGrad", "RemovableHandle", "SavedTensor", "saved_tensors_hooks",
           "save_on_cpu", "disable_saved_tensors_hooks", "GradientEdge", "get_gradient_edge",
           "CopySlices", "node_class", "register_multi_grad_hook", "increment_version",
           "allow_mutation_on_saved_tensors"]

# _ops._convert (a recorded dtype conversion, for create_graph formulas on promoted operands):
# compat._ops is above this module and sets it when it is imported.
_convert = None

class GradientEdge(NamedTuple):
    """Where the gradient of a tensor is computed: ``(node, output_nr)``
    (``torch.autograd.graph.GradientEdge``; ``ownership_token`` is always None here: the
    node object keeps its graph alive)."""

    node: Node
    output_nr: int
    ownership_token: Optional[Node] = None


def get_gradient_edge(tensor) -> GradientEdge:
    """The :class:`GradientEdge` of ``tensor``: its ``grad_fn`` and output number, or the
    ``AccumulateGrad`` node of a leaf (``torch.autograd.graph.get_gradient_edge``).
    ``RuntimeError`` if ``tensor`` does not require grad."""
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    node, nr = _edge(tensor)
    d = tensor._data
    if type(node) is not AccumulateGrad:  # what autograd.grad needs to use it as an output
        with _lock:
            m = _edge_metas.get(node)
            if m is None:
                m = _edge_metas[node] = {}
            m[nr] = (d.shape, d.dtype)
    return GradientEdge(node, nr)


# {node: {output_nr: (shape, dtype)}} recorded by get_gradient_edge (nodes do not keep the
# shape of their outputs; PyTorch's Node._input_metadata does)
_edge_metas = weakref.WeakKeyDictionary()


def check_gradient_edge(e):
    """``(node, output_nr)`` of the :class:`GradientEdge` ``e``; ``RuntimeError`` (as
    PyTorch) if its node is not a :class:`Node`, ``IndexError`` if ``output_nr`` is not one
    of the node's outputs."""
    node, nr = e[0], e[1]
    if not isinstance(node, Node):
        raise RuntimeError(f"GradientEdge's first object must be an autograd.graph.Node but "
                           f"got {type(node).__name__}")
    if not isinstance(nr, int) or not 0 <= nr < node._nout:
        raise IndexError(f"GradientEdge output_nr {nr!r} is out of range: {node.name()} has "
                         f"{node._nout} output(s)")
    return node, nr


def edge_meta(node, nr):
    """:class:`Meta` (shape and dtype) of output ``nr`` of ``node`` -- the tensor whose
    gradient the edge ``(node, nr)`` receives -- or None where the compat graph does not
    know it (a hand-made GradientEdge of a node that saved neither its output nor was
    reached through :func:`get_gradient_edge`)."""
    if type(node) is AccumulateGrad:
        return meta(node.variable._data)
    m = _edge_metas.get(node)
    if m is not None and nr in m:
        return Meta(*m[nr])
    om = getattr(node, "_out_meta", None)  # a custom Function node
    if om is not None and nr < len(om) and om[nr] is not None:
        return Meta(*om[nr])
    o = getattr(node, "_outsv", None)
    if type(o) is tuple:
        return meta(o[1])
    if type(o) is _Packed:
        return Meta(o.shape, o.dtype)
    return None


# ------------------------------------------------------------------------ graph tasks
class _TaskState(threading.local):
    task = None   # the GraphTask the engine runs in this thread (None outside backward)


_task_tls = _TaskState()
_task_ids = itertools.count()


class GraphTask:
    """One ``backward``/``autograd.grad`` call as the engine runs it (PyTorch's
    ``GraphTask``): the engine makes it the thread's current task while it runs
    (``_engine.run_backward`` restores the previous one, so a backward run from a hook is a
    task of its own) and hooks that must know what *this* backward computes ask it
    (:func:`register_multi_grad_hook`).

    ``deps``: every node reachable from the roots; ``visit``: None, or (``autograd.grad``,
    ``backward(inputs=...)``) the nodes that run or are captured; ``cap``: the captured
    nodes; ``state``: per-task data of hooks ({key: value}, made on first use).
    """

    __slots__ = ("root", "deps", "visit", "cap", "state", "id")

    def __init__(self, roots, deps, visit, cap):
        # PyTorch's engine puts a single root's node neither among the nodes of the graph
        # nor (as "should execute") in exec_info -- only a GraphRoot's children are -- so
        # _will_engine_execute_node says False for it; several roots hang from a GraphRoot
        self.root = roots[0][0] if len(roots) == 1 else None
        self.deps = deps
        self.visit = visit
        self.cap = cap
        self.state = None
        self.id = None

    def will_execute(self, node):
        """Whether ``node`` runs (or, for ``autograd.grad``, is captured) in this task
        (``torch._C._will_engine_execute_node``).  ``RuntimeError`` for a leaf's
        AccumulateGrad that ``autograd.grad`` captures, as PyTorch."""
        if node is self.root or node is None:
            return False
        visit = self.visit
        if visit is None:
            return node in self.deps
        if node not in visit:
            return False
        if type(node) is AccumulateGrad and self.cap and node in self.cap:
            raise RuntimeError(
                "A leaf node was passed to _will_engine_execute_node but we are currently "
                "running autograd.grad(). This is currently not supported. (A "
                "register_multi_grad_hook(mode='all') over a leaf tensor cannot count the "
                "gradients of an autograd.grad() call that returns that leaf's gradient: use "
                "backward(inputs=...), or mode='any'.)")
        return True


def _current_task(what):
    task = _task_tls.task
    if task is None:
        raise RuntimeError(f"{what} should only be called during the backward pass")
    return task


def _current_graph_task_id() -> int:
    """An id of the backward pass running in this thread, -1 outside backward
    (``torch._C._current_graph_task_id``)."""
    task = _task_tls.task
    if task is None:
        return -1
    if task.id is None:
        task.id = next(_task_ids)
    return task.id


def _will_engine_execute_node(node) -> bool:
    """Whether ``node`` (a Node or GradientEdge) runs in the current backward pass
    (``torch._C._will_engine_execute_node``); ``RuntimeError`` outside backward."""
    if isinstance(node, GradientEdge):
        node = node.node
    if not isinstance(node, Node):
        raise TypeError(f"_will_engine_execute_node expects a grad_fn (an autograd.graph.Node) "
                        f"or a GradientEdge, got {type(node).__name__}")
    return _current_task("_get_should_execute_nodes").will_execute(node)


class _MultiHandle(RemovableHandle):
    """The handle of :func:`register_multi_grad_hook`: ``remove()`` removes its tensor
    hooks."""

    __slots__ = ("handles",)

    def __init__(self, handles):
        self.handles = handles
        self._d = None
        self.id = None

    def remove(self):
        for h in self.handles:
            h.remove()


def _grad_node(t, i):
    """The node where the gradient of tensor ``t`` (argument ``i``) is computed."""
    if not t.requires_grad:
        raise AssertionError(
            f"Expected gradient function to be set: register_multi_grad_hook(mode='all') "
            f"expects tensors that require grad, but tensor {i} does not (mode='any' skips "
            "such tensors)")
    return _edge(t)[0]


def _running_task():
    task = _task_tls.task
    if task is None:
        raise AssertionError("expected this hook to be called inside a backward call")
    return task


def _task_state(task):
    """The per-backward state dict of multi-grad hooks (call under their lock)."""
    st = task.state
    if st is None:
        st = task.state = {}
    return st


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Register a hook over the gradients of several tensors
    (``torch.autograd.graph.register_multi_grad_hook``, PyTorch 2.13 semantics).

    ``mode="all"``: ``fn(grads)`` -- ``grads`` a list, one entry per tensor of
    ``tensors`` -- is called once per backward pass, from the tensor hook of the last of
    them whose gradient this pass computes; tensors that do not take part in the pass
    (not in the graph, or not needed for the ``inputs`` of this ``backward``/``grad``
    call) are not waited for and get None.  Which tensors take part is asked of the
    engine's current graph task (:class:`GraphTask`): like PyTorch's engine it counts a
    tensor whose node is the *single* root of the pass as not taking part, and it raises
    ``RuntimeError`` when ``autograd.grad`` returns the gradient of a leaf among
    ``tensors``.  Every tensor must require grad (``AssertionError`` otherwise, as
    PyTorch).

    ``mode="any"``: ``fn(grad)`` is called with the first gradient computed among
    ``tensors`` (those that require grad; the others are skipped), once per pass.

    The hooks are ordinary tensor hooks (``Tensor.register_hook``), so they see a
    gradient after the tensor hooks registered before them and must not modify it.  State
    is kept per pass, so passes in several threads (and backward passes run from hooks)
    do not mix.  Returns a handle whose ``remove()`` removes the hook.  ``ValueError``
    for another ``mode``.

    The spec is silent on multi-grad hooks; PyTorch 2.13's observable behaviour is the
    reference (its ``torch/autograd/graph.py`` implements them the same way, on tensor hooks
    and the engine's ``_will_engine_execute_node``).  Gradients are Tensors of the
    tensors' shapes and dtypes (None where none was computed).
    """
    supported_modes = ("all", "any")
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")
    lock = threading.Lock()
    key = object()  # this registration's entry in each task's state
    tensors = tuple(tensors)
    if mode == "all":
        nodes = [_grad_node(t, i) for i, t in enumerate(tensors)]
        n = len(tensors)

        def get_inner_hook(idx):
            def inner_hook(grad):
                task = _running_task()
                with lock:
                    st = _task_state(task)
                    entry = st.get(key)
                    if entry is None:  # first gradient of this pass: how many will come
                        entry = st[key] = [0, 0, [None] * n]
                        entry[1] = sum(map(task.will_execute, nodes))
                    count = entry[0]
                    entry[0] = count + 1
                    entry[2][idx] = grad
                    done = count == entry[1] - 1
                    if done:
                        del st[key]
                if done:
                    fn(entry[2])
            return inner_hook

        handles = tuple(t.register_hook(get_inner_hook(i)) for i, t in enumerate(tensors))
    else:
        @functools.wraps(fn)
        def wrapped_fn(grad):
            task = _running_task()
            with lock:
                st = _task_state(task)
                if key in st:
                    return
                st[key] = True
            fn(grad)

        handles = tuple(t.register_hook(wrapped_fn) for t in tensors if t.requires_grad)
    return _MultiHandle(handles)


def increment_version(tensor):
    """Bump the version counter of ``tensor`` (or of each tensor of an iterable), as an
    in-place operation does (``torch.autograd.graph.increment_version``): a backward that
    needs a value saved before then raises the in-place-modification ``RuntimeError``, and
    a view's ``grad_fn`` is regenerated (``AsStridedBackward0``).  Views share their
    base's counter (autograd-mechanics.md, "In-place correctness checks").  Inference tensors have none and are left as they are.  As PyTorch,
    ``RuntimeError`` if ``tensor`` is neither a Tensor nor an iterable of Tensors (the
    tensors before a non-tensor element are bumped, as in PyTorch)."""
    if isinstance(tensor, Tensor):
        tensor = (tensor,)
    try:
        ts = iter(tensor)
    except TypeError:
        raise RuntimeError(f"increment_version expect a Iterable[Tensor] as input, got "
                           f"{type(tensor).__name__}") from None
    for t in ts:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"increment_version expects each element of the iterable to be "
                               f"a tensor, got {type(t).__name__}")
        x = t._x
        if x is None or not x.inference:
            t._vc[0] += 1


# ------------------------------------------------------------------- saved tensors
def version_error(sv, node):
    """PyTorch's error for a saved tensor modified in place since it was saved: it names
    the tensor's *current* ``grad_fn`` (a saved output: the node itself)."""
    t, data, vc, ver = sv[0], sv[1], sv[2], sv[3]
    nr = 0
    if t is not None:
        gf = _grad_fn_of(t)
        nr = t._onr
    else:
        gf = node
    desc = f"[torch.{from_np(data.dtype)._tname} [{', '.join(map(str, data.shape))}]]"
    if gf is not None:
        nm = gf.name()
        if nm.startswith("torch::autograd::"):
            nm = nm[17:]
        for suffix in ("Backward0", "Backward1", "Backward2", "Backward"):
            if nm.endswith(suffix):
                nm = nm[: -len(suffix)]
                break
        desc += f", which is output {nr} of {nm},"
    if _AM._enabled:
        hint = ("Hint: the backtrace further above shows the operation that failed to compute "
                "its gradient. The variable in question was changed in there or anywhere later. "
                "Good luck!")
    else:
        hint = ("Hint: enable anomaly detection to find the operation that failed to compute "
                "its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: {desc} is at version {vc[0]}; expected version {ver} instead. "
        + hint)


class _Packed:
    """A saved tensor packed by saved-tensor hooks: ``obj`` (what the pack hook returned),
    the unpack hook, the autograd edge to restore on unpacking, and the shape and dtype the
    unpacked tensor must have.  No version is checked: as in PyTorch, the unpack hook's
    result only needs the content of the tensor the pack hook got (autograd-mechanics.md,
    "Hooks for saved tensors"), so an in-place change after packing is not an error."""

    __slots__ = ("obj", "unpack", "edge", "is_out", "shape", "dtype")


def unpack(sv, node, as_tensor):
    """Value of the saved entry ``sv`` of ``node``: its array (``as_tensor`` False) or a
    Tensor connected to the graph (for ``create_graph`` and ``_saved_*``)."""
    if type(sv) is tuple:
        t, data, vc, ver, _ = sv
        if vc[0] != ver:
            raise version_error(sv, node)
        if not as_tensor:
            return data
        if t is not None:
            return t
        out = _make(data, node)
        out._vc = vc
        return out
    if type(sv) is _Packed:
        d = _unpacked_data(sv)
        if not as_tensor:
            return d
        if sv.is_out:
            out = _make(d, node)
            return out
        e = sv.edge
        if e[0] is None:
            return _make(d)
        if type(e[0]) is AccumulateGrad:
            # a new tensor object (as PyTorch unpacks) accumulating into the same leaf
            out = _make(d)
            out._rg = True
            _extra(out).acc = weakref.ref(e[0])
            return out
        out = _make(d, e[0])
        out._onr = e[1]
        return out
    if sv is FREED:
        raise freed_error()
    return sv


def save(t, data):
    """Saved entry for tensor ``t`` (its array ``data``) as an input of a node."""
    x = t._x
    if x is not None and x.inference:
        raise RuntimeError(
            "Inference tensors cannot be saved for backward. Please do not use Tensors created "
            "in inference mode in computation tracked by autograd. To work around this, you "
            "can make a clone to get a normal tensor and use it in autograd, or use "
            "`torch.no_grad()` instead of `torch.inference_mode()`.")
    hooks = _tls_hooks.stack
    if hooks:
        return _pack(t, data, hooks[-1], False, None)
    vc = t._vc
    return (t, data, vc, vc[0], t._grad_fn)


def save_out(out_t):
    """Saved entry for the output tensor ``out_t`` of the node being created."""
    hooks = _tls_hooks.stack
    if hooks:
        return _pack(out_t, out_t._data, hooks[-1], True, None)
    vc = out_t._vc
    return (None, out_t._data, vc, vc[0], None)


def _pack(t, data, pair, is_out, edge=None):
    """The :class:`_Packed` entry of tensor ``t`` (array ``data``) under the hook pair
    ``pair``: the pack hook is called now, once, on ``t`` itself (for a saved output, the
    output tensor with its ``grad_fn``), in no-grad mode -- as PyTorch runs it, so that
    operations inside the hook neither record nodes nor save (and pack) tensors.

    Raises whatever the pack hook raises, and ``RuntimeError`` if the hook modifies its
    input in place (PyTorch's check: the version counter moved during the call).
    """
    pack_hook, unpack_hook = pair
    vc = t._vc
    ver = vc[0]
    prev = _tls.grad
    _tls.grad = False
    try:
        obj = pack_hook(t)
    finally:
        _tls.grad = prev
    if vc[0] != ver:
        raise RuntimeError(
            "A saved tensor pack hook is modifying its input in place. Tensors provided as "
            "input to pack hook cannot be modified by in-place operations as this can lead to "
            "unexpected side-effects. Please open an issue if you need to perform in-place "
            "operations on the input to a pack hook.")
    p = _Packed()
    p.obj = obj
    p.unpack = unpack_hook
    p.is_out = is_out
    p.shape = data.shape
    p.dtype = data.dtype
    if is_out:
        p.edge = NO_EDGE
    elif edge is not None:
        p.edge = edge
    else:
        p.edge = _edge(t)
    return p


def _unpacked_data(p):
    """The array of the :class:`_Packed` entry ``p``: the unpack hook's result, called in
    the current grad mode (as PyTorch calls it).  ``TypeError`` if it is not a Tensor,
    ``RuntimeError`` if its shape is not the saved tensor's (PyTorch fails later, in the
    backward formula); another dtype is converted to the saved one."""
    r = p.unpack(p.obj)
    if not isinstance(r, Tensor):
        raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got "
                        f"result of type {type(r).__name__}")
    d = r._data
    if d.shape != p.shape:
        raise RuntimeError(
            f"Saved tensor unpack_hook returned a tensor of shape {list(d.shape)}, but the "
            f"tensor given to pack_hook had shape {list(p.shape)}: unpack_hook must return a "
            "tensor with the same content (shape, dtype and values) as the pack_hook input.")
    if d.dtype != p.dtype:
        d = d.astype(p.dtype)
    return d


class _HookState(threading.local):
    stack = ()             # the (pack_hook, unpack_hook) pairs installed, innermost last
    disabled_msg = None    # error message while disable_saved_tensors_hooks is active


_tls_hooks = _HookState()


def _check_hooks_enabled():
    msg = _tls_hooks.disabled_msg
    if msg is not None:
        raise RuntimeError(msg)


class saved_tensors_hooks:
    """Context manager installing ``pack_hook(tensor) -> object`` and
    ``unpack_hook(object) -> Tensor`` for every tensor saved for backward inside it
    (``torch.autograd.graph.saved_tensors_hooks``; autograd-mechanics.md, "Hooks for
    saved tensors").

    The hooks are thread-local; nested contexts stack and the innermost pair applies.  The
    pack hook is called exactly once per saved tensor, when the operation saves it (in
    no-grad mode); the unpack hook each time the value is needed (each backward, each
    ``grad_fn._saved_<name>`` access).  Entering raises ``TypeError`` if a hook is not
    callable and ``RuntimeError`` (with its message) inside
    :func:`disable_saved_tensors_hooks`.
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        if not callable(self.pack_hook) or not callable(self.unpack_hook):
            raise TypeError(
                "saved_tensors_hooks expects two callables, pack_hook(tensor) -> object and "
                f"unpack_hook(object) -> Tensor; got {type(self.pack_hook).__name__} and "
                f"{type(self.unpack_hook).__name__}")
        _check_hooks_enabled()
        _tls_hooks.stack = _tls_hooks.stack + ((self.pack_hook, self.unpack_hook),)

    def __exit__(self, *exc):
        _tls_hooks.stack = _tls_hooks.stack[:-1]
        return False


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are stored on the CPU and brought back for backward
    (``torch.autograd.graph.save_on_cpu``, a :class:`saved_tensors_hooks`).

    The compat layer has only the CPU, and "if the graph was already on CPU, no tensor copy
    is performed" (PyTorch's documentation): the pack hook keeps ``(device,
    tensor.detach())`` -- the same storage, so an in-place change made after saving is seen
    by backward, as in PyTorch -- and the unpack hook returns that tensor.  ``pin_memory``
    and ``device_type`` are accepted and change nothing.
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor):
            return (tensor.device, tensor.detach())

        def unpack_from_cpu(packed):
            return packed[1]

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str):
    """Context manager (and decorator) under which saved-tensor hooks cannot be installed
    (``torch.autograd.graph.disable_saved_tensors_hooks``): entering
    :class:`saved_tensors_hooks` (or :class:`save_on_cpu`) raises
    ``RuntimeError(error_message)``.  As in PyTorch, entering it while hooks are installed
    raises that error too; nested, the inner message applies until it exits.  Hooks
    registered on one saved tensor (``SavedTensor.register_hooks``) are not affected."""
    prev = _tls_hooks.disabled_msg
    try:
        _tls_hooks.disabled_msg = error_message
        if _tls_hooks.stack:
            raise RuntimeError(error_message)
        yield
    finally:
        _tls_hooks.disabled_msg = prev


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

    def __init__(self):
        self.cloned = weakref.WeakKeyDictionary()
        self.original = weakref.WeakKeyDictionary()
        self.tid_to_weakhandle = weakref.WeakValueDictionary()
        self._by_storage = {}   # id(version counter) -> (counter, WeakSet of handles)

    def clear(self):
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self._by_storage.clear()

    def _pack(self, tensor):
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

    def _unpack(self, handle):
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

    def _before_write(self, t):
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
_amst_ctx = None        # the active context (process-wide, as PyTorch's flag)
_write_guard = None     # called with the tensor before every in-place write (_ops._commit)


def _set_write_guard(ctx):
    """Route the compat layer's in-place writes (``_ops._commit``, where every in-place
    operation writes) through ``ctx._before_write`` -- PyTorch uses a dispatch mode that
    sees every mutating operator -- or restore the plain write (``ctx`` None)."""
    global _write_guard
    _write_guard = None if ctx is None else ctx._before_write


@contextlib.contextmanager
def allow_mutation_on_saved_tensors():
    """Context manager under which tensors saved for backward may be modified in place
    (``torch.autograd.graph.allow_mutation_on_saved_tensors``): a saved tensor is copied
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
    unpacking a saved tensor outside it raises ``AssertionError``, as PyTorch.  Entering
    while a block is active (in any thread: PyTorch's flag is process-wide) raises
    ``RuntimeError``.
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


class SavedTensor:
    """A saved tensor of a node (``grad_fn._raw_saved_<name>``): its :meth:`register_hooks`
    packs it with a hook pair."""

    __slots__ = ("_node", "_key")

    def __init__(self, node, key):
        self._node = node
        self._key = key

    def _get(self):
        return self._node._get_saved(self._key)

    def register_hooks(self, pack_hook, unpack_hook):
        """Pack the saved tensor now with ``pack_hook`` (called at once, on a tensor with its
        content); ``unpack_hook`` is called each time it is needed (by backward or by
        ``_saved_<name>``).

        Raises ``TypeError`` if a hook is not callable, and ``RuntimeError`` -- as PyTorch
        does -- if the graph was freed, if the saved value is None, or if hooks are already
        set (by this method or by :class:`saved_tensors_hooks`).
        """
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("register_hooks expects two callables, pack_hook(tensor) -> object "
                            f"and unpack_hook(object) -> Tensor; got {type(pack_hook).__name__} "
                            f"and {type(unpack_hook).__name__}")
        sv = self._get()
        if sv is FREED:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved variables after calling "
                "backward.")
        if sv is None:
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is "
                               "forbidden")
        if type(sv) is _Packed:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have "
                               "already been set. Hint: only one pair of hooks is allowed at "
                               "a time.")
        if type(sv) is not tuple:
            raise RuntimeError(f"register_hooks: the saved value is not a tensor (got "
                               f"{type(sv).__name__})")
        node = self._node
        # as in PyTorch, the pack hook gets a new tensor with the saved content (no autograd
        # history, the same version counter); the edge is the one recorded at save time
        t = sv[0]
        arg = _make(sv[1])
        arg._vc = sv[2]
        if t is None:  # a saved output
            p = _pack(arg, sv[1], (pack_hook, unpack_hook), True)
        else:
            edge = (sv[4], t._onr) if sv[4] is not None else _edge(t)
            p = _pack(arg, sv[1], (pack_hook, unpack_hook), False, edge)
        node._set_saved(self._key, p)
        if self._key != "out":
            node._tsv = True

    def __repr__(self):
        return f"<SavedTensor object at {id(self):#x}>"


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
    _names = ()          # PyTorch's names of the operands (for _saved_<name>)
    _result = "result"   # PyTorch's name of the saved output
    _param_attrs = None  # {name: fn(node) -> value} for non-tensor saved attributes

    def _bwd(self, ct, primals, ans, needs):
        return self._prim.vjp(ct, ans, primals, needs, **self._params)

    def _claim(self, keep):
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

    def _unclaim(self, saved, outsv):
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

    def _free(self):
        """Drop the saved values (a node that saved any can never run again)."""
        if self._smask or self._outsv is not None:
            self._released = True
            self._saved = None
            self._outsv = FREED

    def _primals(self, saved, as_tensor):
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
                    v = _convert(v, s[1].dtype)
                out.append(v)
            else:
                out.append(s)
        return out

    def _apply(self, ct, saved, outsv, wrap):
        """Input cotangents for the output cotangent ``ct``.  ``wrap`` is None (arrays,
        no recording) or, for ``create_graph``, a function turning a Tensor into a tracer
        of the recording trace (see ``_engine``)."""
        as_tensor = wrap is not None
        primals = self._primals(saved, as_tensor)
        ans = None if outsv is None else unpack(outsv, self, as_tensor)
        if as_tensor:
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

    def _fix_outs(self, res, primals, needs):
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
    def _key_of(self, name):
        cls = type(self)
        if name == cls._result:
            return "out"
        names = cls._names
        if name in names:
            return names.index(name)
        return None

    def _get_saved(self, key):
        if key == "out":
            return self._outsv
        if not (self._smask >> key) & 1:
            return None
        if self._saved is None:
            return FREED
        return self._saved[key]

    def _set_saved(self, key, v):
        if key == "out":
            self._outsv = v
        else:
            self._saved[key] = v

    def __getattr__(self, attr):
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

    def __dir__(self):
        cls = type(self)
        extra = [f"_saved_{n}" for n in cls._names]
        extra += [f"_raw_saved_{n}" for n in cls._names]
        if cls._result:
            extra += [f"_saved_{cls._result}", f"_raw_saved_{cls._result}"]
        if cls._param_attrs:
            extra += [f"_saved_{n}" for n in cls._param_attrs]
        return sorted(set(super().__dir__()) | set(extra))


_CLASSES: dict = {}


def node_class(name, names=(), bwd=None, *, result="result", edge_idx=None, params=None,
               base=None):
    """The node class called ``name`` (created on first use).

    ``names``: PyTorch's names of the operands; ``bwd``: backward formula (default: the
    primitive's VJP rule); ``edge_idx``: operands shown in ``next_functions``;
    ``params``: {attribute name: fn(node)} for ``_saved_<name>`` of non-tensor values.
    """
    key = (name, bwd, base, tuple(names), result, edge_idx,
           None if params is None else tuple(sorted(params)))
    cls = _CLASSES.get(key)
    if cls is not None:
        return cls
    ns = {"__slots__": (), "_names": tuple(names), "_result": result, "_edge_idx": edge_idx,
          "_param_attrs": params}
    if bwd is not None:
        ns["_bwd"] = bwd
    cls = type(name, (base or OpNode,), ns)
    _CLASSES[key] = cls
    return cls


def new_node(cls, prim, params, nxt, saved, smask, outsv, needs):
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
    if _AM._enabled:
        _AM.record(n)
    return n


# ------------------------------------------------------------------------------- views
def view_apply(chain, g):
    """Apply the view chain (base -> view) to ``g`` (an array or tracer)."""
    for prim, params, meta, extra in chain:
        g = prim.bind(g, *extra, **params)
    return g


def view_transpose(chain, g):
    """The adjoint of :func:`view_apply`: put ``g`` (view-shaped) into a base-shaped zero."""
    for prim, params, meta, extra in reversed(chain):
        g = prim.vjp(g, None, [meta, *extra], [True] + [False] * len(extra), **params)[0]
    return g


class ViewNode(OpNode):
    """``AsStridedBackward0``: a view regenerated on top of its base's current history."""

    __slots__ = ("_chain",)
    _fast = False

    def _bwd(self, ct, primals, ans, needs):
        return [view_transpose(self._chain, ct)]


ViewNode.__name__ = ViewNode.__qualname__ = "AsStridedBackward0"


def new_view_node(chain, base_edge):
    n = new_node(ViewNode, None, None, (base_edge,), [], 0, None, (True,))
    n._chain = chain
    return n


class CopySlices(OpNode):
    """History of a base after an in-place operation on one of its views: the base's
    region covered by the view is replaced by the in-place operation's result.  ``_fn``
    is the in-place operation's node and ``_k`` which of its inputs is the view."""

    __slots__ = ("_chain", "_fn", "_k")
    _fast = False

    def name(self):
        return "torch::autograd::CopySlices"

    def _claim(self, keep):
        return self._fn._claim(keep)

    def _free(self):
        self._fn._free()

    def _unclaim(self, saved, outsv):
        self._fn._unclaim(saved, outsv)

    def _apply(self, ct, saved, outsv, wrap):
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

    def __getattr__(self, attr):
        if attr.startswith("_saved_") or attr.startswith("_raw_saved_"):
            return getattr(self._fn, attr)
        raise AttributeError(f"'CopySlices' object has no attribute '{attr}'")


def new_copy_slices(fn, chain, base_edge, k=0):
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


_tensor._new_view_node = new_view_node   # see _tensor._new_view_node
