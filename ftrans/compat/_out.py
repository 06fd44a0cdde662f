"""``out=`` arguments of the compat functions (PyTorch's "out variants").

``torch.add(a, b, out=t)`` computes the result, then writes it into ``t`` -- converted to
``t``'s dtype when the cast is "same kind" (``RuntimeError`` "result type Float can't be
cast to the desired output type Long" otherwise; matmul-like, indexing, clamp/where
and softmax-like functions need ``t`` of the result's dtype exactly), ``t`` resized
to the result's shape when they differ (with PyTorch's deprecation warning if ``t`` was
not empty) -- bumps ``t``'s version and returns ``t``.  As in PyTorch, out= variants do not record gradients: with
grad mode on, an argument (or ``out``) requiring grad is a ``RuntimeError``.
"""
from __future__ import annotations

import functools
import inspect
import re
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import _dtype as D
from ._tensor import Tensor
from ._opbase import P_OUT, add_param_doc
from ..primitives import optable
from .autograd.grad_mode import _tls, no_grad

__all__ = ["with_out", "OUT_FUNCTIONS"]

OUT_FUNCTIONS = (
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "pow",
    "matmul", "mm", "mv", "bmm", "dot", "outer", "sum", "mean", "prod", "exp", "exp2", "log",
    "log2", "log10", "log1p", "expm1", "sin", "cos", "tan", "tanh", "sinh", "cosh", "asin",
    "acos", "atan", "atan2", "sqrt", "rsqrt", "reciprocal", "neg", "negative", "abs", "sign",
    "square", "sigmoid", "floor", "ceil", "round", "trunc", "maximum", "minimum", "clamp",
    "clip", "where", "cat", "concat", "concatenate", "stack", "hstack", "vstack", "remainder",
    "fmod", "floor_divide", "logsumexp", "amax", "amin", "eq", "ne", "lt", "le", "gt", "ge",
    "logical_and", "logical_or", "logical_not", "logical_xor", "softmax", "log_softmax",
    "index_select", "gather", "tril", "triu", "float_power", "norm", "complex", "polar",
)
# the operation table's rows whose torch function takes out= (torch name and aliases)
OUT_FUNCTIONS += tuple(dict.fromkeys(
    n for op in optable.ROWS if op.torch and op.torch_out
    for n in (op.torch,) + op.torch_aliases if n not in OUT_FUNCTIONS))

# out= variants whose kernels write only their own result dtype (PyTorch refuses another
# dtype of ``out``; elementwise ops cast "same kind" instead)
_EXACT = frozenset(("matmul", "mm", "mv", "bmm", "dot", "softmax", "log_softmax", "norm", "amax",
                    "amin", "index_select", "gather", "tril", "triu", "clamp", "clip",
                    "where", "complex", "polar"))


def _tname(npdt: Any) -> str:
    return D.from_np(npdt)._tname[:-6]


def _any_rg(args: Sequence[Any], kwargs: dict[str, Any]) -> bool:
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, Tensor) and a.requires_grad:
            return True
        if isinstance(a, (list, tuple)) and any(isinstance(x, Tensor) and x.requires_grad
                                                for x in a):
            return True
    return False


def write_out(out: Any, r: Tensor, name: str) -> Tensor:
    """Write the result ``r`` (a Tensor) into ``out`` by PyTorch's out= rules."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    d, rd = out._data, r._data
    if name in _EXACT and rd.dtype != d.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {D.from_np(rd.dtype)}, but got "
                           f"{D.from_np(d.dtype)} instead")
    if rd.dtype != d.dtype and not np.can_cast(rd.dtype, d.dtype, "same_kind"):
        raise RuntimeError(f"result type {_tname(rd.dtype)} can't be cast to the desired output "
                           f"type {_tname(d.dtype)}")
    if rd.shape != d.shape:
        if d.size != 0:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(d.shape)}, which does not match the required output shape "
                f"{list(rd.shape)}. This behavior is deprecated, and in a future PyTorch "
                "release outputs will not be resized unless they have zero elements. You can "
                "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
                "t.resize_(0).", UserWarning, stacklevel=3)
        out._data = np.empty(rd.shape, d.dtype) if isinstance(d, np.ndarray) else \
            type(d)(rd.shape, d.dtype)   # a CuPy output stays on its device
        d = out._data
    if not d.flags.writeable:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    d[...] = rd.astype(d.dtype, copy=False)
    out._vc[0] += 1
    return out


# functions whose kernels read the input while writing ``out``: torch refuses an ``out``
# that is an input even in full (elementwise kernels accept ``out=input``)
_NO_ALIAS = frozenset(("cat", "concat", "concatenate", "stack", "hstack", "vstack", "gather",
                       "index_select"))
_INTERNAL = ("unsupported operation: more than one element of the written-to tensor refers to "
             "a single memory location. Please clone() the tensor before performing the "
             "operation.")
_PARTIAL = ("unsupported operation: some elements of the input tensor and the written-to "
            "tensor refer to a single memory location. Please clone() the tensor before "
            "performing the operation.")


def _check_overlap(out: Any, args: Sequence[Any], kwargs: dict[str, Any], name: str) -> None:
    """torch's memory-overlap checks of ``out=``: an ``out`` with repeated elements (an
    expanded tensor), or one overlapping an input other than exactly (any overlap for the
    functions of :data:`_NO_ALIAS`)."""
    if not isinstance(out, Tensor) or not isinstance(out._data, np.ndarray):
        return
    d = out._data
    if any(s == 0 and n > 1 for s, n in zip(d.strides, d.shape)):
        raise RuntimeError(_INTERNAL)
    for a in list(args) + list(kwargs.values()):
        for t in (a if isinstance(a, (list, tuple)) else (a,)):
            if not isinstance(t, Tensor) or not isinstance(t._data, np.ndarray):
                continue
            x = t._data
            if x.size == 0 or d.size == 0 or not np.may_share_memory(x, d):
                continue
            same = (x.shape == d.shape and x.strides == d.strides
                    and x.__array_interface__["data"][0] == d.__array_interface__["data"][0])
            if name in _NO_ALIAS or not same:
                raise RuntimeError(_PARTIAL)


def _out_signature(fn: Callable[..., Any]) -> inspect.Signature:
    """``fn``'s signature with the keyword ``out: Tensor | None = None`` (where it has no
    ``out`` parameter of its own)."""
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    if "out" in sig.parameters:
        return sig
    out = inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None,
                            annotation="Tensor | None")
    at = len(params)
    if params and params[-1].kind is inspect.Parameter.VAR_KEYWORD:
        at -= 1
    return sig.replace(parameters=params[:at] + [out] + params[at:])


def with_out(fn: Callable[..., Any], name: str | None = None) -> Callable[..., Any]:
    """``fn`` with an ``out=`` keyword (see the module docstring): its signature and
    docstring are ``fn``'s with the parameter ``out`` added."""
    name = name or fn.__name__

    @functools.wraps(fn)
    def f(*args: Any, out: Tensor | None = None, **kwargs: Any) -> Any:
        if out is None:
            return fn(*args, **kwargs)
        if _tls.grad and (_any_rg(args, kwargs) or (isinstance(out, Tensor)
                                                    and out.requires_grad)):
            raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires "
                               "grad.")
        _check_overlap(out, args, kwargs, name)
        with no_grad():
            r = fn(*args, **kwargs)
        return write_out(out, r, name)
    f._ftrans_out = True  # type: ignore[attr-defined]
    f.__signature__ = _out_signature(fn)  # type: ignore[attr-defined]
    doc = inspect.getdoc(fn) or ""
    if not re.search(r"^out : ", doc, re.M):
        doc = add_param_doc(doc, P_OUT)
    f.__doc__ = doc
    return f
