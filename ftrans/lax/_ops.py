"""``jax.lax``'s elementwise and structural operations, each an existing primitive.

These are thin, *strict* front ends of the primitives in :mod:`ftrans.primitives` (the
operation table's rows and the structural primitives): nothing is defined twice, every
rule (JVP, VJP, batching, lowering) is the primitive's.  What they add is JAX's
``jax.lax`` contract, which is stricter than NumPy's (``ftrans.numpy``):

* **no promotion**: the operands of a binary operation must have the same dtype, or
  ``TypeError`` is raised (a Python scalar counts as its default dtype: ``bool``,
  ``int64``, ``float64``, ``complex128``, as in JAX with 64-bit types enabled), so
  ``lax.add(x_f32, 1.0)`` is an error as in JAX; use ``ftrans.numpy.add`` to promote;
* **no rank broadcasting**: operands have equal shapes, or are 0-d (scalars), or have
  the same rank with size-1 axes (JAX's elementwise rule); otherwise ``TypeError``;
* **dtype domains**: ``exp``, ``log``, ``sin`` ... accept floating or complex dtypes
  only, ``floor``/``ceil``/``round``/``erf`` floating only (``TypeError`` otherwise);
* integer ``div`` rounds toward zero (C semantics, as ``lax.div``), unlike ``//``;
* ``round`` rounds half away from zero by default (``RoundingMethod.AWAY_FROM_ZERO``).

Source: the ``jax.lax`` API reference (signatures, dtype rules, ``padding_config``,
``dimension_numbers``, ``select_n`` and ``clamp`` semantics), checked against JAX 0.10.
"""
from __future__ import annotations

import builtins
import enum
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core import Tracer
from ..core.dtypes import kind_of
from ..core.pytree import tree_map
from .. import primitives as P
from ..typing import Array, ArrayLike, DTypeLike, PyTree

__all__ = ["add", "sub", "mul", "div", "neg", "exp", "log", "sin", "cos", "tanh", "max",
           "min", "pow", "integer_pow", "sqrt", "rsqrt", "abs", "sign", "floor", "ceil",
           "round", "RoundingMethod", "erf", "dot", "dot_general", "broadcast_in_dim",
           "reshape", "transpose", "slice", "concatenate", "pad", "reduce_sum", "reduce_max",
           "reduce_min", "reduce_prod", "convert_element_type", "stop_gradient", "select_n",
           "clamp"]


def _arr(x: Any, name: str) -> Array:
    """The operand as an array (tracers and arrays as they are; Python scalars 0-d)."""
    if isinstance(x, Tracer) or (hasattr(x, "dtype") and hasattr(x, "shape")):
        return x
    if isinstance(x, (bool, int, float, complex, np.generic)):
        return np.asarray(x)
    raise TypeError(f"lax.{name}: expected an array or a scalar, got {type(x).__name__} "
                    f"(convert it with ftrans.numpy.asarray first)")


def _same_dtypes(name: str, xs: Sequence[Array], tip: str) -> None:
    dts = [np.dtype(x.dtype) for x in xs]
    if builtins.any(d != dts[0] for d in dts):
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                        f"{', '.join(str(d) for d in dts)}. (Tip: ftrans.numpy.{tip} is a "
                        "similar function that does automatic type promotion on inputs).")


def _same_shapes(name: str, xs: Sequence[Array]) -> None:
    shapes = [tuple(x.shape) for x in xs if len(x.shape)]
    if len({len(s) for s in shapes}) > 1:
        raise TypeError(f"{name}: arrays must have the same number of dimensions, got "
                        f"{[len(s) for s in shapes]} (shapes {shapes}); lax operations do "
                        "not broadcast ranks: reshape or use lax.broadcast_in_dim first")
    for dims in zip(*shapes):
        if len(set(dims) - {1}) > 1:
            raise TypeError(f"{name} got incompatible shapes for broadcasting: {shapes}")


def _binary(name: str, prim: Callable[..., Any], tip: str) -> Callable[[ArrayLike, ArrayLike], Array]:
    def op(x: ArrayLike, y: ArrayLike) -> Array:
        x, y = _arr(x, name), _arr(y, name)
        _same_dtypes(name, (x, y), tip)
        _same_shapes(name, (x, y))
        return prim(x, y)
    op.__name__ = name
    op.__doc__ = f"""Elementwise ``{name}`` of two operands of one dtype (``jax.lax.{name}``).

    The ``{prim.__name__}`` primitive, with ``jax.lax``'s strict contract: operands of one
    dtype and one shape (0-d operands and size-1 axes broadcast); no promotion (use
    ``ftrans.numpy.{tip}`` to promote).

    Parameters
    ----------
    x, y : ArrayLike
        The operands (arrays, tracers or Python scalars), of one dtype.

    Returns
    -------
    Array
        The result, of the operands' dtype and broadcast shape.

    Raises
    ------
    TypeError
        Mismatched dtypes or ranks, or incompatible shapes.
    """
    return op


_FLOAT = "f"
_INEXACT = "fc"
_NUMERIC = "iufc"


def _unary(name: str, prim: Callable[..., Any], kinds: str) -> Callable[[ArrayLike], Array]:
    accepted = {"f": "floating", "fc": "floating, complexfloating",
                "iufc": "integer, floating, complexfloating"}[kinds]

    def op(x: ArrayLike) -> Array:
        a = _arr(x, name)
        if kind_of(a) not in kinds:
            raise TypeError(f"{name} does not accept dtype {np.dtype(a.dtype)}. Accepted "
                            f"dtypes are subtypes of {accepted}.")
        return prim(a)
    op.__name__ = name
    op.__doc__ = f"""Elementwise ``{name}`` (``jax.lax.{name}``).

    The ``{getattr(prim, '__name__', name)}`` primitive on dtypes that are subtypes of
    {accepted} (no promotion).

    Parameters
    ----------
    x : ArrayLike
        The operand.

    Returns
    -------
    Array
        The result, of ``x``'s shape and dtype.

    Raises
    ------
    TypeError
        For a dtype outside {accepted}.
    """
    return op


add = _binary("add", P.add, "add")
sub = _binary("sub", P.sub, "subtract")
mul = _binary("mul", P.mul, "multiply")
max = _binary("max", P.maximum, "maximum")
min = _binary("min", P.minimum, "minimum")
neg = _unary("neg", P.neg, _NUMERIC)
abs = _unary("abs", P.abs, _NUMERIC)
sign = _unary("sign", P.sign, _NUMERIC)
exp = _unary("exp", P.ROW_OPS["exp"], _INEXACT)
log = _unary("log", P.ROW_OPS["log"], _INEXACT)
sin = _unary("sin", P.ROW_OPS["sin"], _INEXACT)
cos = _unary("cos", P.ROW_OPS["cos"], _INEXACT)
tanh = _unary("tanh", P.ROW_OPS["tanh"], _INEXACT)
sqrt = _unary("sqrt", P.ROW_OPS["sqrt"], _INEXACT)
rsqrt = _unary("rsqrt", lambda x: P.div(np.ones((), x.dtype), P.ROW_OPS["sqrt"](x)), _INEXACT)
floor = _unary("floor", P.floor, _FLOAT)
ceil = _unary("ceil", P.ceil, _FLOAT)
erf = _unary("erf", P.special.erf, _FLOAT)


def div(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise division ``x / y`` (``jax.lax.div``).

    For integers the quotient is rounded toward zero (C semantics: ``div(-7, 2) == -3``),
    not floored.  Same dtypes and shapes as :func:`add`.

    Parameters
    ----------
    x, y : ArrayLike
        Dividend and divisor, of one dtype.

    Returns
    -------
    Array
        The quotient, of the operands' dtype and broadcast shape.

    Raises
    ------
    TypeError
        Mismatched dtypes or ranks, or incompatible shapes.
    """
    x, y = _arr(x, "div"), _arr(y, "div")
    _same_dtypes("div", (x, y), "divide")
    _same_shapes("div", (x, y))
    if kind_of(x) in "iu":
        q = P.floor_divide(P.abs(x), P.abs(y))
        return q if kind_of(x) == "u" else P.mul(P.mul(q, P.sign(x)), P.sign(y))
    return P.div(x, y)


def pow(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise power ``x ** y`` (``jax.lax.pow``).

    ``x`` floating or complex and ``y`` an integer array or of ``x``'s dtype (the ``pow``
    primitive).

    Parameters
    ----------
    x : ArrayLike
        The base, of a floating or complex dtype.
    y : ArrayLike
        The exponent, integer or of ``x``'s dtype.

    Returns
    -------
    Array
        ``x ** y``, of ``x``'s dtype.

    Raises
    ------
    TypeError
        ``x`` not inexact, or ``y`` inexact of another dtype.
    """
    x, y = _arr(x, "pow"), _arr(y, "pow")
    if kind_of(x) not in _INEXACT or kind_of(y) not in "iufc" or \
            (kind_of(y) in _INEXACT and np.dtype(y.dtype) != np.dtype(x.dtype)):
        raise TypeError("the first argument to pow must have an inexact dtype (float or "
                        "complex), and the second argument must have an inexact or integer "
                        "dtype, and two inexact dtypes must match, but got "
                        f"{np.dtype(x.dtype)} and {np.dtype(y.dtype)}")
    _same_shapes("pow", (x, y))
    return P.pow(x, y)


def integer_pow(x: ArrayLike, y: int) -> Array:
    """Elementwise power ``x ** y`` for a static Python int ``y`` (``jax.lax.integer_pow``).

    The ``integer_pow`` primitive.

    Parameters
    ----------
    x : ArrayLike
        The base.
    y : int
        The exponent, a Python int (negative only for inexact ``x``).

    Returns
    -------
    Array
        ``x ** y``, of ``x``'s dtype and shape.

    Raises
    ------
    TypeError
        ``y`` not an int, or a negative ``y`` with an integer ``x``.
    """
    a = _arr(x, "integer_pow")
    if not isinstance(y, (int, np.integer)) or isinstance(y, bool):
        raise TypeError(f"integer_pow: the exponent must be a Python int, got {y!r}")
    if y < 0 and kind_of(a) in "iu":
        raise TypeError(f"Integers cannot be raised to negative powers, got "
                        f"integer_pow({np.dtype(a.dtype)}{list(a.shape)}, {y})")
    return P.integer_pow(a, int(y))


class RoundingMethod(enum.IntEnum):
    """How :func:`round` breaks ties (``jax.lax.RoundingMethod``).

    Parameters
    ----------
    value : int
        The member's value (``RoundingMethod(1) is RoundingMethod.TO_NEAREST_EVEN``).
    names, module, qualname, type, start, boundary : optional
        :class:`enum.Enum`'s functional API (creating a new enum); not used here.
    """

    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def round(x: ArrayLike,
          rounding_method: RoundingMethod | int = RoundingMethod.AWAY_FROM_ZERO) -> Array:
    """Round to the nearest integer (``jax.lax.round``).

    Ties go away from zero (default, ``round(2.5) == 3``) or to even
    (``TO_NEAREST_EVEN``, NumPy's ``rint``).  Floating dtypes only; derivative 0.

    Parameters
    ----------
    x : ArrayLike
        The operand, of a floating dtype.
    rounding_method : RoundingMethod or int, optional
        How ties are broken.

    Returns
    -------
    Array
        The rounded values, of ``x``'s dtype and shape.

    Raises
    ------
    TypeError
        For a non-floating dtype.
    """
    a = _arr(x, "round")
    if kind_of(a) != "f":
        raise TypeError(f"round does not accept dtype {np.dtype(a.dtype)}. Accepted dtypes "
                        "are subtypes of floating.")
    method = RoundingMethod(int(rounding_method))
    if method == RoundingMethod.TO_NEAREST_EVEN:
        return P.round(a)
    t = P.ROW_OPS["trunc"](a)  # a - trunc(a) is exact, so ties are detected exactly
    return P.where(P.ge(P.abs(P.sub(a, t)), np.asarray(0.5, a.dtype)), P.add(t, P.sign(a)), t)


DimensionNumbers = tuple[tuple[Sequence[int], Sequence[int]], tuple[Sequence[int], Sequence[int]]]


def dot_general(lhs: ArrayLike, rhs: ArrayLike, dimension_numbers: DimensionNumbers,
                precision: Any = None, preferred_element_type: DTypeLike | None = None
                ) -> Array:
    """Contraction with batch axes (``jax.lax.dot_general``).

    The ``dot_general`` primitive.  Output axes: batch, then ``lhs``'s free, then
    ``rhs``'s free axes.

    Parameters
    ----------
    lhs, rhs : ArrayLike
        The operands.
    dimension_numbers : tuple
        ``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``, sequences of axes.
    precision : Any, optional
        Accepted and ignored (the CPU computes in the operands' dtype).
    preferred_element_type : DTypeLike, optional
        Casts the result to this dtype.

    Returns
    -------
    Array
        The contraction.

    Raises
    ------
    TypeError
        Contracting or batch axes of different sizes.
    """
    lhs, rhs = _arr(lhs, "dot_general"), _arr(rhs, "dot_general")
    (lc, rc), (lb, rb) = dimension_numbers
    dn = ((tuple(int(i) for i in lc), tuple(int(i) for i in rc)),
          (tuple(int(i) for i in lb), tuple(int(i) for i in rb)))
    for a, b, what in ((lc, rc, "contracting"), (lb, rb, "batch")):
        sa = [lhs.shape[i] for i in a]
        sb = [rhs.shape[i] for i in b]
        if sa != sb:
            raise TypeError(f"dot_general requires {what} dimensions to have the same shape, "
                            f"got {sa} and {sb}")
    out = P.dot_general(lhs, rhs, dn)
    return out if preferred_element_type is None else \
        convert_element_type(out, preferred_element_type)


def dot(lhs: ArrayLike, rhs: ArrayLike, precision: Any = None,
        preferred_element_type: DTypeLike | None = None) -> Array:
    """Vector-vector, matrix-vector or matrix-matrix product (``jax.lax.dot``).

    The last axis of ``lhs`` with the first of ``rhs``, through :func:`dot_general`.

    Parameters
    ----------
    lhs, rhs : ArrayLike
        Operands of rank 1 or 2.
    precision : Any, optional
        Accepted and ignored.
    preferred_element_type : DTypeLike, optional
        Casts the result to this dtype.

    Returns
    -------
    Array
        The product.

    Raises
    ------
    ValueError
        Operands of rank other than 1 or 2 (use :func:`dot_general`).
    """
    lhs, rhs = _arr(lhs, "dot"), _arr(rhs, "dot")
    if lhs.ndim not in (1, 2) or rhs.ndim not in (1, 2):
        raise ValueError("lax.dot: dimension_numbers must be specified when not performing "
                         "simple un-batched matrix-matrix, matrix-vector, or vector-vector "
                         f"products; got lhs.shape={tuple(lhs.shape)}, "
                         f"rhs.shape={tuple(rhs.shape)} (use lax.dot_general)")
    return dot_general(lhs, rhs, (((lhs.ndim - 1,), (0,)), ((), ())), precision,
                       preferred_element_type)


def broadcast_in_dim(operand: ArrayLike, shape: Sequence[int],
                     broadcast_dimensions: Sequence[int]) -> Array:
    """Broadcast an array into a larger shape (``jax.lax.broadcast_in_dim``).

    ``operand``'s axis ``i`` becomes axis ``broadcast_dimensions[i]`` of the result
    (size-1 axes broadcast).

    Parameters
    ----------
    operand : ArrayLike
        The array to broadcast.
    shape : sequence of int
        The result's shape.
    broadcast_dimensions : sequence of int
        For each axis of ``operand``, the result axis it becomes (strictly increasing).

    Returns
    -------
    Array
        Of ``shape`` and ``operand``'s dtype.

    Raises
    ------
    TypeError
        ``broadcast_dimensions`` of the wrong length, not increasing, or naming an axis
        whose size is neither 1 nor the operand's.
    """
    x = _arr(operand, "broadcast_in_dim")
    shape = tuple(int(n) for n in shape)
    bd = tuple(int(d) for d in broadcast_dimensions)
    if len(bd) != x.ndim or list(bd) != sorted(set(bd)) or \
            builtins.any(d < 0 or d >= len(shape) for d in bd) or \
            builtins.any(x.shape[i] not in (1, shape[d]) for i, d in enumerate(bd)):
        raise TypeError(f"broadcast_in_dim: operand of shape {tuple(x.shape)} cannot be "
                        f"broadcast to {shape} with broadcast_dimensions={bd} (one strictly "
                        "increasing target axis per operand axis, of equal size or size 1)")
    inter = [1] * len(shape)
    for i, d in enumerate(bd):
        inter[d] = x.shape[i]
    if tuple(inter) != tuple(x.shape):
        x = P.reshape(x, tuple(inter))
    return x if tuple(x.shape) == shape else P.broadcast_to(x, shape)


def reshape(operand: ArrayLike, new_sizes: Sequence[int],
            dimensions: Sequence[int] | None = None) -> Array:
    """C-order reshape (``jax.lax.reshape``).

    Parameters
    ----------
    operand : ArrayLike
        The array.
    new_sizes : sequence of int
        The new shape (same total size).
    dimensions : sequence of int, optional
        A permutation to transpose ``operand`` by first.

    Returns
    -------
    Array
        Of shape ``new_sizes``.

    Raises
    ------
    TypeError
        When the total sizes differ.
    """
    x = _arr(operand, "reshape")
    new_sizes = tuple(int(s) for s in new_sizes)
    if int(np.prod(new_sizes, dtype=np.int64)) != int(np.prod(x.shape, dtype=np.int64)):
        raise TypeError(f"reshape total size must be unchanged, got new_sizes {new_sizes} "
                        f"for shape {tuple(x.shape)}")
    if dimensions is not None:
        x = transpose(x, dimensions)
    return x if tuple(x.shape) == new_sizes else P.reshape(x, new_sizes)


def transpose(operand: ArrayLike, permutation: Sequence[int]) -> Array:
    """Permute the axes (``jax.lax.transpose``).

    Parameters
    ----------
    operand : ArrayLike
        The array.
    permutation : sequence of int
        A permutation of ``range(operand.ndim)``: result axis ``i`` is operand axis
        ``permutation[i]``.

    Returns
    -------
    Array
        The transposed array.

    Raises
    ------
    TypeError
        For a non-permutation.
    """
    x = _arr(operand, "transpose")
    perm = tuple(int(p) for p in permutation)
    if sorted(perm) != list(range(x.ndim)):
        raise TypeError(f"transpose permutation isn't a permutation of operand dimensions, "
                        f"got permutation {perm} for operand shape {tuple(x.shape)}")
    return x if perm == tuple(range(x.ndim)) else P.transpose(x, perm)


def slice(operand: ArrayLike, start_indices: Sequence[int], limit_indices: Sequence[int],
          strides: Sequence[int] | None = None) -> Array:
    """The static box ``start <= i < limit`` with ``strides`` (``jax.lax.slice``).

    The ``gather`` primitive with slices.

    Parameters
    ----------
    operand : ArrayLike
        The array.
    start_indices, limit_indices : sequence of int
        Per axis, the first index and one past the last.
    strides : sequence of int, optional
        Per axis, the step (``>= 1``); 1 by default.

    Returns
    -------
    Array
        The slice.

    Raises
    ------
    TypeError
        For out-of-range bounds or a wrong number of entries.
    """
    x = _arr(operand, "slice")
    strides = (1,) * x.ndim if strides is None else tuple(strides)
    if not (len(start_indices) == len(limit_indices) == len(strides) == x.ndim) or \
            builtins.any(not 0 <= s <= e <= n or st < 1 for s, e, st, n in
                         zip(start_indices, limit_indices, strides, x.shape)):
        raise TypeError(f"slice: start_indices {tuple(start_indices)}, limit_indices "
                        f"{tuple(limit_indices)} and strides {strides} must each have one "
                        f"entry per axis of the operand (shape {tuple(x.shape)}), with "
                        "0 <= start <= limit <= size and strides >= 1")
    return P.gather(x, tuple(builtins.slice(int(s), int(e), int(st))
                             for s, e, st in zip(start_indices, limit_indices, strides)))


def concatenate(operands: Sequence[ArrayLike], dimension: int) -> Array:
    """Join arrays of one dtype along ``dimension`` (``jax.lax.concatenate``).

    Parameters
    ----------
    operands : sequence of ArrayLike
        The arrays, of one dtype and equal shapes off ``dimension``.
    dimension : int
        The axis to join along.

    Returns
    -------
    Array
        The concatenation.

    Raises
    ------
    TypeError
        No operands, or operands of different dtypes.
    """
    xs = [_arr(x, "concatenate") for x in operands]
    if not xs:
        raise TypeError("concatenate requires at least one operand")
    _same_dtypes("concatenate", xs, "concatenate")
    return P.concatenate(xs, int(dimension))


def pad(operand: ArrayLike, padding_value: ArrayLike,
        padding_config: Sequence[tuple[int, int, int]]) -> Array:
    """Pad (or, with negative ``lo``/``hi``, crop) each axis (``jax.lax.pad``).

    Parameters
    ----------
    operand : ArrayLike
        The array.
    padding_value : ArrayLike
        A scalar of ``operand``'s dtype (may be traced: it is differentiated).
    padding_config : sequence of (int, int, int)
        ``(lo, hi, interior)`` per axis: ``lo``/``hi`` elements before/after (negative:
        removed), ``interior >= 0`` elements between neighbours.

    Returns
    -------
    Array
        Of size ``lo + hi + n + (n - 1) * interior`` along each axis.

    Raises
    ------
    TypeError
        A ``padding_value`` of another dtype or not a scalar.
    ValueError
        A malformed ``padding_config`` or a negative result size.

    Notes
    -----
    Composition: interior padding scatters the operand into a strided slice
    (``scatter_add``), the pad positions take ``padding_value`` through ``where``,
    edges are concatenated blocks and crops are slices.
    """
    x = _arr(operand, "pad")
    pv = _arr(padding_value, "pad")
    _same_dtypes("pad", (x, pv), "pad")
    if pv.ndim != 0:
        raise TypeError(f"pad: padding_value must be a scalar, got shape {tuple(pv.shape)}")
    cfg = [tuple(int(v) for v in c) for c in padding_config]
    if len(cfg) != x.ndim or builtins.any(len(c) != 3 or c[2] < 0 for c in cfg):
        raise ValueError(f"pad: padding_config must hold one (lo, hi, interior >= 0) per "
                         f"axis of the operand (shape {tuple(x.shape)}), got {padding_config}")
    for ax, (lo, hi, interior) in enumerate(cfg):
        n = x.shape[ax]
        if interior and n > 1:
            m = n + (n - 1) * interior
            shape = tuple(x.shape[:ax]) + (m,) + tuple(x.shape[ax + 1:])
            idx = (builtins.slice(None),) * ax + (builtins.slice(0, m, interior + 1),)
            mask = np.zeros(m, bool)
            mask[::interior + 1] = True
            mask = mask.reshape((m,) + (1,) * (x.ndim - ax - 1))
            x = P.where(mask, P.scatter_add(x, idx, shape), pv)
            n = m
        if lo + hi + n < 0:
            raise ValueError(f"pad: axis {ax} would get negative size {lo + hi + n}")
        if lo < 0 or hi < 0:
            s = builtins.max(-lo, 0)
            e = n - builtins.max(-hi, 0)
            x = P.gather(x, (builtins.slice(None),) * ax + (builtins.slice(s, builtins.max(e, s)),))
        parts = []
        for w in (lo, hi):
            if w > 0:
                parts.append(P.broadcast_to(pv, tuple(x.shape[:ax]) + (w,) + tuple(x.shape[ax + 1:])))
        if parts:
            parts = ([parts[0]] if lo > 0 else []) + [x] + ([parts[-1]] if hi > 0 else [])
            x = P.concatenate(parts, ax)
    return x


def _reduction(name: str, prim: Callable[..., Any]) -> Callable[[ArrayLike, Sequence[int]], Array]:
    def op(operand: ArrayLike, axes: Sequence[int]) -> Array:
        x = _arr(operand, name)
        ax = tuple(int(a) for a in axes)
        if builtins.any(a < 0 or a >= x.ndim for a in ax) or len(set(ax)) != len(ax):
            raise ValueError(f"{name}: axes {ax} must be distinct axes of the operand "
                             f"(rank {x.ndim}, no negative numbers)")
        return prim(x, ax) if ax else x
    op.__name__ = name
    op.__doc__ = f"""Reduce over ``axes`` (``jax.lax.{name}``).

    The ``{name}`` primitive.

    Parameters
    ----------
    operand : ArrayLike
        The array.
    axes : sequence of int
        Distinct, non-negative axes to reduce.

    Returns
    -------
    Array
        ``operand`` without ``axes``, of its dtype.

    Raises
    ------
    ValueError
        Negative, repeated or out-of-range axes.
    """
    return op


reduce_sum = _reduction("reduce_sum", P.reduce_sum)
reduce_max = _reduction("reduce_max", P.reduce_max)
reduce_min = _reduction("reduce_min", P.reduce_min)
reduce_prod = _reduction("reduce_prod", P.reduce_prod)


def convert_element_type(operand: ArrayLike, new_dtype: DTypeLike) -> Array:
    """Cast to ``new_dtype`` (``jax.lax.convert_element_type``).

    Float to int truncates toward zero; complex to real keeps the real part, as XLA;
    differentiable between inexact dtypes.

    Parameters
    ----------
    operand : ArrayLike
        The array.
    new_dtype : DTypeLike
        The target dtype.

    Returns
    -------
    Array
        ``operand`` cast to ``new_dtype``.
    """
    return P.convert_element_type(_arr(operand, "convert_element_type"), np.dtype(new_dtype))


def stop_gradient(x: PyTree) -> PyTree:
    """Every leaf of the pytree ``x`` with a zero derivative (``jax.lax.stop_gradient``).

    Parameters
    ----------
    x : PyTree
        Arrays (leaves) in any pytree structure.

    Returns
    -------
    PyTree
        ``x``'s values, treated as constants by every transform.
    """
    return tree_map(P.stop_gradient, x)


def select_n(which: ArrayLike, *cases: ArrayLike) -> Array:
    """Elementwise ``cases[which]`` (``jax.lax.select_n``).

    Composed of ``where``.

    Parameters
    ----------
    which : ArrayLike
        Boolean (two cases: ``False`` picks ``cases[0]``) or integer (in
        ``[0, len(cases))``), a scalar or of the cases' shape.
    *cases : ArrayLike
        The cases, of one shape and dtype.

    Returns
    -------
    Array
        Of the cases' shape and dtype.

    Raises
    ------
    ValueError
        No cases.
    TypeError
        Mismatched case shapes/dtypes, a ``which`` of another shape, a boolean ``which``
        with more than two cases.
    """
    if not cases:
        raise ValueError("select_n requires at least one case")
    w = _arr(which, "select_n")
    cs = [_arr(c, "select_n") for c in cases]
    _same_dtypes("select_n", cs, "where")
    shape = tuple(cs[0].shape)
    if builtins.any(tuple(c.shape) != shape for c in cs):
        raise TypeError(f"select cases must have the same shapes, got "
                        f"{[tuple(c.shape) for c in cs]}")
    if w.ndim and tuple(w.shape) != shape:
        raise TypeError(f"select `which` must be scalar or have the same shape as cases, got "
                        f"`which` shape {tuple(w.shape)} but case shape {shape}.")
    if kind_of(w) == "b":
        if len(cs) > 2:
            raise TypeError("select_n with a boolean `which` takes at most two cases")
    elif kind_of(w) not in "iu":
        raise TypeError(f"select `which` must be boolean or integer, got {np.dtype(w.dtype)}")
    if len(cs) == 1:
        return cs[0]
    if kind_of(w) == "b":
        out = P.where(w, cs[1], cs[0])
    else:
        out = cs[-1]
        for k in range(len(cs) - 2, -1, -1):
            out = P.where(P.eq(w, k), cs[k], out)
    return out if tuple(out.shape) == shape else P.broadcast_to(out, shape)


def clamp(min: ArrayLike, x: ArrayLike, max: ArrayLike) -> Array:
    """``x`` clipped to ``[min, max]`` (``jax.lax.clamp``).

    Derivatives as JAX's: ``x`` gets the cotangent where ``min < x < max``, ``min`` where
    ``x < min``, ``max`` where ``x > max``; at ties none does (the value there is
    ``stop_gradient(x)``).

    Parameters
    ----------
    min : ArrayLike
        Lower bound, a scalar or of ``x``'s shape.
    x : ArrayLike
        The operand.
    max : ArrayLike
        Upper bound, a scalar or of ``x``'s shape.

    Returns
    -------
    Array
        Of ``x``'s shape and dtype.

    Raises
    ------
    TypeError
        Mismatched dtypes, or bounds of another shape.
    """
    lo, x, hi = _arr(min, "clamp"), _arr(x, "clamp"), _arr(max, "clamp")
    _same_dtypes("clamp", (lo, x, hi), "clip")
    for b, name in ((lo, "min"), (hi, "max")):
        if b.ndim and tuple(b.shape) != tuple(x.shape):
            raise TypeError(f"clamp requires {name}.shape == operand.shape or {name}.shape "
                            f"== (), got {name}.shape={tuple(b.shape)}, "
                            f"operand.shape={tuple(x.shape)}.")
    below, above = P.lt(x, lo), P.gt(x, hi)
    inside = P.where(P.logical_or(P.eq(x, lo), P.eq(x, hi)), P.stop_gradient(x), x)
    out = P.where(below, lo, P.where(above, hi, inside))
    return out if tuple(out.shape) == tuple(x.shape) else P.broadcast_to(out, tuple(x.shape))
