"""compat Tensor methods of the construction family: ``sum_to_size``, ``resize_``,
``resize_as_``, the dtype methods ``char``/``bfloat16``/``chalf``, the properties ``H``
and ``mH``, ``__rdiv__``, and the refusals of what compat has no representation for
(``hash_tensor``'s uint64, sparse layouts).

Installed through :mod:`._misc_ops`.
"""
from __future__ import annotations

import builtins
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import _ops as O
from ._tensor import Tensor, Size, _dim
from ..primitives import indexing as I
from .autograd._composite import composite_class
from .. import numpy as _fnp
from ._opbase import _compose

__all__ = ["hash_tensor", "resize_as_"]


def _sum_to_fn(x: Any, axes: tuple[int, ...], shape: tuple[int, ...]) -> Any:
    return _fnp.reshape(_fnp.sum(x, axis=axes), shape)


_SumBackward1 = composite_class("SumBackward1", ("self",))


def _sizes_arg(size: tuple[Any, ...]) -> tuple[int, ...]:
    """Sizes given as ints or as one sequence, as ints."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


def sum_to_size(self: Tensor, *size: int | Sequence[int]) -> Tensor:
    """``self`` summed to ``size`` (``Tensor.sum_to_size``).

    The sum over the dimensions broadcasting expanded to reach ``self``'s shape from
    ``size``.

    Parameters
    ----------
    *size : int or sequence of int
        The shape, as ints or one sequence; it must broadcast to ``self``'s shape.

    Returns
    -------
    Tensor
        Of shape ``size``; ``self`` itself when nothing is summed.

    Raises
    ------
    RuntimeError
        For a size that does not broadcast to ``self``'s shape.
    """
    size = _sizes_arg(size)
    d = self._data
    try:
        ok = np.broadcast_shapes(size, d.shape) == d.shape
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(d.shape)}}}.")
    lead = d.ndim - len(size)
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                       if s == 1 and d.shape[lead + i] != 1)
    if not axes:
        return O.sum(self) if d.ndim == 0 else self   # (PyTorch records a 0-d sum)
    if d.dtype.kind in "iub":
        return O._make_plain(np.asarray(np.sum(d, axis=axes, dtype=np.int64 if d.dtype.kind
                                               in "b" else None)).reshape(size))
    return _compose(_SumBackward1, _sum_to_fn, [self], [d], {"axes": axes, "shape": size},
                    mask=0)


def resize_(self: Tensor, *sizes: int | Sequence[int], memory_format: Any = None) -> Tensor:
    """Give ``self`` the shape ``sizes`` in place (``Tensor.resize_``).

    The leading elements (in row-major order) are kept, new ones are zeros (PyTorch
    leaves them uninitialized).

    Parameters
    ----------
    *sizes : int or sequence of int
        The new shape, as ints or one sequence.
    memory_format : object, optional
        Accepted for PyTorch's signature; ignored.

    Returns
    -------
    Tensor
        ``self``.

    Raises
    ------
    RuntimeError
        For a negative size, a tensor that requires grad, or a traced one.
    """
    sizes = _sizes_arg(sizes)
    for s in sizes:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(sizes)}")
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    d = self._data
    if not isinstance(d, np.ndarray):
        raise RuntimeError("resize_: compat.func cannot resize a traced tensor")
    if d.shape == sizes:
        return self
    new = np.zeros(sizes, d.dtype)
    n = min(new.size, d.size)
    new.reshape(-1)[:n] = d.reshape(-1)[:n]
    self._data = new
    self._vc[0] += 1
    return self


def resize_as_(self: Tensor, the_template: Tensor, memory_format: Any = None) -> Tensor:
    """``resize_`` to ``the_template``'s shape (``Tensor.resize_as_``).

    Parameters
    ----------
    the_template : Tensor
        The tensor whose shape is taken.
    memory_format : object, optional
        Accepted for PyTorch's signature; ignored.

    Returns
    -------
    Tensor
        ``self``.
    """
    return resize_(self, the_template._data.shape)


def _slice(self: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
           step: int = 1) -> Tensor:
    """The view ``self[start:end:step]`` along ``dim`` (``aten.slice.Tensor``, op_db's ``slice``).

    Parameters
    ----------
    dim : int, default 0
        The dimension.
    start, end : int, optional
        The bounds (clamped); the whole dimension by default.
    step : int, default 1
        The step (positive).

    Returns
    -------
    Tensor
        A view.

    Raises
    ------
    RuntimeError
        For a step that is not positive.
    """
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    d = self._data
    ax = _dim(dim, d.ndim)
    b, e, st = builtins.slice(start, end, step).indices(d.shape[ax])
    template = (builtins.slice(None),) * ax + (builtins.slice(b, max(b, e), st),)
    return O._view_op(self, I.gather_p, {"template": template}, O._SliceBackward0)


_MF = "memory_format : object, optional\n    Accepted for PyTorch's signature; ignored."


def _conv(npdt: Any, name: str) -> Callable[..., Tensor]:
    def m(self: Tensor, memory_format: Any = None) -> Tensor:
        return O._convert(self, np.dtype(npdt))
    m.__name__ = name
    m.__doc__ = (f"``self`` converted to {np.dtype(npdt).name} (``Tensor.{name}``).\n\n"
                 f"Parameters\n----------\n{_MF}\n\nReturns\n-------\nTensor\n"
                 "    ``self`` itself if it has that dtype, a converted tensor otherwise.")
    return m


def _refuse_dtype(name: str, what: str) -> Callable[..., Tensor]:
    def m(self: Tensor, memory_format: Any = None) -> Tensor:
        raise TypeError(f"Tensor.{name}(): compat has no {what} dtype (NumPy has none); convert "
                        "to float32/complex64 instead")
    m.__name__ = name
    m.__doc__ = (f"``Tensor.{name}``: refused, compat has no {what} dtype.\n\n"
                 f"Parameters\n----------\n{_MF}\n\nReturns\n-------\nTensor\n"
                 "    Never: the conversion is refused.\n\nRaises\n------\nTypeError\n"
                 "    Always.")
    return m


def _H(self: Tensor) -> Tensor:
    """``Tensor.H``: the conjugate transpose of a matrix (0-d: ``self``, with PyTorch's
    deprecation warning)."""
    n = self._data.ndim
    if n == 0:
        warnings.warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
                      UserWarning, stacklevel=2)
    elif n != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{n}-D tensor.")
    return O.conj(O.transpose(self, 0, 1) if n == 2 else self)


def _mH(self: Tensor) -> Tensor:
    """``Tensor.mH``: the conjugate transpose of the last two dimensions."""
    n = self._data.ndim
    if n < 2:
        raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. "
                           f"Got {n}-D tensor.")
    return O.conj(O.transpose(self, -2, -1))


def _rdiv(self: Tensor, other: Any) -> Tensor:
    """``Tensor.__rdiv__``: ``other / self``."""
    return O.div(other, self) if isinstance(other, Tensor) else O.mul(O.reciprocal(self), other)


def hash_tensor(input: Tensor, dim: int | Sequence[int] = (), *,  # noqa: A002
                keepdim: bool = False, mode: int = 0) -> Tensor:
    """``torch.hash_tensor``: refused, its result is a ``uint64`` tensor, a dtype compat lacks.

    Parameters
    ----------
    input : Tensor
        The tensor.
    dim : int or sequence of int, optional
        The dimensions reduced.
    keepdim : bool, default False
        Keep the reduced dimensions.
    mode : int, default 0
        The hash mode.

    Returns
    -------
    Tensor
        Never: the function is refused.

    Raises
    ------
    NotImplementedError
        Always.
    """
    raise NotImplementedError("hash_tensor: compat has no uint64 dtype for the xor-reduced "
                              "hash; compute it with NumPy on tensor.numpy()")


def _to_sparse(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``Tensor.to_sparse``: refused, compat has no sparse layouts.

    Parameters
    ----------
    *args, **kwargs : Any
        PyTorch's arguments.

    Returns
    -------
    Tensor
        Never: the conversion is refused.

    Raises
    ------
    RuntimeError
        Always.
    """
    raise RuntimeError("to_sparse: compat tensors have only the strided (dense) layout; sparse "
                       "layouts (torch.sparse_coo, sparse_csr ...) are not supported")


METHODS: dict[str, Any] = {
    "sum_to_size": sum_to_size, "resize_": resize_, "resize_as_": resize_as_,
    "char": _conv(np.int8, "char"), "bfloat16": _refuse_dtype("bfloat16", "bfloat16"),
    "chalf": _refuse_dtype("chalf", "complex32 (chalf)"),
    "H": property(_H), "mH": property(_mH), "__rdiv__": _rdiv, "hash_tensor": hash_tensor,
    "slice": _slice, "to_sparse": _to_sparse, "to_sparse_coo": _to_sparse, "to_sparse_csr": _to_sparse,
}
