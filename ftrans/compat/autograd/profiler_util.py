"""The events of the compat profiler (:mod:`ftrans.compat.autograd.profiler`), as PyTorch's
``torch.autograd.profiler_util`` has them: :class:`FunctionEvent`, :class:`FunctionEventAvg`,
:class:`EventList` (``table``, ``key_averages``, ``export_chrome_trace`` ...), the time
formatting of its tables, and the nvprof trace parser (:func:`parse_nvprof_trace`)."""
from __future__ import annotations

import enum
import json
import os
from collections import defaultdict
from typing import Any, NamedTuple

from ._profiler_table import _build_table, _format_time, _format_time_share  # noqa: F401


__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "Interval", "Kernel", "DeviceType",
           "EnforceUnique", "parse_nvprof_trace"]


class DeviceType(enum.Enum):
    """The device of an event (PyTorch's ``torch.autograd.DeviceType``; CPU only here).

    Parameters
    ----------
    value : int
        The member's value: ``DeviceType(0)`` is ``DeviceType.CPU``.
    names, module, qualname, type, start, boundary : optional
        :class:`enum.Enum`'s functional API.
    """
    CPU = 0


class Kernel(NamedTuple):
    """A device kernel attached to an event (``FunctionEvent.kernels``).

    Parameters
    ----------
    name : str
        The kernel's name.
    device : int
        The device index.
    duration : float
        Its duration, microseconds.
    """

    name: str
    device: int
    duration: float


class _Times:
    """Formatted-time properties shared by :class:`FunctionEvent` and
    :class:`FunctionEventAvg` (PyTorch's ``FormattedTimesMixin``)."""

    count: int
    cpu_time_total: float
    self_cpu_time_total: float
    device_time_total: float
    self_device_time_total: float

    @property
    def cpu_time_str(self) -> str:
        """``cpu_time`` formatted as PyTorch prints it (``12.345ms``)."""
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self) -> str:
        """``cpu_time_total`` formatted as PyTorch prints it."""
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self) -> str:
        """``self_cpu_time_total`` formatted as PyTorch prints it."""
        return _format_time(self.self_cpu_time_total)

    @property
    def device_time_str(self) -> str:
        """``device_time`` formatted as PyTorch prints it."""
        return _format_time(self.device_time)

    @property
    def device_time_total_str(self) -> str:
        """``device_time_total`` formatted as PyTorch prints it."""
        return _format_time(self.device_time_total)

    @property
    def self_device_time_total_str(self) -> str:
        """``self_device_time_total`` formatted as PyTorch prints it."""
        return _format_time(self.self_device_time_total)

    @property
    def cpu_time(self) -> float:
        """Average CPU time per call, microseconds."""
        return 0.0 if self.count == 0 else 1.0 * self.cpu_time_total / self.count

    @property
    def device_time(self) -> float:
        """Average device time per call, microseconds (0 here: CPU only)."""
        return 0.0 if self.count == 0 else 1.0 * self.device_time_total / self.count


class Interval:
    """A time range in microseconds: ``start``, ``end``, ``elapsed_us()``.

    Parameters
    ----------
    start : float
        Start, microseconds.
    end : float
        End, microseconds.
    """

    __slots__ = ("start", "end")

    def __init__(self, start: float, end: float) -> None:
        self.start = start
        self.end = end

    def elapsed_us(self) -> float:
        """The length of the range.

        Returns
        -------
        float
            ``end - start``, microseconds.
        """
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

    Parameters
    ----------
    id : int
        The event's number.
    name : str
        Its name (the operation's, the node's or the ``record_function``'s).
    thread : int
        The profiled thread's number.
    start_us, end_us : float
        Its range, microseconds from the start of the profile.
    overload_name : str, optional
        PyTorch's operator overload name.
    fwd_thread : int, optional
        The thread of the forward operation (PyTorch's; unused here).
    input_shapes : list, optional
        One shape (list of int) per argument, with ``record_shapes``.
    stack : list of str, optional
        ``"file(line): function"`` strings, innermost first, with ``with_stack``.
    scope : int, optional
        1 for a backward node, else 0.
    use_device : str, optional
        The profiled device (None: CPU only).
    cpu_memory_usage, device_memory_usage : int, optional
        Bytes allocated (0 here: memory is not profiled).
    is_async, is_remote : bool, optional
        PyTorch's flags (False here).
    sequence_nr : int, optional
        A backward node's creation number, else -1.
    node_id : int, optional
        PyTorch's distributed node id (-1).
    device_type : DeviceType, optional
        The device of the event (CPU).
    device_index : int, optional
        The device index (0).
    is_legacy : bool, optional
        PyTorch's flag for legacy-profiler events.
    flops : int, optional
        Floating point operations (not counted here).
    trace_name : str, optional
        The name in a Chrome trace; ``name`` by default.
    is_user_annotation : bool, optional
        True for a :class:`record_function` range.
    """

    # set by the profiler while recording (its thread id, its clock readings)
    _tid: int
    _start: int | None
    _end: int | None

    def __init__(self, id: int, name: str, thread: int, start_us: float,  # noqa: A002
                 end_us: float, overload_name: str | None = None, fwd_thread: int | None = None,
                 input_shapes: list[Any] | None = None, stack: list[str] | None = None,
                 scope: int = 0, use_device: str | None = None, cpu_memory_usage: int = 0,
                 device_memory_usage: int = 0, is_async: bool = False, is_remote: bool = False,
                 sequence_nr: int = -1, node_id: int = -1,
                 device_type: DeviceType = DeviceType.CPU, device_index: int = 0,
                 is_legacy: bool = False, flops: int | None = None,
                 trace_name: str | None = None, is_user_annotation: bool = False) -> None:
        self.id = id
        self.node_id = node_id
        self.name = name
        self.overload_name = overload_name
        self.trace_name = name if trace_name is None else trace_name
        self.time_range = Interval(start_us, end_us)
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.kernels: list[Kernel] = []
        self.count = 1
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
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
        self.self_cpu_percent: str | int = -1
        self.total_cpu_percent: str | int = -1
        self.total_device_percent: str | int = -1

    def append_kernel(self, name: str, device: int, duration: float) -> None:
        """Attach a device kernel (``load_nvprof``).

        Parameters
        ----------
        name : str
            The kernel's name.
        device : int
            The device index.
        duration : float
            Its duration, microseconds.
        """
        self.kernels.append(Kernel(name, device, duration))

    def append_cpu_child(self, child: FunctionEvent) -> None:
        """Add an event directly inside this one.

        Parameters
        ----------
        child : FunctionEvent
            The nested event.

        Raises
        ------
        AssertionError
            If ``child`` is not a :class:`FunctionEvent`.
        """
        if not isinstance(child, FunctionEvent):
            raise AssertionError("Expected child to be a FunctionEvent")
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent: FunctionEvent) -> None:
        """Set the event directly enclosing this one.

        Parameters
        ----------
        parent : FunctionEvent
            The enclosing event.

        Raises
        ------
        AssertionError
            If ``parent`` is not a :class:`FunctionEvent`.
        """
        if not isinstance(parent, FunctionEvent):
            raise AssertionError("Expected parent to be a FunctionEvent")
        self.cpu_parent = parent

    @property
    def key(self) -> str:
        """The grouping key: the event's name."""
        return self.name

    @property
    def cpu_time_total(self) -> float:  # type: ignore[override]  # read-only here
        """The range's length, microseconds."""
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self) -> float:  # type: ignore[override]  # read-only here
        """``cpu_time_total`` minus the children's, microseconds (0 for an async event)."""
        if self.is_async:
            return 0
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def self_cpu_memory_usage(self) -> int:
        """``cpu_memory_usage`` minus the children's, bytes."""
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    device_time_total = self_device_time_total = 0.0
    self_device_memory_usage = 0

    def __repr__(self) -> str:
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

    def __init__(self) -> None:
        self.key: str | None = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device: str | None = None
        self.cpu_time_total = 0.0
        self.device_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.self_device_time_total = 0.0
        self.input_shapes: Any = None
        self.overload_name: str | None = None
        self.stack: list[str] | None = None
        self.scope: int | None = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_children: list[FunctionEvent] | None = None
        self.cpu_parent: FunctionEvent | None = None
        self.device_type = DeviceType.CPU
        self.is_legacy = False
        self.is_user_annotation = False
        self.flops: int | None = 0
        self.self_cpu_percent: str | int = -1
        self.total_cpu_percent: str | int = -1

    def add(self, other: FunctionEvent | FunctionEventAvg) -> FunctionEventAvg:
        """Add the times and count of another event of the group.

        Parameters
        ----------
        other : FunctionEvent or FunctionEventAvg
            An event with the same ``key`` (the first one added sets the key).

        Returns
        -------
        FunctionEventAvg
            ``self``.

        Raises
        ------
        AssertionError
            If ``other`` is not an event, or its key differs.
        """
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

    def __iadd__(self, other: FunctionEvent | FunctionEventAvg) -> FunctionEventAvg:
        return self.add(other)

    def __repr__(self) -> str:
        dev = "cuda" if not self.use_device else self.use_device
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str}  self_{dev}_time={self.self_device_time_total_str}"
                f" {dev}_time={self.device_time_str} input_shapes={str(self.input_shapes)} "
                f"cpu_memory_usage={self.cpu_memory_usage} "
                f"{dev}_memory_usage={self.device_memory_usage}>")


class EventList(list[Any]):
    """A list of :class:`FunctionEvent` (or :class:`FunctionEventAvg`) with PyTorch's summaries.

    :meth:`table`, :meth:`key_averages`, :meth:`total_average`,
    :meth:`export_chrome_trace`, :attr:`self_cpu_time_total`.

    Parameters
    ----------
    *args : Any
        As for ``list``: an iterable of events.
    **kwargs : Any
        ``use_device``, ``profile_memory``, ``with_flops`` (PyTorch's; recorded).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._use_device = kwargs.pop("use_device", None)
        self._profile_memory = kwargs.pop("profile_memory", False)
        self._with_flops = kwargs.pop("with_flops", False)
        self._tree_built = kwargs.pop("_tree_built", False)
        super().__init__(*args, **kwargs)

    def __str__(self) -> str:
        return self.table()

    def _build_tree(self) -> None:
        """Nest the events by time range, per thread (PyTorch's ``_populate_cpu_children``:
        an event is a child of the innermost earlier event whose range contains it).  The
        profiler nests its events while recording; this serves lists built otherwise
        (:func:`load_nvprof`)."""
        if self._tree_built:
            return
        by_thread: defaultdict[tuple[int, int], list[FunctionEvent]] = defaultdict(list)
        for e in self:
            if isinstance(e, FunctionEvent) and not e.is_async:
                by_thread[(e.thread, e.node_id)].append(e)
        for evs in by_thread.values():
            evs.sort(key=lambda e: (e.time_range.start, -e.time_range.end))
            cur: list[FunctionEvent] = []
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
    def self_cpu_time_total(self) -> float:
        """Sum of the events' self CPU times, microseconds."""
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by: str | None = None, row_limit: int = 100,
              max_src_column_width: int = 75, max_name_column_width: int = 55,
              max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False, time_unit: str | None = None) -> str:
        """The events as PyTorch's table.

        Columns: Name, Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg,
        # of Calls, then Input Shapes when an event has shapes and Source Location when one
        has a stack; percentages are of the sum of the listed events' self CPU times,
        printed in the footer ``Self CPU time total: ...``.

        Parameters
        ----------
        sort_by : str, optional
            An attribute of the events, largest first (``cpu_time_total``,
            ``self_cpu_time_total``, ``cpu_time``, ``count`` ...; ``cuda``/``xpu`` in the
            name read as ``device``); the events' order by default.
        row_limit : int, optional
            Rows at most.
        max_src_column_width, max_name_column_width, max_shapes_column_width : int, optional
            Column widths at most, characters.
        header : str, optional
            A title line above the table.
        top_level_events_only : bool, optional
            Only events without a CPU parent.
        time_unit : {"s", "ms", "us"}, optional
            The unit of every time (default: per value, the largest unit it reaches).

        Returns
        -------
        str
            The table; ``""`` for no events.

        Raises
        ------
        AttributeError
            For an unknown ``sort_by``.
        """
        return _build_table(self, sort_by=sort_by, header=header, row_limit=row_limit,
                            max_src_column_width=max_src_column_width,
                            max_name_column_width=max_name_column_width,
                            max_shapes_column_width=max_shapes_column_width,
                            top_level_events_only=top_level_events_only, time_unit=time_unit)

    def export_chrome_trace(self, path: str | os.PathLike[str]) -> None:
        """Write the events as a Chrome trace (``chrome://tracing``, Perfetto).

        A JSON object whose ``"traceEvents"`` hold one complete event per range --
        ``{"ph": "X", "cat": "cpu_op" | "user_annotation", "name", "pid", "tid", "ts", "dur",
        "args"}`` with ``ts``/``dur`` in microseconds (``ts`` from the start of the profile)
        and ``args`` carrying ``"Input Dims"`` when shapes were recorded and the backward
        node's ``"Sequence number"``.

        Parameters
        ----------
        path : str or path-like
            The file to write.
        """
        pid = os.getpid()
        out = []
        for e in self:
            if not isinstance(e, FunctionEvent):
                continue
            args: dict[str, Any] = {}
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

    def key_averages(self, group_by_input_shapes: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        """Statistics per group of events (PyTorch's keys).

        Events group by ``key`` (and whether they are user annotations).

        Parameters
        ----------
        group_by_input_shapes : bool, optional
            Also group by input shapes.
        group_by_stack_n : int, optional
            Also group by the first ``n`` stack entries (0: not).
        group_by_overload_name : bool, optional
            Also group by the overload name.

        Returns
        -------
        EventList
            One :class:`FunctionEventAvg` per group, in order of first appearance.
        """
        self._build_tree()
        stats: defaultdict[tuple[str, ...], FunctionEventAvg] = defaultdict(FunctionEventAvg)
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

    def total_average(self) -> FunctionEventAvg:
        """The sum of every event.

        Returns
        -------
        FunctionEventAvg
            With key ``"Total"``.
        """
        total = FunctionEventAvg()
        for e in self:
            total += e
            total.key = None
        total.key = "Total"
        return total


class EnforceUnique:
    """Raises ``RuntimeError("duplicate key: ...")`` if a key is seen twice."""

    def __init__(self) -> None:
        self.seen: set[tuple[Any, ...]] = set()

    def see(self, *key: Any) -> None:
        """Record ``key``.

        Parameters
        ----------
        *key : Any
            The key's parts.

        Raises
        ------
        RuntimeError
            If the key was seen before.
        """
        if key in self.seen:
            raise RuntimeError("duplicate key: " + str(key))
        self.seen.add(key)


def parse_nvprof_trace(path: str) -> list[FunctionEvent]:
    """Read an nvprof trace (PyTorch's ``parse_nvprof_trace``).

    Names are not demangled (PyTorch demangles C++ symbols with its C++ runtime).

    Parameters
    ----------
    path : str
        The nvprof SQLite file.

    Returns
    -------
    list of FunctionEvent
        One per NVTX marker range (``CUPTI_ACTIVITY_KIND_MARKER`` rows paired by id; name
        from ``StringTable``, times as stored, ``thread=0``, ``node_id=0``), with the
        kernels launched inside it (``CUPTI_ACTIVITY_KIND_RUNTIME`` launch within the
        range, correlated to ``CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL``) attached; sorted
        by start.

    Raises
    ------
    sqlite3.OperationalError
        For a file without these tables.
    RuntimeError
        For a duplicate marker id.
    AssertionError
        For a launch whose ``cbid`` is not 211 (``cudaLaunchKernel``).
    """
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
        functions: list[FunctionEvent] = []
        by_id: dict[int, FunctionEvent] = {}
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
