"""Per-call overhead of a jitted function (the dispatch around the compiled program).

    python benchmarks/jit_dispatch.py

Prints microseconds per call (best of 7 repeats) for:

* ``ftrans.jit`` dispatch alone: the compiled program replaced by a stub that returns
  its inputs, so what remains is flatten + cache key + dict lookup + call + unflatten;
* ``ftrans.jit(lambda x: x)`` and ``ftrans.jit(lambda x: x + 1.0)`` with the real
  ``compile_ir``;
* the same through ``jax.jit`` (same process), when JAX is installed;
* ``numpy`` ``x + 1.0`` for scale.

Not a test: nothing here asserts on time.
"""
from __future__ import annotations

import sys
import timeit

import numpy as np

import ftrans

N = 200_000


def best_us(fn, number=N):
    return min(timeit.repeat(fn, number=number, repeat=7)) / number * 1e6


def main():
    jit_module = sys.modules["ftrans.transforms._jit_run"]
    x = np.ones(3)
    y = np.ones((2, 3), np.float32)
    base = best_us(lambda: None)
    rows = []

    real = jit_module.compile_ir
    jit_module.compile_ir = lambda ir, backend="cpu": (lambda *a: list(a))
    try:
        one = ftrans.jit(lambda x: x)
        one(x)
        two = ftrans.jit(lambda x, y: (x, y))
        two(x, y)
        rows.append(("ftrans.jit dispatch, 1 array in/out (stub program)",
                     best_us(lambda: one(x)) - base))
        rows.append(("ftrans.jit dispatch, 2 arrays in, tuple out (stub program)",
                     best_us(lambda: two(x, y)) - base))
    finally:
        jit_module.compile_ir = real

    ident = ftrans.jit(lambda x: x)
    ident(x)
    add = ftrans.jit(lambda x: x + 1.0)
    add(x)
    rows.append(("ftrans.jit(lambda x: x)", best_us(lambda: ident(x), N // 4) - base))
    rows.append(("ftrans.jit(lambda x: x + 1.0)", best_us(lambda: add(x), N // 4) - base))
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        jax = None
    if jax is not None:
        xj = jnp.asarray(np.ones(3, np.float32))
        jident = jax.jit(lambda x: x)
        jadd = jax.jit(lambda x: x + 1.0)
        jident(xj).block_until_ready()
        jadd(xj).block_until_ready()
        rows.append(("jax.jit(lambda x: x)", best_us(lambda: jident(xj), N // 10) - base))
        rows.append(("jax.jit(lambda x: x + 1.0)", best_us(lambda: jadd(xj), N // 10) - base))
    rows.append(("numpy x + 1.0", best_us(lambda: x + 1.0) - base))
    width = max(len(r[0]) for r in rows)
    for label, us in rows:
        print(f"{label:<{width}}  {us:7.2f} us/call")


if __name__ == "__main__":
    main()
