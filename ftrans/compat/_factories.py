"""Tensor factories (``tensor``, ``zeros``, ``randn`` ...) and the random generator.

Floating factories use the default dtype (float32 unless ``set_default_dtype``);
``tensor`` infers int64 for integers, bool for booleans, complex64 for complex numbers
(as PyTorch) and keeps the dtype of NumPy input.  ``manual_seed`` seeds a NumPy
generator: values differ from PyTorch's for the same seed.
"""
from __future__ import annotations

import math

import numpy as np

from . import _dtype as D
from . import cuda
from ._tensor import Tensor, _make_plain, check_device
from ._tensor import device as _device, _default_device

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "arange",
           "linspace", "logspace", "eye", "rand", "randn", "randint", "randperm", "zeros_like",
           "ones_like", "empty_like", "full_like", "rand_like", "randn_like", "randint_like",
           "manual_seed", "seed", "initial_seed", "Generator", "default_generator",
           "get_rng_state", "set_rng_state", "set_default_device", "get_default_device"]


class Generator:
    """A random generator (``torch.Generator``): a NumPy ``Generator`` (PCG64) seeded
    through PyTorch's API.  ``get_state()`` is a uint8 tensor (as PyTorch's, though the
    bytes encode PCG64's state, not a Mersenne Twister's) that ``set_state`` restores;
    the numbers drawn differ from PyTorch's for the same seed."""

    def __init__(self, device="cpu"):
        check_device(device)
        self.device = device if not isinstance(device, str) else _device(device)
        self._seed = int(np.random.SeedSequence().entropy % (2 ** 63))
        self._rng = np.random.default_rng(self._seed)

    def manual_seed(self, seed):
        """Seed the generator (an int; negative values wrap as in PyTorch); returns it."""
        seed = int(seed)
        if seed < 0:
            seed += 2 ** 64
        if not 0 <= seed < 2 ** 64:
            raise RuntimeError(f"Overflow when unpacking long long (seed {seed} does not fit "
                               "in 64 bits)")
        self._seed = seed
        self._rng = np.random.default_rng(self._seed)
        return self

    def seed(self):
        """Seed from fresh entropy; returns the seed."""
        s = int(np.random.SeedSequence().entropy % (2 ** 63))
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        """The state as a uint8 tensor of 37 bytes (PCG64 state, increment, cached half
        word): pass it to :meth:`set_state` to replay the same numbers."""
        st = self._rng.bit_generator.state
        b = (int(st["state"]["state"]).to_bytes(16, "little")
             + int(st["state"]["inc"]).to_bytes(16, "little")
             + bytes([int(st["has_uint32"])]) + int(st["uinteger"]).to_bytes(4, "little"))
        return _finish(np.frombuffer(b, np.uint8).copy(), False)

    def set_state(self, new_state):
        """Restore a state from :meth:`get_state`; ``TypeError``/``RuntimeError`` for
        anything else."""
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


def manual_seed(seed):
    """Seed the default generator and, when CuPy sees a GPU, the GPU's (results are
    reproducible, not PyTorch's numbers); returns the default generator."""
    g = default_generator.manual_seed(seed)
    if cuda._state["cupy"] is not None or not cuda._state["checked"]:
        cuda.manual_seed_all(int(seed))
    return g


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state (a uint8 tensor)."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restore the default generator's state from :func:`get_rng_state`."""
    default_generator.set_state(new_state)


def _finish(data, requires_grad, device=None):
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


def set_default_device(device):
    """Device of the tensors factories create when given no ``device`` (None or "cpu":
    the CPU; "cuda" needs CuPy and a GPU -- checked when a factory runs, as in PyTorch)."""
    _default_device[0] = None if device is None else (
        device if isinstance(device, _device) else _device(str(device)))


def get_default_device():
    """The default device of the factories (``device(type='cpu')`` unless set)."""
    d = _default_device[0]
    if d is None or d.type == "cpu":
        return _device("cpu")
    check_device(d)
    return _device("cuda", d.index if d.index is not None else 0)


def _size(size):
    if len(size) == 1 and not isinstance(size[0], (int, np.integer)):
        size = size[0]
    return tuple(int(s) for s in size)


def _fdt(dtype):
    return D.get_default_dtype().np if dtype is None else D.to_np(dtype)


def _infer_np(data):
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


def _convert(obj):
    """Nested Python data -> (array, inferred dtype)."""
    if isinstance(obj, Tensor):
        return obj._data
    if isinstance(obj, np.ndarray):
        return obj
    if isinstance(obj, (list, tuple)):
        return [_convert(o) for o in obj]
    return obj


def _pick(a_py):
    """PyTorch's dtype for nested data: the promotion (``promote_types``) of the element
    dtypes, where a Python bool is bool, an int int64, a float the default float dtype, a
    complex the default complex dtype, and NumPy scalars and arrays keep their dtype."""
    found = []

    def walk(o):
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


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor (always a copy) from nested sequences, a NumPy array or a number."""
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


def as_tensor(data, dtype=None, device=None):
    """A tensor sharing memory with ``data`` when possible (a NumPy array or a tensor of the
    same dtype)."""
    if isinstance(data, Tensor):
        if dtype is None or D.to_np(dtype) == data._data.dtype:
            return data
        return data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or D.to_np(dtype) == data.dtype):
        D.from_np(data.dtype)
        return _finish(data, False, device)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(ndarray):
    """A tensor sharing memory with a NumPy array."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    D.from_np(ndarray.dtype)
    return _finish(ndarray, False)


def _factory(fill):
    def f(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None):
        return _finish(fill(_size(size), _fdt(dtype)), requires_grad, device)
    return f


zeros = _factory(np.zeros)
ones = _factory(np.ones)
empty = _factory(np.zeros)  # zero-filled: uninitialized memory is never exposed


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, out=None,
         layout=None, pin_memory=False):
    if dtype is None:
        dtype_np = _infer_np(fill_value) or D.get_default_dtype().np
    else:
        dtype_np = D.to_np(dtype)
    return _finish(np.full(_size((size,)) if not isinstance(size, int) else (size,),
                           fill_value, dtype_np), requires_grad, device)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False,
           out=None, layout=None, pin_memory=False):
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
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


def _check_range(start, end, step):
    """torch.arange's RuntimeErrors for a range it cannot build."""
    if step == 0:
        raise RuntimeError("step must be nonzero")
    for v in (start, end):
        if isinstance(v, float) and not math.isfinite(v):
            raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")


def _check_steps(name, start, end, steps):
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


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, out=None,
             layout=None):
    _check_steps("linspace", start, end, steps)
    return _finish(np.linspace(float(start), float(end), int(steps)).astype(_fdt(dtype)),
                   requires_grad, device)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    _check_steps("logspace", start, end, steps)
    return _finish(np.logspace(float(start), float(end), int(steps), base=base)
                   .astype(_fdt(dtype)), requires_grad, device)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, out=None, layout=None):
    for name, v in (("n", n), ("m", m)):
        if v is not None and v < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {v}")
    return _finish(np.eye(n, n if m is None else m, dtype=_fdt(dtype)), requires_grad, device)


def _gen(generator):
    return (generator or default_generator)._rng


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None,
         layout=None, pin_memory=False):
    npdt = _fdt(dtype)
    return _finish(_gen(generator).random(_size(size)).astype(npdt), requires_grad, device)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None,
          layout=None, pin_memory=False):
    npdt = _fdt(dtype)
    g = _gen(generator)
    if npdt.kind == "c":
        s = _size(size)
        arr = ((g.standard_normal(s) + 1j * g.standard_normal(s)) / np.sqrt(2)).astype(npdt)
    else:
        arr = g.standard_normal(_size(size)).astype(npdt)
    return _finish(arr, requires_grad, device)


def randint(low=0, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad=False):
    """``torch.randint(high, size)`` or ``torch.randint(low, high, size)``."""
    if size is None and isinstance(high, (tuple, list)):   # randint(high, size)
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing the required argument 'size' (a tuple of ints)")
    npdt = np.dtype(np.int64) if dtype is None else D.to_np(dtype)
    return _finish(_gen(generator).integers(low, high, size=tuple(size)).astype(npdt),
                   requires_grad, device)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    npdt = np.dtype(np.int64) if dtype is None else D.to_np(dtype)
    return _finish(_gen(generator).permutation(n).astype(npdt), requires_grad, device)


def _like(fill):
    def f(input, *, dtype=None, device=None, requires_grad=False, layout=None,
          memory_format=None):
        npdt = input._data.dtype if dtype is None else D.to_np(dtype)
        return _finish(fill(input._data.shape, npdt), requires_grad, device)
    return f


zeros_like = _like(np.zeros)
ones_like = _like(np.ones)
empty_like = _like(np.zeros)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
              memory_format=None):
    npdt = input._data.dtype if dtype is None else D.to_np(dtype)
    return _finish(np.full(input._data.shape, fill_value, npdt), requires_grad, device)


def rand_like(input, *, dtype=None, device=None, requires_grad=False, layout=None,
              memory_format=None):
    return rand(input._data.shape, dtype=input.dtype if dtype is None else dtype,
                requires_grad=requires_grad, device=device)


def randn_like(input, *, dtype=None, device=None, requires_grad=False, layout=None,
               memory_format=None):
    return randn(input._data.shape, dtype=input.dtype if dtype is None else dtype,
                 requires_grad=requires_grad, device=device)


def randint_like(input, low=0, high=None, *, dtype=None, device=None, requires_grad=False):
    if high is None:
        low, high = 0, low
    return randint(low, high, input._data.shape, dtype=input.dtype if dtype is None else dtype,
                   device=device)
