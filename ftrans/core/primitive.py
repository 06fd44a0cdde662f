"""Primitives: named operations whose rules every transform composes.

A :class:`Primitive` carries, in one object, everything a transform needs:

``impl(*args, **params)``
    concrete arrays -> concrete array (through :mod:`ftrans.kernels`).
``abstract_eval(*avals, **params)``
    :class:`~ftrans.core.abstract.ShapedArray` arguments -> ShapedArray result
    (Python scalars are passed as themselves: they are *weakly typed*, NumPy 2's
    NEP 50 rule, so ``float32_array * 0.5`` stays float32).
``jvp(primals, tangents, **params) -> (primal_out, tangent_out)``
    forward-mode rule.  ``tangents[i]`` is the symbolic :data:`~ftrans.core.zeros.zero`
    when argument ``i`` carries no tangent; ``tangent_out`` may be ``zero``.
``vjp(ct, ans, primals, needs, **params) -> sequence of input cotangents``
    reverse-mode rule.  ``ct`` is the output cotangent, ``ans`` the primal output
    and ``primals`` the primal inputs (the residuals).  ``needs[i]`` tells whether
    input ``i`` wants a cotangent; the rule returns ``None`` for the others.
    Cotangents follow PyTorch's convention (autograd notes, "Autograd for Complex
    Numbers"): the rule is the adjoint of the JVP for the real inner product
    ``Re(sum(conj(a) * b))``, so for a holomorphic ``f`` it multiplies by
    ``conj(f'(x))``.
``vjp_fwd(*primals, **params) -> (out, residuals)`` (optional)
    for primitives whose reverse mode saves something other than their inputs and
    output (``custom_vjp``'s user residuals, ``checkpoint``'s inputs only): reverse
    mode then calls it instead of ``impl`` and passes ``residuals`` to ``vjp`` in
    place of ``primals``.
``lowering`` (optional)
    what the compiler (:mod:`ftrans.compiler`) needs to emit this primitive in a
    compiled program; a primitive without one makes the compiler split the program
    and call ``impl`` between compiled segments (a slower path, never an error).
``batch(args, dims, **params) -> (out, out_dim)``
    vectorizing rule used by ``vmap``.  Until a primitive defines one, vmap raises
    ``NotImplementedError`` naming the primitive (no silent slow fallback).

Rules call ftrans operations (other primitives' ``bind``), never raw NumPy, so
the rules themselves can be differentiated and batched again.

Primitives that have no derivative by nature (comparisons, ``argmax``, logical
operations) are created with ``differentiable=False``; transforms treat their
outputs as constants.

Primitives whose application matters beyond its outputs (``ftrans.debug.callback``'s,
which calls a host function for its side effect) are created with ``effectful=True``:
dead-code elimination (:func:`ftrans.core.ir.dce`) keeps their equations, and those of
control-flow primitives whose sub-programs contain one, even when no result is used.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .trace import _ctx, EVAL, _escaped, Tracer
from . import debug

__all__ = ["Primitive", "all_primitives"]

_registry: dict[str, "Primitive"] = {}


class Primitive:
    """A named operation with keyword parameters; see the module docstring.

    Parameters
    ----------
    name : str
        Unique name (``"sin"``, ``"dot_general"`` ...).  Registering two primitives
        with one name raises ``ValueError``.
    differentiable : bool
        False for operations whose output carries no tangent (comparisons ...).
    multiple_results : bool
        True when ``impl`` returns a tuple of arrays; the ``jvp`` rule then returns
        tuples and the ``vjp`` rule receives a tuple of cotangents (symbolic zeros
        already instantiated).
    effectful : bool
        True when applying the primitive has a side effect (a host callback): its
        equations are never dropped as dead code.

    ``facets`` is the primitive's row of the elementwise operation table
    (``ftrans.primitives.optable.Op``: its NumPy and torch names, node name, test
    domain ...), or None for a primitive that is not a row.
    """

    __slots__ = ("name", "impl", "abstract_eval", "jvp", "vjp", "vjp_fwd", "batch",
                 "lowering", "differentiable", "multiple_results", "effectful", "facets",
                 "__weakref__")

    def __init__(self, name: str, *, differentiable: bool = True, multiple_results: bool = False,
                 effectful: bool = False):
        if name in _registry:
            raise ValueError(f"a primitive named {name!r} is already registered")
        self.name = name
        self.differentiable = differentiable
        self.multiple_results = multiple_results
        self.effectful = effectful
        # the rules, set by the primitive's file (None: the primitive has no such rule)
        self.impl: Callable[..., Any] | None = None
        self.abstract_eval: Callable[..., Any] | None = None
        self.jvp: Callable[..., Any] | None = None
        self.vjp: Callable[..., Any] | None = None
        self.vjp_fwd: Callable[..., Any] | None = None
        self.batch: Callable[..., Any] | None = None
        self.lowering: Any = None       # the compiler's lowering entry (compiler/_numba.py)
        self.facets: Any = None         # the optable row (primitives/optable.py: Op), or None
        _registry[name] = self

    def bind(self, *args, **params):
        """Apply the primitive through the current trace.

        With no transform active the call goes straight to ``impl`` ("no trace, no
        cost"); a tracer that escaped its transform raises ``EscapedTracerError``.
        In debug_nans mode (:mod:`ftrans.config`) the result is checked for NaN.
        """
        trace = _ctx.trace
        if trace is EVAL:
            for a in args:
                if isinstance(a, Tracer):
                    raise _escaped(a, self)
            try:
                out = self.impl(*args, **params)
            except (NotImplementedError, TypeError) as e:
                if not hasattr(e, "with_primitive"):
                    raise
                raise e.with_primitive(self.name) from None
            if debug.nans:
                debug.check(self, out)
            return out
        return trace.process_primitive(self, args, params)

    # decorators so a primitive's file reads top to bottom ------------------------
    def def_impl(self, fn):
        self.impl = fn
        return fn

    def def_abstract_eval(self, fn):
        self.abstract_eval = fn
        return fn

    def def_jvp(self, fn):
        self.jvp = fn
        return fn

    def def_vjp(self, fn):
        self.vjp = fn
        return fn

    def def_batch(self, fn):
        self.batch = fn
        return fn

    def __repr__(self):
        return f"Primitive({self.name})"


def all_primitives() -> dict[str, Primitive]:
    """Every registered primitive by name (import :mod:`ftrans.primitives` first)."""
    return dict(_registry)
