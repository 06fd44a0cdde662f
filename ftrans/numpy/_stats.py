"""``cov`` and ``corrcoef`` (NumPy's algorithm and arguments: ``rowvar``, ``bias``,
``ddof``, ``fweights``, ``aweights``), differentiable in the data and in ``aweights``."""
from __future__ import annotations

import warnings

import numpy as np

from ..core import Tracer
from ..core.dtypes import kind_of as _kind_of
from .. import primitives as P
from ._args import _ndarray
from . import _funcs as F
from ._nanreductions import average
from ._shape import diagonal

__all__ = ["cov", "corrcoef"]


def _rows(x, rowvar):
    x = _ndarray(x)
    if x.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    x = F.reshape(x, (1, -1)) if x.ndim < 2 else x
    if not rowvar and x.shape[0] != 1:
        x = F.transpose(x)
    return x


def _weights(w, n, name, integer):
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


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):
    """``numpy.cov``: the covariance matrix of the variables (rows, or columns with
    ``rowvar=False``) of ``m`` (and ``y``).

    Parameters
    ----------
    m : 1-d or 2-d array (real or complex); y : the same, stacked below ``m``
    rowvar : each row is a variable (default) or each column
    bias : normalize by ``N`` (default ``N - 1``); ``ddof`` overrides it
    fweights : 1-d integer frequency weights; aweights : 1-d observation weights
    dtype : the result's dtype (default at least float64, NumPy's)

    Returns
    -------
    ``(V, V)`` array (squeezed: 0-d for one variable), ``sum_k w_k (x_ik - avg_i)
    conj(x_jk - avg_j) / fact`` with NumPy's ``fact`` (DOF from the weights).

    Raises
    ------
    ValueError: more than 2 dimensions, negative weights.  TypeError: non-integer
    ``fweights``.  RuntimeError: weights of the wrong shape (NumPy's types).

    >>> cov([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])
    array([[ 1., -1.],
           [-1.,  1.]])
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


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """``numpy.corrcoef``: Pearson correlation coefficients ``C_ij / sqrt(C_ii C_jj)`` of
    :func:`cov`, the real (and imaginary) parts clipped to ``[-1, 1]`` (NumPy's).

    >>> corrcoef([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])
    array([[ 1., -1.],
           [-1.,  1.]])
    """
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return F.divide(c, c)
    d = diagonal(c)
    sd = F.sqrt(F.real(d))
    c = F.divide(F.divide(c, F.expand_dims(sd, 1)), F.expand_dims(sd, 0))
    if _kind_of(c) == "c":
        return F.add(F.clip(F.real(c), -1, 1),
                     F.multiply(1j, F.clip(F.imag(c), -1, 1)))
    return F.clip(c, -1, 1)
