"""``torch._dynamo``: the parts PyTorch users call directly -- ``explain``, ``reset``,
``config`` (``recompile_limit``), ``exc.Unsupported``, ``disable`` and
``mark_dynamic``.  See :mod:`ftrans.compat._compile`."""
from __future__ import annotations

from typing import Any

from ._compile import (BreakReason, ExplainOutput, Unsupported, config, disable, exc,
                       explain, is_compiling, reset)

__all__ = ["explain", "reset", "config", "exc", "disable", "is_compiling", "mark_dynamic",
           "ExplainOutput", "BreakReason", "Unsupported"]


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
