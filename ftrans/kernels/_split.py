"""Run a serial numba kernel over a large array on several threads, by claimed blocks.

``run(kernel, n, args, sliced)`` calls ``kernel`` on consecutive blocks of ``BLOCK``
elements of ``[0, n)`` (``args[i][lo:hi]`` where ``sliced[i]``, ``args[i]`` itself
elsewhere).  The calling thread and ``helpers()`` daemon threads take blocks from one
shared counter as they get to run, so each block runs once, in one thread, on whole
cache lines of 64-byte aligned arrays (``BLOCK`` elements are a multiple of 64 bytes),
and the results equal one serial call's exactly (the kernels are elementwise).

Why not numba's ``prange``: its blocks are assigned to threads up front, so the call
waits for every worker thread to be scheduled; when another process holds a core that
is a whole scheduler tick (4-16 ms measured on the 2-core development VM, where a 4M
float64 sin+cos takes 11 ms serially: ``prange`` 13.9 ms median, claimed blocks 11.4).
Here the calling thread takes the blocks of a helper that has not started, and waits
only for blocks a helper is computing; on an idle machine the helpers share the work.
The kernels must be compiled with ``nogil=True`` (the GIL is released while a block
runs), or be NumPy ufuncs on large blocks, which release it in their loops.  After
``os.fork`` the child starts its own helpers when it first needs them.
"""
from __future__ import annotations

import itertools
import os
import queue
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

#: Elements per claimed block: 512 KiB of float64 (fits L2), 64 blocks for 4M elements
#: (the Python cost of a claim, ~2-3 us, stays under 1% of a memory-bound pass).
BLOCK = 1 << 16

_state: dict[str, Any] = {"queue": None, "helpers": 0}
_start_lock = threading.Lock()


class _Task:
    __slots__ = ("kernel", "args", "sliced", "n", "blocks", "claim", "done", "cond", "error")

    def __init__(self, kernel: Callable[..., Any], n: int, args: tuple[Any, ...],
                 sliced: tuple[bool, ...]) -> None:
        self.kernel, self.args, self.sliced, self.n = kernel, args, sliced, n
        self.blocks = (n + BLOCK - 1) // BLOCK
        self.claim = itertools.count().__next__  # atomic under the GIL
        self.done = 0
        self.cond = threading.Condition(threading.Lock())
        self.error: BaseException | None = None


def _work(task: _Task) -> None:
    """Run blocks of ``task`` until none is left; count them done (also on error)."""
    count = 0
    try:
        while True:
            b = task.claim()
            if b >= task.blocks:
                break
            count += 1  # (claimed: counted done even if the kernel raises)
            # (read args only after a successful claim: the caller clears them once
            # every block is done, and keeps them until then)
            lo = b * BLOCK
            hi = min(task.n, lo + BLOCK)
            task.kernel(*[a[lo:hi] if s else a for a, s in zip(task.args, task.sliced)])
    except BaseException as e:  # re-raised in the calling thread
        task.error = e
        while task.claim() < task.blocks:  # (abandon the rest: count it done)
            count += 1
    if count:
        with task.cond:
            task.done += count
            task.cond.notify_all()


def _helper(q: queue.SimpleQueue) -> None:
    # NumPy ufuncs run here on blocks too (``cpu._ufunc_into``): their floating-point
    # errors are ignored in helpers (the calling thread's blocks report under its mode)
    np.seterr(all="ignore")
    while True:
        _work(q.get())


def helpers() -> int:
    """Number of helper threads: numba's thread count less one.  That count is
    ``numba.config.NUMBA_NUM_THREADS`` once numba is imported; before (a NumPy ufunc's
    blocks need no numba, which costs ~0.5 s to import) the same setting as numba reads
    it: the ``NUMBA_NUM_THREADS`` environment variable, else the CPUs this process may
    run on."""
    numba = sys.modules.get("numba")
    if numba is not None:
        n = int(numba.config.NUMBA_NUM_THREADS)
    else:
        env = os.environ.get("NUMBA_NUM_THREADS")
        n = (int(env) if env else len(os.sched_getaffinity(0))
             if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
    return max(0, n - 1)


def _queue() -> queue.SimpleQueue | None:
    q = _state["queue"]
    if q is None and _state["helpers"] == 0:
        with _start_lock:
            if _state["queue"] is None:
                n = helpers()
                if n:
                    q = queue.SimpleQueue()
                    for _ in range(n):
                        threading.Thread(target=_helper, args=(q,), daemon=True,
                                         name="ftrans-kernel-helper").start()
                    _state["queue"] = q
                _state["helpers"] = n if n else -1
            q = _state["queue"]
    return q


def _after_fork_in_child() -> None:
    _state["queue"] = None  # the parent's helper threads do not exist here
    _state["helpers"] = 0


os.register_at_fork(after_in_child=_after_fork_in_child)


def run(kernel: Callable[..., Any], n: int, args: Sequence[Any],
        sliced: Sequence[bool]) -> None:
    """``kernel(*args)`` over ``[0, n)`` in claimed blocks, shared with the helpers.

    Parameters
    ----------
    kernel : callable
        A ``nogil`` numba function of ``args``, elementwise along the sliced ones.
    n : int
        Length of the sliced arguments.
    args : sequence
        The kernel's arguments.
    sliced : sequence of bool
        Which arguments are cut into blocks (1-d arrays of length ``n``).

    Raises
    ------
    BaseException
        Whatever a kernel call raised (after every started block finished).
    """
    task = _Task(kernel, n, tuple(args), tuple(sliced))
    q = _queue() if task.blocks > 1 else None
    if q is not None:
        for _ in range(min(_state["helpers"], task.blocks - 1)):  # (no more than blocks)
            q.put(task)
    _work(task)
    with task.cond:
        while task.done < task.blocks:
            task.cond.wait()
    task.args = ()  # a helper that wakes up late finds no block, and no arrays
    if task.error is not None:
        raise task.error
