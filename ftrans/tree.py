"""The ``ftrans.tree`` namespace: JAX's ``jax.tree`` short names for the pytree utilities.

Each name is the same function as its ``ftrans.tree_util`` counterpart (``tree.map is
tree_util.tree_map``), with JAX's signatures
(https://docs.jax.dev/en/latest/jax.tree.html).

>>> import ftrans
>>> ftrans.tree.map(lambda x: x + 1, {"a": 1, "b": (2, 3)})
{'a': 2, 'b': (3, 4)}
>>> ftrans.tree.leaves([1, {"x": 2}])
[1, 2]
"""
from .tree_util import (tree_all, tree_flatten, tree_flatten_with_path, tree_leaves,
                        tree_leaves_with_path, tree_map, tree_map_with_path, tree_reduce,
                        tree_structure, tree_transpose, tree_unflatten)

__all__ = ["all", "flatten", "flatten_with_path", "leaves", "leaves_with_path", "map",
           "map_with_path", "reduce", "structure", "transpose", "unflatten"]

all = tree_all  # noqa: A001  (JAX's names shadow the builtins inside this namespace)
flatten = tree_flatten
flatten_with_path = tree_flatten_with_path
leaves = tree_leaves
leaves_with_path = tree_leaves_with_path
map = tree_map  # noqa: A001
map_with_path = tree_map_with_path
reduce = tree_reduce
structure = tree_structure
transpose = tree_transpose
unflatten = tree_unflatten
