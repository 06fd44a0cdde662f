"""Composite nodes: one PyTorch graph node for a composition of ftrans primitives.

PyTorch shows one node for operations that ftrans computes as a composition of
primitives (``softmax`` -> ``SoftmaxBackward0``, ``mean`` -> ``MeanBackward1``,
``clamp`` -> ``ClampBackward1`` ...).  Such a node keeps the ftrans function ``fn`` (in
the node's ``_prim`` slot) and its static parameters; its backward is
``ftrans.vjp(fn)`` at the saved operands and its forward-mode rule ``ftrans.jvp(fn)``.
No derivative is written here: both come from the primitives' own rules, so
``create_graph=True`` (the recomputation is recorded), forward AD and the functional
transforms all follow from the same definitions.

What a composite node saves is a facet of the operation (as in PyTorch): operands whose
values the derivative never reads -- those the function is linear in (``sum``,
``repeat``, ``stack`` ...) -- are kept as ``Meta`` (shape and dtype) and are replaced by
zeros when the VJP is recomputed, which is exact for a function linear in them.  An
operand a derivative does read must be saved, so in-place writes to it are caught by
the version check.

Staging: with no transform active and NumPy operands, the backward (the recomputed
forward and its VJP) is staged once per function, parameters, operand shapes and dtypes
and which operands need a gradient -- an IR with the unused forward values removed
(:func:`ftrans.core.ir.dce`) -- and run by the reference executor
(:func:`ftrans.core.ir.eval_ir`) on later calls; the forward of :func:`run` is cached the
same way.  Under ``create_graph`` or a transform the VJP is traced instead, so it is
recorded and differentiable.

A function that is an ``ftrans.custom_vjp`` with residuals (``ftrans.nn``'s fused
kernels) is recorded by :func:`residual_node`: the forward runs its ``fwd`` once and the
node keeps the residuals, so the backward calls ``bwd`` without recomputing anything;
``create_graph=True`` recomputes ``ftrans.vjp(fn)`` at the saved operands instead (the
residuals are constants to the recording trace and their own derivatives would be lost).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ...core import zero
from ...core.ir import dce, eval_ir, stage
from ...core.trace import _ctx, EVAL
from ... import primitives as P
from ...transforms.jvp import jvp
from ...transforms.vjp import vjp_unchecked
from ._node import Meta
from .graph import OpNode, node_class

__all__ = ["CompositeNode", "ResidualNode", "composite_class", "residual_class",
           "composite_vjp", "composite_jvp", "run", "run_with_residuals"]

_STAGED: dict[Any, Any] = {}   # staging key -> the staged IR of a backward or forward
_MAX_STAGED = 4096   # programs kept (the cache is cleared when it is full)


def _key(fn: Callable[..., Any], params: dict[str, Any], values: Sequence[Any], extra: Any
         ) -> tuple[Any, ...] | None:
    """The staging key of ``fn`` at ``values`` (NumPy arrays or None), or None when a
    value is of another kind (a Python scalar, a CuPy array: traced every time) or a
    parameter is unhashable."""
    sig: list[Any] = []
    for v in values:
        if v is None:
            sig.append(None)
        elif type(v) is np.ndarray:
            sig.append((v.shape, v.dtype.str))
        else:
            return None
    try:   # (one call site passes its parameters in one order: no sort needed)
        k = (fn, tuple(params.items()), tuple(sig), extra)
        hash(k)
    except TypeError:
        return None
    return k


def _staged(key: Any, build: Callable[..., Any], values: Sequence[Any]) -> list[Any] | None:
    """``build`` (a function of the non-None ``values``) staged once per ``key`` and run
    by the reference executor on ``values``; returns its outputs (a list)."""
    present = [v for v in values if v is not None]
    hit = _STAGED.get(key)
    if hit is None:
        ir, lifted = stage(build, present, name="compat")
        if lifted:   # closes over a tracer: cannot happen with no transform active
            return None
        if len(_STAGED) >= _MAX_STAGED:
            _STAGED.clear()
        hit = _STAGED[key] = dce(ir)
    return eval_ir(hit, *present)


def _rebuild(values: Sequence[Any], flat: Sequence[Any]) -> list[Any]:
    """``values`` with its non-None entries replaced, in order, by ``flat``."""
    it = iter(flat)
    return [None if v is None else next(it) for v in values]


def run(fn: Callable[..., Any], params: dict[str, Any], datas: Sequence[Any]) -> Any:
    """``fn(*datas, **params)``: staged once per shapes and dtypes and run by the
    reference executor when no transform is active and the operands are NumPy arrays
    (or None); traced directly otherwise (Tracers under ``compat.func``)."""
    key = _key(fn, params, datas, "fwd") if _ctx.trace is EVAL else None
    if key is not None:
        out = _staged(key, lambda *a: fn(*_rebuild(datas, a), **params), datas)
        if out is not None:
            return out[0]
    return fn(*datas, **params)


def _of(fn: Callable[..., Any], params: dict[str, Any], args: Sequence[Any],
        idx: Sequence[int]) -> Callable[..., Any]:
    """``fn(*args, **params)`` as a function of the operands at positions ``idx``."""
    def f(*diff: Any) -> Any:
        full = list(args)
        for i, v in zip(idx, diff):
            full[i] = v
        return fn(*full, **params)
    return f


def _filled(primals: Sequence[Any]) -> list[Any]:
    """The operands with every ``Meta`` stand-in replaced by zeros of its shape/dtype."""
    return [np.zeros(p.shape, p.dtype) if type(p) is Meta else p for p in primals]


def composite_vjp(fn: Callable[..., Any], params: dict[str, Any], primals: Sequence[Any],
                  needs: Sequence[bool], ct: Any) -> list[Any]:
    """Cotangents of ``fn(*primals, **params)`` for the operands marked in ``needs``
    (None for the others), by ``ftrans.vjp``.  ``fn`` returns one array."""
    idx = [i for i, n in enumerate(needs) if n]
    res: list[Any] = [None] * len(needs)
    if not idx:
        return res
    args = _filled(primals)
    if _ctx.trace is EVAL and type(ct) is np.ndarray:
        key = _key(fn, params, args + [ct], tuple(needs))
        if key is not None:
            def build(*flat: Any) -> list[Any]:
                full = _rebuild(args + [ct], flat)
                cts = composite_vjp(fn, params, full[:-1], needs, full[-1])
                return [cts[i] for i in idx]
            out = _staged(key, build, args + [ct])
            if out is not None:
                for i, g in zip(idx, out):
                    res[i] = g
                return res
    _, pullback = vjp_unchecked(_of(fn, params, args, idx), *[args[i] for i in idx])
    for i, g in zip(idx, pullback(ct)):
        res[i] = g
    return res


def composite_jvp(fn: Callable[..., Any], params: dict[str, Any], primals: Sequence[Any],
                  tangents: Sequence[Any]) -> Any:
    """The output tangent of ``fn(*primals, **params)`` for ``tangents`` (``zero`` where an
    operand has none), by ``ftrans.jvp``."""
    idx = [i for i, t in enumerate(tangents) if t is not zero]
    return jvp(_of(fn, params, primals, idx), tuple(primals[i] for i in idx),
               tuple(tangents[i] for i in idx))[1]


class CompositeNode(OpNode):
    """A node whose backward is ``ftrans.vjp`` of the composition in ``_prim``."""

    __slots__ = ()

    def _bwd(self, ct: Any, primals: list[Any], ans: Any, needs: Sequence[bool]) -> Any:
        return composite_vjp(self._prim, self._params, primals, needs, ct)

    @classmethod
    def tangent(cls, fn: Callable[..., Any], params: dict[str, Any], datas: Sequence[Any],
                tangents: Sequence[Any]) -> Any:
        """Forward AD: the output tangent (``ftrans.jvp`` of the composition)."""
        return composite_jvp(fn, params, datas, tangents)


class ResidualNode(CompositeNode):
    """A node for an ``ftrans.custom_vjp`` function ``_prim`` (``ftrans.nn``'s fused
    kernels) whose forward ran its ``fwd``: the residuals are the last saved value, and the
    backward is the function's ``bwd`` on them -- nothing is recomputed.  Under
    ``create_graph`` (or with a cotangent that is not a NumPy array) the backward is
    ``ftrans.vjp`` of the function at the saved operands instead, which is recorded and so
    differentiable again.  The function's ``nondiff_argnums`` operands are passed to
    ``bwd`` first, as ``custom_vjp`` does.

    The node's output may be ``post(f(...))`` for a *linear* ``post`` (see
    :class:`Residuals`): output ``k`` of a function with several results, or a sum."""

    __slots__ = ()

    def _bwd(self, ct: Any, primals: list[Any], ans: Any, needs: Sequence[bool]) -> Any:
        f = self._prim
        r, ops = primals[-1], _unwrap(primals[:-1])
        if r.value is not None and _ctx.trace is EVAL and type(ct) is np.ndarray:
            nondiff = f.nondiff_argnums
            g = iter(f.bwd(*[ops[i] for i in nondiff], r.value, r.pull(ct)))
            out = [None if i in nondiff else next(g) for i in range(len(ops))]
            return [o if n else None for o, n in zip(out, needs)] + [None]
        return composite_vjp(r.composed(f), {}, ops, needs[:-1], ct) + [None]

    @classmethod
    def tangent(cls, fn: Callable[..., Any], params: dict[str, Any], datas: Sequence[Any],
                tangents: Sequence[Any]) -> Any:
        return composite_jvp(datas[-1].composed(fn), {}, _unwrap(datas[:-1]), tangents[:-1])


class Static:
    """A static (hashable, non-array) operand of a residual node -- ``ftrans.nn``'s
    geometry tuples -- kept opaque among the saved values (a bare tuple would read as a
    saved tensor)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _unwrap(ops: Sequence[Any]) -> list[Any]:
    return [o.value if type(o) is Static else o for o in ops]


class Residuals:
    """What a residual node keeps besides its operands: ``value``, the residuals of the
    ``custom_vjp`` forward (None when the forward was traced), and ``post``, the linear map
    from the function's result to the node's output -- None (the result itself), an int
    ``k`` (result ``k`` of several; the others get zero cotangents, ``shapes`` giving their
    shapes and dtypes) or ``"sum"`` (the sum of the result, of shape ``shapes``)."""

    __slots__ = ("value", "post", "shapes")

    def __init__(self, value: Any, post: int | str | None = None, shapes: Any = None) -> None:
        self.value = value
        self.post = post
        self.shapes = shapes

    def pull(self, ct: Any) -> Any:
        """The cotangent of the function's result, given the node's output cotangent."""
        post = self.post
        if post is None:
            return ct
        if post == "sum":
            shape, dtype = self.shapes
            return np.broadcast_to(np.asarray(ct, dtype), shape)
        return tuple(ct if i == post else np.zeros(s, d) for i, (s, d) in enumerate(self.shapes))

    def composed(self, f: Callable[..., Any]) -> Callable[..., Any]:
        """``post`` after ``f``, as one function of the operands."""
        post = self.post
        if post is None:
            return f
        if post == "sum":
            return lambda *a: P.reduce_sum(f(*a), tuple(range(len(self.shapes[0]))))
        return lambda *a: f(*a)[post]

    def apply(self, out: Any) -> Any:
        """The node's output from the function's result ``out``."""
        post = self.post
        if post is None:
            return out
        if post == "sum":
            return P.reduce_sum(out, tuple(range(len(out.shape))))
        return out[post]


def run_with_residuals(f: Any, datas: Sequence[Any], post: int | str | None = None
                       ) -> tuple[Any, Any, Residuals]:
    """``(result, output, Residuals)`` of the ``ftrans.custom_vjp`` ``f`` at ``datas``: its
    ``fwd`` with no transform active (the residuals are kept), ``f`` itself otherwise (its
    Tracers record ``f``, and the backward recomputes).  ``output`` is ``post`` applied to
    the result (see :class:`Residuals`)."""
    if _ctx.trace is EVAL:
        out, res = f.fwd(*datas)
    else:
        out, res = f(*datas), None
    shapes: Any = None
    if post == "sum":
        shapes = (tuple(out.shape), out.dtype)
    elif post is not None:
        shapes = [(tuple(o.shape), o.dtype) for o in out]
    r = Residuals(res, post, shapes)
    return out, r.apply(out), r


def composite_class(name: str, names: Sequence[str] = (), *, result: str | None = "result",
                    edge_idx: tuple[int, ...] | None = None,
                    params: Mapping[str, Callable[[Any], Any]] | None = None) -> type[OpNode]:
    """The composite node class called ``name`` (PyTorch's node name), operands named
    ``names`` (for ``_saved_<name>``); see :func:`ftrans.compat.autograd.graph.node_class`."""
    return node_class(name, names, result=result, edge_idx=edge_idx, params=params,
                      base=CompositeNode)


def residual_class(name: str, names: Sequence[str] = (), *, result: str | None = "result",
                   edge_idx: tuple[int, ...] | None = None,
                   params: Mapping[str, Callable[[Any], Any]] | None = None) -> type[OpNode]:
    """:func:`composite_class` for a ``custom_vjp`` function recorded with its residuals
    (``edge_idx`` should leave out the trailing residual operand)."""
    return node_class(name, names, result=result, edge_idx=edge_idx, params=params,
                      base=ResidualNode)
