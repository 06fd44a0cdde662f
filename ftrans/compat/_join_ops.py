"""compat operations: cat/stack, matrix products and dtype/device conversions."""
from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import _dtype as D
from . import cuda
from ._tensor import (Tensor, _dim, check_device, device as _dev_cls)
from .autograd.graph import node_class
from .autograd._composite import composite_class
from .. import numpy as _fnp
from .. import primitives as P
from ..primitives import structural as S
from ..primitives.dot import dot_general_p
from ..core.trace import Tracer as _Tracer

from ._opbase import (SAVE_NONE, _compose, _convert, _ctype, _kk, _promote_datas,
    _record, _save_cross, _tensorize, _tname)
from ._pointwise import (mul)
from ._view_ops import (expand, reshape, unsqueeze)

# cat / stack ---------------------------------------------------------------------------
_CatBackward0 = node_class("CatBackward0", (), params={"dim": lambda n: n._params["axis"]})


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Concatenate along ``dim`` (``torch.cat``, ``concat``, ``concatenate``).

    Parameters
    ----------
    tensors : sequence of Tensor
        The tensors (a non-empty list or tuple). Legacy empty ``(0,)`` tensors are skipped, as in PyTorch.
    dim : int, default 0
        The dimension.

    Returns
    -------
    Tensor
        The concatenation, of the tensors' promoted dtype.

    Raises
    ------
    RuntimeError
        For an empty sequence or shapes that differ outside ``dim``.
    """
    tensors = list(tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    r = _promote_datas(tensors)
    datas = [t._data if t._data.dtype == r else t._data.astype(r) for t in tensors]
    keep = tuple(i for i, d in enumerate(datas) if d.shape != (0,))
    if keep and len(keep) < len(datas):   # torch's legacy empty (0,) tensors are skipped
        nd = datas[keep[0]].ndim
        if nd == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {keep[0]}) cannot be "
                               "concatenated")
        ax = _dim(dim, nd)
        try:
            out = S.concatenate_p.bind(*[datas[i] for i in keep], axis=ax)
        except ValueError as e:
            raise RuntimeError(f"Sizes of tensors must match except in dimension {ax}: "
                               f"{e}") from None
        return _compose(_CatBackward0c, _cat_some_fn, tensors, datas,
                        {"axis": ax, "keep": keep}, mask=0,
                        casts=_list_casts(tensors, r), out=out)
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


_CatBackward0c = composite_class("CatBackward0", (),
                                 params={"dim": lambda n: n._params["axis"]})


def _cat_some_fn(*xs: Any, axis: int, keep: tuple[int, ...]) -> Any:
    """The concatenation of the operands at the positions ``keep`` (the others are the
    legacy empty (0,) tensors torch's ``cat`` skips)."""
    return P.concatenate([xs[i] for i in keep], axis)


def _list_casts(tensors: Sequence[Tensor], r: np.dtype[Any]) -> tuple[Any, ...] | None:
    """``casts`` of an operation on a list of tensors promoted to the dtype ``r``: the
    original floating/complex dtype of each converted tensor (its gradient is converted
    back: the real part for a real tensor promoted to complex), or None if none was."""
    casts = tuple(t._data.dtype if t._data.dtype != r and t._data.dtype.kind in "fc" else None
                  for t in tensors)
    return casts if builtins.any(c is not None for c in casts) else None


concat = concatenate = cat


def _stack_fn(*xs: Any, axis: int) -> Any:
    shape = xs[0].shape
    new = shape[:axis] + (1,) + shape[axis:]
    return S.concatenate_p.bind(*[P.reshape(x, new) for x in xs], axis=axis)


_StackBackward0 = composite_class("StackBackward0", (),
                                  params={"dim": lambda n: n._params["axis"]})


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Stack tensors of equal shape along a new dimension ``dim`` (``torch.stack``).

    Parameters
    ----------
    tensors : sequence of Tensor
        The tensors (a non-empty list or tuple).
    dim : int, default 0
        The new dimension's position.

    Returns
    -------
    Tensor
        One dimension more than the tensors, of their promoted dtype.

    Raises
    ------
    RuntimeError
        For an empty sequence or shapes that differ.
    """
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


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    """Concatenate along the first axis of 1-d tensors, the second otherwise (``torch.hstack``).

    Parameters
    ----------
    tensors : sequence of Tensor
        The tensors (a non-empty list or tuple). 0-d tensors count as 1-d.

    Returns
    -------
    Tensor
        The concatenation.

    Raises
    ------
    RuntimeError
        For an empty sequence or tensors of different numbers of dimensions.
    """
    _nonempty(tensors, "hstack")
    tensors = [atleast_1d(t) for t in tensors]
    nds = {t.dim() for t in tensors}
    if len(nds) > 1:
        raise RuntimeError(f"Tensors must have same number of dimensions: got {min(nds)} and "
                           f"{max(nds)}")
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1)


def _nonempty(tensors: Sequence[Tensor], name: str) -> None:
    if len(tensors) == 0:
        raise RuntimeError(f"{name} expects a non-empty TensorList")


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    """Concatenate along the first axis after ``atleast_2d`` (``torch.vstack``).

    Parameters
    ----------
    tensors : sequence of Tensor
        The tensors (a non-empty list or tuple).

    Returns
    -------
    Tensor
        The concatenation.

    Raises
    ------
    RuntimeError
        For an empty sequence.
    """
    _nonempty(tensors, "vstack")
    return cat([atleast_2d(t) for t in tensors], 0)


def _atleast(one: Callable[[Tensor], Tensor], name: str) -> Callable[..., Any]:
    def f(*tensors: Any) -> Tensor | tuple[Tensor, ...]:
        if len(tensors) == 1 and isinstance(tensors[0], Tensor):
            return one(tensors[0])
        items = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) \
            else tensors
        return tuple(one(t) for t in items)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"``torch.{name}``: a tensor, or a tuple for several tensors (given as "
                 "arguments or as one list/tuple).")
    return f


def _atleast_1d(t: Tensor) -> Tensor:
    return reshape(t, (1,)) if t._data.ndim == 0 else t


def _atleast_2d(t: Tensor) -> Tensor:
    n = t._data.ndim
    return reshape(t, (1,) * (2 - n) + t._data.shape) if n < 2 else t


def _atleast_3d(t: Tensor) -> Tensor:
    s = t._data.shape
    n = len(s)
    return reshape(t, ((1, 1, 1), (1,) + s + (1,), s + (1,))[n]) if n < 3 else t


atleast_1d = _atleast(_atleast_1d, "atleast_1d")
atleast_2d = _atleast(_atleast_2d, "atleast_2d")
atleast_3d = _atleast(_atleast_3d, "atleast_3d")


# matmul --------------------------------------------------------------------------------
_MmBackward0 = node_class("MmBackward0", ("self", "mat2"))
_MvBackward0 = node_class("MvBackward0", ("self", "vec"))
_DotBackward0 = node_class("DotBackward0", ("self", "tensor"))
_BmmBackward0 = node_class("BmmBackward0", ("self", "mat2"))


def _dot(cls: Any, a: Tensor, b: Tensor, dn: Any, ad: Any = None, bd: Any = None) -> Tensor:
    ad = a._data if ad is None else ad
    bd = b._data if bd is None else bd
    params = {"dimension_numbers": dn}
    out = _kk(dot_general_p, ad, bd)(ad, bd, **params)
    return _record(cls, dot_general_p, params, [a, b], [ad, bd], out, _save_cross)


def matmul(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """Matrix product with PyTorch's broadcasting rules (``torch.matmul``, ``@``).

    Parameters
    ----------
    input : Tensor
        The first operand (at least 1-d; a vector is a row).
    other : Tensor
        The second operand (at least 1-d; a vector is a column), of ``input``'s dtype.

    Returns
    -------
    Tensor
        The dot product of vectors, matrix(-vector) products, or batched products over the
        broadcast batch dimensions.

    Raises
    ------
    RuntimeError
        For different dtypes, a 0-d operand, or inner sizes that differ.
    """
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


def mm(input: Tensor, mat2: Tensor) -> Tensor:  # noqa: A002
    """Matrix product of two matrices (``torch.mm``).

    Parameters
    ----------
    input : Tensor
        An ``(n, k)`` matrix.
    mat2 : Tensor
        A ``(k, m)`` matrix.

    Returns
    -------
    Tensor
        ``(n, m)``.

    Raises
    ------
    RuntimeError
        For operands that are not 2-d.
    """
    if input._data.ndim != 2 or mat2._data.ndim != 2:
        raise RuntimeError(f"mm: expected 2D tensors, got {input._data.ndim}D and "
                           f"{mat2._data.ndim}D")
    return matmul(input, mat2)


def mv(input: Tensor, vec: Tensor) -> Tensor:  # noqa: A002
    """Matrix-vector product (``torch.mv``).

    Parameters
    ----------
    input : Tensor
        An ``(n, k)`` matrix.
    vec : Tensor
        A ``(k,)`` vector.

    Returns
    -------
    Tensor
        ``(n,)``.

    Raises
    ------
    RuntimeError
        For operands of other numbers of dimensions.
    """
    if input._data.ndim != 2 or vec._data.ndim != 1:
        raise RuntimeError("vector + matrix @ vector expected, got "
                           f"{input._data.ndim}, {vec._data.ndim}")
    return matmul(input, vec)


def dot(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """Dot product of two vectors, without conjugation (``torch.dot``).

    Parameters
    ----------
    input : Tensor
        A 1-d tensor.
    other : Tensor
        A 1-d tensor of the same length and dtype.

    Returns
    -------
    Tensor
        0-d.

    Raises
    ------
    RuntimeError
        For operands that are not 1-d.
    """
    if input._data.ndim != 1 or other._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and "
                           f"{other._data.ndim}D tensors")
    return matmul(input, other)


_ViewBackward0i = composite_class("ViewBackward0", ("self", "other"))


def _inner_fn(a: Any, b: Any) -> Any:
    return _fnp.inner(a, b)


def inner(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """The sum of products over the last dimensions (``torch.inner``).

    Parameters
    ----------
    input : Tensor
        The first operand.
    other : Tensor
        The second operand (same last size).

    Returns
    -------
    Tensor
        ``input.shape[:-1] + other.shape[:-1]``; the product when one is 0-d.

    Raises
    ------
    RuntimeError
        For last dimensions of different sizes.
    """
    if input._data.ndim == 0 or other._data.ndim == 0:
        return mul(input, other)
    if input._data.ndim == 1 and other._data.ndim == 1:
        return dot(input, other)
    if input._data.shape[-1] != other._data.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but "
                           f"got shapes {list(input.shape)} and {list(other.shape)}")
    r = _promote_datas((input, other))
    ad, bd = input._data.astype(r, copy=False), other._data.astype(r, copy=False)
    return _compose(_ViewBackward0i, _inner_fn, [input, other], [ad, bd])


def bmm(input: Tensor, mat2: Tensor) -> Tensor:  # noqa: A002
    """Batched matrix product (``torch.bmm``).

    Parameters
    ----------
    input : Tensor
        A ``(b, n, k)`` tensor.
    mat2 : Tensor
        A ``(b, k, m)`` tensor.

    Returns
    -------
    Tensor
        ``(b, n, m)``.

    Raises
    ------
    RuntimeError
        For operands that are not 3-d.
    """
    if input._data.ndim != 3 or mat2._data.ndim != 3:
        raise RuntimeError("batch1 and batch2 must be 3D tensors")
    return matmul(input, mat2)


def outer(input: Tensor, vec2: Tensor) -> Tensor:  # noqa: A002
    """Outer product of two vectors (``torch.outer``, ``ger``).

    Parameters
    ----------
    input : Tensor
        An ``(n,)`` vector.
    vec2 : Tensor
        An ``(m,)`` vector.

    Returns
    -------
    Tensor
        ``(n, m)``, of the promoted dtype.
    """
    return mul(unsqueeze(input, 1), vec2)


ger = outer


# =============================================================================== conversions
_CloneBackward0 = composite_class("CloneBackward0", ("self",))


def _identity_fn(x: Any) -> Any:
    return x


def clone(input: Tensor, *, memory_format: Any = None) -> Tensor:  # noqa: A002
    """A copy, recorded as ``CloneBackward0`` (``torch.clone``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    memory_format : object, optional
        Accepted for PyTorch's signature; the copy is C-contiguous.

    Returns
    -------
    Tensor
        The copy.
    """
    d = input._data
    out = d if isinstance(d, _Tracer) else np.array(d, copy=True, order="C")
    return _compose(_CloneBackward0, _identity_fn, [input], [d], mask=0, out=out)


def contiguous(input: Tensor, memory_format: Any = None) -> Tensor:  # noqa: A002
    """A C-contiguous tensor of the same values (``Tensor.contiguous``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    memory_format : object, optional
        Accepted for PyTorch's signature; ignored.

    Returns
    -------
    Tensor
        ``input`` itself when contiguous, a :func:`clone` otherwise.
    """
    d = input._data
    return input if isinstance(d, _Tracer) or d.flags.c_contiguous else clone(input)


def to(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """Convert the dtype and/or the device (``Tensor.to``).

    Parameters
    ----------
    input : Tensor
        The input tensor.
    *args : Any
        A dtype, a device (or its string), a tensor (whose dtype is taken); a bool
        (``non_blocking``) is ignored.
    **kwargs : Any
        ``dtype``, ``device``, ``copy`` (a copy even when nothing changes),
        ``non_blocking`` and ``memory_format`` (ignored).

    Returns
    -------
    Tensor
        ``input`` itself when nothing changes (and no ``copy``); the gradient flows back
        through a conversion or a device copy.

    Raises
    ------
    TypeError
        For another keyword.
    """
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


def _copy_back_bwd(node: Any, ct: Any, primals: Any, ans: Any, needs: Any) -> list[Any]:
    """Gradient of a host <-> GPU copy: the cotangent copied back to the source's device
    (``node._params["source"]``, the source device's type)."""
    if node._params["source"] == "cpu":
        return [ct.get() if hasattr(ct, "get") and not isinstance(ct, np.ndarray) else ct]
    return [cuda._lazy_init().asarray(ct)]


_ToCopyBetweenDevices = node_class("ToCopyBackward0", ("self",), _copy_back_bwd)


def _to_device(x: Tensor, dev: Any) -> Tensor:
    """``x`` on device ``dev``: a NumPy <-> CuPy copy, recorded as ``ToCopyBackward0``
    (the gradient goes back to the source device)."""
    d = dev if isinstance(dev, _dev_cls) else _dev_cls(str(dev))
    src = x.device
    if src.type == d.type and (d.index is None or src.index == d.index):
        return x
    data = x._data
    out = cuda.to_device_array(data, d)
    return _record(_ToCopyBetweenDevices, None, {"source": src.type}, [x], [data], out,
                   SAVE_NONE)


