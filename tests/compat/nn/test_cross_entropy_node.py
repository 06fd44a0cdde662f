"""``cross_entropy`` with class indices as one node (compat/_ops.cross_entropy_indices):
values, gradients, second derivatives (create_graph) and forward-mode tangents against
torch, and against compat's general log_softmax + nll_loss path."""
import numpy as np
import pytest

import ftrans.compat as fc
import ftrans.compat.nn.functional as F

torch = pytest.importorskip("torch")


def _data(dt=np.float64, N=6, C=5, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((N, C)).astype(dt)
    t = rng.integers(0, C, N)
    t[1] = -100
    return x, t


@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("dt,tol", [(np.float64, 1e-12), (np.float32, 1e-5)])
def test_value_grad_and_double_grad_match_torch(reduction, dt, tol):
    x, t = _data(dt)
    xf = fc.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    lf = F.cross_entropy(xf, fc.tensor(t), reduction=reduction)
    lt = torch.nn.functional.cross_entropy(xt, torch.tensor(t), reduction=reduction)
    assert type(lf.grad_fn).__name__ == "NllLossBackward0"
    np.testing.assert_allclose(lf.detach().numpy(), lt.detach().numpy(), rtol=tol)
    gf, = fc.autograd.grad(lf, xf, create_graph=True)
    gt, = torch.autograd.grad(lt, xt, create_graph=True)
    np.testing.assert_allclose(gf.detach().numpy(), gt.detach().numpy(), rtol=tol, atol=tol)
    v = np.random.default_rng(1).standard_normal(x.shape).astype(dt)
    hf, = fc.autograd.grad((gf * fc.tensor(v)).sum(), xf)
    ht, = torch.autograd.grad((gt * torch.tensor(v)).sum(), xt)
    np.testing.assert_allclose(hf.numpy(), ht.numpy(), rtol=tol * 10, atol=tol)


def test_forward_ad_matches_torch():
    x, t = _data()
    v = np.random.default_rng(2).standard_normal(x.shape)
    import ftrans.compat.autograd.forward_ad as fwf
    import torch.autograd.forward_ad as fwt
    with fwf.dual_level():
        out = F.cross_entropy(fwf.make_dual(fc.tensor(x), fc.tensor(v)), fc.tensor(t))
        tf = fwf.unpack_dual(out).tangent.numpy()
    with fwt.dual_level():
        out = torch.nn.functional.cross_entropy(fwt.make_dual(torch.tensor(x), torch.tensor(v)),
                                                torch.tensor(t))
        tt = fwt.unpack_dual(out).tangent.numpy()
    np.testing.assert_allclose(tf, tt, rtol=1e-12)


def test_all_ignored_mean_is_nan_and_out_of_range_raises():
    x, _ = _data()
    t = np.full(6, -100)
    assert np.isnan(F.cross_entropy(fc.tensor(x), fc.tensor(t)).item())
    assert np.isnan(torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor(t)).item())
    with pytest.raises(IndexError, match="out of bounds"):
        F.cross_entropy(fc.tensor(x), fc.tensor(np.array([0, 1, 2, 3, 4, 5])))


def test_gradcheck():
    x, t = _data()
    xf = fc.tensor(x, requires_grad=True)
    assert fc.autograd.gradcheck(lambda a: F.cross_entropy(a, fc.tensor(t)), (xf,))
    assert fc.autograd.gradgradcheck(lambda a: F.cross_entropy(a, fc.tensor(t)), (xf,))
