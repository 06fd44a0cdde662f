"""``torch._dynamo``: the parts PyTorch users call directly -- ``explain``, ``reset``,
``config`` (``recompile_limit``), ``exc.Unsupported``, ``disable``, ``graph_break``,
``mark_dynamic``, ``utils.counters`` and ``compiled_autograd._enable``.  See
:mod:`ftrans.compat._compile`."""
from __future__ import annotations

import contextlib
import types
from collections.abc import Callable, Iterator
from typing import Any

from ._compile import disable, explain, graph_break, is_compiling, reset
from ._compile_report import (BreakReason, ExplainOutput, Unsupported, config, counters,
                              exc)

__all__ = ["explain", "reset", "config", "exc", "disable", "graph_break", "is_compiling",
           "mark_dynamic", "utils", "compiled_autograd", "ExplainOutput", "BreakReason",
           "Unsupported"]


def mark_dynamic(t: Any, index: int | list[int], **kwargs: Any) -> None:
    """Accepted for ``torch._dynamo.mark_dynamic``: compiled functions already reuse their
    generated code for every size of a rank (``compile(dynamic=...)``), so no mark is
    needed.

    Parameters
    ----------
    t : Tensor
    index : int or list of int
        The dimensions (checked against ``t``'s rank).

    Raises
    ------
    IndexError
        A dimension outside ``t``'s rank.
    """
    for i in ([index] if isinstance(index, int) else index):
        if not -t.dim() <= i < t.dim():
            raise IndexError(f"mark_dynamic: dimension {i} out of range for a tensor of "
                             f"{t.dim()} dimensions")


@contextlib.contextmanager
def _enable(compiler_fn: Callable[..., Any] | None = None) -> Iterator[None]:
    """``torch._dynamo.compiled_autograd._enable(compiler_fn)``: accepted, a no-op.

    Backward passes through compiled graphs already run each graph's compiled VJP
    program; eager operations between graphs keep their eager backward (torch's
    compiled autograd would trace those into one backward graph too)."""
    yield


#: ``torch._dynamo.utils``: ``counters``
utils = types.SimpleNamespace(counters=counters)
#: ``torch._dynamo.compiled_autograd``: ``_enable``
compiled_autograd = types.SimpleNamespace(_enable=_enable)
