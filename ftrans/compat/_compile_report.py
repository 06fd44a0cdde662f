"""What :func:`ftrans.compat.compile` reports and how it is configured:
``torch._dynamo.config``, ``exc.Unsupported``, ``utils.counters`` and ``explain``'s
:class:`ExplainOutput` (see :mod:`ftrans.compat._compile`)."""
from __future__ import annotations

import collections
import traceback
from typing import Any

from ..core.ir import IR

__all__ = ["config", "Unsupported", "exc", "counters", "BreakReason", "ExplainOutput"]


class _Config:
    """``torch._dynamo.config``'s settings that apply here.

    Attributes
    ----------
    recompile_limit : int
        Graphs a compiled function may stage (one per guard key) before it runs eagerly
        with a warning (torch's default 8; ``cache_size_limit`` is its older name).
    disable : bool
        Run every compiled function eagerly.
    compiled_autograd : bool
        Accepted; has no effect (see below).
    """

    def __init__(self) -> None:
        self.recompile_limit = 8
        self.disable = False
        #: accepted (torch's compiled autograd): backward passes already run the
        #: compiled VJP program of each graph, whatever its value
        self.compiled_autograd = False

    @property
    def cache_size_limit(self) -> int:
        """The older name of :attr:`recompile_limit`."""
        return self.recompile_limit

    @cache_size_limit.setter
    def cache_size_limit(self, n: int) -> None:
        self.recompile_limit = n


config = _Config()


class Unsupported(RuntimeError):
    """A graph break under ``compile(fullgraph=True)`` (``torch._dynamo.exc.Unsupported``)."""


class _Exc:
    """``torch._dynamo.exc``: the exception types."""
    Unsupported = Unsupported


exc = _Exc()


# ----------------------------------------------------------------------------- explain
class _Recorder:
    def __init__(self) -> None:
        self.graphs: list[IR] = []
        self.breaks: list[BreakReason] = []


_recorders: list[_Recorder] = []


#: ``torch._dynamo.utils.counters``: ``counters["stats"]["unique_graphs"]`` (graphs
#: staged) and ``counters["graph_break"][reason]`` (breaks), since the last ``clear()``
counters: collections.defaultdict[str, collections.Counter[str]] = \
    collections.defaultdict(collections.Counter)


def _record_graph(name: str, ir: IR) -> None:
    counters["stats"]["unique_graphs"] += 1
    for r in _recorders:
        r.graphs.append(ir)


def _record_break(name: str, reason: str, where: tuple[str, int, str] | None) -> None:
    counters["graph_break"][reason] += 1
    for r in _recorders:
        stack = [traceback.FrameSummary(where[0], where[1], where[2])] if where else []
        r.breaks.append(BreakReason(f"{name}: {reason}", stack))


class BreakReason:
    """One graph break: ``reason`` (what could not be staged) and ``user_stack`` (the
    user's frame, a list of ``traceback.FrameSummary``), as torch's
    ``GraphCompilationReason``."""

    def __init__(self, reason: str, user_stack: list[traceback.FrameSummary]) -> None:
        self.reason, self.user_stack = reason, user_stack

    def __repr__(self) -> str:
        return f"BreakReason(reason={self.reason!r}, user_stack={self.user_stack!r})"


class ExplainOutput:
    """What :func:`explain` found (``torch._dynamo.backends.debugging.ExplainOutput``).

    Attributes
    ----------
    graphs : list of IR
        The staged programs, in the order they were staged.
    graph_count, graph_break_count, op_count : int
        How many graphs, breaks and operations (IR equations) in all.
    break_reasons : list of BreakReason
    ops_per_graph : list of list of str
        The primitives of each graph.
    out_guards : list
        Always empty (guards are described in :func:`compile`'s notes).
    compile_times : str
        The staging and compile time in seconds.
    """

    def __init__(self, graphs: list[IR], breaks: list[BreakReason], seconds: float) -> None:
        self.graphs = graphs
        self.graph_count = len(graphs)
        self.break_reasons = breaks
        self.graph_break_count = len(breaks)
        self.ops_per_graph = [[e.prim.name for e in g.eqns] for g in graphs]
        self.op_count = sum(len(o) for o in self.ops_per_graph)
        self.out_guards: list[Any] = []
        self.compile_times = f"staging and first call: {seconds:.3f} s"

    def __str__(self) -> str:
        lines = [f"Graph Count: {self.graph_count}",
                 f"Graph Break Count: {self.graph_break_count}",
                 f"Op Count: {self.op_count}", "Break Reasons:"]
        for i, b in enumerate(self.break_reasons, 1):
            lines += [f"  Break Reason {i}:", f"    Reason: {b.reason}", "    User Stack:"]
            lines += [f"      {fs.filename}, line {fs.lineno}, in {fs.name}"
                      for fs in b.user_stack]
        lines.append("Ops per Graph:")
        for i, ops in enumerate(self.ops_per_graph, 1):
            lines.append(f"  Ops {i}:")
            lines += [f"    {o}" for o in ops]
        return "\n".join(lines)
