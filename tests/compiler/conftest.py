"""Shared configuration of the compiler tests.

Numba compile time dominates these tests, so

* the generated modules and numba's machine code go to one cache directory for the whole
  session (``FTRANS_CACHE_DIR``): pytest's cache directory (``.pytest_cache``) when it is
  writable, which persists across runs in one checkout (a CI run compiles once per fresh
  clone), else a temporary directory;
* each test module stages *few, large* programs (every primitive row of the table in one
  program per dtype) rather than one program per case.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "primitives"))


@pytest.fixture(scope="session", autouse=True)
def ftrans_cache_dir(request, tmp_path_factory):
    old = os.environ.get("FTRANS_CACHE_DIR")
    try:
        d = str(request.config.cache.mkdir("ftrans_compiler"))
    except Exception:  # pragma: no cover - no writable pytest cache
        d = str(tmp_path_factory.mktemp("ftrans_cache"))
    os.environ["FTRANS_CACHE_DIR"] = d
    yield d
    if old is None:
        os.environ.pop("FTRANS_CACHE_DIR", None)
    else:
        os.environ["FTRANS_CACHE_DIR"] = old
