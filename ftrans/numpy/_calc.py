"""Finite differences, quadrature, sequences, products and axis-wise application:
``gradient``, ``trapezoid``, ``logspace``, ``geomspace``, ``matvec``, ``vecmat``,
``apply_along_axis`` and ``apply_over_axes`` (NumPy 2 semantics), as compositions of
ftrans primitives (differentiable in every inexact argument, spacings and sample points
included).
"""
from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from ..core import Tracer, result_type
from ..core.dtypes import kind_of as _kind_of
from ..typing import Array, ArrayLike, Axis, DTypeLike
from ._args import P, _ndarray, _axis, _axes
from . import _funcs as F
from ._reductions import diff
from .linalg import _concrete

__all__ = ["gradient", "trapezoid", "linspace", "logspace", "geomspace", "matvec", "vecmat",
           "apply_along_axis", "apply_over_axes"]


def _sl(nd: int, ax: int, s: slice) -> tuple[slice, ...]:
    return (slice(None),) * ax + (s,)


def _bshape(v: Any, nd: int, ax: int) -> Any:
    """A 1-d array along axis ``ax`` of an ``nd``-d array (size-1 elsewhere)."""
    return F.reshape(v, (1,) * ax + (-1,) + (1,) * (nd - ax - 1))


def gradient(f: ArrayLike, *varargs: ArrayLike, axis: Axis = None,
             edge_order: int = 1) -> Array | tuple[Array, ...]:
    """Numerical gradient of sampled values.

    Second-order central differences inside, first- or second-order (``edge_order``)
    one-sided differences at the boundaries, for uniform spacings or sample coordinates
    (NumPy's formulas; Fornberg 1988, as cited by NumPy).

    >>> gradient([1.0, 2.0, 4.0, 7.0])
    array([1. , 1.5, 2.5, 3. ])

    Parameters
    ----------
    f : array_like
        N-D samples (integers are computed in float64).
    *varargs : array_like
        Spacings: none (1), one scalar for all axes, or one scalar or 1-D
        coordinate array (length ``f.shape[axis]``) per axis.
    axis : int or tuple of int, optional
        Axes to differentiate along; all by default.
    edge_order : {1, 2}, optional
        Accuracy order at the boundaries.

    Returns
    -------
    Array or tuple of Array
        One array (a single axis) or one per axis, ``f``'s shape.

    Raises
    ------
    ValueError
        An axis shorter than ``edge_order + 1``, a bad ``edge_order``, coordinates of
        the wrong length or rank, duplicate axes.
    TypeError
        The wrong number of spacings.

    Notes
    -----
    Differentiable in ``f`` (linear) and in the spacings.
    """
    f = _ndarray(f)
    nd = f.ndim
    axes = _axes(axis, nd) if not isinstance(axis, (tuple, list)) else \
        tuple(_axis(a, nd) for a in axis)
    if len(set(axes)) != len(axes):
        raise ValueError(f"duplicate value in 'axis': {axis!r}")
    n = len(axes)
    dx: list[ArrayLike]
    if len(varargs) == 0:
        dx = [1.0] * n
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        dx = list(varargs) * n
    elif len(varargs) == n:
        dx = list(varargs)
    else:
        raise TypeError("invalid number of arguments")
    if edge_order > 2 or edge_order < 1:
        raise ValueError("'edge_order' greater than 2 not supported")
    if _kind_of(f) not in "fc":
        f = P.convert_element_type(f, np.dtype(np.float64))
    outs = []
    for ax, d in zip(axes, dx):
        m = f.shape[ax]
        if m < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")
        if isinstance(d, (int, float)):  # (Python scalars stay weak)
            outs.append(_grad_uniform(f, d, ax, edge_order))
            continue
        da = _ndarray(d)
        if da.ndim == 0:
            outs.append(_grad_uniform(f, da, ax, edge_order))
            continue
        if da.ndim != 1:
            raise ValueError("distances must be either scalars or 1d")
        if da.shape[0] != m:
            raise ValueError("when 1d, distances must match the length of the "
                             "corresponding dimension")
        if _kind_of(da) not in "fc":
            da = P.convert_element_type(da, np.dtype(np.float64))
        outs.append(_grad_coords(f, diff(da), ax, edge_order))
    # NumPy's result has f's (inexact) dtype whatever the spacings' dtypes
    outs = [o if o.dtype == f.dtype else P.convert_element_type(o, f.dtype) for o in outs]
    return outs[0] if n == 1 else tuple(outs)


def _grad_uniform(f: Any, h: Any, ax: int, edge_order: int) -> Any:
    nd = f.ndim
    g = lambda s: f[_sl(nd, ax, s)]  # noqa: E731
    mid = F.divide(F.subtract(g(slice(2, None)), g(slice(None, -2))), F.multiply(2.0, h))
    if edge_order == 1:
        a = F.divide(F.subtract(g(slice(1, 2)), g(slice(0, 1))), h)
        b = F.divide(F.subtract(g(slice(-1, None)), g(slice(-2, -1))), h)
    else:
        a = F.divide(F.add(F.add(F.multiply(-1.5, g(slice(0, 1))), F.multiply(2.0, g(slice(1, 2)))),
                           F.multiply(-0.5, g(slice(2, 3)))), h)
        b = F.divide(F.add(F.add(F.multiply(0.5, g(slice(-3, -2))),
                                 F.multiply(-2.0, g(slice(-2, -1)))),
                           F.multiply(1.5, g(slice(-1, None)))), h)
    return F.concatenate([a, mid, b], axis=ax)


def _grad_coords(f: Any, dx: Any, ax: int, edge_order: int) -> Any:
    nd = f.ndim
    g = lambda s: f[_sl(nd, ax, s)]  # noqa: E731
    b_ = lambda v: _bshape(v, nd, ax)  # noqa: E731
    dx1, dx2 = dx[:-1], dx[1:]
    a = F.divide(F.negative(dx2), F.multiply(dx1, F.add(dx1, dx2)))
    b = F.divide(F.subtract(dx2, dx1), F.multiply(dx1, dx2))
    c = F.divide(dx1, F.multiply(dx2, F.add(dx1, dx2)))
    mid = F.add(F.add(F.multiply(b_(a), g(slice(None, -2))), F.multiply(b_(b), g(slice(1, -1)))),
                F.multiply(b_(c), g(slice(2, None))))
    if edge_order == 1:
        lo = F.divide(F.subtract(g(slice(1, 2)), g(slice(0, 1))), dx[0])
        hi = F.divide(F.subtract(g(slice(-1, None)), g(slice(-2, -1))), dx[-1])
    else:
        d1, d2 = dx[0], dx[1]
        a = F.negative(F.divide(F.add(F.multiply(2.0, d1), d2), F.multiply(d1, F.add(d1, d2))))
        b = F.divide(F.add(d1, d2), F.multiply(d1, d2))
        c = F.negative(F.divide(d1, F.multiply(d2, F.add(d1, d2))))
        lo = F.add(F.add(F.multiply(a, g(slice(0, 1))), F.multiply(b, g(slice(1, 2)))),
                   F.multiply(c, g(slice(2, 3))))
        d1, d2 = dx[-2], dx[-1]
        a = F.divide(d2, F.multiply(d1, F.add(d1, d2)))
        b = F.negative(F.divide(F.add(d2, d1), F.multiply(d1, d2)))
        c = F.divide(F.add(F.multiply(2.0, d2), d1), F.multiply(d2, F.add(d1, d2)))
        hi = F.add(F.add(F.multiply(a, g(slice(-3, -2))), F.multiply(b, g(slice(-2, -1)))),
                   F.multiply(c, g(slice(-1, None))))
    return F.concatenate([lo, mid, hi], axis=ax)


def trapezoid(y: ArrayLike, x: ArrayLike | None = None, dx: float = 1.0,
              axis: int = -1) -> Array:
    """Integral along an axis by the trapezoidal rule.

    ``sum(d * (y[1:] + y[:-1]) / 2)`` with spacings ``d = diff(x)`` or ``dx``.

    >>> trapezoid([1.0, 2.0, 3.0], x=[0.0, 1.0, 3.0])
    np.float64(6.5)

    Parameters
    ----------
    y : array_like
        Values to integrate.
    x : array_like, optional
        Sample points (1-D or broadcastable to ``y``).
    dx : float, optional
        Uniform spacing when ``x`` is None.
    axis : int, optional
        The axis to integrate along.

    Returns
    -------
    Array
        ``y``'s shape without ``axis``.

    Notes
    -----
    Differentiable in ``y``, ``x`` and ``dx``.
    """
    y = _ndarray(y)
    nd = y.ndim
    ax = _axis(axis, nd)
    d: ArrayLike
    if x is None:
        d = dx
    else:
        x = _ndarray(x)
        if x.ndim == 1:
            d = _bshape(diff(x), nd, ax)
        else:
            d = diff(x, axis=ax)
    lo, hi = y[_sl(nd, ax, slice(None, -1))], y[_sl(nd, ax, slice(1, None))]
    return F.sum(F.divide(F.multiply(d, F.add(hi, lo)), 2.0), axis=ax)


def _traced(*xs: Any) -> bool:
    return any(isinstance(x, Tracer) for x in xs)


def _lin(start: Any, stop: Any, num: int, endpoint: bool, axis: int) -> Any:
    """``linspace`` of traced endpoints: ``start + k * (stop - start) / div``."""
    start, stop = _ndarray(start), _ndarray(stop)
    dt = result_type(start, stop)
    dt = dt if np.dtype(dt).kind in "fc" else np.dtype(np.float64)
    div = (num - 1) if endpoint else num
    t = np.arange(num, dtype=np.float64) / div if div > 0 else np.zeros(num)
    if endpoint and num > 1:
        t[-1] = 1.0
    t = t.astype(np.finfo(dt).dtype)
    shape = np.broadcast_shapes(tuple(start.shape), tuple(stop.shape))
    t = t.reshape((num,) + (1,) * len(shape))
    y = F.add(start, F.multiply(t, F.subtract(stop, start)))
    return F.moveaxis(y, 0, axis) if axis != 0 else y


def linspace(start: ArrayLike, stop: ArrayLike, num: int = 50, endpoint: bool = True,
             retstep: bool = False, dtype: DTypeLike | None = None,
             axis: int = 0) -> Array | tuple[Array, Array]:
    """Evenly spaced samples over an interval.

    Concrete endpoints run NumPy's own ``linspace`` (exact values); traced endpoints give
    ``start + t * (stop - start)`` with ``t = arange(num) / div`` (``div = num - 1`` with
    ``endpoint``, else ``num``) and the last sample exactly ``stop``.

    >>> linspace(0.0, 1.0, 5)
    array([0.  , 0.25, 0.5 , 0.75, 1.  ])

    Parameters
    ----------
    start, stop : array_like
        Endpoints (arrays broadcast as NumPy's).
    num : int, optional
        Number of samples.
    endpoint : bool, optional
        Include ``stop``.
    retstep : bool, optional
        Also return the spacing.
    dtype : dtype_like, optional
        Result dtype (an integer dtype truncates, as NumPy).
    axis : int, optional
        Position of the sample axis for array endpoints.

    Returns
    -------
    Array or tuple of Array
        The samples, and with ``retstep`` the step.

    Raises
    ------
    ValueError
        For a negative ``num``.

    Notes
    -----
    Differentiable in ``start`` and ``stop`` (zero derivative for an integer ``dtype``).
    """
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    if not _traced(start, stop):
        # (NumPy's stub takes narrower array-likes than ArrayLike; NumPy checks them)
        return np.linspace(  # type: ignore[call-overload, misc]
            start, stop, num, endpoint, retstep, dtype, axis)
    y = _lin(start, stop, num, endpoint, axis)
    if dtype is not None:
        y = F.astype(y, dtype)
    if not retstep:
        return y
    div = (num - 1) if endpoint else num
    step = (F.divide(F.subtract(_ndarray(stop), _ndarray(start)), div) if div > 0
            else np.nan)
    return y, step  # type: ignore[return-value]  # step is NumPy's float NaN without a step


def logspace(start: ArrayLike, stop: ArrayLike, num: int = 50, endpoint: bool = True,
             base: ArrayLike = 10.0, dtype: DTypeLike | None = None, axis: int = 0) -> Array:
    """Samples evenly spaced on a log scale: ``base ** linspace(start, stop, num)``.


    >>> logspace(0.0, 2.0, 3)
    array([  1.,  10., 100.])

    Parameters
    ----------
    start, stop : array_like
        Exponents of the first and last samples.
    num : int, optional
        Number of samples.
    endpoint : bool, optional
        Include ``base ** stop``.
    base : array_like, optional
        The base.
    dtype : dtype_like, optional
        Result dtype.
    axis : int, optional
        Position of the sample axis for array arguments.

    Returns
    -------
    Array
        The samples.

    Raises
    ------
    ValueError
        For a negative ``num``.

    Notes
    -----
    Differentiable in ``start``, ``stop`` and ``base``.
    """
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    if not _traced(start, stop, base):
        # (NumPy's stub takes narrower array-likes than ArrayLike; NumPy checks them)
        return np.logspace(start, stop, num, endpoint, base, dtype,  # type: ignore[arg-type, misc]
                           axis)
    y = _lin(start, stop, num, endpoint, 0)
    base = base if isinstance(base, (int, float)) else _ndarray(base)
    if np.ndim(base):
        base = F.expand_dims(base, 0)
    out = F.power(base, y)
    out = F.moveaxis(out, 0, axis) if axis != 0 else out
    return out if dtype is None else F.astype(out, dtype)


def geomspace(start: ArrayLike, stop: ArrayLike, num: int = 50, endpoint: bool = True,
              dtype: DTypeLike | None = None, axis: int = 0) -> Array:
    """Geometric sequence from ``start`` to ``stop`` (the endpoints exact, as NumPy).


    >>> geomspace(1.0, 1000.0, 4)
    array([   1.,   10.,  100., 1000.])

    Parameters
    ----------
    start, stop : array_like
        Endpoints: real, nonzero, of the same sign (complex endpoints
        are computed by NumPy as constants only).
    num : int, optional
        Number of samples.
    endpoint : bool, optional
        Include ``stop``.
    dtype : dtype_like, optional
        Result dtype.
    axis : int, optional
        Position of the sample axis for array endpoints.

    Returns
    -------
    Array
        The samples.

    Raises
    ------
    ValueError
        For a zero endpoint.
    TypeError
        For traced complex endpoints.

    Notes
    -----
    Differentiable in ``start`` and ``stop``.
    """
    num = operator.index(num)
    if not _traced(start, stop):
        # (NumPy's stub takes narrower array-likes than ArrayLike; NumPy checks them)
        return np.geomspace(start, stop, num, endpoint, dtype,  # type: ignore[arg-type, misc]
                            axis)
    start, stop = _ndarray(start), _ndarray(stop)
    if _kind_of(start) == "c" or _kind_of(stop) == "c":
        raise TypeError("geomspace: traced complex endpoints are not supported; pass "
                        "real endpoints")
    for v in (start, stop):
        vc = _concrete(v)
        if vc is not None and np.any(vc == 0):
            raise ValueError("Geometric sequence cannot include zero")
    # NumPy computes in at least float64 (``result_type(start, stop, zeros((), None))``)
    start, stop = (P.convert_element_type(v, np.dtype(np.float64))
                   if v.dtype != np.float64 else v for v in (start, stop))
    sign = F.sign(start)
    # (exp and log are op-table rows that _elementwise adds to its globals)
    y = F.exp(_lin(F.log(F.abs(start)),  # type: ignore[attr-defined]
                   F.log(F.abs(stop)), num, endpoint, 0))  # type: ignore[attr-defined]
    y = F.multiply(sign, y)
    if num > 0:  # exact endpoints
        y = F.concatenate([F.expand_dims(F.multiply(start, 1.0), 0), y[1:]], axis=0)
        if endpoint and num > 1:
            y = F.concatenate([y[:-1], F.expand_dims(F.multiply(stop, 1.0), 0)], axis=0)
    y = F.moveaxis(y, 0, axis) if axis != 0 else y
    return y if dtype is None else F.astype(y, dtype)


def matvec(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """Matrix-vector product per batch (gufunc ``(m,n),(n)->(m)``, no conjugation).

    Parameters
    ----------
    x1 : array_like
        Matrices, shape ``(..., m, n)``.
    x2 : array_like
        Vectors, shape ``(..., n)``; batch axes broadcast.

    Returns
    -------
    Array
        Shape ``(..., m)``.

    Raises
    ------
    ValueError
        For mismatched core dimensions or a rank below the signature's.

    Notes
    -----
    Differentiable (bilinear).
    """
    x1, x2 = _ndarray(x1), _ndarray(x2)
    if x1.ndim < 2 or x2.ndim < 1 or x1.shape[-1] != x2.shape[-1]:
        raise ValueError(f"matvec: expected (..., m, n) and (..., n) operands, got shapes "
                         f"{tuple(x1.shape)} and {tuple(x2.shape)}")
    return F.matmul(x1, F.expand_dims(x2, -1))[..., 0]


def vecmat(x1: ArrayLike, x2: ArrayLike, /) -> Array:
    """Vector-matrix product per batch, ``conj(x1) @ x2`` (gufunc ``(n),(n,m)->(m)``).

    Parameters
    ----------
    x1 : array_like
        Vectors, shape ``(..., n)`` (conjugated, as NumPy).
    x2 : array_like
        Matrices, shape ``(..., n, m)``; batch axes broadcast.

    Returns
    -------
    Array
        Shape ``(..., m)``.

    Raises
    ------
    ValueError
        For mismatched core dimensions.

    Notes
    -----
    Differentiable (conjugate-linear in ``x1``, linear in ``x2``).
    """
    x1, x2 = _ndarray(x1), _ndarray(x2)
    if x1.ndim < 1 or x2.ndim < 2 or x1.shape[-1] != x2.shape[-2]:
        raise ValueError(f"vecmat: expected (..., n) and (..., n, m) operands, got shapes "
                         f"{tuple(x1.shape)} and {tuple(x2.shape)}")
    if _kind_of(x1) == "c":
        x1 = P.conj(x1)
    return F.matmul(F.expand_dims(x1, -2), x2)[..., 0, :]


def apply_along_axis(func1d: Callable[..., Any], axis: int, arr: ArrayLike, *args: Any,
                     **kwargs: Any) -> Array:
    """Apply a function to every 1-D slice along an axis.

    A Python loop, as NumPy's; each call may be differentiated, vmapped, jitted.  The
    results (all of one shape) replace the axis.

    >>> apply_along_axis(lambda r: r[0] + r[-1], 1, np.arange(6.0).reshape(2, 3))
    array([2., 8.])

    Parameters
    ----------
    func1d : callable
        ``func1d(slice, *args, **kwargs)``.
    axis : int
        The axis along which ``arr`` is sliced.
    arr : array_like
        Input array.
    *args : Any
        Further positional arguments of ``func1d``.
    **kwargs : Any
        Further keyword arguments of ``func1d``.

    Returns
    -------
    Array
        The stacked results.

    Raises
    ------
    ValueError
        When an iteration axis has size 0.

    Notes
    -----
    Differentiable when ``func1d`` is.
    """
    arr = _ndarray(arr)
    ax = _axis(axis, arr.ndim)
    moved = F.moveaxis(arr, ax, -1)
    outer = tuple(moved.shape[:-1])
    if any(s == 0 for s in outer):
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    flat = F.reshape(moved, (-1, moved.shape[-1]))
    res = [_ndarray(func1d(flat[i], *args, **kwargs)) for i in range(flat.shape[0])]
    out = F.reshape(F.stack(res), outer + tuple(res[0].shape))
    k = res[0].ndim
    # NumPy: the result's axes go where ``axis`` was
    perm = list(range(ax)) + list(range(len(outer), len(outer) + k)) + \
        list(range(ax, len(outer)))
    return F.transpose(out, perm)


def apply_over_axes(func: Callable[..., Any], a: ArrayLike, axes: int | Sequence[int]) -> Array:
    """Apply a reduction repeatedly over several axes, keeping the rank.

    ``a = func(a, axis)`` for each axis in turn; a reduced axis is re-inserted with size 1.

    >>> apply_over_axes(lambda x, axis: x.sum(axis), np.ones((2, 3)), [0, 1])
    array([[6.]])

    Parameters
    ----------
    func : callable
        ``func(a, axis)``.
    a : array_like
        Input array.
    axes : int or sequence of int
        The axes, in order.

    Returns
    -------
    Array
        ``a``'s rank.

    Raises
    ------
    ValueError
        When ``func`` changes the rank by more than one.

    Notes
    -----
    Differentiable when ``func`` is.
    """
    val = _ndarray(a)
    nd = val.ndim
    # (an int-like, NumPy integers included, counts as one axis)
    ax_seq = cast(Sequence[int], (axes,) if np.ndim(axes) == 0 else axes)
    for axis in ax_seq:
        axis = axis + nd if axis < 0 else axis
        res = _ndarray(func(val, axis))
        if res.ndim == val.ndim:
            val = res
        else:
            res = F.expand_dims(res, axis)
            if res.ndim != val.ndim:
                raise ValueError("function is not returning an array of the correct shape")
            val = res
    return val
