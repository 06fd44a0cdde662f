"""Pytree utilities (``from ftrans.tree_util import tree_map`` works as in JAX).

See :mod:`ftrans.core.pytree` for the container types and the flattening order, and
``ftrans.core.pytree_keys`` for key paths.  The names and signatures are JAX's
``jax.tree_util`` (https://docs.jax.dev/en/latest/jax.tree_util.html); the shorter
``ftrans.tree`` namespace (``ftrans.tree.map``, ...) gives the same functions.

>>> from ftrans.tree_util import tree_map, tree_leaves_with_path, keystr
>>> tree_map(lambda x: 2 * x, {"w": 1.0, "b": [2.0, 3.0]})
{'b': [4.0, 6.0], 'w': 2.0}
>>> [keystr(p) for p, _ in tree_leaves_with_path({"w": 1.0, "b": [2.0, 3.0]})]
["['b'][0]", "['b'][1]", "['w']"]
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from .core.pytree import (tree_flatten, tree_unflatten, tree_map, tree_leaves,  # noqa: F401
                          tree_structure, register_pytree_node, PyTreeDef, _node_of)
from .core.pytree_keys import (SequenceKey, DictKey, GetAttrKey, FlattenedIndexKey,  # noqa: F401
                               keystr, tree_flatten_with_path, tree_leaves_with_path,
                               tree_map_with_path, register_pytree_with_keys,
                               register_pytree_node_class, register_dataclass)
from .typing import PyTree

__all__ = ["tree_flatten", "tree_unflatten", "tree_map", "tree_leaves", "tree_structure",
           "register_pytree_node", "PyTreeDef", "SequenceKey", "DictKey", "GetAttrKey",
           "FlattenedIndexKey", "keystr", "tree_flatten_with_path", "tree_leaves_with_path",
           "tree_map_with_path", "register_pytree_with_keys", "register_pytree_node_class",
           "register_dataclass", "Partial", "tree_transpose", "tree_reduce", "tree_all"]

_NO_INITIALIZER: Any = object()


def tree_reduce(function: Callable[[Any, Any], Any], tree: PyTree,
                initializer: Any = _NO_INITIALIZER,
                is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Reduce the leaves of ``tree`` with ``function`` (JAX's ``tree_reduce``).

    ``functools.reduce(function, tree_leaves(tree)[, initializer])``.

    Parameters
    ----------
    function : callable
        ``(accumulated, leaf) -> accumulated``.
    tree : PyTree
        The tree whose leaves are reduced, in flattening order.
    initializer : Any, optional
        The start value; without it the first leaf is.
    is_leaf : callable, optional
        ``x -> bool``; a subtree for which it returns True is taken as a leaf.

    Returns
    -------
    Any
        The reduced value.

    Raises
    ------
    TypeError
        If ``tree`` has no leaves and no ``initializer`` is given (``functools.reduce``'s
        error).

    Examples
    --------
    >>> tree_reduce(lambda a, b: a + b, {"a": 1, "b": (2, 3)})
    6
    """
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NO_INITIALIZER:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_all(tree: PyTree, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """Whether every leaf of ``tree`` is true (JAX's ``tree_all``).

    ``all(tree_leaves(tree))``.

    Parameters
    ----------
    tree : PyTree
        The tree.
    is_leaf : callable, optional
        ``x -> bool``; a subtree for which it returns True is taken as a leaf.

    Returns
    -------
    bool
        ``True`` when every leaf is truthy (also for a tree with no leaves).

    Examples
    --------
    >>> tree_all({"a": True, "b": [1, 2]}), tree_all([True, 0])
    (True, False)
    """
    return all(tree_leaves(tree, is_leaf))


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose: PyTree) -> PyTree:
    """Swap the outer and inner levels of a nested pytree (JAX's ``tree_transpose``).

    Turns a tree of structure ``outer`` whose subtrees have structure ``inner`` into a
    tree of structure ``inner`` whose subtrees have structure ``outer`` (e.g. a list of
    pairs into a pair of lists).

    Parameters
    ----------
    outer_treedef : PyTreeDef
        The outer structure.
    inner_treedef : PyTreeDef or None
        The inner structure; ``None`` takes the structure of the first outer subtree.
    pytree_to_transpose : PyTree
        Of structure ``outer_treedef`` composed with ``inner_treedef``.

    Returns
    -------
    PyTree
        Of structure ``inner_treedef`` composed with ``outer_treedef``.

    Raises
    ------
    ValueError
        If ``pytree_to_transpose`` does not have that structure.

    Examples
    --------
    >>> tree_transpose(tree_structure([0, 0]), tree_structure((0, 0, 0)),
    ...                [(1, 2, 3), (4, 5, 6)])
    ([1, 4], [2, 5], [3, 6])
    """
    subtrees = _flatten_up_to(outer_treedef, pytree_to_transpose)
    if inner_treedef is None:
        if not subtrees:
            raise ValueError("tree_transpose: cannot infer inner_treedef from a tree with no "
                             "outer leaves; pass it explicitly")
        inner_treedef = tree_structure(subtrees[0])
    rows = []
    for k, sub in enumerate(subtrees):
        leaves, td = tree_flatten(sub)
        if td != inner_treedef:
            raise ValueError(f"tree_transpose: the subtree at outer leaf {k} has structure "
                             f"{td}, expected the inner structure {inner_treedef}")
        rows.append(leaves)
    columns = [tree_unflatten(outer_treedef, [row[j] for row in rows])
               for j in range(inner_treedef.num_leaves)]
    return tree_unflatten(inner_treedef, columns)


def _flatten_up_to(treedef: PyTreeDef, tree: PyTree) -> list[PyTree]:
    """The subtrees of ``tree`` at the leaves of ``treedef`` (its prefix)."""
    out: list[PyTree] = []

    def rec(td: PyTreeDef, x: Any) -> None:
        if td.kind is None:
            out.append(x)
            return
        kind, entry = _node_of(x)
        children = list(entry[0](x)[0]) if kind is td.kind and entry is not None else None
        if children is None or len(children) != len(td.children):
            raise ValueError(f"tree_transpose: the tree does not have the outer structure "
                             f"{treedef} (at a {type(x).__name__} node)")
        for c_td, c in zip(td.children, children):
            rec(c_td, c)
    try:
        rec(treedef, tree)
        return out
    finally:
        del rec  # break the self-reference cycle


class Partial(functools.partial):
    """A ``functools.partial`` that is a pytree (JAX's ``tree_util.Partial``).

    Its bound arguments are children (so it can be passed through ``jit``, ``vmap`` and
    ``grad`` as an argument) and the wrapped function is static auxiliary data.

    Parameters
    ----------
    func : callable
        The function; a ``functools.partial`` is unwrapped and its bound arguments
        joined to these (they stay children, as in JAX).
    *args : Any
        Positional arguments bound first.
    **kwargs : Any
        Keyword arguments bound.

    Examples
    --------
    >>> add = Partial(lambda a, b: a + b, 1.0)
    >>> add(2.0), tree_leaves(add)
    (3.0, [1.0])
    """

    def __new__(cls, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Partial:
        # (as JAX: a Partial of a Partial would make the inner one's arguments static)
        if isinstance(func, functools.partial):
            original = func
            func = func.func
            args = original.args + args
            kwargs = {**original.keywords, **kwargs}
        return super().__new__(cls, func, *args, **kwargs)


def _partial_unflatten(func: Callable[..., Any], children: Iterable[Any]) -> Partial:
    args, kwargs = children
    return Partial(func, *args, **kwargs)


register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func), _partial_unflatten)
