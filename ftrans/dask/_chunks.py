"""Per-chunk value and gradient of a sum over rows: ``ftrans.dask.value_and_grad`` and
``ftrans.dask.grad`` (one task per row block, tree reduction of the results)."""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from .. import tree_util as _tu
from ..transforms import value_and_grad as _value_and_grad
from ..transforms._util import normalize_argnums as _normalize_argnums
from ..tree_util import PyTreeDef
from ..typing import PyTree

__all__ = ["value_and_grad", "grad"]


def _sum_parts(*parts: tuple[Any, PyTree]) -> tuple[Any, PyTree]:
    """Sum ``(value, grad_pytree)`` pairs leaf by leaf (one node of the reduction)."""
    value, g = parts[0]
    for v, h in parts[1:]:
        value = value + v
        g = _tu.tree_map(lambda a, b: a + b, g, h)
    return value, g


def _chunk_value_and_grad(fun: Callable[..., Any], argnums: int | Sequence[int],
                          template: PyTreeDef, *leaves: Any) -> tuple[Any, PyTree]:
    """``ftrans.value_and_grad(fun, argnums)`` on one chunk's NumPy blocks."""
    args = _tu.tree_unflatten(template, list(leaves))
    value, g = _value_and_grad(fun, argnums)(*args)
    return value, g


_PARAMS = """fun : callable
        The loss, written with ``ftrans.numpy``; it is called on NumPy blocks.
    argnums : int or sequence of int, default 0
        Positional arguments to differentiate, as in :func:`ftrans.value_and_grad`.
        They must not be Dask arrays (they are the parameters, sent once to every
        worker).
    split_every : int, default 8
        Fan-in of the tree reduction of the per-chunk results (>= 2).
    compute : bool, default True
        ``True`` to compute and return NumPy results; ``False`` to return a
        ``dask.delayed.Delayed`` of the result."""


def value_and_grad(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, *,
                   split_every: int = 8, compute: bool = True) -> Callable[..., Any]:
    """Value and gradient of a sum over rows, evaluated chunk by chunk with Dask.

    ``fun(*args)`` must return a scalar that is the *sum over the rows* of the Dask
    array arguments: for row blocks ``b`` of every ``dask.array.Array`` argument
    (split along axis 0), ``fun(*args) == sum_b fun(*args_b)``.  Means are not sums:
    divide by the number of rows outside, or pass it in.

    Parameters
    ----------
    {params}

    Returns
    -------
    callable
        ``f(*args) -> (value, grad)``: ``value`` a 0-d NumPy array, ``grad`` shaped
        like the differentiated argument(s) (a tuple for a tuple ``argnums``).

    Raises
    ------
    TypeError
        When called: no Dask array argument, a Dask argument in ``argnums``, or Dask
        arguments with different numbers of rows.
    ValueError
        ``split_every < 2``.

    Notes
    -----
    Chunking: every Dask argument is rechunked (lazily) to one chunk along its other
    axes and to the row chunks of the first Dask argument, so block ``b`` of each
    argument holds the same rows.  One task per row block computes the block's value
    and gradient (``ftrans.value_and_grad`` on NumPy data, on the worker that holds
    the block); ``ceil(log_split_every(n_blocks))`` levels of tasks add them up.

    Examples
    --------
    >>> import numpy as np, dask.array as da, ftrans.numpy as fnp, ftrans.dask
    >>> X = da.ones((1000, 3), chunks=(250, 3))
    >>> loss = lambda w, X: fnp.sum((X @ w) ** 2)
    >>> v, g = ftrans.dask.value_and_grad(loss)(np.ones(3), X)
    >>> float(v), g.tolist()
    (9000.0, [6000.0, 6000.0, 6000.0])
    """
    if split_every < 2:
        raise ValueError(f"split_every must be at least 2, got {split_every}")

    @functools.wraps(fun)
    def vg(*args: Any) -> Any:
        import dask
        import dask.array as da
        nums, _ = _normalize_argnums(argnums, len(args), "ftrans.dask.value_and_grad")
        leaves, template = _tu.tree_flatten(args)
        pos = [i for i, l in enumerate(leaves) if isinstance(l, da.Array)]
        if not pos:
            raise TypeError("ftrans.dask.value_and_grad: no argument is a dask.array.Array; "
                            "use ftrans.value_and_grad for in-memory data")
        for i in nums:
            if any(isinstance(l, da.Array) for l in _tu.tree_flatten(args[i])[0]):
                raise TypeError(
                    f"ftrans.dask.value_and_grad: argument {i} is differentiated but holds "
                    "a Dask array; the differentiated arguments are the parameters (NumPy "
                    "arrays); the Dask arguments are the data the loss sums over")
        first = leaves[pos[0]]
        n = first.shape[0]
        rows = first.chunks[0]
        blocks: dict[int, Any] = {}
        for i in pos:
            a = leaves[i]
            if a.ndim == 0 or a.shape[0] != n:
                raise TypeError(
                    f"ftrans.dask.value_and_grad: the Dask arguments must have the same "
                    f"number of rows (axis 0); got shapes {first.shape} and {a.shape}")
            want = (rows,) + tuple((s,) for s in a.shape[1:])
            if a.chunks != want:
                a = a.rechunk(want)
            blocks[i] = a.to_delayed().reshape(-1)
        small = [dask.delayed(l) if i not in blocks and hasattr(l, "shape") else l
                 for i, l in enumerate(leaves)]
        task = dask.delayed(_chunk_value_and_grad, pure=True)
        parts = []
        for b in range(len(rows)):
            chunk_leaves = [blocks[i][b] if i in blocks else small[i]
                            for i in range(len(leaves))]
            parts.append(task(fun, argnums, template, *chunk_leaves))
        reduce = dask.delayed(_sum_parts, pure=True)
        while len(parts) > 1:
            parts = [reduce(*parts[k:k + split_every])
                     for k in range(0, len(parts), split_every)]
        out = parts[0]
        return out.compute() if compute else out

    return vg


value_and_grad.__doc__ = (value_and_grad.__doc__ or "").replace("{params}", _PARAMS)


def grad(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, *, split_every: int = 8,
         compute: bool = True) -> Callable[..., Any]:
    """The gradient of a sum over rows, chunk by chunk with Dask (see :func:`value_and_grad`).

    Parameters
    ----------
    {params}

    Returns
    -------
    callable
        ``f(*args) -> grad``, shaped like the differentiated argument(s).

    Raises
    ------
    TypeError
        As :func:`value_and_grad`.
    ValueError
        ``split_every < 2``.

    Examples
    --------
    >>> import numpy as np, dask.array as da, ftrans.numpy as fnp, ftrans.dask
    >>> X = da.ones((100, 2), chunks=(25, 2))
    >>> ftrans.dask.grad(lambda w, X: fnp.sum(X @ w))(np.zeros(2), X)
    array([100., 100.])
    """
    vg = value_and_grad(fun, argnums, split_every=split_every, compute=False)

    @functools.wraps(fun)
    def g(*args: Any) -> Any:
        import dask
        out = dask.delayed(lambda pair: pair[1], pure=True)(vg(*args))
        return out.compute() if compute else out

    return g


grad.__doc__ = (grad.__doc__ or "").replace("{params}", _PARAMS)
