"""Gradient edges and graph tasks of the compat graph (:mod:`ftrans.compat.autograd.graph`):
:class:`GradientEdge`, the state of the backward pass running in this thread (what the
engine will execute), and :func:`register_multi_grad_hook`, which reads it."""
from __future__ import annotations

import functools
import itertools
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Optional

from .._tensor import _edge
from ..types import Tensor
from ._node import _lock, Meta, meta, RemovableHandle, Node, AccumulateGrad
from ._saved import _Packed

__all__ = ["GradientEdge", "get_gradient_edge", "register_multi_grad_hook"]


class GradientEdge(NamedTuple):
    """Where the gradient of a tensor is computed: ``(node, output_nr)``.

    ``torch.autograd.graph.GradientEdge``, a named tuple.

    Parameters
    ----------
    node : Node
        The node that computes the gradient.
    output_nr : int
        Which output of ``node`` the tensor is.
    ownership_token : Node, optional
        Always None here: the node object keeps its graph alive.
    """

    node: Node
    output_nr: int
    ownership_token: Optional[Node] = None


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """The :class:`GradientEdge` of ``tensor`` (``torch.autograd.graph.get_gradient_edge``).

    Parameters
    ----------
    tensor : Tensor
        A tensor that requires grad.

    Returns
    -------
    GradientEdge
        Its ``grad_fn`` and output number, or the ``AccumulateGrad`` node of a leaf.

    Raises
    ------
    RuntimeError
        If ``tensor`` does not require grad.
    """
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
_edge_metas: weakref.WeakKeyDictionary[Node, dict[int, tuple[Any, Any]]] = \
    weakref.WeakKeyDictionary()


def check_gradient_edge(e: Sequence[Any]) -> tuple[Node, int]:
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


def edge_meta(node: Node, nr: int) -> Meta | None:
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
    # the GraphTask the engine runs in this thread (None outside backward)
    task: GraphTask | None = None


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

    def __init__(self, roots: Sequence[tuple[Node | None, int]], deps: Any, visit: Any,
                 cap: Any) -> None:
        # PyTorch's engine puts a single root's node neither among the nodes of the graph
        # nor (as "should execute") in exec_info -- only a GraphRoot's children are -- so
        # _will_engine_execute_node says False for it; several roots hang from a GraphRoot
        self.root = roots[0][0] if len(roots) == 1 else None
        self.deps = deps
        self.visit = visit
        self.cap = cap
        self.state: dict[Any, Any] | None = None
        self.id: int | None = None

    def will_execute(self, node: Node | None) -> bool:
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


def _current_task(what: str) -> GraphTask:
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


def _will_engine_execute_node(node: Node | GradientEdge) -> bool:
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

    def __init__(self, handles: tuple[RemovableHandle, ...]) -> None:
        self.handles = handles
        self._d = None
        self.id = None  # type: ignore[assignment]  # no table entry of its own

    def remove(self) -> None:
        for h in self.handles:
            h.remove()


def _grad_node(t: Tensor, i: int) -> Node | None:
    """The node where the gradient of tensor ``t`` (argument ``i``) is computed."""
    if not t.requires_grad:
        raise AssertionError(
            f"Expected gradient function to be set: register_multi_grad_hook(mode='all') "
            f"expects tensors that require grad, but tensor {i} does not (mode='any' skips "
            "such tensors)")
    return _edge(t)[0]


def _running_task() -> GraphTask:
    task = _task_tls.task
    if task is None:
        raise AssertionError("expected this hook to be called inside a backward call")
    return task


def _task_state(task: GraphTask) -> dict[Any, Any]:
    """The per-backward state dict of multi-grad hooks (call under their lock)."""
    st = task.state
    if st is None:
        st = task.state = {}
    return st


def register_multi_grad_hook(tensors: Sequence[Tensor], fn: Callable[..., Any], *,
                             mode: str = "all") -> RemovableHandle:
    """Register a hook over the gradients of several tensors.

    ``torch.autograd.graph.register_multi_grad_hook``, PyTorch 2.13 semantics.

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
    do not mix.  Gradients are Tensors of the tensors' shapes and dtypes (None where
    none was computed).

    Parameters
    ----------
    tensors : sequence of Tensor
        The tensors (all requiring grad for ``mode="all"``).
    fn : callable
        ``fn(grads)`` (``mode="all"``) or ``fn(grad)`` (``mode="any"``); returns None.
    mode : {"all", "any"}, optional
        When ``fn`` is called (see above).

    Returns
    -------
    RemovableHandle
        ``remove()`` removes the hook.

    Raises
    ------
    ValueError
        For another ``mode``.
    AssertionError
        With ``mode="all"``, a tensor that does not require grad.

    Notes
    -----
    The spec is silent on multi-grad hooks; PyTorch 2.13's observable behaviour is the
    reference (its ``torch/autograd/graph.py`` implements them the same way, on tensor
    hooks and the engine's ``_will_engine_execute_node``).
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

        def get_inner_hook(idx: int) -> Callable[[Any], None]:
            def inner_hook(grad: Any) -> None:
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
        def wrapped_fn(grad: Any) -> None:
            task = _running_task()
            with lock:
                st = _task_state(task)
                if key in st:
                    return
                st[key] = True
            fn(grad)

        handles = tuple(t.register_hook(wrapped_fn) for t in tensors if t.requires_grad)
    return _MultiHandle(handles)
