"""Side-by-side benchmarks of ftrans against NumPy, PyTorch, JAX and HIPS autograd.

    PYTHONPATH=. python benchmarks/run.py                    # every workload
    PYTHONPATH=. python benchmarks/run.py --workloads W3 W4  # a subset
    PYTHONPATH=. python benchmarks/run.py --quick            # fewer samples (a smoke run)
    PYTHONPATH=. python benchmarks/run.py --repeats 15       # at least 15 samples each
    PYTHONPATH=. python benchmarks/run.py --wait-idle 300    # on a shared machine

Workloads (see benchmarks/README.md):

W1  per-op overhead: gradient of sum(y) where y = x, then 25 times
    y = tanh(sin(y)*0.9 + y*0.1), x a 16-vector of float64 (125 ops + sum).
    Target: ftrans <= 2.0x PyTorch eager.
W2  gradient of the mean softmax cross-entropy of a 784-512-512-10 tanh MLP on a batch
    of 256, float32, w.r.t. every weight and bias (a list of (W, b) pairs).
    Target: ftrans <= 1.2x a hand-written NumPy forward + backward.
W3  Hessian of f(x) = sum(tanh(A@x)**2) + sum(x**4), A a fixed random 200x200 float64
    matrix, x a random 200-vector: ftrans.hessian (= jacfwd(jacrev(f))) against
    torch.func.hessian (the same composition), jax.hessian (eager and jit), HIPS
    autograd's hessian and the analytic Hessian in NumPy.
    Target: ftrans <= 1.0x torch.func.
W4  per-example gradients ftrans.vmap(ftrans.grad(loss), in_axes=(None, 0, 0))(w, X, y)
    of loss(w, x, y) = softplus(-y * (x @ w)) (softplus written stably: logaddexp(0, z);
    torch.nn.functional.softplus for torch), batch 1024, dim 100, float64, against
    torch.func.vmap(torch.func.grad(loss)), jax.vmap(jax.grad(loss)) (eager and jit) and
    the analytic per-example gradient in NumPy.  Target: ftrans <= 1.0x torch.func.
W5  gradient of sum(sin(x)*exp(-x*x)) for x of 4*2**20 = 4,194,304 float64, and the
    same for x of 4,000,000 float64 (reported as W5@4e6).  Target: ftrans <= 1.0x
    PyTorch eager.  Why both sizes: a 4*2**20 float64 array takes 32 MiB plus a header,
    just above glibc's largest dynamic mmap threshold (32 MiB), so every temporary of
    that size is a fresh mmap that page-faults on first touch (PyTorch: ~106,000 minor
    faults per gradient; NumPy and ftrans fewer, NumPy asks for transparent huge pages)
    -- that size measures the allocator and the kernel's paging more than the library.
    At 4,000,000 elements the heap recycles the temporaries.  Three more columns give the
    practical limits (benchmarks/w5_limit.py): hand-written numba prange kernels of
    value and gradient in one pass, with libm ("numba prange") and with ftrans's
    vectorizable sin/cos/exp ("prange vec-math"), and torch.compile (inductor) of the
    PyTorch gradient.  Targets: ftrans.jit <= 1.3x the prange kernels, <= 1.0x
    torch.compile.
W6  gradient of a 100-step tanh RNN through lax.scan (batch 32, hidden 64, input 64,
    float64, loss = sum(h_T**2)) w.r.t. (Wh, Wx, b) (benchmarks/w6_rnn.py), against
    jax.lax.scan (eager and jit), a PyTorch eager loop, torch.compile of it and
    backpropagation through time in NumPy by hand.  Target: ftrans.jit <= 1.0x JAX jit.

Every implementation runs in this one process.  Before anything is timed, the script
checks the gradient of every implementation, ftrans included, against an independent
NumPy forward + analytic backward (max |diff| / max |ref| and the dtype) and prints it.

Timing: each implementation is warmed up (numba kernels compiled or loaded from the
cache, XLA programs compiled, thread pools started), then timed in *blocks*: in each of
at least 3 passes (more for fast workloads while the time budget lasts) every
implementation in turn gets one block of ``ceil(repeats / 3)`` samples.  A block starts
with a 0.2 s pause and 20 ms of untimed calls: the worker threads a library leaves
behind (OpenBLAS threads sched_yield-spin for ~0.1 s after each BLAS call, OpenMP and
XLA pools spin too) would otherwise take one of the 2 cores from the next library --
interleaving single samples of NumPy and PyTorch measured PyTorch at up to 2x its
stand-alone time.  So each column measures its library as if it ran alone, and the
passes spread slow drifts of a shared machine over all columns.  A sample times
``number`` back-to-back calls (so that it lasts at least 10 ms) and divides.  The figure
reported is the median over all samples (at least ``--repeats``); "min" is the fastest
sample and IQR/med the interquartile range relative to the median.  The garbage
collector stays enabled (its cost is part of a library's cost); it is run before every
sample, after a gc.freeze() of everything alive when timing starts (a full collection
costs ~0.1 s once torch and jax are imported).  Before timing, the script reports the
share of the CPU that *other* processes used (from /proc/stat), before and during the
timing; ``--wait-idle S`` waits up to S seconds for the machine to be idle and re-times
(twice at most) a workload that other processes disturbed.  Reference libraries that are not
importable are printed as "n/a (not installed)".
"""
from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

_t0 = time.perf_counter()
import ftrans  # noqa: E402
import ftrans.numpy as fnp  # noqa: E402
_IMPORT_S = time.perf_counter() - _t0
from timing import _busy_others, _cpu_snapshot, bench, check_idle  # noqa: E402  (benchmarks/)
from w5_limit import add_w5_limits  # noqa: E402
from w6_rnn import TITLE as W6_TITLE, w6_setup  # noqa: E402

# ---------------------------------------------------------------------------------------
# optional references
# ---------------------------------------------------------------------------------------
try:
    import torch
except Exception:  # pragma: no cover - depends on the environment
    torch = None
try:
    import jax
    jax.config.update("jax_enable_x64", True)  # W1, W3, W4, W5 and W6 are float64
    import jax.numpy as jnp
except Exception:  # pragma: no cover
    jax = jnp = None
try:
    import autograd
    import autograd.numpy as anp
except Exception:  # pragma: no cover
    autograd = anp = None
try:
    import numba
except Exception:  # pragma: no cover
    numba = None

NA = "n/a (not installed)"
LIMITS = True  # W5's numba prange and torch.compile columns (benchmarks/w5_limit.py)
TARGETS = {  # workload -> (reference column, maximal ftrans / reference)
    "W1": ("PyTorch eager", 2.0),
    "W2": ("NumPy by hand", 1.2),
    "W3": ("torch.func", 1.0),
    "W4": ("torch.func", 1.0),
    "W5": ("PyTorch eager", 1.0),
    "W5@4e6": ("PyTorch eager", 1.0),
}  # W6 has no target for eager ftrans
# (workload, reference column, maximal ftrans.jit / reference) beyond JAX jit
JIT_LIMITS = [(w, ref, t) for w in ("W5", "W5@4e6")
              for ref, t in (("numba prange", 1.3), ("prange vec-math", 1.3),
                             ("torch.compile", 1.0))]


def _version(modname):
    try:
        from importlib.metadata import version
        return version(modname)
    except Exception:
        return "?"


def rel_err(got, ref):
    """max |got - ref| / max |ref| over all leaves (pytrees of arrays)."""
    got = [np.asarray(g, dtype=np.float64) for g in _leaves(got)]
    ref = [np.asarray(r, dtype=np.float64) for r in _leaves(ref)]
    assert len(got) == len(ref), (len(got), len(ref))
    num = max(float(np.max(np.abs(g - r))) for g, r in zip(got, ref))
    den = max(float(np.max(np.abs(r))) for r in ref)
    return num / den


def _leaves(tree):
    if isinstance(tree, (list, tuple)):
        return [leaf for t in tree for leaf in _leaves(t)]
    if torch is not None and isinstance(tree, torch.Tensor):
        return [tree.detach().numpy()]
    return [np.asarray(tree)]


def _fmt_time(s):
    if s < 1e-3:
        return f"{s * 1e6:8.1f} us"
    if s < 1:
        return f"{s * 1e3:8.2f} ms"
    return f"{s:8.3f} s "


# ---------------------------------------------------------------------------------------
# W1: per-op overhead
# ---------------------------------------------------------------------------------------
W1_N, W1_STEPS = 16, 25
W1_OPS = 5 * W1_STEPS + 1  # sin, *0.9, *0.1, +, tanh per step; sum


def w1_setup():
    x = np.random.default_rng(0).standard_normal(W1_N)  # float64
    impls, available = {}, {}

    def f_ftrans(x):
        y = x
        for _ in range(W1_STEPS):
            y = fnp.tanh(fnp.sin(y) * 0.9 + y * 0.1)
        return fnp.sum(y)

    g_ftrans = ftrans.grad(f_ftrans)
    impls["ftrans"] = lambda: g_ftrans(x)
    jg_ftrans = ftrans.jit(ftrans.grad(f_ftrans))
    impls["ftrans.jit"] = lambda: jg_ftrans(x)

    if torch is not None:
        def torch_eager():
            xt = torch.from_numpy(x).requires_grad_()  # a fresh leaf per call (no zeroing)
            y = xt
            for _ in range(W1_STEPS):
                y = torch.tanh(torch.sin(y) * 0.9 + y * 0.1)
            y.sum().backward()
            return xt.grad.numpy()
        impls["PyTorch eager"] = torch_eager
    else:
        available["PyTorch eager"] = NA

    if jax is not None:
        def f_jax(x):
            y = x
            for _ in range(W1_STEPS):
                y = jnp.tanh(jnp.sin(y) * 0.9 + y * 0.1)
            return jnp.sum(y)
        xj = jnp.asarray(x)
        g_eager = jax.grad(f_jax)
        g_jit = jax.jit(jax.grad(f_jax))
        impls["JAX eager"] = lambda: g_eager(xj).block_until_ready()
        impls["JAX jit"] = lambda: g_jit(xj).block_until_ready()
    else:
        available["JAX eager"] = available["JAX jit"] = NA

    if autograd is not None:
        def f_ag(x):
            y = x
            for _ in range(W1_STEPS):
                y = anp.tanh(anp.sin(y) * 0.9 + y * 0.1)
            return anp.sum(y)
        g_ag = autograd.grad(f_ag)
        impls["HIPS autograd"] = lambda: g_ag(x)
    else:
        available["HIPS autograd"] = NA

    # reference for the check: the analytic chain rule in NumPy
    def numpy_grad():
        ys, y = [], x
        for _ in range(W1_STEPS):
            s = np.sin(y)
            t = np.tanh(s * 0.9 + y * 0.1)
            ys.append((y, t))
            y = t
        g = np.ones_like(x)
        for y, t in reversed(ys):
            g = g * (1 - t * t)
            g = g * (0.9 * np.cos(y) + 0.1)
        return g
    impls["NumPy by hand"] = numpy_grad
    return impls, available, "NumPy by hand", 1e-12


# ---------------------------------------------------------------------------------------
# W2: MLP softmax cross-entropy, float32
# ---------------------------------------------------------------------------------------
W2_SIZES = (784, 512, 512, 10)
W2_BATCH = 256


def w2_data():
    rng = np.random.default_rng(1)
    params = []
    for din, dout in zip(W2_SIZES[:-1], W2_SIZES[1:]):
        W = (rng.standard_normal((din, dout)) / np.sqrt(din)).astype(np.float32)
        b = (0.1 * rng.standard_normal(dout)).astype(np.float32)
        params.append((W, b))
    X = rng.standard_normal((W2_BATCH, W2_SIZES[0])).astype(np.float32)
    labels = rng.integers(0, W2_SIZES[-1], W2_BATCH)
    Y = np.zeros((W2_BATCH, W2_SIZES[-1]), np.float32)
    Y[np.arange(W2_BATCH), labels] = 1.0
    return params, X, Y, labels


def w2_numpy_grad(params, X, Y):
    """Hand-written forward + backward of the mean softmax cross-entropy, float32 throughout."""
    B = X.shape[0]
    hs = [X]
    h = X
    for W, b in params[:-1]:
        h = h @ W
        h += b
        np.tanh(h, out=h)
        hs.append(h)
    W, b = params[-1]
    logits = h @ W
    logits += b
    logits -= logits.max(axis=1, keepdims=True)
    np.exp(logits, out=logits)
    logits /= logits.sum(axis=1, keepdims=True)           # softmax
    d = logits
    d -= Y
    d *= np.float32(1.0 / B)                              # d loss / d logits
    grads = []
    for i in range(len(params) - 1, -1, -1):
        W, _ = params[i]
        hin = hs[i]
        gW = hin.T @ d
        gb = d.sum(axis=0)
        grads.append((gW, gb))
        if i > 0:
            d = d @ W.T
            d *= 1 - hin * hin                            # tanh'
    grads.reverse()
    return grads


def w2_setup():
    params, X, Y, labels = w2_data()
    B = W2_BATCH
    impls, available = {}, {}

    def loss_ftrans(params, X, Y):
        h = X
        for W, b in params[:-1]:
            h = fnp.tanh(h @ W + b)
        W, b = params[-1]
        logits = h @ W + b
        z = logits - fnp.max(logits, axis=1, keepdims=True)
        logp = z - fnp.log(fnp.sum(fnp.exp(z), axis=1, keepdims=True))
        return -fnp.sum(Y * logp) / B

    g_ftrans = ftrans.grad(loss_ftrans)
    impls["ftrans"] = lambda: g_ftrans(params, X, Y)
    jg_ftrans = ftrans.jit(ftrans.grad(loss_ftrans))
    impls["ftrans.jit"] = lambda: jg_ftrans(params, X, Y)
    impls["NumPy by hand"] = lambda: w2_numpy_grad(params, X, Y)

    if torch is not None:
        tparams = [(torch.from_numpy(W).requires_grad_(), torch.from_numpy(b).requires_grad_())
                   for W, b in params]
        flat = [p for wb in tparams for p in wb]
        tX, tY = torch.from_numpy(X), torch.from_numpy(Y)

        def torch_eager():
            h = tX
            for W, b in tparams[:-1]:
                h = torch.tanh(h @ W + b)
            W, b = tparams[-1]
            logits = h @ W + b
            z = logits - torch.amax(logits, dim=1, keepdim=True)
            logp = z - torch.log(torch.sum(torch.exp(z), dim=1, keepdim=True))
            loss = -torch.sum(tY * logp) / B
            gs = torch.autograd.grad(loss, flat)
            return [(gs[2 * i].numpy(), gs[2 * i + 1].numpy()) for i in range(len(tparams))]
        impls["PyTorch eager"] = torch_eager
    else:
        available["PyTorch eager"] = NA

    if jax is not None:
        def loss_jax(params, X, Y):
            h = X
            for W, b in params[:-1]:
                h = jnp.tanh(h @ W + b)
            W, b = params[-1]
            logits = h @ W + b
            z = logits - jnp.max(logits, axis=1, keepdims=True)
            logp = z - jnp.log(jnp.sum(jnp.exp(z), axis=1, keepdims=True))
            return -jnp.sum(Y * logp) / B
        jparams = [(jnp.asarray(W), jnp.asarray(b)) for W, b in params]
        jX, jY = jnp.asarray(X), jnp.asarray(Y)
        g_eager = jax.grad(loss_jax)
        g_jit = jax.jit(jax.grad(loss_jax))
        impls["JAX eager"] = lambda: jax.block_until_ready(g_eager(jparams, jX, jY))
        impls["JAX jit"] = lambda: jax.block_until_ready(g_jit(jparams, jX, jY))
    else:
        available["JAX eager"] = available["JAX jit"] = NA

    if autograd is not None:
        def loss_ag(params, X, Y):
            h = X
            for W, b in params[:-1]:
                h = anp.tanh(anp.dot(h, W) + b)
            W, b = params[-1]
            logits = anp.dot(h, W) + b
            z = logits - anp.max(logits, axis=1, keepdims=True)
            logp = z - anp.log(anp.sum(anp.exp(z), axis=1, keepdims=True))
            return -anp.sum(Y * logp) / B
        g_ag = autograd.grad(loss_ag)
        impls["HIPS autograd"] = lambda: g_ag(params, X, Y)
    else:
        available["HIPS autograd"] = NA
    # the NumPy backward is the independent reference for the check
    return impls, available, "NumPy by hand", 2e-5


# ---------------------------------------------------------------------------------------
# W5: large elementwise chain, float64
# ---------------------------------------------------------------------------------------
W5_SIZES = {"W5": 4 * 2 ** 20, "W5@4e6": 4_000_000}


def w5_setup(n):
    x = np.random.default_rng(5).uniform(-3, 3, n)  # float64
    impls, available = {}, {}

    def f_ftrans(x):
        return fnp.sum(fnp.sin(x) * fnp.exp(-x * x))

    g_ftrans = ftrans.grad(f_ftrans)
    impls["ftrans"] = lambda: g_ftrans(x)
    jg_ftrans = ftrans.jit(ftrans.grad(f_ftrans))
    impls["ftrans.jit"] = lambda: jg_ftrans(x)

    def numpy_grad():
        # value (forward) and analytic gradient e * (cos x - 2 x sin x), e = exp(-x*x)
        s = np.sin(x)
        e = np.negative(x)
        e *= x
        np.exp(e, out=e)
        np.dot(s, e)  # the forward value, which every framework computes too
        g = np.cos(x)
        s *= x
        s *= 2.0
        g -= s
        g *= e
        return g
    impls["NumPy by hand"] = numpy_grad

    if torch is not None:
        def torch_eager():
            xt = torch.from_numpy(x).requires_grad_()
            loss = torch.sum(torch.sin(xt) * torch.exp(-xt * xt))
            (g,) = torch.autograd.grad(loss, xt)
            return g.numpy()
        impls["PyTorch eager"] = torch_eager
    else:
        available["PyTorch eager"] = NA

    if jax is not None:
        def f_jax(x):
            return jnp.sum(jnp.sin(x) * jnp.exp(-x * x))
        xj = jnp.asarray(x)
        g_eager = jax.grad(f_jax)
        g_jit = jax.jit(jax.grad(f_jax))
        impls["JAX eager"] = lambda: g_eager(xj).block_until_ready()
        impls["JAX jit"] = lambda: g_jit(xj).block_until_ready()
    else:
        available["JAX eager"] = available["JAX jit"] = NA

    if autograd is not None:
        def f_ag(x):
            return anp.sum(anp.sin(x) * anp.exp(-x * x))
        g_ag = autograd.grad(f_ag)
        impls["HIPS autograd"] = lambda: g_ag(x)
    else:
        available["HIPS autograd"] = NA
    if LIMITS:  # not in the child that times a new process's first ftrans.jit call
        add_w5_limits(x, impls, available, torch)
    return impls, available, "NumPy by hand", 1e-12


# ---------------------------------------------------------------------------------------
# W3: Hessian of a small dense function, float64
# ---------------------------------------------------------------------------------------
W3_N = 200


def w3_setup():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((W3_N, W3_N)) / np.sqrt(W3_N)  # float64, fixed
    x = rng.standard_normal(W3_N)
    impls, available = {}, {}

    def f_ftrans(x):
        return fnp.sum(fnp.tanh(A @ x) ** 2) + fnp.sum(x ** 4)

    h_ftrans = ftrans.hessian(f_ftrans)
    impls["ftrans"] = lambda: h_ftrans(x)
    jh_ftrans = ftrans.jit(ftrans.hessian(f_ftrans))
    impls["ftrans.jit"] = lambda: jh_ftrans(x)

    def numpy_hessian():
        # f = sum(t**2) + sum(x**4), t = tanh(A x), s = 1 - t**2:
        # H = A^T diag(2 s**2 - 4 t**2 s) A + diag(12 x**2)
        t = np.tanh(A @ x)
        s = 1.0 - t * t
        d = s * (2.0 * s - 4.0 * t * t)
        H = (A.T * d) @ A
        H[np.diag_indices(W3_N)] += 12.0 * x * x
        return H
    impls["NumPy by hand"] = numpy_hessian

    if torch is not None:
        At, xt = torch.from_numpy(A), torch.from_numpy(x)

        def f_torch(x):
            return torch.sum(torch.tanh(At @ x) ** 2) + torch.sum(x ** 4)
        h_torch = torch.func.hessian(f_torch)  # jacfwd(jacrev(f)), as ftrans.hessian
        impls["torch.func"] = lambda: h_torch(xt).numpy()
    else:
        available["torch.func"] = NA

    if jax is not None:
        Aj, xj = jnp.asarray(A), jnp.asarray(x)

        def f_jax(x):
            return jnp.sum(jnp.tanh(Aj @ x) ** 2) + jnp.sum(x ** 4)
        h_eager = jax.hessian(f_jax)
        h_jit = jax.jit(jax.hessian(f_jax))
        impls["JAX eager"] = lambda: h_eager(xj).block_until_ready()
        impls["JAX jit"] = lambda: h_jit(xj).block_until_ready()
    else:
        available["JAX eager"] = available["JAX jit"] = NA

    if autograd is not None:
        def f_ag(x):
            return anp.sum(anp.tanh(anp.dot(A, x)) ** 2) + anp.sum(x ** 4)
        h_ag = autograd.hessian(f_ag)  # a Python loop over the gradient's entries
        impls["HIPS autograd"] = lambda: h_ag(x)
    else:
        available["HIPS autograd"] = NA
    return impls, available, "NumPy by hand", 1e-12


# ---------------------------------------------------------------------------------------
# W4: per-example gradients (vmap of grad), float64
# ---------------------------------------------------------------------------------------
W4_BATCH, W4_DIM = 1024, 100


def w4_setup():
    rng = np.random.default_rng(4)
    w = 0.1 * rng.standard_normal(W4_DIM)  # float64
    X = rng.standard_normal((W4_BATCH, W4_DIM))
    y = np.where(rng.standard_normal(W4_BATCH) < 0, -1.0, 1.0)
    impls, available = {}, {}

    def loss_ftrans(w, x, y):  # softplus(-y <x, w>), written stably
        return fnp.logaddexp(0.0, -y * (x @ w))

    g_ftrans = ftrans.vmap(ftrans.grad(loss_ftrans), in_axes=(None, 0, 0))
    impls["ftrans"] = lambda: g_ftrans(w, X, y)
    jg_ftrans = ftrans.jit(ftrans.vmap(ftrans.grad(loss_ftrans), in_axes=(None, 0, 0)))
    impls["ftrans.jit"] = lambda: jg_ftrans(w, X, y)

    def numpy_grads():
        # d/dw softplus(m), m = -y <x, w>: sigmoid(m) * (-y) * x, per example
        m = X @ w
        m *= -y
        c = np.exp(-np.logaddexp(0.0, -m))  # sigmoid(m), stably
        c *= -y
        return c[:, None] * X
    impls["NumPy by hand"] = numpy_grads

    if torch is not None:
        wt, Xt, yt = torch.from_numpy(w), torch.from_numpy(X), torch.from_numpy(y)

        def loss_torch(w, x, y):  # torch's own stable softplus (faster under vmap than
            return torch.nn.functional.softplus(-y * (x @ w))  # torch.logaddexp(0, z))
        g_torch = torch.func.vmap(torch.func.grad(loss_torch), in_dims=(None, 0, 0))
        impls["torch.func"] = lambda: g_torch(wt, Xt, yt).numpy()
    else:
        available["torch.func"] = NA

    if jax is not None:
        wj, Xj, yj = jnp.asarray(w), jnp.asarray(X), jnp.asarray(y)

        def loss_jax(w, x, y):
            return jnp.logaddexp(0.0, -y * (x @ w))
        g_eager = jax.vmap(jax.grad(loss_jax), in_axes=(None, 0, 0))
        g_jit = jax.jit(g_eager)
        impls["JAX eager"] = lambda: g_eager(wj, Xj, yj).block_until_ready()
        impls["JAX jit"] = lambda: g_jit(wj, Xj, yj).block_until_ready()
    else:
        available["JAX eager"] = available["JAX jit"] = NA
    available["HIPS autograd"] = "n/a (HIPS autograd has no vmap)"
    return impls, available, "NumPy by hand", 1e-12


# --workloads key -> [(variant, title, setup)]
WORKLOADS = {
    "W1": [("W1", "per-op overhead: grad of sum(y), y = x then 25 x "
            f"[y = tanh(sin(y)*0.9 + y*0.1)], x: {W1_N} float64 (125 ops + sum)", w1_setup)],
    "W2": [("W2", f"grad of softmax cross-entropy, tanh MLP {'-'.join(map(str, W2_SIZES))}, "
            f"batch {W2_BATCH}, float32, w.r.t. 6 params", w2_setup)],
    "W3": [("W3", f"hessian of sum(tanh(A@x)**2) + sum(x**4), A: {W3_N}x{W3_N}, x: {W3_N}, "
            "float64", w3_setup)],
    "W4": [("W4", "per-example gradients vmap(grad(loss), in_axes=(None, 0, 0)), "
            f"loss = softplus(-y * (x @ w)), batch {W4_BATCH}, dim {W4_DIM}, float64",
            w4_setup)],
    "W5": [("W5", f"grad of sum(sin(x)*exp(-x*x)), x: 4*2**20 = {W5_SIZES['W5']:,} float64",
            lambda: w5_setup(W5_SIZES["W5"])),
           ("W5@4e6", f"grad of sum(sin(x)*exp(-x*x)), x: 4,000,000 = {W5_SIZES['W5@4e6']:,} "
            "float64", lambda: w5_setup(W5_SIZES["W5@4e6"]))],
    "W6": [("W6", W6_TITLE, lambda: w6_setup(torch, jax, jnp, NA))],
}
# column order in the tables
ORDER = ["ftrans", "ftrans.jit", "NumPy by hand", "numba prange", "prange vec-math",
         "PyTorch eager", "torch.func", "torch.compile", "JAX eager", "JAX jit",
         "HIPS autograd"]
# ftrans.jit against JAX jit (issue 10): workload -> maximal ftrans.jit / JAX jit
JIT_TARGETS = {"W1": 1.0, "W2": 1.0, "W3": 1.5, "W4": 1.5, "W5": 1.0, "W5@4e6": 1.0, "W6": 1.0}
# per workload: time budget in seconds for passes beyond the first 3
BUDGET = {"W1": 8.0, "W2": 8.0, "W3": 6.0, "W4": 6.0, "W5": 4.0, "W5@4e6": 4.0, "W6": 6.0}


RETRIES = 2  # with --wait-idle: times a workload disturbed by other processes is re-timed


def run_workload(key, title, setup, repeats, quick, wait):
    print(f"\n=== {key}: {title}")
    impls, missing, check_ref, tol = setup()

    # correctness first: every implementation against the check reference
    grads = {}
    for label, fn in impls.items():
        t = time.perf_counter()
        grads[label] = fn()
        if label == "ftrans":
            print(f"  ftrans first call (tracing + numba compile/cache load): "
                  f"{_fmt_time(time.perf_counter() - t).strip()}")
        if label == "ftrans.jit":
            jit_first = time.perf_counter() - t
            print(f"  ftrans.jit first call in this process (trace + generate + numba compile, "
                  f"FTRANS_CACHE_DIR={os.environ.get('FTRANS_CACHE_DIR')}): "
                  f"{_fmt_time(jit_first).strip()}")
            cached = jit_first_call_new_process(key)
            if cached is not None:
                print(f"  ftrans.jit first call in a NEW process (cache on disk; after "
                      f"imports of ftrans, numba and scipy.linalg, which took "
                      f"{cached['import_s']:.2f} s): "
                      f"{_fmt_time(cached['first_call_s']).strip()} (numba's own start-up "
                      f"{_fmt_time(cached['numba_init_s']).strip()} + the call "
                      f"{_fmt_time(cached['first_call_s'] - cached['numba_init_s']).strip()})")
    ok = True
    ref = grads[check_ref]
    for label in ORDER:
        if label not in grads or label == check_ref:
            continue
        err = rel_err(grads[label], ref)
        dts = sorted({str(np.asarray(leaf).dtype) for leaf in _leaves(grads[label])})
        good = err <= tol and dts == sorted({str(leaf.dtype) for leaf in _leaves(ref)})
        ok &= good
        print(f"  check: {label:<14} vs {check_ref:<14} max|diff|/max|ref| = {err:.2e} "
              f"(tol {tol:.0e}), dtype {'/'.join(dts)}: {'OK' if good else 'MISMATCH'}")
    if not ok:
        print("  !! gradients disagree: timings below are not comparable")

    budget = 0.0 if quick else BUDGET[key]
    for attempt in range(1 + RETRIES if wait > 0 else 1):
        check_idle(wait)
        snap = _cpu_snapshot()
        res = bench(impls, repeats, budget)
        others = _busy_others(snap, _cpu_snapshot())
        if others is None or others < 0.1 or attempt == RETRIES or wait <= 0:
            break
        print(f"  other processes used {others * 100:.0f}% of the CPU during the timing: "
              f"timing again (--wait-idle retries a disturbed workload {RETRIES} times)")
    ft = res["ftrans"][0]
    rounds = res["ftrans"][2]
    print(f"  median of {rounds} samples per implementation (blocks of "
          f"{math.ceil(repeats / 3)} in turn, in >= 3 passes)"
          + (f"; other processes used {others * 100:.0f}% of the CPU meanwhile"
             if others is not None else ""))
    print(f"  {'implementation':<15} {'median':>11} {'min':>11} {'IQR/med':>8} "
          f"{'calls/sample':>13}  {'ftrans / this':>13}  {'ftrans.jit / this':>17}")
    jt = res["ftrans.jit"][0] if "ftrans.jit" in res else None
    for label in ORDER:
        if label in res:
            med, iqr, _, number, mn = res[label]
            ratio = "" if label == "ftrans" else f"{ft / med:12.2f}x"
            jratio = "" if (label == "ftrans.jit" or jt is None) else f"{jt / med:16.2f}x"
            print(f"  {label:<15} {_fmt_time(med):>11} {_fmt_time(mn):>11} {iqr * 100:7.1f}% "
                  f"{number:>13}  {ratio:>13}  {jratio:>17}")
        elif label in missing:
            print(f"  {label:<15} {missing[label]}")
    if key == "W1":
        per_op = {label: res[label][0] / W1_OPS * 1e6 for label in ORDER if label in res}
        print(f"  per op (forward + backward, over the {W1_OPS} ops = 125 + sum): "
              + ", ".join(f"{label} {us:.2f} us" for label, us in per_op.items()))
    return res, ok


def jit_first_call_new_process(key):
    """Time the first ``ftrans.jit`` call of workload ``key`` in a fresh Python process
    that finds the compiled program in the disk cache (``FTRANS_CACHE_DIR``)."""
    import json
    import subprocess
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--jit-first-call", key],
                       capture_output=True, text=True, env=dict(os.environ))
    try:
        return json.loads(r.stdout.strip().splitlines()[-1])
    except Exception:
        print(f"  (new-process first call failed: {r.stderr.strip()[-300:]})")
        return None


def _jit_first_call_child(key):
    global torch, jax, jnp, autograd, anp, LIMITS
    torch = jax = jnp = autograd = anp = None  # the references are not needed here
    LIMITS = False  # nor the numba prange kernel, which would start numba before the timing
    import json
    t0 = time.perf_counter()
    # ftrans imports numba lazily, and numba imports scipy.linalg (for BLAS) the first time
    # it compiles or loads a function: both counted as imports, reported separately
    import numba  # noqa: F401
    import scipy.linalg  # noqa: F401
    import_s = time.perf_counter() - t0 + _IMPORT_S
    setup = {k: st for v in WORKLOADS.values() for k, _, st in v}[key]
    impls = setup()[0]
    from ftrans.compiler._numba_support import _noop
    t = time.perf_counter()
    _noop(1.0)  # numba's own start-up (typing and target registries), paid once per process
    t1 = time.perf_counter()
    impls["ftrans.jit"]()
    t2 = time.perf_counter()
    print(json.dumps({"first_call_s": t2 - t, "numba_init_s": t1 - t, "import_s": import_s}))


def header(args):
    print("ftrans benchmarks --", datetime.datetime.now().strftime("%Y-%m-%d %H:%M"))
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}")
    print(f"python {platform.python_version()}, numpy {np.__version__}, ftrans "
          f"{ftrans.__version__}")
    if numba is not None:
        print(f"numba {numba.__version__}: {numba.get_num_threads()} threads "
              f"(NUMBA_NUM_THREADS={numba.config.NUMBA_NUM_THREADS})")
    else:
        print(f"numba: {NA}")
    if torch is not None:
        print(f"torch {torch.__version__}: torch.get_num_threads() = {torch.get_num_threads()}")
    else:
        print(f"torch: {NA}")
    if jax is not None:
        print(f"jax {jax.__version__} (jaxlib {_version('jaxlib')}), devices {jax.devices()}, "
              "x64 enabled; 'JAX eager' = the transform (jax.grad, jax.hessian, "
              "jax.vmap(jax.grad)) without jit, 'JAX jit' = jax.jit of it after compilation")
    else:
        print(f"jax: {NA}")
    print(f"autograd (HIPS) {_version('autograd')}" if autograd is not None
          else f"autograd (HIPS): {NA}")
    print(f"command: {' '.join(sys.argv)}  (repeats >= {args.repeats}"
          f"{', quick' if args.quick else ''})")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workloads", nargs="+", default=list(WORKLOADS),
                    choices=list(WORKLOADS), metavar="W", help="subset of " + " ".join(WORKLOADS))
    ap.add_argument("--repeats", type=int, default=None,
                    help="minimal number of timed samples per implementation (default 9; 7 "
                         "with --quick)")
    ap.add_argument("--quick", action="store_true",
                    help="minimal samples and no extra passes (smoke run; noisier)")
    ap.add_argument("--wait-idle", type=float, default=0.0, metavar="SECONDS",
                    help="before timing each workload, wait up to SECONDS for other "
                         "processes to use < 10%% of the CPU, and time a workload again "
                         "(twice at most) if they used more meanwhile (for a shared "
                         "machine; default 0: no waiting)")
    ap.add_argument("--warm-cache", action="store_true",
                    help="use FTRANS_CACHE_DIR as set (default: a fresh temporary cache "
                         "directory, so that ftrans.jit's first call measures numba's compile)")
    ap.add_argument("--jit-first-call", metavar="W", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.jit_first_call:
        return _jit_first_call_child(args.jit_first_call)
    if not args.warm_cache:
        import tempfile
        os.environ["FTRANS_CACHE_DIR"] = tempfile.mkdtemp(prefix="ftrans_bench_cache_")
    if args.repeats is None:
        args.repeats = 7 if args.quick else 9
    if torch is not None:
        torch.set_num_threads(os.cpu_count() or 1)  # torch's default: one per core
    header(args)

    summary = []
    variants = [v for key in dict.fromkeys(args.workloads) for v in WORKLOADS[key]]
    for key, title, setup in variants:
        res, ok = run_workload(key, title, setup, args.repeats, args.quick, args.wait_idle)
        if "ftrans.jit" in res:
            jr = res["JAX jit"][0] if "JAX jit" in res else None
            ratio = res["ftrans.jit"][0] / jr if jr else None
            summary.append((key + " jit", "JAX jit", res["ftrans.jit"][0], jr, ratio,
                            JIT_TARGETS[key], "n/a (JAX not installed)" if ratio is None else
                            ("PASS" if ratio <= JIT_TARGETS[key] else "MISS")))
        for w, ref, target in JIT_LIMITS:
            if w == key and "ftrans.jit" in res:
                rt = res[ref][0] if ref in res else None
                ratio = res["ftrans.jit"][0] / rt if rt else None
                summary.append((key + " jit", ref, res["ftrans.jit"][0], rt, ratio, target,
                                "n/a" if ratio is None else
                                ("PASS" if ratio <= target else "MISS")))
        if key not in TARGETS:
            continue
        ref_label, target = TARGETS[key]
        if ref_label in res:
            ratio = res["ftrans"][0] / res[ref_label][0]
            verdict = "PASS" if ratio <= target else "MISS"
            if not ok:
                verdict += " (gradients disagree!)"
            summary.append((key, ref_label, res["ftrans"][0], res[ref_label][0], ratio,
                            target, verdict))
        else:
            summary.append((key, ref_label, res["ftrans"][0], None, None, target,
                            "n/a (reference not installed)"))

    print("\n=== summary: targets")
    print(f"  {'workload':<10} {'reference':<15} {'ftrans':>11} {'reference':>11} "
          f"{'ratio':>7} {'target':>7}  result")
    for key, ref_label, ft, rt, ratio, target, verdict in summary:
        rts = _fmt_time(rt) if rt is not None else "n/a"
        rs = f"{ratio:6.2f}x" if ratio is not None else "n/a"
        print(f"  {key:<10} {ref_label:<15} {_fmt_time(ft):>11} {rts:>11} {rs:>7} "
              f"{'<= ' + format(target, '.1f') + 'x':>7}  {verdict}")


if __name__ == "__main__":
    main()
