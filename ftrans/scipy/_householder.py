"""LAPACK's ``orgqr``/``ungqr`` (``torch.linalg.householder_product``) as a composition of
ftrans operations, for :mod:`ftrans.scipy.linalg`."""
from __future__ import annotations

import numpy as np

from ..numpy import _funcs as F
from ..numpy.linalg import _common
from .. import primitives as P

__all__ = ["householder_product"]


def householder_product(a, tau):
    """The first ``n`` columns of ``H_1 H_2 ... H_k`` with ``H_i = I - tau_i v_i v_i^H``,
    ``v_i = (0, ..., 0, 1, a[i+1:, i])`` (LAPACK's ``orgqr``/``ungqr``; PyTorch's
    ``linalg.householder_product``), for ``a`` of shape ``(..., m, n)``, ``m >= n``, and
    ``tau`` of shape ``(..., k)``, ``k <= n``.

    Differentiable in ``a`` (below its diagonal; the rest is not read) and ``tau``, to any
    order: each reflector is applied as ``Q - tau_i v_i (v_i^H Q)``.

    Raises ``ValueError`` for incompatible shapes.

    >>> import numpy as np
    >>> householder_product(np.array([[1.0], [1.0]]), np.array([1.0]))
    array([[ 0.],
           [-1.]])
    """
    a, tau = _common(a, tau)
    if a.ndim < 2 or a.shape[-2] < a.shape[-1] or tau.ndim != a.ndim - 1 \
            or tau.shape[-1] > a.shape[-1] or tuple(tau.shape[:-1]) != tuple(a.shape[:-2]):
        raise ValueError(f"householder_product: expected a of shape (..., m, n) with m >= n "
                         f"and tau of shape (..., k) with k <= n, got {tuple(a.shape)} and "
                         f"{tuple(tau.shape)}")
    m, n = a.shape[-2:]
    dt = np.dtype(a.dtype)
    q = F.broadcast_to(np.eye(m, n, dtype=dt), tuple(a.shape))
    rows = np.arange(m)
    for i in reversed(range(tau.shape[-1])):
        col = a[..., :, i]
        v = P.where(rows == i, np.ones((), dt), P.where(rows > i, col, np.zeros((), dt)))
        vh = P.conj(v) if dt.kind == "c" else v
        w = F.matmul(F.expand_dims(vh, -2), q)                       # v^H Q: (..., 1, n)
        t = F.expand_dims(F.expand_dims(tau[..., i], -1), -1)
        q = P.sub(q, P.mul(t, P.mul(F.expand_dims(v, -1), w)))
    return q
