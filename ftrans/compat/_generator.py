"""The random generator (``torch.Generator``, ``manual_seed`` ...), the factories'
default device and the helpers every factory shares (``_finish``: a tensor of an array,
on the requested device).

Re-exported by :mod:`._factories`.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from . import _dtype as D
from . import cuda
from ._tensor import Tensor, _make_plain, check_device
from ._tensor import device as _device, _default_device
from .types import DeviceLike, DTypeArg


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


#: Set by :mod:`ftrans.compat._compile` while it stages a function: the NumPy generator
#: to draw from for a compat ``Generator`` (a recorder: each draw becomes an input of the
#: compiled program, replayed on the generator at every call).
_rng_hook: Callable[[Generator], Any] | None = None


def _gen(generator: Generator | None) -> np.random.Generator:
    gen = generator or default_generator
    return gen._rng if _rng_hook is None else _rng_hook(gen)
