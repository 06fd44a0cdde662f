"""compat operations: top-level special functions (lgamma, digamma, erfc, erfinv, polygamma, xlogy, logit ...).

Each function adapts one ``ftrans.numpy``/``ftrans.scipy``/``ftrans.nn`` function to
PyTorch's signature; its node's backward is ``ftrans.vjp`` of that function
(:func:`ftrans.compat._opbase._compose`): no derivative is written here.

Also here: the inverse hyperbolic functions, ``deg2rad``/``rad2deg``, ``frac``, ``ldexp``,
``frexp``, ``hypot``, ``logaddexp2``, ``sinc``, ``nan_to_num``, ``isreal``, ``isin``,
``positive``, ``gcd``/``lcm`` and the bitwise operations (integer results: no graph).
The builders :func:`float_unary`, :func:`float_binary` and :func:`plain_binary` are
shared with :mod:`ftrans.compat.special`.
"""
from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._tensor import Tensor, _make_plain
from .autograd._composite import composite_class
from ._opbase import (_as_float, _compose, _operands, _broadcast_error, _refuse_complex,
                      _has_complex, _tname, _promote_datas)
from ._inplace import _inplace
from ._outsig import in_place_doc
from .types import TensorOrNumber
from .autograd.grad_mode import _tls
from . import _pointwise as _pw
from . import _ops as _O
from .. import numpy as _fnp
from .. import primitives as P
from ..scipy import special as _fss

__all__: list[str] = []   # torch.* functions defined here (installed by ftrans.compat)
METHODS: dict[str, Callable[..., Any]] = {}   # Tensor methods defined here (installed)


def _in_place(f: Callable[..., Any], name: str) -> Callable[..., Any]:
    """The method ``Tensor.<name>_``: ``f``'s result written into ``self``."""
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return _inplace(self, f, *args, **kwargs)
    method.__name__ = name + "_"
    method.__doc__ = in_place_doc(name)
    return method


def _export(name: str, fn: Callable[..., Any], method: bool = True, inplace: bool = True,
            aliases: Sequence[str] = ()) -> Callable[..., Any]:
    fn.__name__ = name
    for n in (name,) + tuple(aliases):
        globals()[n] = fn
        __all__.append(n)
        if method:
            METHODS[n] = fn
        if inplace:
            METHODS[n + "_"] = _in_place(fn, n)
    return fn


def _need_tensor(v: object, fname: str, arg: str, pos: int) -> None:
    if not isinstance(v, Tensor):
        raise TypeError(f"{fname}(): argument '{arg}' (position {pos}) must be Tensor, not "
                        f"{type(v).__name__}")


def _kernel_refusal(kernel: str, npdt: np.dtype[Any]) -> NotImplementedError:
    return NotImplementedError(f'"{kernel}" not implemented for \'{_tname(npdt)}\'')


_UNARY_DOC = """{summary}

    Parameters
    ----------
    input : Tensor
        The input{ints}.

    Returns
    -------
    Tensor
        Same shape as ``input``; a floating (or complex) dtype.

    Raises
    ------
    TypeError
        If ``input`` is not a Tensor.
    {raises}
    """
_BINARY_DOC = """{summary}

    Parameters
    ----------
    input : {t0}
        The first operand.
    {second} : {t1}
        The second operand (broadcast against ``input``).

    Returns
    -------
    Tensor
        The broadcast shape; {dtype}.

    Raises
    ------
    TypeError
        If an operand is not a Tensor{scalars}.
    RuntimeError
        If the shapes do not broadcast.
    {raises}
    """


def _summary(doc: str, name: str, fn: Callable[..., Any], what: str = "elementwise") -> str:
    return doc or f"``torch.{name}``: {what}, ftrans's ``{fn.__name__}``."


# --------------------------------------------------------------------------- builders
def float_unary(name: str, node: str | None, fn: Callable[..., Any], kernel: str | None = None,
                complex_ok: bool = False, ints: bool = True,
                doc: str = "") -> Callable[..., Tensor]:
    """``op(input)``: ``fn`` (an ftrans function) on the input converted to a floating
    dtype (integers and bools to the default float, as torch; ``ints=False``: torch's
    ``NotImplementedError`` for them), recorded as one ``node`` (``None``: no graph,
    torch gives no derivative).  Complex inputs raise torch's error unless
    ``complex_ok``.  ``doc``: the one-line summary of the function's docstring."""
    cls = composite_class(node, ("self",)) if node else None

    def op(input: Tensor) -> Tensor:  # noqa: A002
        _need_tensor(input, name, "input", 1)
        d = input._data
        if not complex_ok and d.dtype.kind == "c":
            _refuse_complex(input, kernel=kernel or f"{name}_cpu")
        if not ints and d.dtype.kind not in "fc":
            raise _kernel_refusal(kernel or f"{name}_cpu", d.dtype)
        d = _as_float(d)
        if cls is None:
            return _make_plain(fn(d))
        return _compose(cls, fn, [input], [d])
    op.__name__ = name
    op.__doc__ = _UNARY_DOC.format(
        summary=_summary(doc, name, fn),
        ints=("; integer and bool tensors are computed in the default float dtype" if ints
              else "; a floating tensor" + (" (or complex)" if complex_ok else "")),
        raises=("RuntimeError\n        If ``input`` is complex.\n    " if not complex_ok else "")
        + ("NotImplementedError\n        If ``input`` is an integer or bool tensor." if not ints
           else "")).rstrip() + "\n    "
    return op


def _check_operands(name: str, a: object, b: object, scalars: Sequence[bool]) -> None:
    """torch's argument checks of a binary function: operand ``i`` must be a Tensor unless
    ``scalars[i]``, and not both may be Python numbers."""
    for v, arg, pos, ok in ((a, "input", 1, scalars[0]), (b, "other", 2, scalars[1])):
        if not ok:
            _need_tensor(v, name, arg, pos)
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        raise TypeError(f"{name}(): expected at least one Tensor operand, got "
                        f"{type(a).__name__} and {type(b).__name__}")


def _check_broadcast(ad: Any, bd: Any) -> None:
    try:
        np.broadcast_shapes(np.shape(ad), np.shape(bd))
    except ValueError:
        raise _broadcast_error(ad, bd) from None


def _binary_datas(name: str, a: TensorOrNumber, b: TensorOrNumber, scalars: Sequence[bool],
                  kernel: str, ints: bool = True,
                  complex_ok: bool = False) -> tuple[Any, Any, Any]:
    """PyTorch's promotion of ``a``, ``b`` to one floating dtype; ``scalars``: which
    operands may be Python numbers."""
    _check_operands(name, a, b, scalars)
    if not complex_ok and _has_complex(a, b):
        _refuse_complex(a, b, kernel=kernel)
    r = _operands(a, b)
    if r is None:
        bad = b if isinstance(a, Tensor) else a
        raise TypeError(f"{name}(): expected a Tensor or a number, got {type(bad).__name__}")
    ad, bd, casts = r
    rt = _promote_datas([a, b])
    if rt.kind not in "fc":
        if not ints:
            raise _kernel_refusal(kernel, rt)
        ad, bd = (_as_float(v) if hasattr(v, "dtype") else v for v in (ad, bd))
    _check_broadcast(ad, bd)
    return ad, bd, casts


def float_binary(name: str, node: str | None, fn: Callable[..., Any],
                 scalars: tuple[bool, bool] = (False, False), kernel: str | None = None,
                 ints: bool = True, scalar_nodes: Sequence[str] | None = None, doc: str = "",
                 complex_ok: bool = False, second: str = "other") -> Callable[..., Tensor]:
    """``op(input, other)``: ``fn(a, b)`` after PyTorch's promotion (integers to the default
    float unless ``ints=False``), one ``node`` (``scalar_nodes``: the node names when the
    first/second operand is a Python number, e.g. ``XlogyBackward1``/``2``).  ``doc``: the
    one-line summary of the docstring; ``second``: the second parameter's name there."""
    kernel = kernel or f"{name}_cpu"
    cls = composite_class(node, ("self", "other")) if node else None
    scls = [composite_class(n, ("self", "other")) for n in scalar_nodes] if scalar_nodes \
        else [cls, cls]

    def op(input: TensorOrNumber, other: TensorOrNumber) -> Tensor:  # noqa: A002
        ad, bd, casts = _binary_datas(name, input, other, scalars, kernel, ints, complex_ok)
        if cls is None:   # (a Python number as a 0-d array of the result's dtype)
            dt = _as_float(np.empty(0, _promote_datas([input, other]))).dtype
            ad, bd = (v if hasattr(v, "dtype") else np.asarray(v, dt) for v in (ad, bd))
            return _make_plain(fn(ad, bd))
        c = cls if isinstance(input, Tensor) and isinstance(other, Tensor) else \
            scls[0] if not isinstance(input, Tensor) else scls[1]
        return _compose(c, fn, [input, other], [ad, bd], casts=casts)
    op.__name__ = name
    op.__doc__ = _binary_doc(_summary(doc, name, fn), scalars, second,
                             "a floating (or complex) dtype by PyTorch's promotion"
                             + ("" if ints else " (floating operands only)"),
                             "" if complex_ok else "RuntimeError\n        If an operand is "
                             "complex.")
    return op


def _binary_doc(summary: str, scalars: Sequence[bool], second: str, dtype: str,
                raises: str) -> str:
    num = ("Tensor or Number", "Tensor or Number")
    return _BINARY_DOC.format(
        summary=summary, second=second, t0=num[0] if scalars[0] else "Tensor",
        t1=num[1] if scalars[1] else "Tensor", dtype=dtype,
        scalars=" or a number where one is allowed, or if both are numbers"
        if any(scalars) else "", raises=raises).rstrip() + "\n    "


def plain_binary(name: str, fn: Callable[..., Any], kernel: str, kinds: str,
                 scalars: tuple[bool, bool] = (False, False)) -> Callable[..., Tensor]:
    """A binary operation on the integer/boolean dtypes ``kinds`` with no derivative."""
    def op(input: TensorOrNumber, other: TensorOrNumber) -> Tensor:  # noqa: A002
        _check_operands(name, input, other, scalars)
        r = _operands(input, other)
        if r is None:
            raise TypeError(f"{name}(): expected a Tensor or a number")
        rt = _promote_datas([input, other])
        if rt.kind not in kinds:
            raise _kernel_refusal(kernel, rt)
        ad, bd, _ = r
        _check_broadcast(ad, bd)
        return _make_plain(fn(ad, bd))
    op.__name__ = name
    op.__doc__ = _binary_doc(f"``torch.{name}``: elementwise on integer tensors (no "
                             "derivative).", scalars, "other", "an integer dtype by PyTorch's "
                             "promotion", "NotImplementedError\n        If the result dtype is "
                             "not an integer one.")
    return op


# --------------------------------------------------------------------------- unary
_export("acosh", float_unary("acosh", "AcoshBackward0", _fnp.arccosh, complex_ok=True,
                            doc="Inverse hyperbolic cosine (``torch.acosh``)."),
        aliases=("arccosh",))
_export("asinh", float_unary("asinh", "AsinhBackward0", _fnp.arcsinh, complex_ok=True,
                            doc="Inverse hyperbolic sine (``torch.asinh``)."),
        aliases=("arcsinh",))
_export("atanh", float_unary("atanh", "AtanhBackward0", _fnp.arctanh, complex_ok=True,
                            doc="Inverse hyperbolic tangent (``torch.atanh``)."),
        aliases=("arctanh",))
_DEG_MSG = "{} is not supported for complex tensors."


def _angle_conv(name: str, node: str, fn: Callable[..., Any]) -> Callable[..., Tensor]:
    f = float_unary(name, node, fn, complex_ok=True)

    def op(input: Tensor) -> Tensor:  # noqa: A002
        if isinstance(input, Tensor) and input._data.dtype.kind == "c":
            raise RuntimeError(_DEG_MSG.format(name))
        return f(input)
    op.__doc__ = _UNARY_DOC.format(
        summary=f"``torch.{name}``: angle conversion of a real tensor.",
        ints="; integer and bool tensors are computed in the default float dtype",
        raises="RuntimeError\n        If ``input`` is complex.").rstrip() + "\n    "
    return op


_export("deg2rad", _angle_conv("deg2rad", "Deg2RadBackward0", _fnp.deg2rad))
_export("rad2deg", _angle_conv("rad2deg", "Rad2DegBackward0", _fnp.rad2deg))


def _frac_fn(x: Any) -> Any:
    return _fnp.subtract(x, _fnp.trunc(x))


_export("frac", float_unary("frac", "FracBackward0", _frac_fn, ints=False,
                            doc="``torch.frac``: ``x - trunc(x)`` (floating tensors only)."))
_export("sinc", float_unary("sinc", "SincBackward0", _fnp.sinc, complex_ok=True,
                            doc="Normalized sinc, ``sin(pi x) / (pi x)`` (``torch.sinc``)."))
_export("lgamma", float_unary("lgamma", "LgammaBackward0", _fss.gammaln, kernel="lgamma_vml_cpu",
                              doc="Log of the absolute gamma function (``torch.lgamma``)."))
_export("digamma", float_unary("digamma", "DigammaBackward0", _fss.digamma, kernel="digamma",
                               doc="Logarithmic derivative of the gamma function "
                                   "(``torch.digamma``)."))
_export("erfc", float_unary("erfc", "ErfcBackward0", _fss.erfc, kernel="erfc_vml_cpu",
                            doc="Complementary error function ``1 - erf(x)`` (``torch.erfc``)."))
_export("erfinv", float_unary("erfinv", "ErfinvBackward0", _fss.erfinv, kernel="erfinv_cpu",
                              doc="Inverse error function (``torch.erfinv``)."))
_LogitBackward0 = composite_class("LogitBackward0", ("self",))


def _logit_fn(x: Any, eps: float | None = None) -> Any:
    if eps is not None:
        x = _fnp.clip(x, eps, 1.0 - eps)
    else:   # outside [0, 1]: NaN value and NaN gradient, as torch (``x + nan`` there)
        out = _fnp.logical_or(_fnp.less(x, 0), _fnp.greater(x, 1))
        x = _fnp.add(x, _fnp.where(out, np.nan, 0.0).astype(x.dtype))
    return _fss.logit(x)


def logit(input: Tensor, eps: float | None = None) -> Tensor:  # noqa: A002
    """Log-odds ``log(p / (1 - p))`` (``torch.logit``).

    Parameters
    ----------
    input : Tensor
        The probabilities ``p`` (integer tensors in the default float dtype).
    eps : float, optional
        If given, ``p`` is clamped to ``[eps, 1 - eps]`` first (gradient 0 outside, as
        torch); without it the value and gradient are NaN outside ``[0, 1]``, as torch's.

    Returns
    -------
    Tensor
        Same shape as ``input``, floating dtype.

    Raises
    ------
    RuntimeError
        If ``input`` is complex.
    """
    _need_tensor(input, "logit", "input", 1)
    if input._data.dtype.kind == "c":
        _refuse_complex(input, kernel="logit_cpu")
    d = _as_float(input._data)
    return _compose(_LogitBackward0, _logit_fn, [input], [d],
                    {"eps": None if eps is None else float(eps)})


_export("logit", logit)
_PolygammaBackward0 = composite_class("PolygammaBackward0", ("self",))


def polygamma(n: int, input: Tensor) -> Tensor:  # noqa: A002
    """The ``n``-th derivative of ``digamma`` (``torch.polygamma``).

    Parameters
    ----------
    n : int
        The order (``n >= 0``; 0 gives ``digamma``).
    input : Tensor
        The points (integer tensors in the default float dtype).

    Returns
    -------
    Tensor
        Same shape as ``input``, floating dtype (:func:`ftrans.scipy.special.polygamma`).

    Raises
    ------
    RuntimeError
        If ``n`` is negative or ``input`` is complex.
    """
    _need_tensor(input, "polygamma", "input", 2)
    n = int(n)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if input._data.dtype.kind == "c":
        _refuse_complex(input, kernel="polygamma" if n > 1 else ("digamma", "trigamma")[n])
    d = _as_float(input._data)
    return _compose(_PolygammaBackward0, _polygamma_fn, [input], [d], {"n": n})


def _polygamma_fn(x: Any, n: int) -> Any:
    return _fss.polygamma(n, x)


def _polygamma_method(self: Tensor, n: int) -> Tensor:
    """The ``n``-th derivative of ``digamma`` at ``self`` (``Tensor.polygamma``).

    Parameters
    ----------
    n : int
        The order (``n >= 0``).

    Returns
    -------
    Tensor
        ``torch.polygamma(n, self)``.
    """
    return polygamma(n, self)


def _polygamma_inplace(self: Tensor, n: int) -> Tensor:
    """In-place ``polygamma`` (``Tensor.polygamma_``): the result written into ``self``.

    Parameters
    ----------
    n : int
        The order (``n >= 0``).

    Returns
    -------
    Tensor
        ``self``, modified in place.
    """
    return _inplace(self, _polygamma_method, n)


_polygamma_method.__name__, _polygamma_inplace.__name__ = "polygamma", "polygamma_"
_export("polygamma", polygamma, method=False, inplace=False)
METHODS["polygamma"] = _polygamma_method
METHODS["polygamma_"] = _polygamma_inplace
_MvlgammaBackward0 = composite_class("MvlgammaBackward0", ("self",))


def mvlgamma(input: Tensor, p: int) -> Tensor:  # noqa: A002
    """Log of the multivariate gamma function of dimension ``p`` (``torch.mvlgamma``).

    Parameters
    ----------
    input : Tensor
        The points; every element must exceed ``(p - 1) / 2``.
    p : int
        The dimension (``p >= 1``).

    Returns
    -------
    Tensor
        Same shape as ``input``, floating dtype
        (:func:`ftrans.scipy.special.multigammaln`).

    Raises
    ------
    RuntimeError
        If ``p < 1``, an element is not above ``(p - 1) / 2`` or ``input`` is complex.
    """
    _need_tensor(input, "mvlgamma", "input", 1)
    p = int(p)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if input._data.dtype.kind == "c":
        _refuse_complex(input, kernel="mvlgamma")
    d = _as_float(input._data)
    if isinstance(d, np.ndarray) and not np.all(d > (p - 1) / 2):
        raise RuntimeError("All elements must be greater than (p-1)/2")
    return _compose(_MvlgammaBackward0, _fss.multigammaln, [input], [d], {"d": p})


_export("mvlgamma", mvlgamma)
_NanToNumBackward0 = composite_class("NanToNumBackward0", ("self",))


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None,  # noqa: A002
               neginf: float | None = None) -> Tensor:
    """NaN and infinities replaced by finite numbers (``torch.nan_to_num``).

    Parameters
    ----------
    input : Tensor
        The input (integer and bool tensors are returned as a copy).
    nan : float, optional
        The value of NaN elements (0 by default).
    posinf, neginf : float, optional
        The values of +inf and -inf (default: the dtype's largest and smallest finite
        values).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``; the gradient is 1 where the input is finite and
        0 where it was replaced.

    Raises
    ------
    RuntimeError
        If ``input`` is complex and requires grad.
    """
    _need_tensor(input, "nan_to_num", "input", 1)
    d = input._data
    if d.dtype.kind not in "fc":
        return _make_plain(d.copy())
    if d.dtype.kind == "c" and _tls.grad and input.requires_grad:
        raise RuntimeError("nan_to_num does not support automatic differentiation for outputs "
                           "with complex dtype.")
    return _compose(_NanToNumBackward0, _fnp.nan_to_num, [input], [d],
                    {"nan": float(nan), "posinf": None if posinf is None else float(posinf),
                     "neginf": None if neginf is None else float(neginf)})


_export("nan_to_num", nan_to_num)


def positive(input: Tensor) -> Tensor:  # noqa: A002
    """The input itself (``torch.positive``).

    Parameters
    ----------
    input : Tensor
        The input.

    Returns
    -------
    Tensor
        ``input`` (the same tensor).

    Raises
    ------
    RuntimeError
        If ``input`` is a bool tensor, as in torch.
    """
    _need_tensor(input, "positive", "input", 1)
    if input._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


_export("positive", positive, inplace=False)


def isreal(input: Tensor) -> Tensor:  # noqa: A002
    """True where the imaginary part is 0 (``torch.isreal``).

    Parameters
    ----------
    input : Tensor
        The input.

    Returns
    -------
    Tensor
        A bool tensor of ``input``'s shape (all True for real dtypes).
    """
    _need_tensor(input, "isreal", "input", 1)
    d = input._data
    if d.dtype.kind == "c":
        return _make_plain(_fnp.equal(_fnp.imag(d), 0))
    return _make_plain(_fnp.ones_like(d, dtype=bool))


_export("isreal", isreal, inplace=False)


def isin(elements: TensorOrNumber, test_elements: TensorOrNumber, *,
         assume_unique: bool = False, invert: bool = False) -> Tensor:
    """True where an element of ``elements`` is in ``test_elements`` (``torch.isin``).

    Parameters
    ----------
    elements : Tensor or Number
        The elements tested.
    test_elements : Tensor or Number
        The values looked for (either operand may be a Python number, not both).
    assume_unique : bool, optional
        Both operands hold unique values (a faster algorithm; NumPy's ``isin``).
    invert : bool, optional
        True where an element is NOT in ``test_elements``.

    Returns
    -------
    Tensor
        A bool tensor of ``elements``' shape (no gradient).

    Raises
    ------
    TypeError
        If neither operand is a Tensor.
    """
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin(): expected at least one Tensor operand")
    e = elements._data if isinstance(elements, Tensor) else np.asarray(elements)
    t = test_elements._data if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    return _make_plain(np.asarray(np.isin(e, t, assume_unique=assume_unique, invert=invert)))


_export("isin", isin, method=False, inplace=False)
_FrexpBackward0 = composite_class("FrexpBackward0", ("self",))
# torch.return_types.frexp (the class keeps torch's name)
_frexp_ret = namedtuple("frexp", ["mantissa", "exponent"])  # type: ignore[name-match]


def _mantissa(x: Any, scale: Any) -> Any:
    return P.mul(x, scale)


def frexp(input: Tensor) -> _frexp_ret:  # noqa: A002
    """Mantissa and exponent with ``input = mantissa * 2**exponent`` (``torch.frexp``).

    Parameters
    ----------
    input : Tensor
        A floating tensor.

    Returns
    -------
    frexp
        The named tuple ``(mantissa, exponent)``: the mantissa of ``input``'s dtype
        (``0.5 <= |m| < 1``, differentiable), the exponent int32.

    Raises
    ------
    RuntimeError
        If ``input`` is not floating.
    """
    _need_tensor(input, "frexp", "input", 1)
    d = input._data
    if d.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    e = _fnp.frexp(d)[1]
    # mantissa = x * 2**-e, the exponent a constant (piecewise constant: derivative 0)
    scale = _fnp.exp2(_fnp.negative(e).astype(d.dtype))
    m = _compose(_FrexpBackward0, _mantissa, [input, None], [d, scale])
    return _frexp_ret(m, _make_plain(e.astype(np.int32)))


_export("frexp", frexp, inplace=False)


# --------------------------------------------------------------------------- binary
def _fss_attr(name: str) -> Callable[..., Any]:
    """A function of ftrans.scipy.special that its module installs with globals()."""
    f: Callable[..., Any] = getattr(_fss, name)
    return f


def _ldexp_fn(x: Any, e: Any) -> Any:
    return P.mul(x, _fnp.exp2(e))


_export("ldexp", float_binary("ldexp", "LdexpBackward0", _ldexp_fn, complex_ok=True,
                              doc="``torch.ldexp``: ``input * 2**other`` (float result)."))


def _logaddexp_complex(a: Any, b: Any) -> Any:
    """``max + log1p(exp(min - max))``, ``max`` the operand of larger real part (torch's
    complex formula: the imaginary part is not reduced to the principal range)."""
    first = _fnp.greater_equal(_fnp.real(a), _fnp.real(b))
    hi, lo = _fnp.where(first, a, b), _fnp.where(first, b, a)
    return _fnp.add(hi, _fnp.log1p(_fnp.exp(_fnp.subtract(lo, hi))))


_logaddexp_c = float_binary("logaddexp", "LogaddexpBackward0", _logaddexp_complex,
                            complex_ok=True)


def logaddexp(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """``log(exp(input) + exp(other))`` (``torch.logaddexp``).

    Real operands use the operation table's ``logaddexp`` row, complex ones torch's
    formula (``max + log1p(exp(min - max))``).

    Parameters
    ----------
    input : Tensor
        The first operand.
    other : Tensor
        The second operand (broadcast against ``input``).

    Returns
    -------
    Tensor
        The broadcast shape, the promoted floating (or complex) dtype.

    Raises
    ------
    TypeError
        If an operand is not a Tensor.
    """
    _need_tensor(input, "logaddexp", "input", 1)
    _need_tensor(other, "logaddexp", "other", 2)
    if _has_complex(input, other):
        return _logaddexp_c(input, other)
    return _pw.logaddexp(input, other)  # type: ignore[attr-defined]  # (an optable row)


_export("logaddexp", logaddexp, inplace=False)
_export("hypot", float_binary("hypot", "HypotBackward0", _fnp.hypot, ints=False,
                              doc="``sqrt(input**2 + other**2)`` (``torch.hypot``)."))
_export("logaddexp2", float_binary("logaddexp2", "Logaddexp2Backward0", _fnp.logaddexp2,
                                   ints=False, doc="``log2(2**input + 2**other)`` "
                                                   "(``torch.logaddexp2``)."), inplace=False)
_export("xlogy", float_binary("xlogy", "XlogyBackward0", _fss.xlogy, scalars=(True, True),
                              scalar_nodes=("XlogyBackward1", "XlogyBackward2"),
                              doc="``input * log(other)``, 0 where ``input == 0`` "
                                  "(``torch.xlogy``)."))
_export("igamma", float_binary("igamma", "IgammaBackward0", _fss_attr("gammainc"), ints=False,
                               doc="Regularized lower incomplete gamma function "
                                   "(``torch.igamma``)."))
_export("igammac", float_binary("igammac", "IgammacBackward0", _fss_attr("gammaincc"), ints=False,
                                doc="Regularized upper incomplete gamma function "
                                    "(``torch.igammac``)."))
_export("gcd", plain_binary("gcd", _fnp.gcd, "gcd_cpu", "iu"))
_export("lcm", plain_binary("lcm", _fnp.lcm, "lcm_cpu", "iu"))
_export("bitwise_left_shift", plain_binary("bitwise_left_shift", _fnp.left_shift, "lshift_cpu",
                                           "iu", scalars=(True, True)))
_export("bitwise_right_shift", plain_binary("bitwise_right_shift", _fnp.right_shift,
                                            "rshift_cpu", "iu", scalars=(True, True)))
def _one_tensor(name: str, f: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def op(input: TensorOrNumber, other: TensorOrNumber) -> Tensor:  # noqa: A002
        _check_operands(name, input, other, (True, True))
        return f(input, other)
    op.__doc__ = _binary_doc(f"``torch.{name}``: elementwise on integer and bool tensors (no "
                             "derivative).", (True, True), "other",
                             "the promoted integer or bool dtype", "")
    return op


for _n in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    _export(_n, _one_tensor(_n, getattr(_pw, _n)))
del _n


def bitwise_not(input: Tensor) -> Tensor:  # noqa: A002
    """``~x`` of an integer tensor, ``not x`` of a bool tensor (``torch.bitwise_not``).

    Parameters
    ----------
    input : Tensor
        An integer or bool tensor.

    Returns
    -------
    Tensor
        Same shape and dtype (no gradient).

    Raises
    ------
    NotImplementedError
        If ``input`` is floating or complex.
    """
    _need_tensor(input, "bitwise_not", "input", 1)
    d = input._data
    if d.dtype.kind not in "biu":
        raise _kernel_refusal("bitwise_not_cpu", d.dtype)
    return _make_plain(_fnp.logical_not(d) if d.dtype.kind == "b" else _fnp.invert(d))


_export("bitwise_not", bitwise_not)
# in-place forms of functions defined elsewhere (torch's erf_, exp2_)
METHODS["erf_"] = _in_place(_O.erf, "erf")
METHODS["exp2_"] = _in_place(_O.exp2, "exp2")
