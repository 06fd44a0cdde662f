"""``ftrans.compat.utils``: ``data`` (datasets and loaders), ``benchmark`` (Timer) and
``checkpoint`` (activation checkpointing),
PyTorch's ``torch.utils`` namespaces; imported on first attribute access."""
from __future__ import annotations

import importlib
from typing import Any

__all__ = ["data", "benchmark", "checkpoint"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
