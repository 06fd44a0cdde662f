"""dtypes of the compat layer and PyTorch's type-promotion rule.

A :class:`dtype` wraps a NumPy dtype under PyTorch's name (``float32`` ...) and
prints as PyTorch prints it (``torch.float32``) so that code comparing or printing
dtypes behaves as it does with PyTorch.  The default floating dtype is float32
(``set_default_dtype`` changes it, process-wide, as in PyTorch).

Promotion (:func:`result_type`) follows PyTorch, not NumPy: operands are ranked by
*category* (bool < integer < floating < complex) and by *priority* (tensors with
dimensions > 0-d tensors > Python scalars).  A lower-priority operand only decides
the result when its category is higher, and a Python float/complex then contributes
the default float/complex dtype: ``int64_tensor * 0.5`` is float32,
``float32_tensor + float64_0d_tensor`` is float32, ``int64_tensor / int64_tensor`` is
float32 (true division).
"""
from __future__ import annotations

import builtins
from typing import Any

import numpy as np

_pyfloat = builtins.float
_pyint = builtins.int

__all__ = ["dtype", "float16", "float32", "float64", "complex64", "complex128", "int8",
           "int16", "int32", "int64", "uint8", "bool_", "half", "float", "double", "cfloat",
           "cdouble", "short", "int", "long", "get_default_dtype", "set_default_dtype",
           "to_np", "from_np", "result_type"]


class dtype:
    """A tensor element type (PyTorch's ``torch.dtype``).

    The module's instances (``float32`` ...) are the dtypes; compare them with ``==``.

    Parameters
    ----------
    name : str
        PyTorch's name (``"float32"``).
    np_dtype : numpy dtype-like
        The NumPy dtype of the tensors' arrays.
    tname : str
        PyTorch's legacy tensor type name (``"FloatTensor"``).
    """

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize",
                 "_cat", "_tname")

    def __init__(self, name: str, np_dtype: Any, tname: str) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        kind = self.np.kind
        self.is_floating_point = kind == "f"
        self.is_complex = kind == "c"
        self.is_signed = kind in "ifc"
        self.itemsize = self.np.itemsize
        self._cat = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}[kind]
        self._tname = tname

    def __repr__(self) -> str:
        return "torch." + self.name

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (_by_name, (self.name,))

    def to_real(self) -> dtype:
        """The real dtype of a complex one (``self`` for real dtypes).

        Returns
        -------
        dtype
            float32 for complex64, float64 for complex128.
        """
        return {complex64: float32, complex128: float64}.get(self, self)

    def to_complex(self) -> dtype:
        """The complex dtype of a floating one (``self`` otherwise).

        Returns
        -------
        dtype
            complex64 for float16 and float32, complex128 for float64.
        """
        return {float32: complex64, float64: complex128, float16: complex64}.get(self, self)


float16 = dtype("float16", np.float16, "HalfTensor")
float32 = dtype("float32", np.float32, "FloatTensor")
float64 = dtype("float64", np.float64, "DoubleTensor")
complex64 = dtype("complex64", np.complex64, "ComplexFloatTensor")
complex128 = dtype("complex128", np.complex128, "ComplexDoubleTensor")
int8 = dtype("int8", np.int8, "CharTensor")
int16 = dtype("int16", np.int16, "ShortTensor")
int32 = dtype("int32", np.int32, "IntTensor")
int64 = dtype("int64", np.int64, "LongTensor")
uint8 = dtype("uint8", np.uint8, "ByteTensor")
bool_ = dtype("bool", np.bool_, "BoolTensor")
half, float, double = float16, float32, float64  # noqa: A001 (PyTorch's aliases)
cfloat, cdouble = complex64, complex128
short, int, long = int16, int32, int64  # noqa: A001

_ALL = (float16, float32, float64, complex64, complex128, int8, int16, int32, int64, uint8,
        bool_)
_FROM_NP = {d.np: d for d in _ALL}
_NAMES = {d.name: d for d in _ALL}


def _by_name(name: str) -> dtype:
    return _NAMES[name]


def from_np(np_dtype: Any) -> dtype:
    """The compat dtype of a NumPy dtype (``TypeError`` for an unsupported one)."""
    d = _FROM_NP.get(np_dtype)
    if d is None:
        d = _FROM_NP.get(np.dtype(np_dtype))
        if d is None:
            raise TypeError(f"can't convert np.ndarray of type {np.dtype(np_dtype)}. The only "
                            "supported types are: float64, float32, float16, complex64, "
                            "complex128, int64, int32, int16, int8, uint8, and bool.")
    return d


def to_np(d: Any) -> np.dtype[Any]:
    """NumPy dtype for a compat dtype, a NumPy dtype or a Python type; a string is a
    ``TypeError`` as in PyTorch (``dtype='float32'``: use ``torch.float32``)."""
    if type(d) is dtype:
        return d.np
    if d is None:
        return _default[0].np
    if d is bool:
        return np.dtype(np.bool_)
    if d is _pyfloat:
        return _default[0].np
    if d is _pyint:
        return np.dtype(np.int64)
    if d is complex:
        return default_complex()
    if isinstance(d, str):
        raise TypeError(f"argument 'dtype' must be torch.dtype, not str (got {d!r}; use "
                        f"torch.{d.replace('torch.', '')})")
    return from_np(np.dtype(d)).np



_default = [float32]


def get_default_dtype() -> dtype:
    """The dtype of floating tensors created from Python floats (``torch.get_default_dtype``).

    Returns
    -------
    dtype
        float32 at start.
    """
    return _default[0]


def set_default_dtype(d: dtype) -> None:
    """Set the default floating dtype, process-wide (``torch.set_default_dtype``).

    Parameters
    ----------
    d : dtype
        float16, float32 or float64.

    Raises
    ------
    TypeError
        For another dtype.
    """
    if type(d) is not dtype or d not in (float16, float32, float64):
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default[0] = d
    _cache.clear()


def default_complex() -> np.dtype[Any]:
    return np.dtype(np.complex128) if _default[0] is float64 else np.dtype(np.complex64)


# ----------------------------------------------------------------------------- promotion
_CAT = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def promote_types(a: np.dtype[Any], b: np.dtype[Any]) -> np.dtype[Any]:
    """PyTorch's promote_types on NumPy dtypes: like NumPy's, except that an integer or
    bool with a floating/complex dtype gives that floating/complex dtype (int64 with
    float32 is float32)."""
    ka, kb = _CAT[a.kind], _CAT[b.kind]
    if ka >= 2 > kb:
        return a
    if kb >= 2 > ka:
        return b
    return np.promote_types(a, b)


def _promote(a: np.dtype[Any] | None, b: np.dtype[Any]) -> np.dtype[Any]:
    if a is None:
        return b
    if b is None:
        return a
    return promote_types(a, b)


def _combine(higher: np.dtype[Any] | None,
             lower: np.dtype[Any] | None) -> np.dtype[Any] | None:
    """PyTorch's combine_categories(higher, lower) on NumPy dtypes (None = undefined)."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    hk, lk = higher.kind, lower.kind
    if hk == "c":
        return higher
    if lk == "c":
        if hk == "f":
            return np.dtype(np.complex128) if higher == np.float64 else np.dtype(np.complex64)
        return lower
    if hk == "f":
        return higher
    if hk == "b" or lk == "f":
        return promote_types(higher, lower)
    return higher


_cache: dict[Any, Any] = {}


def scalar_np_dtype(v: Any) -> np.dtype[Any]:
    """dtype a Python scalar contributes in promotion (PyTorch's wrapped numbers)."""
    t = type(v)
    if t is bool or t is np.bool_:
        return np.dtype(np.bool_)
    if t is _pyint or isinstance(v, (_pyint, np.integer)):
        return np.dtype(np.int64)
    if t is complex or isinstance(v, (complex, np.complexfloating)):
        return default_complex()
    return _default[0].np


def result_type(dim_dtypes: tuple[np.dtype[Any], ...], zero_dtypes: tuple[np.dtype[Any], ...],
                scalar_dtypes: tuple[np.dtype[Any], ...]) -> Any:
    """Result NumPy dtype from the dtypes of dimensioned tensors, 0-d tensors and Python
    scalars (each a tuple of NumPy dtypes)."""
    key = (dim_dtypes, zero_dtypes, scalar_dtypes)
    r = _cache.get(key)
    if r is None:
        dim = zero = wrapped = None
        for d in dim_dtypes:
            dim = _promote(dim, d)
        for d in zero_dtypes:
            zero = _promote(zero, d)
        for d in scalar_dtypes:
            wrapped = _promote(wrapped, d)
        r = _cache[key] = _combine(dim, _combine(zero, wrapped))
    return r
