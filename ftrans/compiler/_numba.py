"""CPU code generation: one numba ``@njit`` function per segment (see the package docstring).

This file is the code generator; which equations lower and how dtypes are spelled is in
``_numba_dtypes.py``, the generated modules' files and import in ``_numba_modules.py``.

A segment's equations are emitted in order into the body of one function:

* elementwise equations (lowering kind ``"elementwise"``) join the *pending group* of
  their output shape: one loop nest over that shape whose body computes each member as
  a scalar local (a register); a group is emitted ("flushed") when something outside it
  needs one of its values in memory, and then stores exactly those values;
* reductions (kind ``"reduce"``) join the group of their operand's shape and accumulate
  in that loop (a scalar accumulator for a full reduction; a float sum into one scalar
  spreads over interleaved accumulators in the innermost loop, ``_lanes.py``);
* broadcasting is index arithmetic: an operand of a smaller shape is read at index 0
  along its size-1 or missing axes; ``broadcast_to``, ``transpose`` and reshapes that
  only insert or remove size-1 axes are *views* (an index map onto the array they read),
  emitting no code;
* ``dot_general`` with contracted axes calls BLAS (``np.dot``) on contiguous 2-D (or a loop
  of 2-D) operands; without contracted axes it is an elementwise product in a group;
* other reshapes, ``concatenate`` and materialized views are copy loops or ``reshape`` of
  a contiguous array.

Each flushed loop nest is emitted as its own small ``@njit`` function that the segment's
function calls: LLVM vectorizes a loop there that it leaves scalar inside a large
function (W2's float32 tanh loop: 0.3 ms against 2 ms).

Values of shape ``()`` are scalars in the generated code.
"""
from __future__ import annotations

import os
import re
from math import prod

import numpy as np

from ..core.ir import Var, Literal
from ._plan import Segment
from ._sizes import size_classes
from ._collapse import collapse, defined as _defined
from ._lanes import interleave
from ._shape_memo import MEMO
from . import _numba_control, _numba_conv, _numba_index, _numba_linalg, _numba_scatter
from ._passes import prepare
from ._lowering import LoweringTable, operand_casts as _casts
from ._numba_dtypes import (OK, MONOID, _cast, _lit, _result, _tuple, _tyname,
                            elementwise_expr, fast_forms, FAST_STEPS, int_operand_range,
                            integer_exact, lit_form)
from ._numba_modules import cache_dir, decorator, load, module_source, purge_numba_cache

__all__ = ["TABLE", "lowerable", "generate", "load", "purge_numba_cache", "writes_new_memory",
           "int_operand_range", "integer_exact", "PARALLEL_MIN_SIZE", "cache_dir", "module_source"]

#: A fused loop runs in numba's thread pool (``prange`` over its outermost axis) from this
#: many elements on, serially below: the threshold of the eager kernels
#: (``ftrans.kernels.cpu.NUMBA_PARALLEL_MIN_SIZE``, same reasoning: when another process
#: holds a core, a parallel loop waits a whole scheduler tick for its worker, 4-16 ms, so
#: the pool pays only for loops of several milliseconds).  ``benchmarks/
#: bench_compiler_parallel.py`` times W5's fused loop both ways; ``FTRANS_PARALLEL_MIN_SIZE``
#: overrides the value.
PARALLEL_MIN_SIZE = int(os.environ.get("FTRANS_PARALLEL_MIN_SIZE", 2 ** 19))


# views and groups ----------------------------------------------------------------
class _View:
    """How to read a materialized value: ``name`` (an array of ``ndim`` dims or a scalar),
    and for each of its dims the dim of the value it is indexed by (None: index 0)."""

    __slots__ = ("name", "ndim", "map")

    def __init__(self, name, ndim, map):
        self.name, self.ndim, self.map = name, ndim, tuple(map)


def _identity(name, ndim):
    return _View(name, ndim, range(ndim))


class _Group:
    __slots__ = ("var", "key", "regs", "members", "body", "pre", "post", "reductions",
                 "par_ok", "guards", "hoist", "chains")

    def __init__(self, var, key):
        self.var = var          # a value of the loop's shape (its sizes' classes)
        self.key = key
        self.regs = {}          # var -> register name
        self.members = set()    # ids of member equations
        self.body = []
        self.pre = []
        self.post = []
        self.reductions = []    # (var, name)
        self.par_ok = True
        self.guards = []        # conditions under which the fast body is not valid
        self.hoist = {}         # depth k -> ([lines entering loop k's body], [leaving it])
        self.chains = []        # (scalar sum accumulator, its zero): see _lanes.py


class _Codegen:
    def __init__(self, seg, parallel_min, fname="f"):
        self.seg = seg
        self.fname = fname
        self.helpers = []   # (name, params, returns, lines, parallel) of loop functions
        self.parallel_min = parallel_min
        self.lines = []
        self.view = {}
        self.reg = {}       # var -> group (value in a register of a pending group)
        self.acc = {}       # var -> group (pending reduction output)
        self.pending = {}   # shape's key (key()) -> group
        self.tmp = 0
        self.parallel = False
        self.consumers = {}
        for i, e in enumerate(seg.eqns):
            for a in e.inputs:
                if type(a) is Var:
                    self.consumers.setdefault(a, set()).add(i)
        self.live_out = set(seg.outputs)
        self.ids = {}
        self.classes = size_classes(seg.eqns)   # (var, axis) -> its size class's root
        self.size_names = {}  # size class (or size, see size()) -> parameter name
        self.sizes = {}     # parameter name -> size
        self.cur = None     # the equation being emitted
        self.lits = {}      # parameter name -> (literal value, dtype) (lit())
        self.shared = {}    # canonical loop text -> helper name (one function per text)
        self.helper_call = re.compile(rf"^(?:[\w, ]+ = )?{fname}_g\d+\(")
        self.regions = []   # sources of nested programs' functions (region())
        self.extra = []     # (var, value): constants passed as extra parameters
        # a nested program's function (region()): called from the segment's function only,
        # and returns its arrays C-contiguous
        self.nested = False

    # naming ----------------------------------------------------------------------
    def vid(self, v):
        """A number for ``v`` in order of appearance: the source text (and so its hash, the
        disk cache key) does not depend on what else the process staged before."""
        n = self.ids.get(v)
        if n is None:
            n = self.ids[v] = len(self.ids)
        return n

    def vname(self, v):
        return f"v{self.vid(v)}"

    def fresh(self, p="t"):
        """A new local name (``t1``, ``t2`` ...; ``p`` another prefix of one letter)."""
        self.tmp += 1
        return f"{p}{self.tmp}"

    # the emitters' interface -------------------------------------------------------
    # (a rule's ``emit(cg, i, eqn, low)`` writes code only through these: sizes through
    # size()/shape_src()/dim(), never as literals, so generated text can be shared by
    # programs of other sizes)
    def size(self, n, axis=None):
        """Source of the size ``n`` of some axis of a value of the program: 0 and 1 as
        literals (broadcasting and empty loops are structure), any other size as a
        parameter of the function, so the same text serves every size.  The parameter is
        that of the axis's size class (``axis``: ``(var, dim)``; see ``_sizes.py``), so
        sizes that are equal by chance stay apart; without ``axis``, the first axis of
        the current equation's values of that size stands for it."""
        n = int(n)
        if n in (0, 1):
            return str(n)
        if axis is None and self.cur is not None:
            axis = next(((v, d) for v in (*self.cur.inputs, *self.cur.outputs)
                         if type(v) is Var for d, m in enumerate(v.aval.shape) if m == n),
                        None)
        key = n if axis is None else self.classes.get(axis, axis)
        name = self.size_names.get(key)
        if name is None:
            name = self.size_names[key] = f"n{len(self.sizes)}"
            self.sizes[name] = n
        return name

    def key(self, v):
        """The structure of ``v``'s shape: its size classes (0 and 1 as such)."""
        return tuple(n if n in (0, 1) else self.classes.get((v, d), (v, d))
                     for d, n in enumerate(v.aval.shape))

    def lit(self, val, dt):
        """Source of a literal operand ``val`` of dtype ``dt``: a float or complex value
        other than a few structural constants is a parameter of the function (``1/n`` of a
        mean changes with the shape; the text then does not), one per use: literals equal
        by chance (a mean's ``1/16`` and another's over an axis of the same size) share
        no parameter, or the text would change when they stop being equal
        (:func:`~ftrans.compiler._numba_dtypes.lit_form`)."""
        dt = np.dtype(dt)
        param, v = lit_form(val, dt)
        if not param:
            return v
        name = f"l{len(self.lits)}"
        self.lits[name] = (val, dt)
        return name if dt in (np.dtype(np.float64), np.dtype(np.complex128)) \
            else f"{_tyname(dt)}({name})"

    def shape_src(self, shape):
        """Source of the tuple ``shape`` (for ``np.empty``, ``reshape`` ...)."""
        return _tuple(self.size(n) for n in shape)

    def shape_of(self, v):
        """Source of the tuple of ``v``'s shape (its sizes' classes: :meth:`dim`)."""
        return _tuple(self.dim(v, d) for d in range(len(v.aval.shape)))

    def dim(self, v, d):
        """Source of ``v``'s size along axis ``d``."""
        return self.size(v.aval.shape[d], (v, d) if type(v) is Var else None)

    def prod_src(self, v, axes):
        """Source of the product of ``v``'s sizes along ``axes`` (1 for none)."""
        return " * ".join(self.dim(v, d) for d in axes) or "1"

    def array(self, v):
        """Name of a C-contiguous array (a scalar for shape ``()``) holding ``v``."""
        if not v.aval.shape:
            self.ensure(v)
            return self.read(v, [])
        return self.contiguous(v)

    def operand(self, a):
        """Source of an operand: an array name, a scalar, or a literal's value."""
        if type(a) is Literal:
            return self.lit(a.val, a.aval.dtype)
        return self.array(a)

    def define(self, o, name):
        """``o`` is now the array (or scalar, for shape ``()``) named ``name``."""
        self.view[o] = _identity(name, len(o.aval.shape))

    @staticmethod
    def tyname(dt):
        """The generated code's name of dtype ``dt`` (``np.float64`` ...)."""
        return _tyname(dt)

    def define_reshaped(self, o, y):
        """``o`` is the C-contiguous array ``y`` holds in another shape (same elements):
        reshaped, or its single element for shape ``()``."""
        z = self.fresh("z")
        self.emit(f"{z} = {y}.reshape({self.shape_of(o)})" if o.aval.shape
                  else f"{z} = {y}.ravel()[0]")
        self.define(o, z)

    def emit(self, line):
        """Append a statement (may hold newlines; indented as one block)."""
        self.lines.extend(line.split("\n"))

    def constant(self, var, value):
        """Name of the constant array ``value`` (the nested programs' constants): a
        parameter of this function, which its caller passes (``var`` identifies it)."""
        if var not in self.view:
            self.extra.append((var, value))
            self.view[var] = _identity(self.vname(var), len(var.aval.shape))
        return self.vname(var)

    def region(self, ir):
        """Compile the nested program ``ir`` (every equation lowerable: see
        :meth:`TABLE.region_lowerable <ftrans.compiler._lowering.LoweringTable.region_lowerable>`) into a function of the module.  Returns
        ``call(args) -> source``: the call of that function on the sources ``args`` of
        ``ir.in_vars`` (arrays C-contiguous, shape ``()`` as scalars), a tuple of
        ``ir.out_vars`` (arrays C-contiguous: new or an input)."""
        name = f"{self.fname}_r{len(self.regions)}"
        ir = prepare(ir)
        sub = _Codegen(Segment(ir.eqns, list(ir.in_vars), [v for v in ir.out_vars
                                                          if type(v) is Var]),
                       self.parallel_min, name)
        sub.nested = True
        for v, c in zip(ir.const_vars, ir.consts):
            sub.constant(v, c)
        src, par = sub.source(list(ir.out_vars))
        self.parallel |= par
        self.regions.append(src)
        extra = [self.constant(v, c) for v, c in sub.extra]
        extra += [self.size(n) for n in sub.sizes.values()]
        extra += [self.lit(lit_form(v, d)[1], np.complex128 if d.kind == "c" else np.float64)
                  for v, d in sub.lits.values()]

        def call(args):
            return f"{name}({', '.join(list(args) + extra)})"
        return call

    # reading -----------------------------------------------------------------------
    def read(self, v, dimexpr):
        """Source reading materialized ``v`` where its dim ``d`` has index ``dimexpr[d]``."""
        vw = self.view[v]
        if vw.ndim == 0:
            return vw.name
        idx = ["0" if m is None else dimexpr[m] for m in vw.map]
        return f"{vw.name}[{', '.join(idx)}]"

    def read_bcast(self, v, shape):
        """``v`` read inside a loop nest over ``shape`` (NumPy broadcasting)."""
        t = v.aval.shape
        lead = len(shape) - len(t)
        dims = [f"i{j + lead}" if t[j] != 1 and t[j] == shape[j + lead] else "0"
                for j in range(len(t))]
        return self.read(v, dims)

    def ensure(self, v):
        """Make ``v`` materialized (flush the group holding it)."""
        if type(v) is not Var:
            return
        g = self.reg.get(v) or self.acc.get(v)
        if g is not None:
            self.flush(g)

    # groups ----------------------------------------------------------------------
    def group(self, v):
        """The pending group of the loop over ``v``'s shape (its size classes)."""
        k = self.key(v)
        g = self.pending.get(k)
        if g is None:
            g = self.pending[k] = _Group(v, k)
        return g

    def flush(self, g):
        if self.pending.get(g.key) is g:
            del self.pending[g.key]
        shape = g.var.aval.shape
        nd = len(shape)
        pre = list(g.pre)
        body = list(g.body)
        idx = ", ".join(f"i{k}" for k in range(nd))
        stored = []
        for v, r in g.regs.items():
            del self.reg[v]
            cons = self.consumers.get(v, ())
            if v in self.live_out or any(c not in g.members for c in cons):
                name = self.vname(v)
                stored.append(name)
                pre.append(f"{name} = _empty({self.shape_of(g.var)}, {_tyname(v.aval.dtype)})")
                body.append(f"{name}[{idx}] = {r}")
                self.view[v] = _identity(name, nd)
        for v, name in g.reductions:
            del self.acc[v]
            self.view[v] = _identity(name, len(v.aval.shape))
        out = []
        rets = stored + [name for _, name in g.reductions]
        par = g.par_ok and prod(shape) >= self.parallel_min and nd > 0
        if par:
            self.parallel = True
        if g.guards and not fast_forms(prod(shape), len(g.guards)):
            g.guards = []  # little work: the exact forms
            body = [b if isinstance(b, str) else b[1] for b in body]
        if g.guards:
            bad = self.fresh("b")
            pre.append(f"{bad} = 0")
            body = body + [f"{bad} += np.int64({' | '.join(f'({c})' for c in g.guards)})"]
        self.loop(out, g, pre, body, par, 0)
        if g.guards:
            # rare inputs the fast formulas do not cover: the whole loop again, exactly
            out.append(f"if {bad}:")
            self.loop(out, g, list(g.pre) + pre[len(g.pre):-1],
                      [b for b in body if not (isinstance(b, str) and b.startswith(bad))],
                      False, 1)
        self.helper(out, par, rets)

    def helper(self, glines, par, rets):
        """Emit a flushed loop as its own function, called from the segment's function.
        (LLVM optimizes a loop in a small function much better: the same fused tanh loop
        ran 7x slower inside W2's large function than on its own.)"""
        text = "\n".join(glines)
        defined = set(_defined(text))
        params = [u for u in dict.fromkeys(re.findall(r"\b([a-z]\d+)\b", text))
                  if u not in defined]
        # one function per distinct loop: locals renamed by order of appearance
        names = {}
        canon = re.sub(r"\b([a-hj-z])(\d+)\b",
                       lambda m: names.setdefault(m.group(0),
                                                  f"{m.group(1)}{len(names)}"), text)
        key = (canon, par, tuple(names.get(r, r) for r in rets))
        hname = self.shared.get(key)
        if hname is None:
            hname = self.shared[key] = f"{self.fname}_g{len(self.helpers)}"
            self.helpers.append((hname, [names.get(u, u) for u in params],
                                 [names.get(r, r) for r in rets], canon.split("\n"), par))
        if par:
            self.parallel = True
        call = f"{hname}({', '.join(params)})"
        if rets:  # one value bare: numba types a call unpacking a tuple a third slower
            self.lines.append(f"{', '.join(rets)} = {call}")
        else:
            self.lines.append(call)

    def outline(self, start):
        """Move the statements from ``self.lines[start]`` on into a function of their own,
        shared by every equal text, as a flushed loop is: the segment's function is then
        only calls, which numba types and lowers quickly, and each distinct block (a
        matrix product, a copy, a scan loop ...) is compiled once."""
        block = self.lines[start:]
        del self.lines[start:]
        # loops flushed meanwhile are called from the segment's function, before the
        # block (their operands were all computed earlier): numba links and optimizes a
        # callee into every caller, so helpers do not call helpers
        calls = [ln for ln in block if self.helper_call.match(ln)]
        if calls:
            self.lines.extend(calls)
            block = [ln for ln in block if not self.helper_call.match(ln)]
        if not block:
            return
        made = _defined("\n".join(block))
        seen = {vw.name for vw in self.view.values()}
        self.helper(block, False, [n for n in dict.fromkeys(made) if n in seen])

    def loop(self, out, g, pre, body, par, exact):
        """The loop nest of group ``g``: ``pre``, the loops over ``g.var``'s shape with
        ``g.hoist``'s lines at their depths and ``body`` innermost, then ``g.post``."""
        ind = base = "    " if exact else ""
        lines = [b if isinstance(b, str) else b[exact] for b in body] or ["pass"]
        dims = [self.dim(g.var, k) for k in range(len(g.var.aval.shape))]
        col = collapse(lines, g.hoist, len(dims), int(par), self.fresh,
                       set(_defined("\n".join(pre))))
        c, lines, hoist, views = col or (len(dims), lines, g.hoist, [])
        dims[c:] = [" * ".join(dims[c:])] if dims[c:] else []  # (see _collapse.py)
        out.extend(base + ln for ln in pre + views)
        inner = None if par or not dims or len(dims) - 1 in hoist else interleave(
            lines, g.chains, len(dims) - 1, dims[-1], self.fresh)
        for k, d in enumerate(dims[:-1] if inner else dims):
            rng = "prange" if (par and k == 0) else "range"
            out.append(f"{ind}for i{k} in {rng}({d}):")
            ind += "    "
            out.extend(ind + ln for ln in hoist.get(k, ((), ()))[0])
        out.extend(ind + b for b in inner or lines)
        for k in range(len(dims) - 1, -1, -1):
            out.extend(base + "    " * (k + 1) + ln for ln in hoist.get(k, ((), ()))[1])
        out.extend(base + ln for ln in g.post)

    # equations -------------------------------------------------------------------
    def operand_exprs(self, eqn, shape, casts, g):
        exprs = []
        for a, dst in zip(eqn.inputs, casts):
            if type(a) is Literal:
                exprs.append(self.lit(a.val, dst if dst is not None else a.aval.dtype))
                continue
            if g is not None and a in g.regs:
                e = g.regs[a]
            else:
                e = self.read_bcast(a, shape)
            exprs.append(e if dst is None else _cast(e, a.aval.dtype, dst))
        return exprs

    def prepare_inputs(self, eqn, v):
        """Flush what an equation looping over ``v``'s shape cannot read from registers."""
        key = self.key(v)
        for a in eqn.inputs:
            if type(a) is not Var:
                continue
            if a in self.acc:
                self.flush(self.acc[a])
            elif a in self.reg and self.reg[a].key != key:
                self.flush(self.reg[a])

    def elementwise(self, i, eqn, low):
        """Kind ``elementwise``: a member of the pending group of its output shape."""
        o = eqn.outputs[0]
        shape = o.aval.shape
        self.prepare_inputs(eqn, o)
        g = self.group(o) if shape else None
        casts = _casts(eqn, low)
        ops = self.operand_exprs(eqn, shape, casts, g)
        dt = o.aval.dtype
        fmt, guarded = elementwise_expr(eqn, low)
        if g is not None and " if " in fmt:
            # operands read from arrays are loaded before a conditional expression: LLVM
            # does not speculate a load it cannot prove safe, so ``v[i] if c else 0`` stays
            # a branch, mispredicted half the time on a ReLU mask (BatchNorm-ReLU's
            # backward loop over (64, 16, 8, 8): 0.31 ms, 0.06 ms with the loads first)
            for k, e in enumerate(ops):
                if "[" in e:
                    t = self.fresh("x")
                    g.body.append(f"{t} = {e}")
                    ops[k] = t
        if len(eqn.outputs) > 1:   # several results (frexp, modf, threefry2x32): a tuple
            t = self.fresh("u")
            (self.lines if g is None else g.body).append(f"{t} = {fmt.format(*ops, **eqn.params)}")
            for k, ok in enumerate(eqn.outputs):
                self.member(i, ok, _result(f"{t}[{k}]", ok.aval.dtype), g)
            return
        expr = _result(fmt.format(*ops, **eqn.params), dt)
        if guarded:
            guard = low["guard"]
            # a fast formula valid unless ``guard``; the loop reruns with the exact one
            exact = _result(low["numba_exact"].format(*ops, **eqn.params), dt)
            if g is None:
                expr = exact  # a scalar
            else:  # (the loop may still take the exact forms: flush())
                g.guards.append(guard.format(*ops, **eqn.params))
                expr = (expr, exact)
        self.member(i, o, expr, g)

    def member(self, i, o, expr, g):
        if g is None:  # shape (): a scalar statement now
            name = self.vname(o)
            self.lines.append(f"{name} = {expr}")
            self.view[o] = _identity(name, 0)
            return
        r = f"r{self.vid(o)}"
        g.body.append(f"{r} = {expr}" if isinstance(expr, str) else
                      (f"{r} = {expr[0]}", f"{r} = {expr[1]}"))
        g.regs[o] = r
        g.members.add(i)
        self.reg[o] = g

    def reduce(self, i, eqn, low):
        """Kind ``reduce``: accumulated in the loop over its operand's shape."""
        x = eqn.inputs[0]
        o = eqn.outputs[0]
        axes = tuple(eqn.params["axes"])
        shape = x.aval.shape
        if not axes or not shape:
            self.ensure(x)
            self.view[o] = self.view[x]
            return
        self.prepare_inputs(eqn, x)
        g = self.group(x)
        val = g.regs[x] if x in g.regs else self.read_bcast(x, shape)
        dt = o.aval.dtype
        monoid = low["monoid"]
        accdt = np.dtype(np.float64) if (monoid == "sum" and dt == np.float32) else dt
        if monoid == "sum" and dt.kind == "c" and dt.itemsize == 8:
            accdt = np.dtype(np.complex128)
        val = _cast(val, dt, accdt)
        init, combine = MONOID[monoid]
        chained = monoid == "sum" and accdt.kind in "fc"   # (interleaved when scalar)
        name = self.vname(o)
        a = f"a{self.vid(o)}"
        if len(axes) == len(shape):  # full reduction: a scalar accumulator
            g.pre.append(f"{a} = {init(accdt)}")
            g.body.append(combine(a, val, accdt.kind))
            g.post.append(f"{name} = {_cast(a, accdt, dt)}")
            if chained:
                g.chains.append((a, init(accdt)))
            if monoid != "sum":
                g.par_ok = False
        else:
            g.pre.append(f"{a} = _full({self.shape_of(o)}, {init(accdt)}, {_tyname(accdt)})")
            kept = [k for k in range(len(shape)) if k not in axes]
            acc = f"{a}[{', '.join(f'i{k}' for k in kept)}]"
            if kept[-1] < len(shape) - 1:  # the loops inside the last kept axis reduce:
                # its element accumulates in a register there (the same additions, in
                # the same order, without a load and a store per element)
                r = self.fresh()
                enter, leave = g.hoist.setdefault(kept[-1], ([], []))
                enter.append(f"{r} = {acc}")
                leave.append(f"{acc} = {r}")
                acc = r
                if chained:
                    g.chains.append((r, init(accdt)))
            g.body.append(combine(acc, val, accdt.kind))
            g.post.append(f"{name} = {a}" if accdt == dt else f"{name} = {a}.astype({_tyname(dt)})")
            if 0 in axes:
                g.par_ok = False
        g.members.add(i)
        g.reductions.append((o, name))
        self.acc[o] = g

    # structural ------------------------------------------------------------------
    def alias(self, o, x, vmap):
        """``o`` reads the array of ``x`` through ``vmap`` (x's dim -> o's dim or None)."""
        vw = self.view[x]
        self.view[o] = _View(vw.name, vw.ndim,
                             [None if m is None else vmap[m] for m in vw.map])

    def transpose(self, i, eqn, low):
        x, o = eqn.inputs[0], eqn.outputs[0]
        self.ensure(x)
        perm = eqn.params["perm"]
        inv = [0] * len(perm)
        for r, p in enumerate(perm):
            inv[p] = r
        self.alias(o, x, inv)

    def broadcast_to(self, i, eqn, low):
        x, o = eqn.inputs[0], eqn.outputs[0]
        self.ensure(x)
        t, s = x.aval.shape, o.aval.shape
        lead = len(s) - len(t)
        self.alias(o, x, [j + lead if t[j] == s[j + lead] and t[j] != 1 else None
                          for j in range(len(t))])

    def reshape(self, i, eqn, low):
        x, o = eqn.inputs[0], eqn.outputs[0]
        self.ensure(x)
        t, s = x.aval.shape, o.aval.shape
        tn = [j for j, d in enumerate(t) if d != 1]
        sn = [j for j, d in enumerate(s) if d != 1]
        if [t[j] for j in tn] == [s[j] for j in sn]:
            vmap = [None] * len(t)
            for a, b in zip(tn, sn):
                vmap[a] = b
            self.alias(o, x, vmap)
            return
        arr = self.contiguous(x)
        name = self.vname(o)
        self.lines.append(f"{name} = {arr}.reshape({self.shape_of(o)})")
        self.view[o] = _identity(name, len(s))

    def contiguous(self, x, perm=None, dtype=None):
        """Name of a C-contiguous array holding ``x`` with axes ``perm``, converted to
        ``dtype``: ``x``'s array, its reshape (``x`` adds unit axes), or a copy loop."""
        self.ensure(x)
        t = x.aval.shape
        nd = len(t)
        perm = tuple(range(nd)) if perm is None else tuple(perm)
        dt = x.aval.dtype if dtype is None else np.dtype(dtype)
        vw = self.view[x]
        inv = [0] * nd
        for r, p in enumerate(perm):
            inv[p] = r
        if (dt == x.aval.dtype and vw.ndim == nd and nd > 0
                and all(vw.map[k] == perm[k] for k in range(nd))):
            return vw.name
        dims, name = [self.dim(x, p) for p in perm], self.fresh()
        if (dt == x.aval.dtype and perm == tuple(range(nd)) and 0 < vw.ndim < nd
                and None not in vw.map and list(vw.map) == sorted(set(vw.map))
                and all(t[d] == 1 for d in set(range(nd)) - set(vw.map))):
            self.lines.append(f"{name} = {vw.name}.reshape({_tuple(dims)})")
            return name
        self.lines.append(f"{name} = _empty({_tuple(dims)}, {_tyname(dt)})")
        ind = ""
        for k, n in enumerate(dims):
            self.lines.append(f"{ind}for i{k} in range({n}):")
            ind += "    "
        src = self.read(x, [f"i{inv[d]}" for d in range(nd)])
        self.lines.append(f"{ind}{name}[{', '.join(f'i{k}' for k in range(nd))}] = "
                          f"{_cast(src, x.aval.dtype, dt)}")
        return name

    def concatenate(self, i, eqn, low):
        o = eqn.outputs[0]
        axis = eqn.params["axis"]
        s = o.aval.shape
        dt = o.aval.dtype
        name = self.vname(o)
        for x in eqn.inputs:
            self.ensure(x)
        self.lines.append(f"{name} = _empty({self.shape_of(o)}, {_tyname(dt)})")
        off = "0"
        for x in eqn.inputs:
            t = x.aval.shape
            ind = ""
            for k in range(len(t)):
                self.lines.append(f"{ind}for i{k} in range({self.dim(x, k)}):")
                ind += "    "
            idx = [f"i{k}" if k != axis else f"i{k} + {off}" for k in range(len(t))]
            if t:
                src = self.read(x, [f"i{k}" for k in range(len(t))])
                self.lines.append(f"{ind}{name}[{', '.join(idx)}] = "
                                  f"{_cast(src, x.aval.dtype, dt)}")
            off = f"{off} + {self.dim(x, axis)}" if off != "0" else self.dim(x, axis)
        self.view[o] = _identity(name, len(s))

    def dot_general(self, i, eqn, low):
        lhs, rhs = eqn.inputs
        o = eqn.outputs[0]
        (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
        ls, rs = lhs.aval.shape, rhs.aval.shape
        lf = [d for d in range(len(ls)) if d not in lc and d not in lb]
        rf = [d for d in range(len(rs)) if d not in rc and d not in rb]
        dt = o.aval.dtype
        oshape = o.aval.shape
        nb = len(lb)
        if not lc:
            # no contraction: out[b..., l..., r...] = lhs * rhs, an elementwise product
            self.ensure(lhs)
            self.ensure(rhs)
            ldim = [None] * len(ls)
            for p, d in enumerate(lb):
                ldim[d] = f"i{p}"
            for q, d in enumerate(lf):
                ldim[d] = f"i{nb + q}"
            rdim = [None] * len(rs)
            for p, d in enumerate(rb):
                rdim[d] = f"i{p}"
            for q, d in enumerate(rf):
                rdim[d] = f"i{nb + len(lf) + q}"
            a = _cast(self.read(lhs, ldim), lhs.aval.dtype, dt)
            b = _cast(self.read(rhs, rdim), rhs.aval.dtype, dt)
            g = self.group(o) if oshape else None
            self.member(i, o, _result(f"({a} * {b})", dt), g)
            return
        m = prod(ls[d] for d in lf)
        n = prod(rs[d] for d in rf)
        k = prod(ls[d] for d in lc)
        bsz = prod(ls[d] for d in lb)
        name = self.vname(o)
        A = self.matrix(lhs, list(lb) + lf + list(lc), dt, (bsz, m, k) if nb else (m, k),
                        [lb, lf, lc] if nb else [lf, lc])
        B = self.matrix(rhs, list(rb) + list(rc) + rf, dt, (bsz, k, n) if nb else (k, n),
                        [rb, rc, rf] if nb else [rc, rf])
        bsrc = self.prod_src(lhs, lb)
        msrc, nsrc = self.prod_src(lhs, lf), self.prod_src(rhs, rf)
        t = self.fresh()
        if nb:
            self.lines.append(f"{t} = _empty(({bsrc}, {msrc}, {nsrc}), {_tyname(dt)})")
            self.lines.append(f"for ib in range({bsrc}):")
            self.lines.append(f"    _dot_into({A}[ib], {B}[ib], {t}[ib])")
        else:
            self.lines.append(f"{t} = _dot({A}, {B})")
        if oshape:
            self.lines.append(f"{name} = {t}.reshape({self.shape_of(o)})")
            self.view[o] = _identity(name, len(oshape))
        else:
            self.lines.append(f"{name} = {t}[0, 0]")
            self.view[o] = _identity(name, 0)

    def matrix(self, x, perm, dt, shape, groups):
        """A C- or F-contiguous array of ``shape``: ``x`` with axes ``perm``, reshaped;
        ``groups``: the axes of ``x`` each dim of ``shape`` is the product of."""
        self.ensure(x)
        vw = self.view[x]
        nd = len(x.aval.shape)
        # a transposed 2-D contiguous array: pass its .T (F-contiguous) to BLAS
        if (len(shape) == 2 and nd == 2 and x.aval.dtype == dt and vw.ndim == 2
                and tuple(vw.map[k] for k in range(2)) == (perm[1], perm[0])
                and perm != [0, 1]):
            return f"{vw.name}.T"
        c = self.contiguous(x, perm, dt)
        t = self.fresh()
        dims = [self.prod_src(x, g) for g in groups]
        self.lines.append(f"{t} = {c}.reshape(({', '.join(dims)}, ))")
        return t

    # the whole segment -----------------------------------------------------------
    def run(self, outputs=None):
        """Emit the equations; the sources of ``outputs`` (default: the segment's; a
        region's may hold literals and inputs)."""
        for v in self.seg.inputs:
            self.view[v] = _identity(self.vname(v), len(v.aval.shape))
        for i, e in enumerate(self.seg.eqns):
            low = e.prim.lowering
            self.cur = e
            start = len(self.lines)
            TABLE.rules[low["kind"]][1](self, i, e, low)
            if len(self.lines) > start:
                self.outline(start)
        self.cur = None
        for g in list(self.pending.values()):
            self.flush(g)
        rets = []
        for v in (self.seg.outputs if outputs is None else outputs):
            if type(v) is Literal:
                rets.append(_lit(v.val, v.aval.dtype) if not v.aval.shape else
                            f"_full({self.shape_src(v.aval.shape)}, "
                            f"{_lit(v.val, v.aval.dtype)}, {_tyname(v.aval.dtype)})")
                continue
            self.ensure(v)
            vw = self.view[v]
            nd = len(v.aval.shape)
            if nd == 0:
                rets.append(self.read(v, []))
            elif nd == 2 and vw.ndim == 2 and vw.map == (1, 0) and not self.nested:
                rets.append(f"{vw.name}.T")  # a transposed result: a view, as NumPy's
            else:
                rets.append(self.contiguous(v))
        return rets


    def source(self, outputs=None):
        """``(source, parallel)``: the function (its loop helpers and nested programs'
        functions first) computing the segment."""
        rets = self.run(outputs)
        out = list(self.regions)
        for hname, params, hrets, glines, par in self.helpers:
            out.append(f"{decorator(par, body=glines)}\ndef {hname}({', '.join(params)}):")
            out.extend("    " + ln for ln in glines)
            if hrets:
                out.append(f"    return {', '.join(hrets)}")
            out.append("")
        args = ", ".join([self.vname(v) for v in self.seg.inputs] +
                         [self.vname(v) for v, _ in self.extra] +
                         list(self.sizes) + list(self.lits))
        body = self.lines + [f"return ({''.join(r + ', ' for r in rets)})"]
        out.append(f"{decorator(entry=not self.nested, body=body)}\ndef {self.fname}({args}):")
        out.extend("    " + ln for ln in body)
        return "\n".join(out) + "\n", self.parallel


TABLE = LoweringTable(
    {**{kind: (ok, getattr(_Codegen, kind)) for kind, ok in OK.items()},
     **_numba_control.RULES, **_numba_index.RULES,
     **_numba_linalg.RULES, **_numba_scatter.RULES, **_numba_conv.RULES},
    new_memory=frozenset({"elementwise", "dot_general", "concatenate"}))
lowerable = TABLE.lowerable
writes_new_memory = TABLE.writes_new_memory


def generate(seg, fname, parallel_min=None):
    """``(source of the function, parallel, constants, fixed)`` for one segment.

    The function takes the segment's inputs, then ``constants`` (``[(var, value)]``: the
    nested programs' constant arrays), then ``fixed``: the values of its size and literal
    parameters (:meth:`_Codegen.size`, :meth:`_Codegen.lit`), the same on every call of
    this program.  The text depends on ranks, dtypes and structure only, so a program of
    other sizes generates the same text and reuses its compiled module; a segment seen
    before in another shape is not emitted again (``_shape_memo.py``).
    """
    pmin = PARALLEL_MIN_SIZE if parallel_min is None else parallel_min

    def emit():
        cg = _Codegen(seg, pmin, fname)
        return (*cg.source(), cg.extra, list(cg.sizes.values()), list(cg.lits.values()))
    return MEMO.generate(seg, fname, (*FAST_STEPS, pmin), emit)
