"""Tensor's Python conversions and protocols: ``float(t)``, ``int(t)``, ``bool(t)``,
``len(t)``, iteration, ``np.asarray(t)``, ``copy.deepcopy(t)``, ``format(t, spec)``.

Installed on :class:`._tensor.Tensor` by :mod:`._methods` (``METHODS``).
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ._tensor import Tensor, _make


def _real_scalar(v: Any, ctype: str) -> Any:
    """A complex value with zero imaginary part as a real one (PyTorch converts those;
    any other complex value is an error)."""
    if isinstance(v, complex):
        if v.imag != 0:
            raise RuntimeError(f"value cannot be converted to type {ctype} without overflow")
        return v.real
    return v


def __array__(self: Tensor, dtype: Any = None, copy: bool | None = None) -> Any:
    if self.requires_grad:
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                           "tensor.detach().numpy() instead.")
    d = self._host("numpy")
    return d if dtype is None else d.astype(dtype)


def __float__(self: Tensor) -> float:
    return float(_real_scalar(_scalar(self, "float"), "double"))


def __int__(self: Tensor) -> int:
    return int(_real_scalar(_scalar(self, "int"), "int64_t"))


def __complex__(self: Tensor) -> complex:
    return complex(_scalar(self, "complex"))


def __index__(self: Tensor) -> int:
    if self._data.dtype.kind not in "iub":
        raise TypeError("only integer tensors of a single element can be converted to an "
                        "index")
    return int(_scalar(self, "index"))


def __bool__(self: Tensor) -> bool:
    if self._data.size != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self._host("bool").reshape(()))


def _scalar(self: Tensor, what: str) -> Any:
    if self._data.size != 1:
        raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                           "to Scalar")
    return self._host("item").reshape(()).item()


def __len__(self: Tensor) -> int:
    if self._data.ndim == 0:
        raise TypeError("len() of a 0-d tensor")
    return self._data.shape[0]


def __iter__(self: Tensor) -> Iterator[Tensor]:
    if self._data.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return (self[i] for i in range(self._data.shape[0]))


def __deepcopy__(self: Tensor, memo: dict[int, Any]) -> Tensor:
    if not self.is_leaf:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                           "support the deepcopy protocol at the moment.  If you were "
                           "attempting to deepcopy a module, this may be because of a "
                           "torch.nn.utils.weight_norm usage, see "
                           "https://github.com/pytorch/pytorch/pull/103001")
    t = _make(self._data.copy())
    t._rg = self._rg
    if self._grad is not None:
        t._grad = _make(self._grad._data.copy())
    memo[id(self)] = t
    return t


def __format__(self: Tensor, spec: str) -> str:
    if self._data.ndim == 0 and spec:
        return format(self._data.item(), spec)
    return repr(self)


METHODS = {"__array__": __array__, "__float__": __float__, "__int__": __int__,
           "__complex__": __complex__, "__index__": __index__, "__bool__": __bool__,
           "__len__": __len__, "__iter__": __iter__,
           "__deepcopy__": __deepcopy__, "__format__": __format__}
