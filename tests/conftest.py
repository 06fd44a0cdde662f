"""Shared pytest configuration.

Hypothesis profiles: ``ci`` (selected when the environment variable ``CI`` is set)
runs at least 200 examples per property test; ``dev`` (the default) runs fewer so
the local suite stays quick.  ``HYPOTHESIS_PROFILE`` overrides the choice.

Compiled programs (``ftrans.jit``'s numba code, generated modules and machine code) go
to one cache directory for the whole session, ``FTRANS_CACHE_DIR``: pytest's cache
directory (``.pytest_cache/d/ftrans_compiler``) when it is writable, which persists
across runs in one checkout -- a CI run on a fresh clone compiles everything once, and
the pytest-xdist workers share it -- else a temporary directory.
"""
import os

import pytest

try:
    from hypothesis import HealthCheck, settings
except ImportError:  # hypothesis is a test extra; property tests skip without it
    pass
else:
    _quiet = [HealthCheck.too_slow, HealthCheck.data_too_large]
    settings.register_profile("ci", max_examples=200, deadline=None,
                              suppress_health_check=_quiet, print_blob=True)
    settings.register_profile("dev", max_examples=30, deadline=None,
                              suppress_health_check=_quiet)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE")
                          or ("ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(scope="session", autouse=True)
def ftrans_cache_dir(request, tmp_path_factory):
    old = os.environ.get("FTRANS_CACHE_DIR")
    try:
        d = str(request.config.cache.mkdir("ftrans_compiler"))
    except Exception:  # pragma: no cover - no writable pytest cache (-p no:cacheprovider)
        d = str(tmp_path_factory.mktemp("ftrans_cache"))
    os.environ["FTRANS_CACHE_DIR"] = d
    yield d
    if old is None:
        os.environ.pop("FTRANS_CACHE_DIR", None)
    else:
        os.environ["FTRANS_CACHE_DIR"] = old


@pytest.fixture(scope="module")
def jax_x64():
    """The ``jax`` module with 64-bit types on (float64/int64 defaults, as ftrans's) for
    the tests of one module, restored afterwards; skips when JAX is not installed."""
    jax = pytest.importorskip("jax", reason="JAX not installed: the comparison needs it")
    old = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield jax
    jax.config.update("jax_enable_x64", old)


def pytest_terminal_summary(terminalreporter):
    """The op_db differential suite's counts per namespace (tests/compat/test_opdb.py)."""
    results = {}
    for reports in terminalreporter.stats.values():
        for r in reports:
            for k, v in getattr(r, "user_properties", ()):
                if k == "opdb" and getattr(r, "when", "call") == "call":
                    results[r.nodeid] = (v[0], v[1], "")
    if results:
        import importlib.util
        spec = importlib.util.spec_from_file_location(
            "opdb", os.path.join(os.path.dirname(__file__), "compat", "opdb.py"))
        opdb = importlib.util.module_from_spec(spec)   # the controller of xdist imports no test
        spec.loader.exec_module(opdb)
        terminalreporter.write_sep("=", "compat against torch's op_db (tests/compat/test_opdb.py)")
        terminalreporter.write_line(opdb.format_summary(opdb.summarize(results)))
