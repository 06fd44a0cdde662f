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

Cost: none when no profiler runs (no hook is installed; the engine reads one module
flag, ``_engine._profiling``, per backward call).  While one runs, ``sys.setprofile`` (current
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
"""
from __future__ import annotations

import contextlib
import enum
import inspect
import itertools
import json
import os
import sys
import threading
import time
import types
import warnings
from collections import defaultdict, namedtuple

from . import _engine, function

__all__ = ["profile", "record_function", "emit_nvtx", "load_nvprof", "parse_nvprof_trace",
           "EventList", "FunctionEvent", "FunctionEventAvg", "Interval", "Kernel",
           "DeviceType"]

# ``_engine._profiling``: the number of profiling sessions running (all threads).  Read by
# the engine (``_engine._run``): while it is non-zero every node goes through ``_run_node``,
# whose calls the profiler records.  Written only under ``_state_lock``.
_state_lock = threading.Lock()

_clock = time.perf_counter_ns


class DeviceType(enum.Enum):
    """The device of an event (PyTorch's ``torch.autograd.DeviceType``; CPU only here)."""
    CPU = 0


Kernel = namedtuple("Kernel", ["name", "device", "duration"])


# ============================================================================ formatting
def _format_time(time_us):
    """``time_us`` (microseconds) as PyTorch prints it: ``1.234s``, ``12.345ms`` or
    ``123.456us`` (three decimals, the largest unit the value reaches)."""
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us, total_time_us):
    """``time_us`` as a percentage of ``total_time_us`` (``"NaN"`` when the total is 0)."""
    if total_time_us == 0:
        if time_us != 0:
            raise AssertionError(f"Expected time_us == 0 but got {time_us}")
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


def _time_str(attr):
    return property(lambda self: _format_time(getattr(self, attr)))


class _Times:
    """Formatted-time properties shared by :class:`FunctionEvent` and
    :class:`FunctionEventAvg` (PyTorch's ``FormattedTimesMixin``)."""

    cpu_time_str = _time_str("cpu_time")
    cpu_time_total_str = _time_str("cpu_time_total")
    self_cpu_time_total_str = _time_str("self_cpu_time_total")
    device_time_str = _time_str("device_time")
    device_time_total_str = _time_str("device_time_total")
    self_device_time_total_str = _time_str("self_device_time_total")

    @property
    def cpu_time(self):
        """Average CPU time per call, microseconds."""
        return 0.0 if self.count == 0 else 1.0 * self.cpu_time_total / self.count

    @property
    def device_time(self):
        return 0.0 if self.count == 0 else 1.0 * self.device_time_total / self.count


class Interval:
    """A time range in microseconds: ``start``, ``end``, ``elapsed_us()``."""

    __slots__ = ("start", "end")

    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        """``end - start``, microseconds."""
        return self.end - self.start


# ================================================================================ events
class FunctionEvent(_Times):
    """One recorded range: an operation, a backward node or a :class:`record_function`.

    Fields as in PyTorch: ``id`` (1, 2, ... in start order), ``name`` (= ``key``),
    ``thread`` (1 for the first thread that profiled, 2 ...), ``time_range``
    (:class:`Interval`, microseconds from the start of the profile), ``count`` (1),
    ``cpu_parent``/``cpu_children`` (the enclosing event and the directly nested ones, same
    thread), ``input_shapes`` (with ``record_shapes``: one list of ints per argument, ``[]``
    for a non-tensor; else ``[]``), ``stack`` (with ``with_stack``: ``"file(line): function"``
    strings, innermost first, frames of ``ftrans`` itself left out; else ``[]``),
    ``scope`` (1 for a backward node, else 0), ``sequence_nr`` (a backward node's creation
    number, else -1), ``is_user_annotation`` (True for :class:`record_function`).
    ``cpu_time_total`` is the range's length, ``self_cpu_time_total`` that minus the
    children's totals, ``cpu_time`` the total per call (microseconds, floats).
    """

    def __init__(self, id, name, thread, start_us, end_us, overload_name=None,  # noqa: A002
                 fwd_thread=None, input_shapes=None, stack=None, scope=0, use_device=None,
                 cpu_memory_usage=0, device_memory_usage=0, is_async=False, is_remote=False,
                 sequence_nr=-1, node_id=-1, device_type=DeviceType.CPU, device_index=0,
                 is_legacy=False, flops=None, trace_name=None, is_user_annotation=False):
        self.id = id
        self.node_id = node_id
        self.name = name
        self.overload_name = overload_name
        self.trace_name = name if trace_name is None else trace_name
        self.time_range = Interval(start_us, end_us)
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.kernels = []
        self.count = 1
        self.cpu_children = []
        self.cpu_parent = None
        self.input_shapes = input_shapes
        self.stack = stack
        self.scope = scope
        self.use_device = use_device
        self.cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = device_memory_usage
        self.is_async = is_async
        self.is_remote = is_remote
        self.sequence_nr = sequence_nr
        self.device_type = device_type
        self.device_index = device_index
        self.is_legacy = is_legacy
        self.flops = flops
        self.is_user_annotation = is_user_annotation
        self.self_cpu_percent = -1
        self.total_cpu_percent = -1
        self.total_device_percent = -1

    def append_kernel(self, name, device, duration):
        """Attach a device kernel (``load_nvprof``)."""
        self.kernels.append(Kernel(name, device, duration))

    def append_cpu_child(self, child):
        """Add ``child`` (a :class:`FunctionEvent` directly inside this one)."""
        if not isinstance(child, FunctionEvent):
            raise AssertionError("Expected child to be a FunctionEvent")
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        """Set the event directly enclosing this one."""
        if not isinstance(parent, FunctionEvent):
            raise AssertionError("Expected parent to be a FunctionEvent")
        self.cpu_parent = parent

    @property
    def key(self):
        return self.name

    @property
    def cpu_time_total(self):
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        if self.is_async:
            return 0
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def self_cpu_memory_usage(self):
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    device_time_total = self_device_time_total = 0
    self_device_memory_usage = 0

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} overload_name={self.overload_name} "
                f"device_type={self.device_type} node_id={self.node_id} "
                f"cpu_time={self.cpu_time_str} start_us={self.time_range.start} "
                f"end_us={self.time_range.end} "
                f"cpu_children={str([c.id for c in self.cpu_children])} "
                f"{self.use_device}_time={self.device_time_str} name={self.name} "
                f"thread={self.thread} input_shapes={str(self.input_shapes)} "
                f"cpu_memory_usage={self.cpu_memory_usage} "
                f"{self.use_device}_memory_usage={self.device_memory_usage} "
                f"is_async={self.is_async} is_remote={self.is_remote} "
                f"seq_nr={self.sequence_nr} is_legacy={self.is_legacy}>")


class FunctionEventAvg(_Times):
    """Statistics summed over the events of one group (:meth:`EventList.key_averages`):
    ``key``, ``count``, ``cpu_time_total``, ``self_cpu_time_total`` (microseconds),
    ``cpu_time`` (total per call), ``input_shapes`` (the group's shapes with
    ``group_by_input_shape``, else ``""``), ``stack`` (its first ``group_by_stack_n``
    entries), and the fields of the group's first event (``is_user_annotation``, ...)."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device = None
        self.cpu_time_total = 0
        self.device_time_total = 0
        self.self_cpu_time_total = 0
        self.self_device_time_total = 0
        self.input_shapes = None
        self.overload_name = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.device_type = DeviceType.CPU
        self.is_legacy = False
        self.is_user_annotation = False
        self.flops = 0

    def add(self, other):
        """Add the times and count of ``other`` (a :class:`FunctionEvent` or
        :class:`FunctionEventAvg` with the same ``key``; ``AssertionError`` otherwise)."""
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError("Expected other to be a FunctionEvent or FunctionEventAvg")
        if self.key is None:
            self.key = other.key
            for a in ("node_id", "is_async", "is_remote", "cpu_parent", "cpu_children",
                      "overload_name", "input_shapes", "stack", "scope", "device_type",
                      "is_legacy", "use_device", "is_user_annotation"):
                setattr(self, a, getattr(other, a))
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match, but got {other.key} vs {self.key}")
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.count += other.count
        if other.flops:
            self.flops = (self.flops or 0) + other.flops
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        dev = "cuda" if not self.use_device else self.use_device
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str}  self_{dev}_time={self.self_device_time_total_str}"
                f" {dev}_time={self.device_time_str} input_shapes={str(self.input_shapes)} "
                f"cpu_memory_usage={self.cpu_memory_usage} "
                f"{dev}_memory_usage={self.device_memory_usage}>")


class EventList(list):
    """A list of :class:`FunctionEvent` (or :class:`FunctionEventAvg`) with PyTorch's
    summaries: :meth:`table`, :meth:`key_averages`, :meth:`total_average`,
    :meth:`export_chrome_trace`, :attr:`self_cpu_time_total`."""

    def __init__(self, *args, **kwargs):
        self._use_device = kwargs.pop("use_device", None)
        self._profile_memory = kwargs.pop("profile_memory", False)
        self._with_flops = kwargs.pop("with_flops", False)
        self._tree_built = kwargs.pop("_tree_built", False)
        super().__init__(*args, **kwargs)

    def __str__(self):
        return self.table()

    def _build_tree(self):
        """Nest the events by time range, per thread (PyTorch's ``_populate_cpu_children``:
        an event is a child of the innermost earlier event whose range contains it).  The
        profiler nests its events while recording; this serves lists built otherwise
        (:func:`load_nvprof`)."""
        if self._tree_built:
            return
        by_thread = defaultdict(list)
        for e in self:
            if isinstance(e, FunctionEvent) and not e.is_async:
                by_thread[(e.thread, e.node_id)].append(e)
        for evs in by_thread.values():
            evs.sort(key=lambda e: (e.time_range.start, -e.time_range.end))
            cur = []
            for e in evs:
                while cur:
                    p = cur[-1]
                    r, pr = e.time_range, p.time_range
                    if r.start >= pr.end or r.end > pr.end:
                        cur.pop()
                    else:
                        if e.cpu_parent is None:
                            p.append_cpu_child(e)
                            e.set_cpu_parent(p)
                        break
                cur.append(e)
        self._tree_built = True

    @property
    def self_cpu_time_total(self):
        """Sum of the events' self CPU times, microseconds."""
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        """The events as PyTorch's table (a string; ``""`` for no events).

        Columns: Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg,
        # of Calls, then Input Shapes when an event has shapes and Source Location when one
        has a stack; percentages are of the sum of the listed events' self CPU times,
        printed in the footer ``Self CPU time total: ...``.  ``sort_by``: an attribute of the
        events, largest first (``cpu_time_total``, ``self_cpu_time_total``, ``cpu_time``,
        ``count`` ...; ``cuda``/``xpu`` in the name read as ``device``); ``AttributeError``
        for an unknown one.  ``row_limit`` rows at most; ``top_level_events_only``: only
        events without a CPU parent; ``time_unit``: ``"s"``, ``"ms"`` or ``"us"`` for every
        time (default: per value, as :func:`_format_time`)."""
        return _build_table(self, sort_by=sort_by, header=header, row_limit=row_limit,
                            max_src_column_width=max_src_column_width,
                            max_name_column_width=max_name_column_width,
                            max_shapes_column_width=max_shapes_column_width,
                            top_level_events_only=top_level_events_only, time_unit=time_unit)

    def export_chrome_trace(self, path):
        """Write the events to ``path`` as a Chrome trace (``chrome://tracing``, Perfetto):
        a JSON object whose ``"traceEvents"`` hold one complete event per range --
        ``{"ph": "X", "cat": "cpu_op" | "user_annotation", "name", "pid", "tid", "ts", "dur",
        "args"}`` with ``ts``/``dur`` in microseconds (``ts`` from the start of the profile)
        and ``args`` carrying ``"Input Dims"`` when shapes were recorded and the backward
        node's ``"Sequence number"``."""
        pid = os.getpid()
        out = []
        for e in self:
            if not isinstance(e, FunctionEvent):
                continue
            args = {}
            if e.input_shapes:
                args["Input Dims"] = e.input_shapes
            if e.sequence_nr >= 0:
                args["Sequence number"] = e.sequence_nr
            out.append({"ph": "X",
                        "cat": "user_annotation" if e.is_user_annotation else "cpu_op",
                        "name": e.trace_name, "pid": pid,
                        "tid": getattr(e, "_tid", e.thread), "ts": e.time_range.start,
                        "dur": e.time_range.elapsed_us(), "args": args})
        with open(path, "w") as f:
            json.dump({"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": out}, f)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """One :class:`FunctionEventAvg` per group of events (an :class:`EventList`, groups
        in order of first appearance).  Events group by ``key`` (and whether they are user
        annotations), with ``group_by_input_shapes`` also by input shapes, with
        ``group_by_stack_n=n`` also by the first ``n`` stack entries -- PyTorch's keys."""
        self._build_tree()
        stats = defaultdict(FunctionEventAvg)
        for e in self:
            k = [str(e.key), str(e.node_id), str(e.device_type), str(e.is_legacy),
                 str(e.is_user_annotation)]
            if group_by_overload_name:
                k.append(str(e.overload_name))
            if group_by_input_shapes:
                k.append(str(e.input_shapes))
            if group_by_stack_n > 0:
                k += (e.stack or [])[:group_by_stack_n]
            stats[tuple(k)].add(e)
        avg = EventList(stats.values(), use_device=self._use_device,
                        profile_memory=self._profile_memory, with_flops=self._with_flops,
                        _tree_built=True)
        for e in avg:
            e.stack = (e.stack or [])[:group_by_stack_n]
            if not group_by_input_shapes:
                e.input_shapes = ""
            if not group_by_overload_name:
                e.overload_name = ""
        return avg

    def total_average(self):
        """A :class:`FunctionEventAvg` with key ``"Total"`` summing every event."""
        total = FunctionEventAvg()
        for e in self:
            total += e
            total.key = None
        total.key = "Total"
        return total


def _build_table(events, sort_by=None, header=None, row_limit=100, max_src_column_width=75,
                 max_name_column_width=55, max_shapes_column_width=80,
                 top_level_events_only=False, time_unit=None):
    """PyTorch's ``profiler_util._build_table`` for CPU-only events (see
    :meth:`EventList.table`)."""
    if len(events) == 0:
        return ""
    has_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    if sort_by is not None:
        attr = sort_by.replace("cuda", "device").replace("xpu", "device")
        events = sorted(events, key=lambda e: getattr(e, attr), reverse=True)
    name_w = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_w = min(name_w, max_name_column_width)
    shapes_w = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_w = min(shapes_w, max_shapes_column_width)
    stacks = [e.stack for e in events if e.stack]
    src_w = None
    if stacks:
        src_w = max(max(len(s) for s in st) for st in stacks) + 4
        if max_src_column_width is not None:
            src_w = min(src_w, max_src_column_width)

    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
               "# of Calls"]
    widths = [(name_w, ">")] + [(12, ">")] * 6
    if has_shapes:
        headers.append("Input Shapes")
        widths.append((shapes_w, ">"))
    if stacks:
        headers.append("Source Location")
        widths.append((src_w, "<"))
    row_format = "".join("{: " + d + str(w) + "}  " for w, d in widths)
    header_sep = "".join("-" * w + "  " for w, _ in widths)
    line_length = sum(w + 2 for w, _ in widths) - 2

    def fmt(t):
        if time_unit == "s":
            return f"{t / 1e6:.3f}s"
        if time_unit == "ms":
            return f"{t / 1e3:.3f}ms"
        if time_unit == "us":
            return f"{t:.3f}us"
        return _format_time(t)

    def trim_path(path):
        if len(path) > src_w:
            path = path[len(path) - src_w:]
            if len(path) > 3:
                path = "..." + path[3:]
        return path

    total = sum(e.self_cpu_time_total for e in events)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [header_sep, row_format.format(*headers), header_sep]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        e.self_cpu_percent = _format_time_share(e.self_cpu_time_total, total)
        e.total_cpu_percent = (_format_time_share(e.cpu_time_total, total)
                               if not e.is_async else 0)
        row = [name, e.self_cpu_percent, fmt(e.self_cpu_time_total), e.total_cpu_percent,
               fmt(e.cpu_time_total), fmt(e.cpu_time), e.count]
        if has_shapes:
            row.append(str(e.input_shapes)[:shapes_w])
        if stacks:
            row.append(trim_path(e.stack[0]) if e.stack else "")
        lines.append(row_format.format(*row))
        if stacks:
            blank = [""] * (len(headers) - 1)
            for entry in (e.stack or [])[1:]:
                lines.append(row_format.format(*(blank + [trim_path(entry)])))
            lines.append(row_format.format(*(blank + [""])))
    lines += [header_sep, f"Self CPU time total: {fmt(total)}"]
    return "".join(s + "\n" for s in lines)


# ====================================================================== operation table
# Names PyTorch gives the ATen operator of an alias (compat binds the alias to the same
# function object, so the canonical name is the one recorded).
_ALIASES = {
    "absolute": "abs", "negative": "neg", "arcsin": "asin", "arccos": "acos",
    "arctan": "atan", "arctan2": "atan2", "multiply": "mul", "divide": "div",
    "true_divide": "div", "subtract": "sub", "clip": "clamp", "swapaxes": "transpose",
    "swapdims": "transpose", "moveaxis": "movedim", "concat": "cat", "concatenate": "cat",
    "ger": "outer", "greater": "gt", "less": "lt", "greater_equal": "ge",
    "less_equal": "le", "not_equal": "ne",
    "multiply_": "mul_", "divide_": "div_", "subtract_": "sub_", "clip_": "clamp_",
    "float": "to", "double": "to", "half": "to", "long": "to", "int": "to", "short": "to",
    "bool": "to", "byte": "to", "cfloat": "to", "cdouble": "to", "tensor": "lift_fresh",
}
# operators of Tensor and the operator they run (None: named by the index, see _index_name)
_DUNDERS = {
    "__add__": "add", "__radd__": "add", "__sub__": "sub", "__rsub__": "rsub",
    "__mul__": "mul", "__rmul__": "mul", "__truediv__": "div", "__rtruediv__": "div",
    "__floordiv__": "floor_divide", "__rfloordiv__": "floor_divide",
    "__mod__": "remainder", "__rmod__": "remainder", "__pow__": "pow", "__rpow__": "pow",
    "__matmul__": "matmul", "__rmatmul__": "matmul", "__neg__": "neg", "__abs__": "abs",
    "__invert__": "bitwise_not", "__eq__": "eq", "__ne__": "ne", "__lt__": "lt",
    "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__and__": "bitwise_and",
    "__or__": "bitwise_or", "__xor__": "bitwise_xor", "__rand__": "bitwise_and",
    "__ror__": "bitwise_or", "__rxor__": "bitwise_xor", "__getitem__": None,
    "__setitem__": "index_put_", "__iadd__": "add_", "__isub__": "sub_",
    "__imul__": "mul_", "__itruediv__": "div_", "__ipow__": "pow_",
}
# public functions and methods that are not operations (queries, settings, hooks ...)
_NOT_OPS = frozenset({
    "size", "dim", "ndimension", "numel", "nelement", "is_floating_point", "is_complex",
    "element_size", "type", "stride", "is_contiguous", "data_ptr", "is_inference",
    "requires_grad_", "retain_grad", "register_hook", "register_post_accumulate_grad_hook",
    "backward", "numpy", "tolist", "cpu", "cuda", "get_default_dtype", "set_default_dtype",
    "is_anomaly_check_nan_enabled", "is_anomaly_enabled", "set_anomaly_enabled", "is_conj",
    "is_neg", "is_grad_enabled", "is_inference_mode_enabled", "is_tensor", "manual_seed",
    "seed", "initial_seed", "promote_types", "result_type", "set_printoptions",
    "from_numpy", "as_tensor",
})

_STATIC, _SHARED, _INDEX, _NODE, _ACC, _FUNCTION = range(6)
_EVAL = "autograd::engine::evaluate_function: "


class _Entry:
    """How to name a call of one code object: ``kind`` (one of the constants above),
    ``name`` (static), ``free``/``sigs`` (closures sharing the code: the ids of the
    free variables' values -> name), ``args`` (parameter names read for the shapes),
    ``varargs`` (the ``*args`` parameter or None)."""

    __slots__ = ("kind", "name", "free", "sigs", "args", "varargs")

    def __init__(self, kind, code, name=None):
        self.kind = kind
        self.name = name
        self.free = code.co_freevars
        self.sigs = {}
        self.args = code.co_varnames[:code.co_argcount]
        self.varargs = (code.co_varnames[code.co_argcount + code.co_kwonlyargcount]
                        if code.co_flags & inspect.CO_VARARGS else None)


_table = []     # [ {code: _Entry} ], built on the first profile
_tensor_cls = []


def _index_name(idx):
    """The ATen operator PyTorch runs for ``x[idx]``."""
    import numbers
    items = idx if type(idx) is tuple else (idx,)
    kinds = set()
    for i in items:
        if i is None:
            kinds.add("unsqueeze")
        elif i is Ellipsis:
            continue
        elif isinstance(i, numbers.Integral) and not isinstance(i, bool):
            kinds.add("select")
        elif isinstance(i, slice):
            kinds.add("slice")
        else:
            return "index"
    if "slice" in kinds:
        return "slice"
    if kinds == {"unsqueeze"}:
        return "unsqueeze"
    return "select" if "select" in kinds else "alias"


def _sig(fn):
    cells = fn.__closure__ or ()
    return tuple(id(c.cell_contents) for c in cells)


def _build_table_of_ops():
    """{code object: _Entry} for the public operations of ``ftrans.compat``, the methods
    and operators of ``Tensor``, ``autograd.Function.apply`` and the engine's node
    runners."""
    from ... import compat  # deferred: the package's namespace, complete only after this module
    T = compat.Tensor
    regs = []   # (function, canonical name or None for an index)
    for name in dir(compat):
        if name.startswith("_") or name in _NOT_OPS:
            continue
        obj = getattr(compat, name)
        if isinstance(obj, types.FunctionType):
            regs.append((obj, _ALIASES.get(name, name)))
    for name, obj in vars(T).items():
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        if not isinstance(obj, types.FunctionType):
            continue
        if name.startswith("_"):
            if name not in _DUNDERS:
                continue
            regs.append((obj, _DUNDERS[name]))
        elif name not in _NOT_OPS:
            regs.append((obj, _ALIASES.get(name, name)))
    groups = {}
    for fn, name in regs:
        groups.setdefault((fn.__code__, _sig(fn)), []).append((fn, name))
    table = {}
    for (code, sig), items in groups.items():
        # identical closures registered under several names: the name the function gives
        # itself, else the first (``empty`` is compat's ``zeros``: recorded as zeros)
        names = sorted((n for _, n in items), key=lambda n: n in ("empty", "empty_like"))
        own = _ALIASES.get(items[0][0].__name__, items[0][0].__name__)
        name = own if own in names else names[0]
        kind = _INDEX if name is None else (_SHARED if code.co_freevars else _STATIC)
        name = None if name is None else "aten::" + name
        e = table.get(code)
        if e is None:
            e = table[code] = _Entry(kind, code, name)
        if kind == _SHARED:
            e.sigs.setdefault(sig, name)
    table[_engine._run_node.__code__] = _Entry(_NODE, _engine._run_node.__code__)
    table[_engine._run_acc.__code__] = _Entry(_ACC, _engine._run_acc.__code__)
    apply = function.Function.apply.__func__.__code__
    table[apply] = _Entry(_FUNCTION, apply)
    _tensor_cls.append(T)
    return table


def _op_table():
    if not _table:
        _table.append(_build_table_of_ops())
    return _table[0]


def _shape(v, T):
    if isinstance(v, T):
        return list(v._data.shape)
    s = getattr(v, "shape", None)
    if type(s) is tuple and hasattr(v, "dtype"):  # a NumPy array (backward gradients)
        return list(s)
    return []


_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep


def _stack(frame):
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
    def __init__(self):
        self.sessions = []    # running sessions of this thread, outermost first
        self.thread = None    # this thread's ordinal (FunctionEvent.thread)


_tls = _TLS()
_thread_ids = itertools.count(1)


class _Session:
    """The recording of one :class:`profile` in one thread."""

    def __init__(self, record_shapes, with_stack):
        if _tls.thread is None:
            _tls.thread = next(_thread_ids)
        self.thread = _tls.thread
        self.tid = threading.get_native_id()
        self.record_shapes = record_shapes
        self.with_stack = with_stack
        self.events = []
        self.open = []     # [(frame or record_function token, event)], innermost last
        self.table = _op_table()
        self.T = _tensor_cls[0]
        self.t0 = _clock()

    # ------------------------------------------------------------- event creation
    def _new(self, name, parent, shapes, stack, scope=0, seq=-1, user=False):
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

    def call(self, frame, ent):
        """A call of a mapped code object: open its event(s) unless it is a wrapper layer."""
        kind = ent.kind
        loc = None
        shapes_of = None
        scope = 0
        seq = -1
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

    def ret(self, frame):
        """The return (or exception exit) of ``frame``: close its open event(s)."""
        t = _clock()
        open_ = self.open
        while open_ and open_[-1][0] is frame:
            open_.pop()[1]._end = t

    def range_enter(self, name, token, frame):
        """Open a user range (:class:`record_function`)."""
        open_ = self.open
        parent = open_[-1][1] if open_ else None
        stack = _stack(frame) if self.with_stack and frame is not None else []
        e = self._new(name, parent, [], stack, user=True)
        open_.append((token, e))
        e._start = _clock()

    def range_exit(self, token):
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

    def finish(self):
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


def _make_hook(sess, old):
    """The ``sys.setprofile`` function of ``sess`` (chained to ``old``)."""
    get = sess.table.get
    call = sess.call
    ret = sess.ret

    def hook(frame, event, arg):
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

    Example (the reference's)::

        x = torch.randn((1, 1), requires_grad=True)
        with torch.autograd.profiler.profile() as prof:
            for _ in range(100):
                y = x ** 2
                y.backward()
        print(prof.key_averages().table(sort_by="self_cpu_time_total"))
    """

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None, post_processing_timeout_s=None,
                 activity_filters=None):
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
        self._session = None
        self._hook = None
        self._old_hook = None
        self._function_events = None

    def _check_enabled(self, what):
        if not self.enabled:
            raise AttributeError(f"'profile' object has no attribute '{what}': "
                                 "profile(enabled=False) records nothing; create it with "
                                 "enabled=True to get results")

    def __enter__(self):
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        sess = self._session = _Session(self.record_shapes, self.with_stack)
        self._old_hook = old = sys.getprofile()
        self._hook = _make_hook(sess, old)
        with _state_lock:
            _engine._profiling += 1
        _tls.sessions.append(sess)
        sess.t0 = _clock()
        sys.setprofile(self._hook)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return False
        sess = self._session
        if sess is None:
            return False
        sys.setprofile(self._old_hook)
        with _state_lock:
            _engine._profiling -= 1
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
    def function_events(self):
        """The recorded events (an :class:`EventList` of :class:`FunctionEvent`, start
        order); empty while the profile runs."""
        self._check_enabled("function_events")
        if self._function_events is None:
            return EventList(use_device=self.use_device, _tree_built=True)
        return self._function_events

    def _events(self, what):
        self._check_enabled(what)
        return self.function_events

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False):
        """:meth:`EventList.table` of :attr:`function_events`."""
        return self._events("table").table(
            sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width, header=header,
            top_level_events_only=top_level_events_only)

    def export_chrome_trace(self, path):
        """:meth:`EventList.export_chrome_trace` of :attr:`function_events`."""
        return self._events("export_chrome_trace").export_chrome_trace(path)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """:meth:`EventList.key_averages` of :attr:`function_events` (an :class:`EventList`
        of :class:`FunctionEventAvg`)."""
        return self._events("key_averages").key_averages(
            group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def total_average(self):
        """:meth:`EventList.total_average` of :attr:`function_events`."""
        return self._events("total_average").total_average()

    @property
    def self_cpu_time_total(self):
        """Total CPU time, microseconds: the sum of all events' self times."""
        return self._events("self_cpu_time_total").self_cpu_time_total

    def __repr__(self):
        if not self.enabled or self._function_events is None:
            return "<unfinished torch.autograd.profile>"
        return repr(self._function_events)

    def __str__(self):
        if not self.enabled or self._function_events is None:
            return "<unfinished torch.autograd.profile>"
        return str(self._function_events)


class record_function(contextlib.ContextDecorator):
    """Context manager and decorator that records a user range named ``name`` in every
    profile running in the current thread (``torch.autograd.profiler.record_function``);
    with none running it records nothing.  The range is a :class:`FunctionEvent` with
    ``is_user_annotation=True``; the operations run inside it are its children.
    ``args`` (a string) is kept as the ``args`` attribute, not recorded.
    ``__enter__`` returns the object itself."""

    def __init__(self, name: str, args: str | None = None):
        self.name = name
        self.args = args
        self.run_callbacks_on_exit = True
        self._active = []   # one [(session, token)] per nested entry

    def __enter__(self):
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

    def __exit__(self, exc_type, exc_value, traceback):
        if not self.run_callbacks_on_exit:
            return False
        opened = self._active.pop() if self._active else ()
        for s, token in opened:
            s.range_exit(token)
        return False


class emit_nvtx:
    """``torch.autograd.profiler.emit_nvtx``: NVTX ranges for nvprof.  This layer runs on
    the CPU only, so -- as PyTorch's CPU build does (``torch.cuda.synchronize()`` fails) --
    entering it raises ``AssertionError("Torch not compiled with CUDA enabled")``;
    ``enabled=False`` makes it a no-op; entering the same object again raises
    ``RuntimeError("NVTX annotation context manager is not reentrant")``."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.entered = False
        self.record_shapes = record_shapes

    def __enter__(self):
        if not self.enabled:
            return None
        if self.entered:
            raise RuntimeError("NVTX annotation context manager is not reentrant")
        self.entered = True
        raise AssertionError("Torch not compiled with CUDA enabled (ftrans.compat runs on the "
                             "CPU only: emit_nvtx needs CUDA and nvprof; use "
                             "torch.autograd.profiler.profile to profile on the CPU)")

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False


# ============================================================================== nvprof
def load_nvprof(path):
    """Read the autograd ranges of an nvprof trace (SQLite file ``path``): an
    :class:`EventList` of :class:`FunctionEvent` (see :func:`parse_nvprof_trace`)."""
    return EventList(parse_nvprof_trace(path))


class EnforceUnique:
    """Raises ``RuntimeError("duplicate key: ...")`` if a key is seen twice."""

    def __init__(self):
        self.seen = set()

    def see(self, *key):
        if key in self.seen:
            raise RuntimeError("duplicate key: " + str(key))
        self.seen.add(key)


def parse_nvprof_trace(path):
    """PyTorch's ``parse_nvprof_trace``: one :class:`FunctionEvent` per NVTX marker range
    (``CUPTI_ACTIVITY_KIND_MARKER`` rows paired by id; name from ``StringTable``, times
    as stored, ``thread=0``, ``node_id=0``), with the kernels launched inside it
    (``CUPTI_ACTIVITY_KIND_RUNTIME`` launch within the range, correlated to
    ``CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL``) attached; sorted by start.  Names are not
    demangled (PyTorch demangles C++ symbols with its C++ runtime).  Raises
    ``sqlite3.OperationalError`` for a file without these tables, ``RuntimeError`` for a
    duplicate marker id, ``AssertionError`` for a launch whose ``cbid`` is not 211
    (``cudaLaunchKernel``)."""
    import sqlite3
    conn = sqlite3.connect(path)
    try:
        conn.row_factory = sqlite3.Row
        strings = {r["id"]: r["value"]
                   for r in conn.execute("SELECT _id_ as id, value FROM StringTable")}
        marker_query = """
        SELECT
            start.id AS marker_id, start.name, start.timestamp AS start_time,
            end.timestamp AS end_time
        FROM
            CUPTI_ACTIVITY_KIND_MARKER AS start INNER JOIN CUPTI_ACTIVITY_KIND_MARKER AS end
            ON start.id = end.id
        WHERE
            start.name != 0 AND end.name = 0
        """
        functions = []
        by_id = {}
        unique = EnforceUnique()
        for row in conn.execute(marker_query):
            unique.see(row["marker_id"])
            evt = FunctionEvent(id=row["marker_id"], node_id=0, name=strings[row["name"]],
                                start_us=row["start_time"], end_us=row["end_time"], thread=0)
            functions.append(evt)
            by_id[evt.id] = evt
        kernel_query = """
        SELECT
            start.id AS marker_id, start.name, start.timestamp, end.timestamp,
            runtime._id_ AS runtime_id, runtime.cbid, runtime.start AS runtime_start,
            runtime.end AS runtime_end, kernel.start AS kernel_start,
            kernel.end AS kernel_end, kernel.name AS kernel_name
        FROM
            CUPTI_ACTIVITY_KIND_MARKER AS start
            INNER JOIN CUPTI_ACTIVITY_KIND_MARKER AS end
                ON start.id = end.id
            INNER JOIN CUPTI_ACTIVITY_KIND_RUNTIME as runtime
                ON (start.timestamp < runtime.start AND runtime.end < end.timestamp)
            INNER JOIN CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL AS kernel
                ON kernel.correlationId = runtime.correlationId
        """
        unique = EnforceUnique()
        for row in conn.execute(kernel_query):
            unique.see(row["marker_id"], row["runtime_id"])
            if row["cbid"] != 211:  # cudaLaunchKernel for CUDA >= 9.2
                raise AssertionError(f"Expected cbid to be 211, but got {row['cbid']}")
            by_id[row["marker_id"]].append_kernel(row["kernel_name"], 0,
                                                  row["kernel_end"] - row["kernel_start"])
    finally:
        conn.close()
    functions.sort(key=lambda e: e.time_range.start)
    return functions
