"""Closure conversion for the higher-order primitives (checkpoint, custom_jvp, custom_vjp).

Their functions run inside a primitive's rules, where a traced value of an enclosing
transform that the function merely *closes over* would escape that transform.
:func:`closure_convert` finds such tracers so they can be passed as operands.
"""
from __future__ import annotations

import functools
import types
from collections.abc import Callable, Sequence
from typing import Any

from ..core import Tracer
from ..core.pytree import tree_flatten, tree_unflatten

__all__ = ["closure_convert"]


_Rebuild = Callable[[Sequence[Any]], Any]


def closure_convert(fun: Callable[..., Any], max_depth: int = 4
                    ) -> tuple[_Rebuild, list[Any]]:
    """Find the tracers ``fun`` closes over, so they can be passed as operands.

    Looks through the closure cells of ``fun`` and, recursively, of the functions and
    pytrees held there (``max_depth`` levels).  Returns ``(rebuild, consts)``:
    ``rebuild(values)`` is ``fun`` with each closed-over tracer replaced by the value
    of the same index in ``values``, and ``consts`` the tracers found (empty when
    there are none; ``rebuild`` then returns ``fun`` itself).  Without this, a traced
    value of an enclosing transform (e.g. the weights in
    ``checkpoint(lambda h: layer(W, h))`` under ``grad``) would reach a computation
    that is not traced by that transform.
    """
    consts: list[Any] = []
    ids: dict[int, int] = {}

    def scan(obj: Any, depth: int) -> _Rebuild | None:
        if isinstance(obj, Tracer):
            k = ids.setdefault(id(obj), len(consts))
            if k == len(consts):
                consts.append(obj)
            return lambda vals: vals[k]
        if isinstance(obj, (tuple, list, dict)):
            leaves, tree = tree_flatten(obj)
            leaf_subs = [scan(l, depth) if isinstance(l, Tracer) else None for l in leaves]
            if not any(leaf_subs):
                return None
            return lambda vals: tree_unflatten(
                tree, [f(vals) if f else l for f, l in zip(leaf_subs, leaves)])
        if isinstance(obj, types.FunctionType) and obj.__closure__ and depth < max_depth:
            subs: list[_Rebuild | None] = []
            for cell in obj.__closure__:
                try:
                    contents = cell.cell_contents
                except ValueError:  # an empty cell
                    subs.append(None)
                    continue
                subs.append(None if contents is obj else scan(contents, depth + 1))
            if not any(subs):
                return None

            def rebuild(vals: Sequence[Any], obj: types.FunctionType = obj,
                        subs: list[_Rebuild | None] = subs) -> types.FunctionType:
                cells = tuple(types.CellType(f(vals)) if f else c
                              for f, c in zip(subs, obj.__closure__ or ()))
                new = types.FunctionType(obj.__code__, obj.__globals__, obj.__name__,
                                         obj.__defaults__, cells)
                new.__kwdefaults__ = obj.__kwdefaults__
                return new
            return rebuild
        if isinstance(obj, functools.partial):
            inner = scan(obj.func, depth + 1)
            args = scan(obj.args, depth + 1)
            kw = scan(obj.keywords, depth + 1)
            if not (inner or args or kw):
                return None
            return lambda vals: functools.partial(
                inner(vals) if inner else obj.func, *(args(vals) if args else obj.args),
                **(kw(vals) if kw else obj.keywords))
        return None

    rebuild = scan(fun, 0)
    return (rebuild or (lambda vals: fun)), consts
