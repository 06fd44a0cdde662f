"""``torch.special`` for ``ftrans.compat``: adapters onto ftrans's functions (no derivative is
written here; each node's backward is ``ftrans.vjp`` of the adapted function).

The functions torch differentiates (``ndtr``, ``log_ndtr``, ``ndtri``, ``erfcx``, ``entr``,
``xlog1py``, ``zeta`` in ``q``, ``i0e``/``i1``/``i1e`` -- the operation table's rows) record
one node named as torch names it; the Bessel functions, the orthogonal polynomials and
``airy_ai``, which torch does not differentiate, return tensors outside the graph.  The
polynomials truncate a floating order toward zero and give 0 for negative orders, as torch
does (``ftrans.scipy._special_poly``).
"""
from __future__ import annotations

from . import _ops as _O
from . import _special_ops as _S
from ._opbase import _unary, _real_only
from ._special_ops import float_unary, float_binary
from .. import primitives as P
from ..primitives import elementwise as _E
from ..scipy import special as _fss

__all__: list = []
TOPLEVEL: dict = {}   # torch.* aliases of this namespace's functions (torch.det, torch.inverse ...)
METHODS: dict = {}    # Tensor methods (Tensor.det ...)

_UNARY_SAVE = {"x": "x", "ans": "out", "x_ans": "x_out", "none": None}


def _def(name, fn):
    fn.__name__ = name
    globals()[name] = fn
    __all__.append(name)


# -- the operation table's SciPy-backed rows: one primitive node each ----------------------
for _name, _node in (("i1", "SpecialI1Backward0"), ("i0e", "SpecialI0EBackward0"),
                     ("i1e", "SpecialI1EBackward0")):
    _row = P.optable.by_name(_name)
    _f = _real_only(_unary(getattr(_E, _name + "_p"), _node, _UNARY_SAVE[_row.saves]),
                    kernel=f"{_name}_cpu")
    _f.__doc__ = (f"``torch.special.{_name}``: {_row.doc[0].lower()}{_row.doc[1:-1]} (the "
                  f"operation table's ``{_name}`` row).")
    _def(_name, _f)

# -- differentiable compositions and SciPy-backed primitives -----------------------------
for _name, _node, _fn in (("ndtr", "MulBackward1", _fss.ndtr),
                          ("ndtri", "SpecialNdtriBackward0", _fss.ndtri),
                          ("log_ndtr", "SpecialLogNdtrBackward0", _fss.log_ndtr),
                          ("erfcx", "SpecialErfcxBackward0", _fss.erfcx),
                          ("entr", "SpecialEntrBackward0", _fss.entr)):
    _def(_name, float_unary(_name, _node, _fn, kernel=f"{_name}_cpu",
                            doc=f"``torch.special.{_name}``: elementwise, "
                                f"``ftrans.scipy.special.{_name}``."))
_def("xlog1py", float_binary("special_xlog1py", "SpecialXlog1PyBackward0", _fss.xlog1py,
                             scalars=(True, True), kernel="xlog1py_cpu",
                             scalar_nodes=("SpecialXlog1PyBackward1",
                                           "SpecialXlog1PyBackward2"),
                             doc="``torch.special.xlog1py``: ``x * log1p(y)``, 0 where "
                                 "``x == 0`` (``ftrans.scipy.special.xlog1py``)."))
_def("zeta", float_binary("special_zeta", "SpecialZetaBackward0", _fss.zeta,
                          scalars=(True, True), kernel="zeta_cpu",
                          scalar_nodes=("SpecialZetaBackward1", "SpecialZetaBackward2"),
                          doc="``torch.special.zeta``: the Hurwitz zeta function "
                              "(``ftrans.scipy.special.zeta``; differentiable in ``other``)."))


# -- functions torch does not differentiate: results outside the graph ----------------------
def _k(v):
    return lambda x: _fss.kv(v, x)


def _kve(v):
    return lambda x: _fss.kve(v, x)


for _name, _fn in (("airy_ai", _fss.airy_ai), ("bessel_j0", _fss.j0), ("bessel_j1", _fss.j1),
                   ("bessel_y0", _fss.y0), ("bessel_y1", _fss.y1),
                   ("modified_bessel_i0", _fss.i0), ("modified_bessel_i1", _fss.i1),
                   ("modified_bessel_k0", _k(0.0)), ("modified_bessel_k1", _k(1.0)),
                   ("scaled_modified_bessel_k0", _kve(0.0)),
                   ("scaled_modified_bessel_k1", _kve(1.0)),
                   ("spherical_bessel_j0", lambda x: _fss.spherical_jn(0, x))):
    _def(_name, float_unary(_name, None, _fn, kernel=f"{_name}_cpu",
                            doc=f"``torch.special.{_name}`` (no derivative, as in torch)."))


def _poly(f):
    return lambda x, n: f(n, x)


for _name, _f in (("chebyshev_polynomial_t", _fss.eval_chebyt),
                  ("chebyshev_polynomial_u", _fss.eval_chebyu),
                  ("chebyshev_polynomial_v", _fss.eval_chebyv),
                  ("chebyshev_polynomial_w", _fss.eval_chebyw),
                  ("shifted_chebyshev_polynomial_t", _fss.eval_sh_chebyt),
                  ("shifted_chebyshev_polynomial_u", _fss.eval_sh_chebyu),
                  ("shifted_chebyshev_polynomial_v", _fss.eval_sh_chebyv),
                  ("shifted_chebyshev_polynomial_w", _fss.eval_sh_chebyw),
                  ("hermite_polynomial_h", _fss.eval_hermite),
                  ("hermite_polynomial_he", _fss.eval_hermitenorm),
                  ("laguerre_polynomial_l", _fss.eval_laguerre),
                  ("legendre_polynomial_p", _fss.eval_legendre)):
    _p = float_binary(f"special_{_name}", None, _poly(_f), scalars=(True, True),
                      kernel=f"{_name}_cpu",
                      doc=f"``torch.special.{_name}(input, n)`` (no derivative, as in torch).")

    def _op(input, n, *, _p=_p):  # noqa: A002
        return _p(input, n)
    _op.__doc__ = _p.__doc__
    _def(_name, _op)
del _name, _f, _p, _op


# -- aliases of torch.* functions -----------------------------------------------------------
def multigammaln(input, p):  # noqa: A002
    """``torch.special.multigammaln``: ``torch.mvlgamma``."""
    return _S.mvlgamma(input, p)


def polygamma(n, input):  # noqa: A002
    """``torch.special.polygamma``: ``torch.polygamma``."""
    return _S.polygamma(n, input)


def round(input, *, decimals=0):  # noqa: A001,A002
    """``torch.special.round``: ``torch.round``."""
    return _O.round(input, decimals=decimals)


def softmax(input, dim, *, dtype=None):  # noqa: A002
    """``torch.special.softmax``: ``torch.softmax`` (``dim`` required)."""
    return _O.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):  # noqa: A002
    """``torch.special.log_softmax``: ``torch.log_softmax`` (``dim`` required)."""
    return _O.log_softmax(input, dim, dtype=dtype)


def logsumexp(input, dim, keepdim=False):  # noqa: A002
    """``torch.special.logsumexp``: ``torch.logsumexp``."""
    return _O.logsumexp(input, dim, keepdim)


__all__ += ["multigammaln", "polygamma", "round", "softmax", "log_softmax", "logsumexp"]
for _name, _fn in (("erf", _O.erf), ("erfc", _S.erfc), ("erfinv", _S.erfinv),
                   ("expit", _O.sigmoid), ("exp2", _O.exp2), ("expm1", _O.expm1),
                   ("log1p", _O.log1p), ("i0", _O.i0), ("gammaln", _S.lgamma),
                   ("digamma", _S.digamma), ("psi", _S.digamma), ("logit", _S.logit),
                   ("xlogy", _S.xlogy), ("gammainc", _S.igamma), ("gammaincc", _S.igammac),
                   ("sinc", _S.sinc)):
    globals()[_name] = _fn
    __all__.append(_name)
del _name, _fn
