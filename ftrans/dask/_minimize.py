"""``ftrans.dask.minimize``: SciPy's ``minimize`` on an :class:`ftrans.dask.Objective`."""
from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import IO, Any

import numpy as np

from ._objective import Objective
from ..typing import Array, ArrayLike, PyTree

__all__ = ["minimize"]

#: SciPy methods that take ``hessp`` (a Hessian-vector product)
_HESSP = {"newton-cg", "trust-ncg", "trust-krylov", "trust-constr"}


class _Progress:
    """One line per evaluation at most every ``every`` seconds (and the first and last)."""

    def __init__(self, every: float, file: IO[str]) -> None:
        self.every, self.file = every, file
        self.t0 = self.last = time.perf_counter()
        self.evals = self.hvps = 0
        self.pending: tuple[float, float] | None = None

    def _line(self, value: float, gnorm: float) -> None:
        t = time.perf_counter() - self.t0
        hv = f"  hvp {self.hvps:4d}" if self.hvps else ""
        print(f"ftrans.dask.minimize: eval {self.evals:4d}{hv}  loss {value:.12g}  "
              f"|grad| {gnorm:.3e}  {t:7.2f} s", file=self.file, flush=True)

    def eval(self, value: float, grad: Array) -> None:
        self.evals += 1
        now = time.perf_counter()
        gnorm = float(np.linalg.norm(grad))
        if self.evals == 1 or now - self.last >= self.every:
            self._line(value, gnorm)
            self.last, self.pending = now, None
        else:
            self.pending = (value, gnorm)

    def done(self, res: Any) -> None:
        if self.pending is not None:
            self._line(*self.pending)
        print(f"ftrans.dask.minimize: {res.message} ({res.nit if 'nit' in res else '?'} "
              f"iterations, {self.evals} evaluations, {time.perf_counter() - self.t0:.2f} s)",
              file=self.file, flush=True)


def minimize(objective: Objective, x0: PyTree, method: str = "L-BFGS-B", *,
             bounds: Any = None, constraints: Any = (), tol: float | None = None,
             callback: Callable[..., Any] | None = None,
             options: dict[str, Any] | None = None, progress: bool | float = True,
             file: IO[str] | None = None) -> Any:
    """Minimize an :class:`~ftrans.dask.Objective` with :func:`scipy.optimize.minimize`.

    SciPy gets the objective's value and gradient from one evaluation on the cluster
    (``jac=True``) and, for the methods that use one (Newton-CG, trust-ncg, trust-krylov,
    trust-constr), its Hessian-vector product as ``hessp``.

    Parameters
    ----------
    objective : ftrans.dask.Objective
        The objective.
    x0 : PyTree
        Starting parameters (a flat vector or any pytree; SciPy works on the flattened
        float64 vector and ``result.params`` has ``x0``'s structure).
    method : str, default "L-BFGS-B"
        A gradient-based method of :func:`scipy.optimize.minimize` (default "L-BFGS-B").
    bounds : sequence or scipy.optimize.Bounds, optional
        Passed to :func:`scipy.optimize.minimize` unchanged (on the flat vector).
    constraints : dict or sequence, default ()
        Likewise.
    tol : float, optional
        Likewise.
    callback : callable, optional
        Likewise.
    options : dict, optional
        Likewise.
    progress : bool or float, default True
        Print the evaluations, loss, gradient norm and elapsed seconds, at most once every
        ``progress`` seconds (``True``: 2 s; the first and last always), and a summary line;
        ``False`` prints nothing.
    file : file-like, optional
        Where the progress goes (default ``sys.stderr``).

    Returns
    -------
    scipy.optimize.OptimizeResult
        SciPy's result, plus ``params`` (``x`` in ``x0``'s structure), ``nhev`` where
        SciPy does not count the Hessian-vector products, and ``seconds`` (wall time).

    Raises
    ------
    TypeError
        ``objective`` is not an :class:`~ftrans.dask.Objective`.
    ValueError
        A method that needs no gradient (Nelder-Mead, Powell, COBYLA): it would evaluate
        the loss on the cluster many times without using the gradient it gets.

    Examples
    --------
    >>> import numpy as np, dask.array as da, distributed, ftrans.dask
    >>> client = distributed.Client(processes=False, n_workers=1, dashboard_address=":0")
    >>> X = da.from_array(np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]), chunks=(2, 2))
    >>> y = da.from_array(np.array([1.0, 2.0, 2.0]), chunks=2)
    >>> obj = ftrans.dask.Objective(lambda w, X, y: (X @ w - y) ** 2, X, y)
    >>> res = ftrans.dask.minimize(obj, np.zeros(2), progress=False)
    >>> np.round(res.x, 4).tolist()                      # the least-squares solution
    [1.0, 1.0]
    >>> client.close()
    """
    import scipy.optimize
    if not isinstance(objective, Objective):
        raise TypeError(f"ftrans.dask.minimize: objective must be an ftrans.dask.Objective; "
                        f"got {type(objective).__name__}")
    if str(method).lower() in {"nelder-mead", "powell", "cobyla", "cobyqa"}:
        raise ValueError(f"ftrans.dask.minimize: method {method!r} uses no gradient; use a "
                         f"gradient-based method (L-BFGS-B, BFGS, CG, Newton-CG, "
                         f"trust-ncg, trust-krylov, trust-constr, TNC, SLSQP)")
    x0_flat = objective._set_spec(x0)
    every = None if progress is False or progress is None else \
        2.0 if progress is True else float(progress)
    show = _Progress(every, sys.stderr if file is None else file) if every is not None \
        else None
    nhev = [0]

    def fun(x: ArrayLike) -> tuple[float, Array]:
        value, grad = objective.flat_value_and_grad(x)
        if show is not None:
            show.eval(value, grad)
        return value, grad

    kw: dict[str, Any] = {}
    if str(method).lower() in _HESSP:
        def hessp(x: ArrayLike, v: ArrayLike) -> Array:
            nhev[0] += 1
            if show is not None:
                show.hvps += 1
            return objective.flat_hvp(x, v)
        kw["hessp"] = hessp
    t0 = time.perf_counter()
    res = scipy.optimize.minimize(fun, x0_flat, jac=True, method=method, bounds=bounds,
                                  constraints=constraints, tol=tol, callback=callback,
                                  options=options, **kw)
    res.seconds = time.perf_counter() - t0
    res.params = objective.unravel(res.x)
    if "nhev" not in res:
        res.nhev = nhev[0]
    if show is not None:
        show.done(res)
    return res
