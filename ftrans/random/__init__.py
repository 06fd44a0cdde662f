"""Explicit, splittable pseudo-random keys: JAX's model (``jax.random``).

A *key* is a ``uint32`` array of shape ``(2,)``.  Every sampler is a pure function of
its key (no global state): the same key gives the same numbers, in any process, eagerly,
under ``ftrans.jit`` (keys as traced arguments) and under ``ftrans.vmap`` (an array of
keys from :func:`split`).  Use each key once; :func:`split` and :func:`fold_in` make new
ones.

>>> import ftrans, ftrans.random as fr
>>> k = fr.key(0)
>>> k1, k2 = fr.split(k)
>>> x = fr.normal(k1, (3,))
>>> ftrans.vmap(lambda k: fr.normal(k, (3,)))(fr.split(k2, 8)).shape
(8, 3)

The generator is Threefry-2x32 with 20 rounds (Salmon, Moraes, Dror, Shaw, "Parallel
random numbers: as easy as 1, 2, 3", SC'11, 2011), one primitive
(:func:`ftrans.primitives.threefry2x32`); keys, bits and samplers follow JAX's
algorithms with its original counter layout (``jax_threefry_partitionable=False``), see
:mod:`._keys` and :mod:`._samplers` for what matches JAX bit for bit.

API (JAX's names and argument order): :func:`key` (alias :func:`PRNGKey`),
:func:`split`, :func:`fold_in`, :func:`bits`, :func:`uniform`, :func:`normal`,
:func:`truncated_normal`, :func:`bernoulli`, :func:`gumbel`, :func:`categorical`,
:func:`randint`, :func:`permutation`, :func:`choice`.  Floating dtypes default to
float64 and integers to int64 (ftrans's defaults; JAX's without ``jax_enable_x64`` are
32-bit).
"""
from ._keys import key, PRNGKey, split, fold_in, bits
from ._samplers import (uniform, normal, truncated_normal, bernoulli, gumbel, categorical,
                        randint, permutation, choice)

__all__ = ["key", "PRNGKey", "split", "fold_in", "bits", "uniform", "normal",
           "truncated_normal", "bernoulli", "gumbel", "categorical", "randint",
           "permutation", "choice"]
