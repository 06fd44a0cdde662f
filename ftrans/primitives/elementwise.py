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

import ast

import numpy as np

from ..core import zero, ShapedArray, real_dtype
from ..core.dtypes import kind_of, as_numpy_dtype
from ..kernels import backend_for, special_module
from ._rules import (def_elementwise, conj, no_trace, unbroadcast, fit,
                     elementwise_abstract_eval, batch_elementwise, float_valued_abstract_eval)
from .optable import ROWS, compile_rule
from ._base import (ROW_PRIMITIVES, ROW_OPS, neg_p, conj_p, add_p, sub_p, mul_p, div_p, pow_p,
                    integer_pow_p, abs_p, sign_p, maximum_p, minimum_p, neg, add, sub, mul,
                    div, pow, abs, sign, maximum, minimum, conj_op, integer_pow, where, eq,
                    ge, gt, le, lt, isnan, isinf, floor, logical_and, logical_or, logical_not,
                    real)

__all__ = [
    "neg", "add", "sub", "mul", "div", "pow", "integer_pow", "abs", "sign", "maximum",
    "minimum", "conj_p", "UNARY_PRIMITIVES", "BINARY_PRIMITIVES", "ROW_OPS",
    *(op.name for op in ROWS),  # the operation table's rows (exp, log, sin ... i0)
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
# the rows of the operation table (optable.py): primitive, rules and lowering
# ---------------------------------------------------------------------------
UNARY_PRIMITIVES: dict = {}
BINARY_PRIMITIVES: dict = {}

#: the names a derivative expression may call: the rows' ops and the ops of other
#: primitives, filled below
RULE_NAMESPACE: dict = {}


def _impl_of(op):
    if not op.kernel.startswith("scipy.special."):
        return (_unary_impl if op.arity == 1 else _binary_impl)(op.name)
    fname = op.kernel.rpartition(".")[2]

    def impl(*args):
        return getattr(special_module(args[0]), fname)(*args)
    impl.__name__ = f"{op.name}_impl"
    return impl


def _abstract_eval_of(op):
    """NumPy's result dtype for the operands' dtypes (what the impl returns): float32
    stays float32, integer inputs of a float-valued function give NumPy's float type
    (``np.sin`` of int8 is float16, of int64 float64), predicates give bool."""
    if op.dtype == "bool":
        return lambda *avals: ShapedArray(elementwise_abstract_eval(*avals).shape,
                                          np.dtype(bool))
    return float_valued_abstract_eval(None, op)


#: the ops a derivative expression of a real row may call, as NumPy functions (the
#: kernels' own: the values equal the primitives')
_NUMPY_NAMESPACE = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "neg": np.negative, "where": np.where, "eq": np.equal, "ge": np.greater_equal,
    "le": np.less_equal, "isnan": np.isnan, "isinf": np.isinf, "logical_and": np.logical_and,
    "logical_or": np.logical_or, "logical_not": np.logical_not, "floor": np.floor,
    "trunc": np.trunc, "sign": np.sign, "exp": np.exp, "log": np.log, "sqrt": np.sqrt,
    "sin": np.sin, "cos": np.cos, "sinh": np.sinh, "cosh": np.cosh,
}


def _names(expr):
    """The functions an expression calls."""
    return {n.func.id for n in ast.walk(ast.parse(expr, mode="eval"))
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def _numpy_operands(*vals):
    return all(type(v) is np.ndarray or type(v) is float or type(v) is int for v in vals)


def _row_rules(op, p):
    """Per-input JVP and VJP rules of a row (see optable's "Derivative expressions")."""
    name = op.name
    jvps, vjps = [], []
    for i, expr in enumerate(op.deriv):
        if expr is None or expr == "0":  # no tangent space, or a zero derivative
            jvps.append(None)
            vjps.append(None)
        elif expr == "linear":  # f(t, rest...): linear and real-scaling in input i
            def lin(t, ans, *xs, _i=i):
                return p.bind(*xs[:_i], t, *xs[_i + 1:])
            jvps.append(lin)
            vjps.append(lin)
        else:
            deriv = compile_rule(expr, RULE_NAMESPACE)  # deriv(ans, x[, y])
            if op.fuse:
                def jvp_rule(t, ans, x, _d=deriv):
                    if no_trace():
                        try:
                            real = t.dtype.kind != "c" and x.dtype.kind != "c"
                        except AttributeError:  # another library's dtype (array_api_strict)
                            real = kind_of(t) != "c" and kind_of(x) != "c"
                        if real:
                            return backend_for(t, x).unary_vjp(name, t, x, ans)
                    return mul(t, _d(ans, x))

                def vjp_rule(ct, ans, x, _d=deriv):
                    if no_trace():
                        return backend_for(ct, x).unary_vjp(name, ct, x, ans)
                    return mul(ct, conj(_d(ans, x)))
                jvps.append(jvp_rule)
                vjps.append(vjp_rule)
            else:
                # with no transform active and NumPy operands, the same expression on
                # NumPy's functions (one call per operation instead of a bind each)
                d_np = (compile_rule(expr, _NUMPY_NAMESPACE) if op.complex == "real"
                        and _names(expr) <= _NUMPY_NAMESPACE.keys() else None)

                def jvp_expr_rule(t, ans, *xs, _d=deriv, _dn=d_np):
                    if _dn is not None and no_trace() and _numpy_operands(t, *xs):
                        return t * _dn(ans, *xs)
                    return mul(t, _d(ans, *xs))

                def vjp_expr_rule(ct, ans, *xs, _d=deriv, _dn=d_np):
                    if _dn is not None and no_trace() and _numpy_operands(ct, *xs):
                        return ct * _dn(ans, *xs)
                    return mul(ct, conj(_d(ans, *xs)))
                jvps.append(jvp_expr_rule)
                vjps.append(vjp_expr_rule)
    return jvps, vjps


def _define_multi(op, p):
    """A unary row with several results (frexp, modf): ``deriv[0][k]`` is the derivative
    of result ``k`` (``"0"``: none, e.g. an integer exponent)."""
    ds = [None if e == "0" else compile_rule(e, RULE_NAMESPACE) for e in op.deriv[0]]
    # (derivative k is ds[k](None, x, None, ans0, ans1))
    bind = p.bind

    def jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        outs = bind(x)
        if t is zero:
            return outs, (zero,) * len(outs)
        return outs, tuple(zero if d is None else fit(mul(t, d(None, x, None, *outs)), o)
                           for d, o in zip(ds, outs))

    def vjp(cts, ans, primals, needs):
        (x,) = primals
        if not needs[0]:
            return [None]
        acc = zero
        for d, ct in zip(ds, cts):
            if d is None or ct is zero:
                continue
            c = mul(ct, conj(d(None, x, None, *ans)))
            acc = c if acc is zero else add(acc, c)
        return [None if acc is zero else unbroadcast(acc, x)]

    p.impl = _impl_of(op)
    p.abstract_eval = _abstract_eval_of(op)
    p.jvp, p.vjp = jvp, vjp
    p.batch = lambda vals, dims: (bind(vals[0]), (dims[0],) * op.outputs)


def _define_row(op):
    p = ROW_PRIMITIVES[op.name]
    if op.outputs > 1:
        _define_multi(op, p)
    elif op.differentiable:
        jvps, vjps = _row_rules(op, p)
        def_elementwise(p, _impl_of(op), jvps, vjps, abstract_eval=_abstract_eval_of(op))
    else:
        p.impl = _impl_of(op)
        p.abstract_eval = _abstract_eval_of(op)
        p.batch = lambda vals, dims, **params: batch_elementwise(p, vals, dims, **params)
    (UNARY_PRIMITIVES if op.arity == 1 else BINARY_PRIMITIVES)[op.name] = p
    numba = op.numba_expr
    if numba is not None:
        cuda = None if op.cuda is None else \
            f"{op.cuda}({', '.join('{%d}' % i for i in range(op.arity))})"
        p.lowering = _ew(numba, cuda, cast="none" if op.dtype == "bool" else "out",
                         numba_complex=op.numba_complex, float16=op.numba_float16)
    return p


def _ew(numba, cuda, complex=False, cast="out", numba_complex=None, float16=True):
    low = {"kind": "elementwise", "numba": numba, "cuda": cuda, "complex": complex, "cast": cast}
    if numba_complex is not None:
        low["numba_complex"] = numba_complex
    if not float16:
        low["float16"] = False
    return low


for _row in ROWS:
    _define_row(_row)
del _row
globals().update({k + "_p": v for k, v in ROW_PRIMITIVES.items()})
globals().update(ROW_OPS)
RULE_NAMESPACE.update(ROW_OPS)
# the rows this file's hand-written rules name (the loop above defines all of them)
sin_p, cos_p = ROW_PRIMITIVES["sin"], ROW_PRIMITIVES["cos"]
sin, cos, log = ROW_OPS["sin"], ROW_OPS["cos"], ROW_OPS["log"]


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


def _linear_unary(p, f):
    """A unary function that is its own derivative map (neg, conj)."""
    def_elementwise(p, _unary_impl(p.name), [lambda t, ans, x: f(t)], [lambda ct, ans, x: f(ct)])
    UNARY_PRIMITIVES[p.name] = p


_linear_unary(neg_p, lambda v: neg(v))
# conj is R-linear but not C-linear: its adjoint for Re<.,.> is conj itself.
_linear_unary(conj_p, lambda v: conj_op(v))

# abs: real x -> sign(x) (0 at 0); complex z -> Re(conj(z) t)/|z|, cotangent ct * z/|z|.


def _sgn(x, ans):
    """x/|x| with 0 at 0 (the minimum-norm subgradient), for real and complex x."""
    if kind_of(x) != "c":
        return sign(x)
    is_0 = eq(ans, 0)
    return where(is_0, 0.0, div(x, where(is_0, 1.0, ans)))


def _abs_jvp(t, ans, x):
    s = _sgn(x, ans)
    if kind_of(x) == "c":
        return real(mul(conj(s), t))
    return mul(s, t)


def _abs_abstract_eval(x):
    """|x| of a complex x is real (numpy.abs), so the dtype is the real one."""
    a = elementwise_abstract_eval(x)
    return ShapedArray(a.shape, real_dtype(a.dtype))


def_elementwise(abs_p, _unary_impl("abs"), [_abs_jvp], [lambda ct, ans, x: mul(ct, _sgn(x, ans))],
                abstract_eval=_abs_abstract_eval)
UNARY_PRIMITIVES["abs"] = abs_p

# sign: real x: derivative zero everywhere it exists (and 0 by convention at 0).
# complex z: sign(z) = z/|z| (NumPy 2) has the R-linear derivative
# t -> (t - s Re(conj(s) t)) / |z|, self-adjoint for Re<.,.> (PyTorch's sgn_backward);
# 0 at z == 0.


def _sign_rule(v, ans, x):
    if kind_of(x) != "c":
        return zero
    r = abs(x)
    is_0 = eq(r, 0)
    d = div(sub(v, mul(ans, real(mul(conj(ans), v)))), where(is_0, 1.0, r))
    return where(is_0, 0.0, d)


def_elementwise(sign_p, _unary_impl("sign"), [_sign_rule], [_sign_rule])
UNARY_PRIMITIVES["sign"] = sign_p


# ---------------------------------------------------------------------------
# binary functions
# ---------------------------------------------------------------------------

def _binary(p, jvp_fns, vjp_fns):
    def_elementwise(p, _binary_impl(p.name), jvp_fns, vjp_fns)
    BINARY_PRIMITIVES[p.name] = p


_binary(add_p, [lambda t, ans, x, y: t, lambda t, ans, x, y: t],
                [lambda ct, ans, x, y: ct, lambda ct, ans, x, y: ct])
_binary(sub_p, [lambda t, ans, x, y: t, lambda t, ans, x, y: neg(t)],
                [lambda ct, ans, x, y: ct, lambda ct, ans, x, y: neg(ct)])
_binary(mul_p, [lambda t, ans, x, y: mul(t, y), lambda t, ans, x, y: mul(x, t)],
                [lambda ct, ans, x, y: mul(ct, conj(y)), lambda ct, ans, x, y: mul(conj(x), ct)])
_binary(div_p, [lambda t, ans, x, y: div(t, y),
                        lambda t, ans, x, y: neg(mul(t, div(ans, y)))],
                [lambda ct, ans, x, y: div(ct, conj(y)),
                 lambda ct, ans, x, y: neg(mul(ct, conj(div(ans, y))))])


def _is_scalar(v):
    return isinstance(v, (int, float, complex))


def _pow_dx(ans, x, y):
    """d(x**y)/dx = y * x**(y-1), defined as 0 where y == 0."""
    if _is_scalar(y):
        return zero if y == 0 else mul(y, pow(x, y - 1))
    return where(eq(y, 0), 0.0, mul(y, pow(x, sub(y, 1))))


def _pow_dy(ans, x, y):
    """d(x**y)/dy = x**y * log(x), defined as 0 where x == 0 and y >= 0."""
    if _is_scalar(x):  # e.g. 2.0 ** y: treat the base as an array of the result's dtype
        x = np.asarray(x, dtype=as_numpy_dtype(ans.dtype))
    x_is_0 = eq(x, 0)
    d = mul(ans, log(where(x_is_0, 1.0, x)))
    mask = x_is_0 if (kind_of(x) == "c" or kind_of(y) == "c") else logical_and(x_is_0, ge(y, 0))
    return where(mask, 0.0, d)


_binary(
    pow_p,
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
    return where(cmp(x, y), v, where(eq(x, y), mul(v, 0.5), 0.0))


def _minmax(p, cmp):
    _binary(p,
                   [lambda t, ans, x, y: _share(t, x, y, cmp),
                    lambda t, ans, x, y: _share(t, y, x, cmp)],
                   [lambda ct, ans, x, y: _share(ct, x, y, cmp),
                    lambda ct, ans, x, y: _share(ct, y, x, cmp)])


_minmax(maximum_p, gt)
_minmax(minimum_p, lt)


# integer_pow(x, n): x**n for a static Python int n (no y-derivative, exact at x == 0).


def _integer_pow_impl(x, *, n):
    return backend_for(x).binary("pow", x, n)


def _ipow_deriv(x, n):
    if n == 0:
        return zero
    if n == 1:
        return 1.0
    return mul(float(n), x if n == 2 else integer_pow(x, n - 1))


def _ipow_abstract_eval(x, *, n):
    return elementwise_abstract_eval(x, n)


def_elementwise(
    integer_pow_p, _integer_pow_impl,
    [lambda t, ans, x, *, n: _mul_or_zero(t, _ipow_deriv(x, n))],
    [lambda ct, ans, x, *, n: _mul_or_zero(ct, _conj_or_zero(_ipow_deriv(x, n)))],
    abstract_eval=_ipow_abstract_eval)


RULE_NAMESPACE.update(neg=neg, add=add, sub=sub, mul=mul, div=div, pow=pow, abs=abs,
                      sign=sign, maximum=maximum, minimum=minimum, where=where, eq=eq, ge=ge,
                      le=le, isnan=isnan, isinf=isinf, floor=floor, logical_or=logical_or,
                      logical_and=logical_and, logical_not=logical_not)


# ---------------------------------------------------------------------------
# compiler lowering of the hand-written primitives (ftrans.compiler; format in its module
# docstring): the scalar expression of one element, operands {0}, {1} already cast to the
# output dtype.  float64 sin/cos use the kernels' vectorizable polynomial (the eager numba
# path's values).
# ---------------------------------------------------------------------------
for _p, _nb, _cu, _cx in [
        (neg_p, "(-{0})", "(-{0})", True), (conj_p, "np.conj({0})", None, True),
        (add_p, "({0} + {1})", "({0} + {1})", True), (sub_p, "({0} - {1})", "({0} - {1})", True),
        (mul_p, "({0} * {1})", "({0} * {1})", True), (div_p, "({0} / {1})", "({0} / {1})", False),
        (pow_p, "np.power({0}, {1})", "pow({0}, {1})", False),
        (integer_pow_p, "_ipow({0}, {n})", None, False),
        (maximum_p, "np.maximum({0}, {1})", "max({0}, {1})", False),
        (minimum_p, "np.minimum({0}, {1})", "min({0}, {1})", False),
        (sign_p, "(np.sign({0}) + 0)", None, False)]:
    _p.lowering = _ew(_nb, _cu, _cx)
# complex operands: NumPy's own formulas (its FMA product, Smith's quotient, its SIMD
# modulus, its power; ftrans/compiler/_numba_cplx_support.py), bit for bit
div_p.lowering["numba_complex"] = "_cdiv({0}, {1})"
mul_p.lowering["numba_complex"] = "_cmul({0}, {1})"
pow_p.lowering["numba_complex"] = "_cpow({0}, {1})"
integer_pow_p.lowering["numba_complex"] = "_cpow({0}, {n})"
sign_p.lowering["numba_complex"] = "_csign({0})"
pow_p.lowering["float16"] = False  # NumPy's float16 power differs from float32 powf's rounded
abs_p.lowering = _ew("np.abs({0})", "abs({0})", cast="none", numba_complex="_cabs({0})")
# sin/cos: a branch-free (vectorizable) form, exact unless |x| >= 2**20, inf or nan
# ("guard"), where the compiler reruns the loop with the exact form
for _p, _n in ((sin_p, "sin"), (cos_p, "cos")):
    _p.lowering = dict(_p.lowering, numba=f"_{_n}_fast({{0}})", cuda=f"{_n}({{0}})",
                       guard="_trig_bad({0})", numba_exact=f"_{_n}({{0}})")


def _div_abstract_eval(x, y):
    """True division: NumPy's promotion, integers and booleans to float64."""
    a = elementwise_abstract_eval(x, y)
    return a if a.dtype.kind in "fc" else ShapedArray(a.shape, np.dtype(np.float64))


div_p.abstract_eval = _div_abstract_eval
