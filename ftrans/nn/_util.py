"""Helpers shared by the ``ftrans.nn`` modules: argument normalization, reductions, and
the test that decides whether a fused kernel may run.

A fused kernel (``ftrans.kernels.nn_cpu``/``window_cpu``) runs only when every operand
is a concrete ``numpy.ndarray`` and no transform is active (:func:`eager`); otherwise
the rules are written in ftrans primitives, so that they can be differentiated again and
batched.  :func:`fused_kernels` switches the fused paths off (tests compare both paths;
``benchmarks/bench_nn_fused.py`` times them).
"""
from __future__ import annotations

import contextlib
import operator
from collections.abc import Iterator, Sequence
from typing import Any, cast

import numpy as np

from ..core import Tracer
from ..core.dtypes import kind_of
from .. import primitives as P
from ..primitives._rules import no_trace
from ..numpy._funcs import _axes as axes_of  # noqa: F401  (re-exported for the nn modules)
from ..typing import Array

__all__ = ["eager", "apply", "fused_kernels", "as_float", "ntuple", "reduce_loss", "keep_shape",
           "axes_of", "check_reduction"]

_STATE = {"fused": True}


@contextlib.contextmanager
def fused_kernels(enabled: bool) -> Iterator[None]:
    """Switch the fused numba/NumPy paths of ``ftrans.nn`` on or off (a context manager).

    ``with ftrans.nn.fused_kernels(False):`` runs every ``ftrans.nn`` function on its
    composition of primitives only (no numba/NumPy fast path).  Results agree to
    rounding; the switch exists for tests and benchmarks.

    Parameters
    ----------
    enabled : bool
        Whether the fused paths may run inside the ``with`` block.

    Yields
    ------
    None
        The previous setting is restored on exit.

    Examples
    --------
    >>> import numpy as np, ftrans.nn as fnn
    >>> with fnn.fused_kernels(False):
    ...     y = fnn.relu(np.array([-1.0, 2.0]))
    >>> y
    array([0., 2.])
    """
    old = _STATE["fused"]
    _STATE["fused"] = bool(enabled)
    try:
        yield
    finally:
        _STATE["fused"] = old


def eager(*arrays: Any) -> bool:
    """True when a fused kernel may run: no transform active, fused paths enabled, and
    every operand (None allowed) a concrete NumPy array."""
    if not _STATE["fused"] or not no_trace():
        return False
    for a in arrays:
        if a is not None and type(a) is not np.ndarray:
            return False
    return True


def apply(core: Any, *args: Any) -> Any:
    """``core(*args)`` for a ``custom_vjp`` ``core``; with no transform active, its
    ``fun`` directly (what the primitive's impl would run, without ~10 us of binding)."""
    if no_trace():
        return core.fun(*args)
    return core(*args)


def as_float(x: Any, name: str = "x") -> Array:
    """``x`` as an array/tracer of an inexact dtype: lists and scalars become arrays,
    integer and bool arrays float64 (NumPy's default).  TypeError for complex input
    (the neural-network functions are defined for real numbers)."""
    if not isinstance(x, Tracer) and not hasattr(x, "__array_namespace__") \
            and not hasattr(x, "__cuda_array_interface__"):
        x = np.asarray(x)
    k = kind_of(x)
    if k == "c":
        raise TypeError(f"ftrans.nn: {name} must be real, got dtype {x.dtype}; pass the real "
                        "part or a real array")
    if k != "f":
        x = P.convert_element_type(x, np.dtype(np.float64))
    return x


def ntuple(v: int | Sequence[int], n: int, name: str, minimum: int = 0) -> tuple[int, ...]:
    """``v`` (an int or a sequence of ``n`` ints) as a tuple of ``n`` ints >= ``minimum``;
    ValueError otherwise."""
    if isinstance(v, (list, tuple)):
        if len(v) != n:
            raise ValueError(f"{name} needs 1 or {n} entries (one per spatial axis), got "
                             f"{tuple(v)}")
        out = tuple(operator.index(a) for a in v)
    else:
        out = (operator.index(cast(int, v)),) * n  # any other sequence: TypeError here
    if any(a < minimum for a in out):
        raise ValueError(f"{name} entries must be >= {minimum}, got {out}")
    return out


def keep_shape(shape: Sequence[int], axes: Sequence[int]) -> tuple[int, ...]:
    """``shape`` with the ``axes`` set to 1 (a keepdims reduction's shape)."""
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


_REDUCTIONS = ("none", "mean", "sum")


def check_reduction(reduction: str, extra: Sequence[str] = ()) -> None:
    if reduction not in _REDUCTIONS + tuple(extra):
        raise ValueError(f"reduction must be one of {_REDUCTIONS + tuple(extra)}, got "
                         f"{reduction!r}")


def reduce_loss(loss: Array, reduction: str) -> Array:
    """PyTorch's reductions of an elementwise loss: 'none' (as is), 'mean' (over every
    element), 'sum'."""
    check_reduction(reduction)
    if reduction == "none":
        return loss
    axes = tuple(range(len(loss.shape)))
    s = P.reduce_sum(loss, axes) if axes else loss
    if reduction == "sum":
        return s
    n = int(np.prod(loss.shape, dtype=np.int64))
    return P.div(s, np.asarray(n, loss.dtype) if n else np.asarray(np.nan, loss.dtype))
