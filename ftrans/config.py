"""Global configuration, as ``jax.config``: ``ftrans.config.update(name, value)``.

Options (each also accepted with JAX's ``jax_`` prefix):

``debug_nans`` (bool, default False)
    Check the result of every primitive computed on concrete values -- eagerly,
    under the transforms (values, JVP tangents and VJP cotangents) and the outputs of
    every ``jit``-compiled call -- and raise ``FloatingPointError`` at the first NaN,
    naming the primitive and the first line of the stack outside ftrans (your code).
    When a compiled program's output holds a NaN, the jitted function runs again
    eagerly (under :func:`~ftrans.disable_jit`) to find the primitive.  Off, it costs
    one flag read per primitive.  Infinities are not reported.

``jit_cache_size`` (int, default 64)
    The number of staged programs each jitted function keeps (one per argument
    signature: shapes, dtypes, pytree structure, static arguments), least recently used
    dropped first; a program of an evicted signature is traced again when it comes back
    (its generated code, shared by every shape of a rank and dtype, stays loaded).
    After :data:`RETRACE_WARN_AFTER` traces a jitted function warns once with
    :class:`ftrans.transforms.jit.RetraceWarning` (torch's ``recompile_limit`` is 8).

>>> import ftrans
>>> ftrans.config.update("debug_nans", True)
>>> ftrans.config.jax_debug_nans
True
>>> ftrans.config.update("jax_debug_nans", False)
>>> with ftrans.debug_nans():          # or ftrans.config.debug_nans(True)
...     pass

The setting is global (all threads), as JAX's; ``debug_nans`` the context manager
restores the previous value on exit.
"""
from __future__ import annotations

from typing import Any, Literal

from .core import debug as _debug

__all__ = ["update", "read", "debug_nans"]

_OPTIONS = ("debug_nans", "jit_cache_size")

#: ``jit_cache_size``'s value (read by :func:`ftrans.jit` on every new signature)
jit_cache_size = 64

#: traces of one jitted function after which it warns (once) that it keeps retracing
RETRACE_WARN_AFTER = 8


def _option(name: Any, who: str) -> str:
    if not isinstance(name, str):
        raise TypeError(f"ftrans.config.{who}: the option name must be a str, got "
                        f"{type(name).__name__}")
    key = name[4:] if name.startswith("jax_") else name
    if key not in _OPTIONS:
        raise AttributeError(f"ftrans.config.{who}: unrecognized config option {name!r}; "
                             f"the options are {', '.join(map(repr, _OPTIONS))} (also "
                             "accepted with JAX's 'jax_' prefix)")
    return key


def update(name: str, value: bool | int) -> None:
    """Set option ``name`` (``"debug_nans"`` or ``"jit_cache_size"``) to ``value``.

    Parameters
    ----------
    name : str
        The option, with or without JAX's ``jax_`` prefix.
    value : bool or int
        Its new value: a bool for ``debug_nans`` (a NumPy bool is accepted), an int >= 1
        for ``jit_cache_size``.

    Raises
    ------
    AttributeError
        For an unknown option.
    TypeError
        When ``value`` has the wrong type.
    ValueError
        For a ``jit_cache_size`` below 1.
    """
    global jit_cache_size
    if _option(name, "update") == "jit_cache_size":
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"ftrans.config.update({name!r}, ...): expected an int, got "
                            f"{value!r} of type {type(value).__name__}")
        if value < 1:
            raise ValueError(f"ftrans.config.update({name!r}, {value}): the cache must hold "
                             "at least 1 program")
        jit_cache_size = int(value)
        return
    if not isinstance(value, bool) and type(value).__name__ != "bool_":
        raise TypeError(f"ftrans.config.update({name!r}, ...): expected True or False, got "
                        f"{value!r} of type {type(value).__name__}")
    _debug.nans = bool(value)


def read(name: str) -> bool | int:
    """The current value of option ``name``.

    Parameters
    ----------
    name : str
        The option, with or without JAX's ``jax_`` prefix.

    Returns
    -------
    bool or int
        Its value.

    Raises
    ------
    AttributeError
        For an unknown option.
    """
    if _option(name, "read") == "jit_cache_size":
        return jit_cache_size
    return _debug.nans


def __getattr__(name: str) -> bool:
    # ftrans.config.debug_nans is the context manager below; the value reads as
    # ftrans.config.jax_debug_nans (as jax.config.jax_debug_nans)
    if name == "jax_debug_nans":
        return _debug.nans
    raise AttributeError(f"module 'ftrans.config' has no attribute {name!r}")


class debug_nans:
    """Context manager turning debug_nans on (or off) inside its block.

    The previous value is restored on exit; ``ftrans.debug_nans`` is the same class
    (JAX's ``jax.debug_nans``).

    Parameters
    ----------
    value : bool, default True
        The setting inside the block (``debug_nans(False)`` turns it off).

    Raises
    ------
    TypeError
        When ``value`` is not a bool.

    Examples
    --------
    >>> import ftrans, ftrans.numpy as fnp, numpy as np
    >>> with ftrans.debug_nans():
    ...     fnp.log(np.array([-1.0]))     # doctest: +ELLIPSIS
    Traceback (most recent call last):
    FloatingPointError: invalid value (NaN) encountered in primitive 'log' at ...
    """

    __slots__ = ("value", "prev")

    def __init__(self, value: bool = True) -> None:
        if not isinstance(value, bool):
            raise TypeError(f"debug_nans: expected True or False, got {value!r}")
        self.value = value

    def __enter__(self) -> debug_nans:
        self.prev = _debug.nans
        _debug.nans = self.value
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        _debug.nans = self.prev
        return False
