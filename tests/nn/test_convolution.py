"""ftrans.nn linear, conv and pooling: gradients (order 2, both modes), jit, vmap,
fused == composed, torch differential tests over stride/padding/dilation/groups/
ceil_mode/count_include_pad/return_indices, and bad-input errors."""
import numpy as np
import pytest

import ftrans
import ftrans.nn as fnn
from ftrans.testing import check_grads

from nn_helpers import (check_fused_matches_composed, check_jit, check_vmap, compare_torch,
                        needs_torch, rng, torch)

R = rng(0)
X1 = R.standard_normal((2, 4, 7))
X2 = R.standard_normal((2, 4, 6, 5))
X3 = R.standard_normal((1, 2, 4, 3, 4))

# (id, x, weight shape, kwargs)
CONV = [
    ("1d", X1, (3, 4, 3), {}),
    ("1d_stride_pad_dil", X1, (4, 2, 2), dict(stride=2, padding=2, dilation=2, groups=2)),
    ("2d", X2, (3, 4, 3, 3), dict(padding=1)),
    ("2d_asym", X2, (6, 2, 3, 2), dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2),
                                       groups=2)),
    ("2d_same", X2, (2, 4, 2, 3), dict(padding="same", dilation=(2, 1))),
    ("2d_valid", X2, (2, 4, 3, 3), dict(padding="valid")),
    ("3d", X3, (2, 2, 2, 2, 3), dict(padding=1, stride=(1, 2, 1))),
]


def _torch_conv(kw):
    def tf(x, w, b):
        fn = {3: torch.nn.functional.conv1d, 4: torch.nn.functional.conv2d,
              5: torch.nn.functional.conv3d}[x.dim()]
        return fn(x, w, b, **kw)
    return tf


@needs_torch
@pytest.mark.parametrize("name,x,ws,kw", CONV, ids=[c[0] for c in CONV])
def test_conv_against_torch(name, x, ws, kw):
    w, b = R.standard_normal(ws), R.standard_normal(ws[0])
    compare_torch(lambda x, w, b: fnn.conv(x, w, b, **kw), _torch_conv(kw), (x, w, b),
                  (0, 1, 2), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("name,x,ws,kw", CONV[:3] + CONV[4:5], ids=["1d", "1d_sd", "2d", "same"])
def test_conv_grads_jit_vmap(name, x, ws, kw):
    x = x[:1, :, :4] if x.ndim == 3 else x[:1, :, :4, :3]
    w, b = R.standard_normal(ws) * 0.5, R.standard_normal(ws[0])
    f = lambda x, w, b: fnn.conv(x, w, b, **kw)  # noqa: E731
    check_grads(f, (x, w, b), order=2, modes=("fwd", "rev"))
    check_jit(f, (x, w, b))
    check_vmap(lambda xi, w, b: f(xi, w, b), np.stack([x, 2 * x]), (w, b))


def test_conv_fused_matches_composed():
    w = R.standard_normal((3, 4, 3, 3))
    f = lambda x, w: fnn.conv(x, w, padding=1, stride=(1, 2))  # noqa: E731
    check_fused_matches_composed(f, (X2, w))
    check_fused_matches_composed(f, (X2.astype(np.float32), w.astype(np.float32)))


def test_conv_unbatched_and_fused_attributes():
    w = R.standard_normal((3, 4, 3, 3))
    np.testing.assert_allclose(fnn.conv(X2[0], w), fnn.conv(X2[:1], w)[0])
    core = fnn.FUSED["conv"]
    params = ((1, 1), ((0, 0), (0, 0)), (1, 1), 1, None)
    b = R.standard_normal(3)
    out, res = core.fwd(params, X2, w, b)
    assert res[2] is not None            # the im2col matrix is kept for the weight grad
    g = R.standard_normal(out.shape)
    dx, dw, db = core.bwd(params, res, g)
    want = ftrans.vjp(lambda x, w, b: fnn.conv(x, w, b), X2, w, b)[1](g)
    np.testing.assert_allclose(out, fnn.conv(X2, w, b), rtol=1e-12)
    np.testing.assert_allclose(dx, want[0], rtol=1e-10)
    np.testing.assert_allclose(dw, want[1], rtol=1e-10)
    np.testing.assert_allclose(db, g.sum(axis=(0, 2, 3)), rtol=1e-12)
    out0, res0 = core.fwd(params, X2, w, None)    # no bias: no bias cotangent
    assert core.bwd(params, res0, g)[2] is None


def test_conv_grad_program_builds_im2col_once():
    # under a trace the fused convolution's forward is im2col + GEMM and its backward
    # reuses that matrix for the kernel's gradient (no second conv_patches, no convolution)
    w = R.standard_normal((3, 4, 3, 3))
    f = lambda w, x: ftrans.numpy.sum(fnn.conv(x, w, padding=1, stride=(1, 2)) ** 2)  # noqa: E731
    g = ftrans.grad(f, argnums=(0, 1))
    names = [e.prim.name for e in ftrans.make_ir(g)(w, X2).eqns]
    assert names.count("conv_patches") == 1 and "conv_general_dilated" not in names, names
    for a, b in zip(ftrans.jit(g)(w, X2), g(w, X2)):
        np.testing.assert_allclose(np.asarray(a), b, rtol=1e-10, atol=1e-12)


def test_conv_errors():
    w = np.ones((3, 4, 3, 3))
    with pytest.raises(ValueError, match="groups"):
        fnn.conv(X2, np.ones((3, 3, 3, 3)))
    with pytest.raises(ValueError, match="stride 1"):
        fnn.conv(X2, w, padding="same", stride=2)
    with pytest.raises(ValueError, match="larger"):
        fnn.conv(X2, np.ones((3, 4, 9, 9)))
    with pytest.raises(ValueError, match="dtype"):
        fnn.conv(X2.astype(np.float32), w)
    with pytest.raises(ValueError, match="4-d"):
        fnn.conv(X1[0], w)
    with pytest.raises(ValueError, match="padding"):
        fnn.conv(X2, w, padding="full")


# ------------------------------------------------------------------------------ linear
@needs_torch
def test_linear():
    x, w, b = R.standard_normal((2, 3, 4)), R.standard_normal((5, 4)), R.standard_normal(5)
    compare_torch(fnn.linear, torch.nn.functional.linear, (x, w, b), (0, 1, 2), rtol=1e-12)
    check_grads(fnn.linear, (x[0], w, b), order=2, modes=("fwd", "rev"))
    check_jit(fnn.linear, (x, w, b))
    check_vmap(fnn.linear, x, (w, b))
    np.testing.assert_allclose(fnn.linear(x, w), x @ w.T)
    with pytest.raises(ValueError, match="in"):
        fnn.linear(x, w.T)


# ----------------------------------------------------------------------------- pooling
POOL = [
    ("max1d", "max", X1, dict(kernel_size=3, stride=2, padding=1)),
    ("max2d", "max", X2, dict(kernel_size=2)),
    ("max2d_ceil", "max", X2, dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ("max2d_dil", "max", X2, dict(kernel_size=(2, 2), stride=1, dilation=(2, 1))),
    ("max3d", "max", X3, dict(kernel_size=2, stride=1, padding=1)),
    ("avg1d", "avg", X1, dict(kernel_size=3, stride=2, padding=1)),
    ("avg2d", "avg", X2, dict(kernel_size=2)),
    ("avg2d_ceil_nopad", "avg", X2, dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
                                         count_include_pad=False)),
    ("avg2d_ceil_pad", "avg", X2, dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    ("avg2d_div", "avg", X2, dict(kernel_size=2, divisor_override=3)),
    ("avg3d", "avg", X3, dict(kernel_size=2, padding=1, count_include_pad=False)),
]
FN = {"max": fnn.max_pool, "avg": fnn.avg_pool}


def _torch_pool(kind, kw):
    def tf(x):
        d = x.dim() - 2
        return getattr(torch.nn.functional, f"{kind}_pool{d}d")(x, **kw)
    return tf


@needs_torch
@pytest.mark.parametrize("name,kind,x,kw", POOL, ids=[p[0] for p in POOL])
def test_pool_against_torch(name, kind, x, kw):
    compare_torch(lambda x: FN[kind](x, **kw), _torch_pool(kind, kw), (x,), (0,),
                  rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,kind,x,kw", POOL[1:3] + POOL[6:9], ids=[
    "max2d", "max2d_ceil", "avg2d", "avg_ceil_nopad", "avg_ceil_pad"])
def test_pool_grads_jit_vmap(name, kind, x, kw):
    f = lambda x: FN[kind](x, **kw)  # noqa: E731
    xs = x[:1, :2]
    check_grads(f, (xs,), order=2, modes=("fwd", "rev"))
    check_jit(f, (x,))
    check_vmap(f, x[:, :2])


@needs_torch
@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1,
                                                         ceil_mode=True),
                                dict(kernel_size=(2, 3), dilation=(1, 2), stride=1)])
def test_max_pool_indices(kw):
    out, idx = fnn.max_pool(X2, return_indices=True, **kw)
    tout, tidx = torch.nn.functional.max_pool2d(torch.tensor(X2), return_indices=True, **kw)
    np.testing.assert_array_equal(out, tout.numpy())
    np.testing.assert_array_equal(idx, tidx.numpy())


def test_max_pool_fused_matches_composed_and_ties():
    check_fused_matches_composed(lambda x: fnn.max_pool(x, 3, 2, 1), (X2,))
    x = np.ones((1, 1, 2, 2))                 # a tie: the first maximum gets it all
    g = ftrans.grad(lambda x: fnn.max_pool(x, 2).sum())(x)
    np.testing.assert_array_equal(g[0, 0], [[1, 0], [0, 0]])
    with fnn.fused_kernels(False):
        np.testing.assert_array_equal(ftrans.grad(lambda x: fnn.max_pool(x, 2).sum())(x), g)


ADAPT = [((3, 2), X2), ((4, None), X2), (3, X1), ((2, 3, 2), X3), (1, X2)]


@needs_torch
@pytest.mark.parametrize("size,x", ADAPT, ids=["2d", "2d_none", "1d", "3d", "global"])
def test_adaptive_pools_against_torch(size, x):
    d = x.ndim - 2
    ta = getattr(torch.nn.functional, f"adaptive_avg_pool{d}d")
    tm = getattr(torch.nn.functional, f"adaptive_max_pool{d}d")
    compare_torch(lambda x: fnn.adaptive_avg_pool(x, size), lambda x: ta(x, size), (x,), (0,),
                  rtol=1e-12, atol=1e-12)
    compare_torch(lambda x: fnn.adaptive_max_pool(x, size), lambda x: tm(x, size), (x,), (0,),
                  rtol=1e-12, atol=1e-12)
    out, idx = fnn.adaptive_max_pool(x, size, return_indices=True)
    np.testing.assert_array_equal(idx, tm(torch.tensor(x), size, return_indices=True)[1].numpy())


def test_adaptive_pools_grads_jit_vmap():
    for f in (lambda x: fnn.adaptive_avg_pool(x, (2, 3)),
              lambda x: fnn.adaptive_max_pool(x, (4, 2))):
        check_grads(f, (X2[:1, :1],), order=2, modes=("fwd", "rev"))
        check_jit(f, (X2,))
        check_vmap(f, X2)


def test_pool_errors():
    with pytest.raises(ValueError, match="half"):
        fnn.max_pool(X2, 2, padding=2)
    with pytest.raises(ValueError, match="too small"):
        fnn.avg_pool(X2, 9)
    with pytest.raises(ValueError, match="kernel_size"):
        fnn.max_pool(X2, (2, 2, 2, 2))
    with pytest.raises(ValueError, match=">= 1"):
        fnn.max_pool(X2, 0)
    with pytest.raises(ValueError, match="output_size"):
        fnn.adaptive_avg_pool(X2, (0, 2))
    with pytest.raises(ValueError, match="divisor_override"):
        fnn.avg_pool(X2, 2, divisor_override=0)


@needs_torch
def test_float32_layers_against_torch():
    """The fused float32 paths of a digits-CNN block (conv, batch norm, relu, max pool,
    cross entropy) against torch, value and gradients, at float32 tolerance."""
    x = R.standard_normal((8, 2, 6, 6)).astype(np.float32)
    w = R.standard_normal((4, 2, 3, 3)).astype(np.float32)
    y = R.integers(0, 4, 8)

    def f(x, w):
        h = fnn.conv(x, w, padding=1)
        h = fnn.batch_norm(h, None, None, training=True)[0]
        h = fnn.max_pool(fnn.relu(h), 2)
        return fnn.cross_entropy(h.sum((2, 3)), y)

    def tf(x, w):
        F = torch.nn.functional
        h = F.batch_norm(F.conv2d(x, w, padding=1), None, None, training=True)
        h = F.max_pool2d(F.relu(h), 2)
        return F.cross_entropy(h.sum((2, 3)), torch.tensor(y))

    compare_torch(f, tf, (x, w), (0, 1), rtol=1e-5, atol=1e-6)
    g = ftrans.grad(f, argnums=(0, 1))(x, w)
    assert g[0].dtype == g[1].dtype == np.float32
