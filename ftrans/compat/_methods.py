"""Operators and math methods of :class:`~ftrans.compat.Tensor` (installed on import)."""
from __future__ import annotations

import inspect
import re
import warnings
from collections.abc import Callable, Sequence
from typing import Any, overload

import numpy as np

from . import _ops as O
from . import _factories as F
from . import _tensor_convert as _TC
from ._inplace import _inplace as _run_inplace
from ._opbase import replace_summary
from ._pointwise import ROW_FUNCTIONS
from ._tensor import Tensor, _make_plain
from .types import DeviceLike, DTypeArg, Number, SizeLike, TensorOrNumber, device
from ..primitives import optable

_Fn = Callable[..., Any]


def _swap(f: _Fn) -> Callable[[Tensor, Any], Tensor]:
    def g(self: Tensor, other: Any) -> Tensor:
        return f(other, self)
    return g


def _ni(f: _Fn) -> Callable[[Tensor, Any], Tensor]:
    """Binary operator returning NotImplemented for operands it cannot handle."""
    def g(self: Tensor, other: Any) -> Tensor:
        if not isinstance(other, (Tensor, int, float, complex, bool, np.ndarray, np.generic)):
            return NotImplemented
        return f(self, other)
    g.__name__ = f.__name__
    return g


_RETURNS = re.compile(r"^Returns\n-------\n.*?(?=^\S[^\n]*\n---|\Z)", re.M | re.S)
_INPLACE_RETURNS = "Returns\n-------\nTensor\n    ``input`` (``self``) itself, overwritten.\n\n"


def _inplace_doc(fn: _Fn) -> str:
    """The docstring of the in-place method of ``fn``: ``fn``'s, with its summary and
    Returns section for the in-place form."""
    name = fn.__name__
    doc = replace_summary(inspect.getdoc(fn), f"In-place ``torch.{name}`` "
                          f"(``Tensor.{name}_``): the result is written into ``self``.")
    doc, n = _RETURNS.subn(_INPLACE_RETURNS, doc + "\n")
    return doc.rstrip() + "\n"


def _inplace(fn: _Fn) -> Callable[..., Tensor]:
    """The in-place method of ``fn`` (``Tensor.exp_``): ``fn``'s signature (its first
    parameter bound to the tensor) and docstring."""
    def m(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return _run_inplace(self, fn, *args, **kwargs)
    m.__signature__ = inspect.signature(fn)  # type: ignore[attr-defined]
    m.__doc__ = _inplace_doc(fn)
    return m


def _iop(fn: _Fn) -> Callable[[Tensor, Any], Tensor]:
    """The augmented assignment ``t op= other`` (``__iadd__`` ...): ``fn`` in place."""
    def m(self: Tensor, other: Any) -> Tensor:
        return _run_inplace(self, fn, other)
    m.__name__ = f"__i{fn.__name__}__"
    return m


def _pos(self: Tensor) -> Tensor:
    return self


def _invert(self: Tensor) -> Tensor:
    d = self._data
    if d.dtype.kind == "b":
        return _make_plain(np.logical_not(d))
    if d.dtype.kind in "iu":
        return _make_plain(np.invert(d))
    raise TypeError("~ (bitwise_not) is only supported for integer and boolean tensors")


def _eq(self: Tensor, other: Any) -> Tensor:
    if other is None:
        return False  # type: ignore[return-value]  # torch's: t == None is False
    return O._eq(self, other)


def _ne(self: Tensor, other: Any) -> Tensor:
    if other is None:
        return True  # type: ignore[return-value]  # torch's: t != None is True
    return O._ne(self, other)


def _T(self: Tensor) -> Tensor:
    """The tensor with its dimensions reversed (deprecated by PyTorch except for 0-d and
    2-d tensors: a UserWarning otherwise)."""
    n = self._data.ndim
    if n != 2 and n != 0:
        warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their "
                      "shape is deprecated and it will throw an error in a future release. "
                      "Consider `x.mT` to transpose batches of matrices or `x.permute(*torch."
                      "arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.",
                      UserWarning, stacklevel=2)
    return O.permute(self, tuple(range(n))[::-1])


def _mT(self: Tensor) -> Tensor:
    """The transpose of the last two dimensions (a batch of matrices); RuntimeError below
    2-d."""
    if self._data.ndim < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got "
                           f"{self._data.ndim}-D tensor.")
    return O.transpose(self, -2, -1)


def _where(self: Tensor, condition: Tensor, y: TensorOrNumber) -> Tensor:
    """``self`` where ``condition`` else ``y`` (``Tensor.where``: ``torch.where(condition,
    self, y)``).

    Parameters
    ----------
    condition : Tensor
        A bool tensor, broadcast with the operands.
    y : Tensor or Number
        The values where ``condition`` is False.

    Returns
    -------
    Tensor
        The broadcast shape, of the operands' promoted dtype.
    """
    return O.where(condition, self, y)


def _type_as(self: Tensor, other: Tensor) -> Tensor:
    """``self`` converted to ``other``'s dtype (``Tensor.type_as``).

    Parameters
    ----------
    other : Tensor
        The tensor whose dtype is taken.

    Returns
    -------
    Tensor
        ``self`` itself when the dtypes agree, a converted copy otherwise.
    """
    return O._convert(self, other._data.dtype)


@overload   # as torch.max: 0-d, (values, indices) along dim, or elementwise
def _max(self: Tensor, dim: None = None, keepdim: bool = False) -> Tensor: ...
@overload
def _max(self: Tensor, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]: ...
@overload
def _max(self: Tensor, dim: Tensor, keepdim: bool = False) -> Tensor: ...


def _max(self: Tensor, dim: int | Tensor | None = None,
         keepdim: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    return O.max(self, dim, keepdim)


@overload   # as torch.min: 0-d, (values, indices) along dim, or elementwise
def _min(self: Tensor, dim: None = None, keepdim: bool = False) -> Tensor: ...
@overload
def _min(self: Tensor, dim: int, keepdim: bool = False) -> tuple[Tensor, Tensor]: ...
@overload
def _min(self: Tensor, dim: Tensor, keepdim: bool = False) -> Tensor: ...


def _min(self: Tensor, dim: int | Tensor | None = None,
         keepdim: bool = False) -> Tensor | tuple[Tensor, Tensor]:
    return O.min(self, dim, keepdim)


def _sum(self: Tensor, dim: int | Sequence[int] | None = None, keepdim: bool = False,
         dtype: DTypeArg = None) -> Tensor:
    return O.sum(self, dim, keepdim, dtype=dtype)


def _mean(self: Tensor, dim: int | Sequence[int] | None = None, keepdim: bool = False,
          dtype: DTypeArg = None) -> Tensor:
    return O.mean(self, dim, keepdim, dtype=dtype)


for _m, _f in ((_max, O.max), (_min, O.min), (_sum, O.sum), (_mean, O.mean)):
    # the method takes ``dtype`` also positionally; the parameters are the function's
    _m.__doc__ = re.sub(r"^input : Tensor\n(    .*\n)+", "", inspect.getdoc(_f) or "",
                        flags=re.M).replace("(``torch.", "(``Tensor.")


_MEMORY_FORMAT = ("memory_format : object, optional\n    Accepted for PyTorch's signature; "
                  "ignored.")


def _conv(npdt: Any) -> Callable[..., Tensor]:
    def m(self: Tensor, memory_format: Any = None) -> Tensor:
        return O._convert(self, np.dtype(npdt))
    m.__doc__ = f"""``self`` converted to {np.dtype(npdt).name} (``self`` itself if it is).

    Parameters
    ----------
    {_MEMORY_FORMAT.replace(chr(10), chr(10) + "    ")}

    Returns
    -------
    Tensor
        The converted tensor; the gradient flows back through the conversion (floating
        and complex results).
    """
    return m


def _float(self: Tensor, memory_format: Any = None) -> Tensor:
    """``self`` converted to float32 (``self`` itself if it is).

    Parameters
    ----------
    memory_format : object, optional
        Accepted for PyTorch's signature; ignored.

    Returns
    -------
    Tensor
        The converted tensor.
    """
    return O._convert(self, np.dtype(np.float32))


def _new_factory(fill: _Fn) -> Callable[..., Tensor]:
    def m(self: Tensor, *size: Any, dtype: DTypeArg = None, device: DeviceLike = None,
          requires_grad: bool = False, **kw: Any) -> Tensor:
        return fill(*size, dtype=self.dtype if dtype is None else dtype, device=device,
                    requires_grad=requires_grad)
    name = fill.__name__
    m.__doc__ = f"""A new tensor of ``size`` as ``torch.{name}`` makes it, of ``self``'s dtype
    by default (``Tensor.new_{name}``).

    Parameters
    ----------
    *size : int or sequence of int
        The shape.
    dtype : dtype, optional
        The dtype; ``self``'s by default.
    device : device or str or int, optional
        The device.
    requires_grad : bool, default False
        Whether the new tensor requires grad.
    **kw : Any
        Further keywords of PyTorch's signature (``layout``, ``pin_memory``); ignored.

    Returns
    -------
    Tensor
        The new tensor.
    """
    return m


def _new_full(self: Tensor, size: SizeLike, fill_value: Number, *, dtype: DTypeArg = None,
              device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """A new tensor of ``size`` filled with ``fill_value``, of ``self``'s dtype by default.

    Parameters
    ----------
    size : sequence of int
        The shape.
    fill_value : Number
        The value.
    dtype : dtype, optional
        The dtype; ``self``'s by default.
    device : device or str or int, optional
        Accepted for PyTorch's signature; ignored.
    requires_grad : bool, default False
        Whether the new tensor requires grad.

    Returns
    -------
    Tensor
        The new tensor.
    """
    return F.full(size, fill_value, dtype=self.dtype if dtype is None else dtype,
                  requires_grad=requires_grad)


def _new_tensor(self: Tensor, data: Any, *, dtype: DTypeArg = None, device: DeviceLike = None,
                requires_grad: bool = False) -> Tensor:
    """A new tensor of ``data`` (copied), of ``self``'s dtype by default.

    Parameters
    ----------
    data : array_like
        Nested lists, numbers, arrays or a tensor.
    dtype : dtype, optional
        The dtype; ``self``'s by default.
    device : device or str or int, optional
        Accepted for PyTorch's signature; ignored.
    requires_grad : bool, default False
        Whether the new tensor requires grad.

    Returns
    -------
    Tensor
        The new tensor.
    """
    return F.tensor(data, dtype=self.dtype if dtype is None else dtype,
                    requires_grad=requires_grad)


def _uniform(self: Tensor, a: float = 0.0, b: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill ``self`` in place with uniform samples from ``[a, b)`` (``Tensor.uniform_``).

    Parameters
    ----------
    a, b : float
        The interval's bounds (0 and 1 by default).
    generator : Generator, optional
        The generator to draw from; the default generator by default.

    Returns
    -------
    Tensor
        ``self``, overwritten.

    Raises
    ------
    RuntimeError
        If ``a > b``.
    """
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a} "
                           f"> to={b}")
    d = self._data
    vals = F._gen(generator).uniform(a, b, d.shape).astype(d.dtype)
    return _run_inplace(self, lambda s: O._filled_array(s, vals))


def _normal(self: Tensor, mean: float = 0.0, std: float = 1.0, *,
            generator: Any = None) -> Tensor:
    """Fill ``self`` in place with normal samples (``Tensor.normal_``).

    Parameters
    ----------
    mean : float, default 0.0
        The mean.
    std : float, default 1.0
        The standard deviation.
    generator : Generator, optional
        The generator to draw from; the default generator by default.

    Returns
    -------
    Tensor
        ``self``, overwritten.

    Raises
    ------
    RuntimeError
        If ``std < 0``.
    """
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    d = self._data
    vals = F._gen(generator).normal(mean, std, d.shape).astype(d.dtype)
    return _run_inplace(self, lambda s: O._filled_array(s, vals))


def _cpu(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """``self`` on the CPU (``self`` itself if it is there).

    Parameters
    ----------
    *args, **kwargs : Any
        Accepted for PyTorch's signature (``memory_format``); ignored.

    Returns
    -------
    Tensor
        The tensor on the CPU.
    """
    return O.to(self, "cpu")


def _cuda(self: Tensor, device: device | str | int | None = None, non_blocking: bool = False,
          memory_format: Any = None) -> Tensor:
    """``self`` on a CUDA device (CuPy arrays).

    Parameters
    ----------
    device : device or str or int, optional
        The device; ``"cuda"`` (the current one) by default, an int is ``cuda:<int>``.
    non_blocking : bool, default False
        Accepted for PyTorch's signature; ignored.
    memory_format : object, optional
        Accepted for PyTorch's signature; ignored.

    Returns
    -------
    Tensor
        The tensor on the device.
    """
    if isinstance(device, int):
        device = f"cuda:{device}"
    return O.to(self, device or "cuda")


def _part_setter(part: _Fn) -> Callable[[Tensor, Any], None]:
    """Setter of ``.real``/``.imag``: ``z.real = v`` copies ``v`` into the view (in place,
    recorded), as PyTorch does."""
    def setter(self: Tensor, value: Any) -> None:
        part(self).copy_(value)
    return setter


def _abs_(self: Tensor) -> Tensor:
    """In-place ``torch.abs`` (``Tensor.abs_``); RuntimeError for a complex tensor.

    Returns
    -------
    Tensor
        ``self``, overwritten.
    """
    if self._data.dtype.kind == "c":
        raise RuntimeError("In-place abs is not supported for complex tensors.")
    return _run_inplace(self, O.abs)


def _size_method(self: Tensor, dim: int | None = None) -> Any:
    return Tensor.size(self, dim)


def _addr(name: str) -> Any:
    return getattr(O, name)


def _alpha_inplace(fn: _Fn) -> Callable[..., Tensor]:
    def m(self: Tensor, other: TensorOrNumber, *, alpha: Number = 1) -> Tensor:
        return _run_inplace(self, fn, other, alpha=alpha)
    m.__doc__ = re.sub(r"^(input|out) : .*\n(    .*\n)*", "", _inplace_doc(fn), flags=re.M)
    return m


_METHODS = {
    # conversions and protocols: float(t), len(t), iter(t), deepcopy ...
    **_TC.METHODS,
    # operators: return NotImplemented for operands they do not know
    # commutative: ``2 * t`` is ``mul(t, 2)`` as in PyTorch (next_functions order)
    "__add__": O._add, "__radd__": O._add,
    "__sub__": O._sub, "__rsub__": _swap(O._sub),
    "__mul__": O._mul, "__rmul__": O._mul,
    "__truediv__": O._truediv, "__rtruediv__": _swap(O._truediv),
    "__floordiv__": _ni(O.floor_divide), "__rfloordiv__": _ni(_swap(O.floor_divide)),
    "__mod__": _ni(O.remainder), "__rmod__": _ni(_swap(O.remainder)),
    "__pow__": _ni(O.pow), "__rpow__": _ni(_swap(O.pow)),
    "__matmul__": _ni(O.matmul), "__rmatmul__": _ni(_swap(O.matmul)),
    "__neg__": O.neg, "__pos__": _pos, "__abs__": O.abs, "__invert__": _invert,
    "__eq__": _eq, "__ne__": _ne, "__lt__": O._lt, "__le__": O._le,
    "__gt__": O._gt, "__ge__": O._ge,
    "__and__": O._bitwise_and, "__or__": O._bitwise_or, "__xor__": O._bitwise_xor,
    "__rand__": _swap(O._bitwise_and), "__ror__": _swap(O._bitwise_or),
    "__rxor__": _swap(O._bitwise_xor),
    "__getitem__": O.getitem, "__setitem__": O.setitem,
    "__iadd__": _iop(O.add), "__isub__": _iop(O.sub), "__imul__": _iop(O.mul),
    "__itruediv__": _iop(O.div), "__ipow__": _iop(O.pow),
    # properties
    "T": property(_T), "mT": property(_mT), "real": property(O.real, _part_setter(O.real)),
    "imag": property(O.imag, _part_setter(O.imag)),
    # math
    "add": O.add, "sub": O.sub, "subtract": O.sub, "mul": O.mul, "multiply": O.mul,
    "div": O.div, "divide": O.div, "true_divide": O.div, "pow": O.pow,
    "float_power": O.float_power,
    "matmul": O.matmul, "mm": O.mm, "mv": O.mv, "dot": O.dot, "inner": O.inner, "bmm": O.bmm,
    "outer": O.outer, "ger": O.outer,
    # the operation table's rows (exp, log, sin ... atan2, copysign, i0 ...)
    **O.ROW_FUNCTIONS,
    "exp2": O.exp2, "log2": O.log2, "log10": O.log10,
    "rsqrt": O.rsqrt, "reciprocal": O.reciprocal,
    "abs": O.abs, "absolute": O.abs, "neg": O.neg, "negative": O.neg, "sign": O.sign,
    "sgn": O.sgn, "square": O.square, "sigmoid": O.sigmoid, "relu": O.relu,
    "floor": O.floor, "ceil": O.ceil, "round": O.round, "conj": O.conj,
    "clamp": O.clamp, "clip": O.clamp, "clamp_min": O.clamp_min, "clamp_max": O.clamp_max,
    "maximum": O.maximum, "minimum": O.minimum, "where": _where,
    "masked_fill": O.masked_fill,
    "softmax": O.softmax, "log_softmax": O.log_softmax, "logsumexp": O.logsumexp,
    "eq": O.eq, "ne": O.ne, "lt": O.lt, "le": O.le, "gt": O.gt, "ge": O.ge,
    "greater": O.gt, "less": O.lt, "equal": O.equal, "allclose": O.allclose,
    "isclose": O.isclose, "isnan": O.isnan, "isinf": O.isinf, "isfinite": O.isfinite,
    "logical_and": O.logical_and, "logical_or": O.logical_or, "logical_not": O.logical_not,
    "logical_xor": O.logical_xor, "floor_divide": O.floor_divide, "remainder": O.remainder,
    "fmod": O.fmod,
    # complex numbers
    "angle": O.angle, "conj_physical": O.conj_physical, "resolve_conj": O.resolve_conj,
    "resolve_neg": O.resolve_neg, "is_conj": O.is_conj, "is_neg": O.is_neg,
    # reductions
    "sum": _sum, "nansum": O.nansum, "mean": _mean, "prod": O.prod, "max": _max, "min": _min,
    "amax": O.amax, "amin": O.amin, "argmax": O.argmax, "argmin": O.argmin, "any": O.any,
    "all": O.all, "norm": O.norm, "var": O.var, "std": O.std,
    # shapes and views
    "reshape": O.reshape, "view": O.view, "view_as": O.view_as, "reshape_as": O.reshape_as,
    "flatten": O.flatten, "unflatten": O.unflatten, "squeeze": O.squeeze,
    "unsqueeze": O.unsqueeze, "transpose": O.transpose, "swapaxes": O.transpose,
    "swapdims": O.transpose, "t": O.t, "permute": O.permute, "movedim": O.movedim,
    "moveaxis": O.movedim, "expand": O.expand, "expand_as": O.expand_as,
    "broadcast_to": O.broadcast_to, "repeat": O.repeat, "narrow": O.narrow, "select": O.select,
    "split": O.split, "chunk": O.chunk, "unbind": O.unbind, "index_select": O.index_select,
    "gather": O.gather, "flip": O.flip, "tril": O.tril, "triu": O.triu,
    "diagonal": O.diagonal, "diag": O.diag, "trace": O.trace,
    # conversions
    "to": O.to, "clone": O.clone, "contiguous": O.contiguous, "float": _float,
    "double": _conv(np.float64), "half": _conv(np.float16), "long": _conv(np.int64),
    "int": _conv(np.int32), "short": _conv(np.int16), "bool": _conv(np.bool_),
    "byte": _conv(np.uint8), "cfloat": _conv(np.complex64), "cdouble": _conv(np.complex128),
    "type_as": _type_as,
    "cpu": _cpu, "cuda": _cuda,
    "new_zeros": _new_factory(F.zeros), "new_ones": _new_factory(F.ones),
    "new_empty": _new_factory(F.empty), "new_full": _new_full, "new_tensor": _new_tensor,
    # in place
    "add_": _alpha_inplace(O.add), "sub_": _alpha_inplace(O.sub),
    "subtract_": _alpha_inplace(O.sub), "mul_": _inplace(O.mul), "multiply_": _inplace(O.mul),
    "div_": _inplace(O.div), "divide_": _inplace(O.div), "pow_": _inplace(O.pow),
    "clamp_": _inplace(O.clamp), "clip_": _inplace(O.clamp),
    "clamp_min_": _inplace(O.clamp_min), "clamp_max_": _inplace(O.clamp_max),
    "neg_": _inplace(O.neg), "exp_": _inplace(O.exp), "log_": _inplace(O.log),
    "sin_": _inplace(O.sin), "cos_": _inplace(O.cos), "tanh_": _inplace(O.tanh),
    "sigmoid_": _inplace(O.sigmoid), "relu_": _inplace(O.relu), "sqrt_": _inplace(O.sqrt),
    "abs_": _abs_, "square_": _inplace(O.square), "reciprocal_": _inplace(O.reciprocal),
    "masked_fill_": _inplace(O.masked_fill), "floor_": _inplace(O.floor),
    "zero_": O.zero_, "fill_": O.fill_, "copy_": O.copy_,
    "uniform_": _uniform, "normal_": _normal,
    "erf": O.erf,
}


# in-place forms of the operation table's rows that torch has (sinh_, tan_, expm1_ ...)
_op: Any
for _op in optable.ROWS:
    if _op.torch in ROW_FUNCTIONS and _op.torch_inplace:
        for _n in (_op.torch,) + tuple(_op.torch_aliases):
            _METHODS.setdefault(_n + "_", _inplace(ROW_FUNCTIONS[_n]))


def install() -> None:
    """Set the methods of :data:`_METHODS` on ``Tensor``."""
    for name, fn in _METHODS.items():
        setattr(Tensor, name, fn)


install()
