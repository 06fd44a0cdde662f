"""``custom_root``: differentiate the root of a function by the implicit function
theorem (JAX's ``jax.lax.custom_root``; Blondel et al. 2022, "Efficient and Modular
Implicit Differentiation", NeurIPS).

At a root ``x*(theta)`` of ``f(x, theta) = 0`` the derivative of the solution is
``dx* = -(d_x f)^{-1} (d_theta f) dtheta`` (forward mode) and its transpose
``theta_bar = -(d_theta f)^T lambda`` with ``(d_x f)^T lambda = x_bar`` (reverse mode).
The solver itself is never differentiated, so it may be anything (a SciPy routine
behind ``pure_callback``, a Python loop).

Design: forward and reverse mode each get their own rule.  ``custom_vjp`` supplies
the reverse rule; its forward mode differentiates its function, which is a
``custom_jvp`` function carrying the forward rule.  Both rules are written with
ftrans's own ``jvp``/``vjp`` and the user's ``tangent_solve``, so they differentiate
again (second derivatives, ``grad`` of ``jvp``) and batch under ``vmap``.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..core.pytree import tree_map
from ..primitives import stop_gradient, neg
from ._closure import closure_convert
from ._util import zeros_like_leaf
from .custom import custom_jvp, custom_vjp
from .jvp import jvp
from .vjp import vjp
from ..typing import PyTree

__all__ = ["custom_root", "implicit_root"]


def custom_root(f: Callable[[PyTree], PyTree], initial_guess: PyTree,
                solve: Callable[[Callable[[PyTree], PyTree], PyTree], PyTree],
                tangent_solve: Callable[[Callable[[PyTree], PyTree], PyTree], PyTree],
                has_aux: bool = False) -> PyTree:
    """The root of ``f`` found by ``solve``, differentiable by the implicit function theorem.

    As JAX's ``jax.lax.custom_root``: the solver is not differentiated; derivatives of
    the root come from ``f``'s derivatives at it.

    Parameters
    ----------
    f : callable
        ``f(x) -> residual`` of the structure of ``x``; the parameters it is
        differentiated with respect to are the (traced) values it closes over.
    initial_guess : PyTree
        Starting point handed to ``solve``; its gradient is zero.
    solve : callable
        ``solve(f, initial_guess) -> x`` with ``f(x) == 0`` (not differentiated).
    tangent_solve : callable
        ``tangent_solve(g, y) -> x`` solving the *linear* system ``g(x) = y``; ``g`` is
        ``v -> (d_x f) v`` in forward mode and ``u -> (d_x f)^T u`` in reverse mode.
        For a small array root: ``lambda g, y: fnp.linalg.solve(ftrans.jacfwd(g)(y), y)``.
    has_aux : bool, default False
        Not supported (raises ``NotImplementedError``).

    Returns
    -------
    PyTree
        The root, with the structure of ``initial_guess``.

    Raises
    ------
    NotImplementedError
        For ``has_aux=True``.

    Notes
    -----
    The implicit function theorem as in Blondel et al. (2022), "Efficient and Modular
    Implicit Differentiation"; the interface is ``jax.lax.custom_root``'s
    (https://docs.jax.dev/en/latest/_autosummary/jax.lax.custom_root.html).

    Examples
    --------
    >>> import ftrans, ftrans.numpy as fnp
    >>> def sqrt(a):   # the root of x**2 - a, by Newton's method
    ...     def solve(f, x):
    ...         for _ in range(30):
    ...             x = x - f(x) / (2 * x)
    ...         return x
    ...     return ftrans.custom_root(lambda x: x ** 2 - a, fnp.array(1.0), solve,
    ...                               lambda g, y: y / g(1.0))
    >>> float(ftrans.grad(sqrt)(4.0))   # 1 / (2 sqrt(4))
    0.25
    """
    if has_aux:
        raise NotImplementedError("custom_root(has_aux=True) is not supported; return the "
                                  "auxiliary data from a separate call")
    re_f, consts = closure_convert(f)
    return implicit_root(lambda x, cs: re_f(cs)(x), initial_guess, tuple(consts),
                         lambda x0, cs: solve(re_f(cs), x0), tangent_solve)


def implicit_root(f: Callable[[PyTree, tuple[Any, ...]], PyTree], initial_guess: PyTree,
                  params: Sequence[Any],
                  solve: Callable[[PyTree, tuple[Any, ...]], PyTree],
                  tangent_solve: Callable[[Callable[[PyTree], PyTree], PyTree], PyTree]
                  ) -> PyTree:
    """:func:`custom_root` with the parameters explicit: the root ``x`` of ``f(x, params)
    = 0`` found by ``solve(initial_guess, params)`` (both called with parameters whose
    derivatives are stopped), differentiable in ``params`` (a tuple of arrays) by the
    implicit function theorem.  For solvers that must see the parameters' values (a
    SciPy routine behind ``pure_callback``)."""
    @custom_jvp
    def root(x0: PyTree, cs: tuple[Any, ...]) -> PyTree:
        return solve(stop_gradient(x0), tuple(stop_gradient(c) for c in cs))

    @root.defjvp
    def root_jvp(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Any, Any]:
        x0, cs = primals
        dcs = tangents[1]
        x = root(x0, cs)
        _, rhs = jvp(lambda c: f(x, c), (cs,), (dcs,))
        dx = tangent_solve(lambda v: jvp(lambda y: f(y, cs), (x,), (v,))[1],
                           tree_map(neg, rhs))
        return x, dx

    @custom_vjp
    def root_rev(x0: PyTree, cs: tuple[Any, ...]) -> PyTree:
        return root(x0, cs)

    def root_fwd(x0: PyTree, cs: tuple[Any, ...]) -> tuple[PyTree, Any]:
        x = root(x0, cs)
        return x, (x, x0, cs)

    def root_bwd(res: Any, x_bar: PyTree) -> tuple[PyTree, Any]:
        x, x0, cs = res
        _, pull_x = vjp(lambda y: f(y, cs), x)
        lam = tangent_solve(lambda u: pull_x(u)[0], x_bar)
        _, pull_c = vjp(lambda c: f(x, c), cs)
        (cs_bar,) = pull_c(tree_map(neg, lam))
        return tree_map(zeros_like_leaf, x0), cs_bar

    root_rev.defvjp(root_fwd, root_bwd)
    return root_rev(initial_guess, tuple(params))
