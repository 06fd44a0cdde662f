"""``cov`` and ``corrcoef`` (NumPy's algorithm and arguments: ``rowvar``, ``bias``,
``ddof``, ``fweights``, ``aweights``), differentiable in the data and in ``aweights``."""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..core import Tracer
from ..core.dtypes import kind_of as _kind_of
from ..typing import Array, ArrayLike, DTypeLike
from ._args import P, _ndarray
from . import _funcs as F
from ._nanreductions import average
from ._shape import diagonal

__all__ = ["cov", "corrcoef"]


def _rows(x: ArrayLike, rowvar: bool) -> Any:
    x = _ndarray(x)
    if x.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    x = F.reshape(x, (1, -1)) if x.ndim < 2 else x
    if not rowvar and x.shape[0] != 1:
        x = F.transpose(x)
    return x


def _weights(w: Any, n: int, name: str, integer: bool) -> Any:
    w = _ndarray(w)
    if integer and _kind_of(w) not in "iub":
        wc = None if isinstance(w, Tracer) else np.asarray(w)
        if wc is None or not np.all(wc == np.around(wc)):
            raise TypeError("fweights must be integer")
    if w.ndim > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if w.shape[0] != n:
        raise RuntimeError(f"incompatible numbers of samples and {name}")
    wc = None if isinstance(w, Tracer) else np.asarray(w)
    if wc is not None and np.any(wc < 0):
        raise ValueError(f"{name} cannot be negative")
    return w


def cov(m: ArrayLike, y: ArrayLike | None = None, rowvar: bool = True, bias: bool = False,
        ddof: int | None = None, fweights: ArrayLike | None = None,
        aweights: ArrayLike | None = None, *, dtype: DTypeLike | None = None) -> Array:
    """Covariance matrix of variables given as rows (or columns) of observations.

    The entries are ``sum_k w_k (x_ik - avg_i) conj(x_jk - avg_j) / fact`` with NumPy's
    ``fact`` (degrees of freedom from the weights).

    >>> cov([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])
    array([[ 1., -1.],
           [-1.,  1.]])

    Parameters
    ----------
    m : array_like
        1-D or 2-D, real or complex: the variables.
    y : array_like, optional
        More variables, stacked below ``m``.
    rowvar : bool, optional
        Each row is a variable (else each column).
    bias : bool, optional
        Normalize by ``N`` (default ``N - 1``).
    ddof : int, optional
        Overrides ``bias``: the divisor is ``N - ddof``.
    fweights : array_like of int, optional
        1-D frequency weights.
    aweights : array_like, optional
        1-D observation weights.
    dtype : dtype_like, optional
        Result dtype (at least float64 by default).

    Returns
    -------
    Array
        ``(V, V)`` (0-d for one variable).

    Raises
    ------
    ValueError
        More than 2 dimensions, negative weights.
    TypeError
        Non-integer ``fweights``.
    RuntimeError
        Weights of the wrong shape (NumPy's types).

    Notes
    -----
    Differentiable in ``m``, ``y`` and ``aweights``.
    """
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    X = _rows(m, rowvar)
    if dtype is None:
        dtype = np.result_type(X.dtype, np.float64) if y is None else \
            np.result_type(X.dtype, _ndarray(y).dtype, np.float64)
    if X.shape[0] == 0:
        return np.array([]).reshape(0, 0)
    if y is not None:
        X = F.concatenate([X, _rows(y, rowvar)], axis=0)
    X = P.convert_element_type(X, np.dtype(dtype)) if X.dtype != np.dtype(dtype) else X
    if ddof is None:
        ddof = 0 if bias else 1
    n = X.shape[1]
    w = None
    if fweights is not None:
        w = _weights(fweights, n, "fweights", True)
    if aweights is not None:
        aw = _weights(aweights, n, "aweights", False)
        w = aw if w is None else F.multiply(w, aw)
    avg, w_sum = average(X, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    fact: Any
    if w is None:
        fact = float(n - ddof)
    elif ddof == 0:
        fact = w_sum
    elif aweights is None:
        fact = F.subtract(w_sum, ddof)
    else:
        fact = F.subtract(w_sum, F.divide(F.multiply(ddof, F.sum(F.multiply(w, aw))), w_sum))
    fc = fact if not isinstance(fact, Tracer) else None
    if fc is not None and float(np.real(fc)) <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        fact = 0.0
    X = F.subtract(X, F.expand_dims(avg, 1))
    X_T = F.transpose(X if w is None else F.multiply(X, w))
    c = F.matmul(X, F.conj(X_T) if _kind_of(X_T) == "c" else X_T)
    c = F.divide(c, fact)   # (a Python float fact keeps a float32 dtype=, as NumPy's c *= 1/fact)
    return F.squeeze(c)


def corrcoef(x: ArrayLike, y: ArrayLike | None = None, rowvar: bool = True, *,
             dtype: DTypeLike | None = None) -> Array:
    """Pearson correlation coefficients.

    ``C_ij / sqrt(C_ii C_jj)`` of :func:`cov`, the real (and imaginary) parts clipped to
    ``[-1, 1]`` (NumPy's).

    >>> corrcoef([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])
    array([[ 1., -1.],
           [-1.,  1.]])

    Parameters
    ----------
    x : array_like
        1-D or 2-D: the variables.
    y : array_like, optional
        More variables, stacked below ``x``.
    rowvar : bool, optional
        Each row is a variable (else each column).
    dtype : dtype_like, optional
        Result dtype.

    Returns
    -------
    Array
        ``(V, V)`` (0-d for one variable).

    Notes
    -----
    Differentiable (the clipping has derivative 0 outside ``[-1, 1]``).
    """
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return F.divide(c, c)
    d = diagonal(c)
    sd = P.sqrt(F.real(d))
    c = F.divide(F.divide(c, F.expand_dims(sd, 1)), F.expand_dims(sd, 0))
    if _kind_of(c) == "c":
        return F.add(F.clip(F.real(c), -1, 1),
                     F.multiply(1j, F.clip(F.imag(c), -1, 1)))
    return F.clip(c, -1, 1)
