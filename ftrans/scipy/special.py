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

import numpy as np

from ..core import Tracer
from .. import primitives as P
from ..primitives import special as _ps
from ..nn import activations as _nn
from ._args import _float, _floats

__all__ = ["erf", "erfc", "erfinv", "gammaln", "digamma", "psi", "polygamma", "gamma",
           "beta", "betaln", "multigammaln", "expit", "log_expit", "logit", "softplus",
           "xlogy", "xlog1py", "entr", "rel_entr", "kl_div", "softmax", "log_softmax",
           "logsumexp"]


# ---------------------------------------------------------------------------------
# argument normalization
# ---------------------------------------------------------------------------------
def _sg(x):
    return P.stop_gradient(x)


def _like(c, x):
    """``c`` (e.g. a ``where`` of two Python scalars, hence float64) in ``x``'s dtype."""
    return P.convert_element_type(c, x.dtype)


# ---------------------------------------------------------------------------------
# primitives
# ---------------------------------------------------------------------------------
def erf(z):
    """Error function; real or complex.  Derivative ``2/sqrt(pi) exp(-z^2)``."""
    return _ps.erf(_float(z, complex_ok=True, name="erf"))


def erfc(x):
    """Complementary error function ``1 - erf(x)``; real or complex."""
    return _ps.erfc(_float(x, complex_ok=True, name="erfc"))


def erfinv(y):
    """Inverse of ``erf`` on [-1, 1] (``+-inf`` at ``+-1``); real only.  Derivative
    ``sqrt(pi)/2 exp(erfinv(y)^2)``."""
    return _ps.erfinv(_float(y, name="erfinv"))


def gammaln(x):
    """``log|Gamma(x)|``; real only.  Derivative ``digamma(x)``."""
    return _ps.gammaln(_float(x, name="gammaln"))


def digamma(x):
    """``psi(x) = d/dx log Gamma(x)``; real only.  Derivative ``polygamma(1, x)``."""
    return _ps.digamma(_float(x, name="digamma"))


psi = digamma


def polygamma(n, x):
    """``n``-th derivative of ``digamma`` (``polygamma(0, x) == digamma(x)``); real ``x``.

    ``n``: a non-negative Python int, or a concrete integer array broadcasting against
    ``x`` (not a tracer: ``n`` is not differentiable).  Derivative in ``x``:
    ``polygamma(n + 1, x)``.
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
    out = None
    for k in np.unique(n_arr):
        term = P.where(n_arr == k, _ps.polygamma(int(k), x), 0.0)
        out = term if out is None else P.add(out, term)
    return out


def _gammasgn(x):
    """Sign of Gamma(x) (piecewise constant, no derivative): 1 for x > 0; for x < 0
    ``(-1)^ceil(-x)``; 0 at the poles is not represented (Gamma is inf/nan there)."""
    fl = P.floor(x)
    odd = P.ne(P.sub(fl, P.mul(2.0, P.floor(P.mul(fl, 0.5)))), 0.0)
    return P.where(P.gt(x, 0.0), 1.0, P.where(odd, -1.0, 1.0))


def gamma(z):
    """``Gamma(z) = gammasgn(z) * exp(gammaln(z))``; real only.  Derivative
    ``Gamma(z) digamma(z)``."""
    z = _float(z, name="gamma")
    return P.mul(_sgn_like(_gammasgn(z), z), P.exp(_ps.gammaln(z)))


def _sgn_like(s, x):
    """A sign array as a constant of ``x``'s dtype."""
    return _sg(P.convert_element_type(s, x.dtype))


def betaln(a, b):
    """``log|B(a, b)| = gammaln(a) + gammaln(b) - gammaln(a + b)``; real only."""
    a, b = _floats(a, b, name="betaln")
    return P.sub(P.add(_ps.gammaln(a), _ps.gammaln(b)), _ps.gammaln(P.add(a, b)))


def beta(a, b):
    """``B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b)`` (via ``betaln`` and the signs of the
    three Gamma factors); real only."""
    a, b = _floats(a, b, name="beta")
    s = P.mul(P.mul(_gammasgn(a), _gammasgn(b)), _gammasgn(P.add(a, b)))
    return P.mul(_sgn_like(s, a), P.exp(betaln(a, b)))


def multigammaln(a, d):
    """Log of the multivariate gamma function of dimension ``d`` (a Python int):
    ``d(d-1)/4 log(pi) + sum_{j=1}^{d} gammaln(a + (1 - j)/2)``; real only."""
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
def expit(x):
    """Logistic sigmoid ``1 / (1 + exp(-x))``; real only.  :func:`ftrans.nn.sigmoid`
    (``exp(-logaddexp(0, -x))``: no overflow, no NaN gradient at large ``|x|``)."""
    return _nn.sigmoid(_float(x, name="expit"))


def log_expit(x):
    """``log(expit(x)) = -logaddexp(0, -x)``; real only.  :func:`ftrans.nn.log_sigmoid`."""
    return _nn.log_sigmoid(_float(x, name="log_expit"))


def softplus(x):
    """``log(1 + exp(x)) = logaddexp(0, x)`` (stable at large ``|x|``); real only."""
    x = _float(x, name="softplus")
    return P.logaddexp(0.0, x)


def logit(p):
    """``log(p / (1 - p)) = log(p) - log1p(-p)``; real only.  Derivative
    ``1 / (p (1 - p))``."""
    p = _float(p, name="logit")
    return P.sub(P.log(p), P.log1p(P.neg(p)))


# ---------------------------------------------------------------------------------
# x log y family
# ---------------------------------------------------------------------------------
def _x_log_f(x, y, logf, bad, name):
    """``x * logf(y)`` with 0 where ``x == 0`` and ``y`` is at a singularity of ``logf``
    (``bad(y)``); ``y`` is replaced by a safe value there (double where)."""
    x, y = _floats(x, y, name=name)
    zero_x = P.eq(x, 0.0)
    mask = P.logical_and(zero_x, P.logical_or(bad(y), P.isinf(y)))
    safe_y = P.where(mask, 1.0, y)
    return P.where(mask, 0.0, P.mul(x, logf(safe_y)))


def xlogy(x, y):
    """``x * log(y)``, 0 where ``x == 0`` (unless ``y`` is nan); real only."""
    return _x_log_f(x, y, P.log, lambda y: P.le(y, 0.0), "xlogy")


def xlog1py(x, y):
    """``x * log1p(y)``, 0 where ``x == 0`` (unless ``y`` is nan); real only."""
    return _x_log_f(x, y, P.log1p, lambda y: P.le(y, -1.0), "xlog1py")


def entr(x):
    """``-x log x`` for ``x > 0``, 0 at 0, ``-inf`` for ``x < 0`` (SciPy); real only."""
    x = _float(x, name="entr")
    pos = P.gt(x, 0.0)
    xs = P.where(pos, x, 1.0)
    other = _like(P.where(P.eq(x, 0.0), 0.0, -np.inf), x)
    return P.where(pos, P.neg(P.mul(xs, P.log(xs))), other)


def _rel_entr_parts(x, y, name):
    x, y = _floats(x, y, name=name)
    ok = P.logical_and(P.gt(x, 0.0), P.gt(y, 0.0))
    xs, ys = P.where(ok, x, 1.0), P.where(ok, y, 1.0)
    zero_case = P.logical_and(P.eq(x, 0.0), P.ge(y, 0.0))
    return x, y, ok, xs, ys, zero_case


def rel_entr(x, y):
    """``x log(x / y)`` for ``x, y > 0``; 0 for ``x == 0, y >= 0``; inf otherwise."""
    x, y, ok, xs, ys, zero_case = _rel_entr_parts(x, y, "rel_entr")
    val = P.mul(xs, P.sub(P.log(xs), P.log(ys)))
    return P.where(ok, val, _like(P.where(zero_case, 0.0, np.inf), x))


def kl_div(x, y):
    """``x log(x / y) - x + y`` for ``x, y > 0``; ``y`` for ``x == 0, y >= 0``; inf
    otherwise (SciPy)."""
    x, y, ok, xs, ys, zero_case = _rel_entr_parts(x, y, "kl_div")
    val = P.add(P.sub(P.mul(xs, P.sub(P.log(xs), P.log(ys))), xs), ys)
    return P.where(ok, val, P.where(zero_case, y, np.inf))


# ---------------------------------------------------------------------------------
# softmax family: defined once, in ftrans.nn (SciPy's default axis=None: all axes)
# ---------------------------------------------------------------------------------
def softmax(x, axis=None):
    """``exp(x) / sum(exp(x), axis)`` (shifted by the max; SciPy's default ``axis=None``
    normalizes over all elements); real only.  :func:`ftrans.nn.softmax`."""
    return _nn.softmax(_float(x, name="softmax"), axis=axis)


def log_softmax(x, axis=None):
    """``x - logsumexp(x, axis, keepdims=True)``; real only.  :func:`ftrans.nn.log_softmax`."""
    return _nn.log_softmax(_float(x, name="log_softmax"), axis=axis)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """``scipy.special.logsumexp``: ``log(sum(b * exp(a), axis))`` computed stably, with
    SciPy's weights ``b`` and ``return_sign``; :func:`ftrans.nn.logsumexp`."""
    return _nn.logsumexp(a, axis=axis, keepdims=keepdims, b=b, return_sign=return_sign)


# ---------------------------------------------------------------------------------
# incomplete gamma/beta, normal distribution, zeta, Bessel: ftrans/scipy/_special_more.py
# ---------------------------------------------------------------------------------
from . import _special_more, _special_poly  # noqa: E402

for _part in (_special_more, _special_poly):
    globals().update({_n: getattr(_part, _n) for _n in _part.__all__})
    __all__ += _part.__all__
del _part
