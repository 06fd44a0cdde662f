"""Tensor factories (``tensor``, ``zeros``, ``arange`` ...) and the random generator
(the random factories are in :mod:`._random_factories`).

Floating factories use the default dtype (float32 unless ``set_default_dtype``);
``tensor`` infers int64 for integers, bool for booleans, complex64 for complex numbers
(as PyTorch) and keeps the dtype of NumPy input.  ``manual_seed`` seeds a NumPy
generator: values differ from PyTorch's for the same seed.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from . import _dtype as D
from . import cuda
from ._tensor import Tensor, _make_plain, check_device
from ._tensor import device as _device, _default_device
from ._typing import DeviceLike, DTypeArg, Number, SizeLike

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "arange",
           "linspace", "logspace", "eye", "zeros_like", "ones_like", "empty_like", "full_like",
           "manual_seed", "seed", "initial_seed", "Generator", "default_generator",
           "get_rng_state", "set_rng_state", "set_default_device", "get_default_device"]


def _fresh_seed() -> int:
    """A seed from fresh OS entropy (NumPy's ``SeedSequence``: an int when not given)."""
    return cast(int, np.random.SeedSequence().entropy)


class Generator:
    """A random generator (``torch.Generator``).

    A NumPy ``Generator`` (PCG64) seeded through PyTorch's API.  ``get_state()`` is a
    uint8 tensor (as PyTorch's, though the bytes encode PCG64's state, not a Mersenne
    Twister's) that ``set_state`` restores; the numbers drawn differ from PyTorch's for
    the same seed.

    Parameters
    ----------
    device : device or str, default 'cpu'
        The generator's device.
    """

    def __init__(self, device: DeviceLike = "cpu") -> None:
        check_device(device)
        self.device = device if not isinstance(device, str) else _device(device)
        self._seed = _fresh_seed() % (2 ** 63)
        self._rng = np.random.default_rng(self._seed)

    def manual_seed(self, seed: int) -> Generator:
        """Seed the generator.

        Parameters
        ----------
        seed : int
            The seed; negative values wrap as in PyTorch.

        Returns
        -------
        Generator
            ``self``.

        Raises
        ------
        RuntimeError
            For a seed that does not fit in 64 bits.
        """
        seed = int(seed)
        if seed < 0:
            seed += 2 ** 64
        if not 0 <= seed < 2 ** 64:
            raise RuntimeError(f"Overflow when unpacking long long (seed {seed} does not fit "
                               "in 64 bits)")
        self._seed = seed
        self._rng = np.random.default_rng(self._seed)
        return self

    def seed(self) -> int:
        """Seed from fresh entropy.

        Returns
        -------
        int
            The new seed.
        """
        s = _fresh_seed() % (2 ** 63)
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        """The seed last set.

        Returns
        -------
        int
            The seed.
        """
        return self._seed

    def get_state(self) -> Tensor:
        """The generator's state; pass it to :meth:`set_state` to replay the same numbers.

        Returns
        -------
        Tensor
            A uint8 tensor of 37 bytes (PCG64 state, increment, cached half word).
        """
        st = self._rng.bit_generator.state
        b = (int(st["state"]["state"]).to_bytes(16, "little")
             + int(st["state"]["inc"]).to_bytes(16, "little")
             + bytes([int(st["has_uint32"])]) + int(st["uinteger"]).to_bytes(4, "little"))
        return _finish(np.frombuffer(b, np.uint8).copy(), False)

    def set_state(self, new_state: Tensor | dict[str, Any]) -> Generator:
        """Restore a state from :meth:`get_state`.

        Parameters
        ----------
        new_state : Tensor or dict
            The uint8 tensor of :meth:`get_state`, or NumPy's state dict.

        Returns
        -------
        Generator
            ``self``.

        Raises
        ------
        TypeError
            For a state that is neither a tensor nor a dict.
        RuntimeError
            For a tensor that is not the 37-byte uint8 state.
        """
        if isinstance(new_state, dict):      # NumPy's own form
            self._rng.bit_generator.state = new_state
            return self
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        a = np.asarray(new_state._data)
        if a.dtype != np.uint8 or a.size != 37:
            raise RuntimeError("Invalid generator state: expected the 37-byte uint8 tensor "
                               "returned by Generator.get_state()")
        b = a.tobytes()
        self._rng.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": int.from_bytes(b[:16], "little"),
                      "inc": int.from_bytes(b[16:32], "little")},
            "has_uint32": b[32], "uinteger": int.from_bytes(b[33:37], "little")}
        return self

default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the default generator and, when CuPy sees a GPU, the GPU's (``torch.manual_seed``).

    Results are reproducible, not PyTorch's numbers.

    Parameters
    ----------
    seed : int
        The seed.

    Returns
    -------
    Generator
        The default generator.
    """
    g = default_generator.manual_seed(seed)
    if cuda._state["cupy"] is not None or not cuda._state["checked"]:
        cuda.manual_seed_all(int(seed))
    return g


def seed() -> int:
    """Seed the default generator from fresh entropy (``torch.seed``).

    Returns
    -------
    int
        The new seed.
    """
    return default_generator.seed()


def initial_seed() -> int:
    """The default generator's seed (``torch.initial_seed``).

    Returns
    -------
    int
        The seed.
    """
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state (``torch.get_rng_state``).

    Returns
    -------
    Tensor
        A uint8 tensor (see :meth:`Generator.get_state`).
    """
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Restore the default generator's state from :func:`get_rng_state`.

    Parameters
    ----------
    new_state : Tensor
        The state.
    """
    default_generator.set_state(new_state)


def _finish(data: Any, requires_grad: bool, device: DeviceLike = None) -> Tensor:
    if device is None:
        device = _default_device[0]
    if device is not None:
        check_device(device)
        dev = device if isinstance(device, _device) else _device(str(device))
        if dev.type == "cuda":
            data = cuda.to_device_array(data, dev)
    t = _make_plain(data)
    if requires_grad:
        t.requires_grad_(True)
    return t


def set_default_device(device: DeviceLike) -> None:
    """Set the device of the tensors factories create when given no ``device``.

    Parameters
    ----------
    device : device or str or int or None
        None or "cpu": the CPU; "cuda" needs CuPy and a GPU (checked when a factory runs,
        as in PyTorch).
    """
    _default_device[0] = None if device is None else (
        device if isinstance(device, _device) else _device(str(device)))


def get_default_device() -> _device:
    """The default device of the factories (``torch.get_default_device``).

    Returns
    -------
    device
        ``device(type='cpu')`` unless set.
    """
    d = _default_device[0]
    if d is None or d.type == "cpu":
        return _device("cpu")
    check_device(d)
    return _device("cuda", d.index if d.index is not None else 0)


def _size(size: Sequence[Any]) -> tuple[int, ...]:
    if len(size) == 1 and not isinstance(size[0], (int, np.integer)):
        size = size[0]
    return tuple(int(s) for s in size)


def _fdt(dtype: DTypeArg) -> np.dtype[Any]:
    return D.get_default_dtype().np if dtype is None else D.to_np(dtype)


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


def _gen(generator: Generator | None) -> np.random.Generator:
    return (generator or default_generator)._rng


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
