"""ODE solutions differentiable by the adjoint method: ``odeint`` (JAX's
``jax.experimental.ode.odeint`` signature) and ``solve_ivp`` (SciPy's).

The forward solve is SciPy's ``scipy.integrate.solve_ivp`` run on the host through
:func:`ftrans.pure_callback`, with ftrans evaluating the user's right-hand side on NumPy
values.  Derivatives:

* **reverse mode** by the adjoint method (Chen et al. 2018, "Neural Ordinary
  Differential Equations", Appendix B; as HIPS autograd's and JAX's ``odeint``): the
  augmented state ``[y, a, t0_bar, args_bar]`` with ``a' = -a^T df/dy``,
  ``t0_bar' = -a^T df/dt``, ``args_bar' = -a^T df/dargs`` is integrated backwards
  between consecutive output times, adding the output cotangent at each;
* **forward mode** by the sensitivity equations: ``[y, s]`` with
  ``s' = df/dy s + df/dargs dargs``, ``s(t0) = dy0 - f(y0, t0) dt0``, plus
  ``f(y(t_i), t_i) dt_i`` at each output time.

Design: ``custom_vjp`` and ``custom_jvp`` cannot decorate one function, so the solution is
a ``custom_vjp`` function (the adjoint rule) whose function is a ``custom_jvp`` function
(the sensitivity rule): reverse mode runs the adjoint, forward mode (``custom_vjp``
differentiates its function there) runs the sensitivities.  Both rules solve their
augmented systems with this same solver, so they are differentiable in turn (``hessian``,
``grad`` of ``grad``, ``jvp`` of ``grad``) and batch under ``vmap`` (one SciPy solve per
mapped element).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
import scipy.integrate

from ...core.pytree import tree_flatten, tree_unflatten
from ...flatten_util import ravel_pytree
from ...primitives import pure_callback, ShapeDtypeStruct
from ...core import TracerArrayConversionError
from ...core.ir import ConcretizationError
from ...transforms import custom_jvp, custom_vjp, jvp, vjp, vmap, jit
from ... import numpy as fnp
from ...typing import Array, ArrayLike, PyTree

__all__ = ["odeint", "solve_ivp", "OdeResult"]

_METHODS = ("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")


#: augmented right-hand-side evaluations after which they are compiled (see _compiled)
COMPILE_AFTER = 2000
_aug_evals = [0]


def _compiled(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` compiled by ``ftrans.jit`` once this process has evaluated more than
    ``COMPILE_AFTER`` augmented right-hand sides (they differentiate the user's function
    at every step: compiled, an evaluation costs ~5x less, but compiling costs about a
    second, which only repeated solves repay); ``func`` itself before that, and where it
    cannot be staged (Python control flow on values, NumPy calls on arrays)."""
    state: dict[str, Any] = {"fun": None}

    def call(*args: Any) -> Any:
        _aug_evals[0] += 1
        fun = state["fun"]
        if fun is None:
            if _aug_evals[0] <= COMPILE_AFTER:
                return func(*args)
            fun = state["fun"] = jit(func)
        try:
            return fun(*args)
        except (ConcretizationError, TracerArrayConversionError):
            if fun is func:
                raise
            state["fun"] = func
            return func(*args)
    return call


def _host_solver(func: Callable[..., Any], method: str, rtol: float, atol: float,
                 mxstep: float, n_state: int) -> Callable[..., tuple[np.ndarray]]:
    """The host function: (y0, t, *args) NumPy arrays -> (len(t), n_state) solution."""
    def host(y0: np.ndarray, t: np.ndarray, *args: Any) -> tuple[np.ndarray]:
        out = np.empty((t.shape[0], n_state), y0.dtype)
        out[0] = y0
        if t.shape[0] == 1 or t[0] == t[-1]:
            out[:] = y0
            return (out,)
        d = np.diff(t)
        if not (np.all(d >= 0) or np.all(d <= 0)):
            raise ValueError(f"odeint: the times t must be monotonic, got {t}")
        calls = [0]

        def rhs(s: float, y: np.ndarray) -> np.ndarray:
            calls[0] += 1
            if calls[0] > mxstep:
                raise RuntimeError(
                    f"odeint: more than mxstep={mxstep} evaluations of func between "
                    f"t={t[0]} and t={t[-1]}; the problem may be stiff (try method='LSODA'"
                    " or 'BDF') or need a larger mxstep")
            return np.asarray(func(y.astype(y0.dtype), np.asarray(s, t.dtype), *args),
                              np.float64)

        sol = scipy.integrate.solve_ivp(rhs, (float(t[0]), float(t[-1])), y0.astype(np.float64),
                                        method=method, t_eval=t.astype(np.float64),
                                        rtol=rtol, atol=atol)
        if sol.status != 0:
            raise RuntimeError(f"odeint: SciPy's solve_ivp failed: {sol.message}")
        out[:] = sol.y.T
        return (out,)
    return host


def _make_solver(func: Callable[..., Any], method: str, rtol: float, atol: float,
                 mxstep: float, compile_rhs: bool = False) -> Callable[..., Any]:
    """``solve(y0, t, args) -> ys`` for a flat state ``y0`` (1-D) and a tuple of array
    ``args``; differentiable in all three (module docstring).  ``compile_rhs``: the host
    evaluates ``func`` compiled (:func:`_compiled`)."""
    host_func = _compiled(func) if compile_rhs else func

    def primal(y0: Array, t: Array, args: tuple[Array, ...]) -> Array:
        host = _host_solver(host_func, method, rtol, atol, mxstep, y0.shape[0])
        spec = (ShapeDtypeStruct((t.shape[0], y0.shape[0]), y0.dtype),)
        return pure_callback(host, spec, y0, t, *args)[0]

    @custom_jvp
    def solve(y0: Array, t: Array, args: tuple[Array, ...]) -> Array:
        return primal(y0, t, args)

    @solve.defjvp
    def solve_jvp(primals: tuple[Any, ...], tangents: tuple[Any, ...]) -> tuple[Array, Array]:
        (y0, t, args), (dy0, dt, dargs) = primals, tangents
        n, k = y0.shape[0], len(args)
        ys = solve(y0, t, args)

        def sens(z: Array, s: Array, *a: Array) -> Array:
            fy, dfy = jvp(lambda y, *aa: func(y, s, *aa), (z[:n], *a[:k]), (z[n:], *a[k:]))
            return fnp.concatenate([fy, dfy])

        z0 = fnp.concatenate([y0, dy0 - func(y0, t[0], *args) * dt[0]])
        dys = _make_solver(sens, method, rtol, atol, mxstep, True)(z0, t,
                                                                  tuple(args) + tuple(dargs))
        f_out = vmap(lambda y, s: func(y, s, *args))(ys, t)
        return ys, dys[:, n:] + f_out * dt[:, None]

    @custom_vjp
    def solve_rev(y0: Array, t: Array, args: tuple[Array, ...]) -> Array:
        return solve(y0, t, args)

    def fwd(y0: Array, t: Array, args: tuple[Array, ...]) -> tuple[Array, Any]:
        ys = solve(y0, t, args)
        return ys, (ys, t, args)

    def bwd(res: Any, g: Array) -> tuple[Array, Array, Any]:
        ys, t, args = res
        n = ys.shape[1]
        args_flat, unravel = ravel_pytree(tuple(args))

        def adjoint(z: Array, s: Array, *a: Array) -> Array:
            fy, pull = vjp(func, z[:n], s, *a)
            a_y, a_t, *a_args = pull(z[n:2 * n])
            return -fnp.concatenate([-fy, a_y, fnp.reshape(a_t, (1,)),
                                     ravel_pytree(tuple(a_args))[0]])

        aug = _make_solver(adjoint, method, rtol, atol, mxstep, True)
        y_bar, t0_bar = g[-1], fnp.zeros((), ys.dtype)
        args_bar = fnp.zeros_like(args_flat)
        t_bars = []
        for i in range(t.shape[0] - 1, 0, -1):
            t_bar = fnp.dot(func(ys[i], t[i], *args), g[i])
            t0_bar = t0_bar - t_bar
            z0 = fnp.concatenate([ys[i], y_bar, fnp.reshape(t0_bar, (1,)), args_bar])
            z = aug(z0, fnp.stack([t[i], t[i - 1]]), args)[-1]
            y_bar = z[n:2 * n] + g[i - 1]
            t0_bar, args_bar = z[2 * n], z[2 * n + 1:]
            t_bars.append(t_bar)
        t_bar = fnp.stack([t0_bar] + t_bars[::-1]).astype(t.dtype)
        return y_bar, t_bar, unravel(args_bar)

    solve_rev.defvjp(fwd, bwd)
    return solve_rev


def _check_options(name: str, method: str, rtol: float, atol: float, mxstep: float) -> None:
    if method not in _METHODS:
        raise ValueError(f"{name}: method must be one of {_METHODS}, got {method!r}")
    for key, v in (("rtol", rtol), ("atol", atol)):
        # (cast: np.isscalar's TypeGuard would narrow v to str/bytes/complex too)
        if not np.isscalar(v) or not cast(Any, v) > 0:
            raise ValueError(f"{name}: {key} must be a positive number, got {v!r}")
    if not mxstep > 0:
        raise ValueError(f"{name}: mxstep must be positive, got {mxstep!r}")


def odeint(func: Callable[..., Any], y0: PyTree, t: ArrayLike, *args: PyTree,
           rtol: float = 1.4e-8, atol: float = 1.4e-8, mxstep: float = np.inf,
           hmax: float = np.inf, method: str = "DOP853") -> PyTree:
    """Solve ``dy/dt = func(y, t, *args)``, ``y(t[0]) = y0``, differentiably (JAX's ``odeint``).

    The solve is SciPy's ``solve_ivp`` (``method``) on the host; reverse-mode derivatives
    by the adjoint method (Chen et al. 2018), forward mode by the sensitivity equations
    (module docstring), with respect to ``y0``, ``t`` and ``args``.

    Parameters
    ----------
    func : callable
        ``func(y, t, *args) -> dy/dt`` with ``y`` of ``y0``'s structure, written with
        ``ftrans.numpy``; it must not close over traced values (pass them in ``args``).
    y0 : pytree of float arrays
        Initial state.
    t : array_like
        Monotonic times, shape ``(N,)``; ``t[0]`` is the initial time.
    *args : pytree of float arrays
        Extra arguments of ``func`` (the parameters).
    rtol, atol : float, optional
        Tolerances of the solver (JAX's defaults).
    mxstep : int or float, optional
        Most evaluations of ``func`` per solve between two output times of the forward or
        an adjoint solve (default inf); more raises ``RuntimeError`` (JAX returns inf
        there instead).
    hmax : float, optional
        Not supported other than inf (ValueError otherwise).
    method : str, optional
        SciPy's solver: "DOP853" (default), "RK45", "RK23", "Radau", "BDF", "LSODA".

    Returns
    -------
    pytree
        The states at ``t``, each leaf with a leading axis of length N.

    Raises
    ------
    ValueError
        For non-monotonic ``t``, a non-1-D ``t``, an unknown method or a bad tolerance.
    TypeError
        For a non-floating ``y0``.
    RuntimeError
        When the solver fails or exceeds ``mxstep``.

    Examples
    --------
    >>> import ftrans, ftrans.numpy as fnp
    >>> f = lambda y, t, k: -k * y
    >>> ys = odeint(f, fnp.array([1.0]), fnp.array([0.0, 1.0]), 2.0)
    >>> bool(abs(ys[1, 0] - fnp.exp(-2.0)) < 1e-7)
    True
    >>> g = ftrans.grad(lambda k: odeint(f, fnp.array([1.0]), fnp.array([0.0, 1.0]), k)[1, 0])
    >>> bool(abs(g(2.0) + fnp.exp(-2.0)) < 1e-6)   # d/dk exp(-k) = -exp(-k)
    True
    """
    _check_options("odeint", method, rtol, atol, mxstep)
    if hmax != np.inf:
        raise ValueError("odeint: hmax is not supported (SciPy's solve_ivp takes max_step "
                         "per call); leave it at inf")
    ta = fnp.asarray(t)
    if ta.ndim != 1 or ta.shape[0] == 0:
        raise ValueError(f"odeint: t must be a non-empty 1-D array of times, got shape "
                         f"{tuple(ta.shape)}")
    y0_flat, unravel = ravel_pytree(y0)
    if y0_flat.dtype.kind != "f":
        raise TypeError(f"odeint: y0 must be floating point, got dtype {y0_flat.dtype}; "
                        "convert it (e.g. fnp.asarray(y0, float))")
    if ta.dtype.kind != "f":
        ta = ta.astype(y0_flat.dtype)  # integer times: NumPy's own promotion would do this
    leaves, tree = tree_flatten(args)
    leaves = [fnp.asarray(a) for a in leaves]

    def flat_func(y: Array, s: Array, *a: Array) -> Array:
        out = func(unravel(y), s, *tree_unflatten(tree, list(a)))
        return ravel_pytree(out)[0]

    ys = _make_solver(flat_func, method, rtol, atol, mxstep)(y0_flat, ta, tuple(leaves))
    return vmap(unravel)(ys)


class OdeResult(dict):
    """The result of :func:`solve_ivp` (SciPy's ``OdeResult`` fields that apply):
    ``t`` (shape (N,)), ``y`` (shape (n, N)), ``success``, ``status``, ``message``."""

    __getattr__ = dict.__getitem__

    def __repr__(self) -> str:
        return "OdeResult(" + ", ".join(f"{k}={v!r}" for k, v in self.items()) + ")"


def solve_ivp(fun: Callable[..., Any], t_span: tuple[ArrayLike, ArrayLike], y0: ArrayLike,
              method: str = "RK45", t_eval: ArrayLike | None = None,
              args: Sequence[Any] | None = None, rtol: float = 1e-3, atol: float = 1e-6
              ) -> OdeResult:
    """Solve ``dy/dt = fun(t, y, *args)``, differentiably (``scipy.integrate.solve_ivp``).

    Differentiable in ``y0``, ``t_span[0]``, ``t_eval`` and ``args`` (adjoint method in
    reverse mode, sensitivity equations in forward mode; see :func:`odeint`).

    Parameters
    ----------
    fun : callable
        ``fun(t, y, *args) -> dy/dt`` (SciPy's argument order), with ``y`` of shape (n,).
    t_span : pair of float
        ``(t0, tf)``: initial time and end of the interval.
    y0 : array_like
        Initial state, shape ``(n,)``.
    method : str, optional
        SciPy's: "RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA".
    t_eval : array_like, optional
        Times at which to return the solution, shape ``(N,)``, within ``t_span``.
        Default ``[t0, tf]``: the solver's own steps vary in number, which a
        differentiable result of declared shape cannot (SciPy returns them).
    args : tuple, optional
        Extra arguments of ``fun``.
    rtol, atol : float, optional
        Tolerances (SciPy's defaults).

    Returns
    -------
    OdeResult
        With ``t`` (= ``t_eval``), ``y`` of shape ``(n, N)``, ``success`` True,
        ``status`` 0, ``message``.

    Raises
    ------
    ValueError
        For a bad method, tolerance, or non-monotonic ``t_eval``.
    RuntimeError
        When SciPy's solver fails.

    Examples
    --------
    >>> sol = solve_ivp(lambda t, y: -y, (0.0, 1.0), fnp.array([1.0]), t_eval=fnp.array([1.0]))
    >>> sol.y.shape
    (1, 1)
    """
    _check_options("solve_ivp", method, rtol, atol, np.inf)
    t0, tf = t_span
    te = fnp.stack([fnp.asarray(t0), fnp.asarray(tf)]) if t_eval is None \
        else fnp.asarray(t_eval)
    y0a = fnp.asarray(y0)
    if y0a.ndim != 1:
        raise ValueError(f"solve_ivp: y0 must be 1-D (SciPy's rule), got shape {y0a.shape}")
    times = fnp.concatenate([fnp.reshape(fnp.asarray(t0, te.dtype), (1,)), te])
    extra = () if args is None else tuple(args)
    ys = odeint(lambda y, t, *a: fun(t, y, *a), y0a, times, *extra, rtol=rtol, atol=atol,
                method=method)
    return OdeResult(t=te, y=fnp.transpose(ys[1:]), success=True, status=0,
                     message="The solver successfully reached the end of the integration "
                             "interval.")
