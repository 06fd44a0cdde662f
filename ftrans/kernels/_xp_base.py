"""What the array-namespace backends of :mod:`ftrans.kernels.xp` share: the errors they
raise, the NumPy-named view of a namespace, and the backend base class."""
from __future__ import annotations

import numpy as np


__all__ = ["UnsupportedOperation", "MixedArrayTypesError", "type_name"]


def type_name(t):
    """``module.qualname`` of a type, with the package's public module for the
    well-known array types (``dask.array.Array``, ``numpy.ndarray`` ...)."""
    mod = getattr(t, "__module__", "") or ""
    top = mod.split(".")[0]
    if t is np.ndarray:
        return "numpy.ndarray"
    if top == "dask" and t.__name__ == "Array":
        return "dask.array.Array"
    if top in ("array_api_strict", "cupy"):
        return f"{top}.{t.__name__}"
    return f"{mod}.{t.__qualname__}" if mod else t.__qualname__


class UnsupportedOperation(NotImplementedError):
    """An operation the array type's namespace does not provide.

    ``Primitive.bind`` re-raises it with the primitive's name (``with_primitive``).
    """

    primitive = None

    def __init__(self, what, array_type, hint=""):
        self.what, self.array_type, self.hint = what, array_type, hint
        super().__init__(self._message(None))

    def _message(self, prim):
        head = f"primitive {prim!r}: " if prim else ""
        return (f"{head}{self.what} is not available for {self.array_type} arrays"
                + (f"; {self.hint}" if self.hint else ""))

    def with_primitive(self, prim):
        if self.primitive is not None:  # named by the innermost primitive already
            return self
        e = UnsupportedOperation(self.what, self.array_type, self.hint)
        e.primitive = prim
        e.args = (self._message(prim),)
        return e


class MixedArrayTypesError(TypeError):
    """Two array types in one operation (e.g. NumPy and ``array_api_strict``)."""

    primitive = None

    def __init__(self, a, b, convert):
        self.a, self.b, self.convert = a, b, convert
        super().__init__(self._message(None))

    def _message(self, prim):
        where = f"primitive {prim!r}" if prim else "one operation"
        return (f"{where} got arrays of two types, {self.a} and {self.b}; ftrans never "
                f"converts between array libraries behind your back: convert one operand "
                f"explicitly ({self.convert})")

    def with_primitive(self, prim):
        if self.primitive is not None:  # named by the innermost primitive already
            return self
        e = MixedArrayTypesError(self.a, self.b, self.convert)
        e.primitive = prim
        e.args = (self._message(prim),)
        return e


def _is_py_scalar(x):
    return type(x) in (int, float, complex, bool)


# ---------------------------------------------------------------------------------
# NumPy-named view of a namespace
# ---------------------------------------------------------------------------------
class _NumpyNames:
    """``getattr(view, numpy_name)``: the namespace's function for NumPy's name.

    Lookup order: an adapter defined by the backend (``_adapt_<name>``), the
    namespace's attribute of that name, the standard's name for it
    (``_STANDARD_NAMES``); otherwise :class:`UnsupportedOperation`.
    """

    def __init__(self, backend):
        self._backend = backend
        self._cache = {}

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        fn = self._cache.get(name)
        if fn is None:
            fn = self._cache[name] = self._backend._resolve(name)
        return fn

    def __repr__(self):
        return f"<NumPy-named view of {self._backend.ns.__name__}>"


class _SubNames:
    """``xp.linalg`` / ``xp.fft``: the namespace's submodule, NumPy's function names;
    a missing function, or NumPy-only keywords the namespace's function refuses,
    raise :class:`UnsupportedOperation`."""

    def __init__(self, backend, sub):
        self._backend, self._sub = backend, sub
        self._mod = getattr(backend.ns, sub, None)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        what = f"numpy.{self._sub}.{name}"
        fn = getattr(self._mod, name, None) if self._mod is not None else None
        if fn is None:
            raise UnsupportedOperation(what, self._backend.array_type,
                                       self._backend._hint(what))

        def call(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except TypeError as e:
                if kwargs and "keyword" in str(e):
                    raise UnsupportedOperation(
                        f"{what} with the keyword(s) {sorted(kwargs)}",
                        self._backend.array_type, str(e)) from None
                raise
        return call


_STANDARD_NAMES = {  # NumPy name -> array API standard name
    "concatenate": "concat", "true_divide": "divide", "power": "pow",
    "arcsin": "asin", "arccos": "acos", "arctan": "atan", "arctan2": "atan2",
    "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "absolute": "abs",
    "conjugate": "conj", "cumsum": "cumulative_sum", "cumprod": "cumulative_prod",
    "transpose": "permute_dims", "bitwise_not": "bitwise_invert",
    "invert": "bitwise_invert", "left_shift": "bitwise_left_shift",
    "right_shift": "bitwise_right_shift",
}


class _BackendBase:
    """Shared by the Dask and array-API backends."""

    #: ``xp`` namespace-like view with NumPy's names (set in ``__init__``)
    xp = None
    ns = None
    array_type = "?"

    def _resolve(self, name):
        adapter = getattr(self, "_adapt_" + name, None)
        if adapter is None and name in ("linalg", "fft"):
            return _SubNames(self, name)
        if adapter is not None:
            return adapter
        fn = getattr(self.ns, name, None)
        if fn is None and name in _STANDARD_NAMES:
            fn = getattr(self.ns, _STANDARD_NAMES[name], None)
        if fn is None:
            raise UnsupportedOperation(f"numpy.{name}", self.array_type,
                                       self._hint(name))
        return self._wrap(fn)

    def _wrap(self, fn):
        return fn

    def _hint(self, name):
        return ("the array API standard has no such function; compute this step on "
                "NumPy arrays explicitly (numpy.asarray(x)) if that is what you want")

    def unsupported(self, what, hint=""):
        raise UnsupportedOperation(what, self.array_type, hint or self._hint(what))

    def on_numpy(self, name, fn, out_aval, *args):
        """Run ``fn``, a kernel written for NumPy arrays, on ``args`` of this library
        (``out_aval``: the result's shape and dtype).  Array-API arrays: not available
        (the standard has no stride tricks or in-place kernels to run it with)."""
        self.unsupported(f"the NumPy kernel of {name}",
                         "the array API standard cannot express it; convert the operands "
                         "to NumPy arrays explicitly (numpy.asarray(x)) if that is what "
                         "you want")

    def __repr__(self):
        return f"<ftrans backend for {self.array_type}>"
