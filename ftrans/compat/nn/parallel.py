"""``torch.nn.parallel`` for ``ftrans.compat``: ``DataParallel`` as a single-device wrapper.

ftrans.compat runs on one device, so ``DataParallel(module)`` scatters nothing: it keeps
``module`` as its ``module`` attribute and its forward calls it with the whole batch --
the result PyTorch's ``DataParallel`` gives on one device.  Its ``state_dict`` keys carry
PyTorch's ``module.`` prefix, so checkpoints load in either direction as in PyTorch.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..types import device
from .module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    """``torch.nn.DataParallel`` on one device: calls ``module`` on the whole batch.

    Parameters
    ----------
    module : Module
        The wrapped module (its ``state_dict`` keys get PyTorch's ``module.`` prefix).
    device_ids : sequence of int or device, optional
        Only device 0 (the one device).
    output_device : int or device, optional
        Kept as an attribute.
    dim : int, optional
        Kept as an attribute (default 0).

    Raises
    ------
    TypeError
        If ``module`` is not a Module.
    ValueError
        If ``device_ids`` names a device other than the one in use.
    """

    def __init__(self, module: Module, device_ids: Sequence[int | device] | None = None,
                 output_device: int | device | None = None, dim: int = 0) -> None:
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DataParallel expects an nn.Module, got {type(module).__name__}")
        ids = [] if device_ids is None else [getattr(d, "index", d) for d in device_ids]
        if any(i not in (None, 0) for i in ids):
            raise ValueError(f"DataParallel: ftrans.compat runs on one device; device_ids "
                             f"{list(device_ids or ())} name others")
        self.module = module
        self.device_ids = ids
        self.output_device = output_device
        self.dim = dim

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """Call the wrapped module.

        Parameters
        ----------
        *inputs : Any
            Its positional arguments.
        **kwargs : Any
            Its keyword arguments.

        Returns
        -------
        Any
            Its result.
        """
        return self.module(*inputs, **kwargs)
