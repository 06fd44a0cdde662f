"""User-defined derivative rules: ``custom_jvp`` and ``custom_vjp`` (JAX's API).

Each decorated function is applied through a higher-order primitive whose
parameters are the user's callables on flattened arguments, so it works under
every transform, in any nesting order:

* ``custom_jvp``: forward mode calls the user's rule; reverse mode transposes it
  (the rule is linear in the tangents, so its VJP is the VJP of the rule with
  respect to the tangents); ``vmap`` maps the function and the rule.
* ``custom_vjp``: reverse mode runs ``fwd`` and keeps its residuals, then calls
  ``bwd``; ``vmap`` maps ``fun``, ``fwd`` and ``bwd``.  **Forward mode
  differentiates the function's own forward computation** (JAX raises an error
  here, so ``jax.hessian`` of a function using a ``custom_vjp`` fails; in ftrans
  ``hessian``/``jacfwd`` work, using the ordinary derivative of ``fun`` for the
  forward part and ``bwd`` for the reverse part).

The rules see materialized zeros: a tangent or cotangent that is symbolically
zero arrives as an array of zeros (``float0`` zeros for integer arguments).
``nondiff_argnums`` arguments are passed to the function and the rules unchanged
and are never differentiated (``jvp(*nondiff, primals, tangents)``,
``bwd(*nondiff, residuals, cotangents)``).

Traced values that the function or its rules close over (e.g. a value batched by an
enclosing ``vmap``) are found by closure conversion and passed as extra operands, so
they are batched correctly.  A closed-over value that an enclosing transform is
*differentiating* raises ``EscapedTracerError`` (the rule cannot account for its
derivative; JAX errors too): pass it as an argument instead.  (``custom_vjp`` under
forward mode differentiates ``fun`` itself, closed-over values included.)
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core import (Primitive, ShapedArray, zero, is_inexact, set_current_trace, EVAL,
                    EscapedTracerError)
from ..core.dtypes import as_numpy_dtype
from ..core.ir import stage
from ..core.pytree import tree_flatten, tree_unflatten
from ._closure import closure_convert
from ._util import zeros_like_leaf
from ..primitives import unbroadcast
from ..primitives._rules import batch_size, batched_front
from .jvp import jvp
from .vjp import vjp_unchecked
from .vmap import vmap
from ..core.pytree import tree_map
from ..primitives import add
from ..core.pytree import PyTreeDef
from ..typing import PyTree

__all__ = ["custom_jvp", "custom_vjp"]


class _OutTree:
    """The output structure, known once the user's function has run."""

    __slots__ = ("tree",)

    def __init__(self) -> None:
        self.tree: Any = None


def _split(args: Sequence[Any], nondiff_argnums: tuple[int, ...]
           ) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    nondiff = tuple(args[i] for i in nondiff_argnums)
    diff = tuple(a for i, a in enumerate(args) if i not in nondiff_argnums)
    return nondiff, diff


def _merge(nondiff: Sequence[Any], diff: Sequence[Any], nondiff_argnums: tuple[int, ...]
           ) -> list[Any]:
    out: list[Any] = []
    it_n, it_d = iter(nondiff), iter(diff)
    for i in range(len(nondiff) + len(diff)):
        out.append(next(it_n) if i in nondiff_argnums else next(it_d))
    return out


def _abstract_eval_by_running(fun: str) -> Callable[..., tuple[ShapedArray, ...]]:
    """Output shapes and dtypes: staged on abstract values (no numerics run, so a solver
    inside -- ``custom_root``, ``odeint`` -- is not run on made-up operands); a function
    that cannot be staged (Python control flow on values, NumPy calls on its arrays) is
    run on zeros instead."""
    def abstract_eval(*avals: Any, **params: Any) -> tuple[ShapedArray, ...]:
        ins = [a if isinstance(a, ShapedArray) else
               ShapedArray((), np.asarray(a).dtype, weak_type=True) for a in avals]
        try:
            with set_current_trace(EVAL):
                ir, _ = stage(params[fun], ins, name="custom rule's function")
            return tuple(ShapedArray(v.aval.shape, v.aval.dtype) for v in ir.out_vars)
        except Exception:  # noqa: BLE001  (needs values: Python control flow, NumPy calls
            pass           # on arrays ...; running on zeros below re-raises real errors)
        with set_current_trace(EVAL):
            outs = params[fun](*[np.zeros(a.shape, a.dtype) for a in ins])
        return tuple(ShapedArray(np.shape(o), np.asarray(o).dtype) for o in outs)
    return abstract_eval


def _zero_tangent(p: Any) -> Any:
    """Zeros for the tangent of ``p``: a Python scalar's is the weakly typed Python zero of
    its kind (so that it does not promote a float32 computation, JAX's weak-type rule)."""
    if _is_python_scalar(p) and not isinstance(p, (bool, int)):
        return type(p)(0)
    return zeros_like_leaf(p)


def _materialize(tangents: Sequence[Any], primals: Sequence[Any]) -> list[Any]:
    return [_zero_tangent(p) if t is zero else t for t, p in zip(tangents, primals)]


def _closed_over_differentiated(kind: str, name: str) -> EscapedTracerError:
    return EscapedTracerError(
        f"{kind} function {name!r} closes over a value that an enclosing transform is "
        "differentiating; its rule cannot account for that value's derivative. Pass the "
        "value as an explicit argument of the function instead.")


def _check_closed(flags: Sequence[bool], n_closed: int, kind: str, name: str) -> None:
    """Raise if any of the last ``n_closed`` operands (closed-over values) carries a
    tangent / needs a cotangent."""
    if n_closed and any(flags[len(flags) - n_closed:]):
        raise _closed_over_differentiated(kind, name)


def _batched_args(vals: Sequence[Any], dims: Sequence[int | None]) -> list[Any]:
    size = batch_size(vals, dims)
    return [batched_front(v, d, size) for v, d in zip(vals, dims)]


class _Baked:
    """Unbatched Python scalar operands of a custom rule under ``vmap``, kept out of the
    batched operands (broadcasting one would make it a float64 array and lose its weak
    type): the callables are rewritten to take the remaining operands.  Such an operand
    is a constant at this level (a differentiated one would be a tracer)."""

    def __init__(self, vals: Sequence[Any], dims: Sequence[int | None], n_closed: int) -> None:
        k = len(vals) - n_closed
        self.pos = {i: v for i, (v, d) in enumerate(zip(vals, dims))
                    if i < k and d is None and _is_python_scalar(v)}
        self.n = len(vals)
        self.vals = [v for i, v in enumerate(vals) if i not in self.pos]
        self.dims = [d for i, d in enumerate(dims) if i not in self.pos]

    def merge(self, xs: Sequence[Any], fill: Callable[[Any], Any] | None = None) -> list[Any]:
        it = iter(xs)
        return [(self.pos[i] if fill is None else fill(self.pos[i])) if i in self.pos
                else next(it) for i in range(self.n)]

    def fun(self, fun: Callable[..., Any]) -> Callable[..., Any]:
        return fun if not self.pos else (lambda *xs: fun(*self.merge(xs)))

    def jvp(self, jvp: Callable[..., Any]) -> Callable[..., Any]:
        if not self.pos:
            return jvp
        return lambda ps, ts: jvp(tuple(self.merge(ps)), tuple(self.merge(ts, _zero_tangent)))

    def bwd(self, bwd: Callable[..., Any]) -> Callable[..., Any]:
        if not self.pos:
            return bwd

        def baked_bwd(res: Any, cts: Any, closed: Any) -> list[Any]:
            return [c for i, c in enumerate(bwd(res, cts, closed)) if i not in self.pos]
        return baked_bwd


# custom_jvp ------------------------------------------------------------------------
custom_jvp_call_p = Primitive("custom_jvp_call", multiple_results=True)
# the compiler splices the primal function: its derivative rules were applied when the program was differentiated into the caller (ftrans.compiler._passes)
custom_jvp_call_p.lowering = {"kind": "inline", "param": "fun"}


@custom_jvp_call_p.def_impl
def _cjvp_impl(*args: Any, fun: Callable[..., Any], jvp: Callable[..., Any], n_closed: int,
               name: str) -> Any:
    with set_current_trace(EVAL):
        return fun(*args)


custom_jvp_call_p.def_abstract_eval(_abstract_eval_by_running("fun"))


@custom_jvp_call_p.def_jvp
def _cjvp_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, fun: Callable[..., Any],
              jvp: Callable[..., Any], n_closed: int, name: str
              ) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    _check_closed([t is not zero for t in tangents], n_closed, "custom_jvp", name)
    outs, t_outs = jvp(tuple(primals), tuple(_materialize(tangents, primals)))
    return tuple(outs), tuple(t if is_inexact(_dtype(o)) else zero for o, t in zip(outs, t_outs))


def _dtype(x: Any) -> Any:
    return x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype


def _is_python_scalar(x: Any) -> bool:
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


def _flatten_out(out: PyTree) -> tuple[list[Any], PyTreeDef]:
    """The output leaves of a user's function or rule; a Python scalar leaf becomes a 0-d
    array of its default dtype, as any transformed function's Python scalar output does."""
    leaves, tree = tree_flatten(out)
    return [np.asarray(o) if _is_python_scalar(o) else o for o in leaves], tree


def _check_rule_tangent(o: Any, t: Any, k: int, rule: str, name: str) -> Any:
    """The tangent output leaf ``t`` of a custom_jvp rule for the primal output leaf
    ``o`` (number ``k``), checked as JAX does: the same shape, and the same dtype for an
    inexact ``o`` (a Python float fits a real ``o``, and is cast; a Python float or
    complex fits a complex one).  Raises TypeError naming the rule."""
    o_shape, t_shape = tuple(np.shape(o)), tuple(np.shape(t))
    o_dt, t_dt = as_numpy_dtype(_dtype(o)), as_numpy_dtype(_dtype(t))
    weak = _is_python_scalar(t)
    if not is_inexact(o_dt):
        ok = True
    elif weak:
        ok = t_dt.kind == "f" or (t_dt.kind == "c" and o_dt.kind == "c")
    else:
        ok = t_dt == o_dt
    if ok and o_shape == t_shape:
        return np.asarray(t, o_dt) if weak and is_inexact(o_dt) else t
    raise TypeError(
        f"custom_jvp rule {rule!r} of {name!r} must return a tangent with the shape and "
        f"dtype of its primal output: output leaf {k} has shape {o_shape} and dtype "
        f"{o_dt.name}, but the rule's tangent has shape {t_shape} and dtype {t_dt.name}; "
        f"make the tangent match (e.g. t.astype({o_dt.name!r}), or reduce/reshape it)")


@custom_jvp_call_p.def_vjp
def _cjvp_vjp(ct: Sequence[Any], ans: Sequence[Any], primals: Sequence[Any],
              needs: Sequence[bool], *, fun: Callable[..., Any], jvp: Callable[..., Any],
              n_closed: int, name: str) -> list[Any]:
    _check_closed(needs, n_closed, "custom_jvp", name)
    diff = [i for i, p in enumerate(primals) if needs[i] and is_inexact(_dtype(p))]
    out_diff = [k for k, a in enumerate(ans) if is_inexact(_dtype(a))]

    def tangent_map(*ts: Any) -> tuple[Any, ...]:
        tangents = [_zero_tangent(p) for p in primals]
        for i, t in zip(diff, ts):
            tangents[i] = t
        t_outs = jvp(tuple(primals), tuple(tangents))[1]
        return tuple(t_outs[k] for k in out_diff)

    _, pull = vjp_unchecked(tangent_map, *[zeros_like_leaf(primals[i]) for i in diff])
    cts = pull(tuple(ct[k] for k in out_diff))
    res: list[Any] = [None] * len(primals)
    for i, c in zip(diff, cts):
        res[i] = c if needs[i] else None
    return res


@custom_jvp_call_p.def_batch
def _cjvp_batch(vals: Sequence[Any], dims: Sequence[int | None], *, fun: Callable[..., Any],
                jvp: Callable[..., Any], n_closed: int, name: str
                ) -> tuple[Any, list[int]]:
    b = _Baked(vals, dims, n_closed)
    outs = custom_jvp_call_p.bind(*_batched_args(b.vals, b.dims), fun=vmap(b.fun(fun)),
                                  jvp=vmap(b.jvp(jvp)), n_closed=n_closed, name=name)
    return outs, [0] * len(outs)


class custom_jvp:
    """Decorator: a function with a user-defined JVP rule (JAX's ``custom_jvp``).

    The rule is used by forward mode, transposed for reverse mode (it must be linear
    in the tangents) and batched by ``vmap`` (the docstring of the module
    ``ftrans.transforms.custom`` has the details).

    Parameters
    ----------
    fun : callable
        The primal function (positional pytree arguments).
    nondiff_argnums : sequence of int, default ()
        Arguments passed to the rule first and never differentiated.

    Raises
    ------
    TypeError
        When called before ``defjvp``, or when the rule's tangent output does not
        match the primal output's structure, shapes and dtypes (as JAX; a Python float
        tangent of a real 0-d output is accepted and cast to its dtype).
    EscapedTracerError
        When ``fun`` or the rule closes over a value an enclosing transform is
        differentiating (pass it as an argument).

    Notes
    -----
    Follows ``jax.custom_jvp``
    (https://docs.jax.dev/en/latest/_autosummary/jax.custom_jvp.html) and JAX's
    tutorial "Custom derivative rules for JAX-transformable Python functions".

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> @ftrans.custom_jvp
    ... def softplus(x):
    ...     return fnp.log1p(fnp.exp(x))
    >>> @softplus.defjvp
    ... def softplus_jvp(primals, tangents):
    ...     (x,), (t,) = primals, tangents
    ...     return softplus(x), t / (1 + fnp.exp(-x))
    >>> float(ftrans.grad(softplus)(0.0))
    0.5
    """

    __name__: str  # set by functools.update_wrapper

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp: Callable[..., Any] | None = None

    def defjvp(self, jvp: Callable[..., Any]) -> Callable[..., Any]:
        """Set the rule ``jvp(*nondiff_args, primals, tangents) -> (out, tangent_out)``.

        Parameters
        ----------
        jvp : callable
            Takes the non-differentiated arguments, then the tuple of primals and the
            tuple of tangents (zeros where a tangent is symbolically zero); returns the
            primal output and its tangent, of the same structure, shapes and dtypes.

        Returns
        -------
        callable
            ``jvp`` itself (so ``defjvp`` works as a decorator).
        """
        self.jvp = jvp
        return jvp

    def defjvps(self, *jvps: Callable[..., Any] | None) -> tuple[Callable[..., Any] | None, ...]:
        """Set the rule from one JVP per positional argument (JAX's ``defjvps``).

        Parameters
        ----------
        *jvps : callable or None
            ``jvps[i](t_i, ans, *primals)`` is the output tangent contributed by
            argument ``i``'s tangent ``t_i`` (None: argument ``i`` is not
            differentiated, it contributes nothing); the output tangent is their sum.

        Returns
        -------
        tuple
            ``jvps``.

        Raises
        ------
        TypeError
            With ``nondiff_argnums`` (as JAX), or not one rule per argument when called.
        """
        if self.nondiff_argnums:
            raise TypeError("Can't use defjvps with nondiff_argnums; use defjvp instead")
        self.defjvp(functools.partial(_jvp_from_jvps, self, jvps))
        return jvps

    def __call__(self, *args: Any) -> Any:
        if self.jvp is None:
            raise TypeError(f"custom_jvp function {self.__name__!r} has no JVP rule; define "
                            "one with @f.defjvp before calling it")
        nondiff, diff = _split(args, self.nondiff_argnums)
        leaves, in_tree = tree_flatten(diff)
        n = len(leaves)
        # traced values the function or the rule close over become trailing operands
        re_fun, c_fun = closure_convert(self.fun)
        re_jvp, c_jvp = closure_convert(self.jvp)
        nf = len(c_fun)
        store = _OutTree()

        def flat_fun(*xs: Any) -> tuple[Any, ...]:
            fun = re_fun(xs[n:n + nf])
            out = fun(*_merge(nondiff, tree_unflatten(in_tree, xs[:n]), self.nondiff_argnums))
            out_leaves, store.tree = _flatten_out(out)
            return tuple(out_leaves)

        def flat_jvp(primals: Sequence[Any], tangents: Sequence[Any]
                     ) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
            rule = re_jvp(primals[n + nf:])
            out, t_out = rule(*nondiff, tree_unflatten(in_tree, primals[:n]),
                              tree_unflatten(in_tree, tangents[:n]))
            out_leaves, out_tree = _flatten_out(out)
            t_leaves, t_tree = tree_flatten(t_out)
            rule_name = getattr(self.jvp, "__name__", "jvp")
            if t_tree != out_tree:
                raise TypeError(
                    f"custom_jvp rule {rule_name!r} of {self.__name__!r} must return (out, "
                    f"tangent_out) with matching structures; got {out_tree} and {t_tree}")
            t_leaves = [_check_rule_tangent(o, t, k, rule_name, self.__name__)
                        for k, (o, t) in enumerate(zip(out_leaves, t_leaves))]
            store.tree = out_tree
            return tuple(out_leaves), tuple(t_leaves)

        consts = c_fun + c_jvp
        outs = custom_jvp_call_p.bind(*leaves, *consts, fun=flat_fun, jvp=flat_jvp,
                                      n_closed=len(consts), name=self.__name__)
        return tree_unflatten(store.tree, outs)


def _jvp_from_jvps(f: custom_jvp, jvps: Sequence[Callable[..., Any] | None],
                   primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
    """The JVP rule that ``custom_jvp.defjvps`` sets: the sum of the per-argument rules."""
    if len(jvps) != len(primals):
        raise TypeError(f"custom_jvp function {f.__name__!r} takes {len(primals)} "
                        f"argument(s) but defjvps was given {len(jvps)} rule(s); pass one "
                        "per argument (None for an argument that is not differentiated)")
    ans = f(*primals)
    parts = [rule(t, ans, *primals) for rule, t in zip(jvps, tangents) if rule is not None]
    if not parts:
        return ans, tree_map(lambda o: np.zeros(np.shape(o), _dtype(o)), ans)
    return ans, functools.reduce(lambda a, b: tree_map(add, a, b), parts)


# custom_vjp ------------------------------------------------------------------------
custom_vjp_call_p = Primitive("custom_vjp_call", multiple_results=True)
# the compiler splices the primal function: its derivative rules were applied when the program was differentiated into the caller (ftrans.compiler._passes)
custom_vjp_call_p.lowering = {"kind": "inline", "param": "fun"}


@custom_vjp_call_p.def_impl
def _cvjp_impl(*args: Any, fun: Callable[..., Any], fwd: Callable[..., Any],
               bwd: Callable[..., Any], n_closed: int, name: str) -> Any:
    with set_current_trace(EVAL):
        return fun(*args)


custom_vjp_call_p.def_abstract_eval(_abstract_eval_by_running("fun"))


@custom_vjp_call_p.def_jvp
def _cvjp_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, fun: Callable[..., Any],
              fwd: Callable[..., Any], bwd: Callable[..., Any], n_closed: int, name: str
              ) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """Forward mode differentiates ``fun`` itself (see the module docstring), closed-over
    operands included."""
    outs, t_outs = jvp(lambda *a: tuple(fun(*a)), tuple(primals),
                       tuple(_materialize(tangents, primals)))
    return tuple(outs), tuple(t if is_inexact(_dtype(o)) else zero for o, t in zip(outs, t_outs))


def _cvjp_fwd(*primals: Any, fun: Callable[..., Any], fwd: Callable[..., Any],
              bwd: Callable[..., Any], n_closed: int, name: str) -> tuple[Any, Any]:
    """Run the user's ``fwd``; keep its residuals, the operands' shapes and dtypes (to
    check ``bwd``'s output) and the closed-over operands (``bwd`` may close over them)."""
    outs, res = fwd(*primals)
    k = len(primals) - n_closed
    return tuple(outs), (res, tuple((tuple(np.shape(p)), _dtype(p)) for p in primals[:k]),
                         tuple(primals[k:]))


custom_vjp_call_p.vjp_fwd = _cvjp_fwd


@custom_vjp_call_p.def_vjp
def _cvjp_vjp(ct: Sequence[Any], ans: Sequence[Any], residuals: Any, needs: Sequence[bool],
              *, fun: Callable[..., Any], fwd: Callable[..., Any], bwd: Callable[..., Any],
              n_closed: int, name: str) -> list[Any]:
    _check_closed(needs, n_closed, "custom_vjp", name)
    res, avals, closed = residuals
    cts = bwd(res, tuple(ct), closed)
    out: list[Any] = []
    for c, (shape, dtype), need in zip(cts, avals, needs):
        if c is None or not need or not is_inexact(dtype):
            out.append(None)
            continue
        if _is_python_scalar(c):  # weakly typed: takes its input's dtype
            c = np.asarray(c, dtype)
        if tuple(c.shape) != shape:
            # (ftrans.custom_vjp's bwd is checked to return the inputs' shapes; this is
            # compat's autograd.Function, whose gradients PyTorch sums to fit)
            try:
                np.broadcast_shapes(tuple(c.shape), shape)
            except ValueError:
                raise ValueError(f"custom_vjp bwd returned a cotangent of shape "
                                 f"{tuple(c.shape)} for an input of shape {shape}") from None
            c = unbroadcast(c, ShapedArray(shape, dtype))
        out.append(c)
    return out + [None] * n_closed


@custom_vjp_call_p.def_batch
def _cvjp_batch(vals: Sequence[Any], dims: Sequence[int | None], *, fun: Callable[..., Any],
                fwd: Callable[..., Any], bwd: Callable[..., Any], n_closed: int, name: str
                ) -> tuple[Any, list[int]]:
    b = _Baked(vals, dims, n_closed)
    outs = custom_vjp_call_p.bind(*_batched_args(b.vals, b.dims), fun=vmap(b.fun(fun)),
                                  fwd=vmap(b.fun(fwd)), bwd=vmap(b.bwd(bwd)),
                                  n_closed=n_closed, name=name)
    return outs, [0] * len(outs)


class custom_vjp:
    """Decorator: a function with a user-defined VJP (JAX's ``custom_vjp``).

    ``fwd(*args) -> (out, residuals)``; ``bwd(*nondiff_args, residuals, ct_out)`` returns a
    tuple with one cotangent pytree per differentiated argument (``None`` for no
    gradient).  Forward mode differentiates ``fun`` itself (module docstring).

    Parameters
    ----------
    fun : callable
        The primal function (positional pytree arguments).
    nondiff_argnums : sequence of int, default ()
        Arguments passed to ``bwd`` first and never differentiated.

    Raises
    ------
    TypeError
        When called before ``defvjp``, when ``fwd`` does not return an ``(output,
        residuals)`` pair, or when ``bwd`` returns something other than a tuple/list
        with one entry per differentiated argument.
    ValueError
        When a cotangent returned by ``bwd`` does not have its input's shape (as JAX; it
        is not summed to fit).

    Notes
    -----
    Follows ``jax.custom_vjp``
    (https://docs.jax.dev/en/latest/_autosummary/jax.custom_vjp.html), except that
    forward mode (``jvp``, ``jacfwd``, ``hessian``) works: it differentiates ``fun``
    itself, where JAX raises an error.

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> @ftrans.custom_vjp
    ... def clip_gradient(x):
    ...     return x
    >>> def fwd(x):
    ...     return x, None
    >>> def bwd(res, g):
    ...     return (fnp.clip(g, -1.0, 1.0),)
    >>> clip_gradient.defvjp(fwd, bwd)
    >>> ftrans.grad(lambda x: fnp.sum(3.0 * clip_gradient(x)))(np.array([1.0, 2.0]))
    array([1., 1.])
    """

    __name__: str  # set by functools.update_wrapper

    def __init__(self, fun: Callable[..., Any], nondiff_argnums: Sequence[int] = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd: Callable[..., Any] | None = None
        self.bwd: Callable[..., Any] | None = None

    def defvjp(self, fwd: Callable[..., Any], bwd: Callable[..., Any]) -> None:
        """Set ``fwd(*args) -> (out, residuals)`` and ``bwd(*nondiff, residuals, ct)``.

        Parameters
        ----------
        fwd : callable
            Takes the function's arguments; returns the output and the residuals
            (any pytree, or None) that ``bwd`` needs.
        bwd : callable
            Takes the non-differentiated arguments, the residuals and the output
            cotangent; returns a tuple with one cotangent (or ``None``) per
            differentiated argument, each of its argument's structure and shapes.
        """
        self.fwd, self.bwd = fwd, bwd

    def __call__(self, *args: Any) -> Any:
        if self.fwd is None or self.bwd is None:  # (defvjp sets both)
            raise TypeError(f"custom_vjp function {self.__name__!r} has no VJP rule; define "
                            "one with f.defvjp(fwd, bwd) before calling it")
        nondiff, diff = _split(args, self.nondiff_argnums)
        leaves, in_tree = tree_flatten(diff)
        n = len(leaves)
        store = _OutTree()
        name = self.__name__
        fwd_name = getattr(self.fwd, "__name__", "fwd")
        bwd_name = getattr(self.bwd, "__name__", "bwd")
        # traced values closed over by fun, fwd or bwd become trailing operands
        re_fun, c_fun = closure_convert(self.fun)
        re_fwd, c_fwd = closure_convert(self.fwd)
        re_bwd, c_bwd = closure_convert(self.bwd)
        n1, n2 = len(c_fun), len(c_fun) + len(c_fwd)

        def flat_fun(*xs: Any) -> tuple[Any, ...]:
            out = re_fun(xs[n:n + n1])(*_merge(nondiff, tree_unflatten(in_tree, xs[:n]),
                                                self.nondiff_argnums))
            out_leaves, store.tree = _flatten_out(out)
            return tuple(out_leaves)

        def flat_fwd(*xs: Any) -> tuple[tuple[Any, ...], Any]:
            pair = re_fwd(xs[n + n1:n + n2])(
                *_merge(nondiff, tree_unflatten(in_tree, xs[:n]), self.nondiff_argnums))
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                got = type(pair).__name__ + (f" of length {len(pair)}"
                                             if isinstance(pair, (tuple, list)) else "")
                raise TypeError(
                    f"custom_vjp fwd rule {fwd_name!r} of {name!r} must return a pair "
                    f"(output, residuals): the output of {name!r} and the values bwd needs, "
                    f"got a {got}; return e.g. `return out, (x,)` (residuals may be None)")
            out, res = pair
            out_leaves, store.tree = _flatten_out(out)
            return tuple(out_leaves), res

        def flat_bwd(res: Any, cts: Sequence[Any], closed: Sequence[Any]) -> list[Any]:
            g = re_bwd(closed[n2:])(*nondiff, res, tree_unflatten(store.tree, list(cts)))
            if not isinstance(g, (tuple, list)) or len(g) != len(diff):
                raise TypeError(
                    f"custom_vjp bwd rule {bwd_name!r} of {name!r} must return a tuple with "
                    f"one cotangent (or None) per differentiated argument ({len(diff)}), got "
                    f"a {type(g).__name__}"
                    + (f" of length {len(g)}" if isinstance(g, (tuple, list)) else "")
                    + ("; for one argument return a 1-tuple, `return (g,)`"
                       if len(diff) == 1 else ""))
            flat: list[Any] = []
            it = iter(leaves)
            positions = [i for i in range(len(args)) if i not in self.nondiff_argnums]
            for j, a, c in zip(positions, diff, g):
                arg_leaves = [next(it) for _ in range(len(tree_flatten(a)[0]))]
                if c is None:
                    flat.extend([None] * len(arg_leaves))
                    continue
                c_leaves = tree_flatten(c)[0]
                if len(c_leaves) != len(arg_leaves):
                    raise TypeError(
                        f"custom_vjp bwd rule {bwd_name!r} of {name!r} returned a cotangent "
                        f"with {len(c_leaves)} leaves for argument {j}, which has "
                        f"{len(arg_leaves)}")
                for m, (x, c) in enumerate(zip(arg_leaves, c_leaves)):
                    if tuple(np.shape(c)) != tuple(np.shape(x)):
                        leaf = f" (leaf {m})" if len(arg_leaves) > 1 else ""
                        raise ValueError(
                            f"custom_vjp bwd rule {bwd_name!r} of {name!r} must return "
                            f"cotangents with the shapes of the primal inputs, but for "
                            f"argument {j}{leaf} of shape {tuple(np.shape(x))} it returned "
                            f"shape {tuple(np.shape(c))}; reduce it to the input's shape "
                            "(e.g. sum over the broadcast axes) in the bwd rule")
                    if _is_python_scalar(c) and is_inexact(_dtype(x)):
                        c = np.asarray(c, _dtype(x))
                    flat.append(c)
            return flat

        consts = c_fun + c_fwd + c_bwd
        outs = custom_vjp_call_p.bind(*leaves, *consts, fun=flat_fun, fwd=flat_fwd,
                                      bwd=flat_bwd, n_closed=len(consts), name=name)
        return tree_unflatten(store.tree, outs)
