"""compat operations: statistics (quantile, std_mean/var_mean, nanmean, aminmax, cov,
corrcoef, diff) and counting (searchsorted, bucketize, bincount, histc, histogram,
histogramdd, unique, unique_consecutive, count_nonzero).

The differentiable ones adapt ``ftrans.numpy`` functions (:func:`._opbase._compose`);
the counting ones are integer-valued or not differentiable in PyTorch and compute on the
concrete values.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np

from . import _dtype as D
from ._tensor import Tensor, _make_plain, _dim
from .autograd._composite import composite_class
from .. import numpy as _fnp
from ._opbase import _compose, _tname, _default_float, _any_traced, _promote_datas
from . import _reductions as _R
from ._out import with_out
from ._outsig import set_out_signature
from .types import DTypeArg, Number, TensorOrNumber
from ._sort_ops3 import (_pyrange, _ret, _aminmax_ret, _data, _concrete,  # noqa: F401 (_ret:
                         _with_out, bincount, histc, histogram, histogramdd,  # _sort_ops's)
                         unique, unique_consecutive)

__all__ = ["quantile", "nanquantile", "std_mean", "var_mean", "nanmean", "aminmax",
           "count_nonzero", "cov", "corrcoef", "diff", "searchsorted", "bucketize", "bincount",
           "histc", "histogram", "histogramdd", "unique", "unique_consecutive"]
METHODS: dict[str, Callable[..., Any]] = {}

_QuantileBackward0 = composite_class("QuantileBackward0", ("self", "q"))
_NanquantileBackward0 = composite_class("NanquantileBackward0", ("self", "q"))
_NanmeanBackward0 = composite_class("DivBackward0", ("self",))
_CovBackward0 = composite_class("CovBackward0", ("self", "fweights", "aweights"),
                                edge_idx=(0, 2))
_CorrcoefBackward0 = composite_class("CorrcoefBackward0", ("self",))
_DiffBackward0 = composite_class("DiffBackward0", ("self", "prepend", "append"))

# =============================================================================== quantiles
_INTERP = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_fn(x: Any, qt: Any, q: Any, qshape: tuple[int, ...] | None, axis: int | None,
                 method: str, keepdims: bool, nan: bool) -> Any:
    """PyTorch's quantile: ranks ``q (n - 1)`` into the sorted slice (``nan``: ``q (count of
    non-NaN - 1)``, 0 for an all-NaN slice; otherwise the last index, a NaN, for a slice with
    a NaN), rounded for lower/higher/nearest, then ``lerp`` of the two neighbours -- so the
    gradient of a NaN result goes to the NaN element, as in PyTorch."""
    dt = np.dtype(x.dtype)
    nd = x.ndim
    s = _fnp.reshape(x, (-1,)) if axis is None else _fnp.moveaxis(x, axis, -1)
    s = _fnp.sort(s, axis=-1)
    n = s.shape[-1]
    qa = np.asarray(q, dt).reshape(-1) if qt is None else _fnp.reshape(qt, (-1,))  # (nq,)
    isn = _fnp.isnan(s)
    if nan:
        cnt = _fnp.asarray(_fnp.sum(~isn, axis=-1, keepdims=True), dtype=dt)
        ranks = qa * (cnt - 1)
        ranks = _fnp.where(ranks < 0, dt.type(0), ranks)
    else:
        ranks = _fnp.where(_fnp.any(isn, axis=-1, keepdims=True), dt.type(n - 1),
                           qa * dt.type(n - 1))
    if method == "lower":
        ranks = _fnp.floor(ranks)
    elif method == "higher":
        ranks = _fnp.ceil(ranks)
    elif method == "nearest":
        ranks = _fnp.round(ranks)
    below = _fnp.asarray(ranks, dtype=np.int64)
    v = _fnp.take_along_axis(s, below, -1)
    if method in ("linear", "midpoint"):
        w = _fnp.full(ranks.shape, 0.5, dt) if method == "midpoint" else \
            ranks - _fnp.floor(ranks)
        hi = _fnp.take_along_axis(s, _fnp.asarray(_fnp.ceil(ranks), dtype=np.int64), -1)
        d = hi - v
        v = _fnp.where(w < 0.5, v + w * d, hi - d * (1 - w))
    v = _fnp.moveaxis(v, -1, 0)                                 # (nq,) + kept shape
    if keepdims:
        kd = (1,) * nd if axis is None else tuple(
            1 if i == axis else x.shape[i] for i in _pyrange(nd))
        v = _fnp.reshape(v, (v.shape[0],) + kd)
    return _fnp.reshape(v, v.shape[1:]) if qshape is None or len(qshape) == 0 else v


def _quantile(name: str, cls: type, nan: bool) -> Callable[..., Tensor]:
    def op(input: Tensor, q: Tensor | float, dim: int | None = None,  # noqa: A002
           keepdim: bool = False, *, interpolation: str = "linear") -> Tensor:
        d = _data(input, name)
        if d.dtype not in (np.float32, np.float64):
            raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
        if isinstance(q, Tensor):
            qd = np.asarray(q._data)
            if qd.dtype != d.dtype:
                raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
            if qd.ndim > 1:
                raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
            qv: Any = tuple(float(v) for v in qd.reshape(-1))
            qshape: tuple[int, ...] | None = tuple(qd.shape)
        else:
            qd = np.asarray(float(q))
            qv, qshape = float(q), None
        if qd.size and not np.all((qd >= 0) & (qd <= 1)):
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
        if interpolation not in _INTERP:
            raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                               f"midpoint or nearest. Got {interpolation}")
        if d.size == 0:
            raise RuntimeError(f"{name}() input tensor must be non-empty")
        axis = None if dim is None or d.ndim == 0 else _dim(dim, d.ndim)
        params = {"q": qv, "qshape": qshape, "axis": axis, "method": interpolation,
                  "keepdims": keepdim, "nan": nan}
        qt = q._data if isinstance(q, Tensor) else None
        if qt is not None:
            params["q"] = None
        return _compose(cls, _quantile_fn, [input, q if qt is not None else None], [d, qt],
                        params)
    op.__name__ = name
    op.__doc__ = f"""The ``q``-quantiles along ``dim`` (``torch.{name}``).

    {"NaNs are ignored (NaN only for an all-NaN slice)." if nan else
     "NaN where a slice holds a NaN."}

    Parameters
    ----------
    input : Tensor
        A float32 or float64 tensor, not empty.
    q : float or Tensor
        The quantiles in [0, 1]: a number, or a 0-d or 1-d tensor of ``input``'s dtype.
    dim : int, optional
        The dimension reduced (all elements by default).
    keepdim : bool, optional
        Keep ``dim`` with size 1.
    interpolation : str, optional
        Between two data points: ``"linear"``, ``"lower"``, ``"higher"``,
        ``"midpoint"`` or ``"nearest"``.

    Returns
    -------
    Tensor
        ``input``'s shape without ``dim``; a 1-d ``q``'s dimension comes first.

    Raises
    ------
    RuntimeError
        If the dtype, ``q`` or ``interpolation`` is invalid, or ``input`` is empty.
    """
    return op


quantile = _quantile("quantile", _QuantileBackward0, False)
nanquantile = _quantile("nanquantile", _NanquantileBackward0, True)


# =============================================================================== moments
def _moments(name: str, second: Callable[..., Tensor]) -> Callable[..., tuple[Tensor, Tensor]]:
    def op(input: Tensor, dim: int | Sequence[int] | bool | None = None,  # noqa: A002
           unbiased: bool | None = None, keepdim: bool = False, *,
           correction: Number | None = None) -> tuple[Tensor, Tensor]:
        if isinstance(dim, bool):   # the (input, unbiased) overload
            dim, unbiased = None, dim
        if correction is None:
            correction = 0 if unbiased is False else 1
        elif unbiased is not None:
            raise RuntimeError(f"{name}: cannot specify both unbiased and correction")
        v = second(input, dim, keepdim=keepdim, correction=correction)
        return v, _R.mean(input, dim, keepdim)
    op.__name__ = name
    op.__doc__ = f"""The {name[:3]} and the mean over ``dim`` (``torch.{name}``).

    Two graph nodes instead of PyTorch's one (the same gradients).

    Parameters
    ----------
    input : Tensor
        A floating or complex tensor.
    dim : int or sequence of int, optional
        The dimensions reduced (all by default); a bool here is ``unbiased`` (torch's
        ``(input, unbiased)`` overload).
    unbiased : bool, optional
        Bessel's correction (``correction=1``, the default) or not (0).
    keepdim : bool, optional
        Keep the reduced dimensions with size 1.
    correction : Number, optional
        The difference between the sample size and the degrees of freedom.

    Returns
    -------
    tuple of Tensor
        ``({name[:3]}, mean)``.

    Raises
    ------
    RuntimeError
        If both ``unbiased`` and ``correction`` are given.
    """
    return op


var_mean = _moments("var_mean", _R.var)
std_mean = _moments("std_mean", _R.std)


def _axes(dim: int | Sequence[int] | None, ndim: int) -> Any:
    return _R._dims(dim, ndim)


def _nanmean_fn(x: Any, axes: Any, keepdims: bool) -> Any:
    return _fnp.nanmean(x, axis=axes, keepdims=keepdims)


def nanmean(input: Tensor, dim: int | Sequence[int] | None = None,  # noqa: A002
            keepdim: bool = False, *, dtype: DTypeArg = None) -> Tensor:
    """The mean of the non-NaN elements over ``dim`` (``torch.nanmean``).

    Parameters
    ----------
    input : Tensor
        A floating or complex tensor.
    dim : int or sequence of int, optional
        The dimensions reduced (all by default).
    keepdim : bool, optional
        Keep the reduced dimensions with size 1.
    dtype : dtype, optional
        ``input`` is cast to this dtype first.

    Returns
    -------
    Tensor
        ``input``'s shape without ``dim`` (NaN for an all-NaN slice).

    Raises
    ------
    RuntimeError
        If ``input`` is not floating or complex.
    """
    x = input if dtype is None else input.to(dtype)
    d = _data(x, "nanmean")
    if d.dtype.kind not in "fc":
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {_tname(d.dtype)}")
    return _compose(_NanmeanBackward0, _nanmean_fn, [x], [d],
                    {"axes": _axes(dim, d.ndim), "keepdims": keepdim})


def aminmax(input: Tensor, *, dim: int | None = None,  # noqa: A002
            keepdim: bool = False) -> tuple[Tensor, Tensor]:
    """The minimum and maximum over ``dim`` (``torch.aminmax``).

    Ties share the gradient evenly, as ``amin``/``amax``.

    Parameters
    ----------
    input : Tensor
        A real tensor.
    dim : int, optional
        The dimension reduced (all elements by default).
    keepdim : bool, optional
        Keep ``dim`` with size 1.

    Returns
    -------
    aminmax
        ``(min, max)``, ``input``'s dtype.

    Raises
    ------
    RuntimeError
        If ``input`` is complex, or empty with no ``dim``.
    IndexError
        If ``dim`` has size 0.
    """
    d = _data(input, "aminmax")
    if d.dtype.kind == "c":
        raise RuntimeError("aminmax(): does not support complex input")
    if dim is None:
        if d.size == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as "
                               "the operation has no identity.")
        return _aminmax_ret(_R.amin(input, (), keepdim), _R.amax(input, (), keepdim))
    ax = _dim(dim, d.ndim)
    if d.ndim and d.shape[ax] == 0:
        raise IndexError(f"aminmax(): Expected reduction dim {ax} to have non-zero size.")
    return _aminmax_ret(_R.amin(input, ax, keepdim), _R.amax(input, ax, keepdim))


aminmax = _with_out(aminmax)


def count_nonzero(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:  # noqa: A002
    """The number of non-zero elements over ``dim`` (``torch.count_nonzero``).

    Parameters
    ----------
    input : Tensor
        The input.
    dim : int or sequence of int, optional
        The dimensions reduced (all by default).

    Returns
    -------
    Tensor
        int64, ``input``'s shape without ``dim``.
    """
    d = _data(input, "count_nonzero")
    axes = _axes(dim, d.ndim)
    return _make_plain(_fnp.asarray(_fnp.sum(d != 0, axis=axes), dtype=np.int64))


# =============================================================================== cov
def _real_dtype(v: Any) -> Any:
    return np.dtype(v.dtype).type(0).real.dtype


def _cov_fn(x: Any, fw: Any, aw: Any, correction: Number) -> Any:
    """PyTorch's ``cov``: the weights ``fw * aw``, their sum and the normalization in the
    weights' own dtype (0-d values divide without promoting, as PyTorch's 0-d tensors); a
    normalization <= 0 becomes 0."""
    x2 = _fnp.reshape(x, (1, -1)) if x.ndim < 2 else x
    if fw is not None:   # (integer weights times floats keep the floats' dtype in PyTorch)
        fw = _fnp.asarray(fw, dtype=_real_dtype(x2) if aw is None else np.dtype(aw.dtype))
    w = fw if aw is None else (aw if fw is None else fw * aw)
    xw = x2 if w is None else x2 * w
    num = _fnp.sum(xw, axis=1)
    rdt = _real_dtype(num)
    if w is None:
        w_sum = rdt.type(x2.shape[1])
        nf = rdt.type(x2.shape[1] - correction)
    else:
        w_sum = _fnp.sum(w)
        if aw is not None and correction != 0:
            nf = w_sum - correction * _fnp.sum(w * aw) / w_sum
        else:
            nf = w_sum - correction
        w_sum = _fnp.asarray(w_sum, dtype=rdt)
    avg = num / w_sum
    xc = x2 - avg[:, None]
    xcw = xc if w is None else xc * w
    c = _fnp.matmul(xc, _fnp.conj(xcw).T if np.dtype(xcw.dtype).kind == "c" else xcw.T)
    nf = _fnp.asarray(nf, dtype=_real_dtype(c))
    nf = _fnp.where(nf <= 0, _real_dtype(c).type(0), nf)
    return _fnp.squeeze(c / nf)


def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,  # noqa: A002
        aweights: Tensor | None = None) -> Tensor:
    """The covariance matrix of the variables (rows) of ``input`` (``torch.cov``).

    Parameters
    ----------
    input : Tensor
        The observations: ``(variables, observations)``, or 1-d for one variable; integer
        inputs give the default float dtype.
    correction : int, optional
        The difference between the sample size and the degrees of freedom (1: Bessel's).
    fweights : Tensor, optional
        Non-negative integer frequency weights, one per observation.
    aweights : Tensor, optional
        Non-negative float observation weights.

    Returns
    -------
    Tensor
        ``(variables, variables)``, or 0-d for one variable.

    Raises
    ------
    RuntimeError
        If ``input`` has more than 2 dimensions or a weight is invalid.
    """
    d = _data(input, "cov")
    if d.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {d.ndim} dimensions")
    x = input
    if d.dtype.kind not in "fc":
        x = input.to(D.from_np(_default_float()))
    fw = None if fweights is None else _data(fweights, "cov", "fweights")
    aw = None if aweights is None else _data(aweights, "cov", "aweights")
    if fw is not None and fw.dtype.kind not in "iu":
        raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights "
                           f"with {_tname(fw.dtype)} dtype")
    if aw is not None and aw.dtype.kind != "f":
        raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got "
                           f"aweights with {_tname(aw.dtype)} dtype")
    n = 1 if d.ndim == 0 else d.shape[-1]
    for w, nm in ((fw, "fweights"), (aw, "aweights")):
        if w is None:
            continue
        if w.ndim > 1:
            raise RuntimeError(f"cov(): expected {nm} to have one or fewer dimensions but got "
                               f"{nm} with {w.ndim} dimensions")
        if w.size != n:
            raise RuntimeError(f"cov(): expected {nm} to have the same numel as there are "
                               f"observations in the input but got {w.size} != {n}")
        if not _any_traced(w) and np.any(np.asarray(w) < 0):
            raise RuntimeError(f"cov(): {nm} cannot be negative")
    xd = x._data
    return _compose(_CovBackward0, _cov_fn, [x, None, aweights], [xd, fw, aw],
                    {"correction": correction})


def _corrcoef_fn(x: Any) -> Any:
    return _fnp.corrcoef(x if x.ndim else _fnp.reshape(x, (1,)), dtype=np.dtype(x.dtype))


def corrcoef(input: Tensor) -> Tensor:  # noqa: A002
    """Pearson correlation coefficients of the rows of ``input`` (``torch.corrcoef``).

    Parameters
    ----------
    input : Tensor
        The observations: ``(variables, observations)``, or 1-d.

    Returns
    -------
    Tensor
        ``(variables, variables)``, or 0-d for one variable.

    Raises
    ------
    RuntimeError
        If ``input`` has more than 2 dimensions.
    """
    d = _data(input, "corrcoef")
    if d.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but "
                           f"got an input with {d.ndim} dimensions")
    x = input if d.dtype.kind in "fc" else input.to(D.from_np(_default_float()))
    xd = x._data
    return _compose(_CorrcoefBackward0, _corrcoef_fn, [x], [xd])


# =============================================================================== diff
def _diff_fn(x: Any, p: Any, a: Any, n: int, axis: int) -> Any:
    nv = np._NoValue
    return _fnp.diff(x, n, axis, nv if p is None else p, nv if a is None else a)


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,  # noqa: A002
         append: Tensor | None = None) -> Tensor:
    """The ``n``-th forward difference along ``dim`` (``torch.diff``).

    Parameters
    ----------
    input : Tensor
        The input (at least 1-d); bool tensors give ``!=`` of neighbours.
    n : int, optional
        How many times to difference (non-negative).
    dim : int, optional
        The dimension.
    prepend, append : Tensor, optional
        Concatenated before / after ``input`` along ``dim`` first (same other sizes).

    Returns
    -------
    Tensor
        ``dim`` shortened by ``n``; the promoted dtype.

    Raises
    ------
    RuntimeError
        If ``input`` is 0-d, ``n`` negative or the shapes do not match.
    """
    d = _data(input, "diff")
    if d.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    ax = _dim(dim, d.ndim)
    parts = [input] + [t for t in (prepend, append) if t is not None]
    datas = []
    for t in parts:
        td = _data(t, "diff")
        if td.ndim != d.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as "
                               "input")
        for i in _pyrange(d.ndim):
            if i != ax and td.shape[i] != d.shape[i]:
                raise RuntimeError("diff expects the shape of tensor to prepend or append to "
                                   "match that of input except along the differencing "
                                   "dimension;")
        datas.append(td)
    r = _promote_datas(parts) if len(parts) > 1 else d.dtype
    datas = [v if v.dtype == r else _fnp.asarray(v, dtype=r) for v in datas]
    p = datas[1] if prepend is not None else None
    a = datas[-1] if append is not None else None
    params = {"n": int(n), "axis": ax}
    if r.kind not in "fc":
        return _make_plain(_diff_fn(datas[0], p, a, **params))
    return _compose(_DiffBackward0, _diff_fn, [input, prepend, append], [datas[0], p, a],
                    params, mask=0)


# =============================================================================== searching
def _search_rows(seq: Any, vals: Any, side: Literal["left", "right"], sorter: Any) -> Any:
    """``numpy.searchsorted`` per row of the last axis (the leading axes of ``seq`` and
    ``vals`` match) or of the 1-d ``seq``."""
    if seq.ndim == 1:
        return _fnp.searchsorted(seq, vals, side=side, sorter=sorter)
    seq, vals = _concrete(seq, "searchsorted"), _concrete(vals, "searchsorted")
    if sorter is not None:
        seq = np.take_along_axis(seq, np.asarray(sorter), -1)
    rows = int(np.prod(seq.shape[:-1], dtype=np.int64))
    s2 = seq.reshape(rows, seq.shape[-1])
    v2 = vals.reshape(rows, vals.shape[-1])
    out = np.zeros(v2.shape, np.int64)
    for i in _pyrange(rows):
        out[i] = np.searchsorted(s2[i], v2[i], side=side)
    return out.reshape(vals.shape)


def searchsorted(sorted_sequence: Tensor, input: TensorOrNumber, *,  # noqa: A002
                 out_int32: bool = False, right: bool = False, side: str | None = None,
                 sorter: Tensor | None = None) -> Tensor:
    """Insertion indices of values into sorted rows (``torch.searchsorted``).

    Parameters
    ----------
    sorted_sequence : Tensor
        Sorted 1-d tensor, or rows sorted along the last dimension.
    input : Tensor or Number
        The values (a number only for a 1-d ``sorted_sequence``); the leading dimensions
        match ``sorted_sequence``'s.
    out_int32 : bool, optional
        int32 indices (int64 by default).
    right : bool, optional
        Insert after equal elements.
    side : {"left", "right"}, optional
        The same as ``right`` (not opposite to it).
    sorter : Tensor, optional
        int64 indices that sort each row of ``sorted_sequence``.

    Returns
    -------
    Tensor
        Integer indices, shaped as ``input``.

    Raises
    ------
    RuntimeError
        If the shapes, ``side`` or ``sorter`` are invalid.
    """
    seq = _data(sorted_sequence, "searchsorted", "sorted_sequence")
    if isinstance(input, Tensor):
        vals = input._data
    else:
        vals = np.asarray(input)
        if seq.ndim != 1:
            raise RuntimeError("searchsorted(): input value can be a scalar only when "
                               "boundaries tensor dimension is 1, but we got boundaries tensor "
                               f"dim({seq.ndim}) and input value's dim(0) numel(1)")
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == "right"
    if seq.ndim == 0:
        raise RuntimeError("searchsorted(): boundaries tensor should have positive dimension, "
                           "but got 0 dimension")
    if seq.ndim != 1 and (vals.ndim != seq.ndim or vals.shape[:-1] != seq.shape[:-1]):
        raise RuntimeError("searchsorted(): boundaries tensor should be 1 dimension or the "
                           "first N-1 dimensions of boundaries tensor and input value tensor "
                           f"must match, but we got boundaries tensor {list(seq.shape)} and "
                           f"input value tensor {list(vals.shape)}")
    srt = None
    if sorter is not None:
        srt = _data(sorter, "searchsorted", "sorter")
        if srt.dtype != np.int64:
            raise RuntimeError("torch.searchsorted(): sorter must be a tensor of long dtype but "
                               f"got dtype {_tname(srt.dtype)}")
        if srt.shape != seq.shape:
            raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same "
                               f"size, but got boundary tensor {list(seq.shape)}and got sorter "
                               f"tensor {list(srt.shape)}")
        if srt.size and not _any_traced(srt) and (np.min(srt) < 0 or
                                                  np.max(srt) >= seq.shape[-1]):
            raise RuntimeError("torch.searchsorted(): sorter index out of range")
    if vals.dtype != seq.dtype and isinstance(input, Tensor):
        r = _promote_datas([sorted_sequence, input])
        seq = seq if seq.dtype == r else _fnp.asarray(seq, dtype=r)
        vals = vals if vals.dtype == r else _fnp.asarray(vals, dtype=r)
    res = _search_rows(seq, vals, "right" if right else "left", srt)
    return _make_plain(_fnp.asarray(res, dtype=np.int32 if out_int32 else np.int64))


def bucketize(input: TensorOrNumber, boundaries: Tensor, *, out_int32: bool = False,  # noqa: A002
              right: bool = False) -> Tensor:
    """The bucket of each value in 1-d ``boundaries`` (``torch.bucketize``).

    Parameters
    ----------
    input : Tensor or Number
        The values.
    boundaries : Tensor
        Increasing 1-d boundaries.
    out_int32 : bool, optional
        int32 indices (int64 by default).
    right : bool, optional
        ``boundaries[i-1] <= x < boundaries[i]`` (False: ``<`` then ``<=``).

    Returns
    -------
    Tensor
        Integer indices, shaped as ``input``.

    Raises
    ------
    RuntimeError
        If ``boundaries`` is not 1-d.
    """
    b = _data(boundaries, "bucketize", "boundaries", 2)
    if b.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({b.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)



quantile, nanquantile, nanmean, searchsorted, bucketize, histc, diff, cov, corrcoef = (
    set_out_signature(with_out(f), f)
    for f in (quantile, nanquantile, nanmean, searchsorted, bucketize, histc, diff, cov,
              corrcoef))
histogram = _with_out(histogram)


def _method(f: Callable[..., Any]) -> Callable[..., Any]:
    """The method form of ``f``: its signature (``self`` as the first argument) and
    docstring."""
    @functools.wraps(f)
    def m(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        return f(self, *args, **kwargs)
    return m


for _f in (quantile, nanquantile, nanmean, aminmax, count_nonzero, cov, corrcoef, diff,
           bincount, histc, histogram, unique, unique_consecutive):
    METHODS[_f.__name__] = _method(_f)
del _f
