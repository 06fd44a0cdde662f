"""W5's practical limits, as extra columns of ``benchmarks/run.py``'s W5 rows.

* **numba prange**: a hand-written ``@njit(parallel=True)`` kernel that computes W5's value
  ``sum(sin(x) * exp(-x*x))`` and gradient ``e * (cos(x) - 2*x*sin(x))``, ``e =
  exp(-x*x)``, in one pass over memory.  The array is cut into ``CHUNKS_PER_THREAD``
  chunks per numba thread, each a multiple of 8 float64 (64 bytes, one cache line) long,
  so two threads never write the same cache line of the gradient, and each chunk's
  partial sum goes to its own cache line of ``partial``.  fastmath off (as ftrans):
  libm's scalar ``sin``/``cos``/``exp``.  The output array is allocated on every call,
  as every library's gradient is.
* **torch.compile**: ``torch.compile`` (inductor, its default backend) of the PyTorch W5
  loss; ``torch.autograd.grad`` then runs the compiled backward graph.  Inductor needs a
  C++ compiler; any failure (at compile time: the first call) is reported as
  ``"n/a (reason)"`` instead of a column.

Used by ``run.py`` (``add_w5_limits``); ``torch_compiled`` is also used for W6.
"""
from __future__ import annotations

import time

import numpy as np

try:
    import numba
except Exception:  # pragma: no cover - depends on the environment
    numba = None

CHUNKS_PER_THREAD = 4
LINE = 8  # float64 per 64-byte cache line

if numba is not None:
    @numba.njit(parallel=True, fastmath=False)
    def _w5_value_and_grad(x, nchunks):
        n = x.shape[0]
        g = np.empty_like(x)
        partial = np.zeros(nchunks * LINE)
        chunk = (n + nchunks - 1) // nchunks
        chunk = (chunk + LINE - 1) // LINE * LINE
        for c in numba.prange(nchunks):
            lo = c * chunk
            hi = min(n, lo + chunk)
            acc = 0.0
            for i in range(lo, hi):
                xi = x[i]
                s = np.sin(xi)
                e = np.exp(-xi * xi)
                acc += s * e
                g[i] = e * (np.cos(xi) - 2.0 * xi * s)
            partial[c * LINE] = acc
        value = 0.0
        for c in range(nchunks):
            value += partial[c * LINE]
        return value, g


def torch_compiled(torch, fn):
    """``(torch.compile(fn), None)``, or ``(None, "n/a (reason)")`` where torch.compile is
    absent; failures at the first call are the caller's to catch (``first_call``)."""
    if torch is None:
        return None, "n/a (torch not installed)"
    if not hasattr(torch, "compile"):
        return None, "n/a (this torch has no torch.compile)"
    return torch.compile(fn), None


def first_call(label, impl, impls, available):
    """Call ``impl`` once (compiling it); add it to ``impls`` as ``label``, or to
    ``available`` as ``"n/a (reason)"`` when the call raises.  Prints the time it took."""
    t = time.perf_counter()
    try:
        impl()
    except Exception as exc:  # inductor: no compiler, unsupported op, ... -- report, go on
        reason = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:120]}" \
            if str(exc).strip() else type(exc).__name__
        available[label] = f"n/a ({reason})"
        print(f"  {label}: first call failed: {reason}")
        return
    print(f"  {label} first call (compilation): {time.perf_counter() - t:.2f} s")
    impls[label] = impl


def add_w5_limits(x, impls, available, torch):
    """Add the ``numba prange`` and ``torch.compile`` columns of W5 for input ``x``."""
    if numba is None:
        available["numba prange"] = "n/a (numba not installed)"
    else:
        nchunks = CHUNKS_PER_THREAD * numba.get_num_threads()
        first_call("numba prange", lambda: _w5_value_and_grad(x, nchunks)[1], impls, available)

    def loss(xt):
        return torch.sum(torch.sin(xt) * torch.exp(-xt * xt))
    compiled, why = torch_compiled(torch, loss)
    if compiled is None:
        available["torch.compile"] = why
        return

    def torch_compile_grad():
        xt = torch.from_numpy(x).requires_grad_()
        (g,) = torch.autograd.grad(compiled(xt), xt)
        return g.numpy()
    first_call("torch.compile", torch_compile_grad, impls, available)
