"""The base of the compat graph: :class:`Node`, ``AccumulateGrad``, hook handles, ``Meta``.

The pieces of :mod:`.graph` that the ``Tensor`` class (:mod:`ftrans.compat._tensor`) needs,
kept below it so that imports point one way: ``_node`` <- ``_tensor`` <- ``graph`` <- ``_ops``
<- ``forward_ad``, ``_engine`` ...  :mod:`.graph` re-exports every public name.
"""
from __future__ import annotations

import itertools
import threading

from . import _events

# ``grad_fn(*grads)`` runs the engine, which is above this module: autograd._engine sets
# this to its ``call_node`` when it is imported (an import here would close a circle).
_call_node = None

_seq = itertools.count()
# AccumulateGrad nodes get the highest sequence numbers: they run as soon as they are ready
_acc_seq = itertools.count(1 << 62)
_lock = threading.Lock()   # claims of saved buffers, .grad accumulation


class _Freed:
    __slots__ = ()

    def __repr__(self):
        return "<freed>"


FREED = _Freed()
NO_EDGE = (None, 0)


def freed_error():
    return RuntimeError(
        "Trying to backward through the graph a second time (or directly access saved "
        "tensors after they have already been freed). Saved intermediate values of the graph "
        "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
        "you need to backward through the graph a second time or if you need to access saved "
        "tensors after calling backward.")


class Meta:
    """Shape and dtype of an operand whose value a backward formula does not read."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = shape
        self.dtype = dtype

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    def __repr__(self):
        return f"Meta(shape={self.shape}, dtype={self.dtype})"


_new_meta = object.__new__


def meta(d):
    """``Meta`` of the array ``d`` (without the cost of calling ``__init__``)."""
    m = _new_meta(Meta)
    m.shape = d.shape
    m.dtype = d.dtype
    return m


class RemovableHandle:
    """Returned by ``register_hook``/``register_prehook``: ``handle.remove()`` removes the
    hook (also usable as a context manager)."""

    __slots__ = ("_d", "id")
    _ids = itertools.count()

    def __init__(self, d, fn):
        self._d = d
        self.id = next(RemovableHandle._ids)
        d[self.id] = fn

    def remove(self):
        d = self._d
        if d is not None:
            d.pop(self.id, None)
            self._d = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False


class _Hooks:
    __slots__ = ("pre", "post", "tpre", "rgh", "meta")

    def __init__(self):
        self.pre = None     # node pre-hooks: {id: fn(grad_outputs)}
        self.post = None    # node hooks: {id: fn(grad_inputs, grad_outputs)}
        self.tpre = None    # tensor hooks of non-leaf outputs: {output_nr: {id: fn(grad)}}
        self.rgh = None     # retain_grad: {output_nr: tensor}
        self.meta = None


class Node:
    """A node of the backward graph (PyTorch's ``torch.autograd.graph.Node``)."""

    __slots__ = ("_next", "_seq", "_hk", "__weakref__")
    _edge_idx = None   # indices of _next shown as next_functions (None: all)
    _nout = 1          # number of outputs (gradient slots); > 1 only for custom Functions
    _custom = False    # a custom autograd.Function node (runs ``_call_backward``)

    def name(self) -> str:
        """The node's name, e.g. ``"MulBackward0"``."""
        return type(self).__name__

    @property
    def next_functions(self):
        """One ``(node, input_nr)`` pair per differentiable input (``(None, 0)`` where the
        input does not require grad)."""
        nx = self._next
        idx = self._edge_idx
        if idx is not None:
            return tuple(nx[i] for i in idx if i < len(nx))
        return tuple(nx)

    @property
    def metadata(self) -> dict:
        """A dict for the user's own data (empty at first)."""
        hk = self._hooks()
        if hk.meta is None:
            hk.meta = {}
        return hk.meta

    def _hooks(self):
        hk = self._hk
        if hk is None:
            hk = self._hk = _Hooks()
        return hk

    def register_hook(self, fn):
        """Register ``fn(grad_inputs, grad_outputs) -> tuple or None``, called after the node
        ran; a returned tuple replaces ``grad_inputs``.  Returns a removable handle."""
        hk = self._hooks()
        if hk.post is None:
            hk.post = {}
        return RemovableHandle(hk.post, fn)

    def register_prehook(self, fn):
        """Register ``fn(grad_outputs) -> tuple or None``, called before the node runs; a
        returned tuple replaces ``grad_outputs``.  Returns a removable handle."""
        hk = self._hooks()
        if hk.pre is None:
            hk.pre = {}
        return RemovableHandle(hk.pre, fn)

    def _register_tensor_hook(self, nr, fn):
        hk = self._hooks()
        if hk.tpre is None:
            hk.tpre = {}
        d = hk.tpre.get(nr)
        if d is None:
            d = hk.tpre[nr] = {}
        return RemovableHandle(d, fn)

    def _input_metadata(self):
        return ()

    def _unclaim(self, saved, outsv):
        """Undo the freeing done by ``_claim`` (its backward raised); nothing to undo here."""

    def __call__(self, *grads):
        return _call_node(self, grads)

    def __repr__(self):
        return f"<{type(self).__name__} object at {id(self):#x}>"


class AccumulateGrad(Node):
    """Adds the gradient into ``variable.grad``; the graph's leaf-side ends."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable
        self._next = ()
        self._seq = next(_acc_seq)
        self._hk = None
        if _events.node_created:
            _events.created(self)

    def name(self):
        return "torch::autograd::AccumulateGrad"
