"""Vectorizing map: the batch trace and ``ftrans.vmap``.

A :class:`BatchTracer` holds a value with one extra *batch dimension* at axis
``bdim``; its ``shape`` is the per-example shape.  ``BatchTrace.process_primitive``
unwraps the tracers carrying its own tag and calls the primitive's batching rule
(``prim.batch(vals, dims, **params) -> (out, out_dim)``) on its parent trace.  A
primitive without a rule raises ``NotImplementedError`` naming it: there is no
silent fallback to a Python loop.

Because every rule is written in ftrans operations, ``vmap`` composes with every
other transform in both orders (``vmap(grad(f))``, ``grad(vmap(f))``, nested vmaps).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core import Trace, Tracer, set_current_trace
from ..core.trace import _ctx, _escaped
from ..core.pytree import tree_flatten, tree_unflatten, PyTreeDef, _node_of
from ._util import as_output, check_output_leaf, decorator_factory
from ..primitives import broadcast_to, concatenate, expand_dims, gather, transpose
from ..core.primitive import Primitive
from ..typing import PyTree

__all__ = ["vmap", "BatchTrace", "BatchTracer"]


class BatchTracer(Tracer):
    """A value with a batch dimension at axis ``bdim``, tagged with its :class:`BatchTrace`."""

    __slots__ = ("val", "bdim")

    def __init__(self, trace: BatchTrace, val: Any, bdim: int) -> None:
        self._trace = trace
        self.val = val
        self.bdim = bdim

    @property
    def shape(self) -> tuple[int, ...]:
        s = self.val.shape
        d = self.bdim
        return s[:d] + s[d + 1:]

    @property
    def ndim(self) -> int:
        return len(self.val.shape) - 1

    @property
    def dtype(self) -> Any:
        return self.val.dtype

    def __repr__(self) -> str:
        return f"BatchTracer(shape={self.shape}, dtype={self.dtype}, bdim={self.bdim})"


class BatchTrace(Trace):
    """vmap's trace; ``size`` is the mapped axis size."""

    __slots__ = ("size",)

    def __init__(self, parent: Trace, name: str, size: int) -> None:
        super().__init__(parent, name)
        self.size = size

    def process_primitive(self, prim: Primitive, args: Sequence[Any],
                          params: dict[str, Any]) -> Any:
        vals: list[Any] | None = None
        dims: list[int | None] = []
        i = 0
        for a in args:
            if type(a) is BatchTracer and a._trace is self:
                if vals is None:
                    vals = list(args)
                    dims = [None] * len(args)
                vals[i] = a.val
                dims[i] = a.bdim
            i += 1
        parent = self.parent
        if vals is None:
            return parent.process_primitive(prim, args, params)
        rule = prim.batch
        if rule is None:
            raise NotImplementedError(f"vmap: primitive {prim.name!r} has no batching rule")
        prev = _ctx.trace
        _ctx.trace = parent
        try:
            out, out_dim = rule(vals, dims, **params)
        finally:
            _ctx.trace = prev
        if prim.multiple_results:
            return tuple(o if d is None else BatchTracer(self, o, d) for o, d in zip(out, out_dim))
        return out if out_dim is None else BatchTracer(self, out, out_dim)


def _prefix_leaves(prefix: Any, tree: PyTree, what: str) -> list[int | None]:
    """Broadcast a pytree prefix (ints/None at its leaves) to the leaves of ``tree``.

    Raises
    ------
    ValueError
        If ``prefix`` is not a prefix of ``tree``'s structure.
    """
    out: list[int | None] = []
    _prefix_rec(prefix, tree, what, out)
    return out


def _prefix_rec(p: Any, t: Any, what: str, out: list[int | None]) -> None:
    # (a module-level function, not a closure: a self-referencing closure would keep
    # ``tree`` -- the user's arrays -- alive until the next garbage collection)
    if p is None or isinstance(p, (int, np.integer)):
        n = 1 if _node_of(t)[0] is None else len(tree_flatten(t)[0])
        out.extend([None if p is None else int(p)] * n)
        return
    t_children = _children(t)
    p_children = _children(p)
    if t_children is None or p_children is None or type(p) is not type(t) or len(p_children[0]) != len(
            t_children[0]) or p_children[1] != t_children[1]:
        raise ValueError(f"vmap {what} specification {p!r} must be a tree prefix of the "
                         f"corresponding value, whose structure is {tree_flatten(t)[1]}")
    for pc, tc in zip(p_children[0], t_children[0]):
        _prefix_rec(pc, tc, what, out)


def _children(node: Any) -> tuple[list[Any], Any] | None:
    """(children, aux) of a container node, None for a leaf."""
    kind, entry = _node_of(node)
    if kind is None or entry is None:
        return None
    children, aux = entry[0](node)
    return list(children), aux


def _normalize_axis(ax: int, ndim: int, what: str) -> int:
    if not -ndim <= ax < ndim:
        raise ValueError(f"vmap: {what} axis {ax} is out of bounds for a value of rank {ndim}")
    return ax % ndim


def _move_axis(x: Any, src: int, dst: int) -> Any:
    if src == dst:
        return x
    perm = [i for i in range(x.ndim) if i != src]
    perm.insert(dst, src)
    return transpose(x, tuple(perm))


def _leaf_desc(i: int, path_hint: int | None) -> str:
    return f"argument {i}" + (f" (leaf {path_hint})" if path_hint is not None else "")


@decorator_factory
def vmap(fun: Callable[..., Any], in_axes: int | None | Sequence[Any] = 0,
         out_axes: Any = 0, axis_size: int | None = None,
         chunk_size: int | None = None) -> Callable[..., Any]:
    """Vectorize ``fun`` over a mapped axis of its arguments.

    ``fun`` is traced once with values that carry the batch axis; each primitive runs
    its batching rule (no Python loop over the examples).  Called with keyword options
    only (``vmap(in_axes=(0, None))``) it returns a decorator.

    Parameters
    ----------
    fun : callable
        Function of positional pytree arguments (keyword arguments are passed
        through unmapped).
    in_axes : int, None or sequence, default 0
        An int or None for all arguments, or a tuple/list with one entry per
        positional argument, each a pytree prefix of ints/None.  The mapped axis of each argument leaf (negative counts from the end); None
        leaves an argument unmapped.
    out_axes : int, None or pytree, default 0
        An int, None, or a pytree prefix of the output of ints/None.  Where the mapped axis goes in each output leaf; None requires that leaf not to
        depend on the mapped inputs.
    axis_size : int, optional
        The mapped size when no argument is mapped.
    chunk_size : int, optional
        Map at most this many examples at a time (bounding memory), concatenating the
        chunks' results.

    Returns
    -------
    callable
        The vectorized function; each output leaf has the mapped axis at ``out_axes``.

    Raises
    ------
    ValueError
        Mapped sizes that differ (the arguments and sizes are named), an axis beyond an
        argument's rank, a mapped non-array (e.g. a Python scalar or string), an
        ``in_axes`` that is not a prefix of the arguments, no mapped argument and no
        ``axis_size``, or a mapped output with ``out_axes=None``; a ``chunk_size`` that
        is not a positive int.
    NotImplementedError
        When a primitive ``fun`` applies has no batching rule (it is named).

    Notes
    -----
    Follows ``jax.vmap`` (https://docs.jax.dev/en/latest/_autosummary/jax.vmap.html)
    for ``in_axes``, ``out_axes`` and ``axis_size``; ``chunk_size`` is
    ``torch.func.vmap``'s.

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> ftrans.vmap(fnp.dot, in_axes=(0, None))(np.eye(2), np.array([3.0, 4.0]))
    array([3., 4.])
    >>> per_example = ftrans.vmap(ftrans.grad(lambda w, x: fnp.sum(fnp.tanh(x @ w))),
    ...                           in_axes=(None, 0))
    >>> per_example(np.zeros(3), np.ones((5, 3))).shape
    (5, 3)
    """
    if chunk_size is not None and (not isinstance(chunk_size, (int, np.integer))
                                   or chunk_size < 1):
        raise ValueError(f"vmap: chunk_size must be a positive int, got {chunk_size!r}")

    def vmapped(*args: Any, **kwargs: Any) -> Any:
        if isinstance(in_axes, (list, tuple)) and not isinstance(in_axes, PyTreeDef):
            if len(in_axes) != len(args):
                raise ValueError(
                    f"vmap in_axes must be an int, None, or a tuple with one entry per "
                    f"positional argument; got a {type(in_axes).__name__} of length "
                    f"{len(in_axes)} for {len(args)} argument(s)")
            per_arg: list[Any] = list(in_axes)
        elif in_axes is None or isinstance(in_axes, (int, np.integer)):
            per_arg = [in_axes] * len(args)
        else:
            raise ValueError(f"vmap in_axes must be an int, None or a tuple, got {in_axes!r}")
        leaves_per_arg: list[list[Any]] = []
        trees: list[PyTreeDef | None] = []
        axes_per_arg: list[list[int | None]] = []
        sizes: list[tuple[int, int | None, int, int]] = []
        for i, (a, ax) in enumerate(zip(args, per_arg)):
            leaves: list[Any]
            tree: PyTreeDef | None
            axes: list[Any]
            if _node_of(a)[0] is None and (ax is None or isinstance(ax, (int, np.integer))):
                leaves, tree, axes = [a], None, [ax]  # an array argument: no pytree work
            else:
                leaves, tree = tree_flatten(a)
                axes = _prefix_leaves(ax, a, "in_axes")
            norm: list[int | None] = []
            for j, (leaf, lax) in enumerate(zip(leaves, axes)):
                if lax is None:
                    norm.append(None)
                    continue
                if not (isinstance(leaf, Tracer) or hasattr(leaf, "shape")) or \
                        isinstance(leaf, (str, bytes)):
                    raise ValueError(
                        f"vmap was asked to map {_leaf_desc(i, j if len(leaves) > 1 else None)}"
                        f" along axis {lax}, but it is a {type(leaf).__name__}, not an array; "
                        "use in_axes=None for it")
                if isinstance(leaf, Tracer) and not leaf._trace.active:
                    raise _escaped(leaf)
                nd = len(leaf.shape)
                if nd == 0:
                    raise ValueError(
                        f"vmap was asked to map {_leaf_desc(i, j if len(leaves) > 1 else None)}"
                        f" along axis {lax}, but it is 0-dimensional; use in_axes=None for it")
                a_ = _normalize_axis(lax, nd, f"in_axes for {_leaf_desc(i, None)}")
                norm.append(a_)
                sizes.append((i, j if len(leaves) > 1 else None, a_, leaf.shape[a_]))
            leaves_per_arg.append(leaves)
            trees.append(tree)
            axes_per_arg.append(norm)
        distinct = {s[3] for s in sizes}
        if len(distinct) > 1:
            desc = "; ".join(f"{_leaf_desc(i, j)} has size {n} along axis {ax}"
                             for i, j, ax, n in sizes)
            raise ValueError(f"vmap got inconsistent sizes for the mapped axis: {desc}")
        if sizes:
            size = sizes[0][3]
            if axis_size is not None and axis_size != size:
                raise ValueError(f"vmap: axis_size={axis_size} but the mapped arguments have "
                                 f"size {size}")
        elif axis_size is None:
            raise ValueError("vmap needs at least one mapped argument (an in_axes entry "
                             "that is not None) or an explicit axis_size")
        else:
            size = int(axis_size)
        if chunk_size is not None and size > chunk_size:
            return _chunked(fun, leaves_per_arg, trees, axes_per_arg, kwargs, size)
        return _vmap_call(fun, leaves_per_arg, trees, axes_per_arg, kwargs, size)

    vmapped.__name__ = f"vmap({getattr(fun, '__name__', 'fun')})"
    vmapped.__wrapped__ = fun  # type: ignore[attr-defined]  # as functools.wraps

    def _vmap_call(fun: Callable[..., Any], leaves_per_arg: list[list[Any]],
                   trees: list[PyTreeDef | None], axes_per_arg: list[list[int | None]],
                   kwargs: dict[str, Any], size: int) -> Any:
        trace = BatchTrace(_ctx.trace, "vmap", size)
        new_args: list[Any] = []
        for leaves, tree, axes in zip(leaves_per_arg, trees, axes_per_arg):
            new = [l if ax is None else BatchTracer(trace, l, ax) for l, ax in zip(leaves, axes)]
            new_args.append(new[0] if tree is None else tree_unflatten(tree, new))
        try:
            with set_current_trace(trace):
                out = fun(*new_args, **kwargs)
        finally:
            trace.finish()
        out_leaves: list[Any]
        out_tree: PyTreeDef | None
        oaxes: list[Any]
        if _node_of(out)[0] is None and (out_axes is None
                                         or isinstance(out_axes, (int, np.integer))):
            out_leaves, out_tree, oaxes = [out], None, [out_axes]  # one array: no pytree work
        else:
            out_leaves, out_tree = tree_flatten(out)
            oaxes = _prefix_leaves(out_axes, out, "out_axes")
        res: list[Any] = []
        for o, oax in zip(out_leaves, oaxes):
            if isinstance(o, BatchTracer) and o._trace is trace:
                if oax is None:
                    raise ValueError("vmap: an output depends on the mapped inputs but its "
                                     "out_axes entry is None; give it an axis")
                dst = _normalize_axis(oax, o.val.ndim, "out_axes")
                res.append(as_output(_move_axis(o.val, o.bdim, dst)))
            else:
                if isinstance(o, Tracer) and not o._trace.active:
                    raise _escaped(o)
                if oax is None:
                    res.append(as_output(check_output_leaf(o)))  # arrays, not Python scalars
                    continue
                o = np.asarray(o) if not hasattr(o, "shape") else o
                dst = _normalize_axis(oax, len(o.shape) + 1, "out_axes")
                shape = tuple(o.shape[:dst]) + (size,) + tuple(o.shape[dst:])
                res.append(as_output(broadcast_to(expand_dims(o, (dst,)), shape)))
        return res[0] if out_tree is None else tree_unflatten(out_tree, res)

    def _chunked(fun: Callable[..., Any], leaves_per_arg: list[list[Any]],
                 trees: list[PyTreeDef | None], axes_per_arg: list[list[int | None]],
                 kwargs: dict[str, Any], size: int) -> Any:
        assert chunk_size is not None  # only called with a chunk size
        outs = []
        for start in range(0, size, chunk_size):
            stop = min(start + chunk_size, size)
            chunk_leaves: list[list[Any]] = []
            for leaves, axes in zip(leaves_per_arg, axes_per_arg):
                chunk_leaves.append([
                    l if ax is None else gather(l, (slice(None),) * ax + (slice(start, stop),))
                    for l, ax in zip(leaves, axes)])
            outs.append(_vmap_call(fun, chunk_leaves, trees, axes_per_arg, kwargs,
                                   stop - start))
        first_leaves, out_tree = tree_flatten(outs[0])
        oaxes = _prefix_leaves(out_axes, outs[0], "out_axes")
        merged: list[Any] = []
        for k, oax in enumerate(oaxes):
            parts = [tree_flatten(o)[0][k] for o in outs]
            if oax is None:
                merged.append(parts[0])
            else:
                dst = _normalize_axis(oax, len(parts[0].shape), "out_axes")
                merged.append(as_output(concatenate(parts, dst)))
        return tree_unflatten(out_tree, merged)

    return vmapped
