"""Tensor factories (``tensor``, ``zeros``, ``arange`` ...) and the random generator
(the random factories are in :mod:`._random_factories`).

Floating factories use the default dtype (float32 unless ``set_default_dtype``);
``tensor`` infers int64 for integers, bool for booleans, complex64 for complex numbers
(as PyTorch) and keeps the dtype of NumPy input.  ``manual_seed`` seeds a NumPy
generator: values differ from PyTorch's for the same seed.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from . import _dtype as D
from ._tensor import Tensor
from .types import DeviceLike, DTypeArg, Number, SizeLike
from ._generator import (  # noqa: F401  (compat's modules read them here, as F.<name>)
    Generator, default_generator, manual_seed, seed, initial_seed, get_rng_state,
    set_rng_state, set_default_device, get_default_device, _finish, _fdt, _gen, _size)
from ._random_factories import (  # noqa: F401  (F.randperm ...)
    rand, randn, randint, randperm, rand_like, randn_like, randint_like)

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "arange",
           "linspace", "logspace", "eye", "zeros_like", "ones_like", "empty_like", "full_like",
           "manual_seed", "seed", "initial_seed", "Generator", "default_generator",
           "get_rng_state", "set_rng_state", "set_default_device", "get_default_device"]


def _infer_np(data: Any) -> np.dtype[Any] | None:
    """dtype PyTorch infers for Python data (None for NumPy arrays: keep theirs)."""
    if isinstance(data, (bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(data, (int, np.integer)):
        return np.dtype(np.int64)
    if isinstance(data, (float, np.floating)):
        return D.get_default_dtype().np
    if isinstance(data, (complex, np.complexfloating)):
        return D.default_complex()
    return None


def _convert(obj: Any) -> Any:
    """Nested Python data -> (array, inferred dtype)."""
    if isinstance(obj, Tensor):
        return obj._data
    if isinstance(obj, np.ndarray):
        return obj
    if isinstance(obj, (list, tuple)):
        return [_convert(o) for o in obj]
    return obj


def _pick(a_py: Any) -> np.dtype[Any]:
    """PyTorch's dtype for nested data: the promotion (``promote_types``) of the element
    dtypes, where a Python bool is bool, an int int64, a float the default float dtype, a
    complex the default complex dtype, and NumPy scalars and arrays keep their dtype."""
    found = []

    def walk(o: Any) -> None:
        if isinstance(o, (list, tuple)):
            for v in o:
                walk(v)
        elif isinstance(o, (np.ndarray, np.generic)):
            found.append(o.dtype)
        elif isinstance(o, bool):
            found.append(np.dtype(np.bool_))
        elif isinstance(o, int):
            found.append(np.dtype(np.int64))
        elif isinstance(o, float):
            found.append(D.get_default_dtype().np)
        elif isinstance(o, complex):
            found.append(D.default_complex())
        else:
            raise TypeError(f"Could not infer dtype of {type(o).__name__}")
    walk(a_py)
    if not found:
        return D.get_default_dtype().np
    dt = found[0]
    for d in found[1:]:
        if d != dt:
            dt = D.promote_types(dt, d)
    return dt


def tensor(data: Any, *, dtype: DTypeArg = None, device: DeviceLike = None,
           requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A new tensor (always a copy) from nested sequences, a NumPy array or a number.

    Parameters
    ----------
    data : Any
        Nested lists/tuples of numbers or tensors, a NumPy array or scalar, a tensor, or
        a number.
    dtype : dtype, optional
        The dtype; by default inferred as PyTorch does: int64 for ints, bool for bools,
        the default float dtype for floats, complex64 (complex128 with a float64 default)
        for complex numbers, NumPy's own dtype for NumPy data.
    device : device or str or int, optional
        The device; the default device (``set_default_device``, the CPU) by default.
    requires_grad : bool, default False
        Whether the new tensor requires grad.
    pin_memory : bool, default False
        Accepted for PyTorch's signature; ignored.

    Returns
    -------
    Tensor
        The new tensor.

    Raises
    ------
    TypeError
        For data that is not numeric.
    RuntimeError
        For ``requires_grad`` with an integer or bool dtype.

    Examples
    --------
    >>> import ftrans.compat as torch
    >>> torch.tensor([[1, 2], [3, 4]])
    tensor([[1, 2],
            [3, 4]])
    >>> torch.tensor([1.0, 2.0], requires_grad=True)
    tensor([1., 2.], requires_grad=True)
    """
    if isinstance(data, Tensor):
        arr = np.array(data._data, dtype=None if dtype is None else D.to_np(dtype), copy=True)
    elif isinstance(data, (np.ndarray, np.generic)):  # NumPy scalars keep their dtype
        arr = np.array(data, dtype=None if dtype is None else D.to_np(dtype), copy=True)
        D.from_np(arr.dtype)
    else:
        conv = _convert(data)
        npdt = D.to_np(dtype) if dtype is not None else _pick(conv)
        arr = np.array(conv, dtype=npdt)
    if arr.dtype == object:
        raise TypeError("tensor(): could not convert the data to a numeric array")
    if requires_grad and arr.dtype.kind not in "fc":
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    return _finish(arr, requires_grad, device)


def as_tensor(data: Any, dtype: DTypeArg = None, device: DeviceLike = None) -> Tensor:
    """A tensor sharing memory with ``data`` when possible (``torch.as_tensor``).

    Parameters
    ----------
    data : Any
        A tensor, a NumPy array, or data as for :func:`tensor`.
    dtype : dtype, optional
        The dtype; ``data``'s (or :func:`tensor`'s inference) by default.
    device : device or str or int, optional
        The device; the default device (``set_default_device``, the CPU) by default.

    Returns
    -------
    Tensor
        ``data`` itself for a tensor of that dtype, a tensor sharing a NumPy array's
        memory, otherwise a copy.
    """
    if isinstance(data, Tensor):
        if dtype is None or D.to_np(dtype) == data._data.dtype:
            return data
        return data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or D.to_np(dtype) == data.dtype):
        D.from_np(data.dtype)
        return _finish(data, False, device)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing memory with a NumPy array (``torch.from_numpy``).

    Parameters
    ----------
    ndarray : numpy.ndarray
        The array (of a dtype compat has).

    Returns
    -------
    Tensor
        The tensor; writes go through to the array.

    Raises
    ------
    TypeError
        For something else than an array.
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    D.from_np(ndarray.dtype)
    return _finish(ndarray, False)


_IGNORED = ("out, layout, pin_memory, memory_format : optional\n    Accepted for PyTorch's "
            "signature; ignored.")


def _factory(fill: Callable[..., Any], name: str, what: str) -> Callable[..., Tensor]:
    def f(*size: int | SizeLike, out: Tensor | None = None, dtype: DTypeArg = None,
          layout: Any = None, device: DeviceLike = None, requires_grad: bool = False,
          pin_memory: bool = False, memory_format: Any = None) -> Tensor:
        return _finish(fill(_size(size), _fdt(dtype)), requires_grad, device)
    f.__doc__ = (f"A tensor of {what} (``torch.{name}``).\n\nParameters\n----------\n"
                 "*size : int or sequence of int\n    The shape, as ints or one sequence.\n"
                 f"{_IGNORED}\n{DT}\n{DV}\n{RG}\n\nReturns\n-------\nTensor\n"
                 "    The new tensor.")
    return f


DT = "dtype : dtype, optional\n    The dtype; the default float dtype by default."
DV = ("device : device or str or int, optional\n    The device; the default device "
      "(``set_default_device``, the CPU) by default.")
RG = "requires_grad : bool, default False\n    Whether the new tensor requires grad."
zeros = _factory(np.zeros, "zeros", "zeros")
ones = _factory(np.ones, "ones", "ones")
# zero-filled: uninitialized memory is never exposed
empty = _factory(np.zeros, "empty", "uninitialized values (zeros here)")


def full(size: SizeLike | int, fill_value: Number, *, dtype: DTypeArg = None,
         device: DeviceLike = None, requires_grad: bool = False, out: Tensor | None = None,
         layout: Any = None, pin_memory: bool = False) -> Tensor:
    """A tensor of ``size`` filled with ``fill_value`` (``torch.full``).

    Parameters
    ----------
    size : sequence of int or int
        The shape.
    fill_value : Number
        The value.
    dtype : dtype, optional
        The dtype; inferred from ``fill_value`` by default (int64, bool, the default
        float or complex dtype).
    device : device or str or int, optional
        The device; the default device (``set_default_device``, the CPU) by default.
    requires_grad : bool, default False
        Whether the new tensor requires grad.
    out, layout, pin_memory : optional
        Accepted for PyTorch's signature; ignored.

    Returns
    -------
    Tensor
        The new tensor.
    """
    if dtype is None:
        dtype_np = _infer_np(fill_value) or D.get_default_dtype().np
    else:
        dtype_np = D.to_np(dtype)
    return _finish(np.full(_size((size,)) if not isinstance(size, int) else (size,),
                           fill_value, dtype_np), requires_grad, device)


def arange(start: Number | Tensor, end: Number | Tensor | None = None,
           step: Number | Tensor = 1, *, dtype: DTypeArg = None, device: DeviceLike = None,
           requires_grad: bool = False, out: Tensor | None = None, layout: Any = None,
           pin_memory: bool = False) -> Tensor:
    """Values from ``start`` to ``end`` (excluded) in steps of ``step`` (``torch.arange``).

    Parameters
    ----------
    start : Number or Tensor
        The first value; with ``end`` None, the end (the start is 0).
    end : Number or Tensor, optional
        The end (excluded).
    step : Number or Tensor, default 1
        The step (not 0).
    dtype : dtype, optional
        The dtype; int64 when all three are ints, the default float dtype otherwise.
    device : device or str or int, optional
        The device; the default device (``set_default_device``, the CPU) by default.
    requires_grad : bool, default False
        Whether the new tensor requires grad.
    out : Tensor, optional
        Only checked (an integer ``out`` with a zero step is an error); ignored.
    layout, pin_memory : optional
        Accepted for PyTorch's signature; ignored.

    Returns
    -------
    Tensor
        A 1-d tensor.

    Raises
    ------
    RuntimeError
        For a zero step, a non-finite bound, or a step of the wrong sign.
    ValueError
        For an integer ``out`` with a step that truncates to 0.
    """
    if end is None:
        start, end = 0, start
    vals: list[Any] = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if out is not None and out.dtype.np.kind in "iu" and int(vals[2]) == 0:
        raise ValueError("step must be nonzero")   # torch: a float step cast to out's integers
    _check_range(*vals)
    if dtype is None:
        npdt = (np.dtype(np.int64) if all(isinstance(v, (int, np.integer)) for v in vals)
                else D.get_default_dtype().np)
    else:
        npdt = D.to_np(dtype)
    if npdt.kind in "iu":
        arr = np.arange(*vals, dtype=np.float64 if any(isinstance(v, float) for v in vals)
                        else np.int64).astype(npdt)
    else:
        arr = np.arange(*[float(v) for v in vals], dtype=np.float64).astype(npdt)
    return _finish(arr, requires_grad, device)


def _check_range(start: Any, end: Any, step: Any) -> None:
    """torch.arange's RuntimeErrors for a range it cannot build."""
    if step == 0:
        raise RuntimeError("step must be nonzero")
    for v in (start, end):
        if isinstance(v, float) and not math.isfinite(v):
            raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")


def _check_steps(name: str, start: Any, end: Any, steps: Any) -> None:
    """torch.linspace/logspace's errors: ``steps`` an int >= 0, 0-d start and end."""
    if not isinstance(steps, (int, np.integer)) or isinstance(steps, bool):
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"({type(start).__name__}, {type(end).__name__}, "
                        f"{type(steps).__name__}), but expected an int 'steps'")
    for what, v in (("start", start), ("end", end)):
        if isinstance(v, Tensor) and v.dim() != 0:
            raise RuntimeError(f"{name} only supports 0-dimensional start and end tensors, but "
                               f"got {what} with {v.dim()} dimension(s).")
    if int(steps) < 0:
        raise RuntimeError(f"number of steps must be non-negative, got {int(steps)}")


def linspace(start: Number | Tensor, end: Number | Tensor, steps: int, *, dtype: DTypeArg = None,
             device: DeviceLike = None, requires_grad: bool = False,
             out: Tensor | None = None, layout: Any = None) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` (``torch.linspace``).

    Parameters
    ----------
    start : Number or Tensor
        The first value (a 0-d tensor or a number).
    end : Number or Tensor
        The last value (included).
    steps : int
        The number of values.
    dtype : dtype, optional
        The dtype; the default float dtype (``get_default_dtype()``) by default.
    device : device or str or int, optional
        The device; the default device (``set_default_device``, the CPU) by default.
    requires_grad : bool, default False
        Whether the new tensor requires grad.
    out, layout : optional
        Accepted for PyTorch's signature; ignored.

    Returns
    -------
    Tensor
        A 1-d tensor.

    Raises
    ------
    TypeError
        For a ``steps`` that is not an int.
    RuntimeError
        For a negative ``steps`` or start/end tensors that are not 0-d.
    """
    _check_steps("linspace", start, end, steps)
    return _finish(np.linspace(float(start), float(end),  # type: ignore[arg-type]  # (0-d)
                               int(steps)).astype(_fdt(dtype)),
                   requires_grad, device)


def logspace(start: Number | Tensor, end: Number | Tensor, steps: int, base: float = 10.0, *,
             dtype: DTypeArg = None, device: DeviceLike = None,
             requires_grad: bool = False) -> Tensor:
    """``base ** linspace(start, end, steps)`` (``torch.logspace``).

    Parameters
    ----------
    start : Number or Tensor
        The first value (a 0-d tensor or a number).
    end : Number or Tensor
        The last value (included).
    steps : int
        The number of values.
    base : float, default 10.0
        The base.
    dtype : dtype, optional
        The dtype; the default float dtype (``get_default_dtype()``) by default.
    device : device or str or int, optional
        The device; the default device (``set_default_device``, the CPU) by default.
    requires_grad : bool, default False
        Whether the new tensor requires grad.

    Returns
    -------
    Tensor
        A 1-d tensor.

    Raises
    ------
    TypeError
        For a ``steps`` that is not an int.
    RuntimeError
        For a negative ``steps`` or start/end tensors that are not 0-d.
    """
    _check_steps("logspace", start, end, steps)
    return _finish(np.logspace(float(start), float(end),  # type: ignore[arg-type]  # (0-d)
                               int(steps), base=base)
                   .astype(_fdt(dtype)), requires_grad, device)


def eye(n: int, m: int | None = None, *, dtype: DTypeArg = None, device: DeviceLike = None,
        requires_grad: bool = False, out: Tensor | None = None, layout: Any = None) -> Tensor:
    """The ``n`` by ``m`` identity matrix (``torch.eye``).

    Parameters
    ----------
    n : int
        The number of rows.
    m : int, optional
        The number of columns; ``n`` by default.
    dtype : dtype, optional
        The dtype; the default float dtype (``get_default_dtype()``) by default.
    device : device or str or int, optional
        The device; the default device (``set_default_device``, the CPU) by default.
    requires_grad : bool, default False
        Whether the new tensor requires grad.
    out, layout : optional
        Accepted for PyTorch's signature; ignored.

    Returns
    -------
    Tensor
        Ones on the diagonal, zeros elsewhere.

    Raises
    ------
    RuntimeError
        For a negative size.
    """
    for name, v in (("n", n), ("m", m)):
        if v is not None and v < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {v}")
    return _finish(np.eye(n, n if m is None else m, dtype=_fdt(dtype)), requires_grad, device)


_LIKE = ("dtype : dtype, optional\n    The dtype; ``input``'s by default.\n{DV}\n{RG}\n"
         "layout, memory_format : optional\n    Accepted for PyTorch's signature; ignored.")


def _like(fill: Callable[..., Any], name: str, what: str) -> Callable[..., Tensor]:
    def f(input: Tensor, *, dtype: DTypeArg = None, device: DeviceLike = None,  # noqa: A002
          requires_grad: bool = False, layout: Any = None, memory_format: Any = None) -> Tensor:
        npdt = input._data.dtype if dtype is None else D.to_np(dtype)
        return _finish(fill(input._data.shape, npdt), requires_grad, device)
    f.__doc__ = (f"A tensor of {what} of ``input``'s shape and dtype (``torch.{name}``).\n\n"
                 "Parameters\n----------\ninput : Tensor\n    The tensor whose shape is taken.\n"
                 + _LIKE.format(DV=DV, RG=RG) + "\n\nReturns\n-------\nTensor\n    The new tensor.")
    return f


zeros_like = _like(np.zeros, "zeros_like", "zeros")
ones_like = _like(np.ones, "ones_like", "ones")
empty_like = _like(np.zeros, "empty_like", "uninitialized values (zeros here)")


def full_like(input: Tensor, fill_value: Number, *, dtype: DTypeArg = None,  # noqa: A002
              device: DeviceLike = None, requires_grad: bool = False, layout: Any = None,
              memory_format: Any = None) -> Tensor:
    """A tensor of ``input``'s shape filled with ``fill_value`` (``torch.full_like``).

    Parameters
    ----------
    input : Tensor
        The tensor whose shape is taken.
    fill_value : Number
        The value.
    dtype : dtype, optional
        The dtype; ``input``'s by default.
    device : device or str or int, optional
        The device; the default device (``set_default_device``, the CPU) by default.
    requires_grad : bool, default False
        Whether the new tensor requires grad.
    layout, memory_format : optional
        Accepted for PyTorch's signature; ignored.

    Returns
    -------
    Tensor
        The new tensor.
    """
    npdt = input._data.dtype if dtype is None else D.to_np(dtype)
    return _finish(np.full(input._data.shape, fill_value, npdt), requires_grad, device)
