"""``check_grads`` catches wrong derivative rules (mutation tests, issue 18 item 5).

For each family of rules a primitive's JVP or VJP rule is replaced (``monkeypatch`` on
the :class:`~ftrans.core.primitive.Primitive` object's ``jvp``/``vjp`` attribute) by a
deliberately wrong one -- off by a factor, a sign, a transposition, a missing
conjugate -- and ``check_grads`` must raise.  Each case also checks that the correct
rule passes and that the wrong rule was actually called (the transforms read
``prim.jvp``/``prim.vjp`` at each use, and the replacement wraps the whole rule, so
fast paths such as the fused ``unary_vjp`` kernels or ``vjp_fwd`` residuals cannot
bypass it).

Then the two blind spots of the original ``check_grads``: order-2 reverse mode never
differentiated with respect to the cotangent (order-2 forward mode not with respect to
the tangent), and its tolerance had an absolute floor of 1e-5 -- so a rule wrong by
50% on a function of scale 1e-6 passed.
"""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans import lax
from ftrans.core import zero
from ftrans.core.primitive import all_primitives
from ftrans.primitives import scatter_add, stop_gradient, transpose
from ftrans.testing import check_grads

PRIMS = all_primitives()

_rng = np.random.default_rng(18)
X = _rng.standard_normal(5)
Y = _rng.standard_normal(5)
Z = X + 1j * _rng.standard_normal(5)
A = _rng.standard_normal((3, 3)) + 3 * np.eye(3)
B = _rng.standard_normal((3, 3))
C3 = _rng.standard_normal((3, 3, 3))
SPD = A @ A.T + np.eye(3)


# wrong (co)tangent maps, applied to every non-zero (co)tangent the rule returns --------
def _factor(c):
    return fnp.multiply(c, 1.5)


def _sign(c):
    return fnp.negative(c)


def _conj(c):  # a missing (or extra) conjugate on a complex (co)tangent
    return fnp.conj(c)


def _swapaxes(c):  # a missing (or extra) transposition of a matrix (co)tangent
    return fnp.swapaxes(c, -1, -2)


def _flip(c):  # the cumulative sum's adjoint without its reversal
    return fnp.flip(c, axis=-1)


def _map(how, out):
    if isinstance(out, (tuple, list)):
        return type(out)(_map(how, o) for o in out)
    if out is None or out is zero:
        return out
    return how(out)


def _swap_cts(cts):  # the cotangents of a two-operand rule handed to the wrong operands
    return list(cts)[::-1]


def _mutate(monkeypatch, prim, rule, how, whole=False):
    """Replace ``prim.<rule>`` by the original rule followed by ``how``; returns the list
    of calls of the replacement."""
    orig = getattr(prim, rule)
    calls = []
    if rule == "jvp":
        def wrong(primals, tangents, **params):
            calls.append(prim.name)
            out, t = orig(primals, tangents, **params)
            return out, _map(how, t)
    else:
        def wrong(ct, ans, primals, needs, **params):
            calls.append(prim.name)
            cts = orig(ct, ans, primals, needs, **params)
            return how(cts) if whole else _map(how, cts)
    monkeypatch.setattr(prim, rule, wrong)
    return calls


def _wrong_transpose_vjp(ct, ans, primals, needs, *, perm):
    return [transpose(ct, perm)]  # should be the inverse permutation


def _scatter(u):
    return scatter_add(u, np.array([0, 2, 2, 4]), (5,))


@ftrans.custom_jvp
def _cj_sin(x):
    return fnp.sin(x)


@_cj_sin.defjvp
def _cj_sin_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return fnp.sin(x), fnp.cos(x) * t


@ftrans.custom_vjp
def _cv_sin(x):
    return fnp.sin(x)


_cv_sin.defvjp(lambda x: (fnp.sin(x), (x,)), lambda res, g: (g * fnp.cos(res[0]),))


def _cond(x):
    return lax.cond(fnp.sum(x) > 0, lambda v: fnp.sin(v) * v, lambda v: fnp.cos(v), x)


def _scan(x):
    return lax.scan(lambda c, v: (c * fnp.sin(v) + v, c), x[0], x)[1]


def _while(x):
    return lax.while_loop(lambda s: s[0] < 3, lambda s: (s[0] + 1, s[1] * fnp.sin(s[1])),
                          (0, x))[1]


def _herm(a):
    return (a + fnp.conj(fnp.swapaxes(a, -1, -2))) / 2


# (id, primitive, rule, mutation, f, args); "whole": the mutation maps the rule's list
CASES = [
    # elementwise unary
    ("sin-jvp-factor", "sin", "jvp", _factor, fnp.sin, (X,)),
    ("sin-vjp-sign", "sin", "vjp", _sign, fnp.sin, (X,)),
    ("tanh-vjp-factor", "tanh", "vjp", _factor, fnp.tanh, (X,)),
    ("exp-vjp-conj", "exp", "vjp", _conj, lambda z: fnp.exp(z), (Z,)),
    ("log-jvp-conj", "log", "jvp", _conj, lambda z: fnp.log(z), (Z,)),
    # elementwise binary
    ("mul-vjp-swapped", "mul", "vjp", _swap_cts, lambda a, b: a * b, (X, Y)),
    ("div-jvp-sign", "div", "jvp", _sign, lambda a, b: a / (b + 3.0), (X, Y)),
    ("pow-vjp-factor", "pow", "vjp", _factor, lambda a, b: fnp.abs(a) ** b, (X, Y)),
    # reductions
    ("sum-vjp-factor", "reduce_sum", "vjp", _factor, lambda a: fnp.sum(a, axis=1), (A,)),
    ("max-jvp-sign", "reduce_max", "jvp", _sign, lambda a: fnp.max(a, axis=0), (A,)),
    ("prod-vjp-factor", "reduce_prod", "vjp", _factor, lambda a: fnp.prod(a), (X,)),
    ("cumsum-vjp-unreversed", "cumsum", "vjp", _flip, lambda a: fnp.cumsum(a), (X,)),
    # structural
    ("reshape-vjp-sign", "reshape", "vjp", _sign, lambda a: fnp.reshape(a, (9, 3)), (C3,)),
    ("transpose-vjp-perm", "transpose", "vjp", None,
     lambda a: fnp.transpose(a, (1, 2, 0)), (C3,)),
    ("broadcast-vjp-factor", "broadcast_to", "vjp", _factor,
     lambda a: fnp.broadcast_to(a, (3, 5)), (X,)),
    ("concatenate-vjp-swapped", "concatenate", "vjp", _swap_cts,
     lambda a, b: fnp.concatenate([a, 2.0 * b]), (X, Y)),
    ("slice-vjp-sign", "gather", "vjp", _sign, lambda a: a[1:4], (X,)),
    ("slice-jvp-factor", "gather", "jvp", _factor, lambda a: a[::2], (X,)),
    # gather / scatter
    ("gather-vjp-factor", "gather", "vjp", _factor, lambda a: a[np.array([0, 2, 2, 4])], (X,)),
    ("scatter-jvp-sign", "scatter_add", "jvp", _sign, _scatter, (X[:4],)),
    ("scatter-vjp-factor", "scatter_add", "vjp", _factor, _scatter, (X[:4],)),
    # dot_general
    ("dot-jvp-factor", "dot_general", "jvp", _factor, lambda a, b: a @ b, (A, B)),
    ("dot-vjp-transposed", "dot_general", "vjp", _swapaxes, lambda a, b: a @ b, (A, B)),
    ("dot-vjp-conj", "dot_general", "vjp", _conj, lambda a, b: a @ b, (A + 1j * B, B)),
    # linear algebra
    ("solve-vjp-transposed", "solve", "vjp", _swapaxes, fnp.linalg.solve, (A, B)),
    ("det-vjp-conj", "det", "vjp", _conj, fnp.linalg.det, (A + 1j * B,)),
    # (differentiated as a -> f((a + a^H)/2): finite differences see it through _herm)
    ("eigh-jvp-sign", "eigh", "jvp", _sign, lambda a: fnp.linalg.eigh(_herm(a))[0], (SPD,)),
    ("cholesky-vjp-factor", "cholesky", "vjp", _factor,
     lambda a: fnp.linalg.cholesky(_herm(a)), (SPD,)),
    # fft
    ("fft-vjp-conj", "fft", "vjp", _conj, fnp.fft.fft, (Z,)),
    ("rfft-jvp-factor", "fft", "jvp", _factor, fnp.fft.rfft, (X,)),
    # control flow
    ("cond-jvp-sign", "cond", "jvp", _sign, _cond, (X,)),
    ("cond-vjp-factor", "cond", "vjp", _factor, _cond, (X,)),
    ("scan-jvp-factor", "scan", "jvp", _factor, _scan, (X,)),
    ("scan-vjp-sign", "scan", "vjp", _sign, _scan, (X,)),
    ("while-jvp-factor", "while", "jvp", _factor, _while, (X,)),
    # custom rules
    ("custom_jvp-sign", "custom_jvp_call", "jvp", _sign, _cj_sin, (X,)),
    ("custom_vjp-factor", "custom_vjp_call", "vjp", _factor, _cv_sin, (X,)),
]


@pytest.mark.parametrize("name,prim,rule,how,f,args", CASES, ids=[c[0] for c in CASES])
def test_wrong_rule_is_caught(monkeypatch, name, prim, rule, how, f, args):
    modes = ("fwd",) if rule == "jvp" else ("rev",)
    check_grads(f, args, order=1, modes=modes)  # the correct rule passes
    p = PRIMS[prim]
    if how is None:  # a rule replaced as a whole
        calls = []

        def wrong(*a, **k):
            calls.append(prim)
            return _wrong_transpose_vjp(*a, **k)
        monkeypatch.setattr(p, rule, wrong)
    else:
        calls = _mutate(monkeypatch, p, rule, how, whole=how is _swap_cts)
    with pytest.raises(AssertionError, match=r"\[order 1, (fwd|rev)\]"):
        check_grads(f, args, order=1, modes=modes)
    assert calls, f"the mutated {prim}.{rule} rule was never called"


# ---------------------------------------------------------------------------------
# order 2: the derivative with respect to the tangent / cotangent is checked
# ---------------------------------------------------------------------------------
def test_order2_rev_differentiates_wrt_cotangent(monkeypatch):
    """A VJP rule that is right in value but treats its cotangent as a constant (its
    derivative in the cotangent is zero): order-1 checks cannot see it; order 2 must."""
    orig = PRIMS["sin"].vjp
    monkeypatch.setattr(PRIMS["sin"], "vjp", lambda ct, ans, primals, needs:
                        orig(stop_gradient(ct), ans, primals, needs))
    check_grads(fnp.sin, (X,), order=1, modes=("rev",))  # right values
    with pytest.raises(AssertionError, match=r"\[order 2, rev\]"):
        check_grads(fnp.sin, (X,), order=2, modes=("rev",))


def test_order2_rev_custom_vjp_bwd_ignoring_cotangent_derivative():
    @ftrans.custom_vjp
    def f(x):
        return fnp.sin(x)

    f.defvjp(lambda x: (fnp.sin(x), (x,)),
             lambda res, g: (ftrans.stop_gradient(g) * fnp.cos(res[0]),))
    check_grads(f, (X,), order=1, modes=("rev",))
    with pytest.raises(AssertionError, match=r"\[order 2, rev\]"):
        check_grads(f, (X,), order=2, modes=("rev",))


def test_order2_fwd_differentiates_wrt_tangent(monkeypatch):
    orig = PRIMS["sin"].jvp
    monkeypatch.setattr(PRIMS["sin"], "jvp", lambda primals, tangents:
                        orig(primals, [stop_gradient(t) for t in tangents]))
    check_grads(fnp.sin, (X,), order=1, modes=("fwd",))
    with pytest.raises(AssertionError, match=r"\[order 2, fwd\]"):
        check_grads(fnp.sin, (X,), order=2, modes=("fwd",))


def test_order2_correct_rules_pass():
    check_grads(lambda a, b: fnp.sin(a) * fnp.exp(b) + a @ b, (A, B), order=2)
    check_grads(lambda z: fnp.abs(fnp.fft.fft(z) * z) ** 2, (Z,), order=2)


# ---------------------------------------------------------------------------------
# tolerances relative to the scale of the values
# ---------------------------------------------------------------------------------
def _scaled_sin(scale, vjp_factor=1.0, vjp_offset=0.0, jvp_factor=1.0):
    @ftrans.custom_vjp
    def fv(x):
        return scale * fnp.sin(x)

    fv.defvjp(lambda x: (scale * fnp.sin(x), (x,)),
              lambda res, g: (g * scale * fnp.cos(res[0]) * vjp_factor
                              + vjp_offset * scale,))

    @ftrans.custom_jvp
    def fj(x):
        return scale * fnp.sin(x)

    @fj.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        return scale * fnp.sin(x), scale * fnp.cos(x) * t * jvp_factor
    return fv, fj


@pytest.mark.parametrize("scale", [1e-8, 1e-6, 1.0, 1e6])
def test_tolerance_is_relative_to_the_values(scale):
    fv, fj = _scaled_sin(scale)
    check_grads(fv, (X,), order=1, modes=("rev",))
    check_grads(fj, (X,), order=1, modes=("fwd",))
    fv, fj = _scaled_sin(scale, vjp_factor=1.5, jvp_factor=1.5)
    with pytest.raises(AssertionError, match="VJP dot-product test failed"):
        check_grads(fv, (X,), order=1, modes=("rev",))
    with pytest.raises(AssertionError, match="JVP: leaf 0 differs"):
        check_grads(fj, (X,), order=1, modes=("fwd",))


@pytest.mark.parametrize("scale", [1e-3, 1.0])
def test_vjp_wrong_by_5e_4_relative_is_caught(scale):
    fv, _ = _scaled_sin(scale, vjp_offset=5e-4)
    with pytest.raises(AssertionError, match="VJP dot-product test failed"):
        check_grads(fv, (X,), order=1, modes=("rev",))


def test_float32_defaults_still_pass():
    x = X.astype(np.float32)
    check_grads(lambda a: fnp.tanh(a) * fnp.sum(a ** 2), (x,), order=2)
