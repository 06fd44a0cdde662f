"""Running a custom ``autograd.Function`` on compat tensors
(:mod:`ftrans.compat.autograd.function`): binding the arguments, the ctx node, wrapping the
outputs (``mark_dirty``, ``mark_non_differentiable``), saving, and forward-mode tangents."""
from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import _tensor as T
from .. import _ops as O
from .grad_mode import _tls
from . import _events
from . import forward_ad as _FW
from . import graph as G
from ._function_ctx import FunctionMeta, _NULL

__all__: list[str] = []


def _overrides(cls: type, name: str) -> bool:
    """Whether the Function subclass ``cls`` overrides ``autograd.Function``'s ``name``
    (``autograd.Function`` itself: the last class of the MRO made by :class:`FunctionMeta`)."""
    root = [k for k in cls.__mro__ if isinstance(k, FunctionMeta)][-1]
    return inspect.getattr_static(cls, name) is not inspect.getattr_static(root, name)


def _bind_args(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
               ) -> tuple[Any, ...]:
    if not kwargs:
        return args
    sig = inspect.signature(fn)
    b = sig.bind(*args, **kwargs)
    b.apply_defaults()
    return tuple(b.args)


def _new_ctx(cls: Any) -> Any:
    ctx = object.__new__(cls._backward_cls)
    ctx._next = ()
    ctx._seq = next(G._seq)
    ctx._hk = None
    ctx._saved = None
    ctx.to_save = ()
    ctx.dirty_tensors = ()
    ctx.non_differentiable = ()
    ctx.materialize_grads = True
    if _events.node_created:
        _events.created(ctx)
    return ctx


def _apply(cls: Any, args: Sequence[Any], kwargs: dict[str, Any], custom_setup: bool,
           ctx: Any = None) -> Any:
    Tensor = T.Tensor
    ctx = _new_ctx(cls) if ctx is None else ctx
    is_t = tuple(isinstance(a, Tensor) for a in args)
    needs = tuple(t and T._requires_grad(a) for t, a in zip(is_t, args))
    recording = _tls.grad and any(needs)
    ctx.needs_input_grad = needs
    ctx._is_tensor = is_t
    dual = _FW._active() and any(t and _FW._tangent_of(a) is not None
                                 for a, t in zip(args, is_t))
    prev = _tls.grad
    _tls.grad = False
    try:
        # forward sees the primals only: the output tangents come from ``jvp``
        with _FW._suspended() if dual else _NULL:
            if custom_setup:
                output = cls.forward(*args)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
    finally:
        _tls.grad = prev
    output = _wrap_outputs(ctx, args, is_t, output, recording)
    if dual:
        _forward_grads(cls, ctx, args, is_t, output, _FW)
    return output


def _wrap_outputs(ctx: Any, args: Sequence[Any], is_t: Sequence[bool], output: Any,
                  recording: bool) -> Any:
    """Connect the outputs to the node ``ctx`` (see the module docstring)."""
    Tensor = T.Tensor
    is_tuple = isinstance(output, tuple)
    outs = list(output) if is_tuple else [output]
    dirty = {id(t) for t in ctx.dirty_tensors}
    nondiff = {id(t) for t in ctx.non_differentiable}
    out_ids = {id(o) for o in outs if isinstance(o, Tensor)}
    if not dirty <= out_ids:
        raise RuntimeError("Some elements marked as dirty during the forward method were not "
                           "returned as output. The inputs that are modified inplace must all "
                           "be outputs of the Function.")
    inputs = {id(a) for a, t in zip(args, is_t) if t}
    if recording:  # the edges first: a dirty input's history is rewritten below
        ctx._next = tuple(T._edge(a) for a, t in zip(args, is_t) if t)
        ctx._needs = tuple(n for n, t in zip(ctx.needs_input_grad, is_t) if t)
        ctx._nout = len(outs)
    seen = set()
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            continue
        oid = id(o)
        if oid in dirty and oid not in seen:
            seen.add(oid)
            o._vc[0] += 1
            if recording:
                _rebase_dirty(ctx, o, i, args, is_t)
            continue
        if oid in inputs or oid in seen:
            o = outs[i] = _alias(o)  # an input returned as is: a view of it
        seen.add(oid)
        if (recording and oid not in nondiff and o._data.dtype.kind in "fc"):
            o._grad_fn = ctx
            o._onr = i
    if recording:
        ctx._out_meta = tuple((o._data.shape, o._data.dtype) if isinstance(o, Tensor) else None
                              for o in outs)
        ctx._in_meta = tuple((a._data.shape, a._data.dtype)
                             for a, t in zip(args, is_t) if t)
        _save(ctx, outs)
    return tuple(outs) if is_tuple else outs[0]


def _rebase_dirty(ctx: Any, o: T.Tensor, i: int, args: Sequence[Any], is_t: Sequence[bool]
                  ) -> None:
    """``o`` (output ``i``) was modified in place by ``forward``: its history becomes
    ``ctx`` -- for a view, through a CopySlices node on its base, as for the built-in
    in-place operations (this needs a single-output Function)."""
    x = o._x
    if x is not None and x.base is not None and not x.nograd_view:
        if ctx._nout != 1:
            raise NotImplementedError(
                "ctx.mark_dirty on a view in a Function with several outputs is not supported "
                "by ftrans.compat: clone() the view before calling the Function, or return "
                "one output")
        O._check_inplace(o)
        k = [id(a) for a, t in zip(args, is_t) if t].index(id(o))
        O._rebase(o, ctx, k)
        return
    if o._rg and o._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                           "operation.")
    old, old_nr = o._grad_fn, o._onr
    o._grad_fn = ctx
    o._onr = i
    O._move_retains(o, old, old_nr, ctx)


def _alias(t: T.Tensor) -> T.Tensor:
    """A view of ``t`` with the same shape (what a Function returns for an input)."""
    prev = _tls.grad
    _tls.grad = False
    try:
        v = O.view_as(t, t)
    finally:
        _tls.grad = prev
    x = v._x
    x.nograd_view = False
    x.view_ver = v._vc[0]
    return v


def _save(ctx: Any, outs: Sequence[Any]) -> None:
    """Pack ``ctx.to_save``: outputs of the node are saved without a reference to the
    output object (as PyTorch does, to avoid a cycle), inputs and intermediates by
    reference; entries are ``(is_output, saved value, output_nr)``."""
    pos: dict[int, int] = {}
    for i, o in enumerate(outs):
        if isinstance(o, T.Tensor) and o._grad_fn is ctx:
            pos.setdefault(id(o), i)
    saved: list[Any] = []
    for t in ctx.to_save:
        if t is None:
            saved.append(None)
        elif id(t) in pos:
            saved.append((True, G.save_out(t), pos[id(t)]))
        else:
            saved.append((False, G.save(t, t._data), 0))
    ctx._saved = saved


def _forward_grads(cls: Any, ctx: Any, args: Sequence[Any], is_t: Sequence[bool], output: Any,
                   forward_ad: Any) -> None:
    """Forward-mode AD through the Function: ``jvp(ctx, *tangents)``.  ``forward_ad``: the
    :mod:`.forward_ad` module, or an object with its ``_tangent_of``/``_set_tangent``
    (``_function_transforms._Tangents``)."""
    tangents = [forward_ad._tangent_of(a) if t else None for a, t in zip(args, is_t)]
    if all(t is None for t in tangents):
        return
    tans = [None if t is None else T._make(t) for t in tangents]
    for k, (a, t) in enumerate(zip(args, is_t)):
        if t and tans[k] is None and a._data.dtype.kind in "fc":
            tans[k] = T._make(np.zeros(a._data.shape, a._data.dtype))
    ctx._in_jvp = True
    prev = _tls.grad
    _tls.grad = False
    try:
        res = cls.jvp(ctx, *tans)
    finally:
        _tls.grad = prev
        ctx._in_jvp = False
    outs = output if isinstance(output, tuple) else (output,)
    res = res if isinstance(res, tuple) else (res,)
    if len(res) != len(outs):
        raise RuntimeError(f"{cls.__name__}.jvp returned {len(res)} tangents for {len(outs)} "
                           "outputs: return one tangent (or None) per output of forward")
    nondiff = {id(t) for t in ctx.non_differentiable}
    for o, r in zip(outs, res):
        if r is None or not isinstance(o, T.Tensor) or id(o) in nondiff:
            continue
        if not isinstance(r, T.Tensor) or r._data.shape != o._data.shape:
            raise RuntimeError(f"{cls.__name__}.jvp returned a tangent of shape "
                               f"{getattr(r, 'shape', None)} for an output of shape "
                               f"{list(o._data.shape)}: tangents must have the output's shape")
        forward_ad._set_tangent(o, r._data.astype(o._data.dtype, copy=False))
