"""The cosine and 1cycle learning-rate schedulers (``CosineAnnealingLR``, ``OneCycleLR``,
``CosineAnnealingWarmRestarts``); the public module is
:mod:`ftrans.compat.optim.lr_scheduler`.
"""
from __future__ import annotations

import math
from typing import Any, Literal

from .optimizer import Optimizer
from ._lr_base import LRScheduler, _format_param, _group_vals


class CosineAnnealingLR(LRScheduler):
    r"""Cosine annealing (``torch.optim.lr_scheduler.CosineAnnealingLR``).

    :math:`\eta_t = \eta_{min} + (\eta_{max} - \eta_{min})(1 + \cos(\pi t / T_{max}))/2`,
    computed recursively from the current lr as PyTorch does (so it composes with other
    changes of the lr); past ``T_max`` the lr rises again (period ``2 T_max``).

    Parameters
    ----------
    optimizer : Optimizer
        The wrapped optimizer.
    T_max : int
        Half-period, in epochs.
    eta_min : float, optional
        The minimum learning rate.
    last_epoch : int, optional
        The index of the last epoch; -1 starts the schedule.

    Notes
    -----
    SGDR without restarts: Loshchilov & Hutter, "SGDR: Stochastic Gradient Descent with
    Warm Restarts", 2017.
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The groups' next learning rates: the cosine schedule, recursively from the current ones.

        Returns
        -------
        list of float
            One per parameter group.
        """
        self._warn_outside_step()
        groups = self.optimizer.param_groups
        if self._is_initial:
            return _group_vals(self.optimizer, "lr")
        if self._step_count == 1 and self.last_epoch > 0:
            return [self.eta_min + (b - self.eta_min)
                    * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                    for b in self.base_lrs]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [g["lr"] + (b - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for b, g in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
                * (g["lr"] - self.eta_min) + self.eta_min for g in groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [self.eta_min + (b - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for b in self.base_lrs]


class OneCycleLR(LRScheduler):
    """The 1cycle policy (``torch.optim.lr_scheduler.OneCycleLR``).

    The lr rises from ``max_lr/div_factor`` to ``max_lr`` during the first ``pct_start``
    of the steps and anneals to ``initial_lr/final_div_factor``; with ``cycle_momentum``
    the momentum (or Adam's beta1) moves inversely between ``max_momentum`` and
    ``base_momentum``.  Step it after every batch.

    Parameters
    ----------
    optimizer : Optimizer
        The wrapped optimizer.
    max_lr : float or list of float
        The peak learning rate (one per group, or one for all).
    total_steps : int, optional
        The number of steps; else ``epochs * steps_per_epoch``.
    epochs, steps_per_epoch : int, optional
        Used when ``total_steps`` is None.
    pct_start : float, optional
        The fraction of the steps spent rising.
    anneal_strategy : {'cos', 'linear'}, optional
        The annealing curve.
    cycle_momentum : bool, optional
        Cycle the momentum (or beta1) too.
    base_momentum, max_momentum : float or list of float, optional
        The momentum's bounds.
    div_factor : float, optional
        ``initial_lr = max_lr / div_factor``.
    final_div_factor : float, optional
        ``min_lr = initial_lr / final_div_factor``.
    three_phase : bool, optional
        fast.ai's three phases (rise, fall to ``initial_lr``, anneal to ``min_lr``).
    last_epoch : int, optional
        The index of the last epoch; -1 starts the schedule.

    Raises
    ------
    TypeError
        If ``optimizer`` is not an Optimizer.
    ValueError
        For bad step counts, ``pct_start``, ``anneal_strategy``, an optimizer without
        momentum under ``cycle_momentum``, or stepping past ``total_steps``.

    Notes
    -----
    Smith & Topin, "Super-Convergence: Very Fast Training of Neural Networks Using Large
    Learning Rates", 2017.
    """

    def __init__(self, optimizer: Optimizer, max_lr: float | list[float],
                 total_steps: int | None = None, epochs: int | None = None,
                 steps_per_epoch: int | None = None, pct_start: float = 0.3,
                 anneal_strategy: Literal["cos", "linear"] = "cos",
                 cycle_momentum: bool = True, base_momentum: float | list[float] = 0.85,
                 max_momentum: float | list[float] = 0.95, div_factor: float = 25.0,
                 final_div_factor: float = 1e4, three_phase: bool = False,
                 last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if total_steps is not None:
            if not isinstance(total_steps, int) or total_steps <= 0:
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError("Expected positive integer steps_per_epoch, but got "
                                 f"{steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND "
                             "steps_per_epoch)")
        n = self.total_steps
        self._schedule_phases: list[dict[str, Any]]
        if three_phase:
            self._schedule_phases = [
                {"end_step": float(pct_start * n) - 1, "start_lr": "initial_lr",
                 "end_lr": "max_lr", "start_momentum": "max_momentum",
                 "end_momentum": "base_momentum"},
                {"end_step": float(2 * pct_start * n) - 2, "start_lr": "max_lr",
                 "end_lr": "initial_lr", "start_momentum": "base_momentum",
                 "end_momentum": "max_momentum"},
                {"end_step": n - 1, "start_lr": "initial_lr", "end_lr": "min_lr",
                 "start_momentum": "max_momentum", "end_momentum": "max_momentum"}]
        else:
            self._schedule_phases = [
                {"end_step": float(pct_start * n) - 1, "start_lr": "initial_lr",
                 "end_lr": "max_lr", "start_momentum": "max_momentum",
                 "end_momentum": "base_momentum"},
                {"end_step": n - 1, "start_lr": "max_lr", "end_lr": "min_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"}]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = _format_param("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for i, g in enumerate(optimizer.param_groups):
                g["initial_lr"] = max_lrs[i] / div_factor
                g["max_lr"] = max_lrs[i]
                g["min_lr"] = g["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with "
                                 "`cycle_momentum` option enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            maxm = _format_param("max_momentum", optimizer, max_momentum)
            basem = _format_param("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for mm, bm, g in zip(maxm, basem, optimizer.param_groups):
                    if self.use_beta1:
                        g["betas"] = (mm, *g["betas"][1:])
                    else:
                        g["momentum"] = mm
                    g["max_momentum"] = mm
                    g["base_momentum"] = bm
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start: float, end: float, pct: float) -> float:
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list[float]:
        """The groups' next learning rates: the 1cycle schedule at ``last_epoch`` (momenta set as a side effect).

        Returns
        -------
        list of float
            One per parameter group.
        """
        self._warn_outside_step()
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f"Tried to step {step_num} times. The specified number of total "
                             f"steps is {self.total_steps}")
        lrs = []
        for g in self.optimizer.param_groups:
            start_step = 0.0
            for i, ph in enumerate(self._schedule_phases):
                end_step = ph["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lr = self._anneal(g[ph["start_lr"]], g[ph["end_lr"]], pct)
                    if self.cycle_momentum:
                        mom = self._anneal(g[ph["start_momentum"]], g[ph["end_momentum"]], pct)
                    break
                start_step = ph["end_step"]
            lrs.append(lr)
            if self.cycle_momentum:
                if self.use_beta1:
                    g["betas"] = (mom, *g["betas"][1:])
                else:
                    g["momentum"] = mom
        return lrs


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing with warm restarts, SGDR (``torch.optim.lr_scheduler.CosineAnnealingWarmRestarts``).

    Restarted every ``T_i`` epochs, ``T_0`` first, each period ``T_mult`` times longer.

    Parameters
    ----------
    optimizer : Optimizer
        The wrapped optimizer.
    T_0 : int
        The first period, in epochs.
    T_mult : int, optional
        The growth factor of the periods (``>= 1``).
    eta_min : float, optional
        The minimum learning rate.
    last_epoch : int, optional
        The index of the last epoch; -1 starts the schedule.

    Raises
    ------
    ValueError
        For a non-positive ``T_0``, ``T_mult < 1`` or a non-numeric ``eta_min``.

    Notes
    -----
    Loshchilov & Hutter, "SGDR: Stochastic Gradient Descent with Warm Restarts", 2017.
    """

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type "
                             f"{type(eta_min)}")
        self.T_0 = self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur: float = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The groups' next learning rates: the cosine of the current period.

        Returns
        -------
        list of float
            One per parameter group.
        """
        self._warn_outside_step()
        return [self.eta_min + (b - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i))
                / 2 for b in self.base_lrs]

    def step(self, epoch: float | None = None) -> None:
        """Advance by one epoch and set the groups' learning rates.

        Parameters
        ----------
        epoch : float, optional
            Jump to this epoch; fractional epochs are allowed (``step(epoch + i /
            iters)`` per batch).

        Raises
        ------
        ValueError
            For a negative epoch.
        """
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for g, lr in zip(self.optimizer.param_groups, values):
            g["lr"] = lr
        self._last_lr = _group_vals(self.optimizer, "lr")
