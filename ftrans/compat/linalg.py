"""``torch.linalg`` for ``ftrans.compat``: adapters onto ftrans's functions (no derivative is
written here; each node's backward is ``ftrans.vjp`` of the adapted function).

The functions compute with :mod:`ftrans.numpy.linalg` and :mod:`ftrans.scipy.linalg`;
the decompositions, norms and products are in ``_linalg_decomp``, the LU and LDL families
and the legacy ``torch.*`` forms in ``_linalg_lu`` and ``_linalg_top``.

Differences from PyTorch: a function with several differentiable results (``slogdet``,
``eigh``, ``qr``, ``svd`` ...) records one node of PyTorch's class per result (each with
``output_nr`` 0) instead of one node with several outputs; the gradients are the same.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._linalg_base import LinAlgError, with_out
from ._linalg_solve import (solve, solve_ex, inv, inv_ex, det, slogdet, cholesky, cholesky_ex,
                            solve_triangular, lstsq, pinv, tensorinv, tensorsolve, matrix_power,
                            matrix_exp)
from ._linalg_decomp import (eig, eigvals, eigh, eigvalsh, svd, svdvals, qr, vector_norm,
                             matrix_norm, norm, cond, matrix_rank, multi_dot, cross, vecdot,
                             diagonal, vander, householder_product, matmul)
from ._linalg_lu import (lu, lu_factor, lu_factor_ex, lu_solve, ldl_factor, ldl_factor_ex,
                         ldl_solve)
from . import _linalg_top as _top

TOPLEVEL: dict[str, Callable[..., Any]] = dict(_top.TOPLEVEL)   # torch.* aliases (torch.det ...)
METHODS: dict[str, Any] = dict(_top.METHODS)     # Tensor methods (Tensor.det ...)

__all__ = ["LinAlgError", "solve", "solve_ex", "inv", "inv_ex", "det", "slogdet", "cholesky",
          "cholesky_ex", "solve_triangular", "lstsq", "pinv", "tensorinv", "tensorsolve",
          "matrix_power", "matrix_exp", "eig", "eigvals", "eigh", "eigvalsh", "svd", "svdvals",
          "qr", "vector_norm", "matrix_norm", "norm", "cond", "matrix_rank", "multi_dot",
          "cross", "vecdot", "diagonal", "vander", "householder_product", "matmul", "lu",
          "lu_factor", "lu_factor_ex", "lu_solve", "ldl_factor", "ldl_factor_ex", "ldl_solve"]

for _n in __all__:   # out= (every function of torch.linalg but these takes it)
    if _n not in ("LinAlgError", "diagonal", "vander", "lstsq", "matmul"):
        globals()[_n] = with_out(globals()[_n], "linalg_" + _n)
del _n
