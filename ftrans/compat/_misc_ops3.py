"""compat operations (continued from :mod:`._misc_ops2`): index factories
(``tril_indices``, ``unravel_index``), integration (``trapezoid``, ``gradient``), tensor
factories (``scalar_tensor``, ``empty_strided``, ``fill``) and ``finfo``/``iinfo``.

Each differentiable function adapts one ``ftrans.numpy``/``ftrans.scipy`` function to
PyTorch's signature; its node's backward is ``ftrans.vjp`` of that function.
"""
from __future__ import annotations

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

__all__ = ["tril_indices", "triu_indices", "unravel_index", "trapezoid", "trapz",
           "cumulative_trapezoid", "gradient", "scalar_tensor", "fill", "empty_permuted",
           "empty_strided", "finfo", "iinfo"]


def _t(v, name="input"):
    if isinstance(v, Tensor):
        return v
    raise TypeError(f"{name} must be a Tensor, got {type(v).__name__}")



# =============================================================================== indices
def _index_dtype(dtype, fname):
    dt = D.int64 if dtype is None else dtype
    if dt not in (D.int64, D.int32):
        raise NotImplementedError(f"\"{fname}\" not implemented for '{dt._tname[:-6]}'")
    return dt.np


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None,
                 pin_memory=False):
    """``torch.tril_indices``: the 2-row index tensor of the lower triangle."""
    r, c = np.tril_indices(int(row), int(offset), int(col))
    return _make_plain(np.stack([r, c]).astype(_index_dtype(dtype, "tril_indices")).reshape(2, -1))


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None,
                 pin_memory=False):
    """``torch.triu_indices``: the 2-row index tensor of the upper triangle."""
    r, c = np.triu_indices(int(row), int(offset), int(col))
    return _make_plain(np.stack([r, c]).astype(_index_dtype(dtype, "triu_indices")).reshape(2, -1))


def unravel_index(indices, shape):
    """``torch.unravel_index``: a tuple of coordinate tensors (int64) for flat
    ``indices`` into ``shape`` (out-of-range and negative indices wrap, as in PyTorch)."""
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
def _trapz_fn(y, x, dx, axis):
    return _fnp.trapezoid(y, x, dx=dx, axis=axis)


def _cumtrapz_fn(y, x, dx, axis):
    return _fsp.integrate.cumulative_trapezoid(y, x, dx=dx, axis=axis)


_MulBackward1 = composite_class("MulBackward1", ("self",))
_TrapzBackward = composite_class("DivBackward1", ("y", "x"))
_CumsumBackward0 = composite_class("CumsumBackward0", ("y", "x"))
_CumtrapzBackward = composite_class("DivBackward1", ("y", "x"))


def _integrate(fn, cls_dx, cls_x, y, x, dx, dim):
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


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """``torch.trapezoid``: the trapezoidal rule along ``dim`` (``x``: sample points, a
    tensor, or a uniform spacing; ``dx``: the spacing)."""
    return _integrate(_trapz_fn, _MulBackward1, _TrapzBackward, y, x, dx, dim)


def trapz(y, x=None, *, dx=None, dim=-1):
    """``torch.trapz``: alias of ``trapezoid``."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """``torch.cumulative_trapezoid``: the cumulative trapezoidal rule along ``dim``
    (``n - 1`` values, no initial zero)."""
    return _integrate(_cumtrapz_fn, _CumsumBackward0, _CumtrapzBackward, y, x, dx, dim)


_GradientBackward = composite_class("CatBackward0", ("self",))


def _gradient_fn(f, *coords, axis, spacing, edge_order):
    return _fnp.gradient(f, *(coords if coords else (spacing,)), axis=axis,
                         edge_order=edge_order)


def gradient(input, *, spacing=1, dim=None, edge_order=1):  # noqa: A002
    """``torch.gradient``: NumPy's second-order central differences along each of ``dim``
    (all by default); ``spacing`` a number, a list of numbers or of coordinate tensors."""
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
def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=False,
                  requires_grad=False):
    """``torch.scalar_tensor``: a 0-d tensor of the default float dtype (or ``dtype``)."""
    if _scalar(s) is None and not isinstance(s, Tensor):
        raise TypeError(f"scalar_tensor(): argument 's' must be Number, not "
                        f"{type(s).__name__}")
    if isinstance(s, complex) and dtype is None:
        dtype = D.complex64 if D.get_default_dtype() is D.float32 else D.complex128
    return F.full((), s.item() if isinstance(s, Tensor) else s,
                  dtype=dtype or D.get_default_dtype(), device=device,
                  requires_grad=requires_grad)


def _strided(size, stride, dtype, device, requires_grad, fname):
    size = tuple(int(s) for s in size)
    stride = tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")
    return F.empty(size, dtype=dtype, device=device, requires_grad=requires_grad)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """``torch.empty_strided``: a tensor of ``size`` (zero-filled; compat's tensors are
    contiguous, ``stride`` is checked and not kept)."""
    return _strided(size, stride, dtype, device, requires_grad, "empty_strided")


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """``torch.empty_permuted``: a tensor of ``size`` (zero-filled; the physical layout
    is checked and not kept)."""
    size = tuple(int(s) for s in size)
    if sorted(int(p) for p in physical_layout) != list(range(len(size))):
        raise RuntimeError(f"Dimension order must be a permutation of 0..{len(size) - 1}, got "
                           f"{list(physical_layout)}")
    return F.empty(size, dtype=dtype, device=device, requires_grad=requires_grad)


def _new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None,
                       requires_grad=False, pin_memory=False):
    """``Tensor.new_empty_strided``: ``empty_strided`` of ``self``'s dtype by default."""
    return _strided(size, stride, dtype or self.dtype, device, requires_grad,
                    "new_empty_strided")


_FillBackward0 = composite_class("FillBackward0", ("self",))
_FillBackward1 = composite_class("FillBackward1", ("self", "value"))


def fill(input, value):  # noqa: A002
    """``torch.fill``: a new tensor of ``input``'s shape and dtype filled with ``value``
    (a number or a 0-d tensor, which gets the gradient)."""
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
def _info_dtype(fname, dt, kinds, what, other):
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
    """``torch.finfo``: machine limits of a floating dtype (``bits``, ``eps``, ``max``,
    ``min``, ``tiny``/``smallest_normal``, ``resolution``, ``dtype``) -- of the default
    dtype when called without one."""

    def __init__(self, type=D.get_default_dtype):  # noqa: A002
        dt = D.get_default_dtype() if type is D.get_default_dtype else type
        i = np.finfo(_info_dtype("finfo", dt, "fc", "a floating point", "iinfo").np)
        self.bits = int(i.bits)
        self.eps = float(i.eps)
        self.max = float(i.max)
        self.min = float(i.min)
        self.tiny = self.smallest_normal = float(i.tiny)
        self.resolution = float(i.resolution)
        self.dtype = str(i.dtype)

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """``torch.iinfo``: machine limits of an integer dtype (``bits``, ``max``, ``min``,
    ``dtype``)."""

    def __init__(self, type):  # noqa: A002
        i = np.iinfo(_info_dtype("iinfo", type, "iu", "an integer", "finfo").np)
        self.bits = int(i.bits)
        self.max = int(i.max)
        self.min = int(i.min)
        self.dtype = str(i.dtype)

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
