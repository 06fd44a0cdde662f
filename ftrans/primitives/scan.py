"""Scans and sorting: ``cumsum`` (differentiable, linear) and ``argsort`` (no derivative).

``cumsum(x, axis, reverse)``
    Inclusive cumulative sum along the non-negative ``axis`` (from the end when
    ``reverse``).  Linear with real coefficients, so the JVP applies it to the tangent
    and the VJP is its transpose, the cumulative sum *from the other end*
    (``y_i = sum_{j<=i} x_j``  =>  ``dL/dx_j = sum_{i>=j} dL/dy_i``); no conjugation is
    needed for complex values (PyTorch's convention: the VJP is the adjoint of the JVP).
    The output dtype is the input's (``ftrans.numpy.cumsum`` promotes integers first).

``argsort(x, axis)``
    Indices sorting ``x`` along ``axis`` with a *stable* sort (equal elements keep their
    order; NumPy's default ``kind='quicksort'`` may order ties differently).  NaNs sort
    to the end, complex values lexicographically, as in NumPy.  It has no derivative
    (integer output).  Differentiable sorting is a composition:
    ``sort(x) = take_along_axis(x, argsort(x))``, so sort's VJP scatters the cotangent
    back through the permutation (the transpose of ``gather`` is ``scatter_add``), and
    at ties -- where sorting is continuous but not differentiable -- the derivative
    follows the stable order.

``cumprod`` is deliberately *not* a primitive: its derivative must be exact at zeros,
which rules out the ``cumprod * cumsum(t / x)`` shortcut; ``ftrans.numpy.cumprod``
composes multiplications in a log-step (Hillis-Steele) scan instead, so every order of
derivative is exact (see ``ftrans.numpy._reductions``).
"""
from __future__ import annotations

import numpy as np

from ..core import Primitive, ShapedArray, zero
from ..kernels import backend_for
from ._rules import move_to_front
from ._rules import fit

__all__ = ["cumsum", "argsort"]


# cumsum -------------------------------------------------------------------------
cumsum_p = Primitive("cumsum")
cumsum_p.lowering = {"kind": "cumsum"}  # ftrans.compiler._numba_index


@cumsum_p.def_impl
def _cumsum_impl(x, *, axis, reverse):
    xp = backend_for(x).xp
    if not reverse:
        return xp.cumsum(x, axis=axis, dtype=x.dtype)
    return xp.ascontiguousarray(
        xp.flip(xp.cumsum(xp.flip(x, axis), axis=axis, dtype=x.dtype), axis))


@cumsum_p.def_abstract_eval
def _cumsum_abstract_eval(x, *, axis, reverse):
    return ShapedArray(x.shape, x.dtype)


@cumsum_p.def_jvp
def _cumsum_jvp(primals, tangents, *, axis, reverse):
    (x,), (t,) = primals, tangents
    ans = cumsum_p.bind(x, axis=axis, reverse=reverse)
    if t is zero:
        return ans, zero
    if t.dtype != ans.dtype or t.shape != ans.shape:
        t = fit(t, ans)
    return ans, cumsum_p.bind(t, axis=axis, reverse=reverse)


@cumsum_p.def_vjp
def _cumsum_vjp(ct, ans, primals, needs, *, axis, reverse):
    return [cumsum_p.bind(ct, axis=axis, reverse=not reverse)]


@cumsum_p.def_batch
def _cumsum_batch(vals, dims, *, axis, reverse):
    return cumsum_p.bind(move_to_front(vals[0], dims[0]), axis=axis + 1, reverse=reverse), 0


def cumsum(x, axis, reverse=False):
    """Inclusive cumulative sum of ``x`` along the non-negative ``axis`` (dtype kept)."""
    return cumsum_p.bind(x, axis=int(axis), reverse=bool(reverse))


# argsort ------------------------------------------------------------------------
argsort_p = Primitive("argsort", differentiable=False)
argsort_p.lowering = {"kind": "argsort"}  # ftrans.compiler._numba_index


@argsort_p.def_impl
def _argsort_impl(x, *, axis):
    xp = backend_for(x).xp
    if xp is np:
        return np.argsort(x, axis=axis, kind="stable").astype(np.int64, copy=False)
    out = xp.argsort(x, axis=axis)  # CuPy: always stable; Dask/array API: stable=True
    return out.astype(np.int64, copy=False) if hasattr(out, "astype") else out


@argsort_p.def_abstract_eval
def _argsort_abstract_eval(x, *, axis):
    return ShapedArray(x.shape, np.dtype(np.int64))


@argsort_p.def_batch
def _argsort_batch(vals, dims, *, axis):
    return argsort_p.bind(move_to_front(vals[0], dims[0]), axis=axis + 1), 0


def argsort(x, axis):
    """Stable ``argsort`` of ``x`` along the non-negative ``axis`` (int64 indices)."""
    return argsort_p.bind(x, axis=int(axis))
