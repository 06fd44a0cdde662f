"""ftrans.nn's unfold/fold, pixel (un)shuffle, max_unpool, embedding_bag, ctc_loss and
grid_sample: closed forms, brute force and adjointness, and check_grads (order 2, forward
and reverse, float64)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import ftrans.nn as fnn
from ftrans.testing import check_grads


def test_ftrans_max_unpool_check_grads():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 2, 2))
    idx = np.stack([rng.permutation(10)[:4] for _ in range(6)]).reshape(2, 3, 2, 2)
    out = fnn.max_unpool(x, idx, (2, 5))
    assert out.shape == (2, 3, 2, 5)
    flat = np.zeros((6, 10))
    np.put_along_axis(flat, idx.reshape(6, 4), x.reshape(6, 4), 1)
    np.testing.assert_array_equal(out, flat.reshape(2, 3, 2, 5))
    check_grads(lambda v: fnn.max_unpool(v, idx, (2, 5)), (x,), order=2, modes=("fwd", "rev"))
    with pytest.raises(ValueError):
        fnn.max_unpool(x, idx + 10, (2, 5))


def test_ftrans_unfold_fold_shuffle_check_grads():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 5, 6))
    args = ((2, 3), (1, 2), 1, (2, 1))
    cols = fnn.unfold(x, *args)
    c = rng.standard_normal(cols.shape)
    # fold is unfold's adjoint: <unfold(x), c> == <x, fold(c)>
    np.testing.assert_allclose((cols * c).sum(), (x * fnn.fold(c, (5, 6), *args)).sum(),
                               rtol=1e-12)
    assert cols[0, 0, 0] == 0.0                   # a zero-padding entry of the first block
    check_grads(lambda v: fnn.unfold(v, *args) ** 2, (x,), order=2, modes=("fwd", "rev"))
    check_grads(lambda v: fnn.fold(v, (5, 6), *args) ** 2, (c,), order=2,
                modes=("fwd", "rev"))
    y = rng.standard_normal((2, 8, 3, 2))
    np.testing.assert_array_equal(fnn.pixel_unshuffle(fnn.pixel_shuffle(y, 2), 2), y)
    check_grads(lambda v: fnn.pixel_shuffle(v, 2) ** 3, (y,), order=2, modes=("fwd", "rev"))
    with pytest.raises(ValueError):
        fnn.pixel_shuffle(y, 3)


def _ctc_brute(lp, target, blank=0):
    """-log of the summed probability of every path that collapses to ``target``."""
    T, C = lp.shape
    total = 0.0
    for path in itertools.product(range(C), repeat=T):
        col = [k for i, k in enumerate(path) if i == 0 or k != path[i - 1]]
        if [k for k in col if k != blank] == list(target):
            total += np.exp(sum(lp[t, k] for t, k in enumerate(path)))
    return -np.log(total)


def test_ftrans_ctc_loss_brute_force_and_check_grads():
    rng = np.random.default_rng(2)
    z = rng.standard_normal((5, 2, 3))
    lp = z - np.log(np.exp(z).sum(2, keepdims=True))
    targets = np.array([[1, 1], [2, 0]])
    got = fnn.ctc_loss(lp, targets, [5, 4], [2, 1], reduction="none")
    want = [_ctc_brute(lp[:5, 0], [1, 1]), _ctc_brute(lp[:4, 1], [2])]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(fnn.ctc_loss(lp, targets, [5, 4], [2, 1]),
                               (want[0] / 2 + want[1]) / 2, rtol=1e-12)
    assert np.isinf(fnn.ctc_loss(lp[:2], targets, [2, 2], [2, 1], reduction="none")[0])
    check_grads(lambda v: fnn.ctc_loss(v, targets, [5, 4], [2, 1], reduction="sum"), (lp,),
                order=2, modes=("fwd", "rev"))


def test_ftrans_grid_sample_check_grads():
    rng = np.random.default_rng(3)
    x, g = rng.standard_normal((1, 2, 4, 5)), rng.standard_normal((1, 3, 2, 2)) * 0.8
    # identity grid (align_corners=True) reproduces the image
    ys, xs = np.meshgrid(np.linspace(-1, 1, 4), np.linspace(-1, 1, 5), indexing="ij")
    ident = np.stack([xs, ys], -1)[None]
    np.testing.assert_allclose(fnn.grid_sample(x, ident, align_corners=True), x, atol=1e-12)
    for mode, pm in (("bilinear", "zeros"), ("bicubic", "reflection"), ("bilinear", "border")):
        check_grads(lambda a, b: fnn.grid_sample(a, b, mode, pm, False), (x, g), order=2,
                    modes=("fwd", "rev"))


def test_ftrans_embedding_bag_check_grads():
    rng = np.random.default_rng(4)
    w, psw = rng.standard_normal((6, 3)), rng.standard_normal(7)
    idx, offs = np.array([0, 2, 5, 2, 1, 3, 4]), np.array([0, 3, 3])
    got = fnn.embedding_bag(w, idx, offs, "max", padding_idx=5)
    np.testing.assert_array_equal(got, [w[[0, 2]].max(0), np.zeros(3), w[[2, 1, 3, 4]].max(0)])
    mean = fnn.embedding_bag(w, idx, offs, "mean")
    np.testing.assert_allclose(mean[2], w[[2, 1, 3, 4]].mean(0), rtol=1e-14)
    check_grads(lambda a, b: fnn.embedding_bag(a, idx, offs, "sum", per_sample_weights=b) ** 2,
                (w, psw), order=2, modes=("fwd", "rev"))
    check_grads(lambda a: fnn.embedding_bag(a, idx, offs, "max") ** 2, (w,), order=2,
                modes=("fwd", "rev"))
