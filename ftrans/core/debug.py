"""State and checks of the ``debug_nans`` mode (switched by :mod:`ftrans.config`).

While :data:`nans` is true, every primitive computed on concrete values
(``Primitive.bind`` with no transform active, :class:`~ftrans.core.trace.EvalTrace`
under one), every JVP rule's tangent and every VJP rule's cotangent is checked for
NaN, and :func:`check` raises ``FloatingPointError`` naming the primitive and the
first stack frame outside the ftrans package (the user's line).  When the mode is
off the only cost is the read of the module global :data:`nans` on those paths.
"""
from __future__ import annotations

import linecache
import os
import sys
from typing import Any, NoReturn

import numpy as np

__all__ = ["nans", "check", "has_nan", "user_frame", "raise_nan"]

#: True while debug_nans is on (set by ftrans.config; read on the primitive paths)
nans = False

_PKG = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def user_frame():
    """``(filename, lineno, function, source line)`` of the innermost stack frame
    outside the ftrans package (None when there is none)."""
    f = sys._getframe(1)
    while f is not None:
        fn = f.f_code.co_filename
        if not os.path.abspath(fn).startswith(_PKG):
            line = linecache.getline(fn, f.f_lineno).strip()
            return fn, f.f_lineno, f.f_code.co_name, line
        f = f.f_back
    return None


def has_nan(x: Any) -> bool:
    """True when ``x`` (a concrete array or scalar, or a tuple/list of them) holds a NaN;
    tracers, symbolic zeros and lazy (Dask) arrays are not inspected."""
    if isinstance(x, (tuple, list)):
        return any(has_nan(v) for v in x)
    t = type(x)
    if t is np.ndarray or isinstance(x, np.generic):
        return x.dtype.kind in "fc" and bool(np.isnan(x).any())
    if t is float or t is complex:
        return x != x
    if hasattr(t, "_trace") or t.__module__.startswith("dask"):
        return False  # a tracer (abstract or of another transform) or a lazy array
    ns = getattr(x, "__array_namespace__", None)
    if ns is None:
        return False
    xp = ns()
    try:
        if not xp.isdtype(x.dtype, ("real floating", "complex floating")):
            return False
    except AttributeError:  # a namespace without isdtype (CuPy before 13)
        if np.dtype(x.dtype).kind not in "fc":
            return False
    return bool(xp.any(xp.isnan(x)))


def raise_nan(what: str, primitive: str) -> NoReturn:
    """Raise the ``FloatingPointError`` of debug_nans for a NaN produced by ``what``;
    the exception's ``primitive`` attribute is the primitive's name."""
    where = user_frame()
    at = "" if where is None else (
        f" at {where[0]}:{where[1]} (in {where[2]})" + (f":\n    {where[3]}" if where[3] else ""))
    err = FloatingPointError(
        f"invalid value (NaN) encountered in {what}{at}\n"
        "(ftrans debug_nans is on: it checks every primitive's result; turn it off with "
        "ftrans.config.update('debug_nans', False))")
    setattr(err, "primitive", primitive)  # a FloatingPointError, with the name added
    raise err


def check(prim, out, rule=None):
    """Raise if ``out``, computed by primitive ``prim`` (by its ``rule``: "JVP" or
    "VJP", for a derivative), holds a NaN."""
    if has_nan(out):
        what = f"primitive {prim.name!r}" if rule is None else \
            f"the {rule} (derivative rule) of primitive {prim.name!r}"
        if prim.name == "jit":
            what += (" (the output of a jit-compiled program; run it under "
                     "ftrans.disable_jit() to find the operation)")
        raise_nan(what, prim.name)
