"""Learning-rate schedulers (PyTorch's ``torch.optim.lr_scheduler``).

Each scheduler updates ``group["lr"]`` of its optimizer's parameter groups when
``step()`` is called (once per epoch or per batch, after ``optimizer.step()``), with the
recursive formulas of PyTorch 2.x (its documentation and ``get_lr``); ``step(epoch)``
(deprecated in PyTorch, with the same warning) uses the closed forms where PyTorch has
them.  ``state_dict()`` is the scheduler's ``__dict__`` without the optimizer, as in
PyTorch, so state dicts move between the two.
"""
from __future__ import annotations

import math
import warnings
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any, Literal, SupportsFloat

from .optimizer import Optimizer
from ._lr_base import (EPOCH_DEPRECATION_WARNING, LRScheduler, LambdaLR, StepLR, MultiStepLR,
                       ExponentialLR, ConstantLR, LinearLR, PolynomialLR, _group_vals)
from ._lr_base import _LRScheduler  # noqa: F401  (PyTorch's old name of the base class)
from ._lr_cyclic import CosineAnnealingLR, OneCycleLR, CosineAnnealingWarmRestarts

__all__ = ["LRScheduler", "LambdaLR", "StepLR", "MultiStepLR", "ExponentialLR",
           "CosineAnnealingLR", "OneCycleLR", "ReduceLROnPlateau", "ConstantLR", "LinearLR",
           "PolynomialLR", "CosineAnnealingWarmRestarts", "SequentialLR", "ChainedScheduler"]


class ReduceLROnPlateau(LRScheduler):
    """Reduce the lr when a metric stops improving (``torch.optim.lr_scheduler.ReduceLROnPlateau``).

    The lr is multiplied by ``factor`` when the metric passed to ``step(metric)`` has not
    improved for more than ``patience`` epochs; then the scheduler waits ``cooldown``
    epochs.

    Parameters
    ----------
    optimizer : Optimizer
        The wrapped optimizer.
    mode : {'min', 'max'}, optional
        Whether the metric should decrease or increase.
    factor : float, optional
        The factor, ``< 1``.
    patience : int, optional
        Epochs without improvement tolerated.
    threshold : float, optional
        The least change that counts as an improvement.
    threshold_mode : {'rel', 'abs'}, optional
        ``threshold`` relative to the best value, or absolute.
    cooldown : int, optional
        Epochs to wait after a reduction.
    min_lr : float or list of float, optional
        Lower bound of the lr (one for all groups, or one per group).
    eps : float, optional
        Changes of the lr smaller than this are skipped.

    Raises
    ------
    TypeError
        If ``optimizer`` is not an Optimizer.
    ValueError
        For ``factor >= 1``, an unknown mode, or a wrong number of ``min_lr``.
    """

    def __init__(self, optimizer: Optimizer, mode: Literal["min", "max"] = "min",
                 factor: float = 0.1, patience: int = 10, threshold: float = 1e-4,
                 threshold_mode: Literal["rel", "abs"] = "rel", cooldown: int = 0,
                 min_lr: float | list[float] = 0, eps: float = 1e-8) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got "
                                 f"{len(min_lr)}")
            self.default_min_lr: float | None = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _group_vals(optimizer, "lr")
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics: SupportsFloat, epoch: int | None = None) -> None:  # type: ignore[override]  # torch's signature
        """Record the metric of one epoch; reduce the lr after a plateau.

        Parameters
        ----------
        metrics : float or Tensor
            The metric (a number or 0-d tensor).
        epoch : int, optional
            Deprecated (with PyTorch's warning): the epoch's index.
        """
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _group_vals(self.optimizer, "lr")

    def _reduce_lr(self) -> None:
        if len(self.optimizer.param_groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` "
                    f"({len(self.optimizer.param_groups)}) differs from when "
                    f"`ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due "
                    "to a new param group being added to the optimizer. Please modify the "
                    "`min_lrs` field to match the length of the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(self.optimizer.param_groups)
        for i, g in enumerate(self.optimizer.param_groups):
            old = float(g["lr"])
            new = max(old * self.factor, self.min_lrs[i])
            if old - new > self.eps:
                g["lr"] = new

    @property
    def in_cooldown(self) -> bool:
        """Whether the scheduler is waiting after a reduction."""
        return self.cooldown_counter > 0

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min" and self.threshold_mode == "abs":
            return a < best - self.threshold
        if self.mode == "max" and self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the state saved by :meth:`state_dict`.

        Parameters
        ----------
        state_dict : dict
            As :meth:`state_dict` returns it.
        """
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)


def _check_children(owner: LRScheduler, optimizer: Optimizer,
                    schedulers: Sequence[LRScheduler]) -> None:
    name = type(owner).__name__
    for i, s in enumerate(schedulers):
        if not hasattr(s, "optimizer"):
            raise TypeError(f"{name} at index {i} should have `optimizer` as its attribute.")
        if isinstance(s, ReduceLROnPlateau):
            raise ValueError(f"{name} does not support `ReduceLROnPlateau` scheduler as it "
                             "requires additional kwargs to be specified when calling `step`, "
                             f"but got one at index {i} in the given schedulers sequence.")
        if optimizer != s.optimizer:
            raise ValueError(f"{name} expects all schedulers to belong to the same optimizer, "
                             f"but got scheduler {type(s).__name__} at index {i} has "
                             f"{s.optimizer}, which is different from "
                             f"{type(optimizer).__name__}.")


class _Composite(LRScheduler):
    """State dicts of schedulers made of schedulers."""

    _schedulers: Sequence[LRScheduler]

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's state, with the state dicts of its schedulers.

        Returns
        -------
        dict
            The attributes except the optimizer; ``_schedulers`` holds the schedulers'
            state dicts.
        """
        sd = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        sd["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return sd

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the state saved by :meth:`state_dict`, the schedulers' too.

        Parameters
        ----------
        state_dict : dict
            As :meth:`state_dict` returns it.
        """
        state_dict = dict(state_dict)
        subs = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        for s, sd in zip(self._schedulers, subs):
            s.load_state_dict(sd)


class SequentialLR(_Composite):
    """Run schedulers one after the other (``torch.optim.lr_scheduler.SequentialLR``).

    E.g. a ``LinearLR`` warm-up, then ``CosineAnnealingLR``.

    Parameters
    ----------
    optimizer : Optimizer
        The wrapped optimizer.
    schedulers : list of LRScheduler
        The schedulers, of ``optimizer``.
    milestones : list of int
        The epochs at which the next scheduler takes over (one fewer than schedulers).
    last_epoch : int, optional
        The index of the last epoch; -1 starts the schedule.

    Raises
    ------
    ValueError
        No scheduler, a wrong number of milestones, a ``ReduceLROnPlateau`` or a
        scheduler of another optimizer.
    TypeError
        A scheduler without an optimizer.
    """

    def __init__(self, optimizer: Optimizer, schedulers: list[LRScheduler],
                 milestones: list[int], last_epoch: int = -1) -> None:
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler, but got "
                             "no scheduler.")
        _check_children(self, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be "
                             "one more than the number of milestone points, but got number of "
                             f"schedulers {len(schedulers)} and the number of milestones to be "
                             f"equal to {len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for g in optimizer.param_groups:
            g["lr"] = g["initial_lr"]
        self._undo(self)
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def _undo(self, sched: Any) -> None:
        if hasattr(sched, "_schedulers"):
            for s in sched._schedulers:
                self._undo(s)
        elif hasattr(sched, "last_epoch"):
            sched.last_epoch -= 1

    def step(self) -> None:  # type: ignore[override]  # no epoch, as torch's
        """Advance the active scheduler by one (switching at a milestone)."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        sched = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            sched._update_lr(0)
        else:
            sched.step()
        self._last_lr = sched.get_last_lr()


class ChainedScheduler(_Composite):
    """Step several schedulers together (``torch.optim.lr_scheduler.ChainedScheduler``).

    Their effects multiply.

    Parameters
    ----------
    schedulers : sequence of LRScheduler
        The schedulers, of one optimizer.
    optimizer : Optimizer, optional
        Default: the first scheduler's.

    Raises
    ------
    ValueError
        No scheduler, a ``ReduceLROnPlateau`` or schedulers of different optimizers.
    TypeError
        A scheduler without an optimizer.
    """

    def __init__(self, schedulers: Sequence[LRScheduler],
                 optimizer: Optimizer | None = None) -> None:
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler to be "
                             "chained, but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_children(self, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_vals(schedulers[-1].optimizer, "lr")

    def step(self) -> None:  # type: ignore[override]  # no epoch, as torch's
        """Step every scheduler once."""
        for s in self._schedulers:
            s.step()
        self._last_lr = _group_vals(self._schedulers[-1].optimizer, "lr")
