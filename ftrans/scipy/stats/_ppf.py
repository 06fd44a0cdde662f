"""Percent point functions (inverse cdfs) without a closed form: SciPy's ``ppf`` for the
value, the implicit function theorem for the derivatives.

``x = ppf(q, *shapes)`` is the root of ``cdf(x, *shapes) - q``.  Its value is SciPy's own
``scipy.stats.<dist>.ppf`` on the host (``ftrans.pure_callback``: it runs under ``jit``
and ``vmap``); its derivatives come from :func:`ftrans.transforms.implicit_root`
(Blondel et al. 2022, "Efficient and Modular Implicit Differentiation"):

    dx/dq = 1 / pdf(x),        dx/dθ = -(∂cdf/∂θ)(x) / pdf(x),

with ``pdf = ∂cdf/∂x`` taken by differentiating this package's ``cdf``, so the
derivatives are exactly as available as the cdf's (``beta`` and ``t`` in their shape
parameters to order 2: ``betainc``'s derivatives in ``a``, ``b`` stop at order 3).  At
``q`` = 0 or 1 the root is at the edge of the support, where ``pdf`` may vanish: the
derivative is then infinite, as the inverse function's is.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import scipy.stats

from ... import numpy as fnp
from ...core import Tracer
from ...primitives.callback import pure_callback, ShapeDtypeStruct
from ...transforms._implicit import implicit_root
from ...typing import Array

__all__ = ["inverse_cdf"]


def inverse_cdf(dist: str, std_cdf: Callable[..., Array]) -> Callable[..., Array]:
    """``std_ppf(q, *shapes)`` for ``scipy.stats.<dist>`` from the standardized
    ``std_cdf(z, *shapes)`` (loc 0, scale 1)."""
    host = getattr(scipy.stats, dist).ppf

    def std_ppf(q: Array, *shapes: Array) -> Array:
        args = list(fnp.broadcast_arrays(q, *shapes))
        out = ShapeDtypeStruct(tuple(args[0].shape), np.dtype(args[0].dtype))
        # only traced arguments are differentiated: a constant shape parameter stays out
        # of the implicit derivative (betainc has no derivative in a, b even if zero)
        traced = [i for i, v in enumerate(args) if i == 0 or isinstance(v, Tracer)]
        params = tuple(args[i] for i in traced)
        # the closures below hold the constants only (custom rules convert traced
        # closure values into inputs; the traced ones are implicit_root's params)
        consts = [None if i in traced else v for i, v in enumerate(args)]

        def full(cs: Sequence[Array]) -> list[Any]:
            vals = list(consts)
            for i, c in zip(traced, cs):
                vals[i] = c
            return vals

        def solve(x0: Array, cs: Sequence[Array]) -> Array:
            # (under vmap the values carry the batch axis too)
            def call(*vals: np.ndarray) -> np.ndarray:
                return np.asarray(host(*vals), dtype=out.dtype)
            return pure_callback(call, out, *full(cs), vmap_method="broadcast_all")

        def residual(x: Array, cs: Sequence[Array]) -> Array:
            vals = full(cs)
            return std_cdf(x, *vals[1:]) - vals[0]

        def tangent_solve(g: Callable[[Array], Array], y: Array) -> Array:
            # the Jacobian of the residual in x is diagonal (elementwise): pdf(x)
            return y / g(fnp.ones_like(y))

        return implicit_root(residual, fnp.zeros(out.shape, out.dtype), params, solve,
                             tangent_solve)
    std_ppf.__name__ = f"{dist}_std_ppf"
    return std_ppf
