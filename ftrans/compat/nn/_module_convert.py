"""dtype and device conversions of :class:`~ftrans.compat.nn.Module` (``torch.nn.Module``'s
``to``, ``double``, ``float`` ...), gathered in the base class :class:`_ConvertMixin`."""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Self

import ftrans.compat as torch
from ..types import DeviceLike, Tensor, dtype

__all__: list[str] = []


class _ConvertMixin:
    """The conversion methods of :class:`~ftrans.compat.nn.Module` (a base class of it)."""

    _parameters: dict[str, Any]
    _buffers: dict[str, Tensor | None]

    if TYPE_CHECKING:   # defined by Module
        def children(self) -> Iterator[_ConvertMixin]: ...

    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> Self:
        if recurse:
            for m in self.children():
                m._apply(fn)
        for key, p in self._parameters.items():
            if p is None:
                continue
            with torch.no_grad():
                new = fn(p)
            if new is not p:
                p.data = new
                p._vc[0] += 1
            if p.grad is not None:
                with torch.no_grad():
                    g = fn(p.grad)
                if g is not p.grad:   # converted in place, as in PyTorch (p.grad.data = g)
                    p.grad.data = g
        for key, b in self._buffers.items():
            if b is not None:
                self._buffers[key] = fn(b)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Self:
        """Convert floating-point parameters and buffers to a dtype and/or move them to a device.

        Called as ``to(torch.float64)``, ``to(dtype=...)``, ``to(tensor)`` or
        ``to('cpu')``; complex tensors stay complex when the dtype is real.

        Parameters
        ----------
        *args : Any
            A dtype, a device (``'cpu'``), a Tensor (its dtype) or ``non_blocking``.
        **kwargs : Any
            ``dtype``, ``device``, ``non_blocking``, ``memory_format``.

        Returns
        -------
        Module
            ``self``.

        Raises
        ------
        TypeError
            For unknown arguments or a dtype that is neither floating nor complex.
        """
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError(f"to() received an invalid combination of arguments: {sorted(kwargs)}")
        for a in args:
            if isinstance(a, torch.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, (str, torch.device)):
                device = a
            elif isinstance(a, bool):
                pass
            else:
                raise TypeError(f"to() received an invalid argument {a!r}")
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype}")

        def convert(t: Tensor) -> Tensor:
            if device is not None:
                t = t.to(device=device)
            if dtype is not None and (t.is_floating_point() or t.is_complex()):
                if t.is_complex() and not dtype.is_complex:
                    return t
                return t.to(dtype)
            return t
        return self._apply(convert)

    def _float_to(self, dt: dtype) -> Self:
        return self._apply(lambda t: t.to(dt) if t.is_floating_point() else t)

    def double(self) -> Self:
        """Convert floating-point parameters and buffers to float64.

        Returns
        -------
        Module
            ``self``.
        """
        return self._float_to(torch.float64)

    def float(self) -> Self:
        """Convert floating-point parameters and buffers to float32.

        Returns
        -------
        Module
            ``self``.
        """
        return self._float_to(torch.float32)

    def half(self) -> Self:
        """Convert floating-point parameters and buffers to float16.

        Returns
        -------
        Module
            ``self``.
        """
        return self._float_to(torch.float16)

    def type(self, dst_type: dtype) -> Self:
        """Convert all parameters and buffers to ``dst_type``.

        Parameters
        ----------
        dst_type : dtype
            The new dtype.

        Returns
        -------
        Module
            ``self``.
        """
        return self._apply(lambda t: t.to(dst_type))

    def cpu(self) -> Self:
        """Move to the CPU: a no-op, compat modules live there.

        Returns
        -------
        Module
            ``self``.
        """
        return self

    def cuda(self, device: DeviceLike = None) -> Self:
        """Not available: ftrans.compat runs on the CPU.

        Parameters
        ----------
        device : DeviceLike, optional
            Unused.

        Returns
        -------
        Module
            Never returns.

        Raises
        ------
        RuntimeError
            Always.
        """
        raise RuntimeError("Torch not compiled with CUDA enabled (ftrans.compat runs on the "
                           "CPU; use the module as it is)")

    def share_memory(self) -> Self:
        """Move to shared memory: a no-op in ftrans.compat.

        Returns
        -------
        Module
            ``self``.
        """
        return self
