"""Pytrees: nested containers of arrays (JAX's convention).

Containers are tuples, lists, dicts (flattened in sorted-key order), ``None``
(a node with no children), namedtuples, and any class registered with
:func:`register_pytree_node`.  Everything else is a *leaf*.
"""
from __future__ import annotations

import numpy as np

__all__ = ["tree_flatten", "tree_unflatten", "tree_map", "tree_leaves", "tree_structure",
           "register_pytree_node", "PyTreeDef"]

# type -> (flatten(node) -> (children, aux), unflatten(aux, children) -> node)
_registry: dict = {}


def register_pytree_node(nodetype, flatten_func, unflatten_func):
    """Make ``nodetype`` a container.

    Parameters
    ----------
    nodetype : type
    flatten_func : callable
        ``node -> (children, aux_data)``; children is an iterable of subtrees and
        aux_data any hashable, comparable static data.
    unflatten_func : callable
        ``(aux_data, children) -> node``.

    Raises
    ------
    ValueError
        If ``nodetype`` is already registered.
    """
    if nodetype in _registry:
        raise ValueError(f"{nodetype!r} is already registered as a pytree node")
    _registry[nodetype] = (flatten_func, unflatten_func)


register_pytree_node(tuple, lambda t: (t, None), lambda _, c: tuple(c))
register_pytree_node(list, lambda t: (t, None), lambda _, c: list(c))
register_pytree_node(type(None), lambda t: ((), None), lambda _, c: None)


def _dict_flatten(d):
    keys = sorted(d)
    return [d[k] for k in keys], tuple(keys)


register_pytree_node(dict, _dict_flatten, lambda keys, c: dict(zip(keys, c)))


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


class PyTreeDef:
    """The structure of a pytree: node type, static data and child structures."""

    __slots__ = ("kind", "aux", "children", "num_leaves")

    def __init__(self, kind, aux, children):
        self.kind = kind          # None for a leaf, else the container type
        self.aux = aux
        self.children = children
        self.num_leaves = 1 if kind is None else sum(c.num_leaves for c in children)

    def __eq__(self, other):
        return (isinstance(other, PyTreeDef) and self.kind is other.kind
                and _aux_equal(self.aux, other.aux) and self.children == other.children)

    def __hash__(self):
        return hash((self.kind, _aux_hash(self.aux), tuple(self.children)))

    def unflatten(self, leaves):
        """The pytree of this structure with ``leaves`` (JAX's ``treedef.unflatten``)."""
        return tree_unflatten(self, leaves)

    def __repr__(self):
        if self.kind is None:
            return "*"
        inner = ", ".join(map(repr, self.children))
        name = self.kind.__name__
        return f"{name}({inner})" if self.aux is None else f"{name}[{self.aux}]({inner})"


def _canonical(x):
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


def _aux_hash(aux):
    try:
        return hash(aux)
    except TypeError:
        return hash(_canonical(aux))


def _aux_equal(a, b):
    """Equality of auxiliary data; where ``==`` gives no single truth value (a dict of
    arrays), their canonical forms are compared."""
    if a is b:
        return True
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return type(a) is type(b) and _canonical(a) == _canonical(b)


_LEAF = PyTreeDef(None, None, ())


def _node_of(x):
    t = type(x)
    entry = _registry.get(t)
    if entry is not None:
        return t, entry
    if _is_namedtuple(x):
        return t, (lambda n: (tuple(n), None), lambda _, c, t=t: t(*c))
    return None, None


def tree_flatten(tree, is_leaf=None):
    """Flatten a pytree.

    Returns
    -------
    (leaves, treedef) : (list, PyTreeDef)
    """
    leaves = []

    def rec(x):
        if is_leaf is not None and is_leaf(x):
            leaves.append(x)
            return _LEAF
        kind, entry = _node_of(x)
        if kind is None:
            leaves.append(x)
            return _LEAF
        children, aux = entry[0](x)
        return PyTreeDef(kind, aux, tuple(rec(c) for c in children))

    try:
        return leaves, rec(tree)
    finally:
        del rec  # the closure refers to itself: break the cycle so leaves are freed at once


def tree_unflatten(treedef: PyTreeDef, leaves):
    """Inverse of :func:`tree_flatten`.

    Raises
    ------
    ValueError
        If the number of leaves does not match ``treedef``.
    """
    leaves = list(leaves)
    if len(leaves) != treedef.num_leaves:
        raise ValueError(f"tree_unflatten: the structure {treedef} has {treedef.num_leaves} "
                         f"leaves, but {len(leaves)} were given")
    it = iter(leaves)

    def rec(td):
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


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(f, tree, *rest, is_leaf=None):
    """Apply ``f`` leaf-wise to ``tree`` and trees of the same structure in ``rest``.

    Raises
    ------
    ValueError
        If a tree in ``rest`` has a different structure (both are named).
    """
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = _leaves_like(treedef, rest, is_leaf, "tree_map")
    return tree_unflatten(treedef, [f(*xs) for xs in zip(leaves, *others)])


def _leaves_like(treedef, trees, is_leaf, name):
    """The leaves of each of ``trees``, which must have the structure ``treedef``."""
    out = []
    for r in trees:
        rl, rd = tree_flatten(r, is_leaf)
        if rd != treedef:
            raise ValueError(f"{name}: tree structures differ: {treedef} vs {rd}")
        out.append(rl)
    return out




