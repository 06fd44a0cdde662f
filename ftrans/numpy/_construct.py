"""Array conversion and comparison: ``copy``, ``asanyarray``, ``asarray_chkfinite``,
``ascontiguousarray``, ``asfortranarray``, ``require``, ``broadcast_shapes``,
``isclose``, ``allclose``, ``array_equal``, ``array_equiv``, ``iscomplex``, ``isreal``,
``iscomplexobj``, ``isrealobj``, ``real_if_close``.

Conversions of a traced array return it (converted where a dtype is asked for): memory
layout has no meaning for a traced value, and ftrans' values are never modified in place,
so a "copy" is the value itself -- the identity, differentiable.  The comparisons are
boolean (non-differentiable).  ``allclose``, ``array_equal`` and ``array_equiv`` return a
Python ``bool``, as NumPy does, so they need concrete values: they work eagerly and under
``grad``/``jvp`` and raise :class:`ftrans.ConcretizationError` inside ``jit``/``vmap`` (use
``fnp.all(fnp.isclose(a, b))`` there).  ``real_if_close`` has a value-dependent dtype and
the same rule.
"""
from __future__ import annotations

import numpy as np

from ..core import Tracer
from ..core.ir import ConcretizationError
from ..core.dtypes import kind_of as _kind_of
from .. import primitives as P
from . import _funcs as F
from ._search import _values

__all__ = ["copy", "asanyarray", "asarray_chkfinite", "ascontiguousarray", "asfortranarray",
           "require", "broadcast_shapes", "isclose", "allclose", "array_equal",
           "array_equiv", "iscomplex", "isreal", "iscomplexobj", "isrealobj",
           "real_if_close"]

_nd = F._ndarray


def _traced(a):
    return isinstance(a, Tracer) or (isinstance(a, (list, tuple)) and
                                     any(isinstance(o, Tracer) for o in F._flat(a)))


def copy(a, order="K", subok=False):
    """``numpy.copy``: a traced array is returned as is (its values are never modified,
    so it is its own copy; differentiable: the identity); NumPy data is copied."""
    if _traced(a):
        return F.asarray(a)
    return np.copy(a, order=order, subok=subok)


def asanyarray(a, dtype=None, order=None):
    """``numpy.asanyarray``: as :func:`ftrans.numpy.asarray` (traced values pass)."""
    if _traced(a):
        return F.asarray(a, dtype)
    return np.asanyarray(a, dtype=dtype, order=order)


def ascontiguousarray(a, dtype=None):
    """``numpy.ascontiguousarray`` (at least 1-d); traced values pass (layout has no
    meaning for them)."""
    if _traced(a):
        a = F.asarray(a, dtype)
        return F.reshape(a, (1,)) if a.ndim == 0 else a
    return np.ascontiguousarray(a, dtype=dtype)


def asfortranarray(a, dtype=None):
    """``numpy.asfortranarray`` (at least 1-d); traced values pass."""
    if _traced(a):
        a = F.asarray(a, dtype)
        return F.reshape(a, (1,)) if a.ndim == 0 else a
    return np.asfortranarray(a, dtype=dtype)


def require(a, dtype=None, requirements=None, *, like=None):
    """``numpy.require``: ``a`` as an array of ``dtype`` meeting the layout
    ``requirements``; for traced values only ``dtype`` matters."""
    del like
    if _traced(a):
        return F.asarray(a, dtype)
    return np.require(a, dtype, requirements)


def asarray_chkfinite(a, dtype=None, order=None):
    """``numpy.asarray_chkfinite``: ``asarray`` that raises ``ValueError`` on infs or
    NaNs.  Traced values are checked on their concrete values (eagerly, under ``grad``);
    inside ``jit``/``vmap`` they cannot be, and it raises ``ConcretizationError``."""
    if not _traced(a):
        return np.asarray_chkfinite(a, dtype=dtype, order=order)
    a = F.asarray(a, dtype)
    vals = _values(a)
    if vals is None:
        raise ConcretizationError(
            "asarray_chkfinite: the values are abstract here (inside jit or vmap) and "
            "cannot be checked; check them outside, or use fnp.isfinite in the computation")
    if _kind_of(a) in "fc" and not np.isfinite(vals[0]).all():
        raise ValueError("array must not contain infs or NaNs")
    return a


def broadcast_shapes(*args):
    """``numpy.broadcast_shapes``: the broadcast of the given shapes (a tuple)."""
    return np.broadcast_shapes(*args)


# ---------------------------------------------------------------------------------
# comparisons
# ---------------------------------------------------------------------------------
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``numpy.isclose``: ``|a - b| <= atol + rtol * |b|`` elementwise (NumPy 2's
    formula: infinities close only to themselves, NaN to NaN when ``equal_nan``).
    Boolean, runs under every transform.

    Examples
    --------
    >>> import numpy as np, ftrans.numpy as fnp
    >>> fnp.isclose(np.array([1., np.inf, np.nan]), np.array([1. + 1e-9, np.inf, np.nan]))
    array([ True,  True, False])
"""
    x, y = F._arr(a), F._arr(b)
    if isinstance(y, int) and not isinstance(y, bool):
        y = float(y)
    elif not isinstance(y, (bool, float, complex)):
        y = _nd(y)
        dt = np.result_type(np.dtype(y.dtype), 1.0)
        if np.dtype(y.dtype) != dt:
            y = P.convert_element_type(y, dt)
    x = _nd(x) if isinstance(x, bool) else x
    if isinstance(x, (int, float, complex)):
        x = np.asarray(x)
    if isinstance(y, (bool, float, complex)):
        y = np.asarray(y)
    with np.errstate(invalid="ignore"):  # inf - inf: NaN, then not close (NumPy's way)
        res = P.logical_or(
            P.logical_and(P.le(P.abs(P.sub(x, y)), P.add(atol, P.mul(rtol, P.abs(y)))),
                          P.isfinite(y)),
            P.eq(x, y))
        if equal_nan and (_kind_of(x) in "fc" or _kind_of(y) in "fc"):
            res = P.logical_or(res, P.logical_and(P.isnan(x), P.isnan(y)))
    if not isinstance(res, Tracer) and np.ndim(res) == 0:
        return np.asarray(res)[()]
    return res


def _py_bool(name, fn, *xs):
    vals = _values(*[_nd(x) for x in xs])
    if vals is None:
        raise ConcretizationError(
            f"ftrans.numpy.{name} returns a Python bool, which needs concrete values, but "
            "they are abstract here (inside jit or vmap); use a boolean array instead, "
            "e.g. fnp.all(fnp.isclose(a, b)) or fnp.all(a == b)")
    return fn(*vals)


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``numpy.allclose``: ``all(isclose(a, b, ...))`` as a Python ``bool`` (concrete
    values only; see the module docstring)."""
    return _py_bool("allclose", lambda x, y: bool(np.allclose(x, y, rtol, atol, equal_nan)),
                    a, b)


def array_equal(a1, a2, equal_nan=False):
    """``numpy.array_equal``: same shape and elements (Python ``bool``; concrete values
    only)."""
    return _py_bool("array_equal", lambda x, y: bool(np.array_equal(x, y, equal_nan)), a1, a2)


def array_equiv(a1, a2):
    """``numpy.array_equiv``: broadcastable and equal (Python ``bool``; concrete values
    only)."""
    return _py_bool("array_equiv", lambda x, y: bool(np.array_equiv(x, y)), a1, a2)


def iscomplexobj(x):
    """``numpy.iscomplexobj``: whether ``x``'s dtype is complex (reads the dtype only)."""
    if isinstance(x, Tracer):
        return _kind_of(x) == "c"
    return np.iscomplexobj(x)


def isrealobj(x):
    """``numpy.isrealobj``: ``not iscomplexobj(x)``."""
    return not iscomplexobj(x)


def iscomplex(x):
    """``numpy.iscomplex``: elementwise ``imag(x) != 0`` (False for real dtypes)."""
    x = _nd(x)
    if _kind_of(x) == "c":
        return P.ne(P.imag(x), 0)
    return np.zeros(tuple(x.shape), bool) if x.ndim else np.False_


def isreal(x):
    """``numpy.isreal``: elementwise ``imag(x) == 0`` (True for real dtypes)."""
    x = _nd(x)
    if _kind_of(x) == "c":
        return P.eq(P.imag(x), 0)
    return np.ones(tuple(x.shape), bool) if x.ndim else np.True_


def real_if_close(a, tol=100):
    """``numpy.real_if_close``: ``real(a)`` if every imaginary part is below ``tol``
    machine epsilons (``tol`` <= 1: an absolute tolerance), else ``a``.  Differentiable
    (through ``real``); the choice needs concrete values (see the module docstring)."""
    a = _nd(a)
    if _kind_of(a) != "c":
        return a
    if tol > 1:
        tol = np.finfo(np.dtype(a.dtype)).eps * tol
    vals = _values(a)
    if vals is None:
        raise ConcretizationError(
            "real_if_close: the result dtype depends on the values, which are abstract here "
            "(inside jit or vmap); use fnp.real(a) explicitly")
    return P.real(a) if np.all(np.abs(vals[0].imag) < tol) else a
