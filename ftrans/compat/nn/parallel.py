"""``torch.nn.parallel`` for ``ftrans.compat``: ``DataParallel`` as a single-device wrapper.

ftrans.compat runs on one device, so ``DataParallel(module)`` scatters nothing: it keeps
``module`` as its ``module`` attribute and its forward calls it with the whole batch --
the result PyTorch's ``DataParallel`` gives on one device.  Its ``state_dict`` keys carry
PyTorch's ``module.`` prefix, so checkpoints load in either direction as in PyTorch.
"""
from __future__ import annotations

from .module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    """``torch.nn.DataParallel``: calls ``module`` on the whole batch (one device).

    ``device_ids``, ``output_device`` and ``dim`` are kept as attributes; a device other
    than the CPU (or the one CUDA device CuPy sees) is a ``ValueError``."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DataParallel expects an nn.Module, got {type(module).__name__}")
        ids = [] if device_ids is None else [getattr(d, "index", d) for d in device_ids]
        if any(i not in (None, 0) for i in ids):
            raise ValueError(f"DataParallel: ftrans.compat runs on one device; device_ids "
                             f"{list(device_ids)} name others")
        self.module = module
        self.device_ids = ids
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
