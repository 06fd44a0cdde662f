"""``torch.Size`` and ``torch.device``, and the device checks of the factories.

Re-exported by :mod:`._tensor` (their home in the namespace).
"""
from __future__ import annotations

from typing import Any, SupportsIndex, overload

import numpy as np

from . import cuda


class Size(tuple[int, ...]):
    """Shape of a tensor: a tuple of ints that prints as ``torch.Size([2, 3])``.

    Parameters
    ----------
    iterable : iterable of int, optional
        The sizes; empty by default.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(map(str, self))}])"

    __str__ = __repr__

    def numel(self) -> int:
        """The number of elements of a tensor of this shape.

        Returns
        -------
        int
            The product of the sizes (1 for ``Size([])``).
        """
        n = 1
        for d in self:
            n *= d
        return n

    @overload
    def __getitem__(self, i: SupportsIndex) -> int: ...

    @overload
    def __getitem__(self, i: slice) -> Size: ...

    def __getitem__(self, i: SupportsIndex | slice) -> int | Size:
        if isinstance(i, slice):
            return Size(tuple.__getitem__(self, i))
        return tuple.__getitem__(self, i)


class device:
    """A device (``torch.device``): the CPU, or a CUDA GPU through CuPy.

    Parameters
    ----------
    type : str or device, default 'cpu'
        ``"cpu"``, ``"cuda"`` or ``"cuda:<index>"``, or a device (copied).
    index : int, optional
        The device index (CUDA).

    Raises
    ------
    RuntimeError
        For another device type.
    """

    __slots__ = ("type", "index")

    def __init__(self, type: str | device = "cpu", index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            index = type.index
            type = type.type
        if ":" in type:
            type, idx = type.split(":", 1)
            index = int(idx)
        if type not in ("cpu", "cuda"):
            raise RuntimeError(f"Expected one of cpu, cuda device type at start of device "
                               f"string: {type}")
        self.type: str = type
        self.index: int | None = index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


_CPU = device("cpu")


_default_device: list[Any] = [None]   # set_default_device (None: the CPU)


def check_device(dev: Any) -> None:
    """Validate a device argument: the CPU, or a GPU when CuPy sees one (PyTorch's
    ``AssertionError("Torch not compiled with CUDA enabled")`` otherwise)."""
    if dev is None:
        return
    d = dev if isinstance(dev, device) else device(str(dev))
    if d.type == "cuda":
        cuda._lazy_init()


def _device_of_array(a: Any) -> device:
    if type(a) is np.ndarray or not hasattr(a, "device") or not hasattr(a.device, "id"):
        return _CPU
    return device("cuda", int(a.device.id))
