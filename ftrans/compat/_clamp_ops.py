"""compat operations: ``clamp`` (``clip``, ``clamp_min``, ``clamp_max``) and
``masked_fill``."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._tensor import Tensor
from .autograd._composite import composite_class
from .. import primitives as P

from ._opbase import (_broadcast_error, _require_tensor, _compose, _ctype, _default_float,
    _refuse_complex, _scalar)
from ._pointwise import (_CLAMP_COMPLEX, maximum, minimum)
from .types import TensorOrNumber


def _clamp_fn(x: Any, lo: Any, hi: Any) -> Any:
    """``min(max(x, lo), hi)``; the gradient passes where ``lo <= x <= hi`` (bounds
    included, PyTorch's convention); a NaN bound gives NaN everywhere, as in PyTorch."""
    out = x
    if lo is not None:
        out = P.where(P.lt(out, lo), lo, out) if not math.isnan(lo) else \
            P.stop_gradient(P.add(P.mul(out, 0.0), lo))
    if hi is not None:
        out = P.where(P.gt(out, hi), hi, out) if not math.isnan(hi) else \
            P.stop_gradient(P.add(P.mul(out, 0.0), hi))
    return out


_ClampBackward1 = composite_class("ClampBackward1", ("self",),
                                  params={"min": lambda n: n._params["lo"],
                                          "max": lambda n: n._params["hi"]})


def clamp(input: Tensor, min: TensorOrNumber | None = None,  # noqa: A002
          max: TensorOrNumber | None = None) -> Tensor:
    """Clamp to ``[min, max]`` (``torch.clamp``, ``torch.clip``).

    The gradient passes where ``min <= input <= max`` (bounds included, PyTorch's
    convention); a NaN bound gives NaN everywhere, as in PyTorch.  Tensor bounds are
    :func:`maximum`/:func:`minimum`.

    Parameters
    ----------
    input : Tensor
        The input tensor (real).
    min : Tensor or Number, optional
        The lower bound.
    max : Tensor or Number, optional
        The upper bound.

    Returns
    -------
    Tensor
        Same shape as ``input`` (broadcast with tensor bounds); an integer ``input`` with a
        float bound gives the default float dtype.

    Raises
    ------
    RuntimeError
        If both bounds are None.
    NotImplementedError
        For complex operands, as in PyTorch.
    """
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    _refuse_complex(input, msg=_CLAMP_COMPLEX)
    _refuse_complex(min, max, kernel="clamp_cpu" if min is not None and max is not None
                    else "maximum_cpu" if min is not None else "minimum_cpu")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        out = input
        if min is not None:
            out = maximum(out, min)
        if max is not None:
            out = minimum(out, max)
        return out
    d = input._data
    lo = _scalar(min) if min is not None else None
    hi = _scalar(max) if max is not None else None
    if d.dtype.kind in "biu" and (isinstance(lo, float) or isinstance(hi, float)):
        d = d.astype(_default_float())
    return _compose(_ClampBackward1, _clamp_fn, [input], [d], {"lo": lo, "hi": hi})


clip = clamp


def clamp_min(input: Tensor, min: TensorOrNumber) -> Tensor:  # noqa: A002
    """``clamp(input, min=min)`` (``torch.clamp_min``).

    Parameters
    ----------
    input : Tensor
        The input tensor (real).
    min : Tensor or Number
        The lower bound.

    Returns
    -------
    Tensor
        As :func:`clamp` gives it.
    """
    _require_tensor("clamp_min", input)
    return clamp(input, min=min)


def clamp_max(input: Tensor, max: TensorOrNumber) -> Tensor:  # noqa: A002
    """``clamp(input, max=max)`` (``torch.clamp_max``).

    Parameters
    ----------
    input : Tensor
        The input tensor (real).
    max : Tensor or Number
        The upper bound.

    Returns
    -------
    Tensor
        As :func:`clamp` gives it.
    """
    _require_tensor("clamp_max", input)
    return clamp(input, max=max)


def _masked_fill_fn(x: Any, mask: Any, value: Any) -> Any:
    if hasattr(value, "dtype") and value.dtype != x.dtype:
        value = P.convert_element_type(value, x.dtype)
    return P.where(mask, value, x)


_MaskedFillBackward0 = composite_class("MaskedFillBackward0", ("self", "mask", "value"),
                                       edge_idx=(0,))


def _check_fill_value(d: Any, v: Any) -> None:
    """PyTorch's check that the fill value ``v`` (a number or an array) fits the dtype of
    ``d``: a complex value with a nonzero imaginary part does not fit a real tensor."""
    if d.dtype.kind != "c" and np.iscomplexobj(v) and np.any(np.imag(v) != 0):
        raise RuntimeError(f"value cannot be converted to type {_ctype(d.dtype)} without "
                           "overflow")


def masked_fill(input: Tensor, mask: Tensor, value: TensorOrNumber) -> Tensor:  # noqa: A002
    """``value`` where ``mask`` is True, else ``input`` (``torch.masked_fill``).

    The gradient of a tensor ``value`` has its own dtype (the real part of the cotangent
    for a real ``value`` filled into a complex ``input``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    mask : Tensor
        A bool tensor broadcastable to ``input``'s shape.
    value : Tensor or Number
        The fill value: a number or a 0-d tensor.

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.

    Raises
    ------
    RuntimeError
        For a mask that is not bool or does not broadcast, a tensor ``value`` that is not
        0-d, or a complex value for a real ``input``.
    """
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_ctype(m.dtype)}")
    d = input._data
    if isinstance(value, Tensor) and value.dim() != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.dim()} dimension(s).")
    vd: Any = value._data if isinstance(value, Tensor) else value
    try:
        np.broadcast_shapes(m.shape, d.shape)
    except ValueError:
        raise _broadcast_error(m, d) from None   # PyTorch names the mask "tensor a"
    if isinstance(value, Tensor) and vd.ndim:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {vd.ndim} dimension(s).")
    _check_fill_value(d, vd)
    if not isinstance(value, Tensor):
        vd = np.asarray(vd)
        vd = vd.real if vd.dtype.kind == "c" and d.dtype.kind != "c" else vd
        vd = np.asarray(vd, d.dtype)
    elif vd.dtype.kind == "c" and d.dtype.kind != "c":
        vd = P.real(vd)
    return _compose(_MaskedFillBackward0, _masked_fill_fn, [input, m, value], [d, m, vd],
                    mask=0)
