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

import numpy as np

from ..core import ShapedArray, is_inexact
from ..core.ir import IR, Eqn, eval_ir, stage, dce
from ..core.pytree import tree_flatten
from ..core.trace import _ctx
from ..primitives.dot import dot_general_p
from ..primitives.conv import conv_general_dilated_p
from ..primitives.name import name_p
from .vjp import VJPTracer, _trace_call, vjp_unchecked

__all__ = ["everything_saveable", "nothing_saveable", "dots_saveable", "checkpoint_dots",
           "dots_with_no_batch_dims_saveable", "save_only_these_names",
           "save_anything_except_these_names", "save_any_names_but_these",
           "save_from_both_policies", "saved_residuals", "print_saved_residuals"]


# ---------------------------------------------------------------------------------
# policies
# ---------------------------------------------------------------------------------
def everything_saveable(prim, *avals, **params):
    """Save every intermediate (no recomputation; plain reverse mode's memory)."""
    return True


def nothing_saveable(prim, *avals, **params):
    """Save nothing but ``fun``'s inputs (recompute everything; the default)."""
    return False


def dots_saveable(prim, *avals, **params):
    """Save the results of matrix products and convolutions (``dot_general``,
    ``conv_general_dilated``): recompute only the cheaper elementwise work."""
    return prim is dot_general_p or prim is conv_general_dilated_p


checkpoint_dots = dots_saveable


def dots_with_no_batch_dims_saveable(prim, *avals, **params):
    """Save ``dot_general`` results that have no batch dimensions."""
    return prim is dot_general_p and not params["dimension_numbers"][1][0]


def save_only_these_names(*names):
    """Save only values tagged by ``checkpoint_name(x, name)`` with one of ``names``."""
    names = frozenset(names)

    def policy(prim, *avals, **params):
        return prim is name_p and params["name"] in names
    return policy


def save_anything_except_these_names(*names):
    """Save everything but the values tagged with one of ``names``."""
    names = frozenset(names)

    def policy(prim, *avals, **params):
        return not (prim is name_p and params["name"] in names)
    return policy


def save_any_names_but_these(*names):
    """Save every tagged value (``checkpoint_name``) except those tagged with ``names``."""
    names = frozenset(names)

    def policy(prim, *avals, **params):
        return prim is name_p and params["name"] not in names
    return policy


def save_from_both_policies(policy_1, policy_2):
    """Save what either policy saves."""
    def policy(prim, *avals, **params):
        return policy_1(prim, *avals, **params) or policy_2(prim, *avals, **params)
    return policy


# ---------------------------------------------------------------------------------
# reverse mode of checkpoint with a policy
# ---------------------------------------------------------------------------------
def _aval(x):
    if isinstance(x, (bool, int, float, complex)):
        return ShapedArray((), np.asarray(x).dtype, weak_type=True)
    return ShapedArray(tuple(x.shape), x.dtype)


def _plan(fun, policy, primals):
    """``(ir, saved eqn indices)`` for ``fun`` on the avals of ``primals`` (cached on
    ``fun``'s attribute dict per signature); None when ``fun`` closes over traced values
    of another transform (then nothing is saved)."""
    key = (policy, tuple((a.shape, a.dtype, a.weak_type) for a in map(_aval, primals)))
    cache = fun.__dict__.setdefault("_remat_plans", {})
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


def policy_fwd(fun, policy, primals):
    """Forward pass: ``(outputs, residuals)`` with the saveable values after the inputs;
    None when there is no plan (then the caller saves only the inputs)."""
    plan = _plan(fun, policy, primals)
    if plan is None:
        return None
    ir, saved = plan
    extra = [ir.eqns[k].outputs[0] for k in saved]
    outs = eval_ir(IR(ir.in_vars, ir.const_vars, ir.consts, ir.eqns, ir.out_vars + extra),
                   *primals)
    n = len(ir.out_vars)
    return tuple(outs[:n]), tuple(primals) + tuple(outs[n:])


class _Saved:
    """Stands in for a saved equation's primitive when the program is replayed."""

    multiple_results = False

    def __init__(self, prim, value):
        self.prim, self.value = prim, value

    def bind(self, *ins, **params):
        trace = _ctx.trace
        parents = [a.idx if isinstance(a, VJPTracer) and a._trace is trace else -1
                   for a in ins]
        if all(p == -1 for p in parents):
            return self.value
        primals = [a.primal if p != -1 else a for a, p in zip(ins, parents)]
        idx = len(trace.tape)
        trace.tape.append((self.prim, params, primals, self.value, parents))
        return VJPTracer(trace, self.value, idx)


def policy_vjp(fun, policy, ct, residuals, n_in):
    """Backward pass: the input cotangents, recomputing only the unsaved equations."""
    primals, values = residuals[:n_in], residuals[n_in:]
    ir, saved = _plan(fun, policy, primals)
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
def saved_residuals(f, *args):
    """What reverse mode keeps for ``f(*args)`` between the forward and backward passes.

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
    seen, out = set(), []
    for entry in trace.tape:
        if not isinstance(entry, tuple):
            continue
        prim, _, residuals, _, _ = entry
        for r in residuals:
            if hasattr(r, "shape") and hasattr(r, "dtype") and id(r) not in seen:
                seen.add(id(r))
                out.append((ShapedArray(tuple(r.shape), r.dtype), prim.name))
    return out


def print_saved_residuals(f, *args):
    """Print :func:`saved_residuals` (shape, dtype, saving primitive), one per line,
    and the total bytes."""
    res = saved_residuals(f, *args)
    total = 0
    for a, who in res:
        nbytes = int(np.prod(a.shape, dtype=np.int64)) * np.dtype(a.dtype).itemsize
        total += nbytes
        print(f"{np.dtype(a.dtype).name}{list(a.shape)}  saved by {who}")
    print(f"total: {total} bytes in {len(res)} residuals")
