"""Shared configuration of the lax tests: which executor runs the staged programs.

The rules of the control-flow primitives (impl, JVP, VJP, batching, staging) are
properties of the programs they build, so most tests run those programs with the
compiler's reference interpreter (``FTRANS_COMPILER=reference``: each equation's impl):
compiling every branch, body and derived program (JVP'd, batched, forward and backward
of reverse mode) with numba would cost minutes of compile time per run of the suite,
and the compiler has its own tests.  Tests marked ``@pytest.mark.compiled``
(``test_lax_compiled.py``) run with the environment's setting (numba by default): the
same constructs with compiled sub-programs (at once: see
``ftrans.lax._programs.EAGER_COMPILE_AFTER_S``).
"""
import pytest

from ftrans.lax import _programs


def pytest_configure(config):
    config.addinivalue_line("markers", "compiled: run the staged programs with the real "
                                       "compiler (not FTRANS_COMPILER=reference)")


@pytest.fixture(autouse=True)
def _executor(request, monkeypatch):
    if request.node.get_closest_marker("compiled") is None:
        monkeypatch.setenv("FTRANS_COMPILER", "reference")
    else:  # eager control flow compiles its sub-programs at once (not after 1 s of them)
        monkeypatch.setattr(_programs, "EAGER_COMPILE_AFTER_S", 0.0)
    yield
