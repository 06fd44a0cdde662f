"""Compat operations: forward through the primitives' kernels, backward through their rules.

Every operation computes its result with the primitives' ``impl`` (straight to the
kernel: no trace, no abstract evaluation) and -- in grad mode, when an operand
requires grad -- creates one graph node (see :mod:`.autograd.graph`):

* a *primitive node* when the PyTorch operation is one primitive (``sin``, ``mul``,
  ``sum``, ``x[idx]`` ...): its backward is the primitive's VJP rule, the rule the
  functional ``ftrans.vjp`` uses;
* a *composite node* when PyTorch shows one node for an operation that is a composition
  of primitives (``softmax`` -> ``SoftmaxBackward0``, ``sigmoid``, ``mean``, ``clamp``,
  ``max(dim)`` ...): its backward formula is written in ftrans primitive operations, so
  ``create_graph=True`` can differentiate it again.

Each node saves only what its formula reads, the way PyTorch does (``mul`` saves the
other operand of each operand that requires grad, ``exp``/``tanh``/``sqrt`` the result,
``sin``/``log`` the input ...), so in-place modification of anything else is allowed.

Type promotion follows PyTorch (see :mod:`._dtype`); the cotangent of an operand that
was converted for the computation is converted back to the operand's dtype.

In-place operations (``add_``, ``x[idx] = v`` ...) run the out-of-place operation,
write the result into the tensor's storage, bump its version counter and rebase its
history on the new node (:func:`_inplace`).
"""
from __future__ import annotations

import builtins
import math
from collections import namedtuple

import numpy as np

from . import _dtype as D
from . import cuda
from ._tensor import (Tensor, _make, _make_plain, _edge, _requires_grad, _mark_view,
                      _set_retains, _dim, check_device, device as _dev_cls)
from .autograd.grad_mode import _tls
from .autograd import graph as G
from .autograd import anomaly_mode as _AM
from .autograd.graph import NO_EDGE, node_class, new_node, meta as _meta
from .autograd._composite import composite_class, run as _run_composite
from .. import primitives as P
from ..primitives import elementwise as E
from ..primitives import structural as S
from ..primitives import reductions as R
from ..primitives import indexing as I
from ..primitives import logic as L
from ..primitives.select import select_p
from ..primitives.convert import convert_element_type_p
from ..primitives.dot import dot_general_p
from ..primitives._rules import no_trace as _no_trace
from ..core import zero as _zero
from ..numpy import linalg as _fla
from ..core.trace import Tracer as _Tracer

_pyabs, _pymin, _pymax, _pysum, _pyround = builtins.abs, builtins.min, builtins.max, \
    builtins.sum, builtins.round
_EMPTY = {}
_T1 = (True,)
_fw_on = False   # a forward AD level is active (set by autograd.forward_ad)
_fwad = None     # the autograd.forward_ad module: it is above this one and sets this name


# =============================================================================== recording
def _record(cls, prim, params, args, datas, out, save, casts=None, _fw=True):
    """The output tensor of an operation, with a node when recording applies.

    ``args``: the operands as given (Tensors or raw values: Python scalars, index arrays);
    ``datas``: the values handed to the primitive; ``out``: its result; ``save``:
    ``(mask, save_out)`` or a function of the per-operand ``needs`` returning one --
    bit ``i`` of ``mask`` saves operand ``i``.  Inside a forward AD level the output also
    gets a tangent (:mod:`.autograd.forward_ad`, whose own call passes ``_fw=False``).
    """
    if _fw_on and _fw:
        return _fwad._record(cls, prim, params, args, datas, out, save, casts)
    if not _tls.grad:
        return _make_plain(out)
    nxt = []
    needs = []
    anyrg = False
    for a in args:
        if isinstance(a, Tensor):
            e = _edge(a)
            n = e[0] is not None
            anyrg = anyrg or n
            nxt.append(e)
            needs.append(n)
        else:
            nxt.append(NO_EDGE)
            needs.append(False)
    if not anyrg:
        return _make(out)
    mask, so = save(needs) if callable(save) else save
    saved = []
    for i, a in enumerate(args):
        d = datas[i]
        if isinstance(a, Tensor):
            saved.append(G.save(a, d) if (mask >> i) & 1 else _meta(d))
        else:
            saved.append(d)
    t = _make(out)
    node = new_node(cls, prim, params, tuple(nxt), saved, mask, None, tuple(needs))
    if casts is not None:
        node._casts = casts
    t._grad_fn = node
    if so:  # after t._grad_fn: a pack hook gets the output itself
        node._outsv = G.save_out(t)
    return t


def _save_all(needs):
    return (-1, True)


SAVE_NONE = (0, False)
SAVE_X = (1, False)
SAVE_OUT = (0, True)
SAVE_X_OUT = (1, True)


def _save_cross(needs):
    """mul: each operand's formula reads the other operand."""
    return ((2 if needs[0] else 0) | (1 if needs[1] else 0), False)


def _save_div(needs):
    return (2, needs[1])


def _save_pow(needs):
    return (3, needs[1])


def _save_both(needs):
    return (3, False)


# =============================================================================== operands
def _k(prim, d):
    """``prim``'s kernel for a concrete NumPy array ``d``, its ``bind`` otherwise (a Tracer
    of an ftrans transform under ``compat.func``; CuPy arrays also take ``bind``, which
    goes straight to the kernel outside transforms)."""
    return prim.impl if type(d) is np.ndarray else prim.bind


def _kk(prim, *datas):
    """:func:`_k` for several operands: ``bind`` when any of them is a Tracer."""
    return prim.bind if _any_traced(*datas) else prim.impl


def _any_traced(*datas):
    """True when a value is a Tracer of an ftrans transform (``compat.func``'s traced
    path): the operation must then compute with primitives' ``bind``, not NumPy."""
    for d in datas:
        if isinstance(d, _Tracer):
            return True
    return False


def _tensorize(v):
    """A Tensor for array-likes that are not Python scalars (NumPy arrays, lists)."""
    if isinstance(v, Tensor):
        return v
    return _make(np.asarray(v))


def _scalar(v):
    t = type(v)
    if t is float or t is int or t is bool or t is complex:
        return v
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (int, float, complex)):
        return v
    return None


def _default_float():
    return D.get_default_dtype().np


def _promote_datas(items):
    """PyTorch's result dtype for ``items`` (Tensors and Python scalars)."""
    dim, zero, sc = [], [], []
    for v in items:
        if isinstance(v, Tensor):
            d = v._data
            (dim if d.ndim else zero).append(d.dtype)
        else:
            sc.append(D.scalar_np_dtype(v))
    return D.result_type(tuple(dim), tuple(zero), tuple(sc))


def _operands(a, b):
    """``(a_data, b_data, casts)`` for a binary operation: arrays converted to PyTorch's
    result dtype (Python scalars stay weak), ``casts`` the original dtypes of converted
    operands (or None).  None for an operand that is neither a tensor, a number nor a
    NumPy array (the operator then returns NotImplemented)."""
    if isinstance(a, Tensor):
        ad = a._data
        if isinstance(b, Tensor):
            bd = b._data
            if ad.dtype == bd.dtype:
                return ad, bd, None
        else:
            bd = _scalar(b)
            if bd is None:
                if not isinstance(b, np.ndarray):
                    return None
                return _operands(a, _tensorize(b))
            k = ad.dtype.kind
            tb = type(bd)
            if k == "f" or k == "c":
                return ad, bd, None
            if tb is int and k in "iu" or tb is bool or (tb is int and k == "b"):
                return ad, bd, None
    else:
        ad = _scalar(a)
        if ad is None:
            if not isinstance(a, np.ndarray):
                return None
            return _operands(_tensorize(a), b)
        if not isinstance(b, Tensor):
            b = _tensorize(b)
        bd = b._data
        k = bd.dtype.kind
        ta = type(ad)
        if k == "f" or k == "c":
            return ad, bd, None
        if ta is int and k in "iu" or ta is bool or (ta is int and k == "b"):
            return ad, bd, None
    r = _promote_datas((a, b))
    return _cast_operand(a, ad, r), _cast_operand(b, bd, r), (
        _orig_dtype(a, r), _orig_dtype(b, r))


def _cast_operand(v, d, r):
    if isinstance(v, Tensor) and d.dtype != r:
        return d.astype(r)
    if not isinstance(v, Tensor) and r.kind in "fc" and type(d) is int and r.kind == "f":
        return float(d)
    return d


def _orig_dtype(v, r):
    if isinstance(v, Tensor) and v._data.dtype != r and v._data.dtype.kind in "fc":
        return v._data.dtype
    return None


def _as_float(d):
    """Integer/bool data converted to the default float dtype (for float-only functions)."""
    if d.dtype.kind in "fc":
        return d
    return d.astype(_default_float())


# ------------------------------------------------------------------ operations without complex
def _has_complex(*vals) -> bool:
    """True if an operand is a complex tensor, array or number."""
    for v in vals:
        if isinstance(v, Tensor):
            if v._data.dtype.kind == "c":
                return True
        elif isinstance(v, (complex, np.complexfloating)) or (
                isinstance(v, np.ndarray) and v.dtype.kind == "c"):
            return True
    return False


def _refuse_complex(*vals, kernel=None, msg=None, exc=NotImplementedError):
    """Raise as PyTorch 2.13 does when an operation has no complex implementation.

    PyTorch refuses complex operands of orderings (``lt``, ``maximum``, ``clamp``, ``max``
    ...), roundings (``floor`` ...), ``atan2``, ``remainder``, ``softmax`` ... -- mostly
    with ``NotImplementedError('"<kernel>" not implemented for 'ComplexFloat'')``
    (``kernel``), some with their own message (``msg``) or exception type (``exc``).
    Nothing happens when no operand in ``vals`` is complex.
    """
    if not _has_complex(*vals):
        return
    if msg is None:
        items = [_tensorize(v) if isinstance(v, np.ndarray) else v for v in vals
                 if isinstance(v, (Tensor, np.ndarray)) or _scalar(v) is not None]
        msg = f'"{kernel}" not implemented for \'{_tname(_promote_datas(items))}\''
    raise exc(msg)


def _real_only(fn, kernel=None, msg=None, exc=NotImplementedError):
    """``fn`` refusing complex positional operands (see :func:`_refuse_complex`)."""
    def f(*args, **kwargs):
        if _has_complex(*args):
            _refuse_complex(*args, kernel=kernel, msg=msg, exc=exc)
        return fn(*args, **kwargs)
    f.__name__ = fn.__name__
    f.__doc__ = fn.__doc__
    return f


# =============================================================================== unary ops
def _unary(prim, name, save, float_only=True):
    """A unary elementwise operation recorded as one primitive node saving its input
    ("x"), its result ("out") or both ("x_out")."""
    cls = node_class(name, ("self",))
    impl, bind = prim.impl, prim.bind
    mask = 1 if save in ("x", "x_out") else 0
    so = save in ("out", "x_out")

    def op(x):
        d = x._data
        if float_only and d.dtype.kind not in "fc":
            d = d.astype(_default_float())
        out = impl(d) if type(d) is np.ndarray else bind(d)   # bind: a Tracer (compat.func)
        if _fw_on:   # forward AD: the generic path computes the tangent
            return _record(cls, prim, _EMPTY, [x], [d], out, (mask, so))
        if _tls.grad and (x._grad_fn is not None or x._rg or (x._x is not None
                                                               and _requires_grad(x))):
            t = _make(out)
            n = _new_obj(cls)
            n._next = (_edge(x),)
            n._seq = _next_seq()
            n._hk = None
            n._prim = prim
            n._params = _EMPTY
            n._saved = [_save_in(x, d) if mask else _meta(d)]
            n._smask = mask
            n._outsv = None
            n._needs = _T1
            n._released = False
            n._casts = None
            n._tsv = mask
            t._grad_fn = n
            if so:  # after t._grad_fn: a pack hook gets the output itself
                n._outsv = _save_out(t)
            if _AM._enabled:
                _AM.record(n)
            return t
        return _make_plain(out)
    op.__name__ = prim.name
    return op


# exp, log, sin ... sqrt, trunc ...: generated from the operation table (see _row_ops below)
neg = negative = _unary(E.neg_p, "NegBackward0", None, float_only=False)
_abs = _unary(E.abs_p, "AbsBackward0", "x", float_only=False)
_sign = _unary(E.sign_p, "SignBackward0", None, float_only=False)
_sgn = _unary(E.sign_p, "SgnBackward0", "x_out")
floor = _real_only(_unary(L.floor_p, "FloorBackward0", None, float_only=False),
                   msg="floor is not supported for complex inputs")
ceil = _real_only(_unary(L.ceil_p, "CeilBackward0", None, float_only=False),
                  msg="ceil is not supported for complex inputs")
_round0 = _unary(L.round_p, "RoundBackward0", None, float_only=False)


_abs_c = _unary(E.abs_p, "AbsBackward0", "x_out", float_only=False)


def abs(x):  # noqa: A001
    """Absolute value (``abs'(0) = 0``)."""
    if x._data.dtype.kind == "c":
        return _abs_c(x)  # the complex rule reads |x| too
    return _abs(x)


absolute = abs


def sign(x):
    """-1, 0 or 1 (real tensors; ``NotImplementedError`` for complex ones: use ``sgn``)."""
    _refuse_complex(x, msg="Unlike NumPy, torch.sign is not intended to support complex "
                           "numbers. Please use torch.sgn instead.")
    return _sign(x)


def sgn(x):
    """``x/|x|`` (0 at 0); ``sign`` for real tensors."""
    if x._data.dtype.kind != "c":
        return _sign(x)
    return _sgn(x)


def round(x, decimals=0):  # noqa: A001
    """Round half to even (to ``decimals`` places); real tensors only, as in PyTorch."""
    _refuse_complex(x, kernel="round_cpu" if decimals else "round_vml_cpu")
    if decimals:
        s = 10.0 ** decimals
        return _round0(x * s) / s
    return _round0(x)


def square(x):
    return pow(x, 2)


def conj(x):
    """Complex conjugate (the tensor itself for real tensors)."""
    if x._data.dtype.kind != "c":
        return x
    return _conj(x)


_conj = _unary(E.conj_p, "ConjBackward0", None, float_only=False)


def real(x):
    """The real part of a complex tensor as a view (the tensor itself if it is real).
    As in PyTorch it is ``view_as_real(x)[..., 0]`` (``SelectBackward0`` on top of
    ``ViewAsRealBackward0``): writes go through to ``x``, and the gradient ``g`` (real)
    reaches ``x`` as the complex ``g + 0j`` (the C -> R rule)."""
    if x._data.dtype.kind != "c":
        return x
    return select(view_as_real(x), -1, 0)


def imag(x):
    """The imaginary part of a complex tensor as a view, ``view_as_real(x)[..., 1]``: the
    gradient ``g`` reaches ``x`` as ``1j * g``.  ``RuntimeError`` for a real tensor."""
    if x._data.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return select(view_as_real(x), -1, 1)


# complex numbers -----------------------------------------------------------------------
# Gradients follow the autograd notes, "Autograd for Complex Numbers" (spec/autograd-
# mechanics.md): for a real loss L the gradient of a complex tensor z = x + iy is
# dL/dx + i dL/dy; a real tensor feeding a complex result (R -> C) gets the real gradient
# Re(conj(grad_out) * ds/dx), a complex tensor feeding a real result (C -> R) the complex
# gradient grad_out * (ds/dx + i ds/dy).
_conj_physical = _unary(E.conj_p, "ConjPhysicalBackward0", None, float_only=False)


def conj_physical(input):  # noqa: A002
    """The complex conjugate as a new tensor (``ConjPhysicalBackward0``); a real tensor is
    returned itself, as in PyTorch."""
    if input._data.dtype.kind != "c":
        return input
    return _conj_physical(input)


def resolve_conj(input):  # noqa: A002
    """``input`` itself: ``conj()`` computes the conjugate at once here (no lazy conjugate
    bit, unlike PyTorch), so there is never a conjugation to resolve."""
    return input


def resolve_neg(input):  # noqa: A002
    """``input`` itself (no lazy negative bit here)."""
    return input


def is_conj(input) -> bool:  # noqa: A002
    """Always False: ftrans.compat has no lazy conjugate bit (``conj()`` is a new tensor)."""
    return False


def is_neg(input) -> bool:  # noqa: A002
    """Always False: ftrans.compat has no lazy negative bit."""
    return False


def _angle_fn(z, rdt):
    if z.dtype.kind == "c":
        return P.arctan2(P.imag(z), P.real(z))   # derivative 0 at 0 (arctan2's convention)
    neg = P.where(P.lt(z, 0), rdt.type(math.pi), rdt.type(0))
    return P.where(P.isnan(z), P.stop_gradient(z), neg)   # piecewise constant: derivative 0


def angle(input):  # noqa: A002
    """Argument ``atan2(imag, real)`` of each element, in the real dtype (float32 for
    complex64, float64 for complex128, the default float dtype for integers).  For real
    tensors, as in PyTorch: pi where ``x < 0``, 0 elsewhere (also at -0.0), nan at nan; its
    gradient is zero.  For complex ``z`` the gradient is ``grad * 1j * z / |z|^2`` (0 at 0)."""
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


def complex_(real, imag):  # noqa: A002
    """``real + 1j * imag`` (``torch.complex``): two float32 (float64) tensors of one dtype,
    broadcast, give complex64 (complex128).  The gradients are the real and the imaginary
    part of the output gradient.  Raises ``TypeError`` for a non-tensor, ``RuntimeError``
    for other dtypes (float16 too: complex32 is not supported) or shapes that do not
    broadcast."""
    cdt = _complex_dtype_of(real, imag, "complex")
    ad, bd = real._data, imag._data
    out = _complex_parts(ad, bd, cdt)
    out.real = ad
    out.imag = bd
    return _compose(composite_class("ComplexBackward0", ("real", "imag")), _complex_fn,
                    [real, imag], [ad, bd], mask=0, out=out)


complex_.__name__ = "complex"


def _polar_fn(r, theta):
    return P.mul(r, P.exp(P.mul(theta, 1j)))


def polar(abs, angle):  # noqa: A002
    """``abs * (cos(angle) + 1j * sin(angle))`` (``torch.polar``): float32 (float64) tensors
    of one dtype, broadcast, give complex64 (complex128).  Errors as for
    :func:`complex_`.  Gradients: ``Re(conj(g) e^(i angle))`` for ``abs`` (PyTorch uses
    ``sgn(result)``, which differs where ``abs <= 0``) and ``Re(conj(g) * 1j * result)``
    for ``angle``."""
    cdt = _complex_dtype_of(abs, angle, "polar")
    ad, td = abs._data, angle._data
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


def view_as_real(input):  # noqa: A002
    """A float view of shape ``(*input.shape, 2)`` of a complex tensor (real and imaginary
    parts; writes go through to ``input``).  Its gradient maps ``g`` to
    ``g[..., 0] + 1j * g[..., 1]``.  ``RuntimeError`` for a real tensor."""
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


def view_as_complex(input):  # noqa: A002
    """A complex view of a float32/float64 tensor of shape ``(..., 2)`` (pairs become
    ``real + 1j * imag``; writes go through to ``input``).  Its gradient is
    ``view_as_real(g)``.  ``RuntimeError`` (PyTorch's messages) for another dtype (float16
    too: complex32 is not supported), a last dimension not of size 2 or not of stride 1, an
    odd stride elsewhere or an odd storage offset."""
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
def _compose(cls, fn, args, datas, params=_EMPTY, mask=-1, casts=None, out=None):
    """The result of the composition ``fn(*datas, **params)`` (ftrans operations: NumPy
    arrays run eagerly, Tracers under ``compat.func`` are traced), recorded as one
    composite node of class ``cls`` whose backward is ``ftrans.vjp(fn)``
    (:mod:`.autograd._composite`).  ``mask``: bit ``i`` saves tensor operand ``i`` (the
    operands the derivative reads; the others are kept as shape and dtype only).  ``out``:
    the value when NumPy computes it more exactly than the composition (``inf`` parts of
    ``torch.complex``); the derivative is still the composition's."""
    if out is None:
        out = _run_composite(fn, params, datas)
    return _record(cls, fn, params, args, datas, out, mask if callable(mask) else (mask, False),
                   casts)


def _sigmoid_fn(x):
    if x.dtype.kind == "c":
        return P.div(1.0, P.add(1.0, P.exp(P.neg(x))))
    return P.exp(P.neg(P.logaddexp(x.dtype.type(0), P.neg(x))))   # no overflow


def sigmoid(x):
    """Logistic function ``1/(1+exp(-x))`` (computed without overflow)."""
    d = _as_float(x._data)
    return _compose(composite_class("SigmoidBackward0", ("self",)), _sigmoid_fn, [x], [d])


_CLAMP_COMPLEX = "clamp is not supported for complex types"


def _relu_fn(x):
    return P.where(P.gt(x, 0), x, x.dtype.type(0))


def relu(x):
    """``max(x, 0)``; its derivative at 0 is 0 (real tensors only, as in PyTorch)."""
    d = x._data
    if d.dtype.kind == "c":
        raise NotImplementedError(_CLAMP_COMPLEX)
    return _compose(composite_class("ReluBackward0", ("self",)), _relu_fn, [x], [d])


def _cj(v):
    return E.conj_op(v) if v.dtype.kind == "c" else v


def _rsqrt_fn(x):
    return P.div(1.0, P.sqrt(x))


def rsqrt(x):
    d = _as_float(x._data)
    return _compose(composite_class("RsqrtBackward0", ("self",)), _rsqrt_fn, [x], [d])


def _reciprocal_fn(x):
    return P.div(1.0, x)


def reciprocal(x):
    d = _as_float(x._data)
    return _compose(composite_class("ReciprocalBackward0", ("self",)), _reciprocal_fn, [x], [d])


def _logn_fn(x, ln):
    return P.div(P.log(x), x.dtype.type(ln) if x.dtype.kind == "f" else ln)


def _logn(name, base):
    params = {"ln": math.log(base)}
    cls = composite_class(name, ("self",))

    def op(x):
        return _compose(cls, _logn_fn, [x], [_as_float(x._data)], params)
    return op


log2 = _logn("Log2Backward0", 2.0)
log10 = _logn("Log10Backward0", 10.0)


def _exp2_fn(x):
    return P.pow(x.dtype.type(2) if x.dtype.kind == "f" else 2.0, x)


def exp2(x):
    d = _as_float(x._data)
    return _compose(composite_class("Exp2Backward0", ("self",)), _exp2_fn, [x], [d])


def _broadcast_error(ad, bd):
    sa = getattr(ad, "shape", ())
    sb = getattr(bd, "shape", ())
    n = _pymax(len(sa), len(sb))
    sa2 = (1,) * (n - len(sa)) + tuple(sa)
    sb2 = (1,) * (n - len(sb)) + tuple(sb)
    for i in range(n - 1, -1, -1):
        if sa2[i] != sb2[i] and sa2[i] != 1 and sb2[i] != 1:
            return RuntimeError(f"The size of tensor a ({sa2[i]}) must match the size of tensor b "
                                f"({sb2[i]}) at non-singleton dimension {i}")
    return RuntimeError(f"operands with shapes {list(sa)} and {list(sb)} cannot be broadcast")


_new_obj = object.__new__
_next_seq = G._seq.__next__
_save_in = G.save
_save_out = G.save_out


def _binary(prim, name, names, save, rname=None, edge_idx=None):
    """A binary elementwise operation recorded as one primitive node.  ``save``: (mask,
    save_out) or a function of (needs_a, needs_b) returning one (tabulated here);
    ``edge_idx``: the operands shown in ``next_functions`` (all by default)."""
    cls = node_class(name, names, edge_idx=edge_idx)
    rcls = node_class(rname, names) if rname else cls
    impl, bind = prim.impl, prim.bind
    table = {}
    for k in ((True, True), (True, False), (False, True)):
        mask_so = save(k) if callable(save) else save
        table[k[0] * 2 + k[1]] = (k,) + tuple(mask_so)

    def op(a, b):
        r = _operands(a, b)
        if r is None:
            return NotImplemented
        ad, bd, casts = r
        try:
            out = (bind if isinstance(ad, _Tracer) or isinstance(bd, _Tracer) else impl)(ad, bd)
        except ValueError:
            raise _broadcast_error(ad, bd) from None
        if _fw_on:   # forward AD: the generic path computes the tangent
            return _record(cls if isinstance(a, Tensor) else rcls, prim, _EMPTY, [a, b],
                           [ad, bd], out, save, casts)
        if _tls.grad:
            ta = isinstance(a, Tensor)
            tb = isinstance(b, Tensor)
            ea = _edge(a) if ta else NO_EDGE
            eb = _edge(b) if tb else NO_EDGE
            n0 = ea[0] is not None
            n1 = eb[0] is not None
            if n0 or n1:
                needs, mask, so = table[n0 * 2 + n1]
                if ta:
                    sa = _save_in(a, ad) if mask & 1 else _meta(ad)
                else:
                    sa = ad
                if tb:
                    sb = _save_in(b, bd) if mask & 2 else _meta(bd)
                else:
                    sb = bd
                t = _make(out)
                n = _new_obj(cls if ta else rcls)
                n._next = (ea, eb)
                n._seq = _next_seq()
                n._hk = None
                n._prim = prim
                n._params = _EMPTY
                n._saved = [sa, sb]
                n._smask = mask
                n._outsv = None
                n._needs = needs
                n._released = False
                n._casts = casts
                n._tsv = (ta and mask & 1) or (tb and mask & 2)
                t._grad_fn = n
                if so:  # after t._grad_fn: a pack hook gets the output itself
                    n._outsv = _save_out(t)
                if _AM._enabled:
                    _AM.record(n)
                return t
            return _make(out)
        return _make_plain(out)
    op.__name__ = prim.name
    return op


def _checked(op):
    """The function form of an operator: an unsupported operand is a TypeError (the
    operator itself returns NotImplemented so that Python tries the reflected one)."""
    def f(a, b):
        r = op(a, b)
        if r is NotImplemented:
            bad = b if isinstance(a, Tensor) else a
            raise TypeError(f"{op.__name__}(): expected a Tensor or a number, got "
                            f"{type(bad).__name__}")
        return r
    f.__name__ = op.__name__
    f.__doc__ = op.__doc__
    return f


_add = _binary(E.add_p, "AddBackward0", ("self", "other"), SAVE_NONE)
_sub = _binary(E.sub_p, "SubBackward0", ("self", "other"), SAVE_NONE, "RsubBackward1")
_mul = _binary(E.mul_p, "MulBackward0", ("self", "other"), _save_cross)
_div = _binary(E.div_p, "DivBackward0", ("self", "other"), _save_div)
mul = multiply = _checked(_mul)
maximum = _real_only(_checked(_binary(E.maximum_p, "MaximumBackward0", ("self", "other"),
                                      _save_both)),
                     msg="maximum not implemented for complex tensors.", exc=RuntimeError)
minimum = _real_only(_checked(_binary(E.minimum_p, "MinimumBackward0", ("self", "other"),
                                      _save_both)),
                     msg="minimum not implemented for complex tensors.", exc=RuntimeError)
_pow_tt = _binary(E.pow_p, "PowBackward1", ("self", "exponent"), _save_pow)
_pow_st = _binary(E.pow_p, "PowBackward2", ("self", "exponent"), (2, True))
_pow_ts = _binary(E.pow_p, "PowBackward0", ("self", "exponent"), (3, False))


def add(input, other, *, alpha=1, out=None):  # noqa: A002
    """``input + alpha * other``."""
    if alpha != 1:
        other = mul(other, alpha)
    return _checked(_add)(input, other)


def sub(input, other, *, alpha=1, out=None):  # noqa: A002
    """``input - alpha * other``."""
    if alpha != 1:
        other = mul(other, alpha)
    return _checked(_sub)(input, other)


subtract = sub


def rsub(input, other, *, alpha=1):  # noqa: A002
    return sub(other, input, alpha=alpha)


def div(input, other, *, rounding_mode=None):  # noqa: A002
    """True division (integers give the default float dtype); ``rounding_mode`` 'trunc' or
    'floor' round the quotient (no gradient)."""
    r = _truediv(input, other, rounding_mode)
    if r is NotImplemented:
        raise TypeError(f"div(): expected a Tensor or a number, got "
                        f"{type(other if isinstance(input, Tensor) else input).__name__}")
    return r


def _truediv(input, other, rounding_mode=None):  # noqa: A002
    if rounding_mode is not None:
        _refuse_complex(input, other, kernel=f"div_{rounding_mode}_cpu")
        q = _nograd_binary(_np_div, input, other)
        if rounding_mode == "floor":
            return floor(q).to(q.dtype) if q._data.dtype.kind != "f" else floor(q)
        if rounding_mode == "trunc":
            return trunc(q)
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
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


def _np_div(a, b):
    return np.true_divide(a, b)


def pow(input, exponent):  # noqa: A001
    """``input ** exponent`` (PyTorch's PowBackward0/1/2 depending on which is a tensor)."""
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


def float_power(input, exponent):  # noqa: A002
    """``input ** exponent`` in double precision: tensor operands are converted to float64,
    or to complex128 when an operand is complex (PyTorch's float_power; the gradient flows
    back through the conversion, so each operand's gradient keeps its own dtype)."""
    dt = np.dtype(np.complex128 if _has_complex(input, exponent) else np.float64)

    def up(v):
        if isinstance(v, Tensor):
            return _convert(v, dt)
        if isinstance(v, np.ndarray):
            return _convert(_tensorize(v), dt)
        return v
    return pow(up(input), up(exponent))


def _operands_or_raise(a, b):
    r = _operands(a, b)
    if r is None:
        bad = b if isinstance(a, Tensor) else a
        raise TypeError(f"unsupported operand type: expected a Tensor or a number, got "
                        f"{type(bad).__name__}")
    return r


def _nograd_binary(fn, a, b):
    ad, bd, _ = _operands_or_raise(a, b)
    return _make_plain(fn(ad, bd))


def _compare(prim):
    impl, bind = prim.impl, prim.bind

    def op(a, b):
        r = _operands(a, b)
        if r is None:
            return NotImplemented
        return _make_plain(bind(r[0], r[1]))
    op.__name__ = prim.name
    return op


_eq, _ne = _compare(L.eq_p), _compare(L.ne_p)
# orderings have no complex kernel in PyTorch
_lt, _le, _gt, _ge = (_real_only(_compare(p), kernel=f"{n}_cpu") for p, n in (
    (L.lt_p, "lt"), (L.le_p, "le"), (L.gt_p, "gt"), (L.ge_p, "ge")))
eq = _checked(_eq)
ne = not_equal = _checked(_ne)
lt = less = _checked(_lt)
le = less_equal = _checked(_le)
gt = greater = _checked(_gt)
ge = greater_equal = _checked(_ge)


def _logical(npfn):
    def op(a, b):
        r = _operands(a, b)
        if r is None:
            return NotImplemented
        return _make_plain(npfn(r[0], r[1]))
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


def _row_op(op):
    prim = getattr(E, op.name + "_p")
    if op.arity == 1:
        if op.differentiable:
            f = _unary(prim, P.optable.node_name(op), _UNARY_SAVE[op.saves],
                       float_only=op.dtype == "float")
        else:
            bind = prim.bind

            def f(x):
                return _make_plain(bind(x._data))
    else:
        if op.differentiable:
            save = (3 if op.saves != "none" or "linear" in op.deriv else 0, "ans" in op.saves)
            f = _checked(_binary(prim, P.optable.node_name(op), ("self", "other"), save))
        else:
            f = _checked(_compare(prim))
    f.__name__ = op.torch
    f.__doc__ = (f"{op.doc}\n\n``torch.{op.torch}``: elementwise, on ftrans's ``{op.name}`` "
                 f"primitive (generated from the operation table).")
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



logical_and = _checked(_logical(np.logical_and))
logical_or = _checked(_logical(np.logical_or))
logical_xor = _checked(_logical(np.logical_xor))
_bitwise_and = _real_only(_logical(np.bitwise_and), kernel="bitwise_and_cpu")
_bitwise_or = _real_only(_logical(np.bitwise_or), kernel="bitwise_or_cpu")
_bitwise_xor = _real_only(_logical(np.bitwise_xor), kernel="bitwise_xor_cpu")
bitwise_and = _checked(_bitwise_and)
bitwise_or = _checked(_bitwise_or)
bitwise_xor = _checked(_bitwise_xor)


def logical_not(x):
    return _make_plain(np.logical_not(x._data))


def floor_divide(a, b):
    _refuse_complex(a, b, kernel="div_floor_cpu")
    ad, bd, _ = _operands_or_raise(a, b)
    return _make_plain(np.floor_divide(ad, bd))


def _rem(prim, name):
    """``remainder``/``fmod``: the operation table's rows, with torch's node names
    (``<Name>Backward0`` for a scalar divisor, ``<Name>Backward1`` for a tensor)."""
    tt = _binary(prim, f"{name}Backward1", ("self", "other"), (3, False))
    ts = _binary(prim, f"{name}Backward0", ("self", "other"), (3, False), edge_idx=(0,))

    def op(a, b):
        r = (tt if isinstance(b, Tensor) else ts)(a, b)
        if r is NotImplemented:
            raise TypeError(f"{name.lower()}(): expected a Tensor or a number, got "
                            f"{type(b).__name__}")
        return r
    return op


_remainder = _rem(E.remainder_p, "Remainder")
_fmod = _rem(E.fmod_p, "Fmod")


def remainder(a, b):
    """Python's ``a % b`` (the result has the sign of ``b``); real operands only.  The
    gradient is 1 for ``a`` and ``-floor(a / b)`` for ``b``."""
    _refuse_complex(a, b, kernel="remainder_cpu")
    return _remainder(a, b)


def fmod(a, b):
    """C's ``fmod`` (the result has the sign of ``a``); real operands only.  The gradient
    is 1 for ``a`` and ``-trunc(a / b)`` for ``b``."""
    _refuse_complex(a, b, kernel="fmod_cpu")
    return _fmod(a, b)


def isnan(x):
    return _make_plain(np.isnan(x._data))


def isinf(x):
    return _make_plain(np.isinf(x._data))


def isfinite(x):
    return _make_plain(np.isfinite(x._data))


def equal(a, b) -> bool:
    """True if both tensors have the same shape and values."""
    return a._data.shape == b._data.shape and bool(np.array_equal(a._data, b._data))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    return bool(np.allclose(a._data, _data_of(b), rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|a - b| <= atol + rtol * |b|``; two tensors must have one dtype
    (``RuntimeError`` otherwise, as in PyTorch)."""
    if isinstance(b, Tensor) and a._data.dtype != b._data.dtype:
        raise RuntimeError(f"{_tname(a._data.dtype)} did not match {_tname(b._data.dtype)}")
    return _make_plain(np.isclose(a._data, _data_of(b), rtol=rtol, atol=atol,
                                  equal_nan=equal_nan))


def _data_of(v):
    return v._data if isinstance(v, Tensor) else np.asarray(v)


# =============================================================================== reductions
def _dims(dim, ndim):
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
            raise RuntimeError("dim appears multiple times in the list of dims")
        return tuple(axes)
    return (_dim(dim, ndim),)


def _keep_shape(shape, axes):
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def _red_shape(shape, axes):
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def _sum_fn(x, axes, keepdim):
    out = P.reduce_sum(x, axes)
    return P.reshape(out, _keep_shape(x.shape, axes)) if keepdim else out


def _mean_fn(x, axes, keepdim, n):
    return P.div(_sum_fn(x, axes, keepdim), x.dtype.type(n) if x.dtype.kind == "f" else n)


def _self_sizes(n):
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


def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001
    """Sum over ``dim`` (all dimensions by default)."""
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


def nansum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    _refuse_complex(input, msg="nansum on CPU does not support complex inputs", exc=RuntimeError)
    return sum(where(isnan(input), 0.0, input), dim, keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    """Mean over ``dim`` (all dimensions by default); floating/complex tensors only."""
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


def _prod_fn(x, axes, keepdim):
    out = R.reduce_prod_p.bind(x, axes=axes)
    return P.reshape(out, _keep_shape(x.shape, axes)) if keepdim else out


_ProdBackward0 = node_class("ProdBackward0", ("self",))
_ProdBackward1 = composite_class("ProdBackward1", ("self",))


def prod(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
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


def _amax_fn(x, prim, axes, keepdim):
    out = prim.bind(x, axes=axes)
    return P.reshape(out, _keep_shape(x.shape, axes)) if keepdim else out


def _take_fn(x, *arrays, axis, keepdim):
    """``x`` at the index ``arrays`` (an argmax along ``axis``), as ``max(dim)`` gives it."""
    out = I.gather_p.bind(x, *arrays, template=tuple(I._Slot(k) for k in range(len(arrays))))
    return P.expand_dims(out, (axis,)) if keepdim else out


_AmaxBackward0 = composite_class("AmaxBackward0", ("self",))
_AminBackward0 = composite_class("AminBackward0", ("self",))
_MaxBackward1 = node_class("MaxBackward1", ("self",))
_MinBackward1 = node_class("MinBackward1", ("self",))
_MaxBackward0 = composite_class("MaxBackward0", ("self", "indices"), edge_idx=(0,))
_MinBackward0 = composite_class("MinBackward0", ("self", "indices"), edge_idx=(0,))
_max_ret = namedtuple("max", ["values", "indices"])
_min_ret = namedtuple("min", ["values", "indices"])


def _extremum(which):
    prim = R.reduce_max_p if which == "max" else R.reduce_min_p
    full_cls = _MaxBackward1 if which == "max" else _MinBackward1
    dim_cls = _MaxBackward0 if which == "max" else _MinBackward0
    argf = np.argmax if which == "max" else np.argmin
    ret = _max_ret if which == "max" else _min_ret
    pair = maximum if which == "max" else minimum

    def op(input, dim=None, keepdim=False):  # noqa: A002
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
    return op


max = _extremum("max")  # noqa: A001
min = _extremum("min")  # noqa: A001


def _amax_like(prim, cls, npf):
    kernel = f"{npf.__name__}_values_cpu"

    def op(input, dim=(), keepdim=False):  # noqa: A002
        d = input._data
        _refuse_complex(input, kernel=kernel)
        params = {"prim": prim, "axes": _dims(dim if dim != () else None, d.ndim),
                  "keepdim": keepdim}
        if d.dtype.kind not in "fc":
            return _make_plain(_amax_fn(d, **params))
        return _compose(cls, _amax_fn, [input], [d], params)
    return op


amax = _amax_like(R.reduce_max_p, _AmaxBackward0, np.max)
amin = _amax_like(R.reduce_min_p, _AminBackward0, np.min)


_ARG_COMPLEX = "{}(): does not support complex input"


def _arg_extremum(npf, name):
    """``argmax``/``argmin``: int64 indices (of the flattened tensor when ``dim`` is None);
    complex tensors are refused as in PyTorch."""
    def f(input, dim=None, keepdim=False):  # noqa: A002
        _refuse_complex(input, msg=_ARG_COMPLEX.format(name), exc=RuntimeError)
        d = input._data
        if dim is None:
            r = npf(d)
            return _make_plain(np.asarray(r, np.int64).reshape((1,) * d.ndim if keepdim
                                                                else ()))
        r = npf(d, axis=_dim(dim, d.ndim), keepdims=keepdim)
        return _make_plain(np.asarray(r, np.int64))
    f.__name__ = f.__qualname__ = name
    return f


argmax = _arg_extremum(np.argmax, "argmax")
argmin = _arg_extremum(np.argmin, "argmin")


def any(input, dim=None, keepdim=False):  # noqa: A001
    d = input._data
    return _make_plain(np.asarray(np.any(d, axis=None if dim is None else _dims(dim, d.ndim),
                                         keepdims=keepdim)))


def all(input, dim=None, keepdim=False):  # noqa: A001
    d = input._data
    return _make_plain(np.asarray(np.all(d, axis=None if dim is None else _dims(dim, d.ndim),
                                         keepdims=keepdim)))


def _norm2_fn(x, axes, keepdim):
    return _fla.vector_norm(x, axis=axes, keepdims=keepdim)   # derivative 0 at 0


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):  # noqa: A002
    """Vector norm (p = 2/'fro' by default, also 1, inf, -inf and other numbers)."""
    x = input if dtype is None else input.to(dtype)
    if p in ("fro", 2, 2.0, None):
        d = x._data
        return _compose(composite_class("LinalgVectorNormBackward0", ("self",)), _norm2_fn,
                        [x], [d], {"axes": _dims(dim, d.ndim), "keepdim": keepdim})
    if p in (math.inf, float("inf")):
        return amax(abs(x), dim=() if dim is None else dim, keepdim=keepdim)
    if p in (-math.inf, float("-inf")):
        return amin(abs(x), dim=() if dim is None else dim, keepdim=keepdim)
    if p == 1:
        return sum(abs(x), dim, keepdim)
    return pow(sum(pow(abs(x), p), dim, keepdim), 1.0 / p)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):  # noqa: A002
    """Variance (Bessel's correction by default)."""
    if correction is None:
        correction = 0 if unbiased is False else 1
    d = input._data
    axes = _dims(dim, d.ndim)
    n = 1
    for a in axes:
        n *= d.shape[a]
    c = sub(input, mean(input, dim=axes, keepdim=True))
    sq = mul(c, conj(c)) if d.dtype.kind == "c" else mul(c, c)
    s = sum(real(sq) if d.dtype.kind == "c" else sq, dim=axes, keepdim=keepdim)
    return div(s, float(_pymax(n - correction, 0)))


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):  # noqa: A002
    return sqrt(var(input, dim, unbiased, keepdim, correction=correction))


def _shift(x, axes):
    """The constant ``max(real(x))`` over ``axes`` (kept dims; 0 where it is not finite):
    subtracting it keeps ``exp`` from overflowing and changes no derivative."""
    if not x.size:
        return np.zeros(_keep_shape(x.shape, axes), np.finfo(x.dtype).dtype)
    r = P.real(x) if x.dtype.kind == "c" else x
    m = P.stop_gradient(P.reshape(P.reduce_max(r, axes), _keep_shape(x.shape, axes)))
    return P.where(P.isfinite(m), m, r.dtype.type(0))


def _sum_keep(e, axes):
    return P.reshape(P.reduce_sum(e, axes), _keep_shape(e.shape, axes))


def _logsumexp_fn(x, axes, keepdim):
    m = _shift(x, axes)
    out = P.add(P.log(_sum_keep(P.exp(P.sub(x, m)), axes)), m)
    return out if keepdim else P.reshape(out, _red_shape(x.shape, axes))


def _softmax_fn(x, axes):
    e = P.exp(P.sub(x, _shift(x, axes)))
    return P.div(e, _sum_keep(e, axes))


def _log_softmax_fn(x, axes):
    z = P.sub(x, _shift(x, axes))
    return P.sub(z, P.log(_sum_keep(P.exp(z), axes)))


def logsumexp(input, dim, keepdim=False):  # noqa: A002
    """``log(sum(exp(x), dim))`` computed stably.  For complex ``x`` the shift is the
    largest real part, as in PyTorch, so the imaginary part is the principal argument of
    the sum; the gradient is ``grad * conj(exp(x - result))``."""
    d = _as_float(input._data)
    return _compose(composite_class("LogsumexpBackward0", ("self",)), _logsumexp_fn, [input],
                    [d], {"axes": _dims(dim, d.ndim), "keepdim": keepdim})


_sm_attrs = {"dim": lambda n: n._params["axes"][0]}
_SoftmaxBackward0 = composite_class("SoftmaxBackward0", ("self",), params=_sm_attrs)
_LogSoftmaxBackward0 = composite_class("LogSoftmaxBackward0", ("self",), params=_sm_attrs)


def _softmax(fn, cls, name):
    def op(input, dim=None, dtype=None):  # noqa: A002
        x = input if dtype is None else input.to(dtype)
        d = _as_float(x._data)
        if dim is None:
            dim = 0 if d.ndim in (0, 1, 3) else 1  # PyTorch's legacy implicit choice
        axes = _dims(dim, d.ndim)
        if d.dtype.kind == "c":
            last = "_lastdim" if d.ndim == 0 or axes[0] == d.ndim - 1 else ""
            _refuse_complex(x, kernel=f"{name}{last}_kernel_impl")
        return _compose(cls, fn, [x], [d], {"axes": axes})
    op.__name__ = name
    return op


softmax = _softmax(_softmax_fn, _SoftmaxBackward0, "softmax")
softmax.__doc__ = """``exp(x) / sum(exp(x), dim)`` (computed stably)."""
log_softmax = _softmax(_log_softmax_fn, _LogSoftmaxBackward0, "log_softmax")
log_softmax.__doc__ = """``x - logsumexp(x, dim)`` (computed stably)."""


# =============================================================================== clamp, where
def _clamp_fn(x, lo, hi):
    """``min(max(x, lo), hi)``; the gradient passes where ``lo <= x <= hi`` (bounds
    included, PyTorch's convention); a NaN bound gives NaN everywhere, as in PyTorch."""
    out = x
    if lo is not None:
        out = P.where(P.lt(out, lo), lo, out) if not math.isnan(lo) else \
            P.stop_gradient(P.add(P.mul(out, 0.0), lo))
    if hi is not None:
        out = P.where(P.gt(out, hi), hi, out) if not math.isnan(hi) else \
            P.stop_gradient(P.add(P.mul(out, 0.0), hi))
    return out


_ClampBackward1 = composite_class("ClampBackward1", ("self",),
                                  params={"min": lambda n: n._params["lo"],
                                          "max": lambda n: n._params["hi"]})


def clamp(input, min=None, max=None):  # noqa: A002
    """Clamp to ``[min, max]``; the gradient passes where ``min <= x <= max``.  Real
    tensors only (``NotImplementedError`` for complex ones, as in PyTorch)."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    _refuse_complex(input, msg=_CLAMP_COMPLEX)
    _refuse_complex(min, max, kernel="clamp_cpu" if min is not None and max is not None
                    else "maximum_cpu" if min is not None else "minimum_cpu")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        out = input
        if min is not None:
            out = maximum(out, min)
        if max is not None:
            out = minimum(out, max)
        return out
    d = input._data
    lo = _scalar(min) if min is not None else None
    hi = _scalar(max) if max is not None else None
    if d.dtype.kind in "biu" and (isinstance(lo, float) or isinstance(hi, float)):
        d = d.astype(_default_float())
    return _compose(_ClampBackward1, _clamp_fn, [input], [d], {"lo": lo, "hi": hi})


clip = clamp


def clamp_min(input, min):  # noqa: A002
    return clamp(input, min=min)


def clamp_max(input, max):  # noqa: A002
    return clamp(input, max=max)


_WhereBackward0 = node_class("WhereBackward0", ("condition", "self", "other"), edge_idx=(1, 2))


def where(condition, input=None, other=None):  # noqa: A002
    """``input`` where ``condition`` else ``other`` (or, with one argument, the indices of the
    nonzero elements)."""
    c = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    if input is None and other is None:
        return tuple(_make_plain(np.asarray(i, np.int64)) for i in np.nonzero(c))
    if c.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {D.from_np(c.dtype)._tname[:-6]}")
    xd, yd, casts = _operands_or_raise(input, other)
    out = select_p.bind(c, xd, yd)
    return _record(_WhereBackward0, select_p, _EMPTY, [c, input, other], [c, xd, yd], out,
                   (1, False), casts=None if casts is None else (None,) + casts)


def _masked_fill_fn(x, mask, value):
    if hasattr(value, "dtype") and value.dtype != x.dtype:
        value = P.convert_element_type(value, x.dtype)
    return P.where(mask, value, x)


_MaskedFillBackward0 = composite_class("MaskedFillBackward0", ("self", "mask", "value"),
                                       edge_idx=(0,))


def _check_fill_value(d, v):
    """PyTorch's check that the fill value ``v`` (a number or an array) fits the dtype of
    ``d``: a complex value with a nonzero imaginary part does not fit a real tensor."""
    if d.dtype.kind != "c" and np.iscomplexobj(v) and np.any(np.imag(v) != 0):
        raise RuntimeError(f"value cannot be converted to type {_ctype(d.dtype)} without "
                           "overflow")


def masked_fill(input, mask, value):  # noqa: A002
    """``value`` where the boolean ``mask`` is True, else ``input``.  The gradient of a
    tensor ``value`` has its own dtype (the real part of the cotangent for a real ``value``
    filled into a complex ``input``)."""
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_ctype(m.dtype)}")
    d = input._data
    vd = value._data if isinstance(value, Tensor) else value
    _check_fill_value(d, vd)
    if not isinstance(value, Tensor):
        vd = np.asarray(vd)
        vd = vd.real if vd.dtype.kind == "c" and d.dtype.kind != "c" else vd
        vd = np.asarray(vd, d.dtype)
    elif vd.dtype.kind == "c" and d.dtype.kind != "c":
        vd = P.real(vd)
    return _compose(_MaskedFillBackward0, _masked_fill_fn, [input, m, value], [d, m, vd],
                    mask=0)


def _basic_index(d, template):
    """``d[template]`` as a view, also when every dimension is indexed by an integer (NumPy
    would return a scalar copy)."""
    out = d[template]
    if type(out) is not np.ndarray and Ellipsis not in template:
        out = d[template + (Ellipsis,)]
    return out


def _view_op(x, prim, params, cls, out=None, extra=(), view=True):
    d = x._data
    if out is None:
        if prim is I.gather_p:
            out = _basic_index(d, params["template"])
        elif isinstance(d, _Tracer):   # under an ftrans transform (compat.func)
            out = _k(prim, d)(d, *extra, **params)
        else:   # the kernel's NumPy view (a _ViewFn's bind would copy)
            out = prim.impl(d, *extra, **params)
    t = _record(cls, prim, params, [x, *extra], [d, *extra], out, SAVE_NONE)
    if view:
        _mark_view(t, x, prim, params, extra)
    return t


def _shape_arg(shape):
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
        shape = shape[0]
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    return tuple(int(s) for s in shape)


def _infer_shape(shape, n):
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if neg:
        if known == 0 or n % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {n}")
        shape[neg[0]] = n // known
    elif known != n:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {n}")
    return tuple(shape)


_ViewBackward0 = node_class("ViewBackward0", ("self",), params=_size_attr)
_UnsafeViewBackward0 = node_class("UnsafeViewBackward0", ("self",), params=_size_attr)


def reshape(input, *shape):  # noqa: A002
    """Tensor with the same data and the given shape (a view when possible)."""
    d = input._data
    new = _infer_shape(_shape_arg(shape), d.size)
    out = d.reshape(new)
    is_view = out.size == 0 or (isinstance(out, _Tracer) or np.may_share_memory(out, d))
    return _view_op(input, S.reshape_p, {"new_shape": new},
                    _ViewBackward0 if is_view else _UnsafeViewBackward0, out, view=is_view)


def view(input, *shape):  # noqa: A002
    """A view with the given shape (``RuntimeError`` if the strides do not allow one)."""
    if len(shape) == 1 and isinstance(shape[0], D.dtype):
        raise NotImplementedError("view(dtype) is not supported by ftrans.compat")
    d = input._data
    new = _infer_shape(_shape_arg(shape), d.size)
    try:
        out = d.reshape(new) if isinstance(d, _Tracer) else np.reshape(d, new, copy=False)
    except ValueError:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                           "least one dimension spans across two contiguous subspaces). Use "
                           ".reshape(...) instead.") from None
    return _view_op(input, S.reshape_p, {"new_shape": new}, _ViewBackward0, out)


def view_as(input, other):  # noqa: A002
    return view(input, other._data.shape)


def reshape_as(input, other):  # noqa: A002
    return reshape(input, other._data.shape)


def flatten(input, start_dim=0, end_dim=-1):  # noqa: A002
    d = input._data
    if d.ndim == 0:
        return reshape(input, (1,))
    s = _dim(start_dim, d.ndim)
    e = _dim(end_dim, d.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    n = 1
    for k in d.shape[s:e + 1]:
        n *= k
    return reshape(input, d.shape[:s] + (n,) + d.shape[e + 1:])


def unflatten(input, dim, sizes):  # noqa: A002
    d = input._data
    ax = _dim(dim, d.ndim)
    sizes = _infer_shape(tuple(sizes), d.shape[ax])
    return view(input, d.shape[:ax] + sizes + d.shape[ax + 1:])


_SqueezeBackward0 = node_class("SqueezeBackward0", ("self",), params=_size_attr)
_SqueezeBackward1 = node_class("SqueezeBackward1", ("self",), params=_size_attr)
_UnsqueezeBackward0 = node_class("UnsqueezeBackward0", ("self",))


def squeeze(input, dim=None):  # noqa: A002
    """Remove dimensions of size 1 (all, or those among ``dim``)."""
    d = input._data
    if dim is None:
        dims = tuple(i for i, s in enumerate(d.shape) if s == 1)
        cls = _SqueezeBackward0
    else:
        axes = _dims(dim, d.ndim) if d.ndim else ()
        dims = tuple(i for i in axes if d.shape[i] == 1)
        cls = _SqueezeBackward1
    if not dims:
        return _view_op(input, S.reshape_p, {"new_shape": d.shape}, cls)
    return _view_op(input, S.squeeze_p, {"dims": dims}, cls)


def unsqueeze(input, dim):  # noqa: A002
    d = input._data
    ax = _dim(dim, d.ndim + 1)
    return _view_op(input, S.expand_dims_p, {"dims": (ax,)}, _UnsqueezeBackward0)


_TransposeBackward0 = node_class("TransposeBackward0", ("self",))
_PermuteBackward0 = node_class("PermuteBackward0", ("self",))
_TBackward0 = node_class("TBackward0", ("self",))


def transpose(input, dim0, dim1):  # noqa: A002
    d = input._data
    a, b = _dim(dim0, d.ndim), _dim(dim1, d.ndim)
    perm = list(range(d.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return _view_op(input, S.transpose_p, {"perm": tuple(perm)}, _TransposeBackward0)


swapaxes = swapdims = transpose


def t(input):  # noqa: A002
    d = input._data
    if d.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {d.ndim}D")
    perm = tuple(range(d.ndim))[::-1]
    return _view_op(input, S.transpose_p, {"perm": perm}, _TBackward0)


def permute(input, *dims):  # noqa: A002
    d = input._data
    dims = _shape_arg(dims)
    if len(dims) != d.ndim:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {d.ndim} is not equal to len(dims) = {len(dims)}")
    perm = tuple(_dim(x, d.ndim) for x in dims)
    if sorted(perm) != list(range(d.ndim)):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _view_op(input, S.transpose_p, {"perm": perm}, _PermuteBackward0)


def movedim(input, source, destination):  # noqa: A002
    d = input._data
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    src = [_dim(s, d.ndim) for s in src]
    dst = [_dim(s, d.ndim) for s in dst]
    order = [i for i in range(d.ndim) if i not in src]
    for dd, ss in sorted(zip(dst, src)):
        order.insert(dd, ss)
    return permute(input, order)


moveaxis = movedim


_ExpandBackward0 = node_class("ExpandBackward0", ("self",), params=_size_attr)


def expand(input, *sizes):  # noqa: A002
    """Broadcast to ``sizes`` (-1 keeps a dimension) without copying."""
    d = input._data
    sizes = _shape_arg(sizes)
    if len(sizes) < d.ndim:
        raise RuntimeError(f"expand(torch.{D.from_np(d.dtype)._tname}{{{list(d.shape)}}}, "
                           f"size={list(sizes)}): the number of sizes provided "
                           f"({len(sizes)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({d.ndim})")
    lead = len(sizes) - d.ndim
    shape = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError("The expanded size of the tensor (-1) isn't allowed in a "
                                   "leading, non-existing dimension")
            shape.append(s)
        else:
            own = d.shape[i - lead]
            if s == -1:
                s = own
            if own != s and own != 1:
                raise RuntimeError(f"The expanded size of the tensor ({s}) must match the "
                                   f"existing size ({own}) at non-singleton dimension {i}.  "
                                   f"Target sizes: {list(sizes)}.  Tensor sizes: "
                                   f"{list(d.shape)}")
            shape.append(s)
    shape = tuple(shape)
    return _view_op(input, S.broadcast_to_p, {"shape": shape}, _ExpandBackward0)


def expand_as(input, other):  # noqa: A002
    return expand(input, other._data.shape)


def broadcast_to(input, shape):  # noqa: A002
    return expand(input, shape)


def broadcast_tensors(*tensors):
    shape = np.broadcast_shapes(*(t._data.shape for t in tensors))
    return tuple(expand(t, shape) for t in tensors)


def _repeat_fn(x, repeats):
    """``torch.repeat``: NumPy's ``tile`` (leading dimensions added as needed)."""
    xs = (1,) * (len(repeats) - x.ndim) + tuple(x.shape)
    inter, out_shape = [], []
    for r, s in zip(repeats, xs):
        inter += [1, s]
        out_shape.append(r * s)
    b = P.broadcast_to(P.reshape(x, tuple(inter)),
                       tuple(v for r, s in zip(repeats, xs) for v in (r, s)))
    return P.reshape(b, tuple(out_shape))


_RepeatBackward0 = composite_class("RepeatBackward0", ("self",))


def repeat(input, *sizes):  # noqa: A002
    d = input._data
    reps = _shape_arg(sizes)
    if len(reps) < d.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    return _compose(_RepeatBackward0, _repeat_fn, [input], [d], {"repeats": reps}, mask=0)


# indexing ------------------------------------------------------------------------------
_SelectBackward0 = node_class("SelectBackward0", ("self",), params=_size_attr)
_SliceBackward0 = node_class("SliceBackward0", ("self",), params=_size_attr)
_IndexBackward0 = node_class("IndexBackward0", ("self", "indices"), edge_idx=(0,),
                             params=_size_attr)
_AliasBackward0 = node_class("AliasBackward0", ("self",))
_IndexSelectBackward0 = node_class("IndexSelectBackward0", ("self", "index"), edge_idx=(0,))
_GatherBackward0 = node_class("GatherBackward0", ("self", "index"), edge_idx=(0,))
_FlipBackward0 = node_class("FlipBackward0", ("self",))


def _convert_index(idx):
    """A NumPy index from a PyTorch one (tensors become arrays or ints)."""
    if isinstance(idx, tuple):
        return tuple(_convert_index1(i) for i in idx)
    return _convert_index1(idx)


def _convert_index1(i):
    if isinstance(i, Tensor):
        d = i._data
        if d.dtype.kind == "b":
            return d
        if d.dtype.kind not in "iu":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if d.ndim == 0:
            return int(d)
        return d
    if isinstance(i, list):
        a = np.asarray([_convert_index1(v) if isinstance(v, Tensor) else v for v in i])
        if a.dtype.kind == "f" and a.size == 0:
            a = a.astype(np.int64)
        return a
    return i


def _index_class(template, arrays):
    if arrays:
        return _IndexBackward0
    last = _NOTHING = object()
    for t in template:
        if t is Ellipsis or (isinstance(t, slice) and t == slice(None)):
            continue
        last = t
    if last is _NOTHING:
        return _AliasBackward0
    if isinstance(last, int):
        return _SelectBackward0
    if isinstance(last, slice):
        return _SliceBackward0
    return _UnsqueezeBackward0


def getitem(input, idx):  # noqa: A002
    """``input[idx]``: basic indexing gives a view, advanced indexing a copy."""
    d = input._data
    template, arrays = I.split_index(_convert_index(idx))
    try:
        out = (_kk(I.gather_p, d, *arrays)(d, *arrays, template=template) if arrays
               else _basic_index(d, template))
    except IndexError as e:
        raise IndexError(str(e)) from None
    params = {"template": template}
    cls = _index_class(template, arrays)
    t = _record(cls, I.gather_p, params, [input, *arrays], [d, *arrays], out,
                ((1 << (len(arrays) + 1)) - 2, False))
    if not arrays:
        _mark_view(t, input, I.gather_p, params)
    return t


def _index_put_fn(x, mask, v, *arrays, template, shape):
    """``x`` with ``v`` (broadcast to the indexed ``shape``) written at the index: the
    composition whose derivative ``index_put`` has (duplicate indices: the forward keeps
    NumPy's last write, see :func:`_index_put`)."""
    if v.dtype != x.dtype:
        v = P.convert_element_type(v, x.dtype)
    v = P.broadcast_to(v, shape)
    return P.where(mask, I.scatter_add_p.bind(v, *arrays, template=template, shape=x.shape), x)


_IndexPutBackward0 = composite_class("IndexPutBackward0", ("self", "mask", "values"),
                                     edge_idx=(0, 2))


def _index_put(input, template, arrays, value):  # noqa: A002
    d = input._data
    idx = I._rebuild(template, arrays)
    out = d.copy()
    vd = value._data if isinstance(value, Tensor) else value
    out[idx] = vd
    mask = np.zeros(d.shape, bool)
    mask[idx] = True
    if not isinstance(value, Tensor):
        vd = np.asarray(vd, d.dtype)
    return _compose(_IndexPutBackward0, _index_put_fn, [input, mask, value, *arrays],
                    [d, mask, vd, *arrays], {"template": template, "shape": d[idx].shape},
                    mask=0, out=out)


def setitem(input, idx, value):  # noqa: A002
    """``input[idx] = value`` (in place)."""
    template, arrays = I.split_index(_convert_index(idx))
    if not arrays:
        v = getitem(input, idx)
        copy_(v, value)
        return
    _inplace(input, _index_put, template, arrays, value)


def select(input, dim, index):  # noqa: A002
    d = input._data
    ax = _dim(dim, d.ndim)
    n = d.shape[ax]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(d.shape)} at dimension {ax}")
    template = (slice(None),) * ax + (int(index) % n,)
    params = {"template": template}
    return _view_op(input, I.gather_p, params, _SelectBackward0)


def narrow(input, dim, start, length):  # noqa: A002
    d = input._data
    ax = _dim(dim, d.ndim)
    n = d.shape[ax]
    start = int(start)
    if start < 0:
        start += n
    if not (0 <= start <= n and 0 <= length and start + length <= n):
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    template = (slice(None),) * ax + (slice(start, start + int(length)),)
    return _view_op(input, I.gather_p, {"template": template}, _SliceBackward0)


def split(tensor, split_size_or_sections, dim=0):
    d = tensor._data
    ax = _dim(dim, d.ndim)
    n = d.shape[ax]
    if isinstance(split_size_or_sections, int):
        s = split_size_or_sections
        sizes = [s] * (n // s) + ([n % s] if n % s else []) if s else [n]
    else:
        sizes = list(split_size_or_sections)
        if _pysum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {ax}), but got split_sizes="
                               f"{sizes}")
    out, start = [], 0
    for s in sizes:
        out.append(narrow(tensor, ax, start, s))
        start += s
    return tuple(out)


def chunk(input, chunks, dim=0):  # noqa: A002
    n = input._data.shape[_dim(dim, input._data.ndim)]
    s = -(-n // chunks) if chunks > 0 else n
    return split(input, _pymax(s, 1), dim)


def unbind(input, dim=0):  # noqa: A002
    d = input._data
    ax = _dim(dim, d.ndim)
    return tuple(select(input, ax, i) for i in range(d.shape[ax]))


def index_select(input, dim, index):  # noqa: A002
    d = input._data
    ax = _dim(dim, d.ndim)
    ix = index._data if isinstance(index, Tensor) else index
    ix = P.reshape(ix, (-1,)) if isinstance(ix, _Tracer) else np.asarray(ix).reshape(-1)
    template = (slice(None),) * ax + (I._Slot(0),)
    out = _kk(I.gather_p, d, ix)(d, ix, template=template)
    return _record(_IndexSelectBackward0, I.gather_p, {"template": template}, [input, ix],
                   [d, ix], out, (2, False))


def gather(input, dim, index):  # noqa: A002
    """``out[i][j] = input[index[i][j]][j]`` for ``dim=0`` (PyTorch's gather)."""
    d = input._data
    ax = _dim(dim, d.ndim)
    ix = index._data if isinstance(index, Tensor) else np.asarray(index)
    grids = list(np.indices(ix.shape, sparse=True))
    grids[ax] = ix
    arrays = tuple(g if isinstance(g, _Tracer) else np.asarray(g) for g in grids)
    template = tuple(I._Slot(k) for k in range(len(arrays)))
    out = _kk(I.gather_p, d, *arrays)(d, *arrays, template=template)
    return _record(_GatherBackward0, I.gather_p, {"template": template}, [input, *arrays],
                   [d, *arrays], out, ((1 << (len(arrays) + 1)) - 2, False))


def flip(input, dims):  # noqa: A002
    d = input._data
    axes = _dims(dims, d.ndim)
    template = tuple(slice(None, None, -1) if i in axes else slice(None) for i in range(d.ndim))
    out = np.ascontiguousarray(d[template])
    return _record(_FlipBackward0, I.gather_p, {"template": template}, [input], [d], out,
                   SAVE_NONE)


def _tri_fn(x, mask):
    return P.where(mask, x, x.dtype.type(0))


_TrilBackward0 = composite_class("TrilBackward0", ("self", "mask"), edge_idx=(0,))
_TriuBackward0 = composite_class("TriuBackward0", ("self", "mask"), edge_idx=(0,))


def tril(input, diagonal=0):  # noqa: A002
    d = input._data
    mask = np.tril(np.ones(d.shape[-2:], bool), diagonal)
    return _compose(_TrilBackward0, _tri_fn, [input, mask], [d, mask], mask=0)


def triu(input, diagonal=0):  # noqa: A002
    d = input._data
    mask = np.triu(np.ones(d.shape[-2:], bool), diagonal)
    return _compose(_TriuBackward0, _tri_fn, [input, mask], [d, mask], mask=0)


def diagonal(input, offset=0, dim1=0, dim2=1):  # noqa: A002
    d = input._data
    a, b = _dim(dim1, d.ndim), _dim(dim2, d.ndim)
    n = _pymin(d.shape[a] - _pymax(-offset, 0), d.shape[b] - _pymax(offset, 0))
    n = _pymax(n, 0)
    r = np.arange(n)
    ia, ib = r + _pymax(-offset, 0), r + _pymax(offset, 0)
    x = movedim(input, (a, b), (-2, -1)) if (a, b) != (d.ndim - 2, d.ndim - 1) else input
    return getitem(x, (Ellipsis, ia, ib))


def diag(input, diagonal=0):  # noqa: A002
    """The ``diagonal``-th diagonal of a matrix, or a matrix with a vector on it."""
    d = input._data
    if d.ndim == 2:
        return globals()["diagonal"](input, diagonal)
    if d.ndim != 1:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " f"{d.ndim}D")
    n = d.shape[0] + _pyabs(diagonal)
    z = _make_plain(np.zeros((n, n), d.dtype))
    r = np.arange(d.shape[0])
    template, arrays = I.split_index((r + _pymax(-diagonal, 0), r + _pymax(diagonal, 0)))
    return _index_put(z, template, arrays, input)


def trace(input):  # noqa: A002
    return sum(diagonal(input))


# cat / stack ---------------------------------------------------------------------------
_CatBackward0 = node_class("CatBackward0", (), params={"dim": lambda n: n._params["axis"]})


def cat(tensors, dim=0):
    """Concatenate along ``dim`` (dtypes promoted as in PyTorch)."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    r = _promote_datas(tensors)
    datas = [t._data if t._data.dtype == r else t._data.astype(r) for t in tensors]
    nd = datas[0].ndim
    if nd == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    ax = _dim(dim, nd)
    try:
        out = S.concatenate_p.bind(*datas, axis=ax)
    except ValueError as e:
        raise RuntimeError(f"Sizes of tensors must match except in dimension {ax}: {e}") from None
    return _record(_CatBackward0, S.concatenate_p, {"axis": ax}, tensors, datas, out,
                   SAVE_NONE, casts=_list_casts(tensors, r))


def _list_casts(tensors, r):
    """``casts`` of an operation on a list of tensors promoted to the dtype ``r``: the
    original floating/complex dtype of each converted tensor (its gradient is converted
    back: the real part for a real tensor promoted to complex), or None if none was."""
    casts = tuple(t._data.dtype if t._data.dtype != r and t._data.dtype.kind in "fc" else None
                  for t in tensors)
    return casts if builtins.any(c is not None for c in casts) else None


concat = concatenate = cat


def _stack_fn(*xs, axis):
    shape = xs[0].shape
    new = shape[:axis] + (1,) + shape[axis:]
    return S.concatenate_p.bind(*[P.reshape(x, new) for x in xs], axis=axis)


_StackBackward0 = composite_class("StackBackward0", (),
                                  params={"dim": lambda n: n._params["axis"]})


def stack(tensors, dim=0):
    """Stack tensors of equal shape along a new dimension ``dim``."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    r = _promote_datas(tensors)
    datas = [t._data if t._data.dtype == r else t._data.astype(r) for t in tensors]
    shape0 = datas[0].shape
    for i, dd in enumerate(datas):
        if dd.shape != shape0:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(shape0)} at entry 0 and {list(dd.shape)} at entry {i}")
    ax = _dim(dim, len(shape0) + 1)
    return _compose(_StackBackward0, _stack_fn, tensors, datas, {"axis": ax}, mask=0,
                    casts=_list_casts(tensors, r))


def hstack(tensors):
    tensors = [atleast_1d(t) for t in tensors]
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1)


def vstack(tensors):
    return cat([atleast_2d(t) for t in tensors], 0)


def atleast_1d(t):
    return reshape(t, (1,)) if t._data.ndim == 0 else t


def atleast_2d(t):
    n = t._data.ndim
    return reshape(t, (1,) * (2 - n) + t._data.shape) if n < 2 else t


# matmul --------------------------------------------------------------------------------
_MmBackward0 = node_class("MmBackward0", ("self", "mat2"))
_MvBackward0 = node_class("MvBackward0", ("self", "vec"))
_DotBackward0 = node_class("DotBackward0", ("self", "tensor"))
_BmmBackward0 = node_class("BmmBackward0", ("self", "mat2"))


def _dot(cls, a, b, dn, ad=None, bd=None):
    ad = a._data if ad is None else ad
    bd = b._data if bd is None else bd
    params = {"dimension_numbers": dn}
    out = _kk(dot_general_p, ad, bd)(ad, bd, **params)
    return _record(cls, dot_general_p, params, [a, b], [ad, bd], out, _save_cross)


def matmul(input, other):  # noqa: A002
    """Matrix product with NumPy/PyTorch broadcasting rules."""
    if not isinstance(other, Tensor):
        other = _tensorize(other)
    if not isinstance(input, Tensor):
        input = _tensorize(input)
    ad, bd = input._data, other._data
    if ad.dtype != bd.dtype:
        if ad.ndim == 1 and bd.ndim == 1:
            raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                               f"{_tname(ad.dtype)} and {_tname(bd.dtype)}")
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_ctype(ad.dtype)} != {_ctype(bd.dtype)}")
    na, nb = ad.ndim, bd.ndim
    if na == 0 or nb == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{na}D and {nb}D")
    ka = ad.shape[-1]
    kb = bd.shape[0] if nb == 1 else bd.shape[-2]
    if ka != kb:
        if na == 1 and nb == 1:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{ka}] and src [{kb}] "
                               f"to have the same number of elements, but got {ka} and {kb} "
                               "elements respectively")
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                           f"({'x'.join(map(str, ad.shape[-2:] if na > 1 else (1, ka)))} and "
                           f"{'x'.join(map(str, bd.shape[-2:] if nb > 1 else (kb, 1)))})")
    if na == 1 and nb == 1:
        return _dot(_DotBackward0, input, other, (((0,), (0,)), ((), ())))
    if na == 2 and nb == 1:
        return _dot(_MvBackward0, input, other, (((1,), (0,)), ((), ())))
    if na == 1:
        return _dot(_MmBackward0, input, other, (((0,), (nb - 2,)), ((), ())))
    if nb <= 2:
        return _dot(_MmBackward0, input, other, (((na - 1,), (0,)), ((), ())))
    batch = np.broadcast_shapes(ad.shape[:-2], bd.shape[:-2])
    a = input if ad.shape[:-2] == batch else expand(input, batch + ad.shape[-2:])
    b = other if bd.shape[:-2] == batch else expand(other, batch + bd.shape[-2:])
    nbt = len(batch)
    bdims = tuple(range(nbt))
    return _dot(_BmmBackward0, a, b, (((nbt + 1,), (nbt,)), (bdims, bdims)))


def _ctype(npdt):
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long",
            "int32": "int", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>"}.get(str(npdt), str(npdt))


def mm(input, mat2):  # noqa: A002
    if input._data.ndim != 2 or mat2._data.ndim != 2:
        raise RuntimeError(f"mm: expected 2D tensors, got {input._data.ndim}D and "
                           f"{mat2._data.ndim}D")
    return matmul(input, mat2)


def mv(input, vec):  # noqa: A002
    if input._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError("vector + matrix @ vector expected, got "
                           f"{input._data.ndim}, {vec._data.ndim}")
    return matmul(input, vec)


def dot(input, other):  # noqa: A002
    if input._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and "
                           f"{other._data.ndim}D tensors")
    return matmul(input, other)


inner = dot


def bmm(input, mat2):  # noqa: A002
    if input._data.ndim != 3 or mat2._data.ndim != 3:
        raise RuntimeError("batch1 and batch2 must be 3D tensors")
    return matmul(input, mat2)


def outer(input, vec2):  # noqa: A002
    return mul(unsqueeze(input, 1), vec2)


ger = outer


# =============================================================================== conversions
_ToCopyBackward0 = node_class("ToCopyBackward0", ("self",))
_CloneBackward0 = composite_class("CloneBackward0", ("self",))


def _identity_fn(x):
    return x


def _convert(x, npdt):
    d = x._data
    if d.dtype == npdt:
        return x
    if d.dtype.kind == "c" and npdt.kind != "c":
        import warnings
        warnings.warn("Casting complex values to real discards the imaginary part",
                      UserWarning, stacklevel=3)
    params = {"new_dtype": npdt}
    out = _k(convert_element_type_p, d)(d, **params)
    if npdt.kind not in "fc":
        return _make_plain(out)
    return _record(_ToCopyBackward0, convert_element_type_p, params, [x], [d], out, SAVE_NONE)


def clone(input, *, memory_format=None):  # noqa: A002
    """A copy (with the same history: ``CloneBackward0``)."""
    d = input._data
    out = d if isinstance(d, _Tracer) else np.array(d, copy=True, order="C")
    return _compose(_CloneBackward0, _identity_fn, [input], [d], mask=0, out=out)


def contiguous(input, memory_format=None):  # noqa: A002
    d = input._data
    return input if isinstance(d, _Tracer) or d.flags.c_contiguous else clone(input)


def to(input, *args, **kwargs):  # noqa: A002
    """Convert dtype (and/or device: only 'cpu'); ``to(other)`` takes other's dtype."""
    dt = kwargs.pop("dtype", None)
    copy = kwargs.pop("copy", False)
    dev = kwargs.pop("device", None)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    for a in args:
        if isinstance(a, D.dtype):
            dt = a
        elif isinstance(a, Tensor):
            dt = a.dtype
        elif isinstance(a, (str,)) or type(a).__name__ == "device":
            dev = a
        elif isinstance(a, bool):
            pass
        else:
            dt = a
    check_device(dev)
    out = input if dt is None else _convert(input, D.to_np(dt))
    if dev is not None:
        out = _to_device(out, dev)
    if copy and out is input:
        out = clone(input)
    return out


def _to_host_bwd(node, ct, primals, ans, needs):
    """Gradient of a host -> GPU copy: the GPU gradient copied back to the host."""
    return [ct.get() if hasattr(ct, "get") and not isinstance(ct, np.ndarray) else ct]


def _to_gpu_bwd(node, ct, primals, ans, needs):
    """Gradient of a GPU -> host copy: the host gradient copied to the GPU."""
    return [cuda._lazy_init().asarray(ct)]


_ToCopyFromHost = node_class("ToCopyBackward0", ("self",), _to_host_bwd)
_ToCopyFromGpu = node_class("ToCopyBackward0", ("self",), _to_gpu_bwd)


def _to_device(x, dev):
    """``x`` on device ``dev``: a NumPy <-> CuPy copy, recorded as ``ToCopyBackward0``
    (the gradient goes back to the source device)."""
    d = dev if isinstance(dev, _dev_cls) else _dev_cls(str(dev))
    src = x.device
    if src.type == d.type and (d.index is None or src.index == d.index):
        return x
    data = x._data
    out = cuda.to_device_array(data, d)
    cls = _ToCopyFromHost if src.type == "cpu" else _ToCopyFromGpu
    return _record(cls, None, _EMPTY, [x], [data], out, SAVE_NONE)


# =============================================================================== in-place
_NOGRAD_VIEW_MSG = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block "
    "(if you don't want the inplace to be tracked) or both outside (if you want the inplace to "
    "be tracked).")


def _check_inplace(t):
    x = t._x
    if x is not None and x.inference and not _tls.inference:
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not "
                           "allowed.You can make a clone to get a normal tensor before doing "
                           "inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
                           "details.")
    if not _tls.grad:
        return
    if x is None or x.base is None:
        if t._rg and t._grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
        return
    if x.nograd_view:
        raise RuntimeError(_NOGRAD_VIEW_MSG)
    b = x.base
    if b._rg and b._grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")


def _inplace(self, fn, *args, **kwargs):
    """Run ``fn(self, *args)`` out of place, write the result into ``self`` and rebase
    ``self``'s history on the new node."""
    _check_inplace(self)
    r = fn(self, *args, **kwargs)
    _commit(self, r)
    return self


def _tname(npdt):
    return D.from_np(npdt)._tname[:-6]


def _commit(self, r):
    if G._write_guard is not None:  # allow_mutation_on_saved_tensors
        G._write_guard(self)
    d = self._data
    rd = r._data
    if rd.shape != d.shape:
        try:
            ok = np.broadcast_shapes(rd.shape, d.shape) == d.shape
        except ValueError:
            ok = False
        if not ok:
            raise RuntimeError(f"output with shape {list(d.shape)} doesn't match the broadcast "
                               f"shape {list(rd.shape)}")
    if rd.dtype != d.dtype and not np.can_cast(rd.dtype, d.dtype, "same_kind"):
        raise RuntimeError(f"result type {_tname(rd.dtype)} can't be cast to the desired output "
                           f"type {_tname(d.dtype)}")
    if not d.flags.writeable:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    node = r._grad_fn
    if node is not None:
        _snapshot_saved(node, self)
    np.copyto(d, rd, casting="unsafe")
    self._vc[0] += 1
    if node is not None:
        _rebase(self, node)
    if _fw_on:
        _fwad._commit_tangent(self, r)


def _snapshot_saved(node, self):
    """Saved references to ``self``'s old value in ``node`` become copies (made before
    ``self`` is overwritten), connected to ``self``'s old history."""
    inner = node._fn if type(node) is G.CopySlices else node
    saved = inner._saved
    if not isinstance(saved, list):
        return
    d = self._data
    for i, s in enumerate(saved):
        if type(s) is tuple and s[0] is self:
            data = s[1]
            if data is d or np.may_share_memory(data, d):
                data = data.copy()
            e = inner._next[i]
            ghost = _make(data)
            if e[0] is not None:
                if type(e[0]) is G.AccumulateGrad:
                    ghost = e[0].variable
                else:
                    ghost._grad_fn = e[0]
                    ghost._onr = e[1]
            saved[i] = (ghost, data, ghost._vc, ghost._vc[0], e[0])


def _move_retains(t, old, old_nr, new):
    x = t._x
    if x is None or not x.retains:
        return
    if old is not None and old._hk is not None and old._hk.rgh:
        if old._hk.rgh.get(old_nr) is t:
            del old._hk.rgh[old_nr]
    _set_retains(new, 0, t)


def _rebase(self, node, k=0):
    """Make ``node`` (an in-place operation on ``self``, its input ``k``) the history of
    ``self`` -- through a CopySlices node on its base when ``self`` is a view."""
    inner = node
    if inner._outsv is not None and type(inner._outsv) is tuple:
        vc = self._vc
        inner._outsv = (None, self._data, vc, vc[0], None)
    x = self._x
    if x is None or x.base is None or x.nograd_view:
        old, old_nr = self._grad_fn, self._onr
        self._grad_fn = node
        self._onr = 0
        _move_retains(self, old, old_nr, node)
        return
    base = x.base
    cs = G.new_copy_slices(node, x.chain, _edge(base), k)
    bold, bold_nr = base._grad_fn, base._onr
    base._grad_fn = cs
    base._onr = 0
    _move_retains(base, bold, bold_nr, cs)
    old, old_nr = self._grad_fn, self._onr
    self._grad_fn = G.new_view_node(x.chain, (cs, 0))
    self._onr = 0
    x.view_ver = self._vc[0]
    _move_retains(self, old, old_nr, self._grad_fn)


_ZeroBackward0 = composite_class("ZeroBackward0", ("self",))
_FillBackward2 = composite_class("FillBackward2", ("self",))


def _overwritten_fn(x):
    """The derivative of a value that does not depend on ``x`` (``zero_``, ``fill_`` with
    a number): zero (the value itself is computed by the caller)."""
    return P.stop_gradient(x)


def _fill_fn(x, value):
    """``x`` filled with the 0-d ``value`` (``fill_`` with a tensor value)."""
    if value.dtype != x.dtype:
        value = P.convert_element_type(value, x.dtype)
    return P.broadcast_to(value, x.shape)


_FillBackward3 = composite_class("FillBackward3", ("self", "value"))


def _zeros_of(self):
    d = self._data
    return _compose(_ZeroBackward0, _overwritten_fn, [self], [d], mask=0, out=np.zeros_like(d))


def _filled(self, value):
    d = self._data
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value._data.ndim} dimensions.")
        return _compose(_FillBackward3, _fill_fn, [self, value], [d, value._data], mask=0,
                        out=np.full_like(d, value._data))
    _check_fill_value(d, value)
    return _compose(_FillBackward2, _overwritten_fn, [self], [d], mask=0,
                    out=np.full_like(d, value))


def _copy_fn(x, src):
    """``x`` overwritten by ``src`` (broadcast, converted to ``x``'s dtype)."""
    if src.dtype != x.dtype:
        src = P.convert_element_type(src, x.dtype)
    return P.broadcast_to(src, x.shape)


_CopyBackwards = composite_class("CopyBackwards", ("self", "src"))
_CopyBackwards.name = lambda self: "torch::autograd::CopyBackwards"


def _copied(self, src):
    d = self._data
    if not isinstance(src, Tensor):
        src = _tensorize(src)
    sd = src._data
    try:
        out = np.array(np.broadcast_to(sd, d.shape), dtype=d.dtype, copy=True)
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({d.shape[-1] if d.ndim else 1}) must match "
                           f"the size of tensor b ({sd.shape[-1] if sd.ndim else 1}) at "
                           "non-singleton dimension") from None
    return _compose(_CopyBackwards, _copy_fn, [self, src], [d, sd], mask=0, out=out)


def copy_(self, src, non_blocking=False):
    return _inplace(self, _copied, src)


def zero_(self):
    return _inplace(self, _zeros_of)


def fill_(self, value):
    return _inplace(self, _filled, value)


def _filled_array(self, vals):
    d = self._data
    return _compose(_FillBackward2, _overwritten_fn, [self], [d], mask=0,
                    out=np.asarray(vals, d.dtype))


# =============================================================================== nn kernels
# The operations torch.nn.functional builds on that are primitives of their own: erf (for
# GELU), convolution and windowed pooling (ftrans.primitives.conv / .window).  Each is one
# node whose backward is the primitive's VJP rule.
from ..primitives.special import erf_p as _erf_p  # noqa: E402
from ..primitives.conv import conv_general_dilated_p as _conv_p  # noqa: E402
from ..primitives import window as _W  # noqa: E402
from ..kernels import nn_cpu as _NN  # noqa: E402

erf = _unary(_erf_p, "ErfBackward0", "x")
_composite = node_class   # the nn composites below move to ftrans.nn (issue 17)

_CONV_KEYS = ("window_strides", "padding", "lhs_dilation", "rhs_dilation",
              "feature_group_count")


def _convolution_bwd(node, ct, primals, ans, needs):
    """PyTorch's ConvolutionBackward0: the primitive's VJP rule for input and weight,
    ``sum(ct)`` over every axis but the channels for the bias."""
    p = node._params
    cols = p.get("_cols")
    x, w = primals[0], primals[1]
    if cols is not None and type(ct) is np.ndarray and ct.dtype == cols.dtype \
            and (not needs[0] or type(w) is np.ndarray) and _no_trace():
        # plain backward: one GEMM over the forward pass's im2col matrix (weight) and
        # one GEMM + col2im (input), kernels/nn_cpu.py
        geo = (p["window_strides"], p["padding"], p["rhs_dilation"])
        res = [_NN.conv2d_grad_input(ct, w, tuple(x.shape), *geo) if needs[0] else None,
               _NN.conv2d_grad_weight(ct, cols, tuple(w.shape)) if needs[1] else None]
    else:
        res = list(_conv_p.vjp(ct, None, primals[:2], needs[:2],
                               **{k: p[k] for k in _CONV_KEYS}))
    if len(needs) > 2 and needs[2]:
        res.append(P.reduce_sum(ct, (0,) + tuple(range(2, len(ct.shape)))))
    else:
        res.append(None)
    return res


_ConvolutionBackward0 = _composite("ConvolutionBackward0", ("input", "weight", "bias"),
                                   _convolution_bwd)


def convolution(input, weight, bias, stride, padding, dilation, groups,  # noqa: A002
                lhs_dilation=None):
    """Cross-correlation of ``input`` ``(N, C, *spatial)`` with ``weight``
    ``(O, C // groups, *window)`` plus ``bias`` ``(O,)`` (or None): one node whose
    input/weight gradients are the ``conv_general_dilated`` primitive's VJP rule.

    ``stride``/``dilation``/``lhs_dilation``: ints per spatial axis; ``padding``: ``(lo,
    hi)`` pairs.  Raises RuntimeError (as PyTorch) for mismatched dtypes or channels."""
    xd, wd = input._data, weight._data
    bd = None if bias is None else bias._data
    if xd.dtype != wd.dtype or (bd is not None and bd.dtype != xd.dtype):
        other = wd.dtype if xd.dtype != wd.dtype else bd.dtype
        what = "weight" if xd.dtype != wd.dtype else "bias"
        raise RuntimeError(f"Input type ({_tname(xd.dtype)}) and {what} type "
                           f"({_tname(other)}) should be the same")
    if xd.ndim != wd.ndim:
        raise RuntimeError(f"Expected {wd.ndim - 1}D (unbatched) or {wd.ndim}D (batched) "
                           f"input to conv{wd.ndim - 2}d, but got input of size: "
                           f"{list(xd.shape)}")
    if xd.shape[1] != wd.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(wd.shape)}, expected "
                           f"input{list(xd.shape)} to have {wd.shape[1] * groups} channels, "
                           f"but got {xd.shape[1]} channels instead")
    nsp = xd.ndim - 2
    params = {"window_strides": tuple(stride), "padding": tuple(padding),
              "lhs_dilation": tuple(lhs_dilation) if lhs_dilation else (1,) * nsp,
              "rhs_dilation": tuple(dilation), "feature_group_count": int(groups)}
    sp = _W.window_out_shape(xd.shape[2:], wd.shape[2:], params["window_strides"],
                             params["padding"], params["lhs_dilation"], dilation)
    if 0 in sp and xd.size:
        padded = " x ".join(str(s + lo + hi) for s, (lo, hi) in zip(xd.shape[2:], padding))
        raise RuntimeError(f"Calculated padded input size per channel: ({padded}). Kernel "
                           f"size: ({' x '.join(map(str, wd.shape[2:]))}). Kernel size can't "
                           "be greater than actual input size")
    fast = None
    if _NN.conv2d_eligible(xd, wd, params["lhs_dilation"], groups) and _tls.grad \
            and not _fw_on:
        fast = _NN.conv2d_forward(xd, wd, params["window_strides"], params["padding"],
                                  params["rhs_dilation"])
    if fast is not None:
        out, cols = fast
        if weight.requires_grad:
            params["_cols"] = cols    # the weight gradient's GEMM operand (a residual)
    else:
        out = _conv_p.impl(xd, wd, **params)
    if bd is not None:
        out += bd.reshape((-1,) + (1,) * nsp)
    return _record(_ConvolutionBackward0, None, params, [input, weight, bias], [xd, wd, bd],
                   out, _save_cross)


_MAXPOOL_NODES = {k: node_class(f"MaxPool{k}DWithIndicesBackward0", ("self",))
                  for k in (1, 2, 3)}
_AVGPOOL_NODES = {k: node_class(f"AvgPool{k}DBackward0", ("self",)) for k in (1, 2, 3)}


def _window_params(nd, window, strides, padding, dilation):
    lead = (1,) * (nd - len(window))
    return {"window_dimensions": lead + tuple(window), "window_strides": lead + tuple(strides),
            "padding": ((0, 0),) * len(lead) + tuple(padding),
            "window_dilation": lead + tuple(dilation)}


def window_max(input, window, strides, padding, dilation):  # noqa: A002
    """Maximum over windows of the trailing axes of ``input`` (padding with -inf): the
    ``reduce_window_max`` primitive; the gradient goes to each window's first maximum."""
    d = input._data
    if d.dtype.kind == "c":
        _refuse_complex(input, kernel="max_pool2d")
    params = _window_params(d.ndim, window, strides, padding, dilation)
    r = None
    if _tls.grad and input.requires_grad and not _fw_on:
        r = _W.window_cpu.window_max(d, params["window_dimensions"], params["window_strides"],
                                     params["padding"], params["window_dilation"], True)
    if r is None:
        return _record(_MAXPOOL_NODES[len(window)], _W.reduce_window_max_p, params, [input],
                       [d], _W.reduce_window_max_p.impl(d, **params), SAVE_X)
    # one kernel pass gives the maxima and their indices; the plain backward scatters the
    # cotangent at the saved indices instead of searching the windows again
    out, idx = r
    return _record(_MAXPOOL_FAST_NODES[len(window)], _W.reduce_window_max_p,
                   dict(params, _idx=idx), [input], [d], out, SAVE_X)


def _maxpool_bwd(node, ct, primals, ans, needs):
    p = node._params
    x = primals[0]
    if type(ct) is np.ndarray and _no_trace():
        g = _W.window_cpu.scatter_flat(p["_idx"], ct, tuple(x.shape), x.dtype)
        if g is not None:
            return [g]
    return _W.reduce_window_max_p.vjp(ct, ans, primals, needs,
                                      **{k: v for k, v in p.items() if k != "_idx"})


_MAXPOOL_FAST_NODES = {k: node_class(f"MaxPool{k}DWithIndicesBackward0", ("self",),
                                     _maxpool_bwd) for k in (1, 2, 3)}


def window_argmax(input, window, strides, padding, dilation):  # noqa: A002
    """Flat index (within each trailing ``len(window)``-d plane) of each window's first
    maximum: ``max_pool``'s ``return_indices``."""
    d = input._data
    k = len(window)
    lead = d.shape[:d.ndim - k]
    plane = d.reshape((-1,) + d.shape[d.ndim - k:])
    params = _window_params(plane.ndim, window, strides, padding, dilation)
    idx = _W.reduce_window_argmax_p.impl(plane, **params)
    per = int(np.prod(plane.shape[1:], dtype=np.int64))
    idx = idx - (np.arange(plane.shape[0], dtype=np.int64) * per).reshape(
        (-1,) + (1,) * k)
    return _make_plain(idx.reshape(lead + idx.shape[1:]))


def window_sum(input, window, strides, padding, dilation=None):  # noqa: A002
    """Sum over windows of the trailing axes of ``input`` (zero padding): the
    ``reduce_window_sum`` primitive."""
    d = _as_float(input._data)
    dil = tuple(dilation) if dilation else (1,) * len(window)
    params = _window_params(d.ndim, window, strides, padding, dil)
    params["base_dilation"] = (1,) * d.ndim
    out = _W.reduce_window_sum_p.impl(d, **params)
    return _record(_AVGPOOL_NODES[len(window)], _W.reduce_window_sum_p, params, [input], [d],
                   out, SAVE_NONE)


def _bn_axes(nd):
    return (0,) + tuple(range(2, nd))


def _bn_view(v, nd):
    return P.reshape(v, (1, v.shape[0]) + (1,) * (nd - 2))


def _native_batch_norm_bwd(node, ct, primals, ans, needs):
    """PyTorch's batch-norm backward.  Training (batch statistics):
    ``dx = invstd (g - mean(g) - xhat mean(g xhat))`` with ``g = ct * weight``; eval
    (running statistics): ``dx = g invstd``; ``dweight = sum(ct xhat)``, ``dbias =
    sum(ct)``.  Plain backward reuses the forward's statistics; under create_graph they
    are recomputed from x with primitives, so second derivatives see their dependence
    on x."""
    x, w = primals[0], primals[1]
    p = node._params
    if type(ct) is np.ndarray and type(x) is np.ndarray and isinstance(p["mean"], np.ndarray) \
            and (w is None or (type(w) is np.ndarray and w.dtype == x.dtype)) and _no_trace():
        r = _NN.batch_norm_backward(x, ct, p["mean"], p["invstd"], w, p["training"])
        if r is not None:     # one numba kernel, two passes per channel (plain backward)
            return [r[0] if needs[0] else None, r[1] if needs[1] else None,
                    r[2] if needs[2] else None]
    nd = len(x.shape)
    axes = _bn_axes(nd)
    if p["training"] and not _no_trace():
        m = P.div(P.reduce_sum(x, axes), float(p["count"]))
        xc = P.sub(x, _bn_view(m, nd))
        var = P.div(P.reduce_sum(P.mul(xc, xc), axes), float(p["count"]))
        invstd = P.div(1.0, P.sqrt(P.add(var, p["eps"])))
    else:
        m, invstd = p["mean"], p["invstd"]
        xc = P.sub(x, _bn_view(m, nd) if not isinstance(m, np.ndarray) else
                   m.reshape((1, -1) + (1,) * (nd - 2)))
    inv = _bn_view(invstd, nd) if not isinstance(invstd, np.ndarray) else \
        invstd.reshape((1, -1) + (1,) * (nd - 2))
    xhat = P.mul(xc, inv)
    res = [None, None, None]
    if needs[1]:
        res[1] = P.reduce_sum(P.mul(ct, xhat), axes)
    if needs[2]:
        res[2] = P.reduce_sum(ct, axes)
    if needs[0]:
        g = ct if w is None else P.mul(ct, _bn_view(w, nd))
        if p["training"]:
            n = float(p["count"])
            mg = P.div(P.reduce_sum(g, axes), n)
            mgx = P.div(P.reduce_sum(P.mul(g, xhat), axes), n)
            g = P.sub(P.sub(g, _bn_view(mg, nd)), P.mul(xhat, _bn_view(mgx, nd)))
        res[0] = P.mul(g, inv)
    return res


_NativeBatchNormBackward0 = _composite("NativeBatchNormBackward0",
                                       ("input", "weight", "bias"), _native_batch_norm_bwd)


def native_batch_norm(input, weight, bias, running_mean, running_var, training, eps):  # noqa: A002
    """Batch normalization over every axis but 1 as one node (``torch.native_batch_norm``).

    Returns ``(output, batch_mean, batch_var)`` -- the statistics as NumPy arrays
    (biased variance; None in eval mode) for the caller's running-average update.
    ``training`` normalizes with the batch statistics, otherwise with ``running_mean``/
    ``running_var`` (tensors)."""
    d = _as_float(input._data)
    nd = d.ndim
    axes = _bn_axes(nd)
    shape = (1, d.shape[1]) + (1,) * (nd - 2)
    wd = None if weight is None else weight._data
    bd = None if bias is None else bias._data
    rm = None if running_mean is None else running_mean._data
    rv = None if running_var is None else running_var._data
    if _any_traced(d, wd, bd, rm, rv):   # under an ftrans transform: primitives
        return _batch_norm_traced(d, wd, bd, rm, rv, training, eps, axes, shape)
    fast = None
    if training and not _fw_on:
        fast = _NN.batch_norm_train(d, wd, bd, eps)
    if fast is not None:     # one numba kernel (kernels/nn_cpu.py)
        out, mean, var, invstd = fast
        count = d.size // d.shape[1]
    elif training:
        count = d.size // d.shape[1] if d.shape[1] else 0
        mean = d.mean(axis=axes)
        xc = d - mean.reshape(shape)
        var = np.mean(xc * xc, axis=axes)
    else:
        count = 0
        mean = running_mean._data.astype(d.dtype, copy=False)
        var = running_var._data.astype(d.dtype, copy=False)
        xc = d - mean.reshape(shape)
    if fast is None:
        invstd = (1.0 / np.sqrt(var + eps)).astype(d.dtype, copy=False)
        scale = invstd if weight is None else invstd * weight._data
        out = xc * scale.reshape(shape)
        if bias is not None:
            out += bias._data.reshape(shape)
        out = np.asarray(out, d.dtype)
    params = {"training": bool(training), "eps": float(eps), "count": count, "mean": mean,
              "invstd": invstd}
    t = _record(_NativeBatchNormBackward0, None, params, [input, weight, bias], [d, wd, bd],
                out, (3, False))
    return t, (mean if training else None), (var if training else None)


def _cross_entropy_bwd(node, ct, primals, ans, needs):
    """``d loss / d x = ct * rowscale * (softmax(x) - onehot(target))`` (rowscale:
    ``valid / count`` for 'mean', ``valid`` for 'sum'; ``valid`` = target !=
    ignore_index).  Plain backward: NumPy from the forward's logsumexp; under
    create_graph / forward AD: primitives (softmax shifted by the saved row maxima, which
    it does not depend on), so higher derivatives see softmax's dependence on x."""
    p = node._params
    x = primals[0]
    rows, safe, scale = p["rows"], p["safe"], p["rowscale"]
    if type(ct) is np.ndarray and type(x) is np.ndarray and _no_trace():
        g = np.exp(x - p["lse"][:, None])
        g[rows, safe] -= 1
        g *= (scale * ct)[:, None]
        return [g]
    e = P.exp(P.sub(x, p["shift"][:, None]))
    sm = P.div(e, P.reshape(P.reduce_sum(e, (1,)), (x.shape[0], 1)))
    onehot = np.zeros(x.shape, x.dtype)
    onehot[rows, safe] = 1
    return [P.mul(P.sub(sm, onehot), P.mul(ct, scale[:, None]))]


_CrossEntropyBackward = _composite("NllLossBackward0", ("self",), _cross_entropy_bwd)


def cross_entropy_indices(input, target, ignore_index, reduction):  # noqa: A002
    """``cross_entropy`` of logits ``input (N, C)`` (float32/float64) and class indices
    ``target (N,)`` with ``reduction`` 'mean' or 'sum', no class weights or label
    smoothing, as one node (log-softmax and NLL fused: one pass of NumPy per step
    instead of about ten nodes).  Same values as ``nll_loss(log_softmax(input))``;
    IndexError (PyTorch's message) for a target out of range.  None for operands that
    are not NumPy arrays (the caller's general path)."""
    d = input._data
    if type(d) is not np.ndarray or type(target._data) is not np.ndarray:
        return None
    t = target._data
    N, C = d.shape
    valid = t != ignore_index
    safe = np.where(valid, t, 0)
    tv = t[valid]
    if tv.size and (tv.min() < 0 or tv.max() >= C):
        raise IndexError(f"Target {int(tv.max() if tv.max() >= C else tv.min())} is out of "
                         f"bounds.")
    rows = np.arange(N)
    if N:
        m = d.max(axis=1)
        lse = (m + np.log(np.sum(np.exp(d - m[:, None]), axis=1))).astype(d.dtype, copy=False)
    else:
        m = lse = np.zeros(0, d.dtype)
    w = valid.astype(d.dtype)
    loss = -((d[rows, safe] - lse) * w).sum()
    if reduction == "mean":
        count = w.sum()
        with np.errstate(invalid="ignore", divide="ignore"):
            loss = loss / count
            scale = w / count
    else:
        scale = w
    out = np.asarray(loss, d.dtype)
    params = {"rows": rows, "safe": safe, "rowscale": scale.astype(d.dtype, copy=False),
              "lse": lse, "shift": m}
    return _record(_CrossEntropyBackward, None, params, [input], [d], out, SAVE_X)


def _batch_norm_traced(d, wd, bd, rm, rv, training, eps, axes, shape):
    """:func:`native_batch_norm` on traced values (no node: the transform
    differentiates)."""
    if training:
        count = d.size // d.shape[1] if d.shape[1] else 0
        mean = P.div(P.reduce_sum(d, axes), d.dtype.type(count))
        xc = P.sub(d, P.reshape(mean, shape))
        var = P.div(P.reduce_sum(P.mul(xc, xc), axes), d.dtype.type(count))
    else:
        mean, var = rm, rv
        xc = P.sub(d, P.reshape(mean, shape))
    invstd = P.div(d.dtype.type(1), P.sqrt(P.add(var, d.dtype.type(eps))))
    scale = invstd if wd is None else P.mul(invstd, wd)
    out = P.mul(xc, P.reshape(scale, shape))
    if bd is not None:
        out = P.add(out, P.reshape(bd, shape))
    return _make_plain(out), (mean if training else None), (var if training else None)


def _linear_fn(x, w, b):
    out = P.dot_general(x, w, (((x.ndim - 1,), (1,)), ((), ())))
    return out if b is None else P.add(out, b)


_AddmmBackward0 = composite_class("AddmmBackward0", ("self", "mat1", "mat2"))
_LinearMmBackward0 = composite_class("MmBackward0", ("self", "mat2"))


def linear(input, weight, bias=None):  # noqa: A002
    """``input @ weight.T + bias`` as one node (``torch.nn.functional.linear``):
    ``input (*, in)``, ``weight (out, in)``, ``bias (out,)``.  RuntimeError (PyTorch's
    message) for mismatched shapes or dtypes."""
    xd, wd = input._data, weight._data
    if wd.ndim != 2 or xd.ndim == 0 or xd.shape[-1] != wd.shape[1]:
        a = "x".join(map(str, xd.shape[-2:] if xd.ndim > 1 else (1,) + xd.shape))
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a} and "
                           f"{wd.shape[1] if wd.ndim == 2 else '?'}x"
                           f"{wd.shape[0] if wd.ndim else '?'})")
    bd = None if bias is None else bias._data
    if xd.dtype != wd.dtype or (bd is not None and bd.dtype != xd.dtype):
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_ctype(xd.dtype)} != {_ctype(wd.dtype)}")
    cls = _AddmmBackward0 if bias is not None else _LinearMmBackward0
    return _compose(cls, _linear_fn, [input, weight, bias], [xd, wd, bd], mask=_save_cross)


# ====================================================== convolution / pooling under traces
# ``compat.func`` runs compat operations on Tracers of ftrans transforms (no graph is
# recorded then: the transform differentiates/batches).  The eager functions above call
# the kernels directly; on traced values these versions bind the same primitives.
def _convolution_traced(input, weight, bias, stride, padding, dilation, groups,  # noqa: A002
                        lhs_dilation=None):
    xd, wd = input._data, weight._data
    if xd.ndim != wd.ndim or xd.dtype != wd.dtype:
        return _convolution_eager(input, weight, bias, stride, padding, dilation, groups,
                                  lhs_dilation)   # raises PyTorch's error before computing
    nsp = xd.ndim - 2
    out = _conv_p.bind(xd, wd, window_strides=tuple(stride), padding=tuple(padding),
                       lhs_dilation=tuple(lhs_dilation) if lhs_dilation else (1,) * nsp,
                       rhs_dilation=tuple(dilation), feature_group_count=int(groups))
    if bias is not None:
        out = P.add(out, P.reshape(bias._data, (-1,) + (1,) * nsp))
    return _make_plain(out)


def _window_max_traced(input, window, strides, padding, dilation):  # noqa: A002
    d = input._data
    params = _window_params(d.ndim, window, strides, padding, dilation)
    return _make_plain(_W.reduce_window_max_p.bind(d, **params))


def _window_sum_traced(input, window, strides, padding, dilation=None):  # noqa: A002
    d = _as_float(input._data)
    dil = tuple(dilation) if dilation else (1,) * len(window)
    params = _window_params(d.ndim, window, strides, padding, dil)
    params["base_dilation"] = (1,) * d.ndim
    return _make_plain(_W.reduce_window_sum_p.bind(d, **params))


def _dispatch_traced(eager, traced):
    def op(input, weight, *args, **kwargs):  # noqa: A002
        for a in (input, weight) + args:   # (``any`` is the tensor op in this module)
            if isinstance(a, Tensor) and isinstance(a._data, _Tracer):
                return traced(input, weight, *args, **kwargs)
        return eager(input, weight, *args, **kwargs)
    op.__name__, op.__doc__, op.__wrapped__ = eager.__name__, eager.__doc__, eager
    return op


_convolution_eager = convolution
convolution = _dispatch_traced(convolution, _convolution_traced)
window_max = _dispatch_traced(window_max, _window_max_traced)
window_sum = _dispatch_traced(window_sum, _window_sum_traced)

G._convert = _convert   # see autograd.graph._convert
