"""compat operations: complex numbers (``conj``, ``angle``, ``complex``, ``polar``, the
views ``view_as_real``/``view_as_complex``).

Gradients follow the autograd notes, "Autograd for Complex Numbers" (spec/autograd-
mechanics.md).
"""
from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from . import _dtype as D
from ._tensor import Tensor, _mark_view
from .autograd.graph import node_class
from .autograd._composite import composite_class
from .. import primitives as P
from ..primitives import elementwise as E
from ..primitives import indexing as I
from ..core import zero as _zero

from ._opbase import (SAVE_NONE, _EMPTY, _any_traced, _as_float, _broadcast_error, _compose,
    _record, _tname, _unary)


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


def _angle_fn(z: Any, rdt: np.dtype[Any]) -> Any:
    if z.dtype.kind == "c":
        return P.arctan2(P.imag(z), P.real(z))   # type: ignore[attr-defined]  # (an op-table row); derivative 0 at 0 (arctan2's convention)
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


def _complex_dtype_of(real: Any, imag: Any, name: str) -> np.dtype[Any]:
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


def _complex_parts(ad: Any, bd: Any, cdt: np.dtype[Any]) -> np.ndarray:
    """An empty complex array of the broadcast shape of ``ad`` and ``bd``."""
    try:
        shape = np.broadcast_shapes(ad.shape, bd.shape)
    except ValueError:
        raise _broadcast_error(ad, bd) from None
    return np.empty(shape, cdt)


def _complex_fn(re: Any, im: Any) -> Any:
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


def _polar_fn(r: Any, theta: Any) -> Any:
    return P.mul(r, P.exp(P.mul(theta, 1j)))  # type: ignore[attr-defined]  # (an op-table row)


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


def _re_im_last(z: Any) -> Any:
    """The real array ``(..., 2)`` of the real and imaginary parts of ``z`` (ftrans ops)."""
    n = len(z.shape)
    return P.concatenate((P.expand_dims(P.real(z), (n,)), P.expand_dims(P.imag(z), (n,))), n)


def _complex_of_last(g: Any) -> Any:
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

    def __init__(self, name: str, impl: Callable[[Any], Any], fwd: Callable[[Any], Any],
                 adj: Callable[[Any], Any]) -> None:
        self.name = name
        self.impl = impl
        self._fwd = fwd
        self._adj = adj

    def bind(self, x: Any, **params: Any) -> Any:
        return self._fwd(x)

    def vjp(self, ct: Any, ans: Any, primals: Any, needs: Any, **params: Any) -> list[Any]:
        return [self._adj(ct)]

    def jvp(self, primals: Any, tangents: Any, **params: Any) -> tuple[Any, Any]:
        t = tangents[0]
        return self._fwd(primals[0]), (t if t is _zero else self._fwd(t))

    def __repr__(self) -> str:
        return f"_ViewFn({self.name})"


def _as_real_view(d: np.ndarray) -> np.ndarray:
    """The float view ``(..., 2)`` of the complex array ``d`` (shares its memory)."""
    r = d.real
    return np.lib.stride_tricks.as_strided(r, d.shape + (2,), r.strides + (r.itemsize,))


def _as_complex_view(d: np.ndarray) -> np.ndarray:
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


def _storage_offset(d: np.ndarray) -> int:
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
