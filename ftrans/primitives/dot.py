"""``dot_general``: tensor contraction with batch dimensions (XLA's DotGeneral).

``dimension_numbers = ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``,
tuples of axis numbers.  The output's axes are: the batch axes (in the order
given), then the free axes of ``lhs``, then the free axes of ``rhs`` (each in
increasing order).  ``matmul``, ``dot``, ``tensordot``, ``inner``, ``outer`` and
``vdot`` of ``ftrans.numpy`` are all written with it.

The rule is bilinear: the tangent is ``dot(t_lhs, rhs) + dot(lhs, t_rhs)``; the
cotangent of ``lhs`` contracts ``ct`` with ``conj(rhs)`` over ``rhs``'s free axes
and transposes the result back to ``lhs``'s axis order (and symmetrically).
The impl is a single 2-D BLAS call when there are no batch dimensions (free axes
folded into the rows and columns), a broadcast multiply for a stack of outer products
(contracted size 1) and a batched ``matmul`` otherwise.  The batching rule keeps
vmap's batch axes in place and turns a batched operand against an unbatched one into
more free axes, i.e. one 2-D matrix product rather than a batched one.
"""
from __future__ import annotations

from math import prod

import numpy as np

from ..core import Primitive, ShapedArray, zero, result_type
from ..kernels import backend_for
from .structural import transpose
from ._rules import conj, unbroadcast
from ._rules import fit
from .elementwise import add

__all__ = ["dot_general"]

dot_general_p = Primitive("dot_general")


def _free(ndim, contract, batch):
    if not batch:
        return tuple([i for i in range(ndim) if i not in contract])
    return tuple([i for i in range(ndim) if i not in contract and i not in batch])


@dot_general_p.def_impl
def _dot_impl(lhs, rhs, *, dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    be = backend_for(lhs, rhs)
    if type(lhs) is not np.ndarray and hasattr(be, "dot_general"):
        return be.dot_general(lhs, rhs, dimension_numbers)  # array API: no NumPy methods
    ls, rs = lhs.shape, rhs.shape
    lf = _free(len(ls), lc, lb)
    rf = _free(len(rs), rc, rb)
    lfs = [ls[i] for i in lf]
    rfs = [rs[i] for i in rf]
    out_free = (*lfs, *rfs)
    m, n = prod(lfs), prod(rfs)
    k = prod([ls[i] for i in lc])
    if not lb:
        # one 2-D matrix product (m, k) @ (k, n): the reshapes are views unless an
        # operand's axes must be reordered in memory (BLAS reads transposed operands
        # as they are); np.tensordot does the same with ~5 us more Python around it.
        a = lhs.transpose(lf + lc).reshape((m, k))
        b = rhs.transpose(rc + rf).reshape((k, n))
        return be.xp.dot(a, b).reshape(out_free)
    bshape = tuple(ls[i] for i in lb)
    a = lhs.transpose(lb + lf + lc).reshape(bshape + (m, k))
    b = rhs.transpose(rb + rc + rf).reshape(bshape + (k, n))
    if k == 1:
        # a stack of outer products (e.g. the weight cotangent of per-example gradients:
        # vmap(grad) of x @ w): one broadcast multiply; a batched matmul would make one
        # BLAS call per (m x 1) @ (1 x n) item, 3-6x slower.
        out = a * b
    else:
        out = be.matmul(a, b)
    return out.reshape(bshape + out_free)


@dot_general_p.def_abstract_eval
def _dot_abstract_eval(lhs, rhs, *, dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    shape = (tuple(lhs.shape[i] for i in lb)
             + tuple(lhs.shape[i] for i in _free(lhs.ndim, lc, lb))
             + tuple(rhs.shape[i] for i in _free(rhs.ndim, rc, rb)))
    return ShapedArray(shape, result_type(lhs, rhs))


@dot_general_p.def_jvp
def _dot_jvp(primals, tangents, *, dimension_numbers):
    lhs, rhs = primals
    tl, tr = tangents
    ans = dot_general_p.bind(lhs, rhs, dimension_numbers=dimension_numbers)
    out = zero
    if tl is not zero:
        out = dot_general_p.bind(tl, rhs, dimension_numbers=dimension_numbers)
    if tr is not zero:
        c = dot_general_p.bind(lhs, tr, dimension_numbers=dimension_numbers)
        if out is zero:
            out = c
        else:
            out = add(out, c)
    if out is not zero and out.dtype != ans.dtype:
        out = fit(out, ans)
    return ans, out


def _transpose_operand(ct, other, x, x_contract, x_batch, o_contract, o_batch, x_first):
    """Cotangent of operand ``x`` of ``dot_general`` given the other operand ``other``.

    ``x_first`` tells whether ``x`` is the lhs (its free axes come first in ``ct``).
    """
    nb = len(x_batch)
    x_free = _free(x.ndim, x_contract, x_batch)
    o_free = _free(other.ndim, o_contract, o_batch)
    # positions of other's free axes in ct
    if x_first:
        ct_o_free = tuple(range(nb + len(x_free), nb + len(x_free) + len(o_free)))
    else:
        ct_o_free = tuple(range(nb, nb + len(o_free)))
    ct_batch = tuple(range(nb))
    # result axes: batch, x free (ct's remaining free axes, in order), then other's
    # contracted axes in increasing order -> map back to x's contracted axes.
    g = dot_general_p.bind(ct, conj(other),
                           dimension_numbers=((ct_o_free, o_free), (ct_batch, o_batch)))
    o_contract_sorted = sorted(range(len(o_contract)), key=lambda i: o_contract[i])
    pos = {}
    for j, b in enumerate(x_batch):
        pos[b] = j
    for j, f in enumerate(x_free):
        pos[f] = nb + j
    for rank, i in enumerate(o_contract_sorted):
        pos[x_contract[i]] = nb + len(x_free) + rank
    perm = tuple(pos[d] for d in range(x.ndim))
    return transpose(g, perm)


@dot_general_p.def_vjp
def _dot_vjp(ct, ans, primals, needs, *, dimension_numbers):
    lhs, rhs = primals
    (lc, rc), (lb, rb) = dimension_numbers
    res = [None, None]
    if needs[0]:
        res[0] = unbroadcast(_transpose_operand(ct, rhs, lhs, lc, lb, rc, rb, True), lhs)
    if needs[1]:
        res[1] = unbroadcast(_transpose_operand(ct, lhs, rhs, rc, rb, lc, lb, False), rhs)
    return res


@dot_general_p.def_batch
def _dot_batch(vals, dims, *, dimension_numbers):
    """The batch axes stay where they are (no transposed copies here; the impl makes the
    one layout change BLAS needs).  Both batched: the two batch axes become a new
    leading batch dimension of the contraction.  One batched: its batch axis becomes one
    more *free* axis of that operand, so a batched operand against an unbatched one is
    still a single 2-D matrix product (one BLAS call, the batch folded into the rows or
    columns); it lands among that operand's free axes of the output, in axis order."""
    (lc, rc), (lb, rb) = dimension_numbers
    lhs, rhs = vals
    ld, rd = dims

    def sh(axes, d):  # per-example axis numbers -> axis numbers of the batched value
        return tuple(a + (a >= d) for a in axes)

    def free_before(axes_c, axes_b, d):  # free per-example axes in front of the batch axis
        return sum(1 for a in range(d) if a not in axes_c and a not in axes_b)

    if ld is not None and rd is not None:
        dn = ((sh(lc, ld), sh(rc, rd)), ((ld,) + sh(lb, ld), (rd,) + sh(rb, rd)))
        return dot_general_p.bind(lhs, rhs, dimension_numbers=dn), 0
    if ld is not None:
        dn = ((sh(lc, ld), rc), (sh(lb, ld), rb))
        return (dot_general_p.bind(lhs, rhs, dimension_numbers=dn),
                len(lb) + free_before(lc, lb, ld))
    n_lhs_free = lhs.ndim - len(lc) - len(lb)
    rc_, rb_ = sh(rc, rd), sh(rb, rd)
    if not lb and all(rhs.shape[a] == 1 for a in range(rhs.ndim)
                      if a != rd and a not in rc_ and a not in rb_):
        # a matrix times a batch of vectors (e.g. A @ x pushed the basis of jacfwd): with
        # the operands swapped, BLAS writes the batch axis first and each example's result
        # contiguous, (B, m) = X @ A^T, instead of (m, B) = A @ X^T.  Everything after it
        # (elementwise ops against unbatched (m,) operands) then broadcasts as it is.
        out = dot_general_p.bind(rhs, lhs, dimension_numbers=((rc_, lc), ((), ())))
        nr = rhs.ndim - len(rc)  # rhs's free axes, its batch axis included, come first
        fb = free_before(rc, rb, rd)
        perm = ((fb,) + tuple(range(nr, nr + n_lhs_free))
                + tuple(i for i in range(nr) if i != fb))
        return transpose(out, perm), 0
    dn = ((lc, rc_), (lb, rb_))
    return (dot_general_p.bind(lhs, rhs, dimension_numbers=dn),
            len(lb) + n_lhs_free + free_before(rc, rb, rd))


def dot_general(lhs, rhs, dimension_numbers):
    """Contract ``lhs`` and ``rhs``; see the module docstring for ``dimension_numbers``."""
    (lc, rc), (lb, rb) = dimension_numbers
    dn = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))
    return dot_general_p.bind(lhs, rhs, dimension_numbers=dn)


# compiler lowering (ftrans.compiler; format in its module docstring): BLAS (np.dot)
# for contractions, a fused elementwise product when nothing is contracted
dot_general_p.lowering = {"kind": "dot_general"}
