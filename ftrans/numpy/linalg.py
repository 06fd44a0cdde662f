"""``ftrans.numpy.linalg``: ``numpy.linalg`` written in differentiable ftrans primitives.

Names, signatures, result types (``SlogdetResult``, ``EighResult``, ``SVDResult``,
``QRResult``, ``lstsq``'s 4-tuple) and batching over leading axes follow NumPy 2.
The decompositions and solves are primitives of :mod:`ftrans.primitives.linalg`,
whose docstring gives each derivative and its source; everything else is composed
from them and from ``ftrans.numpy``.

Where derivatives exist
-----------------------
* ``solve``, ``inv``, ``det``, ``slogdet``, ``tensorinv``, ``tensorsolve``,
  ``matrix_power`` (negative powers), ``cond`` (``p`` not in ``None, 2, -2``):
  nonsingular matrices (the rules use ``a^{-1}``).
* ``cholesky``: positive definite matrices; only the lower (``upper=True``: upper)
  triangle is read, as in NumPy.
* The functions that read one triangle of a Hermitian input (``cholesky``, ``eigh``,
  ``eigvalsh``, ``svd``/``pinv``/``matrix_rank`` with ``hermitian=True``) are
  differentiated as ``a -> f((a + a^H) / 2)``, as JAX and PyTorch do: the gradient of a
  Hermitian input is Hermitian, and a tangent is projected on its Hermitian part.
* ``eigh``/``eigvalsh``: eigenvalues everywhere (also repeated); eigenvectors for
  distinct eigenvalues, for losses invariant to each eigenvector's sign/phase.
* ``svd``: singular values everywhere; singular vectors for distinct nonzero singular
  values and phase-invariant losses; ``full_matrices=True`` (NumPy's default) of a
  non-square matrix has no derivative (the extra columns are not unique): use
  ``full_matrices=False``.  ``svdvals``, ``norm(ord=2/-2/'nuc')`` and ``cond`` only use
  the singular values.
* ``qr``: full-rank matrices, ``mode='reduced'``, ``'r'``, and ``'complete'`` for
  ``m <= n``.
* ``pinv``, ``lstsq`` (the solution ``x``, the residuals and the singular values):
  where the rank is locally constant (Golub & Pereyra 1973).
* ``norm`` and ``vector_norm``/``matrix_norm``: every ``ord``/``axis`` NumPy has.  At
  non-differentiable points the gradient is the minimum-norm subgradient (PyTorch's
  autograd notes): 0 for every norm of the zero vector/matrix (the 2-norm's
  ``x / |x|`` is replaced by 0 with a double ``where``, never NaN), ``abs'(0) = 0`` for
  the 1- and p-norms, ties of the inf-norms share the gradient evenly, and the
  spectral/nuclear norms take ``abs`` of the singular values (zero singular values get
  no gradient).  ``ord=0`` counts nonzeros (derivative 0).
* ``matrix_rank``: integer result, no derivative.

A ``numpy.linalg`` name that is not provided (``eig``, ``eigvals``) raises
``AttributeError`` naming it.
"""
from __future__ import annotations

from typing import NoReturn, cast

import numpy as np

from ._refused import refusal as _refusal
from ._funcs import matmul, tensordot  # noqa: F401  (numpy.linalg's names)
from ._linalg_args import (LinAlgError, SlogdetResult, EighResult, EigResult,  # noqa: F401
                           SVDResult, QRResult)
# (helpers other ftrans modules read from here: ftrans.scipy.linalg, fnp's _calc/_poly)
from ._linalg_args import (_inexact, _common, _concrete, _bcast_batch,  # noqa: F401
                           _assert_stacked_2d, _assert_stacked_square)
from ._linalg_decomp import (solve, inv, det, slogdet, matrix_power, tensorinv, tensorsolve, cholesky, eigh, eigvalsh, eig, eigvals, svd, svdvals, qr, pinv, lstsq)  # noqa: F401
from ._linalg_norms import (norm, vector_norm, matrix_norm, cond, matrix_rank, multi_dot, trace, diagonal, matrix_transpose, vecdot, outer, cross)  # noqa: F401

__all__ = ["solve", "inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh", "svd", "svdvals",
           "qr", "norm", "vector_norm", "matrix_norm", "pinv", "lstsq", "matrix_power",
           "matrix_rank", "multi_dot", "trace", "cond", "tensorinv", "tensorsolve",
           "matmul", "tensordot", "vecdot", "outer", "cross", "diagonal",
           "matrix_transpose", "LinAlgError", "SlogdetResult", "EighResult", "SVDResult",
           "QRResult", "eig", "eigvals", "EigResult"]


def __getattr__(name: str) -> NoReturn:
    if name == "test":   # NumPy's test runner (ftrans.numpy._refused)
        raise cast(AttributeError, _refusal("ftrans.numpy.linalg", name))  # "test" is refused
    if hasattr(np.linalg, name):
        raise AttributeError(
            f"ftrans.numpy.linalg has no attribute {name!r}: numpy.linalg.{name} is not "
            "implemented in ftrans.numpy.linalg yet. Calling numpy.linalg."
            f"{name} directly on traced values cannot be differentiated; write it with the "
            "functions ftrans.numpy.linalg provides, or open an issue.")
    raise AttributeError(f"module 'ftrans.numpy.linalg' has no attribute {name!r}")
