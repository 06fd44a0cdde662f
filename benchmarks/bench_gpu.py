"""GPU workloads side by side: ftrans on CuPy arrays (eager and ``ftrans.jit``) against
PyTorch on CUDA (eager and ``torch.compile``) and ``jax.jit`` on the GPU, in one process.

Run on a machine with an NVIDIA GPU and CuPy::

    python benchmarks/bench_gpu.py            # every workload
    python benchmarks/bench_gpu.py --quick    # fewer repeats

Workloads (the GPU versions of ``benchmarks/run.py``'s):

* **G2** -- W2: the gradient of the mean softmax cross-entropy of a 784-512-512-10 tanh
  MLP, float32, batch 256 and batch 8192.
* **G5** -- W5: the gradient of ``sum(sin(x) * exp(-x*x))``, float64, 4 * 2**20 and
  64 * 2**20 elements.
* **G6** -- W6: the gradient of the 100-step tanh RNN through ``lax.scan`` (batch 32,
  hidden 64, float64).

Every implementation's gradient is checked against NumPy's on the host (W2 and W5's
hand-written backward, W6's backpropagation through time) before it is timed.  Times
are medians of ``--repeats`` calls, each followed by a device synchronization (CuPy's
``Device.synchronize``, ``torch.cuda.synchronize``, JAX's ``block_until_ready``), after
warm-up calls that compile.  A framework that is missing or fails prints ``n/a`` with
the reason.  Ratios are against ``JAX jit`` (``x`` below 1 is faster).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # share the GPU's memory

import ftrans  # noqa: E402
import ftrans.numpy as fnp  # noqa: E402
from ftrans import lax  # noqa: E402
import run as cpu_run  # noqa: E402  (W2's data and hand-written gradient)
import w6_rnn  # noqa: E402

try:
    import cupy as cp
except ImportError:  # pragma: no cover - the message below says what to do
    cp = None


def _optional(name):
    try:
        return __import__(name)
    except Exception:  # noqa: BLE001 - any import failure means "not here"
        return None


torch = _optional("torch")
jax = _optional("jax")
if jax is not None:
    import jax.numpy as jnp
    # float32 matrix products in full float32, as cuBLAS's default under CuPy and PyTorch
    # (JAX's GPU default rounds their operands to TF32)
    jax.config.update("jax_default_matmul_precision", "highest")
if torch is not None and not torch.cuda.is_available():
    torch = None


def _host(tree):
    """Every leaf of ``tree`` as a NumPy array (from CuPy, torch or JAX)."""
    out = []
    for leaf in ftrans.tree_util.tree_leaves(tree):
        if cp is not None and isinstance(leaf, cp.ndarray):
            leaf = cp.asnumpy(leaf)
        elif torch is not None and isinstance(leaf, torch.Tensor):
            leaf = leaf.detach().cpu().numpy()
        out.append(np.asarray(leaf))
    return out


def _sync():
    cp.cuda.Device().synchronize()
    if torch is not None:
        torch.cuda.synchronize()


def _time(fn, repeats):
    """(median, minimum) seconds of ``fn`` followed by a device synchronization (JAX's
    callables block on their own results)."""
    for _ in range(3):
        fn()
    _sync()
    s = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        _sync()
        s.append(time.perf_counter() - t)
    return float(np.median(s)), float(min(s))


# ---------------------------------------------------------------------------------------
# the workloads: {label: zero-argument callable}, the reference gradient, a tolerance
# ---------------------------------------------------------------------------------------
def g2(batch):
    params, X, Y, _ = cpu_run.w2_data()
    rng = np.random.default_rng(2)
    X = rng.standard_normal((batch, X.shape[1])).astype(np.float32)
    Y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)]
    ref = [a for wb in cpu_run.w2_numpy_grad(params, X, Y) for a in wb]

    def loss(params, X, Y, m):
        h = X
        for W, b in params[:-1]:
            h = m.tanh(h @ W + b)
        W, b = params[-1]
        logits = h @ W + b
        z = logits - m.max(logits, axis=1, keepdims=True)
        logp = z - m.log(m.sum(m.exp(z), axis=1, keepdims=True))
        return -m.sum(Y * logp) / batch

    impls = {}
    gp = [(cp.asarray(W), cp.asarray(b)) for W, b in params]
    gX, gY = cp.asarray(X), cp.asarray(Y)
    g = ftrans.grad(lambda p, X, Y: loss(p, X, Y, fnp))
    impls["ftrans (CuPy)"] = lambda: g(gp, gX, gY)
    jg = ftrans.jit(g)
    impls["ftrans.jit (CuPy)"] = lambda: jg(gp, gX, gY)
    if torch is not None:
        tp = [(torch.tensor(W, device="cuda", requires_grad=True),
               torch.tensor(b, device="cuda", requires_grad=True)) for W, b in params]
        flat = [p for wb in tp for p in wb]
        tX, tY = torch.tensor(X, device="cuda"), torch.tensor(Y, device="cuda")

        class TM:
            tanh, exp, log = torch.tanh, torch.exp, torch.log

            @staticmethod
            def max(a, axis, keepdims):
                return torch.amax(a, dim=axis, keepdim=keepdims)

            @staticmethod
            def sum(a, axis=None, keepdims=False):
                return torch.sum(a) if axis is None else torch.sum(a, dim=axis, keepdim=keepdims)

        def t_step(tX, tY):
            return torch.autograd.grad(loss(tp, tX, tY, TM), flat)
        impls["PyTorch eager (CUDA)"] = lambda: t_step(tX, tY)
        impls["torch.compile (CUDA)"] = (lambda c: lambda: c(tX, tY))(torch.compile(t_step))
    if jax is not None:
        jp = [(jnp.asarray(W), jnp.asarray(b)) for W, b in params]
        jX, jY = jnp.asarray(X), jnp.asarray(Y)
        jgj = jax.jit(jax.grad(lambda p, X, Y: loss(p, X, Y, jnp)))
        impls["JAX jit (GPU)"] = lambda: jax.block_until_ready(jgj(jp, jX, jY))
    return impls, ref, 2e-4


def g5(n):
    x = np.random.default_rng(5).uniform(-3, 3, n)
    e = np.exp(-x * x)
    ref = [e * (np.cos(x) - 2 * x * np.sin(x))]
    impls = {}
    gx = cp.asarray(x)
    g = ftrans.grad(lambda x: fnp.sum(fnp.sin(x) * fnp.exp(-x * x)))
    impls["ftrans (CuPy)"] = lambda: g(gx)
    jg = ftrans.jit(g)
    impls["ftrans.jit (CuPy)"] = lambda: jg(gx)
    if torch is not None:
        tx = torch.tensor(x, device="cuda", requires_grad=True)

        def t_step(tx):
            return torch.autograd.grad(torch.sum(torch.sin(tx) * torch.exp(-tx * tx)), tx)
        impls["PyTorch eager (CUDA)"] = lambda: t_step(tx)
        impls["torch.compile (CUDA)"] = (lambda c: lambda: c(tx))(torch.compile(t_step))
    if jax is not None:
        jax.config.update("jax_enable_x64", True)
        jx = jnp.asarray(x)
        jgj = jax.jit(jax.grad(lambda x: jnp.sum(jnp.sin(x) * jnp.exp(-x * x))))
        impls["JAX jit (GPU)"] = lambda: jax.block_until_ready(jgj(jx))
    return impls, ref, 1e-11


def g6():
    Wh, Wx, b, xs = w6_rnn.data()
    ref = list(w6_rnn.numpy_grad(Wh, Wx, b, xs))

    h0 = np.zeros((w6_rnn.BATCH, w6_rnn.HIDDEN))

    def loss(Wh, Wx, b, xs, h0, m, scan):
        def step(h, x):
            h = m.tanh(h @ Wh + x @ Wx + b)
            return h, None
        h, _ = scan(step, h0, xs)
        return m.sum(h * h)
    impls = {}
    args = [cp.asarray(a) for a in (Wh, Wx, b, xs, h0)]  # (h0 too: ftrans never moves data)
    g = ftrans.grad(lambda *a: loss(*a, fnp, lax.scan), argnums=(0, 1, 2))
    impls["ftrans (CuPy)"] = lambda: g(*args)
    jg = ftrans.jit(g)
    impls["ftrans.jit (CuPy)"] = lambda: jg(*args)
    if torch is not None:
        targs = [torch.tensor(a, device="cuda", requires_grad=i < 3)
                 for i, a in enumerate((Wh, Wx, b, xs))]

        def t_step(Wh, Wx, b, xs):
            h = torch.zeros((w6_rnn.BATCH, w6_rnn.HIDDEN), dtype=xs.dtype, device="cuda")
            for t in range(xs.shape[0]):
                h = torch.tanh(h @ Wh + xs[t] @ Wx + b)
            return torch.autograd.grad(torch.sum(h * h), (Wh, Wx, b))
        impls["PyTorch eager (CUDA)"] = lambda: t_step(*targs)
    if jax is not None:
        jax.config.update("jax_enable_x64", True)
        jargs = [jnp.asarray(a) for a in (Wh, Wx, b, xs, h0)]
        jgj = jax.jit(jax.grad(lambda *a: loss(*a, jnp, jax.lax.scan), argnums=(0, 1, 2)))
        impls["JAX jit (GPU)"] = lambda: jax.block_until_ready(jgj(*jargs))
    return impls, ref, 1e-9


WORKLOADS = {
    "G2 MLP grad, float32, batch 256": lambda: g2(256),
    "G2 MLP grad, float32, batch 8192": lambda: g2(8192),
    "G5 elementwise grad, float64, 4*2**20": lambda: g5(4 * 2 ** 20),
    "G5 elementwise grad, float64, 64*2**20": lambda: g5(64 * 2 ** 20),
    "G6 RNN grad through scan, float64": g6,
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--quick", action="store_true", help="10 repeats")
    ap.add_argument("--only", nargs="*", default=(), help="workload name prefixes (G2 G5 G6)")
    args = ap.parse_args(argv)
    if cp is None or cp.cuda.runtime.getDeviceCount() < 1:
        print("bench_gpu.py needs CuPy and an NVIDIA GPU (pip install -e '.[gpu]')")
        return 2
    repeats = 10 if args.quick else args.repeats
    name = cp.cuda.runtime.getDeviceProperties(0)["name"]
    print(f"GPU: {name.decode() if isinstance(name, bytes) else name}; CuPy {cp.__version__}, "
          f"PyTorch {getattr(torch, '__version__', 'n/a')}, JAX {getattr(jax, '__version__', 'n/a')}"
          f"; median (minimum) of {repeats} synchronized calls")
    for title, setup in WORKLOADS.items():
        if args.only and not any(title.startswith(o) for o in args.only):
            continue
        print(f"\n{title}")
        impls, ref, tol = setup()
        rows = {}
        for label, fn in impls.items():
            try:
                got = _host(fn())
                err = max(float(np.max(np.abs(g - r)) / max(1e-300, float(np.max(np.abs(r)))))
                          for g, r in zip(got, ref))
                if len(got) != len(ref) or not err <= tol:
                    rows[label] = f"WRONG: relative error {err:.2e} > {tol:.0e}"
                    continue
                med, mn = _time(fn, repeats)
                rows[label] = (med, mn, err)
            except Exception as exc:  # noqa: BLE001 - reported, the others still run
                rows[label] = f"n/a: {type(exc).__name__}: {str(exc)[:160]}"
                traceback.print_exc(limit=3)
        base = rows.get("JAX jit (GPU)")
        for label, r in rows.items():
            if isinstance(r, str):
                print(f"  {label:22s} {r}")
                continue
            ratio = f"{r[0] / base[0]:6.2f}x JAX jit" if isinstance(base, tuple) else ""
            print(f"  {label:22s} {r[0] * 1e3:9.3f} ms ({r[1] * 1e3:9.3f})  err {r[2]:.1e}  {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
