"""``compat.compile``: ``torch.compile`` on ftrans's compiler.

A compiled function (or module) is *staged* once per guard key: the arrays of every
Tensor it reads -- its Tensor arguments, the parameters, buffers and Tensor attributes of
the modules it reaches (its own for a module; those its closure and globals name for a
function) -- are replaced by tracers, the function runs once on them (grad mode off: the
trace is the graph, as in ``compat.func``) and the recorded IR is run as one compiled
program (``ftrans.jit``'s ``jit_p``) on every later call.  Because ``jit_p`` has
reverse-mode rules that split the program into a compiled forward that also returns the
residuals and a compiled backward (:func:`ftrans.core.ir.partition`), ``loss.backward()``
after a compiled forward runs compiled too: the results hang off one compat graph node
(:func:`._func_core.run`) whose backward is that program.

What PyTorch users rely on, and how it is kept:

* **State is read at call time.**  Parameters and buffers are program inputs, never
  snapshots, so ``optimizer.step()`` between calls is seen.  A buffer written in place
  (BatchNorm's running statistics, ``x.add_(1)`` on an argument) is a program output
  copied back into the Tensor after the call (its version counter advances).
* **Random numbers** (dropout, ``torch.rand``) are drawn on every call: each draw of the
  generator during staging becomes a program input, and each call replays the same draws
  on the same generator before running the program, so the compiled function consumes
  the random stream exactly as the eager one and gives the same numbers.
* **Graph breaks at function-call granularity** (no bytecode rewriting): what cannot be
  staged -- Python control flow on tensor values, ``.item()``, ``print``, a
  ``compat.compiler.disable``-d function, an operation without a staged form, in-place
  changes of a tensor that requires grad -- makes the function run eagerly, and every
  module called while it runs is compiled on its own (the module tree is the unit:
  compilation resumes at the next submodule).  ``fullgraph=True`` raises
  ``torch._dynamo.exc.Unsupported`` at the first break instead.
* **Guards.**  A new guard key -- shapes (or only ranks once a dimension proved dynamic),
  dtypes, devices, ``requires_grad``, grad mode, the modules' ``training`` flags, the
  non-Tensor arguments -- stages again; after ``compat._dynamo.config.recompile_limit``
  (8, torch's default) keys a function runs eagerly with torch's warning.

Sources: PyTorch's ``torch.compile`` documentation and its programming model
("torch.compiler", "Dynamo core concepts": graphs, graph breaks, guards, recompilation,
``dynamic``); the compiled backward follows AOTAutograd's joint forward/backward
partition.
"""
from __future__ import annotations

import functools
import time
import warnings
import weakref
from collections.abc import Callable
from typing import Any

from .. import config as _config
from ..core.pytree import tree_flatten
from ._compile_report import (ExplainOutput, config, exc, _Recorder, _recorders,
                              _record_break, _record_graph)
from ._compile_stage import (_SCALARS, _TENSOR, _Break, _Graph, _Reads, _hold_hooks,
                             _is_unsupported, _reachable, _reason, _refuse_hooks, _stage,
                             _state, _user_line, graph_break, is_compiling)
from ._tensor import Tensor
from .autograd.grad_mode import is_grad_enabled
from .nn import _module_hooks as _MH
from .nn.module import Module

__all__ = ["compile", "OptimizedModule", "reset", "is_compiling", "disable", "explain",
           "graph_break"]

_MODES = (None, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


# ----------------------------------------------------------------------------- compiled
class _Compiled:
    """A compiled function: its staged graphs by guard key, and its breaks."""

    def __init__(self, fn: Callable[..., Any], owner: Any, fullgraph: bool,
                 dynamic: bool | None, name: str) -> None:
        self.fn, self.owner, self.fullgraph, self.dynamic = fn, owner, fullgraph, dynamic
        self.name = name
        # (guard, shapes) -> graph or break reason; at most ftrans.config.jit_cache_size
        self.graphs: dict[Any, _Graph | str] = {}
        self.guards: set[Any] = set()              # the guard keys compiled (recompiles)
        self.shapes_seen: dict[Any, Any] = {}      # rank key -> the shapes first seen
        self.gave_up = False
        self.children: weakref.WeakKeyDictionary[Any, _Compiled] = weakref.WeakKeyDictionary()
        _ALL.add(self)

    def reset(self) -> None:
        self.graphs.clear()
        self.guards.clear()
        self.shapes_seen.clear()
        self.children = weakref.WeakKeyDictionary()
        self.gave_up = False

    def _reads(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> _Reads:
        reads = _Reads()
        for a in (*args, *kwargs.values()):
            if type(a) not in _SCALARS:    # (argument values are in the key already)
                reads.walk(a)
        if self.owner is not None:
            reads.walk(self.owner)
        else:
            for obj in _reachable(self.fn):
                reads.walk(obj)   # (it keeps scalars, Tensors and what holds them)
        return reads

    def _key(self, args: tuple[Any, ...], kwargs: dict[str, Any], reads: _Reads
             ) -> tuple[Any, Any] | None:
        leaves, td = tree_flatten((args, kwargs))
        statics = []
        for x in leaves:
            if isinstance(x, Tensor):
                statics.append(_TENSOR)
            else:
                try:
                    hash(x)
                except TypeError:
                    return None
                statics.append((type(x), x))
        cands = reads.tensors.values()
        ranks = tuple((len(t._data.shape), t._data.dtype, t.requires_grad, t.device.type)
                      for t in cands)
        try:
            scalars = tuple(reads.scalars)
            hash(scalars)
        except TypeError:
            return None
        common = (td, tuple(statics), ranks, is_grad_enabled(), scalars)
        shapes = tuple(t._data.shape for t in cands)
        return common, shapes

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _state.tracing or _state.disabled or config.disable:
            return self.fn(*args, **kwargs)     # inlined into the graph being staged
        if self.gave_up:
            return self._eager(args, kwargs)
        reads = self._reads(args, kwargs)
        cands = list(reads.tensors.values())
        k = self._key(args, kwargs, reads)
        if k is None:
            return self._broken(args, kwargs, "an argument is not hashable (a guard needs it)",
                                None)
        common, shapes = k
        dynamic = self.dynamic
        if dynamic is None:   # automatic dynamic: a size changed once -> ranks only
            first = self.shapes_seen.setdefault(common, shapes)
            dynamic = first != shapes
        guard = (common, None if dynamic else shapes)
        key = (common, shapes)
        g = self.graphs.get(key)
        if g is None:
            if guard not in self.guards:
                if len(self.guards) >= config.recompile_limit:
                    self._give_up()
                    return self._eager(args, kwargs)
                self.guards.add(guard)
            # a new size under a dynamic guard stages the Python function again (the
            # compiler reuses the generated code of the rank and dtype): not a recompile
            g = self._compile(key, args, kwargs, cands)
        if isinstance(g, str):
            return self._eager(args, kwargs)
        return g(cands)

    def _compile(self, key: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                 cands: list[Tensor]) -> _Graph | str:
        g: _Graph | str
        try:
            if self.owner is not None:
                _refuse_hooks(self.owner)
            staged = _stage(self.fn, args, kwargs, cands, self.name)
        except Exception as e:   # noqa: BLE001 -- every failure to stage is a break
            reason = _reason(e)
            where = _user_line(e.__traceback__)
            if self.fullgraph and _is_unsupported(e):
                line = f" ({where[0]}, line {where[1]}, in {where[2]})" if where else ""
                raise exc.Unsupported(
                    f"compile(fullgraph=True): {self.name} cannot be captured as one "
                    f"graph: {reason}{line}. Remove the break or compile without "
                    "fullgraph=True (the function then runs eagerly around it).") from e
            _record_break(self.name, reason, where)
            g = reason
        else:
            _record_graph(self.name, staged.ir)
            g = staged
        self.graphs[key] = g
        if len(self.graphs) > _config.jit_cache_size:   # (many sizes under dynamic guards)
            del self.graphs[next(iter(self.graphs))]       # the oldest
        return g

    def _broken(self, args: tuple[Any, ...], kwargs: dict[str, Any], reason: str,
                where: Any) -> Any:
        if self.fullgraph:
            raise exc.Unsupported(f"compile(fullgraph=True): {self.name}: {reason}")
        _record_break(self.name, reason, where)
        return self._eager(args, kwargs)

    def _give_up(self) -> None:
        self.gave_up = True
        warnings.warn(
            f"torch._dynamo hit config.recompile_limit ({config.recompile_limit})\n"
            f"   function: {self.name!r}\n"
            f"   last reason: the guards of {len(self.guards)} compiled graphs failed "
            "(new shapes, dtypes, requires_grad, grad mode, training mode or non-Tensor "
            "arguments).\nThe function now runs eagerly. Mark the changing sizes dynamic "
            "(compile(..., dynamic=True)) or raise compat._dynamo.config.recompile_limit.",
            UserWarning, stacklevel=3)

    def _eager(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Run the function eagerly; the modules it calls are compiled on their own."""
        _state.regions.append(self)
        _hold_hooks(1)
        try:
            return self.fn(*args, **kwargs)
        finally:
            _state.regions.pop()
            _hold_hooks(-1)

    def child(self, module: Module) -> _Compiled:
        c = self.children.get(module)
        if c is None:
            c = self.children[module] = _Compiled(
                functools.partial(_MH._call_inner, module), module, self.fullgraph,
                self.dynamic, type(module).__name__ + ".forward")
        return c


_ALL: weakref.WeakSet[_Compiled] = weakref.WeakSet()


class OptimizedModule(Module):
    """A module whose calls run compiled (what ``torch.compile(module)`` returns).

    Its parameters and buffers are the original module's (``_orig_mod``): training it
    trains the original, and ``state_dict`` keys start with ``_orig_mod.`` as in PyTorch.
    Attributes it does not have are looked up on the original module.
    """

    def __init__(self, mod: Module, compiled: _Compiled) -> None:
        super().__init__()
        self._orig_mod = mod
        object.__setattr__(self, "_compiled", compiled)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._compiled(*args, **kwargs)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The original module's forward, compiled."""
        return self._compiled(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)


def _check_args(fullgraph: Any, dynamic: Any, mode: Any, backend: Any, options: Any) -> None:
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: "
                           f"{', '.join(m for m in _MODES if m)}")
    if not (isinstance(backend, str) or callable(backend)):
        raise TypeError(f"compile: backend must be a string or a callable, got "
                        f"{type(backend).__name__}")
    if options is not None and not isinstance(options, dict):
        raise TypeError(f"compile: options must be a dict, got {type(options).__name__}")
    if dynamic not in (None, True, False):
        raise TypeError(f"compile: dynamic must be None, True or False, got {dynamic!r}")
    if not isinstance(fullgraph, bool):
        raise TypeError(f"compile: fullgraph must be a bool, got {type(fullgraph).__name__}")


def compile(model: Callable[..., Any] | None = None, *, fullgraph: bool = False,  # noqa: A001
            dynamic: bool | None = None, backend: str | Callable[..., Any] = "inductor",
            mode: str | None = None, options: dict[str, Any] | None = None,
            disable: bool = False) -> Any:
    """Compile a function or module with ftrans's compiler (``torch.compile``).

    Each call stages the function once per guard key (see *Notes*) into ftrans's IR,
    with the arrays of every Tensor it reads as the program's inputs, and runs the
    compiled program (numba on the CPU) on later calls; its backward, when a result
    requires grad, is the compiled VJP program.

    Parameters
    ----------
    model : callable or Module, optional
        The function or ``nn.Module`` to compile.  Omitted: returns a decorator.
    fullgraph : bool, default False
        Raise ``torch._dynamo.exc.Unsupported``
        (:class:`ftrans.compat._dynamo.Unsupported`) at the first graph break (naming
        the operation and the user's line) instead of running around it.
    dynamic : bool or None, default None
        ``True``: one graph for every shape of a rank (the generated code is specialized
        on rank and dtype only); ``False``: a graph per shape; ``None``: per shape until
        a size changes, then dynamic (torch's "automatic dynamic shapes").
    backend : str or callable, default 'inductor'
        Accepted and ignored: ftrans's own compiler always runs (numba on the CPU).
    mode : str, optional
        ``'default'``, ``'reduce-overhead'``, ``'max-autotune'`` or
        ``'max-autotune-no-cudagraphs'``; accepted and ignored (there is one compiler
        setting; CUDA graphs do not apply).
    options : dict, optional
        Backend options; accepted and ignored.
    disable : bool, default False
        Return ``model`` itself (a no-op, for testing).

    Returns
    -------
    callable or OptimizedModule
        The compiled function (same signature and results), or for a module an
        :class:`OptimizedModule` sharing the module's parameters and buffers.

    Raises
    ------
    RuntimeError
        Both ``mode`` and ``options`` given, or an unknown ``mode`` (torch's messages).
    TypeError
        ``model`` not callable, or a bad ``backend``/``options``/``dynamic``/``fullgraph``.

    Notes
    -----
    Guards (a new value stages again): the pytree structure and non-Tensor values of the
    arguments, each Tensor's shape (see ``dynamic``), dtype, device and
    ``requires_grad``, grad mode, and the ``training`` flag of every submodule.  After
    ``compat._dynamo.config.recompile_limit`` (8) graphs the function runs eagerly with
    torch's warning.  Graph breaks (``.item()``, ``print``, control flow on tensor values,
    operations without a staged form, in-place changes of tensors that require grad) run
    the function eagerly and compile each submodule it calls on its own;
    ``compat._dynamo.explain`` lists them.  Random draws (dropout) are replayed from the
    generator on every call, so a compiled module gives the same numbers as the eager
    one from the same seed.  Semantics follow ``torch.compile``
    (https://pytorch.org/docs/stable/generated/torch.compile.html).

    Examples
    --------
    >>> import ftrans.compat as torch
    >>> model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(),
    ...                             torch.nn.Linear(8, 1))
    >>> cmodel = torch.compile(model)
    >>> x = torch.ones(3, 4)
    >>> cmodel(x).sum().backward()          # compiled forward and backward
    >>> model[0].weight.grad.shape
    torch.Size([8, 4])
    >>> @torch.compile
    ... def f(x):
    ...     return torch.sin(x) ** 2 + torch.cos(x) ** 2
    >>> f(torch.zeros(2))
    tensor([1., 1.])
    """
    _check_args(fullgraph, dynamic, mode, backend, options)
    if model is None:
        return functools.partial(compile, fullgraph=fullgraph, dynamic=dynamic,
                                 backend=backend, mode=mode, options=options, disable=disable)
    if not callable(model):
        raise TypeError(f"compile: expected a callable or an nn.Module to compile, got "
                        f"{type(model).__name__}")
    if disable:
        return model
    if isinstance(model, Module):
        c = _Compiled(functools.partial(_MH._call_inner, model), model, fullgraph, dynamic,
                      type(model).__name__ + ".forward")
        return OptimizedModule(model, c)
    name = getattr(model, "__qualname__", None) or type(model).__name__
    c = _Compiled(model, None, fullgraph, dynamic, name)

    @functools.wraps(model)
    def compiled(*args: Any, **kwargs: Any) -> Any:
        return c(*args, **kwargs)
    compiled._torchdynamo_orig_callable = model  # type: ignore[attr-defined]
    compiled._compiled = c  # type: ignore[attr-defined]
    return compiled


def reset() -> None:
    """Forget every compiled graph (``torch.compiler.reset``, ``torch._dynamo.reset``):
    the next call of each compiled function stages it again."""
    for c in list(_ALL):
        c.reset()


def disable(fn: Callable[..., Any] | None = None, recursive: bool = True, *,
            reason: str | None = None) -> Any:
    """Keep a function out of compiled graphs (``torch.compiler.disable``).

    Called inside a compiled function, ``fn`` is a graph break: the enclosing function
    runs eagerly around it (and its submodules are compiled on their own).  With
    ``recursive=True`` nothing ``fn`` calls is compiled either.

    Parameters
    ----------
    fn : callable, optional
        The function; omitted, returns a decorator.
    recursive : bool, default True
        Also keep the functions and modules ``fn`` calls out of compilation.
    reason : str, optional
        Shown as the graph break's reason.

    Returns
    -------
    callable
        ``fn`` wrapped.
    """
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)
    why = reason or f"{getattr(fn, '__qualname__', fn)!s} is marked compiler.disable"

    @functools.wraps(fn)
    def disabled(*args: Any, **kwargs: Any) -> Any:
        if _state.tracing:
            raise _Break(why)
        if not recursive:
            return fn(*args, **kwargs)
        _state.disabled += 1
        try:
            return fn(*args, **kwargs)
        finally:
            _state.disabled -= 1
    disabled._torchdynamo_disable = True  # type: ignore[attr-defined]
    return disabled


# ----------------------------------------------------------------------------- explain
def explain(f: Callable[..., Any], *extra_args: Any, **extra_kwargs: Any
            ) -> Callable[..., ExplainOutput]:
    """Report how ``f`` compiles: its graphs, graph breaks and operations
    (``torch._dynamo.explain``).

    ``explain(f)(*args, **kwargs)`` compiles ``f`` afresh (a function, a module, or
    what :func:`compile` returned), calls it once with the arguments and returns an
    :class:`ExplainOutput`.

    Parameters
    ----------
    f : callable or Module
    *extra_args, **extra_kwargs
        The old calling form ``explain(f, *args, **kwargs)``; prefer ``explain(f)(...)``.

    Returns
    -------
    callable
        Takes ``f``'s arguments and returns the :class:`ExplainOutput`.
    """
    orig = getattr(f, "_torchdynamo_orig_callable", None) or f
    if isinstance(orig, OptimizedModule):
        orig = orig._orig_mod

    def inner(*args: Any, **kwargs: Any) -> ExplainOutput:
        rec = _Recorder()
        _recorders.append(rec)
        t0 = time.perf_counter()
        try:
            compile(orig)(*args, **kwargs)
        finally:
            _recorders.remove(rec)
        return ExplainOutput(rec.graphs, rec.breaks, time.perf_counter() - t0)

    if extra_args or extra_kwargs:
        warnings.warn("explain(f, *args, **kwargs) is deprecated; use explain(f)(*args, "
                      "**kwargs)", FutureWarning, stacklevel=2)
        return inner(*extra_args, **extra_kwargs)  # type: ignore[return-value]
    return inner

