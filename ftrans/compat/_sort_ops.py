"""compat operations: sorting, selection, scans and statistics (sort, topk, cumsum, quantile, unique ...).

Each function adapts one ``ftrans.numpy``/``ftrans.scipy``/``ftrans.nn`` function to
PyTorch's signature; its node's backward is ``ftrans.vjp`` of that function
(:func:`ftrans.compat._opbase._compose`): no derivative is written here.

Selections (``sort``, ``topk``, ``kthvalue``, ``median(dim)``, ``mode``, ``cummax`` ...)
compute their int64 indices first (with ``ftrans.numpy``, so they are traced under
``compat.func``) and record the values as ``take_along_axis(input, indices)``: the
gradient goes to the selected elements, as PyTorch's ``value_selecting_reduction_backward``.
Ties are broken as PyTorch's CPU kernels break them where these are deterministic (stable
sorts; ``cummax``/``cummin`` and ``mode`` take the last occurrence -- PyTorch's ``mode``
index among equal values is unspecified for rows longer than 16).  The scans adapt
``ftrans.numpy.cumsum``/``cumprod`` and ``ftrans.lax.cummax``/``cummin``/``cumlogsumexp``.
The statistics, histograms and set operations live in :mod:`._sort_ops2`.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, overload

import numpy as np

from ._tensor import Tensor, _make_plain, _dim
from .autograd._composite import composite_class
from .. import numpy as _fnp
from .. import lax as _lax
from ._opbase import _compose, _tname, _any_traced
from ._inplace import _inplace
from ._join_ops import clone as _clone
from ._out import with_out
from . import _sort_ops2 as _S2
from ._sort_ops2 import *  # noqa: F401,F403  (re-exported: installed with this module's __all__)
from ._sort_ops2 import _with_out, _method, _ret
from ._outsig import in_place_doc, set_out_signature
from .types import DTypeArg

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode",
           "cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"] + _S2.__all__
METHODS: dict[str, Callable[..., Any]] = {}   # Tensor methods defined here (installed)


_sort_ret = _ret("sort", ["values", "indices"])
_topk_ret = _ret("topk", ["values", "indices"])
_kth_ret = _ret("kthvalue", ["values", "indices"])
_median_ret = _ret("median", ["values", "indices"])
_nanmedian_ret = _ret("nanmedian", ["values", "indices"])
_mode_ret = _ret("mode", ["values", "indices"])
_cummax_ret = _ret("cummax", ["values", "indices"])
_cummin_ret = _ret("cummin", ["values", "indices"])


def _node(name: str) -> type:
    return composite_class(name, ("self", "indices"), edge_idx=(0,))


_SortBackward0 = _node("SortBackward0")
_SortBackward1 = _node("SortBackward1")
_TopkBackward0 = _node("TopkBackward0")
_KthvalueBackward0 = _node("KthvalueBackward0")
_MedianBackward1 = _node("MedianBackward1")
_NanmedianBackward1 = _node("NanmedianBackward1")
_ModeBackward0 = _node("ModeBackward0")
_CummaxBackward0 = _node("CummaxBackward0")
_CumminBackward0 = _node("CumminBackward0")
_MedianBackward0 = composite_class("MedianBackward0", ("self", "mask"), edge_idx=(0,))
_NanmedianBackward0 = composite_class("NanmedianBackward0", ("self", "mask"), edge_idx=(0,))
_CumsumBackward0 = composite_class("CumsumBackward0", ("self",))
_CumprodBackward0 = composite_class("CumprodBackward0", ("self",))
_LogcumsumexpBackward0 = composite_class("LogcumsumexpBackward0", ("self",))


# =============================================================================== helpers
def _data(t: Any, name: str) -> Any:
    if not isinstance(t, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(t).__name__}")
    return t._data


def _select_fn(x: Any, idx: Any, axis: int, keepdim: bool) -> Any:
    """``x`` at the int64 ``idx`` along ``axis`` (``idx`` has size 1 there when
    ``keepdim`` is False: that axis is then dropped)."""
    out = _fnp.take_along_axis(x, idx, axis)
    return out if keepdim else _fnp.squeeze(out, axis)


def _selected(cls: type, x: Tensor, d: Any, idx: Any, axis: int,
              keepdim: bool = True) -> Tensor:
    """The values of ``x`` at ``idx`` along ``axis``, recorded as one node of ``cls``
    (integer/bool tensors: no node)."""
    params: dict[str, Any] = {"axis": axis, "keepdim": keepdim}
    if d.dtype.kind not in "fc":
        return _make_plain(_select_fn(d, idx, **params))
    return _compose(cls, _select_fn, [x, None], [d, idx], params, mask=0)


def _indices(idx: Any, keepdim: bool = True, axis: int = 0) -> Tensor:
    if not keepdim:
        idx = _fnp.squeeze(idx, axis)
    if getattr(idx, "dtype", None) != np.int64:
        idx = _fnp.asarray(idx, dtype=np.int64)
    return _make_plain(idx)


def _as1d(d: Any) -> Any:
    """A 0-d array as shape (1,) (PyTorch treats a scalar as a one-element dimension)."""
    return _fnp.reshape(d, (1,)) if d.ndim == 0 else d


def _back(v: Any, ndim: int) -> Any:
    return _fnp.reshape(v, ()) if ndim == 0 and v.ndim else v


def _sort_idx(d: Any, ax: int, descending: bool) -> Any:
    """Stable sort indices along ``ax`` (NaN largest); equal elements keep their order in
    the descending sort too."""
    if not descending:
        return _fnp.argsort(d, axis=ax)
    n = d.shape[ax]
    i = _fnp.argsort(_fnp.flip(d, ax), axis=ax)
    return (n - 1) - _fnp.flip(i, ax)


def _no_complex_sort(d: Any) -> None:
    if d.dtype.kind == "c":
        raise RuntimeError("Sort does not support complex dtypes on CPU")


def _isnan(d: Any) -> Any:
    return _fnp.isnan(d) if d.dtype.kind in "fc" else _fnp.zeros(d.shape, bool)


# =============================================================================== sorting
def sort(input: Tensor, dim: int = -1, descending: bool = False,  # noqa: A002
         stable: bool | None = None) -> tuple[Tensor, Tensor]:
    """The values sorted along ``dim`` and their indices (``torch.sort``).

    Always a stable sort: ties keep their order; NaN counts as the largest value.

    Parameters
    ----------
    input : Tensor
        A real tensor.
    dim : int, optional
        The dimension sorted.
    descending : bool, optional
        Largest first.
    stable : bool, optional
        Accepted (the sort is always stable).

    Returns
    -------
    sort
        ``(values, indices)``: shaped as ``input``; int64 indices.

    Raises
    ------
    RuntimeError
        If ``input`` is complex.
    """
    d = _data(input, "sort")
    _no_complex_sort(d)
    ax = _dim(dim, d.ndim)
    e = _as1d(d)
    idx = _sort_idx(e, ax, descending)
    cls = _SortBackward0 if stable is None else _SortBackward1
    if d.ndim == 0:
        return _sort_ret(_clone(input), _make_plain(np.zeros((), np.int64)))
    return _sort_ret(_selected(cls, input, d, idx, ax), _indices(idx))


def argsort(input: Tensor, dim: int = -1, descending: bool = False,  # noqa: A002
            stable: bool = False) -> Tensor:
    """The indices that sort ``input`` along ``dim`` (``torch.argsort``).

    Parameters
    ----------
    input : Tensor
        A real tensor.
    dim : int, optional
        The dimension sorted.
    descending : bool, optional
        Largest first.
    stable : bool, optional
        Accepted (the sort is always stable).

    Returns
    -------
    Tensor
        int64, shaped as ``input``.
    """
    d = _data(input, "argsort")
    _no_complex_sort(d)
    ax = _dim(dim, d.ndim)
    idx = _sort_idx(_as1d(d), ax, descending)
    return _make_plain(_back(_fnp.asarray(idx, dtype=np.int64), d.ndim))


def msort(input: Tensor) -> Tensor:  # noqa: A002
    """The input sorted along its first dimension (``torch.msort``).

    Parameters
    ----------
    input : Tensor
        A real tensor.

    Returns
    -------
    Tensor
        ``sort(input, dim=0).values``.
    """
    return sort(input, 0)[0]   # (.values)


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True,  # noqa: A002
         sorted: bool = True) -> tuple[Tensor, Tensor]:  # noqa: A002
    """The ``k`` largest values along ``dim`` and their indices (``torch.topk``).

    Parameters
    ----------
    input : Tensor
        A real tensor.
    k : int
        How many (at most ``dim``'s size).
    dim : int, optional
        The dimension.
    largest : bool, optional
        False: the ``k`` smallest.
    sorted : bool, optional
        Accepted: the result is always sorted (``sorted=False`` allows any order in
        PyTorch).

    Returns
    -------
    topk
        ``(values, indices)``, ``dim`` of size ``k``; int64 indices.

    Raises
    ------
    RuntimeError
        If ``k`` is out of range or ``input`` complex.
    """
    d = _data(input, "topk")
    _no_complex_sort(d)
    ax = _dim(dim, d.ndim)
    e = _as1d(d)
    k = int(k)
    if not 0 <= k <= e.shape[ax]:
        raise RuntimeError("selected index k out of range")
    idx = _sort_idx(e, ax, largest)
    idx = _fnp.take(idx, np.arange(k), axis=ax)
    if d.ndim == 0:
        return _topk_ret(_clone(input), _make_plain(np.zeros((), np.int64)))
    return _topk_ret(_selected(_TopkBackward0, input, d, idx, ax), _indices(idx))


def _check_nonempty(name: str, d: Any, ax: int) -> None:
    if d.ndim and d.shape[ax] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {ax} to have non-zero size.")


def _pick(name: str, ret: Any, cls: type, input: Tensor, d: Any, dim: int,  # noqa: A002
          keepdim: bool, k_of: Callable[[Any, int], Any]) -> Any:
    """``(values, indices)`` of the order statistic ``k_of(sort_indices, d)`` (an index
    of shape 1 along ``dim``, into the ascending stable order)."""
    ax = _dim(dim, d.ndim)
    _check_nonempty(name, d, ax)
    e = _as1d(d)
    order = _fnp.argsort(e, axis=ax)
    idx = _fnp.take_along_axis(order, k_of(e, ax), ax)
    if d.ndim == 0:
        return ret(_clone(input), _make_plain(np.zeros((), np.int64)))
    return ret(_selected(cls, input, d, idx, ax, keepdim), _indices(idx, keepdim, ax))


def kthvalue(input: Tensor, k: int, dim: int = -1,  # noqa: A002
             keepdim: bool = False) -> tuple[Tensor, Tensor]:
    """The ``k``-th smallest value along ``dim`` and its index (``torch.kthvalue``).

    Parameters
    ----------
    input : Tensor
        A real tensor.
    k : int
        1-based rank.
    dim : int, optional
        The dimension.
    keepdim : bool, optional
        Keep ``dim`` with size 1.

    Returns
    -------
    kthvalue
        ``(values, indices)``; int64 indices.

    Raises
    ------
    RuntimeError
        If ``k`` is out of range or ``input`` complex.
    """
    d = _data(input, "kthvalue")
    _no_complex_sort(d)
    ax = _dim(dim, d.ndim)
    n = 1 if d.ndim == 0 else d.shape[ax]
    k = int(k)
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {ax}")

    def k_of(e: Any, a: int) -> Any:
        shape = list(e.shape)
        shape[a] = 1
        return np.full(shape, k - 1, np.int64)
    return _pick("kthvalue", _kth_ret, _KthvalueBackward0, input, d, ax, keepdim, k_of)


def _median_k(ignore_nan: bool) -> Callable[[Any, int], Any]:
    """The position of the lower median in the ascending order (NaN last): the first NaN
    when a slice has one (``median``), or the lower median of the others
    (``nanmedian``)."""
    def k_of(e: Any, a: int) -> Any:
        n = e.shape[a]
        nnan = _fnp.sum(_isnan(e), axis=a, keepdims=True)
        valid = n - nnan
        if ignore_nan:
            return _fnp.where(valid > 0, (valid - 1) // 2, 0)
        return _fnp.where(nnan > 0, valid, (n - 1) // 2)
    return k_of


def _median_all_fn(x: Any, mask: Any, count: Any) -> Any:
    """The median as the mean of the elements equal to it (``mask``): its gradient is
    spread evenly over them, as PyTorch's ``evenly_distribute_backward``."""
    return _fnp.sum(_fnp.where(mask, x, 0)) / count


def _median_all(name: str, cls: type, input: Tensor, d: Any,  # noqa: A002
                ignore_nan: bool) -> Tensor:
    f = _fnp.ravel(d)
    if f.shape[0] == 0:
        return _make_plain(np.full((), np.nan, d.dtype))
    order = _fnp.argsort(f)
    k = _median_k(ignore_nan)(_fnp.reshape(f, (1, -1)), 1)
    v = _fnp.take(f, _fnp.take(order, _fnp.reshape(k, ())))
    if not _any_traced(v):
        v = np.asarray(v)
    if d.dtype.kind not in "fc":
        return _make_plain(v)
    mask = _fnp.where(_fnp.isnan(v), _fnp.isnan(d), d == v)
    count = _fnp.asarray(_fnp.sum(mask), dtype=d.dtype)
    return _compose(cls, _median_all_fn, [input, None, None], [d, mask, count], mask=0,
                    out=v if isinstance(v, np.ndarray) else None)


def _median(name: str, ret: Any, all_cls: type, dim_cls: type, ignore_nan: bool,
            summary: str) -> Callable[..., Any]:
    @overload   # torch's stub: the median of all elements, or (values, indices) along dim
    def op(input: Tensor, dim: None = None, keepdim: bool = False) -> Tensor: ...  # noqa: A002
    @overload
    def op(input: Tensor, dim: int,  # noqa: A002
           keepdim: bool = False) -> tuple[Tensor, Tensor]: ...

    def op(input: Tensor, dim: int | None = None,  # noqa: A002
           keepdim: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        d = _data(input, name)
        _no_complex_sort(d)
        if dim is None:
            return _median_all(name, all_cls, input, d, ignore_nan)
        return _pick(name, ret, dim_cls, input, d, dim, keepdim, _median_k(ignore_nan))
    op.__name__ = name
    op.__doc__ = f"""{summary}

    The LOWER of the two middle values for an even count (not their mean).  Without
    ``dim`` the gradient is spread over the elements equal to the median; with ``dim`` it
    goes to the returned index.

    Parameters
    ----------
    input : Tensor
        A real tensor.
    dim : int, optional
        The dimension (default: the median of all elements, a 0-d tensor).
    keepdim : bool, optional
        Keep ``dim`` with size 1.

    Returns
    -------
    Tensor or {name}
        Without ``dim`` the median; with it ``(values, indices)`` (int64 indices).

    Raises
    ------
    RuntimeError
        If ``input`` is complex.
    IndexError
        If ``dim`` has size 0.
    """
    return op


median = _median("median", _median_ret, _MedianBackward0, _MedianBackward1, False,
                 "The median, NaN where a slice has a NaN (``torch.median``).")
nanmedian = _median("nanmedian", _nanmedian_ret, _NanmedianBackward0, _NanmedianBackward1,
                    True, "The median ignoring NaNs, NaN for an all-NaN slice "
                          "(``torch.nanmedian``).")


def _mode_idx_rows(e: Any, ax: int) -> Any:
    """:func:`_mode_idx` of concrete values, one row at a time (no ``n x n`` comparison)."""
    x = np.moveaxis(np.asarray(e), ax, -1)
    n = x.shape[-1]
    rows = x.reshape(-1, n)
    out = np.zeros(rows.shape[0], np.int64)
    for r in range(rows.shape[0]):
        row = rows[r]
        s = np.sort(row)
        new = np.ones(n, bool)
        new[1:] = s[1:] != s[:-1]
        starts = np.flatnonzero(new)
        cnt = np.diff(np.append(starts, n))
        v = s[starts[np.argmax(cnt)]]       # the first (smallest) of the most frequent
        out[r] = n - 1 - np.argmax((row == v)[::-1])
    return np.moveaxis(out.reshape(x.shape[:-1] + (1,)), -1, ax)


def _mode_idx(e: Any, ax: int) -> Any:
    """Index (size 1 along ``ax``) of the most frequent value (the smallest of equally
    frequent ones), at its last occurrence."""
    if not _any_traced(e) and e.shape[ax] > 64:
        return _mode_idx_rows(e, ax)
    x = _fnp.moveaxis(e, ax, -1)
    n = x.shape[-1]
    eq = x[..., :, None] == x[..., None, :]
    cnt = _fnp.sum(eq, axis=-1)
    best = _fnp.max(cnt, axis=-1, keepdims=True)
    order = _fnp.argsort(x, axis=-1)              # ascending: the first candidate is smallest
    cand = _fnp.take_along_axis(cnt, order, -1) == best
    first = _fnp.argmax(cand, axis=-1)[..., None]
    v = _fnp.take_along_axis(x, _fnp.take_along_axis(order, first, -1), -1)
    pos = _fnp.where(x == v, _fnp.arange(n), -1)
    idx = _fnp.max(pos, axis=-1, keepdims=True)
    return _fnp.moveaxis(idx, -1, ax)


def mode(input: Tensor, dim: int = -1,  # noqa: A002
         keepdim: bool = False) -> tuple[Tensor, Tensor]:
    """The most frequent value along ``dim`` and its index (``torch.mode``).

    The smallest of equally frequent values, at its last occurrence.

    Parameters
    ----------
    input : Tensor
        A real tensor.
    dim : int, optional
        The dimension.
    keepdim : bool, optional
        Keep ``dim`` with size 1.

    Returns
    -------
    mode
        ``(values, indices)``; int64 indices.

    Raises
    ------
    RuntimeError
        If ``input`` is complex.
    IndexError
        If ``dim`` has size 0.
    """
    d = _data(input, "mode")
    _no_complex_sort(d)
    ax = _dim(dim, d.ndim)
    _check_nonempty("mode", d, ax)
    e = _as1d(d)
    idx = _mode_idx(e, ax)
    if d.ndim == 0:
        return _mode_ret(_clone(input), _make_plain(np.zeros((), np.int64)))
    return _mode_ret(_selected(_ModeBackward0, input, d, idx, ax, keepdim),
                     _indices(idx, keepdim, ax))


# =============================================================================== scans
def _scan_fn(x: Any, scan: Callable[..., Any], axis: int, dtype: Any = None) -> Any:
    r = scan(_as1d(x), axis=axis, dtype=dtype)
    return _back(r, x.ndim)


def _cumulative(fn: Callable[..., Any], cls: type, name: str,
                summary: str) -> Callable[..., Tensor]:
    def op(input: Tensor, dim: int, *, dtype: DTypeArg = None) -> Tensor:  # noqa: A002
        d = _data(input, name)
        ax = _dim(dim, d.ndim)
        x = input
        if dtype is not None:
            x = input.to(dtype)
            d = x._data
        if d.dtype.kind in "biu":
            return _make_plain(_scan_fn(d, fn, ax, np.int64))
        return _compose(cls, _scan_fn, [x], [d], {"scan": fn, "axis": ax},
                        mask=0 if fn is _fnp.cumsum else -1)
    op.__name__ = name
    op.__doc__ = f"""{summary}

    Parameters
    ----------
    input : Tensor
        The input.
    dim : int
        The dimension scanned.
    dtype : dtype, optional
        ``input`` is cast to this dtype first.

    Returns
    -------
    Tensor
        Shaped as ``input``; integer and bool tensors give int64.
    """
    return op


cumsum = _cumulative(_fnp.cumsum, _CumsumBackward0, "cumsum",
                     "Cumulative sum along ``dim`` (``torch.cumsum``).")
cumprod = _cumulative(_fnp.cumprod, _CumprodBackward0, "cumprod",
                      "Cumulative product along ``dim`` (``torch.cumprod``; the gradient is "
                      "finite at zeros).")


def _logcumsumexp_fn(x: Any, axis: int) -> Any:
    """``lax.cumlogsumexp``; float32 accumulates in float64 (PyTorch's float32 kernel is
    sequential, the log-step scan rounds more often)."""
    e = _as1d(x)
    if e.dtype == np.float32:
        e = _fnp.asarray(e, dtype=np.float64)
    r = _lax.cumlogsumexp(e, axis)
    return _back(_fnp.asarray(r, dtype=x.dtype) if r.dtype != x.dtype else r, x.ndim)


def logcumsumexp(input: Tensor, dim: int) -> Tensor:  # noqa: A002
    """``log(cumsum(exp(input)))`` along ``dim``, computed stably (``torch.logcumsumexp``).

    Parameters
    ----------
    input : Tensor
        A floating or complex tensor.
    dim : int
        The dimension scanned.

    Returns
    -------
    Tensor
        Shaped as ``input``.

    Raises
    ------
    RuntimeError
        If ``input`` is not floating or complex.
    """
    d = _data(input, "logcumsumexp")
    ax = _dim(dim, d.ndim)
    if d.dtype.kind not in "fc":
        raise NotImplementedError(f'"logcumsumexp_out_cpu" not implemented for \'{_tname(d.dtype)}\'')
    return _compose(_LogcumsumexpBackward0, _logcumsumexp_fn, [input], [d], {"axis": ax})


def _cum_extremum(which: str) -> Callable[..., Any]:
    f = _lax.cummax if which == "cummax" else _lax.cummin
    ret = _cummax_ret if which == "cummax" else _cummin_ret
    cls = _CummaxBackward0 if which == "cummax" else _CumminBackward0

    def op(input: Tensor, dim: int) -> tuple[Tensor, Tensor]:  # noqa: A002
        d = _data(input, which)
        if d.dtype.kind == "c":
            raise NotImplementedError(f'"{which}_cpu" not implemented for '
                                      f"'{_tname(d.dtype)}'")
        ax = _dim(dim, d.ndim)
        e = _as1d(d)
        vals = f(e, ax)
        eq = (e == vals) | (_isnan(e) & _isnan(vals))   # a new extremum or a tie: last one
        shape = [1] * e.ndim
        shape[ax] = e.shape[ax]
        pos = _fnp.where(eq, _fnp.reshape(_fnp.arange(e.shape[ax]), shape), 0)
        idx = _lax.cummax(pos, ax)
        if d.ndim == 0:
            return ret(_clone(input), _make_plain(np.zeros((), np.int64)))
        return ret(_selected(cls, input, d, idx, ax), _indices(idx))
    op.__name__ = which
    op.__doc__ = f"""Running {which[3:]}imum along ``dim`` and its index (``torch.{which}``).

    The index is that of the last occurrence; NaN propagates.

    Parameters
    ----------
    input : Tensor
        A real tensor.
    dim : int
        The dimension scanned.

    Returns
    -------
    {which}
        ``(values, indices)``, shaped as ``input``; int64 indices.

    Raises
    ------
    RuntimeError
        If ``input`` is complex.
    """
    return op


cummax = _cum_extremum("cummax")
cummin = _cum_extremum("cummin")
sort, topk, kthvalue, median, nanmedian, mode, cummax, cummin = (
    _with_out(f) for f in (sort, topk, kthvalue, median, nanmedian, mode, cummax, cummin))
argsort, msort, cumsum, cumprod, logcumsumexp = (
    set_out_signature(with_out(f), f) for f in (argsort, msort, cumsum, cumprod, logcumsumexp))


def _inplace_method(f: Callable[..., Any]) -> Callable[..., Tensor]:
    def m(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return _inplace(self, f, *args, **kwargs)
    m.__name__ = f.__name__ + "_"
    m.__doc__ = in_place_doc(f.__name__)
    return m


for _f in (sort, argsort, msort, topk, kthvalue, median, nanmedian, mode, cumsum, cumprod,
           cummax, cummin, logcumsumexp):
    METHODS[_f.__name__] = _method(_f)
METHODS["cumsum_"] = _inplace_method(cumsum)
METHODS["cumprod_"] = _inplace_method(cumprod)
METHODS.update(_S2.METHODS)
del _f
