"""``ftrans.scipy.special``, part 2: incomplete gamma and beta functions, the normal
distribution's ``ndtr``/``ndtri``/``log_ndtr``, ``erfcx``/``erfcinv``, ``rgamma``,
``gammasgn``, the Hurwitz zeta function and the Bessel functions.

Values are SciPy's kernels (:mod:`ftrans.primitives.special_scipy`, where the derivative
formulas and their sources are listed); this module normalizes the arguments as
:mod:`ftrans.scipy.special` does (integer/bool inputs become float64, float32 stays
float32, complex inputs raise ``TypeError``) and documents the public functions.

Derivatives that SciPy gives no kernel for raise ``NotImplementedError`` naming the
argument (the Bessel order ``v``, the exponent of ``zeta``; ``betainc``'s fourth
derivatives in ``a``, ``b``); only a requested derivative raises, so ``grad`` in the
other argument works.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import primitives as P
from ..primitives import special_scipy as _pss
from ..typing import Array, ArrayLike
from ._args import _float, _floats, _unary_doc

__all__ = ["gammainc", "gammaincc", "betainc", "gammasgn", "rgamma", "erfcx", "erfcinv",
           "ndtr", "ndtri", "log_ndtr", "zeta", "j0", "j1", "jv", "y0", "y1", "yv", "iv",
           "ive", "kv", "kve"]  # + the SciPy-backed rows of the operation table (below)


def gammainc(a: ArrayLike, x: ArrayLike) -> Array:
    """Regularized lower incomplete gamma function ``P(a, x)`` (``scipy.special.gammainc``).

    Parameters
    ----------
    a : array_like
        Real shape parameter, ``a > 0`` (broadcasts against ``x``).
    x : array_like
        Real argument, ``x >= 0``.

    Returns
    -------
    Array
        The broadcast shape, floating dtype of the inputs (ints -> float64).

    Raises
    ------
    TypeError
        For complex input.

    Notes
    -----
    Derivatives: in ``x``, ``x^(a-1) e^(-x) / Gamma(a)`` (DLMF 8.8.13); in ``a``, JAX's
    ``igamma_grad_a`` (series / continued fraction carried out in Taylor arithmetic in
    ``a``, any order).

    Examples
    --------
    >>> import ftrans, ftrans.scipy.special as fss
    >>> round(float(fss.gammainc(1.0, 2.0)), 6)   # 1 - exp(-2)
    0.864665
    >>> round(float(ftrans.grad(fss.gammainc, argnums=1)(1.0, 2.0)), 6)   # exp(-2)
    0.135335
    """
    a, x = _floats(a, x, name="gammainc")
    return _pss.gammainc(a, x)


def gammaincc(a: ArrayLike, x: ArrayLike) -> Array:
    """Regularized upper incomplete gamma function ``Q = 1 - P`` (``scipy.special.gammaincc``).

    Accurate where ``Q`` is tiny.

    Parameters
    ----------
    a : array_like
        Real shape parameter, ``a > 0`` (broadcasts against ``x``).
    x : array_like
        Real argument, ``x >= 0``.

    Returns
    -------
    Array
        The broadcast shape, floating dtype of the inputs (ints -> float64).

    Raises
    ------
    TypeError
        For complex input.

    Notes
    -----
    Derivatives: those of :func:`gammainc`, negated.
    """
    a, x = _floats(a, x, name="gammaincc")
    return _pss.gammaincc(a, x)


def betainc(a: ArrayLike, b: ArrayLike, x: ArrayLike) -> Array:
    """Regularized incomplete beta function ``I_x(a, b)`` (``scipy.special.betainc``).

    Parameters
    ----------
    a, b : array_like
        Real, positive shape parameters.
    x : array_like
        Real, in [0, 1] (the three broadcast together).

    Returns
    -------
    Array
        The broadcast shape, the inputs' floating dtype.

    Raises
    ------
    NotImplementedError
        For derivatives of order 4 or more in ``a``, ``b``.
    TypeError
        For complex input.

    Notes
    -----
    Derivatives: in ``x`` the beta density ``x^(a-1) (1-x)^(b-1) / B(a, b)`` (DLMF
    8.17.7); in ``a`` and ``b`` (orders 1 to 3; JAX has none) the
    continued fraction of DLMF 8.17.22 carried out in Taylor arithmetic along the
    differentiated direction, mixed derivatives by polarization.

    Examples
    --------
    >>> import ftrans, ftrans.scipy.special as fss
    >>> round(float(ftrans.grad(fss.betainc, argnums=2)(2.0, 3.0, 0.5)), 6)  # 12 x (1-x)^2
    1.5
    """
    a, b, x = _floats(a, b, x, name="betainc")
    return _pss.betainc(a, b, x)


def gammasgn(x: ArrayLike) -> Array:
    return _pss.gammasgn(_float(x, name="gammasgn"))


def rgamma(x: ArrayLike) -> Array:
    return _pss.rgamma(_float(x, name="rgamma"))


def erfcx(x: ArrayLike) -> Array:
    return _pss.erfcx(_float(x, name="erfcx"))


def erfcinv(y: ArrayLike) -> Array:
    return _pss.erfcinv(_float(y, name="erfcinv"))


def ndtr(x: ArrayLike) -> Array:
    return _pss.ndtr(_float(x, name="ndtr"))


def ndtri(p: ArrayLike) -> Array:
    return _pss.ndtri(_float(p, name="ndtri"))


def log_ndtr(x: ArrayLike) -> Array:
    return _pss.log_ndtr(_float(x, name="log_ndtr"))


gammasgn.__doc__ = _unary_doc(
    "Sign of the gamma function (``scipy.special.gammasgn``: 1, -1, NaN at the poles).",
    "Derivative 0 (piecewise constant).")
rgamma.__doc__ = _unary_doc(
    "``1 / Gamma(x)`` (``scipy.special.rgamma``; entire, 0 at ``x = 0, -1, -2, ...``).",
    "Derivative ``-rgamma(x) digamma(x)`` (DLMF 5.2.2), and its limit ``(-1)^n n!`` at "
    "the\n    zeros ``x = -n``.")
erfcx.__doc__ = _unary_doc(
    "Scaled complementary error function ``exp(x^2) erfc(x)`` (``scipy.special.erfcx``).",
    "Derivative ``2 x erfcx(x) - 2/sqrt(pi)`` (DLMF 7.10).")
erfcinv.__doc__ = _unary_doc(
    "Inverse of ``erfc`` on [0, 2] (``scipy.special.erfcinv``: +-inf at 0 and 2).",
    "Accurate for tiny ``y``.  Derivative ``-sqrt(pi)/2 exp(erfcinv(y)^2)``.", arg="y")
ndtr.__doc__ = _unary_doc(
    "Standard normal CDF ``(1 + erf(x/sqrt(2)))/2`` (``scipy.special.ndtr``).",
    "Derivative: the standard normal density.") + """
    Examples
    --------
    >>> import ftrans.scipy.special as fss
    >>> float(fss.ndtr(0.0))
    0.5
    """
ndtri.__doc__ = _unary_doc(
    "Inverse of :func:`ndtr` on [0, 1] (``scipy.special.ndtri``: +-inf at 1 and 0).",
    "Derivative ``sqrt(2 pi) exp(ndtri(p)^2 / 2)``.", arg="p")
log_ndtr.__doc__ = _unary_doc(
    "``log(ndtr(x))``, accurate in both tails (``scipy.special.log_ndtr``).",
    "The derivative ``pdf(x)/cdf(x)`` is computed as ``sqrt(2/pi) / erfcx(-x/sqrt(2))``\n"
    "    for ``x <= 0`` (about ``-x`` in the far left tail, where the quotient of the "
    "density\n    and the CDF would underflow to 0/0) and as ``exp(-x^2/2 - log_ndtr(x))"
    "/sqrt(2 pi)``\n    for ``x > 0``: finite, and with finite higher derivatives, for "
    "every finite ``x``.") + """
    Examples
    --------
    >>> import ftrans, ftrans.scipy.special as fss
    >>> round(float(ftrans.grad(fss.log_ndtr)(-40.0)), 3)
    40.025
    """


def zeta(x: ArrayLike, q: ArrayLike | None = None) -> Array:
    """Riemann or Hurwitz zeta function ``sum_{n>=0} (n + q)^(-x)`` (``scipy.special.zeta``).

    Parameters
    ----------
    x : array_like
        The real exponent (``x > 1`` for the Hurwitz series; the Riemann function is
        continued analytically to ``x < 1`` as in SciPy).
    q : array_like or None, optional
        The real shift, ``q > 0``; None for the Riemann function.

    Returns
    -------
    Array
        The broadcast shape, the inputs' floating dtype.

    Raises
    ------
    NotImplementedError
        When differentiated with respect to ``x`` (no SciPy kernel).
    TypeError
        For complex input.

    Notes
    -----
    The derivative in ``q`` is ``-x zeta(x + 1, q)`` (DLMF 25.11.17).
    """
    if q is None:
        return _pss.riemann_zeta(_float(x, name="zeta"))
    xa, qa = _floats(x, q, name="zeta")
    return _pss.zeta(xa, qa)


def _order_and_arg(v: ArrayLike, x: ArrayLike, name: str) -> tuple[Array | float, Array]:
    """The Bessel order ``v`` (kept as given when it is an integer/Python number, so the
    order never changes the dtype) and the argument ``x`` as floats."""
    if isinstance(v, (int, float)):
        return float(v), _float(x, name=name)
    va, xa = _floats(v, x, name=name)
    return va, xa


_BESSEL_DOC = """{summary} (``scipy.special.{name}``).

    Parameters
    ----------
    {params}

    Returns
    -------
    Array
        The broadcast shape, the floating dtype of the inputs (ints -> float64, float32
        stays float32).

    Raises
    ------
    {raises}

    Notes
    -----
    Derivative in ``x``: {deriv} (DLMF {dlmf}).
"""
_RAISES_V = """NotImplementedError
        When differentiated with respect to the order ``v`` (no SciPy kernel for the
        derivative in the order); differentiate in ``x`` only, with ``v`` a constant
        (reverse mode also refuses an order computed from a differentiated input behind
        ``stop_gradient``).
    TypeError
        For complex input."""
_RAISES_X = """TypeError
        For complex input."""


def _bessel1(name: str, summary: str, deriv: str, dlmf: str) -> Callable[[ArrayLike], Array]:
    """The public function ``name(x)`` of a Bessel-type kernel, with its docstring."""
    fn = getattr(_pss, name) if hasattr(_pss, name) else getattr(P, name)

    def f(x: ArrayLike) -> Array:
        return fn(_float(x, name=name))
    f.__name__ = f.__qualname__ = name
    f.__doc__ = _BESSEL_DOC.format(summary=summary, name=name, deriv=deriv, dlmf=dlmf,
                                   raises=_RAISES_X,
                                   params="x : array_like\n        Real input.")
    return f


def _bessel2(name: str, summary: str, deriv: str, dlmf: str
             ) -> Callable[[ArrayLike, ArrayLike], Array]:
    """The public function ``name(v, x)`` of a Bessel kernel of real order, with its
    docstring."""
    fn = getattr(_pss, name)

    def f(v: ArrayLike, x: ArrayLike) -> Array:
        va, xa = _order_and_arg(v, x, name)
        return fn(va, xa)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = _BESSEL_DOC.format(
        summary=summary, name=name, deriv=deriv, dlmf=dlmf, raises=_RAISES_V,
        params="v : array_like\n        The real order (not differentiable).\n"
               "    x : array_like\n        The real argument (broadcasts against v).")
    return f


j0 = _bessel1("j0", "Bessel function of the first kind of order 0", "``-j1(x)``", "10.6.2")
j1 = _bessel1("j1", "Bessel function of the first kind of order 1",
              "``(j0(x) - jv(2, x))/2``", "10.6.1")
y0 = _bessel1("y0", "Bessel function of the second kind of order 0", "``-y1(x)``", "10.6.2")
y1 = _bessel1("y1", "Bessel function of the second kind of order 1",
              "``(y0(x) - yv(2, x))/2``", "10.6.1")


def _row_function(op: Any) -> Callable[[ArrayLike], Array]:
    """The public function of a SciPy-backed row of the operation table (``i0``, ``i1``,
    ``i0e``, ``i1e``): its doc line and derivative come from the row."""
    name = op.kernel.rpartition(".")[2]
    return _bessel1(name, op.doc.rstrip("."), f"``{op.deriv[0]}``", "10.29")


for _op in P.optable.ROWS:
    if _op.kernel.startswith("scipy.special.") and _op.arity == 1:
        _f = _row_function(_op)
        globals()[_f.__name__] = _f
        __all__.append(_f.__name__)
jv = _bessel2("jv", "Bessel function of the first kind of real order ``v``",
              "``(jv(v-1, x) - jv(v+1, x))/2``", "10.6.1")
yv = _bessel2("yv", "Bessel function of the second kind of real order ``v``",
              "``(yv(v-1, x) - yv(v+1, x))/2``", "10.6.1")
iv = _bessel2("iv", "Modified Bessel function of the first kind of real order ``v``",
              "``(iv(v-1, x) + iv(v+1, x))/2``", "10.29.1")
ive = _bessel2("ive", "Exponentially scaled ``iv``: ``exp(-|x|) iv(v, x)``",
               "``(ive(v-1, x) + ive(v+1, x))/2 - sign(x) ive(v, x)``", "10.29.1")
kv = _bessel2("kv", "Modified Bessel function of the second kind of real order ``v``",
              "``-(kv(v-1, x) + kv(v+1, x))/2``", "10.29.1")
kve = _bessel2("kve", "Exponentially scaled ``kv``: ``exp(x) kv(v, x)``",
               "``-(kve(v-1, x) + kve(v+1, x))/2 + kve(v, x)``", "10.29.1")
