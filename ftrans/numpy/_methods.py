"""NumPy-like operators and methods of tracers (installed on ``core.Tracer``)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np

from ..core import Tracer, register_tracer_methods
from ..core.dtypes import kind_of as _kind_of
from ..typing import Array, ArrayLike
from . import _funcs as F


def _swap(f: Callable[..., Any]) -> Callable[[Any, Any], Any]:
    return lambda self, other: f(other, self)


def _getitem(self: Tracer, idx: Any) -> Array:
    return P.gather(self, idx)


def _pow(self: Tracer, other: ArrayLike) -> Array:
    return F.power(self, other)


def _method(f: Callable[..., Any]) -> Callable[..., Any]:
    return lambda self, *args, **kwargs: f(self, *args, **kwargs)


def _reshape(self: Tracer, *shape: Any, order: str = "C") -> Array:
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
        shape = shape[0]
    return F.reshape(self, shape, order=order)


def _transpose(self: Tracer, *axes: Any) -> Array:
    if len(axes) == 1 and not isinstance(axes[0], (int, np.integer)):
        axes = axes[0]
    return F.transpose(self, axes or None)


def _invert(self: Tracer) -> Array:
    if _kind_of(self) != "b":
        raise TypeError(f"~ is defined for boolean traced values only, got {self.dtype}")
    return P.logical_not(self)


METHODS: dict[str, Any] = {
    "__add__": F.add, "__radd__": _swap(F.add),
    "__sub__": F.subtract, "__rsub__": _swap(F.subtract),
    "__mul__": F.multiply, "__rmul__": _swap(F.multiply),
    "__truediv__": F.divide, "__rtruediv__": _swap(F.divide),
    "__floordiv__": F.floor_divide, "__rfloordiv__": _swap(F.floor_divide),
    # %: the remainder row of the operation table (numpy.remainder, exact for every dtype)
    # (an op-table row that _elementwise adds to its globals: mypy does not see it)
    "__mod__": F.remainder, "__rmod__": _swap(F.remainder),  # type: ignore[attr-defined]
    "__divmod__": F.divmod, "__rdivmod__": _swap(F.divmod),
    "__pow__": _pow, "__rpow__": _swap(F.power),
    "__matmul__": F.matmul, "__rmatmul__": _swap(F.matmul),
    "__neg__": F.negative, "__pos__": F.positive, "__abs__": F.absolute,
    "__eq__": F.equal, "__ne__": F.not_equal, "__lt__": F.less, "__le__": F.less_equal,
    "__gt__": F.greater, "__ge__": F.greater_equal,
    "__and__": F.logical_and, "__or__": F.logical_or, "__xor__": F.logical_xor,
    "__invert__": _invert,
    "__getitem__": _getitem,
    "T": property(lambda self: F.transpose(self)),
    "mT": property(lambda self: F.swapaxes(self, -1, -2)),
    "real": property(F.real), "imag": property(F.imag),
    "reshape": _reshape, "transpose": _transpose,
    "sum": _method(F.sum), "mean": _method(F.mean), "var": _method(F.var),
    "std": _method(F.std), "max": _method(F.max), "min": _method(F.min),
    "prod": _method(F.prod), "argmax": _method(F.argmax), "argmin": _method(F.argmin),
    "squeeze": _method(F.squeeze), "ravel": _method(F.ravel), "flatten": _method(F.ravel),
    "swapaxes": _method(F.swapaxes), "dot": _method(F.dot), "clip": _method(F.clip),
    "conj": _method(F.conj), "conjugate": _method(F.conj), "astype": _method(F.astype),
    "round": _method(F.round), "trace": _method(F.trace),
}

UFUNCS: dict[Any, Callable[..., Any]] = {
    # the rows of the operation table whose NumPy function is a ufunc
    **{getattr(np, name): f for name, f in F.ROW_FUNCTIONS.items()
       if isinstance(getattr(np, name, None), np.ufunc)},
    np.add: F.add, np.subtract: F.subtract, np.multiply: F.multiply, np.divide: F.divide,
    np.power: F.power, np.negative: F.negative, np.positive: F.positive,
    np.sqrt: F.sqrt,  # type: ignore[attr-defined]  # (an op-table row, as remainder)
    np.absolute: F.absolute, np.sign: F.sign,
    np.maximum: F.maximum, np.minimum: F.minimum,
    np.conjugate: F.conj, np.matmul: F.matmul, np.square: F.square,
    np.equal: F.equal, np.not_equal: F.not_equal, np.less: F.less,
    np.less_equal: F.less_equal, np.greater: F.greater, np.greater_equal: F.greater_equal,
    np.floor_divide: F.floor_divide,
}

from . import _indexing as _I, _shape as _S, _reductions as _R  # noqa: E402
from . import _nanreductions as _NR  # noqa: E402


def _setitem(self: Tracer, idx: Any, value: Any) -> NoReturn:
    raise TypeError("traced arrays are immutable: x[idx] = v cannot be traced; write "
                    "x = x.at[idx].set(v) (or .add/.multiply/.min/.max) instead")


METHODS.update({
    "at": property(_I.at), "__setitem__": _setitem,
    "take": _method(_I.take), "repeat": _method(_S.repeat), "diagonal": _method(_S.diagonal),
    "cumsum": _method(_R.cumsum), "cumprod": _method(_R.cumprod),
    "argsort": _method(_R.argsort), "all": _method(_NR.all), "any": _method(_NR.any),
})

# NumPy's ndarray methods of issue 19's functions (h-np1)
from . import _search as _Se, _select as _Sl, _construct as _Co  # noqa: E402
METHODS.update({
    "nonzero": _method(_Se.nonzero), "searchsorted": _method(_Se.searchsorted),
    "choose": _method(_Sl.choose), "copy": _method(_Co.copy),
})

# integer operands: NumPy's bitwise operators and ufuncs (ftrans/numpy/_bitwise.py)
from . import _bitwise as _B  # noqa: E402
from ._args import P


def _int_or_logical(bitwise: Callable[..., Any],
                    logical: Callable[..., Any]) -> Callable[[Any, Any], Any]:
    def op(a: Any, b: Any) -> Any:
        kinds = {_kind_of(v) for v in (a, b) if hasattr(v, "dtype")}
        return logical(a, b) if kinds <= {"b"} and not any(
            type(v) is int for v in (a, b)) else bitwise(a, b)
    return op


METHODS.update({
    "__and__": _int_or_logical(_B.bitwise_and, F.logical_and),
    "__or__": _int_or_logical(_B.bitwise_or, F.logical_or),
    "__xor__": _int_or_logical(_B.bitwise_xor, F.logical_xor),
    "__rand__": _swap(_int_or_logical(_B.bitwise_and, F.logical_and)),
    "__ror__": _swap(_int_or_logical(_B.bitwise_or, F.logical_or)),
    "__rxor__": _swap(_int_or_logical(_B.bitwise_xor, F.logical_xor)),
    "__invert__": lambda self: _invert(self) if _kind_of(self) not in "iu" else _B.invert(self),
    "__lshift__": _B.left_shift, "__rlshift__": _swap(_B.left_shift),
    "__rshift__": _B.right_shift, "__rrshift__": _swap(_B.right_shift),
})
UFUNCS.update({getattr(np, n): getattr(_B, n) for n in (
    "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift", "gcd",
    "lcm", "bitwise_count")})

register_tracer_methods(METHODS, UFUNCS)
