"""compat.nn.functional's added operations against PyTorch (values and gradients on sampled
inputs, error types) and modules against their torch counterparts (skipped without
PyTorch); the ftrans.nn functions they adapt are tested in tests/nn/test_sampling.py."""
from __future__ import annotations

import os
import sys
import warnings

import numpy as np
import pytest

import ftrans.compat as fc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nn_diff import torch, needs_torch  # noqa: E402

if torch is not None:
    import torch.nn.functional as TF


def _to_fc(v):
    if torch is not None and isinstance(v, torch.Tensor):
        t = fc.tensor(v.detach().numpy().copy())
        return t.requires_grad_(True) if v.requires_grad else t
    if isinstance(v, (list, tuple)):
        return type(v)(_to_fc(x) for x in v)
    if isinstance(v, dict):
        return {k: _to_fc(x) for k, x in v.items()}
    return v


def _leaves(v, cls):
    if isinstance(v, cls):
        return [v] if v.requires_grad else []
    if isinstance(v, (list, tuple)):
        return [x for a in v for x in _leaves(a, cls)]
    if isinstance(v, dict):
        return [x for a in v.values() for x in _leaves(a, cls)]
    return []


def _first(o):
    return o[0] if isinstance(o, tuple) else o


def same(name, *args, rtol=1e-7, atol=1e-9, grad=True, **kw):
    """``F.<name>(*args, **kw)`` in torch and compat: value, dtype, shape, gradient."""
    cargs, ckw = _to_fc(args), _to_fc(kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tout = _first(getattr(TF, name)(*args, **kw))
        cout = _first(getattr(fc.nn.functional, name)(*cargs, **ckw))
    assert tuple(tout.shape) == tuple(cout.shape), name
    assert str(tout.dtype) == str(cout.dtype), name
    np.testing.assert_allclose(cout.detach().numpy(), tout.detach().numpy(), rtol, atol,
                               err_msg=name)
    tl, cl = _leaves((args, kw), torch.Tensor), _leaves((cargs, ckw), fc.Tensor)
    if grad and tl and tout.requires_grad:
        ct = np.random.default_rng(1).standard_normal(tuple(tout.shape))
        tg = torch.autograd.grad(tout, tl, torch.tensor(ct), allow_unused=True)
        cg = fc.autograd.grad(cout, cl, fc.tensor(ct), allow_unused=True)
        for a, b in zip(tg, cg):
            if a is None:
                assert b is None or not np.any(b.numpy()), name
                continue
            np.testing.assert_allclose(b.numpy(), a.numpy(), 1e-6, 1e-8, err_msg=name)


def raises_same(name, *args, **kw):
    with pytest.raises(Exception) as te:
        getattr(TF, name)(*args, **kw)
    with pytest.raises(te.type):
        getattr(fc.nn.functional, name)(*_to_fc(args), **_to_fc(kw))


def rnd(*shape, seed=0, rg=True, scale=1.0):
    g = torch.Generator().manual_seed(seed + 7 * len(shape))
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale).requires_grad_(rg)


@needs_torch
def test_activations_and_shuffles():
    x = rnd(2, 6, 4, 4)
    same("glu", x, 1)
    same("hardshrink", x, 0.7)
    same("softshrink", x, 0.3)
    same("rrelu", x)                                  # evaluation: a fixed slope
    same("pixel_shuffle", x[:, :4], 2)
    same("pixel_unshuffle", x, 2)
    same("channel_shuffle", x, 3)
    raises_same("glu", rnd(3, 5), 1)
    raises_same("softshrink", x, -1.0)
    raises_same("pixel_shuffle", x, 4)


@needs_torch
def test_unfold_fold_roundtrip_and_grads():
    x = rnd(2, 3, 6, 7)
    same("unfold", x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
    cols = rnd(2, 3 * 6, 6)
    same("fold", cols, (5, 6), (2, 3), padding=(1, 0), stride=(2, 2))
    same("fold", rnd(12, 20), (5, 6), 2)  # 4 x 5 blocks
    raises_same("fold", rnd(2, 7, 12), (5, 6), (2, 3))


@needs_torch
@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_modes(mode):
    same("pad", rnd(2, 3, 5), (2, 1), mode=mode)
    same("pad", rnd(1, 2, 4, 5), (1, 2, 0, 3), mode=mode)
    same("pad", rnd(1, 2, 3, 4, 5), (1, 1, 2, 0, 1, 2), mode=mode)
    if mode != "reflect":
        same("pad", rnd(1, 3, 4, 4), (-1, 1, -2, 1), mode=mode)
    raises_same("pad", rnd(1, 2, 3), (3, 3), mode="reflect")


@needs_torch
@pytest.mark.parametrize("mode", ["area", "bicubic", "nearest-exact", "trilinear"])
def test_interpolate_modes(mode):
    x = rnd(1, 2, 5, 6, 4) if mode == "trilinear" else rnd(1, 2, 5, 6)
    same("interpolate", x, scale_factor=1.7, mode=mode)
    same("interpolate", x, size=(3, 8, 5) if x.dim() == 5 else (3, 8), mode=mode)
    if mode in ("bicubic", "trilinear"):
        same("interpolate", x, scale_factor=2, mode=mode, align_corners=True)


@needs_torch
def test_pooling_3d_unpool_and_fractional():
    x = rnd(2, 2, 5, 6, 7)
    same("max_pool3d", x, 2, stride=(1, 2, 2), padding=1)
    same("avg_pool3d", x, (2, 3, 2), ceil_mode=True, count_include_pad=False)
    same("adaptive_avg_pool3d", x, (2, 4, 3))
    same("adaptive_max_pool3d", x, (3, 4, 5))
    same("conv_transpose3d", rnd(1, 2, 3, 3, 3), rnd(2, 3, 2, 2, 2), stride=2, padding=1)
    raises_same("adaptive_avg_pool3d", rnd(2, 2, 2), (2, 2, 2))
    for n in (1, 2, 3):
        xi = rnd(1, 2, *([6] * n))
        out, idx = getattr(TF, f"max_pool{n}d")(xi, 2, return_indices=True)
        same(f"max_unpool{n}d", out.detach().requires_grad_(True), idx, 2)
        same(f"max_unpool{n}d", out.detach().requires_grad_(True), idx, 2,
             output_size=[7] * n)
    s2 = torch.rand(2, 2, 2, dtype=torch.float64)
    same("fractional_max_pool2d", rnd(2, 2, 9, 8), (2, 3), output_size=(4, 5),
         _random_samples=s2)
    s3 = torch.rand(1, 2, 3, dtype=torch.float64)
    same("fractional_max_pool3d", rnd(1, 2, 7, 8, 6), 2, output_ratio=0.5, _random_samples=s3)


@needs_torch
def test_losses():
    a, b = rnd(4, 5), rnd(4, 5, seed=1)
    y = torch.tensor([1.0, -1.0, -1.0, 1.0], dtype=torch.float64)
    for red in ("mean", "sum", "none"):
        same("cosine_embedding_loss", a, b, y, margin=0.2, reduction=red)
        same("hinge_embedding_loss", a, torch.sign(b.detach()), margin=0.5, reduction=red)
        same("margin_ranking_loss", a[:, 0], b[:, 0], y, margin=0.1, reduction=red)
        same("soft_margin_loss", a, torch.sign(b.detach()), reduction=red)
        same("multilabel_soft_margin_loss", a, (b.detach() > 0).double(), reduction=red)
        same("poisson_nll_loss", a, b.detach().abs() * 3, full=True, reduction=red)
        same("poisson_nll_loss", a.abs(), b.detach().abs(), log_input=False, reduction=red)
        same("gaussian_nll_loss", a, b, rnd(4, 1, seed=2).abs(), full=True, reduction=red)
        same("triplet_margin_loss", a, b, rnd(4, 5, seed=3), swap=True, p=1, reduction=red)
        same("triplet_margin_with_distance_loss", a, b, rnd(4, 5, seed=3), reduction=red)
        t = torch.tensor([4, 0, 2, 2])
        same("multi_margin_loss", a, t, p=2, margin=0.7, weight=rnd(5, rg=False).abs(),
             reduction=red)
        tl = torch.tensor([[3, 0, -1, 1, 2]] * 2 + [[1, 4, 2, 0, 3], [-1, 0, 1, 1, 1]])
        same("multilabel_margin_loss", a, tl, reduction=red)
    raises_same("multi_margin_loss", a, torch.tensor([1, 0, 3, 1]), p=3)
    raises_same("gaussian_nll_loss", a, b, -rnd(4, 5).abs())


@needs_torch
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_ctc_loss(reduction):
    lp = rnd(7, 3, 5).log_softmax(2).detach().requires_grad_(True)
    targets = torch.tensor([[1, 2, 2], [3, 1, 0], [4, 4, 4]])
    same("ctc_loss", lp, targets, [7, 6, 7], [3, 2, 3], reduction=reduction, rtol=1e-6)
    same("ctc_loss", lp, torch.tensor([1, 2, 2, 3, 1]), torch.tensor([7, 5, 2]),
         torch.tensor([3, 2, 0]), blank=0, reduction=reduction, zero_infinity=True,
         rtol=1e-6)


@needs_torch
def test_embedding_bag_grid_sample_norms():
    w = rnd(10, 3)
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
    offs = torch.tensor([0, 4, 4])
    for mode in ("sum", "mean", "max"):
        same("embedding_bag", idx, w, offs, mode=mode, padding_idx=2)
    same("embedding_bag", idx.reshape(2, 4), w, per_sample_weights=rnd(2, 4), mode="sum")
    same("embedding_bag", idx, w, torch.tensor([0, 3, 8]), include_last_offset=True)
    x, g = rnd(2, 3, 5, 6), rnd(2, 4, 3, 2, scale=0.7)
    for mode in ("bilinear", "nearest", "bicubic"):
        for pm in ("zeros", "border", "reflection"):
            same("grid_sample", x, g, mode=mode, padding_mode=pm, align_corners=pm == "border",
                 rtol=1e-6)
    same("grid_sample", rnd(1, 2, 3, 4, 5), rnd(1, 2, 3, 2, 3, scale=0.8), align_corners=False)
    same("pdist", rnd(5, 3))
    same("pdist", rnd(4, 3), p=1.5)
    same("rms_norm", rnd(3, 4, 5), (4, 5), rnd(4, 5, seed=1))
    same("local_response_norm", rnd(2, 6, 4, 3), 3)
    same("local_response_norm", rnd(2, 6, 4), 2, alpha=0.1)
    same("linear_cross_entropy", rnd(4, 5), rnd(3, 5), torch.tensor([0, 2, 1, 2]),
         linear_bias=rnd(3))


@needs_torch
def test_toplevel_native_norms_and_constant_pad():
    x = rnd(3, 4, 5)
    for tf, cf, args in (
            (torch.native_layer_norm, fc.native_layer_norm, ((5,), rnd(5), rnd(5), 1e-5)),
            (torch.native_group_norm, fc.native_group_norm,
             (rnd(4), rnd(4), 3, 4, 5, 2, 1e-5)),
            (torch.native_batch_norm, fc.native_batch_norm,
             (rnd(4), rnd(4), None, None, True, 0.1, 1e-5))):
        t, c = tf(x, *args), cf(_to_fc(x), *_to_fc(args))
        for a, b in zip(t, c):
            np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), 1e-7, 1e-9)
    a, b = torch.constant_pad_nd(x, (1, -1, 2, 0), 3.0), fc.constant_pad_nd(_to_fc(x),
                                                                             (1, -1, 2, 0), 3.0)
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy())


@needs_torch
def test_modules_and_conv_padding_modes():
    x = rnd(2, 2, 6, 6, rg=False).float()
    for mode in ("reflect", "replicate", "circular"):
        tm = torch.nn.Conv2d(2, 3, 3, padding=1, padding_mode=mode)
        cm = fc.nn.Conv2d(2, 3, 3, padding=1, padding_mode=mode)
        cm.load_state_dict({k: fc.tensor(v.numpy()) for k, v in tm.state_dict().items()})
        np.testing.assert_allclose(cm(_to_fc(x)).detach().numpy(), tm(x).detach().numpy(),
                                   1e-5, 1e-6)
    with pytest.raises(ValueError):
        fc.nn.Conv2d(2, 3, 3, padding_mode="mirror")
    for name, ctor, inp in (("PixelShuffle", (2,), (1, 8, 3, 3)), ("Unfold", ((2, 2),),
                            (1, 2, 4, 4)), ("GLU", (), (2, 4)), ("Softshrink", (0.2,), (3, 3)),
                            ("RMSNorm", (4,), (2, 4)), ("MaxPool3d", (2,), (1, 1, 4, 4, 4)),
                            ("AdaptiveAvgPool3d", (2,), (1, 1, 5, 4, 4)),
                            ("ReflectionPad2d", (1,), (1, 1, 3, 3)),
                            ("LocalResponseNorm", (2,), (1, 4, 3, 3))):
        tm, cm = getattr(torch.nn, name)(*ctor), getattr(fc.nn, name)(*ctor)
        cm.load_state_dict({k: fc.tensor(v.numpy()) for k, v in tm.state_dict().items()})
        xi = rnd(*inp, rg=False)
        np.testing.assert_allclose(cm(_to_fc(xi)).detach().numpy(), tm(xi).detach().numpy(), 1e-6,
                                   1e-6, err_msg=name)
        assert repr(cm) == repr(tm)
    lp = rnd(6, 2, 4).log_softmax(2).detach()
    args = (lp, torch.tensor([[1, 2], [3, 3]]), [6, 5], [2, 2])
    np.testing.assert_allclose(fc.nn.CTCLoss()(*_to_fc(args)).numpy(),
                               torch.nn.CTCLoss()(*args).numpy(), 1e-7)


@needs_torch
def test_random_ops_shapes_and_scaling():
    x = fc.ones(4, 3, 5, 5)
    y = fc.nn.functional.dropout2d(x, 0.5)
    kept = y.numpy()[:, :, 0, 0]
    assert y.shape == x.shape and set(np.unique(kept)) <= {0.0, 2.0}
    assert np.all(y.numpy() == y.numpy()[:, :, :1, :1])           # whole channels
    assert fc.nn.functional.alpha_dropout(x, 0.2, training=False) is x
    z = fc.nn.functional.feature_alpha_dropout(x, 0.3, training=True)
    assert z.shape == x.shape
    r = fc.nn.functional.rrelu(-fc.ones(1000), 0.1, 0.3, training=True).numpy()
    assert np.all((r <= -0.1) & (r >= -0.3))
    out = fc.nn.functional.fractional_max_pool2d(fc.randn(1, 2, 9, 9), 2, output_size=4)
    assert out.shape == (1, 2, 4, 4)
