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
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, TypeVar

from ..typing import PyTree
from .pytree import (PyTreeDef, _LEAF, _leaves_like, _node_of, _registry, register_pytree_node,
                     tree_unflatten)

__all__ = ["SequenceKey", "DictKey", "GetAttrKey", "FlattenedIndexKey", "keystr",
           "tree_flatten_with_path", "tree_leaves_with_path", "tree_map_with_path",
           "register_pytree_with_keys", "register_pytree_node_class", "register_dataclass"]

_T = TypeVar("_T", bound=type)


class _KeyEntry:
    __slots__ = ()
    _field = ""

    def __init__(self, value: Any) -> None:
        object.__setattr__(self, self._field, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _value(self) -> Any:
        return getattr(self, self._field)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, _KeyEntry) and type(other) is type(self)
                and self._value() == other._value())

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._value()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._field}={self._value()!r})"


class SequenceKey(_KeyEntry):
    """The position ``idx`` of an item of a tuple or list; prints as ``[idx]``.

    Parameters
    ----------
    value : int
        The position, stored as the attribute ``idx`` (JAX's ``SequenceKey.idx``).
    """

    __slots__ = ("idx",)
    _field = "idx"
    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"


class DictKey(_KeyEntry):
    """The key ``key`` of a dict entry; prints as ``['key']`` (the key's ``repr``).

    Parameters
    ----------
    value : Hashable
        The dict key, stored as the attribute ``key`` (JAX's ``DictKey.key``).
    """

    __slots__ = ("key",)
    _field = "key"
    key: Hashable

    def __str__(self) -> str:
        return f"[{self.key!r}]"


class GetAttrKey(_KeyEntry):
    """The attribute ``name`` (a namedtuple or dataclass field); prints as ``.name``.

    Parameters
    ----------
    value : str
        The attribute name, stored as the attribute ``name`` (JAX's ``GetAttrKey.name``).
    """

    __slots__ = ("name",)
    _field = "name"
    name: str

    def __str__(self) -> str:
        return f".{self.name}"


class FlattenedIndexKey(_KeyEntry):
    """The position ``key`` of a child of a class registered without keys.

    Prints as ``[<flat index key>]``.

    Parameters
    ----------
    value : int
        The child's position, stored as the attribute ``key`` (JAX's
        ``FlattenedIndexKey.key``).
    """

    __slots__ = ("key",)
    _field = "key"
    key: int

    def __str__(self) -> str:
        return f"[<flat index {self.key}>]"


def keystr(keys: Iterable[Any], *, simple: bool = False, separator: str = "") -> str:
    """The key path ``keys`` as a string, JAX's ``keystr``.

    Parameters
    ----------
    keys : tuple of key entries
        A key path, as :func:`tree_flatten_with_path` gives it.
    simple : bool, default False
        Print each entry as its bare index, key or name (``foo/bar/0`` with
        ``separator="/"``) rather than its indexing syntax (``['foo']['bar'][0]``).
    separator : str, default ""
        Placed between the entries.

    Returns
    -------
    str
        The path.

    Examples
    --------
    >>> from ftrans.tree_util import keystr, DictKey, SequenceKey
    >>> keystr((DictKey("w"), SequenceKey(0)))
    "['w'][0]"
    >>> keystr((DictKey("w"), SequenceKey(0)), simple=True, separator="/")
    'w/0'
    """
    def simple_str(k: Any) -> str:
        return str(k._value()) if isinstance(k, _KeyEntry) else str(k)
    return separator.join(map(simple_str if simple else str, keys))


# type -> flatten_with_keys(node) -> (((key, child), ...), aux)
_key_registry: dict[type, Callable[[Any], tuple[Iterable[tuple[Any, Any]], Any]]] = {}


def _keyed_children(x: Any, kind: type[Any], entry: tuple[Callable[[Any], Any], Any]
                    ) -> tuple[tuple[tuple[Any, Any], ...], Any]:
    """``((key, child), ...), aux`` of the node ``x`` of type ``kind``."""
    with_keys = _key_registry.get(kind)
    if with_keys is not None:
        pairs, aux = with_keys(x)
        return tuple(pairs), aux
    children_it, aux = entry[0](x)
    children = tuple(children_it)
    keys: list[Any]
    if kind in (tuple, list):
        keys = [SequenceKey(i) for i in range(len(children))]
    elif kind is dict:
        keys = [DictKey(k) for k in aux]
    elif kind not in _registry:  # namedtuple
        keys = [GetAttrKey(f) for f in kind._fields]
    else:
        keys = [FlattenedIndexKey(i) for i in range(len(children))]
    return tuple(zip(keys, children)), aux


def tree_flatten_with_path(tree: PyTree, is_leaf: Callable[[Any], bool] | None = None
                           ) -> tuple[list[tuple[tuple[Any, ...], Any]], PyTreeDef]:
    """Flatten ``tree`` keeping each leaf's key path (JAX's ``tree_flatten_with_path``).

    Parameters
    ----------
    tree : PyTree
        The tree.
    is_leaf : callable, optional
        ``is_leaf(x) -> bool``: treat ``x`` as a leaf even when it is a container.

    Returns
    -------
    path_leaves : list of (tuple, leaf)
        The leaves in ``tree_flatten``'s order, each with its key path.
    treedef : PyTreeDef
        The same structure that ``tree_flatten`` returns.

    Examples
    --------
    >>> from ftrans.tree_util import tree_flatten_with_path
    >>> tree_flatten_with_path({"b": [1.0], "a": 2.0})[0]
    [((DictKey(key='a'),), 2.0), ((DictKey(key='b'), SequenceKey(idx=0)), 1.0)]
    """
    out: list[tuple[tuple[Any, ...], Any]] = []

    def rec(x: Any, path: tuple[Any, ...]) -> PyTreeDef:
        if is_leaf is not None and is_leaf(x):
            out.append((path, x))
            return _LEAF
        kind, entry = _node_of(x)
        if kind is None or entry is None:
            out.append((path, x))
            return _LEAF
        pairs, aux = _keyed_children(x, kind, entry)
        return PyTreeDef(kind, aux, tuple(rec(c, path + (k,)) for k, c in pairs))

    try:
        return out, rec(tree, ())
    finally:
        del rec  # the closure refers to itself: break the cycle


def tree_leaves_with_path(tree: PyTree, is_leaf: Callable[[Any], bool] | None = None
                          ) -> list[tuple[tuple[Any, ...], Any]]:
    """The ``(key_path, leaf)`` pairs of ``tree`` (JAX's ``tree_leaves_with_path``).

    Parameters
    ----------
    tree : PyTree
        The tree.
    is_leaf : callable, optional
        ``is_leaf(x) -> bool``: treat ``x`` as a leaf even when it is a container.

    Returns
    -------
    list of (tuple, leaf)
        The leaves in ``tree_flatten``'s order, each with its key path.
    """
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(f: Callable[..., Any], tree: PyTree, *rest: PyTree,
                       is_leaf: Callable[[Any], bool] | None = None) -> PyTree:
    """Map ``f(key_path, leaf, *other_leaves)`` over the leaves of ``tree``.

    As JAX's ``tree_map_with_path``.

    Parameters
    ----------
    f : callable
        Called as ``f(key_path, leaf, *leaves_of_rest)``.
    tree : PyTree
        The tree whose structure the result has.
    *rest : PyTree
        Further trees of the same structure as ``tree``.
    is_leaf : callable, optional
        ``is_leaf(x) -> bool``: treat ``x`` as a leaf even when it is a container.

    Returns
    -------
    PyTree
        A tree of ``tree``'s structure holding ``f``'s results.

    Raises
    ------
    ValueError
        If a tree in ``rest`` has another structure (both are named).

    Examples
    --------
    >>> from ftrans.tree_util import keystr, tree_map_with_path
    >>> tree_map_with_path(lambda p, x: keystr(p), {"a": [1, 2]})
    {'a': ["['a'][0]", "['a'][1]"]}
    """
    pairs, treedef = tree_flatten_with_path(tree, is_leaf)
    others = _leaves_like(treedef, rest, is_leaf, "tree_map_with_path")
    return tree_unflatten(treedef, [f(p, x, *xs) for (p, x), *xs in zip(pairs, *others)])


def register_pytree_with_keys(
        nodetype: type[Any],
        flatten_with_keys: Callable[[Any], tuple[Iterable[tuple[Any, Any]], Any]],
        unflatten_func: Callable[[Any, Iterable[Any]], Any],
        flatten_func: Callable[[Any], tuple[Iterable[Any], Any]] | None = None) -> None:
    """Register ``nodetype`` as a container whose children have key entries.

    As JAX's ``register_pytree_with_keys``.

    Parameters
    ----------
    nodetype : type
        The container type to register.
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
        def flatten_func(node: Any) -> tuple[list[Any], Any]:
            pairs, aux = flatten_with_keys(node)
            return [c for _, c in pairs], aux
    register_pytree_node(nodetype, flatten_func, unflatten_func)
    _key_registry[nodetype] = flatten_with_keys


def register_pytree_node_class(cls: _T) -> _T:
    """Class decorator: register ``cls`` as a pytree node through its own methods.

    ``cls`` flattens with its ``tree_flatten()`` method and unflattens with its
    ``tree_unflatten(aux_data, children)`` classmethod (JAX's
    ``register_pytree_node_class``).

    Returns
    -------
    type
        ``cls`` itself.

    Raises
    ------
    ValueError
        If ``cls`` is already registered.
    """
    register_pytree_node(cls, lambda node: node.tree_flatten(), cls.tree_unflatten)  # type: ignore[attr-defined]  # the protocol the class provides
    return cls


def register_dataclass(nodetype: _T, data_fields: Sequence[str] | None = None,
                       meta_fields: Sequence[str] | None = None,
                       drop_fields: Sequence[str] = ()) -> _T:
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
    drop_fields : sequence of str, default ()
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
        meta_list: list[str] = []
        data_list: list[str] = []
        for f in dataclasses.fields(nodetype):
            if f.name in drop_fields:
                continue
            if f.metadata.get("static", False):
                meta_list.append(f.name)
            elif f.init:
                data_list.append(f.name)
        data_fields, meta_fields = data_list, meta_list
    assert meta_fields is not None
    data_names, meta_names = tuple(data_fields), tuple(meta_fields)
    if dataclasses.is_dataclass(nodetype):
        init = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
        given = set(data_names) | set(meta_names)
        if init != given:
            raise ValueError(
                f"register_dataclass: data_fields and meta_fields of {nodetype.__name__} "
                f"must be its init fields {sorted(init)} (less drop_fields); got "
                f"{sorted(given)}")

    def flatten_with_keys(node: Any) -> tuple[list[tuple[GetAttrKey, Any]], tuple[Any, ...]]:
        return ([(GetAttrKey(n), getattr(node, n)) for n in data_names],
                tuple(getattr(node, n) for n in meta_names))

    def flatten(node: Any) -> tuple[list[Any], tuple[Any, ...]]:
        return ([getattr(node, n) for n in data_names],
                tuple(getattr(node, n) for n in meta_names))

    def unflatten(meta: Any, children: Iterable[Any]) -> Any:
        return nodetype(**dict(zip(data_names, children)), **dict(zip(meta_names, meta)))

    register_pytree_with_keys(nodetype, flatten_with_keys, unflatten, flatten)
    return nodetype
