"""Recycled output buffers for the large arrays of the CPU kernels.

A float64 array of 4*2**20 elements (32 MiB) is above glibc's largest mmap threshold, so
every such temporary is a fresh ``mmap`` whose pages the kernel zeroes on first touch:
writing one costs ~3-5 ms on the development VM, as much as or more than the arithmetic
(``np.multiply`` of two 4M float64 arrays: 6.5 ms into a fresh array, 3.3 ms into a
recycled one; ``np.exp``: 9.0 vs 3.9 ms).  An eager gradient allocates one such array per
operation (``benchmarks/bench_eager_large.py`` times W5 with and without the pool).  :func:`empty` hands out the memory of
arrays that died instead, the way PyTorch's CUDA caching allocator does:

* only for requests of at least ``POOL_MIN_BYTES`` (smaller ones are recycled by malloc);
* a buffer returns to the pool when the last array that uses its memory is freed (the
  array's ``base`` is a small lease object whose finalizer returns the memory);
* at most ``POOL_MAX_BYTES`` of free buffers are kept (beyond it they are freed), reused
  for requests of exactly their size only; :func:`clear` frees them all.

The arrays are ordinary writeable, C-contiguous, 64-byte aligned ndarrays (``base`` is
the lease, ``flags.owndata`` is False); their values are uninitialised, as ``np.empty``'s.
"""
from __future__ import annotations

import threading
from typing import Any

import numpy as np

#: Requests of fewer bytes get a plain ``np.empty`` (NumPy asks for transparent huge
#: pages from 4 MiB on; below it malloc's heap recycles the memory itself).
POOL_MIN_BYTES = 1 << 22
#: Free bytes the pool keeps at most.  The eager gradient of W5 (a 4M-element float64
#: elementwise chain) cycles through eight 32 MiB buffers: it allocates 5 fresh ones per
#: gradient with a 128 MiB bound, 1 with 256 MiB (the alignment padding), none from 384
#: MiB on.  The pool holds only what was freed: 256 MiB after W5, up to this bound.
POOL_MAX_BYTES = 1 << 29

_ALIGN = 64  # bytes: a cache line (chunk boundaries of the parallel kernels align to it)
_free: dict[int, list[np.ndarray]] = {}  # nbytes -> raw uint8 buffers not in use
_free_bytes = 0
# held only for a few list/int operations; a finalizer that finds it taken (a garbage
# collection run inside them) frees its buffer instead of waiting
_lock = threading.Lock()


class _Lease:
    """The ``base`` of an array handed out by :func:`empty`: returns the memory when freed."""

    __slots__ = ("__array_interface__", "_raw", "__weakref__")
    __array_interface__: dict[str, Any]
    _raw: np.ndarray

    def __del__(self) -> None:
        global _free_bytes
        raw = self._raw
        n = raw.nbytes
        lock = _lock
        if lock is None:  # (interpreter shutdown: module globals already cleared)
            return
        if lock.acquire(blocking=False):
            try:
                if _free_bytes + n <= POOL_MAX_BYTES:
                    _free.setdefault(n, []).append(raw)
                    _free_bytes += n
            finally:
                lock.release()


def empty(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """``np.empty(shape, dtype)`` (C order), from the pool when it is large enough.

    Parameters
    ----------
    shape : tuple of int
        Shape of the result.
    dtype : numpy.dtype
        A native-order dtype without fields.

    Returns
    -------
    numpy.ndarray
        Uninitialised C-contiguous array; at least ``POOL_MIN_BYTES`` of it come from
        (and go back to) the pool.
    """
    global _free_bytes
    dtype = np.dtype(dtype)
    nbytes = dtype.itemsize
    for d in shape:
        nbytes *= d
    if nbytes < POOL_MIN_BYTES:
        return np.empty(shape, dtype)
    size = nbytes + _ALIGN
    raw = None
    with _lock:
        buffers = _free.get(size)
        if buffers:
            raw = buffers.pop()
            _free_bytes -= size
    if raw is None:
        raw = np.empty(size, np.uint8)
    addr = raw.ctypes.data
    lease = _Lease()
    lease._raw = raw
    lease.__array_interface__ = {
        "shape": tuple(shape), "typestr": dtype.str, "version": 3,
        "data": (addr + (-addr) % _ALIGN, False),
    }
    return np.asarray(lease)


def cached_bytes() -> int:
    """Bytes of free buffers the pool holds now."""
    return _free_bytes


def clear() -> None:
    """Free every buffer the pool holds (arrays in use are not affected)."""
    global _free_bytes
    with _lock:
        _free.clear()
        _free_bytes = 0
