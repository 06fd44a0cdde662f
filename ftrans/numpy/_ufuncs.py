"""NumPy's ufunc protocol (NEP 13) on tracers: ``numpy.sin(x)``, ``numpy.add(x, 1)`` and
the ufunc methods ``reduce``, ``accumulate``, ``outer`` and ``reduceat`` on traced values.

A ufunc runs as the ``ftrans.numpy`` function of its name (so every ufunc ftrans.numpy
covers, including rows added to the operation table later, dispatches automatically).
Its methods are compositions of ftrans.numpy functions, following NumPy's definitions
(https://numpy.org/doc/stable/reference/ufuncs.html#methods):

- ``reduce``: ``add`` -> :func:`sum`, ``multiply`` -> :func:`prod`, ``maximum`` ->
  :func:`max`, ``minimum`` -> :func:`min`, ``logical_and``/``logical_or`` ->
  :func:`all`/:func:`any`; any other binary ufunc folds along the axis (a pairwise tree
  for associative ufuncs, left to right otherwise, as NumPy does).
- ``accumulate``: ``add`` -> :func:`cumsum`, ``multiply`` -> :func:`cumprod`; other
  associative ufuncs by a doubling scan (Hillis & Steele 1986), others left to right.
- ``outer(a, b)``: ``ufunc(a[..., None, ...], b)`` by broadcasting.
- ``reduceat(a, indices)``: ``add`` as one gather and one segment sum
  (``zeros.at[segment].add``); others reduce each segment.  ``indices`` must be concrete.
- ``at`` updates its first argument in place, which cannot be traced: ``TypeError``
  pointing to ``x.at[idx].add(v)`` and friends.

``out=`` raises ``TypeError``; ``dtype=`` casts the inputs (NumPy's rule for a loop of that
dtype); ``where=`` other than True raises.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core import Tracer
from ..core.trace import register_numpy_protocol
from ..typing import Array, ArrayLike, Axis, DTypeLike
from . import _funcs as F
from ._args import _axes, _axis, _ndarray
from ._dispatch import _NoValue, _no_out, _package, array_function, out_error, uncovered_error
from ._indexing import at as _at, take as _take
from ._nanreductions import all as _all, any as _any
from ._reductions import cumprod, cumsum

__all__ = ["array_ufunc", "ufunc_function"]

_REDUCERS: dict[str, Callable[..., Array]] = {
    "add": F.sum, "multiply": F.prod, "maximum": F.max, "minimum": F.min,
    "logical_and": _all, "logical_or": _any}
_ACCUMULATORS: dict[str, Callable[..., Array]] = {"add": cumsum, "multiply": cumprod}
# binary ufuncs with (a o b) o c == a o (b o c): reduced by a tree, scanned by doubling
_ASSOCIATIVE = frozenset({
    "add", "multiply", "maximum", "minimum", "fmax", "fmin", "logaddexp", "logaddexp2",
    "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
    "gcd", "lcm", "hypot"})
_CALL_DEFAULTS = {"casting": "same_kind", "order": "K", "subok": True, "where": True}
# x.at[idx].<method>(v) for ufunc.at(x, idx, v)
_AT_METHODS = {"add": "add", "subtract": "subtract", "multiply": "multiply",
               "divide": "divide", "maximum": "max", "minimum": "min"}


def ufunc_function(ufunc: np.ufunc) -> Callable[..., Any] | None:
    """The ftrans.numpy function of a NumPy ufunc, or ``None`` when it has none."""
    fn = Tracer._ufuncs.get(ufunc)
    if fn is None and getattr(np, ufunc.__name__, None) is ufunc:
        fn = _package().__dict__.get(ufunc.__name__)
        if not callable(fn) or isinstance(fn, (type, np.ufunc)):
            fn = None
    return fn


def _check_out(name: str, out: Any) -> None:
    if not _no_out(out):
        raise out_error(name)


def _same(value: Any, default: Any) -> bool:
    return value is default or (type(value) is type(default) and value == default)


def _call_dtype(name: str, kwargs: dict[str, Any]) -> DTypeLike | None:
    """The ``dtype=`` of a ufunc call; raises for ``out=`` and arguments with no meaning on
    traced values."""
    dtype = None
    for k, v in kwargs.items():
        if k == "out":
            _check_out(name, v)
        elif k == "dtype":
            dtype = v
        elif k not in _CALL_DEFAULTS or not _same(v, _CALL_DEFAULTS[k]):
            raise TypeError(f"{name}(..., {k}={v!r}) is not supported on traced values; drop "
                            f"it (NumPy's default is {_CALL_DEFAULTS.get(k, 'unset')!r}).")
    return dtype


def _cast(xs: Sequence[Any], dtype: DTypeLike | None) -> Sequence[Any]:
    return xs if dtype is None else [F.astype(F.asarray(x), np.dtype(dtype)) for x in xs]


def _loop_dtype(ufunc: np.ufunc, x: Any) -> Any:
    """``x`` cast to the dtype NumPy's loop of ``ufunc`` gives for two operands like it
    (``logical_and`` on floats -> bool)."""
    try:
        dt = ufunc.resolve_dtypes((x.dtype, x.dtype, None))[-1]
    except (TypeError, ValueError, AttributeError):
        return x
    return x if dt == x.dtype else F.astype(x, dt)


def _fold(fn: Callable[..., Any], x: Any, associative: bool) -> Any:
    """``fn`` folded over the leading axis of ``x`` (length >= 1)."""
    if not associative:
        acc = x[0]
        for i in range(1, x.shape[0]):
            acc = fn(acc, x[i])
        return acc
    while x.shape[0] > 1:  # adjacent pairs, order kept: valid for associative fn
        n = x.shape[0]
        h = n // 2
        y = fn(x[0:2 * h:2], x[1:2 * h:2])
        x = y if n % 2 == 0 else F.concatenate([y, x[n - 1:n]], 0)
    return x[0]


def _reduce(name: str, ufunc: np.ufunc, fn: Callable[..., Any], a: ArrayLike, axis: Axis = 0,
            dtype: DTypeLike | None = None, out: Any = None, keepdims: bool = False,
            initial: Any = _NoValue, where: Any = True) -> Array:
    _check_out(name, out)
    if where is not True:
        raise TypeError(f"{name}(..., where=...) is not supported on traced values; mask "
                        "first: np.where(mask, x, identity), then reduce.")
    a = _ndarray(a)
    if dtype is not None:
        a = F.astype(a, np.dtype(dtype))
    axes = _axes(axis, a.ndim)
    red = _REDUCERS.get(ufunc.__name__)
    if red is not None and initial is _NoValue:
        return red(a, axis=axes, keepdims=keepdims)
    assoc = ufunc.__name__ in _ASSOCIATIVE
    if len(axes) > 1 and not assoc:
        raise ValueError(f"reduction operation {ufunc.__name__!r} is not reorderable, so at "
                         "most one axis may be specified")
    rest = tuple(i for i in range(a.ndim) if i not in axes)
    rest_shape = tuple(a.shape[i] for i in rest)
    n = 1
    for i in axes:
        n *= a.shape[i]
    x = _loop_dtype(ufunc, F.reshape(F.transpose(a, axes + rest), (n,) + rest_shape))
    if initial is not _NoValue:
        init = F.asarray(initial)
        init = init if isinstance(initial, Tracer) else F.astype(init, x.dtype)
        x = F.concatenate([F.broadcast_to(init, (1,) + rest_shape), x], 0)
    if x.shape[0] == 0:
        if ufunc.identity is None:
            raise ValueError(f"zero-size array to reduction operation {ufunc.__name__} which "
                             "has no identity")
        res = F.astype(F.full(rest_shape, ufunc.identity), x.dtype)
    else:
        res = _fold(fn, x, assoc)
    return F.expand_dims(res, axes) if keepdims else res


def _accumulate(name: str, ufunc: np.ufunc, fn: Callable[..., Any], a: ArrayLike, axis: int = 0,
                dtype: DTypeLike | None = None, out: Any = None) -> Array:
    _check_out(name, out)
    a = _ndarray(a)
    if a.ndim == 0:
        raise ValueError(f"{name}: cannot accumulate on a scalar")
    ax = _axis(axis, a.ndim)
    acc = _ACCUMULATORS.get(ufunc.__name__)
    if acc is not None:
        return acc(a, axis=ax, dtype=dtype)
    x = _loop_dtype(ufunc, F.moveaxis(_cast([a], dtype)[0], ax, 0))
    n = x.shape[0]
    if ufunc.__name__ in _ASSOCIATIVE:
        s = 1
        while s < n:  # inclusive scan by doubling (Hillis & Steele)
            x = F.concatenate([x[:s], fn(x[:n - s], x[s:])], 0)
            s *= 2
    elif n:
        outs = [x[0]]
        for i in range(1, n):
            outs.append(fn(outs[-1], x[i]))
        x = F.stack(outs)
    return F.moveaxis(x, 0, ax)


def _reduceat(name: str, ufunc: np.ufunc, fn: Callable[..., Any], a: ArrayLike,
              indices: ArrayLike, axis: int = 0, dtype: DTypeLike | None = None,
              out: Any = None) -> Array:
    _check_out(name, out)
    if isinstance(indices, Tracer):
        raise TypeError(f"{name}: indices must be concrete (a list or NumPy array of ints), "
                        "got a traced value")
    idx = np.asarray(indices)
    arr = _cast([_ndarray(a)], dtype)[0]
    ax = _axis(axis, arr.ndim)
    x = F.moveaxis(arr, ax, 0)
    n = x.shape[0]
    if idx.ndim != 1 or (idx.size and idx.dtype.kind not in "iu"):
        raise TypeError(f"{name}: indices must be a 1-d sequence of ints, got {indices!r}")
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError(f"{name}: index out of bounds for axis {ax} with size {n}: "
                         f"{indices!r}")
    ends = np.append(idx[1:], n).astype(np.intp)
    lens = np.where(ends > idx, ends - idx, 1)  # NumPy: idx[i] >= idx[i+1] -> a[idx[i]]
    if ufunc.__name__ == "add":
        pos = np.concatenate([np.arange(s, s + k) for s, k in zip(idx, lens)]
                             or [[]])  # type: ignore[list-item]  # (no segments: empty, cast below)
        seg = np.repeat(np.arange(idx.size), lens)
        g = _take(x, pos.astype(np.intp), axis=0)
        res = _at(F.zeros((idx.size,) + tuple(x.shape[1:]), dtype=g.dtype))[seg].add(g)
    elif idx.size == 0:
        res = F.zeros((0,) + tuple(x.shape[1:]), dtype=x.dtype)
    else:
        res = F.stack([_reduce(name, ufunc, fn, x[s:s + k], axis=0)
                       for s, k in zip(idx.tolist(), lens.tolist())])
    return F.moveaxis(res, 0, ax)


def _outer(name: str, fn: Callable[..., Any], a: ArrayLike, b: ArrayLike,
           **kwargs: Any) -> Array:
    xa, xb = _cast([_ndarray(a), _ndarray(b)], _call_dtype(name, kwargs))
    return fn(F.reshape(xa, tuple(xa.shape) + (1,) * xb.ndim), xb)


def _at_error(name: str, ufunc: np.ufunc) -> TypeError:
    m = _AT_METHODS.get(ufunc.__name__)
    fix = (f"x = x.at[indices].{m}(b)" if m else
           f"x = x.at[indices].set(np.{ufunc.__name__}(x[indices], b))")
    return TypeError(f"{name}.at(x, indices, b) updates x in place, which cannot be traced "
                     f"(traced values are immutable); write {fix} instead.")


def array_ufunc(tracer: Tracer, ufunc: np.ufunc, method: str, inputs: tuple[Any, ...],
                kwargs: dict[str, Any]) -> Any:
    """``Tracer.__array_ufunc__`` (NEP 13): ``ufunc`` (its ``method``) as ftrans.numpy
    functions.

    Parameters
    ----------
    tracer : Tracer
        The traced value among the operands (named in error messages).
    ufunc : numpy.ufunc
        The ufunc called (``numpy.sin``, ``numpy.add`` ...).
    method : str
        ``"__call__"``, ``"reduce"``, ``"accumulate"``, ``"outer"``, ``"reduceat"`` or
        ``"at"``.
    inputs, kwargs : tuple, dict
        The operands and keyword arguments as NumPy normalized them (``out`` a tuple).

    Returns
    -------
    The result, as NumPy's method defines it (module docstring).

    Raises
    ------
    TypeError
        ``ufunc`` is not covered by ftrans.numpy; ``method`` is ``at`` (in place);
        ``out=`` was given.
    ValueError
        ``reduce``/``accumulate``/``outer``/``reduceat`` of a ufunc that is not binary.

    Examples
    --------
    >>> import numpy as np, ftrans
    >>> ftrans.grad(lambda x: np.maximum.accumulate(x)[-1])(np.array([1.0, 3.0, 2.0]))
    array([0., 1., 0.])
    """
    name = (f"numpy.{ufunc.__name__}" if getattr(np, ufunc.__name__, None) is ufunc
            else f"the ufunc {ufunc.__name__!r}")
    if method == "at":
        raise _at_error(name, ufunc)
    fn = ufunc_function(ufunc)
    if fn is None:
        raise uncovered_error(name if method == "__call__" else f"{name}.{method}", tracer)
    if method == "__call__":
        return fn(*_cast(inputs, _call_dtype(name, kwargs)))
    if ufunc.nin != 2 or ufunc.nout != 1:
        raise ValueError(f"{name}.{method} is only supported for binary functions "
                         f"(one output); {ufunc.__name__} takes {ufunc.nin} inputs and "
                         f"gives {ufunc.nout} outputs")
    methods: dict[str, Callable[..., Array]] = {
        "reduce": _reduce, "accumulate": _accumulate, "reduceat": _reduceat}
    meth = methods.get(method)
    if method == "outer":
        return _outer(f"{name}.outer", fn, *inputs, **kwargs)
    if meth is None:
        raise TypeError(f"{name}.{method} is not supported on traced values")
    return meth(f"{name}.{method}", ufunc, fn, *inputs, **kwargs)


class _Protocol:
    """The handler core's Tracer consults (``core.trace.register_numpy_protocol``)."""

    array_function = staticmethod(array_function)
    array_ufunc = staticmethod(array_ufunc)


register_numpy_protocol(_Protocol)
