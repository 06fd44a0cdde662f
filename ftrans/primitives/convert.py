"""dtype conversion, real/imaginary parts, and ``stop_gradient``.

* ``convert_element_type(x, new_dtype)``: a tangent is converted along with the
  value; converting to or from an integer/boolean dtype cuts the derivative (no
  tangent space there).  The cotangent is converted back, a complex cotangent of a
  real input keeping its real part.
* ``real``/``imag`` (C -> R): tangents ``real(t)``/``imag(t)``; adjoints under the
  real inner product ``Re<a, b>``: ``ct`` and ``1j * ct`` (the autograd notes'
  cross-domain rule).  On real input ``real`` is the identity and ``imag`` is 0.
* ``stop_gradient(x)``: the identity with zero derivative.
"""
from __future__ import annotations

import numpy as np

from ..core import Primitive, ShapedArray, zero, is_inexact, real_dtype
from ..core.dtypes import kind_of, as_numpy_dtype
from ..core.pytree import tree_flatten, tree_unflatten
from ..core.trace import Tracer
from ..kernels import backend_for, foreign_array
from ._rules import batch_unary_same_dim

__all__ = ["convert_element_type", "real", "imag", "stop_gradient"]

convert_element_type_p = Primitive("convert_element_type")


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


def convert_element_type(x, new_dtype):
    """``x`` converted to ``new_dtype`` (the real part when converting complex to real).

    Returns ``x`` itself when it already has that dtype.
    """
    new_dtype = as_numpy_dtype(new_dtype)
    d = getattr(x, "dtype", None)
    if d is not None and (d if isinstance(d, np.dtype) else as_numpy_dtype(d)) == new_dtype:
        return x
    return convert_element_type_p.bind(x, new_dtype=new_dtype)


def _part(name, cotangent):
    p = Primitive(name)

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
    from .elementwise import mul
    return mul(convert_element_type(ct, dtype), 1j)


real_p = _part("real", _real_ct)
imag_p = _part("imag", _imag_ct)


def real(x):
    """Real part (``numpy.real``); the identity on real input."""
    return real_p.bind(x)


def imag(x):
    """Imaginary part (``numpy.imag``); zeros on real input."""
    return imag_p.bind(x)


stop_gradient_p = Primitive("stop_gradient")


@stop_gradient_p.def_impl
def _stop_impl(x):
    return x


@stop_gradient_p.def_abstract_eval
def _stop_abstract_eval(x):
    return ShapedArray(x.shape, x.dtype)


@stop_gradient_p.def_jvp
def _stop_jvp(primals, tangents):
    return stop_gradient_p.bind(primals[0]), zero


@stop_gradient_p.def_vjp
def _stop_vjp(ct, ans, primals, needs):
    return [None]


stop_gradient_p.batch = batch_unary_same_dim(stop_gradient_p)


def stop_gradient(x):
    """The identity on values; its derivative is zero in every transform.

    ``x`` is an array, a Python number or a pytree of them (each leaf is stopped; the
    result has ``x``'s structure, shapes and dtypes).

    Raises
    ------
    TypeError
        For a leaf that is not an array or a number (a string, ...), as JAX does.
    """
    if isinstance(x, (Tracer, np.ndarray)):
        return stop_gradient_p.bind(x)
    leaves, tree = tree_flatten(x)
    for leaf in leaves:
        if not (isinstance(leaf, (Tracer, np.ndarray, np.generic, bool, int, float, complex))
                or hasattr(leaf, "__cuda_array_interface__") or foreign_array(leaf)):
            raise TypeError(
                f"stop_gradient: argument {leaf!r} of type {type(leaf).__name__} is not a "
                "valid array type; pass an array, a Python number or a pytree of them")
    return tree_unflatten(tree, [stop_gradient_p.bind(leaf) for leaf in leaves])


# compiler lowering (ftrans.compiler; format in its module docstring): the cast to the
# output dtype is the compiler's (complex -> real keeps the real part, as the impl does)
convert_element_type_p.lowering = {"kind": "elementwise", "numba": "{0}", "cuda": "{0}",
                                   "complex": True, "cast": "out"}
real_p.lowering = {"kind": "elementwise", "numba": "{0}.real", "cuda": "real({0})",
                   "complex": True, "cast": "none"}
imag_p.lowering = {"kind": "elementwise", "numba": "{0}.imag", "cuda": "imag({0})",
                   "complex": True, "cast": "none"}
stop_gradient_p.lowering = {"kind": "elementwise", "numba": "{0}", "cuda": "{0}",
                            "complex": True, "cast": "out"}
