"""Scatter-type layer operations in PyTorch's layouts, written once in primitives
(``ftrans.numpy``'s indexed updates): :func:`max_unpool` (a ``custom_vjp`` whose reverse
rule is PyTorch's gather; forward mode differentiates the scatter, as PyTorch does).

``ftrans.compat.nn.functional.max_unpool1d/2d/3d`` adapt it (one graph node whose
backward is ``ftrans.vjp`` of this composition).
"""
from __future__ import annotations

import math

import numpy as np

from .. import numpy as fnp
from ..transforms import custom_vjp
from ._util import as_float

__all__ = ["max_unpool"]


def max_unpool(x, indices, output_size):
    """The computation of ``torch.nn.functional.max_unpool{1,2,3}d``: each value of ``x``
    ``(*lead, *spatial_in)`` placed at its flat index (``indices``, an integer array of the
    same shape) of the output plane ``output_size``; zeros elsewhere.  Returns ``(*lead,
    *output_size)``.  Indices outside the plane raise ValueError; a repeated index keeps
    its last value (PyTorch's CPU kernel), while the derivative is PyTorch's: every
    input element receives the cotangent at its index (a gather), repeated or not."""
    x = as_float(x)
    output_size = tuple(int(o) for o in output_size)
    nsp = len(output_size)
    if tuple(np.shape(indices)) != tuple(x.shape):
        raise ValueError(f"max_unpool: indices {tuple(np.shape(indices))} must have the shape "
                         f"of x {tuple(x.shape)}")
    lead = tuple(x.shape[:len(x.shape) - nsp])
    rows = math.prod(lead)
    plane = math.prod(output_size)
    per = math.prod(x.shape[len(lead):])
    idx = fnp.reshape(indices, (rows, per))
    if isinstance(idx, np.ndarray) and idx.size and (idx.min() < 0 or idx.max() >= plane):
        raise ValueError(f"max_unpool: index {int(idx.max())} outside the output plane of "
                         f"{plane} elements")
    out = _unpool((rows, plane), fnp.reshape(x, (rows, per)), idx)
    return fnp.reshape(out, lead + output_size)


def _unpool_fun(shape, x, idx):
    """``x (rows, per)`` written at ``idx (rows, per)`` of zeros ``shape`` (last write wins);
    forward mode differentiates this (PyTorch's tangent: the unpooled tangent)."""
    r = np.broadcast_to(np.arange(shape[0])[:, None], tuple(x.shape))
    return fnp.at(fnp.zeros(shape, x.dtype))[r, idx].set(x)


def _unpool_fwd(shape, x, idx):
    return _unpool_fun(shape, x, idx), (idx,)


def _unpool_bwd(shape, res, g):
    """PyTorch's reverse rule: the cotangent gathered at every index (repeats included)."""
    idx, = res
    return fnp.take_along_axis(g, idx, axis=1), None


_unpool = custom_vjp(_unpool_fun, nondiff_argnums=(0,))
_unpool.defvjp(_unpool_fwd, _unpool_bwd)
