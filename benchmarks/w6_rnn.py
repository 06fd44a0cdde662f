"""W6 of ``benchmarks/run.py``: the gradient of a tanh RNN through ``lax.scan``.

``h_{t+1} = tanh(h_t @ Wh + x_t @ Wx + b)`` for t = 0..99, h_0 = 0, batch 32, hidden 64,
input 64, float64; ``loss = sum(h_100 ** 2)``; the gradient w.r.t. ``(Wh, Wx, b)``.

* **ftrans**: ``ftrans.grad(loss, argnums=(0, 1, 2))`` with ``ftrans.lax.scan`` (eager:
  the scan's body runs per step); **ftrans.jit**: ``ftrans.jit`` of that gradient.
* **NumPy by hand**: the forward loop keeping every hidden state, then backpropagation
  through time: ``d = dL/dh_{t+1} * (1 - h_{t+1}**2)``, ``gWh += h_t.T @ d``, ``gWx +=
  x_t.T @ d``, ``gb += sum(d, 0)``, ``dL/dh_t = d @ Wh.T``.  It is the check reference.
* **PyTorch eager**: a Python loop over the 100 steps, ``torch.autograd.grad``;
  **torch.compile**: ``torch.compile`` of the same loss (dynamo unrolls the loop), when
  inductor runs here.
* **JAX eager** / **JAX jit**: ``jax.grad(loss, argnums=(0, 1, 2))`` with
  ``jax.lax.scan``, without and with ``jax.jit``.
* HIPS autograd has no scan: n/a.
"""
from __future__ import annotations

import numpy as np

import ftrans
import ftrans.numpy as fnp
from ftrans import lax
from w5_limit import first_call, torch_compiled

STEPS, BATCH, HIDDEN, INPUT = 100, 32, 64, 64
TITLE = (f"grad of a {STEPS}-step tanh RNN through lax.scan, batch {BATCH}, hidden {HIDDEN}, "
         f"input {INPUT}, float64, loss = sum(h_T**2), w.r.t. (Wh, Wx, b)")


def data():
    """(Wh, Wx, b, xs) with xs of shape (STEPS, BATCH, INPUT), all float64."""
    rng = np.random.default_rng(6)
    Wh = rng.standard_normal((HIDDEN, HIDDEN)) / np.sqrt(HIDDEN)
    Wx = rng.standard_normal((INPUT, HIDDEN)) / np.sqrt(INPUT)
    b = 0.1 * rng.standard_normal(HIDDEN)
    xs = rng.standard_normal((STEPS, BATCH, INPUT))
    return Wh, Wx, b, xs


def numpy_grad(Wh, Wx, b, xs):
    """Forward loop and backpropagation through time, by hand."""
    hs = [np.zeros((BATCH, HIDDEN))]
    for t in range(STEPS):
        hs.append(np.tanh(hs[-1] @ Wh + xs[t] @ Wx + b))
    gWh, gWx, gb = np.zeros_like(Wh), np.zeros_like(Wx), np.zeros_like(b)
    dh = 2.0 * hs[-1]
    for t in range(STEPS - 1, -1, -1):
        h1 = hs[t + 1]
        d = dh * (1.0 - h1 * h1)
        gWh += hs[t].T @ d
        gWx += xs[t].T @ d
        gb += d.sum(axis=0)
        dh = d @ Wh.T
    return gWh, gWx, gb


def w6_setup(torch, jax, jnp, na):
    """``run.py``'s setup of W6: (impls, available, check reference, tolerance)."""
    Wh, Wx, b, xs = data()
    impls, available = {}, {}

    def loss_ftrans(Wh, Wx, b, xs):
        def step(h, x):
            return fnp.tanh(h @ Wh + x @ Wx + b), None
        h, _ = lax.scan(step, fnp.zeros((BATCH, HIDDEN)), xs)
        return fnp.sum(h * h)

    g_ftrans = ftrans.grad(loss_ftrans, argnums=(0, 1, 2))
    impls["ftrans"] = lambda: g_ftrans(Wh, Wx, b, xs)
    jg_ftrans = ftrans.jit(ftrans.grad(loss_ftrans, argnums=(0, 1, 2)))
    impls["ftrans.jit"] = lambda: jg_ftrans(Wh, Wx, b, xs)
    impls["NumPy by hand"] = lambda: numpy_grad(Wh, Wx, b, xs)

    if torch is not None:
        tWh, tWx, tb, txs = (torch.from_numpy(a) for a in (Wh, Wx, b, xs))

        def loss_torch(Wh, Wx, b, xs):
            h = torch.zeros((BATCH, HIDDEN), dtype=torch.float64)
            for t in range(STEPS):
                h = torch.tanh(h @ Wh + xs[t] @ Wx + b)
            return torch.sum(h * h)

        def torch_grad(loss):
            def run():
                params = [p.detach().requires_grad_() for p in (tWh, tWx, tb)]
                return [g.numpy() for g in torch.autograd.grad(loss(*params, txs), params)]
            return run
        impls["PyTorch eager"] = torch_grad(loss_torch)
        compiled, why = torch_compiled(torch, loss_torch)
        if compiled is None:
            available["torch.compile"] = why
        else:
            first_call("torch.compile", torch_grad(compiled), impls, available)
    else:
        available["PyTorch eager"] = available["torch.compile"] = na

    if jax is not None:
        jWh, jWx, jb, jxs = (jnp.asarray(a) for a in (Wh, Wx, b, xs))

        def loss_jax(Wh, Wx, b, xs):
            def step(h, x):
                return jnp.tanh(h @ Wh + x @ Wx + b), None
            h, _ = jax.lax.scan(step, jnp.zeros((BATCH, HIDDEN)), xs)
            return jnp.sum(h * h)
        g_eager = jax.grad(loss_jax, argnums=(0, 1, 2))
        g_jit = jax.jit(g_eager)
        impls["JAX eager"] = lambda: jax.block_until_ready(g_eager(jWh, jWx, jb, jxs))
        impls["JAX jit"] = lambda: jax.block_until_ready(g_jit(jWh, jWx, jb, jxs))
    else:
        available["JAX eager"] = available["JAX jit"] = na
    available["HIPS autograd"] = "n/a (HIPS autograd has no scan)"
    return impls, available, "NumPy by hand", 1e-12
