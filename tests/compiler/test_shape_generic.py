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


# -- the code generator's memo (compiler/_shape_memo.py) -------------------------------
def _memo_program(x, y, w, cat=True):
    """Every kind the memo keeps: broadcasting, guarded sin, int and float literals (the
    mean's n among them), reductions, a matrix product, transpose, reshapes,
    concatenation (``cat``: its gradient slices with ``gather``, which the memo does not
    keep)."""
    h = fnp.sin(x) * y + 1.5
    m = fnp.max(h, axis=1, keepdims=True)
    s = fnp.mean(h, axis=0) * 0.3
    z = fnp.tanh(h @ w)
    t = fnp.transpose(z) * 2.5
    cat = (fnp.concatenate([fnp.reshape(z, (-1,)), fnp.ravel(h - m)]) if cat else
           fnp.reshape(z, (-1,)) + fnp.sum(h - m))
    e = fnp.einsum("ij,ij->i", h, h)
    return fnp.sum(t * 0.7) + fnp.sum(cat * cat) + fnp.sum(s) + fnp.sum(e / 7)


def _broadcasting(x, y, w):
    """No reshape: an axis of size 1 meets no product of sizes that would tell it apart."""
    return fnp.sum(x * y + fnp.sin(y))


def _generated(g, args, parallel_min):
    from ftrans.compiler._passes import prepare
    from ftrans.compiler._plan import plan, Segment
    from ftrans.compiler import _numba
    ir, _ = stage(g, args)
    segs = [s for s in plan(prepare(ir), _numba.lowerable) if isinstance(s, Segment)]
    return [_numba.generate(s, f"seg{k}", parallel_min) for k, s in enumerate(segs)]


def _args(a, b, c, seed):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(a, b)), rng.normal(size=(b,)), rng.normal(size=(b, c))]


def _same(got, want):
    assert len(got) == len(want)
    for (s1, p1, e1, f1), (s2, p2, e2, f2) in zip(got, want):
        assert (s1, p1, e1) == (s2, p2, e2)
        assert [type(v) for v in f1] == [type(v) for v in f2] and f1 == f2, (f1, f2)


def _memo_grad(x, y, w):
    return ftrans.grad(lambda x, w: _memo_program(x, y, w, cat=False), argnums=(0, 1))(x, w)


@pytest.mark.parametrize("g", [_memo_program, _memo_grad], ids=["f", "grad"])
def test_a_known_segment_in_a_new_shape_is_not_emitted_again(g):
    """The second shape's text, sizes and literal parameters come from the memo and are
    what emitting them afresh gives; the compiled program's values are eager's."""
    from ftrans.compiler._numba import MEMO
    MEMO.clear()
    _generated(g, _args(17, 18, 19, 0), None)
    hits = MEMO.hits
    got = _generated(g, _args(20, 21, 22, 1), None)
    assert MEMO.hits > hits
    MEMO.clear()
    _same(got, _generated(g, _args(20, 21, 22, 1), None))
    args = _args(20, 21, 22, 2)
    ir, _ = stage(g, args)
    with ftrans.disable_jit():
        want = g(*args)
    for a, b in zip(compile_ir(ir)(*args), ftrans.tree_util.tree_leaves(want)):
        # (sums in another order than NumPy's pairwise ones: an absolute tolerance at the
        # scale of the largest element)
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * np.max(np.abs(b)))


hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies
# sizes 1, 2 and 3 meet each other by chance; 24 * 24 crosses the fast-formula threshold
_SIZES = st.sampled_from([1, 2, 3, 24])


@st.composite
def _shape_pairs(draw):
    """Two shapes ``(a, b, c)``: unrelated, or the second the first's sizes renamed
    one-to-one (other values, mostly the same sizes equal: a memo hit whose parameters,
    literals' forms and thresholds must follow the new values)."""
    first = draw(st.tuples(_SIZES, _SIZES, _SIZES))
    if draw(st.booleans()):
        return first, draw(st.tuples(_SIZES, _SIZES, _SIZES))
    names = dict(zip(sorted(set(first)), draw(st.permutations([1, 2, 3, 5, 24, 25]))))
    return first, tuple(names[n] for n in first)


@hypothesis.settings(max_examples=60, deadline=None, derandomize=True)
@hypothesis.given(shapes=_shape_pairs(), parallel_min=st.sampled_from([None, 64]))
# a loop crossing the fast-formula threshold; the mean's n = 2 written as text, then a
# parameter; a size 1 (broadcasting) becoming another
@hypothesis.example(shapes=((24, 24, 3), (2, 2, 5)), parallel_min=None)
@hypothesis.example(shapes=((2, 3, 5), (5, 3, 2)), parallel_min=None)
@hypothesis.example(shapes=((1, 2, 3), (2, 3, 5)), parallel_min=None)
def test_remembered_text_equals_a_fresh_one_for_any_sizes(shapes, parallel_min):
    """Whatever sizes meet by chance (the memo's key keeps which sizes are equal, which
    are 0 or 1, and which thresholds a loop reaches), the text of the second shape is the
    one emitting it afresh gives, with the same parameters."""
    from ftrans.compiler._numba import MEMO
    first, second = shapes
    for g in (_memo_program, _memo_grad, _broadcasting):
        MEMO.clear()
        _generated(g, _args(*first, 0), parallel_min)
        got = _generated(g, _args(*second, 1), parallel_min)
        MEMO.clear()
        _same(got, _generated(g, _args(*second, 1), parallel_min))
