"""Staging for :mod:`ftrans.compat._compile` (``torch.compile``): what a compiled
function reads (:class:`_Reads`), one staged program and its call (:class:`_Graph`,
:func:`_stage`), and the hooks that make staging see random draws, ``print``, grad-mode
switches, backward passes and module calls (each acts only in a thread that stages or
runs a compiled function eagerly)."""
from __future__ import annotations

import builtins
import inspect
import os
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.abstract import ShapedArray
from ..core.ir import _FTRANS_DIR, IR, StagingTrace, dce
from ..core.pytree import tree_flatten, tree_unflatten
from ..core.trace import Tracer, TracerArrayConversionError, _ctx, set_current_trace
from ..transforms._jit_primitive import jit_p
from ..transforms._util import as_output, zeros_like_leaf
from . import _generator as _G
from ._func_core import run as _run_node
from ._tensor import Tensor
from .autograd import _engine as _EN
from .autograd import grad_mode as _GM
from .autograd.grad_mode import is_grad_enabled, no_grad
from .nn import _module_hooks as _MH
from .nn.module import Module
from .optim.optimizer import Optimizer

class _State(threading.local):
    def __init__(self) -> None:
        self.tracing = 0      # > 0 while a compiled function is being staged
        self.disabled = 0     # > 0 inside a compat.compiler.disable-d function
        # while staging: (the trace, the random draws recorded so far)
        self.tape: tuple[StagingTrace, list[Any]] | None = None
        # the compiled functions running eagerly after a break, innermost last: the
        # modules they call are compiled as their children
        self.regions: list[Any] = []   # (compat._compile._Compiled)


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


_SCALARS = frozenset({int, float, bool, complex, str, bytes, type(None)})  # (type(x) in: a hash)


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
            # the module tree depth first, each module once, as Module.modules() (without
            # its dotted names: this runs on every call of a compiled module)
            stack, seen, tensors, scalars = [obj], self.seen, self.tensors, self.scalars
            while stack:
                m = stack.pop()
                for store in (m._parameters, m._buffers):
                    for t in store.values():
                        if t is not None:
                            tensors.setdefault(id(t), t)
                for k, v in m.__dict__.items():
                    if type(v) in _SCALARS:
                        scalars.append((k, v))
                    elif k not in _MODULE_STATE and isinstance(v, (Tensor, list, tuple, dict)):
                        self.walk(v, depth + 1)
                for c in reversed(m._modules.values()):
                    if c is not None and id(c) not in seen:
                        seen.add(id(c))
                        stack.append(c)
        elif isinstance(obj, Optimizer):   # its parameters, gradients and state
            self.walk(obj.param_groups, depth + 1)
            for p in (p for g in obj.param_groups for p in g["params"]):
                if p.grad is not None:
                    self.tensors.setdefault(id(p.grad), p.grad)
            self.walk(list(obj.state.values()), depth + 1)
        elif isinstance(obj, (list, tuple)):
            for v in obj:
                if type(v) not in _SCALARS:   # (an item that is a scalar adds nothing)
                    self.walk(v, depth + 1)
        elif isinstance(obj, dict):
            for v in obj.values():
                if type(v) not in _SCALARS:
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

    __slots__ = ("ir", "used", "draws", "out_tree", "out_leaves", "n_out", "mutated",
                 "returned_input", "dep", "name")
    ir: IR                          # inputs: the used candidates, then the random draws
    used: list[int]                 # candidates the program reads
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

        def direct(ds: list[Any], diff: list[int]) -> tuple[list[Any], Callable[..., Any]]:
            # the compiled forward program with residuals, and the compiled backward
            # program (jit_p's reverse-mode rules, as a VJP trace would call them)
            fwd, bwd = jit_p.vjp_fwd, jit_p.vjp
            assert fwd is not None and bwd is not None
            outs, residuals = fwd(*ds, *rand, ir=ir, name=name)
            needs = [False] * (len(ds) + len(rand))
            for i in diff:
                needs[i] = True

            def vjp_fn(cts: Sequence[Any]) -> tuple[Any, ...]:
                r = bwd(list(cts), outs, residuals, needs, ir=ir, name=name)
                return tuple(zeros_like_leaf(ds[i]) if r[i] is None else as_output(r[i])
                             for i in diff)
            return [as_output(o) for o in outs], vjp_fn
        outs = _run_node(fn, [cands[i] for i in self.used], direct)
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
    g.draws = [d[:4] for d in draws]
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


# ----------------------------------------------------------------------------- hooks
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


def is_compiling() -> bool:
    """Whether a compiled function is being staged now (``torch.compiler.is_compiling``).

    Returns
    -------
    bool
        True inside the Python run that records a graph; False on eager runs.
    """
    return _state.tracing > 0
