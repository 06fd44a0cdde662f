"""Ahead-of-time views of a jitted call (JAX's ``jax.stages``): ``jit(f).trace(*args)``
gives a :class:`Traced` (the staged IR, ``.jaxpr``), ``jit(f).lower(*args)`` a
:class:`Lowered` (``.as_text()``: the IR's listing), and ``.compile()`` a
:class:`Compiled` callable; ``make_jaxpr`` is ``make_ir`` under JAX's name; and
``decorator_factory`` lets a transform be called with only its options
(``@ftrans.jit(static_argnames="n")``, ``@ftrans.grad(argnums=1)``).

ftrans has no separate lowered form (its IR is what the compiler consumes), so
``Traced.jaxpr`` and ``Lowered.as_text()`` show the same program; ``compile()`` compiles
it for the CPU (numba) and the :class:`Compiled` object runs it without staging again.
As in JAX, a :class:`Compiled` is called *without* the static arguments (they are part
of the program) and only with arguments of the signature it was lowered for
(``TypeError`` otherwise).

Source: JAX's "Ahead-of-time lowering and compilation" guide and ``jax.stages``
reference (``Traced.jaxpr``/``out_info``/``lower``, ``Lowered.as_text``/``compile``,
``Compiled.__call__``).
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from ..core import ShapedArray
from ..core.pytree import tree_unflatten
from ._jit_args import _normalize_static, _split, _stage_call
from ._jit_run import _run, compile_ir
from ._util import decorator_factory  # noqa: F401  (re-exported)
from ..core.ir import IR
from ..typing import PyTree

__all__ = ["Traced", "Lowered", "Compiled", "make_jaxpr", "decorator_factory", "stages_of"]

def _out_info(staged: Any) -> PyTree:
    return tree_unflatten(staged.out_tree, [ShapedArray(a.shape, a.dtype)
                                            for a in staged.ir.out_avals])


class _Stage:
    """What one staged call knows: the program, how to rebuild the outputs, the key."""

    def __init__(self, fun: Callable[..., Any], who: str, nums: tuple[int, ...],
                 names: tuple[str, ...], args: tuple[Any, ...], kwargs: dict[str, Any]
                 ) -> None:
        self._call = _split(who, args, kwargs, nums, names)
        self._staged = _stage_call(fun, who, self._call, nums)
        if self._staged.lifted:
            raise TypeError(f"{who}: cannot lower a function that closes over a value traced "
                            "by an enclosing transform; lower it outside the transform")
        self._fun, self._who, self._nums, self._names = fun, who, nums, names

    @property
    def jaxpr(self) -> IR:
        """The staged program (``ftrans.core.ir.IR``; ``str()`` lists it)."""
        return self._staged.ir

    @property
    def out_info(self) -> PyTree:
        """The outputs' pytree of ``ShapedArray`` (shape, dtype)."""
        return _out_info(self._staged)

    def as_text(self) -> str:
        """The program's listing (one equation per line with shapes and dtypes)."""
        return str(self._staged.ir)


class Traced(_Stage):
    """``jit(f).trace(*args)``: the staged program of one call signature."""

    def lower(self) -> Lowered:
        """The :class:`Lowered` form (the same program; ftrans has one IR)."""
        low = Lowered.__new__(Lowered)
        low.__dict__.update(self.__dict__)
        return low


class Lowered(_Stage):
    """``jit(f).lower(*args)``: ``.as_text()`` lists the program, ``.compile()``
    returns a :class:`Compiled` callable."""

    def compile(self) -> Compiled:
        """Compile the program for the CPU now; returns a :class:`Compiled`."""
        comp = Compiled.__new__(Compiled)
        comp.__dict__.update(self.__dict__)
        compile_ir(self._staged.ir, "cpu")  # warm the cache: the first call compiles nothing
        return comp


class Compiled(_Stage):
    """A compiled program, called with the *dynamic* arguments of the lowered call."""

    def __call__(self, *args: Any, **kwargs: Any) -> PyTree:
        call = self._call
        n = len(args) + len(call.args)
        it = iter(args)
        full = tuple(call.args[i] if i in call.args else next(it, None) for i in range(n))
        kw = dict(kwargs)
        kw.update(call.kwargs)
        new = _split(self._who, full, kw, self._nums, self._names)
        if new.key != call.key:
            raise TypeError(f"{self._who}.lower(...).compile(): called with arguments whose "
                            "structure, shapes or dtypes differ from those it was lowered "
                            "for; lower it again for these arguments (or call the jitted "
                            "function, which stages each new signature)")
        return tree_unflatten(self._staged.out_tree, _run(self._staged.ir, new.leaves))


def stages_of(fun: Callable[..., Any], who: str, nums: tuple[int, ...],
              names: tuple[str, ...]
              ) -> tuple[Callable[..., Traced], Callable[..., Lowered]]:
    """``(trace, lower)`` methods for a jitted function."""
    def trace(*args: Any, **kwargs: Any) -> Traced:
        return Traced(fun, who, nums, names, args, kwargs)

    def lower(*args: Any, **kwargs: Any) -> Lowered:
        return trace(*args, **kwargs).lower()
    return trace, lower


def make_jaxpr(fun: Callable[..., Any], static_argnums: int | Sequence[int] = (),
               axis_env: Sequence[tuple[Any, int]] | None = None,
               return_shape: bool = False) -> Callable[..., Any]:
    """The staged program of ``fun`` under JAX's name (``jax.make_jaxpr``).

    ``make_jaxpr(f)(*args)`` is ftrans's IR of ``f`` (what :func:`ftrans.make_ir`
    returns; ``print`` lists it).

    Parameters
    ----------
    fun : callable
        Takes pytrees of arrays / Python scalars (and static arguments).
    static_argnums : int or sequence of int, default ()
        Arguments used as Python values while staging.
    axis_env : None
        Accepted for JAX compatibility; named axes are not supported.
    return_shape : bool, default False
        Also return the outputs' pytree of ``ShapedArray``.

    Returns
    -------
    callable
        ``(*args, **kwargs) -> IR`` (or ``(IR, shapes)`` with ``return_shape``).

    Raises
    ------
    ValueError
        For a non-empty ``axis_env``.
    ConcretizationError
        If ``fun`` branches on or converts a traced value.

    Examples
    --------
    >>> import ftrans, ftrans.numpy as fnp, numpy as np
    >>> print(ftrans.make_jaxpr(lambda x: fnp.sin(x) * 2.0)(np.ones(2)))
    ir(a:f64[2]) {
      b:f64[2] = sin a
      c:f64[2] = mul b 2.0
      return c
    }
    """
    if axis_env:
        raise ValueError("make_jaxpr: axis_env (named axes) is not supported by ftrans")
    who = f"make_jaxpr({getattr(fun, '__name__', type(fun).__name__)})"
    nums, names = _normalize_static(fun, static_argnums, (), who)

    @functools.wraps(fun)
    def make(*args: Any, **kwargs: Any) -> Any:
        staged = _stage_call(fun, who, _split(who, args, kwargs, nums, names), nums)
        return (staged.ir, _out_info(staged)) if return_shape else staged.ir
    return make
