"""ftrans.nn losses against torch.nn.functional (weights, ignore_index, label smoothing,
probability targets, every reduction), finite-difference gradients, jit, vmap, the fused
NLL path and bad-input errors."""
import numpy as np
import pytest

import ftrans
import ftrans.nn as fnn
import ftrans.numpy as fnp
from ftrans.testing import check_grads

from nn_helpers import (check_fused_matches_composed, check_jit, check_vmap, compare_torch,
                        needs_torch, rng, torch, torch_kwargs)

R = rng(0)
X = R.standard_normal((5, 4))
T = np.array([1, 0, 3, -100, 2])
W = R.random(4) + 0.5
XS = R.standard_normal((3, 4, 2))          # (N, C, d): classes on axis 1
TS = np.array([[0, 3], [1, -100], [2, 2]])
P_T = R.random((5, 4))
P_T /= P_T.sum(1, keepdims=True)

CE = [  # id, x, target, kwargs
    ("plain", X, np.array([1, 0, 3, 1, 2]), {}),
    ("ignore", X, T, {}),
    ("weight_ignore", X, T, dict(weight=W)),
    ("smooth", X, T, dict(label_smoothing=0.2)),
    ("smooth_weight", X, T, dict(weight=W, label_smoothing=0.3)),
    ("sum", X, T, dict(weight=W, reduction="sum")),
    ("none", X, T, dict(weight=W, reduction="none", label_smoothing=0.1)),
    ("ignore_idx2", X, np.array([1, 2, 3, 2, 0]), dict(ignore_index=2, weight=W)),
    ("spatial", XS, TS, dict(weight=W, label_smoothing=0.1)),
    ("spatial_none", XS, TS, dict(reduction="none")),
    ("unbatched", X[0], np.array(2), {}),
    ("probs", X, P_T, {}),
    ("probs_weight_smooth", X, P_T, dict(weight=W, label_smoothing=0.25)),
    ("probs_none", X, P_T, dict(reduction="none")),
    ("probs_sum_spatial", XS, np.abs(XS) / np.abs(XS).sum(1, keepdims=True),
     dict(reduction="sum")),
]


@needs_torch
@pytest.mark.parametrize("name,x,t,kw", CE, ids=[c[0] for c in CE])
def test_cross_entropy_against_torch(name, x, t, kw):
    probs = t.dtype.kind == "f"
    diff = (0, 1) if probs else (0,)
    compare_torch(lambda x, t: fnn.cross_entropy(x, t, **kw),
                  lambda x, t: torch.nn.functional.cross_entropy(
                      x, t if probs else torch.tensor(t), **torch_kwargs(kw)),
                  (x, t), diff, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,x,t,kw", CE[1:5] + CE[8:9] + CE[12:13],
                         ids=["ignore", "weight", "smooth", "smooth_w", "spatial", "probs"])
def test_cross_entropy_grads_jit(name, x, t, kw):
    f = lambda x: fnn.cross_entropy(x, t, **kw)  # noqa: E731
    check_grads(f, (x,), order=2, modes=("fwd", "rev"))
    check_jit(f, (x,))
    if t.dtype.kind == "f":
        check_grads(lambda t: fnn.cross_entropy(x, t, **kw), (t,), order=2,
                    modes=("fwd", "rev"))


def test_cross_entropy_vmap_fused_weight_grad():
    ts = np.stack([T, np.array([0, 1, 2, 3, 0])])
    got = ftrans.vmap(lambda x, t: fnn.cross_entropy(x, t, weight=W))(np.stack([X, -X]), ts)
    want = [fnn.cross_entropy(X, T, weight=W), fnn.cross_entropy(-X, ts[1], weight=W)]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    gs = ftrans.vmap(ftrans.grad(lambda x, t: fnn.cross_entropy(x, t)))(np.stack([X, -X]), ts)
    np.testing.assert_allclose(gs[1], ftrans.grad(lambda x: fnn.cross_entropy(x, ts[1]))(-X))
    check_fused_matches_composed(lambda x, w: fnn.cross_entropy(x, T, weight=w), (X, W))
    check_fused_matches_composed(lambda x: fnn.cross_entropy(x, T, reduction="none"),
                                 (X.astype(np.float32),))
    # the class weights are differentiable too (through the fused rule's coef cotangent)
    check_grads(lambda w: fnn.cross_entropy(X, T, weight=w), (W,), order=2,
                modes=("fwd", "rev"))


def test_cross_entropy_hessian_and_fused_attributes():
    h = ftrans.hessian(lambda x: fnn.cross_entropy(x, T[:3]))(X[:3])
    assert h.shape == (3, 4, 3, 4)
    core = fnn.FUSED["nll_of_logits"]
    coef = np.ones(5)
    t = np.array([1, 0, 3, 1, 2])
    out, res = core.fwd(X, t, coef)
    g = R.standard_normal(5)
    dx, dt, dc = core.bwd(res, g)
    assert dt is None
    want = ftrans.vjp(lambda x, c: core(x, t, c), X, coef)[1](g)
    with fnn.fused_kernels(False):
        want2 = ftrans.vjp(lambda x, c: core(x, t, c), X, coef)[1](g)
    np.testing.assert_allclose(dx, want2[0], rtol=1e-12)
    np.testing.assert_allclose(dc, want2[1], rtol=1e-12)
    np.testing.assert_allclose(dx, want[0], rtol=1e-12)


def test_cross_entropy_all_ignored_is_nan():
    assert np.isnan(fnn.cross_entropy(X[:2], np.array([-100, -100])))


def test_cross_entropy_errors():
    with pytest.raises(ValueError, match="out of bounds"):
        fnn.cross_entropy(X, np.array([0, 1, 2, 3, 4]))
    with pytest.raises(ValueError, match="target of shape"):
        fnn.cross_entropy(X, np.array([0, 1]))
    with pytest.raises(TypeError, match="integers"):
        fnn.cross_entropy(X, np.zeros(5))
    with pytest.raises(ValueError, match="ignore_index"):
        fnn.cross_entropy(X, P_T, ignore_index=1)
    with pytest.raises(ValueError, match="label_smoothing"):
        fnn.cross_entropy(X, T, label_smoothing=1.5)
    with pytest.raises(ValueError, match="reduction"):
        fnn.cross_entropy(X, T, reduction="avg")
    with pytest.raises(ValueError, match="weight"):
        fnn.cross_entropy(X, T, weight=np.ones(3))


NLL = [("plain", X, np.array([1, 0, 3, 1, 2]), {}), ("weight_ignore", X, T, dict(weight=W)),
       ("sum", X, T, dict(reduction="sum")), ("none_spatial", XS, TS, dict(reduction="none")),
       ("spatial_weight", XS, TS, dict(weight=W))]


@needs_torch
@pytest.mark.parametrize("name,x,t,kw", NLL, ids=[c[0] for c in NLL])
def test_nll_loss(name, x, t, kw):
    f = lambda x: fnn.nll_loss(x, t, **kw)  # noqa: E731
    compare_torch(f, lambda x: torch.nn.functional.nll_loss(x, torch.tensor(t),
                                                            **torch_kwargs(kw)),
                  (x,), (0,), rtol=1e-12)
    check_grads(f, (x,), order=2, modes=("fwd", "rev"))
    check_jit(f, (x,))


Y = R.standard_normal((3, 4))
Z = Y + R.standard_normal((3, 4))
PR = 1 / (1 + np.exp(-Z))
TB = R.random((3, 4))
PW = R.random(4) + 0.5
WB = R.random((3, 4))

PAIR = [  # id, ftrans f(x, y), torch f(x, y), x, y
    ("mse", fnn.mse_loss, torch.nn.functional.mse_loss if torch else None, Z, Y),
    ("mse_sum", lambda x, y: fnn.mse_loss(x, y, "sum"),
     lambda x, y: torch.nn.functional.mse_loss(x, y, reduction="sum"), Z, Y),
    ("l1_none", lambda x, y: fnn.l1_loss(x, y, "none"),
     lambda x, y: torch.nn.functional.l1_loss(x, y, reduction="none"), Z, Y),
    ("smooth_l1", lambda x, y: fnn.smooth_l1_loss(x, y, beta=0.7),
     lambda x, y: torch.nn.functional.smooth_l1_loss(x, y, beta=0.7), Z, Y),
    ("smooth_l1_beta0", lambda x, y: fnn.smooth_l1_loss(x, y, beta=0.0),
     lambda x, y: torch.nn.functional.smooth_l1_loss(x, y, beta=0.0), Z, Y),
    ("huber", lambda x, y: fnn.huber_loss(x, y, "sum", delta=0.6),
     lambda x, y: torch.nn.functional.huber_loss(x, y, reduction="sum", delta=0.6), Z, Y),
    ("bce", lambda p, t: fnn.binary_cross_entropy(p, t, WB),
     lambda p, t: torch.nn.functional.binary_cross_entropy(p, t, torch.tensor(WB)), PR, TB),
    ("bce_none", lambda p, t: fnn.binary_cross_entropy(p, t, reduction="none"),
     lambda p, t: torch.nn.functional.binary_cross_entropy(p, t, reduction="none"), PR, TB),
    ("bce_logits", lambda x, t: fnn.binary_cross_entropy_with_logits(x, t, WB, pos_weight=PW),
     lambda x, t: torch.nn.functional.binary_cross_entropy_with_logits(
         x, t, torch.tensor(WB), pos_weight=torch.tensor(PW)), Z * 3, TB),
    ("bce_logits_sum", lambda x, t: fnn.binary_cross_entropy_with_logits(x, t,
                                                                         reduction="sum"),
     lambda x, t: torch.nn.functional.binary_cross_entropy_with_logits(x, t, reduction="sum"),
     Z, TB),
    ("kl", lambda x, t: fnn.kl_div(x, t, "batchmean"),
     lambda x, t: torch.nn.functional.kl_div(x, t, reduction="batchmean"),
     np.log(PR / PR.sum(1, keepdims=True)), TB / TB.sum(1, keepdims=True)),
    ("kl_log_target", lambda x, t: fnn.kl_div(x, t, "sum", log_target=True),
     lambda x, t: torch.nn.functional.kl_div(x, t, reduction="sum", log_target=True),
     np.log(PR), np.log(TB)),
    ("kl_none", lambda x, t: fnn.kl_div(x, t, "none"),
     lambda x, t: torch.nn.functional.kl_div(x, t, reduction="none"), np.log(PR), TB),
]


@needs_torch
@pytest.mark.parametrize("name,f,tf,x,y", PAIR, ids=[c[0] for c in PAIR])
def test_pair_losses_against_torch(name, f, tf, x, y):
    compare_torch(f, tf, (x, y), (0, 1), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,f,tf,x,y", PAIR, ids=[c[0] for c in PAIR])
def test_pair_losses_grads_jit_vmap(name, f, tf, x, y):
    if "l1" not in name or "smooth" in name:     # |x - y| is not smooth at x == y only
        check_grads(f, (x, y), order=2, modes=("fwd", "rev"))
    check_jit(f, (x, y))
    check_vmap(lambda x, y: f(x, y), np.stack([x, x]), (y,))


def test_pair_loss_errors():
    with pytest.raises(ValueError, match="reduction"):
        fnn.mse_loss(Y, Z, "avg")
    with pytest.raises(ValueError, match="beta"):
        fnn.smooth_l1_loss(Y, Z, beta=-1)
    with pytest.raises(ValueError, match="delta"):
        fnn.huber_loss(Y, Z, delta=0)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        fnn.binary_cross_entropy(Z * 5, TB)
    with pytest.raises(ValueError, match="shape"):
        fnn.binary_cross_entropy(PR, TB[:1])
    assert float(fnn.binary_cross_entropy(np.array([0.0]), np.array([1.0]))) == 100.0
    assert np.isnan(fnn.mse_loss(np.zeros(0), np.zeros(0)))
    assert float(ftrans.grad(lambda x: fnn.l1_loss(x, fnp.zeros(1), "sum"))(np.zeros(1))[0]) == 0
