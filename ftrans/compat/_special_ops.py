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

import numpy as np

from ._tensor import Tensor, _make_plain
from .autograd._composite import composite_class
from ._opbase import (_as_float, _compose, _operands, _broadcast_error, _refuse_complex,
                      _has_complex, _tname, _promote_datas)
from ._inplace import _inplace
from .autograd.grad_mode import _tls
from . import _pointwise as _pw
from . import _ops as _O
from .. import numpy as _fnp
from .. import primitives as P
from ..scipy import special as _fss

__all__: list = []   # torch.* functions defined here (installed by ftrans.compat)
METHODS: dict = {}   # Tensor methods defined here (installed by ftrans.compat)


def _export(name, fn, method=True, inplace=True, aliases=()):
    fn.__name__ = name
    for n in (name,) + tuple(aliases):
        globals()[n] = fn
        __all__.append(n)
        if method:
            METHODS[n] = fn
        if inplace:
            METHODS[n + "_"] = (lambda f: lambda self, *a, **k: _inplace(self, f, *a, **k))(fn)
    return fn


def _need_tensor(v, fname, arg, pos):
    if not isinstance(v, Tensor):
        raise TypeError(f"{fname}(): argument '{arg}' (position {pos}) must be Tensor, not "
                        f"{type(v).__name__}")


def _kernel_refusal(kernel, npdt):
    return NotImplementedError(f'"{kernel}" not implemented for \'{_tname(npdt)}\'')


# --------------------------------------------------------------------------- builders
def float_unary(name, node, fn, kernel=None, complex_ok=False, ints=True, doc=""):
    """``op(input)``: ``fn`` (an ftrans function) on the input converted to a floating
    dtype (integers and bools to the default float, as torch; ``ints=False``: torch's
    ``NotImplementedError`` for them), recorded as one ``node`` (``None``: no graph,
    torch gives no derivative).  Complex inputs raise torch's error unless
    ``complex_ok``."""
    cls = composite_class(node, ("self",)) if node else None

    def op(input):  # noqa: A002
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
    op.__doc__ = doc or f"``torch.{name}``: elementwise, ftrans's ``{fn.__name__}``."
    return op


def _check_operands(name, a, b, scalars):
    """torch's argument checks of a binary function: operand ``i`` must be a Tensor unless
    ``scalars[i]``, and not both may be Python numbers."""
    for v, arg, pos, ok in ((a, "input", 1, scalars[0]), (b, "other", 2, scalars[1])):
        if not ok:
            _need_tensor(v, name, arg, pos)
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        raise TypeError(f"{name}(): expected at least one Tensor operand, got "
                        f"{type(a).__name__} and {type(b).__name__}")


def _check_broadcast(ad, bd):
    try:
        np.broadcast_shapes(np.shape(ad), np.shape(bd))
    except ValueError:
        raise _broadcast_error(ad, bd) from None


def _binary_datas(name, a, b, scalars, kernel, ints=True, complex_ok=False):
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


def float_binary(name, node, fn, scalars=(False, False), kernel=None, ints=True,
                 scalar_nodes=None, doc="", complex_ok=False):
    """``op(input, other)``: ``fn(a, b)`` after PyTorch's promotion (integers to the default
    float unless ``ints=False``), one ``node`` (``scalar_nodes``: the node names when the
    first/second operand is a Python number, e.g. ``XlogyBackward1``/``2``)."""
    kernel = kernel or f"{name}_cpu"
    cls = composite_class(node, ("self", "other")) if node else None
    scls = [composite_class(n, ("self", "other")) for n in scalar_nodes] if scalar_nodes \
        else [cls, cls]

    def op(input, other):  # noqa: A002
        ad, bd, casts = _binary_datas(name, input, other, scalars, kernel, ints, complex_ok)
        if cls is None:   # (a Python number as a 0-d array of the result's dtype)
            dt = _as_float(np.empty(0, _promote_datas([input, other]))).dtype
            ad, bd = (v if hasattr(v, "dtype") else np.asarray(v, dt) for v in (ad, bd))
            return _make_plain(fn(ad, bd))
        c = cls if isinstance(input, Tensor) and isinstance(other, Tensor) else \
            scls[0] if not isinstance(input, Tensor) else scls[1]
        return _compose(c, fn, [input, other], [ad, bd], casts=casts)
    op.__name__ = name
    op.__doc__ = doc or f"``torch.{name}``: elementwise, ftrans's ``{fn.__name__}``."
    return op


def plain_binary(name, fn, kernel, kinds, scalars=(False, False)):
    """A binary operation on the integer/boolean dtypes ``kinds`` with no derivative."""
    def op(input, other):  # noqa: A002
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
    op.__doc__ = f"``torch.{name}``: elementwise on integer tensors (no derivative)."
    return op


# --------------------------------------------------------------------------- unary
_export("acosh", float_unary("acosh", "AcoshBackward0", _fnp.arccosh, complex_ok=True),
        aliases=("arccosh",))
_export("asinh", float_unary("asinh", "AsinhBackward0", _fnp.arcsinh, complex_ok=True),
        aliases=("arcsinh",))
_export("atanh", float_unary("atanh", "AtanhBackward0", _fnp.arctanh, complex_ok=True),
        aliases=("arctanh",))
_DEG_MSG = "{} is not supported for complex tensors."


def _angle_conv(name, node, fn):
    f = float_unary(name, node, fn, complex_ok=True)

    def op(input):  # noqa: A002
        if isinstance(input, Tensor) and input._data.dtype.kind == "c":
            raise RuntimeError(_DEG_MSG.format(name))
        return f(input)
    op.__doc__ = f"``torch.{name}``: angle conversion (real tensors; ints -> default float)."
    return op


_export("deg2rad", _angle_conv("deg2rad", "Deg2RadBackward0", _fnp.deg2rad))
_export("rad2deg", _angle_conv("rad2deg", "Rad2DegBackward0", _fnp.rad2deg))


def _frac_fn(x):
    return _fnp.subtract(x, _fnp.trunc(x))


_export("frac", float_unary("frac", "FracBackward0", _frac_fn, ints=False,
                            doc="``torch.frac``: ``x - trunc(x)`` (floating tensors only)."))
_export("sinc", float_unary("sinc", "SincBackward0", _fnp.sinc, complex_ok=True))
_export("lgamma", float_unary("lgamma", "LgammaBackward0", _fss.gammaln, kernel="lgamma_vml_cpu"))
_export("digamma", float_unary("digamma", "DigammaBackward0", _fss.digamma, kernel="digamma"))
_export("erfc", float_unary("erfc", "ErfcBackward0", _fss.erfc, kernel="erfc_vml_cpu"))
_export("erfinv", float_unary("erfinv", "ErfinvBackward0", _fss.erfinv, kernel="erfinv_cpu"))
_LogitBackward0 = composite_class("LogitBackward0", ("self",))


def _logit_fn(x, eps=None):
    if eps is not None:
        x = _fnp.clip(x, eps, 1.0 - eps)
    else:   # outside [0, 1]: NaN value and NaN gradient, as torch (``x + nan`` there)
        out = _fnp.logical_or(_fnp.less(x, 0), _fnp.greater(x, 1))
        x = _fnp.add(x, _fnp.where(out, np.nan, 0.0).astype(x.dtype))
    return _fss.logit(x)


def logit(input, eps=None):  # noqa: A002
    """``torch.logit``: ``log(p / (1 - p))``; with ``eps``, ``p`` clamped to
    ``[eps, 1 - eps]`` first (gradient 0 outside, as torch); without ``eps`` the gradient
    is NaN outside ``[0, 1]``, as torch's."""
    _need_tensor(input, "logit", "input", 1)
    if input._data.dtype.kind == "c":
        _refuse_complex(input, kernel="logit_cpu")
    d = _as_float(input._data)
    return _compose(_LogitBackward0, _logit_fn, [input], [d],
                    {"eps": None if eps is None else float(eps)})


_export("logit", logit)
_PolygammaBackward0 = composite_class("PolygammaBackward0", ("self",))


def polygamma(n, input):  # noqa: A002
    """``torch.polygamma(n, input)``: the ``n``-th derivative of ``digamma``
    (:func:`ftrans.scipy.special.polygamma`)."""
    _need_tensor(input, "polygamma", "input", 2)
    n = int(n)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if input._data.dtype.kind == "c":
        _refuse_complex(input, kernel="polygamma" if n > 1 else ("digamma", "trigamma")[n])
    d = _as_float(input._data)
    return _compose(_PolygammaBackward0, _polygamma_fn, [input], [d], {"n": n})


def _polygamma_fn(x, n):
    return _fss.polygamma(n, x)


def _polygamma_method(self, n):
    return polygamma(n, self)


_export("polygamma", polygamma, method=False, inplace=False)
METHODS["polygamma"] = _polygamma_method
METHODS["polygamma_"] = lambda self, n: _inplace(self, _polygamma_method, n)
_MvlgammaBackward0 = composite_class("MvlgammaBackward0", ("self",))


def mvlgamma(input, p):  # noqa: A002
    """``torch.mvlgamma(input, p)``: log of the multivariate gamma function of dimension
    ``p`` (:func:`ftrans.scipy.special.multigammaln`); every element must exceed
    ``(p - 1)/2``."""
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


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):  # noqa: A002
    """``torch.nan_to_num``: NaN, +inf and -inf replaced by ``nan``, ``posinf`` and
    ``neginf`` (default: the dtype's largest and smallest finite values); the gradient is
    1 where the input is finite and 0 where it was replaced."""
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


def positive(input):  # noqa: A002
    """``torch.positive``: the input itself (bool tensors raise, as in torch)."""
    _need_tensor(input, "positive", "input", 1)
    if input._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


_export("positive", positive, inplace=False)


def isreal(input):  # noqa: A002
    """``torch.isreal``: True where the imaginary part is 0 (everywhere for real dtypes)."""
    _need_tensor(input, "isreal", "input", 1)
    d = input._data
    if d.dtype.kind == "c":
        return _make_plain(_fnp.equal(_fnp.imag(d), 0))
    return _make_plain(_fnp.ones_like(d, dtype=bool))


_export("isreal", isreal, inplace=False)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """``torch.isin``: True where an element of ``elements`` is in ``test_elements``
    (either may be a Python number, not both)."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin(): expected at least one Tensor operand")
    e = elements._data if isinstance(elements, Tensor) else np.asarray(elements)
    t = test_elements._data if isinstance(test_elements, Tensor) else np.asarray(test_elements)
    return _make_plain(np.asarray(np.isin(e, t, assume_unique=assume_unique, invert=invert)))


_export("isin", isin, method=False, inplace=False)
_FrexpBackward0 = composite_class("FrexpBackward0", ("self",))
_frexp_ret = namedtuple("frexp", ["mantissa", "exponent"])


def _mantissa(x, scale):
    return P.mul(x, scale)


def frexp(input):  # noqa: A002
    """``torch.frexp``: ``(mantissa, exponent)`` with ``input = mantissa * 2**exponent``,
    the exponent int32; floating dtypes only."""
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
def _ldexp_fn(x, e):
    return P.mul(x, _fnp.exp2(e))


_export("ldexp", float_binary("ldexp", "LdexpBackward0", _ldexp_fn, complex_ok=True,
                              doc="``torch.ldexp``: ``input * 2**other`` (float result)."))


def _logaddexp_complex(a, b):
    """``max + log1p(exp(min - max))``, ``max`` the operand of larger real part (torch's
    complex formula: the imaginary part is not reduced to the principal range)."""
    first = _fnp.greater_equal(_fnp.real(a), _fnp.real(b))
    hi, lo = _fnp.where(first, a, b), _fnp.where(first, b, a)
    return _fnp.add(hi, _fnp.log1p(_fnp.exp(_fnp.subtract(lo, hi))))


_logaddexp_c = float_binary("logaddexp", "LogaddexpBackward0", _logaddexp_complex,
                            complex_ok=True)


def logaddexp(input, other):  # noqa: A002
    """``torch.logaddexp``: ``log(exp(input) + exp(other))``; real operands on the
    operation table's ``logaddexp`` row, complex ones as torch computes them."""
    _need_tensor(input, "logaddexp", "input", 1)
    _need_tensor(other, "logaddexp", "other", 2)
    if _has_complex(input, other):
        return _logaddexp_c(input, other)
    return _pw.logaddexp(input, other)


_export("logaddexp", logaddexp, inplace=False)
_export("hypot", float_binary("hypot", "HypotBackward0", _fnp.hypot, ints=False))
_export("logaddexp2", float_binary("logaddexp2", "Logaddexp2Backward0", _fnp.logaddexp2,
                                   ints=False), inplace=False)
_export("xlogy", float_binary("xlogy", "XlogyBackward0", _fss.xlogy, scalars=(True, True),
                              scalar_nodes=("XlogyBackward1", "XlogyBackward2")))
_export("igamma", float_binary("igamma", "IgammaBackward0", _fss.gammainc, ints=False))
_export("igammac", float_binary("igammac", "IgammacBackward0", _fss.gammaincc, ints=False))
_export("gcd", plain_binary("gcd", _fnp.gcd, "gcd_cpu", "iu"))
_export("lcm", plain_binary("lcm", _fnp.lcm, "lcm_cpu", "iu"))
_export("bitwise_left_shift", plain_binary("bitwise_left_shift", _fnp.left_shift, "lshift_cpu",
                                           "iu", scalars=(True, True)))
_export("bitwise_right_shift", plain_binary("bitwise_right_shift", _fnp.right_shift,
                                            "rshift_cpu", "iu", scalars=(True, True)))
def _one_tensor(name, f):
    def op(input, other):  # noqa: A002
        _check_operands(name, input, other, (True, True))
        return f(input, other)
    op.__doc__ = f"``torch.{name}``: elementwise on integer and bool tensors (no derivative)."
    return op


for _n in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    _export(_n, _one_tensor(_n, getattr(_pw, _n)))
del _n


def bitwise_not(input):  # noqa: A002
    """``torch.bitwise_not``: ``~x`` of an integer tensor, ``not x`` of a bool tensor."""
    _need_tensor(input, "bitwise_not", "input", 1)
    d = input._data
    if d.dtype.kind not in "biu":
        raise _kernel_refusal("bitwise_not_cpu", d.dtype)
    return _make_plain(_fnp.logical_not(d) if d.dtype.kind == "b" else _fnp.invert(d))


_export("bitwise_not", bitwise_not)
# in-place forms of functions defined elsewhere (torch's erf_, exp2_)
METHODS["erf_"] = lambda self: _inplace(self, _O.erf)
METHODS["exp2_"] = lambda self: _inplace(self, _O.exp2)
