"""Argument handling shared by :func:`ftrans.jit` and :func:`ftrans.make_ir`: static
arguments, the cache key of a call's pytree of leaves, and staging one call."""
from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core import ShapedArray, Tracer
from ..core.abstract import weak_dtype
from ..core.dtypes import as_numpy_dtype
from ..core.ir import IR, dce, stage
from ..core.pytree import PyTreeDef, tree_flatten, tree_unflatten
from ..core.trace import _escaped

__all__: list[str] = []


def _normalize_static(fun: Callable[..., Any], static_argnums: Any, static_argnames: Any,
                      who: str) -> tuple[tuple[int, ...], tuple[str, ...]]:
    if isinstance(static_argnums, (int, np.integer)) and not isinstance(static_argnums, bool):
        static_argnums = (static_argnums,)
    if isinstance(static_argnames, str):
        static_argnames = (static_argnames,)
    try:
        raw_nums = tuple(static_argnums)
        names = tuple(static_argnames)
    except TypeError:
        raise TypeError(f"{who}: static_argnums must be an int or a sequence of ints and "
                        f"static_argnames a str or a sequence of str; got {static_argnums!r} "
                        f"and {static_argnames!r}") from None
    if not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in raw_nums):
        raise TypeError(f"{who}: static_argnums must be ints, got {static_argnums!r}")
    if not all(isinstance(s, str) for s in names):
        raise TypeError(f"{who}: static_argnames must be strings, got {static_argnames!r}")
    nums = tuple(int(i) for i in raw_nums)
    # as JAX: a static positional parameter is static when passed by keyword too, and
    # a static name is static when passed positionally
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    pos = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    _check_static_in_signature(fun, params, pos, nums, names, who)
    extra_names = [pos[i].name for i in nums if -len(pos) <= i < len(pos)
                   and pos[i].kind is pos[i].POSITIONAL_OR_KEYWORD]
    extra_nums = [i for i, p in enumerate(pos) if p.name in names
                  and p.kind is p.POSITIONAL_OR_KEYWORD]
    names = tuple(dict.fromkeys(names + tuple(extra_names)))
    nums = tuple(dict.fromkeys(nums + tuple(i for i in extra_nums if i not in nums
                                            and i - len(pos) not in nums)))
    return nums, names


def _check_static_in_signature(fun: Callable[..., Any], params: Sequence[inspect.Parameter],
                               pos: Sequence[inspect.Parameter], nums: tuple[int, ...],
                               names: tuple[str, ...], who: str) -> None:
    """As JAX: static_argnums/static_argnames that no call can pass raise ValueError
    when ``fun``'s signature is known (no check for ``*args`` / ``**kwargs``)."""
    kinds = {p.kind for p in params}
    listed = "(" + ", ".join(p.name for p in pos) + ")"
    if params and inspect.Parameter.VAR_POSITIONAL not in kinds:
        bad = [i for i in nums if not -len(pos) <= i < len(pos)]
        if bad:
            raise ValueError(
                f"{who}: static_argnums={nums!r} names positional argument(s) {bad}, but "
                f"{getattr(fun, '__name__', 'the function')} accepts only {len(pos)} "
                f"positional argument(s) {listed}; use indices in range({len(pos)}) "
                "(negative ones count from the end) or static_argnames=")
    if params and inspect.Parameter.VAR_KEYWORD not in kinds:
        known = {p.name for p in params if p.kind is not p.POSITIONAL_ONLY}
        bad_names = [n for n in names if n not in known]
        if bad_names:
            raise ValueError(
                f"{who}: static_argnames={names!r} names {bad_names}, which "
                f"{getattr(fun, '__name__', 'the function')} does not accept as keyword "
                f"argument(s); its parameters are {[p.name for p in params]}")


def _leaf_key(x: Any, who: str, where: str) -> Any:
    """Cache-key entry of one dynamic argument leaf; raises TypeError for non-arrays."""
    t = type(x)
    if t is np.ndarray:
        return (x.shape, x.dtype)
    if t in (float, int, bool, complex):
        return t  # weakly typed Python scalar: its kind, not its value
    if isinstance(x, Tracer):
        if not x._trace.active:
            raise _escaped(x)
        aval = getattr(x, "aval", None)  # a staged Python scalar (jit inside jit)
        if aval is not None and aval.weak_type:
            return ("weak", aval.dtype)
        return (tuple(x.shape), as_numpy_dtype(x.dtype))
    if isinstance(x, np.generic):
        return ((), x.dtype)
    if hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, (str, bytes)):
        return (t, tuple(x.shape), x.dtype)  # another array type: its own programs
    raise TypeError(
        f"{who}: {where} is a {t.__name__}, not an array or a Python scalar. Arguments of "
        "a jitted function are traced: pass arrays (or pytrees of them), or mark this "
        "argument static with static_argnums=/static_argnames= (it must then be hashable).")


def _aval(x: Any) -> ShapedArray:
    t = type(x)
    if t in (float, int, bool, complex):
        return ShapedArray((), weak_dtype(x), weak_type=True)
    aval = getattr(x, "aval", None)
    if isinstance(x, Tracer) and aval is not None and aval.weak_type:
        return aval
    try:
        dtype = as_numpy_dtype(x.dtype)  # array-API dtypes by name (array_api_strict.float64)
    except TypeError:
        raise TypeError(f"jit: arguments of type {t.__module__}.{t.__name__} (dtype "
                        f"{x.dtype!r}) cannot be staged: the dtype has no NumPy equivalent"
                        ) from None
    return ShapedArray(tuple(x.shape), dtype)


class _Call:
    """One call's arguments split into static values and dynamic leaves."""

    __slots__ = ("leaves", "in_tree", "static", "key", "args", "kwargs")
    leaves: list[Any]
    in_tree: PyTreeDef
    static: tuple[Any, ...]
    key: tuple[Any, ...]
    args: dict[int, Any]
    kwargs: dict[str, Any]


_FLAT_LEAF_TYPES = frozenset({np.ndarray, float, int, bool, complex})
_FLAT_TREES: dict[int, PyTreeDef] = {}


def _flat_tree(n: int) -> PyTreeDef:
    """The structure of ``((leaf,) * n, {})`` (cached)."""
    t = _FLAT_TREES.get(n)
    if t is None:
        t = _FLAT_TREES[n] = tree_flatten((tuple(range(n)), {}))[1]
    return t


def _split(who: str, args: tuple[Any, ...], kwargs: dict[str, Any], nums: tuple[int, ...],
           names: tuple[str, ...]) -> _Call:
    call = _Call()
    nargs = len(args)
    static_pos: dict[int, Any] = {}
    for i in nums:
        j = i + nargs if i < 0 else i
        if 0 <= j < nargs:
            static_pos[j] = args[i]
    static_kw = {k: v for k, v in kwargs.items() if k in names} if kwargs else {}
    dyn_args = tuple(a for i, a in enumerate(args) if i not in static_pos) \
        if static_pos else args
    dyn_kwargs = {k: v for k, v in kwargs.items() if k not in static_kw} if kwargs else {}
    static: tuple[Any, ...] = tuple((i, type(v), v) for i, v in sorted(static_pos.items())) + tuple(
        (k, type(v), v) for k, v in sorted(static_kw.items()))
    try:
        hash(static)
    except TypeError:
        for what, _, v in static:
            try:
                hash(v)
            except TypeError:
                desc = (f"static argument {what} (static_argnums)" if isinstance(what, int)
                        else f"static argument {what!r} (static_argnames)")
                raise TypeError(
                    f"{who}: {desc} must be hashable, got a {type(v).__name__}: {v!r}. Static "
                    "arguments are part of the cache key; pass a hashable value (a tuple "
                    "instead of a list, ...), or make it a traced (non-static) argument if "
                    "it is an array.") from None
        raise
    if not dyn_kwargs and all(type(a) in _FLAT_LEAF_TYPES or isinstance(a, Tracer)
                              for a in dyn_args):
        leaves, in_tree = list(dyn_args), _flat_tree(len(dyn_args))  # no pytree to walk
    else:
        leaves, in_tree = tree_flatten((dyn_args, dyn_kwargs))
    where = _leaf_where(in_tree, dyn_args, static_pos)
    call.leaves = leaves
    call.in_tree = in_tree
    call.static = static
    call.key = (in_tree, static, tuple(_leaf_key(x, who, where(i)) for i, x in enumerate(leaves)))
    call.args, call.kwargs = static_pos, static_kw
    return call


def _leaf_where(in_tree: PyTreeDef, dyn_args: tuple[Any, ...], static_pos: dict[int, Any]
                ) -> Callable[[int], str]:
    """leaf index -> human description (for errors)."""
    def where(i: int) -> str:
        counts = [c.num_leaves for c in in_tree.children[0].children]
        pos = [j for j in range(len(dyn_args) + len(static_pos)) if j not in static_pos]
        acc = 0
        for k, c in enumerate(counts):
            if i < acc + c:
                return f"argument {pos[k]}" + (f" (leaf {i - acc})" if c > 1 else "")
            acc += c
        return "a keyword argument"
    return where


def _rebuild(call: _Call, nums: tuple[int, ...], dyn_leaves: Sequence[Any]
             ) -> tuple[tuple[Any, ...], dict[str, Any]]:
    dyn_args, dyn_kwargs = tree_unflatten(call.in_tree, dyn_leaves)
    if call.args:
        n = len(dyn_args) + len(call.args)
        it = iter(dyn_args)
        args = tuple(call.args[i] if i in call.args else next(it) for i in range(n))
    else:
        args = dyn_args
    kwargs = dict(dyn_kwargs)
    kwargs.update(call.kwargs)
    return args, kwargs


class _Staged:
    """A staged call: the program, the output structure and the compiled runner."""

    __slots__ = ("ir", "out_tree", "lifted", "run")
    ir: IR
    out_tree: PyTreeDef
    lifted: list[Any]
    run: Callable[..., Any] | None


def _check_out_leaf(o: Any, who: str) -> Any:
    if isinstance(o, (Tracer, np.ndarray, np.generic, bool, int, float, complex)) or (
            hasattr(o, "shape") and hasattr(o, "dtype")):
        return o
    raise TypeError(f"{who}: the function must return arrays, Python scalars or pytrees of "
                    f"them, got a leaf of type {type(o).__name__}")


def _stage_call(fun: Callable[..., Any], who: str, call: _Call, nums: tuple[int, ...]
                ) -> _Staged:
    box: list[PyTreeDef] = []

    def flat_fun(*leaves: Any) -> list[Any]:
        args, kwargs = _rebuild(call, nums, leaves)
        out = fun(*args, **kwargs)
        out_leaves, out_tree = tree_flatten(out)
        box.append(out_tree)
        return [_check_out_leaf(o, who) for o in out_leaves]

    ir, lifted = stage(flat_fun, [_aval(x) for x in call.leaves], who)
    staged = _Staged()
    staged.ir = dce(ir)
    staged.out_tree = box[0]
    staged.lifted = lifted
    staged.run = None
    return staged
