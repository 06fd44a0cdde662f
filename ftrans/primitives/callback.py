"""``pure_callback``: call a host (NumPy/SciPy) function from ftrans code (JAX's
``jax.pure_callback``).

The ``pure_callback`` primitive's impl calls the user's function on NumPy arrays and
checks its results against the declared shapes and dtypes; its abstract evaluation
*is* that declaration, so ``jit`` stages it (the compiler has no lowering for it and
calls the impl between compiled segments: a graph break).  Its batching rule follows
JAX's ``vmap_method``: ``"sequential"`` loops over the mapped axis on the host,
``"expand_dims"`` gives unbatched operands a leading axis of size 1 and calls the
function once, ``"broadcast_all"`` broadcasts every operand to the batch size and calls
it once.  It has no derivative: differentiating through it raises a ``TypeError`` that
says to wrap the call in ``custom_jvp``/``custom_vjp`` (as JAX does).

The ``debug_callback`` primitive (``ftrans.debug.callback`` / ``ftrans.debug.print``)
calls a host function for its side effect and returns nothing.  It is *effectful*
(``Primitive(effectful=True)``): dead-code elimination keeps it, so under ``jit`` it
stays in the program and, having no lowering, runs its impl at its point of the
compiled program -- at execution time, with the concrete values.  It has no output
to carry a derivative: its JVP rule calls it on the primal values, reverse mode calls
it once in the forward pass (``vjp_fwd``, saving nothing), and its VJP rule gives no
cotangent.  ``vmap`` calls it once per element of
the mapped axis, as ``jax.debug.callback`` does.
"""
from __future__ import annotations

import types
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core import Primitive, ShapedArray, set_current_trace, EVAL, zero
from ..core.dtypes import as_numpy_dtype
from ..core.pytree import tree_flatten, tree_unflatten
from ..kernels import backend_for
from ._base import expand_dims
from ._rules import batched_front, move_to_front
from ..typing import DTypeLike, PyTree

__all__ = ["pure_callback", "ShapeDtypeStruct", "pure_callback_p", "debug_callback_p"]

_VMAP_METHODS = ("sequential", "expand_dims", "broadcast_all")


class ShapeDtypeStruct(ShapedArray):
    """A declared shape and dtype (JAX's ``jax.ShapeDtypeStruct``): a ShapedArray.

    Parameters
    ----------
    shape : sequence of int
        The shape.
    dtype : dtype-like
        The dtype.

    Examples
    --------
    >>> ShapeDtypeStruct((3,), "float64")
    ShapeDtypeStruct(shape=(3,), dtype=float64)
    """

    __slots__ = ()

    def __init__(self, shape: Sequence[int], dtype: DTypeLike) -> None:
        super().__init__(shape, as_numpy_dtype(dtype))

    def __repr__(self) -> str:
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name})"


pure_callback_p = Primitive("pure_callback", multiple_results=True)


def _check_results(outs: Any, avals: Sequence[ShapedArray], name: str) -> tuple[Any, ...]:
    if not isinstance(outs, (tuple, list)) or len(outs) != len(avals):
        raise TypeError(f"pure_callback: {name!r} returned {len(outs) if isinstance(outs, (tuple, list)) else 1}"
                        f" result leaves, but result_shape_dtypes declares {len(avals)}")
    res: list[Any] = []
    for k, (o, a) in enumerate(zip(outs, avals)):
        o = np.asarray(o)
        if o.shape != a.shape or o.dtype != a.dtype:
            raise TypeError(
                f"pure_callback: {name!r} returned for result leaf {k} an array of shape "
                f"{o.shape} and dtype {o.dtype.name}, but result_shape_dtypes declares shape "
                f"{a.shape} and dtype {a.dtype.name}; return exactly the declared shape and "
                f"dtype (e.g. np.asarray(r, {a.dtype.name!r}).reshape({a.shape}))")
        res.append(o)
    return tuple(res)


def _host_call(args: Sequence[Any], callback: Callable[..., Any],
               result_avals: Sequence[ShapedArray], name: str) -> tuple[Any, ...]:
    """The callback on NumPy arrays (CuPy operands copied to the host, as JAX's
    callbacks copy device buffers), its results checked against the declaration."""
    with set_current_trace(EVAL):
        outs = callback(*[np.asarray(a.get() if hasattr(a, "get") else a) for a in args])
    return _check_results(outs, result_avals, name)


@pure_callback_p.def_impl
def _impl(*args: Any, callback: Callable[..., Any], result_avals: Sequence[ShapedArray],
          vmap_method: str, name: str) -> tuple[Any, ...]:
    be = backend_for(*args) if args else None
    if be is None or type(be) is types.ModuleType:   # NumPy or CuPy operands
        outs = _host_call(args, callback, result_avals, name)
        if be is not None and be.xp is not np:       # CuPy: the results back on the device
            outs = tuple(be.xp.asarray(o) for o in outs)
        return outs
    # Dask: one lazy task per result (the callback is pure); array-API arrays raise
    # NotImplementedError naming the primitive (never a silent conversion to NumPy)
    return tuple(be.on_numpy("pure_callback",
                             (lambda k: lambda *a: _host_call(a, callback, result_avals,
                                                              name)[k])(k), aval, *args)
                 for k, aval in enumerate(result_avals))


@pure_callback_p.def_abstract_eval
def _abstract_eval(*avals: Any, callback: Callable[..., Any],
                   result_avals: Sequence[ShapedArray], vmap_method: str,
                   name: str) -> tuple[ShapedArray, ...]:
    return tuple(result_avals)


def _not_differentiable(name: str) -> TypeError:
    return TypeError(
        f"pure_callback: cannot differentiate through the host function {name!r} (ftrans "
        "cannot see inside it). Wrap the function that calls pure_callback in "
        "ftrans.custom_jvp or ftrans.custom_vjp and supply its derivative there (as "
        "with jax.pure_callback)")


@pure_callback_p.def_jvp
def _jvp(primals: Sequence[Any], tangents: Sequence[Any], *, callback: Callable[..., Any],
         result_avals: Sequence[ShapedArray], vmap_method: str, name: str
         ) -> tuple[Any, list[Any]]:
    if any(t is not zero for t in tangents):
        raise _not_differentiable(name)
    return pure_callback_p.bind(*primals, callback=callback, result_avals=result_avals,
                                vmap_method=vmap_method, name=name), [zero] * len(result_avals)


def _vjp_fwd(*primals: Any, callback: Callable[..., Any], result_avals: Sequence[ShapedArray],
             vmap_method: str, name: str) -> tuple[Any, Any]:
    # reverse mode records a primitive only when an input is differentiated: refuse
    # at once (in the forward pass) rather than in the backward pass
    raise _not_differentiable(name)


pure_callback_p.vjp_fwd = _vjp_fwd


@pure_callback_p.def_vjp
def _vjp(ct: Any, ans: Any, primals: Any, needs: Any, **params: Any) -> list[Any]:  # pragma: no cover (vjp_fwd raises first)
    raise _not_differentiable(params["name"])


def _sequential(callback: Callable[..., Any], dims: Sequence[int | None], size: int
                ) -> Callable[..., Any]:
    """A host function over the stacked operands that calls ``callback`` per row."""
    def seq(*xs: Any) -> tuple[Any, ...] | None:
        rows = [callback(*[x if d is None else x[i] for x, d in zip(xs, dims)])
                for i in range(size)]
        if not rows:
            return None
        return tuple(np.stack([np.asarray(r[k]) for r in rows]) for k in range(len(rows[0])))
    return seq


@pure_callback_p.def_batch
def _batch(vals: Sequence[Any], dims: Sequence[int | None], *, callback: Callable[..., Any],
           result_avals: Sequence[ShapedArray], vmap_method: str, name: str
           ) -> tuple[Any, list[int]]:
    size = next(v.shape[d] for v, d in zip(vals, dims) if d is not None)
    out_avals = tuple(ShapedArray((size,) + a.shape, a.dtype) for a in result_avals)
    if vmap_method == "sequential":
        vals = [v if d is None else move_to_front(v, d) for v, d in zip(vals, dims)]
        dims = [None if d is None else 0 for d in dims]
        if size == 0:
            return tuple(np.zeros(a.shape, a.dtype) for a in out_avals), [0] * len(out_avals)
        cb = _sequential(callback, dims, size)
    elif vmap_method == "expand_dims":
        vals = [expand_dims(v, (0,)) if d is None else move_to_front(v, d)
                for v, d in zip(vals, dims)]
        cb = callback
    else:  # broadcast_all
        vals = [batched_front(v, d, size) for v, d in zip(vals, dims)]
        cb = callback
    outs = pure_callback_p.bind(*vals, callback=cb, result_avals=out_avals,
                                vmap_method=vmap_method, name=name)
    return outs, [0] * len(outs)


def pure_callback(callback: Callable[..., Any], result_shape_dtypes: PyTree, *args: PyTree,
                  vmap_method: str = "sequential", **kwargs: Any) -> PyTree:
    """Call a host function on NumPy arrays from ftrans code (JAX's ``jax.pure_callback``).

    Parameters
    ----------
    callback : callable
        ``callback(*args, **kwargs)`` with NumPy arrays at the leaves of ``args``; must be
        pure (no side effects that matter: it may run more than once, or not at all).
        It returns a pytree with the structure of ``result_shape_dtypes``.
    result_shape_dtypes : PyTree
        A pytree of ``ShapeDtypeStruct`` (or anything with ``.shape`` and ``.dtype``):
        the declared shapes and dtypes of the results (the abstract evaluation under
        ``jit``).
    *args : PyTree
        The operands (tracers under a transform; concrete when ``callback`` runs).
    vmap_method : {"sequential", "expand_dims", "broadcast_all"}, default "sequential"
        How ``vmap`` maps the call (JAX's meanings): ``"sequential"`` calls
        ``callback`` once per mapped element; ``"expand_dims"`` calls it once with a
        leading axis on every operand (size 1 on the unbatched ones);
        ``"broadcast_all"`` calls it once with every operand broadcast to the batch
        size.  With the last two, ``callback`` must handle the leading axis and return
        results with it.
    **kwargs : Any
        Passed to ``callback`` unchanged (static).

    Returns
    -------
    PyTree
        Arrays with the structure of ``result_shape_dtypes``.

    Raises
    ------
    TypeError
        When the results do not match the declared shapes and dtypes, or when the call
        is differentiated (wrap it in ``custom_jvp``/``custom_vjp`` with your own rule).
    ValueError
        For an unknown ``vmap_method``.

    Notes
    -----
    Follows ``jax.pure_callback``
    (https://docs.jax.dev/en/latest/_autosummary/jax.pure_callback.html), including
    the meanings of ``vmap_method``.

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> f = lambda x: ftrans.pure_callback(np.sin, ShapeDtypeStruct(x.shape, x.dtype), x)
    >>> ftrans.jit(f)(fnp.zeros(2))
    array([0., 0.])
    """
    if vmap_method not in _VMAP_METHODS:
        raise ValueError(f"pure_callback: vmap_method must be one of {_VMAP_METHODS}, got "
                         f"{vmap_method!r}")
    if not callable(callback):
        raise TypeError(f"pure_callback: callback must be callable, got "
                        f"{type(callback).__name__}")
    res_leaves, res_tree = tree_flatten(result_shape_dtypes)
    for r in res_leaves:
        if not (hasattr(r, "shape") and hasattr(r, "dtype")):
            raise TypeError("pure_callback: result_shape_dtypes must be a pytree of "
                            f"ShapeDtypeStruct (shape and dtype), got a leaf {r!r}")
    avals = tuple(ShapedArray(tuple(r.shape), as_numpy_dtype(r.dtype)) for r in res_leaves)
    leaves, in_tree = tree_flatten(args)
    name = getattr(callback, "__name__", type(callback).__name__)

    def flat_callback(*xs: Any) -> tuple[Any, ...]:
        out = callback(*tree_unflatten(in_tree, list(xs)), **kwargs)
        out_leaves, out_tree = tree_flatten(out)
        if out_tree != res_tree:
            raise TypeError(f"pure_callback: {name!r} returned a result of structure "
                            f"{out_tree}, but result_shape_dtypes has structure {res_tree}")
        return tuple(out_leaves)

    outs = pure_callback_p.bind(*leaves, callback=flat_callback, result_avals=avals,
                                vmap_method=vmap_method, name=name)
    return tree_unflatten(res_tree, list(outs))


# ---------------------------------------------------------------------------------
# debug_callback: a host function called for its side effect (ftrans.debug)
# ---------------------------------------------------------------------------------
debug_callback_p = Primitive("debug_callback", multiple_results=True, effectful=True)


@debug_callback_p.def_impl
def _debug_impl(*args: Any, callback: Callable[..., None], ordered: bool) -> tuple[()]:
    with set_current_trace(EVAL):
        callback(*[np.asarray(a.get() if hasattr(a, "get") else a) for a in args])
    return ()


@debug_callback_p.def_abstract_eval
def _debug_abstract_eval(*avals: Any, callback: Callable[..., None], ordered: bool
                         ) -> tuple[()]:
    return ()


@debug_callback_p.def_jvp
def _debug_jvp(primals: Sequence[Any], tangents: Sequence[Any], *,
               callback: Callable[..., None], ordered: bool) -> tuple[tuple[()], list[Any]]:
    # the host function sees the primal values; there are no outputs to carry tangents
    return debug_callback_p.bind(*primals, callback=callback, ordered=ordered), []


def _debug_vjp_fwd(*primals: Any, callback: Callable[..., None], ordered: bool
                   ) -> tuple[tuple[()], tuple[()]]:
    # called once, in the forward pass; nothing saved (no output ever gets a cotangent)
    return debug_callback_p.bind(*primals, callback=callback, ordered=ordered), ()


debug_callback_p.vjp_fwd = _debug_vjp_fwd


@debug_callback_p.def_vjp
def _debug_vjp(ct: Any, ans: Any, residuals: Any, needs: Sequence[bool], **params: Any
               ) -> list[None]:
    return [None] * len(needs)  # the transpose of an effect: nothing


@debug_callback_p.def_batch
def _debug_batch(vals: Sequence[Any], dims: Sequence[int | None], *,
                 callback: Callable[..., None], ordered: bool) -> tuple[tuple[()], list[int]]:
    # jax.debug.callback's rule: one call per element of the mapped axis, in order
    vals = [v if d is None else move_to_front(v, d) for v, d in zip(vals, dims)]
    size = next(v.shape[0] for v, d in zip(vals, dims) if d is not None)
    for i in range(size):
        debug_callback_p.bind(*[v if d is None else v[i] for v, d in zip(vals, dims)],
                              callback=callback, ordered=ordered)
    return (), []
