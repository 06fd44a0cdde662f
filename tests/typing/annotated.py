"""User code annotated with ftrans.typing, type-checked by mypy (tests/test_typing.py); also run."""
from __future__ import annotations

import numpy as np

import ftrans
import ftrans.numpy as fnp
from ftrans.typing import Array, ArrayLike


def loss(w: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    pred = fnp.tanh(fnp.dot(x, w))
    return fnp.mean((pred - y) ** 2)


def main() -> float:
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(32, 3)), rng.normal(size=32)
    w = np.zeros(3)
    g = ftrans.grad(loss)(w, x, y)
    w = w - 0.1 * g
    return float(loss(w, x, y))


if __name__ == "__main__":
    print(main())
