"""``linearize``: evaluate once, then apply the JVP at that point to many tangents.

The function runs once under ``jvp`` whose tangent inputs are tracers of a
recording trace (a :class:`~ftrans.transforms.vjp.VJPTrace` tape): the primal
computation goes to the enclosing trace as usual, and the tape keeps exactly the
operations applied to tangents -- the linear map -- with the residuals (primal
values) they need as constants.  ``jvp_fn(t)`` replays that tape on ``t``: no
primal computation is run again (JAX's partial evaluation, done with a tape).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import set_current_trace, is_inexact
from ..core.trace import _ctx
from ._util import (check_input, tree_flatten, tree_unflatten, as_output, zeros_like_leaf,
                    check_matching_tangent)
from .jvp import jvp
from .vjp import VJPTrace, VJPTracer, _Output
from ..typing import PyTree

__all__ = ["linearize"]


class _ReplayTape(VJPTrace):
    """A tape that keeps every primitive's inputs, so that it can be replayed by binding
    the primitives again (also those whose reverse mode saves other residuals: ``jit``,
    ``custom_vjp``, ``checkpoint``, ``sin``)."""

    __slots__ = ()
    keep_inputs = True


def linearize(fun: Callable[..., Any], *primals: PyTree
              ) -> tuple[PyTree, Callable[..., PyTree]]:
    """Linearize ``fun`` at ``primals``: its value and its JVP there as a function.

    ``fun`` runs once; ``jvp_fn`` then costs only the linear (tangent) operations, so
    many tangents at one point are cheaper than repeated :func:`~ftrans.jvp` calls.

    Parameters
    ----------
    fun : callable
        Function of ``len(primals)`` positional pytree arguments.
    *primals : PyTree
        The point: pytrees of arrays or Python scalars.

    Returns
    -------
    out : PyTree
        ``fun(*primals)``.
    jvp_fn : callable
        ``jvp_fn(*tangents) = J(primals) @ tangents`` (one tangent pytree per primal,
        same structures, shapes and dtypes), which replays the recorded linear
        operations only.

    Raises
    ------
    TypeError
        From ``jvp_fn``, for a tangent whose dtype does not match its primal's (as
        :func:`~ftrans.jvp`).
    ValueError
        From ``jvp_fn``, for tangents whose structure or shapes differ from the
        primals'.

    Notes
    -----
    Follows ``jax.linearize``
    (https://docs.jax.dev/en/latest/_autosummary/jax.linearize.html); JAX partially
    evaluates a jaxpr where ftrans records a tape and replays it.

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> out, f_jvp = ftrans.linearize(lambda x: x ** 2, np.array([1.0, 2.0]))
    >>> f_jvp(np.array([1.0, 0.0]))
    array([2., 0.])
    """
    leaves, tree = tree_flatten(tuple(primals))
    leaves = [check_input(l, "linearize") for l in leaves]
    rec = _ReplayTape(_ctx.trace, "linearize")
    tangent_in = [rec.new_input(np.zeros(l.shape, l.dtype)) if is_inexact(l.dtype) else
                  zeros_like_leaf(l) for l in leaves]
    try:
        with set_current_trace(rec):
            out, t_out = jvp(fun, tree_unflatten(tree, leaves), tree_unflatten(tree, tangent_in))
    finally:
        rec.finish()
    out_leaves, out_tree = tree_flatten(out)
    t_leaves = tree_flatten(t_out)[0]
    in_pos = [t.idx if isinstance(t, VJPTracer) else None for t in tangent_in]
    out_pos = [t.idx if isinstance(t, VJPTracer) and t._trace is rec else None
               for t in t_leaves]
    tape = rec.tape
    constants = [as_output(t) for t in t_leaves]

    def jvp_fn(*tangents: PyTree) -> PyTree:
        t_in, t_tree = tree_flatten(tuple(tangents), is_leaf=lambda x: x is None)  # as jvp
        if t_tree != tree:
            raise ValueError(f"linearize's jvp_fn: tangents must have the structure of the "
                             f"primals {tree}, got {t_tree}")
        values: dict[int, Any] = {}
        for i, (p, t, pos) in enumerate(zip(leaves, t_in, in_pos)):
            t = check_matching_tangent(p, t, i)
            if pos is not None:
                values[pos] = t
        for i, entry in enumerate(tape):
            if entry is None:
                continue
            if type(entry) is _Output:
                if entry.src in values:
                    values[i] = values[entry.src][entry.k]
                continue
            prim, params, args, _, parents = entry
            call_args = [values[p] if p >= 0 else a for p, a in zip(parents, args)]
            values[i] = prim.bind(*call_args, **params)
        res = [as_output(values[pos]) if pos is not None else c
               for pos, c in zip(out_pos, constants)]
        return tree_unflatten(out_tree, res)

    # a primitive whose one equation computes primal and tangent outputs together (jit's
    # JVP program) puts its primal outputs on the tape too: return their values
    out_leaves = [o.primal if isinstance(o, VJPTracer) and o._trace is rec else o
                  for o in out_leaves]
    return tree_unflatten(out_tree, [as_output(o) for o in out_leaves]), jvp_fn
