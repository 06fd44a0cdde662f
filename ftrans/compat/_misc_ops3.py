"""compat operations (continued from :mod:`._misc_ops2`): index factories
(``tril_indices``, ``unravel_index``), integration (``trapezoid``, ``gradient``), tensor
factories (``scalar_tensor``, ``empty_strided``, ``fill``) and ``finfo``/``iinfo``.

Each differentiable function adapts one ``ftrans.numpy``/``ftrans.scipy`` function to
PyTorch's signature; its node's backward is ``ftrans.vjp`` of that function.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _dtype as D
from . import _factories as F
from . import _ops as O
from ._tensor import Tensor, _dim, _make_plain
from .autograd._composite import composite_class
from .. import numpy as _fnp
from .. import scipy as _fsp   # (ftrans.scipy.integrate loads on first use)
from ._opbase import _compose, _promote_datas, _scalar, _tname
from ._inplace import _overwritten_fn, _fill_fn
from .types import DeviceLike, DTypeArg, Number, SizeLike, TensorOrNumber, dtype

__all__ = ["tril_indices", "triu_indices", "unravel_index", "trapezoid", "trapz",
           "cumulative_trapezoid", "gradient", "scalar_tensor", "fill", "empty_permuted",
           "empty_strided", "finfo", "iinfo"]


def _t(v: Any, name: str = "input") -> Any:
    if isinstance(v, Tensor):
        return v
    raise TypeError(f"{name} must be a Tensor, got {type(v).__name__}")



# =============================================================================== indices
def _index_dtype(dtype: Any, fname: str) -> Any:
    dt = D.int64 if dtype is None else dtype
    if dt not in (D.int64, D.int32):
        raise NotImplementedError(f"\"{fname}\" not implemented for '{dt._tname[:-6]}'")
    return dt.np


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: DTypeArg = None,
                 device: DeviceLike = None, layout: Any = None,
                 pin_memory: bool = False) -> Tensor:
    """The indices of the lower triangle of a ``row x col`` matrix (``torch.tril_indices``).

    Parameters
    ----------
    row, col : int
        The matrix shape.
    offset : int, optional
        The diagonal bounding the triangle: 0 the main one, positive above it.
    dtype : dtype, optional
        int64 (default) or int32.
    device : device, optional
        The device of the result.
    layout : Any, optional
        Accepted for torch's signature.
    pin_memory : bool, optional
        Accepted (no effect).

    Returns
    -------
    Tensor
        ``(2, N)``: the row indices, then the column indices, row by row.

    Raises
    ------
    NotImplementedError
        If ``dtype`` is not int64 or int32.
    """
    r, c = np.tril_indices(int(row), int(offset), int(col))
    return _make_plain(np.stack([r, c]).astype(_index_dtype(dtype, "tril_indices")).reshape(2, -1))


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: DTypeArg = None,
                 device: DeviceLike = None, layout: Any = None,
                 pin_memory: bool = False) -> Tensor:
    """The indices of the upper triangle of a ``row x col`` matrix (``torch.triu_indices``).

    Parameters
    ----------
    row, col : int
        The matrix shape.
    offset : int, optional
        The diagonal bounding the triangle: 0 the main one, positive above it.
    dtype : dtype, optional
        int64 (default) or int32.
    device : device, optional
        The device of the result.
    layout : Any, optional
        Accepted for torch's signature.
    pin_memory : bool, optional
        Accepted (no effect).

    Returns
    -------
    Tensor
        ``(2, N)``: the row indices, then the column indices, row by row.

    Raises
    ------
    NotImplementedError
        If ``dtype`` is not int64 or int32.
    """
    r, c = np.triu_indices(int(row), int(offset), int(col))
    return _make_plain(np.stack([r, c]).astype(_index_dtype(dtype, "triu_indices")).reshape(2, -1))


def unravel_index(indices: Tensor, shape: int | Sequence[int]) -> tuple[Tensor, ...]:
    """Coordinates of flat indices into ``shape`` (``torch.unravel_index``).

    Parameters
    ----------
    indices : Tensor
        Integer flat indices (out-of-range and negative ones wrap, as in PyTorch).
    shape : int or sequence of int
        The shape indexed.

    Returns
    -------
    tuple of Tensor
        One int64 tensor of ``indices``' shape per dimension.

    Raises
    ------
    TypeError
        If ``indices`` is not a Tensor.
    """
    if not isinstance(indices, Tensor):
        raise TypeError(f"expected 'indices' to be a Tensor, but got {type(indices).__name__}")
    d = indices._data
    if d.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {_tname(d.dtype)}")
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s)
                                                                             for s in shape)
    for s in shape:
        if s < 0:
            raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if not shape:
        return ()
    coords, rest = [], d.astype(np.int64)
    for s in reversed(shape):   # PyTorch's arithmetic: floor modulo, no range check
        coords.append(np.mod(rest, s) if s else rest * 0)
        rest = np.floor_divide(rest, s) if s else rest * 0
    return tuple(_make_plain(np.asarray(c, np.int64)) for c in reversed(coords))


# =============================================================================== integration
def _trapz_fn(y: Any, x: Any, dx: Any, axis: Any) -> Any:
    return _fnp.trapezoid(y, x, dx=dx, axis=axis)


def _cumtrapz_fn(y: Any, x: Any, dx: Any, axis: Any) -> Any:
    return _fsp.integrate.cumulative_trapezoid(y, x, dx=dx, axis=axis)


_MulBackward1 = composite_class("MulBackward1", ("self",))
_TrapzBackward = composite_class("DivBackward1", ("y", "x"))
_CumsumBackward0 = composite_class("CumsumBackward0", ("y", "x"))
_CumtrapzBackward = composite_class("DivBackward1", ("y", "x"))


def _integrate(fn: Any, cls_dx: Any, cls_x: Any, y: Any, x: Any, dx: Any, dim: Any) -> Any:
    yt = _t(y, "y")
    d = yt._data
    if d.ndim == 0:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got "
                         f"{dim})")
    ax = _dim(dim, d.ndim)
    if x is None or not isinstance(x, Tensor):
        if x is not None:
            dx = x
        dxv = 1 if dx is None else dx
        if isinstance(dxv, Tensor):
            dxv = dxv.item()
        yd = d if d.dtype.kind in "fc" else d.astype(D.get_default_dtype().np)
        return _compose(cls_dx, fn, [yt, None], [yd, None], {"dx": dxv, "axis": ax}, mask=0)
    xd = x._data
    r = _promote_datas([yt, x])
    if r.kind not in "fc":
        r = D.get_default_dtype().np
    yd = d if d.dtype == r else d.astype(r)
    xd = xd if xd.dtype == r else xd.astype(r)
    if xd.ndim == 1 and xd.shape[0] != d.shape[ax]:
        raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
    return _compose(cls_x, fn, [yt, x], [yd, xd], {"dx": 1.0, "axis": ax})


def trapezoid(y: Tensor, x: TensorOrNumber | None = None, *, dx: Number | None = None,
              dim: int = -1) -> Tensor:
    """The trapezoidal rule along ``dim`` (``torch.trapezoid``).

    Parameters
    ----------
    y : Tensor
        The values.
    x : Tensor or Number, optional
        The sample points along ``dim`` (a tensor), or a uniform spacing (a number).
    dx : Number, optional
        The uniform spacing (1 by default).
    dim : int, optional
        The dimension integrated.

    Returns
    -------
    Tensor
        ``y``'s shape without ``dim``.
    """
    return _integrate(_trapz_fn, _MulBackward1, _TrapzBackward, y, x, dx, dim)


def trapz(y: Tensor, x: TensorOrNumber | None = None, *, dx: Number | None = None,
          dim: int = -1) -> Tensor:
    """The trapezoidal rule along ``dim`` (``torch.trapz``, alias of ``trapezoid``).

    Parameters
    ----------
    y : Tensor
        The values.
    x : Tensor or Number, optional
        The sample points along ``dim`` (a tensor), or a uniform spacing (a number).
    dx : Number, optional
        The uniform spacing (1 by default).
    dim : int, optional
        The dimension integrated.

    Returns
    -------
    Tensor
        ``y``'s shape without ``dim``.
    """
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: TensorOrNumber | None = None, *,
                         dx: Number | None = None, dim: int = -1) -> Tensor:
    """The cumulative trapezoidal rule along ``dim`` (``torch.cumulative_trapezoid``).

    Parameters
    ----------
    y : Tensor
        The values.
    x : Tensor or Number, optional
        The sample points along ``dim`` (a tensor), or a uniform spacing (a number).
    dx : Number, optional
        The uniform spacing (1 by default).
    dim : int, optional
        The dimension integrated.

    Returns
    -------
    Tensor
        ``dim`` one shorter (``n - 1`` values, no initial zero).
    """
    return _integrate(_cumtrapz_fn, _CumsumBackward0, _CumtrapzBackward, y, x, dx, dim)


_GradientBackward = composite_class("CatBackward0", ("self",))


def _gradient_fn(f: Any, *coords: Any, axis: Any, spacing: Any, edge_order: Any) -> Any:
    return _fnp.gradient(f, *(coords if coords else (spacing,)), axis=axis,
                         edge_order=edge_order)


def gradient(input: Tensor, *, spacing: Any = 1,  # noqa: A002
             dim: int | Sequence[int] | None = None, edge_order: int = 1) -> tuple[Tensor, ...]:
    """Second-order central differences along each of ``dim`` (``torch.gradient``).

    NumPy's ``gradient`` rules.

    Parameters
    ----------
    input : Tensor
        The samples.
    spacing : Number or sequence of Number or sequence of Tensor, optional
        One spacing, one per dimension, or the coordinate tensors.
    dim : int or sequence of int, optional
        The dimensions (all by default).
    edge_order : int, optional
        The accuracy order at the boundaries (1 or 2).

    Returns
    -------
    tuple of Tensor
        One derivative per dimension, each shaped as ``input``.
    """
    x = _t(input)
    d = x._data
    if dim is None:
        axes = tuple(range(d.ndim))
    elif isinstance(dim, (int, np.integer)):
        axes = (_dim(dim, d.ndim),)
    else:
        axes = tuple(_dim(a, d.ndim) for a in dim)
    if len(set(axes)) != len(axes):
        raise RuntimeError(f"dim {axes[0]} appears multiple times in the list of dims")
    if spacing is None:
        spacing = 1
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if isinstance(spacing, (list, tuple)):
        sp = list(spacing)
        if len(sp) != len(axes):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or "
                               f"it's spacing and dim arguments to have the same length, but "
                               f"got a spacing argument of length {len(sp)} and a dim argument "
                               f"of length {len(axes)}.")
    else:
        sp = [spacing] * len(axes)
    for a in axes:
        if d.shape[a] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    yd = d if d.dtype.kind in "fc" else d.astype(D.get_default_dtype().np)
    outs = []
    for a, s in zip(axes, sp):
        if isinstance(s, Tensor):
            if s._data.ndim == 0:
                s = s.item()
            else:
                cd = s._data.astype(yd.dtype) if s._data.dtype != yd.dtype else s._data
                outs.append(_compose(_GradientBackward, _gradient_fn, [x, s], [yd, cd],
                                     {"axis": a, "spacing": None, "edge_order": edge_order}))
                continue
        outs.append(_compose(_GradientBackward, _gradient_fn, [x], [yd],
                             {"axis": a, "spacing": s, "edge_order": edge_order}, mask=0))
    return tuple(outs)


# =============================================================================== factories
def scalar_tensor(s: TensorOrNumber, *, dtype: DTypeArg = None, layout: Any = None,
                  device: DeviceLike = None, pin_memory: bool = False,
                  requires_grad: bool = False) -> Tensor:
    """A 0-d tensor holding ``s`` (``torch.scalar_tensor``).

    Parameters
    ----------
    s : Number or Tensor
        The value (a one-element tensor is read).
    dtype : dtype, optional
        The dtype (the default float dtype by default).
    device : device, optional
        The device of the result.
    layout : Any, optional
        Accepted for torch's signature.
    pin_memory : bool, optional
        Accepted (no effect).
    requires_grad : bool, optional
        Whether the result requires grad.

    Returns
    -------
    Tensor
        0-d.

    Raises
    ------
    TypeError
        If ``s`` is not a number.
    """
    if _scalar(s) is None and not isinstance(s, Tensor):
        raise TypeError(f"scalar_tensor(): argument 's' must be Number, not "
                        f"{type(s).__name__}")
    if isinstance(s, complex) and dtype is None:
        dtype = D.complex64 if D.get_default_dtype() is D.float32 else D.complex128
    return F.full((), s.item() if isinstance(s, Tensor) else s,
                  dtype=dtype or D.get_default_dtype(), device=device,
                  requires_grad=requires_grad)


def _strided(size: Any, stride: Any, dtype: Any, device: Any, requires_grad: Any,
             fname: str) -> Any:
    size = tuple(int(s) for s in size)
    stride = tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")
    return F.empty(size, dtype=dtype, device=device, requires_grad=requires_grad)


def empty_strided(size: SizeLike, stride: SizeLike, *, dtype: DTypeArg = None,
                  layout: Any = None, device: DeviceLike = None, requires_grad: bool = False,
                  pin_memory: bool = False) -> Tensor:
    """A tensor of ``size`` (``torch.empty_strided``).

    Zero-filled; compat's tensors are contiguous: ``stride`` is checked and not kept.

    Parameters
    ----------
    size : sequence of int
        The shape.
    stride : sequence of int
        The strides (as many as ``size``).
    dtype : dtype, optional
        The dtype (the default float dtype by default).
    device : device, optional
        The device of the result.
    layout : Any, optional
        Accepted for torch's signature.
    pin_memory : bool, optional
        Accepted (no effect).
    requires_grad : bool, optional
        Whether the result requires grad.

    Returns
    -------
    Tensor
        Shape ``size``.
    """
    return _strided(size, stride, dtype, device, requires_grad, "empty_strided")


def empty_permuted(size: SizeLike, physical_layout: Sequence[int], *,
                   dtype: DTypeArg = None, layout: Any = None, device: DeviceLike = None,
                   requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A tensor of ``size`` (``torch.empty_permuted``).

    Zero-filled; the physical layout is checked and not kept.

    Parameters
    ----------
    size : sequence of int
        The shape.
    physical_layout : sequence of int
        A permutation of the dimensions (the memory order in PyTorch).
    dtype : dtype, optional
        The dtype (the default float dtype by default).
    device : device, optional
        The device of the result.
    layout : Any, optional
        Accepted for torch's signature.
    pin_memory : bool, optional
        Accepted (no effect).
    requires_grad : bool, optional
        Whether the result requires grad.

    Returns
    -------
    Tensor
        Shape ``size``.

    Raises
    ------
    RuntimeError
        If ``physical_layout`` is not a permutation of the dimensions.
    """
    size = tuple(int(s) for s in size)
    if sorted(int(p) for p in physical_layout) != list(range(len(size))):
        raise RuntimeError(f"Dimension order must be a permutation of 0..{len(size) - 1}, got "
                           f"{list(physical_layout)}")
    return F.empty(size, dtype=dtype, device=device, requires_grad=requires_grad)


def _new_empty_strided(self: Tensor, size: SizeLike, stride: SizeLike, *,
                       dtype: DTypeArg = None, layout: Any = None, device: DeviceLike = None,
                       requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """``empty_strided`` of ``self``'s dtype by default (``Tensor.new_empty_strided``).

    Parameters
    ----------
    size : sequence of int
        The shape.
    stride : sequence of int
        The strides (checked, not kept).
    dtype : dtype, optional
        The dtype (``self``'s by default).
    device : device, optional
        The device of the result.
    layout : Any, optional
        Accepted for torch's signature.
    pin_memory : bool, optional
        Accepted (no effect).
    requires_grad : bool, optional
        Whether the result requires grad.

    Returns
    -------
    Tensor
        A zero-filled tensor of shape ``size``.
    """
    return _strided(size, stride, dtype or self.dtype, device, requires_grad,
                    "new_empty_strided")


_FillBackward0 = composite_class("FillBackward0", ("self",))
_FillBackward1 = composite_class("FillBackward1", ("self", "value"))


def fill(input: Tensor, value: TensorOrNumber) -> Tensor:  # noqa: A002
    """A new tensor of ``input``'s shape and dtype filled with ``value`` (``torch.fill``).

    Parameters
    ----------
    input : Tensor
        Gives the shape and dtype.
    value : Tensor or Number
        A number, or a 0-d tensor (which gets the gradient).

    Returns
    -------
    Tensor
        Shaped as ``input``.
    """
    x = _t(input)
    d = x._data
    if not isinstance(value, Tensor):
        O._check_fill_value(d, value)
        return _compose(_FillBackward0, _overwritten_fn, [x], [d], mask=0,
                        out=np.full_like(d, value))
    if value._data.ndim != 0:
        raise RuntimeError(f"fill only supports 0-dimension value tensor but got tensor with "
                           f"{value._data.ndim} dimensions.")
    v = value._data
    return _compose(_FillBackward1, _fill_fn, [x, value], [d, v], mask=0, out=np.full_like(d, v))


# =============================================================================== finfo / iinfo
def _info_dtype(fname: str, dt: Any, kinds: Any, what: str, other: Any) -> Any:
    """``dt`` checked as PyTorch's ``finfo``/``iinfo`` check their argument (TypeErrors)."""
    if not isinstance(dt, D.dtype):
        raise TypeError(f"{fname}(): argument 'type' (position 1) must be torch.dtype, not "
                        f"{type(dt).__name__}")
    if dt.np.kind == "b" and fname == "iinfo":
        raise TypeError("torch.bool is not supported by torch.iinfo")
    if dt.np.kind not in kinds:
        raise TypeError(f"torch.{fname}() requires {what} input type. Use torch.{other} to "
                        f"handle '{dt}'")
    return dt


class finfo:
    """Machine limits of a floating dtype (``torch.finfo``).

    Attributes ``bits``, ``eps``, ``max``, ``min``, ``tiny``/``smallest_normal``,
    ``resolution`` and ``dtype``.

    Parameters
    ----------
    type : dtype, optional
        A floating or complex dtype (the default dtype when omitted).

    Raises
    ------
    TypeError
        If ``type`` is not a floating or complex dtype.
    """

    def __init__(self, type: Any = D.get_default_dtype) -> None:  # noqa: A002
        dt = D.get_default_dtype() if type is D.get_default_dtype else type
        i = np.finfo(_info_dtype("finfo", dt, "fc", "a floating point", "iinfo").np)
        self.bits = int(i.bits)
        self.eps = float(i.eps)
        self.max = float(i.max)
        self.min = float(i.min)
        self.tiny = self.smallest_normal = float(i.tiny)
        self.resolution = float(i.resolution)
        self.dtype = str(i.dtype)

    def __repr__(self: Any) -> Any:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Machine limits of an integer dtype (``torch.iinfo``).

    Attributes ``bits``, ``max``, ``min`` and ``dtype``.

    Parameters
    ----------
    type : dtype
        An integer dtype (not bool).

    Raises
    ------
    TypeError
        If ``type`` is not an integer dtype.
    """

    def __init__(self, type: dtype) -> None:  # noqa: A002
        i = np.iinfo(_info_dtype("iinfo", type, "iu", "an integer", "finfo").np)
        self.bits = int(i.bits)
        self.max = int(i.max)
        self.min = int(i.min)
        self.dtype = str(i.dtype)

    def __repr__(self: Any) -> Any:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
