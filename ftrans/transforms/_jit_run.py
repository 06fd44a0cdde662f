"""Running a staged program (:mod:`ftrans.transforms.jit`): the backend chosen by the
arguments' array type, weakly typed inputs passed as Python scalars, outputs as arrays,
and the per-call fast path for all-NumPy arguments."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..compiler import compile_ir, backend_of
from ..core.ir import IR
from ..core.pytree import PyTreeDef, tree_unflatten

__all__: list[str] = []


def _as_array(o: Any) -> Any:
    """Program outputs as arrays: NumPy scalars and Python scalars (literal outputs)
    become 0-d arrays."""
    if isinstance(o, (np.generic, bool, int, float, complex)):
        return np.asarray(o)
    return o


def _weak_inputs(ir: IR) -> tuple[int, ...]:
    """Positions of the program's weakly typed inputs (cached on the IR)."""
    w: tuple[int, ...] | None = ir.cache.get("weak_inputs")
    if w is None:
        w = ir.cache["weak_inputs"] = tuple(i for i, v in enumerate(ir.in_vars)
                                            if v.aval.weak_type)
    return w


def _run(ir: IR, args: Sequence[Any]) -> tuple[Any, ...]:
    weak = _weak_inputs(ir)
    if weak:
        # a weakly typed input runs as a Python scalar (it may arrive as a 0-d array:
        # a residual or an output of another program)
        args = list(args)
        for i in weak:
            if isinstance(args[i], (np.ndarray, np.generic)):
                args[i] = args[i].item()
    outs = compile_ir(ir, backend_of(args))(*args)
    return tuple(_as_array(o) for o in outs)


def _fast_key(args: Sequence[Any]) -> tuple[Any, ...] | None:
    """``(shape0, dtype0, shape1, dtype1, ...)`` when every argument is a NumPy array
    (for one argument: ``(shape, dtype)``), else None."""
    if len(args) == 1:
        a = args[0]
        return (a.shape, a.dtype) if type(a) is np.ndarray else None
    key: list[Any] = []
    for a in args:
        if type(a) is not np.ndarray:
            return None
        key.append(a.shape)
        key.append(a.dtype)
    return tuple(key)


def _fast_runner(ir: IR, out_tree: PyTreeDef) -> Callable[..., Any]:
    """The compiled program with the output pytree rebuilt, for all-NumPy arguments."""
    run = compile_ir(ir, "cpu")
    if out_tree.kind is None:  # one array
        def one(*args: Any) -> Any:
            o = run(*args)[0]
            return o if type(o) is np.ndarray else _as_array(o)
        return one
    if out_tree.kind in (tuple, list) and all(c.kind is None for c in out_tree.children):
        kind = out_tree.kind  # a flat tuple/list of arrays

        def flat(*args: Any) -> Any:
            return kind([o if type(o) is np.ndarray else _as_array(o) for o in run(*args)])
        return flat

    def many(*args: Any) -> Any:
        return tree_unflatten(out_tree, [o if type(o) is np.ndarray else _as_array(o)
                                         for o in run(*args)])
    return many
