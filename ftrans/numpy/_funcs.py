"""NumPy functions written as compositions of ftrans primitives.

Signatures, keyword names, broadcasting and promotion follow NumPy 2 (NEP 50:
Python scalars are weak, so ``float32_array * 0.5`` stays float32).  On concrete
arrays with no transform active every function still goes through the
primitives, whose impls are the NumPy kernels, so results equal NumPy's.
"""
from __future__ import annotations

import builtins
import operator

import numpy as np

from ..core import Tracer, result_type
from ..core.dtypes import kind_of as _kind_of
from .. import primitives as P
from ..kernels import backend_for as _backend_for, foreign_array as _foreign_array

_AxisError = np.exceptions.AxisError

# ---------------------------------------------------------------------------------
# argument normalization
# ---------------------------------------------------------------------------------


def _arr(x):
    """Arrays and tracers pass through; Python scalars stay weak; the rest -> ndarray."""
    if isinstance(x, (Tracer, np.ndarray, bool, int, float, complex)) or \
            hasattr(x, "__cuda_array_interface__") or _foreign_array(x):
        return x
    return np.asarray(x)


def _arrs(*xs):
    return [_arr(x) for x in xs]


def _ndarray(x):
    """Like :func:`_arr` but Python scalars become 0-d arrays (for shape-using code)."""
    x = _arr(x)
    return np.asarray(x) if isinstance(x, (bool, int, float, complex)) else x


def _axis(axis, ndim, name="axis"):
    a = operator.index(axis)
    if not -ndim <= a < ndim:
        raise _AxisError(a, ndim)
    return a % ndim


def _axes(axis, ndim):
    """``None`` -> all axes; int or tuple -> sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        out = tuple(sorted(_axis(a, ndim) for a in axis))
        if len(set(out)) != len(out):
            raise ValueError(f"duplicate value in 'axis': {axis!r}")
        return out
    return (_axis(axis, ndim),)


def _keepdims(x, out, axes, keepdims):
    if not keepdims:
        return out
    return P.reshape(out, tuple(1 if i in axes else d for i, d in enumerate(x.shape)))


# ---------------------------------------------------------------------------------
# creation (constants: no derivative flows through them)
# ---------------------------------------------------------------------------------


def array(object, dtype=None, copy=True, ndmin=0):
    """Like ``numpy.array``; a traced input is returned as is (converted if ``dtype``)."""
    if isinstance(object, Tracer):
        return object if dtype is None else P.convert_element_type(object, dtype)
    if isinstance(object, (list, tuple)) and any(isinstance(o, Tracer) for o in _flat(object)):
        return stack([array(o) for o in object]) if dtype is None else \
            P.convert_element_type(stack([array(o) for o in object]), dtype)
    return np.array(object, dtype=dtype, copy=copy, ndmin=ndmin)


def _flat(seq):
    for o in seq:
        if isinstance(o, (list, tuple)):
            yield from _flat(o)
        else:
            yield o


def asarray(a, dtype=None):
    """Like ``numpy.asarray``; traced values pass through (converted if ``dtype``)."""
    if isinstance(a, Tracer) or (isinstance(a, (list, tuple))
                                 and any(isinstance(o, Tracer) for o in _flat(a))):
        return array(a, dtype=dtype)
    if _foreign_array(a):  # Dask, CuPy, array-API arrays stay in their library
        return a if dtype is None else P.convert_element_type(a, np.dtype(dtype))
    return np.asarray(a, dtype=dtype)


def zeros(shape, dtype=float):
    return np.zeros(shape, dtype)


def ones(shape, dtype=float):
    return np.ones(shape, dtype)


def empty(shape, dtype=float):
    return np.zeros(shape, dtype)  # zeros, not garbage: results must be reproducible


def full(shape, fill_value, dtype=None):
    if isinstance(fill_value, Tracer):
        return P.broadcast_to(fill_value if dtype is None else
                              P.convert_element_type(fill_value, dtype),
                              tuple(np.atleast_1d(shape)) if not isinstance(shape, int)
                              else (shape,))
    return np.full(shape, fill_value, dtype)


def _like(x, dtype, shape):
    x = _ndarray(x)
    return (x.shape if shape is None else shape), (x.dtype if dtype is None else dtype)


def _xp_like(a):
    """The array module of ``a``'s library: NumPy for NumPy data (and tracers of it),
    else the kernel seam's NumPy-named namespace of the library (Dask, CuPy, ...)."""
    while isinstance(a, Tracer):
        a = getattr(a, "primal", None) if hasattr(a, "primal") else getattr(a, "val", None)
    if not _foreign_array(a):
        return np
    return _backend_for(a).xp


def zeros_like(a, dtype=None, shape=None):
    return _xp_like(a).zeros(*_like(a, dtype, shape))


def ones_like(a, dtype=None, shape=None):
    return _xp_like(a).ones(*_like(a, dtype, shape))


def empty_like(a, dtype=None, shape=None):
    return _xp_like(a).zeros(*_like(a, dtype, shape))


def full_like(a, fill_value, dtype=None, shape=None):
    s, d = _like(a, dtype, shape)
    xp = _xp_like(a)
    if xp is np:
        return full(s, fill_value, d)
    return xp.full(s, fill_value, dtype=d)


arange = np.arange
linspace = np.linspace
eye = np.eye
identity = np.identity

# ---------------------------------------------------------------------------------
# elementwise math
# ---------------------------------------------------------------------------------


def _unary(prim_op, name, doc=None):
    def f(x):
        return prim_op(_arr(x))
    f.__name__ = name
    f.__doc__ = doc or f"Elementwise ``numpy.{name}``, differentiable."
    return f


def _binary(prim_op, name):
    def f(x1, x2):
        return prim_op(_arr(x1), _arr(x2))
    f.__name__ = name
    f.__doc__ = f"Elementwise ``numpy.{name}`` with broadcasting, differentiable."
    return f


def _from_row(op):
    """The ``ftrans.numpy`` function of an operation-table row (``numpy.<name>``'s
    signature for a ufunc of one or two operands)."""
    f = (_unary if op.arity == 1 else _binary)(getattr(P, op.name), op.numpy)
    diff = ("derivative 0 almost everywhere" if op.deriv and all(d == "0" for d in op.deriv)
            else "differentiable in the first result" if op.outputs > 1
            else "differentiable" if op.differentiable else "no derivative (boolean result)")
    f.__doc__ = (f"{op.doc}\n\nElementwise ``numpy.{op.numpy}`` (NumPy broadcasting and "
                 f"promotion); {diff}.  Generated from the operation table "
                 f"(``ftrans/primitives/optable.py``).")
    return f


#: ``ftrans.numpy`` name -> function, for every row of the operation table
ROW_FUNCTIONS = {}
for _op in P.optable.ROWS:
    if _op.numpy:
        _f = _from_row(_op)
        for _name in (_op.numpy,) + _op.numpy_aliases:
            ROW_FUNCTIONS[_name] = _f
globals().update(ROW_FUNCTIONS)
del _op

add = _binary(P.add, "add")
subtract = _binary(P.sub, "subtract")
multiply = _binary(P.mul, "multiply")
divide = _binary(P.div, "divide")
true_divide = divide
maximum = _binary(P.maximum, "maximum")
minimum = _binary(P.minimum, "minimum")
negative = _unary(P.neg, "negative")
absolute = _unary(P.abs, "absolute", "Elementwise absolute value; derivative 0 at 0.")
abs = absolute


def fabs(x):
    """``numpy.fabs``: the absolute value as a floating-point number (float64 for ints)."""
    out = P.abs(_arr(x))
    if _kind_of(out) not in "fc":
        out = P.convert_element_type(out, np.fabs(np.zeros((), out.dtype)).dtype)
    return out


sign = _unary(P.sign, "sign")
conjugate = _unary(P.conj, "conjugate")
conj = conjugate
real = _unary(P.real, "real")
imag = _unary(P.imag, "imag")
floor = _unary(P.floor, "floor")
ceil = _unary(P.ceil, "ceil")
isfinite = _unary(P.isfinite, "isfinite")
isnan = _unary(P.isnan, "isnan")
isinf = _unary(P.isinf, "isinf")
logical_not = _unary(P.logical_not, "logical_not")
equal = _binary(P.eq, "equal")
not_equal = _binary(P.ne, "not_equal")
less = _binary(P.lt, "less")
less_equal = _binary(P.le, "less_equal")
greater = _binary(P.gt, "greater")
greater_equal = _binary(P.ge, "greater_equal")
logical_and = _binary(P.logical_and, "logical_and")
logical_or = _binary(P.logical_or, "logical_or")
logical_xor = _binary(P.logical_xor, "logical_xor")


def positive(x):
    """``+x`` (a copy for NumPy arrays)."""
    x = _arr(x)
    return x if isinstance(x, Tracer) or _foreign_array(x) else np.positive(x)


def power(x1, x2):
    """``x1 ** x2``; a Python-int exponent uses the exact integer power."""
    x1 = _arr(x1)
    if isinstance(x2, (int, np.integer)) and not isinstance(x2, bool) and \
            (_kind_of(x1) if hasattr(x1, "dtype") else "f") in "fc":
        return P.integer_pow(x1, int(x2))
    return P.pow(x1, _arr(x2))


pow = power  # NumPy 2's name


def square(x):
    return P.integer_pow(_arr(x), 2)


def reciprocal(x):
    x = _arr(x)
    out = P.div(1.0, x)
    dt = result_type(x)
    if dt.kind not in "fc":  # NumPy: integer reciprocal, truncated toward zero
        out = P.convert_element_type(out, np.reciprocal(np.ones((), dt)).dtype)
    return out


def cbrt(x):
    x = _arr(x)
    return P.mul(P.sign(x), P.pow(P.abs(x), 1.0 / 3.0))


def exp2(x):
    return P.pow(2.0, _arr(x))


def log2(x):
    return P.div(P.log(_arr(x)), np.log(2.0).item())


def log10(x):
    return P.div(P.log(_arr(x)), np.log(10.0).item())


def _as_float_result(*xs):
    """Operands of a composite float ufunc cast to its result dtype first, so every
    intermediate has the final precision (``float32 + Python float`` stays float32,
    ``float32 + float64`` is computed in float64, as NumPy does)."""
    xs = _arrs(*xs)
    dt = result_type(*xs, 0.0)
    return [np.asarray(x, dt) if isinstance(x, (bool, int, float, complex))
            else P.convert_element_type(x, dt) for x in xs]


def logaddexp2(x1, x2):
    ln2 = np.log(2.0).item()
    x1, x2 = _as_float_result(x1, x2)
    return P.div(P.logaddexp(P.mul(x1, ln2), P.mul(x2, ln2)), ln2)


def arcsinh(x):
    x = _arr(x)
    return P.log(P.add(x, P.sqrt(P.add(P.mul(x, x), 1.0))))


def arccosh(x):
    x = _arr(x)
    return P.log(P.add(x, P.sqrt(P.sub(P.mul(x, x), 1.0))))


def arctanh(x):
    x = _arr(x)
    return P.mul(0.5, P.log(P.div(P.add(1.0, x), P.sub(1.0, x))))


asinh, acosh, atanh = arcsinh, arccosh, arctanh  # NumPy 2's names


def float_power(x1, x2):
    """``numpy.float_power``: ``x1 ** x2`` computed in float64 (complex128 for complex
    operands), whatever the operands' dtypes; differentiable as ``power``.

    Returns:
        Array of the broadcast shape, dtype float64 or complex128.
    """
    x1, x2 = _ndarray(x1), _ndarray(x2)
    dt = np.dtype(np.complex128 if "c" in (_kind_of(x1), _kind_of(x2)) else np.float64)
    return P.pow(P.convert_element_type(x1, dt), P.convert_element_type(x2, dt))


def _sqrt_flat_at_0(v):
    """``sqrt(v)`` (``v >= 0``) whose derivative is 0, not inf, where ``v == 0``.

    For the norm-like functions ``std``, ``nanstd`` and ``hypot``, whose minimum-norm
    subgradient at their kink is 0 (DESIGN.md: ``v``'s own derivative vanishes there,
    and ``inf * 0`` would be NaN).  Both ``where`` guards keep every derivative finite
    (no "divide by zero" warning) and exact, to any order, where ``v > 0``.
    """
    at0 = P.eq(v, 0)
    return P.where(at0, 0.0, P.sqrt(P.where(at0, 1.0, v)))


def hypot(x1, x2):
    """``numpy.hypot``; the derivative at ``(0, 0)`` is ``(0, 0)`` (the minimum-norm
    subgradient)."""
    x1, x2 = _as_float_result(x1, x2)
    return _sqrt_flat_at_0(P.add(P.mul(x1, x1), P.mul(x2, x2)))


def deg2rad(x):
    return P.mul(_arr(x), np.pi / 180.0)


def rad2deg(x):
    return P.mul(_arr(x), 180.0 / np.pi)


radians = deg2rad
degrees = rad2deg


def angle(z, deg=False):
    z = _arr(z)
    a = P.arctan2(P.imag(z), P.real(z))
    return rad2deg(a) if deg else a


def sinc(x):
    """``sin(pi x) / (pi x)`` with the limit 1 at 0.

    For ``|pi x| < 0.1`` the Maclaurin series to ``u**8`` is used (error < 1e-17), so
    every derivative up to order 8 is right at and near 0 (a constant 1 at 0 would give
    ``sinc''(0) = 0`` instead of ``-pi**2 / 3``); the double ``where`` keeps the other
    branch finite there.
    """
    x = _arr(x)
    u = P.mul(x, np.pi)
    small = P.lt(P.abs(u), 0.1)
    safe = P.where(small, 1.0, u)
    u2 = P.mul(u, u)
    series = P.sub(1.0, P.mul(P.div(u2, 6.0), P.sub(1.0, P.mul(P.div(u2, 20.0), P.sub(
        1.0, P.mul(P.div(u2, 42.0), P.sub(1.0, P.div(u2, 72.0))))))))
    return P.where(small, series, P.div(P.sin(safe), safe))


def round(a, decimals=0):
    if decimals == 0:
        return P.round(_arr(a))
    scale = 10.0 ** decimals
    return P.div(P.round(P.mul(_arr(a), scale)), scale)


around = round


def floor_divide(x1, x2):
    """``x1 // x2`` exactly as NumPy (``2.0 // 0.4 == 4.0``); derivative 0."""
    return P.floor_divide(*_arrs(x1, x2))


def divmod(x1, x2):  # noqa: A001  (numpy.divmod)
    """``numpy.divmod``: ``(floor_divide(x1, x2), remainder(x1, x2))``.

    Derivatives: 0 for the quotient; for the remainder 1 in ``x1`` and
    ``-floor(x1 / x2)`` in ``x2`` (the ``remainder`` row of the operation table).
    """
    return floor_divide(x1, x2), remainder(x1, x2)  # noqa: F821 (an operation-table row)


def where(condition, x=None, y=None):
    """``numpy.where``: three arguments select elementwise (differentiable in x, y);
    one argument returns the indices of the nonzero elements of a concrete array."""
    if x is None and y is None:
        if isinstance(condition, Tracer):
            raise TypeError("where(condition) with one argument needs a concrete condition "
                            "(its result shape depends on the values); use the three-argument "
                            "form inside transforms")
        return np.nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    return P.where(_arr(condition), _arr(x), _arr(y))


def clip(a, a_min=None, a_max=None):
    """Clip to ``[a_min, a_max]``; the derivative w.r.t. ``a`` is 1 on the closed
    interval (inclusive bounds, as PyTorch's ``clamp``) and 0 outside."""
    a = _arr(a)
    if a_min is None and a_max is None:
        raise ValueError("clip: at least one of a_min and a_max must be given")
    if a_min is not None:
        a_min = _arr(a_min)
        a = P.where(P.lt(a, a_min), a_min, a)
    if a_max is not None:
        a_max = _arr(a_max)
        a = P.where(P.gt(a, a_max), a_max, a)
    return a


# ---------------------------------------------------------------------------------
# reductions
# ---------------------------------------------------------------------------------


def sum(a, axis=None, dtype=None, keepdims=False):
    a = _ndarray(a)
    if dtype is not None:
        a = P.convert_element_type(a, dtype)
    elif _kind_of(a) == "b":
        a = P.convert_element_type(a, np.dtype(np.int64))
    axes = _axes(axis, a.ndim)
    return _keepdims(a, P.reduce_sum(a, axes), axes, keepdims)


def _count(a, axes):
    n = 1
    for i in axes:
        n *= a.shape[i]
    return n


def mean(a, axis=None, dtype=None, keepdims=False):
    a = _ndarray(a)
    axes = _axes(axis, a.ndim)
    s = sum(a, axis=axes, dtype=dtype, keepdims=keepdims)
    return P.div(s, _count(a, axes))


def var(a, axis=None, dtype=None, ddof=0, keepdims=False):
    a = _ndarray(a)
    axes = _axes(axis, a.ndim)
    m = mean(a, axis=axes, dtype=dtype, keepdims=True)
    d = P.sub(a, m)
    sq = P.real(P.mul(P.conj(d), d)) if _kind_of(d) == "c" else P.mul(d, d)
    s = sum(sq, axis=axes, dtype=dtype, keepdims=keepdims)
    return P.div(s, builtins.max(_count(a, axes) - ddof, 0))


def std(a, axis=None, dtype=None, ddof=0, keepdims=False):
    """``numpy.std``: ``sqrt(var)``; the derivative of a constant slice is 0."""
    return _sqrt_flat_at_0(var(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims))


def _extremum(prim_op, name):
    def f(a, axis=None, keepdims=False):
        a = _ndarray(a)
        axes = _axes(axis, a.ndim)
        if a.size == 0 and any(a.shape[i] == 0 for i in axes):
            raise ValueError(f"zero-size array to reduction operation {name} which has no "
                             "identity")
        return _keepdims(a, prim_op(a, axes), axes, keepdims)
    f.__name__ = name
    f.__doc__ = (f"``numpy.{name}``; ties share the derivative evenly (DESIGN.md).")
    return f


max = _extremum(P.reduce_max, "max")
min = _extremum(P.reduce_min, "min")
amax = max
amin = min


def prod(a, axis=None, dtype=None, keepdims=False):
    """``numpy.prod``; its derivative is exact also where elements are zero."""
    a = _ndarray(a)
    if dtype is not None:
        a = P.convert_element_type(a, dtype)
    axes = _axes(axis, a.ndim)
    return _keepdims(a, P.reduce_prod(a, axes), axes, keepdims)


def _arg(prim_op):
    def f(a, axis=None, keepdims=False):
        a = _ndarray(a)
        if axis is None:
            out = prim_op(P.reshape(a, (a.size,)) if a.ndim != 1 else a, 0)
            return P.reshape(out, (1,) * a.ndim) if keepdims else out
        ax = _axis(axis, a.ndim)
        out = prim_op(a, ax)
        return P.expand_dims(out, (ax,)) if keepdims else out
    return f


argmax = _arg(P.argmax)
argmin = _arg(P.argmin)

# ---------------------------------------------------------------------------------
# shapes
# ---------------------------------------------------------------------------------


def shape(a):
    return tuple(_ndarray(a).shape)


def ndim(a):
    return len(_ndarray(a).shape)


def size(a, axis=None):
    a = _ndarray(a)
    return int(np.prod(a.shape)) if axis is None else a.shape[axis]


def _infer_shape(size_, newshape):
    if isinstance(newshape, (int, np.integer)):
        newshape = (int(newshape),)
    newshape = tuple(operator.index(d) for d in newshape)
    if newshape.count(-1) > 1:
        raise ValueError("can only specify one unknown dimension (-1)")
    if -1 in newshape:
        known = int(np.prod([d for d in newshape if d != -1]))
        if known == 0 or size_ % known:
            raise ValueError(f"cannot reshape array of size {size_} into shape {newshape}")
        newshape = tuple(size_ // known if d == -1 else d for d in newshape)
    if int(np.prod(newshape)) != size_:
        raise ValueError(f"cannot reshape array of size {size_} into shape {newshape}")
    return newshape


def reshape(a, shape=None, order="C", *, newshape=None):
    if order != "C":
        raise NotImplementedError("ftrans.numpy.reshape supports order='C' only")
    shape = newshape if shape is None else shape
    a = _ndarray(a)
    return P.reshape(a, _infer_shape(a.size, shape))


def ravel(a, order="C"):
    return reshape(a, (-1,), order=order)


def transpose(a, axes=None):
    a = _ndarray(a)
    if axes is None:
        perm = tuple(range(a.ndim))[::-1]
    else:
        perm = tuple(_axis(ax, a.ndim) for ax in axes)
        if sorted(perm) != list(range(a.ndim)):
            raise ValueError(f"axes {axes!r} don't match array of {a.ndim} dimensions")
    return P.transpose(a, perm)


def swapaxes(a, axis1, axis2):
    a = _ndarray(a)
    perm = list(range(a.ndim))
    i, j = _axis(axis1, a.ndim), _axis(axis2, a.ndim)
    perm[i], perm[j] = perm[j], perm[i]
    return P.transpose(a, tuple(perm))


def moveaxis(a, source, destination):
    a = _ndarray(a)
    src = [_axis(s, a.ndim) for s in np.atleast_1d(source)]
    dst = [_axis(d, a.ndim) for d in np.atleast_1d(destination)]
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number "
                         "of elements")
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return P.transpose(a, tuple(order))


def squeeze(a, axis=None):
    a = _ndarray(a)
    if axis is None:
        dims = tuple(i for i, d in enumerate(a.shape) if d == 1)
    else:
        dims = _axes(axis, a.ndim)
        for i in dims:
            if a.shape[i] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not "
                                 f"equal to one (axis {i} has size {a.shape[i]})")
    return P.squeeze(a, dims)


def expand_dims(a, axis):
    a = _ndarray(a)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    out_ndim = a.ndim + len(axes)
    return P.expand_dims(a, tuple(sorted(_axis(x, out_ndim) for x in axes)))


def broadcast_to(array, shape):
    a = _ndarray(array)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    np.broadcast_shapes(a.shape, shape)  # raises ValueError naming both shapes
    return P.broadcast_to(a, shape)


def atleast_1d(a):
    a = _ndarray(a)
    return P.reshape(a, (1,)) if a.ndim == 0 else a


def atleast_2d(a):
    a = _ndarray(a)
    return P.reshape(a, (1,) * (2 - a.ndim) + tuple(a.shape)) if a.ndim < 2 else a


def concatenate(arrays, axis=0, dtype=None):
    arrays = [_ndarray(a) for a in arrays]
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    if axis is None:
        arrays = [ravel(a) for a in arrays]
        axis = 0
    nd = arrays[0].ndim
    if nd == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    for i, a in enumerate(arrays):
        if a.ndim != nd:
            raise ValueError(
                "concatenate: all the input arrays must have same number of dimensions, but "
                f"the array at index 0 has {nd} dimension(s) (shape {tuple(arrays[0].shape)}) "
                f"and the array at index {i} has {a.ndim} (shape {tuple(a.shape)})")
    ax = _axis(axis, nd)
    for i, a in enumerate(arrays):
        for d in range(nd):
            if d != ax and a.shape[d] != arrays[0].shape[d]:
                raise ValueError(
                    f"concatenate: all the input array dimensions except for the "
                    f"concatenation axis (axis={ax}) must match exactly, but along dimension "
                    f"{d}, the array at index 0 has shape {tuple(arrays[0].shape)} and the "
                    f"array at index {i} has shape {tuple(a.shape)}")
    out = P.concatenate(arrays, ax)
    return out if dtype is None else P.convert_element_type(out, dtype)


def stack(arrays, axis=0):
    arrays = [_ndarray(a) for a in arrays]
    if not arrays:
        raise ValueError("need at least one array to stack")
    shapes = {tuple(a.shape) for a in arrays}
    if len(shapes) != 1:
        raise ValueError(f"all input arrays must have the same shape, got {sorted(shapes)}")
    ax = _axis(axis, arrays[0].ndim + 1)
    return P.concatenate([P.expand_dims(a, (ax,)) for a in arrays], ax)


def vstack(tup):
    return concatenate([atleast_2d(a) for a in tup], axis=0)


def hstack(tup):
    arrs = [atleast_1d(a) for a in tup]
    return concatenate(arrs, axis=0 if arrs[0].ndim == 1 else 1)


# ---------------------------------------------------------------------------------
# products
# ---------------------------------------------------------------------------------


def matmul(x1, x2):
    """``x1 @ x2`` with NumPy's rules (1-D promotion, broadcast batch axes).

    Raises
    ------
    ValueError
        For 0-d operands or mismatched contracted sizes (both shapes named).
    """
    a, b = _ndarray(x1), _ndarray(x2)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: Input operand does not have enough dimensions (0-d "
                         "operands are not allowed; use multiply)")
    a1, b1 = a.ndim == 1, b.ndim == 1
    # matrix/batch @ vector and vector @ matrix: one contraction, no axes added and removed
    if b1 and a.shape[-1] == b.shape[0]:
        return P.dot_general(a, b, (((a.ndim - 1,), (0,)), ((), ())))
    if a1 and b.ndim == 2 and a.shape[0] == b.shape[0]:
        return P.dot_general(a, b, (((0,), (0,)), ((), ())))
    if a1:
        a = P.expand_dims(a, (0,))
    if b1:
        b = P.expand_dims(b, (1,))
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"matmul: mismatch in the contracted dimension: shapes "
                         f"{tuple(x1.shape) if hasattr(x1, 'shape') else ()} and "
                         f"{tuple(x2.shape) if hasattr(x2, 'shape') else ()} "
                         f"({a.shape[-1]} != {b.shape[-2]})")
    if a.ndim == 2 and b.ndim == 2:
        out = P.dot_general(a, b, (((1,), (0,)), ((), ())))
    elif b.ndim == 2:  # (..., m, k) @ (k, n): one big matrix product
        out = P.dot_general(a, b, (((a.ndim - 1,), (0,)), ((), ())))
    else:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a = P.broadcast_to(a, batch + tuple(a.shape[-2:]))
        b = P.broadcast_to(b, batch + tuple(b.shape[-2:]))
        nb = len(batch)
        out = P.dot_general(a, b, (((nb + 1,), (nb,)), (tuple(range(nb)), tuple(range(nb)))))
    if a1:
        out = P.squeeze(out, (out.ndim - 2,))
    if b1:
        out = P.squeeze(out, (out.ndim - 1,))
    return out


def dot(a, b):
    """``numpy.dot``: scalars multiply, 1-D inner product, N-D contracts the last axis of
    ``a`` with the second-to-last of ``b``."""
    a, b = _ndarray(a), _ndarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return P.mul(a, b)
    cb = 0 if b.ndim == 1 else b.ndim - 2
    if a.shape[-1] != b.shape[cb]:
        raise ValueError(f"shapes {tuple(a.shape)} and {tuple(b.shape)} not aligned: "
                         f"{a.shape[-1]} (dim {a.ndim - 1}) != {b.shape[cb]} (dim {cb})")
    return P.dot_general(a, b, (((a.ndim - 1,), (cb,)), ((), ())))


def tensordot(a, b, axes=2):
    a, b = _ndarray(a), _ndarray(b)
    if isinstance(axes, (int, np.integer)):
        ca = tuple(range(a.ndim - axes, a.ndim))
        cb = tuple(range(axes))
    else:
        xa, xb = axes
        xa = (xa,) if isinstance(xa, (int, np.integer)) else tuple(xa)
        xb = (xb,) if isinstance(xb, (int, np.integer)) else tuple(xb)
        ca = tuple(_axis(i, a.ndim) for i in xa)
        cb = tuple(_axis(i, b.ndim) for i in xb)
    for i, j in zip(ca, cb):
        if a.shape[i] != b.shape[j]:
            raise ValueError(f"tensordot: shape-mismatch for sum: a.shape[{i}]={a.shape[i]} "
                             f"!= b.shape[{j}]={b.shape[j]}")
    return P.dot_general(a, b, ((ca, cb), ((), ())))


def inner(a, b):
    a, b = _ndarray(a), _ndarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return P.mul(a, b)
    return tensordot(a, b, ((a.ndim - 1,), (b.ndim - 1,)))


def outer(a, b):
    a, b = ravel(a), ravel(b)
    return P.mul(P.expand_dims(a, (1,)), P.expand_dims(b, (0,)))


def vdot(a, b):
    a, b = ravel(a), ravel(b)
    return P.dot_general(P.conj(a), b, (((0,), (0,)), ((), ())))


def trace(a, offset=0, axis1=0, axis2=1):
    a = _ndarray(a)
    n = builtins.min(a.shape[axis1], a.shape[axis2])
    i = np.arange(n)
    idx = [slice(None)] * a.ndim
    idx[axis1] = i if offset >= 0 else i - offset
    idx[axis2] = i + offset if offset >= 0 else i
    keep = [k for k in range(n) if 0 <= idx[axis1][k] < a.shape[axis1]
            and 0 <= idx[axis2][k] < a.shape[axis2]]
    idx[axis1] = idx[axis1][keep]
    idx[axis2] = idx[axis2][keep]
    d = P.gather(a, tuple(idx))
    a1, a2 = axis1 % a.ndim, axis2 % a.ndim
    # NumPy puts the advanced-index axis where the (adjacent) indexed axes were, else first
    pos = builtins.min(a1, a2) if builtins.abs(a1 - a2) == 1 else 0
    return P.reduce_sum(d, (pos,))


def astype(x, dtype):
    return P.convert_element_type(_arr(x), np.dtype(dtype))
