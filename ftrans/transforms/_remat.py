"""Checkpoint policies (JAX's ``jax.checkpoint_policies``) and the residual inspector.

A policy is a predicate ``policy(prim, *avals, **params) -> bool`` over the equations of
the staged ``fun`` of ``ftrans.checkpoint(fun, policy=...)``: True means the equation's
output is *saveable*, i.e. kept from the forward pass instead of recomputed in the
backward pass.  With a policy, reverse mode

1. stages ``fun`` once per signature (an :class:`~ftrans.core.ir.IR`) and runs it on the
   enclosing trace, returning also the outputs of the saveable equations (those whose
   primitive has no ``vjp_fwd`` of its own, one result, a floating result, and a use by
   another equation); the residuals are ``fun``'s inputs plus these values;
2. in the backward pass re-runs the program under reverse mode, where each saved
   equation is *not* computed again: its saved value is put on the tape as the
   equation's answer, with the equation's inputs as its residuals (what its VJP rule
   reads), so only the unsaved equations are recomputed.

``nothing_saveable`` (and no policy) keeps the plain behaviour: only the inputs are
saved.  ``everything_saveable`` recomputes nothing.  ``saved_residuals(f, *args)`` lists
what reverse mode keeps for ``f`` (JAX's ``jax.ad_checkpoint.saved_residuals``), so the
memory a policy saves can be measured.

Source: JAX's ``jax.checkpoint`` documentation ("Custom policies for what's saveable",
``checkpoint_policies``, ``checkpoint_name``, ``print_saved_residuals``).
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, cast

import numpy as np

from ..core import Primitive, ShapedArray, is_inexact
from ..core.ir import IR, Eqn, eval_ir, stage, dce
from ..core.pytree import tree_flatten
from ..core.trace import _ctx
from ..primitives.dot import dot_general_p
from ..primitives.conv import conv_general_dilated_p
from ..primitives.name import name_p
from .vjp import VJPTrace, VJPTracer, _trace_call, vjp_unchecked

__all__ = ["everything_saveable", "nothing_saveable", "dots_saveable", "checkpoint_dots",
           "dots_with_no_batch_dims_saveable", "save_only_these_names",
           "save_anything_except_these_names", "save_any_names_but_these",
           "save_from_both_policies", "saved_residuals", "print_saved_residuals"]

#: ``policy(prim, *avals, **params) -> bool``: may the equation's output be saved?
Policy = Callable[..., bool]

_POLICY_PARAMS = """
    Parameters
    ----------
    prim : Primitive
        The equation's primitive.
    *avals : ShapedArray or None
        The abstract values (shape, dtype) of its inputs (None for a literal).
    **params : Any
        The equation's parameters.

    Returns
    -------
    bool
        True if the equation's output may be saved for the backward pass.
"""


def _policy_doc(f: Callable[..., Any]) -> Callable[..., Any]:
    f.__doc__ = (f.__doc__ or "").rstrip() + "\n" + _POLICY_PARAMS
    return f


_FACTORY_DOC = """
    Parameters
    ----------
    *names : str
        The names given with ``ftrans.ad_checkpoint.checkpoint_name``.

    Returns
    -------
    callable
        The policy ``policy(prim, *avals, **params) -> bool``.
"""


def _factory_doc(f: Callable[..., Any]) -> Callable[..., Any]:
    f.__doc__ = (f.__doc__ or "").rstrip() + "\n" + _FACTORY_DOC
    return f


# ---------------------------------------------------------------------------------
# policies
# ---------------------------------------------------------------------------------
@_policy_doc
def everything_saveable(prim: Primitive, *avals: Any, **params: Any) -> bool:
    """Save every intermediate (no recomputation; plain reverse mode's memory)."""
    return True


@_policy_doc
def nothing_saveable(prim: Primitive, *avals: Any, **params: Any) -> bool:
    """Save nothing but ``fun``'s inputs (recompute everything; the default)."""
    return False


@_policy_doc
def dots_saveable(prim: Primitive, *avals: Any, **params: Any) -> bool:
    """Save the results of matrix products and convolutions.

    That is ``dot_general`` and ``conv_general_dilated``: only the cheaper elementwise
    work is recomputed.  ``checkpoint_dots`` is the same policy.
    """
    return prim is dot_general_p or prim is conv_general_dilated_p


checkpoint_dots = dots_saveable


@_policy_doc
def dots_with_no_batch_dims_saveable(prim: Primitive, *avals: Any, **params: Any) -> bool:
    """Save ``dot_general`` results that have no batch dimensions."""
    return prim is dot_general_p and not params["dimension_numbers"][1][0]


@_factory_doc
def save_only_these_names(*names: Hashable) -> Policy:
    """Save only values tagged by ``checkpoint_name(x, name)`` with one of ``names``."""
    chosen = frozenset(names)

    def policy(prim: Primitive, *avals: Any, **params: Any) -> bool:
        return prim is name_p and params["name"] in chosen
    return policy


@_factory_doc
def save_anything_except_these_names(*names: Hashable) -> Policy:
    """Save everything but the values tagged with one of ``names``."""
    chosen = frozenset(names)

    def policy(prim: Primitive, *avals: Any, **params: Any) -> bool:
        return not (prim is name_p and params["name"] in chosen)
    return policy


@_factory_doc
def save_any_names_but_these(*names: Hashable) -> Policy:
    """Save every tagged value (``checkpoint_name``) except those tagged with ``names``."""
    chosen = frozenset(names)

    def policy(prim: Primitive, *avals: Any, **params: Any) -> bool:
        return prim is name_p and params["name"] not in chosen
    return policy


def save_from_both_policies(policy_1: Policy, policy_2: Policy) -> Policy:
    """Save what either policy saves.

    Parameters
    ----------
    policy_1 : callable
        A policy.
    policy_2 : callable
        Another policy.

    Returns
    -------
    callable
        The policy that saves an equation's output when either of them does.
    """
    def policy(prim: Primitive, *avals: Any, **params: Any) -> bool:
        return policy_1(prim, *avals, **params) or policy_2(prim, *avals, **params)
    return policy


# ---------------------------------------------------------------------------------
# reverse mode of checkpoint with a policy
# ---------------------------------------------------------------------------------
def _aval(x: Any) -> ShapedArray:
    if isinstance(x, (bool, int, float, complex)):
        return ShapedArray((), np.asarray(x).dtype, weak_type=True)
    return ShapedArray(tuple(x.shape), x.dtype)


def _plan(fun: Callable[..., Any], policy: Policy, primals: Sequence[Any]
          ) -> tuple[IR, list[int]] | None:
    """``(ir, saved eqn indices)`` for ``fun`` on the avals of ``primals`` (cached on
    ``fun``'s attribute dict per signature); None when ``fun`` closes over traced values
    of another transform (then nothing is saved)."""
    key = (policy, tuple((a.shape, a.dtype, a.weak_type) for a in map(_aval, primals)))
    cache: dict[Any, tuple[IR, list[int]] | None] = \
        fun.__dict__.setdefault("_remat_plans", {})
    if key in cache:
        return cache[key]
    ir, lifted = stage(fun, [_aval(p) for p in primals], "checkpoint")
    plan = None
    if not lifted:
        ir = dce(ir)
        used = {id(v) for e in ir.eqns for v in e.inputs}
        saved = [k for k, e in enumerate(ir.eqns)
                 if not e.prim.multiple_results and e.prim.vjp_fwd is None
                 and e.prim.differentiable and is_inexact(e.outputs[0].aval.dtype)
                 and id(e.outputs[0]) in used
                 and policy(e.prim, *[getattr(a, "aval", None) for a in e.inputs], **e.params)]
        plan = (ir, saved)
    cache[key] = plan
    return plan


def policy_fwd(fun: Callable[..., Any], policy: Policy, primals: Sequence[Any]
               ) -> tuple[tuple[Any, ...], tuple[Any, ...]] | None:
    """Forward pass: ``(outputs, residuals)`` with the saveable values after the inputs;
    None when there is no plan (then the caller saves only the inputs)."""
    plan = _plan(fun, policy, primals)
    if plan is None:
        return None
    ir, saved = plan
    extra = [ir.eqns[k].outputs[0] for k in saved]
    outs = eval_ir(IR(ir.in_vars, ir.const_vars, ir.consts, ir.eqns, [*ir.out_vars, *extra]),
                   *primals)
    n = len(ir.out_vars)
    return tuple(outs[:n]), tuple(primals) + tuple(outs[n:])


class _Saved:
    """Stands in for a saved equation's primitive when the program is replayed."""

    multiple_results = False

    def __init__(self, prim: Primitive, value: Any) -> None:
        self.prim, self.value = prim, value

    def bind(self, *ins: Any, **params: Any) -> Any:
        trace = _ctx.trace
        parents = [a.idx if isinstance(a, VJPTracer) and a._trace is trace else -1
                   for a in ins]
        if all(p == -1 for p in parents):
            return self.value
        primals = [a.primal if p != -1 else a for a, p in zip(ins, parents)]
        trace = cast(VJPTrace, trace)  # an input is one of its tracers
        idx = len(trace.tape)
        trace.tape.append((self.prim, params, primals, self.value, parents))
        return VJPTracer(trace, self.value, idx)


def policy_vjp(fun: Callable[..., Any], policy: Policy, ct: Sequence[Any],
               residuals: Sequence[Any], n_in: int) -> tuple[Any, ...]:
    """Backward pass: the input cotangents, recomputing only the unsaved equations."""
    primals, values = residuals[:n_in], residuals[n_in:]
    plan = _plan(fun, policy, primals)
    assert plan is not None  # values were saved, so policy_fwd found a plan
    ir, saved = plan
    eqns = list(ir.eqns)
    for k, v in zip(saved, values):
        e = eqns[k]
        eqns[k] = Eqn(_Saved(e.prim, v), e.inputs, e.params, e.outputs)
    replay = IR(ir.in_vars, ir.const_vars, ir.consts, eqns, ir.out_vars)
    _, pull = vjp_unchecked(lambda *xs: tuple(eval_ir(replay, *xs)), *primals)
    return pull(tuple(ct))


# ---------------------------------------------------------------------------------
# inspection
# ---------------------------------------------------------------------------------
def saved_residuals(f: Callable[..., Any], *args: Any) -> list[tuple[ShapedArray, str]]:
    """What reverse mode keeps for ``f(*args)`` between the forward and backward passes.

    Parameters
    ----------
    f : callable
        The function.
    *args : Any
        Its positional (pytree) arguments.

    Returns
    -------
    list of (ShapedArray, str)
        One entry per distinct residual array on the tape (the values the VJP rules
        will read; an argument of ``f`` counts once), with the primitive that saved it.
        ``sum(a.size * a.dtype.itemsize for a, _ in saved_residuals(f, *args))`` is the
        residual memory in bytes.
    """
    mask = [[True] * len(tree_flatten(a)[0]) for a in args]
    trace = _trace_call(f, args, mask, "saved_residuals", False)[0]
    seen: set[int] = set()
    out: list[tuple[ShapedArray, str]] = []
    for entry in trace.tape:
        if not isinstance(entry, tuple):
            continue
        prim, _, residuals, _, _ = entry
        for r in residuals:
            if hasattr(r, "shape") and hasattr(r, "dtype") and id(r) not in seen:
                seen.add(id(r))
                out.append((ShapedArray(tuple(r.shape), r.dtype), prim.name))
    return out


def print_saved_residuals(f: Callable[..., Any], *args: Any) -> None:
    """Print :func:`saved_residuals` (shape, dtype, saving primitive), one per line.

    The last line gives the total bytes.

    Parameters
    ----------
    f : callable
        The function.
    *args : Any
        Its positional (pytree) arguments.
    """
    res = saved_residuals(f, *args)
    total = 0
    for a, who in res:
        nbytes = int(np.prod(a.shape, dtype=np.int64)) * np.dtype(a.dtype).itemsize
        total += nbytes
        print(f"{np.dtype(a.dtype).name}{list(a.shape)}  saved by {who}")
    print(f"total: {total} bytes in {len(res)} residuals")
