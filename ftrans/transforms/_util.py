"""Argument handling shared by the transforms: inputs, tangents, outputs, argnums, aux."""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

import numpy as np

from ..core import Tracer, zero, float0, is_inexact
from ..core.abstract import dtype_of
from ..kernels import foreign_array
from ..core.trace import _escaped
from ..core.pytree import tree_flatten, tree_unflatten
from ..kernels import backend_for
from ..typing import Array, PyTree

__all__ = ["check_input", "check_matching_tangent", "instantiate_zeros", "as_output",
           "check_output_leaf", "split_aux", "normalize_argnums", "tree_flatten",
           "tree_unflatten", "zeros_like_leaf"]


def _is_arraylike(x: Any) -> bool:
    return isinstance(x, (Tracer, np.ndarray, np.generic, bool, int, float, complex)) or \
        hasattr(x, "__cuda_array_interface__") or foreign_array(x)


def check_input(x: Any, transform: str) -> Any:
    """Convert a leaf argument to an array (tracers of enclosing transforms pass through).

    Raises
    ------
    TypeError
        If ``x`` is not an array, a Python number or a tracer.
    """
    if isinstance(x, Tracer) or hasattr(x, "__cuda_array_interface__"):
        if isinstance(x, Tracer) and not x._trace.active:
            raise _escaped(x)
        return x
    if isinstance(x, np.ndarray):
        return x
    if foreign_array(x):  # CuPy, Dask, array-API arrays: kept as they are
        return x
    if isinstance(x, (np.generic, bool, int, float, complex)):
        return np.asarray(x)
    if isinstance(x, (list, tuple)):
        raise TypeError(f"{transform}: argument leaves must be arrays; a list/tuple is a pytree "
                        "node here")
    raise TypeError(f"{transform}: expected arrays, Python scalars or pytrees of them as "
                    f"arguments, got a value of type {type(x).__name__}")


def zeros_like_leaf(p: Any) -> Array:
    """Zeros of ``p``'s shape and dtype; ``float0`` zeros for integer/boolean ``p``."""
    if isinstance(p, Tracer) or isinstance(p, (np.ndarray, np.generic)):
        if not is_inexact(p.dtype):
            return np.zeros(p.shape, float0)
        return np.zeros(p.shape, p.dtype)
    dt = dtype_of(p)
    if isinstance(p, (bool, int, float, complex)):  # a weakly typed Python scalar
        return np.zeros((), dt if is_inexact(dt) else float0)
    if not is_inexact(dt):
        return np.zeros(p.shape, float0)
    return backend_for(p).xp.zeros(p.shape, dt)


def instantiate_zeros(t: Any, primal: Any) -> Any:
    """The tangent/cotangent ``t``, with the symbolic zero made an array like ``primal``."""
    return zeros_like_leaf(primal) if t is zero else t


def check_matching_tangent(p: Any, t: Any, i: int) -> Any:
    """Validate the tangent ``t`` of primal ``p`` (leaf number ``i``); return it or None.

    Raises
    ------
    TypeError
        dtype mismatch (integer primals need a ``float0`` tangent or ``None``).
    ValueError
        shape mismatch.
    """
    if not is_inexact(dtype_of(p)):
        if t is None or getattr(t, "dtype", None) == float0:
            return None
        raise TypeError(
            f"jvp: primal leaf {i} has integer/boolean dtype {p.dtype}, which has no tangent "
            f"space; its tangent must be None or an array of dtype ftrans.float0, got "
            f"{getattr(t, 'dtype', type(t).__name__)}")
    if t is None:
        raise TypeError(f"jvp: primal leaf {i} (shape {p.shape}, dtype {p.dtype}) needs a "
                        "tangent array, got None")
    if not isinstance(t, Tracer) and not hasattr(t, "__cuda_array_interface__") and \
            not foreign_array(t):
        t = np.asarray(t, dtype=p.dtype if isinstance(t, (int, float, complex)) else None)
    if tuple(t.shape) != tuple(p.shape):
        raise ValueError(
            f"jvp: primal and tangent shapes must match; leaf {i} has primal shape "
            f"{tuple(p.shape)} and tangent shape {tuple(t.shape)}")
    if t.dtype != p.dtype and dtype_of(t) != dtype_of(p):
        raise TypeError(
            f"jvp: primal and tangent dtypes must match; leaf {i} has primal dtype {p.dtype} "
            f"and tangent dtype {t.dtype}; cast the tangent, e.g. "
            f"t.astype({dtype_of(p).name!r})")
    return t


def as_output(x: Any) -> Any:
    """NumPy scalars become 0-d arrays: results are always arrays."""
    return np.asarray(x) if isinstance(x, np.generic) else x


def check_output_leaf(o: Any) -> Any:
    """An output leaf as an array.

    Raises
    ------
    EscapedTracerError
        For a tracer of a transform that has already returned.
    TypeError
        For a leaf that is not array-like.
    """
    if isinstance(o, Tracer):
        if not o._trace.active:
            raise _escaped(o)
        return o
    if isinstance(o, (bool, int, float, complex)):
        return np.asarray(o)
    if not _is_arraylike(o):
        raise TypeError(f"the transformed function must return arrays or pytrees of arrays, "
                        f"got a leaf of type {type(o).__name__}")
    return o


def split_aux(out: Any, name: str) -> tuple[PyTree, PyTree]:
    """``(output, aux)`` from a ``has_aux=True`` function's return value.

    Raises
    ------
    TypeError
        If the function did not return a pair.
    """
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        got = type(out).__name__
        if isinstance(out, (tuple, list)):
            got += f" of length {len(out)}"
        raise TypeError(f"{name} with has_aux=True expects the function to return a pair "
                        f"(output, aux), got {got}")
    return out[0], out[1]


def normalize_argnums(argnums: int | Sequence[int], nargs: int, name: str
                      ) -> tuple[tuple[int, ...], bool]:
    """``argnums`` (int or tuple, negative allowed) as a tuple of non-negative ints.

    Raises
    ------
    TypeError
        If ``argnums`` is not an int or a tuple of ints.
    ValueError
        If ``argnums`` is empty, or an entry is out of range for ``nargs`` positional
        arguments, or repeated.
    """
    single = isinstance(argnums, (int, np.integer))
    nums: Any = (argnums,) if single else argnums
    if not isinstance(nums, (tuple, list)) or not all(isinstance(a, (int, np.integer))
                                                      for a in nums):
        raise TypeError(f"{name}: argnums must be an int or a tuple of ints, got {argnums!r}")
    if not nums:
        raise ValueError(f"{name}: argnums must be non-empty, got {argnums!r}: there would be "
                         "nothing to differentiate; pass the index of at least one positional "
                         "argument (argnums=0, or a tuple such as (0, 1))")
    out = []
    for a in nums:
        if not -nargs <= a < nargs:
            raise ValueError(f"{name}: argnums={argnums!r} is out of range for a call with "
                             f"{nargs} positional argument(s)")
        out.append(int(a) % nargs)
    if len(set(out)) != len(out):
        raise ValueError(f"{name}: argnums={argnums!r} names an argument twice")
    return tuple(out), single


_NO_FUN: Any = object()
_P = ParamSpec("_P")
_R = TypeVar("_R")


class _Transform(Generic[_P, _R]):
    """The type checker's view of a transform made by :func:`decorator_factory`: called
    with a function and the transform's options, or with the keyword options only (a
    decorator).  Never instantiated: at run time the transform is a plain function."""

    @overload
    def __call__(self, fun: Callable[..., Any], /, *args: _P.args,
                 **kwargs: _P.kwargs) -> _R: ...

    @overload
    def __call__(self, /, **kwargs: Any) -> Callable[[Callable[..., Any]], _R]: ...

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover
        raise NotImplementedError


def decorator_factory(transform: Callable[Concatenate[Callable[..., Any], _P], _R]
                      ) -> _Transform[_P, _R]:
    """``transform`` that, called without a function (only keyword options), returns
    the decorator ``lambda f: transform(f, **options)``.

    JAX's ``jit`` accepts this form (``@jax.jit(static_argnames=...)``); its ``grad``,
    ``vmap`` and ``checkpoint`` need ``functools.partial(jax.grad, argnums=1)``, which
    works here too.  ftrans accepts the keyword-only form for all of them.
    """
    @functools.wraps(transform)
    def wrapper(fun: Any = _NO_FUN, *args: Any, **kwargs: Any) -> Any:
        if fun is _NO_FUN:
            return functools.partial(transform, **kwargs)
        return transform(fun, *args, **kwargs)
    # functools.wraps keeps the signature for inspect; _Transform states both forms
    return wrapper  # type: ignore[return-value]
