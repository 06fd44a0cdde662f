"""Forward mode: the JVP trace and ``ftrans.jvp``.

A :class:`JVPTracer` pairs a primal value with its tangent (or the symbolic
zero).  ``JVPTrace.process_primitive`` unwraps the tracers carrying *its own* tag,
runs the primitive's JVP rule on its parent trace and wraps the result; an output
whose tangent is symbolically zero is returned unwrapped (it is a constant for
this transform).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core import Trace, PrimalTracer, zero, set_current_trace
from ..core.trace import _ctx
from ..core import debug
from ._util import (check_input, instantiate_zeros, as_output, tree_unflatten, tree_flatten,
                    check_matching_tangent, check_output_leaf, split_aux)
from ..core.primitive import Primitive
from ..typing import PyTree

__all__ = ["jvp", "JVPTrace", "JVPTracer"]


class JVPTracer(PrimalTracer):
    """A primal value and its tangent, tagged with the :class:`JVPTrace` that made them."""

    __slots__ = ("tangent",)

    def __init__(self, trace: JVPTrace, primal: Any, tangent: Any) -> None:
        self._trace = trace
        self.primal = primal
        self.tangent = tangent


class JVPTrace(Trace):
    """Forward-mode trace; see the module docstring."""

    __slots__ = ()

    def process_primitive(self, prim: Primitive, args: Sequence[Any],
                          params: dict[str, Any]) -> Any:
        primals: list[Any] | None = None
        tangents: list[Any] = []
        for i, a in enumerate(args):
            if isinstance(a, JVPTracer) and a._trace is self:
                if primals is None:
                    primals = list(args)
                    tangents = [zero] * len(args)
                primals[i] = a.primal
                tangents[i] = a.tangent
        parent = self.parent
        if primals is None:  # nothing of ours: a constant computation
            return parent.process_primitive(prim, args, params)
        if not prim.differentiable:
            return parent.process_primitive(prim, primals, params)
        rule = prim.jvp
        if rule is None:
            raise NotImplementedError(
                f"forward-mode differentiation of primitive {prim.name!r} is not implemented")
        prev = _ctx.trace
        _ctx.trace = parent
        try:
            out, t_out = rule(primals, tangents, **params)
        finally:
            _ctx.trace = prev
        if debug.nans:
            debug.check(prim, t_out, "JVP")
        if prim.multiple_results:
            return tuple(o if t is zero else JVPTracer(self, o, t) for o, t in zip(out, t_out))
        return out if t_out is zero else JVPTracer(self, out, t_out)


def jvp(fun: Callable[..., Any], primals: Sequence[PyTree], tangents: Sequence[PyTree],
        has_aux: bool = False) -> tuple[PyTree, ...]:
    """Forward-mode Jacobian-vector product: ``fun(*primals)`` and ``J @ tangents``.

    ``fun`` is run once, on values that carry their tangents along (JAX's
    ``jax.jvp``); the cost is a small multiple of one evaluation of ``fun``.

    Parameters
    ----------
    fun : callable
        Function of ``len(primals)`` positional pytree arguments returning a pytree
        of arrays (or ``(output, aux)`` with ``has_aux=True``).
    primals : tuple or list
        The point; each entry a pytree of arrays or Python scalars.
    tangents : tuple or list
        Same structure, shapes and dtypes as ``primals``.  Integer/boolean primals
        have no tangent space: their tangent must be a ``float0`` array or ``None``.
    has_aux : bool, default False
        ``fun`` returns ``(output, aux)``; ``aux`` is returned, not differentiated.

    Returns
    -------
    primals_out : PyTree
        ``fun(*primals)``.
    tangents_out : PyTree
        ``J(primals) @ tangents``, same structure, shapes and dtypes as the output.
    aux : PyTree
        Only with ``has_aux=True``: the auxiliary data.

    Raises
    ------
    TypeError
        If ``primals``/``tangents`` are not tuples or lists, or a tangent's dtype does
        not match its primal's.
    ValueError
        If their tree structures or shapes differ (both are named).

    Notes
    -----
    Follows ``jax.jvp`` (https://docs.jax.dev/en/latest/_autosummary/jax.jvp.html):
    the same argument convention (tuples of primals and tangents) and ``float0``
    tangents for integer inputs.

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> ftrans.jvp(lambda x: x ** 2, (np.array([1.0, 2.0]),), (np.ones(2),))
    (array([1., 4.]), array([2., 4.]))
    """
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError(
            "jvp expects primals and tangents as tuples or lists of arguments, got "
            f"{type(primals).__name__} and {type(tangents).__name__}; write "
            "jvp(f, (x,), (t,)) for a single argument")
    p_leaves, p_tree = tree_flatten(tuple(primals))
    t_leaves, t_tree = tree_flatten(tuple(tangents), is_leaf=lambda x: x is None)
    if p_tree != t_tree:
        raise ValueError(
            f"jvp: primals and tangents must have the same tree structure; got primals "
            f"{p_tree} and tangents {t_tree}")
    p_leaves = [check_input(x, "jvp") for x in p_leaves]
    trace = JVPTrace(_ctx.trace, "jvp")
    ins: list[Any] = []
    for i, (p, t) in enumerate(zip(p_leaves, t_leaves)):
        t = check_matching_tangent(p, t, i)
        ins.append(p if t is None else JVPTracer(trace, p, t))
    args = tree_unflatten(p_tree, ins)
    try:
        with set_current_trace(trace):
            out = fun(*args)
    finally:
        trace.finish()
    if has_aux:
        out, aux = split_aux(out, "jvp")
    out_leaves, out_tree = tree_flatten(out)
    primals_out: list[Any] = []
    tangents_out: list[Any] = []
    for o in out_leaves:
        if isinstance(o, JVPTracer) and o._trace is trace:
            primals_out.append(as_output(o.primal))
            tangents_out.append(as_output(instantiate_zeros(o.tangent, o.primal)))
        else:
            o = as_output(check_output_leaf(o))
            primals_out.append(o)
            tangents_out.append(instantiate_zeros(zero, o))
    res: tuple[PyTree, ...] = (tree_unflatten(out_tree, primals_out), tree_unflatten(out_tree, tangents_out))
    if has_aux:
        return res + (_strip(aux, trace),)
    return res


def _strip(aux: PyTree, trace: JVPTrace) -> PyTree:
    """Aux data leaves: tracers of this trace are replaced by their primal values."""
    leaves, tree = tree_flatten(aux)
    return tree_unflatten(tree, [as_output(l.primal) if isinstance(l, JVPTracer)
                                 and l._trace is trace else l for l in leaves])

