"""Reductions other than sum: max, min, prod (differentiable) and argmax/argmin (not).

* ``reduce_max``/``reduce_min``: ties split the derivative evenly among the
  maximal elements (DESIGN.md; PyTorch's ``amax`` rule).  Real dtypes only.
* ``reduce_prod``: the derivative is the product of the *other* elements, computed
  without dividing by zero: with no zero in a slice it is ``prod / x``; with exactly
  one zero only that element gets ``prod(nonzero elements)``; with two or more all
  get 0.  When the rule is itself differentiated (under a transform) the masks of that
  formula would be constants and higher derivatives at zeros wrong, so there the
  products of the others are computed with multiplications only (prefix times suffix
  products).
* ``argmax``/``argmin``: integer results, no derivative.
"""
from __future__ import annotations

import numpy as np

from ..core import Primitive, ShapedArray, zero
from ..kernels import backend_for
from .structural import reduce_sum, reshape, _reduced_shape, _keepdims_shape
from .convert import convert_element_type
from .elementwise import mul, div
from .select import where
from .logic import eq, logical_and
from ._rules import conj, no_trace, move_to_front
from .indexing import gather
from .structural import concatenate, transpose

__all__ = ["reduce_max", "reduce_min", "reduce_prod", "argmax", "argmin"]


def _reduction_abstract_eval(x, *, axes):
    return ShapedArray(_reduced_shape(x.shape, axes), x.dtype)


def _batch_reduction(p):
    """Batching rule of a reduction over ``axes``: batch axis in front, axes shifted."""
    def rule(vals, dims, *, axes):
        return p.bind(move_to_front(vals[0], dims[0]), axes=tuple(a + 1 for a in axes)), 0
    p.batch = rule
    return p


def _keep(v, x, axes):
    """Reshape a reduced value so it broadcasts against ``x``."""
    return reshape(v, _keepdims_shape(x.shape, axes))


def _extremum(name):
    p = Primitive(name)
    kernel = f"reduce_{name[7:]}"

    @p.def_impl
    def impl(x, *, axes):
        return getattr(backend_for(x), kernel)(x, axes, False)

    p.def_abstract_eval(_reduction_abstract_eval)

    def weights(x, ans, axes):
        """(mask of the extremal elements, their count per slice) in keepdims shape."""
        mask = eq(x, _keep(ans, x, axes))
        count = reduce_sum(convert_element_type(mask, x.dtype), axes)
        return mask, _keep(count, x, axes)

    @p.def_jvp
    def jvp(primals, tangents, *, axes):
        (x,), (t,) = primals, tangents
        ans = p.bind(x, axes=axes)
        if t is zero:
            return ans, zero
        mask, count = weights(x, ans, axes)
        return ans, reduce_sum(div(where(mask, t, 0.0), count), axes)

    @p.def_vjp
    def vjp(ct, ans, primals, needs, *, axes):
        (x,) = primals
        mask, count = weights(x, ans, axes)
        return [where(mask, div(_keep(ct, x, axes), count), 0.0)]
    return p


reduce_max_p = _batch_reduction(_extremum("reduce_max"))
reduce_min_p = _batch_reduction(_extremum("reduce_min"))


def reduce_max(x, axes):
    """Maximum over ``axes`` (tuple of non-negative ints), dropping them."""
    return reduce_max_p.bind(x, axes=tuple(axes))


def reduce_min(x, axes):
    """Minimum over ``axes`` (tuple of non-negative ints), dropping them."""
    return reduce_min_p.bind(x, axes=tuple(axes))


# prod --------------------------------------------------------------------------
reduce_prod_p = Primitive("reduce_prod")


@reduce_prod_p.def_impl
def _prod_impl(x, *, axes):
    return backend_for(x).xp.prod(x, axis=axes)


reduce_prod_p.def_abstract_eval(_reduction_abstract_eval)
_batch_reduction(reduce_prod_p)


def _cumprod_rows(v, n):
    """Inclusive cumulative product along axis 1 of the (m, n) array ``v`` (log-step scan
    of multiplications, so it is exactly differentiable)."""
    s = 1
    while s < n:
        v = concatenate([gather(v, (slice(None), slice(0, s))),
                         mul(gather(v, (slice(None), slice(s, n))),
                             gather(v, (slice(None), slice(0, n - s))))], 1)
        s *= 2
    return v


def _prod_of_others_exact(x, axes):
    """The product of the other elements of each slice (x's shape), as prefix times
    suffix products: no division and no masks, hence right at zeros to every order."""
    keep = tuple(i for i in range(x.ndim) if i not in axes)
    perm = keep + tuple(axes)
    m = int(np.prod([x.shape[i] for i in keep], dtype=np.int64))
    n = int(np.prod([x.shape[i] for i in axes], dtype=np.int64))
    if m * n == 0:
        return x  # empty: no values to compute
    if n == 1:
        return backend_for(x).xp.ones(x.shape, x.dtype)
    xt = reshape(transpose(x, perm), (m, n))
    rev = (slice(None), slice(None, None, -1))
    pre = _cumprod_rows(xt, n)
    suf = gather(_cumprod_rows(gather(xt, rev), n), rev)
    col = lambda v, a, b: gather(v, (slice(None), slice(a, b)))  # noqa: E731
    parts = [col(suf, 1, 2)]
    if n > 2:
        parts.append(mul(col(pre, 0, n - 2), col(suf, 2, n)))
    parts.append(col(pre, n - 2, n - 1))
    others = reshape(concatenate(parts, 1), tuple(x.shape[i] for i in perm))
    return transpose(others, tuple(np.argsort(perm).tolist()))


def _prod_of_others(x, axes):
    """For each element, the product of the other elements of its slice (keepdims)."""
    if not no_trace():
        return _prod_of_others_exact(x, axes)
    is0 = eq(x, 0)
    nzeros = _keep(reduce_sum(convert_element_type(is0, np.dtype(np.int64)), axes), x, axes)
    x1 = where(is0, 1.0, x)
    p1 = _keep(reduce_prod(x1, axes), x, axes)
    one_zero_here = logical_and(is0, eq(nzeros, 1))
    return where(eq(nzeros, 0), div(p1, x1), where(one_zero_here, p1, 0.0))


@reduce_prod_p.def_jvp
def _prod_jvp(primals, tangents, *, axes):
    (x,), (t,) = primals, tangents
    ans = reduce_prod_p.bind(x, axes=axes)
    if t is zero:
        return ans, zero
    return ans, reduce_sum(mul(t, _prod_of_others(x, axes)), axes)


@reduce_prod_p.def_vjp
def _prod_vjp(ct, ans, primals, needs, *, axes):
    (x,) = primals
    return [mul(_keep(ct, x, axes), conj(_prod_of_others(x, axes)))]


def reduce_prod(x, axes):
    """Product over ``axes`` (tuple of non-negative ints), dropping them."""
    return reduce_prod_p.bind(x, axes=tuple(axes))


# argmax / argmin -----------------------------------------------------------------
def _arg(name):
    p = Primitive(name, differentiable=False)
    p.lowering = {"kind": "argminmax", "which": name[3:]}  # ftrans.compiler._numba_index

    @p.def_impl
    def impl(x, *, axis):
        return getattr(backend_for(x).xp, name)(x, axis=axis)

    @p.def_abstract_eval
    def abstract_eval(x, *, axis):
        shape = () if axis is None else _reduced_shape(x.shape, (axis,))
        return ShapedArray(shape, np.int64)

    @p.def_batch
    def batch(vals, dims, *, axis):
        xb = move_to_front(vals[0], dims[0])
        if axis is None:
            n = int(np.prod(xb.shape[1:], dtype=np.int64))
            return p.bind(reshape(xb, (xb.shape[0], n)), axis=1), 0
        return p.bind(xb, axis=axis + 1), 0
    return p


argmax_p = _arg("argmax")
argmin_p = _arg("argmin")


def argmax(x, axis):
    """Index of the maximum along ``axis`` (an int, or None for the flattened array)."""
    return argmax_p.bind(x, axis=axis)


def argmin(x, axis):
    """Index of the minimum along ``axis`` (an int, or None for the flattened array)."""
    return argmin_p.bind(x, axis=axis)


# compiler lowering (ftrans.compiler; format in its module docstring)
reduce_max_p.lowering = {"kind": "reduce", "monoid": "max"}
reduce_min_p.lowering = {"kind": "reduce", "monoid": "min"}
reduce_prod_p.lowering = {"kind": "reduce", "monoid": "prod"}
