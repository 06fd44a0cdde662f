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

import numpy as np

from ..core.dtypes import kind_of
from .. import primitives as P

__all__ = ["cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"]


def _operand(x, axis, name):
    if not (hasattr(x, "dtype") and hasattr(x, "shape")):
        x = np.asarray(x)
    if x.ndim == 0:
        raise ValueError(f"lax.{name}: the operand must have at least one dimension")
    ax = int(axis)
    if not -x.ndim <= ax < x.ndim:
        raise ValueError(f"lax.{name}: axis {axis} is out of bounds for an operand of rank "
                         f"{x.ndim}")
    return x, ax % x.ndim


def _rev(x, ax):
    return P.gather(x, (slice(None),) * ax + (slice(None, None, -1),))


def _part(x, ax, lo, hi):
    return P.gather(x, (slice(None),) * ax + (slice(lo, hi),))


def _log_step(f, x, ax):
    """Inclusive scan of the associative ``f`` along ``ax`` (Hillis-Steele)."""
    n = x.shape[ax]
    s = 1
    while s < n:
        x = P.concatenate([_part(x, ax, 0, s), f(_part(x, ax, s, n), _part(x, ax, 0, n - s))],
                          ax)
        s *= 2
    return x


def _sequential(f, x, ax):
    """Inclusive scan of ``f`` along ``ax``, one element after the other."""
    acc = _part(x, ax, 0, 1)
    outs = [acc]
    for i in range(1, x.shape[ax]):
        acc = f(acc, _part(x, ax, i, i + 1))
        outs.append(acc)
    return P.concatenate(outs, ax) if len(outs) > 1 else acc


def _cumulative(name, combine, kinds, sequential_complex=False):
    def op(operand, axis=0, reverse=False):
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
    return op


def _logaddexp(a, b):
    """``log(exp(a) + exp(b))``; complex operands shifted by the one of larger real
    part."""
    if kind_of(a) != "c":
        return P.logaddexp(a, b)
    m = P.where(P.ge(P.real(a), P.real(b)), a, b)
    return P.add(m, P.log1p(P.exp(P.sub(P.sub(P.add(a, b), m), m))))


cumsum = _cumulative("cumsum", None, "iufc")
cumsum.__doc__ = """``jax.lax.cumsum``: inclusive sum along ``axis`` (the ``cumsum``
primitive)."""
cumprod = _cumulative("cumprod", P.mul, "iufc")
cumprod.__doc__ = """``jax.lax.cumprod``: inclusive product along ``axis`` (multiplications
only: exact derivatives where elements are 0)."""
cummax = _cumulative("cummax", P.maximum, "biuf")
cummax.__doc__ = """``jax.lax.cummax``: running maximum along ``axis`` (NaN propagates)."""
cummin = _cumulative("cummin", P.minimum, "biuf")
cummin.__doc__ = """``jax.lax.cummin``: running minimum along ``axis`` (NaN propagates)."""
cumlogsumexp = _cumulative("cumlogsumexp", _logaddexp, "fc", sequential_complex=True)
cumlogsumexp.__doc__ = """``jax.lax.cumlogsumexp``: ``log(cumsum(exp(x)))`` along ``axis``,
computed stably (complex operands too, scanned in order)."""
