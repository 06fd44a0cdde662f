"""What runs on a worker for :class:`ftrans.dask.Objective`: the per-chunk loss, its value
and gradient, Hessian-vector products, and the flattening of parameter pytrees.

The kernel object is sent to the workers once per :class:`~ftrans.dask.Objective` (a Dask
future that every evaluation's tasks depend on), not once per task or per evaluation.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import tree_util as _tu
from ..numpy import sum as _fsum
from ..transforms import hvp as _hvp
from ..transforms import jvp as _jvp
from ..transforms import value_and_grad as _value_and_grad
from ..transforms import vjp as _vjp
from ..typing import Array, PyTree

__all__: list[str] = []


class Spec:
    """How a flat parameter vector maps to the user's pytree: treedef, shapes, sizes."""

    def __init__(self, params: PyTree) -> None:
        leaves, self.treedef = _tu.tree_flatten(params)
        if not leaves:
            raise ValueError("ftrans.dask: the parameters are an empty pytree; pass at least "
                             "one array")
        arrs = [np.asarray(l) for l in leaves]
        for a in arrs:
            if not np.issubdtype(a.dtype, np.floating) and not np.issubdtype(a.dtype,
                                                                             np.integer):
                raise TypeError(f"ftrans.dask: parameters must be real numbers; got a leaf of "
                                f"dtype {a.dtype}")
        self.shapes = [a.shape for a in arrs]
        self.sizes = [a.size for a in arrs]
        self.dtype = np.result_type(np.float64, *[a.dtype for a in arrs])
        self.flat_leaf = isinstance(params, np.ndarray) and params.ndim == 1
        self.size = sum(self.sizes)

    def ravel(self, params: PyTree) -> Array:
        """A pytree of this structure -> one flat float64 NumPy vector."""
        leaves, treedef = _tu.tree_flatten(params)
        if treedef != self.treedef or [np.shape(l) for l in leaves] != self.shapes:
            raise ValueError(
                f"ftrans.dask: parameters of another structure than the first ones: got "
                f"{treedef} with shapes {[np.shape(l) for l in leaves]}, expected "
                f"{self.treedef} with shapes {self.shapes}")
        if self.flat_leaf:
            return np.asarray(leaves[0], dtype=self.dtype)
        return np.concatenate([np.ravel(np.asarray(l, dtype=self.dtype)) for l in leaves])

    def unravel(self, flat: Any) -> PyTree:
        """A flat vector (NumPy array or traced value) -> the pytree."""
        if self.flat_leaf:
            return _tu.tree_unflatten(self.treedef, [flat])
        leaves: list[Any] = []
        o = 0
        for shape, size in zip(self.shapes, self.sizes):
            leaves.append(flat[o:o + size].reshape(shape))
            o += size
        return _tu.tree_unflatten(self.treedef, leaves)


def _check(out: Any, want_shape: tuple[int, ...], b: int, rows: tuple[int, int],
           per: str) -> None:
    """The loss's output on chunk ``b`` has the shape and a real floating dtype."""
    shape, dtype = tuple(np.shape(out)), np.dtype(getattr(out, "dtype", np.result_type(out)))
    where = f"chunk {b} (rows {rows[0]}:{rows[1]})"
    if shape != want_shape:
        if per == "example":
            raise ValueError(
                f"ftrans.dask.Objective: the per-example loss returned shape {shape} on "
                f"{where}; expected one loss per row, shape {want_shape}. Return the rows' "
                f"losses without summing or averaging them (the Objective does the "
                f"reduction), or pass per='chunk' for a function that returns the chunk's "
                f"sum")
        raise ValueError(
            f"ftrans.dask.Objective: the per-chunk loss returned shape {shape} on {where}; "
            f"expected a scalar, the sum of the chunk's losses. Sum the rows' losses, or pass "
            f"per='example' and return the vector of the rows' losses")
    if not np.issubdtype(dtype, np.floating):
        raise TypeError(
            f"ftrans.dask.Objective: the {'per-example' if per == 'example' else 'per-chunk'} "
            f"loss returned dtype {dtype} on {where}; expected a real floating dtype (float64 "
            f"for SciPy). Compute the loss in floating point (cast integer or boolean terms "
            f"with .astype(float); take the real part of a complex value)")


class Kernel:
    """The per-chunk loss ``f(params, X_b, y_b[, w_b])`` and its derivatives.

    ``per="example"``: ``loss`` returns one loss per row; the kernel multiplies by the
    weights and sums.  ``per="chunk"``: ``loss`` returns the chunk's (weighted) sum.  With
    a ``model``, the rows' losses are ``loss(model(params, X_b), y_b)`` (Gauss-Newton).
    """

    def __init__(self, loss: Callable[..., Any], model: Callable[..., Any] | None, per: str,
                 has_y: bool, has_w: bool) -> None:
        self.loss, self.model, self.per = loss, model, per
        self.has_y, self.has_w = has_y, has_w

    def _data(self, y: Any, w: Any) -> tuple[Any, ...]:
        return ((y,) if self.has_y else ()) + ((w,) if self.has_w and self.per == "chunk"
                                               else ())

    def _reduce(self, out: Any, w: Any, b: int, rows: tuple[int, int], n: int) -> Any:
        _check(out, (n,) if self.per == "example" else (), b, rows, self.per)
        if self.per == "chunk":
            return out
        return _fsum(out * w) if self.has_w else _fsum(out)

    def chunk_sum(self, spec: Spec, x: Any, X: Any, y: Any, w: Any, b: int,
                  rows: tuple[int, int]) -> Any:
        """The chunk's sum of the (weighted) losses at the flat parameters ``x``."""
        n = rows[1] - rows[0]
        p = spec.unravel(x)
        if self.model is not None:
            out = self.loss(self.model(p, X), *self._data(y, w))
        else:
            out = self.loss(p, X, *self._data(y, w))
        return self._reduce(out, w, b, rows, n)

    def value_and_grad(self, spec: Spec, x: Array, X: Any, y: Any, w: Any, b: int,
                       rows: tuple[int, int]) -> tuple[Array, Array]:
        v, g = _value_and_grad(lambda x: self.chunk_sum(spec, x, X, y, w, b, rows))(x)
        return np.asarray(v, dtype=spec.dtype), np.asarray(g, dtype=spec.dtype)

    def value(self, spec: Spec, x: Array, X: Any, y: Any, w: Any, b: int,
              rows: tuple[int, int]) -> Array:
        return np.asarray(self.chunk_sum(spec, x, X, y, w, b, rows), dtype=spec.dtype)

    def hvp_exact(self, spec: Spec, x: Array, v: Array, X: Any, y: Any, w: Any, b: int,
                  rows: tuple[int, int]) -> Array:
        _, (hv,) = _hvp(lambda x: self.chunk_sum(spec, x, X, y, w, b, rows), (x,), (v,))
        return np.asarray(hv, dtype=spec.dtype)

    def hvp_gauss_newton(self, spec: Spec, x: Array, v: Array, X: Any, y: Any, w: Any,
                         b: int, rows: tuple[int, int]) -> Array:
        """``J^T H_l J v``: J the model's Jacobian at ``x``, H_l the Hessian of the summed
        (weighted) losses in the model's output (Schraudolph 2002; Martens 2010)."""
        n = rows[1] - rows[0]
        model_fn = self.model
        assert model_fn is not None  # hessian="gauss-newton" requires a model
        model = lambda x: model_fn(spec.unravel(x), X)  # noqa: E731
        z, jv = _jvp(model, (x,), (v,))
        outer = lambda z: self._reduce(self.loss(z, *self._data(y, w)), w, b, rows, n)  # noqa: E731
        _, (hjv,) = _hvp(outer, (z,), (jv,))
        _, pullback = _vjp(model, x)
        (out,) = pullback(hjv)
        return np.asarray(out, dtype=spec.dtype)


def run_chunk(kernel: Kernel, what: str, spec: Spec, x: Array, v: Array | None, X: Any,
              y: Any, w: Any, b: int, rows: tuple[int, int]) -> tuple[Array, ...]:
    """One task of an evaluation: ``what`` of the kernel on chunk ``b``."""
    if what == "value_and_grad":
        return kernel.value_and_grad(spec, x, X, y, w, b, rows)
    if what == "value":
        return (kernel.value(spec, x, X, y, w, b, rows),)
    assert v is not None  # a Hessian-vector product has its vector
    if what == "hvp_exact":
        return (kernel.hvp_exact(spec, x, v, X, y, w, b, rows),)
    return (kernel.hvp_gauss_newton(spec, x, v, X, y, w, b, rows),)


def sum_parts(*parts: tuple[Any, ...]) -> tuple[Any, ...]:
    """One node of the reduction tree: tuples of NumPy arrays added element by element."""
    out = list(parts[0])
    for p in parts[1:]:
        for i, a in enumerate(p):
            out[i] = out[i] + a
    return tuple(out)


def head(a: Any, m: int) -> Any:
    """The first ``m`` rows of a block (for the additivity check of a per-chunk loss)."""
    return None if a is None else a[:m]


def identity(x: Any) -> Any:
    return x
