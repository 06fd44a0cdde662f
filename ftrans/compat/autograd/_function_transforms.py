"""A custom ``autograd.Function`` under ftrans's functional transforms
(:mod:`ftrans.compat.autograd.function`): ``ftrans.vmap`` through its ``vmap`` staticmethod or
a generated loop, ``ftrans.grad``/``vjp``/``jvp`` through ``custom_vjp``/``custom_jvp``'s
primitives (one differentiation level)."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...core import float0
from ...core.trace import Tracer, _ctx
from ...transforms.custom import custom_jvp_call_p, custom_vjp_call_p
from ...transforms.jvp import JVPTrace
from ...transforms.vjp import VJPTrace
from ...transforms.vmap import BatchTrace, BatchTracer
from .. import _tensor as T
from .grad_mode import _tls
from ._function_ctx import _NO_JVP
from ._function_apply import _apply, _forward_grads, _new_ctx, _overrides

__all__: list[str] = []


# ------------------------------------------------------------------ under ftrans.vmap
class VmapInfo:
    """What a Function's ``vmap`` staticmethod is told about the batch: ``batch_size``
    and ``randomness`` (always ``"error"``: ftrans.vmap has no random primitives)."""

    __slots__ = ("batch_size", "randomness")

    def __init__(self, batch_size: int, randomness: str = "error") -> None:
        self.batch_size = batch_size
        self.randomness = randomness

    def __repr__(self) -> str:
        return f"VmapInfo(batch_size={self.batch_size}, randomness='{self.randomness}')"


_FUNC_DOC = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"


def _apply_traced(cls: Any, args: Sequence[Any], custom_setup: bool) -> Any:
    """``cls.apply`` with ftrans tracers among ``args``: by the current trace, under
    ``ftrans.vmap`` (``_apply_batched``) or a differentiation transform
    (``_apply_transformed``).

    Raises RuntimeError (PyTorch's message) when the Function does not use the
    ``setup_context`` style, NotImplementedError (PyTorch's message) for forward mode
    without a ``jvp`` staticmethod, and NotImplementedError under other transforms."""
    if not custom_setup:
        raise RuntimeError("In order to use an autograd.Function with functorch transforms "
                           "(vmap, grad, jvp, jacrev, ...), it must override the setup_context "
                           "staticmethod. " + _FUNC_DOC)
    tr: Any = _ctx.trace
    if isinstance(tr, BatchTrace):
        return _apply_batched(cls, args)
    if isinstance(tr, JVPTrace) and not _overrides(cls, "jvp") and any(
            isinstance(a, Tracer) and a._trace is tr for a in args):
        raise NotImplementedError(_NO_JVP)
    if isinstance(tr, (VJPTrace, JVPTrace)):
        return _apply_transformed(cls, args, isinstance(tr, JVPTrace))
    raise NotImplementedError(
        f"{cls.__name__}.apply got a value traced by ftrans.{tr.name} "
        f"({type(tr).__name__}): a compat autograd.Function supports ftrans.vmap, "
        "grad/vjp/value_and_grad/jacrev and jvp/jacfwd only; write the operation with "
        "ftrans.custom_vjp or ftrans.custom_jvp for other transforms")


def _no_vmap_rule(cls: Any) -> RuntimeError:
    return RuntimeError(f"You tried to vmap over {cls.__name__}, but it does not have vmap "
                        "support. Please override and implement the vmap staticmethod or "
                        "set generate_vmap_rule=True. " + _FUNC_DOC)


def _apply_batched(cls: Any, args: Sequence[Any]) -> Any:
    """``cls.apply`` on values batched by ``ftrans.vmap`` (``BatchTracer``s of the current
    trace): the Function's ``vmap`` staticmethod gets compat Tensors of the whole batched
    arrays and the batch dimension of each argument (``in_dims``, None for unbatched ones)
    and returns ``(outputs, out_dims)``; with ``generate_vmap_rule = True`` and no
    ``vmap`` rule, the Function runs once per batch element and the results are stacked
    along dimension 0.  Outputs are ftrans values: arrays, or BatchTracers of the trace.

    Raises RuntimeError (PyTorch's messages) without a batching rule or for a malformed
    ``(output, out_dims)``, and NotImplementedError when the batched values are not
    concrete arrays (nested vmaps, or ``grad``/``jvp`` around ``vmap``: ``ftrans.grad(
    ftrans.vmap(f))`` is not supported, ``ftrans.vmap(ftrans.grad(f))`` is)."""
    tr: Any = _ctx.trace
    in_dims_: list[int | None] = []
    phys: list[Any] = []
    for i, a in enumerate(args):
        if isinstance(a, Tracer):
            if type(a) is not BatchTracer or a._trace is not tr or \
                    not isinstance(a.val, np.ndarray):
                outer = a.val if type(a) is BatchTracer and a._trace is tr else a
                what = (f"ftrans.{outer._trace.name}" if isinstance(outer, Tracer)
                        else type(outer).__name__)
                raise NotImplementedError(
                    f"{cls.__name__}.apply: argument {i} is traced by {what} "
                    "around this ftrans.vmap (nested vmaps, or grad/jvp of vmap); a compat "
                    "autograd.Function supports a single ftrans.vmap over concrete arrays: "
                    "put the vmap outside (ftrans.vmap(ftrans.grad(f)) works)")
            in_dims_.append(a.bdim)
            phys.append(T._make(a.val))
        else:
            in_dims_.append(None)
            phys.append(T._make(a) if isinstance(a, np.ndarray) else a)
    in_dims = tuple(in_dims_)
    if _overrides(cls, "vmap"):
        vres = cls.vmap(VmapInfo(tr.size), in_dims, *phys)
        if not (isinstance(vres, tuple) and len(vres) == 2):
            raise RuntimeError(f"The autograd.Function's vmap staticmethod must return an "
                               f"(output, out_dims) tuple, got {type(vres).__name__}. "
                               + _FUNC_DOC)
        out, out_dims = vres
    elif cls.generate_vmap_rule:
        out, out_dims = _loop_rule(cls, phys, in_dims, tr.size)
    else:
        raise _no_vmap_rule(cls)
    single = not isinstance(out, tuple)
    outs = (out,) if single else out
    if isinstance(out_dims, int) or out_dims is None:
        out_dims = (out_dims,) * len(outs)
    out_dims = tuple(out_dims) if isinstance(out_dims, (tuple, list)) else out_dims
    if not isinstance(out_dims, tuple) or len(out_dims) != len(outs):
        raise RuntimeError(f"The autograd.Function's vmap staticmethod returned an incompatible "
                           f"(output, out_dims) tuple. Expected out_dims={out_dims} to be "
                           f"compatible with the structure of `output` ({len(outs)} outputs). "
                           + _FUNC_DOC)
    res: list[Any] = []
    for o, d in zip(outs, out_dims):
        if isinstance(o, T.Tensor):
            v = o._data
            if d is None:
                res.append(v)
            else:
                d = int(d)
                if not -v.ndim <= d < v.ndim or v.shape[d] != tr.size:
                    raise RuntimeError(
                        f"The autograd.Function's vmap staticmethod returned an output of "
                        f"shape {list(v.shape)} with out_dim {d}, but the batch size is "
                        f"{tr.size}: the output must have the batch at dimension out_dim")
                res.append(BatchTracer(tr, v, d % v.ndim))
        else:
            res.append(o)
    return res[0] if single else tuple(res)


def _loop_rule(cls: Any, phys: Sequence[Any], in_dims: Sequence[int | None], size: int
               ) -> tuple[Any, Any]:
    """``generate_vmap_rule``: the Function applied to each batch element (grad mode
    off, as under ``torch.func.vmap``), stacked along dimension 0."""
    rows = []
    single = True
    prev = _tls.grad
    _tls.grad = False
    try:
        for b in range(size):
            sl = [a if d is None else T._make(np.take(a._data, b, axis=d))
                  for a, d in zip(phys, in_dims)]
            r = cls.apply(*sl)
            single = not isinstance(r, tuple)
            rows.append((r,) if single else r)
    finally:
        _tls.grad = prev
    cols: list[Any] = []
    dims: list[int | None] = []
    for k in range(len(rows[0])):
        col = [r[k] for r in rows]
        if isinstance(col[0], T.Tensor):
            cols.append(T._make(np.stack([c._data for c in col])))
            dims.append(0)
        else:
            cols.append(col[0])
            dims.append(None)
    return (cols[0] if single else tuple(cols)), (dims[0] if single else tuple(dims))


# ------------------------------------------------- under ftrans.grad/vjp/jvp (one level)
def _apply_transformed(cls: Any, args: Sequence[Any], forward_mode: bool) -> Any:
    """``cls.apply`` under ``ftrans.grad``/``vjp``/``value_and_grad``/``jacrev`` (reverse
    mode) or ``ftrans.jvp``/``jacfwd`` (``forward_mode``), as ``torch.func``'s transforms
    run an autograd.Function ("Extending torch.func with autograd.Function").

    The array arguments (ndarrays and tracers) become the operands of ftrans's
    ``custom_vjp_call`` primitive (reverse mode) or ``custom_jvp_call`` primitive (forward
    mode; ftrans/transforms/custom.py); the other arguments (Python numbers, ...) are
    passed unchanged, and concrete compat Tensors detached: they are constants of the
    transform.  Each rule runs the Function on compat Tensors wrapping concrete arrays:

    * primal: ``apply`` with grad mode off (re-dispatched, so ``vmap`` of it uses the
      Function's batching rule);
    * reverse ``fwd``: ``forward`` + ``setup_context`` recording a node, the arguments
      that are traced being leaves that require grad (``ctx.needs_input_grad``); the node
      (``ctx``) is the residual (a Python object: ``custom_vjp`` keeps it on the tape
      untouched, and frees it with the tape); ``bwd``: ``backward`` on the output
      cotangents (None, i.e. zeros or None by ``set_materialize_grads``, for
      non-differentiable and non-tensor outputs), one gradient per operand, checked and
      summed to the input's shape and dtype as in ``loss.backward()``.  The node keeps
      its saved tensors after ``backward`` (``vjp_fn`` may be called again, ``jacrev``
      calls it once per output element);
    * forward: ``forward`` + ``setup_context`` (grad mode off), then ``jvp(ctx,
      *tangents)`` with the operands' tangents as compat Tensors (zeros for untraced
      floating inputs, None for integer ones).

    A rule whose operands are batched by one ``ftrans.vmap`` with concrete values (the
    cotangents under ``jacrev``, the tangents under ``jacfwd``, the inputs under
    ``vmap(grad(f))``) runs once per batch element and stacks the results; batching the
    Function's forward or ``jvp`` needs vmap support (a ``vmap`` staticmethod or
    ``generate_vmap_rule = True``), as in ``torch.func``.  Outputs are ftrans values
    (arrays or tracers) in place of the output Tensors; non-tensor outputs are returned
    unchanged.

    Shapes and dtypes: the outputs are the Function's, gradients and tangents those of
    the inputs/outputs they belong to (non-floating ones get ftrans's ``float0`` zeros).

    Raises
    ------
    RuntimeError
        PyTorch's "does not have vmap support" when the forward or jvp is batched
        without vmap support; the errors of ``backward`` validation (see
        ``_check_grads``); ``mark_dirty`` (an in-place Function: ftrans arrays are
        immutable values).
    NotImplementedError
        Nested differentiation -- a rule's operands traced by another transform
        (``grad`` of ``grad``, ``hessian``, ``jacfwd(jacrev(f))``, ``jvp`` of ``grad``,
        ``linearize``, ``vmap(jacrev(f))``): the Function's ``backward`` and ``jvp``
        compute on concrete arrays, so they cannot be differentiated or batched by
        ftrans again (``torch.func`` can, since there they are traced torch code); and
        ``grad`` of ``vmap`` reaching ``custom_vjp``'s batching rule, which would batch
        the residual (``_Residual``).  Use ``ftrans.custom_vjp``/``custom_jvp`` with
        ``ftrans.numpy`` rules instead.
    """
    ops = [i for i, a in enumerate(args) if isinstance(a, (Tracer, np.ndarray))]
    traced = [isinstance(args[i], Tracer) and args[i].dtype.kind in "fc" for i in ops]
    const: list[Any] = [None if i in ops else a.detach() if isinstance(a, T.Tensor) else a
             for i, a in enumerate(args)]  # keeps no tracer alive in the rules' closures
    is_t = [i in ops or isinstance(a, T.Tensor) for i, a in enumerate(const)]
    edge = [sum(is_t[:i]) for i in ops]  # operand -> position among tensor arguments
    # per output: a non-tensor value, or _TENSOR (an output of the primitive)
    layout: list[Any] = []

    # the Function's arguments; traced ones leaves if ``leaves``
    def fill(xs: Sequence[Any], leaves: bool) -> tuple[Any, ...]:
        full = list(const)
        for i, x, t in zip(ops, xs, traced):
            full[i] = x if isinstance(x, Tracer) else T._make(x)
            if leaves and t:
                full[i].requires_grad_()
        return tuple(full)

    def to_values(out: Any) -> tuple[Any, ...]:
        outs = out if isinstance(out, tuple) else (out,)
        layout[:] = [isinstance(out, tuple)] + [
            _TENSOR if isinstance(o, (T.Tensor, Tracer, np.ndarray)) else o for o in outs]
        return tuple(o._data if isinstance(o, T.Tensor) else o for o in outs
                     if isinstance(o, (T.Tensor, Tracer, np.ndarray)))

    # forward + setup_context on concrete xs: (ctx, args, output)
    def run(xs: Sequence[Any], record: bool) -> tuple[Any, tuple[Any, ...], Any]:
        ctx = _new_ctx(cls)
        full = fill(xs, record)
        prev = _tls.grad
        _tls.grad = record
        try:
            out = _apply(cls, full, {}, True, ctx)
        finally:
            _tls.grad = prev
        if ctx.dirty_tensors:
            raise RuntimeError(f"{cls.__name__} marks inputs dirty (modifies them in place): "
                               "not supported under ftrans transforms, whose arrays are "
                               "immutable values; return a new tensor (e.g. x.clone()) instead")
        return ctx, full, out

    def fun(*xs: Any) -> tuple[Any, ...]:
        prev = _tls.grad
        _tls.grad = False
        try:
            return to_values(cls.apply(*fill(xs, False)))
        finally:
            _tls.grad = prev

    def fwd(*xs: Any) -> tuple[tuple[Any, ...], _Residual]:
        tr = _vmap_of(cls, xs, None, "inputs of its reverse-mode rule")
        nodes: list[tuple[Any, list[bool]]] = []

        def one(b: int, vals: Sequence[Any]) -> tuple[Any, ...]:
            ctx, _, out = run(vals, True)
            outs = out if isinstance(out, tuple) else (out,)
            nodes.append((ctx, [isinstance(o, T.Tensor) and o._grad_fn is ctx for o in outs]))
            return to_values(out)
        return tuple(_each(cls, tr, xs, one, True)), _Residual(cls, nodes, tr)

    def bwd(res: _Residual, cts: Sequence[Any], closed: Any) -> list[Any]:
        nodes, tr = res.nodes, res.trace

        def one(b: int, vals: Sequence[Any]) -> list[Any]:
            ctx, live = nodes[b] if len(nodes) > 1 else nodes[0]
            it = iter(vals)
            buf = [next(it) if lay is _TENSOR else None for lay in layout[1:]]
            buf = [c if ok else None for c, ok in zip(buf, live)]
            grads = ctx._call_backward(buf, True, False)  # keep: vjp_fn may run again
            return [grads[k] if t else None for k, t in zip(edge, traced)]
        return _each(cls, _vmap_of(cls, cts, tr, "cotangents of its backward"), cts, one, False)

    def jvp(primals: Sequence[Any], tangents: Sequence[Any]
            ) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        tr_p = _vmap_of(cls, primals, None, "inputs of its forward-mode rule")
        tr = _vmap_of(cls, tangents, tr_p, "tangents of its jvp")
        runs: list[tuple[Any, tuple[Any, ...], Any]] = []

        def fwd_one(b: int, vals: Sequence[Any]) -> tuple[Any, ...]:
            runs.append(run(vals, False))
            return to_values(runs[-1][2])

        def jvp_one(b: int, vals: Sequence[Any]) -> list[Any]:
            ctx, full, out = runs[b] if len(runs) > 1 else runs[0]
            fw = _Tangents({id(full[i]): None if t.dtype == float0 else t
                            for i, t in zip(ops, vals)})
            _forward_grads(cls, ctx, full, is_t, out, fw)
            outs = out if isinstance(out, tuple) else (out,)
            return [fw.out.get(id(o), np.zeros_like(o._data)) for o in outs
                    if isinstance(o, T.Tensor)]
        outs = _each(cls, tr_p, primals, fwd_one, True)
        return tuple(outs), tuple(_each(cls, tr, tangents, jvp_one, True))

    operands = [args[i] for i in ops]
    if forward_mode:
        res = custom_jvp_call_p.bind(*operands, fun=fun, jvp=jvp, n_closed=0,
                                     name=cls.__name__)
    else:
        res = custom_vjp_call_p.bind(*operands, fun=fun, fwd=fwd, bwd=bwd, n_closed=0,
                                     name=cls.__name__)
    it = iter(res)
    outs = tuple(next(it) if lay is _TENSOR else lay for lay in layout[1:])
    return outs if layout[0] else outs[0]


_TENSOR = object()  # marks a tensor output in _apply_transformed's output layout


class _Residual:
    """The residual of ``_apply_transformed``'s ``fwd``: the recorded nodes (one per batch
    element) and the ``ftrans.vmap`` trace batching them (or None).  Opaque to ftrans: a
    vmap of ``fwd`` itself (``grad`` of ``vmap``, reached through ``custom_vjp``'s
    batching rule) would have to convert it to an array, which raises."""

    __slots__ = ("cls", "nodes", "trace")

    def __init__(self, cls: Any, nodes: list[tuple[Any, list[bool]]], trace: Any) -> None:
        self.cls, self.nodes, self.trace = cls, nodes, trace

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"{self.cls.__name__}.apply: ftrans.vmap would batch the recorded graph of the "
            "Function (ftrans.grad of ftrans.vmap over a compat autograd.Function), which "
            "cannot be batched: put the vmap outside the grad (ftrans.vmap(ftrans.grad(f)) "
            "works), or write the operation with ftrans.custom_vjp")


class _Tangents:
    """The interface of ``forward_ad`` that ``_forward_grads`` uses, over given tangents
    (arrays by argument id) and collecting the output tangents (``out``, by output id)."""

    def __init__(self, tangents: dict[int, Any]) -> None:
        self.tangents = tangents
        self.out: dict[int, Any] = {}

    def _tangent_of(self, a: Any) -> Any:
        return self.tangents.get(id(a))

    def _set_tangent(self, o: Any, t: Any) -> None:
        self.out[id(o)] = t


def _vmap_of(cls: Any, vals: Sequence[Any], tr: Any, what: str) -> Any:
    """The ``ftrans.vmap`` trace batching ``vals`` (``tr`` when given; None when all are
    concrete).  NotImplementedError for a value traced otherwise (see
    ``_apply_transformed``)."""
    for v in vals:
        if not isinstance(v, Tracer):
            continue
        if type(v) is BatchTracer and isinstance(v.val, np.ndarray) and (
                tr is None or v._trace is tr):
            tr = v._trace
            continue
        raise NotImplementedError(
            f"{cls.__name__}.apply under nested ftrans transforms: the {what} are traced by "
            f"a further ftrans.{v._trace.name}. A compat autograd.Function computes "
            "forward, backward and jvp on concrete arrays, so it supports one "
            "ftrans.grad/vjp/value_and_grad/jacrev or ftrans.jvp/jacfwd (optionally inside "
            "one ftrans.vmap), not nested transforms (grad of grad, hessian, "
            "jacfwd(jacrev(f)), jvp of grad, linearize, vmap of jacrev); write the "
            "operation with ftrans.custom_vjp/custom_jvp and ftrans.numpy rules instead")
    return tr


def _each(cls: Any, tr: Any, vals: Sequence[Any], fn: Callable[[int, list[Any]], Any],
          needs_rule: bool) -> list[Any]:
    """``fn(b, vals)`` -> list of arrays (or None) on concrete values; when ``tr`` (an
    ``ftrans.vmap`` trace) batches them, once per batch element ``b`` (unbatched values
    broadcast), the results stacked at dimension 0 as BatchTracers of ``tr`` (a None among
    arrays counts as zeros).  ``needs_rule``: the Function itself is batched, which
    ``torch.func`` allows only with vmap support (RuntimeError otherwise)."""
    if tr is None:
        return list(fn(0, list(vals)))
    if needs_rule and not (cls.generate_vmap_rule or _overrides(cls, "vmap")):
        raise _no_vmap_rule(cls)
    # (every tracer among ``vals`` is a BatchTracer of ``tr``: _vmap_of checked them)
    rows = [fn(b, [np.asarray(np.take(v.val, b, axis=v.bdim)) if isinstance(v, BatchTracer)
                   else v for v in vals]) for b in range(tr.size)]
    out: list[Any] = []
    for col in zip(*rows):
        ref = next((c for c in col if c is not None), None)
        out.append(None if ref is None else BatchTracer(
            tr, np.stack([np.zeros_like(ref) if c is None else c for c in col]), 0))
    return out
