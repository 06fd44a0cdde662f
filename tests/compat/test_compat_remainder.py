"""remainder/fmod: values, gradients (1 for the dividend, -floor(a/b) or -trunc(a/b) for
the divisor) against PyTorch and against central finite differences."""
import numpy as np
import pytest

import ftrans.compat as fc
from compat_diff import assert_same, needs_torch

A = [5.5, -3.2, 7.0, -1.5, 0.3]
B = [2.0, 1.5, -2.5, -0.7, 0.2]


def _case(name, scalar):
    def snippet(T):
        a = T.tensor(A, dtype=T.float64, requires_grad=True)
        b = T.tensor(B, dtype=T.float64, requires_grad=True)
        f = getattr(T, name)
        y = f(a, 1.5) if scalar else f(a, b)
        w = T.arange(5, dtype=T.float64)
        grads = T.autograd.grad((y * w).sum(), (a,) if scalar else (a, b))
        return y, grads, y.grad_fn.name(), len(y.grad_fn.next_functions)
    return snippet


@needs_torch
@pytest.mark.parametrize("name", ["remainder", "fmod"])
@pytest.mark.parametrize("scalar", [False, True])
def test_against_torch(name, scalar):
    assert_same(_case(name, scalar))


@needs_torch
def test_operator_and_float32():
    def snippet(T):
        a = T.tensor(A, requires_grad=True)
        b = T.tensor(B, requires_grad=True)
        y = a % b
        y.sum().backward()
        return y, a.grad, b.grad, y.grad_fn.name()
    assert_same(snippet)


@pytest.mark.parametrize("name,npf", [("remainder", np.remainder), ("fmod", np.fmod)])
def test_finite_differences(name, npf):
    a0, b0, w = np.array(A), np.array(B), np.arange(5.0)
    a = fc.tensor(a0, requires_grad=True)
    b = fc.tensor(b0, requires_grad=True)
    (getattr(fc, name)(a, b) * fc.tensor(w)).sum().backward()
    eps = 1e-7
    for x, g, which in ((a0, a.grad.numpy(), 0), (b0, b.grad.numpy(), 1)):
        fd = np.zeros(5)
        for i in range(5):
            e = np.zeros(5)
            e[i] = eps
            args_p = (a0 + e, b0) if which == 0 else (a0, b0 + e)
            args_m = (a0 - e, b0) if which == 0 else (a0, b0 - e)
            fd[i] = ((npf(*args_p) - npf(*args_m)) * w).sum() / (2 * eps)
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)
