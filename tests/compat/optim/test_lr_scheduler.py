"""compat.optim.lr_scheduler against torch.optim.lr_scheduler 2.13: the same learning
rates (and OneCycleLR's momenta) step by step, the same state dicts; plus torch-free
closed-form checks."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import ftrans.compat as fc

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed: differential "
                                                       "tests against it are skipped")


def _lam(e):
    return 0.95 ** e


SCHEDS = [
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[2, 5, 5, 9], gamma=0.3)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("CosineAnnealingLR", dict(T_max=5, eta_min=0.001)),
    ("LambdaLR", dict(lr_lambda=_lam)),
    ("OneCycleLR", dict(max_lr=0.5, total_steps=14)),
    ("OneCycleLR", dict(max_lr=[0.5, 0.2], total_steps=14, anneal_strategy="linear",
                        three_phase=True)),
    ("ConstantLR", dict(factor=0.5, total_iters=4)),
    ("LinearLR", dict(start_factor=0.2, end_factor=0.9, total_iters=6)),
    ("PolynomialLR", dict(total_iters=8, power=2.0)),
    ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2, eta_min=0.01)),
]


def run(T, name, kw, opt_name="SGD", metrics=None):
    a = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
    b = T.tensor([0.5], dtype=T.float64, requires_grad=True)
    okw = dict(lr=0.1, momentum=0.9) if opt_name == "SGD" else dict(lr=0.1)
    opt = getattr(T.optim, opt_name)([{"params": [a]}, {"params": [b], "lr": 0.05}], **okw)
    sch = getattr(T.optim.lr_scheduler, name)(opt, **kw)
    lrs, moms, params = [], [], []
    for i in range(13):
        opt.zero_grad()
        ((a ** 2).sum() + (b ** 3).sum()).backward()
        opt.step()
        if metrics is not None:
            sch.step(metrics[i])
        else:
            sch.step()
        lrs.append(list(sch.get_last_lr()))
        g = opt.param_groups[0]
        moms.append(g.get("momentum", g.get("betas", (None,))[0]))
        params.append(np.concatenate([a.detach().numpy(), b.detach().numpy()]).copy())
    return np.array(lrs), moms, np.array(params), sch


@needs_torch
@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
@pytest.mark.parametrize("name,kw", SCHEDS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(SCHEDS)])
def test_schedule_matches_torch(name, kw, opt_name):
    l1, m1, p1, s1 = run(fc, name, kw, opt_name)
    l2, m2, p2, s2 = run(torch, name, kw, opt_name)
    np.testing.assert_allclose(l1, l2, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(np.array(m1, float), np.array(m2, float), rtol=1e-13)
    np.testing.assert_allclose(p1, p2, rtol=1e-10, atol=1e-12)
    d1, d2 = s1.state_dict(), s2.state_dict()
    assert set(d1) == set(d2)
    for k in d1:
        if k == "_last_lr" or k == "base_lrs":
            np.testing.assert_allclose(d1[k], d2[k], rtol=1e-13)
        elif k != "_schedule_phases":
            assert d1[k] == d2[k], k
    # a torch state dict loads here and continues identically
    l3, _, _, s3 = run(fc, name, kw, opt_name)
    s3.load_state_dict(d2)
    assert s3.last_epoch == s2.last_epoch


@needs_torch
@pytest.mark.parametrize("kind", ["SequentialLR", "ChainedScheduler"])
def test_composite_schedulers_match_torch(kind):
    def run(T):
        a = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
        opt = T.optim.SGD([a], lr=0.1, momentum=0.9)
        S = T.optim.lr_scheduler
        warm = S.LinearLR(opt, start_factor=0.1, total_iters=3)
        cos = (S.CosineAnnealingLR(opt, T_max=6) if kind == "SequentialLR"
               else S.ExponentialLR(opt, gamma=0.9))
        sch = (S.SequentialLR(opt, [warm, cos], milestones=[3]) if kind == "SequentialLR"
               else S.ChainedScheduler([warm, cos]))
        lrs = []
        for _ in range(10):
            opt.zero_grad()
            (a ** 2).sum().backward()
            opt.step()
            sch.step()
            lrs.append(sch.get_last_lr()[0])
        sd = sch.state_dict()
        return lrs, a.detach().numpy().copy(), sd["_schedulers"][0]["last_epoch"]
    r1, r2 = run(fc), run(torch)
    np.testing.assert_allclose(r1[0], r2[0], rtol=1e-13)
    np.testing.assert_allclose(r1[1], r2[1], rtol=1e-12)
    assert r1[2] == r2[2]


@needs_torch
@pytest.mark.parametrize("kw", [dict(), dict(mode="max", factor=0.5, patience=1, cooldown=1,
                                             threshold_mode="abs", threshold=0.1,
                                             min_lr=[0.02, 0.0])])
def test_reduce_on_plateau_matches_torch(kw):
    metrics = [5, 4, 4, 4.2, 4, 3.99, 4.5, 4, 4, 4, 4, 4, 4]
    if "mode" in kw:
        metrics = [-m for m in metrics]
    r1 = run(fc, "ReduceLROnPlateau", dict(kw, patience=kw.get("patience", 2)), metrics=metrics)
    r2 = run(torch, "ReduceLROnPlateau", dict(kw, patience=kw.get("patience", 2)),
             metrics=metrics)
    np.testing.assert_allclose(r1[0], r2[0], rtol=1e-13)
    np.testing.assert_allclose(r1[2], r2[2], rtol=1e-10)
    assert r1[3].state_dict() == r2[3].state_dict()


def test_closed_forms_without_torch():
    w = fc.zeros(1, requires_grad=True)
    opt = fc.optim.SGD([w], lr=1.0)
    cos = fc.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=8, eta_min=0.1)
    for t in range(1, 9):
        opt.step()
        cos.step()
        want = 0.1 + (1.0 - 0.1) * (1 + math.cos(math.pi * t / 8)) / 2
        assert math.isclose(cos.get_last_lr()[0], want, rel_tol=1e-12, abs_tol=1e-15)
    opt = fc.optim.SGD([w], lr=1.0)
    st = fc.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 4], gamma=0.1)
    seen = []
    for _ in range(5):
        opt.step()
        st.step()
        seen.append(opt.param_groups[0]["lr"])
    np.testing.assert_allclose(seen, [1.0, 0.1, 0.1, 0.01, 0.01])
    opt = fc.optim.SGD([w], lr=1.0, momentum=0.9)
    oc = fc.optim.lr_scheduler.OneCycleLR(opt, max_lr=2.0, total_steps=10, pct_start=0.5,
                                          anneal_strategy="linear")
    assert math.isclose(opt.param_groups[0]["lr"], 2.0 / 25)
    for _ in range(4):
        opt.step()
        oc.step()
    assert math.isclose(opt.param_groups[0]["lr"], 2.0)             # peak at step 4
    assert math.isclose(opt.param_groups[0]["momentum"], 0.85)
    for _ in range(5):
        opt.step()
        oc.step()
    assert math.isclose(opt.param_groups[0]["lr"], 2.0 / 25 / 1e4)
    opt.step()
    oc.step()
    with pytest.raises(ValueError, match="Tried to step 11 times"):
        oc.step()


def test_warnings_and_errors():
    w = fc.zeros(1, requires_grad=True)
    opt = fc.optim.SGD([w], lr=1.0)
    s = fc.optim.lr_scheduler.StepLR(opt, 2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        s.step()
    with pytest.raises(TypeError, match="is not an Optimizer"):
        fc.optim.lr_scheduler.StepLR(object(), 2)
    with pytest.raises(ValueError, match="Factor should be < 1.0"):
        fc.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="total_steps"):
        fc.optim.lr_scheduler.OneCycleLR(opt, 1.0)
    with pytest.raises(KeyError, match="initial_lr"):
        fc.optim.lr_scheduler.ExponentialLR(fc.optim.SGD([w], lr=1.0), 0.9, last_epoch=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt2 = fc.optim.SGD([w], lr=1.0)
        s2 = fc.optim.lr_scheduler.ExponentialLR(opt2, 0.5)
        opt2.step()
        s2.step()
    assert s2.get_last_lr() == [0.5]
