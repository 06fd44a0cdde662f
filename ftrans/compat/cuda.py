"""``ftrans.compat.cuda``: PyTorch's ``torch.cuda`` namespace over CuPy.

With CuPy installed and an NVIDIA GPU visible, ``is_available()`` is True and tensors
created with ``device="cuda"`` (or moved with ``.cuda()``/``.to("cuda")``) hold CuPy
arrays, which the kernels dispatch on (DESIGN.md, "Kernels and devices").  Without them,
``is_available()`` is False, ``device_count()`` is 0, the seeding functions do nothing
(as in a CPU build of PyTorch) and anything that needs a GPU raises PyTorch's
``AssertionError("Torch not compiled with CUDA enabled")``.
"""
from __future__ import annotations

__all__ = ["is_available", "device_count", "current_device", "set_device", "device",
           "get_device_name", "synchronize", "empty_cache", "manual_seed", "manual_seed_all",
           "seed", "seed_all", "initial_seed", "is_initialized", "memory_allocated"]

_NOT_COMPILED = "Torch not compiled with CUDA enabled"
_state = {"checked": False, "cupy": None, "count": 0, "seed": None}


def _cupy():
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


def _lazy_init():
    """CuPy, or PyTorch's ``AssertionError`` of a build without CUDA."""
    cp = _cupy()
    if cp is None:
        raise AssertionError(_NOT_COMPILED)
    return cp


def is_available() -> bool:
    """True when CuPy is installed and at least one GPU is visible."""
    return _cupy() is not None


def is_initialized() -> bool:
    return _cupy() is not None


def device_count() -> int:
    """The number of visible GPUs (0 without CuPy or a GPU)."""
    _cupy()
    return _state["count"]


def current_device() -> int:
    return int(_lazy_init().cuda.runtime.getDevice())


def set_device(dev) -> None:
    idx = dev if isinstance(dev, int) else (getattr(dev, "index", None) or 0)
    _lazy_init().cuda.runtime.setDevice(int(idx))


class device:
    """Context manager selecting a GPU (``torch.cuda.device``)."""

    def __init__(self, dev):
        self.idx = dev if isinstance(dev, int) else (getattr(dev, "index", None) or 0)
        self.prev = None

    def __enter__(self):
        cp = _lazy_init()
        self.prev = cp.cuda.runtime.getDevice()
        cp.cuda.runtime.setDevice(self.idx)

    def __exit__(self, *exc):
        _lazy_init().cuda.runtime.setDevice(self.prev)
        return False


def get_device_name(dev=None) -> str:
    cp = _lazy_init()
    idx = current_device() if dev is None else (dev if isinstance(dev, int) else
                                                (getattr(dev, "index", None) or 0))
    name = cp.cuda.runtime.getDeviceProperties(idx)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def synchronize(dev=None) -> None:
    _lazy_init().cuda.Device().synchronize()


def empty_cache() -> None:
    cp = _cupy()
    if cp is not None:
        cp.get_default_memory_pool().free_all_blocks()


def memory_allocated(dev=None) -> int:
    cp = _cupy()
    return 0 if cp is None else int(cp.get_default_memory_pool().used_bytes())


def manual_seed(seed) -> None:
    """Seed the GPU generator (CuPy's); silently nothing without a GPU, as in PyTorch."""
    _state["seed"] = int(seed)
    cp = _cupy()
    if cp is not None:
        cp.random.seed(int(seed) % (2 ** 32))


manual_seed_all = manual_seed


def seed() -> None:
    import numpy as np
    manual_seed(int(np.random.SeedSequence().entropy % (2 ** 32)))


seed_all = seed


def initial_seed() -> int:
    _lazy_init()
    return _state["seed"] if _state["seed"] is not None else 0


# ------------------------------------------------------------------ host <-> device
def to_device_array(arr, dev):
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
