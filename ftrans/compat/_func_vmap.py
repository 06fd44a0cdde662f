"""``compat.func.vmap``: ``torch.func.vmap`` on ``ftrans.vmap``.

``func`` runs once on batched traces; over inputs that require grad the batched pass is
one compat graph node whose backward is ``ftrans.vjp`` of it (:mod:`._func_core`).
Random draws from the default generator happen once per pass: ``randomness="error"``
raises when ``func`` draws, ``"same"`` gives every example the same numbers, and
``"different"`` -- when ``func`` did draw -- runs the pass again from the same generator
state as ``ftrans.vmap(..., chunk_size=1)``, one example per call, so that each example
draws its own numbers.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from .. import transforms as _TR
from ..core.pytree import tree_flatten, tree_unflatten
from . import _factories as F
from ._func_core import call_transformed, is_tensor
from ._tensor import _make_plain
from .types import Tensor

__all__ = ["vmap"]

_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please "
                 "either use the 'same' or 'different' randomness flags on vmap or perform "
                 "the randomness operation out of vmap")


def _broadcast_dims(in_dims: Any, args: Sequence[Any]) -> list[Any]:
    if isinstance(in_dims, int) or in_dims is None:
        return [in_dims] * len(args)
    if not isinstance(in_dims, tuple):
        raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to "
                         f"be int or a (potentially nested) tuple matching the structure of "
                         f"inputs, got: {type(in_dims)}.")
    if len(in_dims) != len(args):
        raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                         f"compatible with the structure of `inputs`. in_dims has structure "
                         f"{len(in_dims)} but inputs has structure {len(args)}.")
    return list(in_dims)


def _leaf_dims(dim: Any, arg: Any) -> tuple[list[Any], Any, list[Any]]:
    """Per-leaf in_dims of ``arg`` for an in_dim that is an int/None or a prefix tree."""
    leaves, td = tree_flatten(arg)
    if dim is None or isinstance(dim, int):
        return leaves, td, [dim] * len(leaves)
    dleaves, _ = tree_flatten(dim, is_leaf=lambda v: v is None)
    if len(dleaves) != len(leaves):
        raise ValueError(f"vmap: in_dims {dim} does not match the structure of the input")
    return leaves, td, dleaves


def _batch_size(split: Sequence[tuple[list[Any], Any, list[Any]]], in_dims: Any) -> int:
    """The common size of the mapped dimensions (torch.func's ``ValueError`` messages)."""
    sizes = []
    for leaves, _, ds in split:
        for x, d in zip(leaves, ds):
            if d is None:
                continue
            if not isinstance(d, int):
                raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): in_dims must "
                                 f"be int or None, got {d!r}")
            if not is_tensor(x):
                raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): Got in_dim="
                                 f"{d} for an input but the input is of type {type(x)}. "
                                 "We cannot vmap over non-Tensor arguments, please use "
                                 "None as the respective in_dim")
            if not -x.dim() <= d < x.dim():
                raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): Got in_dim="
                                 f"{d} for some input, but that input is a Tensor of "
                                 f"dimensionality {x.dim()} so expected in_dim to satisfy "
                                 f"-{x.dim()} <= in_dim < {x.dim()}.")
            sizes.append(x.shape[d])
    if not sizes:
        raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): Got all in_dims=None "
                         "which means there is no input to vmap over. Please specify "
                         "at least one in_dim that is not None.")
    if len(set(sizes)) != 1:
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0]


def vmap(func: Callable[..., Any], in_dims: int | tuple[Any, ...] | None = 0,
         out_dims: int | tuple[Any, ...] | None = 0, randomness: str = "error", *,
         chunk_size: int | None = None) -> Callable[..., Any]:
    """Map ``func`` over a dimension of its inputs (``torch.func.vmap``).

    ``func`` runs once on batched traces (``ftrans.vmap``); over inputs that require grad
    the results are differentiable (one compat node whose backward is ``ftrans.vjp``).
    Operations without a value per example raise torch.func's ``RuntimeError``
    (``.item()``, control flow on a batched value, boolean-mask indexing:
    :mod:`._tracer_values`).

    Parameters
    ----------
    func : callable
        Takes the examples' arguments; must return Tensors (a pytree of them).
    in_dims : int, None or tuple, optional
        The mapped dimension of each input: an int (negative allowed), None (not mapped)
        or a pytree of them matching the inputs.
    out_dims : int, None or tuple, optional
        Where the batch dimension goes in each output (None: not batched), or a pytree
        of them matching the outputs.
    randomness : {"error", "same", "different"}, optional
        "error": ``RuntimeError`` if ``func`` draws from the default generator; "same":
        every example gets the same numbers; "different": each its own (see the module
        docstring).
    chunk_size : int, optional
        Examples per batched pass (all at once by default).

    Returns
    -------
    callable
        The batched function; its outputs have the batch dimension at ``out_dims``.
        Calling it raises ``ValueError`` when the mapped inputs' sizes differ, an
        ``in_dims`` does not fit its input, or ``func`` returns a non-Tensor.

    Raises
    ------
    RuntimeError
        For another ``randomness``.
    ValueError
        For a ``chunk_size`` that is not a positive int.

    Examples
    --------
    >>> import ftrans.compat as torch
    >>> from ftrans.compat.func import vmap
    >>> vmap(torch.dot)(torch.ones(3, 2), torch.ones(3, 2))
    tensor([2., 2., 2.])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got "
                         f"{chunk_size})")

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        dims = _broadcast_dims(in_dims, args)
        split = [_leaf_dims(d, a) for d, a in zip(dims, args)]
        if _batch_size(split, in_dims) == 0:
            return _empty_batch(func, split, kwargs, out_dims)
        gen = F.default_generator
        before = gen.get_state()
        out = _batched(func, split, kwargs, out_dims, chunk_size)
        if _advanced(gen, before):
            if randomness == "error":
                raise RuntimeError(_RANDOM_ERROR)
            if randomness == "different":
                gen.set_state(before)
                out = _batched(func, split, kwargs, out_dims, 1)
        return out
    return wrapper


def _advanced(gen: Any, before: Tensor) -> bool:
    return not bool((gen.get_state() == before).all())


def _batched(func: Callable[..., Any], split: Sequence[tuple[list[Any], Any, list[Any]]],
             kwargs: dict[str, Any], out_dims: Any, chunk_size: int | None) -> Any:
    """``func`` once on batched traces (``ftrans.vmap``) through ``call_transformed``."""
    args = tuple(tree_unflatten(td, leaves) for leaves, td, _ in split)
    axes = [d for leaves, _, ds in split for x, d in zip(leaves, ds) if is_tensor(x)]
    if isinstance(out_dims, tuple):
        oax = list(tree_flatten(out_dims, is_leaf=lambda v: v is None)[0])
    else:
        oax = out_dims
    out_def: list[Any] = []

    def body(plain: Any) -> Any:
        plain_args, kw = plain
        leaves_all = [tree_flatten(a)[0] for a in plain_args]
        defs = [td for _, td, _ in split]
        datas = [x._data for leaves in leaves_all for x in leaves if is_tensor(x)]

        def f(ds_: Sequence[Any]) -> list[Any]:
            it = iter(ds_)
            ex_args = [tree_unflatten(td, [_make_plain(next(it)) if is_tensor(x) else x
                                           for x in leaves])
                       for leaves, td in zip(leaves_all, defs)]
            r = func(*ex_args, **kw)
            leaves, td = tree_flatten(r)
            for x in leaves:
                if not is_tensor(x):
                    raise ValueError(f"vmap(f, ...): `f` must only return Tensors, got type "
                                     f"{type(x)}. Did you mean to set out_dims= to None for "
                                     "output?")
            if isinstance(oax, list) and len(oax) != len(leaves):
                raise ValueError(f"vmap(f, ..., out_dims={out_dims})(<inputs>): out_dims is "
                                 "not compatible with the structure of `outputs`.")
            out_def.append(td)
            return [x._data for x in leaves]
        return _TR.vmap(f, in_axes=(axes,), out_axes=oax, chunk_size=chunk_size)(datas)

    outs = call_transformed((args, kwargs), body)
    return tree_unflatten(out_def[-1], list(outs))


def _empty_batch(func: Callable[..., Any], split: Sequence[tuple[list[Any], Any, list[Any]]],
                 kwargs: dict[str, Any], out_dims: Any) -> Any:
    """vmap over a batch of size 0: ``func`` runs once on zero-filled examples to learn
    its outputs' shapes and dtypes; the results are empty along the mapped dimension."""
    ex_args = []
    for leaves, td, ds in split:
        ex = []
        for x, d in zip(leaves, ds):
            if d is None:
                ex.append(x)
            else:
                shape = list(x.shape)
                del shape[d % x.dim()]
                ex.append(F.zeros(shape, dtype=x.dtype))
        ex_args.append(tree_unflatten(td, ex))
    r = func(*ex_args, **kwargs)
    leaves, td = tree_flatten(r)
    od = (tree_flatten(out_dims, is_leaf=lambda v: v is None)[0]
          if isinstance(out_dims, tuple) else [out_dims] * len(leaves))
    out = []
    for x, d in zip(leaves, od):
        if not is_tensor(x):
            raise ValueError(f"vmap(f, ...): `f` must only return Tensors, got type {type(x)}")
        if d is None:
            out.append(x)
        else:
            e = F.zeros((0,) + tuple(x.shape), dtype=x.dtype)
            out.append(e.movedim(0, d % (x.dim() + 1)))
    return tree_unflatten(td, out)
