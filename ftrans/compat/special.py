"""``torch.special`` for ``ftrans.compat``: adapters onto ftrans's functions (no derivative is
written here; each node's backward is ``ftrans.vjp`` of the adapted function).

The functions torch differentiates (``ndtr``, ``log_ndtr``, ``ndtri``, ``erfcx``, ``entr``,
``xlog1py``, ``zeta`` in ``q``, and the operation table's rows with a ``torch_special`` name) record
one node named as torch names it; the Bessel functions, the orthogonal polynomials and
``airy_ai``, which torch does not differentiate, return tensors outside the graph.  The
polynomials truncate a floating order toward zero and give 0 for negative orders, as torch
does (``ftrans.scipy._special_poly``).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from . import _ops as _O
from . import _special_ops as _special_ops
from ._opbase import _unary, _real_only
from ._special_ops import float_unary, float_binary, _UNARY_DOC
from .types import DTypeArg, Tensor, TensorOrNumber
from .. import primitives as P
from ..primitives import elementwise as _E
from ..scipy import special as _scipy_special

# (both modules install most of their functions with globals(): mypy cannot see them)
_S: Any = _special_ops
_fss: Any = _scipy_special

__all__: list[str] = []
TOPLEVEL: dict[str, Callable[..., Any]] = {}   # torch.* aliases (torch.det, torch.inverse ...)
METHODS: dict[str, Callable[..., Any]] = {}    # Tensor methods (Tensor.det ...)

_UNARY_SAVE = {"x": "x", "ans": "out", "x_ans": "x_out", "none": None}


def _def(name: str, fn: Callable[..., Any]) -> None:
    fn.__name__ = name
    globals()[name] = fn
    __all__.append(name)


# -- the operation table's SciPy-backed rows: one primitive node each ----------------------
def _row_op(name: str, f: Callable[..., Tensor], summary: str) -> Callable[..., Tensor]:
    def op(input: Tensor) -> Tensor:  # noqa: A002
        return f(input)
    op.__doc__ = _UNARY_DOC.format(
        summary=summary, ints="; integer and bool tensors are computed in the default "
        "float dtype", raises="NotImplementedError\n        If ``input`` is complex.")
    return op


for _row in P.optable.ROWS:
    if _row.torch_special:
        _name = _row.torch_special
        _f = _real_only(_unary(getattr(_E, _row.name + "_p"), P.optable.node_name(_row),
                               _UNARY_SAVE[_row.saves]), kernel=f"{_name}_cpu")
        _def(_name, _row_op(_name, _f, f"``torch.special.{_name}``: {_row.doc[0].lower()}"
                                       f"{_row.doc[1:-1]} (the operation table's "
                                       f"``{_row.name}`` row)."))

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
def _k(v: float) -> Callable[[Any], Any]:
    return lambda x: _fss.kv(v, x)


def _kve(v: float) -> Callable[[Any], Any]:
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


def _poly(f: Callable[..., Any]) -> Callable[[Any, Any], Any]:
    return lambda x, n: f(n, x)


def _poly_op(name: str, p: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def op(input: TensorOrNumber, n: TensorOrNumber) -> Tensor:  # noqa: A002
        return p(input, n)
    op.__doc__ = f"""The polynomial ``{name}`` of degree ``n`` (``torch.special.{name}``).

    No derivative, as in torch.  A floating degree is truncated toward zero; a negative
    degree gives 0 (``ftrans.scipy._special_poly``).

    Parameters
    ----------
    input : Tensor or Number
        The points.
    n : Tensor or Number
        The degrees (broadcast against ``input``; not both operands numbers).

    Returns
    -------
    Tensor
        The broadcast shape, floating dtype (outside the autograd graph).
    """
    return op


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
                      kernel=f"{_name}_cpu")
    _def(_name, _poly_op(_name, _p))
del _name, _f, _p


# -- aliases of torch.* functions -----------------------------------------------------------
def multigammaln(input: Tensor, p: int) -> Tensor:  # noqa: A002
    """Log of the multivariate gamma function (``torch.special.multigammaln``).

    The same as ``torch.mvlgamma``.

    Parameters
    ----------
    input : Tensor
        The points; every element must exceed ``(p - 1) / 2``.
    p : int
        The dimension (``p >= 1``).

    Returns
    -------
    Tensor
        Same shape as ``input``, floating dtype.
    """
    return _S.mvlgamma(input, p)


def polygamma(n: int, input: Tensor) -> Tensor:  # noqa: A002
    """The ``n``-th derivative of ``digamma`` (``torch.special.polygamma``).

    The same as ``torch.polygamma``.

    Parameters
    ----------
    n : int
        The order (``n >= 0``).
    input : Tensor
        The points.

    Returns
    -------
    Tensor
        Same shape as ``input``, floating dtype.
    """
    return _S.polygamma(n, input)


def round(input: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001,A002
    """Round half to even to ``decimals`` decimal places (``torch.special.round``).

    The same as ``torch.round``.

    Parameters
    ----------
    input : Tensor
        The input.
    decimals : int, optional
        The number of decimal places (negative: to the left of the point).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    return _O.round(input, decimals=decimals)


def softmax(input: Tensor, dim: int, *, dtype: DTypeArg = None) -> Tensor:  # noqa: A002
    """Softmax along ``dim`` (``torch.special.softmax``).

    The same as ``torch.softmax``, ``dim`` required.

    Parameters
    ----------
    input : Tensor
        The input.
    dim : int
        The dimension normalized.
    dtype : dtype, optional
        The input is cast to this dtype first.

    Returns
    -------
    Tensor
        Same shape as ``input``; values in [0, 1] summing to 1 along ``dim``.
    """
    return _O.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, *, dtype: DTypeArg = None) -> Tensor:  # noqa: A002
    """Log of the softmax along ``dim`` (``torch.special.log_softmax``).

    The same as ``torch.log_softmax``, ``dim`` required.

    Parameters
    ----------
    input : Tensor
        The input.
    dim : int
        The dimension normalized.
    dtype : dtype, optional
        The input is cast to this dtype first.

    Returns
    -------
    Tensor
        Same shape as ``input``.
    """
    return _O.log_softmax(input, dim, dtype=dtype)


def logsumexp(input: Tensor, dim: int | Sequence[int],  # noqa: A002
              keepdim: bool = False) -> Tensor:
    """``log(sum(exp(input)))`` over ``dim``, computed stably (``torch.special.logsumexp``).

    The same as ``torch.logsumexp``.

    Parameters
    ----------
    input : Tensor
        The input.
    dim : int or sequence of int
        The dimensions reduced.
    keepdim : bool, optional
        Keep the reduced dimensions with size 1.

    Returns
    -------
    Tensor
        ``input``'s shape without (or with size 1 at) ``dim``.
    """
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
