"""``checkpoint`` (alias ``remat``): trade computation for memory in reverse mode.

``checkpoint(fun)`` is applied through a higher-order primitive whose reverse
mode saves only ``fun``'s *inputs*; the residuals inside ``fun`` are recomputed
when the backward pass reaches it (Griewank & Walther, *Evaluating Derivatives*,
ch. 12; JAX's ``jax.checkpoint``).  Forward mode and ``vmap`` see ``fun`` itself.
Checkpointing each layer of a deep network keeps one array per layer alive
between the forward and the backward pass instead of every intermediate, and
only one layer's intermediates exist at a time during the backward pass.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from ..core import Primitive, set_current_trace, EVAL, zero, is_inexact
from ..core.pytree import tree_flatten, tree_unflatten
from ._closure import closure_convert
from .custom import _OutTree, _abstract_eval_by_running, _materialize, _batched_args, _dtype
from .jvp import jvp
from .vjp import vjp_unchecked
from .vmap import vmap
from ._util import decorator_factory
from . import _remat
from ._remat import Policy

__all__ = ["checkpoint", "remat"]

checkpoint_p = Primitive("checkpoint", multiple_results=True)
# the compiler splices the primal function: its derivative rules were applied when the program was differentiated into the caller (ftrans.compiler._passes)
checkpoint_p.lowering = {"kind": "inline", "param": "fun"}


@checkpoint_p.def_impl
def _ckpt_impl(*args: Any, fun: Callable[..., Any], policy: Policy | None = None) -> Any:
    with set_current_trace(EVAL):
        return fun(*args)


checkpoint_p.def_abstract_eval(_abstract_eval_by_running("fun"))


@checkpoint_p.def_jvp
def _ckpt_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, fun: Callable[..., Any],
              policy: Policy | None = None) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    outs, t_outs = jvp(fun, tuple(primals), tuple(_materialize(tangents, primals)))
    return tuple(outs), tuple(t if is_inexact(_dtype(o)) else zero for o, t in zip(outs, t_outs))


def _ckpt_fwd(*primals: Any, fun: Callable[..., Any], policy: Policy | None = None
              ) -> tuple[Any, Any]:
    """Run ``fun`` on the enclosing trace and save only its inputs (with a policy, also
    the values it lets save: :mod:`._remat`)."""
    if policy is not None and policy is not _remat.nothing_saveable:
        res = _remat.policy_fwd(fun, policy, primals)
        if res is not None:
            return res
    return tuple(fun(*primals)), primals


checkpoint_p.vjp_fwd = _ckpt_fwd


@checkpoint_p.def_vjp
def _ckpt_vjp(ct: Sequence[Any], ans: Sequence[Any], residuals: Sequence[Any],
              needs: Sequence[bool], *, fun: Callable[..., Any], policy: Policy | None = None
              ) -> list[Any]:
    primals = residuals[:len(needs)]
    if len(residuals) > len(needs):  # a policy saved some values: recompute the rest
        assert policy is not None
        cts = _remat.policy_vjp(fun, policy, ct, residuals, len(needs))
    else:
        _, pull = vjp_unchecked(fun, *primals)  # recompute the residuals now
        cts = pull(tuple(ct))
    return [c if need and is_inexact(p.dtype) else None
            for c, p, need in zip(cts, primals, needs)]


@checkpoint_p.def_batch
def _ckpt_batch(vals: Sequence[Any], dims: Sequence[int | None], *, fun: Callable[..., Any],
                policy: Policy | None = None) -> tuple[Any, list[int]]:
    outs = checkpoint_p.bind(*_batched_args(vals, dims), fun=vmap(fun), policy=policy)
    return outs, [0] * len(outs)


@decorator_factory
def checkpoint(fun: Callable[..., Any], *, prevent_cse: bool = True,
               policy: Policy | None = None,
               static_argnums: int | Sequence[int] = ()) -> Callable[..., Any]:
    """Make ``fun`` recompute its reverse-mode residuals instead of storing them.

    ``ftrans.remat`` is the same function.  Called with keyword options only
    (``checkpoint(policy=...)``) it returns a decorator.

    Parameters
    ----------
    fun : callable
        Function of positional pytree arguments returning a pytree of arrays.
    prevent_cse : bool, default True
        Accepted for JAX compatibility; ftrans does no common-subexpression elimination
        across the checkpoint, so it has no effect.
    policy : callable, optional
        ``policy(prim, *avals, **params) -> bool``: which intermediate values may be
        saved rather than recomputed (``ftrans.checkpoint_policies``: ``dots_saveable``,
        ``save_only_these_names`` with ``ftrans.ad_checkpoint.checkpoint_name`` ...).
        ``fun`` is then staged on abstract values, so it must be traceable (no Python
        control flow on traced values); None / ``nothing_saveable``: save only the
        inputs.
    static_argnums : int or sequence of int, default ()
        Positional arguments passed as Python values (not traced, not differentiated).

    Returns
    -------
    callable
        Same values and derivatives as ``fun``; under ``grad``/``vjp`` only its inputs
        are kept for the backward pass, which re-runs ``fun`` to rebuild the rest.
        Traced values that ``fun`` closes over (found in its closure cells, see
        ``closure_convert``) are passed as extra inputs, so they are differentiated
        and batched too.

    Notes
    -----
    Follows ``jax.checkpoint``
    (https://docs.jax.dev/en/latest/_autosummary/jax.checkpoint.html) and its
    policies; the technique is Griewank & Walther, *Evaluating Derivatives*, ch. 12.

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> block = ftrans.checkpoint(lambda x: fnp.sin(x) * x)
    >>> ftrans.grad(lambda x: fnp.sum(block(x)))(np.zeros(2))
    array([0., 0.])
    >>> layer = ftrans.checkpoint(lambda w, x: fnp.tanh(w @ x),
    ...                           policy=ftrans.checkpoint_policies.dots_saveable)
    """
    static_nums = (static_argnums,) if isinstance(static_argnums, int) else \
        tuple(static_argnums)

    @functools.wraps(fun)
    def wrapped(*args: Any) -> Any:
        if static_nums:
            n = len(args)
            nums = {i % n for i in static_nums if -n <= i < n}
            static = {i: args[i] for i in nums}
            inner = fun

            def fun_dyn(*dyn: Any) -> Any:
                it = iter(dyn)
                return inner(*[static[i] if i in static else next(it) for i in range(n)])
            return _checkpointed(fun_dyn, policy, [a for i, a in enumerate(args)
                                                   if i not in nums])
        return _checkpointed(fun, policy, args)
    return wrapped


def _checkpointed(fun: Callable[..., Any], policy: Policy | None, args: Sequence[Any]) -> Any:
    """Bind the checkpoint primitive for ``fun(*args)`` (closure-converted, flat)."""
    rebuild, consts = closure_convert(fun)
    leaves, in_tree = tree_flatten(args)
    n = len(leaves)
    store = _OutTree()

    def flat_fun(*xs: Any) -> tuple[Any, ...]:
        f = rebuild(xs[n:])
        out_leaves, store.tree = tree_flatten(f(*tree_unflatten(in_tree, xs[:n])))
        return tuple(out_leaves)

    outs = checkpoint_p.bind(*leaves, *consts, fun=flat_fun, policy=policy)
    return tree_unflatten(store.tree, outs)


remat = checkpoint
