"""``ftrans.scipy.special``, part 3: the classical orthogonal polynomials (``eval_chebyt``
... ``eval_legendre``, with the Chebyshev polynomials of the third and fourth kinds and the
shifted ones that SciPy lacks), the Airy function ``Ai`` and the spherical Bessel function
``j0``.

The polynomials are compositions of ftrans operations (the three-term recurrences of
DLMF 18.9 evaluated up to the largest order present), so they are differentiable in
``x`` to any order; the order ``n`` is a concrete integer array (not differentiable).

Differences from SciPy (these follow PyTorch's ``torch.special.*_polynomial_*``, which
the compat layer adapts): a non-integer order is truncated toward zero, and a negative
order gives 0 (SciPy continues some families to negative or non-integer orders).  The
recurrence runs to the largest order in ``n``: meant for moderate orders.

``airy_ai`` is the first result of ``scipy.special.airy`` (a primitive: its derivative
is ``airy_aip``, whose derivative is ``x Ai(x)``, DLMF 9.2.1); ``spherical_jn`` supports
the order 0 (``sin(z)/z``; its Taylor series near 0).
"""
from __future__ import annotations

import math

import numpy as np

from collections.abc import Callable

from ..core import Tracer
from .. import primitives as P
from ..primitives import special_scipy as _pss
from ..typing import Array, ArrayLike
from ._args import _float

_Step = Callable[[float, Array, Array, Array], Array]

__all__ = ["eval_chebyt", "eval_chebyu", "eval_chebyv", "eval_chebyw", "eval_sh_chebyt",
           "eval_sh_chebyu", "eval_sh_chebyv", "eval_sh_chebyw", "eval_hermite",
           "eval_hermitenorm", "eval_laguerre", "eval_legendre", "airy_ai", "spherical_jn"]


def _orders(n: ArrayLike, name: str) -> np.ndarray:
    """The concrete integer orders ``n`` (truncated toward zero; NaN/inf give -1)."""
    if isinstance(n, Tracer):
        raise TypeError(f"{name}: the order n must be concrete (a number or an array), not a "
                        "traced value")
    arr = np.asarray(n)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name}: the order n must be real (integer or floating), got dtype "
                        f"{arr.dtype}")
    if arr.dtype.kind == "f":
        arr = np.where(np.isfinite(arr), np.trunc(arr), -1.0)
    return arr.astype(np.int64)


def _recurrence(name: str, n: ArrayLike, x: ArrayLike, first: Callable[[Array], Array],
                second: Callable[[Array], Array], step: _Step) -> Array:
    """``p_n(x)`` elementwise for the orders ``n``: ``p_0 = first(x)``, ``p_1 = second(x)``,
    ``p_{k+1} = step(k, x, p_{k-1}, p_k)``; 0 for ``n < 0``."""
    xa = _float(x, name=name)
    na = _orders(n, name)
    top = int(na.max()) if na.size else 0
    ps = [first(xa)]
    if top >= 1:
        ps.append(second(xa))
    for k in range(1, top):
        ps.append(step(float(k), xa, ps[k - 1], ps[k]))
    out = P.where(na < 0, 0.0, P.mul(xa, 0.0))
    for k in range(top, -1, -1):
        out = P.where(na == k, ps[k], out)
    return P.convert_element_type(out, xa.dtype)


def _one(x: Array) -> Array:
    return P.add(P.mul(x, 0.0), 1.0)


def _cheb(k: float, x: Array, a: Array, b: Array) -> Array:
    """The Chebyshev recurrence ``p_{k+1} = 2 x p_k - p_{k-1}`` (all four kinds)."""
    return P.sub(P.mul(P.add(x, x), b), a)


def _doc(what: str, dlmf: str, scipy: bool = True) -> str:
    """The numpydoc docstring of a polynomial family (``{}``: the SciPy/torch name)."""
    src = "(``scipy.special.{}``)" if scipy else "(not in SciPy; ``torch.special.{}``)"
    return (f"{what} {src}.\n\n    Parameters\n    ----------\n    n : array_like of int\n"
            f"        Concrete orders (truncated toward zero; negative orders give 0; not a\n"
            f"        tracer, not differentiable), broadcasting against ``x``.\n"
            f"    x : array_like\n        Real input.\n\n    Returns\n    -------\n"
            f"    Array\n        The broadcast shape, ``x``'s floating dtype.\n\n"
            f"    Raises\n    ------\n    TypeError\n        If ``n`` is traced or not real, "
            f"or ``x`` is complex.\n\n    Notes\n    -----\n    Recurrence: DLMF {dlmf}, "
            f"evaluated up to the largest order in ``n``.\n    ")


def _family(name: str, doc: str, first: Callable[[Array], Array],
            second: Callable[[Array], Array], step: _Step, shift: bool = False
            ) -> Callable[[ArrayLike, ArrayLike], Array]:
    """The public function ``name(n, x)`` of a three-term recurrence."""
    def f(n: ArrayLike, x: ArrayLike) -> Array:
        if shift:
            return _recurrence(name, n, _float(x, name=name),
                               lambda x: first(P.sub(P.add(x, x), 1.0)),
                               lambda x: second(P.sub(P.add(x, x), 1.0)),
                               lambda k, x, a, b: step(k, P.sub(P.add(x, x), 1.0), a, b))
        return _recurrence(name, n, x, first, second, step)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


def _chebyshev(kind: str, second: Callable[[Array], Array], what: str, in_scipy: bool,
               shift: bool = False) -> Callable[[ArrayLike, ArrayLike], Array]:
    """The Chebyshev family ``kind`` (t, u, v, w: ``p_1 = second(x)``), shifted or not."""
    name = ("eval_sh_cheby" if shift else "eval_cheby") + kind
    torch_name = ("shifted_" if shift else "") + "chebyshev_polynomial_" + kind
    if shift:
        what = "Shifted " + what + " on [0, 1]: ``p_n(2x - 1)``"
    doc = _doc(what, "18.9.1", in_scipy).format(name if in_scipy else torch_name)
    return _family(name, doc, _one, second, _cheb, shift=shift)


_T1 = "Chebyshev polynomial of the first kind ``T_n(x)``"
_U1 = "Chebyshev polynomial of the second kind ``U_n(x)``"
_V1 = "Chebyshev polynomial of the third kind ``V_n(x)``"
_W1 = "Chebyshev polynomial of the fourth kind ``W_n(x)``"
eval_chebyt = _chebyshev("t", lambda x: x, _T1, True)
eval_chebyu = _chebyshev("u", lambda x: P.add(x, x), _U1, True)
eval_chebyv = _chebyshev("v", lambda x: P.sub(P.add(x, x), 1.0), _V1, False)
eval_chebyw = _chebyshev("w", lambda x: P.add(P.add(x, x), 1.0), _W1, False)
eval_sh_chebyt = _chebyshev("t", lambda x: x, _T1, True, shift=True)
eval_sh_chebyu = _chebyshev("u", lambda x: P.add(x, x), _U1, True, shift=True)
eval_sh_chebyv = _chebyshev("v", lambda x: P.sub(P.add(x, x), 1.0), _V1, False, shift=True)
eval_sh_chebyw = _chebyshev("w", lambda x: P.add(P.add(x, x), 1.0), _W1, False, shift=True)

eval_hermite = _family(
    "eval_hermite", _doc("Physicists' Hermite polynomial ``H_n(x)``", "18.9.1")
    .format("eval_hermite"), _one, lambda x: P.add(x, x),
    lambda k, x, a, b: P.sub(P.mul(P.add(x, x), b), P.mul(2.0 * k, a)))
eval_hermitenorm = _family(
    "eval_hermitenorm", _doc("Probabilists' Hermite polynomial ``He_n(x)``", "18.9.1")
    .format("eval_hermitenorm"), _one, lambda x: x,
    lambda k, x, a, b: P.sub(P.mul(x, b), P.mul(k, a)))
eval_laguerre = _family(
    "eval_laguerre", _doc("Laguerre polynomial ``L_n(x)``", "18.9.1").format("eval_laguerre"),
    _one, lambda x: P.sub(1.0, x),
    lambda k, x, a, b: P.div(P.sub(P.mul(P.sub(2.0 * k + 1.0, x), b), P.mul(k, a)), k + 1.0))
eval_legendre = _family(
    "eval_legendre", _doc("Legendre polynomial ``P_n(x)``", "18.9.1").format("eval_legendre"),
    _one, lambda x: x,
    lambda k, x, a, b: P.div(P.sub(P.mul(P.mul(2.0 * k + 1.0, x), b), P.mul(k, a)), k + 1.0))


def airy_ai(x: ArrayLike) -> Array:
    """The Airy function ``Ai(x)``: the first result of ``scipy.special.airy``.

    Parameters
    ----------
    x : array_like
        Real input.

    Returns
    -------
    Array
        ``x``'s shape and floating dtype.

    Raises
    ------
    TypeError
        For complex input.

    Notes
    -----
    Derivative ``Ai'(x)``, whose derivative is ``x Ai(x)`` (DLMF 9.2.1): every order.
    """
    return _pss.airy_ai(_float(x, name="airy_ai"))


def spherical_jn(n: int, z: ArrayLike) -> Array:
    """Spherical Bessel function of the first kind (``scipy.special.spherical_jn``), order 0.

    ``sin(z)/z``; for ``|z| < 0.5`` its Taylor series ``sum_k (-z^2)^k / (2k+1)!`` (DLMF
    10.53.1), so every derivative is right at 0 too.

    Parameters
    ----------
    n : int
        The order; only 0 is implemented.
    z : array_like
        Real input.

    Returns
    -------
    Array
        ``z``'s shape and floating dtype.

    Raises
    ------
    NotImplementedError
        For an order other than 0.
    TypeError
        For complex input.
    """
    if not isinstance(n, (int, np.integer)) or n != 0:
        raise NotImplementedError(f"spherical_jn: only the order n=0 is implemented, got {n!r}")
    za = _float(z, name="spherical_jn")
    small = P.lt(P.abs(za), 0.5)
    zs = P.where(small, za, 0.0)
    zz = P.mul(zs, zs)
    series: Array | float = 0.0
    for k in range(8, -1, -1):   # Horner in z^2; the next term is below 1e-20 for |z| < 0.5
        series = P.add(P.mul(series, zz), (-1.0) ** k / math.factorial(2 * k + 1))
    zl = P.where(small, 1.0, za)
    sin_zl = P.ROW_OPS["sin"](zl)
    return P.convert_element_type(P.where(small, series, P.div(sin_zl, zl)), za.dtype)
