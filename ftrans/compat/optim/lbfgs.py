"""``LBFGS`` (PyTorch's ``torch.optim.LBFGS``, after minFunc)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import _ops as O
from ..types import Tensor
from ..autograd.grad_mode import enable_grad
from .optimizer import Optimizer, ParamsT

__all__ = ["LBFGS"]


def _cubic_interpolate(x1: Any, f1: Any, g1: Any, x2: Any, f2: Any, g2: Any,
                       bounds: tuple[Any, Any] | None = None) -> Any:
    """Minimizer of the cubic interpolating (x1, f1, g1), (x2, f2, g2), clipped to
    ``bounds`` (Nocedal & Wright, eq. 3.59; minFunc's polyinterp for two points)."""
    if bounds is not None:
        lo, hi = bounds
    else:
        lo, hi = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = d2_square.sqrt() if hasattr(d2_square, "sqrt") else d2_square ** 0.5
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, lo), hi)
    return (lo + hi) / 2.0


def _strong_wolfe(obj_func: Callable[..., tuple[Any, Tensor]], x: list[Tensor], t: float,
                  d: Tensor, f: float, g: Tensor, gtd: Tensor, c1: float = 1e-4,
                  c2: float = 0.9, tolerance_change: float = 1e-9, max_ls: int = 25
                  ) -> tuple[Any, Tensor, Any, int]:
    """Line search for a step ``t`` along ``d`` satisfying the strong Wolfe conditions
    (Nocedal & Wright, Algorithms 3.5 and 3.6: bracketing, then zoom by cubic
    interpolation), as PyTorch's ``_strong_wolfe``.  Returns (f_new, g_new, t, evals).
    Directional derivatives stay 0-d tensors of the parameters' dtype, as in PyTorch, so
    float32 problems take the same bracketing decisions."""
    d_norm = d.abs().max()
    g = g.clone()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = g_new.dot(d)
    t_prev: float = 0
    f_prev, g_prev, gtd_prev = f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                               bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.clone(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0],
                               bracket[1], bracket_f[1], bracket_gtd[1])
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.clone(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos] = bracket[low_pos]
                bracket_f[high_pos] = bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.clone(), gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


class LBFGS(Optimizer):
    """Limited-memory BFGS, as PyTorch's ``torch.optim.LBFGS`` (after minFunc).

    One ``step(closure)`` runs up to ``max_iter`` iterations, each re-evaluating
    ``closure`` (which must clear the gradients, compute the loss, call ``backward`` and
    return the loss).  Complex parameters are optimized as pairs of reals.  The state (of
    the first parameter) holds ``func_evals``, ``n_iter``, ``d``, ``t``, ``old_dirs``,
    ``old_stps``, ``ro``, ``H_diag``, ``prev_flat_grad``, ``prev_loss``, as in PyTorch.

    Parameters
    ----------
    params : iterable of Tensor or of dict
        Leaf tensors; one parameter group only.
    lr : float, optional
        Learning rate (the step along the search direction).
    max_iter : int, optional
        Iterations per ``step``.
    max_eval : int, optional
        Closure evaluations per ``step``; default ``max_iter * 5 // 4``.
    tolerance_grad : float, optional
        Stop when ``max |g|`` is below.
    tolerance_change : float, optional
        Stop when the step or the loss change is below.
    history_size : int, optional
        The number of curvature pairs kept.
    line_search_fn : {None, 'strong_wolfe'}, optional
        None: fixed step ``lr`` (the first iteration ``min(1, 1/sum|g|) * lr``).

    Raises
    ------
    ValueError
        For a negative ``lr`` or more than one parameter group.

    Notes
    -----
    Nocedal & Wright, "Numerical Optimization", Algorithm 7.4 (two-loop recursion) and
    Algorithms 3.5/3.6 (strong Wolfe line search).
    """

    def __init__(self, params: ParamsT, lr: float | Tensor = 1, max_iter: int = 20,
                 max_eval: int | None = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache: int | None = None

    def _numel(self) -> int:
        if self._numel_cache is None:
            self._numel_cache = sum(2 * p.numel() if p.is_complex() else p.numel()
                                    for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self) -> Tensor:
        views = []
        for p in self._params:
            g = p.grad
            if g is None:
                v = p.new_zeros(p.numel())
            else:
                v = g.reshape(-1)
            if v.is_complex():
                v = O.view_as_real(v).reshape(-1)
            views.append(v)
        return O.cat(views, 0)

    def _add_grad(self, step_size: Any, update: Tensor) -> None:
        offset = 0
        for p in self._params:
            if p.is_complex():
                p = O.view_as_real(p)
            n = p.numel()
            p.add_(update[offset:offset + n].view_as(p), alpha=float(step_size))
            offset += n
        assert offset == self._numel()

    def _clone_param(self) -> list[Tensor]:
        return [p.clone() for p in self._params]

    def _set_param(self, params_data: list[Tensor]) -> None:
        for p, pdata in zip(self._params, params_data):
            p.copy_(pdata)

    def _directional_evaluate(self, closure: Callable[[], float], x: list[Tensor], t: Any,
                              d: Tensor) -> tuple[float, Tensor]:
        self._add_grad(t, d)
        with enable_grad():
            loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def step(self, closure: Callable[[], float]) -> float:  # type: ignore[override]  # required, as torch's
        """Run up to ``max_iter`` L-BFGS iterations.

        Parameters
        ----------
        closure : callable
            Clears the gradients, computes the loss, calls ``backward`` and returns the
            loss; required.

        Returns
        -------
        float
            The loss of the first evaluation of ``closure``.

        Raises
        ------
        RuntimeError
            Without a closure.
        """
        if closure is None:
            raise RuntimeError("LBFGS.step() requires a closure that reevaluates the model "
                               "and returns the loss")
        group = self.param_groups[0]
        lr = group["lr"]
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if float(flat_grad.abs().max()) <= tolerance_grad:
            return orig_loss

        # the state of the previous step (None before the first one, which sets them)
        d: Any = state.get("d")
        t: Any = state.get("t")
        old_dirs: Any = state.get("old_dirs")
        old_stps: Any = state.get("old_stps")
        ro: Any = state.get("ro")
        H_diag: Any = state.get("H_diag")
        prev_flat_grad: Any = state.get("prev_flat_grad")
        prev_loss: Any = state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            # direction: the two-loop recursion on the stored curvature pairs
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                num_old = len(old_dirs)
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]
                q = flat_grad.neg()
                for i in range(num_old - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q.add_(old_dirs[i], alpha=-float(al[i]))
                d = r = O.mul(q, H_diag)
                for i in range(num_old):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r.add_(old_stps[i], alpha=float(al[i] - be_i))
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss

            # step length
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x: list[Tensor], t: Any, d: Tensor) -> tuple[float, Tensor]:
                    return self._directional_evaluate(closure, x, t, d)
                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd,
                    max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = float(flat_grad.abs().max()) <= tolerance_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    with enable_grad():
                        loss = float(closure())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = float(flat_grad.abs().max()) <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            # stopping conditions
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if float(d.mul(t).abs().max()) <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state["d"], state["t"] = d, t
        state["old_dirs"], state["old_stps"], state["ro"] = old_dirs, old_stps, ro
        state["H_diag"] = H_diag
        state["prev_flat_grad"], state["prev_loss"] = prev_flat_grad, prev_loss
        return orig_loss
