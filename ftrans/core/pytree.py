"""Pytrees: nested containers of arrays (JAX's convention).

Containers are tuples, lists, dicts (flattened in sorted-key order), ``None``
(a node with no children), namedtuples, and any class registered with
:func:`register_pytree_node`.  Everything else is a *leaf*.
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any

import numpy as np

from ..typing import PyTree

__all__ = ["tree_flatten", "tree_unflatten", "tree_map", "tree_leaves", "tree_structure",
           "register_pytree_node", "PyTreeDef"]

#: ``node -> (children, aux_data)``
FlattenFunc = Callable[[Any], tuple[Iterable[Any], Any]]
#: ``(aux_data, children) -> node``
UnflattenFunc = Callable[[Any, Iterable[Any]], Any]

# type -> (flatten(node) -> (children, aux), unflatten(aux, children) -> node)
_registry: dict[type, tuple[FlattenFunc, UnflattenFunc]] = {}


def register_pytree_node(nodetype: type[Any], flatten_func: FlattenFunc,
                         unflatten_func: UnflattenFunc) -> None:
    """Make ``nodetype`` a container (``jax.tree_util.register_pytree_node``).

    Parameters
    ----------
    nodetype : type
        The container type to register.
    flatten_func : callable
        ``node -> (children, aux_data)``; children is an iterable of subtrees and
        aux_data any hashable, comparable static data.
    unflatten_func : callable
        ``(aux_data, children) -> node``.

    Raises
    ------
    ValueError
        If ``nodetype`` is already registered.

    Notes
    -----
    Follows ``jax.tree_util.register_pytree_node``; auxiliary data that is not
    hashable (a dict) is compared by its contents.

    Examples
    --------
    >>> from ftrans.tree_util import register_pytree_node, tree_leaves
    >>> class Pair:
    ...     def __init__(self, a, b):
    ...         self.a, self.b = a, b
    >>> register_pytree_node(Pair, lambda p: ((p.a, p.b), None),
    ...                      lambda _, c: Pair(*c))
    >>> tree_leaves(Pair(1, [2, 3]))
    [1, 2, 3]
    """
    if nodetype in _registry:
        raise ValueError(f"{nodetype!r} is already registered as a pytree node")
    _registry[nodetype] = (flatten_func, unflatten_func)


register_pytree_node(tuple, lambda t: (t, None), lambda _, c: tuple(c))
register_pytree_node(list, lambda t: (t, None), lambda _, c: list(c))
register_pytree_node(type(None), lambda t: ((), None), lambda _, c: None)


def _dict_flatten(d: dict[Any, Any]) -> tuple[list[Any], tuple[Any, ...]]:
    keys = sorted(d)
    return [d[k] for k in keys], tuple(keys)


register_pytree_node(dict, _dict_flatten, lambda keys, c: dict(zip(keys, c)))


def _is_namedtuple(x: object) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


class PyTreeDef:
    """The structure of a pytree: node type, static data and child structures.

    Made by :func:`tree_flatten` (JAX's ``PyTreeDef``); equal structures compare and
    hash equal.

    Parameters
    ----------
    kind : type or None
        The container type of the root; ``None`` for a leaf.
    aux : Any
        The root's static (auxiliary) data, as its flatten function returned it.
    children : tuple of PyTreeDef
        The structures of the root's children.
    """

    __slots__ = ("kind", "aux", "children", "num_leaves")

    def __init__(self, kind: type[Any] | None, aux: Any,
                 children: tuple[PyTreeDef, ...]) -> None:
        self.kind = kind          # None for a leaf, else the container type
        self.aux = aux
        self.children = children
        self.num_leaves: int = 1 if kind is None else sum(c.num_leaves for c in children)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, PyTreeDef) and self.kind is other.kind
                and _aux_equal(self.aux, other.aux) and self.children == other.children)

    def __hash__(self) -> int:
        return hash((self.kind, _aux_hash(self.aux), tuple(self.children)))

    def unflatten(self, leaves: Iterable[Any]) -> PyTree:
        """The pytree of this structure with ``leaves`` (JAX's ``treedef.unflatten``).

        Parameters
        ----------
        leaves : iterable
            ``num_leaves`` leaves, in the order :func:`tree_flatten` gives them.

        Returns
        -------
        PyTree
            The tree.

        Raises
        ------
        ValueError
            If the number of leaves does not match.
        """
        return tree_unflatten(self, leaves)

    def __repr__(self) -> str:
        if self.kind is None:
            return "*"
        inner = ", ".join(map(repr, self.children))
        name = self.kind.__name__
        return f"{name}({inner})" if self.aux is None else f"{name}[{self.aux}]({inner})"


def _canonical(x: Any) -> Hashable:
    """A hashable stand-in for auxiliary data that is not hashable (JAX lets a registered
    class keep a dict there): dicts, lists and sets by their items (a dict's order-free),
    arrays by shape, dtype and bytes; another unhashable object by its type only (the
    hash must agree with equality, which :func:`_aux_equal` then decides)."""
    if isinstance(x, dict):
        return ("dict", frozenset((_canonical(k), _canonical(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(_canonical(v) for v in x))
    if isinstance(x, (set, frozenset)):
        return frozenset(_canonical(v) for v in x)
    if isinstance(x, np.ndarray):
        return ("ndarray", x.shape, x.dtype.str, x.tobytes())
    try:
        hash(x)
    except TypeError:
        return ("unhashable", type(x).__qualname__)
    return x


def _aux_hash(aux: Any) -> int:
    try:
        return hash(aux)
    except TypeError:
        return hash(_canonical(aux))


def _aux_equal(a: Any, b: Any) -> bool:
    """Equality of auxiliary data; where ``==`` gives no single truth value (a dict of
    arrays), their canonical forms are compared."""
    if a is b:
        return True
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return type(a) is type(b) and _canonical(a) == _canonical(b)


_LEAF = PyTreeDef(None, None, ())


def _node_of(x: Any
             ) -> tuple[type[Any], tuple[FlattenFunc, UnflattenFunc]] | tuple[None, None]:
    t = type(x)
    entry = _registry.get(t)
    if entry is not None:
        return t, entry
    if _is_namedtuple(x):
        return t, (lambda n: (tuple(n), None), lambda _, c, t=t: t(*c))
    return None, None


def tree_flatten(tree: PyTree, is_leaf: Callable[[Any], bool] | None = None
                 ) -> tuple[list[Any], PyTreeDef]:
    """Flatten a pytree into its leaves and its structure (``jax.tree_util.tree_flatten``).

    Parameters
    ----------
    tree : PyTree
        Nested tuples, lists, dicts (in sorted-key order), ``None``, namedtuples and
        registered containers; everything else is a leaf.
    is_leaf : callable, optional
        ``x -> bool``; a subtree for which it returns True is taken as a leaf.

    Returns
    -------
    leaves : list
        The leaves, depth first, left to right.
    treedef : PyTreeDef
        The structure, for :func:`tree_unflatten`.

    Notes
    -----
    ``None`` is a node with no children (no leaf), as in JAX.

    Examples
    --------
    >>> from ftrans.tree_util import tree_flatten
    >>> leaves, treedef = tree_flatten({"b": (1, 2), "a": [3, None]})
    >>> leaves
    [3, 1, 2]
    >>> treedef
    dict[('a', 'b')](list(*, NoneType()), tuple(*, *))
    """
    leaves: list[Any] = []

    def rec(x: Any) -> PyTreeDef:
        if is_leaf is not None and is_leaf(x):
            leaves.append(x)
            return _LEAF
        kind, entry = _node_of(x)
        if kind is None or entry is None:
            leaves.append(x)
            return _LEAF
        children, aux = entry[0](x)
        return PyTreeDef(kind, aux, tuple(rec(c) for c in children))

    try:
        return leaves, rec(tree)
    finally:
        del rec  # the closure refers to itself: break the cycle so leaves are freed at once


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> PyTree:
    """Build the pytree of structure ``treedef`` from ``leaves``.

    The inverse of :func:`tree_flatten` (``jax.tree_util.tree_unflatten``).

    Parameters
    ----------
    treedef : PyTreeDef
        The structure, as :func:`tree_flatten` returned it.
    leaves : iterable
        ``treedef.num_leaves`` leaves, in flattening order.

    Returns
    -------
    PyTree
        The tree; containers are rebuilt with their registered unflatten functions.

    Raises
    ------
    ValueError
        If the number of leaves does not match ``treedef``.

    Examples
    --------
    >>> from ftrans.tree_util import tree_flatten, tree_unflatten
    >>> leaves, treedef = tree_flatten({"a": 1, "b": (2, 3)})
    >>> tree_unflatten(treedef, [x * 10 for x in leaves])
    {'a': 10, 'b': (20, 30)}
    """
    leaves = list(leaves)
    if len(leaves) != treedef.num_leaves:
        raise ValueError(f"tree_unflatten: the structure {treedef} has {treedef.num_leaves} "
                         f"leaves, but {len(leaves)} were given")
    it = iter(leaves)

    def rec(td: PyTreeDef) -> Any:
        if td.kind is None:
            return next(it)
        children = [rec(c) for c in td.children]
        kind = td.kind
        entry = _registry.get(kind)
        if entry is None:  # namedtuple
            return kind(*children)
        return entry[1](td.aux, children)

    try:
        return rec(treedef)
    finally:
        del rec  # break the self-reference cycle (see tree_flatten)


def tree_leaves(tree: PyTree, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    """The leaves of a pytree (``jax.tree_util.tree_leaves``).

    Parameters
    ----------
    tree : PyTree
        The tree.
    is_leaf : callable, optional
        ``x -> bool``; a subtree for which it returns True is taken as a leaf.

    Returns
    -------
    list
        The leaves in :func:`tree_flatten`'s order.
    """
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: PyTree, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """The structure of a pytree (``jax.tree_util.tree_structure``).

    Parameters
    ----------
    tree : PyTree
        The tree.
    is_leaf : callable, optional
        ``x -> bool``; a subtree for which it returns True is taken as a leaf.

    Returns
    -------
    PyTreeDef
        The structure, as :func:`tree_flatten` returns it.
    """
    return tree_flatten(tree, is_leaf)[1]


def tree_map(f: Callable[..., Any], tree: PyTree, *rest: PyTree,
             is_leaf: Callable[[Any], bool] | None = None) -> PyTree:
    """Apply ``f`` leaf-wise to ``tree`` and trees of the same structure in ``rest``.

    Parameters
    ----------
    f : callable
        Called as ``f(leaf, *leaves_of_rest)`` for each leaf of ``tree``.
    tree : PyTree
        The tree whose structure the result has.
    *rest : PyTree
        Further trees of the same structure as ``tree``.
    is_leaf : callable, optional
        ``x -> bool``; a subtree for which it returns True is taken as a leaf.

    Returns
    -------
    PyTree
        A tree of ``tree``'s structure holding ``f``'s results.

    Raises
    ------
    ValueError
        If a tree in ``rest`` has a different structure (both are named).

    Notes
    -----
    As ``jax.tree_util.tree_map``, except that the trees in ``rest`` must have exactly
    ``tree``'s structure (JAX allows them a structure with ``tree`` as a prefix).

    Examples
    --------
    >>> from ftrans.tree_util import tree_map
    >>> tree_map(lambda x, y: x + y, {"a": 1, "b": (2, 3)}, {"a": 10, "b": (20, 30)})
    {'a': 11, 'b': (22, 33)}
    """
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = _leaves_like(treedef, rest, is_leaf, "tree_map")
    return tree_unflatten(treedef, [f(*xs) for xs in zip(leaves, *others)])


def _leaves_like(treedef: PyTreeDef, trees: Iterable[PyTree],
                 is_leaf: Callable[[Any], bool] | None, name: str) -> list[list[Any]]:
    """The leaves of each of ``trees``, which must have the structure ``treedef``."""
    out = []
    for r in trees:
        rl, rd = tree_flatten(r, is_leaf)
        if rd != treedef:
            raise ValueError(f"{name}: tree structures differ: {treedef} vs {rd}")
        out.append(rl)
    return out
