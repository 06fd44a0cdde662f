"""The base of the compat graph: :class:`Node`, ``AccumulateGrad``, hook handles, ``Meta``.

The pieces of :mod:`.graph` that the ``Tensor`` class (:mod:`ftrans.compat._tensor`) needs,
kept below it so that imports point one way: ``_node`` <- ``_tensor`` <- ``graph`` <- ``_ops``
<- ``forward_ad``, ``_engine`` ...  :mod:`.graph` re-exports every public name.
"""
from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from typing import Any, Literal

from . import _events

# ``grad_fn(*grads)`` runs the engine, which is above this module: autograd._engine sets
# this to its ``call_node`` when it is imported (an import here would close a circle).
_call_node: Callable[[Node, tuple[Any, ...]], Any] | None = None

_seq = itertools.count()
# AccumulateGrad nodes get the highest sequence numbers: they run as soon as they are ready
_acc_seq = itertools.count(1 << 62)
_lock = threading.Lock()   # claims of saved buffers, .grad accumulation


class _Freed:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<freed>"


FREED = _Freed()
NO_EDGE: tuple[Node | None, int] = (None, 0)


def freed_error() -> RuntimeError:
    return RuntimeError(
        "Trying to backward through the graph a second time (or directly access saved "
        "tensors after they have already been freed). Saved intermediate values of the graph "
        "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
        "you need to backward through the graph a second time or if you need to access saved "
        "tensors after calling backward.")


class Meta:
    """Shape and dtype of an operand whose value a backward formula does not read."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape: tuple[int, ...], dtype: Any) -> None:
        self.shape = shape
        self.dtype = dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def __repr__(self) -> str:
        return f"Meta(shape={self.shape}, dtype={self.dtype})"


_new_meta = object.__new__


def meta(d: Any) -> Meta:
    """``Meta`` of the array ``d`` (without the cost of calling ``__init__``)."""
    m = _new_meta(Meta)
    m.shape = d.shape
    m.dtype = d.dtype
    return m


class RemovableHandle:
    """The handle that ``register_hook``/``register_prehook`` return.

    ``handle.remove()`` removes the hook; also usable as a context manager (the hook is
    removed on exit).

    Parameters
    ----------
    d : dict
        The hook table to register into (hook id -> hook).
    fn : callable
        The hook.
    """

    __slots__ = ("_d", "id")
    _ids = itertools.count()

    def __init__(self, d: dict[Any, Any], fn: Callable[..., Any]) -> None:
        self._d: dict[Any, Any] | None = d
        self.id = next(RemovableHandle._ids)
        d[self.id] = fn

    def remove(self) -> None:
        """Remove the hook (no effect if it was removed already)."""
        d = self._d
        if d is not None:
            d.pop(self.id, None)
            self._d = None

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: Any) -> Literal[False]:
        self.remove()
        return False


class _Hooks:
    __slots__ = ("pre", "post", "tpre", "rgh", "meta")

    def __init__(self) -> None:
        # node pre-hooks: {id: fn(grad_outputs)}
        self.pre: dict[int, Callable[..., Any]] | None = None
        # node hooks: {id: fn(grad_inputs, grad_outputs)}
        self.post: dict[int, Callable[..., Any]] | None = None
        # tensor hooks of non-leaf outputs: {output_nr: {id: fn(grad)}}
        self.tpre: dict[int, dict[int, Callable[..., Any]]] | None = None
        self.rgh: dict[int, Any] | None = None     # retain_grad: {output_nr: tensor}
        self.meta: dict[Any, Any] | None = None


class Node:
    """A node of the backward graph (PyTorch's ``torch.autograd.graph.Node``)."""

    __slots__ = ("_next", "_seq", "_hk", "__weakref__")
    _next: Any         # the edges (node, input_nr) to the inputs' nodes
    _seq: int
    _hk: _Hooks | None
    _edge_idx: Any = None   # indices of _next shown as next_functions (None: all)
    _nout = 1          # number of outputs (gradient slots); > 1 only for custom Functions
    _custom = False    # a custom autograd.Function node (runs ``_call_backward``)

    def name(self) -> str:
        """The node's name, e.g. ``"MulBackward0"``.

        Returns
        -------
        str
            The name PyTorch gives the same node.
        """
        return type(self).__name__

    @property
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        """One ``(node, input_nr)`` pair per differentiable input.

        ``(None, 0)`` where the input does not require grad.
        """
        nx = self._next
        idx = self._edge_idx
        if idx is not None:
            return tuple(nx[i] for i in idx if i < len(nx))
        return tuple(nx)

    @property
    def metadata(self) -> dict[Any, Any]:
        """A dict for the user's own data (empty at first)."""
        hk = self._hooks()
        if hk.meta is None:
            hk.meta = {}
        return hk.meta

    def _hooks(self) -> _Hooks:
        hk = self._hk
        if hk is None:
            hk = self._hk = _Hooks()
        return hk

    def register_hook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """Register a hook called after the node ran.

        Parameters
        ----------
        fn : callable
            ``fn(grad_inputs, grad_outputs) -> tuple or None``; a returned tuple replaces
            ``grad_inputs``.

        Returns
        -------
        RemovableHandle
            ``handle.remove()`` removes the hook.
        """
        hk = self._hooks()
        if hk.post is None:
            hk.post = {}
        return RemovableHandle(hk.post, fn)

    def register_prehook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """Register a hook called before the node runs.

        Parameters
        ----------
        fn : callable
            ``fn(grad_outputs) -> tuple or None``; a returned tuple replaces
            ``grad_outputs``.

        Returns
        -------
        RemovableHandle
            ``handle.remove()`` removes the hook.
        """
        hk = self._hooks()
        if hk.pre is None:
            hk.pre = {}
        return RemovableHandle(hk.pre, fn)

    def _register_tensor_hook(self, nr: int, fn: Callable[..., Any]) -> RemovableHandle:
        hk = self._hooks()
        if hk.tpre is None:
            hk.tpre = {}
        d = hk.tpre.get(nr)
        if d is None:
            d = hk.tpre[nr] = {}
        return RemovableHandle(d, fn)

    def _input_metadata(self) -> tuple[Any, ...]:
        return ()

    def _unclaim(self, saved: Any, outsv: Any) -> None:
        """Undo the freeing done by ``_claim`` (its backward raised); nothing to undo here."""

    def __call__(self, *grads: Any) -> Any:
        assert _call_node is not None  # set when autograd._engine is imported
        return _call_node(self, grads)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"


class AccumulateGrad(Node):
    """Adds the gradient into ``variable.grad``; the graph's leaf-side ends.

    Parameters
    ----------
    variable : Tensor
        The leaf tensor whose ``.grad`` receives the gradient.
    """

    __slots__ = ("variable",)

    # ``Any``: this module is below ``Tensor`` (``_tensor`` imports it)
    def __init__(self, variable: Any) -> None:
        self.variable = variable
        self._next = ()
        self._seq = next(_acc_seq)
        self._hk = None
        if _events.node_created:
            _events.created(self)

    def name(self) -> str:
        """The node's name, ``"torch::autograd::AccumulateGrad"`` as in PyTorch.

        Returns
        -------
        str
            ``"torch::autograd::AccumulateGrad"``.
        """
        return "torch::autograd::AccumulateGrad"
