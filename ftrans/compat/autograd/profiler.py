"""``torch.autograd.profiler`` for the compat layer: a CPU profiler of compat operations.

Source: the ``torch.autograd.profiler`` section of the ``torch.autograd`` reference
(``spec/torch-autograd-reference.txt``: ``profile``, ``export_chrome_trace``,
``key_averages``, ``self_cpu_time_total``, ``table``, ``emit_nvtx``, ``load_nvprof``); where
it is silent, PyTorch 2.13's observable behaviour (its ``torch.autograd.profiler`` and
``profiler_util`` modules: event fields, table layout, time formatting, grouping keys,
error types and messages).

What is recorded, while a :class:`profile` is running in the current thread:

* every call of a public compat operation -- a function of ``ftrans.compat`` or a method
  or operator of :class:`~ftrans.compat.Tensor` -- as one event named as PyTorch names the
  ATen operator: ``aten::mul`` (``x * 2``, ``torch.mul``, ``x.mul``), ``aten::pow``,
  ``aten::sin``, ``aten::sum``, ``aten::matmul``, ``aten::mul_`` (``x *= 2``) ...;
  aliases get the canonical name (``arcsin`` -> ``aten::asin``, ``multiply`` ->
  ``aten::mul``), dtype conversions (``x.double()``) are ``aten::to``, indexing is
  ``aten::select``/``aten::slice``/``aten::index`` by the kind of index.  An operation that
  calls another public operation gets it as a child event, except a wrapper layer: a child
  with the parent's name (``torch.mul`` -> ``Tensor.__mul__``), or the out-of-place form
  inside an in-place one (``aten::mul`` inside ``aten::mul_``), is not recorded, as
  PyTorch's ``_remove_dup_nodes`` drops such duplicates;
* the forward of a custom ``autograd.Function``, named after the class (``MyFn``);
* every backward node the engine runs, as PyTorch 2.13 records them: an event
  ``autograd::engine::evaluate_function: PowBackward0`` with one child ``PowBackward0``
  (``torch::autograd::AccumulateGrad`` for leaves, ``MyFnBackward`` for a custom
  Function); compat operations a node calls (a custom ``backward``) are its children;
* the ranges of :class:`record_function` (user annotations).

Events PyTorch records inside its kernels (``aten::to``, ``aten::empty_strided``,
``aten::copy_``, the ``aten::pow``/``aten::mul`` of ``PowBackward0``'s formula,
``aten::ones_like`` of ``backward()`` ...) have no counterpart here: formulas run on
NumPy arrays.  Operations modelled one-to-one (``pow``, ``sin``, ``mul``, ``sum`` ... and
their backward nodes) give the same names and counts as PyTorch.

Cost: none when no profiler runs (no hook is installed; the engine tests one empty tuple
of ``node_run`` subscribers, :mod:`._events`, per backward call).  While one runs, ``sys.setprofile`` (current
thread only, chained to any profile function already set, restored on exit even when
the block raises) turns the ``call``/``return`` events of the compat operations' code
objects into ranges, and the engine takes its general path (``_run_node``/``_run_acc``),
whose calls are recorded as the backward node events.  Times are ``time.perf_counter_ns``
readings, reported in microseconds (floats) from the start of the profile, as PyTorch
reports them; they include the profiler's own overhead of a few microseconds per event.

Not modelled (CPU/NumPy-only layer): device (CUDA/XPU) times, memory (``profile_memory``
is accepted, ``cpu_memory_usage`` stays 0 and no memory columns are shown), FLOPs
(``with_flops`` only turns ``record_shapes`` on, as in PyTorch; ``flops`` stays 0), module
hierarchy (``with_modules``), Kineto.  :class:`emit_nvtx` raises on entry what PyTorch's
CPU build raises; :func:`load_nvprof` reads an nvprof SQLite file with :mod:`sqlite3` as
PyTorch does, without C++ name demangling.

This file records (the profile function, the session, ``profile``, ``record_function``);
the events and their tables are in :mod:`~ftrans.compat.autograd.profiler_util` (as in
PyTorch) and the operation table that names the calls in ``_profiler_ops.py``.
"""
from __future__ import annotations

import contextlib
import itertools
import os
import sys
import threading
import time
import warnings
from collections.abc import Callable
from types import FrameType
from typing import Any, Literal

from . import _events
from .profiler_util import (  # noqa: F401  (torch.autograd.profiler's names)
    DeviceType, EventList, FunctionEvent, FunctionEventAvg, Interval, Kernel,
    _format_time, _format_time_share, parse_nvprof_trace,
)
from ._profiler_ops import (
    _ACC, _EVAL, _FUNCTION, _INDEX, _SHARED, _STATIC, _index_name, _op_table, _shape,
    _tensor_cls
)

__all__ = ["profile", "record_function", "emit_nvtx", "load_nvprof", "parse_nvprof_trace",
           "EventList", "FunctionEvent", "FunctionEventAvg", "Interval", "Kernel",
           "DeviceType"]

# Each running session subscribes a pass-through to the engine's ``node_run`` event
# (:mod:`._events`): while one is subscribed every node goes through ``_engine._run_node``/
# ``_run_acc``, whose calls the profile function records.

_clock = time.perf_counter_ns


_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep


def _stack(frame: FrameType | None) -> list[str]:
    """``"file(line): function"`` for the frames from ``frame`` outwards that are not in
    the ``ftrans`` package (innermost first)."""
    out = []
    while frame is not None:
        c = frame.f_code
        if not c.co_filename.startswith(_ROOT):
            out.append(f"{c.co_filename}({frame.f_lineno}): {c.co_name}")
        frame = frame.f_back
    return out


# ================================================================================ state
class _TLS(threading.local):
    def __init__(self) -> None:
        # running sessions of this thread, outermost first
        self.sessions: list[_Session] = []
        self.thread: int | None = None    # this thread's ordinal (FunctionEvent.thread)


_tls = _TLS()
_thread_ids = itertools.count(1)


class _Session:
    """The recording of one :class:`profile` in one thread."""

    def __init__(self, record_shapes: bool, with_stack: bool) -> None:
        if _tls.thread is None:
            _tls.thread = next(_thread_ids)
        self.thread = _tls.thread
        self.tid = threading.get_native_id()
        self.record_shapes = record_shapes
        self.with_stack = with_stack
        self.events: list[FunctionEvent] = []
        # [(frame or record_function token, event)], innermost last
        self.open: list[tuple[Any, FunctionEvent]] = []
        self.table = _op_table()
        self.T = _tensor_cls[0]
        self.t0 = _clock()

    # ------------------------------------------------------------- event creation
    def _new(self, name: str, parent: FunctionEvent | None, shapes: list[Any],
             stack: list[str], scope: int = 0, seq: int = -1, user: bool = False
             ) -> FunctionEvent:
        e = FunctionEvent(len(self.events) + 1, name, self.thread, 0, 0, overload_name="",
                          input_shapes=shapes, stack=stack, scope=scope, sequence_nr=seq,
                          is_user_annotation=user)
        e._tid = self.tid
        e._start = e._end = None
        if parent is not None:
            parent.cpu_children.append(e)
            e.cpu_parent = parent
        self.events.append(e)
        return e

    def call(self, frame: FrameType, ent: Any) -> None:
        """A call of a mapped code object: open its event(s) unless it is a wrapper layer."""
        kind = ent.kind
        loc = None
        shapes_of = None
        scope = 0
        seq = -1
        names: tuple[str, ...]
        if kind == _STATIC:
            names = (ent.name,)
        elif kind == _SHARED:
            loc = frame.f_locals
            name = ent.sigs.get(tuple(id(loc[v]) for v in ent.free))
            if name is None:
                return  # an internal closure of the same factory: not a public operation
            names = (name,)
        elif kind == _INDEX:
            loc = frame.f_locals
            names = ("aten::" + _index_name(loc.get("idx")),)
        elif kind == _FUNCTION:
            loc = frame.f_locals
            names = (getattr(loc.get("cls"), "__name__", "Function"),)
        else:  # a backward node run by the engine
            loc = frame.f_locals
            n = loc["n"]
            buf = loc["buf"]
            if buf is None or all(g is None for g in buf):
                return  # nothing arrived: the node does not run
            cap = loc["cap"]
            if cap is not None and n not in loc["run_set"]:
                return  # only captured (autograd.grad), not run
            nm = n.name()
            names = (_EVAL + nm, nm)
            shapes_of = buf
            scope = 1
            seq = -1 if kind == _ACC else getattr(n, "_seq", -1)
        open_ = self.open
        parent = open_[-1][1] if open_ else None
        if parent is not None:
            pn = parent.name
            if pn == names[-1] or pn == names[0] or pn == names[0] + "_":
                return  # a wrapper layer of the parent's operation
        if self.record_shapes:
            T = self.T
            if shapes_of is None:
                if loc is None:
                    loc = frame.f_locals
                shapes_of = [loc.get(a) for a in ent.args] if kind != _FUNCTION else []
                if ent.varargs is not None:
                    shapes_of += list(loc.get(ent.varargs) or ())
            shapes = [_shape(v, T) for v in shapes_of]
        else:
            shapes = []
        stack = _stack(frame.f_back) if self.with_stack else []
        if len(names) == 2:
            outer = self._new(names[0], parent, [], stack)
            open_.append((frame, outer))
            parent = outer
        e = self._new(names[-1], parent, shapes, stack, scope, seq)
        open_.append((frame, e))
        t = _clock()
        if len(names) == 2:
            outer._start = t
        e._start = t

    def ret(self, frame: FrameType) -> None:
        """The return (or exception exit) of ``frame``: close its open event(s)."""
        t = _clock()
        open_ = self.open
        while open_ and open_[-1][0] is frame:
            open_.pop()[1]._end = t

    def range_enter(self, name: str, token: object, frame: FrameType | None) -> None:
        """Open a user range (:class:`record_function`)."""
        open_ = self.open
        parent = open_[-1][1] if open_ else None
        stack = _stack(frame) if self.with_stack and frame is not None else []
        e = self._new(name, parent, [], stack, user=True)
        open_.append((token, e))
        e._start = _clock()

    def range_exit(self, token: object) -> None:
        """Close the user range ``token`` (and any event still open inside it)."""
        t = _clock()
        open_ = self.open
        if not any(k is token for k, _ in open_):
            return
        while open_:
            k, e = open_.pop()
            e._end = t
            if k is token:
                break

    def finish(self) -> list[FunctionEvent]:
        """Close what is still open and convert the times to microseconds from the
        start; returns the events (start order)."""
        t = _clock()
        for _, e in self.open:
            e._end = t
        self.open = []
        t0 = self.t0
        events = []
        for e in self.events:
            if e._start is None:
                e._start = e._end if e._end is not None else t
            if e._end is None:
                e._end = t
            e.time_range = Interval((e._start - t0) / 1000.0, (e._end - t0) / 1000.0)
            del e._start, e._end
            events.append(e)
        return events


def _pass_through(node: Any, run: Callable[..., Any], args: Any, outputs: Any) -> Any:
    """The ``node_run`` subscriber of a running session: the node runs unchanged (each
    :class:`profile` subscribes it on entry and removes one subscription on exit)."""
    return run(*args)


def _make_hook(sess: _Session, old: Callable[..., Any] | None) -> Callable[..., None]:
    """The ``sys.setprofile`` function of ``sess`` (chained to ``old``)."""
    get = sess.table.get
    call = sess.call
    ret = sess.ret

    def hook(frame: FrameType, event: str, arg: Any) -> None:
        if old is not None:
            old(frame, event, arg)
        if event == "call":
            ent = get(frame.f_code)
            if ent is not None:
                try:
                    call(frame, ent)
                except Exception:  # never break the profiled program
                    pass
        elif event == "return":
            o = sess.open
            if o and o[-1][0] is frame:
                ret(frame)
    return hook


# ============================================================================== profile
class profile:
    """Context manager that records the compat operations, backward nodes and
    :class:`record_function` ranges run in the current thread (``torch.autograd.profiler.
    profile``; see the module docstring for what is recorded and how).

    ``enabled=False`` makes it a no-op (``__enter__`` returns None, as in PyTorch).
    ``record_shapes``: record ``input_shapes`` (``with_flops`` implies it).  ``with_stack``:
    record the Python stack of each event.  ``use_cuda``/``use_device``: a
    ``FutureWarning`` for ``use_cuda`` and a ``UserWarning`` that the device is not
    available (or not a valid option), as PyTorch's CPU build warns; profiling stays on
    the CPU.  ``use_cpu=False`` raises ``AssertionError`` (without ``use_kineto`` PyTorch
    requires the CPU; with it no activity is left).  ``profile_memory``,
    ``with_modules``, ``use_kineto``, ``experimental_config``, ``acc_events``,
    ``custom_trace_id_callback``, ``activity_filters``: accepted, no effect.
    ``post_processing_timeout_s`` < 0: ``ValueError``.

    Entering a profile object a second time (even after it exited) raises
    ``RuntimeError("Profiler context manager is not reentrant")``.  Profiles of different
    objects may nest; each records what runs inside it.  Results --
    :attr:`function_events`, :meth:`key_averages`, :meth:`table`,
    :meth:`export_chrome_trace`, :attr:`self_cpu_time_total`, :meth:`total_average` --
    are available after exit (while running, :attr:`function_events` is empty, as in
    PyTorch).

    Parameters
    ----------
    enabled : bool, optional
        False makes it a no-op (``__enter__`` returns None, as in PyTorch).
    use_cuda : bool, optional
        A ``FutureWarning``, and a ``UserWarning`` that CUDA is not available (as
        PyTorch's CPU build warns); profiling stays on the CPU.
    use_device : str, optional
        A ``UserWarning`` that the device is not available (or not a valid option).
    record_shapes : bool, optional
        Record each event's ``input_shapes``.
    with_flops : bool, optional
        Implies ``record_shapes`` (flops are not counted).
    profile_memory : bool, optional
        Accepted, no effect.
    with_stack : bool, optional
        Record the Python stack of each event.
    with_modules, use_kineto : bool, optional
        Accepted, no effect.
    use_cpu : bool, optional
        False raises ``AssertionError`` (without ``use_kineto`` PyTorch requires the CPU;
        with it no activity is left).
    experimental_config, acc_events, custom_trace_id_callback, activity_filters : optional
        Accepted, no effect.
    post_processing_timeout_s : float, optional
        Accepted; a negative value raises ``ValueError``.

    Raises
    ------
    AssertionError
        ``use_cpu=False``.
    ValueError
        A negative ``post_processing_timeout_s``.

    Examples
    --------
    >>> import ftrans.compat as torch
    >>> x = torch.randn((1, 1), requires_grad=True)
    >>> with torch.autograd.profiler.profile() as prof:
    ...     for _ in range(3):
    ...         y = x ** 2
    ...         y.backward()
    >>> table = prof.key_averages().table(sort_by="self_cpu_time_total")
    """

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False,
                 use_device: str | None = None, record_shapes: bool = False,
                 with_flops: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_modules: bool = False,
                 use_kineto: bool = False, use_cpu: bool = True,
                 experimental_config: Any = None, acc_events: bool = False,
                 custom_trace_id_callback: Callable[[], str] | None = None,
                 post_processing_timeout_s: float | None = None,
                 activity_filters: Any = None) -> None:
        self.enabled = enabled
        if not enabled:
            return
        self.use_cuda = use_cuda
        if use_cuda:
            warnings.warn("The attribute `use_cuda` will be deprecated soon, please use "
                          "``use_device = 'cuda'`` instead.", FutureWarning, stacklevel=2)
            use_device = "cuda"
        if use_device is not None:
            if use_device not in ("cuda", "xpu", "mtia", "hpu"):
                warnings.warn(f"The {use_device} is not a valid device option.", stacklevel=2)
            else:
                warnings.warn(f"{use_device.upper()} is not available, disabling "
                              f"{use_device.upper()} profiling", stacklevel=2)
            use_device = None
            self.use_cuda = False
        self.use_device = use_device
        self.record_shapes = bool(record_shapes or with_flops)
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.use_cpu = use_cpu
        self.acc_events = acc_events
        if not use_cpu:
            if not use_kineto:
                raise AssertionError("Device-only events supported only with Kineto "
                                     "(use_kineto=True)")
            raise AssertionError("No activities specified for the profiler")
        if post_processing_timeout_s is not None and post_processing_timeout_s < 0:
            raise ValueError("post_processing_timeout_s must be non-negative")
        self.entered = False
        self._session: _Session | None = None
        self._hook: Callable[..., Any] | None = None
        self._old_hook: Callable[..., Any] | None = None
        self._function_events: EventList | None = None

    def _check_enabled(self, what: str) -> None:
        if not self.enabled:
            raise AttributeError(f"'profile' object has no attribute '{what}': "
                                 "profile(enabled=False) records nothing; create it with "
                                 "enabled=True to get results")

    def __enter__(self) -> profile | None:
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        sess = self._session = _Session(self.record_shapes, self.with_stack)
        self._old_hook = old = sys.getprofile()
        self._hook = _make_hook(sess, old)
        self._through = _events.subscribe("node_run", _pass_through)
        _tls.sessions.append(sess)
        sess.t0 = _clock()
        sys.setprofile(self._hook)
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> Literal[False]:
        if not self.enabled:
            return False
        sess = self._session
        if sess is None:
            return False
        sys.setprofile(self._old_hook)
        _events.unsubscribe("node_run", self._through)
        sessions = _tls.sessions
        for i in range(len(sessions) - 1, -1, -1):
            if sessions[i] is sess:
                del sessions[i]
                break
        self._function_events = EventList(sess.finish(), use_device=self.use_device,
                                          profile_memory=self.profile_memory,
                                          with_flops=self.with_flops, _tree_built=True)
        self._session = None
        self._hook = self._old_hook = None
        return False

    # ------------------------------------------------------------------ results
    @property
    def function_events(self) -> EventList:
        """The recorded events (an :class:`EventList` of :class:`FunctionEvent`, start order).

        Empty while the profile runs.
        """
        self._check_enabled("function_events")
        if self._function_events is None:
            return EventList(use_device=self.use_device, _tree_built=True)
        return self._function_events

    def _events(self, what: str) -> EventList:
        self._check_enabled(what)
        return self.function_events

    def table(self, sort_by: str | None = None, row_limit: int = 100,
              max_src_column_width: int = 75, max_name_column_width: int = 55,
              max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False) -> str:
        """:meth:`EventList.table` of :attr:`function_events`.

        Parameters
        ----------
        sort_by : str, optional
            An event attribute to sort by, largest first.
        row_limit : int, optional
            Rows at most.
        max_src_column_width, max_name_column_width, max_shapes_column_width : int, optional
            Column widths at most, characters.
        header : str, optional
            A title line above the table.
        top_level_events_only : bool, optional
            Only events without a CPU parent.

        Returns
        -------
        str
            The table.
        """
        return self._events("table").table(
            sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width, header=header,
            top_level_events_only=top_level_events_only)

    def export_chrome_trace(self, path: str | os.PathLike[str]) -> None:
        """:meth:`EventList.export_chrome_trace` of :attr:`function_events`.

        Parameters
        ----------
        path : str or path-like
            The file to write.
        """
        self._events("export_chrome_trace").export_chrome_trace(path)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        """:meth:`EventList.key_averages` of :attr:`function_events`.

        Parameters
        ----------
        group_by_input_shape : bool, optional
            Also group by input shapes.
        group_by_stack_n : int, optional
            Also group by the first ``n`` stack entries (0: not).
        group_by_overload_name : bool, optional
            Also group by the overload name.

        Returns
        -------
        EventList
            One :class:`FunctionEventAvg` per group.
        """
        return self._events("key_averages").key_averages(
            group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def total_average(self) -> FunctionEventAvg:
        """:meth:`EventList.total_average` of :attr:`function_events`.

        Returns
        -------
        FunctionEventAvg
            The sum of every event, key ``"Total"``.
        """
        return self._events("total_average").total_average()

    @property
    def self_cpu_time_total(self) -> float:
        """Total CPU time, microseconds: the sum of all events' self times."""
        return self._events("self_cpu_time_total").self_cpu_time_total

    def __repr__(self) -> str:
        if not self.enabled or self._function_events is None:
            return "<unfinished torch.autograd.profile>"
        return repr(self._function_events)

    def __str__(self) -> str:
        if not self.enabled or self._function_events is None:
            return "<unfinished torch.autograd.profile>"
        return str(self._function_events)


class record_function(contextlib.ContextDecorator):
    """Context manager and decorator that records a user range in the running profiles.

    ``torch.autograd.profiler.record_function``: the range is recorded in every profile
    running in the current thread (with none running, nothing); it is a
    :class:`FunctionEvent` with ``is_user_annotation=True`` and the operations run inside
    it are its children.  ``__enter__`` returns the object itself.

    Parameters
    ----------
    name : str
        The range's name.
    args : str, optional
        Kept as the ``args`` attribute, not recorded.
    """

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self.run_callbacks_on_exit = True
        # one [(session, token)] per nested entry
        self._active: list[list[tuple[_Session, object]]] = []

    def __enter__(self) -> record_function:
        sessions = _tls.sessions
        opened = []
        if sessions:
            frame = sys._getframe(1)
            for s in sessions:
                token = object()
                s.range_enter(self.name, token, frame)
                opened.append((s, token))
        self._active.append(opened)
        return self

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> Literal[False]:
        if not self.run_callbacks_on_exit:
            return False
        opened = self._active.pop() if self._active else []
        for s, token in opened:
            s.range_exit(token)
        return False


class emit_nvtx:
    """NVTX ranges for nvprof (``torch.autograd.profiler.emit_nvtx``); CUDA only.

    This layer runs on the CPU only, so -- as PyTorch's CPU build does
    (``torch.cuda.synchronize()`` fails) -- entering it raises.

    Parameters
    ----------
    enabled : bool, optional
        False makes it a no-op.
    record_shapes : bool, optional
        Recorded, no effect.

    Raises
    ------
    AssertionError
        On entering (``"Torch not compiled with CUDA enabled"``).
    RuntimeError
        On entering the same object again (not reentrant).
    """

    def __init__(self, enabled: bool = True, record_shapes: bool = False) -> None:
        self.enabled = enabled
        self.entered = False
        self.record_shapes = record_shapes

    def __enter__(self) -> None:
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError("NVTX annotation context manager is not reentrant")
        self.entered = True
        raise AssertionError("Torch not compiled with CUDA enabled (ftrans.compat runs on the "
                             "CPU only: emit_nvtx needs CUDA and nvprof; use "
                             "torch.autograd.profiler.profile to profile on the CPU)")

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> Literal[False]:
        return False


# ============================================================================== nvprof
def load_nvprof(path: str) -> EventList:
    """Read the autograd ranges of an nvprof trace (``torch.autograd.profiler.load_nvprof``).

    Parameters
    ----------
    path : str
        The nvprof SQLite file.

    Returns
    -------
    EventList
        Of :class:`FunctionEvent` (see :func:`parse_nvprof_trace`).
    """
    return EventList(parse_nvprof_trace(path))
