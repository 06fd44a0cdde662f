"""Shared configuration of the lax tests: which executor runs the staged programs.

The rules of the control-flow primitives (impl, JVP, VJP, batching, staging) are
properties of the programs they build, so most tests run those programs with the
reference executor (each equation's ``impl``, :func:`ftrans.core.ir.eval_ir`): compiling
every branch, body and derived program (JVP'd, batched, forward/backward of reverse mode)
with numba would cost minutes of compile time per run of the suite, and the compiler has
its own tests.  Tests marked ``@pytest.mark.compiled`` (``test_lax_compiled.py``) run
the real ``ftrans.compiler.compile_ir``: the same constructs with compiled sub-programs.
"""
import importlib

import pytest

from ftrans.core.ir import eval_ir
from ftrans.core.trace import set_current_trace, EVAL

# the modules that call compile_ir (``ftrans.transforms.jit`` as an attribute is the
# function, hence import_module)
_USERS = tuple(importlib.import_module(m) for m in (
    "ftrans.lax._cond", "ftrans.lax._loops", "ftrans.lax._scan", "ftrans.transforms.jit"))


def pytest_configure(config):
    config.addinivalue_line("markers", "compiled: run staged programs with the real compiler "
                                       "(ftrans.compiler.compile_ir) instead of the reference "
                                       "executor")


def _reference_compile(ir, backend="cpu"):
    def run(*args):
        with set_current_trace(EVAL):
            return eval_ir(ir, *args)
    return run


@pytest.fixture(autouse=True)
def _executor(request, monkeypatch):
    if request.node.get_closest_marker("compiled") is None:
        for module in _USERS:
            monkeypatch.setattr(module, "compile_ir", _reference_compile)
    yield
