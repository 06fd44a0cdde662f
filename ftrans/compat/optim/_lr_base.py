"""The base class of the learning-rate schedulers and the multiplicative ones
(``LRScheduler``, ``LambdaLR``, ``StepLR``, ``MultiStepLR``, ``ExponentialLR``,
``ConstantLR``, ``LinearLR``, ``PolynomialLR``); the public module is
:mod:`ftrans.compat.optim.lr_scheduler`.
"""
from __future__ import annotations

import types
import warnings
import weakref
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from functools import wraps
from typing import Any

from .optimizer import Optimizer

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


def _group_vals(optimizer: Optimizer, key: str) -> list[Any]:
    return [g[key] for g in optimizer.param_groups]


def _format_param(name: str, optimizer: Optimizer, param: Any) -> list[Any]:
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(param)} values, param_groups has "
                             f"{len(optimizer.param_groups)}.")
        return list(param)
    return [param] * len(optimizer.param_groups)


class LRScheduler:
    """Base class of the learning-rate schedulers (``torch.optim.lr_scheduler.LRScheduler``).

    Subclasses define ``get_lr()`` (the new lr of every group from the current ones and
    ``last_epoch``).

    Parameters
    ----------
    optimizer : Optimizer
        The wrapped optimizer.
    last_epoch : int, optional
        -1 starts a schedule (records ``initial_lr`` in each group); a value >= 0 resumes
        one.

    Raises
    ------
    TypeError
        If ``optimizer`` is not an Optimizer.
    KeyError
        Resuming (``last_epoch >= 0``) when the groups have no ``initial_lr``.
    """

    _get_lr_called_within_step = False
    _is_initial = False
    _last_lr: list[float]

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] "
                                   "when resuming scheduler with last_epoch >= 0.")
        self.base_lrs = _group_vals(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        self._patch_step()
        self._initial_step()

    def _patch_step(self) -> None:
        """Wrap ``optimizer.step`` to notice a scheduler step before any optimizer step
        (PyTorch warns about that order)."""
        opt = self.optimizer
        if hasattr(opt.step, "_wrapped_by_lr_sched"):
            return
        opt_ref = weakref.ref(opt)
        func = opt.step.__func__  # type: ignore[attr-defined]  # a bound method

        @wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            o = opt_ref()
            assert o is not None  # the optimizer is alive while its step is called
            o._opt_called = True
            return func.__get__(o, o.__class__)(*args, **kwargs)
        wrapper._wrapped_by_lr_sched = True  # type: ignore[attr-defined]
        opt.step = wrapper  # type: ignore[method-assign]

    def _initial_step(self) -> None:
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's state (PyTorch's format).

        Returns
        -------
        dict
            The scheduler's attributes except the optimizer.
        """
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the state saved by :meth:`state_dict`.

        Parameters
        ----------
        state_dict : dict
            As :meth:`state_dict` returns it.
        """
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list[float]:
        """The learning rates of the groups as last set by this scheduler.

        Returns
        -------
        list of float
            One per parameter group.
        """
        return self._last_lr

    def get_lr(self) -> list[float]:
        """The groups' next learning rates (each scheduler's formula).

        Returns
        -------
        list of float
            One per parameter group.

        Raises
        ------
        NotImplementedError
            In the base class.
        """
        raise NotImplementedError

    def step(self, epoch: int | None = None) -> None:
        """Advance the schedule by one and set the groups' learning rates.

        Parameters
        ----------
        epoch : int, optional
            Deprecated (with PyTorch's warning): jump to this epoch, with the closed form
            where there is one.
        """
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn("Seems like `optimizer.step()` has been overridden after learning "
                              "rate scheduler initialization. Please, make sure to call "
                              "`optimizer.step()` before `lr_scheduler.step()`.", UserWarning,
                              stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn("Detected call of `lr_scheduler.step()` before "
                              "`optimizer.step()`. In PyTorch 1.1.0 and later, you should call "
                              "them in the opposite order: `optimizer.step()` before "
                              "`lr_scheduler.step()`.  Failure to do this will result in "
                              "PyTorch skipping the first value of the learning rate schedule. "
                              "See more details at https://pytorch.org/docs/stable/optim.html"
                              "#how-to-adjust-learning-rate", UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                if hasattr(self, "_get_closed_form_lr"):
                    values = self._get_closed_form_lr()
                else:
                    values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = _group_vals(self.optimizer, "lr")

    def _warn_outside_step(self) -> None:
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=3)


_LRScheduler = LRScheduler


class LambdaLR(LRScheduler):
    """Set ``lr = initial_lr * lr_lambda(epoch)`` (``torch.optim.lr_scheduler.LambdaLR``).

    The state dict stores the ``__dict__`` of callable objects, None for plain functions
    and lambdas, as in PyTorch.

    Parameters
    ----------
    optimizer : Optimizer
        The wrapped optimizer.
    lr_lambda : callable or list of callable
        ``epoch -> factor``: one function, or one per group.
    last_epoch : int, optional
        The index of the last epoch; -1 starts the schedule.

    Raises
    ------
    ValueError
        For a wrong number of functions.

    Examples
    --------
    >>> import ftrans.compat as torch
    >>> w = torch.zeros(2, requires_grad=True)
    >>> opt = torch.optim.SGD([w], lr=1.0)
    >>> sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 0.5 ** epoch)
    >>> for _ in range(2):
    ...     opt.step()
    ...     sched.step()
    >>> sched.get_last_lr()
    [0.25]
    """

    def __init__(self, optimizer: Optimizer,
                 lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
                 last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got "
                                 f"{len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's state (PyTorch's format).

        Returns
        -------
        dict
            The attributes except the optimizer; ``lr_lambdas`` holds the ``__dict__`` of
            callable objects and None for functions.
        """
        sd = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        sd["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                            for fn in self.lr_lambdas]
        return sd

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the state saved by :meth:`state_dict`.

        Parameters
        ----------
        state_dict : dict
            As :meth:`state_dict` returns it.
        """
        state_dict = dict(state_dict)
        lams = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        for i, fn in enumerate(lams):
            if fn is not None:
                self.lr_lambdas[i].__dict__.update(fn)

    def get_lr(self) -> list[float]:
        """The groups' next learning rates: ``initial_lr * lr_lambda(last_epoch)``.

        Returns
        -------
        list of float
            One per parameter group.
        """
        self._warn_outside_step()
        return [base * lam(self.last_epoch) for lam, base in zip(self.lr_lambdas, self.base_lrs)]


class StepLR(LRScheduler):
    """Multiply the lr by ``gamma`` every ``step_size`` epochs (``torch.optim.lr_scheduler.StepLR``).

    Parameters
    ----------
    optimizer : Optimizer
        The wrapped optimizer.
    step_size : int
        The period, in epochs.
    gamma : float, optional
        The factor.
    last_epoch : int, optional
        The index of the last epoch; -1 starts the schedule.
    """

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The groups' next learning rates: times ``gamma`` at a multiple of ``step_size``.

        Returns
        -------
        list of float
            One per parameter group.
        """
        self._warn_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _group_vals(self.optimizer, "lr")
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the lr by ``gamma`` at each epoch in ``milestones`` (``torch.optim.lr_scheduler.MultiStepLR``).

    A milestone listed k times multiplies by ``gamma**k``.

    Parameters
    ----------
    optimizer : Optimizer
        The wrapped optimizer.
    milestones : iterable of int
        Epoch indices.
    gamma : float, optional
        The factor.
    last_epoch : int, optional
        The index of the last epoch; -1 starts the schedule.
    """

    def __init__(self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = 0.1,
                 last_epoch: int = -1) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The groups' next learning rates: times ``gamma`` (per occurrence) at a milestone.

        Returns
        -------
        list of float
            One per parameter group.
        """
        self._warn_outside_step()
        if self.last_epoch not in self.milestones:
            return _group_vals(self.optimizer, "lr")
        return [g["lr"] * self.gamma ** self.milestones[self.last_epoch]
                for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        ms = sorted(self.milestones.elements())
        return [b * self.gamma ** bisect_right(ms, self.last_epoch) for b in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the lr by ``gamma`` every epoch (``torch.optim.lr_scheduler.ExponentialLR``).

    Parameters
    ----------
    optimizer : Optimizer
        The wrapped optimizer.
    gamma : float
        The factor.
    last_epoch : int, optional
        The index of the last epoch; -1 starts the schedule.
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The groups' next learning rates: the current ones times ``gamma``.

        Returns
        -------
        list of float
            One per parameter group.
        """
        self._warn_outside_step()
        if self._is_initial:
            return _group_vals(self.optimizer, "lr")
        return [g["lr"] * self.gamma for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [b * self.gamma ** self.last_epoch for b in self.base_lrs]


class ConstantLR(LRScheduler):
    """Multiply the lr by ``factor`` until epoch ``total_iters`` (``torch.optim.lr_scheduler.ConstantLR``).

    Parameters
    ----------
    optimizer : Optimizer
        The wrapped optimizer.
    factor : float, optional
        The factor, in ``[0, 1]``.
    total_iters : int, optional
        The epoch from which the lr is back to its base value.
    last_epoch : int, optional
        The index of the last epoch; -1 starts the schedule.

    Raises
    ------
    ValueError
        For ``factor`` outside ``[0, 1]``.
    """

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The groups' next learning rates: scaled by ``factor`` until ``total_iters``.

        Returns
        -------
        list of float
            One per parameter group.
        """
        self._warn_outside_step()
        if self.last_epoch == 0:
            return [g["lr"] * self.factor for g in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _group_vals(self.optimizer, "lr")
        return [g["lr"] * (1.0 / self.factor) for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [b * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for b in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the lr linearly over ``total_iters`` epochs (``torch.optim.lr_scheduler.LinearLR``).

    From ``start_factor`` to ``end_factor`` times the base lr (a warm-up).

    Parameters
    ----------
    optimizer : Optimizer
        The wrapped optimizer.
    start_factor : float, optional
        The first factor, in ``(0, 1]``.
    end_factor : float, optional
        The last factor, in ``[0, 1]``.
    total_iters : int, optional
        The length of the ramp, in epochs.
    last_epoch : int, optional
        The index of the last epoch; -1 starts the schedule.

    Raises
    ------
    ValueError
        For factors out of range.
    """

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3,
                 end_factor: float = 1.0, total_iters: int = 5, last_epoch: int = -1) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             "less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor = start_factor, end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The groups' next learning rates: the linear ramp's next step.

        Returns
        -------
        list of float
            One per parameter group.
        """
        self._warn_outside_step()
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [g["lr"] * self.start_factor for g in groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _group_vals(self.optimizer, "lr")
        d = self.end_factor - self.start_factor
        return [g["lr"] * (1.0 + d / (self.total_iters * self.start_factor
                                      + (self.last_epoch - 1) * d)) for g in groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [b * (self.start_factor + (self.end_factor - self.start_factor)
                     * min(self.total_iters, self.last_epoch) / self.total_iters)
                for b in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Polynomial decay ``initial_lr * (1 - t / total_iters) ** power`` (``torch.optim.lr_scheduler.PolynomialLR``).

    Parameters
    ----------
    optimizer : Optimizer
        The wrapped optimizer.
    total_iters : int, optional
        The epochs of the decay (the lr is 0 from then on).
    power : float, optional
        The polynomial's power.
    last_epoch : int, optional
        The index of the last epoch; -1 starts the schedule.
    """

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0,
                 last_epoch: int = -1) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        """The groups' next learning rates: the polynomial decay's next step.

        Returns
        -------
        list of float
            One per parameter group.
        """
        self._warn_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return _group_vals(self.optimizer, "lr")
        f = ((1.0 - self.last_epoch / self.total_iters)
             / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [g["lr"] * f for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[float]:
        return [b * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters)
                ** self.power for b in self.base_lrs]
