"""``ftrans.compat.utils``: ``data`` (datasets and loaders) and ``benchmark`` (Timer),
PyTorch's ``torch.utils`` namespaces; imported on first attribute access."""
import importlib

__all__ = ["data", "benchmark"]


def __getattr__(name):
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
