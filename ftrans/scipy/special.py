"""``ftrans.scipy.special``: differentiable ``scipy.special`` functions.

Names, signatures and results follow ``scipy.special``; every function can be
differentiated (to any order) and vectorized with ``vmap``.

Primitives (``ftrans.primitives.special``, kernels from SciPy / ``cupyx.scipy.special``):
``erf``, ``erfc``, ``erfinv``, ``gammaln``, ``digamma`` (= ``psi``), ``polygamma``.
Their derivatives: ``erf' = 2/sqrt(pi) exp(-x^2)``, ``erfinv' = sqrt(pi)/2
exp(erfinv(x)^2)``, ``gammaln' = digamma``, ``digamma' = polygamma(1, .)``,
``polygamma(n, .)' = polygamma(n + 1, .)`` (DLMF 7.10.1, 5.2.2, 5.15.1).

Compositions of ftrans operations, written so that no gradient is NaN where the
mathematics has a finite one (the double-``where`` idiom, see
:mod:`ftrans.primitives.select`):

* ``expit(x) = exp(-logaddexp(0, -x))`` and ``log_expit(x) = -logaddexp(0, -x)``
  (:mod:`ftrans.nn`'s sigmoid and log_sigmoid; never overflow);
  ``softplus(x) = logaddexp(0, x)``; ``logit(p) = log(p) - log1p(-p)``.
* ``logsumexp``, ``softmax``, ``log_softmax``: :mod:`ftrans.nn`'s (``logsumexp``'s
  implementation is ``ftrans.numpy``'s): shifted by
  the (non-differentiated) maximum, so huge entries do not overflow and ``-inf`` entries
  get gradient 0; ``softmax``/``log_softmax`` likewise.
* ``xlogy(x, y)`` / ``xlog1py(x, y)``: 0 where ``x == 0`` (SciPy); the derivative in
  ``x`` is ``log(y)`` (also at ``x == 0``) and in ``y`` is ``x/y``; at ``x == 0`` with
  ``y`` at the singularity (``y <= 0``, resp. ``y <= -1``, or ``y == inf``) both are
  defined as 0 (PyTorch's rule for the ``x``-derivative; finite instead of NaN for ``y``).
* ``entr``, ``rel_entr``, ``kl_div``: SciPy's piecewise definitions (0 / inf branches)
  with safe inner values; derivatives of the ``x log x`` terms are ``-inf``/``inf`` at 0
  (the mathematical limit).
* ``gamma = gammasgn * exp(gammaln)``, ``beta``, ``betaln``, ``multigammaln``.

Incomplete gamma and beta functions, ``ndtr``/``ndtri``/``log_ndtr``, ``erfcx``,
``erfcinv``, ``rgamma``, ``gammasgn``, ``zeta`` and the Bessel functions (``j0`` ... ``kve``)
are documented in :mod:`ftrans.scipy._special_more`; the orthogonal polynomials
(``eval_chebyt`` ... ``eval_legendre``), ``airy_ai`` and ``spherical_jn`` in
``ftrans.scipy._special_poly``; all are re-exported here.

dtypes: float32 stays float32 (also where SciPy returns float64: ``polygamma``,
``multigammaln``); integer and bool inputs become float64.  Complex inputs: ``erf``,
``erfc`` and ``logsumexp`` only (SciPy defines the others for real inputs only, or not as
entire functions); the rest raise ``TypeError``.
"""
from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Literal, cast, overload

import numpy as np

from ..core import Tracer
from .. import primitives as P
from ..primitives import special as _ps
from ..nn import activations as _nn
from ..typing import Array, ArrayLike, Axis
from ._args import _float, _floats, _unary_doc, _binary_doc

__all__ = ["erf", "erfc", "erfinv", "gammaln", "digamma", "psi", "polygamma", "gamma",
           "beta", "betaln", "multigammaln", "expit", "log_expit", "logit", "softplus",
           "xlogy", "xlog1py", "entr", "rel_entr", "kl_div", "softmax", "log_softmax",
           "logsumexp"]


# ---------------------------------------------------------------------------------
# argument normalization
# ---------------------------------------------------------------------------------
def _sg(x: Array) -> Array:
    return P.stop_gradient(x)


def _like(c: Array, x: Array) -> Array:
    """``c`` (e.g. a ``where`` of two Python scalars, hence float64) in ``x``'s dtype."""
    return P.convert_element_type(c, x.dtype)


# ---------------------------------------------------------------------------------
# primitives
# ---------------------------------------------------------------------------------
def erf(z: ArrayLike) -> Array:
    """Error function ``2/sqrt(pi) int_0^z exp(-t^2) dt`` (``scipy.special.erf``).

    Parameters
    ----------
    z : array_like
        Real or complex input.

    Returns
    -------
    Array
        ``z``'s shape and floating dtype (ints give float64).

    Notes
    -----
    Derivative ``2/sqrt(pi) exp(-z^2)`` (DLMF 7.10.1).

    Examples
    --------
    >>> import ftrans.scipy.special as fss
    >>> float(fss.erf(0.0))
    0.0
    """
    return _ps.erf(_float(z, complex_ok=True, name="erf"))


def erfc(x: ArrayLike) -> Array:
    """Complementary error function ``1 - erf(x)`` (``scipy.special.erfc``).

    Parameters
    ----------
    x : array_like
        Real or complex input.

    Returns
    -------
    Array
        ``x``'s shape and floating dtype (ints give float64).
    """
    return _ps.erfc(_float(x, complex_ok=True, name="erfc"))


def erfinv(y: ArrayLike) -> Array:
    """Inverse of ``erf`` on [-1, 1] (``scipy.special.erfinv``; ``+-inf`` at ``+-1``).

    Parameters
    ----------
    y : array_like
        Real input in [-1, 1].

    Returns
    -------
    Array
        ``y``'s shape and floating dtype.

    Raises
    ------
    TypeError
        For complex input.

    Notes
    -----
    Derivative ``sqrt(pi)/2 exp(erfinv(y)^2)``.
    """
    return _ps.erfinv(_float(y, name="erfinv"))


def gammaln(x: ArrayLike) -> Array:
    """``log|Gamma(x)|`` (``scipy.special.gammaln``).

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
    Derivative ``digamma(x)`` (DLMF 5.2.2).

    Examples
    --------
    >>> import ftrans.scipy.special as fss
    >>> round(float(fss.gammaln(5.0)), 10)   # log(4!)
    3.1780538303
    """
    return _ps.gammaln(_float(x, name="gammaln"))


def digamma(x: ArrayLike) -> Array:
    """``psi(x) = d/dx log Gamma(x)`` (``scipy.special.digamma``, also ``psi``).

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
    Derivative ``polygamma(1, x)`` (DLMF 5.15.1).
    """
    return _ps.digamma(_float(x, name="digamma"))


psi = digamma


def polygamma(n: ArrayLike, x: ArrayLike) -> Array:
    """``n``-th derivative of ``digamma`` (``scipy.special.polygamma``).

    ``polygamma(0, x) == digamma(x)``.

    Parameters
    ----------
    n : int or array_like of int
        Non-negative orders: a Python int or a concrete integer array broadcasting
        against ``x`` (not a tracer: ``n`` is not differentiable).
    x : array_like
        Real input.

    Returns
    -------
    Array
        The broadcast shape, ``x``'s floating dtype (float32 stays float32).

    Raises
    ------
    TypeError
        If ``n`` is traced or not integral, or ``x`` is complex.
    ValueError
        If an order is negative.

    Notes
    -----
    Derivative in ``x``: ``polygamma(n + 1, x)``.
    """
    x = _float(x, name="polygamma")
    if isinstance(n, Tracer):
        raise TypeError("polygamma: the order n must be concrete (an int or an integer "
                        "array), not a traced value")
    n_arr = np.asarray(n)
    if n_arr.dtype.kind not in "iub" and not (n_arr.dtype.kind == "f"
                                             and np.all(n_arr == np.round(n_arr))):
        raise TypeError(f"polygamma: n must be an integer or integer array, got {n!r}")
    if np.any(n_arr < 0):
        raise ValueError(f"polygamma: n must be non-negative, got {n!r}")
    n_arr = n_arr.astype(np.int64)
    if n_arr.ndim == 0:
        return _ps.polygamma(int(n_arr), x)
    if n_arr.size == 0:                    # (the empty broadcast result, as SciPy)
        return P.where(np.zeros(n_arr.shape, np.bool_), x, x)
    out = None
    for k in np.unique(n_arr):
        term = P.where(n_arr == k, _ps.polygamma(int(k), x), 0.0)
        out = term if out is None else P.add(out, term)
    return cast(Array, out)


def _gammasgn(x: Array) -> Array:
    """Sign of Gamma(x) (piecewise constant, no derivative): 1 for x > 0; for x < 0
    ``(-1)^ceil(-x)``; 0 at the poles is not represented (Gamma is inf/nan there)."""
    fl = P.floor(x)
    odd = P.ne(P.sub(fl, P.mul(2.0, P.floor(P.mul(fl, 0.5)))), 0.0)
    return P.where(P.gt(x, 0.0), 1.0, P.where(odd, -1.0, 1.0))


def gamma(z: ArrayLike) -> Array:
    """The gamma function ``Gamma(z) = gammasgn(z) * exp(gammaln(z))`` (``scipy.special.gamma``).

    Parameters
    ----------
    z : array_like
        Real input.

    Returns
    -------
    Array
        ``z``'s shape and floating dtype.

    Raises
    ------
    TypeError
        For complex input.

    Notes
    -----
    Derivative ``Gamma(z) digamma(z)``.

    Examples
    --------
    >>> import ftrans.scipy.special as fss
    >>> round(float(fss.gamma(5.0)), 9)
    24.0
    """
    z = _float(z, name="gamma")
    return P.mul(_sgn_like(_gammasgn(z), z), P.ROW_OPS["exp"](_ps.gammaln(z)))


def _sgn_like(s: Array, x: Array) -> Array:
    """A sign array as a constant of ``x``'s dtype."""
    return _sg(P.convert_element_type(s, x.dtype))


def betaln(a: ArrayLike, b: ArrayLike) -> Array:
    """``log|B(a, b)| = gammaln(a) + gammaln(b) - gammaln(a + b)`` (``scipy.special.betaln``).

    Parameters
    ----------
    a, b : array_like
        Real inputs (broadcast together).

    Returns
    -------
    Array
        The broadcast shape, the inputs' common floating dtype.

    Raises
    ------
    TypeError
        For complex input.
    """
    a, b = _floats(a, b, name="betaln")
    return P.sub(P.add(_ps.gammaln(a), _ps.gammaln(b)), _ps.gammaln(P.add(a, b)))


def beta(a: ArrayLike, b: ArrayLike) -> Array:
    """The beta function ``B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b)`` (``scipy.special.beta``).

    Computed from ``betaln`` and the signs of the three Gamma factors.

    Parameters
    ----------
    a, b : array_like
        Real inputs (broadcast together).

    Returns
    -------
    Array
        The broadcast shape, the inputs' common floating dtype.

    Raises
    ------
    TypeError
        For complex input.
    """
    a, b = _floats(a, b, name="beta")
    s = P.mul(P.mul(_gammasgn(a), _gammasgn(b)), _gammasgn(P.add(a, b)))
    return P.mul(_sgn_like(s, a), P.ROW_OPS["exp"](betaln(a, b)))


def multigammaln(a: ArrayLike, d: int) -> Array:
    """Log of the multivariate gamma function of dimension ``d`` (``scipy.special.multigammaln``).

    ``d(d-1)/4 log(pi) + sum_{j=1}^{d} gammaln(a + (1 - j)/2)``.

    Parameters
    ----------
    a : array_like
        Real input.
    d : int
        The dimension, a positive Python int.

    Returns
    -------
    Array
        ``a``'s shape and floating dtype (float32 stays float32).

    Raises
    ------
    ValueError
        If ``d < 1``.
    TypeError
        For complex ``a`` or a non-integer ``d``.
    """
    d = operator.index(d)
    if d < 1:
        raise ValueError(f"multigammaln: d must be a positive integer, got {d}")
    a = _float(a, name="multigammaln")
    out = _ps.gammaln(a)
    for j in range(2, d + 1):
        out = P.add(out, _ps.gammaln(P.add(a, (1 - j) / 2.0)))
    return P.add(out, d * (d - 1) / 4.0 * math.log(math.pi))


# ---------------------------------------------------------------------------------
# logistic family
# ---------------------------------------------------------------------------------
def expit(x: ArrayLike) -> Array:
    return _nn.sigmoid(_float(x, name="expit"))


def log_expit(x: ArrayLike) -> Array:
    return _nn.log_sigmoid(_float(x, name="log_expit"))


def softplus(x: ArrayLike) -> Array:
    x = _float(x, name="softplus")
    return P.ROW_OPS["logaddexp"](0.0, x)


def logit(p: ArrayLike) -> Array:
    p = _float(p, name="logit")
    return P.sub(P.ROW_OPS["log"](p), P.ROW_OPS["log1p"](P.neg(p)))


expit.__doc__ = _unary_doc(
    "Logistic sigmoid ``1 / (1 + exp(-x))`` (``scipy.special.expit``).",
    ":func:`ftrans.nn.sigmoid`: ``exp(-logaddexp(0, -x))``, no overflow and no NaN "
    "gradient\n    at large ``|x|``.")
log_expit.__doc__ = _unary_doc(
    "``log(expit(x)) = -logaddexp(0, -x)`` (``scipy.special.log_expit``).",
    ":func:`ftrans.nn.log_sigmoid`.")
softplus.__doc__ = _unary_doc(
    "``log(1 + exp(x)) = logaddexp(0, x)`` (``scipy.special.softplus``).",
    "Stable at large ``|x|``.")
logit.__doc__ = _unary_doc(
    "``log(p / (1 - p)) = log(p) - log1p(-p)`` (``scipy.special.logit``).",
    "Derivative ``1 / (p (1 - p))``.", arg="p")


# ---------------------------------------------------------------------------------
# x log y family
# ---------------------------------------------------------------------------------
def _x_log_f(x: ArrayLike, y: ArrayLike, logf: Callable[[Array], Array],
             bad: Callable[[Array], Array], name: str) -> Array:
    """``x * logf(y)`` with 0 where ``x == 0`` and ``y`` is at a singularity of ``logf``
    (``bad(y)``); ``y`` is replaced by a safe value there (double where)."""
    x, y = _floats(x, y, name=name)
    zero_x = P.eq(x, 0.0)
    mask = P.logical_and(zero_x, P.logical_or(bad(y), P.isinf(y)))
    safe_y = P.where(mask, 1.0, y)
    return P.where(mask, 0.0, P.mul(x, logf(safe_y)))


def xlogy(x: ArrayLike, y: ArrayLike) -> Array:
    return _x_log_f(x, y, P.ROW_OPS["log"], lambda y: P.le(y, 0.0), "xlogy")


def xlog1py(x: ArrayLike, y: ArrayLike) -> Array:
    return _x_log_f(x, y, P.ROW_OPS["log1p"], lambda y: P.le(y, -1.0), "xlog1py")


_XLOG_NOTE = ("The derivative in ``x`` is ``{}`` (also at ``x == 0``), in ``y`` ``{}``;"
              " at ``x == 0``\n    with ``y`` at the singularity both are 0 (PyTorch's "
              "rule for ``x``).")
xlogy.__doc__ = _binary_doc(
    "``x * log(y)``, 0 where ``x == 0`` unless ``y`` is nan (``scipy.special.xlogy``).",
    _XLOG_NOTE.format("log(y)", "x/y"))
xlog1py.__doc__ = _binary_doc(
    "``x * log1p(y)``, 0 where ``x == 0`` unless ``y`` is nan (``scipy.special.xlog1py``).",
    _XLOG_NOTE.format("log1p(y)", "x/(1 + y)"))


def entr(x: ArrayLike) -> Array:
    x = _float(x, name="entr")
    pos = P.gt(x, 0.0)
    xs = P.where(pos, x, 1.0)
    other = _like(P.where(P.eq(x, 0.0), 0.0, -np.inf), x)
    return P.where(pos, P.neg(P.mul(xs, P.ROW_OPS["log"](xs))), other)


entr.__doc__ = _unary_doc(
    "``-x log x`` for ``x > 0``, 0 at 0, ``-inf`` for ``x < 0`` (``scipy.special.entr``).",
    "The derivative at 0 is ``inf`` (the mathematical limit).")


def _rel_entr_parts(x: ArrayLike, y: ArrayLike, name: str
                    ) -> tuple[Array, Array, Array, Array, Array, Array]:
    x, y = _floats(x, y, name=name)
    ok = P.logical_and(P.gt(x, 0.0), P.gt(y, 0.0))
    xs, ys = P.where(ok, x, 1.0), P.where(ok, y, 1.0)
    zero_case = P.logical_and(P.eq(x, 0.0), P.ge(y, 0.0))
    return x, y, ok, xs, ys, zero_case


def rel_entr(x: ArrayLike, y: ArrayLike) -> Array:
    x, y, ok, xs, ys, zero_case = _rel_entr_parts(x, y, "rel_entr")
    val = P.mul(xs, P.sub(P.ROW_OPS["log"](xs), P.ROW_OPS["log"](ys)))
    return P.where(ok, val, _like(P.where(zero_case, 0.0, np.inf), x))


def kl_div(x: ArrayLike, y: ArrayLike) -> Array:
    x, y, ok, xs, ys, zero_case = _rel_entr_parts(x, y, "kl_div")
    val = P.add(P.sub(P.mul(xs, P.sub(P.ROW_OPS["log"](xs), P.ROW_OPS["log"](ys))), xs), ys)
    return P.where(ok, val, P.where(zero_case, y, np.inf))


rel_entr.__doc__ = _binary_doc(
    "``x log(x / y)`` for ``x, y > 0``; 0 for ``x == 0, y >= 0``; inf otherwise "
    "(``scipy.special.rel_entr``).")
kl_div.__doc__ = _binary_doc(
    "``x log(x / y) - x + y`` for ``x, y > 0``; ``y`` for ``x == 0, y >= 0``; inf "
    "otherwise (``scipy.special.kl_div``).")


# ---------------------------------------------------------------------------------
# softmax family: defined once, in ftrans.nn (SciPy's default axis=None: all axes)
# ---------------------------------------------------------------------------------
def softmax(x: ArrayLike, axis: Axis = None) -> Array:
    """``exp(x) / sum(exp(x), axis)`` (``scipy.special.softmax``; :func:`ftrans.nn.softmax`).

    Shifted by the (non-differentiated) maximum, so large entries do not overflow.

    Parameters
    ----------
    x : array_like
        Real input.
    axis : int, sequence of int or None, optional
        The axes normalized over; None (SciPy's default) normalizes over all elements.

    Returns
    -------
    Array
        ``x``'s shape and floating dtype.

    Raises
    ------
    TypeError
        For complex input.

    Examples
    --------
    >>> import ftrans.scipy.special as fss
    >>> fss.softmax([0.0, 0.0])
    array([0.5, 0.5])
    """
    return _nn.softmax(_float(x, name="softmax"), axis=axis)


def log_softmax(x: ArrayLike, axis: Axis = None) -> Array:
    """``x - logsumexp(x, axis, keepdims=True)`` (``scipy.special.log_softmax``).

    :func:`ftrans.nn.log_softmax`.

    Parameters
    ----------
    x : array_like
        Real input.
    axis : int, sequence of int or None, optional
        The axes normalized over; None (SciPy's default): all elements.

    Returns
    -------
    Array
        ``x``'s shape and floating dtype.

    Raises
    ------
    TypeError
        For complex input.
    """
    return _nn.log_softmax(_float(x, name="log_softmax"), axis=axis)


@overload
def logsumexp(a: ArrayLike, axis: Axis = None, b: ArrayLike | None = None,
              keepdims: bool = False, return_sign: Literal[False] = False) -> Array: ...


@overload
def logsumexp(a: ArrayLike, axis: Axis = None, b: ArrayLike | None = None,
              keepdims: bool = False, *, return_sign: Literal[True]) -> tuple[Array, Array]: ...


def logsumexp(a: ArrayLike, axis: Axis = None, b: ArrayLike | None = None,
              keepdims: bool = False, return_sign: bool = False
              ) -> Array | tuple[Array, Array]:
    """``log(sum(b * exp(a), axis))`` computed stably (``scipy.special.logsumexp``).

    :func:`ftrans.nn.logsumexp`: shifted by the (non-differentiated) maximum, so huge
    entries do not overflow and ``-inf`` entries get gradient 0.

    Parameters
    ----------
    a : array_like
        Real or complex input.
    axis : int, sequence of int or None, optional
        The axes reduced; None: all.
    b : array_like, optional
        Weights broadcasting against ``a``.
    keepdims : bool, optional
        Keep the reduced axes with size 1.
    return_sign : bool, optional
        Also return the sign of the sum (then the log of its absolute value); with
        negative weights the sum may be negative.

    Returns
    -------
    Array or tuple of Array
        The reduced log-sum-exp; with ``return_sign`` the pair ``(log|sum|, sign)``.

    Examples
    --------
    >>> import ftrans.scipy.special as fss
    >>> round(float(fss.logsumexp([0.0, 0.0])), 12)    # log 2
    0.69314718056
    """
    if return_sign:
        return _nn.logsumexp(a, axis=axis, keepdims=keepdims, b=b, return_sign=True)
    return _nn.logsumexp(a, axis=axis, keepdims=keepdims, b=b)


# ---------------------------------------------------------------------------------
# incomplete gamma/beta, normal distribution, zeta, Bessel: ftrans/scipy/_special_more.py
# ---------------------------------------------------------------------------------
from . import _special_more, _special_poly  # noqa: E402

for _part in (_special_more, _special_poly):
    globals().update({_n: getattr(_part, _n) for _n in _part.__all__})
    __all__ += _part.__all__
del _part
