"""Array conversion and comparison: ``copy``, ``asanyarray``, ``asarray_chkfinite``,
``ascontiguousarray``, ``asfortranarray``, ``require``, ``broadcast_shapes``,
``isclose``, ``allclose``, ``array_equal``, ``array_equiv``, ``iscomplex``, ``isreal``,
``iscomplexobj``, ``isrealobj``, ``real_if_close``.

Conversions of a traced array return it (converted where a dtype is asked for): memory
layout has no meaning for a traced value, and ftrans' values are never modified in place,
so a "copy" is the value itself -- the identity, differentiable.  The comparisons are
boolean (non-differentiable).  ``allclose``, ``array_equal`` and ``array_equiv`` return a
Python ``bool``, as NumPy does, so they need concrete values: they work eagerly and under
``grad``/``jvp`` and raise :class:`ftrans.ConcretizationError` inside ``jit``/``vmap`` (use
``fnp.all(fnp.isclose(a, b))`` there).  ``real_if_close`` has a value-dependent dtype and
the same rule.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import Tracer
from ..core.ir import ConcretizationError
from ..core.dtypes import kind_of as _kind_of
from . import _funcs as F
from ..typing import Array, ArrayLike, DTypeLike, ShapeLike
from ._search import _values
from ._args import P

__all__ = ["copy", "asanyarray", "asarray_chkfinite", "ascontiguousarray", "asfortranarray",
           "require", "broadcast_shapes", "isclose", "allclose", "array_equal",
           "array_equiv", "iscomplex", "isreal", "iscomplexobj", "isrealobj",
           "real_if_close"]

_nd = F._ndarray


def _traced(a: Any) -> bool:
    return isinstance(a, Tracer) or (isinstance(a, (list, tuple)) and
                                     any(isinstance(o, Tracer) for o in F._flat(a)))


def copy(a: ArrayLike, order: str = "K", subok: bool = False) -> Array:
    """Copy of an array (a traced array is returned as is).

    A traced array's values are never modified, so it is its own copy.

    Parameters
    ----------
    a : array_like
        Input data.
    order : {'K', 'C', 'F', 'A'}, optional
        Memory layout of a NumPy copy.
    subok : bool, optional
        Keep ndarray subclasses (NumPy's meaning).

    Returns
    -------
    Array
        The copy.

    Notes
    -----
    Differentiable (the identity).
    """
    if _traced(a):
        return F.asarray(a)
    return np.copy(a, order=order, subok=subok)  # type: ignore[call-overload]  # NumPy checks order


def asanyarray(a: Any, dtype: DTypeLike | None = None, order: str | None = None) -> Array:
    """Convert the input to an array (as :func:`ftrans.numpy.asarray`; traced values pass).

    Parameters
    ----------
    a : array_like
        Input data.
    dtype : dtype_like, optional
        Result dtype.
    order : str, optional
        Memory layout of NumPy data.

    Returns
    -------
    Array
        ``a`` as an array.

    Notes
    -----
    Differentiable (identity, or a dtype conversion).
    """
    if _traced(a):
        return F.asarray(a, dtype)
    return np.asanyarray(a, dtype=dtype, order=order)  # type: ignore[arg-type]  # NumPy checks order


def ascontiguousarray(a: Any, dtype: DTypeLike | None = None) -> Array:
    """Contiguous (C order) array of at least one dimension; traced values pass.

    Parameters
    ----------
    a : array_like
        Input data.
    dtype : dtype_like, optional
        Result dtype.

    Returns
    -------
    Array
        At least 1-D.

    Notes
    -----
    Differentiable (identity, or a dtype conversion).
    """
    if _traced(a):
        a = F.asarray(a, dtype)
        return F.reshape(a, (1,)) if a.ndim == 0 else a
    return np.ascontiguousarray(a, dtype=dtype)


def asfortranarray(a: Any, dtype: DTypeLike | None = None) -> Array:
    """Fortran-ordered array of at least one dimension; traced values pass.

    Parameters
    ----------
    a : array_like
        Input data.
    dtype : dtype_like, optional
        Result dtype.

    Returns
    -------
    Array
        At least 1-D.

    Notes
    -----
    Differentiable (identity, or a dtype conversion).
    """
    if _traced(a):
        a = F.asarray(a, dtype)
        return F.reshape(a, (1,)) if a.ndim == 0 else a
    return np.asfortranarray(a, dtype=dtype)


def require(a: Any, dtype: DTypeLike | None = None, requirements: Any = None, *,
            like: Any = None) -> Array:
    """Array of the given dtype meeting layout requirements.

    For traced values only ``dtype`` matters.

    Parameters
    ----------
    a : array_like
        Input data.
    dtype : dtype_like, optional
        Result dtype.
    requirements : str or sequence of str, optional
        NumPy's flags ('C', 'F', 'A', 'W',
        'O', 'E').
    like : None, optional
        NumPy's array-function dispatch argument.

    Returns
    -------
    Array
        ``a`` as such an array.

    Notes
    -----
    Differentiable (identity, or a dtype conversion).
    """
    del like
    if _traced(a):
        return F.asarray(a, dtype)
    return np.require(a, dtype, requirements)


def asarray_chkfinite(a: Any, dtype: DTypeLike | None = None, order: str | None = None) -> Array:
    """Convert the input to an array, checking that it has no infs or NaNs.

    Parameters
    ----------
    a : array_like
        Input data.
    dtype : dtype_like, optional
        Result dtype.
    order : str, optional
        Memory layout of NumPy data.

    Returns
    -------
    Array
        ``a`` as an array.

    Raises
    ------
    ValueError
        If ``a`` contains infs or NaNs (checked on concrete values, eagerly also
        under ``grad``).
    ConcretizationError
        Inside ``jit``/``vmap``, where the values are not concrete.

    Notes
    -----
    Differentiable (identity).
    """
    if not _traced(a):
        return np.asarray_chkfinite(a, dtype=dtype, order=order)  # type: ignore[arg-type]  # NumPy checks order
    a = F.asarray(a, dtype)
    vals = _values(a)
    if vals is None:
        raise ConcretizationError(
            "asarray_chkfinite: the values are abstract here (inside jit or vmap) and "
            "cannot be checked; check them outside, or use fnp.isfinite in the computation")
    if _kind_of(a) in "fc" and not np.isfinite(vals[0]).all():
        raise ValueError("array must not contain infs or NaNs")
    return a


def broadcast_shapes(*args: ShapeLike) -> tuple[int, ...]:
    """Shape of the broadcast of the given shapes.

    Parameters
    ----------
    *args : int or sequence of int
        The shapes.

    Returns
    -------
    tuple of int
        The broadcast shape.
    """
    return np.broadcast_shapes(*args)


# ---------------------------------------------------------------------------------
# comparisons
# ---------------------------------------------------------------------------------
def isclose(a: ArrayLike, b: ArrayLike, rtol: ArrayLike = 1e-05, atol: ArrayLike = 1e-08,
            equal_nan: bool = False) -> Array:
    """Elementwise ``|a - b| <= atol + rtol * |b|``.

    NumPy 2's formula: infinities are close only to themselves, NaN to NaN when
    ``equal_nan``.  Runs under every transform.

    Examples
    --------
    >>> import numpy as np, ftrans.numpy as fnp
    >>> fnp.isclose(np.array([1., np.inf, np.nan]), np.array([1. + 1e-9, np.inf, np.nan]))
    array([ True,  True, False])

    Parameters
    ----------
    a, b : array_like
        Values to compare, broadcast together.
    rtol : array_like, optional
        Relative tolerance.
    atol : array_like, optional
        Absolute tolerance.
    equal_nan : bool, optional
        Count NaNs as equal to each other.

    Returns
    -------
    Array
        Boolean, of the broadcast shape.

    Notes
    -----
    Not differentiable (boolean result).
    """
    x, y = F._arr(a), F._arr(b)
    if isinstance(y, int) and not isinstance(y, bool):
        y = float(y)
    elif not isinstance(y, (bool, float, complex)):
        y = _nd(y)
        dt = np.result_type(np.dtype(y.dtype), 1.0)
        if np.dtype(y.dtype) != dt:
            y = P.convert_element_type(y, dt)
    x = _nd(x) if isinstance(x, bool) else x
    if isinstance(x, (int, float, complex)):
        x = np.asarray(x)
    if isinstance(y, (bool, float, complex)):
        y = np.asarray(y)
    with np.errstate(invalid="ignore"):  # inf - inf: NaN, then not close (NumPy's way)
        res = P.logical_or(
            P.logical_and(P.le(P.abs(P.sub(x, y)), P.add(atol, P.mul(rtol, P.abs(y)))),
                          P.isfinite(y)),
            P.eq(x, y))
        if equal_nan and (_kind_of(x) in "fc" or _kind_of(y) in "fc"):
            res = P.logical_or(res, P.logical_and(P.isnan(x), P.isnan(y)))
    if not isinstance(res, Tracer) and np.ndim(res) == 0:
        return np.asarray(res)[()]
    return res


def _py_bool(name: str, fn: Callable[..., Any], *xs: Any) -> bool:
    vals = _values(*[_nd(x) for x in xs])
    if vals is None:
        raise ConcretizationError(
            f"ftrans.numpy.{name} returns a Python bool, which needs concrete values, but "
            "they are abstract here (inside jit or vmap); use a boolean array instead, "
            "e.g. fnp.all(fnp.isclose(a, b)) or fnp.all(a == b)")
    return fn(*vals)


def allclose(a: ArrayLike, b: ArrayLike, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """Whether all elements of two arrays are close (``all(isclose(a, b, ...))``).

    Parameters
    ----------
    a, b : array_like
        Values to compare (concrete).
    rtol : float, optional
        Relative tolerance.
    atol : float, optional
        Absolute tolerance.
    equal_nan : bool, optional
        Count NaNs as equal to each other.

    Returns
    -------
    bool
        A Python bool.

    Raises
    ------
    ConcretizationError
        For values that are not concrete (inside ``jit``/``vmap``).
    """
    return _py_bool("allclose", lambda x, y: bool(np.allclose(x, y, rtol, atol, equal_nan)),
                    a, b)


def array_equal(a1: ArrayLike, a2: ArrayLike, equal_nan: bool = False) -> bool:
    """Whether two arrays have the same shape and elements.

    Parameters
    ----------
    a1, a2 : array_like
        Arrays to compare (concrete).
    equal_nan : bool, optional
        Count NaNs as equal to each other.

    Returns
    -------
    bool
        A Python bool.

    Raises
    ------
    ConcretizationError
        For values that are not concrete.
    """
    return _py_bool("array_equal", lambda x, y: bool(np.array_equal(x, y, equal_nan)), a1, a2)


def array_equiv(a1: ArrayLike, a2: ArrayLike) -> bool:
    """Whether two arrays are broadcastable and equal.

    Parameters
    ----------
    a1, a2 : array_like
        Arrays to compare (concrete).

    Returns
    -------
    bool
        A Python bool.

    Raises
    ------
    ConcretizationError
        For values that are not concrete.
    """
    return _py_bool("array_equiv", lambda x, y: bool(np.array_equiv(x, y)), a1, a2)


def iscomplexobj(x: ArrayLike) -> bool:
    """Whether the dtype of ``x`` is complex (reads the dtype only).

    Parameters
    ----------
    x : array_like
        Input.

    Returns
    -------
    bool
        A Python bool.
    """
    if isinstance(x, Tracer):
        return _kind_of(x) == "c"
    return np.iscomplexobj(x)


def isrealobj(x: ArrayLike) -> bool:
    """Whether the dtype of ``x`` is not complex.

    Parameters
    ----------
    x : array_like
        Input.

    Returns
    -------
    bool
        ``not iscomplexobj(x)``.
    """
    return not iscomplexobj(x)


def iscomplex(x: ArrayLike) -> Array | np.bool_:
    """Elementwise ``imag(x) != 0`` (False for real dtypes).

    Parameters
    ----------
    x : array_like
        Input.

    Returns
    -------
    Array
        Boolean, ``x``'s shape.

    Notes
    -----
    Not differentiable (boolean result).
    """
    x = _nd(x)
    if _kind_of(x) == "c":
        return P.ne(P.imag(x), 0)
    return np.zeros(tuple(x.shape), bool) if x.ndim else np.False_  # 0-d: a NumPy scalar


def isreal(x: ArrayLike) -> Array | np.bool_:
    """Elementwise ``imag(x) == 0`` (True for real dtypes).

    Parameters
    ----------
    x : array_like
        Input.

    Returns
    -------
    Array
        Boolean, ``x``'s shape.

    Notes
    -----
    Not differentiable (boolean result).
    """
    x = _nd(x)
    if _kind_of(x) == "c":
        return P.eq(P.imag(x), 0)
    return np.ones(tuple(x.shape), bool) if x.ndim else np.True_  # 0-d: a NumPy scalar


def real_if_close(a: ArrayLike, tol: float = 100) -> Array:
    """The real part if every imaginary part is negligible, else the input.

    Parameters
    ----------
    a : array_like
        Input.
    tol : float, optional
        Tolerance in machine epsilons of ``a``'s dtype (``tol <= 1``: an
        absolute tolerance).

    Returns
    -------
    Array
        ``real(a)`` or ``a``.

    Raises
    ------
    ConcretizationError
        Where the choice cannot be made on concrete values.

    Notes
    -----
    Differentiable (through ``real``); the choice needs concrete values.
    """
    a = _nd(a)
    if _kind_of(a) != "c":
        return a
    if tol > 1:
        tol = np.finfo(np.dtype(a.dtype)).eps * tol
    vals = _values(a)
    if vals is None:
        raise ConcretizationError(
            "real_if_close: the result dtype depends on the values, which are abstract here "
            "(inside jit or vmap); use fnp.real(a) explicitly")
    return P.real(a) if np.all(np.abs(vals[0].imag) < tol) else a


def result_type(*arrays_and_dtypes: ArrayLike | DTypeLike) -> np.dtype[Any]:
    """Dtype that results from NumPy's promotion rules applied to the arguments.

    NumPy's own ``numpy.result_type`` (NEP 50: Python scalars are weak).

    Parameters
    ----------
    *arrays_and_dtypes : array_like or dtype_like
        Arrays, scalars and dtypes to promote.

    Returns
    -------
    numpy.dtype
        The promoted dtype.
    """
    return np.result_type(*arrays_and_dtypes)
