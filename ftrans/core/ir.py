"""The IR: a typed, SSA, closed program of primitive applications, and the staging trace
that records one.

An :class:`IR` has

``in_vars``
    the program's inputs, one :class:`Var` per flattened argument leaf;
``const_vars`` / ``consts``
    concrete arrays the traced function closed over (weights, tables ...), bound to
    variables so that the program text stays small; ``consts[i]`` is the value of
    ``const_vars[i]``;
``eqns``
    :class:`Eqn` ``outs = prim[params](ins)`` in program order, each ``out`` a fresh
    :class:`Var` (static single assignment);
``out_vars``
    the results: :class:`Var` or :class:`Literal` (a Python scalar constant).

Every variable carries its abstract value (:class:`~ftrans.core.abstract.ShapedArray`:
shape and dtype).  An operand is a :class:`Var` or a :class:`Literal` -- a Python scalar,
kept weakly typed (NEP 50) exactly as the primitive received it.

:class:`StagingTrace` makes an IR.  It is one more trace of the stackless design
(:mod:`ftrans.core.trace`): its tracers carry an abstract value and a variable only,
and ``process_primitive`` evaluates the primitive's ``abstract_eval`` rule and appends
an equation instead of computing.  Values the trace does not own are constants of the
program: Python scalars become literals, concrete arrays become ``consts``, and tracers
of *enclosing* transforms (a jitted function closing over a value an outer ``grad`` is
differentiating) become extra inputs, ``lifted`` -- the caller passes them explicitly
(closure conversion), so the enclosing transform sees them as operands.

Python control flow on a staged value cannot be recorded: ``bool()``, ``float()``,
``int()``, ``np.asarray`` of a :class:`StagingTracer` raise :class:`ConcretizationError`
naming the staged function and the user's line, and saying what to do.

The field's analogue is JAX's jaxpr (``jax.make_jaxpr``); the design follows Autodidax
("JAX core from scratch", part 3: ``make_jaxpr``).

>>> import numpy as np, ftrans.numpy as fnp
>>> from ftrans.core.ir import stage
>>> ir, _ = stage(lambda x: fnp.sin(x) * 2.0, [np.ones(3)])
>>> print(ir)
ir(a:f64[3]) {
  b:f64[3] = sin a
  c:f64[3] = mul b 2.0
  return c
}
"""
from __future__ import annotations

import itertools
import os
import sys
import weakref
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any

import numpy as np

from .abstract import ShapedArray, aval_of
from .trace import Trace, Tracer, set_current_trace, _ctx, TracerArrayConversionError, _escaped

__all__ = ["Var", "Literal", "Eqn", "IR", "StagingTrace", "StagingTracer", "ConcretizationError",
           "stage", "eval_ir", "dce", "partition", "has_effects"]


class ConcretizationError(TracerArrayConversionError):
    """Python control flow or a conversion needed the value of a staged (abstract) array.

    A ``TypeError`` subclass (through :class:`TracerArrayConversionError`).  Raised inside
    ``ftrans.jit`` / ``ftrans.make_ir`` by ``if x > 0:``, ``float(x)``, ``int(n)``,
    ``np.asarray(x)`` and the like on a traced value.
    """


_counter = itertools.count()


class Var:
    """An SSA variable: its abstract value, compared and hashed by identity."""

    __slots__ = ("aval", "count")

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval
        self.count = next(_counter)

    def __repr__(self) -> str:
        return f"Var({self.count}:{_aval_str(self.aval)})"


class Literal:
    """A Python scalar operand (weakly typed, NEP 50), kept in the program text."""

    __slots__ = ("val", "aval")

    def __init__(self, val: bool | int | float | complex) -> None:
        self.val = val
        self.aval = aval_of(val)

    def __repr__(self) -> str:
        return repr(self.val)


class Eqn:
    """One equation ``outputs = prim[params](inputs)``."""

    __slots__ = ("prim", "inputs", "params", "outputs")

    # ``prim``: a core.primitive.Primitive, or a stand-in with ``name``, ``bind`` and
    # ``multiple_results`` (checkpoint's replay of saved values)
    def __init__(self, prim: Any, inputs: Sequence[Var | Literal], params: dict[str, Any],
                 outputs: Sequence[Var]) -> None:
        self.prim = prim
        self.inputs = list(inputs)
        self.params = dict(params)
        self.outputs = list(outputs)

    def __repr__(self) -> str:
        return f"Eqn({self.prim.name}, {len(self.inputs)} in, {len(self.outputs)} out)"


class IR:
    """A closed program; see the module docstring.

    Attributes
    ----------
    in_vars, const_vars : list of Var
    consts : list of arrays
        ``consts[i]`` is the value of ``const_vars[i]``.
    eqns : list of Eqn
    out_vars : list of Var or Literal
    """

    __slots__ = ("in_vars", "const_vars", "consts", "eqns", "out_vars", "cache", "__weakref__")

    def __init__(self, in_vars: Sequence[Var], const_vars: Sequence[Var], consts: Sequence[Any],
                 eqns: Sequence[Eqn], out_vars: Sequence[Var | Literal]) -> None:
        self.in_vars = list(in_vars)
        self.const_vars = list(const_vars)
        self.consts = list(consts)
        self.eqns = list(eqns)
        self.out_vars = list(out_vars)
        # transformed / compiled versions of this program, by key
        self.cache: dict[Any, Any] = {}

    @property
    def in_avals(self) -> list[ShapedArray]:
        return [v.aval for v in self.in_vars]

    @property
    def out_avals(self) -> list[ShapedArray]:
        return [v.aval for v in self.out_vars]

    def __call__(self, *args: Any) -> list[Any]:
        """Evaluate the program on ``args`` (one per input variable); see :func:`eval_ir`."""
        return eval_ir(self, *args)

    def __str__(self) -> str:
        return _print_ir(self)

    def __repr__(self) -> str:
        return (f"<IR: {len(self.in_vars)} inputs, {len(self.eqns)} equations, "
                f"{len(self.out_vars)} outputs>")

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:  # IPython
        p.text(str(self))


# ---------------------------------------------------------------------------------
# evaluation: bind every equation on the current trace
# ---------------------------------------------------------------------------------
def eval_ir(ir: IR, *args: Any, consts: Sequence[Any] | None = None) -> list[Any]:
    """Run ``ir`` on ``args`` by binding each equation's primitive on the current trace.

    With no transform active this computes (each primitive's ``impl``); under a
    transform it applies the transform to the whole program, which is how a program is
    differentiated, batched or staged again.

    Parameters
    ----------
    ir : IR
    *args : arrays, tracers or Python scalars
        One per ``ir.in_vars`` entry.
    consts : sequence, optional
        Values for ``ir.const_vars`` (default ``ir.consts``).

    Returns
    -------
    list
        One value per ``ir.out_vars`` entry.

    Raises
    ------
    TypeError
        If the number of arguments does not match the program's inputs.
    """
    if len(args) != len(ir.in_vars):
        raise TypeError(f"the program takes {len(ir.in_vars)} inputs, got {len(args)}")
    env: dict[Var, Any] = {}
    for v, x in zip(ir.const_vars, ir.consts if consts is None else consts):
        env[v] = x
    for v, x in zip(ir.in_vars, args):
        if v.aval.weak_type and isinstance(x, (np.ndarray, np.generic)):
            x = x.item()  # a weakly typed value runs as a Python scalar
        env[v] = x

    def read(a: Var | Literal) -> Any:
        return a.val if isinstance(a, Literal) else env[a]

    for eqn in ir.eqns:
        out = eqn.prim.bind(*[read(a) for a in eqn.inputs], **eqn.params)
        if eqn.prim.multiple_results:
            for v, o in zip(eqn.outputs, out):
                env[v] = o
        else:
            v = eqn.outputs[0]
            if v.aval.weak_type and isinstance(out, (np.ndarray, np.generic)):
                out = out.item()  # Python arithmetic on Python scalars: still weak
            env[v] = out
    return [read(a) for a in ir.out_vars]


# ---------------------------------------------------------------------------------
# staging
# ---------------------------------------------------------------------------------
_FTRANS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _user_frame() -> tuple[str, str, int] | None:
    """``(function name, file, line)`` of the innermost frame outside the ftrans package."""
    f: Any = sys._getframe(2)
    while f is not None:
        fn = f.f_code.co_filename
        if not os.path.abspath(fn).startswith(_FTRANS_DIR + os.sep):
            return f.f_code.co_name, fn, f.f_lineno
        f = f.f_back
    return None


class StagingTracer(Tracer):
    """A staged value: an abstract value (shape, dtype) and the variable that names it."""

    __slots__ = ("aval", "var")

    def __init__(self, trace: StagingTrace, aval: ShapedArray, var: Var) -> None:
        self._trace = trace
        self.aval = aval
        self.var = var

    @property
    def shape(self) -> tuple[int, ...]:
        return self.aval.shape

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.aval.dtype

    def _conversion_error(self, what: str) -> Exception:
        t = self._trace
        if not t.active:
            return _escaped(self)
        where = _user_frame()
        loc = f" at {where[1]}:{where[2]}, in {where[0]}()" if where else ""
        return ConcretizationError(
            f"{what} needs a concrete value, but inside {t.name} the argument is an abstract "
            f"traced array (shape {self.shape}, dtype {self.dtype}){loc}. Staging records "
            "operations, not values, so Python control flow and conversions cannot depend on "
            "it. Either mark the argument static (static_argnums=/static_argnames=), use "
            "ftrans.lax.cond / ftrans.lax.switch / fnp.where for a branch and "
            "ftrans.lax.while_loop / ftrans.lax.fori_loop / ftrans.lax.scan for a loop, or "
            "run eagerly inside `with ftrans.disable_jit():` to debug.")

    def __repr__(self) -> str:
        return f"StagingTracer({_aval_str(self.aval)})"


# The primitives Python's operators apply.  A staged Python scalar (a weakly typed 0-d
# input) combined by them with Python scalars only gives a weakly typed result, as
# Python arithmetic on Python scalars gives a Python scalar in eager code (NEP 50): so
# ``x_f32 * (2 * s)`` stays float32 when staged, as it does eagerly.  (Other primitives
# -- ``fnp.sin(s)`` -- give a strong 0-d array, as NumPy's functions do eagerly.)
# ``eval_ir`` runs such values as Python scalars.
_WEAK_PRESERVING = frozenset({"add", "sub", "mul", "div", "floor_divide", "pow",
                              "integer_pow", "neg", "abs", "eq", "ne", "lt", "le", "gt", "ge"})


#: The constants' snapshots made by :func:`_snapshot` (by id): staging a program again
#: (a transform of a staged program re-stages its equations) does not copy them again.
_SNAPSHOTS: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()


def _snapshot(a: Any) -> Any:
    """A private copy of the concrete array ``a`` that a staged program closes over: the
    program's value of it is the one at staging time, as in JAX (mutating ``a`` in place
    later does not change the program).  NumPy arrays are copied (C order), other array
    types through their array-API namespace (``asarray(a, copy=True)``), ``a.copy()``
    or ``a.clone()`` (PyTorch tensors); a snapshot is not copied again.  An array type
    with none of these is kept by reference (the immutable ones need no copy)."""
    if isinstance(a, np.generic) or _SNAPSHOTS.get(id(a)) is a:
        return a  # NumPy scalars are immutable
    if type(a) is np.ndarray:
        c = np.array(a, order="C", copy=True)
    elif isinstance(a, np.ndarray):  # a subclass (np.matrix, masked arrays): its own copy
        c = a.copy()
    else:
        ns = getattr(a, "__array_namespace__", None)
        copy = getattr(a, "copy", None) or getattr(a, "clone", None)
        try:
            # (copy None: calling it raises TypeError, handled below)
            c = ns().asarray(a, copy=True) if ns is not None else copy()  # type: ignore[misc]
        except (TypeError, ValueError, NotImplementedError):
            return a  # an array type without a copy (immutable ones need none)
    try:
        _SNAPSHOTS[id(c)] = c
    except TypeError:  # a type without weak references: copied again if re-staged
        pass
    return c


class StagingTrace(Trace):
    """Records primitive applications into an IR (see the module docstring)."""

    __slots__ = ("eqns", "consts", "lifted")

    def __init__(self, parent: Trace, name: str) -> None:
        super().__init__(parent, name)
        self.eqns: list[Eqn] = []
        # id(array) -> (snapshot, Var, array)
        self.consts: dict[int, tuple[Any, Var, Any]] = {}
        # id(foreign tracer) -> (tracer, Var)
        self.lifted: dict[int, tuple[Tracer, Var]] = {}

    def new_arg(self, aval: ShapedArray) -> StagingTracer:
        """A fresh input tracer of abstract value ``aval``."""
        return StagingTracer(self, aval, Var(aval))

    def _operand(self, a: Any) -> Var | Literal:
        if isinstance(a, StagingTracer) and a._trace is self:
            return a.var
        if isinstance(a, Tracer):
            if not a._trace.active:
                raise _escaped(a)
            entry = self.lifted.get(id(a))
            if entry is None:
                entry = self.lifted[id(a)] = (a, Var(ShapedArray(a.shape, a.dtype)))
            return entry[1]
        if isinstance(a, (bool, int, float, complex)) and not isinstance(a, np.generic):
            return Literal(a)
        centry = self.consts.get(id(a))
        if centry is None:
            key = id(a)
            if not hasattr(a, "shape") or not hasattr(a, "dtype"):
                a = np.asarray(a)
            c = _snapshot(a)
            # keyed by the operand's id, so a second use of the same array is one constant;
            # the entry keeps the operand alive so its id is not reused while staging
            centry = self.consts[key] = (c, Var(ShapedArray(c.shape, c.dtype)), a)
        return centry[1]

    def process_primitive(self, prim: Any, args: Sequence[Any], params: dict[str, Any]) -> Any:
        # (an operand staged by this trace, the common case, without _operand's tests)
        ins = [a.var if type(a) is StagingTracer and a._trace is self else self._operand(a)
               for a in args]
        avals = [a.val if type(a) is Literal else a.aval for a in ins]
        if prim.abstract_eval is None:
            raise NotImplementedError(f"primitive {prim.name!r} has no abstract evaluation "
                                      "rule, so it cannot be staged")
        prev = _ctx.trace
        _ctx.trace = self.parent
        try:
            out_aval = prim.abstract_eval(*avals, **params)
        finally:
            _ctx.trace = prev
        if prim.multiple_results:
            outs = [StagingTracer(self, a, Var(a)) for a in out_aval]
            self.eqns.append(Eqn(prim, ins, params, [o.var for o in outs]))
            return tuple(outs)
        if prim.name in _WEAK_PRESERVING and all(a.aval.weak_type for a in ins) and any(
                type(a) is Var for a in ins):
            out_aval = ShapedArray(out_aval.shape, out_aval.dtype, weak_type=True)
        out = StagingTracer(self, out_aval, Var(out_aval))
        self.eqns.append(Eqn(prim, ins, params, [out.var]))
        return out

    def to_ir(self, in_tracers: Sequence[StagingTracer], outs: Sequence[Any]
              ) -> tuple[IR, list[Tracer]]:
        """Close the recording: the IR with inputs ``lifted vars + in_tracers`` and outputs
        ``outs`` (tracers of this trace, Python scalars, concrete arrays or foreign
        tracers); returns ``(ir, lifted_values)``."""
        out_vars = [self._operand(o) for o in outs]
        lifted = list(self.lifted.values())
        consts = list(self.consts.values())
        ir = IR([v for _, v in lifted] + [t.var for t in in_tracers],
                [e[1] for e in consts], [e[0] for e in consts], self.eqns, out_vars)
        return ir, [t for t, _ in lifted]


def stage(fun: Callable[..., Any], args: Sequence[Any], name: str = "make_ir"
          ) -> tuple[IR, list[Tracer]]:
    """Stage ``fun(*args)`` on abstract values.

    Parameters
    ----------
    fun : callable
        Takes ``len(args)`` arrays and returns an array or a flat tuple/list of arrays.
    args : sequence of ShapedArray or arrays
        Only shapes and dtypes are used (a ``ShapedArray`` with ``weak_type=True``
        stages a weakly typed Python scalar argument).
    name : str
        Name of the staging transform, used in error messages (``"jit(f)"``).

    Returns
    -------
    (IR, lifted)
        ``lifted`` are the tracers of enclosing transforms ``fun`` closed over; the
        program takes them first, then ``args``.

    Raises
    ------
    ConcretizationError
        If ``fun`` needs the value of a staged array.
    """
    trace = StagingTrace(_ctx.trace, name)
    ins = [trace.new_arg(a if isinstance(a, ShapedArray) else ShapedArray(np.shape(a), a.dtype))
           for a in args]
    try:
        with set_current_trace(trace):
            outs = fun(*ins)
    finally:
        trace.finish()
    if not isinstance(outs, (tuple, list)):
        outs = [outs]
    return trace.to_ir(ins, outs)


# ---------------------------------------------------------------------------------
# program transformations that need no trace: dead-code elimination, partition
# ---------------------------------------------------------------------------------
def dce(ir: IR, used_outputs: Sequence[bool] | None = None) -> IR:
    """The program without the equations no (used) output depends on.

    Parameters
    ----------
    ir : IR
    used_outputs : sequence of bool, optional
        Keep only the outputs marked True (default: all).

    Returns
    -------
    IR
        Same inputs and constants (unused constants dropped); equations of pure
        primitives are dropped when no used output depends on them, effectful ones
        (:func:`has_effects`: ``ftrans.debug.callback``, and control flow whose
        sub-program holds one) are always kept.
    """
    outs = ir.out_vars if used_outputs is None else [
        v for v, u in zip(ir.out_vars, used_outputs) if u]
    live = {v for v in outs if type(v) is Var}
    eqns: list[Eqn] = []
    for e in reversed(ir.eqns):
        if not live.isdisjoint(e.outputs) or _eqn_effectful(e):
            eqns.append(e)
            live.update([a for a in e.inputs if type(a) is Var])
    eqns.reverse()
    keep = [i for i, v in enumerate(ir.const_vars) if v in live]
    return IR(ir.in_vars, [ir.const_vars[i] for i in keep], [ir.consts[i] for i in keep],
              eqns, outs)


def _eqn_effectful(e: Eqn) -> bool:
    if getattr(e.prim, "effectful", False):  # (checkpoint's stand-ins have no flag)
        return True
    for v in e.params.values():
        if isinstance(v, IR) and has_effects(v):
            return True
        if isinstance(v, tuple) and any(isinstance(b, IR) and has_effects(b) for b in v):
            return True  # cond's branches
    return False


def has_effects(ir: IR) -> bool:
    """Whether ``ir`` applies an effectful primitive, directly or in a sub-program.

    Parameters
    ----------
    ir : IR
        The program; sub-programs are the IR-valued parameters of its equations
        (``scan``'s ``body``, ``cond``'s ``branches``, ``while``'s ``cond`` and
        ``body``, ``jit``'s ``ir``).  Primitives carrying Python functions instead
        (``custom_jvp_call``, ``checkpoint``) are not looked into.

    Returns
    -------
    bool
        True when dead-code elimination must keep some of its equations regardless of
        their outputs (the answer is cached on the program).
    """
    hit = ir.cache.get("has_effects")
    if hit is None:
        hit = ir.cache["has_effects"] = any(_eqn_effectful(e) for e in ir.eqns)
    return bool(hit)


def partition(ir: IR, unknown_inputs: Sequence[bool], force_unknown: Collection[Eqn] = ()
              ) -> tuple[IR, IR, list[bool], int]:
    """Split a program into the part computable from the *known* inputs and the rest.

    This is partial evaluation (JAX's ``partial_eval_jaxpr_nounits``): an equation is
    *unknown* when one of its inputs is; every other equation is *known*.  It is how a
    reverse-mode program staged as one piece -- forward pass and backward pass, with
    the cotangents as the unknown inputs -- becomes a forward program that also returns
    the values the backward pass needs (the *residuals*) and a backward program that
    starts from them.

    Parameters
    ----------
    ir : IR
    unknown_inputs : sequence of bool
        One flag per ``ir.in_vars`` entry.
    force_unknown : collection of Eqn, optional
        Equations put on the unknown side even when all their inputs are known (a
        backward pass's recomputations: ``checkpoint``'s, and the derivative factors
        that ``ftrans.jit`` keeps out of its forward program; ``ftrans.lax``'s ``scan``
        and ``cond`` keep their backward-phase equations in the backward program the same
        way).

    Returns
    -------
    (known_ir, unknown_ir, out_unknown, num_residuals)
        ``known_ir`` takes the known inputs (in order) and returns the known outputs
        (in order) followed by ``num_residuals`` residuals; ``unknown_ir`` takes the
        residuals followed by the unknown inputs and returns the unknown outputs (in
        order); ``out_unknown[i]`` tells which program returns output ``i`` (an output
        that does not depend on an unknown input is a known output).
    """
    unknown: set[Var] = {v for v, u in zip(ir.in_vars, unknown_inputs) if u}
    force = {id(e) for e in force_unknown}
    known_eqns: list[Eqn] = []
    unknown_eqns: list[Eqn] = []
    for e in ir.eqns:
        if id(e) in force or any(type(a) is Var and a in unknown for a in e.inputs):
            unknown_eqns.append(e)
            unknown.update(e.outputs)
        else:
            known_eqns.append(e)
    out_unknown = [type(v) is Var and v in unknown for v in ir.out_vars]
    # residuals: known variables (not constants) read by the unknown side
    const_set = set(ir.const_vars)
    residuals: list[Var] = []
    seen: set[Var] = set()

    def need(a: Var | Literal) -> None:
        if type(a) is Var and a not in unknown and a not in seen and a not in const_set:
            seen.add(a)
            residuals.append(a)

    for e in unknown_eqns:
        for a in e.inputs:
            need(a)
    known_in = [v for v, u in zip(ir.in_vars, unknown_inputs) if not u]
    known_out = [v for v, u in zip(ir.out_vars, out_unknown) if not u]
    known_ir = dce(IR(known_in, ir.const_vars, ir.consts, known_eqns, [*known_out, *residuals]))
    # the unknown side reads residuals through fresh variables
    unknown_in = [v for v, u in zip(ir.in_vars, unknown_inputs) if u]
    unknown_ir = dce(IR(residuals + unknown_in, ir.const_vars, ir.consts, unknown_eqns,
                        [v for v, u in zip(ir.out_vars, out_unknown) if u]))
    return known_ir, unknown_ir, out_unknown, len(residuals)


# ---------------------------------------------------------------------------------
# printing
# ---------------------------------------------------------------------------------
_SHORT = {"float64": "f64", "float32": "f32", "float16": "f16", "complex128": "c128",
          "complex64": "c64", "int64": "i64", "int32": "i32", "int16": "i16", "int8": "i8",
          "uint8": "u8", "bool": "bool", "uint32": "u32", "uint64": "u64"}


def _aval_str(aval: ShapedArray) -> str:
    dt = _SHORT.get(aval.dtype.name, aval.dtype.name)
    if aval.dtype.names is None and aval.dtype.kind == "V":
        dt = "float0"
    return f"{dt}[{','.join(map(str, aval.shape))}]"


def _names() -> Iterator[str]:
    for n in itertools.count(1):
        for t in itertools.product("abcdefghijklmnopqrstuvwxyz", repeat=n):
            yield "".join(t)


def _param_str(v: Any) -> str:
    if isinstance(v, IR):
        return "{ " + str(v).replace("\n", "\n    ") + " }"
    if isinstance(v, tuple) and v and all(isinstance(x, IR) for x in v):  # cond's branches
        return "(" + ", ".join(_param_str(x) for x in v) + ")"
    if callable(v):
        return getattr(v, "__name__", type(v).__name__)
    if isinstance(v, np.dtype):
        return v.name
    if isinstance(v, np.ndarray):
        return f"array{_aval_str(aval_of(v))}"
    return repr(v)


def _print_ir(ir: IR) -> str:
    gen = _names()
    names: dict[Var, str] = {}

    def name(v: Var | Literal) -> str:
        if isinstance(v, Literal):
            return repr(v.val)
        n = names.get(v)
        if n is None:
            n = names[v] = next(gen)
        return n

    def decl(v: Var | Literal) -> str:
        return f"{name(v)}:{_aval_str(v.aval)}"

    head = ", ".join(decl(v) for v in ir.in_vars)
    lines = []
    if ir.const_vars:
        lines.append("ir(consts " + ", ".join(decl(v) for v in ir.const_vars) + "; " + head + ") {")
    else:
        lines.append(f"ir({head}) {{")
    for e in ir.eqns:
        params = " ".join(f"{k}={_param_str(v)}" for k, v in sorted(e.params.items()))
        lhs = " ".join(decl(v) for v in e.outputs)
        rhs = " ".join(name(a) for a in e.inputs)
        rhs = f"{e.prim.name}{'[' + params + ']' if params else ''} {rhs}".rstrip()
        lines.append(f"  {lhs} = {rhs}" if lhs else f"  {rhs}")  # (an effect has no outputs)
    lines.append("  return " + ", ".join(name(v) for v in ir.out_vars))
    lines.append("}")
    return "\n".join(lines)
