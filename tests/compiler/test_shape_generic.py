"""Generated code is specialized on rank, dtype and structure, not on sizes (issue 21,
item 5): a new shape of a known rank and dtype reuses the compiled module; loops of equal
text are one function; float literals are parameters (a mean's ``1/n``)."""
from __future__ import annotations

import sys

import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans.core.ir import stage
from ftrans.compiler import compile_ir


def _f(x, w):
    h = x
    for _ in range(3):  # three equal blocks: their loops are one function each
        h = fnp.tanh(h @ w) * 0.5 + fnp.sin(h)
        h = h - fnp.mean(h, axis=0, keepdims=True)
    return fnp.sum(h * h)


def _module(run):
    return sys.modules[run.dispatchers[0].py_func.__module__]


def _compiled_signatures(mod):
    return {name: len(fn.signatures) for name, fn in vars(mod).items()
            if name.startswith("seg") and hasattr(fn, "signatures")}  # (not the support)


def test_new_shape_reuses_the_module_and_its_machine_code():
    rng = np.random.default_rng(0)
    w = rng.normal(size=(16, 16)) * 0.3
    runs, mods = [], []
    for n in (8, 9, 23):
        x = rng.normal(size=(n, 16))
        ir, _ = stage(_f, [x, w])
        run = compile_ir(ir)
        with ftrans.disable_jit():
            ref = _f(x, w)
        np.testing.assert_allclose(run(x, w)[0], ref, rtol=1e-12)
        runs.append(run)
        mods.append(_module(run))
        sig = _compiled_signatures(mods[-1])
    # one module for the three sizes, each function compiled for one signature at most
    # (none where numba loaded the caller's machine code, callees linked in, from disk)
    assert mods[0] is mods[1] is mods[2]
    assert max(sig.values()) <= 1 and sig["seg0"] == 1, sig


def test_equal_loops_share_one_function_and_literals_are_parameters():
    x = np.random.default_rng(1).normal(size=(8, 16))
    w = np.eye(16)
    ir, _ = stage(_f, [x, w])
    src = open(_module(compile_ir(ir)).__file__).read()
    # three blocks staged, but each distinct loop is emitted once
    assert src.count("@njit") < 10, src
    assert "np.tanh" in src or "_tanh" in src
    # the mean's 1/8 is not in the text (it is a parameter); the 0.5 factor is
    assert "0.125" not in src and "0.5" in src


def test_jit_new_shape_same_rank_compiles_nothing_new():
    f = ftrans.jit(_f)
    rng = np.random.default_rng(2)
    w = rng.normal(size=(16, 16)) * 0.3
    f(rng.normal(size=(5, 16)), w)
    mod = _module(compile_ir(f._cached_irs()[0]))
    before = _compiled_signatures(mod)
    x = rng.normal(size=(7, 16))
    with ftrans.disable_jit():
        ref = _f(x, w)
    np.testing.assert_allclose(f(x, w), ref, rtol=1e-12)
    assert f._cache_size() == 2  # retraced for the new shape ...
    irs = f._cached_irs()
    assert irs[0] is not irs[1]
    assert _module(compile_ir(irs[1])) is mod  # ... into the same module
    assert _compiled_signatures(mod) == before  # ... and numba compiled nothing new


@pytest.mark.parametrize("transform", [lambda f: f, ftrans.grad], ids=["f", "grad"])
def test_sizes_equal_by_chance_reuse_the_module(transform):
    """A batch size equal to the hidden size (``x (16, 16)``, ``w (16, 16)``) generates the
    text of any other batch size: sizes are named by their class of structurally equal
    axes (``compiler/_sizes.py``), not by value, and the means' ``1/n`` and ``1/16`` are
    two literal parameters even when equal -- before, this shape compiled the whole
    program again."""
    g = transform(lambda x, w: _f(x, w) + fnp.sum(fnp.mean(w, axis=0) ** 2))
    rng = np.random.default_rng(3)
    w = rng.normal(size=(16, 16)) * 0.3
    mods = []
    for n in (11, 16):
        x = rng.normal(size=(n, 16))
        ir, _ = stage(g, [x, w])
        run = compile_ir(ir)
        with ftrans.disable_jit():
            ref = g(x, w)
        np.testing.assert_allclose(run(x, w)[0], ref, rtol=1e-12, atol=1e-12)
        mods.append(_module(run))
    assert mods[0] is mods[1]
