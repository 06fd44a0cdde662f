"""``ftrans.compat.autograd.gradcheck`` / ``gradgradcheck`` (gradcheck notes,
``spec/gradcheck-mechanics.md``).

Correct operations pass in slow and fast mode; a wrong backward (a gradient corrupted by a
hook, or an ``autograd.Function`` with a wrong ``backward``) fails with a message naming
the output, the input and both Jacobians, or returns False; the numerical Jacobians equal
finite differences computed here directly; the other checks (reentrancy, undefined
gradients, batched gradients, dtypes, warnings, argument errors) behave as PyTorch's.
The differential part runs the same snippets through ``torch.autograd.gradcheck``.
"""
from __future__ import annotations

import importlib
import inspect
import re
import warnings

import numpy as np
import pytest

import ftrans.compat as fc
from ftrans.compat import autograd
from ftrans.compat.autograd import gradcheck, gradgradcheck, GradcheckError, Function
from ftrans.compat.autograd import gradcheck as gc_fn
from compat_diff import assert_same, needs_torch, torch

# the module (``autograd.gradcheck`` is the function, as in PyTorch)
gc_mod = importlib.import_module("ftrans.compat.autograd.gradcheck")

RS = np.random.RandomState(1234)
XV = np.array([0.5, -1.25, 2.0])
WV = np.array([0.75, 1.5, -0.5])
AV = RS.randn(3, 4)
ZV = np.array([0.5 + 1.0j, -1.5 + 0.25j, 0.75 - 0.5j])


def t(a, T=fc, dtype=None, rg=True):
    if dtype is None:
        dtype = T.complex128 if np.iscomplexobj(a) else T.float64
    return T.tensor(a, dtype=dtype, requires_grad=rg)


# ------------------------------------------------------------------ correct operations
def _hooked(x, factor=2):
    """``x * 1`` whose incoming gradient is multiplied by ``factor`` (a wrong backward)."""
    y = x * 1
    y.register_hook(lambda g: g * factor)
    return y


OPS = {
    "sin": (lambda x: x.sin(), lambda T: (t(XV, T),)),
    "mul": (lambda x, w: x * w, lambda T: (t(XV, T), t(WV, T))),
    "matmul": (lambda x, a: x @ a, lambda T: (t(XV, T), t(AV, T))),
    "softmax": (lambda a: a.softmax(1), lambda T: (t(AV, T),)),
    "z_conj_z": (lambda z: z * z.conj(), lambda T: (t(ZV, T),)),
    "abs_complex": (lambda z: z.abs(), lambda T: (t(ZV, T),)),
    "real_imag": (lambda z: (z.real * 2, z.imag.exp()), lambda T: (t(ZV, T),)),
    "exp_complex": (lambda z: z.exp(), lambda T: (t(ZV, T),)),
    "mixed_real_complex": (lambda z, w: (z * w).exp(), lambda T: (t(ZV, T), t(WV, T))),
    "real_to_complex": (lambda x: (x * 1j).exp() * (1 + 2j), lambda T: (t(XV, T),)),
    "tuple_out_nontensor_in": (lambda x, k, w: (x * k, (x * w).sum()),
                               lambda T: (t(XV, T), 3.0, t(WV, T))),
}


@pytest.mark.parametrize("fast", [False, True], ids=["slow", "fast"])
@pytest.mark.parametrize("name", list(OPS))
def test_correct_ops_pass(name, fast):
    f, make = OPS[name]
    assert gradcheck(f, make(fc), fast_mode=fast) is True


@pytest.mark.parametrize("fast", [False, True], ids=["slow", "fast"])
@pytest.mark.parametrize("name", ["sin", "mul", "matmul", "softmax", "z_conj_z",
                                  "exp_complex", "mixed_real_complex", "real_to_complex"])
def test_gradgradcheck_smooth_ops_pass(name, fast):
    f, make = OPS[name]
    assert gradgradcheck(f, make(fc), fast_mode=fast) is True


def test_single_tensor_input_and_list_input():
    x = t(XV)
    assert gradcheck(lambda x: x.tanh(), x)
    assert gradcheck(lambda x, w: x * w, [x, t(WV)])


def test_inputs_not_requiring_grad_and_non_float_outputs_are_skipped():
    x, c = t(XV), t(WV, rg=False)
    assert gradcheck(lambda x, c: (x * c, x.argmax(), (x * 2).detach()), (x, c))


def test_scalar_and_empty_inputs():
    assert gradcheck(lambda s, x: s * x, (t(1.5), t(XV)))
    assert gradcheck(lambda e: e * 2, (t(np.zeros(0)),), fast_mode=True)


# ------------------------------------------------------------------- wrong backwards
def _floats(s):
    return np.array([float(v) for v in re.findall(r"-?\d+\.\d*(?:e[-+]?\d+)?", s)])


def _two_in_two_out(x, w):
    """Output 1 w.r.t. input 1 is wrong (analytical 2 * diag(x), numerical diag(x))."""
    return x.sin(), x * _hooked(w)


@pytest.mark.parametrize("fast", [False, True], ids=["slow", "fast"])
def test_wrong_backward_message_names_output_input_and_both_jacobians(fast):
    with pytest.raises(GradcheckError) as ei:
        gradcheck(_two_in_two_out, (t(XV), t(WV)), fast_mode=fast)
    msg = str(ei.value)
    assert msg.startswith("Jacobian mismatch for output 1 with respect to input 1,\nnumerical:")
    assert isinstance(ei.value, RuntimeError)
    # the slow-mode Jacobians (printed in slow mode, and after the fast-mode scalars)
    if fast:
        num = msg.split("Numerical:\n")[1].split("\nAnalytical:")[0]
        ana = msg.split("Analytical:\n")[1].split("\n\nThe max")[0]
        assert "in fast mode" in msg and "The max per-element difference (slow mode) is: " in msg
        scalars = msg.split("\n")[1:3]
        assert scalars[0].startswith("numerical:") and scalars[1].startswith("analytical:")
        assert np.isclose(2 * float(scalars[0][10:]), float(scalars[1][11:]))
    else:
        num = msg.split("numerical:")[1].split("\nanalytical:")[0]
        ana = msg.split("analytical:")[1]
    np.testing.assert_allclose(_floats(num), np.diag(XV).ravel(), atol=1e-4)
    np.testing.assert_allclose(_floats(ana), 2 * np.diag(XV).ravel(), atol=1e-4)
    assert gradcheck(_two_in_two_out, (t(XV), t(WV)), fast_mode=fast,
                     raise_exception=False) is False


@pytest.mark.parametrize("fast", [False, True], ids=["slow", "fast"])
def test_wrong_backward_complex(fast):
    # exp of complex, gradient doubled: caught on the imaginary part first (PyTorch's order)
    with pytest.raises(GradcheckError, match=r"^While considering the imaginary part of "
                       r"complex outputs only, Jacobian mismatch for output 0 with respect "
                       r"to input 0,\nnumerical:"):
        gradcheck(lambda z: _hooked(z.exp()), (t(ZV),), fast_mode=fast)
    # |z|^2 with the conjugated gradient: only the imaginary part of 2*CW is wrong, which
    # fast mode sees through its ``ui`` direction
    f = lambda z: (_hooked_conj(z) * _hooked_conj(z).conj()).real  # noqa: E731
    with pytest.raises(GradcheckError, match="(?s)^Jacobian mismatch for output 0 with respect "
                       "to input 0"):
        gradcheck(f, (t(ZV),), fast_mode=fast)
    assert gradcheck(f, (t(ZV),), fast_mode=fast, raise_exception=False) is False


def _hooked_conj(z):
    y = z * 1
    y.register_hook(lambda g: g.conj())
    return y


class _Sin(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * x.cos()


class _BadSin(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * g * x.cos()


class _DetachedSin(Function):
    """Correct first derivative, but its backward is not differentiable (detached)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * x.detach().cos()


class _CExp(Function):
    @staticmethod
    def forward(ctx, z):
        y = z.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        y, = ctx.saved_tensors
        return g * y.conj()


class _CExpNoConj(Function):
    """The holomorphic derivative instead of PyTorch's conjugate convention: wrong."""

    @staticmethod
    def forward(ctx, z):
        y = z.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        y, = ctx.saved_tensors
        return g * y


@pytest.mark.parametrize("fast", [False, True], ids=["slow", "fast"])
def test_functions(fast):
    x, z = t(XV), t(ZV)
    assert gradcheck(_Sin.apply, (x,), fast_mode=fast)
    assert gradgradcheck(_Sin.apply, (x,), fast_mode=fast)
    assert gradcheck(_CExp.apply, (z,), fast_mode=fast)
    assert gradgradcheck(_CExp.apply, (z,), fast_mode=fast)
    with pytest.raises(GradcheckError, match="(?s)^Jacobian mismatch for output 0 with respect "
                       "to input 0,\nnumerical:.*\nanalytical:"):
        gradcheck(_BadSin.apply, (x,), fast_mode=fast)
    assert gradcheck(_BadSin.apply, (x,), fast_mode=fast, raise_exception=False) is False
    assert not gradcheck(_CExpNoConj.apply, (z,), fast_mode=fast, raise_exception=False)
    # gradgradcheck sees a backward that is not differentiable
    assert gradcheck(_DetachedSin.apply, (x,), fast_mode=fast)
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to "
                       "input 0"):
        gradgradcheck(_DetachedSin.apply, (x,), fast_mode=fast)
    assert gradgradcheck(_DetachedSin.apply, (x,), fast_mode=fast,
                         raise_exception=False) is False


# ------------------------------------------------- numerical Jacobians vs finite differences
def _fd_columns(f, args, k, eps, complex_input):
    """Central differences of the NumPy function ``f`` w.r.t. argument ``k``: one column
    per element, ``df/da + i df/db`` for a complex argument."""
    a = args[k]
    cols = []
    for idx in np.ndindex(*a.shape):
        def at(d):
            b = [np.array(v, copy=True) for v in args]
            b[k][idx] += d
            return np.asarray(f(*b)).ravel()
        col = (at(eps) - at(-eps)) / (2 * eps)
        if complex_input:
            col = col + 1j * (at(1j * eps) - at(-1j * eps)) / (2 * eps)
        cols.append(col)
    return np.array(cols)          # (input.numel(), output.numel())


def test_numerical_jacobian_real_matches_finite_differences():
    f = lambda x, w: (x.sin() * w, (x * w).sum())  # noqa: E731
    outs = [lambda x, w: np.sin(x) * w, lambda x, w: (x * w).sum()]
    ins = (t(XV), t(WV))
    fn = gc_mod._Fn(f, ins, f(*ins), None)
    for i in range(2):
        jacs = fn.numerical(i, 1e-6)
        for j, g in enumerate(outs):
            expect = _fd_columns(g, [XV, WV], i, 1e-6, False)
            assert jacs[j].shape == expect.shape == (3, 3 if j == 0 else 1)
            np.testing.assert_allclose(jacs[j], expect, rtol=1e-7, atol=1e-9)
    # and the analytical side agrees with the exact derivative
    np.testing.assert_allclose(fn.analytical(fn.outputs[0], 0.0, True)[0],
                               np.diag(np.cos(XV) * WV), atol=1e-12)


def test_numerical_jacobian_complex_matches_finite_differences():
    # real-valued g(z) = |z|^2 + re(z) im(z): 2*CW = 2z + (im z + i re z)
    f = lambda z: (z * z.conj()).real + z.real * z.imag  # noqa: E731
    g = lambda z: (z * z.conj()).real + z.real * z.imag  # noqa: E731  (NumPy)
    z = t(ZV)
    fn = gc_mod._Fn(f, (z,), f(z), None)
    J = fn.numerical(0, 1e-6)[0]
    assert J.dtype == np.complex128 and J.shape == (3, 3)
    np.testing.assert_allclose(J, _fd_columns(g, [ZV], 0, 1e-6, True), atol=1e-9)
    np.testing.assert_allclose(J, np.diag(2 * ZV + ZV.imag + 1j * ZV.real), atol=1e-6)
    # complex output exp(z), checked as its real and imaginary parts:
    # 2*CW of re(e^z) is conj(e^z), of im(e^z) it is i*conj(e^z)
    h = lambda z: z.exp()  # noqa: E731
    for part, expect, np_part in (("real", np.conj(np.exp(ZV)), np.real),
                                  ("imag", 1j * np.conj(np.exp(ZV)), np.imag)):
        z = t(ZV)
        fn = gc_mod._Fn(h, (z,), h(z), part)
        J = fn.numerical(0, 1e-6)[0]
        np.testing.assert_allclose(J, np.diag(expect), atol=1e-6)
        np.testing.assert_allclose(
            J, _fd_columns(lambda z: np_part(np.exp(z)), [ZV], 0, 1e-6, True), atol=1e-9)
        np.testing.assert_allclose(fn.analytical(fn.outputs[0], 0.0, True)[0],
                                   np.diag(expect), atol=1e-12)


def test_perturbation_leaves_inputs_untouched():
    x = t(XV)
    before = x.detach().numpy().copy()
    data = x._data
    gradcheck(lambda x: x.sin(), (x,))
    assert x._data is data
    np.testing.assert_array_equal(x.detach().numpy(), before)


# ------------------------------------------------------------------------ other checks
def test_non_double_warning():
    x = fc.tensor(XV, dtype=fc.float32, requires_grad=True)
    with pytest.warns(UserWarning, match=r"^Input #0 requires gradient and is not a double "
                      r"precision floating point or complex\. This check will likely fail if "
                      r"all the inputs are not of double precision floating point or complex"):
        assert gradcheck(lambda x: x * 2, (x,), eps=1e-3, atol=1e-3, rtol=1e-2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gradcheck(lambda x: x * 2, (t(XV),))


def test_argument_errors():
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        gradcheck(lambda x: x * 2, (t(XV, rg=False),))
    with pytest.raises(RuntimeError, match="The 0th input has a dimension with stride 0"):
        gradcheck(lambda x: x * 2, (t([1.0]).expand(3),))
    with pytest.raises(AssertionError, match="check_forward_ad or check_backward_ad"):
        gradcheck(lambda x: x * 2, (t(XV),), check_backward_ad=False)
    with pytest.raises(NotImplementedError, match="check_batched_forward_grad=False"):
        gradcheck(lambda x: x * 2, (t(XV),), check_forward_ad=True,
                  check_batched_forward_grad=True)
    with pytest.raises(AssertionError, match="same shape when inputs are perturbed"):
        gradcheck(lambda x: x if x.item() > 1 else x.expand(2), (t(1.0),))


def test_no_differentiable_outputs():
    x = t(XV)
    assert gradcheck(lambda x: fc.zeros(2, dtype=fc.float64), (x,))
    for fast in (False, True):
        with pytest.raises(GradcheckError, match="Numerical gradient for function expected "
                           "to be zero"):
            gradcheck(lambda x: x.detach() * 3, (x,), fast_mode=fast)


class _Noisy(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * (2 + fc.randn(g.shape, dtype=g.dtype) * 1e-8)


@pytest.mark.parametrize("fast", [False, True], ids=["slow", "fast"])
def test_nondeterministic_backward(fast):
    with pytest.raises(GradcheckError, match="^Backward is not reentrant"):
        gradcheck(_Noisy.apply, (t(XV),), fast_mode=fast)
    assert gradcheck(_Noisy.apply, (t(XV),), fast_mode=fast, nondet_tol=1e-6)


class _NotMulByGrad(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2 if bool((g != 0).any()) else fc.ones_like(g)


def test_backward_not_multiplied_by_grad_output():
    with pytest.raises(GradcheckError, match="^backward not multiplied by grad_output$"):
        gradcheck(_NotMulByGrad.apply, (t(XV),))


class _TwoOut(Function):
    """Two outputs, unmaterialized gradients; wrong when output 1's gradient is undefined
    and output 0's is zero."""

    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        if g2 is None and g1 is not None and not bool((g1 != 0).any()):
            return fc.ones_like(g1)
        r = fc.zeros(3, dtype=fc.float64)
        if g1 is not None:
            r = r + g1 * 2
        if g2 is not None:
            r = r + g2 * 3
        return r


def test_undefined_output_gradients():
    with pytest.warns(UserWarning, match="check_undefined_grad=False"):
        with pytest.raises(GradcheckError, match="^Expected all input grads to be undefined or "
                           "zero when all output grads are undefined or zero"):
            gradcheck(_TwoOut.apply, (t(XV),))
    assert gradcheck(_TwoOut.apply, (t(XV),), check_undefined_grad=False)


def test_batched_grad_check(monkeypatch):
    x, a, z = t(XV), t(AV), t(ZV)
    assert gradcheck(lambda x, a: (x @ a).tanh(), (x, a), check_batched_grad=True)
    assert gradcheck(lambda z: (z * z).exp(), (z,), check_batched_grad=True)
    assert gradgradcheck(lambda x: x.sin() * x, (x,), check_batched_grad=True)
    real_grad = autograd.grad

    def doubled(*args, **kw):
        res = real_grad(*args, **kw)
        if kw.get("is_grads_batched"):
            res = tuple(None if r is None else r * 2 for r in res)
        return res

    monkeypatch.setattr(autograd, "grad", doubled)
    with pytest.raises(GradcheckError, match=r"^For output 0 and input 0:\n\ngradcheck or "
                       r"gradgradcheck failed while testing batched gradient computation"):
        gradcheck(lambda x: x.sin(), (x,), check_batched_grad=True)

    def broken(*args, **kw):
        if kw.get("is_grads_batched"):
            raise RuntimeError("no batching rule")
        return real_grad(*args, **kw)

    monkeypatch.setattr(autograd, "grad", broken)
    with pytest.raises(GradcheckError, match="^While computing batched gradients, got: no "
                       "batching rule"):
        gradcheck(lambda x: x.sin(), (x,), check_batched_grad=True)
    assert gradcheck(lambda x: x.sin(), (x,), check_batched_grad=True,
                     raise_exception=False) is False


def test_gradgradcheck_grad_outputs():
    x = t(XV)
    assert gradgradcheck(lambda x: x.exp() * x, (x,), (t(WV),))
    assert gradgradcheck(lambda x, a: (x @ a).sin(), (x, t(AV)), gen_non_contig_grad_outputs=True)
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0"):
        gradgradcheck(_DetachedSin.apply, (x,), (t(WV),))


def test_module_layout_and_signatures():
    assert autograd.gradcheck is gradcheck is gc_fn and callable(autograd.gradcheck)
    assert autograd.gradcheck.GradcheckError is GradcheckError is gc_mod.GradcheckError
    assert issubclass(GradcheckError, RuntimeError)
    from ftrans.compat.autograd.gradcheck import GradcheckError as E
    assert E is GradcheckError
    assert fc.autograd.gradgradcheck is gradgradcheck
    for name in ("gradcheck", "gradgradcheck", "GradcheckError"):
        assert name in autograd.__all__


@needs_torch
@pytest.mark.parametrize("fn", ["gradcheck", "gradgradcheck"])
def test_signature_matches_torch(fn):
    ours = inspect.signature(getattr(autograd, fn)).parameters
    theirs = inspect.signature(getattr(torch.autograd, fn)).parameters
    assert [(p.name, p.kind, p.default) for p in ours.values()] == \
        [(p.name, p.kind, p.default) for p in theirs.values()]


# -------------------------------------------------------------- differential vs PyTorch
def _outcome(T, fn, args, **kw):
    """gradcheck's outcome: True/False, or the exception type and first line."""
    try:
        return ("ok", T.autograd.gradcheck(fn, args, **kw))
    except Exception as e:  # noqa: BLE001
        return ("err", type(e).__name__, str(e).split("\n")[0])


def _diff_hook(T, fast):
    return _outcome(T, lambda x, w: (x.sin(), x * _hooked(w)), (t(XV, T), t(WV, T)),
                    fast_mode=fast)


def _diff_cases():
    cases = {}
    for fast in (False, True):
        sfx = "_fast" if fast else "_slow"
        for name, (f, make) in OPS.items():
            cases[name + sfx] = (lambda T, f=f, make=make, fast=fast:
                                 _outcome(T, f, make(T), fast_mode=fast))
        cases["hook" + sfx] = lambda T, fast=fast: _diff_hook(T, fast)
        cases["hook_complex" + sfx] = (lambda T, fast=fast: _outcome(
            T, lambda z: _hooked(z.exp()), (t(ZV, T),), fast_mode=fast))
        cases["hook_conj" + sfx] = (lambda T, fast=fast: _outcome(
            T, lambda z: (_hooked_conj(z) * _hooked_conj(z).conj()).real, (t(ZV, T),),
            fast_mode=fast))
        cases["no_raise" + sfx] = (lambda T, fast=fast: _outcome(
            T, lambda x: _hooked(x.sin()), (t(XV, T),), fast_mode=fast,
            raise_exception=False))
        cases["zero_out" + sfx] = (lambda T, fast=fast: _outcome(
            T, lambda x: x.detach() * 3, (t(XV, T),), fast_mode=fast))
        cases["gradgrad_detached" + sfx] = (lambda T, fast=fast: (
            "gg", _gg(T, fast)))
    return cases


def _gg(T, fast):
    class DetachedSin(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * x.detach().cos()

    ok = T.autograd.gradgradcheck(lambda x: x.sin() * x, (t(XV, T),), fast_mode=fast)
    bad = T.autograd.gradgradcheck(DetachedSin.apply, (t(XV, T),), fast_mode=fast,
                                   raise_exception=False)
    return ok, bad


DIFF = _diff_cases()


@needs_torch
@pytest.mark.parametrize("name", list(DIFF))
def test_same_outcome_as_torch(name):
    def snippet(T):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return DIFF[name](T)
    assert_same(snippet)


@needs_torch
def test_same_outcome_as_torch_functions():
    def snippet(T):
        class Bad(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 3

        class Two(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                if g2 is None and g1 is not None and not bool((g1 != 0).any()):
                    return T.ones_like(g1)
                r = T.zeros(3, dtype=T.float64)
                if g1 is not None:
                    r = r + g1 * 2
                if g2 is not None:
                    r = r + g2 * 3
                return r

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return (_outcome(T, Bad.apply, (t(XV, T),)),
                    _outcome(T, Bad.apply, (t(XV, T),), fast_mode=True),
                    _outcome(T, Two.apply, (t(XV, T),)),
                    _outcome(T, Two.apply, (t(XV, T),), check_undefined_grad=False))
    assert_same(snippet)


@needs_torch
def test_wrong_backward_message_prefix_as_torch():
    for fast in (False, True):
        res = assert_same(lambda T, fast=fast: T.autograd.gradcheck(
            lambda x, w: (x.sin(), x * _hooked(w)), (t(XV, T), t(WV, T)), fast_mode=fast),
            message="Jacobian mismatch for output 1 with respect to input 1,\nnumerical:")
        assert res[1] == "GradcheckError"


@needs_torch
def test_numerical_jacobian_as_torch():
    from torch.autograd.gradcheck import _get_numerical_jacobian
    f = lambda x, w: (x.sin() * w, (x * w).sum())  # noqa: E731
    ins = (t(XV), t(WV))
    ours = gc_mod._Fn(f, ins, f(*ins), None)
    tin = (t(XV, torch), t(WV, torch))
    theirs = _get_numerical_jacobian(f, tin, f(*tin), eps=1e-6)
    for i in range(2):
        for j, J in enumerate(ours.numerical(i, 1e-6)):
            np.testing.assert_allclose(J, theirs[i][j].numpy(), rtol=1e-9, atol=1e-12)


# ----------------------------------------------------------- forward mode (check_forward_ad)
fwAD = importlib.import_module("ftrans.compat.autograd.forward_ad")


def _fw_functions(T):
    """Custom Functions with a correct backward and a ``jvp`` that is right (``Sin``,
    ``CExp``) or wrong (``BadSin``: twice the derivative; ``CExpConj``: conjugates the
    tangent, right for real tangents only; ``CExpRe2``: doubles the real part of the
    tangent, right for imaginary tangents only).  ``calls`` counts ``jvp`` calls."""
    calls = []

    def make(name, fwd, bwd, jvp):
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            return fwd(x)

        def backward(ctx, g):
            x, = ctx.saved_tensors
            return bwd(x, g)

        def jvp_(ctx, tn):
            calls.append(name)
            x, = ctx.saved_tensors
            return jvp(x, tn)

        return type(name, (T.autograd.Function,), {
            "forward": staticmethod(forward), "backward": staticmethod(backward),
            "jvp": staticmethod(jvp_)})

    fns = {
        "Sin": make("Sin", lambda x: x.sin(), lambda x, g: g * x.cos(),
                    lambda x, tn: tn * x.cos()),
        "BadSin": make("BadSin", lambda x: x.sin(), lambda x, g: g * x.cos(),
                       lambda x, tn: tn * x.cos() * 2),
        "CExp": make("CExp", lambda z: z.exp(), lambda z, g: g * z.exp().conj(),
                     lambda z, tn: tn * z.exp()),
        "CExpConj": make("CExpConj", lambda z: z.exp(), lambda z, g: g * z.exp().conj(),
                         lambda z, tn: tn.conj() * z.exp()),
        "CExpRe2": make("CExpRe2", lambda z: z.exp(), lambda z, g: g * z.exp().conj(),
                        lambda z, tn: (tn.real * 2 + tn.imag * 1j) * z.exp()),
    }
    return fns, calls


@pytest.mark.parametrize("fast", [False, True], ids=["slow", "fast"])
@pytest.mark.parametrize("name", list(OPS))
def test_forward_ad_correct_ops_pass(name, fast):
    f, make = OPS[name]
    assert gradcheck(f, make(fc), check_forward_ad=True, check_backward_ad=False,
                     fast_mode=fast) is True
    assert gradcheck(f, make(fc), check_forward_ad=True, fast_mode=fast) is True


@pytest.mark.parametrize("fast", [False, True], ids=["slow", "fast"])
def test_forward_ad_functions_call_jvp(fast):
    F, calls = _fw_functions(fc)
    x, z = t(XV), t(ZV)
    assert gradcheck(F["Sin"].apply, (x,), check_forward_ad=True, fast_mode=fast)
    assert "Sin" in calls
    assert gradcheck(F["CExp"].apply, (z,), check_forward_ad=True, fast_mode=fast)
    assert "CExp" in calls
    assert gradcheck(lambda x, z: F["CExp"].apply(z * x), (x, z), check_forward_ad=True,
                     check_backward_ad=False, fast_mode=fast)
    # the backward-mode check does not call jvp
    del calls[:]
    assert gradcheck(F["BadSin"].apply, (x,), fast_mode=fast)
    assert calls == []


@pytest.mark.parametrize("fast", [False, True], ids=["slow", "fast"])
def test_forward_ad_wrong_jvp_fails(fast):
    F, _ = _fw_functions(fc)
    x, w, z = t(XV), t(WV), t(ZV)
    for bwd in (False, True):
        with pytest.raises(GradcheckError, match=r"(?s)^Jacobian computed with forward mode "
                           r"mismatch for output 0 with respect to input 0,\nnumerical:.*"
                           r"\nanalytical:"):
            gradcheck(F["BadSin"].apply, (x,), check_forward_ad=True, check_backward_ad=bwd,
                      fast_mode=fast)
    assert gradcheck(F["BadSin"].apply, (x,), check_forward_ad=True, fast_mode=fast,
                     raise_exception=False) is False
    if fast:   # the slow-mode Jacobians are recomputed for the message
        with pytest.raises(GradcheckError, match=r"(?s)computed \nin fast mode.*"
                           r"The max per-element difference \(slow mode\) is: "):
            gradcheck(F["BadSin"].apply, (x,), check_forward_ad=True, fast_mode=True)
    # second output, second input
    with pytest.raises(GradcheckError, match=r"^Jacobian computed with forward mode mismatch "
                       r"for output 1 with respect to input 1,"):
        gradcheck(lambda x, w: (x.sin(), F["BadSin"].apply(w) * x), (x, w),
                  check_forward_ad=True, check_backward_ad=False, fast_mode=fast)
    # complex: a conjugated tangent is wrong for the imaginary part only, a doubled real
    # part for the real part only
    with pytest.raises(GradcheckError, match=r"^While considering the imaginary part of "
                       r"complex inputs only, Jacobian computed with forward mode mismatch "
                       r"for output 0 with respect to input 0,"):
        gradcheck(F["CExpConj"].apply, (z,), check_forward_ad=True, check_backward_ad=False,
                  fast_mode=fast)
    with pytest.raises(GradcheckError, match=r"^While considering the real part of "
                       r"complex inputs only, Jacobian computed with forward mode mismatch "
                       r"for output 0 with respect to input 0,"):
        gradcheck(F["CExpRe2"].apply, (z,), check_forward_ad=True, check_backward_ad=False,
                  fast_mode=fast)
    # a real input feeding a wrong complex Function: real tangents only, no prefix
    assert gradcheck(lambda x: F["CExpConj"].apply(x * (1 + 0j)), (x,),
                     check_forward_ad=True, fast_mode=fast)
    with pytest.raises(GradcheckError, match=r"^Jacobian computed with forward mode mismatch "
                       r"for output 0 with respect to input 0,"):
        gradcheck(lambda x: F["CExpConj"].apply(x * (1 + 1j)), (x,), check_forward_ad=True,
                  check_backward_ad=False, fast_mode=fast)


def test_forward_ad_jacobians_match_finite_differences_and_exact_values():
    F, _ = _fw_functions(fc)
    # real: x.sin() * w, both inputs
    f = lambda x, w: (x.sin() * w, (x * w).sum())  # noqa: E731
    outs = [lambda x, w: np.sin(x) * w, lambda x, w: (x * w).sum()]
    ins = (t(XV), t(WV))
    fn = gc_mod._Fn(f, ins, f(*ins), None)
    fw = fn.forward("real", True)
    for i in range(2):
        num = fn.numerical(i, 1e-6, "real")
        for j, g in enumerate(outs):
            expect = _fd_columns(g, [XV, WV], i, 1e-6, False)
            np.testing.assert_allclose(num[j], expect, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(fw[0][0], np.diag(np.cos(XV) * WV), atol=1e-12)
    np.testing.assert_allclose(fw[1][0], np.diag(np.sin(XV)), atol=1e-12)
    np.testing.assert_allclose(fw[0][1][:, 0], WV, atol=1e-12)
    # a wrong jvp shows in the forward Jacobian (twice cos), not in the numerical one
    x = t(XV)
    fn = gc_mod._Fn(F["BadSin"].apply, (x,), F["BadSin"].apply(x), None)
    np.testing.assert_allclose(fn.forward("real", False)[0][0], np.diag(2 * np.cos(XV)))
    np.testing.assert_allclose(fn.numerical(0, 1e-6, "real")[0], np.diag(np.cos(XV)),
                               atol=1e-8)
    # complex input, complex output exp(z): d/da = e^z, d/db = i e^z (tangent 1 and 1j)
    z = t(ZV)
    for fun in (lambda z: z.exp(), F["CExp"].apply):
        fn = gc_mod._Fn(fun, (z,), fun(z), None)
        for part, expect, d in (("real", np.exp(ZV), 1.0), ("imag", 1j * np.exp(ZV), 1j)):
            J = fn.forward(part, True)[0][0]
            assert J.dtype == np.complex128 and J.shape == (3, 3)
            np.testing.assert_allclose(J, np.diag(expect), atol=1e-12)
            num = fn.numerical(0, 1e-6, part)[0]
            cols = [(np.exp(ZV + d * 1e-6 * e) - np.exp(ZV - d * 1e-6 * e)) / 2e-6
                    for e in np.eye(3)]
            np.testing.assert_allclose(num, np.array(cols), atol=1e-9)
            np.testing.assert_allclose(num, np.diag(expect), atol=1e-6)
    # fast mode: J u vectors
    u = [np.array([0.6, 0.0, 0.8])]
    fn = gc_mod._Fn(lambda z: z.exp(), (z,), z.exp(), None)
    np.testing.assert_allclose(fn.forward("imag", False, u)[0][0], 1j * np.exp(ZV) * u[0],
                               atol=1e-12)


def test_forward_ad_undefined_tangent_check():
    def f(x, w):   # a missing tangent of x adds w's tangent: not the same as a zero one
        y = x * w
        if fwAD._current_level >= 0 and fwAD.unpack_dual(x).tangent is None:
            y = y + w
        return y

    for args in ((t(XV), t(WV)), (t(ZV), t(WV))):
        for fast in (False, True):
            with pytest.raises(GradcheckError, match=r"^\('Mismatch in tangent values for "
                               r"output with index: ', 0, ' when input: ', tensor\("):
                gradcheck(f, args, check_forward_ad=True, check_backward_ad=False,
                          fast_mode=fast)
            assert gradcheck(f, args, check_forward_ad=True, check_backward_ad=False,
                             fast_mode=fast, check_undefined_grad=False)


def test_forward_ad_grad_dtypes_and_unsupported_flags():
    def complex_tangent(x):   # a complex tangent for a real output
        y = x.sin()
        if fwAD._current_level >= 0:
            p, tn = fwAD.unpack_dual(y)
            if tn is not None:
                return fwAD.make_dual(p, tn * (1 + 0j))
        return y

    x = t(XV)
    kw = dict(check_forward_ad=True, check_backward_ad=False, check_undefined_grad=False)
    assert gradcheck(complex_tangent, (x,), **kw)
    with pytest.raises(GradcheckError, match="^Forward AD gradient has dtype mismatch\\.$"):
        gradcheck(complex_tangent, (x,), check_grad_dtypes=True, **kw)
    with pytest.raises(NotImplementedError, match=r"(?s)cannot batch tangents.*pass "
                       r"check_batched_forward_grad=False"):
        gradcheck(lambda x: x.sin(), (x,), check_forward_ad=True,
                  check_batched_forward_grad=True)
    for rev in (True, False):
        with pytest.raises(NotImplementedError, match=r"(?s)forward-over-reverse.*pass "
                           r"check_fwd_over_rev=False"):
            gradgradcheck(lambda x: x.sin(), (x,), check_fwd_over_rev=True,
                          check_rev_over_rev=rev, check_undefined_grad=rev)
    with pytest.raises(GradcheckError, match="^Numerical gradient for function expected "
                       "to be zero"):
        gradcheck(lambda x: x.detach() * 3, (x,), check_forward_ad=True,
                  check_backward_ad=False)
    # the dual level is gone afterwards, also after a failure
    assert fwAD._current_level == -1


def _fw_diff_cases():
    cases = {}
    for fast in (False, True):
        for bwd in (False, True):
            sfx = ("_fast" if fast else "_slow") + ("_bwd" if bwd else "")
            kw = dict(check_forward_ad=True, check_backward_ad=bwd, fast_mode=fast)
            for name, (f, make) in OPS.items():
                cases[name + sfx] = (lambda T, f=f, make=make, kw=kw:
                                     _outcome(T, f, make(T), **kw))
            for fname, inp in (("Sin", XV), ("BadSin", XV), ("CExp", ZV), ("CExpConj", ZV),
                               ("CExpRe2", ZV)):
                cases[fname + sfx] = (lambda T, fname=fname, inp=inp, kw=kw: _outcome(
                    T, _fw_functions(T)[0][fname].apply, (t(inp, T),), **kw))
        kw = dict(check_forward_ad=True, check_backward_ad=False, fast_mode=fast)
        sfx = "_fast" if fast else "_slow"
        cases["two_in_out" + sfx] = (lambda T, kw=kw: _outcome(
            T, lambda x, w: (x.sin(), _fw_functions(T)[0]["BadSin"].apply(w) * x),
            (t(XV, T), t(WV, T)), **kw))
        cases["real_in_complex_fn" + sfx] = (lambda T, kw=kw: _outcome(
            T, lambda x: _fw_functions(T)[0]["CExpConj"].apply(x * (1 + 1j)), (t(XV, T),),
            **kw))
        cases["w_then_complex" + sfx] = (lambda T, kw=kw: _outcome(
            T, lambda w, z: (w.sin(), _fw_functions(T)[0]["CExpConj"].apply(z)),
            (t(WV, T), t(ZV, T)), **kw))
        cases["no_raise" + sfx] = (lambda T, kw=kw: _outcome(
            T, _fw_functions(T)[0]["BadSin"].apply, (t(XV, T),), raise_exception=False,
            **kw))
    return cases


FW_DIFF = _fw_diff_cases()


@needs_torch
@pytest.mark.parametrize("name", list(FW_DIFF))
def test_forward_ad_same_outcome_as_torch(name):
    def snippet(T):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return FW_DIFF[name](T)
    assert_same(snippet)


@needs_torch
def test_forward_ad_undefined_and_flags_as_torch():
    def snippet(T):
        fw = T.autograd.forward_ad

        def f(x, w):
            y = x * w
            if fw._current_level >= 0 and fw.unpack_dual(x).tangent is None:
                y = y + w
            return y

        res = []
        for kw in ({}, {"check_undefined_grad": False}):
            r = _outcome(T, f, (t(XV, T), t(WV, T)), check_forward_ad=True,
                         check_backward_ad=False, **kw)
            res.append(r[:2] + (r[2][:60],) if r[0] == "err" else r)
        res.append(_outcome(T, lambda x: x.detach() * 3, (t(XV, T),), check_forward_ad=True,
                            check_backward_ad=False))
        res.append(_outcome(T, lambda x: x * 2, (t(XV, T),), check_forward_ad=False,
                            check_backward_ad=False))
        return res
    assert_same(snippet)


def test_gradgradcheck_of_identity_gradients():
    """The gradient of ``clone`` and of ``a + b`` is the grad_output tensor itself: the
    numerical Jacobian must read it while perturbed (it read the restored value, 0, and
    gradgradcheck failed on correct gradients)."""
    import ftrans.compat as T
    x = T.randn(3, dtype=T.float64, requires_grad=True)
    y = T.randn(3, dtype=T.float64, requires_grad=True)
    assert T.autograd.gradgradcheck(lambda t: t.clone(), (x,))
    assert T.autograd.gradgradcheck(lambda a, b: a + b, (x, y))
    assert T.autograd.gradgradcheck(lambda a, b: a - 2 * b, (x, y))
