"""``associative_scan``: an inclusive prefix scan with an associative operator in
logarithmic depth (JAX's ``jax.lax.associative_scan``).

A composition of slicing, concatenation and reshapes (no primitive of its own), so
``jit``, ``vmap`` and every derivative come from those parts.  The recursion is the
classic parallel prefix (Blelloch, "Prefix sums and their applications", CMU-CS-90-190,
1990; the odd/even formulation of Ladner and Fischer, 1980): combine neighbouring
pairs, scan the half-length sequence of pair results (which gives the prefixes ending at
the odd positions), then combine those with the following even elements, and interleave
the two.  ``fn`` is called ``O(log n)`` times on whole slices, so it must be vectorized
along the scanned axis (as in JAX); it need not be commutative.
"""
from __future__ import annotations

import operator
from collections.abc import Callable, Sequence

from ..core.pytree import tree_flatten, tree_unflatten
from .. import primitives as P
from ..typing import Array, PyTree
from ._ops import _arr

__all__ = ["associative_scan"]


def _slice(x: Array, axis: int, start: int | None, stop: int | None, step: int | None = None
           ) -> Array:
    if start in (0, None) and stop in (None, x.shape[axis]) and step in (None, 1):
        return x  # the whole axis: no equation
    return P.gather(x, (slice(None),) * axis + (slice(start, stop, step),))


def _interleave(a: Array, b: Array, axis: int) -> Array:
    """``a[0], b[0], a[1], b[1] ...`` along ``axis`` (``len(a)`` is ``len(b)`` or one more)."""
    nb = b.shape[axis]
    pairs = P.concatenate([P.expand_dims(_slice(a, axis, 0, nb), (axis + 1,)),
                           P.expand_dims(b, (axis + 1,))], axis + 1)
    shape = tuple(a.shape)
    out = P.reshape(pairs, shape[:axis] + (2 * nb,) + shape[axis + 1:])
    if a.shape[axis] > nb:
        out = P.concatenate([out, _slice(a, axis, nb, None)], axis)
    return out


def associative_scan(fn: Callable[[PyTree, PyTree], PyTree], elems: PyTree,
                     reverse: bool = False, axis: int = 0) -> PyTree:
    """The inclusive scan of ``elems`` along ``axis`` with the associative ``fn``.

    Parameters
    ----------
    fn : callable
        ``fn(a, b) -> c``: an associative binary operator on pytrees with the
        structure of ``elems`` (``fn(fn(a, b), c) == fn(a, fn(b, c))``), vectorized: it
        is applied to whole slices along ``axis`` at once.
    elems : PyTree
        Arrays of equal length along ``axis``.
    reverse : bool, default False
        Scan from the end: ``result[i] = fn(... fn(elems[n-1], elems[n-2]) ...,
        elems[i])`` (the scan of the flipped sequence, flipped back: JAX's convention).
    axis : int, default 0
        The scanned axis.

    Returns
    -------
    PyTree
        ``elems``'s structure; ``result[i] = fn(... fn(elems[0], elems[1]) ..., elems[i])``
        along ``axis`` (for ``fn = add``: ``cumsum``).

    Raises
    ------
    ValueError
        If ``elems`` has no leaves, the leaves differ in length along ``axis``, or
        ``axis`` is out of range.
    TypeError
        If ``fn`` is not callable or returns another structure or shapes.

    Notes
    -----
    ``jax.lax.associative_scan``
    (https://docs.jax.dev/en/latest/_autosummary/jax.lax.associative_scan.html);
    algorithm: Blelloch (1990), "Prefix sums and their applications".  ``fn`` is
    applied ``O(log n)`` times; the work is ``O(n)`` applications of it elementwise.

    Examples
    --------
    >>> import numpy as np, ftrans.numpy as fnp
    >>> from ftrans import lax
    >>> lax.associative_scan(fnp.add, np.arange(1.0, 6.0))
    array([ 1.,  3.,  6., 10., 15.])
    """
    if not callable(fn):
        raise TypeError(f"lax.associative_scan: fn must be callable, got {type(fn).__name__}")
    leaves, tree = tree_flatten(elems)
    if not leaves:
        raise ValueError("lax.associative_scan: elems must contain at least one array")
    leaves = [_arr(x, "associative_scan") for x in leaves]
    ndim = len(leaves[0].shape)
    ax = operator.index(axis)
    if not -ndim <= ax < ndim:
        raise ValueError(f"lax.associative_scan: axis {axis} is out of bounds for arrays of "
                         f"rank {ndim}")
    ax %= ndim
    lengths = {int(x.shape[ax]) if ax < len(x.shape) else -1 for x in leaves}
    if len(lengths) != 1 or -1 in lengths:
        raise ValueError(f"lax.associative_scan: every array in elems must have the same "
                         f"length along axis {axis}; got shapes "
                         f"{[tuple(x.shape) for x in leaves]}")

    def combine(a: Sequence[Array], b: Sequence[Array]) -> list[Array]:
        out = fn(tree_unflatten(tree, list(a)), tree_unflatten(tree, list(b)))
        c, ctree = tree_flatten(out)
        if ctree != tree:
            raise TypeError(f"lax.associative_scan: fn must return the structure of elems "
                            f"({tree}), got {ctree}")
        for ci, ai in zip(c, a):
            if tuple(getattr(ci, "shape", ())) != tuple(ai.shape):
                raise TypeError(f"lax.associative_scan: fn must return arrays of its "
                                f"arguments' shapes (it is applied to whole slices), got "
                                f"{tuple(getattr(ci, 'shape', ()))} for {tuple(ai.shape)}")
        return c

    def scan(xs: list[Array]) -> list[Array]:
        n = xs[0].shape[ax]
        if n < 2:
            return xs
        # pairs (x0 . x1), (x2 . x3) ...; their scan gives the prefixes ending at 1, 3 ...
        odd = scan(combine([_slice(x, ax, 0, n - 1, 2) for x in xs],
                           [_slice(x, ax, 1, None, 2) for x in xs]))
        # prefixes ending at 2, 4 ...: the prefix ending just before, combined with x[2k]
        m = (n - 1) // 2  # how many even positions after 0
        even = combine([_slice(o, ax, 0, m) for o in odd],
                       [_slice(x, ax, 2, None, 2) for x in xs]) if m else []
        out = []
        for k, x in enumerate(xs):
            e = _slice(x, ax, 0, 1)
            if m:
                e = P.concatenate([e, even[k]], ax)
            out.append(_interleave(e, odd[k], ax))
        return out

    if reverse:
        leaves = [_slice(x, ax, None, None, -1) for x in leaves]
    res = scan(leaves)
    if reverse:
        res = [_slice(x, ax, None, None, -1) for x in res]
    return tree_unflatten(tree, res)
