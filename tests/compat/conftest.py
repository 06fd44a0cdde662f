"""Each compat test starts in the default state: grad mode on, inference mode off, default
dtype float32, no saved-tensor hooks (a failing test must not leak its mode into others)."""
import pytest

import ftrans.compat as torch
from ftrans.compat.autograd.grad_mode import _tls
from ftrans.compat.autograd.graph import _tls_hooks


@pytest.fixture(autouse=True)
def _default_compat_state():
    yield
    _tls.grad = True
    _tls.inference = False
    _tls_hooks.stack = ()
    torch.set_default_dtype(torch.float32)

