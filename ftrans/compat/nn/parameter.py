"""``Parameter`` (``torch.nn.Parameter``) and ``Buffer`` (``torch.nn.Buffer``)."""
from __future__ import annotations

from typing import Any, SupportsIndex, TypeVar

import numpy as np

import ftrans.compat as torch
from ftrans.compat import Tensor

__all__ = ["Parameter", "Buffer", "typename"]

_T = TypeVar("_T", bound=Tensor)


def typename(obj: Any) -> str:
    """PyTorch's ``torch.typename``.

    Parameters
    ----------
    obj : Any
        Any object.

    Returns
    -------
    str
        ``'torch.FloatTensor'`` for a float32 tensor (and so on), the qualified class name
        otherwise.
    """
    if isinstance(obj, Tensor):
        name = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
                "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                "bool": "Bool", "complex64": "ComplexFloat",
                "complex128": "ComplexDouble"}.get(str(obj.dtype).replace("torch.", ""), "")
        return f"torch.{name}Tensor"
    t = type(obj)
    mod = t.__module__
    return t.__qualname__ if mod in ("builtins", None) else f"{mod}.{t.__qualname__}"


def _adopt(cls: type[_T], data: Tensor, requires_grad: bool) -> _T:
    t = object.__new__(cls)
    t._data = data._data
    t._grad_fn = None
    t._onr = 0
    t._rg = False
    t._grad = None
    t._vc = data._vc
    t._x = None
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data: np.ndarray, requires_grad: bool) -> Parameter:
    return Parameter(torch.from_numpy(data), requires_grad)


class Parameter(Tensor):
    """A Tensor that a Module registers as a parameter when assigned as an attribute.

    ``torch.nn.Parameter``: it shares ``data``'s storage and version counter, not its
    history.

    Parameters
    ----------
    data : Tensor, optional
        The values (default: an empty float tensor).
    requires_grad : bool, optional
        Default True.

    Raises
    ------
    TypeError
        If ``data`` is not a Tensor.
    RuntimeError
        For ``requires_grad=True`` on an integer tensor (PyTorch's message).

    Examples
    --------
    >>> import ftrans.compat as torch
    >>> p = torch.nn.Parameter(torch.zeros(2))
    >>> p.requires_grad, p.is_leaf
    (True, True)
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Parameter:
        if data is None:
            data = torch.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(data): expected a Tensor, got {type(data).__name__}; "
                            "wrap the values with torch.tensor(...) first")
        return _adopt(cls, data, requires_grad)

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        r = Parameter(torch.from_numpy(self._data.copy()), self.requires_grad)
        if self._grad is not None:
            r.grad = self._grad.detach().clone()
        memo[id(self)] = r
        return r

    def __reduce_ex__(self, proto: SupportsIndex) -> tuple[Any, ...]:
        return (_rebuild_parameter, (self._data.copy(), self.requires_grad))


class Buffer(Tensor):
    """A Tensor that a Module registers as a buffer when assigned as an attribute.

    ``torch.nn.Buffer``.  Like PyTorch, the registered buffer is a plain Tensor sharing
    the data.

    Parameters
    ----------
    data : Tensor, optional
        The values (default: an empty float tensor); detached.
    persistent : bool, optional
        Include the buffer in ``state_dict`` (default True).
    """

    persistent: bool

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Buffer:
        if data is None:
            data = torch.empty(0)
        t = _adopt(cls, data.detach(), False)
        t.persistent = persistent
        return t

    def __init__(self, data: Tensor | None = None, *, persistent: bool = True) -> None:
        pass
