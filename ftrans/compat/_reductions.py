"""compat operations: reductions (sum, mean, prod, max/min, norm, var/std, logsumexp,
softmax)."""
from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Sequence
from typing import Any, overload

import numpy as np

from . import _dtype as D
from ._tensor import (Tensor, _make_plain, _dim)
from .autograd import graph as G
from .autograd.graph import node_class
from .autograd._composite import composite_class, residual_class
from ..nn import FUSED as _FUSED
from .. import nn as _fnn
from .. import numpy as _fnp
from .. import primitives as P
from ..primitives import structural as S
from ..primitives import reductions as R
from ..primitives import indexing as I
from ..numpy import linalg as _fla

from ._opbase import (SAVE_NONE, SAVE_X, SAVE_X_OUT, _any_traced, _as_float, _compose, _custom,
    _k, _record, _refuse_complex, _tname)
from ._pointwise import (maximum, minimum)
from ._compare_ops import (isnan, where)
from .types import DTypeArg

_DIM_DOC = ("dim : int or sequence of int, optional\n    Dimensions to reduce; all by "
            "default.")
_KEEPDIM_DOC = ("keepdim : bool, default False\n    Keep the reduced dimensions with size "
                "1.")
_DTYPE_DOC = ("dtype : dtype, optional\n    Convert ``input`` to this dtype before the "
              "reduction.")
# =============================================================================== reductions
def _dims(dim: Any, ndim: int) -> tuple[int, ...]:
    """Sorted tuple of non-negative axes for ``dim`` (None: all)."""
    if ndim == 0:
        if dim is not None:
            for d in (dim if isinstance(dim, (tuple, list)) else (dim,)):
                _dim(d, 0)
        return ()
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (tuple, list)):
        if len(dim) == 0:
            return tuple(range(ndim))
        axes = sorted({_dim(d, ndim) for d in dim})
        if len(axes) != len(dim):
            seen = set()
            for d in dim:
                if _dim(d, ndim) in seen:
                    raise RuntimeError(f"dim {_dim(d, ndim)} appears multiple times in the list "
                                       "of dims")
                seen.add(_dim(d, ndim))
        return tuple(axes)
    return (_dim(dim, ndim),)


def _keep_shape(shape: Sequence[int], axes: Sequence[int]) -> tuple[int, ...]:
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def _sum_fn(x: Any, axes: tuple[int, ...], keepdim: bool) -> Any:
    out = P.reduce_sum(x, axes)
    return P.reshape(out, _keep_shape(x.shape, axes)) if keepdim else out


def _mean_fn(x: Any, axes: tuple[int, ...], keepdim: bool, n: int) -> Any:
    return P.div(_sum_fn(x, axes, keepdim), x.dtype.type(n) if x.dtype.kind == "f" else n)


def _self_sizes(n: Any) -> tuple[int, ...]:
    if n._saved is None:
        raise G.freed_error()
    return tuple(n._saved[0].shape)


_size_attr = {"self_sym_sizes": _self_sizes}
_dim_attrs = {"self_sym_sizes": _self_sizes,
              "dim": lambda n: n._params["axes"], "keepdim": lambda n: n._params["keepdim"]}
_SumBackward0 = node_class("SumBackward0", ("self",), params=_size_attr)
_SumBackward1 = composite_class("SumBackward1", ("self",), params=_dim_attrs)
_MeanBackward0 = composite_class("MeanBackward0", ("self",), params=_size_attr)
_MeanBackward1 = composite_class("MeanBackward1", ("self",), params=_dim_attrs)


def sum(input: Tensor, dim: int | Sequence[int] | None = None,  # noqa: A001,A002
        keepdim: bool = False, *, dtype: DTypeArg = None) -> Tensor:
    """Sum over ``dim`` (``torch.sum``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    dim : int or sequence of int, optional
        Dimensions to reduce; all by default.
    keepdim : bool, default False
        Keep the reduced dimensions with size 1.
    dtype : dtype, optional
        Convert ``input`` to this dtype before the reduction.

    Returns
    -------
    Tensor
        The sums; integer and bool tensors give int64, as in PyTorch.
    """
    x = input if dtype is None else input.to(dtype)
    d = x._data
    if d.dtype.kind in "biu":
        axes = _dims(dim, d.ndim)
        return _make_plain(np.asarray(np.sum(d, axis=axes, keepdims=keepdim, dtype=np.int64)))
    if dim is None and not keepdim:
        axes = tuple(range(d.ndim))
        out = _k(S.reduce_sum_p, d)(d, axes=axes)
        return _record(_SumBackward0, S.reduce_sum_p, {"axes": axes}, [x], [d], out, SAVE_NONE)
    return _compose(_SumBackward1, _sum_fn, [x], [d],
                    {"axes": _dims(dim, d.ndim), "keepdim": keepdim}, mask=0)


def nansum(input: Tensor, dim: int | Sequence[int] | None = None,  # noqa: A002
           keepdim: bool = False, *, dtype: DTypeArg = None) -> Tensor:
    """Sum over ``dim`` treating NaN as zero (``torch.nansum``).

    Parameters
    ----------
    input : Tensor
        The input tensor (real).
    dim : int or sequence of int, optional
        Dimensions to reduce; all by default.
    keepdim : bool, default False
        Keep the reduced dimensions with size 1.
    dtype : dtype, optional
        Convert ``input`` to this dtype before the reduction.

    Returns
    -------
    Tensor
        The sums of the non-NaN elements.

    Raises
    ------
    RuntimeError
        For a complex ``input``, as in PyTorch.
    """
    _refuse_complex(input, msg="nansum on CPU does not support complex inputs", exc=RuntimeError)
    return sum(where(isnan(input), 0.0, input), dim, keepdim, dtype=dtype)


def mean(input: Tensor, dim: int | Sequence[int] | None = None,  # noqa: A002
         keepdim: bool = False, *, dtype: DTypeArg = None) -> Tensor:
    """Mean over ``dim`` (``torch.mean``).

    Parameters
    ----------
    input : Tensor
        The input tensor, floating or complex.
    dim : int or sequence of int, optional
        Dimensions to reduce; all by default.
    keepdim : bool, default False
        Keep the reduced dimensions with size 1.
    dtype : dtype, optional
        Convert ``input`` to this dtype before the reduction.

    Returns
    -------
    Tensor
        The means, of ``input``'s dtype.

    Raises
    ------
    RuntimeError
        For an integer or bool ``input`` (PyTorch cannot infer the output dtype).
    """
    x = input if dtype is None else input.to(dtype)
    d = x._data
    if d.dtype.kind not in "fc":
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: "
                           f"{D.from_np(d.dtype)._tname[:-6]}")
    axes = _dims(dim, d.ndim)
    n = 1
    for a in axes:
        n *= d.shape[a]
    cls = _MeanBackward0 if dim is None and not keepdim else _MeanBackward1
    return _compose(cls, _mean_fn, [x], [d], {"axes": axes, "keepdim": keepdim, "n": n}, mask=0)


def _prod_fn(x: Any, axes: tuple[int, ...], keepdim: bool) -> Any:
    out = R.reduce_prod_p.bind(x, axes=axes)
    return P.reshape(out, _keep_shape(x.shape, axes)) if keepdim else out


_ProdBackward0 = node_class("ProdBackward0", ("self",))
_ProdBackward1 = composite_class("ProdBackward1", ("self",))


def prod(input: Tensor, dim: int | None = None, keepdim: bool = False,  # noqa: A002
         *, dtype: DTypeArg = None) -> Tensor:
    """Product over ``dim`` (``torch.prod``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    dim : int, optional
        Dimension to reduce; all by default.
    keepdim : bool, default False
        Keep the reduced dimension with size 1.
    dtype : dtype, optional
        Convert ``input`` to this dtype before the reduction.

    Returns
    -------
    Tensor
        The products; integer and bool tensors give int64, as in PyTorch.
    """
    x = input if dtype is None else input.to(dtype)
    d = x._data
    if d.dtype.kind in "biu":
        return _make_plain(np.asarray(np.prod(d, axis=_dims(dim, d.ndim), keepdims=keepdim,
                                              dtype=np.int64)))
    if dim is None and not keepdim:
        axes = tuple(range(d.ndim))
        out = _k(R.reduce_prod_p, d)(d, axes=axes)
        return _record(_ProdBackward0, R.reduce_prod_p, {"axes": axes}, [x], [d], out, SAVE_X)
    return _compose(_ProdBackward1, _prod_fn, [x], [d],
                    {"axes": _dims(dim, d.ndim), "keepdim": keepdim})


def _amax_fn(x: Any, prim: Any, axes: tuple[int, ...], keepdim: bool) -> Any:
    out = prim.bind(x, axes=axes)
    return P.reshape(out, _keep_shape(x.shape, axes)) if keepdim else out


def _take_fn(x: Any, *arrays: Any, axis: int, keepdim: bool) -> Any:
    """``x`` at the index ``arrays`` (an argmax along ``axis``), as ``max(dim)`` gives it."""
    out = I.gather_p.bind(x, *arrays, template=tuple(I._Slot(k) for k in range(len(arrays))))
    return P.expand_dims(out, (axis,)) if keepdim else out


_AmaxBackward0 = composite_class("AmaxBackward0", ("self",))
_AminBackward0 = composite_class("AminBackward0", ("self",))
_MaxBackward1 = node_class("MaxBackward1", ("self",))
_MinBackward1 = node_class("MinBackward1", ("self",))
_MaxBackward0 = composite_class("MaxBackward0", ("self", "indices"), edge_idx=(0,))
_MinBackward0 = composite_class("MinBackward0", ("self", "indices"), edge_idx=(0,))
_max_ret = namedtuple("max", ["values", "indices"])  # type: ignore[name-match]  # torch.return_types.max
_min_ret = namedtuple("min", ["values", "indices"])  # type: ignore[name-match]  # torch.return_types.min


def _extremum(which: str) -> Callable[..., Any]:
    prim = R.reduce_max_p if which == "max" else R.reduce_min_p
    full_cls = _MaxBackward1 if which == "max" else _MinBackward1
    dim_cls = _MaxBackward0 if which == "max" else _MinBackward0
    argf = np.argmax if which == "max" else np.argmin
    ret = _max_ret if which == "max" else _min_ret
    pair = maximum if which == "max" else minimum

    # torch's stub: the reduction to a 0-d tensor, (values, indices) along a dimension,
    # the elementwise extremum with a tensor
    @overload
    def op(input: Tensor, dim: None = None, keepdim: bool = False) -> Tensor: ...  # noqa: A002
    @overload
    def op(input: Tensor, dim: int,  # noqa: A002
           keepdim: bool = False) -> tuple[Tensor, Tensor]: ...
    @overload
    def op(input: Tensor, dim: Tensor, keepdim: bool = False) -> Tensor: ...  # noqa: A002

    def op(input: Tensor, dim: int | Tensor | None = None,  # noqa: A002
           keepdim: bool = False) -> Tensor | tuple[Tensor, Tensor]:
        if isinstance(dim, Tensor):
            return pair(input, dim)
        d = input._data
        if d.dtype.kind == "c":
            if dim is None:
                raise NotImplementedError(f'"{which}_all" not implemented for '
                                          f"'{_tname(d.dtype)}'")
            raise RuntimeError(f"{which}(): does not support complex input")
        if dim is None:
            if d.size == 0:
                raise RuntimeError(f"{which}(): Expected reduction dim to be specified for "
                                   "input.numel() == 0. Specify the reduction dim with the "
                                   "'dim' argument.")
            axes = tuple(range(d.ndim))
            out = _k(prim, d)(d, axes=axes)
            if d.dtype.kind not in "fc":
                return _make_plain(out)
            return _record(full_cls, prim, {"axes": axes}, [input], [d], out, SAVE_X_OUT)
        ax = _dim(dim, d.ndim)
        if d.ndim == 0:
            return ret(input.clone(), _make_plain(np.zeros((), np.int64)))
        if _any_traced(d):   # under compat.func: the index is traced too (no node)
            idx = getattr(_fnp, argf.__name__)(d, axis=ax, keepdims=True)
            vals = _fnp.take_along_axis(d, idx, axis=ax)
            if not keepdim:
                vals, idx = _fnp.squeeze(vals, ax), _fnp.squeeze(idx, ax)
            return ret(_make_plain(vals), _make_plain(idx))
        idx = argf(d, axis=ax)
        grids = list(np.indices(idx.shape, sparse=True)) if idx.ndim else []
        full = tuple(grids[:ax] + [idx] + grids[ax:])
        vals = d[full]
        if keepdim:
            vals = np.expand_dims(vals, ax)
            idx_out = np.expand_dims(idx, ax)
        else:
            idx_out = idx
        indices = _make_plain(np.asarray(idx_out, dtype=np.int64))
        if d.dtype.kind not in "fc":
            return ret(_make_plain(vals), indices)
        values = _compose(dim_cls, _take_fn, [input, *full], [d, *full],
                          {"axis": ax, "keepdim": keepdim}, mask=0, out=vals)
        return ret(values, indices)
    op.__name__ = which
    op.__doc__ = f"""The {which}imum (``torch.{which}``): of all elements, along ``dim``
    with its indices, or elementwise with a tensor ``dim`` (``torch.{which}(a, b)`` is
    ``torch.{which}imum``).

    Parameters
    ----------
    input : Tensor
        The input tensor (real).
    dim : int or Tensor, optional
        The dimension to reduce (all elements by default); a Tensor: the other operand of
        the elementwise {which}imum.
    keepdim : bool, default False
        Keep the reduced dimension with size 1.

    Returns
    -------
    Tensor or tuple of Tensor
        The {which}imum (a 0-d tensor) without ``dim``; with ``dim`` the named tuple
        ``(values, indices)`` (indices int64); the elementwise result for a tensor ``dim``.

    Raises
    ------
    RuntimeError
        For an empty ``input`` without ``dim``, or complex ``input`` with ``dim``.
    NotImplementedError
        For a complex ``input`` without ``dim``.
    """
    return op


max = _extremum("max")  # noqa: A001
min = _extremum("min")  # noqa: A001


def _amax_like(prim: Any, cls: Any, npf: Any) -> Callable[..., Tensor]:
    kernel = f"{npf.__name__}_values_cpu"
    name = npf.__name__

    def op(input: Tensor, dim: int | Sequence[int] = (),  # noqa: A002
           keepdim: bool = False) -> Tensor:
        d = input._data
        _refuse_complex(input, kernel=kernel)
        axes = _dims(dim if dim != () else None, d.ndim)
        if d.size == 0:   # torch's errors: no identity for an empty max/min
            if dim in ((), None, []):
                raise RuntimeError(f"{npf.__name__}(): Expected reduction dim to be specified "
                                   "for input.numel() == 0. Specify the reduction dim with "
                                   "the 'dim' argument.")
            for a in axes:
                if d.shape[a] == 0:
                    raise IndexError(f"{npf.__name__}(): Expected reduction dim {a} to have "
                                     "non-zero size.")
        params = {"prim": prim, "axes": axes, "keepdim": keepdim}
        if d.dtype.kind not in "fc":
            return _make_plain(_amax_fn(d, **params))
        return _compose(cls, _amax_fn, [input], [d], params)
    op.__doc__ = f"""The {name}imum over ``dim`` (``torch.{name}``); the gradient is shared
    equally among tied elements, as in PyTorch.

    Parameters
    ----------
    input : Tensor
        The input tensor (real).
    dim : int or sequence of int, optional
        Dimensions to reduce; all by default.
    keepdim : bool, default False
        Keep the reduced dimensions with size 1.

    Returns
    -------
    Tensor
        The {name}ima, of ``input``'s dtype.

    Raises
    ------
    RuntimeError
        For an empty ``input`` without ``dim``.
    IndexError
        For a reduced dimension of size 0.
    NotImplementedError
        For a complex ``input``.
    """
    return op


amax = _amax_like(R.reduce_max_p, _AmaxBackward0, np.max)
amin = _amax_like(R.reduce_min_p, _AminBackward0, np.min)


_ARG_COMPLEX = "{}(): does not support complex input"


def _arg_extremum(npf: Any, name: str) -> Callable[..., Tensor]:
    """``argmax``/``argmin``: int64 indices (of the flattened tensor when ``dim`` is None);
    complex tensors are refused as in PyTorch."""
    def f(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:  # noqa: A002
        _refuse_complex(input, msg=_ARG_COMPLEX.format(name), exc=RuntimeError)
        d = input._data
        if dim is None:
            r = npf(d)
            return _make_plain(np.asarray(r, np.int64).reshape((1,) * d.ndim if keepdim
                                                                else ()))
        r = npf(d, axis=_dim(dim, d.ndim), keepdims=keepdim)
        return _make_plain(np.asarray(r, np.int64))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""Indices of the {name[3:]}imum (``torch.{name}``), the first at ties.

    Parameters
    ----------
    input : Tensor
        The input tensor (real).
    dim : int, optional
        The dimension to reduce; by default the index into the flattened tensor.
    keepdim : bool, default False
        Keep the reduced dimension(s) with size 1.

    Returns
    -------
    Tensor
        int64 indices.

    Raises
    ------
    RuntimeError
        For a complex ``input``.
    """
    return f


argmax = _arg_extremum(np.argmax, "argmax")
argmin = _arg_extremum(np.argmin, "argmin")


def any(input: Tensor, dim: int | Sequence[int] | None = None,  # noqa: A001,A002
        keepdim: bool = False) -> Tensor:
    """True where any element along ``dim`` is nonzero (``torch.any``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    dim : int or sequence of int, optional
        Dimensions to reduce; all by default.
    keepdim : bool, default False
        Keep the reduced dimensions with size 1.

    Returns
    -------
    Tensor
        A bool tensor.
    """
    d = input._data
    return _make_plain(np.asarray(np.any(d, axis=None if dim is None else _dims(dim, d.ndim),
                                         keepdims=keepdim)))


def all(input: Tensor, dim: int | Sequence[int] | None = None,  # noqa: A001,A002
        keepdim: bool = False) -> Tensor:
    """True where all elements along ``dim`` are nonzero (``torch.all``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    dim : int or sequence of int, optional
        Dimensions to reduce; all by default.
    keepdim : bool, default False
        Keep the reduced dimensions with size 1.

    Returns
    -------
    Tensor
        A bool tensor.
    """
    d = input._data
    return _make_plain(np.asarray(np.all(d, axis=None if dim is None else _dims(dim, d.ndim),
                                         keepdims=keepdim)))


def _vnorm_fn(x: Any, ord: float, axes: tuple[int, ...], keepdim: bool) -> Any:
    return _fla.vector_norm(x, axis=axes, keepdims=keepdim, ord=ord)   # derivative 0 at 0


def _mnorm_fn(x: Any, ord: Any, axes: tuple[int, int], keepdim: bool) -> Any:
    return _fla.norm(x, ord=ord, axis=axes, keepdims=keepdim)


_LinalgVectorNormBackward0 = composite_class("LinalgVectorNormBackward0", ("self",))
_NormBackward = composite_class("SumBackward1", ("self",))


def norm(input: Tensor, p: float | str | None = "fro",  # noqa: A002
         dim: int | Sequence[int] | None = None, keepdim: bool = False,
         dtype: DTypeArg = None) -> Tensor:
    """A vector norm or the nuclear norm (``torch.norm``).

    ``ftrans.numpy.linalg``'s norms: a vector norm of any order ``p`` over ``dim``, or the
    nuclear norm ``p='nuc'`` of the matrices over ``dim``.

    Parameters
    ----------
    input : Tensor
        The input tensor.
    p : float or str or None, default 'fro'
        The order: a number (0 counts the nonzero elements, with a zero gradient where
        PyTorch's is None), ``'fro'`` or None (2), or ``'nuc'``.
    dim : int or sequence of int, optional
        Dimensions of the vector norm (all by default); for ``'nuc'`` the two matrix
        dimensions (the last two by default).
    keepdim : bool, default False
        Keep the reduced dimensions with size 1.
    dtype : dtype, optional
        Convert ``input`` to this dtype first.

    Returns
    -------
    Tensor
        The norms, real.

    Raises
    ------
    RuntimeError
        For an unknown string ``p`` or a ``dim`` of ``'nuc'`` that is not two dimensions.
    """
    x = input if dtype is None else input.to(dtype)
    d = x._data
    if isinstance(p, str):
        if p == "nuc":
            dims = (-2, -1) if dim is None else ((dim,) if isinstance(dim, int) else dim)
            axes = tuple(_dim(a, d.ndim) for a in dims)
            if len(axes) != 2:
                raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {dim}")
            return _compose(_NormBackward, _mnorm_fn, [x], [d],
                            {"ord": "nuc", "axes": axes, "keepdim": keepdim})
        if p != "fro":
            raise RuntimeError(f"norm(): invalid norm order '{p}'")
        p = 2
    if p is None:
        p = 2
    return _compose(_LinalgVectorNormBackward0, _vnorm_fn, [x], [d],
                    {"ord": float(p), "axes": _dims(dim, d.ndim), "keepdim": keepdim})


_VarBackward0 = composite_class("VarBackward0", ("self",))
_StdBackward0 = composite_class("StdBackward0", ("self",))


def _var_fn(x: Any, axes: tuple[int, ...], ddof: float, keepdim: bool) -> Any:
    return _fnp.var(x, axis=axes, ddof=ddof, keepdims=keepdim)


def _std_fn(x: Any, axes: tuple[int, ...], ddof: float, keepdim: bool) -> Any:
    return _fnp.std(x, axis=axes, ddof=ddof, keepdims=keepdim)   # derivative 0 if constant


def _var_like(fn: Any, cls: Any, name: str) -> Callable[..., Tensor]:
    def op(input: Tensor, dim: int | Sequence[int] | bool | None = None,  # noqa: A002
           unbiased: bool | None = None, keepdim: bool = False, *,
           correction: float | None = None) -> Tensor:
        if isinstance(dim, bool):   # torch's overload var(input, unbiased)
            dim, unbiased = None, dim
        if correction is None:
            correction = 0 if unbiased is False else 1
        elif unbiased is not None:
            raise RuntimeError(f"{name}: Cannot pass both correction and unbiased arguments")
        d = input._data
        if d.dtype.kind not in "fc":
            raise RuntimeError(f"{name}(): input dtype should be either floating point or "
                               f"complex. Got {_tname(d.dtype)} instead.")
        return _compose(cls, fn, [input], [d], {"axes": _dims(dim, d.ndim),
                                                "ddof": correction, "keepdim": keepdim})
    op.__name__ = name
    what = "Standard deviation" if name == "std" else "Variance"
    const = " A constant slice has gradient 0, as in PyTorch." if name == "std" else ""
    op.__doc__ = f"""{what} over ``dim`` (``torch.{name}``).

    With Bessel's ``correction``; the positional ``unbiased`` of torch's overloads is
    accepted (``{name}(t, False)``).{const}

    Parameters
    ----------
    input : Tensor
        The input tensor, floating or complex.
    dim : int or sequence of int or bool, optional
        Dimensions to reduce (all by default); a bool is torch's ``{name}(input, unbiased)``.
    unbiased : bool, optional
        False for ``correction=0``.
    keepdim : bool, default False
        Keep the reduced dimensions with size 1.
    correction : float, optional
        The divisor is ``N - correction``; 1 by default.

    Returns
    -------
    Tensor
        The {what.lower()}, real.

    Raises
    ------
    RuntimeError
        For an integer ``input``, or both ``correction`` and ``unbiased`` given.
    """
    return op


var = _var_like(_var_fn, _VarBackward0, "var")
std = _var_like(_std_fn, _StdBackward0, "std")


def _logsumexp_fn(x: Any, axes: tuple[int, ...], keepdim: bool) -> Any:
    return _fnn.logsumexp(x, axis=axes, keepdims=keepdim)   # (complex too: shift by max real)


def logsumexp(input: Tensor, dim: int | Sequence[int],  # noqa: A002
              keepdim: bool = False) -> Tensor:
    """``log(sum(exp(input), dim))`` computed stably (``torch.logsumexp``).

    For complex ``input`` the shift is the largest real part, as in PyTorch, so the
    imaginary part is the principal argument of the sum; the gradient is
    ``grad * conj(exp(input - result))``.

    Parameters
    ----------
    input : Tensor
        The input tensor; integers are promoted to the default float dtype.
    dim : int or sequence of int
        Dimensions to reduce.
    keepdim : bool, default False
        Keep the reduced dimensions with size 1.

    Returns
    -------
    Tensor
        The reduced tensor, floating.
    """
    d = _as_float(input._data)
    return _compose(composite_class("LogsumexpBackward0", ("self",)), _logsumexp_fn, [input],
                    [d], {"axes": _dims(dim, d.ndim), "keepdim": keepdim})


_sm_attrs = {"dim": lambda n: n._params["axes"][0]}
_SoftmaxBackward0 = residual_class("SoftmaxBackward0", ("_axes", "self"), params=_sm_attrs,
                                   edge_idx=(1,))
_LogSoftmaxBackward0 = residual_class("LogSoftmaxBackward0", ("_axes", "self"),
                                      params=_sm_attrs, edge_idx=(1,))


def _softmax(f: Any, cls: Any, name: str, summary: str) -> Callable[..., Tensor]:
    """torch's ``softmax``/``log_softmax``: ``ftrans.nn``'s fused function ``f`` (the
    result is its residual)."""
    def op(input: Tensor, dim: int | None = None,  # noqa: A002
           dtype: DTypeArg = None) -> Tensor:
        x = input if dtype is None else input.to(dtype)
        d = _as_float(x._data)
        if dim is None:
            dim = 0 if d.ndim in (0, 1, 3) else 1  # PyTorch's legacy implicit choice
        axes = _dims(dim, d.ndim)
        if d.dtype.kind == "c":
            last = "_lastdim" if d.ndim == 0 or axes[0] == d.ndim - 1 else ""
            _refuse_complex(x, kernel=f"{name}{last}_kernel_impl")
        return _custom(cls, f, [axes, x], [axes, d], params={"axes": axes})[0]
    op.__name__ = name
    op.__doc__ = f"""{summary} along ``dim``, computed stably (``torch.{name}``).

    Parameters
    ----------
    input : Tensor
        The input tensor; integers are promoted to the default float dtype.
    dim : int, optional
        The dimension; by default PyTorch's legacy choice (0 for 0-, 1- and 3-d inputs,
        1 otherwise).
    dtype : dtype, optional
        Convert ``input`` to this dtype first.

    Returns
    -------
    Tensor
        Same shape as ``input``, floating.

    Raises
    ------
    NotImplementedError
        For a complex ``input``, as in PyTorch.
    """
    return op


softmax = _softmax(_FUSED["softmax"], _SoftmaxBackward0, "softmax",
                   "``exp(input) / sum(exp(input), dim)``")
log_softmax = _softmax(_FUSED["log_softmax"], _LogSoftmaxBackward0, "log_softmax",
                       "``input - logsumexp(input, dim)``")


