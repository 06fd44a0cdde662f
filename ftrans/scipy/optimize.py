"""``ftrans.scipy.optimize``: SciPy's ``minimize`` and ``root`` whose solutions are
differentiable with respect to the problem's parameters.

The solve is SciPy's own (``scipy.optimize.minimize`` / ``scipy.optimize.root``) on the
host through :func:`ftrans.pure_callback`, given the gradient (``ftrans.grad``), the
Hessian-vector product or Hessian (``ftrans.hvp`` / ``ftrans.hessian``) and the Jacobian
(``ftrans.jacfwd``) of the user's function.  The solution ``x*(args)`` is differentiated by
the implicit function theorem (Blondel et al. 2022, "Efficient and Modular Implicit
Differentiation", NeurIPS): at an unconstrained minimum the optimality condition is
``grad_x fun(x*, args) = 0``, at a root ``fun(x*, args) = 0``; both derivatives go through
``ftrans.custom_root``'s machinery with a dense linear solve, so they work in forward and
reverse mode, to second order, under ``vmap`` (one SciPy solve per element) and ``jit``.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import scipy.optimize

from .. import numpy as fnp
from ..primitives import pure_callback, ShapeDtypeStruct
from ..transforms import grad, jacfwd, hvp, hessian
from ..transforms._closure import closure_convert
from ..transforms._implicit import implicit_root
from ..typing import Array, ArrayLike

_Fields = dict[str, Any]
_HostSolve = Callable[[Callable[..., Any], np.ndarray, Sequence[np.ndarray]], _Fields]

__all__ = ["minimize", "root", "OptimizeResult"]

_GRAD_METHODS = {"cg", "bfgs", "newton-cg", "l-bfgs-b", "tnc", "slsqp", "dogleg", "trust-ncg",
                 "trust-krylov", "trust-exact", "trust-constr"}
_HESSP_METHODS = {"newton-cg", "trust-ncg", "trust-krylov"}
_HESS_METHODS = {"dogleg", "trust-exact"}
_MIN_METHODS = _GRAD_METHODS | {"nelder-mead", "powell", "cobyla", "cobyqa"}
_JAC_ROOT_METHODS = {"hybr", "lm"}
_ROOT_METHODS = _JAC_ROOT_METHODS | {"broyden1", "broyden2", "anderson", "linearmixing",
                                     "diagbroyden", "excitingmixing", "krylov", "df-sane"}


class OptimizeResult(dict):
    """SciPy's ``OptimizeResult`` fields: ``x`` (differentiable), ``fun``
    (differentiable; the objective or the residual at ``x``), ``success``, ``status``,
    ``message``, ``nit``, ``nfev`` (from the last host solve; None when the solve ran
    inside a transform that stages it, e.g. under ``jit``)."""

    __getattr__ = dict.__getitem__

    def __repr__(self) -> str:
        return "OptimizeResult(" + ", ".join(f"{k}={v!r}" for k, v in self.items()) + ")"


def _dense_solve(g: Callable[[Array], Array], y: Array) -> Array:
    """Solve the linear system ``g(x) = y`` (``g`` a linear map on 1-D arrays)."""
    return fnp.linalg.solve(jacfwd(g)(y), y)


def _check(name: str, method: str, methods: set[str], x0: ArrayLike) -> tuple[str, Array]:
    """The lower-cased method name and ``x0`` as an array, both checked."""
    m = str(method).lower()
    if m not in methods:
        kind = "unconstrained methods" if name == "minimize" else "methods"
        raise ValueError(f"{name}: method must be one of SciPy's {kind} {sorted(methods)}, "
                         f"got {method!r}")
    return m, _check_x0(name, x0)


def _check_x0(name: str, x0: ArrayLike) -> Array:
    x = fnp.asarray(x0)
    if x.ndim != 1 or x.dtype.kind != "f":
        raise ValueError(f"{name}: x0 must be a 1-D floating-point array (SciPy's rule), got "
                         f"shape {tuple(x.shape)} and dtype {x.dtype}; reshape or "
                         "convert it (e.g. fnp.ravel(x0).astype(float))")
    return x


def _solve(name: str, host_solve: _HostSolve, fun: Callable[..., Any], x0: Array,
           args: Sequence[ArrayLike], cond: Callable[..., Array]) -> tuple[Array, _Fields]:
    """The differentiable solution: host solve behind pure_callback, derivatives by the
    implicit function theorem on ``cond(x, fun, params) = 0``."""
    re_fun, consts = closure_convert(fun)
    params = tuple(fnp.asarray(a) for a in args) + tuple(consts)
    k = len(args)
    info: _Fields = {}

    def f_of(cs: Sequence[Any]) -> Callable[..., Any]:
        return lambda x, *a: re_fun(cs[k:])(x, *a)

    def solve(x0: Array, cs: Sequence[Array]) -> Array:
        def host(x0: np.ndarray, *cs_np: np.ndarray) -> tuple[np.ndarray]:
            res = host_solve(f_of(cs_np), x0, cs_np[:k])
            info.update(res)
            return (np.asarray(res["x"], x0.dtype).reshape(x0.shape),)
        return pure_callback(host, (ShapeDtypeStruct(x0.shape, x0.dtype),), x0, *cs)[0]

    def condition(x: Array, cs: Sequence[Array]) -> Array:
        return cond(x, f_of(cs), cs[:k])

    x = implicit_root(condition, x0, params, solve, _dense_solve)
    return x, info


def minimize(fun: Callable[..., Any], x0: ArrayLike, args: Sequence[ArrayLike] = (),
             method: str | None = None, tol: float | None = None,
             options: Mapping[str, Any] | None = None) -> OptimizeResult:
    """Minimize ``fun(x, *args)`` with ``scipy.optimize.minimize``, differentiably in ``args``.

    The minimizer is differentiable in ``args`` (implicit function theorem on
    ``grad_x fun = 0``).

    Parameters
    ----------
    fun : callable
        ``fun(x, *args) -> scalar``, written with ``ftrans.numpy``; may close over traced
        values (they are differentiated like ``args``).
    x0 : array_like
        Initial guess, shape ``(n,)``, floating point (its derivative is zero).
    args : tuple of array_like, optional
        The parameters.
    method : str, optional
        SciPy's (default: "BFGS"); unconstrained methods only (bounds and constraints
        change the optimality condition).  Gradient methods get ``jac`` from
        ``ftrans.grad``; "Newton-CG", "trust-ncg", "trust-krylov" get ``hessp`` from
        ``ftrans.hvp``; "dogleg", "trust-exact" get ``hess`` from ``ftrans.hessian``.
    tol : float, optional
        Tolerance, passed to SciPy.
    options : dict, optional
        Passed to SciPy (``maxiter``, ``gtol`` ...).

    Returns
    -------
    OptimizeResult
        ``x`` and ``fun`` differentiable; SciPy's status fields.

    Raises
    ------
    ValueError
        For an unknown method or a bad ``x0``.

    Notes
    -----
    The derivative is that of the exact minimizer, evaluated at SciPy's approximate one:
    it is as accurate as the solve (tighten ``gtol``/``tol`` for accurate derivatives),
    and needs the Hessian of ``fun`` at the solution to be nonsingular.

    Examples
    --------
    >>> import ftrans, ftrans.numpy as fnp
    >>> f = lambda x, a: fnp.sum((x - a) ** 2)
    >>> res = minimize(f, fnp.zeros(2), args=(fnp.array([1.0, 2.0]),))
    >>> bool(fnp.allclose(res.x, [1.0, 2.0]))
    True
    >>> g = ftrans.jacobian(lambda a: minimize(f, fnp.zeros(2), args=(a,)).x)
    >>> bool(fnp.allclose(g(fnp.array([1.0, 2.0])), fnp.eye(2)))
    True
    """
    m, x0a = _check("minimize", "BFGS" if method is None else method, _MIN_METHODS, x0)

    def host_solve(f: Callable[..., Any], x0: np.ndarray, args: Sequence[np.ndarray]
                   ) -> _Fields:
        kw: dict[str, Any] = {}
        if m in _GRAD_METHODS:
            kw["jac"] = lambda x: np.asarray(grad(f)(x, *args), np.float64)
        if m in _HESSP_METHODS:
            kw["hessp"] = lambda x, p: np.asarray(hvp(lambda y: f(y, *args), (x,), (p,))[1])
        if m in _HESS_METHODS:
            kw["hess"] = lambda x: np.asarray(hessian(f)(x, *args))
        r = scipy.optimize.minimize(lambda x: float(f(x, *args)), x0.astype(np.float64),
                                    method=method or "BFGS", tol=tol, options=options, **kw)
        return _fields(r)

    x, info = _solve("minimize", host_solve, fun, x0a, args,
                     lambda x, f, a: grad(f)(x, *a))
    return _result(x, fun(x, *args), info)


def root(fun: Callable[..., Any], x0: ArrayLike, args: Sequence[ArrayLike] = (),
         method: str = "hybr", tol: float | None = None,
         options: Mapping[str, Any] | None = None) -> OptimizeResult:
    """Find a root of ``fun(x, *args)`` with ``scipy.optimize.root``, differentiably in ``args``.

    The root is differentiable in ``args`` (implicit function theorem on ``fun = 0``).

    Parameters
    ----------
    fun : callable
        ``fun(x, *args) -> array of x's shape``, written with ``ftrans.numpy``.
    x0 : array_like
        Initial guess, shape ``(n,)``, floating point.
    args : tuple of array_like, optional
        The parameters.
    method : str, optional
        SciPy's (default "hybr"); "hybr" and "lm" get ``jac`` from ``ftrans.jacfwd``.
    tol : float, optional
        Tolerance, passed to SciPy.
    options : dict, optional
        Passed to SciPy.

    Returns
    -------
    OptimizeResult
        The root ``x`` and the residual ``fun`` (both differentiable), and SciPy's
        ``success``/``status``/``message``/``nfev``.

    Raises
    ------
    ValueError
        For a method SciPy's ``root`` lacks, or an ``x0`` that is not 1-D floating point.

    Examples
    --------
    >>> import ftrans, ftrans.numpy as fnp
    >>> f = lambda x, a: x ** 3 - a
    >>> float(ftrans.grad(lambda a: root(f, fnp.ones(1), args=(a,)).x[0])(8.0))  # 1/(3*4)
    0.0833333333333...
    """
    m, x0a = _check("root", method, _ROOT_METHODS, x0)

    def host_solve(f: Callable[..., Any], x0: np.ndarray, args: Sequence[np.ndarray]
                   ) -> _Fields:
        kw: dict[str, Any] = {}
        if m in _JAC_ROOT_METHODS:
            kw["jac"] = lambda x: np.asarray(jacfwd(f)(x, *args), np.float64)
        r = scipy.optimize.root(lambda x: np.asarray(f(x, *args), np.float64),
                                x0.astype(np.float64), method=method, tol=tol,
                                options=options, **kw)
        return _fields(r)

    x, info = _solve("root", host_solve, fun, x0a, args, lambda x, f, a: f(x, *a))
    return _result(x, fun(x, *args), info)


def _fields(r: Any) -> _Fields:
    return {"x": r.x, "success": bool(r.success), "status": int(getattr(r, "status", 0)),
            "message": str(getattr(r, "message", "")), "nit": getattr(r, "nit", None),
            "nfev": getattr(r, "nfev", None)}


def _result(x: Array, fx: Array, info: _Fields) -> OptimizeResult:
    return OptimizeResult(x=x, fun=fx, success=info.get("success"), status=info.get("status"),
                          message=info.get("message"), nit=info.get("nit"),
                          nfev=info.get("nfev"))
