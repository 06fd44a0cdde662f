"""compat operations: fused products and arithmetic helpers (addmm, addmv, addr, baddbmm,
addbmm, addcmul, addcdiv, vdot, lerp, kron, tensordot, cdist, dist, renorm).

Each function adapts one ``ftrans.numpy`` function (or a composition of them) to
PyTorch's signature; its node's backward is ``ftrans.vjp`` of that function
(:func:`ftrans.compat._opbase._compose`): no derivative is written here.  The
construction and shape operations are in :mod:`._misc_ops2` (installed from here).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import _ops as O
from ._tensor import Tensor, _dim, _make_plain
from .autograd._composite import composite_class
from .. import numpy as _fnp
from ._opbase import _compose, _promote_datas, _scalar, _tname
from ._out import with_out
from ._inplace import _inplace as _inplace_op
from ._outsig import in_place_doc, set_out_signature
from .types import Number, TensorOrNumber
from . import _misc_ops2 as _M2
from ._misc_dist import _t, cdist, dist, renorm  # noqa: F401 (in __all__, METHODS)
from . import _misc_methods as _MM

__all__ = ["addmm", "addmv", "addr", "baddbmm", "addbmm", "addcmul", "addcdiv", "vdot", "lerp",
           "kron", "tensordot", "cdist", "dist", "renorm"] + _M2.__all__ + _MM.__all__
globals().update({_n: getattr(_M2, _n) for _n in _M2.__all__})
globals().update({_n: getattr(_MM, _n) for _n in _MM.__all__})


# =============================================================================== helpers
def _same_dtype(fname: str, tensors: Any) -> None:
    """PyTorch's fused products need operands of one dtype (no promotion)."""
    d0 = tensors[0]._data.dtype
    for t in tensors[1:]:
        if t._data.dtype != d0:
            raise RuntimeError(f"{fname}: expected all operands to have the same dtype, but got "
                               f"{_tname(d0)} and {_tname(t._data.dtype)}")


def _check_coef(d: Any, beta: Any, alpha: Any) -> Any:
    """``beta``/``alpha`` as PyTorch uses them: numbers, truncated to integers for integer
    tensors; complex ones only for complex tensors."""
    out = []
    for name, c in (("beta", beta), ("alpha", alpha)):
        if _scalar(c) is None:
            raise TypeError(f"{name} must be a number, got {type(c).__name__}")
        if d.kind != "c" and isinstance(c, complex):
            raise RuntimeError(f"For non-complex input tensors, argument {name} must not be a "
                               "complex number.")
        out.append(int(c) if d.kind in "iu" and not isinstance(c, bool) else c)
    return out


def _scale(p: Any, c: Any) -> Any:
    if isinstance(c, bool):
        return p if c else _fnp.zeros_like(p)
    return p if c == 1 else p * c


def _combine(x: Any, p: Any, beta: Any, alpha: Any) -> Any:
    """``beta * x + alpha * p`` with ``x`` broadcast to ``p``'s shape; ``beta == 0`` ignores
    ``x`` (NaN and inf included), as PyTorch does."""
    p = _scale(p, alpha)
    if beta == 0:
        return p
    if x.dtype.kind == "b":
        return _fnp.logical_or(x, p)
    return _scale(x, beta) + p


def _expandable(fname: str, x: Any, shape: Any) -> None:
    try:
        ok = np.broadcast_shapes(x.shape, shape) == tuple(shape)
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(f"{fname}: the size of input {list(x.shape)} must be broadcastable "
                           f"to the result's size {list(shape)}")


def _addprod(cls: Any, fname: str, fn: Any, input: Any, ops: Any, beta: Any, alpha: Any,
             shape: Any) -> Any:
    x = _t(input)
    ops = [_t(o) for o in ops]
    _same_dtype(fname, [x] + ops)
    beta, alpha = _check_coef(x._data.dtype, beta, alpha)
    _expandable(fname, x._data, shape)
    mask = 0b110 if beta == 0 else -1
    return _compose(cls, fn, [x] + ops, [x._data] + [o._data for o in ops],
                    {"beta": beta, "alpha": alpha}, mask=mask)


def _need(fname: str, t: Any, nd: Any, what: str) -> None:
    if t._data.ndim != nd:
        raise RuntimeError(f"{fname}: {what} must be a {nd}-D tensor, got {t._data.ndim}-D")


# =============================================================================== fused products
def _addmm_fn(x: Any, a: Any, b: Any, beta: Any, alpha: Any) -> Any:
    return _combine(x, _fnp.matmul(a, b), beta, alpha)


def _addr_fn(x: Any, a: Any, b: Any, beta: Any, alpha: Any) -> Any:
    if a.dtype.kind == "b":
        return _combine(x, _fnp.logical_and(a[:, None], b[None, :]), beta, alpha)
    return _combine(x, _fnp.outer(a, b), beta, alpha)


def _addbmm_fn(x: Any, a: Any, b: Any, beta: Any, alpha: Any) -> Any:
    return _combine(x, _fnp.sum(_fnp.matmul(a, b), axis=0), beta, alpha)


_AddmmBackward0 = composite_class("AddmmBackward0", ("self", "mat1", "mat2"))
_AddmvBackward0 = composite_class("AddmvBackward0", ("self", "mat", "vec"))
_AddrBackward0 = composite_class("AddrBackward0", ("self", "vec1", "vec2"))
_BaddbmmBackward0 = composite_class("BaddbmmBackward0", ("self", "batch1", "batch2"))
_AddbmmBackward0 = composite_class("AddbmmBackward0", ("self", "batch1", "batch2"))


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Number = 1,  # noqa: A002
          alpha: Number = 1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` (``torch.addmm``).

    Parameters
    ----------
    input : Tensor
        Broadcast to ``(n, p)``.
    mat1 : Tensor
        ``(n, m)``.
    mat2 : Tensor
        ``(m, p)``, same dtype.
    beta : Number, optional
        The factor of ``input`` (0: ``input`` is ignored, NaN included).
    alpha : Number, optional
        The factor of the product.

    Returns
    -------
    Tensor
        ``(n, p)``.

    Raises
    ------
    RuntimeError
        If the shapes or dtypes do not match.
    """
    m1, m2 = _t(mat1, "mat1"), _t(mat2, "mat2")
    _need("addmm", m1, 2, "mat1")
    _need("addmm", m2, 2, "mat2")
    if m1._data.shape[1] != m2._data.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({m1._data.shape[0]}x"
                           f"{m1._data.shape[1]} and {m2._data.shape[0]}x{m2._data.shape[1]})")
    shape = (m1._data.shape[0], m2._data.shape[1])
    return _addprod(_AddmmBackward0, "addmm", _addmm_fn, input, (m1, m2), beta, alpha, shape)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Number = 1,  # noqa: A002
          alpha: Number = 1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)`` (``torch.addmv``).

    Parameters
    ----------
    input : Tensor
        Broadcast to ``(n,)``.
    mat : Tensor
        ``(n, m)``.
    vec : Tensor
        ``(m,)``, same dtype.
    beta : Number, optional
        The factor of ``input`` (0: ``input`` is ignored, NaN included).
    alpha : Number, optional
        The factor of the product.

    Returns
    -------
    Tensor
        ``(n,)``.

    Raises
    ------
    RuntimeError
        If the shapes or dtypes do not match.
    """
    m, v = _t(mat, "mat"), _t(vec, "vec")
    if m._data.ndim != 2 or v._data.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {_t(input)._data.ndim}, "
                           f"{m._data.ndim}, {v._data.ndim}")
    if m._data.shape[1] != v._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({_t(input)._data.shape[0] if _t(input)._data.ndim else 1}), "
                           f"mat ({m._data.shape[0]}x{m._data.shape[1]}), vec ({v._data.shape[0]})")
    return _addprod(_AddmvBackward0, "addmv", _addmm_fn, input, (m, v), beta, alpha,
                    (m._data.shape[0],))


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Number = 1,  # noqa: A002
         alpha: Number = 1) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)`` (``torch.addr``).

    For bool tensors ``and``/``or`` take the place of the products and the sum.

    Parameters
    ----------
    input : Tensor
        Broadcast to ``(n, m)``.
    vec1 : Tensor
        ``(n,)``.
    vec2 : Tensor
        ``(m,)``.
    beta : Number, optional
        The factor of ``input`` (0: ``input`` is ignored, NaN included).
    alpha : Number, optional
        The factor of the product.

    Returns
    -------
    Tensor
        ``(n, m)``.

    Raises
    ------
    RuntimeError
        If the shapes do not match or ``beta``/``alpha`` do not suit the dtype.
    """
    a, b = _t(vec1, "vec1"), _t(vec2, "vec2")
    if a._data.ndim != 1 or b._data.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1 and vec2, but got "
                           f"{a._data.ndim}-D and {b._data.ndim}-D")
    x = _t(input)
    if x._data.dtype.kind == "b":
        beta, alpha = bool(beta), bool(alpha)
    elif isinstance(beta, bool) or isinstance(alpha, bool):
        raise RuntimeError("Boolean beta only supported for Boolean results.")
    return _addprod(_AddrBackward0, "addr", _addr_fn, x, (a, b), beta, alpha,
                    (a._data.shape[0], b._data.shape[0]))


def _bmm_shapes(fname: str, b1: Any, b2: Any) -> Any:
    _need(fname, b1, 3, "batch1")
    _need(fname, b2, 3, "batch2")
    s1, s2 = b1._data.shape, b2._data.shape
    if s1[0] != s2[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {s1[0]} "
                           f"and {s2[0]}")
    if s1[2] != s2[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({s1[1]}x{s1[2]} and "
                           f"{s2[1]}x{s2[2]})")
    return s1, s2


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Number = 1,  # noqa: A002
            alpha: Number = 1) -> Tensor:
    """``beta * input + alpha * bmm(batch1, batch2)`` (``torch.baddbmm``).

    Parameters
    ----------
    input : Tensor
        Broadcast to ``(b, n, p)``.
    batch1 : Tensor
        ``(b, n, m)``.
    batch2 : Tensor
        ``(b, m, p)``, same dtype.
    beta : Number, optional
        The factor of ``input`` (0: ``input`` is ignored, NaN included).
    alpha : Number, optional
        The factor of the product.

    Returns
    -------
    Tensor
        ``(b, n, p)``.

    Raises
    ------
    RuntimeError
        If the shapes or dtypes do not match.
    """
    b1, b2 = _t(batch1, "batch1"), _t(batch2, "batch2")
    s1, s2 = _bmm_shapes("baddbmm", b1, b2)
    return _addprod(_BaddbmmBackward0, "baddbmm", _addmm_fn, input, (b1, b2), beta, alpha,
                    (s1[0], s1[1], s2[2]))


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Number = 1,  # noqa: A002
           alpha: Number = 1) -> Tensor:
    """``beta * input + alpha * sum_i(batch1[i] @ batch2[i])`` (``torch.addbmm``).

    Parameters
    ----------
    input : Tensor
        Broadcast to ``(n, p)``.
    batch1 : Tensor
        ``(b, n, m)``.
    batch2 : Tensor
        ``(b, m, p)``, same dtype.
    beta : Number, optional
        The factor of ``input`` (0: ``input`` is ignored, NaN included).
    alpha : Number, optional
        The factor of the product.

    Returns
    -------
    Tensor
        ``(n, p)``.

    Raises
    ------
    RuntimeError
        If the shapes or dtypes do not match.
    """
    b1, b2 = _t(batch1, "batch1"), _t(batch2, "batch2")
    s1, s2 = _bmm_shapes("addbmm", b1, b2)
    return _addprod(_AddbmmBackward0, "addbmm", _addbmm_fn, input, (b1, b2), beta, alpha,
                    (s1[1], s2[2]))


# ------------------------------------------------------------------------- addcmul / addcdiv
def _addcmul_fn(x: Any, a: Any, b: Any, value: Any) -> Any:
    return x + _scale(a * b, value)


def _addcdiv_fn(x: Any, a: Any, b: Any, value: Any) -> Any:
    return x + _scale(a / b, value)


_AddcmulBackward0 = composite_class("AddcmulBackward0", ("self", "tensor1", "tensor2"))
_AddcdivBackward0 = composite_class("AddcdivBackward0", ("self", "tensor1", "tensor2"))


def _addc(cls: Any, fn: Any, fname: str, input: Any, tensor1: Any, tensor2: Any, value: Any) -> Any:
    ts = [_t(input), _t(tensor1, "tensor1"), _t(tensor2, "tensor2")]
    if _scalar(value) is None:
        raise TypeError(f"{fname}(): argument 'value' must be Number, not "
                        f"{type(value).__name__}")
    r = _promote_datas(ts)
    try:
        np.broadcast_shapes(*(t._data.shape for t in ts))
    except ValueError:
        raise O._broadcast_error(ts[1]._data, ts[2]._data) from None
    if r.kind in "iu" and not isinstance(value, bool):
        value = int(value.real if isinstance(value, complex) else value)   # (truncated)
    datas = [t._data if t._data.dtype == r else t._data.astype(r) for t in ts]
    casts = tuple(t._data.dtype if t._data.dtype != r and t._data.dtype.kind in "fc" else None
                  for t in ts)
    return _compose(cls, fn, ts, datas, {"value": value}, mask=0b110,
                    casts=casts if any(c is not None for c in casts) else None)


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *,  # noqa: A002
            value: Number = 1) -> Tensor:
    """``input + value * tensor1 * tensor2`` (``torch.addcmul``).

    Parameters
    ----------
    input : Tensor
        The addend.
    tensor1, tensor2 : Tensor
        The factors (all three broadcast and promoted).
    value : Number, optional
        The product's factor.

    Returns
    -------
    Tensor
        The broadcast shape, the promoted dtype.
    """
    return _addc(_AddcmulBackward0, _addcmul_fn, "addcmul", input, tensor1, tensor2, value)


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *,  # noqa: A002
            value: Number = 1) -> Tensor:
    """``input + value * tensor1 / tensor2`` (``torch.addcdiv``).

    Parameters
    ----------
    input : Tensor
        The addend.
    tensor1 : Tensor
        The numerator (not an integer tensor, as in PyTorch).
    tensor2 : Tensor
        The denominator (not an integer tensor).
    value : Number, optional
        The quotient's factor.

    Returns
    -------
    Tensor
        The broadcast shape, the promoted dtype.

    Raises
    ------
    RuntimeError
        If ``tensor1`` and ``tensor2`` are integer tensors.
    """
    t1, t2 = _t(tensor1, "tensor1"), _t(tensor2, "tensor2")
    if t1._data.dtype.kind in "iub" and t2._data.dtype.kind in "iub":
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a "
                           "future release addcdiv will perform a true division of tensor1 and "
                           "tensor2. The historic addcdiv behavior can be implemented as "
                           "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) "
                           "for integer inputs and as (input + value * tensor1 / tensor2) for "
                           "float inputs. The future addcdiv behavior is just the latter "
                           "implementation: (input + value * tensor1 / tensor2), for all "
                           "dtypes.")
    return _addc(_AddcdivBackward0, _addcdiv_fn, "addcdiv", input, t1, t2, value)


# =============================================================================== vdot / lerp
_VdotBackward0 = composite_class("VdotBackward0", ("self", "other"))


def vdot(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """``sum(conj(input) * other)`` of two 1-d tensors (``torch.vdot``).

    Parameters
    ----------
    input : Tensor
        1-d, conjugated.
    other : Tensor
        1-d, same length and dtype.

    Returns
    -------
    Tensor
        0-d.

    Raises
    ------
    RuntimeError
        If the shapes or dtypes do not match.
    """
    a, b = _t(input), _t(other, "other")
    if a._data.ndim != 1 or b._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a._data.ndim}D and {b._data.ndim}D "
                           "tensors")
    if a._data.dtype != b._data.dtype:
        raise RuntimeError(f"vdot : expected both vectors to have same dtype, but found "
                           f"{_tname(a._data.dtype)} and {_tname(b._data.dtype)}")
    if a._data.shape != b._data.shape:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a._data.shape[0]}] and "
                           f"src [{b._data.shape[0]}] to have the same number of elements, but "
                           f"got {a._data.shape[0]} and {b._data.shape[0]} elements "
                           "respectively")
    if a._data.dtype.kind in "iub":
        return _make_plain(np.asarray(np.vdot(a._data, b._data)))
    return _compose(_VdotBackward0, _fnp.vdot, [a, b], [a._data, b._data])


def _lerp_fn(x: Any, e: Any, w: Any) -> Any:
    d = e - x
    small = _fnp.abs(w) < 0.5
    return _fnp.where(small, x + w * d, e - d * (1 - w))


def _lerp_scalar_fn(x: Any, e: Any, weight: Any) -> Any:
    d = e - x
    if abs(weight) < 0.5:
        return x + d * weight
    return e - d * (1 - weight)


_LerpBackward0 = composite_class("LerpBackward0", ("self", "end"))
_LerpBackward1 = composite_class("LerpBackward1", ("self", "end", "weight"))


def lerp(input: Tensor, end: Tensor, weight: TensorOrNumber) -> Tensor:  # noqa: A002
    """Linear interpolation ``input + weight * (end - input)`` (``torch.lerp``).

    PyTorch's two-sided formula (exact at ``weight = 1``).

    Parameters
    ----------
    input : Tensor
        The start points.
    end : Tensor
        The end points, same dtype (broadcast).
    weight : Tensor or Number
        The weight (a tensor: same dtype, broadcast).

    Returns
    -------
    Tensor
        The broadcast shape.

    Raises
    ------
    RuntimeError
        If the dtypes differ or the shapes do not broadcast.
    """
    x, e = _t(input), _t(end, "end")
    if x._data.dtype.kind not in "fc":
        raise NotImplementedError(f'"lerp_kernel_scalar" not implemented for '
                                  f"'{_tname(x._data.dtype)}'")
    if e._data.dtype != x._data.dtype:
        raise RuntimeError(f"expected dtype {_tname(x._data.dtype).lower()} for `end` but got "
                           f"dtype {_tname(e._data.dtype).lower()}")
    try:
        np.broadcast_shapes(x._data.shape, e._data.shape,
                            weight._data.shape if isinstance(weight, Tensor) else ())
    except ValueError:
        raise O._broadcast_error(x._data, e._data) from None
    if isinstance(weight, Tensor):
        if weight._data.dtype != x._data.dtype:
            raise RuntimeError(f"expected dtype {_tname(x._data.dtype).lower()} for `weight` "
                               f"but got dtype {_tname(weight._data.dtype).lower()}")
        return _compose(_LerpBackward1, _lerp_fn, [x, e, weight],
                        [x._data, e._data, weight._data])
    if _scalar(weight) is None:
        raise TypeError(f"lerp(): argument 'weight' must be Number or Tensor, not "
                        f"{type(weight).__name__}")
    return _compose(_LerpBackward0, _lerp_scalar_fn, [x, e], [x._data, e._data],
                    {"weight": weight}, mask=0)


# =============================================================================== kron / tensordot
_KronBackward = composite_class("UnsafeViewBackward0", ("self", "other"))
_TensordotBackward = composite_class("ViewBackward0", ("self", "other"))


def _kron_fn(a: Any, b: Any) -> Any:
    n = max(a.ndim, b.ndim)
    a = _fnp.reshape(a, (1,) * (n - a.ndim) + a.shape)
    b = _fnp.reshape(b, (1,) * (n - b.ndim) + b.shape)
    return _fnp.kron(a, b)


def kron(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The Kronecker product (``torch.kron``).

    Parameters
    ----------
    input : Tensor
        The first operand.
    other : Tensor
        The second operand (promoted with ``input`` as in PyTorch).

    Returns
    -------
    Tensor
        Each dimension the product of the operands' (the shorter shape padded with 1s).
    """
    a, b = _t(input), _t(other, "other")
    r = _promote_datas([a, b])
    ad = a._data if a._data.dtype == r else a._data.astype(r)
    bd = b._data if b._data.dtype == r else b._data.astype(r)
    if r.kind in "iub":
        return _make_plain(np.asarray(np.kron(ad.reshape((1,) * (bd.ndim - ad.ndim) + ad.shape),
                                              bd.reshape((1,) * (ad.ndim - bd.ndim) + bd.shape))))
    return _compose(_KronBackward, _kron_fn, [a, b], [ad, bd])


def _tensordot_fn(a: Any, b: Any, axes: Any) -> Any:
    return _fnp.tensordot(a, b, axes)


def tensordot(a: Tensor, b: Tensor,
              dims: int | Sequence[Sequence[int]] | Tensor = 2) -> Tensor:
    """Sums of products over the given dimensions (``torch.tensordot``).

    Parameters
    ----------
    a : Tensor
        The first operand.
    b : Tensor
        The second operand, same dtype.
    dims : int or pair of sequences of int or Tensor, optional
        An int (the last ``dims`` of ``a`` with the first of ``b``), a pair of lists of
        dimensions, or a 2-row tensor of them.

    Returns
    -------
    Tensor
        ``a``'s remaining dimensions followed by ``b``'s.

    Raises
    ------
    RuntimeError
        If the contracted sizes differ.
    """
    x, y = _t(a, "a"), _t(b, "b")
    if isinstance(dims, Tensor):
        dims = dims._data.tolist()
    if isinstance(dims, (int, np.integer)) and not isinstance(dims, bool):
        n = int(dims)
        if n < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={n}")
        if n > x._data.ndim or n > y._data.ndim:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={n}")
        axes = (tuple(range(x._data.ndim - n, x._data.ndim)), tuple(range(n)))
    elif isinstance(dims, (list, tuple)) and len(dims) == 2:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
        if len(da) != len(db):
            raise RuntimeError(f"both dimension lists should have same length, got {len(da)} "
                               f"and {len(db)}")
        axes = (tuple(_dim(d, x._data.ndim) for d in da), tuple(_dim(d, y._data.ndim)
                                                                for d in db))
    else:
        raise RuntimeError(f"tensordot expects dims to be an int or a pair of lists, got "
                           f"{dims!r}")
    for i, j in zip(*axes):
        si, sj = x._data.shape[i], y._data.shape[j]
        if si != sj and si == 1:   # PyTorch broadcasts a contracted dimension of size 1
            x = O.expand(x, x._data.shape[:i] + (sj,) + x._data.shape[i + 1:])
        elif si != sj and sj == 1:
            y = O.expand(y, y._data.shape[:j] + (si,) + y._data.shape[j + 1:])
        elif si != sj:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{x._data.shape[i]} in dim {i} and second has size "
                               f"{y._data.shape[j]} in dim {j}")
    if x._data.dtype != y._data.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{O._ctype(x._data.dtype)} != {O._ctype(y._data.dtype)}")
    if x._data.dtype.kind in "iub":
        return _make_plain(np.asarray(np.tensordot(x._data, y._data, axes)))
    return _compose(_TensordotBackward, _tensordot_fn, [x, y], [x._data, y._data],
                    {"axes": axes})


# =============================================================================== methods
def _inplace(fn: Callable[..., Any]) -> Callable[..., Tensor]:
    def m(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return _inplace_op(self, fn, *args, **kwargs)
    m.__name__ = fn.__name__ + "_"
    m.__doc__ = in_place_doc(fn.__name__)
    return m


METHODS: dict = {n: globals()[n] for n in ("addmm", "addmv", "addr", "baddbmm", "addbmm",
                                           "addcmul", "addcdiv", "vdot", "lerp", "kron", "dist",
                                           "renorm")}
METHODS.update({n + "_": _inplace(globals()[n]) for n in (
    "addmm", "addmv", "addr", "baddbmm", "addbmm", "addcmul", "addcdiv", "lerp", "renorm")})
METHODS.update(_M2.METHODS)
addmv_ = METHODS["addmv_"]   # (torch.addmv_ is also a function)
__all__.append("addmv_")


def _exact_out(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``out=`` of the fused products, which write only their operands' dtype (PyTorch
    refuses another dtype of ``out``, where elementwise ops cast)."""
    g = with_out(fn)

    def f(*args: Any, out: Tensor | None = None, **kwargs: Any) -> Any:
        if out is not None and isinstance(out, Tensor) and isinstance(args[0], Tensor) and \
                out._data.dtype != args[0]._data.dtype:
            raise RuntimeError(f"Expected out tensor to have dtype {args[0].dtype}, but got "
                               f"{out.dtype} instead")
        return g(*args, out=out, **kwargs)
    return set_out_signature(f, fn)


# out= on the functions PyTorch gives one (PyTorch's out rules: ._out)
for _n in ("addr", "addcmul", "addcdiv", "lerp", "kron", "column_stack", "dstack", "row_stack"):
    globals()[_n] = set_out_signature(with_out(globals()[_n], _n), globals()[_n])
for _n in ("addmm", "addmv", "baddbmm", "addbmm", "vdot", "tensordot", "renorm"):
    globals()[_n] = _exact_out(globals()[_n])
del _n
METHODS.update(_MM.METHODS)
