"""Householder QR in LAPACK's packed form (``geqrf``), products with its ``Q``
(``ormqr``/``unmqr``) and ``Q`` itself (``orgqr``/``ungqr``), as compositions of ftrans
operations for :mod:`ftrans.scipy.linalg` (SciPy reaches these LAPACK routines through
``scipy.linalg.lapack``; PyTorch names them ``geqrf``, ``ormqr`` and
``linalg.householder_product``)."""
from __future__ import annotations

import numpy as np

from ..numpy import _funcs as F
from ..numpy.linalg import _common
from .. import primitives as P
from ..typing import Array, ArrayLike

__all__ = ["householder_product", "geqrf", "ormqr"]


def _reflector(a: Array, i: int, dt: np.dtype) -> Array:
    """``v_i = (0, ..., 0, 1, a[i+1:, i])`` of the packed ``a`` (shape ``(..., m)``)."""
    rows = np.arange(a.shape[-2])
    return P.where(rows == i, np.ones((), dt), P.where(rows > i, a[..., :, i], np.zeros((), dt)))


def _apply(a: Array, tau: Array, c: Array, left: bool, adjoint: bool) -> Array:
    """``op(Q) c`` (``left``) or ``c op(Q)`` with ``Q = H_1 ... H_k``, ``H_i = I - tau_i v_i
    v_i^H`` and ``op`` the identity or (``adjoint``) the conjugate transpose."""
    dt = np.dtype(c.dtype)
    cx = dt.kind == "c"
    k = tau.shape[-1]
    # Q c = H_1 (... (H_k c)); Q^H c = H_k^H (... (H_1^H c)); c Q = ((c H_1) ...) H_k;
    # c Q^H = ((c H_k^H) ...) H_1^H
    order = range(k) if left == adjoint else reversed(range(k))
    for i in order:
        v = _reflector(a, i, dt)
        t = tau[..., i]
        if adjoint and cx:
            t = P.conj(t)
        t = F.expand_dims(F.expand_dims(t, -1), -1)
        vh = P.conj(v) if cx else v
        if left:    # c - t v (v^H c)
            w = F.matmul(F.expand_dims(vh, -2), c)
            c = P.sub(c, P.mul(t, P.mul(F.expand_dims(v, -1), w)))
        else:       # c - t (c v) v^H
            w = F.matmul(c, F.expand_dims(v, -1))
            c = P.sub(c, P.mul(t, P.mul(w, F.expand_dims(vh, -2))))
    return c


def householder_product(a: ArrayLike, tau: ArrayLike) -> Array:
    """The first ``n`` columns of the product of Householder reflectors (LAPACK's ``orgqr``).

    ``H_1 H_2 ... H_k`` with ``H_i = I - tau_i v_i v_i^H``, ``v_i = (0, ..., 0, 1,
    a[i+1:, i])`` (LAPACK's ``orgqr``/``ungqr``; PyTorch's
    ``linalg.householder_product``).

    Parameters
    ----------
    a : array_like
        Shape ``(..., m, n)``, ``m >= n``: the Householder vectors below the diagonal
        (the rest is not read).
    tau : array_like
        Shape ``(..., k)``, ``k <= n``: the reflectors' scale factors.

    Returns
    -------
    Array
        Shape ``(..., m, n)``, the promoted dtype.

    Raises
    ------
    ValueError
        For incompatible shapes.

    Notes
    -----
    Differentiable in ``a`` and ``tau``, to any order: each reflector is applied as
    ``Q - tau_i v_i (v_i^H Q)``.

    Examples
    --------
    >>> import numpy as np
    >>> householder_product(np.array([[1.0], [1.0]]), np.array([1.0]))
    array([[ 0.],
           [-1.]])
    """
    am, tm = _common(a, tau)
    if am.ndim < 2 or am.shape[-2] < am.shape[-1] or tm.ndim != am.ndim - 1 \
            or tm.shape[-1] > am.shape[-1] or tuple(tm.shape[:-1]) != tuple(am.shape[:-2]):
        raise ValueError(f"householder_product: expected a of shape (..., m, n) with m >= n "
                         f"and tau of shape (..., k) with k <= n, got {tuple(am.shape)} and "
                         f"{tuple(tm.shape)}")
    m, n = am.shape[-2:]
    eye = F.broadcast_to(np.eye(m, n, dtype=np.dtype(am.dtype)), tuple(am.shape))
    return _apply(am, tm, eye, True, False)


def ormqr(a: ArrayLike, tau: ArrayLike, c: ArrayLike, left: bool = True,
          transpose: bool = False) -> Array:
    """Product with the ``Q`` of ``geqrf``'s packed ``(a, tau)`` (LAPACK's ``ormqr``/``unmqr``).

    ``op(Q) c`` (``left``) or ``c op(Q)``; PyTorch's ``ormqr``.  Differentiable in all
    three arrays.

    Parameters
    ----------
    a : array_like
        Shape ``(..., m, n)``: the Householder vectors below the diagonal.
    tau : array_like
        Shape ``(..., k)``, ``k <= min(m, n)``.
    c : array_like
        Shape ``(..., m, p)`` (``left``) or ``(..., p, m)``.
    left : bool, optional
        Multiply from the left (True, default) or the right.
    transpose : bool, optional
        ``op`` is the conjugate transpose (default: the identity).

    Returns
    -------
    Array
        ``c``'s shape, the promoted dtype.

    Raises
    ------
    ValueError
        For incompatible shapes.
    """
    am, tm, cm = _common(a, tau, c)
    m = am.shape[-2] if am.ndim >= 2 else -1
    if am.ndim < 2 or cm.ndim != am.ndim or tm.ndim != am.ndim - 1 \
            or tm.shape[-1] > min(m, am.shape[-1]) or cm.shape[-2 if left else -1] != m:
        raise ValueError(f"ormqr: incompatible shapes a {tuple(am.shape)}, tau "
                         f"{tuple(tm.shape)}, c {tuple(cm.shape)} (left={left})")
    return _apply(am, tm, cm, bool(left), bool(transpose))


def geqrf(a: ArrayLike) -> tuple[Array, Array]:
    """Householder QR in LAPACK's packed form (LAPACK's ``geqrf``).

    ``scipy.linalg.qr(a, mode='raw')``'s ``(qr, tau)``; PyTorch's ``geqrf``.

    Parameters
    ----------
    a : array_like
        Shape ``(..., m, n)``.

    Returns
    -------
    qr : Array
        Shape ``(..., m, n)``: ``R`` in the upper triangle, the Householder vectors
        below it.
    tau : Array
        Shape ``(..., min(m, n))``: the reflectors' scale factors.

    Raises
    ------
    ValueError
        If ``a`` has fewer than 2 dimensions.

    Notes
    -----
    Computed column by column with LAPACK's reflector convention (``larfg``: ``beta =
    -sign(Re alpha) |(alpha, x)|``, ``tau = (beta - alpha) / beta``), so the values equal
    LAPACK's up to rounding.  Differentiable where no column is exactly zero below and on
    the diagonal.
    """
    (am,) = _common(a)
    if am.ndim < 2:
        raise ValueError(f"geqrf: expected a stack of matrices, got shape {tuple(am.shape)}")
    m, n = am.shape[-2:]
    dt = np.dtype(am.dtype)
    cx = dt.kind == "c"
    real = np.finfo(dt).dtype
    rows = np.arange(m)
    cols = np.arange(n)
    taus = []
    for j in range(min(m, n)):
        col = am[..., :, j]
        alpha = am[..., j, j]
        below = P.where(rows > j, col, np.zeros((), dt))
        sq = P.mul(P.conj(below), below) if cx else P.mul(below, below)
        xn2 = F.sum(P.real(sq) if cx else sq, axis=-1)
        ar = P.real(alpha) if cx else alpha
        ai2 = P.mul(P.imag(alpha), P.imag(alpha)) if cx else np.zeros((), real)
        trivial = P.logical_and(P.eq(xn2, 0), P.eq(ai2, 0))
        norm = P.ROW_OPS["sqrt"](P.add(P.add(P.mul(ar, ar), ai2), xn2))
        sign = P.where(P.lt(ar, 0), np.ones((), real), -np.ones((), real))
        beta = P.where(trivial, ar, P.mul(sign, norm))                   # real
        safe_beta = P.where(trivial, np.ones((), real), beta)
        betac = P.convert_element_type(beta, dt) if cx else beta
        tau = P.where(trivial, np.zeros((), dt),
                      P.div(P.sub(P.convert_element_type(safe_beta, dt) if cx else safe_beta,
                                  alpha), P.convert_element_type(safe_beta, dt) if cx
                            else safe_beta))
        denom = P.where(trivial, np.ones((), dt), P.sub(alpha, betac))
        v = P.where(rows == j, np.ones((), dt),
                    P.div(below, F.expand_dims(denom, -1)))
        # H^H applied to the trailing columns: a - conj(tau) v (v^H a)
        vh = P.conj(v) if cx else v
        w = F.matmul(F.expand_dims(vh, -2), am)
        t = P.conj(tau) if cx else tau
        upd = P.sub(am, P.mul(F.expand_dims(F.expand_dims(t, -1), -1),
                             P.mul(F.expand_dims(v, -1), w)))
        am = P.where(cols > j, upd, am)
        newcol = P.where(rows > j, v, P.where(rows == j, F.expand_dims(
            P.where(trivial, alpha, betac), -1), col))
        am = P.where(cols == j, F.expand_dims(newcol, -1), am)
        taus.append(tau)
    if taus:
        tau = F.stack(taus, axis=-1)
    else:
        tau = F.zeros(tuple(am.shape[:-2]) + (0,), dt)
    return am, tau
