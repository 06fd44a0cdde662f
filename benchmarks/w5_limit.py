"""W5's practical limits, as extra columns of ``benchmarks/run.py``'s W5 rows.

* **numba prange**: a hand-written ``@njit(parallel=True)`` kernel that computes W5's value
  ``sum(sin(x) * exp(-x*x))`` and gradient ``e * (cos(x) - 2*x*sin(x))``, ``e =
  exp(-x*x)``, in one pass over memory.  The array is cut into ``CHUNKS_PER_THREAD``
  chunks per numba thread, each a multiple of 8 float64 (64 bytes, one cache line) long,
  so two threads never write the same cache line of the gradient, and each chunk's
  partial sum goes to its own cache line of ``partial``.  fastmath off (as ftrans):
  libm's scalar ``sin``/``cos``/``exp``.  The output array is allocated on every call,
  as every library's gradient is.
* **prange vec-math**: the same kernel with the float64 ``sin``/``cos`` and ``exp`` that
  ftrans's compiled code uses (``ftrans.kernels._trig64._trig_sincos``: fdlibm's kernels
  written branch-free, faithfully rounded; ``ftrans.compiler._numba_support._exp``, a
  branch-free exp), so that LLVM vectorizes the loop, in blocks of
  ``_TRIG_BLOCK`` elements whose sin/cos are recomputed with libm when the block holds an
  ``|x| >= 2**20``, an inf or a nan (as ftrans does); each block's values are summed in
  order from L1 afterwards (a float sum in the vectorized loop would keep it scalar
  without fastmath).  libm's ``sin``/``cos``/``exp`` are scalar calls: the first kernel
  runs one element at a time, and this one is the limit for code computing with
  ftrans's mathematics.  Both kernels compute the value too (``grad`` of ``ftrans.jit``
  and ``jax.jit`` drop it: it is not an output).
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
    from ftrans.compiler._numba_support import _exp, _trig_sincos  # registered with numba
    from ftrans.kernels._trig64 import _TRIG_BLOCK, _TRIG_LIMIT
except Exception:  # pragma: no cover - depends on the environment
    numba = None

CHUNKS_PER_THREAD = 4
LINE = 8  # float64 per 64-byte cache line

if numba is not None:
    # The loops index slices of the chunk (xb[i], gb[i]): indexing the whole arrays from
    # lo to hi inside the prange body ran 100x slower per element at 65,536 elements.
    @numba.njit(parallel=True, fastmath=False)
    def _w5_value_and_grad(x, nchunks):
        n = x.shape[0]
        g = np.empty_like(x)
        partial = np.zeros(nchunks * LINE)
        chunk = (n + nchunks - 1) // nchunks
        chunk = (chunk + LINE - 1) // LINE * LINE
        for c in numba.prange(nchunks):
            xb = x[c * chunk:(c + 1) * chunk]
            gb = g[c * chunk:(c + 1) * chunk]
            acc = 0.0
            for i in range(xb.shape[0]):
                xi = xb[i]
                s = np.sin(xi)
                e = np.exp(-xi * xi)
                acc += s * e
                gb[i] = e * (np.cos(xi) - 2.0 * xi * s)
            partial[c * LINE] = acc
        value = 0.0
        for c in range(nchunks):
            value += partial[c * LINE]
        return value, g

    @numba.njit(parallel=True, fastmath=False)
    def _w5_value_and_grad_vec(x, nchunks):
        n = x.shape[0]
        g = np.empty_like(x)
        partial = np.zeros(nchunks * LINE)
        chunk = (n + nchunks - 1) // nchunks
        chunk = (chunk + _TRIG_BLOCK - 1) // _TRIG_BLOCK * _TRIG_BLOCK
        # per chunk, its current block's sin(x)*exp(-x*x), read back from L1.  (Allocated
        # here: numba hoists an np.empty out of a prange body, so the threads would share it.)
        vs = np.empty((nchunks, _TRIG_BLOCK))
        for c in numba.prange(nchunks):
            acc = 0.0
            vb = vs[c]
            for lo in range(c * chunk, min(n, (c + 1) * chunk), _TRIG_BLOCK):
                xb = x[lo:lo + _TRIG_BLOCK]
                gb = g[lo:lo + _TRIG_BLOCK]
                m = xb.shape[0]
                bad = False
                for i in range(m):  # vectorized: no calls, no branches, no float sum
                    xi = xb[i]
                    s, co = _trig_sincos(xi)
                    e = _exp(-xi * xi)
                    vb[i] = s * e
                    gb[i] = e * (co - 2.0 * xi * s)
                    bad |= not (abs(xi) < _TRIG_LIMIT)
                if bad:  # |x| >= 2**20, inf, nan: this block again with libm
                    for i in range(m):
                        xi = xb[i]
                        s = np.sin(xi)
                        e = np.exp(-xi * xi)
                        vb[i] = s * e
                        gb[i] = e * (np.cos(xi) - 2.0 * xi * s)
                for i in range(m):  # the sum in order (without fastmath's reassoc)
                    acc += vb[i]
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
    """Add the ``numba prange``, ``prange vec-math`` and ``torch.compile`` columns of W5 for input ``x``."""
    if numba is None:
        available["numba prange"] = available["prange vec-math"] = "n/a (numba not installed)"
    else:
        nchunks = CHUNKS_PER_THREAD * numba.get_num_threads()
        first_call("numba prange", lambda: _w5_value_and_grad(x, nchunks)[1], impls, available)
        first_call("prange vec-math", lambda: _w5_value_and_grad_vec(x, nchunks)[1], impls,
                   available)

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
