"""More SciPy-backed special-function primitives: incomplete gamma and beta functions,
the normal distribution's functions, ``erfcx``/``erfcinv``, ``rgamma``/``gammasgn``,
the Hurwitz zeta function and the Bessel functions.

Each is elementwise (NumPy broadcasting, batched by the elementwise rule) with SciPy's
ufunc (``cupyx.scipy.special`` on the GPU, chunk-wise on Dask) as its kernel; the
derivative with respect to each input is a formula in ftrans operations (so every order
differentiates again), a refusal, or none:

================  ===========================================================  ============
primitive         derivative                                                   source
================  ===========================================================  ============
gammainc(a, x)    a: igamma_da(a, x, 1); x: x^(a-1) e^-x / Gamma(a)            DLMF 8.8.13
gammaincc(a, x)   minus those of gammainc                                      DLMF 8.2.3
igamma_da(a,x,k)  a: igamma_da(a, x, k+1); x: d^k/da^k [x^(a-1) e^-x/Gamma(a)]  (this file)
betainc(a, b, x)  x: x^(a-1) (1-x)^(b-1) / B(a, b); a, b: ibeta_dir             DLMF 8.17.7
ibeta_dir(..)     a, b: orders 2, 3 by polarization (order 4: refused);
                  x: d^k/dt^k of the beta density along (ua, ub)               (this file)
ndtr(x)           exp(-x^2/2) / sqrt(2 pi)                                     DLMF 7.2
ndtri(p)          sqrt(2 pi) exp(ans^2 / 2)                                    inverse rule
log_ndtr(x)       pdf/cdf: sqrt(2/pi)/erfcx(-x/sqrt 2) for x <= 0 (no 0/0)      DLMF 7.2.3
erfcx(x)          2 x erfcx(x) - 2/sqrt(pi)                                    DLMF 7.10
erfcinv(y)        -sqrt(pi)/2 exp(ans^2)                                       inverse rule
rgamma(x)         -rgamma(x) digamma(x); (-1)^n n! at the zeros x = -n         DLMF 5.2.2
gammasgn(x)       0 (piecewise constant)
zeta(x, q)        q: -x zeta(x+1, q); x: NotImplementedError                   DLMF 25.11.17
j0, j1, y0, y1    j0' = -j1, j1' = (j0 - jv(2, .))/2, likewise y               DLMF 10.6.2
jv, yv (v, x)     x: (C(v-1, x) - C(v+1, x))/2                                 DLMF 10.6.1
iv (v, x)         x: (iv(v-1, x) + iv(v+1, x))/2                               DLMF 10.29.1
ive (v, x)        x: (ive(v-1, x) + ive(v+1, x))/2 - sign(x) ive(v, x)         (scaling)
kv (v, x)         x: -(kv(v-1, x) + kv(v+1, x))/2                              DLMF 10.29.1
kve (v, x)        x: -(kve(v-1, x) + kve(v+1, x))/2 + kve(v, x)                (scaling)
airy_ai(x)        airy_aip(x); airy_aip' = x airy_ai(x) (Airy's equation)      DLMF 9.2.1
================  ===========================================================  ============

The order ``v`` of the Bessel functions and the exponent ``x`` of ``zeta`` are ordinary
(broadcasting, batchable) inputs, but their derivatives raise ``NotImplementedError``
naming the function and the argument (SciPy has no kernel for them; betainc's fourth
derivatives in ``a``, ``b`` likewise); a derivative that
is not requested is never computed, so ``grad`` in the other argument works.
``igamma_da`` is the derivative ``d^k/da^k gammainc(a, x)`` (``k = 1``: JAX's
``lax.igamma_grad_a``), computed by :mod:`ftrans.kernels._igamma`; ``ibeta_dir`` the
directional derivative ``d^k/dt^k betainc(a + t ua, b + t ub, x)`` by
:mod:`ftrans.kernels._ibeta`.

Compiled (``ftrans.jit``, CPU), each but ``zeta``, ``riemann_zeta``, ``igamma_da`` and
``ibeta_dir`` calls SciPy's own kernel inside the generated loop (exactly SciPy's result;
:mod:`ftrans.compiler._numba_special_support`); those four graph-break to their impl.

dtypes: real floating inputs keep the promoted dtype (float32 stays float32, also where
SciPy's kernel has no float32 loop); complex inputs raise ``TypeError``.
"""
from __future__ import annotations

import functools
import math
import types

import numpy as np

from ..core import Primitive, ShapedArray
from ..core.dtypes import kind_of
from ..kernels import special_module, backend_for
from ..kernels._igamma import igamma_da as _igamma_da_kernel
from ..kernels._ibeta import ibeta_dir as _ibeta_dir_kernel
from ._rules import def_elementwise, elementwise_abstract_eval
from ._base import where, eq, gt, le, logical_and, logical_or, sign, floor, sub, add, mul, div, neg
from .elementwise import ROW_OPS
from .special import gammaln, digamma, polygamma

__all__ = ["gammainc", "gammaincc", "igamma_da", "betainc", "ibeta_dir", "ndtr", "ndtri",
           "log_ndtr", "erfcx", "erfcinv", "rgamma", "gammasgn", "zeta", "riemann_zeta", "j0",
           "j1", "y0", "y1", "jv", "yv", "iv", "ive", "kv", "kve", "airy_ai", "airy_aip",
           "SCIPY_SPECIAL_PRIMITIVES"]

# ops of the operation table (set with globals().update: looked up by name)
exp, log, cos = ROW_OPS["exp"], ROW_OPS["log"], ROW_OPS["cos"]

SCIPY_SPECIAL_PRIMITIVES: dict = {}


def _abstract(name):
    def abstract_eval(*avals, **params):
        a = elementwise_abstract_eval(*avals)
        if kind_of(a) == "c":
            raise TypeError(f"{name} is defined for real inputs only; got dtype {a.dtype}")
        dt = a.dtype if kind_of(a) == "f" else np.dtype(np.float64)
        return ShapedArray(a.shape, dt)
    return abstract_eval


def _out_dtype(args):
    dt = np.result_type(*[a if hasattr(a, "dtype") else type(a)(0) for a in args])
    if dt.kind == "c":
        raise TypeError(f"complex dtype {dt}: these special functions are real-only")
    return dt if dt.kind == "f" else np.dtype(np.float64)


def _first_array(args):
    """The operand whose array library computes: the first non-NumPy array (a NumPy 0-d
    array or scalar beside a CuPy array counts as a scalar), else the first array."""
    arrays = [a for a in args if hasattr(a, "shape")]
    for a in arrays:
        if not isinstance(a, (np.ndarray, np.generic)):
            return a
    return arrays[0] if arrays else np.asarray(args[0])


def _scipy_impl(name, sc_name, kernel=None):
    def impl(*args, **params):
        # array-API arrays (the standard has no special functions) raise here, naming
        # the primitive and the array type, before anything reads their dtypes
        sc = special_module(_first_array(args))
        dt = _out_dtype(args)
        if kernel is not None:
            be = backend_for(*args)
            fn = functools.partial(kernel, sc=special_module(np.zeros(())), **params)
            if type(be) is not types.ModuleType:
                # Dask: the NumPy kernel lazily, as one task on the whole operands
                shape = np.broadcast_shapes(*[tuple(np.shape(a)) for a in args])
                return be.on_numpy(name, fn, ShapedArray(shape, dt), *args)
            # NumPy-only kernel: CuPy arrays are brought to the host and back
            host = [np.asarray(a.get() if hasattr(a, "get") else a) for a in args]
            out = fn(*host)
            out = be.xp.asarray(out) if be.xp is not np else out
        else:
            out = getattr(sc, sc_name)(*args)
        if out.dtype != dt:
            out = out.astype(dt)
        return out
    impl.__name__ = f"{name}_impl"
    return impl


def _refuse(name, arg, why):
    def rule(*_, **__):
        raise NotImplementedError(
            f"{name}: the derivative with respect to {arg} is not implemented ({why}); "
            f"differentiate with respect to the other arguments only, with {arg} a "
            f"constant (not computed from a differentiated input)")
    return rule


# ``scipy.special.cython_special`` has no kernel of these (only ``zetac``): they graph-break
_NO_COMPILED_KERNEL = frozenset({"zeta"})


def _define(name, sc_name, derivs, kernel=None, numba=None):
    """An elementwise primitive; ``derivs[i]`` is ``d(ans, *args, **params)`` (ftrans
    ops), a ``("refuse", arg, why)`` triple, or None (no derivative).  Its compiled form
    calls SciPy's kernel ``numba`` (default ``sc_name``; see
    :mod:`ftrans.compiler._numba_special_support`) on its operands."""
    p = Primitive(name)
    jvps, vjps = [], []
    for d in derivs:
        if d is None:
            jvps.append(None)
            vjps.append(None)
        elif isinstance(d, tuple):
            jvps.append(_refuse(name, d[1], d[2]))
            vjps.append(_refuse(name, d[1], d[2]))
        else:
            jvps.append(lambda t, ans, *xs, _d=d, **kw: mul(t, _d(ans, *xs, **kw)))
            vjps.append(lambda ct, ans, *xs, _d=d, **kw: mul(ct, _d(ans, *xs, **kw)))
    def_elementwise(p, _scipy_impl(name, sc_name, kernel), jvps, vjps,
                    abstract_eval=_abstract(name))
    if numba is None and sc_name is not None and sc_name not in _NO_COMPILED_KERNEL:
        numba = sc_name
    if numba is not None:
        ops = "".join(", {%d}" % i for i in range(len(derivs)))
        p.lowering = {"kind": "elementwise", "numba": f'_sp{len(derivs)}("sc_{numba}"{ops})',
                      "cuda": None, "complex": False, "cast": "out", "float16": False}
    SCIPY_SPECIAL_PRIMITIVES[name] = p
    return p


_SQRT_2PI = math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_SQRT_PI_OVER_2 = math.sqrt(math.pi) / 2.0
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_NOKERNEL = "SciPy has no kernel for it"


# -- incomplete gamma ----------------------------------------------------------------
def _log_pos(x):
    """``(log x, x > 0)`` with log's argument guarded (no NaN in the unused branch)."""
    pos = gt(x, 0.0)
    return log(where(pos, x, 1.0)), pos


def _gamma_pdf_log(a, x):
    """``log(x^(a-1) e^-x / Gamma(a))``: at ``x == 0`` -inf (a > 1), 0 (a == 1) or inf."""
    lx, pos = _log_pos(x)
    at0 = where(gt(a, 1.0), -np.inf, where(eq(a, 1.0), 0.0, np.inf))
    return where(pos, sub(sub(mul(sub(a, 1.0), lx), x), gammaln(a)), at0)


def _exp_derivative(g, f0, k):
    """``d^k/dt^k exp(h)`` from ``f0 = exp(h)`` and ``g[m] = h^(m)`` (``g[0]`` unused):
    Faa di Bruno's recurrence ``f^(n) = sum_j C(n-1, j) h^(j+1) f^(n-1-j)``."""
    f = [f0]
    for n in range(1, k + 1):
        s = None
        for j in range(n):
            term = mul(float(math.comb(n - 1, j)), mul(g[j + 1], f[n - 1 - j]))
            s = term if s is None else add(s, term)
        f.append(s)
    return f[k]


def _gamma_pdf_da(a, x, k):
    """``d^k/da^k [x^(a-1) e^-x / Gamma(a)]`` (Faa di Bruno for ``exp(g)``:
    ``g' = log x - digamma(a)``, ``g^(m) = -polygamma(m-1, a)``)."""
    lx, _ = _log_pos(x)
    g = [None, sub(lx, digamma(a))] + [neg(polygamma(m - 1, a)) for m in range(2, k + 1)]
    return _exp_derivative(g, exp(_gamma_pdf_log(a, x)), k)


gammainc_p = _define("gammainc", "gammainc", [
    lambda ans, a, x: igamma_da(a, x, 1),
    lambda ans, a, x: exp(_gamma_pdf_log(a, x))])
gammaincc_p = _define("gammaincc", "gammaincc", [
    lambda ans, a, x: neg(igamma_da(a, x, 1)),
    lambda ans, a, x: neg(exp(_gamma_pdf_log(a, x)))])
igamma_da_p = _define("igamma_da", None, [
    lambda ans, a, x, *, k: igamma_da(a, x, k + 1),
    lambda ans, a, x, *, k: _gamma_pdf_da(a, x, k)], kernel=_igamma_da_kernel)


# -- incomplete beta -------------------------------------------------------------------
def _beta_pdf(a, b, x):
    """``x^(a-1) (1-x)^(b-1) / B(a, b)`` with the endpoint limits (0 or inf, 1 when
    the exponent is 0)."""
    inside = logical_and(gt(x, 0.0), gt(1.0, x))
    xs = where(inside, x, 0.5)
    lbeta = sub(add(gammaln(a), gammaln(b)), gammaln(add(a, b)))
    lg = sub(add(mul(sub(a, 1.0), log(xs)), mul(sub(b, 1.0), log(sub(1.0, xs)))), lbeta)
    e = where(le(x, 0.0), sub(a, 1.0), sub(b, 1.0))  # the exponent that matters at the end
    at_end = where(gt(e, 0.0), 0.0, where(eq(e, 0.0), exp(neg(lbeta)), np.inf))
    outside = logical_or(gt(x, 1.0), gt(0.0, x))
    return where(inside, exp(lg), where(outside, np.nan, at_end))


def _beta_pdf_dir(a, b, x, k, ua, ub):
    """``d^k/dt^k`` of the beta density at ``(a + t ua, b + t ub)`` (Faa di Bruno for
    ``exp(g)``: ``g' = ua (log x - psi(a) + psi(a+b)) + ub (log(1-x) - psi(b) + psi(a+b))``,
    ``g^(m) = -ua^m psi_(m-1)(a) - ub^m psi_(m-1)(b) + (ua+ub)^m psi_(m-1)(a+b)``)."""
    inside = logical_and(gt(x, 0.0), gt(1.0, x))
    xs = where(inside, x, 0.5)
    dab = digamma(add(a, b))
    g = [None, add(mul(float(ua), sub(log(xs), sub(digamma(a), dab))),
                   mul(float(ub), sub(log(sub(1.0, xs)), sub(digamma(b), dab))))]
    for m in range(2, k + 1):
        g.append(sub(mul(float((ua + ub) ** m), polygamma(m - 1, add(a, b))),
                     add(mul(float(ua ** m), polygamma(m - 1, a)),
                         mul(float(ub ** m), polygamma(m - 1, b)))))
    return _exp_derivative(g, _beta_pdf(a, b, x), k)


def _ibeta_hessian(a, b, x):
    """``(I_aa, I_ab, I_bb)``: the mixed one by polarization along (1, 1)."""
    haa = ibeta_dir(a, b, x, 2, 1, 0)
    hbb = ibeta_dir(a, b, x, 2, 0, 1)
    hab = mul(0.5, sub(ibeta_dir(a, b, x, 2, 1, 1), add(haa, hbb)))
    return haa, hab, hbb


def _ibeta_dir_dparam(which):
    """The derivative of ``ibeta_dir(k, ua, ub)`` in ``a`` (which=0) or ``b`` (1): the
    symmetric tensor ``T(u, .., u, e)`` of the next order, by polarization of directional
    derivatives: k = 1 from the Hessian; k = 2 as
    ``T(u, u, e) = (D3_{u+e} - D3_{u-e} - 2 D3_e) / 6``."""
    def d(ans, a, b, x, *, k, ua, ub):
        ea, eb = (1, 0) if which == 0 else (0, 1)
        if k == 1:
            haa, hab, hbb = _ibeta_hessian(a, b, x)
            row = (haa, hab) if which == 0 else (hab, hbb)
            return add(mul(float(ua), row[0]), mul(float(ub), row[1]))
        if k == 2:
            plus = ibeta_dir(a, b, x, 3, ua + ea, ub + eb)
            minus = ibeta_dir(a, b, x, 3, ua - ea, ub - eb)
            return div(sub(sub(plus, minus), mul(2.0, ibeta_dir(a, b, x, 3, ea, eb))), 6.0)
        raise NotImplementedError(
            "betainc: derivatives of order 4 and higher in a and b are not implemented "
            "(orders 1 to 3 are); differentiate at most three times in a, b")
    return d


betainc_p = _define("betainc", "betainc", [
    lambda ans, a, b, x: ibeta_dir(a, b, x, 1, 1, 0),
    lambda ans, a, b, x: ibeta_dir(a, b, x, 1, 0, 1),
    lambda ans, a, b, x: _beta_pdf(a, b, x)])
ibeta_dir_p = _define("ibeta_dir", None, [
    _ibeta_dir_dparam(0), _ibeta_dir_dparam(1),
    lambda ans, a, b, x, *, k, ua, ub: _beta_pdf_dir(a, b, x, k, ua, ub)],
    kernel=_ibeta_dir_kernel)


# -- normal distribution, erfcx, erfcinv ---------------------------------------------
def _npdf(x):
    return div(exp(mul(-0.5, mul(x, x))), _SQRT_2PI)


ndtr_p = _define("ndtr", "ndtr", [lambda ans, x: _npdf(x)])
ndtri_p = _define("ndtri", "ndtri", [lambda ans, p: mul(_SQRT_2PI, exp(mul(0.5, mul(ans, ans))))])
erfcx_p = _define("erfcx", "erfcx", [
    lambda ans, x: sub(mul(mul(2.0, x), ans), _TWO_OVER_SQRT_PI)])


def _log_ndtr_deriv(ans, x):
    """``pdf(x)/cdf(x)``: ``sqrt(2/pi)/erfcx(-x/sqrt 2)`` for ``x <= 0`` (no 0/0 in the
    left tail, erfcx <= 1 there) and ``exp(-x^2/2 - ans)/sqrt(2 pi)`` for ``x > 0`` (no
    overflowing erfcx, so the next derivative is finite too)."""
    neg_side = le(x, 0.0)
    xl = where(neg_side, x, 0.0)
    xr = where(neg_side, 0.0, x)
    left = div(_SQRT_2_OVER_PI, erfcx(mul(xl, -1.0 / math.sqrt(2.0))))
    right = div(exp(sub(mul(-0.5, mul(xr, xr)), where(neg_side, 0.0, ans))), _SQRT_2PI)
    return where(neg_side, left, right)


log_ndtr_p = _define("log_ndtr", "log_ndtr", [_log_ndtr_deriv])
erfcinv_p = _define("erfcinv", "erfcinv", [
    lambda ans, y: mul(-_SQRT_PI_OVER_2, exp(mul(ans, ans)))])


# -- rgamma, gammasgn ------------------------------------------------------------------
def _rgamma_deriv(ans, x):
    """``-rgamma(x) digamma(x)``; at the zeros ``x = -n`` (n = 0, 1, ...) the limit
    ``(-1)^n n! = cos(pi x) Gamma(1 - x)``."""
    pole = logical_and(eq(ans, 0.0), le(x, 0.0))
    pole = logical_and(pole, eq(x, floor(x)))
    xs = where(pole, 1.0, x)
    at_pole = mul(cos(mul(math.pi, x)), exp(gammaln(sub(1.0, where(pole, x, 0.0)))))
    return where(pole, at_pole, neg(mul(ans, digamma(xs))))


rgamma_p = _define("rgamma", "rgamma", [_rgamma_deriv])
gammasgn_p = _define("gammasgn", "gammasgn", [None])


# -- zeta ------------------------------------------------------------------------------
zeta_p = _define("zeta", "zeta", [
    ("refuse", "the exponent x", _NOKERNEL),
    lambda ans, x, q: neg(mul(x, zeta(add(x, 1.0), q)))])
riemann_zeta_p = _define("riemann_zeta", "zeta", [("refuse", "the exponent x", _NOKERNEL)])
# compiled, SciPy's ufuncs without a cython_special kernel (Hurwitz zeta) and the
# derivatives computed in Python run from the segment (an objmode block: no graph break)
for _p in (zeta_p, riemann_zeta_p, igamma_da_p, ibeta_dir_p):
    _p.lowering = {"kind": "objmode"}


# -- Bessel functions --------------------------------------------------------------------
_ORDER = ("refuse", "the order v", _NOKERNEL)

j0_p = _define("j0", "j0", [lambda ans, x: neg(j1(x))])


def _j1_deriv(ans, x):
    """``J1'(x) = J0(x) - J1(x) / x`` (DLMF 10.6.2), ``1/2`` at 0; from the order-0 and
    order-1 kernels, which every backend has (CuPy has no ``jv``).  The division reads a
    safe ``x`` so that the untaken branch's derivative at 0 is finite."""
    at0 = eq(x, 0.0)
    xs = where(at0, 1.0, x)
    return where(at0, 0.5, sub(j0(x), div(ans, xs)))


j1_p = _define("j1", "j1", [_j1_deriv])
y0_p = _define("y0", "y0", [lambda ans, x: neg(y1(x))])
# Y1'(x) = Y0(x) - Y1(x) / x (DLMF 10.6.2; x > 0, Y1 is -inf at 0)
y1_p = _define("y1", "y1", [lambda ans, x: sub(y0(x), div(ans, x))])
jv_p = _define("jv", "jv", [_ORDER, lambda ans, v, x: mul(0.5, sub(jv(sub(v, 1.0), x),
                                                                    jv(add(v, 1.0), x)))])
yv_p = _define("yv", "yv", [_ORDER, lambda ans, v, x: mul(0.5, sub(yv(sub(v, 1.0), x),
                                                                    yv(add(v, 1.0), x)))])
iv_p = _define("iv", "iv", [_ORDER, lambda ans, v, x: mul(0.5, add(iv(sub(v, 1.0), x),
                                                                    iv(add(v, 1.0), x)))])
ive_p = _define("ive", "ive", [_ORDER, lambda ans, v, x: sub(
    mul(0.5, add(ive(sub(v, 1.0), x), ive(add(v, 1.0), x))), mul(sign(x), ans))])
kv_p = _define("kv", "kv", [_ORDER, lambda ans, v, x: mul(-0.5, add(kv(sub(v, 1.0), x),
                                                                     kv(add(v, 1.0), x)))])
kve_p = _define("kve", "kve", [_ORDER, lambda ans, v, x: add(
    mul(-0.5, add(kve(sub(v, 1.0), x), kve(add(v, 1.0), x))), ans)])


# -- Airy function Ai and its derivative (``scipy.special.airy``'s first two results) -----
def _airy_part(k):
    def kernel(x, sc):
        return sc.airy(x)[k]
    return kernel


airy_ai_p = _define("airy_ai", None, [lambda ans, x: airy_aip(x)], kernel=_airy_part(0),
                    numba="airy_ai")
airy_aip_p = _define("airy_aip", None, [lambda ans, x: mul(x, airy_ai(x))],
                     kernel=_airy_part(1), numba="airy_aip")


# ops ---------------------------------------------------------------------------------
def gammainc(a, x):
    """Regularized lower incomplete gamma function ``P(a, x)``."""
    return gammainc_p.bind(a, x)


def gammaincc(a, x):
    """Regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return gammaincc_p.bind(a, x)


def igamma_da(a, x, k=1):
    """``d^k/da^k gammainc(a, x)`` for a static int ``k >= 1``."""
    k = int(k)
    if k < 1:
        raise ValueError(f"igamma_da: the order k must be a positive integer, got {k}")
    return igamma_da_p.bind(a, x, k=k)


def betainc(a, b, x):
    """Regularized incomplete beta function ``I_x(a, b)``."""
    return betainc_p.bind(a, b, x)


def ibeta_dir(a, b, x, k=1, ua=1, ub=0):
    """``d^k/dt^k betainc(a + t ua, b + t ub, x)`` at ``t = 0`` (static ints ``k >= 1``,
    ``ua``, ``ub``)."""
    return ibeta_dir_p.bind(a, b, x, k=int(k), ua=int(ua), ub=int(ub))


def ndtr(x):
    """Standard normal CDF."""
    return ndtr_p.bind(x)


def ndtri(p):
    """Inverse of ``ndtr``."""
    return ndtri_p.bind(p)


def log_ndtr(x):
    """``log(ndtr(x))``, accurate in both tails."""
    return log_ndtr_p.bind(x)


def erfcx(x):
    """Scaled complementary error function ``exp(x^2) erfc(x)``."""
    return erfcx_p.bind(x)


def erfcinv(y):
    """Inverse of ``erfc`` on [0, 2]."""
    return erfcinv_p.bind(y)


def rgamma(x):
    """``1 / Gamma(x)`` (0 at the poles of Gamma)."""
    return rgamma_p.bind(x)


def gammasgn(x):
    """Sign of ``Gamma(x)``."""
    return gammasgn_p.bind(x)


def zeta(x, q):
    """Hurwitz zeta function ``sum_{n>=0} (n + q)^-x``."""
    return zeta_p.bind(x, q)


def riemann_zeta(x):
    """Riemann zeta function (SciPy's ``zeta(x)``: analytic continuation for x < 1)."""
    return riemann_zeta_p.bind(x)


def j0(x):
    return j0_p.bind(x)


def j1(x):
    return j1_p.bind(x)


def y0(x):
    return y0_p.bind(x)


def y1(x):
    return y1_p.bind(x)


def jv(v, x):
    return jv_p.bind(v, x)


def yv(v, x):
    return yv_p.bind(v, x)


def iv(v, x):
    return iv_p.bind(v, x)


def ive(v, x):
    return ive_p.bind(v, x)


def kv(v, x):
    return kv_p.bind(v, x)


def kve(v, x):
    return kve_p.bind(v, x)


def airy_ai(x):
    """Airy function ``Ai(x)``."""
    return airy_ai_p.bind(x)


def airy_aip(x):
    """Derivative ``Ai'(x)`` of the Airy function."""
    return airy_aip_p.bind(x)
