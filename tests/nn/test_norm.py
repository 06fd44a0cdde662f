"""ftrans.nn batch/layer/group norm, dropout and embedding."""
import numpy as np
import pytest

import ftrans
import ftrans.nn as fnn
import ftrans.numpy as fnp
from ftrans.testing import check_grads

from nn_helpers import (check_fused_matches_composed, check_jit, check_vmap, compare_torch,
                        needs_torch, rng, torch)

R = rng(0)
X = R.standard_normal((4, 3, 5))
W, B = R.standard_normal(3), R.standard_normal(3)
RM, RV = R.standard_normal(3), R.random(3) + 0.5


def bn_train(x, w, b):
    return fnn.batch_norm(x, None, None, w, b, training=True)[0]


@needs_torch
@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 2, 3)])
def test_batch_norm_train_against_torch(shape):
    x = R.standard_normal(shape)
    compare_torch(bn_train, lambda x, w, b: torch.nn.functional.batch_norm(
        x, None, None, w, b, training=True), (x, W, B), (0, 1, 2), rtol=1e-9, atol=1e-9)


@needs_torch
def test_batch_norm_running_stats_and_eval():
    rm, rv = torch.tensor(RM), torch.tensor(RV)
    want = torch.nn.functional.batch_norm(torch.tensor(X), rm, rv, torch.tensor(W),
                                          torch.tensor(B), training=True, momentum=0.3)
    out, m, v = fnn.batch_norm(X, RM, RV, W, B, training=True, momentum=0.3)
    np.testing.assert_allclose(out, want.numpy(), rtol=1e-10)
    np.testing.assert_allclose(m, rm.numpy(), rtol=1e-12)      # torch updated in place
    np.testing.assert_allclose(v, rv.numpy(), rtol=1e-12)
    assert RM[0] != m[0]                                      # ours were not mutated
    compare_torch(lambda x, w, b: fnn.batch_norm(x, RM, RV, w, b)[0],
                  lambda x, w, b: torch.nn.functional.batch_norm(
                      x, torch.tensor(RM), torch.tensor(RV), w, b, training=False),
                  (X, W, B), (0, 1, 2), rtol=1e-10)
    out, m2, v2 = fnn.batch_norm(X, RM, RV)
    assert m2 is RM and v2 is RV


def test_batch_norm_grads_jit_vmap_fused():
    x = X[:, :, :2]
    check_grads(bn_train, (x, W, B), order=2, modes=("fwd", "rev"))
    # the batch statistics are outputs too: their derivatives go through the custom rule
    check_grads(lambda x: fnn.batch_norm(x, RM, RV, training=True)[1:], (x,), order=2,
                modes=("fwd", "rev"))
    check_grads(lambda x, w: fnn.batch_norm(x, RM, RV, w, None)[0], (x, W), order=2,
                modes=("fwd", "rev"))
    check_jit(bn_train, (X, W, B))
    check_vmap(bn_train, np.stack([X, 2 * X + 1]), (W, B))
    check_fused_matches_composed(bn_train, (X, W, B))
    check_fused_matches_composed(lambda x: fnn.batch_norm(x, RM, RV, training=True)[2], (X,))
    check_fused_matches_composed(bn_train, (X.astype(np.float32), W.astype(np.float32),
                                            B.astype(np.float32)))


def test_batch_norm_fused_attributes():
    core = fnn.FUSED["batch_norm"]
    (out, mean, var), res = core.fwd(1e-5, X, W, B)
    np.testing.assert_allclose(mean, X.mean(axis=(0, 2)))
    g = R.standard_normal(X.shape)
    dx, dw, db = core.bwd(1e-5, res, (g, np.zeros(3), np.zeros(3)))
    want = ftrans.vjp(bn_train, X, W, B)[1](g)
    for a, b in zip((dx, dw, db), want):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def test_batch_norm_errors():
    with pytest.raises(ValueError, match="more than 1 value"):
        fnn.batch_norm(np.ones((1, 3)), None, None, training=True)
    with pytest.raises(ValueError, match="running_mean"):
        fnn.batch_norm(X, None, None)
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        fnn.batch_norm(X, np.zeros(4), RV)


@needs_torch
@pytest.mark.parametrize("ns", [(5,), (3, 5)])
def test_layer_norm(ns):
    w, b = R.standard_normal(ns), R.standard_normal(ns)
    f = lambda x, w, b: fnn.layer_norm(x, ns, w, b, eps=1e-3)  # noqa: E731
    compare_torch(f, lambda x, w, b: torch.nn.functional.layer_norm(x, ns, w, b, eps=1e-3),
                  (X, w, b), (0, 1, 2), rtol=1e-10)
    check_grads(f, (X[:2], w, b), order=2, modes=("fwd", "rev"))
    check_jit(f, (X, w, b))
    check_vmap(f, np.stack([X, -X]), (w, b))
    with pytest.raises(ValueError, match="trailing"):
        fnn.layer_norm(X, (4,))


@needs_torch
def test_group_norm():
    x = R.standard_normal((2, 6, 3))
    w, b = R.standard_normal(6), R.standard_normal(6)
    f = lambda x, w, b: fnn.group_norm(x, 3, w, b)  # noqa: E731
    compare_torch(f, lambda x, w, b: torch.nn.functional.group_norm(x, 3, w, b), (x, w, b),
                  (0, 1, 2), rtol=1e-9)
    check_grads(f, (x[:1], w, b), order=2, modes=("fwd", "rev"))
    check_jit(f, (x, w, b))
    check_vmap(f, np.stack([x, x * 3]), (w, b))
    with pytest.raises(ValueError, match="divide"):
        fnn.group_norm(x, 4)


def test_dropout():
    x = R.standard_normal((50, 40))
    out = fnn.dropout(np.random.default_rng(1), x, 0.25)
    kept = out != 0
    assert 0.7 < kept.mean() < 0.8
    np.testing.assert_allclose(out[kept], x[kept] / 0.75)
    mask = R.random(x.shape) > 0.5
    np.testing.assert_allclose(fnn.dropout(mask, x, 0.5), np.where(mask, 2 * x, 0))
    g = ftrans.grad(lambda x: fnp.sum(fnn.dropout(mask, x, 0.5)))(x)
    np.testing.assert_allclose(g, np.where(mask, 2.0, 0.0))
    check_grads(lambda x: fnn.dropout(mask[:3, :3], x, 0.5), (x[:3, :3],), order=2,
                modes=("fwd", "rev"))
    check_jit(lambda x, m: fnn.dropout(m, x, 0.5), (x, mask))
    assert fnn.dropout(None, x, 0.5, training=False) is x
    np.testing.assert_array_equal(fnn.dropout(mask, x, 1.0), 0 * x)
    with pytest.raises(ValueError, match="rate"):
        fnn.dropout(mask, x, 1.5)
    with pytest.raises(ValueError, match="shape"):
        fnn.dropout(mask[:2], x, 0.5)
    if fnn.norm._random is None:
        with pytest.raises(TypeError, match="key"):
            fnn.dropout(3, x, 0.5)


@needs_torch
def test_embedding():
    w = R.standard_normal((5, 3))
    ids = np.array([[0, 4, 2], [2, 2, 1]])
    compare_torch(lambda w: fnn.embedding(ids, w, padding_idx=2),  # padding rows: no grad
                  lambda w: torch.nn.functional.embedding(torch.tensor(ids), w, padding_idx=2),
                  (w,), (0,), rtol=1e-12)
    compare_torch(lambda w: fnn.embedding(ids, w), lambda w: torch.nn.functional.embedding(
        torch.tensor(ids), w), (w,), (0,), rtol=1e-12)
    # (padding_idx's zero gradient is PyTorch's convention, not the derivative: checked
    # against torch above, and finite differences without it)
    check_grads(lambda w: fnn.embedding(ids, w), (w,), order=2, modes=("fwd", "rev"))
    g = ftrans.grad(lambda w: fnp.sum(fnn.embedding(ids, w, padding_idx=-1)))(w)
    np.testing.assert_array_equal(g[4], 0)
    check_jit(lambda w, i: fnn.embedding(i, w), (w, ids))
    check_vmap(lambda w: fnn.embedding(ids, w), np.stack([w, 2 * w]))
    with pytest.raises(ValueError, match="ids"):
        fnn.embedding(np.array([5]), w)
    with pytest.raises(TypeError, match="integers"):
        fnn.embedding(np.array([0.0]), w)
    with pytest.raises(ValueError, match="padding_idx"):
        fnn.embedding(ids, w, padding_idx=7)


def test_forward_over_reverse_through_the_fused_rules():
    """hessian = jacfwd(jacrev): forward mode differentiates each custom_vjp's ``fun``,
    reverse mode uses its ``bwd``; both orders agree with jacrev(jacrev)."""
    x = X[:3, :2, :2]
    for f in (lambda x: fnp.sum(bn_train(x, W[:2], B[:2]) ** 3),
              lambda x: fnp.sum(fnn.conv(x, np.arange(4.0).reshape(1, 2, 2)) ** 2),
              lambda x: fnp.sum(fnn.max_pool(x, (2,)) ** 2),
              lambda x: fnn.cross_entropy(x, np.array([[0, 1], [1, 0], [1, 1]]))):
        np.testing.assert_allclose(ftrans.hessian(f)(x),
                                   ftrans.jacrev(ftrans.jacrev(f))(x), rtol=1e-9, atol=1e-12)


def test_ftrans_exposes_nn():
    assert ftrans.nn is fnn
    assert set(fnn.__all__) <= set(dir(fnn))


def test_dropout_with_ftrans_random_key():
    random = pytest.importorskip("ftrans.random", reason="ftrans.random is not in this "
                                 "checkout (dropout then takes a Generator or a keep mask)")
    x = R.standard_normal((20, 30))
    key = random.key(0)
    out = fnn.dropout(key, x, 0.4)
    np.testing.assert_array_equal(out, fnn.dropout(key, x, 0.4))          # reproducible
    keep = np.asarray(random.bernoulli(key, 0.6, x.shape))
    np.testing.assert_allclose(out, np.where(keep, x / 0.6, 0))
    keys = random.split(key, 3)
    outs = ftrans.vmap(lambda k: fnn.dropout(k, x, 0.4))(keys)
    np.testing.assert_allclose(outs[1], fnn.dropout(keys[1], x, 0.4))
    np.testing.assert_allclose(ftrans.jit(lambda k, x: fnn.dropout(k, x, 0.4))(key, x), out)
