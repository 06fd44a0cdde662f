"""``torch.utils.checkpoint`` for ``ftrans.compat``: activation checkpointing.

``checkpoint(function, *args, use_reentrant=..., preserve_rng_state=True, **kwargs)`` runs
``function`` without keeping its intermediate results and recomputes them in the backward
pass, as PyTorch does:

* ``use_reentrant=True`` (PyTorch 2.13's default when the argument is left out, with its
  warning): the forward runs under ``no_grad`` inside one ``autograd.Function``
  (``CheckpointFunctionBackward``); its backward re-runs ``function`` with grad enabled and
  calls ``autograd.backward`` on the recomputed outputs, so parameters used inside
  ``function`` get their ``.grad`` accumulated.  PyTorch refuses it under
  ``autograd.grad`` and ``backward(inputs=...)``; here the gradients of the checkpoint's
  tensor arguments are right there too, but parameters used inside ``function`` get their
  ``.grad`` accumulated as a side effect: use ``use_reentrant=False`` with them.
* ``use_reentrant=False``: the forward records the ordinary graph, but the tensors its
  nodes save are not kept (``autograd.graph.saved_tensors_hooks``): the first backward
  access recomputes ``function`` once and hands out the recomputed values.  Works with
  ``autograd.grad``.

``preserve_rng_state`` restores compat's default generator state for the recomputation,
so random operations (dropout) draw the same numbers.  Under ``compat.func`` transforms
(traced tensors) the call is ``ftrans.checkpoint`` of the function: the transform
recomputes it in its backward pass.  ``context_fn``, ``determinism_check`` and ``debug``
are accepted; only the default values are supported.
"""
from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from ... import transforms as _TR
from ...core.trace import Tracer
from .. import _factories as F
from .. import autograd as _ag
from .._tensor import Tensor
from .._func_core import to_data, to_tensors
from ..autograd.graph import saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "noop_context_fn", "detach_variable"]


class CheckpointError(RuntimeError):
    """``torch.utils.checkpoint.CheckpointError``: the recomputation differed from the
    forward pass (another number of saved tensors)."""


def noop_context_fn() -> tuple[AbstractContextManager[Any], AbstractContextManager[Any]]:
    """``torch.utils.checkpoint.noop_context_fn``: two null contexts.

    Returns
    -------
    tuple of (contextlib.nullcontext, contextlib.nullcontext)
        The contexts of the forward pass and of the recomputation.
    """
    return contextlib.nullcontext(), contextlib.nullcontext()


def detach_variable(inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    """Detached copies of the tensors of a tuple (``torch.utils.checkpoint.detach_variable``).

    Parameters
    ----------
    inputs : tuple
        Tensors and other values.

    Returns
    -------
    tuple
        The tensors detached, keeping their ``requires_grad``; other values as they are.

    Raises
    ------
    RuntimeError
        If ``inputs`` is not a tuple.
    """
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    return tuple(x.detach().requires_grad_(x.requires_grad) if isinstance(x, Tensor) else x
                 for x in inputs)


def _call(function: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    return function(*args, **kwargs)


class CheckpointFunction(_ag.Function):
    """The reentrant checkpoint: forward under ``no_grad``, backward recomputes.

    Parameters
    ----------
    *args, **kwargs : Any
        Ignored (Functions are not instantiated; call ``CheckpointFunction.apply``).
    """

    @staticmethod
    def forward(ctx: Any, run_function: Callable[..., Any],
                preserve_rng_state: bool, *args: Any) -> Any:
        """Run ``run_function(*args)`` under ``no_grad``, saving the tensor arguments.

        Parameters
        ----------
        ctx : FunctionCtx
            The context.
        run_function : callable
            The checkpointed function.
        preserve_rng_state : bool
            Save the default generator's state for the recomputation.
        *args : Any
            The arguments of ``run_function``.

        Returns
        -------
        Any
            What ``run_function`` returns.
        """
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_rng_state = F.get_rng_state()
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with _ag.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple[Any, ...]:
        """Recompute ``run_function`` with grad enabled and backpropagate ``grads``.

        Parameters
        ----------
        ctx : FunctionCtx
            The context.
        *grads : Tensor or None
            The gradients of the outputs.

        Returns
        -------
        tuple
            ``(None, None)`` then the gradient of each argument (None for non-tensors).

        Raises
        ------
        RuntimeError
            If no recomputed output requires grad.
        """
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        detached = detach_variable(tuple(inputs))
        state = F.get_rng_state() if ctx.preserve_rng_state else None
        try:
            if state is not None:
                F.set_rng_state(ctx.fwd_rng_state)
            with _ag.enable_grad():
                outs = ctx.run_function(*detached)
        finally:
            if state is not None:
                F.set_rng_state(state)
        outs = outs if isinstance(outs, tuple) else (outs,)
        pairs = [(o, g) for o, g in zip(outs, grads)
                 if isinstance(o, Tensor) and o.requires_grad and g is not None]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        _ag.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None
                                    for x in detached)


def _any_traced(args: Sequence[Any], kwargs: dict[str, Any]) -> bool:
    return any(isinstance(a, Tensor) and isinstance(a._data, Tracer)
               for a in list(args) + list(kwargs.values()))


def _traced_checkpoint(function: Callable[..., Any], args: Sequence[Any],
                       kwargs: dict[str, Any]) -> Any:
    """Under ``compat.func``: ``ftrans.checkpoint`` of ``function`` on the arrays."""
    datas = to_data((args, kwargs))

    def f(d: Any) -> Any:
        a, k = to_tensors(d)
        return to_data(function(*a, **k))
    return to_tensors(_TR.checkpoint(f)(datas))


def _non_reentrant(function: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any],
                   preserve_rng_state: bool) -> Any:
    """The saved-tensor-hooks checkpoint: nothing the nodes save is kept; the first unpack
    recomputes ``function`` and returns the recomputed values in saving order."""
    rng = F.get_rng_state() if preserve_rng_state else None
    state: dict[str, Any] = {"values": None, "count": 0}

    def pack(t: Tensor) -> int:
        state["count"] += 1
        return state["count"] - 1

    def recompute() -> None:
        values: list[Tensor] = []

        def save(t: Tensor) -> int:
            values.append(t)
            return len(values) - 1
        cur = F.get_rng_state() if rng is not None else None
        detached = detach_variable(tuple(args))
        dkw = {k: (v.detach().requires_grad_(v.requires_grad) if isinstance(v, Tensor) else v)
               for k, v in kwargs.items()}
        try:
            if rng is not None:
                F.set_rng_state(rng)
            with _ag.enable_grad(), saved_tensors_hooks(save, lambda i: values[i]):
                function(*detached, **dkw)
        finally:
            if cur is not None:
                F.set_rng_state(cur)
        if len(values) != state["count"]:
            raise CheckpointError(
                f"torch.utils.checkpoint: A different number of tensors was saved during the "
                f"original forward and recomputation.\nNumber of tensors saved during forward: "
                f"{state['count']}\nNumber of tensors saved during recomputation: "
                f"{len(values)}")
        state["values"] = [v.detach() for v in values]

    def unpack(i: int) -> Tensor:
        if state["values"] is None:
            recompute()
        return state["values"][i]

    with saved_tensors_hooks(pack, unpack):
        return function(*args, **kwargs)


def checkpoint(function: Callable[..., Any], *args: Any, use_reentrant: bool | None = None,
               context_fn: Callable[[], tuple[AbstractContextManager[Any],
                                              AbstractContextManager[Any]]] = noop_context_fn,
               determinism_check: str = "default", debug: bool = False,
               early_stop: bool = True, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` with its intermediate values recomputed in backward.

    ``torch.utils.checkpoint.checkpoint`` (see the module docstring).

    Parameters
    ----------
    function : callable
        The checkpointed function.
    *args : Any
        Its positional arguments.
    use_reentrant : bool, optional
        The variant (module docstring); without it PyTorch 2.13 warns and uses the
        reentrant variant, and so does this.
    context_fn : callable, optional
        Only the default is supported.
    determinism_check : str, optional
        Only ``"default"`` is supported.
    debug : bool, optional
        Only False is supported.
    early_stop : bool, optional
        Accepted (PyTorch's; no effect).
    **kwargs : Any
        ``preserve_rng_state`` (default True), then the function's keyword arguments
        (not with the reentrant variant).

    Returns
    -------
    Any
        What ``function`` returns.

    Raises
    ------
    ValueError
        Another ``context_fn``, ``determinism_check`` or ``debug``, or keyword arguments
        with the reentrant variant.
    CheckpointError
        The recomputation saved another number of tensors than the forward pass.
    """
    preserve = kwargs.pop("preserve_rng_state", True)
    if context_fn is not noop_context_fn or debug or determinism_check != "default":
        raise ValueError("checkpoint: only the default context_fn, determinism_check and "
                         "debug are supported by ftrans.compat")
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed "
                      "explicitly. use_reentrant=False is recommended.", UserWarning,
                      stacklevel=2)
        use_reentrant = True
    if _any_traced(args, kwargs):
        return _traced_checkpoint(function, args, kwargs)
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        return CheckpointFunction.apply(function, preserve, *args)
    return _non_reentrant(function, args, kwargs, preserve)


def checkpoint_sequential(functions: Any, segments: int, input: Any,  # noqa: A002
                          use_reentrant: bool | None = None, **kwargs: Any) -> Any:
    """Run a sequence of modules in checkpointed chunks.

    ``torch.utils.checkpoint.checkpoint_sequential``: the last chunk runs normally, as in
    PyTorch.

    Parameters
    ----------
    functions : Sequential or list of callable
        The modules (or functions), applied in order.
    segments : int
        The number of chunks.
    input : Any
        The input of the first module.
    use_reentrant : bool, optional
        As for :func:`checkpoint`.
    **kwargs : Any
        ``preserve_rng_state`` (default True).

    Returns
    -------
    Any
        The output of the last module.

    Raises
    ------
    ValueError
        Other keyword arguments.
    """
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant "
                      "parameter should be passed explicitly.", UserWarning, stacklevel=2)
        use_reentrant = True
    if hasattr(functions, "children") and not isinstance(functions, (list, tuple)):
        functions = list(functions.children())
    functions = list(functions)

    def run(start: int, end: int) -> Callable[[Any], Any]:
        def forward(x: Any) -> Any:
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant,  # noqa: A001
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)
