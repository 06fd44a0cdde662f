"""GPU code generation with CuPy (see the package docstring).

A program becomes a list of *ops* run by a thin Python driver on CuPy arrays:

``ElementwiseOp``
    a maximal group of elementwise equations of one output shape (program order, as on the
    CPU: a group is closed when something else needs one of its values) fused into ONE
    ``cupy.ElementwiseKernel``: CUDA C of the primitives' ``"cuda"`` lowering templates,
    intermediates in registers, broadcasting by CuPy's kernel launcher (operands of
    smaller shapes are broadcast to the output's), literals converted to their operand's
    dtype in the source;
``ReductionOp``
    a reduction (sum, prod, max, min; NaN propagating like NumPy's) as a
    ``cupy.ReductionKernel`` over the equation's axes;
an equation
    anything else runs its impl on CuPy arrays (``dot_general``: cuBLAS through
    ``cupy.matmul``; shape operations: views; FFT, linear algebra: cuFFT, cuSOLVER).

The kernels are built on the first call (CuPy caches their compiled binaries on disk, in
``~/.cupy/kernel_cache``).  :func:`gpu_ops` generates everything without CuPy, so the
source generation is tested where no GPU is present.
"""
from __future__ import annotations

import numpy as np

from ..core.ir import Var, Literal
from ._lowering import CUDA, CUDA_INF, LoweringTable, _CTYPES, integer_exact, operand_casts
from ._passes import prepare
from ._outputs import const_aliases, unshare

__all__ = ["compile_gpu", "gpu_ops", "lowerable", "ElementwiseOp", "ReductionOp"]

_REDUCE = {  # monoid: (reduce_expr, identity(dtype))
    "sum": ("a + b", lambda dt: "0"),
    "prod": ("a * b", lambda dt: "1"),
    "max": ("(a > b || a != a) ? a : b",
            lambda dt: f"(-{CUDA_INF})" if dt.kind == "f" else str(np.iinfo(dt).min)
            if dt.kind in "iu" else "false"),
    "min": ("(a < b || a != a) ? a : b",
            lambda dt: CUDA_INF if dt.kind == "f" else str(np.iinfo(dt).max) if dt.kind in "iu"
            else "true"),
}

#: ``real``/``imag`` of a real operand, as NumPy's (the operand; zero): thrust's are
#: defined for ``complex<T>`` only.  Prepended to the kernels whose body calls them.
_REAL_PARTS = "".join(
    f"__device__ inline {t} real({t} x) {{ return x; }}\n"
    f"__device__ inline {t} imag({t} x) {{ return ({t})0; }}\n"
    for n, t in _CTYPES.items() if not n.startswith("complex"))


def _ok(dt, allow_complex=False):
    dt = np.dtype(dt)
    if dt.kind == "c":
        return allow_complex and dt.name in _CTYPES
    return dt.name in _CTYPES


def _elementwise_ok(eqn, low, table=None):
    return (low.get("cuda") is not None
            and all(_ok(a.aval.dtype, low.get("complex")) for a in (*eqn.inputs, *eqn.outputs))
            and integer_exact(eqn))


def _reduce_ok(eqn, low, table=None):
    dt = eqn.inputs[0].aval.dtype
    return dt == eqn.outputs[0].aval.dtype and dt.kind in "fiu" and _ok(dt)


class ElementwiseOp:
    """One fused ``cupy.ElementwiseKernel``: ``inputs`` (vars; broadcast by CuPy),
    ``outputs`` (vars, allocated at the group's shape), the kernel's parameter lists and
    CUDA body."""

    __slots__ = ("name", "inputs", "outputs", "shape", "in_params", "out_params", "body",
                 "kernel")

    def __init__(self, name, inputs, outputs, shape, in_params, out_params, body):
        self.name, self.inputs, self.outputs, self.shape = name, inputs, outputs, shape
        self.in_params, self.out_params, self.body = in_params, out_params, body
        self.kernel = None

    def build(self):
        import cupy
        preamble = _REAL_PARTS if "real(" in self.body or "imag(" in self.body else ""
        self.kernel = cupy.ElementwiseKernel(self.in_params, self.out_params, self.body,
                                             self.name, preamble=preamble)
        return self.kernel


class ReductionOp:
    """One ``cupy.ReductionKernel`` reducing ``input`` over ``axes`` into ``output``."""

    __slots__ = ("name", "input", "output", "axes", "ctype", "reduce_expr", "identity",
                 "kernel")

    def __init__(self, name, input, output, axes, ctype, reduce_expr, identity):
        self.name, self.input, self.output, self.axes = name, input, output, axes
        self.ctype, self.reduce_expr, self.identity = ctype, reduce_expr, identity
        self.kernel = None

    def build(self):
        import cupy
        self.kernel = cupy.ReductionKernel(
            f"{self.ctype} x", f"{self.ctype} y", "x", self.reduce_expr,
            "y = a", self.identity, self.name)
        return self.kernel



class _GroupBuilder:
    def __init__(self, shape, uses, live):
        self.shape = shape
        self.regs = {}
        self.inputs = []
        self.in_names = {}
        self.lines = []
        self.members = set()
        self.uses = uses
        self.live = live

    def operand(self, a):
        if type(a) is Literal:
            return None
        if a in self.regs:
            return self.regs[a]
        n = self.in_names.get(a)
        if n is None:
            n = self.in_names[a] = f"in{len(self.inputs)}"
            self.inputs.append(a)
        return n


class _GpuCodegen:
    """Builds the op list: the table's rules emit through ``reduce``/``elementwise``."""

    def __init__(self, prog):
        self.uses = {}
        for i, e in enumerate(prog.eqns):
            for a in e.inputs:
                if type(a) is Var:
                    self.uses.setdefault(a, set()).add(i)
        self.live = {v for v in prog.out_vars if type(v) is Var}
        self.ops = []
        self.pending = {}   # shape -> open elementwise group
        self.owner = {}     # var -> the open group holding it in a register
        self.count = 0

    def flush(self, g):
        if self.pending.get(g.shape) is g:
            del self.pending[g.shape]
        outs = []
        lines = list(g.lines)
        for v, r in g.regs.items():
            self.owner.pop(v, None)
            if v in self.live or any(u not in g.members for u in self.uses.get(v, ())):
                o = f"out{len(outs)}"
                outs.append(v)
                lines.append(f"{o} = {r};")
        self.count += 1
        out_params = ", ".join(f"{v.aval.dtype.name} out{k}" for k, v in enumerate(outs))
        in_params = ", ".join(f"{v.aval.dtype.name} in{k}" for k, v in enumerate(g.inputs))
        self.ops.append(ElementwiseOp(f"ftrans_fused_{self.count}", list(g.inputs), outs,
                                      g.shape, in_params, out_params, "\n".join(lines)))

    def graph_break(self, e):
        for a in e.inputs:
            if type(a) is Var and a in self.owner:
                self.flush(self.owner[a])
        self.ops.append(e)

    def reduce(self, i, e, low):
        """Kind ``reduce``: a ``cupy.ReductionKernel``."""
        x = e.inputs[0]
        if x in self.owner:
            self.flush(self.owner[x])
        dt = np.dtype(x.aval.dtype)
        red, ident = _REDUCE[low["monoid"]]
        self.count += 1
        self.ops.append(ReductionOp(f"ftrans_reduce_{self.count}", x, e.outputs[0],
                                    tuple(e.params["axes"]), dt.name, red, ident(dt)))

    def elementwise(self, i, e, low):
        """Kind ``elementwise``: a line of the open kernel of its output shape."""
        o = e.outputs[0]
        shape = o.aval.shape
        for a in e.inputs:
            if type(a) is Var and a in self.owner and self.owner[a].shape != shape:
                self.flush(self.owner[a])
        g = self.pending.get(shape)
        if g is None:
            g = self.pending[shape] = _GroupBuilder(shape, self.uses, self.live)
        out_dt = o.aval.dtype
        exprs = []
        for a, c in zip(e.inputs, operand_casts(e, low)):
            if type(a) is Literal:
                exprs.append(CUDA.lit(a.val, c if c is not None else a.aval.dtype))
            else:
                nm = g.operand(a)
                exprs.append(nm if c is None else CUDA.cast(nm, a.aval.dtype, c))
        r = f"r{len(g.regs)}"
        expr = low["cuda"].format(*exprs, **e.params)
        g.lines.append(f"{_CTYPES[out_dt.name]} {r} = ({_CTYPES[out_dt.name]})({expr});")
        g.regs[o] = r
        g.members.add(i)
        self.owner[o] = g


#: the GPU backend's rules
TABLE = LoweringTable({"elementwise": (_elementwise_ok, _GpuCodegen.elementwise),
                       "reduce": (_reduce_ok, _GpuCodegen.reduce)})
lowerable = TABLE.lowerable


def gpu_ops(ir):
    """The op list of ``ir`` (no CuPy needed): ElementwiseOp, ReductionOp or Eqn."""
    prog = prepare(ir)
    cg = _GpuCodegen(prog)
    for i, e in enumerate(prog.eqns):
        rule = TABLE.rule(e)
        if rule is None:
            cg.graph_break(e)
        else:
            rule[1](cg, i, e, e.prim.lowering)
    for g in list(cg.pending.values()):
        cg.flush(g)
    return prog, cg.ops


def compile_gpu(ir):
    """``run(*cupy_arrays) -> list`` for ``ir`` (see the module docstring)."""
    prog, ops = gpu_ops(ir)
    consts = dict(zip(prog.const_vars, prog.consts))
    on_device = []  # the constants, copied to the GPU on the first call
    in_vars, out_vars = prog.in_vars, prog.out_vars
    aliases = const_aliases(prog)
    # (output position, input position) of each input returned as it is: the caller's
    # array comes back, not the NumPy scalar a 0-d input enters the kernels as
    in_index = {v: k for k, v in enumerate(in_vars)}
    returned = [(j, in_index[v]) for j, v in enumerate(out_vars)
                if type(v) is Var and v in in_index]

    def run(*args):
        import cupy
        if len(args) != len(in_vars):
            raise TypeError(f"the program takes {len(in_vars)} inputs, got {len(args)}")
        if not on_device:
            on_device.append({v: cupy.asarray(c) for v, c in consts.items()})
        env = dict(on_device[0])
        # (a NumPy 0-d array -- a Python scalar the caller passed, a loop counter -- enters
        # CuPy's kernels as the NumPy scalar it holds: CuPy takes those, not 0-d arrays)
        env.update(zip(in_vars, [a[()] if type(a) is np.ndarray and a.ndim == 0 else a
                                 for a in args]))
        for op in ops:
            t = type(op)
            if t is ElementwiseOp:
                k = op.kernel or op.build()
                outs = [cupy.empty(op.shape, v.aval.dtype) for v in op.outputs]
                k(*[env[v] for v in op.inputs], *outs)
                env.update(zip(op.outputs, outs))
            elif t is ReductionOp:
                k = op.kernel or op.build()
                env[op.output] = k(env[op.input], axis=op.axes)
            else:
                vals = [a.val if type(a) is Literal else env[a] for a in op.inputs]
                out = op.prim.impl(*vals, **op.params)
                if op.prim.multiple_results:
                    env.update(zip(op.outputs, out))
                else:
                    env[op.outputs[0]] = out
        outs = [v.val if type(v) is Literal else env[v] for v in out_vars]
        for j, k in returned:
            outs[j] = args[k]
        return unshare(outs, aliases, env, cupy.may_share_memory) if aliases else outs
    run.ops = ops
    return run
