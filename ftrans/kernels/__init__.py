"""Array backends that primitives call: ``cpu`` (NumPy + numba), ``gpu`` (CuPy) and
the array-namespace backends of ``xp`` (Dask, any array API namespace).

Every backend exposes the same names (``unary``, ``binary``, ``unary_vjp``,
``scatter_add``, ``reduce_sum`` ... and the array module, NumPy's names, as ``xp``).
Kernels take and return concrete arrays or Python scalars of their library; nothing
here knows about tracers, and nothing here imports another ftrans subpackage.

``backend_for(*xs)`` picks the backend for one operation from the operands' own
types: NumPy data and Python scalars take the CPU backend through a set lookup (the
per-operation fast path); a ``cupy.ndarray`` the GPU backend; a ``dask.array.Array``
the Dask backend (lazy graphs); any other array with ``__array_namespace__`` (the
Python array API standard; ``array_api_compat`` supplies it for PyTorch tensors) an
``ArrayAPIBackend`` of its namespace.  Outputs stay in the inputs' library; two array
libraries in one operation raise ``TypeError`` (``xp.MixedArrayTypesError``).

Importing this package imports neither numba, CuPy, Dask nor ``array_api_compat``:
each is imported the first time it is needed (numba for a numba kernel, the others
when an array of theirs is first seen).
"""
from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from . import cpu

__all__ = ["backend_for", "foreign_array", "special_module", "cpu", "gpu"]

# Types that can never select the GPU backend (the per-operation fast path).
_CPU_TYPES = frozenset(
    {np.ndarray, float, int, complex, bool, type(None),
     np.float64, np.float32, np.float16, np.int64, np.int32, np.bool_,
     np.complex128, np.complex64}
)
# type -> backend module, for every other type seen so far
_BACKEND_BY_TYPE: dict[type, Any] = {}


def backend_for(*xs):
    """Return the backend that should compute an operation on ``xs``.

    Args:
        *xs: operands of one operation: arrays of any shape and dtype, NumPy or
            Python scalars, or anything else (which counts as CPU data).

    Returns:
        ``ftrans.kernels.cpu`` when every operand is NumPy data or a Python scalar
        (a lookup in a set of types: the per-operation fast path); else the backend
        of the operands' array library: ``ftrans.kernels.gpu`` for ``cupy.ndarray``
        (recognised by its type's module name, so CuPy is never imported just to
        check), a :class:`~ftrans.kernels.xp.DaskBackend` for ``dask.array.Array``
        and an :class:`~ftrans.kernels.xp.ArrayAPIBackend` for any other type with
        ``__array_namespace__`` (the Python array API standard).

    Raises:
        TypeError (``ftrans.kernels.xp.MixedArrayTypesError``): operands of two array
            libraries, e.g. a CuPy and an ``array_api_strict`` array, or a NumPy array
            with more than 0 dimensions and a non-Dask foreign array.  NumPy scalars and
            0-d arrays count as scalars; NumPy arrays combine with Dask arrays (Dask
            treats them as one-chunk constants).  The message names both types and
            how to convert.
        ImportError: only if a CuPy array is seen and ``ftrans.kernels.gpu`` cannot
            be imported (which would mean CuPy itself is broken).
    """
    for x in xs:
        t = type(x)
        if t in _CPU_TYPES:
            continue
        backend = _BACKEND_BY_TYPE.get(t)
        if backend is None:
            backend = _classify(x)
        if backend is not cpu:
            return _check_mix(backend, xs)
    return cpu


def special_module(x):
    """The ``scipy.special``-like module for ``x``'s arrays: ``scipy.special`` for NumPy
    operands, chunk-by-chunk ``scipy.special`` for Dask arrays,
    ``cupyx.scipy.special`` (with SciPy's signatures) for CuPy arrays; array-API arrays raise NotImplementedError
    (the standard has no special functions)."""
    be = backend_for(x)
    if be.xp is np:
        import scipy.special as sc  # deferred: SciPy is optional, and costs ~0.1 s to import
        return sc
    if hasattr(be, "special_module"):  # Dask, array-API arrays (ftrans.kernels.xp)
        return be.special_module()
    return be.special  # ftrans.kernels.gpu's adapter of cupyx.scipy.special  # pragma: no cover


def _xp():
    """The ``xp`` module (array-API and Dask backends), imported when a foreign array is
    first seen."""
    from . import xp  # deferred: only foreign arrays need it; keeps `import ftrans` fast
    return xp


def _check_mix(backend, xs):
    """``backend`` after checking that ``xs`` mixes no other array library."""
    xp = _xp()
    dask = getattr(backend, "__name__", "").endswith("dask")
    for x in xs:
        t = type(x)
        if t is np.ndarray:
            if x.ndim == 0 or dask:
                continue
            raise xp.MixedArrayTypesError("numpy.ndarray", _array_type(backend, xs),
                                       _convert_hint(backend))
        if t in _CPU_TYPES:
            continue
        other = _BACKEND_BY_TYPE.get(t) or _classify(x)
        if other is not cpu and other is not backend:
            raise xp.MixedArrayTypesError(_array_type(backend, xs), xp.type_name(t),
                                       _convert_hint(backend))
    return backend


def _array_type(backend, xs):
    for x in xs:
        if _BACKEND_BY_TYPE.get(type(x)) is backend:
            return _xp().type_name(type(x))
    return getattr(backend, "array_type", "?")


def _convert_hint(backend):
    name = getattr(backend, "__name__", "")
    if name.endswith("gpu"):
        return "cupy.asarray(x) to move a NumPy array to the GPU, x.get() to bring a " \
               "CuPy array back"
    if name.endswith("dask"):
        return "dask.array.from_array(x) for a NumPy array, x.compute() for a Dask one"
    ns = getattr(backend, "ns", None)
    mod = getattr(ns, "__name__", "the library")
    return f"{mod}.asarray(x) to bring data into {mod}, numpy.asarray(x) to bring it " \
           "to NumPy"


_NAMESPACE_BACKENDS: dict[Any, Any] = {}  # "dask" or an array API namespace -> its backend


def _classify(x):
    """Find (and remember, by type) the backend of ``x``, whose type is not in the
    fast-path set."""
    t = type(x)
    mod = getattr(t, "__module__", None) or ""
    top = mod.split(".")[0]
    if top == "cupy":
        backend = importlib.import_module(__name__ + ".gpu")
    elif isinstance(x, (np.ndarray, np.generic)):
        backend = cpu  # NumPy subclasses (masked arrays, memmaps, matrix), scalars
    elif top == "dask" and t.__name__ == "Array":
        backend = _NAMESPACE_BACKENDS.get("dask")
        if backend is None:
            backend = _NAMESPACE_BACKENDS["dask"] = _xp().DaskBackend()
    elif hasattr(t, "__array_namespace__"):
        ns = x.__array_namespace__()
        backend = _NAMESPACE_BACKENDS.get(ns)
        if backend is None:
            xp = _xp()
            backend = _NAMESPACE_BACKENDS[ns] = xp.ArrayAPIBackend(ns, xp.type_name(t))
    else:
        ns = _compat_namespace(x)
        if ns is None:
            backend = cpu
        else:
            backend = _NAMESPACE_BACKENDS.get(ns)
            if backend is None:
                xp = _xp()
                backend = _NAMESPACE_BACKENDS[ns] = xp.ArrayAPIBackend(ns, xp.type_name(t))
    _BACKEND_BY_TYPE[t] = backend
    return backend


def _compat_namespace(x):
    """The array API namespace ``array_api_compat`` gives arrays of libraries that
    predate the standard (PyTorch tensors ...); None for anything else, or when
    ``array_api_compat`` is not installed (imported here, on the first such type)."""
    try:
        import array_api_compat
    except ImportError:
        return None
    if not array_api_compat.is_array_api_obj(x):
        return None
    return array_api_compat.array_namespace(x)


def foreign_array(x):
    """True for an array of a library other than NumPy (CuPy, Dask, any array-API
    array); False for NumPy arrays, NumPy/Python scalars and everything else."""
    t = type(x)
    if t in _CPU_TYPES:
        return False
    b = _BACKEND_BY_TYPE.get(t)
    if b is None:
        b = _classify(x)
    return b is not cpu


def __getattr__(name):
    # ``ftrans.kernels.gpu`` is imported on first access only (PEP 562).
    if name == "gpu":
        return importlib.import_module(__name__ + ".gpu")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
