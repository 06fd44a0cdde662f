"""``ftrans.compat.utils.benchmark``: PyTorch's ``torch.utils.benchmark`` ``Timer`` and
``Measurement`` (Python statements), on :mod:`timeit`.

``Timer(stmt, setup, globals=..., label=..., sub_label=..., description=...)``;
``timeit(number)`` runs ``stmt`` ``number`` times once; ``blocked_autorange(min_run_time)``
first grows the block size by tens until a block is long enough for the timer's overhead
to be negligible (also a warm-up), then times blocks until ``min_run_time`` seconds have
been spent.  A ``Measurement`` gives ``times`` (seconds per run of ``stmt``), ``mean``,
``median``, ``iqr`` (linear quantiles) and prints as PyTorch's does, with its warnings when
the interquartile range exceeds 10% (50%) of the median.  Timing numbers are measurements,
not promises: nothing in the test-suite asserts on them.
"""
from __future__ import annotations

import textwrap
import timeit as _timeit
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["Timer", "Measurement", "select_unit"]

_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.5


def select_unit(t: float) -> tuple[str, float]:
    """(unit, scale) printing ``t`` seconds as a number between 1 and 1000."""
    exp = int(np.floor(np.log10(t))) // 3 if t > 0 else 0
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(exp, "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


def _indent(s: str) -> str:
    return textwrap.indent(s, "  ")


class TaskSpec:
    """What was timed: statement, setup and labels (``Measurement.task_spec``)."""

    def __init__(self, stmt: str, setup: str, label: str | None = None,
                 sub_label: str | None = None, description: str | None = None,
                 env: str | None = None, num_threads: int = 1) -> None:
        self.stmt, self.setup = stmt, setup
        self.label, self.sub_label, self.description = label, sub_label, description
        self.env, self.num_threads = env, num_threads

    @property
    def title(self) -> str:
        sub = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + sub
        if "\n" not in self.stmt:
            return self.stmt + sub
        return f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n{_indent(self.stmt)}"

    def setup_str(self) -> str:
        if not self.setup or self.setup == "pass":
            return ""
        return f"setup:\n{_indent(self.setup)}" if "\n" in self.setup else f"setup: {self.setup}"

    def summarize(self) -> str:
        parts = [self.title, self.description or "", self.setup_str()]
        return "\n".join(f"{p}\n" if "\n" in p else p for p in parts if p)


class Measurement:
    """Times of one statement: ``raw_times`` are seconds per block of ``number_per_run``
    runs; ``times`` per run.  ``mean``/``median``/``iqr`` in seconds per run."""

    def __init__(self, number_per_run: int, raw_times: Sequence[float], task_spec: TaskSpec,
                 metadata: dict[str, Any] | None = None) -> None:
        if not raw_times:
            raise ValueError("Measurement needs at least one time")
        self.number_per_run = int(number_per_run)
        self.raw_times = list(raw_times)
        self.task_spec = task_spec
        self.metadata = metadata
        t = np.sort(np.asarray(self.times, np.float64))
        self._sorted_times = tuple(t)
        self._median = float(np.quantile(t, 0.5))
        self._mean = float(t.mean())
        self._p25 = float(np.quantile(t, 0.25))
        self._p75 = float(np.quantile(t, 0.75))
        self._warnings: tuple[str, ...] = ()
        if self._median > 0:
            rel = self.iqr / self._median

            def warn(msg: str) -> None:
                self._warnings += (f"  WARNING: Interquartile range is {rel * 100:.1f}% of the "
                                   f"median measurement.\n           {msg}",)
            if rel >= _IQR_GROSS_WARN_THRESHOLD:
                warn("This suggests significant environmental influence.")
            elif rel >= _IQR_WARN_THRESHOLD:
                warn("This could indicate system fluctuation.")

    # stmt, label, sub_label, description, num_threads ...
    def __getattr__(self, name: str) -> Any:
        ts = self.__dict__.get("task_spec")
        if ts is not None and name in ts.__dict__:
            return ts.__dict__[name]
        raise AttributeError(name)

    @property
    def times(self) -> list[float]:
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        return self._median

    @property
    def mean(self) -> float:
        return self._mean

    @property
    def iqr(self) -> float:
        return self._p75 - self._p25

    @property
    def significant_figures(self) -> int:
        """Digits of the median that the spread supports (1 to 4)."""
        n = len(self._sorted_times)
        if n < 2 or self.iqr == 0 or self._median == 0:
            return 4 if n >= 2 else 1
        ci = 1.645 * self.iqr / 1.349 / np.sqrt(n)
        return int(np.clip(np.floor(np.log10(self._median / ci)), 1, 4))

    @property
    def has_warnings(self) -> bool:
        return bool(self._warnings)

    @property
    def title(self) -> str:
        return self.task_spec.title

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        return self.iqr / self._median < threshold

    def __repr__(self) -> str:
        n = len(self._sorted_times)
        unit, scale = select_unit(self._median)
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{self._median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({self._p25 / scale:.2f} to "
                         f"{self._p75 / scale:.2f})")
        nt = self.task_spec.num_threads
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {nt} thread"
                     f"{'s' if nt > 1 else ''}")
        lines.extend(self._warnings)
        return "\n".join(lines)

    __str__ = __repr__


class Timer:
    """Time a Python statement (``torch.utils.benchmark.Timer``).

    Parameters
    ----------
    stmt : str, optional
        The statement ("pass").
    setup : str, optional
        Run once before timing ("pass").
    global_setup : str, optional
        Prepended to ``setup``.
    timer : callable, optional
        The clock (``timeit.default_timer``).
    globals : dict, optional
        The namespace ``stmt`` sees.
    label, sub_label, description : str, optional
        Printed with the measurement.
    env : str, optional
        Recorded.
    num_threads : int, optional
        Recorded only.
    language : str, optional
        Only ``"python"``.

    Raises
    ------
    ValueError
        For a language other than Python, or a ``stmt`` that is not a str.

    Examples
    --------
    >>> from ftrans.compat.utils.benchmark import Timer
    >>> m = Timer("sum(range(10))").timeit(100)
    >>> m.mean > 0
    True
    """

    def __init__(self, stmt: str = "pass", setup: str = "pass", global_setup: str = "",
                 timer: Callable[[], float] = _timeit.default_timer,
                 globals: dict[str, Any] | None = None, label: str | None = None,
                 sub_label: str | None = None, description: str | None = None,
                 env: str | None = None, num_threads: int = 1, language: Any = "python"
                 ) -> None:
        if str(getattr(language, "name", language)).lower() not in ("python", "py"):
            raise ValueError("Timer: only Python statements are supported (language='python')")
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if global_setup:
            setup = global_setup + "\n" + setup
        self._task_spec = TaskSpec(textwrap.dedent(stmt).strip() or "pass",
                                   textwrap.dedent(setup).strip() or "pass", label, sub_label,
                                   description, env, num_threads)
        self._timer = _timeit.Timer(stmt=self._task_spec.stmt, setup=self._task_spec.setup,
                                    timer=timer, globals=dict(globals or {}))

    def _timeit(self, number: int) -> float:
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number: int = 1000000) -> Measurement:
        """One block of ``number`` runs (after one warm-up run).

        Parameters
        ----------
        number : int, optional
            Runs of ``stmt``.

        Returns
        -------
        Measurement
            One time.
        """
        self._timer.timeit(1)
        return Measurement(number, [self._timeit(number)], self._task_spec)

    def _estimate_block_size(self, min_run_time: float) -> int:
        overhead = float(np.median([self._timeit(0) for _ in range(5)]))
        number = 1
        while True:
            took = self._timeit(number)
            if (overhead / took <= 1e-4 and took >= min_run_time / 1000) or took > min_run_time:
                return number
            if number * 10 > 2147483647:
                return number
            number *= 10

    def blocked_autorange(self, callback: Callable[[int, float], Any] | None = None,
                          min_run_time: float = 0.2) -> Measurement:
        """Blocks of runs, timed until ``min_run_time`` seconds were spent.

        See the module docstring.

        Parameters
        ----------
        callback : callable, optional
            ``callback(number, seconds)`` after each block.
        min_run_time : float, optional
            Seconds to spend at least.

        Returns
        -------
        Measurement
            One time per block.
        """
        number = self._estimate_block_size(min_run_time)
        times: list[float] = []
        total = 0.0
        while total < min_run_time or not times:
            t = self._timeit(number)
            times.append(t)
            total += t
            if callback:
                callback(number, t)
        return Measurement(number, times, self._task_spec)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01,
                           max_run_time: float = 10.0,
                           callback: Callable[[int, float], Any] | None = None) -> Measurement:
        """Blocks until the spread is small or the time is spent.

        Parameters
        ----------
        threshold : float, optional
            Stop once the IQR is below this fraction of the median (after at least 3
            blocks and ``min_run_time`` seconds).
        min_run_time : float, optional
            Seconds to spend at least.
        max_run_time : float, optional
            Seconds to spend at most.
        callback : callable, optional
            ``callback(number, seconds)`` after each block.

        Returns
        -------
        Measurement
            One time per block.
        """
        number = self._estimate_block_size(0.05)
        times: list[float] = []
        total = 0.0
        while True:
            t = self._timeit(number)
            times.append(t)
            total += t
            if callback:
                callback(number, t)
            if total > max_run_time:
                break
            if len(times) > 3 and total >= min_run_time:
                m = Measurement(number, times, self._task_spec)
                if m.meets_confidence(threshold):
                    break
        return Measurement(number, times, self._task_spec)
