"""Saved tensors of the compat graph (:mod:`ftrans.compat.autograd.graph`): saving and
unpacking with version checks, the saved-tensor hooks (``saved_tensors_hooks``,
``save_on_cpu``, ``disable_saved_tensors_hooks``), :class:`SavedTensor` and
:func:`increment_version`."""
from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Literal

from .._dtype import from_np
from .._tensor import Tensor, _make, _edge, _extra, _grad_fn_of
from . import _events
from .grad_mode import _tls
from ._node import FREED, NO_EDGE, freed_error, AccumulateGrad

__all__ = ["SavedTensor", "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "increment_version"]


def increment_version(tensor: Tensor | Iterable[Tensor]) -> None:
    """Bump the version counter of tensors, as an in-place operation does.

    ``torch.autograd.graph.increment_version``: a backward that needs a value saved
    before then raises the in-place-modification ``RuntimeError``, and a view's
    ``grad_fn`` is regenerated (``AsStridedBackward0``).  Views share their base's counter
    (autograd-mechanics.md, "In-place correctness checks").  Inference tensors have none
    and are left as they are.

    Parameters
    ----------
    tensor : Tensor or iterable of Tensor
        The tensor, or each tensor of the iterable.

    Raises
    ------
    RuntimeError
        If ``tensor`` is neither a Tensor nor an iterable of Tensors (the tensors before
        a non-tensor element are bumped, as in PyTorch).
    """
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
def version_error(sv: tuple[Any, ...], node: Any) -> RuntimeError:
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
    if _events.node_created:  # forward tracebacks are being recorded (anomaly mode)
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
    obj: Any
    unpack: Callable[[Any], Any]
    edge: tuple[Any, int]
    is_out: bool
    shape: tuple[int, ...]
    dtype: Any


def unpack(sv: Any, node: Any, as_tensor: bool) -> Any:
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


def save(t: Tensor, data: Any) -> Any:
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


def save_out(out_t: Tensor) -> Any:
    """Saved entry for the output tensor ``out_t`` of the node being created."""
    hooks = _tls_hooks.stack
    if hooks:
        return _pack(out_t, out_t._data, hooks[-1], True, None)
    vc = out_t._vc
    return (None, out_t._data, vc, vc[0], None)


def _pack(t: Tensor, data: Any, pair: tuple[Callable[..., Any], Callable[..., Any]],
          is_out: bool, edge: tuple[Any, int] | None = None) -> _Packed:
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


def _unpacked_data(p: _Packed) -> Any:
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
    # the (pack_hook, unpack_hook) pairs installed, innermost last
    stack: tuple[tuple[Callable[..., Any], Callable[..., Any]], ...] = ()
    disabled_msg: str | None = None    # error message while disable_saved_tensors_hooks is active


_tls_hooks = _HookState()


def _check_hooks_enabled() -> None:
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

    Parameters
    ----------
    pack_hook : callable
        ``pack_hook(tensor) -> object``.
    unpack_hook : callable
        ``unpack_hook(object) -> Tensor``: a tensor with the packed tensor's content.
    """

    def __init__(self, pack_hook: Callable[[Tensor], Any],
                 unpack_hook: Callable[[Any], Tensor]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        if not callable(self.pack_hook) or not callable(self.unpack_hook):
            raise TypeError(
                "saved_tensors_hooks expects two callables, pack_hook(tensor) -> object and "
                f"unpack_hook(object) -> Tensor; got {type(self.pack_hook).__name__} and "
                f"{type(self.unpack_hook).__name__}")
        _check_hooks_enabled()
        _tls_hooks.stack = _tls_hooks.stack + ((self.pack_hook, self.unpack_hook),)

    def __exit__(self, *exc: Any) -> Literal[False]:
        _tls_hooks.stack = _tls_hooks.stack[:-1]
        return False


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are stored on the CPU and brought back for backward
    (``torch.autograd.graph.save_on_cpu``, a :class:`saved_tensors_hooks`).

    The compat layer has only the CPU, and "if the graph was already on CPU, no tensor copy
    is performed" (PyTorch's documentation): the pack hook keeps ``(device,
    tensor.detach())`` -- the same storage, so an in-place change made after saving is seen
    by backward, as in PyTorch -- and the unpack hook returns that tensor.

    Parameters
    ----------
    pin_memory : bool, optional
        Accepted; changes nothing.
    device_type : str, optional
        Accepted; changes nothing.
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor: Tensor) -> tuple[Any, Tensor]:
            return (tensor.device, tensor.detach())

        def unpack_from_cpu(packed: tuple[Any, Tensor]) -> Tensor:
            return packed[1]

        super().__init__(pack_to_cpu, unpack_from_cpu)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str) -> Iterator[None]:
    """Context manager (and decorator) under which saved-tensor hooks cannot be installed.

    ``torch.autograd.graph.disable_saved_tensors_hooks``: entering
    :class:`saved_tensors_hooks` (or :class:`save_on_cpu`) raises
    ``RuntimeError(error_message)``.  Nested, the inner message applies until it exits.
    Hooks registered on one saved tensor (``SavedTensor.register_hooks``) are not
    affected.

    Parameters
    ----------
    error_message : str
        The message of the ``RuntimeError``.

    Yields
    ------
    None
        Inside the context.

    Raises
    ------
    RuntimeError
        On entering while hooks are installed, as in PyTorch.
    """
    prev = _tls_hooks.disabled_msg
    try:
        _tls_hooks.disabled_msg = error_message
        if _tls_hooks.stack:
            raise RuntimeError(error_message)
        yield
    finally:
        _tls_hooks.disabled_msg = prev


class SavedTensor:
    """A saved tensor of a node (``grad_fn._raw_saved_<name>``).

    Its :meth:`register_hooks` packs it with a hook pair.

    Parameters
    ----------
    node : Node
        The node that saved it.
    key : int or str
        Its key among the node's saved values.
    """

    __slots__ = ("_node", "_key")

    def __init__(self, node: Any, key: Any) -> None:
        self._node = node
        self._key = key

    def _get(self) -> Any:
        return self._node._get_saved(self._key)

    def register_hooks(self, pack_hook: Callable[[Tensor], Any],
                       unpack_hook: Callable[[Any], Tensor]) -> None:
        """Pack the saved tensor now with a hook pair.

        Parameters
        ----------
        pack_hook : callable
            Called at once, on a tensor with the saved content; returns an object.
        unpack_hook : callable
            Called with that object each time the value is needed (by backward or by
            ``_saved_<name>``); returns a Tensor.

        Raises
        ------
        TypeError
            If a hook is not callable.
        RuntimeError
            As PyTorch: if the graph was freed, if the saved value is None, or if hooks
            are already set (by this method or by :class:`saved_tensors_hooks`).
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

    def __repr__(self) -> str:
        return f"<SavedTensor object at {id(self):#x}>"
