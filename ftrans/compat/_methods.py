"""Operators and math methods of :class:`~ftrans.compat.Tensor` (installed on import)."""
from __future__ import annotations

import warnings

import numpy as np

from . import _ops as O
from . import _factories as F
from ._tensor import Tensor, _make_plain
from ..primitives import optable


def _swap(f):
    def g(self, other):
        return f(other, self)
    return g


def _ni(f):
    """Binary operator returning NotImplemented for operands it cannot handle."""
    def g(self, other):
        if not isinstance(other, (Tensor, int, float, complex, bool, np.ndarray, np.generic)):
            return NotImplemented
        return f(self, other)
    g.__name__ = f.__name__
    return g


def _inplace(fn):
    def m(self, *args, **kwargs):
        return O._inplace(self, fn, *args, **kwargs)
    return m


def _pos(self):
    return self


def _invert(self):
    d = self._data
    if d.dtype.kind == "b":
        return _make_plain(np.logical_not(d))
    if d.dtype.kind in "iu":
        return _make_plain(np.invert(d))
    raise TypeError("~ (bitwise_not) is only supported for integer and boolean tensors")


def _eq(self, other):
    if other is None:
        return False
    return O._eq(self, other)


def _ne(self, other):
    if other is None:
        return True
    return O._ne(self, other)


def _T(self):
    n = self._data.ndim
    if n != 2 and n != 0:
        warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their "
                      "shape is deprecated and it will throw an error in a future release. "
                      "Consider `x.mT` to transpose batches of matrices or `x.permute(*torch."
                      "arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.",
                      UserWarning, stacklevel=2)
    return O.permute(self, tuple(range(n))[::-1])


def _mT(self):
    if self._data.ndim < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got "
                           f"{self._data.ndim}-D tensor.")
    return O.transpose(self, -2, -1)


def _max(self, dim=None, keepdim=False):
    return O.max(self, dim, keepdim)


def _min(self, dim=None, keepdim=False):
    return O.min(self, dim, keepdim)


def _sum(self, dim=None, keepdim=False, dtype=None):
    return O.sum(self, dim, keepdim, dtype=dtype)


def _mean(self, dim=None, keepdim=False, dtype=None):
    return O.mean(self, dim, keepdim, dtype=dtype)


def _conv(npdt):
    def m(self, memory_format=None):
        return O._convert(self, np.dtype(npdt))
    return m


def _float(self, memory_format=None):
    return O._convert(self, np.dtype(np.float32))


def _new_factory(fill):
    def m(self, *size, dtype=None, device=None, requires_grad=False, **kw):
        return fill(*size, dtype=self.dtype if dtype is None else dtype, device=device,
                    requires_grad=requires_grad)
    return m


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return F.full(size, fill_value, dtype=self.dtype if dtype is None else dtype,
                  requires_grad=requires_grad)


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    return F.tensor(data, dtype=self.dtype if dtype is None else dtype,
                    requires_grad=requires_grad)


def _uniform(self, a=0.0, b=1.0, *, generator=None):
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a} "
                           f"> to={b}")
    d = self._data
    vals = F._gen(generator).uniform(a, b, d.shape).astype(d.dtype)
    return O._inplace(self, lambda s: O._filled_array(s, vals))


def _normal(self, mean=0.0, std=1.0, *, generator=None):
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    d = self._data
    vals = F._gen(generator).normal(mean, std, d.shape).astype(d.dtype)
    return O._inplace(self, lambda s: O._filled_array(s, vals))


def _cpu(self, *args, **kwargs):
    return O.to(self, "cpu")


def _cuda(self, device=None, non_blocking=False, memory_format=None):
    if isinstance(device, int):
        device = f"cuda:{device}"
    return O.to(self, device or "cuda")


def _part_setter(part):
    """Setter of ``.real``/``.imag``: ``z.real = v`` copies ``v`` into the view (in place,
    recorded), as PyTorch does."""
    def setter(self, value):
        part(self).copy_(value)
    return setter


def _abs_(self):
    if self._data.dtype.kind == "c":
        raise RuntimeError("In-place abs is not supported for complex tensors.")
    return O._inplace(self, O.abs)


def _size_method(self, dim=None):
    return Tensor.size(self, dim)


def _addr(name):
    return getattr(O, name)


def _alpha_inplace(fn):
    def m(self, other, *, alpha=1):
        return O._inplace(self, fn, other, alpha=alpha)
    return m


_METHODS = {
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
    "__iadd__": _inplace(O.add), "__isub__": _inplace(O.sub), "__imul__": _inplace(O.mul),
    "__itruediv__": _inplace(O.div), "__ipow__": _inplace(O.pow),
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
    "maximum": O.maximum, "minimum": O.minimum, "where": lambda self, c, y: O.where(c, self, y),
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
    "type_as": lambda self, other: O._convert(self, other._data.dtype),
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
for _op in optable.ROWS:
    if _op.torch in O.ROW_FUNCTIONS and _op.torch_inplace:
        for _n in (_op.torch,) + _op.torch_aliases:
            _METHODS.setdefault(_n + "_", _inplace(O.ROW_FUNCTIONS[_n]))


def install():
    for name, fn in _METHODS.items():
        setattr(Tensor, name, fn)


install()
