"""dtype conversion, real/imaginary parts, and ``stop_gradient``.

* ``convert_element_type(x, new_dtype)``: a tangent is converted along with the
  value; converting to or from an integer/boolean dtype cuts the derivative (no
  tangent space there).  The cotangent is converted back, a complex cotangent of a
  real input keeping its real part.
* ``real``/``imag`` (C -> R): tangents ``real(t)``/``imag(t)``; adjoints under the
  real inner product ``Re<a, b>``: ``ct`` and ``1j * ct`` (the autograd notes'
  cross-domain rule).  On real input ``real`` is the identity and ``imag`` is 0.
* ``stop_gradient(x)``: the identity with zero derivative.
* ``stop_backward(x)``: the identity with zero cotangent whose tangent passes (PyTorch's
  ``no_grad`` under ``compat.func``: reverse mode is cut, forward mode is not).
"""
from __future__ import annotations

from ..core import ShapedArray, zero, is_inexact, real_dtype
from ..core.dtypes import kind_of
from ..kernels import backend_for
from ._rules import batch_unary_same_dim, linear_jvp
from ._base import (convert_element_type_p, real_p, imag_p, stop_gradient_p, stop_backward_p,
                    convert_element_type, real, imag, stop_gradient, stop_backward, mul)

__all__ = ["convert_element_type", "real", "imag", "stop_gradient", "stop_backward"]


@convert_element_type_p.def_impl
def _convert_impl(x, *, new_dtype):
    xp = backend_for(x).xp
    if new_dtype.kind != "c" and hasattr(x, "dtype") and kind_of(x) == "c":
        x = x.real if hasattr(x, "real") else xp.real(x)
    return xp.asarray(x, dtype=new_dtype)


@convert_element_type_p.def_abstract_eval
def _convert_abstract_eval(x, *, new_dtype):
    return ShapedArray(x.shape, new_dtype)


@convert_element_type_p.def_jvp
def _convert_jvp(primals, tangents, *, new_dtype):
    (x,), (t,) = primals, tangents
    ans = convert_element_type_p.bind(x, new_dtype=new_dtype)
    if t is zero or not (is_inexact(x.dtype) and is_inexact(new_dtype)):
        return ans, zero
    return ans, convert_element_type(t, new_dtype)


@convert_element_type_p.def_vjp
def _convert_vjp(ct, ans, primals, needs, *, new_dtype):
    (x,) = primals
    if not is_inexact(new_dtype):
        return [None]
    return [convert_element_type(ct, x.dtype)]


convert_element_type_p.batch = batch_unary_same_dim(convert_element_type_p)


def _part(p, cotangent):
    name = p.name

    @p.def_impl
    def impl(x):
        xp = backend_for(x).xp
        return getattr(xp, name)(x)

    @p.def_abstract_eval
    def abstract_eval(x):
        return ShapedArray(x.shape, real_dtype(x.dtype))

    @p.def_jvp
    def jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        ans = p.bind(x)
        return ans, (zero if t is zero else p.bind(t))

    @p.def_vjp
    def vjp(ct, ans, primals, needs):
        (x,) = primals
        if kind_of(x) != "c":
            return [ct if name == "real" else None]
        return [cotangent(ct, x.dtype)]

    p.batch = batch_unary_same_dim(p)
    return p


def _real_ct(ct, dtype):
    return convert_element_type(ct, dtype)


def _imag_ct(ct, dtype):
    return mul(convert_element_type(ct, dtype), 1j)


_part(real_p, _real_ct)
_part(imag_p, _imag_ct)


def _stop_impl(x):
    return x


def _stop_abstract_eval(x):
    return ShapedArray(x.shape, x.dtype)


def _stop_vjp(ct, ans, primals, needs):
    return [None]


for _p in (stop_gradient_p, stop_backward_p):
    _p.def_impl(_stop_impl)
    _p.def_abstract_eval(_stop_abstract_eval)
    _p.def_vjp(_stop_vjp)
    _p.batch = batch_unary_same_dim(_p)
    # compiler lowering (ftrans.compiler; format in its module docstring)
    _p.lowering = {"kind": "elementwise", "numba": "{0}", "cuda": "{0}", "complex": True,
                   "cast": "out"}


@stop_gradient_p.def_jvp
def _stop_jvp(primals, tangents):
    return stop_gradient_p.bind(primals[0]), zero


stop_backward_p.def_jvp(linear_jvp(stop_backward_p))   # forward mode goes through


# compiler lowering (ftrans.compiler; format in its module docstring): the cast to the
# output dtype is the compiler's (complex -> real keeps the real part, as the impl does)
convert_element_type_p.lowering = {"kind": "elementwise", "numba": "{0}", "cuda": "{0}",
                                   "complex": True, "cast": "out"}
real_p.lowering = {"kind": "elementwise", "numba": "{0}.real", "cuda": "real({0})",
                   "complex": True, "cast": "none"}
imag_p.lowering = {"kind": "elementwise", "numba": "{0}.imag", "cuda": "imag({0})",
                   "complex": True, "cast": "none"}
