"""Special-function primitives: ``erf``, ``erfc``, ``erfinv``, ``gammaln``, ``digamma``
and ``polygamma`` (with a static integer order ``n``).

All are elementwise (NumPy broadcasting, batched by the elementwise rule) and their
derivatives are written in ftrans operations, so every order differentiates again:

=============  ====================================================  ===================
primitive      derivative                                            source
=============  ====================================================  ===================
erf(x)         2/sqrt(pi) exp(-x^2)                                  DLMF 7.10.1
erfc(x)        -2/sqrt(pi) exp(-x^2)                                 DLMF 7.10.1
erfinv(x)      sqrt(pi)/2 exp(erfinv(x)^2)                           inverse function rule
gammaln(x)     digamma(x)                                            DLMF 5.2.2
digamma(x)     polygamma(1, x)                                       DLMF 5.15.1
polygamma(n,x) polygamma(n + 1, x)                                   DLMF 5.15.1
=============  ====================================================  ===================

dtypes: real floating inputs keep their dtype (float32 stays float32); ``erf`` and
``erfc`` are also defined for complex inputs (they are entire functions, SciPy computes
them, and the derivative formula holds on C: the VJP multiplies by its conjugate,
PyTorch's convention).  The others are real-only, as in SciPy (``gammaln`` is
``log|Gamma(x)|``, not the complex ``loggamma``; SciPy's ``polygamma`` has no complex
loop) and raise ``TypeError`` for complex input.  Integer and bool inputs are the
caller's job (``ftrans.scipy.special`` converts them to float64 first).

``gammaln(x)`` is ``log|Gamma(x)|``; its derivative ``digamma(x)`` holds for negative
non-integer ``x`` too.  At the poles (non-positive integers) the values are inf/nan as
in SciPy.

The kernels are SciPy's ``scipy.special`` ufuncs for NumPy arrays and
``cupyx.scipy.special`` for CuPy arrays, chosen in :func:`special_module` (the one place
that knows about the backends).
"""
from __future__ import annotations

import math

import numpy as np

from ..core import Primitive, ShapedArray
from ..core.dtypes import kind_of
from ..kernels import special_module
from ._rules import def_elementwise, conj, elementwise_abstract_eval
from .elementwise import mul, neg, ROW_OPS

__all__ = ["erf", "erfc", "erfinv", "gammaln", "digamma", "polygamma", "special_module",
           "SPECIAL_PRIMITIVES"]

# an op of the operation table (set with globals().update: looked up by name)
exp = ROW_OPS["exp"]

SPECIAL_PRIMITIVES: dict = {}

_COMPLEX_OK = frozenset({"erf", "erfc"})


def _abstract(name):
    def abstract_eval(x, **params):
        a = elementwise_abstract_eval(x)
        if kind_of(a) == "c" and name not in _COMPLEX_OK:
            raise TypeError(f"{name} is defined for real inputs only (SciPy has no complex "
                            f"{name}); got dtype {a.dtype}")
        dt = a.dtype if kind_of(a) in "fc" else np.dtype(np.float64)
        return ShapedArray(a.shape, dt)
    return abstract_eval


def _check(name, x):
    kind = np.result_type(x).kind if not hasattr(x, "dtype") else kind_of(x)
    if kind == "c" and name not in _COMPLEX_OK:
        raise TypeError(f"{name} is defined for real inputs only (SciPy has no complex "
                        f"{name}); got dtype {np.result_type(x)}")


def _impl(name, sc_name):
    def impl(x):
        _check(name, x)
        out = getattr(special_module(x), sc_name)(x)
        dt = getattr(x, "dtype", None)
        if dt is not None and dt.kind in "fc" and out.dtype != dt:
            out = out.astype(dt)
        return out
    impl.__name__ = f"{name}_impl"
    return impl


def _define(name, sc_name, deriv, params_impl=None):
    """An elementwise primitive with derivative ``deriv(x, ans, **params)`` (ftrans ops)."""
    p = Primitive(name)
    def_elementwise(
        p, params_impl or _impl(name, sc_name),
        [lambda t, ans, x, **kw: mul(t, deriv(x, ans, **kw))],
        [lambda ct, ans, x, **kw: mul(ct, conj(deriv(x, ans, **kw)))],
        abstract_eval=_abstract(name))
    SPECIAL_PRIMITIVES[name] = p
    return p


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0


def _gauss(x):
    return exp(neg(mul(x, x)))


erf_p = _define("erf", "erf", lambda x, ans: mul(_TWO_OVER_SQRT_PI, _gauss(x)))
erfc_p = _define("erfc", "erfc", lambda x, ans: mul(-_TWO_OVER_SQRT_PI, _gauss(x)))
erfinv_p = _define("erfinv", "erfinv",
                   lambda x, ans: mul(_SQRT_PI_OVER_TWO, exp(mul(ans, ans))))
gammaln_p = _define("gammaln", "gammaln", lambda x, ans: digamma(x))
digamma_p = _define("digamma", "psi", lambda x, ans: polygamma(1, x))
# compiler lowering (ftrans.compiler; real inputs: complex erf/erfc graph-break to SciPy):
# SciPy's own kernels (ftrans.compiler._numba_special_support)
for _p, _sc in ((erf_p, "erf"), (erfc_p, "erfc"), (erfinv_p, "erfinv"), (gammaln_p, "gammaln"),
                (digamma_p, "psi")):
    _p.lowering = {"kind": "elementwise", "numba": f'_sp1("sc_{_sc}", {{0}})', "cuda": None,
                   "complex": False, "cast": "out", "float16": False}


def _polygamma_impl(x, *, n):
    _check("polygamma", x)
    sc = special_module(x)
    out = sc.psi(x) if n == 0 else sc.polygamma(n, x)
    dt = getattr(x, "dtype", None)
    if dt is not None and dt.kind == "f" and out.dtype != dt:
        out = out.astype(dt)
    return out


polygamma_p = _define("polygamma", None, lambda x, ans, *, n: polygamma(n + 1, x),
                      params_impl=_polygamma_impl)
# (SciPy's polygamma is Python over its Hurwitz zeta ufunc, which cython_special does not
# export: compiled, the impl runs from the segment)
polygamma_p.lowering = {"kind": "objmode"}


# ops ------------------------------------------------------------------------------
def erf(x):
    """The error function ``2/sqrt(pi) int_0^x exp(-t^2) dt`` (real or complex)."""
    return erf_p.bind(x)


def erfc(x):
    """``1 - erf(x)``, accurate for large ``x`` (real or complex)."""
    return erfc_p.bind(x)


def erfinv(x):
    """The inverse of ``erf`` on (-1, 1) (real only; +-inf at +-1, nan outside)."""
    return erfinv_p.bind(x)


def gammaln(x):
    """``log|Gamma(x)|`` (real only)."""
    return gammaln_p.bind(x)


def digamma(x):
    """``psi(x) = Gamma'(x)/Gamma(x)`` (real only)."""
    return digamma_p.bind(x)


def polygamma(n, x):
    """The ``n``-th derivative of ``digamma`` for a static Python int ``n >= 0`` (real
    only); ``polygamma(0, x) == digamma(x)``."""
    n = int(n)
    if n < 0:
        raise ValueError(f"polygamma: the order n must be a non-negative integer, got {n}")
    return polygamma_p.bind(x, n=n)
