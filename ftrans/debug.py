"""Debugging at execution time: ``ftrans.debug.print`` and ``ftrans.debug.callback``
(JAX's ``jax.debug``).

Python's ``print`` inside a staged function (``ftrans.jit``) runs once, while staging,
and shows abstract tracers.  :func:`print` and :func:`callback` instead apply the
effectful ``debug_callback`` primitive (:mod:`ftrans.primitives.callback`): it is
recorded in the program, never dropped as dead code, and runs when the program runs,
with the concrete values -- also inside ``ftrans.lax.scan`` / ``while_loop`` / ``cond``
bodies (once per iteration), under ``grad`` (the primal values, once, in the forward
pass) and under ``vmap`` (once per element of the mapped axis).

This module is not :mod:`ftrans.core.debug` (the ``debug_nans`` checks).
"""
from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

from .core.pytree import tree_flatten, tree_unflatten
from .primitives.callback import debug_callback_p

__all__ = ["callback", "print"]


def callback(callback: Callable[..., None], *args: Any, ordered: bool = False,
             **kwargs: Any) -> None:
    """Call a host function on the concrete values of ``args`` when the program runs.

    Parameters
    ----------
    callback : callable
        ``callback(*args, **kwargs)`` with NumPy arrays at the array leaves; its return
        value is ignored.
    *args : Any
        Pytrees of arrays (tracers under a transform) and Python values.
    ordered : bool, default False
        Accepted for JAX compatibility: calls run in program order when the program
        runs eagerly or through its impls; the compiler may move an unordered call
        past independent work.
    **kwargs : Any
        Pytrees passed to ``callback`` by keyword, like ``args``.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        If ``callback`` is not callable.

    Notes
    -----
    Follows ``jax.debug.callback``
    (https://docs.jax.dev/en/latest/_autosummary/jax.debug.callback.html): under
    ``jit`` the call runs at execution time, never while staging; ``jvp`` and ``grad``
    pass it the primal values; ``vmap`` calls it once per mapped element.

    Examples
    --------
    >>> import ftrans, ftrans.numpy as fnp
    >>> seen = []
    >>> f = ftrans.jit(lambda x: (ftrans.debug.callback(seen.append, x), x * 2)[1])
    >>> _ = f(fnp.ones(2))
    >>> seen
    [array([1., 1.])]
    """
    if not callable(callback):
        raise TypeError(f"ftrans.debug.callback: callback must be callable, got "
                        f"{type(callback).__name__}; pass the function first, then its "
                        "arguments")
    leaves, tree = tree_flatten((args, kwargs))

    def flat_callback(*xs: Any) -> None:
        a, k = tree_unflatten(tree, list(xs))
        callback(*a, **k)

    debug_callback_p.bind(*leaves, callback=flat_callback, ordered=bool(ordered))


def print(fmt: str, *args: Any, ordered: bool = False, **kwargs: Any) -> None:  # noqa: A001
    """Print ``fmt.format(*args, **kwargs)`` with the concrete values when the program runs.

    Parameters
    ----------
    fmt : str
        A ``str.format`` format string (``"x = {}"``, ``"{x:.3f}"`` ...).
    *args : Any
        Values (arrays, tracers, pytrees) for the positional fields.
    ordered : bool, default False
        As for :func:`callback`.
    **kwargs : Any
        Values for the named fields.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        If ``fmt`` is not a string.

    Notes
    -----
    Follows ``jax.debug.print``
    (https://docs.jax.dev/en/latest/_autosummary/jax.debug.print.html): formatted with
    ``str.format`` at execution time (arrays arrive as NumPy arrays), also under
    ``jit``; built on :func:`callback`.

    Examples
    --------
    >>> import ftrans, ftrans.numpy as fnp
    >>> @ftrans.jit
    ... def f(x):
    ...     ftrans.debug.print("x = {}", x)
    ...     return x * 2
    >>> _ = f(fnp.arange(3.0))
    x = [0. 1. 2.]
    """
    if not isinstance(fmt, str):
        raise TypeError(f"ftrans.debug.print: fmt must be a str (a str.format format "
                        f"string), got {type(fmt).__name__}; write "
                        "ftrans.debug.print('{}', value)")

    def _print(*a: Any, **k: Any) -> None:
        builtins.print(fmt.format(*a, **k))

    callback(_print, *args, ordered=ordered, **kwargs)
