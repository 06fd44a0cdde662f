"""Random tensor factories: ``rand``, ``randn``, ``randint``, ``randperm`` and their
``*_like`` forms, drawn from a :class:`~ftrans.compat.Generator` (NumPy's PCG64; the
numbers differ from PyTorch's for the same seed)."""
from __future__ import annotations

from typing import Any, cast

import numpy as np

from . import _dtype as D
from ._generator import Generator, _fdt, _finish, _gen, _size
from ._tensor import Tensor
from .types import DeviceLike, DTypeArg, SizeLike

__all__ = ["rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like"]


def _rand_size(size: tuple[Any, ...], kw_size: Any, name: str) -> tuple[int, ...]:
    """The shape of ``rand(*size)``/``rand(size=...)``: torch's RuntimeError for a negative
    dimension."""
    if kw_size is not None:
        if size:
            raise TypeError(f"{name}() got multiple values for argument 'size'")
        size = (kw_size,)
    shape = _size(size)
    if any(s < 0 for s in shape):
        bad = next(s for s in shape if s < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: "
                           f"{list(shape)}")
    return shape


def _float_kernel(npdt: np.dtype[Any], kernel: str) -> None:
    if npdt.kind not in "fc":
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{D.from_np(npdt)._tname[:-6]}'")


def rand(*size: int | SizeLike, generator: Generator | None = None, dtype: DTypeArg = None,
         device: DeviceLike = None, requires_grad: bool = False, out: Tensor | None = None,
         layout: Any = None, pin_memory: bool = False, **kw: Any) -> Tensor:
    """Uniform draws on [0, 1) (``torch.rand``).

    Parameters
    ----------
    *size : int or sequence of int
        The shape, as ints or one sequence (or the keyword ``size``).
    generator : Generator, optional
        The generator drawn from; the default generator by default.
    dtype : dtype, optional
        The dtype; the default float dtype by default.
    device : device or str or int, optional
        The device; the default device by default.
    requires_grad : bool, default False
        Whether the new tensor requires grad.
    out, layout, pin_memory : optional
        Accepted for PyTorch's signature; ignored.
    **kw : Any
        ``size=`` only.

    Returns
    -------
    Tensor
        The draws (complex dtypes: real and imaginary parts each uniform).

    Raises
    ------
    TypeError
        For another keyword, or ``size`` given twice.
    RuntimeError
        For a negative dimension.
    NotImplementedError
        For an integer dtype.
    """
    shape = _rand_size(size, kw.pop("size", None), "rand")
    _no_extra("rand", kw)
    npdt = _fdt(dtype)
    _float_kernel(npdt, "check_uniform_bounds")
    g = _gen(generator)
    if npdt.kind == "c":
        arr = (g.random(shape) + 1j * g.random(shape)).astype(npdt)
    else:
        arr = g.random(shape).astype(npdt)
    return _finish(arr, requires_grad, device)


def randn(*size: int | SizeLike, generator: Generator | None = None, dtype: DTypeArg = None,
          device: DeviceLike = None, requires_grad: bool = False, out: Tensor | None = None,
          layout: Any = None, pin_memory: bool = False, **kw: Any) -> Tensor:
    """Standard normal draws (``torch.randn``).

    Parameters
    ----------
    *size : int or sequence of int
        The shape, as ints or one sequence (or the keyword ``size``).
    generator : Generator, optional
        The generator drawn from; the default generator by default.
    dtype : dtype, optional
        The dtype; the default float dtype by default.
    device : device or str or int, optional
        The device; the default device by default.
    requires_grad : bool, default False
        Whether the new tensor requires grad.
    out, layout, pin_memory : optional
        Accepted for PyTorch's signature; ignored.
    **kw : Any
        ``size=`` only.

    Returns
    -------
    Tensor
        The draws (complex dtypes: variance 1 split evenly between the real and
        imaginary parts).

    Raises
    ------
    TypeError
        For another keyword, or ``size`` given twice.
    RuntimeError
        For a negative dimension.
    NotImplementedError
        For an integer dtype.
    """
    s = _rand_size(size, kw.pop("size", None), "randn")
    _no_extra("randn", kw)
    npdt = _fdt(dtype)
    _float_kernel(npdt, "normal_kernel_cpu")
    g = _gen(generator)
    if npdt.kind == "c":
        arr = ((g.standard_normal(s) + 1j * g.standard_normal(s)) / np.sqrt(2)).astype(npdt)
    else:
        arr = g.standard_normal(s).astype(npdt)
    return _finish(arr, requires_grad, device)


def _no_extra(name: str, kw: dict[str, Any]) -> None:
    if kw:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kw))}'")


def randint(low: int = 0, high: int | SizeLike | None = None, size: SizeLike | None = None, *,
            generator: Generator | None = None, dtype: DTypeArg = None,
            device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    """Random integers in ``[low, high)`` (``torch.randint``).

    Parameters
    ----------
    low : int, default 0
        The lower bound; in ``randint(high, size)`` the upper bound.
    high : int or sequence of int, optional
        The upper bound (excluded); in ``randint(high, size)`` the size.
    size : sequence of int, optional
        The shape.
    generator : Generator, optional
        The generator drawn from; the default generator by default.
    dtype : dtype, optional
        The dtype; int64 by default.
    device : device or str or int, optional
        The device; the default device by default.
    requires_grad : bool, default False
        Whether the new tensor requires grad.

    Returns
    -------
    Tensor
        The draws.

    Raises
    ------
    TypeError
        Without a size.
    """
    lo, hi, shape = low, cast(Any, high), cast(Any, size)   # (torch's two overloads)
    if shape is None and isinstance(hi, (tuple, list)):   # randint(high, size)
        lo, hi, shape = 0, low, hi
    elif hi is None:
        lo, hi = 0, low
    if shape is None:
        raise TypeError("randint() missing the required argument 'size' (a tuple of ints)")
    npdt = np.dtype(np.int64) if dtype is None else D.to_np(dtype)
    return _finish(_gen(generator).integers(lo, hi, size=tuple(shape)).astype(npdt),
                   requires_grad, device)


def randperm(n: int, *, generator: Generator | None = None, dtype: DTypeArg = None,
             device: DeviceLike = None, requires_grad: bool = False,
             out: Tensor | None = None, layout: Any = None, pin_memory: bool = False) -> Tensor:
    """A random permutation of ``0 .. n-1`` (``torch.randperm``).

    Parameters
    ----------
    n : int
        The number of values.
    generator : Generator, optional
        The generator drawn from; the default generator by default.
    dtype : dtype, optional
        The dtype; int64 by default.
    device : device or str or int, optional
        The device; the default device by default.
    requires_grad : bool, default False
        Whether the new tensor requires grad.
    out, layout, pin_memory : optional
        Accepted for PyTorch's signature; ignored.

    Returns
    -------
    Tensor
        A 1-d tensor.

    Raises
    ------
    RuntimeError
        For a negative ``n``.
    """
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    npdt = np.dtype(np.int64) if dtype is None else D.to_np(dtype)
    return _finish(_gen(generator).permutation(n).astype(npdt), requires_grad, device)


def rand_like(input: Tensor, *, generator: Generator | None = None,  # noqa: A002
              dtype: DTypeArg = None, device: DeviceLike = None, requires_grad: bool = False,
              layout: Any = None, memory_format: Any = None) -> Tensor:
    """``rand`` of ``input``'s shape (``torch.rand_like``).

    Parameters
    ----------
    input : Tensor
        The tensor whose shape is taken.
    generator : Generator, optional
        The generator drawn from; the default generator by default.
    dtype : dtype, optional
        The dtype; ``input``'s by default.
    device : device or str or int, optional
        The device; the default device by default.
    requires_grad : bool, default False
        Whether the new tensor requires grad.
    layout, memory_format : optional
        Accepted for PyTorch's signature; ignored.

    Returns
    -------
    Tensor
        The draws.
    """
    return rand(input._data.shape, generator=generator,
                dtype=input.dtype if dtype is None else dtype, requires_grad=requires_grad,
                device=device)


def randn_like(input: Tensor, *, generator: Generator | None = None,  # noqa: A002
               dtype: DTypeArg = None, device: DeviceLike = None, requires_grad: bool = False,
               layout: Any = None, memory_format: Any = None) -> Tensor:
    """``randn`` of ``input``'s shape (``torch.randn_like``).

    Parameters
    ----------
    input : Tensor
        The tensor whose shape is taken.
    generator : Generator, optional
        The generator drawn from; the default generator by default.
    dtype : dtype, optional
        The dtype; ``input``'s by default.
    device : device or str or int, optional
        The device; the default device by default.
    requires_grad : bool, default False
        Whether the new tensor requires grad.
    layout, memory_format : optional
        Accepted for PyTorch's signature; ignored.

    Returns
    -------
    Tensor
        The draws.
    """
    return randn(input._data.shape, generator=generator,
                 dtype=input.dtype if dtype is None else dtype, requires_grad=requires_grad,
                 device=device)


def randint_like(input: Tensor, low: int = 0, high: int | None = None, *,  # noqa: A002
                 generator: Generator | None = None, dtype: DTypeArg = None,
                 device: DeviceLike = None, requires_grad: bool = False, layout: Any = None,
                 memory_format: Any = None) -> Tensor:
    """``randint`` of ``input``'s shape (``torch.randint_like``).

    Parameters
    ----------
    input : Tensor
        The tensor whose shape is taken.
    low : int, default 0
        The lower bound; with ``high`` None the upper bound.
    high : int, optional
        The upper bound (excluded).
    generator : Generator, optional
        The generator drawn from; the default generator by default.
    dtype : dtype, optional
        The dtype; ``input``'s by default.
    device : device or str or int, optional
        The device; the default device by default.
    requires_grad : bool, default False
        Whether the new tensor requires grad.
    layout, memory_format : optional
        Accepted for PyTorch's signature; ignored.

    Returns
    -------
    Tensor
        The draws.
    """
    if high is None:
        low, high = 0, low
    return randint(low, high, input._data.shape, generator=generator,
                   dtype=input.dtype if dtype is None else dtype, device=device)
