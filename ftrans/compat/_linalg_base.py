"""Shared machinery of ``ftrans.compat.linalg``: ``LinAlgError``, PyTorch's argument
checks and messages, and the recording of an ftrans composition whose results are one or
several tensors (:func:`op`).

No derivative is written here: a differentiable result is recorded by
:func:`ftrans.compat._opbase._compose` as one node whose backward is ``ftrans.vjp`` of
the composition (for a function with several results, of the composition picking that
result -- each result tensor gets its own node of the op's class; PyTorch's one node with
several outputs has the same gradients, since a VJP is linear in the cotangents).
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._tensor import Tensor, _make_plain
from ._out import write_out
from .autograd.grad_mode import _tls, no_grad
from .autograd._composite import composite_class
from ._opbase import _compose, _tname
from ._outsig import set_out_signature

__all__ = ["LinAlgError", "op", "node", "with_out", "need_float", "need_matrix", "need_square",
           "same_dtype", "tensor_arg"]


class _LinAlgError(RuntimeError):
    """``torch.linalg.LinAlgError``: a singular or not positive-definite input (a
    ``RuntimeError``, as in PyTorch, whose class is also called ``_LinAlgError``)."""


LinAlgError = _LinAlgError


_NODES: dict[str, type] = {}
_PICKS: dict[tuple[Callable[..., Any], int], Callable[..., Any]] = {}


def node(name: str, names: Sequence[str] = ("self",)) -> type:
    """The composite node class ``name`` (one per name)."""
    cls = _NODES.get(name)
    if cls is None:
        cls = _NODES[name] = composite_class(name, tuple(names))
    return cls


def _pick(fn: Callable[..., Any], k: int) -> Callable[..., Any]:
    """``fn``'s result ``k`` as a function of the same arguments (one per ``fn``, ``k``,
    so the staging caches of the composite nodes keep it)."""
    f = _PICKS.get((fn, k))
    if f is None:
        def f(*args: Any, **params: Any) -> Any:
            return fn(*args, **params)[k]
        f.__name__ = f"{getattr(fn, '__name__', 'fn')}_{k}"
        _PICKS[(fn, k)] = f
    return f


def _translate(name: str, e: Exception) -> RuntimeError:
    """PyTorch's exception for an error raised by an ftrans function."""
    if isinstance(e, np.linalg.LinAlgError):
        msg = str(e)
        if "singular" in msg.lower():
            return LinAlgError(f"{name}: The solver failed because the input matrix is "
                               "singular.")
        if "positive" in msg.lower():
            return LinAlgError(f"{name}: The factorization could not be completed because "
                               "the input is not positive-definite.")
        return LinAlgError(f"{name}: {msg}")
    return RuntimeError(f"{name}: {e}")


def call(name: str, fn: Callable[..., Any], datas: Sequence[Any],
         params: dict[str, Any]) -> Any:
    """``fn(*datas, **params)`` with NumPy's ``LinAlgError``/``ValueError`` raised as
    PyTorch's ``LinAlgError``/``RuntimeError``."""
    try:
        return fn(*datas, **params)
    except (np.linalg.LinAlgError, ValueError) as e:
        raise _translate(name, e) from None


def op(name: str, node_name: str | None, fn: Callable[..., Any], tensors: Sequence[Tensor],
       params: dict[str, Any] | None = None, names: Sequence[str] = ("self",),
       diff: Sequence[int] | None = None) -> Any:
    """The result(s) of the ftrans composition ``fn(*datas, **params)`` of the tensors'
    data, recorded as composite nodes ``node_name``.  ``diff``: for a function with
    several results, which results are differentiable (default: the float/complex ones);
    the others are plain tensors."""
    params = {} if params is None else params
    datas = [t._data for t in tensors]
    res = call(name, fn, datas, params)
    if not isinstance(res, (tuple, list)):
        return _one(node_name, names, fn, tensors, datas, params, res)
    out = []
    for k, r in enumerate(res):
        ok = (diff is None or k in diff) and getattr(r, "dtype", np.dtype(int)).kind in "fc"
        out.append(_one(node_name, names, _pick(fn, k), tensors, datas, params, r) if ok
                   else _make_plain(r))
    return tuple(out)


def _one(node_name: str | None, names: Sequence[str], fn: Callable[..., Any],
         tensors: Sequence[Tensor], datas: Sequence[Any], params: dict[str, Any],
         res: Any) -> Tensor:
    if node_name is None or getattr(res, "dtype", np.dtype(int)).kind not in "fc":
        return _make_plain(res)
    return _compose(node(node_name, names), fn, list(tensors), datas, params, out=res)


# --------------------------------------------------------------------------- argument checks
def tensor_arg(name: str, v: object, what: str = "A") -> Tensor:
    if not isinstance(v, Tensor):
        raise TypeError(f"{name}(): argument '{what}' (position 1) must be Tensor, not "
                        f"{type(v).__name__}")
    return v


def need_float(name: str, *ts: Tensor, what: str = "input") -> None:
    for t in ts:
        dt = t._data.dtype
        if dt.kind not in "fc" or dt == np.float16:
            raise RuntimeError(f"{name}: Expected a floating point or complex tensor as "
                               f"{what}. Got {_tname(dt)}")


def need_matrix(name: str, t: Tensor, what: str = "A") -> None:
    if t._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {what} must have at least 2 "
                           "dimensions.")


def need_square(name: str, t: Tensor, what: str = "A") -> None:
    need_matrix(name, t, what)
    m, n = t._data.shape[-2:]
    if m != n:
        raise RuntimeError(f"{name}: {what} must be batches of square matrices, but they are "
                           f"{m} by {n} matrices")


def same_dtype(name: str, a: Tensor, b: Tensor, what: Sequence[str] = ("A", "B")) -> None:
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"{name}: Expected {what[0]} and {what[1]} to have the same dtype, "
                           f"but found {what[0]} of type {_tname(a._data.dtype)} and "
                           f"{what[1]} of type {_tname(b._data.dtype)} instead.")


def _needs_grad(values: Sequence[Any]) -> bool:
    for v in values:
        if isinstance(v, Tensor) and v.requires_grad:
            return True
        if isinstance(v, (list, tuple)) and _needs_grad(v):
            return True
    return False


def with_out(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``fn`` with PyTorch's ``out=`` keyword: the result (a tensor, or a tuple of them
    written into the tuple ``out``) is written into ``out`` (``ftrans.compat._out``'s
    rules) and ``out`` is returned; no gradient is recorded, and an argument requiring
    grad is a ``RuntimeError``, as in PyTorch."""
    @functools.wraps(fn)
    def f(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        if out is None:
            return fn(*args, **kwargs)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        if _tls.grad and _needs_grad(list(args) + list(kwargs.values()) + list(outs)):
            raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires "
                               "grad.")
        with no_grad():
            r = fn(*args, **kwargs)
        if isinstance(r, tuple):
            if not isinstance(out, (tuple, list)) or len(out) != len(r):
                raise TypeError(f"{name}(): argument 'out' must be a tuple of {len(r)} "
                                f"Tensors, not {type(out).__name__}")
            for o, x in zip(out, r):
                write_out(o, x, name)
            return type(r)(*out)
        return write_out(out, r, name)
    several = inspect.signature(fn).return_annotation not in ("Tensor", inspect.Signature.empty)
    return set_out_signature(f, fn, "tuple[Tensor, ...] | list[Tensor] | None" if several
                             else "Tensor | None")
