"""Hooks of :class:`~ftrans.compat.nn.Module` (``torch.nn.Module``'s): the handles, the
global forward hooks, and the methods that register and run forward, forward-pre and full
backward hooks (``__call__``), gathered in the base class :class:`_HookMixin`."""
from __future__ import annotations

import itertools
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import ftrans.compat as torch
from ftrans.compat import Tensor

__all__ = ["RemovableHandle", "register_module_forward_pre_hook", "register_module_forward_hook"]


class RemovableHandle:
    """Handle returned by the ``register_*_hook`` methods: ``remove()`` unregisters the
    hook (also usable as a context manager)."""

    _ids = itertools.count()

    def __init__(self, *dicts: dict[int, Any]) -> None:
        self._dicts = [weakref.ref(d) if _weakrefable(d) else (lambda d=d: d) for d in dicts]
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        """Unregister the hook."""
        for r in self._dicts:
            d = r()
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


class _HookDict(OrderedDict):
    """An ordered dict that a weak reference can point to."""


def _weakrefable(d: object) -> bool:
    try:
        weakref.ref(d)
        return True
    except TypeError:
        return False

class _BackwardHookFn(torch.autograd.Function):
    """Identity on tensors whose backward hands the incoming gradients to ``fn``."""

    @staticmethod
    def forward(ctx: Any, fn: Callable[..., Any], *xs: Tensor) -> tuple[Tensor, ...]:
        ctx.fn = fn
        return tuple(x.clone() for x in xs)

    @staticmethod
    def backward(ctx: Any, *grads: Tensor | None) -> tuple[Tensor | None, ...]:
        return (None,) + tuple(ctx.fn(grads))


_global_forward_pre_hooks = _HookDict()
_global_forward_hooks = _HookDict()

#: Set by :mod:`ftrans.compat._compile` while a compiled function stages or runs eagerly
#: after a graph break: ``hook(module, args, kwargs)`` runs each module call (staged: a
#: module with hooks is a break; eagerly: the module is compiled on its own).
_call_hook: Callable[[Any, tuple[Any, ...], dict[str, Any]], Any] | None = None


def register_module_forward_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Register a forward pre-hook common to all modules (``torch.nn.modules.module``'s).

    Parameters
    ----------
    hook : callable
        ``hook(module, args)``, run before each module's own pre-hooks; it may return
        new args.

    Returns
    -------
    RemovableHandle
        ``handle.remove()`` unregisters the hook.
    """
    h = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[h.id] = hook
    return h


def register_module_forward_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Register a forward hook common to all modules (``torch.nn.modules.module``'s).

    Parameters
    ----------
    hook : callable
        ``hook(module, args, output)``, run after ``forward``; a non-None result replaces
        the output.

    Returns
    -------
    RemovableHandle
        ``handle.remove()`` unregisters the hook.
    """
    h = RemovableHandle(_global_forward_hooks)
    _global_forward_hooks[h.id] = hook
    return h


class _HookMixin:
    """The hook methods of :class:`~ftrans.compat.nn.Module` (a base class of it)."""

    # set by Module.__init__
    _forward_pre_hooks: _HookDict
    _forward_pre_hooks_with_kwargs: dict[int, bool]
    _forward_hooks: _HookDict
    _forward_hooks_with_kwargs: dict[int, bool]
    _forward_hooks_always_called: dict[int, bool]
    _backward_hooks: _HookDict
    _is_full_backward_hook: bool | None
    forward: Callable[..., Any]

    def register_forward_pre_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """Register a hook that runs before ``forward``.

        Parameters
        ----------
        hook : callable
            ``hook(module, args)`` (``with_kwargs``: ``hook(module, args, kwargs)``); it may
            return new args (a tuple, or one value that is wrapped in a tuple; with kwargs:
            an ``(args, kwargs)`` pair).
        prepend : bool, optional
            Run before the hooks already registered (default: after them).
        with_kwargs : bool, optional
            Pass the keyword arguments of the call too.

        Returns
        -------
        RemovableHandle
            ``handle.remove()`` unregisters the hook.
        """
        h = RemovableHandle(self._forward_pre_hooks, self._forward_pre_hooks_with_kwargs)
        self._forward_pre_hooks[h.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[h.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(h.id, last=False)
        return h

    def register_forward_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                              with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """Register a hook that runs after ``forward``.

        Parameters
        ----------
        hook : callable
            ``hook(module, args, output)`` (``with_kwargs``: ``hook(module, args, kwargs,
            output)``); a non-None result replaces the output.
        prepend : bool, optional
            Run before the hooks already registered (default: after them).
        with_kwargs : bool, optional
            Pass the keyword arguments of the call too.
        always_call : bool, optional
            Run the hook even when ``forward`` raises.

        Returns
        -------
        RemovableHandle
            ``handle.remove()`` unregisters the hook.
        """
        h = RemovableHandle(self._forward_hooks, self._forward_hooks_with_kwargs,
                            self._forward_hooks_always_called)
        self._forward_hooks[h.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[h.id] = True
        if always_call:
            self._forward_hooks_always_called[h.id] = True
        if prepend:
            self._forward_hooks.move_to_end(h.id, last=False)
        return h

    def register_full_backward_hook(self, hook: Callable[..., Any],
                                    prepend: bool = False) -> RemovableHandle:
        """Register a hook on the gradients with respect to the module's inputs and outputs.

        Parameters
        ----------
        hook : callable
            ``hook(module, grad_input, grad_output)``, run when the gradients with respect to
            the module's (tensor) inputs are computed; ``grad_input``/``grad_output`` are
            tuples (None where an input does not require grad).  A non-None result replaces
            ``grad_input``.
        prepend : bool, optional
            Run before the hooks already registered (default: after them).

        Returns
        -------
        RemovableHandle
            ``handle.remove()`` unregisters the hook.

        Raises
        ------
        RuntimeError
            When mixed with ``register_backward_hook`` on one module.
        """
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        h = RemovableHandle(self._backward_hooks)
        self._backward_hooks[h.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(h.id, last=False)
        return h

    def register_backward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Not provided: PyTorch deprecates it; use ``register_full_backward_hook``.

        Parameters
        ----------
        hook : callable
            Unused.

        Returns
        -------
        RemovableHandle
            Never returns.

        Raises
        ------
        NotImplementedError
            Always.
        """
        raise NotImplementedError("register_backward_hook is deprecated in PyTorch and not "
                                  "provided by ftrans.compat; use register_full_backward_hook")

    # ------------------------------------------------------------------ call
    def _call_impl(self, *args: Any, **kwargs: Any) -> Any:
        if _call_hook is not None:   # while compiled functions stage or run eagerly
            return _call_hook(self, args, kwargs)
        return _call_inner(self, *args, **kwargs)

    def _call_inner(self, *args: Any, **kwargs: Any) -> Any:
        pre = self._forward_pre_hooks
        fwd = self._forward_hooks
        bwd = self._backward_hooks
        if not (pre or fwd or bwd or _global_forward_pre_hooks or _global_forward_hooks):
            return self.forward(*args, **kwargs)
        for hid, hook in itertools.chain(_global_forward_pre_hooks.items(), pre.items()):
            if hid in self._forward_pre_hooks_with_kwargs:
                r = hook(self, args, kwargs)
                if r is not None:
                    if not (isinstance(r, tuple) and len(r) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {r}.")
                    args, kwargs = r
            else:
                r = hook(self, args)
                if r is not None:
                    args = r if isinstance(r, tuple) else (r,)
        state = None
        if bwd and torch.is_grad_enabled():
            args, state = self._wrap_inputs(args)
        result = self.forward(*args, **kwargs)
        for hid, hook in itertools.chain(_global_forward_hooks.items(), fwd.items()):
            if hid in self._forward_hooks_with_kwargs:
                r = hook(self, args, kwargs, result)
            else:
                r = hook(self, args, result)
            if r is not None:
                result = r
        if state is not None:
            result = self._wrap_outputs(result, state)
        return result

    __call__ = _call_impl

    def _run_backward_hooks(self, grad_input: tuple[Tensor | None, ...],
                            grad_output: tuple[Tensor | None, ...]) -> tuple[Tensor | None, ...]:
        for hook in list(self._backward_hooks.values()):
            r = hook(self, grad_input, grad_output)
            if r is not None:
                r = tuple(r) if isinstance(r, (tuple, list)) else (r,)
                if len(r) != len(grad_input):
                    raise RuntimeError(f"Backward hook returned an invalid number of grad_input, "
                                       f"got {len(r)}, but expected {len(grad_input)}")
                grad_input = r
        return grad_input

    def _wrap_inputs(self, args: tuple[Any, ...]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        state: dict[str, Any] = {"grad_output": None, "n_inputs": len(pos), "inputs_rg": False}
        rg = [i for i in pos if args[i].requires_grad]
        if not rg:
            return args, state
        state["inputs_rg"] = True

        others = {i: (tuple(args[i].shape), args[i].dtype, args[i].device) for i in pos
                  if i not in rg}

        def on_inputs(grads: tuple[Tensor | None, ...]) -> tuple[Tensor | None, ...]:
            # tensor inputs that do not require grad get zeros, as in PyTorch
            gi: list[Tensor | None] = [None] * len(pos)
            for i, (shape, dt, dev) in others.items():
                gi[pos.index(i)] = torch.zeros(shape, dtype=dt, device=dev)
            for k, i in enumerate(rg):
                gi[pos.index(i)] = grads[k]
            go = state["grad_output"] or ()
            hooked = self._run_backward_hooks(tuple(gi), go)
            return tuple(hooked[pos.index(i)] for i in rg)
        new = _BackwardHookFn.apply(on_inputs, *[args[i] for i in rg])
        wrapped = list(args)
        for k, i in enumerate(rg):
            wrapped[i] = new[k]
        return tuple(wrapped), state

    def _wrap_outputs(self, result: Any, state: dict[str, Any]) -> Any:
        single = isinstance(result, Tensor)
        outs = (result,) if single else result
        if not isinstance(outs, tuple):
            return result
        idx = [i for i, o in enumerate(outs) if isinstance(o, Tensor) and o.requires_grad]
        if not idx:
            return result

        def on_outputs(grads: tuple[Tensor | None, ...]) -> tuple[Tensor | None, ...]:
            state["grad_output"] = tuple(grads)
            if not state["inputs_rg"]:
                import warnings
                warnings.warn("Full backward hook is firing when gradients are computed with "
                              "respect to module outputs since no inputs require gradients. "
                              "See https://docs.pytorch.org/docs/main/generated/torch.nn.Module"
                              ".html#torch.nn.Module.register_full_backward_hook for more "
                              "details.", UserWarning, stacklevel=2)
                self._run_backward_hooks((None,), tuple(grads))
            return grads
        new = _BackwardHookFn.apply(on_outputs, *[outs[i] for i in idx])
        outs = list(outs)
        for k, i in enumerate(idx):
            outs[i] = new[k]
        return outs[0] if single else tuple(outs)


#: ``Module.__call__`` without the compiled-region hook (what the hook itself runs)
_call_inner = _HookMixin._call_inner
