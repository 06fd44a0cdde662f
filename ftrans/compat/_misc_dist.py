"""compat operations (continued from :mod:`._misc_ops`): distances and norms of slices
(``cdist``, ``dist``, ``renorm``).

Each function adapts a composition of ``ftrans.numpy`` functions to PyTorch's signature;
its node's backward is ``ftrans.vjp`` of that composition.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _ops as O
from ._tensor import Tensor, _dim
from .autograd._composite import composite_class
from .. import numpy as _fnp
from ._opbase import _compose, _promote_datas, _tensorize, _tname

__all__ = ["cdist", "dist", "renorm"]


def _t(v: Any, name: str = "input") -> Any:
    if isinstance(v, Tensor):
        return v
    if isinstance(v, (np.ndarray, list, tuple)):
        return _tensorize(v)
    raise TypeError(f"{name} must be a Tensor, got {type(v).__name__}")


# =============================================================================== cdist / dist
def _pdist_fn(a: Any, b: Any, p: Any) -> Any:
    d = a[..., :, None, :] - b[..., None, :, :]
    return _norm_last(d, p)


def _mm_dist_fn(a: Any, b: Any) -> Any:
    # the matrix-product form (``compute_mode='use_mm_for_euclid_dist'``): ||a||^2 + ||b||^2
    # - 2 a.b, clamped at 0 before the square root, as PyTorch computes it
    a2 = _fnp.sum(a * a, axis=-1)[..., :, None]
    b2 = _fnp.sum(b * b, axis=-1)[..., None, :]
    ab = _fnp.matmul(a, _fnp.swapaxes(b, -1, -2))
    return _safe_root(_fnp.maximum(a2 + b2 - 2 * ab, 0), 2)


def _safe_pow(v: Any, e: Any) -> Any:
    """``v ** e`` of ``v >= 0`` with 0 (and a zero derivative) where ``v == 0``: PyTorch's
    distance gradients are 0 at coinciding points (the minimum-norm subgradient)."""
    z = v == 0
    return _fnp.where(z, 0, _fnp.where(z, 1, v) ** e)


def _safe_root(s: Any, p: Any) -> Any:
    return _safe_pow(s, 0.5) if p == 2 else _safe_pow(s, 1.0 / p)


def _norm_last(d: Any, p: Any, axis: Any = -1) -> Any:
    ad = _fnp.abs(d)
    if p == 0:
        return _fnp.sum((ad != 0).astype(ad.dtype), axis=axis)
    if p == float("inf"):
        return _fnp.max(ad, axis=axis) if ad.shape[axis] else _fnp.sum(ad, axis=axis)
    if p == 1:
        return _fnp.sum(ad, axis=axis)
    if p == 2:
        return _safe_root(_fnp.sum(ad * ad, axis=axis), 2)
    return _safe_root(_fnp.sum(_safe_pow(ad, p) if p < 1 else ad ** p, axis=axis), p)


_CdistBackward0 = composite_class("CdistBackward0", ("x1", "x2"))
_DistBackward0 = composite_class("DistBackward0", ("self", "other"))


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0,
          compute_mode: str | None = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """The ``p``-norm distance between each pair of rows (``torch.cdist``).

    Parameters
    ----------
    x1 : Tensor
        ``(*, P, M)`` floating rows.
    x2 : Tensor
        ``(*, R, M)``, same dtype (batch dimensions broadcast).
    p : float, optional
        The norm's order (non-negative).
    compute_mode : str, optional
        ``"use_mm_for_euclid_dist_if_necessary"`` (default: the matrix-product form for
        ``p=2`` when ``P > 25`` or ``R > 25``), ``"use_mm_for_euclid_dist"`` or
        ``"donot_use_mm_for_euclid_dist"``.

    Returns
    -------
    Tensor
        ``(*, P, R)``.

    Raises
    ------
    RuntimeError
        If the shapes or dtypes are invalid or ``p`` is negative.
    ValueError
        If ``compute_mode`` is unknown.
    """
    a, b = _t(x1, "x1"), _t(x2, "x2")
    ad, bd = a._data, b._data
    if ad.ndim < 2 or bd.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {ad.ndim}D")
    if ad.dtype.kind not in "f" or bd.dtype.kind not in "f":
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: "
                           f"{_tname(ad.dtype)}")
    if ad.shape[-1] != bd.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{ad.shape[-1]} X2: {bd.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    modes = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
             "donot_use_mm_for_euclid_dist": 2, None: 0}
    if compute_mode not in modes:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    batch = np.broadcast_shapes(ad.shape[:-2], bd.shape[:-2])
    if ad.shape[:-2] != batch:
        a = O.expand(a, batch + ad.shape[-2:])
    if bd.shape[:-2] != batch:
        b = O.expand(b, batch + bd.shape[-2:])
    if ad.dtype != bd.dtype:
        raise RuntimeError(f"cdist: expected both inputs to have same dtype, but got "
                           f"{_tname(ad.dtype)} and {_tname(bd.dtype)}")
    m = modes[compute_mode]
    mm = p == 2 and (m == 1 or m == 0 and (ad.shape[-2] > 25 or bd.shape[-2] > 25))
    if mm:
        return _compose(_CdistBackward0, _mm_dist_fn, [a, b], [a._data, b._data])
    return _compose(_CdistBackward0, _pdist_fn, [a, b], [a._data, b._data], {"p": float(p)})


def _dist_fn(a: Any, b: Any, p: Any) -> Any:
    d = a - b
    return _norm_last(_fnp.reshape(d, (-1,)), p, axis=0)


def dist(input: Tensor, other: Tensor, p: Tensor | float = 2) -> Tensor:  # noqa: A002
    """The ``p``-norm of ``input - other`` (``torch.dist``).

    Parameters
    ----------
    input : Tensor
        The first operand.
    other : Tensor
        The second operand (broadcast, promoted).
    p : float or Tensor, optional
        The norm's order (a 0-d tensor is read).

    Returns
    -------
    Tensor
        0-d.
    """
    a, b = _t(input), _t(other, "other")
    r = _promote_datas([a, b])
    if r.kind not in "fc":
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {_tname(r)}")
    ad = a._data if a._data.dtype == r else a._data.astype(r)
    bd = b._data if b._data.dtype == r else b._data.astype(r)
    try:
        np.broadcast_shapes(ad.shape, bd.shape)
    except ValueError:
        raise O._broadcast_error(ad, bd) from None
    p = float(p._data) if isinstance(p, Tensor) else float(p)
    return _compose(_DistBackward0, _dist_fn, [a, b], [ad, bd], {"p": p})


# =============================================================================== renorm
def _renorm_fn(x: Any, p: Any, axis: Any, maxnorm: Any) -> Any:
    axes = tuple(i for i in range(x.ndim) if i != axis)
    ax = _fnp.abs(x)
    if p == float("inf"):
        n = _fnp.max(ax, axis=axes, keepdims=True)
    elif p == 1:
        n = _fnp.sum(ax, axis=axes, keepdims=True)
    else:
        n = _safe_root(_fnp.sum(_safe_pow(ax, p) if p < 1 else ax ** p, axis=axes,
                                keepdims=True), p)
    n = n.real if n.dtype.kind == "c" else n
    factor = _fnp.where(n > maxnorm, maxnorm / (n + 1e-7), 1.0)
    return x * factor.astype(x.dtype)


_RenormBackward0 = composite_class("RenormBackward0", ("self",))


def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:  # noqa: A002
    """Slices along ``dim`` scaled to a ``p``-norm of at most ``maxnorm`` (``torch.renorm``).

    Parameters
    ----------
    input : Tensor
        The input.
    p : float
        The norm's order (positive).
    dim : int
        Each index of ``dim`` is one slice.
    maxnorm : float
        The largest norm kept; larger slices are scaled down to it.

    Returns
    -------
    Tensor
        Shaped as ``input``.
    """
    x = _t(input)
    d = x._data
    if d.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {d.ndim} dimensions")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if d.dtype.kind not in "fc":
        raise NotImplementedError(f'"renorm_out" not implemented for \'{_tname(d.dtype)}\'')
    return _compose(_RenormBackward0, _renorm_fn, [x], [d],
                    {"p": float(p), "axis": _dim(dim, d.ndim), "maxnorm": float(maxnorm)})
