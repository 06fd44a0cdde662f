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

import builtins
import functools
import inspect
import os
import sys
import threading
import time
import traceback
import warnings
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.abstract import ShapedArray
from ..core.ir import IR, StagingTrace, dce
from ..core.pytree import tree_flatten, tree_unflatten
from ..core.trace import Tracer, TracerArrayConversionError, _ctx, set_current_trace
from ..transforms._jit_primitive import jit_p
from . import _generator as _G
from ._func_core import run as _run_node
from ._tensor import Tensor
from .autograd import _engine as _EN
from .autograd import grad_mode as _GM
from .autograd.grad_mode import is_grad_enabled, no_grad
from .nn import _module_hooks as _MH
from .nn.module import Module
from .optim.optimizer import Optimizer
from ._compile_report import (ExplainOutput, config, exc, _Recorder, _recorders,
                              _record_break, _record_graph)

__all__ = ["compile", "OptimizedModule", "reset", "is_compiling", "disable", "explain",
           "graph_break"]

_FTRANS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_MODES = (None, "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")


class _State(threading.local):
    def __init__(self) -> None:
        self.tracing = 0      # > 0 while a compiled function is being staged
        self.disabled = 0     # > 0 inside a compat.compiler.disable-d function
        # while staging: (the trace, the random draws recorded so far)
        self.tape: tuple[StagingTrace, list[Any]] | None = None
        # the compiled functions running eagerly after a break, innermost last: the
        # modules they call are compiled as their children
        self.regions: list[_Compiled] = []


_state = _State()


class _Break(Exception):
    """Something in the staged function that has no staged form (a graph break)."""

    #: True where running the function eagerly is the compiled behaviour anyway (a
    #: backward pass: it runs the compiled VJP programs), so fullgraph=True runs it
    #: instead of raising
    eager_is_compiled = False


class _BackwardBreak(_Break):
    eager_is_compiled = True


def _backward_hook() -> None:
    if _state.tracing:
        raise _BackwardBreak("a backward pass (loss.backward(), autograd.grad) inside the "
                             "function: it runs eagerly, through the compiled backward "
                             "programs of the graphs that made the loss")


def graph_break() -> None:
    """A graph break here (``torch._dynamo.graph_break``): the compiled function that
    calls it runs eagerly (its submodules compiled on their own)."""
    if _state.tracing:
        raise _Break("torch._dynamo.graph_break()")


# ----------------------------------------------------------------------------- staging
def _user_line(tb: Any) -> tuple[str, int, str] | None:
    """``(file, line, function)`` of the innermost traceback frame outside ftrans."""
    found = None
    for fs in traceback.extract_tb(tb):
        if not os.path.abspath(fs.filename).startswith(_FTRANS_DIR + os.sep):
            found = (fs.filename, fs.lineno or 0, fs.name)
    return found


#: a Module's own bookkeeping (parameters and buffers are read from their stores)
_MODULE_STATE = frozenset(Module().__dict__)


_SCALARS = (int, float, bool, complex, str, bytes, type(None))


class _Reads:
    """What a compiled function reads besides its arguments' values: the Tensors (its
    program's inputs) and the Python scalars it would bake into the program (module
    attributes such as ``training`` or a dropout's ``p``, scalars its closure and
    globals name; not the items of containers): a new scalar value stages again."""

    def __init__(self) -> None:
        self.tensors: dict[int, Tensor] = {}
        self.scalars: list[Any] = []
        self.seen: set[int] = set()

    def walk(self, obj: Any, depth: int = 0) -> None:
        """Collect what ``obj`` holds: itself, a module's parameters, buffers, Tensor
        and scalar attributes (in its submodules too), the items of lists, tuples and
        dicts."""
        if type(obj) in _SCALARS:
            if not depth:   # a scalar the code names (not an item of a container)
                self.scalars.append(obj)
            return
        if id(obj) in self.seen or depth > 4:
            return
        self.seen.add(id(obj))
        if isinstance(obj, Tensor):
            self.tensors.setdefault(id(obj), obj)
        elif isinstance(obj, Module):
            for m in obj.modules():
                self.seen.add(id(m))
                for store in (m._parameters, m._buffers):
                    for t in store.values():
                        if t is not None:
                            self.tensors.setdefault(id(t), t)
                for k, v in m.__dict__.items():
                    if type(v) in _SCALARS:
                        self.scalars.append((k, v))
                    elif k not in _MODULE_STATE and isinstance(v, (Tensor, list, tuple, dict)):
                        self.walk(v, depth + 1)
        elif isinstance(obj, Optimizer):   # its parameters, gradients and state
            self.walk(obj.param_groups, depth + 1)
            for p in (p for g in obj.param_groups for p in g["params"]):
                if p.grad is not None:
                    self.tensors.setdefault(id(p.grad), p.grad)
            self.walk(list(obj.state.values()), depth + 1)
        elif isinstance(obj, (list, tuple)):
            for v in obj:
                self.walk(v, depth + 1)
        elif isinstance(obj, dict):
            for v in obj.values():
                self.walk(v, depth + 1)


def _reachable(fn: Callable[..., Any]) -> list[Any]:
    """The objects a function reaches without being passed them: the instance of a bound
    method, the closure's cells and the globals its code names."""
    objs: list[Any] = []
    self_ = getattr(fn, "__self__", None)
    if self_ is not None:
        objs.append(self_)
        fn = getattr(fn, "__func__", fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        return objs
    for c in getattr(fn, "__closure__", None) or ():
        try:
            objs.append(c.cell_contents)
        except ValueError:   # an empty cell
            pass
    g = getattr(fn, "__globals__", {})
    names = set(code.co_names)
    for const in code.co_consts:   # nested functions and comprehensions
        if inspect.iscode(const):
            names.update(const.co_names)
    objs.extend(g[n] for n in names if n in g)
    return objs


class _RngTape:
    """The numpy Generator compat draws from while a function is staged: each draw is
    recorded (method and arguments) and returns a new program input of the draw's shape
    and dtype; :meth:`_Graph.__call__` replays the draws on the real generator."""

    def __init__(self, trace: StagingTrace, gen: Any, draws: list[Any]) -> None:
        self._trace, self._gen, self._draws = trace, gen, draws

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._gen._rng, name)
        if not callable(method) or name.startswith("_") or name in (
                "bit_generator", "spawn"):
            raise _Break(f"the random generator's {name!r} is not staged")

        def draw(*args: Any, **kwargs: Any) -> Any:
            probe = getattr(np.random.default_rng(0), name)(*args, **kwargs)
            probe = np.asarray(probe)
            tracer = self._trace.new_arg(ShapedArray(probe.shape, probe.dtype))
            self._draws.append((self._gen, name, args, kwargs, tracer))
            return tracer
        return draw


_print = builtins.print
_GRAD_MODE_FILE = os.path.abspath(_GM.__file__)


def _grad_off_hook() -> None:
    """``no_grad()`` entered while staging: a break when the block is the user's (the
    program would differentiate through it); compat's own blocks (buffer updates) are
    fine."""
    if not _state.tracing:
        return
    f: Any = sys._getframe(1)
    while f is not None and os.path.abspath(f.f_code.co_filename) == _GRAD_MODE_FILE:
        f = f.f_back
    if f is not None and not os.path.abspath(f.f_code.co_filename).startswith(
            _FTRANS_DIR + os.sep):
        raise _Break("torch.no_grad() (or set_grad_enabled(False), inference_mode) inside "
                     "the function: its gradient cut is not staged")


def _print_break(*args: Any, **kwargs: Any) -> None:
    if not _state.tracing:    # another thread
        return _print(*args, **kwargs)
    raise _Break("print() runs Python I/O on every call (torch breaks the graph here too)")


class _Graph:
    """One staged program of a compiled function (one guard key): the IR, where its
    inputs come from and what its outputs are."""

    __slots__ = ("ir", "used", "n_cand", "draws", "out_tree", "out_leaves", "n_out",
                 "mutated", "returned_input", "dep", "name")
    ir: IR                          # inputs: the used candidates, then the random draws
    used: list[int]                 # candidates the program reads
    n_cand: int
    draws: list[tuple[Any, str, tuple[Any, ...], dict[str, Any]]]  # (generator, method, args)
    out_tree: Any
    out_leaves: list[Any]           # non-Tensor output leaves, _TENSOR where a Tensor goes
    n_out: int                      # Tensor outputs (the written buffers follow)
    mutated: list[int]              # candidates written in place, in output order
    returned_input: list[int | None]  # a Tensor output that is an unchanged candidate
    dep: list[bool]                 # Tensor outputs that depend on an input needing grad
    name: str

    def __call__(self, cands: list[Tensor]) -> Any:
        rand = [np.asarray(getattr(gen._rng, name)(*a, **k)) for gen, name, a, k in self.draws]
        ir, name = self.ir, self.name

        def fn(ds: Sequence[Any]) -> list[Any]:
            return list(jit_p.bind(*ds, *rand, ir=ir, name=name))
        outs = _run_node(fn, [cands[i] for i in self.used])
        res = outs[:self.n_out]
        for o, d in zip(res, self.dep):
            if not d and o.requires_grad:
                o._grad_fn = None   # depends on no input that requires grad (torch: False)
                o._onr = 0
        for k, t in zip(self.mutated, outs[self.n_out:]):
            dst = cands[k]
            np.copyto(dst._data, t._data)
            dst._vc[0] += 1
        leaves = list(self.out_leaves)
        j = 0
        for p, leaf in enumerate(leaves):
            if leaf is _TENSOR:
                src = self.returned_input[j]
                leaves[p] = cands[src] if src is not None else res[j]
                j += 1
        return tree_unflatten(self.out_tree, leaves)


_TENSOR = object()   # marks a Tensor position in an output pytree


def _stage(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
           cands: list[Tensor], name: str) -> _Graph:
    """Stage ``fn(*args, **kwargs)`` with the arrays of ``cands`` as the program's inputs;
    raises what the function raised (a graph break) after restoring every Tensor."""
    trace = StagingTrace(_ctx.trace, f"compile({name})")
    ins = [trace.new_arg(ShapedArray(np.shape(t._data), t._data.dtype)) for t in cands]
    saved = [(t, t._data, t._vc[0], t._rg) for t in cands]
    draws: list[Any] = []
    prev_tape = _state.tape
    _state.tape = (trace, draws)
    _state.tracing += 1
    _hold_hooks(1)
    _hold_print(1)
    try:
        for t, x in zip(cands, ins):
            t._data = x
        with set_current_trace(trace), no_grad():
            out = fn(*args, **kwargs)
        leaves, out_tree = tree_flatten(out)
        out_datas, out_leaves, returned = [], [], []
        for leaf in leaves:
            if isinstance(leaf, Tensor):
                out_datas.append(leaf._data)
                out_leaves.append(_TENSOR)
                returned.append(next((i for i, t in enumerate(cands) if t is leaf), None))
            elif isinstance(leaf, Tracer):
                raise _Break("the function returns an array that is not a Tensor")
            else:
                out_leaves.append(leaf)
        mutated = [i for i, (t, x) in enumerate(zip(cands, ins)) if t._data is not x]
        for i in mutated:
            t = cands[i]
            if tuple(np.shape(t._data)) != tuple(ins[i].shape):
                raise _Break("a tensor's shape changes in place (resize_)")
            if saved[i][3] or t._grad_fn is not None and is_grad_enabled():
                raise _Break("an in-place change of a tensor that requires grad")
        for j, r in enumerate(returned):
            if r is not None and r in mutated:
                returned[j] = None
        new_outs = out_datas + [cands[i]._data for i in mutated]
    finally:
        _state.tracing -= 1
        _state.tape = prev_tape
        _hold_hooks(-1)
        _hold_print(-1)
        for t, d, v, rg in saved:
            t._data, t._vc[0], t._rg = d, v, rg
        trace.finish()
    ir, lifted = trace.to_ir(ins + [d[4] for d in draws], new_outs)
    if lifted:
        raise _Break("the function reads a value of an enclosing ftrans transform")
    ir = dce(ir)
    g = _Graph()
    g.name = f"compile({name})"
    # inputs the program reads (an unused parameter gets no gradient, as eagerly)
    read = {a for e in ir.eqns for a in e.inputs} | set(ir.out_vars)
    n = len(cands)
    g.used = [i for i in range(n) if ir.in_vars[i] in read]
    g.ir = IR([ir.in_vars[i] for i in g.used] + list(ir.in_vars[n:]), ir.const_vars,
              ir.consts, ir.eqns, ir.out_vars)
    g.n_cand, g.draws = n, [d[:4] for d in draws]
    g.out_tree, g.out_leaves, g.n_out = out_tree, out_leaves, len(out_datas)
    g.mutated, g.returned_input = mutated, returned
    g.dep = _depends(g.ir, [cands[i] for i in g.used])[:len(out_datas)]
    return g


def _depends(ir: IR, inputs: Sequence[Tensor]) -> list[bool]:
    """Which outputs depend on an input that requires grad, through operations other
    than ``stop_gradient`` (``detach()``)."""
    live = {v for v, t in zip(ir.in_vars, inputs) if t.requires_grad}
    for e in ir.eqns:
        if e.prim.name != "stop_gradient" and any(a in live for a in e.inputs
                                                   if not hasattr(a, "val")):
            live.update(e.outputs)
    return [v in live for v in ir.out_vars]


def _reason(e: BaseException) -> str:
    """A graph break's reason in one line (a conversion error's first clause)."""
    if isinstance(e, _Break):
        return str(e)
    text = str(e)
    if isinstance(e, TracerArrayConversionError):
        text = text.split(", but inside")[0] + " (a staged tensor has no value)"
    return f"{type(e).__name__}: {text}"


def _is_unsupported(e: BaseException) -> bool:
    if isinstance(e, _Break):
        return not e.eager_is_compiled
    return isinstance(e, (TracerArrayConversionError, NotImplementedError))


# ----------------------------------------------------------------------------- compiled
class _Compiled:
    """A compiled function: its staged graphs by guard key, and its breaks."""

    def __init__(self, fn: Callable[..., Any], owner: Any, fullgraph: bool,
                 dynamic: bool | None, name: str) -> None:
        self.fn, self.owner, self.fullgraph, self.dynamic = fn, owner, fullgraph, dynamic
        self.name = name
        self.graphs: dict[Any, _Graph | str] = {}   # (guard, shapes) -> graph or break
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
                if type(obj) in _SCALARS or isinstance(obj, (Tensor, Module, Optimizer, list,
                                                             tuple, dict)):
                    reads.walk(obj)
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
_n_holders = [0]   # stagings and eager runs of compiled functions, in all threads
_n_staging = [0]   # stagings, in all threads


def _rng_hook(gen: Any) -> Any:
    """The generator compat draws from: a recorder while this thread stages."""
    tape = _state.tape
    return gen._rng if tape is None else _RngTape(tape[0], gen, tape[1])


def _hold_hooks(d: int) -> None:
    """Install the hooks while a compiled function stages or runs eagerly in any thread
    (each hook acts only in a thread that stages, or runs a compiled function eagerly):
    module calls (:func:`_module_call_hook`), random draws (:func:`_rng_hook`), grad mode
    switched off (:func:`_grad_off_hook`) and backward passes (:func:`_backward_hook`).
    Without compiled functions running, nothing is installed."""
    _n_holders[0] += d
    on = bool(_n_holders[0])
    _MH._call_hook = _module_call_hook if on else None
    _G._rng_hook = _rng_hook if on else None
    _GM._off_hook = _grad_off_hook if on else None
    _EN.staging_hook = _backward_hook if on else None


def _hold_print(d: int) -> None:
    """Replace ``print`` while a function stages (in any thread), with the print it
    replaced given back afterwards."""
    global _print
    if d > 0 and not _n_staging[0]:
        _print = builtins.print
        builtins.print = _print_break
    _n_staging[0] += d
    if d < 0 and not _n_staging[0]:
        builtins.print = _print


def _refuse_hooks(module: Module) -> None:
    if (module._forward_hooks or module._forward_pre_hooks or module._backward_hooks
            or _MH._global_forward_hooks or _MH._global_forward_pre_hooks):
        raise _Break(f"{type(module).__name__} has forward or backward hooks (they run on "
                     "every call, eagerly)")


def _module_call_hook(module: Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Module.__call__`` while compiled functions run: staged, a module with hooks is a
    break (a hook's side effects would run only while staging); inside a compiled
    function that runs eagerly, the submodule is compiled on its own (compilation
    resumes at the next module call)."""
    if _state.tracing:
        _refuse_hooks(module)
    elif _state.regions and not _state.disabled:
        return _state.regions[-1].child(module)(*args, **kwargs)
    return _MH._call_inner(module, *args, **kwargs)


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


def is_compiling() -> bool:
    """Whether a compiled function is being staged now (``torch.compiler.is_compiling``).

    Returns
    -------
    bool
        True inside the Python run that records a graph; False on eager runs.
    """
    return _state.tracing > 0


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

