"""``jax.lax``'s cumulative reductions: ``cumsum``, ``cumprod``, ``cummax``, ``cummin`` and
``cumlogsumexp`` along one axis (``reverse=True``: from the end), as compositions of
primitives.

``cumsum`` is the ``cumsum`` primitive.  The others are inclusive log-step
(Hillis-Steele) scans of their associative binary operation -- ``ceil(log2 n)`` passes of
slices, one elementwise operation and a concatenation -- so every derivative comes from
the primitives' own rules, exactly, at every order: ``cumprod`` multiplies only (no
division by zero where an element is 0), ``cummax``/``cummin`` pass the cotangent to the
element each running extremum comes from (ties of ``maximum``/``minimum`` split it, as
the primitives do), ``cumlogsumexp`` combines pairs with ``logaddexp`` (stable for any
range of values; a complex operand is shifted by the term of larger real part, and is
scanned sequentially so that the imaginary parts add in order, as PyTorch's
``logcumsumexp`` does).

Source: the ``jax.lax`` API reference (``cumsum(operand, axis=0, reverse=False)`` and
its siblings).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.dtypes import kind_of
from .. import primitives as P
from ..typing import Array, ArrayLike

_Combine = Callable[[Array, Array], Array]

__all__ = ["cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"]


def _operand(x: Any, axis: int, name: str) -> tuple[Array, int]:
    if not (hasattr(x, "dtype") and hasattr(x, "shape")):
        x = np.asarray(x)
    if x.ndim == 0:
        raise ValueError(f"lax.{name}: the operand must have at least one dimension")
    ax = int(axis)
    if not -x.ndim <= ax < x.ndim:
        raise ValueError(f"lax.{name}: axis {axis} is out of bounds for an operand of rank "
                         f"{x.ndim}")
    return x, ax % x.ndim


def _rev(x: Array, ax: int) -> Array:
    return P.gather(x, (slice(None),) * ax + (slice(None, None, -1),))


def _part(x: Array, ax: int, lo: int, hi: int) -> Array:
    return P.gather(x, (slice(None),) * ax + (slice(lo, hi),))


def _log_step(f: _Combine, x: Array, ax: int) -> Array:
    """Inclusive scan of the associative ``f`` along ``ax`` (Hillis-Steele)."""
    n = x.shape[ax]
    s = 1
    while s < n:
        x = P.concatenate([_part(x, ax, 0, s), f(_part(x, ax, s, n), _part(x, ax, 0, n - s))],
                          ax)
        s *= 2
    return x


def _sequential(f: _Combine, x: Array, ax: int) -> Array:
    """Inclusive scan of ``f`` along ``ax``, one element after the other."""
    acc = _part(x, ax, 0, 1)
    outs = [acc]
    for i in range(1, x.shape[ax]):
        acc = f(acc, _part(x, ax, i, i + 1))
        outs.append(acc)
    return P.concatenate(outs, ax) if len(outs) > 1 else acc


def _cumulative(name: str, combine: _Combine | None, kinds: str, summary: str,
                sequential_complex: bool = False) -> Callable[..., Array]:
    def op(operand: ArrayLike, axis: int = 0, reverse: bool = False) -> Array:
        x, ax = _operand(operand, axis, name)
        if kind_of(x) not in kinds:
            raise TypeError(f"lax.{name}: operand of dtype {np.dtype(x.dtype)} is not "
                            "supported")
        if reverse:
            x = _rev(x, ax)
        if combine is None:
            r = P.cumsum(x, ax)
        elif sequential_complex and kind_of(x) == "c":
            r = _sequential(combine, x, ax)
        else:
            r = _log_step(combine, x, ax)
        return _rev(r, ax) if reverse else r
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"""{summary}

    Parameters
    ----------
    operand : ArrayLike
        The array, of rank at least 1.
    axis : int, optional
        The axis to scan along (negative counts from the end).
    reverse : bool, optional
        Scan from the end of the axis.

    Returns
    -------
    Array
        Of ``operand``'s shape and dtype.

    Raises
    ------
    ValueError
        A 0-d operand or an out-of-range ``axis``.
    TypeError
        An unsupported dtype.
    """
    return op


def _logaddexp(a: Array, b: Array) -> Array:
    """``log(exp(a) + exp(b))``; complex operands shifted by the one of larger real
    part."""
    if kind_of(a) != "c":
        return P.ROW_OPS["logaddexp"](a, b)
    m = P.where(P.ge(P.real(a), P.real(b)), a, b)
    return P.add(m, P.ROW_OPS["log1p"](P.ROW_OPS["exp"](P.sub(P.sub(P.add(a, b), m), m))))


cumsum = _cumulative("cumsum", None, "iufc", """Inclusive sum along ``axis`` (``jax.lax.cumsum``).

    The ``cumsum`` primitive.""")
cumprod = _cumulative("cumprod", P.mul, "iufc", """Inclusive product along ``axis`` (``jax.lax.cumprod``).

    Multiplications only: exact derivatives where elements are 0.""")
cummax = _cumulative("cummax", P.maximum, "biuf", """Running maximum along ``axis`` (``jax.lax.cummax``).

    NaN propagates.""")
cummin = _cumulative("cummin", P.minimum, "biuf", """Running minimum along ``axis`` (``jax.lax.cummin``).

    NaN propagates.""")
cumlogsumexp = _cumulative("cumlogsumexp", _logaddexp, "fc", """Stable ``log(cumsum(exp(x)))`` along ``axis`` (``jax.lax.cumlogsumexp``).

    Complex operands too, scanned in order.""", sequential_complex=True)
