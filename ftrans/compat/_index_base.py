"""Shared helpers of the scatter/index operations (:mod:`._index_ops`): index checks, the
one composition every update uses (``_update_fn``: set/add/multiply/max/min at indices)
and its recording (``_updated``)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ._tensor import Tensor
from .. import numpy as _fnp
from .. import lax as _lax
from ._opbase import _compose, _tname
from ._index_ops2 import _data

_OPS = {"set": "set", "sum": "add", "add": "add", "mean": "add", "prod": "multiply",
        "multiply": "multiply", "amax": "max", "amin": "min"}


# =============================================================================== helpers
def _index_data(index: Any, name: str) -> Any:
    ix = _data(index)
    if ix.dtype.kind not in "iu":
        raise RuntimeError(f"{name}(): Expected dtype int64 for index")
    return ix.astype(np.int64, copy=False)


def _check_bounds(ix: Any, n: Any, dim: Any, exc: Any = RuntimeError, prefix: str = "",
                  wrap: bool = False) -> Any:
    """``ix`` in ``[0, n)`` (``[-n, n)`` with ``wrap``, then wrapped); torch's error."""
    if ix.size:
        lo = -n if wrap else 0
        bad = ix[(ix < lo) | (ix >= n)]
        if bad.size:
            raise exc(f"{prefix}index {int(bad.flat[0])} is out of bounds for dimension {dim} "
                      f"with size {n}")
    return np.where(ix < 0, ix + n, ix) if wrap else ix


def _same_dtype(name: str, d: Any, sd: Any, what: str = "src") -> None:
    if sd.dtype != d.dtype:
        raise RuntimeError(f"{name}(): Expected self.dtype to be equal to {what}.dtype")


def _identity(dtype: Any, op: str) -> Any:
    """The neutral element of the reduction ``op`` in ``dtype`` (``include_self=False``)."""
    if op in ("sum", "mean"):
        return dtype.type(0)
    if op == "prod":
        return dtype.type(1)
    if dtype.kind == "b":
        return np.bool_(op == "amin")
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return dtype.type(info.min if op == "amax" else info.max)
    return dtype.type(-np.inf if op == "amax" else np.inf)


def _update_fn(x: Any, src: Any, *, idx: Any, op: str, include_self: bool = True, cut: Any = None,
               counts: Any = None, alpha: Any = None, shape: Any = None,
               flat: bool = False) -> Any:
    """``x`` updated at the index ``idx`` with ``src`` by ``op`` (torch's reduction names
    or "set"): the composition of every scatter-like operation.  ``cut``: the part of
    ``src`` used (scatter's ``src[:index.shape]``); ``counts``: how many updates reach
    each position (``mean``, ``include_self=False``); ``alpha``: ``src`` is scaled
    (``index_add``); ``shape``: ``x`` is first broadcast to it (``masked_scatter``);
    ``flat``: ``x`` and ``src`` are indexed flattened (``put``, 0-d operands)."""
    out_shape = tuple(x.shape) if shape is None else shape
    if shape is not None:
        x = _fnp.broadcast_to(x, shape)
    if flat:
        x = _fnp.reshape(x, (-1,))
        src = _fnp.reshape(src, (-1,)) if getattr(src, "ndim", 0) else src
    if cut is not None:
        src = src[cut]
    if alpha is not None:
        src = src * alpha
    if hasattr(src, "dtype") and src.dtype != x.dtype:
        src = _fnp.astype(src, x.dtype)
    written: Any = None   # (where an update lands; set with ``counts``, which mean needs)
    if counts is not None:
        written = counts > 0
        if flat:
            written = written.reshape(-1)
    if not include_self:
        ident = _identity(x.dtype, op)
        masked = _fnp.where(written, ident, x)
        if op in ("amax", "amin"):
            # PyTorch counts an excluded ``self`` equal to the result among the ties that
            # share the gradient (it gets none of it): keep it as a constant candidate
            r0 = _lax.stop_gradient(getattr(_fnp.at(masked)[idx], _OPS[op])(src))
            masked = _fnp.where(written & (x == r0), _lax.stop_gradient(x), masked)
        x = masked
    r = getattr(_fnp.at(x)[idx], _OPS[op])(src)
    if op == "mean":
        c = counts.reshape(-1) if flat else counts
        c = np.where(written, c + (1 if include_self else 0), 1).astype(x.dtype)
        r = _fnp.floor_divide(r, c) if x.dtype.kind in "iub" else r / c
    return _fnp.reshape(r, out_shape) if flat or r.shape != out_shape else r


def _save_with_result(needs: Any) -> Any:
    return (-1, True)


def _refuse_kind(d: Any, reduce: str, kernel: str) -> None:
    """torch's NotImplementedError for reductions it lacks: amax/amin of complex tensors,
    mean of boolean ones."""
    if (d.dtype.kind == "c" and reduce in ("amax", "amin")) or (d.dtype.kind == "b" and
                                                                 reduce == "mean"):
        kernel = kernel or f"scatter_gather_tensor_cpu_reduce_{reduce}"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_tname(d.dtype)}\'')


def _counts(shape: Any, idx: Any) -> Any:
    c = np.zeros(shape, np.int64)
    np.add.at(c, idx, 1)
    return c


def _updated(cls: Any, input: Tensor, src: Any, idx: Any, op: str,  # noqa: A002
             include_self: bool = True, **extra: Any) -> Tensor:
    """The node ``cls`` for :func:`_update_fn` of ``input`` (and the tensor ``src``, or a
    number)."""
    d = input._data
    flat = extra.get("flat", False)
    shape = extra.get("shape") or d.shape
    counts = (_counts((int(np.prod(shape)),) if flat else shape, idx)
              if op == "mean" or not include_self else None)
    params = dict(idx=idx, op=op, include_self=include_self, counts=counts, **extra)
    # torch's nodes for the reductions whose derivative reads the result save it (an
    # in-place write to the result is then an error at backward, as in PyTorch)
    save = _save_with_result if op in ("prod", "amax", "amin") else -1
    if isinstance(src, Tensor):
        return _compose(cls, _update_fn, [input, src], [d, src._data], params, mask=save)
    return _compose(cls, _update_fn, [input], [d], dict(params, src=src), mask=save)


def _along_dim(ix: Any, dim: Any) -> Any:
    """The NumPy index addressing ``index``'s positions with ``dim`` replaced by ``ix``."""
    grids = list(np.indices(ix.shape, sparse=True))
    grids[dim] = ix
    return tuple(grids)
