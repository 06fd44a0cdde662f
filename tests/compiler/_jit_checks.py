"""Checks the compiler tests share: a program compiles with no graph break at the
primitives under test, and ``jit(f)`` (the compiled path: a failed compile's fallback
warning is an error) equals ``f``; and which dtypes CI runs (``ci_sample``)."""
import os
import warnings

import numpy as np

import ftrans
from ftrans.compiler import graph_breaks


#: Under CI (``CI`` set, ``FTRANS_FULL_SUITE`` not) the dtype-parametrized compile tests
#: of one lowering kind run in one dtype: issue 21 gives the compiler's tests 4 minutes of
#: the CI suite, and numba's compile time is nearly all of it.  Every kind still compiles
#: there, values and gradients; float64 of every primitive row is
#: ``test_compiler.py::test_every_primitive_row[float64]``'s, and the float32 forms of
#: elementwise, reduction and matrix-product code are the float32 table program's.
SAMPLED = bool(os.environ.get("CI")) and not os.environ.get("FTRANS_FULL_SUITE")


def ci_sample(params, *keep):
    """``params`` (a ``parametrize`` list), or under CI only ``params[i]`` for ``i`` in
    ``keep`` (see ``SAMPLED``)."""
    return [params[i] for i in keep] if SAMPLED else list(params)


def no_break(lowered, f, *args):
    """``f`` staged on ``args`` breaks the graph at none of the primitives ``lowered``."""
    breaks = set(graph_breaks(ftrans.make_ir(f)(*args)))
    assert not breaks & lowered, breaks


def compiled(f, *args):
    """``ftrans.jit(f)(*args)``, failing if a segment fell back to its impls."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # a failed compile falls back warning
        return ftrans.jit(f)(*args)


def jit_equal(f, *args, rtol, scaled_atol=False):
    """``jit(f)`` against ``f``: integers and ``rtol == 0`` exactly, floats to ``rtol``
    (absolute tolerance ``rtol * max|f|`` with ``scaled_atol``, else 0)."""
    got = compiled(f, *args)
    want = f(*args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        if rtol == 0 or w.dtype.kind in "iub":
            np.testing.assert_array_equal(g, w)
        else:
            scale = (np.max(np.abs(w)) if w.size else 1.0) if scaled_atol else 0.0
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * scale)
    return got
