"""NumPy's dispatch protocols on tracers: code written with plain ``import numpy as np``
runs on traced values.

``numpy.<name>(tracer, ...)``, ``numpy.linalg.<name>`` and ``numpy.fft.<name>`` reach
:meth:`Tracer.__array_function__` (NEP 18), which calls ``ftrans.numpy.<name>`` (or its
``linalg``/``fft`` function) of the same name.  The table is not kept by hand: a NumPy
function dispatches as soon as ``ftrans.numpy`` exports a function of its name, looked
up when it is first called.  ``numpy.sin(tracer)`` and the methods of ufuncs
(``numpy.add.reduce`` ...) reach ``__array_ufunc__`` (NEP 13), handled in ``_ufuncs.py``.

NumPy's arguments are bound to NumPy's own signature and handed to the ftrans function by
name, so positional and keyword calls both work where the signatures differ.  ``out=``
(in-place output) raises ``TypeError``; an argument ftrans's function does not have is
dropped when it holds NumPy's default, else ``TypeError`` names it.  A NumPy function
``ftrans.numpy`` does not cover raises ``TypeError`` naming it: NumPy's own code would
turn the traced value into a constant (no derivative), so it never runs.

References: NEP 18 (``__array_function__``), NEP 13 (``__array_ufunc__``),
https://numpy.org/neps/.
"""
from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Collection
from types import ModuleType
from typing import Any

import numpy as np

from ..core import Tracer

__all__ = ["array_function", "numpy_function", "uncovered_error", "out_error"]

_NoValue = getattr(np, "_NoValue", object())
_MODULES: dict[Any, tuple[str, ModuleType]] = {
    "numpy": ("", np), "numpy.linalg": ("linalg", np.linalg), "numpy.fft": ("fft", np.fft)}
# NumPy functions that modify an argument in place: they cannot be traced
_IN_PLACE = frozenset({"copyto", "place", "putmask", "put", "fill_diagonal", "put_along_axis"})
# numpy keyword -> ftrans keyword, where the names differ
_RENAMED: dict[Any, dict[str, str]] = {np.clip: {"min": "a_min", "max": "a_max"}}
_cache: dict[Any, Callable[..., Any] | None] = {}


def _package() -> ModuleType:
    return sys.modules[__name__.rpartition(".")[0]]  # ftrans.numpy (importing us)


def _namespace(func: Any) -> tuple[Any, str | None]:
    """``(ftrans namespace, NumPy name)`` of a NumPy function, or ``(None, None)``."""
    entry = _MODULES.get(getattr(func, "__module__", None))
    name = getattr(func, "__name__", None)
    if entry is None or name is None or getattr(entry[1], name, None) is not func:
        return None, None
    pkg = _package()
    return (getattr(pkg, entry[0], None) if entry[0] else pkg), name


def numpy_function(func: Any) -> Callable[..., Any] | None:
    """The ftrans function that implements the NumPy function ``func`` on traced values
    (an adapter of NumPy's signature onto ftrans's), or ``None`` when ftrans.numpy has no
    function of its name."""
    try:
        return _cache[func]
    except KeyError:
        pass
    except TypeError:  # unhashable: not a NumPy function
        return None
    fn = _SPECIAL.get(func)
    if fn is None:
        ns, name = _namespace(func)
        target = getattr(ns, "__dict__", {}).get(name) if ns is not None else None
        if (callable(target) and not isinstance(target, type) and target is not func
                and not isinstance(target, np.ufunc)):
            fn = _Adapter(func, target)
    _cache[func] = fn
    return fn


def _where(tracer: Tracer) -> str:
    return (f"a value traced by {tracer._trace.name!r} (shape {tracer.shape}, dtype "
            f"{tracer.dtype})")


def uncovered_error(name: str, tracer: Tracer) -> TypeError:
    """The error for a NumPy function or ufunc method that ftrans.numpy does not cover."""
    short = name.rpartition(".")[2]
    if short in _IN_PLACE:
        return TypeError(
            f"{name} modifies an array in place, which cannot be traced; it was given "
            f"{_where(tracer)}. Write the update functionally: y = x.at[idx].set(v) (or "
            ".add/.multiply/.min/.max), or the ftrans.numpy function.")
    return TypeError(
        f"{name} is not covered by ftrans.numpy and was given {_where(tracer)}. NumPy's own "
        "implementation would turn the traced value into a constant (no derivative), so it "
        "does not run. Write the computation with functions ftrans.numpy covers (they "
        "dispatch from plain numpy automatically), or compute it outside the transformed "
        "function. See docs/guide/plain_numpy.md.")


def out_error(name: str) -> TypeError:
    """The error for NumPy's ``out=`` argument given with traced values."""
    return TypeError(
        f"{name}(..., out=...) writes its result into an existing array in place, which "
        "cannot be traced (traced values are immutable). Drop out= and use the returned "
        "value: y = f(x).")


def _no_out(out: Any) -> bool:
    """True when NumPy's ``out`` argument asks for no output array (None, or all None)."""
    return out is None or (isinstance(out, tuple) and all(o is None for o in out))


def _default(p: inspect.Parameter | None) -> Any:
    return p.default if p is not None and p.default is not inspect.Parameter.empty else _NoValue


def _is_default(value: Any, default: Any) -> bool:
    if value is default or value is _NoValue:
        return True
    if isinstance(default, (bool, int, float, str, type(None))) and type(value) is type(default):
        return value == default
    return False


_POS_ONLY = inspect.Parameter.POSITIONAL_ONLY
_POSITIONAL = (_POS_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _signature(f: Any) -> inspect.Signature | None:
    try:
        return inspect.signature(f)
    except (TypeError, ValueError):
        return None


class _Adapter:
    """Calls ftrans's ``target`` with the arguments of a call of NumPy's ``func``."""

    __slots__ = ("func", "target", "name", "np_sig", "ft_sig", "ft_varkw", "renamed")

    def __init__(self, func: Any, target: Callable[..., Any]) -> None:
        self.func, self.target = func, target
        self.name = f"{func.__module__}.{func.__name__}"
        self.np_sig, self.ft_sig = _signature(func), _signature(target)
        self.ft_varkw = self.ft_sig is not None and any(
            p.kind is inspect.Parameter.VAR_KEYWORD for p in self.ft_sig.parameters.values())
        self.renamed = _RENAMED.get(func, {})

    def __call__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if self.np_sig is None or self.ft_sig is None:
            if not _no_out(kwargs.get("out")):
                raise out_error(self.name)
            kwargs = {k: v for k, v in kwargs.items() if k != "out" and v is not _NoValue}
            return self.target(*args, **kwargs)
        bound = self.np_sig.bind(*args, **kwargs).arguments
        ft_params = list(self.ft_sig.parameters.values())
        pos: list[Any]
        kw: dict[str, Any]
        pos, kw, aligned = [], {}, True
        for i, (name, p) in enumerate(self.np_sig.parameters.items()):
            if name not in bound:
                aligned = False
                continue
            value = bound[name]
            if p.kind is inspect.Parameter.VAR_POSITIONAL:
                if not aligned:
                    raise TypeError(f"{self.name}: cannot pass *{name} to {self._ft()}")
                pos.extend(value)
                continue
            items = value.items() if p.kind is inspect.Parameter.VAR_KEYWORD else [(name, value)]
            for key, val in items:
                fp = ft_params[i] if aligned and i < len(ft_params) else None
                if (key != "out" and p.kind in _POSITIONAL and fp is not None
                        and fp.kind in _POSITIONAL
                        and (fp.name == key or i == 0 or _POS_ONLY in (p.kind, fp.kind))):
                    pos.append(val)  # same place in both signatures
                    continue
                aligned = False
                self._keyword(key, val, p, kw)
        return self.target(*pos, **kw)

    def _ft(self) -> str:
        return f"ftrans.numpy's {self.func.__name__}"

    def _keyword(self, key: str, val: Any, p: inspect.Parameter, kw: dict[str, Any]) -> None:
        if key == "out":
            if not _no_out(val):
                raise out_error(self.name)
            return
        if val is _NoValue:
            return
        key = self.renamed.get(key, key)
        # (__call__ calls us only when both signatures are known)
        fp = self.ft_sig.parameters.get(key)  # type: ignore[union-attr]
        if (fp is not None and fp.kind is not inspect.Parameter.POSITIONAL_ONLY) or self.ft_varkw:
            kw[key] = val
        elif key == "where" and val is True or _is_default(val, _default(p)):
            return
        else:
            given = f"an array of shape {val.shape}" if hasattr(val, "shape") else repr(val)
            default = _default(p)
            default = "to leave it unset" if default is _NoValue else f"for {default!r}"
            raise TypeError(
                f"{self.name}(..., {key}=...) was given {given}, but {self._ft()} has no "
                f"argument {key!r}: drop it (NumPy's default {default}) or write the "
                "computation with ftrans.numpy.")


# --- NumPy functions answered from shapes and dtypes alone ---------------------------------
def _dtype_only(x: Any) -> Any:
    return x.dtype if isinstance(x, Tracer) else x


def _result_type(args: tuple[Any, ...], kwargs: dict[str, Any]) -> np.dtype[Any]:
    return np.result_type(*[_dtype_only(a) for a in args])


def _can_cast(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    dts = [_dtype_only(a) for a in args]
    return np.can_cast(*dts, **{k: _dtype_only(v) for k, v in kwargs.items()})


def _kind_test(kind: str, want: bool) -> Callable[[tuple[Any, ...], dict[str, Any]], bool]:
    def f(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
        (x,) = list(args) + list(kwargs.values())
        dt = x.dtype if isinstance(x, Tracer) else np.asarray(x).dtype
        return (dt.kind == kind) == want
    return f


_SPECIAL: dict[Any, Callable[[tuple[Any, ...], dict[str, Any]], Any]] = {
    np.result_type: _result_type, np.can_cast: _can_cast,
    np.iscomplexobj: _kind_test("c", True), np.isrealobj: _kind_test("c", False)}


def array_function(tracer: Tracer, func: Callable[..., Any], types: Collection[type],
                   args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``Tracer.__array_function__`` (NEP 18): run ``func`` as the ftrans.numpy function of
    its name.

    Parameters
    ----------
    tracer : Tracer
        The traced value NumPy found among the arguments (named in error messages).
    func : callable
        The public NumPy function called (``numpy.sum``, ``numpy.linalg.solve`` ...).
    types : collection of type
        The argument types that implement ``__array_function__`` (unused: ftrans.numpy's
        functions accept NumPy arrays and tracers alike).
    args, kwargs : tuple, dict
        The arguments as the user passed them to ``func``.

    Returns
    -------
    The result of the ftrans.numpy function: tracers where it depends on traced values.

    Raises
    ------
    TypeError
        ``func`` is not covered by ftrans.numpy; ``out=`` was given; an argument
        ftrans's function lacks was given a value other than NumPy's default.

    Examples
    --------
    >>> import numpy as np, ftrans
    >>> float(ftrans.grad(lambda x: np.sum(np.square(x)))(np.array([1.0, 2.0]))[1])
    4.0
    """
    fn = numpy_function(func)
    if fn is None:
        raise uncovered_error(f"{getattr(func, '__module__', 'numpy')}."
                              f"{getattr(func, '__name__', func)}", tracer)
    return fn(args, kwargs)

