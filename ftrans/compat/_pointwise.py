"""compat operations: elementwise (unary, complex numbers, composite functions, binary,
the operation table's rows, comparisons and logical operations)."""
from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from . import _dtype as D
from ._tensor import (Tensor, _make, _make_plain, _mark_view)
from .autograd.graph import node_class
from .autograd._composite import composite_class, residual_class
from ..nn import FUSED as _FUSED
from .. import numpy as _fnp
from .. import primitives as P
from ..primitives import elementwise as E
from ..primitives import indexing as I
from ..primitives import logic as L
from ..primitives.select import select_p
from ..core import zero as _zero

from ._opbase import (SAVE_NONE, SAVE_X, _EMPTY, _any_traced, _as_float, _binary,
    _broadcast_error, _check_int_division, _checked, _compose, _one_tensor, _require_tensor,
    _convert, _custom, _default_float, _has_complex, _k, _operands, _operands_or_raise,
    _real_only, _record, _refuse_complex, _reraise_broadcast, _save_both, _save_cross,
    _save_div, _save_pow, _scalar, _tensorize, _tname, _unary, binary_doc, docstring,
    unary_doc, P_INPUT)
from ._intdiv import floor_divide, _rounded_div  # noqa: F401  (floor_divide: _ops's name)
from ._typing import Number, TensorOrNumber
# =============================================================================== unary ops
# exp, log, sin ... sqrt, trunc ...: generated from the operation table (see _row_ops below)
_neg = _unary(E.neg_p, "NegBackward0", None, float_only=False)


def neg(input: Tensor) -> Tensor:  # noqa: A002
    """``-input`` (``torch.neg``).

    Parameters
    ----------
    input : Tensor
        The input tensor (not bool).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.

    Raises
    ------
    RuntimeError
        For a bool tensor, as in torch.
    """
    if input._data.dtype == np.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return _neg(input)


negative = neg
_abs = _unary(E.abs_p, "AbsBackward0", "x", float_only=False)
_sign = _unary(E.sign_p, "SignBackward0", None, float_only=False)
_sgn = _unary(E.sign_p, "SgnBackward0", "x_out")
_REAL_NOTE = "Complex inputs raise ``NotImplementedError``, as in PyTorch; the gradient is 0."
floor = _real_only(_unary(L.floor_p, "FloorBackward0", None, float_only=False,
                          doc=unary_doc("floor", "largest integer not above each element.",
                                        "same", _REAL_NOTE)),
                   msg="floor is not supported for complex inputs")
ceil = _real_only(_unary(L.ceil_p, "CeilBackward0", None, float_only=False,
                         doc=unary_doc("ceil", "smallest integer not below each element.",
                                       "same", _REAL_NOTE)),
                  msg="ceil is not supported for complex inputs")
_round0 = _unary(L.round_p, "RoundBackward0", None, float_only=False)


_abs_c = _unary(E.abs_p, "AbsBackward0", "x_out", float_only=False)


def abs(input: Tensor) -> Tensor:  # noqa: A001,A002
    """Absolute value (``torch.abs``); its derivative at 0 is 0.

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        Same shape as ``input``; real (complex inputs give their real dtype).
    """
    x = input
    if x._data.dtype.kind == "c":
        return _abs_c(x)  # the complex rule reads |x| too
    return _abs(x)


absolute = abs


def sign(input: Tensor) -> Tensor:  # noqa: A002
    """-1, 0 or 1 for each element (``torch.sign``).

    Parameters
    ----------
    input : Tensor
        The input tensor (real).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.

    Raises
    ------
    NotImplementedError
        For complex tensors (use ``sgn``), as in PyTorch.
    """
    x = input
    _refuse_complex(x, msg="Unlike NumPy, torch.sign is not intended to support complex "
                           "numbers. Please use torch.sgn instead.")
    return _sign(x)


def sgn(input: Tensor) -> Tensor:  # noqa: A002
    """``input / |input|`` with 0 at 0 (``torch.sgn``); ``sign`` for real tensors.

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    x = input
    if x._data.dtype.kind != "c":
        return _sign(x)
    return _sgn(x)


def round(input: Tensor, decimals: int = 0) -> Tensor:  # noqa: A001,A002
    """Round half to even, to ``decimals`` places (``torch.round``).

    Parameters
    ----------
    input : Tensor
        The input tensor (real).
    decimals : int, default 0
        Number of decimal places (negative: to the left of the point).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``; the gradient is 0.

    Raises
    ------
    NotImplementedError
        For complex tensors, as in PyTorch.
    """
    x = input
    _refuse_complex(x, kernel="round_cpu" if decimals else "round_vml_cpu")
    if decimals:
        s = 10.0 ** decimals
        return _round0(x * s) / s
    return _round0(x)


def square(input: Tensor) -> Tensor:  # noqa: A002
    """``input ** 2`` (``torch.square``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        Same shape as ``input``; integer dtypes are kept (bool gives int64).
    """
    return pow(input, 2)


def conj(input: Tensor) -> Tensor:  # noqa: A002
    """Complex conjugate (``torch.conj``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        A new tensor for complex ``input``; ``input`` itself for a real one.
    """
    x = input
    if x._data.dtype.kind != "c":
        return x
    return _conj(x)


_conj = _unary(E.conj_p, "ConjBackward0", None, float_only=False)


# complex numbers -----------------------------------------------------------------------
# Gradients follow the autograd notes, "Autograd for Complex Numbers" (spec/autograd-
# mechanics.md): for a real loss L the gradient of a complex tensor z = x + iy is
# dL/dx + i dL/dy; a real tensor feeding a complex result (R -> C) gets the real gradient
# Re(conj(grad_out) * ds/dx), a complex tensor feeding a real result (C -> R) the complex
# gradient grad_out * (ds/dx + i ds/dy).
_conj_physical = _unary(E.conj_p, "ConjPhysicalBackward0", None, float_only=False)


def conj_physical(input: Tensor) -> Tensor:  # noqa: A002
    """The complex conjugate as a new tensor (``torch.conj_physical``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        The conjugate (node ``ConjPhysicalBackward0``); a real ``input`` itself, as in
        PyTorch.
    """
    if input._data.dtype.kind != "c":
        return input
    return _conj_physical(input)


def resolve_conj(input: Tensor) -> Tensor:  # noqa: A002
    """``input`` itself (``torch.resolve_conj``).

    ``conj()`` computes the conjugate at once here (no lazy conjugate bit, unlike
    PyTorch), so there is never a conjugation to resolve.

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        ``input``.
    """
    return input


def resolve_neg(input: Tensor) -> Tensor:  # noqa: A002
    """``input`` itself: no lazy negative bit here (``torch.resolve_neg``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        ``input``.
    """
    return input


def is_conj(input: Tensor) -> bool:  # noqa: A002
    """Whether ``input`` has a lazy conjugate bit (``torch.is_conj``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    bool
        Always False: ftrans.compat has no lazy conjugate bit (``conj()`` is a new tensor).
    """
    return False


def is_neg(input: Tensor) -> bool:  # noqa: A002
    """Whether ``input`` has a lazy negative bit (``torch.is_neg``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    bool
        Always False: ftrans.compat has no lazy negative bit.
    """
    return False


def _angle_fn(z, rdt):
    if z.dtype.kind == "c":
        return P.arctan2(P.imag(z), P.real(z))   # derivative 0 at 0 (arctan2's convention)
    neg = P.where(P.lt(z, 0), rdt.type(math.pi), rdt.type(0))
    return P.where(P.isnan(z), P.stop_gradient(z), neg)   # piecewise constant: derivative 0


def angle(input: Tensor) -> Tensor:  # noqa: A002
    """Argument ``atan2(imag, real)`` of each element (``torch.angle``).

    For real tensors, as in PyTorch: pi where ``x < 0``, 0 elsewhere (also at -0.0), nan
    at nan; its gradient is zero.  For complex ``z`` the gradient is
    ``grad * 1j * z / |z|^2`` (0 at 0).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        Same shape as ``input``, in the real dtype (float32 for complex64, float64 for
        complex128, the default float dtype for integers).
    """
    d = _as_float(input._data)
    rdt = D.from_np(d.dtype).to_real().np
    return _compose(composite_class("AngleBackward0", ("self",)), _angle_fn, [input], [d],
                    {"rdt": rdt})


def _complex_dtype_of(real, imag, name):
    """The complex dtype built from the real tensors ``real`` and ``imag`` (PyTorch's checks
    of ``torch.complex``/``torch.polar``: two floating tensors of one dtype)."""
    for what, v in (("real" if name == "complex" else "abs", real),
                    ("imag" if name == "complex" else "angle", imag)):
        if not isinstance(v, Tensor):
            pos = 1 if what in ("real", "abs") else 2
            raise TypeError(f"{name}(): argument '{what}' (position {pos}) must be Tensor, not "
                            f"{type(v).__name__}")
    a, b = real._data.dtype, imag._data.dtype
    if a.kind != "f" or b.kind != "f":
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{_tname(a)} and {_tname(b)}")
    if a != b:
        raise RuntimeError(f"Expected object of scalar type {_tname(a)} but got scalar type "
                           f"{_tname(b)} for second argument")
    if a == np.float16:
        if name == "polar":
            raise NotImplementedError("\"polar_cpu\" not implemented for 'Half'")
        raise RuntimeError(f"{name}(): float16 inputs would give a complex32 tensor, which "
                           "ftrans.compat does not support; convert them to float32 first")
    return np.dtype(np.complex64 if a == np.float32 else np.complex128)


def _complex_parts(ad, bd, cdt):
    """An empty complex array of the broadcast shape of ``ad`` and ``bd``."""
    try:
        shape = np.broadcast_shapes(ad.shape, bd.shape)
    except ValueError:
        raise _broadcast_error(ad, bd) from None
    return np.empty(shape, cdt)


def _complex_fn(re, im):
    return P.add(re, P.mul(im, 1j))


def complex_(real: Tensor, imag: Tensor) -> Tensor:  # noqa: A002
    """``real + 1j * imag`` (``torch.complex``).

    The gradients are the real and the imaginary part of the output gradient.

    Parameters
    ----------
    real : Tensor
        The real parts, float32 or float64.
    imag : Tensor
        The imaginary parts, of ``real``'s dtype; broadcast with ``real``.

    Returns
    -------
    Tensor
        complex64 (complex128) of the broadcast shape.

    Raises
    ------
    TypeError
        For a non-tensor operand.
    RuntimeError
        For other dtypes (float16 too: complex32 is not supported) or shapes that do not
        broadcast.
    """
    cdt = _complex_dtype_of(real, imag, "complex")
    ad, bd = real._data, imag._data
    out = None   # compat.func (Tracers): the composition computes the value
    if not _any_traced(ad, bd):
        out = _complex_parts(ad, bd, cdt)
        out.real = ad
        out.imag = bd
    return _compose(composite_class("ComplexBackward0", ("real", "imag")), _complex_fn,
                    [real, imag], [ad, bd], mask=0, out=out)


complex_.__name__ = "complex"


def _polar_fn(r, theta):
    return P.mul(r, P.exp(P.mul(theta, 1j)))


def polar(abs: Tensor, angle: Tensor) -> Tensor:  # noqa: A002
    """``abs * (cos(angle) + 1j * sin(angle))`` (``torch.polar``).

    Gradients: ``Re(conj(g) e^(i angle))`` for ``abs`` (PyTorch uses ``sgn(result)``,
    which differs where ``abs <= 0``) and ``Re(conj(g) * 1j * result)`` for ``angle``.

    Parameters
    ----------
    abs : Tensor
        The magnitudes, float32 or float64.
    angle : Tensor
        The angles (radians), of ``abs``'s dtype; broadcast with ``abs``.

    Returns
    -------
    Tensor
        complex64 (complex128) of the broadcast shape.

    Raises
    ------
    TypeError
        For a non-tensor operand.
    RuntimeError
        For other dtypes or shapes that do not broadcast.
    NotImplementedError
        For float16 operands.
    """
    cdt = _complex_dtype_of(abs, angle, "polar")
    ad, td = abs._data, angle._data
    out = None   # compat.func (Tracers): the composition computes the value
    if not _any_traced(ad, td):
        out = _complex_parts(ad, td, cdt)
        out.real = ad * np.cos(td)
        out.imag = ad * np.sin(td)
    return _compose(composite_class("PolarBackward0", ("abs", "angle")), _polar_fn,
                    [abs, angle], [ad, td], out=out)


def _re_im_last(z):
    """The real array ``(..., 2)`` of the real and imaginary parts of ``z`` (ftrans ops)."""
    n = len(z.shape)
    return P.concatenate((P.expand_dims(P.real(z), (n,)), P.expand_dims(P.imag(z), (n,))), n)


def _complex_of_last(g):
    """``g[..., 0] + 1j * g[..., 1]`` (ftrans ops): the adjoint of :func:`_re_im_last`."""
    lead = (slice(None),) * (len(g.shape) - 1)
    re = I.gather_p.bind(g, template=lead + (0,))
    im = I.gather_p.bind(g, template=lead + (1,))
    return P.add(re, P.mul(im, 1j))


class _ViewFn:
    """A view that is no single primitive (``view_as_real``, ``view_as_complex``) in the
    form a view chain entry needs (``_tensor._mark_view``; ``autograd.graph.view_apply`` /
    ``view_transpose``; forward AD): ``impl`` makes the NumPy view of an array, ``bind``
    computes the same values with ftrans operations (recorded under ``create_graph``),
    ``vjp`` maps a view-shaped cotangent back to the base and ``jvp`` a tangent forward
    (both maps are R-linear)."""

    __slots__ = ("name", "impl", "_fwd", "_adj")

    def __init__(self, name, impl, fwd, adj):
        self.name = name
        self.impl = impl
        self._fwd = fwd
        self._adj = adj

    def bind(self, x, **params):
        return self._fwd(x)

    def vjp(self, ct, ans, primals, needs, **params):
        return [self._adj(ct)]

    def jvp(self, primals, tangents, **params):
        t = tangents[0]
        return self._fwd(primals[0]), (t if t is _zero else self._fwd(t))

    def __repr__(self):
        return f"_ViewFn({self.name})"


def _as_real_view(d):
    """The float view ``(..., 2)`` of the complex array ``d`` (shares its memory)."""
    r = d.real
    return np.lib.stride_tricks.as_strided(r, d.shape + (2,), r.strides + (r.itemsize,))


def _as_complex_view(d):
    """The complex view of the float array ``d`` of shape ``(..., 2)`` (last stride 1)."""
    return d.view(D.from_np(d.dtype).to_complex().np)[..., 0]


_VIEW_AS_REAL = _ViewFn("view_as_real", _as_real_view, _re_im_last, _complex_of_last)
_VIEW_AS_COMPLEX = _ViewFn("view_as_complex", _as_complex_view, _complex_of_last, _re_im_last)
_ViewAsRealBackward0 = node_class("ViewAsRealBackward0", ("self",),
                                  lambda node, ct, primals, ans, needs: [_complex_of_last(ct)])
_ViewAsComplexBackward0 = node_class("ViewAsComplexBackward0", ("self",),
                                     lambda node, ct, primals, ans, needs: [_re_im_last(ct)])


def view_as_real(input: Tensor) -> Tensor:  # noqa: A002
    """A real view of a complex tensor (``torch.view_as_real``).

    The real and imaginary parts; writes go through to ``input``.  Its gradient maps ``g``
    to ``g[..., 0] + 1j * g[..., 1]``.

    Parameters
    ----------
    input : Tensor
        A complex tensor.

    Returns
    -------
    Tensor
        A float view of shape ``(*input.shape, 2)``.

    Raises
    ------
    RuntimeError
        For a real tensor.
    """
    d = input._data
    if d.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    t = _record(_ViewAsRealBackward0, None, _EMPTY, [input], [d], _as_real_view(d), SAVE_NONE)
    return _mark_view(t, input, _VIEW_AS_REAL, _EMPTY)


def _storage_offset(d):
    """Offset in elements of ``d`` from the start of the array owning its memory."""
    root = d
    while isinstance(root.base, np.ndarray):
        root = root.base
    return (d.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // d.itemsize


def view_as_complex(input: Tensor) -> Tensor:  # noqa: A002
    """A complex view of a float tensor of pairs (``torch.view_as_complex``).

    Pairs become ``real + 1j * imag``; writes go through to ``input``.  Its gradient is
    ``view_as_real(g)``.

    Parameters
    ----------
    input : Tensor
        A float32/float64 tensor of shape ``(..., 2)``.

    Returns
    -------
    Tensor
        A complex view of shape ``input.shape[:-1]``.

    Raises
    ------
    RuntimeError
        (PyTorch's messages) for another dtype (float16 too: complex32 is not supported),
        a last dimension not of size 2 or not of stride 1, an odd stride elsewhere or an
        odd storage offset.
    """
    d = input._data
    if d.dtype not in (np.float32, np.float64):
        if d.dtype == np.float16:
            raise RuntimeError("view_as_complex: float16 would give a complex32 tensor, which "
                               "ftrans.compat does not support; convert to float32 first")
        raise RuntimeError(f"view_as_complex is only supported for half, float and double "
                           f"tensors, but got a tensor of scalar type: {_tname(d.dtype)}")
    if d.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if d.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if _any_traced(d):   # compat.func: a traced value has no strides; the pairs' composition
        return _record(_ViewAsComplexBackward0, None, _EMPTY, [input], [d],
                       _complex_fn(d[..., 0], d[..., 1]), SAVE_NONE)
    st = [s // d.itemsize for s in d.strides]
    if st[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if builtins.any(s % 2 for s in st[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if _storage_offset(d) % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    t = _record(_ViewAsComplexBackward0, None, _EMPTY, [input], [d], _as_complex_view(d),
                SAVE_NONE)
    return _mark_view(t, input, _VIEW_AS_COMPLEX, _EMPTY)


# composite unary functions -------------------------------------------------------------
def _sigmoid_fn(x):
    if x.dtype.kind == "c":
        return P.div(1.0, P.add(1.0, P.exp(P.neg(x))))
    return P.exp(P.neg(P.logaddexp(x.dtype.type(0), P.neg(x))))   # no overflow


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    """Logistic function ``1/(1+exp(-input))``, without overflow (``torch.sigmoid``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        Same shape as ``input``, floating.
    """
    x = input
    d = _as_float(x._data)
    return _compose(composite_class("SigmoidBackward0", ("self",)), _sigmoid_fn, [x], [d])


_CLAMP_COMPLEX = "clamp is not supported for complex types"


_ReluBackward0 = residual_class("ReluBackward0", ("self",))


def relu(input: Tensor) -> Tensor:  # noqa: A002
    """``max(input, 0)`` (``torch.relu``); its derivative at 0 is 0.

    ``ftrans.nn``'s fused relu (``FUSED["relu"]``; the result is its residual).

    Parameters
    ----------
    input : Tensor
        The input tensor (real).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.

    Raises
    ------
    NotImplementedError
        For complex tensors, as in PyTorch.
    """
    x = input
    d = x._data
    if d.dtype.kind == "c":
        raise NotImplementedError(_CLAMP_COMPLEX)
    if d.dtype.kind != "f":   # integers and booleans: no gradient
        return _make_plain(select_p.bind(L.gt_p.bind(d, 0), d, d.dtype.type(0)))
    return _custom(_ReluBackward0, _FUSED["relu"], [x], [d])[0]


def _rsqrt_fn(x):
    return P.div(1.0, P.sqrt(x))


def rsqrt(input: Tensor) -> Tensor:  # noqa: A002
    """``1 / sqrt(input)`` (``torch.rsqrt``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        Same shape as ``input``, floating.
    """
    x = input
    d = _as_float(x._data)
    return _compose(composite_class("RsqrtBackward0", ("self",)), _rsqrt_fn, [x], [d])


def _reciprocal_fn(x):
    return P.div(1.0, x)


def reciprocal(input: Tensor) -> Tensor:  # noqa: A002
    """``1 / input`` (``torch.reciprocal``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        Same shape as ``input``, floating.
    """
    x = input
    d = _as_float(x._data)
    return _compose(composite_class("ReciprocalBackward0", ("self",)), _reciprocal_fn, [x], [d])


def _logn_fn(x, ln):
    return P.div(P.log(x), x.dtype.type(ln) if x.dtype.kind == "f" else ln)


def _logn(name: str, base: float) -> Callable[[Tensor], Tensor]:
    params = {"ln": math.log(base)}
    cls = composite_class(name, ("self",))

    def op(input: Tensor) -> Tensor:  # noqa: A002
        return _compose(cls, _logn_fn, [input], [_as_float(input._data)], params)
    op.__doc__ = unary_doc(f"log{base:g}", f"logarithm to base {base:g}.")
    return op


log2 = _logn("Log2Backward0", 2.0)
log10 = _logn("Log10Backward0", 10.0)


def _exp2_fn(x):
    return P.pow(x.dtype.type(2) if x.dtype.kind == "f" else 2.0, x)


def exp2(input: Tensor) -> Tensor:  # noqa: A002
    """``2 ** input`` (``torch.exp2``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        Same shape as ``input``, floating.
    """
    x = input
    d = _as_float(x._data)
    return _compose(composite_class("Exp2Backward0", ("self",)), _exp2_fn, [x], [d])


_add = _binary(E.add_p, "AddBackward0", ("self", "other"), SAVE_NONE)
_sub = _binary(E.sub_p, "SubBackward0", ("self", "other"), SAVE_NONE, "RsubBackward1")
_mul = _binary(E.mul_p, "MulBackward0", ("self", "other"), _save_cross)
_div = _binary(E.div_p, "DivBackward0", ("self", "other"), _save_div)
mul = multiply = _checked(_mul, "any", binary_doc("mul", "``input * other``.", "any"))
maximum = _real_only(_checked(_binary(E.maximum_p, "MaximumBackward0", ("self", "other"),
                                      _save_both), "tensors"),
                     msg="maximum not implemented for complex tensors.", exc=RuntimeError)
maximum.__doc__ = binary_doc("maximum", "the larger of ``input`` and ``other`` (NaN "
                             "propagates; the gradient is shared at ties).", "tensors")
minimum = _real_only(_checked(_binary(E.minimum_p, "MinimumBackward0", ("self", "other"),
                                      _save_both), "tensors"),
                     msg="minimum not implemented for complex tensors.", exc=RuntimeError)
minimum.__doc__ = binary_doc("minimum", "the smaller of ``input`` and ``other`` (NaN "
                             "propagates; the gradient is shared at ties).", "tensors")
_pow_tt = _binary(E.pow_p, "PowBackward1", ("self", "exponent"), _save_pow)
_pow_st = _binary(E.pow_p, "PowBackward2", ("self", "exponent"), (2, True))
_pow_ts = _binary(E.pow_p, "PowBackward0", ("self", "exponent"), (3, False))


_add_checked = _checked(_add, "any")


def add(input: TensorOrNumber, other: TensorOrNumber, *, alpha: Number = 1,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``input + alpha * other`` (``torch.add``).

    Parameters
    ----------
    input : Tensor or Number
        The first operand (at least one operand is a Tensor).
    other : Tensor or Number
        The second operand, broadcast with ``input``.
    alpha : Number, default 1
        The multiplier of ``other``.
    out : Tensor, optional
        Tensor the result is written into; it is also returned.  Not differentiable.

    Returns
    -------
    Tensor
        The broadcast shape of the operands, of their promoted dtype.
    """
    if alpha != 1:
        other = mul(other, alpha)
    return _add_checked(input, other)


_sub_checked = _checked(_sub, "any")


def sub(input: TensorOrNumber, other: TensorOrNumber, *, alpha: Number = 1,  # noqa: A002
        out: Tensor | None = None) -> Tensor:
    """``input - alpha * other`` (``torch.sub``).

    Parameters
    ----------
    input : Tensor or Number
        The first operand (at least one operand is a Tensor).
    other : Tensor or Number
        The second operand, broadcast with ``input``.
    alpha : Number, default 1
        The multiplier of ``other``.
    out : Tensor, optional
        Tensor the result is written into; it is also returned.  Not differentiable.

    Returns
    -------
    Tensor
        The broadcast shape of the operands, of their promoted dtype.
    """
    if alpha != 1:
        other = mul(other, alpha)
    return _sub_checked(input, other)


subtract = sub


def rsub(input: Tensor, other: TensorOrNumber, *, alpha: Number = 1) -> Tensor:  # noqa: A002
    """``other - alpha * input`` (``torch.rsub``).

    Parameters
    ----------
    input : Tensor
        The subtracted operand.
    other : Tensor or Number
        The operand subtracted from, broadcast with ``input``.
    alpha : Number, default 1
        The multiplier of ``input``.

    Returns
    -------
    Tensor
        The broadcast shape of the operands, of their promoted dtype.

    Raises
    ------
    TypeError
        If ``input`` is not a Tensor.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"rsub(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return sub(other, input, alpha=alpha)


def div(input: TensorOrNumber, other: TensorOrNumber, *,  # noqa: A002
        rounding_mode: str | None = None) -> Tensor:
    """``input / other`` (``torch.div``).

    Parameters
    ----------
    input : Tensor or Number
        The dividend.
    other : Tensor or Number
        The divisor, broadcast with ``input``.
    rounding_mode : {None, 'trunc', 'floor'}, optional
        None for true division (integers give the default float dtype); ``'trunc'`` or
        ``'floor'`` round the quotient (no gradient).

    Returns
    -------
    Tensor
        The broadcast shape of the operands.

    Raises
    ------
    TypeError
        For an operand that is neither a Tensor nor a number.
    """
    r = _truediv(input, other, rounding_mode)
    if r is NotImplemented:
        raise TypeError(f"div(): expected a Tensor or a number, got "
                        f"{type(other if isinstance(input, Tensor) else input).__name__}")
    return r


def _truediv(input: Any, other: Any, rounding_mode: str | None = None) -> Any:  # noqa: A002
    if rounding_mode is not None:
        return _rounded_div(input, other, rounding_mode)
    ta = isinstance(input, Tensor)
    tb = isinstance(other, Tensor)
    if not ((ta or isinstance(input, (int, float, complex, np.generic)))
            and (tb or isinstance(other, (int, float, complex, np.generic, np.ndarray)))):
        return NotImplemented
    ka = input._data.dtype.kind if ta else ("f" if isinstance(input, float) else "i")
    kb = other._data.dtype.kind if tb else ("f" if isinstance(other, float) else "i")
    if ka in "biu" and kb in "biu":
        f = _default_float()
        input = _make(input._data.astype(f)) if ta else float(input)
        other = _make(other._data.astype(f)) if tb else float(other)
    return _div(input, other)


divide = true_divide = div
def pow(input: TensorOrNumber, exponent: TensorOrNumber) -> Tensor:  # noqa: A001,A002
    """``input ** exponent`` (``torch.pow``).

    The node is PyTorch's ``PowBackward0``/``1``/``2`` depending on which is a tensor.

    Parameters
    ----------
    input : Tensor or Number
        The base.
    exponent : Tensor or Number
        The exponent, broadcast with ``input``.

    Returns
    -------
    Tensor
        The broadcast shape of the operands, of their promoted dtype.

    Raises
    ------
    TypeError
        If neither operand is a Tensor.
    RuntimeError
        For an integer tensor to a negative integer power.
    """
    _one_tensor("pow", input, exponent)
    if isinstance(input, Tensor):
        if isinstance(exponent, Tensor):
            return _pow_tt(input, exponent)
        e = _scalar(exponent)
        if e is None:
            return _pow_tt(input, _tensorize(exponent))
        if type(e) is int or type(e) is bool:
            return _integer_pow(input, int(e))
        return _pow_ts(input, e)
    return _pow_st(input, exponent)


_PowBackward0i = node_class("PowBackward0", ("self",),
                            params={"exponent": lambda n: n._params["n"]})


def _integer_pow(x, n):
    d = x._data
    if d.dtype.kind in "iu" and n < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    params = {"n": n}
    out = _k(E.integer_pow_p, d)(d, n=n)
    return _record(_PowBackward0i, E.integer_pow_p, params, [x], [d], out, SAVE_X)


def float_power(input: TensorOrNumber, exponent: TensorOrNumber) -> Tensor:  # noqa: A002
    """``input ** exponent`` in double precision (``torch.float_power``).

    Tensor operands are converted to float64, or to complex128 when an operand is complex;
    the gradient flows back through the conversion, so each operand's gradient keeps its
    own dtype.

    Parameters
    ----------
    input : Tensor or Number
        The base.
    exponent : Tensor or Number
        The exponent, broadcast with ``input``.

    Returns
    -------
    Tensor
        float64 or complex128, of the broadcast shape.

    Raises
    ------
    TypeError
        If neither operand is a Tensor.
    """
    _one_tensor("float_power", input, exponent)
    dt = np.dtype(np.complex128 if _has_complex(input, exponent) else np.float64)

    def up(v):
        if isinstance(v, Tensor):
            return _convert(v, dt)
        if isinstance(v, np.ndarray):
            return _convert(_tensorize(v), dt)
        return v
    return pow(up(input), up(exponent))


def _compare(prim):
    bind = prim.bind

    def op(a, b):
        r = _operands(a, b)
        if r is None:
            return NotImplemented
        try:
            return _make_plain(bind(r[0], r[1]))
        except ValueError as e:
            _reraise_broadcast(e, r[:2])
    op.__name__ = prim.name
    return op


_eq, _ne = _compare(L.eq_p), _compare(L.ne_p)
# orderings have no complex kernel in PyTorch
_lt, _le, _gt, _ge = (_real_only(_compare(p), kernel=f"{n}_cpu") for p, n in (
    (L.lt_p, "lt"), (L.le_p, "le"), (L.gt_p, "gt"), (L.ge_p, "ge")))
eq = _checked(_eq, doc=binary_doc("eq", "``input == other``.", dtype="bool"))
ne = not_equal = _checked(_ne, doc=binary_doc("ne", "``input != other``.", dtype="bool"))
lt = less = _checked(_lt, doc=binary_doc("lt", "``input < other`` (real operands).",
                                         dtype="bool"))
le = less_equal = _checked(_le, doc=binary_doc("le", "``input <= other`` (real operands).",
                                               dtype="bool"))
gt = greater = _checked(_gt, doc=binary_doc("gt", "``input > other`` (real operands).",
                                            dtype="bool"))
ge = greater_equal = _checked(_ge, doc=binary_doc("ge", "``input >= other`` (real operands).",
                                                  dtype="bool"))


def _logical(npfn, traced=None):
    """A logical/bitwise operation: NumPy's ``npfn`` on arrays; on Tracers (under
    ``compat.func``) ftrans.numpy's ``traced`` -- the logical function, which is the
    bitwise one on booleans (integer bitwise operations have no primitive: TypeError)."""
    def op(a, b):
        r = _operands(a, b)
        if r is None:
            return NotImplemented
        if traced is not None and _any_traced(r[0], r[1]):
            if npfn.__name__.startswith("bitwise") and not all(
                    np.dtype(getattr(v, "dtype", bool)) == np.bool_ for v in r[:2]):
                raise TypeError(f"{npfn.__name__} of integer tensors cannot be traced by "
                                "compat.func (no primitive); use boolean tensors")
            return _make_plain(traced(r[0], r[1]))
        try:
            return _make_plain(npfn(r[0], r[1]))
        except ValueError as e:
            _reraise_broadcast(e, r[:2])
    return op


# ------------------------------------------------------------------ operation-table rows
# Every row of ftrans/primitives/optable.py with a torch name is a compat function here
# (and a Tensor method, an in-place method and an ``out=`` form: _methods.py, _out.py):
# one primitive node named as torch names it (``SinhBackward0``), saving what the row's
# derivative reads; its backward is the primitive's VJP rule.  Names torch defines with
# other semantics stay hand-written below (``remainder``/``fmod`` on integers ...).
_HAND_WRITTEN = frozenset({"remainder", "fmod"})
_UNARY_SAVE = {"x": "x", "ans": "out", "x_ans": "x_out", "none": None}
_REFUSE_MSG = {"trunc": "trunc is not supported for complex inputs"}


def _row_doc(op: Any) -> str:
    """The numpydoc docstring of the compat function of the operation table's row ``op``
    (its one-line ``doc``, its primitive, node and complex support)."""
    notes = (f"Computed by ftrans's ``{op.name}`` primitive (generated from the operation "
             "table)")
    if op.differentiable:
        notes += f"; the backward node is ``{P.optable.node_name(op)}``"
    notes += "."
    if op.complex == "real":
        notes += " Complex operands raise ``NotImplementedError``, as in PyTorch."
    if op.arity == 1:
        return unary_doc(op.torch, op.doc, op.dtype, notes)
    summary = op.doc.replace("x1", "input").replace("x2", "other")
    accepts = op.torch_numbers if op.differentiable else "tensor_scalar"
    return binary_doc(op.torch, summary, accepts,
                      {"same": "promoted"}.get(op.dtype, op.dtype), notes)


def _row_op(op: Any) -> Callable[..., Tensor]:
    prim = getattr(E, op.name + "_p")
    f: Callable[..., Tensor]
    if op.arity == 1:
        if op.differentiable:
            f = _unary(prim, P.optable.node_name(op), _UNARY_SAVE[op.saves],
                       float_only=op.dtype == "float")
        else:
            bind = prim.bind

            def f(input: Tensor) -> Tensor:  # noqa: A002
                return _make_plain(bind(input._data))
    else:
        if op.differentiable:
            save = (3 if op.saves != "none" or "linear" in op.deriv else 0, "ans" in op.saves)
            f = _checked(_binary(prim, P.optable.node_name(op), ("self", "other"), save),
                         op.torch_numbers)
        else:
            f = _checked(_compare(prim))
    f.__name__ = op.torch
    f.__doc__ = _row_doc(op)
    if op.complex == "real":
        f = _real_only(f, kernel=f"{op.torch}_cpu", msg=_REFUSE_MSG.get(op.torch))
    return f


#: torch name (and alias) -> compat function, for the operation table's rows
ROW_FUNCTIONS = {}
for _row in P.optable.ROWS:
    if _row.torch and _row.torch not in _HAND_WRITTEN:
        _f = _row_op(_row)
        for _name in (_row.torch,) + _row.torch_aliases:
            ROW_FUNCTIONS[_name] = _f
globals().update(ROW_FUNCTIONS)
del _row, _f, _name



logical_and = _checked(accepts="tensors", op=_logical(np.logical_and, _fnp.logical_and),
                       doc=binary_doc("logical_and", "both operands nonzero.", "tensors",
                                      "bool"))
logical_or = _checked(accepts="tensors", op=_logical(np.logical_or, _fnp.logical_or),
                      doc=binary_doc("logical_or", "either operand nonzero.", "tensors",
                                     "bool"))
logical_xor = _checked(accepts="tensors", op=_logical(np.logical_xor, _fnp.logical_xor),
                       doc=binary_doc("logical_xor", "exactly one operand nonzero.",
                                      "tensors", "bool"))
_bitwise_and = _real_only(_logical(np.bitwise_and, _fnp.logical_and), kernel="bitwise_and_cpu")
_bitwise_or = _real_only(_logical(np.bitwise_or, _fnp.logical_or), kernel="bitwise_or_cpu")
_bitwise_xor = _real_only(_logical(np.bitwise_xor, _fnp.logical_xor), kernel="bitwise_xor_cpu")
bitwise_and = _checked(_bitwise_and, doc=binary_doc(
    "bitwise_and", "bitwise AND of integer or bool operands."))
bitwise_or = _checked(_bitwise_or, doc=binary_doc(
    "bitwise_or", "bitwise OR of integer or bool operands."))
bitwise_xor = _checked(_bitwise_xor, doc=binary_doc(
    "bitwise_xor", "bitwise XOR of integer or bool operands."))


def logical_not(input: Tensor) -> Tensor:  # noqa: A002
    """True where ``input`` is zero (``torch.logical_not``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        A bool tensor of ``input``'s shape.
    """
    x = input
    d = x._data
    return _make_plain(_fnp.logical_not(d) if _any_traced(d) else np.logical_not(d))


def _rem(prim, name):
    """``remainder``/``fmod``: the operation table's rows, with torch's node names
    (``<Name>Backward0`` for a scalar divisor, ``<Name>Backward1`` for a tensor)."""
    tt = _binary(prim, f"{name}Backward1", ("self", "other"), (3, False))
    ts = _binary(prim, f"{name}Backward0", ("self", "other"), (3, False), edge_idx=(0,))

    def op(a, b):
        _check_int_division(a, b)
        r = (tt if isinstance(b, Tensor) else ts)(a, b)
        if r is NotImplemented:
            raise TypeError(f"{name.lower()}(): expected a Tensor or a number, got "
                            f"{type(b).__name__}")
        return r
    return op


_remainder = _rem(E.remainder_p, "Remainder")
_fmod = _rem(E.fmod_p, "Fmod")


def remainder(input: TensorOrNumber, other: TensorOrNumber) -> Tensor:  # noqa: A002
    """Python's ``input % other``, with the sign of ``other`` (``torch.remainder``).

    Real operands only.  The gradient is 1 for ``input`` and ``-floor(input / other)`` for
    ``other``.

    Parameters
    ----------
    input : Tensor or Number
        The dividend (at least one operand is a Tensor).
    other : Tensor or Number
        The divisor, broadcast with ``input``.

    Returns
    -------
    Tensor
        The broadcast shape of the operands, of their promoted dtype.

    Raises
    ------
    RuntimeError
        For an integer division by zero (``ZeroDivisionError``).
    NotImplementedError
        For complex operands.
    TypeError
        If neither operand is a Tensor.
    """
    a, b = input, other
    _one_tensor("remainder", a, b)
    _refuse_complex(a, b, kernel="remainder_cpu")
    return _remainder(a, b)


def fmod(input: Tensor, other: TensorOrNumber) -> Tensor:  # noqa: A002
    """C's ``fmod``, with the sign of ``input`` (``torch.fmod``).

    Real operands only.  The gradient is 1 for ``input`` and ``-trunc(input / other)`` for
    ``other``.

    Parameters
    ----------
    input : Tensor
        The dividend.
    other : Tensor or Number
        The divisor, broadcast with ``input``.

    Returns
    -------
    Tensor
        The broadcast shape of the operands, of their promoted dtype.

    Raises
    ------
    RuntimeError
        For an integer division by zero (``ZeroDivisionError``).
    NotImplementedError
        For complex operands.
    TypeError
        If ``input`` is not a Tensor.
    """
    a, b = input, other
    _require_tensor("fmod", a)
    _refuse_complex(a, b, kernel="fmod_cpu")
    return _fmod(a, b)


def isnan(input: Tensor) -> Tensor:  # noqa: A002
    """True where ``input`` is NaN (``torch.isnan``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        A bool tensor of ``input``'s shape.
    """
    return _make_plain(np.isnan(input._data))


def isinf(input: Tensor) -> Tensor:  # noqa: A002
    """True where ``input`` is infinite (either sign) (``torch.isinf``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        A bool tensor of ``input``'s shape.
    """
    return _make_plain(np.isinf(input._data))


def isfinite(input: Tensor) -> Tensor:  # noqa: A002
    """True where ``input`` is finite (``torch.isfinite``).

    Parameters
    ----------
    input : Tensor
        The input tensor.

    Returns
    -------
    Tensor
        A bool tensor of ``input``'s shape.
    """
    return _make_plain(np.isfinite(input._data))


def equal(input: Tensor, other: Tensor) -> bool:  # noqa: A002
    """True if both tensors have the same shape and values (``torch.equal``).

    Parameters
    ----------
    input, other : Tensor
        The tensors compared.

    Returns
    -------
    bool
        Whether the shapes and all values agree.
    """
    a, b = input, other
    return a._data.shape == b._data.shape and bool(np.array_equal(a._data, b._data))


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,  # noqa: A002
             equal_nan: bool = False) -> bool:
    """Whether :func:`isclose` holds everywhere (``torch.allclose``).

    Parameters
    ----------
    input : Tensor
        The first operand.
    other : Tensor
        The second operand, of ``input``'s dtype, broadcast with it.
    rtol : float, default 1e-05
        Relative tolerance (not negative).
    atol : float, default 1e-08
        Absolute tolerance (not negative).
    equal_nan : bool, default False
        NaNs compare equal.

    Returns
    -------
    bool
        True if every element is close.

    Raises
    ------
    RuntimeError
        For operands of different dtypes or a negative tolerance.
    """
    a, b = input, other
    return bool(isclose(a, b, rtol, atol, equal_nan)._data.all())


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,  # noqa: A002
            equal_nan: bool = False) -> Tensor:
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (``torch.isclose``).

    Parameters
    ----------
    input : Tensor
        The first operand.
    other : Tensor
        The second operand, of ``input``'s dtype, broadcast with it.
    rtol : float, default 1e-05
        Relative tolerance (not negative).
    atol : float, default 1e-08
        Absolute tolerance (not negative).
    equal_nan : bool, default False
        NaNs compare equal.

    Returns
    -------
    Tensor
        A bool tensor of the broadcast shape.

    Raises
    ------
    RuntimeError
        For operands of different dtypes or a negative tolerance.
    """
    a, b = input, other
    _require_tensor("isclose", a)
    _require_tensor("isclose", b, "other", 2)
    for name, v in (("rtol", rtol), ("atol", atol)):
        if v < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {v}")
    if isinstance(b, Tensor) and a._data.dtype != b._data.dtype:
        raise RuntimeError(f"{_tname(a._data.dtype)} did not match {_tname(b._data.dtype)}")
    try:
        return _make_plain(np.isclose(a._data, _data_of(b), rtol=rtol, atol=atol,
                                      equal_nan=equal_nan))
    except ValueError as e:
        _reraise_broadcast(e, (a._data, _data_of(b)))


def _data_of(v):
    return v._data if isinstance(v, Tensor) else np.asarray(v)


_WhereBackward0 = node_class("WhereBackward0", ("condition", "self", "other"), edge_idx=(1, 2))


def where(condition: Tensor, input: TensorOrNumber | None = None,  # noqa: A002
          other: TensorOrNumber | None = None) -> Tensor | tuple[Tensor, ...]:
    """``input`` where ``condition`` else ``other`` (``torch.where``).

    With ``condition`` alone: the indices of its nonzero elements (``torch.nonzero(
    condition, as_tuple=True)``).

    Parameters
    ----------
    condition : Tensor
        A bool tensor (any dtype with one argument).
    input : Tensor or Number, optional
        The values where ``condition`` is True.
    other : Tensor or Number, optional
        The values where ``condition`` is False.

    Returns
    -------
    Tensor or tuple of Tensor
        The broadcast shape of the three, of the operands' promoted dtype; with one
        argument a tuple of int64 index tensors, one per dimension.

    Raises
    ------
    RuntimeError
        For a ``condition`` that is not bool.
    """
    c = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    if input is None and other is None:
        return tuple(_make_plain(np.asarray(i, np.int64)) for i in np.nonzero(c))
    if c.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {D.from_np(c.dtype)._tname[:-6]}")
    xd, yd, casts = _operands_or_raise(input, other)
    try:
        out = select_p.bind(c, xd, yd)
    except ValueError as e:
        _reraise_broadcast(e, (c, xd, yd))
    return _record(_WhereBackward0, select_p, _EMPTY, [c, input, other], [c, xd, yd], out,
                   (1, False), casts=None if casts is None else (None,) + casts)


