"""compat operations: in-place writes (``add_``, ``x[idx] = v``, ``copy_``, ``fill_``)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.trace import Tracer as _Tracer
from ._tensor import (Tensor, _make, _edge, _set_retains)
from .autograd.grad_mode import _tls
from .autograd import graph as G
from .autograd._composite import composite_class
from .. import primitives as P
from ..primitives import indexing as I

from ._opbase import (_compose, _tensorize, _tname)
from ._clamp_ops import _check_fill_value
from ._shape_ops import (_convert_index, _index_put, getitem)
from . import _opbase as _B
from .types import TensorOrNumber
# =============================================================================== in-place
_NOGRAD_VIEW_MSG = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block "
    "(if you don't want the inplace to be tracked) or both outside (if you want the inplace to "
    "be tracked).")


def _check_inplace(t: Tensor) -> None:
    x = t._x
    if x is not None and x.inference and not _tls.inference:
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not "
                           "allowed.You can make a clone to get a normal tensor before doing "
                           "inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
                           "details.")
    if not _tls.grad:
        return
    if x is None or x.base is None:
        if t._rg and t._grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
        return
    if x.nograd_view:
        raise RuntimeError(_NOGRAD_VIEW_MSG)
    b = x.base
    if b._rg and b._grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")


def _inplace(self: Tensor, fn: Callable[..., Tensor], *args: Any, **kwargs: Any) -> Tensor:
    """Run ``fn(self, *args)`` out of place, write the result into ``self`` and rebase
    ``self``'s history on the new node."""
    _check_inplace(self)
    r = fn(self, *args, **kwargs)
    _commit(self, r)
    return self


def _commit(self: Tensor, r: Tensor) -> None:
    if G._write_guard is not None:  # allow_mutation_on_saved_tensors
        G._write_guard(self)
    d = self._data
    rd = r._data
    if rd.shape != d.shape:
        try:
            ok = np.broadcast_shapes(rd.shape, d.shape) == d.shape
        except ValueError:
            ok = False
        if not ok:
            raise RuntimeError(f"output with shape {list(d.shape)} doesn't match the broadcast "
                               f"shape {list(rd.shape)}")
    if rd.dtype != d.dtype and not np.can_cast(rd.dtype, d.dtype, "same_kind"):
        raise RuntimeError(f"result type {_tname(rd.dtype)} can't be cast to the desired output "
                           f"type {_tname(d.dtype)}")
    if isinstance(d, _Tracer) or isinstance(rd, _Tracer):   # under compat.func
        _commit_traced(self, d, rd)
        return
    if not d.flags.writeable:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    node = r._grad_fn
    if node is not None:
        _snapshot_saved(node, self)
    np.copyto(d, rd, casting="unsafe")
    self._vc[0] += 1
    if node is not None:
        _rebase(self, node)
    if _B._fw_on:
        _B._fwad._commit_tangent(self, r)


def _commit_traced(self: Tensor, d: Any, rd: Any) -> None:
    """An in-place write under ``compat.func``: the tensor's value becomes the traced result
    (values are immutable there; the transform sees a new value, as torch.func's
    functionalization does).  A view's write would have to reach its base: refused."""
    x = self._x
    if x is not None and x.base is not None:
        raise RuntimeError("compat.func: an in-place operation on a view of a traced tensor is "
                           "not supported; clone() the view first")
    if tuple(rd.shape) != tuple(d.shape):
        rd = P.broadcast_to(rd, tuple(d.shape))
    if rd.dtype != d.dtype:
        rd = P.convert_element_type(rd, d.dtype)
    self._data = rd
    self._vc[0] += 1


def _snapshot_saved(node: Any, self: Tensor) -> None:
    """Saved references to ``self``'s old value in ``node`` become copies (made before
    ``self`` is overwritten), connected to ``self``'s old history."""
    inner = node._fn if type(node) is G.CopySlices else node
    saved = inner._saved
    if not isinstance(saved, list):
        return
    d = self._data
    for i, s in enumerate(saved):
        if type(s) is tuple and s[0] is self:
            data = s[1]
            if data is d or np.may_share_memory(data, d):
                data = data.copy()
            e = inner._next[i]
            ghost = _make(data)
            if e[0] is not None:
                if type(e[0]) is G.AccumulateGrad:
                    ghost = e[0].variable
                else:
                    ghost._grad_fn = e[0]
                    ghost._onr = e[1]
            saved[i] = (ghost, data, ghost._vc, ghost._vc[0], e[0])


def _move_retains(t: Tensor, old: Any, old_nr: int, new: Any) -> None:
    x = t._x
    if x is None or not x.retains:
        return
    if old is not None and old._hk is not None and old._hk.rgh:
        if old._hk.rgh.get(old_nr) is t:
            del old._hk.rgh[old_nr]
    _set_retains(new, 0, t)


def _rebase(self: Tensor, node: Any, k: int = 0) -> None:
    """Make ``node`` (an in-place operation on ``self``, its input ``k``) the history of
    ``self`` -- through a CopySlices node on its base when ``self`` is a view."""
    inner = node
    if inner._outsv is not None and type(inner._outsv) is tuple:
        vc = self._vc
        inner._outsv = (None, self._data, vc, vc[0], None)
    x = self._x
    if x is None or x.base is None or x.nograd_view:
        old, old_nr = self._grad_fn, self._onr
        self._grad_fn = node
        self._onr = 0
        _move_retains(self, old, old_nr, node)
        return
    base = x.base
    cs = G.new_copy_slices(node, x.chain, _edge(base), k)
    bold, bold_nr = base._grad_fn, base._onr
    base._grad_fn = cs
    base._onr = 0
    _move_retains(base, bold, bold_nr, cs)
    old, old_nr = self._grad_fn, self._onr
    self._grad_fn = G.new_view_node(x.chain, (cs, 0))
    self._onr = 0
    x.view_ver = self._vc[0]
    _move_retains(self, old, old_nr, self._grad_fn)


_ZeroBackward0 = composite_class("ZeroBackward0", ("self",))
_FillBackward2 = composite_class("FillBackward2", ("self",))


def _overwritten_fn(x: Any) -> Any:
    """The derivative of a value that does not depend on ``x`` (``zero_``, ``fill_`` with
    a number): zero (the value itself is computed by the caller)."""
    return P.stop_gradient(x)


def _fill_fn(x: Any, value: Any) -> Any:
    """``x`` filled with the 0-d ``value`` (``fill_`` with a tensor value)."""
    if value.dtype != x.dtype:
        value = P.convert_element_type(value, x.dtype)
    return P.broadcast_to(value, x.shape)


_FillBackward3 = composite_class("FillBackward3", ("self", "value"))


def _zeros_of(self: Tensor) -> Tensor:
    d = self._data
    return _compose(_ZeroBackward0, _overwritten_fn, [self], [d], mask=0, out=np.zeros_like(d))


def _filled(self: Tensor, value: Any) -> Tensor:
    d = self._data
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value._data.ndim} dimensions.")
        return _compose(_FillBackward3, _fill_fn, [self, value], [d, value._data], mask=0,
                        out=np.full_like(d, value._data))
    _check_fill_value(d, value)
    return _compose(_FillBackward2, _overwritten_fn, [self], [d], mask=0,
                    out=np.full_like(d, value))


def _copy_fn(x: Any, src: Any) -> Any:
    """``x`` overwritten by ``src`` (broadcast, converted to ``x``'s dtype)."""
    if src.dtype != x.dtype:
        src = P.convert_element_type(src, x.dtype)
    return P.broadcast_to(src, x.shape)


_CopyBackwards = composite_class("CopyBackwards", ("self", "src"))
setattr(_CopyBackwards, "name", lambda self: "torch::autograd::CopyBackwards")  # (its node name)


def _copied(self: Tensor, src: Any) -> Tensor:
    d = self._data
    if not isinstance(src, Tensor):
        src = _tensorize(src)
    sd = src._data
    try:
        out = np.array(np.broadcast_to(sd, d.shape), dtype=d.dtype, copy=True)
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({d.shape[-1] if d.ndim else 1}) must match "
                           f"the size of tensor b ({sd.shape[-1] if sd.ndim else 1}) at "
                           "non-singleton dimension") from None
    return _compose(_CopyBackwards, _copy_fn, [self, src], [d, sd], mask=0, out=out)


def setitem(input: Tensor, idx: Any, value: Any) -> None:  # noqa: A002
    """``input[idx] = value``, in place (``Tensor.__setitem__``).

    Parameters
    ----------
    input : Tensor
        The tensor written.
    idx : Any
        The index, as for ``input[idx]``.
    value : Tensor or Number
        The values, broadcast to the indexed shape.
    """
    template, arrays = I.split_index(_convert_index(idx))
    if not arrays:
        v = getitem(input, idx)
        copy_(v, value)
        return
    _inplace(input, _index_put, template, arrays, value)


def copy_(self: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    """Copy ``src`` into ``self`` in place (``Tensor.copy_``).

    Parameters
    ----------
    src : Tensor or array_like
        The values, broadcast to ``self``'s shape and converted to its dtype; the gradient
        flows back to ``src``.
    non_blocking : bool, default False
        Accepted for PyTorch's signature; ignored.

    Returns
    -------
    Tensor
        ``self``.

    Raises
    ------
    RuntimeError
        For a ``src`` that does not broadcast.
    """
    return _inplace(self, _copied, src)


def zero_(self: Tensor) -> Tensor:
    """Fill ``self`` with zeros in place (``Tensor.zero_``).

    Returns
    -------
    Tensor
        ``self``.
    """
    return _inplace(self, _zeros_of)


def fill_(self: Tensor, value: TensorOrNumber) -> Tensor:
    """Fill ``self`` with ``value`` in place (``Tensor.fill_``).

    Parameters
    ----------
    value : Tensor or Number
        A number or a 0-d tensor (whose gradient is the sum of ``self``'s).

    Returns
    -------
    Tensor
        ``self``.

    Raises
    ------
    RuntimeError
        For a tensor ``value`` that is not 0-d, or a complex value for a real tensor.
    """
    return _inplace(self, _filled, value)


def _filled_array(self: Tensor, vals: Any) -> Tensor:
    d = self._data
    return _compose(_FillBackward2, _overwritten_fn, [self], [d], mask=0,
                    out=np.asarray(vals, d.dtype))


