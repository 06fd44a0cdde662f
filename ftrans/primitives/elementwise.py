"""Elementwise arithmetic and transcendental primitives.

Each primitive takes NumPy-broadcastable operands (see :mod:`._rules` for why
broadcasting is implicit) and follows NumPy's promotion.  Derivatives:

* holomorphic functions multiply tangents by ``f'(x)`` and cotangents by
  ``conj(f'(x))`` (PyTorch's convention, autograd notes "Autograd for Complex
  Numbers");
* ``abs`` at 0 has derivative 0, ``sqrt`` at 0 has derivative ``inf``, and ties of
  ``maximum``/``minimum`` split the derivative evenly (DESIGN.md, following the
  autograd notes' rules for non-differentiable points);
* ``pow(x, y)``: the ``y``-derivative is 0 where ``x == 0`` and ``y >= 0``, and the
  ``x``-derivative is 0 where ``y == 0`` (PyTorch's ``pow_backward``).

With no transform active, the cotangent of the transcendental unary family is
computed by one fused kernel (``kernels.unary_vjp``: e.g. ``g * (1 - y*y)`` for
tanh in a single pass); under a transform the same formula is composed of
ftrans operations so it can be differentiated again.
"""
from __future__ import annotations

import numpy as np

from ..core import Primitive, zero
from ..core.dtypes import kind_of, as_numpy_dtype
from ..kernels import backend_for
from ._rules import def_elementwise, conj, no_trace, unbroadcast

__all__ = [
    "neg", "add", "sub", "mul", "div", "pow", "integer_pow", "exp", "log", "log1p", "expm1",
    "sin", "cos", "tan", "tanh", "sinh", "cosh", "arcsin", "arccos", "arctan", "arctan2",
    "sqrt", "abs", "sign", "maximum", "minimum", "logaddexp", "conj_p",
    "UNARY_PRIMITIVES", "BINARY_PRIMITIVES",
]


def _unary_impl(name):
    def impl(x):
        return backend_for(x).unary(name, x)
    impl.__name__ = f"{name}_impl"
    return impl


def _binary_impl(name):
    def impl(x, y):
        return backend_for(x, y).binary(name, x, y)
    impl.__name__ = f"{name}_impl"
    return impl


# ---------------------------------------------------------------------------
# unary functions with a derivative f'(x) written in ftrans ops
# ---------------------------------------------------------------------------
UNARY_PRIMITIVES: dict = {}


def _holomorphic_unary(name, deriv):
    """``deriv(x, ans)`` is f'(x) built from ftrans operations."""
    p = Primitive(name)

    def jvp_rule(t, ans, x):
        if no_trace():
            try:
                real = t.dtype.kind != "c" and x.dtype.kind != "c"
            except AttributeError:  # another library's dtype object (array_api_strict)
                real = kind_of(t) != "c" and kind_of(x) != "c"
            if real:
                return backend_for(t, x).unary_vjp(name, t, x, ans)
        return mul(t, deriv(x, ans))

    def vjp_rule(ct, ans, x):
        if no_trace():
            return backend_for(ct, x).unary_vjp(name, ct, x, ans)
        return mul(ct, conj(deriv(x, ans)))

    def_elementwise(p, _unary_impl(name), [jvp_rule], [vjp_rule])
    UNARY_PRIMITIVES[name] = p
    return p


def _one_minus_sq(v):
    return sub(1.0, mul(v, v))


exp_p = _holomorphic_unary("exp", lambda x, ans: ans)
log_p = _holomorphic_unary("log", lambda x, ans: div(1.0, x))
log1p_p = _holomorphic_unary("log1p", lambda x, ans: div(1.0, add(x, 1.0)))
expm1_p = _holomorphic_unary("expm1", lambda x, ans: add(ans, 1.0))
sin_p = _holomorphic_unary("sin", lambda x, ans: cos(x))
cos_p = _holomorphic_unary("cos", lambda x, ans: neg(sin(x)))
tan_p = _holomorphic_unary("tan", lambda x, ans: add(1.0, mul(ans, ans)))
tanh_p = _holomorphic_unary("tanh", lambda x, ans: _one_minus_sq(ans))
sinh_p = _holomorphic_unary("sinh", lambda x, ans: cosh(x))
cosh_p = _holomorphic_unary("cosh", lambda x, ans: sinh(x))
arcsin_p = _holomorphic_unary("arcsin", lambda x, ans: div(1.0, sqrt(_one_minus_sq(x))))
arccos_p = _holomorphic_unary("arccos", lambda x, ans: div(-1.0, sqrt(_one_minus_sq(x))))
arctan_p = _holomorphic_unary("arctan", lambda x, ans: div(1.0, add(1.0, mul(x, x))))
sqrt_p = _holomorphic_unary("sqrt", lambda x, ans: div(0.5, ans))


# sin in reverse mode saves cos(x), computed in the forward pass in the same kernel pass
# over x as sin(x) (``kernels.sincos``), instead of x: the backward pass is then one
# multiplication ``ct * cos(x)``.  For 4M float64 that is about 6 ms (sincos) + 2.5 ms
# (a NumPy multiply) instead of 5.5 ms (sin) + 6 ms (the fused ``ct*cos(x)`` kernel),
# one thread.  cos is left as it is: its residual would be -sin(x), and the extra
# negation costs what the shared pass saves.
class _SavedDeriv:
    """Reverse-mode residual of ``sin``: the derivative ``cos(x)``, saved by
    :func:`_sin_vjp_fwd` in place of the primal input ``x`` (the tape then holds
    ``(_SavedDeriv(cos(x)),)``); the VJP rule tells the two apart by type.  Other callers
    of the rule (the compat autograd graph) pass ``(x,)`` as usual."""

    __slots__ = ("d",)

    def __init__(self, d):
        self.d = d


def _sin_vjp_fwd(x):
    """``(sin(x), (_SavedDeriv(cos(x)),))`` for reverse mode.

    It runs with the trace around the reverse-mode trace current: with none
    (``no_trace()``), both values come from one kernel pass (``sincos``); under a
    transform they are bound as ``sin`` and ``cos`` operations, so that higher-order
    derivatives and vmap see them.  Either way ``cos(x)`` has the values of the
    ``cos`` primitive (the kernels compute sincos's cos with cos's own formula).
    """
    if no_trace():
        s, c = backend_for(x).sincos(x)
        return s, (_SavedDeriv(c),)
    return sin(x), (_SavedDeriv(cos(x)),)


_sin_vjp_from_primal = sin_p.vjp  # the rule of def_elementwise, for residuals (x,)


def _sin_vjp(ct, ans, residuals, needs):
    """``ct * conj(cos(x))`` from the saved derivative, or from ``x`` (see above)."""
    r = residuals[0]
    if type(r) is not _SavedDeriv:
        return _sin_vjp_from_primal(ct, ans, residuals, needs)
    if not needs[0]:
        return [None]
    d = r.d
    # written in ftrans ops, so it differentiates again; with no transform active
    # this is one multiplication kernel
    return [unbroadcast(mul(ct, conj(d)), d)]


sin_p.vjp_fwd = _sin_vjp_fwd
sin_p.vjp = _sin_vjp


def _linear_unary(name, f):
    """A unary function that is its own derivative map (neg, conj)."""
    p = Primitive(name)
    def_elementwise(p, _unary_impl(name), [lambda t, ans, x: f(t)], [lambda ct, ans, x: f(ct)])
    UNARY_PRIMITIVES[name] = p
    return p


neg_p = _linear_unary("neg", lambda v: neg(v))
# conj is R-linear but not C-linear: its adjoint for Re<.,.> is conj itself.
conj_p = _linear_unary("conj", lambda v: conj_op(v))

# abs: real x -> sign(x) (0 at 0); complex z -> Re(conj(z) t)/|z|, cotangent ct * z/|z|.
abs_p = Primitive("abs")


def _sgn(x, ans):
    """x/|x| with 0 at 0 (the minimum-norm subgradient), for real and complex x."""
    if kind_of(x) != "c":
        return sign(x)
    from .select import where
    from .logic import eq
    is_0 = eq(ans, 0)
    return where(is_0, 0.0, div(x, where(is_0, 1.0, ans)))


def _abs_jvp(t, ans, x):
    s = _sgn(x, ans)
    if kind_of(x) == "c":
        from .convert import real
        return real(mul(conj(s), t))
    return mul(s, t)


def _abs_abstract_eval(x):
    """|x| of a complex x is real (numpy.abs), so the dtype is the real one."""
    from ._rules import elementwise_abstract_eval
    from ..core import ShapedArray, real_dtype
    a = elementwise_abstract_eval(x)
    return ShapedArray(a.shape, real_dtype(a.dtype))


def_elementwise(abs_p, _unary_impl("abs"), [_abs_jvp], [lambda ct, ans, x: mul(ct, _sgn(x, ans))],
                abstract_eval=_abs_abstract_eval)
UNARY_PRIMITIVES["abs"] = abs_p

# sign: real x: derivative zero everywhere it exists (and 0 by convention at 0).
# complex z: sign(z) = z/|z| (NumPy 2) has the R-linear derivative
# t -> (t - s Re(conj(s) t)) / |z|, self-adjoint for Re<.,.> (PyTorch's sgn_backward);
# 0 at z == 0.
sign_p = Primitive("sign")


def _sign_rule(v, ans, x):
    if kind_of(x) != "c":
        return zero
    from .select import where
    from .logic import eq
    from .convert import real
    r = abs(x)
    is_0 = eq(r, 0)
    d = div(sub(v, mul(ans, real(mul(conj(ans), v)))), where(is_0, 1.0, r))
    return where(is_0, 0.0, d)


def_elementwise(sign_p, _unary_impl("sign"), [_sign_rule], [_sign_rule])
UNARY_PRIMITIVES["sign"] = sign_p


# ---------------------------------------------------------------------------
# binary functions
# ---------------------------------------------------------------------------
BINARY_PRIMITIVES: dict = {}


def _binary(name, jvp_fns, vjp_fns):
    p = Primitive(name)
    def_elementwise(p, _binary_impl(name), jvp_fns, vjp_fns)
    BINARY_PRIMITIVES[name] = p
    return p


add_p = _binary("add", [lambda t, ans, x, y: t, lambda t, ans, x, y: t],
                [lambda ct, ans, x, y: ct, lambda ct, ans, x, y: ct])
sub_p = _binary("sub", [lambda t, ans, x, y: t, lambda t, ans, x, y: neg(t)],
                [lambda ct, ans, x, y: ct, lambda ct, ans, x, y: neg(ct)])
mul_p = _binary("mul", [lambda t, ans, x, y: mul(t, y), lambda t, ans, x, y: mul(x, t)],
                [lambda ct, ans, x, y: mul(ct, conj(y)), lambda ct, ans, x, y: mul(conj(x), ct)])
div_p = _binary("div", [lambda t, ans, x, y: div(t, y),
                        lambda t, ans, x, y: neg(mul(t, div(ans, y)))],
                [lambda ct, ans, x, y: div(ct, conj(y)),
                 lambda ct, ans, x, y: neg(mul(ct, conj(div(ans, y))))])


def _is_scalar(v):
    return isinstance(v, (int, float, complex))


def _pow_dx(ans, x, y):
    """d(x**y)/dx = y * x**(y-1), defined as 0 where y == 0."""
    if _is_scalar(y):
        return zero if y == 0 else mul(y, pow(x, y - 1))
    from .select import where
    from .logic import eq
    return where(eq(y, 0), 0.0, mul(y, pow(x, sub(y, 1))))


def _pow_dy(ans, x, y):
    """d(x**y)/dy = x**y * log(x), defined as 0 where x == 0 and y >= 0."""
    from .select import where
    from .logic import eq, ge, logical_and
    if _is_scalar(x):  # e.g. 2.0 ** y: treat the base as an array of the result's dtype
        x = np.asarray(x, dtype=as_numpy_dtype(ans.dtype))
    x_is_0 = eq(x, 0)
    d = mul(ans, log(where(x_is_0, 1.0, x)))
    mask = x_is_0 if (kind_of(x) == "c" or kind_of(y) == "c") else logical_and(x_is_0, ge(y, 0))
    return where(mask, 0.0, d)


pow_p = _binary(
    "pow",
    [lambda t, ans, x, y: _mul_or_zero(t, _pow_dx(ans, x, y)),
     lambda t, ans, x, y: mul(t, _pow_dy(ans, x, y))],
    [lambda ct, ans, x, y: _mul_or_zero(ct, _conj_or_zero(_pow_dx(ans, x, y))),
     lambda ct, ans, x, y: mul(ct, conj(_pow_dy(ans, x, y)))])


def _mul_or_zero(a, b):
    return zero if b is zero else mul(a, b)


def _conj_or_zero(b):
    return zero if b is zero else conj(b)


def _share(v, x, y, cmp):
    """``v`` where ``cmp(x, y)``, ``v/2`` on ties, 0 elsewhere: the derivative weight of
    maximum/minimum, ties split evenly."""
    from .select import where
    from .logic import eq
    return where(cmp(x, y), v, where(eq(x, y), mul(v, 0.5), 0.0))


def _minmax(name, cmp):
    return _binary(name,
                   [lambda t, ans, x, y: _share(t, x, y, cmp),
                    lambda t, ans, x, y: _share(t, y, x, cmp)],
                   [lambda ct, ans, x, y: _share(ct, x, y, cmp),
                    lambda ct, ans, x, y: _share(ct, y, x, cmp)])


def _gt(x, y):
    from .logic import gt
    return gt(x, y)


def _lt(x, y):
    from .logic import lt
    return lt(x, y)


maximum_p = _minmax("maximum", _gt)
minimum_p = _minmax("minimum", _lt)


def _atan2_den(x, y):
    return add(mul(x, x), mul(y, y))


# arctan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2); real only.
arctan2_p = _binary("arctan2",
                    [lambda t, ans, y, x: mul(t, div(x, _atan2_den(x, y))),
                     lambda t, ans, y, x: mul(t, div(neg(y), _atan2_den(x, y)))],
                    [lambda ct, ans, y, x: mul(ct, div(x, _atan2_den(x, y))),
                     lambda ct, ans, y, x: mul(ct, div(neg(y), _atan2_den(x, y)))])

# logaddexp(x, y) = log(exp(x) + exp(y)): d/dx = exp(x - ans), d/dy = exp(y - ans); real only.
logaddexp_p = _binary("logaddexp",
                      [lambda t, ans, x, y: mul(t, exp(sub(x, ans))),
                       lambda t, ans, x, y: mul(t, exp(sub(y, ans)))],
                      [lambda ct, ans, x, y: mul(ct, exp(sub(x, ans))),
                       lambda ct, ans, x, y: mul(ct, exp(sub(y, ans)))])

# integer_pow(x, n): x**n for a static Python int n (no y-derivative, exact at x == 0).
integer_pow_p = Primitive("integer_pow")


def _integer_pow_impl(x, *, n):
    return backend_for(x).binary("pow", x, n)


def _ipow_deriv(x, n):
    if n == 0:
        return zero
    if n == 1:
        return 1.0
    return mul(float(n), x if n == 2 else integer_pow(x, n - 1))


def _ipow_abstract_eval(x, *, n):
    from ._rules import elementwise_abstract_eval
    return elementwise_abstract_eval(x, n)


def_elementwise(
    integer_pow_p, _integer_pow_impl,
    [lambda t, ans, x, *, n: _mul_or_zero(t, _ipow_deriv(x, n))],
    [lambda ct, ans, x, *, n: _mul_or_zero(ct, _conj_or_zero(_ipow_deriv(x, n)))],
    abstract_eval=_ipow_abstract_eval)


# ---------------------------------------------------------------------------
# the ops: thin bind wrappers used by rules and by ftrans.numpy
# ---------------------------------------------------------------------------
def _op(p):
    bind = p.bind

    def op(*args):
        return bind(*args)
    op.__name__ = p.name
    op.__doc__ = f"Apply the ``{p.name}`` primitive (NumPy broadcasting and promotion)."
    return op


neg = _op(neg_p)
add = _op(add_p)
sub = _op(sub_p)
mul = _op(mul_p)
div = _op(div_p)
pow = _op(pow_p)
exp = _op(exp_p)
log = _op(log_p)
log1p = _op(log1p_p)
expm1 = _op(expm1_p)
sin = _op(sin_p)
cos = _op(cos_p)
tan = _op(tan_p)
tanh = _op(tanh_p)
sinh = _op(sinh_p)
cosh = _op(cosh_p)
arcsin = _op(arcsin_p)
arccos = _op(arccos_p)
arctan = _op(arctan_p)
arctan2 = _op(arctan2_p)
sqrt = _op(sqrt_p)
abs = _op(abs_p)
sign = _op(sign_p)
maximum = _op(maximum_p)
minimum = _op(minimum_p)
logaddexp = _op(logaddexp_p)
conj_op = _op(conj_p)


def integer_pow(x, n: int):
    """``x ** n`` for a Python int ``n`` (exact derivative ``n * x**(n-1)``, also at 0)."""
    return integer_pow_p.bind(x, n=int(n))



# ---------------------------------------------------------------------------
# compiler lowering (ftrans.compiler; format in its module docstring): the scalar
# expression of one element, operands {0}, {1} already cast to the output dtype.
# float64 sin/cos use the kernels' vectorizable polynomial (the eager numba path's values).
# ---------------------------------------------------------------------------
def _ew(numba, cuda, complex=False, cast="out"):
    return {"kind": "elementwise", "numba": numba, "cuda": cuda, "complex": complex, "cast": cast}


for _p, _nb, _cu, _cx in [
        (neg_p, "(-{0})", "(-{0})", True), (conj_p, "np.conj({0})", None, True),
        (add_p, "({0} + {1})", "({0} + {1})", True), (sub_p, "({0} - {1})", "({0} - {1})", True),
        (mul_p, "({0} * {1})", "({0} * {1})", True), (div_p, "({0} / {1})", "({0} / {1})", False),
        (pow_p, "np.power({0}, {1})", "pow({0}, {1})", False),
        (integer_pow_p, "_ipow({0}, {n})", None, False),
        (exp_p, "_exp({0})", "exp({0})", False), (log_p, "np.log({0})", "log({0})", False),
        (log1p_p, "np.log1p({0})", "log1p({0})", False),
        (expm1_p, "np.expm1({0})", "expm1({0})", False),
        (tan_p, "np.tan({0})", "tan({0})", False), (tanh_p, "_tanh({0})", "tanh({0})", False),
        (sinh_p, "np.sinh({0})", "sinh({0})", False), (cosh_p, "np.cosh({0})", "cosh({0})", False),
        (arcsin_p, "np.arcsin({0})", "asin({0})", False),
        (arccos_p, "np.arccos({0})", "acos({0})", False),
        (arctan_p, "np.arctan({0})", "atan({0})", False),
        (arctan2_p, "np.arctan2({0}, {1})", "atan2({0}, {1})", False),
        (sqrt_p, "np.sqrt({0})", "sqrt({0})", False),
        (maximum_p, "np.maximum({0}, {1})", "max({0}, {1})", False),
        (minimum_p, "np.minimum({0}, {1})", "min({0}, {1})", False),
        (logaddexp_p, "np.logaddexp({0}, {1})", None, False),
        (sign_p, "(np.sign({0}) + 0)", None, False)]:
    _p.lowering = _ew(_nb, _cu, _cx)
abs_p.lowering = _ew("np.abs({0})", "abs({0})", cast="none")
# sin/cos: a branch-free (vectorizable) form, exact unless |x| >= 2**20, inf or nan
# ("guard"), where the compiler reruns the loop with the exact form
for _p, _n in ((sin_p, "sin"), (cos_p, "cos")):
    _p.lowering = dict(_ew(f"_{_n}_fast({{0}})", f"{_n}({{0}})"), guard="_trig_bad({0})",
                       numba_exact=f"_{_n}({{0}})")


def _div_abstract_eval(x, y):
    """True division: NumPy's promotion, integers and booleans to float64."""
    from ._rules import elementwise_abstract_eval
    from ..core import ShapedArray
    a = elementwise_abstract_eval(x, y)
    return a if a.dtype.kind in "fc" else ShapedArray(a.shape, np.dtype(np.float64))


div_p.abstract_eval = _div_abstract_eval


# Integer and boolean operands of the float-valued functions: NumPy picks the loop (and so
# the result dtype) by the operand's size (np.sin of int8 is float16, of int16 float32, of
# int32/int64 and Python ints float64); the abstract value must say what impl returns.
def _float_valued_abstract_eval(ufunc):
    from ._rules import elementwise_abstract_eval
    from ..core import ShapedArray

    def rule(*avals, **params):
        a = elementwise_abstract_eval(*avals)
        if a.dtype.kind in "fc":
            return a
        samples = [(x.dtype.type(0).item() if x.weak_type else np.zeros((), x.dtype))
                   if isinstance(x, ShapedArray) else x for x in avals]
        with np.errstate(all="ignore"):
            return ShapedArray(a.shape, np.asarray(ufunc(*samples)).dtype)
    return rule


for _p, _uf in [(exp_p, np.exp), (log_p, np.log), (log1p_p, np.log1p), (expm1_p, np.expm1),
                (sin_p, np.sin), (cos_p, np.cos), (tan_p, np.tan), (tanh_p, np.tanh),
                (sinh_p, np.sinh), (cosh_p, np.cosh), (arcsin_p, np.arcsin),
                (arccos_p, np.arccos), (arctan_p, np.arctan), (sqrt_p, np.sqrt),
                (arctan2_p, np.arctan2), (logaddexp_p, np.logaddexp)]:
    _p.abstract_eval = _float_valued_abstract_eval(_uf)
