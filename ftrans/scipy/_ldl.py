"""LAPACK's Bunch-Kaufman ``LDL^T`` / ``LDL^H`` factorization (``sytrf``/``hetrf``, lower
triangle, the unblocked ``sytf2`` algorithm) and its solve (``sytrs``/``hetrs``), for
:mod:`ftrans.scipy.linalg` (SciPy reaches them as ``scipy.linalg.lapack.dsytrf``/
``dsytrs``; PyTorch as ``linalg.ldl_factor``/``ldl_solve``).

Symmetric pivoting is a discrete choice made on the values: these functions compute on
concrete NumPy arrays and have no derivative (as in PyTorch); a traced argument raises
``TypeError``.
"""
from __future__ import annotations

import numpy as np

from ..core import Tracer
from ..typing import ArrayLike

__all__ = ["ldl_factor_packed", "ldl_solve_packed"]

_ALPHA = (1.0 + np.sqrt(17.0)) / 8.0


def _concrete(x: ArrayLike, name: str) -> np.ndarray:
    if isinstance(x, Tracer):
        raise TypeError(f"{name}: the Bunch-Kaufman pivoting is not differentiable or "
                        "traceable; call it on concrete arrays (outside transforms)")
    return np.asarray(x)


def _cabs1(x: np.ndarray) -> np.ndarray:
    return np.abs(x.real) + np.abs(x.imag) if np.iscomplexobj(x) else np.abs(x)


def _sytf2(a: np.ndarray, herm: bool) -> tuple[np.ndarray, int]:
    """One matrix, in place: (ipiv (1-based, negative for 2x2 blocks), info)."""
    n = a.shape[0]
    cx = np.iscomplexobj(a)
    conj = np.conj if (herm and cx) else (lambda v: v)
    diag_abs = (lambda v: abs(v.real)) if herm and cx else (lambda v: _cabs1(v))
    ipiv = np.zeros(n, np.int32)
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = diag_abs(a[k, k])
        if k < n - 1:
            col = _cabs1(a[k + 1:, k])
            imax = k + 1 + int(np.argmax(col))
            colmax = col.max()
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0 or np.isnan(absakk):
            if info == 0:
                info = k + 1
            kp = k
            if herm and cx:
                a[k, k] = a[k, k].real
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:
                row = _cabs1(a[imax, k:imax])
                rowmax = row.max()
                if imax < n - 1:
                    rowmax = max(rowmax, _cabs1(a[imax + 1:, imax]).max())
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif diag_abs(a[imax, imax]) >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp, kstep = imax, 2
            kk = k + kstep - 1
            if kp != kk:   # interchange rows and columns kk and kp of the trailing block
                if kp < n - 1:
                    t = a[kp + 1:, kk].copy()
                    a[kp + 1:, kk] = a[kp + 1:, kp]
                    a[kp + 1:, kp] = t
                t = conj(a[kk + 1:kp, kk].copy())
                a[kk + 1:kp, kk] = conj(a[kp, kk + 1:kp])
                a[kp, kk + 1:kp] = t
                if herm and cx:
                    a[kp, kk] = np.conj(a[kp, kk])
                t = a[kk, kk]
                a[kk, kk] = a[kp, kp]
                a[kp, kp] = t
                if kstep == 2:
                    if herm and cx:
                        a[k, k] = a[k, k].real
                    t = a[k + 1, k]
                    a[k + 1, k] = a[kp, k]
                    a[kp, k] = t
            elif herm and cx:
                a[k, k] = a[k, k].real
                if kstep == 2:
                    a[k + 1, k + 1] = a[k + 1, k + 1].real
            if kstep == 1:
                if k < n - 1:
                    d11 = 1.0 / (a[k, k].real if herm and cx else a[k, k])
                    x = a[k + 1:, k].copy()
                    a[k + 1:, k + 1:] += np.outer(x, -d11 * conj(x))
                    if herm and cx:
                        idx = np.arange(k + 1, n)
                        a[idx, idx] = a[idx, idx].real
                    a[k + 1:, k] = d11 * x
            elif k < n - 2:
                if herm and cx:
                    d = abs(a[k + 1, k])
                    d11 = a[k + 1, k + 1].real / d
                    d22 = a[k, k].real / d
                    tt = 1.0 / (d11 * d22 - 1.0)
                    d21 = a[k + 1, k] / d
                    d = tt / d
                    wk = d * (d11 * a[k + 2:, k] - d21 * a[k + 2:, k + 1])
                    wkp1 = d * (d22 * a[k + 2:, k + 1] - np.conj(d21) * a[k + 2:, k])
                else:
                    d21 = a[k + 1, k]
                    d11 = a[k + 1, k + 1] / d21
                    d22 = a[k, k] / d21
                    t = 1.0 / (d11 * d22 - 1.0)
                    d21 = t / d21
                    wk = d21 * (d11 * a[k + 2:, k] - a[k + 2:, k + 1])
                    wkp1 = d21 * (d22 * a[k + 2:, k + 1] - a[k + 2:, k])
                a[k + 2:, k + 2:] -= (np.outer(a[k + 2:, k], conj(wk))
                                      + np.outer(a[k + 2:, k + 1], conj(wkp1)))
                if herm and cx:
                    idx = np.arange(k + 2, n)
                    a[idx, idx] = a[idx, idx].real
                a[k + 2:, k] = wk
                a[k + 2:, k + 1] = wkp1
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return ipiv, info


def ldl_factor_packed(a: ArrayLike, hermitian: bool = False
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bunch-Kaufman ``L D L^T`` factorization in LAPACK's packed form (``sytrf``/``hetrf``).

    Not differentiable (module docstring).

    Parameters
    ----------
    a : array_like
        Concrete ``(..., n, n)`` matrices; only their lower triangles are read.
    hermitian : bool, optional
        ``L D L^H`` (``hetrf``) instead of ``L D L^T`` (``sytrf``).

    Returns
    -------
    ld : numpy.ndarray
        ``L`` and the 1x1/2x2 blocks of ``D`` packed in the lower triangle (the upper
        triangle zero); float64 for integer input.
    ipiv : numpy.ndarray
        int32, shape ``(..., n)``: LAPACK's 1-based interchanges (negative for a 2x2
        block).
    info : numpy.ndarray
        int32, shape ``(...)``: the 1-based index of the first zero diagonal block (0:
        none).

    Raises
    ------
    ValueError
        For non-square input.
    TypeError
        For a traced input.
    """
    a = _concrete(a, "ldl_factor_packed")
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"ldl_factor_packed: expected (a stack of) square matrices, got "
                         f"shape {a.shape}")
    dt = a.dtype if a.dtype.kind in "fc" else np.dtype(np.float64)
    ld = np.array(a, dtype=dt, copy=True)
    ipiv = np.zeros(a.shape[:-1], np.int32)
    info = np.zeros(a.shape[:-2], np.int32)
    for idx in np.ndindex(*a.shape[:-2]):
        m = np.tril(ld[idx])
        ipiv[idx], info[idx] = _sytf2(m, bool(hermitian))
        ld[idx] = np.tril(m)
    return ld, ipiv, info


def _sytrs(ld: np.ndarray, ipiv: np.ndarray, b: np.ndarray, herm: bool) -> np.ndarray:
    """One matrix: solve ``A X = b`` in place from its packed factors."""
    n = ld.shape[0]
    cx = np.iscomplexobj(ld)
    cj = np.conj if (herm and cx) else (lambda v: v)
    k = 0
    while k < n:   # L D Y = b
        if ipiv[k] > 0:
            kp = ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            b[k + 1:] -= np.outer(ld[k + 1:, k], b[k])
            b[k] = b[k] / (ld[k, k].real if herm and cx else ld[k, k])
            k += 1
        else:
            kp = -ipiv[k] - 1
            if kp != k + 1:
                b[[k + 1, kp]] = b[[kp, k + 1]]
            b[k + 2:] -= np.outer(ld[k + 2:, k], b[k]) + np.outer(ld[k + 2:, k + 1], b[k + 1])
            akm1k = ld[k + 1, k]
            akm1 = ld[k, k] / cj(akm1k)
            ak = ld[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1.0
            bkm1 = b[k] / cj(akm1k)
            bk = b[k + 1] / akm1k
            b[k] = (ak * bkm1 - bk) / denom
            b[k + 1] = (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:   # L^T X = Y (L^H when hermitian)
        if ipiv[k] > 0:
            b[k] -= cj(ld[k + 1:, k]) @ b[k + 1:]
            kp = ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            b[k] -= cj(ld[k + 1:, k]) @ b[k + 1:]
            b[k - 1] -= cj(ld[k + 1:, k - 1]) @ b[k + 1:]
            kp = -ipiv[k] - 1
            if kp != k:
                b[[k, kp]] = b[[kp, k]]
            k -= 2
    return b


def ldl_solve_packed(ld: ArrayLike, ipiv: ArrayLike, b: ArrayLike,
                     hermitian: bool = False) -> np.ndarray:
    """Solve ``A x = b`` from ``ldl_factor_packed``'s factors (LAPACK's ``sytrs``/``hetrs``).

    Not differentiable (module docstring).

    Parameters
    ----------
    ld : array_like
        The packed factors, ``(..., n, n)``.
    ipiv : array_like
        The interchanges, ``(..., n)``.
    b : array_like
        Right-hand sides ``(..., n, k)``; the batch dimensions of the three broadcast.
    hermitian : bool, optional
        The factors are of ``hetrf`` (as given to ``ldl_factor_packed``).

    Returns
    -------
    numpy.ndarray
        ``x``, of the broadcast shape and the promoted dtype.

    Raises
    ------
    TypeError
        For a traced input.
    """
    ld = _concrete(ld, "ldl_solve_packed")
    ipiv = _concrete(ipiv, "ldl_solve_packed")
    b = _concrete(b, "ldl_solve_packed")
    batch = np.broadcast_shapes(ld.shape[:-2], ipiv.shape[:-1], b.shape[:-2])
    dt = np.result_type(ld.dtype, b.dtype)
    ld = np.broadcast_to(ld, batch + ld.shape[-2:])
    ipiv = np.broadcast_to(ipiv, batch + ipiv.shape[-1:])
    x = np.array(np.broadcast_to(b, batch + b.shape[-2:]), dtype=dt, copy=True)
    for idx in np.ndindex(*batch):
        _sytrs(ld[idx], ipiv[idx], x[idx], bool(hermitian))
    return x
