"""Penalties on the parameters for :class:`ftrans.dask.Objective`: L2 and a smooth L1."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import numpy as _fnp
from .. import tree_util as _tu
from ..typing import Array, PyTree

__all__ = ["l2", "smooth_l1"]


class _Penalty:
    def __init__(self, name: str, strength: float, term: Callable[[Any, Any], Any],
                 select: Callable[[PyTree], PyTree] | None, eps: float | None = None) -> None:
        if not strength >= 0:
            raise ValueError(f"ftrans.dask.{name}: strength must be >= 0; got {strength!r}")
        if eps is not None and not eps > 0:
            raise ValueError(f"ftrans.dask.{name}: eps must be > 0; got {eps!r}")
        self.name, self.strength, self.term, self.select, self.eps = (
            name, strength, term, select, eps)

    def __call__(self, params: PyTree) -> Array:
        leaves = _tu.tree_leaves(params if self.select is None else self.select(params))
        total: Any = 0.0
        for leaf in leaves:
            total = total + _fnp.sum(self.term(leaf, self.eps))
        return self.strength * total

    def __repr__(self) -> str:
        eps = "" if self.eps is None else f", eps={self.eps!r}"
        return f"ftrans.dask.{self.name}({self.strength!r}{eps})"


def _half_square(x: Any, eps: float | None) -> Any:
    return 0.5 * x * x


def _pseudo_huber(x: Any, eps: float) -> Any:
    return _fnp.sqrt(x * x + eps * eps) - eps


def l2(strength: float, select: Callable[[PyTree], PyTree] | None = None
       ) -> Callable[[PyTree], Array]:
    """The ridge penalty ``strength / 2 * sum(p ** 2)`` over the parameters' leaves.

    Parameters
    ----------
    strength : float
        ``lambda >= 0``; scikit-learn's ``LogisticRegression(C=...)`` with a mean loss is
        ``strength = 1 / (C * n_rows)``.
    select : callable, optional
        ``select(params) -> pytree`` of the penalized part (e.g. ``lambda p: p["w"]`` to
        leave an intercept out, as scikit-learn does); default: all of ``params``.

    Returns
    -------
    callable
        ``penalty(params) -> scalar``, for ``Objective(penalty=...)``.

    Raises
    ------
    ValueError
        A negative ``strength``.

    Examples
    --------
    >>> import numpy as np, ftrans.dask
    >>> float(ftrans.dask.l2(0.5)({"w": np.array([1.0, 2.0]), "b": np.array(3.0)}))
    3.5
    """
    return _Penalty("l2", strength, _half_square, select)


def smooth_l1(strength: float, eps: float = 1e-6,
              select: Callable[[PyTree], PyTree] | None = None) -> Callable[[PyTree], Array]:
    """A differentiable L1 penalty, ``strength * sum(sqrt(p ** 2 + eps ** 2) - eps)``.

    The pseudo-Huber (Charbonnier) approximation of ``strength * sum(|p|)``: within
    ``strength * eps`` per entry of the L1 norm, with continuous first and second
    derivatives, so L-BFGS-B and Newton-CG can use it (Charbonnier et al. 1994; for
    exactly sparse solutions use a proximal method instead).

    Parameters
    ----------
    strength : float
        ``lambda >= 0``.
    eps : float, default 1e-6
        Smoothing width (> 0): quadratic for ``|p| << eps``, linear beyond.
    select : callable, optional
        As in :func:`l2`.

    Returns
    -------
    callable
        ``penalty(params) -> scalar``.

    Raises
    ------
    ValueError
        A negative ``strength`` or a non-positive ``eps``.

    Examples
    --------
    >>> import numpy as np, ftrans.dask
    >>> round(float(ftrans.dask.smooth_l1(1.0, eps=1e-3)(np.array([-2.0, 0.5]))), 6)
    2.498001
    """
    return _Penalty("smooth_l1", strength, _pseudo_huber, select, eps)
