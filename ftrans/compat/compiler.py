"""``torch.compiler``: :func:`compile`'s controls (``reset``, ``disable``,
``is_compiling``).  See :mod:`ftrans.compat._compile`."""
from __future__ import annotations

from ._compile import disable, is_compiling, reset

__all__ = ["disable", "is_compiling", "is_dynamo_compiling", "reset"]

#: ``torch.compiler.is_dynamo_compiling``: the same flag (one tracer here)
is_dynamo_compiling = is_compiling
