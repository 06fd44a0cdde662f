"""Traces, tracers and the current-trace context ("stackless" design).

One *current trace* per thread lives in a thread-local slot.  Every transform
invocation (one call of ``jvp``, ``vjp``, ``grad`` ...) creates a fresh
:class:`Trace` object; that object *is* the tag.  ``Primitive.bind`` hands the
operation to the current trace, which unwraps only the tracers whose
``_trace`` is itself (compared by identity) and treats every other value --
plain arrays and tracers of enclosing transforms alike -- as a constant.  The
trace then computes on its *parent* (the trace that was current when it was
created), so nested transforms form a chain that ends in :data:`EVAL`, the
trace that simply runs the primitive's ``impl``.

Because tags are unique objects and never compared by nesting depth, nested
derivatives cannot be confused (Siskind & Pearlmutter, "Perturbation
confusion and referential transparency", 2005): the derivative of
``x * d/dy (x + y)`` with respect to ``y`` is 1, never 2.

A tracer that outlives its transform ("escaped tracer") eventually reaches
:data:`EVAL`; it raises :class:`EscapedTracerError` naming the transform.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

from . import debug

__all__ = [
    "Trace", "EvalTrace", "EVAL", "Tracer", "PrimalTracer", "current_trace", "set_current_trace",
    "new_trace", "EscapedTracerError", "TracerArrayConversionError", "no_active_trace",
    "ForeignArrayFunctionError", "register_numpy_protocol",
]


class ForeignArrayFunctionError(TypeError, AttributeError):
    """A function or operator of another array library (array_api_strict, CuPy ...)
    was applied to a tracer.  A ``TypeError``; also an ``AttributeError``, since it is
    raised for the array attribute the foreign library looked up (``hasattr`` stays
    False)."""


class EscapedTracerError(RuntimeError):
    """A tracer was used after the transform that created it had returned."""


class TracerArrayConversionError(TypeError):
    """A tracer was handed to NumPy (``np.asarray``, ``float(...)``, a NumPy-only function)."""


class _Context(threading.local):
    trace: Trace  # EVAL, set on the class below (each thread sees it until it sets its own)


_ctx = _Context()


class Trace:
    """Base class of all traces.

    Attributes
    ----------
    parent : Trace
        The trace that was current when this one was created; primitives are
        computed on it.
    name : str
        The transform's name (``"jvp"``, ``"grad"`` ...), used in error messages.
    active : bool
        False once the transform has returned; its tracers are then escaped.
    """

    __slots__ = ("parent", "name", "active", "__weakref__")

    def __init__(self, parent: Trace, name: str) -> None:
        self.parent = parent
        self.name = name
        self.active = True

    # (``prim`` is a core.primitive.Primitive, which imports this module)
    def process_primitive(self, prim: Any, args: Sequence[Any],
                          params: dict[str, Any]) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError(f"{type(self).__name__} does not process primitives")

    def finish(self) -> None:
        """Mark the transform as returned: its tracers are now escaped."""
        self.active = False

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} at {id(self):#x}>"


class EvalTrace(Trace):
    """The bottom trace: runs ``prim.impl`` on concrete arrays (checked for NaN in
    debug_nans mode)."""

    __slots__ = ()

    def process_primitive(self, prim: Any, args: Sequence[Any], params: dict[str, Any]) -> Any:
        for a in args:
            if isinstance(a, Tracer):
                raise _escaped(a, prim)
        try:
            out = prim.impl(*args, **params)
        except (NotImplementedError, TypeError) as e:
            if not hasattr(e, "with_primitive"):
                raise
            raise e.with_primitive(prim.name) from None
        if debug.nans:
            debug.check(prim, out)
        return out


EVAL = EvalTrace(None, "eval")  # type: ignore[arg-type]  # the bottom trace has no parent
_Context.trace = EVAL


def _escaped(tracer: Tracer, prim: Any = None) -> Exception:
    t = tracer._trace
    where = f" (in primitive {prim.name!r})" if prim is not None else ""
    if t.active:
        return EscapedTracerError(
            f"A tracer of an active {t.name!r} transform reached a computation outside that "
            f"transform{where}: it was probably passed to another thread or stored and reused. "
            "Pass values into the differentiated function as arguments instead.")
    return EscapedTracerError(
        f"Escaped tracer: a value traced by {t.name!r} was used after {t.name!r} had "
        f"returned{where}. It was probably stored in a global variable or closure inside "
        f"the function being transformed. Return it from the function (use has_aux=True "
        f"for auxiliary data) instead of storing it.")


def current_trace() -> Trace:
    """The current trace of this thread (``EVAL`` when no transform is running)."""
    return _ctx.trace


def no_active_trace() -> bool:
    """True when no transform is running in this thread, so every value is concrete."""
    return _ctx.trace is EVAL


class set_current_trace:
    """Context manager making ``trace`` current in this thread, restoring the previous one."""

    __slots__ = ("trace", "prev")

    def __init__(self, trace: Trace) -> None:
        self.trace = trace

    def __enter__(self) -> Trace:
        self.prev = _ctx.trace
        _ctx.trace = self.trace
        return self.trace

    def __exit__(self, *exc: object) -> Literal[False]:
        _ctx.trace = self.prev
        return False


def new_trace(cls: Callable[..., Trace], name: str, *args: Any) -> Trace:
    """Create a trace of class ``cls`` whose parent is the current trace."""
    return cls(_ctx.trace, name, *args)


class Tracer:
    """Base class of the values a transform substitutes for arrays.

    Subclasses define ``shape`` and ``dtype``.  NumPy-like operators and methods
    (``+``, ``@``, ``.sum()``, ``.T``, ``x[idx]`` ...) are attached by
    :mod:`ftrans.numpy` when it is imported (core must not import the layers
    above it), via :func:`register_tracer_methods`.
    """

    __slots__ = ("_trace",)
    _trace: Trace
    __array_priority__ = 1000
    # consulted by Tracer.__array_ufunc__: maps a NumPy ufunc to the ftrans function
    _ufuncs: dict[Any, Callable[..., Any]] = {}
    # the handler of NumPy's dispatch protocols (see __array_function__)
    _numpy_protocol: Any = None

    # --- abstract-value attributes -------------------------------------------------
    if TYPE_CHECKING:  # defined by every subclass (a property or a slot)
        @property
        def shape(self) -> tuple[int, ...]: ...

        @property
        def dtype(self) -> Any: ...

        # attached by ftrans.numpy (register_tracer_methods), as the operators are
        def __getitem__(self, idx: Any) -> Any: ...

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def __len__(self) -> int:
        shape = self.shape
        if not shape:
            raise TypeError("len() of unsized object (a 0-d traced array)")
        return shape[0]

    def __iter__(self) -> Iterator[Any]:
        if not self.shape:
            raise TypeError("iteration over a 0-d traced array")
        return (self[i] for i in range(self.shape[0]))

    # --- conversions that would leak the trace ------------------------------------
    def _conversion_error(self, what: str) -> Exception:
        t = self._trace
        if not t.active:
            return _escaped(self)
        return TracerArrayConversionError(
            f"{what} needs a concrete value, but was given a tracer of the {t.name!r} "
            f"transform (shape {self.shape}, dtype {self.dtype}). Inside a transformed "
            "function use ftrans.numpy (import ftrans.numpy as fnp) instead of numpy, and "
            "do not convert traced values to Python numbers or NumPy arrays.")

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise self._conversion_error("numpy.asarray")

    def __float__(self) -> float:
        raise self._conversion_error("float()")

    def __int__(self) -> int:
        raise self._conversion_error("int()")

    def __complex__(self) -> complex:
        raise self._conversion_error("complex()")

    def __bool__(self) -> bool:
        raise self._conversion_error("bool() (an `if` on a traced value)")

    def __index__(self) -> int:
        raise self._conversion_error("an index")

    def item(self, *args: Any) -> Any:
        """Raises: a traced value has no concrete Python number (use it as an array)."""
        raise self._conversion_error(".item()")

    def tolist(self) -> Any:
        """Raises: a traced value has no concrete Python list (use it as an array)."""
        raise self._conversion_error(".tolist()")

    # --- array attributes another array library reads from its own arrays ---------
    # (array_api_strict.matmul(x, a) reads x.device, then x._array): reaching them
    # means that library's function was called on a tracer.  Properties, not a
    # __getattr__, which would slow every attribute access of every tracer.
    def _foreign_error(self, name: str) -> Exception:
        return ForeignArrayFunctionError(
            f"{type(self).__name__} object has no attribute {name!r}: a function of "
            "another array library (e.g. array_api_strict.matmul(x, a) or xp.sin(x)) was "
            f"called on a value traced by ftrans (transform {self._trace.name!r}, shape "
            f"{self.shape}, dtype {self.dtype}); other libraries cannot compute on ftrans "
            "tracers. Call the ftrans.numpy function instead (fnp.matmul(x, a) for "
            "xp.matmul(x, a) or a @ x), which accepts the other library's arrays too.")

    @property
    def device(self) -> Any:
        raise self._foreign_error("device")

    @property
    def _array(self) -> Any:
        raise self._foreign_error("_array")

    # NumPy's dispatch protocols (NEP 13 and NEP 18): ``numpy.sin(x)``, ``numpy.add.reduce(x)``
    # and ``numpy.sum(x)`` on a tracer run the ftrans.numpy function.  Core knows no NumPy
    # function: ftrans.numpy installs the handler (register_numpy_protocol) when imported.
    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        return _protocol(self, f"numpy.{ufunc.__name__}.{method}").array_ufunc(
            self, ufunc, method, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        name = f"{getattr(func, '__module__', 'numpy')}.{getattr(func, '__name__', func)}"
        return _protocol(self, name).array_function(self, func, types, args, kwargs)

    __hash__ = None  # type: ignore[assignment]  # arrays are unhashable


class PrimalTracer(Tracer):
    """A tracer that carries its primal value (forward and reverse mode): shape and
    dtype are the primal's."""

    __slots__ = ("primal",)

    primal: Any

    @property
    def shape(self) -> tuple[int, ...]:
        return self.primal.shape

    @property
    def dtype(self) -> Any:
        return self.primal.dtype

    def __repr__(self) -> str:
        return f"{type(self).__name__}(shape={self.shape}, dtype={self.dtype})"


def _protocol(tracer: Tracer, what: str) -> Any:
    handler = Tracer._numpy_protocol
    if handler is None:
        raise TypeError(
            f"{what} was applied to a traced value of the {tracer._trace.name!r} transform, "
            "but ftrans.numpy, which runs NumPy functions on traced values, is not imported: "
            "import ftrans.numpy (or use its functions directly).")
    return handler


def register_numpy_protocol(handler: Any) -> None:
    """Install the handler of NumPy's dispatch protocols on tracers (called by
    ftrans.numpy).  ``handler.array_function(tracer, func, types, args, kwargs)`` answers
    ``__array_function__`` (NEP 18) and ``handler.array_ufunc(tracer, ufunc, method,
    inputs, kwargs)`` answers ``__array_ufunc__`` (NEP 13)."""
    Tracer._numpy_protocol = handler


def register_tracer_methods(methods: dict[str, Any],
                            ufuncs: dict[Any, Callable[..., Any]] | None = None) -> None:
    """Attach NumPy-like methods/operators to :class:`Tracer` (called by ftrans.numpy)."""
    for name, fn in methods.items():
        setattr(Tracer, name, fn)
    if ufuncs:
        Tracer._ufuncs.update(ufuncs)
