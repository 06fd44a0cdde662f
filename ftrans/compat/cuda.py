"""``ftrans.compat.cuda``: PyTorch's ``torch.cuda`` namespace over CuPy.

With CuPy installed and an NVIDIA GPU visible, ``is_available()`` is True and tensors
created with ``device="cuda"`` (or moved with ``.cuda()``/``.to("cuda")``) hold CuPy
arrays, which the kernels dispatch on (DESIGN.md, "Kernels and devices").  Without them,
``is_available()`` is False, ``device_count()`` is 0, the seeding functions do nothing
(as in a CPU build of PyTorch) and anything that needs a GPU raises PyTorch's
``AssertionError("Torch not compiled with CUDA enabled")``.
"""
from __future__ import annotations

from types import ModuleType
from typing import Any, Literal, cast

import numpy as np

__all__ = ["is_available", "device_count", "current_device", "set_device", "device",
           "get_device_name", "synchronize", "empty_cache", "manual_seed", "manual_seed_all",
           "seed", "seed_all", "initial_seed", "is_initialized", "memory_allocated"]

_NOT_COMPILED = "Torch not compiled with CUDA enabled"
_state: dict[str, Any] = {"checked": False, "cupy": None, "count": 0, "seed": None}


def _index(dev: object) -> int:
    return dev if isinstance(dev, int) else (getattr(dev, "index", None) or 0)


def _cupy() -> ModuleType | None:
    """The CuPy module when CuPy imports and sees a GPU, else None (checked once)."""
    if not _state["checked"]:
        _state["checked"] = True
        try:
            import cupy
            n = int(cupy.cuda.runtime.getDeviceCount())
        except Exception:  # noqa: BLE001 - no CuPy, no driver, no device: all mean "none"
            cupy, n = None, 0
        if n > 0:
            _state["cupy"], _state["count"] = cupy, n
    return _state["cupy"]


def _lazy_init() -> Any:
    """CuPy, or PyTorch's ``AssertionError`` of a build without CUDA."""
    cp = _cupy()
    if cp is None:
        raise AssertionError(_NOT_COMPILED)
    return cp


def is_available() -> bool:
    """Whether a GPU can be used (``torch.cuda.is_available``).

    Returns
    -------
    bool
        True when CuPy is installed and at least one GPU is visible.
    """
    return _cupy() is not None


def is_initialized() -> bool:
    """Whether CUDA is initialized (``torch.cuda.is_initialized``).

    Returns
    -------
    bool
        As :func:`is_available` (CuPy initializes on first use).
    """
    return _cupy() is not None


def device_count() -> int:
    """The number of visible GPUs (``torch.cuda.device_count``).

    Returns
    -------
    int
        0 without CuPy or a GPU.
    """
    _cupy()
    return _state["count"]


def current_device() -> int:
    """The index of the current GPU (``torch.cuda.current_device``).

    Returns
    -------
    int
        The index.

    Raises
    ------
    AssertionError
        Without a GPU (PyTorch's "Torch not compiled with CUDA enabled").
    """
    return int(_lazy_init().cuda.runtime.getDevice())


def set_device(dev: object) -> None:
    """Select the current GPU (``torch.cuda.set_device``).

    Parameters
    ----------
    dev : device or int
        The GPU.

    Raises
    ------
    AssertionError
        Without a GPU (PyTorch's "Torch not compiled with CUDA enabled").
    """
    _lazy_init().cuda.runtime.setDevice(int(_index(dev)))


class device:
    """Context manager selecting a GPU (``torch.cuda.device``).

    Parameters
    ----------
    dev : device or int
        The GPU selected inside the block.
    """

    def __init__(self, dev: object) -> None:
        self.idx = _index(dev)
        self.prev: int | None = None

    def __enter__(self) -> None:
        cp = _lazy_init()
        self.prev = cp.cuda.runtime.getDevice()
        cp.cuda.runtime.setDevice(self.idx)

    def __exit__(self, *exc: object) -> Literal[False]:
        _lazy_init().cuda.runtime.setDevice(self.prev)
        return False


def get_device_name(dev: object = None) -> str:
    """The name of a GPU (``torch.cuda.get_device_name``).

    Parameters
    ----------
    dev : device or int, optional
        The GPU; the current one by default.

    Returns
    -------
    str
        The device's name.

    Raises
    ------
    AssertionError
        Without a GPU (PyTorch's "Torch not compiled with CUDA enabled").
    """
    cp = _lazy_init()
    idx = current_device() if dev is None else _index(dev)
    name = cp.cuda.runtime.getDeviceProperties(idx)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def synchronize(dev: object = None) -> None:
    """Wait for the current GPU's work to finish (``torch.cuda.synchronize``).

    Parameters
    ----------
    dev : device or int, optional
        Accepted for PyTorch's signature; the current GPU is synchronized.

    Raises
    ------
    AssertionError
        Without a GPU (PyTorch's "Torch not compiled with CUDA enabled").
    """
    _lazy_init().cuda.Device().synchronize()


def empty_cache() -> None:
    """Free the cached blocks of CuPy's memory pool (``torch.cuda.empty_cache``)."""
    cp = _cupy()
    if cp is not None:
        cp.get_default_memory_pool().free_all_blocks()


def memory_allocated(dev: object = None) -> int:
    """The bytes in use in CuPy's memory pool (``torch.cuda.memory_allocated``).

    Parameters
    ----------
    dev : device or int, optional
        Accepted for PyTorch's signature; the default pool is read.

    Returns
    -------
    int
        0 without a GPU.
    """
    cp = _cupy()
    return 0 if cp is None else int(cp.get_default_memory_pool().used_bytes())


def manual_seed(seed: int) -> None:
    """Seed the GPU generator, CuPy's (``torch.cuda.manual_seed``, ``manual_seed_all``).

    Silently nothing without a GPU, as in PyTorch.

    Parameters
    ----------
    seed : int
        The seed.
    """
    _state["seed"] = int(seed)
    cp = _cupy()
    if cp is not None:
        cp.random.seed(int(seed) % (2 ** 32))


manual_seed_all = manual_seed


def seed() -> None:
    """Seed the GPU generator from fresh entropy (``torch.cuda.seed``, ``seed_all``)."""
    manual_seed(cast(int, np.random.SeedSequence().entropy) % (2 ** 32))


seed_all = seed


def initial_seed() -> int:
    """The GPU generator's seed (``torch.cuda.initial_seed``).

    Returns
    -------
    int
        The last seed set (0 if none).

    Raises
    ------
    AssertionError
        Without a GPU (PyTorch's "Torch not compiled with CUDA enabled").
    """
    _lazy_init()
    return _state["seed"] if _state["seed"] is not None else 0


# ------------------------------------------------------------------ host <-> device
def to_device_array(arr: Any, dev: Any) -> Any:
    """``arr`` (NumPy or CuPy) on ``dev`` (a compat ``device``)."""
    if dev.type == "cuda":
        cp = _lazy_init()
        if dev.index is not None:
            with cp.cuda.Device(dev.index):
                return cp.asarray(arr)
        return cp.asarray(arr)
    if hasattr(arr, "get") and not hasattr(arr, "__array_interface__"):
        return arr.get()
    return arr
