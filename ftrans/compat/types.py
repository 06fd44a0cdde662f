"""``torch.types``: the type aliases compat is annotated with (torch's names).

Annotations in compat use these, so that a signature reads as torch's stubs do:
``def add(input: Tensor, other: TensorOrNumber, *, alpha: Number = 1) -> Tensor``.
Modules imported by ``_tensor`` itself (``_dtype``, ``cuda``, ``autograd._node``,
``autograd.grad_mode``) cannot import this module (an import circle); their public
functions do not take tensors.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

from ._dtype import dtype
from ._tensor import Size, Tensor, device

__all__ = ["Tensor", "Size", "device", "dtype", "Number", "TensorOrNumber", "SizeLike",
           "DeviceLike", "DTypeArg"]

#: A Python number (torch's ``Number``).
Number: TypeAlias = bool | int | float | complex
#: A tensor or a Python number, where torch accepts either (``other`` of ``add``).
TensorOrNumber: TypeAlias = Tensor | bool | int | float | complex
#: A shape argument (torch's ``_size``): ``torch.Size``, a tuple or list of ints.
SizeLike: TypeAlias = Size | Sequence[int]
#: A device argument (torch's ``DeviceLikeType``): a device, ``"cpu"``, ``"cuda:0"``, an
#: index, or None for the default.
DeviceLike: TypeAlias = device | str | int | None
#: A dtype argument, None for the default.
DTypeArg: TypeAlias = dtype | None
