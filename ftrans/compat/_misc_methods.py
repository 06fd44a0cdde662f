"""compat Tensor methods of the construction family: ``sum_to_size``, ``resize_``,
``resize_as_``, the dtype methods ``char``/``bfloat16``/``chalf``, the properties ``H``
and ``mH``, ``__rdiv__``, and the refusals of what compat has no representation for
(``hash_tensor``'s uint64, sparse layouts).

Installed through :mod:`._misc_ops`.
"""
from __future__ import annotations

import builtins
import warnings

import numpy as np

from . import _ops as O
from ._tensor import Tensor, Size, _dim
from ..primitives import indexing as I
from .autograd._composite import composite_class
from .. import numpy as _fnp
from ._opbase import _compose

__all__ = ["hash_tensor", "resize_as_"]


def _sum_to_fn(x, axes, shape):
    return _fnp.reshape(_fnp.sum(x, axis=axes), shape)


_SumBackward1 = composite_class("SumBackward1", ("self",))


def sum_to_size(self, *size):
    """``Tensor.sum_to_size``: the sum over the dimensions broadcasting expanded to reach
    ``self``'s shape from ``size``."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        size = tuple(size[0])
    size = tuple(int(s) for s in size)
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


def resize_(self, *sizes, memory_format=None):
    """``Tensor.resize_``: ``self`` gets shape ``sizes``; the leading elements (in
    row-major order) are kept, new ones are zeros (PyTorch leaves them uninitialized)."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list, Size)):
        sizes = tuple(sizes[0])
    sizes = tuple(int(s) for s in sizes)
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


def resize_as_(self, the_template, memory_format=None):
    """``Tensor.resize_as_``: ``resize_`` to ``the_template``'s shape."""
    return resize_(self, the_template._data.shape)


def _slice(self, dim=0, start=None, end=None, step=1):
    """``aten.slice.Tensor`` (op_db's ``slice``): the view ``self[start:end:step]`` along
    ``dim``, bounds clamped; ``step`` must be positive."""
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    d = self._data
    ax = _dim(dim, d.ndim)
    b, e, st = builtins.slice(start, end, step).indices(d.shape[ax])
    template = (builtins.slice(None),) * ax + (builtins.slice(b, max(b, e), st),)
    return O._view_op(self, I.gather_p, {"template": template}, O._SliceBackward0)


def _conv(npdt, name):
    def m(self, memory_format=None):
        return O._convert(self, np.dtype(npdt))
    m.__name__ = name
    m.__doc__ = f"``Tensor.{name}``: ``self`` converted to {np.dtype(npdt).name}."
    return m


def _refuse_dtype(name, what):
    def m(self, memory_format=None):
        raise TypeError(f"Tensor.{name}(): compat has no {what} dtype (NumPy has none); convert "
                        "to float32/complex64 instead")
    m.__name__ = name
    m.__doc__ = f"``Tensor.{name}``: refused (TypeError): compat has no {what} dtype."
    return m


def _H(self):
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


def _mH(self):
    """``Tensor.mH``: the conjugate transpose of the last two dimensions."""
    n = self._data.ndim
    if n < 2:
        raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. "
                           f"Got {n}-D tensor.")
    return O.conj(O.transpose(self, -2, -1))


def _rdiv(self, other):
    """``Tensor.__rdiv__``: ``other / self``."""
    return O.div(other, self) if isinstance(other, Tensor) else O.mul(O.reciprocal(self), other)


def hash_tensor(input, dim=(), *, keepdim=False, mode=0):  # noqa: A002
    """``torch.hash_tensor``: refused -- its result is a ``uint64`` tensor, a dtype compat
    does not have."""
    raise NotImplementedError("hash_tensor: compat has no uint64 dtype for the xor-reduced "
                              "hash; compute it with NumPy on tensor.numpy()")


def _to_sparse(self, *args, **kwargs):
    """``Tensor.to_sparse``: refused (RuntimeError): compat has no sparse layouts."""
    raise RuntimeError("to_sparse: compat tensors have only the strided (dense) layout; sparse "
                       "layouts (torch.sparse_coo, sparse_csr ...) are not supported")


METHODS: dict = {
    "sum_to_size": sum_to_size, "resize_": resize_, "resize_as_": resize_as_,
    "char": _conv(np.int8, "char"), "bfloat16": _refuse_dtype("bfloat16", "bfloat16"),
    "chalf": _refuse_dtype("chalf", "complex32 (chalf)"),
    "H": property(_H), "mH": property(_mH), "__rdiv__": _rdiv, "hash_tensor": hash_tensor,
    "slice": _slice, "to_sparse": _to_sparse, "to_sparse_coo": _to_sparse, "to_sparse_csr": _to_sparse,
}
