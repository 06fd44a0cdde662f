"""``jit``'s in-memory cache is an LRU bounded by ``jit_cache_size`` and a function that
keeps retracing warns once (issue 21, item 5)."""
from __future__ import annotations

import gc
import warnings
import weakref

import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans.transforms.jit import RetraceWarning


@pytest.fixture
def bound():
    old = ftrans.config.read("jit_cache_size")
    yield lambda n: ftrans.config.update("jit_cache_size", n)
    ftrans.config.update("jit_cache_size", old)


def test_lru_eviction_order_and_the_evicted_program_is_freed(bound):
    bound(2)
    f = ftrans.jit(lambda x: fnp.sin(x) * 2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RetraceWarning)
        f(np.ones(1))
        first = weakref.ref(f._cached_irs()[0])
        f(np.ones(2))
        f(np.ones(1))          # the (1,) program is now the most recently used
        f(np.ones(3))          # evicts (2,), not (1,)
    assert f._cache_size() == 2 and f._trace_count() == 3
    shapes = [ir.in_vars[0].aval.shape for ir in f._cached_irs()]
    assert shapes == [(1,), (3,)]
    assert first() is not None  # still cached
    f(np.ones(2))              # traced again; (1,) evicted now
    assert f._trace_count() == 4
    gc.collect()
    assert first() is None
    np.testing.assert_allclose(f(np.ones(2)), np.sin(np.ones(2)) * 2.0)


def test_retracing_warns_once_naming_the_change():
    f = ftrans.jit(lambda x: x + 1.0)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for n in range(1, 13):
            f(np.ones(n))
    hits = [x for x in w if issubclass(x.category, RetraceWarning)]
    assert len(hits) == 1
    msg = str(hits[0].message)
    assert "traced 9 times" in msg and "(8,)" in msg and "(9,)" in msg and "static" in msg


def test_config_option_checks():
    with pytest.raises(ValueError, match="at least 1"):
        ftrans.config.update("jit_cache_size", 0)
    with pytest.raises(TypeError, match="expected an int"):
        ftrans.config.update("jit_cache_size", 2.5)
    assert ftrans.config.read("jit_cache_size") == 64
