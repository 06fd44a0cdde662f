"""compat operations (continued from :mod:`._sort_ops2`): counting and sets (``bincount``,
``histc``, ``histogram``, ``histogramdd``, ``unique``, ``unique_consecutive``), and the
helpers the statistics share (``torch.return_types`` look-alikes, the ``out=(values,
indices)`` wrapper).

These compute on the concrete values: they are integer-valued or not differentiable in
PyTorch.
"""
from __future__ import annotations

import builtins
from collections import namedtuple
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._tensor import Tensor, _make_plain, _dim
from ._opbase import _any_traced, _tname
from ._out import write_out, _any_rg
from .autograd.grad_mode import _tls, no_grad
from ._outsig import set_out_signature

__all__ = ["bincount", "histc", "histogram", "histogramdd", "unique", "unique_consecutive"]
_pyrange = builtins.range


def _ret(name: str, fields: list[str]) -> Any:
    """A ``torch.return_types.<name>`` look-alike: a named tuple that is also built from one
    sequence, as PyTorch's structseq (``type(r)(iterable)``)."""
    base = namedtuple(name, fields)  # type: ignore[misc]  # (a name chosen at run time)

    def __new__(cls: Any, *args: Any) -> Any:
        return base.__new__(cls, *(args if len(args) == len(fields) else args[0]))

    def __repr__(self: Any) -> str:
        return (f"torch.return_types.{name}(\n"
                + ",\n".join(f"{k}={v!r}" for k, v in zip(fields, self)) + ")")
    t = type(name, (base,), {"__slots__": (), "__new__": __new__, "__repr__": __repr__})
    t.__module__ = "torch.return_types"
    return t


_aminmax_ret = _ret("aminmax", ["min", "max"])
_hist_ret = _ret("histogram", ["hist", "bin_edges"])
_histdd_ret = _ret("histogramdd", ["hist", "bin_edges"])


def _data(t: Any, name: str, arg: str = "input", pos: int = 1) -> Any:
    if not isinstance(t, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not "
                        f"{type(t).__name__}")
    return t._data


def _concrete(d: Any, name: str) -> Any:
    if _any_traced(d):
        raise RuntimeError(f"{name}(): data-dependent output shape; not supported under "
                           "compat.func transforms")
    return np.asarray(d)


def _with_out(f: Callable[..., Any]) -> Callable[..., Any]:
    """``f`` with torch's ``out=(values, indices)``: the results are written into the
    given tensors (:func:`._out.write_out`: resized, same dtype required); an ``out``
    tensor that shares memory with the input is refused, and so is ``out=`` when an
    argument requires grad, as in PyTorch."""
    name = f.__name__

    def g(input: Tensor, *args: Any, out: Any = None, **kwargs: Any) -> Any:  # noqa: A002
        if out is None:
            return f(input, *args, **kwargs)
        if not isinstance(out, (tuple, list)) or not all(isinstance(o, Tensor) for o in out):
            raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors")
        for o in out:
            if isinstance(input, Tensor) and np.shares_memory(o._data, input._data):
                raise RuntimeError("unsupported operation: some elements of the input tensor "
                                   "and the written-to tensor refer to a single memory "
                                   "location. Please clone() the tensor before performing the "
                                   "operation.")
        if _tls.grad and (_any_rg((input,) + args, kwargs) or any(o.requires_grad
                                                                  for o in out)):
            raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires "
                               "grad.")
        with no_grad():
            r = f(input, *args, **kwargs)
        for o, v in zip(out, r):
            if o._data.dtype != v._data.dtype:
                raise RuntimeError(f"Expected out tensor to have dtype {v.dtype}, but got "
                                   f"{o.dtype} instead")
            write_out(o, v, name)
        return type(r)(out)
    return set_out_signature(g, f, "tuple[Tensor, ...] | list[Tensor] | None")



# =============================================================================== counting
def bincount(input: Tensor, weights: Tensor | None = None,  # noqa: A002
             minlength: int = 0) -> Tensor:
    """Occurrences of each non-negative integer (``torch.bincount``).

    Parameters
    ----------
    input : Tensor
        A 1-d tensor of non-negative integers.
    weights : Tensor, optional
        Summed instead of counting, one per element.
    minlength : int, optional
        The least number of bins.

    Returns
    -------
    Tensor
        ``max(input) + 1`` (at least ``minlength``) bins: int64 counts, or the summed
        weights (their dtype for float32/float64 weights, float64 otherwise).

    Raises
    ------
    RuntimeError
        If ``input`` is not 1-d non-negative integers or the weights do not match.
    """
    d = _concrete(_data(input, "bincount"), "bincount")
    if d.ndim != 1 or d.dtype.kind not in "iub" or (d.size and d.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    w = None
    if weights is not None:
        w = _concrete(_data(weights, "bincount", "weights"), "bincount")
        if w.ndim != 1 or w.shape[0] != d.shape[0]:
            raise RuntimeError("weights should be 1-d and have the same length as input")
    r = np.bincount(d, None if w is None else w.astype(np.float64), minlength)
    if w is None:
        return _make_plain(r.astype(np.int64))
    return _make_plain(r.astype(w.dtype if w.dtype in (np.float32, np.float64) else np.float64))


def _linspace(lo: float, hi: float, steps: int, dtype: Any) -> Any:
    """``torch.linspace``'s values (the first half from ``lo``, the second from ``hi``)."""
    dt = np.dtype(dtype)
    lo, hi = dt.type(lo), dt.type(hi)
    if steps == 1:
        return np.array([lo], dt)
    step = (hi - lo) / dt.type(steps - 1)
    i = np.arange(steps)
    half = steps // 2
    return np.where(i < half, lo + step * i.astype(dt), hi - step * (steps - 1 - i).astype(dt)
                    ).astype(dt)


def _bin_counts(x: Any, edges: Any, w: Any) -> Any:
    """Counts (or summed weights) of ``x`` in the bins of the increasing ``edges``: left
    closed, the last bin closed; values outside are dropped."""
    nb = len(edges) - 1
    keep = (x >= edges[0]) & (x <= edges[-1])
    xs = x[keep]
    idx = np.searchsorted(edges, xs, side="right") - 1
    idx = np.minimum(idx, nb - 1)
    return np.bincount(idx, None if w is None else w[keep], nb)


def _float_only(d: Any, name: str) -> None:
    if d.dtype.kind != "f":
        raise NotImplementedError(f'"{name}" not implemented for \'{_tname(d.dtype)}\'')


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:  # noqa: A002
    """A histogram of ``bins`` equal bins over ``[min, max]`` (``torch.histc``).

    Parameters
    ----------
    input : Tensor
        A floating tensor (flattened).
    bins : int, optional
        The number of bins.
    min, max : float, optional
        The range (the data's range when both are 0); values outside are ignored.

    Returns
    -------
    Tensor
        The counts, shape ``(bins,)``, ``input``'s dtype.

    Raises
    ------
    RuntimeError
        If ``input`` is not floating, ``bins`` not positive or the range invalid.
    """
    d = _concrete(_data(input, "histc"), "histc")
    _float_only(d, "histogram_cpu")
    if bins <= 0:
        raise RuntimeError(f"torch.histc(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo > hi:
        raise RuntimeError(f"torch.histc(): max must be larger than min, but got min {lo} "
                           f"and max {hi}")
    if lo == hi and d.size:
        lo, hi = float(d.min()), float(d.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc(): range of [{lo}, {hi}] is not finite")
    edges = _linspace(lo, hi, bins + 1, d.dtype)
    return _make_plain(_bin_counts(d.reshape(-1), edges, None).astype(d.dtype))


def _edges(x: Any, bins: Any, rng: Any, dtype: Any, name: str) -> Any:
    """``(edges,)`` of one dimension: a 1-d tensor of edges, or ``bins`` equal bins over
    ``rng`` (the data's range by default, widened by 0.5 when it is one point)."""
    if isinstance(bins, Tensor):
        e = np.asarray(bins._data)
        if e.dtype != dtype:
            raise RuntimeError(f"torch.{name}: input tensor and bins tensors should have the "
                               "same dtype, but got input " f"{_tname(dtype)} and bins "
                               f"{_tname(e.dtype)}")
        if e.ndim != 1 or e.size < 1:
            raise RuntimeError(f"torch.{name}: bins tensor should have one dimension and at "
                               "least 1 element")
        return e
    bins = int(bins)
    if bins <= 0:
        raise RuntimeError(f"torch.{name}(): bins must be > 0, but got {bins} for dimension 0")
    if rng is not None:
        lo, hi = float(rng[0]), float(rng[1])
        if lo > hi:
            raise RuntimeError(f"torch.{name}(): max must be larger than min, but got min {lo} "
                               f"and max {hi}")
    elif x.size:
        lo, hi = float(x.min()), float(x.max())
    else:
        lo, hi = 0.0, 1.0
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return _linspace(lo, hi, bins + 1, dtype)


def _density(hist: Any, edges_list: Sequence[Any]) -> Any:
    total = hist.sum()
    widths = np.ones_like(hist)
    for i, e in enumerate(edges_list):
        shape = [1] * hist.ndim
        shape[i] = -1
        widths = widths * np.diff(e).reshape(shape)
    return hist / total / widths


def histogram(input: Tensor, bins: int | Tensor = 100, *,  # noqa: A002
              range: Sequence[float] | None = None, weight: Tensor | None = None,  # noqa: A002
              density: bool = False) -> tuple[Tensor, Tensor]:
    """A histogram of ``input`` (``torch.histogram``).

    Parameters
    ----------
    input : Tensor
        A floating tensor (flattened).
    bins : int or Tensor, optional
        The number of equal bins, or a 1-d tensor of increasing edges.
    range : sequence of float, optional
        ``(min, max)`` of the equal bins (the data's range by default).
    weight : Tensor, optional
        Weights shaped as ``input``, summed instead of counting.
    density : bool, optional
        Normalize to a probability density.

    Returns
    -------
    histogram
        ``(hist, bin_edges)``, ``input``'s dtype.

    Raises
    ------
    RuntimeError
        If ``input`` is not floating or the bins, range or weights are invalid.
    """
    d = _concrete(_data(input, "histogram"), "histogram")
    _float_only(d, "histogram_cpu")
    w = None if weight is None else _concrete(_data(weight, "histogram", "weight"), "histogram")
    if w is not None and w.shape != d.shape:
        raise RuntimeError("torch.histogram: if weight tensor is provided, it should have the "
                           "same shape as the input tensor excluding its innermost dimension")
    x = d.reshape(-1)
    e = _edges(x, bins, range, d.dtype, "histogram")
    h = _bin_counts(x, e, None if w is None else w.reshape(-1)).astype(d.dtype)
    if density:
        h = _density(h, [e]).astype(d.dtype)
    return _hist_ret(_make_plain(h), _make_plain(e))


def histogramdd(input: Tensor, bins: int | Sequence[int] | Sequence[Tensor] = 10, *,  # noqa: A002
                range: Sequence[float] | None = None,  # noqa: A002
                weight: Tensor | None = None,
                density: bool = False) -> tuple[Tensor, tuple[Tensor, ...]]:
    """The ``D``-dimensional histogram of points (``torch.histogramdd``).

    Parameters
    ----------
    input : Tensor
        Floating points ``(..., D)``: the last dimension holds the coordinates.
    bins : int or sequence of int or sequence of Tensor, optional
        Equal bins per dimension (one int, or ``D`` ints), or ``D`` 1-d tensors of edges.
    range : sequence of float, optional
        ``(min_1, max_1, ..., min_D, max_D)`` (the data's range by default).
    weight : Tensor, optional
        One weight per point, summed instead of counting.
    density : bool, optional
        Normalize to a probability density.

    Returns
    -------
    histogramdd
        ``(hist, bin_edges)``: the ``D``-dimensional counts and a tuple of ``D`` edges.

    Raises
    ------
    RuntimeError
        If ``input`` is not floating or the bins, range or weights are invalid.
    """
    d = _concrete(_data(input, "histogramdd"), "histogramdd")
    _float_only(d, "histogramdd")
    if d.ndim < 2 and d.ndim != 1:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    nd = d.shape[-1]
    pts = d.reshape(-1, nd)
    nbins: list[Any] = [int(bins)] * nd if isinstance(bins, (int, np.integer)) else \
        list(bins)
    if len(nbins) != nd:
        raise RuntimeError(f"torch.histogramdd: expected {nd} sequences of bin edges for each "
                           f"of the {nd} input dimensions, but got {len(nbins)} sequences")
    if range is not None and len(range) != 2 * nd:
        raise RuntimeError(f"torch.histogramdd: for a {nd}-dimensional histogram range should "
                           f"have {2 * nd} elements, but got {len(range)}")
    w = None if weight is None else _concrete(_data(weight, "histogramdd", "weight"),
                                              "histogramdd").reshape(-1)
    edges = [_edges(pts[:, i], nbins[i], None if range is None else range[2 * i:2 * i + 2],
                    d.dtype, "histogramdd") for i in _pyrange(nd)]
    keep = np.ones(pts.shape[0], bool)
    idx = []
    for i, e in enumerate(edges):
        c = pts[:, i]
        keep &= (c >= e[0]) & (c <= e[-1])
        idx.append(np.minimum(np.searchsorted(e, c, side="right") - 1, len(e) - 2))
    shape = tuple(len(e) - 1 for e in edges)
    flat = np.ravel_multi_index(tuple(np.clip(i[keep], 0, None) for i in idx), shape) \
        if keep.any() else np.zeros(0, np.int64)
    h = np.bincount(flat, None if w is None else w[keep], int(np.prod(shape))).reshape(shape)
    h = h.astype(d.dtype)
    if density:
        h = _density(h, edges).astype(d.dtype)
    return _histdd_ret(_make_plain(h), tuple(_make_plain(e) for e in edges))


# =============================================================================== sets
def _unique_out(vals: Any, inv: Any, counts: Any, return_inverse: bool,
                return_counts: bool) -> Any:
    res = [_make_plain(vals)]
    if return_inverse:
        res.append(_make_plain(np.asarray(inv, np.int64)))
    if return_counts:
        res.append(_make_plain(np.asarray(counts, np.int64)))
    return res[0] if len(res) == 1 else tuple(res)


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim: int | None = None) -> Any:
    """The unique elements, sorted (``torch.unique``).

    Parameters
    ----------
    input : Tensor
        The input.
    sorted : bool, optional
        Accepted (the result is always sorted).
    return_inverse : bool, optional
        Also return the index of each element in the result.
    return_counts : bool, optional
        Also return the count of each unique element.
    dim : int, optional
        Unique slices along ``dim`` (default: elements of the flattened input).

    Returns
    -------
    Tensor or tuple of Tensor
        The unique values, then the int64 inverse indices and counts where asked for.
    """
    d = _concrete(_data(input, "unique"), "unique")
    if dim is None:
        v, inv, cnt = np.unique(d.reshape(-1), return_inverse=True, return_counts=True,
                                equal_nan=False)   # (NaNs are distinct, as in PyTorch)
        return _unique_out(v, inv.reshape(d.shape), cnt, return_inverse, return_counts)
    ax = _dim(dim, d.ndim)
    if d.ndim and d.shape[ax] == 0:
        return _unique_out(d, np.zeros(0), np.zeros(0), return_inverse, return_counts)
    v, inv, cnt = np.unique(d, return_inverse=True, return_counts=True, axis=ax)
    return _unique_out(v, inv.reshape(-1), cnt, return_inverse, return_counts)


def unique_consecutive(input: Tensor, return_inverse: bool = False,  # noqa: A002
                       return_counts: bool = False, dim: int | None = None) -> Any:
    """Each run of equal consecutive elements collapsed to one (``torch.unique_consecutive``).

    Parameters
    ----------
    input : Tensor
        The input.
    return_inverse : bool, optional
        Also return the index of each element in the result.
    return_counts : bool, optional
        Also return the length of each run.
    dim : int, optional
        Runs of equal slices along ``dim`` (default: of the flattened input).

    Returns
    -------
    Tensor or tuple of Tensor
        The values, then the int64 inverse indices and counts where asked for.
    """
    d = _concrete(_data(input, "unique_consecutive"), "unique_consecutive")
    if dim is None:
        x, ax = d.reshape(-1), 0
    else:
        ax = _dim(dim, d.ndim)
        x = d if d.ndim else d.reshape(1)
    n = x.shape[ax] if x.ndim else 1
    xm = np.moveaxis(x, ax, 0).reshape(n, int(np.prod(x.shape, dtype=np.int64)) // n if n
                                       else 0)
    new = np.ones(n, bool)
    if n > 1:
        new[1:] = np.any(xm[1:] != xm[:-1], axis=1)
    starts = np.flatnonzero(new)
    inv = np.cumsum(new) - 1
    cnt = np.diff(np.append(starts, n))
    vals = np.take(x, starts, axis=ax)
    return _unique_out(vals, inv.reshape(d.shape) if dim is None else inv, cnt,
                       return_inverse, return_counts)
