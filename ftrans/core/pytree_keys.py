"""Key paths into pytrees (JAX's ``jax.tree_util`` key-path API).

A *key path* is the tuple of key entries that leads from the root of a pytree to one of
its leaves: :class:`SequenceKey` for the items of tuples and lists, :class:`DictKey` for a
dict's entries (in sorted-key order, the flattening order), :class:`GetAttrKey` for
namedtuple fields and the fields of classes registered with :func:`register_dataclass`,
and :class:`FlattenedIndexKey` for the children of a class registered without keys
(``register_pytree_node``).  Classes registered with
:func:`register_pytree_with_keys` name their children themselves.  The entries, their
``str``/``repr`` and :func:`keystr` print as JAX's do.
"""
from __future__ import annotations

import dataclasses

from .pytree import (PyTreeDef, _LEAF, _leaves_like, _node_of, _registry, register_pytree_node,
                     tree_unflatten)

__all__ = ["SequenceKey", "DictKey", "GetAttrKey", "FlattenedIndexKey", "keystr",
           "tree_flatten_with_path", "tree_leaves_with_path", "tree_map_with_path",
           "register_pytree_with_keys", "register_pytree_node_class", "register_dataclass"]


class _KeyEntry:
    __slots__ = ()
    _field = ""

    def __init__(self, value):
        object.__setattr__(self, self._field, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _value(self):
        return getattr(self, self._field)

    def __eq__(self, other):
        return type(other) is type(self) and self._value() == other._value()

    def __hash__(self):
        return hash((type(self).__name__, self._value()))

    def __repr__(self):
        return f"{type(self).__name__}({self._field}={self._value()!r})"


class SequenceKey(_KeyEntry):
    """The position ``idx`` of an item of a tuple or list; prints as ``[idx]``."""

    __slots__ = ("idx",)
    _field = "idx"

    def __str__(self):
        return f"[{self.idx!r}]"


class DictKey(_KeyEntry):
    """The key ``key`` of a dict entry; prints as ``['key']`` (the key's ``repr``)."""

    __slots__ = ("key",)
    _field = "key"

    def __str__(self):
        return f"[{self.key!r}]"


class GetAttrKey(_KeyEntry):
    """The attribute ``name`` (a namedtuple or dataclass field); prints as ``.name``."""

    __slots__ = ("name",)
    _field = "name"

    def __str__(self):
        return f".{self.name}"


class FlattenedIndexKey(_KeyEntry):
    """The position ``key`` of a child of a class registered without keys; prints as
    ``[<flat index key>]``."""

    __slots__ = ("key",)
    _field = "key"

    def __str__(self):
        return f"[<flat index {self.key}>]"


def keystr(keys, *, simple=False, separator=""):
    """The key path ``keys`` as a string, JAX's ``keystr``.

    Parameters
    ----------
    keys : tuple of key entries
    simple : bool
        Print each entry as its bare index, key or name (``foo/bar/0`` with
        ``separator="/"``) rather than its indexing syntax (``['foo']['bar'][0]``).
    separator : str
        Placed between the entries.

    >>> keystr((DictKey("w"), SequenceKey(0)))
    "['w'][0]"
    >>> keystr((DictKey("w"), SequenceKey(0)), simple=True, separator="/")
    'w/0'
    """
    def simple_str(k):
        return str(k._value()) if isinstance(k, _KeyEntry) else str(k)
    return separator.join(map(simple_str if simple else str, keys))


# type -> flatten_with_keys(node) -> (((key, child), ...), aux)
_key_registry: dict = {}


def _keyed_children(x, kind, entry):
    """``((key, child), ...), aux`` of the node ``x`` of type ``kind``."""
    with_keys = _key_registry.get(kind)
    if with_keys is not None:
        pairs, aux = with_keys(x)
        return tuple(pairs), aux
    children, aux = entry[0](x)
    children = tuple(children)
    if kind in (tuple, list):
        keys = [SequenceKey(i) for i in range(len(children))]
    elif kind is dict:
        keys = [DictKey(k) for k in aux]
    elif kind not in _registry:  # namedtuple
        keys = [GetAttrKey(f) for f in kind._fields]
    else:
        keys = [FlattenedIndexKey(i) for i in range(len(children))]
    return tuple(zip(keys, children)), aux


def tree_flatten_with_path(tree, is_leaf=None):
    """Flatten ``tree`` keeping each leaf's key path (JAX's ``tree_flatten_with_path``).

    Parameters
    ----------
    tree : pytree
    is_leaf : callable, optional
        ``is_leaf(x) -> bool``: treat ``x`` as a leaf even when it is a container.

    Returns
    -------
    (path_leaves, treedef) : (list of (tuple, leaf), PyTreeDef)
        The leaves in ``tree_flatten``'s order, each with its
        key path, and the same structure that ``tree_flatten`` returns.

    >>> tree_flatten_with_path({"b": [1.0], "a": 2.0})[0]
    [((DictKey(key='a'),), 2.0), ((DictKey(key='b'), SequenceKey(idx=0)), 1.0)]
    """
    out = []

    def rec(x, path):
        if is_leaf is not None and is_leaf(x):
            out.append((path, x))
            return _LEAF
        kind, entry = _node_of(x)
        if kind is None:
            out.append((path, x))
            return _LEAF
        pairs, aux = _keyed_children(x, kind, entry)
        return PyTreeDef(kind, aux, tuple(rec(c, path + (k,)) for k, c in pairs))

    try:
        return out, rec(tree, ())
    finally:
        del rec  # the closure refers to itself: break the cycle


def tree_leaves_with_path(tree, is_leaf=None):
    """The ``(key_path, leaf)`` pairs of ``tree`` (JAX's ``tree_leaves_with_path``)."""
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(f, tree, *rest, is_leaf=None):
    """``f(key_path, leaf, *other_leaves)`` over the leaves of ``tree`` and of the trees
    ``rest`` of the same structure (JAX's ``tree_map_with_path``).

    Raises
    ------
    ValueError
        If a tree in ``rest`` has another structure (both are named).

    >>> tree_map_with_path(lambda p, x: keystr(p), {"a": [1, 2]})
    {'a': ["['a'][0]", "['a'][1]"]}
    """
    pairs, treedef = tree_flatten_with_path(tree, is_leaf)
    others = _leaves_like(treedef, rest, is_leaf, "tree_map_with_path")
    return tree_unflatten(treedef, [f(p, x, *xs) for (p, x), *xs in zip(pairs, *others)])


def register_pytree_with_keys(nodetype, flatten_with_keys, unflatten_func, flatten_func=None):
    """Register ``nodetype`` as a container whose children have key entries (JAX's
    ``register_pytree_with_keys``).

    Parameters
    ----------
    nodetype : type
    flatten_with_keys : callable
        ``node -> (((key, child), ...), aux_data)``.
    unflatten_func : callable
        ``(aux_data, children) -> node``.
    flatten_func : callable, optional
        ``node -> (children, aux_data)``, a faster flatten without keys; derived from
        ``flatten_with_keys`` when omitted.

    Raises
    ------
    ValueError
        If ``nodetype`` is already registered.
    """
    if flatten_func is None:
        def flatten_func(node):
            pairs, aux = flatten_with_keys(node)
            return [c for _, c in pairs], aux
    register_pytree_node(nodetype, flatten_func, unflatten_func)
    _key_registry[nodetype] = flatten_with_keys


def register_pytree_node_class(cls):
    """Class decorator: register ``cls`` through its ``tree_flatten()`` method and its
    ``tree_unflatten(aux_data, children)`` classmethod (JAX's
    ``register_pytree_node_class``).  Returns ``cls``."""
    register_pytree_node(cls, lambda node: node.tree_flatten(), cls.tree_unflatten)
    return cls


def register_dataclass(nodetype, data_fields=None, meta_fields=None, drop_fields=()):
    """Register a dataclass as a container (JAX's ``register_dataclass``).

    Parameters
    ----------
    nodetype : type
        A class; when ``data_fields`` and ``meta_fields`` are omitted it must be a
        dataclass, and its fields with ``metadata=dict(static=True)`` are the meta fields.
    data_fields : sequence of str, optional
        Attributes that are children (key entries :class:`GetAttrKey`).
    meta_fields : sequence of str, optional
        Attributes kept as static auxiliary data (hashable; part of ``jit``'s cache key).
    drop_fields : sequence of str
        Dataclass fields that are neither (excluded from the check below).

    Returns
    -------
    type
        ``nodetype`` (usable as a decorator).

    Raises
    ------
    TypeError
        If only one of ``data_fields``/``meta_fields`` is given, or both are omitted for
        a class that is not a dataclass.
    ValueError
        If, for a dataclass, the given fields do not cover its ``init`` fields exactly.
    """
    if (data_fields is None) != (meta_fields is None):
        raise TypeError("register_dataclass: give both data_fields and meta_fields, or "
                        "neither (then they are read from the dataclass's fields)")
    if data_fields is None:
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError(f"register_dataclass: {nodetype!r} is not a dataclass; pass "
                            "data_fields and meta_fields explicitly")
        meta_fields, data_fields = [], []
        for f in dataclasses.fields(nodetype):
            if f.name in drop_fields:
                continue
            if f.metadata.get("static", False):
                meta_fields.append(f.name)
            elif f.init:
                data_fields.append(f.name)
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
    if dataclasses.is_dataclass(nodetype):
        init = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
        given = set(data_fields) | set(meta_fields)
        if init != given:
            raise ValueError(
                f"register_dataclass: data_fields and meta_fields of {nodetype.__name__} "
                f"must be its init fields {sorted(init)} (less drop_fields); got "
                f"{sorted(given)}")

    def flatten_with_keys(node):
        return ([(GetAttrKey(n), getattr(node, n)) for n in data_fields],
                tuple(getattr(node, n) for n in meta_fields))

    def flatten(node):
        return ([getattr(node, n) for n in data_fields],
                tuple(getattr(node, n) for n in meta_fields))

    def unflatten(meta, children):
        return nodetype(**dict(zip(data_fields, children)), **dict(zip(meta_fields, meta)))

    register_pytree_with_keys(nodetype, flatten_with_keys, unflatten, flatten)
    return nodetype
