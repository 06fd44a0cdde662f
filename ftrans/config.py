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

_OPTIONS = ("debug_nans",)


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


def update(name: str, value: bool) -> None:
    """Set option ``name`` (``"debug_nans"`` or ``"jax_debug_nans"``) to ``value``.

    Parameters
    ----------
    name : str
        The option, with or without JAX's ``jax_`` prefix.
    value : bool
        Its new value (a NumPy bool is accepted).

    Raises
    ------
    AttributeError
        For an unknown option.
    TypeError
        When ``value`` is not a bool.
    """
    _option(name, "update")
    if not isinstance(value, bool) and type(value).__name__ != "bool_":
        raise TypeError(f"ftrans.config.update({name!r}, ...): expected True or False, got "
                        f"{value!r} of type {type(value).__name__}")
    _debug.nans = bool(value)


def read(name: str) -> bool:
    """The current value of option ``name``.

    Parameters
    ----------
    name : str
        The option, with or without JAX's ``jax_`` prefix.

    Returns
    -------
    bool
        Its value.

    Raises
    ------
    AttributeError
        For an unknown option.
    """
    _option(name, "read")
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
